// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_timeout - job timeout, device reset and back-pressure with a PE that
 * never finishes. Needs the emulator started with --stall-pe N and
 * NPU_EMU_STALL_PE=N in the environment:
 *
 *   npu-vm --stall-pe 1 -- 'NPU_EMU_STALL_PE=1 npu_timeout'
 *
 * Without it every test is skipped. The tests lower the module parameter
 * job_timeout_ms and restore it.
 *
 * The wait_signal_storm tests check NPU_IOCTL_WAIT's rule for signals: the
 * time left is written back to timeout_ns, so retrying (or the kernel's
 * restart) ends at the first deadline with -ETIMEDOUT however many signals
 * arrive. They assert the results, not the time taken.
 */

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "kselftest_harness.h"
#include "npu_test.h"

#define N 4096
#define PARAM "/sys/module/npu/parameters/job_timeout_ms"

FIXTURE(stall) {
	int fd;
	int stalled;
	int good;		/* a PE that runs jobs, or -1 */
	unsigned long long saved_timeout;
	struct npu_info info;
	unsigned int h[3];
};

FIXTURE_SETUP(stall)
{
	struct npu_bo_create b[3];
	unsigned char *p;
	int i;

	self->fd = -1;
	self->stalled = (int)npu_env_u64("NPU_EMU_STALL_PE", ~0ull);
	if (self->stalled < 0)
		SKIP(return, "NPU_EMU_STALL_PE not set (run with npu-vm --stall-pe N)");
	ASSERT_EQ(0, npu_read_u64(PARAM, &self->saved_timeout));
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &self->info));
	ASSERT_LT(self->stalled, self->info.pe_count);
	self->good = self->info.pe_count > 1 ? (self->stalled + 1) %
		     self->info.pe_count : -1;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npu_bo_new(self->fd, N, &b[i]));
		self->h[i] = b[i].handle;
	}
	p = npu_bo_map(self->fd, &b[0]);
	ASSERT_NE(NULL, p);
	npu_clip_prog(p, N, 1, 2, 0, 255);
	munmap(p, N);
}

FIXTURE_TEARDOWN(stall)
{
	char buf[32];

	if (self->fd < 0)
		return;
	snprintf(buf, sizeof(buf), "%llu", self->saved_timeout);
	npu_write_file(PARAM, buf);
	close(self->fd);
}

/* The harness runs the test body even when the setup skipped. */
#define NEED_STALL() do { \
	if (self->fd < 0) \
		SKIP(return, "NPU_EMU_STALL_PE not set"); \
} while (0)

static int set_timeout_ms(unsigned int ms)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", ms);
	return npu_write_file(PARAM, buf);
}

static int sub(FIXTURE_DATA(stall) *self, int fd, unsigned int pe,
	       unsigned long long *id)
{
	return npu_submit_job(fd, pe, self->h, 3, 0, 0, NPU_CLIP_PROG_SIZE,
			      id);
}

TEST_F(stall, timeout_then_abort_then_recover)
{
	unsigned long long stuck, behind[3], other = 0, t0;
	struct npu_wait w;
	int i;

	NEED_STALL();

	ASSERT_EQ(0, set_timeout_ms(300));
	t0 = npu_now_ns();
	ASSERT_EQ(0, sub(self, self->fd, self->stalled, &stuck));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, sub(self, self->fd, self->stalled, &behind[i]));
	if (self->good >= 0)
		ASSERT_EQ(0, sub(self, self->fd, self->good, &other));

	/* Not done yet: polling and short waits time out. */
	EXPECT_EQ(-ETIMEDOUT, npu_wait_job(self->fd, stuck, 0, 0, &w));
	EXPECT_EQ(-ETIMEDOUT, npu_wait_job(self->fd, stuck, 0, 20000000, &w));

	ASSERT_EQ(0, npu_wait_job(self->fd, stuck, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_TIMEOUT, w.result.status);
	EXPECT_EQ(self->stalled, w.result.pe);
	/* It waited at least the timeout. */
	EXPECT_LE(300000000ull, w.result.complete_ns - w.result.submit_ns);
	EXPECT_LE(t0, w.result.submit_ns);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npu_wait_job(self->fd, behind[i], 0, -1, &w));
		EXPECT_EQ(NPU_JOB_ABORTED, w.result.status);
	}
	if (self->good >= 0) {
		/* Finished long before the reset, or aborted by it. */
		ASSERT_EQ(0, npu_wait_job(self->fd, other, 0, -1, &w));
		EXPECT_TRUE(w.result.status == NPU_JOB_OK ||
			    w.result.status == NPU_JOB_ABORTED);

		/* After the reset the other PEs work. */
		ASSERT_EQ(0, sub(self, self->fd, self->good, &other));
		ASSERT_EQ(0, npu_wait_job(self->fd, other, 0, -1, &w));
		EXPECT_EQ(NPU_JOB_OK, w.result.status);
	}
}

