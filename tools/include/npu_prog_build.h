/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_prog_build.h - write NPU programs (Documentation/npu/program.rst).
 *
 * The one piece of code that fills struct npu_prog_tensor and struct
 * npu_prog_op and lays a program out as header, tensor table, operator
 * table. Header-only; used by the model generator (tools/npu-model), the
 * operator benchmark (tools/npu-emu/bench-ops) and the host tests. It
 * computes nothing an operator computes: the device model and the host
 * reference (lib/npuref) stay independent of each other.
 */
#ifndef NPU_PROG_BUILD_H
#define NPU_PROG_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "npu/npu_program.h"

/**
 * npb_tensor_bytes() - storage size of a tensor for its layout
 * @t: the descriptor (dims of unused dimensions are 1)
 *
 * Return: PLAIN: the product of the dims times the element size; NCHWC16:
 * N * ceil(C / 16) * H * W * 16. Not checked for overflow.
 */
static inline uint64_t npb_tensor_bytes(const struct npu_prog_tensor *t)
{
	const uint32_t *d = t->dims;

	if (t->layout == NPU_LAYOUT_NCHWC16)
		return (uint64_t)d[0] * ((d[3] + 15ull) / 16) * d[1] * d[2] * 16;
	return (uint64_t)d[0] * d[1] * d[2] * d[3] *
	       (t->dtype == NPU_DT_I32 ? 4 : 1);
}

/**
 * npb_tensor() - fill a tensor descriptor
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
static inline void npb_tensor(struct npu_prog_tensor *t, uint8_t dtype,
			      uint8_t layout, uint8_t buf, uint32_t offset,
			      uint8_t ndim, const uint32_t dims[4], int32_t zp)
{
	memset(t, 0, sizeof(*t));
	t->dtype = dtype;
	t->layout = layout;
	t->buf = buf;
	t->offset = offset;
	t->ndim = ndim;
	memcpy(t->dims, dims, sizeof(t->dims));
	t->zero_point = zp;
}

/**
 * npb_op() - fill an operator
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
static inline void npb_op(struct npu_prog_op *op, uint16_t opcode,
			  uint16_t in0, uint16_t in1, uint16_t in2,
			  uint16_t out, uint16_t rq, int32_t amin,
			  int32_t amax)
{
	memset(op, 0, sizeof(*op));
	op->opcode = opcode;
	op->in[0] = in0;
	op->in[1] = in1;
	op->in[2] = in2;
	op->out = out;
	op->rq = rq;
	op->act_min = amin;
	op->act_max = amax;
}

/**
 * npb_conv() - set the window of a CONV2D, DWCONV2D or pool operator
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
static inline void npb_conv(struct npu_prog_op *op, uint8_t kh, uint8_t kw,
			    uint8_t sh, uint8_t sw, uint8_t pt, uint8_t pl,
			    uint8_t pb, uint8_t pr)
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

/**
 * npb_size() - bytes of a program of @nt tensors and @nops operators
 * @nt: tensors
 * @nops: operators
 *
 * Return: header + tensor table + operator table.
 */
static inline size_t npb_size(size_t nt, size_t nops)
{
	return sizeof(struct npu_prog_hdr) +
	       nt * sizeof(struct npu_prog_tensor) +
	       nops * sizeof(struct npu_prog_op);
}

/**
 * npb_write() - lay out a program: header, tensor table, operator table
 * @dst: out: npb_size(@nt, @nops) bytes
 * @t: the tensors
 * @nt: entries of @t
 * @ops: the operators
 * @nops: entries of @ops
 *
 * The tables follow the header back to back (8-byte aligned, as the sizes
 * of the entries are multiples of 8); hdr.size covers exactly the three.
 *
 * Return: bytes written, npb_size(@nt, @nops).
 */
static inline size_t npb_write(void *dst, const struct npu_prog_tensor *t,
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
	h.size = (uint32_t)npb_size(nt, nops);
	memcpy(d, &h, sizeof(h));
	if (nt)
		memcpy(d + h.tensors_off, t, nt * sizeof(*t));
	if (nops)
		memcpy(d + h.ops_off, ops, nops * sizeof(*ops));
	return h.size;
}

#endif /* NPU_PROG_BUILD_H */
