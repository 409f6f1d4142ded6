/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - what the files of the npuprof command line tool share: the
 * subcommand table, the totals of a trace (scan.c) and the formatting of
 * times, durations and names (format.c).
 *
 * Single-threaded; nothing here keeps state between calls except the
 * caller's own structs.
 */
#ifndef NPUPROF_CLI_H
#define NPUPROF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/npu.h>

#include "npuprof_analysis.h"

#define NPC_PROG	"npuprof"

/* Default trace file of record and dump, as perf.data is perf's */
#define NPC_DEFAULT_FILE	"npuprof.data"

/**
 * struct npc_cmd - a subcommand
 * @name: as typed after "npuprof"
 * @summary: one line for the command list
 * @help: the man page printed by --help and "npuprof help NAME"
 * @run: runs the command; argv[0] is @name. Returns the exit status.
 */
struct npc_cmd {
	const char *name;
	const char *summary;
	const char *help;
	int (*run)(int argc, char **argv);
};

extern const struct npc_cmd npc_cmd_record;
extern const struct npc_cmd npc_cmd_dump;
extern const struct npc_cmd npc_cmd_export;
extern const struct npc_cmd npc_cmd_summary;
extern const struct npc_cmd npc_cmd_report;
extern const struct npc_cmd npc_cmd_analyze;
extern const struct npc_cmd npc_cmd_memory;
extern const struct npc_cmd npc_cmd_diff;
extern const struct npc_cmd npc_cmd_devices;
extern const struct npc_cmd npc_cmd_top;

struct npu_nl;
struct npu_nl_stats;

/* devices.c: the netlink helpers of devices and top */
int npc_nl_open(const char *cmd, struct npu_nl **nl);
const struct npu_nl_stats *npc_nl_stats_find(const struct npu_nl_stats *st,
					     int n, uint32_t index);

/* Devices of a trace that the totals and the dump name and track */
#define NPC_MAX_DEV	64

/**
 * struct npc_dev - what is known of one device of a trace
 * @name: "npuN" from the DEVICE event, or "devI" before it
 * @clock_hz: nominal clock from the DEVICE event (0: unknown)
 * @have_seq: @last_seq holds the seq of the last record
 * @last_seq: ring seq of the last record seen
 * @fit_seen: a CLOCK_FIT event was seen for it
 * @fit_err_ns: its error bound
 * @fit_samples: its samples
 * @fit_segments: its segments
 * @fit_ns_per_tick: its slope
 */
struct npc_dev {
	char name[24];
	uint64_t clock_hz;
	bool have_seq;
	uint32_t last_seq;
	bool fit_seen;
	uint64_t fit_err_ns;
	uint32_t fit_samples;
	uint32_t fit_segments;
	double fit_ns_per_tick;
};

/**
 * struct npc_totals - what a trace holds, counted over its events
 * @events: events read
 * @spans: host spans (labelled records included)
 * @labels: of them, labelled records
 * @execs: EXEC records
 * @execs_device: of them, with device times (NPU_TRACE_EXEC_F_DEVICE)
 * @ops: OP records
 * @clocks: CLOCK records
 * @other_recs: ring records of other types
 * @lost: records lost, by LOST reason (index NPU_TRACE_LOST_*, 0: unknown)
 * @spans_lost: host spans dropped (HOST_LOST)
 * @seq_gaps: records missing by seq that no RING_FULL LOST record explains
 * @sessions: SESSION events by op (index NPUPROF_SESSION_*)
 * @have_summary: the SUMMARY event was seen
 * @summary: its totals (the session's own counts of what it lost)
 * @ndev: devices in @dev
 * @dev: the devices, by index in the file
 * @untracked_dev: records of devices beyond NPC_MAX_DEV
 */
struct npc_totals {
	uint64_t events;
	uint64_t spans;
	uint64_t labels;
	uint64_t execs;
	uint64_t execs_device;
	uint64_t ops;
	uint64_t clocks;
	uint64_t other_recs;
	uint64_t lost[4];
	uint64_t spans_lost;
	uint64_t seq_gaps;
	uint64_t sessions[5];
	bool have_summary;
	struct npuprof_summary summary;
	uint32_t ndev;
	struct npc_dev dev[NPC_MAX_DEV];
	uint64_t untracked_dev;
};

void npc_totals_init(struct npc_totals *t);
/* Count @ev (any type) */
void npc_totals_add(struct npc_totals *t, const struct npuprof_event *ev);
/* The device @dev, or NULL beyond NPC_MAX_DEV */
const struct npc_dev *npc_totals_dev(const struct npc_totals *t, uint32_t dev);
/* Records lost for every reason */
uint64_t npc_totals_lost(const struct npc_totals *t);
/* Largest clock fit error over the devices; false when no fit was seen */
bool npc_totals_fit_err(const struct npc_totals *t, uint64_t *err_ns);

/* Name of a LOST reason: "ring-full", "device", "host" or "unknown" */
const char *npc_lost_reason_name(uint32_t reason);
/* Name of an NPU_OP_* opcode, or NULL when unknown */
const char *npc_opcode_name(uint32_t opcode);
/* Name of a session op: "START", ... or "UNKNOWN" */
const char *npc_session_op_name(uint32_t op);
/* Name of an NPU_JOB_* status, or NULL when unknown */
const char *npc_job_status_name(uint32_t status);

/* Formatting buffers: big enough for any value printed */
#define NPC_FMT_LEN	48

/* "12345.678901234" (seconds, 9 decimals; signed) */
const char *npc_fmt_time(char *buf, int64_t ns);
/* "12 ns", "12.345 us", "1.234 ms", "1.234 s"; signed */
const char *npc_fmt_dur(char *buf, int64_t ns);
/* "1.2 MiB", "512 B" */
const char *npc_fmt_bytes(char *buf, uint64_t bytes);

/* CLOCK_MONOTONIC in ns, the clock of every trace time */
uint64_t npc_now_ns(void);

/* Print "npuprof: " and the message to stderr */
void npc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "npuprof: warning: " and the message to stderr */
void npc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The usage error of getopt_long()'s @c ':' (a missing value) or '?' (an
 * unknown option) in @argv; returns 2
 */
int npc_bad_option(const char *prog, int c, char **argv);

/* analyze.c: --format table|csv|json|jsonl (returns 2 after a message) */
int npc_parse_format(const char *prog, const char *s, unsigned int *format);
/* The FILE operand (default NPC_DEFAULT_FILE); 0 or a usage error's 2 */
int npc_file_operand(const char *prog, int argc, char **argv,
		     const char **input);
/* Open a trace, NULL after a message; a library error's message, returns 1 */
struct npuprof_trace *npc_open_trace(const char *input);
int npc_trace_failed(struct npuprof_trace *tr, int ret);
/*
 * The warning of what the reader of @tr skipped (npuprof_trace_skipped():
 * damaged MODEL items, dropped layer tables), if anything
 */
void npc_warn_skipped(const struct npuprof_trace *tr);
/*
 * The warning of the damaged chunks the reader of @tr (the file @input)
 * skipped (npuprof_trace_damage()), one line, if any
 */
void npc_warn_damage(const struct npuprof_trace *tr, const char *input);
/* "N items", "at least N items" or "items unknown" of @d, into @buf */
const char *npc_fmt_damage_items(char *buf, size_t len,
				 const struct npuprof_damage *d);

/* Print @help to stdout; returns 0 (the status of --help) */
int npc_help(const struct npc_cmd *cmd);

#endif /* NPUPROF_CLI_H */
