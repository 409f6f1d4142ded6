// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * session.c - capture sessions: the trace ring of every device, the reader
 * thread that moves ring records and host spans into the trace file, the
 * end of the file (clock fits, causality check, totals), and the session
 * the environment asks for (NPUPROF_OUTPUT_PATH).
 *
 * Threads and locking. Control calls (create, start, pause, resume, stop,
 * free) come from the application, one at a time per session (the caller
 * serializes them, as for any handle). The reader thread polls the trace
 * fds with a watermark and, at least every NPF_POLL_MS, drains every ring
 * and every thread's span buffer into the writer. s->lock serializes the
 * writer, the devices' consumer positions and the counters between the
 * reader thread and control calls. Ring memory is the driver's; a record
 * is read in place and copied into the chunk before the consumer position
 * moves past it.
 *
 * Lifetime. A session owns its device fds, trace fds and mappings, the
 * writer and the reader thread; npuprof_session_free() releases all of
 * them. The environment's session lives until exit() or a fatal signal.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "crc32.h"
#include "iring.h"
#include "log.h"
#include "models.h"
#include "ring_parse.h"
#include "spans.h"
#include "trace_format.h"
#include "writer.h"

#define NPF_POLL_MS		100
#define NPF_FLUSH_NS		(250 * 1000 * 1000ull)
/* the writer thread waits for this much in the stage, or for a flush */
#define NPF_WRITE_MIN		(64u * 1024)
/*
 * The rings are busy while the writer thread saw the reader thread find
 * records in them less than this long ago; the writer stays off the CPU
 * until they are quiet, unless the stage is past its high mark. Under a
 * flood the reader finds records every few ms (its watermark), and a
 * default ring fills in about 30 ms in the VM. The reader only counts its
 * reads (npuprof_session.reads): it reads no clock, which in the VM is a
 * system call and an HPET register read that waits for QEMU's global
 * lock, and made it lose records its parse-only twin did not.
 */
#define NPF_QUIET_NS		(20 * 1000 * 1000ull)
/* ... but for no longer than this since the last flush (a killed process) */
#define NPF_DEFER_MAX_NS	(1000 * 1000 * 1000ull)
/* stage bytes that wake the writer while the rings are quiet (npf_collect()) */
#define NPF_SPANS_KICK		(1024u * 1024)
#define NPF_MAX_DEVS		16
#define NPF_MAX_RING_PAGES	4096
#define NPF_WATERMARK_MAX	(64u * 1024)

enum npf_state {
	NPF_CREATED,
	NPF_RUNNING,
	NPF_PAUSED,
	NPF_STOPPED,
};

struct npf_dev {
	char path[64];
	uint32_t index;
	int fd;				/* /dev/npuN */
	int tfd;			/* trace fd */
	struct npu_info info;
	struct npu_trace_ring *hdr;	/* header page, read-write */
	const uint8_t *data;		/* data area, read-only */
	uint64_t data_size;
	size_t page;
	uint64_t cons;
	bool enabled;
	bool stopped;			/* corrupt or removed: not read */
	bool clk_lost;			/* a sample not kept: no index */
	struct npf_ring_stats st;
	/* the CLOCK records written, for the file's index (reader thread) */
	struct npf_clock_sample *clk;
	size_t nclk, clk_cap;
};

struct npuprof_session {
	struct npf_log log;
	char *output;
	int level;
	uint32_t ring_pages;		/* asked for; then the largest in use */
	bool ring_auto;			/* the default at level 2: grown */
	uint32_t ring_max;		/* ring_auto: the next device's first ask */
	uint32_t flags;
	uint32_t span_buf;
	struct npf_dev devs[NPF_MAX_DEVS];
	unsigned int ndev;
	struct npf_writer *w;
	pthread_mutex_t lock;
	pthread_t thr;
	bool thr_started;
	int efd;			/* wakes the reader thread */
	int quit;			/* reader thread: 1 exit, 2 finish */
	int finished;			/* the file was completed */
	enum npf_state state;
	bool spans;			/* attached for host spans */
	bool tsc;			/* user spans read the TSC */
	const char *tsc_why;		/* why, or why not */
	uint64_t tsc_last;		/* tick of the last HOST_CLOCK sample */
	pid_t pid;
	uint64_t start_ns;
	uint64_t last_flush_ns;		/* writer thread */
	uint64_t reads;			/* ring reads that found records; atomic */
	uint64_t seen_reads;		/* writer thread: @reads when last seen */
	uint64_t busy_ns;		/* writer thread: when @reads last moved */
	struct npuprof_stats st;	/* under @lock */
	int werr;			/* first writer error; atomic */
	/* the stage: reader thread (producer, under @lock) -> writer thread */
	struct npf_iring stage;
	pthread_t wthr;
	bool wthr_started;
	int wefd;			/* wakes the writer thread */
	int pefd;			/* the writer made room */
	int wquit;			/* writer thread: drain and exit */
	bool stalled;			/* the stage was full; atomic */
	uint64_t bytes;			/* of the file, atomic (stats) */
	uint64_t chunks;		/* of the file, atomic (stats) */
};

/* ---- options and devices ---- */

NPUPROF_EXPORT
void npuprof_opts_init(struct npuprof_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->level = NPUPROF_DEFAULT_LEVEL;
	opts->ring_pages = 0;		/* automatic */
	opts->span_buf_kb = NPUPROF_DEFAULT_SPAN_BUF_KB;
	opts->log_level = NPUPROF_LOG_WARN;
}

static int npf_copy_opts(const struct npuprof_opts *in, struct npuprof_opts *o)
{
	size_t n;

	npuprof_opts_init(o);
	if (!in)
		return -EINVAL;
	if (in->sz < offsetof(struct npuprof_opts, devices))
		return -EINVAL;
	n = in->sz < sizeof(*o) ? in->sz : sizeof(*o);
	/* bytes of a newer caller's struct that we do not know must be 0 */
	for (size_t i = sizeof(*o); i < in->sz; i++)
		if (((const uint8_t *)in)[i])
			return -EINVAL;
	memcpy(o, in, n);
	o->sz = sizeof(*o);
	return 0;
}

