// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-host.c - host benchmarks of libnpuprof's hot paths: a host span
 * with profiling off and on (one and several threads), libnpu's span hook
 * with its USDT probes compiled in, nobody attached and with the probes'
 * semaphore raised as a tracer raises it (no session), the ring parser
 * alone and into the trace file (the reader thread's work per record),
 * and trace-file write and read rates, two rdtsc reads (a TSC-stamped
 * span's floor) and the drain sustained by one thread writing spans back
 * to back. Prints figures; never fails on a
 * number. Wall-clock and thread CPU time are both shown where they differ.
 *
 * Usage: npuprof-bench-host [--quick] [--dir DIR] [--buf KB]
 *        npuprof-bench-host [--buf KB] --sustained SECS
 *        npuprof-bench-host --loop off|hook|sem|on|drain N
 * The second form prints the two sustained figures alone (back to back,
 * then paced at 10 M spans/s), SECS seconds each; --buf sets their span
 * buffer's first size (default: the library's), and each prints the size
 * the thread's buffer grew to. The third runs one span loop of N
 * spans and exits, for counting
 * its instructions under callgrind (bench.sh): "off" is npuprof.h's hook
 * with no session, "on" the same with a session capturing (its loop
 * alone is counted: on_loop), "hook" libnpu's hook with its probes (npu_usdt.h) and
 * nobody attached, "sem" the same with the semaphore raised. "drain"
 * writes the N spans into a 64 MiB buffer and stops the session: the
 * session's threads drain and write them meanwhile and at the stop; it
 * prints their CPU time a span, user and kernel (for callgrind: the
 * instructions of npf_spans_drain() and npf_writer_thread()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "npuprof_analysis.h"
#include "spans.h"
#include "ring_parse.h"
#include "trace_format.h"
#include "writer.h"
#include "npu_usdt.h"

static const char *dir = "/tmp";
static int quick;
/* --buf KB: the sustained figures' span buffer; 0: the default */
static unsigned int sustained_kb;

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/npuprof-bench-%d-%s", dir, (int)getpid(), name);
}

/* ---- host spans ---- */

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* Two rdtsc reads, as a span takes them: the floor of a stamped span. */
static double rdtsc_pair_ns(long n)
{
	double t0 = now_s(CLOCK_MONOTONIC);
	uint64_t sink = 0;
	long i;

	for (i = 0; i < n; i++) {
		uint64_t a = __rdtsc();

		__asm__ volatile("" ::: "memory");
		sink += __rdtsc() - a;
	}
	__asm__ volatile("" : : "r"(sink));
	return (now_s(CLOCK_MONOTONIC) - t0) * 1e9 / (double)n;
}
#else
static double rdtsc_pair_ns(long n)
{
	(void)n;
	return 0;
}
#endif

static double spans_loop(long n)
{
	double t0 = now_s(CLOCK_MONOTONIC);
	long i;

	for (i = 0; i < n; i++) {
		struct npuprof_span s;

		npuprof_span_begin(&s, NPUPROF_SPAN_USER, NULL);
		npuprof_span_end(&s);
	}
	return (now_s(CLOCK_MONOTONIC) - t0) * 1e9 / (double)n;
}

/*
 * libnpu's hook (npu_usdt.h), as at its span sites: a submit span with its
 * job fields set between begin and end.
 */
__attribute__((noinline)) static double hook_loop(long n)
{
	double t0 = now_s(CLOCK_MONOTONIC);
	long i;

	for (i = 0; i < n; i++) {
		struct npuprof_span s;

		npu_span_begin(&s, NPUPROF_SPAN_SUBMIT, NULL);
		if (s.on) {
			s.rec.flags |= NPUPROF_SPAN_F_JOB;
			s.rec.job_id = (uint64_t)i;
		}
		npu_span_done(&s, 0);
	}
	return (now_s(CLOCK_MONOTONIC) - t0) * 1e9 / (double)n;
}

/* The span loop of "on": a session of no device captures host spans. */
__attribute__((noinline)) static void on_loop(long n)
{
	(void)spans_loop(n);
}

static void loop_on(long n)
{
	static const char *const nodev[] = { NULL };
	struct npuprof_session *s;
	struct npuprof_opts o;
	char path[256];

	path_in(path, sizeof(path), "loop.npuprof");
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = nodev;
	o.span_buf_kb = 65536;	/* no drop: the kept path is counted */
	if (npuprof_session_create(&o, &s) || npuprof_session_start(s)) {
		fprintf(stderr, "--loop on: cannot start a session\n");
		return;
	}
	(void)spans_loop(1000);		/* first span: registration */
	on_loop(n);
	npuprof_session_stop(s);
	npuprof_session_free(s);
	unlink(path);
}

/*
 * The drain of "drain": the session's stop drains every buffer and writes
 * the file (its reader and writer threads are idle meanwhile).
 */
__attribute__((noinline)) static void drain_all(struct npuprof_session *s)
{
	npuprof_session_stop(s);
}

/* @a - @b in ns */
static double tv_ns(const struct timeval *a, const struct timeval *b)
{
	return (double)(a->tv_sec - b->tv_sec) * 1e9 +
	       (double)(a->tv_usec - b->tv_usec) * 1e3;
}

static void loop_drain(long n)
{
	static const char *const nodev[] = { NULL };
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct rusage p0, p1, t0, t1;
	struct npuprof_session *s;
	struct npuprof_opts o;
	char path[256];
	double k;

	path_in(path, sizeof(path), "drain.npuprof");
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = nodev;
	o.span_buf_kb = 65536;	/* the drain is woken at 16 MiB */
	if (npuprof_session_create(&o, &s) || npuprof_session_start(s)) {
		fprintf(stderr, "--loop drain: cannot start a session\n");
		return;
	}
	getrusage(RUSAGE_SELF, &p0);
	getrusage(RUSAGE_THREAD, &t0);
	(void)spans_loop(n);
	getrusage(RUSAGE_THREAD, &t1);
	drain_all(s);
	getrusage(RUSAGE_SELF, &p1);
	npuprof_session_stats(s, &st);
	npuprof_session_free(s);
	/* the session's threads and the stop: the process's CPU but the loop's */
	k = (double)(st.spans ? st.spans : 1);
	fprintf(stderr, "--loop drain: %llu spans kept, %llu dropped; the drain's CPU %.1f ns a span in user space, %.1f ns in the kernel\n",
		(unsigned long long)st.spans,
		(unsigned long long)st.spans_lost,
		(tv_ns(&p1.ru_utime, &p0.ru_utime) -
		 tv_ns(&t1.ru_utime, &t0.ru_utime)) / k,
		(tv_ns(&p1.ru_stime, &p0.ru_stime) -
		 tv_ns(&t1.ru_stime, &t0.ru_stime)) / k);
	unlink(path);
}

/* --loop: one loop for callgrind's instruction count (bench.sh) */
__attribute__((noinline)) static void counted_loop(const char *what, long n)
{
	if (!strcmp(what, "on")) {
		loop_on(n);
	} else if (!strcmp(what, "drain")) {
		loop_drain(n);
	} else if (!strcmp(what, "off")) {
		(void)spans_loop(n);
	} else if (!strcmp(what, "hook")) {
		(void)hook_loop(n);
	} else {
		/* as the kernel does for a uprobe with a ref_ctr_offset */
		__atomic_add_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);
		(void)hook_loop(n);
		__atomic_sub_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);
	}
}

