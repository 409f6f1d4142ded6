/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npuprof.h - libnpuprof: capture NPU traces and host CPU spans into a
 * .npuprof trace file, and read such files back.
 *
 * Documentation/npu/npuprof.rst is the user's guide, and
 * Documentation/npu/trace-file.rst specifies the file format.
 *
 * Conventions (as in liburing and libbpf):
 *  - handles are opaque, created by a _create or _open function and freed
 *    by the matching _free or _close, which accept NULL;
 *  - functions returning int return 0 (or a count) on success and a
 *    negative errno value on failure; errno is left untouched;
 *  - option and statistics structs start with their size (@sz), so that a
 *    program built against an older header keeps working;
 *  - there is no hidden global state except the one the span hot path
 *    needs: which session, if any, receives host spans in this process;
 *  - diagnostics go to the session's log callback, never to stderr unless
 *    the callback is NULL and the message is an error.
 *
 * Host timestamps are CLOCK_MONOTONIC nanoseconds throughout.
 */
#ifndef NPUPROF_H
#define NPUPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUPROF_VERSION_MAJOR	1
#define NPUPROF_VERSION_MINOR	0

struct npuprof_session;
struct npuprof_trace;

/* ------------------------------------------------------------------ */
/* Sessions                                                             */
/* ------------------------------------------------------------------ */

/* Log levels of npuprof_log_fn */
enum npuprof_log_level {
	NPUPROF_LOG_ERROR = 0,
	NPUPROF_LOG_WARN = 1,
	NPUPROF_LOG_INFO = 2,
	NPUPROF_LOG_DEBUG = 3,
};

/**
 * typedef npuprof_log_fn - receives a session's diagnostics
 * @ctx: npuprof_opts.log_ctx
 * @level: enum npuprof_log_level
 * @msg: one line, without a trailing newline
 *
 * Called from the thread that hit the condition, the session's reader
 * thread included; it must not call back into the session.
 */
typedef void (*npuprof_log_fn)(void *ctx, int level, const char *msg);

/* npuprof_opts.flags */
#define NPUPROF_F_ALL_PROCESSES	(1u << 0)	/* every process's jobs */
#define NPUPROF_F_NO_HOST_SPANS	(1u << 1)	/* device records only */

/* Defaults of npuprof_opts_init() */
#define NPUPROF_DEFAULT_LEVEL		2
#define NPUPROF_DEFAULT_RING_PAGES	256
#define NPUPROF_DEFAULT_SPAN_BUF_KB	256

/**
 * struct npuprof_opts - what a session captures and where it goes
 * @sz: sizeof(struct npuprof_opts); set by npuprof_opts_init()
 * @output: path of the .npuprof file to write (created or truncated)
 * @devices: NULL-terminated array of device nodes, or NULL for every
 *	/dev/npu* present at npuprof_session_create(); an empty array
 *	captures host spans only
 * @level: trace level of the rings: 0 (EXEC records with host context),
 *	1 (and the device's execution timestamps), 2 (and every operator)
 * @ring_pages: data pages of each device ring, a power of two (the driver
 *	accepts 1..4096)
 * @flags: NPUPROF_F_*
 * @span_buf_kb: per-thread host span buffer, KiB (spans that find it full
 *	are dropped and counted exactly)
 * @log: diagnostics callback, or NULL for errors on stderr
 * @log_ctx: first argument of @log
 * @log_level: highest enum npuprof_log_level passed to @log
 */
struct npuprof_opts {
	size_t sz;
	const char *output;
	const char *const *devices;
	int level;
	unsigned int ring_pages;
	unsigned int flags;
	unsigned int span_buf_kb;
	npuprof_log_fn log;
	void *log_ctx;
	int log_level;
};

