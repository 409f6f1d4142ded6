// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tracefile.c - libFuzzer target of the trace file reader
 * (lib/npuprof/tracefile.c, Documentation/npu/trace-file.rst): the input
 * is a whole .npuprof file. It is written to a memfd and read through
 * /proc/self/fd/N with npf_reader until the end or an error, twice (the
 * second time after npf_reader_rewind()); then again with the CRC of every
 * chunk recomputed, so that mutated items get past the CRC check and reach
 * the item checks. The reader must not crash, loop
 * or overread (ASan), must end in a documented state, hand out only items
 * inside the file with sizes that are multiples of 8 at increasing
 * offsets, name the file and an offset inside it in every message, count
 * the damaged chunks it skipped within the file's size, and give the same
 * result after a rewind (the damage counted once). When the input reads
 * whole and sound, a byte of it is flipped (where and how, from its
 * hash): every item of the chunks the flip missed must come out again,
 * at its offset and intact, and any other item from inside the flipped
 * chunk (flip_pass()): a flip in chunk k loses at most chunk k (unless
 * chunk k's payload holds the image of a sound chunk, which the reader
 * may then take, and an error inside chunk k's bytes stop it). When the file's last chunk points
 * at an index, the reader is moved there (npf_reader_seek()) and read on
 * under the same checks; then the public reader opens the file (from its
 * index, or with a pass) and reads every event.
 *
 * With NPUPROF_FUZZ_SEEDS=DIR set, LLVMFuzzerInitialize writes valid files
 * there (seed-*: complete files over one and many chunks, the latter also
 * without header CRCs as an older writer wrote it, one ending with
 * an index of clock samples, a file cut by an aborted writer, an empty
 * trace, one with a MODEL item and the SUBMIT span and OP records of its
 * job, memory_gen.h's two traces of BO records and the one of BO records
 * that make no sense, and its traces of a model whose MODEL item carries
 * a layer table (layers_gen.h), sound and damaged), as
 * selftests/host/npuprof/run-fuzz.sh expects. The public reader also
 * reads the file's models (memuse.h: a damaged MODEL item is skipped
 * with its message, never fatal; a bad layer table is dropped with its
 * own), every operator's layer is read back (its strings NUL-terminated,
 * the shapes as npu_layer_shapes_fmt() prints them), and then the memory
 * consumers run on the trace (mem_pass()): npuprof_memory() with every
 * table in each format, its rows, and npuprof_export_memsvg(). Not the
 * Chrome export: the timeline's sums of times overflow int64 on random
 * ones (timeline.c), which UBSan stops at.
 *
 * Locking: single-threaded. Lifetime: each input's memfd is closed before
 * the call returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "crc32.h"
#include "memuse.h"
#include "npuprof_analysis.h"
#include "npu/npu_program.h"
#include "reader.h"
#include "trace_format.h"
#include "writer.h"
#include "tracefile_gen.h"
#include "memory_gen.h"

#define CHECK(x) do { if (!(x)) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #x); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* What one pass over the file gave */
struct pass {
	int ret;
	int truncated;
	uint64_t items;
	uint64_t sum;		/* of item types, sizes and offsets */
	uint64_t stretches;	/* npf_reader_damage() after the pass */
	uint64_t *off;		/* with @keep: every item's offset */
	size_t keep;		/* room in @off */
};

/* "PATH: offset N: text" with N < @len (an error at open may name the
 * offset just past a short header, so <= there) */
static void check_msg(const char *msg, const char *path, uint64_t len)
{
	size_t plen = strlen(path);
	unsigned long long off;
	int n = 0;

	CHECK(!strncmp(msg, path, plen));
	if (sscanf(msg + plen, ": offset %llu: %n", &off, &n) == 1 && n) {
		CHECK(off <= len);
		CHECK(msg[plen + (size_t)n]);
	}
}

/* Read on to the end or an error, checking what the reader hands out */
static void read_pass(struct npf_reader *r, const char *path, uint64_t len,
		      struct pass *p)
{
	const struct npf_item *it;
	uint64_t off, last = 0;

	uint64_t *keep = p->off;
	size_t room = p->keep;
	struct npuprof_damage d;
	const char *why;

