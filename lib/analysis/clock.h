/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * clock.h - the drift-aware fit of device ticks to host time (clock.c,
 * Documentation/npu/clock-fit.rst).
 */
#ifndef NPF_CLOCK_H
#define NPF_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npuprof_analysis.h"
#include "trace_format.h"

/*
 * npf_round_i64() - llround(@x) for |@x| < 2^63, inline (the callers check
 * the range): the truncation is exact, and so is the fraction x - trunc(x)
 * (|x| < 2^52: a double holds it; above, x is an integer); halves go away
 * from zero as llround's do.
 */
static inline int64_t npf_round_i64(double x)
{
	int64_t i = (int64_t)x;
	double f = x - (double)i;

	/*
	 * Without branches: the fraction of a mapped time is random, and a
	 * branch on it mispredicts every other time (half the cost of a map)
	 */
	return i + (int64_t)(f >= 0.5) - (int64_t)(f <= -0.5);
}

/* ------------------------------------------------------------------ */
/* Clock fit                                                            */
/* ------------------------------------------------------------------ */

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
 * @span: @last_tick - @ref_tick, as a double (npf_clock_seg_prepare())
 * @err_in: growth of the bound per tick between @ref_tick and @last_tick,
 *	the rounding of the mapped offset included (npf_clock_seg_prepare())
 * @fast: a tick from @ref_tick to @last_tick maps without a range check:
 *	its offset, time and bound cannot overflow (npf_clock_seg_prepare())
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
	uint32_t fast;
	uint64_t last_tick;
	double err_first;
	double err_last;
	double err_slope;
	double span;
	double err_in;
};

/*
 * npf_clock_seg_prepare() - set @g's @span, @err_in and @fast from its
 * other fields: a piece is mapped with them (one multiply for the bound
 * between its samples, no division)
 */
void npf_clock_seg_prepare(struct npf_clock_seg *g);

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

/*
 * npf_clock_fit_build_tol() - npf_clock_fit_build() with a model
 * tolerance of at least @tol_min_ns instead of a device's 1 us: for a
 * clock as close to CLOCK_MONOTONIC as the host's TSC (clock-fit.rst).
 */
int npf_clock_fit_build_tol(struct npf_clock_sample *s, size_t n,
			    uint64_t clock_hz, double tol_min_ns,
			    struct npf_clock_fit *fit);

/* npf_clock_map() - map @tick; out->err_ns bounds the error */
void npf_clock_map(const struct npf_clock_fit *fit, uint64_t tick,
		   struct npuprof_clock_map *out);

/*
 * npf_clock_map_cached() - npf_clock_map(), the same result, for ticks that
 * mostly come in order: *@piece (the caller's, 0 at first, one per fit and
 * reader) is the piece of the last tick, tried first and updated.
 */
void npf_clock_map_cached(const struct npf_clock_fit *fit, uint32_t *piece,
			  uint64_t tick, struct npuprof_clock_map *out);

/*
 * npf_clock_map2_cached() - npf_clock_map_cached() of @a into *@out_a,
 * then of @b into *@out_b (a record's start and end): one call, the fit
 * checked once; the same results.
 */
void npf_clock_map2_cached(const struct npf_clock_fit *fit, uint32_t *piece,
			   uint64_t a, uint64_t b,
			   struct npuprof_clock_map *out_a,
			   struct npuprof_clock_map *out_b);

void npf_clock_fit_release(struct npf_clock_fit *fit);

#endif /* NPF_CLOCK_H */