static int npf_is_npu_node(const char *name)
{
	const char *p;

	if (strncmp(name, "npu", 3) || !name[3])
		return 0;
	for (p = name + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* Copy a device path; -ENAMETOOLONG when it does not fit. */
static int npf_copy_path(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (n >= 64)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	return 0;
}

static int npf_cmp_node(const struct dirent **a, const struct dirent **b)
{
	return atoi((*a)->d_name + 3) - atoi((*b)->d_name + 3);
}

static int npf_filter_node(const struct dirent *d)
{
	return npf_is_npu_node(d->d_name);
}

/* Fill @paths with every /dev/npuN, in minor order. */
static int npf_find_devices(char paths[][64], unsigned int max)
{
	struct dirent **list;
	int n, i, k = 0;

	n = scandir("/dev", &list, npf_filter_node, npf_cmp_node);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		if ((unsigned int)k < max && strlen(list[i]->d_name) < 32) {
			memcpy(paths[k], "/dev/", 5);
			npf_copy_path(paths[k++] + 5, list[i]->d_name);
		}
		free(list[i]);
	}
	free(list);
	return k;
}

static int npf_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

static void npf_dev_close(struct npf_dev *d)
{
	free(d->clk);
	d->clk = NULL;
	d->nclk = 0;
	d->clk_cap = 0;
	if (d->data)
		munmap((void *)d->data, d->data_size);
	if (d->hdr)
		munmap(d->hdr, d->page);
	if (d->tfd >= 0)
		close(d->tfd);
	if (d->fd >= 0)
		close(d->fd);
	d->data = NULL;
	d->hdr = NULL;
	d->tfd = -1;
	d->fd = -1;
}

/*
 * The ring's poll watermark: an eighth of the ring, at most 64 KiB. The
 * reader is woken early, so that the rest of the ring absorbs the time it
 * takes to be scheduled; half the ring (perf's default) lost records in
 * the VM's floods. Past 64 KiB, waking later saves nothing.
 */
static uint32_t npf_watermark(size_t ring_bytes)
{
	size_t wm = ring_bytes / 8;

	return (uint32_t)(wm < NPF_WATERMARK_MAX ? wm : NPF_WATERMARK_MAX);
}

/*
 * The ring a level-2 session asks for when the caller left its size to
 * the library (ring_pages 0): four times the default, 4 MiB with 4 KiB
 * pages. A synthetic level-2 flood at the driver's full rate lost records
 * in about half the rounds at 256 pages and in none at 1024 (npuprof.rst,
 * "Reading the rings"). Levels 0 and 1 write one record a job: the
 * default is plenty.
 */
#define NPF_AUTO_RING_PAGES	1024

/*
 * The data pages to ask for first: @s->ring_pages; for the default at
 * level 2 (@s->ring_auto), NPF_AUTO_RING_PAGES or what the earlier
 * devices got, halved until the @ndev rings take at most half of
 * RLIMIT_MEMLOCK (8 MiB by default: one device gets 4 MiB, of which 3.5
 * MiB are charged past the driver's 516 KiB allowance; two get 2 MiB
 * each), so that io_uring, or another profiled process of the user,
 * still finds room. The driver's -EPERM (the user's locked memory over
 * the limit) or -ENOMEM (the cgroup's) halves it again, down to the
 * default, in npf_dev_open().
 */
static uint32_t npf_ring_pages_wanted(const struct npuprof_session *s,
				      unsigned int ndev)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), room;
	uint32_t pages;
	struct rlimit rl;

	if (!s->ring_auto)
		return s->ring_pages;
	pages = s->ring_max;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return pages;
	room = rl.rlim_cur / 2 / (ndev ? ndev : 1);
	while (pages > NPUPROF_DEFAULT_RING_PAGES &&
	       (uint64_t)pages * page > room)
		pages /= 2;
	return pages;
}

static int npf_dev_open(struct npuprof_session *s, struct npf_dev *d,
			const char *path, unsigned int ndev)
{
	struct npu_trace_open op;
	uint32_t pages = npf_ring_pages_wanted(s, ndev);
	uint32_t floor = s->ring_auto ? NPUPROF_DEFAULT_RING_PAGES :
		s->ring_pages;
	char err[256];
	void *p;
	int ret;

	d->fd = -1;
	d->tfd = -1;
	ret = npf_copy_path(d->path, path);
	if (ret)
		return ret;
	d->page = (size_t)sysconf(_SC_PAGESIZE);
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		ret = -errno;
		npf_log(&s->log, NPUPROF_LOG_ERROR, "%s: %s", path,
			strerror(-ret));
		return ret;
	}
	memset(&d->info, 0, sizeof(d->info));
	ret = npf_ioctl(d->fd, NPU_IOCTL_GET_INFO, &d->info);
	if (ret) {
		npf_log(&s->log, NPUPROF_LOG_ERROR, "%s: NPU_IOCTL_GET_INFO: %s",
			path, strerror(-ret));
		return ret;
	}
	for (;;) {
		memset(&op, 0, sizeof(op));
		op.flags = s->flags & NPUPROF_F_ALL_PROCESSES ?
			NPU_TRACE_ALL_PROCESSES : 0;
		op.data_pages = pages;
		op.watermark = npf_watermark(pages * d->page);
		ret = npf_ioctl(d->fd, NPU_IOCTL_TRACE_OPEN, &op);
		if ((ret != -EPERM && ret != -ENOMEM) || pages <= floor)
			break;
		pages /= 2;
	}
	if (!ret && s->ring_auto) {
		npf_log(&s->log, NPUPROF_LOG_DEBUG,
			"%s: a %u-page ring at level 2 (the default %u pages, grown within RLIMIT_MEMLOCK)",
			path, pages, NPUPROF_DEFAULT_RING_PAGES);
		/* the devices after this one ask for no more */
		s->ring_max = pages;
		if (pages > s->ring_pages)
			s->ring_pages = pages;
	}
	if (ret) {
		npf_log(&s->log, NPUPROF_LOG_ERROR,
			"%s: cannot open a trace ring of %u pages%s: %s%s", path,
			pages, op.flags ? " for all processes" : "",
			strerror(-ret),
			ret == -EACCES ? " (all processes need CAP_PERFMON or CAP_SYS_ADMIN, or the npu module parameter trace_paranoid=0)" : "");
		return ret;
	}
	d->tfd = op.fd;
	d->data_size = op.data_size;
	p = mmap(NULL, d->page, PROT_READ | PROT_WRITE, MAP_SHARED, d->tfd, 0);
	if (p == MAP_FAILED)
		goto fail_map;
	d->hdr = p;
	p = mmap(NULL, d->data_size, PROT_READ, MAP_SHARED, d->tfd,
		 (off_t)op.data_offset);
	if (p == MAP_FAILED)
		goto fail_map;
	d->data = p;
	ret = npf_ring_check_hdr(d->hdr, d->data_size, err, sizeof(err));
	if (ret) {
		npf_log(&s->log, NPUPROF_LOG_ERROR, "%s: %s", path, err);
		return ret;
	}
	d->cons = d->hdr->consumer;
	/* a new ring's first record has seq 0: check it too */
	d->st.have_seq = true;
	d->st.last_seq = UINT32_MAX;
	return 0;
fail_map:
	ret = -errno;
	npf_log(&s->log, NPUPROF_LOG_ERROR, "%s: mmap of the trace ring: %s",
		path, strerror(-ret));
	return ret;
}

/* ---- writing ---- */

/*
 * Writing. While the writer thread runs, items go through the stage: the
 * reader thread (and control calls, under s->lock) put them there and the
 * writer thread copies them into chunks, checksums and writes them, so
 * that reading the rings never waits for the file. Before the writer
 * thread starts and after it ended, items go to the writer directly.
 */

static void npf_werr(struct npuprof_session *s, int ret)
{
	int zero = 0;

	if (__atomic_compare_exchange_n(&s->werr, &zero, ret, false,
					__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		npf_log(&s->log, NPUPROF_LOG_ERROR, "%s: write failed: %s",
			s->output, strerror(-ret));
}

static void npf_wstats(struct npuprof_session *s)
{
	__atomic_store_n(&s->bytes, npf_writer_bytes(s->w), __ATOMIC_RELAXED);
	__atomic_store_n(&s->chunks, npf_writer_chunks(s->w), __ATOMIC_RELAXED);
}

/* Straight into the writer: the writer thread, or no writer thread. */
static int npf_wadd(struct npuprof_session *s, uint16_t type, const void *a,
		    size_t alen, const void *b, size_t blen)
{
	int ret = __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE);

	if (ret)
		return ret;
	ret = npf_writer_add(s->w, type, a, alen, b, blen);
	if (ret)
		npf_werr(s, ret);
	return ret;
}

static void npf_flush(struct npuprof_session *s)
{
	int ret;

	if (__atomic_load_n(&s->werr, __ATOMIC_ACQUIRE))
		return;
	ret = npf_writer_flush(s->w);
	if (ret)
		npf_werr(s, ret);
	npf_wstats(s);
	s->last_flush_ns = npf_now_ns();
}

static void npf_kick(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0)
		(void)0;
}

/*
 * Append an item: to the stage while the writer thread runs (-ENOSPC when
 * it is full), else to the writer. Under s->lock.
 */
