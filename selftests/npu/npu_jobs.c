// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_jobs - NPU_IOCTL_SUBMIT / NPU_IOCTL_WAIT / poll(): a one-operator CLIP
 * program built here, every error status of the device, bad arguments,
 * back-pressure, concurrency and closing files with jobs in flight.
 */

#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test.h"

#define N 4096		/* bytes clipped per job */
#define MAX_FILE_JOBS	"/sys/module/npu/parameters/max_file_jobs"
#define LO 10
#define HI 200

static unsigned char clip(unsigned int x)
{
	return x < LO ? LO : x > HI ? HI : x;
}

FIXTURE(job) {
	int fd;
	struct npu_info info;
	struct npu_bo_create prog, in, out;
	unsigned char *prog_map, *in_map, *out_map;
	unsigned int h[3];	/* slots: 0 program, 1 input, 2 output */
	long long max_file_jobs;	/* -1: no such parameter */
};

FIXTURE_SETUP(job)
{
	unsigned long long v;
	unsigned int i;

	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &self->info));
	ASSERT_EQ(0, npu_bo_new(self->fd, 4096, &self->prog));
	ASSERT_EQ(0, npu_bo_new(self->fd, N, &self->in));
	ASSERT_EQ(0, npu_bo_new(self->fd, N, &self->out));
	self->prog_map = npu_bo_map(self->fd, &self->prog);
	self->in_map = npu_bo_map(self->fd, &self->in);
	self->out_map = npu_bo_map(self->fd, &self->out);
	ASSERT_NE(NULL, self->prog_map);
	ASSERT_NE(NULL, self->in_map);
	ASSERT_NE(NULL, self->out_map);
	npu_clip_prog(self->prog_map, N, 1, 2, LO, HI);
	for (i = 0; i < N; i++)
		self->in_map[i] = (i * 7) & 0xff;
	self->h[0] = self->prog.handle;
	self->h[1] = self->in.handle;
	self->h[2] = self->out.handle;
	self->max_file_jobs = npu_read_u64(MAX_FILE_JOBS, &v) ? -1 : (long long)v;
}

FIXTURE_TEARDOWN(job)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", self->max_file_jobs);
	if (self->max_file_jobs >= 0)
		npu_write_file(MAX_FILE_JOBS, buf);
	close(self->fd);
}

static int submit(FIXTURE_DATA(job) *self, unsigned int pe,
		  unsigned long long *id)
{
	return npu_submit_job(self->fd, pe, self->h, 3, 0, 0,
			      NPU_CLIP_PROG_SIZE, id);
}

static unsigned int check_output(FIXTURE_DATA(job) *self)
{
	unsigned int i, bad = 0;

	for (i = 0; i < N; i++)
		bad += self->out_map[i] != clip((i * 7) & 0xff);
	return bad;
}

TEST_F(job, clip_on_every_pe)
{
	unsigned long long id, t0;
	struct npu_wait w;
	unsigned int pe;

	for (pe = 0; pe <= self->info.pe_count; pe++) {
		unsigned int want = pe == self->info.pe_count ? NPU_PE_ANY : pe;

		memset(self->out_map, 0, N);
		t0 = npu_now_ns();
		ASSERT_EQ(0, submit(self, want, &id));
		ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
		EXPECT_EQ(id, w.result.job_id);
		EXPECT_EQ(NPU_JOB_OK, w.result.status)
			TH_LOG("pe %u: status %u op %u", pe, w.result.status,
			       w.result.op_index);
		if (want != NPU_PE_ANY)
			EXPECT_EQ(want, w.result.pe);
		EXPECT_LT(w.result.pe, self->info.pe_count);
		EXPECT_LE(t0, w.result.submit_ns);
		EXPECT_LE(w.result.submit_ns, w.result.complete_ns);
		EXPECT_LE(w.result.complete_ns, npu_now_ns());
		EXPECT_LT(w.result.start_tick, w.result.end_tick);
		EXPECT_EQ(0, check_output(self));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

#define TRIPS 101

/* Latency of one small job, submit to collected result (figures only). */
TEST_F(job, round_trip_figures)
{
	unsigned long long host[TRIPS], drv[TRIPS], dev[TRIPS], id, t0, t1;
	struct npu_wait w;
	int i;

	for (i = 0; i < TRIPS; i++) {
		t0 = npu_now_ns();
		ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id));
		ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
		t1 = npu_now_ns();
		ASSERT_EQ(NPU_JOB_OK, w.result.status);
		/* Every interval nests in the one around it. */
		ASSERT_LE(t0, w.result.submit_ns);
		ASSERT_LE(w.result.complete_ns, t1);
		host[i] = t1 - t0;
		drv[i] = w.result.complete_ns - w.result.submit_ns;
		dev[i] = (w.result.end_tick - w.result.start_tick) * 1000000000ull /
			 self->info.clock_hz;
		ASSERT_LE(dev[i], drv[i] + 1000000)
			TH_LOG("device time %llu ns longer than the driver saw %llu ns",
			       dev[i], drv[i]);
	}
	qsort(host, TRIPS, sizeof(host[0]), cmp_u64);
	qsort(drv, TRIPS, sizeof(drv[0]), cmp_u64);
	qsort(dev, TRIPS, sizeof(dev[0]), cmp_u64);
	printf("# job (CLIP %d B) submit->wait, %d trips: min %llu median %llu max %llu ns\n",
	       N, TRIPS, host[0], host[TRIPS / 2], host[TRIPS - 1]);
	printf("# job submit_ns->complete_ns: min %llu median %llu max %llu ns\n",
	       drv[0], drv[TRIPS / 2], drv[TRIPS - 1]);
	printf("# job device start->end: min %llu median %llu max %llu ns\n",
	       dev[0], dev[TRIPS / 2], dev[TRIPS - 1]);
}

