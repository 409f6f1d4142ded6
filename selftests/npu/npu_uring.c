// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_uring - job submission through io_uring (IORING_OP_URING_CMD,
 * NPU_URING_CMD_SUBMIT; Documentation/npu/uapi.rst): a batch of 32 SQEs in
 * one io_uring_submit() with every output checked, ioctl and io_uring jobs
 * mixed on one fd, bad commands, and cancellation when the fd or the ring
 * is closed with jobs in flight. The cancellation tests need a PE that
 * never finishes:
 *
 *   npu-vm --stall-pe 1 -- 'NPU_EMU_STALL_PE=1 npu_uring'
 *
 * Without it they are skipped; the other tests use a PE that works.
 *
 * runner_spans_same_on_both_paths runs libnpu's runner (MNIST, from
 * $NPU_BUILD/models) once per submission path in a profiling session of
 * its own and checks that both traces hold the same spans, each job's EXEC
 * record joined to its SUBMIT span.
 */

#include <sys/utsname.h>

#include <liburing.h>

#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "npu_test.h"
#include "npuprof_check.h"
#include "trace_lib.h"

#define N		4096
#define NJOBS		32
#define PROG_STRIDE	256	/* a program per job, 64-byte aligned */
#define TIMEOUT_PARAM	"/sys/module/npu/parameters/job_timeout_ms"
#define MAX_JOBS_PARAM	"/sys/module/npu/parameters/max_file_jobs"

_Static_assert(NPU_CLIP_PROG_SIZE <= PROG_STRIDE, "program stride");

/* Fill an SQE by hand: liburing 2.3 has no io_uring_prep_cmd(). */
static void prep_submit(struct io_uring_sqe *sqe, int fd,
			const struct npu_uring_submit *req, __u64 user_data)
{
	if (!sqe)
		abort();	/* the tests never fill the ring */
	memset((char *)sqe, 0, 2 * sizeof(*sqe));	/* an SQE128 slot */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = NPU_URING_CMD_SUBMIT;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, req, sizeof(*req));
}

static int ring_init(struct io_uring *ring, unsigned int flags)
{
	return io_uring_queue_init(64, ring, flags);
}

/* Reap one CQE: its res, user_data and (CQE32) big_cqe[0]. */
static int reap(struct io_uring *ring, __u64 *user_data, __u64 *id)
{
	struct io_uring_cqe *cqe;
	int ret, res;

	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	res = cqe->res;
	*user_data = cqe->user_data;
	*id = (ring->flags & IORING_SETUP_CQE32) ? cqe->big_cqe[0] : 0;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* The kernel cancels commands when a ring exits from 6.7 on. */
static bool kernel_cancels_on_ring_exit(void)
{
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 7);
}

FIXTURE(uring) {
	int fd;
	int good;		/* a PE that runs jobs */
	int stalled;		/* NPU_EMU_STALL_PE, or -1 */
	struct npu_info info;
	unsigned int prog, in, out[NJOBS];
	unsigned char *in_map, *out_map[NJOBS];
	struct io_uring ring;
	bool ring_up;
	unsigned long long saved_timeout, saved_max_jobs;
};

