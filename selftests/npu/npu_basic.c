// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_basic - probe, sysfs, NPU_IOCTL_GET_INFO, NPU_IOCTL_PING and bad
 * ioctl arguments. Runs in the npu-vm guest; the harness exports the
 * emulator's settings as NPU_EMU_PES, NPU_EMU_DRAM_SIZE, NPU_EMU_CLOCK_HZ.
 */

#include <sys/sysmacros.h>

#include "kselftest_harness.h"
#include "npu_test.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = npu_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", NPU_DEV, strerror(-self->fd));
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST(probe_char_device)
{
	char buf[64];
	unsigned int maj, min;
	struct stat st;

	ASSERT_EQ(0, stat(NPU_DEV, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	/* crw-rw---- root root: a udev rule grants it to a group. */
	EXPECT_EQ(0660, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
	/* The node is the misc device the driver registered. */
	ASSERT_EQ(0, npu_read_file(NPU_SYSFS "/dev", buf, sizeof(buf)));
	ASSERT_EQ(2, sscanf(buf, "%u:%u", &maj, &min));
	EXPECT_EQ(maj, major(st.st_rdev));
	EXPECT_EQ(min, minor(st.st_rdev));
	/* Bound to the npu PCI driver. */
	ASSERT_EQ(0, npu_read_file(NPU_SYSFS "/device/driver_override", buf,
				   sizeof(buf)));
	EXPECT_STREQ("npu", buf);
}

TEST(sysfs_values)
{
	unsigned long long v;
	char buf[64];

	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/pe_count", &v));
	EXPECT_EQ(npu_env_u64("NPU_EMU_PES", 2), v);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/clock_hz", &v));
	EXPECT_EQ(npu_env_u64("NPU_EMU_CLOCK_HZ", 1000000000), v);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/dram_size", &v));
	EXPECT_EQ(npu_env_u64("NPU_EMU_DRAM_SIZE", 64 << 20), v);
	ASSERT_EQ(0, npu_read_file(NPU_SYSFS "/hw_version", buf, sizeof(buf)));
	EXPECT_STREQ("1.0", buf);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/trace_levels", &v));
	/* Level 0 (off) is always supported. */
	EXPECT_EQ(1, v & 1);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/caps", &v));
	EXPECT_EQ(0, v & ~7ull);
}

TEST_F(dev, get_info)
{
	struct npu_info info;
	unsigned long long v;
	size_t i;

	memset(&info, 0, sizeof(info));
	info.version = 0xdead;	/* output only: ignored */
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(NPU_INFO_VERSION, info.version);
	EXPECT_EQ(0, info.flags);
	EXPECT_EQ(0x10000, info.hw_version);
	EXPECT_EQ(npu_env_u64("NPU_EMU_PES", 2), info.pe_count);
	EXPECT_EQ(npu_env_u64("NPU_EMU_CLOCK_HZ", 1000000000), info.clock_hz);
	EXPECT_EQ(npu_env_u64("NPU_EMU_DRAM_SIZE", 64 << 20), info.dram_size);
	EXPECT_LT(0, info.sram_size);
	EXPECT_LT(0, info.dma_bw);
	EXPECT_LT(0, info.macs_per_cycle);
	EXPECT_EQ(0, info.minor);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/trace_levels", &v));
	EXPECT_EQ(v, info.trace_levels);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/caps", &v));
	EXPECT_EQ(v, info.caps);
	if (info.pe_count > 1)
		EXPECT_TRUE(info.caps & NPU_INFO_CAP_MULTI_PE);
	for (i = 0; i < sizeof(info.reserved) / sizeof(info.reserved[0]); i++)
		EXPECT_EQ(0, info.reserved[i]);
}

TEST_F(dev, get_info_bad_args)
{
	struct npu_info info;

	memset(&info, 0, sizeof(info));
	info.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	memset(&info, 0, sizeof(info));
	info.reserved[7] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, NULL));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO,
				     (void *)16));
}

