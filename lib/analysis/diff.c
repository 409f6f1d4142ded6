// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * diff.c - npuprof_diff(): what changed from one trace to another
 * (Documentation/npu/analysis.rst, "npuprof diff"): the mean latency, the
 * mean of each part of the latency breakdown (breakdown.c) per inference,
 * and the mean self time of each operator type and host span kind
 * (analyze.c, aggregated by type), each with its absolute and relative
 * change, largest absolute change first; and the largest relative
 * increase, for a CI gate.
 *
 * Memory: one row per type of each trace. Each call uses its traces
 * alone; callers serialize calls on them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "analyze.h"
#include "breakdown.h"
#include "report_util.h"

struct df_row {
	const char *kind;	/* "latency", "phase", "npu", "host" */
	char name[32];
	bool in[2];
	int64_t v[2];
	uint64_t n[2];
};

struct df_set {
	struct df_row *r;
	size_t n, cap;
};

static struct df_row *df_get(struct df_set *s, const char *kind,
			     const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->r[i].kind == kind && !strcmp(s->r[i].name, name))
			return &s->r[i];
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct df_row *p = realloc(s->r, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->r = p;
		s->cap = cap;
	}
	memset(&s->r[s->n], 0, sizeof(s->r[0]));
	s->r[s->n].kind = kind;
	snprintf(s->r[s->n].name, sizeof(s->r[0].name), "%s", name);
	return &s->r[s->n++];
}

static int df_put(struct df_set *s, int side, const char *kind,
		  const char *name, int64_t v, uint64_t n)
{
	struct df_row *r = df_get(s, kind, name);

	if (!r)
		return -ENOMEM;
	r->in[side] = true;
	r->v[side] = v;
	r->n[side] = n;
	return 0;
}

/* @a / @n rounded to the nearest, halves up; 0 for no @n */
static int64_t df_mean(int64_t a, uint64_t n)
{
	__int128 num = 2 * (__int128)a + (__int128)n, d = 2 * (__int128)n;
	__int128 q;

	if (!n)
		return 0;
	q = num / d;
	if (num % d < 0)
		q--;
	return (int64_t)q;
}

/* The rows of one trace */
static int df_side(struct df_set *s, int side, struct npuprof_trace *t)
{
	struct npuprof_analyze_opts o;
	struct npf_bd_totals bd;
	struct npf_an_row *rows = NULL;
	int64_t total;
	size_t n = 0, i;
	unsigned int p;
	int ret;

	ret = npf_breakdown_run(t, NULL, NULL, &bd);
	if (ret)
		return ret;
	ret = df_put(s, side, "latency", "mean", df_mean(bd.wall, bd.inferences),
		     bd.inferences);
	for (p = 0; !ret && p < NPF_BD_NPARTS; p++)
		ret = df_put(s, side, "phase", npf_bd_part_name(p),
			     df_mean(bd.part[p], bd.inferences), bd.inferences);
	if (ret)
		return ret;
	npuprof_analyze_opts_init(&o);
	o.top = 0;
	o.aggregate = NPUPROF_AGG_MEAN;
	ret = npf_analyze_rows(t, &o, &rows, &n, &total);
	for (i = 0; !ret && i < n; i++)
		ret = df_put(s, side, rows[i].npu ? "npu" : "host", rows[i].name,
			     rows[i].self, rows[i].count);
	free(rows);
	return ret;
}

static int64_t df_delta(const struct df_row *r)
{
	return r->v[1] - r->v[0];
}

static int df_cmp(const void *pa, const void *pb)
{
	const struct df_row *a = pa, *b = pb;
	int64_t x = df_delta(a), y = df_delta(b);
	uint64_t ax = x < 0 ? -(uint64_t)x : (uint64_t)x;
	uint64_t ay = y < 0 ? -(uint64_t)y : (uint64_t)y;
	int r;

	if (ax != ay)
		return ax > ay ? -1 : 1;
	r = strcmp(a->kind, b->kind);
	return r ? r : strcmp(a->name, b->name);
}

static const struct npf_col df_cols[] = {
	{ "kind", NPF_COL_STR, 0, 7 },
	{ "name", NPF_COL_STR, 0, 19 },
	{ "a_ns", NPF_COL_I64, 0, 10 },
	{ "b_ns", NPF_COL_I64, 0, 10 },
	{ "delta_ns", NPF_COL_I64, 0, 10 },
	{ "delta_pct", NPF_COL_F64, 0, 11 },
	{ "a_count", NPF_COL_U64, 0, 7 },
	{ "b_count", NPF_COL_U64, 0, 7 },
};

NPUPROF_EXPORT
int npuprof_diff(struct npuprof_trace *a, struct npuprof_trace *b, FILE *out,
		 const struct npuprof_report_opts *opts, double *worst_pct)
{
	struct npuprof_report_opts o;
	struct df_set s = { 0 };
	unsigned int format;
	int64_t min_delta_ns;
	struct npf_tw tw;
	double worst = 0;
	size_t i;
	int ret;

	ret = npf_report_opts(opts, &o);
	if (ret)
		return ret;
	format = o.format;
	min_delta_ns = o.min_delta_ns;
	if (!a || !b ||
	    (format == NPUPROF_FORMAT_ROWS ? !o.sink || !o.sink->row :
	     !out ||
	     (format != NPUPROF_FORMAT_TABLE && format != NPUPROF_FORMAT_CSV &&
	      format != NPUPROF_FORMAT_JSONL && format != NPUPROF_FORMAT_JSON)))
		return -EINVAL;
	ret = df_side(&s, 0, a);
	if (!ret)
		ret = df_side(&s, 1, b);
	if (ret) {
		free(s.r);
		return ret;
	}
	qsort(s.r, s.n, sizeof(*s.r), df_cmp);
	npf_tw_begin(&tw, out, format, df_cols,
		     sizeof(df_cols) / sizeof(df_cols[0]), false);
	if (format == NPUPROF_FORMAT_ROWS)
		ret = npf_tw_sink(&tw, o.sink, 0);
	for (i = 0; i < s.n && !ret; i++) {
		const struct df_row *r = &s.r[i];
		bool both = r->in[0] && r->in[1];
		int64_t d = df_delta(r);
		double pct = both && r->v[0] > 0 ?
			100.0 * (double)d / (double)r->v[0] : 0;

		if (both && r->v[0] > 0 && d >= min_delta_ns && d > 0 &&
		    pct > worst)
			worst = pct;
		npf_tw_row(&tw, (struct npuprof_value[]){
			{ .s = r->kind }, { .s = r->name },
			{ .null = !r->in[0], .i = r->v[0] },
			{ .null = !r->in[1], .i = r->v[1] },
			{ .null = !both, .i = d },
			{ .null = !both || r->v[0] <= 0, .f = pct },
			{ .u = r->n[0] }, { .u = r->n[1] } });
		ret = tw.err;
	}
	if (!ret)
		ret = npf_tw_end(&tw);
	free(s.r);
	if (ret)
		return ret;
	if (worst_pct)
		*worst_pct = worst;
	if (out && (fflush(out) || ferror(out)))
		return -EIO;
	return 0;
}
