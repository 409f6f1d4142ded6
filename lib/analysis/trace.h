/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trace.h - the reader's internals shared with the analyses (trace.c): the
 * fits of an open trace, a record's durations, errors.
 */
#ifndef NPF_TRACE_H
#define NPF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/npu.h>
#include "npuprof_analysis.h"
#include "clock.h"

/* The clock fit of device @dev of an open trace, or NULL (trace.c) */
const struct npf_clock_fit *npf_trace_fit(const struct npuprof_trace *t,
					  uint32_t dev);

/*
 * npf_trace_open() - npuprof_trace_open(); with @keep, the clock samples
 * the fits were made of are kept, for npf_trace_samples()
 */
int npf_trace_open(const char *path, bool keep, struct npuprof_trace **trace,
		   char *err, size_t errlen);

/*
 * npf_trace_samples() - the clock samples device @dev's fit was made of,
 * in file order, and its nominal clock, of a trace opened with @keep
 * (for the index that a writer of a synthetic trace appends: the
 * session keeps its own). Return: 0, or -EINVAL (not kept, no device).
 */
int npf_trace_samples(const struct npuprof_trace *t, uint32_t dev,
		      const struct npf_clock_sample **s, size_t *n,
		      uint64_t *clock_hz);

/* The number of devices of an open trace */
uint32_t npf_trace_ndev(const struct npuprof_trace *t);

/*
 * npf_trace_next() - npuprof_trace_next(), but the fit and summary of an
 * event of another type than CLOCK_FIT and SUMMARY are left as they were,
 * not zeroed (the timeline reads them only there: half the stores of an
 * event)
 */
int npf_trace_next(struct npuprof_trace *t, struct npuprof_event *ev);

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

/*
 * npf_trace_set_error() - make npuprof_trace_error() return "PATH: MSG"
 * (trace.c); used by the exporters for errors that are not the file's
 */
void npf_trace_set_error(struct npuprof_trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* NPF_TRACE_H */