TEST_F(job, wait_semantics)
{
	unsigned long long id;
	struct npu_wait w;

	/* Nothing outstanding: WAIT_ANY has nothing to wait for. */
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, -1, &w));
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 999999, 0, -1, &w));

	ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, -1, &w));
	EXPECT_EQ(id, w.result.job_id);
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	EXPECT_EQ(0, w.result.reserved);
	/* the result names the job; the request is left as it was */
	EXPECT_EQ(0, w.job_id);
	/* A result is returned once. */
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, id, 0, -1, &w));
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, id, 0, 0, &w));

	/* Job ids increase. */
	ASSERT_EQ(0, submit(self, NPU_PE_ANY, &w.job_id));
	EXPECT_LT(id, w.job_id);
	id = w.job_id;
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, 10000000000ll, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
}

TEST_F(job, wait_bad_args)
{
	struct npu_wait w;

	memset(&w, 0, sizeof(w));
	w.flags = 2;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_WAIT, &w));
	memset(&w, 0, sizeof(w));
	w.reserved[0] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_WAIT, &w));
	memset(&w, 0, sizeof(w));
	w.reserved[6] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_WAIT, &w));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_WAIT, NULL));
	/* uapi version 1's struct npu_wait (88 bytes) is another ioctl */
	memset(&w, 0, sizeof(w));
	w.flags = NPU_WAIT_ANY;
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IOWR(NPU_IOCTL_BASE, 0x21, char[88]),
				     &w));
}

TEST_F(job, another_file_cannot_wait)
{
	unsigned long long id;
	struct npu_wait w;
	int fd2;

	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id));
	EXPECT_EQ(-ENOENT, npu_wait_job(fd2, id, 0, -1, &w));
	EXPECT_EQ(-ENOENT, npu_wait_job(fd2, 0, NPU_WAIT_ANY, -1, &w));
	close(fd2);
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
}

TEST_F(job, poll_reports_results)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN | POLLOUT };
	unsigned long long id;
	struct npu_wait w;

	/* Nothing to collect; room to submit. */
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLOUT, pfd.revents & (POLLIN | POLLOUT));

	ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id));
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 20000));
	EXPECT_EQ(POLLIN, pfd.revents);
	/* poll does not consume. */
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, 0, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

TEST_F(job, submit_bad_args)
{
	unsigned int h[13], i;
	struct npu_bo_create other;
	struct npu_wait w;
	struct npu_submit s;
	int fd2;

	memcpy(h, self->h, sizeof(self->h));
#define SUB(pe, n, slot, off, size) \
	npu_submit_job(self->fd, pe, h, n, slot, off, size, NULL)
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 0, 0, 0, 160));
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 13, 0, 0, 160));
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 3, 3, 0, 160));
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 3, 0, 8, 160));	/* misaligned */
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 3, 0, 0, 0));	/* empty */
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 3, 0, 4032, 128));	/* past end */
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 3, 0, 0, 0xffffffff));
	EXPECT_EQ(-EINVAL, SUB(self->info.pe_count, 3, 0, 0, 160));
	EXPECT_EQ(-EINVAL, SUB(NPU_HW_MAX_PES, 3, 0, 0, 160));
	/* A handle twice. */
	h[2] = h[1];
	EXPECT_EQ(-EINVAL, SUB(NPU_PE_ANY, 3, 0, 0, 160));
	/* Unknown handles. */
	h[2] = 0;
	EXPECT_EQ(-ENOENT, SUB(NPU_PE_ANY, 3, 0, 0, 160));
	h[2] = 0x7fffffff;
	EXPECT_EQ(-ENOENT, SUB(NPU_PE_ANY, 3, 0, 0, 160));
	/* Another file's handle. */
	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, npu_bo_new(fd2, 4096, &other));
	h[2] = other.handle;
	if (other.handle != self->h[0] && other.handle != self->h[1] &&
	    other.handle != self->h[2])
		EXPECT_EQ(-ENOENT, SUB(NPU_PE_ANY, 3, 0, 0, 160));
	close(fd2);
	h[2] = self->h[2];
