/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * NPU hardware interface, version 1.
 *
 * This header is the contract between the host driver (npu.ko) and the
 * device (tools/npu-emu). It is included by both and must stay free of
 * kernel-only and libc-only constructs. The normative description is
 * Documentation/npu/hw.rst; this header gives the same facts as code.
 *
 * All multi-byte values are little-endian. "Device address" means a byte
 * offset from the start of BAR2; every address the host gives the device is
 * a device address.
 *
 * The programs the device executes are not part of this contract: the
 * driver passes them through without reading them. Their format is
 * include/npu/npu_program.h (Documentation/npu/program.rst), shared by
 * userspace and the device.
 */
#ifndef _NPU_HW_H
#define _NPU_HW_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/bits.h>
#elif !defined(BIT)
#define BIT(nr)			(1UL << (nr))
#endif

/*
 * PCI identity. The reference design uses this placeholder vendor and
 * device id; an emulated NPU appears as QEMU's ivshmem-doorbell function.
 */
#define NPU_HW_PCI_VENDOR_ID		0x1dee
#define NPU_HW_PCI_DEVICE_ID		0x0001
#define NPU_HW_IVSHMEM_VENDOR_ID	0x1af4
#define NPU_HW_IVSHMEM_DEVICE_ID	0x1110

/* BARs */
#define NPU_HW_BAR_DOORBELL	0	/* doorbell registers (ivshmem layout) */
#define NPU_HW_BAR_MSIX		1	/* MSI-X table and PBA */
#define NPU_HW_BAR_MEM		2	/* register page, queues, trace, DRAM */

/* BAR0 registers, 32 bits each */
#define NPU_BAR0_INTR_MASK	0x00
#define NPU_BAR0_INTR_STATUS	0x04
#define NPU_BAR0_IVPOSITION	0x08	/* the host's own peer id */
#define NPU_BAR0_DOORBELL	0x0c	/* write (target << 16) | doorbell */

/* Doorbells the host rings (the doorbell index of NPU_BAR0_DOORBELL) */
#define NPU_DB_QUEUE		0	/* a command queue producer moved */
#define NPU_DB_MBOX		1	/* a mailbox request is posted */
#define NPU_DB_CONTROL		2	/* NPU_REG_CONTROL changed */
#define NPU_DB_COUNT		3

/* MSI-X vectors the device raises */
#define NPU_MSIX_CPL		0	/* completion queue producer moved */
#define NPU_MSIX_MBOX		1	/* mailbox request acknowledged */
#define NPU_MSIX_TRACE		2	/* trace buffer reached its watermark */
#define NPU_MSIX_ERROR		3	/* device error, see NPU_REG_ERROR */
#define NPU_MSIX_COUNT		4

/*
 * Register page: the first 4 KiB of BAR2. RO registers are written by the
 * device before it sets NPU_STATUS_READY; RW registers are written by the
 * host. All registers are 32 bits wide unless the name ends in _LO/_HI.
 */
#define NPU_HW_MAGIC		0x3155504e	/* "NPU1" */
#define NPU_HW_VERSION_MAJOR	1
#define NPU_HW_VERSION_MINOR	0
#define NPU_HW_VERSION(maj, min)	(((maj) << 16) | (min))
#define NPU_HW_VERSION_GET_MAJOR(v)	((v) >> 16)
#define NPU_HW_VERSION_GET_MINOR(v)	((v) & 0xffff)

