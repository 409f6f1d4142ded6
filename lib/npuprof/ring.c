// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ring.c - the trace ring parser: checks a mapped ring header and walks the
 * records of a data area between the consumer and producer positions
 * (Documentation/npu/ring.rst), with exact loss and sequence accounting.
 *
 * Locking: none. The parser is called by the one consumer of a ring (the
 * session's reader thread), which loads the producer position with acquire
 * semantics before the call and stores the consumer position with release
 * semantics after it; the parser itself touches neither position in the
 * header page. The struct npf_ring_stats belongs to that consumer.
 *
 * Lifetime: nothing is allocated; the parser keeps no state beyond the
 * caller's struct npf_ring_stats and *cons.
 *
 * Safety: the data area is shared with the kernel and may hold any bytes.
 * Every word the decisions depend on (a record's header, a LOST record's
 * reason and count) is loaded exactly once, so that what was checked is
 * what is used, and nothing outside [data, data + data_size) is read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "ring_parse.h"

/* Sizes of the known record structs, the ABI of ring.rst (index: type) */
static const uint32_t ring_min_size[] = {
	[NPU_TRACE_REC_PAD] = sizeof(struct npu_trace_rec_hdr),
	[NPU_TRACE_REC_EXEC] = sizeof(struct npu_trace_rec_exec),
	[NPU_TRACE_REC_OP] = sizeof(struct npu_trace_rec_op),
	[NPU_TRACE_REC_CLOCK] = sizeof(struct npu_trace_rec_clock),
	[NPU_TRACE_REC_LOST] = sizeof(struct npu_trace_rec_lost),
	[NPU_TRACE_REC_BO_ALLOC] = sizeof(struct npu_trace_rec_bo),
	[NPU_TRACE_REC_BO_FREE] = sizeof(struct npu_trace_rec_bo),
};

#define RING_NTYPES	(sizeof(ring_min_size) / sizeof(ring_min_size[0]))
#define RING_NBYTYPE	(sizeof(((struct npf_ring_stats *)0)->by_type) / \
			 sizeof(uint64_t))
#define RING_NREASONS	(sizeof(((struct npf_ring_stats *)0)->lost) / \
			 sizeof(uint64_t))

_Static_assert(sizeof(struct npu_trace_rec_hdr) == 8, "ring.rst ABI");
_Static_assert(sizeof(struct npu_trace_rec_exec) == 112, "ring.rst ABI");
_Static_assert(sizeof(struct npu_trace_rec_op) == 80, "ring.rst ABI");
_Static_assert(sizeof(struct npu_trace_rec_clock) == 56, "ring.rst ABI");
_Static_assert(sizeof(struct npu_trace_rec_lost) == 24, "ring.rst ABI");
_Static_assert(sizeof(struct npu_trace_rec_bo) == 80, "ring.rst ABI");
_Static_assert(NPU_TRACE_LOST_HOST < RING_NREASONS, "lost[] too small");

uint32_t npf_ring_rec_min_size(uint16_t type)
{
	return type < RING_NTYPES ? ring_min_size[type] : 0;
}

static const char *const ring_type_name[] = {
	[NPU_TRACE_REC_PAD] = "PAD",
	[NPU_TRACE_REC_EXEC] = "EXEC",
	[NPU_TRACE_REC_OP] = "OP",
	[NPU_TRACE_REC_CLOCK] = "CLOCK",
	[NPU_TRACE_REC_LOST] = "LOST",
	[NPU_TRACE_REC_BO_ALLOC] = "BO_ALLOC",
	[NPU_TRACE_REC_BO_FREE] = "BO_FREE",
};

static void ring_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ring_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

int npf_ring_check_hdr(const struct npu_trace_ring *hdr, uint64_t data_size,
		       char *err, size_t errlen)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t size = hdr->data_size;

	if (hdr->version != NPU_TRACE_RING_VERSION) {
		ring_err(err, errlen,
			 "ring header: version %u, this library knows %u",
			 hdr->version, NPU_TRACE_RING_VERSION);
		return -EPROTONOSUPPORT;
	}
	/* The kernel writes its sizeof; a newer one may only grow it. */
	if (hdr->hdr_size < sizeof(*hdr)) {
		ring_err(err, errlen,
			 "ring header: hdr_size %u is smaller than %zu",
			 hdr->hdr_size, sizeof(*hdr));
		return -EBADMSG;
	}
	if (!is_pow2(size) || size < page) {
		ring_err(err, errlen,
			 "ring header: data_size %llu is not a power of two of at least the page size %llu",
			 (unsigned long long)size, (unsigned long long)page);
		return -EBADMSG;
	}
	if (size != data_size) {
		ring_err(err, errlen,
			 "ring header: data_size %llu, but the trace fd was opened with %llu",
			 (unsigned long long)size,
			 (unsigned long long)data_size);
		return -EBADMSG;
	}
	return 0;
}

/* Load a record header with one 64-bit load: checked once, used as read. */
static inline struct npu_trace_rec_hdr ring_load_hdr(const uint8_t *p)
{
	uint64_t w = __atomic_load_n((const uint64_t *)(const void *)p,
				     __ATOMIC_RELAXED);
	struct npu_trace_rec_hdr h;

	memcpy(&h, &w, sizeof(h));
	return h;
}

