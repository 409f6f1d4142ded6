/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * analyze.h - the rows of npuprof analyze (analyze.c).
 */
#ifndef NPF_ANALYZE_H
#define NPF_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npuprof_analysis.h"

/**
 * struct npf_an_row - a row of npuprof analyze: one operator record or
 * host span, or the aggregate of a type
 * @name: opcode name ("CONV2D", "OP_<n>") or span kind ("Quantize", ...)
 * @npu: an NPU operator (else a host span)
 * @count: records in the row
 * @self: self time, ns (an operator: its Total; a span: its duration
 *	less its children's)
 * @macs, @bytes: MACs and bytes moved (NPU operators)
 * @iowait: NPU IoWait, ns (NPU operators)
 * @overlap: ns of the operator's device interval during which an
 *	execution ran on another PE of its device
 * @contended: ns of @iowait that lie in @overlap at least:
 *	max(0, iowait - (self - overlap)), computed in ticks
 * @excess: ns of @iowait above the least IoWait of the same operator
 *	(device, opcode, op_index, bytes, MACs) in the trace
 * @peak_macs_s: the device's peak MAC/s (macs_per_cycle * clock_hz), 0
 *	unknown
 * @minor, @job_id, @op_index, @pe: a record's (UINT32_MAX/0 otherwise)
 * @start: a record's start, ns (0 for aggregates)
 * @layer, @op_type, @in_shapes, @out_shapes: an operator's layer
 *	(memuse.h: struct npf_layer; owned by the trace's model), "" without
 */
struct npf_an_row {
	char name[32];
	bool npu;
	uint64_t count;
	int64_t self;
	uint64_t macs;
	uint64_t bytes;
	int64_t iowait;
	int64_t overlap;
	int64_t contended;
	int64_t excess;
	double peak_macs_s;
	uint32_t minor;
	uint64_t job_id;
	uint32_t op_index;
	uint32_t pe;
	int64_t start;
	const char *layer;
	const char *op_type;
	const char *in_shapes;
	const char *out_shapes;
};

/*
 * npf_analyze_rows() - the rows of npuprof analyze for @o, filtered,
 * aggregated, ordered and cut to o->top, into a malloc'ed array *@rows of
 * *@n; *@total is the self time of every row that passed the filters.
 * Return: 0, -EINVAL (a bad option), -ENOMEM, -EBADMSG, -errno.
 */
int npf_analyze_rows(struct npuprof_trace *trace,
		     const struct npuprof_analyze_opts *o,
		     struct npf_an_row **rows, size_t *n, int64_t *total);

#endif /* NPF_ANALYZE_H */
