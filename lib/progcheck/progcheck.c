// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * progcheck.c - the checks of Documentation/npu/program.rst, "Validation
 * order", shared by libnpu and libnpuref (see progcheck.h).
 *
 * Written from the document. The status of a program with several faults is
 * decided by the order of the checks, which is the document's: header,
 * every tensor (fields, placement, alignment), every operator (opcode,
 * reserved fields and operand references, shapes and table lengths,
 * activation range and table values). Within one step the order is free, as
 * every failure of a step has the same status and op_index. All sizes are
 * computed in 64 bits without overflow. Stateless, no allocation.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "progcheck.h"

#define NONE	NPU_PROG_NONE

/* operand usage of an operator (program.rst, "Operands") */
enum use { U_NO, U_REQ, U_OPT, U_IGN };

static const struct {
	enum use in[3];
	enum use rq;
	bool act;		/* uses act_min/act_max */
} specs[NPU_OP_MAX + 1] = {
	[NPU_OP_CONV2D]    = { { U_REQ, U_REQ, U_OPT }, U_REQ, true },
	[NPU_OP_DWCONV2D]  = { { U_REQ, U_REQ, U_OPT }, U_REQ, true },
	[NPU_OP_PAD]       = { { U_REQ, U_NO, U_NO }, U_IGN, false },
	[NPU_OP_AVGPOOL]   = { { U_REQ, U_NO, U_NO }, U_OPT, true },
	[NPU_OP_MAXPOOL]   = { { U_REQ, U_NO, U_NO }, U_IGN, true },
	[NPU_OP_FC]        = { { U_REQ, U_REQ, U_OPT }, U_REQ, true },
	[NPU_OP_MATMUL]    = { { U_REQ, U_REQ, U_OPT }, U_REQ, true },
	[NPU_OP_ADD]       = { { U_REQ, U_REQ, U_NO }, U_REQ, true },
	[NPU_OP_CLIP]      = { { U_REQ, U_NO, U_NO }, U_IGN, true },
	[NPU_OP_RESHAPE]   = { { U_REQ, U_NO, U_NO }, U_IGN, false },
	[NPU_OP_TRANSPOSE] = { { U_REQ, U_NO, U_NO }, U_IGN, false },
	[NPU_OP_SLICE]     = { { U_REQ, U_NO, U_NO }, U_IGN, false },
	[NPU_OP_CONCAT]    = { { U_REQ, U_REQ, U_OPT }, U_IGN, false },
};

bool progcheck_uses_rq(unsigned int opcode)
{
	return opcode <= NPU_OP_MAX && specs[opcode].rq != U_IGN;
}

static const char *const in_names[3] = { "an input", "weights", "a bias" };

static int vfail(char *msg, size_t len, int ret, const char *fmt, va_list ap)
{
	if (msg && len)
		vsnprintf(msg, len, fmt, ap);
	return ret;
}

__attribute__((format(printf, 4, 5)))
static int fail(char *msg, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = vfail(msg, len, ret, fmt, ap);
	va_end(ap);
	return ret;
}

int progcheck_fail(const struct progcheck *c, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = vfail(c->msg, c->msglen, ret, fmt, ap);
	va_end(ap);
	return ret;
}

#define FAIL(c, st, ...)	progcheck_fail(c, st, __VA_ARGS__)
#define SHAPE(cond, ...) do {						\
	if (!(cond))							\
		return FAIL(c, NPU_PROG_BAD_SHAPE, __VA_ARGS__);	\
} while (0)

static const char *op_name(unsigned int opcode)
{
	const char *n = npu_prog_op_name(opcode);

	return n ? n : "?";
}

/* ---- 2: header ---- */

int progcheck_header(const void *prog, size_t prog_size,
		     struct npu_prog_hdr *hdr, char *msg, size_t msglen)
{
	const struct npu_prog_hdr *h = hdr;

