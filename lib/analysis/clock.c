// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * clock.c - the clock fit: maps device ticks to host CLOCK_MONOTONIC ns from
 * the bracketed CLOCK samples of a whole trace, piecewise linear where the
 * device clock's drift changes, every mapped time with an honest error
 * bound (Documentation/npu/clock-fit.rst).
 *
 * The set of lines host = a + b * tick that pass through every kept bracket
 * (the feasible set, a convex polygon in the (a, b) plane) is kept exactly;
 * the bound of a mapped time is the distance from the reported line to the
 * farthest feasible line at that tick. Outliers are rejected against the
 * consensus of their neighbours, then against the feasible set; a change of
 * drift starts a new piece.
 *
 * Locking: none; a fit is built once and then only read, so any number of
 * threads may map through it. Lifetime: npf_clock_fit_build() allocates the
 * pieces, npf_clock_fit_release() frees them. No global state.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "clock.h"

/* Assumed worst frequency error of a device clock against its nominal rate */
#define NPF_CLOCK_MAX_PPM	1000.0
/* Model tolerance: the median bracket width over this, at least ... */
#define NPF_CLOCK_TOL_DIV	16
/* ... this many ns (a device's; npf_clock_fit_build_tol() takes another) */
#define NPF_CLOCK_TOL_MIN	1000.0
/* A bracket wider than this many times the median is dropped */
#define NPF_CLOCK_WIDE_FACTOR	8
/* ... and wider than the median plus this (ns) */
#define NPF_CLOCK_WIDE_FLOOR	1000
/* Neighbours on each side that judge a sample (consensus) */
#define NPF_CLOCK_NEIGH		5
/* Samples after a misfit that decide outlier or change of drift */
#define NPF_CLOCK_LOOKAHEAD	3
/* Vertices of a feasible polygon before it is replaced by its bounding box */
#define NPF_CLOCK_POLY_CAP	256
/* Host ns above this are corrupt (146 years of uptime) */
#define NPF_CLOCK_NS_MAX	((uint64_t)INT64_MAX / 2)
/* Relative error of one double operation, with margin */
#define NPF_CLOCK_EPS		0x1p-50

/* sample states during a build (else: the piece's index) */
#define SID_NONE	(-1)	/* not decided yet */
#define SID_DROP	(-2)	/* outlier */
#define SID_ZONE	(-3)	/* between two pieces, in neither */

struct vtx {
	double a;	/* ns at the frame's tick, relative to its ns */
	double b;	/* ns per tick, relative to the frame's slope */
};

struct poly {
	uint32_t n;
	struct vtx v[NPF_CLOCK_POLY_CAP + 4];
};

/*
 * A coordinate frame: ticks relative to @t0, ns relative to @h0 and to the
 * line of slope @k through (t0, h0), so that the numbers stay small.
 */
struct frame {
	uint64_t t0;
	uint64_t h0;
	double k;
	double tol;
};

struct work {
	struct npf_clock_sample *s;
	size_t n;
	int32_t *sid;
	double k;		/* centre of the slope window, ns per tick */
	double kwin;		/* half-width of the slope window */
	double tol;		/* model tolerance: brackets widened by it */
	double gross;		/* a miss larger than this may be an outlier */
	double half;		/* median half-width of the brackets */
	struct poly p, q, t1, t2, tmp_start;
};

/* @x - @y as a double, exact below 2^53, never wrapping */
static inline double udiff(uint64_t x, uint64_t y)
{
	/* both below 2^63: the difference is an int64, converted in one
	 * instruction; rounding to nearest is symmetric, so the same value */
	if (npf_likely(!((x | y) >> 63)))
		return (double)(int64_t)(x - y);
	return x >= y ? (double)(x - y) : -(double)(y - x);
}

