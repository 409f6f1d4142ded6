// SPDX-License-Identifier: GPL-2.0-only
/*
 * ops.c - the operators of NPU program format v1 (the PE's arithmetic).
 *
 * Semantics: Documentation/npu/program.rst. Every operator has a generic
 * path that follows the document literally over logical indices. CONV2D,
 * DWCONV2D, FC and MATMUL also have a fast path: the input is converted,
 * a few rows at a time, to int16 (x - zx) NHWC rows with the padding
 * materialized, weights are packed once per operator as int16 (w - zw) in
 * blocks of 16 output channels, and the inner loops accumulate 16 output
 * lanes for a tile of output pixels in int32, which gcc -O2 vectorizes.
 * Both paths give identical bytes: int32 sums wrap, so the order of
 * accumulation does not matter, and partial sums are flushed into uint32
 * totals before they could overflow (no undefined behaviour).
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

#define NONE NPU_PROG_NONE

#ifndef __always_inline
#define __always_inline __attribute__((always_inline))
#endif

/*
 * Largest number of products an int32 partial sum may hold: |x - zx| and
 * |w - zw| are at most 255, and 33025 * 255 * 255 < 2^31.
 */
#define ACC_TERMS	33025u

/* Output pixels per tile of the fast convolution kernel. */
#define TILE_P		4

/* Largest working memory (bytes) the fast path allocates for one operator. */
#define FAST_MAX_BYTES	(256u << 20)

/*
 * The hot functions are compiled for several instruction sets and picked at
 * load time (plain C, auto-vectorized for each; identical results).
 * -DNPU_OPS_NO_CLONES builds the baseline only.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(NPU_OPS_NO_CLONES)
#define NPU_HOT __attribute__((target_clones("default", "avx2", \
						 "arch=x86-64-v4")))
#else
#define NPU_HOT
#endif

static atomic_bool fast_off;

void emu_ops_set_fast_path(bool on)
{
	atomic_store(&fast_off, !on);
}

static inline bool fast_enabled(void)
{
	return !atomic_load_explicit(&fast_off, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Tensors                                                             */

static inline uint64_t cblocks(uint32_t c)
{
	return ((uint64_t)c + 15) / 16;
}

/* element offset (in elements) of the logical index (i0, i1, i2, i3) */
static inline uint64_t t_off(const struct emu_tensor *t, uint32_t i0,
			     uint32_t i1, uint32_t i2, uint32_t i3)
{
	const uint32_t *d = t->dims;

	if (t->layout == NPU_LAYOUT_NCHWC16)
		return ((((uint64_t)i0 * cblocks(d[3]) + i3 / 16) * d[1] +
			 i1) * d[2] + i2) * 16 + i3 % 16;
	return (((uint64_t)i0 * d[1] + i1) * d[2] + i2) * d[3] + i3;
}

static inline int32_t t_get(const struct emu_tensor *t, uint32_t i0,
			    uint32_t i1, uint32_t i2, uint32_t i3)
{
	uint64_t o = t_off(t, i0, i1, i2, i3);
	int32_t v;

	switch (t->dtype) {
	case NPU_DT_U8:
		return t->data[o];
	case NPU_DT_I8:
		return (int8_t)t->data[o];
	default:
		memcpy(&v, t->data + o * 4, 4);
		return v;
	}
}

static inline void t_set_u8(const struct emu_tensor *t, uint32_t i0,
			    uint32_t i1, uint32_t i2, uint32_t i3, uint8_t v)
{
	t->data[t_off(t, i0, i1, i2, i3)] = v;
}

/* the i-th int32 of a PLAIN NPU_DT_I32 tensor */
static inline int32_t t_i32(const struct emu_tensor *t, uint64_t i)
{
	int32_t v;

	memcpy(&v, t->data + i * 4, 4);
	return v;
}

/* Write the zero point into the padding lanes of an NCHWC16 output. */
static void fill_pad_lanes(const struct emu_tensor *y)
{
	uint32_t c = y->dims[3], n, h, w;
	uint64_t cb = cblocks(c);
	uint8_t *p;

	if (y->layout != NPU_LAYOUT_NCHWC16 || c % 16 == 0)
		return;
	for (n = 0; n < y->dims[0]; n++)
		for (h = 0; h < y->dims[1]; h++)
			for (w = 0; w < y->dims[2]; w++) {
				p = y->data + ((((uint64_t)n * cb + cb - 1) *
						y->dims[1] + h) * y->dims[2] +
					       w) * 16;
				memset(p + c % 16, (uint8_t)y->zp, 16 - c % 16);
			}
}

/* ------------------------------------------------------------------ */
/* Requantization                                                      */

struct rq_pair {
	int32_t m;
	int32_t s;
};

/*
 * Pair @i of table @t (pair 0 for a per-tensor table), read now. Values
 * that changed to out-of-range ones since the checks are clamped, as
 * program.rst says.
 */
static inline struct rq_pair rq_get(const struct emu_tensor *t, uint64_t i)
{
	struct rq_pair p;

	if (t->count == 2)
		i = 0;
	p.m = t_i32(t, 2 * i);
	p.s = t_i32(t, 2 * i + 1);
	if (p.m < 0)
		p.m = 0;
	if (p.s < -31)
		p.s = -31;
	if (p.s > 30)
		p.s = 30;
	return p;
}