	memset(p, 0, sizeof(*p));
	p->off = keep;
	p->keep = room;
	while ((p->ret = npf_reader_next(r, &it, &off)) == 1) {
		CHECK(it->size >= 8 && !(it->size & 7));
		CHECK(off >= 64 + 32 && !(off & 7) && off > last);
		CHECK(off + it->size <= len);
		if (it->type && it->type <= NPF_ITEM_TYPE_MAX)
			CHECK(it->size - 8 >= npf_item_min_body[it->type]);
		last = off;
		if (p->items < p->keep)
			p->off[p->items] = off;
		p->items++;
		CHECK(p->items <= len / 8);
		p->sum += it->type * 31u + it->size * 7u + off;
	}
	p->truncated = npf_reader_truncated(r);
	p->stretches = npf_reader_damage(r, &d, &why);
	if (p->stretches) {
		CHECK(d.bytes <= len && d.first_offset < len);
		CHECK(d.last_offset >= d.first_offset && d.last_offset < len);
		CHECK(d.chunks <= len / 40 + d.stretches);
		CHECK(d.items_unknown <= d.chunks && why[0]);
		CHECK(d.items <= len / 8);
	} else {
		CHECK(!d.chunks && !d.bytes && !why[0]);
	}
	if (p->ret) {
		CHECK(p->ret == -EBADMSG || p->ret == -ENOMEM);
		CHECK(!p->truncated);
		check_msg(npf_reader_error(r), path, len);
		CHECK(npf_reader_next(r, &it, &off) == p->ret);
	} else {
		CHECK(!npf_reader_error(r)[0]);
		CHECK(npf_reader_next(r, &it, &off) == 0);
	}
}

/*
 * The index, when the last chunk points at one: inside the file, before
 * its last chunk; read from there under the same checks
 */
static void index_pass(struct npf_reader *r, const char *path, uint64_t len)
{
	uint64_t off, seq;
	struct pass p = { 0 };

	if (npf_reader_index(r, &off, &seq))
		return;
	CHECK(off >= 64 && !(off & 7) && off + 72 <= len);
	CHECK(npf_reader_seek(r, off, seq) == 0);
	read_pass(r, path, len, &p);
}

/* A stream that drops what it is given and counts it */
static ssize_t null_write(void *c, const char *buf, size_t n)
{
	*(uint64_t *)c += n;
	return (ssize_t)n;
}

/* Each row sink call: a memory table, its columns, then rows of them */
struct rows {
	unsigned int table, ncols;
	uint8_t type[64];
	uint64_t rows, chars;
};

static int rows_columns(void *ctx, unsigned int table,
			const struct npuprof_column *cols, unsigned int ncols)
{
	struct rows *r = ctx;
	unsigned int i;

	CHECK(npuprof_mem_table_name(table));
	CHECK(ncols && ncols <= 64);
	for (i = 0; i < ncols; i++) {
		CHECK(cols[i].name && cols[i].name[0] &&
		      cols[i].type <= NPUPROF_COL_F64);
		r->type[i] = (uint8_t)cols[i].type;
	}
	r->table = table;
	r->ncols = ncols;
	return 0;
}

static int rows_row(void *ctx, unsigned int table,
		    const struct npuprof_value *v)
{
	struct rows *r = ctx;
	unsigned int i;

	CHECK(r->ncols && table == r->table);
	for (i = 0; i < r->ncols; i++)
		if (!v[i].null && r->type[i] == NPUPROF_COL_STR) {
			CHECK(v[i].s);
			r->chars += strlen(v[i].s);
		}
	r->rows++;
	return 0;
}

/*
 * The memory consumers on an open trace (its models loaded): the report
 * in each text format with every table, the events too, and its rows; the
 * memory_flow SVG. Each must end in a documented state, every format of
 * the report with the same result; the output is counted and dropped.
 * (Not the Chrome export yet: on the seeds' random times it overflows
 * int64_t in npf_js_dur() and reorder.h, which UBSan stops.)
 */