static int cmp_sample(const void *pa, const void *pb)
{
	const struct npf_clock_sample *a = pa, *b = pb;
	uint64_t wa = a->after_ns - a->before_ns;
	uint64_t wb = b->after_ns - b->before_ns;

	if (a->tick != b->tick)
		return a->tick < b->tick ? -1 : 1;
	if (wa != wb)
		return wa < wb ? -1 : 1;
	if (a->before_ns != b->before_ns)
		return a->before_ns < b->before_ns ? -1 : 1;
	return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/*
 * The @k-th smallest of @v[0..@n) (reorders @v): quickselect, median of
 * three pivots; after 64 rounds (an adversarial input) it sorts what is
 * left, so it is O(n) expected and O(n log n) at worst.
 */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	unsigned int rounds = 0;

	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi], piv;
		size_t i = lo, j = hi;

		if (++rounds > 64) {
			qsort(v + lo, hi - lo + 1, sizeof(*v), cmp_double);
			break;
		}
		piv = a < b ? (b < c ? b : (a < c ? c : a)) :
			      (a < c ? a : (b < c ? c : b));
		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == lo)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

/* Median of @n (<= 2 * NPF_CLOCK_NEIGH) values; sorts @v */
static double small_median(double *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		double x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t width(const struct npf_clock_sample *s)
{
	return s->after_ns - s->before_ns;
}

/* ---- input hygiene ---- */

/* Drop corrupt samples, sort by tick, merge equal ticks. Return: kept. */
static size_t clean_samples(struct npf_clock_sample *s, size_t n)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (s[i].after_ns >= s[i].before_ns &&
		    s[i].after_ns <= NPF_CLOCK_NS_MAX)
			s[m++] = s[i];
	if (!m)
		return 0;
	qsort(s, m, sizeof(*s), cmp_sample);
	/*
	 * Equal ticks: the latch lies in the intersection of their brackets;
	 * when it is empty one of them lies, and the narrowest (first) stays.
	 */
	n = m;
	m = 0;
	for (i = 0; i < n; i++) {
		struct npf_clock_sample *p = m ? &s[m - 1] : NULL;

		if (p && p->tick == s[i].tick) {
			uint64_t lo = p->before_ns > s[i].before_ns ?
				      p->before_ns : s[i].before_ns;
			uint64_t hi = p->after_ns < s[i].after_ns ?
				      p->after_ns : s[i].after_ns;

			if (lo <= hi) {
				p->before_ns = lo;
				p->after_ns = hi;
			}
			continue;
		}
		s[m++] = s[i];
	}
	return m;
}

/*
 * Drop brackets far wider than the median (preempted host); *@med: the
 * median width of the @n samples given.
 */
