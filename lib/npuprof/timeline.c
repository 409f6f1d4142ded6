// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * timeline.c - the merged timeline of a trace file: host spans on a track
 * per thread, NPU executions and their operators on a track per PE of each
 * device, queue intervals, flows from a SUBMIT span to its execution,
 * counters (PE utilization, DMA bandwidth, losses) and instants (losses,
 * causality violations, clock fit anomalies), for the exporters
 * (export_chrome.c). Documentation/npu/export.rst describes the mapping.
 *
 * Events of a trace file are not in time order (spans are written when
 * they end, ring records when the reader drains them), so they pass
 * through a reorder buffer (a bounded priority queue: a sorted ring for
 * the nearly sorted majority and a min-heap for the rest, also used by
 * npuprof dump) and come out by start time. Memory is that buffer,
 * bounded by its max_held, and tables of threads, processes and devices with fixed
 * caps: independent of the trace's length.
 *
 * A counter item's name and key (npf_tl_item.name, .text) are strings at
 * one address, unchanged, for the whole run (a PE's names in its table,
 * literals otherwise): the Chrome exporter caches their JSON by address.
 *
 * Locking: a reorder buffer belongs to one thread. A timeline run may
 * use a second thread of its own (the pipeline, below), joined before
 * npf_timeline_run() returns; the callback is never called from two
 * threads at once. Lifetime: everything is freed when npf_timeline_run()
 * returns.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "npuprof_int.h"

/* ------------------------------------------------------------------ */
/* The reorder buffer                                                   */
/* ------------------------------------------------------------------ */

/*
 * A held event, compact: the fields of struct npuprof_event that the four
 * types held (SPAN, RECORD, SESSION, HOST_LOST) use, and their data (the
 * span record and its label, or the ring record) inline when it fits. The
 * event is rebuilt into ro->out when it is released.
 */
#define NPF_RO_INLINE	112	/* an EXEC record, a span and a short label */

struct npf_ro_ent {
	/* three runs of struct npuprof_event's fields, copied whole */
	uint32_t type;		/* type, dev, offset, time_ns */
	uint32_t dev;
	uint64_t offset;
	int64_t time_ns;
	struct npuprof_clock_map start;	/* start, end */
	struct npuprof_clock_map end;
	uint32_t label_len;	/* with its NUL, 0 without a label */
	uint32_t session_op;	/* session_op, count, id, pid */
	uint64_t count;
	uint64_t id;
	int32_t pid;
	void *big;		/* malloc'ed data beyond NPF_RO_INLINE */
	union {
		uint64_t align;
		unsigned char data[NPF_RO_INLINE];
	};
};

/* @f is where struct npuprof_event has it, relative to its run's first @a */
#define NPF_RO_AT(a, f)							\
	_Static_assert(offsetof(struct npf_ro_ent, f) -			\
		       offsetof(struct npf_ro_ent, a) ==		\
		       offsetof(struct npuprof_event, f) -		\
		       offsetof(struct npuprof_event, a), #f)
NPF_RO_AT(type, dev);
NPF_RO_AT(type, offset);
NPF_RO_AT(type, time_ns);
NPF_RO_AT(start, end);
NPF_RO_AT(session_op, count);
NPF_RO_AT(session_op, id);
NPF_RO_AT(session_op, pid);
#undef NPF_RO_AT

#define NPF_RO_SPAN(a, b)	(offsetof(struct npuprof_event, b) +	\
				 sizeof(((struct npuprof_event *)0)->b) - \
				 offsetof(struct npuprof_event, a))

/*
 * The fields an entry keeps, copied from an event or back to one: three
 * runs of fixed size (a few vector moves, not ten fields one by one)
 */
#define NPF_RO_FIELDS(dst, src) do {					\
	memcpy(&(dst)->type, &(src)->type, NPF_RO_SPAN(type, time_ns));	\
	memcpy(&(dst)->start, &(src)->start, NPF_RO_SPAN(start, end));	\
	memcpy(&(dst)->session_op, &(src)->session_op,			\
	       NPF_RO_SPAN(session_op, pid));				\
} while (0)

/* Queue node: the key inline so that ordering never touches an entry */
struct npf_ro_node {
	int64_t key;
	int64_t neg_dur;
	uint64_t order;		/* rank << 56 | file order */
	struct npf_ro_ent *e;
};

#define NPF_RO_SCAN	32	/* insertion sort reach into the sorted ring */
#define NPF_RO_SPARE	16384	/* entries a take may hold (NPF_PL_SLOTS) */
#define NPF_RO_HUGE	(2u << 20)	/* a transparent huge page */

