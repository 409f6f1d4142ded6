// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-trace-bench - cost of hardware tracing, measured in the VM.
 *
 *   npu-trace-bench [-n JOBS] [-k OPS] [-b BYTES] [-r ROUNDS] [-j FLOOD_JOBS]
 *                   [-p BO_PAIRS]
 *
 * 1. Latency: a job of OPS CLIP operators over BYTES bytes is submitted and
 *    waited for, JOBS times per round, with tracing off, at level 1 and at
 *    level 2 (a reader thread drains the ring meanwhile). Rounds alternate
 *    the modes to cancel drift. Prints median and mean latency per mode and
 *    their ratios to "off".
 * 2. Buffers: NPU_IOCTL_BO_CREATE + NPU_IOCTL_BO_FREE of a page, BO_PAIRS
 *    times per round, with tracing off and at level 1 (a ring of this
 *    process enabled, so each pair writes a BO_ALLOC and a BO_FREE record;
 *    a reader thread drains it). Rounds alternate the modes; prints the
 *    median and best per-pair time of each and their ratio.
 * 3. Throughput: level 2 with long programs queued on every PE, a reader
 *    polling the ring; for several ring sizes, the record rate the reader
 *    received and the records lost. The highest rate with zero loss is the
 *    rate the driver sustains to a reader.
 *
 * Not a test: it prints figures, and exits 1 only when something fails.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

/* npu_test.h wants the harness's includes; it has no harness dependency. */
#include "npu_test.h"
#include "trace_lib.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "npu-trace-bench: %s: %s\n", what, strerror(-err));
	exit(1);
}

/* A ring of @pages pages enabled at @level, a thread draining it. */
struct drained {
	struct trace_ring t;
	struct trace_drainer rd;
	pthread_t th;
};

static void drained_start(int fd, unsigned int pages, int level,
			  struct drained *d)
{
	int ret;

	ret = trace_open(fd, 0, pages, 4096, &d->t);
	if (ret)
		die("trace open", ret);
	ret = trace_enable(&d->t, level);
	if (ret)
		die("trace enable", ret);
	memset(&d->rd, 0, sizeof(d->rd));
	d->rd.t = &d->t;
	pthread_create(&d->th, NULL, trace_drainer_main, &d->rd);
}

/* Drain what is left, stop the thread; the ring's status into @ts. */
static void drained_stop(struct drained *d, struct npu_trace_status *ts)
{
	d->rd.stop = 1;
	pthread_join(d->th, NULL);
	trace_status(&d->t, ts);
	trace_close(&d->t);
}

/* One round of @n jobs at @level (-1: tracing off); latencies into @lat. */
static void latency_round(int fd, struct trace_jobs *j, int level,
			  unsigned int n, uint64_t *lat)
{
	struct drained d;
	struct npu_wait w;
	unsigned int i;
	uint64_t t0;
	int ret;

	if (level >= 0)
		drained_start(fd, 256, level, &d);
	for (i = 0; i < n; i++) {
		t0 = npu_now_ns();
		ret = trace_job_run(j, NPU_PE_ANY, &w);
		lat[i] = npu_now_ns() - t0;
		if (ret || w.result.status != NPU_JOB_OK)
			die("job", ret ? ret : -EIO);
	}
	if (level >= 0) {
		struct npu_trace_status ts;

		drained_stop(&d, &ts);
		if (d.rd.err || ts.lost)
			fprintf(stderr, "npu-trace-bench: level %d: %llu records lost\n",
				level, (unsigned long long)ts.lost);
	}
}

