// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report.c - the tables of the reference documents (inferences, NPU
 * executions, NPU operators, external operators) and the raw ones (spans,
 * operator records), npuprof_report(), and the summary,
 * npuprof_print_summary() (Documentation/npu/reports.rst).
 *
 * One pass over the trace, through the join (join.c) for the tables that
 * need it. Memory: the join's waiting entries; the operators table one
 * accumulator per opcode; the summary one int64_t per inference (exact
 * percentiles need them all).
 *
 * Each call uses its trace alone; callers serialize calls on one trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "amap.h"
#include "join.h"
#include "memuse.h"
#include "report_util.h"
#include "trace.h"

#define NPF_NOPS	65536	/* opcodes are 16 bits */

struct npf_opacc {
	int64_t sum_ns;
	int64_t iowait_ns;
	uint64_t count;
	uint64_t skipped;	/* inconsistent or without a clock */
	uint64_t macs;		/* of the counted records */
};

/* The operators of a model with a layer table, by (model id, op index) */
struct npf_layacc {
	struct npf_anode node;
	struct npf_opacc a;
	uint32_t opcode;
	struct npf_layer l;
};

struct npf_rep {
	struct npuprof_trace *trace;
	/* the tables written, by enum npuprof_table; mask 0: the summary */
	struct npf_tw tw[NPUPROF_TABLE_OP_RECORDS + 1];
	unsigned int mask;
	struct npf_opacc *ops;		/* NPUPROF_TABLE_OPERATORS */
	struct npf_amap lays;		/* ... of the layers, npf_layacc */
	/* summary */
	int64_t *durs;
	size_t ndur, capdur;
	uint64_t spans, op_records, labels;
	uint64_t lost[4], spans_lost;
	bool have_summary;
	struct npuprof_summary summary;
	uint64_t fit_violations;
	int err;
};

static struct npuprof_value npf_s(const char *s)
{
	return (struct npuprof_value){ .null = !s, .s = s };
}

static struct npuprof_value npf_i(int64_t i)
{
	return (struct npuprof_value){ .i = i };
}

static struct npuprof_value npf_u(uint64_t u)
{
	return (struct npuprof_value){ .u = u };
}

static struct npuprof_value npf_minor(uint32_t minor)
{
	return (struct npuprof_value){ .null = minor == UINT32_MAX, .u = minor };
}

static struct npuprof_value npf_dur_v(const struct npf_dur *d, int64_t v)
{
	return (struct npuprof_value){ .null = !d->ok, .i = v };
}

static struct npuprof_value npf_bound(const struct npf_dur *d)
{
	return (struct npuprof_value){ .null = !d->ok || d->err_ns == UINT64_MAX,
				 .u = d->err_ns };
}

static struct npuprof_value npf_mapped(const struct npuprof_clock_map *m)
{
	return (struct npuprof_value){ .null = !m->valid, .i = m->ns };
}

/* ---- the tables ---- */

static const struct npf_col inf_cols[] = {
	{ "trace_id", NPF_COL_STR, 0, 32 },
	{ "span_id", NPF_COL_STR, 0, 16 },
	{ "thread.id", NPF_COL_I64, 0, 9 },
	{ "dur", NPF_COL_I64, 0, 10 },
	{ "pid", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "start_ns", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "end_ns", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "executions", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "npu_total_ns", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "unmatched_submits", NPF_COL_U64, NPF_COL_DATA, 0 },
};

static const struct npf_col exec_cols[] = {
	{ "trace_id", NPF_COL_STR, 0, 32 },
	{ "span_id", NPF_COL_STR, 0, 16 },
	{ "pe_index", NPF_COL_U64, 0, 8 },
	{ "execution_index", NPF_COL_U64, 0, 15 },
	{ "NPU Total", NPF_COL_I64, 0, 9 },
	{ "NPU Run", NPF_COL_I64, 0, 9 },
	{ "NPU IoWait", NPF_COL_I64, 0, 10 },
	{ "Bound (+-ns)", NPF_COL_U64, 0, 12 },
	{ "minor", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "job_id", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "pid", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "tid", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "status", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "submit_ns", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "complete_ns", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "start_ns", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "end_ns", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "n_ops", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "dma_bytes", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "macs", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "inference_span_id", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "violation", NPF_COL_U64, NPF_COL_DATA, 0 },
};

