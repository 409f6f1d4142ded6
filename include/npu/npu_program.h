/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * NPU program format, version 1: the NPU's instruction set.
 *
 * A program is what one NPU job executes. This header is the contract
 * between the programs' writers and readers in userspace (libnpu, the host
 * reference libnpuref, the model generator, the tests) and the device that
 * executes them (tools/npu-emu), the way a compiler target's ISA header is.
 * The driver never reads a program and does not include this header; what
 * the driver and the device exchange (registers, queues, commands,
 * completions, trace records) is driver/npu_hw.h. The normative description
 * is Documentation/npu/program.rst; this header gives the same facts as code.
 *
 * Plain C11 with <stdint.h>, no libc calls: any userspace component can
 * include it, together with any other header of the project. All multi-byte
 * values are little-endian.
 */
#ifndef _NPU_PROGRAM_H
#define _NPU_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A program is a header, a tensor table and an operator table, all 8-byte
 * aligned, inside one buffer slot of the job. Tensors live in the job's
 * buffer slots, at an offset: the device resolves and bounds-checks every
 * tensor against its slot before it runs the first operator.
 */
#define NPU_PROG_MAGIC		0x4750524e	/* "NRPG" */
#define NPU_PROG_VERSION	1
#define NPU_PROG_MAX_TENSORS	1024
#define NPU_PROG_MAX_OPS	1024
#define NPU_PROG_NONE		0xffff	/* no tensor */

/*
 * What checking and running a program results in (program.rst, "Validation
 * order"). The device reports these as the job's completion status, with
 * the same values (NPU_HW_STATUS_* of driver/npu_hw.h, NPU_JOB_* of the
 * uapi), next to the statuses of its own (an aborted job, a bad command).
 * @op_index of a failure not tied to an operator is NPU_PROG_NO_OP_INDEX.
 */
enum npu_prog_status {
	NPU_PROG_OK = 0,
	NPU_PROG_BAD_OPCODE = 1,	/* unknown operator */
	NPU_PROG_BAD_ADDRESS = 2,	/* outside a buffer slot */
	NPU_PROG_MISALIGNED = 3,	/* offset not aligned */
	NPU_PROG_BAD_SHAPE = 4,		/* inconsistent shapes or sizes */
	NPU_PROG_BAD_PROGRAM = 5,	/* malformed header, tables or fields */
};

#define NPU_PROG_NO_OP_INDEX	0xffff

/**
 * struct npu_prog_hdr - program header
 * @magic: NPU_PROG_MAGIC
 * @version: NPU_PROG_VERSION
 * @hdr_size: sizeof(struct npu_prog_hdr)
 * @n_tensors: entries in the tensor table
 * @n_ops: entries in the operator table
 * @tensors_off: byte offset of the tensor table from the program start
 * @ops_off: byte offset of the operator table from the program start
 * @size: total bytes of the program, hdr_size <= size <= the job's
 *	program size
 * @rsvd: 0
 */
struct npu_prog_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t n_tensors;
	uint32_t n_ops;
	uint32_t tensors_off;
	uint32_t ops_off;
	uint32_t size;
	uint32_t rsvd;
};

/* Tensor data types */
#define NPU_DT_U8		1
#define NPU_DT_I8		2
#define NPU_DT_I32		3	/* bias and requantization tables */

/*
 * Tensor layouts.
 * NPU_LAYOUT_PLAIN: row-major over dims[0..ndim-1].
 * NPU_LAYOUT_NCHWC16: a 4-D NHWC tensor (dims = N, H, W, C) stored as
 *   [N][ceil(C / 16)][H][W][16]; element (n, h, w, c) is at byte
 *   ((((n * CB + c / 16) * H + h) * W + w) * 16 + c % 16), CB = ceil(C/16).
 *   Padding lanes (c >= C) hold the tensor's zero point.
 */
#define NPU_LAYOUT_PLAIN	0
#define NPU_LAYOUT_NCHWC16	1

/**
 * struct npu_prog_tensor - one tensor
 * @dtype: NPU_DT_*
 * @ndim: dimensions used, 1..4
 * @layout: NPU_LAYOUT_*
 * @buf: buffer slot of the job (below its number of buffers)
 * @offset: byte offset in the slot, aligned to the element size
 * @dims: dimensions; unused ones are 1
 * @zero_point: quantization zero point (u8: 0..255, i8: -128..127)
 * @rsvd: 0
 */
struct npu_prog_tensor {
	uint8_t dtype;
	uint8_t ndim;
	uint8_t layout;
	uint8_t buf;
	uint32_t offset;
	uint32_t dims[4];
	int32_t zero_point;
	uint32_t rsvd;
};

/* Operators */
#define NPU_OP_CONV2D		1
#define NPU_OP_DWCONV2D		2
#define NPU_OP_PAD		3
#define NPU_OP_AVGPOOL		4
#define NPU_OP_MAXPOOL		5
#define NPU_OP_FC		6	/* weights [N, K] */
#define NPU_OP_MATMUL		7	/* B [K, N] */
#define NPU_OP_ADD		8
#define NPU_OP_CLIP		9	/* Relu is Clip to [zero_point, 255] */
#define NPU_OP_RESHAPE		10
#define NPU_OP_TRANSPOSE	11
#define NPU_OP_SLICE		12
#define NPU_OP_CONCAT		13
#define NPU_OP_MAX		13

