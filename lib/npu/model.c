// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * model.c - load and validate model files (Documentation/npu/model.rst).
 *
 * Everything is checked here, before a model can reach a device: the file
 * structure, the checksum, the slot plan, the I/O descriptors and the whole
 * program against program.rst and the slot plan.
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
	const struct npu_prog_hdr *ph;
	const struct npu_prog_tensor *t;
	const struct npu_prog_op *ops;
	const uint8_t *cblob;
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

/* byte size of a tensor already checked by check_tensor() */
static uint64_t t_bytes(const struct npu_prog_tensor *t)
{
	uint64_t n = 1;
	int i;

	if (t->layout == NPU_LAYOUT_NCHWC16)
		return (uint64_t)t->dims[0] * ((t->dims[3] + 15ull) / 16) *
		       t->dims[1] * t->dims[2] * 16;
	for (i = 0; i < 4; i++)
		n *= t->dims[i];
	return n * npu_prog_dtype_size(t->dtype);
}

static uint64_t t_count(const struct npu_prog_tensor *t)
{
	return (uint64_t)t->dims[0] * t->dims[1] * t->dims[2] * t->dims[3];
}

static const char *op_name(unsigned int op)
{
	static const char *const names[] = {
		"?", "CONV2D", "DWCONV2D", "PAD", "AVGPOOL", "MAXPOOL", "FC",
		"MATMUL", "ADD", "CLIP", "RESHAPE", "TRANSPOSE", "SLICE",
		"CONCAT",
	};

	return op <= NPU_OP_MAX ? names[op] : "?";
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

static int check_tensor(struct vctx *v, uint32_t i)
{
	const struct npu_prog_tensor *t = &v->t[i];
	const struct npu_model_file_hdr *h = v->hdr;
	uint64_t bytes;
	int es = npu_prog_dtype_size(t->dtype);
	unsigned int d;

	if (!es)
		return fail(v, -EINVAL, "program: tensor %u has bad dtype %u",
			    i, t->dtype);
	if (t->ndim < 1 || t->ndim > 4)
		return fail(v, -EINVAL, "program: tensor %u has bad ndim %u",
			    i, t->ndim);
	for (d = 0; d < 4; d++) {
		if (d < t->ndim && !t->dims[d])
			return fail(v, -EINVAL,
				    "program: tensor %u dim %u is 0", i, d);
		if (d >= t->ndim && t->dims[d] != 1)
			return fail(v, -EINVAL,
				    "program: tensor %u unused dim %u is not 1",
				    i, d);
	}
	if (t->layout != NPU_LAYOUT_PLAIN && t->layout != NPU_LAYOUT_NCHWC16)
		return fail(v, -EINVAL, "program: tensor %u has bad layout %u",
			    i, t->layout);
	if (t->layout == NPU_LAYOUT_NCHWC16 && (t->ndim != 4 || es != 1))
		return fail(v, -EINVAL,
			    "program: NCHWC16 tensor %u must be 4-D, 1 byte wide",
			    i);
	if ((t->dtype == NPU_DT_U8 && (t->zero_point < 0 || t->zero_point > 255)) ||
	    (t->dtype == NPU_DT_I8 && (t->zero_point < -128 || t->zero_point > 127)) ||
	    (t->dtype == NPU_DT_I32 && t->zero_point))
		return fail(v, -EINVAL,
			    "program: tensor %u zero point %d out of range",
			    i, t->zero_point);
	if (t->rsvd)
		return fail(v, -EINVAL, "program: tensor %u reserved field set",
			    i);
	if (t->buf >= h->n_slots)
		return fail(v, -EINVAL,
			    "program: tensor %u refers to slot %u but the model has %u slots",
			    i, t->buf, h->n_slots);
	if (t->offset % es)
		return fail(v, -EINVAL, "program: tensor %u offset %u misaligned",
			    i, t->offset);
	bytes = t_bytes(t);
	if (!in_range(t->offset, bytes, v->slots[t->buf].size))
		return fail(v, -EINVAL,
			    "program: tensor %u [%u, +%llu) lies outside slot %u (%llu bytes)",
			    i, t->offset, (unsigned long long)bytes, t->buf,
			    (unsigned long long)v->slots[t->buf].size);
	if (t->buf == 0 && !in_range(t->offset, bytes, h->const_size))
		return fail(v, -EINVAL,
			    "program: tensor %u in slot 0 lies outside the constant blob",
			    i);
	return 0;
}

static const struct npu_prog_tensor *opnd(struct vctx *v, uint32_t idx,
					  uint16_t ti, const char *what, int *ret)
{
	if (ti == NPU_PROG_NONE) {
		*ret = fail(v, -EINVAL, "program: op %u (%s) lacks %s", idx,
			    op_name(v->ops[idx].opcode), what);
		return NULL;
	}
	return &v->t[ti];
}

#define SHAPE(cond, ...) do {						\
	if (!(cond))							\
		return fail(v, -EINVAL, __VA_ARGS__);			\
} while (0)

