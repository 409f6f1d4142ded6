// SPDX-License-Identifier: GPL-2.0-only
/*
 * ref_test.c - host tests of libnpuref against hand-computed values.
 *
 * Every expected value below was computed by hand from
 * Documentation/npu/program.rst; the arithmetic is in the comments.
 * Notation: "2^30" is the Q31 multiplier 0.5 at shift 0; a pair {m, s}
 * means the real factor m * 2^(s - 31).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "npuref.h"
#include "npu_progbuild.h"

#define Q30	(1 << 30)		/* multiplier 0.5 */
#define QMAX	INT32_MAX		/* multiplier ~1.0 */
#define SLOT_SZ	4096
#ifndef __aligned
#define __aligned(x)	__attribute__((aligned(x)))
#endif

/* slot 0: program, slot 1: activations, slot 2: weights, bias, rq */
static uint8_t slot0[SLOT_SZ] __aligned(64);
static uint8_t act_buf[SLOT_SZ] __aligned(64);
static uint8_t wt_buf[SLOT_SZ] __aligned(64);
static struct npuref_buf slots[3] = {
	{ slot0, SLOT_SZ }, { act_buf, SLOT_SZ }, { wt_buf, SLOT_SZ },
};

static uint16_t op_idx;

static int run_prog(const struct progbuild *p)
{
	size_t n = progbuild_emit(p, slot0);

	op_idx = 0x1234;
	return npuref_run(slot0, n, slots, 3, 0, &op_idx);
}

static void put_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
	memcpy(dst, src, n);
}

/* ---------------- requantization arithmetic ---------------- */

TEST(srdhm_edges)
{
	/* INT32_MIN * INT32_MIN is the one overflow: saturates */
	EXPECT_EQ(INT32_MAX, npuref_srdhm(INT32_MIN, INT32_MIN));
	/* 2^30 * 2^30 = 2^60; (2^60 + 2^30) / 2^31 = 2^29 + 0.5 -> 2^29 */
	EXPECT_EQ(1 << 29, npuref_srdhm(Q30, Q30));
	/* 3 * 0.5 = 1.5: (3*2^30 + 2^30) / 2^31 = 2 exactly -> 2 */
	EXPECT_EQ(2, npuref_srdhm(3, Q30));
	/*
	 * -3 * 0.5 = -1.5: ab = -3*2^30, nudge = 1 - 2^30,
	 * (-4*2^30 + 1) / 2^31 = -1.99.. -> truncates to -1 (tie goes up)
	 */
	EXPECT_EQ(-1, npuref_srdhm(-3, Q30));
	/* 0 * x: (0 + 2^30) / 2^31 = 0.5 -> 0 */
	EXPECT_EQ(0, npuref_srdhm(0, QMAX));
	/*
	 * INT32_MIN * INT32_MAX = -2^62 + 2^31; + 1 - 2^30; / 2^31
	 * = -2^31 + 1 - 0.5 + 2^-31 = -2147483647.49.. -> -2147483647
	 */
	EXPECT_EQ(-2147483647, npuref_srdhm(INT32_MIN, INT32_MAX));
	/*
	 * INT32_MAX^2 = 2^62 - 2^32 + 1; + 2^30; / 2^31
	 * = 2^31 - 2 + 0.5 + 2^-31 -> 2147483646
	 */
	EXPECT_EQ(2147483646, npuref_srdhm(INT32_MAX, INT32_MAX));
}

TEST(rdivpot_ties_and_signs)
{
	EXPECT_EQ(3, npuref_rdivpot(5, 1));	/* 2.5 -> 3 */
	EXPECT_EQ(-3, npuref_rdivpot(-5, 1));	/* -2.5 -> -3: away from 0 */
	EXPECT_EQ(2, npuref_rdivpot(4, 1));	/* exact */
	EXPECT_EQ(-1, npuref_rdivpot(-4, 2));	/* exact */
	EXPECT_EQ(-2, npuref_rdivpot(-6, 2));	/* -1.5 -> -2 */
	EXPECT_EQ(2, npuref_rdivpot(6, 2));	/* 1.5 -> 2 */
	EXPECT_EQ(-1, npuref_rdivpot(-5, 2));	/* -1.25 -> -1 */
	EXPECT_EQ(-1, npuref_rdivpot(-1, 1));	/* -0.5 -> -1 */
	EXPECT_EQ(7, npuref_rdivpot(7, 0));	/* e = 0 is identity */
	EXPECT_EQ(-7, npuref_rdivpot(-7, 0));
	/* e = 31: INT32_MIN / 2^31 = -1 exactly */
	EXPECT_EQ(-1, npuref_rdivpot(INT32_MIN, 31));
	/* (2^31 - 1) / 2^31 = 0.99.. -> 1 */
	EXPECT_EQ(1, npuref_rdivpot(INT32_MAX, 31));
	/* 2^30 / 2^31 = 0.5 -> 1; -2^30 / 2^31 = -0.5 -> -1 */
	EXPECT_EQ(1, npuref_rdivpot(1 << 30, 31));
	EXPECT_EQ(-1, npuref_rdivpot(-(1 << 30), 31));
	/* (2^30 - 1) / 2^31 < 0.5 -> 0 */
	EXPECT_EQ(0, npuref_rdivpot((1 << 30) - 1, 31));
	EXPECT_EQ(0, npuref_rdivpot(-(1 << 30) + 1, 31));
}

TEST(requant_values)
{
	/* {2^30, 0} = 0.5. 100 * 0.5: (100*2^30 + 2^30)/2^31 = 50.5 -> 50 */
	EXPECT_EQ(50, npuref_requant(100, Q30, 0));
	/* 101 * 0.5 = 50.5: (102*2^30)/2^31 = 51 */
	EXPECT_EQ(51, npuref_requant(101, Q30, 0));
	/* -101 * 0.5 = -50.5: (-102*2^30 + 1)/2^31 = -50.99.. -> -50 */
	EXPECT_EQ(-50, npuref_requant(-101, Q30, 0));
	/* {2^30, -1} = 0.25. 6: srdhm = 3.5 -> 3; rdivpot(3, 1) = 2 */
	EXPECT_EQ(2, npuref_requant(6, Q30, -1));
	/* -6: srdhm = (-7*2^30 + 1)/2^31 -> -3; rdivpot(-3, 1) = -2 */
	EXPECT_EQ(-2, npuref_requant(-6, Q30, -1));
	/*
	 * Double rounding, as TFLite: 5 * 0.25 = 1.25, but srdhm(5, 2^30)
	 * = (6*2^30)/2^31 = 3, then rdivpot(3, 1) = 1.5 -> 2.
	 */
	EXPECT_EQ(2, npuref_requant(5, Q30, -1));
	/* {2^30, 1} = 1.0: y = 2x, srdhm(2x, 2^30) = x + 0.5 -> x */
	EXPECT_EQ(-37, npuref_requant(-37, Q30, 1));
	EXPECT_EQ(37, npuref_requant(37, Q30, 1));
}

TEST(requant_saturation_and_large_shifts)
{
	/* shift 30: 3 * 2^30 > INT32_MAX saturates; srdhm(INT32_MAX, 2^30) = 2^30 */
	EXPECT_EQ(1 << 30, npuref_requant(3, Q30, 30));
	/*
	 * -3 * 2^30 < INT32_MIN saturates to -2^31;
	 * srdhm(-2^31, 2^30) = (-2^61 + 1 - 2^30)/2^31 -> -2^30
	 */
	EXPECT_EQ(-(1 << 30), npuref_requant(-3, Q30, 30));
	/* INT32_MIN at factor ~1: see srdhm_edges */
	EXPECT_EQ(-2147483647, npuref_requant(INT32_MIN, QMAX, 0));
	/* shift -31: srdhm(INT32_MAX, QMAX) = 2147483646; / 2^31 = 0.99.. -> 1 */
	EXPECT_EQ(1, npuref_requant(INT32_MAX, QMAX, -31));
	/* and of INT32_MIN: srdhm = -2147483647; / 2^31 = -0.99.. -> -1 */
	EXPECT_EQ(-1, npuref_requant(INT32_MIN, QMAX, -31));
	/* 64-bit input above INT32_MAX saturates before the multiply */
	EXPECT_EQ(1 << 30, npuref_requant((int64_t)INT32_MAX + 10, Q30, 0));
	EXPECT_EQ(-(1 << 30), npuref_requant((int64_t)INT32_MIN - 10, Q30, 0));
	/* multiplier 0 gives 0 whatever x */
	EXPECT_EQ(0, npuref_requant(123456, 0, 30));
}

