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
	struct npu_bo_create bo;
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
	 * ABORTED. Unless the ring was full (then fewer, counted lost).
	 */
	TH_LOG("%u EXEC records, %u of them ABORTED",
	       (unsigned int)stats.by_type[NPU_TRACE_REC_EXEC], ring_aborted);
	if (!stats.lost[NPU_TRACE_LOST_RING_FULL])
		EXPECT_EQ(done + aborted + in_flight,
			  stats.by_type[NPU_TRACE_REC_EXEC]);
	EXPECT_LE(stats.by_type[NPU_TRACE_REC_EXEC], done + aborted + in_flight);

	/* the buffers' mappings: zeros, no SIGBUS, writes harmless */
	EXPECT_EQ(0, read_in_child(j.in_map, j.in.size));
	EXPECT_EQ(0, read_in_child(j.out_map, j.out.size));
	EXPECT_EQ(0, read_in_child(j.prog_map, j.prog.size));

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

	trace_close(&ring);
	munmap(j.prog_map, j.prog.size);
	munmap(j.in_map, j.in.size);
	munmap(j.out_map, j.out.size);
	close(fd);
	munmap(j2.prog_map, j2.prog.size);
	munmap(j2.in_map, j2.in.size);
	munmap(j2.out_map, j2.out.size);
	close(fd2);
}

TEST_HARNESS_MAIN