static void mem_pass(struct npuprof_trace *t, uint64_t len)
{
	static const unsigned int fmts[] = {
		NPUPROF_FORMAT_TABLE, NPUPROF_FORMAT_CSV,
		NPUPROF_FORMAT_JSONL, NPUPROF_FORMAT_JSON,
	};
	const unsigned int all = NPUPROF_MEM_BIT(NPUPROF_MEM_TENSORS + 1) - 1;
	struct rows r = { 0 };
	struct npuprof_row_sink sink = { rows_columns, rows_row, &r };
	uint64_t bytes = 0;
	FILE *out;
	size_t i;
	int ret, first;

	out = fopencookie(&bytes, "w", (cookie_io_functions_t){
				  .write = null_write });
	CHECK(out);
	first = npuprof_memory(t, out, NULL);
	CHECK(first == 0 || first == -EBADMSG || first == -ENOMEM);
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		ret = npuprof_memory(t, out, NPUPROF_MEMORY_OPTS(
				.format = fmts[i], .tables = all,
				.top = i ? (unsigned int)i : 0));
		CHECK(ret == first);
	}
	ret = npuprof_memory(t, NULL, NPUPROF_MEMORY_OPTS(
			.format = NPUPROF_FORMAT_ROWS, .tables = all,
			.sink = &sink));
	CHECK(ret == first);
	CHECK(r.rows <= len + 64);
	ret = npuprof_export_memsvg(t, out, NULL);
	CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
	CHECK(fclose(out) == 0);
	CHECK(bytes < (256u << 20));
}

/*
 * Every operator's layer of every model: a sound table's strings (a name
 * and an op type not empty), shapes that start with a dtype's name and
 * end with ']'; nothing at all without a table
 */
static void layers_pass(const struct npuprof_trace *t)
{
	size_t i;
	uint32_t op;

	for (i = 0; i < npf_trace_nmodels(t); i++) {
		const struct npf_model *m = npf_trace_model_at(t, i);
		bool has = npf_model_has_layers(m);
		struct npf_layer l;

		CHECK(!has || !*npf_model_layers_error(m));
		for (op = 0; op <= npf_model_nops(m); op++) {
			size_t n;

			npf_model_layer(m, op, &l);
			if (!has || op == npf_model_nops(m)) {
				CHECK(!*l.name && !*l.op_type && !l.macs);
				continue;
			}
			CHECK(*l.name && *l.op_type);
			CHECK(strlen(l.name) < NPU_LAYERS_MAX_STR);
			n = strlen(l.in_shapes);
			CHECK(!n || l.in_shapes[n - 1] == ']');
			n = strlen(l.out_shapes);
			CHECK(n < 64 && (!n || l.out_shapes[n - 1] == ']'));
		}
	}
}

/* The public reader: an open (from the index or by a pass), every event */
static void trace_pass(const char *path, uint64_t len)
{
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npuprof_damage d1, d2;
	const char *msg;
	uint64_t n = 0, stretches;
	char err[512];
	bool read_all;
	int ret;

	ret = npuprof_trace_open(path, &t, err, sizeof(err));
	if (ret) {
		CHECK(ret == -ENOEXEC || ret == -EPROTONOSUPPORT ||
		      ret == -EBADMSG || ret == -ENOMEM);
		return;
	}
	while ((ret = npuprof_trace_next(t, &ev)) == 1)
		CHECK(++n <= len / 8);
	CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
	read_all = ret == 0;
	stretches = npuprof_trace_damage(t, &d1, NULL);
	/* the models: a pass of their own, damaged ones skipped */
	ret = npf_trace_load_models(t);
	CHECK(ret >= 0 || ret == -EBADMSG || ret == -ENOMEM || ret == -EIO);
	/* the same damage, counted once over both passes */
	if (read_all && ret >= 0) {
		CHECK(npuprof_trace_damage(t, &d2, NULL) == stretches);
		CHECK(d1.chunks == d2.chunks && d1.bytes == d2.bytes &&
		      d1.items == d2.items);
	}
	if (npf_trace_models_bad(t, &msg))
		check_msg(msg, path, len);
	if (npf_trace_layers_bad(t, &msg))
		check_msg(msg, path, len);
	layers_pass(t);
	mem_pass(t, len);
	npuprof_trace_close(t);
}

/*
 * Recompute the CRCs of every chunk of @buf that a reader would reach
 * (a header's own only where it has one);
 * Return: whether a CRC changed.
 */
