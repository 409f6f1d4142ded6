/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_gen.h - the synthetic trace of the report and SQLite tests
 * (test_report.c, test_sqlite.c), written with the library's own writer,
 * and every number the reports must show for it, computed by hand below.
 * Header-only, no state.
 *
 * Process 100 (thread 101) runs four inferences on /dev/npu3 (device 0,
 * 2 GHz nominal, no clock samples: durations through the nominal 0.5 ns
 * per tick, no mapped times). Their durations are those of the reference
 * (shared/seeds/002): 3027309, 2111363, 1824769 and 1584494 ns. Each has
 * Quantize, Lower (operator_index 0), one SUBMIT (job k+1), WAIT, Unlower
 * and Dequantize. The EXEC records of jobs 1 and 2 come before the spans
 * in the file, those of jobs 3 and 4 after: both orders of the join.
 *
 *   job  run  iowait ticks -> Run  IoWait  Total (ns, 0.5 ns/tick)
 *   1    3    3              2    2       4    (naive (6 ticks=3) - 2 = 1)
 *   2    216268 20000        108134 10000 118134
 *   3    1    0              1    0       1    (0.5 rounds up)
 *   4    0    7              0    4       4
 *   99   4    4 (end-start = 10: inconsistent; no SUBMIT) 2 2 4
 *
 * Process 200 (thread 201) on /dev/npu5 (device 1, 1 GHz, clock samples
 * tick = host - 1 s exactly, +-1 us brackets): job 1 (same job id as on
 * npu3: the join must use the minor) with a root SUBMIT span, run 1500
 * iowait 500 ticks; job 2 without a span, 100000 ticks long but
 * completed 50 us after its start: a causality violation. A SUBMIT of job 50 on npu3 never executes.
 *
 * Operator records (device 0): CONV2D of 10, 20, 31 ticks (5, 10, 16 ns:
 * average 31/3), PAD of 4 and 8 ticks (2, 4: 3.0), ADD of 6 ticks with 2
 * of iowait (run 2 + iowait 1 = 3: 3.0), and a CLIP whose iowait exceeds
 * its length (inconsistent, skipped).
 *
 * Losses: a LOST record of 7 (ring full) on device 0, HOST_LOST of 3
 * spans, a SUMMARY that says lost_ring 5 (the larger, 7, is reported),
 * spans_lost 3, violations 1. A labelled record named `warm,up "q"`.
 */
#ifndef REPORT_GEN_H
#define REPORT_GEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_util.h"
#include "trace_format.h"
#include "writer.h"
#include "npu/npu_program.h"	/* NPU_OP_* */

#define GEN_PID		100
#define GEN_TID		101
#define GEN_PID2	200
#define GEN_TID2	201
#define GEN_T0		10000000000ull	/* 10 s */

static const uint64_t gen_inf_dur[4] = { 3027309, 2111363, 1824769, 1584494 };

static inline void gen_add_rec(struct npf_writer *w, uint32_t dev,
			       const void *rec)
{
	struct npf_item_record ir = { .dev = dev };
	const struct npu_trace_rec_hdr *h = rec;

	if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), rec, h->size))
		abort();
}

/* Device @dev, /dev/npu@minor: 2 PEs at @hz */
static inline void gen_device(struct npf_writer *w, uint32_t dev,
			      uint32_t minor, uint64_t hz)
{
	gen_util_device(w, dev, minor, 2, hz, 0);
}

static inline void gen_exec(struct npf_writer *w, uint32_t dev,
			    uint32_t seq, int32_t pid, uint64_t job,
			    uint16_t pe, uint64_t start, uint64_t run,
			    uint64_t iowait, uint64_t end, uint64_t submit_ns,
			    uint64_t complete_ns)
{
	struct npu_trace_rec_exec e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = NPU_TRACE_REC_EXEC;
	e.hdr.size = sizeof(e);
	e.hdr.seq = seq;
	e.flags = NPU_TRACE_EXEC_F_DEVICE;
	e.pid = pid;
	e.tid = pid + 1;
	e.job_id = job;
	e.submit_ns = submit_ns;
	e.complete_ns = complete_ns;
	e.pe = pe;
	e.exec_index = (uint32_t)job;
	e.n_ops = 2;
	e.start_tick = start;
	e.end_tick = end;
	e.run_ticks = run;
	e.iowait_ticks = iowait;
	e.dma_bytes = 4096 * job;
	e.macs = 1000 * job;
	gen_add_rec(w, dev, &e);
}

