/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ops.h - the operators of NPU program format v1, internal to npu-emu.
 *
 * program.c validates a program's header and tensor table and resolves every
 * tensor to host memory (struct emu_tensor); the functions here check each
 * operator's operands and execute it, as Documentation/npu/program.rst
 * defines. The int32 accumulation cores of convolution and matrix
 * multiplication are exported on their own so that tests can drive them
 * directly (ONNX ConvInteger and MatMulInteger).
 */
#ifndef NPU_EMU_OPS_H
#define NPU_EMU_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "npu/npu_program.h"
#include "npu/npu_hw.h"
#include "program.h"

/**
 * struct emu_tensor - a tensor that passed the tensor-table checks
 * @data: its first byte in host memory, inside its slot
 * @bytes: byte size for its layout (NCHWC16 counts padding lanes)
 * @count: number of logical elements
 * @dims: dims[0..3]; unused ones are 1
 * @zp: zero point
 * @dtype: NPU_DT_*
 * @ndim: 1..4
 * @layout: NPU_LAYOUT_*
 * @esize: bytes per element (1 or 4)
 */
struct emu_tensor {
	uint8_t *data;
	uint64_t bytes;
	uint64_t count;
	uint32_t dims[4];
	int32_t zp;
	uint8_t dtype;
	uint8_t ndim;
	uint8_t layout;
	uint8_t esize;
};

/**
 * emu_op_check() - check one operator before any operator runs
 * @op: the operator (a private copy)
 * @t: the program's tensors, all valid
 * @n_tensors: entries in @t
 * @cost: out: the operator's cost, when it is valid
 *
 * Makes checks 4a-4d of program.rst's "Validation order", reading the
 * values of requantization tables from their slots.
 *
 * Return: NPU_HW_STATUS_OK or the status the operator fails with.
 */
int emu_op_check(const struct npu_prog_op *op, const struct emu_tensor *t,
		 uint32_t n_tensors, struct emu_op_cost *cost);

/**
 * emu_op_run() - execute one operator that passed emu_op_check()
 * @op: the operator
 * @t: the program's tensors
 *
 * Operands are read as a whole before the output is written, so the output
 * may overlap them. Only the operator's tensors are read or written.
 *
 * Return: 0, or -ENOMEM when the output overlaps an operand and no scratch
 * memory for it could be allocated (nothing was written then).
 */
int emu_op_run(const struct npu_prog_op *op, const struct emu_tensor *t);

/**
 * struct emu_conv_geom - geometry of a convolution's accumulation
 * @sh: vertical stride, >= 1
 * @sw: horizontal stride, >= 1
 * @pt: padding rows above
 * @pl: padding columns left
 * @pb: padding rows below
 * @pr: padding columns right
 * @depthwise: weights are [1, KH, KW, C] and output channel c sums over
 *	input channel c only
 */
struct emu_conv_geom {
	uint32_t sh, sw;
	uint32_t pt, pl, pb, pr;
	bool depthwise;
};

/**
 * emu_conv_acc() - the int32 accumulation core of CONV2D and DWCONV2D
 * @x: input [N, H, W, Cin], NPU_DT_U8, PLAIN or NCHWC16; zero point zx
 * @w: weights [Cout, KH, KW, Cin] (depthwise: [1, KH, KW, C]), NPU_DT_U8 or
 *	NPU_DT_I8, PLAIN; zero point zw
 * @g: strides and padding
 * @acc: out: [N, OH, OW, Cout] int32, row-major
 *
 * acc = sum over kh, kw, ci of (x - zx) * (w - zw), with positions outside
 * the input counting as x = zx and the sum wrapping as int32 two's
 * complement: exactly CONV2D's (DWCONV2D's) acc without the bias.
 *
 * Return: 0, or -EINVAL when the shapes or dtypes do not fit together.
 */
int emu_conv_acc(const struct emu_tensor *x, const struct emu_tensor *w,
		 const struct emu_conv_geom *g, int32_t *acc);