static int fix_crcs(uint8_t *buf, size_t len)
{
	struct npf_file_hdr h;
	struct npf_chunk_hdr ch;
	size_t off;
	uint32_t crc;
	int changed = 0;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	off = h.hdr_size >= 64 && h.hdr_size <= 4096 ? h.hdr_size : 64;
	while (off + sizeof(ch) <= len) {
		memcpy(&ch, buf + off, sizeof(ch));
		if (ch.hdr_size < sizeof(ch) || ch.hdr_size > 256 ||
		    ch.hdr_size > len - off || ch.size > len - off - ch.hdr_size)
			break;
		crc = npf_crc32(0, buf + off + ch.hdr_size, ch.size);
		changed |= crc != ch.crc;
		ch.crc = crc;
		if (ch.hdr_crc) {
			crc = npf_crc32(0, &ch, NPF_CHUNK_HDR_CRC_LEN);
			changed |= crc != ch.hdr_crc;
			ch.hdr_crc = crc;
		}
		memcpy(buf + off, &ch, sizeof(ch));
		off += ch.hdr_size + ch.size;
	}
	return changed;
}

/*
 * @in (@len bytes) read whole and sound, its items at @soff (@n): flip a
 * byte of it in chunk k (after the file header; where and which bit from
 * the input's hash) and read it again. Every item outside chunk k comes
 * out at its offset with its bytes; an item inside chunk k may only be
 * one of a chunk image that its payload holds.
 */
