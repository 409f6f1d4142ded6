// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_emu_faults - faults a real device can have, injected by npu-emu, and
 * what the driver does about them (Documentation/npu/driver.rst, "Device
 * faults"). Each test needs its own guest, started with the emulator
 * option it names; without it the test is skipped. The Makefile installs
 * this program under one name per fault, each with its .npu-vm file:
 *
 *   npu_emu_die       --fault die-mid-job@3: the emulator exits while the
 *                     3rd job runs. The job fails with NPU_JOB_TIMEOUT, the
 *                     device is marked dead (one log line): SUBMIT, PING
 *                     and CLOCK_SAMPLE fail with EIO at once, poll() says
 *                     POLLERR, GET_INFO and close still work.
 *   npu_emu_spurious  --fault spurious-completion@2: a completion for a job
 *                     id never submitted. Ignored with one rate-limited
 *                     log line; every job's result is right.
 *   npu_emu_corrupt   --fault corrupt-trace-record@2: the 2nd job's EXEC
 *                     record in the device's trace area has a bad size.
 *                     The ring gets one device LOST record, that job's EXEC
 *                     record without the device's part, the others whole.
 *   npu_emu_overflow  --trace-size 4K: the device's trace area overflows
 *                     at level 2 under load. Every device record is either
 *                     in the ring or counted in a device LOST record.
 *
 * The tests lower job_timeout_ms and mbox_timeout_ms where they wait for
 * a dead device, and restore them.
 */

#include <poll.h>
#include <stdbool.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#define PARAMS		"/sys/module/npu/parameters/"
#define JOB_BYTES	4096

/* Is the emulator running with --fault @name (NPU_EMU_FAULT=name[@N])? */
static bool fault_is(const char *name)
{
	const char *f = getenv("NPU_EMU_FAULT");

	return f && !strncmp(f, name, strlen(name));
}

/* Kernel log lines from the npu-vm marker on that contain @what. */
static int klog_count(const char *what)
{
	const char *marker = "npu-vm: kernel log checked from here";
	char *buf, *start, *p;
	int size, n, count = 0;

	size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return -EIO;
	buf = calloc(1, size + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		free(buf);
		return -errno;
	}
	buf[n] = '\0';
	start = strstr(buf, marker);
	for (p = start ? start : buf; (p = strstr(p, what)); p += strlen(what))
		count++;
	free(buf);
	return count;
}

/* The CLIP chain's expected output: clamp(in, 10 + k - 1, 200). */
static bool output_ok(const struct trace_jobs *j)
{
	int lo = 10 + (int)j->k - 1;
	unsigned int i;

	for (i = 0; i < j->n; i++) {
		int v = j->in_map[i];

		v = v < lo ? lo : v > 200 ? 200 : v;
		if (j->out_map[i] != v)
			return false;
	}
	return true;
}

struct exec_count {
	unsigned int with_device;
	unsigned int host_only;
	unsigned int ops;
};

static void count_exec(const struct npu_trace_rec_hdr *h, void *arg)
{
	const struct npu_trace_rec_exec *ex = (const void *)h;
	struct exec_count *c = arg;

	if (h->type == NPU_TRACE_REC_OP)
		c->ops++;
	if (h->type != NPU_TRACE_REC_EXEC)
		return;
	if (ex->flags & NPU_TRACE_EXEC_F_DEVICE)
		c->with_device++;
	else
		c->host_only++;
}

/* Open /dev/npu0 with buffers for CLIP chains of @k operators. */
static int jobs_open(struct trace_jobs *j, unsigned int k)
{
	int fd = npu_open();

	if (fd < 0)
		return fd;
	return trace_jobs_init(j, fd, JOB_BYTES, k);
}

static void jobs_close(struct trace_jobs *j)
{
	munmap(j->prog_map, j->prog.size);
	munmap(j->in_map, j->in.size);
	munmap(j->out_map, j->out.size);
	close(j->fd);
}

/* A ring of @pages data pages on @j's file, enabled at @level. */
static int ring_open(struct trace_jobs *j, unsigned int pages,
		     unsigned int level, struct trace_ring *r)
{
	int ret = trace_open(j->fd, 0, pages, 0, r);

	return ret ? ret : trace_enable(r, level);
}

/* Read the whole ring; false if it was malformed or out of sequence. */
static bool ring_read(struct trace_ring *r, struct trace_stats *st,
		      struct exec_count *c)
{
	memset(st, 0, sizeof(*st));
	memset(c, 0, sizeof(*c));
	return trace_consume(r, st, count_exec, c) > 0 && !st->bad &&
	       !st->seq_errors;
}

#define TRACEFS		"/sys/kernel/tracing"
#define FAULT_EVENT	TRACEFS "/events/npu/npu_device_fault/enable"

/*
 * Record the npu_device_fault tracepoint through ftrace, without task
 * names (recording them patches __schedule(), which QEMU TCG may get
 * wrong: see trace_jobs.c). Return: 0, or -ENOENT without tracefs.
 */
static int fault_trace_start(void)
{
	int fd;

	if (access(FAULT_EVENT, F_OK))
		return -ENOENT;
	npu_write_file(TRACEFS "/options/record-cmd", "0");
	npu_write_file(TRACEFS "/tracing_on", "0");
	fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	if (npu_write_file(FAULT_EVENT, "1"))
		return -EIO;
	return npu_write_file(TRACEFS "/tracing_on", "1");
}

/* Stop recording; occurrences of @what in the trace. */
static int fault_trace_count(const char *what)
{
	static char buf[1 << 16];
	int fd, count = 0;
	const char *p;
	ssize_t n;

	npu_write_file(TRACEFS "/tracing_on", "0");
	npu_write_file(FAULT_EVENT, "0");
	fd = open(TRACEFS "/trace", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, what)); p += strlen(what))
		count++;
	return count;
}