static int check_act(struct vctx *v, uint32_t i,
		     const struct npu_prog_tensor *t, const char *what)
{
	SHAPE(t->dtype == NPU_DT_U8, "program: op %u %s is not u8", i, what);
	return 0;
}

static int check_weights(struct vctx *v, uint32_t i,
			 const struct npu_prog_tensor *t)
{
	SHAPE((t->dtype == NPU_DT_U8 || t->dtype == NPU_DT_I8) &&
	      t->layout == NPU_LAYOUT_PLAIN,
	      "program: op %u weights must be plain u8 or i8", i);
	return 0;
}

static int check_bias(struct vctx *v, uint32_t i, uint16_t bi, uint32_t n)
{
	const struct npu_prog_tensor *b;

	if (bi == NPU_PROG_NONE)
		return 0;
	b = &v->t[bi];
	SHAPE(b->dtype == NPU_DT_I32 && b->layout == NPU_LAYOUT_PLAIN &&
	      b->ndim == 1 && b->dims[0] == n,
	      "program: op %u bias must be plain 1-D i32 with %u elements",
	      i, n);
	return 0;
}

/* rq table: npairs_ok1 or npairs_ok2 pairs, values in range */
static int check_rq(struct vctx *v, uint32_t i, uint16_t ri, uint64_t ok1,
		    uint64_t ok2)
{
	const struct npu_prog_tensor *r;
	uint64_t n, k;

	if (ri == NPU_PROG_NONE)
		return fail(v, -EINVAL,
			    "program: op %u (%s) lacks a requantization table",
			    i, op_name(v->ops[i].opcode));
	r = &v->t[ri];
	n = t_count(r);
	SHAPE(r->dtype == NPU_DT_I32 && r->layout == NPU_LAYOUT_PLAIN &&
	      n % 2 == 0 && (n / 2 == ok1 || n / 2 == ok2),
	      "program: op %u requantization table has %llu values, want %llu or %llu pairs",
	      i, (unsigned long long)n, (unsigned long long)ok1,
	      (unsigned long long)ok2);
	SHAPE(r->buf == 0, "program: op %u requantization table is not a constant",
	      i);
	for (k = 0; k < n / 2; k++) {
		int32_t p[2];

		memcpy(p, v->cblob + r->offset + k * 8, 8);
		SHAPE(p[0] >= 0 && p[1] >= -31 && p[1] <= 30,
		      "program: op %u requantization pair %llu {%d, %d} out of range",
		      i, (unsigned long long)k, p[0], p[1]);
	}
	return 0;
}

static int win_dim(uint32_t in, uint32_t k, uint32_t s, uint32_t pa,
		   uint32_t pb, uint32_t *out)
{
	if (!k || !s || (uint64_t)in + pa + pb < k)
		return -1;
	*out = (uint32_t)(((uint64_t)in + pa + pb - k) / s + 1);
	return 0;
}

static int check_window(struct vctx *v, uint32_t i,
			const struct npu_prog_tensor *x,
			const struct npu_prog_tensor *y, uint32_t kh,
			uint32_t kw, bool pool)
{
	const struct npu_prog_op *op = &v->ops[i];
	uint32_t oh, ow;

	SHAPE(op->u.conv.sh >= 1 && op->u.conv.sw >= 1,
	      "program: op %u stride must be >= 1", i);
	SHAPE(op->u.conv.dh == 1 && op->u.conv.dw == 1,
	      "program: op %u dilation must be 1", i);
	SHAPE(x->ndim == 4 && y->ndim == 4 && x->dims[0] == y->dims[0],
	      "program: op %u input and output must be 4-D with equal N", i);
	SHAPE(!win_dim(x->dims[1], kh, op->u.conv.sh, op->u.conv.pt,
		       op->u.conv.pb, &oh) &&
	      !win_dim(x->dims[2], kw, op->u.conv.sw, op->u.conv.pl,
		       op->u.conv.pr, &ow),
	      "program: op %u window does not fit the input", i);
	SHAPE(y->dims[1] == oh && y->dims[2] == ow,
	      "program: op %u output is %ux%u, want %ux%u", i, y->dims[1],
	      y->dims[2], oh, ow);
	if (pool) {
		/* every window must cover at least one input position */
		SHAPE(op->u.conv.pt < kh && op->u.conv.pl < kw &&
		      (uint64_t)(oh - 1) * op->u.conv.sh < (uint64_t)x->dims[1] + op->u.conv.pt &&
		      (uint64_t)(ow - 1) * op->u.conv.sw < (uint64_t)x->dims[2] + op->u.conv.pl,
		      "program: op %u has a window outside the input", i);
	}
	return 0;
}