/* Spans in bursts that fit the thread's buffer, timed alone. */
static double spans_burst(int bursts, long n)
{
	double sum = 0;
	int b;

	for (b = 0; b < bursts; b++) {
		sum += spans_loop(n) * (double)n;
		usleep(2000);
	}
	return sum / ((double)bursts * (double)n);
}

struct thr_arg {
	long n;
	double ns;
	double cpu_ns;		/* the thread's CPU time a span */
};

static void *spans_thread(void *p)
{
	struct thr_arg *a = p;
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);

	a->ns = spans_loop(a->n);
	a->cpu_ns = (now_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e9 /
		    (double)a->n;
	return NULL;
}

/*
 * Sustained: one thread writes spans back to back for @secs seconds into a
 * session with the default buffers; the drain keeps up or drops.
 */
static void bench_sustained(double secs, double rate)
{
	static const char *const nodev[] = { NULL };
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_session *s;
	struct npuprof_opts o;
	char path[256];
	double t0, t, p0, th0, th, drain;
	uint32_t ring;
	long n = 0;

	path_in(path, sizeof(path), "sustained.npuprof");
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = nodev;
	if (sustained_kb)
		o.span_buf_kb = sustained_kb;
	if (npuprof_session_create(&o, &s) || npuprof_session_start(s)) {
		printf("sustained spans: cannot start a session\n");
		return;
	}
	t0 = now_s(CLOCK_MONOTONIC);
	p0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	th0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	do {
		if (rate) {
			/* paced: 1000 spans, then wait for their time */
			(void)spans_loop(1000);
			n += 1000;
			while ((t = now_s(CLOCK_MONOTONIC) - t0) <
			       (double)n / rate)
				;
		} else {
			(void)spans_loop(100000);
			n += 100000;
			t = now_s(CLOCK_MONOTONIC) - t0;
		}
	} while (t < secs);
	th = now_s(CLOCK_THREAD_CPUTIME_ID) - th0;
	/* the thread's ring as it grew (span.c: up to 32 times, 8 MiB) */
	ring = npf_spans_ring_bytes();
	npuprof_session_stop(s);
	/* the session's threads: the process's CPU but this thread's */
	drain = now_s(CLOCK_PROCESS_CPUTIME_ID) - p0 - th;
	npuprof_session_stats(s, &st);
	npuprof_session_free(s);
	printf("host spans sustained, 1 thread %s, %u KiB buffers%s: %.2f M spans/s offered, %llu kept, %llu dropped (%.1f M kept/s), file %.1f MiB (%.1f bytes a span); the drain's CPU %.1f ns a kept span (%.0f%% of a core at 10 M spans/s); the writing thread ran %.0f%% of the wall time; its ring %u KiB at the end\n",
	       rate ? "paced" : "back to back", o.span_buf_kb,
	       sustained_kb ? "" : " (the default)", (double)n / t / 1e6,
	       (unsigned long long)st.spans,
	       (unsigned long long)st.spans_lost,
	       (double)st.spans / t / 1e6,
	       (double)st.bytes_written / 1048576.0,
	       st.spans ? (double)st.bytes_written / (double)st.spans : 0.0,
	       st.spans ? drain * 1e9 / (double)st.spans : 0.0,
	       st.spans ? drain * 1e9 / (double)st.spans : 0.0,
	       th / t * 100, ring / 1024);
	unlink(path);
}