FIXTURE_SETUP(uring)
{
	struct npu_bo_create b;
	unsigned char *p;
	int i;

	self->stalled = (int)npu_env_u64("NPU_EMU_STALL_PE", ~0ull);
	ASSERT_EQ(0, npu_read_u64(TIMEOUT_PARAM, &self->saved_timeout));
	ASSERT_EQ(0, npu_read_u64(MAX_JOBS_PARAM, &self->saved_max_jobs));
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &self->info));
	self->good = self->stalled >= 0 ?
		     (self->stalled + 1) % (int)self->info.pe_count : 0;
	if (self->good == self->stalled)
		self->good = -1;

	/* program k: out = clamp(in, 0, 100 + k) */
	ASSERT_EQ(0, npu_bo_new(self->fd, NJOBS * PROG_STRIDE, &b));
	self->prog = b.handle;
	p = npu_bo_map(self->fd, &b);
	ASSERT_NE(NULL, p);
	for (i = 0; i < NJOBS; i++)
		npu_clip_prog(p + i * PROG_STRIDE, N, 1, 2, 0, 100 + i);
	munmap(p, b.size);

	ASSERT_EQ(0, npu_bo_new(self->fd, N, &b));
	self->in = b.handle;
	self->in_map = npu_bo_map(self->fd, &b);
	ASSERT_NE(NULL, self->in_map);
	for (i = 0; i < N; i++)
		self->in_map[i] = (unsigned char)(i * 7);
	for (i = 0; i < NJOBS; i++) {
		ASSERT_EQ(0, npu_bo_new(self->fd, N, &b));
		self->out[i] = b.handle;
		self->out_map[i] = npu_bo_map(self->fd, &b);
		ASSERT_NE(NULL, self->out_map[i]);
	}
	ASSERT_EQ(0, ring_init(&self->ring, IORING_SETUP_SQE128 |
			       IORING_SETUP_CQE32));
	self->ring_up = true;
}

FIXTURE_TEARDOWN(uring)
{
	char buf[32];

	if (self->ring_up)
		io_uring_queue_exit(&self->ring);
	snprintf(buf, sizeof(buf), "%llu", self->saved_timeout);
	npu_write_file(TIMEOUT_PARAM, buf);
	snprintf(buf, sizeof(buf), "%llu", self->saved_max_jobs);
	npu_write_file(MAX_JOBS_PARAM, buf);
	if (self->fd >= 0)
		close(self->fd);
}

/* Job k of the fixture: program k, the input, output k. */
static void job_req(FIXTURE_DATA(uring) *self, int k, unsigned int pe,
		    unsigned int *handles, struct npu_job_result *res,
		    struct npu_uring_submit *req)
{
	handles[0] = self->prog;
	handles[1] = self->in;
	handles[2] = self->out[k];
	memset(req, 0, sizeof(*req));
	req->job.pe = pe;
	req->job.nbufs = 3;
	req->job.prog_slot = 0;
	req->job.prog_offset = k * PROG_STRIDE;
	req->job.prog_size = NPU_CLIP_PROG_SIZE;
	req->job.bufs = (uintptr_t)handles;
	req->result = (uintptr_t)res;
}

/* Output k holds clamp(in, 0, 100 + k). */
static int out_ok(FIXTURE_DATA(uring) *self, int k)
{
	int i, want;

	for (i = 0; i < N; i++) {
		want = self->in_map[i] < 100 + k ? self->in_map[i] : 100 + k;
		if (self->out_map[k][i] != want)
			return 0;
	}
	return 1;
}

#define NEED_GOOD() do { \
	if (self->good < 0) \
		SKIP(return, "no PE that runs jobs"); \
} while (0)

#define NEED_STALL() do { \
	if (self->stalled < 0) \
		SKIP(return, "NPU_EMU_STALL_PE not set (run with npu-vm --stall-pe N)"); \
} while (0)

/* Submit one command and return its CQE's res (and big_cqe[0] in *id). */
static int submit_one(struct io_uring *ring, int fd,
		      const struct npu_uring_submit *req, __u64 *id)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	__u64 ud;
	int ret;

	if (!sqe)
		return -ENOSPC;
	prep_submit(sqe, fd, req, 7);
	ret = io_uring_submit(ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = reap(ring, &ud, id);
	return ud == 7 ? ret : -EPROTO;
}

