/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * npu_netlink.h - the generic netlink family "npu" of the NPU driver
 *
 * The control plane of npu.ko: device discovery (NPU_CMD_DEV_GET),
 * statistics (NPU_CMD_STATS_GET) and the multicast group "events".
 * Documentation/npu/netlink.rst describes it; the machine-readable spec is
 * Documentation/netlink/specs/npu.yaml (tools/net/ynl can drive it). The
 * family is resolved by name (NPU_GENL_NAME) through the generic netlink
 * controller.
 *
 * Every integer attribute is host-endian; u64 attributes are 64-bit
 * aligned with the *_PAD attribute of their set. Requests are validated
 * strictly: unknown attributes, wrong lengths and out-of-range values fail
 * with -EINVAL and an extended-ack message naming the attribute.
 */
#ifndef _UAPI_LINUX_NPU_NETLINK_H
#define _UAPI_LINUX_NPU_NETLINK_H

#define NPU_GENL_NAME		"npu"
#define NPU_GENL_VERSION	1
#define NPU_GENL_MCGRP_EVENTS	"events"

/**
 * enum npu_dev_state - NPU_A_DEV_STATE
 * @NPU_DEV_STATE_ALIVE: bound and answering
 * @NPU_DEV_STATE_DEAD: stopped answering a reset; jobs fail with EIO until
 *	the function is bound again
 * @NPU_DEV_STATE_REMOVED: being removed (only in NPU_CMD_DEV_DEL_NTF)
 */
enum npu_dev_state {
	NPU_DEV_STATE_ALIVE = 1,
	NPU_DEV_STATE_DEAD,
	NPU_DEV_STATE_REMOVED,
};

/**
 * enum npu_a_dev - attribute set "dev": one device
 * @NPU_A_DEV_INDEX: u32, N of /dev/npuN; the key of NPU_CMD_DEV_GET
 * @NPU_A_DEV_NAME: string, "npuN"
 * @NPU_A_DEV_PCI_ADDR: string, PCI address "DDDD:BB:SS.F"
 * @NPU_A_DEV_HW_VERSION: u32, hardware interface version, major << 16 | minor
 * @NPU_A_DEV_PE_COUNT: u32, processing elements
 * @NPU_A_DEV_CLOCK_HZ: u32, device clock frequency
 * @NPU_A_DEV_DRAM_SIZE: u64, bytes of device memory
 * @NPU_A_DEV_TRACE_LEVELS: u32, bit n set when trace level n is supported
 * @NPU_A_DEV_TRACE_MAX_PAGES: u32, most data pages of one trace ring
 * @NPU_A_DEV_STATE: u32, enum npu_dev_state
 * @NPU_A_DEV_PAD: padding for u64 attributes
 */
enum npu_a_dev {
	NPU_A_DEV_UNSPEC,
	NPU_A_DEV_INDEX,
	NPU_A_DEV_NAME,
	NPU_A_DEV_PCI_ADDR,
	NPU_A_DEV_HW_VERSION,
	NPU_A_DEV_PE_COUNT,
	NPU_A_DEV_CLOCK_HZ,
	NPU_A_DEV_DRAM_SIZE,
	NPU_A_DEV_TRACE_LEVELS,
	NPU_A_DEV_TRACE_MAX_PAGES,
	NPU_A_DEV_STATE,
	NPU_A_DEV_PAD,

	__NPU_A_DEV_MAX,
	NPU_A_DEV_MAX = __NPU_A_DEV_MAX - 1
};

/**
 * enum npu_a_stats - attribute set "stats": counters of one device
 * @NPU_A_STATS_INDEX: u32, the device (key of NPU_CMD_STATS_GET)
 * @NPU_A_STATS_RESETS: u64, device resets done by the driver
 * @NPU_A_STATS_TRACE_RECORDS: u64, records written to the device's trace
 *	rings, all rings summed
 * @NPU_A_STATS_TRACE_LOST: u64, records the rings lost (ring full, device
 *	overflow, host), all rings summed
 * @NPU_A_STATS_PE: nest, set "pe-stats", once per PE in PE order
 * @NPU_A_STATS_PAD: padding for u64 attributes
 * @NPU_A_STATS_MEM_USED: u64, bytes of device memory held by buffers now
 *	(until its memory is freed, a buffer counts: also after BO_FREE
 *	while a job or a mapping holds it)
 * @NPU_A_STATS_MEM_PEAK: u64, the highest MEM_USED since the device was
 *	bound or since the peak was reset (sysfs memory/peak)
 * @NPU_A_STATS_MEM_ALLOCS: u64, buffers allocated
 * @NPU_A_STATS_MEM_FREES: u64, buffers whose memory was freed
 * @NPU_A_STATS_MEM_FAIL_NOMEM: u64, NPU_IOCTL_BO_CREATE calls that failed
 *	with ENOMEM
 * @NPU_A_STATS_MEM_FAIL_QUOTA: u64, likewise with EDQUOT
 * @NPU_A_STATS_MEM_FREE: u64, bytes of device memory free now
 * @NPU_A_STATS_MEM_LARGEST_FREE: u64, bytes of the largest free extent
 *	now: the largest buffer that can be allocated
 *
 * Counters start at 0 when the device is bound and only grow; the
 * MEM_USED, MEM_FREE and MEM_LARGEST_FREE values are what they are now,
 * and MEM_PEAK can be reset. The MEM_* values are read at one instant.
 */
