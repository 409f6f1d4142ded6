/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ops_build.h - build NPU programs in host memory (bench-ops and host tests).
 *
 * A tiny builder: it owns up to NPU_HW_MAX_BUFS slots of host memory, puts
 * the program at the start of slot 0 and bump-allocates tensors (64-byte
 * aligned) in the slots. Not used by the device itself.
 */
#ifndef NPU_EMU_OPS_BUILD_H
#define NPU_EMU_OPS_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npu/npu_program.h"
#include "npu_prog_build.h"
#include "program.h"

#define OB_MAX_TENSORS	256
#define OB_MAX_OPS	128
/* bytes reserved for the program at the start of slot 0 */
#define OB_PROG_BYTES	16448

struct ob {
	struct npu_prog_slot slots[NPU_HW_MAX_BUFS];
	uint32_t nslots;
	uint64_t used[NPU_HW_MAX_BUFS];
	struct npu_prog_hdr hdr;
	struct npu_prog_tensor t[OB_MAX_TENSORS];
	struct npu_prog_op op[OB_MAX_OPS];
	uint32_t nt, nop;
	uint32_t prog_size;
};

/* @nslots slots of @size bytes each, zeroed; returns 0 or -1 */
static inline int ob_init(struct ob *b, uint32_t nslots, uint32_t size)
{
	uint32_t i;

	memset(b, 0, sizeof(*b));
	b->nslots = nslots;
	for (i = 0; i < nslots; i++) {
		b->slots[i].base = calloc(1, size ? size : 1);
		b->slots[i].size = size;
		if (!b->slots[i].base)
			return -1;
	}
	b->used[0] = OB_PROG_BYTES;
	return 0;
}

static inline void ob_free(struct ob *b)
{
	uint32_t i;

	for (i = 0; i < b->nslots; i++)
		free(b->slots[i].base);
	memset(b, 0, sizeof(*b));
}

static inline uint64_t ob_bytes(const struct npu_prog_tensor *t)
{
	return npb_tensor_bytes(t);
}

/* a tensor in slot @buf; unused dims must be passed as 1 */
static inline uint16_t ob_tensor(struct ob *b, uint8_t buf, uint8_t dtype,
				 uint8_t layout, uint8_t ndim, uint32_t d0,
				 uint32_t d1, uint32_t d2, uint32_t d3,
				 int32_t zp)
{
	struct npu_prog_tensor *t = &b->t[b->nt];
	const uint32_t dims[4] = { d0, d1, d2, d3 };

	b->used[buf] = (b->used[buf] + 63) & ~63ull;
	npb_tensor(t, dtype, layout, buf, (uint32_t)b->used[buf], ndim, dims,
		   zp);
	b->used[buf] += ob_bytes(t);
	/* a zeroed slot holds zero points nowhere: fill with the zero point */
	if (b->used[buf] <= b->slots[buf].size && dtype != NPU_DT_I32)
		memset(b->slots[buf].base + t->offset, (uint8_t)zp,
		       ob_bytes(t));
	return (uint16_t)b->nt++;
}

/* shorthands */
static inline uint16_t ob_u8(struct ob *b, uint8_t layout, uint8_t ndim,
			     uint32_t d0, uint32_t d1, uint32_t d2,
			     uint32_t d3, int32_t zp)
{
	return ob_tensor(b, 1 % b->nslots, NPU_DT_U8, layout, ndim, d0, d1,
			 d2, d3, zp);
}

static inline uint8_t *ob_data(struct ob *b, uint16_t i)
{
	return b->slots[b->t[i].buf].base + b->t[i].offset;
}

/* byte offset of logical (i0, i1, i2, i3) of tensor @i */
static inline uint64_t ob_off(const struct ob *b, uint16_t i, uint32_t i0,
			      uint32_t i1, uint32_t i2, uint32_t i3)
{
	const struct npu_prog_tensor *t = &b->t[i];
	const uint32_t *d = t->dims;
	uint64_t cb = (d[3] + 15) / 16;

	if (t->layout == NPU_LAYOUT_NCHWC16)
		return ((((uint64_t)i0 * cb + i3 / 16) * d[1] + i1) * d[2] +
			i2) * 16 + i3 % 16;
	return ((((uint64_t)i0 * d[1] + i1) * d[2] + i2) * d[3] + i3) *
	       (t->dtype == NPU_DT_I32 ? 4 : 1);
}

