// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_device.c - npu-emu against a fake QEMU: ivshmem handshake, register
 * page, mailbox, clock latch, interrupts, control, bad peers and exit.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "clock.h"
#include "fakeqemu.h"

FIXTURE(dev)
{
	struct fq_emu t;
	struct fakeqemu q;
	struct npu_emu_opts o;
};

FIXTURE_SETUP(dev)
{
	npu_emu_opts_init(&self->o);
	ASSERT_EQ(0, fq_emu_start(&self->t, &self->o));
	ASSERT_EQ(0, fq_connect(&self->q, self->t.path, NPU_MSIX_COUNT));
}

FIXTURE_TEARDOWN(dev)
{
	fq_close(&self->q);
	fq_emu_stop(&self->t);
}

TEST_F(dev, handshake)
{
	struct stat st;

	EXPECT_EQ(0, self->q.version);
	EXPECT_EQ(NPU_EMU_QEMU_PEER, self->q.my_id);
	EXPECT_EQ(NPU_EMU_DEV_PEER, self->q.peer_id);
	EXPECT_EQ(NPU_MSIX_COUNT, self->q.n_irq);
	EXPECT_EQ(NPU_MSIX_COUNT, self->q.n_db);
	/* the shm is a power of two, page aligned */
	ASSERT_EQ(0, fstat(self->q.shm_fd, &st));
	EXPECT_EQ(128u << 20, (uint64_t)st.st_size);
	EXPECT_EQ(0, st.st_size & (st.st_size - 1));
	/* the temporary socket name is gone, the real one exists */
	EXPECT_EQ(0, stat(self->t.path, &st));
	EXPECT_TRUE(S_ISSOCK(st.st_mode));
}

TEST_F(dev, register_page_defaults)
{
	struct fakeqemu *q = &self->q;

	EXPECT_EQ(NPU_HW_MAGIC, fq_rd(q, NPU_REG_MAGIC));
	EXPECT_EQ(0x10000, fq_rd(q, NPU_REG_VERSION));
	EXPECT_EQ(NPU_CAP_TRACE | NPU_CAP_CLOCK_LATCH | NPU_CAP_MULTI_PE,
		  fq_rd(q, NPU_REG_CAPS));
	EXPECT_EQ(2, fq_rd(q, NPU_REG_PE_COUNT));
	EXPECT_EQ(1000000000u, fq_rd(q, NPU_REG_CLOCK_HZ));
	EXPECT_EQ(7, fq_rd(q, NPU_REG_TRACE_LEVELS));
	EXPECT_EQ(q->peer_id, fq_rd(q, NPU_REG_DB_TARGET));
	EXPECT_EQ(NPU_DB_COUNT, fq_rd(q, NPU_REG_DB_COUNT));
	EXPECT_EQ(0x400000, fq_rd(q, NPU_REG_DRAM_BASE));
	EXPECT_EQ(64u << 20, fq_rd(q, NPU_REG_DRAM_SIZE));
	EXPECT_EQ(0x10000, fq_rd(q, NPU_REG_CMDQ_BASE));
	EXPECT_EQ(0x4000, fq_rd(q, NPU_REG_CMDQ_STRIDE));
	EXPECT_EQ(64, fq_rd(q, NPU_REG_CMDQ_ENTRIES));
	EXPECT_EQ(0x50000, fq_rd(q, NPU_REG_CPLQ_BASE));
	EXPECT_EQ(1024, fq_rd(q, NPU_REG_CPLQ_ENTRIES));
	EXPECT_EQ(0x100000, fq_rd(q, NPU_REG_TRACE_BASE));
	EXPECT_EQ(1u << 20, fq_rd(q, NPU_REG_TRACE_SIZE));
	EXPECT_EQ(1u << 20, fq_rd(q, NPU_REG_SRAM_SIZE));
	EXPECT_EQ(2000, fq_rd(q, NPU_REG_DMA_BW));
	EXPECT_EQ(256, fq_rd(q, NPU_REG_MACS_PER_CYCLE));
	EXPECT_EQ(128u << 20, fq_rd(q, NPU_REG_BAR_SIZE));
	EXPECT_EQ(NPU_STATUS_READY, fq_rd(q, NPU_REG_STATUS));
	EXPECT_EQ(0, fq_rd(q, NPU_REG_CONTROL));
	EXPECT_EQ(0, fq_rd(q, NPU_REG_INTR_CAUSE));
	EXPECT_EQ(0, fq_rd(q, NPU_REG_ERROR));
	/* queue pointers start at 0/0 */
	EXPECT_EQ(0, fq_rd(q, 0x10000));
	EXPECT_EQ(0, fq_rd(q, 0x10040));
	EXPECT_EQ(0, fq_rd(q, 0x50000));
}

