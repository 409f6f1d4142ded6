/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * spans.h - per-thread host span buffers (span.c) and what they hand
 * items to (the session).
 */
#ifndef NPF_SPANS_H
#define NPF_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "iring.h"

/* ------------------------------------------------------------------ */
/* Host span buffers (span.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * npf_spans_attach() - make @owner the session that receives host spans,
 * with per-thread buffers of @buf_bytes (a power of two), and turn spans
 * on. A buffer filling past a quarter writes 1 to the eventfd @wake_fd (-1:
 * none). With @tsc, NPUPROF_SPAN_USER spans read the TSC instead of
 * CLOCK_MONOTONIC (packed in SPANS items of NPF_SPANS_CLOCK_TSC; the
 * session writes the HOST_CLOCK samples that map them).
 * Return: 0, -EBUSY when another session is attached.
 */
int npf_spans_attach(const void *owner, uint32_t buf_bytes, int wake_fd,
		     bool tsc);

/*
 * npf_spans_tsc_usable() - whether spans may read the TSC: the kernel's
 * clocksource is tsc and the CPU reports an invariant TSC (cpuid
 * 0x80000007 EDX bit 8). *@why says why, or why not, in a few words.
 */
bool npf_spans_tsc_usable(const char **why);

/*
 * npf_spans_clock_sample() - a bracketed sample of the TSC:
 * CLOCK_MONOTONIC before, the TSC, CLOCK_MONOTONIC after.
 */
struct npf_clock_sample;
void npf_spans_clock_sample(struct npf_clock_sample *cs);

/*
 * npf_spans_pause() - turn spans off (@off) or back on. Turning off waits
 * until no thread is writing a span any more (a grace period), so that a
 * drain after it sees every span that will ever be written.
 */
void npf_spans_pause(const void *owner, bool off);

/* npf_spans_detach() - spans off, grace period; @owner is detached. */
void npf_spans_detach(const void *owner);

/*
 * struct npf_span_sink - where a drain puts the items
 * @item: receives every item but the SPANS items packed in place
 * @reserve: room for a SPANS item's body built in place, as
 *	npf_iring_reserve() (at least @min and at most @max bytes in
 *	*@room), or NULL; NULL itself: SPANS items go to @item too
 * @commit: publish the item @reserve made room for, with @len body bytes
 * @ctx: first argument of each
 */
struct npf_span_sink {
	npf_item_fn item;
	void *(*reserve)(void *ctx, uint32_t min, uint32_t max,
			 uint32_t *room);
	void (*commit)(void *ctx, uint16_t type, uint32_t len);
	void *ctx;
};

/*
 * npf_spans_drain() - pass every unread item of every thread buffer of
 * @owner to @sink (THREAD, STRING, SPANS and SPAN items, HOST_LOST items
 * for spans dropped since the last drain), in each thread's order: runs
 * of spans are packed into SPANS items, in the sink's memory when it
 * gives room. Adds the spans and the drops to *@spans and *@lost.
 * Serialized against thread exit by the registry lock; never blocks a
 * thread writing a span.
 * Return: 0 or the first nonzero value of @sink->item (the rest stays
 * unread).
 */
int npf_spans_drain(const void *owner, const struct npf_span_sink *sink,
		    uint64_t *spans, uint64_t *lost);

/*
 * npf_spans_ring_bytes() - the size of the calling thread's span ring now
 * (it grows within a session, see span.c), 0 when it has none; for tests.
 */
uint32_t npf_spans_ring_bytes(void);

/* Forget an attached session in a child after fork(); spans off. */
void npf_spans_atfork_child(void);

/*
 * npf_session_add_ext() - append an item built outside the library (a
 * span of the eBPF collector, its label's STRING, a THREAD or a META)
 * to a running session (session.c; used by extspan.c).
 */
struct npuprof_session;
int npf_session_add_ext(struct npuprof_session *s, uint16_t type,
			const void *a, size_t alen, const void *b, size_t blen);

#endif /* NPF_SPANS_H */
