// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_span_tsc.c - host spans stamped with the TSC (issue 25 part 1):
 * the fit of synthetic TSC samples maps every tick within its error
 * bound; a session on a machine whose clocksource is an invariant TSC
 * records so in its metadata, writes HOST_CLOCK samples, and its user
 * spans (TSC) and its labelled region (clock_gettime) agree within the
 * fit's bound, as do the program's own clock reads around each span;
 * NPUPROF_SPAN_CLOCK=monotonic falls back to clock_gettime, exactly, and
 * a bad value is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "file_util.h"
#include "clock.h"
#include "npuprof.h"
#include "npuprof_analysis.h"
#include "reader.h"
#include "spans.h"
#include "trace_format.h"

static const char *const no_devices[] = { NULL };

/* xorshift: the same "noise" every run */
static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

TEST(synthetic_tsc_fit_within_its_bound)
{
	/* a 2.9 GHz TSC, samples every 100 ms for 10 s, brackets 20-220 ns */
	const double hz = 2.9e9, t0 = 5e9;
	const uint64_t tick0 = 123456789012ull;
	struct npf_clock_sample s[101];
	struct npf_clock_fit fit = { 0 };
	uint64_t worst = 0;
	int i;

	for (i = 0; i <= 100; i++) {
		double ns = t0 + i * 1e8 + (double)(rnd() % 1000);
		uint64_t w = 20 + rnd() % 200, a = rnd() % (w + 1);

		s[i].tick = tick0 + (uint64_t)((ns - t0) * hz / 1e9);
		s[i].before_ns = (uint64_t)ns - a;
		s[i].after_ns = (uint64_t)ns - a + w;
	}
	/* the reader's tolerance for the TSC (trace.c): at least 100 ns */
	ASSERT_EQ(0, npf_clock_fit_build_tol(s, 101, (uint64_t)hz, 100.0,
					     &fit));
	ASSERT_GE(fit.nseg, 1u);
	/*
	 * The bound (clock-fit.rst): brackets widened by the model
	 * tolerance, plus twice the tolerance
	 */
	EXPECT_LT(fit.err_ns, 3 * 100u + 220u + 100u);
	for (i = 0; i < 10000; i++) {
		double ns = t0 + (double)(rnd() % 10000000000ull);
		uint64_t tick = tick0 + (uint64_t)((ns - t0) * hz / 1e9);
		struct npuprof_clock_map m;
		uint64_t d;

		npf_clock_map(&fit, tick, &m);
		ASSERT_TRUE(m.valid);
		d = (uint64_t)llabs(m.ns - (int64_t)ns);
		/* the tick's own rounding is under a ns */
		ASSERT_LE(d, m.err_ns + 1) TH_LOG("tick %llu: off by %llu, bound %llu",
						 (unsigned long long)tick,
						 (unsigned long long)d,
						 (unsigned long long)m.err_ns);
		if (d > worst)
			worst = d;
	}
	TH_LOG("worst error %llu ns, fit bound %llu ns",
	       (unsigned long long)worst, (unsigned long long)fit.err_ns);
	npf_clock_fit_release(&fit);
}

/* META @key of @path, into @val; HOST_CLOCK samples into the fit. */
static int read_raw(const char *path, const char *key, char *val,
		    size_t vlen, struct npf_clock_fit *fit, size_t *nsamples)
{
	struct npf_clock_sample s[4096];
	const struct npf_item *it;
	struct npf_reader *r;
	char err[256];
	uint64_t off;
	size_t n = 0;
	int ret;

	val[0] = 0;
	ret = npf_reader_open(path, &r, err, sizeof(err));
	if (ret)
		return ret;
	while (npf_reader_next(r, &it, &off) == 1) {
		const char *k = (const char *)(it + 1);
		const struct npf_item_host_clock *h = (const void *)(it + 1);

		if (it->type == NPF_ITEM_META && !strcmp(k, key))
			snprintf(val, vlen, "%s", k + strlen(k) + 1);
		if (it->type == NPF_ITEM_HOST_CLOCK &&
		    h->clock == NPF_SPANS_CLOCK_TSC && n + h->count <= 4096) {
			memcpy(s + n, h + 1, h->count * sizeof(*s));
			n += h->count;
		}
	}
	npf_reader_close(r);
	*nsamples = n;
	if (!fit || n < 2)
		return 0;
	return npf_clock_fit_build_tol(s, n,
				       (uint64_t)((s[n - 1].tick - s[0].tick) *
						  1e9 / (double)(s[n - 1].before_ns -
								 s[0].before_ns)),
				       100.0, fit);
}

#define NUSER 2000