static int drop_wide(struct npf_clock_sample *s, size_t *n, uint64_t *med)
{
	uint64_t lim;
	size_t i, m = 0;
	double *w;

	*med = *n ? width(&s[0]) : 0;
	if (*n < 2)
		return 0;
	w = malloc(*n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (i = 0; i < *n; i++)
		w[i] = (double)width(&s[i]);
	*med = (uint64_t)select_kth(w, *n, (*n - 1) / 2);
	free(w);
	if (*n < 3)
		return 0;
	lim = *med * NPF_CLOCK_WIDE_FACTOR;
	if (lim < *med + NPF_CLOCK_WIDE_FLOOR)
		lim = *med + NPF_CLOCK_WIDE_FLOOR;
	for (i = 0; i < *n; i++)
		if (width(&s[i]) <= lim)
			s[m++] = s[i];
	*n = m;
	return 0;
}

static double midpoint_diff(const struct npf_clock_sample *a,
			    const struct npf_clock_sample *b)
{
	return udiff(a->before_ns, b->before_ns) +
	       ((double)width(a) - (double)width(b)) / 2;
}

/*
 * The slope window: nominal rate +- NPF_CLOCK_MAX_PPM, widened to cover the
 * rate the samples show (median slope between samples half a trace apart),
 * so that a skewed clock is still fitted.
 */
static int slope_window(struct work *w, uint64_t clock_hz)
{
	double kn = 1e9 / (double)clock_hz, lo = kn, hi = kn, med;
	size_t i, h = w->n / 2, np;
	double *sl;

	if (w->n >= 3) {
		np = w->n - h;
		sl = malloc(np * sizeof(*sl));
		if (!sl)
			return -ENOMEM;
		for (i = 0; i < np; i++)
			sl[i] = midpoint_diff(&w->s[i + h], &w->s[i]) /
				udiff(w->s[i + h].tick, w->s[i].tick);
		med = select_kth(sl, np, np / 2);
		if (isfinite(med) && med > 0) {
			if (med < lo)
				lo = med;
			else
				hi = med;
		}
		free(sl);
	}
	w->k = (lo + hi) / 2;
	w->kwin = (hi - lo) / 2 + kn * NPF_CLOCK_MAX_PPM * 1e-6;
	return 0;
}

/*
 * Consensus of the neighbours: a sample whose bracket misses the line
 * through its neighbours (median intercept at the window's slope) by more
 * than their scatter (3 median deviations + 3 median half-widths + 1 us)
 * allows is an outlier. Marks w->sid[] SID_DROP.
 */
static void drop_inconsistent(struct work *w)
{
	double r[2 * NPF_CLOCK_NEIGH], d[2 * NPF_CLOCK_NEIGH];
	size_t i, j, lo, hi;

	for (i = 0; i < w->n; i++) {
		unsigned int c = 0;
		double med, mad, tol, miss, wi;

		lo = i > NPF_CLOCK_NEIGH ? i - NPF_CLOCK_NEIGH : 0;
		hi = i + NPF_CLOCK_NEIGH < w->n ? i + NPF_CLOCK_NEIGH : w->n - 1;
		for (j = lo; j <= hi; j++) {
			if (j == i)
				continue;
			r[c] = midpoint_diff(&w->s[j], &w->s[i]) -
			       w->k * udiff(w->s[j].tick, w->s[i].tick);
			c++;
		}
		if (c < 4)
			continue;
		memcpy(d, r, sizeof(r));
		med = small_median(d, c);	/* relative to i's midpoint */
		for (j = 0; j < c; j++)
			d[j] = fabs(r[j] - med);
		mad = small_median(d, c);
		tol = 3 * mad + 3 * w->half + 1000;
		wi = (double)width(&w->s[i]) / 2;
		miss = fabs(med) - wi;
		if (miss > tol)
			w->sid[i] = SID_DROP;
	}
}

/* ---- the feasible polygon ---- */

static void frame_of(const struct work *w, size_t i, struct frame *f)
{
	f->t0 = w->s[i].tick;
	f->h0 = w->s[i].before_ns;
	f->k = w->k;
	f->tol = w->tol;
}

/* Bracket of sample @s in frame @f, widened by the rounding it suffers */
static void bracket(const struct frame *f, const struct npf_clock_sample *s,
		    double *x, double *lo, double *hi)
{
	double y = udiff(s->before_ns, f->h0);
	double kx, slack;

	*x = udiff(s->tick, f->t0);
	kx = f->k * *x;
	slack = 0.5 + f->tol + (fabs(y) + fabs(kx) + (double)width(s)) *
		NPF_CLOCK_EPS;
	*lo = y - kx - slack;
	*hi = y + (double)width(s) - kx + slack;
}

/* The rectangle of lines through sample @s (the frame's origin) */
static void poly_init(struct poly *p, const struct work *w,
		      const struct frame *f, const struct npf_clock_sample *s)
{
	double x, lo, hi;

	bracket(f, s, &x, &lo, &hi);
	p->n = 4;
	p->v[0] = (struct vtx){ lo, -w->kwin };
	p->v[1] = (struct vtx){ hi, -w->kwin };
	p->v[2] = (struct vtx){ hi, w->kwin };
	p->v[3] = (struct vtx){ lo, w->kwin };
}

/* Keep the part of @p where sign * (a + b * x - c) >= 0, into @out */
static void clip_half(const struct poly *p, double x, double c, double sign,
		      struct poly *out)
{
	uint32_t i, n = 0;

	for (i = 0; i < p->n; i++) {
		const struct vtx *u = &p->v[i], *v = &p->v[(i + 1) % p->n];
		double fu = sign * (u->a + u->b * x - c);
		double fv = sign * (v->a + v->b * x - c);

		if (fu >= 0)
			out->v[n++] = *u;
		if ((fu >= 0) != (fv >= 0)) {
			double t = fu / (fu - fv);	/* fu != fv here */

			out->v[n].a = u->a + (v->a - u->a) * t;
			out->v[n].b = u->b + (v->b - u->b) * t;
			n++;
		}
	}
	out->n = n;
}

/* Replace @p by its bounding box: a superset, so still honest */
static void poly_box(struct poly *p)
{
	double a0 = p->v[0].a, a1 = a0, b0 = p->v[0].b, b1 = b0;
	uint32_t i;

	for (i = 1; i < p->n; i++) {
		a0 = fmin(a0, p->v[i].a);
		a1 = fmax(a1, p->v[i].a);
		b0 = fmin(b0, p->v[i].b);
		b1 = fmax(b1, p->v[i].b);
	}
	p->n = 4;
	p->v[0] = (struct vtx){ a0, b0 };
	p->v[1] = (struct vtx){ a1, b0 };
	p->v[2] = (struct vtx){ a1, b1 };
	p->v[3] = (struct vtx){ a0, b1 };
}


static void poly_copy(struct poly *dst, const struct poly *src)
{
	dst->n = src->n;
	memcpy(dst->v, src->v, src->n * sizeof(src->v[0]));
}

/* Range of the lines of @p at @x */
static void poly_range(const struct poly *p, double x, double *lo,
		       double *hi)
{
	uint32_t i;

	*lo = *hi = p->v[0].a + p->v[0].b * x;
	for (i = 1; i < p->n; i++) {
		double y = p->v[i].a + p->v[i].b * x;

		*lo = fmin(*lo, y);
		*hi = fmax(*hi, y);
	}
}

/*
 * Cut @p down to the lines that pass through the bracket of @s. Return:
 * false, @p unchanged, when none does.
 */
static bool cut(struct work *w, struct poly *p, const struct frame *f,
		const struct npf_clock_sample *s)
{
	double x, lo, hi, rlo, rhi;

	bracket(f, s, &x, &lo, &hi);
	poly_range(p, x, &rlo, &rhi);
	if (rhi < lo || rlo > hi)
		return false;
	if (rlo >= lo && rhi <= hi)
		return true;	/* the bracket cuts nothing: most samples */
	clip_half(p, x, lo, 1, &w->t1);
	if (!w->t1.n)
		return false;
	clip_half(&w->t1, x, hi, -1, &w->t2);
	if (!w->t2.n)
		return false;
	poly_copy(p, &w->t2);
	if (p->n > NPF_CLOCK_POLY_CAP)
		poly_box(p);
	return true;
}

/* How far the (widened) bracket of @s misses the lines of @p */
static double miss(const struct poly *p, const struct frame *f,
		   const struct npf_clock_sample *s)
{
	double x, lo, hi, rlo, rhi;

	bracket(f, s, &x, &lo, &hi);
	poly_range(p, x, &rlo, &rhi);
	return fmax(lo - rhi, rlo - hi);
}

/* Whether the lines of @p through the samples @la[0..@n) exist */
static bool fits_all(struct work *w, const struct poly *p,
		     const struct frame *f, const size_t *la, unsigned int n)
{
	unsigned int i;

	poly_copy(&w->q, p);
	for (i = 0; i < n; i++)
		if (!cut(w, &w->q, f, &w->s[la[i]]))
			return false;
	return true;
}

/* ---- segmentation ---- */

/*
 * Greedy: extend the current piece while its feasible set stays non-empty.
 * A sample that leaves no line is an outlier when it misses the piece by
 * more than w->gross and the next samples still fit the piece, or when
 * they do not fit a piece starting at it either; else the drift changed
 * and a new piece starts at it (a small miss is never dropped: dropping
 * the first samples of a drift change would let the piece bend away from
 * the truth). Each sample is
 * looked at once (plus a bounded look-ahead). Return: pieces; first[i] is
 * the first sample of piece i.
 */
static size_t segment(struct work *w, size_t *first)
{
	size_t i = 0, j, nseg = 0, la[NPF_CLOCK_LOOKAHEAD];
	struct frame f, g;

	for (;;) {
		while (i < w->n && w->sid[i] == SID_DROP)
			i++;
		if (i >= w->n)
			break;
		frame_of(w, i, &f);
		poly_init(&w->p, w, &f, &w->s[i]);
		w->sid[i] = (int32_t)nseg;
		first[nseg] = i;
		for (j = i + 1; j < w->n; j++) {
			unsigned int nla = 0;
			size_t k;

			if (w->sid[j] == SID_DROP)
				continue;
			if (cut(w, &w->p, &f, &w->s[j])) {
				w->sid[j] = (int32_t)nseg;
				continue;
			}
			for (k = j + 1; k < w->n && nla < NPF_CLOCK_LOOKAHEAD;
			     k++)
				if (w->sid[k] != SID_DROP)
					la[nla++] = k;
			if (nla) {
				if (miss(&w->p, &f, &w->s[j]) > w->gross &&
				    fits_all(w, &w->p, &f, la, nla)) {
					w->sid[j] = SID_DROP;
					continue;
				}
				frame_of(w, j, &g);
				poly_init(&w->tmp_start, w, &g, &w->s[j]);
				if (!fits_all(w, &w->tmp_start, &g, la, nla)) {
					w->sid[j] = SID_DROP;
					continue;
				}
			}
			break;
		}
		nseg++;
		i = j;
	}
	return nseg;
}

/* Samples [from, to) of piece @id cut into @p in the frame of @from */
static void piece_poly(struct work *w, int32_t id, size_t from, size_t to,
		       struct poly *p, struct frame *f, size_t *last,
		       uint32_t *cnt)
{
	size_t i;

	frame_of(w, from, f);
	poly_init(p, w, f, &w->s[from]);
	*last = from;
	*cnt = 1;
	for (i = from + 1; i < to; i++) {
		if (w->sid[i] != id)
			continue;
		if (!cut(w, p, f, &w->s[i])) {
			w->sid[i] = SID_DROP;	/* rounding; cannot happen */
			continue;
		}
		*last = i;
		(*cnt)++;
	}
}

/*
 * The end of piece @a that the next piece also fits is a transition zone:
 * the drift may have changed anywhere in it, so neither piece is fitted on
 * it, and a tick inside it is bounded by both (npf_clock_map()).
 */
static void mark_zones(struct work *w, const size_t *first, size_t nseg)
{
	size_t a, i, to, last;
	struct frame f;
	uint32_t cnt;

	for (a = 0; a + 1 < nseg; a++) {
		to = a + 2 < nseg ? first[a + 2] : w->n;
		piece_poly(w, (int32_t)(a + 1), first[a + 1], to, &w->p, &f,
			   &last, &cnt);
		for (i = first[a + 1] - 1; i > first[a]; i--) {
			if (w->sid[i] != (int32_t)a)
				continue;
			if (!cut(w, &w->p, &f, &w->s[i]))
				break;
			w->sid[i] = SID_ZONE;
		}
	}
}

/* The reported line of a piece and the bounds of its error */
static void piece_fit(struct work *w, size_t from, size_t to, int32_t id,
		      struct npf_clock_seg *seg)
{
	double lo, hi, c0, c1, xl, bc, e1 = 0, e2 = 0, es = 0;
	struct frame f;
	size_t last;
	uint32_t i, cnt;
	long long rn;

	piece_poly(w, id, from, to, &w->p, &f, &last, &cnt);
	xl = udiff(w->s[last].tick, f.t0);
	poly_range(&w->p, 0, &lo, &hi);
	c0 = (lo + hi) / 2;
	poly_range(&w->p, xl, &lo, &hi);
	c1 = (lo + hi) / 2;
	bc = xl > 0 ? (c1 - c0) / xl : 0;
	for (i = 0; i < w->p.n; i++) {
		const struct vtx *v = &w->p.v[i];

		e1 = fmax(e1, fabs(v->a - c0));
		e2 = fmax(e2, fabs(v->a + v->b * xl - (c0 + bc * xl)));
		es = fmax(es, fabs(v->b - bc));
	}
	/* the arithmetic above, in doubles, rounds too */
	e2 += (fabs(c0) + fabs(bc * xl) + e2) * NPF_CLOCK_EPS;
	rn = llround(c0);
	seg->ref_tick = f.t0;
	seg->ref_ns = (int64_t)f.h0 + rn;	/* both far below 2^62 */
	seg->ns_per_tick = f.k + bc;
	seg->last_tick = w->s[last].tick;
	/*
	 * + tol: the truth may stray that far from the best line of the
	 * piece; + tol again: margin for a bend of the clock a little larger
	 * than tol, which the brackets may not reveal (clock-fit.rst);
	 * + 1: the fraction of c0 dropped by rn, the final rounding
	 */
	seg->err_first = e1 + 2 * w->tol + 1;
	seg->err_last = e2 + 2 * w->tol + 1;
	seg->err_slope = es + fabs(seg->ns_per_tick) * NPF_CLOCK_EPS;
	seg->err_ns = (uint64_t)ceil(fmax(seg->err_first, seg->err_last));
	seg->n = cnt;
	npf_clock_seg_prepare(seg);
}

int npf_clock_fit_build(struct npf_clock_sample *s, size_t n,
			uint64_t clock_hz, struct npf_clock_fit *fit)
{
	return npf_clock_fit_build_tol(s, n, clock_hz, NPF_CLOCK_TOL_MIN, fit);
}

int npf_clock_fit_build_tol(struct npf_clock_sample *s, size_t n,
			    uint64_t clock_hz, double tol_min_ns,
			    struct npf_clock_fit *fit)
{
	struct work *w = NULL;
	size_t *first = NULL, m, i, nseg;
	uint64_t med;
	int ret;

	if (!fit)
		return -EINVAL;
	memset(fit, 0, sizeof(*fit));
	if (!clock_hz || (n && !s) || n > INT32_MAX)
		return -EINVAL;
	fit->clock_hz = clock_hz;
	fit->samples = (uint32_t)n;
	m = clean_samples(s, n);
	ret = drop_wide(s, &m, &med);
	if (ret || !m)
		return ret;

	w = calloc(1, sizeof(*w));
	first = malloc(m * sizeof(*first));
	if (w)
		w->sid = malloc(m * sizeof(*w->sid));
	ret = -ENOMEM;
	if (!w || !first || !w->sid)
		goto out;
	w->s = s;
	w->n = m;
	w->tol = fmax(tol_min_ns, (double)med / NPF_CLOCK_TOL_DIV);
	w->gross = fmax(4 * w->tol, (double)med);
	w->half = (double)med / 2;
	for (i = 0; i < m; i++)
		w->sid[i] = SID_NONE;
	ret = slope_window(w, clock_hz);
	if (ret)
		goto out;
	drop_inconsistent(w);
	nseg = segment(w, first);
	if (!nseg)
		goto out;	/* ret 0: everything was an outlier */
	mark_zones(w, first, nseg);
	fit->seg = calloc(nseg, sizeof(*fit->seg));
	if (!fit->seg) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nseg; i++) {
		struct npf_clock_seg *g = &fit->seg[i];

		piece_fit(w, first[i], i + 1 < nseg ? first[i + 1] : m,
			  (int32_t)i, g);
		g->tick0 = i ? g->ref_tick : 0;
		if (g->err_ns > fit->err_ns)
			fit->err_ns = g->err_ns;
	}
	fit->nseg = (uint32_t)nseg;
	for (i = 0; i < m; i++)
		if (w->sid[i] != SID_DROP)
			fit->used++;
	ret = 0;
out:
	if (w)
		free(w->sid);
	free(w);
	free(first);
	return ret;
}