TEST(quantize_multiplier)
{
	int32_t m = -1, s = -1;

	/* 0.5 = 0.5 * 2^0 -> {2^30, 0} */
	ASSERT_EQ(0, npuref_quantize_multiplier(0.5, &m, &s));
	EXPECT_EQ(Q30, m);
	EXPECT_EQ(0, s);
	/* 1.0 = 0.5 * 2^1 -> {2^30, 1} */
	ASSERT_EQ(0, npuref_quantize_multiplier(1.0, &m, &s));
	EXPECT_EQ(Q30, m);
	EXPECT_EQ(1, s);
	/* 0.75 -> 0.75 * 2^31 = 1610612736 */
	ASSERT_EQ(0, npuref_quantize_multiplier(0.75, &m, &s));
	EXPECT_EQ(1610612736, m);
	EXPECT_EQ(0, s);
	/* 0.1 = 0.8 * 2^-3; 0.8 * 2^31 = 1717986918.4 -> 1717986918 */
	ASSERT_EQ(0, npuref_quantize_multiplier(0.1, &m, &s));
	EXPECT_EQ(1717986918, m);
	EXPECT_EQ(-3, s);
	/* 1 - 2^-33: mantissa * 2^31 = 2^31 - 0.25 rounds to 2^31 -> {2^30, 1} */
	ASSERT_EQ(0, npuref_quantize_multiplier(1.0 - ldexp(1, -33), &m, &s));
	EXPECT_EQ(Q30, m);
	EXPECT_EQ(1, s);
	/* 2^-32 = 0.5 * 2^-31: smallest representable shift */
	ASSERT_EQ(0, npuref_quantize_multiplier(ldexp(1, -32), &m, &s));
	EXPECT_EQ(Q30, m);
	EXPECT_EQ(-31, s);
	/* 2^-33: shift -32 flushes to {0, 0} as TFLite */
	ASSERT_EQ(0, npuref_quantize_multiplier(ldexp(1, -33), &m, &s));
	EXPECT_EQ(0, m);
	EXPECT_EQ(0, s);
	/* 2^29 = 0.5 * 2^30: largest shift */
	ASSERT_EQ(0, npuref_quantize_multiplier(ldexp(1, 29), &m, &s));
	EXPECT_EQ(Q30, m);
	EXPECT_EQ(30, s);
	ASSERT_EQ(0, npuref_quantize_multiplier(0.0, &m, &s));
	EXPECT_EQ(0, m);
	EXPECT_EQ(0, s);
	EXPECT_EQ(-ERANGE, npuref_quantize_multiplier(ldexp(1, 30), &m, &s));
	EXPECT_EQ(-EINVAL, npuref_quantize_multiplier(-0.5, &m, &s));
	EXPECT_EQ(-EINVAL, npuref_quantize_multiplier(NAN, &m, &s));
	EXPECT_EQ(-EINVAL, npuref_quantize_multiplier(INFINITY, &m, &s));
	EXPECT_EQ(-EINVAL, npuref_quantize_multiplier(0.5, NULL, &s));
}

TEST(quantize_multiplier_roundtrip)
{
	/* the pair reproduces the factor to within half a Q31 ulp */
	static const double reals[] = { 1e-6, 0.0039215, 0.3, 0.999, 1.5,
					  7.25, 1000.0 };
	unsigned int i;
	int32_t m, s;

	for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		double back, ulp;

		ASSERT_EQ(0, npuref_quantize_multiplier(reals[i], &m, &s));
		ASSERT_GE(m, Q30);
		back = ldexp((double)m, s - 31);
		ulp = ldexp(1, s - 31);
		EXPECT_LE(fabs(back - reals[i]), ulp / 2);
	}
}

/* ---------------- layouts ---------------- */

TEST(layout_sizes_and_offsets)
{
	struct npu_prog_tensor t = { 0 };
	uint32_t idx[4];
	uint64_t v;

	/* NCHWC16 [1, 2, 3, 17]: CB = 2, bytes = 1*2*2*3*16 = 192 */
	t.dtype = NPU_DT_U8;
	t.layout = NPU_LAYOUT_NCHWC16;
	t.ndim = 4;
	t.dims[0] = 1;
	t.dims[1] = 2;
	t.dims[2] = 3;
	t.dims[3] = 17;
	ASSERT_EQ(0, npuref_tensor_bytes(&t, &v));
	EXPECT_EQ(192u, v);
	ASSERT_EQ(0, npuref_tensor_elems(&t, &v));
	EXPECT_EQ(102u, v);
	/* (0,1,2,16): ((((0*2 + 1)*2 + 1)*3 + 2)*16 + 0 = 176 */
	idx[0] = 0; idx[1] = 1; idx[2] = 2; idx[3] = 16;
	ASSERT_EQ(0, npuref_tensor_offset(&t, idx, &v));
	EXPECT_EQ(176u, v);
	/* (0,1,2,3): (((0*2 + 0)*2 + 1)*3 + 2)*16 + 3 = 83 */
	idx[3] = 3;
	ASSERT_EQ(0, npuref_tensor_offset(&t, idx, &v));
	EXPECT_EQ(83u, v);
	idx[3] = 17;
	EXPECT_EQ(-ERANGE, npuref_tensor_offset(&t, idx, &v));

	/* PLAIN I32 [2, 3]: 24 bytes; (1, 2) at (1*3 + 2)*4 = 20 */
	memset(&t, 0, sizeof(t));
	t.dtype = NPU_DT_I32;
	t.ndim = 2;
	t.dims[0] = 2;
	t.dims[1] = 3;
	t.dims[2] = 1;
	t.dims[3] = 1;
	ASSERT_EQ(0, npuref_tensor_bytes(&t, &v));
	EXPECT_EQ(24u, v);
	idx[0] = 1; idx[1] = 2; idx[2] = 0; idx[3] = 0;
	ASSERT_EQ(0, npuref_tensor_offset(&t, idx, &v));
	EXPECT_EQ(20u, v);
	/* an index past ndim must be 0 */
	idx[2] = 1;
	EXPECT_EQ(-ERANGE, npuref_tensor_offset(&t, idx, &v));

	/* invalid descriptors */
	t.dims[2] = 2;		/* unused dim must be 1 */
	EXPECT_EQ(-EINVAL, npuref_tensor_bytes(&t, &v));
	t.dims[2] = 1;
	t.layout = NPU_LAYOUT_NCHWC16;	/* needs ndim 4 and 1-byte dtype */
	EXPECT_EQ(-EINVAL, npuref_tensor_check(&t));
	t.layout = NPU_LAYOUT_PLAIN;
	t.zero_point = 1;		/* I32 zero point must be 0 */
	EXPECT_EQ(-EINVAL, npuref_tensor_check(&t));
	t.zero_point = 0;
	EXPECT_EQ(0, npuref_tensor_check(&t));

	/* overflow of the size is reported, not wrapped */
	t.ndim = 4;
	t.dims[0] = t.dims[1] = t.dims[2] = t.dims[3] = 0xffffffffu;
	EXPECT_EQ(-EOVERFLOW, npuref_tensor_bytes(&t, &v));
}

TEST(layout_get_set_fill)
{
	struct npu_prog_tensor t = { 0 };
	uint8_t mem[64];
	uint32_t idx[4] = { 0, 0, 1, 2 };
	int32_t v;

	/* NCHWC16 I8 [1, 1, 2, 3], zp -5: 32 bytes, padding lanes 3..15 */
	t.dtype = NPU_DT_I8;
	t.layout = NPU_LAYOUT_NCHWC16;
	t.ndim = 4;
	t.dims[0] = 1;
	t.dims[1] = 1;
	t.dims[2] = 2;
	t.dims[3] = 3;
	t.zero_point = -5;
	memset(mem, 0x55, sizeof(mem));
	ASSERT_EQ(0, npuref_tensor_fill(&t, mem, -5));
	EXPECT_EQ(0xfb, mem[0]);
	EXPECT_EQ(0xfb, mem[31]);
	EXPECT_EQ(0x55, mem[32]);	/* nothing past the 32 bytes */
	ASSERT_EQ(0, npuref_tensor_set(&t, mem, idx, -128));
	/* (0,0,1,2) at ((0*1 + 0)*1 + 0)*2 + 1)*16 + 2 = 18 */
	EXPECT_EQ(0x80, mem[18]);
	ASSERT_EQ(0, npuref_tensor_get(&t, mem, idx, &v));
	EXPECT_EQ(-128, v);
	EXPECT_EQ(-ERANGE, npuref_tensor_set(&t, mem, idx, 128));
	EXPECT_EQ(-ERANGE, npuref_tensor_fill(&t, mem, -129));
	EXPECT_EQ(0x80, mem[18]);

	/* I32 is little-endian */
	memset(&t, 0, sizeof(t));
	t.dtype = NPU_DT_I32;
	t.ndim = 1;
	t.dims[0] = 2;
	t.dims[1] = t.dims[2] = t.dims[3] = 1;
	idx[0] = 1; idx[1] = idx[2] = idx[3] = 0;
	ASSERT_EQ(0, npuref_tensor_set(&t, mem, idx, -2));
	EXPECT_EQ(0xfe, mem[4]);
	EXPECT_EQ(0xff, mem[7]);
	ASSERT_EQ(0, npuref_tensor_get(&t, mem, idx, &v));
	EXPECT_EQ(-2, v);
}

/* ---------------- operators ---------------- */

