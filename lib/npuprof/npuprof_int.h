/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npuprof_int.h - libnpuprof internals shared by its files: the trace file
 * format and its writer and reader (tracefile.c), the ring parser
 * (ring.c), the clock fit (clock.c), host span buffers (span.c), sessions
 * (session.c) and the public reader (trace.c).
 *
 * Internal names start with npf_ and are hidden (-fvisibility=hidden and
 * the version script); exported functions are marked NPUPROF_EXPORT.
 */
#ifndef NPUPROF_INT_H
#define NPUPROF_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/npu.h>

#include "npuprof.h"

#define NPUPROF_EXPORT __attribute__((visibility("default")))

#define npf_likely(x)	__builtin_expect(!!(x), 1)
#define npf_unlikely(x)	__builtin_expect(!!(x), 0)

#define NPF_ALIGN8(x)	(((x) + 7u) & ~(size_t)7u)

/*
 * npf_round_i64() - llround(@x) for |@x| < 2^63, inline (the callers check
 * the range): the truncation is exact, and so is the fraction x - trunc(x)
 * (|x| < 2^52: a double holds it; above, x is an integer); halves go away
 * from zero as llround's do.
 */
static inline int64_t npf_round_i64(double x)
{
	int64_t i = (int64_t)x;
	double f = x - (double)i;

	/*
	 * Without branches: the fraction of a mapped time is random, and a
	 * branch on it mispredicts every other time (half the cost of a map)
	 */
	return i + (int64_t)(f >= 0.5) - (int64_t)(f <= -0.5);
}

/* ------------------------------------------------------------------ */
/* The trace file (Documentation/npu/trace-file.rst)                    */
/* ------------------------------------------------------------------ */

#define NPF_FILE_MAGIC		"NPUPROF"	/* 8 bytes with the NUL */
#define NPF_FILE_VERSION	1
#define NPF_BYTE_ORDER		0x01020304u
#define NPF_CHUNK_MAGIC		0x4b43504eu	/* "NPCK" little-endian */
#define NPF_CHUNK_DEFAULT	(256u * 1024)	/* payload bytes */
#define NPF_CHUNK_MIN		4096u
#define NPF_CHUNK_MAX		(16u * 1024 * 1024)

/**
 * struct npf_file_hdr - the first 64 bytes of a trace file
 * @magic: "NPUPROF\0"
 * @version: NPF_FILE_VERSION
 * @hdr_size: sizeof(struct npf_file_hdr); chunks start here
 * @byte_order: NPF_BYTE_ORDER as written by the host (a reader on the
 *	other byte order refuses the file)
 * @flags: 0
 * @chunk_max: largest chunk payload the writer used
 * @rsvd0: 0
 * @realtime_ns: CLOCK_REALTIME when the file was created
 * @monotonic_ns: CLOCK_MONOTONIC read next to @realtime_ns
 * @rsvd: 0
 */
struct npf_file_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint32_t byte_order;
	uint32_t flags;
	uint32_t chunk_max;
	uint32_t rsvd0;
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
	uint64_t rsvd[2];
};

/**
 * struct npf_chunk_hdr - header of every chunk
 * @magic: NPF_CHUNK_MAGIC
 * @hdr_size: sizeof(struct npf_chunk_hdr)
 * @seq: chunk number, from 0, consecutive
 * @size: payload bytes that follow, a multiple of 8, <= the file's chunk_max
 * @crc: CRC-32 (zlib's) of the payload
 * @items: items in the payload
 * @rsvd: 0
 */
struct npf_chunk_hdr {
	uint32_t magic;
	uint32_t hdr_size;
	uint64_t seq;
	uint32_t size;
	uint32_t crc;
	uint32_t items;
	uint32_t rsvd;
};

/**
 * struct npf_item - header of every item in a chunk payload
 * @type: NPF_ITEM_*; a reader skips types it does not know
 * @flags: 0
 * @size: bytes including this header, a multiple of 8, >= 8
 *
 * Items never cross chunks. Bodies are padded with zeros to 8 bytes.
 */
struct npf_item {
	uint16_t type;
	uint16_t flags;
	uint32_t size;
};

enum npf_item_type {
	NPF_ITEM_META = 1,	/* "key\0value\0" */
	NPF_ITEM_DEVICE = 2,	/* struct npf_item_device + struct npu_info */
	NPF_ITEM_SPAN = 3,	/* struct npuprof_span_rec */
	NPF_ITEM_RECORD = 4,	/* struct npf_item_record + the ring record */
	NPF_ITEM_SESSION = 5,	/* struct npf_item_session */
	NPF_ITEM_HOST_LOST = 6,	/* struct npf_item_host_lost */
	NPF_ITEM_CLOCK_FIT = 7,	/* struct npf_item_clock_fit */
	NPF_ITEM_SUMMARY = 8,	/* struct npf_item_summary */
	NPF_ITEM_STRING = 9,	/* struct npf_item_string + text + NUL */
	NPF_ITEM_THREAD = 10,	/* struct npf_item_thread */
	NPF_ITEM_END = 11,	/* struct npf_item_end: the file is complete */
	NPF_ITEM_RECORDS = 12,	/* struct npf_item_records + ring records */
	NPF_ITEM_CLOCKS = 13,	/* struct npf_item_clocks + clock samples */
	NPF_ITEM_TYPE_MAX = 13,
};

/* DEVICE: a traced device; @dev numbers the devices of the file from 0 */
struct npf_item_device {
	uint32_t dev;
	uint32_t info_size;	/* bytes of struct npu_info that follow */
	char path[64];		/* NUL-terminated device node */
	/* struct npu_info follows */
};

