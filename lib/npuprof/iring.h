/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * iring.h - item rings between threads (iring.c).
 */
#ifndef NPF_IRING_H
#define NPF_IRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Item rings between threads (iring.c)                                 */
/* ------------------------------------------------------------------ */

/* Receives one drained item (a file item body of @type, @len bytes). */
typedef int (*npf_item_fn)(void *ctx, uint16_t type, const void *body,
			   size_t len);

/**
 * struct npf_iring - single-producer single-consumer ring of file items
 * @head: bytes written, free-running; the producer's, stored with release
 * @tail: bytes consumed, free-running; the consumer's, stored with release
 * @data: @size bytes
 * @size: a power of two, >= 4096
 */
struct npf_iring {
	uint64_t head;
	uint8_t pad0_[56];
	uint64_t tail;
	uint8_t pad1_[56];
	uint8_t *data;
	uint32_t size;
};

int npf_iring_init(struct npf_iring *r, uint32_t size);
void npf_iring_fini(struct npf_iring *r);
/*
 * Touch every page of the ring's memory, so that the page faults of its
 * first use happen now, not in its producer. Before the first put: it
 * writes to the memory.
 */
void npf_iring_prefault(struct npf_iring *r);
/* Producer: append an item (body @a then @b); -ENOSPC when full. */
int npf_iring_put(struct npf_iring *r, uint16_t type, const void *a,
		  size_t alen, const void *b, size_t blen);
/*
 * Producer: room for one item built in place, whose body (8-byte aligned)
 * is returned, with the bytes it may take, at least @min and at most
 * @max, in *@room; NULL when that much does not fit now. A pad fills the
 * end of the data first when the room is after the wrap. Nothing is
 * visible to the consumer until npf_iring_commit(); no other put may come
 * in between.
 */
void *npf_iring_reserve(struct npf_iring *r, uint32_t min, uint32_t max,
			uint32_t *room);
/*
 * Producer: publish the item npf_iring_reserve() made room for, of @type
 * with @len body bytes (at most the room; padded with zeros to 8).
 */
void npf_iring_commit(struct npf_iring *r, uint16_t type, uint32_t len);
/* Producer: the largest body an item put now is sure to fit. */
uint32_t npf_iring_room(const struct npf_iring *r);
/* Either side: bytes written and not yet consumed. */
uint64_t npf_iring_used(const struct npf_iring *r);
/*
 * Consumer: pass every item to @fn in order (adding to *@items if not
 * NULL); stops at the first nonzero return, which is returned, with that
 * item left unread.
 */
int npf_iring_drain(struct npf_iring *r, npf_item_fn fn, void *ctx,
		    uint64_t *items);
/*
 * Consumer: the longest run of whole items at the tail that is contiguous
 * in memory (a pad, the wrap, ends it; a pad at the tail is released) and
 * holds at most @max bytes, or one item when the first is larger. Returns
 * its first item with *@len bytes and *@n items, NULL when the ring is
 * empty. The run stays unreleased (the producer cannot reuse it) until
 * npf_iring_release(r, *@len).
 */
const void *npf_iring_peek(struct npf_iring *r, uint32_t max, uint32_t *len,
			   uint32_t *n);
void npf_iring_release(struct npf_iring *r, uint32_t len);

#endif /* NPF_IRING_H */
