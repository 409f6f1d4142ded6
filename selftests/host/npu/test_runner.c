// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of libnpu's device, buffer and runner code against a fake
 * /dev/npuN: a memfd plays the device memory (so mmap at a BO's mmap_offset
 * works as with the driver) and this file's ioctl() implements the uapi
 * (GET_INFO, BO_CREATE/FREE, SUBMIT, WAIT) with one worker thread per PE
 * that runs each job with lib/npuref. This exercises the runner's context
 * pool, PE round-robin, asynchronous submit/wait, timeouts and job errors
 * without a VM; the same code runs against npu.ko in the VM (npu-classify).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "modelgen.h"
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npuref.h"
#include "npuprof.h"
#include "npuprof_analysis.h"

#define FAKE_DRAM	(64u << 20)
#define FAKE_PES	2
#define FAKE_MAX_BOS	256
#define FAKE_MAX_JOBS	256

struct fake_bo {
	uint64_t off, size;
	int live;
};

struct fake_job {
	int state;		/* 0 free, 1 queued, 2 running, 3 done */
	uint64_t id;
	uint32_t pe, status, op_index;
	uint32_t nbufs, prog_slot, prog_offset, prog_size;
	uint32_t handles[NPU_MAX_JOB_BUFS];
};

static struct fake {
	int memfd;
	ino_t ino;
	uint8_t *dram;
	uint64_t brk;
	struct fake_bo bos[FAKE_MAX_BOS];
	struct fake_job jobs[FAKE_MAX_JOBS];
	uint64_t next_id;
	uint32_t any_rr;
	int in_flight, max_in_flight;
	unsigned long ran_on[FAKE_PES];
	int hold;		/* workers do not start jobs while set */
	int fail_next;		/* next job completes with this status */
	int info_version;	/* GET_INFO's version when not 0 */
	int stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t workers[FAKE_PES];
} fk;

static int is_fake(int fd)
{
	struct stat st;

	return fk.dram && !fstat(fd, &st) && st.st_ino == fk.ino;
}

static void run_job(struct fake_job *j)
{
	struct npuref_buf slots[NPU_MAX_JOB_BUFS];
	uint16_t op = 0xffff;
	uint32_t i;
	int st;

	for (i = 0; i < j->nbufs; i++) {
		struct fake_bo *b = &fk.bos[j->handles[i]];

		slots[i].base = fk.dram + b->off;
		slots[i].size = b->size;
	}
	st = npuref_run((uint8_t *)slots[j->prog_slot].base + j->prog_offset,
			j->prog_size, slots, j->nbufs, j->prog_slot, &op);
	j->status = st < 0 ? NPU_JOB_BAD_CMD : (uint32_t)st;
	j->op_index = op;
}

static void *worker(void *arg)
{
	uint32_t pe = (uint32_t)(uintptr_t)arg;
	int i;

	pthread_mutex_lock(&fk.lock);
	while (!fk.stop) {
		struct fake_job *j = NULL;

		if (!fk.hold)
			for (i = 0; i < FAKE_MAX_JOBS; i++)
				if (fk.jobs[i].state == 1 && fk.jobs[i].pe == pe) {
					j = &fk.jobs[i];
					break;
				}
		if (!j) {
			pthread_cond_wait(&fk.cond, &fk.lock);
			continue;
		}
		j->state = 2;
		pthread_mutex_unlock(&fk.lock);
		run_job(j);
		pthread_mutex_lock(&fk.lock);
		if (fk.fail_next) {
			j->status = fk.fail_next;
			j->op_index = 3;
			fk.fail_next = 0;
		}
		j->state = 3;
		fk.ran_on[pe]++;
		pthread_cond_broadcast(&fk.cond);
	}
	pthread_mutex_unlock(&fk.lock);
	return NULL;
}