/* RECORD: one ring record of device @dev, verbatim (rec.size bytes) */
struct npf_item_record {
	uint32_t dev;
	uint32_t rsvd;
	/* the ring record follows, starting with struct npu_trace_rec_hdr */
};

/*
 * RECORDS: @count consecutive ring records of device @dev, verbatim and
 * back to back (each rec.size bytes, no PAD), copied from the ring in one
 * piece: what the reader thread writes. A RECORD item holds one record.
 */
struct npf_item_records {
	uint32_t dev;
	uint32_t count;
	/* the ring records follow */
};

/* SESSION: a session event */
struct npf_item_session {
	uint32_t op;		/* NPUPROF_SESSION_* */
	uint32_t rsvd;
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
};

/* HOST_LOST: spans thread @tid dropped since its previous HOST_LOST */
struct npf_item_host_lost {
	int32_t pid;
	int32_t tid;
	uint64_t count;
};

/* CLOCK_FIT: the fit the writer made at stop, for information */
struct npf_item_clock_fit {
	uint32_t dev;
	uint32_t samples;	/* CLOCK records seen */
	uint32_t used;		/* of them, kept by the fit */
	uint32_t segments;
	double ns_per_tick;	/* of the first segment */
	double offset_ns;	/* host ns at tick 0, first segment */
	uint64_t err_ns;	/* largest error bound of the fit */
	uint64_t violations;	/* executions outside their host interval */
	uint64_t checked;	/* executions checked */
};

/* SUMMARY: totals of the session, at the end: struct npuprof_summary */
#define npf_item_summary npuprof_summary

/* STRING: string table entry @id (ids start at 1) */
struct npf_item_string {
	uint32_t id;
	uint32_t len;		/* bytes of text, without the NUL */
	/* text and a NUL follow */
};

/* THREAD: the name of a thread */
struct npf_item_thread {
	int32_t pid;
	int32_t tid;
	char name[16];
};

/*
 * CLOCKS: @count clock samples of device @dev (struct npf_clock_sample:
 * host_before_ns, device_tick, host_after_ns, as in its CLOCK records, in
 * file order), in the file's index; @clock_hz is its nominal frequency
 * from its DEVICE item, 0 when that did not say
 */
struct npf_item_clocks {
	uint32_t dev;
	uint32_t count;
	uint64_t clock_hz;
	/* @count struct npf_clock_sample follow */
};

/*
 * END: last item of a complete file. @index_off: offset of the chunk where
 * the file's index (the CLOCKS items) starts, and @index_seq its seq; 0
 * and 0 without an index. With an index, END is alone in its chunk.
 */
struct npf_item_end {
	uint64_t chunks;	/* chunks before the one holding this item */
	uint64_t items;		/* items before this one */
	uint64_t index_off;
	uint64_t index_seq;
};

/* Minimum body size of each known item type (index: type), 0: unknown */
extern const uint32_t npf_item_min_body[NPF_ITEM_TYPE_MAX + 1];

/*
 * CRC-32 of zlib (polynomial 0xedb88320), @crc 0 to start, by the
 * implementation npf_crc32_select() chose (it chooses on the first call).
 */
uint32_t npf_crc32(uint32_t crc, const void *data, size_t len);

/* Implementations of npf_crc32(): 0 is slicing-by-8, on every CPU */
#define NPF_CRC32_IMPLS		3
/* Bytes each implementation is timed on by npf_crc32_select() */
#define NPF_CRC32_PROBE		(64u * 1024)

/* Name of implementation @i; NULL when this build or CPU lacks it */
const char *npf_crc32_impl(unsigned int i);

/* npf_crc32() by implementation @i (0 when @i is not available) */
uint32_t npf_crc32_with(unsigned int i, uint32_t crc, const void *data,
			size_t len);

/*
 * npf_crc32_select() - time each implementation once on NPF_CRC32_PROBE
 * bytes and keep the fastest for npf_crc32(); later calls return the
 * choice. Return: the index of the implementation chosen.
 */
unsigned int npf_crc32_select(void);

/* -- writer: single-threaded; the session serializes its calls -- */
struct npf_writer;

/*
 * npf_writer_open() - create @path (O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
 * and write the file header. @chunk_max 0 means NPF_CHUNK_DEFAULT.
 * Return: 0 or -errno; -EINVAL for a chunk size out of range.
 */
int npf_writer_open(const char *path, uint32_t chunk_max,
		    struct npf_writer **w);

/*
 * npf_writer_add() - append an item of @type whose body is @a (@alen
 * bytes) followed by @b (@blen bytes, may be 0), padded to 8 bytes. Starts
 * a new chunk (writing the current one) when the item does not fit.
 * Return: 0; -EMSGSIZE when the item cannot fit in any chunk; -errno of
 * write(); once a write failed every later call fails with its error.
 */
int npf_writer_add(struct npf_writer *w, uint16_t type, const void *a,
		   size_t alen, const void *b, size_t blen);

/*
 * npf_writer_add_items() - write @n items already laid out as in a chunk
 * payload (struct npf_item headers, sizes multiples of 8; @len bytes, at
 * most the chunk size) as one chunk of their own, straight from @items
 * with writev(): the current chunk is written first, so items stay in
 * order. Return: 0, -EMSGSIZE, or as npf_writer_add().
 */
int npf_writer_add_items(struct npf_writer *w, const void *items,
			 uint32_t len, uint32_t n);

/* npf_writer_flush() - write the current chunk if it holds any item */
int npf_writer_flush(struct npf_writer *w);