#undef SUB
	/* Bad pointers and reserved fields. */
	memset(&s, 0, sizeof(s));
	s.job.pe = NPU_PE_ANY;
	s.job.nbufs = 3;
	s.job.prog_size = 160;
	s.job.bufs = 8;
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &s));
	s.job.bufs = (uintptr_t)h;
	s.job.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &s));
	s.job.flags = 0;
	s.reserved[3] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &s));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, NULL));
	/* Nothing was queued by any of these. */
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, 0, &w));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(h[i], self->h[i]);
}

/* Run the fixture's (edited) program once; return the result in @w. */
static int run_mutated(FIXTURE_DATA(job) *self, struct npu_wait *w)
{
	unsigned long long id;
	int ret;

	memset(self->out_map, 0, N);
	ret = submit(self, NPU_PE_ANY, &id);
	if (ret)
		return ret;
	return npu_wait_job(self->fd, id, 0, -1, w);
}

static unsigned int out_nonzero(FIXTURE_DATA(job) *self)
{
	unsigned int i, n = 0;

	for (i = 0; i < N; i++)
		n += self->out_map[i] != 0;
	return n;
}

TEST_F(job, device_error_statuses)
{
	struct npu_clip_prog *p = (struct npu_clip_prog *)self->prog_map;
	struct npu_wait w;

	/* Unknown operator. */
	npu_clip_prog(p, N, 1, 2, LO, HI);
	p->op.opcode = 99;
	ASSERT_EQ(0, run_mutated(self, &w));
	EXPECT_EQ(NPU_JOB_BAD_OPCODE, w.result.status);
	EXPECT_EQ(0, w.result.op_index);
	EXPECT_EQ(0, out_nonzero(self));

	/* Malformed header. */
	npu_clip_prog(p, N, 1, 2, LO, HI);
	p->hdr.magic ^= 1;
	ASSERT_EQ(0, run_mutated(self, &w));
	EXPECT_EQ(NPU_JOB_BAD_PROGRAM, w.result.status);
	EXPECT_EQ(0xffff, w.result.op_index);

	/* Output tensor past the end of its slot. */
	npu_clip_prog(p, N, 1, 2, LO, HI);
	p->t[1].offset = 64;
	ASSERT_EQ(0, run_mutated(self, &w));
	EXPECT_EQ(NPU_JOB_BAD_ADDRESS, w.result.status);
	EXPECT_EQ(0xffff, w.result.op_index);

	/* Input in a slot the job does not have. */
	npu_clip_prog(p, N, 1, 2, LO, HI);
	p->t[0].buf = 7;
	ASSERT_EQ(0, run_mutated(self, &w));
	EXPECT_EQ(NPU_JOB_BAD_ADDRESS, w.result.status);

	/* An int32 tensor at an offset that is not a multiple of 4. */
	npu_clip_prog(p, N, 1, 2, LO, HI);
	p->t[0].dtype = NPU_DT_I32;
	p->t[0].dims[0] = N / 4 - 1;
	p->t[0].offset = 2;
	ASSERT_EQ(0, run_mutated(self, &w));
	EXPECT_EQ(NPU_JOB_MISALIGNED, w.result.status);
	EXPECT_EQ(0xffff, w.result.op_index);

	/* Input and output shapes differ. */
	npu_clip_prog(p, N, 1, 2, LO, HI);
	p->t[1].dims[0] = N - 1;
	ASSERT_EQ(0, run_mutated(self, &w));
	EXPECT_EQ(NPU_JOB_BAD_SHAPE, w.result.status);
	EXPECT_EQ(0, w.result.op_index);
	EXPECT_EQ(0, out_nonzero(self));

	/* And a good program still runs. */
	npu_clip_prog(p, N, 1, 2, LO, HI);
	ASSERT_EQ(0, run_mutated(self, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	EXPECT_EQ(0, check_output(self));
}

/* More jobs than all queues hold: submit blocks until there is room. */
TEST_F(job, back_pressure)
{
	const unsigned int jobs = 600;
	unsigned int i, per_pe[NPU_HW_MAX_PES] = { 0 }, ok = 0;
	unsigned long long id, last = 0;
	struct npu_wait w;

	for (i = 0; i < jobs; i++) {
		ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id));
		ASSERT_LT(last, id);
		last = id;
	}
	for (i = 0; i < jobs; i++) {
		ASSERT_EQ(0, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, -1, &w));
		ok += w.result.status == NPU_JOB_OK;
		ASSERT_LT(w.result.pe, self->info.pe_count);
		per_pe[w.result.pe]++;
	}
	EXPECT_EQ(jobs, ok);
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, 0, &w));
	/* NPU_PE_ANY spreads the work. */
	for (i = 0; i < self->info.pe_count; i++)
		EXPECT_LT(0, per_pe[i]) TH_LOG("PE %u ran no job", i);
	EXPECT_EQ(0, check_output(self));
}

