/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chrome_gen.h - hand-built trace files for the tests of the Chrome
 * exporter: the host test (test_chrome.c) and the real-viewer test
 * (selftests/viewer/gen_trace.c) build the same traces with the
 * library's internal writer (npf_writer_*). The device clock is exactly
 * host - 1 s at 1 GHz, sampled every 50 ms around T0. Header-only
 * (static functions); aborts on a write error. No state.
 */
#ifndef CHROME_GEN_H
#define CHROME_GEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npu/npu_program.h"
#include "trace_format.h"
#include "writer.h"

/* ---- building trace files ---- */

#define T0	5000000123ull	/* a time with ns digits: 5000000.123 us */

struct tb {
	struct npf_writer *w;
	char path[128];
	uint32_t seq[4];
};

/* The device clock: tick = host - 1 s, 1 GHz */
static inline uint64_t tick_of(uint64_t host)
{
	return host - 1000000000ull;
}

static inline void tb_add(struct tb *b, uint16_t type, const void *a, size_t alen,
		   const void *x, size_t xlen)
{
	if (npf_writer_add(b->w, type, a, alen, x, xlen))
		abort();
}

static inline void tb_open(struct tb *b, const char *name)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->path, sizeof(b->path), "/tmp/npuprof-chrome-%d-%s.npuprof",
		 (int)getpid(), name);
	if (npf_writer_open(b->path, 8192, &b->w))
		abort();
}

static inline void tb_meta(struct tb *b, const char *k, const char *v)
{
	tb_add(b, NPF_ITEM_META, k, strlen(k) + 1, v, strlen(v) + 1);
}

static inline void tb_rec(struct tb *b, uint32_t dev, void *rec)
{
	struct npf_item_record ir = { .dev = dev };
	struct npu_trace_rec_hdr *h = rec;

	h->seq = b->seq[dev]++;
	tb_add(b, NPF_ITEM_RECORD, &ir, sizeof(ir), rec, h->size);
}

static inline void tb_clock(struct tb *b, uint32_t dev, uint64_t host)
{
	struct npu_trace_rec_clock c = {
		.hdr = { .type = NPU_TRACE_REC_CLOCK, .size = sizeof(c) },
		.samples = 4, .host_before_ns = host - 20,
		.device_tick = tick_of(host), .host_after_ns = host + 20,
		.width_ns = 40, .clock_hz = 1000000000,
	};

	tb_rec(b, dev, &c);
}

/*
 * Device @dev (/dev/npu@minor, @pes PEs) and its clock samples, every
 * 50 ms from @t0 - 100 ms to @t0 + 400 ms
 */
static inline void tb_device_at(struct tb *b, uint32_t dev, uint32_t minor,
				uint32_t pes, uint64_t t0)
{
	struct npf_item_device d = { .dev = dev };
	struct npu_info info = { .version = 1, .pe_count = pes,
				 .clock_hz = 1000000000, .minor = minor };
	uint64_t t;

	d.info_size = sizeof(info);
	snprintf(d.path, sizeof(d.path), "/dev/npu%u", minor);
	tb_add(b, NPF_ITEM_DEVICE, &d, sizeof(d), &info, sizeof(info));
	for (t = t0 - 100000000; t <= t0 + 400000000; t += 50000000)
		tb_clock(b, dev, t);
}

/* The same around T0 */
static inline void tb_device(struct tb *b, uint32_t dev, uint32_t minor, uint32_t pes)
{
	tb_device_at(b, dev, minor, pes, T0);
}

static inline void tb_span(struct tb *b, unsigned int kind, unsigned int flags,
		    int pid, int tid, uint64_t s, uint64_t e, uint64_t id,
		    uint64_t parent, uint64_t job, uint32_t minor)
{
	struct npuprof_span_rec r = {
		.kind = kind, .flags = flags, .pid = pid, .tid = tid,
		.start_ns = s, .end_ns = e, .span_id = id, .parent_id = parent,
		.trace_id = { 0x0123456789abcdefull, 0xfedcba9876543210ull },
		.job_id = job, .minor = minor,
	};

	tb_add(b, NPF_ITEM_SPAN, &r, sizeof(r), NULL, 0);
}