/* clamp(saturate(zy + v)) for a U8 output */
static inline uint8_t out_u8(int64_t zy_plus_v, int32_t amin, int32_t amax)
{
	int64_t v = zy_plus_v;

	if (v < 0)
		v = 0;
	if (v > 255)
		v = 255;
	if (v < amin)
		v = amin;
	if (v > amax)
		v = amax;
	return (uint8_t)v;
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */

enum rq_use { RQ_IGNORED, RQ_OPTIONAL, RQ_REQUIRED };

/* operand use per opcode: for in[0..2], 0 unused, 1 required, 2 optional */
struct op_desc {
	uint8_t in[3];
	uint8_t rq;
	bool act;
};

static const struct op_desc op_descs[NPU_OP_MAX + 1] = {
	[NPU_OP_CONV2D]    = { { 1, 1, 2 }, RQ_REQUIRED, true },
	[NPU_OP_DWCONV2D]  = { { 1, 1, 2 }, RQ_REQUIRED, true },
	[NPU_OP_PAD]       = { { 1, 0, 0 }, RQ_IGNORED, false },
	[NPU_OP_AVGPOOL]   = { { 1, 0, 0 }, RQ_OPTIONAL, true },
	[NPU_OP_MAXPOOL]   = { { 1, 0, 0 }, RQ_IGNORED, true },
	[NPU_OP_FC]        = { { 1, 1, 2 }, RQ_REQUIRED, true },
	[NPU_OP_MATMUL]    = { { 1, 1, 2 }, RQ_REQUIRED, true },
	[NPU_OP_ADD]       = { { 1, 1, 0 }, RQ_REQUIRED, true },
	[NPU_OP_CLIP]      = { { 1, 0, 0 }, RQ_IGNORED, true },
	[NPU_OP_RESHAPE]   = { { 1, 0, 0 }, RQ_IGNORED, false },
	[NPU_OP_TRANSPOSE] = { { 1, 0, 0 }, RQ_IGNORED, false },
	[NPU_OP_SLICE]     = { { 1, 0, 0 }, RQ_IGNORED, false },
	[NPU_OP_CONCAT]    = { { 1, 1, 2 }, RQ_IGNORED, false },
};

static inline bool is_act(const struct emu_tensor *t)
{
	return t->dtype == NPU_DT_U8;
}

static inline bool is_weights(const struct emu_tensor *t)
{
	return (t->dtype == NPU_DT_U8 || t->dtype == NPU_DT_I8) &&
	       t->layout == NPU_LAYOUT_PLAIN;
}

static inline bool is_i32(const struct emu_tensor *t)
{
	return t->dtype == NPU_DT_I32 && t->layout == NPU_LAYOUT_PLAIN;
}

/* a bias of @c channels, or none */
static bool bias_ok(const struct emu_tensor *b, uint32_t c)
{
	return !b || (is_i32(b) && b->ndim == 1 && b->dims[0] == c);
}

/* a table of 1 or @c pairs (@c == 0: exactly @pairs pairs) */
static bool rq_len_ok(const struct emu_tensor *r, uint32_t c, uint32_t pairs)
{
	if (!is_i32(r))
		return false;
	if (c == 0)
		return r->count == 2ull * pairs;
	return r->count == 2 || r->count == 2ull * c;
}

static bool same_dims(const struct emu_tensor *a, const struct emu_tensor *b)
{
	return a->ndim == b->ndim && !memcmp(a->dims, b->dims, sizeof(a->dims));
}

/* output extent of a window op along one axis; 0 when invalid */
static uint64_t win_out(uint32_t in, uint32_t k, uint32_t s, uint32_t p0,
			uint32_t p1)
{
	uint64_t span = (uint64_t)in + p0 + p1;

	if (k < 1 || s < 1 || span < k)
		return 0;
	return (span - k) / s + 1;
}

/* every window along one axis holds at least one input position */
static bool win_cover(uint32_t in, uint32_t k, uint32_t s, uint32_t p0,
		      uint64_t out)
{
	/* first window ends at k - 1 - p0, last starts at (out-1)*s - p0 */
	return k > p0 && (out - 1) * s < (uint64_t)in + p0;
}

/* resolved operands of one operator */
struct operands {
	const struct emu_tensor *in[3];
	const struct emu_tensor *rq;
	const struct emu_tensor *out;
};

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* the reserved bytes of the union member the operator uses are zero */
static bool u_rsvd_ok(const struct npu_prog_op *op)
{
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		return all_zero(op->u.conv.rsvd, sizeof(op->u.conv.rsvd));
	case NPU_OP_PAD:
		return all_zero(op->u.pad.rsvd, sizeof(op->u.pad.rsvd));
	case NPU_OP_TRANSPOSE:
		return all_zero(op->u.transpose.rsvd,
				sizeof(op->u.transpose.rsvd));
	case NPU_OP_SLICE:
		return all_zero(op->u.slice.rsvd, sizeof(op->u.slice.rsvd));
	case NPU_OP_CONCAT:
		return all_zero(op->u.concat.rsvd, sizeof(op->u.concat.rsvd));
	default:
		return true;
	}
}

static int get_operands(const struct npu_prog_op *op,
			const struct emu_tensor *t, uint32_t n,
			struct operands *o)
{
	const struct op_desc *d = &op_descs[op->opcode];
	unsigned int i;

	memset(o, 0, sizeof(*o));
	if (op->flags || op->rsvd || !u_rsvd_ok(op))
		return NPU_HW_STATUS_BAD_PROGRAM;
	for (i = 0; i < 3; i++) {
		uint16_t x = op->in[i];

		if (x == NONE) {
			if (d->in[i] == 1)
				return NPU_HW_STATUS_BAD_PROGRAM;
			continue;
		}
		if (d->in[i] == 0 || x >= n)
			return NPU_HW_STATUS_BAD_PROGRAM;
		o->in[i] = &t[x];
	}
	if (op->out == NONE || op->out >= n)
		return NPU_HW_STATUS_BAD_PROGRAM;
	o->out = &t[op->out];
	if (d->rq != RQ_IGNORED) {
		if (op->rq == NONE) {
			if (d->rq == RQ_REQUIRED)
				return NPU_HW_STATUS_BAD_PROGRAM;
		} else if (op->rq >= n) {
			return NPU_HW_STATUS_BAD_PROGRAM;
		} else {
			o->rq = &t[op->rq];
		}
	}
	return NPU_HW_STATUS_OK;
}

static bool conv_params_ok(const struct npu_prog_op *op)
{
	return op->u.conv.sh >= 1 && op->u.conv.sw >= 1 &&
	       op->u.conv.dh == 1 && op->u.conv.dw == 1;
}

/* 4c, one function per family of opcodes: shapes; fills the cost's macs */

/* x and y are 4-D U8 activations (NHWC) */
static bool act4_ok(const struct emu_tensor *x, const struct emu_tensor *y)
{
	return is_act(x) && x->ndim == 4 && is_act(y) && y->ndim == 4;
}

/*
 * y is [N, OH, OW, @c] for a @kh x @kw window over x with the operator's
 * strides and padding; *oh and *ow are OH and OW (0 when none fits)
 */
static bool window_dims_ok(const struct npu_prog_op *op,
			   const struct emu_tensor *x,
			   const struct emu_tensor *y, uint32_t kh,
			   uint32_t kw, uint32_t c, uint64_t *oh, uint64_t *ow)
{
	*oh = win_out(x->dims[1], kh, op->u.conv.sh, op->u.conv.pt,
		      op->u.conv.pb);
	*ow = win_out(x->dims[2], kw, op->u.conv.sw, op->u.conv.pl,
		      op->u.conv.pr);
	return *oh && *ow && y->dims[0] == x->dims[0] && y->dims[1] == *oh &&
	       y->dims[2] == *ow && y->dims[3] == c;
}

/* CONV2D, DWCONV2D */
static bool conv_shapes_ok(const struct npu_prog_op *op,
			   const struct operands *o, struct emu_op_cost *cost)
{
	const struct emu_tensor *x = o->in[0], *w = o->in[1], *y = o->out;
	bool dw = op->opcode == NPU_OP_DWCONV2D;
	uint32_t cout = dw ? x->dims[3] : w->dims[0];
	uint64_t oh, ow;

	if (!act4_ok(x, y))
		return false;
	if (!is_weights(w) || w->ndim != 4 || w->dims[3] != x->dims[3])
		return false;
	if (dw && w->dims[0] != 1)
		return false;
	if (!bias_ok(o->in[2], cout) || !rq_len_ok(o->rq, cout, 0))
		return false;
	if (!conv_params_ok(op))
		return false;
	if (!window_dims_ok(op, x, y, w->dims[1], w->dims[2], cout, &oh, &ow))
		return false;
	cost->macs = y->count * w->dims[1] * w->dims[2] *
		     (dw ? 1 : (uint64_t)x->dims[3]);
	return true;
}

/* AVGPOOL, MAXPOOL */
static bool pool_shapes_ok(const struct npu_prog_op *op,
			   const struct operands *o, struct emu_op_cost *cost)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	uint32_t kh = op->u.conv.kh, kw = op->u.conv.kw;
	uint64_t oh, ow;

	if (!act4_ok(x, y))
		return false;
	if (o->rq && !rq_len_ok(o->rq, 0, 1))
		return false;
	if (!conv_params_ok(op))
		return false;
	if (!window_dims_ok(op, x, y, kh, kw, x->dims[3], &oh, &ow))
		return false;
	if (!win_cover(x->dims[1], kh, op->u.conv.sh, op->u.conv.pt, oh) ||
	    !win_cover(x->dims[2], kw, op->u.conv.sw, op->u.conv.pl, ow))
		return false;
	cost->macs = y->count * kh * kw;
	return true;
}