TEST(conv2d_basic)
{
	/*
	 * x [1,3,3,1] U8 zx=1: [[1,2,3],[4,5,6],[7,8,9]]
	 * w [1,2,2,1] I8 zw=0: [[1,-1],[2,0]], bias [10], rq {2^30, 0} = 0.5,
	 * zy = 3, stride 1, no pad: OH = OW = (3 - 2)/1 + 1 = 2.
	 * (0,0): x-zx [[0,1],[3,4]]: 0 - 1 + 6 + 0 = 5; +10 = 15;
	 *        srdhm(15, 2^30) = 16*2^30/2^31 = 8; 3 + 8 = 11
	 * (0,1): [[1,2],[4,5]]: 1 - 2 + 8 = 7; 17 -> 18/2 = 9; 12
	 * (1,0): [[3,4],[6,7]]: 3 - 4 + 12 = 11; 21 -> 11; 14
	 * (1,1): [[4,5],[7,8]]: 4 - 5 + 14 = 13; 23 -> 12; 15
	 */
	static const uint8_t x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const uint8_t w[4] = { 1, 0xff, 2, 0 };
	static const uint8_t want[4] = { 11, 12, 14, 15 };
	struct progbuild p;
	uint16_t tx, tw, tb, tq, ty;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 3, 3, 1, 1);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 2, 2, 1, 3);
	tw = progbuild_tensor_at(&p, NPU_DT_I8, 0, 2, 0, 4, 1, 2, 2, 1, 0);
	tb = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 16, 1, 1, 1, 1, 1, 0);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 32, 1, 2, 1, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_CONV2D, tx, tw, tb, ty, tq, 0, 255);
	progbuild_conv(o, 0, 0, 1, 1, 0, 0, 0, 0);
	put_bytes(act_buf, x, sizeof(x));
	put_bytes(wt_buf, w, sizeof(w));
	progbuild_put32(wt_buf + 16, 0, 10);
	progbuild_put32(wt_buf + 32, 0, Q30);
	progbuild_put32(wt_buf + 32, 1, 0);
	memset(act_buf + 64, 0xee, 8);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0xffff, op_idx);
	EXPECT_EQ(0, memcmp(act_buf + 64, want, 4));
	EXPECT_EQ(0xee, act_buf[68]);	/* nothing written past the output */
}

TEST(conv2d_pad_stride_perchannel_nchwc16_out)
{
	/*
	 * x [1,2,2,2] U8 zx=5; (x - zx) per channel:
	 *   c0 [[5,15],[25,35]] (x = 10,20,30,40), c1 [[-4,-3],[-2,-1]]
	 *   (x = 1,2,3,4).
	 * w [2,2,2,2] U8 zw=1: co0 all 2 (w - zw = 1), co1: ci0 1 (-> 0),
	 *   ci1 3 (-> 2). No bias. Pads 1 all round, stride 2:
	 *   OH = (2 + 2 - 2)/2 + 1 = 2, OW = 2. Window rows of oh=0 are
	 *   {-1, 0}, of oh=1 {1, 2}: each window holds one real position
	 *   (padding counts as x = zx, i.e. 0).
	 *   (0,0) sees (0,0): co0 5 - 4 = 1,   co1 2*-4 = -8
	 *   (0,1) sees (0,1): co0 15 - 3 = 12, co1 -6
	 *   (1,0) sees (1,0): co0 25 - 2 = 23, co1 -4
	 *   (1,1) sees (1,1): co0 35 - 1 = 34, co1 -2
	 * rq per channel: co0 {2^30, 1} = 1.0 -> acc; co1 {2^30, -1} = 0.25:
	 *   -8: srdhm = (-9*2^30 + 1)/2^31 -> -4; rdivpot(-4,1) = -2
	 *   -6: srdhm -> -3; rdivpot(-3,1) = -1.5 -> -2
	 *   -4: srdhm -> -2; -1
	 *   -2: srdhm -> -1; rdivpot(-1,1) = -0.5 -> -1
	 * zy = 10, act [0, 40]: co0 11, 22, 33, 44 -> 40; co1 8, 8, 9, 9.
	 * Output NCHWC16 [1,2,2,2]: 4 blocks of 16, lanes 2..15 = zy = 10.
	 */
	static const uint8_t x[8] = { 10, 1, 20, 2, 30, 3, 40, 4 };
	static const uint8_t want[4][2] = { { 11, 8 }, { 22, 8 }, { 33, 9 },
					     { 40, 9 } };
	struct progbuild p;
	uint16_t tx, tw, tq, ty;
	struct npu_prog_op *o;
	unsigned int i, l;
	uint8_t w[16];

	for (i = 0; i < 8; i++)
		w[i] = 2;			/* co0 */
	for (i = 8; i < 16; i++)
		w[i] = (i % 2) ? 3 : 1;		/* co1: ci1 3, ci0 1 */
	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 2, 2, 2, 5);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 1, 64, 4, 1, 2, 2,
		       2, 10);
	tw = progbuild_tensor_at(&p, NPU_DT_U8, 0, 2, 0, 4, 2, 2, 2, 2, 1);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 64, 2, 2, 2, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_CONV2D, tx, tw, NPU_PROG_NONE, ty, tq, 0, 40);
	progbuild_conv(o, 0, 0, 2, 2, 1, 1, 1, 1);
	put_bytes(act_buf, x, sizeof(x));
	put_bytes(wt_buf, w, sizeof(w));
	progbuild_put32(wt_buf + 64, 0, Q30);
	progbuild_put32(wt_buf + 64, 1, 1);
	progbuild_put32(wt_buf + 64, 2, Q30);
	progbuild_put32(wt_buf + 64, 3, -1);
	memset(act_buf + 64, 0xee, 80);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(want[i][0], act_buf[64 + 16 * i]);
		EXPECT_EQ(want[i][1], act_buf[64 + 16 * i + 1]);
		for (l = 2; l < 16; l++)
			EXPECT_EQ(10, act_buf[64 + 16 * i + l]);
	}
	EXPECT_EQ(0xee, act_buf[128]);
}

TEST(conv2d_acc_wraps)
{
	/*
	 * acc is int32 and wraps: x [1,1,1,1] = 255 (zx 0), w = 255 (zw 0),
	 * bias INT32_MAX: INT32_MAX + 65025 wraps to INT32_MIN + 65024 =
	 * -2147418624. rq {2^30, -31}: srdhm -> -1073709312;
	 * / 2^31 = -0.49998 -> 0. zy = 7 -> 7. Without the wrap the result
	 * would be srdhm(>0) / 2^31 = 0.5 -> 1 -> 8.
	 */
	struct progbuild p;
	uint16_t tx, tw, tb, tq, ty;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 1, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 1, 1, 1, 7);
	tw = progbuild_tensor_at(&p, NPU_DT_U8, 0, 2, 0, 4, 1, 1, 1, 1, 0);
	tb = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 16, 1, 1, 1, 1, 1, 0);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 32, 1, 2, 1, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_CONV2D, tx, tw, tb, ty, tq, 0, 255);
	progbuild_conv(o, 0, 0, 1, 1, 0, 0, 0, 0);
	act_buf[0] = 255;
	wt_buf[0] = 255;
	progbuild_put32(wt_buf + 16, 0, INT32_MAX);
	progbuild_put32(wt_buf + 32, 0, Q30);
	progbuild_put32(wt_buf + 32, 1, -31);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(7, act_buf[64]);
}

TEST(dwconv2d_nchwc16_input_padding_ignored)
{
	/*
	 * x [1,2,2,2] NCHWC16 U8 zx=0: c0 [[1,2],[3,4]], c1 [[5,6],[7,8]];
	 *   its padding lanes hold 0xaa garbage that must not matter.
	 * w [1,2,2,2] U8 zw=0: c0 [[1,0],[0,1]], c1 [[1,1],[1,1]].
	 * No pad, stride 1: OH = OW = 1.
	 * c0: 1*1 + 4*1 = 5; bias 100 -> 105. c1: 5+6+7+8 = 26; bias -20 -> 6.
	 * rq {2^30, 1} = 1.0 -> same; zy = 0; act [0, 100] -> 100, 6.
	 */
	struct progbuild p;
	uint16_t tx, tw, tb, tq, ty;
	struct npu_prog_op *o;
	static const uint8_t w[8] = { 1, 1, 0, 1, 0, 1, 1, 1 };

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 1, 0, 4, 1, 2, 2, 2,
		       0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 128, 4, 1, 1, 1, 2, 0);
	tw = progbuild_tensor_at(&p, NPU_DT_U8, 0, 2, 0, 4, 1, 2, 2, 2, 0);
	tb = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 16, 1, 2, 1, 1, 1, 0);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 32, 1, 2, 1, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_DWCONV2D, tx, tw, tb, ty, tq, 0, 100);
	progbuild_conv(o, 0, 0, 1, 1, 0, 0, 0, 0);
	memset(act_buf, 0xaa, 64);
	/* block (h, w) at 16 * (h*2 + w): lane 0 = c0, lane 1 = c1 */
	act_buf[0] = 1;  act_buf[1] = 5;
	act_buf[16] = 2; act_buf[17] = 6;
	act_buf[32] = 3; act_buf[33] = 7;
	act_buf[48] = 4; act_buf[49] = 8;
	put_bytes(wt_buf, w, sizeof(w));
	progbuild_put32(wt_buf + 16, 0, 100);
	progbuild_put32(wt_buf + 16, 1, -20);
	progbuild_put32(wt_buf + 32, 0, Q30);
	progbuild_put32(wt_buf + 32, 1, 1);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(100, act_buf[128]);
	EXPECT_EQ(6, act_buf[129]);
}

/* x [1,2,3,1] U8 zx=2: [[2,4,7],[9,3,0]], so x - zx = [[0,2,5],[7,1,-2]] */
static const uint8_t pool_x[6] = { 2, 4, 7, 9, 3, 0 };

