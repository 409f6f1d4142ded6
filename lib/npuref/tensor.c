// SPDX-License-Identifier: (GPL-2.0-only OR MIT)
/*
 * tensor.c - tensor descriptors: validity, sizes, logical-index access.
 */
#include <errno.h>
#include <string.h>

#include "npuref.h"
#include "npuref_int.h"
#include "progcheck.h"

unsigned int npuref_dtype_size(unsigned int dtype)
{
	return npu_prog_dtype_size(dtype);
}

int npuref_dtype_range(unsigned int dtype, int64_t *lo, int64_t *hi)
{
	switch (dtype) {
	case NPU_DT_U8:
		*lo = 0;
		*hi = 255;
		return 0;
	case NPU_DT_I8:
		*lo = -128;
		*hi = 127;
		return 0;
	case NPU_DT_I32:
		*lo = INT32_MIN;
		*hi = INT32_MAX;
		return 0;
	default:
		return -EINVAL;
	}
}

int npuref_tensor_check(const struct npu_prog_tensor *t)
{
	if (!t || progcheck_tensor_fields(t, 0, NULL, 0))
		return -EINVAL;
	return 0;
}

/* a * b, or -EOVERFLOW; 64-bit exact */
static int mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
	if (a && b > UINT64_MAX / a)
		return -EOVERFLOW;
	*r = a * b;
	return 0;
}

int npuref_tensor_elems(const struct npu_prog_tensor *t, uint64_t *elems)
{
	uint64_t n = 1;
	unsigned int i;
	int ret;

	if (!elems || npuref_tensor_check(t))
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		ret = mul_u64(n, t->dims[i], &n);
		if (ret)
			return ret;
	}
	*elems = n;
	return 0;
}

int npuref_tensor_bytes(const struct npu_prog_tensor *t, uint64_t *bytes)
{
	uint64_t n;
	int ret;

	if (!bytes || npuref_tensor_check(t))
		return -EINVAL;
	if (t->layout == NPU_LAYOUT_NCHWC16) {
		/* N * CB * H * W * 16, CB = ceil(C / 16) */
		uint64_t cb = ((uint64_t)t->dims[3] + 15) / 16;

		n = t->dims[0];
		ret = mul_u64(n, cb, &n);
		if (!ret)
			ret = mul_u64(n, t->dims[1], &n);
		if (!ret)
			ret = mul_u64(n, t->dims[2], &n);
		if (!ret)
			ret = mul_u64(n, 16, &n);
		if (ret)
			return ret;
		*bytes = n;
		return 0;
	}
	ret = npuref_tensor_elems(t, &n);
	if (ret)
		return ret;
	ret = mul_u64(n, npuref_dtype_size(t->dtype), &n);
	if (ret)
		return ret;
	*bytes = n;
	return 0;
}

void npuref_store(unsigned int dtype, uint8_t *p, int32_t val)
{
	uint32_t v = (uint32_t)val;

	switch (dtype) {
	case NPU_DT_U8:
	case NPU_DT_I8:
		p[0] = (uint8_t)(v & 0xff);
		break;
	default:
		p[0] = (uint8_t)(v & 0xff);
		p[1] = (uint8_t)((v >> 8) & 0xff);
		p[2] = (uint8_t)((v >> 16) & 0xff);
		p[3] = (uint8_t)((v >> 24) & 0xff);
		break;
	}
}

int npuref_tensor_offset(const struct npu_prog_tensor *t,
			 const uint32_t idx[4], uint64_t *off)
{
	uint64_t bytes;
	unsigned int i;
	int ret;

	if (!idx || !off)
		return -EINVAL;
	ret = npuref_tensor_bytes(t, &bytes);
	if (ret)
		return ret == -EOVERFLOW ? -ERANGE : ret;
	for (i = 0; i < 4; i++)
		if (idx[i] >= t->dims[i])
			return -ERANGE;
	*off = npuref_off(t, idx);
	return 0;
}

int npuref_tensor_get(const struct npu_prog_tensor *t, const void *data,
		      const uint32_t idx[4], int32_t *val)
{
	uint64_t off;
	int ret;

	if (!data || !val)
		return -EINVAL;
	ret = npuref_tensor_offset(t, idx, &off);
	if (ret)
		return ret;
	*val = npuref_load(t->dtype, (const uint8_t *)data + off);
	return 0;
}

int npuref_tensor_set(const struct npu_prog_tensor *t, void *data,
		      const uint32_t idx[4], int32_t val)
{
	int64_t lo = 0, hi = 0;
	uint64_t off;
	int ret;

	if (!data)
		return -EINVAL;
	ret = npuref_tensor_offset(t, idx, &off);
	if (ret)
		return ret;
	npuref_dtype_range(t->dtype, &lo, &hi);
	if (val < lo || val > hi)
		return -ERANGE;
	npuref_store(t->dtype, (uint8_t *)data + off, val);
	return 0;
}

int npuref_tensor_fill(const struct npu_prog_tensor *t, void *data,
		       int32_t val)
{
	unsigned int esz;
	uint64_t bytes, i;
	int64_t lo = 0, hi = 0;
	int ret;

	if (!data)
		return -EINVAL;
	ret = npuref_tensor_bytes(t, &bytes);
	if (ret)
		return ret == -EOVERFLOW ? -EINVAL : ret;
	npuref_dtype_range(t->dtype, &lo, &hi);
	if (val < lo || val > hi)
		return -ERANGE;
	esz = npuref_dtype_size(t->dtype);
	for (i = 0; i < bytes; i += esz)
		npuref_store(t->dtype, (uint8_t *)data + i, val);
	return 0;
}