/* Buffers freed by their owner live until the job is done. */
TEST_F(job, free_buffers_while_queued)
{
	unsigned long long id[8];
	struct npu_wait w;
	unsigned int i;

	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id[i]));
	munmap(self->out_map, N);
	ASSERT_EQ(0, npu_bo_del(self->fd, self->h[0]));
	ASSERT_EQ(0, npu_bo_del(self->fd, self->h[1]));
	ASSERT_EQ(0, npu_bo_del(self->fd, self->h[2]));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, npu_wait_job(self->fd, id[i], 0, -1, &w));
		EXPECT_EQ(NPU_JOB_OK, w.result.status);
	}
}

static void *close_racer(void *arg)
{
	const char *stage = arg;
	unsigned int h[3];
	struct npu_bo_create b[3];
	int fd, i, j;

	for (j = 0; j < 20; j++) {
		fd = npu_open();
		if (fd < 0)
			return (void *)"open";
		for (i = 0; i < 3; i++) {
			if (npu_bo_new(fd, N, &b[i]))
				return (void *)"bo";
			h[i] = b[i].handle;
		}
		{
			unsigned char *p = npu_bo_map(fd, &b[0]);

			if (!p)
				return (void *)"map";
			npu_clip_prog(p, N, 1, 2, LO, HI);
			munmap(p, N);
		}
		for (i = 0; i < 10 + j; i++)
			if (npu_submit_job(fd, NPU_PE_ANY, h, 3, 0, 0,
					   NPU_CLIP_PROG_SIZE, NULL))
				return (void *)"submit";
		close(fd);	/* jobs still in flight */
	}
	(void)stage;
	return NULL;
}

#define QUOTA "/sys/module/npu/parameters/max_file_dram_pct"

TEST_F(job, close_with_jobs_in_flight)
{
	unsigned long long quota;
	pthread_t th[3];
	struct npu_bo_create all;
	char v[32];
	void *err;
	int i, ret;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, close_racer, NULL));
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], &err);
		EXPECT_EQ(NULL, err) TH_LOG("racer failed at %s", (char *)err);
	}
	/* The device still works... */
	unsigned long long id;
	struct npu_wait w;

	ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, -1, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	/* ...and every buffer of the closed files is freed once their
	 * jobs are done (ours are after the job just collected).
	 */
	munmap(self->prog_map, 4096);
	munmap(self->in_map, N);
	munmap(self->out_map, N);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, npu_bo_del(self->fd, self->h[i]));
	/* all of DRAM in one buffer: beyond the per-file quota, lift it */
	ASSERT_EQ(0, npu_read_u64(QUOTA, &quota));
	ASSERT_EQ(0, npu_write_file(QUOTA, "0"));
	for (i = 0; i < 200; i++) {
		ret = npu_bo_new(self->fd, self->info.dram_size, &all);
		if (!ret)
			break;
		usleep(50000);
	}
	snprintf(v, sizeof(v), "%llu", quota);
	EXPECT_EQ(0, npu_write_file(QUOTA, v));
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, npu_bo_del(self->fd, all.handle));
}

struct worker {
	int shared_fd;
	unsigned int h[3];
	unsigned int jobs;
	unsigned int ok;
	int err;
};

