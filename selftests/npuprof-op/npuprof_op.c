// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof_op - "npuprof op" on the emulated NPU, in the npu-vm guest:
 * the values it reports for an operator given by opcode against the cost
 * model of program.rst and hw.rst (MACs, DMA bytes, IoWait, the modelled
 * floor of the latency), a sequence of a model's operators (IoWait
 * hidden behind the previous operator's compute), layer names, the
 * cache, and the errors. Durations are not compared with expectations
 * of speed: the emulator stretches an operator to the cost model, or
 * longer when the host computes slower, so only the model's floor and
 * the order of the statistics are asserted.
 *
 * npuprof comes from PATH, the model from $NPU_BUILD/models.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "op_test.h"

/* the device parameters a result reports */
struct devp {
	uint64_t clock_hz, mpc, dma_bw, sram;
};

static void devp(const char *buf, struct devp *d)
{
	d->clock_hz = op_u64(buf, "clock_hz");
	d->mpc = op_u64(buf, "macs_per_cycle");
	d->dma_bw = op_u64(buf, "dma_bw_mbps");
	d->sram = op_u64(buf, "sram_size");
}

/* the statistics of @o are ordered and the floor holds */
static void check_dist(struct __test_metadata *_metadata, const char *o,
		       uint64_t floor_ns)
{
	uint64_t mn = op_u64(o, "min_ns"), med = op_u64(o, "median_ns");
	uint64_t p99 = op_u64(o, "p99_ns"), mx = op_u64(o, "max_ns");
	double mean = op_num(o, "mean_ns");

	ASSERT_NE(UINT64_MAX, mx);
	EXPECT_LE(mn, med);
	EXPECT_LE(med, p99);
	EXPECT_LE(p99, mx);
	EXPECT_GE(mean, (double)mn);
	EXPECT_LE(mean, (double)mx);
	/* the device never ends an operator before the cost model does */
	EXPECT_GE(mn, floor_ns);
}

/*
 * conv2d 1x28x28x32 -> 16 filters 3x3, stride 2, same padding: every
 * figure of program.rst's cost model, exactly
 */
TEST(conv2d_cost_model)
{
	char *buf = malloc(OP_BUF);
	char *args[] = { "conv2d", "--input", "1x28x28x32", "--filters", "16",
			 "--kernel", "3x3", "--stride", "2", "--pad", "same",
			 "--runs", "8", "--warmup", "1", "--no-cache", NULL };
	uint64_t macs, in_b, w_b, out_b, bytes, dma, compute;
	const char *o;
	struct devp d;
	char s[128];

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, op_json(buf, args)) TH_LOG("%s", buf);
	devp(buf, &d);
	ASSERT_NE(UINT64_MAX, d.clock_hz);
	o = op_obj(buf, 0);
	ASSERT_NE(NULL, o);
	op_str(o, "opcode", s, sizeof(s));
	EXPECT_STREQ("conv2d", s);
	op_str(buf, "operator", s, sizeof(s));
	EXPECT_STREQ("conv2d in=1x28x28x32 filters=16 kernel=3x3 stride=2x2 pad=0,0,1,1 out=1x14x14x16 layout=nchwc16",
		     s);
	EXPECT_EQ(8, op_u64(buf, "runs"));
	EXPECT_EQ(1, op_u64(buf, "warmup"));
	/* N * OH * OW * Cout * KH * KW * Cin */
	macs = 1ull * 14 * 14 * 16 * 3 * 3 * 32;
	EXPECT_EQ(macs, op_u64(o, "macs"));
	/* NCHWC16 input and output; weights, bias, 16 rq pairs */
	in_b = 28 * 28 * 32;
	out_b = 14 * 14 * 16;
	w_b = 16 * 3 * 3 * 32 + 16 * 4 + 16 * 8;
	bytes = in_b + w_b + out_b;
	EXPECT_EQ(bytes, op_u64(o, "dma_bytes"));
	EXPECT_EQ(bytes, op_u64(o, "sram_bytes"));
	dma = op_dma_ticks(bytes, d.clock_hz, d.dma_bw);
	compute = op_ceil(macs, d.mpc);
	/* alone, an operator waits for all of its DMA (at 1 GHz, ns = ticks) */
	if (d.clock_hz == 1000000000) {
		EXPECT_EQ(dma, op_u64(o, "iowait_ns"));
		EXPECT_EQ(dma, op_u64(o, "dma_ns"));
		EXPECT_EQ(compute, op_u64(o, "compute_ns"));
		check_dist(_metadata, o, dma + compute);
	}
	EXPECT_EQ(d.mpc * d.clock_hz / 1000000, (uint64_t)(op_num(buf, "peak_gmacs") * 1000 + 0.5));
	/* gmacs is macs over the median */
	EXPECT_LT(abs((int)(op_num(o, "gmacs") * 1000) -
		      (int)((double)macs / op_u64(o, "median_ns") * 1000)), 2);
	/* one operator: the total is that operator */
	EXPECT_EQ(op_u64(o, "min_ns"), op_u64(op_total(buf), "min_ns"));
	EXPECT_EQ(op_u64(o, "p99_ns"), op_u64(op_total(buf), "p99_ns"));
	free(buf);
}