/*
 * The held events form one priority queue in two parts: a ring of nodes
 * sorted by (key, rank, -duration, order), taking the events that arrive
 * in order or a few places out of it (nearly all: O(1) each), and a
 * binary heap for the rest. The earliest is the earlier of the ring's
 * head and the heap's top; (rank, order) makes the order total, so the
 * events come out exactly as from one heap.
 *
 * The entries (max_held + 1 of them, the most ever held: an event is
 * pushed before one is released) and the ring are mappings of their own,
 * in transparent huge pages where the kernel gives them, reserved lazily
 * (only what is touched counts): a few page faults and TLB entries
 * instead of thousands for tables that a long trace walks through again
 * and again (on a busy 2-core machine the faults of the 4 KiB pages cost
 * as much as the rest of a 1 M event export). Entries are taken from the
 * pool in order, then reused from the free stack. The next entries of the
 * sorted ring are prefetched before they are released.
 */
struct npf_reorder {
	size_t max_held;
	int64_t window;
	struct npf_ro_node *ring;	/* sorted, ring_mask + 1 slots */
	size_t ring_mask;
	size_t ring_head;
	size_t ring_n;
	size_t ring_len;		/* bytes mapped */
	struct npf_ro_node *heap;
	size_t heap_n;
	size_t max_n;
	struct npf_ro_ent *pool;	/* max_held + 1 + NPF_RO_SPARE */
	size_t pool_len;		/* bytes mapped */
	size_t pool_used;		/* entries handed out once */
	size_t pool_cap;		/* max_held + 1, + NPF_RO_SPARE with take */
	struct npf_ro_ent **free;	/* free entries */
	size_t nfree;
	uint64_t order;
	bool have_newest;
	int64_t newest;
	struct npuprof_event out;	/* the event being released */
	/*
	 * Set: released entries go to it, not rebuilt for fn; it owns an
	 * entry it took (returns 0) until it gives it back with
	 * npf_ro_put(), at most NPF_RO_SPARE of them at a time.
	 */
	int (*take)(void *ctx, struct npf_ro_ent *e, int64_t key);
	void *take_ctx;
};

/*
 * @size bytes of zeroed memory, 2 MiB aligned and advised huge (the
 * advice may be refused: then normal pages); *@len: bytes to munmap().
 */
static void *npf_ro_map(size_t size, size_t *len)
{
	size_t n = (size + NPF_RO_HUGE - 1) & ~(size_t)(NPF_RO_HUGE - 1);
	uintptr_t p, a;
	void *m;

	m = mmap(NULL, n + NPF_RO_HUGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	p = (uintptr_t)m;
	a = (p + NPF_RO_HUGE - 1) & ~(uintptr_t)(NPF_RO_HUGE - 1);
	if (a > p)
		munmap(m, a - p);
	if (p + NPF_RO_HUGE > a)
		munmap((void *)(a + n), p + NPF_RO_HUGE - a);
	madvise((void *)a, n, MADV_HUGEPAGE);
	*len = n;
	return (void *)a;
}

int npf_reorder_new(size_t max_held, int64_t window_ns,
		    struct npf_reorder **rop)
{
	struct npf_reorder *ro;
	size_t rc = 1;

	*rop = NULL;
	if (!max_held || max_held > (1u << 24) || window_ns < 0)
		return -EINVAL;
	ro = calloc(1, sizeof(*ro));
	if (!ro)
		return -ENOMEM;
	while (rc < max_held + 1)
		rc <<= 1;
	ro->max_held = max_held;
	ro->window = window_ns;
	ro->ring = npf_ro_map(rc * sizeof(*ro->ring), &ro->ring_len);
	ro->ring_mask = rc - 1;
	ro->heap = malloc((max_held + 1) * sizeof(*ro->heap));
	/* mapped lazily: the spare entries cost only when a take uses them */
	ro->pool = npf_ro_map((max_held + 1 + NPF_RO_SPARE) * sizeof(*ro->pool),
			      &ro->pool_len);
	ro->pool_cap = max_held + 1;
	ro->free = malloc((max_held + 1 + NPF_RO_SPARE) * sizeof(*ro->free));
	if (!ro->ring || !ro->heap || !ro->pool || !ro->free) {
		npf_reorder_free(ro);
		return -ENOMEM;
	}
	*rop = ro;
	return 0;
}

void npf_reorder_free(struct npf_reorder *ro)
{
	size_t i;

	if (!ro)
		return;
	for (i = 0; i < ro->heap_n; i++)
		free(ro->heap[i].e->big);
	for (i = 0; ro->ring && i < ro->ring_n; i++)
		free(ro->ring[(ro->ring_head + i) & ro->ring_mask].e->big);
	if (ro->pool)
		munmap(ro->pool, ro->pool_len);
	if (ro->ring)
		munmap(ro->ring, ro->ring_len);
	free(ro->free);
	free(ro->heap);
	free(ro);
}

size_t npf_reorder_max_held(const struct npf_reorder *ro)
{
	return ro->max_n;
}

/* A free entry (its big NULL); NULL when pool_cap are held or taken */
static inline struct npf_ro_ent *npf_ro_get(struct npf_reorder *ro)
{
	if (npf_likely(ro->nfree))
		return ro->free[--ro->nfree];
	if (ro->pool_used < ro->pool_cap)
		return &ro->pool[ro->pool_used++];	/* zeroed: big NULL */
	return NULL;
}

static inline void npf_ro_put(struct npf_reorder *ro, struct npf_ro_ent *e)
{
	if (npf_unlikely(e->big != NULL)) {
		free(e->big);
		e->big = NULL;
	}
	ro->free[ro->nfree++] = e;
}

static inline bool npf_ro_less(const struct npf_ro_node *a,
			       const struct npf_ro_node *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if ((a->order >> 56) != (b->order >> 56))
		return a->order < b->order;
	if (a->neg_dur != b->neg_dur)
		return a->neg_dur < b->neg_dur;
	return a->order < b->order;
}

static void npf_ro_heap_push(struct npf_reorder *ro,
			     const struct npf_ro_node *nd)
{
	size_t i = ro->heap_n++;

	while (i) {
		size_t p = (i - 1) / 2;

		if (!npf_ro_less(nd, &ro->heap[p]))
			break;
		ro->heap[i] = ro->heap[p];
		i = p;
	}
	ro->heap[i] = *nd;
}

static void npf_ro_heap_pop(struct npf_reorder *ro)
{
	struct npf_ro_node last = ro->heap[--ro->heap_n];
	size_t i = 0, n = ro->heap_n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && npf_ro_less(&ro->heap[c + 1], &ro->heap[c]))
			c++;
		if (!npf_ro_less(&ro->heap[c], &last))
			break;
		ro->heap[i] = ro->heap[c];
		i = c;
	}
	if (n)
		ro->heap[i] = last;
}

