// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * timeline.c - the merged timeline of a trace file: host spans on a track
 * per thread, NPU executions and their operators on a track per PE of each
 * device, queue intervals, flows from a SUBMIT span to its execution,
 * counters (PE utilization, DMA bandwidth, losses, device memory
 * allocated per device and per process, replayed from the BO records by
 * memtrack.c) and instants (losses, causality violations, clock fit
 * anomalies, failed allocations), for the exporters
 * (export_chrome.c). Documentation/npu/export.rst describes the mapping.
 *
 * Events of a trace file are not in time order (spans are written when
 * they end, ring records when the reader drains them), so they pass
 * through the reorder buffer (reorder.h, its push and release inline
 * here) and come out by start time. Memory is that buffer, bounded by its
 * max_held, and tables of threads, processes and devices with fixed caps:
 * independent of the trace's length.
 *
 * A counter item's name and key (npf_tl_item.name, .text) are strings at
 * one address, unchanged, for the whole run (a PE's names in its table,
 * literals otherwise): the Chrome exporter caches their JSON by address.
 *
 * Locking: a timeline run is its caller's thread alone. Lifetime:
 * everything is freed when npf_timeline_run() returns.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "compiler.h"
#include "memtrack.h"
#include "reorder.h"
#include "timeline.h"

/* ------------------------------------------------------------------ */
/* The timeline                                                         */
/* ------------------------------------------------------------------ */

#define NPF_TL_MAX_THREADS	65536	/* threads tracked (named, nested) */
#define NPF_TL_MAX_PROCS	4096	/* processes named */
#define NPF_TL_MAX_DEVS		64
#define NPF_TL_MAX_PES		256
#define NPF_TL_DEPTH		32	/* nesting tracked per lane */
#define NPF_TL_FLOW_SETS	4096	/* flows begun, not ended: sets of */
#define NPF_TL_FLOW_WAYS	4	/* this many ids (128 KiB) */
#define NPF_TL_META_BYTES	65536	/* META text kept for the end */

struct npf_tl_lane {
	uint32_t depth;
	int64_t end[NPF_TL_DEPTH];
};

struct npf_tl_thread {
	int32_t pid;
	int32_t tid;
	uint32_t used;		/* 1 + highest lane used, 0 before a span */
	uint32_t sort;
	char name[16];
	struct npf_tl_lane lane[NPF_TL_LANES];
};

struct npf_tl_proc {
	int32_t pid;
	uint32_t sort;
	char name[16];
};

struct npf_tl_pe {
	bool used;
	/* utilization: the open bin and what was emitted */
	int64_t bin;		/* start of the open bin */
	int64_t busy;		/* ns busy in it */
	int64_t last_util;	/* per mille, -1 none */
	/* DMA bandwidth: the value goes back to 0 at the end of the exec */
	bool bw_pending;
	int64_t bw_zero_at;
	char util_name[24];	/* "PE p utilization" */
	char bw_name[16];	/* "PE p DMA" */
};

struct npf_tl_dev {
	bool seen;
	bool unmapped_said;
	uint32_t minor;
	uint32_t pe_count;
	char name[24];
	uint64_t lost[4];
	int64_t qlane_end[NPF_TL_QLANES];
	uint32_t qlanes;
	int64_t hlane_end[NPF_TL_QLANES];
	uint32_t hlanes;
	struct npf_tl_pe *pe;	/* NPF_TL_MAX_PES, allocated at first use */
	char mem_name[40];	/* "npuN memory allocated" (per process) */
};

struct npf_tl {
	/* read-only during the run */
	struct npuprof_trace *trace;
	/* the devices' clock fits, NULL without a piece (npf_tl_dur()) */
	const struct npf_clock_fit *fit[NPF_TL_MAX_DEVS];
	npf_tl_fn fn;
	void *ctx;
	struct npf_tl_stats *st;
	struct npf_tl_thread **thr;	/* open addressing, power of two */
	uint32_t thr_cap;
	uint32_t nthr;
	struct npf_tl_proc *proc;
	uint32_t nproc;
	struct npf_tl_dev dev[NPF_TL_MAX_DEVS];
	bool have_host_spans;
	int32_t self_pid;
	char self_name[16];
	uint64_t host_lost;
	int session_open;
	int64_t last_ts;
	bool have_last;
	bool cur_late;		/* the event being handled is late */
	char *meta;		/* "key\0value\0" pairs */
	size_t meta_len;
	uint64_t *flows;	/* npf_tl_flow() */
	struct npf_mem *mem;	/* BO records replayed, at the first */
};

/*
 * The flows begun (their submit span was emitted) and not yet ended: a
 * set-associative table of flow ids (0 is free), so that a flow end is
 * written only after its start. A submit span lost, or cut off by the
 * capture's start, leaves its execution without an arrow: viewers report
 * a lone flow end as an error (catapult's flow_slice_ordering_error,
 * Perfetto's flow_end_without_start). A flow whose execution never comes
 * holds its entry until a later one of its set takes it.
 */
static bool npf_tl_flow(struct npf_tl *tl, const struct npf_tl_item *it)
{
	uint64_t *set;
	unsigned int i;

	if (!tl->flows) {
		tl->flows = calloc(NPF_TL_FLOW_SETS * NPF_TL_FLOW_WAYS,
				   sizeof(*tl->flows));
		if (!tl->flows)
			return false;	/* no arrows rather than wrong ones */
	}
	/*
	 * A device's jobs are numbered in order: the set of a job is its
	 * number's low bits (the device's moved by a constant of its own),
	 * so the flows in flight, a few consecutive jobs, are a few
	 * consecutive sets in the cache, not random lines of the table,
	 * and 4096 consecutive jobs of a device never share a set
	 */
	set = tl->flows + ((it->id + (it->id >> 48) * 0x9e3779b9ull) &
			   (NPF_TL_FLOW_SETS - 1)) * NPF_TL_FLOW_WAYS;
	for (i = 0; i < NPF_TL_FLOW_WAYS; i++) {
		if (set[i] != it->id)
			continue;
		if (it->kind == NPF_TL_FLOW_IN)
			set[i] = 0;
		return true;
	}
	if (it->kind == NPF_TL_FLOW_IN)
		return false;
	for (i = 0; i < NPF_TL_FLOW_WAYS - 1 && set[i]; i++)
		;
	memmove(set + 1, set, i * sizeof(*set));	/* newest first */
	set[0] = it->id;
	return true;
}

