// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every operator of Documentation/npu/program.rst on small cases whose
 * results were computed by hand (the arithmetic is in the comments), run
 * through emu_prog_run() on the fast and on the generic path.
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "ops.h"
#include "program.h"
#include "npu_progbuild.h"

#define NONE NPU_PROG_NONE
#define PLAIN NPU_LAYOUT_PLAIN
#define C16 NPU_LAYOUT_NCHWC16

/* factor 1.0 as {multiplier, shift}: 2^30 * 2^(1 - 31) */
static const int32_t RQ_ONE[2] = { 1 << 30, 1 };
/* factor 0.5: 2^30 * 2^(0 - 31) */
static const int32_t RQ_HALF[2] = { 1 << 30, 0 };

static int run_ok(struct progbuild *b)
{
	uint16_t idx = 0;
	int st = progbuild_run(b, NULL, &idx);

	if (st != NPU_HW_STATUS_OK)
		fprintf(stderr, "# status %d op_index %u\n", st, idx);
	return st;
}

/* Run the program built by @build on both paths; outputs must agree. */
#define BOTH_PATHS(fast) for (int fast = 1; fast >= 0; fast--) \
	if (emu_ops_set_fast_path(fast), 1)

/*
 * CONV2D 1x1, per-tensor: x [1,1,2,2] zx 1, w [2,1,1,2] U8 zw 8,
 * bias {100, -3}, factor 0.5, zy 10, act [9, 255].
 *   x - zx: pixel0 {2, 4}, pixel1 {0, -1}; w - zw: co0 {2, 4}, co1 {-1, 1}
 *   acc(p0,c0) = 100 + 2*2 + 4*4 = 120 -> 60          -> 70
 *   acc(p0,c1) = -3 + 2*-1 + 4*1 = -1 -> srdhm(-1, 2^30):
 *       (-2^30 + 1 - 2^30) / 2^31 = -0.99.. -> 0       -> 10
 *   acc(p1,c0) = 100 + 0 - 4 = 96 -> 48                 -> 58
 *   acc(p1,c1) = -3 + 0 - 1 = -4 -> (-2^32 + 1 - 2^30) / 2^31
 *       = -2.49.. -> -2                                -> 8, act_min -> 9
 */
static void conv1x1_case(struct __test_metadata *_metadata, uint8_t ylayout)
{
	static const int32_t xv[] = { 3, 5, 1, 0 }, wv[] = { 10, 12, 7, 9 };
	static const int32_t bv[] = { 100, -3 };
	uint16_t x, w, bias, rq, y;
	struct progbuild b;

	BOTH_PATHS(fast) {
		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
		x = progbuild_u8(&b, PLAIN, 4, 1, 1, 2, 2, 1);
		w = progbuild_tensor(&b, 1, NPU_DT_U8, PLAIN, 4, 2, 1, 1, 2, 8);
		bias = progbuild_bias(&b, 2, bv);
		rq = progbuild_rq(&b, 1, RQ_HALF);
		y = progbuild_u8(&b, ylayout, 4, 1, 1, 2, 2, 10);
		progbuild_fill(&b, x, xv);
		progbuild_fill(&b, w, wv);
		progbuild_conv_op(&b, NPU_OP_CONV2D, x, w, bias, y, rq, 1, 0)
			->act_min = 9;
		ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
		EXPECT_EQ(70, progbuild_get(&b, y, 0, 0, 0, 0));
		EXPECT_EQ(10, progbuild_get(&b, y, 0, 0, 0, 1));
		EXPECT_EQ(58, progbuild_get(&b, y, 0, 0, 1, 0));
		EXPECT_EQ(9, progbuild_get(&b, y, 0, 0, 1, 1));
		if (ylayout == C16) {
			/* padding lanes 2..15 of both pixels hold zy */
			uint8_t *d = progbuild_data(&b, y);

			for (int l = 2; l < 16; l++) {
				EXPECT_EQ(10, d[l]);
				EXPECT_EQ(10, d[16 + l]);
			}
		}
		progbuild_free(&b);
	}
}

