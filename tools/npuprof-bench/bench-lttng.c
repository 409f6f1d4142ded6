// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-lttng.c - the LTTng-UST peer of the host span (make bench): the
 * same span, its id, parent, kind and start (rdtsc) as an LTTng-UST 2.13
 * tracepoint, against npuprof_span_begin()/_end() with a session on, in
 * the same run, as a ratio. bench.sh creates and starts the LTTng session
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

/* One span a tracepoint, in bursts the consumer empties in between. */
static double lttng_spans(long n)
{
	double sum = 0;
	long b, i;

	for (b = 0; b < n / 5000; b++) {
		double t0 = now_s();

		for (i = 0; i < 5000; i++)
			tracepoint(npuprof_bench, span, NPUPROF_SPAN_USER,
				   (uint64_t)(b * 5000 + i + 1), 0, __rdtsc());
		sum += now_s() - t0;
		usleep(2000);
	}
	return sum * 1e9 / (double)(n / 5000 * 5000);
}

static double npuprof_spans(long n)
{
	double sum = 0;
	long b, i;

	for (b = 0; b < n / 5000; b++) {
		double t0 = now_s();

		for (i = 0; i < 5000; i++) {
			struct npuprof_span s;

			npuprof_span_begin(&s, NPUPROF_SPAN_USER, NULL);
			npuprof_span_end(&s);
		}
		sum += now_s() - t0;
		usleep(2000);
	}
	return sum * 1e9 / (double)(n / 5000 * 5000);
}

int main(int argc, char **argv)
{
	static const char *const nodev[] = { NULL };
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	char path[64];
	struct npuprof_session *s;
	struct npuprof_opts o;
	double lt, np;

	if (n < 5000)
		n = 5000;
	if (!tracepoint_enabled(npuprof_bench, span))
		printf("lttng peer: no LTTng session enables npuprof_bench:span; the figure is a disabled tracepoint's\n");
	lt = lttng_spans(n);
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
	np = npuprof_spans(n);
	npuprof_session_stop(s);
	npuprof_session_free(s);
	unlink(path);
	printf("host span vs LTTng-UST: LTTng-UST 2.13 tracepoint, session active: %.1f ns per span; npuprof span, session on: %.1f ns; npuprof %.2fx faster (goal >= 4x; %ld spans each, bursts of 5000)\n",
	       lt, np, lt / np, n);
	return 0;
}