static void flip_pass(const uint8_t *in, size_t len, const uint64_t *soff,
		      size_t n)
{
	uint32_t h = npf_crc32(0, in, len);
	uint64_t pos, off, ks, ke, o;
	const struct npf_item *it;
	struct npf_file_hdr fh;
	struct npf_chunk_hdr ch;
	struct npf_reader *r;
	size_t i = 0, seen = 0, in_k = 0;
	char path[64], err[512];
	uint8_t *copy;
	int fd, ret;

	if (len <= sizeof(fh))
		return;
	memcpy(&fh, in, sizeof(fh));
	pos = sizeof(fh) + h % (len - sizeof(fh));
	/* chunk k: the sound layout's, or the cut tail after the last */
	ks = ke = 0;
	for (off = fh.hdr_size; off + sizeof(ch) <= len; off = ke) {
		memcpy(&ch, in + off, sizeof(ch));
		if (ch.magic != NPF_CHUNK_MAGIC)
			return;		/* chunk 0 was not at hdr_size */
		ks = off;
		ke = off + ch.hdr_size + ch.size;
		if (pos < ke)
			break;
	}
	if (pos < fh.hdr_size)
		ks = ke = 0;		/* in the header's extension */
	else if (pos >= ke)
		ks = off, ke = len;	/* in a cut chunk at the end */
	copy = malloc(len);
	CHECK(copy);
	memcpy(copy, in, len);
	copy[pos] ^= (uint8_t)(1u << (h >> 29));
	fd = memfd_create("npuprof-flip", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(write(fd, copy, len) == (ssize_t)len);
	free(copy);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK(npf_reader_open(path, &r, err, sizeof(err)) == 0);
	while ((ret = npf_reader_next(r, &it, &o)) == 1) {
		if (o >= ks && o < ke) {
			CHECK(o + it->size <= ke);
			continue;
		}
		while (i < n && soff[i] < o)
			i++;
		CHECK(i < n && soff[i] == o);
		CHECK(!memcmp(it, in + o, it->size));
		seen++;
	}
	if (ret) {
		/* only what chunk k's bytes hold: the image of a chunk, then
		 * what follows it (END then data) */
		const char *m = npf_reader_error(r) + strlen(path);
		unsigned long long at = 0;

		fprintf(stderr, "flip at %llu: %s\n", (unsigned long long)pos,
			npf_reader_error(r));
		CHECK(ret == -EBADMSG);
		CHECK(sscanf(m, ": offset %llu:", &at) == 1);
		CHECK(at >= ks && at < ke);
	}
	npf_reader_close(r);
	close(fd);
	for (i = 0; i < n; i++)
		in_k += soff[i] >= ks && soff[i] < ke;
	CHECK(ret || seen == n - in_k);
}

/* Read @in (@len bytes) as a trace file, checking the reader's contract */
static void fuzz_one(const uint8_t *in, size_t len)
{
	struct npf_reader *r;
	struct pass a = { 0 }, b = { 0 };
	char path[64], err[512];
	int fd, ret;

	fd = memfd_create("npuprof-fuzz", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(write(fd, in, len) == (ssize_t)len);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	ret = npf_reader_open(path, &r, err, sizeof(err));
	if (ret) {
		CHECK(ret == -ENOEXEC || ret == -EPROTONOSUPPORT ||
		      ret == -EBADMSG);
		CHECK(!r);
		check_msg(err, path, len);
		close(fd);
		return;
	}
	CHECK(len >= 64);
	a.keep = len / 8 + 1;
	a.off = malloc(a.keep * sizeof(*a.off));
	CHECK(a.off);
	read_pass(r, path, len, &a);
	CHECK(npf_reader_rewind(r) == 0);
	read_pass(r, path, len, &b);
	CHECK(a.ret == b.ret && a.truncated == b.truncated &&
	      a.items == b.items && a.sum == b.sum &&
	      a.stretches == b.stretches);
	index_pass(r, path, len);
	/* a seek leaves the rest of the file to the next pass: the same */
	CHECK(npf_reader_rewind(r) == 0);
	read_pass(r, path, len, &b);
	CHECK(a.ret == b.ret && a.truncated == b.truncated &&
	      a.items == b.items && a.sum == b.sum &&
	      a.stretches == b.stretches);
	npf_reader_close(r);
	trace_pass(path, len);
	close(fd);
	if (!a.ret && !a.stretches)
		flip_pass(in, len, a.off, a.items);
	free(a.off);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	uint8_t *copy;

	fuzz_one(in, len);
	copy = malloc(len ? len : 1);
	CHECK(copy);
	memcpy(copy, in, len);
	if (fix_crcs(copy, len))
		fuzz_one(copy, len);
	free(copy);
	return 0;
}

/* A new file at @path with one device, /dev/npu0 at 1 GHz */
static int seed_open(const char *path, struct npf_writer **w)
{
	struct npf_item_device dev = { .dev = 0, .info_size = sizeof(struct npu_info) };
	struct npu_info info = { .version = 1, .pe_count = 2,
				 .clock_hz = 1000000000 };
	int ret = npf_writer_open(path, NPF_CHUNK_MIN, w);

	if (ret)
		return ret;
	strcpy(dev.path, "/dev/npu0");
	return npf_writer_add(*w, NPF_ITEM_DEVICE, &dev, sizeof(dev), &info,
			      sizeof(info));
}

/* A small trace of one device as a session writes it, with its index */
static int seed_index(const char *path)
{
	struct npf_item_records ir = { .dev = 0, .count = 2 };
	struct npf_clock_sample cs[4];
	struct npf_writer *w;
	uint8_t run[sizeof(struct npu_trace_rec_clock) +
		    sizeof(struct npu_trace_rec_op)];
	int i, ret;

	ret = seed_open(path, &w);
	if (ret)
		return ret;
	for (i = 0; i < 4; i++) {
		struct npu_trace_rec_clock *c = (void *)run;
		struct npu_trace_rec_op *o = (void *)(c + 1);
		uint64_t t = 1000000000ull + (uint64_t)i * 10000000;

		memset(run, 0, sizeof(run));
		c->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_CLOCK,
						     sizeof(*c), 2 * i };
		c->host_before_ns = t - 100;
		c->device_tick = t - 500000000;
		c->host_after_ns = t + 100;
		cs[i] = (struct npf_clock_sample){ c->host_before_ns,
						   c->device_tick,
						   c->host_after_ns };
		o->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_OP,
						     sizeof(*o), 2 * i + 1 };
		o->start_tick = c->device_tick + 1000;
		o->end_tick = o->start_tick + 900;
		npf_writer_add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), run,
			       sizeof(run));
	}
	ret = npf_writer_index(w);
	if (!ret)
		ret = npf_writer_add_clocks(w, 0, 1000000000, cs, 4);
	if (ret) {
		npf_writer_abort(w);
		return ret;
	}
	return npf_writer_close(w);
}