/* ---- mapping ---- */

/* ceil(@x) for 0 <= @x < 2^63 (and x in (-1, 0): 0), inline */
static inline uint64_t ceil_u64(double x)
{
	int64_t c = (int64_t)x;

	return (uint64_t)c + ((double)c < x);
}

void npf_clock_seg_prepare(struct npf_clock_seg *g)
{
	g->span = udiff(g->last_tick, g->ref_tick);
	/*
	 * Between the samples the bound is err_first + (err_last -
	 * err_first) * d / span, plus |ns_per_tick * d| * EPS for the
	 * rounding of the offset: one line in d >= 0, its slope here
	 */
	g->err_in = (g->span > 0 ? (g->err_last - g->err_first) / g->span : 0) +
		    fabs(g->ns_per_tick) * NPF_CLOCK_EPS;
	/*
	 * From ref_tick to last_tick (both below 2^63: udiff() is one
	 * conversion), |offset| <= |ns_per_tick| * span and the bound
	 * <= err_first + |err_in| * span: under 2^61 each, with ref_ns,
	 * map_out()'s checks cannot fail (false with a NaN)
	 */
	g->fast = !((g->ref_tick | g->last_tick) >> 63) &&
		  g->last_tick >= g->ref_tick &&
		  fabs(g->ns_per_tick) * g->span < 0x1p61 &&
		  g->ref_ns > -(1ll << 61) && g->ref_ns < (1ll << 61) &&
		  g->err_first >= 0 && g->err_first < 0x1p61 &&
		  fabs(g->err_in) * g->span < 0x1p61;
}

