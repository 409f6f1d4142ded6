// SPDX-License-Identifier: GPL-2.0-only
/*
 * pe.c - processing elements: command queues, jobs, timing, completions.
 *
 * One thread per PE. PE p consumes command queue p. NPU_DB_QUEUE notes
 * every queue's producer and wakes all PEs; each takes the commands of its
 * own queue up to the producer the last ring noted, never one that no ring
 * announced, so a CONTROL change rung before a command's doorbell applies
 * to the command (its trace level). A job is validated, its buffers are
 * resolved to host pointers into BAR2, and the program interpreter runs it
 * with hooks around every operator. The hooks tell the shared DRAM model
 * (dram.c, under e->lock) each operator's transfer and compute when it
 * begins, and the instant its arithmetic ended; at the job's end the model
 * times it:
 *
 *   op start  = end of the previous operator (the job start for the first)
 *   dma       = the transfer's duration, sharing the DRAM with other PEs
 *   iowait    = max(0, dma - compute(previous op))
 *   model end = op start + iowait + compute(macs)
 *   op end    = max(model end, device clock when the arithmetic finished)
 *   run       = op end - op start - iowait   (>= compute: excess is run)
 *
 * so a job's end - start is exactly the sum of its run and iowait. The
 * model may run ahead of the real arithmetic; records and the completion are
 * published only once the device clock has reached the job's end, so device
 * time never runs ahead of real time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu_int.h"

#define NO_OP_INDEX	0xffff

static struct npu_hw_ring_ptrs *cmdq_ptrs(struct npu_emu *e, unsigned int p)
{
	return (struct npu_hw_ring_ptrs *)(e->shm + e->lay.cmdq_base +
					   (uint64_t)p * e->lay.cmdq_stride);
}

static struct npu_hw_cmd *cmdq_entry(struct npu_emu *e, unsigned int p,
				     uint32_t i)
{
	return (struct npu_hw_cmd *)((uint8_t *)cmdq_ptrs(e, p) +
				     NPU_HW_CMDQ_ENTRIES_OFFSET) +
	       (i & (e->lay.cmdq_entries - 1));
}

static struct npu_hw_ring_ptrs *cplq_ptrs(struct npu_emu *e)
{
	return (struct npu_hw_ring_ptrs *)(e->shm + e->lay.cplq_base);
}

void emu_pe_complete(struct npu_emu *e, uint64_t job_id, uint32_t status,
		     unsigned int pe, uint16_t op_index, uint64_t start,
		     uint64_t end)
{
	struct npu_hw_ring_ptrs *q = cplq_ptrs(e);
	struct npu_hw_cpl cpl = {
		.job_id = job_id,
		.status = status,
		.pe = (uint16_t)pe,
		.op_index = op_index,
		.start_tick = start,
		.end_tick = end,
	};
	struct npu_hw_cpl *slot;
	uint32_t cons, prev;
	bool merged;

	pthread_mutex_lock(&e->cpl_lock);
	cons = __atomic_load_n(&q->cons, __ATOMIC_ACQUIRE);
	if (e->cpl_prod - cons >= e->lay.cplq_entries) {
		pthread_mutex_unlock(&e->cpl_lock);
		emu_err("completion queue full (prod %u cons %u): completion of job 0x%" PRIx64 " lost",
			e->cpl_prod, cons, job_id);
		__atomic_store_n(&e->fault, true, __ATOMIC_RELEASE);
		emu_dev_error(e, NPU_ERR_CPLQ_FULL, true);
		return;
	}
	slot = (struct npu_hw_cpl *)((uint8_t *)q + NPU_HW_CPLQ_ENTRIES_OFFSET) +
	       (e->cpl_prod & (e->lay.cplq_entries - 1));
	memcpy(slot, &cpl, sizeof(cpl));
	e->cpl_prod++;
	__atomic_store_n(&q->prod, e->cpl_prod, __ATOMIC_RELEASE);
	/*
	 * Merge completions into the interrupt the host has not cleared yet
	 * (hw.rst, "Interrupts"): NPU_MSIX_CPL is raised only when
	 * NPU_INTR_CPL was clear, or was last set while masked. The host
	 * clears the bit before it reads the producer, so a completion
	 * published before a set that found the bit set is seen by the drain
	 * that follows the clear.
	 */
	prev = __atomic_fetch_or(emu_reg(e, NPU_REG_INTR_CAUSE), NPU_INTR_CPL,
				 __ATOMIC_SEQ_CST);
	merged = (prev & NPU_INTR_CPL) && e->cpl_raised;
	e->cpl_raised = !(emu_reg_read(e, NPU_REG_INTR_MASK) & NPU_INTR_CPL);
	pthread_mutex_unlock(&e->cpl_lock);
	emu_log(&e->log, "pe%u: job 0x%" PRIx64 " status %u op %u ticks %" PRIu64
		"..%" PRIu64 "%s", pe, job_id, status, op_index, start, end,
		merged ? " (interrupt merged)" : "");
	if (!merged)
		emu_dev_raise(e, NPU_INTR_CPL, NPU_MSIX_CPL);
}

