// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_unplug - PCI hot-unplug of the NPU through QEMU's monitor while jobs
 * run, a trace ring is enabled and mapped, buffers are mapped and files
 * are open; then hot-plug it back and use it. Needs npu-vm --monitor
 * (NPU_VM_MONITOR=1, npu-vm-monitor in PATH); skipped otherwise.
 *
 * After the unplug (Documentation/npu/driver.rst, "Hot-unplug"):
 *  - the jobs in flight come back ABORTED to their waiters, and every
 *    later ioctl of the old /dev/npu0 file and of its trace fd fails with
 *    ENODEV;
 *  - poll() reports POLLHUP | POLLERR on both;
 *  - the trace ring's mapping stays readable: the records written before
 *    the unplug, one EXEC record for every job submitted (those in flight
 *    completed just before, or ABORTED by remove()), and the DEAD flag in
 *    its header;
 *  - a buffer's mapping stays safe: it reads zeros (a page of RAM that
 *    replaced the device memory), and writes to it go nowhere;
 *  - closing everything afterwards works.
 * And every buffer of the old device gets its free (Documentation/npu/
 * ring.rst, "BO_ALLOC, BO_FREE"), checked against a level-1 ring enabled
 * before they were created and the tracepoint npu:npu_bo_free:
 *  - buffers whose handle was freed while a job held them are freed when
 *    remove() aborts the job (or when it completed just before): one
 *    BO_FREE record each, reason JOB, in the ring, which is still alive
 *    then, and one npu_bo_free event;
 *  - unmapped buffers held only by their handle, and mapped ones whose
 *    memory remove() replaced by a page of RAM, are freed at the last
 *    munmap() or close() after the unplug: no record (the ring is dead),
 *    but one npu_bo_free event each, reason CLOSE here;
 *  - the events' used figures count down to 0 from the device's memory
 *    counter before the unplug.
 * After device_add and npu-bind, a new /dev/npu0 runs a job, while the old
 * files still fail with ENODEV.
 */

#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#define JOB_BYTES	4096
#define JOB_OPS		16
#define SUBMITTERS	2
#define HELD		3	/* unmapped buffers held by a handle only */
#define LONG_OPS	1000	/* operators of the job that holds buffers */
#define LONG_BYTES	65536
/* the buffers followed: HELD, then the long job's, then the jobs' */
#define TRACKED		(HELD + 6)

/* Run one monitor command; 0 when it succeeded. */
static int monitor(const char *fmt, ...)
{
	char cmd[512], line[1024];
	va_list ap;
	size_t n;

	n = snprintf(line, sizeof(line), "npu-vm-monitor '");
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(line + n, sizeof(line) - n, "%s'", cmd);
	return system(line) ? -EIO : 0;
}

/*
 * The id of the NPU's chardev ("ivsh" at boot, "ivsh<pid>" after a replug
 * by this test): the line of "info chardev" that starts with "ivsh".
 */
static int npu_chardev(char *id, size_t len)
{
	FILE *f = popen("npu-vm-monitor 'info chardev'", "r");
	char line[256], *colon;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (ret && !strncmp(line, "ivsh", 4) && colon &&
		    (size_t)(colon - line) < len) {
			*colon = '\0';
			strcpy(id, line);
			ret = 0;
		}
	}
	pclose(f);
	return ret;
}

struct submitter {
	struct trace_jobs *j;
	pthread_mutex_t *lock;	/* the jobs share buffers: one at a time */
	int done;		/* jobs completed with status OK */
	int aborted;		/* jobs that came back ABORTED */
	int end;		/* the -errno that ended the loop */
	bool end_in_wait;	/* ... from NPU_IOCTL_WAIT: its job was in flight */
};