TEST(conv2d_1x1_plain)
{
	conv1x1_case(_metadata, PLAIN);
}

TEST(conv2d_1x1_nchwc16)
{
	conv1x1_case(_metadata, C16);
}

/*
 * CONV2D 3x3, stride 2, padding 1: x [1,3,3,1] = 3..11 with zx 2, so
 * x - zx = 1..9; w [2,3,3,1] I8 zw 0, co0 all 1, co1 all -1; no bias,
 * factor 1.0, zy 50. OH = OW = (3 + 2 - 3) / 2 + 1 = 2. Padding counts as
 * zx, so each window sums the valid part of
 *     1 2 3
 *     4 5 6
 *     7 8 9
 *   (0,0): 1+2+4+5 = 12  (0,1): 2+3+5+6 = 16
 *   (1,0): 4+5+7+8 = 24  (1,1): 5+6+8+9 = 28
 * co0: 50 + s = 62 66 74 78; co1: 50 - s = 38 34 26 22.
 */
static void conv3x3_case(struct __test_metadata *_metadata, uint8_t xl,
			 uint8_t yl)
{
	static const int32_t exp0[4] = { 62, 66, 74, 78 };
	static const int32_t exp1[4] = { 38, 34, 26, 22 };
	uint16_t x, w, rq, y;
	struct progbuild b;
	int i, j, k;

	BOTH_PATHS(fast) {
		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
		x = progbuild_u8(&b, xl, 4, 1, 3, 3, 1, 2);
		w = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 4, 2, 3, 3, 1, 0);
		rq = progbuild_rq(&b, 1, RQ_ONE);
		y = progbuild_u8(&b, yl, 4, 1, 2, 2, 2, 50);
		for (i = 0; i < 3; i++)
			for (j = 0; j < 3; j++) {
				progbuild_set(&b, x, 0, i, j, 0, 3 + i * 3 + j);
				progbuild_set(&b, w, 0, i, j, 0, 1);
				progbuild_set(&b, w, 1, i, j, 0, -1);
			}
		progbuild_conv_op(&b, NPU_OP_CONV2D, x, w, NONE, y, rq, 2, 1);
		ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
		for (k = 0; k < 4; k++) {
			EXPECT_EQ(exp0[k], progbuild_get(&b, y, 0, k / 2, k % 2, 0));
			EXPECT_EQ(exp1[k], progbuild_get(&b, y, 0, k / 2, k % 2, 1));
		}
		progbuild_free(&b);
	}
}

TEST(conv2d_3x3_s2_pad_plain)
{
	conv3x3_case(_metadata, PLAIN, PLAIN);
}

TEST(conv2d_3x3_s2_pad_nchwc16)
{
	conv3x3_case(_metadata, C16, C16);
	conv3x3_case(_metadata, C16, PLAIN);
	conv3x3_case(_metadata, PLAIN, C16);
}

/*
 * CONV2D with asymmetric padding (pt 0, pb 1, pl 1, pr 0), stride 1,
 * kernel 2x2 of ones, x [1,2,2,1] = {1,2;3,4}, zx 0, zy 0, factor 1.0:
 * OH = (2 + 0 + 1 - 2) + 1 = 2, OW = (2 + 1 + 0 - 2) + 1 = 2. The window
 * of (oh, ow) covers rows oh..oh+1 and columns ow-1..ow:
 *   (0,0): x00 + x10 = 1+3 = 4     (0,1): 1+2+3+4 = 10
 *   (1,0): x10 = 3                  (1,1): x10 + x11 = 3+4 = 7
 */