static int fake_ioctl(unsigned long req, void *arg)
{
	int i, ret = 0;

	pthread_mutex_lock(&fk.lock);
	switch (req) {
	case NPU_IOCTL_GET_INFO: {
		struct npu_info *info = arg;

		if (info->flags) {
			ret = -EINVAL;
			break;
		}
		memset(info, 0, sizeof(*info));
		info->version = fk.info_version ? (uint32_t)fk.info_version :
						  NPU_INFO_VERSION;
		info->pe_count = FAKE_PES;
		info->dram_size = FAKE_DRAM;
		info->clock_hz = 1000000000;
		info->caps = NPU_INFO_CAP_MULTI_PE;
		break;
	}
	case NPU_IOCTL_BO_CREATE: {
		struct npu_bo_create *c = arg;
		uint64_t size = (c->size + 4095) & ~4095ull;

		ret = -ENOMEM;
		if (!c->size || c->reserved[0] || c->reserved[1]) {
			ret = -EINVAL;
			break;
		}
		if (fk.brk + size > FAKE_DRAM)
			break;
		for (i = 1; i < FAKE_MAX_BOS; i++)
			if (!fk.bos[i].live && !fk.bos[i].size)
				break;
		if (i == FAKE_MAX_BOS)
			break;
		fk.bos[i] = (struct fake_bo){ .off = fk.brk, .size = size, .live = 1 };
		memset(fk.dram + fk.brk, 0, size);
		fk.brk += size;
		c->handle = i;
		c->dev_addr = fk.bos[i].off;
		c->mmap_offset = fk.bos[i].off;
		ret = 0;
		break;
	}
	case NPU_IOCTL_BO_FREE: {
		struct npu_bo_free *f = arg;

		if (f->handle >= FAKE_MAX_BOS || !fk.bos[f->handle].live)
			ret = -ENOENT;
		else
			fk.bos[f->handle].live = 0;	/* never reused */
		break;
	}
	case NPU_IOCTL_SUBMIT: {
		struct npu_submit *sub = arg;
		const struct npu_job_desc *s = &sub->job;
		const uint32_t *h = (const uint32_t *)(uintptr_t)s->bufs;
		uint32_t k;

		if (s->flags || !s->nbufs || s->nbufs > NPU_MAX_JOB_BUFS ||
		    s->prog_slot >= s->nbufs || s->prog_offset % 64 ||
		    (s->pe != NPU_PE_ANY && s->pe >= FAKE_PES)) {
			ret = -EINVAL;
			break;
		}
		for (k = 0; k < s->nbufs; k++)
			if (h[k] >= FAKE_MAX_BOS || !fk.bos[h[k]].live)
				ret = -ENOENT;
		if (ret)
			break;
		for (i = 0; i < FAKE_MAX_JOBS; i++)
			if (!fk.jobs[i].state)
				break;
		if (i == FAKE_MAX_JOBS) {
			ret = -EBUSY;
			break;
		}
		fk.jobs[i] = (struct fake_job){
			.state = 1, .id = ++fk.next_id,
			.pe = s->pe == NPU_PE_ANY ? fk.any_rr++ % FAKE_PES : s->pe,
			.nbufs = s->nbufs, .prog_slot = s->prog_slot,
			.prog_offset = s->prog_offset, .prog_size = s->prog_size,
		};
		memcpy(fk.jobs[i].handles, h, s->nbufs * sizeof(*h));
		sub->job_id = fk.jobs[i].id;
		if (++fk.in_flight > fk.max_in_flight)
			fk.max_in_flight = fk.in_flight;
		pthread_cond_broadcast(&fk.cond);
		break;
	}
	case NPU_IOCTL_WAIT: {
		struct npu_wait *w = arg;
		struct fake_job *j = NULL;
		struct timespec dl;

		for (i = 0; i < FAKE_MAX_JOBS; i++)
			if (fk.jobs[i].state && fk.jobs[i].id == w->job_id)
				j = &fk.jobs[i];
		if (!j) {
			ret = -ENOENT;
			break;
		}
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += w->timeout_ns / 1000000000;
		dl.tv_nsec += w->timeout_ns % 1000000000;
		if (dl.tv_nsec >= 1000000000) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000;
		}
		while (j->state != 3) {
			if (w->timeout_ns == 0) {
				ret = -ETIMEDOUT;
				break;
			}
			if (w->timeout_ns < 0)
				pthread_cond_wait(&fk.cond, &fk.lock);
			else if (pthread_cond_timedwait(&fk.cond, &fk.lock, &dl)) {
				ret = j->state == 3 ? 0 : -ETIMEDOUT;
				break;
			}
		}
		if (ret)
			break;
		w->result.job_id = j->id;
		w->result.pe = j->pe;
		w->result.status = j->status;
		w->result.op_index = j->op_index;
		j->state = 0;
		fk.in_flight--;
		break;
	}
	default:
		ret = -ENOTTY;
	}
	pthread_mutex_unlock(&fk.lock);
	return ret;
}

