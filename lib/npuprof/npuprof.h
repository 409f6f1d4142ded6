/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npuprof.h - libnpuprof, the capture library: NPU traces and host CPU
 * spans into a .npuprof trace file. It is what a profiled program loads;
 * reading, exporting and analysing a file is libnpuprof-analysis's
 * (npuprof_analysis.h), which no profiled program needs.
 *
 * Documentation/npu/npuprof.rst is the user's guide,
 * Documentation/npu/trace-file.rst specifies the file format, and
 * Documentation/npu/libraries.rst says what each library holds.
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
 *	accepts 1..4096), or 0 (the default): NPUPROF_DEFAULT_RING_PAGES, and
 *	at level 2 up to 1024 pages within half of RLIMIT_MEMLOCK
 *	(Documentation/npu/npuprof.rst, "Reading the rings")
 * @flags: NPUPROF_F_*
 * @span_buf_kb: per-thread host span buffer, KiB, at first: a thread whose
 *	buffer is found half full (the drain fell behind) gets one twice
 *	the size, up to 32 times @span_buf_kb and at most 8 MiB (the
 *	default 256 KiB grows to 8 MiB; 8192 or more never grows), for the
 *	rest of the session; spans that find the largest full are dropped
 *	and counted exactly
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
 * Sets @sz, level NPUPROF_DEFAULT_LEVEL, ring_pages 0 (automatic),
 * span_buf_kb NPUPROF_DEFAULT_SPAN_BUF_KB,
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

/* Session events of the trace file (npuprof_event.session_op) */
#define NPUPROF_SESSION_START	1
#define NPUPROF_SESSION_PAUSE	2
#define NPUPROF_SESSION_RESUME	3
#define NPUPROF_SESSION_STOP	4

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

/* ------------------------------------------------------------------ */
/* Host spans                                                           */
/* ------------------------------------------------------------------ */

