// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_span_pack.c - packed host spans (SPANS items, trace-file.rst): a
 * session's own spans come back from the file field for field (exact
 * times, ids, nesting, traces, labels) in 28 bytes a span; spans that do
 * not pack (a job) stay SPAN items next to them; every span made is
 * either read back or counted as dropped, exactly; a SPANS item written
 * by hand decodes negative deltas and parents, and a corrupt one is
 * refused with a one-line error; spans the drain cannot pack (flags past
 * 8 bits, CPU operators') keep their place among packed ones as SPAN items, across the
 * buffer's wrap, their TSC times mapped to CLOCK_MONOTONIC by the drain;
 * regions (a STRING and a span, put on the slow path) among spans stored
 * in place keep their labels and children across the wraps.
 * Files of SPAN items only (the old form) are read by the other tests
 * (test_trace.c, test_extspan.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "file_util.h"
#include "npuprof.h"
#include "npuprof_analysis.h"
#include "spans.h"
#include "trace_format.h"
#include "writer.h"

static const char *const no_devices[] = { NULL };

static int span_session(const char *path, unsigned int buf_kb,
			struct npuprof_session **s)
{
	struct npuprof_opts o;
	int ret;

	/* times compared to the ns: what the program's span held */
	setenv("NPUPROF_SPAN_CLOCK", "monotonic", 1);
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	if (buf_kb)
		o.span_buf_kb = buf_kb;
	ret = npuprof_session_create(&o, s);
	return ret ? ret : npuprof_session_start(*s);
}

#define NSPANS 3000

/* What the program saw of its spans, to compare with the file. */
struct made {
	struct npuprof_span_rec rec[NSPANS];
	unsigned int n;
};

static void keep(struct made *m, const struct npuprof_span *s)
{
	if (m->n < NSPANS)
		m->rec[m->n++] = s->rec;
}

static const struct npuprof_span_rec *find(const struct made *m, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		if (m->rec[i].span_id == id)
			return &m->rec[i];
	return NULL;
}

TEST(session_spans_read_back_exactly)
{
	static struct made m;
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_session *s;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char *path = file_tmp("spanpack", "exact.npuprof"), err[256];
	unsigned int i, got = 0, labels = 0, jobs = 0, nested = 0;
	uint64_t label_id = 0;

	m.n = 0;
	ASSERT_EQ(0, span_session(path, 0, &s));
	ASSERT_EQ(0, npuprof_region_begin("outer region"));
	for (i = 0; i < 600; i++) {
		struct npuprof_span a, b;

		npuprof_span_begin(&a, NPUPROF_SPAN_USER, NULL);
		ASSERT_NE(0, a.on);
		npuprof_span_begin(&b, NPUPROF_SPAN_QUANTIZE, &a);
		if (i % 100 == 7)
			b.rec.flags |= NPUPROF_SPAN_F_ERROR;
		if (i % 50 == 3) {
			/* a job: a SPAN item, not packed */
			b.rec.flags |= NPUPROF_SPAN_F_JOB;
			b.rec.job_id = 1000 + i;
			b.rec.minor = 2;
		}
		npuprof_span_end(&b);
		npuprof_span_end(&a);
		keep(&m, &b);
		keep(&m, &a);
	}
	ASSERT_EQ(0, npuprof_region_end());
	ASSERT_EQ(0, npuprof_session_stop(s));
	ASSERT_EQ(0, npuprof_session_stats(s, &st));
	npuprof_session_free(s);
	EXPECT_EQ(1201u, st.spans);
	EXPECT_EQ(0u, st.spans_lost);
	/* 28 bytes a packed span, and 12 SPAN items of jobs */
	EXPECT_LT(st.bytes_written, 1189u * 28 + 12u * 96 + 16384u);

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1) {
		const struct npuprof_span_rec *r, *w;

		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		r = ev.span;
		EXPECT_EQ((int32_t)getpid(), r->pid);
		EXPECT_EQ((int64_t)r->start_ns, ev.time_ns);
		if (r->kind == NPUPROF_SPAN_LABEL) {
			labels++;
			label_id = r->span_id;
			ASSERT_NE(NULL, ev.label);
			EXPECT_STREQ("outer region", ev.label);
			continue;
		}
		w = find(&m, r->span_id);
		ASSERT_NE(NULL, w) TH_LOG("span %llx not made",
					  (unsigned long long)r->span_id);
		got++;
		EXPECT_EQ(w->kind, r->kind);
		EXPECT_EQ(w->flags, r->flags);
		EXPECT_EQ(w->start_ns, r->start_ns);
		EXPECT_EQ(w->end_ns, r->end_ns);
		EXPECT_EQ(w->parent_id, r->parent_id);
		EXPECT_EQ(w->trace_id[0], r->trace_id[0]);
		EXPECT_EQ(w->trace_id[1], r->trace_id[1]);
		/* valid with their flag only; 0 in the file without it */
		if (r->flags & NPUPROF_SPAN_F_JOB) {
			EXPECT_EQ(w->job_id, r->job_id);
			EXPECT_EQ(w->minor, r->minor);
			jobs++;
		} else {
			EXPECT_EQ(0u, r->job_id);
			EXPECT_EQ(0u, r->minor);
		}
		if (r->kind == NPUPROF_SPAN_QUANTIZE && r->parent_id &&
		    find(&m, r->parent_id))
			nested++;
	}
	npuprof_trace_close(t);
	EXPECT_EQ(1200u, got);
	EXPECT_EQ(1u, labels);
	EXPECT_EQ(12u, jobs);
	EXPECT_EQ(600u, nested);
	/* the root spans are children of the open region */
	EXPECT_EQ(label_id, m.rec[1].parent_id);
	unlink(path);
	free(path);
}

TEST(every_span_kept_or_counted)
{
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_session *s;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char *path = file_tmp("spanpack", "drops.npuprof"), err[256];
	uint64_t made = 0, read = 0, lost = 0;
	long i;

	/* a 4 KiB buffer: 85 spans; a burst of 200000 overflows it */
	ASSERT_EQ(0, span_session(path, 4, &s));
	for (i = 0; i < 200000; i++) {
		struct npuprof_span a;

		npuprof_span_begin(&a, NPUPROF_SPAN_USER, NULL);
		npuprof_span_end(&a);
		made++;
	}
	ASSERT_EQ(0, npuprof_session_stop(s));
	ASSERT_EQ(0, npuprof_session_stats(s, &st));
	npuprof_session_free(s);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1) {
		if (ev.type == NPUPROF_EV_SPAN)
			read++;
		else if (ev.type == NPUPROF_EV_HOST_LOST)
			lost += ev.count;
	}
	npuprof_trace_close(t);
	TH_LOG("%llu spans: %llu kept, %llu dropped",
	       (unsigned long long)made, (unsigned long long)read,
	       (unsigned long long)lost);
	EXPECT_EQ(made, read + lost);
	EXPECT_EQ(st.spans, read);
	EXPECT_EQ(st.spans_lost, lost);
	unlink(path);
	free(path);
}