static const struct npf_col oper_cols[] = {
	{ "name", NPF_COL_STR, 0, 24 },
	{ "average elapsed(ns)", NPF_COL_F64, 0, 19 },
	{ "count", NPF_COL_U64, 0, 6 },
	{ "layer", NPF_COL_STR, NPF_COL_OPT, 0 },
	{ "opcode", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "total_ns", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "average_iowait_ns", NPF_COL_F64, NPF_COL_DATA, 0 },
	{ "skipped", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "op_type", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "in_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "out_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "macs", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "model_id", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "op_index", NPF_COL_U64, NPF_COL_DATA, 0 },
};

static const struct npf_col ext_cols[] = {
	{ "trace_id", NPF_COL_STR, 0, 32 },
	{ "span_id", NPF_COL_STR, 0, 16 },
	{ "thread.id", NPF_COL_I64, 0, 9 },
	{ "name", NPF_COL_STR, 0, 10 },
	{ "operator_index", NPF_COL_U64, 0, 14 },
	{ "dur", NPF_COL_I64, 0, 8 },
	{ "pid", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "parent_id", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "start_ns", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "end_ns", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "error", NPF_COL_U64, NPF_COL_DATA, 0 },
};

static const struct npf_col span_cols[] = {
	{ "kind", NPF_COL_STR, 0, 10 },
	{ "name", NPF_COL_STR, 0, 12 },
	{ "pid", NPF_COL_I64, 0, 7 },
	{ "tid", NPF_COL_I64, 0, 7 },
	{ "trace_id", NPF_COL_STR, 0, 32 },
	{ "span_id", NPF_COL_STR, 0, 16 },
	{ "parent_id", NPF_COL_STR, 0, 16 },
	{ "start_ns", NPF_COL_U64, 0, 14 },
	{ "dur", NPF_COL_I64, 0, 10 },
	{ "job_id", NPF_COL_U64, 0, 6 },
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "op_index", NPF_COL_U64, 0, 8 },
	{ "error", NPF_COL_U64, 0, 5 },
	{ "end_ns", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "flags", NPF_COL_U64, NPF_COL_DATA, 0 },
};

static const struct npf_col oprec_cols[] = {
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "job_id", NPF_COL_U64, 0, 6 },
	{ "pe", NPF_COL_U64, 0, 2 },
	{ "exec_index", NPF_COL_U64, 0, 10 },
	{ "op_index", NPF_COL_U64, 0, 8 },
	{ "name", NPF_COL_STR, 0, 9 },
	{ "layer", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "start_ns", NPF_COL_I64, 0, 14 },
	{ "dur", NPF_COL_I64, 0, 9 },
	{ "run", NPF_COL_I64, 0, 9 },
	{ "iowait", NPF_COL_I64, 0, 9 },
	{ "Bound (+-ns)", NPF_COL_U64, 0, 12 },
	{ "pid", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "tid", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "opcode", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "end_ns", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "dma_bytes", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "macs", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "inconsistent", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "op_type", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "in_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "out_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "model_id", NPF_COL_U64, NPF_COL_DATA, 0 },
};

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

static bool npf_want(const struct npf_rep *p, unsigned int table)
{
	return p->mask & (1u << table);
}

