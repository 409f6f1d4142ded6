// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * join.c - joins the device's executions to the host spans that submitted
 * them, and inferences to their executions, over a trace read in file
 * order (Documentation/npu/reports.rst, "The join").
 *
 * An EXEC record and the SUBMIT span of the same job share (minor,
 * job_id): the minor is the DEVICE event's npu_info.minor of the record's
 * device, the span carries it with NPUPROF_SPAN_F_JOB. File order is not
 * time order (spans are written when they end, from thread buffers drained
 * now and then; ring records come separately), so whichever side comes
 * first waits in a hash map until the other arrives. An inference (an
 * INFERENCE span) is the parent of its SUBMIT spans, which may be written
 * before or after it (a child ends first, but on another thread its span
 * can be drained later). So an inference's row waits in a window until it
 * can no longer gain children: until a span that ended more than
 * NPF_WIN_NS (2 s) after it has been read (a span is written within a
 * drain pass of its end, every 100 ms at most: twenty passes), or the
 * window (struct npf_win) holds NPF_WIN_MAX inferences; then, once every
 * SUBMIT child has its execution. A user that takes no inference rows
 * gets no window. What is still unmatched at the end is emitted as such
 * (executions without trace ids) and counted, never dropped. Memory: the
 * entries waiting, i.e. the inferences of the last 2 s of trace, the jobs
 * in flight between the two streams plus those that never match.
 *
 * The model a job ran comes with its SUBMIT span (NPUPROF_SPAN_F_MODEL).
 * An OP record read before that span waits for it, a copy in @held by
 * job, when the trace has a model of the record's process (memuse.h):
 * the span comes within a drain pass or two. Other processes' operators
 * and traces without models do not wait. At most NPF_JOIN_HELD_OPS wait;
 * beyond that the oldest job's go out without a model.
 *
 * A join is used by one thread at a time; it lives from npf_join_new() to
 * npf_join_free() and keeps no pointer into the events it is fed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "amap.h"
#include "join.h"
#include "memuse.h"

#define NPF_JOIN_DEVS	64

struct npf_submit {
	struct npf_anode node;
	uint64_t trace_id[2];
	uint64_t span_id;
	uint64_t parent_id;
	int32_t pid;
	uint32_t model_id;
};

/* The OP rows of one job waiting for its SUBMIT span (copies) */
struct npf_held {
	struct npf_anode node;
	size_t n, cap;
	struct npf_op_row *rows;
	struct npu_trace_rec_op *recs;
};

struct npf_pexec {
	struct npf_anode node;
	struct npf_exec_row row;
};

/*
 * An inference: @have_span once its span came, @closed once it left the
 * window (it gains no more children); its row goes out when it is closed
 * and no SUBMIT child waits for an execution
 */
struct npf_acc {
	struct npf_anode node;
	bool have_span;
	bool closed;
	uint64_t pending;		/* SUBMIT children waiting */
	struct npf_inf_row row;
};

struct npf_join {
	const struct npuprof_trace *trace;
	const struct npf_join_ops *ops;
	void *ctx;
	uint32_t minor[NPF_JOIN_DEVS];
	uint64_t clock_hz[NPF_JOIN_DEVS];
	struct npf_amap submits;	/* (minor, job_id) */
	struct npf_amap execs;		/* (minor, job_id) */
	struct npf_amap accs;		/* (pid, inference span_id) */
	struct npf_amap held;		/* (minor, job_id): struct npf_held */
	uint64_t nheld;			/* OP rows in @held */
	struct npf_win win;		/* inferences that may gain children */
	bool rows;			/* an inference receiver: keep them */
	struct npf_join_stats st;
};

int npf_join_new(const struct npuprof_trace *trace,
		 const struct npf_join_ops *ops, void *ctx,
		 struct npf_join **jp)
{
	struct npf_join *j = calloc(1, sizeof(*j));
	unsigned int i;

