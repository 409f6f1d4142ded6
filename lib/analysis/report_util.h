/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report_util.h - what the reports share: names of opcodes, statuses and
 * LOST reasons, ids in hex (report_util.c), the table writer
 * (report_fmt.c).
 */
#ifndef NPF_REPORT_UTIL_H
#define NPF_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "npuprof_analysis.h"

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

/* -- table writer (report_fmt.c) -- */

/* npf_col.type: enum npuprof_col_type */
enum {
	NPF_COL_STR = NPUPROF_COL_STR,
	NPF_COL_I64 = NPUPROF_COL_I64,
	NPF_COL_U64 = NPUPROF_COL_U64,
	NPF_COL_F64 = NPUPROF_COL_F64,
};
/*
 * npf_col.flags: left out of NPUPROF_FORMAT_TABLE (machine formats and
 * NPUPROF_FORMAT_WIDE only)
 */
#define NPF_COL_DATA	1u
/*
 * npf_col.flags: in NPUPROF_FORMAT_TABLE only when the table has such
 * values (the layer names of a trace with layer tables), as wide as
 * npf_tw.opt_w says
 */
#define NPF_COL_OPT	2u
/*
 * npf_col.flags: in the machine formats only, not even in
 * NPUPROF_FORMAT_WIDE (a record's ids in the rows of an aggregate, all null)
 */
#define NPF_COL_NOTEXT	4u

/* The widest an NPF_COL_OPT column gets for its values (longer ones stick out) */
#define NPF_OPT_W_MAX	40

/* A column: its label, type, text width and flags */
struct npf_col {
	const char *name;
	uint8_t type;
	uint8_t flags;
	int width;
};

/*
 * A table being written: to @out in @format, or with NPUPROF_FORMAT_ROWS
 * to @sink, whose first non-zero return is kept in @err (the rows after
 * it are dropped)
 */
struct npf_tw {
	FILE *out;
	unsigned int format;	/* NPUPROF_FORMAT_WIDE is TABLE with @wide */
	bool wide;
	int opt_w;		/* NPF_COL_OPT columns' width, 0: hidden */
	const struct npf_col *cols;
	unsigned int ncols;
	uint64_t rows;
	bool name_index;
	const struct npuprof_row_sink *sink;
	unsigned int table;
	int err;
};

/*
 * npf_tw_begin() - start a table of @ncols @cols in @format (TABLE, WIDE,
 * CSV, JSONL or JSON) on @out; @name_index: the first column is the row label
 * (pandas' named index) instead of a row number. For NPUPROF_FORMAT_ROWS,
 * npf_tw_sink() after it.
 */
void npf_tw_begin(struct npf_tw *w, FILE *out, unsigned int format,
		  const struct npf_col *cols, unsigned int ncols,
		  bool name_index);
/*
 * npf_tw_begin(), the NPF_COL_OPT columns shown in the text @opt_w wide
 * (0: hidden); npf_opt_w() of their longest value gives it
 */
void npf_tw_begin_opt(struct npf_tw *w, FILE *out, unsigned int format,
		      const struct npf_col *cols, unsigned int ncols,
		      bool name_index, int opt_w);

/* The width @s asks of an NPF_COL_OPT column already @w wide */
static inline int npf_opt_w(int w, const char *s)
{
	size_t n = strlen(s);

	if (n > NPF_OPT_W_MAX)
		n = NPF_OPT_W_MAX;
	return (int)n > w ? (int)n : w;
}
/* NPUPROF_FORMAT_ROWS: the columns of @table to @sink; returns w->err */
int npf_tw_sink(struct npf_tw *w, const struct npuprof_row_sink *sink,
		unsigned int table);
void npf_tw_row(struct npf_tw *w, const struct npuprof_value *v);
/* Ends the table; returns w->err (a sink's), 0 for the text formats */
int npf_tw_end(struct npf_tw *w);
/* @s as a JSON string (escaped, valid UTF-8) */
void npf_json_str(FILE *f, const char *s);

/*
 * npf_percentile() - the @pm-th permille (500: the median) of the @n > 0
 * sorted values @v: linear interpolation between the closest ranks
 * (numpy's default), rounded to the nearest integer, halves up; exact
 */
int64_t npf_percentile(const int64_t *v, size_t n, unsigned int pm);

/*
 * npf_report_opts() - the report options @in (NULL: the defaults) into
 * *@o, checked as libbpf's OPTS_VALID does: @in->sz at least a size_t;
 * the bytes of a newer caller's struct beyond ours all 0, else -E2BIG;
 * a format of 0 is NPUPROF_FORMAT_TABLE. Return: 0, -EINVAL, -E2BIG.
 */
int npf_report_opts(const struct npuprof_report_opts *in,
		    struct npuprof_report_opts *o);

/*
 * npf_opts_copy() - an options struct @in (NULL: keep @o), which starts
 * with its size_t sz, over the defaults in @o (@osz bytes, ours): a
 * smaller one keeps the defaults it lacks, a larger one's bytes beyond
 * ours must be 0; @o's sz becomes @osz. Return: 0, -EINVAL (sz below
 * @min), -E2BIG.
 */
int npf_opts_copy(void *o, size_t osz, const void *in, size_t min);

#endif /* NPF_REPORT_UTIL_H */
