/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npuprof_check.h - what the profiler's VM tests check in a trace file:
 * ck_load() reads a .npuprof file through libnpuprof's public reader into
 * arrays (spans, EXEC and OP records, losses, trailer), and the ck_check_*
 * helpers assert the invariants every capture must hold (joins of
 * executions to their submit spans, device intervals inside host
 * intervals, operators inside their execution, zero loss, level contents).
 *
 * Include after kselftest_harness.h; the checks take the test's
 * _metadata and fail it with ASSERT_* / EXPECT_*. Single-threaded; a
 * struct ck_trace owns its arrays until ck_free().
 */
#ifndef NPUPROF_CHECK_H
#define NPUPROF_CHECK_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/npu.h>

#include "npuprof_analysis.h"
#include "reader.h"

#define CK_MAX_DEV	8
#define CK_MAX_SESSION	64

struct ck_exec {
	struct npu_trace_rec_exec x;
	uint32_t minor;
	struct npuprof_clock_map start, end;
};

struct ck_op {
	struct npu_trace_rec_op o;
	uint32_t minor;
};

struct ck_trace {
	struct npuprof_span_rec *spans;
	char **labels;			/* per span: LABEL text or NULL */
	size_t nspans;
	struct ck_exec *execs;
	size_t nexecs;
	struct ck_op *ops;
	size_t nops;
	uint64_t lost_records;		/* sum of LOST record counts */
	uint64_t lost_spans;		/* sum of HOST_LOST counts */
	uint64_t seq_gaps;		/* seq gaps not explained by LOST */
	uint64_t other_records;
	uint64_t bo_allocs;		/* BO_ALLOC records of buffers */
	uint64_t bo_failed;		/* BO_ALLOC records of failures */
	uint64_t bo_frees;		/* BO_FREE records */
	uint64_t bo_bad;		/* BO records with impossible fields */
	int32_t bo_pid;			/* pid of the last BO record */
	bool have_summary;
	struct npuprof_summary summary;
	uint32_t nfits;
	uint32_t reader_fits;		/* CLOCK_FIT events the reader made */
	bool have_index;		/* the file ends with its clock index */
	uint64_t fit_err_ns;		/* largest over the devices */
	uint64_t fit_violations;
	uint32_t ndev;
	uint32_t minor[CK_MAX_DEV];
	bool have_seq[CK_MAX_DEV];
	uint32_t last_seq[CK_MAX_DEV];
	uint32_t session_ops[CK_MAX_SESSION];
	uint32_t nsession_ops;
	long meta_pid;			/* META "pid", or -1 */
	bool truncated;
};

/* Append one element of @size to *@arr holding *@n */
static inline int ck_push(void *arr, size_t *n, size_t size, const void *elem)
{
	void **a = arr;
	void *p;

	/* capacity: the next power of two, grown when @n reaches one */
	if (!(*n & (*n - 1))) {
		p = realloc(*a, (*n ? *n * 2 : 1) * size);
		if (!p)
			return -ENOMEM;
		*a = p;
	}
	memcpy((char *)*a + *n * size, elem, size);
	(*n)++;
	return 0;
}

static inline void ck_seq(struct ck_trace *t, uint32_t dev,
			  const struct npu_trace_rec_hdr *h)
{
	uint64_t explained = 0;
	uint32_t missing;

	if (dev >= CK_MAX_DEV)
		return;
	if (h->type == NPU_TRACE_REC_LOST &&
	    ((const struct npu_trace_rec_lost *)h)->reason == NPU_TRACE_LOST_RING_FULL)
		explained = ((const struct npu_trace_rec_lost *)h)->count;
	if (t->have_seq[dev]) {
		missing = h->seq - t->last_seq[dev] - 1;
		if (missing != explained)
			t->seq_gaps++;
	}
	t->have_seq[dev] = true;
	t->last_seq[dev] = h->seq;
}