static bool same_dims(const struct npu_prog_tensor *a,
		      const struct npu_prog_tensor *b)
{
	return a->ndim == b->ndim && !memcmp(a->dims, b->dims, sizeof(a->dims));
}

static int check_op_shapes(struct vctx *v, uint32_t i)
{
	const struct npu_prog_op *op = &v->ops[i];
	const struct npu_prog_tensor *x = NULL, *w, *y = &v->t[op->out], *x1;
	int ret = 0;
	unsigned int d;

	if (op->opcode != NPU_OP_CONCAT) {
		x = opnd(v, i, op->in[0], "an input", &ret);
		if (!x)
			return ret;
	}
	switch (op->opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
		w = opnd(v, i, op->in[1], "weights", &ret);
		if (!w)
			return ret;
		if ((ret = check_act(v, i, x, "input")) ||
		    (ret = check_act(v, i, y, "output")) ||
		    (ret = check_weights(v, i, w)))
			return ret;
		SHAPE(w->ndim == 4, "program: op %u weights must be 4-D", i);
		if (op->opcode == NPU_OP_CONV2D)
			SHAPE(w->dims[3] == x->dims[3] && w->dims[0] == y->dims[3],
			      "program: op %u weights [%u,%u,%u,%u] do not match input C %u / output C %u",
			      i, w->dims[0], w->dims[1], w->dims[2], w->dims[3],
			      x->dims[3], y->dims[3]);
		else
			SHAPE(w->dims[0] == 1 && w->dims[3] == x->dims[3] &&
			      y->dims[3] == x->dims[3],
			      "program: op %u depthwise weights/channels mismatch", i);
		if ((ret = check_window(v, i, x, y, w->dims[1], w->dims[2], false)) ||
		    (ret = check_bias(v, i, op->in[2], y->dims[3])) ||
		    (ret = check_rq(v, i, op->rq, 1, y->dims[3])))
			return ret;
		break;
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
		if ((ret = check_act(v, i, x, "input")) ||
		    (ret = check_act(v, i, y, "output")))
			return ret;
		SHAPE(y->dims[3] == x->dims[3], "program: op %u changes C", i);
		if ((ret = check_window(v, i, x, y, op->u.conv.kh, op->u.conv.kw,
					true)))
			return ret;
		if (op->opcode == NPU_OP_AVGPOOL && op->rq != NPU_PROG_NONE &&
		    (ret = check_rq(v, i, op->rq, 1, 1)))
			return ret;
		break;
	case NPU_OP_FC:
	case NPU_OP_MATMUL:
		w = opnd(v, i, op->in[1], "weights", &ret);
		if (!w)
			return ret;
		if ((ret = check_act(v, i, x, "input")) ||
		    (ret = check_act(v, i, y, "output")) ||
		    (ret = check_weights(v, i, w)))
			return ret;
		SHAPE(x->ndim == 2 && w->ndim == 2 && y->ndim == 2 &&
		      x->layout == NPU_LAYOUT_PLAIN && y->layout == NPU_LAYOUT_PLAIN,
		      "program: op %u operands must be plain 2-D", i);
		if (op->opcode == NPU_OP_FC)
			SHAPE(w->dims[1] == x->dims[1] && w->dims[0] == y->dims[1] &&
			      x->dims[0] == y->dims[0],
			      "program: op %u shapes [%u,%u] x [%u,%u]' -> [%u,%u] mismatch",
			      i, x->dims[0], x->dims[1], w->dims[0], w->dims[1],
			      y->dims[0], y->dims[1]);
		else
			SHAPE(w->dims[0] == x->dims[1] && w->dims[1] == y->dims[1] &&
			      x->dims[0] == y->dims[0],
			      "program: op %u matmul shapes mismatch", i);
		if ((ret = check_bias(v, i, op->in[2], y->dims[1])) ||
		    (ret = check_rq(v, i, op->rq, 1, y->dims[1])))
			return ret;
		break;
	case NPU_OP_ADD:
		x1 = opnd(v, i, op->in[1], "a second input", &ret);
		if (!x1)
			return ret;
		if ((ret = check_act(v, i, x, "input")) ||
		    (ret = check_act(v, i, x1, "input")) ||
		    (ret = check_act(v, i, y, "output")))
			return ret;
		SHAPE(same_dims(x, y) && same_dims(x1, y),
		      "program: op %u operand dims differ", i);
		if ((ret = check_rq(v, i, op->rq, 3, 3)))
			return ret;
		break;
	case NPU_OP_CLIP:
		if ((ret = check_act(v, i, x, "input")) ||
		    (ret = check_act(v, i, y, "output")))
			return ret;
		SHAPE(same_dims(x, y), "program: op %u dims differ", i);
		break;
	case NPU_OP_PAD:
	case NPU_OP_RESHAPE:
	case NPU_OP_TRANSPOSE:
	case NPU_OP_SLICE:
		SHAPE(x->dtype == y->dtype && x->zero_point == y->zero_point,
		      "program: op %u must keep dtype and zero point", i);
		if (op->opcode == NPU_OP_RESHAPE) {
			SHAPE(t_count(x) == t_count(y),
			      "program: op %u reshapes %llu to %llu elements", i,
			      (unsigned long long)t_count(x),
			      (unsigned long long)t_count(y));
			break;
		}
		SHAPE(x->ndim == y->ndim, "program: op %u changes ndim", i);
		for (d = 0; d < 4; d++) {
			if (op->opcode == NPU_OP_PAD)
				SHAPE((uint64_t)x->dims[d] + op->u.pad.before[d] +
				      op->u.pad.after[d] == y->dims[d],
				      "program: op %u pad dim %u mismatch", i, d);
			else if (op->opcode == NPU_OP_SLICE)
				SHAPE((uint64_t)op->u.slice.begin[d] + y->dims[d] <=
				      x->dims[d],
				      "program: op %u slice dim %u out of range", i, d);
		}
		if (op->opcode == NPU_OP_TRANSPOSE) {
			unsigned int seen = 0;

			for (d = 0; d < x->ndim; d++) {
				uint8_t p = op->u.transpose.perm[d];

				SHAPE(p < x->ndim && !(seen & (1u << p)) &&
				      y->dims[d] == x->dims[p],
				      "program: op %u bad permutation", i);
				seen |= 1u << p;
			}
		}
		break;
	case NPU_OP_CONCAT: {
		uint32_t ax = op->u.concat.axis, sum = 0;
		unsigned int k, n = 0;

		for (k = 0; k < 3; k++) {
			if (op->in[k] == NPU_PROG_NONE)
				break;
			x = &v->t[op->in[k]];
			SHAPE(x->dtype == y->dtype && x->zero_point == y->zero_point &&
			      x->ndim == y->ndim && ax < y->ndim,
			      "program: op %u concat operands mismatch", i);
			for (d = 0; d < 4; d++)
				SHAPE(d == ax || x->dims[d] == y->dims[d],
				      "program: op %u concat dims mismatch", i);
			sum += x->dims[ax];
			n++;
		}
		SHAPE(n >= 2 && (k == 3 || op->in[2] == NPU_PROG_NONE) &&
		      sum == y->dims[ax],
		      "program: op %u concat needs 2 or 3 inputs summing to the output",
		      i);
		break;
	}
	}
	return 0;
}

