// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the clock fit (lib/analysis/clock.c): device ticks mapped to
 * host ns from bracketed CLOCK samples of a synthetic device clock whose
 * truth is known (offset, drift, drift steps), with the error bound checked
 * against that truth at many ticks in and beyond the trace. Deterministic:
 * a fixed-seed generator; no wall time. Each test prints its sample count
 * and the bound achieved as a "# " line, for information.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "clock.h"
#include "trace.h"
#include "trace_format.h"

/* ---- a device clock whose truth is known ---- */

/*
 * Host ns of tick t: h0 + integral of k * (1 + ppm[j] / 1e6) from t0,
 * where ppm[j] applies between kink[j - 1] and kink[j].
 */
struct truth {
	uint64_t t0;
	int64_t h0;
	double k;		/* nominal ns per tick */
	unsigned int nk;
	uint64_t kink[4];
	double ppm[5];
};

static double sdiff(uint64_t a, uint64_t b)
{
	return a >= b ? (double)(a - b) : -(double)(b - a);
}

/* truth(t) - h0, in ns (exact to ~1e-3 ns for the spans used here) */
static double truth_rel(const struct truth *tr, uint64_t t)
{
	double d = sdiff(t, tr->t0), acc = 0, x0 = 0;
	unsigned int j;

	for (j = 0; j < tr->nk; j++) {
		double xk = sdiff(tr->kink[j], tr->t0);

		if (d <= xk)
			break;
		acc += (xk - x0) * tr->k * (1 + tr->ppm[j] * 1e-6);
		x0 = xk;
	}
	return acc + (d - x0) * tr->k * (1 + tr->ppm[j] * 1e-6);
}

static uint64_t rng_next(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double rng_unit(uint64_t *st)
{
	return (double)(rng_next(st) >> 11) * 0x1p-53;
}

/* A bracket of width ~@w ns around the truth at @tick, latched at @u */
static struct npf_clock_sample bracket_at(const struct truth *tr,
					  uint64_t tick, double w, double u)
{
	double rel = truth_rel(tr, tick);
	struct npf_clock_sample s;

	s.tick = tick;
	s.before_ns = (uint64_t)(tr->h0 + (int64_t)floor(rel - u * w));
	s.after_ns = (uint64_t)(tr->h0 + (int64_t)ceil(rel + (1 - u) * w));
	return s;
}

/*
 * @n samples every @period ticks (+ up to 10% jitter) from tr->t0, widths
 * uniform in [@wmin, @wmax] ns, the latch uniform inside each bracket.
 */
static void gen(const struct truth *tr, struct npf_clock_sample *s, size_t n,
		uint64_t period, double wmin, double wmax, uint64_t seed)
{
	uint64_t st = seed;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t t = tr->t0 + i * period + rng_next(&st) % (period / 10);
		double w = wmin + (wmax - wmin) * rng_unit(&st);

		s[i] = bracket_at(tr, t, w, rng_unit(&st));
	}
}

/*
 * Map @count ticks spread over [@from, @to] plus every sample tick; count
 * the mappings whose truth lies outside ns +- err_ns (the truth's own
 * rounding is ~1e-3 ns, allowed for), and report the largest bound and
 * the largest error seen.
 */
struct check {
	unsigned int mapped;
	unsigned int invalid;
	unsigned int outside;
	uint64_t max_err;
	double max_dev;
};

static void check_range(const struct npf_clock_fit *fit,
			const struct truth *tr, uint64_t from, uint64_t to,
			unsigned int count, const struct npf_clock_sample *s,
			size_t n, struct check *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < count + n; i++) {
		struct npuprof_clock_map m;
		uint64_t t;
		double dev;

		if (i < count)
			t = from + (uint64_t)((double)(to - from) * i /
					      (count - 1));
		else
			t = s[i - count].tick;
		npf_clock_map(fit, t, &m);
		c->mapped++;
		if (!m.valid) {
			c->invalid++;
			continue;
		}
		dev = fabs((double)(m.ns - tr->h0) - truth_rel(tr, t));
		if (dev > (double)m.err_ns + 0.01)
			c->outside++;
		if (m.err_ns > c->max_err)
			c->max_err = m.err_ns;
		if (dev > c->max_dev)
			c->max_dev = dev;
	}
}

