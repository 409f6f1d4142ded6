// SPDX-License-Identifier: (GPL-2.0-only OR MIT)
/*
 * run.c - validate and execute a program (Documentation/npu/program.rst).
 *
 * Written from the document only. Every operator computes its whole output
 * from logical indices into a temporary int32 array, then stores it; all
 * arithmetic is int64 with explicit saturation or wrapping. Checks run in
 * the order of program.rst, "Validation order".
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npuref.h"
#include "npuref_int.h"

#define NONE		NPU_PROG_NONE
#define IDX_PROGRAM	NPU_PROG_NO_OP_INDEX

/* operand usage of an operator */
enum use { U_NO, U_REQ, U_OPT, U_IGN };

struct opspec {
	enum use in[3];
	enum use rq;
	int act;		/* uses act_min/act_max */
};

static const struct opspec specs[NPU_OP_MAX + 1] = {
	[NPU_OP_CONV2D]    = { { U_REQ, U_REQ, U_OPT }, U_REQ, 1 },
	[NPU_OP_DWCONV2D]  = { { U_REQ, U_REQ, U_OPT }, U_REQ, 1 },
	[NPU_OP_PAD]       = { { U_REQ, U_NO, U_NO }, U_IGN, 0 },
	[NPU_OP_AVGPOOL]   = { { U_REQ, U_NO, U_NO }, U_OPT, 1 },
	[NPU_OP_MAXPOOL]   = { { U_REQ, U_NO, U_NO }, U_IGN, 1 },
	[NPU_OP_FC]        = { { U_REQ, U_REQ, U_OPT }, U_REQ, 1 },
	[NPU_OP_MATMUL]    = { { U_REQ, U_REQ, U_OPT }, U_REQ, 1 },
	[NPU_OP_ADD]       = { { U_REQ, U_REQ, U_NO }, U_REQ, 1 },
	[NPU_OP_CLIP]      = { { U_REQ, U_NO, U_NO }, U_IGN, 1 },
	[NPU_OP_RESHAPE]   = { { U_REQ, U_NO, U_NO }, U_IGN, 0 },
	[NPU_OP_TRANSPOSE] = { { U_REQ, U_NO, U_NO }, U_IGN, 0 },
	[NPU_OP_SLICE]     = { { U_REQ, U_NO, U_NO }, U_IGN, 0 },
	[NPU_OP_CONCAT]    = { { U_REQ, U_REQ, U_OPT }, U_IGN, 0 },
};

struct tens {
	const struct npu_prog_tensor *d;
	uint8_t *data;		/* slot base + offset */
	uint64_t elems;
};

struct run {
	struct npu_prog_hdr hdr;
	struct npu_prog_tensor *tt;	/* copy of the tensor table */
	struct npu_prog_op *ops;	/* copy of the operator table */
	struct tens *t;
	int32_t *tmp;			/* one operator's output */
};

/* ---- element access on logical indices ---- */

static int32_t get(const struct tens *t, uint32_t i0, uint32_t i1,
		   uint32_t i2, uint32_t i3)
{
	uint32_t idx[4] = { i0, i1, i2, i3 };

	return npuref_load(t->d->dtype, t->data + npuref_off(t->d, idx));
}

/* idx from a row-major logical position */
static void unlin(const struct npu_prog_tensor *d, uint64_t p, uint32_t idx[4])
{
	int i;

	for (i = 3; i >= 0; i--) {
		idx[i] = (uint32_t)(p % d->dims[i]);
		p /= d->dims[i];
	}
}

