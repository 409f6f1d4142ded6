// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_tring.c - the producer side of a trace ring: the kernel writes
 * records at its producer position, with a PAD record before one that
 * would wrap, sequence numbers, LOST records for what did not fit, and
 * wakes poll() waiters. Documentation/npu/ring.rst is the protocol; this
 * is the model the reader of lib/npuprof is tested against.
 *
 * Locking: every function here runs with npu_trace_dev.lock held (and
 * asserts it): records of every context reach a ring in one order. The
 * reader's consumer position is read with acquire semantics, the producer
 * position published with release semantics.
 *
 * Lifetime: the ring (struct npu_tring) belongs to its trace fd
 * (npu_tring_fops.c); these functions only touch rings on the device's
 * list, under the lock that protects the list.
 */

#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/poll.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <linux/npu.h>

#include "npu_netlink.h"
#include "npu_trace_int.h"
#include "npu_trace_points.h"

/* The record sizes are ABI (Documentation/npu/ring.rst). */
static_assert(sizeof(struct npu_trace_ring) == 256);
static_assert(sizeof(struct npu_trace_rec_hdr) == 8);
static_assert(sizeof(struct npu_trace_rec_exec) == 112);
static_assert(sizeof(struct npu_trace_rec_op) == 80);
static_assert(sizeof(struct npu_trace_rec_clock) == 56);
static_assert(sizeof(struct npu_trace_rec_lost) == 24);
static_assert(sizeof(struct npu_trace_rec_bo) == 80);

/**
 * npu_trace_rec_init() - zero a record and fill its header
 * @rec: the record
 * @type: NPU_TRACE_REC_*
 * @size: its size
 *
 * No stack byte reaches a ring. Any context; no lock needed.
 */
void npu_trace_rec_init(void *rec, u16 type, u16 size)
{
	struct npu_trace_rec_hdr *h = rec;

	memset(rec, 0, size);
	h->type = type;
	h->size = size;
}

/* Unread bytes, or U64_MAX when the consumer position is inconsistent. */
static u64 npu_tring_used_locked(struct npu_tring *r)
{
	/*
	 * Acquire: pairs with the reader's release store of the consumer
	 * position, so its reads of the records are done before we reuse
	 * the space.
	 */
	u64 used = r->prod - smp_load_acquire(&r->hdr->consumer);

	lockdep_assert_held(&r->tdev->lock);
	return used > r->data_size ? U64_MAX : used;
}

/* Copy one record in, with a PAD record first if it would wrap. */
static bool npu_tring_write(struct npu_tring *r, const void *rec, u32 size)
{
	u64 used = npu_tring_used_locked(r);
	u64 off = r->prod & (r->data_size - 1);
	u64 tail = r->data_size - off;
	u64 need = tail < size ? tail + size : size;

	if (used == U64_MAX || r->data_size - used < need)
		return false;
	if (tail < size) {
		struct npu_trace_rec_hdr pad = {
			.type = NPU_TRACE_REC_PAD,
			.size = tail,
		};

		memcpy(r->data + off, &pad, sizeof(pad));
		r->prod += tail;
		off = 0;
	}
	memcpy(r->data + off, rec, size);
	r->prod += size;
	/* The records are visible before the position that covers them. */
	smp_store_release(&r->hdr->producer, r->prod);
	return true;
}

static bool npu_tring_lost_pending(struct npu_tring *r)
{
	u32 reason;

	for (reason = NPU_TRACE_LOST_RING_FULL; reason < NPU_TRACE_NR_REASONS;
	     reason++)
		if (r->pend[reason])
			return true;
	return false;
}

/**
 * npu_tring_readable_locked() - poll() readability of a ring
 * @r: the ring; npu_trace_dev.lock held
 *
 * A record is unread and the watermark is reached, or records are being
 * dropped. The second case matters when the watermark is above what the
 * ring can hold before its next record does not fit: the reader would
 * otherwise sleep while everything is lost.
 *
 * Return: true when poll() reports EPOLLIN.
 */
bool npu_tring_readable_locked(struct npu_tring *r)
{
	u64 used;

	lockdep_assert_held(&r->tdev->lock);
	used = npu_tring_used_locked(r);
	if (!used || used == U64_MAX)
		return false;
	return used >= r->watermark || npu_tring_lost_pending(r);
}

/**
 * npu_tring_wake_locked() - wake poll() waiters if the ring is readable
 * @r: the ring; npu_trace_dev.lock held
 */
