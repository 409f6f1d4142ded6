/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis_gen.h - the synthetic trace of the analysis tests
 * (test_breakdown.c, test_analyze.c, test_diff.c), written with the
 * library's own writer, and every number analyze, the breakdown and diff
 * must give for it, computed by hand below. Header-only, no state.
 *
 * Device 0 is /dev/npu3: 1 GHz, 256 MACs per cycle (peak 256 GMAC/s),
 * clock samples with tick = host - 1 s exactly (+-1 us brackets), so a
 * device tick maps to host ns one to one. Process 100, thread 101. Times
 * below are ns after t = T0 + k * 10 ms for inference k; every span's
 * parent is its inference.
 *
 * A (k 0): wall 0..10000. Quantize 100..300 and Lower 250..400 overlap
 *   (CPU operators: their union, 300), submit 1000..1200 (job 1), wait
 *   1300..6500, Unlower 7000..7100, Dequantize 7100..7400, and a second
 *   Lower 8000..8050 written after D's inference span (still A's: the
 *   join's window is 2 s). Job 1: submit_ns 1100, device 1500..5500 (run
 *   3000 + iowait 1000 ticks), complete_ns 6000. Its EXEC record comes
 *   before the spans.
 *     CPU 750, host 10000 - 5200 - 750 = 4050, queue 1300..1500 = 200
 *     (the part inside the wait), run 3000, iowait 1000, delivery 500,
 *     wake-up 500, unexplained 0.
 * B (k 1): wall 0..8000. Quantize 100..200, submit 1000..2000 (job 2),
 *   wait 2000..4000, Dequantize 5000..5300. Job 2: submit_ns 1100,
 *   device 1500..3500 (run 1500 + iowait 500), complete 3700: the device
 *   starts before the submit span ends. EXEC record after the spans.
 *     CPU 400, host 8000 - 2000 - 400 = 5600, queue 0, NPU inside the
 *     wait 2000..3500 = 1500 split 3:1: iowait round(1500 * 500 / 2000) =
 *     375, run 1125; delivery 200, wake-up 300.
 * C (k 2): wall 0..3000, Quantize 100..600 (@quant_c long), no job.
 *     CPU 500, host 2500.
 * D (k 3): wall 0..6000, submit 1000..1100 (job 4), wait 1200..5200; the
 *   EXEC record of job 4 is lost (a LOST record of 1).
 *     host 6000 - 4000 = 2000, unexplained 4000.
 *
 * Totals: 4 inferences, wall 27000 = CPU 1650 + host 14150 + queue 200 +
 * run 4125 + iowait 1375 + delivery 700 + wake-up 800 + unexplained 4000.
 * Host busy (an inference open, not waiting): 4800 + 6000 + 3000 + 2000 =
 * 15800; NPU busy 4000 + 2000 = 6000; NPU idle while host busy: A 4800,
 * B 6000 - 500 (1500..2000: the device ran during the submit span) =
 * 5500, C 3000, D 2000: 15300.
 *
 * Operator records (job 1, device 0, pe 0):
 *   CONV2D   op 0: 1000 ticks, 256000 MACs, 4000 B: 256 GMAC/s (100%), 4 GB/s
 *   CONV2D   op 1: @conv1 ticks (2000), 128000 MACs, 2000 B: 64 (25%), 1
 *   DWCONV2D op 2: 500 ticks, 64000 MACs, 10000 B: 128 (50%), 20
 *   PAD      op 3: 100 ticks, 0 MACs, 1000 B: 0 (0%), 10
 * Span self times (duration less children, the late Lower too): inference
 * A 10000 - (200 + 150 + 200 + 5200 + 100 + 300 + 50) = 3800, B 8000 -
 * 3400 = 4600, C 2500, D 6000 - 4100 = 1900; others have no children.
 */
#ifndef ANALYSIS_GEN_H
#define ANALYSIS_GEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_format.h"
#include "writer.h"
#include "npu/npu_program.h"	/* NPU_OP_* */

#define AG_PID		100
#define AG_MINOR	3
#define AG_T0		10000000000ull		/* 10 s */
#define AG_OFF		1000000000ull		/* host - tick */

static inline uint64_t ag_t(unsigned int k)
{
	return AG_T0 + (uint64_t)k * 10000000;
}