TEST(conv2d_asymmetric_padding)
{
	static const int32_t xv[] = { 1, 2, 3, 4 }, one[] = { 1, 1, 1, 1 };
	uint16_t x, w, rq, y;
	struct npu_prog_op *op;
	struct progbuild b;

	BOTH_PATHS(fast) {
		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
		x = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 1, 0);
		w = progbuild_tensor(&b, 1, NPU_DT_U8, PLAIN, 4, 1, 2, 2, 1, 0);
		rq = progbuild_rq(&b, 1, RQ_ONE);
		y = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 1, 0);
		progbuild_fill(&b, x, xv);
		progbuild_fill(&b, w, one);
		op = progbuild_conv_op(&b, NPU_OP_CONV2D, x, w, NONE, y, rq, 1, 0);
		op->u.conv.pb = 1;
		op->u.conv.pl = 1;
		ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
		EXPECT_EQ(4, progbuild_get(&b, y, 0, 0, 0, 0));
		EXPECT_EQ(10, progbuild_get(&b, y, 0, 0, 1, 0));
		EXPECT_EQ(3, progbuild_get(&b, y, 0, 1, 0, 0));
		EXPECT_EQ(7, progbuild_get(&b, y, 0, 1, 1, 0));
		progbuild_free(&b);
	}
}

/*
 * DWCONV2D 2x2, per-channel: x [1,2,2,2] zx 0, channel 0 = {1,2;3,4},
 * channel 1 = {10,20;30,40}; w [1,2,2,2] I8 zw 0, channel 0 all 1,
 * channel 1 = {1,0;0,-1}; bias {5, 0}; zy 128; OH = OW = 1.
 *   c0: 5 + 1+2+3+4 = 15, rq {2^30, 1} = x1.0        -> 15  -> 143
 *   c1: 10 - 40 = -30, rq {2^30, -1} = x0.25:
 *       srdhm(-30, 2^30) = (-30*2^30 + 1 - 2^30) / 2^31 = -15.49.. -> -15
 *       rdivpot(-15, 1): rem 1, thr 0 + 1 = 1, -8 + 0 = -8 -> 120
 */
TEST(dwconv2d_per_channel)
{
	static const int32_t pairs[] = { 1 << 30, 1, 1 << 30, -1 };
	static const int32_t bv[] = { 5, 0 };
	uint16_t x, w, bias, rq, y;
	struct progbuild b;

	BOTH_PATHS(fast) {
		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
		x = progbuild_u8(&b, C16, 4, 1, 2, 2, 2, 0);
		w = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 4, 1, 2, 2, 2, 0);
		bias = progbuild_bias(&b, 2, bv);
		rq = progbuild_rq(&b, 2, pairs);
		y = progbuild_u8(&b, PLAIN, 4, 1, 1, 1, 2, 128);
		for (int i = 0; i < 4; i++) {
			progbuild_set(&b, x, 0, i / 2, i % 2, 0, i + 1);
			progbuild_set(&b, x, 0, i / 2, i % 2, 1, 10 * (i + 1));
			progbuild_set(&b, w, 0, i / 2, i % 2, 0, 1);
		}
		progbuild_set(&b, w, 0, 0, 0, 1, 1);
		progbuild_set(&b, w, 0, 1, 1, 1, -1);
		progbuild_conv_op(&b, NPU_OP_DWCONV2D, x, w, bias, y, rq, 1, 0);
		ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
		EXPECT_EQ(143, progbuild_get(&b, y, 0, 0, 0, 0));
		EXPECT_EQ(120, progbuild_get(&b, y, 0, 0, 0, 1));
		progbuild_free(&b);
	}
}

/*
 * AVGPOOL 2x2, stride 2, pr 1: x [1,2,3,1] = {1,2,3;4,5,6}.
 * OH = (2 - 2) / 2 + 1 = 1, OW = (3 + 1 - 2) / 2 + 1 = 2.
 * zx 4: x - zx = {-3,-2,-1;0,1,2}
 *   (0,0): -3-2+0+1 = -4, cnt 4: (-4 - 2) / 4 = -1 (C division)
 *   (0,1): column 3 is padding: -1+2 = 1, cnt 2: (1 + 1) / 2 = 1
 * zy 10, no rq: {9, 11}; with rq x0.5: requant(-1) = 0 (srdhm -0.5 -> 0),
 * requant(1) = (2^30 + 2^30) / 2^31 = 1: {10, 11}.
 */