/* Add @nd to the sorted ring if it belongs near its end, else the heap */
static inline __attribute__((always_inline)) void
npf_ro_insert(struct npf_reorder *ro, const struct npf_ro_node *nd)
{
	size_t m = ro->ring_mask, n = ro->ring_n, j, k;
	struct npf_ro_node *r = ro->ring;

	/*
	 * From the end, the keys alone while they differ (nearly always):
	 * !npf_ro_less() is key > key then; the whole order only on a tie
	 */
	for (j = n; j && n - j < NPF_RO_SCAN; j--) {
		const struct npf_ro_node *x = &r[(ro->ring_head + j - 1) & m];

		if (nd->key > x->key ||
		    (nd->key == x->key && !npf_ro_less(nd, x)))
			break;
	}
	if (j && n - j == NPF_RO_SCAN) {
		npf_ro_heap_push(ro, nd);
	} else if (!j && n) {
		/* before everything in the ring: a new head */
		ro->ring_head = (ro->ring_head - 1) & m;
		r[ro->ring_head] = *nd;
		ro->ring_n++;
	} else {
		size_t at = (ro->ring_head + j) & m;

		if (j == n) {
			/* at the end: the usual case, nothing to move */
		} else if (at + (n - j) <= m) {	/* no wrap: one move */
			memmove(&r[at + 1], &r[at], (n - j) * sizeof(*r));
		} else {
			for (k = n; k > j; k--)
				r[(ro->ring_head + k) & m] =
					r[(ro->ring_head + k - 1) & m];
		}
		r[at] = *nd;
		ro->ring_n++;
	}
	n = ro->ring_n + ro->heap_n;
	if (n > ro->max_n)
		ro->max_n = n;
}

/* Ring places between the entry released and the one prefetched */
#define NPF_RO_AHEAD	16

/* Bring held entry @e into the cache before it is released */
static inline void npf_ro_prefetch(const struct npf_ro_ent *e)
{
	const char *p = (const char *)e;
	size_t i;

	for (i = 0; i < sizeof(*e); i += 64)
		__builtin_prefetch(p + i);
}

/* The earliest held node: from the ring (true) or the heap */
static inline bool npf_ro_min_ring(const struct npf_reorder *ro)
{
	return ro->ring_n && (!ro->heap_n ||
			      npf_ro_less(&ro->ring[ro->ring_head], &ro->heap[0]));
}

/*
 * Events of the same time: session events first, then spans (the longer,
 * enclosing one first), then EXEC records before the OP records of their
 * execution, then the rest; then in file order.
 */
static unsigned int npf_ro_rank(const struct npuprof_event *ev)
{
	switch (ev->type) {
	case NPUPROF_EV_SESSION:
		return 0;
	case NPUPROF_EV_SPAN:
		return 1;
	case NPUPROF_EV_RECORD:
		return ((const struct npu_trace_rec_hdr *)ev->rec)->type ==
		       NPU_TRACE_REC_EXEC ? 2 : 3;
	default:
		return 4;
	}
}

