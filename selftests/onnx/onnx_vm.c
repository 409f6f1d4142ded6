// SPDX-License-Identifier: GPL-2.0-only
/*
 * onnx_vm.c - ONNX models compiled by tools/npu-onnx, run on the device in
 * the VM through libnpu ($(BUILD)/vmtests/onnx-device).
 *
 * node_vectors: every node vector the host sweep supported
 *   (selftests/host/onnx-models/sweep.c keeps them in
 *   $NPU_BUILD/onnx/vectors/NAME/: model.nmdl, io.txt and the .pb files)
 *   runs on the device, on PE 0 and on PE 1, and must give its
 *   output_K.pb bit for bit. An input or output that is float in ONNX (a
 *   QuantizeLinear or DequantizeLinear at the edge) goes through libnpu's
 *   float path, npu_inference_set_input() and npu_inference_get_output(),
 *   whose float32 (q - zero_point) * scale must equal ONNX's
 *   DequantizeLinear bit for bit; a uint8 one through the raw path,
 *   npu_inference_set_input_u8() and npu_inference_get_output_u8(), byte
 *   for byte.
 * roundtrip: our MNIST and MobileNet-v1 ($NPU_BUILD/onnx/models/NET/,
 *   made by the host's run-roundtrip.sh), the model npu-model-gen builds
 *   and the ones imported from its QOperator and QDQ ONNX exports, run on
 *   both PEs with the same PRNG inputs (NHWC, and NCHW for the imported
 *   ones): every output byte must be the same, and the same as the host's
 *   lib/npuref output for that input (gen-K.u8, kept by the host test).
 *
 * The directory $NPU_BUILD/onnx is shared with the guest (npu-vm --share,
 * in onnx-device.npu-vm); it is filled by the host suites, which
 * scripts/check.sh runs first. Skips without /dev/npu0; node_vectors
 * skips when the host sweep has not run (it writes sweep.txt there even
 * when it finds no vector, and skips without libonnx-testdata).
 *
 * Locking: single-threaded. Lifetime: every model, runner and buffer is
 * freed by the test that made it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "onnx.pb-c.h"
#include "onnxvec.h"

#define DEV "/dev/npu0"
#define RT_INPUTS 2

static const char *onnx_dir(char *buf, size_t len)
{
	const char *b = getenv("NPU_BUILD");

	snprintf(buf, len, "%s/onnx", b && *b ? b : BUILD_DIR);
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* one inference of @m on PE @pe; @x[i] host arrays; @y[j] malloc'ed */
struct io_vals {
	bool is_float;
	void *data;		/* float or uint8 host values */
	size_t count;
};

static int run_on(struct npu_device *dev, const struct npu_model *m,
		  unsigned int pe, const struct io_vals *x, struct io_vals *y,
		  char *err, size_t errlen)
{
	struct npu_runner_opts o;
	struct npu_runner *r = NULL;
	struct npu_inference *inf = NULL;
	struct npu_job_result res;
	unsigned int i;
	int ret;

	npu_runner_opts_init(&o);
	o.contexts = 1;
	o.n_pes = 1;
	o.pes[0] = pe;
	ret = npu_runner_create(dev, m, &o, &r);
	if (ret) {
		snprintf(err, errlen, "npu_runner_create: %s", strerror(-ret));
		return ret;
	}
	npu_runner_acquire(r, &inf);
	for (i = 0; !ret && i < npu_model_num_inputs(m); i++)
		ret = x[i].is_float ?
		      npu_inference_set_input(inf, i, x[i].data, x[i].count) :
		      npu_inference_set_input_u8(inf, i, x[i].data, x[i].count);
	if (ret) {
		snprintf(err, errlen, "set input %u: %s", i - 1, strerror(-ret));
		goto out;
	}
	ret = npu_inference_submit(inf);
	if (!ret)
		ret = npu_inference_wait(inf, 120 * 1000000000ll, &res);
	if (ret) {
		snprintf(err, errlen, "job: %s (status %u, operator %u)",
			 strerror(-ret), res.status, res.op_index);
		goto out;
	}
	for (i = 0; !ret && i < npu_model_num_outputs(m); i++) {
		size_t es = y[i].is_float ? sizeof(float) : 1;

		y[i].data = malloc(y[i].count * es + 1);
		if (!y[i].data) {
			ret = -ENOMEM;
			break;
		}
		ret = y[i].is_float ?
		      npu_inference_get_output(inf, i, y[i].data, y[i].count) :
		      npu_inference_get_output_u8(inf, i, y[i].data, y[i].count);
		if (ret)
			snprintf(err, errlen, "get output %u: %s", i,
				 strerror(-ret));
	}
out:
	npu_inference_release(inf);
	npu_runner_free(r);
	return ret;
}

