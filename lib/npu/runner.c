// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * runner.c - run a model on a device: a pool of contexts, one per in-flight
 * inference, each owning its input, output and scratch buffers; slot 0
 * (constants and program) is uploaded once and shared.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "npu_internal.h"
#include "npu_usdt.h"

#define NPU_RUNNER_MAX_CONTEXTS 64

static void ctx_fini(struct npu_inference *c)
{
	unsigned int s;

	for (s = 1; s < NPU_MODEL_MAX_SLOTS; s++)
		npu_buffer_free(c->bufs[s]);
	npu_uring_free(c->uring);
	free(c->stage);
}

/* The buffer kind of a model slot (NPU_MODEL_SLOT_*), for memory profiles */
static uint32_t slot_bo_flags(uint32_t slot_kind)
{
	switch (slot_kind) {
	case NPU_MODEL_SLOT_CONST:
		return NPU_BO_PROGRAM | NPU_BO_KIND(NPU_BO_KIND_PROGRAM);
	case NPU_MODEL_SLOT_INPUT:
		return NPU_BO_KIND(NPU_BO_KIND_INPUT);
	case NPU_MODEL_SLOT_OUTPUT:
		return NPU_BO_KIND(NPU_BO_KIND_OUTPUT);
	case NPU_MODEL_SLOT_SCRATCH:
		return NPU_BO_KIND(NPU_BO_KIND_SCRATCH);
	default:
		return 0;
	}
}

static int ctx_init(struct npu_runner *r, struct npu_inference *c)
{
	const struct npu_model *m = r->model;
	size_t max_io = 1;
	unsigned int s;
	int ret;

	c->runner = r;
	if (r->uring) {
		ret = npu_uring_create(r->dev->fd, &c->uring);
		if (ret)
			return ret;
	}
	c->bufs[0] = r->const_buf;
	c->maps[0] = r->const_map;
	for (s = 1; s < m->n_slots; s++) {
		void *p;

		ret = npu_buffer_create(r->dev, m->slot_size[s],
					slot_bo_flags(m->slot_kind[s]),
					&c->bufs[s]);
		if (ret)
			return ret;
		ret = npu_buffer_map(c->bufs[s], &p);
		if (ret)
			return ret;
		c->maps[s] = p;
	}
	for (s = 0; s < m->n_inputs + m->n_outputs; s++)
		if (m->io[s].count > max_io)
			max_io = m->io[s].count;
	c->stage = malloc(max_io);
	return c->stage ? 0 : -ENOMEM;
}

/* Set up io_uring submission when @path asks for it and it is offered. */
static int npu_runner_uring(struct npu_runner *r, unsigned int path)
{
	struct npu_device *dev = r->dev;
	int offered;

	if (path == NPU_SUBMIT_IOCTL)
		return 0;
	/* probed once per device; runners made at once may both probe */
	offered = __atomic_load_n(&dev->uring, __ATOMIC_RELAXED);
	if (!offered) {
		offered = npu_uring_probe(dev->fd) ? 1 : -1;
		__atomic_store_n(&dev->uring, offered, __ATOMIC_RELAXED);
	}
	if (offered < 0)
		return path == NPU_SUBMIT_URING ? -EOPNOTSUPP : 0;
	r->uring = true;
	return 0;
}

enum npu_submit_path npu_runner_submit_path(const struct npu_runner *r)
{
	return r->uring ? NPU_SUBMIT_URING : NPU_SUBMIT_IOCTL;
}

void npu_runner_opts_init(struct npu_runner_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->contexts = NPU_RUNNER_DEFAULT_CONTEXTS;
	opts->submit = NPU_SUBMIT_AUTO;
}

/*
 * @in as this version of the struct: the fields a smaller (older) caller's
 * struct lacks keep their defaults; the bytes of a larger (newer) one that
 * this version does not know must be zero, as libbpf's OPTS_VALID() and
 * the kernel's bpf_check_uarg_tail_zero() want them.
 */
static int npu_runner_opts_get(const struct npu_runner_opts *in,
			       struct npu_runner_opts *o, unsigned int pe_count)
{
	const unsigned char *b = (const unsigned char *)in;
	unsigned int i;
	size_t n;

	npu_runner_opts_init(o);
	if (!in)
		return 0;
	if (in->sz < sizeof(in->sz))
		return -EINVAL;
	for (n = sizeof(*o); n < in->sz; n++)
		if (b[n])
			return -E2BIG;
	memcpy(o, in, in->sz < sizeof(*o) ? in->sz : sizeof(*o));
	o->sz = sizeof(*o);
	if (!o->contexts)
		o->contexts = NPU_RUNNER_DEFAULT_CONTEXTS;
	if (o->contexts > NPU_RUNNER_MAX_CONTEXTS ||
	    o->n_pes > sizeof(o->pes) / sizeof(o->pes[0]) ||
	    o->submit > NPU_SUBMIT_URING)
		return -EINVAL;
	for (i = 0; i < o->n_pes; i++)
		if (o->pes[i] >= pe_count)
			return -EINVAL;
	return 0;
}

