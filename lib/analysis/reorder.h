/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * reorder.h - the reorder buffer: events of a trace file out in time order
 * (reorder.c).
 */
#ifndef NPF_REORDER_H
#define NPF_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/npu.h>

#include "compiler.h"
#include "npuprof_analysis.h"

/* Default bounds of the reorder buffer of the timeline, the breakdown and npuprof dump */
#define NPF_TL_MAX_HELD		65536u
#define NPF_TL_WINDOW_NS	2000000000ll

/*
 * The reorder buffer: events copied into a bounded priority queue (a
 * sorted ring and a min-heap, below) keyed by (time, rank, longer span
 * first, file order); the earliest is released once more than @max_held
 * are held or once it is more than @window_ns older than the newest
 * event pushed. An event without a time of its own
 * (time_ns 0) takes the newest time. Released events go to @fn, valid
 * during the call only. Single-threaded.
 */
struct npf_reorder;
typedef int (*npf_reorder_fn)(void *ctx, const struct npuprof_event *ev,
			      int64_t key);

/* Return: 0, -EINVAL (@max_held 0 or above 1 << 24), -ENOMEM */
int npf_reorder_new(size_t max_held, int64_t window_ns,
		    struct npf_reorder **ro);
/* Copy @ev in (SPAN, RECORD, SESSION, HOST_LOST) and release what is due;
 * returns 0, -ENOMEM or the first nonzero value of @fn */
int npf_reorder_push(struct npf_reorder *ro, const struct npuprof_event *ev,
		     npf_reorder_fn fn, void *ctx);
/* Release everything held, in order */
int npf_reorder_drain(struct npf_reorder *ro, npf_reorder_fn fn, void *ctx);
/* Most events held at once */
size_t npf_reorder_max_held(const struct npf_reorder *ro);
void npf_reorder_free(struct npf_reorder *ro);

/*
 * The inline half: the buffer's layout and its push and release, inline
 * where they are called (the timeline's run passes its callback itself,
 * so that the calls are direct); reorder.c has the rest.
 */
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
	struct npf_ro_ent *pool;	/* max_held + 1 */
	size_t pool_len;		/* bytes mapped */
	size_t pool_used;		/* entries handed out once */
	size_t pool_cap;		/* max_held + 1 */
	struct npf_ro_ent **free;	/* free entries */
	size_t nfree;
	uint64_t order;
	bool have_newest;
	int64_t newest;
	struct npuprof_event out;	/* the event being released */
};

/* A free entry (its big NULL); NULL when pool_cap are held */
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

static inline void npf_ro_heap_push(struct npf_reorder *ro,
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

static inline void npf_ro_heap_pop(struct npf_reorder *ro)
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
	size_t lim = n < NPF_RO_SCAN ? n : NPF_RO_SCAN;
	struct npf_ro_node *r = ro->ring;
	const struct npf_ro_node *x = &r[(ro->ring_head + n - 1) & m];
	int64_t key = nd->key;

	/*
	 * From the end, the keys alone while they differ (nearly always):
	 * !npf_ro_less() is key > key then; the whole order only on a tie.
	 * A pointer that steps back and wraps, not an index masked each
	 * step: j places stay before @nd
	 */
	for (k = 0; k < lim; k++) {
		if (key > x->key || (key == x->key && !npf_ro_less(nd, x)))
			break;
		x = x == r ? r + m : x - 1;
	}
	j = n - k;
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
static inline unsigned int npf_ro_rank(const struct npuprof_event *ev)
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
		    /* newest >= key: exact unsigned, never an overflow */
		    (uint64_t)ro->newest - (uint64_t)nd.key <=
		    (uint64_t)ro->window)
			break;
		if (in_ring) {
			ro->ring_head = (ro->ring_head + 1) & ro->ring_mask;
			ro->ring_n--;
			/*
			 * The ring is sorted: its entries go out in order, long
			 * after they came in (max_held events: far out of the
			 * caches). Fetch the one NPF_RO_AHEAD places on now.
			 */
			if (ro->ring_n > NPF_RO_AHEAD)
				npf_ro_prefetch(ro->ring[(ro->ring_head +
							  NPF_RO_AHEAD) &
							 ro->ring_mask].e);
		} else {
			npf_ro_heap_pop(ro);
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
	/* wraps, never overflows, on a damaged span's times */
	nd.neg_dur = ev->type == NPUPROF_EV_SPAN ?
		     (int64_t)(ev->span->start_ns - ev->span->end_ns) : 0;
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

#endif /* NPF_REORDER_H */