/* interposes libc's ioctl() for this test binary */
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!is_fake(fd))
		return (int)syscall(SYS_ioctl, fd, req, arg);
	ret = fake_ioctl(req, arg);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

static void fake_start(struct __test_metadata *_metadata)
{
	struct stat st;
	uintptr_t i;

	memset(&fk, 0, sizeof(fk));
	fk.memfd = memfd_create("fake-npu", 0);
	ASSERT_GE(fk.memfd, 0);
	ASSERT_EQ(0, ftruncate(fk.memfd, FAKE_DRAM));
	ASSERT_EQ(0, fstat(fk.memfd, &st));
	fk.dram = mmap(NULL, FAKE_DRAM, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fk.memfd, 0);
	ASSERT_NE(MAP_FAILED, fk.dram);
	fk.ino = st.st_ino;
	fk.brk = 4096;
	pthread_mutex_init(&fk.lock, NULL);
	pthread_cond_init(&fk.cond, NULL);
	for (i = 0; i < FAKE_PES; i++)
		ASSERT_EQ(0, pthread_create(&fk.workers[i], NULL, worker, (void *)i));
}

static void fake_stop(void)
{
	int i;

	pthread_mutex_lock(&fk.lock);
	fk.stop = 1;
	pthread_cond_broadcast(&fk.cond);
	pthread_mutex_unlock(&fk.lock);
	for (i = 0; i < FAKE_PES; i++)
		pthread_join(fk.workers[i], NULL);
	munmap(fk.dram, FAKE_DRAM);
	close(fk.memfd);
	fk.dram = NULL;
}

static void fake_set(int *field, int v)
{
	pthread_mutex_lock(&fk.lock);
	*field = v;
	pthread_cond_broadcast(&fk.cond);
	pthread_mutex_unlock(&fk.lock);
}

/* expected output of @x: the program run directly under npuref */
static void reference(struct __test_metadata *_metadata,
		      const struct npu_model *m, const float *x, uint8_t *y)
{
	const struct npu_tensor_desc *in = npu_model_input(m, 0);
	const struct npu_tensor_desc *out = npu_model_output(m, 0);
	struct npuref_buf s[NPU_MODEL_MAX_SLOTS];
	unsigned int i, n = npu_model_num_slots(m);
	uint8_t *q = malloc(in->count);
	uint32_t po, ps;
	size_t isz;
	const void *img = npu_model_const_image(m, &isz, &po, &ps);

	ASSERT_NE(NULL, q);
	for (i = 0; i < n; i++) {
		npu_model_slot(m, i, NULL, &s[i].size);
		s[i].base = calloc(1, s[i].size);
		ASSERT_NE(NULL, s[i].base);
	}
	memcpy(s[0].base, img, isz);
	ASSERT_EQ(0, npu_quantize(x, q, in->count, in->scale, in->zero_point));
	ASSERT_EQ(0, npu_lower(q, (uint8_t *)s[in->slot].base + in->offset,
			       in->dev_size, in->dims, in->layout,
			       (uint8_t)in->zero_point));
	ASSERT_EQ(0, npuref_run((uint8_t *)s[0].base + po, ps, s, n, 0, NULL));
	ASSERT_EQ(0, npu_unlower((uint8_t *)s[out->slot].base + out->offset,
				 out->dev_size, y, out->dims, out->layout));
	for (i = 0; i < n; i++)
		free(s[i].base);
	free(q);
}

#define NIN 4

FIXTURE(runner) {
	struct npu_model *model;
	struct npu_device *dev;
	float *x[NIN];
	uint8_t *want[NIN];
	size_t in_count, out_count;
};

FIXTURE_SETUP(runner)
{
	char err[256], path[64];
	uint8_t *file;
	size_t size;
	unsigned int i, k;

	ASSERT_EQ(0, mg_build("mnist", 1, &file, &size, err, sizeof(err)));
	ASSERT_EQ(0, npu_model_load_mem(file, size, &self->model, err,
					sizeof(err))) TH_LOG("%s", err);
	free(file);
	self->in_count = npu_model_input(self->model, 0)->count;
	self->out_count = npu_model_output(self->model, 0)->count;
	for (i = 0; i < NIN; i++) {
		self->x[i] = malloc(self->in_count * sizeof(float));
		self->want[i] = malloc(self->out_count);
		ASSERT_NE(NULL, self->x[i]);
		ASSERT_NE(NULL, self->want[i]);
		for (k = 0; k < self->in_count; k++)
			self->x[i][k] = (float)((k * 7 + i * 131) % 256) / 255.0f;
		reference(_metadata, self->model, self->x[i], self->want[i]);
	}
	/* the inputs are different enough to give different outputs */
	ASSERT_NE(0, memcmp(self->want[0], self->want[1], self->out_count));
	fake_start(_metadata);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fk.memfd);
	ASSERT_EQ(0, npu_device_open(path, &self->dev));
	ASSERT_EQ(FAKE_PES, npu_device_info(self->dev)->pe_count);
}