/**
 * npuprof_opts_init() - fill @opts with the defaults
 * @opts: the options to initialize
 *
 * Sets @sz, level NPUPROF_DEFAULT_LEVEL, ring_pages
 * NPUPROF_DEFAULT_RING_PAGES, span_buf_kb NPUPROF_DEFAULT_SPAN_BUF_KB,
 * log_level NPUPROF_LOG_WARN, and everything else to 0 or NULL.
 */
void npuprof_opts_init(struct npuprof_opts *opts);

/**
 * npuprof_session_create() - open the devices and the output file
 * @opts: options (npuprof_opts_init() first); @opts->output is required
 * @sess: out: the session
 *
 * Opens a trace ring on every device, maps it, creates the output file and
 * writes the file header and the metadata (devices, kernel, host, process,
 * command line, a CLOCK_REALTIME/CLOCK_MONOTONIC pair). Nothing is
 * captured until npuprof_session_start().
 *
 * Return: 0; -EINVAL for bad options; -ENOENT when no device was found;
 * -EACCES without the privilege NPUPROF_F_ALL_PROCESSES needs; -errno of
 * open(), mmap() or the driver.
 */
int npuprof_session_create(const struct npuprof_opts *opts,
			   struct npuprof_session **sess);

/**
 * npuprof_session_start() - start capturing
 * @sess: a created session
 *
 * Enables the rings at the session's level, starts the reader thread and,
 * unless NPUPROF_F_NO_HOST_SPANS, makes this session the one that receives
 * the process's host spans.
 *
 * Return: 0; -EALREADY if started; -EBUSY when another session of this
 * process captures host spans; -errno of the driver.
 */
int npuprof_session_start(struct npuprof_session *sess);

/**
 * npuprof_session_pause() - stop capturing until npuprof_session_resume()
 * @sess: a started session
 *
 * Disables the rings and the host spans. Nothing that happens while the
 * session is paused is kept: spans ending then and jobs submitted then
 * are not recorded. Records produced before the pause are still read.
 *
 * Return: 0; -EINVAL if not started; -EALREADY if paused.
 */
int npuprof_session_pause(struct npuprof_session *sess);

/**
 * npuprof_session_resume() - resume a paused session
 * @sess: a paused session
 *
 * Return: 0; -EINVAL if not paused; -errno of the driver.
 */
int npuprof_session_resume(struct npuprof_session *sess);

/**
 * npuprof_session_stop() - stop capturing and complete the file
 * @sess: a started session
 *
 * Disables the rings, reads what they hold, collects every host span
 * ended before the call, and ends the file with the clock fit of each
 * device, the causality check and the loss totals. The file is complete
 * when this returns 0. A stopped session cannot be started again.
 *
 * Return: 0; -EINVAL if never started; -errno of writing the file.
 */
int npuprof_session_stop(struct npuprof_session *sess);

/**
 * npuprof_session_free() - stop the session if needed and free it
 * @sess: the session, or NULL
 */
void npuprof_session_free(struct npuprof_session *sess);

/**
 * struct npuprof_stats - what a session captured and lost
 * @sz: in: sizeof(struct npuprof_stats)
 * @spans: host spans recorded
 * @spans_lost: host spans dropped because a thread's buffer was full
 * @records: ring records read (PAD excluded)
 * @exec_records: of them, EXEC records
 * @op_records: of them, OP records
 * @clock_records: of them, CLOCK records
 * @lost_ring: records the driver dropped because a ring was full
 * @lost_device: records lost in the device's trace area
 * @lost_host: records the driver could not track
 * @bytes_written: bytes of the trace file so far
 * @chunks: chunks written
 * @ring_errors: rings stopped because they were found corrupt
 * @clock_violations: executions outside their host interval (after stop)
 * @stage_full: times the reader found the in-memory stage full (the file
 *	fell behind) and left records in a ring until the writer made room
 */
struct npuprof_stats {
	size_t sz;
	uint64_t spans;
	uint64_t spans_lost;
	uint64_t records;
	uint64_t exec_records;
	uint64_t op_records;
	uint64_t clock_records;
	uint64_t lost_ring;
	uint64_t lost_device;
	uint64_t lost_host;
	uint64_t bytes_written;
	uint64_t chunks;
	uint64_t ring_errors;
	uint64_t clock_violations;
	uint64_t stage_full;
};

