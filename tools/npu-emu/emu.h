/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * emu.h - the NPU device model (npu-emu) as a library of units.
 *
 * The emulator is a QEMU ivshmem server that also acts as the NPU: it owns
 * the shared memory that QEMU exposes as BAR2, listens to the guest's
 * doorbells on its own eventfds and raises the guest's MSI-X vectors by
 * writing QEMU's eventfds. Documentation/npu/hw.rst is the specification it
 * implements; include/npu/npu_hw.h is the same specification as code.
 *
 * This header is the device's API: npu_emu_*() and NPU_EMU_*, for main.c
 * and the host tests. Everything else of the emulator is named emu_*, a
 * prefix no other part of the project uses (the driver's npu_dev_*,
 * npu_pe_*, npu_trace_* and npu_clock_* are other things).
 *
 * Units:
 *  - opts.c:    command line parsing (npu_emu_parse_opts()) and --help
 *  - log.c:     messages: emu_log() with --verbose, emu_err() (log.h)
 *  - clock.c:   the 64-bit device clock (struct emu_clock, clock.h)
 *  - timing.c:  the PE timing model (struct emu_timing, timing.h)
 *  - ivshmem.c: the ivshmem server protocol (socket, handshake)
 *  - device.c:  memory layout, register page, interrupts, mailbox, control
 *  - pe.c:      processing elements: command queues, jobs, DMA model
 *  - trace.c:   the hardware trace area
 *  - program.c, ops.c: the program interpreter (program.h, ops.h)
 *  - emu.c:     object lifetime and the event loop (npu_emu_run())
 *  - main.c:    a thin main() calling npu_emu_main()
 * emu_int.h is what the units of the device share.
 *
 * Functions return 0 or a negative errno value unless documented otherwise.
 */
#ifndef NPU_EMU_H
#define NPU_EMU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "npu/npu_hw.h"

/* Fixed geometry of this device model (see hw.rst, "Memory map") */
#define NPU_EMU_CMDQ_BASE	0x10000u
#define NPU_EMU_CMDQ_STRIDE	0x4000u
#define NPU_EMU_CMDQ_ENTRIES	64u
#define NPU_EMU_CPLQ_BASE	0x50000u
#define NPU_EMU_CPLQ_ENTRIES	1024u
#define NPU_EMU_TRACE_BASE	0x100000u
#define NPU_EMU_DRAM_BASE	0x400000u

/* ivshmem peer ids: the device and its single QEMU client */
#define NPU_EMU_DEV_PEER	1
#define NPU_EMU_QEMU_PEER	0
/* eventfds sent per peer; QEMU must be started with vectors=NPU_MSIX_COUNT */
#define NPU_EMU_VECTORS		NPU_MSIX_COUNT

/* Option defaults */
#define NPU_EMU_DEF_PES		2
#define NPU_EMU_DEF_DRAM	(64ull << 20)
#define NPU_EMU_DEF_CLOCK_HZ	1000000000ull
#define NPU_EMU_DEF_DMA_BW	2000u
#define NPU_EMU_DEF_MACS	256u
#define NPU_EMU_DEF_SRAM	(1u << 20)
#define NPU_EMU_DEF_TRACE	(1ull << 20)

/* Option limits */
#define NPU_EMU_MIN_TRACE	(4ull << 10)
#define NPU_EMU_MAX_TRACE	(256ull << 20)
#define NPU_EMU_MAX_BAR		(4ull << 30)
#define NPU_EMU_MAX_DRIFT_PPM	100000.0

/**
 * enum npu_emu_fault - faults a real device can have (--fault NAME[@N])
 * @NPU_EMU_FAULT_NONE: none
 * @NPU_EMU_FAULT_DIE: the device process exits while job N runs, without
 *	completing it (status 0, so that npu-vm keeps the guest running)
 * @NPU_EMU_FAULT_SPURIOUS_CPL: after job N's completion, a completion for
 *	a job id the driver never submitted (NPU_EMU_SPURIOUS_JOB_ID | N)
 * @NPU_EMU_FAULT_CORRUPT_TREC: job N's EXEC trace record is written with
 *	a size field of 3 (not a multiple of 8): a corrupted trace area
 */
enum npu_emu_fault {
	NPU_EMU_FAULT_NONE,
	NPU_EMU_FAULT_DIE,
	NPU_EMU_FAULT_SPURIOUS_CPL,
	NPU_EMU_FAULT_CORRUPT_TREC,
};

/* Job ids of spurious completions: above any id a driver hands out. */
#define NPU_EMU_SPURIOUS_JOB_ID	(1ull << 62)

