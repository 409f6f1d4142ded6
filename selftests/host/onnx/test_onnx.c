// SPDX-License-Identifier: GPL-2.0-only
/*
 * ONNX operator test vectors (Debian's libonnx-testdata) on the NPU's
 * arithmetic, compared bit for bit:
 *
 * - ConvInteger and MatMulInteger on the int32 accumulation cores
 *   (emu_conv_acc(), emu_matmul_acc());
 * - QLinearConv and QLinearMatMul as NPU programs (CONV2D, MATMUL) run by
 *   emu_prog_run(), with the float scales turned into {multiplier, shift}
 *   as TFLite's QuantizeMultiplier does.
 *
 * Every case runs on the fast and on the generic path. The vectors are read
 * from $NPU_ONNX_DATA or /usr/share/libonnx-testdata/data/node; a missing
 * vector is a SKIP, a differing element a FAIL that names the element.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "onnx.pb-c.h"
#include "ops.h"
#include "program.h"
#include "npu_progbuild.h"

#define NONE NPU_PROG_NONE
#define DATA_DIR "/usr/share/libonnx-testdata/data/node"

/* ------------------------------------------------------------------ */
/* reading the vectors                                                 */

struct otensor {
	int type;		/* ONNX__TENSOR_PROTO__DATA_TYPE__* */
	unsigned int ndim;
	int64_t dims[8];
	size_t count;
	void *data;		/* u8, i8, int32 or float elements */
};

static const char *data_dir(void)
{
	const char *d = getenv("NPU_ONNX_DATA");

	return d && *d ? d : DATA_DIR;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	uint8_t *buf = NULL;
	long n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n ? n : 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

static size_t esize(int type)
{
	switch (type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
		return 1;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		return 4;
	default:
		return 0;
	}
}

static void otensor_free(struct otensor *t)
{
	free(t->data);
	memset(t, 0, sizeof(*t));
}

/* test_data_set_0/@file of vector @test; -ENOENT when it is absent */
static int load_tensor(const char *test, const char *file,
		       struct otensor *t)
{
	Onnx__TensorProto *p;
	char path[512];
	size_t len, i, es;
	uint8_t *buf;
	int ret = -EINVAL;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/%s/test_data_set_0/%s", data_dir(),
		 test, file);
	buf = slurp(path, &len);
	if (!buf)
		return -ENOENT;
	p = onnx__tensor_proto__unpack(NULL, len, buf);
	free(buf);
	if (!p) {
		fprintf(stderr, "# %s: not a TensorProto\n", path);
		return -EINVAL;
	}
	t->type = p->data_type;
	es = esize(t->type);
	if (!es || p->n_dims > 8)
		goto out;
	t->ndim = p->n_dims;
	t->count = 1;
	for (i = 0; i < p->n_dims; i++) {
		if (p->dims[i] < 0 || p->dims[i] > (1 << 24))
			goto out;
		t->dims[i] = p->dims[i];
		t->count *= p->dims[i];
	}
	t->data = calloc(t->count ? t->count : 1, es);
	if (!t->data)
		goto out;
	if (p->has_raw_data) {
		if (p->raw_data.len != t->count * es)
			goto out;
		memcpy(t->data, p->raw_data.data, p->raw_data.len);
	} else if (t->type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
		if (p->n_float_data != t->count)
			goto out;
		memcpy(t->data, p->float_data, t->count * 4);
	} else {
		/* (u)int8 and int32 travel in int32_data */
		if (p->n_int32_data != t->count)
			goto out;
		for (i = 0; i < t->count; i++) {
			if (es == 1)
				((uint8_t *)t->data)[i] =
					(uint8_t)p->int32_data[i];
			else
				((int32_t *)t->data)[i] = p->int32_data[i];
		}
	}
	ret = 0;
out:
	if (ret) {
		fprintf(stderr, "# %s: unsupported tensor\n", path);
		otensor_free(t);
	}
	onnx__tensor_proto__free_unpacked(p, NULL);
	return ret;
}

