// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the exporters' number formatters (lib/npuprof/fmt.h): each
 * writer against snprintf() on every value below 10^6, around every power
 * of ten and of two, at the int64 and uint64 limits and on a fixed-seed
 * sample of the whole range; the writers' stores past their end stay
 * within NPF_FMT_SLACK. Deterministic; no wall time.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fmt.h"

#define BUF	(64 + NPF_FMT_SLACK)

static uint64_t rng_next(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The values worth checking: around powers of 10 and 2, the limits */
static size_t edge_values(uint64_t *v, size_t cap)
{
	size_t n = 0;
	uint64_t p;
	int i, d;

	for (p = 1, i = 0; i < 20; i++, p *= 10)
		for (d = -2; d <= 2; d++)
			if (n < cap && (d >= 0 || p >= (uint64_t)-d))
				v[n++] = p + (uint64_t)(int64_t)d;
	for (i = 0; i < 64; i++)
		for (d = -1; d <= 1; d++)
			if (n < cap)
				v[n++] = (1ull << i) + (uint64_t)(int64_t)d;
	if (n + 3 <= cap) {
		v[n++] = UINT64_MAX;
		v[n++] = UINT64_MAX - 1;
		v[n++] = (uint64_t)INT64_MAX;
	}
	return n;
}

/* Format with @fn into a buffer full of 'x'; check text, end and slack */
#define CHECK_FMT(call, expect_fmt, ...) do {				\
	char buf_[BUF], want_[64];					\
	char *p_ = buf_, *end_;						\
	int n_;								\
									\
	memset(buf_, 'x', sizeof(buf_));				\
	end_ = call;							\
	n_ = snprintf(want_, sizeof(want_), expect_fmt, __VA_ARGS__);	\
	ASSERT_EQ(n_, end_ - p_);					\
	ASSERT_EQ(0, memcmp(buf_, want_, (size_t)n_)) {			\
		TH_LOG("got %.*s want %s", n_, buf_, want_);		\
	}								\
	(void)p_;							\
} while (0)

TEST(u64_small_exhaustive)
{
	uint64_t v;

	for (v = 0; v < 1000000; v++)
		CHECK_FMT(npf_fmt_u64(p_, v), "%" PRIu64, v);
}

TEST(u64_edges_and_sample)
{
	uint64_t v[256], st = 1;
	size_t n = edge_values(v, 256), i;

	ASSERT_GT(n, 150);
	for (i = 0; i < n; i++)
		CHECK_FMT(npf_fmt_u64(p_, v[i]), "%" PRIu64, v[i]);
	for (i = 0; i < 2000000; i++) {
		/* every magnitude: a random value shifted right 0..63 bits */
		uint64_t x = rng_next(&st);

		x >>= x & 63;
		CHECK_FMT(npf_fmt_u64(p_, x), "%" PRIu64, x);
	}
}

/* The writers store whole words: nothing beyond NPF_FMT_SLACK changes */
TEST(slack)
{
	char buf[BUF];
	char *end;

	memset(buf, 'x', sizeof(buf));
	end = npf_fmt_u64(buf, UINT64_MAX);
	ASSERT_EQ(20, end - buf);
	ASSERT_LE(NPF_FMT_U64_MAX + NPF_FMT_SLACK, BUF);
	EXPECT_EQ('x', buf[20 + NPF_FMT_SLACK]);
	memset(buf, 'x', sizeof(buf));
	end = npf_fmt_u64(buf, 7);
	ASSERT_EQ(1, end - buf);
	EXPECT_EQ('x', buf[1]);
	memset(buf, 'x', sizeof(buf));
	end = npf_fmt_hex(buf, 0xabc);
	ASSERT_EQ(3, end - buf);
	EXPECT_EQ('x', buf[3 + NPF_FMT_SLACK]);
}

TEST(i64)
{
	uint64_t v[256], st = 2;
	size_t n = edge_values(v, 256), i;

	for (i = 0; i < n; i++) {
		int64_t x = (int64_t)v[i];

		CHECK_FMT(npf_fmt_i64(p_, x), "%" PRId64, x);
		CHECK_FMT(npf_fmt_i64(p_, -x), "%" PRId64, -x);
	}
	CHECK_FMT(npf_fmt_i64(p_, INT64_MIN), "%" PRId64, INT64_MIN);
	CHECK_FMT(npf_fmt_i64(p_, 0), "%" PRId64, (int64_t)0);
	for (i = 0; i < 200000; i++) {
		int64_t x = (int64_t)rng_next(&st);

		x >>= (uint64_t)x & 63;
		CHECK_FMT(npf_fmt_i64(p_, x), "%" PRId64, x);
	}
}

/* µs with 3 decimals, from the integer: the sign and the ns digits */
static void us_ref(char *s, size_t len, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	snprintf(s, len, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "",
		 a / 1000, (unsigned int)(a % 1000));
}

