// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_fuzz - deterministic fuzzer of npu.ko's user inputs.
 *
 * With a fixed seed (NPU_FUZZ_SEED, printed) and a fixed iteration count
 * (NPU_FUZZ_ITERS), it calls on /dev/npu0 and on trace fds every ioctl
 * number of uapi/linux/npu.h plus mutated (wrong size, direction, type)
 * and unknown numbers, with random struct contents, NULL and bad user
 * pointers, and mmap()s with random offsets, lengths and protections on
 * both kinds of fd, interleaved with valid buffer creation/free and small
 * valid CLIP jobs. Every call must succeed or fail with an expected errno.
 * Afterwards the device must still run a job correctly and the kernel log
 * must hold no warning.
 *
 * Timeouts and counts that could block are bounded small, so the run takes
 * a few seconds of guest time.
 */

#include <poll.h>
#include <sys/klog.h>

#include "kselftest_harness.h"
#include "npu_test.h"

#define FUZZ_SEED_DEF	0x6e70755f66757a7aull
#define FUZZ_ITERS_DEF	10000
#define FUZZ_MAX_BOS	16
#define FUZZ_BO_MAX	(64 * 1024)
#define FUZZ_ARG_SIZE	8192

/* Unexpected results go to stderr at once: a crash must not lose them. */
#define TH_LOG_FUZZ(fmt, ...) \
	fprintf(stderr, "# npu_fuzz: " fmt "\n", ##__VA_ARGS__)

static unsigned long long rng_state;

static unsigned long long rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned int rnd_below(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

/* A "interesting" 64-bit value: boundaries, small, huge or random. */
static unsigned long long rnd_val(void)
{
	static const unsigned long long v[] = {
		0, 1, 2, 3, 7, 8, 63, 64, 4095, 4096, 4097, 65536,
		0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull,
		0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, ~0ull - 1,
		NPU_PE_ANY, NPU_MAX_JOB_BUFS, NPU_MAX_JOB_BUFS + 1,
		NPU_PING_MAX_COUNT + 1, NPU_TRACE_MAX_DATA_PAGES,
		NPU_TRACE_MAX_DATA_PAGES * 2, NPU_CLOCK_MAX_SAMPLES + 1,
	};

	switch (rnd_below(4)) {
	case 0:
		return v[rnd_below(ARRAY_SIZE(v))];
	case 1:
		return rnd_below(16);
	case 2:
		return 1ull << rnd_below(64);
	default:
		return rnd();
	}
}

static const unsigned int dev_cmds[] = {
	NPU_IOCTL_GET_INFO, NPU_IOCTL_PING, NPU_IOCTL_BO_CREATE,
	NPU_IOCTL_BO_FREE, NPU_IOCTL_SUBMIT, NPU_IOCTL_WAIT,
	NPU_IOCTL_TRACE_OPEN, NPU_IOCTL_CLOCK_SAMPLE,
	NPU_TRACE_IOCTL_ENABLE, NPU_TRACE_IOCTL_DISABLE,
	NPU_TRACE_IOCTL_STATUS,
};

#define N_CMDS ARRAY_SIZE(dev_cmds)

struct fuzz_stats {
	unsigned long calls;
	unsigned long ok;
	unsigned long errs[256];
	unsigned long unexpected;
	unsigned long cmd_calls[N_CMDS];
	unsigned long cmd_ok[N_CMDS];
	unsigned long jobs_ok;
	unsigned long valid_enomem;
	unsigned long mmaps_ok;
	unsigned long trace_opened;
};

struct fuzz_ctx {
	int fd;				/* /dev/npu0, O_NONBLOCK */
	int tfd;			/* a trace fd or -1 */
	unsigned int bos[FUZZ_MAX_BOS];
	struct npu_bo_create bo_info[FUZZ_MAX_BOS];
	unsigned int nbos;
	unsigned char *arg;		/* FUZZ_ARG_SIZE bytes, then a hole */
	unsigned char *hole;		/* PROT_NONE page after arg */
	unsigned long long last_job;	/* id of the last fuzzed SUBMIT */
	struct fuzz_stats st;
};

/* Errnos any fuzzed call may return. */
static int errno_expected(int e)
{
	switch (e) {
	case EINVAL: case ENOTTY: case EFAULT: case ENOENT: case ETIMEDOUT:
	case EAGAIN: case EBUSY: case EACCES: case EPERM: case ENOSPC:
	case EOPNOTSUPP: case ENOMEM: case E2BIG: case EOVERFLOW:
	case ERANGE: case ENXIO: case EBADF: case EDQUOT:
		return 1;
	default:
		return 0;
	}
}

static void note(struct fuzz_ctx *c, const char *what, unsigned long cmd,
		 int ret)
{
	c->st.calls++;
	if (ret >= 0) {
		c->st.ok++;
		return;
	}
	if (-ret < 256)
		c->st.errs[-ret]++;
	if (!errno_expected(-ret)) {
		c->st.unexpected++;
		if (c->st.unexpected <= 10)
			TH_LOG_FUZZ("unexpected %s 0x%lx: %s", what, cmd,
				    strerror(-ret));
	}
}

/* Device commands are dev_cmds[0..7], trace fd commands [8..10]. */
static unsigned int fuzz_cmd(int trace)
{
	unsigned int cmd;

	if (rnd_below(4) == 0)
		cmd = dev_cmds[rnd_below(N_CMDS)];
	else if (trace)
		cmd = dev_cmds[8 + rnd_below(3)];
	else
		cmd = dev_cmds[rnd_below(8)];

	switch (rnd_below(12)) {
	case 0:		/* wrong size */
		cmd = _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
			   rnd_below(_IOC_SIZEMASK + 1));
		break;
	case 1:		/* wrong direction */
		cmd = _IOC(rnd_below(4), _IOC_TYPE(cmd), _IOC_NR(cmd),
			   _IOC_SIZE(cmd));
		break;
	case 2:		/* unknown number in our type */
		cmd = _IOC(rnd_below(4), NPU_IOCTL_BASE, rnd_below(256),
			   rnd_below(1024));
		break;
	case 3:		/* anything */
		cmd = (unsigned int)rnd();
		break;
	default:	/* a real command */
		break;
	}
	return cmd;
}

/* A valid argument for @cmd in c->arg, or 0 when there is none. */
static int fuzz_valid_base(struct fuzz_ctx *c, unsigned int cmd)
{
	unsigned int *h = (void *)(c->arg + 4096);
	unsigned int i, n;

	memset(c->arg, 0, FUZZ_ARG_SIZE);
	switch (cmd) {
	case NPU_IOCTL_BO_CREATE: {
		struct npu_bo_create *b = (void *)c->arg;

		b->size = 1 + rnd_below(FUZZ_BO_MAX);
		b->flags = rnd_below(2) ? NPU_BO_PROGRAM : 0;
		return 1;
	}
	case NPU_IOCTL_SUBMIT: {
		struct npu_submit *s = (void *)c->arg;

		if (!c->nbos)
			return 0;
		/* distinct handles of ours; the program slot holds garbage */
		n = 1 + rnd_below(c->nbos < NPU_MAX_JOB_BUFS ?
				  c->nbos : NPU_MAX_JOB_BUFS);
		for (i = 0; i < n; i++)
			h[i] = c->bos[i];
		s->job.pe = rnd_below(2) ? NPU_PE_ANY : 0;
		s->job.nbufs = n;
		s->job.prog_slot = rnd_below(n);
		s->job.prog_size = 64 * (1 + rnd_below(4));
		s->job.bufs = (uintptr_t)h;
		return 1;
	}
	case NPU_IOCTL_WAIT: {
		struct npu_wait *w = (void *)c->arg;

		w->flags = rnd_below(2) ? NPU_WAIT_ANY : 0;
		w->job_id = c->last_job - rnd_below(3);
		return 1;
	}
	case NPU_IOCTL_PING: {
		struct npu_ping *p = (void *)c->arg;

		p->count = 1 + rnd_below(4);
		return 1;
	}
	case NPU_IOCTL_CLOCK_SAMPLE: {
		struct npu_clock_sample *s = (void *)c->arg;

		s->clockid = CLOCK_MONOTONIC;
		s->count = 1 + rnd_below(NPU_CLOCK_MAX_SAMPLES);
		return 1;
	}
	case NPU_IOCTL_TRACE_OPEN: {
		struct npu_trace_open *t = (void *)c->arg;

		t->data_pages = 1u << rnd_below(4);
		t->flags = rnd_below(2) ? NPU_TRACE_ALL_PROCESSES : 0;
		return 1;
	}
	case NPU_TRACE_IOCTL_ENABLE: {
		struct npu_trace_enable *e = (void *)c->arg;

		e->level = rnd_below(3);
		return 1;
	}
	case NPU_IOCTL_BO_FREE: {
		struct npu_bo_free *f = (void *)c->arg;

		if (!c->nbos)
			return 0;
		f->handle = c->bos[rnd_below(c->nbos)];
		return 1;
	}
	case NPU_IOCTL_GET_INFO:
	case NPU_TRACE_IOCTL_STATUS:
		return 1;
	default:
		return 0;
	}
}

/* Bound what could block or loop long, whatever the other fields hold. */
static void fuzz_bound(unsigned int cmd, unsigned char *a)
{
	if (cmd == NPU_IOCTL_WAIT) {
		struct npu_wait *w = (void *)a;

		w->timeout_ns = rnd_below(2) ? 0 : rnd_below(2000000);
	} else if (cmd == NPU_IOCTL_PING) {
		struct npu_ping *p = (void *)a;

		if (p->count > 4 && p->count <= NPU_PING_MAX_COUNT)
			p->count = 1 + rnd_below(4);
	}
}

/* Fill a struct-sized argument with random fields, some kept valid. */
static void fuzz_fill(struct fuzz_ctx *c, unsigned int cmd)
{
	unsigned char *a = c->arg;
	size_t i;

	if (rnd_below(2) == 0 && fuzz_valid_base(c, cmd)) {
		/* a valid argument with at most one field changed */
		if (rnd_below(3)) {
			unsigned long long v = rnd_val();
			unsigned int off = rnd_below(_IOC_SIZE(cmd) / 4) * 4;

			memcpy(a + off, &v, rnd_below(2) ? 8 : 4);
		}
		fuzz_bound(cmd, a);
		return;
	} else if (rnd_below(3) == 0) {
		for (i = 0; i < FUZZ_ARG_SIZE; i += 8) {
			unsigned long long v = rnd_val();

			memcpy(a + i, &v, 8);
		}
	} else {
		memset(a, 0, FUZZ_ARG_SIZE);
		/* a few random 32/64-bit fields, rest zero */
		for (i = rnd_below(4); i > 0; i--) {
			unsigned long long v = rnd_val();
			unsigned int off = rnd_below(128) & ~3u;

			memcpy(a + off, &v, rnd_below(2) ? 8 : 4);
		}
	}

	/* Keep commands that can block or loop long bounded. */
	if (cmd == NPU_IOCTL_WAIT) {
		struct npu_wait *w = (void *)a;

		w->timeout_ns = rnd_below(2) ? 0 : rnd_below(2000000);
		if (rnd_below(2))
			w->job_id = rnd_below(4) ? rnd_below(64) : rnd();
		if (rnd_below(2))
			w->flags = rnd_below(3);
	} else if (cmd == NPU_IOCTL_PING) {
		struct npu_ping *p = (void *)a;

		if (p->count > 4 && p->count <= NPU_PING_MAX_COUNT)
			p->count = 1 + rnd_below(4);
	} else if (cmd == NPU_IOCTL_CLOCK_SAMPLE) {
		struct npu_clock_sample *s = (void *)a;

		if (rnd_below(2)) {
			s->clockid = rnd_below(8);
			s->count = rnd_below(NPU_CLOCK_MAX_SAMPLES + 2);
		}
	} else if (cmd == NPU_IOCTL_SUBMIT) {
		struct npu_submit *s = (void *)a;
		unsigned int *h = (void *)(a + 4096);

		/* handles: ours, freed, or random */
		for (i = 0; i < NPU_MAX_JOB_BUFS + 2; i++)
			h[i] = c->nbos && rnd_below(2) ?
				c->bos[rnd_below(c->nbos)] : rnd_val();
		switch (rnd_below(4)) {
		case 0:
			s->job.bufs = (uintptr_t)h;
			break;
		case 1:
			s->job.bufs = (uintptr_t)c->hole - 4 * rnd_below(4);
			break;
		default:
			break;
		}
		if (rnd_below(2))
			s->job.nbufs = rnd_below(NPU_MAX_JOB_BUFS + 2);
		if (rnd_below(2))
			s->job.pe = rnd_below(2) ? NPU_PE_ANY : rnd_below(4);
	} else if (cmd == NPU_IOCTL_TRACE_OPEN) {
		struct npu_trace_open *t = (void *)a;

		if (rnd_below(2)) {
			t->data_pages = 1u << rnd_below(14);
			t->flags = rnd_below(3);
			t->watermark = rnd_below(2) ? 0 : rnd_val();
		}
	} else if (cmd == NPU_IOCTL_BO_FREE) {
		struct npu_bo_free *f = (void *)a;

		if (c->nbos && rnd_below(2))
			f->handle = c->bos[rnd_below(c->nbos)];
	} else if (cmd == NPU_IOCTL_BO_CREATE) {
		struct npu_bo_create *b = (void *)a;

		/* huge sizes fail with ENOMEM/EINVAL; keep successes small */
		if (b->size && b->size <= (1ull << 32) && !rnd_below(4))
			b->size = 1 + rnd_below(FUZZ_BO_MAX);
	} else if (cmd == NPU_TRACE_IOCTL_ENABLE) {
		struct npu_trace_enable *e = (void *)a;

		if (rnd_below(2))
			e->level = rnd_below(4);
	}
}

/* Pointer argument: our buffer, NULL, bad or partly unmapped. */
static unsigned long fuzz_ptr(struct fuzz_ctx *c)
{
	switch (rnd_below(10)) {
	case 0:
		return 0;
	case 1:
		return 1 + rnd_below(4096);
	case 2:
		return (unsigned long)c->hole;
	case 3:	/* straddles into the PROT_NONE page */
		return (unsigned long)c->hole - 1 - rnd_below(64);
	case 4:
		return 0xffff888000000000ul + rnd_below(1 << 20) * 8;
	case 5:
		return rnd();
	default:
		return (unsigned long)c->arg;
	}
}

/* Created BOs that a later SUBMIT/mmap/FREE case may pick. */
static void bo_track(struct fuzz_ctx *c, const struct npu_bo_create *b)
{
	if (c->nbos < FUZZ_MAX_BOS && b->size <= FUZZ_BO_MAX) {
		c->bo_info[c->nbos] = *b;
		c->bos[c->nbos++] = b->handle;
	} else {
		/* keep device memory bounded: free big or extra ones */
		npu_bo_del(c->fd, b->handle);
	}
}

static void bo_forget(struct fuzz_ctx *c, unsigned int handle)
{
	unsigned int i;

	for (i = 0; i < c->nbos; i++) {
		if (c->bos[i] == handle) {
			c->bos[i] = c->bos[c->nbos - 1];
			c->bo_info[i] = c->bo_info[c->nbos - 1];
			c->nbos--;
			return;
		}
	}
}

static void fuzz_ioctl(struct fuzz_ctx *c)
{
	int fd = c->tfd >= 0 && rnd_below(3) == 0 ? c->tfd : c->fd;
	unsigned int cmd = fuzz_cmd(fd != c->fd);
	unsigned long ptr;
	unsigned int k;
	int ret;

	fuzz_fill(c, cmd);
	ptr = fuzz_ptr(c);
	ret = ioctl(fd, cmd, ptr) ? -errno : 0;
	note(c, fd == c->fd ? "dev ioctl" : "trace ioctl", cmd, ret);
	/*
	 * Only a big buffer or ring may run out of memory: a small buffer
	 * (fuzzed buffers are freed or kept small) or any other call not.
	 */
	if (ret == -ENOMEM && ptr == (unsigned long)c->arg &&
	    !(cmd == NPU_IOCTL_BO_CREATE &&
	      ((struct npu_bo_create *)c->arg)->size > (1ull << 20)) &&
	    cmd != NPU_IOCTL_TRACE_OPEN) {
		c->st.unexpected++;
		TH_LOG_FUZZ("unexpected ENOMEM from ioctl 0x%x", cmd);
	}
	for (k = 0; k < N_CMDS; k++) {
		if (cmd == dev_cmds[k]) {
			c->st.cmd_calls[k]++;
			c->st.cmd_ok[k] += !ret;
		}
	}
	if (ret || ptr != (unsigned long)c->arg)
		return;
	if (cmd == NPU_IOCTL_SUBMIT && fd == c->fd)
		c->last_job = ((struct npu_submit *)c->arg)->job_id;
	if (cmd == NPU_IOCTL_BO_CREATE && fd == c->fd) {
		bo_track(c, (void *)c->arg);
	} else if (cmd == NPU_IOCTL_BO_FREE && fd == c->fd) {
		bo_forget(c, ((struct npu_bo_free *)c->arg)->handle);
	} else if (cmd == NPU_IOCTL_TRACE_OPEN) {
		struct npu_trace_open *t = (void *)c->arg;

		c->st.trace_opened++;
		/* keep the newest trace fd for trace ioctls and mmaps */
		if (c->tfd >= 0)
			close(c->tfd);
		c->tfd = t->fd;
	}
}

static void fuzz_mmap(struct fuzz_ctx *c)
{
	static const int prots[] = {
		PROT_READ, PROT_WRITE, PROT_READ | PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_EXEC,
	};
	int use_trace = c->tfd >= 0 && rnd_below(2);
	int fd = use_trace ? c->tfd : c->fd;
	int prot = prots[rnd_below(5)];
	int flags = rnd_below(4) ? MAP_SHARED : MAP_PRIVATE;
	unsigned long long off;
	size_t len;
	void *p;
	int ret;

	if (!use_trace && c->nbos && rnd_below(2)) {
		const struct npu_bo_create *b = &c->bo_info[rnd_below(c->nbos)];

		off = b->mmap_offset + 4096ull * rnd_below(3) *
		      (rnd_below(2) ? 1 : -1);
		len = b->size + 4096 * (rnd_below(3) - 1ll);
	} else if (use_trace && rnd_below(2)) {
		/* header page and/or data pages of the ring */
		off = 4096ull * rnd_below(3);
		len = 4096 * (1 + rnd_below(6));
	} else {
		off = rnd_below(2) ? 4096ull * rnd_below(32) : rnd_val();
		len = rnd_below(2) ? 4096 * (1 + rnd_below(8)) : rnd_val();
	}
	if (rnd_below(8) == 0)
		off |= 1 + rnd_below(4095);	/* unaligned: EINVAL */
	if (len > (1ull << 40))
		len = 1ull << 40;
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	ret = p == MAP_FAILED ? -errno : 0;
	note(c, use_trace ? "trace mmap" : "dev mmap", off, ret);
	if (ret)
		return;
	c->st.mmaps_ok++;
	if (prot & PROT_READ)
		(void)__atomic_load_n((unsigned char *)p, __ATOMIC_RELAXED);
	/* writing the trace header sets a random consumer; the kernel copes */
	if ((prot & PROT_WRITE) && flags == MAP_SHARED &&
	    (!use_trace || off == 0))
		__atomic_store_n((unsigned long long *)p + (use_trace ? 16 : 0),
				 rnd(), __ATOMIC_RELAXED);
	munmap(p, len);
}

/* A valid BO create/free or a small valid CLIP job. */
static int fuzz_valid(struct fuzz_ctx *c, struct __test_metadata *_metadata)
{
	unsigned int n = 64 + rnd_below(512);
	struct npu_bo_create in, out, pr;
	unsigned int h[3];
	unsigned long long id;
	unsigned char *pi, *po;
	struct npu_wait w;
	void *pp;
	unsigned int i;
	int ret;

	if (rnd_below(2)) {
		ret = npu_bo_new(c->fd, 1 + rnd_below(FUZZ_BO_MAX), &in);
		note(c, "valid bo_create", 0, ret);
		if (ret == -ENOMEM)
			c->st.valid_enomem++;
		if (ret)
			return ret == -ENOMEM ? 0 : ret;
		if (rnd_below(2))
			bo_track(c, &in);
		else
			ret = npu_bo_del(c->fd, in.handle);
		note(c, "valid bo_free", 0, ret);
		return ret;
	}

	if (npu_bo_new(c->fd, 4096, &in) || npu_bo_new(c->fd, 4096, &out) ||
	    npu_bo_new(c->fd, 4096, &pr)) {
		c->st.valid_enomem++;
		return 0;
	}
	pi = npu_bo_map(c->fd, &in);
	po = npu_bo_map(c->fd, &out);
	pp = npu_bo_map(c->fd, &pr);
	if (!pi || !po || !pp) {
		ret = -errno;
		goto out;
	}
	for (i = 0; i < n; i++)
		pi[i] = (unsigned char)rnd();
	npu_clip_prog(pp, n, 0, 1, 16, 200);
	h[0] = in.handle;
	h[1] = out.handle;
	h[2] = pr.handle;
	ret = npu_submit_job(c->fd, rnd_below(2) ? NPU_PE_ANY : 0, h, 3, 2, 0,
			     NPU_CLIP_PROG_SIZE, &id);
	note(c, "valid submit", NPU_IOCTL_SUBMIT, ret);
	if (ret == -EAGAIN) {	/* queue full of fuzzed jobs */
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	ret = npu_wait_job(c->fd, id, 0, 5000000000ll, &w);
	note(c, "valid wait", NPU_IOCTL_WAIT, ret);
	if (ret)
		goto out;
	if (w.result.status != NPU_JOB_OK) {
		TH_LOG("valid job status %u", w.result.status);
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < n; i++) {
		unsigned int e = pi[i] < 16 ? 16 : pi[i] > 200 ? 200 : pi[i];

		if (po[i] != e) {
			TH_LOG("job output[%u] = %u, want %u", i, po[i], e);
			ret = -EIO;
			goto out;
		}
	}
	c->st.jobs_ok++;
out:
	if (pi)
		munmap(pi, in.size);
	if (po)
		munmap(po, out.size);
	if (pp)
		munmap(pp, pr.size);
	npu_bo_del(c->fd, in.handle);
	npu_bo_del(c->fd, out.handle);
	npu_bo_del(c->fd, pr.handle);
	return ret;
}

/* A fixture only for TEST_F_TIMEOUT: KASAN makes the run slow */
FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, user_inputs, 300)
{
	unsigned long long seed = npu_env_u64("NPU_FUZZ_SEED", FUZZ_SEED_DEF);
	unsigned long iters = npu_env_u64("NPU_FUZZ_ITERS", FUZZ_ITERS_DEF);
	struct fuzz_ctx c;
	struct npu_trace_open t;
	unsigned long i;
	unsigned char *area;
	struct npu_wait w;
	unsigned long long t0 = npu_now_ns();
	unsigned int k;
	int e, ret;

	memset(&c, 0, sizeof(c));
	rng_state = seed ? seed : 1;
	ksft_print_msg("npu_fuzz: seed 0x%llx, %lu iterations\n", seed, iters);

	area = mmap(NULL, FUZZ_ARG_SIZE + 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	c.arg = area;
	c.hole = area + FUZZ_ARG_SIZE;
	ASSERT_EQ(0, mprotect(c.hole, 4096, PROT_NONE));

	c.fd = open(NPU_DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	fflush(stdout);
	ASSERT_LE(0, c.fd) TH_LOG("open %s: %s", NPU_DEV, strerror(errno));
	memset(&t, 0, sizeof(t));
	t.data_pages = 4;
	ASSERT_EQ(0, npu_ioctl(c.fd, NPU_IOCTL_TRACE_OPEN, &t));
	c.tfd = t.fd;

	for (i = 0; i < iters; i++) {
		unsigned int r = rnd_below(100);

		if (r < 70) {
			fuzz_ioctl(&c);
		} else if (r < 90) {
			fuzz_mmap(&c);
		} else {
			ret = fuzz_valid(&c, _metadata);
			ASSERT_EQ(0, ret)
				TH_LOG("valid operation failed at iteration %lu: %s",
				       i, strerror(-ret));
		}
	}

	/* collect whatever fuzzed jobs completed, without blocking */
	for (i = 0; i < 4096; i++)
		if (npu_wait_job(c.fd, 0, NPU_WAIT_ANY, 0, &w))
			break;

	ksft_print_msg("npu_fuzz: %lu calls, %lu ok, %lu valid jobs, %lu mmaps, %lu trace fds\n",
		       c.st.calls, c.st.ok, c.st.jobs_ok, c.st.mmaps_ok,
		       c.st.trace_opened);
	for (k = 0; k < N_CMDS; k++)
		ksft_print_msg("npu_fuzz:   cmd 0x%08x: %lu calls, %lu ok\n",
			       dev_cmds[k], c.st.cmd_calls[k], c.st.cmd_ok[k]);
	ksft_print_msg("npu_fuzz: %llu ms of guest time\n",
		       (npu_now_ns() - t0) / 1000000);
	for (e = 1; e < 256; e++)
		if (c.st.errs[e])
			ksft_print_msg("npu_fuzz:   errno %d (%s): %lu\n", e,
				       strerror(e), c.st.errs[e]);
	/* the harness's child ends with _exit(): flush what we printed */
	fflush(stdout);
	EXPECT_EQ(0, c.st.unexpected);
	/* valid small allocations never ran out of device memory */
	EXPECT_EQ(0, c.st.valid_enomem);
	EXPECT_LT(0, c.st.jobs_ok);
	EXPECT_LT(0, c.st.ok);
	/* every ioctl of the ABI was exercised with its exact number */
	for (k = 0; k < N_CMDS; k++)
		EXPECT_LT(0, c.st.cmd_calls[k]) TH_LOG("cmd 0x%08x", dev_cmds[k]);

	if (c.tfd >= 0)
		close(c.tfd);
	close(c.fd);
	munmap(area, FUZZ_ARG_SIZE + 4096);
}

/* After the fuzzing (its fds are closed), the device works as before. */
TEST(device_works_after)
{
	struct npu_bo_create in, out, pr;
	struct npu_info info;
	unsigned int h[3], i;
	unsigned long long id;
	unsigned char *pi, *po;
	struct npu_wait w;
	int fd;

	fd = npu_open();
	ASSERT_LE(0, fd);
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(NPU_INFO_VERSION, info.version);
	EXPECT_LT(0, info.pe_count);

	ASSERT_EQ(0, npu_bo_new(fd, 4096, &in));
	ASSERT_EQ(0, npu_bo_new(fd, 4096, &out));
	ASSERT_EQ(0, npu_bo_new(fd, 4096, &pr));
	pi = npu_bo_map(fd, &in);
	po = npu_bo_map(fd, &out);
	ASSERT_NE(NULL, pi);
	ASSERT_NE(NULL, po);
	for (i = 0; i < 4096; i++)
		pi[i] = i * 7;
	memset(po, 0xaa, 4096);
	{
		void *pp = npu_bo_map(fd, &pr);

		ASSERT_NE(NULL, pp);
		npu_clip_prog(pp, 4096, 0, 1, 10, 240);
		munmap(pp, pr.size);
	}
	h[0] = in.handle;
	h[1] = out.handle;
	h[2] = pr.handle;
	ASSERT_EQ(0, npu_submit_job(fd, NPU_PE_ANY, h, 3, 2, 0,
				    NPU_CLIP_PROG_SIZE, &id));
	ASSERT_EQ(0, npu_wait_job(fd, id, 0, 10000000000ll, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	for (i = 0; i < 4096; i++) {
		unsigned int v = (unsigned char)(i * 7);
		unsigned int e = v < 10 ? 10 : v > 240 ? 240 : v;

		ASSERT_EQ(e, po[i]) TH_LOG("output[%u]", i);
	}
	/* no fuzzed job is left to this fresh fd */
	EXPECT_EQ(-ENOENT, npu_wait_job(fd, 0, NPU_WAIT_ANY, 0, &w));
	munmap(pi, in.size);
	munmap(po, out.size);
	close(fd);
}

TEST(kernel_log_clean)
{
	int found = npu_kernel_log_problems();

	ASSERT_LE(0, found);
	EXPECT_EQ(0, found);
}

TEST_HARNESS_MAIN