static bool uses_act(unsigned int opc)
{
	return opc <= NPU_OP_CLIP && opc != NPU_OP_PAD;
}

#define U_RSVD(m) { offsetof(struct npu_prog_op, u.m.rsvd), \
		   sizeof(((struct npu_prog_op *)NULL)->u.m.rsvd) }

/*
 * program.rst, "Operands" and "Validation order" 4b, per opcode: how many
 * of in[] it uses (the others must be NONE; the used ones are checked with
 * the shapes), and where the rsvd bytes of the u member it uses are.
 */
static const struct {
	uint8_t n_in;
	struct { size_t off, len; } rsvd;
} op_layout[NPU_OP_MAX + 1] = {
	[NPU_OP_CONV2D]    = { 3, U_RSVD(conv) },
	[NPU_OP_DWCONV2D]  = { 3, U_RSVD(conv) },
	[NPU_OP_PAD]       = { 1, U_RSVD(pad) },
	[NPU_OP_AVGPOOL]   = { 1, U_RSVD(conv) },
	[NPU_OP_MAXPOOL]   = { 1, U_RSVD(conv) },
	[NPU_OP_FC]        = { 3, { 0, 0 } },
	[NPU_OP_MATMUL]    = { 3, { 0, 0 } },
	[NPU_OP_ADD]       = { 2, { 0, 0 } },
	[NPU_OP_CLIP]      = { 1, { 0, 0 } },
	[NPU_OP_RESHAPE]   = { 1, { 0, 0 } },
	[NPU_OP_TRANSPOSE] = { 1, U_RSVD(transpose) },
	[NPU_OP_SLICE]     = { 1, U_RSVD(slice) },
	[NPU_OP_CONCAT]    = { 3, U_RSVD(concat) },
};