/* FC (weights [N, K]), MATMUL (weights [K, N]) */
static bool fc_shapes_ok(const struct npu_prog_op *op,
			 const struct operands *o, struct emu_op_cost *cost)
{
	const struct emu_tensor *x = o->in[0], *w = o->in[1], *y = o->out;
	bool kn = op->opcode == NPU_OP_MATMUL;
	uint32_t k = x->dims[1];
	uint32_t nn = kn ? w->dims[1] : w->dims[0];

	if (!is_act(x) || x->ndim != 2 || x->layout != NPU_LAYOUT_PLAIN)
		return false;
	if (!is_act(y) || y->ndim != 2 || y->layout != NPU_LAYOUT_PLAIN)
		return false;
	if (!is_weights(w) || w->ndim != 2 || w->dims[kn ? 0 : 1] != k)
		return false;
	if (!bias_ok(o->in[2], nn) || !rq_len_ok(o->rq, nn, 0))
		return false;
	if (y->dims[0] != x->dims[0] || y->dims[1] != nn)
		return false;
	cost->macs = y->count * k;
	return true;
}

/* ADD, CLIP: element by element, every operand of the output's dims */
static bool eltwise_shapes_ok(const struct npu_prog_op *op,
			      const struct operands *o,
			      struct emu_op_cost *cost)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;

	if (!is_act(x) || !is_act(y) || !same_dims(x, y))
		return false;
	if (op->opcode == NPU_OP_ADD) {
		const struct emu_tensor *w = o->in[1];

		if (!is_act(w) || !same_dims(w, y))
			return false;
		if (!rq_len_ok(o->rq, 0, 3))
			return false;
	}
	cost->macs = y->count;
	return true;
}

static bool pad_shapes_ok(const struct npu_prog_op *op,
			  const struct emu_tensor *x,
			  const struct emu_tensor *y)
{
	unsigned int i;

	if (x->ndim != y->ndim)
		return false;
	for (i = 0; i < 4; i++) {
		if ((uint64_t)x->dims[i] + op->u.pad.before[i] +
		    op->u.pad.after[i] != y->dims[i])
			return false;
	}
	return true;
}

static bool transpose_shapes_ok(const struct npu_prog_op *op,
				const struct emu_tensor *x,
				const struct emu_tensor *y)
{
	unsigned int i, j, seen = 0;

	if (x->ndim != y->ndim)
		return false;
	for (i = 0; i < x->ndim; i++) {
		j = op->u.transpose.perm[i];
		if (j >= x->ndim || (seen & (1u << j)))
			return false;
		seen |= 1u << j;
		if (y->dims[i] != x->dims[j])
			return false;
	}
	return true;
}

static bool slice_shapes_ok(const struct npu_prog_op *op,
			    const struct emu_tensor *x,
			    const struct emu_tensor *y)
{
	unsigned int i;

	if (x->ndim != y->ndim)
		return false;
	for (i = 0; i < 4; i++) {
		if ((uint64_t)op->u.slice.begin[i] + y->dims[i] > x->dims[i])
			return false;
	}
	return true;
}

static bool concat_shapes_ok(const struct npu_prog_op *op,
			     const struct operands *o)
{
	const struct emu_tensor *y = o->out;
	uint32_t ax = op->u.concat.axis;
	unsigned int i, j;
	uint64_t sum = 0;

	if (ax >= y->ndim)
		return false;
	for (i = 0; i < 3; i++) {
		const struct emu_tensor *t = o->in[i];

		if (!t)
			continue;
		if (t->ndim != y->ndim)
			return false;
		for (j = 0; j < 4; j++) {
			if (j != ax && t->dims[j] != y->dims[j])
				return false;
		}
		sum += t->dims[ax];
	}
	return sum == y->dims[ax];
}

/* PAD, RESHAPE, TRANSPOSE, SLICE, CONCAT: U8 in and out, one zero point */
static bool move_shapes_ok(const struct npu_prog_op *op,
			   const struct operands *o, struct emu_op_cost *cost)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	unsigned int i;

	cost->macs = 0;
	for (i = 0; i < 3; i++) {
		if (o->in[i] && (!is_act(o->in[i]) || o->in[i]->zp != y->zp))
			return false;
	}
	if (!is_act(y))
		return false;

	switch (op->opcode) {
	case NPU_OP_PAD:
		return pad_shapes_ok(op, x, y);
	case NPU_OP_RESHAPE:
		return x->count == y->count;
	case NPU_OP_TRANSPOSE:
		return transpose_shapes_ok(op, x, y);
	case NPU_OP_SLICE:
		return slice_shapes_ok(op, x, y);
	case NPU_OP_CONCAT:
		return concat_shapes_ok(op, o);
	default:
		return false;
	}
}

static bool shapes_ok(const struct npu_prog_op *op, const struct operands *o,
		      struct emu_op_cost *cost)
{
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
		return conv_shapes_ok(op, o, cost);
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		return pool_shapes_ok(op, o, cost);
	case NPU_OP_FC:
	case NPU_OP_MATMUL:
		return fc_shapes_ok(op, o, cost);
	case NPU_OP_ADD:
	case NPU_OP_CLIP:
		return eltwise_shapes_ok(op, o, cost);
	default:
		return move_shapes_ok(op, o, cost);
	}
}

int emu_op_check(const struct npu_prog_op *op, const struct emu_tensor *t,
		 uint32_t n_tensors, struct emu_op_cost *cost)
{
	const struct op_desc *d;
	struct operands o;
	unsigned int i;
	uint64_t k;
	int st;

	memset(cost, 0, sizeof(*cost));
	/* 4a */
	if (op->opcode < 1 || op->opcode > NPU_OP_MAX)
		return NPU_HW_STATUS_BAD_OPCODE;
	d = &op_descs[op->opcode];
	/* 4b */
	st = get_operands(op, t, n_tensors, &o);
	if (st != NPU_HW_STATUS_OK)
		return st;
	/* 4c */
	if (!shapes_ok(op, &o, cost))
		return NPU_HW_STATUS_BAD_SHAPE;
	/* 4d */
	if (d->act && (op->act_min > op->act_max || op->act_min < 0 ||
		       op->act_max > 255))
		return NPU_HW_STATUS_BAD_PROGRAM;
	if (o.rq) {
		for (k = 0; k < o.rq->count; k += 2) {
			int32_t m = t_i32(o.rq, k), s = t_i32(o.rq, k + 1);

			if (m < 0 || s < -31 || s > 30)
				return NPU_HW_STATUS_BAD_PROGRAM;
		}
	}

	/* cost */
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
	case NPU_OP_FC:
	case NPU_OP_MATMUL:
		cost->in_bytes = o.in[0]->bytes;
		cost->w_bytes = o.in[1]->bytes;
		if (o.in[2])
			cost->w_bytes += o.in[2]->bytes;
		break;
	default:
		for (i = 0; i < 3; i++)
			if (o.in[i])
				cost->in_bytes += o.in[i]->bytes;
		break;
	}
	if (o.rq)
		cost->w_bytes += o.rq->bytes;
	cost->out_bytes = o.out->bytes;
	return NPU_HW_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Convolution engine                                                  */

