// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_damage.c - damaged trace files keep what is intact
 * (Documentation/npu/trace-file.rst, "Reading a damaged file"), through
 * the public reader (npuprof_trace_*) and the npuprof command.
 *
 * A synthetic trace of many 4 KiB chunks with known events (a device, its
 * clock samples, per job a SUBMIT span and an EXEC and two OP records,
 * a marker META near the end, the SUMMARY, the index) is read intact
 * once; then a byte is flipped in every chunk (at every header field, and
 * at payload offsets spread over it) and in every byte of the file
 * header, and the file read again: every event of the other chunks comes
 * out in order with its offset and identity, and npuprof_trace_damage()
 * counts exactly the flipped chunk (its bytes, its items when its header
 * was sound). Also: two adjacent damaged chunks and two apart, a cut in
 * the middle (truncated, nothing counted as damage), a trace a session
 * wrote on the host (spans of two threads, several 256 KiB chunks) and,
 * when the build has one, the demo's trace of the device (of a writer
 * before the header CRC), and the npuprof command on a damaged file:
 * every command exits 0 with its one-line warning, summary and dump show
 * the count, and dump prints the events after the damage.
 *
 * Each test works in its own directory from mkdtemp() under /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof.h"
#include "npuprof_analysis.h"
#include "trace_format.h"
#include "writer.h"
#include "file_util.h"
#include "gen_util.h"

#define NJOBS		400
#define T0		5000000000ull	/* 5 s */
#define MARKER		"after-damage"

/* An event as the test identifies it */
struct evid {
	uint32_t type;
	uint32_t dev;
	uint64_t offset;
	uint64_t key;		/* span id, record type and seq, ... */
};

/* What the public reader gave for a file */
struct got {
	int open_ret;
	int ret;
	int truncated;
	size_t n, cap;
	struct evid *ev;
	struct npuprof_damage d;
	char why[128];
};

static void got_free(struct got *g)
{
	free(g->ev);
	memset(g, 0, sizeof(*g));
}

static void read_trace(const char *path, struct got *g)
{
	struct npuprof_trace *t;
	struct npuprof_event ev;
	const char *why;
	char err[256];

	memset(g, 0, sizeof(*g));
	g->open_ret = npuprof_trace_open(path, &t, err, sizeof(err));
	if (g->open_ret)
		return;
	while ((g->ret = npuprof_trace_next(t, &ev)) == 1) {
		struct evid *e;

		if (g->n == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 1024;
			g->ev = realloc(g->ev, g->cap * sizeof(*g->ev));
			if (!g->ev)
				abort();
		}
		e = &g->ev[g->n++];
		e->type = ev.type;
		e->dev = ev.dev;
		e->offset = ev.offset;
		if (ev.span)
			e->key = ev.span->span_id ^ ev.span->start_ns << 20;
		else if (ev.rec)
			e->key = (uint64_t)((const struct npu_trace_rec_hdr *)
					    ev.rec)->type << 32 |
				 ((const struct npu_trace_rec_hdr *)ev.rec)->seq;
		else if (ev.key)
			e->key = strlen(ev.key) << 8 | (uint8_t)ev.key[0];
		else
			e->key = ev.count;
	}
	g->truncated = npuprof_trace_truncated(t);
	npuprof_trace_damage(t, &g->d, &why);
	snprintf(g->why, sizeof(g->why), "%s", why);
	npuprof_trace_close(t);
}

/*
 * @g holds the events of @full but those at file offsets [@lo, @hi) and
 * [@lo2, @hi2), in order
 */
static int all_but2(const struct got *g, const struct got *full,
		    uint64_t lo, uint64_t hi, uint64_t lo2, uint64_t hi2)
{
	size_t i, k = 0;

	for (i = 0; i < full->n; i++) {
		uint64_t o = full->ev[i].offset;

		if ((o >= lo && o < hi) || (o >= lo2 && o < hi2))
			continue;
		if (k >= g->n || memcmp(&g->ev[k], &full->ev[i],
					sizeof(g->ev[k])))
			return 0;
		k++;
	}
	return k == g->n;
}

/* @g holds the events of @full but those at file offsets [@lo, @hi) */
static int all_but(const struct got *g, const struct got *full, uint64_t lo,
		   uint64_t hi)
{
	return all_but2(g, full, lo, hi, 0, 0);
}

