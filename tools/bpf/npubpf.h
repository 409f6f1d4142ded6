/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npubpf.h - the loader of the NPU stack's eBPF host probes (tools/bpf):
 * loads npu_probes.bpf.c through its libbpf skeleton, attaches it to a
 * process (or to every process) using libnpu, and turns what the probes
 * report into host spans, struct npuprof_span_rec as libnpuprof records
 * them, passed to a callback. `npuprof record --bpf` is its user;
 * Documentation/npu/bpf.rst describes it.
 *
 * Conventions as libnpuprof's: an opaque handle, negative errno returns,
 * diagnostics to a log callback. Single-threaded: one thread calls
 * everything of a handle.
 */
#ifndef NPUBPF_H
#define NPUBPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "npuprof.h"

struct npubpf;

/* npubpf_opts.flags */
#define NPUBPF_F_UPROBES	(1u << 0)	/* uprobes even with USDT notes */
#define NPUBPF_F_NO_OFFCPU	(1u << 1)	/* no sched_switch program */

/* npubpf_stats.source */
#define NPUBPF_SRC_NONE		0
#define NPUBPF_SRC_USDT		1
#define NPUBPF_SRC_UPROBES	2

/* A host span; @label for NPUPROF_SPAN_LABEL, else NULL. */
typedef int (*npubpf_span_fn)(void *ctx, const struct npuprof_span_rec *rec,
			      const char *label);
/* The name (comm) of a thread seen for the first time. */
typedef int (*npubpf_thread_fn)(void *ctx, int32_t pid, int32_t tid,
				const char *name);

/**
 * struct npubpf_opts - what to attach to
 * @sz: sizeof(struct npubpf_opts)
 * @pid: the process to trace, or 0 for every process
 * @targets: NULL-terminated paths of the ELF files holding libnpu (a
 *	libnpu.so, or a program linked with libnpu.a) and libnpuprof
 * @flags: NPUBPF_F_*
 * @ringbuf_kb: size of the BPF ring buffer, KiB, a power of two (0: 1024)
 * @span: receives each span
 * @thread: receives each thread's name, or NULL
 * @ctx: first argument of @span and @thread
 * @log: diagnostics (enum npuprof_log_level), or NULL for stderr
 * @log_ctx: first argument of @log
 * @verbose: pass libbpf's own messages on to @log
 */
struct npubpf_opts {
	size_t sz;
	pid_t pid;
	const char *const *targets;
	unsigned int flags;
	unsigned int ringbuf_kb;
	npubpf_span_fn span;
	npubpf_thread_fn thread;
	void *ctx;
	npuprof_log_fn log;
	void *log_ctx;
	int verbose;
};

/**
 * struct npubpf_stats - what the probes saw
 * @sz: in: sizeof(struct npubpf_stats)
 * @source: NPUBPF_SRC_*: USDT probes or the uprobe fallback
 * @links: programs attached (probe sites count once per file)
 * @events: events read from the ring buffer
 * @spans: spans passed to the callback
 * @labels: of them, labelled records
 * @dropped: events the BPF ring buffer had no room for
 * @unmatched: uprobe events that fit no open call (attached mid-call)
 * @bad_usdt: USDT events whose arguments were not a span (dropped)
 * @submits: npu_job_submit tracepoint hits of traced processes
 * @completes: npu_job_complete hits
 * @trace_lost: records npu_trace_lost reported dropped
 * @offcpu_ns: time submitting threads spent off CPU
 * @offcpu_wait_ns: of it, inside a wait for a job
 * @offcpu_waits: off-CPU intervals inside a wait
 */
struct npubpf_stats {
	size_t sz;
	unsigned int source;
	unsigned int links;
	uint64_t events;
	uint64_t spans;
	uint64_t labels;
	uint64_t dropped;
	uint64_t unmatched;
	uint64_t bad_usdt;
	uint64_t submits;
	uint64_t completes;
	uint64_t trace_lost;
	uint64_t offcpu_ns;
	uint64_t offcpu_wait_ns;
	uint64_t offcpu_waits;
};

/**
 * npubpf_open() - load the probes and attach them
 * @opts: options; @opts->targets and @opts->span are required
 * @bpf: out: the handle
 *
 * Attaches libnpu's USDT probes in every target (the uprobe fallback on
 * libnpu's exported functions when a target has no USDT notes, or with
 * NPUBPF_F_UPROBES), the driver's tracepoints and, unless
 * NPUBPF_F_NO_OFFCPU or the kernel has no BTF, sched_switch. Each failure
 * is logged with its reason and what to do.
 *
 * Return: 0; -EPERM without CAP_BPF and CAP_PERFMON (or root); -ENOENT
 * when no target holds libnpu's probes or functions; -errno of libbpf.
 */
int npubpf_open(const struct npubpf_opts *opts, struct npubpf **bpf);

/**
 * npubpf_fd() - an fd that polls readable when events are waiting
 * @bpf: the handle
 */
int npubpf_fd(const struct npubpf *bpf);

/**
 * npubpf_poll() - wait up to @timeout_ms for events and handle them
 * @bpf: the handle
 * @timeout_ms: as poll()'s; 0 handles what is there
 *
 * The programs wake the poller only when the ring buffer is half full:
 * call this with a timeout of at most a few hundred ms, and the events
 * are read at least that often.
 *
 * Return: events handled; -EINTR; the first error of a callback.
 */
int npubpf_poll(struct npubpf *bpf, int timeout_ms);

/**
 * npubpf_detach() - detach every program, then handle what the ring
 * buffer still holds
 * @bpf: the handle
 *
 * Spans still open (their call had not returned) are not passed on.
 *
 * Return: 0 or the first error of a callback.
 */
int npubpf_detach(struct npubpf *bpf);

/**
 * npubpf_stats() - counters of a handle
 * @bpf: the handle
 * @st: out: set @st->sz first
 *
 * Return: 0, -EINVAL for a bad @sz.
 */
int npubpf_stats(const struct npubpf *bpf, struct npubpf_stats *st);

/**
 * npubpf_close() - detach if needed and free
 * @bpf: the handle, or NULL
 */
void npubpf_close(struct npubpf *bpf);

/* npubpf_target_has() bits */
#define NPUBPF_HAS_USDT		(1 << 0)	/* a .note.stapsdt section */
#define NPUBPF_HAS_FUNCS	(1 << 1)	/* defines npu_runner_run */

/**
 * npubpf_target_has() - whether an ELF file holds libnpu
 * @path: a program or shared object
 *
 * Return: NPUBPF_HAS_* bits (0: neither), -ENOEXEC for a file that is not
 * ELF, -errno of open().
 */
int npubpf_target_has(const char *path);

#endif /* NPUBPF_H */
