// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of libnpu's CPU operators: Quantize and Dequantize against the
 * ONNX operator test vectors, rounding and saturation, Lower/Unlower, and
 * the requantization multiplier against lib/npuref.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "npu/npu_program.h"
#include "npuref.h"
#include "onnx.pb-c.h"

#define ONNX_NODE_DIR "/usr/share/libonnx-testdata/data/node"

struct vec {
	int32_t dtype;
	size_t n;
	float f[64];
	uint8_t u8[64];
};

static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*data = malloc(n ? n : 1);
	if (!*data || fread(*data, 1, n, f) != (size_t)n) {
		fclose(f);
		free(*data);
		return -EIO;
	}
	fclose(f);
	*size = n;
	return 0;
}

/* read a FLOAT or UINT8 TensorProto from raw_data or the typed fields */
static int read_tensor(const char *test, const char *file, struct vec *v)
{
	char path[512];
	Onnx__TensorProto *t;
	uint8_t *data;
	size_t size, i;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/test_data_set_0/%s", ONNX_NODE_DIR,
		 test, file);
	ret = read_file(path, &data, &size);
	if (ret)
		return ret;
	t = onnx__tensor_proto__unpack(NULL, size, data);
	free(data);
	if (!t)
		return -EBADMSG;
	memset(v, 0, sizeof(*v));
	v->dtype = t->data_type;
	ret = 0;
	if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
		if (t->has_raw_data) {
			v->n = t->raw_data.len / 4;
			if (v->n > 64)
				ret = -E2BIG;
			else
				memcpy(v->f, t->raw_data.data, v->n * 4);
		} else {
			v->n = t->n_float_data;
			for (i = 0; i < v->n && i < 64; i++)
				v->f[i] = t->float_data[i];
		}
	} else if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8) {
		if (t->has_raw_data) {
			v->n = t->raw_data.len;
			if (v->n > 64)
				ret = -E2BIG;
			else
				memcpy(v->u8, t->raw_data.data, v->n);
		} else {
			v->n = t->n_int32_data;
			for (i = 0; i < v->n && i < 64; i++)
				v->u8[i] = (uint8_t)t->int32_data[i];
		}
	} else {
		ret = -EPROTO;
	}
	if (v->n > 64)
		ret = -E2BIG;
	onnx__tensor_proto__free_unpacked(t, NULL);
	return ret;
}

TEST(onnx_quantizelinear)
{
	struct vec x, s, zp, y;
	uint8_t out[64];
	size_t i;

	ASSERT_EQ(0, read_tensor("test_quantizelinear", "input_0.pb", &x));
	ASSERT_EQ(0, read_tensor("test_quantizelinear", "input_1.pb", &s));
	ASSERT_EQ(0, read_tensor("test_quantizelinear", "input_2.pb", &zp));
	ASSERT_EQ(0, read_tensor("test_quantizelinear", "output_0.pb", &y));
	ASSERT_EQ(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, x.dtype);
	ASSERT_EQ(ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, y.dtype);
	ASSERT_EQ(1, s.n);
	ASSERT_EQ(1, zp.n);
	ASSERT_EQ(x.n, y.n);
	ASSERT_GE(x.n, 4);
	ASSERT_EQ(0, npu_quantize(x.f, out, x.n, s.f[0], zp.u8[0]));
	for (i = 0; i < x.n; i++) {
		TH_LOG("x %g -> %u (want %u)", x.f[i], out[i], y.u8[i]);
		EXPECT_EQ(y.u8[i], out[i]);
	}
}

TEST(onnx_dequantizelinear)
{
	struct vec x, s, zp, y;
	float out[64];
	size_t i;

	ASSERT_EQ(0, read_tensor("test_dequantizelinear", "input_0.pb", &x));
	ASSERT_EQ(0, read_tensor("test_dequantizelinear", "input_1.pb", &s));
	ASSERT_EQ(0, read_tensor("test_dequantizelinear", "input_2.pb", &zp));
	ASSERT_EQ(0, read_tensor("test_dequantizelinear", "output_0.pb", &y));
	ASSERT_EQ(ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, x.dtype);
	ASSERT_EQ(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, y.dtype);
	ASSERT_EQ(x.n, y.n);
	ASSERT_GE(x.n, 4);
	ASSERT_EQ(0, npu_dequantize(x.u8, out, x.n, s.f[0], zp.u8[0]));
	for (i = 0; i < x.n; i++)
		EXPECT_EQ(0, memcmp(&y.f[i], &out[i], sizeof(float)));
}