/* Submit and wait until the device goes; count the results. */
static void *submit_main(void *arg)
{
	struct submitter *s = arg;
	unsigned long long id;
	struct npu_wait w;
	int ret;

	for (;;) {
		pthread_mutex_lock(s->lock);
		ret = trace_job_submit(s->j, NPU_PE_ANY, &id);
		pthread_mutex_unlock(s->lock);
		if (ret)
			break;
		ret = npu_wait_job(s->j->fd, id, 0, 20000000000ll, &w);
		if (ret) {
			s->end_in_wait = true;
			break;
		}
		if (w.result.status == NPU_JOB_OK)
			s->done++;
		else if (w.result.status == NPU_JOB_ABORTED)
			s->aborted++;
		else
			break;
	}
	s->end = ret;
	return NULL;
}

/* Poll a trace fd for nothing but POLLHUP/POLLERR (always reported). */
static void *hup_main(void *arg)
{
	struct trace_poller *p = arg;
	struct pollfd pfd = { .fd = p->fd };

	p->ret = poll(&pfd, 1, p->timeout_ms);
	p->revents = pfd.revents;
	return NULL;
}

/* Read a mapping in a child: its exit status, 0 if every byte was zero. */
static int read_in_child(const volatile uint8_t *p, size_t len)
{
	pid_t pid = fork();
	size_t i;

	if (!pid) {
		for (i = 0; i < len; i++)
			if (p[i])
				_exit(1);
		/* and a write lands somewhere harmless */
		((volatile uint8_t *)p)[0] = 0x5a;
		_exit(0);
	}
	return npu_wait_child(pid);
}

static void count_rec(const struct npu_trace_rec_hdr *h, void *arg)
{
	const struct npu_trace_rec_exec *ex = (const void *)h;
	unsigned int *aborted = arg;

	if (h->type == NPU_TRACE_REC_EXEC && ex->status == NPU_JOB_ABORTED)
		(*aborted)++;
}

/* A buffer of the old device, and what the ring and ftrace say of it. */
struct tracked_bo {
	const struct npu_bo_create *c;
	uint32_t want_reason;	/* NPU_TRACE_BO_FREE_* */
	bool want_rec;		/* a BO_FREE record in the ring */
	uint64_t bo_id;		/* of its BO_ALLOC record, 0 before the ring */
	uint32_t kind;		/* ... and its kind */
	unsigned int recs;	/* BO_FREE records */
	uint32_t rec_reason;
	unsigned int events;	/* npu_bo_free events */
	uint64_t ev_bo_id;
	uint32_t ev_reason, ev_kind;
};

struct bo_log {
	struct tracked_bo *bo;
	unsigned int n;
	unsigned int stray;		/* BO records of no tracked buffer */
	unsigned long long job_id;	/* the long job */
	int job_status;			/* its EXEC record's, -1: none */
};

static void bo_rec(const struct npu_trace_rec_hdr *h, void *arg)
{
	const struct npu_trace_rec_exec *ex = (const void *)h;
	const struct npu_trace_rec_bo *b = (const void *)h;
	struct bo_log *l = arg;
	struct tracked_bo *t;
	unsigned int i;

	if (h->type == NPU_TRACE_REC_EXEC && ex->job_id == l->job_id)
		l->job_status = ex->status;
	if (h->type != NPU_TRACE_REC_BO_ALLOC &&
	    h->type != NPU_TRACE_REC_BO_FREE)
		return;
	for (i = 0; i < l->n; i++) {
		t = &l->bo[i];
		if (h->type == NPU_TRACE_REC_BO_ALLOC && !b->error &&
		    b->dev_addr == t->c->dev_addr && b->size == t->c->size) {
			t->bo_id = b->bo_id;
			t->kind = b->kind;
			return;
		}
		if (h->type == NPU_TRACE_REC_BO_FREE && t->bo_id &&
		    b->bo_id == t->bo_id) {
			t->recs++;
			t->rec_reason = b->reason;
			if (b->dev_addr != t->c->dev_addr ||
			    b->size != t->c->size || b->kind != t->kind ||
			    b->pid != getpid())
				l->stray++;
			return;
		}
	}
	l->stray++;
}

/*
 * The npu_bo_free events of ftrace's buffer @buf: each to its buffer (by
 * address: the old device allocates nothing once they exist); the used
 * figures must count down by each size from @used. Return: the events,
 * or -1 for one of no tracked buffer or a wrong count.
 */