static inline __attribute__((always_inline)) int
npf_tl_emit(struct npf_tl *tl, const struct npf_tl_item *it)
{
	if ((it->kind == NPF_TL_FLOW_OUT || it->kind == NPF_TL_FLOW_IN) &&
	    !npf_tl_flow(tl, it))
		return 0;
	tl->st->items++;
	return tl->fn(tl->ctx, it);
}

static uint32_t npf_tl_hash(int32_t pid, int32_t tid)
{
	uint64_t k = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;

	k *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32);
}

static int npf_tl_grow(struct npf_tl *tl)
{
	uint32_t cap = tl->thr_cap ? tl->thr_cap * 2 : 256, i;
	struct npf_tl_thread **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < tl->thr_cap; i++) {
		struct npf_tl_thread *th = tl->thr[i];
		uint32_t h;

		if (!th)
			continue;
		h = npf_tl_hash(th->pid, th->tid) & (cap - 1);
		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = th;
	}
	free(tl->thr);
	tl->thr = t;
	tl->thr_cap = cap;
	return 0;
}

/* The process @pid, added if new and there is room; NULL if not */
static struct npf_tl_proc *npf_tl_proc(struct npf_tl *tl, int32_t pid)
{
	uint32_t i;

	for (i = tl->nproc; i-- > 0;)
		if (tl->proc[i].pid == pid)
			return &tl->proc[i];
	if (tl->nproc == NPF_TL_MAX_PROCS)
		return NULL;
	if (!tl->proc) {
		tl->proc = calloc(NPF_TL_MAX_PROCS, sizeof(*tl->proc));
		if (!tl->proc)
			return NULL;
	}
	i = tl->nproc++;
	tl->proc[i].pid = pid;
	tl->proc[i].sort = i;
	return &tl->proc[i];
}

/*
 * The thread (@pid, @tid), added if new; NULL beyond the cap (then it is
 * neither named nor checked for nesting) or without memory (-ENOMEM).
 */
static struct npf_tl_thread *npf_tl_thread(struct npf_tl *tl, int32_t pid,
					   int32_t tid, int *err)
{
	struct npf_tl_thread *th;
	uint32_t h;

	*err = 0;
	if (tl->thr_cap) {
		h = npf_tl_hash(pid, tid) & (tl->thr_cap - 1);
		while ((th = tl->thr[h])) {
			if (th->pid == pid && th->tid == tid)
				return th;
			h = (h + 1) & (tl->thr_cap - 1);
		}
	}
	if (tl->nthr >= NPF_TL_MAX_THREADS) {
		tl->st->untracked++;
		return NULL;
	}
	if ((tl->nthr + 1) * 2 > tl->thr_cap && (*err = npf_tl_grow(tl)))
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th) {
		*err = -ENOMEM;
		return NULL;
	}
	th->pid = pid;
	th->tid = tid;
	th->sort = tl->nthr;
	h = npf_tl_hash(pid, tid) & (tl->thr_cap - 1);
	while (tl->thr[h])
		h = (h + 1) & (tl->thr_cap - 1);
	tl->thr[h] = th;
	tl->nthr++;
	npf_tl_proc(tl, pid);
	return th;
}

static struct npf_tl_pe *npf_tl_pe_new(struct npf_tl *tl, uint32_t dev,
				       uint32_t pe);

/* PE @pe of device @dev, marked used; NULL beyond the table or memory */
static inline struct npf_tl_pe *npf_tl_pe(struct npf_tl *tl, uint32_t dev,
					  uint32_t pe)
{
	struct npf_tl_dev *d = &tl->dev[dev];

	if (npf_likely(d->pe && pe < NPF_TL_MAX_PES)) {
		d->pe[pe].used = true;
		return &d->pe[pe];
	}
	return npf_tl_pe_new(tl, dev, pe);
}

static struct npf_tl_pe *npf_tl_pe_new(struct npf_tl *tl, uint32_t dev,
				       uint32_t pe)
{
	struct npf_tl_dev *d = &tl->dev[dev];

	if (pe >= NPF_TL_MAX_PES) {
		tl->st->untracked++;
		return NULL;
	}
	if (!d->pe) {
		uint32_t i;

		d->pe = calloc(NPF_TL_MAX_PES, sizeof(*d->pe));
		if (!d->pe)
			return NULL;
		for (i = 0; i < NPF_TL_MAX_PES; i++) {
			d->pe[i].last_util = -1;
			snprintf(d->pe[i].util_name, sizeof(d->pe[i].util_name),
				 "PE %u utilization", i);
			snprintf(d->pe[i].bw_name, sizeof(d->pe[i].bw_name),
				 "PE %u DMA", i);
		}
	}
	d->pe[pe].used = true;
	return &d->pe[pe];
}

/* Lane of a span [@s, @e] on @th: the first where it nests */
static unsigned int npf_tl_lane(struct npf_tl_thread *th, int64_t s, int64_t e)
{
	unsigned int l;

	for (l = 0; l < NPF_TL_LANES; l++) {
		struct npf_tl_lane *ln = &th->lane[l];

		while (ln->depth && ln->end[ln->depth - 1] <= s)
			ln->depth--;
		if (ln->depth && ln->end[ln->depth - 1] < e)
			continue;	/* overlaps the open span: next lane */
		if (ln->depth < NPF_TL_DEPTH)
			ln->end[ln->depth++] = e;
		break;
	}
	if (l == NPF_TL_LANES)
		l = NPF_TL_LANES - 1;	/* shown overlapping, never dropped */
	if (l + 1 > th->used)
		th->used = l + 1;
	return l;
}