/*
 * npf_writer_index() - the items added from now on are the file's index:
 * the current chunk is written, the next one's offset and seq go into the
 * END item, which then gets a chunk of its own. Called once, just before
 * the CLOCKS items that end a file. Return: 0, or the sticky error.
 */
int npf_writer_index(struct npf_writer *w);

struct npf_clock_sample;

/*
 * npf_writer_add_clocks() - CLOCKS items for the @n samples @s of device
 * @dev of nominal frequency @clock_hz (0: unknown): as many items as the
 * chunk size needs, one when @n is 0. Return: as npf_writer_add().
 */
int npf_writer_add_clocks(struct npf_writer *w, uint32_t dev,
			  uint64_t clock_hz,
			  const struct npf_clock_sample *s, size_t n);

/*
 * npf_writer_close() - append the END item, flush, close the fd and free
 * @w (also on error). Return: 0 or the first error.
 */
int npf_writer_close(struct npf_writer *w);

/* npf_writer_abort() - close without the END item, as a killed writer */
void npf_writer_abort(struct npf_writer *w);

/* Bytes written to the file so far (header and complete chunks) */
uint64_t npf_writer_bytes(const struct npf_writer *w);
uint64_t npf_writer_chunks(const struct npf_writer *w);

/* -- reader: streams a file one chunk at a time -- */
struct npf_reader;

/*
 * npf_reader_open() - open @path and check its header. On error, @err
 * receives "PATH: offset N: what was wrong".
 * Return: 0; -errno of open(); -ENOEXEC bad magic (not a trace file);
 * -EPROTONOSUPPORT unknown version or other byte order; -EBADMSG a
 * corrupt or short header; -ENOMEM.
 */
int npf_reader_open(const char *path, struct npf_reader **r, char *err,
		    size_t errlen);

/*
 * npf_reader_next() - the next item, in file order. Items of known types
 * are validated (sizes, NUL-terminated strings, a RECORD's inner size)
 * before they are returned; unknown types are returned as they are.
 * *@item stays valid until the next call; *@offset is its file offset.
 * Return: 1; 0 at the end (complete, or truncated: see
 * npf_reader_truncated()); -EBADMSG on corruption, with the message in
 * npf_reader_error(); -errno of read(). After an error, every later call
 * returns the same error.
 */
int npf_reader_next(struct npf_reader *r, const struct npf_item **item,
		    uint64_t *offset);

const char *npf_reader_error(const struct npf_reader *r);
/* 1 when the file ended before its END item */
int npf_reader_truncated(const struct npf_reader *r);
/* back to the first item */
int npf_reader_rewind(struct npf_reader *r);

/*
 * npf_reader_index() - where the file's index starts (END's index_off and
 * index_seq), from its last chunk alone: END by itself, with a good CRC.
 * Reads nothing else and leaves the reader where it was. Return: 0, or
 * -ENOENT (no index: an older or cut file, or a last chunk that is not
 * such an END), or -errno of fstat() or pread().
 */
int npf_reader_index(struct npf_reader *r, uint64_t *off, uint64_t *seq);

/*
 * npf_reader_seek() - read on from the chunk at @off, which must have seq
 * @seq (npf_reader_index()); chunks and items are checked as ever, but
 * the items before @off being unknown, END's count of them is not, until
 * the next npf_reader_rewind(). Return: 0, -EINVAL (@off not 8-aligned
 * or inside the file header).
 */
int npf_reader_seek(struct npf_reader *r, uint64_t off, uint64_t seq);
/*
 * npf_reader_readahead() - @on: a thread of the reader's reads the next
 * chunk while the caller walks the current one (same items, checks and
 * errors; two more chunk buffers). Off: only between chunks (after a
 * rewind, or at the end), else -EBUSY. Return: 0, -ENOMEM, -E2BIG (chunks
 * over 4 MiB: none).
 */
int npf_reader_readahead(struct npf_reader *r, bool on);
const struct npf_file_hdr *npf_reader_hdr(const struct npf_reader *r);
void npf_reader_close(struct npf_reader *r);

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

/* ------------------------------------------------------------------ */
/* Clock fit                                                            */
/* ------------------------------------------------------------------ */

/* One bracketed sample: the device latched @tick in [@before, @after] */
struct npf_clock_sample {
	uint64_t before_ns;
	uint64_t tick;
	uint64_t after_ns;
};

/**
 * struct npf_clock_seg - one linear piece of a fit
 * @tick0: first tick the piece applies to (the first piece: 0)
 * @ref_tick: reference tick of the piece
 * @ref_ns: host ns at @ref_tick (integer part)
 * @ns_per_tick: slope
 * @err_ns: error bound of a time mapped by this piece between its first
 *	and last samples (npf_clock_map() gives the bound of each tick)
 * @n: samples kept in this piece
 * @last_tick: tick of the last sample of the piece (@ref_tick is the first)
 * @err_first: error bound at @ref_tick, ns
 * @err_last: error bound at @last_tick, ns (linear in between)
 * @err_slope: growth of the bound per tick before @ref_tick and after
 *	@last_tick (extrapolation)
 * @span: @last_tick - @ref_tick, as a double (npf_clock_seg_prepare())
 * @err_in: growth of the bound per tick between @ref_tick and @last_tick,
 *	the rounding of the mapped offset included (npf_clock_seg_prepare())
 *
 * See Documentation/npu/clock-fit.rst.
 */
struct npf_clock_seg {
	uint64_t tick0;
	uint64_t ref_tick;
	int64_t ref_ns;
	double ns_per_tick;
	uint64_t err_ns;
	uint32_t n;
	uint64_t last_tick;
	double err_first;
	double err_last;
	double err_slope;
	double span;
	double err_in;
};