TEST(register_page_options)
{
	struct npu_emu_opts o;
	struct fq_emu t;
	struct fakeqemu q;
	struct stat st;

	npu_emu_opts_init(&o);
	o.pes = 1;
	o.dram_size = (60u << 20) - 4096;
	o.clock_hz = 123456789;
	o.dma_bw = 777;
	o.macs_per_cycle = 33;
	o.sram_size = 12345;
	o.trace_size = 8192;
	ASSERT_EQ(0, fq_emu_start(&t, &o));
	ASSERT_EQ(0, fq_connect(&q, t.path, NPU_MSIX_COUNT));
	ASSERT_EQ(0, fstat(q.shm_fd, &st));
	EXPECT_EQ(64u << 20, (uint64_t)st.st_size);
	EXPECT_EQ(NPU_CAP_TRACE | NPU_CAP_CLOCK_LATCH, fq_rd(&q, NPU_REG_CAPS));
	EXPECT_EQ(1, fq_rd(&q, NPU_REG_PE_COUNT));
	EXPECT_EQ(123456789, fq_rd(&q, NPU_REG_CLOCK_HZ));
	EXPECT_EQ((60u << 20) - 4096, fq_rd(&q, NPU_REG_DRAM_SIZE));
	EXPECT_EQ(777, fq_rd(&q, NPU_REG_DMA_BW));
	EXPECT_EQ(33, fq_rd(&q, NPU_REG_MACS_PER_CYCLE));
	EXPECT_EQ(12345, fq_rd(&q, NPU_REG_SRAM_SIZE));
	EXPECT_EQ(8192, fq_rd(&q, NPU_REG_TRACE_SIZE));
	EXPECT_EQ(64u << 20, fq_rd(&q, NPU_REG_BAR_SIZE));
	EXPECT_EQ(NPU_STATUS_READY, fq_rd(&q, NPU_REG_STATUS));
	fq_close(&q);
	EXPECT_EQ(0, fq_emu_stop(&t));
}

/*
 * --replug: after QEMU disconnects (hot-unplug), the device resets as at
 * power-up and serves the next connection.
 */
TEST(replug)
{
	struct npu_emu_opts o;
	struct fq_emu t;
	struct fakeqemu q;
	uint32_t result;
	uint64_t data;
	int i, ret;

	npu_emu_opts_init(&o);
	o.replug = true;
	ASSERT_EQ(0, fq_emu_start(&t, &o));
	ASSERT_EQ(0, fq_connect(&q, t.path, NPU_MSIX_COUNT));
	ASSERT_EQ(0, fq_control(&q, true, NPU_TRACE_OPS));
	EXPECT_TRUE(fq_rd(&q, NPU_REG_STATUS) & NPU_STATUS_ENABLED);
	fq_close(&q);

	/* the disconnect is seen asynchronously: until then, refused */
	for (i = 0; i < 200; i++) {
		ret = fq_connect(&q, t.path, NPU_MSIX_COUNT);
		if (!ret)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(NPU_STATUS_READY, fq_rd(&q, NPU_REG_STATUS));
	EXPECT_EQ(0, fq_rd(&q, NPU_REG_CONTROL));
	ASSERT_EQ(0, fq_mbox(&q, NPU_MBOX_PING, 0x1234, 1, &result, &data));
	EXPECT_EQ(NPU_MBOX_OK, result);
	EXPECT_EQ(0x1234, data);
	fq_close(&q);
	EXPECT_EQ(0, fq_emu_stop(&t));
}

TEST_F(dev, ping)
{
	uint64_t data, t, min = UINT64_MAX, total = 0;
	uint32_t result, seq;

	for (seq = 1; seq <= 50; seq++) {
		t = now_ns();
		ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING, 0xdead0000 + seq,
				     seq, &result, &data));
		t = now_ns() - t;
		total += t;
		min = t < min ? t : min;
		EXPECT_EQ(NPU_MBOX_OK, result);
		EXPECT_EQ(0xdead0000ull + seq, data);
		EXPECT_EQ(seq, fq_rd(&self->q, NPU_REG_MBOX_ACK));
		EXPECT_TRUE(fq_rd(&self->q, NPU_REG_INTR_CAUSE) & NPU_INTR_MBOX);
		__atomic_fetch_and((uint32_t *)(self->q.shm + NPU_REG_INTR_CAUSE),
				   ~NPU_INTR_MBOX, __ATOMIC_SEQ_CST);
	}
	/* informational only: never asserted */
	TH_LOG("ping round trip (host, ASan): min %lu ns, mean %lu ns",
		       (unsigned long)min, (unsigned long)(total / 50));
	/* no other vector fired */
	EXPECT_EQ(0, fq_irq_count(&self->q, NPU_MSIX_CPL));
	EXPECT_EQ(0, fq_irq_count(&self->q, NPU_MSIX_TRACE));
	EXPECT_EQ(0, fq_irq_count(&self->q, NPU_MSIX_ERROR));
}

