/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_progbuild.h - build NPU programs (Documentation/npu/program.rst) in
 * host memory: the one program builder of the tools and the tests.
 *
 * It fills struct npu_prog_tensor and struct npu_prog_op and lays a program
 * out as header, tensor table, operator table (progbuild_fill_*,
 * progbuild_write), and keeps a program under construction in a struct
 * progbuild: tensors placed by the caller (progbuild_tensor_at) or
 * allocated, 64-byte aligned, in slots of host memory the builder owns
 * (progbuild_init_slots, progbuild_tensor), whose program goes at the start
 * of slot 0. With the emulator's program.h included first it also runs the
 * program on the emulator's interpreter (progbuild_run).
 *
 * Used by the model generator (tools/npu-model), the operator benchmark
 * (tools/npu-emu/bench-ops) and the host tests. It computes nothing an
 * operator computes: the device model and the host reference (lib/npuref)
 * stay independent of each other. Header-only; no global state; a struct
 * progbuild belongs to one thread at a time.
 */
#ifndef NPU_PROGBUILD_H
#define NPU_PROGBUILD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/npu.h>	/* NPU_MAX_JOB_BUFS */

#include "npu/npu_program.h"

/* ---- descriptors and layout ---- */

/* storage bytes of a tensor for its layout; 0 when beyond 64 bits */
static inline uint64_t progbuild_bytes(const struct npu_prog_tensor *t)
{
	uint64_t n;

	return npu_prog_tensor_bytes(t, &n) ? n : 0;
}

/**
 * progbuild_fill_tensor() - fill a tensor descriptor
 * @t: out: the descriptor; reserved fields are zeroed
 * @dtype: NPU_DT_*
 * @layout: NPU_LAYOUT_*
 * @buf: buffer slot
 * @offset: byte offset in the slot
 * @ndim: used dims
 * @dims: all four dims, copied as they are (unused ones are 1 in a valid
 *	tensor; tests pass other values on purpose)
 * @zp: zero point
 */
static inline void progbuild_fill_tensor(struct npu_prog_tensor *t,
					 uint8_t dtype, uint8_t layout,
					 uint8_t buf, uint32_t offset,
					 uint8_t ndim, const uint32_t dims[4],
					 int32_t zp)
{
	*t = (struct npu_prog_tensor){
		.dtype = dtype, .ndim = ndim, .layout = layout, .buf = buf,
		.offset = offset, .zero_point = zp,
	};
	memcpy(t->dims, dims, sizeof(t->dims));
}

/**
 * progbuild_fill_op() - fill an operator
 * @op: out: the operator; flags, rsvd and @op->u are zeroed
 * @opcode: NPU_OP_*
 * @in0: in[0], a tensor index or NPU_PROG_NONE
 * @in1: in[1]
 * @in2: in[2]
 * @out: output tensor
 * @rq: requantization table or NPU_PROG_NONE
 * @amin: act_min
 * @amax: act_max
 */
static inline void progbuild_fill_op(struct npu_prog_op *op, uint16_t opcode,
				     uint16_t in0, uint16_t in1, uint16_t in2,
				     uint16_t out, uint16_t rq, int32_t amin,
				     int32_t amax)
{
	*op = (struct npu_prog_op){
		.opcode = opcode, .in = { in0, in1, in2 }, .out = out,
		.act_min = amin, .act_max = amax, .rq = rq,
	};
}

/**
 * progbuild_conv() - set the window of a CONV2D, DWCONV2D or pool operator
 * @op: the operator
 * @kh: kernel height (pools; convolutions take it from the weights)
 * @kw: kernel width
 * @sh: vertical stride
 * @sw: horizontal stride
 * @pt: padding top
 * @pl: padding left
 * @pb: padding bottom
 * @pr: padding right
 *
 * Dilation is 1, the only value v1 allows.
 */
static inline void progbuild_conv(struct npu_prog_op *op, uint8_t kh,
				  uint8_t kw, uint8_t sh, uint8_t sw,
				  uint8_t pt, uint8_t pl, uint8_t pb,
				  uint8_t pr)
{
	op->u.conv.kh = kh;
	op->u.conv.kw = kw;
	op->u.conv.sh = sh;
	op->u.conv.sw = sw;
	op->u.conv.pt = pt;
	op->u.conv.pl = pl;
	op->u.conv.pb = pb;
	op->u.conv.pr = pr;
	op->u.conv.dh = 1;
	op->u.conv.dw = 1;
}