static uint64_t npf_tl_flow_id(uint32_t minor, uint64_t job)
{
	return ((uint64_t)(minor + 1) & 0xffff) << 48 |
	       (job & ((1ull << 48) - 1));
}

static int npf_tl_span(struct npf_tl *tl, const struct npuprof_event *ev)
{
	const struct npuprof_span_rec *s = ev->span;
	struct npf_tl_item it = { .kind = NPF_TL_SPAN, .ev = ev };
	struct npf_tl_thread *th;
	int64_t end = (int64_t)s->end_ns;
	int ret;

	it.ts = (int64_t)s->start_ns;
	it.dur = end > it.ts ? end - it.ts : 0;
	it.pid = (uint32_t)s->pid;
	it.tid = (uint32_t)s->tid;
	th = npf_tl_thread(tl, s->pid, s->tid, &ret);
	if (ret)
		return ret;
	/*
	 * A late span (released after later ones: a labelled record longer
	 * than the reorder window) cannot be checked against its thread's
	 * open spans, which are later ones; it encloses them or not, and
	 * the viewers nest it by its times: lane 0.
	 */
	if (th && !tl->cur_late) {
		it.lane = npf_tl_lane(th, it.ts, it.ts + it.dur);
		if (it.lane) {
			tl->st->lanes++;
			it.tid = (uint32_t)s->tid + (it.lane << NPF_TL_LANE_SHIFT);
		}
	}
	ret = npf_tl_emit(tl, &it);
	if (ret || s->kind != NPUPROF_SPAN_SUBMIT ||
	    (s->flags & (NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_ERROR)) !=
	    NPUPROF_SPAN_F_JOB)
		return ret;
	it.kind = NPF_TL_FLOW_OUT;
	it.id = npf_tl_flow_id(s->minor, s->job_id);
	it.ts += it.dur / 2;	/* inside the span: binds to it */
	it.dur = 0;
	return npf_tl_emit(tl, &it);
}

static int npf_tl_counter(struct npf_tl *tl, uint32_t pid, int64_t ts,
			  const char *name, const char *key, int64_t value,
			  int decimals)
{
	struct npf_tl_item it = {
		.kind = NPF_TL_COUNTER, .pid = pid, .ts = ts, .name = name,
		.text = key, .value = value, .decimals = decimals,
	};

	return npf_tl_emit(tl, &it);
}

/* Utilization of PE @p: emit the open bin if it changed the value */
static int npf_tl_util_close(struct npf_tl *tl, uint32_t dev,
			     struct npf_tl_pe *p)
{
	int64_t v = p->busy * 1000 / NPF_TL_UTIL_BIN_NS;

	p->busy = 0;
	if (v == p->last_util)
		return 0;
	p->last_util = v;
	return npf_tl_counter(tl, NPF_TL_DEV_PID + dev, p->bin, p->util_name,
			      "%", v, 1);
}

/* Account [@s, @e) busy on PE @p: executions of a PE do not overlap */
static int npf_tl_util(struct npf_tl *tl, uint32_t dev, struct npf_tl_pe *p,
		       int64_t s, int64_t e)
{
	int64_t bin = s - (s % NPF_TL_UTIL_BIN_NS + NPF_TL_UTIL_BIN_NS) %
		      NPF_TL_UTIL_BIN_NS;
	int ret;

	if (p->last_util < 0 && !p->busy)
		p->bin = bin;
	if (bin > p->bin) {
		ret = npf_tl_util_close(tl, dev, p);
		if (ret)
			return ret;
		if (bin > p->bin + NPF_TL_UTIL_BIN_NS) {
			/* idle bins in between */
			p->bin += NPF_TL_UTIL_BIN_NS;
			ret = npf_tl_util_close(tl, dev, p);
			if (ret)
				return ret;
		}
		p->bin = bin;
	}
	while (e > p->bin + NPF_TL_UTIL_BIN_NS) {
		int64_t from = s > p->bin ? s : p->bin;

		p->busy += p->bin + NPF_TL_UTIL_BIN_NS - from;
		ret = npf_tl_util_close(tl, dev, p);
		if (ret)
			return ret;
		p->bin += NPF_TL_UTIL_BIN_NS;
		if (e > p->bin + NPF_TL_UTIL_BIN_NS) {
			/* whole bins: one value (100 %), then the last bin */
			int64_t whole = (e - p->bin) / NPF_TL_UTIL_BIN_NS;

			p->busy = NPF_TL_UTIL_BIN_NS;
			ret = npf_tl_util_close(tl, dev, p);
			if (ret)
				return ret;
			p->bin += whole * NPF_TL_UTIL_BIN_NS;
			if (e == p->bin)
				return 0;
		}
	}
	if (e > s)
		p->busy += e - (s > p->bin ? s : p->bin);
	return 0;
}

static int npf_tl_bw(struct npf_tl *tl, uint32_t dev, struct npf_tl_pe *p,
		     int64_t s, int64_t e, uint64_t bytes)
{
	int ret;

	if (p->bw_pending && p->bw_zero_at < s) {
		ret = npf_tl_counter(tl, NPF_TL_DEV_PID + dev, p->bw_zero_at,
				     p->bw_name, "MB/s", 0, 0);
		if (ret)
			return ret;
	}
	p->bw_pending = false;
	if (e <= s)
		return 0;
	/* bytes per ns is GB/s: MB/s with 3 decimals is bytes * 1e6 / ns */
	/* in 64 bits unless the product needs more (a 64-bit division) */
	ret = npf_tl_counter(tl, NPF_TL_DEV_PID + dev, s, p->bw_name, "MB/s",
			     bytes <= UINT64_MAX / 1000000 ?
			     (int64_t)(bytes * 1000000 / (uint64_t)(e - s)) :
			     (int64_t)((__int128)bytes * 1000000 / (e - s)), 3);
	p->bw_pending = true;
	p->bw_zero_at = e;
	return ret;
}