static void avgpool_case(struct __test_metadata *_metadata, bool with_rq)
{
	static const int32_t xv[] = { 1, 2, 3, 4, 5, 6 };
	struct npu_prog_op *op;
	uint16_t x, y, rq;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 4, 1, 2, 3, 1, 4);
	y = progbuild_u8(&b, C16, 4, 1, 1, 2, 1, 10);
	rq = with_rq ? progbuild_rq(&b, 1, RQ_HALF) : NONE;
	progbuild_fill(&b, x, xv);
	op = progbuild_op(&b, NPU_OP_AVGPOOL, x, NONE, NONE, y, rq, 0, 255);
	op->u.conv.kh = op->u.conv.kw = 2;
	op->u.conv.sh = op->u.conv.sw = 2;
	op->u.conv.pr = 1;
	op->u.conv.dh = op->u.conv.dw = 1;
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	EXPECT_EQ(with_rq ? 10 : 9, progbuild_get(&b, y, 0, 0, 0, 0));
	EXPECT_EQ(11, progbuild_get(&b, y, 0, 0, 1, 0));
	EXPECT_EQ(10, progbuild_data(&b, y)[15]);	/* a padding lane */
	progbuild_free(&b);
}

TEST(avgpool)
{
	avgpool_case(_metadata, false);
	avgpool_case(_metadata, true);
}

/*
 * MAXPOOL with the same window: maxima 5 and 6 (the padding column is
 * not a candidate); zx 4, zy 10: 10 + 5 - 4 = 11, 10 + 6 - 4 = 12;
 * with act_max 11: {11, 11}.
 */
TEST(maxpool)
{
	static const int32_t xv[] = { 1, 2, 3, 4, 5, 6 };
	struct npu_prog_op *op;
	uint16_t x, y, y2;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, C16, 4, 1, 2, 3, 1, 4);
	y = progbuild_u8(&b, PLAIN, 4, 1, 1, 2, 1, 10);
	y2 = progbuild_u8(&b, PLAIN, 4, 1, 1, 2, 1, 10);
	progbuild_fill(&b, x, xv);
	for (int i = 0; i < 2; i++) {
		op = progbuild_op(&b, NPU_OP_MAXPOOL, x, NONE, NONE, i ? y2 : y, NONE,
			   0, i ? 11 : 255);
		op->u.conv.kh = op->u.conv.kw = 2;
		op->u.conv.sh = op->u.conv.sw = 2;
		op->u.conv.pr = 1;
		op->u.conv.dh = op->u.conv.dw = 1;
	}
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	EXPECT_EQ(11, progbuild_get(&b, y, 0, 0, 0, 0));
	EXPECT_EQ(12, progbuild_get(&b, y, 0, 0, 1, 0));
	EXPECT_EQ(11, progbuild_get(&b, y2, 0, 0, 0, 0));
	EXPECT_EQ(11, progbuild_get(&b, y2, 0, 0, 1, 0));
	progbuild_free(&b);
}

/*
 * "SAME" pools, 3x3, stride 1, padding 1 on x [1,2,2,1] = {1,2;3,4},
 * zx 0, zy 0: OH = OW = (2 + 2 - 3) + 1 = 2 and every window covers the
 * whole input (cnt 4, the rest is padding, below and right included):
 * AVGPOOL (10 + 2) / 4 = 3, MAXPOOL 4.
 */
TEST(pools_same_padding)
{
	static const int32_t xv[] = { 1, 2, 3, 4 };
	struct npu_prog_op *op;
	uint16_t x, y[2];
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 1, 0);
	progbuild_fill(&b, x, xv);
	for (int i = 0; i < 2; i++) {
		y[i] = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 1, 0);
		op = progbuild_op(&b, i ? NPU_OP_MAXPOOL : NPU_OP_AVGPOOL, x, NONE,
			   NONE, y[i], NONE, 0, 255);
		op->u.conv.kh = op->u.conv.kw = 3;
		op->u.conv.sh = op->u.conv.sw = 1;
		op->u.conv.pt = op->u.conv.pl = 1;
		op->u.conv.pb = op->u.conv.pr = 1;
		op->u.conv.dh = op->u.conv.dw = 1;
	}
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(3, progbuild_data(&b, y[0])[i]);
		EXPECT_EQ(4, progbuild_data(&b, y[1])[i]);
	}
	progbuild_free(&b);
}