#define NPU_REG_MAGIC		0x000	/* RO NPU_HW_MAGIC */
#define NPU_REG_VERSION		0x004	/* RO major << 16 | minor */
#define NPU_REG_CAPS		0x008	/* RO NPU_CAP_* */
#define NPU_REG_PE_COUNT	0x00c	/* RO processing elements, 1..NPU_HW_MAX_PES */
#define NPU_REG_CLOCK_HZ	0x010	/* RO device clock frequency in Hz */
#define NPU_REG_TRACE_LEVELS	0x014	/* RO bit n set: trace level n supported */
#define NPU_REG_DB_TARGET	0x018	/* RO peer id to put in NPU_BAR0_DOORBELL */
#define NPU_REG_DB_COUNT	0x01c	/* RO doorbells the device listens to */
#define NPU_REG_DRAM_BASE	0x020	/* RO device address of DRAM */
#define NPU_REG_DRAM_SIZE	0x024	/* RO bytes of DRAM */
#define NPU_REG_CMDQ_BASE	0x028	/* RO device address of PE 0's queue */
#define NPU_REG_CMDQ_STRIDE	0x02c	/* RO bytes between two PEs' queues */
#define NPU_REG_CMDQ_ENTRIES	0x030	/* RO entries per command queue, 2^n */
#define NPU_REG_CPLQ_BASE	0x034	/* RO device address of completion queue */
#define NPU_REG_CPLQ_ENTRIES	0x038	/* RO entries in the completion queue, 2^n */
#define NPU_REG_TRACE_BASE	0x03c	/* RO device address of the trace area */
#define NPU_REG_TRACE_SIZE	0x040	/* RO bytes of trace DATA, 2^n (see below) */
#define NPU_REG_SRAM_SIZE	0x044	/* RO on-chip SRAM bytes per PE */
#define NPU_REG_DMA_BW		0x048	/* RO DMA bandwidth per PE, MB/s */
#define NPU_REG_MACS_PER_CYCLE	0x04c	/* RO int8 MACs per cycle per PE */
#define NPU_REG_BAR_SIZE	0x050	/* RO size of BAR2 in bytes (0: 4 GiB) */

#define NPU_REG_CONTROL		0x100	/* RW NPU_CTRL_* */
#define NPU_REG_STATUS		0x104	/* RO NPU_STATUS_* */
#define NPU_REG_INTR_CAUSE	0x108	/* device sets bits atomically, host clears */
#define NPU_REG_INTR_MASK	0x10c	/* RW bit set: cause does not raise MSI-X */
#define NPU_REG_ERROR		0x110	/* RO last device error, NPU_ERR_* */

/* Mailbox: one outstanding request at a time. */
#define NPU_REG_MBOX_OP		0x140	/* RW NPU_MBOX_* */
#define NPU_REG_MBOX_ARG	0x144	/* RW argument of the request */
#define NPU_REG_MBOX_SEQ	0x148	/* RW written last: sequence of the request */
#define NPU_REG_MBOX_ACK	0x14c	/* RO written last: sequence acknowledged */
#define NPU_REG_MBOX_RESULT	0x150	/* RO 0 or NPU_STATUS_* of the request */
#define NPU_REG_MBOX_DATA_LO	0x158	/* RO result data, low 32 bits */
#define NPU_REG_MBOX_DATA_HI	0x15c	/* RO result data, high 32 bits */

/* Trace counters mirrored by the device (see struct npu_hw_trace_hdr) */
#define NPU_REG_TRACE_WMARK	0x180	/* RW bytes pending before NPU_MSIX_TRACE */

#define NPU_REG_PAGE_SIZE	0x1000

/* NPU_REG_CAPS */
#define NPU_CAP_TRACE		BIT(0)	/* trace area and records */
#define NPU_CAP_CLOCK_LATCH	BIT(1)	/* NPU_MBOX_CLOCK_LATCH */
#define NPU_CAP_MULTI_PE	BIT(2)	/* PEs run concurrently */

/* NPU_REG_CONTROL */
#define NPU_CTRL_ENABLE		BIT(0)	/* process command queues */
#define NPU_CTRL_TRACE_SHIFT	4
#define NPU_CTRL_TRACE_MASK	(0xfu << NPU_CTRL_TRACE_SHIFT)

/* NPU_REG_STATUS */
#define NPU_STATUS_READY	BIT(0)	/* register page valid */
#define NPU_STATUS_ENABLED	BIT(1)	/* mirrors NPU_CTRL_ENABLE */
#define NPU_STATUS_FAULT	BIT(2)	/* fatal error, reset required */

/* NPU_REG_INTR_CAUSE */
#define NPU_INTR_CPL		BIT(0)
#define NPU_INTR_MBOX		BIT(1)
#define NPU_INTR_TRACE		BIT(2)
#define NPU_INTR_ERROR		BIT(3)

/* NPU_REG_ERROR */
#define NPU_ERR_NONE		0
#define NPU_ERR_CMDQ		1	/* malformed command queue pointers */
#define NPU_ERR_CPLQ_FULL	2	/* completion queue overflow */

/* Trace levels (NPU_CTRL_TRACE_*) */
#define NPU_TRACE_OFF		0
#define NPU_TRACE_EXEC		1	/* one record per execution */
#define NPU_TRACE_OPS		2	/* and one per operator */