/* every opcode the command line takes runs on the device */
TEST(every_opcode)
{
	static char *const ops[][12] = {
		{ "dwconv2d", "--input", "1x16x16x32", "--kernel", "3", "--pad", "1,1,1,1" },
		{ "avgpool", "--input", "1x8x8x32", "--kernel", "8" },
		{ "maxpool", "--input", "1x16x16x16", "--kernel", "2", "--stride", "2" },
		{ "fc", "--input", "2x256", "--filters", "10" },
		{ "matmul", "--input", "4x64", "--filters", "32" },
		{ "add", "--input", "1x8x8x64" },
		{ "clip", "--input", "1x4096" },
		{ "pad", "--input", "1x8x8x16", "--pad", "1,2,3,4" },
		{ "reshape", "--input", "1x1x1x1024", "--output", "1x1024" },
		{ "transpose", "--input", "2x3x4x5", "--perm", "0,3,1,2", "--layout", "plain" },
		{ "slice", "--input", "1x8x8x16", "--output", "1x4x8x16" },
		{ "concat", "--input", "1x4x4x16", "--inputs", "3", "--axis", "3" },
	};
	/* MACs of each (program.rst: pools window positions, add/clip outputs) */
	static const uint64_t macs[] = {
		16 * 16 * 32 * 9, 32 * 64, 8 * 8 * 16 * 4, 2 * 256 * 10,
		4 * 64 * 32, 8 * 8 * 64, 4096, 0, 0, 0, 0, 0,
	};
	char *buf = malloc(OP_BUF);
	char *args[24], s[64];
	unsigned int i, j, n;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		n = 0;
		for (j = 0; j < 12 && ops[i][j]; j++)
			args[n++] = ops[i][j];
		args[n++] = "--runs";
		args[n++] = "3";
		args[n++] = "--warmup";
		args[n++] = "0";
		args[n++] = "--no-cache";
		args[n] = NULL;
		ASSERT_EQ(0, op_json(buf, args)) TH_LOG("%s: %s", ops[i][0], buf);
		op_str(op_obj(buf, 0), "opcode", s, sizeof(s));
		EXPECT_STREQ(ops[i][0], s);
		EXPECT_EQ(macs[i], op_u64(op_obj(buf, 0), "macs"))
			TH_LOG("%s", ops[i][0]);
		EXPECT_LT(0, op_u64(op_obj(buf, 0), "dma_bytes"));
	}
	free(buf);
}

/*
 * Three operators of MobileNet in sequence: the second and third wait
 * only for the DMA their predecessor's compute does not cover.
 */