static inline void tb_label(struct tb *b, int pid, int tid, uint64_t s, uint64_t e,
		     uint64_t id, uint32_t sid, const char *text)
{
	struct npf_item_string st = { .id = sid, .len = (uint32_t)strlen(text) };
	struct npuprof_span_rec r = {
		.kind = NPUPROF_SPAN_LABEL, .name_id = sid, .pid = pid,
		.tid = tid, .start_ns = s, .end_ns = e, .span_id = id,
	};

	tb_add(b, NPF_ITEM_STRING, &st, sizeof(st), text, st.len + 1);
	tb_add(b, NPF_ITEM_SPAN, &r, sizeof(r), NULL, 0);
}

/* An EXEC record of @n_ops operators, a quarter of its time waiting */
static inline void tb_exec_n(struct tb *b, uint32_t dev, int pid, uint64_t job,
			     uint16_t pe, uint64_t submit, uint64_t start,
			     uint64_t end, uint64_t complete, uint64_t dma,
			     uint32_t n_ops)
{
	struct npu_trace_rec_exec x = {
		.hdr = { .type = NPU_TRACE_REC_EXEC, .size = sizeof(x) },
		.flags = NPU_TRACE_EXEC_F_DEVICE, .pid = pid, .tid = pid + 1,
		.job_id = job, .submit_ns = submit, .complete_ns = complete,
		.pe = pe, .n_ops = n_ops, .start_tick = tick_of(start),
		.end_tick = tick_of(end), .dma_bytes = dma, .macs = 777,
	};

	x.iowait_ticks = (end - start) / 4;
	x.run_ticks = end - start - x.iowait_ticks;
	tb_rec(b, dev, &x);
}

/* The same of 2 operators */
static inline void tb_exec(struct tb *b, uint32_t dev, int pid, uint64_t job,
		    uint16_t pe, uint64_t submit, uint64_t start, uint64_t end,
		    uint64_t complete, uint64_t dma)
{
	tb_exec_n(b, dev, pid, job, pe, submit, start, end, complete, dma, 2);
}

static inline void tb_op(struct tb *b, uint32_t dev, uint64_t job, uint16_t pe,
		  uint16_t opcode, uint32_t idx, uint64_t s, uint64_t e)
{
	struct npu_trace_rec_op o = {
		.hdr = { .type = NPU_TRACE_REC_OP, .size = sizeof(o) },
		.pid = 100, .tid = 101, .job_id = job, .pe = pe,
		.opcode = opcode, .op_index = idx, .start_tick = tick_of(s),
		.end_tick = tick_of(e), .iowait_ticks = 10, .dma_bytes = 4096,
		.macs = 1000 + idx,
	};

	tb_rec(b, dev, &o);
}

static inline void tb_lost(struct tb *b, uint32_t dev, uint32_t reason, uint64_t n)
{
	struct npu_trace_rec_lost l = {
		.hdr = { .type = NPU_TRACE_REC_LOST, .size = sizeof(l) },
		.reason = reason, .count = n,
	};

	tb_rec(b, dev, &l);
}

static inline void tb_session(struct tb *b, uint32_t op, uint64_t t)
{
	struct npf_item_session s = { .op = op, .time_ns = t };

	tb_add(b, NPF_ITEM_SESSION, &s, sizeof(s), NULL, 0);
}

static inline void tb_thread(struct tb *b, int pid, int tid, const char *name)
{
	struct npf_item_thread t = { .pid = pid, .tid = tid };

	snprintf(t.name, sizeof(t.name), "%s", name);
	tb_add(b, NPF_ITEM_THREAD, &t, sizeof(t), NULL, 0);
}

static inline void tb_close(struct tb *b)
{
	if (npf_writer_close(b->w))
		abort();
}

/*
 * One process (pid 100, thread 101) running one inference: a label
 * around it, an INFERENCE span, a SUBMIT span of job 7 on npu3 and a WAIT
 * span, written when they end (children first); the job runs on PE 1 of
 * npu3 with two operators.
 */