TEST_F(uring, batch_of_32_in_one_submit)
{
	unsigned int handles[NJOBS][3];
	struct npu_job_result res[NJOBS];
	struct npu_uring_submit req;
	unsigned long long seen = 0;
	struct npu_wait w;
	__u64 ud, id;
	int k, ret;

	NEED_GOOD();
	memset(res, 0, sizeof(res));
	for (k = 0; k < NJOBS; k++) {
		job_req(self, k, k % 2 && self->stalled < 0 ? NPU_PE_ANY :
			(unsigned int)self->good, handles[k], &res[k], &req);
		prep_submit(io_uring_get_sqe(&self->ring), self->fd, &req, k);
	}
	ASSERT_EQ(NJOBS, io_uring_submit(&self->ring));
	/* Issued by this task: every id is known, in submission order. */
	for (k = 0; k < NJOBS; k++) {
		ASSERT_NE(0, res[k].job_id);
		if (k)
			ASSERT_LT(res[k - 1].job_id, res[k].job_id);
	}
	for (k = 0; k < NJOBS; k++) {
		ret = reap(&self->ring, &ud, &id);
		ASSERT_EQ(NPU_JOB_OK, ret);
		ASSERT_LT(ud, NJOBS);
		ASSERT_EQ(0, seen & (1ull << ud));
		seen |= 1ull << ud;
		EXPECT_EQ(res[ud].job_id, id);
		EXPECT_EQ(NPU_JOB_OK, res[ud].status);
		EXPECT_GT(self->info.pe_count, res[ud].pe);
		EXPECT_LE(res[ud].submit_ns, res[ud].complete_ns);
		EXPECT_LE(res[ud].start_tick, res[ud].end_tick);
	}
	for (k = 0; k < NJOBS; k++)
		EXPECT_TRUE(out_ok(self, k));
	/* None of them is NPU_IOCTL_WAIT's to collect. */
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, 0, &w));
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, res[0].job_id, 0, 0, &w));
}

TEST_F(uring, mixed_with_ioctl_on_one_fd)
{
	unsigned int h_a[3], h_b[3], h_c[3];
	struct npu_job_result res_b = { 0 };
	struct npu_uring_submit req;
	unsigned long long a, c;
	struct npu_wait w;
	__u64 ud, id;

	NEED_GOOD();
	job_req(self, 0, self->good, h_a, NULL, &req);
	ASSERT_EQ(0, npu_submit_job(self->fd, self->good, h_a, 3, 0, 0,
				    NPU_CLIP_PROG_SIZE, &a));
	job_req(self, 1, self->good, h_b, &res_b, &req);
	prep_submit(io_uring_get_sqe(&self->ring), self->fd, &req, 1);
	ASSERT_EQ(1, io_uring_submit(&self->ring));
	job_req(self, 2, self->good, h_c, NULL, &req);
	ASSERT_EQ(0, npu_submit_job(self->fd, self->good, h_c, 3, 0,
				    2 * PROG_STRIDE, NPU_CLIP_PROG_SIZE, &c));
	/* One id sequence for both paths. */
	EXPECT_LT(a, res_b.job_id);
	EXPECT_LT(res_b.job_id, c);

	/* WAIT_ANY collects the ioctl jobs only, then has nothing left. */
	ASSERT_EQ(0, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, -1, &w));
	EXPECT_TRUE(w.result.job_id == a || w.result.job_id == c);
	ASSERT_EQ(0, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, -1, &w));
	EXPECT_TRUE(w.result.job_id == a || w.result.job_id == c);
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, 0, &w));

	ASSERT_EQ(NPU_JOB_OK, reap(&self->ring, &ud, &id));
	EXPECT_EQ(1, ud);
	EXPECT_EQ(res_b.job_id, id);
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, id, 0, 0, &w));
	EXPECT_TRUE(out_ok(self, 0));
	EXPECT_TRUE(out_ok(self, 1));
	EXPECT_TRUE(out_ok(self, 2));
}