TEST(model_sequence)
{
	char *buf = malloc(OP_BUF);
	char model[256];
	char *args[] = { "--model", model, "--op-index", "12", "--op-count",
			 "3", "--runs", "4", "--warmup", "1", "--no-cache",
			 NULL };
	uint64_t dma, prev_compute, sum = 0, sram = 0, prev_b = 0, b;
	struct devp d;
	unsigned int i;

	ASSERT_NE(NULL, buf);
	if (model_path("mobilenet-v1", model, sizeof(model)))
		SKIP(free(buf); return, "no mobilenet-v1 in $NPU_BUILD/models");
	ASSERT_EQ(0, op_json(buf, args)) TH_LOG("%s", buf);
	devp(buf, &d);
	for (i = 0; i < 3; i++) {
		const char *o = op_obj(buf, i);

		ASSERT_NE(NULL, o);
		EXPECT_EQ(12 + i, op_u64(o, "index"));
		b = op_u64(o, "dma_bytes");
		dma = op_dma_ticks(b, d.clock_hz, d.dma_bw);
		prev_compute = i ? op_ceil(op_u64(op_obj(buf, i - 1), "macs"),
					   d.mpc) : 0;
		if (d.clock_hz == 1000000000)
			EXPECT_EQ(dma > prev_compute ? dma - prev_compute : 0,
				  op_u64(o, "iowait_ns")) TH_LOG("op %u", 12 + i);
		sum += op_u64(o, "macs");
		if (prev_b + b > sram)
			sram = prev_b + b;
		prev_b = b;
	}
	EXPECT_EQ(sum, op_u64(op_total(buf), "macs"));
	/* double buffering: the largest pair of neighbours */
	EXPECT_EQ(sram, op_u64(op_total(buf), "sram_bytes"));
	EXPECT_GE(op_u64(op_total(buf), "min_ns"),
		  op_u64(op_obj(buf, 0), "min_ns") +
		  op_u64(op_obj(buf, 1), "min_ns") +
		  op_u64(op_obj(buf, 2), "min_ns"));
	free(buf);
}

/* --layer NAME is the layer's operators, named */
TEST(model_layer)
{
	char *buf = malloc(OP_BUF), *buf2 = malloc(OP_BUF);
	char model[256], s[64];
	char *args[] = { "--model", model, "--layer", "conv_dw_7", "--runs",
			 "2", "--warmup", "0", "--no-cache", NULL };
	char *args2[] = { "--model", model, "--op-index", "13", "--runs", "2",
			  "--warmup", "0", "--no-cache", NULL };
	char *bad[] = { "--model", model, "--layer", "no_such_layer", NULL };

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, buf2);
	if (model_path("mobilenet-v1", model, sizeof(model)))
		SKIP(goto out, "no mobilenet-v1 in $NPU_BUILD/models");
	if (op_json(buf, args) == 2 && strstr(buf, "no layer table"))
		SKIP(goto out, "the model has no layer table");
	ASSERT_EQ(0, op_json(buf, args)) TH_LOG("%s", buf);
	ASSERT_EQ(0, op_json(buf2, args2)) TH_LOG("%s", buf2);
	EXPECT_EQ(13, op_u64(op_obj(buf, 0), "index"));
	EXPECT_EQ(NULL, op_obj(buf, 1));
	op_str(op_obj(buf, 0), "layer", s, sizeof(s));
	EXPECT_STREQ("conv_dw_7", s);
	op_str(op_obj(buf2, 0), "layer", s, sizeof(s));
	EXPECT_STREQ("conv_dw_7", s);
	op_str(op_obj(buf, 0), "opcode", s, sizeof(s));
	EXPECT_STREQ("dwconv2d", s);
	EXPECT_EQ(op_u64(op_obj(buf2, 0), "macs"), op_u64(op_obj(buf, 0), "macs"));
	EXPECT_EQ(1ull * 14 * 14 * 512 * 9, op_u64(op_obj(buf, 0), "macs"));
	EXPECT_EQ(2, op_json(buf, bad));
	EXPECT_NE(NULL, strstr(buf, "no such layer")) TH_LOG("%s", buf);
out:
	free(buf);
	free(buf2);
}