void npu_tring_wake_locked(struct npu_tring *r)
{
	lockdep_assert_held(&r->tdev->lock);
	if (wq_has_sleeper(&r->wq) && npu_tring_readable_locked(r))
		wake_up_interruptible_poll(&r->wq, EPOLLIN | EPOLLRDNORM);
}

/**
 * npu_tring_flush_lost_locked() - write the pending LOST records
 * @r: the ring; npu_trace_dev.lock held
 *
 * Return: true when none is pending any more, false when one does not fit
 * yet.
 */
bool npu_tring_flush_lost_locked(struct npu_tring *r)
{
	struct npu_trace_rec_lost rec;
	u32 reason;

	lockdep_assert_held(&r->tdev->lock);
	for (reason = NPU_TRACE_LOST_RING_FULL; reason < NPU_TRACE_NR_REASONS;
	     reason++) {
		if (!r->pend[reason])
			continue;
		npu_trace_rec_init(&rec, NPU_TRACE_REC_LOST, sizeof(rec));
		rec.hdr.seq = r->seq;
		rec.reason = reason;
		rec.count = r->pend[reason];
		if (!npu_tring_write(r, &rec, sizeof(rec)))
			return false;
		r->seq++;
		r->n_records++;
		trace_npu_trace_lost(r->ndev->id, r->id, reason, rec.count);
		r->pend[reason] = 0;
	}
	return true;
}

/**
 * npu_tring_lost_locked() - count records a ring lost, announce the overflow
 * @r: the ring; npu_trace_dev.lock held
 * @count: records lost now (any reason)
 *
 * Netlink's trace overflow event goes out at most once per ring per
 * second.
 */
void npu_tring_lost_locked(struct npu_tring *r, u64 count)
{
	unsigned long now = jiffies;

	lockdep_assert_held(&r->tdev->lock);
	r->tdev->stats.lost += count;
	if (r->ovf_next && time_before(now, r->ovf_next))
		return;
	r->ovf_next = now + HZ ?: 1;
	npu_nl_trace_overflow_event(r->ndev, r->id,
				    r->n_lost + r->n_dev_lost + r->n_host_lost);
}

/**
 * npu_tring_emit_locked() - offer one record to a ring
 * @r: the ring; npu_trace_dev.lock held
 * @rec: the record, its header's type and size set; its seq is written
 * @size: its size
 *
 * Pending LOST records go first; if they do not fit, neither does this
 * record. A dropped record takes its sequence number, so the gap a reader
 * sees equals the LOST count it reads.
 */
void npu_tring_emit_locked(struct npu_tring *r, void *rec, u32 size)
{
	struct npu_trace_rec_hdr *h = rec;

	lockdep_assert_held(&r->tdev->lock);
	if (npu_tring_flush_lost_locked(r)) {
		h->seq = r->seq;
		if (npu_tring_write(r, rec, size)) {
			r->seq++;
			r->n_records++;
			r->tdev->stats.records++;
			if (h->type == NPU_TRACE_REC_CLOCK)
				r->n_clock++;
			npu_tring_wake_locked(r);
			return;
		}
	}
	r->seq++;
	r->pend[NPU_TRACE_LOST_RING_FULL]++;
	r->n_lost++;
	npu_tring_lost_locked(r, 1);
	/* Records are being lost: a reader below its watermark must run. */
	npu_tring_wake_locked(r);
}

/**
 * npu_tring_flags_locked() - NPU_TRACE_RING_F_* of a ring, from the
 *	kernel's state
 * @r: the ring; npu_trace_dev.lock held
 *
 * Return: the flags.
 */
u32 npu_tring_flags_locked(struct npu_tring *r)
{
	u32 flags = 0;

	lockdep_assert_held(&r->tdev->lock);
	if (r->enabled)
		flags |= NPU_TRACE_RING_F_ENABLED;
	if (r->dead)
		flags |= NPU_TRACE_RING_F_DEAD;
	return flags;
}

/**
 * npu_tring_set_flags_locked() - publish the flags in the header page
 * @r: the ring; npu_trace_dev.lock held
 *
 * The kernel never reads them back: the reader may write anything there.
 */
void npu_tring_set_flags_locked(struct npu_tring *r)
{
	lockdep_assert_held(&r->tdev->lock);
	WRITE_ONCE(r->hdr->flags, npu_tring_flags_locked(r));
}