/* store tmp (row-major logical order) into the tensor, then padding lanes */
static void store_out(const struct tens *t, const int32_t *tmp)
{
	const struct npu_prog_tensor *d = t->d;
	uint32_t idx[4];
	uint64_t p;

	for (p = 0; p < t->elems; p++) {
		unlin(d, p, idx);
		npuref_store(d->dtype, t->data + npuref_off(d, idx), tmp[p]);
	}
	if (d->layout == NPU_LAYOUT_NCHWC16) {
		uint64_t cb = ((uint64_t)d->dims[3] + 15) / 16;
		uint64_t n, c, h, w, off;

		for (n = 0; n < d->dims[0]; n++)
			for (c = d->dims[3]; c < cb * 16; c++)
				for (h = 0; h < d->dims[1]; h++)
					for (w = 0; w < d->dims[2]; w++) {
						off = (((n * cb + c / 16) * d->dims[1] + h) *
						       d->dims[2] + w) * 16 + c % 16;
						npuref_store(d->dtype, t->data + off,
							     d->zero_point);
					}
	}
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* clamp(saturate(v)) for a U8 output */
static int32_t act(const struct npu_prog_op *op, int64_t v)
{
	v = clamp64(v, 0, 255);
	return (int32_t)clamp64(v, op->act_min, op->act_max);
}

/* int32 accumulator: wraps as two's complement */
static int32_t wrap(int64_t v)
{
	return npuref_wrap32((uint32_t)((uint64_t)v & 0xffffffffu));
}

/*
 * Pair k of a requantization table, read when the operator runs. Values
 * changed since validation are clamped as program.rst specifies.
 */
static void rq_pair(const struct tens *q, uint64_t k, int32_t *m, int32_t *s)
{
	*m = npuref_load(NPU_DT_I32, q->data + 8 * k);
	*s = npuref_load(NPU_DT_I32, q->data + 8 * k + 4);
	if (*m < 0)
		*m = 0;
	*s = (int32_t)clamp64(*s, -31, 30);
}

/* requant(x, rq[ch]) of operator op; a one-pair table is per-tensor */
static int32_t rq_apply(const struct run *r, const struct npu_prog_op *op,
			uint32_t ch, int64_t x)
{
	const struct tens *q = &r->t[op->rq];
	int32_t m, s;

	rq_pair(q, q->elems == 2 ? 0 : ch, &m, &s);
	return npuref_requant(x, m, s);
}

/* ---- validation ---- */

static int check_header(struct run *r, const void *prog, size_t prog_size)
{
	const struct npu_prog_hdr *h = &r->hdr;

	if (prog_size < sizeof(*h))
		return NPU_PROG_BAD_PROGRAM;
	memcpy(&r->hdr, prog, sizeof(*h));
	if (h->magic != NPU_PROG_MAGIC || h->version != NPU_PROG_VERSION ||
	    h->hdr_size != sizeof(*h) || h->rsvd)
		return NPU_PROG_BAD_PROGRAM;
	/* the header is part of the program: hdr_size <= size <= prog_size */
	if (h->size < h->hdr_size || h->size > prog_size)
		return NPU_PROG_BAD_PROGRAM;
	if (h->n_tensors > NPU_PROG_MAX_TENSORS || h->n_ops > NPU_PROG_MAX_OPS)
		return NPU_PROG_BAD_PROGRAM;
	if (h->tensors_off % 8 || h->ops_off % 8)
		return NPU_PROG_BAD_PROGRAM;
	if ((uint64_t)h->tensors_off +
	    (uint64_t)h->n_tensors * sizeof(struct npu_prog_tensor) > h->size)
		return NPU_PROG_BAD_PROGRAM;
	if ((uint64_t)h->ops_off +
	    (uint64_t)h->n_ops * sizeof(struct npu_prog_op) > h->size)
		return NPU_PROG_BAD_PROGRAM;
	return NPU_PROG_OK;
}

static int all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/*
 * Reserved fields of an operator (program.rst, "Validation order" 4b):
 * flags, rsvd and the rsvd bytes of the u member the operator uses.
 */
static int check_op_reserved(const struct npu_prog_op *op)
{
	const void *rsvd = NULL;
	size_t n = 0;

	if (op->flags || op->rsvd)
		return NPU_PROG_BAD_PROGRAM;
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		rsvd = op->u.conv.rsvd;
		n = sizeof(op->u.conv.rsvd);
		break;
	case NPU_OP_PAD:
		rsvd = op->u.pad.rsvd;
		n = sizeof(op->u.pad.rsvd);
		break;
	case NPU_OP_TRANSPOSE:
		rsvd = op->u.transpose.rsvd;
		n = sizeof(op->u.transpose.rsvd);
		break;
	case NPU_OP_SLICE:
		rsvd = op->u.slice.rsvd;
		n = sizeof(op->u.slice.rsvd);
		break;
	case NPU_OP_CONCAT:
		rsvd = op->u.concat.rsvd;
		n = sizeof(op->u.concat.rsvd);
		break;
	default:	/* no u member */
		break;
	}
	if (rsvd && !all_zero(rsvd, n))
		return NPU_PROG_BAD_PROGRAM;
	return NPU_PROG_OK;
}

