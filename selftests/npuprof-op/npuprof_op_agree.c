// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof_op_agree - "npuprof op" on three MobileNet layers agrees with the
 * same operators inside a full-model run (issue 24, "Done when").
 *
 * The full run is "npuprof record" around npu-classify; its OP records,
 * read back with libnpuprof-analysis, give each operator's device time
 * mapped through the trace's clock fit (with the fit's error bound) and
 * its IoWait. The isolated run is "npuprof op --model --layer" (or
 * --op-index on a model without a layer table). By the device's timing
 * model (hw.rst, "Timing model") an operator i waits for
 * max(0, dma(i) - compute(i - 1)) inside the model and for all of dma(i)
 * alone, so the isolated time is the in-model time plus
 * min(dma(i), compute(i - 1)): the DMA difference, 0 for the first
 * operator (conv1), all of dma(i) when the previous operator's compute
 * hides it (conv_dw_7), the previous compute when it hides only part of
 * it (conv_pw_13).
 *
 * The group runs with npu-emu's --macs-per-cycle 1 --dma-bw 500
 * (npuprof_op_agree.npu-vm): the modelled times are then well above what
 * the host's arithmetic takes, so device times are the timing model's
 * (an operator the host computes slower than the model ends later, and
 * the minimum over the runs leaves such runs out). The test asserts, per
 * layer: both IoWaits against the cost model, their difference, and
 * |isolated - (in-model + difference)| <= the clock fit's bound + 1 ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <linux/npu.h>

#include "npuprof_analysis.h"
#include "op_test.h"

#define TRACE	"/tmp/npuprof-op-agree.npuprof"
#define NOPS	64

/* an operator of the full run: the minimum over the inferences */
struct inmodel {
	bool seen;
	uint64_t min_ticks;
	int64_t min_ns;		/* fitted end - start of that record */
	uint64_t err_ns;	/* the fit's bound of that difference */
	uint64_t iowait;
	uint64_t macs;
	uint64_t dma_bytes;
	unsigned int n;
};

static int load_ops(const char *path, struct inmodel *m, char *err,
		    size_t errlen)
{
	struct npuprof_trace *tr;
	struct npuprof_event ev;
	int ret;

	ret = npuprof_trace_open(path, &tr, err, errlen);
	if (ret)
		return ret;
	while ((ret = npuprof_trace_next(tr, &ev)) == 1) {
		const struct npu_trace_rec_op *r = ev.rec;
		struct inmodel *o;
		uint64_t t;

		if (ev.type != NPUPROF_EV_RECORD ||
		    r->hdr.type != NPU_TRACE_REC_OP || r->op_index >= NOPS)
			continue;
		o = &m[r->op_index];
		t = r->end_tick - r->start_tick;
		o->n++;
		o->iowait = r->iowait_ticks;
		o->macs = r->macs;
		o->dma_bytes = r->dma_bytes;
		if (!o->seen || t < o->min_ticks) {
			o->seen = true;
			o->min_ticks = t;
			o->min_ns = ev.end.ns - ev.start.ns;
			o->err_ns = ev.start.err_ns + ev.end.err_ns;
			if (!ev.start.valid || !ev.end.valid)
				o->err_ns = UINT64_MAX;
		}
	}
	if (ret < 0)
		snprintf(err, errlen, "%s", npuprof_trace_error(tr));
	npuprof_trace_close(tr);
	return ret;
}

