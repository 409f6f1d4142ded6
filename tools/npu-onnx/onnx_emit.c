// SPDX-License-Identifier: GPL-2.0-only
/*
 * onnx_emit.c - the device side of the importer: program tensors and
 * operators as the lowering creates them, the constant blob, then the
 * model file: the slot plan (one slot per model input and output, the
 * scratch slot packed by liveness), the I/O descriptors, the layer table
 * and the checksum. The file is checked with libnpu's loader before it is
 * returned.
 *
 * Scratch plan: every scratch tensor lives from the operator that writes it
 * to the last operator that reads it. Tensors are placed in operator order,
 * each at the lowest 64-byte aligned offset that overlaps no tensor still
 * live when it is written (an operator's output never overlaps its
 * inputs, which the loader requires). Branches and long skips are handled
 * like any other lifetime, which two alternating regions cannot do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnpu.h"
#include "npu_progbuild.h"
#include "onnx_int.h"

#define ALIGN(v, a)	(((v) + (a) - 1) / (a) * (a))

int ox_new_tensor(struct ox_ctx *x, uint8_t dtype, uint8_t layout, int ndim,
		  const uint32_t *dims, int32_t zp, int kind)
{
	uint64_t bytes;
	uint32_t d4[4];
	int i;

	if (x->nt >= NPU_PROG_MAX_TENSORS) {
		ox_fail(x, -E2BIG, "more than %d device tensors",
			NPU_PROG_MAX_TENSORS);
		return -1;
	}
	for (i = 0; i < 4; i++)
		d4[i] = i < ndim ? dims[i] : 1;
	progbuild_fill_tensor(&x->t[x->nt], dtype, layout, 0, 0,
			      (uint8_t)(ndim ? ndim : 1), d4, zp);
	x->ti[x->nt] = (struct ox_tinfo){ .kind = kind, .io = -1, .def = -1,
					  .last = -1 };
	if (!npu_prog_tensor_bytes(&x->t[x->nt], &bytes) ||
	    bytes > NPU_MODEL_MAX_SLOT) {
		ox_fail(x, -E2BIG, "a tensor of more than 1 GiB");
		return -1;
	}
	return (int)x->nt++;
}

/* a constant tensor in slot 0; its bytes are copied into the blob */
int ox_const_tensor(struct ox_ctx *x, uint8_t dtype, int ndim,
		    const uint32_t *dims, const void *data, size_t bytes)
{
	size_t off = ALIGN(x->csize, 64);
	int t;

	if (off + bytes > NPU_MODEL_MAX_SLOT / 2) {
		ox_fail(x, -E2BIG, "more than 512 MiB of constants");
		return -1;
	}
	if (off + bytes > x->ccap) {
		size_t cap = x->ccap ? x->ccap : 1 << 16;
		uint8_t *p;

		while (cap < off + bytes)
			cap *= 2;
		p = realloc(x->cb, cap);
		if (!p) {
			ox_fail(x, -ENOMEM, "out of memory");
			return -1;
		}
		memset(p + x->ccap, 0, cap - x->ccap);
		x->cb = p;
		x->ccap = cap;
	}
	t = ox_new_tensor(x, dtype, NPU_LAYOUT_PLAIN, ndim, dims, 0,
			  NPU_MODEL_SLOT_CONST);
	if (t < 0)
		return -1;
	memcpy(x->cb + off, data, bytes);
	x->csize = off + bytes;
	x->t[t].offset = (uint32_t)off;
	return t;
}

/* a new operator writing tensor @out, named after the current node */
struct npu_prog_op *ox_new_op(struct ox_ctx *x, uint16_t opcode, int out)
{
	Onnx__NodeProto *n = ox_node(x, x->cur);
	struct npu_prog_op *op;
	struct ox_layer *l;

