/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * emu_int.h - internals shared by the units of the device (emu.c, device.c,
 * ivshmem.c, pe.c, trace.c). Not for the tests, which see emu.h and the
 * headers of the units they test (clock.h, timing.h, program.h, ops.h).
 */
#ifndef NPU_EMU_INT_H
#define NPU_EMU_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include "dram.h"
#include "emu.h"
#include "log.h"
#include "program.h"
#include "timing.h"

struct npu_emu;

/**
 * struct emu_exec - accounting of the execution a PE is running
 * @cmd: copy of the command
 * @nth: the job's number in the order the PEs started jobs, from 1
 * @level: trace level sampled when the job started
 * @start: device clock at start
 * @cursor: the job's end once the DRAM model timed it
 * @run: ticks computing
 * @iowait: ticks waiting for DMA
 * @bytes: DMA bytes
 * @macs: MACs
 * @n_ops: operators completed
 * @op_compute, @op_bytes, @op_macs: the operator in progress
 * @ops: operator trace records (level NPU_TRACE_OPS), NPU_PROG_MAX_OPS;
 *	their ticks come from the DRAM model (e->dram) at the job's end
 */
struct emu_exec {
	struct npu_hw_cmd cmd;
	uint64_t nth;
	unsigned int level;
	uint64_t start;
	uint64_t cursor;
	uint64_t run;
	uint64_t iowait;
	uint64_t bytes;
	uint64_t macs;
	uint32_t n_ops;
	uint64_t op_compute;
	uint64_t op_bytes;
	uint64_t op_macs;
	struct npu_hw_trec_op *ops;
};

/**
 * struct emu_pe - one processing element and its thread
 * @e: the device
 * @idx: PE index, also the index of its command queue
 * @thread: the PE's thread
 * @started: @thread exists
 * @busy: a job is running (protected by e->lock)
 * @abort: the running job must abort at its next operator (e->lock to
 *	write; read atomically)
 * @cons: the device's consumer index of this PE's queue (e->lock)
 * @rung: the queue's producer as the last NPU_DB_QUEUE found it (e->lock):
 *	the PE takes commands up to it only, so that a CONTROL change rung
 *	before a command's doorbell applies to that command
 * @x: the execution in progress (PE thread only)
 */
struct emu_pe {
	struct npu_emu *e;
	unsigned int idx;
	pthread_t thread;
	bool started;
	bool busy;
	bool abort;
	uint32_t cons;
	uint32_t rung;
	struct emu_exec x;
};

struct npu_emu {
	struct npu_emu_opts opts;
	struct npu_emu_layout lay;
	struct emu_clock clock;
	struct emu_logger log;		/* stamps count from clock.start_ns */

	int shm_fd;
	uint8_t *shm;

	int db_fd[NPU_EMU_VECTORS];	/* the device's doorbells (ours) */
	int irq_fd[NPU_EMU_VECTORS];	/* QEMU's MSI-X vectors */

	int listen_fd;
	int client_fd;
	int stop_fd;
	int sig_fd;
	int epoll_fd;
	char *sock_path;
	char *tmp_path;
	dev_t sock_dev;
	ino_t sock_ino;
	bool sock_bound;
	uint64_t client_junk;		/* bytes the client sent, ignored */

	/* PEs: lock protects everything below and emu_pe.busy/abort */
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* PEs wait for work here */
	pthread_cond_t idle;		/* a PE finished a job */
	bool quit;
	bool enabled;
	bool resetting;
	bool fault;			/* NPU_STATUS_FAULT: queues stopped */
	uint64_t queue_gen;		/* bumped by each NPU_DB_QUEUE */
	uint64_t jobs_started;		/* for --fail-after */
	struct emu_pe pes[NPU_HW_MAX_PES];

	struct emu_timing timing;
	struct emu_dram dram;		/* under lock: shared DRAM bandwidth */
	unsigned int dram_waiters;	/* PEs waiting for dram (lock) */

	/* completion queue writer: cpl_lock (inside lock) protects these */
	pthread_mutex_t cpl_lock;
	uint32_t cpl_prod;
	bool cpl_raised;		/* NPU_INTR_CPL was last set unmasked */

	/* trace writer: trace_lock protects the trace area and these */
	pthread_mutex_t trace_lock;
	unsigned int trace_level;	/* NPU_TRACE_*, read under e->lock */
	uint32_t trace_seq;
	uint64_t trace_prod;
	bool trace_bad_warned;
};

/* Register page and shared memory access (device side) */
static inline uint32_t *emu_reg(const struct npu_emu *e, uint32_t off)
{
	return (uint32_t *)(e->shm + off);
}

static inline uint32_t emu_reg_read(const struct npu_emu *e, uint32_t off)
{
	return __atomic_load_n(emu_reg(e, off), __ATOMIC_ACQUIRE);
}

static inline void emu_reg_write(const struct npu_emu *e, uint32_t off,
				 uint32_t v)
{
	__atomic_store_n(emu_reg(e, off), v, __ATOMIC_RELEASE);
}

/* device.c */
int emu_dev_init_shm(struct npu_emu *e);
void emu_dev_init_regs(struct npu_emu *e);
void emu_dev_raise(struct npu_emu *e, uint32_t cause, unsigned int vector);
void emu_dev_error(struct npu_emu *e, uint32_t err, bool fatal);
void emu_dev_doorbell(struct npu_emu *e, unsigned int db, uint64_t count);
void emu_dev_mbox(struct npu_emu *e);
void emu_dev_control(struct npu_emu *e);
void emu_dev_power_on(struct npu_emu *e);

/* ivshmem.c */
int emu_ivsh_listen(struct npu_emu *e);
void emu_ivsh_unlink(struct npu_emu *e);
int emu_ivsh_handshake(struct npu_emu *e, int fd);

/* pe.c */
int emu_pe_start(struct npu_emu *e);
void emu_pe_stop(struct npu_emu *e);
void emu_pe_kick(struct npu_emu *e);
void emu_pe_set_enabled(struct npu_emu *e, bool enabled);
void emu_pe_reset(struct npu_emu *e);

void emu_pe_complete(struct npu_emu *e, uint64_t job_id, uint32_t status,
		     unsigned int pe, uint16_t op_index, uint64_t start,
		     uint64_t end);

/* trace.c */
void emu_trace_reset(struct npu_emu *e);
void emu_trace_set_level(struct npu_emu *e, unsigned int level);
/* Write the records of one execution: its operators (if any) and itself */
void emu_trace_exec(struct npu_emu *e, const struct emu_pe *pe,
		    uint32_t status);

#endif /* NPU_EMU_INT_H */