/* A lane of @end (sorted by end) where [@s, @e] fits */
static uint32_t npf_tl_qlane(int64_t *end, uint32_t *n, int64_t s, int64_t e)
{
	uint32_t l;

	for (l = 0; l < *n; l++)
		if (end[l] <= s)
			break;
	if (l == *n) {
		if (*n < NPF_TL_QLANES)
			(*n)++;
		else
			l = NPF_TL_QLANES - 1;
	}
	end[l] = e;
	return l;
}

static int npf_tl_unmapped(struct npf_tl *tl, const struct npuprof_event *ev,
			   int64_t ts)
{
	struct npf_tl_dev *d = &tl->dev[ev->dev];
	struct npf_tl_item it = {
		.kind = NPF_TL_INSTANT, .what = NPF_TL_I_UNMAPPED, .ev = ev,
		.pid = NPF_TL_DEV_PID + ev->dev, .ts = ts,
		.name = "device clock not mapped",
	};

	tl->st->unmapped++;
	if (d->unmapped_said)
		return 0;
	d->unmapped_said = true;
	return npf_tl_emit(tl, &it);
}

/*
 * The durations of record @rec (EXEC or OP) of device @dev from its ticks
 * (npf_dev_dur()); @start, @end: its mapped times
 */
static inline __attribute__((always_inline)) void
npf_tl_dur(const struct npf_tl *tl, uint32_t dev, const void *rec,
	   const struct npuprof_clock_map *start,
	   const struct npuprof_clock_map *end, struct npf_dur *out)
{
	const struct npf_clock_fit *fit = dev < NPF_TL_MAX_DEVS ?
					  tl->fit[dev] : NULL;
	const struct npu_trace_rec_exec *x = rec;
	const struct npu_trace_rec_op *o = rec;
	uint64_t tick, run, iowait, ticks;

	if (x->hdr.type == NPU_TRACE_REC_EXEC) {
		tick = x->start_tick;
		run = x->run_ticks;
		iowait = x->iowait_ticks;
	} else {
		ticks = o->end_tick >= o->start_tick ?
			o->end_tick - o->start_tick : 0;
		tick = o->start_tick;
		run = ticks >= o->iowait_ticks ? ticks - o->iowait_ticks : 0;
		iowait = o->iowait_ticks;
	}
	if (npf_likely(fit != NULL))
		npf_dur_at(npf_fit_slope(fit, tick), run, iowait, start, end,
			   out);
	else
		npf_dev_dur(tl->trace, dev, 0, tick, run, iowait, start, end,
			    out);
}

static int npf_tl_exec(struct npf_tl *tl, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_exec *x = ev->rec;
	struct npf_tl_dev *d = &tl->dev[ev->dev];
	struct npf_tl_item it = { .kind = NPF_TL_EXEC, .ev = ev };
	struct npf_tl_pe *p;
	int ret;

	it.pid = NPF_TL_DEV_PID + ev->dev;
	it.minor = d->seen ? d->minor : UINT32_MAX;
	it.device = (x->flags & NPU_TRACE_EXEC_F_DEVICE) && ev->start.valid &&
		    ev->end.valid;
	npf_tl_dur(tl, ev->dev, x, &ev->start, &ev->end, &it.dur_dev);
	if (!it.device) {
		/* host times: submit to completion, on a lane of its own */
		if (x->flags & NPU_TRACE_EXEC_F_DEVICE) {
			ret = npf_tl_unmapped(tl, ev, (int64_t)x->submit_ns);
			if (ret)
				return ret;
		}
		it.ts = (int64_t)x->submit_ns;
		it.dur = (int64_t)x->complete_ns - it.ts;
		if (it.dur < 0)
			it.dur = 0;
		it.tid = NPF_TL_HOSTJOB_TID +
			 npf_tl_qlane(d->hlane_end, &d->hlanes, it.ts,
				      it.ts + it.dur);
		it.err_ns = UINT64_MAX;
	} else {
		int64_t lo, hi;

		it.ts = ev->start.ns;
		it.dur = ev->end.ns > ev->start.ns ? ev->end.ns - ev->start.ns : 0;
		it.tid = NPF_TL_PE_TID + x->pe;
		it.err_ns = ev->start.err_ns > ev->end.err_ns ?
			    ev->start.err_ns : ev->end.err_ns;
		/* inside submit..complete, widened by the bounds */
		lo = ev->start.ns + (int64_t)ev->start.err_ns;
		hi = ev->end.ns - (int64_t)ev->end.err_ns;
		it.violation = lo < (int64_t)x->submit_ns ||
			       hi > (int64_t)x->complete_ns;
	}
	ret = npf_tl_emit(tl, &it);
	if (ret)
		return ret;
	if (tl->have_host_spans && it.minor != UINT32_MAX) {
		struct npf_tl_item f = it;

		f.kind = NPF_TL_FLOW_IN;
		f.id = npf_tl_flow_id(it.minor, x->job_id);
		/*
		 * At the execution's start, before its first operator opens:
		 * viewers bind a flow end to the deepest slice enclosing it.
		 */
		f.ts = it.ts;
		f.dur = 0;
		ret = npf_tl_emit(tl, &f);
		if (ret)
			return ret;
	}
	if (!it.device)
		return 0;
	if (it.violation) {
		struct npf_tl_item v = {
			.kind = NPF_TL_INSTANT, .what = NPF_TL_I_VIOLATION,
			.ev = ev, .pid = it.pid, .tid = it.tid, .ts = it.ts,
			.name = "causality violation", .minor = it.minor,
			.err_ns = it.err_ns,
		};

		tl->st->violations++;
		ret = npf_tl_emit(tl, &v);
		if (ret)
			return ret;
	}
	if (it.ts > (int64_t)x->submit_ns) {
		struct npf_tl_item q = it;

		q.kind = NPF_TL_QUEUE;
		q.ts = (int64_t)x->submit_ns;
		q.dur = it.ts - q.ts;
		q.tid = NPF_TL_QUEUE_TID +
			npf_tl_qlane(d->qlane_end, &d->qlanes, q.ts, it.ts);
		ret = npf_tl_emit(tl, &q);
		if (ret)
			return ret;
	}
	p = npf_tl_pe(tl, ev->dev, x->pe);
	if (!p)
		return 0;
	ret = npf_tl_util(tl, ev->dev, p, it.ts, it.ts + it.dur);
	if (!ret)
		ret = npf_tl_bw(tl, ev->dev, p, it.ts, it.ts + it.dur,
				x->dma_bytes);
	return ret;
}

