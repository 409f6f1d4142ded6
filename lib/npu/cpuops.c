// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cpuops.c - the host-side steps of a model: Quantize, Lower, Unlower,
 * Dequantize, plus the requantization-multiplier and CRC helpers.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "crc32.h"
#include "libnpu.h"
#include "npu_internal.h"

/* round half to even, independent of the FPU rounding mode */
static float round_half_even(float v)
{
	float f = floorf(v);
	float d = v - f;

	if (d > 0.5f)
		return f + 1.0f;
	if (d < 0.5f)
		return f;
	return fmodf(f, 2.0f) == 0.0f ? f : f + 1.0f;
}

int npu_quantize(const float *in, uint8_t *out, size_t count, float scale,
		 int32_t zero_point)
{
	size_t i;

	if (!(scale > 0.0f) || !isfinite(scale) || zero_point < 0 ||
	    zero_point > 255)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		float q = in[i] / scale;

		if (isnan(q)) {
			out[i] = (uint8_t)zero_point;
			continue;
		}
		/* clamp before converting: no float->int overflow */
		if (q > 512.0f)
			q = 512.0f;
		else if (q < -512.0f)
			q = -512.0f;
		q = round_half_even(q) + (float)zero_point;
		if (q < 0.0f)
			q = 0.0f;
		else if (q > 255.0f)
			q = 255.0f;
		out[i] = (uint8_t)q;
	}
	return 0;
}

int npu_dequantize(const uint8_t *in, float *out, size_t count, float scale,
		   int32_t zero_point)
{
	size_t i;

	if (zero_point < 0 || zero_point > 255)
		return -EINVAL;
	for (i = 0; i < count; i++)
		out[i] = (float)((int32_t)in[i] - zero_point) * scale;
	return 0;
}

size_t npu_nchwc16_size(const uint32_t dims[4])
{
	size_t cb = ((size_t)dims[3] + 15) / 16;
	size_t s = (size_t)dims[0];

	if (!dims[0] || !dims[1] || !dims[2] || !dims[3])
		return 0;
	/* every factor < 2^32; check each product against overflow */
	if (__builtin_mul_overflow(s, cb, &s) ||
	    __builtin_mul_overflow(s, (size_t)dims[1], &s) ||
	    __builtin_mul_overflow(s, (size_t)dims[2], &s) ||
	    __builtin_mul_overflow(s, (size_t)16, &s))
		return 0;
	return s;
}

static size_t plain_size(const uint32_t dims[4])
{
	size_t s = 1;
	int i;

	for (i = 0; i < 4; i++)
		if (!dims[i] || __builtin_mul_overflow(s, (size_t)dims[i], &s))
			return 0;
	return s;
}

/*
 * Copy between plain NHWC and NCHWC16 (one loop for both directions, so
 * that Lower and Unlower cannot disagree on the layout): @lower copies
 * @plain into @tiled and sets the padding lanes to @pad; else @tiled into
 * @plain. Sizes are checked by the callers.
 */
static void nchwc16_copy(uint8_t *tiled, uint8_t *plain, const uint32_t dims[4],
			 bool lower, uint8_t pad)
{
	size_t n, h, w, cb, N = dims[0], H = dims[1], W = dims[2], C = dims[3];
	size_t CB = (C + 15) / 16;

	for (n = 0; n < N; n++) {
		for (cb = 0; cb < CB; cb++) {
			size_t c0 = cb * 16;
			size_t lanes = C - c0 < 16 ? C - c0 : 16;
			uint8_t *t = tiled + (n * CB + cb) * H * W * 16;

			for (h = 0; h < H; h++) {
				uint8_t *row = plain + ((n * H + h) * W) * C + c0;

				for (w = 0; w < W; w++, t += 16, row += C) {
					if (!lower) {
						memcpy(row, t, lanes);
						continue;
					}
					memcpy(t, row, lanes);
					if (lanes < 16)
						memset(t + lanes, pad, 16 - lanes);
				}
			}
		}
	}
}

/* bytes of the device tensor in @layout; 0 for a bad layout or overflow */
static size_t layout_size(const uint32_t dims[4], uint32_t layout)
{
	if (layout == NPU_LAYOUT_PLAIN)
		return plain_size(dims);
	if (layout == NPU_LAYOUT_NCHWC16)
		return npu_nchwc16_size(dims);
	return 0;
}

int npu_lower(const uint8_t *in, uint8_t *out, size_t out_size,
	      const uint32_t dims[4], uint32_t layout, uint8_t pad)
{
	size_t need = layout_size(dims, layout);

	if (!in || !out || !need || out_size < need)
		return -EINVAL;
	if (layout == NPU_LAYOUT_PLAIN)
		memcpy(out, in, need);
	else
		nchwc16_copy(out, (uint8_t *)in, dims, true, pad);
	return 0;
}

int npu_unlower(const uint8_t *in, size_t in_size, uint8_t *out,
		const uint32_t dims[4], uint32_t layout)
{
	size_t need = layout_size(dims, layout);

	if (!in || !out || !need || in_size < need)
		return -EINVAL;
	if (layout == NPU_LAYOUT_PLAIN)
		memcpy(out, in, need);
	else
		nchwc16_copy((uint8_t *)in, out, dims, false, 0);
	return 0;
}

int npu_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift)
{
	int64_t q;
	double frac;
	int exp;

	if (!(real >= 0.0) || !isfinite(real) || real >= 1073741824.0)
		return -EINVAL;
	if (real == 0.0) {
		*multiplier = 0;
		*shift = 0;
		return 0;
	}
	frac = frexp(real, &exp);		/* real = frac * 2^exp, frac in [0.5, 1) */
	q = (int64_t)llround(frac * 2147483648.0);
	if (q == 2147483648LL) {
		q /= 2;
		exp++;
	}
	if (exp < -31) {
		*multiplier = 0;
		*shift = 0;
		return 0;
	}
	if (exp > 30)
		return -EINVAL;
	*multiplier = (int32_t)q;
	*shift = exp;
	return 0;
}

uint32_t npu_crc32(uint32_t crc, const void *data, size_t len)
{
	/* the trace file's implementation: folded with PCLMULQDQ where the
	 * CPU has it, one table otherwise (lib/npuprof/crc32.c) */
	return npf_crc32(crc, data, len);
}