TEST_F(dev, mbox_noirq_and_mask)
{
	uint32_t result;
	uint64_t data;

	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING | NPU_MBOX_F_NOIRQ, 42, 7,
			     &result, &data));
	EXPECT_EQ(NPU_MBOX_OK, result);
	EXPECT_EQ(42, data);
	/* the cause is set, but no MSI-X */
	EXPECT_TRUE(fq_rd(&self->q, NPU_REG_INTR_CAUSE) & NPU_INTR_MBOX);
	EXPECT_EQ(0, fq_wait_irq(&self->q, NPU_MSIX_MBOX, 100));

	/* masked: no MSI-X either */
	fq_wr(&self->q, NPU_REG_INTR_MASK, NPU_INTR_MBOX);
	fq_wr(&self->q, NPU_REG_MBOX_OP, NPU_MBOX_PING);
	fq_wr(&self->q, NPU_REG_MBOX_ARG, 43);
	fq_wr(&self->q, NPU_REG_MBOX_SEQ, 8);
	fq_ring(&self->q, NPU_DB_MBOX);
	while (fq_rd(&self->q, NPU_REG_MBOX_ACK) != 8)
		usleep(100);
	EXPECT_EQ(43, fq_rd(&self->q, NPU_REG_MBOX_DATA_LO));
	EXPECT_EQ(0, fq_wait_irq(&self->q, NPU_MSIX_MBOX, 100));
	/* unmasking raises nothing by itself; the next request does */
	fq_wr(&self->q, NPU_REG_INTR_MASK, 0);
	fq_ring(&self->q, NPU_DB_CONTROL);
	EXPECT_EQ(0, fq_wait_irq(&self->q, NPU_MSIX_MBOX, 100));
	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING, 44, 9, &result, &data));
	EXPECT_EQ(44, data);
}

TEST_F(dev, mbox_bad_requests)
{
	uint32_t result;
	uint64_t data;

	ASSERT_EQ(0, fq_mbox(&self->q, 0, 1, 1, &result, &data));
	EXPECT_EQ(NPU_MBOX_EINVAL, result);
	ASSERT_EQ(0, fq_mbox(&self->q, 0xffff, 1, 2, &result, &data));
	EXPECT_EQ(NPU_MBOX_EINVAL, result);
	/* unknown flag bits */
	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING | (1u << 20), 1, 3,
			     &result, &data));
	EXPECT_EQ(NPU_MBOX_EINVAL, result);
	/* the device still works */
	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING, 99, 4, &result, &data));
	EXPECT_EQ(NPU_MBOX_OK, result);
	EXPECT_EQ(99, data);
	/* a doorbell that does not exist (index 3) is ignored */
	fq_ring(&self->q, 3);
	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING, 100, 5, &result, &data));
	EXPECT_EQ(100, data);
}

TEST_F(dev, control_enable)
{
	uint32_t result;
	int i;

	fq_wr(&self->q, NPU_REG_CONTROL, NPU_CTRL_ENABLE |
	      (NPU_TRACE_OPS << NPU_CTRL_TRACE_SHIFT));
	fq_ring(&self->q, NPU_DB_CONTROL);
	/* a ping after the control doorbell orders the two */
	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING, 1, 1, &result, NULL));
	EXPECT_EQ(NPU_STATUS_READY | NPU_STATUS_ENABLED,
		  fq_rd(&self->q, NPU_REG_STATUS));
	fq_wr(&self->q, NPU_REG_CONTROL, 0);
	fq_ring(&self->q, NPU_DB_CONTROL);
	for (i = 0; i < 10000 && fq_rd(&self->q, NPU_REG_STATUS) !=
	     NPU_STATUS_READY; i++)
		usleep(100);
	EXPECT_EQ(NPU_STATUS_READY, fq_rd(&self->q, NPU_REG_STATUS));
}

/* Device clock read through the mailbox, bracketed by host times */
static int latch(struct fakeqemu *q, uint32_t seq, uint64_t *before,
		 uint64_t *tick, uint64_t *after)
{
	uint32_t result;
	int ret;

	*before = now_ns();
	ret = fq_mbox(q, NPU_MBOX_CLOCK_LATCH, 0, seq, &result, tick);
	*after = now_ns();
	if (!ret && result != NPU_MBOX_OK)
		ret = -EPROTO;
	return ret;
}