TEST(quantize_round_half_even)
{
	/* scale 1, zp 100: x.5 ties go to the even integer */
	const float x[] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f,
			    0.50000006f, -0.50000006f, 3.0f };
	const uint8_t want[] = { 100, 102, 102, 100, 98, 98, 100, 101, 99, 103 };
	uint8_t out[10];
	size_t i;

	ASSERT_EQ(0, npu_quantize(x, out, 10, 1.0f, 100));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(want[i], out[i]);
	/* 0.25 / 0.5 = 0.5 exactly -> 0; 0.75 / 0.5 = 1.5 -> 2 */
	{
		const float y[] = { 0.25f, 0.75f, 1.25f };

		ASSERT_EQ(0, npu_quantize(y, out, 3, 0.5f, 0));
		EXPECT_EQ(0, out[0]);
		EXPECT_EQ(2, out[1]);
		EXPECT_EQ(2, out[2]);
	}
}

TEST(quantize_saturates)
{
	const float x[] = { 1e30f, -1e30f, INFINITY, -INFINITY, NAN, 127.4f,
			    127.6f, -128.4f, -128.6f, 1e-30f };
	const uint8_t want[] = { 255, 0, 255, 0, 128, 255, 255, 0, 0, 128 };
	uint8_t out[10];
	size_t i;

	ASSERT_EQ(0, npu_quantize(x, out, 10, 1.0f, 128));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(want[i], out[i]);
}

TEST(quantize_bad_params)
{
	float x = 1.0f, f;
	uint8_t q = 7;

	EXPECT_EQ(-EINVAL, npu_quantize(&x, &q, 1, 0.0f, 0));
	EXPECT_EQ(-EINVAL, npu_quantize(&x, &q, 1, -1.0f, 0));
	EXPECT_EQ(-EINVAL, npu_quantize(&x, &q, 1, NAN, 0));
	EXPECT_EQ(-EINVAL, npu_quantize(&x, &q, 1, INFINITY, 0));
	EXPECT_EQ(-EINVAL, npu_quantize(&x, &q, 1, 1.0f, 256));
	EXPECT_EQ(-EINVAL, npu_quantize(&x, &q, 1, 1.0f, -1));
	EXPECT_EQ(7, q);
	EXPECT_EQ(-EINVAL, npu_dequantize(&q, &f, 1, 1.0f, 300));
}

