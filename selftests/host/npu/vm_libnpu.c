// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnpu on the real driver, in the VM ($(BUILD)/vmtests/npu-libnpu):
 * the generated networks run on several PEs concurrently and every output
 * matches lib/npuref bit for bit. Skips when there is no /dev/npu0.
 *
 * Models come from $NPU_BUILD/models (npu-model-gen's output in the image)
 * or, failing that, are generated in place.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "modelgen.h"
#include "npu_hw.h"
#include "npu_model_file.h"
#include "npuref.h"

#define DEV "/dev/npu0"
#define NIN 2

static int load_model(const char *name, struct npu_model **m, char *err,
		      size_t errlen)
{
	const char *b = getenv("NPU_BUILD");
	char path[512];
	uint8_t *file;
	size_t size;
	int ret;

	if (b) {
		snprintf(path, sizeof(path), "%s/models/%s.nmdl", b, name);
		if (!access(path, R_OK))
			return npu_model_load(path, m, err, errlen);
	}
	ret = mg_build(name, 1, &file, &size, err, errlen);
	if (ret)
		return ret;
	ret = npu_model_load_mem(file, size, m, err, errlen);
	free(file);
	return ret;
}

/* the whole output slot npuref produces for input @x */
static int reference(const struct npu_model *m, const float *x, uint8_t **out,
		     size_t *out_size)
{
	const struct npu_tensor_desc *in = npu_model_input(m, 0);
	const struct npu_tensor_desc *o = npu_model_output(m, 0);
	struct npuref_buf s[NPU_MODEL_MAX_SLOTS] = { { 0 } };
	unsigned int i, n = npu_model_num_slots(m);
	uint8_t *q = malloc(in->count);
	uint32_t po, ps;
	size_t isz;
	const void *img = npu_model_const_image(m, &isz, &po, &ps);
	int ret = -ENOMEM;

	if (!q)
		return ret;
	for (i = 0; i < n; i++) {
		npu_model_slot(m, i, NULL, &s[i].size);
		s[i].base = calloc(1, s[i].size);
		if (!s[i].base)
			goto out;
	}
	memcpy(s[0].base, img, isz);
	ret = npu_quantize(x, q, in->count, in->scale, in->zero_point);
	if (!ret)
		ret = npu_lower(q, (uint8_t *)s[in->slot].base + in->offset,
				in->dev_size, in->dims, in->layout,
				(uint8_t)in->zero_point);
	if (!ret)
		ret = npuref_run((uint8_t *)s[0].base + po, ps, s, n, 0, NULL);
	if (ret > 0)
		ret = -EIO;
	if (!ret) {
		*out = s[o->slot].base;
		*out_size = s[o->slot].size;
		s[o->slot].base = NULL;
	}
out:
	for (i = 0; i < n; i++)
		free(s[i].base);
	free(q);
	return ret;
}

static void make_input(const struct npu_tensor_desc *d, float *x, unsigned int k)
{
	float lo = (0 - d->zero_point) * d->scale;
	float hi = (255 - d->zero_point) * d->scale;
	uint32_t s = 12345 + k * 7919;
	size_t i;

	for (i = 0; i < d->count; i++) {
		s = s * 1664525u + 1013904223u;
		x[i] = lo + (hi - lo) * (float)(s >> 8) / 16777216.0f;
	}
}

struct job {
	struct npu_runner *r;
	const struct npu_model *m;
	float **x;
	uint8_t **want;
	size_t want_size;
	unsigned int per_thread, id;
	unsigned int ok, bad, pe_mask;
};

static void *thread_fn(void *arg)
{
	struct job *j = arg;
	unsigned int i;

	for (i = 0; i < j->per_thread; i++) {
		unsigned int k = (j->id + i) % NIN;
		const struct npu_tensor_desc *o = npu_model_output(j->m, 0);
		struct npu_job_result res = { 0 };
		struct npu_inference *inf;
		const void *got;
		size_t sz;

		npu_runner_acquire(j->r, &inf);
		if (npu_inference_set_input(inf, 0, j->x[k],
					    npu_model_input(j->m, 0)->count) ||
		    npu_inference_submit(inf) ||
		    npu_inference_wait(inf, -1, &res)) {
			j->bad++;
		} else {
			got = npu_inference_slot(inf, o->slot, &sz);
			if (sz == j->want_size && !memcmp(got, j->want[k], sz))
				j->ok++;
			else
				j->bad++;
			j->pe_mask |= 1u << res.pe;
		}
		npu_inference_release(inf);
	}
	return NULL;
}

/* @threads threads share a runner on PEs 0 and 1; all outputs bit-exact */
static void run_net(struct __test_metadata *_metadata, const char *name,
		    unsigned int threads, unsigned int per_thread)
{
	struct npu_runner_opts o = { .contexts = threads, .n_pes = 2,
				     .pes = { 0, 1 } };
	struct npu_device *dev;
	struct npu_model *m;
	struct npu_runner *r;
	struct job jobs[4];
	pthread_t tid[4];
	float *x[NIN];
	uint8_t *want[NIN];
	size_t want_size = 0;
	unsigned int i, pes = 0;
	char err[256];
	int ret;

	ret = npu_device_open(DEV, &dev);
	if (ret == -ENOENT)
		SKIP(return, DEV " missing");
	ASSERT_EQ(0, ret);
	if (npu_device_info(dev)->pe_count < 2) {
		npu_device_close(dev);
		SKIP(return, "fewer than 2 PEs");
	}
	ASSERT_EQ(0, load_model(name, &m, err, sizeof(err))) TH_LOG("%s", err);
	for (i = 0; i < NIN; i++) {
		x[i] = malloc(npu_model_input(m, 0)->count * sizeof(float));
		ASSERT_NE(NULL, x[i]);
		make_input(npu_model_input(m, 0), x[i], i);
		ASSERT_EQ(0, reference(m, x[i], &want[i], &want_size));
	}
	ret = npu_runner_create(dev, m, &o, &r);
	ASSERT_EQ(0, ret) TH_LOG("runner: %s", strerror(-ret));
	for (i = 0; i < threads; i++) {
		jobs[i] = (struct job){ .r = r, .m = m, .x = x, .want = want,
					.want_size = want_size,
					.per_thread = per_thread, .id = i };
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, thread_fn, &jobs[i]));
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		EXPECT_EQ(per_thread, jobs[i].ok);
		EXPECT_EQ(0, jobs[i].bad);
		pes |= jobs[i].pe_mask;
	}
	/* both PEs ran jobs */
	EXPECT_EQ(3, pes);
	npu_runner_free(r);
	npu_device_close(dev);
	for (i = 0; i < NIN; i++) {
		free(x[i]);
		free(want[i]);
	}
	npu_model_free(m);
}