/* The synthetic trace of the file comment at @path */
static int gen_damage_trace(const char *path)
{
	struct npf_clock_sample cs[NJOBS / 10 + 1];
	struct npf_item_records ir = { .dev = 0, .count = 3 };
	struct npuprof_summary sum = { 0 };
	struct npf_writer *w;
	size_t ncs = 0;
	uint32_t seq = 0;
	unsigned int j;
	int ret;

	ret = npf_writer_open(path, NPF_CHUNK_MIN, &w);
	if (ret)
		return ret;
	npf_writer_add(w, NPF_ITEM_META, "host", 5, "test", 5);
	gen_util_device(w, 0, 0, 2, 1000000000, 1 << 30);
	for (j = 0; j < NJOBS; j++) {
		uint64_t t = T0 + (uint64_t)j * 1000000;
		struct npuprof_span_rec sp;
		struct {
			struct npu_trace_rec_exec e;
			struct npu_trace_rec_op o[2];
		} r;
		unsigned int k;

		if (j % 10 == 0) {
			struct npu_trace_rec_clock c;
			struct npf_item_records one = { .dev = 0, .count = 1 };

			memset(&c, 0, sizeof(c));
			c.hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_CLOCK,
							    sizeof(c), seq++ };
			c.host_before_ns = t - 500;
			c.device_tick = t - T0;
			c.host_after_ns = t + 500;
			cs[ncs++] = (struct npf_clock_sample){
				c.host_before_ns, c.device_tick, c.host_after_ns };
			npf_writer_add(w, NPF_ITEM_RECORDS, &one, sizeof(one),
				       &c, sizeof(c));
		}
		memset(&sp, 0, sizeof(sp));
		sp.kind = NPUPROF_SPAN_SUBMIT;
		sp.flags = NPUPROF_SPAN_F_JOB;
		sp.pid = 10;
		sp.tid = 11;
		sp.span_id = j + 1;
		sp.start_ns = t + 1000;
		sp.end_ns = t + 2000;
		sp.job_id = j + 1;
		npf_writer_add(w, NPF_ITEM_SPAN, &sp, sizeof(sp), NULL, 0);
		memset(&r, 0, sizeof(r));
		r.e.hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_EXEC,
						      sizeof(r.e), seq++ };
		r.e.flags = NPU_TRACE_EXEC_F_DEVICE;
		r.e.pid = 10;
		r.e.tid = 11;
		r.e.job_id = j + 1;
		r.e.submit_ns = t + 1500;
		r.e.complete_ns = t + 900000;
		r.e.n_ops = 2;
		r.e.start_tick = t - T0 + 10000;
		r.e.end_tick = t - T0 + 800000;
		r.e.run_ticks = 700000;
		r.e.iowait_ticks = 90000;
		for (k = 0; k < 2; k++) {
			r.o[k].hdr = (struct npu_trace_rec_hdr){
				NPU_TRACE_REC_OP, sizeof(r.o[k]), seq++ };
			r.o[k].pid = 10;
			r.o[k].tid = 11;
			r.o[k].job_id = j + 1;
			r.o[k].opcode = NPU_OP_CONV2D;
			r.o[k].op_index = k;
			r.o[k].start_tick = r.e.start_tick + k * 300000;
			r.o[k].end_tick = r.o[k].start_tick + 200000;
		}
		npf_writer_add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), &r,
			       sizeof(r));
		if (j == NJOBS - 5)
			npf_writer_add(w, NPF_ITEM_META, "marker", 7, MARKER,
				       sizeof(MARKER));
	}
	sum.spans = NJOBS;
	sum.records = seq;
	sum.start_ns = T0;
	sum.stop_ns = T0 + NJOBS * 1000000ull;
	npf_writer_add(w, NPF_ITEM_SUMMARY, &sum, sizeof(sum), NULL, 0);
	ret = npf_writer_index(w);
	if (!ret)
		ret = npf_writer_add_clocks(w, 0, 1000000000, cs, ncs);
	if (ret) {
		npf_writer_abort(w);
		return ret;
	}
	return npf_writer_close(w);
}

FIXTURE(dmg) {
	char dir[64];
	char path[128];
	char bad[128];
	uint8_t *buf;
	size_t len;
	struct file_chunks c;
	struct got full;
};