static inline int ck_event(struct ck_trace *t, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_hdr *h;

	switch (ev->type) {
	case NPUPROF_EV_META:
		if (ev->key && !strcmp(ev->key, "pid") && ev->value)
			t->meta_pid = strtol(ev->value, NULL, 10);
		return 0;
	case NPUPROF_EV_DEVICE:
		if (ev->dev < CK_MAX_DEV && ev->info &&
		    ev->info_size >= sizeof(struct npu_info)) {
			t->minor[ev->dev] = ((const struct npu_info *)ev->info)->minor;
			if (ev->dev >= t->ndev)
				t->ndev = ev->dev + 1;
		}
		return 0;
	case NPUPROF_EV_SPAN: {
		char *label = ev->label ? strdup(ev->label) : NULL;
		size_t n = t->nspans;

		if (ev->label && !label)
			return -ENOMEM;
		if (ck_push(&t->labels, &n, sizeof(label), &label) ||
		    ck_push(&t->spans, &t->nspans, sizeof(*ev->span), ev->span)) {
			free(label);
			return -ENOMEM;
		}
		return 0;
	}
	case NPUPROF_EV_RECORD:
		h = ev->rec;
		ck_seq(t, ev->dev, h);
		if (h->type == NPU_TRACE_REC_EXEC) {
			struct ck_exec e = { .start = ev->start, .end = ev->end };

			memcpy(&e.x, h, sizeof(e.x));
			e.minor = ev->dev < CK_MAX_DEV ? t->minor[ev->dev] : ~0u;
			return ck_push(&t->execs, &t->nexecs, sizeof(e), &e);
		}
		if (h->type == NPU_TRACE_REC_OP) {
			struct ck_op o;

			memcpy(&o.o, h, sizeof(o.o));
			o.minor = ev->dev < CK_MAX_DEV ? t->minor[ev->dev] : ~0u;
			return ck_push(&t->ops, &t->nops, sizeof(o), &o);
		}
		if (h->type == NPU_TRACE_REC_BO_ALLOC ||
		    h->type == NPU_TRACE_REC_BO_FREE) {
			const struct npu_trace_rec_bo *b = (const void *)h;

			if (b->error)
				t->bo_failed++;
			else if (h->type == NPU_TRACE_REC_BO_ALLOC)
				t->bo_allocs++;
			else
				t->bo_frees++;
			if (h->size < sizeof(*b) || b->kind > NPU_BO_KIND_MAX ||
			    (!b->error && (!b->bo_id || !b->size ||
					   b->size % 4096)))
				t->bo_bad++;
			t->bo_pid = b->pid;
			return 0;
		}
		if (h->type == NPU_TRACE_REC_LOST)
			t->lost_records += ((const struct npu_trace_rec_lost *)h)->count;
		else if (h->type != NPU_TRACE_REC_CLOCK)
			t->other_records++;
		return 0;
	case NPUPROF_EV_SESSION:
		if (t->nsession_ops < CK_MAX_SESSION)
			t->session_ops[t->nsession_ops++] = ev->session_op;
		return 0;
	case NPUPROF_EV_HOST_LOST:
		t->lost_spans += ev->count;
		return 0;
	case NPUPROF_EV_CLOCK_FIT:
		t->nfits++;
		if (ev->key && !strcmp(ev->key, "reader"))
			t->reader_fits++;
		if (ev->fit.err_ns > t->fit_err_ns)
			t->fit_err_ns = ev->fit.err_ns;
		t->fit_violations += ev->fit.violations;
		return 0;
	case NPUPROF_EV_SUMMARY:
		t->have_summary = true;
		t->summary = ev->summary;
		return 0;
	default:
		return 0;
	}
}