static void set_param(struct __test_metadata *_metadata, const char *name,
		      unsigned long long v)
{
	char path[128], s[32];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(s, sizeof(s), "%llu", v);
	ASSERT_EQ(0, npu_write_file(path, s));
}

TEST(die_mid_job)
{
	unsigned long long jt, mt, id;
	struct npu_clock_sample cs;
	struct npu_ping ping;
	struct npu_info info;
	struct trace_jobs j;
	struct pollfd pfd;
	struct npu_wait w;
	int fd, i;

	int traced;

	if (!fault_is("die-mid-job"))
		SKIP(return, "needs npu-vm --fault die-mid-job@3");
	traced = fault_trace_start();
	ASSERT_TRUE(traced == 0 || traced == -ENOENT);
	ASSERT_EQ(0, npu_read_u64(PARAMS "job_timeout_ms", &jt));
	ASSERT_EQ(0, npu_read_u64(PARAMS "mbox_timeout_ms", &mt));
	set_param(_metadata, "job_timeout_ms", 1000);
	set_param(_metadata, "mbox_timeout_ms", 500);

	ASSERT_EQ(0, jobs_open(&j, 4));
	fd = j.fd;
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, trace_job_run(&j, NPU_PE_ANY, &w));
		EXPECT_EQ(NPU_JOB_OK, w.result.status);
	}
	/* the 3rd job: the device dies under it */
	ASSERT_EQ(0, trace_job_submit(&j, NPU_PE_ANY, &id));
	ASSERT_EQ(0, npu_wait_job(fd, id, 0, 60000000000ll, &w));
	EXPECT_EQ(NPU_JOB_TIMEOUT, w.result.status);

	/* dead: everything that needs the device fails at once with EIO */
	EXPECT_EQ(-EIO, trace_job_submit(&j, NPU_PE_ANY, &id));
	memset(&ping, 0, sizeof(ping));
	ping.count = 1;
	EXPECT_EQ(-EIO, npu_ioctl(fd, NPU_IOCTL_PING, &ping));
	memset(&cs, 0, sizeof(cs));
	cs.clockid = CLOCK_MONOTONIC;
	cs.count = 1;
	EXPECT_EQ(-EIO, npu_ioctl(fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_FALSE(pfd.revents & POLLOUT);
	/* what needs no device still works */
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(1, klog_count("marked dead"));
	if (!traced) {
		EXPECT_EQ(1, fault_trace_count("fault=dead arg=0"));
	} else {
		TH_LOG("no tracefs: npu_device_fault not checked");
	}
	jobs_close(&j);
	set_param(_metadata, "job_timeout_ms", jt);
	set_param(_metadata, "mbox_timeout_ms", mt);
}

TEST(spurious_completion)
{
	struct trace_jobs j;
	struct npu_wait w;
	int i;

	char want[96];
	int traced;

	if (!fault_is("spurious-completion"))
		SKIP(return, "needs npu-vm --fault spurious-completion@2");
	traced = fault_trace_start();
	ASSERT_TRUE(traced == 0 || traced == -ENOENT);
	ASSERT_EQ(0, jobs_open(&j, 4));
	for (i = 0; i < 6; i++) {
		memset(j.out_map, 0, j.n);
		ASSERT_EQ(0, trace_job_run(&j, NPU_PE_ANY, &w));
		EXPECT_EQ(NPU_JOB_OK, w.result.status);
		EXPECT_TRUE(output_ok(&j)) TH_LOG("job %d: wrong output", i + 1);
	}
	/* reported once (rate-limited, never silent), and nothing else */
	EXPECT_EQ(1, klog_count("which was never submitted"));
	/* the tracepoint names the job id: 2^62 + 2 */
	snprintf(want, sizeof(want), "fault=spurious_completion arg=%llu",
		 (1ull << 62) + 2);
	if (!traced) {
		EXPECT_EQ(1, fault_trace_count(want));
	} else {
		TH_LOG("no tracefs: npu_device_fault not checked");
	}
	EXPECT_EQ(0, npu_kernel_log_problems());
	jobs_close(&j);
}

TEST(corrupt_trace_record)
{
	struct npu_trace_status st;
	struct trace_stats stats;
	struct trace_ring ring;
	struct exec_count c;
	struct trace_jobs j;
	struct npu_wait w;
	int i;

	int traced;

	if (!fault_is("corrupt-trace-record"))
		SKIP(return, "needs npu-vm --fault corrupt-trace-record@2");
	traced = fault_trace_start();
	ASSERT_TRUE(traced == 0 || traced == -ENOENT);
	ASSERT_EQ(0, jobs_open(&j, 4));
	ASSERT_EQ(0, ring_open(&j, 16, NPU_TRACE_EXEC, &ring));
	/*
	 * Each job's records delivered before the next job (STATUS): the
	 * drain skips a corrupted area up to the producer, which then holds
	 * the one job's record and nothing after it.
	 */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, trace_job_run(&j, NPU_PE_ANY, &w));
		EXPECT_EQ(NPU_JOB_OK, w.result.status);
		ASSERT_EQ(0, trace_status(&ring, &st));
	}
	ASSERT_TRUE(ring_read(&ring, &stats, &c));
	/* the corrupted record is lost, and said to be; the rest are whole */
	EXPECT_EQ(1, stats.lost[NPU_TRACE_LOST_DEVICE]);
	EXPECT_EQ(3, c.with_device);
	EXPECT_EQ(1, c.host_only);
	ASSERT_EQ(0, trace_status(&ring, &st));
	EXPECT_EQ(1, st.device_lost);
	EXPECT_EQ(1, klog_count("trace area: bad record size"));
	/* one EXEC record (80 bytes) skipped */
	if (!traced) {
		EXPECT_EQ(1, fault_trace_count("fault=trace_corrupt arg=80"));
	} else {
		TH_LOG("no tracefs: npu_device_fault not checked");
	}
	trace_close(&ring);
	jobs_close(&j);
}

