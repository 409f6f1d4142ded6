/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fmt.h - the exporters' number formatters: decimal integers, ns as µs
 * with exactly 3 decimals, fixed-point values, zero-padded hex. No printf,
 * no floating point, no division instruction but npf_fmt_fixed()'s by its
 * variable power of ten (divisions by constants the compiler turns into
 * multiplications); eight digits at a time with SWAR arithmetic in a
 * 64-bit register.
 *
 * Every writer stores whole 8- or 16-byte words and returns the end of
 * what it wrote: it may store up to NPF_FMT_SLACK bytes past that end, so
 * the caller's buffer must have NPF_FMT_SLACK bytes of room beyond the
 * longest text (NPF_FMT_U64_MAX etc.). Header-only (static inline), no
 * state: safe from any thread.
 */
#ifndef NPUPROF_FMT_H
#define NPUPROF_FMT_H

#include <stdint.h>
#include <string.h>

#define NPF_FMT_SLACK	16	/* bytes a writer may store past its end */
#define NPF_FMT_U64_MAX	20	/* digits of UINT64_MAX */
#define NPF_FMT_I64_MAX	20	/* "-9223372036854775808" */
#define NPF_FMT_US_MAX	21	/* "-9223372036854775.808" */

/*
 * The 8 decimal digits of @v (< 10^8) as the bytes 0..9 of a word, the
 * first digit in the lowest byte (the order of memory on a little-endian
 * machine; the byte swap below keeps big-endian ones right).
 */
static inline uint64_t npf_fmt_digits8(uint32_t v)
{
	uint64_t m = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	/* each 32-bit half < 10^4: / 100 by 10486 / 2^20, exact there */
	uint64_t hi = ((m * 10486) >> 20) & 0x0000007f0000007full;
	uint64_t h = ((m - hi * 100) << 16) + hi;
	/* each 16-bit quarter < 100: / 10 by 103 / 2^10, exact there */
	uint64_t t = ((h * 103) >> 10) & 0x000f000f000f000full;

	t += (h - t * 10) << 8;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	t = __builtin_bswap64(t);
#endif
	return t;
}

/* Store the word @w of digits (npf_fmt_digits8()) as ASCII at @p */
static inline void npf_fmt_put8(char *p, uint64_t w)
{
	w |= 0x3030303030303030ull;
	memcpy(p, &w, 8);
}

/* "00" to "99" */
static const char npf_fmt_d2[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/*
 * ".000" to ".999": the 3 decimals of a µs time from its ns, and "000"
 * to "999" at 1 + 4 * n: the 3 digits of n (npf_fmt_u64())
 */
#define NPF_FMT_F1(a, b)	"." a b "0." a b "1." a b "2." a b "3." a b "4." \
				a b "5." a b "6." a b "7." a b "8." a b "9"
#define NPF_FMT_F2(a)	NPF_FMT_F1(a, "0") NPF_FMT_F1(a, "1") NPF_FMT_F1(a, "2") \
			NPF_FMT_F1(a, "3") NPF_FMT_F1(a, "4") NPF_FMT_F1(a, "5") \
			NPF_FMT_F1(a, "6") NPF_FMT_F1(a, "7") NPF_FMT_F1(a, "8") \
			NPF_FMT_F1(a, "9")
static const char npf_fmt_dec3[4001] =
	NPF_FMT_F2("0") NPF_FMT_F2("1") NPF_FMT_F2("2") NPF_FMT_F2("3")
	NPF_FMT_F2("4") NPF_FMT_F2("5") NPF_FMT_F2("6") NPF_FMT_F2("7")
	NPF_FMT_F2("8") NPF_FMT_F2("9");
#undef NPF_FMT_F1
#undef NPF_FMT_F2

/* @v (10 <= @v < 10^8) without leading zeros; returns the end */
static inline char *npf_fmt_u32_8(char *p, uint32_t v)
{
	uint64_t w = npf_fmt_digits8(v);
	unsigned int lz;

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	lz = (unsigned int)__builtin_clzll(w) / 8;
	w <<= 8 * lz;
#else
	lz = (unsigned int)__builtin_ctzll(w) / 8;	/* w != 0: v >= 10 */
	w >>= 8 * lz;
#endif
	npf_fmt_put8(p, w);
	return p + 8 - lz;
}

/* @v (>= 10^8) in decimal; returns the end */
static __attribute__((unused, noinline)) char *npf_fmt_u64_big(char *p,
							   uint64_t v)
{
	uint64_t hi = v / 100000000;

	if (hi < 10) {
		*p++ = (char)('0' + hi);
	} else if (hi < 100000000) {
		p = npf_fmt_u32_8(p, (uint32_t)hi);
	} else {
		/* v >= 10^16: hi / 10^8 < 1845 */
		uint32_t top = (uint32_t)(hi / 100000000);

		if (top < 10)
			*p++ = (char)('0' + top);
		else
			p = npf_fmt_u32_8(p, top);
		npf_fmt_put8(p, npf_fmt_digits8((uint32_t)(hi % 100000000)));
		p += 8;
	}
	npf_fmt_put8(p, npf_fmt_digits8((uint32_t)(v % 100000000)));
	return p + 8;
}

/*
 * Decimal @v at @p; returns the end (at most NPF_FMT_U64_MAX bytes).
 * Inline: the common small values take a few instructions at each caller.
 */
static inline __attribute__((always_inline)) char *npf_fmt_u64(char *p,
							       uint64_t v)
{
	if (v < 100) {
		if (v < 10) {
			*p = (char)('0' + v);
			return p + 1;
		}
		memcpy(p, &npf_fmt_d2[v * 2], 2);
		return p + 2;
	}
	/* 3 and 4 digits: the 3 of the ".ddd" table, 4 bytes copied */
	if (v < 1000) {
		memcpy(p, &npf_fmt_dec3[v * 4 + 1], 4);
		return p + 3;
	}
	if (v < 10000) {
		uint32_t h = (uint32_t)v / 1000;

		*p = (char)('0' + h);
		memcpy(p + 1, &npf_fmt_dec3[((uint32_t)v - h * 1000) * 4 + 1], 4);
		return p + 4;
	}
	/* 5 and 6: the thousands (10 to 999) from either table, then 3 */
	if (v < 1000000) {
		uint32_t h = (uint32_t)v / 1000, l = (uint32_t)v - h * 1000;

		if (h < 100) {
			memcpy(p, &npf_fmt_d2[h * 2], 2);
			p += 2;
		} else {
			memcpy(p, &npf_fmt_dec3[h * 4 + 1], 4);
			p += 3;
		}
		memcpy(p, &npf_fmt_dec3[l * 4 + 1], 4);
		return p + 3;
	}
	if (v < 100000000)
		return npf_fmt_u32_8(p, (uint32_t)v);
	return npf_fmt_u64_big(p, v);
}

/* Decimal @v, with a '-' when negative; returns the end */
static inline __attribute__((always_inline)) char *
npf_fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return npf_fmt_u64(p, -(uint64_t)v);
	}
	return npf_fmt_u64(p, (uint64_t)v);
}

