/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * emu_int.h - internals shared by the units of npu-emu. Not for tests'
 * use beyond what emu.h exposes.
 */
#ifndef NPU_EMU_INT_H
#define NPU_EMU_INT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu.h"
#include "program.h"

struct npu_emu;

/**
 * struct npu_exec - accounting of the execution a PE is running
 * @cmd: copy of the command
 * @nth: the job's number in the order the PEs started jobs, from 1
 * @level: trace level sampled when the job started
 * @start: device clock at start
 * @cursor: end of the last operator (start before the first)
 * @run: ticks computing, so far
 * @iowait: ticks waiting for DMA, so far
 * @bytes: DMA bytes, so far
 * @macs: MACs, so far
 * @n_ops: operators completed
 * @prev_compute: modelled compute ticks of the previous operator
 * @op_start, @op_iowait, @op_compute, @op_bytes, @op_macs: the operator
 *	in progress
 * @ops: operator trace records (level NPU_TRACE_OPS), NPU_PROG_MAX_OPS
 */
struct npu_exec {
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
	uint64_t prev_compute;
	uint64_t op_start;
	uint64_t op_iowait;
	uint64_t op_compute;
	uint64_t op_bytes;
	uint64_t op_macs;
	struct npu_hw_trec_op *ops;
};

/**
 * struct npu_pe - one processing element and its thread
 * @e: the device
 * @idx: PE index, also the index of its command queue
 * @thread: the PE's thread
 * @started: @thread exists
 * @busy: a job is running (protected by e->lock)
 * @abort: the running job must abort at its next operator (e->lock to
 *	write; read atomically)
 * @cons: the device's consumer index of this PE's queue (e->lock)
 * @x: the execution in progress (PE thread only)
 */
struct npu_pe {
	struct npu_emu *e;
	unsigned int idx;
	pthread_t thread;
	bool started;
	bool busy;
	bool abort;
	uint32_t cons;
	struct npu_exec x;
};

struct npu_emu {
	struct npu_emu_opts opts;
	struct npu_emu_layout lay;
	struct npu_clock clock;

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

	/* PEs: lock protects everything below and npu_pe.busy/abort */
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* PEs wait for work here */
	pthread_cond_t idle;		/* a PE finished a job */
	bool quit;
	bool enabled;
	bool resetting;
	bool fault;			/* NPU_STATUS_FAULT: queues stopped */
	uint64_t queue_gen;		/* bumped by each NPU_DB_QUEUE */
	uint64_t jobs_started;		/* for --fail-after */
	struct npu_pe pes[NPU_HW_MAX_PES];

	struct npu_timing timing;

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

/* Logging: npu_log() only with --verbose, to stdout; npu_err() to stderr */
void npu_log(const struct npu_emu *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void npu_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Register page and shared memory access (device side) */
static inline uint32_t *npu_reg(const struct npu_emu *e, uint32_t off)
{
	return (uint32_t *)(e->shm + off);
}

static inline uint32_t npu_reg_read(const struct npu_emu *e, uint32_t off)
{
	return __atomic_load_n(npu_reg(e, off), __ATOMIC_ACQUIRE);
}

static inline void npu_reg_write(const struct npu_emu *e, uint32_t off,
				 uint32_t v)
{
	__atomic_store_n(npu_reg(e, off), v, __ATOMIC_RELEASE);
}

/* device.c */
int npu_dev_init_shm(struct npu_emu *e);
void npu_dev_init_regs(struct npu_emu *e);
void npu_dev_raise(struct npu_emu *e, uint32_t cause, unsigned int vector);
void npu_dev_error(struct npu_emu *e, uint32_t err, bool fatal);
void npu_dev_doorbell(struct npu_emu *e, unsigned int db, uint64_t count);
void npu_dev_mbox(struct npu_emu *e);
void npu_dev_control(struct npu_emu *e);
void npu_dev_power_on(struct npu_emu *e);

/* ivshmem.c */
int npu_ivsh_listen(struct npu_emu *e);
void npu_ivsh_unlink(struct npu_emu *e);
int npu_ivsh_handshake(struct npu_emu *e, int fd);

/* pe.c */
int npu_pe_start(struct npu_emu *e);
void npu_pe_stop(struct npu_emu *e);
void npu_pe_kick(struct npu_emu *e);
void npu_pe_set_enabled(struct npu_emu *e, bool enabled);
void npu_pe_reset(struct npu_emu *e);

void npu_pe_complete(struct npu_emu *e, uint64_t job_id, uint32_t status,
		     unsigned int pe, uint16_t op_index, uint64_t start,
		     uint64_t end);

/* trace.c */
void npu_trace_reset(struct npu_emu *e);
void npu_trace_set_level(struct npu_emu *e, unsigned int level);
/* Write the records of one execution: its operators (if any) and itself */
void npu_trace_exec(struct npu_emu *e, const struct npu_pe *pe,
		    uint32_t status);

#endif /* NPU_EMU_INT_H */