/* Check a command and resolve its buffers; NPU_HW_STATUS_* */
static uint32_t check_cmd(struct npu_emu *e, const struct npu_hw_cmd *c,
			  struct emu_prog_slot *slots)
{
	uint64_t dram_end = e->lay.dram_base + e->lay.dram_size;
	uint32_t i;

	if (c->flags || !c->nbufs || c->nbufs > NPU_HW_MAX_BUFS ||
	    c->prog_buf >= c->nbufs)
		return NPU_HW_STATUS_BAD_CMD;
	for (i = 0; i < c->nbufs; i++) {
		uint64_t addr = c->bufs[i].addr;
		uint64_t end = addr + c->bufs[i].size;	/* 64-bit: no wrap */

		if (addr % 64)
			return NPU_HW_STATUS_MISALIGNED;
		if (addr < e->lay.dram_base || end > dram_end)
			return NPU_HW_STATUS_BAD_ADDRESS;
		slots[i].base = e->shm + addr;
		slots[i].size = c->bufs[i].size;
	}
	if (c->prog_offset % 64)
		return NPU_HW_STATUS_MISALIGNED;
	if ((uint64_t)c->prog_offset + c->prog_size > c->bufs[c->prog_buf].size)
		return NPU_HW_STATUS_BAD_ADDRESS;
	return NPU_HW_STATUS_OK;
}

/* The DRAM model may be able to go on: wake the PEs waiting for it */
static void dram_kick_locked(struct npu_emu *e)
{
	if (e->dram_waiters)
		pthread_cond_broadcast(&e->wake);
}

static int hook_op_begin(void *arg, uint32_t index, const struct npu_prog_op *op,
			 const struct emu_op_cost *cost)
{
	struct emu_pe *pe = arg;
	struct emu_exec *x = &pe->x;

	(void)index;
	(void)op;
	if (__atomic_load_n(&pe->abort, __ATOMIC_ACQUIRE))
		return 1;
	x->op_macs = cost->macs;
	x->op_bytes = emu_timing_op_bytes(cost);
	x->op_compute = emu_timing_compute_ticks(&pe->e->timing, cost->macs);
	if (x->op_compute > EMU_MAX_MODEL_TICKS)
		x->op_compute = EMU_MAX_MODEL_TICKS;
	/* its transfer is issued while the previous operator computes */
	pthread_mutex_lock(&pe->e->lock);
	emu_dram_op_begin(&pe->e->dram, pe->idx, x->op_bytes, x->op_compute);
	dram_kick_locked(pe->e);
	pthread_mutex_unlock(&pe->e->lock);
	return 0;
}

/*
 * The operator ran: the DRAM model learns the instant its arithmetic
 * ended; it times the operator later (run_job).
 */
static void hook_op_end(void *arg, uint32_t index, const struct npu_prog_op *op,
			const struct emu_op_cost *cost)
{
	struct emu_pe *pe = arg;
	struct npu_emu *e = pe->e;
	struct emu_exec *x = &pe->x;
	struct npu_hw_trec_op *r;
	uint64_t now;

	(void)cost;
	pthread_mutex_lock(&e->lock);
	now = emu_clock_now(&e->clock);
	emu_dram_op_end(&e->dram, pe->idx, now);
	dram_kick_locked(e);
	pthread_mutex_unlock(&e->lock);

	/* every operator is recorded: the trace and an abort need them */
	if (x->n_ops < NPU_PROG_MAX_OPS) {
		r = &x->ops[x->n_ops];
		memset(r, 0, sizeof(*r));
		r->hdr.type = NPU_HW_TREC_OP;
		r->hdr.size = sizeof(*r);
		r->pe = (uint16_t)pe->idx;
		r->opcode = op->opcode;
		r->op_index = index;
		r->exec_index = x->cmd.exec_index;
		r->job_id = x->cmd.job_id;
		r->dma_bytes = x->op_bytes;
		r->macs = x->op_macs;
	}
	x->n_ops++;
}