int npu_runner_create(struct npu_device *dev, const struct npu_model *model,
		      const struct npu_runner_opts *opts,
		      struct npu_runner **runnerp)
{
	struct npu_runner_opts o;
	struct npu_runner *r;
	unsigned int i;
	void *p;
	int ret;

	if (!dev || !model || !runnerp)
		return -EINVAL;
	ret = npu_runner_opts_get(opts, &o, dev->info.pe_count);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->dev = dev;
	r->model = model;
	r->n_ctx = o.contexts;
	r->n_pes = o.n_pes;
	memcpy(r->pes, o.pes, sizeof(r->pes));
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	ret = npu_runner_uring(r, o.submit);
	if (ret)
		goto err;

	ret = npu_buffer_create(dev, model->slot_size[0],
				slot_bo_flags(NPU_MODEL_SLOT_CONST), &r->const_buf);
	if (ret)
		goto err;
	ret = npu_buffer_map(r->const_buf, &p);
	if (ret)
		goto err;
	r->const_map = p;
	memcpy(r->const_map, model->image, model->image_size);

	r->ctx = calloc(r->n_ctx, sizeof(*r->ctx));
	if (!r->ctx) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < r->n_ctx; i++) {
		ret = ctx_init(r, &r->ctx[i]);
		if (ret)
			goto err;
	}
	r->n_free = r->n_ctx;
	*runnerp = r;
	return 0;
err:
	npu_runner_free(r);
	return ret;
}