/* bytes of a program of @nt tensors and @nops operators */
static inline size_t progbuild_size_for(size_t nt, size_t nops)
{
	return sizeof(struct npu_prog_hdr) +
	       nt * sizeof(struct npu_prog_tensor) +
	       nops * sizeof(struct npu_prog_op);
}

/**
 * progbuild_write() - lay out a program: header, tensor table, operators
 * @dst: out: progbuild_size_for(@nt, @nops) bytes
 * @t: the tensors
 * @nt: entries of @t
 * @ops: the operators
 * @nops: entries of @ops
 *
 * The tables follow the header back to back (8-byte aligned, as the sizes
 * of the entries are multiples of 8); hdr.size covers exactly the three.
 *
 * Return: bytes written.
 */
static inline size_t progbuild_write(void *dst,
				     const struct npu_prog_tensor *t,
				     size_t nt, const struct npu_prog_op *ops,
				     size_t nops)
{
	struct npu_prog_hdr h;
	uint8_t *d = dst;

	memset(&h, 0, sizeof(h));
	h.magic = NPU_PROG_MAGIC;
	h.version = NPU_PROG_VERSION;
	h.hdr_size = sizeof(h);
	h.n_tensors = (uint32_t)nt;
	h.n_ops = (uint32_t)nops;
	h.tensors_off = sizeof(h);
	h.ops_off = (uint32_t)(sizeof(h) + nt * sizeof(*t));
	h.size = (uint32_t)progbuild_size_for(nt, nops);
	memcpy(d, &h, sizeof(h));
	if (nt)
		memcpy(d + h.tensors_off, t, nt * sizeof(*t));
	if (nops)
		memcpy(d + h.ops_off, ops, nops * sizeof(*ops));
	return h.size;
}

/* little-endian int32 @v at index @i of @dst (rq tables, bias) */
static inline void progbuild_put32(void *dst, unsigned int i, int32_t v)
{
	uint8_t *d = (uint8_t *)dst + 4 * i;
	uint32_t u = (uint32_t)v;

	d[0] = u & 0xff;
	d[1] = (u >> 8) & 0xff;
	d[2] = (u >> 16) & 0xff;
	d[3] = (u >> 24) & 0xff;
}

/* ---- a program under construction ---- */

#define PROGBUILD_MAX_TENSORS	256
#define PROGBUILD_MAX_OPS	128
/* bytes reserved for the program at the start of slot 0 (owned slots) */
#define PROGBUILD_PROG_BYTES	16448

/** struct progbuild_slot - one buffer slot in host memory */
struct progbuild_slot {
	uint8_t *base;
	uint32_t size;
};

/**
 * struct progbuild - a program being built
 * @t: the tensor table, @nt entries
 * @op: the operator table, @nop entries
 * @nt: tensors
 * @nop: operators
 * @slots: with progbuild_init_slots(): the slots' memory, owned
 * @nslots: slots in @slots
 * @used: bytes allocated in each slot
 * @hdr: after progbuild_finish(): the header written
 * @prog_size: after progbuild_finish(): the program's bytes
 */
struct progbuild {
	struct npu_prog_tensor t[PROGBUILD_MAX_TENSORS];
	struct npu_prog_op op[PROGBUILD_MAX_OPS];
	uint32_t nt, nop;
	struct progbuild_slot slots[NPU_MAX_JOB_BUFS];
	uint32_t nslots;
	uint64_t used[NPU_MAX_JOB_BUFS];
	struct npu_prog_hdr hdr;
	uint32_t prog_size;
};

/* an empty program whose tensors the caller places (progbuild_tensor_at) */
static inline void progbuild_init(struct progbuild *b)
{
	memset(b, 0, sizeof(*b));
}

/*
 * An empty program with @nslots slots of @size bytes each, zeroed, owned by
 * @b; its tensors are allocated in them (progbuild_tensor). 0 or -1.
 */
static inline int progbuild_init_slots(struct progbuild *b, uint32_t nslots,
				       uint32_t size)
{
	uint32_t i;

	progbuild_init(b);
	b->nslots = nslots;
	for (i = 0; i < nslots; i++) {
		b->slots[i].base = calloc(1, size ? size : 1);
		b->slots[i].size = size;
		if (!b->slots[i].base)
			return -1;
	}
	b->used[0] = PROGBUILD_PROG_BYTES;
	return 0;
}

/* free the slots of progbuild_init_slots() */
static inline void progbuild_free(struct progbuild *b)
{
	uint32_t i;

	for (i = 0; i < b->nslots; i++)
		free(b->slots[i].base);
	memset(b, 0, sizeof(*b));
}