	if (prog_size < sizeof(*h))
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "%zu bytes is too small for a header", prog_size);
	memcpy(hdr, prog, sizeof(*h));
	if (h->magic != NPU_PROG_MAGIC)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "bad magic 0x%08x", h->magic);
	if (h->version != NPU_PROG_VERSION)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "unsupported version %u", h->version);
	if (h->hdr_size != sizeof(*h) || h->rsvd)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "bad header size or reserved field");
	/* the header is part of the program: hdr_size <= size <= prog_size */
	if (h->size < h->hdr_size || h->size > prog_size)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "size %u outside [%u, %zu]", h->size, h->hdr_size,
			    prog_size);
	if (h->n_tensors > NPU_PROG_MAX_TENSORS || h->n_ops > NPU_PROG_MAX_OPS)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "%u tensors / %u ops out of range", h->n_tensors,
			    h->n_ops);
	if (h->tensors_off % 8 || h->ops_off % 8 ||
	    (uint64_t)h->tensors_off +
	    (uint64_t)h->n_tensors * sizeof(struct npu_prog_tensor) > h->size ||
	    (uint64_t)h->ops_off +
	    (uint64_t)h->n_ops * sizeof(struct npu_prog_op) > h->size)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "tensor/operator tables misplaced");
	return NPU_PROG_OK;
}

/* ---- 3: tensors ---- */

int progcheck_tensor_fields(const struct npu_prog_tensor *t, uint32_t i,
			    char *msg, size_t msglen)
{
	unsigned int es = npu_prog_dtype_size(t->dtype), d;
	int32_t lo = 0, hi = 0;

	if (!es)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "tensor %u has bad dtype %u", i, t->dtype);
	if (t->ndim < 1 || t->ndim > 4)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "tensor %u has bad ndim %u", i, t->ndim);
	for (d = 0; d < 4; d++) {
		if (d < t->ndim && !t->dims[d])
			return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
				    "tensor %u dim %u is 0", i, d);
		if (d >= t->ndim && t->dims[d] != 1)
			return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
				    "tensor %u unused dim %u is not 1", i, d);
	}
	if (t->layout != NPU_LAYOUT_PLAIN && t->layout != NPU_LAYOUT_NCHWC16)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "tensor %u has bad layout %u", i, t->layout);
	if (t->layout == NPU_LAYOUT_NCHWC16 && (t->ndim != 4 || es != 1))
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "NCHWC16 tensor %u must be 4-D, 1 byte wide", i);
	if (t->dtype == NPU_DT_U8)
		hi = 255;
	if (t->dtype == NPU_DT_I8) {
		lo = -128;
		hi = 127;
	}
	if (t->zero_point < lo || t->zero_point > hi)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "tensor %u zero point %d out of range", i,
			    t->zero_point);
	if (t->rsvd)
		return fail(msg, msglen, NPU_PROG_BAD_PROGRAM,
			    "tensor %u reserved field set", i);
	return NPU_PROG_OK;
}

static int check_tensor(const struct progcheck *c, uint32_t i)
{
	const struct npu_prog_tensor *t = &c->t[i];
	uint64_t bytes = 0, size;
	int st;

	st = progcheck_tensor_fields(t, i, c->msg, c->msglen);
	if (st)
		return st;
	if (t->buf >= c->nslots)
		return FAIL(c, NPU_PROG_BAD_ADDRESS,
			    "tensor %u refers to slot %u but there are %u slots",
			    i, t->buf, c->nslots);
	size = c->slots[t->buf].size;
	/* a size beyond 64 bits is beyond any slot */
	if (!npu_prog_tensor_bytes(t, &bytes) || t->offset > size ||
	    bytes > size - t->offset)
		return FAIL(c, NPU_PROG_BAD_ADDRESS,
			    "tensor %u [%u, +%llu) lies outside slot %u (%llu bytes)",
			    i, t->offset, (unsigned long long)bytes, t->buf,
			    (unsigned long long)size);
	if (t->offset % npu_prog_dtype_size(t->dtype))
		return FAIL(c, NPU_PROG_MISALIGNED,
			    "tensor %u offset %u misaligned", i, t->offset);
	return c->tensor_hook ? c->tensor_hook(c, i) : NPU_PROG_OK;
}

/* ---- 4: operators ---- */