/* unused in[] NONE and u's rsvd bytes 0; @op's opcode is known */
static int check_op_fields(struct vctx *v, uint32_t i)
{
	const struct npu_prog_op *op = &v->ops[i];
	const uint8_t *rsvd = (const uint8_t *)op + op_layout[op->opcode].rsvd.off;
	size_t k;

	for (k = op_layout[op->opcode].n_in; k < 3; k++)
		if (op->in[k] != NPU_PROG_NONE)
			return fail(v, -EINVAL,
				    "program: op %u (%s) does not use input %zu, which must be NONE",
				    i, op_name(op->opcode), k);
	for (k = 0; k < op_layout[op->opcode].rsvd.len; k++)
		if (rsvd[k])
			return fail(v, -EINVAL,
				    "program: op %u reserved field set", i);
	return 0;
}

static int check_op(struct vctx *v, uint32_t i)
{
	const struct npu_prog_op *op = &v->ops[i];
	uint32_t nt = v->ph->n_tensors;
	const struct npu_prog_tensor *y;
	unsigned int k;
	int ret;

	if (op->opcode < 1 || op->opcode > NPU_OP_MAX)
		return fail(v, -EINVAL, "program: op %u has unknown opcode %u",
			    i, op->opcode);
	if (op->flags || op->rsvd)
		return fail(v, -EINVAL, "program: op %u reserved field set", i);
	if ((ret = check_op_fields(v, i)))
		return ret;
	for (k = 0; k < 3; k++)
		if (op->in[k] != NPU_PROG_NONE && op->in[k] >= nt)
			return fail(v, -EINVAL,
				    "program: op %u input %u is tensor %u of %u",
				    i, k, op->in[k], nt);
	if (op->out >= nt)
		return fail(v, -EINVAL, "program: op %u output is tensor %u of %u",
			    i, op->out, nt);
	if (op->rq != NPU_PROG_NONE && op->rq >= nt)
		return fail(v, -EINVAL, "program: op %u rq is tensor %u of %u",
			    i, op->rq, nt);
	y = &v->t[op->out];
	k = v->slots[y->buf].kind;
	if (k != NPU_MODEL_SLOT_OUTPUT && k != NPU_MODEL_SLOT_SCRATCH)
		return fail(v, -EINVAL,
			    "program: op %u writes slot %u, which is not an output or scratch slot",
			    i, y->buf);
	for (k = 0; k < 3; k++) {
		const struct npu_prog_tensor *x;

		if (op->in[k] == NPU_PROG_NONE)
			continue;
		x = &v->t[op->in[k]];
		if (x->buf == y->buf &&
		    overlap(x->offset, t_bytes(x), y->offset, t_bytes(y)))
			return fail(v, -EINVAL,
				    "program: op %u output overlaps its input %u",
				    i, k);
	}
	if (uses_act(op->opcode)) {
		int lo = y->dtype == NPU_DT_I8 ? -128 : 0;
		int hi = y->dtype == NPU_DT_I8 ? 127 : 255;

		if (op->act_min > op->act_max || op->act_min < lo ||
		    op->act_max > hi)
			return fail(v, -EINVAL,
				    "program: op %u activation range [%d, %d] invalid",
				    i, op->act_min, op->act_max);
	}
	return check_op_shapes(v, i);
}