/* An information line in the TAP output (the test runs in a child) */
static void __attribute__((format(printf, 1, 2))) info(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#define GHZ		1000000000ull
#define PERIOD		100000000ull	/* 100 ms at 1 GHz */

/*
 * Offset and drift under noisy brackets (10-300 us, the latch uniform
 * inside). Expectation (clock-fit.rst): the bound is half the spread of
 * the lines through every bracket widened by the model tolerance tol,
 * plus 2 tol. tol is the median width / 16 = 155 us / 16 ~ 9.7 us. The
 * lines are pinned by the brackets whose edge lies closest to the truth:
 * the gap u * w (u uniform) has density E[1/w] = ln(300/10) / 290 us =
 * 1 / (85 us) at 0, so among the ~100 samples of either end the smallest
 * is < 1 us and the half spread is tol + ~1 us: the bound is ~3 tol ~
 * 30 us, growing with the slope spread (~1e-9) beyond the trace.
 * Asserted: < 35 us everywhere checked (the issue asks < 50 us), at least
 * 2 tol, and the drift recovered to 0.1 ppm.
 */
TEST(offset_and_drift)
{
	struct truth tr = { .t0 = 123456789012ull, .h0 = 5000000000ll + 4321,
			    .k = 1.0, .ppm = { 237 } };
	const size_t n = 600;
	struct npf_clock_sample *s = malloc(n * sizeof(*s));
	struct npf_clock_fit fit;
	struct check c;
	uint64_t span;

	ASSERT_NE(NULL, s);
	gen(&tr, s, n, PERIOD, 10000, 300000, 1);
	span = s[n - 1].tick - s[0].tick;
	ASSERT_EQ(0, npf_clock_fit_build(s, n, GHZ, &fit));
	EXPECT_EQ(1, fit.nseg);
	EXPECT_EQ(n, fit.samples);
	EXPECT_EQ(n, fit.used);
	/* recovered drift and offset */
	EXPECT_LT(fabs(fit.seg[0].ns_per_tick - (1 + 237e-6)), 1e-7);
	check_range(&fit, &tr, s[0].tick - span / 20, s[n - 1].tick + span / 20,
		    4000, s, n, &c);
	EXPECT_EQ(0, c.invalid);
	EXPECT_EQ(0, c.outside);
	EXPECT_LT(c.max_err, 35000);
	EXPECT_LT(fit.err_ns, 35000);
	EXPECT_GE(fit.err_ns, 2 * 155000 / 16 * 9 / 10);
	EXPECT_LE(c.max_dev, (double)c.max_err);
	info("offset_and_drift: %zu samples, %u used, bound %llu ns (max %llu ns at +-5%% beyond), largest error %.0f ns",
	       n, fit.used, (unsigned long long)fit.err_ns,
	       (unsigned long long)c.max_err, c.max_dev);
	npf_clock_fit_release(&fit);
	free(s);
}

/* Largest |truth - straight line through the truth at @a and @b| in [a, b] */
static double chord_dev(const struct truth *tr, uint64_t a, uint64_t b)
{
	double ya = truth_rel(tr, a), yb = truth_rel(tr, b), dev = 0;
	unsigned int i;

	for (i = 0; i <= 1000; i++) {
		uint64_t t = a + (uint64_t)((double)(b - a) * i / 1000);
		double y = ya + (yb - ya) * sdiff(t, a) / sdiff(b, a);

		dev = fmax(dev, fabs(truth_rel(tr, t) - y));
	}
	return dev;
}

/*
 * A drift step mid-trace (+100 ppm, then -300 ppm, 30 s at 10 Hz): two
 * pieces at least, the truth within the bound everywhere, the bound small
 * away from the step and at the step bounded by the two lines' spread over
 * the few samples around it (400 ppm * ~0.3 s ~ 120 us), whereas the best
 * single line is off by half the chord deviation (400 ppm * 7.5 s / 2
 * ~ 1.5 ms).
 */
TEST(drift_step)
{
	struct truth tr = { .t0 = 50000000000ull, .h0 = 7000000000ll,
			    .k = 1.0, .nk = 1,
			    .kink = { 50000000000ull + 150 * PERIOD + 3456789 },
			    .ppm = { 100, -300 } };
	const size_t n = 300;
	struct npf_clock_sample *s = malloc(n * sizeof(*s));
	struct npf_clock_fit fit;
	struct check c, away;
	uint64_t span, before;
	double single;

	ASSERT_NE(NULL, s);
	gen(&tr, s, n, PERIOD, 10000, 300000, 2);
	span = s[n - 1].tick - s[0].tick;
	ASSERT_EQ(0, npf_clock_fit_build(s, n, GHZ, &fit));
	EXPECT_GE(fit.nseg, 2);
	EXPECT_LE(fit.nseg, 3);
	check_range(&fit, &tr, s[0].tick - span / 20, s[n - 1].tick + span / 20,
		    6000, s, n, &c);
	EXPECT_EQ(0, c.invalid);
	EXPECT_EQ(0, c.outside);
	EXPECT_LT(c.max_err, 200000);
	/*
	 * away from the step (> 1 s): as a single drift with half the
	 * samples, a few us (85 us / m per side, m ~ 20-50 near the ends of
	 * each piece)
	 */
	check_range(&fit, &tr, s[0].tick, tr.kink[0] - GHZ, 2000, NULL, 0,
		    &away);
	EXPECT_EQ(0, away.outside);
	EXPECT_LT(away.max_err, 50000);
	before = away.max_err;
	check_range(&fit, &tr, tr.kink[0] + GHZ, s[n - 1].tick, 2000, NULL, 0,
		    &away);
	EXPECT_EQ(0, away.outside);
	EXPECT_LT(away.max_err, 50000);
	if (before > away.max_err)
		away.max_err = before;
	/* the test can fail: no single line comes near */
	single = chord_dev(&tr, s[0].tick, s[n - 1].tick) / 2;
	EXPECT_GT(single, 1000000);
	EXPECT_GT(single, 5.0 * (double)c.max_err);
	info("drift_step: %zu samples, %u pieces, bound %llu ns away from the step, %llu ns at it; a single line is off by >= %.0f ns",
	     n, fit.nseg, (unsigned long long)away.max_err,
	     (unsigned long long)c.max_err, single);
	npf_clock_fit_release(&fit);
	free(s);
}

/*
 * Outliers inserted between the samples of a clean trace: brackets shifted
 * by 1-5 ms (and one by an hour), and 50 ms wide ones. All are dropped,
 * none of the clean samples is, and the fit is the clean one to within its
 * bound.
 */
TEST(outliers)
{
	struct truth tr = { .t0 = 9000000000ull, .h0 = 3000000000ll,
			    .k = 1.0, .ppm = { -155 } };
	const size_t n = 400, nbad = 11;
	struct npf_clock_sample *s = malloc((n + nbad) * sizeof(*s));
	struct npf_clock_sample *clean = malloc(n * sizeof(*s));
	struct npf_clock_fit a, b;
	struct check ca, cb;
	uint64_t st = 77;
	unsigned int i;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, clean);
	gen(&tr, s, n, PERIOD, 10000, 300000, 3);
	memcpy(clean, s, n * sizeof(*s));
	for (i = 0; i < nbad; i++) {
		uint64_t t = s[20 + i * 35].tick + PERIOD / 2;
		struct npf_clock_sample *o = &s[n + i];

		if (i < 5) {		/* narrow, shifted 1-5 ms */
			uint64_t sh = 1000000 * (i + 1);

			*o = bracket_at(&tr, t, 50000, rng_unit(&st));
			o->before_ns += i & 1 ? sh : -sh;
			o->after_ns += i & 1 ? sh : -sh;
		} else if (i < 10) {	/* 50 ms wide, truth inside */
			*o = bracket_at(&tr, t, 50e6, rng_unit(&st));
		} else {		/* an hour late */
			*o = bracket_at(&tr, t, 100000, 0.5);
			o->before_ns += 3600 * GHZ;
			o->after_ns += 3600 * GHZ;
		}
	}
	ASSERT_EQ(0, npf_clock_fit_build(clean, n, GHZ, &a));
	ASSERT_EQ(0, npf_clock_fit_build(s, n + nbad, GHZ, &b));
	EXPECT_EQ(1, b.nseg);
	EXPECT_EQ(n + nbad, b.samples);
	EXPECT_EQ(n, b.used);
	EXPECT_EQ(a.used, b.used);
	check_range(&a, &tr, clean[0].tick, clean[n - 1].tick, 2000, NULL, 0,
		    &ca);
	check_range(&b, &tr, clean[0].tick, clean[n - 1].tick, 2000, clean, n,
		    &cb);
	EXPECT_EQ(0, cb.outside);
	EXPECT_EQ(0, cb.invalid);
	EXPECT_LE(cb.max_err, ca.max_err * 11 / 10 + 100);
	EXPECT_LT(fabs(a.seg[0].ns_per_tick - b.seg[0].ns_per_tick), 1e-12);
	info("outliers: %zu samples + %zu outliers, %u used, bound %llu ns (clean: %llu ns)",
	     n, nbad, b.used, (unsigned long long)cb.max_err,
	     (unsigned long long)ca.max_err);
	npf_clock_fit_release(&a);
	npf_clock_fit_release(&b);
	free(clean);
	free(s);
}