/*
 * FC: x [2,3] = {1,2,3;4,5,6} zx 0; w [2,3] I8 = {1,0,-1;2,1,0} zw 0;
 * bias {0, 10}; factor 1.0; zy 5.
 *   m0: 1-3 = -2 -> 3;  2+2+10 = 14 -> 19
 *   m1: 4-6 = -2 -> 3;  8+5+10 = 23 -> 28
 * MATMUL with w^T [3,2] = {1,2;0,1;-1,0} gives the same.
 */
TEST(fc_and_matmul)
{
	static const int32_t xv[] = { 1, 2, 3, 4, 5, 6 };
	static const int32_t wv[] = { 1, 0, -1, 2, 1, 0 };
	static const int32_t wt[] = { 1, 2, 0, 1, -1, 0 };
	static const int32_t bv[] = { 0, 10 }, exp[] = { 3, 19, 3, 28 };
	uint16_t x, w, w2, bias, rq, y, y2;
	struct progbuild b;

	BOTH_PATHS(fast) {
		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
		x = progbuild_u8(&b, PLAIN, 2, 2, 3, 1, 1, 0);
		w = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 2, 2, 3, 1, 1, 0);
		w2 = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 2, 3, 2, 1, 1, 0);
		bias = progbuild_bias(&b, 2, bv);
		rq = progbuild_rq(&b, 1, RQ_ONE);
		y = progbuild_u8(&b, PLAIN, 2, 2, 2, 1, 1, 5);
		y2 = progbuild_u8(&b, PLAIN, 2, 2, 2, 1, 1, 5);
		progbuild_fill(&b, x, xv);
		progbuild_fill(&b, w, wv);
		progbuild_fill(&b, w2, wt);
		progbuild_op(&b, NPU_OP_FC, x, w, bias, y, rq, 0, 255);
		progbuild_op(&b, NPU_OP_MATMUL, x, w2, bias, y2, rq, 0, 255);
		ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
		for (int i = 0; i < 4; i++) {
			EXPECT_EQ(exp[i], progbuild_get(&b, y, i / 2, i % 2, 0, 0));
			EXPECT_EQ(exp[i], progbuild_get(&b, y2, i / 2, i % 2, 0, 0));
		}
		progbuild_free(&b);
	}
}

/*
 * ADD: x0 = {10, 20, 0, 255} z0 10, x1 = {1, 2, 3, 4} z1 0, r0 = r1 =
 * {2^30, 0} (x0.5), r2 = {2^30, -19}, zy 100.
 *   a = (x0 - z0) * 2^20 * 0.5 = (x0 - z0) * 2^19, b = x1 * 2^19 (exact)
 *   requant(a + b, r2) = rdivpot(((x0 - z0) + x1) * 2^18, 19)
 *                      = ((x0 - z0) + x1) / 2, rounded half away from 0
 *   (0+1)/2 = 0.5 -> 1; (10+2)/2 = 6; (-10+3)/2 = -3.5 -> -4;
 *   (245+4)/2 = 124.5 -> 125          => {101, 106, 96, 225}
 */
