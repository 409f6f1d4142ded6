/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * timeline.h - the merged timeline (timeline.c) that the Chrome exporter
 * turns into JSON (Documentation/npu/export.rst).
 */
#ifndef NPF_TIMELINE_H
#define NPF_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reorder.h"
#include "trace.h"


/*
 * Synthetic ids of the timeline's tracks (all fit a uint32): host
 * processes and threads keep their pid and tid (< 2^22); device @dev is
 * process NPF_TL_DEV_PID + @dev, its PE p track tid NPF_TL_PE_TID + p, its
 * queue lane l tid NPF_TL_QUEUE_TID + l, its jobs without device times
 * (level 0 or no clock fit) lane l tid NPF_TL_HOSTJOB_TID + l; a host
 * span that does not nest on its thread goes to lane l > 0 of the thread,
 * tid + (l << NPF_TL_LANE_SHIFT); the capture sessions are thread
 * NPF_TL_SESSION_TID of process NPF_TL_SESSION_PID.
 */
#define NPF_TL_DEV_PID		0x40000000u
#define NPF_TL_SESSION_PID	0x3fffffffu
#define NPF_TL_SESSION_TID	1u
#define NPF_TL_PE_TID		1u
#define NPF_TL_QUEUE_TID	0x10000u
#define NPF_TL_HOSTJOB_TID	0x20000u
#define NPF_TL_LANE_SHIFT	22
#define NPF_TL_LANES		4	/* host span lanes per thread */
#define NPF_TL_QLANES		64	/* queue lanes per device */
#define NPF_TL_UTIL_BIN_NS	1000000	/* PE utilization bins */

enum npf_tl_kind {
	NPF_TL_SPAN = 1,	/* host span: @ev SPAN, @lane */
	NPF_TL_EXEC,		/* execution: @ev EXEC, @dur_dev, @violation */
	NPF_TL_OP,		/* operator: @ev OP, @dur_dev */
	NPF_TL_QUEUE,		/* queued: @ev EXEC, submit to device start */
	NPF_TL_FLOW_OUT,	/* flow start at a SUBMIT span: @id */
	NPF_TL_FLOW_IN,		/* flow end at its EXEC: @id */
	NPF_TL_COUNTER,		/* @name = @value / 10^@decimals */
	NPF_TL_INSTANT,		/* @name, @what, @ev (may be NULL) */
	NPF_TL_BEGIN,		/* a capture interval begins: @name */
	NPF_TL_END,		/* ... ends */
	NPF_TL_PROCESS,		/* at the end: process @pid @name @sort */
	NPF_TL_THREAD,		/* at the end: track @pid @tid @name @sort */
	NPF_TL_META,		/* at the end: @name = @text (META) */
	NPF_TL_FIT,		/* at the end: @ev CLOCK_FIT */
	NPF_TL_SUMMARY,		/* at the end: @ev SUMMARY */
};

/* npf_tl_item.what of NPF_TL_INSTANT */
enum npf_tl_instant {
	NPF_TL_I_LOST = 1,	/* @ev LOST record */
	NPF_TL_I_HOST_LOST,	/* @ev HOST_LOST */
	NPF_TL_I_VIOLATION,	/* @ev EXEC outside its host interval */
	NPF_TL_I_FIT,		/* @ev CLOCK_FIT with an anomaly */
	NPF_TL_I_UNMAPPED,	/* @ev first record of a device without fit */
	NPF_TL_I_BO_FAIL,	/* @ev BO_ALLOC of a failed allocation */
};

/**
 * struct npf_tl_item - one item of the merged timeline
 * @kind: enum npf_tl_kind
 * @what: NPF_TL_INSTANT: enum npf_tl_instant
 * @pid: track: process (as exported)
 * @tid: track: thread (as exported)
 * @ts: CLOCK_MONOTONIC ns
 * @dur: ns (spans, executions, operators, queue intervals), >= 0
 * @ev: the event the item comes from, or NULL
 * @id: flows: the flow id, (minor + 1) << 48 | job_id (48 bits)
 * @name: display name (processes, threads, counters, instants, META key)
 * @text: META: the value
 * @value: counters: the value times 10^@decimals
 * @decimals: counters
 * @sort: processes and threads: sort index
 * @lane: spans: 0, or the lane it was moved to (it did not nest)
 * @device: EXEC: device times valid and mapped
 * @violation: EXEC: outside its host interval (an instant follows)
 * @minor: EXEC, OP: N of /dev/npuN, UINT32_MAX unknown
 * @dur_dev: EXEC, OP: durations from the device's ticks
 * @err_ns: EXEC, OP: error bound of the mapped start and end
 */
struct npf_tl_item {
	uint32_t kind;
	uint32_t what;
	uint32_t pid;
	uint32_t tid;
	int64_t ts;
	int64_t dur;
	const struct npuprof_event *ev;
	uint64_t id;
	const char *name;
	const char *text;
	int64_t value;
	int decimals;
	int sort;
	unsigned int lane;
	bool device;
	bool violation;
	uint32_t minor;
	struct npf_dur dur_dev;
	uint64_t err_ns;
};

typedef int (*npf_tl_fn)(void *ctx, const struct npf_tl_item *it);

/**
 * struct npf_tl_stats - what the timeline did
 * @events: events read
 * @items: items emitted
 * @max_held: most events the reorder buffer held
 * @late: events released after a later one (out of time order)
 * @lanes: host spans moved to another lane (they did not nest)
 * @violations: executions outside their host interval
 * @unmapped: device records without a clock fit (placed at host times,
 *	or, OP records, left out)
 * @untracked: threads or PEs beyond the tables (not named)
 */
struct npf_tl_stats {
	uint64_t events;
	uint64_t items;
	uint64_t max_held;
	uint64_t late;
	uint64_t lanes;
	uint64_t violations;
	uint64_t unmapped;
	uint64_t untracked;
};

/*
 * npf_timeline_run() - rewind @trace and pass its merged timeline to
 * @fn, in time order within the reorder buffer's bounds (@max_held
 * events, @window_ns; 0: the defaults), then the names, sort indices,
 * metadata, fits and summary. Memory: the reorder buffer and tables
 * bounded in size, whatever the trace's length. @fn is called from the
 * caller's thread.
 * Return: 0, -ENOMEM, -EBADMSG (npuprof_trace_error()), -errno of read,
 * or the first nonzero value of @fn.
 */
int npf_timeline_run(struct npuprof_trace *trace, size_t max_held,
		     int64_t window_ns, npf_tl_fn fn, void *ctx,
		     struct npf_tl_stats *stats);

#endif /* NPF_TIMELINE_H */