/*
 * Wait until the DRAM model has timed @pe's job; e->lock held. Return:
 * false when it has, true when an abort of @pe or e->quit interrupted it.
 */
static bool wait_dram_locked(struct npu_emu *e, struct emu_pe *pe)
{
	const struct emu_dram_pe *dp = &e->dram.pe[pe->idx];
	struct timespec ts;
	uint64_t next, now, ns, events;

	for (;;) {
		events = e->dram.events;
		now = emu_clock_now(&e->clock);
		next = emu_dram_advance(&e->dram, now);
		if (e->dram.events != events)
			dram_kick_locked(e);
		if (dp->resolved)
			return false;
		if (e->quit || pe->abort)
			return true;
		e->dram_waiters++;
		if (next == UINT64_MAX) {
			/* another PE has to tell the model more */
			pthread_cond_wait(&e->wake, &e->lock);
		} else {
			/* a PE without a job: the model follows the clock */
			ns = emu_mono_ns() + emu_clock_ns_for_ticks(&e->clock,
							next - now);
			ts.tv_sec = (time_t)(ns / 1000000000ull);
			ts.tv_nsec = (long)(ns % 1000000000ull);
			pthread_cond_timedwait(&e->wake, &e->lock, &ts);
		}
		e->dram_waiters--;
	}
}

/*
 * Copy the DRAM model's timing of the job's first @n operators (at most
 * NPU_PROG_MAX_OPS: both arrays are that long) into the trace records and
 * the execution's sums; e->lock held.
 */
static void take_dram_timing(struct emu_pe *pe, uint32_t n)
{
	const struct emu_dram_pe *dp = &pe->e->dram.pe[pe->idx];
	struct emu_exec *x = &pe->x;
	uint32_t k;

	if (n > NPU_PROG_MAX_OPS)
		n = NPU_PROG_MAX_OPS;
	x->run = x->iowait = x->bytes = x->macs = 0;
	x->cursor = x->start;
	for (k = 0; k < n; k++) {
		const struct emu_dram_op *o = &dp->ops[k];
		struct npu_hw_trec_op *r = &x->ops[k];

		r->start_tick = o->start;
		r->end_tick = o->end;
		r->iowait_ticks = o->iowait;
		x->run = emu_timing_add(x->run, o->end - o->start - o->iowait);
		x->iowait = emu_timing_add(x->iowait, o->iowait);
		x->bytes = emu_timing_add(x->bytes, r->dma_bytes);
		x->macs = emu_timing_add(x->macs, r->macs);
		x->cursor = o->end;
	}
	x->n_ops = n;
}

/*
 * Wait until the clock reads @tick; e->lock held. Return: false when the
 * clock got there, true when an abort of @pe or e->quit interrupted it.
 */
static bool wait_tick_locked(struct npu_emu *e, struct emu_pe *pe,
			     uint64_t tick)
{
	struct timespec ts;
	uint64_t now, ns;
	int64_t left;

	for (;;) {
		now = emu_clock_now(&e->clock);
		left = (int64_t)(tick - now);
		if (left <= 0)
			return false;
		if (e->quit || pe->abort)
			return true;
		ns = emu_mono_ns() + emu_clock_ns_for_ticks(&e->clock,
							    (uint64_t)left);
		ts.tv_sec = (time_t)(ns / 1000000000ull);
		ts.tv_nsec = (long)(ns % 1000000000ull);
		pthread_cond_timedwait(&e->wake, &e->lock, &ts);
	}
}

/*
 * An abort arrived while the model ran ahead of the clock: the execution
 * ends now. Operators that ended by @now stay; the rest are dropped and the
 * time since the last one that stayed counts as run.
 */
static void truncate_exec(struct emu_exec *x, uint64_t now)
{
	uint32_t k, n = x->n_ops < NPU_PROG_MAX_OPS ? x->n_ops : NPU_PROG_MAX_OPS;
	const struct npu_hw_trec_op *r;

	x->run = x->iowait = x->bytes = x->macs = 0;
	for (k = 0; k < n; k++) {
		r = &x->ops[k];
		if ((int64_t)(r->end_tick - now) > 0)
			break;
		x->run += r->end_tick - r->start_tick - r->iowait_ticks;
		x->iowait += r->iowait_ticks;
		x->bytes = emu_timing_add(x->bytes, r->dma_bytes);
		x->macs = emu_timing_add(x->macs, r->macs);
	}
	x->n_ops = k;
	x->cursor = k ? x->ops[k - 1].end_tick : x->start;
}