/*
 * A tick through piece @g: host ns = @base + *@off, with error bound *@err
 * (doubles: the caller rounds once). Between the piece's samples (nearly
 * every tick) the bound is one multiply-add (npf_clock_seg_prepare()).
 */
static inline void piece_eval(const struct npf_clock_seg *g, uint64_t tick,
			      double *off, double *err)
{
	double d = udiff(tick, g->ref_tick);

	*off = g->ns_per_tick * d;
	if (npf_likely(d >= 0 && d <= g->span)) {
		*err = g->err_first + d * g->err_in;
		return;
	}
	if (d < 0)
		*err = g->err_first - d * g->err_slope;
	else
		*err = g->err_last + (d - g->span) * g->err_slope;
	/* d and the product round: relative 2^-53 each */
	*err += fabs(*off) * NPF_CLOCK_EPS;
}

static inline void map_out(int64_t base, double off, double err,
			   struct npuprof_clock_map *out)
{
	int64_t r;

	if (npf_unlikely(!(fabs(off) < 0x1p63) ||
			 __builtin_add_overflow(base, npf_round_i64(off), &r))) {
		/* beyond the int64 of host ns */
		out->valid = 0;
		out->ns = off < 0 ? INT64_MIN : INT64_MAX;
		out->err_ns = UINT64_MAX;
		return;
	}
	out->ns = r;
	out->valid = 1;
	out->err_ns = err < 0x1p63 ? ceil_u64(err) : UINT64_MAX;
}