/* elements of a tensor whose byte size fits in 64 bits: cannot overflow */
static uint64_t elems(const struct npu_prog_tensor *t)
{
	return (uint64_t)t->dims[0] * t->dims[1] * t->dims[2] * t->dims[3];
}

static bool same_dims(const struct npu_prog_tensor *a,
		      const struct npu_prog_tensor *b)
{
	return a->ndim == b->ndim && !memcmp(a->dims, b->dims, sizeof(a->dims));
}

static bool is_weight(const struct npu_prog_tensor *t)
{
	return (t->dtype == NPU_DT_U8 || t->dtype == NPU_DT_I8) &&
	       t->layout == NPU_LAYOUT_PLAIN;
}

/*
 * Reserved fields (4b): flags, rsvd and the rsvd bytes of the u member the
 * operator uses.
 */
static bool op_reserved_clear(const struct npu_prog_op *op)
{
	const uint8_t *r = NULL;
	size_t n = 0, k;

	if (op->flags || op->rsvd)
		return false;
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		r = op->u.conv.rsvd;
		n = sizeof(op->u.conv.rsvd);
		break;
	case NPU_OP_PAD:
		r = op->u.pad.rsvd;
		n = sizeof(op->u.pad.rsvd);
		break;
	case NPU_OP_TRANSPOSE:
		r = op->u.transpose.rsvd;
		n = sizeof(op->u.transpose.rsvd);
		break;
	case NPU_OP_SLICE:
		r = op->u.slice.rsvd;
		n = sizeof(op->u.slice.rsvd);
		break;
	case NPU_OP_CONCAT:
		r = op->u.concat.rsvd;
		n = sizeof(op->u.concat.rsvd);
		break;
	default:	/* no u member */
		break;
	}
	for (k = 0; k < n; k++)
		if (r[k])
			return false;
	return true;
}

/* 4b for one operand reference: @what names it in the message */
static int check_ref(const struct progcheck *c, uint32_t i, uint16_t ref,
		     enum use u, const char *what, int k)
{
	const struct npu_prog_op *op = &c->ops[i];

	if (u == U_IGN || (u == U_OPT && ref == NONE))
		return NPU_PROG_OK;
	if (u == U_NO && ref != NONE)
		return FAIL(c, NPU_PROG_BAD_PROGRAM,
			    "op %u (%s) does not use input %d, which must be NONE",
			    i, op_name(op->opcode), k);
	if (u == U_NO)
		return NPU_PROG_OK;
	if (ref == NONE)
		return FAIL(c, NPU_PROG_BAD_PROGRAM, "op %u (%s) lacks %s", i,
			    op_name(op->opcode), what);
	if (ref >= c->hdr->n_tensors) {
		if (k >= 0)
			return FAIL(c, NPU_PROG_BAD_PROGRAM,
				    "op %u input %d is tensor %u of %u", i, k,
				    ref, c->hdr->n_tensors);
		return FAIL(c, NPU_PROG_BAD_PROGRAM,
			    "op %u %s is tensor %u of %u", i, what, ref,
			    c->hdr->n_tensors);
	}
	return NPU_PROG_OK;
}

/* output size of a window, (x + p0 + p1 - k) / s + 1; -1 if it has none */
static int window(uint64_t x, unsigned int p0, unsigned int p1, uint64_t k,
		  unsigned int s, uint64_t *o)
{
	if (s < 1 || k < 1 || x + p0 + p1 < k)
		return -1;
	*o = (x + p0 + p1 - k) / s + 1;
	return 0;
}