void npu_runner_free(struct npu_runner *r)
{
	unsigned int i;

	if (!r)
		return;
	if (r->ctx) {
		for (i = 0; i < r->n_ctx; i++)
			ctx_fini(&r->ctx[i]);
		free(r->ctx);
	}
	npu_buffer_free(r->const_buf);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* acquire, with the inference span a child of @parent (or a root) */
static int npu_runner_acquire_in(struct npu_runner *r,
				 struct npu_inference **inf,
				 const struct npuprof_span *parent)
{
	unsigned int i;

	pthread_mutex_lock(&r->lock);
	while (!r->n_free)
		pthread_cond_wait(&r->cond, &r->lock);
	for (i = 0; i < r->n_ctx; i++)
		if (!r->ctx[i].busy)
			break;
	r->ctx[i].busy = true;
	r->n_free--;
	pthread_mutex_unlock(&r->lock);
	*inf = &r->ctx[i];
	npu_span_begin(&r->ctx[i].span, NPUPROF_SPAN_INFERENCE, parent);
	return 0;
}

int npu_runner_acquire(struct npu_runner *r, struct npu_inference **inf)
{
	return npu_runner_acquire_in(r, inf, NULL);
}

void npu_inference_release(struct npu_inference *c)
{
	struct npu_runner *r;

	if (!c)
		return;
	r = c->runner;
	/* a job still on the device uses our buffers: collect it first */
	while (c->submitted)
		if (npu_inference_wait(c, -1, NULL) == -ETIMEDOUT)
			continue;
		else
			break;
	c->submitted = false;
	/* the next owner must not read this inference's outputs */
	c->done = false;
	npu_span_end(&c->span);
	pthread_mutex_lock(&r->lock);
	c->busy = false;
	r->n_free++;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/*
 * Lower quantized input @q into its slot, timed as a Lower span that
 * begins at *@at (shared timestamps: the end of the span before it, or its
 * parent's start) and whose end goes back in *@at.
 */
static int npu_span_lower(struct npu_inference *c,
			  const struct npu_tensor_desc *d, unsigned int idx,
			  const uint8_t *q, const struct npuprof_span *parent,
			  struct npuprof_stamp *at)
{
	struct npuprof_span op;
	int ret;

	npu_span_op_begin_at(&op, NPUPROF_SPAN_LOWER, parent, idx, *at);
	ret = npu_lower(q, c->maps[d->slot] + d->offset, d->dev_size,
			d->dims, d->layout, (uint8_t)d->zero_point);
	*at = npu_span_done_at(&op, ret, NPU_STAMP_NONE);
	return ret;
}

/* Unlower output @d into @q, timed as an Unlower span, as npu_span_lower(). */
static int npu_span_unlower(struct npu_inference *c,
			    const struct npu_tensor_desc *d, unsigned int idx,
			    uint8_t *q, const struct npuprof_span *parent,
			    struct npuprof_stamp *at)
{
	struct npuprof_span op;
	int ret;

	npu_span_op_begin_at(&op, NPUPROF_SPAN_UNLOWER, parent, idx, *at);
	ret = npu_unlower(c->maps[d->slot] + d->offset, d->dev_size, q,
			  d->dims, d->layout);
	*at = npu_span_done_at(&op, ret, NPU_STAMP_NONE);
	return ret;
}

int npu_inference_set_input_u8(struct npu_inference *c, unsigned int idx,
			       const uint8_t *data, size_t count)
{
	const struct npu_model *m = c->runner->model;
	const struct npu_tensor_desc *d = npu_model_input(m, idx);
	struct npuprof_span in;
	struct npuprof_stamp t;
	int ret;

	if (!d || !data || count != d->count || c->submitted)
		return -EINVAL;
	/* Lower begins and ends with set_input: two clock reads, not four */
	npu_span_begin(&in, NPUPROF_SPAN_SET_INPUT, &c->span);
	t = npuprof_span_start(&in);
	ret = npu_span_lower(c, d, idx, data, &in, &t);
	npu_span_done_at(&in, ret, t);
	return ret;
}

int npu_inference_set_input(struct npu_inference *c, unsigned int idx,
			    const float *data, size_t count)
{
	const struct npu_model *m = c->runner->model;
	const struct npu_tensor_desc *d = npu_model_input(m, idx);
	struct npuprof_span in, op;
	struct npuprof_stamp t;
	int ret;

	if (!d || !data || count != d->count || c->submitted)
		return -EINVAL;
	/*
	 * Quantize begins with set_input, Lower where Quantize ends, and
	 * set_input ends with Lower: three clock reads, not six
	 */
	npu_span_begin(&in, NPUPROF_SPAN_SET_INPUT, &c->span);
	npu_span_op_begin_at(&op, NPUPROF_SPAN_QUANTIZE, &in, idx,
			     npuprof_span_start(&in));
	ret = npu_quantize(data, c->stage, count, d->scale, d->zero_point);
	t = npu_span_done_at(&op, ret, NPU_STAMP_NONE);
	if (!ret)
		ret = npu_span_lower(c, d, idx, c->stage, &in, &t);
	npu_span_done_at(&in, ret, t);
	return ret;
}

int npu_inference_submit(struct npu_inference *c)
{
	struct npu_runner *r = c->runner;
	const struct npu_model *m = r->model;
	uint32_t handles[NPU_MODEL_MAX_SLOTS];
	struct npu_submit req;
	unsigned int s;
	struct npuprof_span sp;
	int ret;

	if (c->submitted)
		return -EBUSY;
	npu_span_begin(&sp, NPUPROF_SPAN_SUBMIT, &c->span);
	for (s = 0; s < m->n_slots; s++)
		handles[s] = c->bufs[s]->handle;
	memset(&req, 0, sizeof(req));
	req.job.pe = NPU_PE_ANY;
	if (r->n_pes) {
		pthread_mutex_lock(&r->lock);
		req.job.pe = r->pes[r->rr++ % r->n_pes];
		pthread_mutex_unlock(&r->lock);
	}
	req.job.nbufs = m->n_slots;
	req.job.prog_slot = 0;
	req.job.prog_offset = m->prog_offset;
	req.job.prog_size = m->prog_size;
	req.job.bufs = (uintptr_t)handles;
	if (c->uring)
		ret = npu_uring_submit(c->uring, &req.job, &req.job_id);
	else
		ret = npu_xioctl(r->dev->fd, NPU_IOCTL_SUBMIT, &req);
	if (sp.on && ret >= 0) {
		sp.rec.flags |= NPUPROF_SPAN_F_JOB;
		sp.rec.job_id = req.job_id;
		sp.rec.minor = r->dev->info.minor;
	}
	/* the program the job runs: its MODEL item of the trace file */
	if (sp.on && m->prof_id) {
		sp.rec.flags |= NPUPROF_SPAN_F_MODEL;
		sp.rec.name_id = m->prof_id;
	}
	npu_span_done(&sp, ret);
	if (ret < 0)
		return ret;
	c->job_id = req.job_id;
	c->submitted = true;
	c->done = false;
	return 0;
}

/*
 * NPU_IOCTL_WAIT with a relative timeout that a signal does not restart:
 * after -EINTR the remaining time is recomputed from a CLOCK_MONOTONIC
 * deadline, as ppoll() and clock_nanosleep() users do, so a signal storm
 * (a profiler's SIGPROF) cannot make a timed wait block for ever.
 */
static int npu_wait_ioctl(int fd, __u64 job_id, int64_t timeout_ns,
			  struct npu_job_result *res)
{
	struct npu_wait req = { .job_id = job_id };
	struct timespec ts;
	int64_t deadline = 0, now;

	if (timeout_ns > 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		deadline = ts.tv_sec * 1000000000ll + ts.tv_nsec + timeout_ns;
	}
	for (;;) {
		req.timeout_ns = timeout_ns;
		if (!ioctl(fd, NPU_IOCTL_WAIT, &req)) {
			*res = req.result;
			return 0;
		}
		if (errno != EINTR)
			return -errno;
		if (timeout_ns > 0) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			now = ts.tv_sec * 1000000000ll + ts.tv_nsec;
			if (now >= deadline)
				return -ETIMEDOUT;
			timeout_ns = deadline - now;
		}
	}
}

int npu_inference_wait(struct npu_inference *c, int64_t timeout_ns,
		       struct npu_job_result *res)
{
	struct npu_job_result out;
	struct npuprof_span sp;
	int ret;

	if (!c->submitted)
		return -EINVAL;
	memset(&out, 0, sizeof(out));
	npu_span_begin_x(&sp, NPUPROF_SPAN_WAIT, &c->span, NPUPROF_SPAN_F_JOB,
			 0, c->job_id, c->runner->dev->info.minor);
	if (c->uring)
		ret = npu_uring_wait(c->uring, timeout_ns, &out);
	else
		ret = npu_wait_ioctl(c->runner->dev->fd, c->job_id, timeout_ns,
				     &out);
	npu_span_done(&sp, ret < 0 ? ret : (out.status ? -EIO : 0));
	if (ret == -ETIMEDOUT)
		return ret;
	/* any other answer means the driver no longer holds the job */
	c->submitted = false;
	if (ret < 0)
		return ret;
	c->done = out.status == NPU_JOB_OK;
	if (res)
		*res = out;
	return out.status == NPU_JOB_OK ? 0 : -EIO;
}

int npu_inference_get_output_u8(struct npu_inference *c, unsigned int idx,
				uint8_t *data, size_t count)
{
	const struct npu_tensor_desc *d = npu_model_output(c->runner->model, idx);
	struct npuprof_span out;
	struct npuprof_stamp t;
	int ret;

	if (!d || !data || count != d->count || !c->done)
		return -EINVAL;
	/* Unlower begins and ends with get_output */
	npu_span_begin(&out, NPUPROF_SPAN_GET_OUTPUT, &c->span);
	t = npuprof_span_start(&out);
	ret = npu_span_unlower(c, d, idx, data, &out, &t);
	npu_span_done_at(&out, ret, t);
	return ret;
}

int npu_inference_get_output(struct npu_inference *c, unsigned int idx,
			     float *data, size_t count)
{
	const struct npu_tensor_desc *d = npu_model_output(c->runner->model, idx);
	struct npuprof_span out, op;
	struct npuprof_stamp t;
	int ret;

	if (!d || !data || count != d->count || !c->done)
		return -EINVAL;
	/*
	 * Unlower begins with get_output, Dequantize where Unlower ends, and
	 * get_output ends with the last of them
	 */
	npu_span_begin(&out, NPUPROF_SPAN_GET_OUTPUT, &c->span);
	t = npuprof_span_start(&out);
	ret = npu_span_unlower(c, d, idx, c->stage, &out, &t);
	if (!ret) {
		npu_span_op_begin_at(&op, NPUPROF_SPAN_DEQUANTIZE, &out, idx, t);
		ret = npu_dequantize(c->stage, data, count, d->scale,
				     d->zero_point);
		t = npu_span_done_at(&op, ret, NPU_STAMP_NONE);
	}
	npu_span_done_at(&out, ret, t);
	return ret;
}

const void *npu_inference_slot(const struct npu_inference *c,
			       unsigned int slot, size_t *size)
{
	const struct npu_model *m = c->runner->model;

	if (slot >= m->n_slots)
		return NULL;
	if (size)
		*size = m->slot_size[slot];
	return c->maps[slot];
}

int npu_runner_run(struct npu_runner *r, const float *input, size_t in_count,
		   float *output, size_t out_count, struct npu_job_result *res)
{
	struct npu_inference *c;
	struct npuprof_span run;
	int ret;

	if (r->model->n_inputs != 1 || r->model->n_outputs != 1)
		return -EINVAL;
	npu_span_begin(&run, NPUPROF_SPAN_RUN, NULL);
	ret = npu_runner_acquire_in(r, &c, &run);
	if (ret) {
		npu_span_done(&run, ret);
		return ret;
	}
	ret = npu_inference_set_input(c, 0, input, in_count);
	if (!ret)
		ret = npu_inference_submit(c);
	if (!ret)
		ret = npu_inference_wait(c, -1, res);
	if (!ret)
		ret = npu_inference_get_output(c, 0, output, out_count);
	npu_inference_release(c);
	npu_span_done(&run, ret);
	return ret;
}