static int check_tensor(struct run *r, unsigned int i,
			const struct npuref_buf *slots, unsigned int nslots)
{
	const struct npu_prog_tensor *d = &r->tt[i];
	uint64_t bytes;

	if (npuref_tensor_check(d))
		return NPU_PROG_BAD_PROGRAM;
	if (d->buf >= nslots)
		return NPU_PROG_BAD_ADDRESS;
	/* a size beyond 64 bits is beyond any slot */
	if (npuref_tensor_bytes(d, &bytes) ||
	    (uint64_t)d->offset + bytes > (uint64_t)slots[d->buf].size ||
	    (!slots[d->buf].base && bytes))
		return NPU_PROG_BAD_ADDRESS;
	if (d->offset % npuref_dtype_size(d->dtype))
		return NPU_PROG_MISALIGNED;
	r->t[i].d = d;
	r->t[i].data = (uint8_t *)slots[d->buf].base + d->offset;
	npuref_tensor_elems(d, &r->t[i].elems);
	return NPU_PROG_OK;
}

static int same_dims(const struct npu_prog_tensor *a,
		     const struct npu_prog_tensor *b)
{
	return a->ndim == b->ndim && !memcmp(a->dims, b->dims, sizeof(a->dims));
}

/* output size of a window: (X + p0 + p1 - K) / s + 1; the numerator >= 0 */
static int window(uint64_t x, unsigned int p0, unsigned int p1, uint64_t k,
		  unsigned int s, uint64_t *o)
{
	if (s < 1 || x + p0 + p1 < k)
		return -1;
	*o = (x + p0 + p1 - k) / s + 1;
	return 0;
}

/* every output row/col of a pool window has at least one valid position */
static int window_nonempty(uint64_t x, unsigned int p0, uint64_t k,
			   unsigned int s, uint64_t o)
{
	uint64_t i, j;
	int64_t pos;

	for (i = 0; i < o; i++) {
		int any = 0;

		for (j = 0; j < k && !any; j++) {
			pos = (int64_t)(i * s) - p0 + (int64_t)j;
			if (pos >= 0 && (uint64_t)pos < x)
				any = 1;
		}
		if (!any)
			return 0;
	}
	return 1;
}

static int is_weight(const struct npu_prog_tensor *d)
{
	return (d->dtype == NPU_DT_U8 || d->dtype == NPU_DT_I8) &&
	       d->layout == NPU_LAYOUT_PLAIN;
}

static int is_bias(const struct npu_prog_tensor *d, uint32_t n)
{
	return d->dtype == NPU_DT_I32 && d->layout == NPU_LAYOUT_PLAIN &&
	       d->ndim == 1 && d->dims[0] == n;
}

#define SHAPE(cond) do { if (!(cond)) return NPU_PROG_BAD_SHAPE; } while (0)

/*
 * Shapes of operator i. On success *chans is the number of output channels
 * a per-channel requantization table must have (0: none allowed besides
 * the operator's own rule).
 */
