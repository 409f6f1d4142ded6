/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * npu.h - userspace ABI of the NPU driver (npu.ko)
 *
 * Documentation/npu/uapi.rst describes every ioctl, mmap() and poll() on
 * /dev/npuN; Documentation/npu/ring.rst the trace rings. The kernel-doc here
 * is the reference for every field.
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

/*
 * Version of this ABI, reported in npu_info.version. It changes only when
 * the ABI breaks (a field moves or changes meaning); fields added in place
 * of reserved ones keep it. 2: jobs are described by struct npu_job_desc,
 * their results given by struct npu_job_result.
 */
#define NPU_INFO_VERSION	2

/**
 * struct npu_info - device information, from NPU_IOCTL_GET_INFO
 * @version: out: NPU_INFO_VERSION of the driver; a program built against
 *	another version must not use the device
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

/* Largest npu_ping.count */
#define NPU_PING_MAX_COUNT	1024

/**
 * struct npu_ping - doorbell to interrupt round trip, from NPU_IOCTL_PING
 * @flags: in: must be 0
 * @count: in: round trips to make, 1..NPU_PING_MAX_COUNT
 * @min_ns: out: fastest round trip
 * @max_ns: out: slowest round trip
 * @total_ns: out: sum of all round trips
 * @reserved: in: must be 0
 *
 * Each round trip posts an NPU_MBOX_PING request, rings the mailbox doorbell
 * and sleeps until the device's MSI-X interrupt acknowledges it. A round
 * trip is timed from just before the doorbell write to the interrupt
 * handler's observation of the acknowledgment.
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
#define NPU_BO_KIND_SHIFT	8
#define NPU_BO_KIND_MASK	(0xfu << NPU_BO_KIND_SHIFT)
/* The kind of a buffer in npu_bo_create.flags, for memory profiling */
#define NPU_BO_KIND(kind)	((__u32)(kind) << NPU_BO_KIND_SHIFT)
/* The NPU_BO_KIND_* value of npu_bo_create.flags */
#define NPU_BO_KIND_OF(flags)	(((flags) & NPU_BO_KIND_MASK) >> NPU_BO_KIND_SHIFT)

/*
 * Buffer kinds, NPU_BO_KIND(NPU_BO_KIND_*) in npu_bo_create.flags: what
 * the buffer is for, as memory profiles group buffers (trace records
 * NPU_TRACE_REC_BO_ALLOC and NPU_TRACE_REC_BO_FREE carry it). The driver
 * does not otherwise use it. A program that gives no kind gets
 * NPU_BO_KIND_OTHER, or NPU_BO_KIND_PROGRAM with NPU_BO_PROGRAM.
 */
#define NPU_BO_KIND_OTHER	0	/* not said */
#define NPU_BO_KIND_PROGRAM	1	/* a program and its constants */
#define NPU_BO_KIND_INPUT	2	/* written by the host before a job */
#define NPU_BO_KIND_OUTPUT	3	/* read by the host after a job */
#define NPU_BO_KIND_SCRATCH	4	/* intermediates, device only */
#define NPU_BO_KIND_MAX		NPU_BO_KIND_SCRATCH

/**
 * struct npu_bo_create - allocate a buffer in device memory
 * @size: in: bytes, > 0 and < 4 GiB; out: rounded up to the page size
 * @flags: in: NPU_BO_PROGRAM, and NPU_BO_KIND(k) with k one of
 *	NPU_BO_KIND_* (0: NPU_BO_KIND_OTHER); other bits must be 0
 * @handle: out: handle (never 0), valid on this fd only
 * @dev_addr: out: device address of the buffer, page aligned
 * @mmap_offset: out: offset to pass to mmap() (MAP_SHARED) on this fd
 * @reserved: in: must be 0
 *
 * The buffer is zeroed. It lives until NPU_IOCTL_BO_FREE or close of the fd,
 * and after that until the last job using it has completed and the last
 * mapping of it is gone. Fails with -ENOMEM when device memory has no free
 * range of @size bytes, and with -EDQUOT when the buffers of this fd whose
 * memory is not freed yet would hold more than the per-fd quota (module
 * parameter max_file_dram_pct, in percent of the device's DRAM).
 *
 * The allocation, its failure and the free of the memory are written to
 * the trace rings that see the creating process (NPU_TRACE_REC_BO_ALLOC,
 * NPU_TRACE_REC_BO_FREE) and counted in the device's memory statistics.
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
 * @reserved: in: must be 0
 */