static float ot_float(const struct otensor *t, size_t i)
{
	return ((const float *)t->data)[i];
}

static int32_t ot_zp(const struct otensor *t)
{
	if (!t->data)
		return 0;
	if (t->type == ONNX__TENSOR_PROTO__DATA_TYPE__INT8)
		return ((const int8_t *)t->data)[0];
	return ((const uint8_t *)t->data)[0];
}

/* every element of a zero-point tensor equals the first */
static bool ot_uniform(const struct otensor *t)
{
	size_t i;

	for (i = 1; t->data && i < t->count; i++)
		if (((uint8_t *)t->data)[i] != ((uint8_t *)t->data)[0])
			return false;
	return true;
}

/* the single node's integer attribute list @name; 0 when absent */
static size_t node_ints(const char *test, const char *name, int64_t *v,
			size_t max)
{
	Onnx__ModelProto *m;
	char path[512];
	size_t len, i, j, n = 0;
	uint8_t *buf;

	snprintf(path, sizeof(path), "%s/%s/model.onnx", data_dir(), test);
	buf = slurp(path, &len);
	if (!buf)
		return 0;
	m = onnx__model_proto__unpack(NULL, len, buf);
	free(buf);
	if (!m)
		return 0;
	if (m->graph && m->graph->n_node == 1) {
		Onnx__NodeProto *nd = m->graph->node[0];

		for (i = 0; i < nd->n_attribute; i++) {
			Onnx__AttributeProto *a = nd->attribute[i];

			if (strcmp(a->name, name))
				continue;
			if (a->n_ints) {
				for (j = 0; j < a->n_ints && j < max; j++)
					v[j] = a->ints[j];
				n = j;
			} else if (a->has_i && max) {
				v[0] = a->i;
				n = 1;
			}
		}
	}
	onnx__model_proto__free_unpacked(m, NULL);
	return n;
}

/* ------------------------------------------------------------------ */
/* requantization pairs                                                */

/*
 * TFLite's QuantizeMultiplier: real = q * 2^e with q in [0.5, 1) from
 * frexp(), multiplier = round(q * 2^31) (half away from zero), so that
 * real = multiplier * 2^(shift - 31) as program.rst has it.
 */
static void quantize_multiplier(double real, int32_t *m, int32_t *s)
{
	int64_t qf;
	double q;
	int e;

	if (real == 0.0) {
		*m = 0;
		*s = 0;
		return;
	}
	q = frexp(real, &e);
	qf = llround(q * 2147483648.0);
	if (qf == (1ll << 31)) {
		qf /= 2;
		e++;
	}
	if (e < -31) {
		e = 0;
		qf = 0;
	}
	if (e > 30) {
		e = 30;
		qf = (1ll << 31) - 1;
	}
	*m = (int32_t)qf;
	*s = e;
}

TEST(quantize_multiplier_as_tflite)
{
	int32_t m, s;

	/* 0.5 = 0.5 * 2^0 -> 2^30, 0; 1.0 = 0.5 * 2^1 -> 2^30, 1 */
	quantize_multiplier(0.5, &m, &s);
	EXPECT_EQ(1 << 30, m);
	EXPECT_EQ(0, s);
	quantize_multiplier(1.0, &m, &s);
	EXPECT_EQ(1 << 30, m);
	EXPECT_EQ(1, s);
	/* 0.75 -> round(0.75 * 2^31) = 1610612736, 0 */
	quantize_multiplier(0.75, &m, &s);
	EXPECT_EQ(1610612736, m);
	EXPECT_EQ(0, s);
	/* 1 - 2^-40 rounds up to 2^31: halved, exponent + 1 */
	quantize_multiplier(1.0 - ldexp(1.0, -40), &m, &s);
	EXPECT_EQ(1 << 30, m);
	EXPECT_EQ(1, s);
	/* 2^-40 is below the range: 0 */
	quantize_multiplier(ldexp(1.0, -40), &m, &s);
	EXPECT_EQ(0, m);
	EXPECT_EQ(0, s);
	/* and the result is what requant applies: 3 * 0.75 = 2.25 -> 2 */
	quantize_multiplier(0.75, &m, &s);
	EXPECT_EQ(2, emu_requant(3, m, s));
}

