// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-lttng.c - the LTTng-UST peer of the host span (make bench): the
 * same span, its id, parent, kind and start (rdtsc) as an LTTng-UST 2.13
 * tracepoint, against npuprof_span_begin()/_end() with a session on, in
 * the same process, bursts of each interleaved, as a ratio. bench.sh creates and starts the LTTng session
 * (lttng-sessiond, "npuprof_bench:*" enabled) before it runs this, and
 * destroys it after; without one the tracepoint is a disabled probe and
 * this says so.
 *
 * Usage: npuprof-bench-lttng [N]
 */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "bench-lttng-tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "npuprof.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define BURST	5000

/* One burst of tracepoints: ns a span. */
static double lttng_burst(long base)
{
	double t0 = now_s();
	long i;

	for (i = 0; i < BURST; i++)
		tracepoint(npuprof_bench, span, NPUPROF_SPAN_USER,
			   (uint64_t)(base + i + 1), 0, __rdtsc());
	return (now_s() - t0) * 1e9 / BURST;
}

/* One burst of npuprof spans: ns a span. */
static double npuprof_burst(void)
{
	double t0 = now_s();
	long i;

	for (i = 0; i < BURST; i++) {
		struct npuprof_span s;

		npuprof_span_begin(&s, NPUPROF_SPAN_USER, NULL);
		npuprof_span_end(&s);
	}
	return (now_s() - t0) * 1e9 / BURST;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const char *const nodev[] = { NULL };
	long n = argc > 1 ? atol(argv[1]) : 1000000, rounds, r;
	double *lt, *np, *ratio, lt_sum = 0, np_sum = 0;
	char path[64];
	struct npuprof_session *s;
	struct npuprof_opts o;

	if (n < BURST)
		n = BURST;
	rounds = n / BURST;
	lt = calloc((size_t)rounds, sizeof(*lt));
	np = calloc((size_t)rounds, sizeof(*np));
	ratio = calloc((size_t)rounds, sizeof(*ratio));
	if (!lt || !np || !ratio)
		return 1;
	if (!tracepoint_enabled(npuprof_bench, span))
		printf("lttng peer: no LTTng session enables npuprof_bench:span; the figure is a disabled tracepoint's\n");
	snprintf(path, sizeof(path), "/tmp/npuprof-bench-lttng-%d.npuprof",
		 (int)getpid());
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = nodev;
	o.span_buf_kb = 1024;
	if (npuprof_session_create(&o, &s) || npuprof_session_start(s)) {
		printf("lttng peer: cannot start an npuprof session\n");
		return 1;
	}
	(void)npuprof_burst();		/* the thread's first span */
	(void)lttng_burst(0);
	usleep(2000);
	/*
	 * Interleaved: a burst of each per round, in alternating order, each
	 * followed by a pause in which the consumers empty the buffers; both
	 * sessions capture throughout. The medians keep a burst that the
	 * machine's other load interrupted from weighing on either side.
	 */
	for (r = 0; r < rounds; r++) {
		if (r & 1) {
			np[r] = npuprof_burst();
			usleep(2000);
			lt[r] = lttng_burst(r * BURST);
		} else {
			lt[r] = lttng_burst(r * BURST);
			usleep(2000);
			np[r] = npuprof_burst();
		}
		usleep(2000);
		lt_sum += lt[r];
		np_sum += np[r];
		ratio[r] = lt[r] / np[r];
	}
	npuprof_session_stop(s);
	npuprof_session_free(s);
	unlink(path);
	printf("host span vs LTTng-UST: LTTng-UST 2.13 tracepoint, session active: %.1f ns per span (median of %ld bursts of %d; mean %.1f); npuprof span, session on: %.1f ns (mean %.1f); npuprof %.2fx faster (median of the bursts' ratios; goal >= 4x; interleaved in one process)\n",
	       median(lt, rounds), rounds, BURST, lt_sum / (double)rounds,
	       median(np, rounds), np_sum / (double)rounds,
	       median(ratio, rounds));
	free(lt);
	free(np);
	free(ratio);
	return 0;
}