#define NMIXED 30000
#define F_WIDE 0x100u	/* a flag past the packed form's 8 bits */

/* A made span of the mixed test, with the clock reads around it. */
struct mixed {
	struct npuprof_span_rec rec;
	uint64_t before, after;
	int seen;
};

static struct mixed mixed[NMIXED];

static int cmp_mixed(const void *a, const void *b)
{
	const struct mixed *x = a, *y = b;

	return x->rec.span_id < y->rec.span_id ? -1 :
		x->rec.span_id > y->rec.span_id;
}

static struct mixed *find_mixed(uint64_t id)
{
	struct mixed key = { .rec.span_id = id };

	return bsearch(&key, mixed, NMIXED, sizeof(key), cmp_mixed);
}

/*
 * Bursts of root spans and their children through a 64 KiB buffer that
 * wraps many times, every 97th child with a flag past 8 bits or a CPU
 * operator's, in turn (a SPAN item of the drain, not packed); read back
 * field for field, an operator's index too, or counted as dropped. With the TSC (@clock "auto" where it is usable), the SPAN
 * items' times are the drain's mapping: within the program's own clock
 * reads around each span, give or take @tol_ns.
 */
static void mixed_run(struct __test_metadata *_metadata, const char *clock,
		      uint64_t tol_ns)
{
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_session *s;
	struct npuprof_opts o;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char *path = file_tmp("spanpack", "mixed.npuprof"), err[256];
	uint64_t read = 0, lost = 0, wide = 0, wide_made = 0, ops = 0;
	unsigned int i;

	memset(mixed, 0, sizeof(mixed));
	setenv("NPUPROF_SPAN_CLOCK", clock, 1);
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	o.span_buf_kb = 64;
	ASSERT_EQ(0, npuprof_session_create(&o, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	for (i = 0; i < NMIXED; i += 2) {
		struct npuprof_span a, b;
		struct mixed *ma = &mixed[i], *mb = &mixed[i + 1];

		ma->before = file_mono_ns();
		npuprof_span_begin(&a, NPUPROF_SPAN_USER, NULL);
		mb->before = file_mono_ns();
		npuprof_span_begin(&b, NPUPROF_SPAN_USER, &a);
		if (i % 388 == 0) {
			b.rec.flags |= F_WIDE | NPUPROF_SPAN_F_ERROR;
			wide_made++;
		} else if (i % 194 == 0 && b.on) {
			b.rec.flags |= NPUPROF_SPAN_F_OP;
			b.rec.op_index = i;
		}
		npuprof_span_end(&b);
		mb->after = file_mono_ns();
		npuprof_span_end(&a);
		ma->after = file_mono_ns();
		ma->rec = a.rec;
		mb->rec = b.rec;
		/* bursts of 500 spans (28 KiB): the drain mostly keeps up */
		if (i % 500 == 498)
			usleep(2000);
	}
	ASSERT_EQ(0, npuprof_session_stop(s));
	ASSERT_EQ(0, npuprof_session_stats(s, &st));
	npuprof_session_free(s);
	qsort(mixed, NMIXED, sizeof(mixed[0]), cmp_mixed);

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1) {
		const struct npuprof_span_rec *r = ev.span;
		struct mixed *m;

		if (ev.type == NPUPROF_EV_HOST_LOST)
			lost += ev.count;
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		m = find_mixed(r->span_id);
		ASSERT_NE(NULL, m) TH_LOG("span %llx not made",
					  (unsigned long long)r->span_id);
		EXPECT_EQ(0, m->seen);
		m->seen = 1;
		read++;
		EXPECT_EQ(m->rec.kind, r->kind);
		EXPECT_EQ(m->rec.flags, r->flags);
		EXPECT_EQ(m->rec.parent_id, r->parent_id);
		EXPECT_EQ(m->rec.trace_id[0], r->trace_id[0]);
		EXPECT_EQ(m->rec.trace_id[1], r->trace_id[1]);
		EXPECT_EQ((int32_t)getpid(), r->pid);
		EXPECT_LE(r->start_ns, r->end_ns);
		if (!tol_ns) {
			/* clock_gettime(): the program's own values */
			EXPECT_EQ(m->rec.start_ns, r->start_ns);
			EXPECT_EQ(m->rec.end_ns, r->end_ns);
		} else {
			/* the TSC mapped: by the drain (SPAN) or the fit */
			EXPECT_LE(m->before, r->start_ns + tol_ns);
			EXPECT_LE(r->end_ns, m->after + tol_ns);
		}
		if (r->flags & F_WIDE)
			wide++;
		if (r->flags & NPUPROF_SPAN_F_OP) {
			EXPECT_EQ(m->rec.op_index, r->op_index);
			ops++;
		}
	}
	npuprof_trace_close(t);
	TH_LOG("%s: %d spans, %llu read, %llu dropped, %llu of %llu wide read, %llu operators'",
	       clock, NMIXED, (unsigned long long)read,
	       (unsigned long long)lost, (unsigned long long)wide,
	       (unsigned long long)wide_made, (unsigned long long)ops);
	EXPECT_EQ((uint64_t)NMIXED, read + lost);
	EXPECT_EQ(st.spans, read);
	EXPECT_EQ(st.spans_lost, lost);
	/* the wide spans dropped are among the lost */
	EXPECT_LE(wide_made - wide, lost);
	EXPECT_LT(0u, wide);
	EXPECT_LT(0u, ops);
	unlink(path);
	free(path);
}

TEST(unpacked_spans_keep_their_place)
{
	mixed_run(_metadata, "monotonic", 0);
}

TEST(unpacked_tsc_spans_mapped_by_the_drain)
{
	const char *why;

	if (!npf_spans_tsc_usable(&why))
		SKIP(return, "no TSC spans here: %s", why);
	/* a few us: the fit's bound on this machine is well inside */
	mixed_run(_metadata, "auto", 20000);
}

#define NROUNDS 300
#define PER_ROUND 40

/*
 * Rounds of a region and its children through a 16 KiB buffer (292 ring
 * spans): the regions' STRING and span go through the slow put, the
 * children are stored in place against the thread's limit, and the ring
 * wraps every seven rounds or so. Each region reads back with its own
 * label, each child under its own round's region, or is counted dropped.
 */
TEST(regions_among_spans_across_wraps)
{
	static uint64_t round_of_label[NROUNDS], child_id[NROUNDS][PER_ROUND];
	struct npuprof_session *s;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char *path = file_tmp("spanpack", "regions.npuprof");
	char err[256], text[32];
	uint64_t read = 0, lost = 0, labels = 0, children = 0;
	unsigned int r, i;

	ASSERT_EQ(0, span_session(path, 16, &s));
	for (r = 0; r < NROUNDS; r++) {
		snprintf(text, sizeof(text), "round %u", r);
		ASSERT_EQ(0, npuprof_region_begin(text));
		for (i = 0; i < PER_ROUND; i++) {
			struct npuprof_span a;

			npuprof_span_begin(&a, NPUPROF_SPAN_USER, NULL);
			npuprof_span_end(&a);
			child_id[r][i] = a.rec.span_id;
		}
		ASSERT_EQ(0, npuprof_region_end());
		if (r % 5 == 4)
			usleep(2000);
	}
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	/* the labels first: a child may be read before its region */
	while (npuprof_trace_next(t, &ev) == 1) {
		if (ev.type == NPUPROF_EV_HOST_LOST)
			lost += ev.count;
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		read++;
		if (ev.span->kind != NPUPROF_SPAN_LABEL)
			continue;
		ASSERT_NE(NULL, ev.label);
		ASSERT_EQ(1, sscanf(ev.label, "round %u", &r)) TH_LOG("%s",
								 ev.label);
		ASSERT_LT(r, NROUNDS);
		EXPECT_EQ(0u, round_of_label[r]);
		round_of_label[r] = ev.span->span_id;
		labels++;
	}
	npuprof_trace_close(t);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1) {
		const struct npuprof_span_rec *sp = ev.span;

		if (ev.type != NPUPROF_EV_SPAN || sp->kind == NPUPROF_SPAN_LABEL)
			continue;
		/* its round, from its id; its parent, that round's region */
		for (r = 0; r < NROUNDS; r++)
			if (sp->span_id >= child_id[r][0] &&
			    sp->span_id <= child_id[r][PER_ROUND - 1])
				break;
		ASSERT_LT(r, NROUNDS);
		if (round_of_label[r])
			EXPECT_EQ(round_of_label[r], sp->parent_id);
		children++;
	}
	npuprof_trace_close(t);
	TH_LOG("%u rounds: %llu regions and %llu spans read, %llu dropped",
	       NROUNDS, (unsigned long long)labels,
	       (unsigned long long)children, (unsigned long long)lost);
	EXPECT_EQ((uint64_t)NROUNDS * (PER_ROUND + 1), read + lost);
	EXPECT_LT(0u, labels);
	EXPECT_LT(0u, children);
	unlink(path);
	free(path);
}

