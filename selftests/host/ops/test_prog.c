// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program interpreter: every status of program.rst with the right
 * op_index, malformed headers, out-of-slot and overflowing tensors,
 * programs changed while they run (the device works on its copy), hooks
 * and the cost model, overlapping operands, the requantization arithmetic
 * at its edges, and the fast paths against the generic ones.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "ops.h"
#include "program.h"
#include "npu_progbuild.h"

#define NONE NPU_PROG_NONE
#define PLAIN NPU_LAYOUT_PLAIN
#define C16 NPU_LAYOUT_NCHWC16

static const int32_t RQ_ONE[2] = { 1 << 30, 1 };

/* ------------------------------------------------------------------ */
/* requantization                                                      */

TEST(requant_hand_values)
{
	/* x0.5: 10 -> 5; 11 -> 5.5 -> 6; -11 -> -5.5: srdhm gives
	 * (-11*2^30 + 1 - 2^30) / 2^31 = -5.99.. -> -5 (C division) */
	EXPECT_EQ(5, emu_requant(10, 1 << 30, 0));
	EXPECT_EQ(6, emu_requant(11, 1 << 30, 0));
	EXPECT_EQ(-5, emu_requant(-11, 1 << 30, 0));
	/* x(1 - 2^-31) then /2: srdhm(5) = 5, rdivpot(5, 1): rem 1 > thr 0
	 * -> 3; srdhm(-5) = -5, rdivpot(-5, 1): rem 1, thr 1 -> -3 + 0 */
	EXPECT_EQ(3, emu_requant(5, INT32_MAX, -1));
	EXPECT_EQ(-3, emu_requant(-5, INT32_MAX, -1));
	/* left shift: 3 << 2 = 12, x0.5 -> 6 */
	EXPECT_EQ(6, emu_requant(3, 1 << 30, 2));
	/* 2^30 << 1 saturates to INT32_MAX; srdhm(INT32_MAX, INT32_MAX) =
	 * ((2^31-1)^2 + 2^30) / 2^31 = 2^31 - 2 + 0.50.. -> 2147483646 */
	EXPECT_EQ(2147483646, emu_requant(1 << 30, INT32_MAX, 1));
	/* ... and rdivpot(2147483646, 31): rem > 2^30 - 1 -> 0 + 1 */
	EXPECT_EQ(1, emu_requant(INT32_MAX, INT32_MAX, -31));
	/* negative saturation on the left shift: INT32_MIN * 0.5 */
	EXPECT_EQ(-(1 << 30), emu_requant(-(1ll << 40), 1 << 30, 0));
	EXPECT_EQ(INT32_MAX, emu_srdhm(INT32_MIN, INT32_MIN));
	EXPECT_EQ(0, emu_requant(12345, 0, 5));
}

/* the vectorized form equals the literal one */
TEST(requant32_equals_requant)
{
	static const int32_t xs[] = { 0, 1, -1, 2, -2, 3, 255, -255, 65025,
		1 << 20, -(1 << 20), INT32_MAX, INT32_MIN, INT32_MAX - 1,
		INT32_MIN + 1, 1 << 30, -(1 << 30), 12345678, -12345678 };
	static const int32_t ms[] = { 0, 1, 2, 1 << 30, (1 << 30) + 1,
		INT32_MAX, INT32_MAX - 1, 1 << 29, 1518500250, 1073741823 };
	uint64_t st = 0x9e3779b97f4a7c15ull;
	unsigned int i, j, n;
	int32_t s;

	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		for (j = 0; j < sizeof(ms) / sizeof(ms[0]); j++)
			for (s = -31; s <= 30; s++)
				ASSERT_EQ(emu_requant(xs[i], ms[j], s),
					  emu_requant32(xs[i], ms[j], s));
	for (n = 0; n < 2000000; n++) {
		int32_t x, m;

		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		x = (int32_t)(uint32_t)st;
		if (n & 1)
			x >>= (st >> 32) % 31;
		m = (int32_t)((st >> 32) & 0x7fffffff);
		s = (int32_t)((st >> 40) % 62) - 31;
		ASSERT_EQ(emu_requant(x, m, s), emu_requant32(x, m, s)) {
			TH_LOG("x %d m %d s %d", x, m, s);
		}
	}
}

/* ------------------------------------------------------------------ */
/* a small valid program to break in many ways                         */

/*
 * op0: CLIP x -> y; op1: CONV2D y (1x1, 2 -> 2) -> z. Returns tensor
 * indices through the builder: x 0, y 1, w 2, bias 3, rq 4, z 5.
 */
static uint8_t *base_z;	/* tensor 5's bytes, whatever the table says */

static void base_prog(struct progbuild *b)
{
	static const int32_t bv[] = { 1, 2 };

	progbuild_init_slots(b, 3, 1 << 16);
	progbuild_u8(b, PLAIN, 4, 1, 2, 2, 2, 0);				/* 0 */
	progbuild_u8(b, C16, 4, 1, 2, 2, 2, 0);				/* 1 */
	progbuild_tensor(b, 2, NPU_DT_I8, PLAIN, 4, 2, 1, 1, 2, 0);		/* 2 */
	progbuild_bias(b, 2, bv);						/* 3 */
	progbuild_rq(b, 1, RQ_ONE);						/* 4 */
	progbuild_u8(b, PLAIN, 4, 1, 2, 2, 2, 7);				/* 5 */
	progbuild_op(b, NPU_OP_CLIP, 0, NONE, NONE, 1, NONE, 0, 255);
	progbuild_conv_op(b, NPU_OP_CONV2D, 1, 2, 3, 5, 4, 1, 0);
	memset(progbuild_data(b, 0), 3, 8);
	memset(progbuild_data(b, 2), 1, 4);
	base_z = progbuild_data(b, 5);
}