TEST(no_sample)
{
	struct npf_clock_fit fit;
	struct npuprof_clock_map m = { .valid = 1 };

	ASSERT_EQ(0, npf_clock_fit_build(NULL, 0, GHZ, &fit));
	EXPECT_EQ(0, fit.nseg);
	EXPECT_EQ(0, fit.used);
	npf_clock_map(&fit, 12345, &m);
	EXPECT_EQ(0, m.valid);
	npf_clock_fit_release(&fit);
	npf_clock_fit_release(&fit);	/* twice is harmless */
}

TEST(clock_hz_zero)
{
	struct npf_clock_sample one = { 1000, 5, 2000 };
	struct npf_clock_fit fit;
	struct npuprof_clock_map m = { .valid = 1 };

	EXPECT_EQ(-EINVAL, npf_clock_fit_build(&one, 1, 0, &fit));
	EXPECT_EQ(0, fit.nseg);
	npf_clock_map(&fit, 5, &m);
	EXPECT_EQ(0, m.valid);
	EXPECT_EQ(-EINVAL, npf_clock_fit_build(NULL, 3, GHZ, &fit));
}

/*
 * One sample: the nominal rate through it, the bound its half-width plus
 * 1000 ppm of the distance (the documented assumption); a clock 500 ppm
 * off stays inside, 1 s either side.
 */
TEST(one_sample)
{
	struct truth tr = { .t0 = 4 * GHZ, .h0 = 1000000000ll, .k = 2.5,
			    .ppm = { 500 } };
	struct npf_clock_sample s = bracket_at(&tr, 4 * GHZ + 1000, 40000, 0.3);
	uint64_t w = s.after_ns - s.before_ns;
	uint64_t tol = w / 16 > 1000 ? w / 16 : 1000;	/* model tolerance */
	struct npf_clock_fit fit;
	struct npuprof_clock_map m;
	struct check c;

	ASSERT_EQ(0, npf_clock_fit_build(&s, 1, 400000000, &fit));
	ASSERT_EQ(1, fit.nseg);
	EXPECT_EQ(1, fit.used);
	EXPECT_EQ(2.5, fit.seg[0].ns_per_tick);
	npf_clock_map(&fit, s.tick, &m);
	ASSERT_EQ(1, m.valid);
	EXPECT_LE(llabs(m.ns - (int64_t)(s.before_ns + w / 2)), 1);
	EXPECT_LE(m.err_ns, w / 2 + 3 * tol + 3);
	EXPECT_GE(m.err_ns, w / 2 + 3 * tol);
	/* 1 s later (400M ticks): + 1 ms */
	npf_clock_map(&fit, s.tick + 400000000, &m);
	EXPECT_GE(m.err_ns, w / 2 + 3 * tol + 1000000);
	EXPECT_LE(m.err_ns, w / 2 + 3 * tol + 1000000 + 3);
	check_range(&fit, &tr, s.tick - 400000000, s.tick + 400000000, 1001,
		    &s, 1, &c);
	EXPECT_EQ(0, c.outside);
	EXPECT_EQ(0, c.invalid);
	npf_clock_fit_release(&fit);
}

TEST(two_samples)
{
	struct truth tr = { .t0 = 4 * GHZ, .h0 = 1000000000ll, .k = 1.0,
			    .ppm = { -300 } };
	struct npf_clock_sample s[2] = {
		bracket_at(&tr, 4 * GHZ + 10, 20000, 0.9),
		bracket_at(&tr, 6 * GHZ, 30000, 0.2),
	};
	struct npf_clock_fit fit;
	struct check c;

	ASSERT_EQ(0, npf_clock_fit_build(s, 2, GHZ, &fit));
	ASSERT_EQ(1, fit.nseg);
	EXPECT_EQ(2, fit.used);
	check_range(&fit, &tr, 3 * GHZ, 7 * GHZ, 2001, s, 2, &c);
	EXPECT_EQ(0, c.outside);
	EXPECT_EQ(0, c.invalid);
	/* inside: no worse than the wider half-width + 3 tolerances */
	EXPECT_LE(fit.err_ns, 15000 + 3 * 30000 / 16 + 3);
	npf_clock_fit_release(&fit);
}