static int npf_tl_op(struct npf_tl *tl, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_op *o = ev->rec;
	struct npf_tl_dev *d = &tl->dev[ev->dev];
	struct npf_tl_item it;

	if (!ev->start.valid || !ev->end.valid)
		return npf_tl_unmapped(tl, ev, ev->time_ns);
	/*
	 * The most common item: the fields of an OP's (struct npf_tl_item)
	 * set one by one, not the whole struct zeroed first
	 */
	it.kind = NPF_TL_OP;
	it.what = 0;
	it.ev = ev;
	it.id = 0;
	it.name = NULL;
	it.text = NULL;
	it.lane = 0;
	it.violation = false;
	it.value = 0;
	it.decimals = 0;
	it.sort = 0;
	it.pid = NPF_TL_DEV_PID + ev->dev;
	it.tid = NPF_TL_PE_TID + o->pe;
	it.minor = d->seen ? d->minor : UINT32_MAX;
	it.device = true;
	it.ts = ev->start.ns;
	it.dur = ev->end.ns > ev->start.ns ? ev->end.ns - ev->start.ns : 0;
	it.err_ns = ev->start.err_ns > ev->end.err_ns ?
		    ev->start.err_ns : ev->end.err_ns;
	npf_tl_dur(tl, ev->dev, o, &ev->start, &ev->end, &it.dur_dev);
	if (o->pe < NPF_TL_MAX_PES && !npf_tl_pe(tl, ev->dev, o->pe))
		return -ENOMEM;
	return npf_tl_emit(tl, &it);
}

static const char *const npf_tl_lost_name[4] = {
	"records lost (unknown)", "records lost (ring full)",
	"records lost (device)", "records lost (host)",
};

static int npf_tl_lost(struct npf_tl *tl, const struct npuprof_event *ev,
		       int64_t ts)
{
	const struct npu_trace_rec_lost *l = ev->rec;
	struct npf_tl_dev *d = &tl->dev[ev->dev];
	uint32_t r = l->reason < 4 ? l->reason : 0;
	struct npf_tl_item it = {
		.kind = NPF_TL_INSTANT, .what = NPF_TL_I_LOST, .ev = ev,
		.pid = NPF_TL_DEV_PID + ev->dev, .ts = ts,
		.name = npf_tl_lost_name[r],
	};
	int ret;

	d->lost[r] += l->count;
	ret = npf_tl_emit(tl, &it);
	if (!ret)
		ret = npf_tl_counter(tl, it.pid, ts, npf_tl_lost_name[r],
				     "count", (int64_t)d->lost[r], 0);
	return ret;
}

/*
 * A BO record: the allocated bytes of its device (the trace's buffers,
 * and the driver's counter of every process's) and of the buffer's
 * process on that device as counters in MB, exact (6 decimals); a failed
 * allocation as an instant on its process. Records that make no sense
 * and frees of buffers not seen allocated change no counter.
 */
static int npf_tl_bo(struct npf_tl *tl, const struct npuprof_event *ev,
		     int64_t ts)
{
	const struct npu_trace_rec_bo *r;
	struct npf_tl_dev *d = &tl->dev[ev->dev];
	struct npf_mem_proc *p = NULL;
	uint32_t dpid = NPF_TL_DEV_PID + ev->dev;
	int ret, what;

	if (npf_bo_rec(ev, &r) != 1)
		return 0;
	if (!tl->mem && (ret = npf_mem_new(&tl->mem)))
		return ret;
	what = npf_mem_apply(tl->mem, ev->dev, r, &p, NULL);
	if (what < 0)
		return what;
	/* a process's tracks only for a pid a host track can have */
	if (p && (p->pid <= 0 || p->pid >= (1 << NPF_TL_LANE_SHIFT)))
		p = NULL;
	if (what == NPF_MEM_FAIL) {
		struct npf_tl_item it = {
			.kind = NPF_TL_INSTANT, .what = NPF_TL_I_BO_FAIL,
			.ev = ev, .pid = (uint32_t)r->pid,
			.tid = (uint32_t)r->tid, .ts = ts,
			.name = "allocation failed",
		};

		if (!p)
			it.pid = dpid, it.tid = 0;
		return npf_tl_emit(tl, &it);
	}
	if (what == NPF_MEM_SKIP)
		return 0;
	if (!d->mem_name[0])
		snprintf(d->mem_name, sizeof(d->mem_name), "%s memory allocated",
			 d->name[0] ? d->name : "device");
	ret = npf_tl_counter(tl, dpid, ts, "memory allocated", "MB",
			     (int64_t)npf_mem_dev(tl->mem, ev->dev)->cur, 6);
	if (!ret)
		ret = npf_tl_counter(tl, dpid, ts, "memory in use, all processes",
				     "MB", (int64_t)r->dev_used, 6);
	if (!ret && p)
		ret = npf_tl_counter(tl, (uint32_t)p->pid, ts, d->mem_name, "MB",
				     (int64_t)p->cur, 6);
	return ret;
}