FIXTURE_SETUP(dmg)
{
	strcpy(self->dir, "/tmp/npuprof-dmg-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/t.npuprof", self->dir);
	snprintf(self->bad, sizeof(self->bad), "%s/bad.npuprof", self->dir);
	ASSERT_EQ(0, gen_damage_trace(self->path));
	self->buf = file_slurp(self->path, &self->len);
	ASSERT_NE(NULL, self->buf);
	file_chunks_of(self->buf, self->len, &self->c);
	read_trace(self->path, &self->full);
	ASSERT_EQ(0, self->full.open_ret);
	ASSERT_EQ(0, self->full.ret);
	ASSERT_EQ(0, self->full.truncated);
	ASSERT_EQ(0u, self->full.d.stretches);
}

FIXTURE_TEARDOWN(dmg)
{
	file_rmdir(self->dir);
	free(self->buf);
	got_free(&self->full);
}

TEST_F(dmg, the_trace_spans_many_chunks)
{
	size_t i, spans = 0, recs = 0;

	EXPECT_LE(30u, self->c.n);
	for (i = 0; i < self->full.n; i++) {
		spans += self->full.ev[i].type == NPUPROF_EV_SPAN;
		recs += self->full.ev[i].type == NPUPROF_EV_RECORD;
	}
	EXPECT_EQ(NJOBS, spans);
	EXPECT_EQ(NJOBS * 3 + NJOBS / 10, recs);
}

/*
 * A byte flipped in chunk k, at each field of its header and at payload
 * offsets spread over it: exactly chunk k is lost and counted
 */
TEST_F(dmg, a_flip_in_chunk_k_loses_chunk_k)
{
	static const size_t hdr_at[] = { 0, 3, 4, 8, 12, 16, 19, 20, 24, 28,
					 31 };
	size_t k, i, reads = 0;
	struct got g;

	for (k = 0; k < self->c.n; k++) {
		uint64_t s = self->c.start[k], e = self->c.end[k];
		size_t at[32], n = 0;

		for (i = 0; i < sizeof(hdr_at) / sizeof(hdr_at[0]); i++)
			at[n++] = s + hdr_at[i];
		for (i = 0; i < 8; i++) {
			at[n] = s + 32 + (e - s - 32) * i / 8 + i;
			if (at[n] >= e)
				at[n] = e - 1;
			n++;
		}
		at[n++] = e - 1;
		for (i = 0; i < n; i++) {
			bool in_hdr = at[i] < s + 32;

			ASSERT_EQ(0, file_flip_write(self->bad, self->buf,
						     self->len, &at[i], 1,
						     (uint8_t)(1u << (i % 8))));
			read_trace(self->bad, &g);
			reads++;
			ASSERT_EQ(0, g.open_ret) TH_LOG("chunk %zu byte %zu", k, at[i]);
			ASSERT_EQ(0, g.ret) TH_LOG("chunk %zu byte %zu", k, at[i]);
			ASSERT_TRUE(all_but(&g, &self->full, s, e))
				TH_LOG("chunk %zu byte %zu: %zu events of %zu",
				       k, at[i], g.n, self->full.n);
			EXPECT_EQ(1u, g.d.stretches);
			EXPECT_EQ(1u, g.d.chunks);
			EXPECT_EQ(e - s, g.d.bytes);
			EXPECT_EQ(s, g.d.first_offset);
			EXPECT_EQ(in_hdr ? 0 : self->c.items[k], g.d.items);
			EXPECT_EQ(in_hdr ? 1u : 0u, g.d.items_unknown);
			EXPECT_NE(0, g.why[0]);
			/* only the last chunk holds END */
			EXPECT_EQ(k == self->c.n - 1, g.truncated);
			got_free(&g);
		}
	}
	TH_LOG("%zu chunks, %zu damaged files read", self->c.n, reads);
}

/* Every byte of the file header: refused with its error, or harmless */
TEST_F(dmg, a_flip_in_the_file_header)
{
	size_t x, refused = 0, harmless = 0;
	struct got g;

	for (x = 0; x < sizeof(struct npf_file_hdr); x++) {
		ASSERT_EQ(0, file_flip_write(self->bad, self->buf, self->len,
					     &x, 1, 0x10));
		read_trace(self->bad, &g);
		if (g.open_ret) {
			EXPECT_TRUE(g.open_ret == -ENOEXEC ||
				    g.open_ret == -EPROTONOSUPPORT ||
				    g.open_ret == -EBADMSG) TH_LOG("byte %zu", x);
			refused++;
		} else {
			ASSERT_EQ(0, g.ret);
			ASSERT_TRUE(all_but(&g, &self->full, 0, 0))
				TH_LOG("byte %zu", x);
			EXPECT_EQ(0u, g.d.stretches);
			harmless++;
		}
		got_free(&g);
	}
	TH_LOG("%zu refused, %zu harmless", refused, harmless);
	EXPECT_LE(12u, refused);
}