static int check_shapes(const struct run *r, const struct npu_prog_op *op,
			uint64_t *chans)
{
	const struct npu_prog_tensor *x = NULL, *w = NULL, *b = NULL, *y;
	uint64_t oh, ow, sum;
	unsigned int i;
	int seen[4] = { 0 };

	if (op->in[0] != NONE)
		x = &r->tt[op->in[0]];
	if (op->in[1] != NONE)
		w = &r->tt[op->in[1]];
	if (op->in[2] != NONE)
		b = &r->tt[op->in[2]];
	y = &r->tt[op->out];
	*chans = 0;

	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D: {
		int dw = op->opcode == NPU_OP_DWCONV2D;
		uint32_t cout;

		SHAPE(x->dtype == NPU_DT_U8 && x->ndim == 4);
		SHAPE(is_weight(w) && w->ndim == 4 && w->dims[3] == x->dims[3]);
		SHAPE(!dw || w->dims[0] == 1);
		cout = dw ? x->dims[3] : w->dims[0];
		SHAPE(!b || is_bias(b, cout));
		SHAPE(op->u.conv.dh == 1 && op->u.conv.dw == 1);
		SHAPE(!window(x->dims[1], op->u.conv.pt, op->u.conv.pb,
			      w->dims[1], op->u.conv.sh, &oh));
		SHAPE(!window(x->dims[2], op->u.conv.pl, op->u.conv.pr,
			      w->dims[2], op->u.conv.sw, &ow));
		SHAPE(y->dtype == NPU_DT_U8 && y->ndim == 4 &&
		      y->dims[0] == x->dims[0] && y->dims[1] == oh &&
		      y->dims[2] == ow && y->dims[3] == cout);
		*chans = cout;
		return NPU_PROG_OK;
	}
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		SHAPE(x->dtype == NPU_DT_U8 && x->ndim == 4);
		SHAPE(op->u.conv.kh >= 1 && op->u.conv.kw >= 1);
		SHAPE(op->u.conv.dh == 1 && op->u.conv.dw == 1);
		SHAPE(!window(x->dims[1], op->u.conv.pt, op->u.conv.pb,
			      op->u.conv.kh, op->u.conv.sh, &oh));
		SHAPE(!window(x->dims[2], op->u.conv.pl, op->u.conv.pr,
			      op->u.conv.kw, op->u.conv.sw, &ow));
		SHAPE(y->dtype == NPU_DT_U8 && y->ndim == 4 &&
		      y->dims[0] == x->dims[0] && y->dims[1] == oh &&
		      y->dims[2] == ow && y->dims[3] == x->dims[3]);
		SHAPE(window_nonempty(x->dims[1], op->u.conv.pt, op->u.conv.kh,
				      op->u.conv.sh, oh));
		SHAPE(window_nonempty(x->dims[2], op->u.conv.pl, op->u.conv.kw,
				      op->u.conv.sw, ow));
		*chans = 1;	/* AVGPOOL: NONE or exactly one pair */
		return NPU_PROG_OK;
	case NPU_OP_FC:
	case NPU_OP_MATMUL: {
		int fc = op->opcode == NPU_OP_FC;
		uint32_t n;

		SHAPE(x->dtype == NPU_DT_U8 && x->layout == NPU_LAYOUT_PLAIN &&
		      x->ndim == 2);
		SHAPE(is_weight(w) && w->ndim == 2);
		SHAPE(w->dims[fc ? 1 : 0] == x->dims[1]);
		n = w->dims[fc ? 0 : 1];
		SHAPE(!b || is_bias(b, n));
		SHAPE(y->dtype == NPU_DT_U8 && y->layout == NPU_LAYOUT_PLAIN &&
		      y->ndim == 2 && y->dims[0] == x->dims[0] &&
		      y->dims[1] == n);
		*chans = n;
		return NPU_PROG_OK;
	}
	case NPU_OP_ADD:
		SHAPE(x->dtype == NPU_DT_U8 && w->dtype == NPU_DT_U8 &&
		      y->dtype == NPU_DT_U8);
		SHAPE(same_dims(x, y) && same_dims(w, y));
		return NPU_PROG_OK;
	case NPU_OP_CLIP:
		SHAPE(x->dtype == NPU_DT_U8 && y->dtype == NPU_DT_U8);
		SHAPE(same_dims(x, y));
		return NPU_PROG_OK;
	default:
		break;
	}

	/*
	 * Data movement: every input and the output are activations, so U8
	 * ("All activation tensors ... are NPU_DT_U8"), with one zero point.
	 */
	SHAPE(y->dtype == NPU_DT_U8);
	for (i = 0; i < 3; i++) {
		const struct npu_prog_tensor *in;

		if (op->in[i] == NONE)
			continue;
		in = &r->tt[op->in[i]];
		SHAPE(in->dtype == y->dtype && in->zero_point == y->zero_point);
	}
	switch (op->opcode) {
	case NPU_OP_PAD:
		SHAPE(x->ndim == y->ndim);
		for (i = 0; i < 4; i++)
			SHAPE((uint64_t)x->dims[i] + op->u.pad.before[i] +
			      op->u.pad.after[i] == y->dims[i]);
		return NPU_PROG_OK;
	case NPU_OP_RESHAPE:
		SHAPE(r->t[op->in[0]].elems == r->t[op->out].elems);
		return NPU_PROG_OK;
	case NPU_OP_TRANSPOSE:
		SHAPE(x->ndim == y->ndim);
		for (i = 0; i < x->ndim; i++) {
			uint8_t p = op->u.transpose.perm[i];

			SHAPE(p < x->ndim && !seen[p]);
			seen[p] = 1;
			SHAPE(y->dims[i] == x->dims[p]);
		}
		return NPU_PROG_OK;
	case NPU_OP_SLICE:
		SHAPE(x->ndim == y->ndim);
		for (i = 0; i < 4; i++)
			SHAPE((uint64_t)op->u.slice.begin[i] + y->dims[i] <=
			      x->dims[i]);
		return NPU_PROG_OK;
	case NPU_OP_CONCAT: {
		uint32_t ax = op->u.concat.axis;
		unsigned int k;

		SHAPE(ax < y->ndim);
		sum = 0;
		for (k = 0; k < 3; k++) {
			const struct npu_prog_tensor *in;

			if (op->in[k] == NONE)
				continue;
			in = &r->tt[op->in[k]];
			SHAPE(in->ndim == y->ndim);
			for (i = 0; i < 4; i++)
				SHAPE(i == ax || in->dims[i] == y->dims[i]);
			sum += in->dims[ax];
		}
		SHAPE(sum == y->dims[ax]);
		return NPU_PROG_OK;
	}
	default:
		return NPU_PROG_BAD_OPCODE;	/* not reached */
	}
}