static int npf_add(struct npuprof_session *s, uint16_t type, const void *a,
		   size_t alen, const void *b, size_t blen)
{
	int ret = __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE);

	if (ret)
		return ret;
	if (!s->wthr_started)
		return npf_wadd(s, type, a, alen, b, blen);
	ret = npf_iring_put(&s->stage, type, a, alen, b, blen);
	if (ret)
		__atomic_store_n(&s->stalled, true, __ATOMIC_RELEASE);
	return ret;
}

/* Wait (up to @ms) for the writer thread to make room in the stage. */
static void npf_wait_room(struct npuprof_session *s, int ms)
{
	struct pollfd pfd = { .fd = s->pefd, .events = POLLIN };
	uint64_t v;

	npf_kick(s->wefd);
	if (poll(&pfd, 1, ms) > 0 && read(s->pefd, &v, sizeof(v)) < 0)
		(void)0;
}

/* npf_add() of a control item, waiting for room (bounded). Under s->lock. */
static int npf_add_wait(struct npuprof_session *s, uint16_t type,
			const void *a, size_t alen)
{
	int i, ret;

	for (i = 0; i < 1000; i++) {
		ret = npf_add(s, type, a, alen, NULL, 0);
		if (ret != -ENOSPC)
			return ret;
		npf_wait_room(s, 10);
	}
	return ret;
}

/*
 * Write the stage to the file in place: each contiguous run of its items
 * (up to a chunk) becomes one chunk, written with writev() straight from
 * the stage, then released to the reader thread. Return: the bytes
 * released.
 */
static uint64_t npf_write_stage(struct npuprof_session *s)
{
	uint64_t done = 0;
	const void *p;
	uint32_t len, n;
	int ret;

	while (!__atomic_load_n(&s->werr, __ATOMIC_ACQUIRE) &&
	       (p = npf_iring_peek(&s->stage, NPF_CHUNK_DEFAULT, &len, &n))) {
		ret = npf_writer_add_items(s->w, p, len, n);
		if (ret) {
			npf_werr(s, ret);
			break;
		}
		npf_iring_release(&s->stage, len);
		done += len;
		npf_wstats(s);
		if (__atomic_load_n(&s->stalled, __ATOMIC_ACQUIRE))
			npf_kick(s->pefd);
	}
	return done;
}

/*
 * The stage past this is written even while the rings are busy: three
 * quarters of it, so that a burst the size of the stage's high mark (12 MiB
 * for the default ring) stays in memory until it ends, and the last
 * quarter (four rings or more) absorbs the rings while the writer catches
 * up.
 */
static uint64_t npf_stage_high(const struct npuprof_session *s)
{
	return (uint64_t)s->stage.size / 4 * 3;
}

/*
 * How long the writer thread may sleep, in ms, and whether to write now.
 * It writes when told to finish, when the reader found the stage full,
 * past the high mark, and else only once the rings are quiet: then a run
 * of NPF_WRITE_MIN, or whatever there is at the flush period; a burst
 * longer than NPF_DEFER_MAX_NS is written as it goes. While a burst
 * lasts, the reader and the application have the CPUs to themselves: the
 * writer's checksums and write() of a burst take longer than a default
 * ring takes to fill (npuprof.rst, "Sessions").
 */
static bool npf_writer_due(struct npuprof_session *s, uint64_t now, int *ms)
{
	uint64_t used = npf_iring_used(&s->stage);
	uint64_t reads = __atomic_load_n(&s->reads, __ATOMIC_RELAXED);
	uint64_t busy, wait;

	if (reads != s->seen_reads) {
		s->seen_reads = reads;
		s->busy_ns = now;
	}
	busy = s->busy_ns;
	*ms = NPF_POLL_MS;
	if (__atomic_load_n(&s->wquit, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&s->stalled, __ATOMIC_ACQUIRE) ||
	    used >= npf_stage_high(s))
		return true;
	if (!used)
		return false;
	if (now - busy < NPF_QUIET_NS) {
		if (now - s->last_flush_ns >= NPF_DEFER_MAX_NS)
			return true;
		wait = busy + NPF_QUIET_NS - now;
	} else {
		if (used >= NPF_WRITE_MIN ||
		    now - s->last_flush_ns >= NPF_FLUSH_NS)
			return true;
		wait = s->last_flush_ns + NPF_FLUSH_NS - now;
	}
	wait = wait / 1000000 + 1;
	*ms = wait < NPF_POLL_MS ? (int)wait : NPF_POLL_MS;
	return false;
}

/*
 * The CPU time of the calling thread, in ms, at NPUPROF_LOG_DEBUG; for
 * the writer, the stage bytes it wrote while the rings were busy
 */
static void npf_log_cpu(struct npuprof_session *s, const char *who,
			uint64_t busy_bytes)
{
	struct timespec ts;

	if (s->log.level < NPUPROF_LOG_DEBUG ||
	    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return;
	npf_log(&s->log, NPUPROF_LOG_DEBUG,
		"%s thread: %.1f ms CPU, %" PRIu64 " bytes written in bursts",
		who, (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6,
		busy_bytes);
}

static void *npf_writer_thread(void *arg)
{
	struct npuprof_session *s = arg;
	struct pollfd pfd = { .fd = s->wefd, .events = POLLIN };
	sigset_t all;
	uint64_t v, now, done, busy_bytes = 0;
	bool flush;
	int quit, ms = NPF_POLL_MS;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "npuprof-write");
	for (;;) {
		if (poll(&pfd, 1, ms) > 0 &&
		    read(s->wefd, &v, sizeof(v)) < 0)
			(void)0;
		now = npf_now_ns();
		if (!npf_writer_due(s, now, &ms))
			continue;
		quit = __atomic_load_n(&s->wquit, __ATOMIC_ACQUIRE);
		flush = quit || now - s->last_flush_ns > NPF_FLUSH_NS;
		done = npf_write_stage(s);
		if (!quit && now - s->busy_ns < NPF_QUIET_NS)
			busy_bytes += done;
		if (flush)
			npf_flush(s);
		/*
		 * A reader that found the stage full kicked us: answer even
		 * when there was too little to write, or it would sleep.
		 */
		if (__atomic_load_n(&s->stalled, __ATOMIC_ACQUIRE))
			npf_kick(s->pefd);
		if (quit && (!npf_iring_used(&s->stage) ||
			     __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE)))
			break;
		/* a stage still due (full) waits for the reader's kick */
		if (npf_writer_due(s, npf_now_ns(), &ms))
			ms = NPF_POLL_MS;
	}
	npf_log_cpu(s, "writer", busy_bytes);
	return NULL;
}

static void npf_writer_join(struct npuprof_session *s)
{
	if (!s->wthr_started)
		return;
	__atomic_store_n(&s->wquit, 1, __ATOMIC_RELEASE);
	npf_kick(s->wefd);
	pthread_join(s->wthr, NULL);
	s->wthr_started = false;
}

/*
 * Choose the clock of the session's user spans, once: the TSC where
 * npf_spans_tsc_usable() says so, unless NPUPROF_SPAN_CLOCK=monotonic.
 * Return: 0, -EINVAL for another value of NPUPROF_SPAN_CLOCK.
 */
static int npf_span_clock(struct npuprof_session *s)
{
	const char *v = getenv("NPUPROF_SPAN_CLOCK");

	if (v && *v && strcmp(v, "monotonic") && strcmp(v, "auto")) {
		npf_log(&s->log, NPUPROF_LOG_ERROR,
			"NPUPROF_SPAN_CLOCK=%s: not monotonic or auto", v);
		return -EINVAL;
	}
	if (s->flags & NPUPROF_F_NO_HOST_SPANS) {
		s->tsc_why = "no host spans";
		return 0;
	}
	if (v && !strcmp(v, "monotonic")) {
		s->tsc_why = "NPUPROF_SPAN_CLOCK=monotonic";
		return 0;
	}
	s->tsc = npf_spans_tsc_usable(&s->tsc_why);
	return 0;
}