/* ------------------------------------------------------------------ */
/* ConvInteger and MatMulInteger on the accumulation cores             */

static struct emu_tensor view(void *data, uint8_t dtype, uint8_t ndim,
			      uint32_t d0, uint32_t d1, uint32_t d2,
			      uint32_t d3, int32_t zp)
{
	struct emu_tensor t = { 0 };

	t.data = data;
	t.dtype = dtype;
	t.ndim = ndim;
	t.layout = NPU_LAYOUT_PLAIN;
	t.esize = 1;
	t.dims[0] = d0;
	t.dims[1] = d1;
	t.dims[2] = d2;
	t.dims[3] = d3;
	t.zp = zp;
	t.count = t.bytes = (uint64_t)d0 * d1 * d2 * d3;
	return t;
}

static uint8_t npu_dtype(int onnx_type)
{
	return onnx_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT8 ?
	       NPU_DT_I8 : NPU_DT_U8;
}

static void conv_integer(struct __test_metadata *_metadata, const char *name)
{
	struct otensor x, w, xz = { 0 }, wz = { 0 }, y;
	int64_t pads[4] = { 0 }, st[2] = { 1, 1 }, v[4];
	uint32_t n, c, h, wd, m, kh, kw, oh, ow, i, j, k, l;
	struct emu_tensor xt, wt;
	struct emu_conv_geom g = { 0 };
	uint8_t *xn, *wn;
	int32_t *acc;
	size_t bad = 0;

	if (load_tensor(name, "input_0.pb", &x))
		SKIP(return, "%s: vector not found in %s", name, data_dir());
	ASSERT_EQ(0, load_tensor(name, "input_1.pb", &w));
	load_tensor(name, "input_2.pb", &xz);	/* optional */
	load_tensor(name, "input_3.pb", &wz);	/* optional */
	ASSERT_EQ(0, load_tensor(name, "output_0.pb", &y));
	ASSERT_EQ(ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, x.type);
	ASSERT_EQ(ONNX__TENSOR_PROTO__DATA_TYPE__INT32, y.type);
	ASSERT_EQ(4, x.ndim);
	ASSERT_EQ(4, w.ndim);
	ASSERT_TRUE(ot_uniform(&wz));
	if (node_ints(name, "group", v, 1) && v[0] != 1)
		SKIP(return, "%s: group %lld", name, (long long)v[0]);
	if (node_ints(name, "dilations", v, 2) && (v[0] != 1 || v[1] != 1))
		SKIP(return, "%s: dilation", name);
	node_ints(name, "pads", pads, 4);
	node_ints(name, "strides", st, 2);

	n = x.dims[0];
	c = x.dims[1];
	h = x.dims[2];
	wd = x.dims[3];
	m = w.dims[0];
	kh = w.dims[2];
	kw = w.dims[3];
	ASSERT_EQ(c, w.dims[1]);
	/* ONNX pads: top, left, bottom, right */
	g.pt = pads[0];
	g.pl = pads[1];
	g.pb = pads[2];
	g.pr = pads[3];
	g.sh = st[0];
	g.sw = st[1];
	oh = (h + g.pt + g.pb - kh) / g.sh + 1;
	ow = (wd + g.pl + g.pr - kw) / g.sw + 1;
	ASSERT_EQ(4, y.ndim);
	ASSERT_EQ(n, y.dims[0]);
	ASSERT_EQ(m, y.dims[1]);
	ASSERT_EQ(oh, y.dims[2]);
	ASSERT_EQ(ow, y.dims[3]);

	/* NCHW -> NHWC, [M, C, KH, KW] -> [M, KH, KW, C] */
	xn = malloc(x.count);
	wn = malloc(w.count);
	acc = calloc(y.count, 4);
	ASSERT_TRUE(xn && wn && acc);
	for (i = 0; i < n; i++)
		for (j = 0; j < c; j++)
			for (k = 0; k < h; k++)
				for (l = 0; l < wd; l++)
					xn[((i * h + k) * wd + l) * c + j] =
						((uint8_t *)x.data)
						[((i * c + j) * h + k) * wd + l];
	for (i = 0; i < m; i++)
		for (j = 0; j < c; j++)
			for (k = 0; k < kh; k++)
				for (l = 0; l < kw; l++)
					wn[((i * kh + k) * kw + l) * c + j] =
						((uint8_t *)w.data)
						[((i * c + j) * kh + k) * kw + l];
	xt = view(xn, NPU_DT_U8, 4, n, h, wd, c, ot_zp(&xz));
	wt = view(wn, npu_dtype(w.type), 4, m, kh, kw, c, ot_zp(&wz));

	for (int fast = 1; fast >= 0; fast--) {
		emu_ops_set_fast_path(fast);
		memset(acc, 0x5a, y.count * 4);
		ASSERT_EQ(0, emu_conv_acc(&xt, &wt, &g, acc));
		for (i = 0; i < y.count; i++) {
			/* expected element i is NCHW (n, m, oh, ow) */
			uint32_t e_ow = i % ow, e_oh = i / ow % oh;
			uint32_t e_m = i / ow / oh % m, e_n = i / ow / oh / m;
			int32_t got = acc[((e_n * oh + e_oh) * ow + e_ow) * m +
					  e_m];
			int32_t exp = ((int32_t *)y.data)[i];

			if (got != exp && bad++ < 10)
				TH_LOG("%s %s: y[%u] = %d, expected %d", name,
				       fast ? "fast" : "generic", i, got, exp);
		}
	}
	EXPECT_EQ(0, bad);
	free(xn);
	free(wn);
	free(acc);
	otensor_free(&x);
	otensor_free(&w);
	otensor_free(&xz);
	otensor_free(&wz);
	otensor_free(&y);
}