static inline void ag_add(struct npf_writer *w, uint16_t type, const void *a,
			  size_t alen, const void *b, size_t blen)
{
	if (npf_writer_add(w, type, a, alen, b, blen))
		abort();
}

static inline void ag_rec(struct npf_writer *w, const void *rec)
{
	struct npf_item_record ir = { .dev = 0 };

	ag_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), rec,
	       ((const struct npu_trace_rec_hdr *)rec)->size);
}

/*
 * A span of inference @k from @s to @e (ns after its t) on thread @tid;
 * @id its id
 */
static inline void ag_span_on(struct npf_writer *w, int32_t tid,
			      unsigned int k, uint16_t kind, uint64_t id,
			      uint64_t s, uint64_t e, uint64_t job)
{
	struct npuprof_span_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.pid = AG_PID;
	r.tid = tid;
	r.span_id = id;
	r.parent_id = kind == NPUPROF_SPAN_INFERENCE ? 0 : 1000 * (k + 1);
	r.trace_id[0] = 0xbb00000000000000ull;
	r.trace_id[1] = k + 1;
	r.start_ns = ag_t(k) + s;
	r.end_ns = ag_t(k) + e;
	if (job) {
		r.flags = NPUPROF_SPAN_F_JOB;
		r.job_id = job;
		r.minor = AG_MINOR;
	}
	ag_add(w, NPF_ITEM_SPAN, &r, sizeof(r), NULL, 0);
}

/* The same on the main thread, AG_PID + 1 */
static inline void ag_span(struct npf_writer *w, unsigned int k,
			   uint16_t kind, uint64_t id, uint64_t s, uint64_t e,
			   uint64_t job)
{
	ag_span_on(w, AG_PID + 1, k, kind, id, s, e, job);
}

/*
 * The EXEC record of job @job on PE @pe: host @submit and @complete ns,
 * device @start tick, @run + @iowait ticks long
 */
static inline void ag_exec_on(struct npf_writer *w, uint16_t pe,
			      uint64_t job, uint64_t submit, uint64_t complete,
			      uint64_t start, uint64_t run, uint64_t iowait)
{
	struct npu_trace_rec_exec e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = NPU_TRACE_REC_EXEC;
	e.hdr.size = sizeof(e);
	e.hdr.seq = (uint32_t)job;
	e.flags = NPU_TRACE_EXEC_F_DEVICE;
	e.pid = AG_PID;
	e.tid = AG_PID + 1;
	e.job_id = job;
	e.submit_ns = submit;
	e.complete_ns = complete;
	e.pe = pe;
	e.exec_index = (uint32_t)job;
	e.n_ops = 4;
	e.start_tick = start;
	e.end_tick = start + run + iowait;
	e.run_ticks = run;
	e.iowait_ticks = iowait;
	ag_rec(w, &e);
}

/* The EXEC record of job @job of inference @k (times after its t) */
static inline void ag_exec(struct npf_writer *w, unsigned int k, uint64_t job,
			   uint64_t submit, uint64_t ds, uint64_t run,
			   uint64_t iowait, uint64_t complete)
{
	ag_exec_on(w, 0, job, ag_t(k) + submit, ag_t(k) + complete,
		   ag_t(k) + ds - AG_OFF, run, iowait);
}

/* An OP record of job @job on PE @pe, from tick @start, @ticks long */
static inline void ag_op_on(struct npf_writer *w, uint16_t pe, uint64_t job,
			    uint16_t opcode, uint32_t idx, uint64_t start,
			    uint64_t ticks, uint64_t iowait, uint64_t macs,
			    uint64_t bytes)
{
	struct npu_trace_rec_op o;

	memset(&o, 0, sizeof(o));
	o.hdr.type = NPU_TRACE_REC_OP;
	o.hdr.size = sizeof(o);
	o.pid = AG_PID;
	o.tid = AG_PID + 1;
	o.job_id = job;
	o.pe = pe;
	o.opcode = opcode;
	o.op_index = idx;
	o.exec_index = (uint32_t)job;
	o.start_tick = start;
	o.end_tick = start + ticks;
	o.iowait_ticks = iowait;
	o.macs = macs;
	o.dma_bytes = bytes;
	ag_rec(w, &o);
}

