/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * npuref_int.h - internal helpers of libnpuref (not installed).
 */
#ifndef NPUREF_INT_H
#define NPUREF_INT_H

#include <stdint.h>

#include "npu/npu_program.h"

/* int32 with two's complement wrap of a 32-bit pattern, no impl-defined casts */
static inline int32_t npuref_wrap32(uint32_t v)
{
	if (v <= (uint32_t)INT32_MAX)
		return (int32_t)v;
	return (int32_t)(v - 0x80000000u) + INT32_MIN;
}

/* range of a dtype's values; -EINVAL for an unknown dtype */
int npuref_dtype_range(unsigned int dtype, int64_t *lo, int64_t *hi);

/*
 * Byte offset of a logical index in a valid tensor whose size fits in 64
 * bits; the index must be inside the dims. No overflow is possible: the
 * offset is below the byte size.
 */
static inline uint64_t npuref_off(const struct npu_prog_tensor *t,
				  const uint32_t idx[4])
{
	const uint32_t *d = t->dims;

	if (t->layout == NPU_LAYOUT_NCHWC16) {
		uint64_t cb = ((uint64_t)d[3] + 15) / 16;
		uint64_t n = idx[0], h = idx[1], w = idx[2], c = idx[3];

		return (((n * cb + c / 16) * d[1] + h) * d[2] + w) * 16 +
		       c % 16;
	}
	return ((((uint64_t)idx[0] * d[1] + idx[1]) * d[2] + idx[2]) * d[3] +
		idx[3]) * (t->dtype == NPU_DT_I32 ? 4 : 1);
}

/* load one element, little-endian */
static inline int32_t npuref_load(unsigned int dtype, const uint8_t *p)
{
	switch (dtype) {
	case NPU_DT_U8:
		return p[0];
	case NPU_DT_I8:
		return (int32_t)p[0] - (p[0] >= 128 ? 256 : 0);
	default:
		return npuref_wrap32((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				     (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
	}
}

/* store one element, little-endian (the low bytes of val) */
void npuref_store(unsigned int dtype, uint8_t *p, int32_t val);

#endif /* NPUREF_INT_H */
