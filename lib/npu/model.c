// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * model.c - load and validate model files (Documentation/npu/model.rst).
 *
 * Everything is checked here, before a model can reach a device: the file
 * structure, the checksum, the slot plan, the I/O descriptors and the whole
 * program against the slot plan: the device's checks of program.rst
 * (lib/progcheck, shared with libnpuref) and the model's own rules on top,
 * and the layer table (include/npu/npu_model_layers.h) when there is one.
 *
 * Lifetime: a model owns copies of its slot 0 image and its layer table;
 * nothing refers to the caller's file after loading. A loaded model is
 * read-only, so threads may share it without a lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npu_internal.h"
#include "progcheck.h"

_Static_assert(sizeof(struct npu_model_file_hdr) == 128, "hdr size");
_Static_assert(sizeof(struct npu_model_slot) == 16, "slot size");
_Static_assert(sizeof(struct npu_model_io) == 64, "io size");
_Static_assert(sizeof(struct npu_prog_op) == 64, "op size");
_Static_assert(sizeof(struct npu_prog_tensor) == 32, "tensor size");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the file format is little-endian; add byte swapping");

struct vctx {
	char *err;
	size_t errlen;
	const uint8_t *file;
	size_t size;
	const struct npu_model_file_hdr *hdr;
	const struct npu_model_slot *slots;
	const uint8_t *prog;
	struct npu_prog_hdr phdr;	/* the program header, a copy */
	const struct npu_prog_hdr *ph;
	const struct npu_prog_tensor *t;
	const struct npu_prog_op *ops;
	const uint8_t *cblob;
	const uint8_t *layers;		/* NULL without NPU_MODEL_F_LAYERS */
};

