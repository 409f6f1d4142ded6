// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof-bench-vm - does libnpuprof's reader keep up with the driver?
 * Run in the VM (tools/npuprof-bench/bench.sh does).
 *
 * The flood of npu-trace-bench (level 2, 1000-op jobs whose OP records
 * come as fast as the emulator runs them, 8 jobs in flight), read by two
 * readers in turn, in the same guest, round after round (the order
 * alternates, so drift in the host's load hits both alike):
 *
 *   minimal  a thread that only parses the ring (npu-trace-bench's reader,
 *            woken by a one-page watermark or every 10 ms): what the
 *            driver sustains to a reader that does nothing else;
 *   session  a libnpuprof session with its defaults, writing the trace
 *            file to DIR.
 *
 * For every ring size it prints, per reader, the median over the rounds
 * of the records the driver dropped because the ring was full, the
 * device's own drops, and the records per second that reached the reader
 * (the session: its trace file), and the process's CPU time (user and
 * system, all threads: the flood's and the reader's) while the jobs ran,
 * whose difference between the readers is the session's extra work in
 * the guest, and the CPU time of the reader thread (and of the session's
 * writer thread), medians over the rounds, and in how many rounds the
 * ring lost records. The session keeps up where its median loss is no
 * higher than the minimal reader's. At 256 pages (the default) the
 * session grows its level-2 ring within RLIMIT_MEMLOCK (npuprof.rst,
 * "Reading the rings"), and the line says to what; the minimal reader's
 * ring stays at 256. Not a test: it prints figures, and exits 1 only
 * when something fails.
 *
 * Usage: npuprof-bench-vm [-F] [-j JOBS] [-r ROUNDS] [-o DIR] [-p PAGES]...
 *
 * -F runs each round in a new process, with its own device fd and
 * buffers, as a profiled program runs its one session: memory the
 * session allocates is then new to the process, where the rounds of one
 * process reuse what the earlier ones freed.
 *
 * -p may be repeated; the default ring sizes are 16, 64, 256 and 1024
 * pages. Defaults: 120 jobs, 3 rounds, DIR /tmp.
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the device and the flood's jobs; the minimal reader */
#include "npu_job.h"
#include "npu_trace_reader.h"
#include "npuprof.h"

#define MAX_ROUNDS	15

struct result {
	uint64_t lost;		/* ring full */
	uint64_t dev_lost;	/* device trace area full */
	double rate;		/* records/s that reached the reader */
	double cpu_ms;		/* the process's CPU time during the flood */
	double reader_ms;	/* CPU time of the reader thread */
	double writer_ms;	/* the session: of its writer thread */
	uint64_t burst_bytes;	/* the session: written while the rings were busy */
	uint64_t stage_full;	/* the session: times its stage was full */
	unsigned int ring_pages; /* the session: the ring it got, if grown */
	unsigned int lossy;	/* median(): rounds that lost records */
};

/* CPU time (user + system) of the whole process so far, in ms */
static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "npuprof-bench-vm: %s: %s\n", what, strerror(-err));
	exit(1);
}

/*
 * Warnings are printed, and the checksum the session chose, once; the
 * session's threads' CPU times are kept
 */
static int said_crc;

static void log_warn(void *ctx, int level, const char *msg)
{
	struct result *res = ctx;
	double ms;

	if (sscanf(msg, "reader thread: %lf ms CPU", &ms) == 1)
		res->reader_ms = ms;
	else if (sscanf(msg, "%*[^:]: a %u-page ring", &res->ring_pages) == 1)
		;
	else if (sscanf(msg, "writer thread: %lf ms CPU, %" SCNu64, &ms,
			&res->burst_bytes) == 2)
		res->writer_ms = ms;
	else if (!strncmp(msg, "chunk checksum: ", 16) && !said_crc++)
		printf("  %s\n", msg);
	else if (level <= NPUPROF_LOG_WARN)
		printf("    [%d] %s\n", level, msg);
}

/* The minimal reader, and its thread's CPU time */
struct drainer {
	struct trace_drainer m;
	double cpu_ms;
};

static void *drainer_main(void *arg)
{
	struct drainer *d = arg;
	struct timespec ts;

	trace_drainer_main(&d->m);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	d->cpu_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	return NULL;
}

/* The flood itself: @jobs jobs, 8 in flight; returns its duration in ns */
/* The device and the flood's program and buffers, or exit. */
static int open_flood(struct trace_jobs *j)
{
	int fd = npu_open(), ret;

	if (fd < 0)
		die(NPU_DEV, fd);
	ret = trace_jobs_init(j, fd, 64, 1000);
	if (ret)
		die("buffers", ret);
	return fd;
}

static uint64_t run_jobs(struct trace_jobs *j, unsigned int jobs)
{
	uint64_t t0 = npu_now_ns();
	int ret = trace_jobs_flood(j, jobs, 8);

	if (ret)
		die("jobs", ret);
	return npu_now_ns() - t0;
}

