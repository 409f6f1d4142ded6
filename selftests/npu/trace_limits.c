// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_limits - who pays for trace ring memory, and how much they may
 * have: each user's allowance (module parameter trace_mlock_kb), beyond it
 * RLIMIT_MEMLOCK on the user's locked memory unless CAP_IPC_LOCK, the
 * charge given back at close, and the memory cgroup of the opener (a
 * cgroup v2 group with a small memory.max, mounted by the test).
 * Documentation/npu/ring.rst is the contract.
 */

#include <sys/mount.h>
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#define MLOCK_PARAM	"trace_mlock_kb"
#define CG_MNT		"/tmp/npu-cgroup2"
#define CG_DIR		CG_MNT "/npu-trace-limits"
#define MAX_RINGS	64

/* In a forked child: report a failed check and exit with @code. */
#define CHILD_CHECK(cond, code) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "# %s:%d: child: %s failed\n",		\
			__FILE__, __LINE__, #cond);			\
		return (code);						\
	}								\
} while (0)

/* TRACE_OPEN without mapping: the trace fd, or -errno. */
static int ring_open_fd(int devfd, unsigned int data_pages)
{
	struct npu_trace_open op;
	int ret;

	memset(&op, 0, sizeof(op));
	op.data_pages = data_pages;
	ret = npu_ioctl(devfd, NPU_IOCTL_TRACE_OPEN, &op);
	return ret ? ret : op.fd;
}

