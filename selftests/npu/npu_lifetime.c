// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_lifetime - device removal and module unload with files open.
 *
 * Unbinding the PCI function with an fd open must leave the fd usable only
 * for close (-ENODEV everywhere else); rmmod with an fd open must fail
 * cleanly and succeed after close. Every test leaves npu.ko loaded and
 * bound, as it found it. NPU_KO (set by npu-vm) is the module to reload.
 */

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test.h"

static void check_dead_fd(struct __test_metadata *_metadata, int fd)
{
	struct npu_info info;
	struct npu_ping ping;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	void *p;

	memset(&info, 0, sizeof(info));
	EXPECT_EQ(-ENODEV, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	memset(&ping, 0, sizeof(ping));
	ping.count = 1;
	EXPECT_EQ(-ENODEV, npu_ioctl(fd, NPU_IOCTL_PING, &ping));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	EXPECT_TRUE(pfd.revents & POLLERR);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
}

TEST(unbind_with_fd_open)
{
	struct npu_info info;
	char bdf[32];
	int fd, fd2;

	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	fd = npu_open();
	ASSERT_LE(0, fd);
	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));

	ASSERT_EQ(0, npu_unbind(bdf));
	ASSERT_EQ(0, npu_wait_path(NPU_DEV, 0, 5000));
	check_dead_fd(_metadata, fd);
	check_dead_fd(_metadata, fd2);
	EXPECT_EQ(0, close(fd2));

	/* A new device instance comes up while the old fd is still open. */
	ASSERT_EQ(0, npu_rebind(bdf));
	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, npu_ioctl(fd2, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(0, info.minor);
	/* The old fd still belongs to the removed instance. */
	check_dead_fd(_metadata, fd);
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0, close(fd2));
}

struct pinger {
	int fd;
	volatile int stop;
	int ok;
	int enodev;
	int other;
	int last_err;
};

static void *pinger_main(void *arg)
{
	struct pinger *pg = arg;
	struct npu_ping p;
	int ret;

	while (!pg->stop) {
		memset(&p, 0, sizeof(p));
		p.count = 16;
		ret = npu_ioctl(pg->fd, NPU_IOCTL_PING, &p);
		if (!ret) {
			pg->ok++;
		} else if (ret == -ENODEV) {
			pg->enodev++;
			break;
		} else {
			pg->other++;
			pg->last_err = ret;
			break;
		}
	}
	return NULL;
}

/* Unbind while other threads sleep in the mailbox wait. */
TEST(unbind_during_ping)
{
	struct pinger pg[3];
	pthread_t th[3];
	char bdf[32];
	int i, fd;

	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	fd = npu_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 3; i++) {
		memset(&pg[i], 0, sizeof(pg[i]));
		pg[i].fd = fd;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, pinger_main, &pg[i]));
	}
	/* Let them get going. */
	while (!pg[0].ok || !pg[1].ok || !pg[2].ok)
		usleep(1000);
	ASSERT_EQ(0, npu_unbind(bdf));
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(1, pg[i].enodev);
		EXPECT_EQ(0, pg[i].other) TH_LOG("pinger %d: error %d", i,
						 pg[i].last_err);
	}
	check_dead_fd(_metadata, fd);
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(0, npu_rebind(bdf));
}

struct any_waiter {
	int fd;
	int ok;
	int last;
};

static void *any_waiter_main(void *arg)
{
	struct any_waiter *a = arg;
	struct npu_wait w;

	for (;;) {
		a->last = npu_wait_job(a->fd, 0, NPU_WAIT_ANY, -1, &w);
		if (a->last)
			break;
		a->ok++;
	}
	return NULL;
}

/*
 * Unbind with jobs queued, a thread in NPU_IOCTL_WAIT and buffers mapped:
 * the waiter gets -ENODEV, the mappings read zeros instead of the device
 * memory (no SIGBUS), and munmap and close still work.
 */