/* Rebuild the event of @e into @ev */
static inline __attribute__((always_inline)) const struct npuprof_event *
npf_ro_event(struct npuprof_event *ev, const struct npf_ro_ent *e)
{
	const unsigned char *data = e->big ? e->big : e->data;

	NPF_RO_FIELDS(ev, e);
	ev->span = NULL;
	ev->label = NULL;
	ev->rec = NULL;
	if (e->type == NPUPROF_EV_RECORD) {
		ev->rec = data;
	} else if (e->type == NPUPROF_EV_SPAN) {
		/* data is 8-aligned (the union, or malloc) */
		ev->span = (const void *)data;
		if (e->label_len)
			ev->label = (const char *)data + sizeof(*ev->span);
	}
	return ev;
}

/*
 * Release what is due (@all: everything) to @fn. Inline, as is the push
 * below: the timeline's run passes npf_tl_ordered() itself, so the calls
 * are direct and one event costs one call less in each of the two.
 */
static inline __attribute__((always_inline)) int
npf_ro_release(struct npf_reorder *ro, bool all, npf_reorder_fn fn, void *ctx)
{
	int ret = 0;

	while (ro->ring_n + ro->heap_n) {
		bool in_ring = npf_ro_min_ring(ro);
		struct npf_ro_node nd = in_ring ? ro->ring[ro->ring_head] :
					ro->heap[0];

		if (!all && ro->ring_n + ro->heap_n <= ro->max_held &&
		    ro->newest - nd.key <= ro->window)
			break;
		if (in_ring) {
			ro->ring_head = (ro->ring_head + 1) & ro->ring_mask;
			ro->ring_n--;
			/*
			 * The ring is sorted: its entries go out in order, long
			 * after they came in (max_held events: far out of the
			 * caches). Fetch the one NPF_RO_AHEAD places on now
			 * (with the pipeline too: its take reads the entry).
			 */
			if (ro->ring_n > NPF_RO_AHEAD)
				npf_ro_prefetch(ro->ring[(ro->ring_head +
							  NPF_RO_AHEAD) &
							 ro->ring_mask].e);
		} else {
			npf_ro_heap_pop(ro);
		}
		if (ro->take) {
			/* the entry is the take's, unless it fails */
			ret = ro->take(ro->take_ctx, nd.e, nd.key);
			if (ret) {
				npf_ro_put(ro, nd.e);
				break;
			}
			continue;
		}
		ret = fn(ctx, npf_ro_event(&ro->out, nd.e), nd.key);
		npf_ro_put(ro, nd.e);
		if (ret)
			break;
	}
	return ret;
}

static inline __attribute__((always_inline)) int
npf_ro_push(struct npf_reorder *ro, const struct npuprof_event *ev,
	    npf_reorder_fn fn, void *ctx)
{
	struct npf_ro_node nd;
	struct npf_ro_ent *e;
	size_t extra = 0, label = 0;
	unsigned char *dst;

	if (ev->type == NPUPROF_EV_RECORD) {
		extra = ((const struct npu_trace_rec_hdr *)ev->rec)->size;
	} else if (ev->type == NPUPROF_EV_SPAN) {
		if (ev->label)
			label = strlen(ev->label) + 1;
		extra = sizeof(*ev->span) + label;
	}
	e = npf_ro_get(ro);
	if (!e)
		return -ENOMEM;
	dst = e->data;
	if (extra > NPF_RO_INLINE) {
		e->big = malloc(extra);
		if (!e->big) {
			npf_ro_put(ro, e);
			return -ENOMEM;
		}
		dst = e->big;
	}
	/* events without a time of their own happen "now" */
	nd.key = ev->time_ns || !ro->have_newest ? ev->time_ns : ro->newest;
	nd.neg_dur = ev->type == NPUPROF_EV_SPAN ?
		     (int64_t)ev->span->start_ns - (int64_t)ev->span->end_ns : 0;
	nd.order = (uint64_t)npf_ro_rank(ev) << 56 |
		   (ro->order++ & ((1ull << 56) - 1));
	nd.e = e;
	NPF_RO_FIELDS(e, ev);
	e->label_len = (uint32_t)label;
	if (ev->type == NPUPROF_EV_RECORD) {
		/* OP and EXEC records: copies of a constant size, inline */
		if (extra == sizeof(struct npu_trace_rec_op))
			memcpy(dst, ev->rec, sizeof(struct npu_trace_rec_op));
		else if (extra == sizeof(struct npu_trace_rec_exec))
			memcpy(dst, ev->rec, sizeof(struct npu_trace_rec_exec));
		else
			memcpy(dst, ev->rec, extra);
	} else if (ev->type == NPUPROF_EV_SPAN) {
		memcpy(dst, ev->span, sizeof(*ev->span));
		if (label)
			memcpy(dst + sizeof(*ev->span), ev->label, label);
	}
	if (!ro->have_newest || nd.key > ro->newest)
		ro->newest = nd.key;
	ro->have_newest = true;
	npf_ro_insert(ro, &nd);
	return npf_ro_release(ro, false, fn, ctx);
}