/* TSC samples between HOST_CLOCK items: 2^28 ticks, 0.1 s at 2.7 GHz */
#define NPF_TSC_SAMPLE_TICKS	(1ull << 28)

/*
 * A HOST_CLOCK sample, when the session stamps spans with the TSC and
 * @force or NPF_TSC_SAMPLE_TICKS passed since the last; under s->lock.
 */
static void npf_tsc_sample(struct npuprof_session *s, bool force)
{
	struct npf_item_host_clock h = { .clock = NPF_SPANS_CLOCK_TSC,
					 .count = 1 };
	struct npf_clock_sample cs;

	if (!s->tsc)
		return;
	npf_spans_clock_sample(&cs);
	if (!force && cs.tick - s->tsc_last < NPF_TSC_SAMPLE_TICKS)
		return;
	if (!npf_add(s, NPF_ITEM_HOST_CLOCK, &h, sizeof(h), &cs, sizeof(cs)))
		s->tsc_last = cs.tick;
}

static int npf_meta(struct npuprof_session *s, const char *key,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int npf_meta(struct npuprof_session *s, const char *key,
		    const char *fmt, ...)
{
	char val[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	return npf_add(s, NPF_ITEM_META, key, strlen(key) + 1, val,
		       strlen(val) + 1);
}

static void npf_cmdline(char *buf, size_t len)
{
	ssize_t n;
	int fd;

	buf[0] = 0;
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (ssize_t i = 0; i < n - 1; i++)
		if (!buf[i])
			buf[i] = ' ';
}

static int npf_write_header(struct npuprof_session *s)
{
	struct utsname u;
	char cmd[900];
	struct timespec rt, mono;
	unsigned int i;
	int ret = 0;

	uname(&u);
	npf_cmdline(cmd, sizeof(cmd));
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	ret |= npf_meta(s, "npuprof.version", "%d.%d", NPUPROF_VERSION_MAJOR,
			NPUPROF_VERSION_MINOR);
	ret |= npf_meta(s, "host", "%s", u.nodename);
	ret |= npf_meta(s, "kernel", "%s %s", u.sysname, u.release);
	ret |= npf_meta(s, "machine", "%s", u.machine);
	ret |= npf_meta(s, "pid", "%d", (int)getpid());
	ret |= npf_meta(s, "cmdline", "%s", cmd);
	ret |= npf_meta(s, "level", "%d", s->level);
	ret |= npf_meta(s, "ring_pages", "%u", s->ring_pages);
	ret |= npf_meta(s, "scope", "%s", s->flags & NPUPROF_F_ALL_PROCESSES ?
			"all processes" : "this process");
	ret |= npf_meta(s, "host_spans", "%s",
			s->flags & NPUPROF_F_NO_HOST_SPANS ? "no" : "yes");
	ret |= npf_meta(s, "host_span_clock", "%s",
			s->tsc ? "tsc" : "monotonic");
	ret |= npf_meta(s, "host_span_clock.why", "%s", s->tsc_why);
	ret |= npf_meta(s, "clock.realtime_ns", "%" PRIu64,
			(uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec);
	ret |= npf_meta(s, "clock.monotonic_ns", "%" PRIu64,
			(uint64_t)mono.tv_sec * 1000000000u +
			(uint64_t)mono.tv_nsec);
	for (i = 0; i < s->ndev; i++) {
		struct npf_item_device d;

		memset(&d, 0, sizeof(d));
		d.dev = i;
		d.info_size = sizeof(struct npu_info);
		memcpy(d.path, s->devs[i].path, sizeof(d.path));
		ret |= npf_add(s, NPF_ITEM_DEVICE, &d, sizeof(d),
			       &s->devs[i].info, sizeof(struct npu_info));
	}
	return ret ? __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE) : 0;
}

/* A session event; under s->lock. */
static int npf_session_item(struct npuprof_session *s, uint32_t op)
{
	struct npf_item_session it = { .op = op, .time_ns = npf_now_ns() };

	return npf_add_wait(s, NPF_ITEM_SESSION, &it, sizeof(it));
}

/*
 * npf_add() waiting (bounded) for room, with s->lock dropped while it
 * waits; under s->lock.
 */
static int npf_add_retry(struct npuprof_session *s, uint16_t type,
			 const void *a, size_t alen, const void *b,
			 size_t blen)
{
	int i, ret = 0;

	for (i = 0; i < 1000; i++) {
		ret = npf_add(s, type, a, alen, b, blen);
		if (ret != -ENOSPC)
			break;
		pthread_mutex_unlock(&s->lock);
		npf_wait_room(s, 10);
		pthread_mutex_lock(&s->lock);
	}
	return ret;
}

/*
 * Append an item built outside the library (extspan.c: spans of an eBPF
 * collector), waiting (bounded) for room in the stage. A SPAN counts in
 * the session's spans. Nothing is kept while the session is paused.
 * Return: 0; -EINVAL unless the session runs or is paused; -ENOSPC when
 * the writer made no room; the writer's error.
 */
int npf_session_add_ext(struct npuprof_session *s, uint16_t type,
			const void *a, size_t alen, const void *b, size_t blen)
{
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (s->state != NPF_RUNNING) {
		ret = s->state == NPF_PAUSED ? 0 : -EINVAL;
		goto out;
	}
	ret = npf_add_retry(s, type, a, alen, b, blen);
	if (!ret && type == NPF_ITEM_SPAN)
		s->st.spans++;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/*
 * A MODEL item of the process's model registry (model.c), called with the
 * registry's lock held: written while the session runs or is paused (a
 * model is a description, not an event), waiting (bounded) for room.
 */
static int npf_session_model(void *owner, const void *a, size_t alen,
			     const void *b, size_t blen)
{
	struct npuprof_session *s = owner;
	int ret = -EINVAL;

	pthread_mutex_lock(&s->lock);
	if (__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE))
		goto out;
	ret = npf_add_retry(s, NPF_ITEM_MODEL, a, alen, b, blen);
	if (ret)
		npf_log(&s->log, NPUPROF_LOG_WARN,
			"model %u not written to the trace file: %s",
			((const struct npf_item_model *)a)->model_id,
			strerror(-ret));
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* ---- reading the rings and the span buffers ---- */

/* Largest run of records in one RECORDS item: it must fit a chunk. */
#define NPF_RUN_MAX	(NPF_CHUNK_DEFAULT - 64)

/*
 * A run of consecutive records of one ring, written as one RECORDS item:
 * the reader thread copies the ring in pieces, as perf record does, and
 * does no per-record work beyond the parser's checks. Each run copied
 * gives its space back to the driver at once (the consumer moves to its
 * end), not when the whole backlog has been read: a reader woken late to
 * a nearly full ring would otherwise hold all of it while it copies, and
 * the driver drop what comes meanwhile. A run is at most a watermark's
 * worth of bytes (npf_watermark()), so the space comes back in steps of
 * an eighth of the ring at most.
 */
struct npf_run {
	struct npuprof_session *s;
	struct npf_dev *d;
	const uint8_t *start;
	uint64_t start_pos;	/* ring position of @start */
	uint32_t len;
	uint32_t count;
	uint32_t room;		/* largest body the stage takes now */
	uint32_t max;		/* largest run */
};

/* npf_on_record(): the stage is full, leave the rest in the ring */
#define NPF_RUN_FULL	1

static int npf_run_flush(struct npf_run *r)
{
	struct npf_item_records ir = { .dev = r->d->index, .count = r->count };
	int ret = 0;

	if (r->count) {
		ret = npf_add(r->s, NPF_ITEM_RECORDS, &ir, sizeof(ir), r->start,
			      r->len);
		/* copied: the driver may reuse the space (release: after the reads) */
		if (!ret)
			__atomic_store_n(&r->d->hdr->consumer,
					 r->start_pos + r->len, __ATOMIC_RELEASE);
	}
	r->len = 0;
	r->count = 0;
	r->room = r->s->wthr_started ? npf_iring_room(&r->s->stage) :
		UINT32_MAX;
	return ret;
}

/*
 * A CLOCK record about to be copied: its sample, for the index that ends
 * the file (trace-file.rst), so that a reader fits the clocks without a
 * pass and the session never reads its own file back. A few hundred
 * records a run; without memory the index is left out, never wrong.
 */
static void npf_keep_clock(struct npf_dev *d,
			   const struct npu_trace_rec_clock *c)
{
	if (d->clk_lost)
		return;
	if (d->nclk == d->clk_cap) {
		size_t cap = d->clk_cap ? d->clk_cap * 2 : 256;
		void *p = cap > SIZE_MAX / 2 / sizeof(*d->clk) ? NULL :
			  realloc(d->clk, cap * sizeof(*d->clk));

		if (!p) {
			d->clk_lost = true;
			return;
		}
		d->clk = p;
		d->clk_cap = cap;
	}
	d->clk[d->nclk].before_ns = c->host_before_ns;
	d->clk[d->nclk].tick = c->device_tick;
	d->clk[d->nclk].after_ns = c->host_after_ns;
	d->nclk++;
}

static int npf_on_record(void *ctx, const struct npu_trace_rec_hdr *h)
{
	struct npf_run *r = ctx;
	const uint8_t *p = (const void *)h;
	int ret;

	/* a PAD (the wrap), a full item or a full stage ends the run */
	if (r->count && (p != r->start + r->len ||
			 r->len + h->size > r->max ||
			 sizeof(struct npf_item_records) + r->len + h->size >
			 r->room)) {
		ret = npf_run_flush(r);
		if (ret)
			return ret;
	}
	if (sizeof(struct npf_item_records) + h->size > r->room) {
		__atomic_store_n(&r->s->stalled, true, __ATOMIC_RELEASE);
		return NPF_RUN_FULL;	/* not consumed: read again later */
	}
	if (npf_unlikely(h->type == NPU_TRACE_REC_CLOCK))
		npf_keep_clock(r->d, (const void *)h);
	if (!r->count) {
		const struct npf_dev *d = r->d;

		/* the parse reads less than the ring from d->cons on */
		r->start = p;
		r->start_pos = d->cons + (((uint64_t)(p - d->data) -
					   d->cons) & (d->data_size - 1));
	}
	r->len += h->size;
	r->count++;
	return 0;
}

/* Read one ring up to its producer; under s->lock. */
static void npf_read_ring(struct npuprof_session *s, struct npf_dev *d)
{
	struct npf_run run = {
		.s = s, .d = d,
		.max = npf_watermark(d->data_size) < NPF_RUN_MAX ?
			npf_watermark(d->data_size) : NPF_RUN_MAX,
	};
	char err[256];
	uint64_t prod;
	int ret;

	if (d->stopped)
		return;
	run.room = s->wthr_started ? npf_iring_room(&s->stage) : UINT32_MAX;
	prod = __atomic_load_n(&d->hdr->producer, __ATOMIC_ACQUIRE);
	if (prod == d->cons)
		return;
	__atomic_fetch_add(&s->reads, 1, __ATOMIC_RELAXED);
	ret = npf_ring_parse(d->data, d->data_size, &d->cons, prod,
			     npf_on_record, &run, &d->st, err, sizeof(err));
	/* the records are copied before the kernel may reuse their space */
	npf_run_flush(&run);
	__atomic_store_n(&d->hdr->consumer, d->cons, __ATOMIC_RELEASE);
	if (ret == -EBADMSG) {
		d->stopped = true;
		s->st.ring_errors++;
		npf_log(&s->log, NPUPROF_LOG_ERROR,
			"%s: corrupt trace ring, no longer read: %s", d->path,
			err);
	}
}

/* The ring counters of every device, into s->st; under s->lock. */
static void npf_sum_rings(struct npuprof_session *s)
{
	unsigned int i;

	s->st.records = 0;
	s->st.exec_records = 0;
	s->st.op_records = 0;
	s->st.clock_records = 0;
	s->st.lost_ring = 0;
	s->st.lost_device = 0;
	s->st.lost_host = 0;
	for (i = 0; i < s->ndev; i++) {
		const struct npf_ring_stats *st = &s->devs[i].st;

		s->st.records += st->records;
		s->st.exec_records += st->by_type[NPU_TRACE_REC_EXEC];
		s->st.op_records += st->by_type[NPU_TRACE_REC_OP];
		s->st.clock_records += st->by_type[NPU_TRACE_REC_CLOCK];
		s->st.lost_ring += st->lost[NPU_TRACE_LOST_RING_FULL];
		s->st.lost_device += st->lost[NPU_TRACE_LOST_DEVICE];
		s->st.lost_host += st->lost[NPU_TRACE_LOST_HOST];
	}
}

static int npf_on_span_item(void *ctx, uint16_t type, const void *body,
			    size_t len)
{
	return npf_add(ctx, type, body, len, NULL, 0);
}

/*
 * Room in the stage for a SPANS item the drain packs in place, with no
 * copy; none before the writer thread starts and after it ended (items
 * then go to the writer). Under s->lock, as every put into the stage.
 */
static void *npf_span_reserve(void *ctx, uint32_t min, uint32_t max,
			      uint32_t *room)
{
	struct npuprof_session *s = ctx;

	if (!s->wthr_started || __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE))
		return NULL;
	return npf_iring_reserve(&s->stage, min, max, room);
}

static void npf_span_commit(void *ctx, uint16_t type, uint32_t len)
{
	struct npuprof_session *s = ctx;

	npf_iring_commit(&s->stage, type, len);
}

/*
 * Move everything available towards the file; under s->lock. Sets
 * s->stalled when the stage could not take it all.
 */
static void npf_collect(struct npuprof_session *s)
{
	uint64_t reads = __atomic_load_n(&s->reads, __ATOMIC_RELAXED);
	unsigned int i;

	__atomic_store_n(&s->stalled, false, __ATOMIC_RELAXED);
	for (i = 0; i < s->ndev; i++)
		npf_read_ring(s, &s->devs[i]);
	if (s->spans) {
		const struct npf_span_sink sink = {
			.item = npf_on_span_item, .reserve = npf_span_reserve,
			.commit = npf_span_commit, .ctx = s,
		};

		npf_tsc_sample(s, false);
		npf_spans_drain(s, &sink, &s->st.spans, &s->st.spans_lost);
	}
	if (__atomic_load_n(&s->stalled, __ATOMIC_RELAXED))
		s->st.stage_full++;
	/*
	 * The writer wakes by itself once the rings are quiet
	 * (npf_writer_due()): kick it when the stage is full or past its
	 * high mark, or holds NPF_SPANS_KICK and this pass found no device
	 * record. Host spans alone fill the stage at up to 300 MB/s: a writer
	 * that slept until the high mark would still be writing those 12 MiB
	 * when the spans after them had filled the rest, and the threads'
	 * buffers would overflow meanwhile.
	 */
	if (s->wthr_started &&
	    (__atomic_load_n(&s->stalled, __ATOMIC_RELAXED) ||
	     npf_iring_used(&s->stage) >= npf_stage_high(s) ||
	     (reads == __atomic_load_n(&s->reads, __ATOMIC_RELAXED) &&
	      npf_iring_used(&s->stage) >= NPF_SPANS_KICK)))
		npf_kick(s->wefd);
}

/*
 * Collect until the rings and span buffers are empty, waiting for the
 * writer thread when the stage is full (bounded). Under s->lock, which is
 * dropped while waiting.
 */
static void npf_collect_all(struct npuprof_session *s)
{
	int i;

	for (i = 0; i < 1000; i++) {
		npf_collect(s);
		if (!__atomic_load_n(&s->stalled, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE))
			return;
		pthread_mutex_unlock(&s->lock);
		npf_wait_room(s, 10);
		pthread_mutex_lock(&s->lock);
	}
}

/* ---- enabling and disabling the rings ---- */

static int npf_enable(struct npuprof_session *s)
{
	struct npu_trace_enable en;
	unsigned int i;
	int ret;

	for (i = 0; i < s->ndev; i++) {
		struct npf_dev *d = &s->devs[i];

		if (d->stopped)
			continue;
		memset(&en, 0, sizeof(en));
		en.level = (uint32_t)s->level;
		ret = npf_ioctl(d->tfd, NPU_TRACE_IOCTL_ENABLE, &en);
		if (ret) {
			npf_log(&s->log, NPUPROF_LOG_ERROR,
				"%s: cannot enable tracing at level %d: %s",
				d->path, s->level, strerror(-ret));
			while (i--)
				if (s->devs[i].enabled) {
					npf_ioctl(s->devs[i].tfd,
						  NPU_TRACE_IOCTL_DISABLE, NULL);
					s->devs[i].enabled = false;
				}
			return ret;
		}
		d->enabled = true;
	}
	return 0;
}

static void npf_disable(struct npuprof_session *s)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->ndev; i++) {
		struct npf_dev *d = &s->devs[i];

		if (!d->enabled)
			continue;
		ret = npf_ioctl(d->tfd, NPU_TRACE_IOCTL_DISABLE, NULL);
		if (ret && ret != -ENODEV)
			npf_log(&s->log, NPUPROF_LOG_WARN,
				"%s: disabling tracing: %s", d->path,
				strerror(-ret));
		d->enabled = false;
	}
}

