// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_badversion - npu.ko and the hardware interface version.
 *
 * Runs in a boot of its own whose emulator reports another VERSION register
 * (npu-emu --hw-version, exported by npu-vm as NPU_EMU_HW_VERSION):
 *
 *   npu-vm --hw-version 2.0 --expect-no-device -- npu_badversion
 *   npu-vm --hw-version 1.7 -- npu_badversion
 *
 * A major version other than the driver's: the probe is refused. There is
 * no /dev/npu0, the PCI function has no driver, the kernel log holds exactly
 * one line naming the function, from npu, naming the unsupported version,
 * and no warning; binding again is refused the same way. Another minor
 * version of the same major: the driver binds, reports that version and
 * runs jobs.
 *
 * The Makefile installs this test twice, as npu_badversion (2.0) and
 * npu_badversion_minor (1.7), each with its .npu-vm file. Without
 * NPU_EMU_HW_VERSION every test skips.
 */

#include <dirent.h>

#include "kselftest_harness.h"
#include "npu_test.h"

#define PCI_DEVS	"/sys/bus/pci/devices"
#define KLOG_MARKER	"npu-vm: kernel log checked from here"
#define N		4096

static const char * const bad_words[] = {
	"WARNING:", "BUG:", "BUG ", "Oops", "Call Trace", "KASAN", "UBSAN",
	"refcount_t", "general protection fault", "kernel BUG",
	"use-after-free", "double free",
};

/* The version the emulator reports; false if NPU_EMU_HW_VERSION is unset. */
static bool emu_version(unsigned int *major, unsigned int *minor)
{
	const char *s = getenv("NPU_EMU_HW_VERSION");
	char extra;

	return s && sscanf(s, "%u.%u%c", major, minor, &extra) == 2;
}

/* sysfs directory of the ivshmem function (PCI 1af4:1110), 0 or -errno */
static int find_function(char *path, size_t len)
{
	char p[PATH_MAX], v[32], d[32];
	struct dirent *de;
	DIR *dir;
	int ret = -ENODEV;

	dir = opendir(PCI_DEVS);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), PCI_DEVS "/%s/vendor", de->d_name);
		if (npu_read_file(p, v, sizeof(v)) || strcmp(v, "0x1af4"))
			continue;
		snprintf(p, sizeof(p), PCI_DEVS "/%s/device", de->d_name);
		if (npu_read_file(p, d, sizeof(d)) || strcmp(d, "0x1110"))
			continue;
		if ((size_t)snprintf(path, len, PCI_DEVS "/%s", de->d_name) >= len)
			ret = -ENAMETOOLONG;
		else
			ret = 0;
		break;
	}
	closedir(dir);
	return ret;
}

