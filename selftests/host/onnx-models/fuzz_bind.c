// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_bind.c - libFuzzer target of the importer's bound values
 * (onnx_import()'s struct onnx_bind, npu-onnx --bind NAME=FILE.pb): any
 * bytes as the TensorProto of one graph input of an int8 node vector of
 * libonnx-testdata, the other inputs bound to their test_data_set_0 values.
 *
 * Input: byte 0 picks the vector (of those listed below that are
 * installed), byte 1 the graph input; the rest is the TensorProto. The
 * importer must not crash, leak or hit undefined behaviour; it returns 0,
 * -EINVAL, -EOPNOTSUPP, -E2BIG or -ENOMEM, with a one-line message on
 * failure. A model it returns must load (npu_model_load_mem()) and run on
 * lib/npuref with the vector's inputs to NPU_PROG_OK: whatever the
 * constants, the importer never emits a program the device would refuse.
 *
 * With NPU_ONNX_FUZZ_SEEDS=DIR set, LLVMFuzzerInitialize writes one seed
 * per vector and graph input there (its real value), as run-fuzz.sh
 * expects. $NPU_ONNX_DATA overrides the vectors' directory.
 *
 * Locking: single-threaded. Lifetime: the vectors are read once and kept
 * for the process; everything else is freed per input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnpu.h"
#include "onnx_import.h"
#include "onnxvec.h"

#define CHECK(x) do { if (!(x)) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #x); \
	abort(); } } while (0)

#define MAX_IN	16

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

/* int8 vectors whose inputs are mostly constants */
static const char *const names[] = {
	"test_qlinearconv", "test_qlinearmatmul_2D", "test_qlinearmatmul_3D",
	"test_quantizelinear", "test_quantizelinear_axis",
	"test_dequantizelinear", "test_dequantizelinear_axis",
	"test_maxpool_2d_uint8", "test_clip_default_int8_inbounds",
};

static struct vec {
	const char *name;
	char dir[4096];		/* its test_data_set_0 */
	uint8_t *onnx;
	size_t len;
	struct ov_graph g;
	uint8_t *pb[MAX_IN];
	size_t pblen[MAX_IN];
} vecs[sizeof(names) / sizeof(names[0])];
static unsigned int nvecs;

static const char *data_dir(void)
{
	const char *d = getenv("NPU_ONNX_DATA");

	return d && *d ? d : "/usr/share/libonnx-testdata/data/node";
}

static void write_seeds(const char *dir)
{
	char path[4096];
	unsigned int v, k;

	for (v = 0; v < nvecs; v++)
		for (k = 0; k < vecs[v].g.n_in && k < MAX_IN; k++) {
			uint8_t *b;

			if (!vecs[v].pb[k])
				continue;
			b = malloc(vecs[v].pblen[k] + 2);
			CHECK(b);
			b[0] = (uint8_t)v;
			b[1] = (uint8_t)k;
			memcpy(b + 2, vecs[v].pb[k], vecs[v].pblen[k]);
			snprintf(path, sizeof(path), "%s/seed-%s-%u", dir,
				 vecs[v].name + 5, k);
			CHECK(ov_write(path, b, vecs[v].pblen[k] + 2) == 0);
			free(b);
		}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("NPU_ONNX_FUZZ_SEEDS");
	char path[4096];
	unsigned int i, k;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct vec *v = &vecs[nvecs];

		snprintf(path, sizeof(path), "%s/%s/model.onnx", data_dir(),
			 names[i]);
		if (ov_slurp(path, &v->onnx, &v->len))
			continue;
		if (ov_graph_io(v->onnx, v->len, &v->g)) {
			free(v->onnx);
			continue;
		}
		v->name = names[i];
		snprintf(v->dir, sizeof(v->dir), "%s/%s/test_data_set_0",
			 data_dir(), names[i]);
		for (k = 0; k < v->g.n_in && k < MAX_IN; k++) {
			snprintf(path, sizeof(path), "%s/input_%u.pb", v->dir, k);
			if (ov_slurp(path, &v->pb[k], &v->pblen[k]))
				v->pb[k] = NULL;
		}
		nvecs++;
	}
	if (seeds && *seeds)
		write_seeds(seeds);
	return 0;
}

/* the compiled model loads and runs on npuref with the vector's inputs */
static void run(const struct vec *v, const uint8_t *file, size_t size)
{
	uint8_t *x[OV_MAX_IO] = { NULL }, *y[OV_MAX_IO] = { NULL };
	struct npu_model *m = NULL;
	struct ov_plan p;
	char err[512];

	CHECK(npu_model_load_mem(file, size, &m, err, sizeof(err)) == 0);
	/* a data input of the wrong count for this model: nothing to run */
	if (!ov_plan_make(m, &v->g, &p, err, sizeof(err)) &&
	    !ov_plan_inputs(m, &p, v->dir, x, err, sizeof(err))) {
		if (ov_ref_run(m, x, y, err, sizeof(err))) {
			fprintf(stderr, "npuref: %s\n", err);
			abort();
		}
		ov_bufs_free(x, p.n_in);
		ov_bufs_free(y, p.n_out);
	}
	npu_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct onnx_bind b[MAX_IN];
	struct onnx_import_opts o = { .name = "fuzz", .binds = b };
	const struct vec *v;
	uint8_t *file = NULL;
	unsigned int k, pick;
	char err[512];
	size_t size;
	int ret;

	if (!nvecs || len < 2)
		return 0;
	v = &vecs[in[0] % nvecs];
	if (!v->g.n_in)
		return 0;
	pick = in[1] % (v->g.n_in < MAX_IN ? v->g.n_in : MAX_IN);
	for (k = 0; k < v->g.n_in && k < MAX_IN; k++) {
		if (k != pick && !v->pb[k])
			continue;
		b[o.n_binds].name = v->g.in[k];
		b[o.n_binds].pb = k == pick ? in + 2 : v->pb[k];
		b[o.n_binds].len = k == pick ? len - 2 : v->pblen[k];
		o.n_binds++;
	}
	err[0] = '\0';
	ret = onnx_import(v->onnx, v->len, &o, &file, &size, err, sizeof(err));
	CHECK(ret == 0 || ret == -EINVAL || ret == -EOPNOTSUPP ||
	      ret == -E2BIG || ret == -ENOMEM);
	if (ret) {
		CHECK(err[0] && !strchr(err, '\n'));
		return 0;
	}
	run(v, file, size);
	free(file);
	return 0;
}