/* Count a LOST record; its size was checked against the struct. */
static inline uint64_t ring_lost(const uint8_t *p, struct npf_ring_stats *st)
{
	const struct npu_trace_rec_lost *l = (const void *)p;
	uint32_t reason = __atomic_load_n(&l->reason, __ATOMIC_RELAXED);
	uint64_t count = __atomic_load_n(&l->count, __ATOMIC_RELAXED);

	/* lost[0] collects reasons this library does not know */
	st->lost[reason < RING_NREASONS ? reason : 0] += count;
	return reason == NPU_TRACE_LOST_RING_FULL ? count : 0;
}

/*
 * Sequence rule of ring.rst: between consecutive non-PAD records a and b,
 * b - a - 1 equals the count of b when b is a RING_FULL LOST record, else
 * 0, in 32-bit arithmetic. A mismatch adds its size to @seq_gaps (records
 * missing, or, for a jump back, records seen twice).
 */
static inline void ring_seq(struct npf_ring_stats *st, uint32_t seq,
			    uint64_t explained)
{
	if (npf_likely(st->have_seq)) {
		int32_t d = (int32_t)(uint32_t)(seq - st->last_seq - 1 -
						 (uint32_t)explained);

		if (npf_unlikely(d))
			st->seq_gaps += d > 0 ? (uint64_t)d :
				-(uint64_t)(int64_t)d;
	}
	st->have_seq = true;
	st->last_seq = seq;
}

/* Name of @type for messages */
static const char *ring_tname(uint16_t type)
{
	return type < RING_NTYPES ? ring_type_name[type] : "unknown";
}

/* The message of a corrupt record at @pos; @min: its struct's size, or 0 */
static __attribute__((noinline, cold)) int
ring_bad(char *err, size_t errlen, uint64_t pos, uint64_t data_size,
	 uint64_t avail, const struct npu_trace_rec_hdr *h, uint32_t min,
	 const char *what)
{
	char smin[32] = "";

	if (min)
		snprintf(smin, sizeof(smin), " (%u bytes)", min);
	ring_err(err, errlen,
		 "ring: position %llu (data offset %llu of %llu, %llu bytes unread): %s record (type %u) of size %u: %s%s",
		 (unsigned long long)pos,
		 (unsigned long long)(pos & (data_size - 1)),
		 (unsigned long long)data_size, (unsigned long long)avail,
		 ring_tname(h->type), h->type, h->size, what, smin);
	return -EBADMSG;
}

int npf_ring_parse(const uint8_t *data, uint64_t data_size, uint64_t *cons,
		   uint64_t prod, npf_ring_cb cb, void *ctx,
		   struct npf_ring_stats *st, char *err, size_t errlen)
{
	const uint64_t mask = data_size - 1;
	uint64_t pos = *cons;
	uint64_t avail = prod - pos;
	struct npu_trace_rec_hdr h;
	const char *what;
	uint32_t min;

	if (!is_pow2(data_size) || data_size < 8 || ((uintptr_t)data & 7)) {
		ring_err(err, errlen,
			 "ring: bad data area (size %llu, address %p)",
			 (unsigned long long)data_size, (const void *)data);
		return -EINVAL;
	}
	if (npf_unlikely(avail > data_size)) {
		ring_err(err, errlen,
			 "ring: position %llu: producer %llu is %s the consumer (data_size %llu): it jumped back or too far",
			 (unsigned long long)pos, (unsigned long long)prod,
			 avail >> 63 ? "behind" : "more than data_size ahead of",
			 (unsigned long long)data_size);
		return -EBADMSG;
	}

	while (avail) {
		const uint8_t *p = data + (pos & mask);
		uint64_t explained = 0;

		/* an unaligned position may not leave room for a header */
		if (npf_unlikely((pos & 7) || avail < sizeof(h))) {
			ring_err(err, errlen,
				 "ring: position %llu (data offset %llu of %llu): %s (%llu bytes unread)",
				 (unsigned long long)pos,
				 (unsigned long long)(pos & mask),
				 (unsigned long long)data_size,
				 pos & 7 ? "position not 8-byte aligned" :
				 "fewer unread bytes than a record header",
				 (unsigned long long)avail);
			*cons = pos;
			return -EBADMSG;
		}
		h = ring_load_hdr(p);
		if (npf_unlikely(h.size < sizeof(h) || (h.size & 7))) {
			what = "not a positive multiple of 8";
			goto corrupt;
		}
		if (npf_unlikely(h.size > avail)) {
			what = "larger than the unread bytes";
			goto corrupt;
		}
		if (npf_unlikely(h.size > data_size - (pos & mask))) {
			what = "crosses the end of the data area";
			goto corrupt;
		}
		min = npf_ring_rec_min_size(h.type);
		if (npf_unlikely(h.size < min)) {
			*cons = pos;
			return ring_bad(err, errlen, pos, data_size, avail,
					&h, min, "shorter than its struct");
		}

		if (npf_unlikely(h.type == NPU_TRACE_REC_PAD)) {
			st->pads++;
			st->by_type[NPU_TRACE_REC_PAD]++;
		} else {
			if (npf_likely(cb)) {
				int ret = cb(ctx, (const void *)p);

				if (npf_unlikely(ret)) {
					*cons = pos;
					return ret;
				}
			}
			st->records++;
			if (npf_likely(h.type < RING_NBYTYPE))
				st->by_type[h.type]++;
			if (npf_unlikely(!min))
				st->unknown++;
			else if (npf_unlikely(h.type == NPU_TRACE_REC_LOST))
				explained = ring_lost(p, st);
			ring_seq(st, h.seq, explained);
		}
		pos += h.size;
		avail -= h.size;
	}
	*cons = pos;
	return 0;

corrupt:
	*cons = pos;
	return ring_bad(err, errlen, pos, data_size, avail, &h, 0, what);
}
