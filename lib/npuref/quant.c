// SPDX-License-Identifier: (GPL-2.0-only OR MIT)
/*
 * quant.c - requantization arithmetic (program.rst, "Requantization").
 *
 * Everything is computed in int64 with no implementation-defined shifts of
 * negative numbers: floor division by a power of two is written out.
 */
#include <errno.h>
#include <math.h>

#include "npuref.h"

int32_t npuref_srdhm(int32_t a, int32_t b)
{
	int64_t ab, nudge;

	if (a == INT32_MIN && b == INT32_MIN)
		return INT32_MAX;
	ab = (int64_t)a * b;
	nudge = ab >= 0 ? (int64_t)1 << 30 : 1 - ((int64_t)1 << 30);
	/* C division truncates toward zero, as program.rst requires */
	return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* floor(x / 2^e) for 0 <= e <= 62 */
static int64_t floor_div_pot(int64_t x, int e)
{
	int64_t d = (int64_t)1 << e;

	if (x >= 0)
		return x / d;
	return -((-x + d - 1) / d);
}

int32_t npuref_rdivpot(int32_t x, int e)
{
	int64_t mask, rem, thr, q;

	if (e < 0 || e > 31)
		return x;
	mask = ((int64_t)1 << e) - 1;
	q = floor_div_pot(x, e);		/* x >> e, arithmetic */
	rem = (int64_t)x - q * ((int64_t)1 << e);	/* x & mask, in [0, mask] */
	thr = (mask >> 1) + (x < 0 ? 1 : 0);
	return (int32_t)(q + (rem > thr ? 1 : 0));
}

int32_t npuref_requant(int64_t x, int32_t mult, int32_t shift)
{
	int left, right;
	int64_t y;

	if (mult < 0 || shift < -31 || shift > 30)
		return 0;
	left = shift > 0 ? shift : 0;
	right = shift < 0 ? -shift : 0;
	/* saturate_int32(x * 2^left); scaling by 2^left keeps the sign */
	if (x > INT32_MAX)
		y = INT32_MAX;
	else if (x < INT32_MIN)
		y = INT32_MIN;
	else
		y = x * ((int64_t)1 << left);	/* |y| <= 2^61 */
	if (y > INT32_MAX)
		y = INT32_MAX;
	if (y < INT32_MIN)
		y = INT32_MIN;
	return npuref_rdivpot(npuref_srdhm((int32_t)y, mult), right);
}

int npuref_quantize_multiplier(double real, int32_t *mult, int32_t *shift)
{
	long long q_fixed;
	double q;
	int e;

	if (!mult || !shift || isnan(real) || isinf(real) || real < 0)
		return -EINVAL;
	if (real == 0) {
		*mult = 0;
		*shift = 0;
		return 0;
	}
	q = frexp(real, &e);			/* real = q * 2^e, q in [0.5, 1) */
	q_fixed = llround(q * 2147483648.0);	/* half away from zero */
	if (q_fixed == 2147483648LL) {		/* rounded up to 1.0 */
		q_fixed /= 2;
		e++;
	}
	if (e < -31) {				/* below 2^-32: flush to zero */
		e = 0;
		q_fixed = 0;
	}
	if (e > 30)
		return -ERANGE;
	*mult = (int32_t)q_fixed;
	*shift = e;
	return 0;
}
