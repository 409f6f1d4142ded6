/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_test.h - helpers shared by the NPU selftests (run inside the VM).
 *
 * Include after kselftest_harness.h. Every helper returns a negative errno
 * on failure and never exits, so tests decide what a failure means.
 */
#ifndef _NPU_TEST_H
#define _NPU_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/npu.h>

/* the hardware's limits and version, which the tests check */
#include "npu/npu_hw.h"
/* the device, buffers, the CLIP program, submit and wait */
#include "npu_job.h"

#define NPU_SYSFS	"/sys/class/misc/npu0"
#define NPU_PCI_DRV	"/sys/bus/pci/drivers/npu"

/* Value of an unsigned decimal environment variable, or @def. */
static inline unsigned long long npu_env_u64(const char *name,
					     unsigned long long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return def;
	return v;
}

/* Read a whole small file into @buf (NUL-terminated, trailing \n cut). */
static inline int npu_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static inline int npu_read_u64(const char *path, unsigned long long *val)
{
	char buf[64], *end;
	int ret;

	ret = npu_read_file(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

static inline int npu_write_file(const char *path, const char *s)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (size_t)n == strlen(s) ? 0 : -EIO;
}

/* PCI address of the function behind /dev/npu0, e.g. "0000:00:02.0". */
static inline int npu_find_bdf(char *bdf, size_t len)
{
	char link[PATH_MAX];
	const char *base;
	ssize_t n;

	n = readlink(NPU_SYSFS "/device", link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	strcpy(bdf, base);
	return 0;
}

/*
 * Become nobody (uid and gid 65534, no supplementary groups): a root
 * process that changes every uid to a non-zero one loses all its
 * capabilities, CAP_IPC_LOCK and CAP_PERFMON included.
 */
#define NPU_NOBODY	65534

static inline int npu_drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NPU_NOBODY) || setuid(NPU_NOBODY))
		return -errno;
	return 0;
}