static int npf_rep_inf(void *ctx, const struct npf_inf_row *r)
{
	struct npf_rep *p = ctx;
	const struct npuprof_span_rec *s = &r->span;
	char tid[NPF_HEX_TRACE], sid[NPF_HEX_SPAN];
	int64_t dur = (int64_t)(s->end_ns - s->start_ns);

	if (!p->mask) {	/* the summary */
		if (p->ndur == p->capdur) {
			size_t cap = p->capdur ? p->capdur * 2 : 1024;
			int64_t *v = realloc(p->durs, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			p->durs = v;
			p->capdur = cap;
		}
		p->durs[p->ndur++] = dur;
		return 0;
	}
	if (!npf_want(p, NPUPROF_TABLE_INFERENCES))
		return 0;
	npf_tw_row(&p->tw[NPUPROF_TABLE_INFERENCES], (struct npuprof_value[]){
		npf_s(npf_hex_trace(tid, s->trace_id)),
		npf_s(npf_hex_span(sid, s->span_id)),
		npf_i(s->tid), npf_i(dur), npf_i(s->pid),
		npf_u(s->start_ns), npf_u(s->end_ns), npf_u(r->executions),
		npf_i(r->npu_total_ns), npf_u(r->unmatched) });
	return p->tw[NPUPROF_TABLE_INFERENCES].err;
}

static int npf_rep_exec(void *ctx, const struct npf_exec_row *r)
{
	struct npf_rep *p = ctx;
	const struct npu_trace_rec_exec *e = &r->rec;
	char tid[NPF_HEX_TRACE], sid[NPF_HEX_SPAN], pid[NPF_HEX_SPAN];
	struct npuprof_value dev_null = { .null = true };

	if (!npf_want(p, NPUPROF_TABLE_EXECUTIONS))
		return 0;
	npf_tw_row(&p->tw[NPUPROF_TABLE_EXECUTIONS], (struct npuprof_value[]){
		npf_s(r->matched ? npf_hex_trace(tid, r->trace_id) : NULL),
		npf_s(r->matched ? npf_hex_span(sid, r->span_id) : NULL),
		r->device ? npf_u(e->pe) : dev_null,
		r->device ? npf_u(e->exec_index) : dev_null,
		npf_dur_v(&r->dur, r->dur.total),
		npf_dur_v(&r->dur, r->dur.run),
		npf_dur_v(&r->dur, r->dur.iowait),
		npf_bound(&r->dur),
		npf_minor(r->minor), npf_u(e->job_id), npf_i(e->pid),
		npf_i(e->tid), npf_u(e->status), npf_u(e->submit_ns),
		npf_u(e->complete_ns),
		r->device ? npf_mapped(&r->start) : dev_null,
		r->device ? npf_mapped(&r->end) : dev_null,
		r->device ? npf_u(e->n_ops) : dev_null,
		r->device ? npf_u(e->dma_bytes) : dev_null,
		r->device ? npf_u(e->macs) : dev_null,
		npf_s(r->matched && r->parent_id ?
		      npf_hex_span(pid, r->parent_id) : NULL),
		npf_u(r->violation) });
	return p->tw[NPUPROF_TABLE_EXECUTIONS].err;
}

/* Count an operator record into @a */
static void npf_opacc_add(struct npf_opacc *a, const struct npf_op_row *r)
{
	if (!r->dur.ok) {
		a->skipped++;
		return;
	}
	a->sum_ns += r->dur.total;
	a->iowait_ns += r->dur.iowait;
	a->macs += r->rec->macs;
	a->count++;
}

/* The operators table: by layer when the model has a table, else opcode */
static int npf_rep_opacc(struct npf_rep *p, const struct npf_op_row *r,
			 const struct npf_model *m)
{
	const struct npu_trace_rec_op *o = r->rec;
	struct npf_layacc *la;

	if (!npf_model_has_layers(m)) {
		npf_opacc_add(&p->ops[o->opcode], r);
		return 0;
	}
	la = npf_amap_find(&p->lays, r->model_id, o->op_index);
	if (!la) {
		la = npf_amap_add(&p->lays, r->model_id, o->op_index,
				  sizeof(*la));
		if (!la)
			return -ENOMEM;
		la->opcode = o->opcode;
		npf_model_layer(m, o->op_index, &la->l);
	}
	npf_opacc_add(&la->a, r);
	return 0;
}

static int npf_rep_op(void *ctx, const struct npf_op_row *r)
{
	struct npf_rep *p = ctx;
	const struct npu_trace_rec_op *o = r->rec;
	const struct npf_model *m = npf_trace_model(p->trace, r->model_id);
	struct npf_layer l;
	int ret;

	p->op_records++;
	if (npf_want(p, NPUPROF_TABLE_OPERATORS)) {
		ret = npf_rep_opacc(p, r, m);
		if (ret)
			return ret;
	}
	if (!npf_want(p, NPUPROF_TABLE_OP_RECORDS))
		return 0;
	npf_model_layer(m, o->op_index, &l);
	npf_tw_row(&p->tw[NPUPROF_TABLE_OP_RECORDS], (struct npuprof_value[]){
		npf_minor(r->minor), npf_u(o->job_id), npf_u(o->pe),
		npf_u(o->exec_index), npf_u(o->op_index),
		npf_s(npf_opcode_name(o->opcode)), npf_s(l.name),
		npf_mapped(&r->start),
		npf_dur_v(&r->dur, r->dur.total),
		npf_dur_v(&r->dur, r->dur.run),
		npf_dur_v(&r->dur, r->dur.iowait), npf_bound(&r->dur),
		npf_i(o->pid), npf_i(o->tid), npf_u(o->opcode),
		npf_mapped(&r->end), npf_u(o->dma_bytes), npf_u(o->macs),
		npf_u(r->inconsistent), npf_s(l.op_type), npf_s(l.in_shapes),
		npf_s(l.out_shapes),
		{ .null = !r->model_id, .u = r->model_id } });
	return p->tw[NPUPROF_TABLE_OP_RECORDS].err;
}

static bool npf_is_cpu_op(unsigned int kind)
{
	return kind == NPUPROF_SPAN_QUANTIZE || kind == NPUPROF_SPAN_LOWER ||
	       kind == NPUPROF_SPAN_UNLOWER || kind == NPUPROF_SPAN_DEQUANTIZE;
}

static int npf_rep_span(struct npf_rep *p, const struct npuprof_event *ev)
{
	const struct npuprof_span_rec *s = ev->span;
	char tid[NPF_HEX_TRACE], sid[NPF_HEX_SPAN], par[NPF_HEX_SPAN];
	int64_t dur = (int64_t)(s->end_ns - s->start_ns);
	struct npuprof_value null = { .null = true };

	p->spans++;
	if (s->kind == NPUPROF_SPAN_LABEL)
		p->labels++;
	if (npf_want(p, NPUPROF_TABLE_EXTERNAL) && npf_is_cpu_op(s->kind)) {
		npf_tw_row(&p->tw[NPUPROF_TABLE_EXTERNAL], (struct npuprof_value[]){
			npf_s(npf_hex_trace(tid, s->trace_id)),
			npf_s(npf_hex_span(sid, s->span_id)), npf_i(s->tid),
			npf_s(npuprof_span_kind_name(s->kind)),
			s->flags & NPUPROF_SPAN_F_OP ? npf_u(s->op_index) : null,
			npf_i(dur), npf_i(s->pid),
			npf_s(s->parent_id ? npf_hex_span(par, s->parent_id) : NULL),
			npf_u(s->start_ns), npf_u(s->end_ns),
			npf_u(!!(s->flags & NPUPROF_SPAN_F_ERROR)) });
	}
	if (npf_want(p, NPUPROF_TABLE_SPANS)) {
		const char *name = s->kind == NPUPROF_SPAN_LABEL ?
			(ev->label ? ev->label : "") : NULL;

		npf_tw_row(&p->tw[NPUPROF_TABLE_SPANS], (struct npuprof_value[]){
			npf_s(npuprof_span_kind_name(s->kind)), npf_s(name),
			npf_i(s->pid), npf_i(s->tid),
			npf_s(npf_hex_trace(tid, s->trace_id)),
			npf_s(npf_hex_span(sid, s->span_id)),
			npf_s(s->parent_id ? npf_hex_span(par, s->parent_id) : NULL),
			npf_u(s->start_ns), npf_i(dur),
			s->flags & NPUPROF_SPAN_F_JOB ? npf_u(s->job_id) : null,
			s->flags & NPUPROF_SPAN_F_JOB ? npf_u(s->minor) : null,
			s->flags & NPUPROF_SPAN_F_OP ? npf_u(s->op_index) : null,
			npf_u(!!(s->flags & NPUPROF_SPAN_F_ERROR)),
			npf_u(s->end_ns), npf_u(s->flags) });
	}
	if (p->tw[NPUPROF_TABLE_SPANS].err)
		return p->tw[NPUPROF_TABLE_SPANS].err;
	return p->tw[NPUPROF_TABLE_EXTERNAL].err;
}

/* Totals of the events that are not rows */
static void npf_rep_count(struct npf_rep *p, const struct npuprof_event *ev)
{
	if (ev->type == NPUPROF_EV_RECORD) {
		const struct npu_trace_rec_lost *l = ev->rec;

		if (l->hdr.type == NPU_TRACE_REC_LOST)
			p->lost[l->reason < 4 ? l->reason : 0] += l->count;
	} else if (ev->type == NPUPROF_EV_HOST_LOST) {
		p->spans_lost += ev->count;
	} else if (ev->type == NPUPROF_EV_SUMMARY) {
		p->have_summary = true;
		p->summary = ev->summary;
	} else if (ev->type == NPUPROF_EV_CLOCK_FIT) {
		p->fit_violations += ev->fit.violations;
	}
}

static const struct npf_join_ops npf_rep_ops = {
	.exec = npf_rep_exec,
	.inference = npf_rep_inf,
	.op = npf_rep_op,
};

/* Without the inferences table or the summary: the join keeps none */
static const struct npf_join_ops npf_rep_ops_noinf = {
	.exec = npf_rep_exec,
	.op = npf_rep_op,
};

/* One pass over the trace: rows to p->tw[], totals into @p */
static int npf_rep_pass(struct npf_rep *p, struct npf_join **jp)
{
	struct npuprof_event ev;
	struct npf_join *j;
	int ret;

	ret = npuprof_trace_rewind(p->trace);
	if (ret)
		return ret;
	ret = npf_join_new(p->trace, !p->mask ||
			   npf_want(p, NPUPROF_TABLE_INFERENCES) ?
			   &npf_rep_ops : &npf_rep_ops_noinf, p, &j);
	if (ret)
		return ret;
	while ((ret = npuprof_trace_next(p->trace, &ev)) == 1) {
		ret = 0;
		if (ev.type == NPUPROF_EV_SPAN)
			ret = npf_rep_span(p, &ev);
		else
			npf_rep_count(p, &ev);
		if (!ret)
			ret = npf_join_event(j, &ev);
		if (ret)
			break;
	}
	if (!ret)
		ret = npf_join_finish(j);
	if (ret || !jp)
		npf_join_free(j);
	else
		*jp = j;
	return ret;
}

/* A row of the operators table: an opcode's or a layer operator's */
struct npf_oprow {
	const struct npf_opacc *a;
	uint32_t opcode;
	char name[16];
	const struct npf_layacc *la;	/* NULL: an opcode's */
};

static int npf_oprow_cmp(const void *pa, const void *pb)
{
	const struct npf_oprow *x = pa, *y = pb;
	/* average descending: sum_x / n_x > sum_y / n_y, exactly */
	__int128 l = (__int128)x->a->sum_ns * (__int128)y->a->count;
	__int128 r = (__int128)y->a->sum_ns * (__int128)x->a->count;
	int c;

	/* operators whose every record was skipped go last */
	if (!x->a->count != !y->a->count)
		return x->a->count ? -1 : 1;
	if (l != r)
		return l > r ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c || !x->la != !y->la)
		return c ? c : x->la ? 1 : -1;
	if (!x->la)
		return 0;
	c = strcmp(x->la->l.name, y->la->l.name);
	if (c)
		return c;
	if (x->la->node.k1 != y->la->node.k1)
		return x->la->node.k1 < y->la->node.k1 ? -1 : 1;
	return (x->la->node.k2 > y->la->node.k2) -
	       (x->la->node.k2 < y->la->node.k2);
}