/* the window of CONV2D, DWCONV2D and the pools (4c) */
static int check_window(const struct progcheck *c, uint32_t i,
			const struct npu_prog_tensor *x,
			const struct npu_prog_tensor *y, uint32_t kh,
			uint32_t kw, bool pool)
{
	const struct npu_prog_op *op = &c->ops[i];
	uint64_t oh, ow;

	SHAPE(op->u.conv.dh == 1 && op->u.conv.dw == 1,
	      "op %u dilation must be 1", i);
	SHAPE(x->ndim == 4 && y->ndim == 4 && x->dims[0] == y->dims[0],
	      "op %u input and output must be 4-D with equal N", i);
	SHAPE(!window(x->dims[1], op->u.conv.pt, op->u.conv.pb, kh,
		      op->u.conv.sh, &oh) &&
	      !window(x->dims[2], op->u.conv.pl, op->u.conv.pr, kw,
		      op->u.conv.sw, &ow),
	      "op %u window (stride >= 1) does not fit the input", i);
	SHAPE(y->dims[1] == oh && y->dims[2] == ow,
	      "op %u output is %ux%u, want %llux%llu", i, y->dims[1],
	      y->dims[2], (unsigned long long)oh, (unsigned long long)ow);
	/* a pool window covers at least one input position: the first and
	 * the last window of each dim are the ones that might not
	 */
	if (pool)
		SHAPE(op->u.conv.pt < kh && op->u.conv.pl < kw &&
		      (oh - 1) * op->u.conv.sh < (uint64_t)x->dims[1] + op->u.conv.pt &&
		      (ow - 1) * op->u.conv.sw < (uint64_t)x->dims[2] + op->u.conv.pl,
		      "op %u has a window outside the input", i);
	return NPU_PROG_OK;
}

static int check_bias(const struct progcheck *c, uint32_t i, uint16_t bi,
		      uint32_t n)
{
	const struct npu_prog_tensor *b;

	if (bi == NONE)
		return NPU_PROG_OK;
	b = &c->t[bi];
	SHAPE(b->dtype == NPU_DT_I32 && b->layout == NPU_LAYOUT_PLAIN &&
	      b->ndim == 1 && b->dims[0] == n,
	      "op %u bias must be plain 1-D i32 with %u elements", i, n);
	return NPU_PROG_OK;
}

/*
 * Shapes of an operator (4c). *chans: the output channels a per-channel
 * requantization table has one pair for.
 */