static inline void gen_op(struct npf_writer *w, uint16_t opcode,
			  uint64_t ticks, uint64_t iowait, uint32_t idx)
{
	struct npu_trace_rec_op o;

	memset(&o, 0, sizeof(o));
	o.hdr.type = NPU_TRACE_REC_OP;
	o.hdr.size = sizeof(o);
	o.pid = GEN_PID;
	o.tid = GEN_TID;
	o.job_id = 1;
	o.opcode = opcode;
	o.op_index = idx;
	o.start_tick = 2000 + 100 * idx;
	o.end_tick = o.start_tick + ticks;
	o.iowait_ticks = iowait;
	gen_add_rec(w, 0, &o);
}

static inline void gen_span(struct npf_writer *w, uint16_t kind,
			    uint16_t flags, int32_t pid, uint64_t span_id,
			    uint64_t parent, uint64_t trace_lo,
			    uint64_t start, uint64_t dur, uint64_t job,
			    uint32_t minor)
{
	struct npuprof_span_rec s;

	memset(&s, 0, sizeof(s));
	s.kind = kind;
	s.flags = flags;
	s.pid = pid;
	s.tid = pid + 1;
	s.span_id = span_id;
	s.parent_id = parent;
	s.trace_id[0] = 0xaa00000000000000ull;
	s.trace_id[1] = trace_lo;
	s.start_ns = start;
	s.end_ns = start + dur;
	s.job_id = job;
	s.minor = minor;
	if (kind == NPUPROF_SPAN_LABEL)
		s.name_id = 1;
	if (npf_writer_add(w, NPF_ITEM_SPAN, &s, sizeof(s), NULL, 0))
		abort();
}

/* The spans of inference @k (0..3) of process 100 */
static inline void gen_inference(struct npf_writer *w, unsigned int k)
{
	uint64_t t = GEN_T0 + (uint64_t)k * 10000000, inf = 1000 + 100 * k;
	uint64_t tr = k + 1;

	gen_span(w, NPUPROF_SPAN_QUANTIZE, NPUPROF_SPAN_F_OP, GEN_PID, inf + 1,
		 inf, tr, t + 10, 100 + k, 0, 0);
	gen_span(w, NPUPROF_SPAN_LOWER, NPUPROF_SPAN_F_OP, GEN_PID, inf + 2, inf,
		 tr, t + 200, 200 + k, 0, 0);
	gen_span(w, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB, GEN_PID, inf + 3,
		 inf, tr, t + 500, 50, k + 1, 3);
	gen_span(w, NPUPROF_SPAN_WAIT, NPUPROF_SPAN_F_JOB, GEN_PID, inf + 4, inf,
		 tr, t + 600, 1000, k + 1, 3);
	gen_span(w, NPUPROF_SPAN_UNLOWER, NPUPROF_SPAN_F_OP, GEN_PID, inf + 5,
		 inf, tr, t + 2000, 300 + k, 0, 0);
	gen_span(w, NPUPROF_SPAN_DEQUANTIZE, NPUPROF_SPAN_F_OP, GEN_PID, inf + 6,
		 inf, tr, t + 3000, 400 + k, 0, 0);
	gen_span(w, NPUPROF_SPAN_INFERENCE, 0, GEN_PID, inf, 0, tr, t,
		 gen_inf_dur[k], 0, 0);
}

static inline void gen_clock(struct npf_writer *w, uint32_t seq,
			     uint64_t host)
{
	struct npu_trace_rec_clock c;

	memset(&c, 0, sizeof(c));
	c.hdr.type = NPU_TRACE_REC_CLOCK;
	c.hdr.size = sizeof(c);
	c.hdr.seq = seq;
	c.samples = 8;
	c.host_before_ns = host - 1000;
	c.device_tick = host - 1000000000ull;
	c.host_after_ns = host + 1000;
	c.width_ns = 2000;
	c.clock_hz = 1000000000;
	gen_add_rec(w, 1, &c);
}