/* A device, a model (two tensors, one operator), its job's span and OP */
static int seed_model(const char *path)
{
	struct {
		struct npf_item_model h;
		struct npu_prog_hdr ph;
		struct npu_prog_tensor t[2];
		struct npu_prog_op op;
	} m;
	struct npuprof_span_rec sp;
	struct npf_item_record ir = { .dev = 0 };
	struct npu_trace_rec_op o;
	struct npf_writer *w;
	int i, ret;

	ret = seed_open(path, &w);
	if (ret)
		return ret;
	memset(&m, 0, sizeof(m));
	m.h.model_id = 1;
	m.h.pid = 10;
	strcpy(m.h.name, "seed");
	m.h.n_slots = 3;
	m.h.prog_size = sizeof(m) - sizeof(m.h);
	m.h.slot_size[0] = 4096;
	m.h.slot_size[1] = 64;
	m.h.slot_size[2] = 64;
	m.h.slot_kind[0] = 1;
	m.h.slot_kind[1] = 2;
	m.h.slot_kind[2] = 3;
	m.ph = (struct npu_prog_hdr){ NPU_PROG_MAGIC, NPU_PROG_VERSION,
				      sizeof(m.ph), 2, 1, sizeof(m.ph),
				      sizeof(m.ph) + sizeof(m.t),
				      m.h.prog_size, 0 };
	for (i = 0; i < 2; i++) {
		m.t[i].dtype = NPU_DT_U8;
		m.t[i].ndim = 1;
		m.t[i].buf = (uint8_t)(i + 1);
		m.t[i].dims[0] = m.t[i].dims[1] = m.t[i].dims[2] = 1;
		m.t[i].dims[3] = 64;
	}
	m.op.opcode = NPU_OP_CLIP;
	m.op.in[0] = 0;
	m.op.in[1] = m.op.in[2] = m.op.rq = NPU_PROG_NONE;
	m.op.out = 1;
	npf_writer_add(w, NPF_ITEM_MODEL, &m, sizeof(m), NULL, 0);
	memset(&sp, 0, sizeof(sp));
	sp.kind = NPUPROF_SPAN_SUBMIT;
	sp.flags = NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_MODEL;
	sp.name_id = 1;
	sp.pid = sp.tid = 10;
	sp.span_id = 1;
	sp.start_ns = 100;
	sp.end_ns = 200;
	sp.job_id = 1;
	npf_writer_add(w, NPF_ITEM_SPAN, &sp, sizeof(sp), NULL, 0);
	memset(&o, 0, sizeof(o));
	o.hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_OP, sizeof(o), 0 };
	o.pid = o.tid = 10;
	o.job_id = 1;
	o.opcode = NPU_OP_CLIP;
	o.end_tick = 10;
	npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), &o, sizeof(o));
	return npf_writer_close(w);
}

/*
 * BO records that make no sense, for the memory consumers: a size of 0
 * and of 2^64 - 1, a buffer past the end of the address space and one
 * outside the DRAM, an id allocated twice, a double free and a free
 * before its allocation, a free of another size, failures with odd
 * errors, an unknown kind, time going back, a device with no DRAM size
 */
static int seed_bo_odd(const char *path)
{
	const uint64_t big = ~0ull;
	struct npf_writer *w;
	uint32_t q = 0;
	int ret;

	ret = npf_writer_open(path, NPF_CHUNK_MIN, &w);
	if (ret)
		return ret;
	mem_gen_device(w, 0, 3, 1 << 20);
	mem_gen_device(w, 1, 4, 0);
	mem_gen_bo(w, 0, MEM_A, q++, 1, 1, 0x400000, 4096,
		   NPU_BO_KIND_INPUT, 0, 0, MEM_US(1), 4096);
	mem_gen_bo(w, 0, MEM_A, q++, 1, 1, 0x400000, 8192,
		   NPU_BO_KIND_INPUT, 0, 0, MEM_US(2), 12288);
	mem_gen_bo(w, 0, MEM_A, q++, 1, 2, 0, 0,
		   NPU_BO_KIND_OTHER, 0, 0, MEM_US(2), 12288);
	mem_gen_bo(w, 0, MEM_A, q++, 2, 3, big - 4095, big,
		   NPU_BO_KIND_SCRATCH, 0, 0, MEM_US(3), big);
	mem_gen_bo(w, 0, MEM_A, q++, 2, 4, 0x10000000, 1 << 20,
		   15, 0, 0, MEM_US(0.5), 0);
	mem_gen_bo(w, 0, MEM_F, q++, 3, 5, 0x500000, 64,
		   NPU_BO_KIND_OUTPUT, 0, 9, MEM_US(4), 0);
	mem_gen_bo(w, 0, MEM_A, q++, 3, 5, 0x500000, 64,
		   NPU_BO_KIND_OUTPUT, 0, 0, MEM_US(5), 64);
	mem_gen_bo(w, 0, MEM_F, q++, 1, 1, 0x400000, 1,
		   NPU_BO_KIND_INPUT, 0, NPU_TRACE_BO_FREE_UNMAP, MEM_US(6), 0);
	mem_gen_bo(w, 0, MEM_F, q++, 1, 1, 0x400000, 4096,
		   NPU_BO_KIND_INPUT, 0, NPU_TRACE_BO_FREE_HANDLE, MEM_US(6), 0);
	mem_gen_bo(w, 0, MEM_A, q++, -1, 0, 0, big,
		   NPU_BO_KIND_SCRATCH, -ENOMEM, 0, MEM_US(7), 0);
	mem_gen_bo(w, 0, MEM_A, q++, 4, 6, 0x600000, 4096,
		   NPU_BO_KIND_PROGRAM, 12345, 0, MEM_US(8), 0);
	mem_gen_bo(w, 0, MEM_F, q++, 2, 3, big - 4095, big,
		   NPU_BO_KIND_SCRATCH, -EIO, 0, big, 0);
	mem_gen_bo(w, 1, MEM_A, q++, 5, 1, 0x400000, 4096,
		   NPU_BO_KIND_OTHER, 0, 0, 0, 4096);
	mem_gen_bo(w, 1, MEM_F, q++, 5, 1, 0x400000, 4096,
		   NPU_BO_KIND_OTHER, -EDQUOT, NPU_TRACE_BO_FREE_OTHER, 0, 0);
	return npf_writer_close(w);
}