/*
 * One convolution-like job: CONV2D, DWCONV2D, FC and MATMUL (the last two
 * as a 1x1 convolution over a [1, 1, M, K] input), or an accumulation only.
 * Positions are in NHWC logical terms.
 */
struct conv_job {
	const struct emu_tensor *x;	/* input, dims viewed as NHWC */
	const struct emu_tensor *w;	/* weights */
	uint32_t n, h, wd, c;		/* input N, H, W, C */
	uint32_t co, kh, kw;		/* output channels, kernel */
	uint32_t sh, sw, pt, pl;
	uint32_t oh, ow;
	bool dw;			/* depthwise */
	bool w_kn;			/* weights [K, N] (MATMUL) */
	int32_t zx, zw;

	/* finalization: either store int32 sums or requantize to @y */
	int32_t *acc_out;		/* [N, OH, OW, CO] when set */
	const struct emu_tensor *y;	/* output, dims viewed as NHWC */
	const struct emu_tensor *bias;	/* or NULL */
	const struct emu_tensor *rq;
	int32_t zy, amin, amax;
};

/*
 * weight (w - zw) for output channel @o, kernel position (@i, @j), input
 * channel @ci; depthwise: @o is ignored, the channel is @ci
 */
static inline int32_t wval(const struct conv_job *cj, uint32_t o, uint32_t i,
			   uint32_t j, uint32_t ci)
{
	const struct emu_tensor *w = cj->w;
	uint64_t off;
	int32_t v;

	if (cj->w_kn)
		off = (uint64_t)ci * cj->co + o;
	else if (cj->dw)
		off = ((uint64_t)i * cj->kw + j) * cj->c + ci;
	else
		off = (((uint64_t)o * cj->kh + i) * cj->kw + j) * cj->c + ci;
	v = w->dtype == NPU_DT_I8 ? (int8_t)w->data[off] : w->data[off];
	return v - cj->zw;
}

/* input element (x - zx) at (n, ih, iw, ci) inside the input */
static inline int32_t xval(const struct conv_job *cj, uint32_t n, uint32_t ih,
			   uint32_t iw, uint32_t ci)
{
	return cj->x->data[t_off(cj->x, n, ih, iw, ci)] - cj->zx;
}

/* Final value of output (n, oh, ow, o) from its wrapped sum @acc. */
static inline void conv_store(const struct conv_job *cj, uint32_t n,
			      uint32_t oh, uint32_t ow, uint32_t o,
			      uint32_t acc, int32_t bias, struct rq_pair r)
{
	int32_t a = (int32_t)(acc + (uint32_t)bias);

	if (cj->acc_out) {
		cj->acc_out[(((uint64_t)n * cj->oh + oh) * cj->ow + ow) *
			    cj->co + o] = a;
		return;
	}
	t_set_u8(cj->y, n, oh, ow, o,
		 out_u8((int64_t)cj->zy + emu_requant(a, r.m, r.s),
			cj->amin, cj->amax));
}

/* The literal path: one output at a time, no allocation. */
static void conv_generic(const struct conv_job *cj)
{
	struct rq_pair r = { 0, 0 };
	uint32_t n, oh, ow, o, i, j, ci;
	int64_t ih, iw;
	int32_t bias;
	uint32_t acc;

	for (n = 0; n < cj->n; n++)
	for (oh = 0; oh < cj->oh; oh++)
	for (ow = 0; ow < cj->ow; ow++)
	for (o = 0; o < cj->co; o++) {
		acc = 0;
		for (i = 0; i < cj->kh; i++) {
			ih = (int64_t)oh * cj->sh + i - cj->pt;
			if (ih < 0 || ih >= cj->h)
				continue;
			for (j = 0; j < cj->kw; j++) {
				iw = (int64_t)ow * cj->sw + j - cj->pl;
				if (iw < 0 || iw >= cj->wd)
					continue;
				if (cj->dw) {
					acc += (uint32_t)(xval(cj, n, ih, iw, o) *
							  wval(cj, 0, i, j, o));
					continue;
				}
				for (ci = 0; ci < cj->c; ci++)
					acc += (uint32_t)(xval(cj, n, ih, iw, ci) *
							  wval(cj, o, i, j, ci));
			}
		}
		bias = cj->bias ? t_i32(cj->bias, o) : 0;
		if (cj->rq)
			r = rq_get(cj->rq, o);
		conv_store(cj, n, oh, ow, o, acc, bias, r);
	}
	if (cj->y)
		fill_pad_lanes(cj->y);
}

/* working memory of the fast path */
struct conv_fast {
	uint32_t cp;		/* input channels rounded up to 16 */
	uint32_t cob;		/* blocks of 16 output lanes */
	uint64_t wpad;		/* padded row width in pixels */
	int16_t *wpk;		/* packed weights */
	int16_t *ring;		/* kh padded rows of wpad * cp values */
	int64_t *ring_row;	/* padded row held by each ring slot */
	const int16_t **rows;	/* the kh rows of the current output row */
	int32_t *bias;		/* [cob * 16] */
	int32_t *rqm;		/* [cob * 16] multipliers */
	int32_t *rqs;		/* [cob * 16] shifts */
};

static void conv_fast_free(struct conv_fast *f)
{
	free(f->wpk);
	free(f->ring);
	free(f->ring_row);
	free(f->rows);
	free(f->bias);
	free(f->rqm);
	free(f->rqs);
}

/* (w - zw) of the weight at element offset @off */
static inline int16_t wraw(const uint8_t *w, bool i8, int32_t zw, uint64_t off)
{
	return (int16_t)((i8 ? (int8_t)w[off] : (int32_t)w[off]) - zw);
}

/* one output channel's row of @c weights into every other int16 pair */
static inline void pack_row_u8(int16_t *restrict d, const uint8_t *restrict src,
			       uint32_t c, int32_t zw)
{
	uint32_t q;

	for (q = 0; q < c / 2; q++) {
		d[q * 32] = (int16_t)(src[2 * q] - zw);
		d[q * 32 + 1] = (int16_t)(src[2 * q + 1] - zw);
	}
	if (c % 2)
		d[q * 32] = (int16_t)(src[2 * q] - zw);
}

static inline void pack_row_i8(int16_t *restrict d, const uint8_t *restrict src,
			       uint32_t c, int32_t zw)
{
	const int8_t *s8 = (const int8_t *)src;
	uint32_t q;

	for (q = 0; q < c / 2; q++) {
		d[q * 32] = (int16_t)(s8[2 * q] - zw);
		d[q * 32 + 1] = (int16_t)(s8[2 * q + 1] - zw);
	}
	if (c % 2)
		d[q * 32] = (int16_t)(s8[2 * q] - zw);
}

/*
 * Pack the weights as int16 (w - zw): depthwise [kh][kw][cp] with zeros
 * beyond c; otherwise [cob][kh][kw][c2 / 2][16][2] (channel pairs
 * interleaved per lane, see kconv()) with zeros beyond co and c.
 */
