// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-report.c - benchmarks of libnpuprof's analysis side: a synthetic
 * trace of N events (1 M and 10 M by default) as a capture writes them
 * (per inference: seven host spans, an EXEC and ten OP records in one
 * RECORDS item, a CLOCK sample every 1000 inferences; at the end the
 * index of clock samples a session writes at stop) exported to SQLite
 * (npuprof_export_sqlite()), and the time of the summary
 * (npuprof_print_summary()) and of the latency breakdown
 * (npuprof_print_breakdown()). Each measurement runs in a child process so
 * that its peak RSS is its own (wait4's ru_maxrss). Prints events/s, MB/s
 * of trace read, the database size and the peak RSS; never fails on a
 * number. With --runs K each measurement runs K times and the best wall
 * time is printed (the largest peak RSS): this machine is noisy.
 *
 * Usage: npuprof-bench-report [--quick] [--dir DIR] [--runs K] [EVENTS...]
 *        npuprof-bench-report --gen FILE EVENTS   (write the trace only)
 *        npuprof-bench-report [--runs K] --trace FILE   (an existing trace)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "npf_index.h"
#include "npuprof_analysis.h"
#include "trace_format.h"
#include "writer.h"

#define EV_PER_INF	18	/* 7 spans, 1 EXEC, 10 OP */
#define OPS_PER_INF	10

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void span(struct npf_writer *w, uint16_t kind, uint16_t flags,
		 uint64_t id, uint64_t parent, uint64_t t, uint64_t dur,
		 uint64_t job)
{
	struct npuprof_span_rec s;

	memset(&s, 0, sizeof(s));
	s.kind = kind;
	s.flags = flags;
	s.pid = 1000;
	s.tid = 1001;
	s.span_id = id;
	s.parent_id = parent;
	s.trace_id[0] = 0x1234;
	s.trace_id[1] = parent ? parent : id;
	s.start_ns = t;
	s.end_ns = t + dur;
	s.job_id = job;
	s.op_index = 0;
	if (npf_writer_add(w, NPF_ITEM_SPAN, &s, sizeof(s), NULL, 0))
		abort();
}

/* A trace of about @events events; returns the events written */
static uint64_t make_trace(const char *path, uint64_t events)
{
	uint64_t n = events / EV_PER_INF, i, written = 0;
	struct npf_item_device dev;
	struct npu_info info;
	struct npf_writer *w;
	uint8_t run[sizeof(struct npu_trace_rec_clock) +
		    sizeof(struct npu_trace_rec_exec) +
		    OPS_PER_INF * sizeof(struct npu_trace_rec_op)];
	uint32_t seq = 0;

	if (npf_writer_open(path, 0, &w))
		abort();
	memset(&dev, 0, sizeof(dev));
	memset(&info, 0, sizeof(info));
	strcpy(dev.path, "/dev/npu0");
	dev.info_size = sizeof(info);
	info.clock_hz = 1000000000;
	info.pe_count = 4;
	npf_writer_add(w, NPF_ITEM_DEVICE, &dev, sizeof(dev), &info, sizeof(info));
	for (i = 0; i < n; i++) {
		uint64_t t = 2000000000ull + i * 100000, id = i * 8 + 1, job = i + 1;
		struct npf_item_records ir = { .dev = 0, .count = 0 };
		struct npu_trace_rec_exec *e;
		size_t len = 0;
		int k;

		if (i % 1000 == 0) {
			struct npu_trace_rec_clock *c = (void *)run;

			memset(c, 0, sizeof(*c));
			c->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_CLOCK,
							     sizeof(*c), seq++ };
			c->host_before_ns = t - 500;
			c->device_tick = t - 1000000000ull;
			c->host_after_ns = t + 500;
			c->clock_hz = 1000000000;
			len += sizeof(*c);
			ir.count++;
			written++;
		}
		for (k = 0; k < OPS_PER_INF; k++) {
			struct npu_trace_rec_op *o = (void *)(run + len);

			memset(o, 0, sizeof(*o));
			o->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_OP,
							     sizeof(*o), seq++ };
			o->pid = 1000;
			o->tid = 1001;
			o->job_id = job;
			o->opcode = (uint16_t)(1 + k % 13);
			o->op_index = (uint32_t)k;
			o->start_tick = t + 10000 + (uint64_t)k * 3000 - 1000000000ull;
			o->end_tick = o->start_tick + 2500 + (uint64_t)k * 10;
			o->iowait_ticks = 300;
			len += sizeof(*o);
			ir.count++;
		}
		e = (void *)(run + len);
		memset(e, 0, sizeof(*e));
		e->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_EXEC,
						     sizeof(*e), seq++ };
		e->flags = NPU_TRACE_EXEC_F_DEVICE;
		e->pid = 1000;
		e->tid = 1001;
		e->job_id = job;
		e->submit_ns = t + 5000;
		e->complete_ns = t + 50000;
		e->pe = (uint16_t)(i % 4);
		e->n_ops = OPS_PER_INF;
		e->start_tick = t + 10000 - 1000000000ull;
		e->end_tick = e->start_tick + 32000;
		e->run_ticks = 28000;
		e->iowait_ticks = 4000;
		len += sizeof(*e);
		ir.count++;
		/* the ring's records come before the spans, as they often do */
		if (npf_writer_add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), run, len))
			abort();
		span(w, NPUPROF_SPAN_QUANTIZE, NPUPROF_SPAN_F_OP, id + 1, id, t + 100, 900, 0);
		span(w, NPUPROF_SPAN_LOWER, NPUPROF_SPAN_F_OP, id + 2, id, t + 1000, 2000, 0);
		span(w, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB, id + 3, id, t + 4000, 1500, job);
		span(w, NPUPROF_SPAN_WAIT, NPUPROF_SPAN_F_JOB, id + 4, id, t + 6000, 45000, job);
		span(w, NPUPROF_SPAN_UNLOWER, NPUPROF_SPAN_F_OP, id + 5, id, t + 52000, 2000, 0);
		span(w, NPUPROF_SPAN_DEQUANTIZE, NPUPROF_SPAN_F_OP, id + 6, id, t + 55000, 800, 0);
		span(w, NPUPROF_SPAN_INFERENCE, 0, id, 0, t, 60000 + i % 7919, 0);
		written += EV_PER_INF;
	}
	/* the index, as a session writes it at stop: from a reading so far */
	if (npf_trace_index_file(w, path) || npf_writer_close(w))
		abort();
	return written;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/* CPU seconds (user + system) in @ru */