static void run_job(struct emu_pe *pe, uint64_t nth)
{
	struct emu_prog_slot slots[NPU_HW_MAX_BUFS];
	struct npu_emu *e = pe->e;
	struct emu_exec *x = &pe->x;
	const struct npu_hw_cmd *c = &x->cmd;
	struct emu_prog_hooks hooks = {
		.arg = pe,
		.op_begin = hook_op_begin,
		.op_end = hook_op_end,
	};
	uint16_t op_index = NO_OP_INDEX;
	uint64_t end, span;
	uint32_t status;

	/* the DRAM model times the job from the instant the PE took it */
	pthread_mutex_lock(&e->lock);
	emu_dram_job_start(&e->dram, pe->idx, emu_clock_now(&e->clock));
	x->start = x->cursor = e->dram.pe[pe->idx].job_start;
	dram_kick_locked(e);
	pthread_mutex_unlock(&e->lock);
	x->run = x->iowait = x->bytes = x->macs = 0;
	x->n_ops = 0;
	emu_log(&e->log, "pe%u: job 0x%" PRIx64 " exec %u: %u bufs, program in buf %u at %u+%u",
		pe->idx, (uint64_t)c->job_id, c->exec_index, c->nbufs, c->prog_buf,
		c->prog_offset, c->prog_size);

	x->nth = nth;
	if (e->opts.fault == NPU_EMU_FAULT_DIE && nth == e->opts.fault_job) {
		/* a device that disappears: no completion, no cleanup */
		emu_err("--fault die-mid-job: exiting while job %" PRIu64
			" (id 0x%" PRIx64 ") runs on pe%u", nth,
			(uint64_t)c->job_id, pe->idx);
		fflush(NULL);
		_exit(0);
	}
	status = check_cmd(e, c, slots);
	if (status == NPU_HW_STATUS_OK && e->opts.fail_after &&
	    nth > e->opts.fail_after) {
		emu_log(&e->log, "pe%u: --fail-after %" PRIu64 ": failing job", pe->idx,
			e->opts.fail_after);
		status = NPU_HW_STATUS_BAD_PROGRAM;
	}
	if (status == NPU_HW_STATUS_OK && e->opts.stall_pe == (int)pe->idx) {
		/* fault injection: hold the job until a reset aborts it */
		emu_log(&e->log, "pe%u: --stall-pe: holding job", pe->idx);
		pthread_mutex_lock(&e->lock);
		/* no transfer: the other PEs' timing does not wait for it */
		emu_dram_job_done(&e->dram, pe->idx);
		dram_kick_locked(e);
		while (!pe->abort && !e->quit)
			pthread_cond_wait(&e->wake, &e->lock);
		pthread_mutex_unlock(&e->lock);
		status = NPU_HW_STATUS_ABORTED;
	} else if (status == NPU_HW_STATUS_OK) {
		status = emu_prog_run(slots, c->nbufs, c->prog_buf,
				      c->prog_offset, c->prog_size, &hooks,
				      &op_index);
		if (status == NPU_HW_STATUS_OK)
			op_index = NO_OP_INDEX;
	}

	/*
	 * The DRAM model times the operators once it knows every transfer
	 * that shares the DRAM with them; an abort (RESET) cuts that short,
	 * and only the operators it timed stay.
	 */
	pthread_mutex_lock(&e->lock);
	emu_dram_job_done(&e->dram, pe->idx);
	dram_kick_locked(e);
	if (wait_dram_locked(e, pe)) {
		emu_dram_job_abort(&e->dram, pe->idx);
		take_dram_timing(pe, e->dram.pe[pe->idx].n_resolved);
		status = NPU_HW_STATUS_ABORTED;
		op_index = (uint16_t)x->n_ops;
	} else {
		take_dram_timing(pe, x->n_ops);
	}
	pthread_mutex_unlock(&e->lock);

	/*
	 * The end: the last operator's end, or now when no operator ran
	 * (the time went into checks, or a stall). Records and the completion
	 * wait until the clock has got there; an abort (RESET) cuts the wait
	 * short and the execution then ends now.
	 */
	end = x->n_ops ? x->cursor : emu_clock_now(&e->clock);
	if ((int64_t)(end - x->start) < 0)
		end = x->start;
	pthread_mutex_lock(&e->lock);
	if (wait_tick_locked(e, pe, end)) {
		uint64_t now = emu_clock_now(&e->clock);

		if ((int64_t)(end - now) > 0) {
			truncate_exec(x, now);
			end = now;
			status = NPU_HW_STATUS_ABORTED;
			op_index = (uint16_t)x->n_ops;
		}
	}
	pthread_mutex_unlock(&e->lock);

	/* time not attributed to an operator is run: end - start == run + iowait */
	span = end - x->start;
	if (span > emu_timing_add(x->run, x->iowait))
		x->run = span - x->iowait;

	x->cursor = end;
	if (x->level >= NPU_TRACE_EXEC)
		emu_trace_exec(e, pe, status);
	emu_pe_complete(e, c->job_id, status, pe->idx, op_index, x->start, end);
	if (e->opts.fault == NPU_EMU_FAULT_SPURIOUS_CPL &&
	    nth == e->opts.fault_job) {
		emu_err("--fault spurious-completion: completing job id 0x%llx, never submitted",
			NPU_EMU_SPURIOUS_JOB_ID | nth);
		emu_pe_complete(e, NPU_EMU_SPURIOUS_JOB_ID | nth,
				NPU_HW_STATUS_OK, pe->idx, NO_OP_INDEX, x->start,
				end);
	}
}