/**
 * emu_matmul_acc() - the int32 accumulation core of FC and MATMUL
 * @x: [M, K], NPU_DT_U8, PLAIN
 * @w: [N, K] (FC) or [K, N] (MATMUL), NPU_DT_U8 or NPU_DT_I8, PLAIN
 * @w_kn: true when @w is [K, N]
 * @acc: out: [M, N] int32, row-major
 *
 * acc[m][n] = sum over k of (x[m][k] - zx) * (w - zw), wrapping.
 *
 * Return: 0, or -EINVAL when the shapes or dtypes do not fit together.
 */
int emu_matmul_acc(const struct emu_tensor *x, const struct emu_tensor *w,
		   bool w_kn, int32_t *acc);

/**
 * emu_ops_set_fast_path() - use the vectorized kernels or not (tests)
 * @on: false to run every operator on its straightforward generic path
 *
 * Both paths produce identical results; tests compare them. Process-wide.
 */
void emu_ops_set_fast_path(bool on);

/* Requantization arithmetic of program.rst, exact. */

/* saturating rounding doubling high multiply */
static inline int32_t emu_srdhm(int32_t a, int32_t b)
{
	int64_t ab, nudge;

	if (a == INT32_MIN && b == INT32_MIN)
		return INT32_MAX;
	ab = (int64_t)a * b;
	nudge = ab >= 0 ? (1 << 30) : 1 - (1 << 30);
	return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* rounding divide by 2^e, 0 <= e <= 31, half away from zero */
static inline int32_t emu_rdivpot(int32_t x, int e)
{
	int64_t mask = ((int64_t)1 << e) - 1;
	int64_t rem = (int64_t)x & mask;
	int64_t thr = (mask >> 1) + (x < 0 ? 1 : 0);

	return (int32_t)(((int64_t)x >> e) + (rem > thr ? 1 : 0));
}

/* requant(x, m, s) for 0 <= m < 2^31, -31 <= s <= 30; x may exceed int32 */
static inline int32_t emu_requant(int64_t x, int32_t m, int32_t s)
{
	int left = s > 0 ? s : 0;
	int right = s < 0 ? -s : 0;
	int32_t y;

	if (x > INT32_MAX) {
		y = INT32_MAX;
	} else if (x < INT32_MIN) {
		y = INT32_MIN;
	} else {
		int64_t v = x * ((int64_t)1 << left);

		y = v > INT32_MAX ? INT32_MAX :
		    v < INT32_MIN ? INT32_MIN : (int32_t)v;
	}
	return emu_rdivpot(emu_srdhm(y, m), right);
}

/*
 * emu_requant() for an int32 x, written with int32 lanes and one unsigned
 * 32x32->64 product so that gcc vectorizes it; the result is identical
 * (the multiplier is never negative, so srdhm's INT32_MIN case cannot
 * occur, and rounding toward zero is done on the magnitude).
 */
static inline int32_t emu_requant32(int32_t x, int32_t m, int32_t s)
{
	int32_t left = s > 0 ? s : 0, right = s < 0 ? -s : 0;
	int32_t hi = INT32_MAX >> left, lo = INT32_MIN >> left;
	int32_t y = x > hi ? INT32_MAX : x < lo ? INT32_MIN :
		    (int32_t)((uint32_t)x << left);
	uint32_t neg = y < 0 ? 1 : 0;
	uint32_t ay = neg ? 0u - (uint32_t)y : (uint32_t)y;
	/* |srdhm|: (|ab| + 2^30) >> 31, or (|ab| + 2^30 - 1) >> 31 if ab < 0 */
	uint64_t u = (uint64_t)ay * (uint32_t)m + ((1u << 30) - neg);
	uint32_t qa = (uint32_t)(u >> 31);
	int32_t q = neg ? -(int32_t)qa : (int32_t)qa;
	uint32_t mask = (1u << right) - 1;
	uint32_t rem = (uint32_t)q & mask;
	uint32_t thr = (mask >> 1) + (q < 0 ? 1 : 0);

	return (q >> right) + (rem > thr ? 1 : 0);
}

#endif /* NPU_EMU_OPS_H */