/* The piece that maps @tick: the last with tick0 <= tick (piece 0's is 0) */
static uint32_t map_piece(const struct npf_clock_fit *fit, uint64_t tick)
{
	uint32_t l = 0, h = fit->nseg;

	while (h - l > 1) {
		uint32_t mid = l + (h - l) / 2;

		if (fit->seg[mid].tick0 <= tick)
			l = mid;
		else
			h = mid;
	}
	return l;
}

/* A tick beyond the last sample of piece @a, in the zone before piece b */
static void map_zone(const struct npf_clock_seg *a, uint64_t tick, double off,
		     double err, struct npuprof_clock_map *out)
{
	const struct npf_clock_seg *b = a + 1;
	double ob, eb, dab, t, chord, lo, hi;
	int64_t dref;

	/*
	 * Transition zone (a->last_tick, b->ref_tick): the truth follows
	 * one piece or the other; report the chord between the two ends,
	 * bounded by the union of both pieces' ranges. All relative to a.
	 */
	if (__builtin_sub_overflow(b->ref_ns, a->ref_ns, &dref)) {
		map_out(0, INFINITY, 0, out);
		return;
	}
	piece_eval(b, tick, &ob, &eb);
	ob += (double)dref;
	dab = a->ns_per_tick * a->span;
	t = udiff(tick, a->last_tick) / udiff(b->ref_tick, a->last_tick);
	chord = dab + ((double)dref - dab) * t;
	lo = fmin(off - err, ob - eb);
	hi = fmax(off + err, ob + eb);
	err = fmax(hi - chord, chord - lo) + fabs(chord) * NPF_CLOCK_EPS;
	map_out(a->ref_ns, chord, err, out);
}