NPU_HOT
static void conv_pack(const struct conv_job *cj, struct conv_fast *f)
{
	const bool i8 = cj->w->dtype == NPU_DT_I8;
	const uint8_t *w = cj->w->data;
	const int32_t zw = cj->zw;
	const uint64_t npos = (uint64_t)cj->kh * cj->kw;
	const uint64_t c2 = ((uint64_t)cj->c + 1) & ~1ull;
	uint32_t b, l, o, ci;
	uint64_t pos;
	int16_t *p;

	if (cj->dw) {
		for (pos = 0; pos < (uint64_t)cj->kh * cj->kw; pos++) {
			p = f->wpk + pos * f->cp;
			for (ci = 0; ci < cj->c; ci++)
				p[ci] = wraw(w, i8, zw, pos * cj->c + ci);
			for (; ci < f->cp; ci++)
				p[ci] = 0;
		}
		return;
	}
	/* [cob][kh][kw][c2 / 2][16][2], c2 = c rounded up to even */
	for (b = 0; b < f->cob; b++) {
		for (pos = 0; pos < npos; pos++) {
			p = f->wpk + ((uint64_t)b * npos + pos) * c2 * 16;
			for (l = 0; l < 16; l++) {
				int16_t *d = p + l * 2;

				o = b * 16 + l;
				if (o >= cj->co) {
					for (ci = 0; ci < c2; ci++)
						d[(ci / 2) * 32 + ci % 2] = 0;
					continue;
				}
				if (cj->w_kn) {
					/* [K, N]: element (ci, o) */
					for (ci = 0; ci < cj->c; ci++)
						d[(ci / 2) * 32 + ci % 2] =
							wraw(w, i8, zw,
							     (uint64_t)ci * cj->co + o);
				} else {
					const uint8_t *src = w +
						((uint64_t)o * npos + pos) * cj->c;

					if (i8)
						pack_row_i8(d, src, cj->c, zw);
					else
						pack_row_u8(d, src, cj->c, zw);
				}
				if (cj->c % 2)
					d[(c2 / 2 - 1) * 32 + 1] = 0;
			}
		}
	}
}

/* Allocate and pack; false when the job is too large for the fast path. */
static bool conv_fast_init(const struct conv_job *cj, struct conv_fast *f)
{
	uint64_t wn, rn, lanes, total;
	uint32_t o;

	memset(f, 0, sizeof(*f));
	f->cp = (uint32_t)(cblocks(cj->c) * 16);
	f->cob = (uint32_t)cblocks(cj->co);
	f->wpad = (uint64_t)(cj->ow - 1) * cj->sw + cj->kw;
	lanes = (uint64_t)f->cob * 16;
	/* int16 elements of packed weights and row ring, without overflow */
	if (__builtin_mul_overflow((uint64_t)cj->kh * cj->kw,
				   cj->dw ? (uint64_t)f->cp :
				   lanes * (((uint64_t)cj->c + 1) & ~1ull),
				   &wn) ||
	    __builtin_mul_overflow((uint64_t)cj->kh * f->cp, f->wpad, &rn))
		return false;
	if (wn > FAST_MAX_BYTES || rn > FAST_MAX_BYTES)
		return false;
	total = 2 * wn + 2 * rn + 16 * (uint64_t)cj->kh + 16 * lanes;
	if (total > FAST_MAX_BYTES)
		return false;

	f->wpk = malloc(wn * sizeof(int16_t));
	f->ring = malloc(rn * sizeof(int16_t));
	f->ring_row = malloc(cj->kh * sizeof(int64_t));
	f->rows = malloc(cj->kh * sizeof(int16_t *));
	f->bias = calloc(lanes, sizeof(int32_t));
	f->rqm = calloc(lanes, sizeof(int32_t));
	f->rqs = calloc(lanes, sizeof(int32_t));
	if (!f->wpk || !f->ring || !f->ring_row || !f->rows || !f->bias ||
	    !f->rqm || !f->rqs) {
		conv_fast_free(f);
		return false;
	}

	conv_pack(cj, f);
	for (o = 0; o < cj->co; o++) {
		if (cj->bias)
			f->bias[o] = t_i32(cj->bias, o);
		if (cj->rq) {
			struct rq_pair r = rq_get(cj->rq, o);

			f->rqm[o] = r.m;
			f->rqs[o] = r.s;
		}
	}
	return true;
}

/* Convert padded row @pr of image @n into ring slot @slot. */
NPU_HOT
static void conv_fill_row(const struct conv_job *cj, struct conv_fast *f,
			  uint32_t n, uint64_t pr, uint32_t slot)
{
	int16_t *dst = f->ring + (uint64_t)slot * f->wpad * f->cp;
	const struct emu_tensor *x = cj->x;
	int64_t ih = (int64_t)pr - cj->pt;
	uint64_t pw, cb, ncb = cblocks(cj->c);
	const int32_t zx = cj->zx;
	int64_t iw;
	uint32_t ci, l, lim;

	for (pw = 0; pw < f->wpad; pw++, dst += f->cp) {
		iw = (int64_t)pw - cj->pl;
		if (ih < 0 || ih >= cj->h || iw < 0 || iw >= cj->wd) {
			memset(dst, 0, f->cp * sizeof(int16_t));
			continue;
		}
		if (x->layout == NPU_LAYOUT_NCHWC16) {
			for (cb = 0; cb < ncb; cb++) {
				const uint8_t *restrict s = x->data +
					(((n * ncb + cb) * cj->h + ih) *
					 cj->wd + iw) * 16;
				int16_t *restrict d = dst + cb * 16;

				lim = cj->c - cb * 16;
				for (l = 0; l < 16; l++)
					d[l] = (int16_t)(s[l] - zx);
				for (l = lim; l < 16; l++)
					d[l] = 0;
			}
		} else {
			const uint8_t *restrict s = x->data +
				(((uint64_t)n * cj->h + ih) * cj->wd + iw) *
				cj->c;
			int16_t *restrict d = dst;

			for (ci = 0; ci < cj->c; ci++)
				d[ci] = (int16_t)(s[ci] - zx);
			for (; ci < f->cp; ci++)
				d[ci] = 0;
		}
	}
}

static inline void acc_flush(int32_t acc[][16], uint32_t tot[][16],
			     uint32_t np)
{
	uint32_t p, l;

	for (p = 0; p < np; p++)
		for (l = 0; l < 16; l++) {
			tot[p][l] += (uint32_t)acc[p][l];
			acc[p][l] = 0;
		}
}

/*
 * The hot loops. Each adds products to the int32 sums of @np output pixels
 * (pixel p's input at @xs + p * @ps) times 16 output lanes; @np is a
 * constant in each wrapper, so the loops unroll and the 16-lane loops
 * vectorize. The callers keep every sum within ACC_TERMS products.
 */

/*
 * CONV2D: @len input channels at one kernel position, in pairs: the
 * weights of channels 2q and 2q + 1 are interleaved per lane, so that each
 * 32-bit lane adds two products (pmaddwd/vpdpwssd). An odd @len reads one
 * channel past it, which is a zero in the row ring and in the weights.
 */
static inline __always_inline
void kconv(int32_t acc[][16], const int16_t *restrict xs, uint64_t ps,
	   const int16_t *restrict wk, uint32_t len, const uint32_t np)
{
	int32_t a[TILE_P][16];
	uint32_t q, p, l;

	memcpy(a, acc, np * sizeof(a[0]));
	for (q = 0; q < (len + 1) / 2; q++) {
		const int16_t *restrict wv = wk + (uint64_t)q * 32;

		for (p = 0; p < np; p++) {
			int32_t x0 = xs[p * ps + 2 * q];
			int32_t x1 = xs[p * ps + 2 * q + 1];

			for (l = 0; l < 16; l++)
				a[p][l] += x0 * wv[2 * l] + x1 * wv[2 * l + 1];
		}
	}
	memcpy(acc, a, np * sizeof(a[0]));
}