/* a repeated query answers from the cache, with the same figures */
TEST(cache)
{
	char *buf = malloc(OP_BUF), *buf2 = malloc(OP_BUF);
	char *args[] = { "clip", "--input", "1x8192", "--runs", "5",
			 "--cache-dir", "/tmp/npuprof-op-cache", NULL };
	char *args6[] = { "clip", "--input", "1x8192", "--runs", "6",
			  "--cache-dir", "/tmp/npuprof-op-cache", NULL };
	char *nc[] = { "clip", "--input", "1x8192", "--runs", "5",
		       "--cache-dir", "/tmp/npuprof-op-cache", "--no-cache",
		       NULL };
	char *info[] = { "npuprof", "op", "--cache-info", "--cache-dir",
			 "/tmp/npuprof-op-cache", NULL };
	char *clear[] = { "npuprof", "op", "--cache-clear", "--cache-dir",
			  "/tmp/npuprof-op-cache", NULL };

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, buf2);
	ASSERT_EQ(0, run(clear, NULL, NULL));
	ASSERT_EQ(0, op_json(buf, args)) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\"cached\": false"));
	ASSERT_EQ(0, op_json(buf2, args)) TH_LOG("%s", buf2);
	EXPECT_NE(NULL, strstr(buf2, "\"cached\": true"));
	/* the same measurement, figure for figure */
	EXPECT_EQ(op_u64(op_obj(buf, 0), "min_ns"), op_u64(op_obj(buf2, 0), "min_ns"));
	EXPECT_EQ(op_u64(op_obj(buf, 0), "p99_ns"), op_u64(op_obj(buf2, 0), "p99_ns"));
	EXPECT_EQ(op_num(op_obj(buf, 0), "mean_ns"), op_num(op_obj(buf2, 0), "mean_ns"));
	/* --no-cache measures again; other runs are another entry */
	ASSERT_EQ(0, op_json(buf2, nc));
	EXPECT_NE(NULL, strstr(buf2, "\"cached\": false"));
	ASSERT_EQ(0, op_json(buf2, args6));
	EXPECT_NE(NULL, strstr(buf2, "\"cached\": false"));
	EXPECT_EQ(6, op_u64(buf2, "runs"));
	ASSERT_EQ(0, run(info, OP_OUT, NULL));
	ASSERT_EQ(0, slurp(OP_OUT, buf, OP_BUF));
	EXPECT_NE(NULL, strstr(buf, "entries: 2\n")) TH_LOG("%s", buf);
	ASSERT_EQ(0, run(clear, OP_OUT, NULL));
	ASSERT_EQ(0, slurp(OP_OUT, buf, OP_BUF));
	EXPECT_NE(NULL, strstr(buf, "removed 2 entries")) TH_LOG("%s", buf);
	ASSERT_EQ(0, run(info, OP_OUT, NULL));
	ASSERT_EQ(0, slurp(OP_OUT, buf, OP_BUF));
	EXPECT_NE(NULL, strstr(buf, "entries: 0\n")) TH_LOG("%s", buf);
	free(buf);
	free(buf2);
}

/* failures are one line and a status, never a crash */
TEST(errors)
{
	char *buf = malloc(OP_BUF);
	char *pe[] = { "clip", "--input", "64", "--pe", "15", "--no-cache", NULL };
	char *dev[] = { "clip", "--input", "64", "--device", "/dev/null", NULL };
	char *big[] = { "conv2d", "--input", "1x1024x1024x2048", "--filters",
			"1024", "--kernel", "3", "--no-cache", NULL };

	ASSERT_NE(NULL, buf);
	EXPECT_EQ(1, op_json(buf, pe));
	EXPECT_NE(NULL, strstr(buf, "--pe 15")) TH_LOG("%s", buf);
	EXPECT_EQ(1, op_json(buf, dev));
	EXPECT_NE(NULL, strstr(buf, "/dev/null")) TH_LOG("%s", buf);
	EXPECT_EQ(2, op_json(buf, big));
	EXPECT_NE(NULL, strstr(buf, "elements")) TH_LOG("%s", buf);
	free(buf);
}

TEST_HARNESS_MAIN