/* run, expect @st and @idx, and expect z (written by op1) untouched */
#define EXPECT_RUN(b, st, idx) do {					\
	uint16_t _i = 0x1234;						\
	uint8_t _z[8];							\
	memcpy(_z, base_z, 8);						\
	progbuild_finish(b);						\
	EXPECT_EQ((st), progbuild_run_at((b), 0, 0, (b)->prog_size,	\
					 NULL, &_i));			\
	EXPECT_EQ((idx), _i);						\
	if ((st) != NPU_HW_STATUS_OK)					\
		EXPECT_EQ(0, memcmp(_z, base_z, 8));			\
} while (0)

TEST(base_program_runs)
{
	struct progbuild b;

	base_prog(&b);
	/* y = x = 3 everywhere; z = 7 + bias + 3*1 + 3*1 = {14, 15} */
	EXPECT_RUN(&b, NPU_HW_STATUS_OK, 0xffff);
	EXPECT_EQ(14, progbuild_get(&b, 5, 0, 1, 1, 0));
	EXPECT_EQ(15, progbuild_get(&b, 5, 0, 1, 1, 1));
	progbuild_free(&b);
}

/* a header field changed after progbuild_finish() */
static int run_hdr(struct progbuild *b, size_t off, const void *v, size_t n,
		   uint16_t *idx)
{
	progbuild_finish(b);
	memcpy(b->slots[0].base + off, v, n);
	return progbuild_run_at(b, 0, 0, b->prog_size, NULL,
			    idx);
}

TEST(malformed_headers)
{
	const uint32_t bad32[] = { 0, 0x12345678 };
	const uint16_t two = 2, sz31 = 31;
	uint32_t v;
	uint16_t idx;
	struct progbuild b;
	struct emu_prog_slot one;

	base_prog(&b);
	one.base = b.slots[0].base;
	one.size = b.slots[0].size;
#define HDR_BAD(field, ptr, n) do {					\
	idx = 0;							\
	EXPECT_EQ(NPU_HW_STATUS_BAD_PROGRAM,				\
		  run_hdr(&b, offsetof(struct npu_prog_hdr, field), ptr, n,\
			  &idx));					\
	EXPECT_EQ(0xffff, idx);						\
} while (0)
	HDR_BAD(magic, &bad32[1], 4);
	HDR_BAD(version, &two, 2);
	HDR_BAD(hdr_size, &sz31, 2);
	v = 1;
	HDR_BAD(rsvd, &v, 4);
	v = NPU_PROG_MAX_TENSORS + 1;
	HDR_BAD(n_tensors, &v, 4);
	v = NPU_PROG_MAX_OPS + 1;
	HDR_BAD(n_ops, &v, 4);
	v = sizeof(struct npu_prog_hdr) + 4;	/* not 8-byte aligned */
	HDR_BAD(tensors_off, &v, 4);
	v = 0xfffffff8;				/* table beyond size */
	HDR_BAD(ops_off, &v, 4);
	v = b.prog_size + 1;			/* size > prog_size */
	HDR_BAD(size, &v, 4);
	v = b.prog_size - 1;			/* ops table past size */
	HDR_BAD(size, &v, 4);
	(void)bad32[0];

	/* prog_size smaller than a header; program outside its slot */
	progbuild_finish(&b);
	EXPECT_EQ(NPU_HW_STATUS_BAD_PROGRAM,
		  progbuild_run_at(&b, 0, 0, 31, NULL, &idx));
	EXPECT_EQ(NPU_HW_STATUS_BAD_ADDRESS,
		  progbuild_run_at(&b, 0, b.slots[0].size - 16, 32,
			       NULL, &idx));
	EXPECT_EQ(NPU_HW_STATUS_BAD_ADDRESS,
		  progbuild_run_at(&b, 0, 0xfffffff0u, 0x20, NULL,
			       &idx));
	/* bad command-level arguments */
	EXPECT_EQ(NPU_HW_STATUS_BAD_CMD,
		  progbuild_run_at(&b, 3, 0, b.prog_size, NULL,
			       &idx));
	EXPECT_EQ(NPU_HW_STATUS_BAD_CMD,
		  emu_prog_run(&one, 0, 0, 0, b.prog_size, NULL, &idx));
	EXPECT_EQ(NPU_HW_STATUS_BAD_CMD,
		  emu_prog_run(NULL, 1, 0, 0, b.prog_size, NULL, &idx));
	/* an empty program is valid */
	b.nt = b.nop = 0;
	EXPECT_RUN(&b, NPU_HW_STATUS_OK, 0xffff);
	/* ... but not when size does not even cover the header */
	for (v = 0; v < sizeof(struct npu_prog_hdr); v += 8) {
		struct npu_prog_hdr *h = (struct npu_prog_hdr *)b.slots[0].base;

		progbuild_finish(&b);
		h->tensors_off = h->ops_off = 0;
		h->size = v;
		idx = 0;
		EXPECT_EQ(NPU_HW_STATUS_BAD_PROGRAM,
			  progbuild_run_at(&b, 0, 0, b.prog_size,
				       NULL, &idx));
		EXPECT_EQ(0xffff, idx);
	}
	progbuild_free(&b);
}