/* memory_gen.h's jobs, the layer table's second shape of 5 dims */
static void seed_layers_bad(const char *path)
{
	struct lay_table t;

	lay_gen_table(&t);
	t.d[1].in[0].ndim = 5;
	mem_gen_jobs_write_tail(path, &t, LAY_SIZE);
}

/* Zero the hdr_crc of every chunk of the file @path, in place */
static int seed_unprotect(const char *path)
{
	struct npf_chunk_hdr ch;
	uint64_t off = sizeof(struct npf_file_hdr);
	FILE *f = fopen(path, "r+");
	int ret = 0;

	if (!f)
		return -errno;
	while (!fseek(f, (long)off, SEEK_SET) &&
	       fread(&ch, sizeof(ch), 1, f) == 1) {
		ch.hdr_crc = 0;
		if (fseek(f, (long)off, SEEK_SET) ||
		    fwrite(&ch, sizeof(ch), 1, f) != 1) {
			ret = -EIO;
			break;
		}
		off += ch.hdr_size + ch.size;
	}
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct {
		const char *name;
		uint32_t chunk_max;
		unsigned int items;
		int complete;
	} seeds[] = {
		{ "seed-chunks", NPF_CHUNK_MIN, 120, 1 },
		{ "seed-one-chunk", 0, 22, 1 },
		{ "seed-cut", NPF_CHUNK_MIN, 90, 0 },
		{ "seed-empty", 0, 0, 1 },
	};
	const char *dir = getenv("NPUPROF_FUZZ_SEEDS");
	char path[4096];
	size_t i;

	(void)argc;
	(void)argv;
	if (!dir || !*dir)
		return 0;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
		CHECK(gen_file(path, seeds[i].chunk_max, seeds[i].items,
			       seeds[i].complete) == 0);
	}
	/* seed-chunks as an older writer wrote it: no header CRCs */
	snprintf(path, sizeof(path), "%s/seed-old", dir);
	CHECK(gen_file(path, NPF_CHUNK_MIN, 120, 1) == 0);
	CHECK(seed_unprotect(path) == 0);
	/* a device, its CLOCK records and OPs, and the index at the end */
	snprintf(path, sizeof(path), "%s/seed-index", dir);
	CHECK(seed_index(path) == 0);
	snprintf(path, sizeof(path), "%s/seed-model", dir);
	CHECK(seed_model(path) == 0);
	/* BO records: memory_gen.h's traces (allocs, frees, failures, an
	 * unpaired free, a size of 0; a model and its job), and odd ones */
	snprintf(path, sizeof(path), "%s/seed-memory", dir);
	mem_gen_write(path);
	snprintf(path, sizeof(path), "%s/seed-memory-model", dir);
	mem_gen_model_write(path);
	snprintf(path, sizeof(path), "%s/seed-bo-odd", dir);
	CHECK(seed_bo_odd(path) == 0);
	/* a model with its layer table (two jobs of it), and a bad table */
	snprintf(path, sizeof(path), "%s/seed-layers", dir);
	mem_gen_jobs_write(path);
	snprintf(path, sizeof(path), "%s/seed-layers-bad", dir);
	seed_layers_bad(path);
	return 0;
}