/**
 * npuprof_session_stats() - counters of a session
 * @sess: the session
 * @stats: out: set @stats->sz first
 *
 * Return: 0, or -EINVAL for a bad @sz.
 */
int npuprof_session_stats(const struct npuprof_session *sess,
			  struct npuprof_stats *stats);

/**
 * npuprof_session_output() - the trace file's path
 * @sess: the session
 *
 * Return: the path, valid while @sess lives.
 */
const char *npuprof_session_output(const struct npuprof_session *sess);

/**
 * npuprof_env_start() - start the session the environment asks for
 *
 * With NPUPROF_OUTPUT_PATH set (and optionally NPUPROF_LEVEL 0..2,
 * NPUPROF_PAGES, NPUPROF_ALL=1, NPUPROF_DEVICES=a comma-separated list of
 * device nodes, empty for host spans only; "%p" in the path is the pid),
 * creates and starts a session once per
 * process, stopped and completed at exit() and by a fatal signal
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS: the file is
 * then readable up to its last flushed chunk). libnpu calls this when a
 * device is opened; any program may. Safe to call from several threads.
 *
 * Return: 1 when a session is running, 0 when NPUPROF_OUTPUT_PATH is not
 * set, -errno when creating or starting it failed (reported on stderr
 * once).
 */
int npuprof_env_start(void);

/* ------------------------------------------------------------------ */
/* Host spans                                                           */
/* ------------------------------------------------------------------ */

/* npuprof_span_rec.kind */
enum npuprof_span_kind {
	NPUPROF_SPAN_LABEL = 1,		/* npuprof_record_begin()/_end() */
	NPUPROF_SPAN_RUN = 2,		/* npu_runner_run() */
	NPUPROF_SPAN_INFERENCE = 3,	/* acquire .. release of a context */
	NPUPROF_SPAN_SET_INPUT = 4,
	NPUPROF_SPAN_GET_OUTPUT = 5,
	NPUPROF_SPAN_QUANTIZE = 6,	/* CPU operators */
	NPUPROF_SPAN_LOWER = 7,
	NPUPROF_SPAN_UNLOWER = 8,
	NPUPROF_SPAN_DEQUANTIZE = 9,
	NPUPROF_SPAN_SUBMIT = 10,	/* job_id and minor set on success */
	NPUPROF_SPAN_WAIT = 11,
	NPUPROF_SPAN_USER = 12,		/* npuprof_span_begin() by a program */
	NPUPROF_SPAN_KIND_MAX = 12,
};

/* npuprof_span_rec.flags */
#define NPUPROF_SPAN_F_JOB	(1u << 0)	/* job_id and minor are valid */
#define NPUPROF_SPAN_F_OP	(1u << 1)	/* op_index is valid */
#define NPUPROF_SPAN_F_ERROR	(1u << 2)	/* the call failed */

/**
 * struct npuprof_span_rec - one host span, as stored in the trace file
 * @kind: enum npuprof_span_kind
 * @flags: NPUPROF_SPAN_F_*
 * @name_id: string id of the label (NPUPROF_SPAN_LABEL), else 0
 * @pid: process (thread group id)
 * @tid: thread
 * @start_ns: CLOCK_MONOTONIC at the start
 * @end_ns: CLOCK_MONOTONIC at the end, >= @start_ns
 * @span_id: unique in the process, never 0
 * @parent_id: the enclosing span's id, 0 for a root span
 * @trace_id: 128-bit id of the trace (one per inference), high word first
 * @job_id: with NPUPROF_SPAN_F_JOB: the job of NPU_IOCTL_SUBMIT
 * @op_index: with NPUPROF_SPAN_F_OP: the CPU operator's operator_index
 * @minor: with NPUPROF_SPAN_F_JOB: N of the job's /dev/npuN
 */