/* ---- the end of the file ---- */

/*
 * The index: every device's clock samples again, at the end of the file,
 * so that opening it reads them alone (trace-file.rst). Without one of
 * them (no memory), none: readers then make a pass.
 */
static int npf_write_index(struct npuprof_session *s)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->ndev; i++)
		if (s->devs[i].clk_lost)
			return 0;
	ret = npf_writer_index(s->w);
	for (i = 0; !ret && i < s->ndev; i++)
		ret = npf_writer_add_clocks(s->w, i, s->devs[i].info.clock_hz,
					    s->devs[i].clk, s->devs[i].nclk);
	return ret;
}

/*
 * Totals, the index and END; under s->lock, the reader and writer threads
 * gone (items go straight to the writer). The clock fits and the
 * causality check are the reader's (the analysis library), not written
 * here: the session never reads its own file back.
 */
static int npf_finish_file(struct npuprof_session *s)
{
	struct npf_item_summary sum;
	int ret;

	npf_flush(s);
	npf_sum_rings(s);
	memset(&sum, 0, sizeof(sum));
	sum.spans = s->st.spans;
	sum.spans_lost = s->st.spans_lost;
	sum.records = s->st.records;
	sum.lost_ring = s->st.lost_ring;
	sum.lost_device = s->st.lost_device;
	sum.lost_host = s->st.lost_host;
	sum.ring_errors = s->st.ring_errors;
	sum.start_ns = s->start_ns;
	sum.stop_ns = npf_now_ns();
	npf_add(s, NPF_ITEM_SUMMARY, &sum, sizeof(sum), NULL, 0);
	if (!__atomic_load_n(&s->werr, __ATOMIC_ACQUIRE)) {
		ret = npf_write_index(s);
		if (ret)
			npf_werr(s, ret);
	}
	npf_flush(s);
	ret = npf_writer_close(s->w);
	s->w = NULL;
	if (ret)
		npf_werr(s, ret);
	return __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE);
}