/* Read @path; on error @err holds the reader's message. */
static inline int ck_load(const char *path, struct ck_trace *t, char *err,
			  size_t errlen)
{
	struct npuprof_trace *tr;
	struct npuprof_event ev;
	int ret;

	memset(t, 0, sizeof(*t));
	t->meta_pid = -1;
	err[0] = '\0';
	ret = npuprof_trace_open(path, &tr, err, errlen);
	if (ret)
		return ret;
	while ((ret = npuprof_trace_next(tr, &ev)) > 0) {
		ret = ck_event(t, &ev);
		if (ret)
			break;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s", npuprof_trace_error(tr));
	t->truncated = npuprof_trace_truncated(tr);
	npuprof_trace_close(tr);
	{
		/* the index a session writes from the samples it copied */
		struct npf_reader *r;
		uint64_t off, seq;

		if (!npf_reader_open(path, &r, NULL, 0)) {
			t->have_index = !npf_reader_index(r, &off, &seq);
			npf_reader_close(r);
		}
	}
	return ret;
}

static inline void ck_free(struct ck_trace *t)
{
	size_t i;

	for (i = 0; i < t->nspans; i++)
		free(t->labels[i]);
	free(t->labels);
	free(t->spans);
	free(t->execs);
	free(t->ops);
	memset(t, 0, sizeof(*t));
}

static inline size_t ck_count_kind(const struct ck_trace *t, unsigned int kind)
{
	size_t i, n = 0;

	for (i = 0; i < t->nspans; i++)
		n += t->spans[i].kind == kind;
	return n;
}

/* The span of @pid with id @id, or NULL */
static inline const struct npuprof_span_rec *
ck_span(const struct ck_trace *t, int32_t pid, uint64_t id)
{
	size_t i;

	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].span_id == id && t->spans[i].pid == pid)
			return &t->spans[i];
	return NULL;
}

/* The nearest ancestor of @s of @kind, or NULL (bounded walk) */
static inline const struct npuprof_span_rec *
ck_ancestor(const struct ck_trace *t, const struct npuprof_span_rec *s,
	    unsigned int kind)
{
	unsigned int depth;

	for (depth = 0; s && s->parent_id && depth < 64; depth++) {
		s = ck_span(t, s->pid, s->parent_id);
		if (s && s->kind == kind)
			return s;
	}
	return NULL;
}

static inline bool ck_same_trace(const struct npuprof_span_rec *a,
				 const struct npuprof_span_rec *b)
{
	return a->trace_id[0] == b->trace_id[0] && a->trace_id[1] == b->trace_id[1];
}

/*
 * Nothing lost, nothing corrupt: the trailer is there and says so, no
 * LOST record, no HOST_LOST, ring sequence numbers continuous.
 */
static inline void ck_check_complete(struct __test_metadata *_metadata,
				     const struct ck_trace *t)
{
	EXPECT_FALSE(t->truncated);
	ASSERT_TRUE(t->have_summary);
	EXPECT_EQ(0, t->summary.lost_ring);
	EXPECT_EQ(0, t->summary.lost_device);
	EXPECT_EQ(0, t->summary.lost_host);
	EXPECT_EQ(0, t->summary.spans_lost);
	EXPECT_EQ(0, t->summary.ring_errors);
	EXPECT_EQ(0, t->summary.violations);
	EXPECT_EQ(0, t->lost_records);
	EXPECT_EQ(0, t->lost_spans);
	EXPECT_EQ(0, t->seq_gaps);
	EXPECT_EQ(0, t->other_records);
	EXPECT_EQ(0, t->bo_bad);
	EXPECT_LE(t->bo_frees, t->bo_allocs);
	EXPECT_EQ(t->nspans, t->summary.spans);
	EXPECT_LE(1, t->ndev);
	/*
	 * one fit per device, the reader's (the session writes none and never
	 * reads its file back), and no execution outside its host interval;
	 * the file ends with the session's index of the clock samples
	 */
	EXPECT_EQ(t->ndev, t->nfits);
	EXPECT_EQ(t->ndev, t->reader_fits);
	EXPECT_TRUE(t->have_index);
	EXPECT_EQ(0, t->fit_violations);
	ASSERT_LE(2, t->nsession_ops);
	EXPECT_EQ(NPUPROF_SESSION_START, t->session_ops[0]);
	EXPECT_EQ(NPUPROF_SESSION_STOP, t->session_ops[t->nsession_ops - 1]);
}

