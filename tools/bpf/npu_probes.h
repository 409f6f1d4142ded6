/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npu_probes.h - what the BPF programs of npu_probes.bpf.c send to their
 * loader (npubpf.c) through the BPF ring buffer, shared by both sides.
 *
 * Every event is a struct npb_event (a struct npb_label_event for a
 * labelled record), stamped with bpf_ktime_get_ns() (CLOCK_MONOTONIC),
 * the pid (thread group) and tid of the thread it describes.
 */
#ifndef NPU_PROBES_H
#define NPU_PROBES_H

/* npb_event.type */
enum npb_event_type {
	NPB_EV_USDT_SPAN = 1,	/* a NAME_end probe: a[0..10] its arguments
				 * (lib/npuprof/npuprof_usdt.h) */
	NPB_EV_USDT_LABEL = 2,	/* npuprof:region_end, with the label */
	NPB_EV_UPROBE_ENTRY = 3,	/* @fn entered: a[0..3] its arguments */
	NPB_EV_UPROBE_RET = 4,	/* @fn returned: a[0] the return value,
				 * a[1] for npu_runner_acquire: *inf */
	NPB_EV_SUBMIT = 5,	/* npu_job_submit: a[] dev, job_id, pe,
				 * tgid, pid, submit_ns */
	NPB_EV_COMPLETE = 6,	/* npu_job_complete: a[] dev, job_id, pe,
				 * status, tgid, submit_ns, complete_ns */
	NPB_EV_LOST = 7,	/* npu_trace_lost: a[] dev, ring, reason,
				 * count */
	NPB_EV_OFFCPU = 8,	/* a submitting thread was off CPU while
				 * waiting: a[0] from, a[1] to (ns) */
};

/* npb_event.fn: the libnpu functions of the uprobe fallback */
enum npb_fn {
	NPB_FN_RUN = 1,			/* npu_runner_run */
	NPB_FN_ACQUIRE = 2,		/* npu_runner_acquire */
	NPB_FN_RELEASE = 3,		/* npu_inference_release */
	NPB_FN_SET_INPUT = 4,		/* npu_inference_set_input */
	NPB_FN_SET_INPUT_U8 = 5,	/* npu_inference_set_input_u8 */
	NPB_FN_GET_OUTPUT = 6,		/* npu_inference_get_output */
	NPB_FN_GET_OUTPUT_U8 = 7,	/* npu_inference_get_output_u8 */
	NPB_FN_SUBMIT = 8,		/* npu_inference_submit */
	NPB_FN_WAIT = 9,		/* npu_inference_wait */
	NPB_FN_QUANTIZE = 10,		/* npu_quantize */
	NPB_FN_LOWER = 11,		/* npu_lower */
	NPB_FN_UNLOWER = 12,		/* npu_unlower */
	NPB_FN_DEQUANTIZE = 13,		/* npu_dequantize */
	NPB_FN_MAX = 13,
};

/* USDT cookies: which probe fired */
#define NPB_USDT_END		1	/* any npu:NAME_end */
#define NPB_USDT_RECORD_END	2	/* npuprof:region_end */
#define NPB_USDT_WAIT_BEGIN	3	/* npu:wait_begin (off-CPU only) */

/* arg0 of a wait span's probes: NPUPROF_SPAN_WAIT (checked in npubpf.c) */
#define NPB_KIND_WAIT		11

#define NPB_NARGS		11
#define NPB_LABEL_MAX		256

/* counters[] indexes */
#define NPB_CNT_RB_FULL		0	/* events lost: ring buffer full */
#define NPB_CNT_OFFCPU_NS	1	/* off-CPU ns of submitting threads */
#define NPB_CNT_OFFCPU_WAIT_NS	2	/* ... of them, inside a wait */
#define NPB_CNT_MAX		3

struct npb_event {
	__u32 type;
	__u32 fn;
	__s32 pid;
	__s32 tid;
	__u64 ts;
	__u64 a[NPB_NARGS];
};

struct npb_label_event {
	struct npb_event e;
	char label[NPB_LABEL_MAX];
};

#endif /* NPU_PROBES_H */