TEST(us)
{
	static const struct { int64_t ns; const char *text; } fixed[] = {
		{ 0, "0.000" }, { 1, "0.001" }, { 999, "0.999" },
		{ 1000, "1.000" }, { -1, "-0.001" }, { -1500, "-1.500" },
		{ 5000000123ll, "5000000.123" },
		{ INT64_MAX, "9223372036854775.807" },
		{ INT64_MIN, "-9223372036854775.808" },
	};
	uint64_t v[256], st = 3;
	size_t n = edge_values(v, 256), i;
	char want[64];

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		CHECK_FMT(npf_fmt_us(p_, fixed[i].ns), "%s", fixed[i].text);
	for (i = 0; i < n; i++) {
		int64_t x = (int64_t)v[i];

		us_ref(want, sizeof(want), x);
		CHECK_FMT(npf_fmt_us(p_, x), "%s", want);
		us_ref(want, sizeof(want), -x);
		CHECK_FMT(npf_fmt_us(p_, -x), "%s", want);
	}
	for (i = 0; i < 300000; i++) {
		int64_t x = (int64_t)rng_next(&st);

		x >>= (uint64_t)x & 63;
		us_ref(want, sizeof(want), x);
		CHECK_FMT(npf_fmt_us(p_, x), "%s", want);
	}
	for (i = 0; i < 2000; i++) {	/* every decimal triple */
		us_ref(want, sizeof(want), (int64_t)i);
		CHECK_FMT(npf_fmt_us(p_, (int64_t)i), "%s", want);
	}
}

TEST(fixed)
{
	static const struct {
		int64_t v;
		unsigned int dec;
		const char *text;
	} fixed[] = {
		{ 0, 0, "0" }, { 0, 1, "0.0" }, { 0, 9, "0.000000000" },
		{ 1234, 1, "123.4" }, { 4096000, 3, "4096.000" },
		{ -5, 3, "-0.005" }, { -12345, 2, "-123.45" },
		{ 1000000000, 9, "1.000000000" },
		{ 1234567891, 9, "1.234567891" },
		{ 123456789, 8, "1.23456789" },
		{ INT64_MIN, 3, "-9223372036854775.808" },
		{ INT64_MAX, 9, "9223372036.854775807" },
		{ -7, 0, "-7" },
	};
	uint64_t st = 4;
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		CHECK_FMT(npf_fmt_fixed(p_, fixed[i].v, fixed[i].dec), "%s",
			  fixed[i].text);
	for (i = 0; i < 200000; i++) {
		int64_t x = (int64_t)rng_next(&st), p10 = 1;
		unsigned int dec = (unsigned int)(rng_next(&st) % 10), k;
		uint64_t a;
		char want[64];

		x >>= (uint64_t)x & 63;
		for (k = 0; k < dec; k++)
			p10 *= 10;
		a = x < 0 ? -(uint64_t)x : (uint64_t)x;
		if (dec)
			snprintf(want, sizeof(want), "%s%" PRIu64 ".%0*" PRIu64,
				 x < 0 ? "-" : "", a / (uint64_t)p10, (int)dec,
				 a % (uint64_t)p10);
		else
			snprintf(want, sizeof(want), "%" PRId64, x);
		CHECK_FMT(npf_fmt_fixed(p_, x, dec), "%s", want);
	}
}

TEST(hex)
{
	uint64_t v[256], st = 5;
	size_t n = edge_values(v, 256), i;

	CHECK_FMT(npf_fmt_hex16(p_, 0), "%s", "0000000000000000");
	CHECK_FMT(npf_fmt_hex16(p_, 0x0123456789abcdefull), "%s",
		  "0123456789abcdef");
	CHECK_FMT(npf_fmt_hex(p_, 0), "%s", "0");
	CHECK_FMT(npf_fmt_hex(p_, 0x1000000000000ull), "%s", "1000000000000");
	CHECK_FMT(npf_fmt_hex(p_, UINT64_MAX), "%s", "ffffffffffffffff");
	for (i = 0; i < n; i++) {
		CHECK_FMT(npf_fmt_hex16(p_, v[i]), "%016" PRIx64, v[i]);
		CHECK_FMT(npf_fmt_hex(p_, v[i]), "%" PRIx64, v[i]);
	}
	for (i = 0; i < 500000; i++) {
		uint64_t x = rng_next(&st);

		x >>= x & 63;
		CHECK_FMT(npf_fmt_hex16(p_, x), "%016" PRIx64, x);
		CHECK_FMT(npf_fmt_hex(p_, x), "%" PRIx64, x);
	}
	/* every nibble value in every position */
	for (i = 0; i < 16 * 16; i++) {
		uint64_t x = (uint64_t)(i % 16) << (4 * (i / 16));

		CHECK_FMT(npf_fmt_hex(p_, x), "%" PRIx64, x);
	}
}

TEST_HARNESS_MAIN