/* An operator of job 1 on PE 0 at @at ns after ag_t(0) */
static inline void ag_op(struct npf_writer *w, uint16_t opcode, uint32_t idx,
			 uint64_t at, uint64_t ticks, uint64_t iowait,
			 uint64_t macs, uint64_t bytes)
{
	ag_op_on(w, 0, 1, opcode, idx, ag_t(0) + at - AG_OFF, ticks, iowait,
		 macs, bytes);
}

/* Device 0 and @nclock clock samples, 10 ms apart from T0 - 1 ms */
static inline void ag_head(struct npf_writer *w, int nclock)
{
	struct npf_item_device d;
	struct npu_info info;
	struct npu_trace_rec_clock c;
	int i;

	memset(&d, 0, sizeof(d));
	memset(&info, 0, sizeof(info));
	d.info_size = sizeof(info);
	snprintf(d.path, sizeof(d.path), "/dev/npu%u", AG_MINOR);
	info.version = NPU_INFO_VERSION;
	info.pe_count = 2;
	info.clock_hz = 1000000000;
	info.macs_per_cycle = 256;
	info.minor = AG_MINOR;
	ag_add(w, NPF_ITEM_DEVICE, &d, sizeof(d), &info, sizeof(info));
	for (i = 0; i < nclock; i++) {
		uint64_t h = AG_T0 - 1000000 + (uint64_t)i * 10000000;

		memset(&c, 0, sizeof(c));
		c.hdr.type = NPU_TRACE_REC_CLOCK;
		c.hdr.size = sizeof(c);
		c.hdr.seq = 100 + i;
		c.samples = 8;
		c.host_before_ns = h - 1000;
		c.device_tick = h - AG_OFF;
		c.host_after_ns = h + 1000;
		c.width_ns = 2000;
		c.clock_hz = 1000000000;
		ag_rec(w, &c);
	}
}

/* A new trace file for test @name, with device 0 and its clock samples */
static inline char *ag_open(const char *name, struct npf_writer **w)
{
	char *path;

	if (asprintf(&path, "/tmp/npuprof-analysis-%d-%s", (int)getpid(), name) < 0)
		abort();
	if (npf_writer_open(path, 4096, w))
		abort();
	ag_head(*w, 6);
	return path;
}

/*
 * Write the trace to a new temporary file; @conv1 is the length of the
 * second CONV2D (2000), @quant_c that of C's Quantize (500).
 */
static inline char *ag_trace(const char *name, uint64_t conv1,
			     uint64_t quant_c)
{
	struct npu_trace_rec_lost lost;
	struct npf_writer *w;
	char *path = ag_open(name, &w);

	/* A: its execution and operators first */
	ag_exec(w, 0, 1, 1100, 1500, 3000, 1000, 6000);
	ag_op(w, NPU_OP_CONV2D, 0, 1500, 1000, 200, 256000, 4000);
	ag_op(w, NPU_OP_CONV2D, 1, 2500, conv1, 0, 128000, 2000);
	ag_op(w, NPU_OP_DWCONV2D, 2, 4500, 500, 0, 64000, 10000);
	ag_op(w, NPU_OP_PAD, 3, 5000, 100, 0, 0, 1000);
	ag_span(w, 0, NPUPROF_SPAN_QUANTIZE, 1001, 100, 300, 0);
	ag_span(w, 0, NPUPROF_SPAN_LOWER, 1002, 250, 400, 0);
	ag_span(w, 0, NPUPROF_SPAN_SUBMIT, 1003, 1000, 1200, 1);
	ag_span(w, 0, NPUPROF_SPAN_WAIT, 1004, 1300, 6500, 1);
	ag_span(w, 0, NPUPROF_SPAN_UNLOWER, 1005, 7000, 7100, 0);
	ag_span(w, 0, NPUPROF_SPAN_DEQUANTIZE, 1006, 7100, 7400, 0);
	ag_span(w, 0, NPUPROF_SPAN_INFERENCE, 1000, 0, 10000, 0);
	/* B: spans first, its execution after */
	ag_span(w, 1, NPUPROF_SPAN_QUANTIZE, 2001, 100, 200, 0);
	ag_span(w, 1, NPUPROF_SPAN_SUBMIT, 2003, 1000, 2000, 2);
	ag_span(w, 1, NPUPROF_SPAN_WAIT, 2004, 2000, 4000, 2);
	ag_span(w, 1, NPUPROF_SPAN_DEQUANTIZE, 2006, 5000, 5300, 0);
	ag_span(w, 1, NPUPROF_SPAN_INFERENCE, 2000, 0, 8000, 0);
	ag_exec(w, 1, 2, 1100, 1500, 1500, 500, 3700);
	/* C: no job */
	ag_span(w, 2, NPUPROF_SPAN_QUANTIZE, 3001, 100, 100 + quant_c, 0);
	ag_span(w, 2, NPUPROF_SPAN_INFERENCE, 3000, 0, 3000, 0);
	/* D: the EXEC record of job 4 is lost */
	lost = (struct npu_trace_rec_lost){
		.hdr = { NPU_TRACE_REC_LOST, sizeof(lost), 3 },
		.reason = NPU_TRACE_LOST_RING_FULL, .count = 1 };
	ag_rec(w, &lost);
	ag_span(w, 3, NPUPROF_SPAN_SUBMIT, 4003, 1000, 1100, 4);
	ag_span(w, 3, NPUPROF_SPAN_WAIT, 4004, 1200, 5200, 4);
	ag_span(w, 3, NPUPROF_SPAN_INFERENCE, 4000, 0, 6000, 0);
	/* a span of A after A's inference span */
	ag_span(w, 0, NPUPROF_SPAN_LOWER, 1007, 8000, 8050, 0);
	if (npf_writer_close(w))
		abort();
	return path;
}