TEST(three_layers)
{
	static const struct {
		const char *layer;
		unsigned int index;
	} layers[] = { { "conv1", 0 }, { "conv_dw_7", 13 }, { "conv_pw_13", 26 } };
	struct inmodel *m = calloc(NOPS, sizeof(*m));
	char *buf = malloc(OP_BUF);
	char model[256], idx[16], err[256];
	char *rec[] = { "npuprof", "record", "-q", "-o", TRACE, "--",
			"npu-classify", "-m", model, "-n", "3", "-p", "0", "-q",
			NULL };
	unsigned int i;

	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, buf);
	if (model_path("mobilenet-v1", model, sizeof(model)))
		SKIP(return, "no mobilenet-v1 in $NPU_BUILD/models");
	ASSERT_EQ(0, run(rec, NULL, NULL));
	ASSERT_EQ(0, load_ops(TRACE, m, err, sizeof(err))) TH_LOG("%s", err);

	for (i = 0; i < 3; i++) {
		char *by_layer[] = { "--model", model, "--layer",
				     (char *)layers[i].layer, "--runs", "5",
				     "--warmup", "1", "--no-cache", NULL };
		char *by_index[] = { "--model", model, "--op-index", idx,
				     "--runs", "5", "--warmup", "1",
				     "--no-cache", NULL };
		const struct inmodel *in = &m[layers[i].index];
		const struct inmodel *prev = layers[i].index ?
					     &m[layers[i].index - 1] : NULL;
		uint64_t clock_hz, mpc, dma_bw, dma, pc, iso_min, iso_iow;
		uint64_t want_in_iow, diff;
		char name[64];
		bool named;
		int64_t gap;
		const char *o;
		int st;

		ASSERT_TRUE(in->seen) TH_LOG("no OP record of op %u", layers[i].index);
		EXPECT_EQ(3, in->n);
		snprintf(idx, sizeof(idx), "%u", layers[i].index);
		st = op_json(buf, by_layer);
		named = st == 0;
		if (st == 2 && strstr(buf, "no layer table"))
			st = op_json(buf, by_index);
		ASSERT_EQ(0, st) TH_LOG("%s", buf);
		o = op_obj(buf, 0);
		ASSERT_NE(NULL, o);
		if (named) {
			op_str(o, "layer", name, sizeof(name));
			EXPECT_STREQ(layers[i].layer, name);
		}
		EXPECT_EQ(NULL, op_obj(buf, 1));
		EXPECT_EQ(layers[i].index, op_u64(o, "index"));
		clock_hz = op_u64(buf, "clock_hz");
		mpc = op_u64(buf, "macs_per_cycle");
		dma_bw = op_u64(buf, "dma_bw_mbps");
		ASSERT_EQ(1000000000, clock_hz);	/* ns = ticks below */
		/* the same operator on the same tensors */
		EXPECT_EQ(in->macs, op_u64(o, "macs"));
		EXPECT_EQ(in->dma_bytes, op_u64(o, "dma_bytes"));

		dma = op_dma_ticks(in->dma_bytes, clock_hz, dma_bw);
		pc = prev ? op_ceil(prev->macs, mpc) : 0;
		want_in_iow = dma > pc ? dma - pc : 0;
		iso_min = op_u64(o, "min_ns");
		iso_iow = op_u64(o, "iowait_ns");
		/* the timing model, on both sides */
		EXPECT_EQ(want_in_iow, in->iowait);
		EXPECT_EQ(dma, iso_iow);
		diff = iso_iow - in->iowait;
		EXPECT_EQ(dma < pc ? dma : pc, diff);
		/* the agreement: the fitted in-model time plus the difference */
		ASSERT_NE(UINT64_MAX, in->err_ns);
		gap = (int64_t)iso_min - (in->min_ns + (int64_t)diff);
		TH_LOG("%s (op %u): isolated min %llu ns, in-model %lld ns (fit bound %llu ns, %llu ticks), "
		       "IoWait %llu vs %llu ns: DMA difference %llu ns, residual %lld ns",
		       layers[i].layer, layers[i].index,
		       (unsigned long long)iso_min, (long long)in->min_ns,
		       (unsigned long long)in->err_ns,
		       (unsigned long long)in->min_ticks,
		       (unsigned long long)iso_iow,
		       (unsigned long long)in->iowait,
		       (unsigned long long)diff, (long long)gap);
		EXPECT_LE(llabs(gap), (long long)in->err_ns + 1);
		/* and in device ticks, exactly */
		EXPECT_EQ(in->min_ticks + diff, iso_min);
	}
	free(buf);
	free(m);
}

TEST_HARNESS_MAIN