static void expect_same_fit(struct __test_metadata *_metadata,
			    const struct npf_clock_fit *a,
			    const struct npf_clock_fit *b)
{
	ASSERT_EQ(a->nseg, b->nseg);
	EXPECT_EQ(a->used, b->used);
	EXPECT_EQ(a->err_ns, b->err_ns);
	EXPECT_EQ(0, memcmp(a->seg, b->seg, a->nseg * sizeof(*a->seg)));
}

/*
 * Input order does not matter; exact duplicates, same-tick brackets that
 * contain the sample's bracket, and a same-tick bracket that contradicts it
 * (wider, disjoint) change nothing; corrupt samples (after < before) are
 * dropped.
 */
TEST(unsorted_duplicates_corrupt)
{
	struct truth tr = { .t0 = 20 * GHZ, .h0 = 900000000ll, .k = 1.0,
			    .ppm = { 42 } };
	const size_t n = 200, extra = 61;
	struct npf_clock_sample *s = malloc(n * sizeof(*s));
	struct npf_clock_sample *u = malloc((n + extra) * sizeof(*u));
	struct npf_clock_fit a, b;
	uint64_t st = 5;
	size_t i;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, u);
	gen(&tr, s, n, PERIOD, 10000, 300000, 4);
	memcpy(u, s, n * sizeof(*s));
	for (i = 0; i < 20; i++) {
		u[n + i] = s[i * 7];				/* exact */
		u[n + 20 + i] = s[i * 9 + 1];			/* wider */
		u[n + 20 + i].before_ns -= 1000 * (i + 1);
		u[n + 20 + i].after_ns += 500 * i;
		u[n + 40 + i] = s[i * 3 + 2];			/* corrupt */
		u[n + 40 + i].after_ns = u[n + 40 + i].before_ns - 1 - i;
	}
	u[n + 60] = s[100];					/* disjoint */
	u[n + 60].before_ns = s[100].after_ns + 1000;
	u[n + 60].after_ns = s[100].after_ns + 1000000;
	for (i = n + extra - 1; i > 0; i--) {			/* shuffle */
		size_t j = rng_next(&st) % (i + 1);
		struct npf_clock_sample t = u[i];

		u[i] = u[j];
		u[j] = t;
	}
	ASSERT_EQ(0, npf_clock_fit_build(s, n, GHZ, &a));
	ASSERT_EQ(0, npf_clock_fit_build(u, n + extra, GHZ, &b));
	EXPECT_EQ(n + extra, b.samples);
	expect_same_fit(_metadata, &a, &b);
	npf_clock_fit_release(&a);
	npf_clock_fit_release(&b);
	free(u);
	free(s);
}

/* Brackets of zero width at an integer truth: exact to the rounding */
TEST(zero_width)
{
	struct truth tr = { .t0 = 3 * GHZ, .h0 = 123456789012ll, .k = 1.0 };
	struct npf_clock_sample s[50];
	struct npf_clock_fit fit;
	struct check c;
	unsigned int i;

	for (i = 0; i < 50; i++) {
		s[i].tick = tr.t0 + i * PERIOD + i * 17;
		s[i].before_ns = s[i].after_ns = (uint64_t)tr.h0 + i * PERIOD +
						  i * 17;
	}
	ASSERT_EQ(0, npf_clock_fit_build(s, 50, GHZ, &fit));
	EXPECT_EQ(1, fit.nseg);
	EXPECT_EQ(50, fit.used);
	EXPECT_LE(fit.err_ns, 3 * 1000 + 3);	/* the tolerance floor */
	check_range(&fit, &tr, tr.t0, tr.t0 + 49 * PERIOD, 999, s, 50, &c);
	EXPECT_EQ(0, c.outside);
	EXPECT_LE(c.max_dev, 1);
	npf_clock_fit_release(&fit);
}

/*
 * Ticks near 2^63 and host ns near 1e18 map exactly as the same trace at
 * small values (the fit works relative to its samples); tick 0, 2^63
 * ticks away, still maps (before the fit's origin, negative-going) within
 * its much larger bound; tick 2^64 - 1 maps beyond int64 ns: invalid.
 */