static int npf_tl_session(struct npf_tl *tl, const struct npuprof_event *ev,
			  int64_t ts)
{
	struct npf_tl_item it = {
		.pid = NPF_TL_SESSION_PID, .tid = NPF_TL_SESSION_TID, .ts = ts,
		.ev = ev, .name = "capture",
	};

	switch (ev->session_op) {
	case NPUPROF_SESSION_START:
	case NPUPROF_SESSION_RESUME:
		if (tl->session_open)
			return 0;
		tl->session_open = 1;
		it.kind = NPF_TL_BEGIN;
		break;
	case NPUPROF_SESSION_PAUSE:
	case NPUPROF_SESSION_STOP:
		if (!tl->session_open)
			return 0;
		tl->session_open = 0;
		it.kind = NPF_TL_END;
		break;
	default:
		return 0;
	}
	return npf_tl_emit(tl, &it);
}

/* An event out of the reorder buffer */
static int npf_tl_ordered(void *ctx, const struct npuprof_event *ev,
			  int64_t key)
{
	struct npf_tl *tl = ctx;

	tl->cur_late = tl->have_last && key < tl->last_ts;
	if (tl->cur_late)
		tl->st->late++;
	else
		tl->last_ts = key;
	tl->have_last = true;
	switch (ev->type) {
	case NPUPROF_EV_SPAN:
		return npf_tl_span(tl, ev);
	case NPUPROF_EV_SESSION:
		return npf_tl_session(tl, ev, key);
	case NPUPROF_EV_HOST_LOST: {
		struct npf_tl_item it = {
			.kind = NPF_TL_INSTANT, .what = NPF_TL_I_HOST_LOST,
			.ev = ev, .pid = (uint32_t)ev->pid,
			.tid = (uint32_t)ev->id, .ts = key,
			.name = "host spans lost",
		};
		int ret = npf_tl_emit(tl, &it);

		tl->host_lost += ev->count;
		if (!ret)
			ret = npf_tl_counter(tl, (uint32_t)ev->pid, key,
					     "host spans lost", "count",
					     (int64_t)tl->host_lost, 0);
		return ret;
	}
	case NPUPROF_EV_RECORD:
		break;
	default:
		return 0;
	}
	if (ev->dev >= NPF_TL_MAX_DEVS)
		return 0;
	switch (((const struct npu_trace_rec_hdr *)ev->rec)->type) {
	case NPU_TRACE_REC_EXEC:
		return npf_tl_exec(tl, ev);
	case NPU_TRACE_REC_OP:
		return npf_tl_op(tl, ev);
	case NPU_TRACE_REC_LOST:
		return npf_tl_lost(tl, ev, key);
	case NPU_TRACE_REC_BO_ALLOC:
	case NPU_TRACE_REC_BO_FREE:
		return npf_tl_bo(tl, ev, key);
	default:
		return 0;
	}
}

static void npf_tl_meta(struct npf_tl *tl, const struct npuprof_event *ev)
{
	size_t k = strlen(ev->key) + 1, v = strlen(ev->value) + 1;

	if (!strcmp(ev->key, "host_spans"))
		tl->have_host_spans = strcmp(ev->value, "off") != 0;
	else if (!strcmp(ev->key, "pid"))
		tl->self_pid = (int32_t)strtol(ev->value, NULL, 10);
	else if (!strcmp(ev->key, "cmdline")) {
		/* the program's name: the first word's last component */
		const char *s = ev->value, *e = s + strcspn(s, " ");
		const char *b = s;

		for (; s < e; s++)
			if (*s == '/')
				b = s + 1;
		snprintf(tl->self_name, sizeof(tl->self_name), "%.*s",
			 (int)(e - b), b);
	}
	if (tl->meta_len + k + v > NPF_TL_META_BYTES)
		return;
	if (!tl->meta) {
		tl->meta = malloc(NPF_TL_META_BYTES);
		if (!tl->meta)
			return;
	}
	memcpy(tl->meta + tl->meta_len, ev->key, k);
	memcpy(tl->meta + tl->meta_len + k, ev->value, v);
	tl->meta_len += k + v;
}

static void npf_tl_device(struct npf_tl *tl, const struct npuprof_event *ev)
{
	const struct npu_info *i = ev->info;
	struct npf_tl_dev *d;

	if (ev->dev >= NPF_TL_MAX_DEVS)
		return;
	d = &tl->dev[ev->dev];
	d->seen = true;
	d->minor = UINT32_MAX;
	if (i && ev->info_size >= offsetof(struct npu_info, minor) +
	    sizeof(i->minor)) {
		d->minor = i->minor;
		d->pe_count = i->pe_count;
	} else if (i && ev->info_size >= offsetof(struct npu_info, clock_hz)) {
		d->pe_count = i->pe_count;
	}
	if (d->minor != UINT32_MAX)
		snprintf(d->name, sizeof(d->name), "npu%u", d->minor);
	else
		snprintf(d->name, sizeof(d->name), "device %u", ev->dev);
}

static void npf_tl_thread_name(struct npf_tl *tl,
			       const struct npuprof_event *ev)
{
	struct npf_tl_thread *th;
	struct npf_tl_proc *p;
	int err;

	th = npf_tl_thread(tl, ev->pid, (int32_t)ev->id, &err);
	if (th)
		snprintf(th->name, sizeof(th->name), "%s", ev->key);
	p = (int32_t)ev->id == ev->pid ? npf_tl_proc(tl, ev->pid) : NULL;
	if (p)
		snprintf(p->name, sizeof(p->name), "%s", ev->key);
}