static int ref_bad(const struct run *r, uint16_t ref, enum use u)
{
	switch (u) {
	case U_NO:
		return ref != NONE;
	case U_REQ:
		return ref == NONE || ref >= r->hdr.n_tensors;
	case U_OPT:
		return ref != NONE && ref >= r->hdr.n_tensors;
	default:
		return 0;
	}
}

static int check_op(struct run *r, unsigned int i)
{
	const struct npu_prog_op *op = &r->ops[i];
	const struct opspec *sp;
	const struct tens *q;
	uint64_t chans, n, k;
	unsigned int j;
	int32_t m, s;
	int ret;

	/* a. opcode */
	if (op->opcode < 1 || op->opcode > NPU_OP_MAX)
		return NPU_PROG_BAD_OPCODE;
	sp = &specs[op->opcode];

	/* b. reserved fields and operand references */
	ret = check_op_reserved(op);
	if (ret)
		return ret;
	for (j = 0; j < 3; j++)
		if (ref_bad(r, op->in[j], sp->in[j]))
			return NPU_PROG_BAD_PROGRAM;
	if (ref_bad(r, op->out, U_REQ) || ref_bad(r, op->rq, sp->rq))
		return NPU_PROG_BAD_PROGRAM;

	/* c. shapes, then the requantization table's length */
	ret = check_shapes(r, op, &chans);
	if (ret)
		return ret;
	q = NULL;
	n = 0;
	if (sp->rq != U_IGN && op->rq != NONE) {
		q = &r->t[op->rq];
		SHAPE(q->d->dtype == NPU_DT_I32 &&
		      q->d->layout == NPU_LAYOUT_PLAIN && q->elems % 2 == 0);
		n = q->elems / 2;
		if (op->opcode == NPU_OP_ADD)
			SHAPE(n == 3);
		else
			SHAPE(n == 1 || n == chans);
	}

	/* d. activation range (every user has a U8 output), then rq values */
	if (sp->act && (op->act_min > op->act_max || op->act_min < 0 ||
			op->act_max > 255))
		return NPU_PROG_BAD_PROGRAM;
	for (k = 0; k < n; k++) {
		m = npuref_load(NPU_DT_I32, q->data + 8 * k);
		s = npuref_load(NPU_DT_I32, q->data + 8 * k + 4);
		if (m < 0 || s < -31 || s > 30)
			return NPU_PROG_BAD_PROGRAM;
	}
	return NPU_PROG_OK;
}

/* ---- execution: each writes r->tmp in row-major order of the output ---- */