/* Two damaged chunks side by side: one stretch of both; two apart: two */
TEST_F(dmg, two_damaged_chunks)
{
	/* in each, at 17 its header, at 40 its payload */
	static const size_t pairs[][2] = { { 40, 40 }, { 17, 40 }, { 40, 17 } };
	size_t k = self->c.n / 2, at[2], i;
	struct got g;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		bool h0 = pairs[i][0] < 32, h1 = pairs[i][1] < 32;

		at[0] = self->c.start[k] + pairs[i][0];
		at[1] = self->c.start[k + 1] + pairs[i][1];
		ASSERT_EQ(0, file_flip_write(self->bad, self->buf, self->len,
					     at, 2, 0x04));
		read_trace(self->bad, &g);
		ASSERT_EQ(0, g.ret);
		EXPECT_TRUE(all_but(&g, &self->full, self->c.start[k],
				    self->c.end[k + 1])) TH_LOG("pair %zu", i);
		EXPECT_EQ(1u, g.d.stretches);
		EXPECT_EQ(2u, g.d.chunks);
		EXPECT_EQ(self->c.end[k + 1] - self->c.start[k], g.d.bytes);
		EXPECT_EQ((h0 ? 0 : self->c.items[k]) +
			  (h1 ? 0 : self->c.items[k + 1]), g.d.items)
			TH_LOG("pair %zu", i);
		EXPECT_EQ((size_t)h0 + h1, g.d.items_unknown);
		got_free(&g);
	}

	/* chunks 2 and k: two stretches, the events between them read */
	at[0] = self->c.start[2] + 100;
	at[1] = self->c.start[k] + 100;
	ASSERT_EQ(0, file_flip_write(self->bad, self->buf, self->len, at, 2,
				     0x80));
	read_trace(self->bad, &g);
	ASSERT_EQ(0, g.ret);
	EXPECT_EQ(2u, g.d.stretches);
	EXPECT_EQ(2u, g.d.chunks);
	EXPECT_EQ(self->c.start[2], g.d.first_offset);
	EXPECT_EQ(self->c.start[k], g.d.last_offset);
	EXPECT_EQ(self->c.end[2] - self->c.start[2] +
		  self->c.end[k] - self->c.start[k], g.d.bytes);
	EXPECT_TRUE(all_but2(&g, &self->full, self->c.start[2],
			     self->c.end[2], self->c.start[k], self->c.end[k]));
	got_free(&g);
}

/* A cut in the middle of a chunk: truncated there, no damage counted */
TEST_F(dmg, a_cut_in_the_middle)
{
	size_t k = self->c.n / 3;
	uint64_t cut = self->c.start[k] + 32 + 1000;
	struct got g;

	ASSERT_EQ(0, file_write(self->bad, self->buf, cut));
	read_trace(self->bad, &g);
	ASSERT_EQ(0, g.open_ret);
	ASSERT_EQ(0, g.ret);
	EXPECT_EQ(1, g.truncated);
	EXPECT_EQ(0u, g.d.stretches);
	EXPECT_TRUE(all_but(&g, &self->full, self->c.start[k], UINT64_MAX));
	got_free(&g);

	/* a flip before the cut as well: that chunk lost, the rest read */
	{
		size_t at = self->c.start[1] + 200;

		self->buf[at] ^= 2;
		ASSERT_EQ(0, file_write(self->bad, self->buf, cut));
		self->buf[at] ^= 2;
	}
	read_trace(self->bad, &g);
	ASSERT_EQ(0, g.ret);
	EXPECT_EQ(1, g.truncated);
	EXPECT_EQ(1u, g.d.stretches);
	EXPECT_EQ(1u, g.d.chunks);
	/* the events of chunks 0 and 2 .. k-1 */
	EXPECT_TRUE(all_but2(&g, &self->full, self->c.start[1], self->c.end[1],
			     self->c.start[k], UINT64_MAX));
	got_free(&g);
}