int npf_reorder_push(struct npf_reorder *ro, const struct npuprof_event *ev,
		     npf_reorder_fn fn, void *ctx)
{
	return npf_ro_push(ro, ev, fn, ctx);
}

int npf_reorder_drain(struct npf_reorder *ro, npf_reorder_fn fn, void *ctx)
{
	return npf_ro_release(ro, true, fn, ctx);
}

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
};

struct npf_tl {
	/*
	 * Read-only during the run, and first: the pipeline's reader reads
	 * them (npf_tl_dur()) while the second thread writes the fields
	 * further down at every event; on one cache line with those, they
	 * moved between the CPUs at every record
	 */
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
	/*
	 * With the pipeline: the durations of the record being handled,
	 * computed by the reader's thread (npf_pl_take()), or NULL
	 */
	const struct npf_dur *pre_dur;
	char *meta;		/* "key\0value\0" pairs */
	size_t meta_len;
	uint64_t *flows;	/* npf_tl_flow() */
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
	if (tl->pre_dur)
		it.dur_dev = *tl->pre_dur;
	else
		npf_tl_dur(tl, ev->dev, x, &ev->start, &ev->end,
			   &it.dur_dev);
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
	if (tl->pre_dur)
		it.dur_dev = *tl->pre_dur;
	else
		npf_tl_dur(tl, ev->dev, o, &ev->start, &ev->end,
			   &it.dur_dev);
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
}

/* ------------------------------------------------------------------ */
/* The pipeline: reading and ordering | items and their consumer        */
/* ------------------------------------------------------------------ */

/*
 * With npf_second_cpu() (NPUPROF_PIPELINE=1 and two CPUs or more),
 * npf_timeline_run() runs in two threads: the caller's reads the file,
 * maps the device times (the start and the end of each record), orders
 * the events (the reorder buffer) and computes each released EXEC
 * record's durations
 * (npf_tl_dur()); a second one computes an OP's, turns the released
 * events into items and passes them to the run's callback. That split
 * gives the two about the same work (callgrind counts in
 * Documentation/npu/export.rst). Released entries of the reorder
 * buffer go, by address, through a bounded single-producer
 * single-consumer ring of NPF_PL_SLOTS slots, published in batches of
 * NPF_PL_BATCH; the reader gives an entry back to the buffer's free list
 * when it fills that slot again (the consumer is done with it then: the
 * buffer has NPF_RO_SPARE = NPF_PL_SLOTS entries more for them). Each
 * side spins a little, then sleeps on a condition variable, when the
 * ring is full or empty; asleep, until half of it is ready.
 *
 * Everything else the timeline does with an event as it is read (META,
 * DEVICE and THREAD events, the drains before a CLOCK_FIT or the SUMMARY,
 * the end) changes the state the second thread uses: the caller's thread
 * first waits until the ring is empty and the second thread idle
 * (npf_pl_sync()), then does it itself. So the callback sees the items in
 * exactly the order, and with exactly the state, of the one-thread run,
 * and is never called from two threads at once (the ring's release and
 * acquire order the two threads' calls).
 */
#define NPF_PL_SLOTS	NPF_RO_SPARE	/* a power of two */
#define NPF_PL_BATCH	64
#define NPF_PL_HALF	(NPF_PL_SLOTS / 2)
#define NPF_PL_SPIN	256

/* A released entry; the durations of an EXEC or OP (npf_tl_dur()) */
struct npf_pl_slot {
	int64_t key;
	struct npf_ro_ent *e;
	bool has_dur;
	struct npf_dur dur;
};

/*
 * A cache line for each side's hot fields: a line written by one thread
 * and read by the other at every event moves between the CPUs each time
 * (on a 2-vCPU KVM guest that doubled both threads' CPU time)
 */
struct npf_pl {
	_Atomic uint64_t head;		/* slots published by the reader */
	_Alignas(64) _Atomic uint64_t tail;	/* slots consumed (done) */
	/* the producer's own */
	_Alignas(64) uint64_t put;	/* slots filled */
	uint64_t tail_seen;
	_Alignas(64) _Atomic int err;	/* the consumer's first error */
	_Atomic bool done;		/* no more slots: the consumer ends */
	_Atomic bool flush;		/* the producer waits for an empty ring */
	_Atomic bool cons_sleeps;
	_Atomic bool prod_sleeps;
	/* read-only while the threads run */
	struct npf_pl_slot *slot;
	struct npf_tl *tl;
	struct npf_reorder *ro;
	pthread_mutex_t mu;
	pthread_cond_t cons_cv;
	pthread_cond_t prod_cv;
	pthread_t thr;
};

static inline void npf_pl_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Wake the side that sleeps on @cv, if it said so in @flag */
static void npf_pl_wake(struct npf_pl *pl, _Atomic bool *flag,
			pthread_cond_t *cv)
{
	/*
	 * After a seq_cst store of head or tail: see npf_pl_wait(). Taking
	 * the mutex waits until the sleeper is in pthread_cond_wait(); the
	 * signal after the unlock does not wake it into a held mutex.
	 */
	if (atomic_load(flag)) {
		pthread_mutex_lock(&pl->mu);
		pthread_mutex_unlock(&pl->mu);
		pthread_cond_signal(cv);
	}
}