static inline __always_inline
void kconv_n(int32_t acc[][16], const int16_t *xs, uint64_t ps,
		    const int16_t *wk, uint32_t len)
{
	kconv(acc, xs, ps, wk, len, TILE_P);
}

static inline __always_inline
void kconv_1(int32_t acc[][16], const int16_t *xs, uint64_t ps,
		    const int16_t *wk, uint32_t len)
{
	kconv(acc, xs, ps, wk, len, 1);
}

/*
 * DWCONV2D: kernel columns [0, @len) of one kernel row; lanes are
 * channels, the input pixel stride is @cp
 */
static inline __always_inline
void kdw(int32_t acc[][16], const int16_t *restrict xs, uint64_t ps,
	 uint64_t cp, const int16_t *restrict wk, uint32_t len,
	 const uint32_t np)
{
	int32_t a[TILE_P][16];
	uint32_t j, p, l;

	memcpy(a, acc, np * sizeof(a[0]));
	for (j = 0; j < len; j++) {
		const int16_t *restrict wv = wk + j * cp;

		for (p = 0; p < np; p++) {
			const int16_t *restrict xp = xs + p * ps + j * cp;

			for (l = 0; l < 16; l++)
				a[p][l] += xp[l] * wv[l];
		}
	}
	memcpy(acc, a, np * sizeof(a[0]));
}

static inline __always_inline
void kdw_n(int32_t acc[][16], const int16_t *xs, uint64_t ps,
		  uint64_t cp, const int16_t *wk, uint32_t len)
{
	kdw(acc, xs, ps, cp, wk, len, TILE_P);
}

static inline __always_inline
void kdw_1(int32_t acc[][16], const int16_t *xs, uint64_t ps,
		  uint64_t cp, const int16_t *wk, uint32_t len)
{
	kdw(acc, xs, ps, cp, wk, len, 1);
}

/* Sums of @np (TILE_P or 1) output pixels from @ow0, output block @b. */
NPU_HOT
static void conv_tile(const struct conv_job *cj, const struct conv_fast *f,
		      uint32_t ow0, uint32_t b, uint32_t np,
		      uint32_t tot[][16])
{
	const uint64_t ps = (uint64_t)cj->sw * f->cp;
	const uint64_t c2 = ((uint64_t)cj->c + 1) & ~1ull;
	uint32_t i, j, c0, len, lim, terms = 0;
	int32_t acc[TILE_P][16];

	memset(acc, 0, sizeof(acc));
	memset(tot, 0, np * sizeof(tot[0]));
	for (i = 0; i < cj->kh; i++) {
		const int16_t *r = f->rows[i] + ow0 * ps;

		if (cj->dw) {
			/* kw products per row and lane */
			const int16_t *wk = f->wpk +
				(uint64_t)i * cj->kw * f->cp + b * 16;

			for (j = 0; j < cj->kw; j += len) {
				len = cj->kw - j;
				if (len > ACC_TERMS)
					len = ACC_TERMS;
				if (terms + len > ACC_TERMS) {
					acc_flush(acc, tot, np);
					terms = 0;
				}
				terms += len;
				if (np == TILE_P)
					kdw_n(acc, r + (uint64_t)j * f->cp +
					      b * 16, ps, f->cp,
					      wk + (uint64_t)j * f->cp, len);
				else
					kdw_1(acc, r + (uint64_t)j * f->cp +
					      b * 16, ps, f->cp,
					      wk + (uint64_t)j * f->cp, len);
			}
			continue;
		}
		for (j = 0; j < cj->kw; j++) {
			const int16_t *xs = r + (uint64_t)j * f->cp;
			const int16_t *wk = f->wpk +
				(((uint64_t)b * cj->kh + i) * cj->kw + j) *
				c2 * 16;

			/* chunks of an even number of channels */
			for (c0 = 0; c0 < cj->c; c0 += len) {
				lim = cj->c - c0;
				len = lim > ACC_TERMS - 1 ? ACC_TERMS - 1 : lim;
				if (terms + len + 1 > ACC_TERMS) {
					acc_flush(acc, tot, np);
					terms = 0;
				}
				terms += len + 1;
				if (np == TILE_P)
					kconv_n(acc, xs + c0, ps,
						wk + (uint64_t)c0 * 16, len);
				else
					kconv_1(acc, xs + c0, ps,
						wk + (uint64_t)c0 * 16, len);
			}
		}
	}
	acc_flush(acc, tot, np);
}

/* Finalize the 16 lanes of block @b for @np pixels from @ow0. */
NPU_HOT
static void conv_emit(const struct conv_job *cj, const struct conv_fast *f,
		      uint32_t n, uint32_t oh, uint32_t ow0, uint32_t np,
		      uint32_t b, uint32_t tot[][16])
{
	uint32_t lanes = cj->co - b * 16, p, l, o0 = b * 16;
	const int32_t *bias = f->bias + o0, *rm = f->rqm + o0;
	const int32_t *rs = f->rqs + o0;
	const int32_t zy = cj->zy, amin = cj->amin, amax = cj->amax;
	const struct emu_tensor *y = cj->y;
	int32_t rv[16];
	uint8_t v[16];
	uint8_t *d;

	if (lanes > 16)
		lanes = 16;
	for (p = 0; p < np; p++) {
		uint32_t ow = ow0 + p;

		if (cj->acc_out) {
			for (l = 0; l < lanes; l++)
				cj->acc_out[(((uint64_t)n * cj->oh + oh) *
					     cj->ow + ow) * cj->co + o0 + l] =
					(int32_t)(tot[p][l] + (uint32_t)bias[l]);
			continue;
		}
		for (l = 0; l < 16; l++)
			rv[l] = emu_requant32((int32_t)(tot[p][l] +
							(uint32_t)bias[l]),
					      rm[l], rs[l]);
		for (l = 0; l < 16; l++) {
			int32_t r = rv[l];

			/*
			 * saturate(zy + r) then clamp: [amin, amax] is in
			 * [0, 255], so bounding r first changes nothing
			 */
			r = r > 512 ? 512 : r < -512 ? -512 : r;
			r += zy;
			r = r < amin ? amin : r > amax ? amax : r;
			v[l] = (uint8_t)r;
		}
		if (y->layout == NPU_LAYOUT_NCHWC16) {
			d = y->data + ((((uint64_t)n * f->cob + b) * cj->oh +
					oh) * cj->ow + ow) * 16;
			for (l = lanes; l < 16; l++)
				v[l] = (uint8_t)zy;
			memcpy(d, v, 16);
		} else {
			d = y->data + (((uint64_t)n * cj->oh + oh) * cj->ow +
				       ow) * cj->co + o0;
			memcpy(d, v, lanes);
		}
	}
}

static void conv_fast_run(const struct conv_job *cj, struct conv_fast *f)
{
	uint32_t tot[TILE_P][16];
	uint32_t n, oh, i, b, ow0, slot;
	uint64_t pr;

	for (n = 0; n < cj->n; n++) {
		for (i = 0; i < cj->kh; i++)
			f->ring_row[i] = -1;
		for (oh = 0; oh < cj->oh; oh++) {
			for (i = 0; i < cj->kh; i++) {
				pr = (uint64_t)oh * cj->sh + i;
				slot = (uint32_t)(pr % cj->kh);
				if (f->ring_row[slot] != (int64_t)pr) {
					conv_fill_row(cj, f, n, pr, slot);
					f->ring_row[slot] = (int64_t)pr;
				}
				f->rows[i] = f->ring +
					     (uint64_t)slot * f->wpad * f->cp;
			}
			for (b = 0; b < f->cob; b++) {
				for (ow0 = 0; ow0 + TILE_P <= cj->ow;
				     ow0 += TILE_P) {
					conv_tile(cj, f, ow0, b, TILE_P, tot);
					conv_emit(cj, f, n, oh, ow0, TILE_P, b,
						  tot);
				}
				for (; ow0 < cj->ow; ow0++) {
					conv_tile(cj, f, ow0, b, 1, tot);
					conv_emit(cj, f, n, oh, ow0, 1, b, tot);
				}
			}
		}
	}
}