/* @a / @n rounded to the nearest, halves up (@n > 0) */
static uint64_t npf_udiv_round(uint64_t a, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)a * 2 + n) / (2 * (__int128)n));
}

/*
 * The operators table: aggregates, sorted by average time, descending;
 * one row per opcode, and one per operator of a model with a layer table
 */
static int npf_rep_operators(struct npf_rep *p)
{
	static const struct npf_layer none = { "", "", "", "", 0, 0 };
	struct npf_oprow *rows;
	const struct npf_layacc *la;
	size_t n = 0, i;

	rows = malloc((NPF_NOPS + p->lays.n) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < NPF_NOPS; i++)
		if (p->ops[i].count || p->ops[i].skipped)
			rows[n++] = (struct npf_oprow){ .a = &p->ops[i],
							.opcode = (uint32_t)i };
	for (la = npf_amap_first(&p->lays); la;
	     la = (const struct npf_layacc *)(la->node.next != &p->lays.head ?
						la->node.next : NULL))
		rows[n++] = (struct npf_oprow){ .a = &la->a,
						.opcode = la->opcode, .la = la };
	for (i = 0; i < n; i++) {
		const char *name = npf_opcode_name(rows[i].opcode);

		if (name)
			snprintf(rows[i].name, sizeof(rows[i].name), "%s", name);
		else
			snprintf(rows[i].name, sizeof(rows[i].name), "OP_%u",
				 rows[i].opcode);
	}
	qsort(rows, n, sizeof(*rows), npf_oprow_cmp);
	for (i = 0; i < n; i++) {
		const struct npf_opacc *a = rows[i].a;
		const struct npf_layer *l = rows[i].la ? &rows[i].la->l : &none;
		bool lay = rows[i].la;

		npf_tw_row(&p->tw[NPUPROF_TABLE_OPERATORS], (struct npuprof_value[]){
			npf_s(rows[i].name),
			{ .null = !a->count,
			  .f = a->count ? (double)a->sum_ns / (double)a->count : 0 },
			npf_u(a->count), npf_s(l->name), npf_u(rows[i].opcode),
			npf_i(a->sum_ns),
			{ .null = !a->count,
			  .f = a->count ? (double)a->iowait_ns / (double)a->count : 0 },
			npf_u(a->skipped), npf_s(l->op_type), npf_s(l->in_shapes),
			npf_s(l->out_shapes),
			{ .null = !a->count,
			  .u = a->count ? npf_udiv_round(a->macs, a->count) : 0 },
			{ .null = !lay, .u = lay ? rows[i].la->node.k1 : 0 },
			{ .null = !lay, .u = lay ? rows[i].la->node.k2 : 0 } });
	}
	free(rows);
	return 0;
}