/*
 * Wait until @cond(@pl, @arg): spin, then sleep with @flag set. The flag's
 * store and the waker's store of head or tail are seq_cst, as are both
 * loads after them: either the waker sees the flag and signals (after the
 * sleeper holds the mutex into its wait), or the sleeper sees the store.
 */
static void npf_pl_wait(struct npf_pl *pl, bool (*cond)(struct npf_pl *, uint64_t),
			uint64_t arg, _Atomic bool *flag, pthread_cond_t *cv)
{
	unsigned int i;

	for (i = 0; i < NPF_PL_SPIN; i++) {
		if (cond(pl, arg))
			return;
		npf_pl_pause();
	}
	pthread_mutex_lock(&pl->mu);
	atomic_store(flag, true);
	while (!cond(pl, arg))
		pthread_cond_wait(cv, &pl->mu);
	atomic_store(flag, false);
	pthread_mutex_unlock(&pl->mu);
}

/*
 * The consumer: slots beyond @arg; once asleep, half a ring of them (a
 * wake-up per half ring, not per batch), a flush or the end
 */
static bool npf_pl_has_data(struct npf_pl *pl, uint64_t arg)
{
	uint64_t h = atomic_load(&pl->head);

	if (!atomic_load_explicit(&pl->cons_sleeps, memory_order_relaxed))
		return h != arg;
	return h - arg >= NPF_PL_HALF || atomic_load(&pl->done) ||
	       (h != arg && atomic_load(&pl->flush));
}

/* The producer: room for a slot (@arg: slots filled), once asleep half a
 * ring of room; or an error */
static bool npf_pl_has_room(struct npf_pl *pl, uint64_t arg)
{
	uint64_t used = arg - atomic_load(&pl->tail);

	if (!atomic_load_explicit(&pl->prod_sleeps, memory_order_relaxed))
		return used < NPF_PL_SLOTS || atomic_load(&pl->err);
	return used <= NPF_PL_HALF || atomic_load(&pl->err);
}

/* The producer: every slot up to @arg consumed, or an error */
static bool npf_pl_idle(struct npf_pl *pl, uint64_t arg)
{
	return atomic_load(&pl->tail) == arg || atomic_load(&pl->err);
}

static int npf_tl_ordered(void *ctx, const struct npuprof_event *ev,
			  int64_t key);

static void *npf_pl_main(void *arg)
{
	struct npf_pl *pl = arg;
	struct npuprof_event ev;
	uint64_t t = atomic_load_explicit(&pl->tail, memory_order_relaxed);

	memset(&ev, 0, sizeof(ev));
	for (;;) {
		uint64_t h = atomic_load_explicit(&pl->head, memory_order_acquire);

		if (h == t) {
			/* all done: say so (the producer may wait for it) */
			atomic_store(&pl->tail, t);
			npf_pl_wake(pl, &pl->prod_sleeps, &pl->prod_cv);
			npf_pl_wait(pl, npf_pl_has_data, t, &pl->cons_sleeps,
				    &pl->cons_cv);
			if (atomic_load(&pl->head) == t && atomic_load(&pl->done))
				return NULL;
			continue;
		}
		while (t != h) {
			struct npf_pl_slot *s = &pl->slot[t & (NPF_PL_SLOTS - 1)];
			int ret;

			/* entries come from all over the buffer's pool */
			if (h - t > NPF_RO_AHEAD)
				npf_ro_prefetch(pl->slot[(t + NPF_RO_AHEAD) &
							 (NPF_PL_SLOTS - 1)].e);
			npf_ro_event(&ev, s->e);
			pl->tl->pre_dur = s->has_dur ? &s->dur : NULL;
			ret = npf_tl_ordered(pl->tl, &ev, s->key);
			pl->tl->pre_dur = NULL;
			/* the reader recycles the entry without reading it */
			if (npf_unlikely(s->e->big != NULL)) {
				free(s->e->big);
				s->e->big = NULL;
			}
			t++;
			if (npf_unlikely(ret)) {
				atomic_store(&pl->err, ret);
				atomic_store(&pl->tail, t);
				npf_pl_wake(pl, &pl->prod_sleeps, &pl->prod_cv);
				return NULL;
			}
			if (!(t & (NPF_PL_BATCH - 1))) {
				atomic_store(&pl->tail, t);
				if (h - t <= NPF_PL_HALF)
					npf_pl_wake(pl, &pl->prod_sleeps,
						    &pl->prod_cv);
			}
		}
	}
}

/* The producer: publish the slots filled, waking the consumer if it
 * sleeps and has half a ring to do (or @force) */