static void latency(int fd, struct trace_jobs *j, unsigned int n,
		    unsigned int rounds)
{
	static const char *const name[3] = { "off", "level 1", "level 2" };
	uint64_t *lat[3], *tmp = calloc(n, sizeof(uint64_t));
	double mean[3], median[3];
	unsigned int r, m, i;

	for (m = 0; m < 3; m++)
		lat[m] = calloc((size_t)n * rounds, sizeof(uint64_t));
	/* Warm up. */
	latency_round(fd, j, -1, n / 4 + 1, tmp);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < 3; i++) {
			m = (i + r) % 3;	/* rotate the order */
			latency_round(fd, j, (int)m - 1, n,
				      lat[m] + (size_t)r * n);
		}
	printf("latency: %u jobs per mode, %u CLIP ops over %u bytes each\n",
	       n * rounds, j->k, j->n);
	for (m = 0; m < 3; m++) {
		double sum = 0;

		qsort(lat[m], (size_t)n * rounds, sizeof(uint64_t), cmp_u64);
		for (i = 0; i < n * rounds; i++)
			sum += lat[m][i];
		mean[m] = sum / (n * rounds);
		median[m] = lat[m][n * rounds / 2];
		printf("  %-8s median %8.1f us  mean %8.1f us  p90 %8.1f us\n",
		       name[m], median[m] / 1e3, mean[m] / 1e3,
		       lat[m][n * rounds * 9 / 10] / 1e3);
	}
	printf("  ratio to off: level 1 median %.3f mean %.3f; level 2 median %.3f mean %.3f\n",
	       median[1] / median[0], mean[1] / mean[0],
	       median[2] / median[0], mean[2] / mean[0]);
	printf("bench.latency_off_median_us=%.1f\n", median[0] / 1e3);
	printf("bench.latency_l1_ratio=%.3f\n", median[1] / median[0]);
	printf("bench.latency_l2_ratio=%.3f\n", median[2] / median[0]);
	for (m = 0; m < 3; m++)
		free(lat[m]);
	free(tmp);
}