/* Every span: ids set and unique, end >= start, parent in the file */
static inline void ck_check_spans(struct __test_metadata *_metadata,
				  const struct ck_trace *t)
{
	size_t i, j;

	for (i = 0; i < t->nspans; i++) {
		const struct npuprof_span_rec *s = &t->spans[i];

		ASSERT_NE(0, s->span_id);
		ASSERT_LE(s->start_ns, s->end_ns);
		ASSERT_LE(NPUPROF_SPAN_LABEL, s->kind);
		ASSERT_GE(NPUPROF_SPAN_KIND_MAX, s->kind);
		if (s->parent_id)
			ASSERT_NE(NULL, ck_span(t, s->pid, s->parent_id));
		for (j = i + 1; j < t->nspans; j++)
			ASSERT_FALSE(t->spans[j].span_id == s->span_id &&
				     t->spans[j].pid == s->pid);
	}
}

/*
 * libnpu's spans around inferences: every span of an inference's work is
 * a descendant of its INFERENCE span, in the same trace, inside it in
 * time; @n inferences made each of them once (one input, one output).
 */
static inline void ck_check_inference_spans(struct __test_metadata *_metadata,
					    const struct ck_trace *t, size_t n)
{
	static const unsigned int kinds[] = {
		NPUPROF_SPAN_SET_INPUT, NPUPROF_SPAN_GET_OUTPUT,
		NPUPROF_SPAN_QUANTIZE, NPUPROF_SPAN_LOWER, NPUPROF_SPAN_UNLOWER,
		NPUPROF_SPAN_DEQUANTIZE, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_WAIT,
	};
	size_t i, k;

	EXPECT_EQ(n, ck_count_kind(t, NPUPROF_SPAN_INFERENCE));
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		EXPECT_EQ(n, ck_count_kind(t, kinds[k]))
			TH_LOG("span kind %s", npuprof_span_kind_name(kinds[k]));
	}
	for (i = 0; i < t->nspans; i++) {
		const struct npuprof_span_rec *s = &t->spans[i], *inf;

		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (s->kind == kinds[k])
				break;
		if (k == sizeof(kinds) / sizeof(kinds[0]))
			continue;
		inf = ck_ancestor(t, s, NPUPROF_SPAN_INFERENCE);
		ASSERT_NE(NULL, inf);
		ASSERT_TRUE(ck_same_trace(s, inf));
		ASSERT_LE(inf->start_ns, s->start_ns);
		ASSERT_GE(inf->end_ns, s->end_ns);
		EXPECT_FALSE(s->flags & NPUPROF_SPAN_F_ERROR);
		if (s->kind >= NPUPROF_SPAN_QUANTIZE &&
		    s->kind <= NPUPROF_SPAN_DEQUANTIZE)
			EXPECT_TRUE(s->flags & NPUPROF_SPAN_F_OP);
	}
}

/* The SUBMIT span of the job (@minor, @job_id); fails unless exactly one */
static inline const struct npuprof_span_rec *
ck_submit_of(struct __test_metadata *_metadata, const struct ck_trace *t,
	     uint32_t minor, uint64_t job_id)
{
	const struct npuprof_span_rec *found = NULL;
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct npuprof_span_rec *s = &t->spans[i];

		if (s->kind != NPUPROF_SPAN_SUBMIT ||
		    !(s->flags & NPUPROF_SPAN_F_JOB) || s->minor != minor ||
		    s->job_id != job_id)
			continue;
		EXPECT_EQ(NULL, found);
		found = s;
	}
	return found;
}

/*
 * The executions of @n jobs of process @pid (0: any) at trace @level:
 * each joined to its SUBMIT span by (minor, job_id), its host interval
 * around the submit call, its device interval (level >= 1) inside its
 * INFERENCE span and its host submit..complete interval within the clock
 * fit's error bound, and its OP records (level 2) inside it and summing
 * to at most its duration.
 */