static void run_conv(struct run *r, unsigned int i)
{
	const struct npu_prog_op *op = &r->ops[i];
	const struct tens *x = &r->t[op->in[0]], *w = &r->t[op->in[1]];
	const struct tens *b = op->in[2] == NONE ? NULL : &r->t[op->in[2]];
	const struct tens *y = &r->t[op->out];
	int dwc = op->opcode == NPU_OP_DWCONV2D;
	int64_t zx = x->d->zero_point, zw = w->d->zero_point;
	int64_t zy = y->d->zero_point;
	uint32_t H = x->d->dims[1], W = x->d->dims[2], C = x->d->dims[3];
	uint32_t KH = w->d->dims[1], KW = w->d->dims[2];
	uint32_t idx[4], n, oh, ow, co, kh, kw, ci;
	uint64_t p;

	for (p = 0; p < y->elems; p++) {
		int64_t acc;

		unlin(y->d, p, idx);
		n = idx[0];
		oh = idx[1];
		ow = idx[2];
		co = idx[3];
		acc = b ? get(b, co, 0, 0, 0) : 0;
		for (kh = 0; kh < KH; kh++) {
			for (kw = 0; kw < KW; kw++) {
				int64_t ih = (int64_t)oh * op->u.conv.sh -
					     op->u.conv.pt + kh;
				int64_t iw = (int64_t)ow * op->u.conv.sw -
					     op->u.conv.pl + kw;
				int inside = ih >= 0 && ih < H && iw >= 0 &&
					     iw < W;

				/* depthwise: the sum is over channel co only */
				for (ci = dwc ? co : 0; ci < (dwc ? co + 1 : C);
				     ci++) {
					int64_t xv, wv;

					xv = inside ? get(x, n, (uint32_t)ih,
							  (uint32_t)iw, ci) : zx;
					wv = get(w, dwc ? 0 : co, kh, kw, ci);
					acc += (xv - zx) * (wv - zw);
				}
			}
		}
		r->tmp[p] = act(op, zy + rq_apply(r, op, co, wrap(acc)));
	}
}

static void run_pool(struct run *r, unsigned int i)
{
	const struct npu_prog_op *op = &r->ops[i];
	const struct tens *x = &r->t[op->in[0]], *y = &r->t[op->out];
	int avg = op->opcode == NPU_OP_AVGPOOL;
	int64_t zx = x->d->zero_point, zy = y->d->zero_point;
	uint32_t H = x->d->dims[1], W = x->d->dims[2];
	uint32_t idx[4], kh, kw;
	uint64_t p;

	for (p = 0; p < y->elems; p++) {
		int64_t acc = 0, cnt = 0, mx = INT64_MIN, v;

		unlin(y->d, p, idx);
		for (kh = 0; kh < op->u.conv.kh; kh++) {
			for (kw = 0; kw < op->u.conv.kw; kw++) {
				int64_t ih = (int64_t)idx[1] * op->u.conv.sh -
					     op->u.conv.pt + kh;
				int64_t iw = (int64_t)idx[2] * op->u.conv.sw -
					     op->u.conv.pl + kw;

				if (ih < 0 || ih >= H || iw < 0 || iw >= W)
					continue;
				v = get(x, idx[0], (uint32_t)ih, (uint32_t)iw,
					idx[3]);
				acc += v - zx;
				cnt++;
				if (v > mx)
					mx = v;
			}
		}
		/* cnt >= 1: checked before the first operator ran */
		if (avg) {
			int64_t a = acc >= 0 ? (acc + cnt / 2) / cnt :
					       (acc - cnt / 2) / cnt;

			if (op->rq != NONE)
				a = rq_apply(r, op, idx[3], a);
			r->tmp[p] = act(op, zy + a);
		} else {
			r->tmp[p] = act(op, zy + mx - zx);
		}
	}
}

static void run_fc(struct run *r, unsigned int i)
{
	const struct npu_prog_op *op = &r->ops[i];
	const struct tens *x = &r->t[op->in[0]], *w = &r->t[op->in[1]];
	const struct tens *b = op->in[2] == NONE ? NULL : &r->t[op->in[2]];
	const struct tens *y = &r->t[op->out];
	int fc = op->opcode == NPU_OP_FC;
	int64_t zx = x->d->zero_point, zw = w->d->zero_point;
	int64_t zy = y->d->zero_point;
	uint32_t K = x->d->dims[1], idx[4], k;
	uint64_t p;

	for (p = 0; p < y->elems; p++) {
		int64_t acc;
		uint32_t m, n;

		unlin(y->d, p, idx);
		m = idx[0];
		n = idx[1];
		acc = b ? get(b, n, 0, 0, 0) : 0;
		for (k = 0; k < K; k++) {
			int64_t wv = fc ? get(w, n, k, 0, 0) : get(w, k, n, 0, 0);

			acc += (get(x, m, k, 0, 0) - zx) * (wv - zw);
		}
		r->tmp[p] = act(op, zy + rq_apply(r, op, n, wrap(acc)));
	}
}

