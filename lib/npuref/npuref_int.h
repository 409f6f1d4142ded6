/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * npuref_int.h - internal helpers of libnpuref (not installed).
 */
#ifndef NPUREF_INT_H
#define NPUREF_INT_H

#include <stdint.h>

#include "npu_hw.h"

/* int32 with two's complement wrap of a 32-bit pattern, no impl-defined casts */
static inline int32_t npuref_wrap32(uint32_t v)
{
	if (v <= (uint32_t)INT32_MAX)
		return (int32_t)v;
	return (int32_t)(v - 0x80000000u) + INT32_MIN;
}

/* range of a dtype's values; -EINVAL for an unknown dtype */
int npuref_dtype_range(unsigned int dtype, int64_t *lo, int64_t *hi);

/* byte offset of an in-range logical index of a valid tensor */
uint64_t npuref_off(const struct npu_prog_tensor *t, const uint32_t idx[4]);

/* load / store one element, little-endian */
int32_t npuref_load(unsigned int dtype, const uint8_t *p);
void npuref_store(unsigned int dtype, uint8_t *p, int32_t val);

#endif /* NPUREF_INT_H */
