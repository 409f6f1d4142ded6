// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_failnth - systematic fault injection: every ioctl of /dev/npu0 and
 * of a trace fd, mmap of a buffer and of a trace ring, open, and probe,
 * each with its 1st, 2nd, ... Nth allocation failed through
 * /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION, failslab and
 * fail_page_alloc), as syzkaller does.
 *
 * For N = 1, 2, ...: write N to fail-nth, make the call (one system call),
 * read fail-nth back. 0 means the Nth fault point of the call was reached
 * and failed: the call must then fail with -ENOMEM or succeed (the kernel
 * fell back, e.g. kmemleak's own metadata), and the same call without
 * injection must succeed right after (no stuck state). A value left over
 * means the call has fewer than N fault points: it must have succeeded,
 * and the sweep ends. Probe is made by writing the function's address to
 * drivers_probe, whose result does not carry the probe's error:
 * call_probe() proves each failure from the kernel log and the state
 * left (no driver, no /dev/npu0), and a probe without injection must bind
 * the function and give a /dev/npu0 that answers a PING. Each sweep
 * prints its counts as TAP diagnostics: the fault points reached and how
 * many of them failed the call (for probe, also where it failed).
 * Warnings, KASAN, lockdep or kmemleak reports fail the npu-vm run (see
 * tools/vm/guest-init); the kernel log is also checked after each sweep.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC
 * and FAULT_INJECTION_DEBUG_FS (npu-vm --kernel debug, see
 * Documentation/npu/testing.rst); elsewhere (Debian's kernels) every test
 * is skipped. The debugfs knobs are restored at the end of each test.
 */

#include <dirent.h>
#include <sys/mman.h>

#include <liburing.h>

#include "kselftest_harness.h"
#include "npu_test.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FI_DIR		"/sys/kernel/debug"
#define MAX_POINTS	20000	/* a sweep longer than this is a bug */
#define PROG_N		256	/* bytes clipped by the job */

/* debugfs settings that let fail-nth reach GFP_KERNEL allocations */
static const char * const fi_knobs[][2] = {
	{ FI_DIR "/failslab/ignore-gfp-wait", "N" },
	{ FI_DIR "/failslab/verbose", "0" },
	{ FI_DIR "/fail_page_alloc/ignore-gfp-wait", "N" },
	{ FI_DIR "/fail_page_alloc/ignore-gfp-highmem", "N" },
	{ FI_DIR "/fail_page_alloc/min-order", "0" },
	{ FI_DIR "/fail_page_alloc/verbose", "0" },
};
#define N_KNOBS (sizeof(fi_knobs) / sizeof(fi_knobs[0]))

enum probe_kind {
	PROBE_BOUND,		/* bound, /dev/npu0 works */
	PROBE_WRITE,		/* the write failed before the driver core ran */
	PROBE_CORE,		/* the driver core failed around npu_probe() */
	PROBE_DRIVER,		/* npu_probe() failed */
	PROBE_KINDS
};

struct ctx {
	int nth;		/* fd of /proc/thread-self/fail-nth */
	int dev;		/* /dev/npu0 */
	int tfd;		/* a trace fd (disabled) */
	struct npu_trace_open top;
	struct npu_bo_create bo, prog, in, out;
	unsigned int h[3];
	unsigned long long job;
	void *map;
	int ret_fd;		/* fd made by the call, closed by undo */
	char bdf[32];
	unsigned int n;		/* for sweep_op.injects */
	long left;
	enum probe_kind kind;	/* of the last call_probe() */
	unsigned int kinds[PROBE_KINDS];	/* failures of each kind */
	struct io_uring ring;	/* SQE128, for NPU_URING_CMD_SUBMIT */
	int ring_ok;
	char irq_files[512];	/* /proc/irq/N's files after a good probe */
	unsigned int irq_proc_missing;	/* declared: see irq_proc_check() */
	char saved[N_KNOBS][32];
};

/* One call swept: prep (not injected), call (injected), undo. */
struct sweep_op {
	const char *name;
	int (*prep)(struct ctx *c);
	int (*call)(struct ctx *c);
	void (*undo)(struct ctx *c);
	int injects;	/* call() sets fail-nth to ctx.n, reads ctx.left */
	void (*report)(struct ctx *c);	/* more TAP diagnostics */
	struct {
		int err;	/* a failure the kernel reports so, not -ENOMEM */
		const char *why;
	} alt[2];
};

static int nth_set(struct ctx *c, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(c->nth, buf, len, 0) == len ? 0 : -errno;
}

static long nth_get(struct ctx *c)
{
	char buf[16];
	ssize_t n = pread(c->nth, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static int sys_ret(long r)
{
	return r < 0 ? -errno : (int)r;
}

/* ---- the calls ---------------------------------------------------------- */

static int call_open(struct ctx *c)
{
	c->ret_fd = sys_ret(open(NPU_DEV, O_RDWR | O_CLOEXEC));
	return c->ret_fd;
}

static void undo_close(struct ctx *c)
{
	if (c->ret_fd >= 0)
		close(c->ret_fd);
	c->ret_fd = -1;
}

static int call_get_info(struct ctx *c)
{
	struct npu_info info;

	memset(&info, 0, sizeof(info));
	return npu_ioctl(c->dev, NPU_IOCTL_GET_INFO, &info);
}

static int call_ping(struct ctx *c)
{
	struct npu_ping p;

	memset(&p, 0, sizeof(p));
	p.count = 2;
	return npu_ioctl(c->dev, NPU_IOCTL_PING, &p);
}

static int call_bo_create(struct ctx *c)
{
	memset(&c->bo, 0, sizeof(c->bo));
	c->bo.size = 8192;
	return npu_ioctl(c->dev, NPU_IOCTL_BO_CREATE, &c->bo);
}

static void undo_bo_create(struct ctx *c)
{
	npu_bo_del(c->dev, c->bo.handle);
}

static int prep_bo(struct ctx *c)
{
	return npu_bo_new(c->dev, 8192, &c->bo);
}

static int call_bo_free(struct ctx *c)
{
	struct npu_bo_free f = { .handle = c->bo.handle };

	return npu_ioctl(c->dev, NPU_IOCTL_BO_FREE, &f);
}

static int call_bo_mmap(struct ctx *c)
{
	c->map = mmap(NULL, c->bo.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->dev, c->bo.mmap_offset);
	return c->map == MAP_FAILED ? -errno : 0;
}

static void undo_bo_mmap(struct ctx *c)
{
	munmap(c->map, c->bo.size);
	npu_bo_del(c->dev, c->bo.handle);
}

static int call_submit(struct ctx *c)
{
	return npu_submit_job(c->dev, NPU_PE_ANY, c->h, 3, 0, 0,
			      NPU_CLIP_PROG_SIZE, &c->job);
}

static void undo_submit(struct ctx *c)
{
	struct npu_wait w;

	npu_wait_job(c->dev, c->job, 0, -1, &w);
}

/*
 * NPU_URING_CMD_SUBMIT: the injected call is the io_uring_enter() that
 * issues one SQE (the driver's uring_cmd runs inline in it). Its result
 * is the CQE's: 0 once the job ran, or the command's error. A failure in
 * io_uring's own request allocation makes the submission itself fail with
 * -EAGAIN (io_submit_sqes()), before the driver is reached.
 */
static int call_uring_submit(struct ctx *c)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
	struct npu_uring_submit req = {
		.job = {
			.pe = NPU_PE_ANY, .nbufs = 3, .prog_slot = 0,
			.prog_size = NPU_CLIP_PROG_SIZE,
			.bufs = (uintptr_t)c->h,
		},
	};
	struct io_uring_cqe *cqe;
	int ret, res;

	if (!sqe)
		return -EOVERFLOW;	/* a CQE was left unreaped: a bug */
	memset((char *)sqe, 0, 2 * sizeof(*sqe));	/* an SQE128 slot */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = c->dev;
	sqe->cmd_op = NPU_URING_CMD_SUBMIT;
	memcpy(sqe->cmd, &req, sizeof(req));
	ret = c->n ? nth_set(c, c->n) : 0;
	if (!ret)
		ret = io_uring_submit(&c->ring);
	/* the injection covers the issue only: reap without it */
	c->left = nth_get(c);
	nth_set(c, 0);
	if (ret < 0)
		return ret;
	if (ret != 1)
		return -EPROTO;
	ret = io_uring_wait_cqe(&c->ring, &cqe);
	if (ret)
		return ret;
	res = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	return res == NPU_JOB_OK ? 0 : res < 0 ? res : -EPROTO;
}

/*
 * The ring, and one command without injection: io_uring allocates its
 * requests in bulk when its cache is empty, and keeps them, so that
 * allocation would take the sweep's first fault point once and never
 * again, and the sweep would never fail the driver's first allocation.
 */
static int prep_uring(struct ctx *c)
{
	unsigned int n = c->n;
	int ret;

	if (c->ring_ok)
		return 0;
	if (io_uring_queue_init(8, &c->ring, IORING_SETUP_SQE128))
		return -EINVAL;
	c->ring_ok = 1;
	c->n = 0;
	ret = call_uring_submit(c);
	c->n = n;
	return ret;
}

static int prep_job(struct ctx *c)
{
	return call_submit(c);
}

static int call_wait(struct ctx *c)
{
	struct npu_wait w;
	int ret = npu_wait_job(c->dev, c->job, 0, -1, &w);

	if (!ret &&
	    (w.result.job_id != c->job || w.result.status != NPU_JOB_OK))
		return -EPROTO;
	return ret;
}

static void undo_wait(struct ctx *c)
{
	/* collect the job if the failed WAIT did not */
	npu_wait_job(c->dev, c->job, 0, -1, &(struct npu_wait){ 0 });
}

static int call_clock_sample(struct ctx *c)
{
	struct npu_clock_sample s;

	memset(&s, 0, sizeof(s));
	s.clockid = CLOCK_MONOTONIC;
	s.count = 4;
	return npu_ioctl(c->dev, NPU_IOCTL_CLOCK_SAMPLE, &s);
}

static int call_trace_open(struct ctx *c)
{
	int ret;

	memset(&c->top, 0, sizeof(c->top));
	c->top.data_pages = 4;
	ret = npu_ioctl(c->dev, NPU_IOCTL_TRACE_OPEN, &c->top);
	c->ret_fd = ret ? -1 : c->top.fd;
	return ret;
}

static int prep_trace(struct ctx *c)
{
	int ret = call_trace_open(c);

	c->tfd = c->ret_fd;
	c->ret_fd = -1;
	return ret;
}

static void undo_trace(struct ctx *c)
{
	if (c->tfd >= 0)
		close(c->tfd);
	c->tfd = -1;
}

static int call_trace_enable(struct ctx *c)
{
	struct npu_trace_enable en;

	memset(&en, 0, sizeof(en));
	en.level = 1;
	return npu_ioctl(c->tfd, NPU_TRACE_IOCTL_ENABLE, &en);
}

static int prep_trace_enabled(struct ctx *c)
{
	int ret = prep_trace(c);

	return ret ? ret : call_trace_enable(c);
}

static int call_trace_disable(struct ctx *c)
{
	return npu_ioctl(c->tfd, NPU_TRACE_IOCTL_DISABLE, NULL);
}

static int call_trace_status(struct ctx *c)
{
	struct npu_trace_status st;

	memset(&st, 0, sizeof(st));
	return npu_ioctl(c->tfd, NPU_TRACE_IOCTL_STATUS, &st);
}

static int call_ring_mmap(struct ctx *c)
{
	size_t len = c->top.data_offset + c->top.data_size;

	c->map = mmap(NULL, len, PROT_READ, MAP_SHARED, c->tfd, 0);
	return c->map == MAP_FAILED ? -errno : 0;
}

static void undo_ring_mmap(struct ctx *c)
{
	munmap(c->map, c->top.data_offset + c->top.data_size);
	undo_trace(c);
}

/*
 * probe: the function starts unbound; the call binds it.
 *
 * The driver core does not hand the probe's error back to the writer of
 * drivers_probe: a failed npu_probe() leaves the write successful (it
 * logs "npu: probe of BDF failed with error -N"), and a failure of the
 * driver core's own binding around it (driver_sysfs_add(), for one, or
 * the groups added after the probe, which undoes a good probe through
 * npu_remove()) makes the write fail with -EINVAL whatever the cause (it
 * logs "... (BDF) failed" too). Only the kernfs buffer of the write
 * itself fails it with -ENOMEM. So the result of the write is not
 * enough: call_probe() reads what the kernel logged during the write,
 * from /dev/kmsg, and checks the state the failure left: no driver, no
 * /dev/npu0. It returns 0 when the function is bound and /dev/npu0
 * answers a PING, -ENOMEM when a failure is proven (stating which kind
 * in c->kind), and another error when something does not add up.
 */

static int npu_bound(struct ctx *c)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", c->bdf);
	return access(path, F_OK) == 0;
}

/* call_probe() and its helpers run outside the harness's TH_LOG() context */
#define PLOG(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)

/*
 * Call @fn(@c, dir) for each MSI-X irq of the function, with dir
 * "/proc/irq/N"; stop at a nonzero return. Returns the irqs seen or a
 * negative errno.
 */
static int for_each_irq_dir(struct ctx *c,
			    int (*fn)(struct ctx *c, const char *dir))
{
	char path[96], dir[300];
	struct dirent *de;
	int n = 0, ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/msi_irqs",
		 c->bdf);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/irq/%s", de->d_name);
		ret = fn(c, dir);
		n++;
	}
	closedir(d);
	return ret < 0 ? ret : n;
}

