// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-uring-bench - job submission through io_uring (NPU_URING_CMD_SUBMIT)
 * against the ioctls (NPU_IOCTL_SUBMIT + NPU_IOCTL_WAIT), for small jobs at
 * a fixed queue depth, from one thread on /dev/npu0. A benchmark, not a
 * test: it prints figures (run by bench.sh in the VM).
 *
 *   npu-uring-bench [-n JOBS] [-r ROUNDS] [-b BYTES] [-p PATHS] [-a CPU|irq]
 *                   [-c] DEPTH...
 *
 * Each round runs, for every DEPTH, the ioctl path then the io_uring paths,
 * JOBS jobs each, keeping DEPTH jobs in flight:
 *
 *  ioctl: DEPTH SUBMITs, then per job a WAIT (NPU_WAIT_ANY) and a SUBMIT;
 *  uring: DEPTH SQEs in one io_uring_submit(), then per wake-up every CQE
 *         there is and one io_uring_submit() of as many new SQEs, on a
 *         ring set up as libnpu's (SQE128 | CQE32);
 *  coop:  the same on a ring that also has IORING_SETUP_COOP_TASKRUN and
 *         TASKRUN_FLAG (a completion's task work waits for the thread's
 *         next system call instead of interrupting it);
 *  defer: the same with IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN (the
 *         task work runs when the thread waits for CQEs).
 *
 * libnpu uses the "uring" setup: its contexts may pass between threads,
 * and with coop or defer a waiter would depend on the submitting thread's
 * next system call.
 *
 * A job's latency runs from just before its submission call to the moment
 * its result is in hand. The figures of a configuration are medians over
 * the rounds: jobs/s (wall), mean latency, CPU time per job (the process's
 * user + system time: the guest's cost of a job) and system calls per job;
 * a latency is split at the driver's complete_ns into the driver's part
 * (submit_ns to complete_ns: queue and device) and the delivery.
 *
 * -p runs only the paths named (a comma-separated list, e.g. ioctl,uring).
 * -a pins the benchmark to a CPU, or with "irq" to the CPU that takes the
 * completion interrupt: at depth 32 the ioctl path ran 2 to 3 times faster
 * on that CPU than on the other vCPU (its wake-ups need no IPI there), so an
 * unpinned run's figure depends on where the scheduler put it.
 * -c idles a second before and after each run (warm-ups included), so
 * that costs.sh on the host can tell the runs apart in the emulator's and
 * QEMU's counters, and prints after each run a line
 * "@@ PATH DEPTH JOBS IRQS CTXT" (PATH "warm" for a warm-up) with the
 * guest's completion interrupts (NPU_MSIX_CPL in /proc/interrupts) and
 * context switches (/proc/stat) over the run.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "npu/npu_hw.h"	/* NPU_MSIX_CPL, the completion vector */
#include "npu_job.h"

#define MAX_DEPTH	64
#define MAX_ROUNDS	32
#define NPATHS		4	/* ioctl, uring, coop, defer */

struct fig {
	double jobs_s;
	double lat_us;
	double cpu_us;		/* per job */
	double calls;		/* system calls per job */
	double dev_us;		/* driver's submit_ns to complete_ns */
	double deliver_us;	/* complete_ns to the result in hand */
};

struct bench {
	int fd;
	unsigned int handles[3];
	unsigned int prog_size;
	unsigned long jobs;
	uint64_t t_sub[MAX_DEPTH];	/* submission time by slot */
	uint64_t lat_sum;
	uint64_t dev_sum;
	uint64_t deliver_sum;
	unsigned long calls;
	struct npu_job_result res[MAX_DEPTH];
};

/* Account a job's result: @t the time it was in hand. */
static void account(struct bench *b, unsigned int slot, uint64_t t,
		    uint64_t submit_ns, uint64_t complete_ns)
{
	b->lat_sum += t - b->t_sub[slot];
	b->dev_sum += complete_ns - submit_ns;
	b->deliver_sum += t - complete_ns;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static int ioctl_submit(struct bench *b, unsigned long long *id)
{
	b->calls++;
	return npu_submit_job(b->fd, NPU_PE_ANY, b->handles, 3, 0, 0,
			      b->prog_size, id);
}

/* The ioctl path: SUBMIT, WAIT (any), with @depth jobs in flight. */
static int run_ioctl(struct bench *b, unsigned int depth)
{
	unsigned long long ids[MAX_DEPTH], id;
	unsigned long sub = 0, done = 0;
	struct npu_wait w;
	unsigned int k;
	int ret;

	for (k = 0; k < depth && sub < b->jobs; k++, sub++) {
		b->t_sub[k] = npu_now_ns();
		ret = ioctl_submit(b, &ids[k]);
		if (ret)
			return ret;
	}
	while (done < b->jobs) {
		b->calls++;
		ret = npu_wait_job(b->fd, 0, NPU_WAIT_ANY, -1, &w);
		if (ret)
			return ret;
		if (w.result.status != NPU_JOB_OK)
			return -EIO;
		for (k = 0; k < depth && ids[k] != w.result.job_id; k++)
			;
		if (k == depth)
			return -EPROTO;
		account(b, k, npu_now_ns(), w.result.submit_ns,
			w.result.complete_ns);
		done++;
		if (sub < b->jobs) {
			b->t_sub[k] = npu_now_ns();
			ret = ioctl_submit(b, &id);
			if (ret)
				return ret;
			ids[k] = id;
			sub++;
		}
	}
	return 0;
}

static void prep(struct bench *b, struct io_uring *ring, unsigned int slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct npu_uring_submit req = {
		.job = {
			.pe = NPU_PE_ANY,
			.nbufs = 3,
			.prog_size = b->prog_size,
			.bufs = (uintptr_t)b->handles,
		},
		.result = (uintptr_t)&b->res[slot],
	};

	if (!sqe)
		abort();	/* the ring has room for MAX_DEPTH */
	memset((char *)sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = b->fd;
	sqe->cmd_op = NPU_URING_CMD_SUBMIT;
	sqe->user_data = slot;
	memcpy(sqe->cmd, &req, sizeof(req));
	b->t_sub[slot] = npu_now_ns();
}

/* The io_uring path: batches of SQEs, every CQE there is per wake-up. */
static int run_uring(struct bench *b, struct io_uring *ring,
		     unsigned int depth)
{
	unsigned long sub = 0, done = 0;
	struct io_uring_cqe *cqe;
	unsigned int k, refill;
	int ret;

	for (k = 0; k < depth && sub < b->jobs; k++, sub++)
		prep(b, ring, k);
	b->calls++;
	ret = io_uring_submit(ring);
	if (ret < 0)
		return ret;
	while (done < b->jobs) {
		if (io_uring_peek_cqe(ring, &cqe)) {
			b->calls++;
			ret = io_uring_wait_cqe(ring, &cqe);
			if (ret)
				return ret;
		}
		refill = 0;
		do {
			if (cqe->res != NPU_JOB_OK)
				return cqe->res < 0 ? cqe->res : -EIO;
			k = (unsigned int)cqe->user_data;
			account(b, k, npu_now_ns(), b->res[k].submit_ns,
				b->res[k].complete_ns);
			io_uring_cqe_seen(ring, cqe);
			done++;
			if (sub < b->jobs) {
				prep(b, ring, k);
				sub++;
				refill++;
			}
		} while (!io_uring_peek_cqe(ring, &cqe));
		if (refill) {
			b->calls++;
			ret = io_uring_submit(ring);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/*
 * Completion interrupts so far: the npu line of MSI-X vector NPU_MSIX_CPL,
 * the first of the device's lines (its vectors are allocated in order).
 */
static unsigned long long cpl_irqs(void)
{
	unsigned long long sum = 0, v;
	char line[1024], *p, *end;
	FILE *f = fopen("/proc/interrupts", "r");
	unsigned int nth = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, " npu0\n") || nth++ != NPU_MSIX_CPL)
			continue;
		p = strchr(line, ':');
		if (!p)
			break;
		for (p++;; p = end) {
			v = strtoull(p, &end, 10);
			if (end == p)
				break;
			sum += v;
		}
		break;
	}
	fclose(f);
	return sum;
}

/*
 * The CPU that takes the completion interrupt: the effective affinity of
 * the NPU_MSIX_CPL-th npu0 line of /proc/interrupts. -1 when not found.
 */
static int cpl_irq_cpu(void)
{
	char line[1024], path[64];
	unsigned int nth = 0, irq;
	int cpu = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, " npu0\n") || nth++ != NPU_MSIX_CPL)
			continue;
		if (sscanf(line, " %u:", &irq) != 1)
			break;
		fclose(f);
		snprintf(path, sizeof(path),
			 "/proc/irq/%u/effective_affinity_list", irq);
		f = fopen(path, "r");
		if (f && fscanf(f, "%d", &cpu) != 1)
			cpu = -1;
		break;
	}
	if (f)
		fclose(f);
	return cpu;
}

