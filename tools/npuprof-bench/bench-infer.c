// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof-bench-infer - what library capture adds to each inference of a
 * small model, measured in one process. Run in the VM (bench.sh does,
 * beside tools/npuprof-bench/overhead.sh; Documentation/npu/overhead.rst).
 *
 * Separate runs of npu-classify differ by a few percent from one another,
 * more than capture costs a small model. Here one process runs the model
 * in blocks of inferences whose state cycles through off, semaphore, on,
 * on, semaphore, off, with one session of the given level for the whole
 * run:
 *
 *   off        the session paused (npuprof_session_pause());
 *   semaphore  the session paused and libnpu's USDT semaphore raised, so
 *              that every span takes the slow path (its ids and clock
 *              reads) but nothing is recorded;
 *   on         the session resumed.
 *
 * The first two inferences of each block are dropped (a state change
 * costs the first ones a pass through cold code). For each state it
 * prints the inferences' latency percentiles, and what "on" and
 * "semaphore" add to "off" at the p50, the p25 and the minimum, and the
 * CPU time an inference of the calling thread and of the process's other
 * threads (the session's reader and writer, /proc/self/task/N/schedstat).
 *
 * Usage: npuprof-bench-infer [-m MODEL] [-d DEVICE] [-l LEVEL]...
 *                            [-b BLOCKS] [-n COUNT] [-o FILE]
 *
 * MODEL is a .nmdl path (default $NPU_BUILD/models/mnist.nmdl), DEVICE
 * the device node (default /dev/npu0). LEVEL is a trace level (0, 1, 2)
 * or "spans" (host spans alone, no device ring); -l may be repeated, and
 * each level runs in turn with a session of its own (default: spans, 0,
 * 1, 2). BLOCKS blocks (default 90) of COUNT inferences (default 20) a
 * level; FILE the trace file (default /tmp/npuprof-bench-infer.npuprof,
 * removed at the end). Not a test: it prints figures, and exits 1 only
 * when something fails. Single-threaded; everything it allocates lives
 * until it exits.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libnpu.h"
#include "npuprof.h"

/* libnpu's USDT semaphore (usdt.c): raised, every span takes its slow path */
extern unsigned short npu_probes_semaphore;

#define MAX_LEVELS	8
#define WARM_UP		20
#define DROP		2	/* first inferences of a block, not counted */

enum { ST_OFF, ST_SEM, ST_ON, NSTATES };

static const char *const state_name[NSTATES] = { "off", "semaphore", "on" };

struct bench {
	struct npu_runner *runner;
	const struct npu_tensor_desc *in, *out;
	float *x, *y;
	const char *output;
	unsigned int blocks, count;
};

static uint64_t ts_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* CPU ns of the process's threads other than the caller (schedstat). */
static uint64_t others_ns(void)
{
	long me = syscall(SYS_gettid);
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	uint64_t sum = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		unsigned long long v;
		char p[300];
		FILE *f;

		if (e->d_name[0] == '.' || atol(e->d_name) == me)
			continue;
		snprintf(p, sizeof(p), "/proc/self/task/%s/schedstat",
			 e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1)
			sum += v;
		fclose(f);
	}
	closedir(d);
	return sum;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One inference as a serving loop runs it, as npu-classify does. */
static int infer(struct bench *b)
{
	struct npu_inference *inf;
	int ret;

	ret = npu_runner_acquire(b->runner, &inf);
	if (ret)
		return ret;
	ret = npu_inference_set_input(inf, 0, b->x, b->in->count);
	if (!ret)
		ret = npu_inference_submit(inf);
	if (!ret)
		ret = npu_inference_wait(inf, -1, NULL);
	if (!ret)
		ret = npu_inference_get_output(inf, 0, b->y, b->out->count);
	npu_inference_release(inf);
	return ret;
}

/* The p-th percentile (0-100) of sorted @v[@n]. */
static double pct(const uint64_t *v, size_t n, unsigned int p)
{
	return v[n * p / 100 >= n ? n - 1 : n * p / 100] / 1e3;
}

/* One level: -1 host spans alone, else the trace level. */
static int run_level(struct bench *b, int level)
{
	static const char *const no_devices[] = { NULL };
	static const int order[6] = { ST_OFF, ST_SEM, ST_ON, ST_ON, ST_SEM,
				      ST_OFF };
	uint64_t cpu[NSTATES] = { 0 }, oth[NSTATES] = { 0 };
	size_t n[NSTATES] = { 0 }, nb[NSTATES] = { 0 }, per, i;
	uint64_t *lat[NSTATES];
	struct npuprof_session *s;
	struct npuprof_opts o;
	unsigned int blk, k;
	int ret, st;

	per = (size_t)b->blocks * b->count;
	for (st = 0; st < NSTATES; st++) {
		lat[st] = calloc(per, sizeof(uint64_t));
		if (!lat[st]) {
			fprintf(stderr, "npuprof-bench-infer: out of memory\n");
			return -ENOMEM;
		}
	}
	npuprof_opts_init(&o);
	o.output = b->output;
	if (level < 0)
		o.devices = no_devices;
	else
		o.level = (unsigned int)level;
	ret = npuprof_session_create(&o, &s);
	if (ret) {
		fprintf(stderr, "npuprof-bench-infer: session: %s\n",
			strerror(-ret));
		return ret;
	}
	ret = npuprof_session_start(s);
	if (!ret)
		ret = npuprof_session_pause(s);
	for (k = 0; !ret && k < WARM_UP; k++)
		ret = infer(b);
	for (blk = 0; !ret && blk < b->blocks; blk++) {
		uint64_t c0, o0;

		st = order[blk % 6];
		nb[st]++;
		if (st == ST_ON)
			ret = npuprof_session_resume(s);
		npu_probes_semaphore = st == ST_SEM;
		c0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
		o0 = others_ns();
		for (k = 0; !ret && k < b->count; k++) {
			uint64_t t0 = ts_ns(CLOCK_MONOTONIC);

			ret = infer(b);
			if (k >= DROP)
				lat[st][n[st]++] = ts_ns(CLOCK_MONOTONIC) - t0;
		}
		cpu[st] += ts_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		oth[st] += others_ns() - o0;
		npu_probes_semaphore = 0;
		if (st == ST_ON && !ret)
			ret = npuprof_session_pause(s);
	}
	if (ret)
		fprintf(stderr, "npuprof-bench-infer: inference: %s\n",
			strerror(-ret));
	npuprof_session_stop(s);
	npuprof_session_free(s);
	unlink(b->output);
	if (ret)
		return ret;

	printf("level %s: %u blocks of %u inferences, the first %d of each dropped\n",
	       level < 0 ? "spans" : level == 0 ? "0" : level == 1 ? "1" : "2",
	       b->blocks, b->count, DROP);
	for (st = 0; st < NSTATES; st++) {
		double sum = 0, runs = (double)nb[st] * b->count;

		if (!n[st])
			continue;
		qsort(lat[st], n[st], sizeof(uint64_t), cmp_u64);
		for (i = 0; i < n[st]; i++)
			sum += (double)lat[st][i];
		printf("  %-9s n %zu min %.1f p25 %.1f p50 %.1f p75 %.1f mean %.1f us; CPU an inference: this thread %.1f us, others %.1f us\n",
		       state_name[st], n[st], lat[st][0] / 1e3,
		       pct(lat[st], n[st], 25), pct(lat[st], n[st], 50),
		       pct(lat[st], n[st], 75), sum / (double)n[st] / 1e3,
		       cpu[st] / 1e3 / runs, oth[st] / 1e3 / runs);
	}
	for (st = ST_SEM; st < NSTATES && n[ST_OFF]; st++) {
		if (!n[st])
			continue;
		printf("  %-9s adds p50 %.1f us, p25 %.1f us, min %.1f us (p50 ratio %.3f)\n",
		       state_name[st],
		       pct(lat[st], n[st], 50) - pct(lat[ST_OFF], n[ST_OFF], 50),
		       pct(lat[st], n[st], 25) - pct(lat[ST_OFF], n[ST_OFF], 25),
		       (lat[st][0] - (double)lat[ST_OFF][0]) / 1e3,
		       pct(lat[st], n[st], 50) / pct(lat[ST_OFF], n[ST_OFF], 50));
	}
	for (st = 0; st < NSTATES; st++)
		free(lat[st]);
	return 0;
}

static int parse_uint(const char *s, unsigned int max, unsigned int *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || end == s || *end || x > max || *s == '-')
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: npuprof-bench-infer [-m MODEL] [-d DEVICE] [-l LEVEL]... [-b BLOCKS] [-n COUNT] [-o FILE]\n"
		"  -m MODEL   .nmdl file (default $NPU_BUILD/models/mnist.nmdl)\n"
		"  -d DEVICE  device node (default /dev/npu0)\n"
		"  -l LEVEL   0, 1, 2 or spans (host spans alone); repeatable (default: spans 0 1 2)\n"
		"  -b BLOCKS  blocks a level (default 90; states cycle off, semaphore, on, on, semaphore, off)\n"
		"  -n COUNT   inferences a block (default 20, the first 2 not counted)\n"
		"  -o FILE    trace file (default /tmp/npuprof-bench-infer.npuprof, removed at the end)\n");
}