	if (x->nop >= NPU_PROG_MAX_OPS) {
		ox_fail(x, -E2BIG, "more than %d device operators",
			NPU_PROG_MAX_OPS);
		return NULL;
	}
	op = &x->op[x->nop];
	progbuild_fill_op(op, opcode, NPU_PROG_NONE, NPU_PROG_NONE,
			  NPU_PROG_NONE, (uint16_t)out, NPU_PROG_NONE, 0, 255);
	l = &x->ly[x->nop];
	memset(l, 0, sizeof(*l));
	l->name = x->nname[x->cur];
	snprintf(l->type, sizeof(l->type), "%s", n->op_type);
	x->ti[out].def = (int)x->nop;
	if (x->ti[out].last < (int)x->nop)
		x->ti[out].last = (int)x->nop;
	x->nop++;
	return op;
}

/* the operator being built reads @tensor */
void ox_use(struct ox_ctx *x, int tensor)
{
	if (tensor >= 0 && x->nop)
		x->ti[tensor].last = (int)x->nop - 1;
}

struct blk {
	uint64_t off, end;
	int last;
};

static int cmp_blk(const void *a, const void *b)
{
	const struct blk *p = a, *q = b;

	return p->off < q->off ? -1 : p->off > q->off;
}

/* place the scratch tensors; returns the scratch slot's bytes */
static uint64_t plan_scratch(struct ox_ctx *x, uint8_t slot)
{
	struct blk live[NPU_PROG_MAX_TENSORS];
	unsigned int nlive = 0, i, j, k;
	uint64_t top = 0;
	int t, op;

	for (op = 0; op < (int)x->nop; op++) {
		t = x->op[op].out;
		if (x->ti[t].kind != NPU_MODEL_SLOT_SCRATCH)
			continue;
		/* drop what died before this operator */
		for (i = 0, j = 0; i < nlive; i++)
			if (live[i].last >= op)
				live[j++] = live[i];
		nlive = j;
		qsort(live, nlive, sizeof(live[0]), cmp_blk);
		{
			uint64_t size = ALIGN(progbuild_bytes(&x->t[t]), 64);
			uint64_t at = 0;

			for (k = 0; k < nlive; k++) {
				if (at + size <= live[k].off)
					break;
				if (live[k].end > at)
					at = live[k].end;
			}
			x->t[t].buf = slot;
			x->t[t].offset = (uint32_t)at;
			live[nlive++] = (struct blk){ at, at + size,
						      x->ti[t].last };
			if (at + size > top)
				top = at + size;
		}
	}
	return top;
}

/* "name" cut to 15 bytes and made unique among @io[0..i-1] */
static void io_name(char dst[16], const char *name, const struct npu_model_io *io,
		    unsigned int n)
{
	unsigned int i, k, tries;
	size_t len;

	for (len = 0; name[len] && len < 15; len++)
		dst[len] = name[len] >= 0x20 && name[len] < 0x7f ? name[len] : '_';
	dst[len] = 0;
	if (!len)
		snprintf(dst, 16, "io%u", n);
	for (tries = 1; tries < 1000; tries++) {
		for (i = 0; i < n && strcmp(io[i].name, dst); i++)
			;
		if (i == n)
			return;
		k = (unsigned int)snprintf(NULL, 0, "~%u", tries);
		len = strlen(dst);
		if (len + k > 15)
			len = 15 - k;
		snprintf(dst + len, 16 - len, "~%u", tries);
	}
}

static void fill_io(struct ox_ctx *x, struct npu_model_io *io,
		    const struct ox_io *src, const struct npu_model_io *prev,
		    unsigned int nprev)
{
	const struct npu_prog_tensor *t = &x->t[src->tensor];

	memset(io, 0, sizeof(*io));
	io_name(io->name, src->name, prev, nprev);
	io->tensor = (uint32_t)src->tensor;
	io->dtype = t->dtype;
	io->layout = t->layout;
	io->ndim = t->ndim;
	memcpy(io->dims, t->dims, sizeof(io->dims));
	io->scale = src->scale;
	io->zero_point = t->zero_point;
}

/* macs and weight bytes of operator @i (program.rst, "Cost model") */
static void op_cost(const struct ox_ctx *x, unsigned int i,
		    struct npu_layer_desc *d)
{
	const struct npu_prog_op *op = &x->op[i];
	const uint32_t *o = x->t[op->out].dims;
	uint64_t n = (uint64_t)o[0] * o[1] * o[2] * o[3];
	const uint32_t *w = op->in[1] != NPU_PROG_NONE ? x->t[op->in[1]].dims : NULL;
	bool weighted = op->opcode == NPU_OP_CONV2D ||
			op->opcode == NPU_OP_DWCONV2D ||
			op->opcode == NPU_OP_FC || op->opcode == NPU_OP_MATMUL;