/* Each worker has its own file, buffers and program. */
static void *own_file_worker(void *arg)
{
	struct worker *wk = arg;
	struct npu_bo_create b[3];
	unsigned long long id;
	struct npu_wait w;
	unsigned char *p, *out;
	unsigned int i, j;
	int fd;

	fd = npu_open();
	if (fd < 0) {
		wk->err = fd;
		return NULL;
	}
	for (i = 0; i < 3; i++) {
		wk->err = npu_bo_new(fd, N, &b[i]);
		if (wk->err)
			goto out;
		wk->h[i] = b[i].handle;
	}
	p = npu_bo_map(fd, &b[0]);
	npu_clip_prog(p, N, 1, 2, LO, HI);
	p = npu_bo_map(fd, &b[1]);
	for (i = 0; i < N; i++)
		p[i] = i & 0xff;
	out = npu_bo_map(fd, &b[2]);
	for (j = 0; j < wk->jobs; j++) {
		memset(out, 0, N);
		wk->err = npu_submit_job(fd, NPU_PE_ANY, wk->h, 3, 0, 0,
					 NPU_CLIP_PROG_SIZE, &id);
		if (wk->err)
			break;
		wk->err = npu_wait_job(fd, id, 0, -1, &w);
		if (wk->err)
			break;
		for (i = 0; i < N && out[i] == clip(i & 0xff); i++)
			;
		if (w.result.status == NPU_JOB_OK && i == N)
			wk->ok++;
	}
out:
	close(fd);
	return NULL;
}

TEST_F(job, concurrent_files)
{
	struct worker wk[4];
	pthread_t th[4];
	int i;

	for (i = 0; i < 4; i++) {
		memset(&wk[i], 0, sizeof(wk[i]));
		wk[i].jobs = 40;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, own_file_worker,
					    &wk[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, wk[i].err);
		EXPECT_EQ(wk[i].jobs, wk[i].ok);
	}
}

struct any_waiter {
	int fd;
	unsigned int got;
	int err;
};

static void *any_waiter_main(void *arg)
{
	struct any_waiter *a = arg;
	struct npu_wait w;
	int ret;

	for (;;) {
		ret = npu_wait_job(a->fd, 0, NPU_WAIT_ANY, 2000000000ll, &w);
		if (ret == -ETIMEDOUT || ret == -ENOENT)
			break;
		if (ret) {
			a->err = ret;
			break;
		}
		if (w.result.status != NPU_JOB_OK)
			a->err = -EIO;
		a->got++;
	}
	return NULL;
}

/* Several threads collect the results of one file: each exactly once. */
TEST_F(job, shared_file_waiters)
{
	struct any_waiter a[3];
	pthread_t th[3];
	unsigned int i, total = 0;

	for (i = 0; i < 200; i++)
		ASSERT_EQ(0, submit(self, NPU_PE_ANY, NULL));
	for (i = 0; i < 3; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].fd = self->fd;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, any_waiter_main,
					    &a[i]));
	}
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, a[i].err);
		total += a[i].got;
	}
	EXPECT_EQ(200, total);
}

/*
 * A file holds at most max_file_jobs jobs, outstanding or uncollected:
 * beyond it SUBMIT fails with EBUSY until a result is collected.
 */
TEST_F(job, file_job_limit)
{
	unsigned long long id[9];
	struct npu_wait w;
	unsigned int i;

	EXPECT_EQ(4096, self->max_file_jobs);
	ASSERT_EQ(0, npu_write_file(MAX_FILE_JOBS, "8"));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id[i]));
	/* Completed or not, the 8 results are the file's until collected. */
	ASSERT_EQ(0, npu_wait_job(self->fd, id[7], 0, -1, &w));
	ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id[8]));
	EXPECT_EQ(-EBUSY, submit(self, NPU_PE_ANY, &id[7]));
	EXPECT_EQ(-EBUSY, submit(self, NPU_PE_ANY, &id[7]));
	ASSERT_EQ(0, npu_wait_job(self->fd, id[0], 0, -1, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	ASSERT_EQ(0, submit(self, NPU_PE_ANY, &id[0]));
	EXPECT_EQ(-EBUSY, submit(self, NPU_PE_ANY, &id[7]));
	for (i = 0; i < 9; i++) {
		if (i == 7)
			continue;
		ASSERT_EQ(0, npu_wait_job(self->fd, id[i], 0, -1, &w));
		EXPECT_EQ(NPU_JOB_OK, w.result.status);
	}
	EXPECT_EQ(-ENOENT, npu_wait_job(self->fd, 0, NPU_WAIT_ANY, 0, &w));
}

TEST_HARNESS_MAIN
