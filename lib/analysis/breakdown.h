/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * breakdown.h - the latency breakdown of inferences (breakdown.c,
 * Documentation/npu/analysis.rst).
 */
#ifndef NPF_BREAKDOWN_H
#define NPF_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npuprof_analysis.h"

/* The parts of an inference's latency, in their order of precedence */
enum npf_bd_part {
	NPF_BD_CPU_OPS = 0,	/* Quantize, Lower, Unlower, Dequantize */
	NPF_BD_HOST,		/* the wall outside the WAIT spans */
	NPF_BD_QUEUE,		/* submit_ns .. device start */
	NPF_BD_RUN,		/* device start .. end, Run's share */
	NPF_BD_IOWAIT,		/* ... IoWait's share */
	NPF_BD_DELIVERY,	/* device end .. complete_ns */
	NPF_BD_WAKEUP,		/* complete_ns .. end of the WAIT span */
	NPF_BD_UNKNOWN,		/* waiting that no device record explains */
	NPF_BD_NPARTS,
};

/* Display name ("CPU operators", ...) and key ("cpu_ops_ns", ...) */
const char *npf_bd_part_name(unsigned int part);
const char *npf_bd_part_key(unsigned int part);

/**
 * struct npf_bd_row - the breakdown of one inference
 * @span: its INFERENCE span
 * @wall: end_ns - start_ns; == the sum of @part, exactly
 * @part: ns per enum npf_bd_part
 * @executions: executions joined to it
 * @waits: its WAIT spans
 */
struct npf_bd_row {
	struct npuprof_span_rec span;
	int64_t wall;
	int64_t part[NPF_BD_NPARTS];
	uint32_t executions;
	uint32_t waits;
};

/**
 * struct npf_bd_totals - the breakdown over a trace
 * @inferences: rows
 * @wall: their walls added; == the sum of @part
 * @part: their parts added
 * @host_busy: ns during which an inference was open and not waiting
 *	(more INFERENCE than WAIT spans open), over the whole trace
 * @npu_busy: ns during which an execution ran (mapped device times)
 * @npu_idle_host_busy: of @host_busy, ns with no execution running
 * @late: spans and executions of an inference already reported, or of
 *	none (left out)
 * @max_pending: most inferences held at once (the memory)
 */
struct npf_bd_totals {
	uint64_t inferences;
	int64_t wall;
	int64_t part[NPF_BD_NPARTS];
	int64_t host_busy;
	int64_t npu_busy;
	int64_t npu_idle_host_busy;
	uint64_t late;
	uint64_t max_pending;
};

typedef int (*npf_bd_fn)(void *ctx, const struct npf_bd_row *row);

/*
 * npf_breakdown_run() - rewind @trace, pass the breakdown of each
 * inference to @fn (may be NULL) as soon as it is complete, and fill
 * *@tot. Return: 0, -ENOMEM, -EBADMSG, -errno, or what @fn returned.
 */
int npf_breakdown_run(struct npuprof_trace *trace, npf_bd_fn fn, void *ctx,
		      struct npf_bd_totals *tot);

#endif /* NPF_BREAKDOWN_H */