TEST(avgpool_padding_excluded)
{
	/*
	 * kh = kw = 2, stride 1, pr = 1: OH = (2-2)/1+1 = 1,
	 * OW = (3+1-2)/1+1 = 3. zy = 1, no rq.
	 * ow0: 0+2+7+1 = 10, cnt 4: (10 + 2)/4 = 3 -> 4
	 * ow1: 2+5+1-2 = 6, cnt 4: (6 + 2)/4 = 2 -> 3
	 * ow2: cols 2 and 3 (3 is padding): 5 - 2 = 3, cnt 2: (3+1)/2 = 2 -> 3
	 */
	struct progbuild p;
	uint16_t tx, ty;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 2, 3, 1, 2);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 1, 3, 1, 1);
	o = progbuild_op(&p, NPU_OP_AVGPOOL, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty,
		  NPU_PROG_NONE, 0, 255);
	progbuild_conv(o, 2, 2, 1, 1, 0, 0, 0, 1);
	put_bytes(act_buf, pool_x, sizeof(pool_x));
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(4, act_buf[64]);
	EXPECT_EQ(3, act_buf[65]);
	EXPECT_EQ(3, act_buf[66]);
}

TEST(avgpool_negative_rounding_and_rq)
{
	/*
	 * x [1,1,2,1] zx 10: [7, 8] -> -3, -2; window 1x2: acc = -5, cnt 2:
	 * avg = (-5 - 1)/2 = -3 (-2.5 rounds away from 0).
	 * Op 0, no rq: 10 + -3 = 7.
	 * Op 1, rq {2^30, 0} = 0.5: srdhm(-3, 2^30) = -1 (tie goes up):
	 * 10 - 1 = 9.
	 */
	struct progbuild p;
	uint16_t tx, ty0, ty1, tq;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 1, 2, 1, 10);
	ty0 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 1, 1, 1, 10);
	ty1 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 65, 4, 1, 1, 1, 1, 10);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 0, 1, 2, 1, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_AVGPOOL, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty0,
		  NPU_PROG_NONE, 0, 255);
	progbuild_conv(o, 1, 2, 1, 1, 0, 0, 0, 0);
	o = progbuild_op(&p, NPU_OP_AVGPOOL, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty1,
		  tq, 0, 255);
	progbuild_conv(o, 1, 2, 1, 1, 0, 0, 0, 0);
	act_buf[0] = 7;
	act_buf[1] = 8;
	progbuild_put32(wt_buf, 0, Q30);
	progbuild_put32(wt_buf, 1, 0);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(7, act_buf[64]);
	EXPECT_EQ(9, act_buf[65]);
}

TEST(maxpool_window_and_clamp)
{
	/*
	 * Same x and window as avgpool_padding_excluded; zy = 1, act_max 7.
	 * ow0: max(2,4,9,3) = 9 -> 1 + 9 - 2 = 8 -> clamp 7
	 * ow1: max(4,7,3,0) = 7 -> 6
	 * ow2: max(7,0) = 7 -> 6 (the padding column is not a candidate)
	 */
	struct progbuild p;
	uint16_t tx, ty;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 2, 3, 1, 2);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 1, 3, 1, 1);
	o = progbuild_op(&p, NPU_OP_MAXPOOL, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty,
		  NPU_PROG_NONE, 0, 7);
	progbuild_conv(o, 2, 2, 1, 1, 0, 0, 0, 1);
	put_bytes(act_buf, pool_x, sizeof(pool_x));
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(7, act_buf[64]);
	EXPECT_EQ(6, act_buf[65]);
	EXPECT_EQ(6, act_buf[66]);
}

/*
 * FC / MATMUL data. x [2,3] zx=1: [[1,2,3],[4,5,6]] -> x-zx [[0,1,2],[3,4,5]]
 * w [2,3] I8 zw=-1: [[0,1,-2],[2,0,1]] -> w-zw [[1,2,-1],[3,1,2]]
 * bias [5, -5]
 * (0,0): 0 + 2 - 2 = 0 + 5 = 5       (0,1): 0 + 1 + 4 = 5 - 5 = 0
 * (1,0): 3 + 8 - 5 = 6 + 5 = 11      (1,1): 9 + 4 + 10 = 23 - 5 = 18
 * rq per channel: n0 {2^30, 1} = 1.0; n1 {2^30, 0} = 0.5:
 *   0 -> (0 + 2^30)/2^31 -> 0;  18 -> (19*2^30)/2^31 = 9.5 -> 9
 * zy = 100: [[105, 100], [111, 109]]
 */
static void fc_setup(struct progbuild *p, int matmul)
{
	static const uint8_t x[6] = { 1, 2, 3, 4, 5, 6 };
	static const int8_t w_nk[6] = { 0, 1, -2, 2, 0, 1 };
	static const int8_t w_kn[6] = { 0, 2, 1, 0, -2, 1 };
	uint16_t tx, tw, tb, tq, ty;

	progbuild_init(p);
	tx = progbuild_tensor_at(p, NPU_DT_U8, 0, 1, 0, 2, 2, 3, 1, 1, 1);
	ty = progbuild_tensor_at(p, NPU_DT_U8, 0, 1, 64, 2, 2, 2, 1, 1, 100);
	tw = progbuild_tensor_at(p, NPU_DT_I8, 0, 2, 0, 2, matmul ? 3 : 2,
		       matmul ? 2 : 3, 1, 1, -1);
	tb = progbuild_tensor_at(p, NPU_DT_I32, 0, 2, 16, 1, 2, 1, 1, 1, 0);
	tq = progbuild_tensor_at(p, NPU_DT_I32, 0, 2, 32, 2, 2, 2, 1, 1, 0);
	progbuild_op(p, matmul ? NPU_OP_MATMUL : NPU_OP_FC, tx, tw, tb, ty, tq, 0,
	      255);
	put_bytes(act_buf, x, sizeof(x));
	memcpy(wt_buf, matmul ? w_kn : w_nk, 6);
	progbuild_put32(wt_buf + 16, 0, 5);
	progbuild_put32(wt_buf + 16, 1, -5);
	progbuild_put32(wt_buf + 32, 0, Q30);
	progbuild_put32(wt_buf + 32, 1, 1);
	progbuild_put32(wt_buf + 32, 2, Q30);
	progbuild_put32(wt_buf + 32, 3, 0);
}

TEST(fc_perchannel)
{
	static const uint8_t want[4] = { 105, 100, 111, 109 };
	struct progbuild p;

	fc_setup(&p, 0);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 64, want, 4));
}

TEST(matmul_perchannel)
{
	static const uint8_t want[4] = { 105, 100, 111, 109 };
	struct progbuild p;

	fc_setup(&p, 1);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 64, want, 4));
}

TEST(add_saturates_both_ends)
{
	/*
	 * x0 [4] z0 = 10: [10, 20, 0, 255] -> 0, 10, -10, 245
	 * x1 [4] z1 = 0:  [0, 5, 3, 255]   -> 0, 5, 3, 255
	 * r0 = r1 = {2^30, 0} = 0.5 on (x - z) * 2^20:
	 *   a = [0, 5*2^20, -5*2^20, 122.5*2^20]   (+-0.5 nudges truncate)
	 *   b = [0, 2.5*2^20, 1.5*2^20, 127.5*2^20]
	 *   a + b = (sum of x - z) * 2^19
	 * r2 = {2^30, -18} = 2^-19: requant(7864320) = srdhm -> 3932160,
	 *   / 2^18 = 15; -3670016 -> -1835008 / 2^18 = -7; 490.
	 * zy = 5: [5, 20, -2 -> 0, 495 -> 255]
	 */
	static const uint8_t x0[4] = { 10, 20, 0, 255 };
	static const uint8_t x1[4] = { 0, 5, 3, 255 };
	static const uint8_t want[4] = { 5, 20, 0, 255 };
	struct progbuild p;
	uint16_t t0, t1, ty, tq;

	progbuild_init(&p);
	t0 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 1, 4, 1, 1, 1, 10);
	t1 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 16, 1, 4, 1, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 1, 4, 1, 1, 1, 5);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 0, 1, 6, 1, 1, 1, 0);
	progbuild_op(&p, NPU_OP_ADD, t0, t1, NPU_PROG_NONE, ty, tq, 0, 255);
	put_bytes(act_buf, x0, 4);
	put_bytes(act_buf + 16, x1, 4);
	progbuild_put32(wt_buf, 0, Q30);
	progbuild_put32(wt_buf, 1, 0);
	progbuild_put32(wt_buf, 2, Q30);
	progbuild_put32(wt_buf, 3, 0);
	progbuild_put32(wt_buf, 4, Q30);
	progbuild_put32(wt_buf, 5, -18);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 64, want, 4));
}

TEST(add_sum_is_exact_not_wrapped)
{
	/*
	 * x0 = x1 = 255, zp 0. r0 = r1 = {INT32_MAX, 30}: 255*2^20*2^30
	 * saturates to INT32_MAX, srdhm(INT32_MAX, INT32_MAX) = 2147483646.
	 * a + b = 4294967292 exactly; r2 = {2^30, 0} saturates it to
	 * INT32_MAX and srdhm(INT32_MAX, 2^30) = 2^30: zy 5 + 2^30 -> 255.
	 * (A wrapped int32 sum would be -4 -> srdhm -> -2 -> 3.)
	 */
	struct progbuild p;
	uint16_t t0, ty, tq;

	progbuild_init(&p);
	t0 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 1, 1, 1, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 1, 1, 1, 1, 1, 5);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 0, 2, 3, 2, 1, 1, 0);
	progbuild_op(&p, NPU_OP_ADD, t0, t0, NPU_PROG_NONE, ty, tq, 0, 255);
	act_buf[0] = 255;
	progbuild_put32(wt_buf, 0, INT32_MAX);
	progbuild_put32(wt_buf, 1, 30);
	progbuild_put32(wt_buf, 2, INT32_MAX);
	progbuild_put32(wt_buf, 3, 30);
	progbuild_put32(wt_buf, 4, Q30);
	progbuild_put32(wt_buf, 5, 0);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(255, act_buf[64]);
}