/* Write the trace described above to a new temporary file */
static inline char *gen_trace(const char *name)
{
	static const char label[] = "warm,up \"q\"";
	struct npf_item_string st = { .id = 1, .len = sizeof(label) - 1 };
	struct npf_item_host_lost hl = { .pid = GEN_PID, .tid = GEN_TID,
					 .count = 3 };
	struct npf_item_summary sum;
	struct npu_trace_rec_lost lost;
	struct npf_writer *w;
	uint64_t h;
	char *path;
	int i;

	if (asprintf(&path, "/tmp/npuprof-report-%d-%s", (int)getpid(), name) < 0)
		abort();
	if (npf_writer_open(path, 4096, &w))
		abort();
	if (npf_writer_add(w, NPF_ITEM_META, "cmdline\0gen", 12, NULL, 0))
		abort();
	gen_device(w, 0, 3, 2000000000);
	gen_device(w, 1, 5, 1000000000);
	/* device 1: clock samples every 10 ms over 100 ms */
	for (i = 0; i < 11; i++)
		gen_clock(w, (uint32_t)i, GEN_T0 + (uint64_t)i * 10000000);
	/* ring first: jobs 1 and 2 */
	gen_exec(w, 0, 0, GEN_PID, 1, 0, 1000, 3, 3, 1006, 1, 2);
	gen_exec(w, 0, 1, GEN_PID, 2, 1, 5000, 216268, 20000, 241268, 1, 2);
	gen_op(w, NPU_OP_CONV2D, 10, 0, 0);
	gen_op(w, NPU_OP_CONV2D, 20, 0, 1);
	gen_op(w, NPU_OP_PAD, 4, 0, 2);
	gen_op(w, NPU_OP_ADD, 6, 2, 3);
	gen_op(w, NPU_OP_CONV2D, 31, 0, 4);
	gen_op(w, NPU_OP_PAD, 8, 0, 5);
	gen_op(w, NPU_OP_CLIP, 5, 10, 6);
	lost = (struct npu_trace_rec_lost){
		.hdr = { NPU_TRACE_REC_LOST, sizeof(lost), 2 },
		.reason = NPU_TRACE_LOST_RING_FULL, .count = 7 };
	gen_add_rec(w, 0, &lost);
	if (npf_writer_add(w, NPF_ITEM_STRING, &st, sizeof(st), label,
			   sizeof(label)))
		abort();
	gen_span(w, NPUPROF_SPAN_LABEL, 0, GEN_PID, 999, 0, 999, GEN_T0 - 100,
		 50000000, 0, 0);
	for (i = 0; i < 4; i++)
		gen_inference(w, (unsigned int)i);
	/* a SUBMIT whose execution never comes */
	gen_span(w, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB, GEN_PID, 5000, 0,
		 50, GEN_T0 + 60000000, 10, 50, 3);
	/* process 200 on npu5: a root SUBMIT of its job 1 */
	gen_span(w, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB, GEN_PID2, 7, 0, 77,
		 GEN_T0 + 20000000, 100, 1, 5);
	if (npf_writer_add(w, NPF_ITEM_HOST_LOST, &hl, sizeof(hl), NULL, 0))
		abort();
	/* ring after: jobs 3 and 4, the unmatched job 99 */
	gen_exec(w, 0, 3, GEN_PID, 3, 0, 300000, 1, 0, 300001, 1, 2);
	gen_exec(w, 0, 4, GEN_PID, 4, 1, 400000, 0, 7, 400007, 1, 2);
	gen_exec(w, 0, 5, GEN_PID, 99, 0, 5000, 4, 4, 5010, 1, 2);
	/* npu5: host = tick + 1 s */
	h = GEN_T0 + 20001000;
	gen_exec(w, 1, 11, GEN_PID2, 1, 0, h - 1000000000ull, 1500, 500,
		 h - 1000000000ull + 2000, h - 10000, h + 12000);
	h = GEN_T0 + 30000000;
	gen_exec(w, 1, 12, GEN_PID2, 2, 1, h - 1000000000ull, 100000, 0,
		 h - 1000000000ull + 100000, h - 10000, h + 50000);
	memset(&sum, 0, sizeof(sum));
	sum.spans = 31;
	sum.spans_lost = 3;
	sum.lost_ring = 5;
	sum.violations = 1;
	sum.start_ns = GEN_T0 - 1000;
	sum.stop_ns = GEN_T0 + 200000000;
	if (npf_writer_add(w, NPF_ITEM_SUMMARY, &sum, sizeof(sum), NULL, 0))
		abort();
	if (npf_writer_close(w))
		abort();
	return path;
}

/* An empty trace: a device and nothing else */
static inline char *gen_empty(const char *name)
{
	struct npf_writer *w;
	char *path;

	if (asprintf(&path, "/tmp/npuprof-report-%d-%s", (int)getpid(), name) < 0)
		abort();
	if (npf_writer_open(path, 4096, &w))
		abort();
	gen_device(w, 0, 0, 1000000000);
	if (npf_writer_close(w))
		abort();
	return path;
}

/* Path of Debian's python3 (python3-pandas is installed for it) */
static inline const char *gen_python(void)
{
	const char *p = getenv("NPUPROF_PYTHON");

	if (p && *p)
		return p;
	return access("/usr/bin/python3", X_OK) ? "python3" : "/usr/bin/python3";
}

#endif /* REPORT_GEN_H */