struct npu_bo_free {
	__u32 handle;
	__u32 flags;
	__u64 reserved[2];
};

#define NPU_PE_ANY		0xffffffffu
#define NPU_MAX_JOB_BUFS	12

/**
 * struct npu_job_desc - a job: its program, its buffers and its PE
 * @flags: in: must be 0
 * @pe: in: PE to run on, or NPU_PE_ANY
 * @nbufs: in: entries in @bufs, 1..NPU_MAX_JOB_BUFS
 * @prog_slot: in: index in @bufs of the buffer holding the program
 * @prog_offset: in: byte offset of the program in it, 64-byte aligned
 * @prog_size: in: bytes of program
 * @bufs: in: pointer to an array of @nbufs __u32 buffer handles of this
 *	fd; slot i of the program is bufs[i]. A handle may appear once.
 *
 * What NPU_IOCTL_SUBMIT and NPU_URING_CMD_SUBMIT queue, checked alike by
 * both. The program must lie inside its buffer. A handle that is not this
 * fd's fails with -ENOENT; other bad fields with -EINVAL.
 */
struct npu_job_desc {
	__u32 flags;
	__u32 pe;
	__u32 nbufs;
	__u32 prog_slot;
	__u32 prog_offset;
	__u32 prog_size;
	__u64 bufs;
};

/**
 * struct npu_submit - queue a job, with NPU_IOCTL_SUBMIT
 * @job: in: the job
 * @job_id: out: job id, for NPU_IOCTL_WAIT; unique on the device and
 *	increasing in submission order
 * @reserved: in: must be 0
 *
 * When the PE's queue is full the call sleeps, or fails with -EAGAIN if
 * the fd is O_NONBLOCK.
 */
struct npu_submit {
	struct npu_job_desc job;
	__u64 job_id;
	__u64 reserved[4];
};

/* Job status, npu_job_result.status */
#define NPU_JOB_OK		0
#define NPU_JOB_BAD_OPCODE	1
#define NPU_JOB_BAD_ADDRESS	2
#define NPU_JOB_MISALIGNED	3
#define NPU_JOB_BAD_SHAPE	4
#define NPU_JOB_BAD_PROGRAM	5
#define NPU_JOB_ABORTED		6	/* device reset while queued or running */
#define NPU_JOB_BAD_CMD		7
#define NPU_JOB_TIMEOUT		8	/* exceeded the job timeout */

/**
 * struct npu_job_result - how a job went
 * @job_id: the job
 * @status: NPU_JOB_*
 * @pe: PE that ran the job
 * @op_index: failing operator when @status is not NPU_JOB_OK
 * @reserved: 0
 * @start_tick: device clock at job start
 * @end_tick: device clock at job end
 * @submit_ns: CLOCK_MONOTONIC at submission
 * @complete_ns: CLOCK_MONOTONIC when the driver saw the completion
 *
 * Written by the driver, never read: the result of NPU_IOCTL_WAIT
 * (npu_wait.result) and of an io_uring command (npu_uring_submit.result).
 * libnpu returns it too (npu_inference_wait()).
 */
struct npu_job_result {
	__u64 job_id;
	__u32 status;
	__u32 pe;
	__u32 op_index;
	__u32 reserved;
	__u64 start_tick;
	__u64 end_tick;
	__u64 submit_ns;
	__u64 complete_ns;
};

/* npu_wait.flags */
#define NPU_WAIT_ANY		(1u << 0)	/* any completed job of this fd */