/* npuprof_span_rec.kind */
enum npuprof_span_kind {
	NPUPROF_SPAN_LABEL = 1,		/* npuprof_region_begin()/_end() */
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
#define NPUPROF_SPAN_F_MODEL	(1u << 3)	/* name_id is a model id */

/**
 * struct npuprof_span_rec - one host span, as stored in the trace file
 * @kind: enum npuprof_span_kind
 * @flags: NPUPROF_SPAN_F_*
 * @name_id: string id of the label (NPUPROF_SPAN_LABEL); with
 *	NPUPROF_SPAN_F_MODEL (NPUPROF_SPAN_SUBMIT), the id
 *	npuprof_model_register() gave the model the job runs; else 0
 * @pid: process (thread group id)
 * @tid: thread
 * @start_ns: CLOCK_MONOTONIC at the start (in the file; in the caller's
 *	struct npuprof_span of an NPUPROF_SPAN_USER span that a session
 *	stamps with the TSC, the TSC value, which the file's reader maps)
 * @end_ns: CLOCK_MONOTONIC at the end, >= @start_ns (the same)
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
 * spans; otherwise a clock read (rdtsc for NPUPROF_SPAN_USER where the
 * session chose the TSC) and a few stores, no lock, no allocation.
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
 * struct npuprof_stamp - a span's time, to share with the next span
 * @t: the clock value (as struct npuprof_span_rec's start_ns and end_ns)
 * @key: which session, generation and clock @t was read for; 0: none
 *
 * Returned by npuprof_span_start() and npuprof_span_end_at(), given to
 * npuprof_span_begin_at() and npuprof_span_end_at(). Only the library's
 * own values are honoured: a stamp of another session, of the same
 * session before a pause, or of another clock (the TSC against
 * clock_gettime()) is ignored and the clock read instead.
 */
struct npuprof_stamp {
	uint64_t t;
	uint32_t key;
};

/**
 * npuprof_span_begin_at_slow() - npuprof_span_begin_at() with spans on
 * @s: the span
 * @kind: enum npuprof_span_kind
 * @parent: the enclosing span, or NULL
 * @at: the stamp to start at, when it is of the key @s takes
 *
 * The out-of-line part of npuprof_span_begin_at(), which calls it only
 * while a session captures host spans; callers use the inline function.
 */
void npuprof_span_begin_at_slow(struct npuprof_span *s, unsigned int kind,
				const struct npuprof_span *parent,
				struct npuprof_stamp at);

/**
 * npuprof_span_end_at_slow() - npuprof_span_end_at() of a timed span
 * @s: a span whose @on is nonzero
 * @at: the stamp to end at, when it is of @s's key and not before its
 *	start
 *
 * The out-of-line part of npuprof_span_end_at(); callers use the inline
 * function.
 *
 * Return: the stamp of @s's end; a stamp of no time when @s->on is 0.
 */
struct npuprof_stamp npuprof_span_end_at_slow(struct npuprof_span *s,
					      struct npuprof_stamp at);

/**
 * npuprof_span_start() - the start of an open span, to share
 * @s: a span begun and not yet ended
 *
 * Return: a stamp of @s's start, for a child that begins with it
 * (npuprof_span_begin_at()); a stamp of no time when @s is not timed.
 */
static inline struct npuprof_stamp
npuprof_span_start(const struct npuprof_span *s)
{
	struct npuprof_stamp st = { s->rec.start_ns, (uint32_t)s->on };

	if (!s->on)
		st.t = 0;
	return st;
}

/**
 * npuprof_span_begin_at() - start timing a span at a time already read
 * @s: the span, in the caller's memory
 * @kind: enum npuprof_span_kind
 * @parent: the enclosing span, or NULL
 * @at: when @s starts: the end of the span just before it
 *	(npuprof_span_end_at()) or the start of a parent it begins with
 *	(npuprof_span_start())
 *
 * As npuprof_span_begin(), but without a clock read when @at is a time
 * of the session that records @s, read on the clock @s would read: then
 * @s starts exactly at @at, and the trace shows the two times equal.
 * Otherwise (no session when @at was read, another session, a pause in
 * between, the other clock, a stamp of no time) it reads the clock.
 */
static inline void npuprof_span_begin_at(struct npuprof_span *s,
					 unsigned int kind,
					 const struct npuprof_span *parent,
					 struct npuprof_stamp at)
{
	s->on = 0;
	if (__builtin_expect(__atomic_load_n(&npuprof_spans_on,
					     __ATOMIC_RELAXED), 0))
		npuprof_span_begin_at_slow(s, kind, parent, at);
}

/**
 * npuprof_span_end_at() - end a span, at a time already read or now
 * @s: a span passed to npuprof_span_begin() or npuprof_span_begin_at()
 * @at: when @s ends: the end of its last child, with nothing of @s's
 *	after it (npuprof_span_end_at() of the child); or a stamp of no
 *	time ({ 0, 0 }) to read the clock
 *
 * As npuprof_span_end(). @at is honoured as by npuprof_span_begin_at()
 * and only when it is not before @s's start; otherwise the clock is read.
 *
 * Return: the stamp of @s's end, for the span that begins where @s ends
 * (npuprof_span_begin_at()) or a parent that ends with it; a stamp of no
 * time when @s was not timed.
 */
static inline struct npuprof_stamp
npuprof_span_end_at(struct npuprof_span *s, struct npuprof_stamp at)
{
	struct npuprof_stamp none = { 0, 0 };

	if (__builtin_expect(s->on, 0))
		return npuprof_span_end_at_slow(s, at);
	return none;
}

/**
 * npuprof_region_begin() - open a labelled region on the calling thread
 * @label: a name, e.g. "warm up"; copied (at most 255 bytes kept)
 *
 * Regions nest per thread, up to 32 deep. Spans begun on this thread
 * without a parent become children of the innermost open region. A region
 * is a host span of kind NPUPROF_SPAN_LABEL in the trace file (Furiosa's
 * profiler.record(); the reports name the kind "record").
 *
 * Return: 0 (also when no session captures: then nothing is recorded);
 * -EINVAL for a NULL label; -E2BIG when 32 regions are open.
 */
int npuprof_region_begin(const char *label);

/**
 * npuprof_region_end() - close the innermost labelled region of the thread
 *
 * Return: 0, or -ENOENT when the thread has no open region.
 */
int npuprof_region_end(void);

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
 *	operator index); @rec->name_id is ignored, and so is
 *	NPUPROF_SPAN_F_MODEL (a model id is the registering process's)
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
/* Models                                                               */
/* ------------------------------------------------------------------ */

/*
 * A runtime registers each model it loads, so that the trace file
 * describes the programs its jobs ran (their tensors, operators and
 * buffer slots: Documentation/npu/memory.rst) without the model file.
 * The registrations are the process's (like the span hot path's state,
 * not a session's): the session that captures the process's host spans
 * writes every registered model into its file once, at its start for the
 * models loaded before, at registration for those loaded while it runs
 * or is paused; a MODEL item precedes the SUBMIT span of any of its jobs.
 * libnpu registers the models it loads and tags its SUBMIT spans with
 * NPUPROF_SPAN_F_MODEL.
 */

/* Limits of struct npuprof_model_desc */
#define NPUPROF_MODEL_MAX_SLOTS		16
#define NPUPROF_MODEL_MAX_PROGRAM	(192u * 1024)	/* bytes */
/*
 * Bytes of a layer table. A MODEL item (the header, the program padded to
 * 8 bytes and the layer table) must also fit one chunk of the trace file:
 * NPUPROF_MODEL_MAX_ITEM bytes of program and layers together.
 */
#define NPUPROF_MODEL_MAX_LAYERS	(160u * 1024)
#define NPUPROF_MODEL_MAX_ITEM		(255u * 1024)

/**
 * struct npuprof_model_desc - a loaded model, as the trace file keeps it
 * @sz: sizeof(struct npuprof_model_desc)
 * @name: its name (at most 31 bytes kept), or NULL for ""
 * @program: its program as the device reads it: the header, the tensor
 *	table and the operator table of include/npu/npu_program.h (not the
 *	constants); copied
 * @program_size: bytes of @program, 32..NPUPROF_MODEL_MAX_PROGRAM
 * @n_slots: buffer slots of its jobs, 1..NPUPROF_MODEL_MAX_SLOTS
 * @slot_sizes: bytes of each slot (0: unknown)
 * @slot_kinds: kind of each slot (NPU_MODEL_SLOT_* of
 *	include/npu/npu_model_file.h), or NULL when unknown
 * @layers: its layer table (include/npu/npu_model_layers.h), checked by
 *	the caller against the program; copied; or NULL. Read only when @sz
 *	covers @layers_size (older callers pass a smaller @sz)
 * @layers_size: bytes of @layers, 16..NPUPROF_MODEL_MAX_LAYERS; 0 when
 *	@layers is NULL
 */
struct npuprof_model_desc {
	size_t sz;
	const char *name;
	const void *program;
	size_t program_size;
	unsigned int n_slots;
	const uint64_t *slot_sizes;
	const uint32_t *slot_kinds;
	const void *layers;
	size_t layers_size;
};

/* @sz of a struct npuprof_model_desc without the layer table's fields */
#define NPUPROF_MODEL_DESC_SZ_V0	offsetof(struct npuprof_model_desc, layers)

/**
 * npuprof_model_register() - describe a loaded model to the trace files
 * @desc: the model; copied (a few KiB: the program's tables and the
 *	layer table)
 * @model_id: out: its id, nonzero, unique in the process
 *
 * Costs one copy of the program whether or not a session captures; the
 * program is not checked beyond its size (the reader of the file checks
 * it). Thread-safe.
 *
 * Return: 0; -EINVAL for a bad @desc (size, slots, a layer table without
 * its size or the reverse); -E2BIG for a program larger than
 * NPUPROF_MODEL_MAX_PROGRAM, a layer table larger than
 * NPUPROF_MODEL_MAX_LAYERS, or both together (the program rounded up to 8
 * bytes) larger than NPUPROF_MODEL_MAX_ITEM; -ENOMEM. Writing the model into
 * a running session's file can fail only as the file does: then the
 * session's error is logged and the registration still succeeds.
 */
int npuprof_model_register(const struct npuprof_model_desc *desc,
			   uint32_t *model_id);

/**
 * npuprof_model_unregister() - forget a model (it was freed)
 * @model_id: an id npuprof_model_register() gave
 *
 * Sessions started afterwards do not describe it; a file that already
 * has it keeps it. Thread-safe.
 *
 * Return: 0, or -ENOENT for an unknown id.
 */
int npuprof_model_unregister(uint32_t model_id);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_H */