TEST(bad_tensors)
{
	struct progbuild b;

#define TENSOR_CASE(stmt, st) do {					\
	base_prog(&b);							\
	stmt;								\
	EXPECT_RUN(&b, st, 0xffff);					\
	progbuild_free(&b);							\
} while (0)
	/* field checks: BAD_PROGRAM */
	TENSOR_CASE(b.t[0].dtype = 0, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[0].dtype = 4, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[0].ndim = 0, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[0].ndim = 5, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[0].layout = 2, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[3].layout = C16, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE((b.t[1].ndim = 3, b.t[1].dims[3] = 1),
		    NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[0].dims[2] = 0, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[3].dims[1] = 2, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[0].zero_point = 256, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[0].zero_point = -1, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[2].zero_point = -129, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[3].zero_point = 1, NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE(b.t[5].rsvd = 1, NPU_HW_STATUS_BAD_PROGRAM);
	/* placement: BAD_ADDRESS */
	TENSOR_CASE(b.t[5].buf = 3, NPU_HW_STATUS_BAD_ADDRESS);
	TENSOR_CASE(b.t[5].offset = b.slots[1].size - 7,
		    NPU_HW_STATUS_BAD_ADDRESS);
	TENSOR_CASE(b.t[5].offset = 0xffffffff, NPU_HW_STATUS_BAD_ADDRESS);
	/* dims whose byte size overflows 64 bits */
	TENSOR_CASE((b.t[0].dims[0] = b.t[0].dims[1] = b.t[0].dims[2] =
		     b.t[0].dims[3] = 0xffffffff), NPU_HW_STATUS_BAD_ADDRESS);
	TENSOR_CASE((b.t[1].dims[0] = b.t[1].dims[1] = b.t[1].dims[2] =
		     0xffffffff), NPU_HW_STATUS_BAD_ADDRESS);
	/* alignment of an I32 tensor: MISALIGNED */
	TENSOR_CASE(b.t[3].offset += 2, NPU_HW_STATUS_MISALIGNED);
	/* both misaligned and outside: placement is checked first */
	TENSOR_CASE(b.t[3].offset = 0xfffffffe, NPU_HW_STATUS_BAD_ADDRESS);
	/* field errors come before placement errors of the same tensor,
	 * and tensor 0's error before tensor 5's */
	TENSOR_CASE((b.t[0].buf = 9, b.t[0].dtype = 9),
		    NPU_HW_STATUS_BAD_PROGRAM);
	TENSOR_CASE((b.t[0].buf = 9, b.t[5].dtype = 9),
		    NPU_HW_STATUS_BAD_ADDRESS);
	/* tensor errors come before operator errors */
	TENSOR_CASE((b.t[5].buf = 9, b.op[0].opcode = 99),
		    NPU_HW_STATUS_BAD_ADDRESS);
}

TEST(bad_operators)
{
	struct progbuild b;

#define OP_CASE(stmt, st, idx) do {					\
	base_prog(&b);							\
	stmt;								\
	EXPECT_RUN(&b, st, idx);					\
	progbuild_free(&b);							\
} while (0)
	OP_CASE(b.op[1].opcode = 0, NPU_HW_STATUS_BAD_OPCODE, 1);
	OP_CASE(b.op[1].opcode = NPU_OP_MAX + 1, NPU_HW_STATUS_BAD_OPCODE, 1);
	OP_CASE(b.op[0].opcode = 0xffff, NPU_HW_STATUS_BAD_OPCODE, 0);
	/* structure: BAD_PROGRAM */
	OP_CASE(b.op[1].flags = 1, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].rsvd = 1, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].u.conv.rsvd[29] = 1, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].in[0] = 6, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].in[1] = NONE, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].out = NONE, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].rq = NONE, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].rq = 6, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[0].in[1] = 0, NPU_HW_STATUS_BAD_PROGRAM, 0);
	/* CLIP ignores rq, whatever it holds; an optional bias may go */
	OP_CASE(b.op[0].rq = 999, NPU_HW_STATUS_OK, 0xffff);
	OP_CASE(b.op[1].in[2] = NONE, NPU_HW_STATUS_OK, 0xffff);
	/* shapes: BAD_SHAPE */
	OP_CASE(b.op[1].in[0] = 0, NPU_HW_STATUS_OK, 0xffff);	/* same shape */
	OP_CASE(b.t[5].dims[3] = 3, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[2].dims[3] = 1, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[2].layout = C16, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[2].dtype = NPU_DT_I32, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[3].dims[0] = 1, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[4].dims[0] = 6, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[4].dims[0] = 4, NPU_HW_STATUS_OK, 0xffff);	/* per-ch */
	OP_CASE(b.op[1].u.conv.dh = 0, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.op[1].u.conv.sw = 0, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.op[1].u.conv.sh = 2, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[5].dtype = NPU_DT_I8, NPU_HW_STATUS_BAD_SHAPE, 1);
	OP_CASE(b.t[1].dims[3] = 3, NPU_HW_STATUS_BAD_SHAPE, 0);
	/* values: BAD_PROGRAM */
	OP_CASE(b.op[1].act_min = 10, NPU_HW_STATUS_OK, 0xffff);
	OP_CASE((b.op[1].act_min = 10, b.op[1].act_max = 9),
		NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].act_max = 256, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(b.op[1].act_min = -1, NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(((int32_t *)progbuild_data(&b, 4))[0] = -1,
		NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(((int32_t *)progbuild_data(&b, 4))[1] = 31,
		NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(((int32_t *)progbuild_data(&b, 4))[1] = -32,
		NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE(((int32_t *)progbuild_data(&b, 4))[1] = -31, NPU_HW_STATUS_OK,
		0xffff);
	/* order inside one operator: structure, shapes, values */
	OP_CASE((b.op[1].flags = 1, b.t[5].dims[3] = 3),
		NPU_HW_STATUS_BAD_PROGRAM, 1);
	OP_CASE((b.op[1].act_max = 256, b.t[5].dims[3] = 3),
		NPU_HW_STATUS_BAD_SHAPE, 1);
	/* the first failing operator decides */
	OP_CASE((b.op[0].act_max = 256, b.op[1].opcode = 0),
		NPU_HW_STATUS_BAD_PROGRAM, 0);
}

/* shape rules of the other operators, one program each */
TEST(bad_shapes_per_operator)
{
	struct npu_prog_op *op;
	uint16_t x, y, idx;
	struct progbuild b;

#define SHAPE_CASE(setup, st) do {					\
	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));				\
	setup;								\
	EXPECT_EQ((st), progbuild_run(&b, NULL, &idx));			\
	progbuild_free(&b);							\
} while (0)
	/* pool window wholly in the padding (pt 2 >= kh 2) */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 4, 1, 4, 4, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 4, 1, 3, 3, 1, 0),
		    op = progbuild_op(&b, NPU_OP_MAXPOOL, x, NONE, NONE, y, NONE, 0,
			       255),
		    op->u.conv.kh = op->u.conv.kw = 2,
		    op->u.conv.sh = op->u.conv.sw = 2,
		    op->u.conv.pt = op->u.conv.pl = 2,
		    op->u.conv.dh = op->u.conv.dw = 1),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* same with pt 1: OH = (4 + 1 - 2) / 2 + 1 = 2 */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 4, 1, 4, 4, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 1, 0),
		    op = progbuild_op(&b, NPU_OP_MAXPOOL, x, NONE, NONE, y, NONE, 0,
			       255),
		    op->u.conv.kh = op->u.conv.kw = 2,
		    op->u.conv.sh = op->u.conv.sw = 2,
		    op->u.conv.pt = op->u.conv.pl = 1,
		    op->u.conv.dh = op->u.conv.dw = 1),
		   NPU_HW_STATUS_OK);
	/* conv kernel larger than the padded input */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 1, 0),
		    progbuild_tensor(&b, 1, NPU_DT_U8, PLAIN, 4, 1, 3, 3, 1, 0),
		    progbuild_rq(&b, 1, RQ_ONE),
		    y = progbuild_u8(&b, PLAIN, 4, 1, 1, 1, 1, 0),
		    progbuild_conv_op(&b, NPU_OP_CONV2D, x, 1, NONE, y, 2, 1, 0)),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* avgpool with a per-channel table (2 channels): BAD_SHAPE */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 4, 1, 1, 1, 2, 0),
		    y = progbuild_u8(&b, PLAIN, 4, 1, 1, 1, 2, 0),
		    progbuild_rq(&b, 2, (const int32_t[]){ 1 << 30, 1, 1 << 30, 1 }),
		    op = progbuild_op(&b, NPU_OP_AVGPOOL, x, NONE, NONE, y, 2, 0, 255),
		    op->u.conv.kh = op->u.conv.kw = 1,
		    op->u.conv.sh = op->u.conv.sw = 1,
		    op->u.conv.dh = op->u.conv.dw = 1),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* data movement: zero points differ */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 1),
		    progbuild_op(&b, NPU_OP_RESHAPE, x, NONE, NONE, y, NONE, 0, 0)),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* data movement of an I8 tensor: activations are U8 */
	SHAPE_CASE((x = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 1, 4, 1, 1, 1, 0),
		    progbuild_op(&b, NPU_OP_RESHAPE, x, NONE, NONE, y, NONE, 0, 0)),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* reshape changing the element count */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 2, 2, 3, 1, 1, 0),
		    progbuild_op(&b, NPU_OP_RESHAPE, x, NONE, NONE, y, NONE, 0, 0)),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* transpose with a repeated axis */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 2, 2, 2, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 2, 2, 2, 1, 1, 0),
		    op = progbuild_op(&b, NPU_OP_TRANSPOSE, x, NONE, NONE, y, NONE, 0,
			       0),
		    op->u.transpose.perm[0] = 1, op->u.transpose.perm[1] = 1),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* slice past the end; begin on an unused dim */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 2, 1, 1, 1, 0),
		    op = progbuild_op(&b, NPU_OP_SLICE, x, NONE, NONE, y, NONE, 0, 0),
		    op->u.slice.begin[0] = 3),
		   NPU_HW_STATUS_BAD_SHAPE);
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 2, 1, 1, 1, 0),
		    op = progbuild_op(&b, NPU_OP_SLICE, x, NONE, NONE, y, NONE, 0, 0),
		    op->u.slice.begin[2] = 1),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* slice begin near 2^32 must not wrap into range */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 2, 1, 1, 1, 0),
		    op = progbuild_op(&b, NPU_OP_SLICE, x, NONE, NONE, y, NONE, 0, 0),
		    op->u.slice.begin[0] = 0xffffffff),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* concat: wrong sum and axis out of range */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 7, 1, 1, 1, 0),
		    op = progbuild_op(&b, NPU_OP_CONCAT, x, x, NONE, y, NONE, 0, 0)),
		   NPU_HW_STATUS_BAD_SHAPE);
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 8, 1, 1, 1, 0),
		    op = progbuild_op(&b, NPU_OP_CONCAT, x, x, NONE, y, NONE, 0, 0),
		    op->u.concat.axis = 1),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* pad with a non-zero amount on an unused dim */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    op = progbuild_op(&b, NPU_OP_PAD, x, NONE, NONE, y, NONE, 0, 0),
		    op->u.pad.after[3] = 1),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* add with different dims, and with 2 pairs */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 2, 4, 1, 1, 1, 0),
		    progbuild_rq(&b, 3, (const int32_t[]){ 1, 0, 1, 0, 1, 0 }),
		    progbuild_op(&b, NPU_OP_ADD, x, x, NONE, y, 2, 0, 255)),
		   NPU_HW_STATUS_BAD_SHAPE);
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    y = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 0),
		    progbuild_rq(&b, 2, (const int32_t[]){ 1, 0, 1, 0 }),
		    progbuild_op(&b, NPU_OP_ADD, x, x, NONE, y, 2, 0, 255)),
		   NPU_HW_STATUS_BAD_SHAPE);
	/* fc on a 4-D input */
	SHAPE_CASE((x = progbuild_u8(&b, PLAIN, 4, 1, 1, 1, 4, 0),
		    progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 2, 2, 4, 1, 1, 0),
		    progbuild_rq(&b, 1, RQ_ONE),
		    y = progbuild_u8(&b, PLAIN, 2, 1, 2, 1, 1, 0),
		    progbuild_op(&b, NPU_OP_FC, x, 1, NONE, y, 2, 0, 255)),
		   NPU_HW_STATUS_BAD_SHAPE);
}