/* A queue that is full blocks, or fails with -EAGAIN under O_NONBLOCK. */
TEST_F(stall, full_queue_nonblock)
{
	struct pollfd pfd;
	struct npu_wait w;
	unsigned int i, queued = 0, timeouts = 0, aborted = 0;
	int ret;

	NEED_STALL();

	/* No timeout while we fill the stalled PE's queue. */
	ASSERT_EQ(0, set_timeout_ms(0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < 100000; i++) {
		ret = sub(self, self->fd, self->stalled, NULL);
		if (ret)
			break;
		queued++;
	}
	EXPECT_EQ(-EAGAIN, ret);
	/* 64 entries per queue in the emulator; the driver may cap lower. */
	EXPECT_LT(1, queued);
	EXPECT_GE(65536, queued);
	pfd.fd = self->fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	/* Enabling the timeout resets the device on the next check. */
	ASSERT_EQ(0, set_timeout_ms(100));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, 0));
	if (self->good >= 0) {
		unsigned long long id;

		/* Arms the timeout check. */
		ASSERT_EQ(0, sub(self, self->fd, self->good, &id));
		queued++;
	} else {
		/* Only one PE: a blocking submit waits for the reset. */
		ASSERT_EQ(0, sub(self, self->fd, self->stalled, NULL));
		queued++;
	}
	for (i = 0; i < queued; i++) {
		ASSERT_EQ(0, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, -1, &w));
		timeouts += w.result.status == NPU_JOB_TIMEOUT;
		aborted += w.result.status == NPU_JOB_ABORTED;
	}
	EXPECT_LE(1, timeouts);
	EXPECT_LE(queued - 2 - timeouts, aborted);
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, 0, &w));
}