static double cpu_s(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
	       (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1e-6;
}

/*
 * Run @what on @trace in a child: wall seconds, its CPU seconds in
 * *@cpu and its peak RSS (KiB) in *@rss_kb, or -1
 */
static double child(int what, const char *trace, const char *db, long *rss_kb,
		    double *cpu)
{
	struct rusage ru;
	double t0 = now_s();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		struct npuprof_trace *t;
		char err[256];
		FILE *null;
		int ret;

		if (npuprof_trace_open(trace, &t, err, sizeof(err)))
			_exit(1);
		null = fopen("/dev/null", "w");
		if (what == 0)
			ret = npuprof_export_sqlite(t, db);
		else if (!null)
			ret = -1;
		else if (what == 1)
			ret = npuprof_print_summary(t, null,
				NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_TABLE));
		else
			ret = npuprof_print_breakdown(t, null,
				NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_TABLE));
		if (ret)
			fprintf(stderr, "npuprof-bench-report: %s\n", npuprof_trace_error(t));
		_exit(ret ? 1 : 0);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	*rss_kb = ru.ru_maxrss;
	*cpu = cpu_s(&ru);
	return now_s() - t0;
}

/* The spans and device records of the trace @path (0 if unreadable) */
static uint64_t count_events(const char *path)
{
	struct npuprof_trace *t;
	struct npuprof_event ev;
	uint64_t n = 0;
	char err[256];

	if (npuprof_trace_open(path, &t, err, sizeof(err)))
		return 0;
	while (npuprof_trace_next(t, &ev) == 1)
		n += ev.type == NPUPROF_EV_SPAN || ev.type == NPUPROF_EV_RECORD;
	npuprof_trace_close(t);
	return n;
}

