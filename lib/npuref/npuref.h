/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * npuref.h - host reference implementation of the NPU program format v1.
 *
 * libnpuref executes a program (Documentation/npu/program.rst,
 * include/npu/npu_program.h) on the host with plain scalar loops over logical indices
 * and exact 64-bit intermediates. It is slow on purpose: its outputs are what
 * the device's outputs are checked against, bit for bit.
 *
 * Conventions: functions returning int return 0 (or an enum npu_prog_status
 * value, NPU_PROG_*, where stated) on success and a negative errno value on misuse of the API.
 * The library keeps no global state and is thread-safe as long as two calls
 * do not write the same memory.
 */
#ifndef NPUREF_H
#define NPUREF_H

#include <stddef.h>
#include <stdint.h>

#include <linux/npu.h>	/* NPU_MAX_JOB_BUFS */

#include "npu/npu_program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* marks the exported symbols; everything else in the library is hidden */
#ifndef NPUREF_API
#define NPUREF_API __attribute__((visibility("default")))
#endif

/**
 * struct npuref_buf - one buffer slot of a command, in host memory
 * @base: first byte of the slot
 * @size: bytes of the slot
 */
struct npuref_buf {
	void *base;
	size_t size;
};

/* @prog_slot value for a program that does not live in any slot */
#define NPUREF_PROG_EXTERNAL	(~0u)

/**
 * npuref_run() - validate, then execute a program as the device would
 * @prog: first byte of the program
 * @prog_size: bytes of program (the job's program size)
 * @slots: the job's buffer slots; tensors are read and written here
 * @nslots: entries in @slots, 1..NPU_MAX_JOB_BUFS (a job's buffers)
 * @prog_slot: slot holding the program (the job's program slot), or
 *	NPUREF_PROG_EXTERNAL when @prog is a separate copy
 * @op_index: out, may be NULL: failing operator, NPU_PROG_NO_OP_INDEX for
 *	program- and tensor-level errors and on success
 *
 * The program is normally inside slot @prog_slot, so @prog may point into
 * that slot (slot base + the job's program offset); it must then end inside
 * the slot (NPU_PROG_BAD_ADDRESS otherwise). A @prog outside that
 * slot's memory is taken as a separate copy and not checked against it.
 * The header and tables are copied before validation, so operators
 * overwriting the program do not change what runs.
 *
 * All checks of program.rst are made before the first operator runs, in the
 * order of its "Validation order" section; a failed program writes nothing.
 *
 * Return: NPU_PROG_OK or another NPU_PROG_* status (>= 0), exactly as the
 * device reports it (its completion status has the same values); -EINVAL
 * for NULL pointers, @nslots out of range or @prog_slot >= @nslots (other than NPUREF_PROG_EXTERNAL); -ENOMEM if a
 * temporary buffer cannot be allocated (nothing was written then).
 */
NPUREF_API int npuref_run(const void *prog, size_t prog_size, struct npuref_buf *slots,
	       unsigned int nslots, unsigned int prog_slot, uint16_t *op_index);

/**
 * npuref_quantize_multiplier() - real factor to a {multiplier, shift} pair
 * @real: the real factor, finite and >= 0
 * @mult: out: Q31 multiplier in [0, 2^31)
 * @shift: out: shift in [-31, 30]; @real ~= @mult * 2^(@shift - 31)
 *
 * TFLite's QuantizeMultiplier: frexp(), round the mantissa to Q31 (half away
 * from zero); a mantissa rounding up to 2^31 becomes 2^30 with shift + 1; a
 * factor below 2^-32 (shift < -31) becomes {0, 0}.
 *
 * Return: 0; -EINVAL if @real is negative, NaN or infinite or a pointer is
 * NULL; -ERANGE if @real is at least 2^30 (shift would exceed 30).
 */
NPUREF_API int npuref_quantize_multiplier(double real, int32_t *mult, int32_t *shift);

/**
 * npuref_srdhm() - saturating rounding doubling high multiply (program.rst)
 * @a: first factor
 * @b: second factor
 *
 * Return: (a * b + nudge) / 2^31 rounded as program.rst specifies;
 * INT32_MAX for INT32_MIN * INT32_MIN.
 */
NPUREF_API int32_t npuref_srdhm(int32_t a, int32_t b);

/**
 * npuref_rdivpot() - divide by 2^@e, rounding half away from zero
 * @x: dividend
 * @e: exponent, 0..31
 *
 * Return: the rounded quotient; @x unchanged for @e outside 0..31.
 */
NPUREF_API int32_t npuref_rdivpot(int32_t x, int e);