TEST(extreme_values)
{
	struct truth big = { .t0 = (1ull << 63) - 2000 * GHZ,
			     .h0 = 1000000000000000000ll, .k = 1.0,
			     .ppm = { -411 } };
	struct truth small = big;
	const size_t n = 300;
	struct npf_clock_sample *sb = malloc(n * sizeof(*sb));
	struct npf_clock_sample *ss = malloc(n * sizeof(*ss));
	struct npf_clock_fit fb, fs;
	struct npuprof_clock_map mb, ms;
	struct check c;
	unsigned int i, same = 0;
	uint64_t span;
	double dev;

	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, ss);
	small.t0 = 1000;
	small.h0 = 2000;
	gen(&big, sb, n, PERIOD, 10000, 300000, 6);
	gen(&small, ss, n, PERIOD, 10000, 300000, 6);
	span = sb[n - 1].tick - sb[0].tick;
	ASSERT_EQ(0, npf_clock_fit_build(sb, n, GHZ, &fb));
	ASSERT_EQ(0, npf_clock_fit_build(ss, n, GHZ, &fs));
	ASSERT_EQ(fs.nseg, fb.nseg);
	check_range(&fb, &big, sb[0].tick - span / 20, sb[n - 1].tick + span / 20,
		    3000, sb, n, &c);
	EXPECT_EQ(0, c.outside);
	EXPECT_EQ(0, c.invalid);
	EXPECT_LT(c.max_err, 35000);
	for (i = 0; i < 1000; i++) {
		uint64_t d = span / 999 * i;

		npf_clock_map(&fb, sb[0].tick + d, &mb);
		npf_clock_map(&fs, ss[0].tick + d, &ms);
		same += mb.valid && ms.valid && mb.err_ns == ms.err_ns &&
			mb.ns - big.h0 == ms.ns - small.h0;
	}
	EXPECT_EQ(1000, same);
	npf_clock_map(&fb, UINT64_MAX, &ms);
	EXPECT_EQ(0, ms.valid);
	npf_clock_map(&fb, 0, &mb);
	ASSERT_EQ(1, mb.valid);
	EXPECT_LT(mb.ns, 0);
	dev = fabs((double)mb.ns - (double)big.h0 - truth_rel(&big, 0));
	EXPECT_LE(dev, (double)mb.err_ns);
	info("extreme_values: %zu samples at tick 2^63 - 2e12, ns 1e18: bound %llu ns; tick 0 maps to %lld +- %llu ns",
	     n, (unsigned long long)c.max_err, (long long)mb.ns,
	     (unsigned long long)mb.err_ns);
	npf_clock_fit_release(&fb);
	npf_clock_fit_release(&fs);
	free(sb);
	free(ss);
}

/*
 * The drifting clock of the long traces: four drift steps, at a fifth,
 * two fifths... of @n samples at PERIOD
 */
static void drift_truth(struct truth *tr, size_t n)
{
	static const struct truth t = {
		.t0 = 77 * GHZ, .h0 = 600000000000ll, .k = 1.0, .nk = 4,
		.ppm = { 250, -120, 480, -300, 10 },
	};
	unsigned int i;

	*tr = t;
	for (i = 0; i < 4; i++)
		tr->kink[i] = t.t0 + (i + 1) * (n / 5) * PERIOD + 12345678;
}

/*
 * A long trace: 100k samples (2.8 h at 10 Hz), four drift changes, 20-200
 * us brackets, 50 outliers shifted by 1-9 ms. The truth is within the
 * bound at 20k ticks, the pieces follow the drift changes (no spurious
 * splitting), and the bound stays small.
 */
TEST(long_trace)
{
	struct truth tr;
	const size_t n = 100000;
	struct npf_clock_sample *s = malloc(n * sizeof(*s));
	struct npf_clock_fit fit;
	struct check c;
	uint64_t st = 99;
	unsigned int i;

	ASSERT_NE(NULL, s);
	drift_truth(&tr, n);
	gen(&tr, s, n, PERIOD, 20000, 200000, 7);
	for (i = 0; i < 50; i++) {
		struct npf_clock_sample *o = &s[rng_next(&st) % n];
		uint64_t sh = 1000000 * (1 + i % 9);

		o->before_ns += i & 1 ? sh : -sh;
		o->after_ns += i & 1 ? sh : -sh;
	}
	ASSERT_EQ(0, npf_clock_fit_build(s, n, GHZ, &fit));
	EXPECT_GE(fit.nseg, 5);
	EXPECT_LE(fit.nseg, 9);
	EXPECT_GE(fit.used, n - 50 - 20);
	EXPECT_LE(fit.used, n - 50);
	check_range(&fit, &tr, s[0].tick, s[n - 1].tick, 20000, NULL, 0, &c);
	EXPECT_EQ(0, c.outside);
	EXPECT_EQ(0, c.invalid);
	EXPECT_LT(fit.err_ns, 35000);
	EXPECT_LT(c.max_err, 200000);
	info("long_trace: %zu samples, %u used, %u pieces, bound %llu ns in the pieces, %llu ns at worst (drift steps)",
	     n, fit.used, fit.nseg, (unsigned long long)fit.err_ns,
	     (unsigned long long)c.max_err);
	npf_clock_fit_release(&fit);
	free(s);
}

/* Whether two mappings are the same, field by field */
static bool same_map(const struct npuprof_clock_map *a,
		     const struct npuprof_clock_map *b)
{
	return a->valid == b->valid && a->ns == b->ns && a->err_ns == b->err_ns;
}

/*
 * npf_clock_map_cached() against npf_clock_map() on a fit of several
 * pieces with transition zones: ticks in order, backwards, at random, at
 * every piece's first tick and the ticks around it, in the zones, and at
 * the extremes, all through one cache. Every result is identical, and the
 * cache did move between pieces (the test can fail).
 */