static int npf_rep_done(struct npf_rep *p, FILE *out, int ret)
{
	free(p->ops);
	if (p->lays.b)
		npf_amap_fini(&p->lays);
	free(p->durs);
	if (!ret && out && (fflush(out) || ferror(out)))
		ret = -EIO;
	return ret;
}

NPUPROF_EXPORT
int npuprof_report(struct npuprof_trace *trace, FILE *out,
		   const struct npuprof_report_opts *opts)
{
	static const struct {
		const struct npf_col *cols;
		unsigned int n;
	} tabs[] = {
		[NPUPROF_TABLE_INFERENCES] = { inf_cols, NCOLS(inf_cols) },
		[NPUPROF_TABLE_EXECUTIONS] = { exec_cols, NCOLS(exec_cols) },
		[NPUPROF_TABLE_OPERATORS] = { oper_cols, NCOLS(oper_cols) },
		[NPUPROF_TABLE_EXTERNAL] = { ext_cols, NCOLS(ext_cols) },
		[NPUPROF_TABLE_SPANS] = { span_cols, NCOLS(span_cols) },
		[NPUPROF_TABLE_OP_RECORDS] = { oprec_cols, NCOLS(oprec_cols) },
	};
	const unsigned int all = ((1u << NCOLS(tabs)) - 1) &
				 ~(1u << 0);
	struct npuprof_report_opts o;
	unsigned int t, format;
	struct npf_rep p;
	int ret;

	ret = npf_report_opts(opts, &o);
	if (ret)
		return ret;
	format = o.format;
	p = (struct npf_rep){ .trace = trace, .mask = 1u << o.table };
	if (format == NPUPROF_FORMAT_ROWS && o.tables)
		p.mask = o.tables;
	if (!trace || o.table >= NCOLS(tabs) || (p.mask & ~all) ||
	    (format == NPUPROF_FORMAT_ROWS ? !o.sink || !o.sink->row :
	     !out || o.tables ||
	     (format != NPUPROF_FORMAT_TABLE && format != NPUPROF_FORMAT_WIDE &&
	      format != NPUPROF_FORMAT_CSV &&
	      format != NPUPROF_FORMAT_JSONL && format != NPUPROF_FORMAT_JSON)))
		return -EINVAL;
	if (npf_want(&p, NPUPROF_TABLE_OPERATORS)) {
		p.ops = calloc(NPF_NOPS, sizeof(*p.ops));
		if (!p.ops || npf_amap_init(&p.lays))
			return npf_rep_done(&p, out, -ENOMEM);
	}
	for (t = NPUPROF_TABLE_INFERENCES; t < NCOLS(tabs) && !ret; t++) {
		/* the operators as text: once their layers are known */
		if (!npf_want(&p, t) || (t == NPUPROF_TABLE_OPERATORS &&
					 format != NPUPROF_FORMAT_ROWS))
			continue;
		npf_tw_begin(&p.tw[t], out, format, tabs[t].cols, tabs[t].n,
			     t == NPUPROF_TABLE_OPERATORS);
		if (format == NPUPROF_FORMAT_ROWS)
			ret = npf_tw_sink(&p.tw[t], o.sink, t);
	}
	if (!ret)
		ret = npf_rep_pass(&p, NULL);
	if (!ret && npf_want(&p, NPUPROF_TABLE_OPERATORS)) {
		const struct npf_layacc *la;
		int opt_w = 0;

		/* the layer column: as wide as the longest name */
		for (la = npf_amap_first(&p.lays); la;
		     la = la->node.next != &p.lays.head ?
			  (const struct npf_layacc *)la->node.next : NULL)
			opt_w = npf_opt_w(opt_w, la->l.name);
		if (format != NPUPROF_FORMAT_ROWS)
			npf_tw_begin_opt(&p.tw[NPUPROF_TABLE_OPERATORS], out,
					 format, oper_cols, NCOLS(oper_cols),
					 true, opt_w);
		ret = npf_rep_operators(&p);
	}
	for (t = NPUPROF_TABLE_INFERENCES; t < NCOLS(tabs) && !ret; t++)
		if (npf_want(&p, t))
			ret = npf_tw_end(&p.tw[t]);
	return npf_rep_done(&p, out, ret);
}