	if (!j)
		return -ENOMEM;
	j->trace = trace;
	j->ops = ops;
	j->ctx = ctx;
	j->rows = ops && ops->inference;
	for (i = 0; i < NPF_JOIN_DEVS; i++)
		j->minor[i] = UINT32_MAX;
	if (npf_amap_init(&j->submits) || npf_amap_init(&j->execs) ||
	    npf_amap_init(&j->accs) || npf_amap_init(&j->held)) {
		npf_join_free(j);
		return -ENOMEM;
	}
	*jp = j;
	return 0;
}

static void npf_held_del(struct npf_join *j, struct npf_held *h)
{
	j->nheld -= h->n;
	free(h->rows);
	free(h->recs);
	npf_amap_del(&j->held, &h->node);
}

void npf_join_free(struct npf_join *j)
{
	if (!j)
		return;
	while (j->held.b && j->held.n)
		npf_held_del(j, npf_amap_first(&j->held));
	npf_amap_fini(&j->held);
	npf_amap_fini(&j->submits);
	npf_amap_fini(&j->execs);
	npf_amap_fini(&j->accs);
	npf_win_fini(&j->win);
	free(j);
}

const struct npf_join_stats *npf_join_stats(const struct npf_join *j)
{
	return &j->st;
}

uint32_t npf_join_minor(const struct npf_join *j, uint32_t dev)
{
	return dev < NPF_JOIN_DEVS ? j->minor[dev] : UINT32_MAX;
}

static void npf_join_pending(struct npf_join *j)
{
	uint64_t n = j->submits.n + j->execs.n + j->accs.n;

	if (n > j->st.max_pending)
		j->st.max_pending = n;
}

static int npf_emit_inf(struct npf_join *j, const struct npf_inf_row *row)
{
	return j->ops && j->ops->inference ?
		j->ops->inference(j->ctx, row) : 0;
}

static int npf_emit_exec(struct npf_join *j, const struct npf_exec_row *row)
{
	return j->ops && j->ops->exec ? j->ops->exec(j->ctx, row) : 0;
}

/* The accumulator of inference (@pid, @span_id), created if needed */
static struct npf_acc *npf_acc_get(struct npf_join *j, int32_t pid,
				   uint64_t span_id)
{
	struct npf_acc *a = (void *)npf_amap_find(&j->accs, (uint32_t)pid,
						 span_id);

	if (!a)
		a = npf_amap_add(&j->accs, (uint32_t)pid, span_id, sizeof(*a));
	return a;
}

/* An execution meets its SUBMIT span @s; @was_pending: @s waited. */
static int npf_match(struct npf_join *j, struct npf_exec_row *row,
		     const struct npf_submit *s, bool was_pending)
{
	struct npf_acc *a = NULL;
	int ret;

	row->matched = true;
	row->model_id = s->model_id;
	row->trace_id[0] = s->trace_id[0];
	row->trace_id[1] = s->trace_id[1];
	row->span_id = s->span_id;
	row->parent_id = s->parent_id;
	j->st.matched++;
	ret = npf_emit_exec(j, row);
	if (ret || !s->parent_id || !j->rows)
		return ret;
	a = npf_acc_get(j, s->pid, s->parent_id);
	if (!a)
		return -ENOMEM;
	a->row.executions++;
	if (row->dur.ok)
		a->row.npu_total_ns += row->dur.total;
	if (was_pending && a->pending)
		a->pending--;
	if (a->closed && !a->pending) {
		ret = npf_emit_inf(j, &a->row);
		npf_amap_del(&j->accs, &a->node);
	}
	return ret;
}

static int npf_emit_op(struct npf_join *j, const struct npf_op_row *row)
{
	if (row->model_id)
		j->st.ops_with_model++;
	return j->ops && j->ops->op ? j->ops->op(j->ctx, row) : 0;
}