/* add a tensor at @offset of slot @buf; returns its index */
static inline uint16_t progbuild_tensor_at(struct progbuild *b, uint8_t dtype,
					   uint8_t layout, uint8_t buf,
					   uint32_t offset, uint8_t ndim,
					   uint32_t d0, uint32_t d1,
					   uint32_t d2, uint32_t d3,
					   int32_t zp)
{
	const uint32_t dims[4] = { d0, d1, d2, d3 };

	progbuild_fill_tensor(&b->t[b->nt], dtype, layout, buf, offset, ndim,
			      dims, zp);
	return (uint16_t)b->nt++;
}

/*
 * Add a tensor allocated in owned slot @buf, filled with its zero point
 * (a zeroed slot holds zero points nowhere); unused dims must be 1.
 */
static inline uint16_t progbuild_tensor(struct progbuild *b, uint8_t buf,
					uint8_t dtype, uint8_t layout,
					uint8_t ndim, uint32_t d0, uint32_t d1,
					uint32_t d2, uint32_t d3, int32_t zp)
{
	const struct npu_prog_tensor *t;
	uint16_t i;

	b->used[buf] = (b->used[buf] + 63) & ~63ull;
	i = progbuild_tensor_at(b, dtype, layout, buf, (uint32_t)b->used[buf],
				ndim, d0, d1, d2, d3, zp);
	t = &b->t[i];
	b->used[buf] += progbuild_bytes(t);
	if (b->used[buf] <= b->slots[buf].size && dtype != NPU_DT_I32)
		memset(b->slots[buf].base + t->offset, (uint8_t)zp,
		       progbuild_bytes(t));
	return i;
}

/* a u8 activation in slot 1 (slot 0 when there is one slot) */
static inline uint16_t progbuild_u8(struct progbuild *b, uint8_t layout,
				    uint8_t ndim, uint32_t d0, uint32_t d1,
				    uint32_t d2, uint32_t d3, int32_t zp)
{
	return progbuild_tensor(b, 1 % b->nslots, NPU_DT_U8, layout, ndim, d0,
				d1, d2, d3, zp);
}

/* first byte of tensor @i in the owned slots */
static inline uint8_t *progbuild_data(struct progbuild *b, uint16_t i)
{
	return b->slots[b->t[i].buf].base + b->t[i].offset;
}

/* byte offset of logical (i0, i1, i2, i3) of tensor @i */
static inline uint64_t progbuild_off(const struct progbuild *b, uint16_t i,
				     uint32_t i0, uint32_t i1, uint32_t i2,
				     uint32_t i3)
{
	const struct npu_prog_tensor *t = &b->t[i];
	const uint32_t *d = t->dims;
	uint64_t cb = (d[3] + 15) / 16;

	if (t->layout == NPU_LAYOUT_NCHWC16)
		return ((((uint64_t)i0 * cb + i3 / 16) * d[1] + i1) * d[2] +
			i2) * 16 + i3 % 16;
	return ((((uint64_t)i0 * d[1] + i1) * d[2] + i2) * d[3] + i3) *
	       npu_prog_dtype_size(t->dtype);
}

static inline void progbuild_set(struct progbuild *b, uint16_t i, uint32_t i0,
				 uint32_t i1, uint32_t i2, uint32_t i3,
				 int32_t v)
{
	uint8_t *p = progbuild_data(b, i) + progbuild_off(b, i, i0, i1, i2, i3);

	if (b->t[i].dtype == NPU_DT_I32)
		memcpy(p, &v, 4);
	else
		*p = (uint8_t)v;
}

static inline int32_t progbuild_get(struct progbuild *b, uint16_t i,
				    uint32_t i0, uint32_t i1, uint32_t i2,
				    uint32_t i3)
{
	uint8_t *p = progbuild_data(b, i) + progbuild_off(b, i, i0, i1, i2, i3);
	int32_t v;

	if (b->t[i].dtype == NPU_DT_I32) {
		memcpy(&v, p, 4);
		return v;
	}
	return b->t[i].dtype == NPU_DT_I8 ? (int8_t)*p : *p;
}

/* fill tensor @i in row-major logical order from @v */
static inline void progbuild_fill(struct progbuild *b, uint16_t i,
				  const int32_t *v)
{
	const uint32_t *d = b->t[i].dims;
	uint32_t a, c, e, f;
	uint64_t k = 0;

	for (a = 0; a < d[0]; a++)
		for (c = 0; c < d[1]; c++)
			for (e = 0; e < d[2]; e++)
				for (f = 0; f < d[3]; f++)
					progbuild_set(b, i, a, c, e, f, v[k++]);
}