static int npf_i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* @a / @b rounded to the nearest integer, halves up (@b > 0) */
static int64_t npf_div_round(__int128 a, __int128 b)
{
	__int128 n = 2 * a + b, d = 2 * b;
	__int128 q = n / d;

	if (n % d && (n < 0))
		q--;		/* floor */
	return (int64_t)q;
}

/*
 * The @pm-th permille of the sorted @v (@n > 0): linear interpolation
 * between the closest ranks (numpy's default, Hyndman and Fan's type 7),
 * x[k] + (x[k+1] - x[k]) * f with k + f = pm / 1000 * (n - 1), rounded to
 * the nearest ns, halves up. Exact: integer arithmetic throughout.
 */
int64_t npf_percentile(const int64_t *v, size_t n, unsigned int pm)
{
	__int128 pos = (__int128)pm * (__int128)(n - 1);
	size_t k = (size_t)(pos / 1000);
	__int128 f = pos % 1000;

	if (!f || k + 1 >= n)
		return v[k];
	return (int64_t)((__int128)v[k] +
			 npf_div_round(((__int128)v[k + 1] - v[k]) * f, 1000));
}

struct npf_stat {
	const char *label;
	const char *key;
	unsigned int pm;	/* permille; 0: min, 1001: max, 1002: mean */
};