/* Closing a file whose job is stuck: the reset still cleans up. */
TEST_F(stall, close_with_stuck_job)
{
	unsigned int h[3];
	struct npu_bo_create b[3];
	unsigned long long id;
	struct npu_wait w;
	unsigned char *p;
	int fd, i;

	NEED_STALL();

	ASSERT_EQ(0, set_timeout_ms(200));
	fd = npu_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npu_bo_new(fd, N, &b[i]));
		h[i] = b[i].handle;
	}
	p = npu_bo_map(fd, &b[0]);
	ASSERT_NE(NULL, p);
	npu_clip_prog(p, N, 1, 2, 0, 255);
	munmap(p, N);
	ASSERT_EQ(0, npu_submit_job(fd, self->stalled, h, 3, 0, 0,
				    NPU_CLIP_PROG_SIZE, NULL));
	close(fd);
	/* Our own job behind it on the same PE is aborted by the reset. */
	ASSERT_EQ(0, sub(self, self->fd, self->stalled, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
	EXPECT_TRUE(w.result.status == NPU_JOB_ABORTED ||
		    w.result.status == NPU_JOB_TIMEOUT);
}

/* ---- signals during a timed wait ---- */

static volatile sig_atomic_t sig_hits;

static void on_sigusr1(int sig)
{
	sig_hits++;
}

struct storm {
	pthread_t target;
	pthread_t thread;
	volatile int stop;
};

static void *storm_main(void *arg)
{
	struct storm *st = arg;

	while (!st->stop) {
		pthread_kill(st->target, SIGUSR1);
		usleep(100);
	}
	return NULL;
}

/* SIGUSR1 at the calling thread every 100 us; @sa_flags 0 or SA_RESTART. */
static int storm_start(struct storm *st, int sa_flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sa.sa_flags = sa_flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return -errno;
	sig_hits = 0;
	st->target = pthread_self();
	st->stop = 0;
	return -pthread_create(&st->thread, NULL, storm_main, st);
}

static void storm_stop(struct storm *st)
{
	st->stop = 1;
	pthread_join(st->thread, NULL);
}

/*
 * Queue job *@id on the stalled PE with the job timeout off (only a wait's
 * own timeout ends a wait), then start a storm with @sa_flags.
 */
static void start_stalled_storm(struct __test_metadata *_metadata,
				FIXTURE_DATA(stall) *self, int sa_flags,
				unsigned long long *id, struct storm *st)
{
	ASSERT_EQ(0, set_timeout_ms(0));
	ASSERT_EQ(0, sub(self, self->fd, self->stalled, id));
	ASSERT_EQ(0, storm_start(st, sa_flags));
}

/*
 * The stalled job @id is still pending. End it: with the job timeout back
 * on, one more job on the stalled PE arms the check, and the reset fails
 * both.
 */
static void end_stalled(struct __test_metadata *_metadata,
			FIXTURE_DATA(stall) *self, unsigned long long id)
{
	unsigned long long id2;
	struct npu_wait w;

	EXPECT_EQ(-ETIMEDOUT, npu_wait_job(self->fd, id, 0, 0, &w));
	ASSERT_EQ(0, set_timeout_ms(100));
	ASSERT_EQ(0, sub(self, self->fd, self->stalled, &id2));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_TIMEOUT, w.result.status);
	ASSERT_EQ(0, npu_wait_job(self->fd, id2, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_ABORTED, w.result.status);
}

#define STORM_WAIT_NS	50000000ll	/* 50 ms */

/*
 * No SA_RESTART: every signal fails the wait with -EINTR and the kernel
 * writes the time left back. Retrying with the same struct, the time
 * left only goes down and the wait ends with -ETIMEDOUT; the job is still
 * pending. (Before, timeout_ns came back unchanged and the retries went
 * on for as long as the signals did.)
 */
TEST_F(stall, wait_signal_storm_retry)
{
	long long prev = STORM_WAIT_NS;
	unsigned int eintr = 0;
	unsigned long long id;
	bool shrank = true;
	struct npu_wait w;
	struct storm st;
	int ret;

	NEED_STALL();

	start_stalled_storm(_metadata, self, 0, &id, &st);
	memset(&w, 0, sizeof(w));
	w.job_id = id;
	w.timeout_ns = STORM_WAIT_NS;
	for (;;) {
		ret = npu_ioctl(self->fd, NPU_IOCTL_WAIT, &w);
		if (ret != -EINTR)
			break;
		eintr++;
		if (w.timeout_ns < 0 || w.timeout_ns >= prev) {
			shrank = false;
			break;
		}
		prev = w.timeout_ns;
	}
	storm_stop(&st);

	EXPECT_EQ(-ETIMEDOUT, ret);
	/* Each -EINTR came with less time left than the one before. */
	EXPECT_TRUE(shrank) {
		TH_LOG("-EINTR %u: timeout_ns %lld, was %lld", eintr,
		       (long long)w.timeout_ns, prev);
	}
	/* The storm did interrupt the wait. */
	EXPECT_LT(0, eintr);
	EXPECT_LT(0, sig_hits);
	end_stalled(_metadata, self, id);
}

/*
 * SA_RESTART: the kernel restarts the call with the time left it wrote
 * back, so one ioctl() ends with -ETIMEDOUT under the storm. (Before, it
 * failed with -EINTR at the first signal.)
 */
TEST_F(stall, wait_signal_storm_restart)
{
	unsigned long long id;
	struct npu_wait w;
	struct storm st;
	int ret;

	NEED_STALL();

	start_stalled_storm(_metadata, self, SA_RESTART, &id, &st);
	ret = npu_wait_job(self->fd, id, 0, STORM_WAIT_NS, &w);
	storm_stop(&st);

	EXPECT_EQ(-ETIMEDOUT, ret);
	EXPECT_LT(0, sig_hits);
	EXPECT_GE(STORM_WAIT_NS, w.timeout_ns);
	EXPECT_LE(0, w.timeout_ns);
	end_stalled(_metadata, self, id);
}

/* A wait without a timeout keeps timeout_ns as it was. */
TEST_F(stall, wait_signal_forever_untouched)
{
	unsigned long long id;
	struct npu_wait w;
	struct storm st;
	int ret;

	NEED_STALL();

	start_stalled_storm(_metadata, self, 0, &id, &st);
	ret = npu_wait_job(self->fd, id, 0, -1, &w);
	storm_stop(&st);

	EXPECT_EQ(-EINTR, ret);
	EXPECT_EQ(-1, w.timeout_ns);
	end_stalled(_metadata, self, id);
}

TEST_HARNESS_MAIN