TEST(add)
{
	static const int32_t a[] = { 10, 20, 0, 255 }, c[] = { 1, 2, 3, 4 };
	static const int32_t pairs[] = { 1 << 30, 0, 1 << 30, 0, 1 << 30, -19 };
	static const int32_t exp[] = { 101, 106, 96, 225 };
	uint16_t x0, x1, rq, y;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x0 = progbuild_u8(&b, PLAIN, 4, 1, 1, 1, 4, 10);
	x1 = progbuild_u8(&b, C16, 4, 1, 1, 1, 4, 0);
	rq = progbuild_rq(&b, 3, pairs);
	y = progbuild_u8(&b, C16, 4, 1, 1, 1, 4, 100);
	progbuild_fill(&b, x0, a);
	progbuild_fill(&b, x1, c);
	progbuild_op(&b, NPU_OP_ADD, x0, x1, NONE, y, rq, 0, 255);
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(exp[i], progbuild_get(&b, y, 0, 0, 0, i));
	progbuild_free(&b);
}

/*
 * CLIP: x = {0, 5, 200} zx 5, zy 3: 3 + x - 5 = {-2, 3, 198}, saturated
 * {0, 3, 198}, then act [2, 100]: {2, 3, 100}. Relu (act [zy, 255]) of
 * the same: {3, 3, 198}.
 */
TEST(clip_and_relu)
{
	static const int32_t xv[] = { 0, 5, 200 };
	uint16_t x, y, y2;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 1, 3, 1, 1, 1, 5);
	y = progbuild_u8(&b, PLAIN, 1, 3, 1, 1, 1, 3);
	y2 = progbuild_u8(&b, PLAIN, 1, 3, 1, 1, 1, 3);
	progbuild_fill(&b, x, xv);
	progbuild_op(&b, NPU_OP_CLIP, x, NONE, NONE, y, NONE, 2, 100);
	progbuild_op(&b, NPU_OP_CLIP, x, NONE, NONE, y2, NONE, 3, 255);
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	EXPECT_EQ(2, progbuild_get(&b, y, 0, 0, 0, 0));
	EXPECT_EQ(3, progbuild_get(&b, y, 1, 0, 0, 0));
	EXPECT_EQ(100, progbuild_get(&b, y, 2, 0, 0, 0));
	EXPECT_EQ(3, progbuild_get(&b, y2, 0, 0, 0, 0));
	EXPECT_EQ(3, progbuild_get(&b, y2, 1, 0, 0, 0));
	EXPECT_EQ(198, progbuild_get(&b, y2, 2, 0, 0, 0));
	progbuild_free(&b);
}

/*
 * PAD: x [1,1,2,1] = {7, 8} zp 1, before {0,1,1,0}, after {0,0,1,0}:
 * out [1,2,4,1] = {1,1,1,1; 1,7,8,1}.
 */
TEST(pad)
{
	static const int32_t exp[] = { 1, 1, 1, 1, 1, 7, 8, 1 };
	struct npu_prog_op *op;
	uint16_t x, y;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 4, 1, 1, 2, 1, 1);
	y = progbuild_u8(&b, C16, 4, 1, 2, 4, 1, 1);
	progbuild_set(&b, x, 0, 0, 0, 0, 7);
	progbuild_set(&b, x, 0, 0, 1, 0, 8);
	memset(progbuild_data(&b, y), 0xee, b.t[y].dims[1] * b.t[y].dims[2] * 16);
	op = progbuild_op(&b, NPU_OP_PAD, x, NONE, NONE, y, NONE, 0, 0);
	op->u.pad.before[1] = 1;
	op->u.pad.before[2] = 1;
	op->u.pad.after[2] = 1;
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(exp[i], progbuild_get(&b, y, 0, i / 4, i % 4, 0));
	/* padding lanes were 0xee and now hold the zero point */
	EXPECT_EQ(1, progbuild_data(&b, y)[7 * 16 + 15]);
	progbuild_free(&b);
}

/*
 * RESHAPE PLAIN [6] = 1..6 -> NCHWC16 [1,1,2,3]: pixel w=0 holds lanes
 * {1,2,3}, pixel w=1 {4,5,6}, lanes 3..15 the zero point 9; and back to
 * PLAIN [2,3] = {1,2,3;4,5,6}.
 */
