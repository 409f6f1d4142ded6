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
 */

#include <poll.h>

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
	EXPECT_EQ(NPU_JOB_TIMEOUT, w.status);
	EXPECT_EQ(self->stalled, w.pe);
	/* It waited at least the timeout. */
	EXPECT_LE(300000000ull, w.complete_ns - w.submit_ns);
	EXPECT_LE(t0, w.submit_ns);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npu_wait_job(self->fd, behind[i], 0, -1, &w));
		EXPECT_EQ(NPU_JOB_ABORTED, w.status);
	}
	if (self->good >= 0) {
		/* Finished long before the reset, or aborted by it. */
		ASSERT_EQ(0, npu_wait_job(self->fd, other, 0, -1, &w));
		EXPECT_TRUE(w.status == NPU_JOB_OK ||
			    w.status == NPU_JOB_ABORTED);

		/* After the reset the other PEs work. */
		ASSERT_EQ(0, sub(self, self->fd, self->good, &other));
		ASSERT_EQ(0, npu_wait_job(self->fd, other, 0, -1, &w));
		EXPECT_EQ(NPU_JOB_OK, w.status);
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
		timeouts += w.status == NPU_JOB_TIMEOUT;
		aborted += w.status == NPU_JOB_ABORTED;
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
	EXPECT_TRUE(w.status == NPU_JOB_ABORTED ||
		    w.status == NPU_JOB_TIMEOUT);
}

TEST_HARNESS_MAIN