/* the files of a good probe's first irq directory, "name\n" each */
static int irq_files_take(struct ctx *c, const char *dir)
{
	size_t len = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d)) && len < sizeof(c->irq_files) - 40) {
		if (de->d_type == DT_REG)
			len += snprintf(c->irq_files + len,
					sizeof(c->irq_files) - len, "%s\n",
					de->d_name);
	}
	closedir(d);
	return 1;	/* one irq is enough: all have the same files */
}

/*
 * register_irq_proc() ignores a failed proc_create_data(), and freeing
 * the irq then WARNs in unregister_irq_proc() (npu_test.h,
 * NPU_KLOG_EXPECT_IRQ_PROC). A probe that bound the function with an
 * injected failure is checked here: each file of a good probe missing from
 * an irq's directory (the directory itself there, else there is nothing to
 * remove) is declared in the kernel log before the unbind frees the irq.
 */
static int irq_dir_check(struct ctx *c, const char *dir)
{
	char *name, *end, path[640], line[640];
	int fd;

	if (access(dir, F_OK))
		return 0;
	for (name = c->irq_files; (end = strchr(name, '\n')); name = end + 1) {
		snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(end - name),
			 name);
		if (!access(path, F_OK))
			continue;
		fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		snprintf(line, sizeof(line), "%s%.*s", NPU_KLOG_EXPECT_IRQ_PROC,
			 (int)(end - name), name);
		if (write(fd, line, strlen(line)) < 0) {
			close(fd);
			return -errno;
		}
		close(fd);
		PLOG("probe: %s missing after fault point %u: register_irq_proc() ignored the failure (declared)",
		     path, c->n);
		c->irq_proc_missing++;
	}
	return 0;
}