TEST_F(uring, bad_commands)
{
	unsigned int h[3];
	struct npu_job_result res;
	struct npu_uring_submit req;
	struct npu_bo_create b;
	struct io_uring small;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int other;
	__u64 id, ud;

	NEED_GOOD();
	/* unknown cmd_op */
	job_req(self, 0, self->good, h, NULL, &req);
	sqe = io_uring_get_sqe(&self->ring);
	prep_submit(sqe, self->fd, &req, 1);
	sqe->cmd_op = NPU_URING_CMD_SUBMIT + 1;
	ASSERT_EQ(1, io_uring_submit(&self->ring));
	EXPECT_EQ(-ENOTTY, reap(&self->ring, &ud, &id));
	EXPECT_EQ(0, id);
	/* flags, reserved */
	req.job.flags = 1;
	EXPECT_EQ(-EINVAL, submit_one(&self->ring, self->fd, &req, &id));
	req.job.flags = 0;
	req.reserved[2] = 1;
	EXPECT_EQ(-EINVAL, submit_one(&self->ring, self->fd, &req, &id));
	req.reserved[2] = 0;
	/* the rules of NPU_IOCTL_SUBMIT */
	req.job.nbufs = NPU_MAX_JOB_BUFS + 1;
	EXPECT_EQ(-EINVAL, submit_one(&self->ring, self->fd, &req, &id));
	req.job.nbufs = 3;
	req.job.prog_offset = 1;
	EXPECT_EQ(-EINVAL, submit_one(&self->ring, self->fd, &req, &id));
	req.job.prog_offset = 0;
	req.job.pe = self->info.pe_count;
	EXPECT_EQ(-EINVAL, submit_one(&self->ring, self->fd, &req, &id));
	req.job.pe = self->good;
	req.job.bufs = 8;
	EXPECT_EQ(-EFAULT, submit_one(&self->ring, self->fd, &req, &id));
	EXPECT_EQ(0, id);

	/* a handle of another fd, and a freed one */
	other = npu_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, npu_bo_new(other, N, &b));
	job_req(self, 0, self->good, h, NULL, &req);
	h[2] = b.handle;
	if (b.handle == self->prog || b.handle == self->in)
		h[2] = 1000;
	EXPECT_EQ(-ENOENT, submit_one(&self->ring, self->fd, &req, &id));
	EXPECT_EQ(0, id);
	close(other);
	ASSERT_EQ(0, npu_bo_new(self->fd, N, &b));
	ASSERT_EQ(0, npu_bo_del(self->fd, b.handle));
	job_req(self, 0, self->good, h, NULL, &req);
	h[2] = b.handle;
	EXPECT_EQ(-ENOENT, submit_one(&self->ring, self->fd, &req, &id));

	/* an unwritable result: the job runs, its CQE says -EFAULT */
	job_req(self, 3, self->good, h, NULL, &req);
	req.result = 8;
	EXPECT_EQ(-EFAULT, submit_one(&self->ring, self->fd, &req, &id));
	EXPECT_NE(0, id);
	EXPECT_TRUE(out_ok(self, 3));

	/* a ring of 64-byte SQEs cannot hold the payload */
	ASSERT_EQ(0, ring_init(&small, 0));
	sqe = io_uring_get_sqe(&small);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = self->fd;
	sqe->cmd_op = NPU_URING_CMD_SUBMIT;
	ASSERT_EQ(1, io_uring_submit(&small));
	ASSERT_EQ(0, io_uring_wait_cqe(&small, &cqe));
	EXPECT_EQ(-EINVAL, cqe->res);
	io_uring_cqe_seen(&small, cqe);
	io_uring_queue_exit(&small);

	/* a good one still works, and its result is complete */
	memset(&res, 0, sizeof(res));
	job_req(self, 4, self->good, h, &res, &req);
	EXPECT_EQ(NPU_JOB_OK, submit_one(&self->ring, self->fd, &req, &id));
	EXPECT_EQ(res.job_id, id);
	EXPECT_EQ(self->good, res.pe);
	EXPECT_TRUE(out_ok(self, 4));
}

/* EXEC records of a trace ring: a trace_consume() callback. */
struct execs {
	struct npu_trace_rec_exec ex[4];
	unsigned int n;
};

static void collect_exec(const struct npu_trace_rec_hdr *h, void *arg)
{
	struct execs *x = arg;

	if (h->type == NPU_TRACE_REC_EXEC && x->n < 4)
		memcpy(&x->ex[x->n++], h, sizeof(x->ex[0]));
}

/*
 * The same job through NPU_IOCTL_SUBMIT and through io_uring: two EXEC
 * records alike in everything but the job's id and times, and each as
 * its path's result reports it (the trace is fed from the one submit path).
 */