	d->macs = 0;
	d->weight_bytes = 0;
	switch (op->opcode) {
	case NPU_OP_CONV2D:
		d->macs = n * w[1] * w[2] * w[3];
		break;
	case NPU_OP_DWCONV2D:
		d->macs = n * w[1] * w[2];
		break;
	case NPU_OP_FC:
	case NPU_OP_MATMUL:
		d->macs = n * x->t[op->in[0]].dims[1];
		break;
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		d->macs = n * op->u.conv.kh * op->u.conv.kw;
		break;
	case NPU_OP_ADD:
	case NPU_OP_CLIP:
		d->macs = n;
		break;
	default:
		return;
	}
	if (!weighted || !w)
		return;
	d->weight_bytes = progbuild_bytes(&x->t[op->in[1]]);
	if (op->in[2] != NPU_PROG_NONE)
		d->weight_bytes += progbuild_bytes(&x->t[op->in[2]]);
}

/* the layer table: header, descriptors, strings */
static int build_layers(struct ox_ctx *x, uint8_t **tab, size_t *size)
{
	size_t str = 1, pos, n, i;
	struct npu_layers_hdr h = { 0 };
	struct npu_layer_desc *d;
	uint8_t *p;

	for (i = 0; i < x->nop; i++)
		str += strnlen(x->ly[i].name, OX_NAME_MAX) + 1 +
		       strlen(x->ly[i].type) + 1;
	if (str > NPU_LAYERS_MAX_STR)
		return ox_fail(x, -E2BIG, "layer names exceed %u bytes",
			       NPU_LAYERS_MAX_STR);
	*size = npu_layers_size(x->nop, (uint32_t)str);
	p = calloc(1, *size);
	if (!p)
		return ox_fail(x, -ENOMEM, "out of memory");
	h.magic = NPU_LAYERS_MAGIC;
	h.version = NPU_LAYERS_VERSION;
	h.hdr_size = sizeof(h);
	h.n_layers = x->nop;
	h.str_size = (uint32_t)str;
	memcpy(p, &h, sizeof(h));
	d = (struct npu_layer_desc *)(p + sizeof(h));
	pos = 1;
	for (i = 0; i < x->nop; i++) {
		char *s = (char *)(d + x->nop);

		d[i] = x->ly[i].d;
		op_cost(x, (unsigned int)i, &d[i]);
		d[i].name = (uint32_t)pos;
		n = strnlen(x->ly[i].name, OX_NAME_MAX);
		memcpy(s + pos, x->ly[i].name, n);
		pos += n + 1;
		d[i].op_type = (uint32_t)pos;
		n = strlen(x->ly[i].type);
		memcpy(s + pos, x->ly[i].type, n);
		pos += n + 1;
		/* an empty name would fail the check: names are never empty */
		if (!x->ly[i].name[0])
			s[d[i].name] = '?';
	}
	*tab = p;
	return 0;
}

static void sanitize_name(char *dst, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i < NPU_MODEL_NAME_LEN - 1; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '_';
	dst[i] = 0;
}

