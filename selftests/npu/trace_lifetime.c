// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_lifetime - device removal and module unload with trace fds open.
 *
 * A trace fd holds the device and the module. Unbinding the device makes
 * its ioctls fail with -ENODEV and poll() report POLLHUP | POLLERR, wakes
 * pollers, and leaves the mapped ring readable until munmap. rmmod fails
 * while a trace fd is open and works after close. Every test leaves npu.ko
 * loaded and bound. NPU_KO (set by npu-vm) is the module to reload.
 */

#include <pthread.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

static void check_dead_ring(struct __test_metadata *_metadata,
			    struct trace_ring *t)
{
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
	struct npu_trace_status ts;

	EXPECT_EQ(-ENODEV, trace_enable(t, 0));
	EXPECT_EQ(-ENODEV, trace_disable(t));
	EXPECT_EQ(-ENODEV, trace_status(t, &ts));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_EQ(NPU_TRACE_RING_F_DEAD, t->hdr->flags);
}

TEST(unbind_with_trace_open)
{
	struct trace_stats st = { 0 };
	struct trace_poller pl = { 0 };
	struct trace_ring t, idle;
	pthread_t th;
	uint64_t prod;
	char bdf[32];
	void *p;
	int fd;

	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	fd = npu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, trace_open(fd, 0, 2, 0, &t));
	/* A ring whose watermark is never reached: its poller sleeps. */
	ASSERT_EQ(0, trace_open(fd, 0, 1, 4000, &idle));
	ASSERT_EQ(0, trace_enable(&t, 0));
	ASSERT_EQ(0, trace_enable(&idle, 0));
	/* The trace fds alone keep the device instance alive. */
	ASSERT_EQ(0, close(fd));

	pl.fd = idle.fd;
	pl.timeout_ms = 20000;
	ASSERT_EQ(0, pthread_create(&th, NULL, trace_poller_main, &pl));
	usleep(100000);

	ASSERT_EQ(0, npu_unbind(bdf));
	ASSERT_EQ(0, npu_wait_path(NPU_DEV, 0, 5000));
	pthread_join(th, NULL);
	EXPECT_EQ(1, pl.ret);
	EXPECT_TRUE(pl.revents & POLLHUP);
	EXPECT_TRUE(pl.revents & POLLERR);

	check_dead_ring(_metadata, &t);
	check_dead_ring(_metadata, &idle);

	/* What was written before removal is still there and intact. */
	prod = t.hdr->producer;
	EXPECT_LE(sizeof(struct npu_trace_rec_clock), prod);
	ASSERT_LE(1, trace_consume(&t, &st, NULL, NULL));
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, st.bad);
	EXPECT_LE(1, st.by_type[NPU_TRACE_REC_CLOCK]);
	usleep(250000);
	EXPECT_EQ(prod, t.hdr->producer);

	/* A new mapping of the dead ring still works. */
	p = mmap(NULL, t.page, PROT_READ, MAP_SHARED, t.fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(prod, ((struct npu_trace_ring *)p)->producer);
	munmap(p, t.page);

	ASSERT_EQ(0, npu_rebind(bdf));
	/* The new instance knows nothing of the old rings. */
	fd = npu_open();
	ASSERT_LE(0, fd);
	check_dead_ring(_metadata, &t);
	trace_close(&t);
	trace_close(&idle);
	close(fd);
}

/* Unmapping only after close: the pages outlive the fd. */
TEST(mapping_outlives_fd_and_device)
{
	const struct npu_trace_rec_hdr *h;
	struct trace_ring t;
	char bdf[32];
	int fd;

	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	fd = npu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, trace_open(fd, 0, 1, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 0));
	close(fd);
	ASSERT_EQ(0, close(t.fd));
	t.fd = -1;
	ASSERT_EQ(0, npu_unbind(bdf));
	ASSERT_EQ(0, npu_wait_path(NPU_DEV, 0, 5000));
	h = (const void *)t.data;
	EXPECT_EQ(NPU_TRACE_REC_CLOCK, h->type);
	EXPECT_EQ(sizeof(struct npu_trace_rec_clock), h->size);
	EXPECT_EQ(NPU_TRACE_RING_VERSION, t.hdr->version);
	trace_close(&t);
	ASSERT_EQ(0, npu_rebind(bdf));
}

TEST(rmmod_with_trace_open)
{
	struct npu_trace_status ts;
	struct trace_ring t;
	int fd, ret;

	if (!getenv("NPU_KO"))
		SKIP(return, "NPU_KO is not set");
	fd = npu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, trace_open(fd, 0, 1, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 0));
	ASSERT_EQ(0, close(fd));

	/* The trace fd alone holds the module. */
	ret = npu_delete_module("npu");
	EXPECT_TRUE(ret == -EWOULDBLOCK || ret == -EBUSY)
		TH_LOG("delete_module with a trace fd open returned %d", ret);
	if (!ret) {
		trace_close(&t);
		npu_load_module();
		return;
	}
	/* Nothing changed for the ring. */
	EXPECT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(NPU_TRACE_RING_F_ENABLED, ts.flags);
	trace_close(&t);

	ASSERT_EQ(0, npu_delete_module("npu"));
	EXPECT_EQ(-ENOENT, npu_open());
	ASSERT_EQ(0, npu_load_module());
	fd = npu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, trace_open(fd, 0, 1, 0, &t));
	EXPECT_EQ(0, trace_enable(&t, 0));
	trace_close(&t);
	close(fd);
}

TEST(unbind_then_rmmod_with_trace_open)
{
	struct trace_ring t;
	char bdf[32];
	int fd, ret;

	if (!getenv("NPU_KO"))
		SKIP(return, "NPU_KO is not set");
	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	fd = npu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, trace_open(fd, 0, 1, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 0));
	close(fd);
	ASSERT_EQ(0, npu_unbind(bdf));
	check_dead_ring(_metadata, &t);
	/* The dead ring still pins the module. */
	ret = npu_delete_module("npu");
	EXPECT_TRUE(ret == -EWOULDBLOCK || ret == -EBUSY);
	trace_close(&t);
	if (ret) {
		ASSERT_EQ(0, npu_delete_module("npu"));
	}
	ASSERT_EQ(0, npu_load_module());
}

TEST_HARNESS_MAIN