TEST(reshape_converts_layout)
{
	static const int32_t xv[] = { 1, 2, 3, 4, 5, 6 };
	uint16_t x, y, z;
	uint8_t *d;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 1, 6, 1, 1, 1, 9);
	y = progbuild_u8(&b, C16, 4, 1, 1, 2, 3, 9);
	z = progbuild_u8(&b, PLAIN, 2, 2, 3, 1, 1, 9);
	progbuild_fill(&b, x, xv);
	progbuild_op(&b, NPU_OP_RESHAPE, x, NONE, NONE, y, NONE, 0, 0);
	progbuild_op(&b, NPU_OP_RESHAPE, y, NONE, NONE, z, NONE, 0, 0);
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	d = progbuild_data(&b, y);
	EXPECT_EQ(1, d[0]);
	EXPECT_EQ(3, d[2]);
	EXPECT_EQ(9, d[3]);
	EXPECT_EQ(9, d[15]);
	EXPECT_EQ(4, d[16]);
	EXPECT_EQ(6, d[18]);
	EXPECT_EQ(9, d[31]);
	d = progbuild_data(&b, z);
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(i + 1, d[i]);
	progbuild_free(&b);
}

/*
 * TRANSPOSE [2,3] = {1,2,3;4,5,6} with perm {1,0} -> [3,2] =
 * {1,4;2,5;3,6}; and NHWC [1,2,1,3] -> NCHW [1,3,2,1] with perm
 * {0,3,1,2}: out(0,c,h,0) = in(0,h,0,c).
 */
TEST(transpose)
{
	static const int32_t xv[] = { 1, 2, 3, 4, 5, 6 };
	static const int32_t exp[] = { 1, 4, 2, 5, 3, 6 };
	struct npu_prog_op *op;
	uint16_t x, y, x4, y4;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 2, 2, 3, 1, 1, 0);
	y = progbuild_u8(&b, PLAIN, 2, 3, 2, 1, 1, 0);
	x4 = progbuild_u8(&b, C16, 4, 1, 2, 1, 3, 0);
	y4 = progbuild_u8(&b, PLAIN, 4, 1, 3, 2, 1, 0);
	progbuild_fill(&b, x, xv);
	progbuild_fill(&b, x4, xv);
	op = progbuild_op(&b, NPU_OP_TRANSPOSE, x, NONE, NONE, y, NONE, 0, 0);
	op->u.transpose.perm[0] = 1;
	op->u.transpose.perm[1] = 0;
	op = progbuild_op(&b, NPU_OP_TRANSPOSE, x4, NONE, NONE, y4, NONE, 0, 0);
	op->u.transpose.perm[0] = 0;
	op->u.transpose.perm[1] = 3;
	op->u.transpose.perm[2] = 1;
	op->u.transpose.perm[3] = 2;
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	for (int i = 0; i < 6; i++) {
		EXPECT_EQ(exp[i], progbuild_data(&b, y)[i]);
		/* y4 row-major (c, h): in(h, c) = 1 + 3h + c */
		EXPECT_EQ(1 + 3 * (i % 2) + i / 2, progbuild_data(&b, y4)[i]);
	}
	progbuild_free(&b);
}

/* SLICE [3,4] = 0..11, begin {1,1}, out [2,2] = {5,6;9,10}. */
TEST(slice)
{
	static const int32_t exp[] = { 5, 6, 9, 10 };
	struct npu_prog_op *op;
	uint16_t x, y;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 2, 3, 4, 1, 1, 0);
	y = progbuild_u8(&b, PLAIN, 2, 2, 2, 1, 1, 0);
	for (int i = 0; i < 12; i++)
		progbuild_data(&b, x)[i] = (uint8_t)i;
	op = progbuild_op(&b, NPU_OP_SLICE, x, NONE, NONE, y, NONE, 0, 0);
	op->u.slice.begin[0] = 1;
	op->u.slice.begin[1] = 1;
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(exp[i], progbuild_data(&b, y)[i]);
	progbuild_free(&b);
}