static struct result flood_minimal(int fd, struct trace_jobs *j,
				   unsigned int pages, unsigned int jobs)
{
	struct npu_trace_status ts;
	struct result res = { 0 };
	struct trace_ring t;
	struct drainer m;
	pthread_t th;
	uint64_t ns;
	int ret;

	ret = trace_open(fd, 0, pages, (uint32_t)getpagesize() / 2, &t);
	if (ret)
		die("trace open", ret);
	if (trace_enable(&t, 2))
		die("trace enable", -errno);
	memset(&m, 0, sizeof(m));
	m.m.t = &t;
	ret = -pthread_create(&th, NULL, drainer_main, &m);
	if (ret)
		die("thread", ret);
	res.cpu_ms = cpu_ms();
	ns = run_jobs(j, jobs);
	res.cpu_ms = cpu_ms() - res.cpu_ms;
	m.m.stop = 1;
	pthread_join(th, NULL);

	if (m.m.err)
		die("minimal reader", (int)m.m.err);
	res.reader_ms = m.cpu_ms;
	trace_status(&t, &ts);
	res.lost = ts.lost;
	res.dev_lost = ts.device_lost;
	res.rate = (double)m.m.st.records * 1e9 / (double)ns;
	trace_close(&t);
	return res;
}

static struct result flood_session(const char *dir, struct trace_jobs *j,
				   unsigned int pages, unsigned int jobs)
{
	static const char *const devs[] = { NPU_DEV, NULL };
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_session *s;
	struct npuprof_opts o;
	struct result res = { 0 };
	char path[256];
	uint64_t t0, ns;
	int ret;

	snprintf(path, sizeof(path), "%s/bench-%u.npuprof", dir, pages);
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = devs;
	o.ring_pages = pages;
	o.level = 2;
	o.log = log_warn;
	o.log_ctx = &res;
	o.log_level = NPUPROF_LOG_DEBUG;
	ret = npuprof_session_create(&o, &s);
	if (!ret)
		ret = npuprof_session_start(s);
	if (ret)
		die("session", ret);
	t0 = npu_now_ns();
	res.cpu_ms = cpu_ms();
	run_jobs(j, jobs);
	res.cpu_ms = cpu_ms() - res.cpu_ms;
	ret = npuprof_session_stop(s);
	ns = npu_now_ns() - t0;
	if (ret)
		die("stop", ret);
	npuprof_session_stats(s, &st);
	npuprof_session_free(s);
	unlink(path);
	res.lost = st.lost_ring;
	res.dev_lost = st.lost_device;
	res.rate = (double)st.records * 1e9 / (double)ns;
	res.stage_full = st.stage_full;
	return res;
}

/* One round: both readers, in an order that alternates with @r */
static void run_round(int fd, struct trace_jobs *j, const char *dir,
		      unsigned int pages, unsigned int jobs, unsigned int r,
		      struct result *mine, struct result *ours)
{
	if (r & 1) {
		*ours = flood_session(dir, j, pages, jobs);
		*mine = flood_minimal(fd, j, pages, jobs);
	} else {
		*mine = flood_minimal(fd, j, pages, jobs);
		*ours = flood_session(dir, j, pages, jobs);
	}
}

/*
 * One round in a new process with its own device fd and buffers (-F): a
 * profiled program has one session, whose memory is new to the process,
 * where later rounds of one process reuse what the earlier ones freed.
 */