FIXTURE_TEARDOWN(runner)
{
	unsigned int i;

	npu_device_close(self->dev);
	fake_stop();
	npu_model_free(self->model);
	for (i = 0; i < NIN; i++) {
		free(self->x[i]);
		free(self->want[i]);
	}
}

static int check_output(struct npu_inference *inf, const uint8_t *want,
			size_t n)
{
	uint8_t got[16];

	if (n > sizeof(got) || npu_inference_get_output_u8(inf, 0, got, n))
		return -1;
	return memcmp(got, want, n) ? -1 : 0;
}

TEST_F(runner, open_missing_device)
{
	struct npu_device *d;

	EXPECT_EQ(-ENOENT, npu_device_open("/nonexistent/npu0", &d));
	EXPECT_EQ(-ENOTTY, npu_device_open("/dev/null", &d));
}

TEST_F(runner, buffers)
{
	struct npu_buffer *b;
	void *p, *p2;

	EXPECT_EQ(-EINVAL, npu_buffer_create(self->dev, 0, 0, &b));
	ASSERT_EQ(0, npu_buffer_create(self->dev, 100, 0, &b));
	EXPECT_EQ(100, npu_buffer_size(b));
	ASSERT_EQ(0, npu_buffer_map(b, &p));
	ASSERT_EQ(0, npu_buffer_map(b, &p2));
	EXPECT_EQ(p, p2);
	memset(p, 0x5a, 100);
	/* the mapping is the device memory at the BO's address */
	EXPECT_EQ(0x5a, fk.dram[npu_buffer_dev_addr(b) + 99]);
	npu_buffer_free(b);
}

TEST_F(runner, run_sync_matches_npuref)
{
	struct npu_runner *r;
	struct npu_job_result res;
	float y[10], yref[10];
	unsigned int i;

	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, NULL, &r));
	for (i = 0; i < NIN; i++) {
		const struct npu_tensor_desc *d = npu_model_output(self->model, 0);

		ASSERT_EQ(0, npu_runner_run(r, self->x[i], self->in_count, y,
					    self->out_count, &res));
		EXPECT_EQ(NPU_JOB_OK, res.status);
		ASSERT_EQ(0, npu_dequantize(self->want[i], yref, 10, d->scale,
					    d->zero_point));
		EXPECT_EQ(0, memcmp(y, yref, sizeof(y)));
	}
	/* wrong sizes are refused */
	EXPECT_EQ(-EINVAL, npu_runner_run(r, self->x[0], self->in_count - 1, y,
					  self->out_count, NULL));
	npu_runner_free(r);
}

TEST_F(runner, bad_options)
{
	struct npu_runner_opts o;
	struct npu_runner *r;

	npu_runner_opts_init(&o);
	o.n_pes = 1;
	o.pes[0] = 2;
	EXPECT_EQ(-EINVAL, npu_runner_create(self->dev, self->model, &o, &r));
	o.pes[0] = 1;
	o.contexts = 65;
	EXPECT_EQ(-EINVAL, npu_runner_create(self->dev, self->model, &o, &r));
	o.contexts = 2;
	o.submit = NPU_SUBMIT_URING + 1;
	EXPECT_EQ(-EINVAL, npu_runner_create(self->dev, self->model, &o, &r));
}

/* a driver of another uapi version is refused before any job */
TEST_F(runner, device_of_another_uapi_version)
{
	struct npu_device *dev = (void *)1;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fk.memfd);
	fake_set(&fk.info_version, NPU_INFO_VERSION - 1);
	EXPECT_EQ(-EPROTONOSUPPORT, npu_device_open(path, &dev));
	EXPECT_EQ((void *)1, dev);
	fake_set(&fk.info_version, NPU_INFO_VERSION + 1);
	EXPECT_EQ(-EPROTONOSUPPORT, npu_device_open(path, &dev));
	fake_set(&fk.info_version, 0);
	ASSERT_EQ(0, npu_device_open(path, &dev));
	EXPECT_EQ(NPU_INFO_VERSION, npu_device_info(dev)->version);
	npu_device_close(dev);
}