/*
 * Take the next command of @pe's queue into pe->x.cmd; e->lock held.
 * Return: true when there is one.
 */
static bool dequeue(struct emu_pe *pe)
{
	struct npu_emu *e = pe->e;
	struct npu_hw_ring_ptrs *q = cmdq_ptrs(e, pe->idx);
	uint32_t prod;

	if (!e->enabled || e->resetting || e->quit ||
	    __atomic_load_n(&e->fault, __ATOMIC_ACQUIRE))
		return false;
	/* a command is the PE's once a doorbell announced it (hw.rst) */
	prod = pe->rung;
	if (prod == pe->cons)
		return false;
	if (prod - pe->cons > e->lay.cmdq_entries) {
		emu_err("pe%u: command queue pointers corrupt (prod %u, cons %u, %" PRIu64 " entries): fault",
			pe->idx, prod, pe->cons, e->lay.cmdq_entries);
		__atomic_store_n(&e->fault, true, __ATOMIC_RELEASE);
		emu_dev_error(e, NPU_ERR_CMDQ, true);
		return false;
	}
	/* one copy: the host changing the entry now cannot affect the job */
	memcpy(&pe->x.cmd, cmdq_entry(e, pe->idx, pe->cons), sizeof(pe->x.cmd));
	pe->cons++;
	__atomic_store_n(&q->cons, pe->cons, __ATOMIC_RELEASE);
	return true;
}