static const struct npf_stat npf_stats[] = {
	{ "Min latency (ns)", "min_ns", 0 },
	{ "Max latency (ns)", "max_ns", 1001 },
	{ "Mean latency (ns)", "mean_ns", 1002 },
	{ "Median latency (ns)", "median_ns", 500 },
	{ "90.0 percentile latency (ns)", "p90_ns", 900 },
	{ "95.0 percentile latency (ns)", "p95_ns", 950 },
	{ "97.0 percentile latency (ns)", "p97_ns", 970 },
	{ "99.0 percentile latency (ns)", "p99_ns", 990 },
	{ "99.9 percentile latency (ns)", "p99_9_ns", 999 },
};

static int64_t npf_stat_value(const struct npf_rep *p, unsigned int pm)
{
	__int128 sum = 0;
	size_t i;

	if (pm == 0)
		return p->durs[0];
	if (pm == 1001)
		return p->durs[p->ndur - 1];
	if (pm == 1002) {
		for (i = 0; i < p->ndur; i++)
			sum += p->durs[i];
		return npf_div_round(sum, (__int128)p->ndur);
	}
	return npf_percentile(p->durs, p->ndur, pm);
}

static uint64_t npf_max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The trace's totals: the rows of the second part of the summary */
struct npf_total {
	const char *label;
	const char *key;
	uint64_t v;
	bool null;
};

static void npf_sum_line(FILE *f, const char *label, const char *value)
{
	fprintf(f, "%-32s: %s\n", label, value);
}

static void npf_sum_head(FILE *f, const char *title)
{
	fprintf(f, "================================================\n"
		   "  %s\n"
		   "================================================\n", title);
}