/* ------------------------------------------------------------------ */
/* hooks, cost model, the program copy                                 */

struct hook_log {
	struct progbuild *b;
	int abort_at;
	int begins, ends;
	struct emu_op_cost cost[8];
	int mutate;
};

static int hk_begin(void *arg, uint32_t i, const struct npu_prog_op *op,
		    const struct emu_op_cost *cost)
{
	struct hook_log *h = arg;
	struct npu_prog_hdr *hdr = (void *)h->b->slots[0].base;
	uint8_t *p = h->b->slots[0].base;

	(void)op;
	if (i < 8)
		h->cost[i] = *cost;
	h->begins++;
	if (h->mutate && i == 0) {
		/* the host rewrites the program while it runs: op1's output
		 * index, tensor 5's offset and the header's counts */
		struct npu_prog_op *ops = (void *)(p + hdr->ops_off);
		struct npu_prog_tensor *t = (void *)(p + hdr->tensors_off);

		ops[1].out = 0x7fff;
		ops[1].opcode = 0x99;
		t[5].offset = 0xfffffff0;
		t[5].buf = 11;
		hdr->n_ops = 1000;
	}
	return (int)i == h->abort_at;
}

static void hk_end(void *arg, uint32_t i, const struct npu_prog_op *op,
		   const struct emu_op_cost *cost)
{
	struct hook_log *h = arg;

	(void)i;
	(void)op;
	(void)cost;
	h->ends++;
}