static inline void write_basic(struct tb *b)
{
	tb_open(b, "basic");
	tb_meta(b, "pid", "100");
	tb_meta(b, "cmdline", "/usr/bin/npu-classify -m x.nmdl");
	tb_meta(b, "host_spans", "on");
	tb_meta(b, "clock.realtime_ns", "1700000000123456789");
	tb_meta(b, "clock.monotonic_ns", "4999000000");
	tb_device(b, 0, 3, 2);
	tb_session(b, NPUPROF_SESSION_START, T0 - 1000000);
	tb_thread(b, 100, 101, "worker");
	/* submit [T0+1000, T0+3001] job 7 */
	tb_span(b, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB, 100, 101,
		T0 + 1000, T0 + 3001, 0x12, 0x11, 7, 3);
	/* the job: queued from T0+2000, runs [T0+10000, T0+510000] */
	tb_op(b, 0, 7, 1, NPU_OP_CONV2D, 0, T0 + 20000, T0 + 220000);
	tb_op(b, 0, 7, 1, NPU_OP_ADD, 1, T0 + 230000, T0 + 500000);
	tb_exec(b, 0, 100, 7, 1, T0 + 2000, T0 + 10000, T0 + 510000,
		T0 + 600000, 1000000);
	tb_span(b, NPUPROF_SPAN_WAIT, NPUPROF_SPAN_F_JOB, 100, 101,
		T0 + 4000, T0 + 599000, 0x13, 0x11, 7, 3);
	tb_span(b, NPUPROF_SPAN_INFERENCE, 0, 100, 101, T0, T0 + 700000,
		0x11, 0x10, 0, 0);
	tb_label(b, 100, 101, T0 - 500, T0 + 800000, 0x10, 1, "warm up");
	tb_session(b, NPUPROF_SESSION_STOP, T0 + 900000);
	tb_close(b);
}

/*
 * Back-to-back operators at days of uptime, as the NPU runs a MobileNet v1
 * (the demo's model: a CONV2D, then 13 DWCONV2D + CONV2D pairs, AVGPOOL,
 * FC, RESHAPE): B2B_EXECS inferences of process 100, one after the other,
 * on the PEs of npu0 in turn. Each runs B2B_OPS operators, each starting
 * when the one before ends (the device's OP records), and its EXEC spans
 * them exactly: it starts with the first and ends with the last. Times
 * are exact ns around B2B_T0, 10 days of CLOCK_MONOTONIC, where a double
 * of µs keeps 1/8 ns: ts + dur, added in double, lands on either side of
 * the next operator's ts. The durations (1 to 300 µs, ns digits) and the
 * gaps come from b2b_dur() and b2b_gap(), which selftests/viewer/expect.mjs
 * computes the same way. Job j is submitted 2 µs before it starts and
 * completes 3 µs after it ends.
 */
#define B2B_T0		864000123456789ull
#define B2B_EXECS	8
#define B2B_OPS		30
#define B2B_PES		2

/* Duration of operator @k of execution @j, in ns */
static inline uint64_t b2b_dur(unsigned int j, unsigned int k)
{
	return 1000 + (j * 7919ull + k * 104729ull + j * k * 13ull) % 299001;
}

/* Time from the end of execution @j to the start of the next, in ns */
static inline uint64_t b2b_gap(unsigned int j)
{
	return 20000 + j * 37ull;
}

static inline uint16_t b2b_opcode(unsigned int k)
{
	if (k == B2B_OPS - 3)
		return NPU_OP_AVGPOOL;
	if (k == B2B_OPS - 2)
		return NPU_OP_FC;
	if (k == B2B_OPS - 1)
		return NPU_OP_RESHAPE;
	return k % 2 ? NPU_OP_DWCONV2D : NPU_OP_CONV2D;
}

static inline void write_b2b(struct tb *b)
{
	uint64_t t = B2B_T0, start;
	unsigned int j, k;

	tb_open(b, "b2b");
	tb_meta(b, "pid", "100");
	tb_device_at(b, 0, 0, B2B_PES, B2B_T0);
	for (j = 0; j < B2B_EXECS; j++) {
		uint16_t pe = (uint16_t)(j % B2B_PES);

		start = t;
		for (k = 0; k < B2B_OPS; k++) {
			uint64_t d = b2b_dur(j, k);

			tb_op(b, 0, j + 1, pe, b2b_opcode(k), k, t, t + d);
			t += d;
		}
		tb_exec_n(b, 0, 100, j + 1, pe, start - 2000, start, t, t + 3000,
			  4096ull * B2B_OPS, B2B_OPS);
		t += b2b_gap(j);
	}
	tb_close(b);
}

#endif /* CHROME_GEN_H */