TEST(clip_and_relu)
{
	/*
	 * x [5] zx = 3: [0, 3, 100, 200, 255]; zy = 10:
	 * 10 + x - 3 = [7, 10, 107, 207, 262 -> 255 saturate]
	 * act [10, 200]: [10, 10, 107, 200, 200]
	 * Relu (act [zy, 255]) on the same: [10, 10, 107, 207, 255]
	 */
	static const uint8_t x[5] = { 0, 3, 100, 200, 255 };
	static const uint8_t want0[5] = { 10, 10, 107, 200, 200 };
	static const uint8_t want1[5] = { 10, 10, 107, 207, 255 };
	struct progbuild p;
	uint16_t tx, ty0, ty1;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 1, 5, 1, 1, 1, 3);
	ty0 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 1, 5, 1, 1, 1, 10);
	ty1 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 128, 1, 5, 1, 1, 1, 10);
	/* rq is ignored by CLIP: any value, even out of range */
	progbuild_op(&p, NPU_OP_CLIP, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty0, 999,
	      10, 200);
	progbuild_op(&p, NPU_OP_CLIP, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty1,
	      NPU_PROG_NONE, 10, 255);
	put_bytes(act_buf, x, 5);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 64, want0, 5));
	EXPECT_EQ(0, memcmp(act_buf + 128, want1, 5));
}

TEST(pad)
{
	/*
	 * in [1,2,2,1] U8 zp 9: [[1,2],[3,4]]; before (0,1,0,0),
	 * after (0,0,1,0): out [1,3,3,1] =
	 *   [9, 9, 9]
	 *   [1, 2, 9]
	 *   [3, 4, 9]
	 */
	static const uint8_t x[4] = { 1, 2, 3, 4 };
	static const uint8_t want[9] = { 9, 9, 9, 1, 2, 9, 3, 4, 9 };
	struct progbuild p;
	uint16_t tx, ty;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 2, 2, 1, 9);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 3, 3, 1, 9);
	o = progbuild_op(&p, NPU_OP_PAD, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty, 0,
		  0, 0);
	o->u.pad.before[1] = 1;
	o->u.pad.after[2] = 1;
	memcpy(act_buf, x, 4);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 64, want, 9));

	/* data movement is on activations: I8 in and out is BAD_SHAPE */
	p.t[tx].dtype = NPU_DT_I8;
	p.t[ty].dtype = NPU_DT_I8;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));
	EXPECT_EQ(0, op_idx);
}

TEST(reshape_plain_to_nchwc16_and_back)
{
	/*
	 * [6] U8 zp 7 = 0..5 -> NCHWC16 [1,1,2,3]: element i goes to
	 * (0, 0, i / 3, i % 3), i.e. bytes 0,1,2 then 16,17,18; lanes 3..15
	 * of both blocks are 7. Then back to PLAIN [2,3] gives 0..5 again.
	 */
	static const uint8_t x[6] = { 0, 1, 2, 3, 4, 5 };
	struct progbuild p;
	uint16_t tx, tm, ty;
	unsigned int l;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 1, 6, 1, 1, 1, 7);
	tm = progbuild_tensor_at(&p, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 1, 64, 4, 1, 1, 2,
		       3, 7);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 128, 2, 2, 3, 1, 1, 7);
	progbuild_op(&p, NPU_OP_RESHAPE, tx, NPU_PROG_NONE, NPU_PROG_NONE, tm, 0, 0,
	      0);
	progbuild_op(&p, NPU_OP_RESHAPE, tm, NPU_PROG_NONE, NPU_PROG_NONE, ty, 0, 0,
	      0);
	put_bytes(act_buf, x, 6);
	memset(act_buf + 64, 0xee, 32);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 64, x, 3));
	EXPECT_EQ(0, memcmp(act_buf + 80, x + 3, 3));
	for (l = 3; l < 16; l++) {
		EXPECT_EQ(7, act_buf[64 + l]);
		EXPECT_EQ(7, act_buf[80 + l]);
	}
	EXPECT_EQ(0, memcmp(act_buf + 128, x, 6));
}

TEST(transpose_2d_and_nhwc_to_nchw)
{
	/*
	 * [2,3] [[1,2,3],[4,5,6]], perm (1,0) -> [3,2] [[1,4],[2,5],[3,6]].
	 * NHWC [1,2,2,3] NCHWC16 input (h,w,c) = 10h + 4w... here value
	 * 100 + 10*h + 3*w + c; perm (0,3,1,2) -> [1,3,2,2] out(0,c,h,w) =
	 * in(0,h,w,c).
	 */
	static const uint8_t x[6] = { 1, 2, 3, 4, 5, 6 };
	static const uint8_t want[6] = { 1, 4, 2, 5, 3, 6 };
	struct progbuild p;
	uint16_t tx, ty, t4, t5;
	struct npu_prog_op *o;
	unsigned int h, w, c;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 2, 2, 3, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 16, 2, 3, 2, 1, 1, 0);
	t4 = progbuild_tensor_at(&p, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 1, 64, 4, 1, 2, 2,
		       3, 0);
	t5 = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 256, 4, 1, 3, 2, 2, 0);
	o = progbuild_op(&p, NPU_OP_TRANSPOSE, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty,
		  0, 0, 0);
	o->u.transpose.perm[0] = 1;
	o->u.transpose.perm[1] = 0;
	o = progbuild_op(&p, NPU_OP_TRANSPOSE, t4, NPU_PROG_NONE, NPU_PROG_NONE, t5,
		  0, 0, 0);
	o->u.transpose.perm[0] = 0;
	o->u.transpose.perm[1] = 3;
	o->u.transpose.perm[2] = 1;
	o->u.transpose.perm[3] = 2;
	put_bytes(act_buf, x, 6);
	for (h = 0; h < 2; h++)
		for (w = 0; w < 2; w++)
			for (c = 0; c < 3; c++)
				act_buf[64 + (h * 2 + w) * 16 + c] =
					100 + 10 * h + 3 * w + c;
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 16, want, 6));
	for (c = 0; c < 3; c++)
		for (h = 0; h < 2; h++)
			for (w = 0; w < 2; w++)
				EXPECT_EQ(100 + 10 * h + 3 * w + c,
					  act_buf[256 + (c * 2 + h) * 2 + w]);
}

TEST(slice_and_concat)
{
	/*
	 * SLICE [3,4] = 0..11, begin (1,1), out [2,2] = [[5,6],[9,10]].
	 * CONCAT axis 1: [2,1] [[1],[2]] + [2,2] [[3,4],[5,6]] + [2,1]
	 * [[7],[8]] -> [2,4] [[1,3,4,7],[2,5,6,8]].
	 */
	static const uint8_t want_s[4] = { 5, 6, 9, 10 };
	static const uint8_t a[2] = { 1, 2 }, b[4] = { 3, 4, 5, 6 },
			     c[2] = { 7, 8 };
	static const uint8_t want_c[8] = { 1, 3, 4, 7, 2, 5, 6, 8 };
	struct progbuild p;
	uint16_t tx, ty, ta, tb, tc, tz;
	struct npu_prog_op *o;
	unsigned int i;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 2, 3, 4, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 16, 2, 2, 2, 1, 1, 0);
	ta = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 32, 2, 2, 1, 1, 1, 0);
	tb = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 40, 2, 2, 2, 1, 1, 0);
	tc = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 48, 2, 2, 1, 1, 1, 0);
	tz = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 2, 2, 4, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_SLICE, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty, 0,
		  0, 0);
	o->u.slice.begin[0] = 1;
	o->u.slice.begin[1] = 1;
	o = progbuild_op(&p, NPU_OP_CONCAT, ta, tb, tc, tz, 0, 0, 0);
	o->u.concat.axis = 1;
	for (i = 0; i < 12; i++)
		act_buf[i] = (uint8_t)i;
	put_bytes(act_buf + 32, a, 2);
	put_bytes(act_buf + 40, b, 4);
	put_bytes(act_buf + 48, c, 2);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf + 16, want_s, 4));
	EXPECT_EQ(0, memcmp(act_buf + 64, want_c, 8));
}

TEST(ops_run_in_order)
{
	/*
	 * Op 0 CLIP writes y = x + 1 (zx 0, zy 1); op 1 CLIP reads y
	 * (zp 1) into z (zp 0): z = y - 1 = x. Op 1 must see op 0's output.
	 */
	struct progbuild p;
	uint16_t tx, ty, tz;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 1, 2, 1, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 16, 1, 2, 1, 1, 1, 1);
	tz = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 32, 1, 2, 1, 1, 1, 0);
	progbuild_op(&p, NPU_OP_CLIP, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty,
	      NPU_PROG_NONE, 0, 255);
	progbuild_op(&p, NPU_OP_CLIP, ty, NPU_PROG_NONE, NPU_PROG_NONE, tz,
	      NPU_PROG_NONE, 0, 255);
	act_buf[0] = 40;
	act_buf[1] = 254;
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(41, act_buf[16]);
	EXPECT_EQ(255, act_buf[17]);
	EXPECT_EQ(40, act_buf[32]);
	EXPECT_EQ(254, act_buf[33]);
}

