// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * amap.c - the hash map of the analysis files (join.c, analyze.c,
 * breakdown.c):
 * nodes keyed by two 64-bit words, chained buckets that double when the
 * map is as full as it has buckets, and an insertion-order list so that
 * what is left at the end of a trace comes out in a stable order; and the
 * window of spans that may still gain children (struct npf_win), a
 * min-heap by end time of the keys of map nodes.
 *
 * A map or window is used by one thread; a map owns its nodes from
 * npf_amap_add() to npf_amap_del() or npf_amap_fini().
 */
#include <errno.h>
#include <stdlib.h>

#include "amap.h"

static size_t npf_amap_slot(const struct npf_amap *m, uint64_t k1,
			    uint64_t k2)
{
	uint64_t h = (k1 ^ (k2 * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29) & (m->nb - 1);
}

int npf_amap_init(struct npf_amap *m)
{
	m->nb = 64;
	m->n = m->max_n = 0;
	m->head.prev = m->head.next = &m->head;
	m->b = calloc(m->nb, sizeof(*m->b));
	return m->b ? 0 : -ENOMEM;
}

void *npf_amap_find(const struct npf_amap *m, uint64_t k1, uint64_t k2)
{
	struct npf_anode *n;

	for (n = m->b[npf_amap_slot(m, k1, k2)]; n; n = n->hnext)
		if (n->k1 == k1 && n->k2 == k2)
			return n;
	return NULL;
}

/* Twice the buckets; without memory the chains just get longer */
static void npf_amap_rehash(struct npf_amap *m)
{
	struct npf_amap big = { .nb = m->nb * 2 };
	struct npf_anode *n;

	big.b = calloc(big.nb, sizeof(*big.b));
	if (!big.b)
		return;
	for (n = m->head.next; n != &m->head; n = n->next) {
		size_t s = npf_amap_slot(&big, n->k1, n->k2);

		n->hnext = big.b[s];
		big.b[s] = n;
	}
	free(m->b);
	m->b = big.b;
	m->nb = big.nb;
}

void *npf_amap_add(struct npf_amap *m, uint64_t k1, uint64_t k2,
		   size_t size)
{
	struct npf_anode *n = calloc(1, size);
	size_t s;

	if (!n)
		return NULL;
	if (m->n >= m->nb)
		npf_amap_rehash(m);
	n->k1 = k1;
	n->k2 = k2;
	s = npf_amap_slot(m, k1, k2);
	n->hnext = m->b[s];
	m->b[s] = n;
	n->next = &m->head;
	n->prev = m->head.prev;
	n->prev->next = n;
	m->head.prev = n;
	if (++m->n > m->max_n)
		m->max_n = m->n;
	return n;
}

void npf_amap_del(struct npf_amap *m, void *node)
{
	struct npf_anode *n = node, **pp;

	for (pp = &m->b[npf_amap_slot(m, n->k1, n->k2)]; *pp != n;
	     pp = &(*pp)->hnext)
		;
	*pp = n->hnext;
	n->prev->next = n->next;
	n->next->prev = n->prev;
	m->n--;
	free(n);
}

void *npf_amap_first(const struct npf_amap *m)
{
	return m->head.next == &m->head ? NULL : m->head.next;
}

void npf_amap_fini(struct npf_amap *m)
{
	struct npf_anode *n, *next;

	if (!m->b)
		return;
	for (n = m->head.next; n != &m->head; n = next) {
		next = n->next;
		free(n);
	}
	free(m->b);
	m->b = NULL;
	m->n = 0;
}

static bool npf_went_before(const struct npf_went *a, const struct npf_went *b)
{
	return a->end < b->end || (a->end == b->end && a->seq < b->seq);
}

int npf_win_push(struct npf_win *w, uint64_t end, uint64_t k1, uint64_t k2)
{
	struct npf_went e = { .end = end, .seq = w->seq++, .k1 = k1, .k2 = k2 };
	size_t i;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct npf_went *h = realloc(w->h, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		w->h = h;
		w->cap = cap;
	}
	for (i = w->n++; i && npf_went_before(&e, &w->h[(i - 1) / 2]);
	     i = (i - 1) / 2)
		w->h[i] = w->h[(i - 1) / 2];
	w->h[i] = e;
	return 0;
}

void npf_win_saw(struct npf_win *w, uint64_t end)
{
	if (end > w->newest)
		w->newest = end;
}

bool npf_win_next(struct npf_win *w, bool all, struct npf_went *e)
{
	struct npf_went last;
	size_t i = 0, c;

	if (!w->n || !(all || w->n > NPF_WIN_MAX ||
		       (w->newest > w->h[0].end &&
			w->newest - w->h[0].end > (uint64_t)NPF_WIN_NS)))
		return false;
	*e = w->h[0];
	last = w->h[--w->n];
	while ((c = 2 * i + 1) < w->n) {
		if (c + 1 < w->n && npf_went_before(&w->h[c + 1], &w->h[c]))
			c++;
		if (!npf_went_before(&w->h[c], &last))
			break;
		w->h[i] = w->h[c];
		i = c;
	}
	if (w->n)
		w->h[i] = last;
	return true;
}

void npf_win_fini(struct npf_win *w)
{
	free(w->h);
	w->h = NULL;
	w->n = w->cap = 0;
}