/* One round of @n page create + free pairs; ns per pair. */
static double bo_round(int fd, bool traced, unsigned int n)
{
	struct npu_bo_create bo;
	struct drained d;
	unsigned int i;
	uint64_t t0, dt;
	int ret;

	if (traced)
		drained_start(fd, 64, NPU_TRACE_EXEC, &d);
	t0 = npu_now_ns();
	for (i = 0; i < n; i++) {
		ret = npu_bo_new(fd, 4096, &bo);
		if (!ret)
			ret = npu_bo_del(fd, bo.handle);
		if (ret)
			die("buffer", ret);
	}
	dt = npu_now_ns() - t0;
	if (traced) {
		struct npu_trace_status ts;
		const uint64_t *by_type = d.rd.st.by_type;

		drained_stop(&d, &ts);
		if (d.rd.err || ts.lost ||
		    by_type[NPU_TRACE_REC_BO_ALLOC] != n ||
		    by_type[NPU_TRACE_REC_BO_FREE] != n)
			fprintf(stderr, "npu-trace-bench: buffers: %llu BO_ALLOC, %llu BO_FREE records for %u pairs, %llu lost\n",
				(unsigned long long)by_type[NPU_TRACE_REC_BO_ALLOC],
				(unsigned long long)by_type[NPU_TRACE_REC_BO_FREE],
				n, (unsigned long long)ts.lost);
	}
	return (double)dt / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The cost of the BO_ALLOC and BO_FREE records: level 1 against off. */
static void bo_cost(int fd, unsigned int n, unsigned int rounds)
{
	static const char *const name[2] = { "off", "level 1" };
	double *ns[2], median[2];
	unsigned int r, m;

	for (m = 0; m < 2; m++)
		ns[m] = calloc(rounds, sizeof(double));
	bo_round(fd, false, n / 4 + 1);		/* warm up */
	for (r = 0; r < rounds; r++)
		for (m = 0; m < 2; m++) {
			unsigned int mode = (m + r) % 2;	/* alternate */

			ns[mode][r] = bo_round(fd, mode, n);
		}
	printf("buffers: BO_CREATE + BO_FREE of a page, %u rounds of %u pairs per mode\n",
	       rounds, n);
	for (m = 0; m < 2; m++) {
		qsort(ns[m], rounds, sizeof(double), cmp_double);
		median[m] = ns[m][rounds / 2];
		printf("  %-8s median %8.0f ns  best %8.0f ns per pair\n",
		       name[m], median[m], ns[m][0]);
	}
	printf("  ratio to off: level 1 median %.3f\n", median[1] / median[0]);
	printf("bench.bo_create_free_off_ns=%.0f\n", median[0]);
	printf("bench.bo_create_free_l1_ns=%.0f\n", median[1]);
	printf("bench.bo_create_free_l1_ratio=%.3f\n", median[1] / median[0]);
	for (m = 0; m < 2; m++)
		free(ns[m]);
}

/* Level 2 flood: returns records/s received; *lost gets the losses. */
static double flood(int fd, struct trace_jobs *j, unsigned int pages,
		    unsigned int jobs, uint64_t *lost, uint64_t *dev_lost,
		    uint64_t *received)
{
	struct npu_trace_status ts;
	struct trace_ring t;
	struct trace_drainer rd;
	pthread_t th;
	uint64_t t0, t1;
	int ret;

	ret = trace_open(fd, 0, pages, (uint32_t)(pages * getpagesize() / 2),
			 &t);
	if (ret)
		die("trace open", ret);
	if (trace_enable(&t, 2))
		die("trace enable", -errno);
	memset(&rd, 0, sizeof(rd));
	rd.t = &t;
	pthread_create(&th, NULL, trace_drainer_main, &rd);
	t0 = npu_now_ns();
	/* Keep up to 8 jobs in flight. */
	ret = trace_jobs_flood(j, jobs, 8);
	if (ret)
		die("jobs", ret);
	rd.stop = 1;
	pthread_join(th, NULL);
	t1 = npu_now_ns();
	trace_status(&t, &ts);
	*lost = ts.lost;
	*dev_lost = ts.device_lost;
	*received = rd.st.records;
	trace_close(&t);
	return rd.st.records * 1e9 / (double)(t1 - t0);
}

static void throughput(int fd, struct trace_jobs *j, unsigned int jobs)
{
	static const unsigned int pages[] = { 1, 4, 16, 64, 256, 1024 };
	double best = 0, rate;
	uint64_t lost, dev_lost, recs;
	unsigned int i, best_pages = 0;

	if (trace_jobs_set_ops(j, 1000))
		die("program", -EINVAL);
	printf("throughput: level 2, %u 1000-op jobs (OP records of 80 bytes), 8 in flight\n",
	       jobs);
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		rate = flood(fd, j, pages[i], jobs, &lost, &dev_lost, &recs);
		printf("  ring %5u pages: %9.0f records/s received (%7.1f MB/s), %llu records, %llu lost in ring, %llu lost in device\n",
		       pages[i], rate, rate * 80 / 1e6,
		       (unsigned long long)recs, (unsigned long long)lost,
		       (unsigned long long)dev_lost);
		if (!lost && !dev_lost && rate > best) {
			best = rate;
			best_pages = pages[i];
		}
	}
	printf("  highest rate without loss: %.0f records/s (ring of %u pages)\n",
	       best, best_pages);
	printf("bench.max_lossless_records_per_s=%.0f\n", best);
}

int main(int argc, char **argv)
{
	unsigned int n = 25, k = 16, bytes = 16384, rounds = 24, jobs = 40;
	unsigned int pairs = 200;
	struct trace_jobs j;
	int fd, ret, c;

	while ((c = getopt(argc, argv, "n:k:b:r:j:p:h")) != -1) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			k = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			bytes = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			jobs = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			pairs = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr,
				"usage: npu-trace-bench [-n JOBS] [-k OPS] [-b BYTES] [-r ROUNDS] [-j FLOOD_JOBS] [-p BO_PAIRS]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!n || !k || k > 1024 || !bytes || !rounds || !jobs || !pairs) {
		fprintf(stderr, "npu-trace-bench: bad arguments\n");
		return 2;
	}
	fd = npu_open();
	if (fd < 0)
		die(NPU_DEV, fd);
	ret = trace_jobs_init(&j, fd, bytes, k);
	if (ret)
		die("buffers", ret);
	latency(fd, &j, n, rounds);
	bo_cost(fd, pairs, rounds);
	ret = trace_jobs_init(&j, fd, 64, 1000);
	if (ret)
		die("buffers", ret);
	throughput(fd, &j, jobs);
	close(fd);
	return 0;
}