struct npuprof_span_rec {
	uint16_t kind;
	uint16_t flags;
	uint32_t name_id;
	int32_t pid;
	int32_t tid;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t span_id;
	uint64_t parent_id;
	uint64_t trace_id[2];
	uint64_t job_id;
	uint32_t op_index;
	uint32_t minor;
};

/**
 * struct npuprof_span - a span being timed, in the caller's memory
 * @rec: the record; the caller may set @rec.flags, @rec.job_id,
 *	@rec.op_index and @rec.minor between begin and end
 * @on: nonzero when npuprof_span_begin() found a session capturing
 *
 * May be ended on another thread than the one that began it.
 */
struct npuprof_span {
	struct npuprof_span_rec rec;
	int on;
};

/* Nonzero while a session captures host spans; read by the inline hooks. */
extern int npuprof_spans_on;

void npuprof_span_begin_slow(struct npuprof_span *s, unsigned int kind,
			     const struct npuprof_span *parent);
void npuprof_span_end_slow(struct npuprof_span *s);

/**
 * npuprof_span_begin() - start timing a span
 * @s: the span, in the caller's memory
 * @kind: enum npuprof_span_kind
 * @parent: the enclosing span, or NULL
 *
 * With @parent, the span joins its trace. Without, its parent is the
 * calling thread's innermost open labelled record, if any, and it starts
 * a new trace. Costs one predictable branch when no session captures host
 * spans; otherwise a clock read and a few stores, no lock, no allocation.
 */
static inline void npuprof_span_begin(struct npuprof_span *s,
				      unsigned int kind,
				      const struct npuprof_span *parent)
{
	s->on = 0;
	if (__builtin_expect(__atomic_load_n(&npuprof_spans_on,
					     __ATOMIC_RELAXED), 0))
		npuprof_span_begin_slow(s, kind, parent);
}

/**
 * npuprof_span_end() - end a span and record it
 * @s: a span passed to npuprof_span_begin()
 *
 * Writes the span to the calling thread's buffer: no lock, and no
 * allocation after the thread's first span. A span that finds the buffer
 * full is dropped and counted. Nothing is recorded when the session was
 * stopped or paused in between.
 */
static inline void npuprof_span_end(struct npuprof_span *s)
{
	if (__builtin_expect(s->on, 0))
		npuprof_span_end_slow(s);
}

/**
 * npuprof_record_begin() - open a labelled record on the calling thread
 * @label: a name, e.g. "warm up"; copied (at most 255 bytes kept)
 *
 * Records nest per thread, up to 32 deep. Spans begun on this thread
 * without a parent become children of the innermost open record.
 *
 * Return: 0 (also when no session captures: then nothing is recorded);
 * -EINVAL for a NULL label; -E2BIG when 32 records are open.
 */
int npuprof_record_begin(const char *label);

/**
 * npuprof_record_end() - close the innermost labelled record of the thread
 *
 * Return: 0, or -ENOENT when the thread has no open record.
 */
int npuprof_record_end(void);

/*
 * Spans built outside the process they describe (an eBPF collector such
 * as `npuprof record --bpf`, Documentation/npu/bpf.rst): added to a
 * running session as they are, next to its device records. A session
 * that only collects them is created with NPUPROF_F_NO_HOST_SPANS.
 */

/**
 * npuprof_session_add_span() - add a host span built elsewhere
 * @sess: a started session
 * @rec: the span, filled as npuprof_span_begin()/_end() fill it (kind,
 *	flags, pid, tid, CLOCK_MONOTONIC start and end, a nonzero span id
 *	unique in its process, parent and trace ids, job id, minor,
 *	operator index); @rec->name_id is ignored
 * @label: for NPUPROF_SPAN_LABEL, its text (at most 255 bytes kept), or
 *	NULL
 *
 * Thread-safe; waits (bounded) when the writer is behind. Nothing is
 * added while the session is paused (then 0 is returned).
 *
 * Return: 0; -EINVAL for a bad span or a session not started or already
 * stopped; -ENOSPC when the writer made no room in time; -errno of
 * writing the file.
 */