/*
 * Stop capturing and complete the file. Called by npuprof_session_stop()
 * after the reader thread is gone, or by the reader thread itself when a
 * fatal signal asks for the file to be completed.
 */
static int npf_finish(struct npuprof_session *s)
{
	unsigned int i;
	int ret;

	if (s->spans) {
		npf_models_detach(s);
		npf_spans_pause(s, true);
	}
	npf_disable(s);
	pthread_mutex_lock(&s->lock);
	npf_collect_all(s);
	npf_tsc_sample(s, true);
	npf_session_item(s, NPUPROF_SESSION_STOP);
	for (i = 0; i < s->ndev; i++) {
		struct npf_dev *d = &s->devs[i];

		if (d->st.seq_gaps)
			npf_log(&s->log, NPUPROF_LOG_WARN,
				"%s: %" PRIu64 " records missing without a LOST record",
				d->path, d->st.seq_gaps);
	}
	if (s->spans) {
		npf_spans_detach(s);
		s->spans = false;
	}
	pthread_mutex_unlock(&s->lock);
	npf_writer_join(s);
	pthread_mutex_lock(&s->lock);
	ret = npf_finish_file(s);
	s->state = NPF_STOPPED;
	__atomic_store_n(&s->finished, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static void *npf_reader_thread(void *arg)
{
	struct npuprof_session *s = arg;
	struct pollfd pfd[NPF_MAX_DEVS + 2];
	sigset_t all;
	unsigned int i;
	int quit;

	/* signals are for the application's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "npuprof-read");
	for (;;) {
		bool stalled;
		uint64_t v;

		stalled = __atomic_load_n(&s->stalled, __ATOMIC_ACQUIRE);
		pfd[0].fd = s->efd;
		pfd[0].events = POLLIN;
		pfd[1].fd = stalled ? s->pefd : -1;
		pfd[1].events = POLLIN;
		/* a full stage: wait for the writer, not for the rings */
		for (i = 0; i < s->ndev; i++) {
			pfd[i + 2].fd = s->devs[i].stopped || stalled ? -1 :
				s->devs[i].tfd;
			pfd[i + 2].events = POLLIN;
			pfd[i + 2].revents = 0;
		}
		poll(pfd, s->ndev + 2, NPF_POLL_MS);
		if ((pfd[0].revents & POLLIN) &&
		    read(s->efd, &v, sizeof(v)) < 0)
			v = 0;
		if ((pfd[1].revents & POLLIN) &&
		    read(s->pefd, &v, sizeof(v)) < 0)
			v = 0;
		quit = __atomic_load_n(&s->quit, __ATOMIC_ACQUIRE);
		if (quit == 2) {
			npf_finish(s);
			break;
		}
		pthread_mutex_lock(&s->lock);
		npf_collect(s);
		for (i = 0; i < s->ndev; i++) {
			struct npf_dev *d = &s->devs[i];

			if (!d->stopped && (pfd[i + 2].revents & POLLHUP)) {
				d->stopped = true;
				npf_log(&s->log, NPUPROF_LOG_WARN,
					"%s: device removed; its trace ends here",
					d->path);
			}
		}
		pthread_mutex_unlock(&s->lock);
		if (quit)
			break;
	}
	npf_log_cpu(s, "reader", 0);
	return NULL;
}

/* Wake the reader thread, asking it to exit (1) or to finish (2) */
static void npf_wake(struct npuprof_session *s, int quit)
{
	if (quit)
		__atomic_store_n(&s->quit, quit, __ATOMIC_RELEASE);
	npf_kick(s->efd);
}

static void npf_join(struct npuprof_session *s)
{
	if (!s->thr_started)
		return;
	if (!__atomic_load_n(&s->quit, __ATOMIC_ACQUIRE))
		npf_wake(s, 1);
	pthread_join(s->thr, NULL);
	s->thr_started = false;
}

/* ---- the API ---- */

/*
 * The stage holds sixteen times the devices' rings, so that the rings can
 * be emptied while a slow file catches up (npuprof.rst has the floods that
 * sized it), at least 4 MiB, at most 64 MiB. It is plain memory, faulted
 * in when the session is created (npuprof_session_create()), so resident
 * from then on.
 */
static uint32_t npf_stage_size(const struct npuprof_session *s)
{
	/* a grown default ring keeps the default's stage: 16 MiB */
	uint32_t pages = s->ring_auto ? NPUPROF_DEFAULT_RING_PAGES :
		s->ring_pages;
	uint64_t want = 16ull * pages * (uint64_t)sysconf(_SC_PAGESIZE) *
		(s->ndev ? s->ndev : 1);
	uint32_t size = 4u << 20;

	while (size < want && size < (64u << 20))
		size <<= 1;
	return size;
}

NPUPROF_EXPORT
int npuprof_session_create(const struct npuprof_opts *opts,
			   struct npuprof_session **sessp)
{
	char paths[NPF_MAX_DEVS][64];
	struct npuprof_opts o;
	struct npuprof_session *s;
	unsigned int i, n = 0;
	int ret;

	if (!sessp)
		return -EINVAL;
	*sessp = NULL;
	ret = npf_copy_opts(opts, &o);
	if (ret)
		return ret;
	if (!o.output || !*o.output || o.level < 0 || o.level > 2 ||
	    o.ring_pages > NPF_MAX_RING_PAGES ||
	    (o.ring_pages & (o.ring_pages - 1)) ||
	    o.span_buf_kb < 4 || o.span_buf_kb > 65536 ||
	    (o.span_buf_kb & (o.span_buf_kb - 1)) ||
	    (o.flags & ~(NPUPROF_F_ALL_PROCESSES | NPUPROF_F_NO_HOST_SPANS)))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->log.fn = o.log;
	s->log.ctx = o.log_ctx;
	s->log.level = o.log_level;
	s->level = o.level;
	/* 0: the default, grown at level 2 (npf_ring_pages_wanted()) */
	s->ring_pages = o.ring_pages ? o.ring_pages :
		NPUPROF_DEFAULT_RING_PAGES;
	s->ring_auto = !o.ring_pages && o.level == 2;
	s->ring_max = NPF_AUTO_RING_PAGES;
	s->flags = o.flags;
	s->span_buf = o.span_buf_kb * 1024;
	ret = npf_span_clock(s);
	if (ret) {
		free(s);
		return ret;
	}
	s->efd = -1;
	s->wefd = -1;
	s->pefd = -1;
	s->pid = getpid();
	s->st.sz = sizeof(s->st);
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < NPF_MAX_DEVS; i++) {
		s->devs[i].fd = -1;
		s->devs[i].tfd = -1;
	}
	s->output = strdup(o.output);
	if (!s->output) {
		ret = -ENOMEM;
		goto fail;
	}
	if (o.devices) {
		while (o.devices[n]) {
			if (n == NPF_MAX_DEVS) {
				ret = -E2BIG;
				goto fail;
			}
			ret = npf_copy_path(paths[n], o.devices[n]);
			if (ret)
				goto fail;
			n++;
		}
	} else {
		ret = npf_find_devices(paths, NPF_MAX_DEVS);
		if (ret < 0)
			goto fail;
		n = (unsigned int)ret;
	}
	if (!n && !o.devices) {
		npf_log(&s->log, NPUPROF_LOG_ERROR,
			"no NPU device (/dev/npu*) found: is npu.ko loaded?");
		ret = -ENOENT;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		s->devs[i].index = i;
		s->ndev = i + 1;
		ret = npf_dev_open(s, &s->devs[i], paths[i], n);
		if (ret)
			goto fail;
	}
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->wefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->pefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0 || s->wefd < 0 || s->pefd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = npf_iring_init(&s->stage, npf_stage_size(s));
	if (ret)
		goto fail;
	/*
	 * Fault the stage in now, not in the reader thread in the middle of
	 * the first burst, where the faults cost records (npuprof.rst,
	 * "Sessions")
	 */
	npf_iring_prefault(&s->stage);
	/* time the checksums now, not in the writer's first chunk */
	npf_log(&s->log, NPUPROF_LOG_DEBUG, "chunk checksum: %s",
		npf_crc32_impl(npf_crc32_select()));
	ret = npf_writer_open(s->output, 0, &s->w);
	if (ret) {
		npf_log(&s->log, NPUPROF_LOG_ERROR, "%s: %s", s->output,
			strerror(-ret));
		goto fail;
	}
	ret = npf_write_header(s);
	if (ret)
		goto fail;
	s->state = NPF_CREATED;
	*sessp = s;
	return 0;
fail:
	npuprof_session_free(s);
	return ret;
}

