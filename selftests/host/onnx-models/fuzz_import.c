// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_import.c - libFuzzer target of the ONNX importer (onnx_import(),
 * tools/npu-onnx): the input is a whole ONNX file.
 *
 * The importer must not crash, leak, overread (ASan) or hit undefined
 * behaviour (UBSan); it must return 0, -EINVAL, -EOPNOTSUPP, -E2BIG or
 * -ENOMEM; a failure comes with a non-empty one-line message and no file;
 * a success with a model file that libnpu's loader accepts, and the same
 * bytes when the same input is imported again (no hidden state). When the
 * file has graph inputs, they are also bound to a one-element float
 * value (as the sweep binds its vectors' inputs), which takes the
 * importer through its bound-constant paths.
 *
 * Seeds (run-fuzz.sh): every node vector with its constant inputs made
 * initializers (selftests/onnx-models/seeds.py) and our MNIST in both ONNX
 * forms.
 *
 * Locking: single-threaded. Lifetime: everything is freed per input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnpu.h"
#include "onnx.pb-c.h"
#include "onnx_import.h"
#include "onnxvec.h"

#define CHECK(x) do { if (!(x)) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #x); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

static void one(const uint8_t *in, size_t len, const struct onnx_import_opts *o)
{
	uint8_t *file = NULL, *again = NULL;
	size_t size = 0, size2 = 0;
	struct npu_model *m = NULL;
	char err[512], err2[512];
	int ret;

	err[0] = '\0';
	ret = onnx_import(in, len, o, &file, &size, err, sizeof(err));
	CHECK(ret == 0 || ret == -EINVAL || ret == -EOPNOTSUPP ||
	      ret == -E2BIG || ret == -ENOMEM);
	if (ret) {
		CHECK(err[0] && !strchr(err, '\n'));
		return;
	}
	CHECK(file && size);
	CHECK(npu_model_load_mem(file, size, &m, err2, sizeof(err2)) == 0);
	npu_model_free(m);
	CHECK(onnx_import(in, len, o, &again, &size2, err2, sizeof(err2)) == 0);
	CHECK(size == size2 && !memcmp(file, again, size));
	free(again);
	free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	/* a one-element float TensorProto: data_type 1, float_data 0.5 */
	static const uint8_t pb[] = { 0x08, 0x01, 0x10, 0x01, 0x22, 0x04,
				      0x00, 0x00, 0x00, 0x3f };
	struct onnx_bind b[OV_MAX_IO];
	struct onnx_import_opts o = { .name = "fuzz", .binds = b };
	struct ov_graph g;
	unsigned int i;

	one(in, len, NULL);
	if (ov_graph_io(in, len, &g))
		return 0;
	for (i = 0; i < g.n_in && i < OV_MAX_IO; i++) {
		b[i].name = g.in[i];
		b[i].pb = pb;
		b[i].len = sizeof(pb);
	}
	o.n_binds = i;
	if (i)
		one(in, len, &o);
	ov_graph_free(&g);
	return 0;
}
