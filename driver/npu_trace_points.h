/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_trace_points.h - tracepoints of the NPU driver (TRACE_SYSTEM npu).
 *
 * Usable from ftrace (events/npu/), perf (-e npu:npu_job_submit) and eBPF
 * (raw_tp/npu_job_submit, tracepoint/npu/npu_job_submit). They fire
 * whether or not a trace fd is open. Documentation/npu/ring.rst lists their
 * fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM npu

#if !defined(_NPU_TRACE_POINTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NPU_TRACE_POINTS_H

#include <linux/tracepoint.h>
#include <linux/types.h>

/**
 * npu_job_submit - a job was queued to the device
 * @dev: N of /dev/npuN
 * @job_id: job id
 * @pe: PE whose queue received the job
 * @tgid: submitting process
 * @pid: submitting thread
 * @submit_ns: CLOCK_MONOTONIC at submission
 */
TRACE_EVENT(npu_job_submit,
	    TP_PROTO(int dev, u64 job_id, u32 pe, pid_t tgid, pid_t pid,
		     u64 submit_ns),
	    TP_ARGS(dev, job_id, pe, tgid, pid, submit_ns),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, pe)
			     __field(u64, job_id)
			     __field(pid_t, tgid)
			     __field(pid_t, pid)
			     __field(u64, submit_ns)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pe = pe;
			   __entry->job_id = job_id;
			   __entry->tgid = tgid;
			   __entry->pid = pid;
			   __entry->submit_ns = submit_ns;),
	    TP_printk("npu%d job=%llu pe=%u tgid=%d pid=%d submit_ns=%llu",
		      __entry->dev, __entry->job_id, __entry->pe, __entry->tgid,
		      __entry->pid, __entry->submit_ns)
);

/**
 * npu_job_start - the driver learned that a job started on the device
 * @dev: N of /dev/npuN
 * @job_id: job id
 * @pe: PE running the job
 * @start_tick: device clock at the start of the job
 *
 * Fires when the first device trace record of the job is drained (trace
 * level 1 or 2) or, without one, in the completion interrupt just before
 * npu_job_complete.
 */
TRACE_EVENT(npu_job_start,
	    TP_PROTO(int dev, u64 job_id, u32 pe, u64 start_tick),
	    TP_ARGS(dev, job_id, pe, start_tick),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, pe)
			     __field(u64, job_id)
			     __field(u64, start_tick)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pe = pe;
			   __entry->job_id = job_id;
			   __entry->start_tick = start_tick;),
	    TP_printk("npu%d job=%llu pe=%u start_tick=%llu",
		      __entry->dev, __entry->job_id, __entry->pe,
		      __entry->start_tick)
);

/**
 * npu_job_complete - the driver saw a job's completion
 * @dev: N of /dev/npuN
 * @job_id: job id
 * @pe: PE that ran the job
 * @status: NPU_JOB_* status
 * @tgid: submitting process
 * @submit_ns: CLOCK_MONOTONIC at submission
 * @complete_ns: CLOCK_MONOTONIC when the completion was seen
 * @start_tick: device clock at start
 * @end_tick: device clock at end
 */
TRACE_EVENT(npu_job_complete,
	    TP_PROTO(int dev, u64 job_id, u32 pe, u32 status, pid_t tgid,
		     u64 submit_ns, u64 complete_ns, u64 start_tick, u64 end_tick),
	    TP_ARGS(dev, job_id, pe, status, tgid, submit_ns, complete_ns,
		    start_tick, end_tick),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, pe)
			     __field(u64, job_id)
			     __field(u32, status)
			     __field(pid_t, tgid)
			     __field(u64, submit_ns)
			     __field(u64, complete_ns)
			     __field(u64, start_tick)
			     __field(u64, end_tick)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pe = pe;
			   __entry->job_id = job_id;
			   __entry->status = status;
			   __entry->tgid = tgid;
			   __entry->submit_ns = submit_ns;
			   __entry->complete_ns = complete_ns;
			   __entry->start_tick = start_tick;
			   __entry->end_tick = end_tick;),
	    TP_printk("npu%d job=%llu pe=%u status=%u tgid=%d submit_ns=%llu complete_ns=%llu ticks=%llu..%llu",
		      __entry->dev, __entry->job_id, __entry->pe, __entry->status,
		      __entry->tgid, __entry->submit_ns, __entry->complete_ns,
		      __entry->start_tick, __entry->end_tick)
);

/**
 * npu_trace_lost - a trace ring reported dropped records
 * @dev: N of /dev/npuN
 * @ring: id of the ring (ring_id in /proc/PID/fdinfo/FD of the trace fd)
 * @reason: NPU_TRACE_LOST_*
 * @count: records dropped, as written in the LOST record
 */
TRACE_EVENT(npu_trace_lost,
	    TP_PROTO(int dev, u64 ring, u32 reason, u64 count),
	    TP_ARGS(dev, ring, reason, count),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, reason)
			     __field(u64, ring)
			     __field(u64, count)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->reason = reason;
			   __entry->ring = ring;
			   __entry->count = count;),
	    TP_printk("npu%d ring=%llu reason=%u count=%llu",
		      __entry->dev, __entry->ring, __entry->reason, __entry->count)
);

