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
	NPF_ITEM_TYPE_MAX = 12,
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

/* SUMMARY: totals of the session, at the end */
struct npf_item_summary {
	uint64_t spans;
	uint64_t spans_lost;
	uint64_t records;
	uint64_t lost_ring;
	uint64_t lost_device;
	uint64_t lost_host;
	uint64_t ring_errors;
	uint64_t violations;
	uint64_t start_ns;
	uint64_t stop_ns;
};

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

/* END: last item of a complete file */
struct npf_item_end {
	uint64_t chunks;	/* chunks before the one holding this item */
	uint64_t items;		/* items before this one */
};

/* Minimum body size of each known item type (index: type), 0: unknown */
extern const uint32_t npf_item_min_body[NPF_ITEM_TYPE_MAX + 1];

/* CRC-32 of zlib (polynomial 0xedb88320), @crc 0 to start */
uint32_t npf_crc32(uint32_t crc, const void *data, size_t len);

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

/* npf_writer_flush() - write the current chunk if it holds any item */
int npf_writer_flush(struct npf_writer *w);

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
};

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

/* The clock fit of device @dev of an open trace, or NULL (trace.c) */
const struct npf_clock_fit *npf_trace_fit(const struct npuprof_trace *t,
					  uint32_t dev);

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

#endif /* NPUPROF_INT_H */