/**
 * struct npu_wait - wait for a job and collect its result
 * @job_id: in: job to wait for (ignored with NPU_WAIT_ANY)
 * @timeout_ns: in: relative timeout, < 0 waits forever, 0 polls; out:
 *	the time left when a signal interrupted the wait (see below)
 * @flags: in: NPU_WAIT_*
 * @reserved: in: must be 0
 * @result: out: the job's result (with NPU_WAIT_ANY, @result.job_id says
 *	which job it is)
 *
 * A job's result is returned once; waiting for it again fails with -ENOENT,
 * as does waiting for another fd's job, and NPU_WAIT_ANY on an fd with no
 * outstanding and no completed job. Fails with -ETIMEDOUT when the timeout
 * expires first.
 *
 * A signal interrupts the wait as it does select(): a @timeout_ns >= 0 is
 * overwritten with the time left (0 if none is), and the call is
 * restarted with it when the signal has no handler or its handler has
 * SA_RESTART; otherwise it fails with -EINTR, and a retry with the same
 * struct continues where the wait stopped. Only @timeout_ns is written.
 * If it cannot be written, the call fails with -EINTR and is not restarted.
 */
struct npu_wait {
	__u64 job_id;
	__s64 timeout_ns;
	__u32 flags;
	__u32 reserved[7];
	struct npu_job_result result;
};

/*
 * ---- io_uring: IORING_OP_URING_CMD on /dev/npuN ----
 *
 * Documentation/npu/uapi.rst, "io_uring". A ring set up with
 * IORING_SETUP_SQE128 queues a job with an SQE whose cmd_op is
 * NPU_URING_CMD_SUBMIT and whose cmd area holds struct npu_uring_submit.
 * The CQE is posted when the job completes: cqe->res is the job's NPU_JOB_*
 * status (>= 0), or a negative errno when the command failed or was
 * cancelled; on an IORING_SETUP_CQE32 ring, big_cqe[0] is the job id (0 when
 * no job was queued). NPU_IOCTL_WAIT never returns such a job.
 */

/**
 * struct npu_uring_submit - payload of NPU_URING_CMD_SUBMIT (the SQE's cmd)
 * @job: in: the job, as for NPU_IOCTL_SUBMIT
 * @result: in: pointer to a struct npu_job_result that the driver writes,
 *	or 0 for none
 * @reserved: in: must be 0
 *
 * Read once, when the command is issued. The payload is 64 bytes: the ring
 * needs IORING_SETUP_SQE128 (a 64-byte SQE holds 16), or the command fails
 * with -EINVAL. A queue without room makes the command wait in io_uring's
 * worker, as a blocking NPU_IOCTL_SUBMIT sleeps.
 *
 * The driver writes @result's job_id when the job is queued (before the
 * command can complete), so a submitter that saw io_uring_enter() return
 * can read it unless the command had to wait for queue room; the rest of
 * it before the CQE is posted, by the submitting thread's task work. A
 * cancelled command writes only the job id.
 */
struct npu_uring_submit {
	struct npu_job_desc job;
	__u64 result;
	__u64 reserved[3];
};

/* cmd_op of an IORING_OP_URING_CMD SQE on /dev/npuN */
#define NPU_URING_CMD_SUBMIT	_IOWR(NPU_IOCTL_BASE, 0x28, struct npu_uring_submit)

/* ---- end of io_uring ---- */

/*
 * ---- Trace: trace fd, ring layout, records, clock samples. ----
 *
 * Documentation/npu/ring.rst describes the ring protocol. In short: a trace
 * fd from NPU_IOCTL_TRACE_OPEN is mmapped as one header page (struct
 * npu_trace_ring, read-write when MAP_SHARED) followed by data_size bytes
 * of data pages (read-only). The kernel appends records at @producer, the reader consumes
 * them up to @producer and then stores @consumer. Both are free-running
 * byte counts; the record at position p starts at data offset
 * p & (data_size - 1) and never wraps (a PAD record fills the tail).
 */

/* npu_trace_open.flags */
#define NPU_TRACE_ALL_PROCESSES	(1u << 0)	/* every process's jobs */

/* Bounds of npu_trace_open.data_pages (a power of two) */
#define NPU_TRACE_MIN_DATA_PAGES	1
#define NPU_TRACE_MAX_DATA_PAGES	4096