/* an NPU_DT_I32 table of @n pairs {m, s} in slot 0 */
static inline uint16_t progbuild_rq(struct progbuild *b, uint32_t n,
				    const int32_t *pairs)
{
	uint16_t i = progbuild_tensor(b, 0, NPU_DT_I32, NPU_LAYOUT_PLAIN, 1,
				      2 * n, 1, 1, 1, 0);

	if (b->used[0] <= b->slots[0].size)
		memcpy(progbuild_data(b, i), pairs, 8ull * n);
	return i;
}

/* an NPU_DT_I32 bias of @n values in slot 0 */
static inline uint16_t progbuild_bias(struct progbuild *b, uint32_t n,
				      const int32_t *v)
{
	uint16_t i = progbuild_tensor(b, 0, NPU_DT_I32, NPU_LAYOUT_PLAIN, 1, n,
				      1, 1, 1, 0);

	if (b->used[0] <= b->slots[0].size)
		memcpy(progbuild_data(b, i), v, 4ull * n);
	return i;
}

/* add an operator; returns it for the caller to fill u */
static inline struct npu_prog_op *progbuild_op(struct progbuild *b,
					       uint16_t opcode, uint16_t in0,
					       uint16_t in1, uint16_t in2,
					       uint16_t out, uint16_t rq,
					       int32_t amin, int32_t amax)
{
	struct npu_prog_op *op = &b->op[b->nop++];

	progbuild_fill_op(op, opcode, in0, in1, in2, out, rq, amin, amax);
	return op;
}

/* a convolution with stride @s and padding @pad on every side */
static inline struct npu_prog_op *progbuild_conv_op(struct progbuild *b,
						    uint16_t opcode,
						    uint16_t x, uint16_t w,
						    uint16_t bias, uint16_t y,
						    uint16_t rq, uint8_t s,
						    uint8_t pad)
{
	struct npu_prog_op *op = progbuild_op(b, opcode, x, w, bias, y, rq, 0,
					      255);

	progbuild_conv(op, 0, 0, s, s, pad, pad, pad, pad);
	return op;
}

/* bytes progbuild_emit() writes */
static inline size_t progbuild_size(const struct progbuild *b)
{
	return progbuild_size_for(b->nt, b->nop);
}

/* write the program to @dst (progbuild_size() bytes); returns its size */
static inline size_t progbuild_emit(const struct progbuild *b, void *dst)
{
	return progbuild_write(dst, b->t, b->nt, b->op, b->nop);
}

/* write the program at the start of owned slot 0; returns its size */
static inline uint32_t progbuild_finish(struct progbuild *b)
{
	b->prog_size = (uint32_t)progbuild_emit(b, b->slots[0].base);
	memcpy(&b->hdr, b->slots[0].base, sizeof(b->hdr));
	return b->prog_size;
}

#ifdef NPU_EMU_PROGRAM_H
/* ---- on the emulator's interpreter (tools/npu-emu/program.h) ---- */

_Static_assert(NPU_HW_MAX_BUFS == NPU_MAX_JOB_BUFS,
	       "the device takes every job's buffers");

/* emu_prog_run() over the owned slots, with the program where the caller
 * says (tests give bad placements on purpose)
 */
static inline int progbuild_run_at(const struct progbuild *b,
				   uint32_t prog_slot, uint32_t prog_offset,
				   uint32_t prog_size,
				   const struct emu_prog_hooks *hooks,
				   uint16_t *op_index)
{
	struct emu_prog_slot s[NPU_HW_MAX_BUFS];
	uint32_t i;

	for (i = 0; i < b->nslots; i++) {
		s[i].base = b->slots[i].base;
		s[i].size = b->slots[i].size;
	}
	return emu_prog_run(s, b->nslots, prog_slot, prog_offset, prog_size,
			    hooks, op_index);
}

/* progbuild_finish(), then emu_prog_run() on the program in slot 0 */
static inline int progbuild_run(struct progbuild *b,
				const struct emu_prog_hooks *hooks,
				uint16_t *op_index)
{
	progbuild_finish(b);
	return progbuild_run_at(b, 0, 0, b->prog_size, hooks, op_index);
}
#endif /* NPU_EMU_PROGRAM_H */

#endif /* NPU_PROGBUILD_H */