static inline void ck_check_execs(struct __test_metadata *_metadata,
				  const struct ck_trace *t, int level,
				  size_t n, int32_t pid)
{
	size_t i, j, ops_total = 0;

	ASSERT_EQ(n, t->nexecs);
	EXPECT_EQ(n, ck_count_kind(t, NPUPROF_SPAN_SUBMIT));
	if (level < 2)
		EXPECT_EQ(0, t->nops);
	for (i = 0; i < t->nexecs; i++) {
		const struct ck_exec *e = &t->execs[i];
		const struct npu_trace_rec_exec *x = &e->x;
		const struct npuprof_span_rec *sub, *inf;
		int64_t err, s_ns, e_ns;
		uint64_t op_sum = 0;
		size_t nop = 0;

		EXPECT_EQ(NPU_JOB_OK, x->status)
			TH_LOG("execution %zu: job %llu on npu%u", i,
			       (unsigned long long)x->job_id, e->minor);
		if (pid)
			ASSERT_EQ(pid, x->pid);
		ASSERT_LE(x->submit_ns, x->complete_ns);
		sub = ck_submit_of(_metadata, t, e->minor, x->job_id);
		ASSERT_NE(NULL, sub);
		ASSERT_EQ(x->pid, sub->pid);
		ASSERT_EQ(x->tid, sub->tid);
		/* the driver stamped submit_ns inside the submit call */
		ASSERT_LE(sub->start_ns, x->submit_ns);
		ASSERT_GE(sub->end_ns, x->submit_ns);
		inf = ck_ancestor(t, sub, NPUPROF_SPAN_INFERENCE);
		ASSERT_NE(NULL, inf);
		ASSERT_TRUE(ck_same_trace(sub, inf));
		if (level == 0) {
			ASSERT_EQ(0, x->flags & NPU_TRACE_EXEC_F_DEVICE);
			ASSERT_EQ(0, x->start_tick);
			ASSERT_EQ(0, x->end_tick);
			ASSERT_EQ(0, x->n_ops);
			continue;
		}
		ASSERT_TRUE(x->flags & NPU_TRACE_EXEC_F_DEVICE);
		ASSERT_LE(x->start_tick, x->end_tick);
		ASSERT_EQ(x->end_tick - x->start_tick, x->run_ticks + x->iowait_ticks);
		ASSERT_TRUE(e->start.valid);
		ASSERT_TRUE(e->end.valid);
		err = (int64_t)(e->start.err_ns > e->end.err_ns ? e->start.err_ns
								  : e->end.err_ns);
		s_ns = e->start.ns;
		e_ns = e->end.ns;
		ASSERT_LE(s_ns, e_ns);
		/* device interval inside the INFERENCE span and the host one */
		EXPECT_GE(s_ns + err, (int64_t)inf->start_ns);
		EXPECT_LE(e_ns - err, (int64_t)inf->end_ns);
		EXPECT_GE(s_ns + err, (int64_t)x->submit_ns);
		EXPECT_LE(e_ns - err, (int64_t)x->complete_ns);
		if (level < 2)
			continue;
		ASSERT_LT(0, x->n_ops);
		for (j = 0; j < t->nops; j++) {
			const struct npu_trace_rec_op *o = &t->ops[j].o;

			if (t->ops[j].minor != e->minor || o->job_id != x->job_id)
				continue;
			nop++;
			ASSERT_EQ(x->pid, o->pid);
			ASSERT_EQ(x->pe, o->pe);
			ASSERT_LE(x->start_tick, o->start_tick);
			ASSERT_LE(o->start_tick, o->end_tick);
			ASSERT_GE(x->end_tick, o->end_tick);
			ASSERT_GE(o->end_tick - o->start_tick, o->iowait_ticks);
			op_sum += o->end_tick - o->start_tick;
		}
		ASSERT_EQ(x->n_ops, nop);
		ASSERT_LE(op_sum, x->end_tick - x->start_tick);
		ops_total += nop;
	}
	if (level == 2)
		EXPECT_EQ(t->nops, ops_total);
}

#endif /* NPUPROF_CHECK_H */