TEST(tsc_and_clock_gettime_spans_agree)
{
	static uint64_t before[NUSER], after[NUSER], id[NUSER];
	struct npuprof_session *s;
	struct npuprof_opts o;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npf_clock_fit fit = { 0 };
	char *path = file_tmp("spantsc", "agree.npuprof"), err[256], val[64];
	const char *why;
	uint64_t lab_start = 0, lab_end = 0, worst = 0;
	size_t nsamples;
	unsigned int i, got = 0;

	if (!npf_spans_tsc_usable(&why))
		SKIP(return, "no TSC spans here: %s", why);
	unsetenv("NPUPROF_SPAN_CLOCK");
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	ASSERT_EQ(0, npuprof_session_create(&o, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	ASSERT_EQ(0, npuprof_region_begin("agree"));
	for (i = 0; i < NUSER; i++) {
		struct npuprof_span sp;

		before[i] = file_mono_ns();
		npuprof_span_begin(&sp, NPUPROF_SPAN_USER, NULL);
		/* 0.4 s in all: samples while the session runs too */
		if (i % 100 == 0)
			usleep(20000);
		npuprof_span_end(&sp);
		after[i] = file_mono_ns();
		id[i] = sp.rec.span_id;
	}
	ASSERT_EQ(0, npuprof_region_end());
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);

	ASSERT_EQ(0, read_raw(path, "host_span_clock", val, sizeof(val), &fit,
			      &nsamples));
	EXPECT_STREQ("tsc", val);
	/* start, stop, and every 2^28 ticks (0.1 s at 2.7 GHz) between */
	ASSERT_GE(nsamples, 3u);
	TH_LOG("%zu HOST_CLOCK samples, fit bound %llu ns", nsamples,
	       (unsigned long long)fit.err_ns);

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1) {
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		if (ev.span->kind == NPUPROF_SPAN_LABEL) {
			lab_start = ev.span->start_ns;
			lab_end = ev.span->end_ns;
			continue;
		}
		ASSERT_LT(got, NUSER);
		ASSERT_EQ(id[got], ev.span->span_id);
		/* inside the program's own clock reads, within the bound */
		EXPECT_GE(ev.span->start_ns + fit.err_ns + 1, before[got]);
		EXPECT_LE(ev.span->end_ns, after[got] + fit.err_ns + 1);
		EXPECT_LE(ev.span->start_ns, ev.span->end_ns);
		if (before[got] > ev.span->start_ns &&
		    before[got] - ev.span->start_ns > worst)
			worst = before[got] - ev.span->start_ns;
		if (ev.span->end_ns > after[got] &&
		    ev.span->end_ns - after[got] > worst)
			worst = ev.span->end_ns - after[got];
		got++;
	}
	npuprof_trace_close(t);
	EXPECT_EQ(NUSER, got);
	/* the region read clock_gettime; its user spans read the TSC */
	ASSERT_NE(0u, lab_end);
	EXPECT_LE(lab_start, before[0]);
	EXPECT_GE(lab_end, after[NUSER - 1]);
	TH_LOG("largest excursion outside the program's clock reads: %llu ns",
	       (unsigned long long)worst);
	npf_clock_fit_release(&fit);
	unlink(path);
	free(path);
}

TEST(monotonic_fallback_is_exact)
{
	static struct npuprof_span_rec made[100];
	struct npuprof_session *s;
	struct npuprof_opts o;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char *path = file_tmp("spantsc", "mono.npuprof"), err[256], val[64];
	size_t nsamples;
	unsigned int i, got = 0;

	setenv("NPUPROF_SPAN_CLOCK", "monotonic", 1);
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	ASSERT_EQ(0, npuprof_session_create(&o, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	for (i = 0; i < 100; i++) {
		struct npuprof_span sp;

		npuprof_span_begin(&sp, NPUPROF_SPAN_USER, NULL);
		npuprof_span_end(&sp);
		made[i] = sp.rec;
	}
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	unsetenv("NPUPROF_SPAN_CLOCK");
	ASSERT_EQ(0, read_raw(path, "host_span_clock", val, sizeof(val), NULL,
			      &nsamples));
	EXPECT_STREQ("monotonic", val);
	EXPECT_EQ(0u, nsamples);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1) {
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		ASSERT_LT(got, 100u);
		/* CLOCK_MONOTONIC as the program saw it, to the ns */
		EXPECT_EQ(made[got].start_ns, ev.span->start_ns);
		EXPECT_EQ(made[got].end_ns, ev.span->end_ns);
		got++;
	}
	npuprof_trace_close(t);
	EXPECT_EQ(100u, got);
	unlink(path);
	free(path);
}

TEST(bad_clock_value_refused)
{
	struct npuprof_session *s = NULL;
	struct npuprof_opts o;
	char *path = file_tmp("spantsc", "bad.npuprof");

	setenv("NPUPROF_SPAN_CLOCK", "sundial", 1);
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&o, &s));
	EXPECT_EQ(NULL, s);
	unsetenv("NPUPROF_SPAN_CLOCK");
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
