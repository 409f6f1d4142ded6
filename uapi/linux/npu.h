/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * npu.h - userspace ABI of the NPU driver (npu.ko)
 *
 * Documentation/npu/uapi.rst describes every ioctl; the kernel-doc here is
 * the reference for every field.
 *
 * Conventions:
 *  - Every struct is extensible: fields are only ever added in place of
 *    reserved ones. Reserved fields and unknown flags must be zero on input,
 *    or the ioctl fails with -EINVAL.
 *  - Timestamps named *_ns are CLOCK_MONOTONIC nanoseconds; *_tick values
 *    are raw device clock ticks (see npu_info.clock_hz).
 */
#ifndef _UAPI_LINUX_NPU_H
#define _UAPI_LINUX_NPU_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NPU_IOCTL_BASE		0xb8

/* Version of struct npu_info reported in npu_info.version */
#define NPU_INFO_VERSION	1

/**
 * struct npu_info - device information, from NPU_IOCTL_GET_INFO
 * @version: out: NPU_INFO_VERSION
 * @flags: in: must be 0
 * @hw_version: out: hardware interface version, major << 16 | minor
 * @pe_count: out: processing elements
 * @clock_hz: out: device clock frequency
 * @dram_size: out: bytes of device memory usable for buffers
 * @sram_size: out: on-chip SRAM bytes per PE
 * @dma_bw: out: DMA bandwidth per PE in MB/s
 * @macs_per_cycle: out: int8 multiply-accumulates per cycle per PE
 * @trace_levels: out: bit n set when trace level n is supported
 * @caps: out: NPU_INFO_CAP_* capabilities
 * @minor: out: N of /dev/npuN
 * @reserved: in: must be 0; out: 0
 */
struct npu_info {
	__u32 version;
	__u32 flags;
	__u32 hw_version;
	__u32 pe_count;
	__u64 clock_hz;
	__u64 dram_size;
	__u32 sram_size;
	__u32 dma_bw;
	__u32 macs_per_cycle;
	__u32 trace_levels;
	__u32 caps;
	__u32 minor;
	__u64 reserved[8];
};

/* npu_info.caps; same values as the hardware's NPU_REG_CAPS */
#define NPU_INFO_CAP_TRACE		(1u << 0)	/* hardware trace */
#define NPU_INFO_CAP_CLOCK_LATCH	(1u << 1)	/* device clock sampling */
#define NPU_INFO_CAP_MULTI_PE		(1u << 2)	/* PEs run concurrently */

/**
 * struct npu_ping - doorbell to interrupt round trip, from NPU_IOCTL_PING
 * @flags: in: must be 0
 * @count: in: round trips to make, 1..1024
 * @min_ns: out: fastest round trip
 * @max_ns: out: slowest round trip
 * @total_ns: out: sum of all round trips
 * @reserved: in: must be 0
 *
 * Each round trip posts an NPU_MBOX_PING request, rings the mailbox doorbell
 * and sleeps until the device's MSI-X interrupt acknowledges it.
 */
struct npu_ping {
	__u32 flags;
	__u32 count;
	__u64 min_ns;
	__u64 max_ns;
	__u64 total_ns;
	__u64 reserved[4];
};

/* npu_bo_create.flags */
#define NPU_BO_PROGRAM		(1u << 0)	/* holds a program (hint) */

/**
 * struct npu_bo_create - allocate a buffer in device memory
 * @size: in: bytes, > 0; rounded up to the page size
 * @flags: in: NPU_BO_*
 * @handle: out: handle, valid on this fd only
 * @dev_addr: out: device address of the buffer
 * @mmap_offset: out: offset to pass to mmap() on this fd
 * @reserved: in: must be 0
 *
 * The buffer is zeroed. It lives until NPU_IOCTL_BO_FREE or close of the fd,
 * and after that until the last job using it has completed and the last
 * mapping of it is gone.
 */
struct npu_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 dev_addr;
	__u64 mmap_offset;
	__u64 reserved[2];
};

/**
 * struct npu_bo_free - release a buffer handle
 * @handle: in: handle from NPU_IOCTL_BO_CREATE
 * @flags: in: must be 0
 */
