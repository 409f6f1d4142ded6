// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * reorder.c - the reorder buffer (reorder.h): the events of a trace file,
 * written out of time order (spans when they end, ring records when the
 * reader drains them), out by start time. Used by the timeline, the
 * latency breakdown and npuprof dump. Memory is bounded by max_held.
 *
 * Locking: a reorder buffer belongs to one thread. Lifetime:
 * npf_reorder_new() .. npf_reorder_free().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "reorder.h"

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
	ro->pool = npf_ro_map((max_held + 1) * sizeof(*ro->pool),
			      &ro->pool_len);
	ro->pool_cap = max_held + 1;
	ro->free = malloc((max_held + 1) * sizeof(*ro->free));
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

int npf_reorder_push(struct npf_reorder *ro, const struct npuprof_event *ev,
		     npf_reorder_fn fn, void *ctx)
{
	return npf_ro_push(ro, ev, fn, ctx);
}

int npf_reorder_drain(struct npf_reorder *ro, npf_reorder_fn fn, void *ctx)
{
	return npf_ro_release(ro, true, fn, ctx);
}
