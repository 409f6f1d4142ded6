/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npuprof_analysis.h - libnpuprof-analysis: read .npuprof trace files,
 * map device times to host time, merge them into one timeline, export it
 * (Chrome JSON, SQLite) and report on it (summary, tables, analyze, the
 * latency breakdown, diff). The CLI, the Python package, the benchmarks
 * and the tests use it; a profiled program never loads it.
 *
 * The file's host span records and their kinds (struct npuprof_span_rec,
 * enum npuprof_span_kind) are the capture library's, declared in
 * npuprof.h, which this header includes; using them needs no libnpuprof.
 *
 * Conventions as in npuprof.h: opaque handles, negative errno returns,
 * errno untouched, options structs that start with their size.
 * Documentation/npu/libraries.rst says what each library holds.
 */
#ifndef NPUPROF_ANALYSIS_H
#define NPUPROF_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "npuprof.h"

#ifdef __cplusplus
extern "C" {
#endif

struct npuprof_trace;

/* ------------------------------------------------------------------ */
/* Reading trace files                                                  */
/* ------------------------------------------------------------------ */

/* npuprof_event.type */
enum npuprof_event_type {
	NPUPROF_EV_META = 1,		/* key = value metadata */
	NPUPROF_EV_DEVICE = 2,		/* a traced device */
	NPUPROF_EV_SPAN = 3,		/* a host span */
	NPUPROF_EV_RECORD = 4,		/* a raw ring record of a device */
	NPUPROF_EV_SESSION = 5,		/* start, pause, resume, stop */
	NPUPROF_EV_HOST_LOST = 6,	/* host spans dropped by a thread */
	NPUPROF_EV_CLOCK_FIT = 7,	/* the fit of a device, at the end */
	NPUPROF_EV_SUMMARY = 8,		/* the totals, at the end */
	NPUPROF_EV_STRING = 9,		/* a string table entry */
	NPUPROF_EV_THREAD = 10,		/* a thread's name */
};


/**
 * struct npuprof_clock_map - a device time mapped to host time
 * @ns: CLOCK_MONOTONIC ns (signed: a tick before the fit's origin may
 *	map before the epoch of CLOCK_MONOTONIC and is still exact)
 * @err_ns: bound of the error of @ns
 * @valid: 0 when the device has no usable clock fit
 */
struct npuprof_clock_map {
	int64_t ns;
	uint64_t err_ns;
	int valid;
};


/**
 * struct npuprof_event - one item of a trace file
 * @type: enum npuprof_event_type
 * @offset: file offset of the item
 * @time_ns: the item's time (span start, record's mapped start or host
 *	time, metadata 0), CLOCK_MONOTONIC ns; used to order a dump
 * @dev: device index in the file (DEVICE, RECORD, CLOCK_FIT)
 * @key: META: the key; DEVICE: the device node; STRING: the text;
 *	THREAD: the name; CLOCK_FIT: "reader" when the reader computed it,
 *	NULL when the file holds it
 * @value: META: the value
 * @span: SPAN: the span
 * @label: SPAN of kind NPUPROF_SPAN_LABEL: its text, else NULL
 * @rec: RECORD: the ring record, verbatim (struct npu_trace_rec_hdr
 *	first; its size field gives the length)
 * @start: RECORD of an EXEC or OP with device times: mapped start
 * @end: RECORD of an EXEC or OP with device times: mapped end
 * @info: DEVICE: struct npu_info of linux/npu.h, @info_size bytes
 * @info_size: bytes at @info
 * @session_op: SESSION: NPUPROF_SESSION_*
 * @count: HOST_LOST: spans dropped; CLOCK_FIT, SUMMARY: causality
 *	violations
 * @id: STRING: the id; THREAD, HOST_LOST: the tid
 * @pid: THREAD, HOST_LOST: the process
 * @fit: CLOCK_FIT: a device's clock fit: slope (ns per tick), host ns at
 *	tick 0, error bound, samples seen and kept, pieces, executions
 *	checked and found outside their host interval. A file written
 *	since the capture and analysis libraries were split holds none:
 *	the reader gives its own fits and causality check there, one
 *	CLOCK_FIT per device just before the SUMMARY (@key "reader");
 *	older files hold the writer's (@key NULL)
 * @summary: SUMMARY: the session's totals; in a file without CLOCK_FIT
 *	items, @summary.violations is the reader's count
 *
 * Pointers stay valid until the next npuprof_trace_next() call.
 */
struct npuprof_event {
	uint32_t type;
	uint32_t dev;
	uint64_t offset;
	int64_t time_ns;
	const char *key;
	const char *value;
	const struct npuprof_span_rec *span;
	const char *label;
	const void *rec;
	struct npuprof_clock_map start;
	struct npuprof_clock_map end;
	const void *info;
	uint32_t info_size;
	uint32_t session_op;
	uint64_t count;
	uint64_t id;
	int32_t pid;
	struct {
		double ns_per_tick;
		double offset_ns;
		uint64_t err_ns;
		uint32_t samples;
		uint32_t used;
		uint32_t segments;
		uint64_t checked;
		uint64_t violations;
	} fit;
	struct npuprof_summary summary;
};

/**
 * npuprof_trace_open() - open a trace file for reading
 * @path: the .npuprof file
 * @trace: out: the reader
 * @err: buffer for a one-line message naming @path, the file offset and
 *	what was wrong, or NULL
 * @errlen: bytes of @err
 *
 * Checks the file header, then reads the clock samples of every device
 * and fits the device clocks, so that events carry mapped host times: from
 * the index at the end of a file a session completed (its last chunks
 * alone), else from a first pass over the file that keeps only them (a
 * file cut short, or of an older writer). Memory stays bounded by the
 * chunk size and the number of clock samples, whatever the length of the
 * trace.
 *
 * Return: 0; -errno of open(); -ENOEXEC for a file that is not a trace
 * file; -EPROTONOSUPPORT for an unknown version; -EBADMSG for a corrupt
 * header; -ENOMEM.
 */
int npuprof_trace_open(const char *path, struct npuprof_trace **trace,
		       char *err, size_t errlen);

/**
 * npuprof_trace_next() - the next event, in file order
 * @trace: the reader
 * @ev: out: the event
 *
 * A file cut short (a killed process) ends at its last complete chunk:
 * the call then returns 0 and npuprof_trace_truncated() tells. A damaged
 * chunk (one that fails its header or payload CRC, or another check of
 * its header) is skipped, and the events go on from the next sound chunk:
 * npuprof_trace_damage() counts what was skipped.
 *
 * Return: 1 with an event, 0 at the end, -EBADMSG on a corrupt item
 * inside a chunk whose CRC matched (a writer's bug; the message, with its
 * file offset, is in npuprof_trace_error()), -errno of read().
 */
int npuprof_trace_next(struct npuprof_trace *trace, struct npuprof_event *ev);

/**
 * npuprof_trace_error() - the last error message of a reader
 * @trace: the reader
 *
 * Return: a message naming the file and offset, or "" when none.
 */
const char *npuprof_trace_error(const struct npuprof_trace *trace);

/**
 * npuprof_trace_truncated() - whether the file ended without its trailer
 * @trace: a reader that reached the end
 *
 * Return: 1 when the file stops before its end marker (the writer was
 * killed), else 0.
 */
int npuprof_trace_truncated(const struct npuprof_trace *trace);

/**
 * npuprof_trace_skipped() - what the reader left out of the part of the
 * file read so far: damaged MODEL items (skipped whole) and bad layer
 * tables (dropped, their model kept)
 * @trace: the reader
 * @last: out (or NULL): the last one's message, "PATH: offset N: model:
 *	why" or "PATH: offset N: model M: layer table: why"; "" when none
 *
 * Each is counted once however often the file is read again.
 *
 * Return: how many.
 */
uint64_t npuprof_trace_skipped(const struct npuprof_trace *trace,
			       const char **last);

/**
 * struct npuprof_damage - the damaged parts of a trace file a reader
 * skipped (Documentation/npu/trace-file.rst, "Reading a damaged file")
 * @stretches: places where the reader met a chunk that failed a check and
 *	found the next sound chunk further on (or the end of the file)
 * @chunks: chunks skipped, by the chunk numbers around each stretch; a
 *	stretch that runs to the end of the file counts the chunks whose
 *	headers were still sound, at least 1
 * @bytes: bytes of the file skipped
 * @items: items the skipped chunks held, of those whose header was sound
 *	(its CRC matched; or, without a header CRC, the next sound chunk is
 *	where it says): events, but for a RECORDS item, which holds several
 *	ring records
 * @items_unknown: of @chunks, those whose item count is unknown (their
 *	header was damaged too)
 * @first_offset: file offset where the first stretch starts
 * @last_offset: where the last one starts
 */
struct npuprof_damage {
	uint64_t stretches;
	uint64_t chunks;
	uint64_t bytes;
	uint64_t items;
	uint64_t items_unknown;
	uint64_t first_offset;
	uint64_t last_offset;
};

/**
 * npuprof_trace_damage() - what the reader skipped of the part of the file
 * read so far because it was damaged: whole chunks (a byte flipped in a
 * chunk's header or payload fails its CRC)
 * @trace: the reader
 * @out: out (or NULL): the counts, zeroed when nothing was skipped
 * @why: out (or NULL): what was wrong where the first stretch starts,
 *	without the file name or offset ("chunk crc 0x1c9a44e0, its payload
 *	has 0x83f0e2d1"); "" when nothing was skipped
 *
 * The reader skips a damaged chunk and goes on from the next sound one,
 * so the events of every other chunk are read, in order; the reports,
 * exports and the tool then succeed (the tool with a warning) and say so
 * in their totals or metadata. Each stretch is counted once however often
 * the file is read again. Damaged MODEL items inside sound chunks are
 * npuprof_trace_skipped()'s, not counted here.
 *
 * Return: @out->stretches: 0 when nothing was skipped.
 */
uint64_t npuprof_trace_damage(const struct npuprof_trace *trace,
			      struct npuprof_damage *out, const char **why);

/**
 * npuprof_trace_rewind() - start over from the first event
 * @trace: the reader
 *
 * Return: 0 or -errno of lseek().
 */
int npuprof_trace_rewind(struct npuprof_trace *trace);

/**
 * npuprof_trace_map() - map a device tick to host time
 * @trace: the reader
 * @dev: device index in the file
 * @tick: device clock ticks
 * @out: out: the mapping
 *
 * Return: 0, or -ENOENT for an unknown device.
 */
int npuprof_trace_map(const struct npuprof_trace *trace, uint32_t dev,
		      uint64_t tick, struct npuprof_clock_map *out);

/**
 * npuprof_trace_close() - close a reader
 * @trace: the reader, or NULL
 */
void npuprof_trace_close(struct npuprof_trace *trace);

/**
 * npuprof_span_kind_name() - display name of a span kind
 * @kind: enum npuprof_span_kind
 *
 * Return: "Quantize", "Lower", "submit", ... or "unknown".
 */
const char *npuprof_span_kind_name(unsigned int kind);

/* ------------------------------------------------------------------ */
/* Analysis: the timeline, exports and reports (issue 9)                */
/* ------------------------------------------------------------------ */

/*
 * These functions read a trace file through a reader opened with
 * npuprof_trace_open(); each rewinds it first and leaves it at its end.
 * Memory is bounded independent of the trace's length, except where a
 * function says otherwise (exact percentiles keep one number per
 * inference).
 */

/* Output formats */
enum npuprof_format {
	NPUPROF_FORMAT_TABLE = 1,	/* aligned text, as the reference docs */
	NPUPROF_FORMAT_CSV = 2,		/* RFC 4180, a header line */
	NPUPROF_FORMAT_JSONL = 3,	/* one JSON object per line */
	NPUPROF_FORMAT_JSON = 4,	/* one JSON document */
	NPUPROF_FORMAT_CHROME = 5,	/* Chrome Trace Event JSON */
	NPUPROF_FORMAT_SQLITE = 6,	/* a SQLite database file */
	NPUPROF_FORMAT_ROWS = 7,	/* typed rows to a row sink, no text */
	NPUPROF_FORMAT_WIDE = 8,	/* TABLE with every column (shapes) */
};

/* Tables */
enum npuprof_table {
	NPUPROF_TABLE_INFERENCES = 1,	/* one row per inference */
	NPUPROF_TABLE_EXECUTIONS = 2,	/* one row per NPU execution */
	NPUPROF_TABLE_OPERATORS = 3,	/* NPU operators, aggregated */
	NPUPROF_TABLE_EXTERNAL = 4,	/* CPU (external) operators */
	NPUPROF_TABLE_SPANS = 5,	/* every host span */
	NPUPROF_TABLE_OP_RECORDS = 6,	/* every NPU operator execution */
};

/**
 * npuprof_table_name() - the short name of a table, as npuprof export
 * names its files and the Python package its getters
 * @table: enum npuprof_table
 *
 * Return: "inferences", "executions", "operators", "external", "spans"
 * or "op_records"; NULL for a table this library does not know (the
 * tables are numbered from 1 without gaps: loop until NULL).
 */
const char *npuprof_table_name(unsigned int table);

/**
 * struct npuprof_export_opts - options of the exporters
 * @sz: sizeof(struct npuprof_export_opts)
 * @flags: 0
 */
struct npuprof_export_opts {
	size_t sz;
	unsigned int flags;
};

/* npuprof_column.type */
enum npuprof_col_type {
	NPUPROF_COL_STR = 0,	/* npuprof_value.s, UTF-8 (not checked) */
	NPUPROF_COL_I64 = 1,	/* npuprof_value.i */
	NPUPROF_COL_U64 = 2,	/* npuprof_value.u */
	NPUPROF_COL_F64 = 3,	/* npuprof_value.f */
};

/**
 * struct npuprof_column - a column of a table given to a row sink
 * @name: the label, as the CSV header has it
 * @type: enum npuprof_col_type
 */
struct npuprof_column {
	const char *name;
	unsigned int type;
};

/**
 * struct npuprof_value - a cell of a row given to a row sink
 * @null: no value (CSV empty, JSON null); the union is then undefined
 * @s: NPUPROF_COL_STR, valid during the call only
 * @i: NPUPROF_COL_I64
 * @u: NPUPROF_COL_U64
 * @f: NPUPROF_COL_F64
 */
struct npuprof_value {
	bool null;
	union {
		const char *s;
		int64_t i;
		uint64_t u;
		double f;
	};
};

/**
 * struct npuprof_row_sink - where NPUPROF_FORMAT_ROWS puts a table: the
 *	cells of each row, typed, as the text formats would print them
 *	(every column, those of the machine formats included), with no text
 *	made or parsed between (the Python package fills its DataFrames so)
 * @columns: called once per table before its rows, with the table
 *	(enum npuprof_table; 0 for npuprof_analyze(), npuprof_diff() and
 *	npuprof_print_breakdown()) and its @ncols columns; the array lives
 *	until the call returns
 * @row: called for each row with @ncols values, in the columns' order
 * @ctx: passed to both
 *
 * A callback that returns non-zero stops the function, which returns
 * that value (a negative errno, by convention). The callbacks run on the
 * caller's thread, inside the library: they must not call it again on
 * the same trace.
 */
struct npuprof_row_sink {
	int (*columns)(void *ctx, unsigned int table,
		       const struct npuprof_column *cols, unsigned int ncols);
	int (*row)(void *ctx, unsigned int table,
		   const struct npuprof_value *vals);
	void *ctx;
};

/**
 * struct npuprof_report_opts - options of the reports: npuprof_report(),
 *	npuprof_print_summary(), npuprof_print_breakdown(), npuprof_diff()
 * @sz: sizeof(struct npuprof_report_opts); set by
 *	npuprof_report_opts_init() or NPUPROF_REPORT_OPTS()
 * @format: enum npuprof_format; 0 is NPUPROF_FORMAT_TABLE. Each function
 *	says which it writes
 * @table: npuprof_report(): enum npuprof_table; 0 is
 *	NPUPROF_TABLE_INFERENCES
 * @min_delta_ns: npuprof_diff(): changes smaller than this (absolute) do
 *	not count in its *worst_pct
 * @sink: NPUPROF_FORMAT_ROWS: where the rows go (then @out may be NULL)
 * @tables: npuprof_report() with NPUPROF_FORMAT_ROWS: a mask of tables
 *	(1u << enum npuprof_table) given to @sink in one pass over the
 *	trace, in place of @table; 0: @table alone
 *
 * A caller built against an older header passes a smaller @sz, and the
 * fields it lacks keep their defaults; a larger one is refused with -E2BIG
 * unless the bytes this library does not know are 0 (as libbpf does).
 */
struct npuprof_report_opts {
	size_t sz;
	unsigned int format;
	unsigned int table;
	int64_t min_delta_ns;
	const struct npuprof_row_sink *sink;
	unsigned int tables;
};

/*
 * NPUPROF_REPORT_OPTS() - a pointer to report options built in place,
 * @sz set: npuprof_report(t, stdout, NPUPROF_REPORT_OPTS(.table =
 * NPUPROF_TABLE_OPERATORS, .format = NPUPROF_FORMAT_CSV))
 */
#define NPUPROF_REPORT_OPTS(...)					\
	(&(const struct npuprof_report_opts){				\
		.sz = sizeof(struct npuprof_report_opts), __VA_ARGS__ })

/**
 * npuprof_report_opts_init() - fill @opts with the defaults
 * @opts: the options to initialize
 *
 * Sets @sz, the aligned text format, the inferences table, min_delta_ns 0.
 */
void npuprof_report_opts_init(struct npuprof_report_opts *opts);

/**
 * npuprof_export_chrome() - write the merged timeline as Chrome Trace
 * Event JSON (Perfetto UI, chrome://tracing, speedscope)
 * @trace: an open trace
 * @out: the stream to write to
 * @opts: options, or NULL
 *
 * Return: 0, -EBADMSG for a corrupt trace (npuprof_trace_error() tells),
 * -EIO when writing fails.
 */
int npuprof_export_chrome(struct npuprof_trace *trace, FILE *out,
			  const struct npuprof_export_opts *opts);

/**
 * npuprof_report() - write one table
 * @trace: an open trace
 * @out: the stream to write to (NULL with NPUPROF_FORMAT_ROWS)
 * @opts: @opts->table (enum npuprof_table) in @opts->format
 *	(NPUPROF_FORMAT_TABLE, _WIDE, _CSV, _JSONL or _JSON), or NULL: the
 *	inferences as aligned text; or with NPUPROF_FORMAT_ROWS, the rows of
 *	@opts->table, or of every table in @opts->tables, to @opts->sink
 *
 * Return: 0, -EINVAL for a table or format it does not know, -E2BIG
 * (options of a newer library), -EBADMSG, -EIO, or what the sink
 * returned.
 */
int npuprof_report(struct npuprof_trace *trace, FILE *out,
		   const struct npuprof_report_opts *opts);

/**
 * npuprof_print_summary() - the summary of the reference docs: inference
 * count, min, max, mean, median and the 90/95/97/99/99.9 percentiles (ns,
 * exact), and the totals of the trace
 * @trace: an open trace
 * @out: the stream to write to
 * @opts: @opts->format NPUPROF_FORMAT_TABLE or _JSON, or NULL (a table)
 *
 * Return: as npuprof_report().
 */
int npuprof_print_summary(struct npuprof_trace *trace, FILE *out,
			  const struct npuprof_report_opts *opts);

/**
 * npuprof_export_sqlite() - write every table into a new SQLite database
 * (Documentation/npu/sqlite.rst gives the schema)
 * @trace: an open trace
 * @path: the database file, created (an existing one is replaced)
 *
 * Return: 0, -EBADMSG, -EIO (with the SQLite message in
 * npuprof_trace_error()).
 */
int npuprof_export_sqlite(struct npuprof_trace *trace, const char *path);

/*
 * Analysis (Documentation/npu/analysis.rst): npuprof analyze, the latency
 * breakdown of each inference, and the diff of two traces.
 */

/* npuprof_analyze_opts.aggregate */
enum npuprof_aggregate {
	NPUPROF_AGG_NONE = 0,	/* one row per record or span */
	NPUPROF_AGG_SUM = 1,	/* one row per type: sums */
	NPUPROF_AGG_MEAN = 2,	/* ... means */
	NPUPROF_AGG_MAX = 3,	/* ... the record with the longest self time */
	NPUPROF_AGG_MIN = 4,	/* ... the record with the shortest */
};

/* npuprof_analyze_opts.aggregate_by: what a row of an aggregate is */
enum npuprof_aggregate_by {
	NPUPROF_AGG_BY_TYPE = 0,	/* opcode or span kind */
	NPUPROF_AGG_BY_LAYER = 1,	/* NPU operators: their layer name */
	NPUPROF_AGG_BY_SHAPE = 2,	/* ... their op_type and in_shapes */
};

/**
 * struct npuprof_analyze_opts - what npuprof_analyze() prints
 * @sz: sizeof(struct npuprof_analyze_opts); set by
 *	npuprof_analyze_opts_init()
 * @top: rows printed, 0 for all (without aggregation every record is
 *	then kept in memory)
 * @types: NULL-terminated list of types to keep ("CONV2D", "Quantize",
 *	"npu" for every NPU operator, "host" for every span, or a layer
 *	name; case does not matter), or NULL for all
 * @aggregate: enum npuprof_aggregate (by @aggregate_by)
 * @order_by: column to sort by: "time" (self time, the default), "macs",
 *	"gmacs", "peak", "bytes", "gbps", "count", "name", "iowait",
 *	"contended" or "excess"; a "+" prefix
 *	sorts ascending, else descending; NULL: "time"
 * @min_ns: keep records whose self time is at least this
 * @max_ns: ... and at most this (negative: no limit)
 * @format: NPUPROF_FORMAT_TABLE (0 too), _WIDE, _CSV, _JSONL, _JSON or
 *	_ROWS
 * @sink: NPUPROF_FORMAT_ROWS: where the rows go (then @out may be NULL)
 * @aggregate_by: enum npuprof_aggregate_by: with @aggregate, one row per
 *	type (0), or per layer name or per op_type and in_shapes of the
 *	NPU operators whose model has a layer table (the other operators
 *	and the host spans stay by type)
 */
struct npuprof_analyze_opts {
	size_t sz;
	unsigned int top;
	const char *const *types;
	unsigned int aggregate;
	const char *order_by;
	int64_t min_ns;
	int64_t max_ns;
	unsigned int format;
	const struct npuprof_row_sink *sink;
	unsigned int aggregate_by;
};

/**
 * npuprof_analyze_opts_init() - fill @opts with the defaults
 * @opts: the options to initialize
 *
 * Sets @sz, top 20, every type, no aggregation, order by self time, no
 * time limits (max_ns -1), aligned text.
 */
void npuprof_analyze_opts_init(struct npuprof_analyze_opts *opts);

/**
 * npuprof_analyze() - MegEngine's profile_analyze over NPU operators (OP
 * records) and host spans: self time, cumulative time, MACs, GMAC/s and
 * the percentage of the device's peak, bytes moved and GB/s
 * @trace: an open trace
 * @out: the stream to write to
 * @opts: options (npuprof_analyze_opts_init() first), or NULL
 *
 * Return: 0, -EINVAL (a bad option or format), -EBADMSG, -EIO, -ENOMEM.
 */
int npuprof_analyze(struct npuprof_trace *trace, FILE *out,
		    const struct npuprof_analyze_opts *opts);

/**
 * npuprof_print_breakdown() - where each inference's latency goes: CPU
 * operators, other host work, queueing, NPU Run, NPU IoWait, completion
 * delivery, waiting wake-up (and waiting no record explains), attributed
 * once each by that precedence, adding up exactly to the inference's
 * wall time; then the sums and shares over all inferences and the NPU's
 * idle time while the host was busy
 * @trace: an open trace
 * @out: the stream to write to
 * @opts: @opts->format NPUPROF_FORMAT_TABLE or _JSON (the totals), _CSV,
 *	_JSONL or _ROWS (one row per inference); NULL: a table
 *
 * Memory: the inferences in flight. Return: as npuprof_report().
 */
int npuprof_print_breakdown(struct npuprof_trace *trace, FILE *out,
			    const struct npuprof_report_opts *opts);

/**
 * npuprof_diff() - the change from trace @a to trace @b of the mean
 * latency, of each part of the breakdown (mean per inference) and of each
 * operator type (mean self time), absolute and relative, largest absolute
 * change first
 * @a: the baseline
 * @b: the trace compared with it
 * @out: the stream to write to
 * @opts: @opts->format (NPUPROF_FORMAT_TABLE, _CSV, _JSONL, _JSON or
 *	_ROWS) and @opts->min_delta_ns, or NULL (a table, every change
 *	counts)
 * @worst_pct: out (or NULL): the largest relative increase in percent
 *	over the rows present in both traces, 0 when nothing got slower
 *
 * Return: as npuprof_report().
 */
int npuprof_diff(struct npuprof_trace *a, struct npuprof_trace *b, FILE *out,
		 const struct npuprof_report_opts *opts, double *worst_pct);

/*
 * Memory (Documentation/npu/memory.rst, "Reports"): the buffer records of
 * a trace (NPU_TRACE_REC_BO_ALLOC and _BO_FREE of linux/npu.h) as the
 * memory report, the memory_flow SVG, Chrome counters and SQLite tables.
 * "Allocated" bytes are those of the buffers the trace shows (a ring of
 * one process sees its own); the device's own counter of every process's
 * buffers (the records' dev_used) is given beside them.
 */

/* Tables of npuprof_memory(), as given to a row sink */
enum npuprof_mem_table {
	NPUPROF_MEM_DEVICES = 32,	/* per device: max allocated, ... */
	NPUPROF_MEM_PROCESSES = 33,	/* per process and device */
	NPUPROF_MEM_BUFFERS = 34,	/* the largest buffers at each peak */
	NPUPROF_MEM_FAILURES = 35,	/* each failed allocation */
	NPUPROF_MEM_EVENTS = 36,	/* every BO record */
	NPUPROF_MEM_OPERATORS = 37,	/* per model and operator: used bytes */
	NPUPROF_MEM_TENSORS = 38,	/* the largest tensors at each max_used */
};

/* npuprof_memory_opts.tables: the bit of table @t */
#define NPUPROF_MEM_BIT(t)	(1u << ((t) - NPUPROF_MEM_DEVICES))

/**
 * npuprof_mem_table_name() - the short name of a memory table
 * @table: enum npuprof_mem_table
 *
 * Return: "devices", "processes", "peak_buffers", "failures", "events",
 * "operators" or "tensors"; NULL for another number (they run from NPUPROF_MEM_DEVICES
 * without gaps: loop until NULL).
 */
const char *npuprof_mem_table_name(unsigned int table);

/**
 * struct npuprof_memory_opts - options of npuprof_memory()
 * @sz: sizeof(struct npuprof_memory_opts); NPUPROF_MEMORY_OPTS() sets it
 * @format: NPUPROF_FORMAT_TABLE (0 too), _WIDE, _CSV, _JSONL, _JSON or
 *	_ROWS
 * @tables: a mask of NPUPROF_MEM_BIT(table); 0: every table but the
 *	events
 * @top: buffers listed per device at its peak, and tensors at its
 *	max_used; 0: 10
 * @sink: NPUPROF_FORMAT_ROWS: where the rows go (then @out may be NULL)
 */
struct npuprof_memory_opts {
	size_t sz;
	unsigned int format;
	unsigned int tables;
	unsigned int top;
	const struct npuprof_row_sink *sink;
};

#define NPUPROF_MEMORY_OPTS(...)					\
	(&(const struct npuprof_memory_opts){				\
		.sz = sizeof(struct npuprof_memory_opts), __VA_ARGS__ })

/**
 * npuprof_memory() - the memory report: per device the most bytes
 * allocated at once and when, the device's own counter (every process),
 * allocations, frees, failures and the fragmentation at the peak (free
 * bytes against the largest free extent, from the live buffers' address
 * ranges within the device's dram_size: the records carry no extent);
 * per process and device the most allocated and when; the largest
 * buffers live at each device's peak (address, size, kind, owner, alloc
 * time); every failed allocation; per model and operator the bytes its
 * program's tensors take (in, out, live: used) against its job's slots;
 * the largest tensors live at each device's max_used operator (slot,
 * offset, size, first and last live operator); and on request every BO
 * record
 * @trace: an open trace
 * @out: the stream to write to (NULL with NPUPROF_FORMAT_ROWS)
 * @opts: options, or NULL (every table but the events, as text)
 *
 * Text: the tables one after another under a title each; CSV and JSON
 * Lines: likewise, each table with its header line, separated by an
 * empty line (ask for one table to get a plain CSV file); JSON: one
 * object whose members, named by npuprof_mem_table_name(), are arrays of
 * rows. The "used" columns (max_used: the most bytes of live tensors at
 * one operator, RAF's max_used, and the operator; used_pct against
 * max_allocated) come from the operator records of jobs whose model the
 * trace holds (MODEL items), null without. BO records that make no sense and
 * frees of buffers whose allocation the trace lacks are skipped and
 * counted in the devices table. Memory: the buffers live at once.
 *
 * Return: 0, -EINVAL (a bad option), -E2BIG, -EBADMSG, -EIO, -ENOMEM, or
 * what the sink returned.
 */
int npuprof_memory(struct npuprof_trace *trace, FILE *out,
		   const struct npuprof_memory_opts *opts);

/**
 * npuprof_export_memsvg() - the memory_flow SVG: time across, device
 * address down, each buffer a rectangle from its allocation to its free
 * (or the trace's end), coloured by kind, with a tooltip (<title>) giving
 * its owner, size, kind and times; one panel per device, axes with ticks
 * and units, a legend
 * @trace: an open trace
 * @out: the stream to write to
 * @opts: options, or NULL
 *
 * Memory: the buffers of the trace (each is drawn once its end is
 * known). Return: 0, -EBADMSG, -EIO, -ENOMEM.
 */
int npuprof_export_memsvg(struct npuprof_trace *trace, FILE *out,
			  const struct npuprof_export_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_ANALYSIS_H */