/* A decimal field of /proc/self/fdinfo/@fd, or -1. */
static long long fdinfo_val(int fd, const char *key)
{
	char path[64], buf[2048], pat[64];
	const char *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(pat, sizeof(pat), "\n%s:\t", key);
	if (npu_read_file(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

static int set_memlock(unsigned long bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = bytes };

	return setrlimit(RLIMIT_MEMLOCK, &rl) ? -errno : 0;
}

FIXTURE(lim)
{
	int fd;
	long page;
	long long mlock_kb;	/* -1: no such parameter */
};

FIXTURE_SETUP(lim)
{
	unsigned long long v;

	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	self->page = getpagesize();
	self->mlock_kb = trace_param_get(MLOCK_PARAM, &v) ? -1 : (long long)v;
}

FIXTURE_TEARDOWN(lim)
{
	if (self->mlock_kb >= 0)
		trace_param_set(MLOCK_PARAM, self->mlock_kb);
	close(self->fd);
}

/* The allowance defaults to perf's perf_event_mlock_kb (516). */
TEST_F(lim, default_allowance)
{
	EXPECT_EQ(516, self->mlock_kb);
}

/*
 * As nobody, with @allow pages of allowance and an RLIMIT_MEMLOCK of
 * @rlim pages, rings of @per pages (header included) open until their
 * total passes allow + rlim; the allowance is used first. Closing one
 * makes room for exactly one again.
 */
static int mlock_child(int devfd, long page, unsigned int allow,
		       unsigned int rlim, unsigned int per)
{
	long long sum_allow = 0, sum_locked = 0;
	unsigned int want = (allow + rlim) / per;
	int fds[MAX_RINGS + 1], n, i;

	CHILD_CHECK(!set_memlock((unsigned long)rlim * page), 10);
	CHILD_CHECK(!npu_drop_to_nobody(), 11);
	for (n = 0; n < MAX_RINGS; n++) {
		fds[n] = ring_open_fd(devfd, per - 1);
		if (fds[n] < 0)
			break;
	}
	CHILD_CHECK(n == (int)want, 12);
	CHILD_CHECK(fds[n] == -EPERM, 13);
	for (i = 0; i < n; i++) {
		sum_allow += fdinfo_val(fds[i], "mlock_kb");
		sum_locked += fdinfo_val(fds[i], "locked_vm_kb");
	}
	CHILD_CHECK(sum_allow == allow * page / 1024, 14);
	CHILD_CHECK(sum_locked == (n * per - allow) * page / 1024, 15);

	close(fds[n - 1]);
	fds[n - 1] = ring_open_fd(devfd, per - 1);
	CHILD_CHECK(fds[n - 1] >= 0, 16);
	CHILD_CHECK(ring_open_fd(devfd, per - 1) == -EPERM, 17);
	CHILD_CHECK(ring_open_fd(devfd, NPU_TRACE_MAX_DATA_PAGES) == -EPERM,
		    18);
	for (i = 0; i < n; i++)
		close(fds[i]);
	return 0;
}

/*
 * An unprivileged user cannot pin more ring memory than its allowance
 * plus RLIMIT_MEMLOCK, however many trace fds it opens; everything is
 * given back at close (a second process of the same user gets as much).
 */
TEST_F(lim, mlock_limit_unprivileged)
{
	const unsigned int allow = 16, rlim = 16, per = 5;	/* pages */
	pid_t pid;
	int round;

	ASSERT_EQ(0, trace_param_set(MLOCK_PARAM, allow * self->page / 1024));
	for (round = 0; round < 2; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(mlock_child(self->fd, self->page, allow, rlim,
					  per));
		EXPECT_EQ(0, npu_wait_child(pid));
	}
}

static int exempt_child(int devfd, long page)
{
	int fd;

	CHILD_CHECK(!set_memlock(0), 20);
	/* Root keeps CAP_IPC_LOCK: no limit, but the charge is taken. */
	fd = ring_open_fd(devfd, 16);
	CHILD_CHECK(fd >= 0, 21);
	CHILD_CHECK(fdinfo_val(fd, "mlock_kb") == 0, 22);
	CHILD_CHECK(fdinfo_val(fd, "locked_vm_kb") == 17 * page / 1024, 23);
	close(fd);
	/* Without it, no allowance and no RLIMIT_MEMLOCK: nothing fits. */
	CHILD_CHECK(!npu_drop_to_nobody(), 24);
	CHILD_CHECK(ring_open_fd(devfd, 1) == -EPERM, 25);
	return 0;
}

TEST_F(lim, cap_ipc_lock_exempt)
{
	pid_t pid;

	ASSERT_EQ(0, trace_param_set(MLOCK_PARAM, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(exempt_child(self->fd, self->page));
	EXPECT_EQ(0, npu_wait_child(pid));
}

static long long cg_current(void)
{
	unsigned long long v;

	return npu_read_u64(CG_DIR "/memory.current", &v) ? -1 : (long long)v;
}

/*
 * Inside a group with memory.max 8 MiB: a 4 MiB ring is charged to the
 * group while it is open, a 16 MiB ring does not fit (ENOMEM).
 */
static int memcg_child(int devfd, long page)
{
	long long before, open, closed;
	int fd;

	CHILD_CHECK(!npu_write_file(CG_DIR "/cgroup.procs", "0"), 30);
	before = cg_current();
	fd = ring_open_fd(devfd, 1024);
	CHILD_CHECK(fd >= 0, 31);
	open = cg_current();
	close(fd);
	closed = cg_current();
	CHILD_CHECK(before >= 0 && open >= 0 && closed >= 0, 32);
	/* 1025 pages, less what per-CPU charge batches may hide. */
	CHILD_CHECK(open - before >= 768 * page, 33);
	CHILD_CHECK(open - closed >= 768 * page, 34);
	CHILD_CHECK(ring_open_fd(devfd, NPU_TRACE_MAX_DATA_PAGES) == -ENOMEM,
		    35);
	fd = ring_open_fd(devfd, 1);
	CHILD_CHECK(fd >= 0, 36);
	close(fd);
	return 0;
}

TEST_F(lim, memcg_charge_and_limit)
{
	char buf[256];
	pid_t pid;
	int fd;

	ASSERT_TRUE(mkdir(CG_MNT, 0755) == 0 || errno == EEXIST);
	ASSERT_EQ(0, mount("cgroup2", CG_MNT, "cgroup2", 0, NULL));
	ASSERT_EQ(0, npu_read_file(CG_MNT "/cgroup.controllers", buf,
				   sizeof(buf)));
	if (!strstr(buf, "memory")) {
		umount(CG_MNT);
		SKIP(return, "no memory controller");
	}
	ASSERT_EQ(0, npu_write_file(CG_MNT "/cgroup.subtree_control",
				    "+memory"));
	ASSERT_TRUE(mkdir(CG_DIR, 0755) == 0 || errno == EEXIST);
	ASSERT_EQ(0, npu_write_file(CG_DIR "/memory.max", "8M"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(memcg_child(self->fd, self->page));
	EXPECT_EQ(0, npu_wait_child(pid));
	EXPECT_EQ(0, rmdir(CG_DIR));
	EXPECT_EQ(0, umount(CG_MNT));

	/* Outside the group the same ring fits. */
	fd = ring_open_fd(self->fd, NPU_TRACE_MAX_DATA_PAGES);
	EXPECT_LE(0, fd);
	close(fd);
}

TEST_HARNESS_MAIN