TEST(convinteger_basic)
{
	conv_integer(_metadata, "test_basic_convinteger");
}

TEST(convinteger_with_padding)
{
	conv_integer(_metadata, "test_convinteger_with_padding");
}

TEST(convinteger_without_padding)
{
	conv_integer(_metadata, "test_convinteger_without_padding");
}

TEST(matmulinteger)
{
	const char *name = "test_matmulinteger";
	struct otensor a, b, az = { 0 }, bz = { 0 }, y;
	struct emu_tensor at, bt, btt;
	uint32_t mm, kk, nn, i, j;
	int32_t *acc;
	uint8_t *tr;
	size_t bad = 0;

	if (load_tensor(name, "input_0.pb", &a))
		SKIP(return, "%s: vector not found in %s", name, data_dir());
	ASSERT_EQ(0, load_tensor(name, "input_1.pb", &b));
	load_tensor(name, "input_2.pb", &az);
	load_tensor(name, "input_3.pb", &bz);
	ASSERT_EQ(0, load_tensor(name, "output_0.pb", &y));
	ASSERT_EQ(2, a.ndim);
	ASSERT_EQ(2, b.ndim);
	ASSERT_EQ(ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, a.type);
	ASSERT_TRUE(ot_uniform(&bz));
	mm = a.dims[0];
	kk = a.dims[1];
	nn = b.dims[1];
	ASSERT_EQ(kk, b.dims[0]);
	ASSERT_EQ(mm * nn, y.count);
	at = view(a.data, NPU_DT_U8, 2, mm, kk, 1, 1, ot_zp(&az));
	bt = view(b.data, npu_dtype(b.type), 2, kk, nn, 1, 1, ot_zp(&bz));
	/* the same product as FC: B^T [N, K] */
	tr = malloc(b.count);
	acc = malloc(y.count * 4);
	ASSERT_TRUE(tr && acc);
	for (i = 0; i < kk; i++)
		for (j = 0; j < nn; j++)
			tr[j * kk + i] = ((uint8_t *)b.data)[i * nn + j];
	btt = view(tr, npu_dtype(b.type), 2, nn, kk, 1, 1, ot_zp(&bz));

	for (int k = 0; k < 4; k++) {
		emu_ops_set_fast_path(k & 1);
		memset(acc, 0x5a, y.count * 4);
		ASSERT_EQ(0, emu_matmul_acc(&at, k & 2 ? &btt : &bt, !(k & 2),
					    acc));
		for (i = 0; i < y.count; i++)
			if (acc[i] != ((int32_t *)y.data)[i] && bad++ < 10)
				TH_LOG("case %d: Y[%u] = %d, expected %d", k, i,
				       acc[i], ((int32_t *)y.data)[i]);
	}
	EXPECT_EQ(0, bad);
	free(tr);
	free(acc);
	otensor_free(&a);
	otensor_free(&b);
	otensor_free(&az);
	otensor_free(&bz);
	otensor_free(&y);
}