static int check_shapes(const struct progcheck *c, uint32_t i,
			uint64_t *chans)
{
	const struct npu_prog_op *op = &c->ops[i];
	const struct npu_prog_tensor *x = &c->t[op->in[0]], *y = &c->t[op->out];
	const struct npu_prog_tensor *w = NULL;
	unsigned int d, k, seen = 0;
	uint64_t sum;
	int st;

	if (op->in[1] != NONE)
		w = &c->t[op->in[1]];
	*chans = 0;
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D: {
		bool dw = op->opcode == NPU_OP_DWCONV2D;
		uint32_t cout = dw ? x->dims[3] : w->dims[0];

		SHAPE(x->dtype == NPU_DT_U8 && y->dtype == NPU_DT_U8,
		      "op %u input and output must be u8", i);
		SHAPE(is_weight(w) && w->ndim == 4,
		      "op %u weights must be plain 4-D u8 or i8", i);
		SHAPE(w->dims[3] == x->dims[3] && (!dw || w->dims[0] == 1) &&
		      y->dims[3] == cout,
		      "op %u weights [%u,%u,%u,%u] do not match input C %u / output C %u",
		      i, w->dims[0], w->dims[1], w->dims[2], w->dims[3],
		      x->dims[3], y->dims[3]);
		st = check_window(c, i, x, y, w->dims[1], w->dims[2], false);
		if (!st)
			st = check_bias(c, i, op->in[2], cout);
		*chans = cout;
		return st;
	}
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		SHAPE(x->dtype == NPU_DT_U8 && y->dtype == NPU_DT_U8,
		      "op %u input and output must be u8", i);
		SHAPE(y->dims[3] == x->dims[3], "op %u changes C", i);
		*chans = 1;	/* AVGPOOL: NONE or exactly one pair */
		return check_window(c, i, x, y, op->u.conv.kh, op->u.conv.kw,
				    true);
	case NPU_OP_FC:
	case NPU_OP_MATMUL: {
		bool fc = op->opcode == NPU_OP_FC;
		uint32_t n = w->dims[fc ? 0 : 1];

		SHAPE(x->dtype == NPU_DT_U8 && y->dtype == NPU_DT_U8,
		      "op %u input and output must be u8", i);
		SHAPE(is_weight(w), "op %u weights must be plain u8 or i8", i);
		SHAPE(x->ndim == 2 && w->ndim == 2 && y->ndim == 2 &&
		      x->layout == NPU_LAYOUT_PLAIN &&
		      y->layout == NPU_LAYOUT_PLAIN,
		      "op %u operands must be plain 2-D", i);
		SHAPE(w->dims[fc ? 1 : 0] == x->dims[1] &&
		      x->dims[0] == y->dims[0] && y->dims[1] == n,
		      "op %u shapes [%u,%u] x %s[%u,%u] -> [%u,%u] mismatch",
		      i, x->dims[0], x->dims[1], fc ? "transposed " : "",
		      w->dims[0], w->dims[1], y->dims[0], y->dims[1]);
		*chans = n;
		return check_bias(c, i, op->in[2], n);
	}
	case NPU_OP_ADD:
		SHAPE(x->dtype == NPU_DT_U8 && w->dtype == NPU_DT_U8 &&
		      y->dtype == NPU_DT_U8, "op %u operands must be u8", i);
		SHAPE(same_dims(x, y) && same_dims(w, y),
		      "op %u operand dims differ", i);
		return NPU_PROG_OK;
	case NPU_OP_CLIP:
		SHAPE(x->dtype == NPU_DT_U8 && y->dtype == NPU_DT_U8,
		      "op %u input and output must be u8", i);
		SHAPE(same_dims(x, y), "op %u dims differ", i);
		return NPU_PROG_OK;
	default:
		break;
	}

	/* data movement: activations, so u8, with the output's zero point */
	SHAPE(y->dtype == NPU_DT_U8, "op %u output must be u8", i);
	for (k = 0; k < 3; k++)
		SHAPE(op->in[k] == NONE ||
		      (c->t[op->in[k]].dtype == y->dtype &&
		       c->t[op->in[k]].zero_point == y->zero_point),
		      "op %u must keep dtype and zero point", i);
	switch (op->opcode) {
	case NPU_OP_RESHAPE:
		SHAPE(elems(x) == elems(y),
		      "op %u reshapes %llu to %llu elements", i,
		      (unsigned long long)elems(x),
		      (unsigned long long)elems(y));
		return NPU_PROG_OK;
	case NPU_OP_PAD:
		SHAPE(x->ndim == y->ndim, "op %u changes ndim", i);
		for (d = 0; d < 4; d++)
			SHAPE((uint64_t)x->dims[d] + op->u.pad.before[d] +
			      op->u.pad.after[d] == y->dims[d],
			      "op %u pad dim %u mismatch", i, d);
		return NPU_PROG_OK;
	case NPU_OP_SLICE:
		SHAPE(x->ndim == y->ndim, "op %u changes ndim", i);
		for (d = 0; d < 4; d++)
			SHAPE((uint64_t)op->u.slice.begin[d] + y->dims[d] <=
			      x->dims[d],
			      "op %u slice dim %u out of range", i, d);
		return NPU_PROG_OK;
	case NPU_OP_TRANSPOSE:
		SHAPE(x->ndim == y->ndim, "op %u changes ndim", i);
		for (d = 0; d < x->ndim; d++) {
			uint8_t p = op->u.transpose.perm[d];

			SHAPE(p < x->ndim && !(seen & (1u << p)) &&
			      y->dims[d] == x->dims[p],
			      "op %u bad permutation", i);
			seen |= 1u << p;
		}
		return NPU_PROG_OK;
	default:	/* CONCAT */
		SHAPE(op->u.concat.axis < y->ndim,
		      "op %u concat axis %u outside the output", i,
		      op->u.concat.axis);
		sum = 0;
		for (k = 0; k < 3; k++) {
			if (op->in[k] == NONE)
				continue;
			x = &c->t[op->in[k]];
			SHAPE(x->ndim == y->ndim, "op %u concat operands mismatch",
			      i);
			for (d = 0; d < 4; d++)
				SHAPE(d == op->u.concat.axis ||
				      x->dims[d] == y->dims[d],
				      "op %u concat dims mismatch", i);
			sum += x->dims[op->u.concat.axis];
		}
		SHAPE(sum == y->dims[op->u.concat.axis],
		      "op %u concat inputs do not sum to the output", i);
		return NPU_PROG_OK;
	}
}