TEST_F(dev, clock_latch_monotonic)
{
	uint64_t b, a, t, prev = 0;
	uint32_t seq;

	for (seq = 1; seq <= 200; seq++) {
		ASSERT_EQ(0, latch(&self->q, seq, &b, &t, &a));
		if (seq > 1)
			EXPECT_LT(prev, t);
		prev = t;
	}
}

struct clk_case {
	uint64_t hz;
	uint64_t offset;
	double ppm;
};

static void check_clock(struct __test_metadata *_metadata,
			const struct clk_case *c)
{
	uint64_t b0, t0, a0, b1, t1, a1, created;
	struct npu_emu_opts o;
	struct fq_emu t;
	struct fakeqemu q;
	long double rate, lo, hi, d;

	npu_emu_opts_init(&o);
	o.clock_hz = c->hz;
	o.clock_offset = c->offset;
	o.clock_drift_ppm = c->ppm;
	created = now_ns();
	ASSERT_EQ(0, fq_emu_start(&t, &o));
	ASSERT_EQ(0, fq_connect(&q, t.path, NPU_MSIX_COUNT));
	ASSERT_EQ(0, latch(&q, 1, &b0, &t0, &a0));
	usleep(200000);
	ASSERT_EQ(0, latch(&q, 2, &b1, &t1, &a1));
	rate = (long double)c->hz / 1e9L * (1.0L + c->ppm / 1e6L);

	/* offset: the first sample lies between offset and the clock at a0 */
	d = (long double)(uint64_t)(t0 - c->offset);
	EXPECT_TRUE(d <= rate * (long double)(a0 - created) + 1)
		TH_LOG("t0 - offset = %.0Lf > %.0Lf", d,
		       rate * (long double)(a0 - created));
	/* rate: t1 - t0 within what the brackets allow, +-1 tick rounding */
	d = (long double)(t1 - t0);
	lo = rate * (long double)(b1 - a0) - 1;
	hi = rate * (long double)(a1 - b0) + 1;
	EXPECT_TRUE(d >= lo && d <= hi)
		TH_LOG("hz %lu ppm %f: %.0Lf ticks not in [%.0Lf, %.0Lf]",
		       (unsigned long)c->hz, c->ppm, d, lo, hi);
	fq_close(&q);
	EXPECT_EQ(0, fq_emu_stop(&t));
}

TEST(clock_frequency_offset_drift)
{
	static const struct clk_case cases[] = {
		{ 1000000000, 0, 0 },
		{ 100000000, 1000000000000ull, 0 },
		{ 100000000, 0, 50000 },
		{ 100000000, 0, -50000 },
		{ 19200000, UINT64_MAX - 1000, 100 },	/* wraps */
		{ 4294967295u, 123, -0.5 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_clock(_metadata, &cases[i]);
}

TEST(clock_arithmetic)
{
	struct emu_clock c;

	/* exact at 1 GHz, no drift */
	emu_clock_init(&c, 1000000000, 5, 0, 1000);
	EXPECT_EQ(5, emu_clock_at(&c, 1000));
	EXPECT_EQ(5 + 123456789012345ull, emu_clock_at(&c, 1000 + 123456789012345ull));
	/* before start: offset */
	EXPECT_EQ(5, emu_clock_at(&c, 10));
	/* 100 MHz: 10 ns per tick */
	emu_clock_init(&c, 100000000, 0, 0, 0);
	EXPECT_EQ(100000000, emu_clock_at(&c, 1000000000));
	EXPECT_EQ(0, emu_clock_at(&c, 9));
	EXPECT_EQ(1, emu_clock_at(&c, 10));
	/* +100 ppm at 1 GHz over 1 s: 100000 extra ticks */
	emu_clock_init(&c, 1000000000, 0, 100, 0);
	EXPECT_EQ(1000100000, emu_clock_at(&c, 1000000000));
	/* -250 ppm over 10 s */
	emu_clock_init(&c, 1000000000, 0, -250, 0);
	EXPECT_EQ(9997500000ull, emu_clock_at(&c, 10000000000ull));
	/* a year of uptime at 4 GHz does not overflow the intermediate */
	emu_clock_init(&c, 4000000000u, 0, 0, 0);
	EXPECT_EQ(31536000ull * 4000000000ull,
		  emu_clock_at(&c, 31536000ull * 1000000000ull));
	/* the counter wraps modulo 2^64 */
	emu_clock_init(&c, 1000000000, UINT64_MAX, 0, 0);
	EXPECT_EQ(1, emu_clock_at(&c, 2));
	/* ns for ticks rounds up */
	emu_clock_init(&c, 3, 0, 0, 0);
	EXPECT_EQ(333333334, emu_clock_ns_for_ticks(&c, 1));
}

TEST_F(dev, second_client_refused)
{
	int64_t val;
	int fd, sock, ret;
	uint32_t result;
	uint64_t data;

	sock = fq_connect_raw(self->t.path);
	ASSERT_LE(0, sock);
	/* the device closes it without a handshake */
	ret = fq_recv_msg(sock, &val, &fd);
	EXPECT_EQ(-ECONNRESET, ret);
	close(sock);
	/* the first client is still served */
	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING, 5, 1, &result, &data));
	EXPECT_EQ(5, data);
}