int npuprof_session_add_span(struct npuprof_session *sess,
			     const struct npuprof_span_rec *rec,
			     const char *label);

/**
 * npuprof_session_add_thread() - name a thread of the added spans
 * @sess: a started session
 * @pid: the thread's process
 * @tid: the thread
 * @name: its name (comm), at most 15 bytes kept
 *
 * Return: as npuprof_session_add_span().
 */
int npuprof_session_add_thread(struct npuprof_session *sess, int32_t pid,
			       int32_t tid, const char *name);

/**
 * npuprof_session_add_meta() - add a "key = value" metadata item
 * @sess: a started session
 * @key: a nonempty key (e.g. "bpf.source")
 * @value: its value
 *
 * Return: as npuprof_session_add_span().
 */
int npuprof_session_add_meta(struct npuprof_session *sess, const char *key,
			     const char *value);

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

/* npuprof_event.session_op */
#define NPUPROF_SESSION_START	1
#define NPUPROF_SESSION_PAUSE	2
#define NPUPROF_SESSION_RESUME	3
#define NPUPROF_SESSION_STOP	4

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
 * struct npuprof_summary - totals of a session, at the end of its file
 * @spans: host spans recorded
 * @spans_lost: host spans dropped (thread buffers full)
 * @records: ring records read
 * @lost_ring: records the driver dropped, ring full
 * @lost_device: records lost in the device's trace area
 * @lost_host: jobs the driver could not track
 * @ring_errors: rings stopped because they were found corrupt
 * @violations: executions outside their host interval
 * @start_ns: CLOCK_MONOTONIC at start
 * @stop_ns: CLOCK_MONOTONIC at stop
 */