static int check_program(struct vctx *v)
{
	const struct npu_model_file_hdr *h = v->hdr;
	const struct npu_prog_hdr *ph;
	uint64_t tb, ob;
	uint32_t i;
	int ret;

	if (h->prog_size < sizeof(*ph))
		return fail(v, -EINVAL, "program: %llu bytes is too small",
			    (unsigned long long)h->prog_size);
	ph = (const struct npu_prog_hdr *)v->prog;
	v->ph = ph;
	if (ph->magic != NPU_PROG_MAGIC)
		return fail(v, -EINVAL, "program: bad magic 0x%08x", ph->magic);
	if (ph->version != NPU_PROG_VERSION)
		return fail(v, -EINVAL, "program: unsupported version %u",
			    ph->version);
	if (ph->hdr_size != sizeof(*ph) || ph->rsvd)
		return fail(v, -EINVAL, "program: bad header size or reserved field");
	if (ph->size > h->prog_size || ph->size < sizeof(*ph))
		return fail(v, -EINVAL, "program: size %u outside [%zu, %llu]",
			    ph->size, sizeof(*ph),
			    (unsigned long long)h->prog_size);
	if (!ph->n_tensors || ph->n_tensors > NPU_PROG_MAX_TENSORS ||
	    !ph->n_ops || ph->n_ops > NPU_PROG_MAX_OPS)
		return fail(v, -EINVAL, "program: %u tensors / %u ops out of range",
			    ph->n_tensors, ph->n_ops);
	tb = (uint64_t)ph->n_tensors * sizeof(struct npu_prog_tensor);
	ob = (uint64_t)ph->n_ops * sizeof(struct npu_prog_op);
	if (ph->tensors_off % 8 || ph->ops_off % 8 ||
	    ph->tensors_off < sizeof(*ph) || ph->ops_off < sizeof(*ph) ||
	    !in_range(ph->tensors_off, tb, ph->size) ||
	    !in_range(ph->ops_off, ob, ph->size) ||
	    overlap(ph->tensors_off, tb, ph->ops_off, ob))
		return fail(v, -EINVAL,
			    "program: tensor/operator tables misplaced");
	v->t = (const struct npu_prog_tensor *)(v->prog + ph->tensors_off);
	v->ops = (const struct npu_prog_op *)(v->prog + ph->ops_off);
	for (i = 0; i < ph->n_tensors; i++)
		if ((ret = check_tensor(v, i)))
			return ret;
	for (i = 0; i < ph->n_ops; i++)
		if ((ret = check_op(v, i)))
			return ret;
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
		o->dev_size = t_bytes(t);
		/* NPU_LAYOUT_NCHWC16 io must be 4-D: checked by check_tensor */
	}
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
	if (h->flags || h->rsvd[0] || h->rsvd[1] || h->rsvd[2] || h->rsvd[3])
		return fail(v, -EINVAL, "reserved header field set");
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
		};
		unsigned int a, b;

		for (a = 0; a < 5; a++) {
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

NPU_EXPORT
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
	if (size)
		free((void *)v.file);
	if (ret) {
		free(m);
		return ret;
	}
	*model = m;
	return 0;
}

NPU_EXPORT
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

NPU_EXPORT
void npu_model_free(struct npu_model *model)
{
	if (!model)
		return;
	free(model->image);
	free(model);
}

NPU_EXPORT
const char *npu_model_name(const struct npu_model *model)
{
	return model->name;
}

NPU_EXPORT
unsigned int npu_model_num_inputs(const struct npu_model *model)
{
	return model->n_inputs;
}

NPU_EXPORT
unsigned int npu_model_num_outputs(const struct npu_model *model)
{
	return model->n_outputs;
}

NPU_EXPORT
const struct npu_tensor_desc *npu_model_input(const struct npu_model *model,
					      unsigned int idx)
{
	return idx < model->n_inputs ? &model->io[idx] : NULL;
}

NPU_EXPORT
const struct npu_tensor_desc *npu_model_output(const struct npu_model *model,
					       unsigned int idx)
{
	return idx < model->n_outputs ? &model->io[model->n_inputs + idx] : NULL;
}

NPU_EXPORT
unsigned int npu_model_num_slots(const struct npu_model *model)
{
	return model->n_slots;
}

NPU_EXPORT
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

NPU_EXPORT
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