static void *pe_main(void *arg)
{
	struct emu_pe *pe = arg;
	struct npu_emu *e = pe->e;
	uint64_t nth;

	pthread_mutex_lock(&e->lock);
	while (!e->quit) {
		if (!dequeue(pe)) {
			pthread_cond_wait(&e->wake, &e->lock);
			continue;
		}
		pe->busy = true;
		pe->abort = false;
		pe->x.level = e->trace_level;
		nth = ++e->jobs_started;
		pthread_mutex_unlock(&e->lock);

		run_job(pe, nth);

		pthread_mutex_lock(&e->lock);
		pe->busy = false;
		pthread_cond_broadcast(&e->idle);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

int emu_pe_start(struct npu_emu *e)
{
	pthread_condattr_t ca;
	unsigned int i;
	int ret;

	/* PEs sleep on e->wake with CLOCK_MONOTONIC deadlines */
	pthread_cond_destroy(&e->wake);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->wake, &ca);
	pthread_condattr_destroy(&ca);

	e->timing.clock_hz = e->opts.clock_hz;
	e->timing.dma_bw = e->opts.dma_bw;
	e->timing.macs_per_cycle = e->opts.macs_per_cycle;
	ret = emu_dram_init(&e->dram, e->opts.clock_hz, e->opts.dma_bw,
			    e->opts.dram_bw ? e->opts.dram_bw : e->opts.dma_bw,
			    e->opts.pes, emu_clock_now(&e->clock));
	if (ret) {
		emu_err("out of memory");
		return ret;
	}
	for (i = 0; i < e->opts.pes; i++) {
		struct emu_pe *pe = &e->pes[i];

		pe->e = e;
		pe->idx = i;
		pe->x.ops = calloc(NPU_PROG_MAX_OPS, sizeof(*pe->x.ops));
		if (!pe->x.ops) {
			emu_err("out of memory");
			return -ENOMEM;
		}
		ret = pthread_create(&pe->thread, NULL, pe_main, pe);
		if (ret) {
			emu_err("cannot start PE thread: %s", strerror(ret));
			return -ret;
		}
		pe->started = true;
	}
	return 0;
}

void emu_pe_stop(struct npu_emu *e)
{
	unsigned int i;

	pthread_mutex_lock(&e->lock);
	e->quit = true;
	for (i = 0; i < NPU_HW_MAX_PES; i++)
		__atomic_store_n(&e->pes[i].abort, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&e->wake);
	pthread_mutex_unlock(&e->lock);
	for (i = 0; i < NPU_HW_MAX_PES; i++) {
		if (e->pes[i].started)
			pthread_join(e->pes[i].thread, NULL);
		e->pes[i].started = false;
		free(e->pes[i].x.ops);
		e->pes[i].x.ops = NULL;
	}
	emu_dram_free(&e->dram);
}

void emu_pe_kick(struct npu_emu *e)
{
	unsigned int p;

	pthread_mutex_lock(&e->lock);
	/*
	 * The ring announces what the host produced before it; the PEs take
	 * no command it did not announce, even when woken for another reason.
	 */
	for (p = 0; p < e->opts.pes; p++)
		e->pes[p].rung = __atomic_load_n(&cmdq_ptrs(e, p)->prod,
						 __ATOMIC_ACQUIRE);
	e->queue_gen++;
	pthread_cond_broadcast(&e->wake);
	pthread_mutex_unlock(&e->lock);
}

void emu_pe_set_enabled(struct npu_emu *e, bool enabled)
{
	pthread_mutex_lock(&e->lock);
	if (e->enabled != enabled) {
		/*
		 * The host enabled or disabled the device: the completion
		 * interrupt starts afresh, so that a cause bit a previous
		 * driver left set cannot swallow the next one's completions.
		 */
		pthread_mutex_lock(&e->cpl_lock);
		e->cpl_raised = false;
		pthread_mutex_unlock(&e->cpl_lock);
	}
	e->enabled = enabled;
	pthread_cond_broadcast(&e->wake);
	pthread_mutex_unlock(&e->lock);
}

/*
 * NPU_MBOX_RESET: stop taking commands, abort running jobs at their next
 * operator (they complete with ABORTED), complete every queued command with
 * ABORTED, then reset every command queue to prod = cons = 0. The
 * completion queue keeps its pointers: it carries the ABORTED completions.
 */
void emu_pe_reset(struct npu_emu *e)
{
	struct npu_hw_ring_ptrs *q;
	unsigned int p, n_abort = 0;
	uint32_t prod, i;
	bool busy;

	pthread_mutex_lock(&e->lock);
	e->resetting = true;
	/* a fault while aborting (completion queue full) survives the reset */
	__atomic_store_n(&e->fault, false, __ATOMIC_RELEASE);
	for (p = 0; p < e->opts.pes; p++)
		if (e->pes[p].busy)
			__atomic_store_n(&e->pes[p].abort, true,
					 __ATOMIC_RELEASE);
	pthread_cond_broadcast(&e->wake);
	do {
		busy = false;
		for (p = 0; p < e->opts.pes; p++)
			busy |= e->pes[p].busy;
		if (busy && !e->quit)
			pthread_cond_wait(&e->idle, &e->lock);
	} while (busy && !e->quit);

	for (p = 0; p < e->opts.pes; p++) {
		struct emu_pe *pe = &e->pes[p];
		uint64_t now = emu_clock_now(&e->clock);

		q = cmdq_ptrs(e, p);
		prod = __atomic_load_n(&q->prod, __ATOMIC_ACQUIRE);
		if (prod - pe->cons <= e->lay.cmdq_entries) {
			for (i = pe->cons; i != prod; i++, n_abort++)
				emu_pe_complete(e, cmdq_entry(e, p, i)->job_id,
						NPU_HW_STATUS_ABORTED, p,
						NO_OP_INDEX, now, now);
		}
		pe->cons = 0;
		pe->rung = 0;
		__atomic_store_n(&q->prod, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&q->cons, 0, __ATOMIC_RELEASE);
		pe->abort = false;
	}
	e->resetting = false;
	pthread_cond_broadcast(&e->wake);
	pthread_mutex_unlock(&e->lock);
	emu_log(&e->log, "reset: %u queued jobs aborted", n_abort);
}