int main(int argc, char **argv)
{
	int levels[MAX_LEVELS], nlevels = 0, c, i, ret;
	const char *model = NULL, *devpath = "/dev/npu0";
	struct bench b = {
		.output = "/tmp/npuprof-bench-infer.npuprof",
		.blocks = 90,
		.count = 20,
	};
	static const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npu_device *dev;
	struct npu_model *m;
	char err[256], *mpath = NULL;
	size_t k;

	while ((c = getopt_long(argc, argv, "m:d:l:b:n:o:h", lopts,
				NULL)) != -1) {
		unsigned int v;

		switch (c) {
		case 'm':
			model = optarg;
			break;
		case 'd':
			devpath = optarg;
			break;
		case 'l':
			if (nlevels == MAX_LEVELS) {
				fprintf(stderr, "npuprof-bench-infer: at most %d -l\n",
					MAX_LEVELS);
				return 2;
			}
			if (!strcmp(optarg, "spans")) {
				levels[nlevels++] = -1;
				break;
			}
			if (parse_uint(optarg, 2, &v)) {
				fprintf(stderr, "npuprof-bench-infer: -l takes 0, 1, 2 or spans, not '%s'\n",
					optarg);
				return 2;
			}
			levels[nlevels++] = (int)v;
			break;
		case 'b':
		case 'n':
			if (parse_uint(optarg, 100000, &v) || !v ||
			    (c == 'n' && v <= DROP)) {
				fprintf(stderr, "npuprof-bench-infer: -%c takes a number from %d to 100000, not '%s'\n",
					c, c == 'n' ? DROP + 1 : 1, optarg);
				return 2;
			}
			if (c == 'b')
				b.blocks = v;
			else
				b.count = v;
			break;
		case 'o':
			b.output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "npuprof-bench-infer: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (!nlevels) {
		levels[nlevels++] = -1;
		for (i = 0; i <= 2; i++)
			levels[nlevels++] = i;
	}
	if (!model) {
		const char *nb = getenv("NPU_BUILD");

		if (!nb || asprintf(&mpath, "%s/models/mnist.nmdl", nb) < 0) {
			fprintf(stderr, "npuprof-bench-infer: no -m MODEL and no NPU_BUILD\n");
			return 2;
		}
		model = mpath;
	}
	ret = npu_device_open(devpath, &dev);
	if (ret) {
		fprintf(stderr, "npuprof-bench-infer: %s: %s\n", devpath,
			strerror(-ret));
		return 1;
	}
	ret = npu_model_load(model, &m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "npuprof-bench-infer: %s: %s\n", model, err);
		return 1;
	}
	ret = npu_runner_create(dev, m, NULL, &b.runner);
	if (ret) {
		fprintf(stderr, "npuprof-bench-infer: runner: %s\n",
			strerror(-ret));
		return 1;
	}
	b.in = npu_model_input(m, 0);
	b.out = npu_model_output(m, 0);
	if (!b.in || !b.out) {
		fprintf(stderr, "npuprof-bench-infer: %s: no input or output\n",
			model);
		return 1;
	}
	b.x = calloc(b.in->count, sizeof(float));
	b.y = calloc(b.out->count, sizeof(float));
	if (!b.x || !b.y) {
		fprintf(stderr, "npuprof-bench-infer: out of memory\n");
		return 1;
	}
	/* the same input every time: the latency, not the answer */
	for (k = 0; k < b.in->count; k++)
		b.x[k] = (float)(k % 7) * 0.1f;
	printf("npuprof-bench-infer: %s, one process, states cycling off, semaphore, on, on, semaphore, off\n",
	       model);
	for (i = 0; i < nlevels; i++) {
		if (run_level(&b, levels[i]))
			return 1;
		fflush(stdout);
	}
	return 0;
}