/* Name of the driver bound to @fn ("" for none), 0 or -errno */
static int bound_driver(const char *fn, char *name, size_t len)
{
	char p[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/driver", fn);
	n = readlink(p, link, sizeof(link) - 1);
	if (n < 0) {
		if (errno != ENOENT)
			return -errno;
		name[0] = '\0';
		return 0;
	}
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	strcpy(name, base);
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* What the kernel log says, from the npu-vm marker on. */
struct klog {
	unsigned int fn_lines;		/* lines naming the function */
	unsigned int fn_npu;		/* of those, "npu BDF: ..." */
	unsigned int refused;		/* of those, "unsupported" + "version M.m" */
	unsigned int named_version;	/* of fn_lines, naming "M.m" */
	unsigned int bad;		/* warnings, bugs, oopses */
	char last[256];			/* the last line naming the function */
};

/*
 * Read the kernel log through /dev/kmsg (one record per read, "PRI,SEQ,
 * TS,FLAGS;TEXT\n" and continuation lines) and count lines about function
 * @bdf and version @major.@minor.
 */
static int read_klog(const char *bdf, unsigned int major, unsigned int minor,
		     struct klog *k)
{
	char rec[8192], ver[32], npu_pfx[64], *text, *nl;
	bool marked = false;
	unsigned int i;
	ssize_t n;
	int fd;

	memset(k, 0, sizeof(*k));
	snprintf(ver, sizeof(ver), "%u.%u", major, minor);
	snprintf(npu_pfx, sizeof(npu_pfx), "npu %s: ", bdf);
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		nl = strchr(text, '\n');
		if (nl)
			*nl = '\0';
		if (!marked) {
			marked = !!strstr(text, KLOG_MARKER);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(bad_words); i++) {
			if (strstr(text, bad_words[i])) {
				k->bad++;
				break;
			}
		}
		if (!strstr(text, bdf))
			continue;
		k->fn_lines++;
		snprintf(k->last, sizeof(k->last), "%s", text);
		if (!strncmp(text, npu_pfx, strlen(npu_pfx))) {
			k->fn_npu++;
			if (strstr(text, "unsupported") &&
			    strstr(text, "version") && strstr(text, ver))
				k->refused++;
		}
		if (strstr(text, ver))
			k->named_version++;
	}
	close(fd);
	return marked ? 0 : -ENOENT;
}

FIXTURE(ver) {
	unsigned int major, minor;
	bool supported;
	char fn[128];
	const char *bdf;
};

FIXTURE_SETUP(ver)
{
	if (!emu_version(&self->major, &self->minor))
		SKIP(return, "NPU_EMU_HW_VERSION not set (run with npu-vm --hw-version M.m)");
	self->supported = self->major == NPU_HW_VERSION_MAJOR;
	ASSERT_EQ(0, find_function(self->fn, sizeof(self->fn)));
	self->bdf = strrchr(self->fn, '/') + 1;
	/* npu.ko is loaded in both cases */
	ASSERT_TRUE(exists(NPU_PCI_DRV));
}

FIXTURE_TEARDOWN(ver)
{
}

/* Bound (with /dev/npu0) exactly when the major version is the driver's. */
TEST_F(ver, binding)
{
	char drv[64], override[64], p[PATH_MAX];

	if (!self->bdf)	/* the body runs even when the setup skipped */
		SKIP(return, "NPU_EMU_HW_VERSION not set");
	TH_LOG("emulator reports %u.%u, driver supports %u.x",
	       self->major, self->minor, NPU_HW_VERSION_MAJOR);
	ASSERT_EQ(0, bound_driver(self->fn, drv, sizeof(drv)));
	if (self->supported) {
		EXPECT_STREQ("npu", drv);
		EXPECT_TRUE(exists(NPU_DEV));
		EXPECT_TRUE(exists(NPU_SYSFS));
	} else {
		EXPECT_STREQ("", drv);
		EXPECT_FALSE(exists(NPU_DEV));
		EXPECT_FALSE(exists(NPU_SYSFS));
		/* the probe was tried: npu-vm set the override */
		snprintf(p, sizeof(p), "%s/driver_override", self->fn);
		ASSERT_EQ(0, npu_read_file(p, override, sizeof(override)));
		EXPECT_STREQ("npu", override);
		/* the environment agrees: npu-vm --expect-no-device */
		EXPECT_EQ(1, npu_env_u64("NPU_VM_EXPECT_NO_DEVICE", 0));
	}
}

/*
 * Refused: one probe, one line about the function, from npu, naming the
 * version. Accepted: no such line, and the bind message names the version.
 * Never a warning. Runs before probe_again, which probes once more.
 */
TEST_F(ver, kernel_log)
{
	struct klog k;

	if (!self->bdf)	/* the body runs even when the setup skipped */
		SKIP(return, "NPU_EMU_HW_VERSION not set");
	ASSERT_EQ(0, read_klog(self->bdf, self->major, self->minor, &k));
	if (k.fn_lines)
		TH_LOG("last line about %s: %s", self->bdf, k.last);
	EXPECT_EQ(0, k.bad);
	if (self->supported) {
		EXPECT_EQ(0, k.refused);
		EXPECT_LE(1, k.fn_npu);
		EXPECT_LE(1, k.named_version);
	} else {
		EXPECT_EQ(1, k.fn_lines);
		EXPECT_EQ(1, k.fn_npu);
		EXPECT_EQ(1, k.refused);
	}
}

/*
 * Probing again: refused again, with one more line and nothing else; or,
 * for a supported version, unbinding and binding again works.
 */
TEST_F(ver, probe_again)
{
	char drv[64], bind[PATH_MAX];
	struct klog k0, k1;

	if (!self->bdf)	/* the body runs even when the setup skipped */
		SKIP(return, "NPU_EMU_HW_VERSION not set");
	snprintf(bind, sizeof(bind), NPU_PCI_DRV "/bind");
	ASSERT_EQ(0, read_klog(self->bdf, self->major, self->minor, &k0));
	if (self->supported) {
		ASSERT_EQ(0, npu_write_file(NPU_PCI_DRV "/unbind", self->bdf));
		ASSERT_EQ(0, npu_wait_path(NPU_DEV, 0, 5000));
		ASSERT_EQ(0, npu_write_file(bind, self->bdf));
		ASSERT_EQ(0, npu_wait_path(NPU_DEV, 1, 5000));
		ASSERT_EQ(0, bound_driver(self->fn, drv, sizeof(drv)));
		EXPECT_STREQ("npu", drv);
	} else {
		EXPECT_EQ(-ENODEV, npu_write_file(bind, self->bdf));
		ASSERT_EQ(0, bound_driver(self->fn, drv, sizeof(drv)));
		EXPECT_STREQ("", drv);
		EXPECT_FALSE(exists(NPU_DEV));
	}
	ASSERT_EQ(0, read_klog(self->bdf, self->major, self->minor, &k1));
	if (k1.fn_lines)
		TH_LOG("last line about %s: %s", self->bdf, k1.last);
	EXPECT_EQ(0, k1.bad);
	if (self->supported) {
		EXPECT_EQ(0, k1.refused);
		EXPECT_LT(k0.named_version, k1.named_version);
	} else {
		EXPECT_EQ(k0.fn_lines + 1, k1.fn_lines);
		EXPECT_EQ(k0.refused + 1, k1.refused);
	}
}

/* A supported version: reported as is, and jobs run. */
TEST_F(ver, device_works)
{
	struct npu_bo_create b[3];
	struct npu_info info;
	unsigned int h[3], i, bad = 0;
	unsigned long long id;
	unsigned char *prog, *in, *out;
	struct npu_wait w;
	char buf[32], want[32];
	int fd;

	if (!self->bdf)	/* the body runs even when the setup skipped */
		SKIP(return, "NPU_EMU_HW_VERSION not set");
	if (!self->supported)
		SKIP(return, "version %u.%u is refused: no device", self->major,
		     self->minor);
	fd = npu_open();
	ASSERT_LE(0, fd);
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(NPU_HW_VERSION(self->major, self->minor), info.hw_version);
	ASSERT_EQ(0, npu_read_file(NPU_SYSFS "/hw_version", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%u.%u", self->major, self->minor);
	EXPECT_STREQ(want, buf);

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npu_bo_new(fd, N, &b[i]));
		h[i] = b[i].handle;
	}
	prog = npu_bo_map(fd, &b[0]);
	in = npu_bo_map(fd, &b[1]);
	out = npu_bo_map(fd, &b[2]);
	ASSERT_NE(NULL, prog);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	npu_clip_prog(prog, N, 1, 2, 10, 200);
	for (i = 0; i < N; i++)
		in[i] = (i * 7) & 0xff;
	memset(out, 0, N);
	ASSERT_EQ(0, npu_submit_job(fd, 0, h, 3, 0, 0, NPU_CLIP_PROG_SIZE,
				    &id));
	ASSERT_EQ(0, npu_wait_job(fd, id, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	for (i = 0; i < N; i++) {
		unsigned int x = (i * 7) & 0xff;

		bad += out[i] != (x < 10 ? 10 : x > 200 ? 200 : x);
	}
	EXPECT_EQ(0, bad);
	munmap(prog, N);
	munmap(in, N);
	munmap(out, N);
	close(fd);
}

TEST_HARNESS_MAIN