/*
 * Mailbox requests. The host writes OP and ARG, then SEQ (a value it has not
 * used since the last one), then rings NPU_DB_MBOX. The device performs the
 * request and writes RESULT and DATA, then ACK = SEQ, then sets NPU_INTR_MBOX
 * and raises NPU_MSIX_MBOX unless the op has NPU_MBOX_F_NOIRQ.
 */
#define NPU_MBOX_PING		1	/* no effect; DATA = ARG */
#define NPU_MBOX_CLOCK_LATCH	2	/* DATA = device clock when serviced */
#define NPU_MBOX_RESET		3	/* abort all jobs, empty command queues;
					 * the completion queue is kept and
					 * receives the ABORTED completions
					 */
#define NPU_MBOX_OP_MASK	0xffff
#define NPU_MBOX_F_NOIRQ	BIT(16)	/* acknowledge without MSI-X */

/* Mailbox result codes */
#define NPU_MBOX_OK		0
#define NPU_MBOX_EINVAL		1

/* Limits of this version */
#define NPU_HW_MAX_PES		16
#define NPU_HW_MAX_BUFS		12

/*
 * Queue pointers. Producer and consumer are free-running 32-bit counters on
 * separate cache lines; entry i lives at index (i & (entries - 1)). The queue
 * is empty when prod == cons and full when prod - cons == entries. Each side
 * writes only its own counter, after the entries it covers.
 */
struct npu_hw_ring_ptrs {
	__u32 prod;
	__u32 rsvd0[15];
	__u32 cons;
	__u32 rsvd1[15];
};

/*
 * Command queue of PE p: struct npu_hw_ring_ptrs at
 * CMDQ_BASE + p * CMDQ_STRIDE, followed by CMDQ_ENTRIES entries of
 * struct npu_hw_cmd. The host is the producer.
 */
#define NPU_HW_CMDQ_ENTRIES_OFFSET	sizeof(struct npu_hw_ring_ptrs)

/**
 * struct npu_hw_buf - a buffer a job may touch
 * @addr: device address of the buffer, 64-byte aligned, inside DRAM
 * @size: bytes
 */
struct npu_hw_buf {
	__u32 addr;
	__u32 size;
};

/**
 * struct npu_hw_cmd - one job: run a program over a set of buffers
 * @job_id: host cookie, returned in the completion
 * @flags: 0
 * @nbufs: valid entries in @bufs, 1..NPU_HW_MAX_BUFS
 * @prog_buf: index in @bufs of the buffer holding the program
 * @prog_offset: byte offset of the program in that buffer, 64-byte aligned
 * @prog_size: bytes of program
 * @exec_index: execution index, echoed in trace records
 * @bufs: buffer slots; program tensors refer to slots, never to addresses
 *
 * The device touches no memory outside @bufs while it runs the job.
 */
struct npu_hw_cmd {
	__u64 job_id;
	__u32 flags;
	__u32 nbufs;
	__u32 prog_buf;
	__u32 prog_offset;
	__u32 prog_size;
	__u32 exec_index;
	struct npu_hw_buf bufs[NPU_HW_MAX_BUFS];
};

/*
 * Completion queue: struct npu_hw_ring_ptrs at CPLQ_BASE followed by
 * CPLQ_ENTRIES entries of struct npu_hw_cpl. The device is the producer. The
 * host never has more jobs outstanding than CPLQ_ENTRIES.
 */
#define NPU_HW_CPLQ_ENTRIES_OFFSET	sizeof(struct npu_hw_ring_ptrs)

/* Job completion status */
#define NPU_HW_STATUS_OK		0
#define NPU_HW_STATUS_BAD_OPCODE	1	/* unknown operator */
#define NPU_HW_STATUS_BAD_ADDRESS	2	/* outside DRAM or outside a buffer */
#define NPU_HW_STATUS_MISALIGNED	3	/* address or offset not aligned */
#define NPU_HW_STATUS_BAD_SHAPE		4	/* inconsistent shapes or sizes */
#define NPU_HW_STATUS_BAD_PROGRAM	5	/* malformed program header/tables */
#define NPU_HW_STATUS_ABORTED		6	/* aborted by NPU_MBOX_RESET */
#define NPU_HW_STATUS_BAD_CMD		7	/* malformed command entry */

#define NPU_HW_NO_OP_INDEX	0xffff	/* npu_hw_cpl.op_index: no operator */