TEST(hooks_abort_and_cost)
{
	struct hook_log h = { .abort_at = 1 };
	struct emu_prog_hooks hooks = { &h, hk_begin, hk_end };
	uint16_t idx = 0;
	struct progbuild b;

	base_prog(&b);
	h.b = &b;
	memset(progbuild_data(&b, 5), 0xaa, 8);
	EXPECT_EQ(NPU_HW_STATUS_ABORTED, progbuild_run(&b, &hooks, &idx));
	EXPECT_EQ(1, idx);
	EXPECT_EQ(2, h.begins);
	EXPECT_EQ(1, h.ends);
	/* op0 ran (y = 3 at a valid lane), op1 did not (z untouched) */
	EXPECT_EQ(3, progbuild_get(&b, 1, 0, 1, 1, 1));
	EXPECT_EQ(0xaa, progbuild_data(&b, 5)[7]);
	/* CLIP: macs = 8 elements; in = 8 bytes; out NCHWC16 [1,2,2,2] =
	 * 1 * 1 * 2 * 2 * 16 = 64 bytes */
	EXPECT_EQ(8, h.cost[0].macs);
	EXPECT_EQ(8, h.cost[0].in_bytes);
	EXPECT_EQ(0, h.cost[0].w_bytes);
	EXPECT_EQ(64, h.cost[0].out_bytes);
	/* CONV2D 1x1 2->2 on 2x2: macs = 1*2*2*2*1*1*2 = 16; in 64 (the
	 * NCHWC16 input); w = 4 weights + 8 bias + 8 table = 20; out 8 */
	EXPECT_EQ(16, h.cost[1].macs);
	EXPECT_EQ(64, h.cost[1].in_bytes);
	EXPECT_EQ(20, h.cost[1].w_bytes);
	EXPECT_EQ(8, h.cost[1].out_bytes);
	progbuild_free(&b);
}