FIXTURE(vm) {
	int unused;
};

FIXTURE_SETUP(vm)
{
}

FIXTURE_TEARDOWN(vm)
{
}

TEST_F_TIMEOUT(vm, mnist_two_pes_bit_exact, 300)
{
	run_net(_metadata, "mnist", 2, 16);
}

TEST_F_TIMEOUT(vm, mobilenet_v1_two_pes_bit_exact, 1200)
{
	run_net(_metadata, "mobilenet-v1", 2, 1);
}

TEST_F_TIMEOUT(vm, async_poll_then_wait, 300)
{
	struct npu_device *dev;
	struct npu_model *m;
	struct npu_runner *r;
	struct npu_inference *inf;
	struct npu_job_result res;
	float *x, y[10];
	char err[256];
	int ret, polls = 0;

	ret = npu_device_open(DEV, &dev);
	if (ret == -ENOENT)
		SKIP(return, DEV " missing");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, load_model("mnist", &m, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, npu_runner_create(dev, m, NULL, &r));
	x = malloc(npu_model_input(m, 0)->count * sizeof(float));
	ASSERT_NE(NULL, x);
	make_input(npu_model_input(m, 0), x, 0);
	ASSERT_EQ(0, npu_runner_acquire(r, &inf));
	ASSERT_EQ(0, npu_inference_set_input(inf, 0, x, npu_model_input(m, 0)->count));
	ASSERT_EQ(0, npu_inference_submit(inf));
	/* polling returns -ETIMEDOUT until the job is done, then 0 */
	while ((ret = npu_inference_wait(inf, 0, &res)) == -ETIMEDOUT) {
		polls++;
		usleep(1000);
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(NPU_JOB_OK, res.status);
	EXPECT_LE(res.submit_ns, res.complete_ns);
	EXPECT_LE(res.start_tick, res.end_tick);
	ASSERT_EQ(0, npu_inference_get_output(inf, 0, y, 10));
	/* a job's result is returned once */
	EXPECT_EQ(-EINVAL, npu_inference_wait(inf, 0, &res));
	TH_LOG("job done after %d polls on PE %u", polls, res.pe);
	npu_inference_release(inf);
	npu_runner_free(r);
	npu_device_close(dev);
	npu_model_free(m);
	free(x);
}

TEST_HARNESS_MAIN