/* little-endian int32 */
static int32_t le32(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

	return v <= INT32_MAX ? (int32_t)v : (int32_t)(v - 0x80000000u) + INT32_MIN;
}

static int check_op(const struct progcheck *c, uint32_t i)
{
	const struct npu_prog_op *op = &c->ops[i];
	const struct npu_prog_tensor *q = NULL;
	uint64_t chans, n = 0, k;
	unsigned int j;
	int st;

	/* a. opcode */
	if (op->opcode < 1 || op->opcode > NPU_OP_MAX)
		return FAIL(c, NPU_PROG_BAD_OPCODE, "op %u has unknown opcode %u",
			    i, op->opcode);

	/* b. reserved fields and operand references */
	if (!op_reserved_clear(op))
		return FAIL(c, NPU_PROG_BAD_PROGRAM, "op %u reserved field set",
			    i);
	for (j = 0; j < 3; j++) {
		st = check_ref(c, i, op->in[j], specs[op->opcode].in[j],
			       in_names[op->opcode == NPU_OP_ADD ||
					op->opcode == NPU_OP_CONCAT ? 0 : j],
			       (int)j);
		if (st)
			return st;
	}
	st = check_ref(c, i, op->out, U_REQ, "output", -1);
	if (!st)
		st = check_ref(c, i, op->rq, specs[op->opcode].rq,
			       "a requantization table", -1);
	if (!st && c->op_hook)
		st = c->op_hook(c, i);
	if (st)
		return st;

	/* c. shapes, then the requantization table's length */
	st = check_shapes(c, i, &chans);
	if (st)
		return st;
	if (specs[op->opcode].rq != U_IGN && op->rq != NONE) {
		q = &c->t[op->rq];
		n = elems(q) / 2;
		SHAPE(q->dtype == NPU_DT_I32 && q->layout == NPU_LAYOUT_PLAIN &&
		      elems(q) % 2 == 0 &&
		      (op->opcode == NPU_OP_ADD ? n == 3 : n == 1 || n == chans),
		      "op %u requantization table has %llu values, want %s%llu pairs",
		      i, (unsigned long long)elems(q),
		      op->opcode == NPU_OP_ADD ? "" : "1 or ",
		      op->opcode == NPU_OP_ADD ? 3ull :
		      (unsigned long long)chans);
	}

	/* d. activation range (every user has a u8 output), then rq values */
	if (specs[op->opcode].act &&
	    (op->act_min > op->act_max || op->act_min < 0 || op->act_max > 255))
		return FAIL(c, NPU_PROG_BAD_PROGRAM,
			    "op %u activation range [%d, %d] invalid", i,
			    op->act_min, op->act_max);
	if (!q || !c->slots[q->buf].data)
		return NPU_PROG_OK;
	for (k = 0; k < n; k++) {
		const uint8_t *p = (const uint8_t *)c->slots[q->buf].data +
				   q->offset + 8 * k;
		int32_t m = le32(p), s = le32(p + 4);

		if (m < 0 || s < -31 || s > 30)
			return FAIL(c, NPU_PROG_BAD_PROGRAM,
				    "op %u requantization pair %llu {%d, %d} out of range",
				    i, (unsigned long long)k, m, s);
	}
	return NPU_PROG_OK;
}

int progcheck_tables(struct progcheck *c)
{
	uint32_t i;
	int st;

	c->op_index = NPU_PROG_NO_OP_INDEX;
	for (i = 0; i < c->hdr->n_tensors; i++) {
		st = check_tensor(c, i);
		if (st)
			return st;
	}
	for (i = 0; i < c->hdr->n_ops; i++) {
		st = check_op(c, i);
		if (st) {
			c->op_index = (uint16_t)i;
			return st;
		}
	}
	return NPU_PROG_OK;
}