/*
 * Cost of each operator kind (program.rst, "Cost model"), by hand:
 * op0 FC x [2,3] (6 B), w [4,3] I8 (12 B), bias [4] (16 B), 1 pair (8 B),
 *     y [2,4] (8 B): macs M*N*K = 2*4*3 = 24, in 6, w 36, out 8
 * op1 DWCONV2D x NCHWC16 [1,4,4,3] (1*1*4*4*16 = 256 B), w [1,3,3,3] (27 B),
 *     3 pairs (24 B), pad 1 -> y [1,4,4,3] (48 B):
 *     macs 1*4*4*3*3*3 = 432, in 256, w 51, out 48
 * op2 AVGPOOL 2x2 s2 of op1's y -> NCHWC16 [1,2,2,3] (64 B), 1 pair:
 *     macs 1*2*2*3*2*2 = 48, in 48, w 8, out 64
 * op3 ADD op2's y (64 B) + PLAIN [1,2,2,3] (12 B) -> [1,2,2,3] (12 B),
 *     3 pairs (24 B): macs 12, in 76, w 24, out 12
 * op4 CONCAT two PLAIN [1,2,2,3] on axis 3 -> NCHWC16 [1,2,2,6] (64 B):
 *     macs 0, in 24, w 0, out 64
 */
TEST(cost_model_per_operator)
{
	static const int32_t p3[] = { 1 << 30, 1, 1 << 30, 1, 1 << 30, 1 };
	static const int32_t bias4[] = { 0, 0, 0, 0 };
	static const uint64_t exp[5][4] = {
		{ 24, 6, 36, 8 }, { 432, 256, 51, 48 }, { 48, 48, 8, 64 },
		{ 12, 76, 24, 12 }, { 0, 24, 0, 64 },
	};
	struct hook_log h = { .abort_at = -1 };
	struct emu_prog_hooks hooks = { &h, hk_begin, hk_end };
	uint16_t x, w, bi, r1, r3, y0, dx, dw, dy, py, ax, ay, cy, idx;
	struct npu_prog_op *op;
	struct progbuild b;
	int i;

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	h.b = &b;
	x = progbuild_u8(&b, PLAIN, 2, 2, 3, 1, 1, 0);
	w = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 2, 4, 3, 1, 1, 0);
	bi = progbuild_bias(&b, 4, bias4);
	r1 = progbuild_rq(&b, 1, RQ_ONE);
	r3 = progbuild_rq(&b, 3, p3);
	y0 = progbuild_u8(&b, PLAIN, 2, 2, 4, 1, 1, 0);
	progbuild_op(&b, NPU_OP_FC, x, w, bi, y0, r1, 0, 255);
	dx = progbuild_u8(&b, C16, 4, 1, 4, 4, 3, 0);
	dw = progbuild_tensor(&b, 1, NPU_DT_U8, PLAIN, 4, 1, 3, 3, 3, 0);
	dy = progbuild_u8(&b, PLAIN, 4, 1, 4, 4, 3, 0);
	progbuild_conv_op(&b, NPU_OP_DWCONV2D, dx, dw, NONE, dy, r3, 1, 1);
	py = progbuild_u8(&b, C16, 4, 1, 2, 2, 3, 0);
	op = progbuild_op(&b, NPU_OP_AVGPOOL, dy, NONE, NONE, py, r1, 0, 255);
	op->u.conv.kh = op->u.conv.kw = 2;
	op->u.conv.sh = op->u.conv.sw = 2;
	op->u.conv.dh = op->u.conv.dw = 1;
	ax = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 3, 0);
	ay = progbuild_u8(&b, PLAIN, 4, 1, 2, 2, 3, 0);
	progbuild_op(&b, NPU_OP_ADD, py, ax, NONE, ay, r3, 0, 255);
	cy = progbuild_u8(&b, C16, 4, 1, 2, 2, 6, 0);
	op = progbuild_op(&b, NPU_OP_CONCAT, ax, ay, NONE, cy, NONE, 0, 0);
	op->u.concat.axis = 3;
	ASSERT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, &hooks, &idx));
	ASSERT_EQ(5, h.ends);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(exp[i][0], h.cost[i].macs);
		EXPECT_EQ(exp[i][1], h.cost[i].in_bytes);
		EXPECT_EQ(exp[i][2], h.cost[i].w_bytes);
		EXPECT_EQ(exp[i][3], h.cost[i].out_bytes);
	}
	progbuild_free(&b);
}

TEST(program_changed_while_running)
{
	struct hook_log h = { .abort_at = -1, .mutate = 1 };
	struct emu_prog_hooks hooks = { &h, hk_begin, hk_end };
	uint16_t idx = 0;
	struct progbuild b;

	base_prog(&b);
	h.b = &b;
	/* the device runs what it checked: both ops, z as before */
	EXPECT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, &hooks, &idx));
	EXPECT_EQ(2, h.ends);
	EXPECT_EQ(14, progbuild_get(&b, 5, 0, 1, 1, 0));
	EXPECT_EQ(15, progbuild_get(&b, 5, 0, 1, 1, 1));
	progbuild_free(&b);
}

