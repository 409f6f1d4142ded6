// SPDX-License-Identifier: (GPL-2.0-only OR MIT)
/*
 * run.c - validate and execute a program (Documentation/npu/program.rst).
 *
 * Written from the document only. Every operator computes its whole output
 * from logical indices into a temporary int32 array, then stores it; all
 * arithmetic is int64 with explicit saturation or wrapping. The checks of
 * program.rst, "Validation order", are lib/progcheck's, which libnpu's
 * model loader makes too; the device model has its own.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npuref.h"
#include "npuref_int.h"
#include "progcheck.h"

#define NONE		NPU_PROG_NONE
#define IDX_PROGRAM	NPU_PROG_NO_OP_INDEX

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

/*
 * The checks of program.rst (lib/progcheck, shared with libnpu) on copies of
 * the header and tables, then the tensors resolved to slot memory.
 */
static int validate(struct run *r, const void *prog, size_t prog_size,
		    const struct npuref_buf *slots, unsigned int nslots,
		    uint16_t *idx)
{
	struct progcheck_slot ps[NPU_MAX_JOB_BUFS];
	struct progcheck c;
	const uint8_t *pb = prog;
	unsigned int i;
	uint64_t maxel = 1;
	int ret;

	*idx = IDX_PROGRAM;
	ret = progcheck_header(prog, prog_size, &r->hdr, NULL, 0);
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

	/* a slot without memory holds no tensor */
	for (i = 0; i < nslots; i++) {
		ps[i].data = slots[i].base;
		ps[i].size = slots[i].base ? slots[i].size : 0;
	}
	c = (struct progcheck){
		.hdr = &r->hdr, .t = r->tt, .ops = r->ops,
		.slots = ps, .nslots = nslots,
	};
	ret = progcheck_tables(&c);
	*idx = c.op_index;
	if (ret)
		return ret;

	for (i = 0; i < r->hdr.n_tensors; i++) {
		const struct npu_prog_tensor *d = &r->tt[i];

		r->t[i].d = d;
		r->t[i].data = (uint8_t *)slots[d->buf].base + d->offset;
		npuref_tensor_elems(d, &r->t[i].elems);
	}
	for (i = 0; i < r->hdr.n_ops; i++)
		if (r->t[r->ops[i].out].elems > maxel)
			maxel = r->t[r->ops[i].out].elems;
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