/*
 * The order trace (ag_trace_order()): children written after their
 * inference, as when another thread (102) submits and waits for an
 * inference that thread 101 acquired and released, and the drain reads
 * 101's buffer first. Trace ids 0xbb..k+1, times after ag_t(k).
 *
 * E (k 0): wall 0..10000 (thread 101), written FIRST; then on thread 102
 *   Quantize 100..500, submit 1000..1200 (job 1), wait 1300..6500 (job
 *   1), Dequantize 7000..7400; then job 1's EXEC record: submit_ns 1100,
 *   device 1500..5500 (run 3000 + iowait 1000), complete 6000.
 *     CPU 800, host 10000 - 5200 - 800 = 4000, queue 1300..1500 = 200,
 *     NPU 4000: iowait 1000, run 3000; delivery 500, wake-up 500.
 * F (k 1): wall 0..8000. Job 2's EXEC record comes first (submit_ns 1500,
 *   device 2500..4500, run 1500 + iowait 500, complete 5000); then
 *   Quantize 100..300 (101), F's span, and after it submit 1000..2000 and
 *   wait 2000..7000 (102, job 2).
 *     CPU 200, host 8000 - 5000 - 200 = 2800, queue 2000..2500 = 500 (in
 *     the wait), NPU 2000: iowait round(2000 * 500 / 2000) = 500, run
 *     1500; delivery 500, wake-up 5000..7000 = 2000.
 * H (k 300, 3 s later): wall 0..1000, no children: host 1000. Written
 *   after it, an Unlower of E (8000..8100, thread 102): more than the 2 s
 *   window after E's end, so E's row has gone: left out (late 1).
 *
 * Totals: 3 inferences, wall 19000 = CPU 1000 + host 7800 + queue 700 +
 * run 4500 + iowait 1500 + delivery 1000 + wake-up 2500. Executions: E 1,
 * F 1, H 0. Host busy 4800 + 3000 + 1000 = 8800, NPU busy 6000, NPU idle
 * while host busy 8800 (the device runs only inside the waits).
 */