/*
 * An earlier operator overwrites a later one's requantization table with
 * 0xff bytes: multiplier -1 -> 0 and shift -1 -> clamped, as program.rst
 * says: requant(acc, 0, -1) = 0, so z = zy = 7.
 */
TEST(rq_table_overwritten_by_earlier_op)
{
	struct npu_prog_op tmp;
	uint16_t idx, src, dst;
	struct progbuild b;

	base_prog(&b);
	src = progbuild_u8(&b, PLAIN, 1, 8, 1, 1, 1, 0);
	memset(progbuild_data(&b, src), 0xff, 8);
	/* a U8 view of the table's 8 bytes */
	dst = progbuild_tensor(&b, 0, NPU_DT_U8, PLAIN, 1, 8, 1, 1, 1, 0);
	b.t[dst].offset = b.t[4].offset;
	/* put the overwrite first: move CLIP and CONV2D down */
	progbuild_op(&b, NPU_OP_RESHAPE, src, NONE, NONE, dst, NONE, 0, 0);
	tmp = b.op[2];
	b.op[2] = b.op[1];
	b.op[1] = b.op[0];
	b.op[0] = tmp;
	ASSERT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, NULL, &idx));
	EXPECT_EQ(-1, ((int32_t *)progbuild_data(&b, 4))[0]);
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(7, progbuild_data(&b, 5)[i]);
	progbuild_free(&b);
}

/* ------------------------------------------------------------------ */
/* overlapping operands                                                */

/* in-place CLIP, and a conv whose output overlaps its input */
TEST(output_overlaps_input)
{
	static const int32_t xv[] = { 0, 5, 200, 9 };
	uint16_t x, y, idx;
	struct progbuild b;
	uint8_t ref[64];

	ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
	x = progbuild_u8(&b, PLAIN, 1, 4, 1, 1, 1, 5);
	progbuild_fill(&b, x, xv);
	progbuild_op(&b, NPU_OP_CLIP, x, NONE, NONE, x, NONE, 2, 100);
	ASSERT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, NULL, &idx));
	/* 5 + x - 5 = x, clamped to [2, 100] */
	EXPECT_EQ(2, progbuild_data(&b, x)[0]);
	EXPECT_EQ(5, progbuild_data(&b, x)[1]);
	EXPECT_EQ(100, progbuild_data(&b, x)[2]);
	EXPECT_EQ(9, progbuild_data(&b, x)[3]);
	progbuild_free(&b);

	/* 3x3 conv, output shifted 5 bytes into the input: the result must
	 * be the one computed from the unmodified input */
	for (int overlap = 0; overlap < 2; overlap++) {
		uint16_t w, rq;

		ASSERT_EQ(0, progbuild_init_slots(&b, 2, 1 << 16));
		x = progbuild_u8(&b, PLAIN, 4, 1, 4, 4, 4, 3);
		w = progbuild_tensor(&b, 1, NPU_DT_I8, PLAIN, 4, 4, 3, 3, 4, 1);
		rq = progbuild_rq(&b, 1, RQ_ONE);
		y = progbuild_u8(&b, PLAIN, 4, 1, 4, 4, 4, 100);
		for (int i = 0; i < 64; i++)
			progbuild_data(&b, x)[i] = (uint8_t)(i * 7);
		for (int i = 0; i < 144; i++)
			progbuild_data(&b, w)[i] = (uint8_t)(i * 5 - 70);
		if (overlap)
			b.t[y].offset = b.t[x].offset + 5;
		progbuild_conv_op(&b, NPU_OP_CONV2D, x, w, NONE, y, rq, 1, 1);
		ASSERT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, NULL, &idx));
		if (!overlap)
			memcpy(ref, progbuild_data(&b, y), 64);
		else
			EXPECT_EQ(0, memcmp(ref, progbuild_data(&b, y), 64));
		progbuild_free(&b);
	}
}

/* ------------------------------------------------------------------ */
/* fast paths against the generic ones                                 */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint32_t rr(uint64_t *s, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd(s) % (hi - lo + 1));
}