TEST_F(dev, bad_ioctl_cmd)
{
	char buf[512];

	memset(buf, 0, sizeof(buf));
	/* Unknown number, right type. */
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO(NPU_IOCTL_BASE, 0x7f), buf));
	/* Known number, wrong size. */
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IOWR(NPU_IOCTL_BASE, 0x00,
					   char[sizeof(struct npu_info) - 8]),
				     buf));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IOWR(NPU_IOCTL_BASE, 0x01,
					   char[sizeof(struct npu_ping) + 8]),
				     buf));
	/* Known number, wrong direction. */
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IOR(NPU_IOCTL_BASE, 0x00, struct npu_info),
				     buf));
	/* Another driver's type. */
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IOWR('x', 0x00, struct npu_info), buf));
}

TEST_F(dev, ping_bad_args)
{
	struct npu_ping p;

	memset(&p, 0, sizeof(p));
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_PING, &p));
	p.count = NPU_PING_MAX_COUNT + 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_PING, &p));
	p.count = 1;
	p.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_PING, &p));
	p.flags = 0;
	p.reserved[3] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_PING, &p));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_PING, NULL));
}

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

#define PING_SAMPLES 401

TEST_F(dev, ping_round_trip)
{
	static unsigned long long rt[PING_SAMPLES];
	unsigned long long t0, t1;
	struct npu_ping p;
	int i;

	/* One round trip per call: the distribution. */
	for (i = 0; i < PING_SAMPLES; i++) {
		memset(&p, 0, sizeof(p));
		p.count = 1;
		t0 = npu_now_ns();
		ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_PING, &p));
		t1 = npu_now_ns();
		ASSERT_EQ(p.min_ns, p.max_ns);
		ASSERT_EQ(p.min_ns, p.total_ns);
		ASSERT_LT(0, p.min_ns);
		/* The trip happened inside the system call. */
		ASSERT_GE(t1 - t0, p.min_ns);
		rt[i] = p.min_ns;
	}
	qsort(rt, PING_SAMPLES, sizeof(rt[0]), cmp_u64);
	TH_LOG("doorbell -> MSI-X round trip over %d trips: min %.1f us, median %.1f us, max %.1f us",
	       PING_SAMPLES, rt[0] / 1e3, rt[PING_SAMPLES / 2] / 1e3,
	       rt[PING_SAMPLES - 1] / 1e3);
	printf("# ping: trips=%d min_ns=%llu median_ns=%llu max_ns=%llu\n",
	       PING_SAMPLES, rt[0], rt[PING_SAMPLES / 2], rt[PING_SAMPLES - 1]);

	/* Many round trips in one call: the aggregate is consistent. */
	memset(&p, 0, sizeof(p));
	p.count = NPU_PING_MAX_COUNT;
	t0 = npu_now_ns();
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_PING, &p));
	t1 = npu_now_ns();
	EXPECT_EQ(NPU_PING_MAX_COUNT, p.count);
	EXPECT_LT(0, p.min_ns);
	EXPECT_LE(p.min_ns, p.max_ns);
	EXPECT_LE(p.min_ns * NPU_PING_MAX_COUNT, p.total_ns);
	EXPECT_GE(p.max_ns * NPU_PING_MAX_COUNT, p.total_ns);
	EXPECT_GE(t1 - t0, p.total_ns);
	printf("# ping x%d in one call: min_ns=%llu avg_ns=%llu max_ns=%llu\n",
	       NPU_PING_MAX_COUNT, p.min_ns, p.total_ns / NPU_PING_MAX_COUNT,
	       p.max_ns);
}

TEST(open_many)
{
	struct npu_info info;
	int fds[16];
	int i;

	for (i = 0; i < 16; i++) {
		fds[i] = npu_open();
		ASSERT_LE(0, fds[i]);
	}
	for (i = 0; i < 16; i++) {
		memset(&info, 0, sizeof(info));
		EXPECT_EQ(0, npu_ioctl(fds[i], NPU_IOCTL_GET_INFO, &info));
		close(fds[i]);
	}
}

/* Users outside the node's group cannot open it. */
TEST(node_refuses_others)
{
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (npu_drop_to_nobody())
			_exit(10);
		_exit(npu_open() == -EACCES ? 0 : 11);
	}
	EXPECT_EQ(0, npu_wait_child(pid));
}

TEST_HARNESS_MAIN