static inline char *ag_trace_order(const char *name)
{
	struct npf_writer *w;
	char *path = ag_open(name, &w);

	ag_exec(w, 1, 2, 1500, 2500, 1500, 500, 5000);
	ag_span(w, 0, NPUPROF_SPAN_INFERENCE, 1000, 0, 10000, 0);
	ag_span_on(w, AG_PID + 2, 0, NPUPROF_SPAN_QUANTIZE, 1001, 100, 500, 0);
	ag_span_on(w, AG_PID + 2, 0, NPUPROF_SPAN_SUBMIT, 1003, 1000, 1200, 1);
	ag_span_on(w, AG_PID + 2, 0, NPUPROF_SPAN_WAIT, 1004, 1300, 6500, 1);
	ag_span_on(w, AG_PID + 2, 0, NPUPROF_SPAN_DEQUANTIZE, 1006, 7000, 7400,
		   0);
	ag_exec(w, 0, 1, 1100, 1500, 3000, 1000, 6000);
	ag_span(w, 1, NPUPROF_SPAN_QUANTIZE, 2001, 100, 300, 0);
	ag_span(w, 1, NPUPROF_SPAN_INFERENCE, 2000, 0, 8000, 0);
	ag_span_on(w, AG_PID + 2, 1, NPUPROF_SPAN_SUBMIT, 2003, 1000, 2000, 2);
	ag_span_on(w, AG_PID + 2, 1, NPUPROF_SPAN_WAIT, 2004, 2000, 7000, 2);
	ag_span(w, 300, NPUPROF_SPAN_INFERENCE, 301000, 0, 1000, 0);
	ag_span_on(w, AG_PID + 2, 0, NPUPROF_SPAN_UNLOWER, 1005, 8000, 8100, 0);
	if (npf_writer_close(w))
		abort();
	return path;
}

/*
 * The window trace (ag_trace_window()): @n inferences 10 ms apart (k 0..
 * n-1), each wall 0..5000 with submit 1000..1100 (job k + 1) and wait
 * 2000..4000 written after its span (thread 102), and its job's EXEC
 * record after them (complete_ns 3000), without device times (level 0):
 * host 3000, wake-up 3000..4000 = 1000, unexplained wait 2000..3000 =
 * 1000, one execution each.
 */
static inline char *ag_trace_window(const char *name, unsigned int n)
{
	struct npu_trace_rec_exec e;
	struct npf_writer *w;
	char *path = ag_open(name, &w);
	unsigned int k;

	for (k = 0; k < n; k++) {
		uint64_t id = 1000 * (k + 1);

		ag_span(w, k, NPUPROF_SPAN_INFERENCE, id, 0, 5000, 0);
		ag_span_on(w, AG_PID + 2, k, NPUPROF_SPAN_SUBMIT, id + 3, 1000,
			   1100, k + 1);
		ag_span_on(w, AG_PID + 2, k, NPUPROF_SPAN_WAIT, id + 4, 2000,
			   4000, k + 1);
		memset(&e, 0, sizeof(e));
		e.hdr.type = NPU_TRACE_REC_EXEC;
		e.hdr.size = sizeof(e);
		e.pid = AG_PID;
		e.job_id = k + 1;
		e.submit_ns = ag_t(k) + 1050;
		e.complete_ns = ag_t(k) + 3000;
		ag_rec(w, &e);
	}
	if (npf_writer_close(w))
		abort();
	return path;
}

/*
 * The contention trace (ag_trace_contend()): executions on the PEs of
 * device 0 overlap, with known IoWait. Ticks after ag_t(0) - AG_OFF (so
 * host ns after ag_t(0)); pid AG_PID, no spans.
 *
 *   job  PE  EXEC            operators: [start, end) IoWait
 *   11   0   0..10000        CONV2D 0..2000 500, CONV2D 2000..6000 2000,
 *                            DWCONV2D 6000..10000 500
 *   12   1   3000..12000     CONV2D 3000..8000 2500, PAD 8000..12000 500
 *   13   0   20000..22000    CONV2D 20000..22000 1500
 *   14   1   20500..21000    (no operators)
 *   15   1   21500..21800
 *   16   2   21000..21700    (a third PE: the others' union counts)
 *
 * Each operator's overlap (another PE executing), and its IoWait that
 * must lie there, max(0, iowait - (self - overlap)):
 *
 *   job 11 op 0: overlap 0, contended 0
 *   job 11 op 1: overlap 3000 (3000..6000), contended 2000 - 1000 = 1000
 *   job 11 op 2: overlap 4000 (all), contended 500
 *   job 12 op 0: overlap 5000 (all), contended 2500
 *   job 12 op 1: overlap 2000 (8000..10000), contended max(0, 500 - 2000)
 *                = 0
 *   job 13 op 0: overlap 20500..21000 + 21000..21700 (PE 2) + 21500..
 *                21800, their union 20500..21800 = 1300; contended
 *                1500 - 700 = 800 (1500 - 500 = 1000 if it were their
 *                sum, 1500 - 1200 = 300 without PE 2)
 *
 * Op 0 of jobs 11, 12 and 13 is the same operator (CONV2D, op_index 0,
 * 1000 MACs and bytes): its least IoWait is 500, so job 12's has an
 * excess of 2000 and job 13's of 1000; the other operators run once
 * (excess 0).
 *
 * Totals: 6 records, self 21000, IoWait 7500 (35.71%), overlap 15300,
 * contended 4800, excess 3000. By type: CONV2D 4 records, self 13000,
 * IoWait 6500 (50%), overlap 9300, contended 4300, excess 3000; DWCONV2D
 * 4000, 500 (12.5%), 4000, 500, 0; PAD 4000, 500, 2000, 0, 0.
 */