/* Map @tick through piece @l of @fit (the one map_piece() gives) */
static inline __attribute__((always_inline))
void map_at(const struct npf_clock_fit *fit, uint32_t l, uint64_t tick,
	    struct npuprof_clock_map *out)
{
	const struct npf_clock_seg *a = &fit->seg[l];
	double off, err;

	/*
	 * Between the piece's samples (nearly every tick): what the general
	 * path below computes there, without its range checks (@fast)
	 */
	if (npf_likely(a->fast && tick >= a->ref_tick &&
		       tick <= a->last_tick)) {
		double d = (double)(int64_t)(tick - a->ref_tick);

		off = a->ns_per_tick * d;
		err = a->err_first + d * a->err_in;
		out->ns = a->ref_ns + npf_round_i64(off);
		out->valid = 1;
		out->err_ns = ceil_u64(err);
		return;
	}
	piece_eval(a, tick, &off, &err);
	if (npf_likely(l + 1 == fit->nseg || tick <= a->last_tick))
		map_out(a->ref_ns, off, err, out);
	else
		map_zone(a, tick, off, err, out);
}

static void map_none(struct npuprof_clock_map *out)
{
	out->ns = 0;
	out->err_ns = UINT64_MAX;
	out->valid = 0;
}

void npf_clock_map(const struct npf_clock_fit *fit, uint64_t tick,
		   struct npuprof_clock_map *out)
{
	if (!fit || !fit->nseg || !fit->seg) {
		map_none(out);
		return;
	}
	map_at(fit, map_piece(fit, tick), tick, out);
}