/* ------------------------------------------------------------------ */
/* QLinearConv and QLinearMatMul as NPU programs                       */

/*
 * Compare the program's output with ONNX's. On a difference, show the
 * accumulator and the exact real value acc * scale, so that a rounding
 * question (ONNX rounds acc * scale in float, half to even; the NPU uses
 * the fixed-point pair) can be told from a bug.
 */
static size_t compare_q(struct __test_metadata *_metadata, const char *what,
			const uint8_t *got, const uint8_t *exp, size_t n,
			const int32_t *acc, const double *scale,
			const int32_t *pair, int32_t zy)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++) {
		if (got[i] == exp[i])
			continue;
		if (bad++ < 10)
			TH_LOG("%s: y[%zu] = %u, expected %u (acc %d, acc * "
			       "scale = %.9f, requant %d, zy %d)", what, i,
			       got[i], exp[i], acc[i], acc[i] * scale[i],
			       emu_requant(acc[i], pair[2 * i],
					   pair[2 * i + 1]), zy);
	}
	return bad;
}

TEST(qlinearconv)
{
	const char *name = "test_qlinearconv";
	struct otensor in[9], y;
	int64_t pads[4] = { 0 }, st[2] = { 1, 1 }, v[2];
	uint32_t n, c, h, wd, m, kh, kw, oh, ow, i, j, k, l;
	int32_t zx, zw, zy, *pairs, *elem_pair, *acc, *bias = NULL;
	uint8_t *want;
	double *elem_scale;
	size_t bad = 0;
	int f;

	memset(in, 0, sizeof(in));
	if (load_tensor(name, "input_0.pb", &in[0]))
		SKIP(return, "%s: vector not found in %s", name, data_dir());
	for (f = 1; f < 8; f++) {
		char file[32];

		snprintf(file, sizeof(file), "input_%d.pb", f);
		ASSERT_EQ(0, load_tensor(name, file, &in[f]));
	}
	load_tensor(name, "input_8.pb", &in[8]);	/* bias, optional */
	ASSERT_EQ(0, load_tensor(name, "output_0.pb", &y));
	if (node_ints(name, "group", v, 1) && v[0] != 1)
		SKIP(return, "%s: group", name);
	if (node_ints(name, "dilations", v, 2) && (v[0] != 1 || v[1] != 1))
		SKIP(return, "%s: dilation", name);
	node_ints(name, "pads", pads, 4);
	node_ints(name, "strides", st, 2);
	ASSERT_TRUE(ot_uniform(&in[5]));

	n = in[0].dims[0];
	c = in[0].dims[1];
	h = in[0].dims[2];
	wd = in[0].dims[3];
	m = in[3].dims[0];
	kh = in[3].dims[2];
	kw = in[3].dims[3];
	oh = (h + pads[0] + pads[2] - kh) / st[0] + 1;
	ow = (wd + pads[1] + pads[3] - kw) / st[1] + 1;
	ASSERT_EQ((size_t)n * m * oh * ow, y.count);
	zx = ot_zp(&in[2]);
	zw = ot_zp(&in[5]);
	zy = ot_zp(&in[7]);
	if (in[8].data)
		bias = in[8].data;

	/* per-channel when w_scale has M entries */
	pairs = malloc(8ull * m);
	ASSERT_NE(NULL, pairs);
	for (i = 0; i < m; i++) {
		double real = (double)ot_float(&in[1], 0) *
			      ot_float(&in[4], in[4].count > 1 ? i : 0) /
			      ot_float(&in[6], 0);

		quantize_multiplier(real, &pairs[2 * i], &pairs[2 * i + 1]);
	}

	/* x and y in both layouts, on both paths */
	for (int k4 = 0; k4 < 8; k4++) {
		uint8_t xl = k4 & 1 ? NPU_LAYOUT_NCHWC16 : NPU_LAYOUT_PLAIN;
		uint8_t yl = k4 & 2 ? NPU_LAYOUT_NCHWC16 : NPU_LAYOUT_PLAIN;
		uint16_t xt, wt, bt = NONE, rt, yt, idx;
		struct npu_prog_op *op;
		struct progbuild b;

		emu_ops_set_fast_path(k4 & 4);
		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 20));
		xt = progbuild_tensor(&b, 1, NPU_DT_U8, xl, 4, n, h, wd, c, zx);
		wt = progbuild_tensor(&b, 1, npu_dtype(in[3].type), NPU_LAYOUT_PLAIN,
			       4, m, kh, kw, c, zw);
		if (bias)
			bt = progbuild_bias(&b, m, bias);
		rt = progbuild_rq(&b, in[4].count > 1 ? m : 1, pairs);
		yt = progbuild_tensor(&b, 1, NPU_DT_U8, yl, 4, n, oh, ow, m, zy);
		for (i = 0; i < n; i++)
			for (j = 0; j < c; j++)
				for (k = 0; k < h; k++)
					for (l = 0; l < wd; l++)
						progbuild_set(&b, xt, i, k, l, j,
						       ((uint8_t *)in[0].data)
						       [((i * c + j) * h + k) *
							wd + l]);
		for (i = 0; i < m; i++)
			for (j = 0; j < c; j++)
				for (k = 0; k < kh; k++)
					for (l = 0; l < kw; l++)
						progbuild_data(&b, wt)[((i * kh + k) *
								 kw + l) * c + j] =
							((uint8_t *)in[3].data)
							[((i * c + j) * kh +
							  k) * kw + l];
		op = progbuild_conv_op(&b, NPU_OP_CONV2D, xt, wt, bt, yt, rt, 1, 0);
		op->u.conv.sh = st[0];
		op->u.conv.sw = st[1];
		op->u.conv.pt = pads[0];
		op->u.conv.pl = pads[1];
		op->u.conv.pb = pads[2];
		op->u.conv.pr = pads[3];
		ASSERT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, NULL, &idx));

		/* gather NCHW, plus what explains a difference */
		want = malloc(y.count);
		acc = malloc(4 * y.count);
		elem_scale = malloc(8 * y.count);
		elem_pair = malloc(8 * y.count);
		{
			uint8_t *got = malloc(y.count);
			struct emu_tensor xv, wv;
			struct emu_conv_geom g = {
				.sh = st[0], .sw = st[1], .pt = pads[0],
				.pl = pads[1], .pb = pads[2], .pr = pads[3],
			};
			int32_t *nhwc = malloc(4 * y.count);
			uint8_t *xn = malloc(in[0].count);

			ASSERT_TRUE(got && nhwc && xn && want && acc &&
				    elem_scale && elem_pair);
			/* x as PLAIN NHWC for the accumulation core */
			for (i = 0; i < n; i++)
				for (k = 0; k < h; k++)
					for (l = 0; l < wd; l++)
						for (j = 0; j < c; j++)
							xn[((i * h + k) * wd + l) * c + j] =
								progbuild_get(&b, xt, i, k, l, j);
			xv = view(xn, NPU_DT_U8, 4, n, h, wd, c, zx);
			wv = view(progbuild_data(&b, wt), npu_dtype(in[3].type), 4,
				  m, kh, kw, c, zw);
			ASSERT_EQ(0, emu_conv_acc(&xv, &wv, &g, nhwc));
			for (i = 0; i < y.count; i++) {
				uint32_t e_ow = i % ow, e_oh = i / ow % oh;
				uint32_t e_m = i / ow / oh % m;
				uint32_t e_n = i / ow / oh / m;
				uint32_t pc = in[4].count > 1 ? e_m : 0;

				got[i] = progbuild_get(&b, yt, e_n, e_oh, e_ow, e_m);
				want[i] = ((uint8_t *)y.data)[i];
				acc[i] = nhwc[((e_n * oh + e_oh) * ow + e_ow) *
					      m + e_m] +
					 (bias ? bias[e_m] : 0);
				elem_scale[i] = (double)ot_float(&in[1], 0) *
					ot_float(&in[4], pc) /
					ot_float(&in[6], 0);
				elem_pair[2 * i] = pairs[2 * e_m];
				elem_pair[2 * i + 1] = pairs[2 * e_m + 1];
			}
			bad += compare_q(_metadata, "qlinearconv", got, want,
					 y.count, acc, elem_scale, elem_pair,
					 zy);
			free(got);
			free(nhwc);
			free(xn);
		}
		free(want);
		free(acc);
		free(elem_scale);
		free(elem_pair);
		progbuild_free(&b);
	}
	EXPECT_EQ(0, bad);
	free(pairs);
	for (f = 0; f < 9; f++)
		otensor_free(&in[f]);
	otensor_free(&y);
}

