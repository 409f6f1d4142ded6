/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trace_format.h - the .npuprof trace file (Documentation/npu/trace-file.rst):
 * the file and chunk headers and the item bodies. The contract between the
 * capture library, which writes it, and the analysis library, which reads
 * it; nothing else.
 */
#ifndef NPF_TRACE_FORMAT_H
#define NPF_TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/npu.h>
#include "npuprof.h"

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
 * @hdr_crc: CRC-32 (zlib's) of the header's first NPF_CHUNK_HDR_CRC_LEN
 *	bytes (@magic to @items); 0: the header is not protected (a writer
 *	before the header CRC, which wrote 0 here)
 */
struct npf_chunk_hdr {
	uint32_t magic;
	uint32_t hdr_size;
	uint64_t seq;
	uint32_t size;
	uint32_t crc;
	uint32_t items;
	uint32_t hdr_crc;
};

/* Bytes of a chunk header that @hdr_crc covers: all the fields before it */
#define NPF_CHUNK_HDR_CRC_LEN	offsetof(struct npf_chunk_hdr, hdr_crc)

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
	NPF_ITEM_MODEL = 14,	/* struct npf_item_model + program + layers */
	NPF_ITEM_SPANS = 15,	/* struct npf_item_spans + struct npf_span_c */
	NPF_ITEM_HOST_CLOCK = 16, /* struct npf_item_host_clock + samples */
	NPF_ITEM_TYPE_MAX = 16,
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
 * MODEL: a model the process loaded (npuprof_model_register()), once per
 * session: its id (nonzero, unique in the process; the SUBMIT spans of
 * its jobs carry it with NPUPROF_SPAN_F_MODEL), its slot plan (@n_slots
 * buffer slots of the job, @slot_size bytes and @slot_kind
 * NPU_MODEL_SLOT_* each, 0 unknown) and its program verbatim (@prog_size
 * bytes: struct npu_prog_hdr, tensor table, operator table, as
 * include/npu/npu_program.h lays them out; the constants are not stored).
 * When the model has a layer table, zeros pad the program to a multiple
 * of 8 bytes and the table follows verbatim (include/npu/
 * npu_model_layers.h; it starts with NPU_LAYERS_MAGIC and runs to the end
 * of the body, at most NPUPROF_MODEL_MAX_LAYERS bytes); without one the
 * body ends with the program (and the item's zero padding).
 */
#define NPF_MODEL_MAX_SLOTS	16
#define NPF_MODEL_NAME_LEN	32

struct npf_item_model {
	uint32_t model_id;
	int32_t pid;
	char name[NPF_MODEL_NAME_LEN];	/* NUL-terminated */
	uint32_t n_slots;		/* 1..NPF_MODEL_MAX_SLOTS */
	uint32_t prog_size;
	uint64_t slot_size[NPF_MODEL_MAX_SLOTS];
	uint32_t slot_kind[NPF_MODEL_MAX_SLOTS];
	/* the program follows */
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

/*
 * SPANS: @count host spans of thread @tid of @pid, packed (trace-file.rst,
 * "SPANS"): what the capture library writes for the spans of its own
 * threads. Each struct npf_span_c holds its start and span id as signed
 * deltas from the previous span's of the item (the first's from @time and
 * @span_id), its duration, and its parent and the root of its trace as
 * distances back from its own id; its trace id is { @trace_hi, that root's
 * id }. Job, operator and model fields are 0 (spans with them, and those
 * of another process's trace, are SPAN items). Times are
 * in @clock's unit: NPF_SPANS_CLOCK_MONOTONIC, nanoseconds of
 * CLOCK_MONOTONIC; NPF_SPANS_CLOCK_TSC, the host's TSC, which the reader
 * maps to CLOCK_MONOTONIC with the fit of the file's HOST_CLOCK samples.
 */
#define NPF_SPANS_CLOCK_MONOTONIC	0
#define NPF_SPANS_CLOCK_TSC		1

struct npf_item_spans {
	int32_t pid;
	int32_t tid;
	uint32_t count;
	uint32_t clock;		/* NPF_SPANS_CLOCK_* */
	uint64_t time;		/* base of the first span's start */
	uint64_t span_id;	/* base of the first span's id */
	uint64_t trace_hi;	/* trace_id[0] of every span of the item */
	/* @count struct npf_span_c follow */
};

/**
 * struct npf_span_c - one span of a SPANS item, 24 bytes
 * @start_delta: start - the previous span's start (the first: - @time)
 * @dur: end - start
 * @id_delta: span id - the previous span's id (the first: - @span_id)
 * @parent_back: span id - parent id; 0: a root span (parent_id 0)
 * @trace_back: span id - trace_id[1] (0: the span starts its trace)
 * @kind: enum npuprof_span_kind
 * @flags: NPUPROF_SPAN_F_* (never _JOB, _OP or _MODEL)
 * @rsvd: 0
 * @name_id: as in struct npuprof_span_rec
 */
struct npf_span_c {
	int32_t start_delta;
	uint32_t dur;
	int32_t id_delta;
	uint32_t parent_back;
	uint32_t trace_back;
	uint8_t kind;
	uint8_t flags;
	uint16_t rsvd;
	uint32_t name_id;
};

/*
 * HOST_CLOCK: @count bracketed samples of host clock @clock
 * (NPF_SPANS_CLOCK_TSC; struct npf_clock_sample: CLOCK_MONOTONIC before,
 * the TSC, CLOCK_MONOTONIC after), taken by the session at its start,
 * about every 2^28 ticks while it runs, and at its stop
 */
struct npf_item_host_clock {
	uint32_t clock;
	uint32_t count;
	/* @count struct npf_clock_sample follow */
};

/* Flags a span of a SPANS item never has */
#define NPF_SPANS_NOT_FLAGS	(NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_OP | \
				 NPUPROF_SPAN_F_MODEL)

/* Minimum body size of each known item type (index: type), 0: unknown */
extern const uint32_t npf_item_min_body[NPF_ITEM_TYPE_MAX + 1];

/* One bracketed sample: the device latched @tick in [@before, @after] */
struct npf_clock_sample {
	uint64_t before_ns;
	uint64_t tick;
	uint64_t after_ns;
};

#endif /* NPF_TRACE_FORMAT_H */