/* ---------------- error statuses ---------------- */

/* a valid two-op program (CLIP x->y, FC) used as the base of error cases */
static void base_prog(struct progbuild *p)
{
	fc_setup(p, 0);		/* tensors 0..4, op 0 FC */
	/* tensor 5: CLIP output; op 1 CLIP y -> t5 */
	progbuild_tensor_at(p, NPU_DT_U8, 0, 1, 128, 2, 2, 2, 1, 1, 100);
	progbuild_op(p, NPU_OP_CLIP, 1, NPU_PROG_NONE, NPU_PROG_NONE, 5,
	      NPU_PROG_NONE, 0, 255);
}

static int run_base_hdr(struct progbuild *p, void (*edit)(struct npu_prog_hdr *h),
			size_t prog_size)
{
	size_t n = progbuild_emit(p, slot0);

	edit((struct npu_prog_hdr *)slot0);
	op_idx = 0x1234;
	return npuref_run(slot0, prog_size ? prog_size : n, slots, 3, 0,
			  &op_idx);
}

static void e_magic(struct npu_prog_hdr *h) { h->magic ^= 1; }
static void e_version(struct npu_prog_hdr *h) { h->version = 2; }
static void e_hdr_size(struct npu_prog_hdr *h) { h->hdr_size = 24; }
static void e_rsvd(struct npu_prog_hdr *h) { h->rsvd = 1; }
static void e_ntens(struct npu_prog_hdr *h) { h->n_tensors = 1025; }
static void e_nops(struct npu_prog_hdr *h) { h->n_ops = 1025; }
static void e_toff(struct npu_prog_hdr *h) { h->tensors_off += 4; }
static void e_ooff(struct npu_prog_hdr *h) { h->ops_off = 36; }
static void e_size_big(struct npu_prog_hdr *h) { h->size += 8; }
static void e_size_small(struct npu_prog_hdr *h) { h->size -= 8; }
static void e_ops_out(struct npu_prog_hdr *h) { h->ops_off = h->size - 56; }
/* empty tables inside a size smaller than the header itself */
static void e_size_hdr(struct npu_prog_hdr *h)
{
	h->n_tensors = 0;
	h->n_ops = 0;
	h->tensors_off = 0;
	h->ops_off = 0;
	h->size = sizeof(*h) - 8;
}
static void e_none(struct npu_prog_hdr *h) { (void)h; }

TEST(err_bad_program_header)
{
	static void (*const edits[])(struct npu_prog_hdr *) = {
		e_magic, e_version, e_hdr_size, e_rsvd, e_ntens, e_nops,
		e_toff, e_ooff, e_size_big, e_size_small, e_ops_out,
		e_size_hdr,
	};
	struct progbuild p;
	unsigned int i;

	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		base_prog(&p);
		memset(act_buf + 64, 0xee, 4);
		EXPECT_EQ(NPU_PROG_BAD_PROGRAM,
			  run_base_hdr(&p, edits[i], 0)) {
			TH_LOG("edit %u", i);
		}
		EXPECT_EQ(0xffff, op_idx);
		EXPECT_EQ(0xee, act_buf[64]);	/* nothing written */
	}
	/* unedited base runs */
	base_prog(&p);
	EXPECT_EQ(NPU_PROG_OK, run_base_hdr(&p, e_none, 0));
	/* prog_size smaller than the header, or than hdr.size */
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_base_hdr(&p, e_none, 16));
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM,
		  run_base_hdr(&p, e_none, progbuild_size(&p) - 8));
}

struct tcase {
	const char *name;
	unsigned int tensor;
	int field;	/* what to change */
	int64_t val;
	int status;
};

enum { F_DTYPE, F_NDIM, F_LAYOUT, F_BUF, F_OFF, F_DIM0, F_DIM3, F_ZP,
       F_RSVD };

static void tedit(struct npu_prog_tensor *t, int field, int64_t v)
{
	switch (field) {
	case F_DTYPE:
		t->dtype = (uint8_t)v;
		break;
	case F_NDIM:
		t->ndim = (uint8_t)v;
		break;
	case F_LAYOUT:
		t->layout = (uint8_t)v;
		break;
	case F_BUF:
		t->buf = (uint8_t)v;
		break;
	case F_OFF:
		t->offset = (uint32_t)v;
		break;
	case F_DIM0:
		t->dims[0] = (uint32_t)v;
		break;
	case F_DIM3:
		t->dims[3] = (uint32_t)v;
		break;
	case F_ZP:
		t->zero_point = (int32_t)v;
		break;
	case F_RSVD:
		t->rsvd = (uint32_t)v;
		break;
	}
}

TEST(err_tensor_level)
{
	/* base tensors: 0 x U8 [2,3] @1:0, 3 bias I32 [2] @2:16 */
	static const struct tcase cases[] = {
		{ "dtype 0", 0, F_DTYPE, 0, NPU_PROG_BAD_PROGRAM },
		{ "dtype 4", 0, F_DTYPE, 4, NPU_PROG_BAD_PROGRAM },
		{ "ndim 0", 0, F_NDIM, 0, NPU_PROG_BAD_PROGRAM },
		{ "ndim 5", 0, F_NDIM, 5, NPU_PROG_BAD_PROGRAM },
		{ "layout 2", 0, F_LAYOUT, 2, NPU_PROG_BAD_PROGRAM },
		{ "nchwc16 ndim 2", 0, F_LAYOUT, 1, NPU_PROG_BAD_PROGRAM },
		{ "nchwc16 i32", 3, F_LAYOUT, 1, NPU_PROG_BAD_PROGRAM },
		{ "dim 0", 0, F_DIM0, 0, NPU_PROG_BAD_PROGRAM },
		{ "unused dim 2", 0, F_DIM3, 2, NPU_PROG_BAD_PROGRAM },
		{ "u8 zp 256", 0, F_ZP, 256, NPU_PROG_BAD_PROGRAM },
		{ "u8 zp -1", 0, F_ZP, -1, NPU_PROG_BAD_PROGRAM },
		{ "i8 zp -129", 2, F_ZP, -129, NPU_PROG_BAD_PROGRAM },
		{ "i32 zp 1", 3, F_ZP, 1, NPU_PROG_BAD_PROGRAM },
		{ "rsvd", 0, F_RSVD, 1, NPU_PROG_BAD_PROGRAM },
		{ "buf 3", 0, F_BUF, 3, NPU_PROG_BAD_ADDRESS },
		{ "buf 255", 0, F_BUF, 255, NPU_PROG_BAD_ADDRESS },
		{ "end past slot", 0, F_OFF, SLOT_SZ - 5,
		  NPU_PROG_BAD_ADDRESS },
		{ "offset 2^32-1", 0, F_OFF, 0xffffffff,
		  NPU_PROG_BAD_ADDRESS },
		{ "huge dim", 0, F_DIM0, 0xffffffff,
		  NPU_PROG_BAD_ADDRESS },
		{ "i32 offset 18", 3, F_OFF, 18, NPU_PROG_MISALIGNED },
		{ "i32 offset 17", 3, F_OFF, 17, NPU_PROG_MISALIGNED },
	};
	struct progbuild p;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		base_prog(&p);
		tedit(&p.t[cases[i].tensor], cases[i].field, cases[i].val);
		memset(act_buf + 64, 0xee, 4);
		EXPECT_EQ(cases[i].status, run_prog(&p)) {
			TH_LOG("case %s", cases[i].name);
		}
		EXPECT_EQ(0xffff, op_idx);
		EXPECT_EQ(0xee, act_buf[64]);
	}
	/* an I32 tensor exactly at the end of the slot is fine */
	base_prog(&p);
	p.t[3].offset = SLOT_SZ - 8;
	progbuild_put32(wt_buf + SLOT_SZ - 8, 0, 5);
	progbuild_put32(wt_buf + SLOT_SZ - 8, 1, -5);
	EXPECT_EQ(NPU_PROG_OK, run_prog(&p));
}

TEST(err_unused_tensor_still_checked)
{
	struct progbuild p;

	base_prog(&p);
	progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 2, 1, 1, 1, 1, 1, 0);	/* misaligned */
	EXPECT_EQ(NPU_PROG_MISALIGNED, run_prog(&p));
	EXPECT_EQ(0xffff, op_idx);
}

TEST(err_reserved_op_fields)
{
	struct progbuild p;

	/* program.rst step 4b: checked per operator, op_index set */
	base_prog(&p);
	p.op[1].flags = 1;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_prog(&p));
	EXPECT_EQ(1, op_idx);
	base_prog(&p);
	p.op[1].rsvd = 1;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_prog(&p));
	EXPECT_EQ(1, op_idx);
	/* reserved bytes of the operator's u member */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_TRANSPOSE;
	p.op[1].u.transpose.perm[0] = 1;
	p.op[1].u.transpose.rsvd[35] = 1;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_prog(&p));
	EXPECT_EQ(1, op_idx);
	/* ... and only of that member: FC has none */
	base_prog(&p);
	p.op[0].u.raw[39] = 1;
	EXPECT_EQ(NPU_PROG_OK, run_prog(&p));
	/* a later operator's opcode error is found before nothing else */
	base_prog(&p);
	p.op[0].flags = 1;
	p.op[1].opcode = 0;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_prog(&p));
	EXPECT_EQ(0, op_idx);
}