static void run_add(struct run *r, unsigned int i)
{
	const struct npu_prog_op *op = &r->ops[i];
	const struct tens *x0 = &r->t[op->in[0]], *x1 = &r->t[op->in[1]];
	const struct tens *y = &r->t[op->out];
	int32_t q[6];
	uint32_t idx[4];
	uint64_t p;

	rq_pair(&r->t[op->rq], 0, &q[0], &q[1]);
	rq_pair(&r->t[op->rq], 1, &q[2], &q[3]);
	rq_pair(&r->t[op->rq], 2, &q[4], &q[5]);
	for (p = 0; p < y->elems; p++) {
		int64_t a, b;

		unlin(y->d, p, idx);
		a = npuref_requant((get(x0, idx[0], idx[1], idx[2], idx[3]) -
				    (int64_t)x0->d->zero_point) * (1 << 20),
				   q[0], q[1]);
		b = npuref_requant((get(x1, idx[0], idx[1], idx[2], idx[3]) -
				    (int64_t)x1->d->zero_point) * (1 << 20),
				   q[2], q[3]);
		/* a + b is exact in int64; requant saturates it to int32 */
		r->tmp[p] = act(op, y->d->zero_point +
				    (int64_t)npuref_requant(a + b, q[4], q[5]));
	}
}

static void run_clip(struct run *r, unsigned int i)
{
	const struct npu_prog_op *op = &r->ops[i];
	const struct tens *x = &r->t[op->in[0]], *y = &r->t[op->out];
	uint32_t idx[4];
	uint64_t p;

	for (p = 0; p < y->elems; p++) {
		unlin(y->d, p, idx);
		r->tmp[p] = act(op, (int64_t)y->d->zero_point +
				    get(x, idx[0], idx[1], idx[2], idx[3]) -
				    x->d->zero_point);
	}
}

static void run_move(struct run *r, unsigned int i)
{
	const struct npu_prog_op *op = &r->ops[i];
	const struct tens *x = &r->t[op->in[0]], *y = &r->t[op->out];
	uint32_t o[4], j[4];
	uint64_t p;
	int d, k;

	for (p = 0; p < y->elems; p++) {
		unlin(y->d, p, o);
		switch (op->opcode) {
		case NPU_OP_PAD: {
			int inside = 1;

			for (d = 0; d < 4; d++) {
				int64_t s = (int64_t)o[d] - op->u.pad.before[d];

				if (s < 0 || s >= x->d->dims[d])
					inside = 0;
				j[d] = (uint32_t)s;
			}
			r->tmp[p] = inside ? get(x, j[0], j[1], j[2], j[3]) :
					     y->d->zero_point;
			break;
		}
		case NPU_OP_RESHAPE:
			unlin(x->d, p, j);
			r->tmp[p] = get(x, j[0], j[1], j[2], j[3]);
			break;
		case NPU_OP_TRANSPOSE:
			for (d = 0; d < 4; d++)
				j[d] = 0;
			for (d = 0; d < x->d->ndim; d++)
				j[op->u.transpose.perm[d]] = o[d];
			r->tmp[p] = get(x, j[0], j[1], j[2], j[3]);
			break;
		case NPU_OP_SLICE:
			for (d = 0; d < 4; d++)
				j[d] = o[d] + op->u.slice.begin[d];
			r->tmp[p] = get(x, j[0], j[1], j[2], j[3]);
			break;
		case NPU_OP_CONCAT: {
			uint32_t ax = op->u.concat.axis, pos = o[ax];

			for (k = 0; k < 3; k++) {
				const struct tens *in;

				if (op->in[k] == NONE)
					continue;
				in = &r->t[op->in[k]];
				if (pos < in->d->dims[ax]) {
					memcpy(j, o, sizeof(j));
					j[ax] = pos;
					r->tmp[p] = get(in, j[0], j[1], j[2],
							j[3]);
					break;
				}
				pos -= in->d->dims[ax];
			}
			break;
		}
		}
	}
}