/**
 * struct npu_emu_opts - everything the command line sets
 * @socket_path: UNIX socket QEMU connects to
 * @pes: processing elements, 1..NPU_HW_MAX_PES
 * @dram_size: bytes of device DRAM, multiple of 4 KiB
 * @clock_hz: device clock frequency, 1..UINT32_MAX
 * @clock_offset: device clock value at emulator start
 * @clock_drift_ppm: clock drift against CLOCK_MONOTONIC, parts per million
 * @dma_bw: DMA bandwidth per PE in MB/s (10^6 bytes per second)
 * @dram_bw: DRAM bandwidth the PEs' DMA engines share, in MB/s; 0: the
 *	same as @dma_bw (one PE alone can use all of it)
 * @macs_per_cycle: int8 MACs per cycle per PE
 * @sram_size: on-chip SRAM per PE, reported only
 * @trace_size: bytes of the trace data area, a power of two
 * @stall_pe: PE that never completes a job (fault injection), or -1
 * @fail_after: fail every job after the first N with BAD_PROGRAM, 0: off
 * @hw_version: value of NPU_REG_VERSION, major << 16 | minor (default
 *	NPU_HW_VERSION(NPU_HW_VERSION_MAJOR, NPU_HW_VERSION_MINOR)); nothing
 *	else depends on it
 * @fault: fault to inject (--fault), NPU_EMU_FAULT_NONE for none
 * @fault_job: the job the fault hits: the Nth job the PEs start, from 1
 * @replug: when QEMU disconnects (a hot-unplug removed its chardev), reset
 *	the device and wait for the next connection instead of exiting
 * @verbose: log doorbells, mailbox requests, jobs and interrupts to stdout
 * @handle_signals: npu_emu_run() returns 0 on SIGTERM/SIGINT (it blocks them
 *	in the calling thread; npu_emu_main() sets this)
 */
struct npu_emu_opts {
	const char *socket_path;
	unsigned int pes;
	uint64_t dram_size;
	uint64_t clock_hz;
	uint64_t clock_offset;
	double clock_drift_ppm;
	uint32_t dma_bw;
	uint32_t dram_bw;
	uint32_t macs_per_cycle;
	uint32_t sram_size;
	uint64_t trace_size;
	int stall_pe;
	uint64_t fail_after;
	uint32_t hw_version;
	enum npu_emu_fault fault;
	uint64_t fault_job;
	bool replug;
	bool verbose;
	bool handle_signals;
};

/**
 * npu_emu_opts_init() - fill @o with the defaults (no socket path)
 */
void npu_emu_opts_init(struct npu_emu_opts *o);

/**
 * npu_emu_parse_opts() - parse a command line
 * @argc, @argv: as given to main()
 * @o: out: options; string members point into @argv
 * @out: where --help goes
 * @err: where error messages go
 *
 * Return: 0 to run, 1 when --help was printed, -EINVAL on a usage error
 * (already reported on @err).
 */
int npu_emu_parse_opts(int argc, char **argv, struct npu_emu_opts *o,
		       FILE *out, FILE *err);

/* Parse helpers, exposed for tests: 0 or -EINVAL/-ERANGE */
int npu_emu_parse_u64(const char *s, uint64_t *v);
int npu_emu_parse_size(const char *s, uint64_t *v);

/**
 * struct npu_emu_layout - BAR2 memory map derived from the options
 */
struct npu_emu_layout {
	uint64_t cmdq_base;
	uint64_t cmdq_stride;
	uint64_t cmdq_entries;
	uint64_t cplq_base;
	uint64_t cplq_entries;
	uint64_t trace_base;
	uint64_t trace_size;	/* data area, 2^n; header page precedes it */
	uint64_t dram_base;
	uint64_t dram_size;
	uint64_t bar_size;	/* 2^n */
};

/**
 * npu_emu_compute_layout() - derive the memory map
 *
 * Return: 0, or -EINVAL when the options cannot fit in a 4 GiB BAR.
 */
int npu_emu_compute_layout(const struct npu_emu_opts *o,
			   struct npu_emu_layout *l);

struct npu_emu;

/**
 * npu_emu_create() - build the device and start listening on the socket
 * @o: options (copied; socket_path must be set)
 * @out: the device
 *
 * Creates the shared memory and eventfds, fills the register page, and
 * binds the socket at PATH.tmp before renaming it to PATH: once PATH exists,
 * it accepts connections.
 */
int npu_emu_create(const struct npu_emu_opts *o, struct npu_emu **out);

/**
 * npu_emu_run() - serve one QEMU client until it disconnects
 *
 * Return: 0 when QEMU disconnected, npu_emu_stop() was called or (with
 * handle_signals) SIGTERM/SIGINT arrived; a negative errno on a fatal error.
 */
int npu_emu_run(struct npu_emu *e);

/* Make npu_emu_run() return 0; async-signal-safe and thread-safe. */
void npu_emu_stop(struct npu_emu *e);

/* Stop the PEs, unmap memory, close fds and remove the socket. */
void npu_emu_destroy(struct npu_emu *e);

/* The whole program: parse, create, run, destroy. Returns the exit code. */
int npu_emu_main(int argc, char **argv);

/* Accessors for tests */
const struct npu_emu_layout *npu_emu_get_layout(const struct npu_emu *e);
uint8_t *npu_emu_get_shm(const struct npu_emu *e);

#endif /* NPU_EMU_H */