/**
 * npuref_requant() - MultiplyByQuantizedMultiplier of program.rst
 * @x: value to scale; any value, saturated to int32 after the left shift
 * @mult: Q31 multiplier, [0, 2^31)
 * @shift: shift, [-31, 30]
 *
 * Computes rdivpot(srdhm(saturate_int32(x * 2^max(shift, 0)), mult),
 * max(-shift, 0)) with exact intermediates. @x is 64-bit so that sums of two
 * int32 values (NPU_OP_ADD) are saturated rather than wrapped.
 *
 * Return: the requantized value; 0 if @mult or @shift is out of range.
 */
NPUREF_API int32_t npuref_requant(int64_t x, int32_t mult, int32_t shift);

/**
 * npuref_dtype_size() - bytes per element of a dtype
 * @dtype: NPU_DT_*
 *
 * Return: 1 or 4; 0 for an unknown dtype.
 */
NPUREF_API unsigned int npuref_dtype_size(unsigned int dtype);

/**
 * npuref_tensor_check() - is a tensor descriptor valid on its own?
 * @t: descriptor
 *
 * Checks dtype, ndim, layout, dims (used >= 1, unused == 1), zero point
 * range and the reserved field, i.e. everything that makes the device fail
 * with NPU_PROG_BAD_PROGRAM at tensor level. Slot and offset are not
 * checked.
 *
 * Return: 0 if valid, -EINVAL otherwise.
 */
NPUREF_API int npuref_tensor_check(const struct npu_prog_tensor *t);

/**
 * npuref_tensor_elems() - logical element count (product of the dims)
 * @t: a valid descriptor
 * @elems: out
 *
 * Return: 0; -EINVAL if @t is invalid; -EOVERFLOW if the count exceeds
 * 64 bits.
 */
NPUREF_API int npuref_tensor_elems(const struct npu_prog_tensor *t, uint64_t *elems);

/**
 * npuref_tensor_bytes() - storage size of a tensor for its layout
 * @t: a valid descriptor
 * @bytes: out: PLAIN: elements * element size; NCHWC16:
 *	N * ceil(C / 16) * H * W * 16
 *
 * Return: 0; -EINVAL if @t is invalid; -EOVERFLOW if the size exceeds
 * 64 bits.
 */
NPUREF_API int npuref_tensor_bytes(const struct npu_prog_tensor *t, uint64_t *bytes);

/**
 * npuref_tensor_offset() - byte offset of a logical element
 * @t: a valid descriptor
 * @idx: logical index (d0, d1, d2, d3); entries past ndim must be 0
 * @off: out: byte offset from the tensor's first byte
 *
 * Return: 0; -EINVAL if @t is invalid; -ERANGE if @idx is outside the dims.
 */
NPUREF_API int npuref_tensor_offset(const struct npu_prog_tensor *t,
			 const uint32_t idx[4], uint64_t *off);

/**
 * npuref_tensor_get() - read a logical element
 * @t: a valid descriptor
 * @data: the tensor's first byte (slot base + @t->offset)
 * @idx: logical index, as npuref_tensor_offset()
 * @val: out: U8 as 0..255, I8 as -128..127, I32 as is (little-endian)
 *
 * Return: 0; -EINVAL or -ERANGE as npuref_tensor_offset().
 */
NPUREF_API int npuref_tensor_get(const struct npu_prog_tensor *t, const void *data,
		      const uint32_t idx[4], int32_t *val);

/**
 * npuref_tensor_set() - write a logical element
 * @t: a valid descriptor
 * @data: the tensor's first byte
 * @idx: logical index, as npuref_tensor_offset()
 * @val: value, within the dtype's range
 *
 * Return: 0; -EINVAL or -ERANGE as npuref_tensor_offset(); -ERANGE if @val
 * does not fit the dtype (nothing is written then).
 */
NPUREF_API int npuref_tensor_set(const struct npu_prog_tensor *t, void *data,
		      const uint32_t idx[4], int32_t val);

/**
 * npuref_tensor_fill() - write a value to every byte position of a tensor
 * @t: a valid descriptor
 * @data: the tensor's first byte; npuref_tensor_bytes() bytes are written
 * @val: value, within the dtype's range
 *
 * Fills all elements including NCHWC16 padding lanes; filling with the zero
 * point gives a tensor whose padding lanes are as the device writes them.
 *
 * Return: 0; -EINVAL if @t is invalid; -ERANGE if @val does not fit the
 * dtype.
 */
NPUREF_API int npuref_tensor_fill(const struct npu_prog_tensor *t, void *data,
		       int32_t val);

#ifdef __cplusplus
}
#endif

#endif /* NPUREF_H */