static inline void ob_set(struct ob *b, uint16_t i, uint32_t i0, uint32_t i1,
			  uint32_t i2, uint32_t i3, int32_t v)
{
	uint8_t *p = ob_data(b, i) + ob_off(b, i, i0, i1, i2, i3);

	if (b->t[i].dtype == NPU_DT_I32)
		memcpy(p, &v, 4);
	else
		*p = (uint8_t)v;
}

static inline int32_t ob_get(struct ob *b, uint16_t i, uint32_t i0,
			     uint32_t i1, uint32_t i2, uint32_t i3)
{
	uint8_t *p = ob_data(b, i) + ob_off(b, i, i0, i1, i2, i3);
	int32_t v;

	if (b->t[i].dtype == NPU_DT_I32) {
		memcpy(&v, p, 4);
		return v;
	}
	return b->t[i].dtype == NPU_DT_I8 ? (int8_t)*p : *p;
}

/* fill a 1-D view of tensor @i (row-major logical order) from @v */
static inline void ob_fill(struct ob *b, uint16_t i, const int32_t *v)
{
	const uint32_t *d = b->t[i].dims;
	uint32_t a, c, e, f;
	uint64_t k = 0;

	for (a = 0; a < d[0]; a++)
		for (c = 0; c < d[1]; c++)
			for (e = 0; e < d[2]; e++)
				for (f = 0; f < d[3]; f++)
					ob_set(b, i, a, c, e, f, v[k++]);
}

/* an NPU_DT_I32 table of @n pairs {m, s} */
static inline uint16_t ob_rq(struct ob *b, uint32_t n, const int32_t *pairs)
{
	uint16_t i = ob_tensor(b, 0, NPU_DT_I32, NPU_LAYOUT_PLAIN, 1, 2 * n,
			       1, 1, 1, 0);

	if (b->used[0] <= b->slots[0].size)
		memcpy(ob_data(b, i), pairs, 8ull * n);
	return i;
}

/* an NPU_DT_I32 bias of @n values */
static inline uint16_t ob_bias(struct ob *b, uint32_t n, const int32_t *v)
{
	uint16_t i = ob_tensor(b, 0, NPU_DT_I32, NPU_LAYOUT_PLAIN, 1, n, 1, 1,
			       1, 0);

	if (b->used[0] <= b->slots[0].size)
		memcpy(ob_data(b, i), v, 4ull * n);
	return i;
}

static inline struct npu_prog_op *ob_op(struct ob *b, uint16_t opcode,
					uint16_t in0, uint16_t in1,
					uint16_t in2, uint16_t out,
					uint16_t rq, int32_t amin,
					int32_t amax)
{
	struct npu_prog_op *op = &b->op[b->nop++];

	npb_op(op, opcode, in0, in1, in2, out, rq, amin, amax);
	return op;
}

static inline struct npu_prog_op *ob_conv_op(struct ob *b, uint16_t opcode,
					     uint16_t x, uint16_t w,
					     uint16_t bias, uint16_t y,
					     uint16_t rq, uint8_t s,
					     uint8_t pad)
{
	struct npu_prog_op *op = ob_op(b, opcode, x, w, bias, y, rq, 0, 255);

	npb_conv(op, 0, 0, s, s, pad, pad, pad, pad);
	return op;
}

/* write header and tables at the start of slot 0; returns the size */
static inline uint32_t ob_finish(struct ob *b)
{
	b->prog_size = (uint32_t)npb_write(b->slots[0].base, b->t, b->nt,
					   b->op, b->nop);
	memcpy(&b->hdr, b->slots[0].base, sizeof(b->hdr));
	return b->prog_size;
}

static inline int ob_run(struct ob *b, const struct npu_prog_hooks *hooks,
			 uint16_t *op_index)
{
	ob_finish(b);
	return npu_prog_run(b->slots, b->nslots, 0, 0, b->prog_size, hooks,
			    op_index);
}

#endif /* NPU_EMU_OPS_BUILD_H */