/* op 1 of the base program replaced by *o; returns the status */
static int run_op1(struct progbuild *p)
{
	memset(act_buf + 64, 0xee, 4);
	return run_prog(p);
}

TEST(err_bad_opcode)
{
	static const uint16_t bad[] = { 0, NPU_OP_MAX + 1, 0xffff };
	struct progbuild p;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		base_prog(&p);
		p.op[1].opcode = bad[i];
		EXPECT_EQ(NPU_PROG_BAD_OPCODE, run_op1(&p));
		EXPECT_EQ(1, op_idx);
		/* op 0 (valid) did not run: nothing written */
		EXPECT_EQ(0xee, act_buf[64]);
	}
}

TEST(err_rq_values_and_act)
{
	struct progbuild p;

	/* multiplier < 0 */
	base_prog(&p);
	progbuild_put32(wt_buf + 32, 2, -1);
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(0, op_idx);
	EXPECT_EQ(0xee, act_buf[64]);
	/* shift 31 and -32 */
	base_prog(&p);
	progbuild_put32(wt_buf + 32, 3, 31);
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(0, op_idx);
	base_prog(&p);
	progbuild_put32(wt_buf + 32, 3, -32);
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	base_prog(&p);
	progbuild_put32(wt_buf + 32, 3, -31);
	EXPECT_EQ(NPU_PROG_OK, run_op1(&p));
	/* act_min > act_max; act_max 256; act_min -1 (op 1, CLIP) */
	base_prog(&p);
	p.op[1].act_min = 9;
	p.op[1].act_max = 8;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(1, op_idx);
	EXPECT_EQ(0xee, act_buf[64]);
	base_prog(&p);
	p.op[1].act_max = 256;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	base_prog(&p);
	p.op[1].act_min = -1;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	/* act ignored by data movement */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_RESHAPE;
	p.op[1].act_min = 9;
	p.op[1].act_max = -8;
	EXPECT_EQ(NPU_PROG_OK, run_op1(&p));
}

TEST(err_operand_refs)
{
	struct progbuild p;

	base_prog(&p);
	p.op[1].in[0] = 6;		/* n_tensors is 6 */
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(1, op_idx);
	base_prog(&p);
	p.op[1].out = NPU_PROG_NONE;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(1, op_idx);
	base_prog(&p);
	p.op[0].rq = NPU_PROG_NONE;	/* FC needs rq */
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(0, op_idx);
	base_prog(&p);
	p.op[1].in[1] = 0;		/* CLIP has one input */
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(1, op_idx);
	base_prog(&p);
	p.op[0].in[2] = NPU_PROG_NONE;	/* bias is optional */
	EXPECT_EQ(NPU_PROG_OK, run_op1(&p));
}

TEST(err_bad_shape)
{
	struct progbuild p;

	/* FC: rq with 3 pairs for N = 2 (1 or N allowed) */
	base_prog(&p);
	p.t[4].dims[0] = 3;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	EXPECT_EQ(0, op_idx);
	EXPECT_EQ(0xee, act_buf[64]);
	/* FC: rq with an odd element count */
	base_prog(&p);
	p.t[4].ndim = 1;
	p.t[4].dims[0] = 3;
	p.t[4].dims[1] = 1;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* FC: one pair is per-tensor and fine */
	base_prog(&p);
	p.t[4].dims[0] = 1;
	EXPECT_EQ(NPU_PROG_OK, run_op1(&p));
	/* FC: K mismatch (weights [2,2]) */
	base_prog(&p);
	p.t[2].dims[1] = 2;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* FC: bias [3] */
	base_prog(&p);
	p.t[3].dims[0] = 3;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* FC: I32 weights */
	base_prog(&p);
	p.t[2].dtype = NPU_DT_I32;
	p.t[2].zero_point = 0;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* FC: I8 activation */
	base_prog(&p);
	p.t[0].dtype = NPU_DT_I8;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* CLIP: out dims differ */
	base_prog(&p);
	p.t[5].dims[1] = 1;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	EXPECT_EQ(1, op_idx);
	EXPECT_EQ(0xee, act_buf[64]);
	/* RESHAPE: element count differs */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_RESHAPE;
	p.t[5].dims[1] = 3;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* RESHAPE: zero point differs */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_RESHAPE;
	p.t[5].zero_point = 99;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* TRANSPOSE: perm not a permutation */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_TRANSPOSE;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));	/* perm 0,0 */
	p.op[1].u.transpose.perm[0] = 1;
	EXPECT_EQ(NPU_PROG_OK, run_op1(&p));		/* 1,0 on 2x2 */
	/* SLICE: begin + out > in */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_SLICE;
	p.op[1].u.slice.begin[1] = 1;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* PAD: out dims do not add up */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_PAD;
	p.op[1].u.pad.after[0] = 1;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* CONCAT: axis >= ndim */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_CONCAT;
	p.op[1].in[1] = 1;
	p.op[1].u.concat.axis = 2;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	/* ADD: rq must have exactly 3 pairs */
	base_prog(&p);
	p.op[1].opcode = NPU_OP_ADD;
	p.op[1].in[1] = 1;
	p.op[1].rq = 4;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
}

TEST(err_bad_shape_windows)
{
	/* conv: x [1,2,2,1], w [1,3,3,1]: 2 + 0 < 3 */
	struct progbuild p;
	uint16_t tx, tw, tq, ty;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 2, 2, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 1, 1, 1, 0);
	tw = progbuild_tensor_at(&p, NPU_DT_U8, 0, 2, 0, 4, 1, 3, 3, 1, 0);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 32, 1, 2, 1, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_CONV2D, tx, tw, NPU_PROG_NONE, ty, tq, 0, 255);
	progbuild_conv(o, 0, 0, 1, 1, 0, 0, 0, 0);
	progbuild_put32(wt_buf + 32, 0, Q30);
	progbuild_put32(wt_buf + 32, 1, 0);
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));
	EXPECT_EQ(0, op_idx);
	/* with one row and column of padding it fits: OH = (2+1-3)/1+1 = 1 */
	progbuild_conv(o, 0, 0, 1, 1, 1, 1, 0, 0);
	EXPECT_EQ(NPU_PROG_OK, run_prog(&p));
	/* stride 0 */
	progbuild_conv(o, 0, 0, 0, 1, 1, 1, 0, 0);
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));
	/* dilation 2 */
	progbuild_conv(o, 0, 0, 1, 1, 1, 1, 0, 0);
	o->u.conv.dh = 2;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));

	/* avgpool whose only window lies in the padding: cnt 0 */
	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 1, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 2, 1, 1, 0);
	/* pt = 2, kh = 1, sh = 2: OH = (1 + 2 - 1)/2 + 1 = 2; row 0 at -2 */
	o = progbuild_op(&p, NPU_OP_AVGPOOL, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty,
		  NPU_PROG_NONE, 0, 255);
	progbuild_conv(o, 1, 1, 2, 1, 2, 0, 0, 0);
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));
	EXPECT_EQ(0, op_idx);
	/* the same window for a conv is fine (x = zx there) */
}

TEST(err_validation_order)
{
	struct progbuild p;

	/* step 3 before step 4: a tensor error wins over op 0's opcode */
	base_prog(&p);
	p.op[0].opcode = 0;
	p.t[5].rsvd = 1;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(0xffff, op_idx);
	/* 3a before 3b: bad dtype and bad slot in one tensor */
	base_prog(&p);
	p.t[0].dtype = 0;
	p.t[0].buf = 7;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	/* 3b before 3c: misaligned I32 past the slot end */
	base_prog(&p);
	p.t[3].offset = SLOT_SZ - 6;
	EXPECT_EQ(NPU_PROG_BAD_ADDRESS, run_op1(&p));
	/* tensors in table order: t2 misaligned... t0 is checked first */
	base_prog(&p);
	p.t[3].offset = 18;
	p.t[0].buf = 9;
	EXPECT_EQ(NPU_PROG_BAD_ADDRESS, run_op1(&p));
	/* operators in table order: op 0 BAD_SHAPE before op 1 BAD_OPCODE */
	base_prog(&p);
	p.t[2].dims[1] = 2;
	p.op[1].opcode = 99;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	EXPECT_EQ(0, op_idx);
	/* 4a before 4b: unknown opcode with nonzero flags */
	base_prog(&p);
	p.op[1].opcode = 99;
	p.op[1].flags = 1;
	EXPECT_EQ(NPU_PROG_BAD_OPCODE, run_op1(&p));
	EXPECT_EQ(1, op_idx);
	/* 4b before 4c: out of range operand on an op with a bad shape */
	base_prog(&p);
	p.t[5].dims[1] = 1;
	p.op[1].in[1] = 0;
	EXPECT_EQ(NPU_PROG_BAD_PROGRAM, run_op1(&p));
	EXPECT_EQ(1, op_idx);
	/* 4c before 4d: rq length wrong and act_max out of range */
	base_prog(&p);
	p.t[4].dims[0] = 3;
	p.op[0].act_max = 300;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_op1(&p));
	EXPECT_EQ(0, op_idx);
}