TEST_F(uring, trace_exec_same_on_both_paths)
{
	struct npu_job_result res = { 0 };
	struct npu_trace_rec_exec *a, *b;
	struct trace_stats st = { 0 };
	struct npu_uring_submit req;
	struct execs x = { .n = 0 };
	unsigned long long id;
	struct trace_ring t;
	unsigned int h[3];
	struct npu_wait w;
	__u64 cid;

	NEED_GOOD();
	if (!(self->info.trace_levels & 2))
		SKIP(return, "no trace level 1");
	ASSERT_EQ(0, trace_open(self->fd, 0, 16, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 1));
	job_req(self, 7, self->good, h, &res, &req);
	ASSERT_EQ(0, npu_submit_job(self->fd, self->good, h, 3, 0,
				    7 * PROG_STRIDE, NPU_CLIP_PROG_SIZE, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
	ASSERT_EQ(NPU_JOB_OK, submit_one(&self->ring, self->fd, &req, &cid));
	ASSERT_EQ(res.job_id, cid);
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_LE(0, trace_consume(&t, &st, collect_exec, &x));
	trace_close(&t);
	EXPECT_EQ(0, st.seq_errors);
	ASSERT_EQ(2, x.n);
	a = &x.ex[0];
	b = &x.ex[1];
	EXPECT_EQ(id, a->job_id);
	EXPECT_EQ(cid, b->job_id);
	EXPECT_EQ(w.result.submit_ns, a->submit_ns);
	EXPECT_EQ(w.result.complete_ns, a->complete_ns);
	EXPECT_EQ(res.submit_ns, b->submit_ns);
	EXPECT_EQ(res.complete_ns, b->complete_ns);
	EXPECT_EQ(res.start_tick, b->start_tick);
	EXPECT_EQ(res.end_tick, b->end_tick);
	/* the submitter, not an io_uring thread */
	EXPECT_EQ(getpid(), b->pid);
	EXPECT_EQ(syscall(SYS_gettid), b->tid);
	EXPECT_EQ(a->pid, b->pid);
	EXPECT_EQ(a->tid, b->tid);
	EXPECT_EQ(a->hdr.size, b->hdr.size);
	EXPECT_EQ(a->flags, b->flags);
	EXPECT_EQ(NPU_TRACE_EXEC_F_DEVICE, b->flags);
	EXPECT_EQ(a->status, b->status);
	EXPECT_EQ(a->pe, b->pe);
	EXPECT_EQ(a->dev_status, b->dev_status);
	EXPECT_EQ(a->n_ops, b->n_ops);
	EXPECT_EQ(a->macs, b->macs);
	EXPECT_EQ(a->dma_bytes, b->dma_bytes);
	EXPECT_EQ((__u32)a->job_id, a->exec_index);
	EXPECT_EQ((__u32)b->job_id, b->exec_index);
}

#define SPAN_RUNS	4

/*
 * @n runs of MNIST through a runner on @path and PE @pe, in a profiling
 * session at trace level 1 writing @out, loaded into @t and checked.
 */
static void runner_session(struct __test_metadata *_metadata,
			   unsigned int path, unsigned int pe, const char *out,
			   struct ck_trace *t)
{
	struct npuprof_session *sess;
	struct npu_runner_opts ro;
	struct npu_runner *runner;
	struct npu_model *model;
	struct npu_device *dev;
	struct npuprof_opts o;
	char err[512], mpath[512];
	float *x, *y;
	size_t nx, ny, i;

	snprintf(mpath, sizeof(mpath), "%s/models/mnist.nmdl",
		 getenv("NPU_BUILD"));
	ASSERT_EQ(0, npu_model_load(mpath, &model, err, sizeof(err)))
		TH_LOG("%s: %s", mpath, err);
	ASSERT_EQ(0, npu_device_open(NPU_DEV, &dev));
	npu_runner_opts_init(&ro);
	ro.n_pes = 1;
	ro.pes[0] = pe;
	ro.submit = path;
	ASSERT_EQ(0, npu_runner_create(dev, model, &ro, &runner));
	ASSERT_EQ(path, npu_runner_submit_path(runner));
	nx = npu_model_input(model, 0)->count;
	ny = npu_model_output(model, 0)->count;
	x = calloc(nx, sizeof(*x));
	y = calloc(ny, sizeof(*y));
	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, y);
	for (i = 0; i < nx; i++)
		x[i] = (float)(i % 5) / 5.0f;

	npuprof_opts_init(&o);
	o.output = out;
	o.level = 1;
	ASSERT_EQ(0, npuprof_session_create(&o, &sess));
	ASSERT_EQ(0, npuprof_session_start(sess));
	for (i = 0; i < SPAN_RUNS; i++)
		ASSERT_EQ(0, npu_runner_run(runner, x, nx, y, ny, NULL));
	ASSERT_EQ(0, npuprof_session_stop(sess));
	npuprof_session_free(sess);
	npu_runner_free(runner);
	npu_device_close(dev);
	npu_model_free(model);
	free(x);
	free(y);

	ASSERT_EQ(0, ck_load(out, t, err, sizeof(err))) TH_LOG("%s", err);
	ck_check_complete(_metadata, t);
	ck_check_spans(_metadata, t);
	ck_check_inference_spans(_metadata, t, SPAN_RUNS);
	ck_check_execs(_metadata, t, 1, SPAN_RUNS, getpid());
	/* every WAIT span names its job, as every SUBMIT span does */
	for (i = 0; i < t->nspans; i++) {
		const struct npuprof_span_rec *w = &t->spans[i];

		if (w->kind != NPUPROF_SPAN_WAIT)
			continue;
		ASSERT_TRUE(w->flags & NPUPROF_SPAN_F_JOB);
		ASSERT_NE(NULL, ck_submit_of(_metadata, t, w->minor, w->job_id));
	}
}

TEST_F_TIMEOUT(uring, runner_spans_same_on_both_paths, 120)
{
	struct ck_trace ti, tu;
	unsigned int k;

	NEED_GOOD();
	if (!getenv("NPU_BUILD"))
		SKIP(return, "NPU_BUILD not set (no models)");
	runner_session(_metadata, NPU_SUBMIT_IOCTL, self->good,
		       "/tmp/npu_uring_ioctl.npuprof", &ti);
	runner_session(_metadata, NPU_SUBMIT_URING, self->good,
		       "/tmp/npu_uring_uring.npuprof", &tu);
	EXPECT_EQ(ti.nspans, tu.nspans);
	EXPECT_EQ(ti.nexecs, tu.nexecs);
	for (k = NPUPROF_SPAN_LABEL; k <= NPUPROF_SPAN_KIND_MAX; k++)
		EXPECT_EQ(ck_count_kind(&ti, k), ck_count_kind(&tu, k))
			TH_LOG("span kind %s", npuprof_span_kind_name(k));
	ck_free(&ti);
	ck_free(&tu);
}

/*
 * Jobs on the stalled PE, then close(): every command completes with
 * -ECANCELED, carrying its job id; the fd's jobs are gone (max_file_jobs
 * counts them no more) and the device still runs jobs.
 */
TEST_F(uring, cancel_on_fd_close)
{
	unsigned int handles[4][3], h[3];
	struct npu_job_result res[4];
	struct npu_uring_submit req;
	unsigned long long seen = 0, ioctl_id;
	struct io_uring_cqe *cqe;
	struct npu_wait w;
	__u64 ud, id;
	int k, fd2;

	NEED_STALL();
	NEED_GOOD();
	/* No reset before the commands are cancelled (they are at once). */
	ASSERT_EQ(0, npu_write_file(TIMEOUT_PARAM, "3000"));
	fd2 = dup(self->fd);
	ASSERT_LE(0, fd2);
	memset(res, 0, sizeof(res));
	for (k = 0; k < 4; k++) {
		job_req(self, k, self->stalled, handles[k], &res[k], &req);
		prep_submit(io_uring_get_sqe(&self->ring), self->fd, &req, k);
	}
	ASSERT_EQ(4, io_uring_submit(&self->ring));
	/* In flight: no CQE yet. */
	EXPECT_EQ(-EAGAIN, io_uring_peek_cqe(&self->ring, &cqe));
	ASSERT_EQ(0, close(self->fd));
	self->fd = fd2;
	for (k = 0; k < 4; k++) {
		ASSERT_EQ(-ECANCELED, reap(&self->ring, &ud, &id));
		ASSERT_LT(ud, 4);
		ASSERT_EQ(0, seen & (1ull << ud));
		seen |= 1ull << ud;
		EXPECT_EQ(res[ud].job_id, id);
	}
	/* The jobs left the file: one more job fits under a limit of 1. */
	ASSERT_EQ(0, npu_write_file(MAX_JOBS_PARAM, "1"));
	job_req(self, 5, self->good, h, NULL, &req);
	ASSERT_EQ(0, npu_submit_job(self->fd, self->good, h, 3, 0,
				    5 * PROG_STRIDE, NPU_CLIP_PROG_SIZE,
				    &ioctl_id));
	ASSERT_EQ(0, npu_wait_job(self->fd, ioctl_id, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	EXPECT_TRUE(out_ok(self, 5));
	/*
	 * The detached jobs end at the timeout's reset: a job queued behind
	 * them on the stalled PE is aborted by it, and nothing else reaches
	 * this fd.
	 */
	ASSERT_EQ(0, npu_write_file(MAX_JOBS_PARAM, "0"));
	job_req(self, 6, self->stalled, h, NULL, &req);
	ASSERT_EQ(0, npu_submit_job(self->fd, self->stalled, h, 3, 0,
				    6 * PROG_STRIDE, NPU_CLIP_PROG_SIZE,
				    &ioctl_id));
	ASSERT_EQ(0, npu_wait_job(self->fd, ioctl_id, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_ABORTED, w.result.status);
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, 0, &w));
}

/*
 * Jobs on the stalled PE, then the ring closes. From 6.7 on io_uring
 * cancels the commands: the fd's jobs are gone before any reset. On 6.1
 * the ring waits for the jobs, which end at the timeout's reset. Either
 * way the fd holds no job afterwards and still works.
 */
TEST_F(uring, cancel_on_ring_close)
{
	unsigned int handles[2][3], h[3];
	struct npu_uring_submit req;
	unsigned long long id;
	struct npu_wait w;
	int k, tries, ret;

	NEED_STALL();
	NEED_GOOD();
	/*
	 * Where the kernel cancels, no reset may come first (the test's
	 * proof); on 6.1 the reset is what ends the jobs.
	 */
	ASSERT_EQ(0, npu_write_file(TIMEOUT_PARAM,
				    kernel_cancels_on_ring_exit() ? "60000" : "3000"));
	ASSERT_EQ(0, npu_write_file(MAX_JOBS_PARAM, "2"));
	for (k = 0; k < 2; k++) {
		job_req(self, k, self->stalled, handles[k], NULL, &req);
		prep_submit(io_uring_get_sqe(&self->ring), self->fd, &req, k);
	}
	ASSERT_EQ(2, io_uring_submit(&self->ring));
	/* The fd is full. */
	EXPECT_EQ(-EBUSY, npu_submit_job(self->fd, self->good, handles[0], 3,
					 0, 0, NPU_CLIP_PROG_SIZE, &id));
	io_uring_queue_exit(&self->ring);
	self->ring_up = false;

	/* The ring's exit runs in a worker: retry until it is done. */
	job_req(self, 2, self->good, h, NULL, &req);
	for (tries = 0; tries < 1000; tries++) {
		ret = npu_submit_job(self->fd, self->good, h, 3, 0,
				     2 * PROG_STRIDE, NPU_CLIP_PROG_SIZE, &id);
		if (ret != -EBUSY)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	EXPECT_TRUE(out_ok(self, 2));
}

TEST_HARNESS_MAIN