TEST(unbind_with_jobs_and_mappings)
{
	struct npu_bo_create b[3];
	struct any_waiter a = { 0 };
	unsigned char *map[3];
	unsigned int h[3], i;
	pthread_t th;
	struct npu_wait w;
	char bdf[32];
	int fd, status;
	pid_t pid;

	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	fd = npu_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npu_bo_new(fd, 1 << 20, &b[i]));
		h[i] = b[i].handle;
		map[i] = npu_bo_map(fd, &b[i]);
		ASSERT_NE(NULL, map[i]);
	}
	npu_clip_prog(map[0], 1 << 20, 1, 2, 0, 255);
	memset(map[1], 0x11, 1 << 20);
	for (i = 0; i < 200; i++)
		ASSERT_EQ(0, npu_submit_job(fd, NPU_PE_ANY, h, 3, 0, 0,
					    NPU_CLIP_PROG_SIZE, NULL));
	a.fd = fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, any_waiter_main, &a));

	ASSERT_EQ(0, npu_unbind(bdf));
	pthread_join(th, NULL);
	EXPECT_EQ(-ENODEV, a.last);
	EXPECT_GT(200, a.ok);
	check_dead_fd(_metadata, fd);
	EXPECT_EQ(-ENODEV, npu_wait_job(fd, 0, NPU_WAIT_ANY, 0, &w));
	EXPECT_EQ(-ENODEV, npu_submit_job(fd, NPU_PE_ANY, h, 3, 0, 0,
					  NPU_CLIP_PROG_SIZE, NULL));

	/*
	 * The device memory is gone from under the mapping: it held 0x11,
	 * and now reads as zeros (driver.rst, "Lifetime").
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		volatile unsigned char *p = map[1];

		_exit(p[0] == 0 && p[(1 << 20) - 1] == 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	if (WIFEXITED(status))
		EXPECT_EQ(0, WEXITSTATUS(status));

	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, munmap(map[i], 1 << 20));
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(0, npu_rebind(bdf));
}

struct submitter {
	volatile int done_jobs;
	int last;
	int setup_err;
};

/* Own file and buffers; submit and collect until the device goes away. */
static void *submitter_main(void *arg)
{
	struct submitter *s = arg;
	struct npu_bo_create b[3];
	unsigned long long id;
	unsigned int h[3], i;
	struct npu_wait w;
	unsigned char *p;
	int fd;

	fd = npu_open();
	if (fd < 0) {
		s->setup_err = fd;
		return NULL;
	}
	for (i = 0; i < 3; i++) {
		s->setup_err = npu_bo_new(fd, 65536, &b[i]);
		if (s->setup_err)
			goto out;
		h[i] = b[i].handle;
	}
	p = npu_bo_map(fd, &b[0]);
	if (!p) {
		s->setup_err = -errno;
		goto out;
	}
	npu_clip_prog(p, 65536, 1, 2, 0, 255);
	for (;;) {
		for (i = 0; i < 4; i++) {
			s->last = npu_submit_job(fd, NPU_PE_ANY, h, 3, 0, 0,
						 NPU_CLIP_PROG_SIZE, &id);
			if (s->last)
				goto unmap;
		}
		for (i = 0; i < 4; i++) {
			s->last = npu_wait_job(fd, 0, NPU_WAIT_ANY, -1, &w);
			if (s->last)
				goto unmap;
			s->done_jobs++;
		}
	}
unmap:
	munmap(p, 65536);
out:
	close(fd);
	return NULL;
}

TEST(unbind_during_submit)
{
	struct submitter s[3];
	pthread_t th[3];
	char bdf[32];
	int i;

	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	memset(s, 0, sizeof(s));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, submitter_main, &s[i]));
	for (i = 0; i < 3; i++)
		while (!s[i].done_jobs && !s[i].setup_err && !s[i].last)
			usleep(1000);
	ASSERT_EQ(0, npu_unbind(bdf));
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, s[i].setup_err);
		EXPECT_EQ(-ENODEV, s[i].last);
		EXPECT_LT(0, s[i].done_jobs);
	}
	ASSERT_EQ(0, npu_rebind(bdf));
}

TEST(rmmod_with_fd_open)
{
	struct npu_info info;
	int fd, ret;

	if (!getenv("NPU_KO"))
		SKIP(return, "NPU_KO is not set");
	fd = npu_open();
	ASSERT_LE(0, fd);

	/* The open file holds the module. */
	ret = npu_delete_module("npu");
	EXPECT_TRUE(ret == -EWOULDBLOCK || ret == -EBUSY)
		TH_LOG("delete_module with an fd open returned %d", ret);
	if (!ret) {
		npu_load_module();
		close(fd);
		return;
	}
	/* Nothing changed for the open file. */
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	ASSERT_EQ(0, close(fd));

	ASSERT_EQ(0, npu_delete_module("npu"));
	EXPECT_EQ(0, npu_wait_path(NPU_DEV, 0, 1000));
	EXPECT_EQ(-ENOENT, npu_open());

	ASSERT_EQ(0, npu_load_module());
	fd = npu_open();
	ASSERT_LE(0, fd);
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(0, close(fd));
}

/* Unbind, then unload the module, while a removed instance's fd is open. */
TEST(unbind_then_rmmod)
{
	char bdf[32];
	int fd, ret;

	if (!getenv("NPU_KO"))
		SKIP(return, "NPU_KO is not set");
	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	fd = npu_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_unbind(bdf));
	check_dead_fd(_metadata, fd);
	/* The dead fd still pins the module. */
	ret = npu_delete_module("npu");
	EXPECT_TRUE(ret == -EWOULDBLOCK || ret == -EBUSY);
	ASSERT_EQ(0, close(fd));
	if (ret) {
		ASSERT_EQ(0, npu_delete_module("npu"));
	}
	ASSERT_EQ(0, npu_load_module());
}

TEST_HARNESS_MAIN