static void conv_run(const struct conv_job *cj)
{
	struct conv_fast f;

	if (fast_enabled() && conv_fast_init(cj, &f)) {
		conv_fast_run(cj, &f);
		conv_fast_free(&f);
		return;
	}
	conv_generic(cj);
}

/* A tensor's dims viewed as another shape (same storage). */
static struct emu_tensor view4(const struct emu_tensor *t, uint32_t d0,
			       uint32_t d1, uint32_t d2, uint32_t d3)
{
	struct emu_tensor v = *t;

	v.ndim = 4;
	v.dims[0] = d0;
	v.dims[1] = d1;
	v.dims[2] = d2;
	v.dims[3] = d3;
	return v;
}

static void job_conv(struct conv_job *cj, const struct emu_tensor *x,
		     const struct emu_tensor *w, uint32_t sh, uint32_t sw,
		     uint32_t pt, uint32_t pl, uint32_t oh, uint32_t ow,
		     bool dw)
{
	cj->x = x;
	cj->w = w;
	cj->n = x->dims[0];
	cj->h = x->dims[1];
	cj->wd = x->dims[2];
	cj->c = x->dims[3];
	cj->co = dw ? x->dims[3] : w->dims[0];
	cj->kh = w->dims[1];
	cj->kw = w->dims[2];
	cj->sh = sh;
	cj->sw = sw;
	cj->pt = pt;
	cj->pl = pl;
	cj->oh = oh;
	cj->ow = ow;
	cj->dw = dw;
	cj->zx = x->zp;
	cj->zw = w->zp;
}

int emu_conv_acc(const struct emu_tensor *x, const struct emu_tensor *w,
		 const struct emu_conv_geom *g, int32_t *acc)
{
	struct conv_job cj = { 0 };
	uint64_t oh, ow;

	if (!x || !w || !g || !acc || !is_act(x) || x->ndim != 4 ||
	    !is_weights(w) || w->ndim != 4 || w->dims[3] != x->dims[3] ||
	    (g->depthwise && w->dims[0] != 1))
		return -EINVAL;
	oh = win_out(x->dims[1], w->dims[1], g->sh, g->pt, g->pb);
	ow = win_out(x->dims[2], w->dims[2], g->sw, g->pl, g->pr);
	if (!oh || !ow || oh > UINT32_MAX || ow > UINT32_MAX)
		return -EINVAL;
	job_conv(&cj, x, w, g->sh, g->sw, g->pt, g->pl, (uint32_t)oh,
		 (uint32_t)ow, g->depthwise);
	cj.acc_out = acc;
	conv_run(&cj);
	return 0;
}

int emu_matmul_acc(const struct emu_tensor *x, const struct emu_tensor *w,
		   bool w_kn, int32_t *acc)
{
	struct conv_job cj = { 0 };
	struct emu_tensor xv, wv;
	uint32_t m, k, nn;

	if (!x || !w || !acc || !is_act(x) || x->ndim != 2 ||
	    x->layout != NPU_LAYOUT_PLAIN || !is_weights(w) || w->ndim != 2)
		return -EINVAL;
	m = x->dims[0];
	k = x->dims[1];
	nn = w_kn ? w->dims[1] : w->dims[0];
	if (w->dims[w_kn ? 0 : 1] != k)
		return -EINVAL;
	xv = view4(x, 1, 1, m, k);
	wv = view4(w, nn, 1, 1, k);	/* only dims[0..2] matter for [K, N] */
	job_conv(&cj, &xv, &wv, 1, 1, 0, 0, 1, m, false);
	cj.co = nn;
	cj.w_kn = w_kn;
	cj.acc_out = acc;
	conv_run(&cj);
	return 0;
}

/* The requantized output side of a CONV2D/DWCONV2D/FC/MATMUL job. */
static void job_output(struct conv_job *cj, const struct npu_prog_op *op,
		       const struct operands *o, const struct emu_tensor *y)
{
	cj->y = y;
	cj->bias = o->in[2];
	cj->rq = o->rq;
	cj->zy = o->out->zp;
	cj->amin = op->act_min;
	cj->amax = op->act_max;
}

static void op_conv(const struct npu_prog_op *op, const struct operands *o)
{
	bool dw = op->opcode == NPU_OP_DWCONV2D;
	struct conv_job cj = { 0 };

	job_conv(&cj, o->in[0], o->in[1], op->u.conv.sh, op->u.conv.sw,
		 op->u.conv.pt, op->u.conv.pl, o->out->dims[1],
		 o->out->dims[2], dw);
	job_output(&cj, op, o, o->out);
	conv_run(&cj);
}

static void op_fc(const struct npu_prog_op *op, const struct operands *o)
{
	bool kn = op->opcode == NPU_OP_MATMUL;
	const struct emu_tensor *x = o->in[0], *w = o->in[1];
	uint32_t m = x->dims[0], k = x->dims[1], nn = o->out->dims[1];
	struct emu_tensor xv, wv, yv;
	struct conv_job cj = { 0 };

	xv = view4(x, 1, 1, m, k);
	wv = view4(w, nn, 1, 1, k);
	yv = view4(o->out, 1, 1, m, nn);
	job_conv(&cj, &xv, &wv, 1, 1, 0, 0, 1, m, false);
	cj.w_kn = kn;
	job_output(&cj, op, o, &yv);
	conv_run(&cj);
}

/* ------------------------------------------------------------------ */
/* Pools and element-wise operators                                    */

static void op_pool(const struct npu_prog_op *op, const struct operands *o)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	bool avg = op->opcode == NPU_OP_AVGPOOL;
	uint32_t n, oh, ow, c, i, j;
	struct rq_pair r = { 0, 0 };
	int64_t ih, iw, acc, cnt, v;
	int32_t mx, e;

	if (o->rq)
		r = rq_get(o->rq, 0);
	for (n = 0; n < y->dims[0]; n++)
	for (oh = 0; oh < y->dims[1]; oh++)
	for (ow = 0; ow < y->dims[2]; ow++)
	for (c = 0; c < y->dims[3]; c++) {
		acc = 0;
		cnt = 0;
		mx = -1;
		for (i = 0; i < op->u.conv.kh; i++) {
			ih = (int64_t)oh * op->u.conv.sh + i - op->u.conv.pt;
			if (ih < 0 || ih >= x->dims[1])
				continue;
			for (j = 0; j < op->u.conv.kw; j++) {
				iw = (int64_t)ow * op->u.conv.sw + j -
				     op->u.conv.pl;
				if (iw < 0 || iw >= x->dims[2])
					continue;
				e = x->data[t_off(x, n, ih, iw, c)];
				acc += e - x->zp;
				if (e > mx)
					mx = e;
				cnt++;
			}
		}
		if (avg) {
			/* cnt >= 1: checked before the first operator */
			v = acc >= 0 ? (acc + cnt / 2) / cnt :
				       (acc - cnt / 2) / cnt;
			if (o->rq)
				v = emu_requant(v, r.m, r.s);
		} else {
			v = (int64_t)mx - x->zp;
		}
		t_set_u8(y, n, oh, ow, c,
			 out_u8(y->zp + v, op->act_min, op->act_max));
	}
	fill_pad_lanes(y);
}