TEST(cached_map)
{
	struct truth tr;
	const size_t n = 5000;
	struct npf_clock_sample *s = malloc(n * sizeof(*s));
	struct npuprof_clock_map a, b;
	unsigned int i, j, moves = 0, zone = 0, bad = 0, tried = 0;
	uint64_t st = 5, from, span, t;
	struct npf_clock_fit fit;
	uint32_t piece = 0, last;

	ASSERT_NE(NULL, s);
	drift_truth(&tr, n);
	gen(&tr, s, n, PERIOD, 20000, 200000, 8);
	ASSERT_EQ(0, npf_clock_fit_build(s, n, GHZ, &fit));
	ASSERT_GE(fit.nseg, 3);
	from = fit.seg[0].ref_tick - 10 * GHZ;
	span = fit.seg[fit.nseg - 1].last_tick + 10 * GHZ - from;
	/* in order, then backwards, then at random */
	for (j = 0; j < 3; j++) {
		for (i = 0; i < 20000; i++) {
			uint64_t k = j == 0 ? i : j == 1 ? 19999 - i :
				     rng_next(&st) % 20000;

			t = from + span / 20000 * k;
			last = piece;
			npf_clock_map_cached(&fit, &piece, t, &a);
			npf_clock_map(&fit, t, &b);
			moves += piece != last;
			bad += !same_map(&a, &b);
			tried++;
		}
	}
	/* the boundaries of every piece and its zone, from any piece */
	for (i = 0; i < fit.nseg; i++) {
		const struct npf_clock_seg *g = &fit.seg[i];
		uint64_t edge[] = { g->tick0, g->ref_tick, g->last_tick };
		unsigned int e;
		int d;

		for (e = 0; e < 3; e++) {
			for (d = -2; d <= 2; d++) {
				t = edge[e] + (uint64_t)(int64_t)d;
				piece = (uint32_t)(rng_next(&st) % fit.nseg);
				npf_clock_map_cached(&fit, &piece, t, &a);
				npf_clock_map(&fit, t, &b);
				bad += !same_map(&a, &b);
				tried++;
			}
		}
		if (i + 1 < fit.nseg && g->last_tick + 1 < fit.seg[i + 1].tick0) {
			t = g->last_tick + (fit.seg[i + 1].tick0 - g->last_tick) / 2;
			npf_clock_map_cached(&fit, &piece, t, &a);
			npf_clock_map(&fit, t, &b);
			bad += !same_map(&a, &b);
			zone++;
		}
	}
	/* the extremes, and a piece index out of range */
	for (i = 0; i < 4; i++) {
		t = i == 0 ? 0 : i == 1 ? UINT64_MAX : i == 2 ? 1ull << 63 :
		    (1ull << 63) - 1;
		piece = i == 3 ? 12345 : piece;
		npf_clock_map_cached(&fit, &piece, t, &a);
		npf_clock_map(&fit, t, &b);
		bad += !same_map(&a, &b);
		EXPECT_LT(piece, fit.nseg);
	}
	EXPECT_EQ(0, bad);
	EXPECT_GE(moves, 3 * (fit.nseg - 1));
	EXPECT_GE(zone, 1);
	info("cached_map: %u pieces, %u ticks, %u piece changes, %u zone ticks: all as uncached",
	     fit.nseg, tried, moves, zone);
	npf_clock_fit_release(&fit);
	free(s);
}

/*
 * The rounding of a mapped time: half a ns goes away from zero (as
 * llround()), the bound goes up to the next ns (ceil()). One piece of
 * slope 1/2 through (1000 ticks, 1000 ns) with bounds of 2.25 ns.
 */
TEST(map_rounding)
{
	struct npf_clock_seg g = {
		.tick0 = 0, .ref_tick = 1000, .ref_ns = 1000,
		.ns_per_tick = 0.5, .last_tick = 3000, .err_first = 2.25,
		.err_last = 2.25, .err_slope = 0, .n = 2,
	};
	struct npf_clock_fit fit = { .clock_hz = 2000000000, .nseg = 1,
				     .seg = &g };
	static const struct { int64_t d; int64_t ns; } want[] = {
		{ 0, 1000 }, { 1, 1001 }, { 3, 1002 }, { 5, 1003 },
		{ -1, 999 }, { -3, 998 }, { -5, 997 }, { 2, 1001 },
	};
	struct npuprof_clock_map m;
	uint32_t piece = 0;
	unsigned int i;

	npf_clock_seg_prepare(&g);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		npf_clock_map(&fit, (uint64_t)(1000 + want[i].d), &m);
		EXPECT_EQ(1, m.valid);
		EXPECT_EQ(want[i].ns, m.ns);
		EXPECT_EQ(3, m.err_ns);
		npf_clock_map_cached(&fit, &piece, (uint64_t)(1000 + want[i].d), &m);
		EXPECT_EQ(want[i].ns, m.ns);
		EXPECT_EQ(3, m.err_ns);
	}
}

/* ---- the fast path of the mapping against the general path ---- */

/*
 * *@slow: @fit's pieces with @fast cleared, so every tick takes the
 * general path (piece_eval() and map_out()'s range checks)
 */
static int general_copy(const struct npf_clock_fit *fit,
			struct npf_clock_fit *slow)
{
	uint32_t i;

	*slow = *fit;
	slow->seg = malloc(fit->nseg * sizeof(*slow->seg));
	if (!slow->seg)
		return -ENOMEM;
	memcpy(slow->seg, fit->seg, fit->nseg * sizeof(*slow->seg));
	for (i = 0; i < fit->nseg; i++)
		slow->seg[i].fast = 0;
	return 0;
}

/*
 * Map @t through @fit as prepared (the fast path wherever @fast allows)
 * and through @slow (the general path), uncached and cached: 1 if any
 * field of any result differs. The general path's result in *@m.
 */
static unsigned int fast_differs(const struct npf_clock_fit *fit,
				 const struct npf_clock_fit *slow, uint64_t t,
				 struct npuprof_clock_map *m)
{
	struct npuprof_clock_map f, c;
	uint32_t piece = 0;

	npf_clock_map(slow, t, m);
	npf_clock_map(fit, t, &f);
	npf_clock_map_cached(fit, &piece, t, &c);
	return !same_map(&f, m) || !same_map(&c, m);
}

/* The ticks of piece @g a test maps: its ends, their neighbours, a middle */
static unsigned int piece_ticks(const struct npf_clock_seg *g, uint64_t *t)
{
	unsigned int n = 0;

	t[n++] = g->ref_tick;
	t[n++] = g->last_tick;
	t[n++] = g->last_tick + 1;
	t[n++] = g->ref_tick + (g->last_tick - g->ref_tick) / 2;
	if (g->ref_tick)
		t[n++] = g->ref_tick - 1;
	if (g->last_tick > g->ref_tick) {
		t[n++] = g->ref_tick + 1;
		t[n++] = g->last_tick - 1;
	}
	return n;
}