TEST_F(runner, opts_init_defaults)
{
	struct npu_runner_opts o;

	memset(&o, 0xa5, sizeof(o));
	npu_runner_opts_init(&o);
	EXPECT_EQ(sizeof(o), o.sz);
	EXPECT_EQ(NPU_RUNNER_DEFAULT_CONTEXTS, o.contexts);
	EXPECT_EQ(0, o.n_pes);
	EXPECT_EQ(0, o.pes[15]);
	EXPECT_EQ(NPU_SUBMIT_AUTO, o.submit);
}

/* the size field: older (smaller) structs work, newer ones must be zero */
TEST_F(runner, opts_size)
{
	struct {
		struct npu_runner_opts o;
		uint64_t newer;
	} big;
	struct npu_runner_opts o;
	struct npu_runner *r;

	/* not initialized: no size */
	memset(&o, 0, sizeof(o));
	o.contexts = 1;
	EXPECT_EQ(-EINVAL, npu_runner_create(self->dev, self->model, &o, &r));

	/* a caller that knows @contexts only: what follows is not read */
	npu_runner_opts_init(&o);
	o.sz = offsetof(struct npu_runner_opts, n_pes);
	o.contexts = 65;
	EXPECT_EQ(-EINVAL, npu_runner_create(self->dev, self->model, &o, &r));
	o.contexts = 1;
	o.n_pes = 99;
	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, &o, &r));
	npu_runner_free(r);

	/* a newer caller's struct: its unknown tail must be zero */
	memset(&big, 0, sizeof(big));
	npu_runner_opts_init(&big.o);
	big.o.sz = sizeof(big);
	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, &big.o, &r));
	npu_runner_free(r);
	big.newer = 1;
	EXPECT_EQ(-E2BIG, npu_runner_create(self->dev, self->model, &big.o, &r));
}

TEST_F(runner, async_out_of_order)
{
	struct npu_inference *inf[3];
	struct npu_runner_opts o;
	struct npu_job_result res;
	struct npu_runner *r;
	int i;

	npu_runner_opts_init(&o);
	o.contexts = 3;
	o.n_pes = 2;
	o.pes[1] = 1;
	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, &o, &r));
	fake_set(&fk.hold, 1);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npu_runner_acquire(r, &inf[i]));
		ASSERT_EQ(0, npu_inference_set_input(inf[i], 0, self->x[i],
						     self->in_count));
		/* no output before the job ran */
		EXPECT_NE(0, check_output(inf[i], self->want[i], self->out_count));
		ASSERT_EQ(0, npu_inference_submit(inf[i]));
		EXPECT_EQ(-EBUSY, npu_inference_submit(inf[i]));
		EXPECT_EQ(-EINVAL, npu_inference_set_input(inf[i], 0, self->x[i],
							   self->in_count));
	}
	/* held by the device: polling and short waits time out */
	EXPECT_EQ(-ETIMEDOUT, npu_inference_wait(inf[0], 0, NULL));
	EXPECT_EQ(-ETIMEDOUT, npu_inference_wait(inf[0], 1000000, NULL));
	EXPECT_EQ(3, fk.max_in_flight);
	fake_set(&fk.hold, 0);
	for (i = 2; i >= 0; i--) {
		ASSERT_EQ(0, npu_inference_wait(inf[i], -1, &res));
		/* the fake's ids count from 1, in submission order */
		EXPECT_EQ((uint64_t)i + 1, res.job_id);
		/* round-robin over the runner's PEs, in submission order */
		EXPECT_EQ((unsigned int)i % 2, res.pe);
		EXPECT_EQ(0, check_output(inf[i], self->want[i], self->out_count));
		EXPECT_EQ(-EINVAL, npu_inference_wait(inf[i], -1, &res));
	}
	for (i = 0; i < 3; i++)
		npu_inference_release(inf[i]);
	npu_runner_free(r);
}

TEST_F(runner, release_collects_pending_job)
{
	struct npu_inference *inf;
	struct npu_runner *r;

	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, NULL, &r));
	ASSERT_EQ(0, npu_runner_acquire(r, &inf));
	ASSERT_EQ(0, npu_inference_set_input(inf, 0, self->x[0], self->in_count));
	ASSERT_EQ(0, npu_inference_submit(inf));
	npu_inference_release(inf);
	/* the job was waited for: nothing left on the device */
	EXPECT_EQ(0, fk.in_flight);
	EXPECT_EQ(1, fk.ran_on[0] + fk.ran_on[1]);
	npu_runner_free(r);
}