struct npu_bo_free {
	__u32 handle;
	__u32 flags;
};

#define NPU_PE_ANY		0xffffffffu
#define NPU_MAX_JOB_BUFS	12

/**
 * struct npu_submit - queue a job
 * @flags: in: must be 0
 * @pe: in: PE to run on, or NPU_PE_ANY
 * @nbufs: in: entries in @bufs, 1..NPU_MAX_JOB_BUFS
 * @prog_slot: in: index in @bufs of the buffer holding the program
 * @prog_offset: in: byte offset of the program in it, 64-byte aligned
 * @prog_size: in: bytes of program
 * @bufs: in: pointer to an array of @nbufs __u32 buffer handles; slot i of
 *	the program is bufs[i]. A handle may appear once.
 * @job_id: out: job id, for NPU_IOCTL_WAIT
 * @reserved: in: must be 0
 */
struct npu_submit {
	__u32 flags;
	__u32 pe;
	__u32 nbufs;
	__u32 prog_slot;
	__u32 prog_offset;
	__u32 prog_size;
	__u64 bufs;
	__u64 job_id;
	__u64 reserved[4];
};

/* Job status, npu_wait.status */
#define NPU_JOB_OK		0
#define NPU_JOB_BAD_OPCODE	1
#define NPU_JOB_BAD_ADDRESS	2
#define NPU_JOB_MISALIGNED	3
#define NPU_JOB_BAD_SHAPE	4
#define NPU_JOB_BAD_PROGRAM	5
#define NPU_JOB_ABORTED		6	/* device reset while queued or running */
#define NPU_JOB_BAD_CMD		7
#define NPU_JOB_TIMEOUT		8	/* exceeded the job timeout */

/* npu_wait.flags */
#define NPU_WAIT_ANY		(1u << 0)	/* any completed job of this fd */

/**
 * struct npu_wait - wait for a job and collect its result
 * @flags: in: NPU_WAIT_*
 * @pe: out: PE that ran the job
 * @job_id: in: job to wait for (ignored with NPU_WAIT_ANY); out: the job
 * @timeout_ns: in: relative timeout, < 0 waits forever, 0 polls
 * @status: out: NPU_JOB_*
 * @op_index: out: failing operator when @status is not NPU_JOB_OK
 * @start_tick: out: device clock at job start
 * @end_tick: out: device clock at job end
 * @submit_ns: out: CLOCK_MONOTONIC at submission
 * @complete_ns: out: CLOCK_MONOTONIC when the driver saw the completion
 * @reserved: in: must be 0
 *
 * A job's result is returned once; waiting for it again fails with -ENOENT.
 * Fails with -ETIMEDOUT when the timeout expires first.
 */
struct npu_wait {
	__u32 flags;
	__u32 pe;
	__u64 job_id;
	__s64 timeout_ns;
	__u32 status;
	__u32 op_index;
	__u64 start_tick;
	__u64 end_tick;
	__u64 submit_ns;
	__u64 complete_ns;
	__u64 reserved[4];
};

/*
 * ---- TRACE section: trace fd, ring layout, records, clock samples. ----
 * Owned by the trace engineer (see driver/npu_trace.h); keep edits here
 * local to this section.
 */

/* ---- end of TRACE section ---- */

#define NPU_IOCTL_GET_INFO	_IOWR(NPU_IOCTL_BASE, 0x00, struct npu_info)
#define NPU_IOCTL_PING		_IOWR(NPU_IOCTL_BASE, 0x01, struct npu_ping)
#define NPU_IOCTL_BO_CREATE	_IOWR(NPU_IOCTL_BASE, 0x10, struct npu_bo_create)
#define NPU_IOCTL_BO_FREE	_IOW(NPU_IOCTL_BASE, 0x11, struct npu_bo_free)
#define NPU_IOCTL_SUBMIT	_IOWR(NPU_IOCTL_BASE, 0x20, struct npu_submit)
#define NPU_IOCTL_WAIT		_IOWR(NPU_IOCTL_BASE, 0x21, struct npu_wait)

#endif /* _UAPI_LINUX_NPU_H */