/*
 * npf_clock_seg_prepare() - set @g's @span and @err_in from its other
 * fields: a piece is mapped with them (one multiply for the bound between
 * its samples, no division)
 */
void npf_clock_seg_prepare(struct npf_clock_seg *g);

/**
 * struct npf_clock_fit - a piecewise linear map from ticks to host ns
 * @clock_hz: nominal frequency (used when fewer than 2 samples)
 * @samples: samples given
 * @used: samples kept (outliers and wide brackets dropped)
 * @nseg: pieces in @seg, sorted by @tick0
 * @seg: the pieces (malloc'ed)
 * @err_ns: largest error bound over the pieces
 */
struct npf_clock_fit {
	uint64_t clock_hz;
	uint32_t samples;
	uint32_t used;
	uint32_t nseg;
	struct npf_clock_seg *seg;
	uint64_t err_ns;
};

/*
 * npf_clock_fit_build() - fit @n samples (any order; @s may be reordered)
 * of a device with nominal frequency @clock_hz. With no sample the fit is
 * invalid (npf_clock_map() sets valid 0); with one it uses the nominal
 * frequency through it. Return: 0, -EINVAL (clock_hz 0), -ENOMEM.
 */
int npf_clock_fit_build(struct npf_clock_sample *s, size_t n,
			uint64_t clock_hz, struct npf_clock_fit *fit);

/* npf_clock_map() - map @tick; out->err_ns bounds the error */
void npf_clock_map(const struct npf_clock_fit *fit, uint64_t tick,
		   struct npuprof_clock_map *out);

/*
 * npf_clock_map_cached() - npf_clock_map(), the same result, for ticks that
 * mostly come in order: *@piece (the caller's, 0 at first, one per fit and
 * reader) is the piece of the last tick, tried first and updated.
 */
void npf_clock_map_cached(const struct npf_clock_fit *fit, uint32_t *piece,
			  uint64_t tick, struct npuprof_clock_map *out);

/*
 * npf_clock_map2_cached() - npf_clock_map_cached() of @a into *@out_a,
 * then of @b into *@out_b (a record's start and end): one call, the fit
 * checked once; the same results.
 */
void npf_clock_map2_cached(const struct npf_clock_fit *fit, uint32_t *piece,
			   uint64_t a, uint64_t b,
			   struct npuprof_clock_map *out_a,
			   struct npuprof_clock_map *out_b);

void npf_clock_fit_release(struct npf_clock_fit *fit);

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

/* ------------------------------------------------------------------ */
/* Host span buffers (span.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * npf_spans_attach() - make @owner the session that receives host spans,
 * with per-thread buffers of @buf_bytes (a power of two), and turn spans
 * on. A buffer filling past half writes 1 to the eventfd @wake_fd (-1:
 * none). Return: 0, -EBUSY when another session is attached.
 */
int npf_spans_attach(const void *owner, uint32_t buf_bytes, int wake_fd);

/*
 * npf_spans_pause() - turn spans off (@off) or back on. Turning off waits
 * until no thread is writing a span any more (a grace period), so that a
 * drain after it sees every span that will ever be written.
 */
void npf_spans_pause(const void *owner, bool off);

/* npf_spans_detach() - spans off, grace period; @owner is detached. */
void npf_spans_detach(const void *owner);

/*
 * npf_spans_drain() - pass every unread item of every thread buffer of
 * @owner to @fn (THREAD, STRING, SPAN items, and HOST_LOST items for
 * spans dropped since the last drain), in each thread's order. Adds the
 * spans and the drops to *@spans and *@lost. Serialized against thread
 * exit by the registry lock; never blocks a thread writing a span.
 * Return: 0 or the first nonzero value of @fn (the rest stays unread).
 */
int npf_spans_drain(const void *owner, npf_item_fn fn, void *ctx,
		    uint64_t *spans, uint64_t *lost);

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

/* The clock fit of device @dev of an open trace, or NULL (trace.c) */
const struct npf_clock_fit *npf_trace_fit(const struct npuprof_trace *t,
					  uint32_t dev);

/*
 * npf_trace_open() - npuprof_trace_open(); with @keep, the clock samples
 * the fits were made of are kept, for npf_trace_write_index()
 */
int npf_trace_open(const char *path, bool keep, struct npuprof_trace **trace,
		   char *err, size_t errlen);

/*
 * npf_trace_write_index() - the index of a file being written (the
 * session's, at stop) from trace @t, a reading of that file opened with
 * @keep: npf_writer_index(), then CLOCKS items of every device of @t
 * with the samples its fits were made of, so that a reader of the
 * complete file fits the same clocks without reading the rest of it.
 * Return: 0, -EINVAL (the samples were not kept), or as npf_writer_add().
 */
int npf_trace_write_index(const struct npuprof_trace *t, struct npf_writer *w);

/*
 * npf_trace_index_file() - the index of @path, being written by @w: its
 * chunks so far flushed and read back (npf_trace_open() with @keep), then
 * npf_trace_write_index(); for writers of files other than a session's
 * (which has that reading already). Return: 0 or -errno.
 */
int npf_trace_index_file(struct npf_writer *w, const char *path);

/*
 * npf_trace_next() - npuprof_trace_next(), but the fit and summary of an
 * event of another type than CLOCK_FIT and SUMMARY are left as they were,
 * not zeroed (the timeline reads them only there: half the stores of an
 * event)
 */
int npf_trace_next(struct npuprof_trace *t, struct npuprof_event *ev);

/* ------------------------------------------------------------------ */
/* Logging                                                              */
/* ------------------------------------------------------------------ */