/* Wait for child @pid; its exit status, or -1 if it did not exit. */
static inline int npu_wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Wait until @path exists (@want 1) or not (@want 0); polls for @ms. */
static inline int npu_wait_path(const char *path, int want, int ms)
{
	struct stat st;
	int i;

	for (i = 0; i <= ms / 10; i++) {
		if ((stat(path, &st) == 0) == !!want)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Unbind the NPU's PCI function from npu.ko. */
static inline int npu_unbind(const char *bdf)
{
	return npu_write_file(NPU_PCI_DRV "/unbind", bdf);
}

/* Probe the function again (driver_override is still "npu"). */
static inline int npu_rebind(const char *bdf)
{
	int ret;

	ret = npu_write_file("/sys/bus/pci/drivers_probe", bdf);
	if (ret)
		return ret;
	return npu_wait_path(NPU_DEV, 1, 5000);
}

static inline int npu_delete_module(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* insmod $NPU_KO (set by npu-vm) and wait for the device node. */
static inline int npu_load_module(void)
{
	const char *ko = getenv("NPU_KO");
	int fd, ret;

	if (!ko)
		return -ENOENT;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	return npu_wait_path(NPU_DEV, 1, 5000);
}

/*
 * register_irq_proc() (kernel/irq/proc.c) ignores a failed
 * proc_create_data(): /proc/irq/N/NAME is only missing, and when the irq
 * is freed unregister_irq_proc() removes it all the same, which WARNs in
 * remove_proc_entry() ("name 'NAME'"). That is the kernel's own bug,
 * reached only when fail-nth injects a failure there (npu_failnth's probe
 * sweep), which proves it from the state left: the entry is missing while
 * its directory exists. It then logs NPU_KLOG_EXPECT_IRQ_PROC "NAME", and
 * the kernel-log checks (here and in tools/vm/guest-init, which does the
 * same in awk) accept one warning for it: a block from "cut here" to "end
 * trace" whose message is "name 'NAME'", raised in remove_proc_entry()
 * called from unregister_irq_proc(). Anything else in the block, or a
 * block that does not end, is still a problem.
 */
#define NPU_KLOG_EXPECT_IRQ_PROC \
	"npu-vm: expect a kernel-core WARN from unregister_irq_proc(): missing /proc/irq entry "
#define NPU_KLOG_MAX_DECL	64

struct npu_klog_decl {
	char name[NPU_KLOG_MAX_DECL][32];	/* declared, not yet seen */
	int n;
	int state;	/* 0, 1: after "cut here", 2: in a declared block */
	int lines, seen_remove, seen_unregister;
};

/*
 * Feed one kernel log line. Returns 1 if the line belongs to a declared
 * warning (skip it), 0 if it is to be checked, -1 if a declared block
 * turned out not to be what was declared (a problem).
 */
static inline int npu_klog_declared(struct npu_klog_decl *d, const char *line)
{
	const char *p = strstr(line, NPU_KLOG_EXPECT_IRQ_PROC);
	int i;

	if (p) {
		if (d->n < NPU_KLOG_MAX_DECL)
			snprintf(d->name[d->n++], sizeof(d->name[0]), "%s",
				 p + strlen(NPU_KLOG_EXPECT_IRQ_PROC));
		return 1;
	}
	if (d->state == 2) {
		d->seen_remove |= !!strstr(line, "at fs/proc/generic.c") &&
				  !!strstr(line, "remove_proc_entry");
		d->seen_unregister |= !!strstr(line, "unregister_irq_proc");
		if (strstr(line, "---[ end trace")) {
			d->state = 0;
			return d->seen_remove && d->seen_unregister ? 1 : -1;
		}
		if (++d->lines > 400) {
			d->state = 0;
			return -1;
		}
		return 1;
	}
	if (d->state == 1) {
		d->state = 0;
		p = strstr(line, "name '");
		for (i = 0; p && i < d->n; i++) {
			size_t len = strlen(d->name[i]);

			if (!strncmp(p + 6, d->name[i], len) &&
			    p[6 + len] == '\'') {
				/* one declaration, one warning */
				memmove(d->name[i], d->name[i + 1],
					(d->n - i - 1) * sizeof(d->name[0]));
				d->n--;
				d->state = 2;
				d->lines = d->seen_remove = d->seen_unregister = 0;
				return 1;
			}
		}
	}
	if (strstr(line, "------------[ cut here ]------------"))
		d->state = 1;
	return 0;
}

/*
 * Count the kernel log lines, from the npu-vm marker line on (or from boot
 * outside npu-vm), that report a warning, bug or oops; print each one.
 * The stack of an allocation failure's report (warn_alloc(): "vmalloc
 * error:" or "page allocation failure:", up to the end of its stack) is
 * not one: the kernel prints it for any allocation that fails without
 * __GFP_NOWARN, which fail-nth makes happen (npu_failnth). Nor is a
 * warning declared beforehand by a line NPU_KLOG_EXPECT_IRQ_PROC "NAME"
 * (see npu_klog_declared()), once per declaration.
 * Return: the count, or a negative errno if the log cannot be read.
 */
static inline int npu_kernel_log_problems(void)
{
	static const char * const bad[] = {
		"WARNING:", "BUG:", "BUG ", "Oops", "Call Trace", "KASAN",
		"UBSAN", "refcount_t", "general protection fault",
		"kernel BUG", "INFO: task", "possible circular locking",
		"inconsistent lock state", "list_add corruption",
		"list_del corruption", "use-after-free", "double free",
	};
	const char *marker = "npu-vm: kernel log checked from here";
	struct npu_klog_decl decl = { .n = 0 };
	char *buf, *start, *line, *save;
	int size, n, found = 0, in_warn_alloc = 0;
	size_t i;

	size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return size < 0 ? -errno : -ENODATA;
	buf = calloc(1, size + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		n = -errno;
		free(buf);
		return n;
	}
	buf[n] = '\0';
	start = strstr(buf, marker);
	if (!start)
		start = buf;
	for (line = strtok_r(start, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "vmalloc error:") ||
		    strstr(line, "page allocation failure:"))
			in_warn_alloc = 1;
		if (in_warn_alloc) {
			if (strstr(line, "</TASK>"))
				in_warn_alloc = 0;
			continue;
		}
		n = npu_klog_declared(&decl, line);
		if (n < 0) {
			fprintf(stderr, "# kernel log: a declared warning was not the one declared, ending at: %s\n",
				line);
			found++;
		}
		if (n)
			continue;
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (strstr(line, bad[i])) {
				fprintf(stderr, "# kernel log: %s\n", line);
				found++;
				break;
			}
		}
	}
	free(buf);
	return found;
}

#endif /* _NPU_TEST_H */