static int bo_events(const char *buf, struct bo_log *l,
		     unsigned long long used)
{
	unsigned long long bo_id, addr, size, ev_used;
	unsigned int kind, reason, i;
	const char *p = buf;
	int dev, tgid, n = 0;

	while ((p = strstr(p, "npu_bo_free: "))) {
		if (sscanf(p, "npu_bo_free: npu%d bo=%llu addr=%llx size=%llu kind=%u tgid=%d reason=%u used=%llu",
			   &dev, &bo_id, &addr, &size, &kind, &tgid, &reason,
			   &ev_used) != 8)
			return -1;
		p++;
		for (i = 0; i < l->n; i++)
			if (l->bo[i].c->dev_addr == addr &&
			    l->bo[i].c->size == size)
				break;
		if (i == l->n || tgid != getpid() || size > used ||
		    ev_used != used - size)
			return -1;
		used = ev_used;
		l->bo[i].events++;
		l->bo[i].ev_bo_id = bo_id;
		l->bo[i].ev_reason = reason;
		l->bo[i].ev_kind = kind;
		n++;
	}
	return n;
}

FIXTURE(unplug) {
	char bdf[32];
	char devpath[96];
};

FIXTURE_SETUP(unplug)
{
	if (!npu_env_u64("NPU_VM_MONITOR", 0))
		SKIP(return, "no QEMU monitor (run with npu-vm --monitor)");
	ASSERT_EQ(0, npu_find_bdf(self->bdf, sizeof(self->bdf)));
	snprintf(self->devpath, sizeof(self->devpath),
		 "/sys/bus/pci/devices/%s", self->bdf);
}

FIXTURE_TEARDOWN(unplug)
{
}