/*
 * QLinearMatMul, [..., M, K] x [..., K, N]: one MATMUL operator per batch
 * element, over tensors that are views at offsets into the same slots.
 */
static void qlinear_matmul(struct __test_metadata *_metadata,
			   const char *name)
{
	struct otensor in[8], y;
	uint32_t mm, kk, nn, nb = 1, bi, i, k;
	int32_t pair[2], za, zb, zy;
	size_t bad = 0;
	int f;

	memset(in, 0, sizeof(in));
	if (load_tensor(name, "input_0.pb", &in[0]))
		SKIP(return, "%s: vector not found in %s", name, data_dir());
	for (f = 1; f < 8; f++) {
		char file[32];

		snprintf(file, sizeof(file), "input_%d.pb", f);
		ASSERT_EQ(0, load_tensor(name, file, &in[f]));
	}
	ASSERT_EQ(0, load_tensor(name, "output_0.pb", &y));
	ASSERT_EQ(in[0].ndim, in[3].ndim);
	ASSERT_TRUE(in[0].ndim >= 2);
	for (i = 0; i + 2 < in[0].ndim; i++) {
		ASSERT_EQ(in[0].dims[i], in[3].dims[i]);	/* no broadcast */
		nb *= in[0].dims[i];
	}
	mm = in[0].dims[in[0].ndim - 2];
	kk = in[0].dims[in[0].ndim - 1];
	nn = in[3].dims[in[3].ndim - 1];
	ASSERT_EQ(kk, in[3].dims[in[3].ndim - 2]);
	ASSERT_EQ((size_t)nb * mm * nn, y.count);
	ASSERT_EQ(1, in[1].count);
	ASSERT_EQ(1, in[4].count);
	za = ot_zp(&in[2]);
	zb = ot_zp(&in[5]);
	zy = ot_zp(&in[7]);
	quantize_multiplier((double)ot_float(&in[1], 0) * ot_float(&in[4], 0) /
			    ot_float(&in[6], 0), &pair[0], &pair[1]);

	for (int fast = 1; fast >= 0; fast--) {
		uint16_t at0, bt0, yt0, rt, idx;
		struct progbuild b;

		emu_ops_set_fast_path(fast);
		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
		/* whole tensors, then per-batch views of them */
		at0 = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_PLAIN, 1,
				nb * mm * kk, 1, 1, 1, za);
		bt0 = progbuild_tensor(&b, 1, npu_dtype(in[3].type),
				NPU_LAYOUT_PLAIN, 1, nb * kk * nn, 1, 1, 1, zb);
		yt0 = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_PLAIN, 1,
				nb * mm * nn, 1, 1, 1, zy);
		rt = progbuild_rq(&b, 1, pair);
		memcpy(progbuild_data(&b, at0), in[0].data, in[0].count);
		memcpy(progbuild_data(&b, bt0), in[3].data, in[3].count);
		for (bi = 0; bi < nb; bi++) {
			uint16_t av, bv, yv;

			av = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_PLAIN, 2,
				       mm, kk, 1, 1, za);
			bv = progbuild_tensor(&b, 1, npu_dtype(in[3].type),
				       NPU_LAYOUT_PLAIN, 2, kk, nn, 1, 1, zb);
			yv = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_PLAIN, 2,
				       mm, nn, 1, 1, zy);
			b.t[av].offset = b.t[at0].offset + bi * mm * kk;
			b.t[bv].offset = b.t[bt0].offset + bi * kk * nn;
			b.t[yv].offset = b.t[yt0].offset + bi * mm * nn;
			progbuild_op(&b, NPU_OP_MATMUL, av, bv, NONE, yv, rt, 0, 255);
		}
		ASSERT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, NULL, &idx));
		{
			int32_t *acc = malloc(4 * y.count);
			double *sc = malloc(8 * y.count);
			int32_t *pr = malloc(8 * y.count);
			struct emu_tensor av, bv;

			ASSERT_TRUE(acc && sc && pr);
			for (bi = 0; bi < nb; bi++) {
				av = view((uint8_t *)in[0].data + bi * mm * kk,
					  NPU_DT_U8, 2, mm, kk, 1, 1, za);
				bv = view((uint8_t *)in[3].data + bi * kk * nn,
					  npu_dtype(in[3].type), 2, kk, nn, 1,
					  1, zb);
				ASSERT_EQ(0, emu_matmul_acc(&av, &bv, true,
							    acc + bi * mm * nn));
			}
			for (k = 0; k < y.count; k++) {
				sc[k] = (double)ot_float(&in[1], 0) *
					ot_float(&in[4], 0) /
					ot_float(&in[6], 0);
				pr[2 * k] = pair[0];
				pr[2 * k + 1] = pair[1];
			}
			bad += compare_q(_metadata, name, progbuild_data(&b, yt0),
					 y.data, y.count, acc, sc, pr, zy);
			free(acc);
			free(sc);
			free(pr);
		}
		progbuild_free(&b);
	}
	EXPECT_EQ(0, bad);
	for (f = 0; f < 8; f++)
		otensor_free(&in[f]);
	otensor_free(&y);
}

TEST(qlinearmatmul_2d)
{
	qlinear_matmul(_metadata, "test_qlinearmatmul_2D");
}

TEST(qlinearmatmul_3d)
{
	qlinear_matmul(_metadata, "test_qlinearmatmul_3D");
}

TEST_HARNESS_MAIN