static int prep_unbind(struct ctx *c)
{
	if (!c->irq_files[0] && npu_bound(c)) {
		int ret = for_each_irq_dir(c, irq_files_take);

		if (ret <= 0 || !c->irq_files[0])
			return ret < 0 ? ret : -ENOENT;
	}
	if (c->dev >= 0)
		close(c->dev);
	c->dev = -1;
	return npu_bound(c) ? npu_unbind(c->bdf) : 0;
}

/* the records kmsg_find() read since kmsg_open_end(), for diagnostics */
static char kmsg_seen[4096];
static size_t kmsg_seen_len;

/* /dev/kmsg, positioned after the last record: what is logged next */
static int kmsg_open_end(void)
{
	kmsg_seen_len = 0;
	kmsg_seen[0] = '\0';

	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The message of the first record read from @fd that contains @a and
 * then @b, copied to @msg; 0 if there is one, -ENOENT if none.
 */
static int kmsg_find(int fd, const char *a, const char *b, char *msg,
		     size_t len)
{
	char rec[8192], *text, *p;	/* a record is at most ~1 KiB */
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			return -ENOENT;
		rec[n] = '\0';
		text = strchr(rec, ';');	/* "prio,seq,ts,flags;text" */
		text = text ? text + 1 : rec;
		p = strchr(text, '\n');
		if (p)
			*p = '\0';
		if (kmsg_seen_len < sizeof(kmsg_seen) - 1)
			kmsg_seen_len += snprintf(kmsg_seen + kmsg_seen_len,
						  sizeof(kmsg_seen) - kmsg_seen_len,
						  "# kmsg: %.300s\n", text);
		p = strstr(text, a);
		if (p && strstr(p + strlen(a), b)) {
			n = strnlen(text, len - 1);
			memcpy(msg, text, n);
			msg[n] = '\0';
			return 0;
		}
	}
}