/* Job @job's execution on PE @pe from @s to @e (ns after ag_t(0)) */
static inline void ag_cexec(struct npf_writer *w, uint16_t pe, uint64_t job,
			    uint64_t s, uint64_t e, uint64_t iowait)
{
	ag_exec_on(w, pe, job, ag_t(0) + s - 100, ag_t(0) + e + 100,
		   ag_t(0) - AG_OFF + s, e - s - iowait, iowait);
}

/* An operator of it, from @s to @e, 1000 MACs and bytes */
static inline void ag_cop(struct npf_writer *w, uint16_t pe, uint64_t job,
			  uint16_t opcode, uint32_t idx, uint64_t s,
			  uint64_t e, uint64_t iowait)
{
	ag_op_on(w, pe, job, opcode, idx, ag_t(0) - AG_OFF + s, e - s, iowait,
		 1000, 1000);
}

static inline char *ag_trace_contend(const char *name)
{
	struct npf_writer *w;
	char *path = ag_open(name, &w);

	/* as the driver writes them: a job's operators, then its EXEC */
	ag_cop(w, 0, 11, NPU_OP_CONV2D, 0, 0, 2000, 500);
	ag_cop(w, 0, 11, NPU_OP_CONV2D, 1, 2000, 6000, 2000);
	ag_cop(w, 0, 11, NPU_OP_DWCONV2D, 2, 6000, 10000, 500);
	ag_cexec(w, 0, 11, 0, 10000, 3000);
	ag_cop(w, 1, 12, NPU_OP_CONV2D, 0, 3000, 8000, 2500);
	ag_cop(w, 1, 12, NPU_OP_PAD, 1, 8000, 12000, 500);
	ag_cexec(w, 1, 12, 3000, 12000, 3000);
	ag_cexec(w, 1, 14, 20500, 21000, 0);
	ag_cexec(w, 2, 16, 21000, 21700, 0);
	ag_cexec(w, 1, 15, 21500, 21800, 0);
	ag_cop(w, 0, 13, NPU_OP_CONV2D, 0, 20000, 22000, 1500);
	ag_cexec(w, 0, 13, 20000, 22000, 1500);
	if (npf_writer_close(w))
		abort();
	return path;
}

/* Output of @fn on @t into a malloc'ed string; *@ret its return value */
#define AG_CAPTURE(ret, call)						\
	({								\
		char *buf_ = NULL;					\
		size_t len_ = 0;					\
		FILE *out = open_memstream(&buf_, &len_);		\
									\
		if (!out)						\
			abort();					\
		ret = (call);						\
		fclose(out);						\
		buf_;							\
	})

/* Field @col (0-based) of CSV line @line (1: the first row) of @csv, into
 * @buf; "" when missing. The test data has no quoted fields. */
static inline const char *ag_csv(const char *csv, int line, int col,
				 char *buf, size_t len)
{
	const char *p = csv, *e;
	int i;

	buf[0] = 0;
	for (i = 0; i < line && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	for (i = 0; i < col && p && *p && *p != '\r'; i++) {
		p = strpbrk(p, ",\r");
		if (!p || *p != ',')
			return buf;
		p++;
	}
	if (!p || !*p)
		return buf;
	e = strpbrk(p, ",\r\n");
	if (!e)
		e = p + strlen(p);
	snprintf(buf, len, "%.*s", (int)(e - p), p);
	return buf;
}

/* Lines of @s */
static inline int ag_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif /* ANALYSIS_GEN_H */