/**
 * struct npu_hw_cpl - completion of one job
 * @job_id: npu_hw_cmd.job_id
 * @status: NPU_HW_STATUS_*
 * @pe: PE that ran the job
 * @op_index: operator that failed, when @status is not OK
 * @start_tick: device clock when the job started
 * @end_tick: device clock when the job ended
 */
struct npu_hw_cpl {
	__u64 job_id;
	__u32 status;
	__u16 pe;
	__u16 op_index;
	__u64 start_tick;
	__u64 end_tick;
};

/*
 * Trace area: struct npu_hw_trace_hdr at TRACE_BASE; the data area starts at
 * TRACE_BASE + NPU_HW_TRACE_DATA_OFFSET and is TRACE_SIZE bytes (a power of
 * two), so the whole area spans NPU_HW_TRACE_DATA_OFFSET + TRACE_SIZE bytes
 * from TRACE_BASE. Positions are free-running
 * 64-bit byte counts; a record at position p starts at p & (data size - 1)
 * and never wraps: the device writes an NPU_HW_TREC_PAD record to fill the
 * tail instead. The device never overwrites unconsumed data; a record that
 * does not fit is dropped and counted in @lost. The device writes (or drops)
 * all trace records of an execution before it posts that job's completion
 * entry, so a host that drains the trace area before the completion queue
 * sees them first.
 */
#define NPU_HW_TRACE_DATA_OFFSET	0x1000

struct npu_hw_trace_hdr {
	__u64 prod;		/* device: bytes produced */
	__u64 rsvd0[7];
	__u64 cons;		/* host: bytes consumed */
	__u64 rsvd1[7];
	__u64 lost;		/* device: records dropped, cumulative */
	__u64 rsvd2[7];
};

/* Trace record types */
#define NPU_HW_TREC_PAD		0	/* skip @size bytes */
#define NPU_HW_TREC_EXEC	1	/* struct npu_hw_trec_exec */
#define NPU_HW_TREC_OP		2	/* struct npu_hw_trec_op */

/**
 * struct npu_hw_trec_hdr - header of every device trace record
 * @type: NPU_HW_TREC_*
 * @size: bytes of the record including this header, multiple of 8
 * @seq: device record sequence, +1 per record written or lost
 */
struct npu_hw_trec_hdr {
	__u16 type;
	__u16 size;
	__u32 seq;
};

/**
 * struct npu_hw_trec_exec - one execution of a job on a PE
 * @hdr: common header
 * @pe: PE index
 * @status: NPU_HW_STATUS_* of the execution
 * @exec_index: npu_hw_cmd.exec_index
 * @n_ops: operators executed
 * @rsvd: 0
 * @job_id: npu_hw_cmd.job_id
 * @start_tick: device clock at start
 * @end_tick: device clock at end
 * @run_ticks: ticks the PE computed
 * @iowait_ticks: ticks the PE waited for DMA;
 *	end_tick - start_tick == run_ticks + iowait_ticks, exactly
 * @dma_bytes: bytes moved by DMA
 * @macs: multiply-accumulates performed
 */
struct npu_hw_trec_exec {
	struct npu_hw_trec_hdr hdr;
	__u16 pe;
	__u16 status;
	__u32 exec_index;
	__u32 n_ops;
	__u32 rsvd;
	__u64 job_id;
	__u64 start_tick;
	__u64 end_tick;
	__u64 run_ticks;
	__u64 iowait_ticks;
	__u64 dma_bytes;
	__u64 macs;
};

/**
 * struct npu_hw_trec_op - one operator of an execution
 * @hdr: common header
 * @pe: PE index
 * @opcode: the operator's opcode (NPU_OP_* of the program format)
 * @op_index: index of the operator in the program
 * @exec_index: npu_hw_cmd.exec_index
 * @rsvd: 0
 * @job_id: npu_hw_cmd.job_id
 * @start_tick: device clock at start
 * @end_tick: device clock at end
 * @iowait_ticks: ticks waiting for DMA, <= end_tick - start_tick
 * @dma_bytes: bytes moved by DMA
 * @macs: multiply-accumulates performed
 */
struct npu_hw_trec_op {
	struct npu_hw_trec_hdr hdr;
	__u16 pe;
	__u16 opcode;
	__u32 op_index;
	__u32 exec_index;
	__u32 rsvd;
	__u64 job_id;
	__u64 start_tick;
	__u64 end_tick;
	__u64 iowait_ticks;
	__u64 dma_bytes;
	__u64 macs;
};

#endif /* _NPU_HW_H */