/**
 * npu_bo_alloc - a buffer's device memory was allocated, or could not be
 * @dev: N of /dev/npuN
 * @bo_id: the buffer (npu_trace_rec_bo.bo_id), 0 when @err is set
 * @dev_addr: device address, 0 when @err is set
 * @size: bytes (asked, rounded up to the page size, when @err is set)
 * @kind: NPU_BO_KIND_*
 * @tgid: creating process
 * @err: 0, -ENOMEM or -EDQUOT
 * @used: bytes of device memory held by buffers afterwards
 */
TRACE_EVENT(npu_bo_alloc,
	    TP_PROTO(int dev, u64 bo_id, u64 dev_addr, u64 size, u32 kind,
		     pid_t tgid, int err, u64 used),
	    TP_ARGS(dev, bo_id, dev_addr, size, kind, tgid, err, used),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, kind)
			     __field(u64, bo_id)
			     __field(u64, dev_addr)
			     __field(u64, size)
			     __field(pid_t, tgid)
			     __field(int, err)
			     __field(u64, used)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->kind = kind;
			   __entry->bo_id = bo_id;
			   __entry->dev_addr = dev_addr;
			   __entry->size = size;
			   __entry->tgid = tgid;
			   __entry->err = err;
			   __entry->used = used;),
	    TP_printk("npu%d bo=%llu addr=%#llx size=%llu kind=%u tgid=%d err=%d used=%llu",
		      __entry->dev, __entry->bo_id, __entry->dev_addr,
		      __entry->size, __entry->kind, __entry->tgid, __entry->err,
		      __entry->used)
);

/**
 * npu_bo_free - a buffer's device memory returned to the allocator
 * @dev: N of /dev/npuN
 * @bo_id: the buffer, as in its npu_bo_alloc
 * @dev_addr: device address
 * @size: bytes
 * @kind: NPU_BO_KIND_*
 * @tgid: creating process
 * @reason: NPU_TRACE_BO_FREE_*: the handle, the file, the last mapping or
 *	the last job let it go
 * @used: bytes of device memory held by buffers afterwards
 */
TRACE_EVENT(npu_bo_free,
	    TP_PROTO(int dev, u64 bo_id, u64 dev_addr, u64 size, u32 kind,
		     pid_t tgid, u32 reason, u64 used),
	    TP_ARGS(dev, bo_id, dev_addr, size, kind, tgid, reason, used),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, kind)
			     __field(u64, bo_id)
			     __field(u64, dev_addr)
			     __field(u64, size)
			     __field(pid_t, tgid)
			     __field(u32, reason)
			     __field(u64, used)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->kind = kind;
			   __entry->bo_id = bo_id;
			   __entry->dev_addr = dev_addr;
			   __entry->size = size;
			   __entry->tgid = tgid;
			   __entry->reason = reason;
			   __entry->used = used;),
	    TP_printk("npu%d bo=%llu addr=%#llx size=%llu kind=%u tgid=%d reason=%u used=%llu",
		      __entry->dev, __entry->bo_id, __entry->dev_addr,
		      __entry->size, __entry->kind, __entry->tgid,
		      __entry->reason, __entry->used)
);

#ifndef NPU_FAULT_DEAD
/* npu_device_fault.fault */
#define NPU_FAULT_DEAD		1	/* no answer to a reset: device dead */
#define NPU_FAULT_SPURIOUS_CPL	2	/* completion of a never-submitted job */
#define NPU_FAULT_TRACE_CORRUPT	3	/* corrupted trace area span skipped */
#endif

/**
 * npu_device_fault - the device misbehaved (Documentation/npu/driver.rst,
 *	"Device faults"); the kernel log says it too, rate-limited
 * @dev: N of /dev/npuN
 * @fault: NPU_FAULT_*
 * @arg: NPU_FAULT_SPURIOUS_CPL: the job id; NPU_FAULT_TRACE_CORRUPT: bytes
 *	of the trace area skipped; NPU_FAULT_DEAD: 0
 */
TRACE_EVENT(npu_device_fault,
	    TP_PROTO(int dev, u32 fault, u64 arg),
	    TP_ARGS(dev, fault, arg),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, fault)
			     __field(u64, arg)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->fault = fault;
			   __entry->arg = arg;),
	    TP_printk("npu%d fault=%s arg=%llu", __entry->dev,
		      __print_symbolic(__entry->fault,
				       { NPU_FAULT_DEAD, "dead" },
				       { NPU_FAULT_SPURIOUS_CPL, "spurious_completion" },
				       { NPU_FAULT_TRACE_CORRUPT, "trace_corrupt" }),
		      __entry->arg)
);

#endif /* _NPU_TRACE_POINTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE npu_trace_points
#include <trace/define_trace.h>