/*
 * CONCAT on axis 1: a [2,1] = {1;2}, b [2,2] = {3,4;5,6}, c [2,1] = {7;8}
 * -> [2,4] = {1,3,4,7; 2,5,6,8}. Along C of NCHWC16 tensors crossing a
 * block: [1,1,1,10] + [1,1,1,10] -> [1,1,1,20] (lanes 0-9, 10-19).
 */
TEST(concat)
{
	static const int32_t av[] = { 1, 2 }, bv[] = { 3, 4, 5, 6 };
	static const int32_t cv[] = { 7, 8 };
	static const int32_t exp[] = { 1, 3, 4, 7, 2, 5, 6, 8 };
	uint16_t a, b2, c, y, p, q, r;
	struct npu_prog_op *op;
	struct progbuild b;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	a = progbuild_u8(&b, PLAIN, 2, 2, 1, 1, 1, 0);
	b2 = progbuild_u8(&b, PLAIN, 2, 2, 2, 1, 1, 0);
	c = progbuild_u8(&b, PLAIN, 2, 2, 1, 1, 1, 0);
	y = progbuild_u8(&b, PLAIN, 2, 2, 4, 1, 1, 0);
	p = progbuild_u8(&b, C16, 4, 1, 1, 1, 10, 0);
	q = progbuild_u8(&b, PLAIN, 4, 1, 1, 1, 10, 0);
	r = progbuild_u8(&b, C16, 4, 1, 1, 1, 20, 0);
	progbuild_fill(&b, a, av);
	progbuild_fill(&b, b2, bv);
	progbuild_fill(&b, c, cv);
	for (int i = 0; i < 10; i++) {
		progbuild_set(&b, p, 0, 0, 0, i, 100 + i);
		progbuild_set(&b, q, 0, 0, 0, i, 200 + i);
	}
	op = progbuild_op(&b, NPU_OP_CONCAT, a, b2, c, y, NONE, 0, 0);
	op->u.concat.axis = 1;
	op = progbuild_op(&b, NPU_OP_CONCAT, p, q, NONE, r, NONE, 0, 0);
	op->u.concat.axis = 3;
	ASSERT_EQ(NPU_HW_STATUS_OK, run_ok(&b));
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(exp[i], progbuild_data(&b, y)[i]);
	for (int i = 0; i < 10; i++) {
		EXPECT_EQ(100 + i, progbuild_get(&b, r, 0, 0, 0, i));
		EXPECT_EQ(200 + i, progbuild_get(&b, r, 0, 0, 0, 10 + i));
	}
	EXPECT_EQ(0, progbuild_data(&b, r)[16 + 4]);	/* padding lane */
	progbuild_free(&b);
}

/*
 * int32 accumulation wraps: FC with K = 70000, x - zx = 255 and
 * w - zw = 255 everywhere: 70000 * 65025 = 4551750000 = 2^32 + 256782704,
 * so acc = 256782704 (the fast path flushes its int32 partial sums into
 * wrapping totals; the generic path wraps directly).
 */
TEST(accumulator_wraps)
{
	const uint32_t k = 70000;
	struct emu_tensor x = { 0 }, w = { 0 };
	int32_t acc = 0;

	x.data = malloc(k);
	w.data = malloc(k);
	ASSERT_NE(NULL, x.data);
	ASSERT_NE(NULL, w.data);
	memset(x.data, 255, k);
	memset(w.data, 255, k);
	x.dtype = w.dtype = NPU_DT_U8;
	x.layout = w.layout = NPU_LAYOUT_PLAIN;
	x.ndim = w.ndim = 2;
	x.esize = w.esize = 1;
	x.dims[0] = 1;
	x.dims[1] = k;
	w.dims[0] = 1;
	w.dims[1] = k;
	x.dims[2] = x.dims[3] = w.dims[2] = w.dims[3] = 1;
	x.count = x.bytes = w.count = w.bytes = k;
	BOTH_PATHS(fast) {
		acc = 0;
		ASSERT_EQ(0, emu_matmul_acc(&x, &w, false, &acc));
		EXPECT_EQ(256782704, acc);
	}
	free(x.data);
	free(w.data);
}

TEST_HARNESS_MAIN