static void npf_pl_publish(struct npf_pl *pl, bool force)
{
	atomic_store(&pl->head, pl->put);
	/* seq_cst: see npf_pl_wait(); an asleep consumer's tail is still */
	if (atomic_load(&pl->cons_sleeps) &&
	    (force || pl->put - atomic_load(&pl->tail) >= NPF_PL_HALF)) {
		pthread_mutex_lock(&pl->mu);
		pthread_mutex_unlock(&pl->mu);
		pthread_cond_signal(&pl->cons_cv);
	}
}

/* The reorder buffer's take: entry @e, released, into the next slot */
static int npf_pl_take(void *ctx, struct npf_ro_ent *e, int64_t key)
{
	struct npf_pl *pl = ctx;
	struct npf_pl_slot *s;
	int err;

	if (npf_unlikely(pl->put - pl->tail_seen >= NPF_PL_SLOTS)) {
		pl->tail_seen = atomic_load_explicit(&pl->tail,
						     memory_order_acquire);
		if (pl->put - pl->tail_seen >= NPF_PL_SLOTS) {
			npf_pl_publish(pl, true);
			npf_pl_wait(pl, npf_pl_has_room, pl->put,
				    &pl->prod_sleeps, &pl->prod_cv);
			err = atomic_load(&pl->err);
			if (err)
				return err;
			pl->tail_seen = atomic_load(&pl->tail);
		}
	}
	s = &pl->slot[pl->put & (NPF_PL_SLOTS - 1)];
	/*
	 * The consumer is done with the slot's last entry (and freed its big
	 * data): back to the free list, without touching it (it is in the
	 * other CPU's cache).
	 */
	if (pl->put >= NPF_PL_SLOTS) {
		const char *n = (const char *)
			pl->slot[(pl->put + NPF_RO_AHEAD) & (NPF_PL_SLOTS - 1)].e;
		size_t i;

		pl->ro->free[pl->ro->nfree++] = s->e;
		/*
		 * The entry recycled NPF_RO_AHEAD slots on is about the one
		 * the buffer writes next then: fetch it for writing now (it
		 * was last in the other CPU's cache).
		 */
		for (i = 0; i < sizeof(struct npf_ro_ent); i += 64)
			__builtin_prefetch(n + i, 1);
	}
	s->key = key;
	s->e = e;
	/*
	 * The durations of an EXEC record, here; an OP's are computed by
	 * the second thread: that split balances the two threads (callgrind
	 * counts in Documentation/npu/export.rst)
	 */
	s->has_dur = false;
	if (e->type == NPUPROF_EV_RECORD) {
		const void *rec = e->big ? e->big : e->data;

		if (((const struct npu_trace_rec_hdr *)rec)->type ==
		    NPU_TRACE_REC_EXEC) {
			npf_tl_dur(pl->tl, e->dev, rec, &e->start,
				   &e->end, &s->dur);
			s->has_dur = true;
		}
	}
	pl->put++;
	if (!(pl->put & (NPF_PL_BATCH - 1))) {
		npf_pl_publish(pl, false);
		return atomic_load_explicit(&pl->err, memory_order_relaxed);
	}
	return 0;
}

/*
 * The producer: wait until the consumer has handled every slot and is
 * idle; then the caller's thread owns the timeline. Return: its error.
 */
static int npf_pl_sync(struct npf_pl *pl)
{
	if (!pl)
		return 0;
	atomic_store(&pl->flush, true);
	npf_pl_publish(pl, true);
	npf_pl_wait(pl, npf_pl_idle, pl->put, &pl->prod_sleeps, &pl->prod_cv);
	atomic_store(&pl->flush, false);
	pl->tail_seen = pl->put;
	return atomic_load(&pl->err);
}

/*
 * NPUPROF_PIPELINE=1 and two CPUs or more for this thread: the reading of
 * a trace may use a second thread, the open's read-ahead (trace.c) and
 * the export's pipeline (below). Off by default: what the second thread
 * gains depends on what moving cache lines between the two CPUs costs,
 * +40 % on one 2-vCPU machine, -30 to -50 % on another
 * (Documentation/npu/export.rst, "One CPU by default").
 */
bool npf_second_cpu(void)
{
	const char *env = getenv("NPUPROF_PIPELINE");
	cpu_set_t set;

	if (!env || strcmp(env, "1"))
		return false;
	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	return CPU_COUNT(&set) >= 2;
}

/*
 * Start the pipeline for @tl and @ro when npf_second_cpu() says so; NULL
 * (one thread) otherwise, or with no thread to be had.
 */
static struct npf_pl *npf_pl_start(struct npf_tl *tl, struct npf_reorder *ro)
{
	struct npf_pl *pl;

