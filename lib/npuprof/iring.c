// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iring.c - a single-producer single-consumer ring of trace-file items,
 * the buffer between the threads of a capture: each thread's host spans
 * (span.c) and the session's stage between its reader and writer threads
 * (session.c).
 *
 * The layout is the kernel trace ring's (Documentation/npu/ring.rst):
 * free-running 64-bit @head (producer) and @tail (consumer) positions on
 * their own cache lines, compared with != only; items (struct npf_item +
 * body, 8-byte aligned) never wrap, a pad item of type 0 fills the tail.
 * The producer stores @head with release after writing an item, the
 * consumer loads it with acquire, reads, and stores @tail with release
 * after each item, so that a long drain frees space as it goes. The
 * consumer may instead take a run of items in place (npf_iring_peek())
 * and release it when done with it (npf_iring_release()): the session's
 * writer thread writes the stage to the file that way, with no copy. The
 * producer may likewise build an item in place (npf_iring_reserve(), then
 * npf_iring_commit()): the span drain packs SPANS items into the stage
 * that way.
 *
 * Locking: none. One producer and one consumer at a time; callers
 * serialize several producers (or consumers) themselves. The ring owns
 * its data from npf_iring_init() to npf_iring_fini().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "iring.h"
#include "trace_format.h"

int npf_iring_init(struct npf_iring *r, uint32_t size)
{
	memset(r, 0, sizeof(*r));
	if (size < 4096 || (size & (size - 1)))
		return -EINVAL;
	r->data = malloc(size);
	if (!r->data)
		return -ENOMEM;
	r->size = size;
	return 0;
}

void npf_iring_prefault(struct npf_iring *r)
{
	volatile uint8_t *p = r->data;
	uint32_t off;

	for (off = 0; off < r->size; off += 4096)
		p[off] = 0;
}

void npf_iring_fini(struct npf_iring *r)
{
	free(r->data);
	r->data = NULL;
	r->size = 0;
}

uint64_t npf_iring_used(const struct npf_iring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

uint32_t npf_iring_room(const struct npf_iring *r)
{
	uint64_t used = r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint32_t off = (uint32_t)r->head & (r->size - 1);
	uint32_t free = r->size - (uint32_t)used;
	uint32_t to_end = r->size - off;

	/* an item that does not fit the tail costs the tail as padding */
	if (free <= sizeof(struct npf_item))
		return 0;
	if (to_end >= free)
		return free - sizeof(struct npf_item);
	free -= to_end;
	if (to_end > free)
		free = to_end;
	return free > sizeof(struct npf_item) ? free - sizeof(struct npf_item) : 0;
}

int npf_iring_put(struct npf_iring *r, uint16_t type, const void *a,
		  size_t alen, const void *b, size_t blen)
{
	size_t len = NPF_ALIGN8(sizeof(struct npf_item) + alen + blen);
	uint64_t head = r->head;
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint32_t off = (uint32_t)head & (r->size - 1);
	uint32_t to_end = r->size - off;
	uint64_t need = len > to_end ? (uint64_t)to_end + len : len;
	struct npf_item *it;
	uint8_t *p;

	if (npf_unlikely(len > r->size || r->size - (head - tail) < need))
		return -ENOSPC;
	if (len > to_end) {
		it = (struct npf_item *)(r->data + off);
		it->type = 0;
		it->flags = 0;
		it->size = to_end;
		head += to_end;
		off = 0;
	}
	it = (struct npf_item *)(r->data + off);
	it->type = type;
	it->flags = 0;
	it->size = (uint32_t)len;
	p = (uint8_t *)(it + 1);
	memcpy(p, a, alen);
	if (blen)
		memcpy(p + alen, b, blen);
	memset(p + alen + blen, 0, len - sizeof(*it) - alen - blen);
	__atomic_store_n(&r->head, head + len, __ATOMIC_RELEASE);
	return 0;
}

void *npf_iring_reserve(struct npf_iring *r, uint32_t min, uint32_t max,
			uint32_t *room)
{
	const uint32_t hdr = sizeof(struct npf_item);
	uint64_t head = r->head;
	uint64_t free = r->size - (head -
				   __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
	uint32_t off = (uint32_t)head & (r->size - 1);
	uint64_t to_end = r->size - off, avail = to_end < free ? to_end : free;

	if (avail < (uint64_t)hdr + min) {
		struct npf_item *it;

		/* after the wrap, past a pad: the whole of what is free */
		if (free - to_end < (uint64_t)hdr + min || free < to_end)
			return NULL;
		it = (struct npf_item *)(r->data + off);
		it->type = 0;
		it->flags = 0;
		it->size = (uint32_t)to_end;
		__atomic_store_n(&r->head, head + to_end, __ATOMIC_RELEASE);
		avail = free - to_end;
		off = 0;
	}
	avail = (avail - hdr) & ~(uint64_t)7;
	*room = avail < max ? (uint32_t)avail : max;
	return r->data + off + hdr;
}

void npf_iring_commit(struct npf_iring *r, uint16_t type, uint32_t len)
{
	uint64_t head = r->head;
	struct npf_item *it = (struct npf_item *)(r->data +
		((uint32_t)head & (r->size - 1)));
	uint32_t size = (uint32_t)NPF_ALIGN8(sizeof(*it) + len);

	memset((uint8_t *)(it + 1) + len, 0, size - sizeof(*it) - len);
	it->type = type;
	it->flags = 0;
	it->size = size;
	__atomic_store_n(&r->head, head + size, __ATOMIC_RELEASE);
}

int npf_iring_drain(struct npf_iring *r, npf_item_fn fn, void *ctx,
		    uint64_t *items)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->tail;
	int ret = 0;

	while (tail != head) {
		const struct npf_item *it =
			(const void *)(r->data + ((uint32_t)tail & (r->size - 1)));

		if (it->type) {
			ret = fn(ctx, it->type, it + 1, it->size - sizeof(*it));
			if (ret)
				break;
			if (items)
				(*items)++;
		}
		tail += it->size;
		/* the space is the producer's again as soon as it is read */
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	return ret;
}

const void *npf_iring_peek(struct npf_iring *r, uint32_t max, uint32_t *len,
			   uint32_t *n)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->tail;
	const uint8_t *start = NULL;
	uint32_t run = 0, items = 0;

	while (tail + run != head) {
		uint32_t off = (uint32_t)(tail + run) & (r->size - 1);
		const struct npf_item *it = (const void *)(r->data + off);

		/*
		 * A run is contiguous in memory: an item that ended exactly
		 * at the end of the data (no pad) ends it too.
		 */
		if (run && !off)
			break;
		if (!it->type) {
			/* the pad before the wrap ends a run, or is skipped */
			if (run)
				break;
			tail += it->size;
			__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
			continue;
		}
		if (run && run + it->size > max)
			break;
		if (!run)
			start = (const uint8_t *)it;
		run += it->size;
		items++;
	}
	*len = run;
	*n = items;
	return run ? start : NULL;
}

void npf_iring_release(struct npf_iring *r, uint32_t len)
{
	__atomic_store_n(&r->tail, r->tail + len, __ATOMIC_RELEASE);
}