__attribute__((format(printf, 3, 4)))
static int fail(struct vctx *v, int ret, const char *fmt, ...)
{
	va_list ap;

	if (v->err && v->errlen) {
		va_start(ap, fmt);
		vsnprintf(v->err, v->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Is [off, off + len) inside [0, size)? */
static bool in_range(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

static struct vctx *hook_ctx(const struct progcheck *c)
{
	return c->arg;
}

/* a model's own rule for tensor i (valid for the device): constants */
static int model_tensor(const struct progcheck *c, uint32_t i)
{
	const struct npu_prog_tensor *t = &c->t[i];
	uint64_t bytes = 0;

	npu_prog_tensor_bytes(t, &bytes);
	if (t->buf == 0 && !in_range(t->offset, bytes,
				     hook_ctx(c)->hdr->const_size))
		return progcheck_fail(c, -EINVAL,
				      "tensor %u in slot 0 lies outside the constant blob",
				      i);
	return 0;
}

/*
 * A model's own rules for operator i, whose operand references are valid:
 * it writes an output or scratch slot, not over its inputs, and reads its
 * requantization table from the constants (checked before the device's
 * checks read the table's values from them).
 */
static int model_op(const struct progcheck *c, uint32_t i)
{
	const struct npu_prog_op *op = &c->ops[i];
	const struct npu_prog_tensor *y = &c->t[op->out];
	uint64_t yb = 0, xb = 0;
	unsigned int k = hook_ctx(c)->slots[y->buf].kind;

	if (k != NPU_MODEL_SLOT_OUTPUT && k != NPU_MODEL_SLOT_SCRATCH)
		return progcheck_fail(c, -EINVAL,
				      "op %u writes slot %u, which is not an output or scratch slot",
				      i, y->buf);
	npu_prog_tensor_bytes(y, &yb);
	for (k = 0; k < 3; k++) {
		const struct npu_prog_tensor *x;

		if (op->in[k] == NPU_PROG_NONE)
			continue;
		x = &c->t[op->in[k]];
		npu_prog_tensor_bytes(x, &xb);
		if (x->buf == y->buf && overlap(x->offset, xb, y->offset, yb))
			return progcheck_fail(c, -EINVAL,
					      "op %u output overlaps its input %u",
					      i, k);
	}
	if (progcheck_uses_rq(op->opcode) && op->rq != NPU_PROG_NONE &&
	    c->t[op->rq].buf != 0)
		return progcheck_fail(c, -EINVAL,
				      "op %u requantization table is not a constant",
				      i);
	return 0;
}

/*
 * The program: the device's checks (progcheck, program.rst) over the slot
 * plan, with slot 0's constants known, and the model's own rules on top.
 */
static int check_program(struct vctx *v)
{
	const struct npu_model_file_hdr *h = v->hdr;
	struct progcheck_slot slots[NPU_MODEL_MAX_SLOTS];
	struct npu_prog_hdr *ph = &v->phdr;
	struct progcheck c;
	uint64_t tb, ob;
	char msg[192];
	unsigned int i;
	int ret;

	if (progcheck_header(v->prog, h->prog_size, ph, msg, sizeof(msg)))
		return fail(v, -EINVAL, "program: %s", msg);
	v->ph = ph;
	if (!ph->n_tensors || !ph->n_ops)
		return fail(v, -EINVAL, "program: %u tensors / %u ops out of range",
			    ph->n_tensors, ph->n_ops);
	/* a model's tables follow the header and do not overlap */
	tb = (uint64_t)ph->n_tensors * sizeof(struct npu_prog_tensor);
	ob = (uint64_t)ph->n_ops * sizeof(struct npu_prog_op);
	if (ph->tensors_off < sizeof(*ph) || ph->ops_off < sizeof(*ph) ||
	    overlap(ph->tensors_off, tb, ph->ops_off, ob))
		return fail(v, -EINVAL,
			    "program: tensor/operator tables misplaced");
	v->t = (const struct npu_prog_tensor *)(v->prog + ph->tensors_off);
	v->ops = (const struct npu_prog_op *)(v->prog + ph->ops_off);
	for (i = 0; i < h->n_slots; i++) {
		slots[i].data = i == 0 ? v->cblob : NULL;
		slots[i].size = v->slots[i].size;
	}
	c = (struct progcheck){
		.hdr = ph, .t = v->t, .ops = v->ops,
		.slots = slots, .nslots = h->n_slots,
		.tensor_hook = model_tensor, .op_hook = model_op, .arg = v,
		.msg = msg, .msglen = sizeof(msg),
	};
	ret = progcheck_tables(&c);
	if (ret)
		return fail(v, -EINVAL, "program: %s", msg);
	return 0;
}

static int check_io(struct vctx *v, struct npu_model *m)
{
	const struct npu_model_file_hdr *h = v->hdr;
	const struct npu_model_io *io =
		(const struct npu_model_io *)(v->file + h->io_off);
	unsigned int i, d;

	for (i = 0; i < h->n_inputs + h->n_outputs; i++) {
		const struct npu_model_io *e = &io[i];
		bool input = i < h->n_inputs;
		const struct npu_prog_tensor *t;
		struct npu_tensor_desc *o = &m->io[i];
		uint32_t want = input ? NPU_MODEL_SLOT_INPUT : NPU_MODEL_SLOT_OUTPUT;
		uint64_t bytes = 0;

		if (!memchr(e->name, 0, sizeof(e->name)))
			return fail(v, -EINVAL, "io %u: name not terminated", i);
		if (e->rsvd0 || e->rsvd[0] || e->rsvd[1] || e->rsvd[2] || e->rsvd[3])
			return fail(v, -EINVAL, "io %u: reserved field set", i);
		if (e->tensor >= v->ph->n_tensors)
			return fail(v, -EINVAL, "io %u: tensor %u of %u", i,
				    e->tensor, v->ph->n_tensors);
		t = &v->t[e->tensor];
		if (e->dtype != NPU_DT_U8 || t->dtype != NPU_DT_U8)
			return fail(v, -EINVAL, "io %u: dtype must be u8", i);
		if (e->layout != t->layout || e->ndim != t->ndim ||
		    memcmp(e->dims, t->dims, sizeof(e->dims)) ||
		    e->zero_point != t->zero_point)
			return fail(v, -EINVAL,
				    "io %u: descriptor does not match program tensor %u",
				    i, e->tensor);
		if (!isfinite(e->scale) || !(e->scale > 0.0f))
			return fail(v, -EINVAL, "io %u: scale %g is not finite and > 0",
				    i, (double)e->scale);
		if (v->slots[t->buf].kind != want)
			return fail(v, -EINVAL,
				    "io %u: tensor lives in slot %u, not an %s slot",
				    i, t->buf, input ? "input" : "output");
		npu_prog_tensor_bytes(t, &bytes);
		memcpy(o->name, e->name, sizeof(o->name));
		o->ndim = e->ndim;
		o->count = 1;
		for (d = 0; d < 4; d++) {
			o->dims[d] = e->dims[d];
			o->count *= e->dims[d];
		}
		o->scale = e->scale;
		o->zero_point = e->zero_point;
		o->layout = e->layout;
		o->slot = t->buf;
		o->offset = t->offset;
		o->dev_size = (size_t)bytes;
		/* NPU_LAYOUT_NCHWC16 io is 4-D: progcheck_tensor_fields() */
	}
	return 0;
}

/*
 * The layer table: npu_layers_check() against the program's operator
 * count, and exactly the section's bytes (a writer pads with string bytes).
 */
static int check_layers(struct vctx *v)
{
	const struct npu_layers_hdr *lh;
	const char *why;
	long idx;

	if (!v->layers)
		return 0;
	why = npu_layers_check(v->layers, v->hdr->layers_size, v->ph->n_ops,
			       &idx);
	if (why && idx >= 0)
		return fail(v, -EINVAL, "layer table: layer %ld: %s", idx, why);
	if (why)
		return fail(v, -EINVAL, "layer table: %s", why);
	lh = (const struct npu_layers_hdr *)v->layers;
	if (npu_layers_size(lh->n_layers, lh->str_size) != v->hdr->layers_size)
		return fail(v, -EINVAL,
			    "layer table: %u bytes, its header describes %llu",
			    v->hdr->layers_size,
			    (unsigned long long)npu_layers_size(lh->n_layers,
								lh->str_size));
	return 0;
}

static int validate(struct vctx *v, struct npu_model *m)
{
	const struct npu_model_file_hdr *h;
	struct npu_model_file_hdr tmp;
	uint64_t sb, ib;
	uint32_t crc;
	unsigned int i;
	int ret;

	if (v->size < sizeof(*h))
		return fail(v, -EBADMSG, "truncated: %zu bytes, header needs %zu",
			    v->size, sizeof(*h));
	h = (const struct npu_model_file_hdr *)v->file;
	v->hdr = h;
	if (h->magic != NPU_MODEL_MAGIC)
		return fail(v, -ENOEXEC, "bad magic 0x%08x: not an NPU model",
			    h->magic);
	if (h->version != NPU_MODEL_VERSION)
		return fail(v, -EPROTONOSUPPORT,
			    "unsupported model version %u (this library reads %u)",
			    h->version, NPU_MODEL_VERSION);
	if (h->hdr_size != sizeof(*h))
		return fail(v, -EINVAL, "bad header size %u", h->hdr_size);
	if (h->file_size > v->size)
		return fail(v, -EBADMSG, "truncated: %zu bytes, header says %llu",
			    v->size, (unsigned long long)h->file_size);
	if (h->file_size != v->size)
		return fail(v, -EINVAL,
			    "%zu bytes, header says %llu: trailing data",
			    v->size, (unsigned long long)h->file_size);
	tmp = *h;
	tmp.crc32 = 0;
	crc = npu_crc32(0, &tmp, sizeof(tmp));
	crc = npu_crc32(crc, v->file + sizeof(tmp), v->size - sizeof(tmp));
	if (crc != h->crc32)
		return fail(v, -EBADMSG, "checksum mismatch: file 0x%08x, computed 0x%08x",
			    h->crc32, crc);
	if ((h->flags & ~NPU_MODEL_F_ALL) || h->rsvd[0] || h->rsvd[1])
		return fail(v, -EINVAL, "reserved header field set");
	if (!(h->flags & NPU_MODEL_F_LAYERS) && (h->layers_off || h->layers_size))
		return fail(v, -EINVAL,
			    "layer table offset or size set without the layers flag");
	if ((h->flags & NPU_MODEL_F_LAYERS) &&
	    h->layers_size < sizeof(struct npu_layers_hdr))
		return fail(v, -EINVAL,
			    "layer table: %u bytes, shorter than its header",
			    h->layers_size);
	if (!memchr(h->name, 0, sizeof(h->name)))
		return fail(v, -EINVAL, "model name not terminated");
	for (i = 0; h->name[i]; i++)
		if (h->name[i] < 0x20 || h->name[i] > 0x7e)
			return fail(v, -EINVAL, "model name not printable");
	if (h->n_slots < 2 || h->n_slots > NPU_MODEL_MAX_SLOTS)
		return fail(v, -EINVAL, "%u slots out of range [2, %u]",
			    h->n_slots, NPU_MODEL_MAX_SLOTS);
	if (!h->n_inputs || !h->n_outputs ||
	    (uint64_t)h->n_inputs + h->n_outputs > NPU_MODEL_MAX_IO)
		return fail(v, -EINVAL, "%u inputs + %u outputs out of range",
			    h->n_inputs, h->n_outputs);
	if (h->prog_size > NPU_MODEL_MAX_SLOT || h->const_size > NPU_MODEL_MAX_SLOT)
		return fail(v, -EINVAL, "program or constants size out of range");

	/* sections: aligned, inside the file, disjoint, clear of the header */
	sb = (uint64_t)h->n_slots * sizeof(struct npu_model_slot);
	ib = ((uint64_t)h->n_inputs + h->n_outputs) * sizeof(struct npu_model_io);
	{
		const struct { const char *name; uint64_t off, len, align; } s[] = {
			{ "header", 0, sizeof(*h), 8 },
			{ "slot table", h->slots_off, sb, 8 },
			{ "io table", h->io_off, ib, 8 },
			{ "program", h->prog_off, h->prog_size, 8 },
			{ "constants", h->const_off, h->const_size, 64 },
			{ "layer table", h->layers_off, h->layers_size, 8 },
		};
		unsigned int a, b, n = 5;

		if (h->flags & NPU_MODEL_F_LAYERS)
			n = 6;
		for (a = 0; a < n; a++) {
			if (s[a].off % s[a].align)
				return fail(v, -EINVAL, "%s offset %llu misaligned",
					    s[a].name, (unsigned long long)s[a].off);
			if (!in_range(s[a].off, s[a].len, v->size))
				return fail(v, -EINVAL,
					    "%s [%llu, +%llu) lies outside the file",
					    s[a].name, (unsigned long long)s[a].off,
					    (unsigned long long)s[a].len);
			for (b = 0; b < a; b++)
				if (overlap(s[a].off, s[a].len, s[b].off, s[b].len))
					return fail(v, -EINVAL, "%s overlaps %s",
						    s[a].name, s[b].name);
		}
	}

	v->slots = (const struct npu_model_slot *)(v->file + h->slots_off);
	v->prog = v->file + h->prog_off;
	v->cblob = v->file + h->const_off;
	if (h->flags & NPU_MODEL_F_LAYERS)
		v->layers = v->file + h->layers_off;
	for (i = 0; i < h->n_slots; i++) {
		const struct npu_model_slot *s = &v->slots[i];
		bool want_const = i == 0;

		if (s->flags)
			return fail(v, -EINVAL, "slot %u: flags set", i);
		if ((s->kind == NPU_MODEL_SLOT_CONST) != want_const ||
		    s->kind < NPU_MODEL_SLOT_CONST || s->kind > NPU_MODEL_SLOT_SCRATCH)
			return fail(v, -EINVAL, "slot %u: bad kind %u", i, s->kind);
		if (!s->size || s->size > NPU_MODEL_MAX_SLOT)
			return fail(v, -EINVAL, "slot %u: size %llu out of range",
				    i, (unsigned long long)s->size);
	}
	if (h->prog_slot_offset % 64 || h->prog_slot_offset < h->const_size ||
	    !in_range(h->prog_slot_offset, h->prog_size, v->slots[0].size))
		return fail(v, -EINVAL,
			    "program placement %u in slot 0 is misaligned, overlaps the constants or exceeds the slot",
			    h->prog_slot_offset);
	if ((ret = check_program(v)))
		return ret;
	if ((ret = check_io(v, m)))
		return ret;
	if ((ret = check_layers(v)))
		return ret;

	memcpy(m->name, h->name, sizeof(m->name));
	m->n_slots = h->n_slots;
	for (i = 0; i < h->n_slots; i++) {
		m->slot_kind[i] = v->slots[i].kind;
		m->slot_size[i] = v->slots[i].size;
	}
	m->n_inputs = h->n_inputs;
	m->n_outputs = h->n_outputs;
	m->prog_offset = h->prog_slot_offset;
	m->prog_size = (uint32_t)h->prog_size;
	return 0;
}

/*
 * Describe the model to the trace files (npuprof_model_register()): its
 * program, slot plan and layer table, once per model. A model that cannot be
 * registered runs as well; its jobs' spans then carry no model.
 */
static void model_register(struct npu_model *m)
{
	uint64_t sizes[NPU_MODEL_MAX_SLOTS];
	struct npuprof_model_desc d = {
		.sz = sizeof(d),
		.name = m->name,
		.program = m->image + m->prog_offset,
		.program_size = m->prog_size,
		.n_slots = m->n_slots,
		.slot_sizes = sizes,
		.slot_kinds = m->slot_kind,
		.layers = m->layers,
		.layers_size = m->layers_size,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < m->n_slots; i++)
		sizes[i] = m->slot_size[i];
	ret = npuprof_model_register(&d, &m->prof_id);
	if (ret == -E2BIG && d.layers) {
		/* too large for a trace item with its layers: without them */
		d.layers = NULL;
		d.layers_size = 0;
		ret = npuprof_model_register(&d, &m->prof_id);
	}
	if (ret)
		m->prof_id = 0;
}

int npu_model_load_mem(const void *data, size_t size, struct npu_model **model,
		       char *err, size_t errlen)
{
	struct vctx v = { .err = err, .errlen = errlen, .file = data, .size = size };
	struct npu_model *m;
	int ret;

	if (err && errlen)
		err[0] = 0;
	if (!data || !model)
		return fail(&v, -EINVAL, "no data");
	m = calloc(1, sizeof(*m));
	if (!m)
		return fail(&v, -ENOMEM, "out of memory");
	/* validate an aligned private copy: no TOCTOU, aligned struct access */
	if (size) {
		void *copy = malloc(size);

		if (!copy) {
			free(m);
			return fail(&v, -ENOMEM, "out of memory");
		}
		memcpy(copy, data, size);
		v.file = copy;
	}
	ret = validate(&v, m);
	if (!ret) {
		m->image_size = m->prog_offset + m->prog_size;
		m->image = calloc(1, m->image_size);
		if (!m->image) {
			ret = fail(&v, -ENOMEM, "out of memory");
		} else {
			memcpy(m->image, v.file + v.hdr->const_off,
			       v.hdr->const_size);
			memcpy(m->image + m->prog_offset,
			       v.file + v.hdr->prog_off, m->prog_size);
		}
	}
	if (!ret && v.layers) {
		m->layers_size = v.hdr->layers_size;
		m->layers = malloc(m->layers_size);
		if (!m->layers)
			ret = fail(&v, -ENOMEM, "out of memory");
		else
			memcpy(m->layers, v.layers, m->layers_size);
	}
	if (size)
		free((void *)v.file);
	if (ret) {
		free(m->image);
		free(m);
		return ret;
	}
	model_register(m);
	*model = m;
	return 0;
}

int npu_model_load(const char *path, struct npu_model **model, char *err,
		   size_t errlen)
{
	char msg[256];
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd, ret;

	if (err && errlen)
		err[0] = 0;
	if (!path || !model) {
		if (err && errlen)
			snprintf(err, errlen, "no file name");
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > NPU_MODEL_MAX_FILE) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: %lld bytes is larger than %llu",
				 path, (long long)st.st_size,
				 (unsigned long long)NPU_MODEL_MAX_FILE);
		return -EFBIG;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* a file that shrinks meanwhile is truncated: its own message */
	ret = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -errno;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (ret) {
		free(buf);
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = npu_model_load_mem(buf, got, model, msg, sizeof(msg));
	free(buf);
	/* every message names the file */
	if (ret && err && errlen)
		snprintf(err, errlen, "%s: %s", path, msg);
	return ret;
}

void npu_model_free(struct npu_model *model)
{
	if (!model)
		return;
	if (model->prof_id)
		npuprof_model_unregister(model->prof_id);
	free(model->image);
	free(model->layers);
	free(model);
}

const char *npu_model_name(const struct npu_model *model)
{
	return model->name;
}

unsigned int npu_model_num_inputs(const struct npu_model *model)
{
	return model->n_inputs;
}

unsigned int npu_model_num_outputs(const struct npu_model *model)
{
	return model->n_outputs;
}

const struct npu_tensor_desc *npu_model_input(const struct npu_model *model,
					      unsigned int idx)
{
	return idx < model->n_inputs ? &model->io[idx] : NULL;
}

const struct npu_tensor_desc *npu_model_output(const struct npu_model *model,
					       unsigned int idx)
{
	return idx < model->n_outputs ? &model->io[model->n_inputs + idx] : NULL;
}

unsigned int npu_model_num_slots(const struct npu_model *model)
{
	return model->n_slots;
}

int npu_model_slot(const struct npu_model *model, unsigned int idx,
		   uint32_t *kind, size_t *size)
{
	if (idx >= model->n_slots)
		return -EINVAL;
	if (kind)
		*kind = model->slot_kind[idx];
	if (size)
		*size = model->slot_size[idx];
	return 0;
}

const void *npu_model_const_image(const struct npu_model *model, size_t *size,
				  uint32_t *prog_offset, uint32_t *prog_size)
{
	if (size)
		*size = model->image_size;
	if (prog_offset)
		*prog_offset = model->prog_offset;
	if (prog_size)
		*prog_size = model->prog_size;
	return model->image;
}

const void *npu_model_program(const struct npu_model *model, size_t *size)
{
	if (size)
		*size = model->prog_size;
	return model->image + model->prog_offset;
}

int npu_model_layers(const struct npu_model *model, const void **table,
		     size_t *size)
{
	if (!model->layers)
		return -ENOENT;
	if (table)
		*table = model->layers;
	if (size)
		*size = model->layers_size;
	return 0;
}

int npu_model_find_layer(const struct npu_model *model, const char *name,
			 unsigned int *first_op, unsigned int *n_ops)
{
	const struct npu_layers_hdr *h = model->layers;
	uint32_t i, n;

	if (!name)
		return -EINVAL;
	if (!h)
		return -ENOENT;
	for (i = 0; i < h->n_layers; i++)
		if (!strcmp(npu_layers_str(h, npu_layers_desc(h, i)->name), name))
			break;
	if (i == h->n_layers)
		return -ENOENT;
	for (n = 1; i + n < h->n_layers; n++)
		if (strcmp(npu_layers_str(h, npu_layers_desc(h, i + n)->name),
			   name))
			break;
	if (first_op)
		*first_op = i;
	if (n_ops)
		*n_ops = n;
	return 0;
}