/* Run the npuprof command; its status, stdout and stderr in files */
static int run_cli(const char *dir, const char *const *args, char **out,
		   char **err)
{
	char exe[600], o[256], e[256];
	const char *argv[16];
	size_t n = 0, len;
	pid_t pid;
	int st;

	{
		const char *b = getenv("NPU_BUILD");
		char self_exe[512];
		ssize_t k;

		if (b) {
			snprintf(exe, sizeof(exe), "%s/bin/npuprof", b);
		} else {
			k = readlink("/proc/self/exe", self_exe,
				     sizeof(self_exe) - 1);
			if (k <= 0)
				return -1;
			self_exe[k] = 0;
			*strrchr(self_exe, '/') = 0;	/* tests */
			*strrchr(self_exe, '/') = 0;
			snprintf(exe, sizeof(exe), "%s/bin/npuprof", self_exe);
		}
	}
	if (access(exe, X_OK))
		return -2;
	argv[n++] = exe;
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	snprintf(o, sizeof(o), "%s/out", dir);
	snprintf(e, sizeof(e), "%s/err", dir);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(200);
		execv(exe, (char *const *)argv);
		_exit(201);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	*out = (char *)file_slurp(o, &len);
	*err = (char *)file_slurp(e, &len);
	return WEXITSTATUS(st);
}

/* Lines of @s that contain @what */
static int count_lines(const char *s, const char *what)
{
	int n = 0;
	const char *p = s;

	while ((p = strstr(p, what))) {
		n++;
		p += strlen(what);
	}
	return n;
}

/*
 * Every command that reads a trace, on a file with chunk 3 damaged: exit
 * 0, one warning line naming the file, what and where; summary's totals
 * and dump's count it, and dump prints the marker written after it
 */
TEST_F(dmg, cli_on_a_damaged_file)
{
	char json[256], db[256], want[512];
	const char *b = self->bad;
	const char *const cmds[][8] = {
		{ "summary", b, NULL },
		{ "dump", b, NULL },
		{ "report", "--inferences", b, NULL },
		{ "report", "--spans", "--format", "csv", b, NULL },
		{ "analyze", b, NULL },
		{ "analyze", "--breakdown", b, NULL },
		{ "memory", b, NULL },
		{ "export", "-o", json, b, NULL },
		{ "export", "--format", "sqlite", "-o", db, b, NULL },
		{ "diff", b, self->path, NULL },
	};
	size_t at = self->c.start[3] + 500, i;
	char *out, *err;
	int st;

	snprintf(json, sizeof(json), "%s/t.json", self->dir);
	snprintf(db, sizeof(db), "%s/t.sqlite", self->dir);
	ASSERT_EQ(0, file_flip_write(self->bad, self->buf, self->len, &at, 1,
				     0x20));
	snprintf(want, sizeof(want),
		 "npuprof: warning: %s: skipped 1 damaged chunk (%llu bytes, %u items) at offset %llu (chunk crc 0x",
		 b, (unsigned long long)(self->c.end[3] - self->c.start[3]),
		 self->c.items[3], (unsigned long long)self->c.start[3]);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		out = err = NULL;
		st = run_cli(self->dir, cmds[i], &out, &err);
		if (st == -2)
			SKIP(return, "no npuprof binary next to the tests");
		ASSERT_EQ(0, st) TH_LOG("npuprof %s: %s", cmds[i][0], err);
		ASSERT_NE(NULL, out);
		ASSERT_NE(NULL, err);
		EXPECT_EQ(1, count_lines(err, "damaged chunk"))
			TH_LOG("npuprof %s: %s", cmds[i][0], err);
		EXPECT_NE(NULL, strstr(err, want))
			TH_LOG("npuprof %s: %s", cmds[i][0], err);
		if (!strcmp(cmds[i][0], "summary")) {
			EXPECT_NE(NULL, strstr(out, "Damaged chunks skipped          : 1\n"));
			EXPECT_NE(NULL, strstr(out, "Truncated                       : no\n"));
		}
		if (!strcmp(cmds[i][0], "dump")) {
			EXPECT_NE(NULL, strstr(out, "# marker: " MARKER "\n"));
			EXPECT_NE(NULL, strstr(out, "# damaged: 1 chunk skipped ("));
		}
		free(out);
		free(err);
	}
	/* the exports say it too */
	{
		size_t len;
		char *j = (char *)file_slurp(json, &len);

		ASSERT_NE(NULL, j);
		snprintf(want, sizeof(want),
			 "\"damaged\":{\"stretches\":1,\"chunks\":1,\"bytes\":%llu,\"items\":%u,\"items_unknown\":0}",
			 (unsigned long long)(self->c.end[3] - self->c.start[3]),
			 self->c.items[3]);
		EXPECT_NE(NULL, strstr(j, want));
		free(j);
	}
	/* a header nothing can be read of: 1 */
	{
		const char *const a[] = { "summary", b, NULL };
		size_t x = 24;	/* chunk_max */

		ASSERT_EQ(0, file_flip_write(self->bad, self->buf, self->len,
					     &x, 1, 0x01));
		out = err = NULL;
		EXPECT_EQ(1, run_cli(self->dir, a, &out, &err));
		EXPECT_TRUE(err && strstr(err, "chunk_max"));
		free(out);
		free(err);
	}
}