static void vals_free(struct io_vals *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(v[i].data);
		v[i].data = NULL;
	}
}

/* one kept vector on PE @pe: 0 when every output is bit-exact */
static int vector(struct npu_device *dev, const char *dir, unsigned int pe,
		  char *err, size_t errlen)
{
	struct io_vals x[OV_MAX_IO] = { { 0 } }, y[OV_MAX_IO] = { { 0 } };
	struct ov_tensor t[OV_MAX_IO] = { { 0 } }, e[OV_MAX_IO] = { { 0 } };
	struct npu_model *m = NULL;
	char path[4096];
	struct ov_plan p;
	unsigned int i, j;
	int ret;

	snprintf(path, sizeof(path), "%s/model.nmdl", dir);
	ret = npu_model_load(path, &m, err, errlen);
	if (!ret)
		ret = ov_plan_read(dir, &p, err, errlen);
	if (ret)
		goto out_model;
	for (i = 0; !ret && i < p.n_in; i++) {
		snprintf(path, sizeof(path), "%s/input_%u.pb", dir, p.in[i]);
		ret = ov_tensor_load(path, &t[i], err, errlen);
		x[i].is_float = t[i].type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
		x[i].data = t[i].data;
		x[i].count = t[i].count;
	}
	for (j = 0; !ret && j < p.n_out; j++) {
		snprintf(path, sizeof(path), "%s/output_%u.pb", dir, p.out[j]);
		ret = ov_tensor_load(path, &e[j], err, errlen);
		y[j].is_float = e[j].type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
		y[j].count = npu_model_output(m, j)->count;
		if (!ret && e[j].count != y[j].count) {
			snprintf(err, errlen, "output %u: %zu expected values for %zu",
				 j, e[j].count, y[j].count);
			ret = -EINVAL;
		}
	}
	if (!ret)
		ret = run_on(dev, m, pe, x, y, err, errlen);
	for (j = 0; !ret && j < p.n_out; j++) {
		size_t k, es = y[j].is_float ? sizeof(float) : 1;
		const uint8_t *a = y[j].data, *b = e[j].data;

		for (k = 0; k < y[j].count; k++)
			if (memcmp(a + k * es, b + k * es, es))
				break;
		if (k == y[j].count)
			continue;
		if (y[j].is_float)
			snprintf(err, errlen, "output %u [%zu]: %.9g, expected %.9g",
				 j, k, ((float *)y[j].data)[k],
				 ((float *)e[j].data)[k]);
		else
			snprintf(err, errlen, "output %u [%zu]: %u, expected %u",
				 j, k, a[k], b[k]);
		ret = 1;
	}
	vals_free(y, OV_MAX_IO);
	for (i = 0; i < OV_MAX_IO; i++) {
		ov_tensor_free(&t[i]);
		ov_tensor_free(&e[i]);
	}
out_model:
	npu_model_free(m);
	return ret;
}

FIXTURE(dev) {
	struct npu_device *dev;
	unsigned int pes;
	char dir[4096];
};

FIXTURE_SETUP(dev)
{
	int ret;

	if (access(DEV, F_OK))
		SKIP(return, "no %s", DEV);
	ret = npu_device_open(DEV, &self->dev);
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", DEV, strerror(-ret));
	self->pes = npu_device_info(self->dev)->pe_count;
	onnx_dir(self->dir, sizeof(self->dir));
}

FIXTURE_TEARDOWN(dev)
{
	npu_device_close(self->dev);
}

TEST_F_TIMEOUT(dev, node_vectors, 600)
{
	char path[4096], err[512], **names = NULL;
	unsigned int n = 0, i, pass = 0, cap = 0, pe, npes;
	struct dirent *de;
	DIR *d;

	if (!self->dev)
		return;		/* skipped by the setup */
	/* the host sweep skips without libonnx-testdata: so do we */
	snprintf(path, sizeof(path), "%s/sweep.txt", self->dir);
	if (access(path, F_OK))
		SKIP(return, "%s: the host suite onnx-sweep has not run", path);
	snprintf(path, sizeof(path), "%s/vectors", self->dir);
	d = opendir(path);
	ASSERT_NE(NULL, d)
		TH_LOG("%s: %s: the host suite onnx-sweep keeps the vectors there",
		       path, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			names = realloc(names, cap * sizeof(*names));
			ASSERT_NE(NULL, names);
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	ASSERT_LT(0u, n) TH_LOG("%s holds no vector: run the host sweep first", path);
	qsort(names, n, sizeof(*names), cmp_str);
	npes = self->pes < 2 ? self->pes : 2;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/vectors/%s", self->dir, names[i]);
		for (pe = 0; pe < npes; pe++) {
			int ret = vector(self->dev, path, pe, err, sizeof(err));

			if (ret)
				TH_LOG("%s (PE %u): %s", names[i], pe, err);
			else
				pass++;
		}
		free(names[i]);
	}
	free(names);
	printf("# %u supported node vectors x %u PEs: %u runs bit-exact on the device\n",
	       n, npes, pass);
	EXPECT_EQ(n * npes, pass);
}