/**
 * struct npu_prog_op - one operator, 64 bytes
 * @opcode: NPU_OP_*
 * @flags: 0
 * @in: input tensor indices, NPU_PROG_NONE when unused
 * @out: output tensor index
 * @act_min: output clamp, quantized domain (fused activation)
 * @act_max: output clamp, quantized domain
 * @rq: tensor index of the requantization table (NPU_DT_I32 pairs
 *	{multiplier, shift}), or NPU_PROG_NONE
 * @rsvd: 0
 * @u: per-operator parameters, see Documentation/npu/program.rst
 */
struct npu_prog_op {
	uint16_t opcode;
	uint16_t flags;
	uint16_t in[3];
	uint16_t out;
	int32_t act_min;
	int32_t act_max;
	uint16_t rq;
	uint16_t rsvd;
	union {
		/* CONV2D, DWCONV2D, AVGPOOL, MAXPOOL */
		struct {
			uint8_t kh, kw;		/* kernel size (pools) */
			uint8_t sh, sw;		/* stride */
			uint8_t pt, pl, pb, pr;	/* padding top/left/bottom/right */
			uint8_t dh, dw;		/* dilation, 1 */
			uint8_t rsvd[30];
		} conv;
		/* PAD: NHWC pads before/after each dim; value is the zero point */
		struct {
			uint16_t before[4];
			uint16_t after[4];
			uint8_t rsvd[24];
		} pad;
		/* TRANSPOSE: out dim i = in dim perm[i] */
		struct {
			uint8_t perm[4];
			uint8_t rsvd[36];
		} transpose;
		/* SLICE: start per dim; size from the output tensor */
		struct {
			uint32_t begin[4];
			uint8_t rsvd[24];
		} slice;
		/* CONCAT: along axis; in[0..n-1] */
		struct {
			uint32_t axis;
			uint8_t rsvd[36];
		} concat;
		uint8_t raw[40];
	} u;
};

_Static_assert(sizeof(struct npu_prog_hdr) == 32, "npu_prog_hdr size");
_Static_assert(sizeof(struct npu_prog_tensor) == 32, "npu_prog_tensor size");
_Static_assert(sizeof(struct npu_prog_op) == 64, "npu_prog_op size");

/*
 * Facts of the format as functions, for the programs' writers and readers.
 * The device model keeps its own code: it is the second implementation
 * program.rst is checked against.
 */

/* bytes per element of a dtype; 0 for an unknown one */
static inline unsigned int npu_prog_dtype_size(unsigned int dtype)
{
	switch (dtype) {
	case NPU_DT_U8:
	case NPU_DT_I8:
		return 1;
	case NPU_DT_I32:
		return 4;
	default:
		return 0;
	}
}

/*
 * Storage bytes of a tensor for its layout (PLAIN: the product of all four
 * dims times the element size; NCHWC16: N * ceil(C / 16) * H * W * 16) in
 * *@bytes. False when the size does not fit in 64 bits; the dtype is not
 * checked (an unknown one counts as one byte wide).
 */
static inline bool npu_prog_tensor_bytes(const struct npu_prog_tensor *t,
					 uint64_t *bytes)
{
	const uint32_t *d = t->dims;
	uint64_t n;

	if (t->layout == NPU_LAYOUT_NCHWC16)
		return !__builtin_mul_overflow((uint64_t)d[0] * d[1],
					       ((uint64_t)d[3] + 15) / 16, &n) &&
		       !__builtin_mul_overflow(n, (uint64_t)d[2] * 16, bytes);
	return !__builtin_mul_overflow((uint64_t)d[0] * d[1],
				       (uint64_t)d[2] * d[3], &n) &&
	       !__builtin_mul_overflow(n, t->dtype == NPU_DT_I32 ? 4 : 1,
				       bytes);
}

/* upper-case name of an opcode ("CONV2D"); NULL for an unknown one */
static inline const char *npu_prog_op_name(unsigned int opcode)
{
	static const char *const names[NPU_OP_MAX + 1] = {
		[NPU_OP_CONV2D] = "CONV2D",
		[NPU_OP_DWCONV2D] = "DWCONV2D",
		[NPU_OP_PAD] = "PAD",
		[NPU_OP_AVGPOOL] = "AVGPOOL",
		[NPU_OP_MAXPOOL] = "MAXPOOL",
		[NPU_OP_FC] = "FC",
		[NPU_OP_MATMUL] = "MATMUL",
		[NPU_OP_ADD] = "ADD",
		[NPU_OP_CLIP] = "CLIP",
		[NPU_OP_RESHAPE] = "RESHAPE",
		[NPU_OP_TRANSPOSE] = "TRANSPOSE",
		[NPU_OP_SLICE] = "SLICE",
		[NPU_OP_CONCAT] = "CONCAT",
	};

	return opcode <= NPU_OP_MAX ? names[opcode] : NULL;
}

#endif /* _NPU_PROGRAM_H */
