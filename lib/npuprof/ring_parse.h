/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ring_parse.h - the parser of a mapped trace ring (ring.c,
 * Documentation/npu/ring.rst).
 */
#ifndef NPF_RING_PARSE_H
#define NPF_RING_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/npu.h>

/* ------------------------------------------------------------------ */
/* The ring parser (Documentation/npu/ring.rst)                         */
/* ------------------------------------------------------------------ */

/**
 * struct npf_ring_stats - what a parser saw on one ring
 * @records: non-PAD records handed to the callback
 * @pads: PAD records skipped
 * @by_type: records by type (index < 8), known or not, PAD included
 * @unknown: records of unknown types (handed to the callback too)
 * @lost: LOST counts by reason (index NPU_TRACE_LOST_*, < 4); index 0
 *	sums the counts of LOST records with a reason this library does not
 *	know
 * @seq_gaps: records missing by seq and not explained by a RING_FULL
 *	LOST record (0 on a sound ring); a seq going back adds its distance
 * @have_seq: @last_seq is set. The first record is checked too when the
 *	caller sets @have_seq and @last_seq = UINT32_MAX before reading a
 *	ring from its start (seqs start at 0)
 * @last_seq: seq of the last non-PAD record
 */
struct npf_ring_stats {
	uint64_t records;
	uint64_t pads;
	uint64_t by_type[8];
	uint64_t unknown;
	uint64_t lost[4];
	uint64_t seq_gaps;
	bool have_seq;
	uint32_t last_seq;
};

/* Called for each non-PAD record; a nonzero return stops the parse. */
typedef int (*npf_ring_cb)(void *ctx, const struct npu_trace_rec_hdr *rec);

/*
 * npf_ring_check_hdr() - check a mapped ring header: version, hdr_size,
 * data_size (a power of two, equal to @data_size). Return: 0, or
 * -EPROTONOSUPPORT (version) / -EBADMSG with a message in @err.
 */
int npf_ring_check_hdr(const struct npu_trace_ring *hdr, uint64_t data_size,
		       char *err, size_t errlen);

/*
 * npf_ring_parse() - hand the records in [*@cons, @prod) of a data area to
 * @cb, skipping PAD, and advance *@cons past each record handled.
 *
 * Corruption stops the parse with -EBADMSG and a message in @err, *@cons
 * left at the bad record: @prod - *@cons larger than @data_size (the
 * producer jumped back or too far); a record size of 0, not a multiple of
 * 8, larger than the unread bytes, or crossing the end of the data area;
 * a known type shorter than its struct. Unknown types are counted and
 * handed to @cb. Never reads outside [@data, @data + @data_size).
 * Return: 0, -EBADMSG, or the nonzero value @cb returned (*@cons then at
 * that record, which was not consumed); -EINVAL when @data_size is not a
 * power of two >= 8 or @data is not 8-byte aligned. @cb may be NULL.
 */
int npf_ring_parse(const uint8_t *data, uint64_t data_size, uint64_t *cons,
		   uint64_t prod, npf_ring_cb cb, void *ctx,
		   struct npf_ring_stats *st, char *err, size_t errlen);

/* Minimum size of each known ring record type, 0 for unknown (< 8) */
uint32_t npf_ring_rec_min_size(uint16_t type);

#endif /* NPF_RING_PARSE_H */