NPUPROF_EXPORT
int npuprof_print_summary(struct npuprof_trace *trace, FILE *out,
			  const struct npuprof_report_opts *opts)
{
	struct npf_rep p = { .trace = trace, .mask = 0 };
	struct npuprof_report_opts o;
	unsigned int format;
	const struct npf_join_stats *js;
	struct npf_join *j = NULL;
	uint64_t fit_err = 0;
	bool have_fit = false;
	char buf[32];
	size_t i, nt;
	uint32_t d;
	int ret;

	ret = npf_report_opts(opts, &o);
	if (ret)
		return ret;
	format = o.format;
	if (!trace || !out ||
	    (format != NPUPROF_FORMAT_TABLE && format != NPUPROF_FORMAT_JSON))
		return -EINVAL;
	ret = npf_rep_pass(&p, &j);
	if (ret)
		return npf_rep_done(&p, out, ret);
	js = npf_join_stats(j);
	if (p.ndur)
		qsort(p.durs, p.ndur, sizeof(*p.durs), npf_i64_cmp);
	for (d = 0; npf_trace_fit(trace, d); d++) {
		const struct npf_clock_fit *f = npf_trace_fit(trace, d);

		if (f->nseg) {
			have_fit = true;
			fit_err = npf_max_u64(fit_err, f->err_ns);
		}
	}
	{
		/* losses: the larger of the LOST records and the trailer's */
		uint64_t ring = npf_max_u64(p.lost[NPU_TRACE_LOST_RING_FULL],
					    p.summary.lost_ring);
		uint64_t dev = npf_max_u64(p.lost[NPU_TRACE_LOST_DEVICE],
					   p.summary.lost_device);
		uint64_t host = npf_max_u64(p.lost[NPU_TRACE_LOST_HOST],
					    p.summary.lost_host);
		struct npuprof_damage dmg = { 0 };

		npuprof_trace_damage(trace, &dmg, NULL);
		const struct npf_total tot[] = {
			{ "NPU executions", "executions", js->execs, false },
			{ "  joined to a submit span", "executions_joined",
			  js->matched, false },
			{ "  without a submit span", "executions_unmatched",
			  js->execs - js->matched, false },
			{ "Submit spans without execution", "submits_unmatched",
			  js->submits_unmatched, false },
			{ "NPU operator records", "operators", p.op_records, false },
			{ "Host spans", "spans", p.spans, false },
			{ "Records lost (ring full)", "lost_ring", ring, false },
			{ "Records lost (device)", "lost_device", dev, false },
			{ "Records lost (host)", "lost_host", host + p.lost[0],
			  false },
			{ "Host spans lost", "spans_lost",
			  npf_max_u64(p.spans_lost, p.summary.spans_lost), false },
			{ "Clock fit bound (ns)", "clock_fit_err_ns", fit_err,
			  !have_fit },
			{ "Causality violations", "violations", js->violations,
			  false },
			{ "  executions checked", "violations_checked",
			  js->checked, false },
			{ "  found by the recorder", "violations_recorded",
			  p.summary.violations, !p.have_summary },
			{ "Inconsistent device records", "inconsistent",
			  js->inconsistent, false },
			{ "Damaged chunks skipped", "damaged_chunks", dmg.chunks,
			  false },
			{ "  bytes", "damaged_bytes", dmg.bytes, false },
			{ "Truncated", "truncated",
			  (uint64_t)npuprof_trace_truncated(trace), false },
		};

		nt = sizeof(tot) / sizeof(tot[0]);
		if (format == NPUPROF_FORMAT_TABLE) {
			npf_sum_head(out, "Inference Results Summary");
			snprintf(buf, sizeof(buf), "%zu", p.ndur);
			npf_sum_line(out, "Inference counts", buf);
			for (i = 0; i < sizeof(npf_stats) / sizeof(npf_stats[0]); i++) {
				if (p.ndur)
					snprintf(buf, sizeof(buf), "%" PRId64,
						 npf_stat_value(&p, npf_stats[i].pm));
				else
					snprintf(buf, sizeof(buf), "-");
				npf_sum_line(out, npf_stats[i].label, buf);
			}
			npf_sum_head(out, "Trace Totals");
			for (i = 0; i < nt; i++) {
				if (tot[i].null)
					snprintf(buf, sizeof(buf), "-");
				else if (!strcmp(tot[i].key, "truncated"))
					snprintf(buf, sizeof(buf), "%s",
						 tot[i].v ? "yes" : "no");
				else
					snprintf(buf, sizeof(buf), "%" PRIu64,
						 tot[i].v);
				npf_sum_line(out, tot[i].label, buf);
			}
		} else {
			fprintf(out, "{\"inferences\": %zu", p.ndur);
			for (i = 0; i < sizeof(npf_stats) / sizeof(npf_stats[0]); i++) {
				fprintf(out, ", \"%s\": ", npf_stats[i].key);
				if (p.ndur)
					fprintf(out, "%" PRId64,
						npf_stat_value(&p, npf_stats[i].pm));
				else
					fputs("null", out);
			}
			for (i = 0; i < nt; i++) {
				fprintf(out, ", \"%s\": ", tot[i].key);
				if (tot[i].null)
					fputs("null", out);
				else if (!strcmp(tot[i].key, "truncated"))
					fputs(tot[i].v ? "true" : "false", out);
				else
					fprintf(out, "%" PRIu64, tot[i].v);
			}
			fputs("}\n", out);
		}
	}
	npf_join_free(j);
	return npf_rep_done(&p, out, 0);
}