/* a random CONV2D/DWCONV2D/FC/MATMUL program; returns the output index */
static uint16_t rand_prog(struct progbuild *b, uint64_t *s)
{
	uint32_t kind = rr(s, 0, 3), n = rr(s, 1, 2), h = rr(s, 1, 9);
	uint32_t w = rr(s, 1, 11), c = rr(s, 1, 40), co = rr(s, 1, 37);
	uint32_t kh = rr(s, 1, 4), kw = rr(s, 1, 4), i, pairs;
	uint8_t wdt = rr(s, 0, 1) ? NPU_DT_I8 : NPU_DT_U8;
	uint16_t x, wt, bias = NONE, rq, y;
	struct npu_prog_op *op;
	int32_t *tab;
	uint64_t bytes;

	progbuild_init_slots(b, 3, 1 << 18);
	if (kind >= 2) {	/* FC / MATMUL: [M, K] x [N, K] or [K, N] */
		x = progbuild_u8(b, PLAIN, 2, h * w, c, 1, 1, rr(s, 0, 255));
		wt = kind == 2 ?
		     progbuild_tensor(b, 2, wdt, PLAIN, 2, co, c, 1, 1, 0) :
		     progbuild_tensor(b, 2, wdt, PLAIN, 2, c, co, 1, 1, 0);
		y = progbuild_u8(b, PLAIN, 2, h * w, co, 1, 1, rr(s, 0, 255));
	} else {
		uint32_t sh = rr(s, 1, 3), sw = rr(s, 1, 3);
		uint32_t pt = rr(s, 0, 2), pl = rr(s, 0, 2);
		uint32_t pb = rr(s, 0, 2), pr = rr(s, 0, 2), oh, ow;

		if (h + pt + pb < kh)
			pb += kh;
		if (w + pl + pr < kw)
			pr += kw;
		oh = (h + pt + pb - kh) / sh + 1;
		ow = (w + pl + pr - kw) / sw + 1;
		if (kind == 1)
			co = c;
		x = progbuild_u8(b, rr(s, 0, 1), 4, n, h, w, c, rr(s, 0, 255));
		wt = progbuild_tensor(b, 2, wdt, PLAIN, 4, kind ? 1 : co, kh, kw, c,
			       0);
		y = progbuild_u8(b, rr(s, 0, 1), 4, n, oh, ow, co, rr(s, 0, 255));
		b->t[wt].zero_point = wdt == NPU_DT_I8 ? (int32_t)rr(s, 0, 255) - 128 :
				      (int32_t)rr(s, 0, 255);
		bytes = progbuild_bytes(&b->t[x]);
		for (i = 0; i < bytes; i++)
			progbuild_data(b, x)[i] = (uint8_t)rnd(s);
		bytes = progbuild_bytes(&b->t[wt]);
		for (i = 0; i < bytes; i++)
			progbuild_data(b, wt)[i] = (uint8_t)rnd(s);
		pairs = rr(s, 0, 1) ? co : 1;
		tab = malloc(8ull * pairs);
		for (i = 0; i < pairs; i++) {
			tab[2 * i] = (int32_t)(rnd(s) & 0x7fffffff);
			tab[2 * i + 1] = (int32_t)rr(s, 0, 20) - 18;
		}
		rq = progbuild_rq(b, pairs, tab);
		free(tab);
		if (rr(s, 0, 1)) {
			tab = malloc(4ull * co);
			for (i = 0; i < co; i++)
				tab[i] = (int32_t)rnd(s);
			bias = progbuild_bias(b, co, tab);
			free(tab);
		}
		op = progbuild_conv_op(b, kind ? NPU_OP_DWCONV2D : NPU_OP_CONV2D, x,
				wt, bias, y, rq, 1, 0);
		progbuild_conv(op, 0, 0, sh, sw, pt, pl, pb, pr);
		op->act_min = rr(s, 0, 100);
		op->act_max = rr(s, op->act_min, 255);
		return y;
	}
	b->t[wt].zero_point = wdt == NPU_DT_I8 ? (int32_t)rr(s, 0, 255) - 128 :
			      (int32_t)rr(s, 0, 255);
	bytes = progbuild_bytes(&b->t[x]);
	for (i = 0; i < bytes; i++)
		progbuild_data(b, x)[i] = (uint8_t)rnd(s);
	bytes = progbuild_bytes(&b->t[wt]);
	for (i = 0; i < bytes; i++)
		progbuild_data(b, wt)[i] = (uint8_t)rnd(s);
	pairs = rr(s, 0, 1) ? co : 1;
	tab = malloc(8ull * pairs);
	for (i = 0; i < pairs; i++) {
		tab[2 * i] = (int32_t)(rnd(s) & 0x7fffffff);
		tab[2 * i + 1] = (int32_t)rr(s, 0, 20) - 18;
	}
	rq = progbuild_rq(b, pairs, tab);
	free(tab);
	progbuild_op(b, kind == 2 ? NPU_OP_FC : NPU_OP_MATMUL, x, wt, NONE, y, rq,
	      0, 255);
	return y;
}

TEST(fast_path_equals_generic)
{
	uint64_t seed, s;
	unsigned int k;

	for (k = 0; k < 400; k++) {
		uint8_t *fast_out;
		uint16_t y, idx;
		uint64_t bytes;
		struct progbuild b;
		int st;

		seed = 0x5eed0000ull + k;
		s = seed;
		y = rand_prog(&b, &s);
		bytes = progbuild_bytes(&b.t[y]);
		emu_ops_set_fast_path(true);
		st = progbuild_run(&b, NULL, &idx);
		ASSERT_EQ(NPU_HW_STATUS_OK, st) {
			TH_LOG("seed %#llx: op %u", (unsigned long long)seed,
			       idx);
		}
		fast_out = malloc(bytes);
		memcpy(fast_out, progbuild_data(&b, y), bytes);
		memset(progbuild_data(&b, y), 0x5a, bytes);
		emu_ops_set_fast_path(false);
		ASSERT_EQ(NPU_HW_STATUS_OK, progbuild_run(&b, NULL, &idx));
		ASSERT_EQ(0, memcmp(fast_out, progbuild_data(&b, y), bytes)) {
			TH_LOG("seed %#llx: fast and generic differ",
			       (unsigned long long)seed);
		}
		free(fast_out);
		progbuild_free(&b);
	}
}

TEST_HARNESS_MAIN