static void run_round_fresh(const char *dir, unsigned int pages,
			    unsigned int jobs, unsigned int r,
			    struct result *mine, struct result *ours)
{
	struct result res[2];
	struct trace_jobs j;
	int p[2], status, fd;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		die("pipe", -errno);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (!pid) {
		close(p[0]);
		said_crc = (int)r;	/* print the checksum's choice once */
		fd = open_flood(&j);
		run_round(fd, &j, dir, pages, jobs, r, &res[0], &res[1]);
		fflush(stdout);
		_exit(write(p[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(p[1]);
	n = read(p[0], res, sizeof(res));
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n != sizeof(res))
		die("round process", -EIO);
	*mine = res[0];
	*ours = res[1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of each field over @n results (sorted in place, field by field) */
static struct result median(struct result *r, unsigned int n)
{
	uint64_t v[MAX_ROUNDS], d[MAX_ROUNDS];
	double rate[MAX_ROUNDS], cpu[MAX_ROUNDS], rd[MAX_ROUNDS], wr[MAX_ROUNDS];
	struct result m;
	unsigned int i;

	for (i = 0; i < n; i++) {
		v[i] = r[i].lost;
		d[i] = r[i].dev_lost;
		rate[i] = r[i].rate;
		cpu[i] = r[i].cpu_ms;
		rd[i] = r[i].reader_ms;
		wr[i] = r[i].writer_ms;
	}
	qsort(v, n, sizeof(v[0]), cmp_u64);
	qsort(d, n, sizeof(d[0]), cmp_u64);
	qsort(rate, n, sizeof(rate[0]), cmp_dbl);
	qsort(cpu, n, sizeof(cpu[0]), cmp_dbl);
	qsort(rd, n, sizeof(rd[0]), cmp_dbl);
	qsort(wr, n, sizeof(wr[0]), cmp_dbl);
	m.cpu_ms = cpu[n / 2];
	m.reader_ms = rd[n / 2];
	m.writer_ms = wr[n / 2];
	m.lost = v[n / 2];
	m.dev_lost = d[n / 2];
	m.rate = rate[n / 2];
	m.ring_pages = r[0].ring_pages;
	m.lossy = 0;
	for (i = 0; i < n; i++)
		m.lossy += r[i].lost != 0;
	return m;
}

static void print_result(const char *who, unsigned int pages,
			 const struct result *r, unsigned int n,
			 unsigned int jobs)
{
	struct result m = median((struct result *)r, n);
	uint64_t full = 0, burst = 0;
	unsigned int i;

	printf("  ring %5u pages, %-8s median %6llu lost in ring, %llu in device, %8.0f records/s, %5.0f ms CPU (rounds:",
	       pages, who, (unsigned long long)m.lost,
	       (unsigned long long)m.dev_lost, m.rate, m.cpu_ms);
	for (i = 0; i < n; i++) {
		printf(" %llu", (unsigned long long)r[i].lost);
		full += r[i].stage_full;
		burst += r[i].burst_bytes;
	}
	printf(" lost of %u; %u of %u rounds lost), reader %.0f ms CPU",
	       jobs * 1001, m.lossy, n, m.reader_ms);
	if (m.ring_pages && m.ring_pages != pages)
		printf(", the session's ring grown to %u pages", m.ring_pages);
	if (m.writer_ms > 0)
		printf(", writer %.0f ms CPU", m.writer_ms);
	if (full)
		printf(", stage full %llu times", (unsigned long long)full);
	if (burst)
		printf(", %.1f MB written during the floods", (double)burst / 1e6);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const unsigned int def_pages[] = { 16, 64, 256, 1024 };
	unsigned int pages[16], npages = 0, jobs = 120, rounds = 3, i, r;
	struct result mine[MAX_ROUNDS], ours[MAX_ROUNDS];
	const char *dir = "/tmp";
	struct trace_jobs j;
	int fd, c;
	bool fresh = false;

	while ((c = getopt(argc, argv, "Fj:o:p:r:h")) != -1) {
		switch (c) {
		case 'F':
			fresh = true;
			break;
		case 'j':
			jobs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			dir = optarg;
			break;
		case 'p':
			if (npages == sizeof(pages) / sizeof(pages[0])) {
				fprintf(stderr, "npuprof-bench-vm: at most %zu -p\n",
					sizeof(pages) / sizeof(pages[0]));
				return 2;
			}
			pages[npages] = (unsigned int)strtoul(optarg, NULL, 0);
			if (!pages[npages]) {
				fprintf(stderr, "npuprof-bench-vm: -p needs a page count\n");
				return 2;
			}
			npages++;
			break;
		case 'r':
			rounds = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: npuprof-bench-vm [-F] [-j JOBS] [-r ROUNDS] [-o DIR] [-p PAGES]...\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!jobs || !rounds || rounds > MAX_ROUNDS) {
		fprintf(stderr, "npuprof-bench-vm: -j needs at least 1 job, -r 1 to %d rounds\n",
			MAX_ROUNDS);
		return 2;
	}
	if (!npages) {
		memcpy(pages, def_pages, sizeof(def_pages));
		npages = sizeof(def_pages) / sizeof(def_pages[0]);
	}
	fd = open_flood(&j);
	printf("trace readers under a level-2 flood: %u jobs of 1000 ops (80-byte OP records), 8 in flight, %u rounds%s\n",
	       jobs, rounds, fresh ? ", a process each" : "");
	for (i = 0; i < npages; i++) {
		for (r = 0; r < rounds; r++) {
			if (fresh)
				run_round_fresh(dir, pages[i], jobs, r, &mine[r],
						&ours[r]);
			else
				run_round(fd, &j, dir, pages[i], jobs, r,
					  &mine[r], &ours[r]);
		}
		print_result("minimal", pages[i], mine, rounds, jobs);
		print_result("session", pages[i], ours, rounds, jobs);
		printf("bench.reader_lost_ring_%u_pages=%llu\n", pages[i],
		       (unsigned long long)median(ours, rounds).lost);
		printf("bench.minimal_lost_ring_%u_pages=%llu\n", pages[i],
		       (unsigned long long)median(mine, rounds).lost);
	}
	close(fd);
	return 0;
}