static void bench_spans(void)
{
	static const char *const nodev[] = { NULL };
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_session *s;
	struct npuprof_opts o;
	struct thr_arg a[4];
	pthread_t th[4];
	char path[256];
	long n_off = quick ? 20000000 : 200000000;
	long n_on = quick ? 2000000 : 10000000;
	double clk, tsc2, t0;
	const char *why;
	bool tsc;
	int i, nt;

	t0 = now_s(CLOCK_MONOTONIC);
	for (i = 0; i < 1000000; i++)
		(void)npf_now_ns();
	clk = (now_s(CLOCK_MONOTONIC) - t0) * 1e9 / 1e6;
	printf("clock_gettime(CLOCK_MONOTONIC): %.1f ns per call\n", clk);
	tsc2 = rdtsc_pair_ns(quick ? 2000000 : 20000000);
	printf("two rdtsc reads:                %.1f ns per pair (the floor of a TSC-stamped span; goal: span on <= %.1f ns)\n",
	       tsc2, 1.5 * tsc2);
	printf("host span, profiling off:       %.2f ns per span (%ld spans)\n",
	       spans_loop(n_off), n_off);
	printf("libnpu span hook, USDT probes compiled in, nobody attached: %.2f ns per span (%ld spans)\n",
	       hook_loop(n_off), n_off);
	__atomic_add_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);
	(void)hook_loop(1000);		/* first span: the thread's state */
	t0 = hook_loop(n_on);
	__atomic_sub_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);
	printf("libnpu span hook, probe semaphore raised, no session: %.2f ns per span (%ld spans: ids, two clock reads, two probe nops; a BPF program attached adds its uprobe traps)\n",
	       t0, n_on);

	path_in(path, sizeof(path), "spans.npuprof");
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = nodev;
	o.span_buf_kb = 1024;
	if (npuprof_session_create(&o, &s) || npuprof_session_start(s)) {
		printf("host span, profiling on: cannot start a session\n");
		return;
	}
	(void)spans_loop(1000);		/* first span: registration */
	tsc = npf_spans_tsc_usable(&why);
	t0 = spans_burst(quick ? 200 : 1000, 5000);
	tsc2 = rdtsc_pair_ns(quick ? 2000000 : 20000000);
	printf("host span, profiling on:        %.2f ns per span (1 thread, bursts of 5000 spans that the drain empties in between; span clock %s: %s); %.2fx two rdtsc reads (%.1f ns, measured again now; goal <= 1.5x)\n",
	       t0, tsc && !getenv("NPUPROF_SPAN_CLOCK") ? "tsc" : "monotonic",
	       why, t0 / tsc2, tsc2);
	for (nt = 1; nt <= 4; nt *= 2) {
		double sum = 0, cpu = 0;

		for (i = 0; i < nt; i++) {
			a[i].n = n_on / 4;
			pthread_create(&th[i], NULL, spans_thread, &a[i]);
		}
		for (i = 0; i < nt; i++) {
			pthread_join(th[i], NULL);
			sum += a[i].ns;
			cpu += a[i].cpu_ns;
		}
		/* CPU time: flat means no sharing between the threads */
		printf("host span, profiling on:        %.2f ns per span per thread wall, %.2f ns CPU (%d threads, %ld spans each, back to back)\n",
		       sum / nt, cpu / nt, nt, n_on / 4);
	}
	npuprof_session_stop(s);
	npuprof_session_stats(s, &st);
	npuprof_session_free(s);
	printf("  session (1024 KiB buffers, 1, 2 and 4 threads): %llu spans kept, %llu dropped, file %.1f MiB\n",
	       (unsigned long long)st.spans,
	       (unsigned long long)st.spans_lost,
	       (double)st.bytes_written / 1048576.0);
	unlink(path);
	bench_sustained(quick ? 1.0 : 3.0, 0);
	/* the goal of issue 25: 10 M spans/s on one thread, no drop */
	bench_sustained(quick ? 1.0 : 3.0, 10e6);
}