/* A SPANS item of @n spans written by hand. */
struct hand {
	struct npf_item_spans h;
	struct npf_span_c c[4];
};

static int write_hand(const char *path, const struct hand *b, size_t len)
{
	struct npf_writer *w;
	struct npf_item_string str = { .id = 5, .len = 3 };
	int ret = npf_writer_open(path, 0, &w);

	if (ret)
		return ret;
	ret = npf_writer_add(w, NPF_ITEM_STRING, &str, sizeof(str), "abc", 4);
	if (!ret)
		ret = npf_writer_add(w, NPF_ITEM_SPANS, b, len, NULL, 0);
	return npf_writer_close(w) ?: ret;
}

TEST(hand_written_item_decodes)
{
	struct hand b = {
		.h = { .pid = 7, .tid = 8, .count = 4,
		       .clock = NPF_SPANS_CLOCK_MONOTONIC,
		       .time = 1000000, .span_id = 500, .trace_hi = 0x1234 },
		.c = {
			/* inner first: it ends first */
			{ .start_delta = 100, .dur = 50, .id_delta = 1,
			  .parent_back = 1, .trace_back = 1,
			  .kind = NPUPROF_SPAN_WAIT },
			/* its parent: begun earlier, an earlier id */
			{ .start_delta = -100, .dur = 300, .id_delta = -1,
			  .kind = NPUPROF_SPAN_USER,
			  .flags = NPUPROF_SPAN_F_ERROR },
			{ .start_delta = 1000, .dur = 0, .id_delta = 7,
			  .kind = NPUPROF_SPAN_LABEL, .name_id = 5 },
			{ .start_delta = 2000000000, .dur = 4000000000u,
			  .id_delta = 1, .parent_back = 8,
			  .kind = NPUPROF_SPAN_USER },
		},
	};
	static const uint64_t start[] = { 1000100, 1000000, 1001000,
					   2001001000ull };
	static const uint64_t dur[] = { 50, 300, 0, 4000000000ull };
	static const uint64_t id[] = { 501, 500, 507, 508 };
	static const uint64_t parent[] = { 500, 0, 0, 500 };
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char *path = file_tmp("spanpack", "hand.npuprof"), err[256];
	unsigned int n = 0;

	ASSERT_EQ(0, write_hand(path, &b, sizeof(b)));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) == 1) {
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		ASSERT_LT(n, 4u);
		EXPECT_EQ(7, ev.span->pid);
		EXPECT_EQ(8, ev.span->tid);
		EXPECT_EQ(start[n], ev.span->start_ns);
		EXPECT_EQ(start[n] + dur[n], ev.span->end_ns);
		EXPECT_EQ(id[n], ev.span->span_id);
		EXPECT_EQ(parent[n], ev.span->parent_id);
		EXPECT_EQ(0x1234u, ev.span->trace_id[0]);
		EXPECT_EQ(n == 0 ? 500u : id[n], ev.span->trace_id[1]);
		EXPECT_EQ(b.c[n].kind, ev.span->kind);
		EXPECT_EQ(b.c[n].flags, ev.span->flags);
		if (n == 2) {
			ASSERT_NE(NULL, ev.label);
			EXPECT_STREQ("abc", ev.label);
		}
		n++;
	}
	npuprof_trace_close(t);
	EXPECT_EQ(4u, n);
	unlink(path);
	free(path);
}

TEST(corrupt_item_refused)
{
	struct hand b = {
		.h = { .pid = 7, .tid = 8, .count = 5, .time = 1, .span_id = 1 },
	};
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char *path = file_tmp("spanpack", "bad.npuprof"), err[256];
	int ret;

	/* a count of 5 in room for 4 */
	ASSERT_EQ(0, write_hand(path, &b, sizeof(b)));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while ((ret = npuprof_trace_next(t, &ev)) == 1)
		EXPECT_NE(NPUPROF_EV_SPAN, ev.type);
	EXPECT_EQ(-EBADMSG, ret);
	EXPECT_NE(NULL, strstr(npuprof_trace_error(t), "SPANS item"))
		TH_LOG("%s", npuprof_trace_error(t));
	npuprof_trace_close(t);
	/* an unknown clock */
	b.h.count = 1;
	b.h.clock = 99;
	ASSERT_EQ(0, write_hand(path, &b, sizeof(b)));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)))
		TH_LOG("%s", err);
	while ((ret = npuprof_trace_next(t, &ev)) == 1)
		;
	EXPECT_EQ(-EBADMSG, ret);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