/*
 * Where npf_clock_seg_prepare() sets @fast, the fast path maps exactly as
 * the general path: every piece of a fit of several pieces (all fast) at
 * its first and last samples, the ticks next to them (one past the last:
 * the zone or the next piece), and 2000 random ticks across the trace;
 * then hand-made pieces at the edges of what is fast: ticks just below
 * 2^63, a falling slope, ref_ns near +-2^61, offsets ending in half a ns.
 */
TEST(fast_map_is_general)
{
	struct truth tr;
	static const struct npf_clock_seg edge[] = {
		/* ticks up to 2^63 - 1, 10 h at 1 GHz */
		{ .ref_tick = (1ull << 63) - 36000 * GHZ,
		  .last_tick = (1ull << 63) - 1, .ref_ns = 1ll << 60,
		  .ns_per_tick = 1.000123, .err_first = 900.5,
		  .err_last = 17000.25, .err_slope = 1e-6, .n = 2 },
		/* a falling clock, ref_ns just above -2^61 */
		{ .ref_tick = 5000, .last_tick = 5000 + 1000 * GHZ,
		  .ref_ns = -(1ll << 61) + 1, .ns_per_tick = -0.999,
		  .err_first = 3, .err_last = 1e6, .err_slope = 1e-5,
		  .n = 2 },
		/* ref_ns just below 2^61, |offset| up to 2^60 */
		{ .ref_tick = 1, .last_tick = 1 + (1ull << 59),
		  .ref_ns = (1ll << 61) - 1, .ns_per_tick = 2.0,
		  .err_first = 0, .err_last = 0x1p59, .err_slope = 0,
		  .n = 2 },
		/* every odd tick ends in half a ns: llround()'s side */
		{ .ref_tick = 1000, .last_tick = 3000, .ref_ns = 1000,
		  .ns_per_tick = 0.5, .err_first = 2.25, .err_last = 2.25,
		  .n = 2 },
		/* one sample: span 0 */
		{ .ref_tick = 123456789, .last_tick = 123456789,
		  .ref_ns = 42, .ns_per_tick = 1.25, .err_first = 7.5,
		  .err_last = 7.5, .err_slope = 1e-4, .n = 1 },
	};
	const size_t n = 5000;
	struct npf_clock_sample *s = malloc(n * sizeof(*s));
	unsigned int i, j, k, bad = 0, tried = 0, fast = 0;
	struct npuprof_clock_map m;
	struct npf_clock_fit fit, slow;
	uint64_t st = 11, t[8], from, span;

	ASSERT_NE(NULL, s);
	drift_truth(&tr, n);
	gen(&tr, s, n, PERIOD, 20000, 200000, 9);
	ASSERT_EQ(0, npf_clock_fit_build(s, n, GHZ, &fit));
	ASSERT_GE(fit.nseg, 3);
	ASSERT_EQ(0, general_copy(&fit, &slow));
	for (i = 0; i < fit.nseg; i++) {
		fast += fit.seg[i].fast;
		k = piece_ticks(&fit.seg[i], t);
		for (j = 0; j < k; j++, tried++)
			bad += fast_differs(&fit, &slow, t[j], &m);
	}
	EXPECT_EQ(fit.nseg, fast);
	from = fit.seg[0].ref_tick;
	span = fit.seg[fit.nseg - 1].last_tick - from;
	for (i = 0; i < 2000; i++, tried++)
		bad += fast_differs(&fit, &slow, from + rng_next(&st) % span, &m);
	free(slow.seg);
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		struct npf_clock_seg g = edge[i];
		struct npf_clock_fit one = { .clock_hz = GHZ, .nseg = 1,
					     .seg = &g };

		npf_clock_seg_prepare(&g);
		EXPECT_EQ(1, g.fast);
		ASSERT_EQ(0, general_copy(&one, &slow));
		k = piece_ticks(&g, t);
		for (j = 0; j < k; j++, tried++) {
			bad += fast_differs(&one, &slow, t[j], &m);
			/* the ticks from ref_tick to last_tick are all valid */
			if (t[j] >= g.ref_tick && t[j] <= g.last_tick)
				EXPECT_EQ(1, m.valid);
		}
		for (j = 0; j < 200 && g.last_tick > g.ref_tick; j++, tried++)
			bad += fast_differs(&one, &slow, g.ref_tick +
					    rng_next(&st) % (g.last_tick - g.ref_tick),
					    &m);
		free(slow.seg);
	}
	EXPECT_EQ(0, bad);
	info("fast_map_is_general: %u fast pieces of %u, %zu edge pieces, %u ticks: all as the general path",
	     fast, fit.nseg, sizeof(edge) / sizeof(edge[0]), tried);
	npf_clock_fit_release(&fit);
	free(s);
}

/*
 * Pieces whose ticks may overflow between their samples are not @fast,
 * and map as the general path does there: a span of 2^63 ticks or more
 * (the tick difference is no int64), a tick at or above 2^63, a slope
 * whose offset passes int64 ns, ref_ns where the time passes it, a bound
 * of 2^63 ns or more (growing to it, or at both samples), and NaN bounds
 * (at either sample, so @err_in too, or of a piece of one sample).
 * All but the ticks from 2^63 (whose differences the fast path would
 * still convert right) map a tick between their samples to a wrapped
 * offset, out of range or with no finite bound, which the fast path would
 * get wrong: a @fast set wrongly fails here by value, not only by flag.
 */