static int pin(const char *arg)
{
	int cpu = strcmp(arg, "irq") ? atoi(arg) : cpl_irq_cpu();
	cpu_set_t set;

	if (cpu < 0)
		return -ENOENT;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	printf("pinned to CPU %d\n", cpu);
	return 0;
}

/* Context switches of the whole guest so far (/proc/stat ctxt). */
static unsigned long long guest_ctxt(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void idle_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int measure(struct bench *b, struct io_uring *ring, unsigned int depth,
		   struct fig *f, const char *name, bool counters)
{
	unsigned long long irq0 = 0, ctxt0 = 0;
	uint64_t t0, c0, wall;
	int ret;

	if (counters) {
		idle_ms(1000);
		irq0 = cpl_irqs();
		ctxt0 = guest_ctxt();
	}

	b->lat_sum = 0;
	b->dev_sum = 0;
	b->deliver_sum = 0;
	b->calls = 0;
	c0 = cpu_ns();
	t0 = npu_now_ns();
	ret = ring ? run_uring(b, ring, depth) : run_ioctl(b, depth);
	wall = npu_now_ns() - t0;
	if (ret)
		return ret;
	if (counters) {
		irq0 = cpl_irqs() - irq0;
		ctxt0 = guest_ctxt() - ctxt0;
		printf("@@ %s %u %lu %llu %llu\n", name, depth, b->jobs, irq0,
		       ctxt0);
		fflush(stdout);
	}
	f->jobs_s = b->jobs / (wall / 1e9);
	f->lat_us = b->lat_sum / 1e3 / b->jobs;
	f->cpu_us = (cpu_ns() - c0) / 1e3 / b->jobs;
	f->calls = (double)b->calls / b->jobs;
	f->dev_us = b->dev_sum / 1e3 / b->jobs;
	f->deliver_us = b->deliver_sum / 1e3 / b->jobs;
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median of each field over @n rounds. */
static struct fig med(const struct fig *r, unsigned int n)
{
	double v[MAX_ROUNDS];
	struct fig m;
	unsigned int i;

	for (i = 0; i < n; i++)
		v[i] = r[i].jobs_s;
	m.jobs_s = median(v, n);
	for (i = 0; i < n; i++)
		v[i] = r[i].lat_us;
	m.lat_us = median(v, n);
	for (i = 0; i < n; i++)
		v[i] = r[i].cpu_us;
	m.cpu_us = median(v, n);
	for (i = 0; i < n; i++)
		v[i] = r[i].calls;
	m.calls = median(v, n);
	for (i = 0; i < n; i++)
		v[i] = r[i].dev_us;
	m.dev_us = median(v, n);
	for (i = 0; i < n; i++)
		v[i] = r[i].deliver_us;
	m.deliver_us = median(v, n);
	return m;
}

static void print_fig(const char *path, unsigned int depth, const struct fig *f)
{
	printf("%-6s depth %2u: %7.0f jobs/s  latency %7.1f us (driver %7.1f, delivery %6.1f)  cpu %6.1f us/job  %4.2f syscalls/job\n",
	       path, depth, f->jobs_s, f->lat_us, f->dev_us, f->deliver_us,
	       f->cpu_us, f->calls);
}

static int setup(struct bench *b, unsigned int bytes)
{
	struct npu_bo_create bo[3];
	unsigned char *p;
	int i;

	b->fd = npu_open();
	if (b->fd < 0)
		return -errno;
	for (i = 0; i < 3; i++) {
		if (npu_bo_new(b->fd, i ? bytes : 4096, &bo[i]))
			return -errno;
		b->handles[i] = bo[i].handle;
	}
	p = npu_bo_map(b->fd, &bo[0]);
	if (!p)
		return -errno;
	npu_clip_prog(p, bytes, 1, 2, 0, 255);
	munmap(p, bo[0].size);
	b->prog_size = NPU_CLIP_PROG_SIZE;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[NPATHS] = {
		"ioctl", "uring", "coop", "defer"
	};
	static const unsigned int ring_flags[NPATHS] = {
		0,
		0,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	static struct fig res[NPATHS][8][MAX_ROUNDS];
	unsigned int depth[8], n_depth = 0, rounds = 5, bytes = 64, r, d, p;
	struct bench b = { .jobs = 2000 };
	struct io_uring rings[NPATHS], *ring[NPATHS] = { NULL };
	unsigned int paths = (1u << NPATHS) - 1;
	const char *cpu = NULL;
	bool counters = false;
	struct fig m[NPATHS];
	char *tok, *save;
	int c, ret;

	while ((c = getopt(argc, argv, "n:r:b:p:a:ch")) != -1) {
		switch (c) {
		case 'n':
			b.jobs = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			bytes = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			paths = 0;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				for (p = 0; p < NPATHS && strcmp(tok, names[p]); p++)
					;
				if (p == NPATHS)
					return 2;
				paths |= 1u << p;
			}
			break;
		case 'a':
			cpu = optarg;
			break;
		case 'c':
			counters = true;
			break;
		default:
			fprintf(stderr, "usage: npu-uring-bench [-n JOBS] [-r ROUNDS] [-b BYTES] [-p PATHS] [-a CPU|irq] [-c] DEPTH...\n");
			return 2;
		}
	}
	for (; optind < argc && n_depth < 8; optind++) {
		depth[n_depth] = strtoul(argv[optind], NULL, 0);
		if (!depth[n_depth] || depth[n_depth] > MAX_DEPTH)
			return 2;
		n_depth++;
	}
	if (!n_depth || !b.jobs || !rounds || rounds > MAX_ROUNDS || !bytes ||
	    bytes > 1 << 20)
		return 2;
	ret = setup(&b, bytes);
	if (ret) {
		fprintf(stderr, "npu-uring-bench: setup: %s\n", strerror(-ret));
		return 1;
	}
	if (cpu) {
		ret = pin(cpu);
		if (ret) {
			fprintf(stderr, "npu-uring-bench: -a %s: %s\n", cpu,
				strerror(-ret));
			return 1;
		}
	}
	for (p = 1; p < NPATHS; p++) {
		ret = io_uring_queue_init(MAX_DEPTH, &rings[p],
					  IORING_SETUP_SQE128 | IORING_SETUP_CQE32 |
					  ring_flags[p]);
		if (ret) {
			fprintf(stderr, "npu-uring-bench: io_uring: %s\n",
				strerror(-ret));
			return 1;
		}
		ring[p] = &rings[p];
	}
	printf("%lu jobs of %u bytes (CLIP) per run, %u rounds, the paths interleaved\n",
	       b.jobs, bytes, rounds);
	/* a warm-up of each path: io_uring's first use, the caches */
	for (d = 0; d < n_depth; d++)
		for (p = 0; p < NPATHS; p++)
			if ((paths & 1u << p) &&
			    measure(&b, ring[p], depth[d], &res[p][d][0],
				    "warm", counters))
				return 1;
	for (r = 0; r < rounds; r++)
		for (d = 0; d < n_depth; d++)
			for (p = 0; p < NPATHS; p++) {
				if (!(paths & 1u << p))
					continue;
				ret = measure(&b, ring[p], depth[d],
					      &res[p][d][r], names[p], counters);
				if (ret) {
					fprintf(stderr, "npu-uring-bench: %s depth %u: %s\n",
						names[p], depth[d], strerror(-ret));
					return 1;
				}
			}
	for (d = 0; d < n_depth; d++) {
		for (p = 0; p < NPATHS; p++) {
			if (!(paths & 1u << p))
				continue;
			m[p] = med(res[p][d], rounds);
			print_fig(names[p], depth[d], &m[p]);
		}
		for (p = 1; p < NPATHS; p++)
			if ((paths & 1u << p) && (paths & 1u))
				printf("%s/ioctl depth %2u: throughput x%.2f, latency x%.2f, cpu/job x%.2f\n",
				       names[p], depth[d],
				       m[p].jobs_s / m[0].jobs_s,
				       m[p].lat_us / m[0].lat_us,
				       m[p].cpu_us / m[0].cpu_us);
	}
	for (p = 1; p < NPATHS; p++)
		io_uring_queue_exit(&rings[p]);
	close(b.fd);
	return 0;
}