/*
 * @ns as µs with exactly 3 decimals ("-1.500" for -1500), from the
 * integer: exact over the whole int64 range; returns the end.
 */
static inline __attribute__((always_inline)) char *
npf_fmt_us(char *p, int64_t ns)
{
	uint64_t a = (uint64_t)ns;

	if (ns < 0) {
		*p++ = '-';
		a = -(uint64_t)ns;
	}
	p = npf_fmt_u64(p, a / 1000);
	memcpy(p, &npf_fmt_dec3[(a % 1000) * 4], 4);
	return p + 4;
}

/*
 * @v / 10^@dec with exactly @dec decimals (0 <= @dec <= 9; 0: an integer),
 * the sign in front ("-0.005" for -5 with 3); returns the end.
 */
static inline char *npf_fmt_fixed(char *p, int64_t v, unsigned int dec)
{
	static const uint32_t pow10[10] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
		100000000, 1000000000,
	};
	uint64_t a = (uint64_t)v;
	uint64_t w;

	if (!dec)
		return npf_fmt_i64(p, v);
	if (dec > 9)
		dec = 9;
	if (v < 0) {
		*p++ = '-';
		a = -(uint64_t)v;
	}
	p = npf_fmt_u64(p, a / pow10[dec]);
	*p++ = '.';
	a %= pow10[dec];
	if (dec == 9) {		/* one digit in front of the last 8 */
		*p++ = (char)('0' + a / 100000000);
		a %= 100000000;
		dec = 8;
	}
	/* the last @dec of the 8 digits */
	w = npf_fmt_digits8((uint32_t)a);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w <<= 8 * (8 - dec);
#else
	w >>= 8 * (8 - dec);
#endif
	npf_fmt_put8(p, w);
	return p + dec;
}

/* Bytes 0..7: the hex digits of @v (32 bits), the first in the lowest */
static inline uint64_t npf_fmt_hex8(uint32_t v)
{
	uint64_t x = v, nine;

	/* one nibble a byte, the lowest nibble in the lowest byte */
	x = (x | x << 16) & 0x0000ffff0000ffffull;
	x = (x | x << 8) & 0x00ff00ff00ff00ffull;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full;
	/* 0x01 in the bytes above 9 */
	nine = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
	x += 0x3030303030303030ull + nine * ('a' - '9' - 1);
#if __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);	/* the highest nibble first */
#endif
	return x;
}

/* @v as 16 lowercase hex digits, zero-padded; returns the end */
static inline char *npf_fmt_hex16(char *p, uint64_t v)
{
	uint64_t a = npf_fmt_hex8((uint32_t)(v >> 32));
	uint64_t b = npf_fmt_hex8((uint32_t)v);

	memcpy(p, &a, 8);
	memcpy(p + 8, &b, 8);
	return p + 16;
}

/* @v in lowercase hex without leading zeros ("0" for 0); returns the end */
static inline char *npf_fmt_hex(char *p, uint64_t v)
{
	unsigned int n = (67 - (unsigned int)__builtin_clzll(v | 1)) / 4;
	char tmp[48];

	/* the 16 digits at tmp[16..32): the last n of them, 16 bytes copied */
	npf_fmt_hex16(tmp + 16, v);
	memset(tmp + 32, 0, 16);
	memcpy(p, tmp + 32 - n, 16);
	return p + n;
}

#endif /* NPUPROF_FMT_H */