int ox_emit(struct ox_ctx *x, const char *name, uint8_t **filep,
	    size_t *sizep)
{
	struct npu_model_slot slots[NPU_MODEL_MAX_SLOTS];
	struct npu_model_io io[NPU_MODEL_MAX_IO];
	struct npu_model_file_hdr h;
	unsigned int nslots, i, nio = 0;
	uint64_t scratch, prog_size, layers_off;
	size_t layers_size = 0;
	uint8_t *layers = NULL, *f;
	struct npu_model *m;
	char msg[256];
	int ret;

	if (x->nin + x->nout > NPU_MODEL_MAX_IO)
		return ox_fail(x, -E2BIG, "%u inputs and %u outputs (at most %d in all)",
			       x->nin, x->nout, NPU_MODEL_MAX_IO);
	memset(slots, 0, sizeof(slots));
	slots[0].kind = NPU_MODEL_SLOT_CONST;
	nslots = 1;
	for (i = 0; i < x->nin; i++) {
		struct npu_prog_tensor *t = &x->t[x->in[i].tensor];

		t->buf = (uint8_t)nslots;
		t->offset = 0;
		slots[nslots].kind = NPU_MODEL_SLOT_INPUT;
		slots[nslots++].size = ALIGN(progbuild_bytes(t), 64);
	}
	for (i = 0; i < x->nout; i++) {
		struct npu_prog_tensor *t = &x->t[x->out[i].tensor];

		t->buf = (uint8_t)nslots;
		t->offset = 0;
		slots[nslots].kind = NPU_MODEL_SLOT_OUTPUT;
		slots[nslots++].size = ALIGN(progbuild_bytes(t), 64);
	}
	scratch = plan_scratch(x, (uint8_t)nslots);
	if (scratch) {
		if (scratch > NPU_MODEL_MAX_SLOT)
			return ox_fail(x, -E2BIG,
				       "the activations need %llu bytes of scratch (at most 1 GiB)",
				       (unsigned long long)scratch);
		slots[nslots].kind = NPU_MODEL_SLOT_SCRATCH;
		slots[nslots++].size = scratch;
	}
	for (i = 0; i < x->nin; i++) {
		fill_io(x, &io[nio], &x->in[i], io, nio);
		nio++;
	}
	for (i = 0; i < x->nout; i++) {
		fill_io(x, &io[nio], &x->out[i], io, nio);
		nio++;
	}
	if (build_layers(x, &layers, &layers_size))
		return x->err;

	prog_size = progbuild_size_for(x->nt, x->nop);
	memset(&h, 0, sizeof(h));
	h.magic = NPU_MODEL_MAGIC;
	h.version = NPU_MODEL_VERSION;
	h.hdr_size = sizeof(h);
	sanitize_name(h.name, name);
	h.n_slots = nslots;
	h.slots_off = sizeof(h);
	h.n_inputs = x->nin;
	h.n_outputs = x->nout;
	h.io_off = h.slots_off + nslots * sizeof(slots[0]);
	h.prog_off = ALIGN(h.io_off + nio * sizeof(io[0]), 8);
	h.prog_size = prog_size;
	h.const_off = ALIGN(h.prog_off + prog_size, 64);
	h.const_size = x->csize;
	h.prog_slot_offset = (uint32_t)ALIGN(x->csize, 64);
	layers_off = ALIGN(h.const_off + x->csize, 8);
	h.file_size = layers_off + layers_size;
	h.flags = NPU_MODEL_F_LAYERS;
	h.layers_off = (uint32_t)layers_off;
	h.layers_size = (uint32_t)layers_size;
	slots[0].size = ALIGN(h.prog_slot_offset + prog_size, 64);
	if (h.file_size > NPU_MODEL_MAX_FILE || layers_off > UINT32_MAX) {
		free(layers);
		return ox_fail(x, -E2BIG, "the model file would exceed 1 GiB");
	}
	f = calloc(1, h.file_size);
	if (!f) {
		free(layers);
		return ox_fail(x, -ENOMEM, "out of memory");
	}
	memcpy(f + h.slots_off, slots, nslots * sizeof(slots[0]));
	memcpy(f + h.io_off, io, nio * sizeof(io[0]));
	progbuild_write(f + h.prog_off, x->t, x->nt, x->op, x->nop);
	if (x->csize)
		memcpy(f + h.const_off, x->cb, x->csize);
	memcpy(f + layers_off, layers, layers_size);
	free(layers);
	memcpy(f, &h, sizeof(h));
	h.crc32 = npu_crc32(0, f, h.file_size);
	memcpy(f, &h, sizeof(h));

	/* what we write must load: the runtime's validation, in full */
	ret = npu_model_load_mem(f, h.file_size, &m, msg, sizeof(msg));
	if (ret) {
		free(f);
		return ox_fail(x, -EINVAL, "internal error, the model does not load: %s",
			       msg);
	}
	npu_model_free(m);
	*filep = f;
	*sizep = h.file_size;
	return 0;
}