#define OVF_JOBS	24
#define OVF_OPS		64	/* 64 OP records of 72 bytes: over 4 KiB */

TEST(trace_area_overflow)
{
	unsigned long long ids[OVF_JOBS];
	struct npu_trace_status st;
	struct trace_stats stats;
	struct trace_ring ring;
	struct exec_count c;
	struct trace_jobs j;
	struct npu_wait w;
	int i;

	if (!getenv("NPU_EMU_TRACE_SIZE"))
		SKIP(return, "needs npu-vm --trace-size 4K");
	ASSERT_EQ(0, jobs_open(&j, OVF_OPS));
	ASSERT_EQ(0, ring_open(&j, 256, NPU_TRACE_OPS, &ring));
	/* every PE busy at once: the area fills faster than it drains */
	for (i = 0; i < OVF_JOBS; i++)
		ASSERT_EQ(0, trace_job_submit(&j, NPU_PE_ANY, &ids[i]));
	for (i = 0; i < OVF_JOBS; i++) {
		ASSERT_EQ(0, npu_wait_job(j.fd, ids[i], 0, 60000000000ll, &w));
		EXPECT_EQ(NPU_JOB_OK, w.result.status);
	}
	ASSERT_TRUE(ring_read(&ring, &stats, &c));
	EXPECT_EQ(0, stats.lost[NPU_TRACE_LOST_RING_FULL]);
	/* the ring has every job's EXEC record, from the device or not */
	EXPECT_EQ(OVF_JOBS, c.with_device + c.host_only);
	/* the area overflowed, and exactly what it dropped is accounted */
	EXPECT_LT(0, stats.lost[NPU_TRACE_LOST_DEVICE]);
	EXPECT_EQ(OVF_JOBS * (OVF_OPS + 1),
		  c.ops + c.with_device + stats.lost[NPU_TRACE_LOST_DEVICE]);
	ASSERT_EQ(0, trace_status(&ring, &st));
	EXPECT_EQ(stats.lost[NPU_TRACE_LOST_DEVICE], st.device_lost);
	TH_LOG("%u OP and %u device EXEC records, %llu lost by the device",
	       c.ops, c.with_device,
	       (unsigned long long)stats.lost[NPU_TRACE_LOST_DEVICE]);
	/* no warning for an overflow: it is the device doing its job */
	EXPECT_EQ(0, npu_kernel_log_problems());
	trace_close(&ring);
	jobs_close(&j);
}

TEST_HARNESS_MAIN
