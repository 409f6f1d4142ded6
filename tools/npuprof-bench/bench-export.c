// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-export.c - the Chrome JSON exporter's throughput and memory: a
 * synthetic trace of N events (one device with 4 PEs; per job a SUBMIT
 * span, an EXEC record and 8 OP records in RECORDS items, clock samples
 * every 10 ms) is exported by npuprof_export_chrome() in a child process
 * whose peak RSS (wait4()'s ru_maxrss) is the exporter's alone. Prints
 * events/s, input and output MB/s, the peak RSS and the child's CPU time
 * (user and system: the figure to compare on a busy machine; its user
 * part too, without the kernel's copy of the file) at 1 M and
 * 10 M events: memory must stay flat as the trace grows. The export
 * runs in the child's one thread. Figures only; never fails on a number.
 * --events N exports one trace of about N events instead; --json FILE
 * writes the JSON there (to compare the output of two versions of the
 * library byte for byte) rather than only counting it; --trace FILE
 * exports FILE instead of a synthetic trace; --gen FILE only writes the
 * synthetic trace to FILE (for callgrind or perf on the export).
 * --memory times npuprof_memory() (the report of npuprof memory, all
 * its default tables, to a counting stream) instead, on the same trace
 * with buffer records: per job an input and an output buffer allocated
 * before its operators and freed after its execution (4 BO records, so
 * 14 events a job), and a failed allocation every 1000 jobs; --bo adds
 * them to the Chrome export's trace too.
 * The synthetic trace ends with an index of its clock samples, as a
 * session's does; --no-index leaves it out (as in a file cut short, or of
 * an older writer: opening it then reads the whole file once more), and
 * the full run also exports 10 M events without it. The open's share of
 * the time is printed too.
 *
 * Usage: npuprof-bench-export [--quick] [--dir DIR] [--events N]
 *	[--json FILE] [--trace FILE] [--gen FILE] [--no-index] [--bo]
 *	[--memory]
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

#define OPS_PER_JOB	8
#define BO_PER_JOB	4			/* 2 allocs, 2 frees */
#define PES		4

static int no_index;	/* --no-index */
static int with_bo;	/* --bo, --memory: buffer records in the trace */
static int memory;	/* --memory: time npuprof_memory() */

/* span, EXEC, OPs (and the buffer records) */
static uint64_t events_per_job(void)
{
	return 2 + OPS_PER_JOB + (with_bo ? BO_PER_JOB : 0);
}

/* A BO record of job @j at @at in @run: buffer @id (0: a failure) */
static size_t gen_bo(uint8_t *at, uint16_t type, uint32_t seq, uint64_t id,
		     uint64_t size, uint32_t kind, uint64_t t, uint64_t used)
{
	struct npu_trace_rec_bo *b = (void *)at;

	memset(b, 0, sizeof(*b));
	b->hdr = (struct npu_trace_rec_hdr){ type, sizeof(*b), seq };
	b->pid = 100;
	b->tid = type == NPU_TRACE_REC_BO_ALLOC ? 101 : 0;
	b->bo_id = id;
	b->dev_addr = id ? 0x400000 + (id % 512) * 0x10000 : 0;
	b->size = size;
	b->kind = kind;
	b->error = id ? 0 : -ENOMEM;
	b->reason = type == NPU_TRACE_REC_BO_FREE ? NPU_TRACE_BO_FREE_HANDLE : 0;
	b->host_ns = t;
	b->dev_used = used;
	return sizeof(*b);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int add(struct npf_writer *w, uint16_t type, const void *a, size_t alen,
	       const void *b, size_t blen)
{
	int ret = npf_writer_add(w, type, a, alen, b, blen);

	if (ret) {
		fprintf(stderr, "writing the trace: %s\n", strerror(-ret));
		exit(1);
	}
	return 0;
}

/* A trace of about @events events; returns the events written */
static uint64_t gen(const char *path, uint64_t events)
{
	uint64_t jobs = events / events_per_job(), j, t = 2000000000ull;
	uint64_t next_clock = 0, n = 0;
	struct npf_item_device dev = { .dev = 0, .info_size = sizeof(struct npu_info) };
	struct npu_info info = { .version = 1, .pe_count = PES,
				 .clock_hz = 1000000000, .minor = 0 };
	struct npf_item_records ir = { .dev = 0 };
	uint8_t run[sizeof(struct npu_trace_rec_clock) + sizeof(struct npu_trace_rec_exec) +
		    OPS_PER_JOB * sizeof(struct npu_trace_rec_op) +
		    (BO_PER_JOB + 1) * sizeof(struct npu_trace_rec_bo)];
	struct npf_writer *w;
	uint32_t seq = 0;

	if (npf_writer_open(path, 0, &w)) {
		fprintf(stderr, "%s: cannot create\n", path);
		exit(1);
	}
	snprintf(dev.path, sizeof(dev.path), "/dev/npu0");
	add(w, NPF_ITEM_META, "host_spans", 11, "on", 3);
	add(w, NPF_ITEM_DEVICE, &dev, sizeof(dev), &info, sizeof(info));
	for (j = 0; j < jobs; j++) {
		struct npuprof_span_rec sp = {
			.kind = NPUPROF_SPAN_SUBMIT, .flags = NPUPROF_SPAN_F_JOB,
			.pid = 100, .tid = 101 + (int)(j % 4), .start_ns = t,
			.end_ns = t + 3000, .span_id = j * 2 + 1,
			.parent_id = j * 2, .trace_id = { j, ~j }, .job_id = j,
		};
		struct npu_trace_rec_exec *x;
		uint64_t s = t + 5000, k;
		size_t len = 0;

		add(w, NPF_ITEM_SPAN, &sp, sizeof(sp), NULL, 0);
		ir.count = 0;
		if (t >= next_clock) {
			struct npu_trace_rec_clock *c = (void *)run;

			memset(c, 0, sizeof(*c));
			c->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_CLOCK, sizeof(*c), seq++ };
			c->samples = 4;
			c->host_before_ns = t - 100;
			c->device_tick = t - 1000000000ull;
			c->host_after_ns = t + 100;
			c->width_ns = 200;
			c->clock_hz = 1000000000;
			len += sizeof(*c);
			ir.count++;
			next_clock = t + 10000000;
		}
		if (with_bo) {
			len += gen_bo(run + len, NPU_TRACE_REC_BO_ALLOC, seq++,
				      2 * j + 1, 65536, NPU_BO_KIND_INPUT, t + 2000,
				      65536);
			len += gen_bo(run + len, NPU_TRACE_REC_BO_ALLOC, seq++,
				      2 * j + 2, 16384, NPU_BO_KIND_OUTPUT,
				      t + 2000, 81920);
			ir.count += 2;
			if (j % 1000 == 999) {
				len += gen_bo(run + len, NPU_TRACE_REC_BO_ALLOC,
					      seq++, 0, 1ull << 30,
					      NPU_BO_KIND_SCRATCH, t + 2000,
					      81920);
				ir.count++;
			}
		}
		for (k = 0; k < OPS_PER_JOB; k++) {
			struct npu_trace_rec_op *o = (void *)(run + len);

			memset(o, 0, sizeof(*o));
			o->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_OP, sizeof(*o), seq++ };
			o->pid = 100;
			o->tid = sp.tid;
			o->job_id = j;
			o->pe = (uint16_t)(j % PES);
			o->opcode = (uint16_t)(1 + k % 13);
			o->op_index = (uint32_t)k;
			o->start_tick = s + k * 1000 - 1000000000ull;
			o->end_tick = o->start_tick + 900;
			o->iowait_ticks = 100;
			o->dma_bytes = 4096;
			o->macs = 100000 + k;
			len += sizeof(*o);
			ir.count++;
		}
		x = (void *)(run + len);
		memset(x, 0, sizeof(*x));
		x->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_EXEC, sizeof(*x), seq++ };
		x->flags = NPU_TRACE_EXEC_F_DEVICE;
		x->pid = 100;
		x->tid = sp.tid;
		x->job_id = j;
		x->submit_ns = t + 2000;
		x->complete_ns = s + OPS_PER_JOB * 1000 + 2000;
		x->pe = (uint16_t)(j % PES);
		x->n_ops = OPS_PER_JOB;
		x->start_tick = s - 1000000000ull;
		x->end_tick = x->start_tick + OPS_PER_JOB * 1000;
		x->iowait_ticks = OPS_PER_JOB * 100;
		x->run_ticks = OPS_PER_JOB * 1000 - x->iowait_ticks;
		x->dma_bytes = OPS_PER_JOB * 4096;
		x->macs = OPS_PER_JOB * 100000;
		len += sizeof(*x);
		ir.count++;
		if (with_bo) {
			uint64_t e = x->complete_ns + 100;

			len += gen_bo(run + len, NPU_TRACE_REC_BO_FREE, seq++,
				      2 * j + 1, 65536, NPU_BO_KIND_INPUT, e, 16384);
			len += gen_bo(run + len, NPU_TRACE_REC_BO_FREE, seq++,
				      2 * j + 2, 16384, NPU_BO_KIND_OUTPUT, e, 0);
			ir.count += 2;
		}
		add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), run, len);
		n += events_per_job();
		t += 4000;	/* 4 PEs: a job every 4 us, each 8 us long */
	}
	/* the index, as a session writes it at stop: from a reading so far */
	if ((!no_index && npf_trace_index_file(w, path)) ||
	    npf_writer_close(w)) {
		fprintf(stderr, "%s: write error\n", path);
		exit(1);
	}
	return n;
}