/* ---- the ring parser ---- */

struct ring_sink {
	struct npf_writer *w;
	uint64_t n;
};

static int count_cb(void *ctx, const struct npu_trace_rec_hdr *h)
{
	struct ring_sink *k = ctx;

	(void)h;
	k->n++;
	return 0;
}

static int write_cb(void *ctx, const struct npu_trace_rec_hdr *h)
{
	struct ring_sink *k = ctx;
	struct npf_item_record ir = { .dev = 0 };

	k->n++;
	return npf_writer_add(k->w, NPF_ITEM_RECORD, &ir, sizeof(ir), h,
			      h->size);
}

/* A data area of MobileNet-like executions: 30 OP records then an EXEC. */
static uint64_t fill_ring(uint8_t *data, uint64_t size, uint64_t *nrec)
{
	uint64_t off = 0;
	uint32_t seq = 0, k = 0;

	*nrec = 0;
	for (;;) {
		uint16_t type = (k % 31 == 30) ? NPU_TRACE_REC_EXEC :
			NPU_TRACE_REC_OP;
		uint16_t sz = type == NPU_TRACE_REC_EXEC ?
			sizeof(struct npu_trace_rec_exec) :
			sizeof(struct npu_trace_rec_op);
		struct npu_trace_rec_hdr *h = (void *)(data + off);

		if (off + sz > size)
			break;
		memset(h, 0, sz);
		h->type = type;
		h->size = sz;
		h->seq = seq++;
		off += sz;
		k++;
		(*nrec)++;
	}
	if (off < size) {
		struct npu_trace_rec_hdr *h = (void *)(data + off);

		h->type = NPU_TRACE_REC_PAD;
		h->size = (uint16_t)(size - off);
		h->seq = 0;
	}
	return size;
}