/**
 * struct npu_trace_open - open a trace ring, from NPU_IOCTL_TRACE_OPEN
 * @flags: in: NPU_TRACE_ALL_PROCESSES or 0. Without it the ring receives the
 *	job records of the opening process (thread group) only: that process
 *	itself, not its pid number, so a ring inherited by another process
 *	receives nothing more once its opener has exited, even if the pid is
 *	reused. With it, the caller needs CAP_PERFMON or CAP_SYS_ADMIN unless
 *	the module parameter trace_paranoid is 0; otherwise the ioctl fails
 *	with -EACCES.
 * @data_pages: in: pages of the data area, a power of two between
 *	NPU_TRACE_MIN_DATA_PAGES and NPU_TRACE_MAX_DATA_PAGES. The ring's
 *	pages (header included) are charged to the caller's user: beyond the
 *	module parameter trace_mlock_kb per user they count against
 *	RLIMIT_MEMLOCK (-EPERM when over it, unless CAP_IPC_LOCK); and to the
 *	caller's memory cgroup (-ENOMEM)
 * @watermark: in: poll() reports the fd readable when at least this many
 *	bytes are unread (0 means "any record"), and also while records are
 *	being dropped because the ring is full. Must be below the data size.
 * @fd: in: must be 0; out: the new trace fd, opened O_RDWR | O_CLOEXEC
 * @data_offset: in: must be 0; out: mmap offset of the data area (the
 *	page size)
 * @data_size: in: must be 0; out: bytes of the data area,
 *	@data_pages * page size
 * @reserved: in: must be 0; out: 0
 *
 * The ring starts disabled: it receives records after
 * NPU_TRACE_IOCTL_ENABLE on the trace fd. The trace fd holds a reference
 * to the device; it stays usable after the device is removed, but then its
 * ioctls fail with -ENODEV and poll() reports POLLHUP | POLLERR.
 */
struct npu_trace_open {
	__u32 flags;
	__u32 data_pages;
	__u32 watermark;
	__s32 fd;
	__u64 data_offset;
	__u64 data_size;
	__u64 reserved[4];
};

/* Version of the ring header and record formats, npu_trace_ring.version */
#define NPU_TRACE_RING_VERSION	1

/* npu_trace_ring.flags, written by the kernel */
#define NPU_TRACE_RING_F_ENABLED	(1u << 0)	/* receiving records */
#define NPU_TRACE_RING_F_DEAD		(1u << 1)	/* device removed */

/**
 * struct npu_trace_ring - the header page of a trace ring (mmap offset 0)
 * @producer: kernel: bytes of records written, free-running. Stored with
 *	release semantics after the records it covers; load it with acquire.
 * @version: kernel: NPU_TRACE_RING_VERSION
 * @flags: kernel: NPU_TRACE_RING_F_*
 * @data_offset: kernel: mmap offset of the data area (the page size)
 * @data_size: kernel: bytes of the data area, a power of two
 * @hdr_size: kernel: sizeof(struct npu_trace_ring)
 * @watermark: kernel: npu_trace_open.watermark
 * @rsvd0: 0; pads the producer's cache lines
 * @consumer: reader: bytes consumed, free-running. Store it with release
 *	semantics after reading the records it covers. The kernel only reads
 *	it; a value the kernel finds inconsistent (ahead of @producer, or
 *	more than @data_size behind) makes it treat the ring as full.
 * @rsvd1: 0; pads the consumer's cache lines
 *
 * @producer and @consumer live 128 bytes apart, so that neither side's
 * writes invalidate the other's line. Positions are compared with !=
 * only: unread bytes are producer - consumer, in unsigned 64-bit.
 */
struct npu_trace_ring {
	__u64 producer;
	__u32 version;
	__u32 flags;
	__u64 data_offset;
	__u64 data_size;
	__u32 hdr_size;
	__u32 watermark;
	__u64 rsvd0[11];
	__u64 consumer;
	__u64 rsvd1[15];
};

/* Record types, npu_trace_rec_hdr.type */
#define NPU_TRACE_REC_PAD	0	/* skip @size bytes; carries no seq */
#define NPU_TRACE_REC_EXEC	1	/* struct npu_trace_rec_exec */
#define NPU_TRACE_REC_OP	2	/* struct npu_trace_rec_op */
#define NPU_TRACE_REC_CLOCK	3	/* struct npu_trace_rec_clock */
#define NPU_TRACE_REC_LOST	4	/* struct npu_trace_rec_lost */
#define NPU_TRACE_REC_BO_ALLOC	5	/* struct npu_trace_rec_bo */
#define NPU_TRACE_REC_BO_FREE	6	/* struct npu_trace_rec_bo */