TEST_F(dev, client_garbage_ignored)
{
	char junk[300];
	uint32_t result;
	uint64_t data;

	memset(junk, 0xa5, sizeof(junk));
	ASSERT_EQ((ssize_t)sizeof(junk), send(self->q.sock, junk, sizeof(junk), 0));
	ASSERT_EQ(0, fq_mbox(&self->q, NPU_MBOX_PING, 6, 1, &result, &data));
	EXPECT_EQ(6, data);
}

TEST(client_disconnect_ends_run)
{
	struct npu_emu_opts o;
	struct fq_emu t;
	struct fakeqemu q;

	npu_emu_opts_init(&o);
	ASSERT_EQ(0, fq_emu_start(&t, &o));
	ASSERT_EQ(0, fq_connect(&q, t.path, NPU_MSIX_COUNT));
	fq_close(&q);
	pthread_join(t.thread, NULL);
	EXPECT_EQ(0, t.ret);
	/* fq_emu_stop() joins again: avoid it, destroy by hand */
	npu_emu_destroy(t.emu);
	EXPECT_NE(0, access(t.path, F_OK));
	rmdir(t.dir);
}

TEST(stale_and_busy_socket)
{
	char dir[64], path[128];
	struct npu_emu_opts o;
	struct npu_emu *e1, *e2;
	int fd;

	ASSERT_EQ(0, make_sock_path(dir, sizeof(dir), path, sizeof(path)));
	/* a stale socket file (nobody listens) is replaced */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		strcpy(sa.sun_path, path);
		ASSERT_EQ(0, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	}
	close(fd);
	npu_emu_opts_init(&o);
	o.socket_path = path;
	ASSERT_EQ(0, npu_emu_create(&o, &e1));
	/* a live one is not stolen */
	EXPECT_EQ(-EADDRINUSE, npu_emu_create(&o, &e2));
	npu_emu_destroy(e1);
	EXPECT_NE(0, access(path, F_OK));
	rmdir(dir);
}

/* The whole program in a child process: SIGTERM and disconnect exits */
static pid_t spawn_main(const char *path)
{
	pid_t pid = fork();

	if (!pid) {
		char *argv[] = { "npu-emu", "-s", (char *)path, NULL };

		_exit(npu_emu_main(3, argv));
	}
	return pid;
}

TEST(sigterm_exits_zero)
{
	char dir[64], path[128];
	int status, sig;
	pid_t pid;
	struct fakeqemu q;
	static const int sigs[] = { SIGTERM, SIGINT };

	for (sig = 0; sig < 2; sig++) {
		ASSERT_EQ(0, make_sock_path(dir, sizeof(dir), path, sizeof(path)));
		pid = spawn_main(path);
		ASSERT_LT(0, pid);
		ASSERT_TRUE(wait_for_path(path, 20000));
		if (sig) /* with a client connected too */
			ASSERT_EQ(0, fq_connect(&q, path, NPU_MSIX_COUNT));
		kill(pid, sigs[sig]);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
		EXPECT_NE(0, access(path, F_OK));
		if (sig)
			fq_close(&q);
		rmdir(dir);
	}
}

TEST(disconnect_exits_zero)
{
	char dir[64], path[128];
	struct fakeqemu q;
	uint32_t result;
	uint64_t data;
	int status;
	pid_t pid;

	ASSERT_EQ(0, make_sock_path(dir, sizeof(dir), path, sizeof(path)));
	pid = spawn_main(path);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(wait_for_path(path, 20000));
	ASSERT_EQ(0, fq_connect(&q, path, NPU_MSIX_COUNT));
	ASSERT_EQ(0, fq_mbox(&q, NPU_MBOX_PING, 11, 1, &result, &data));
	EXPECT_EQ(11, data);
	fq_close(&q);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_NE(0, access(path, F_OK));
	rmdir(dir);
}

TEST_HARNESS_MAIN