/* The piece of @tick: @l, the last tick's, if @tick is in it too */
static inline __attribute__((always_inline))
uint32_t cached_piece(const struct npf_clock_fit *fit, uint32_t l,
		      uint64_t tick)
{
	if (npf_unlikely(l >= fit->nseg || tick < fit->seg[l].tick0 ||
			 (l + 1 < fit->nseg && tick >= fit->seg[l + 1].tick0)))
		l = map_piece(fit, tick);
	return l;
}

void npf_clock_map_cached(const struct npf_clock_fit *fit, uint32_t *piece,
			  uint64_t tick, struct npuprof_clock_map *out)
{
	if (!fit || !fit->nseg || !fit->seg) {
		map_none(out);
		return;
	}
	*piece = cached_piece(fit, *piece, tick);
	map_at(fit, *piece, tick, out);
}

void npf_clock_map2_cached(const struct npf_clock_fit *fit, uint32_t *piece,
			   uint64_t a, uint64_t b,
			   struct npuprof_clock_map *out_a,
			   struct npuprof_clock_map *out_b)
{
	uint32_t la, lb;

	if (!fit || !fit->nseg || !fit->seg) {
		map_none(out_a);
		map_none(out_b);
		return;
	}
	/* both pieces first: *@piece is read and written once */
	la = cached_piece(fit, *piece, a);
	lb = cached_piece(fit, la, b);
	*piece = lb;
	map_at(fit, la, a, out_a);
	map_at(fit, lb, b, out_b);
}

void npf_clock_fit_release(struct npf_clock_fit *fit)
{
	if (!fit)
		return;
	free(fit->seg);
	fit->seg = NULL;
	fit->nseg = 0;
}
