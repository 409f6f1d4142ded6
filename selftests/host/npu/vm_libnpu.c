// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnpu on the real driver, in the VM ($(BUILD)/vmtests/npu-libnpu):
 * the generated networks run on several PEs concurrently and every output
 * matches lib/npuref bit for bit; a profiling session's file describes
 * the model and names it on every SUBMIT span of its jobs. Skips when
 * there is no /dev/npu0.
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
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npuprof.h"
#include "npuref.h"
#include "refcache.h"
#include "trace_items.h"

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

/*
 * npuref's output slots for inputs 1 and 2 (nc_random_input): from
 * $NPU_BUILD/data/NAME.ref, computed on the host by npu-classify --write-ref,
 * when it matches the model; else by running npuref here (minutes for
 * MobileNet under TCG).
 */
static int references(const struct npu_model *m, const char *name, float **x,
		      uint8_t **want, size_t *size)
{
	const struct npu_tensor_desc *o = npu_model_output(m, 0);
	const char *b = getenv("NPU_BUILD");
	char path[512];
	unsigned int k;
	int ret = -ENOENT;

	npu_model_slot(m, o->slot, NULL, size);
	if (b) {
		snprintf(path, sizeof(path), "%s/data/%s.ref", b, name);
		ret = nc_ref_read(path, m, 1, NIN, want, *size);
	}
	if (!ret) {
		fprintf(stderr, "# %s: npuref outputs from %s\n", name, path);
		return 0;
	}
	fprintf(stderr, "# %s: running npuref in the guest\n", name);
	for (k = 0; k < NIN; k++) {
		ret = nc_reference(m, x[k], &want[k], size);
		if (ret)
			return ret;
	}
	return 0;
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
	struct npu_runner_opts o;
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
		nc_random_input(npu_model_input(m, 0), x[i], 1 + i);
	}
	ASSERT_EQ(0, references(m, name, x, want, &want_size));
	npu_runner_opts_init(&o);
	o.contexts = threads;
	o.n_pes = 2;
	o.pes[1] = 1;
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
	nc_random_input(npu_model_input(m, 0), x, 1);
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
	EXPECT_NE(0, res.job_id);
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

/* What a trace says about models: MODEL items and SUBMIT spans */
struct model_refs {
	unsigned int models;
	uint32_t id;			/* of the last MODEL item */
	unsigned int submits, named;	/* SUBMIT spans, with the id */
};

static void on_item(void *ctx, uint16_t type, const void *body, uint32_t len)
{
	struct model_refs *x = ctx;
	const struct npuprof_span_rec *sp = body;
	const struct npf_item_model *mi = body;

	if (type == NPF_ITEM_MODEL && len >= sizeof(*mi)) {
		x->models++;
		x->id = mi->model_id;
	} else if (type == NPF_ITEM_SPAN && len >= sizeof(*sp) &&
		   sp->kind == NPUPROF_SPAN_SUBMIT) {
		x->submits++;
		if ((sp->flags & NPUPROF_SPAN_F_MODEL) && sp->name_id == x->id)
			x->named++;
	}
}

TEST_F_TIMEOUT(vm, submit_spans_name_their_model, 300)
{
	static const char *const devs[] = { DEV, NULL };
	struct npuprof_session *s;
	struct model_refs x = { 0 };
	struct npu_device *dev;
	struct npuprof_opts o;
	struct npu_model *m;
	struct npu_runner *r;
	float *in, y[10];
	char err[256], path[64];
	int ret, i;

	ret = npu_device_open(DEV, &dev);
	if (ret == -ENOENT)
		SKIP(return, DEV " missing");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, load_model("mnist", &m, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, npu_runner_create(dev, m, NULL, &r));
	in = calloc(npu_model_input(m, 0)->count, sizeof(float));
	ASSERT_NE(NULL, in);
	/* the session starts after the model was loaded */
	snprintf(path, sizeof(path), "/tmp/npu-libnpu-%d.npuprof", (int)getpid());
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = devs;
	o.level = 0;
	ASSERT_EQ(0, npuprof_session_create(&o, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, npu_runner_run(r, in, npu_model_input(m, 0)->count,
					    y, 10, NULL));
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	trace_items(path, on_item, &x);
	EXPECT_EQ(1u, x.models);
	EXPECT_NE(0u, x.id);
	EXPECT_EQ(3u, x.submits);
	EXPECT_EQ(3u, x.named);
	unlink(path);
	free(in);
	npu_runner_free(r);
	npu_device_close(dev);
	npu_model_free(m);
}

TEST_HARNESS_MAIN