enum npu_a_stats {
	NPU_A_STATS_UNSPEC,
	NPU_A_STATS_INDEX,
	NPU_A_STATS_RESETS,
	NPU_A_STATS_TRACE_RECORDS,
	NPU_A_STATS_TRACE_LOST,
	NPU_A_STATS_PE,
	NPU_A_STATS_PAD,
	NPU_A_STATS_MEM_USED,
	NPU_A_STATS_MEM_PEAK,
	NPU_A_STATS_MEM_ALLOCS,
	NPU_A_STATS_MEM_FREES,
	NPU_A_STATS_MEM_FAIL_NOMEM,
	NPU_A_STATS_MEM_FAIL_QUOTA,
	NPU_A_STATS_MEM_FREE,
	NPU_A_STATS_MEM_LARGEST_FREE,

	__NPU_A_STATS_MAX,
	NPU_A_STATS_MAX = __NPU_A_STATS_MAX - 1
};

/**
 * enum npu_a_pe_stats - attribute set "pe-stats": counters of one PE
 * @NPU_A_PE_STATS_INDEX: u32, the PE
 * @NPU_A_PE_STATS_JOBS_COMPLETED: u64, jobs that completed with status OK
 * @NPU_A_PE_STATS_JOBS_FAILED: u64, jobs that completed with any other
 *	status (device error, aborted by a reset, timed out)
 * @NPU_A_PE_STATS_BUSY_NS: u64, sum of the jobs' device time (end - start
 *	tick), in ns of the device clock
 * @NPU_A_PE_STATS_DMA_BYTES: u64, bytes the PE moved by DMA, from the
 *	device's EXEC trace records (jobs run while a trace ring was enabled)
 * @NPU_A_PE_STATS_MACS: u64, multiply-accumulates, likewise
 * @NPU_A_PE_STATS_PAD: padding for u64 attributes
 */
enum npu_a_pe_stats {
	NPU_A_PE_STATS_UNSPEC,
	NPU_A_PE_STATS_INDEX,
	NPU_A_PE_STATS_JOBS_COMPLETED,
	NPU_A_PE_STATS_JOBS_FAILED,
	NPU_A_PE_STATS_BUSY_NS,
	NPU_A_PE_STATS_DMA_BYTES,
	NPU_A_PE_STATS_MACS,
	NPU_A_PE_STATS_PAD,

	__NPU_A_PE_STATS_MAX,
	NPU_A_PE_STATS_MAX = __NPU_A_PE_STATS_MAX - 1
};

/**
 * enum npu_a_event - attribute set "event": a notification's payload
 * @NPU_A_EVENT_DEV_INDEX: u32, the device
 * @NPU_A_EVENT_JOB_ID: u64, the job (job error, job timeout)
 * @NPU_A_EVENT_PE: u32, the job's PE
 * @NPU_A_EVENT_STATUS: u32, the job's NPU_JOB_* status
 * @NPU_A_EVENT_PID: u32, the submitting process, in the initial PID
 *	namespace
 * @NPU_A_EVENT_RING_ID: u64, the trace ring that lost records (trace
 *	overflow; the ring id of its fdinfo)
 * @NPU_A_EVENT_LOST: u64, records the ring lost so far
 * @NPU_A_EVENT_TIME_NS: u64, CLOCK_MONOTONIC time of the event
 * @NPU_A_EVENT_PAD: padding for u64 attributes
 */
enum npu_a_event {
	NPU_A_EVENT_UNSPEC,
	NPU_A_EVENT_DEV_INDEX,
	NPU_A_EVENT_JOB_ID,
	NPU_A_EVENT_PE,
	NPU_A_EVENT_STATUS,
	NPU_A_EVENT_PID,
	NPU_A_EVENT_RING_ID,
	NPU_A_EVENT_LOST,
	NPU_A_EVENT_TIME_NS,
	NPU_A_EVENT_PAD,

	__NPU_A_EVENT_MAX,
	NPU_A_EVENT_MAX = __NPU_A_EVENT_MAX - 1
};

/**
 * enum npu_cmd - commands and notifications
 * @NPU_CMD_DEV_GET: do (NPU_A_DEV_INDEX required) or dump; replies with set
 *	"dev"
 * @NPU_CMD_STATS_GET: do (NPU_A_STATS_INDEX required) or dump; replies
 *	with set "stats"
 * @NPU_CMD_DEV_ADD_NTF: event, set "dev": a device was bound
 * @NPU_CMD_DEV_DEL_NTF: event, set "dev": a device is being removed
 * @NPU_CMD_JOB_ERROR_NTF: event, set "event": a job failed on the device
 * @NPU_CMD_JOB_TIMEOUT_NTF: event, set "event": a job timed out
 * @NPU_CMD_DEV_RESET_NTF: event, set "event": the driver reset the device
 * @NPU_CMD_TRACE_OVERFLOW_NTF: event, set "event": a trace ring lost
 *	records; at most one per ring per second
 */
enum npu_cmd {
	NPU_CMD_UNSPEC,
	NPU_CMD_DEV_GET,
	NPU_CMD_STATS_GET,
	NPU_CMD_DEV_ADD_NTF,
	NPU_CMD_DEV_DEL_NTF,
	NPU_CMD_JOB_ERROR_NTF,
	NPU_CMD_JOB_TIMEOUT_NTF,
	NPU_CMD_DEV_RESET_NTF,
	NPU_CMD_TRACE_OVERFLOW_NTF,

	__NPU_CMD_MAX,
	NPU_CMD_MAX = __NPU_CMD_MAX - 1
};

#endif /* _UAPI_LINUX_NPU_NETLINK_H */