/**
 * struct npu_trace_rec_hdr - header of every ring record
 * @type: NPU_TRACE_REC_*; a reader skips types it does not know
 * @size: bytes of the record including this header, a multiple of 8
 * @seq: ring sequence number. Every record the ring accepts or drops,
 *	except PAD, takes the next number (32 bits, wrapping), so the
 *	records missing between two records of seq a and b are b - a - 1,
 *	and they are exactly those counted by the NPU_TRACE_LOST_RING_FULL
 *	records in between. PAD records have seq 0.
 */
struct npu_trace_rec_hdr {
	__u16 type;
	__u16 size;
	__u32 seq;
};

/* npu_trace_rec_exec.flags */
#define NPU_TRACE_EXEC_F_DEVICE	(1u << 0)	/* device fields are valid */

/**
 * struct npu_trace_rec_exec - one job execution (NPU_TRACE_REC_EXEC)
 * @hdr: common header
 * @flags: NPU_TRACE_EXEC_F_*; without NPU_TRACE_EXEC_F_DEVICE (level 0, or
 *	the device dropped its record) every field from @pe on is 0
 * @status: NPU_JOB_* status, as NPU_IOCTL_WAIT returns it
 * @pid: submitting process (thread group id), in the PID namespace of the
 *	ring's opener; 0 when the process is not visible there
 * @tid: submitting thread, likewise
 * @job_id: job id from NPU_IOCTL_SUBMIT
 * @submit_ns: CLOCK_MONOTONIC when the job was queued
 * @complete_ns: CLOCK_MONOTONIC when the driver saw its completion
 * @pe: device: PE that ran the job
 * @dev_status: device: NPU_HW_STATUS_* of the execution
 * @exec_index: device: execution index of the command
 * @n_ops: device: operators executed
 * @dev_seq: device: sequence number of the device's record
 * @start_tick: device: clock at start, in ticks
 * @end_tick: device: clock at end, in ticks
 * @run_ticks: device: ticks the PE computed
 * @iowait_ticks: device: ticks the PE waited for DMA;
 *	end_tick - start_tick == run_ticks + iowait_ticks, exactly
 * @dma_bytes: device: bytes moved by DMA
 * @macs: device: multiply-accumulates performed
 *
 * Written when the driver sees the job's completion, after the OP records
 * of the same execution.
 */
struct npu_trace_rec_exec {
	struct npu_trace_rec_hdr hdr;
	__u32 flags;
	__u32 status;
	__s32 pid;
	__s32 tid;
	__u64 job_id;
	__u64 submit_ns;
	__u64 complete_ns;
	__u16 pe;
	__u16 dev_status;
	__u32 exec_index;
	__u32 n_ops;
	__u32 dev_seq;
	__u64 start_tick;
	__u64 end_tick;
	__u64 run_ticks;
	__u64 iowait_ticks;
	__u64 dma_bytes;
	__u64 macs;
};

/**
 * struct npu_trace_rec_op - one operator of an execution (NPU_TRACE_REC_OP)
 * @hdr: common header
 * @pid: submitting process (thread group id), in the PID namespace of the
 *	ring's opener; 0 when the process is not visible there
 * @tid: submitting thread, likewise
 * @job_id: job id from NPU_IOCTL_SUBMIT
 * @pe: PE that ran the operator
 * @opcode: NPU_OP_* (see Documentation/npu/program.rst)
 * @op_index: index of the operator in the program
 * @exec_index: execution index of the command
 * @dev_seq: sequence number of the device's record
 * @start_tick: device clock at start, in ticks
 * @end_tick: device clock at end, in ticks
 * @iowait_ticks: ticks waiting for DMA, <= end_tick - start_tick
 * @dma_bytes: bytes moved by DMA
 * @macs: multiply-accumulates performed
 *
 * Only rings enabled at level 2 receive OP records.
 */