/* The end: fits, summary, names and sort indices, metadata */
static int npf_tl_finish(struct npf_tl *tl, int64_t end_ts)
{
	struct npf_tl_item it;
	char name[64];
	uint32_t i, l;
	int ret = 0;

	for (i = 0; !ret && i < NPF_TL_MAX_DEVS; i++) {
		struct npf_tl_dev *d = &tl->dev[i];
		uint32_t pe;

		for (pe = 0; d->pe && pe < NPF_TL_MAX_PES && !ret; pe++) {
			struct npf_tl_pe *p = &d->pe[pe];

			if (!p->used)
				continue;
			if (p->busy || p->last_util >= 0)
				ret = npf_tl_util_close(tl, i, p);
			if (!ret && p->last_util > 0) {
				p->bin += NPF_TL_UTIL_BIN_NS;
				ret = npf_tl_util_close(tl, i, p);
			}
			if (!ret && p->bw_pending)
				ret = npf_tl_counter(tl, NPF_TL_DEV_PID + i,
						     p->bw_zero_at, p->bw_name,
						     "MB/s", 0, 0);
		}
	}
	if (!ret && tl->session_open) {
		it = (struct npf_tl_item){
			.kind = NPF_TL_END, .pid = NPF_TL_SESSION_PID,
			.tid = NPF_TL_SESSION_TID, .ts = end_ts, .name = "capture",
		};
		tl->session_open = 0;
		ret = npf_tl_emit(tl, &it);
	}
	/* processes: the host's first, then the devices */
	for (i = 0; !ret && i < tl->nproc; i++) {
		struct npf_tl_proc *p = &tl->proc[i];

		if (p->name[0])
			snprintf(name, sizeof(name), "%s", p->name);
		else if (p->pid == tl->self_pid && tl->self_name[0])
			snprintf(name, sizeof(name), "%s", tl->self_name);
		else
			snprintf(name, sizeof(name), "pid %d", p->pid);
		it = (struct npf_tl_item){
			.kind = NPF_TL_PROCESS, .pid = (uint32_t)p->pid,
			.name = name, .sort = (int)p->sort,
		};
		ret = npf_tl_emit(tl, &it);
	}
	for (i = 0; !ret && i < tl->thr_cap; i++) {
		struct npf_tl_thread *th = tl->thr[i];

		for (l = 0; th && !ret && l < (th->used ? th->used : 1); l++) {
			if (th->name[0])
				snprintf(name, sizeof(name), "%s", th->name);
			else
				snprintf(name, sizeof(name), "tid %d", th->tid);
			if (l)
				snprintf(name + strlen(name), 24, " (lane %u)", l);
			it = (struct npf_tl_item){
				.kind = NPF_TL_THREAD, .pid = (uint32_t)th->pid,
				.tid = (uint32_t)th->tid + (l << NPF_TL_LANE_SHIFT),
				.name = name, .sort = (int)(th->sort * NPF_TL_LANES + l),
			};
			ret = npf_tl_emit(tl, &it);
		}
	}
	for (i = 0; !ret && i < NPF_TL_MAX_DEVS; i++) {
		struct npf_tl_dev *d = &tl->dev[i];
		uint32_t pid = NPF_TL_DEV_PID + i, pe;

		if (!d->seen && !d->pe && !d->qlanes && !d->hlanes)
			continue;
		if (d->seen)
			snprintf(name, sizeof(name), "%s", d->name);
		else
			snprintf(name, sizeof(name), "device %u", i);
		it = (struct npf_tl_item){
			.kind = NPF_TL_PROCESS, .pid = pid, .name = name,
			.sort = (int)(NPF_TL_MAX_PROCS + i),
		};
		ret = npf_tl_emit(tl, &it);
		for (pe = 0; !ret && d->pe && pe < NPF_TL_MAX_PES; pe++) {
			if (!d->pe[pe].used)
				continue;
			snprintf(name, sizeof(name), "PE %u", pe);
			it = (struct npf_tl_item){
				.kind = NPF_TL_THREAD, .pid = pid,
				.tid = NPF_TL_PE_TID + pe, .name = name,
				.sort = (int)pe,
			};
			ret = npf_tl_emit(tl, &it);
		}
		for (l = 0; !ret && l < d->qlanes; l++) {
			snprintf(name, sizeof(name), "queue %u", l);
			it = (struct npf_tl_item){
				.kind = NPF_TL_THREAD, .pid = pid,
				.tid = NPF_TL_QUEUE_TID + l, .name = name,
				.sort = (int)(NPF_TL_MAX_PES + l),
			};
			ret = npf_tl_emit(tl, &it);
		}
		for (l = 0; !ret && l < d->hlanes; l++) {
			snprintf(name, sizeof(name), "jobs, host times %u", l);
			it = (struct npf_tl_item){
				.kind = NPF_TL_THREAD, .pid = pid,
				.tid = NPF_TL_HOSTJOB_TID + l, .name = name,
				.sort = (int)(NPF_TL_MAX_PES + NPF_TL_QLANES + l),
			};
			ret = npf_tl_emit(tl, &it);
		}
	}
	if (!ret) {
		it = (struct npf_tl_item){
			.kind = NPF_TL_PROCESS, .pid = NPF_TL_SESSION_PID,
			.name = "npuprof", .sort = NPF_TL_MAX_PROCS + NPF_TL_MAX_DEVS,
		};
		ret = npf_tl_emit(tl, &it);
	}
	if (!ret) {
		it = (struct npf_tl_item){
			.kind = NPF_TL_THREAD, .pid = NPF_TL_SESSION_PID,
			.tid = NPF_TL_SESSION_TID, .name = "capture",
		};
		ret = npf_tl_emit(tl, &it);
	}
	for (i = 0; !ret && i < tl->meta_len;) {
		const char *k = tl->meta + i, *v = k + strlen(k) + 1;

		it = (struct npf_tl_item){ .kind = NPF_TL_META, .name = k, .text = v };
		ret = npf_tl_emit(tl, &it);
		i += (size_t)(v + strlen(v) + 1 - k);
	}
	return ret;
}