TEST(fast_flag_off)
{
	static const struct {
		const char *what;
		struct npf_clock_seg g;
		int valid;		/* of last_tick's mapping */
		uint64_t err_ns;	/* of it, or 0: finite */
	} c[] = {
		{ "span of 2^63 ticks",
		  { .ref_tick = 1, .last_tick = (1ull << 63) + 5,
		    .ref_ns = 1000, .ns_per_tick = 1e-6, .err_first = 1,
		    .err_last = 2, .n = 2 }, 1, 0 },
		{ "ticks from 2^63",
		  { .ref_tick = (1ull << 63) + 1,
		    .last_tick = (1ull << 63) + 2001, .ref_ns = 1000,
		    .ns_per_tick = 1.0, .err_first = 1, .err_last = 2,
		    .n = 2 }, 1, 0 },
		{ "huge slope",
		  { .ref_tick = 1000, .last_tick = 1000 + 10000000,
		    .ref_ns = 1000, .ns_per_tick = 1e12, .err_first = 1,
		    .err_last = 2, .n = 2 }, 0, UINT64_MAX },
		{ "huge falling slope",
		  { .ref_tick = 1000, .last_tick = 1000 + 10000000,
		    .ref_ns = -1000, .ns_per_tick = -1e12, .err_first = 1,
		    .err_last = 2, .n = 2 }, 0, UINT64_MAX },
		{ "ref_ns near INT64_MAX",
		  { .ref_tick = 1000, .last_tick = 3000,
		    .ref_ns = INT64_MAX - 100, .ns_per_tick = 1.0,
		    .err_first = 1, .err_last = 2, .n = 2 }, 0, UINT64_MAX },
		{ "bound of 1e19 ns",
		  { .ref_tick = 1000, .last_tick = 3000, .ref_ns = 1000,
		    .ns_per_tick = 1.0, .err_first = 1, .err_last = 1e19,
		    .n = 2 }, 1, UINT64_MAX },
		{ "bound of 1e19 ns at both samples",
		  { .ref_tick = 1000, .last_tick = 3000, .ref_ns = 1000,
		    .ns_per_tick = 1.0, .err_first = 1e19, .err_last = 1e19,
		    .n = 2 }, 1, UINT64_MAX },
		{ "NaN bound of a piece of one sample",
		  { .ref_tick = 1000, .last_tick = 1000, .ref_ns = 1000,
		    .ns_per_tick = 1.0, .err_first = NAN, .err_last = NAN,
		    .n = 1 }, 1, UINT64_MAX },
		{ "NaN bound at the first sample",
		  { .ref_tick = 1000, .last_tick = 3000, .ref_ns = 1000,
		    .ns_per_tick = 1.0, .err_first = NAN, .err_last = 2,
		    .n = 2 }, 1, UINT64_MAX },
		{ "NaN bound at the last sample",
		  { .ref_tick = 1000, .last_tick = 3000, .ref_ns = 1000,
		    .ns_per_tick = 1.0, .err_first = 1, .err_last = NAN,
		    .n = 2 }, 1, UINT64_MAX },
	};
	unsigned int i, j, k, bad;
	struct npuprof_clock_map m;
	struct npf_clock_fit slow;
	uint64_t t[8];

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct npf_clock_seg g = c[i].g;
		struct npf_clock_fit one = { .clock_hz = GHZ, .nseg = 1,
					     .seg = &g };

		npf_clock_seg_prepare(&g);
		EXPECT_EQ(0, g.fast) {
			TH_LOG("%s: fast", c[i].what);
		}
		ASSERT_EQ(0, general_copy(&one, &slow));
		k = piece_ticks(&g, t);
		bad = 0;
		for (j = 0; j < k; j++)
			bad += fast_differs(&one, &slow, t[j], &m);
		EXPECT_EQ(0, bad) {
			TH_LOG("%s: %u ticks map unlike the general path",
			       c[i].what, bad);
		}
		/* the general path's result at the last sample */
		npf_clock_map(&slow, g.last_tick, &m);
		EXPECT_EQ(c[i].valid, m.valid) {
			TH_LOG("%s: valid %d", c[i].what, m.valid);
		}
		if (c[i].err_ns) {
			EXPECT_EQ(c[i].err_ns, m.err_ns);
		} else {
			EXPECT_LT(m.err_ns, 1000);
		}
		free(slow.seg);
	}
}

/*
 * npf_round_i64(), the inline rounding of the mapping and of npf_dev_dur(),
 * gives llround()'s results: halves, the doubles next to them, the range
 * where doubles stop having fractions, and a fixed-seed sweep of magnitudes.
 */
TEST(round_i64_is_llround)
{
	static const double edge[] = {
		0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
		0.49999999999999994, -0.49999999999999994,
		0.5000000000000001, 1.4999999999999998, 2.5000000000000004,
		4503599627370495.5, -4503599627370495.5, 4503599627370496.0,
		4503599627370497.0, 9007199254740993.0, 0x1p62, -0x1p62,
		9.2e18, -9.2e18, 0x1p63 - 2048.0, 1e-300, 123456789.49999999,
	};
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned int i, n = 0;

	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		EXPECT_EQ(llround(edge[i]), npf_round_i64(edge[i]));
		EXPECT_EQ(llround(nextafter(edge[i], 0x1p63)),
			  npf_round_i64(nextafter(edge[i], 0x1p63)));
		EXPECT_EQ(llround(nextafter(edge[i], -0x1p63)),
			  npf_round_i64(nextafter(edge[i], -0x1p63)));
	}
	for (i = 0; i < 200000; i++) {
		double x;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		/* 53 random bits scaled to 2^0 .. 2^62 */
		x = ldexp((double)(seed >> 11), (int)(seed & 63) % 63 - 53);
		if (seed & 64)
			x = -x;
		if (llround(x) == npf_round_i64(x))
			n++;
	}
	EXPECT_EQ(200000, n);
	/* the halves that banker's rounding would send the other way */
	EXPECT_EQ(3, npf_round_i64(2.5));
	EXPECT_EQ(-3, npf_round_i64(-2.5));
	EXPECT_EQ(1, npf_round_i64(0.5));
}

TEST_HARNESS_MAIN