NPUPROF_EXPORT
int npuprof_session_start(struct npuprof_session *s)
{
	int ret;

	if (!s)
		return -EINVAL;
	if (s->state != NPF_CREATED)
		return -EALREADY;
	if (!(s->flags & NPUPROF_F_NO_HOST_SPANS)) {
		ret = npf_spans_attach(s, s->span_buf, s->efd, s->tsc);
		if (ret) {
			npf_log(&s->log, NPUPROF_LOG_ERROR,
				"another session of this process captures host spans");
			return ret;
		}
		s->spans = true;
	}
	s->start_ns = npf_now_ns();
	s->last_flush_ns = s->start_ns;
	ret = -pthread_create(&s->wthr, NULL, npf_writer_thread, s);
	if (ret)
		goto fail;
	s->wthr_started = true;
	ret = npf_enable(s);
	if (ret)
		goto fail;
	pthread_mutex_lock(&s->lock);
	ret = npf_session_item(s, NPUPROF_SESSION_START);
	npf_tsc_sample(s, true);
	pthread_mutex_unlock(&s->lock);
	if (ret)
		goto fail_disable;
	/*
	 * The models loaded so far, before any span is drained: a model's
	 * item precedes the SUBMIT spans of its jobs. A model not written is
	 * logged (npf_session_model()), not fatal.
	 */
	if (s->spans)
		npf_models_attach(s, npf_session_model);
	ret = -pthread_create(&s->thr, NULL, npf_reader_thread, s);
	if (ret)
		goto fail_disable;
	s->thr_started = true;
	s->state = NPF_RUNNING;
	return 0;
fail_disable:
	npf_models_detach(s);
	npf_disable(s);
fail:
	npf_writer_join(s);
	if (s->spans) {
		npf_spans_detach(s);
		s->spans = false;
	}
	return ret;
}

NPUPROF_EXPORT
int npuprof_session_pause(struct npuprof_session *s)
{
	if (!s || s->state == NPF_CREATED || s->state == NPF_STOPPED)
		return -EINVAL;
	if (s->state == NPF_PAUSED)
		return -EALREADY;
	if (s->spans)
		npf_spans_pause(s, true);
	npf_disable(s);
	pthread_mutex_lock(&s->lock);
	npf_collect_all(s);
	npf_session_item(s, NPUPROF_SESSION_PAUSE);
	s->state = NPF_PAUSED;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

NPUPROF_EXPORT
int npuprof_session_resume(struct npuprof_session *s)
{
	int ret;

	if (!s || s->state != NPF_PAUSED)
		return -EINVAL;
	ret = npf_enable(s);
	if (ret)
		return ret;
	pthread_mutex_lock(&s->lock);
	npf_session_item(s, NPUPROF_SESSION_RESUME);
	s->state = NPF_RUNNING;
	pthread_mutex_unlock(&s->lock);
	if (s->spans)
		npf_spans_pause(s, false);
	return 0;
}

NPUPROF_EXPORT
int npuprof_session_stop(struct npuprof_session *s)
{
	if (!s || s->state == NPF_CREATED)
		return -EINVAL;
	if (__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE)) {
		npf_join(s);
		return __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE);
	}
	npf_join(s);
	return npf_finish(s);
}