TEST_F_TIMEOUT(unplug, while_busy_then_replug, 180)
{
	struct submitter sub[SUBMITTERS];
	pthread_t st[SUBMITTERS], pt;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct trace_poller poller;
	struct npu_trace_status tst;
	struct trace_stats stats;
	struct npu_info info;
	struct trace_ring ring;
	struct trace_jobs j, j2;
	struct npu_bo_create bo, held[HELD];
	static const char *const events[] = { "npu/npu_bo_free", NULL };
	static char tbuf[1 << 16];
	struct tracked_bo tb[TRACKED];
	struct bo_log bl = { .bo = tb, .n = TRACKED, .job_status = -1 };
	struct trace_ring bring;
	struct trace_jobs j3;
	unsigned long long used = 0, sum = 0;
	char record_cmd[8];
	bool tp;
	int fd3, nev;
	struct pollfd pfd[2];
	struct npu_wait w;
	unsigned int ring_aborted = 0;
	int fd, fd2, i, done = 0, aborted = 0, in_flight = 0;
	char chardev[32];
	long n;

	fd = npu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, trace_jobs_init(&j, fd, JOB_BYTES, JOB_OPS));
	ASSERT_EQ(0, trace_open(fd, 0, 512, 0, &ring));
	ASSERT_EQ(0, trace_enable(&ring, NPU_TRACE_OPS));

	/*
	 * The buffers whose frees come at the unplug, created with a level-1
	 * ring enabled (few records: it cannot fill): some held by their
	 * handle only, and those of a long job on another file, which will
	 * hold them alone.
	 */
	ASSERT_EQ(0, trace_open(fd, 0, 256, 0, &bring));
	ASSERT_EQ(0, trace_enable(&bring, NPU_TRACE_EXEC));
	for (i = 0; i < HELD; i++) {
		memset(&held[i], 0, sizeof(held[i]));
		held[i].size = 4096 * (i + 1);
		held[i].flags = NPU_BO_KIND(NPU_BO_KIND_INPUT + i);
		ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_BO_CREATE, &held[i]));
		tb[i] = (struct tracked_bo){ .c = &held[i],
			.want_reason = NPU_TRACE_BO_FREE_CLOSE };
	}
	fd3 = npu_open();
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, trace_jobs_init(&j3, fd3, LONG_BYTES, LONG_OPS));
	tb[HELD] = (struct tracked_bo){ .c = &j3.prog, .want_rec = true,
		.want_reason = NPU_TRACE_BO_FREE_JOB };
	tb[HELD + 1] = tb[HELD];
	tb[HELD + 1].c = &j3.in;
	tb[HELD + 2] = tb[HELD];
	tb[HELD + 2].c = &j3.out;
	/* the jobs' buffers, mapped at the unplug, created before the rings */
	tb[HELD + 3] = (struct tracked_bo){ .c = &j.prog,
		.want_reason = NPU_TRACE_BO_FREE_CLOSE };
	tb[HELD + 4] = tb[HELD + 3];
	tb[HELD + 4].c = &j.in;
	tb[HELD + 5] = tb[HELD + 3];
	tb[HELD + 5].c = &j.out;
	for (i = 0; i < TRACKED; i++)
		sum += tb[i].c->size;
	/* this guest runs this test alone: these are the device's buffers */
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/memory/used", &used));
	EXPECT_EQ(sum, used);
	tp = !access(TRACEFS "/events/npu/npu_bo_free", F_OK);
	if (tp) {
		ASSERT_EQ(0, tracefs_begin(events, record_cmd,
					   sizeof(record_cmd)));
	} else {
		TH_LOG("no tracefs or no npu events at " TRACEFS);
	}

	for (i = 0; i < SUBMITTERS; i++) {
		sub[i] = (struct submitter){ .j = &j, .lock = &lock };
		ASSERT_EQ(0, pthread_create(&st[i], NULL, submit_main, &sub[i]));
	}
	poller = (struct trace_poller){ .fd = ring.fd, .timeout_ms = 60000 };
	ASSERT_EQ(0, pthread_create(&pt, NULL, hup_main, &poller));

	/* jobs are flowing: some completed already */
	for (i = 0; i < 3000 && !(sub[0].done && sub[1].done); i++)
		usleep(10000);
	ASSERT_TRUE(sub[0].done && sub[1].done);

	/* the long job alone holds its buffers: no handle, no mapping */
	ASSERT_EQ(0, trace_job_submit(&j3, NPU_PE_ANY, &bl.job_id));
	munmap(j3.prog_map, j3.prog.size);
	munmap(j3.in_map, j3.in.size);
	munmap(j3.out_map, j3.out.size);
	ASSERT_EQ(0, npu_bo_del(fd3, j3.prog.handle));
	ASSERT_EQ(0, npu_bo_del(fd3, j3.in.handle));
	ASSERT_EQ(0, npu_bo_del(fd3, j3.out.handle));

	ASSERT_EQ(0, monitor("device_del npu0"));
	ASSERT_EQ(0, npu_wait_path(self->devpath, 0, 30000)) {
		TH_LOG("%s still present 30 s after device_del", self->devpath);
	}

	/* everyone blocked in the driver was woken with ENODEV */
	for (i = 0; i < SUBMITTERS; i++) {
		ASSERT_EQ(0, pthread_join(st[i], NULL));
		EXPECT_EQ(-ENODEV, sub[i].end);
		done += sub[i].done;
		aborted += sub[i].aborted;
		in_flight += sub[i].end_in_wait;
	}
	ASSERT_EQ(0, pthread_join(pt, NULL));
	EXPECT_EQ(1, poller.ret);
	EXPECT_TRUE(poller.revents & (POLLHUP | POLLERR));
	TH_LOG("%d jobs completed, %d collected as aborted, %d in flight at the unplug",
	       done, aborted, in_flight);

	/* every ioctl fails with ENODEV; poll() says hung up */
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(-ENODEV, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(-ENODEV, npu_bo_new(fd, 4096, &bo));
	EXPECT_EQ(-ENODEV, npu_bo_del(fd, j.in.handle));
	EXPECT_EQ(-ENODEV, trace_job_submit(&j, NPU_PE_ANY, NULL));
	EXPECT_EQ(-ENODEV, npu_wait_job(fd, 0, NPU_WAIT_ANY, 0, &w));
	EXPECT_EQ(-ENODEV, trace_status(&ring, &tst));
	EXPECT_EQ(-ENODEV, trace_enable(&ring, NPU_TRACE_EXEC));
	EXPECT_EQ(-ENODEV, trace_disable(&ring));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   j.in.mmap_offset));
	pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	pfd[1] = (struct pollfd){ .fd = ring.fd, .events = POLLIN };
	EXPECT_EQ(2, poll(pfd, 2, 0));
	EXPECT_TRUE(pfd[0].revents & POLLHUP);
	EXPECT_TRUE(pfd[1].revents & POLLHUP);

	/* the ring: readable, well formed, marked dead */
	EXPECT_TRUE(__atomic_load_n(&ring.hdr->flags, __ATOMIC_ACQUIRE) &
		    NPU_TRACE_RING_F_DEAD);
	memset(&stats, 0, sizeof(stats));
	n = trace_consume(&ring, &stats, count_rec, &ring_aborted);
	EXPECT_LT(0, n);
	EXPECT_EQ(0, stats.bad);
	EXPECT_EQ(0, stats.seq_errors);
	EXPECT_LT(0, stats.by_type[NPU_TRACE_REC_EXEC]);
	/*
	 * Every job submitted has its one EXEC record: those completed, and
	 * those in flight at the unplug (their waiters got ENODEV), which
	 * either completed just before or were failed by remove() as
	 * ABORTED; and the long job, never waited for. Unless the ring was
	 * full (then fewer, counted lost).
	 */
	TH_LOG("%u EXEC records, %u of them ABORTED",
	       (unsigned int)stats.by_type[NPU_TRACE_REC_EXEC], ring_aborted);
	if (!stats.lost[NPU_TRACE_LOST_RING_FULL])
		EXPECT_EQ(done + aborted + in_flight + 1,
			  stats.by_type[NPU_TRACE_REC_EXEC]);
	EXPECT_LE(stats.by_type[NPU_TRACE_REC_EXEC],
		  done + aborted + in_flight + 1);

	/* the buffers' mappings: zeros, no SIGBUS, writes harmless */
	EXPECT_EQ(0, read_in_child(j.in_map, j.in.size));
	EXPECT_EQ(0, read_in_child(j.out_map, j.out.size));
	EXPECT_EQ(0, read_in_child(j.prog_map, j.prog.size));

	/*
	 * The level-1 ring, dead now: the BO_ALLOC of every buffer created
	 * after it, and the BO_FREE of the long job's (whether remove()
	 * aborted the job or it completed just before), not of the others.
	 */
	EXPECT_TRUE(__atomic_load_n(&bring.hdr->flags, __ATOMIC_ACQUIRE) &
		    NPU_TRACE_RING_F_DEAD);
	memset(&stats, 0, sizeof(stats));
	EXPECT_LT(0, trace_consume(&bring, &stats, bo_rec, &bl));
	EXPECT_EQ(0, stats.bad);
	EXPECT_EQ(0, stats.seq_errors);
	EXPECT_EQ(0, stats.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(0, bl.stray);
	EXPECT_EQ(HELD + 3, stats.by_type[NPU_TRACE_REC_BO_ALLOC]);
	EXPECT_EQ(3, stats.by_type[NPU_TRACE_REC_BO_FREE]);
	TH_LOG("the job holding freed buffers: %s",
	       bl.job_status == NPU_JOB_ABORTED ? "aborted by remove()" :
	       bl.job_status == NPU_JOB_OK ? "completed before the unplug" :
	       "no EXEC record");
	EXPECT_TRUE(bl.job_status == NPU_JOB_ABORTED ||
		    bl.job_status == NPU_JOB_OK);
	for (i = 0; i < HELD + 3; i++) {
		EXPECT_NE(0, tb[i].bo_id) TH_LOG("buffer %d: no BO_ALLOC", i);
		EXPECT_EQ(tb[i].want_rec ? 1 : 0, tb[i].recs)
			TH_LOG("buffer %d: %u BO_FREE records", i, tb[i].recs);
		if (!tb[i].want_rec)
			continue;
		/*
		 * The job ends, then its buffers are freed; its EXEC record
		 * is delivered after its completion (ring.rst, "Delivery"),
		 * before or after these records.
		 */
		EXPECT_EQ(tb[i].want_reason, tb[i].rec_reason);
	}
	for (i = 0; i < HELD; i++)
		EXPECT_EQ(NPU_BO_KIND_INPUT + i, tb[i].kind);

	/*
	 * Plug it back in. The old chardev goes once QEMU has deleted the
	 * device; the new one needs an id QEMU never saw (a chardev given on
	 * its command line keeps its id reserved).
	 */
	ASSERT_EQ(0, npu_chardev(chardev, sizeof(chardev)));
	for (i = 0; i < 50; i++) {
		if (!monitor("chardev-remove %s", chardev))
			break;
		usleep(200000);
	}
	ASSERT_LT(i, 50);
	snprintf(chardev, sizeof(chardev), "ivsh%d", getpid());
	ASSERT_EQ(0, monitor("chardev-add socket,id=%s,path=%s", chardev,
			     getenv("NPU_VM_EMU_SOCK")));
	ASSERT_EQ(0, monitor("device_add ivshmem-doorbell,id=npu0,chardev=%s,vectors=4",
			     chardev));
	ASSERT_EQ(0, npu_wait_path(self->devpath, 1, 30000));
	ASSERT_EQ(0, system("npu-bind -q"));

	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, npu_ioctl(fd2, NPU_IOCTL_GET_INFO, &info));
	ASSERT_EQ(0, trace_jobs_init(&j2, fd2, JOB_BYTES, JOB_OPS));
	ASSERT_EQ(0, trace_job_run(&j2, NPU_PE_ANY, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	for (i = 0; i < JOB_BYTES; i++) {
		/* CLIP chain: clamp(in, 10 + op, 200) over JOB_OPS operators */
		int v = j2.in_map[i];
		int lo = 10 + JOB_OPS - 1;

		v = v < lo ? lo : v > 200 ? 200 : v;
		if (j2.out_map[i] != v)
			break;
	}
	EXPECT_EQ(JOB_BYTES, i);

	/* the old files never reach the new device */
	EXPECT_EQ(-ENODEV, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(-ENODEV, trace_status(&ring, &tst));

	/*
	 * The old device's last buffers go: the mapped ones at close(), after
	 * their munmap() (their handle is the last holder), the held ones at
	 * close(). The new device frees nothing before close(fd2).
	 */
	trace_close(&ring);
	trace_close(&bring);
	munmap(j.prog_map, j.prog.size);
	munmap(j.in_map, j.in.size);
	munmap(j.out_map, j.out.size);
	close(fd);
	close(fd3);
	if (tp) {
		ASSERT_LT(0, tracefs_end(events, record_cmd, tbuf,
					 sizeof(tbuf)));
		nev = bo_events(tbuf, &bl, used);
		EXPECT_EQ(TRACKED, nev) TH_LOG("%s", tbuf);
		for (i = 0; i < TRACKED; i++) {
			EXPECT_EQ(1, tb[i].events)
				TH_LOG("buffer %d: %u npu_bo_free events", i,
				       tb[i].events);
			EXPECT_EQ(tb[i].want_reason, tb[i].ev_reason)
				TH_LOG("buffer %d", i);
			if (tb[i].bo_id) {
				EXPECT_EQ(tb[i].bo_id, tb[i].ev_bo_id);
				EXPECT_EQ(tb[i].kind, tb[i].ev_kind);
			}
		}
		TH_LOG("%d npu_bo_free events of the old device, used down to 0 from %llu",
		       nev, used);
	}
	munmap(j2.prog_map, j2.prog.size);
	munmap(j2.in_map, j2.in.size);
	munmap(j2.out_map, j2.out.size);
	close(fd2);
}

TEST_HARNESS_MAIN