/* The OP rows of job @h go out with model @model_id, and @h is freed */
static int npf_held_release(struct npf_join *j, struct npf_held *h,
			    uint32_t model_id)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < h->n; i++) {
		h->rows[i].rec = &h->recs[i];
		h->rows[i].model_id = model_id;
		ret = npf_emit_op(j, &h->rows[i]);
	}
	npf_held_del(j, h);
	return ret;
}

static int npf_join_submit(struct npf_join *j, const struct npuprof_span_rec *sp)
{
	struct npf_pexec *e;
	struct npf_submit s = { .span_id = sp->span_id,
				.parent_id = sp->parent_id, .pid = sp->pid };
	struct npf_submit *p;
	struct npf_held *h;
	struct npf_acc *a;
	int ret;

	j->st.submits++;
	if (sp->flags & NPUPROF_SPAN_F_MODEL)
		s.model_id = sp->name_id;
	h = npf_amap_find(&j->held, sp->minor, sp->job_id);
	if (h && (ret = npf_held_release(j, h, s.model_id)))
		return ret;
	s.trace_id[0] = sp->trace_id[0];
	s.trace_id[1] = sp->trace_id[1];
	e = (void *)npf_amap_find(&j->execs, sp->minor, sp->job_id);
	if (e) {
		ret = npf_match(j, &e->row, &s, false);
		npf_amap_del(&j->execs, &e->node);
		return ret;
	}
	/* a second SUBMIT of the same job (not from libnpu): first one wins */
	if (npf_amap_find(&j->submits, sp->minor, sp->job_id)) {
		j->st.submits_unmatched++;
		return 0;
	}
	p = npf_amap_add(&j->submits, sp->minor, sp->job_id, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->trace_id[0] = s.trace_id[0];
	p->trace_id[1] = s.trace_id[1];
	p->span_id = s.span_id;
	p->parent_id = s.parent_id;
	p->pid = s.pid;
	p->model_id = s.model_id;
	if (sp->parent_id && j->rows) {
		a = npf_acc_get(j, sp->pid, sp->parent_id);
		if (!a)
			return -ENOMEM;
		a->pending++;
	}
	npf_join_pending(j);
	return 0;
}

/*
 * Close the inferences that can no longer gain children (all of them with
 * @all): emit those whose SUBMIT children all have their executions; the
 * others go out when the last one does (npf_match()) or at the end.
 */
static int npf_join_advance(struct npf_join *j, bool all)
{
	struct npf_went e;
	int ret = 0;

	while (!ret && npf_win_next(&j->win, all, &e)) {
		struct npf_acc *a = npf_amap_find(&j->accs, e.k1, e.k2);

		if (!a || a->closed)
			continue;
		a->closed = true;
		if (!a->pending) {
			ret = npf_emit_inf(j, &a->row);
			npf_amap_del(&j->accs, &a->node);
		}
	}
	return ret;
}

static int npf_join_inference(struct npf_join *j,
			      const struct npuprof_span_rec *sp)
{
	struct npf_acc *a;

	j->st.inferences++;
	if (!j->rows)		/* nobody wants inference rows: no window */
		return 0;
	a = npf_acc_get(j, sp->pid, sp->span_id);
	if (!a)
		return -ENOMEM;
	if (a->have_span) {
		/* the same span id twice: the second one alone */
		struct npf_inf_row row = { .span = *sp };

		return npf_emit_inf(j, &row);
	}
	a->have_span = true;
	a->row.span = *sp;
	if (npf_win_push(&j->win, sp->end_ns, (uint32_t)sp->pid, sp->span_id))
		return -ENOMEM;
	npf_join_pending(j);
	return 0;
}

static uint64_t npf_dev_hz(const struct npf_join *j, uint32_t dev)
{
	return dev < NPF_JOIN_DEVS ? j->clock_hz[dev] : 0;
}

/* Is [start, end] (widened by the bounds) outside [submit, complete]? */
static bool npf_outside(const struct npuprof_clock_map *s,
			const struct npuprof_clock_map *e, uint64_t submit,
			uint64_t complete)
{
	__int128 lo = (__int128)s->ns + s->err_ns;
	__int128 hi = (__int128)e->ns - e->err_ns;

	return lo < (__int128)submit || hi > (__int128)complete;
}

static int npf_join_exec(struct npf_join *j, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_hdr *h = ev->rec;
	struct npf_exec_row row;
	struct npf_exec_row *r = &row;
	struct npf_submit *s;
	struct npf_pexec *p;
	const struct npu_trace_rec_exec *e;
	int ret;

	memset(&row, 0, sizeof(row));
	memcpy(&row.rec, h, h->size < sizeof(row.rec) ? h->size : sizeof(row.rec));
	e = &row.rec;
	row.dev = ev->dev;
	row.minor = npf_join_minor(j, ev->dev);
	row.start = ev->start;
	row.end = ev->end;
	j->st.execs++;
	if (e->flags & NPU_TRACE_EXEC_F_DEVICE) {
		uint64_t span = e->end_tick - e->start_tick;
		uint64_t sum;

		row.device = true;
		if (e->end_tick < e->start_tick ||
		    __builtin_add_overflow(e->run_ticks, e->iowait_ticks, &sum) ||
		    sum != span) {
			row.inconsistent = true;
			j->st.inconsistent++;
		}
		npf_dev_dur(j->trace, ev->dev, npf_dev_hz(j, ev->dev),
			    e->start_tick, e->run_ticks, e->iowait_ticks,
			    &ev->start, &ev->end, &row.dur);
		if (ev->start.valid && ev->end.valid) {
			j->st.checked++;
			if (npf_outside(&ev->start, &ev->end, e->submit_ns,
					e->complete_ns)) {
				row.violation = true;
				j->st.violations++;
			}
		}
	}
	s = (void *)npf_amap_find(&j->submits, row.minor, e->job_id);
	if (s) {
		ret = npf_match(j, &row, s, true);
		npf_amap_del(&j->submits, &s->node);
		return ret;
	}
	p = npf_amap_add(&j->execs, row.minor, e->job_id, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->row = *r;
	npf_join_pending(j);
	return 0;
}

/* Does the trace (so far) have a model of process @pid? Models are few. */
static bool npf_pid_has_model(const struct npuprof_trace *t, int32_t pid)
{
	size_t i, n = npf_trace_nmodels(t);

	for (i = 0; i < n; i++)
		if (npf_model_pid(npf_trace_model_at(t, i)) == pid)
			return true;
	return false;
}

/* Keep OP row @row (and a copy of its record) until its SUBMIT span */
static int npf_hold_op(struct npf_join *j, const struct npf_op_row *row)
{
	struct npf_held *h = npf_amap_find(&j->held, row->minor,
					   row->rec->job_id);
	int ret;

	/* full: the oldest job's rows go out without a model */
	while (j->nheld >= NPF_JOIN_HELD_OPS) {
		ret = npf_held_release(j, npf_amap_first(&j->held), 0);
		if (ret)
			return ret;
		h = npf_amap_find(&j->held, row->minor, row->rec->job_id);
	}
	if (!h) {
		h = npf_amap_add(&j->held, row->minor, row->rec->job_id,
				 sizeof(*h));
		if (!h)
			return -ENOMEM;
		h->n = h->cap = 0;
		h->rows = NULL;
		h->recs = NULL;
	}
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		void *a = realloc(h->rows, cap * sizeof(*h->rows));

		if (!a)
			return -ENOMEM;
		h->rows = a;
		a = realloc(h->recs, cap * sizeof(*h->recs));
		if (!a)
			return -ENOMEM;
		h->recs = a;
		h->cap = cap;
	}
	h->rows[h->n] = *row;
	memcpy(&h->recs[h->n], row->rec, sizeof(h->recs[0]));
	h->n++;
	j->nheld++;
	if (j->nheld > j->st.ops_held_max)
		j->st.ops_held_max = j->nheld;
	return 0;
}

static int npf_join_op(struct npf_join *j, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_op *o = ev->rec;
	struct npf_submit *s;
	struct npf_op_row row = { .rec = o, .dev = ev->dev,
				  .minor = npf_join_minor(j, ev->dev),
				  .start = ev->start, .end = ev->end };

	if (o->end_tick < o->start_tick ||
	    o->iowait_ticks > o->end_tick - o->start_tick) {
		row.inconsistent = true;
		j->st.inconsistent++;
	} else {
		npf_dev_dur(j->trace, ev->dev, npf_dev_hz(j, ev->dev),
			    o->start_tick,
			    o->end_tick - o->start_tick - o->iowait_ticks,
			    o->iowait_ticks, &ev->start, &ev->end, &row.dur);
	}
	s = npf_amap_find(&j->submits, row.minor, o->job_id);
	if (s) {
		row.model_id = s->model_id;
		return npf_emit_op(j, &row);
	}
	if (!j->ops || !j->ops->op || !npf_pid_has_model(j->trace, o->pid))
		return npf_emit_op(j, &row);
	return npf_hold_op(j, &row);
}

int npf_join_event(struct npf_join *j, const struct npuprof_event *ev)
{
	switch (ev->type) {
	case NPUPROF_EV_DEVICE: {
		const struct npu_info *info = ev->info;

		if (ev->dev >= NPF_JOIN_DEVS)
			return 0;
		if (ev->info_size >= offsetof(struct npu_info, minor) +
		    sizeof(info->minor))
			j->minor[ev->dev] = info->minor;
		if (ev->info_size >= offsetof(struct npu_info, dram_size))
			j->clock_hz[ev->dev] = info->clock_hz;
		return 0;
	}
	case NPUPROF_EV_SPAN: {
		int ret = 0;

		if (ev->span->kind == NPUPROF_SPAN_SUBMIT &&
		    (ev->span->flags & NPUPROF_SPAN_F_JOB))
			ret = npf_join_submit(j, ev->span);
		else if (ev->span->kind == NPUPROF_SPAN_INFERENCE)
			ret = npf_join_inference(j, ev->span);
		npf_win_saw(&j->win, ev->span->end_ns);
		return ret ? ret : npf_join_advance(j, false);
	}
	case NPUPROF_EV_RECORD: {
		const struct npu_trace_rec_hdr *h = ev->rec;

		if (h->type == NPU_TRACE_REC_EXEC)
			return npf_join_exec(j, ev);
		if (h->type == NPU_TRACE_REC_OP)
			return npf_join_op(j, ev);
		return 0;
	}
	default:
		return 0;
	}
}

int npf_join_finish(struct npf_join *j)
{
	struct npf_anode *n, *next;
	int ret = 0;

	/* operators no SUBMIT span claimed: without a model */
	while (!ret && j->held.n)
		ret = npf_held_release(j, npf_amap_first(&j->held), 0);
	/* executions no SUBMIT span claimed: reported without ids */
	for (n = j->execs.head.next; !ret && n != &j->execs.head; n = next) {
		next = n->next;
		ret = npf_emit_exec(j, &((struct npf_pexec *)n)->row);
		npf_amap_del(&j->execs, n);
	}
	j->st.submits_unmatched += j->submits.n;
	/* the window, in order: those complete go out */
	if (!ret)
		ret = npf_join_advance(j, true);
	/* inferences still waiting for an execution that never came */
	for (n = j->accs.head.next; !ret && n != &j->accs.head; n = next) {
		struct npf_acc *a = (void *)n;

		next = n->next;
		if (a->have_span) {
			a->row.unmatched = a->pending;
			ret = npf_emit_inf(j, &a->row);
		}
		npf_amap_del(&j->accs, n);
	}
	return ret;
}
