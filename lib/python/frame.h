/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frame.h - tables of the analysis library into pandas DataFrames, filled
 * column by column from its row sink (NPUPROF_FORMAT_ROWS), with no text
 * made or parsed between (frame.c).
 *
 * Use: npp_frames_new() with the columns wanted; npuprof_report() (or
 * analyze, diff, breakdown) with npp_frames_sink(), the GIL released (the
 * sink touches no Python object); then, with the GIL, npp_frames_table()
 * or npp_frames_reference(); npp_frames_free() with the GIL.
 */
#ifndef NPP_FRAME_H
#define NPP_FRAME_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "npuprof_analysis.h"

struct npp_frames;

/*
 * npp_frames_new() - an empty set of tables
 * @want: NULL-terminated names of the columns to keep (of every table),
 *	or NULL for all; the strings are copied
 *
 * Return: the set, or NULL with a Python exception set (with the GIL).
 */
struct npp_frames *npp_frames_new(const char *const *want);

/* The sink that fills @f; valid until npp_frames_free() */
const struct npuprof_row_sink *npp_frames_sink(struct npp_frames *f);

/*
 * npp_frames_error() - the sink's error (-ENOMEM), 0 if none; the
 * library's call returns it too
 */
int npp_frames_error(const struct npp_frames *f);

/*
 * npp_frames_table() - the DataFrame of @table (enum npuprof_table, 0 for
 * analyze, diff and breakdown): int64 columns (uint64 when a value needs
 * it), float64 with NaN, object holding str or None; integer columns with
 * an empty cell are pandas' nullable IntegerArray; a column empty in every
 * row holds None. The arrays take over the columns' memory. With the GIL.
 */
PyObject *npp_frames_table(struct npp_frames *f, unsigned int table);

/*
 * npp_frames_reference() - get_pandas_dataframe(): the spans, then the
 * NPU executions, then the operator records, in the reference profiler's
 * columns @cols (NULL-terminated; NULL: all of them), from the three
 * tables of one pass (npp_reference_tables(): its mask; the columns
 * npp_reference_want() names). With the GIL.
 */
PyObject *npp_frames_reference(struct npp_frames *f, const char *const *cols);

/* The tables npp_frames_reference() needs (1u << enum npuprof_table) */
unsigned int npp_reference_tables(void);

/*
 * npp_reference_want() - the source columns that the reference columns
 * @cols (NULL-terminated, NULL: all) need, into @out (NULL-terminated,
 * room for 64 names); -1 with ValueError set for a name it lacks
 */
int npp_reference_want(const char *const *cols, const char **out);

void npp_frames_free(struct npp_frames *f);

#endif /* NPP_FRAME_H */