	if (!npf_second_cpu())
		return NULL;
	if (posix_memalign((void **)&pl, 64, sizeof(*pl)))
		return NULL;
	memset(pl, 0, sizeof(*pl));
	pl->slot = malloc(NPF_PL_SLOTS * sizeof(*pl->slot));
	if (!pl->slot)
		goto fail;
	pl->tl = tl;
	atomic_init(&pl->head, 0);
	atomic_init(&pl->tail, 0);
	atomic_init(&pl->err, 0);
	atomic_init(&pl->done, false);
	atomic_init(&pl->flush, false);
	atomic_init(&pl->cons_sleeps, false);
	atomic_init(&pl->prod_sleeps, false);
	if (pthread_mutex_init(&pl->mu, NULL))
		goto fail;
	if (pthread_cond_init(&pl->cons_cv, NULL))
		goto fail_mu;
	if (pthread_cond_init(&pl->prod_cv, NULL))
		goto fail_ccv;
	if (pthread_create(&pl->thr, NULL, npf_pl_main, pl))
		goto fail_pcv;
	pl->ro = ro;
	ro->pool_cap += NPF_RO_SPARE;
	ro->take = npf_pl_take;
	ro->take_ctx = pl;
	return pl;
fail_pcv:
	pthread_cond_destroy(&pl->prod_cv);
fail_ccv:
	pthread_cond_destroy(&pl->cons_cv);
fail_mu:
	pthread_mutex_destroy(&pl->mu);
fail:
	free(pl->slot);
	free(pl);
	return NULL;
}

/*
 * Stop the consumer (after npf_pl_sync(): the ring is empty) and free the
 * pipeline; events released from then on go to the callback directly.
 */
static void npf_pl_stop(struct npf_pl *pl, struct npf_reorder *ro)
{
	uint64_t i;

	if (!pl)
		return;
	atomic_store(&pl->done, true);
	npf_pl_wake(pl, &pl->cons_sleeps, &pl->cons_cv);
	pthread_join(pl->thr, NULL);
	/* the entries of the slots, done or left by an error */
	for (i = pl->put > NPF_PL_SLOTS ? pl->put - NPF_PL_SLOTS : 0;
	     i < pl->put; i++)
		npf_ro_put(ro, pl->slot[i & (NPF_PL_SLOTS - 1)].e);
	pthread_cond_destroy(&pl->prod_cv);
	pthread_cond_destroy(&pl->cons_cv);
	pthread_mutex_destroy(&pl->mu);
	free(pl->slot);
	free(pl);
	ro->take = NULL;
	ro->take_ctx = NULL;
}

int npf_timeline_run(struct npuprof_trace *trace, size_t max_held,
		     int64_t window_ns, npf_tl_fn fn, void *ctx,
		     struct npf_tl_stats *stats)
{
	struct npf_tl_stats st0;
	struct npf_reorder *ro;
	struct npuprof_event ev;
	struct npf_tl *tl;
	struct npf_pl *pl;
	uint64_t nev = 0;
	uint32_t i;
	int ret, err;

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
	pl = npf_pl_start(tl, ro);
	/* the fits and the summary come last in a file: keep theirs */
	while ((ret = npf_trace_next(trace, &ev)) > 0) {
		/*
		 * Counted here, stored once at the end: @stats is written by
		 * the pipeline's second thread (items), and may share a cache
		 * line with its caller's hot state (the exporter's output)
		 */
		nev++;
		ret = 0;
		switch (ev.type) {
		case NPUPROF_EV_META:
			ret = npf_pl_sync(pl);
			if (!ret)
				npf_tl_meta(tl, &ev);
			break;
		case NPUPROF_EV_DEVICE:
			ret = npf_pl_sync(pl);
			if (!ret)
				npf_tl_device(tl, &ev);
			break;
		case NPUPROF_EV_THREAD:
			ret = npf_pl_sync(pl);
			if (!ret)
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
			    type == NPU_TRACE_REC_LOST)
				ret = npf_ro_push(ro, &ev, npf_tl_ordered, tl);
			break;
		}
		case NPUPROF_EV_CLOCK_FIT:
			ret = npf_reorder_drain(ro, npf_tl_ordered, tl);
			if (!ret)
				ret = npf_pl_sync(pl);
			if (!ret)
				ret = npf_tl_fit(tl, &ev, tl->last_ts);
			break;
		case NPUPROF_EV_SUMMARY: {
			struct npf_tl_item it = {
				.kind = NPF_TL_SUMMARY, .ev = &ev, .ts = ev.time_ns,
			};

			ret = npf_reorder_drain(ro, npf_tl_ordered, tl);
			if (!ret)
				ret = npf_pl_sync(pl);
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
	/* the consumer's error came first: its event was read earlier */
	err = npf_pl_sync(pl);
	if (err)
		ret = err;
	npf_pl_stop(pl, ro);
	stats->max_held = npf_reorder_max_held(ro);
	if (!ret)
		ret = npf_tl_finish(tl, tl->last_ts);
	npf_reorder_free(ro);
	npf_tl_release(tl);
	free(tl);
	return ret;
}