TEST(pool_params)
{
	/* x [1,2,2,2] U8; out [1,1,1,2]; kh = kw = 2 */
	struct progbuild p;
	uint16_t tx, ty, tq;
	struct npu_prog_op *o;

	progbuild_init(&p);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 2, 2, 2, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 1, 1, 2, 0);
	tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 0, 2, 2, 2, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_AVGPOOL, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty,
		  tq, 0, 255);
	progbuild_conv(o, 2, 2, 1, 1, 0, 0, 0, 0);
	progbuild_put32(wt_buf, 0, Q30);
	progbuild_put32(wt_buf, 1, 0);
	progbuild_put32(wt_buf, 2, Q30);
	progbuild_put32(wt_buf, 3, 0);
	/* AVGPOOL's rq is NONE or exactly one pair: C = 2 pairs is BAD_SHAPE */
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));
	EXPECT_EQ(0, op_idx);
	p.t[tq].dims[0] = 1;
	EXPECT_EQ(NPU_PROG_OK, run_prog(&p));
	/* dilation must be 1 for pools too */
	o->u.conv.dw = 0;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));
	o->u.conv.dw = 1;
	/* kh = 0 (the output dims made to match: OH = (2 - 0)/1 + 1 = 3) */
	o->u.conv.kh = 0;
	p.t[ty].dims[1] = 3;
	EXPECT_EQ(NPU_PROG_BAD_SHAPE, run_prog(&p));
	/* MAXPOOL ignores rq: any index, even out of range */
	o->u.conv.kh = 2;
	p.t[ty].dims[1] = 1;
	o->opcode = NPU_OP_MAXPOOL;
	o->rq = 1000;
	EXPECT_EQ(NPU_PROG_OK, run_prog(&p));
}

TEST(rq_overwritten_at_run_time_is_clamped)
{
	/*
	 * Op 0 RESHAPE copies 8 U8 bytes S over the bytes of Q, the rq table
	 * of op 1 (an AVGPOOL 1x1 of x [1,1,1,1], zy 10). Q is {2^30, 0} when
	 * checked; S holds a little-endian pair:
	 * (a) {-5, 0}: multiplier clamps to 0 -> requant = 0 -> 10
	 *     (with Q's checked values: x 100 -> 50 -> 60).
	 * (b) {2^30, 40}, x - zx = -1: shift clamps to 30;
	 *     y = -2^30, srdhm(-2^30, 2^30) = -2^29 -> 10 - 2^29 -> 0
	 *     (with Q's checked values: srdhm(-1, 2^30) = 0 -> 10).
	 */
	static const struct { int32_t m, s; uint8_t x, zx, want; } c[2] = {
		{ -5, 0, 100, 0, 10 }, { Q30, 40, 0, 1, 0 },
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct progbuild p;
		uint16_t ts, tb, tq, tx, ty;
		struct npu_prog_op *o;

		progbuild_init(&p);
		ts = progbuild_tensor_at(&p, NPU_DT_U8, 0, 2, 64, 1, 8, 1, 1, 1, 0);
		tb = progbuild_tensor_at(&p, NPU_DT_U8, 0, 2, 32, 1, 8, 1, 1, 1, 0);
		tq = progbuild_tensor_at(&p, NPU_DT_I32, 0, 2, 32, 1, 2, 1, 1, 1, 0);
		tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 4, 1, 1, 1, 1, c[i].zx);
		ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 4, 1, 1, 1, 1, 10);
		progbuild_op(&p, NPU_OP_RESHAPE, ts, NPU_PROG_NONE, NPU_PROG_NONE, tb,
		      NPU_PROG_NONE, 0, 0);
		o = progbuild_op(&p, NPU_OP_AVGPOOL, tx, NPU_PROG_NONE,
			  NPU_PROG_NONE, ty, tq, 0, 255);
		progbuild_conv(o, 1, 1, 1, 1, 0, 0, 0, 0);
		progbuild_put32(wt_buf + 64, 0, c[i].m);
		progbuild_put32(wt_buf + 64, 1, c[i].s);
		progbuild_put32(wt_buf + 32, 0, Q30);
		progbuild_put32(wt_buf + 32, 1, 0);
		act_buf[0] = c[i].x;
		ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
		EXPECT_EQ(c[i].want, act_buf[64]) {
			TH_LOG("case %u", i);
		}
	}
}

TEST(output_may_overlap_inputs)
{
	/*
	 * TRANSPOSE in place: [[1,2],[3,4]] -> [[1,3],[2,4]]. Operands are
	 * read as a whole first; writing while reading would give
	 * [[1,3],[3,4]].
	 */
	static const uint8_t x[4] = { 1, 2, 3, 4 };
	static const uint8_t want[4] = { 1, 3, 2, 4 };
	struct progbuild p;
	uint16_t t;
	struct npu_prog_op *o;

	progbuild_init(&p);
	t = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 2, 2, 2, 1, 1, 0);
	o = progbuild_op(&p, NPU_OP_TRANSPOSE, t, NPU_PROG_NONE, NPU_PROG_NONE, t,
		  NPU_PROG_NONE, 0, 0);
	o->u.transpose.perm[0] = 1;
	o->u.transpose.perm[1] = 0;
	put_bytes(act_buf, x, 4);
	ASSERT_EQ(NPU_PROG_OK, run_prog(&p));
	EXPECT_EQ(0, memcmp(act_buf, want, 4));
}

TEST(err_program_placement)
{
	struct progbuild p;
	size_t n;

	base_prog(&p);
	/* program at offset 64 of slot 0: fine */
	n = progbuild_emit(&p, slot0 + 64);
	EXPECT_EQ(NPU_PROG_OK, npuref_run(slot0 + 64, n, slots, 3, 0,
					       &op_idx));
	/* prog_size runs past the slot: step 1, before the header */
	n = progbuild_emit(&p, slot0 + SLOT_SZ - 1024);
	((struct npu_prog_hdr *)(slot0 + SLOT_SZ - 1024))->magic = 0;
	EXPECT_EQ(NPU_PROG_BAD_ADDRESS,
		  npuref_run(slot0 + SLOT_SZ - 1024, 1088, slots, 3, 0,
			     &op_idx));
	EXPECT_EQ(0xffff, op_idx);
	n = progbuild_emit(&p, slot0 + SLOT_SZ - 1024);
	/* a separate copy is not checked against the slot */
	EXPECT_EQ(NPU_PROG_OK,
		  npuref_run(slot0 + SLOT_SZ - 1024, n, slots, 3,
			     NPUREF_PROG_EXTERNAL, &op_idx));
}

TEST(api_misuse)
{
	struct progbuild p;
	size_t n;

	base_prog(&p);
	n = progbuild_emit(&p, slot0);
	EXPECT_EQ(-EINVAL, npuref_run(NULL, n, slots, 3, 0, &op_idx));
	EXPECT_EQ(-EINVAL, npuref_run(slot0, n, NULL, 3, 0, &op_idx));
	EXPECT_EQ(-EINVAL, npuref_run(slot0, n, slots, 0, 0, &op_idx));
	EXPECT_EQ(-EINVAL, npuref_run(slot0, n, slots, NPU_MAX_JOB_BUFS + 1,
				      0, &op_idx));
	EXPECT_EQ(-EINVAL, npuref_run(slot0, n, slots, 3, 3, &op_idx));
	/* op_index may be NULL */
	EXPECT_EQ(NPU_PROG_OK, npuref_run(slot0, n, slots, 3, 0, NULL));
	/* an empty program is valid */
	progbuild_init(&p);
	n = progbuild_emit(&p, slot0);
	EXPECT_EQ(NPU_PROG_OK, npuref_run(slot0, n, slots, 3, 0,
					       &op_idx));
}

TEST(program_overwritten_by_op_runs_as_copied)
{
	/*
	 * Op 0 (CLIP, zx 0 zy 0, act [0,0]) writes zeros over the whole
	 * program including op 1; op 1 still runs as it was read: CLIP of
	 * act_buf[0] = 77 -> act_buf[64] = 77.
	 */
	struct progbuild p;
	uint16_t tp, tz, tx, ty;
	size_t n;

	progbuild_init(&p);
	tz = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 512, 1, 512, 1, 1, 1, 0);
	tp = progbuild_tensor_at(&p, NPU_DT_U8, 0, 0, 0, 1, 512, 1, 1, 1, 0);
	tx = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 0, 1, 1, 1, 1, 1, 0);
	ty = progbuild_tensor_at(&p, NPU_DT_U8, 0, 1, 64, 1, 1, 1, 1, 1, 0);
	progbuild_op(&p, NPU_OP_CLIP, tz, NPU_PROG_NONE, NPU_PROG_NONE, tp,
	      NPU_PROG_NONE, 0, 0);
	progbuild_op(&p, NPU_OP_CLIP, tx, NPU_PROG_NONE, NPU_PROG_NONE, ty,
	      NPU_PROG_NONE, 0, 255);
	n = progbuild_emit(&p, slot0);
	ASSERT_LE(n, (size_t)512);
	act_buf[0] = 77;
	memset(act_buf + 512, 200, 512);
	ASSERT_EQ(NPU_PROG_OK, npuref_run(slot0, n, slots, 3, 0,
					       &op_idx));
	EXPECT_EQ(0, slot0[0]);
	EXPECT_EQ(77, act_buf[64]);
}

TEST_HARNESS_MAIN