static void run_op(struct run *r, unsigned int i)
{
	switch (r->ops[i].opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
		run_conv(r, i);
		break;
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		run_pool(r, i);
		break;
	case NPU_OP_FC:
	case NPU_OP_MATMUL:
		run_fc(r, i);
		break;
	case NPU_OP_ADD:
		run_add(r, i);
		break;
	case NPU_OP_CLIP:
		run_clip(r, i);
		break;
	default:
		run_move(r, i);
		break;
	}
	store_out(&r->t[r->ops[i].out], r->tmp);
}

/* a program inside slot prog_slot must end inside it */
static int check_prog_place(const void *prog, size_t prog_size,
			    const struct npuref_buf *s)
{
	uintptr_t p = (uintptr_t)prog, b = (uintptr_t)s->base;
	uintptr_t off;

	if (!s->base || p < b || p - b >= s->size)
		return NPU_PROG_OK;	/* a separate copy */
	off = p - b;
	if (prog_size > s->size - off)
		return NPU_PROG_BAD_ADDRESS;
	return NPU_PROG_OK;
}

static int validate(struct run *r, const void *prog, size_t prog_size,
		    const struct npuref_buf *slots, unsigned int nslots,
		    uint16_t *idx)
{
	const uint8_t *pb = prog;
	unsigned int i;
	uint64_t maxel = 1;
	int ret;

	*idx = IDX_PROGRAM;
	ret = check_header(r, prog, prog_size);
	if (ret)
		return ret;
	r->tt = calloc(r->hdr.n_tensors + 1, sizeof(*r->tt));
	r->ops = calloc(r->hdr.n_ops + 1, sizeof(*r->ops));
	r->t = calloc(r->hdr.n_tensors + 1, sizeof(*r->t));
	if (!r->tt || !r->ops || !r->t)
		return -ENOMEM;
	memcpy(r->tt, pb + r->hdr.tensors_off,
	       (size_t)r->hdr.n_tensors * sizeof(*r->tt));
	memcpy(r->ops, pb + r->hdr.ops_off,
	       (size_t)r->hdr.n_ops * sizeof(*r->ops));

	for (i = 0; i < r->hdr.n_tensors; i++) {
		ret = check_tensor(r, i, slots, nslots);
		if (ret)
			return ret;
	}
	for (i = 0; i < r->hdr.n_ops; i++) {
		ret = check_op(r, i);
		if (ret) {
			if (ret > 0)
				*idx = (uint16_t)i;
			return ret;
		}
		if (r->t[r->ops[i].out].elems > maxel)
			maxel = r->t[r->ops[i].out].elems;
	}
	if (maxel > SIZE_MAX / sizeof(int32_t))
		return -ENOMEM;
	r->tmp = malloc((size_t)maxel * sizeof(int32_t));
	if (!r->tmp)
		return -ENOMEM;
	return NPU_PROG_OK;
}

int npuref_run(const void *prog, size_t prog_size, struct npuref_buf *slots,
	       unsigned int nslots, unsigned int prog_slot, uint16_t *op_index)
{
	struct run r;
	uint16_t idx = IDX_PROGRAM;
	unsigned int i;
	int ret;

	if (!prog || !slots || nslots < 1 || nslots > NPU_MAX_JOB_BUFS)
		return -EINVAL;
	if (prog_slot != NPUREF_PROG_EXTERNAL && prog_slot >= nslots)
		return -EINVAL;

	memset(&r, 0, sizeof(r));
	ret = NPU_PROG_OK;
	if (prog_slot != NPUREF_PROG_EXTERNAL)
		ret = check_prog_place(prog, prog_size, &slots[prog_slot]);
	if (!ret)
		ret = validate(&r, prog, prog_size, slots, nslots, &idx);
	if (!ret) {
		for (i = 0; i < r.hdr.n_ops; i++)
			run_op(&r, i);
	}

	free(r.t);
	free(r.ops);
	free(r.tt);
	free(r.tmp);
	if (op_index)
		*op_index = ret > 0 ? idx : IDX_PROGRAM;
	return ret;
}