struct npf_log {
	npuprof_log_fn fn;
	void *ctx;
	int level;
};

void npf_log(const struct npf_log *log, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Monotonic clock in ns */
uint64_t npf_now_ns(void);

/* ------------------------------------------------------------------ */
/* Reports: the join, the tables, SQLite (join.c, report*.c,           */
/* export_sqlite.c; Documentation/npu/reports.rst, sqlite.rst)          */
/* ------------------------------------------------------------------ */

/* Name of an NPU_OP_* opcode ("CONV2D", ...), or NULL when unknown */
const char *npf_opcode_name(uint32_t opcode);
/* Name of a LOST reason: "ring-full", "device", "host" or "unknown" */
const char *npf_lost_reason_name(uint32_t reason);
/* Name of an NPU_JOB_* status ("OK", "TIMEOUT", ...), or NULL when unknown */
const char *npf_job_status_name(uint32_t status);

/* "%016llx%016llx" of a trace id (33 bytes) and "%016llx" of a span id */
#define NPF_HEX_TRACE	33
#define NPF_HEX_SPAN	17
char *npf_hex_trace(char *buf, const uint64_t id[2]);
char *npf_hex_span(char *buf, uint64_t id);

/**
 * struct npf_dur - a device duration in host ns: @total == @run + @iowait
 * exactly (each converted from its ticks through the slope of the clock
 * fit piece of the start tick, or the nominal clock), signed
 * @ok: false when the device has no clock (no fit, no nominal frequency)
 *	or a value does not fit in int64_t
 * @err_ns: bound of the error of @total: the bounds of the mapped start
 *	and end added (conservative)
 */
struct npf_dur {
	bool ok;
	int64_t total;
	int64_t run;
	int64_t iowait;
	uint64_t err_ns;
};

/**
 * struct npf_exec_row - an EXEC record joined to its SUBMIT span
 * @rec: the record (a copy)
 * @dev: device index in the file
 * @minor: N of /dev/npuN (from the DEVICE event), UINT32_MAX unknown
 * @matched: a SUBMIT span of the same (minor, job_id) was found; then
 *	@trace_id, @span_id (the SUBMIT span's) and @parent_id (its parent,
 *	the inference) are set
 * @device: device times are valid (NPU_TRACE_EXEC_F_DEVICE)
 * @start: mapped start, @end: mapped end
 * @dur: durations (with @device)
 * @inconsistent: run_ticks + iowait_ticks != end_tick - start_tick
 * @violation: the mapped interval, widened by its bounds, is not inside
 *	the host submit..complete interval
 */
struct npf_exec_row {
	struct npu_trace_rec_exec rec;
	uint32_t dev;
	uint32_t minor;
	bool matched;
	bool device;
	bool inconsistent;
	bool violation;
	uint64_t trace_id[2];
	uint64_t span_id;
	uint64_t parent_id;
	struct npuprof_clock_map start;
	struct npuprof_clock_map end;
	struct npf_dur dur;
};

/**
 * struct npf_inf_row - an INFERENCE span with its executions
 * @span: the span
 * @executions: executions joined to its SUBMIT children
 * @npu_total_ns: sum of their NPU Total
 * @unmatched: SUBMIT children still without an execution when the row
 *	was emitted (at the end of the trace)
 */
struct npf_inf_row {
	struct npuprof_span_rec span;
	uint64_t executions;
	int64_t npu_total_ns;
	uint64_t unmatched;
};

/**
 * struct npf_op_row - an OP record with its durations
 * @rec: the record, in the reader's buffer
 * @dev: device index, @minor: its /dev/npuN (UINT32_MAX unknown)
 * @start: mapped start, @end: mapped end
 * @dur: @dur.total is end_tick - start_tick, @dur.iowait iowait_ticks
 *	and @dur.run the rest, converted as npf_dev_dur() does
 * @inconsistent: iowait_ticks > end_tick - start_tick, or end < start
 *	(then @dur.ok is false)
 */
struct npf_op_row {
	const struct npu_trace_rec_op *rec;
	uint32_t dev;
	uint32_t minor;
	bool inconsistent;
	struct npuprof_clock_map start;
	struct npuprof_clock_map end;
	struct npf_dur dur;
};

/* Receivers of the join's rows; a nonzero return stops the join. */
struct npf_join_ops {
	int (*exec)(void *ctx, const struct npf_exec_row *row);
	int (*inference)(void *ctx, const struct npf_inf_row *row);
	int (*op)(void *ctx, const struct npf_op_row *row);
};

/**
 * struct npf_join_stats - what the join saw
 * @execs: EXEC records
 * @matched: of them, joined to a SUBMIT span
 * @submits: SUBMIT spans with a job
 * @submits_unmatched: of them, without an execution at the end
 * @inferences: INFERENCE spans
 * @violations: executions outside their host interval
 * @checked: executions checked for it (device times and a valid fit)
 * @inconsistent: EXEC and OP records whose ticks do not add up
 * @max_pending: most entries the join held at once (its memory)
 */
struct npf_join_stats {
	uint64_t execs;
	uint64_t matched;
	uint64_t submits;
	uint64_t submits_unmatched;
	uint64_t inferences;
	uint64_t violations;
	uint64_t checked;
	uint64_t inconsistent;
	uint64_t max_pending;
};

struct npf_join;

/* A join over @trace's events; rows go to @ops (either may be NULL). */
int npf_join_new(const struct npuprof_trace *trace,
		 const struct npf_join_ops *ops, void *ctx,
		 struct npf_join **j);
/* Feed one event (any type); returns 0, -ENOMEM or what a receiver did */
int npf_join_event(struct npf_join *j, const struct npuprof_event *ev);
/* Emit what is still unmatched (executions without a SUBMIT span,
 * inferences waiting for theirs), then the stats are final. */
int npf_join_finish(struct npf_join *j);
const struct npf_join_stats *npf_join_stats(const struct npf_join *j);
/* Minor of device @dev as the DEVICE events told, UINT32_MAX unknown */
uint32_t npf_join_minor(const struct npf_join *j, uint32_t dev);
void npf_join_free(struct npf_join *j);

/*
 * npf_fit_slope() - ns a tick at @tick in @fit (with pieces): the slope of
 * the piece npf_clock_map() maps @tick with, the last one starting at or
 * before it (pieces are few)
 */
static inline double npf_fit_slope(const struct npf_clock_fit *fit,
				   uint64_t tick)
{
	uint32_t l = fit->nseg - 1;

	while (l && fit->seg[l].tick0 > tick)
		l--;
	return fit->seg[l].ns_per_tick;
}

/* @ticks * @slope rounded to the nearest ns (as llround() would: the range
 * is checked first); false if out of range */
static inline bool npf_ticks_ns(uint64_t ticks, double slope, int64_t *ns)
{
	double v = (double)ticks * slope;

	if (!(v >= 0) || v >= 9.2e18)
		return false;
	*ns = npf_round_i64(v);
	return true;
}

/*
 * npf_dur_at() - *@out: durations of @run_ticks and @iowait_ticks at
 * @slope ns a tick (not ok if @slope is not > 0 or a value is out of
 * range); the error bound is @start.err_ns + @end.err_ns (UINT64_MAX
 * without both). Inline: the timeline computes one for every record.
 */
static inline void npf_dur_at(double slope, uint64_t run_ticks,
			      uint64_t iowait_ticks,
			      const struct npuprof_clock_map *start,
			      const struct npuprof_clock_map *end,
			      struct npf_dur *out)
{
	*out = (struct npf_dur){ 0 };
	if (!(slope > 0) || !npf_ticks_ns(run_ticks, slope, &out->run) ||
	    !npf_ticks_ns(iowait_ticks, slope, &out->iowait) ||
	    __builtin_add_overflow(out->run, out->iowait, &out->total))
		return;
	out->ok = true;
	if (!start || !end || !start->valid || !end->valid ||
	    __builtin_add_overflow(start->err_ns, end->err_ns, &out->err_ns))
		out->err_ns = UINT64_MAX;
}

/*
 * npf_dev_dur() - npf_dur_at() for device @dev, with the slope at @tick
 * (nominal @clock_hz without a fit)
 */
void npf_dev_dur(const struct npuprof_trace *trace, uint32_t dev,
		 uint64_t clock_hz, uint64_t tick, uint64_t run_ticks,
		 uint64_t iowait_ticks, const struct npuprof_clock_map *start,
		 const struct npuprof_clock_map *end, struct npf_dur *out);

/* -- table writer (report_fmt.c) -- */

/* npf_col.type */
enum { NPF_COL_STR, NPF_COL_I64, NPF_COL_U64, NPF_COL_F64 };
/* npf_col.flags: left out of NPUPROF_FORMAT_TABLE (machine formats only) */
#define NPF_COL_DATA	1u

/* A column: its label, type, text width and flags */
struct npf_col {
	const char *name;
	uint8_t type;
	uint8_t flags;
	int width;
};

/* A value of a row; @null: no value (table "-", CSV empty, JSON null) */
struct npf_val {
	bool null;
	union {
		const char *s;
		int64_t i;
		uint64_t u;
		double f;
	};
};

struct npf_tw {
	FILE *out;
	unsigned int format;
	const struct npf_col *cols;
	unsigned int ncols;
	uint64_t rows;
	bool name_index;
};

/*
 * npf_tw_begin() - start a table of @ncols @cols in @format (TABLE, CSV,
 * JSONL or JSON) on @out; @name_index: the first column is the row label
 * (pandas' named index) instead of a row number
 */
void npf_tw_begin(struct npf_tw *w, FILE *out, unsigned int format,
		  const struct npf_col *cols, unsigned int ncols,
		  bool name_index);
void npf_tw_row(struct npf_tw *w, const struct npf_val *v);
void npf_tw_end(struct npf_tw *w);
/* @s as a JSON string (escaped, valid UTF-8) */
void npf_json_str(FILE *f, const char *s);

/*
 * npf_percentile() - the @pm-th permille (500: the median) of the @n > 0
 * sorted values @v: linear interpolation between the closest ranks
 * (numpy's default), rounded to the nearest integer, halves up; exact
 */
int64_t npf_percentile(const int64_t *v, size_t n, unsigned int pm);

/*
 * npf_trace_set_error() - make npuprof_trace_error() return "PATH: MSG"
 * (trace.c); used by the exporters for errors that are not the file's
 */
void npf_trace_set_error(struct npuprof_trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ */
/* The merged timeline (timeline.c) and the Chrome exporter            */
/* (export_chrome.c; Documentation/npu/export.rst)                      */
/* ------------------------------------------------------------------ */

/*
 * The reorder buffer: events copied into a bounded min-heap keyed by
 * (time, rank, longer span first, file order); the earliest is released
 * once more than @max_held are held or once it is more than @window_ns
 * older than the newest event pushed. An event without a time of its own
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

/* Default bounds of the timeline's reorder buffer (as npuprof dump's) */
#define NPF_TL_MAX_HELD		65536u
#define NPF_TL_WINDOW_NS	2000000000ll

/*
 * Synthetic ids of the timeline's tracks (all fit a uint32): host
 * processes and threads keep their pid and tid (< 2^22); device @dev is
 * process NPF_TL_DEV_PID + @dev, its PE p track tid NPF_TL_PE_TID + p, its
 * queue lane l tid NPF_TL_QUEUE_TID + l, its jobs without device times
 * (level 0 or no clock fit) lane l tid NPF_TL_HOSTJOB_TID + l; a host
 * span that does not nest on its thread goes to lane l > 0 of the thread,
 * tid + (l << NPF_TL_LANE_SHIFT); the capture sessions are thread
 * NPF_TL_SESSION_TID of process NPF_TL_SESSION_PID.
 */
#define NPF_TL_DEV_PID		0x40000000u
#define NPF_TL_SESSION_PID	0x3fffffffu
#define NPF_TL_SESSION_TID	1u
#define NPF_TL_PE_TID		1u
#define NPF_TL_QUEUE_TID	0x10000u
#define NPF_TL_HOSTJOB_TID	0x20000u
#define NPF_TL_LANE_SHIFT	22
#define NPF_TL_LANES		4	/* host span lanes per thread */
#define NPF_TL_QLANES		64	/* queue lanes per device */
#define NPF_TL_UTIL_BIN_NS	1000000	/* PE utilization bins */

enum npf_tl_kind {
	NPF_TL_SPAN = 1,	/* host span: @ev SPAN, @lane */
	NPF_TL_EXEC,		/* execution: @ev EXEC, @dur_dev, @violation */
	NPF_TL_OP,		/* operator: @ev OP, @dur_dev */
	NPF_TL_QUEUE,		/* queued: @ev EXEC, submit to device start */
	NPF_TL_FLOW_OUT,	/* flow start at a SUBMIT span: @id */
	NPF_TL_FLOW_IN,		/* flow end at its EXEC: @id */
	NPF_TL_COUNTER,		/* @name = @value / 10^@decimals */
	NPF_TL_INSTANT,		/* @name, @what, @ev (may be NULL) */
	NPF_TL_BEGIN,		/* a capture interval begins: @name */
	NPF_TL_END,		/* ... ends */
	NPF_TL_PROCESS,		/* at the end: process @pid @name @sort */
	NPF_TL_THREAD,		/* at the end: track @pid @tid @name @sort */
	NPF_TL_META,		/* at the end: @name = @text (META) */
	NPF_TL_FIT,		/* at the end: @ev CLOCK_FIT */
	NPF_TL_SUMMARY,		/* at the end: @ev SUMMARY */
};

/* npf_tl_item.what of NPF_TL_INSTANT */
enum npf_tl_instant {
	NPF_TL_I_LOST = 1,	/* @ev LOST record */
	NPF_TL_I_HOST_LOST,	/* @ev HOST_LOST */
	NPF_TL_I_VIOLATION,	/* @ev EXEC outside its host interval */
	NPF_TL_I_FIT,		/* @ev CLOCK_FIT with an anomaly */
	NPF_TL_I_UNMAPPED,	/* @ev first record of a device without fit */
};

/**
 * struct npf_tl_item - one item of the merged timeline
 * @kind: enum npf_tl_kind
 * @what: NPF_TL_INSTANT: enum npf_tl_instant
 * @pid: track: process (as exported)
 * @tid: track: thread (as exported)
 * @ts: CLOCK_MONOTONIC ns
 * @dur: ns (spans, executions, operators, queue intervals), >= 0
 * @ev: the event the item comes from, or NULL
 * @id: flows: the flow id, (minor + 1) << 48 | job_id (48 bits)
 * @name: display name (processes, threads, counters, instants, META key)
 * @text: META: the value
 * @value: counters: the value times 10^@decimals
 * @decimals: counters
 * @sort: processes and threads: sort index
 * @lane: spans: 0, or the lane it was moved to (it did not nest)
 * @device: EXEC: device times valid and mapped
 * @violation: EXEC: outside its host interval (an instant follows)
 * @minor: EXEC, OP: N of /dev/npuN, UINT32_MAX unknown
 * @dur_dev: EXEC, OP: durations from the device's ticks
 * @err_ns: EXEC, OP: error bound of the mapped start and end
 */
struct npf_tl_item {
	uint32_t kind;
	uint32_t what;
	uint32_t pid;
	uint32_t tid;
	int64_t ts;
	int64_t dur;
	const struct npuprof_event *ev;
	uint64_t id;
	const char *name;
	const char *text;
	int64_t value;
	int decimals;
	int sort;
	unsigned int lane;
	bool device;
	bool violation;
	uint32_t minor;
	struct npf_dur dur_dev;
	uint64_t err_ns;
};

typedef int (*npf_tl_fn)(void *ctx, const struct npf_tl_item *it);

/**
 * struct npf_tl_stats - what the timeline did
 * @events: events read
 * @items: items emitted
 * @max_held: most events the reorder buffer held
 * @late: events released after a later one (out of time order)
 * @lanes: host spans moved to another lane (they did not nest)
 * @violations: executions outside their host interval
 * @unmapped: device records without a clock fit (placed at host times,
 *	or, OP records, left out)
 * @untracked: threads or PEs beyond the tables (not named)
 */
struct npf_tl_stats {
	uint64_t events;
	uint64_t items;
	uint64_t max_held;
	uint64_t late;
	uint64_t lanes;
	uint64_t violations;
	uint64_t unmapped;
	uint64_t untracked;
};

/*
 * npf_second_cpu() - whether reading a trace may use a second thread:
 * NPUPROF_PIPELINE=1 in the environment and two CPUs or more in this
 * thread's affinity (the open's read-ahead, the export's pipeline)
 */
bool npf_second_cpu(void);

/*
 * npf_timeline_run() - rewind @trace and pass its merged timeline to
 * @fn, in time order within the reorder buffer's bounds (@max_held
 * events, @window_ns; 0: the defaults), then the names, sort indices,
 * metadata, fits and summary. Memory: the reorder buffer and tables
 * bounded in size, whatever the trace's length. With NPUPROF_PIPELINE=1
 * and two CPUs or more, @fn is mostly called from a second
 * thread of the run's, never from two threads at once, always in the
 * same order as with one thread; the run joins it before it returns.
 * Return: 0, -ENOMEM, -EBADMSG (npuprof_trace_error()), -errno of read,
 * or the first nonzero value of @fn.
 */
int npf_timeline_run(struct npuprof_trace *trace, size_t max_held,
		     int64_t window_ns, npf_tl_fn fn, void *ctx,
		     struct npf_tl_stats *stats);

/* ------------------------------------------------------------------ */
/* Analysis: analyze, the latency breakdown, diff (analyze.c,           */
/* breakdown.c, diff.c, amap.c; Documentation/npu/analysis.rst)         */
/* ------------------------------------------------------------------ */

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

/* The parts of an inference's latency, in their order of precedence */
enum npf_bd_part {
	NPF_BD_CPU_OPS = 0,	/* Quantize, Lower, Unlower, Dequantize */
	NPF_BD_HOST,		/* the wall outside the WAIT spans */
	NPF_BD_QUEUE,		/* submit_ns .. device start */
	NPF_BD_RUN,		/* device start .. end, Run's share */
	NPF_BD_IOWAIT,		/* ... IoWait's share */
	NPF_BD_DELIVERY,	/* device end .. complete_ns */
	NPF_BD_WAKEUP,		/* complete_ns .. end of the WAIT span */
	NPF_BD_UNKNOWN,		/* waiting that no device record explains */
	NPF_BD_NPARTS,
};

/* Display name ("CPU operators", ...) and key ("cpu_ops_ns", ...) */
const char *npf_bd_part_name(unsigned int part);
const char *npf_bd_part_key(unsigned int part);

/**
 * struct npf_bd_row - the breakdown of one inference
 * @span: its INFERENCE span
 * @wall: end_ns - start_ns; == the sum of @part, exactly
 * @part: ns per enum npf_bd_part
 * @executions: executions joined to it
 * @waits: its WAIT spans
 */
struct npf_bd_row {
	struct npuprof_span_rec span;
	int64_t wall;
	int64_t part[NPF_BD_NPARTS];
	uint32_t executions;
	uint32_t waits;
};

/**
 * struct npf_bd_totals - the breakdown over a trace
 * @inferences: rows
 * @wall: their walls added; == the sum of @part
 * @part: their parts added
 * @host_busy: ns during which an inference was open and not waiting
 *	(more INFERENCE than WAIT spans open), over the whole trace
 * @npu_busy: ns during which an execution ran (mapped device times)
 * @npu_idle_host_busy: of @host_busy, ns with no execution running
 * @late: spans and executions of an inference already reported, or of
 *	none (left out)
 * @max_pending: most inferences held at once (the memory)
 */
struct npf_bd_totals {
	uint64_t inferences;
	int64_t wall;
	int64_t part[NPF_BD_NPARTS];
	int64_t host_busy;
	int64_t npu_busy;
	int64_t npu_idle_host_busy;
	uint64_t late;
	uint64_t max_pending;
};

typedef int (*npf_bd_fn)(void *ctx, const struct npf_bd_row *row);

/*
 * npf_breakdown_run() - rewind @trace, pass the breakdown of each
 * inference to @fn (may be NULL) as soon as it is complete, and fill
 * *@tot. Return: 0, -ENOMEM, -EBADMSG, -errno, or what @fn returned.
 */
int npf_breakdown_run(struct npuprof_trace *trace, npf_bd_fn fn, void *ctx,
		      struct npf_bd_totals *tot);

/**
 * struct npf_an_row - a row of npuprof analyze: one operator record or
 * host span, or the aggregate of a type
 * @name: opcode name ("CONV2D", "OP_<n>") or span kind ("Quantize", ...)
 * @npu: an NPU operator (else a host span)
 * @count: records in the row
 * @self: self time, ns (an operator: its Total; a span: its duration
 *	less its children's)
 * @macs, @bytes: MACs and bytes moved (NPU operators)
 * @peak_macs_s: the device's peak MAC/s (macs_per_cycle * clock_hz), 0
 *	unknown
 * @minor, @job_id, @op_index, @pe: a record's (UINT32_MAX/0 otherwise)
 * @start: a record's start, ns (0 for aggregates)
 */
struct npf_an_row {
	char name[32];
	bool npu;
	uint64_t count;
	int64_t self;
	uint64_t macs;
	uint64_t bytes;
	double peak_macs_s;
	uint32_t minor;
	uint64_t job_id;
	uint32_t op_index;
	uint32_t pe;
	int64_t start;
};

/*
 * npf_analyze_rows() - the rows of npuprof analyze for @o, filtered,
 * aggregated, ordered and cut to o->top, into a malloc'ed array *@rows of
 * *@n; *@total is the self time of every row that passed the filters.
 * Return: 0, -EINVAL (a bad option), -ENOMEM, -EBADMSG, -errno.
 */
int npf_analyze_rows(struct npuprof_trace *trace,
		     const struct npuprof_analyze_opts *o,
		     struct npf_an_row **rows, size_t *n, int64_t *total);

#endif /* NPUPROF_INT_H */