struct npu_trace_rec_op {
	struct npu_trace_rec_hdr hdr;
	__s32 pid;
	__s32 tid;
	__u64 job_id;
	__u16 pe;
	__u16 opcode;
	__u32 op_index;
	__u32 exec_index;
	__u32 dev_seq;
	__u64 start_tick;
	__u64 end_tick;
	__u64 iowait_ticks;
	__u64 dma_bytes;
	__u64 macs;
};

/**
 * struct npu_trace_rec_clock - a device clock sample (NPU_TRACE_REC_CLOCK)
 * @hdr: common header
 * @samples: bracketed samples taken; this record is the narrowest of them
 * @rsvd: 0
 * @host_before_ns: CLOCK_MONOTONIC just before the device latched its clock
 * @device_tick: the latched device clock, in ticks
 * @host_after_ns: CLOCK_MONOTONIC just after the latch was seen
 * @width_ns: host_after_ns - host_before_ns
 * @clock_hz: nominal device clock frequency (npu_info.clock_hz)
 *
 * The device latched @device_tick at some instant in
 * [@host_before_ns, @host_after_ns]. Rings receive one when they are
 * enabled, then periodically (module parameter clock_period_ms), and a
 * closing one at NPU_TRACE_IOCTL_DISABLE.
 */
struct npu_trace_rec_clock {
	struct npu_trace_rec_hdr hdr;
	__u32 samples;
	__u32 rsvd;
	__u64 host_before_ns;
	__u64 device_tick;
	__u64 host_after_ns;
	__u64 width_ns;
	__u64 clock_hz;
};

/* npu_trace_rec_lost.reason */
#define NPU_TRACE_LOST_RING_FULL	1	/* this ring had no room */
#define NPU_TRACE_LOST_DEVICE		2	/* device trace area full or corrupt */
#define NPU_TRACE_LOST_HOST		3	/* the driver could not track a job */

/**
 * struct npu_trace_rec_lost - records dropped (NPU_TRACE_REC_LOST)
 * @hdr: common header
 * @reason: NPU_TRACE_LOST_*
 * @rsvd: 0
 * @count: records dropped for @reason since the previous LOST record with
 *	the same reason, exactly
 *
 * When the ring is full nothing is overwritten: the record is dropped and
 * counted, and a LOST record is written as soon as there is room, before
 * any other record. Device and host losses do not take ring sequence
 * numbers. Device losses (the device's trace area overflowed) cannot be
 * attributed to a process, so every enabled ring gets them; a host loss
 * (the driver could not track a job) goes to the rings that would have
 * received the job's records: its process's and the all-process rings.
 */
struct npu_trace_rec_lost {
	struct npu_trace_rec_hdr hdr;
	__u32 reason;
	__u32 rsvd;
	__u64 count;
};

/* npu_trace_rec_bo.flags */
#define NPU_TRACE_BO_F_TICK	(1u << 0)	/* @dev_tick is valid */

/* npu_trace_rec_bo.reason: what let the memory of a buffer go */
#define NPU_TRACE_BO_FREE_OTHER		0	/* NPU_IOCTL_BO_CREATE failed late */
#define NPU_TRACE_BO_FREE_HANDLE	1	/* NPU_IOCTL_BO_FREE */
#define NPU_TRACE_BO_FREE_CLOSE		2	/* close() of the file */
#define NPU_TRACE_BO_FREE_UNMAP		3	/* munmap() of the last mapping */
#define NPU_TRACE_BO_FREE_JOB		4	/* the last job using it ended */