/* CLOCK_FIT at the end: its item, and an instant for an anomaly */
static int npf_tl_fit(struct npf_tl *tl, const struct npuprof_event *ev,
		      int64_t ts)
{
	struct npf_tl_item it = { .kind = NPF_TL_FIT, .ev = ev, .ts = ts };
	const char *why = NULL;
	int ret = npf_tl_emit(tl, &it);

	if (ret || ev->dev >= NPF_TL_MAX_DEVS)
		return ret;
	if (!ev->fit.samples)
		why = "clock fit: no clock sample";
	else if (ev->fit.violations)
		why = "clock fit: causality violations";
	else if (ev->fit.used * 2 < ev->fit.samples)
		why = "clock fit: most samples rejected";
	else if (ev->fit.segments > 1)
		why = "clock fit: drift changed";
	if (!why)
		return 0;
	it = (struct npf_tl_item){
		.kind = NPF_TL_INSTANT, .what = NPF_TL_I_FIT, .ev = ev,
		.pid = NPF_TL_DEV_PID + ev->dev, .ts = ts, .name = why,
	};
	return npf_tl_emit(tl, &it);
}

static void npf_tl_release(struct npf_tl *tl)
{
	uint32_t i;

	for (i = 0; i < tl->thr_cap; i++)
		free(tl->thr[i]);
	free(tl->thr);
	free(tl->proc);
	for (i = 0; i < NPF_TL_MAX_DEVS; i++)
		free(tl->dev[i].pe);
	free(tl->meta);
	free(tl->flows);
	npf_mem_free(tl->mem);
}

int npf_timeline_run(struct npuprof_trace *trace, size_t max_held,
		     int64_t window_ns, npf_tl_fn fn, void *ctx,
		     struct npf_tl_stats *stats)
{
	struct npf_tl_stats st0;
	struct npf_reorder *ro;
	struct npuprof_event ev;
	struct npf_tl *tl;
	uint64_t nev = 0;
	uint32_t i;
	int ret;

	if (!stats)
		stats = &st0;
	memset(stats, 0, sizeof(*stats));
	ret = npuprof_trace_rewind(trace);
	if (ret)
		return ret;
	ret = npf_reorder_new(max_held ? max_held : NPF_TL_MAX_HELD,
			      window_ns > 0 ? window_ns : NPF_TL_WINDOW_NS, &ro);
	if (ret)
		return ret;
	tl = calloc(1, sizeof(*tl));
	if (!tl) {
		npf_reorder_free(ro);
		return -ENOMEM;
	}
	tl->trace = trace;
	for (i = 0; i < NPF_TL_MAX_DEVS; i++) {
		const struct npf_clock_fit *f = npf_trace_fit(trace, i);

		tl->fit[i] = f && f->nseg && f->seg ? f : NULL;
	}
	tl->fn = fn;
	tl->ctx = ctx;
	tl->st = stats;
	tl->have_host_spans = true;
	/* the fits and the summary come last in a file: keep theirs */
	while ((ret = npf_trace_next(trace, &ev)) > 0) {
		/* counted here, stored once at the end: off the hot state */
		nev++;
		ret = 0;
		switch (ev.type) {
		case NPUPROF_EV_META:
			npf_tl_meta(tl, &ev);
			break;
		case NPUPROF_EV_DEVICE:
			npf_tl_device(tl, &ev);
			break;
		case NPUPROF_EV_THREAD:
			npf_tl_thread_name(tl, &ev);
			break;
		case NPUPROF_EV_SPAN:
		case NPUPROF_EV_SESSION:
		case NPUPROF_EV_HOST_LOST:
			ret = npf_ro_push(ro, &ev, npf_tl_ordered, tl);
			break;
		case NPUPROF_EV_RECORD: {
			uint16_t type = ((const struct npu_trace_rec_hdr *)ev.rec)->type;

			if (type == NPU_TRACE_REC_EXEC || type == NPU_TRACE_REC_OP ||
			    type == NPU_TRACE_REC_LOST) {
				ret = npf_ro_push(ro, &ev, npf_tl_ordered, tl);
			} else if (type == NPU_TRACE_REC_BO_ALLOC ||
				   type == NPU_TRACE_REC_BO_FREE) {
				/* placed at the allocator's host time */
				const struct npu_trace_rec_bo *r;

				if (npf_bo_rec(&ev, &r) == 1 && r->host_ns &&
				    r->host_ns <= INT64_MAX)
					ev.time_ns = (int64_t)r->host_ns;
				ret = npf_ro_push(ro, &ev, npf_tl_ordered, tl);
			}
			break;
		}
		case NPUPROF_EV_CLOCK_FIT:
			ret = npf_reorder_drain(ro, npf_tl_ordered, tl);
			if (!ret)
				ret = npf_tl_fit(tl, &ev, tl->last_ts);
			break;
		case NPUPROF_EV_SUMMARY: {
			struct npf_tl_item it = {
				.kind = NPF_TL_SUMMARY, .ev = &ev, .ts = ev.time_ns,
			};

			ret = npf_reorder_drain(ro, npf_tl_ordered, tl);
			if (!ret)
				ret = npf_tl_emit(tl, &it);
			break;
		}
		default:
			break;
		}
		if (ret)
			break;
	}
	stats->events += nev;
	if (!ret)
		ret = npf_reorder_drain(ro, npf_tl_ordered, tl);
	stats->max_held = npf_reorder_max_held(ro);
	if (!ret)
		ret = npf_tl_finish(tl, tl->last_ts);
	npf_reorder_free(ro);
	npf_tl_release(tl);
	free(tl);
	return ret;
}