/* /dev/npu0 opens and answers a PING */
static int npu_works(void)
{
	struct npu_ping p;
	int fd, ret;

	fd = npu_open();
	if (fd < 0)
		return fd;
	memset(&p, 0, sizeof(p));
	p.count = 1;
	ret = npu_ioctl(fd, NPU_IOCTL_PING, &p);
	close(fd);
	return ret;
}

static int call_probe(struct ctx *c)
{
	char pat[96], msg[256];
	int fd, kmsg, ret;

	fd = open("/sys/bus/pci/drivers_probe", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	kmsg = kmsg_open_end();
	if (kmsg < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* only the write is injected, not open and close */
	ret = c->n ? nth_set(c, c->n) : 0;
	if (!ret)
		ret = sys_ret(write(fd, c->bdf, strlen(c->bdf)));
	c->left = nth_get(c);
	nth_set(c, 0);
	close(fd);

	c->kind = PROBE_BOUND;
	if (npu_bound(c)) {
		close(kmsg);
		if (ret < 0) {
			PLOG("probe: bound, but the write failed: %s",
			       strerror(-ret));
			return -EPROTO;
		}
		/* udev-less guest: devtmpfs makes the node in misc_register() */
		if (access(NPU_DEV, F_OK))
			return -ENOENT;
		if (c->n && !c->left) {
			ret = for_each_irq_dir(c, irq_dir_check);
			if (ret < 0)
				return ret;
		}
		return npu_works();
	}
	/* a failed probe leaves neither a driver nor a device node */
	if (!access(NPU_DEV, F_OK)) {
		close(kmsg);
		PLOG("probe: %s exists, but the function has no driver",
		       NPU_DEV);
		return -EEXIST;
	}
	snprintf(pat, sizeof(pat), "probe of %s failed with error ", c->bdf);
	if (ret >= 0) {
		/* npu_probe() failed: its error is in the log */
		if (kmsg_find(kmsg, pat, "", msg, sizeof(msg))) {
			PLOG("probe: unbound after a good write, and no \"%s\" logged",
			       pat);
			ret = -ENODATA;
		} else {
			c->kind = PROBE_DRIVER;
			ret = atoi(strstr(msg, pat) + strlen(pat));
			if (ret >= 0)
				ret = -EPROTO;
			/* what led to an error the sweep does not expect */
			if (ret != -ENOMEM && ret != -EBUSY && ret != -ENOSPC)
				fputs(kmsg_seen, stderr);
		}
	} else if (ret == -EINVAL) {
		/*
		 * the driver core failed (an allocation of its own, as
		 * injected, so -ENOMEM); the writer only sees EINVAL
		 */
		if (kmsg_find(kmsg, c->bdf, "failed", msg, sizeof(msg))) {
			PLOG("probe: EINVAL and no failure of %s logged",
			       c->bdf);
			ret = -ENODATA;
		} else {
			c->kind = PROBE_CORE;
			ret = -ENOMEM;
		}
	} else if (ret == -ENOMEM) {
		c->kind = PROBE_WRITE;
	}
	close(kmsg);
	if (c->n && !c->left && c->kind != PROBE_BOUND)
		c->kinds[c->kind]++;
	return ret;
}

static void undo_probe(struct ctx *c)
{
	c->dev = npu_bound(c) ? npu_open() : -1;
}

static void report_probe(struct ctx *c)
{
	printf("# fail-nth probe: %u failed the write before the driver core (-ENOMEM), %u the driver core's binding (-EINVAL), %u npu_probe() (its error logged)\n",
	       c->kinds[PROBE_WRITE], c->kinds[PROBE_CORE],
	       c->kinds[PROBE_DRIVER]);
	printf("# fail-nth probe: %u /proc/irq files left missing by register_irq_proc(), each with its kernel-core WARN declared\n",
	       c->irq_proc_missing);
}

/* ---- the sweep ---------------------------------------------------------- */

struct sweep_res {
	unsigned int points;	/* fault points reached */
	unsigned int failed;	/* of which the call failed */
	unsigned int alt[2];	/* of which with op->alt[i].err */
	int last_err;		/* errno of the last failed call */
};

/*
 * One attempt with the Nth fault point failed (@n 0: none). Returns the
 * call's result; *left is fail-nth read back after it.
 */
static int attempt(struct __test_metadata *_metadata, struct ctx *c,
		   const struct sweep_op *op, unsigned int n, long *left)
{
	int ret;

	ret = op->prep ? op->prep(c) : 0;
	if (ret) {
		TH_LOG("%s: setup failed: %s", op->name, strerror(-ret));
		return INT_MIN;
	}
	if (op->injects) {
		/* the call writes fail-nth itself: see call_probe() */
		c->n = n;
		ret = op->call(c);
		*left = c->left;
	} else {
		if (n)
			nth_set(c, n);
		ret = op->call(c);
		*left = nth_get(c);
		nth_set(c, 0);
	}
	return ret;
}

static void sweep(struct __test_metadata *_metadata, struct ctx *c,
		  const struct sweep_op *op)
{
	struct sweep_res r = { 0 };
	int before, ret;
	unsigned int n;
	long left;

	before = npu_kernel_log_problems();
	for (n = 1; n < MAX_POINTS; n++) {
		ret = attempt(_metadata, c, op, n, &left);
		ASSERT_NE(INT_MIN, ret);
		ASSERT_LE(0, left);
		if (left > 0) {
			/* fewer than n fault points: no failure injected */
			EXPECT_LE(0, ret) TH_LOG("%s: fails without injection: %s",
						 op->name, strerror(-ret));
			if (op->undo && ret >= 0)
				op->undo(c);
			break;
		}
		r.points++;
		if (ret < 0) {
			r.failed++;
			r.last_err = -ret;
			if (op->alt[0].err && ret == op->alt[0].err)
				r.alt[0]++;
			else if (op->alt[1].err && ret == op->alt[1].err)
				r.alt[1]++;
			else
				EXPECT_EQ(-ENOMEM, ret)
					TH_LOG("%s: fault point %u: %s, not ENOMEM",
					       op->name, n, strerror(-ret));
		}
		if (op->undo)
			op->undo(c);
		/* no stuck state: the same call works without injection */
		ret = attempt(_metadata, c, op, 0, &left);
		ASSERT_NE(INT_MIN, ret);
		ASSERT_LE(0, ret) TH_LOG("%s: fails after fault point %u: %s",
					 op->name, n, strerror(-ret));
		if (op->undo)
			op->undo(c);
		if (_metadata->passed == 0)
			break;
	}
	EXPECT_GT(MAX_POINTS, n) TH_LOG("%s: no end of fault points", op->name);
	EXPECT_EQ(before, npu_kernel_log_problems())
		TH_LOG("%s: the kernel logged problems", op->name);
	printf("# fail-nth %s: %u fault points, %u failed the call, %u absorbed\n",
	       op->name, r.points, r.failed, r.points - r.failed);
	for (n = 0; n < 2 && op->alt[n].err; n++)
		printf("# fail-nth %s: %u of the failures with %s, not -ENOMEM: %s\n",
		       op->name, r.alt[n], strerror(-op->alt[n].err),
		       op->alt[n].why);
	if (op->report)
		op->report(c);
	fflush(stdout);
}

/*
 * remap_pfn_range() turns any failure of track_pfn_remap() into -EINVAL
 * (mm/memory.c, 6.1), and on x86 with PAT that is memtype_reserve(), which
 * allocates the range's memtype entry.
 */
#define BO_MMAP_EINVAL	"remap_pfn_range() returns it for any failure of x86 PAT's track_pfn_remap(), whose memtype entry is allocated"

/*
 * pcim_iomap_regions() requests the BAR with __pci_request_region(), which
 * returns -EBUSY when request_mem_region() fails, and that also happens
 * when it cannot allocate the region's struct resource (drivers/pci/pci.c,
 * kernel/resource.c). The probe without injection that follows proves
 * that no region was left busy.
 */
#define PROBE_EBUSY	"__pci_request_region() returns it when request_mem_region() cannot allocate the region's struct resource"

/*
 * pci_alloc_irq_vectors() returns -ENOSPC when the MSI-X interrupts
 * cannot be allocated in the irq domain, which their descriptors' failed
 * allocation makes happen (msi_handle_pci_fail(), kernel/irq/msi.c).
 */
#define PROBE_ENOSPC	"msi_handle_pci_fail() returns it for any failure to allocate the MSI-X interrupts in their irq domain, an allocation among them"

/*
 * io_submit_sqes() (io_uring/io_uring.c) ends the submission with -EAGAIN
 * when no request could be allocated, before the command is issued.
 */
#define URING_EAGAIN	"io_submit_sqes() returns it when io_uring cannot allocate the request, before the driver is reached"

/* ---- fixture ------------------------------------------------------------ */

FIXTURE(fnth) {
	struct ctx c;
	int knobs_set;
};

FIXTURE_SETUP(fnth)
{
	struct ctx *c = &self->c;
	unsigned int i;
	void *p;

	memset(c, 0, sizeof(*c));
	c->dev = c->tfd = c->ret_fd = c->nth = -1;
	if (access(FAIL_NTH, F_OK))
		SKIP(return, "no " FAIL_NTH " (kernel without CONFIG_FAULT_INJECTION: use npu-vm --kernel debug)");
	if (access(FI_DIR "/failslab", F_OK) ||
	    access(FI_DIR "/fail_page_alloc", F_OK))
		SKIP(return, "no failslab or fail_page_alloc in debugfs (CONFIG_FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS)");
	for (i = 0; i < N_KNOBS; i++) {
		ASSERT_EQ(0, npu_read_file(fi_knobs[i][0], c->saved[i],
					   sizeof(c->saved[i])));
		ASSERT_EQ(0, npu_write_file(fi_knobs[i][0], fi_knobs[i][1]));
	}
	self->knobs_set = 1;
	c->nth = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, c->nth);
	ASSERT_EQ(0, npu_find_bdf(c->bdf, sizeof(c->bdf)));
	c->dev = npu_open();
	ASSERT_LE(0, c->dev);

	/* a program and its buffers for SUBMIT and WAIT */
	ASSERT_EQ(0, npu_bo_new(c->dev, 4096, &c->prog));
	ASSERT_EQ(0, npu_bo_new(c->dev, PROG_N, &c->in));
	ASSERT_EQ(0, npu_bo_new(c->dev, PROG_N, &c->out));
	p = npu_bo_map(c->dev, &c->prog);
	ASSERT_NE(NULL, p);
	npu_clip_prog(p, PROG_N, 1, 2, 0, 255);
	munmap(p, c->prog.size);
	c->h[0] = c->prog.handle;
	c->h[1] = c->in.handle;
	c->h[2] = c->out.handle;
}

FIXTURE_TEARDOWN(fnth)
{
	struct ctx *c = &self->c;
	unsigned int i;

	if (c->nth >= 0) {
		nth_set(c, 0);
		close(c->nth);
	}
	if (c->ring_ok)
		io_uring_queue_exit(&c->ring);
	if (c->tfd >= 0)
		close(c->tfd);
	if (c->dev >= 0)
		close(c->dev);
	/* probe: leave the function bound, as the test found it */
	if (c->bdf[0] && access(NPU_DEV, F_OK))
		npu_rebind(c->bdf);
	for (i = 0; self->knobs_set && i < N_KNOBS; i++)
		npu_write_file(fi_knobs[i][0], c->saved[i]);
}

#define SWEEP(test, prep_fn, call_fn, undo_fn, ...)			\
	TEST_F_TIMEOUT(fnth, test, 1800)				\
	{								\
		static const struct sweep_op op = {			\
			.name = #test, .prep = prep_fn,			\
			.call = call_fn, .undo = undo_fn,		\
			__VA_ARGS__					\
		};							\
		if (!_metadata->skip)					\
			sweep(_metadata, &self->c, &op);		\
	}

/*	    name	   prep			call		   undo */
SWEEP(open,		   NULL,		call_open,	   undo_close)
SWEEP(get_info,		   NULL,		call_get_info,	   NULL)
SWEEP(ping,		   NULL,		call_ping,	   NULL)
SWEEP(bo_create,	   NULL,		call_bo_create,	   undo_bo_create)
SWEEP(bo_free,		   prep_bo,		call_bo_free,	   undo_bo_create)
SWEEP(bo_mmap,		   prep_bo,		call_bo_mmap,	   undo_bo_mmap,
      .alt = { { -EINVAL, BO_MMAP_EINVAL } })
SWEEP(submit,		   NULL,		call_submit,	   undo_submit)
SWEEP(wait,		   prep_job,		call_wait,	   undo_wait)
SWEEP(uring_submit,	   prep_uring,		call_uring_submit, NULL,
      .injects = 1, .alt = { { -EAGAIN, URING_EAGAIN } })
SWEEP(clock_sample,	   NULL,		call_clock_sample, NULL)
SWEEP(trace_open,	   NULL,		call_trace_open,   undo_close)
SWEEP(trace_enable,	   prep_trace,		call_trace_enable, undo_trace)
SWEEP(trace_disable,	   prep_trace_enabled,	call_trace_disable, undo_trace)
SWEEP(trace_status,	   prep_trace,		call_trace_status, undo_trace)
SWEEP(trace_ring_mmap,	   prep_trace,		call_ring_mmap,	   undo_ring_mmap)
SWEEP(probe,		   prep_unbind,		call_probe,	   undo_probe,
      .injects = 1, .report = report_probe,
      .alt = { { -EBUSY, PROBE_EBUSY }, { -ENOSPC, PROBE_ENOSPC } })

TEST_HARNESS_MAIN
