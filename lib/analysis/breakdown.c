// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * breakdown.c - where each inference's latency goes
 * (Documentation/npu/analysis.rst, "The latency breakdown"), and
 * npuprof_print_breakdown().
 *
 * Every ns of an inference's wall time (its INFERENCE span) goes to
 * exactly one part, by precedence: CPU operators (its Quantize, Lower,
 * Unlower, Dequantize spans); other host work (the wall outside its WAIT
 * spans); then, inside the WAIT spans, queueing (the driver's submit_ns to
 * the mapped device start), the NPU (device start to end, split between
 * Run and IoWait in the ratio of the device's own counts), completion
 * delivery (device end to the driver's complete_ns), waking up
 * (complete_ns to the end of the WAIT span of that job), and what no
 * device record explains. The parts are computed over the elementary
 * segments between every boundary inside the wall, in signed 64-bit
 * integers, so they add up to the wall exactly.
 *
 * Spans and executions are grouped by trace id (one per inference), in
 * whatever order they come, before or after the inference's span; the
 * join (join.c) says when an inference is complete: it left the join's
 * window (no child can come any more: a span ended more than 2 s after it
 * was read) and every submit span it had got its execution. What comes
 * for an inference already computed is left out and counted. Memory: the
 * inferences in the window and in flight. Alongside, a sweep over the
 * INFERENCE and WAIT spans and the executions in time order (the
 * timeline's reorder buffer) measures the host's busy time and the NPU's
 * idle time within it.
 *
 * Each call uses its trace alone; callers serialize calls on one trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "amap.h"
#include "breakdown.h"
#include "join.h"
#include "reorder.h"
#include "report_util.h"

static const char *const npf_bd_names[NPF_BD_NPARTS][2] = {
	[NPF_BD_CPU_OPS] = { "CPU operators", "cpu_ops_ns" },
	[NPF_BD_HOST] = { "Other host work", "host_ns" },
	[NPF_BD_QUEUE] = { "Queueing", "queue_ns" },
	[NPF_BD_RUN] = { "NPU Run", "npu_run_ns" },
	[NPF_BD_IOWAIT] = { "NPU IoWait", "npu_iowait_ns" },
	[NPF_BD_DELIVERY] = { "Completion delivery", "delivery_ns" },
	[NPF_BD_WAKEUP] = { "Waiting wake-up", "wakeup_ns" },
	[NPF_BD_UNKNOWN] = { "Unexplained wait", "unexplained_ns" },
};

const char *npf_bd_part_name(unsigned int part)
{
	return part < NPF_BD_NPARTS ? npf_bd_names[part][0] : "unknown";
}

const char *npf_bd_part_key(unsigned int part)
{
	return part < NPF_BD_NPARTS ? npf_bd_names[part][1] : "unknown";
}

/* An execution of an inference, in host ns */
struct bd_exec {
	uint32_t minor;
	uint64_t job_id;
	bool device;		/* mapped device times */
	bool dur_ok;
	int64_t ds, de;
	int64_t submit, complete;
	int64_t run, iowait;
};

/* A CPU operator or WAIT span of an inference */
struct bd_span {
	int64_t s, e;
	uint16_t kind;
	bool job;
	uint32_t minor;
	uint64_t job_id;
};

struct bd_acc {
	struct npf_anode node;		/* key: the trace id */
	struct bd_span *spans;
	uint32_t nspans, capspans;
	struct bd_exec *execs;
	uint32_t nexecs, capexecs;
};

/* An interval of the computation; @cls an enum npf_bd_part or BD_WAIT */
struct bd_iv {
	int64_t s, e;
	uint32_t cls;
	uint32_t idx;
};

#define BD_WAIT		NPF_BD_NPARTS
#define BD_NONE		(NPF_BD_NPARTS + 1)

/* The end of an interval the sweep holds open */
struct bd_end {
	int64_t t;
	unsigned int type;
};

enum { SW_INF, SW_WAIT, SW_DEV };

struct bd_sweep {
	struct bd_end *h;		/* min-heap by t */
	size_t n, cap;
	bool started;
	int64_t pos;
	int64_t open[3];
};

struct bd_ctx {
	struct npuprof_trace *trace;
	npf_bd_fn fn;
	void *fctx;
	struct npf_bd_totals *tot;
	struct npf_amap accs;
	struct bd_sweep sw;
	/* scratch of the computation, grown as needed */
	struct bd_iv *iv;
	int64_t *pt, *cov;
	size_t capiv, cappt, capcov;
};

static int64_t bd_i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static int bd_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 4;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static struct bd_acc *bd_acc_get(struct bd_ctx *c, const uint64_t tid[2])
{
	struct bd_acc *a = npf_amap_find(&c->accs, tid[0], tid[1]);

	return a ? a : npf_amap_add(&c->accs, tid[0], tid[1], sizeof(*a));
}

static void bd_acc_del(struct bd_ctx *c, struct bd_acc *a)
{
	free(a->spans);
	free(a->execs);
	npf_amap_del(&c->accs, a);
}

static bool bd_cpu_op(unsigned int kind)
{
	return kind == NPUPROF_SPAN_QUANTIZE || kind == NPUPROF_SPAN_LOWER ||
	       kind == NPUPROF_SPAN_UNLOWER || kind == NPUPROF_SPAN_DEQUANTIZE;
}

/* Keep a CPU operator or WAIT span for its inference */
static int bd_span_in(struct bd_ctx *c, const struct npuprof_span_rec *s)
{
	struct bd_acc *a;
	struct bd_span *p;
	size_t cap;

	if (!bd_cpu_op(s->kind) && s->kind != NPUPROF_SPAN_WAIT)
		return 0;
	a = bd_acc_get(c, s->trace_id);
	if (!a)
		return -ENOMEM;
	cap = a->capspans;
	if (bd_grow((void **)&a->spans, &cap, a->nspans + 1ull, sizeof(*p)))
		return -ENOMEM;
	a->capspans = (uint32_t)cap;
	p = &a->spans[a->nspans++];
	p->s = bd_i64(s->start_ns);
	p->e = bd_i64(s->end_ns);
	p->kind = s->kind;
	p->job = s->flags & NPUPROF_SPAN_F_JOB;
	p->minor = s->minor;
	p->job_id = s->job_id;
	return 0;
}

/* The join matched an execution to its submit span: keep it */
static int bd_exec_in(void *ctx, const struct npf_exec_row *r)
{
	struct bd_ctx *c = ctx;
	struct bd_acc *a;
	struct bd_exec *x;
	size_t cap;

	if (!r->matched)
		return 0;
	a = bd_acc_get(c, r->trace_id);
	if (!a)
		return -ENOMEM;
	cap = a->capexecs;
	if (bd_grow((void **)&a->execs, &cap, a->nexecs + 1ull, sizeof(*x)))
		return -ENOMEM;
	a->capexecs = (uint32_t)cap;
	x = &a->execs[a->nexecs++];
	memset(x, 0, sizeof(*x));
	x->minor = r->minor;
	x->job_id = r->rec.job_id;
	x->submit = bd_i64(r->rec.submit_ns);
	x->complete = bd_i64(r->rec.complete_ns);
	x->device = r->device && r->start.valid && r->end.valid;
	x->ds = r->start.ns;
	x->de = r->end.ns;
	x->dur_ok = r->dur.ok;
	x->run = r->dur.run;
	x->iowait = r->dur.iowait;
	return 0;
}

static int bd_i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The execution a WAIT span waited for: its job's, else the last one
 * completed inside it */
static const struct bd_exec *bd_waited(const struct bd_acc *a,
					const struct bd_span *w)
{
	const struct bd_exec *best = NULL;
	uint32_t i;

	for (i = 0; i < a->nexecs; i++) {
		const struct bd_exec *x = &a->execs[i];

		if (w->job) {
			if (x->minor == w->minor && x->job_id == w->job_id)
				return x;
		} else if (x->complete >= w->s && x->complete <= w->e &&
			   (!best || x->complete > best->complete)) {
			best = x;
		}
	}
	return best;
}

/* The intervals of inference @a into c->iv; returns their count or -ENOMEM */
static long bd_intervals(struct bd_ctx *c, const struct bd_acc *a)
{
	size_t n = 0, need = a ? a->nspans * 2ull + a->nexecs * 3ull : 0;
	uint32_t i;

	if (bd_grow((void **)&c->iv, &c->capiv, need + 1, sizeof(*c->iv)))
		return -ENOMEM;
	for (i = 0; a && i < a->nspans; i++) {
		const struct bd_span *s = &a->spans[i];
		const struct bd_exec *x;

		if (s->kind != NPUPROF_SPAN_WAIT) {
			c->iv[n++] = (struct bd_iv){ s->s, s->e, NPF_BD_CPU_OPS, 0 };
			continue;
		}
		c->iv[n++] = (struct bd_iv){ s->s, s->e, BD_WAIT, 0 };
		x = bd_waited(a, s);
		if (x)
			c->iv[n++] = (struct bd_iv){ x->complete, s->e,
						     NPF_BD_WAKEUP, 0 };
	}
	for (i = 0; a && i < a->nexecs; i++) {
		const struct bd_exec *x = &a->execs[i];

		if (!x->device)
			continue;
		c->iv[n++] = (struct bd_iv){ x->submit, x->ds, NPF_BD_QUEUE, i };
		c->iv[n++] = (struct bd_iv){ x->ds, x->de, NPF_BD_RUN, i };
		c->iv[n++] = (struct bd_iv){ x->de, x->complete,
					     NPF_BD_DELIVERY, i };
	}
	return (long)n;
}

/* @v * @num / @den rounded to the nearest, halves up (all >= 0, @den > 0) */
static int64_t bd_share(int64_t v, int64_t num, int64_t den)
{
	return (int64_t)(((__int128)v * num * 2 + den) / ((__int128)den * 2));
}

/* The breakdown of inference @inf whose spans and executions are @a */
static int bd_compute(struct bd_ctx *c, const struct bd_acc *a,
		      const struct npuprof_span_rec *inf,
		      struct npf_bd_row *row)
{
	int64_t ws = bd_i64(inf->start_ns), we = bd_i64(inf->end_ns);
	long niv = bd_intervals(c, a);
	size_t np = 0, k, i;
	uint32_t nx = a ? a->nexecs : 0;

	if (niv < 0)
		return -ENOMEM;
	if (we < ws)
		we = ws;
	memset(row, 0, sizeof(*row));
	row->span = *inf;
	row->wall = we - ws;
	row->executions = nx;
	if (bd_grow((void **)&c->pt, &c->cappt, 2 * (size_t)niv + 2,
		    sizeof(*c->pt)) ||
	    bd_grow((void **)&c->cov, &c->capcov, nx + 1ull, sizeof(*c->cov)))
		return -ENOMEM;
	memset(c->cov, 0, (nx + 1ull) * sizeof(*c->cov));
	c->pt[np++] = ws;
	c->pt[np++] = we;
	for (i = 0; i < (size_t)niv; i++) {
		const struct bd_iv *v = &c->iv[i];

		if (v->cls == BD_WAIT)
			row->waits++;
		if (v->s > ws && v->s < we)
			c->pt[np++] = v->s;
		if (v->e > ws && v->e < we)
			c->pt[np++] = v->e;
	}
	qsort(c->pt, np, sizeof(*c->pt), bd_i64_cmp);
	/* each elementary segment goes to the first part that covers it */
	for (k = 0; k + 1 < np; k++) {
		int64_t s = c->pt[k], e = c->pt[k + 1];
		uint32_t best = BD_NONE, idx = 0;
		bool wait = false;

		if (e == s)
			continue;
		for (i = 0; i < (size_t)niv; i++) {
			const struct bd_iv *v = &c->iv[i];

			if (v->s > s || v->e < e)
				continue;
			if (v->cls == BD_WAIT)
				wait = true;
			else if (v->cls < best)
				best = v->cls, idx = v->idx;
		}
		if (best == NPF_BD_CPU_OPS)
			row->part[NPF_BD_CPU_OPS] += e - s;
		else if (!wait)
			row->part[NPF_BD_HOST] += e - s;
		else if (best == NPF_BD_RUN)
			c->cov[idx] += e - s;
		else if (best != BD_NONE)
			row->part[best] += e - s;
		else
			row->part[NPF_BD_UNKNOWN] += e - s;
	}
	/* the NPU's time of each execution: Run and IoWait in its ratio */
	for (i = 0; i < nx; i++) {
		const struct bd_exec *x = &a->execs[i];
		int64_t io = 0;

		if (x->dur_ok && x->run >= 0 && x->iowait >= 0 &&
		    x->run + x->iowait > 0)
			io = bd_share(c->cov[i], x->iowait, x->run + x->iowait);
		row->part[NPF_BD_IOWAIT] += io;
		row->part[NPF_BD_RUN] += c->cov[i] - io;
	}
	return 0;
}

static int bd_inference(void *ctx, const struct npf_inf_row *r)
{
	struct bd_ctx *c = ctx;
	struct bd_acc *a = npf_amap_find(&c->accs, r->span.trace_id[0],
					 r->span.trace_id[1]);
	struct npf_bd_row row;
	unsigned int p;
	int ret;

	ret = bd_compute(c, a, &r->span, &row);
	if (a)
		bd_acc_del(c, a);
	if (ret)
		return ret;
	c->tot->inferences++;
	c->tot->wall += row.wall;
	for (p = 0; p < NPF_BD_NPARTS; p++)
		c->tot->part[p] += row.part[p];
	return c->fn ? c->fn(c->fctx, &row) : 0;
}

/* ---- the sweep: host busy and NPU idle over the whole trace ---- */

static void sw_account(struct bd_ctx *c, int64_t a, int64_t b)
{
	const int64_t *o = c->sw.open;
	bool host = o[SW_INF] > o[SW_WAIT], npu = o[SW_DEV] > 0;

	if (b <= a)
		return;
	if (host)
		c->tot->host_busy += b - a;
	if (npu)
		c->tot->npu_busy += b - a;
	if (host && !npu)
		c->tot->npu_idle_host_busy += b - a;
}

static void sw_pop(struct bd_sweep *sw)
{
	size_t i = 0;

	sw->h[0] = sw->h[--sw->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct bd_end t;

		if (l < sw->n && sw->h[l].t < sw->h[m].t)
			m = l;
		if (l + 1 < sw->n && sw->h[l + 1].t < sw->h[m].t)
			m = l + 1;
		if (m == i)
			break;
		t = sw->h[i];
		sw->h[i] = sw->h[m];
		sw->h[m] = t;
		i = m;
	}
}

/* Close every interval ending by @t, then move to @t */
static void sw_advance(struct bd_ctx *c, int64_t t, bool to_t)
{
	struct bd_sweep *sw = &c->sw;

	while (sw->n && sw->h[0].t <= t) {
		sw_account(c, sw->pos, sw->h[0].t);
		if (sw->h[0].t > sw->pos)
			sw->pos = sw->h[0].t;
		sw->open[sw->h[0].type]--;
		sw_pop(sw);
	}
	if (to_t) {
		sw_account(c, sw->pos, t);
		if (t > sw->pos)
			sw->pos = t;
	}
}

static int sw_add(struct bd_ctx *c, unsigned int type, int64_t s, int64_t e)
{
	struct bd_sweep *sw = &c->sw;
	size_t i;

	if (!sw->started) {
		sw->started = true;
		sw->pos = s;
	}
	if (s < sw->pos)	/* released late: its past is gone */
		s = sw->pos;
	sw_advance(c, s, true);
	if (e <= s)
		return 0;
	if (bd_grow((void **)&sw->h, &sw->cap, sw->n + 1, sizeof(*sw->h)))
		return -ENOMEM;
	sw->open[type]++;
	for (i = sw->n++; i && sw->h[(i - 1) / 2].t > e; i = (i - 1) / 2)
		sw->h[i] = sw->h[(i - 1) / 2];
	sw->h[i] = (struct bd_end){ e, type };
	return 0;
}

static int sw_released(void *ctx, const struct npuprof_event *ev, int64_t key)
{
	struct bd_ctx *c = ctx;

	(void)key;
	if (ev->type == NPUPROF_EV_SPAN)
		return sw_add(c, ev->span->kind == NPUPROF_SPAN_WAIT ?
			      SW_WAIT : SW_INF, bd_i64(ev->span->start_ns),
			      bd_i64(ev->span->end_ns));
	return sw_add(c, SW_DEV, ev->start.ns, ev->end.ns);
}

/* Does the sweep want @ev? */
static bool sw_wants(const struct npuprof_event *ev)
{
	const struct npu_trace_rec_exec *e = ev->rec;

	if (ev->type == NPUPROF_EV_SPAN)
		return ev->span->kind == NPUPROF_SPAN_INFERENCE ||
		       ev->span->kind == NPUPROF_SPAN_WAIT;
	return ev->type == NPUPROF_EV_RECORD &&
	       e->hdr.type == NPU_TRACE_REC_EXEC &&
	       e->hdr.size >= sizeof(*e) &&
	       (e->flags & NPU_TRACE_EXEC_F_DEVICE) && ev->start.valid &&
	       ev->end.valid;
}

static const struct npf_join_ops bd_ops = {
	.exec = bd_exec_in,
	.inference = bd_inference,
};

int npf_breakdown_run(struct npuprof_trace *trace, npf_bd_fn fn, void *ctx,
		      struct npf_bd_totals *tot)
{
	struct bd_ctx c = { .trace = trace, .fn = fn, .fctx = ctx, .tot = tot };
	struct npf_reorder *ro = NULL;
	struct npf_join *j = NULL;
	struct npuprof_event ev;
	struct bd_acc *a;
	int ret;

	memset(tot, 0, sizeof(*tot));
	ret = npuprof_trace_rewind(trace);
	if (ret)
		return ret;
	ret = npf_amap_init(&c.accs);
	if (!ret)
		ret = npf_join_new(trace, &bd_ops, &c, &j);
	if (!ret)
		ret = npf_reorder_new(NPF_TL_MAX_HELD, NPF_TL_WINDOW_NS, &ro);
	while (!ret && (ret = npuprof_trace_next(trace, &ev)) == 1) {
		ret = 0;
		if (ev.type == NPUPROF_EV_SPAN)
			ret = bd_span_in(&c, ev.span);
		if (!ret && sw_wants(&ev))
			ret = npf_reorder_push(ro, &ev, sw_released, &c);
		if (!ret)
			ret = npf_join_event(j, &ev);
	}
	if (!ret)
		ret = npf_join_finish(j);
	if (!ret)
		ret = npf_reorder_drain(ro, sw_released, &c);
	if (!ret)
		sw_advance(&c, INT64_MAX, false);
	tot->max_pending = c.accs.max_n;
	/* what no inference claimed: spans or executions that came late */
	while (c.accs.b && (a = npf_amap_first(&c.accs))) {
		tot->late += a->nspans + a->nexecs;
		bd_acc_del(&c, a);
	}
	npf_amap_fini(&c.accs);
	npf_join_free(j);
	npf_reorder_free(ro);
	free(c.sw.h);
	free(c.iv);
	free(c.pt);
	free(c.cov);
	return ret;
}

/* ---- npuprof_print_breakdown() ---- */

static const struct npf_col bd_cols[] = {
	{ "trace_id", NPF_COL_STR, 0, 32 },
	{ "span_id", NPF_COL_STR, 0, 16 },
	{ "thread.id", NPF_COL_I64, 0, 9 },
	{ "wall_ns", NPF_COL_I64, 0, 10 },
	{ "cpu_ops_ns", NPF_COL_I64, 0, 10 },
	{ "host_ns", NPF_COL_I64, 0, 10 },
	{ "queue_ns", NPF_COL_I64, 0, 10 },
	{ "npu_run_ns", NPF_COL_I64, 0, 10 },
	{ "npu_iowait_ns", NPF_COL_I64, 0, 10 },
	{ "delivery_ns", NPF_COL_I64, 0, 10 },
	{ "wakeup_ns", NPF_COL_I64, 0, 10 },
	{ "unexplained_ns", NPF_COL_I64, 0, 10 },
	{ "executions", NPF_COL_U64, 0, 10 },
	{ "pid", NPF_COL_I64, 0, 7 },
	{ "start_ns", NPF_COL_U64, 0, 14 },
};

static int bd_row_out(void *ctx, const struct npf_bd_row *r)
{
	struct npf_tw *tw = ctx;
	char tid[NPF_HEX_TRACE], sid[NPF_HEX_SPAN];
	struct npuprof_value v[sizeof(bd_cols) / sizeof(bd_cols[0])];
	unsigned int p, n = 0;

	memset(v, 0, sizeof(v));
	v[n++].s = npf_hex_trace(tid, r->span.trace_id);
	v[n++].s = npf_hex_span(sid, r->span.span_id);
	v[n++].i = r->span.tid;
	v[n++].i = r->wall;
	for (p = 0; p < NPF_BD_NPARTS; p++)
		v[n++].i = r->part[p];
	v[n++].u = r->executions;
	v[n++].i = r->span.pid;
	v[n++].u = r->span.start_ns;
	npf_tw_row(tw, v);
	return tw->err;
}

/* @part of @whole in percent, 0 when @whole is 0 */
static double bd_pct(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void bd_table(FILE *f, const struct npf_bd_totals *t)
{
	unsigned int p;

	fprintf(f, "================================================================\n"
		   "  Latency Breakdown: %" PRIu64 " inferences\n"
		   "================================================================\n",
		t->inferences);
	fprintf(f, "%-22s %16s %14s %8s\n", "part", "total (ns)",
		"mean (ns)", "share");
	for (p = 0; p < NPF_BD_NPARTS; p++)
		fprintf(f, "%-22s %16" PRId64 " %14.1f %7.2f%%\n",
			npf_bd_part_name(p), t->part[p],
			t->inferences ? (double)t->part[p] / (double)t->inferences : 0,
			bd_pct(t->part[p], t->wall));
	fprintf(f, "%-22s %16" PRId64 " %14.1f %7.2f%%\n", "Wall time", t->wall,
		t->inferences ? (double)t->wall / (double)t->inferences : 0,
		t->wall ? 100.0 : 0.0);
	fprintf(f, "================================================================\n"
		   "  Host and NPU over the trace\n"
		   "================================================================\n");
	fprintf(f, "%-32s: %" PRId64 "\n", "Host busy (ns)", t->host_busy);
	fprintf(f, "%-32s: %" PRId64 "\n", "NPU busy (ns)", t->npu_busy);
	fprintf(f, "%-32s: %" PRId64 " (%.2f%% of host busy)\n",
		"NPU idle while host busy (ns)", t->npu_idle_host_busy,
		bd_pct(t->npu_idle_host_busy, t->host_busy));
	if (t->late)
		fprintf(f, "%-32s: %" PRIu64 "\n", "Spans/executions left out",
			t->late);
}

static void bd_json(FILE *f, const struct npf_bd_totals *t)
{
	unsigned int p;

	fprintf(f, "{\"inferences\": %" PRIu64 ", \"wall_ns\": %" PRId64,
		t->inferences, t->wall);
	for (p = 0; p < NPF_BD_NPARTS; p++)
		fprintf(f, ", \"%s\": %" PRId64, npf_bd_part_key(p), t->part[p]);
	fputs(", \"parts\": [", f);
	for (p = 0; p < NPF_BD_NPARTS; p++) {
		fprintf(f, "%s{\"name\": ", p ? ", " : "");
		npf_json_str(f, npf_bd_part_name(p));
		fprintf(f, ", \"key\": \"%s\", \"ns\": %" PRId64
			", \"share\": %.6f}", npf_bd_part_key(p), t->part[p],
			bd_pct(t->part[p], t->wall) / 100.0);
	}
	fprintf(f, "], \"host_busy_ns\": %" PRId64 ", \"npu_busy_ns\": %" PRId64
		", \"npu_idle_host_busy_ns\": %" PRId64 ", \"left_out\": %" PRIu64
		"}\n", t->host_busy, t->npu_busy, t->npu_idle_host_busy, t->late);
}

NPUPROF_EXPORT
int npuprof_print_breakdown(struct npuprof_trace *trace, FILE *out,
			    const struct npuprof_report_opts *opts)
{
	struct npuprof_report_opts o;
	struct npf_bd_totals tot;
	unsigned int format;
	struct npf_tw tw;
	bool rows;
	int ret;

	ret = npf_report_opts(opts, &o);
	if (ret)
		return ret;
	format = o.format;
	rows = format == NPUPROF_FORMAT_CSV || format == NPUPROF_FORMAT_JSONL ||
	       format == NPUPROF_FORMAT_ROWS;
	if (!trace ||
	    (format == NPUPROF_FORMAT_ROWS ? !o.sink || !o.sink->row :
	     !out || (!rows && format != NPUPROF_FORMAT_TABLE &&
		      format != NPUPROF_FORMAT_JSON)))
		return -EINVAL;
	if (rows) {
		npf_tw_begin(&tw, out, format, bd_cols,
			     sizeof(bd_cols) / sizeof(bd_cols[0]), false);
		if (format == NPUPROF_FORMAT_ROWS)
			ret = npf_tw_sink(&tw, o.sink, 0);
	}
	if (!ret)
		ret = npf_breakdown_run(trace, rows ? bd_row_out : NULL, &tw,
					&tot);
	if (!ret && rows)
		ret = npf_tw_end(&tw);
	else if (!ret && format == NPUPROF_FORMAT_TABLE)
		bd_table(out, &tot);
	else if (!ret)
		bd_json(out, &tot);
	if (!ret && out && (fflush(out) || ferror(out)))
		ret = -EIO;
	return ret;
}