/* Counts the bytes written to it, and writes them to a file if asked */
struct sink {
	uint64_t bytes;
	FILE *copy;
};

static ssize_t count_write(void *c, const char *buf, size_t n)
{
	struct sink *s = c;

	s->bytes += n;
	if (s->copy && fwrite(buf, 1, n, s->copy) != n)
		return -1;
	return (ssize_t)n;
}

/* Events of an existing trace, read once before the timing */
static uint64_t count_events(const char *path)
{
	struct npuprof_trace *tr;
	struct npuprof_event ev;
	char err[256];
	uint64_t n = 0;

	if (npuprof_trace_open(path, &tr, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	while (npuprof_trace_next(tr, &ev) > 0)
		n++;
	npuprof_trace_close(tr);
	return n;
}

static void bench(const char *dir, uint64_t events, const char *json,
		  const char *trace)
{
	char path[256], err[256];
	struct rusage ru;
	struct stat st;
	int pfd[2], status;
	uint64_t n = 0, out_bytes = 0, res[2] = { 0 };
	double t0, t, in_mb, cpu, usr, t_open;
	pid_t pid;

	if (trace) {
		snprintf(path, sizeof(path), "%s", trace);
		n = count_events(path);
	} else {
		snprintf(path, sizeof(path), "%s/npuprof-bench-export-%d.npuprof",
			 dir, (int)getpid());
		n = gen(path, events);
	}
	stat(path, &st);
	in_mb = (double)st.st_size / 1e6;
	if (pipe(pfd))
		exit(1);
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		cookie_io_functions_t io = { .write = count_write };
		struct npuprof_trace *tr;
		struct sink sink = { 0 };
		FILE *f = fopencookie(&sink, "w", io);
		int ret;

		if (json && !(sink.copy = fopen(json, "w"))) {
			perror(json);
			_exit(1);
		}
		ret = npuprof_trace_open(path, &tr, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "%s\n", err);
			_exit(1);
		}
		res[1] = (uint64_t)((now_s() - t0) * 1e9);	/* fork and open */
		/* the exporter buffers itself: no second copy in stdio */
		setvbuf(f, NULL, _IONBF, 0);
		if (memory)
			ret = npuprof_memory(tr, f, NULL);
		else
			ret = npuprof_export_chrome(tr, f, NULL);
		if (ret)
			fprintf(stderr, "export: %s (%s)\n", strerror(-ret),
				npuprof_trace_error(tr));
		fclose(f);
		npuprof_trace_close(tr);
		if (sink.copy && fclose(sink.copy))
			ret = -EIO;
		res[0] = sink.bytes;
		if (write(pfd[1], res, sizeof(res)) < 0)
			_exit(1);
		_exit(ret ? 1 : 0);
	}
	close(pfd[1]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) ||
	    read(pfd[0], res, sizeof(res)) != sizeof(res)) {
		printf("%s of %llu events: failed\n",
		       memory ? "npuprof memory" : "chrome export",
		       (unsigned long long)n);
		close(pfd[0]);
		if (!trace)
			unlink(path);
		return;
	}
	t = now_s() - t0;
	close(pfd[0]);
	out_bytes = res[0];
	t_open = (double)res[1] * 1e-9;

	usr = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	cpu = usr + (double)ru.ru_stime.tv_sec +
	      (double)ru.ru_stime.tv_usec * 1e-6;
	printf("%s, %5.1f M events%s: %5.2f M events/s, %4.0f MB/s of %s (%.0f MB), %4.0f MB/s of trace (%.0f MB), peak RSS %ld MiB, %.2f s (open %.3f s; CPU %.3f s, user %.3f: %.2f M events/s)\n",
	       memory ? "npuprof memory" : "chrome export",
	       (double)n / 1e6, trace ? "" : no_index ? " (no index)" :
	       with_bo && !memory ? " (with buffer records)" : "",
	       (double)n / t / 1e6,
	       (double)out_bytes / t / 1e6, memory ? "text" : "JSON",
	       (double)out_bytes / 1e6,
	       in_mb / t, in_mb, ru.ru_maxrss / 1024, t, t_open, cpu, usr,
	       cpu > 0 ? (double)n / cpu / 1e6 : 0.0);
	if (!trace)
		unlink(path);
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp", *json = NULL, *trace = NULL, *out = NULL;
	uint64_t events = 0;
	int quick = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--events") && i + 1 < argc) {
			events = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			trace = argv[++i];
		} else if (!strcmp(argv[i], "--gen") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--no-index")) {
			no_index = 1;
		} else if (!strcmp(argv[i], "--bo")) {
			with_bo = 1;
		} else if (!strcmp(argv[i], "--memory")) {
			memory = with_bo = 1;
		} else {
			fprintf(stderr, "usage: %s [--quick] [--dir DIR] [--events N] [--json FILE] [--trace FILE] [--gen FILE] [--no-index] [--bo] [--memory]\n",
				argv[0]);
			return 2;
		}
	}
	if (out) {
		printf("%s: %llu events\n", out, (unsigned long long)
		       gen(out, events ? events : 1000000));
		return 0;
	}
	if (memory)
		printf("npuprof memory (per job: a submit span, an EXEC, %d OP and %d BO records; the output counted%s)\n",
		       OPS_PER_JOB, BO_PER_JOB, json ? " and written" : ", not stored");
	else
		printf("npuprof Chrome JSON export (per job: a submit span, an EXEC and %d OP records%s; the output counted%s)\n",
		       OPS_PER_JOB, with_bo ? ", 4 BO records" : "",
		       json ? " and written" : ", not stored");
	if (events || trace || json) {
		bench(dir, events ? events : 1000000, json, trace);
		return 0;
	}
	bench(dir, 1000000, NULL, NULL);
	if (!quick) {
		bench(dir, 10000000, NULL, NULL);
		if (memory)
			return 0;
		no_index = 1;
		bench(dir, 10000000, NULL, NULL);
	}
	return 0;
}
