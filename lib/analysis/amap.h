/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * amap.h - the hash map and the window of held spans of the analyses
 * (amap.c).
 */
#ifndef NPF_AMAP_H
#define NPF_AMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reorder.h"

/*
 * A hash map of nodes keyed by two 64-bit words, each node a caller's
 * struct that starts with struct npf_anode, kept in insertion order too
 * (so that what is left at the end comes out in a stable order). Used by
 * one thread; the nodes are malloc'ed and owned by the map.
 */
struct npf_anode {
	struct npf_anode *hnext;
	struct npf_anode *prev, *next;
	uint64_t k1, k2;
};

struct npf_amap {
	struct npf_anode **b;
	size_t nb;
	size_t n;
	size_t max_n;			/* most nodes held at once */
	struct npf_anode head;		/* insertion-order sentinel */
};

int npf_amap_init(struct npf_amap *m);
void *npf_amap_find(const struct npf_amap *m, uint64_t k1, uint64_t k2);
/* A new zeroed node of @size bytes (>= sizeof(struct npf_anode)) */
void *npf_amap_add(struct npf_amap *m, uint64_t k1, uint64_t k2,
		   size_t size);
void npf_amap_del(struct npf_amap *m, void *node);
/* The oldest node, or NULL */
void *npf_amap_first(const struct npf_amap *m);
void npf_amap_fini(struct npf_amap *m);

/*
 * The window of the analysis passes (join.c, analyze.c): spans that may
 * still gain children, which a child's span, written when it ends, can
 * follow in the file when it comes from another thread's buffer. A span
 * leaves it once a span that ended more than NPF_WIN_NS after it has been
 * read (the timeline's reorder window: a span is written within a drain
 * pass of its end), or when more than NPF_WIN_MAX wait (the oldest first).
 * @h: min-heap by (end, seq) of the keys (k1, k2) of their map nodes;
 * @newest: the latest span end read. Zeroed to start, npf_win_fini() to end.
 */
#define NPF_WIN_NS	NPF_TL_WINDOW_NS
#define NPF_WIN_MAX	NPF_TL_MAX_HELD

struct npf_went {
	uint64_t end, seq;
	uint64_t k1, k2;
};

struct npf_win {
	struct npf_went *h;
	size_t n, cap;
	uint64_t seq;
	uint64_t newest;
};

/* Hold (@k1, @k2), a span that ended at @end; 0 or -ENOMEM */
int npf_win_push(struct npf_win *w, uint64_t end, uint64_t k1, uint64_t k2);
/* A span ended at @end was read (it moves the window) */
void npf_win_saw(struct npf_win *w, uint64_t end);
/* Take the oldest into *@e if it leaves now (any, with @all): true if so */
bool npf_win_next(struct npf_win *w, bool all, struct npf_went *e);
void npf_win_fini(struct npf_win *w);

#endif /* NPF_AMAP_H */
