/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * join.h - the join of executions, inferences and operators with their
 * host spans (join.c), the rows every report is made of.
 */
#ifndef NPF_JOIN_H
#define NPF_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace.h"

/**
 * struct npf_exec_row - an EXEC record joined to its SUBMIT span
 * @rec: the record (a copy)
 * @dev: device index in the file
 * @minor: N of /dev/npuN (from the DEVICE event), UINT32_MAX unknown
 * @matched: a SUBMIT span of the same (minor, job_id) was found; then
 *	@trace_id, @span_id (the SUBMIT span's) and @parent_id (its parent,
 *	the inference) are set
 * @device: device times are valid (NPU_TRACE_EXEC_F_DEVICE)
 * @start: mapped start, @end: mapped end
 * @dur: durations (with @device)
 * @inconsistent: run_ticks + iowait_ticks != end_tick - start_tick
 * @violation: the mapped interval, widened by its bounds, is not inside
 *	the host submit..complete interval
 * @model_id: the model the job ran (its SUBMIT span's, with
 *	NPUPROF_SPAN_F_MODEL; memuse.h: npf_trace_model()), 0 none
 */
struct npf_exec_row {
	struct npu_trace_rec_exec rec;
	uint32_t dev;
	uint32_t minor;
	uint32_t model_id;
	bool matched;
	bool device;
	bool inconsistent;
	bool violation;
	uint64_t trace_id[2];
	uint64_t span_id;
	uint64_t parent_id;
	struct npuprof_clock_map start;
	struct npuprof_clock_map end;
	struct npf_dur dur;
};

/**
 * struct npf_inf_row - an INFERENCE span with its executions
 * @span: the span
 * @executions: executions joined to its SUBMIT children
 * @npu_total_ns: sum of their NPU Total
 * @unmatched: SUBMIT children still without an execution when the row
 *	was emitted (at the end of the trace)
 */
struct npf_inf_row {
	struct npuprof_span_rec span;
	uint64_t executions;
	int64_t npu_total_ns;
	uint64_t unmatched;
};

/**
 * struct npf_op_row - an OP record with its durations
 * @rec: the record, in the reader's buffer
 * @dev: device index, @minor: its /dev/npuN (UINT32_MAX unknown)
 * @start: mapped start, @end: mapped end
 * @dur: @dur.total is end_tick - start_tick, @dur.iowait iowait_ticks
 *	and @dur.run the rest, converted as npf_dev_dur() does
 * @inconsistent: iowait_ticks > end_tick - start_tick, or end < start
 *	(then @dur.ok is false)
 * @model_id: the model of the job's SUBMIT span, 0 none: its operator
 *	@rec->op_index has the figures of npf_model_op_mem(). An operator
 *	read before its SUBMIT span waits for it when the trace has a model
 *	of the operator's process (the rows then come later than their
 *	record; at most NPF_JOIN_HELD_OPS wait, the oldest go out without a
 *	model beyond that)
 */
struct npf_op_row {
	const struct npu_trace_rec_op *rec;
	uint32_t dev;
	uint32_t minor;
	uint32_t model_id;
	bool inconsistent;
	struct npuprof_clock_map start;
	struct npuprof_clock_map end;
	struct npf_dur dur;
};

/* Receivers of the join's rows; a nonzero return stops the join. */
struct npf_join_ops {
	int (*exec)(void *ctx, const struct npf_exec_row *row);
	int (*inference)(void *ctx, const struct npf_inf_row *row);
	int (*op)(void *ctx, const struct npf_op_row *row);
};

/**
 * struct npf_join_stats - what the join saw
 * @execs: EXEC records
 * @matched: of them, joined to a SUBMIT span
 * @submits: SUBMIT spans with a job
 * @submits_unmatched: of them, without an execution at the end
 * @inferences: INFERENCE spans
 * @violations: executions outside their host interval
 * @checked: executions checked for it (device times and a valid fit)
 * @inconsistent: EXEC and OP records whose ticks do not add up
 * @max_pending: most entries the join held at once (its memory)
 * @ops_with_model: OP rows given a model id
 * @ops_held_max: most OP rows waiting at once for their SUBMIT span
 */
struct npf_join_stats {
	uint64_t execs;
	uint64_t matched;
	uint64_t submits;
	uint64_t submits_unmatched;
	uint64_t inferences;
	uint64_t violations;
	uint64_t checked;
	uint64_t inconsistent;
	uint64_t max_pending;
	uint64_t ops_with_model;
	uint64_t ops_held_max;
};

/* Most OP rows waiting for their SUBMIT span's model at once */
#define NPF_JOIN_HELD_OPS	(64u * 1024)

struct npf_join;

/* A join over @trace's events; rows go to @ops (either may be NULL). */
int npf_join_new(const struct npuprof_trace *trace,
		 const struct npf_join_ops *ops, void *ctx,
		 struct npf_join **j);
/* Feed one event (any type); returns 0, -ENOMEM or what a receiver did */
int npf_join_event(struct npf_join *j, const struct npuprof_event *ev);
/* Emit what is still unmatched (executions without a SUBMIT span,
 * inferences waiting for theirs), then the stats are final. */
int npf_join_finish(struct npf_join *j);
const struct npf_join_stats *npf_join_stats(const struct npf_join *j);
/* Minor of device @dev as the DEVICE events told, UINT32_MAX unknown */
uint32_t npf_join_minor(const struct npf_join *j, uint32_t dev);
void npf_join_free(struct npf_join *j);

#endif /* NPF_JOIN_H */
