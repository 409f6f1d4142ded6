// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_quota - device memory per open file (module parameter
 * max_file_dram_pct, Documentation/npu/uapi.rst "Device memory per file"):
 * one file fills its quota and gets EDQUOT while another file still
 * allocates; a buffer counts until its memory is freed, after BO_FREE and
 * close while a mapping holds it; a change of the parameter applies to the
 * next allocation; 0 lifts the limit; ENOMEM still means a full device.
 * Every test restores the parameter.
 */

#include <stdbool.h>

#include "kselftest_harness.h"
#include "npu_test.h"

#define QUOTA	"/sys/module/npu/parameters/max_file_dram_pct"
#define CHUNK	(1ull << 20)

FIXTURE(quota) {
	int fd;
	unsigned long long dram;
	unsigned long long saved;
	unsigned int *handles;
	unsigned int n;
};

static void set_quota(struct __test_metadata *_metadata, unsigned int pct)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", pct);
	ASSERT_EQ(0, npu_write_file(QUOTA, v));
}

/* Allocate CHUNK buffers on @fd until one fails; returns that error. */
static int fill(int fd, unsigned int *handles, unsigned int max,
		unsigned int *n)
{
	struct npu_bo_create c;
	int ret;

	for (;;) {
		ret = npu_bo_new(fd, CHUNK, &c);
		if (ret)
			return ret;
		if (*n == max)
			return -E2BIG;
		handles[(*n)++] = c.handle;
	}
}

FIXTURE_SETUP(quota)
{
	struct npu_info info;

	self->fd = -1;
	ASSERT_EQ(0, npu_read_u64(QUOTA, &self->saved));
	set_quota(_metadata, 50);
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	self->dram = info.dram_size;
	ASSERT_EQ(0, self->dram % (2 * CHUNK));
	self->handles = calloc(self->dram / CHUNK + 1, sizeof(*self->handles));
	ASSERT_NE(NULL, self->handles);
	self->n = 0;
}

FIXTURE_TEARDOWN(quota)
{
	char v[32];

	if (self->fd >= 0)
		close(self->fd);
	free(self->handles);
	snprintf(v, sizeof(v), "%llu", self->saved);
	npu_write_file(QUOTA, v);
}

/* The default: half of DRAM per file. */
TEST_F(quota, default_is_half)
{
	ASSERT_EQ(50, self->saved) TH_LOG("max_file_dram_pct was changed before the test");
}

/* One file stops at its quota with EDQUOT; another still allocates. */
TEST_F(quota, one_file_cannot_starve_another)
{
	unsigned int h2[4], n2 = 0;
	struct npu_bo_create c;
	int fd2;

	EXPECT_EQ(-EDQUOT, fill(self->fd, self->handles,
				self->dram / CHUNK, &self->n));
	EXPECT_EQ(self->dram / 2 / CHUNK, self->n);
	/* a page more does not fit either: the quota is exactly half */
	EXPECT_EQ(-EDQUOT, npu_bo_new(self->fd, 4096, &c));

	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(-E2BIG, fill(fd2, h2, 4, &n2));
	EXPECT_EQ(4, n2);
	close(fd2);

	/* a freed buffer makes room again */
	ASSERT_EQ(0, npu_bo_del(self->fd, self->handles[0]));
	EXPECT_EQ(0, npu_bo_new(self->fd, CHUNK, &c));
}

/* A buffer larger than the quota but not than DRAM: EDQUOT, not ENOMEM. */
TEST_F(quota, one_buffer_over_quota)
{
	struct npu_bo_create c;

	EXPECT_EQ(-EDQUOT, npu_bo_new(self->fd, self->dram / 2 + 4096, &c));
	EXPECT_EQ(0, npu_bo_new(self->fd, self->dram / 2, &c));
	EXPECT_EQ(0, npu_bo_del(self->fd, c.handle));
	/* larger than the device: ENOMEM as before */
	EXPECT_EQ(-ENOMEM, npu_bo_new(self->fd, self->dram + 4096, &c));
}

/*
 * A mapped buffer still counts after BO_FREE: its memory is not freed, so
 * the quota is not given back until munmap (or the file is closed: then
 * the charge leaves with the file's other buffers).
 */
TEST_F(quota, charge_lasts_until_memory_is_freed)
{
	struct npu_bo_create c, m;
	void *p;

	ASSERT_EQ(-EDQUOT, fill(self->fd, self->handles, self->dram / CHUNK,
				&self->n));
	ASSERT_LT(0, self->n);
	/* swap the last buffer for a mapped one whose handle is freed */
	ASSERT_EQ(0, npu_bo_del(self->fd, self->handles[--self->n]));
	ASSERT_EQ(0, npu_bo_new(self->fd, CHUNK, &m));
	p = npu_bo_map(self->fd, &m);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, npu_bo_del(self->fd, m.handle));
	/* the handle is gone, the memory is not: still at the quota */
	EXPECT_EQ(-EDQUOT, npu_bo_new(self->fd, CHUNK, &c));
	/* and closing the file does not free it either */
	close(self->fd);
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, npu_bo_new(self->fd, CHUNK, &c));
	EXPECT_EQ(0, munmap(p, CHUNK));
}

/* The parameter applies to the next allocation; 0 lifts the limit. */
TEST_F(quota, parameter_changes)
{
	struct npu_bo_create c;
	unsigned int i;

	ASSERT_EQ(-EDQUOT, fill(self->fd, self->handles, self->dram / CHUNK,
				&self->n));
	/* lowered below what is held: existing buffers stay, new ones fail */
	set_quota(_metadata, 10);
	EXPECT_EQ(-EDQUOT, npu_bo_new(self->fd, 4096, &c));
	for (i = 0; i < self->n; i++)
		EXPECT_EQ(0, npu_bo_del(self->fd, self->handles[i]));
	self->n = 0;
	EXPECT_EQ(-EDQUOT, fill(self->fd, self->handles, self->dram / CHUNK,
				&self->n));
	EXPECT_EQ(self->dram / 10 / CHUNK, self->n);

	/* no limit: the device fills up, and that is ENOMEM */
	set_quota(_metadata, 0);
	EXPECT_EQ(-ENOMEM, fill(self->fd, self->handles, self->dram / CHUNK,
				&self->n));
	EXPECT_EQ(self->dram / CHUNK, self->n);
}

/* An unprivileged process is held to the same quota. */
TEST_F(quota, unprivileged)
{
	pid_t pid;

	ASSERT_EQ(0, chmod(NPU_DEV, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned int n = 0;
		int fd;

		if (npu_drop_to_nobody())
			_exit(10);
		fd = npu_open();
		if (fd < 0)
			_exit(11);
		if (fill(fd, self->handles, self->dram / CHUNK, &n) != -EDQUOT)
			_exit(12);
		_exit(n == self->dram / 2 / CHUNK ? 0 : 13);
	}
	EXPECT_EQ(0, npu_wait_child(pid));
	chmod(NPU_DEV, 0660);
}

TEST_HARNESS_MAIN