struct npuprof_summary {
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

/**
 * struct npuprof_event - one item of a trace file
 * @type: enum npuprof_event_type
 * @offset: file offset of the item
 * @time_ns: the item's time (span start, record's mapped start or host
 *	time, metadata 0), CLOCK_MONOTONIC ns; used to order a dump
 * @dev: device index in the file (DEVICE, RECORD, CLOCK_FIT)
 * @key: META: the key; DEVICE: the device node; STRING: the text;
 *	THREAD: the name
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
 * @fit: CLOCK_FIT: the fit the writer made at stop: slope (ns per tick),
 *	host ns at tick 0, error bound, samples seen and kept, pieces,
 *	executions checked and found outside their host interval
 * @summary: SUMMARY: the session's totals
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
 * the call then returns 0 and npuprof_trace_truncated() tells.
 *
 * Return: 1 with an event, 0 at the end, -EBADMSG on a corrupt chunk or
 * item (the message, with its file offset, is in npuprof_trace_error()),
 * -errno of read().
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
 * struct npuprof_export_opts - options of the exporters
 * @sz: sizeof(struct npuprof_export_opts)
 * @flags: 0
 */
struct npuprof_export_opts {
	size_t sz;
	unsigned int flags;
};

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
 * @table: enum npuprof_table
 * @format: NPUPROF_FORMAT_TABLE, _CSV, _JSONL or _JSON
 * @out: the stream to write to
 *
 * Return: 0, -EINVAL for a table or format it does not know, -EBADMSG,
 * -EIO.
 */
int npuprof_report(struct npuprof_trace *trace, unsigned int table,
		   unsigned int format, FILE *out);

/**
 * npuprof_print_summary() - the summary of the reference docs: inference
 * count, min, max, mean, median and the 90/95/97/99/99.9 percentiles (ns,
 * exact), and the totals of the trace
 * @trace: an open trace
 * @format: NPUPROF_FORMAT_TABLE or _JSON
 * @out: the stream to write to
 *
 * Return: as npuprof_report().
 */
int npuprof_print_summary(struct npuprof_trace *trace, unsigned int format,
			  FILE *out);

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

/**
 * struct npuprof_analyze_opts - what npuprof_analyze() prints
 * @sz: sizeof(struct npuprof_analyze_opts); set by
 *	npuprof_analyze_opts_init()
 * @top: rows printed, 0 for all (without aggregation every record is
 *	then kept in memory)
 * @types: NULL-terminated list of types to keep ("CONV2D", "Quantize",
 *	"npu" for every NPU operator, "host" for every span; case does not
 *	matter), or NULL for all
 * @aggregate: enum npuprof_aggregate (by type)
 * @order_by: column to sort by: "time" (self time, the default), "macs",
 *	"gmacs", "peak", "bytes", "gbps", "count" or "name"; a "+" prefix
 *	sorts ascending, else descending; NULL: "time"
 * @min_ns: keep records whose self time is at least this
 * @max_ns: ... and at most this (negative: no limit)
 */
struct npuprof_analyze_opts {
	size_t sz;
	unsigned int top;
	const char *const *types;
	unsigned int aggregate;
	const char *order_by;
	int64_t min_ns;
	int64_t max_ns;
};

/**
 * npuprof_analyze_opts_init() - fill @opts with the defaults
 * @opts: the options to initialize
 *
 * Sets @sz, top 20, every type, no aggregation, order by self time, no
 * time limits (max_ns -1).
 */
void npuprof_analyze_opts_init(struct npuprof_analyze_opts *opts);

/**
 * npuprof_analyze() - MegEngine's profile_analyze over NPU operators (OP
 * records) and host spans: self time, cumulative time, MACs, GMAC/s and
 * the percentage of the device's peak, bytes moved and GB/s
 * @trace: an open trace
 * @opts: options (npuprof_analyze_opts_init() first), or NULL
 * @format: NPUPROF_FORMAT_TABLE, _CSV, _JSONL or _JSON
 * @out: the stream to write to
 *
 * Return: 0, -EINVAL (a bad option or format), -EBADMSG, -EIO, -ENOMEM.
 */
int npuprof_analyze(struct npuprof_trace *trace,
		    const struct npuprof_analyze_opts *opts,
		    unsigned int format, FILE *out);

/**
 * npuprof_print_breakdown() - where each inference's latency goes: CPU
 * operators, other host work, queueing, NPU Run, NPU IoWait, completion
 * delivery, waiting wake-up (and waiting no record explains), attributed
 * once each by that precedence, adding up exactly to the inference's
 * wall time; then the sums and shares over all inferences and the NPU's
 * idle time while the host was busy
 * @trace: an open trace
 * @format: NPUPROF_FORMAT_TABLE or _JSON (the totals), _CSV or _JSONL
 *	(one row per inference)
 * @out: the stream to write to
 *
 * Memory: the inferences in flight. Return: as npuprof_report().
 */
int npuprof_print_breakdown(struct npuprof_trace *trace, unsigned int format,
			    FILE *out);

/**
 * npuprof_diff() - the change from trace @a to trace @b of the mean
 * latency, of each part of the breakdown (mean per inference) and of each
 * operator type (mean self time), absolute and relative, largest absolute
 * change first
 * @a: the baseline
 * @b: the trace compared with it
 * @format: NPUPROF_FORMAT_TABLE, _CSV, _JSONL or _JSON
 * @out: the stream to write to
 * @min_delta_ns: changes smaller than this (absolute) do not count in
 *	*@worst_pct
 * @worst_pct: out (or NULL): the largest relative increase in percent
 *	over the rows present in both traces, 0 when nothing got slower
 *
 * Return: as npuprof_report().
 */
int npuprof_diff(struct npuprof_trace *a, struct npuprof_trace *b,
		 unsigned int format, FILE *out, int64_t min_delta_ns,
		 double *worst_pct);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_H */