NPUPROF_EXPORT
void npuprof_session_free(struct npuprof_session *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->state == NPF_RUNNING || s->state == NPF_PAUSED)
		npuprof_session_stop(s);
	npf_models_detach(s);
	npf_join(s);
	npf_writer_join(s);
	if (s->spans)
		npf_spans_detach(s);
	if (s->w)
		npf_writer_abort(s->w);
	for (i = 0; i < s->ndev; i++)
		npf_dev_close(&s->devs[i]);
	if (s->efd >= 0)
		close(s->efd);
	if (s->wefd >= 0)
		close(s->wefd);
	if (s->pefd >= 0)
		close(s->pefd);
	npf_iring_fini(&s->stage);
	pthread_mutex_destroy(&s->lock);
	free(s->output);
	free(s);
}

NPUPROF_EXPORT
int npuprof_session_stats(const struct npuprof_session *s,
			  struct npuprof_stats *stats)
{
	struct npuprof_session *ms = (struct npuprof_session *)s;
	size_t n;

	if (!s || !stats || stats->sz < sizeof(size_t) + sizeof(uint64_t))
		return -EINVAL;
	n = stats->sz < sizeof(*stats) ? stats->sz : sizeof(*stats);
	pthread_mutex_lock(&ms->lock);
	npf_sum_rings(ms);
	ms->st.bytes_written = __atomic_load_n(&ms->bytes, __ATOMIC_RELAXED);
	ms->st.chunks = __atomic_load_n(&ms->chunks, __ATOMIC_RELAXED);
	memcpy((char *)stats + sizeof(size_t), (const char *)&ms->st +
	       sizeof(size_t), n - sizeof(size_t));
	pthread_mutex_unlock(&ms->lock);
	return 0;
}

NPUPROF_EXPORT
const char *npuprof_session_output(const struct npuprof_session *s)
{
	return s->output;
}

/* ---- the session of the environment ---- */

static pthread_mutex_t npf_env_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npuprof_session *npf_env_sess;
static int npf_env_state;		/* 1 running, 0 not asked, <0 failed */
static pid_t npf_env_pid;		/* process that looked at the environment */

static void npf_env_exit(void)
{
	struct npuprof_session *s = npf_env_sess;
	struct npuprof_stats st = { .sz = sizeof(st) };

	if (!s || s->pid != getpid())
		return;
	npf_env_sess = NULL;
	npuprof_session_stop(s);
	npuprof_session_stats(s, &st);
	if (st.lost_ring || st.lost_device || st.lost_host || st.spans_lost)
		npf_log(&s->log, NPUPROF_LOG_WARN,
			"%s: lost %" PRIu64 " ring records, %" PRIu64 " device records, %" PRIu64 " untracked jobs, %" PRIu64 " host spans",
			s->output, st.lost_ring, st.lost_device, st.lost_host,
			st.spans_lost);
	npuprof_session_free(s);
}

static const int npf_fatal_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS,
};

/*
 * A fatal signal: ask the reader thread to complete the file, wait for it
 * a bounded time, then die of the signal as the program would have.
 * Only async-signal-safe calls here.
 */
static void npf_env_signal(int sig)
{
	struct npuprof_session *s = npf_env_sess;
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	int i;

	if (s && s->pid == getpid() && s->thr_started &&
	    !pthread_equal(pthread_self(), s->thr)) {
		npf_wake(s, 2);
		for (i = 0; i < 300 &&
		     !__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE); i++)
			nanosleep(&ts, NULL);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void npf_env_signals(void)
{
	struct sigaction sa, old;
	size_t i;

	for (i = 0; i < sizeof(npf_fatal_signals) / sizeof(int); i++) {
		/* never take a signal the program handles or ignores */
		if (sigaction(npf_fatal_signals[i], NULL, &old) ||
		    old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = npf_env_signal;
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(npf_fatal_signals[i], &sa, NULL);
	}
}

static int npf_env_uint(const char *name, unsigned long max,
			unsigned long *out)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return 0;
	errno = 0;
	*out = strtoul(v, &end, 10);
	if (errno || *end || *out > max) {
		fprintf(stderr, "npuprof: %s=%s: not a number in 0..%lu\n",
			name, v, max);
		return -EINVAL;
	}
	return 1;
}

/* Expand %p (pid) and %% in @pat, as LLVM_PROFILE_FILE does. */
static int npf_expand_path(const char *pat, char *out, size_t len)
{
	size_t o = 0;
	int n;

	for (; *pat; pat++) {
		if (pat[0] == '%' && pat[1] == 'p') {
			n = snprintf(out + o, len - o, "%d", (int)getpid());
			pat++;
		} else if (pat[0] == '%' && pat[1] == '%') {
			n = snprintf(out + o, len - o, "%%");
			pat++;
		} else {
			n = snprintf(out + o, len - o, "%c", *pat);
		}
		if (n < 0 || (size_t)n >= len - o)
			return -ENAMETOOLONG;
		o += (size_t)n;
	}
	return 0;
}

static int npf_env_create(void)
{
	const char *out = getenv("NPUPROF_OUTPUT_PATH");
	const char *devlist[NPF_MAX_DEVS + 1];
	struct npuprof_session *s;
	struct npuprof_opts o;
	char path[PATH_MAX];
	char devbuf[NPF_MAX_DEVS * 64];
	const char *devs;
	unsigned int n = 0;
	unsigned long v;
	int ret;

	if (!out || !*out)
		return 0;
	npuprof_opts_init(&o);
	ret = npf_expand_path(out, path, sizeof(path));
	if (ret)
		goto fail;
	o.output = path;
	ret = npf_env_uint("NPUPROF_LEVEL", 2, &v);
	if (ret < 0)
		goto fail;
	if (ret)
		o.level = (int)v;
	ret = npf_env_uint("NPUPROF_PAGES", NPF_MAX_RING_PAGES, &v);
	if (ret < 0)
		goto fail;
	if (ret)
		o.ring_pages = (unsigned int)v;
	ret = npf_env_uint("NPUPROF_ALL", 1, &v);
	if (ret < 0)
		goto fail;
	if (ret && v)
		o.flags |= NPUPROF_F_ALL_PROCESSES;
	devs = getenv("NPUPROF_DEVICES");
	if (devs) {
		/* comma-separated device nodes; empty: host spans only */
		char *p, *save = NULL;

		snprintf(devbuf, sizeof(devbuf), "%s", devs);
		for (p = strtok_r(devbuf, ",", &save); p && n < NPF_MAX_DEVS;
		     p = strtok_r(NULL, ",", &save))
			devlist[n++] = p;
		devlist[n] = NULL;
		o.devices = devlist;
	}
	ret = npuprof_session_create(&o, &s);
	if (ret)
		goto fail;
	ret = npuprof_session_start(s);
	if (ret) {
		npuprof_session_free(s);
		goto fail;
	}
	npf_env_sess = s;
	atexit(npf_env_exit);
	npf_env_signals();
	return 1;
fail:
	fprintf(stderr, "npuprof: NPUPROF_OUTPUT_PATH=%s: profiling not started: %s\n",
		out, strerror(-ret));
	return ret;
}

NPUPROF_EXPORT
int npuprof_env_start(void)
{
	int ret;

	pthread_mutex_lock(&npf_env_lock);
	if (!npf_env_pid) {
		npf_env_pid = getpid();
		npf_env_state = npf_env_create();
	} else if (npf_env_pid != getpid()) {
		/*
		 * A child forked by a profiled process: it must not truncate
		 * the parent's file. A program it executes starts afresh.
		 */
		npf_env_pid = getpid();
		npf_env_sess = NULL;
		npf_env_state = 0;
	}
	ret = npf_env_state;
	pthread_mutex_unlock(&npf_env_lock);
	return ret;
}