/* A session's trace (host spans of two threads, 256 KiB chunks) */
static void *span_thread(void *arg)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < 12000; i++) {
		struct npuprof_span outer, inner;

		npuprof_span_begin(&outer, NPUPROF_SPAN_INFERENCE, NULL);
		npuprof_span_begin(&inner, NPUPROF_SPAN_QUANTIZE, &outer);
		npuprof_span_end(&inner);
		npuprof_span_end(&outer);
		if (i % 256 == 255)
			usleep(1000);
	}
	return NULL;
}

/* Chunk k of @path flipped in its payload, for each k: the others read */
static void check_each_chunk(struct __test_metadata *_metadata,
			     const char *path, const char *bad)
{
	struct file_chunks c;
	struct got full, g;
	uint8_t *buf;
	size_t len, k, at;

	buf = file_slurp(path, &len);
	ASSERT_NE(NULL, buf);
	file_chunks_of(buf, len, &c);
	read_trace(path, &full);
	ASSERT_EQ(0, full.ret);
	ASSERT_LE(3u, c.n);
	for (k = 0; k < c.n; k++) {
		at = c.start[k] + 32 + (c.end[k] - c.start[k] - 32) / 2;
		ASSERT_EQ(0, file_flip_write(bad, buf, len, &at, 1, 0x08));
		read_trace(bad, &g);
		ASSERT_EQ(0, g.open_ret);
		ASSERT_EQ(0, g.ret) TH_LOG("chunk %zu", k);
		EXPECT_TRUE(all_but(&g, &full, c.start[k], c.end[k]))
			TH_LOG("chunk %zu of %zu: %zu events of %zu", k, c.n,
			       g.n, full.n);
		EXPECT_EQ(1u, g.d.chunks);
		EXPECT_EQ(c.end[k] - c.start[k], g.d.bytes);
		/* its items: known from a sound header, or from one without
		 * its CRC that the next chunk confirms */
		if (k < c.n - 1) {
			EXPECT_EQ(c.items[k], g.d.items) TH_LOG("chunk %zu", k);
			EXPECT_EQ(0u, g.d.items_unknown);
		}
		got_free(&g);
	}
	got_free(&full);
	free(buf);
}

TEST_F(dmg, a_session_trace)
{
	static const char *const no_devices[] = { NULL };
	struct npuprof_session *s;
	struct npuprof_opts o;
	pthread_t th[2];
	int i;

	npuprof_opts_init(&o);
	o.output = self->path;
	o.devices = no_devices;
	o.span_buf_kb = 4096;
	ASSERT_EQ(0, npuprof_session_create(&o, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, span_thread, NULL));
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	check_each_chunk(_metadata, self->path, self->bad);
}

/* The demo's trace of the emulated device, when the build has one */
TEST_F(dmg, the_demo_trace)
{
	char path[600];
	const char *b = getenv("NPU_BUILD");
	char exe[512];
	ssize_t k;

	if (b) {
		snprintf(path, sizeof(path), "%s/demo/mobilenet.npuprof", b);
	} else {
		k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		ASSERT_LT(0, k);
		exe[k] = 0;
		*strrchr(exe, '/') = 0;
		*strrchr(exe, '/') = 0;
		snprintf(path, sizeof(path), "%s/demo/mobilenet.npuprof", exe);
	}
	if (access(path, R_OK))
		SKIP(return, "no %s (make demo writes it)", path);
	check_each_chunk(_metadata, path, self->bad);
}

TEST_HARNESS_MAIN