TEST_F(runner, release_forgets_outputs)
{
	struct npu_inference *inf, *again;
	struct npu_runner_opts o;
	struct npu_runner *r;

	npu_runner_opts_init(&o);
	o.contexts = 1;
	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, &o, &r));
	ASSERT_EQ(0, npu_runner_acquire(r, &inf));
	ASSERT_EQ(0, npu_inference_set_input(inf, 0, self->x[0], self->in_count));
	ASSERT_EQ(0, npu_inference_submit(inf));
	ASSERT_EQ(0, npu_inference_wait(inf, -1, NULL));
	EXPECT_EQ(0, check_output(inf, self->want[0], self->out_count));
	npu_inference_release(inf);
	/* one context: the next owner gets it, without the old outputs */
	ASSERT_EQ(0, npu_runner_acquire(r, &again));
	ASSERT_EQ(inf, again);
	EXPECT_NE(0, check_output(again, self->want[0], self->out_count));
	npu_inference_release(again);
	npu_runner_free(r);
}

TEST_F(runner, job_error_reported)
{
	struct npu_job_result res;
	struct npu_inference *inf;
	struct npu_runner *r;
	float y[10];

	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, NULL, &r));
	fake_set(&fk.fail_next, NPU_JOB_BAD_SHAPE);
	EXPECT_EQ(-EIO, npu_runner_run(r, self->x[0], self->in_count, y, 10, &res));
	EXPECT_EQ(NPU_JOB_BAD_SHAPE, res.status);
	EXPECT_EQ(3, res.op_index);
	/* no output of a failed job */
	ASSERT_EQ(0, npu_runner_acquire(r, &inf));
	ASSERT_EQ(0, npu_inference_set_input(inf, 0, self->x[1], self->in_count));
	EXPECT_EQ(-EINVAL, npu_inference_get_output(inf, 0, y, 10));
	ASSERT_EQ(0, npu_inference_submit(inf));
	ASSERT_EQ(0, npu_inference_wait(inf, -1, NULL));
	EXPECT_EQ(0, check_output(inf, self->want[1], self->out_count));
	npu_inference_release(inf);
	npu_runner_free(r);
}

struct thr {
	struct npu_runner *r;
	FIXTURE_DATA(runner) *self;
	int id, bad, done;
};

static void *thread_fn(void *arg)
{
	struct thr *t = arg;
	uint8_t y[16];
	int i;

	for (i = 0; i < 12; i++) {
		int k = (t->id + i) % NIN;
		struct npu_inference *inf;

		npu_runner_acquire(t->r, &inf);
		if (npu_inference_set_input(inf, 0, t->self->x[k], t->self->in_count) ||
		    npu_inference_submit(inf) ||
		    npu_inference_wait(inf, -1, NULL) ||
		    npu_inference_get_output_u8(inf, 0, y, t->self->out_count) ||
		    memcmp(y, t->self->want[k], t->self->out_count))
			t->bad++;
		else
			t->done++;
		npu_inference_release(inf);
	}
	return NULL;
}

TEST_F(runner, threads_share_a_runner)
{
	struct npu_runner_opts o;
	struct thr t[4];
	pthread_t tid[4];
	struct npu_runner *r;
	int i;

	npu_runner_opts_init(&o);
	o.n_pes = 2;
	o.pes[1] = 1;
	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, &o, &r));
	for (i = 0; i < 4; i++) {
		t[i] = (struct thr){ .r = r, .self = self, .id = i };
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, thread_fn, &t[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(tid[i], NULL);
		EXPECT_EQ(0, t[i].bad);
		EXPECT_EQ(12, t[i].done);
	}
	/* never more jobs in flight than contexts; both PEs used equally */
	EXPECT_LE(fk.max_in_flight, 2);
	EXPECT_EQ(24, fk.ran_on[0]);
	EXPECT_EQ(24, fk.ran_on[1]);
	npu_runner_free(r);
}