static void roundtrip(struct __test_metadata *_metadata,
		      FIXTURE_DATA(dev) *self, const char *net)
{
	static const char *const forms[] = { "gen", "qop", "qdq" };
	struct npu_model *m[3] = { NULL };
	const struct npu_tensor_desc *gi;
	char path[4096], err[512];
	unsigned int f, pe, k;

	if (!self->dev)
		return;		/* skipped by the setup */
	for (f = 0; f < 3; f++) {
		snprintf(path, sizeof(path), "%s/models/%s/%s.nmdl", self->dir,
			 net, forms[f]);
		ASSERT_EQ(0, npu_model_load(path, &m[f], err, sizeof(err)))
			TH_LOG("%s (made by the host suite onnx-roundtrip)", err);
		ASSERT_EQ(1u, npu_model_num_inputs(m[f]));
		ASSERT_EQ(1u, npu_model_num_outputs(m[f]));
		ASSERT_EQ(npu_model_input(m[0], 0)->count,
			  npu_model_input(m[f], 0)->count);
		ASSERT_EQ(npu_model_output(m[0], 0)->count,
			  npu_model_output(m[f], 0)->count);
	}
	gi = npu_model_input(m[0], 0);
	for (pe = 0; pe < (self->pes < 2 ? self->pes : 2); pe++)
		for (k = 0; k < RT_INPUTS; k++) {
			size_t cnt = npu_model_output(m[0], 0)->count, diff, i;
			uint8_t *nhwc = malloc(gi->count), *nchw = malloc(gi->count);
			struct io_vals y[3] = { { 0 } };
			uint8_t *ref;
			size_t ref_len;

			ASSERT_NE(NULL, nhwc);
			ASSERT_NE(NULL, nchw);
			ov_prng_u8(nhwc, gi->count, 1000 + k);
			ov_nhwc_to_nchw(nhwc, nchw, gi->dims);
			for (f = 0; f < 3; f++) {
				struct io_vals x = { false, f ? nchw : nhwc,
						     gi->count };

				y[f].count = cnt;
				ASSERT_EQ(0, run_on(self->dev, m[f], pe, &x, &y[f],
						    err, sizeof(err)))
					TH_LOG("%s %s PE %u: %s", net, forms[f], pe,
					       err);
			}
			for (f = 1; f < 3; f++) {
				for (i = 0, diff = 0; i < cnt; i++)
					diff += ((uint8_t *)y[f].data)[i] !=
						((uint8_t *)y[0].data)[i];
				EXPECT_EQ(0u, diff)
					TH_LOG("%s %s PE %u input %u: %zu of %zu outputs differ from gen.nmdl's",
					       net, forms[f], pe, k, diff, cnt);
				if (!diff)
					printf("# %s %s = gen on PE %u, input %u: %zu outputs identical\n",
					       net, forms[f], pe, k, cnt);
			}
			/* and the host's lib/npuref, on the same input */
			snprintf(path, sizeof(path), "%s/models/%s/gen-%u.u8",
				 self->dir, net, k);
			if (!ov_slurp(path, &ref, &ref_len)) {
				EXPECT_EQ(cnt, ref_len);
				EXPECT_EQ(0, memcmp(ref, y[0].data,
						    ref_len < cnt ? ref_len : cnt))
					TH_LOG("%s gen PE %u input %u: the device differs from npuref's %s",
					       net, pe, k, path);
				free(ref);
			} else {
				TH_LOG("%s: missing (written by the host's onnx-roundtrip)",
				       path);
				EXPECT_TRUE(false);
			}
			vals_free(y, 3);
			free(nhwc);
			free(nchw);
		}
	for (f = 0; f < 3; f++)
		npu_model_free(m[f]);
}

TEST_F_TIMEOUT(dev, roundtrip_mnist, 300)
{
	roundtrip(_metadata, self, "mnist");
}

TEST_F_TIMEOUT(dev, roundtrip_mobilenet, 600)
{
	roundtrip(_metadata, self, "mobilenet-v1");
}

TEST_HARNESS_MAIN