/*
 * The best of @runs runs of child(@what): the least wall time, the least
 * CPU time in *@cpu, the largest peak RSS in *@rss_kb
 */
static double best_of(int runs, int what, const char *trace, const char *db,
		      long *rss_kb, double *cpu)
{
	double best = -1, t, c;
	long rss;
	int i;

	for (i = 0; i < runs; i++) {
		rss = 0;
		t = child(what, trace, db, &rss, &c);
		if (t < 0)
			return -1;
		if (best < 0 || t < best)
			best = t;
		if (!i || c < *cpu)
			*cpu = c;
		if (rss > *rss_kb)
			*rss_kb = rss;
	}
	return best;
}

/* Benchmark @events events in a new trace under @dir, or @given */
static void bench(const char *dir, uint64_t events, const char *given, int runs)
{
	char trace[512], db[520];
	uint64_t n, bytes;
	double tw, ts, tsum, cs = 0, csum = 0;
	long rss = 0, rss_sum = 0;
	int i;

	if (given) {
		snprintf(trace, sizeof(trace), "%s", given);
		snprintf(db, sizeof(db), "%s/npuprof-bench-report-%d.db", dir,
			 (int)getpid());
		bytes = file_size(trace);
		n = count_events(trace);
		printf("report: trace %s of %llu events, %.1f MB\n", trace,
		       (unsigned long long)n, (double)bytes / 1e6);
	} else {
		snprintf(trace, sizeof(trace), "%s/npuprof-bench-report-%d.npuprof",
			 dir, (int)getpid());
		snprintf(db, sizeof(db), "%s.db", trace);
		tw = now_s();
		n = make_trace(trace, events);
		tw = now_s() - tw;
		bytes = file_size(trace);
		printf("report: trace of %llu events (%llu inferences), %.1f MB, written in %.2f s\n",
		       (unsigned long long)n, (unsigned long long)(n / EV_PER_INF),
		       (double)bytes / 1e6, tw);
	}
	ts = best_of(runs, 0, trace, db, &rss, &cs);
	if (ts < 0)
		printf("report: sqlite export failed\n");
	else
		printf("report:   sqlite export: %.2f s (CPU %.2f s), %.0f events/s, %.1f MB/s of trace, database %.1f MB, peak RSS %.1f MiB\n",
		       ts, cs, (double)n / ts, (double)bytes / 1e6 / ts,
		       (double)file_size(db) / 1e6, (double)rss / 1024);
	for (i = 1; i <= 2; i++) {
		const char *what = i == 1 ? "summary" : "breakdown";

		rss_sum = 0;
		tsum = best_of(runs, i, trace, NULL, &rss_sum, &csum);
		if (tsum < 0)
			printf("report: %s failed\n", what);
		else
			printf("report:   %s: %.2f s (CPU %.2f s), %.0f events/s, %.1f MB/s, peak RSS %.1f MiB (%llu inferences)\n",
			       what, tsum, csum, (double)n / tsum,
			       (double)bytes / 1e6 / tsum, (double)rss_sum / 1024,
			       (unsigned long long)(n / EV_PER_INF));
	}
	unlink(db);
	if (!given)
		unlink(trace);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	int i, quick = 0, any = 0, runs = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc &&
			   atoi(argv[i + 1]) > 0) {
			runs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--gen") && i + 2 < argc) {
			printf("%llu events\n", (unsigned long long)
			       make_trace(argv[i + 1], strtoull(argv[i + 2], NULL, 10)));
			return 0;
		} else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			bench(dir, 0, argv[++i], runs);
			any = 1;
		} else if (argv[i][0] >= '1' && argv[i][0] <= '9') {
			bench(dir, strtoull(argv[i], NULL, 10), NULL, runs);
			any = 1;
		} else {
			fprintf(stderr, "usage: npuprof-bench-report [--quick] [--dir DIR] [--runs K] [EVENTS...]\n"
				"       npuprof-bench-report --gen FILE EVENTS\n"
				"       npuprof-bench-report [--runs K] --trace FILE\n");
			return 2;
		}
	}
	if (!any) {
		bench(dir, quick ? 100000 : 1000000, NULL, runs);
		if (!quick)
			bench(dir, 10000000, NULL, runs);
	}
	return 0;
}