TEST_F(runner, pe_any)
{
	struct npu_job_result res;
	struct npu_runner *r;
	float y[10];
	int i, seen[FAKE_PES] = { 0 };

	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, NULL, &r));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, npu_runner_run(r, self->x[i], self->in_count, y, 10, &res));
		ASSERT_LT(res.pe, FAKE_PES);
		seen[res.pe]++;
	}
	/* NPU_PE_ANY: the (fake) driver spreads them */
	EXPECT_EQ(2, seen[0]);
	EXPECT_EQ(2, seen[1]);
	npu_runner_free(r);
}

#define MAX_SPANS	128

/* Span of @spans[@n] of @kind whose parent is @parent; NULL: none. */
static const struct npuprof_span_rec *
child_of(const struct npuprof_span_rec *spans, unsigned int n,
	 unsigned int kind, uint64_t parent)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (spans[i].kind == kind && spans[i].parent_id == parent)
			return &spans[i];
	return NULL;
}

/*
 * With a session of host spans, set_input and get_output share their CPU
 * operators' clock reads (shared timestamps, Documentation/npu/libnpu.rst):
 * in the trace, Quantize begins exactly when set_input begins, Lower when
 * Quantize ends, and set_input ends when Lower ends; Unlower begins with
 * get_output, Dequantize when Unlower ends, and get_output ends with it.
 * The operators keep their flag and index.
 */
TEST_F(runner, spans_share_clock_reads)
{
	static const char *const no_devices[] = { NULL };
	static struct npuprof_span_rec spans[MAX_SPANS];
	struct npuprof_session *sess;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npuprof_opts o;
	struct npu_runner *r;
	char path[64], err[256];
	float y[10];
	unsigned int i, n = 0, ins = 0, outs = 0;

	snprintf(path, sizeof(path), "/tmp/npu-test-spans-%d.npuprof",
		 (int)getpid());
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	ASSERT_EQ(0, npuprof_session_create(&o, &sess));
	ASSERT_EQ(0, npuprof_session_start(sess));
	ASSERT_EQ(0, npu_runner_create(self->dev, self->model, NULL, &r));
	for (i = 0; i < NIN; i++) {
		struct npu_inference *inf;

		ASSERT_EQ(0, npu_runner_acquire(r, &inf));
		ASSERT_EQ(0, npu_inference_set_input(inf, 0, self->x[i],
						     self->in_count));
		ASSERT_EQ(0, npu_inference_submit(inf));
		ASSERT_EQ(0, npu_inference_wait(inf, -1, NULL));
		ASSERT_EQ(0, npu_inference_get_output(inf, 0, y, 10));
		npu_inference_release(inf);
	}
	npu_runner_free(r);
	ASSERT_EQ(0, npuprof_session_stop(sess));
	npuprof_session_free(sess);

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1)
		if (ev.type == NPUPROF_EV_SPAN && n < MAX_SPANS)
			spans[n++] = *ev.span;
	npuprof_trace_close(t);
	unlink(path);
	/* nine spans an inference */
	ASSERT_EQ(NIN * 9, n);
	for (i = 0; i < n; i++) {
		const struct npuprof_span_rec *s = &spans[i], *a, *b;
		unsigned int ka, kb;

		if (s->kind == NPUPROF_SPAN_SET_INPUT) {
			ka = NPUPROF_SPAN_QUANTIZE;
			kb = NPUPROF_SPAN_LOWER;
			ins++;
		} else if (s->kind == NPUPROF_SPAN_GET_OUTPUT) {
			ka = NPUPROF_SPAN_UNLOWER;
			kb = NPUPROF_SPAN_DEQUANTIZE;
			outs++;
		} else {
			continue;
		}
		a = child_of(spans, n, ka, s->span_id);
		b = child_of(spans, n, kb, s->span_id);
		ASSERT_NE(NULL, a);
		ASSERT_NE(NULL, b);
		EXPECT_EQ(s->start_ns, a->start_ns);
		EXPECT_EQ(a->end_ns, b->start_ns);
		EXPECT_EQ(b->end_ns, s->end_ns);
		EXPECT_LE(a->start_ns, a->end_ns);
		EXPECT_LE(b->start_ns, b->end_ns);
		EXPECT_EQ(NPUPROF_SPAN_F_OP, a->flags);
		EXPECT_EQ(NPUPROF_SPAN_F_OP, b->flags);
		EXPECT_EQ(0u, a->op_index);
		EXPECT_EQ(0u, b->op_index);
	}
	EXPECT_EQ(NIN, ins);
	EXPECT_EQ(NIN, outs);
}

TEST_HARNESS_MAIN