TEST(quantize_dequantize_round_trip)
{
	uint8_t q[256], q2[256];
	float f[256];
	int i;

	for (i = 0; i < 256; i++)
		q[i] = (uint8_t)i;
	ASSERT_EQ(0, npu_dequantize(q, f, 256, 0.037f, 77));
	EXPECT_EQ(0.0f, f[77]);
	EXPECT_LT(f[0], 0.0f);
	ASSERT_EQ(0, npu_quantize(f, q2, 256, 0.037f, 77));
	EXPECT_EQ(0, memcmp(q, q2, 256));
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* NCHWC16 round trips with C below, at and above a multiple of 16 */
TEST(lower_unlower_round_trip)
{
	static const uint32_t shapes[][4] = {
		{ 1, 5, 7, 3 }, { 2, 3, 4, 17 }, { 1, 4, 4, 16 }, { 1, 2, 3, 33 },
		{ 3, 1, 1, 1 }, { 1, 7, 7, 1001 },
	};
	unsigned int s;

	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const uint32_t *d = shapes[s];
		size_t n = (size_t)d[0] * d[1] * d[2] * d[3];
		size_t dev = npu_nchwc16_size(d);
		uint8_t *in = malloc(n), *low = malloc(dev), *back = malloc(n);
		size_t nn, h, w, c, cb = (d[3] + 15) / 16;
		size_t pads = 0;

		ASSERT_NE(NULL, in);
		ASSERT_NE(NULL, low);
		ASSERT_NE(NULL, back);
		ASSERT_EQ(d[0] * cb * d[1] * d[2] * 16, dev);
		fill(in, n, s + 1);
		memset(low, 0xee, dev);
		ASSERT_EQ(0, npu_lower(in, low, dev, d, NPU_LAYOUT_NCHWC16, 42));
		/* every element where npu_hw.h says it is */
		for (nn = 0; nn < d[0]; nn++)
			for (h = 0; h < d[1]; h++)
				for (w = 0; w < d[2]; w++)
					for (c = 0; c < cb * 16; c++) {
						size_t off = (((nn * cb + c / 16) * d[1] + h) *
							      d[2] + w) * 16 + c % 16;

						if (c < d[3]) {
							ASSERT_EQ(in[((nn * d[1] + h) * d[2] + w) *
								     d[3] + c], low[off]);
						} else {
							ASSERT_EQ(42, low[off]);
							pads++;
						}
					}
		EXPECT_EQ(dev - n, pads);
		memset(back, 0, n);
		ASSERT_EQ(0, npu_unlower(low, dev, back, d, NPU_LAYOUT_NCHWC16));
		EXPECT_EQ(0, memcmp(in, back, n));
		/* PLAIN is a copy */
		memset(back, 0, n);
		ASSERT_EQ(0, npu_lower(in, back, n, d, NPU_LAYOUT_PLAIN, 0));
		EXPECT_EQ(0, memcmp(in, back, n));
		free(in);
		free(low);
		free(back);
	}
}

TEST(lower_bad_args)
{
	uint32_t d[4] = { 1, 2, 2, 3 }, z[4] = { 1, 0, 2, 3 };
	uint8_t in[12] = { 0 }, out[64];

	EXPECT_EQ(-EINVAL, npu_lower(in, out, 63, d, NPU_LAYOUT_NCHWC16, 0));
	EXPECT_EQ(-EINVAL, npu_lower(in, out, 64, d, 7, 0));
	EXPECT_EQ(-EINVAL, npu_lower(in, out, 64, z, NPU_LAYOUT_NCHWC16, 0));
	EXPECT_EQ(-EINVAL, npu_unlower(out, 63, in, d, NPU_LAYOUT_NCHWC16));
	EXPECT_EQ(-EINVAL, npu_unlower(out, 11, in, d, NPU_LAYOUT_PLAIN));
	EXPECT_EQ(0, npu_nchwc16_size(z));
}

/* libnpu's helper and lib/npuref's agree over a wide range of factors */
TEST(quantize_multiplier_matches_npuref)
{
	double r;
	unsigned int n = 0;

	for (r = 1e-12; r < 1e9; r *= 1.0137) {
		int32_t m1, s1, m2, s2;

		ASSERT_EQ(0, npu_quantize_multiplier(r, &m1, &s1));
		ASSERT_EQ(0, npuref_quantize_multiplier(r, &m2, &s2));
		ASSERT_EQ(m2, m1);
		ASSERT_EQ(s2, s1);
		ASSERT_GE(m1, 0);
		if (m1) {
			double back = ldexp((double)m1, s1 - 31);

			ASSERT_LT(fabs(back - r) / r, 1e-9);
		}
		n++;
	}
	EXPECT_GT(n, 1000);
	EXPECT_EQ(-EINVAL, npu_quantize_multiplier(-1.0, &(int32_t){0}, &(int32_t){0}));
	EXPECT_EQ(-EINVAL, npu_quantize_multiplier(NAN, &(int32_t){0}, &(int32_t){0}));
	EXPECT_EQ(-EINVAL, npu_quantize_multiplier(1e10, &(int32_t){0}, &(int32_t){0}));
}

TEST(crc32_known_value)
{
	/* the standard check value of CRC-32/ISO-HDLC */
	EXPECT_EQ(0xcbf43926u, npu_crc32(0, "123456789", 9));
	EXPECT_EQ(0xcbf43926u, npu_crc32(npu_crc32(0, "1234", 4), "56789", 5));
	EXPECT_EQ(0u, npu_crc32(0, "", 0));
}

TEST_HARNESS_MAIN