/* iterate the logical indices of @t in row-major order */
#define FOR_IDX(t, a, b, c, d)						\
	for (a = 0; a < (t)->dims[0]; a++)				\
	for (b = 0; b < (t)->dims[1]; b++)				\
	for (c = 0; c < (t)->dims[2]; c++)				\
	for (d = 0; d < (t)->dims[3]; d++)

static void op_add(const struct npu_prog_op *op, const struct operands *o)
{
	const struct emu_tensor *x0 = o->in[0], *x1 = o->in[1], *y = o->out;
	struct rq_pair r0 = rq_get(o->rq, 0), r1 = rq_get(o->rq, 1);
	struct rq_pair r2 = rq_get(o->rq, 2);
	uint32_t a, b, c, d;
	int64_t va, vb;

	FOR_IDX(y, a, b, c, d) {
		va = emu_requant(((int64_t)t_get(x0, a, b, c, d) - x0->zp) *
				 (1 << 20), r0.m, r0.s);
		vb = emu_requant(((int64_t)t_get(x1, a, b, c, d) - x1->zp) *
				 (1 << 20), r1.m, r1.s);
		t_set_u8(y, a, b, c, d,
			 out_u8(y->zp + (int64_t)emu_requant(va + vb, r2.m,
							     r2.s),
				op->act_min, op->act_max));
	}
	fill_pad_lanes(y);
}

static void op_clip(const struct npu_prog_op *op, const struct operands *o)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	uint32_t a, b, c, d;

	FOR_IDX(y, a, b, c, d)
		t_set_u8(y, a, b, c, d,
			 out_u8((int64_t)y->zp + t_get(x, a, b, c, d) - x->zp,
				op->act_min, op->act_max));
	fill_pad_lanes(y);
}

/* ------------------------------------------------------------------ */
/* Data movement                                                       */

static void op_pad(const struct npu_prog_op *op, const struct operands *o)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	const uint16_t *bf = op->u.pad.before;
	uint32_t i[4];
	uint8_t v;

	FOR_IDX(y, i[0], i[1], i[2], i[3]) {
		if (i[0] >= bf[0] && i[0] - bf[0] < x->dims[0] &&
		    i[1] >= bf[1] && i[1] - bf[1] < x->dims[1] &&
		    i[2] >= bf[2] && i[2] - bf[2] < x->dims[2] &&
		    i[3] >= bf[3] && i[3] - bf[3] < x->dims[3])
			v = x->data[t_off(x, i[0] - bf[0], i[1] - bf[1],
					  i[2] - bf[2], i[3] - bf[3])];
		else
			v = (uint8_t)y->zp;
		t_set_u8(y, i[0], i[1], i[2], i[3], v);
	}
	fill_pad_lanes(y);
}

static void op_reshape(const struct operands *o)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	uint32_t i[4], j[4] = { 0, 0, 0, 0 };
	int k;

	FOR_IDX(y, i[0], i[1], i[2], i[3]) {
		t_set_u8(y, i[0], i[1], i[2], i[3],
			 x->data[t_off(x, j[0], j[1], j[2], j[3])]);
		/* advance the input index in row-major order */
		for (k = 3; k >= 0; k--) {
			if (++j[k] < x->dims[k])
				break;
			j[k] = 0;
		}
	}
	fill_pad_lanes(y);
}

static void op_transpose(const struct npu_prog_op *op,
			 const struct operands *o)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	uint32_t i[4], j[4];
	unsigned int d;

	FOR_IDX(y, i[0], i[1], i[2], i[3]) {
		j[0] = j[1] = j[2] = j[3] = 0;
		for (d = 0; d < y->ndim; d++)
			j[op->u.transpose.perm[d]] = i[d];
		t_set_u8(y, i[0], i[1], i[2], i[3],
			 x->data[t_off(x, j[0], j[1], j[2], j[3])]);
	}
	fill_pad_lanes(y);
}

static void op_slice(const struct npu_prog_op *op, const struct operands *o)
{
	const struct emu_tensor *x = o->in[0], *y = o->out;
	const uint32_t *bg = op->u.slice.begin;
	uint32_t i[4];

	FOR_IDX(y, i[0], i[1], i[2], i[3])
		t_set_u8(y, i[0], i[1], i[2], i[3],
			 x->data[t_off(x, i[0] + bg[0], i[1] + bg[1],
				       i[2] + bg[2], i[3] + bg[3])]);
	fill_pad_lanes(y);
}

static void op_concat(const struct npu_prog_op *op, const struct operands *o)
{
	const struct emu_tensor *y = o->out;
	uint32_t ax = op->u.concat.axis, base = 0, i[4], k[4];
	unsigned int n;

	for (n = 0; n < 3; n++) {
		const struct emu_tensor *x = o->in[n];

		if (!x)
			continue;
		FOR_IDX(x, i[0], i[1], i[2], i[3]) {
			memcpy(k, i, sizeof(k));
			k[ax] += base;
			t_set_u8(y, k[0], k[1], k[2], k[3],
				 x->data[t_off(x, i[0], i[1], i[2], i[3])]);
		}
		base += x->dims[ax];
	}
	fill_pad_lanes(y);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */

static bool overlaps(const struct emu_tensor *a, const struct emu_tensor *b)
{
	uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;

	return a0 < b0 + b->bytes && b0 < a0 + a->bytes;
}

static void op_exec(const struct npu_prog_op *op, const struct operands *o)
{
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
		op_conv(op, o);
		break;
	case NPU_OP_FC:
	case NPU_OP_MATMUL:
		op_fc(op, o);
		break;
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		op_pool(op, o);
		break;
	case NPU_OP_ADD:
		op_add(op, o);
		break;
	case NPU_OP_CLIP:
		op_clip(op, o);
		break;
	case NPU_OP_PAD:
		op_pad(op, o);
		break;
	case NPU_OP_RESHAPE:
		op_reshape(o);
		break;
	case NPU_OP_TRANSPOSE:
		op_transpose(op, o);
		break;
	case NPU_OP_SLICE:
		op_slice(op, o);
		break;
	case NPU_OP_CONCAT:
		op_concat(op, o);
		break;
	}
}

int emu_op_run(const struct npu_prog_op *op, const struct emu_tensor *t)
{
	struct emu_tensor scratch_out;
	struct operands o;
	bool alias = false;
	unsigned int i;

	/* checked already: operands resolve (n_tensors only bounds indices) */
	if (get_operands(op, t, UINT32_MAX, &o) != NPU_HW_STATUS_OK)
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (o.in[i] && overlaps(o.in[i], o.out))
			alias = true;
	if (o.rq && overlaps(o.rq, o.out))
		alias = true;
	if (!alias) {
		op_exec(op, &o);
		return 0;
	}

	/* the output overlaps an operand: compute aside, then copy */
	scratch_out = *o.out;
	scratch_out.data = malloc(o.out->bytes ? o.out->bytes : 1);
	if (!scratch_out.data)
		return -ENOMEM;
	o.out = &scratch_out;
	op_exec(op, &o);
	memcpy(t[op->out].data, scratch_out.data, scratch_out.bytes);
	free(scratch_out.data);
	return 0;
}