/**
 * struct npu_trace_rec_bo - a buffer's device memory was allocated
 *	(NPU_TRACE_REC_BO_ALLOC) or freed (NPU_TRACE_REC_BO_FREE)
 * @hdr: common header
 * @pid: the process that created the buffer (thread group id), in the PID
 *	namespace of the ring's opener; 0 when not visible there
 * @tid: BO_ALLOC: the creating thread, likewise; BO_FREE: 0
 * @bo_id: the buffer, unique on the device since probe (from 1): the
 *	BO_FREE of a buffer has the @bo_id of its BO_ALLOC; 0 for a failed
 *	allocation
 * @dev_addr: device address of the buffer (0 for a failed allocation)
 * @size: bytes, a multiple of the page size (for a failed allocation, the
 *	size asked, rounded up to the page size)
 * @kind: NPU_BO_KIND_* given at creation
 * @flags: NPU_TRACE_BO_F_*
 * @error: BO_ALLOC: 0, or -ENOMEM or -EDQUOT when the allocation failed
 *	(there is then no buffer and no BO_FREE); BO_FREE: 0
 * @reason: BO_FREE: NPU_TRACE_BO_FREE_*, what dropped the last reference
 *	(the handle, the file, the last mapping or the last job); BO_ALLOC: 0
 * @host_ns: CLOCK_MONOTONIC when the memory was taken or given back
 * @dev_tick: device clock at @host_ns, when NPU_TRACE_BO_F_TICK is set:
 *	estimated from the device's last clock sample (the last CLOCK
 *	record) at the nominal frequency; no device access is involved
 * @dev_used: bytes of device memory held by buffers just after this event,
 *	all processes (the statistic "mem-used")
 *
 * Written when the memory is allocated and when it returns to the
 * allocator, which may be long after NPU_IOCTL_BO_FREE: a job or a mapping
 * holds the buffer until it ends. A ring receives the records of the
 * buffers created by its process (or every process's, with
 * NPU_TRACE_ALL_PROCESSES), at every level.
 */
struct npu_trace_rec_bo {
	struct npu_trace_rec_hdr hdr;
	__s32 pid;
	__s32 tid;
	__u64 bo_id;
	__u64 dev_addr;
	__u64 size;
	__u32 kind;
	__u32 flags;
	__s32 error;
	__u32 reason;
	__u64 host_ns;
	__u64 dev_tick;
	__u64 dev_used;
};

/**
 * struct npu_trace_enable - argument of NPU_TRACE_IOCTL_ENABLE
 * @level: in: 0 (EXEC records with host context only), 1 (and the device's
 *	execution records) or 2 (and the device's operator records). The
 *	device traces at the highest level of all enabled rings. A level the
 *	device does not support fails with -EOPNOTSUPP.
 * @flags: in: must be 0
 * @reserved: in: must be 0
 *
 * Enabling an enabled ring changes its level. The ring gets a CLOCK record
 * first.
 */
struct npu_trace_enable {
	__u32 level;
	__u32 flags;
	__u64 reserved[2];
};

/**
 * struct npu_trace_status - counters of a ring, from NPU_TRACE_IOCTL_STATUS
 * @flags: out: NPU_TRACE_RING_F_*, from the kernel's state (the copy in
 *	the header page is written by the kernel but writable by the reader)
 * @level: out: level set by the last ENABLE (meaningful while enabled)
 * @records: out: records written (every type except PAD)
 * @lost: out: records dropped because the ring was full
 * @device_lost: out: device losses reported to this ring
 * @host_lost: out: host losses reported to this ring
 * @clock_samples: out: CLOCK records written
 * @producer: out: current producer position
 * @consumer: out: consumer position as the kernel read it
 * @reserved: out: 0
 *
 * The records of the jobs completed so far are delivered (they otherwise
 * follow a completion by a jiffy, Documentation/npu/ring.rst "Delivery")
 * and a pending LOST record is written, if there is room, before the
 * counters are read.
 */
struct npu_trace_status {
	__u32 flags;
	__u32 level;
	__u64 records;
	__u64 lost;
	__u64 device_lost;
	__u64 host_lost;
	__u64 clock_samples;
	__u64 producer;
	__u64 consumer;
	__u64 reserved[4];
};

/* Most samples per NPU_IOCTL_CLOCK_SAMPLE */
#define NPU_CLOCK_MAX_SAMPLES	32

/**
 * struct npu_clock_pair - one bracketed device clock sample
 * @host_before_ns: host clock just before the latch request
 * @device_tick: device clock latched by the request
 * @host_after_ns: host clock just after the latch was seen
 */
struct npu_clock_pair {
	__u64 host_before_ns;
	__u64 device_tick;
	__u64 host_after_ns;
};