static void bench_ring(void)
{
	const uint64_t size = 1 << 20;
	uint8_t *data = aligned_alloc(4096, size);
	struct npf_ring_stats st;
	struct ring_sink k = { 0 };
	char err[256], path[256];
	uint64_t nrec, pos = 0, total = 0, bytes = 0;
	int rounds = quick ? 200 : 2000, i;
	double t0, t;

	fill_ring(data, size, &nrec);
	t0 = now_s(CLOCK_MONOTONIC);
	for (i = 0; i < rounds; i++) {
		uint64_t cons = pos;

		memset(&st, 0, sizeof(st));
		npf_ring_parse(data, size, &cons, pos + size, count_cb, &k,
			       &st, err, sizeof(err));
		total += st.records;
		bytes += size;
		pos += size;
	}
	t = now_s(CLOCK_MONOTONIC) - t0;
	printf("ring parser alone:              %.1f M records/s, %.0f MB/s (31-record executions, 1 MiB area)\n",
	       (double)total / t / 1e6, (double)bytes / t / 1e6);

	path_in(path, sizeof(path), "ring.npuprof");
	if (npf_writer_open(path, 0, &k.w)) {
		printf("ring into file: cannot create %s\n", path);
		free(data);
		return;
	}
	total = 0;
	bytes = 0;
	rounds = quick ? 50 : 300;
	t0 = now_s(CLOCK_MONOTONIC);
	for (i = 0; i < rounds; i++) {
		uint64_t cons = pos;

		memset(&st, 0, sizeof(st));
		npf_ring_parse(data, size, &cons, pos + size, write_cb, &k,
			       &st, err, sizeof(err));
		total += st.records;
		bytes += size;
		pos += size;
	}
	npf_writer_close(k.w);
	t = now_s(CLOCK_MONOTONIC) - t0;
	printf("ring into the trace file:       %.2f M records/s, %.0f MB/s (parse + copy + write(2) to %s)\n",
	       (double)total / t / 1e6, (double)bytes / t / 1e6, dir);
	unlink(path);
	free(data);
}

/* ---- the trace file ---- */

static void bench_file(void)
{
	struct npuprof_span_rec rec;
	struct npf_writer *w;
	struct npuprof_trace *tr;
	struct npuprof_event ev;
	struct stat stt;
	char path[256], err[256];
	long n = quick ? 1000000 : 5000000, i, got = 0;
	double t0, t;

	path_in(path, sizeof(path), "file.npuprof");
	memset(&rec, 0, sizeof(rec));
	rec.kind = NPUPROF_SPAN_USER;
	if (npf_writer_open(path, 0, &w)) {
		printf("trace file: cannot create %s\n", path);
		return;
	}
	t0 = now_s(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		rec.span_id = (uint64_t)i + 1;
		rec.start_ns = (uint64_t)i * 1000;
		rec.end_ns = rec.start_ns + 500;
		npf_writer_add(w, NPF_ITEM_SPAN, &rec, sizeof(rec), NULL, 0);
	}
	npf_writer_close(w);
	t = now_s(CLOCK_MONOTONIC) - t0;
	stat(path, &stt);
	printf("trace file write:               %.0f MB/s, %.1f M items/s (%ld 88-byte span items, %.0f MiB, page cache)\n",
	       (double)stt.st_size / t / 1e6, (double)n / t / 1e6, n,
	       (double)stt.st_size / 1048576.0);
	t0 = now_s(CLOCK_MONOTONIC);
	if (npuprof_trace_open(path, &tr, err, sizeof(err))) {
		printf("trace file read: %s\n", err);
		unlink(path);
		return;
	}
	while (npuprof_trace_next(tr, &ev) == 1)
		got++;
	npuprof_trace_close(tr);
	t = now_s(CLOCK_MONOTONIC) - t0;
	printf("trace file read (public API):   %.0f MB/s, %.1f M events/s (two passes: clock samples, then events)\n",
	       (double)stt.st_size / t / 1e6, (double)got / t / 1e6);
	unlink(path);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--buf") && i + 1 < argc) {
			sustained_kb = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--sustained") && i + 1 < argc) {
			/* the two sustained figures alone, for SECS each */
			bench_sustained(atof(argv[i + 1]), 0);
			bench_sustained(atof(argv[i + 1]), 10e6);
			return 0;
		} else if (!strcmp(argv[i], "--loop") && i + 2 < argc) {
			counted_loop(argv[i + 1], atol(argv[i + 2]));
			return 0;
		} else {
			fprintf(stderr, "usage: %s [--quick] [--dir DIR] [--buf KB] | [--buf KB] --sustained SECS | --loop off|hook|sem|on|drain N\n",
				argv[0]);
			return 2;
		}
	}
	printf("libnpuprof host benchmarks (%s)\n", quick ? "quick" : "full");
	bench_spans();
	bench_ring();
	bench_file();
	return 0;
}