/**
 * struct npu_clock_sample - device/host clock samples, NPU_IOCTL_CLOCK_SAMPLE
 * @flags: in: must be 0
 * @clockid: in: host clock: CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
 *	CLOCK_REALTIME or CLOCK_BOOTTIME (values of <time.h>)
 * @count: in: samples to take, 1..NPU_CLOCK_MAX_SAMPLES
 * @best: out: index of the narrowest sample (host_after - host_before)
 * @clock_hz: out: nominal device clock frequency
 * @reserved: in: must be 0
 * @samples: out: @count samples, in the order taken
 *
 * Each sample posts NPU_MBOX_CLOCK_LATCH without an interrupt and polls
 * for its acknowledgment, between two reads of the host clock, as
 * PTP_SYS_OFFSET_EXTENDED does. Fails with -EOPNOTSUPP when the device
 * cannot latch its clock, -ETIMEDOUT when it does not answer.
 */
struct npu_clock_sample {
	__u32 flags;
	__u32 clockid;
	__u32 count;
	__u32 best;
	__u64 clock_hz;
	__u64 reserved[2];
	struct npu_clock_pair samples[NPU_CLOCK_MAX_SAMPLES];
};

/**
 * DOC: trace ioctls
 *
 * On /dev/npuN:
 *
 * NPU_IOCTL_TRACE_OPEN (struct npu_trace_open): opens a trace ring and
 * returns its fd. -EINVAL: bad flags, size, watermark or reserved field;
 * -EACCES: NPU_TRACE_ALL_PROCESSES without the privilege; -EPERM: the
 * ring memory is over the caller's locked memory limit; -ENOMEM (also:
 * over the memory cgroup's limit); -EMFILE; -EFAULT.
 *
 * NPU_IOCTL_CLOCK_SAMPLE (struct npu_clock_sample): bracketed device clock
 * samples. -EINVAL, -EOPNOTSUPP, -EIO, -ETIMEDOUT, -EINTR, -ENOMEM,
 * -EFAULT.
 *
 * On a trace fd (every one fails with -ENODEV once the device is gone):
 *
 * NPU_TRACE_IOCTL_ENABLE (struct npu_trace_enable): start receiving
 * records at a level, or change the level. -EINVAL, -EOPNOTSUPP, and the
 * errors of the clock sample it takes.
 *
 * NPU_TRACE_IOCTL_DISABLE (no argument): write a closing CLOCK record and
 * stop receiving records.
 *
 * NPU_TRACE_IOCTL_STATUS (struct npu_trace_status): the ring's counters.
 */

/* On /dev/npuN */
#define NPU_IOCTL_TRACE_OPEN	_IOWR(NPU_IOCTL_BASE, 0x30, struct npu_trace_open)
#define NPU_IOCTL_CLOCK_SAMPLE	_IOWR(NPU_IOCTL_BASE, 0x31, struct npu_clock_sample)

/* On a trace fd */
#define NPU_TRACE_IOCTL_ENABLE	_IOW(NPU_IOCTL_BASE, 0x38, struct npu_trace_enable)
#define NPU_TRACE_IOCTL_DISABLE	_IO(NPU_IOCTL_BASE, 0x39)
#define NPU_TRACE_IOCTL_STATUS	_IOR(NPU_IOCTL_BASE, 0x3a, struct npu_trace_status)

/* ---- end of trace ---- */

#define NPU_IOCTL_GET_INFO	_IOWR(NPU_IOCTL_BASE, 0x00, struct npu_info)
#define NPU_IOCTL_PING		_IOWR(NPU_IOCTL_BASE, 0x01, struct npu_ping)
#define NPU_IOCTL_BO_CREATE	_IOWR(NPU_IOCTL_BASE, 0x10, struct npu_bo_create)
#define NPU_IOCTL_BO_FREE	_IOW(NPU_IOCTL_BASE, 0x11, struct npu_bo_free)
#define NPU_IOCTL_SUBMIT	_IOWR(NPU_IOCTL_BASE, 0x20, struct npu_submit)
#define NPU_IOCTL_WAIT		_IOWR(NPU_IOCTL_BASE, 0x21, struct npu_wait)

#endif /* _UAPI_LINUX_NPU_H */
