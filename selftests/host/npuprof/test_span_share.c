// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_span_share.c - shared timestamps (npuprof_span_begin_at(),
 * npuprof_span_end_at(), npuprof_span_start()): where a span ends and the
 * next begins, or a child begins with its parent or a parent ends with its
 * last child, the trace holds exactly equal times, as libnpu's set_input
 * and get_output use them, their CPU operators' indexes intact (they ride
 * in the thread's ring in name_id's place); a stamp of another session,
 * of the same session before a pause, of the other clock, or before the
 * span's start is not honoured: the clock is read instead.
 * Single-threaded; each test has its own session and trace file, removed
 * at its end.
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

#define NSETS 100

static const char *const no_devices[] = { NULL };

/* A session of host spans alone, into @path, started. */
static struct npuprof_session *start_session(const char *path)
{
	struct npuprof_session *s;
	struct npuprof_opts o;

	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	if (npuprof_session_create(&o, &s))
		return NULL;
	if (npuprof_session_start(s)) {
		npuprof_session_free(s);
		return NULL;
	}
	return s;
}

static int stop_session(struct npuprof_session *s)
{
	int ret = npuprof_session_stop(s);

	npuprof_session_free(s);
	return ret;
}

/* The spans of @path with ids @ids[@n], in that order, into @out. */
static int read_spans(const char *path, const uint64_t *ids, size_t n,
		      struct npuprof_span_rec *out)
{
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char err[256];
	size_t i, found = 0;

	memset(out, 0, n * sizeof(*out));
	if (npuprof_trace_open(path, &t, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", path, err);
		return -1;
	}
	while (npuprof_trace_next(t, &ev) == 1) {
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		for (i = 0; i < n; i++) {
			if (ids[i] == ev.span->span_id && !out[i].span_id) {
				out[i] = *ev.span;
				found++;
			}
		}
	}
	npuprof_trace_close(t);
	return found == n ? 0 : -1;
}

/*
 * set_input as libnpu times it: Quantize begins with set_input, Lower
 * where Quantize ends, set_input ends with Lower. Three clock reads; the
 * trace shows the shared times equal, to the ns, in every set.
 */
TEST(shared_times_equal_in_the_trace)
{
	static uint64_t ids[NSETS * 3];
	static struct npuprof_span_rec got[NSETS * 3];
	struct npuprof_session *s;
	char *path = file_tmp("spanshare", "equal.npuprof");
	unsigned int i;

	s = start_session(path);
	ASSERT_NE(NULL, s);
	for (i = 0; i < NSETS; i++) {
		struct npuprof_span in, q, l;
		struct npuprof_stamp t;

		npuprof_span_begin(&in, NPUPROF_SPAN_SET_INPUT, NULL);
		ASSERT_NE(0, in.on);
		npuprof_span_begin_at(&q, NPUPROF_SPAN_QUANTIZE, &in,
				      npuprof_span_start(&in));
		ASSERT_EQ(in.rec.start_ns, q.rec.start_ns);
		/* CPU operators, as libnpu's: the index rides in the ring */
		q.rec.flags |= NPUPROF_SPAN_F_OP;
		q.rec.op_index = i;
		t = npuprof_span_end_at(&q, (struct npuprof_stamp){ 0, 0 });
		/* the stamp is the end recorded */
		ASSERT_EQ(q.rec.end_ns, t.t);
		ASSERT_NE(0u, t.key);
		npuprof_span_begin_at(&l, NPUPROF_SPAN_LOWER, &in, t);
		l.rec.flags |= NPUPROF_SPAN_F_OP;
		l.rec.op_index = i + 7;
		t = npuprof_span_end_at(&l, (struct npuprof_stamp){ 0, 0 });
		npuprof_span_end_at(&in, t);
		ids[i * 3] = in.rec.span_id;
		ids[i * 3 + 1] = q.rec.span_id;
		ids[i * 3 + 2] = l.rec.span_id;
	}
	ASSERT_EQ(0, stop_session(s));
	ASSERT_EQ(0, read_spans(path, ids, NSETS * 3, got));
	for (i = 0; i < NSETS; i++) {
		const struct npuprof_span_rec *in = &got[i * 3];
		const struct npuprof_span_rec *q = &got[i * 3 + 1];
		const struct npuprof_span_rec *l = &got[i * 3 + 2];

		ASSERT_EQ(in->span_id, q->parent_id);
		ASSERT_EQ(in->span_id, l->parent_id);
		EXPECT_EQ(in->start_ns, q->start_ns);
		EXPECT_EQ(q->end_ns, l->start_ns);
		EXPECT_EQ(l->end_ns, in->end_ns);
		EXPECT_LE(q->start_ns, q->end_ns);
		EXPECT_LE(l->start_ns, l->end_ns);
		/* the operator's index back in its place, name_id 0 */
		EXPECT_EQ(NPUPROF_SPAN_F_OP, q->flags);
		EXPECT_EQ(i, q->op_index);
		EXPECT_EQ(i + 7, l->op_index);
		EXPECT_EQ(0u, l->name_id);
		EXPECT_EQ(0u, in->op_index);
		EXPECT_EQ(0u, in->flags);
	}
	unlink(path);
	free(path);
}

/*
 * A stamp of a session that has stopped, given to a span of the next
 * session: the span reads the clock (its start is after a clock read the
 * test makes just before it), in the caller's span and in the trace.
 */
TEST(other_session_stamp_reads_the_clock)
{
	struct npuprof_span a, b;
	struct npuprof_span_rec got;
	struct npuprof_session *s;
	struct npuprof_stamp st;
	char *p1 = file_tmp("spanshare", "one.npuprof");
	char *p2 = file_tmp("spanshare", "two.npuprof");
	uint64_t before;

	s = start_session(p1);
	ASSERT_NE(NULL, s);
	npuprof_span_begin(&a, NPUPROF_SPAN_SET_INPUT, NULL);
	st = npuprof_span_end_at(&a, (struct npuprof_stamp){ 0, 0 });
	ASSERT_NE(0u, st.key);
	ASSERT_EQ(0, stop_session(s));

	s = start_session(p2);
	ASSERT_NE(NULL, s);
	before = file_mono_ns();
	ASSERT_LT(st.t, before);
	npuprof_span_begin_at(&b, NPUPROF_SPAN_LOWER, NULL, st);
	ASSERT_NE(0, b.on);
	EXPECT_GE(b.rec.start_ns, before);
	/* and the same for an end given the old stamp */
	before = file_mono_ns();
	npuprof_span_end_at(&b, st);
	EXPECT_GE(b.rec.end_ns, before);
	ASSERT_EQ(0, stop_session(s));
	ASSERT_EQ(0, read_spans(p2, &b.rec.span_id, 1, &got));
	EXPECT_EQ(b.rec.start_ns, got.start_ns);
	EXPECT_EQ(b.rec.end_ns, got.end_ns);
	EXPECT_NE(st.t, got.start_ns);
	unlink(p1);
	unlink(p2);
	free(p1);
	free(p2);
}

/* The same session paused and resumed in between: the clock again. */
TEST(stamp_before_a_pause_reads_the_clock)
{
	struct npuprof_span a, b;
	struct npuprof_session *s;
	struct npuprof_stamp st;
	char *path = file_tmp("spanshare", "pause.npuprof");
	uint64_t before;

	s = start_session(path);
	ASSERT_NE(NULL, s);
	npuprof_span_begin(&a, NPUPROF_SPAN_QUANTIZE, NULL);
	st = npuprof_span_end_at(&a, (struct npuprof_stamp){ 0, 0 });
	ASSERT_EQ(0, npuprof_session_pause(s));
	ASSERT_EQ(0, npuprof_session_resume(s));
	before = file_mono_ns();
	ASSERT_LT(st.t, before);
	npuprof_span_begin_at(&b, NPUPROF_SPAN_LOWER, NULL, st);
	ASSERT_NE(0, b.on);
	EXPECT_GE(b.rec.start_ns, before);
	npuprof_span_end(&b);
	ASSERT_EQ(0, stop_session(s));
	unlink(path);
	free(path);
}

/* An end given a stamp before the span's start: the clock, end >= start. */
TEST(stamp_before_the_start_reads_the_clock)
{
	struct npuprof_span a, b;
	struct npuprof_session *s;
	struct npuprof_stamp early;
	char *path = file_tmp("spanshare", "early.npuprof");
	uint64_t before;

	s = start_session(path);
	ASSERT_NE(NULL, s);
	npuprof_span_begin(&a, NPUPROF_SPAN_QUANTIZE, NULL);
	early = npuprof_span_start(&a);
	npuprof_span_end(&a);
	/* a clock read strictly after a's start */
	while (file_mono_ns() <= early.t)
		;
	npuprof_span_begin(&b, NPUPROF_SPAN_LOWER, NULL);
	ASSERT_LT(early.t, b.rec.start_ns);
	before = file_mono_ns();
	npuprof_span_end_at(&b, early);
	EXPECT_GE(b.rec.end_ns, before);
	EXPECT_LE(b.rec.start_ns, b.rec.end_ns);
	ASSERT_EQ(0, stop_session(s));
	unlink(path);
	free(path);
}

/*
 * A stamp of a program's own span stamped with the TSC, given to a libnpu
 * kind (clock_gettime()): the other clock, so the clock is read. Skipped
 * where the session cannot use the TSC.
 */
TEST(stamp_of_the_other_clock_reads_the_clock)
{
	struct npuprof_span u, b;
	struct npuprof_session *s;
	struct npuprof_stamp st;
	char *path = file_tmp("spanshare", "clock.npuprof");
	const char *why;
	uint64_t before;

	if (!npf_spans_tsc_usable(&why))
		SKIP(return, "no TSC spans here: %s", why);
	unsetenv("NPUPROF_SPAN_CLOCK");
	s = start_session(path);
	ASSERT_NE(NULL, s);
	npuprof_span_begin(&u, NPUPROF_SPAN_USER, NULL);
	st = npuprof_span_end_at(&u, (struct npuprof_stamp){ 0, 0 });
	before = file_mono_ns();
	npuprof_span_begin_at(&b, NPUPROF_SPAN_LOWER, NULL, st);
	/*
	 * The TSC count since boot is larger than CLOCK_MONOTONIC's ns on
	 * any CPU above 1 GHz: a stamp taken wrongly fails the upper bound.
	 */
	EXPECT_NE(st.t, b.rec.start_ns);
	EXPECT_LE(b.rec.start_ns, file_mono_ns());
	EXPECT_GE(b.rec.start_ns, before);
	npuprof_span_end(&b);
	/* a USER span after the USER span: the same clock, shared */
	npuprof_span_begin_at(&b, NPUPROF_SPAN_USER, NULL, st);
	EXPECT_EQ(st.t, b.rec.start_ns);
	npuprof_span_end(&b);
	ASSERT_EQ(0, stop_session(s));
	unlink(path);
	free(path);
}

/* No session: nothing timed, stamps of no time, nothing read or written. */
TEST(no_session_no_stamp)
{
	struct npuprof_span a;
	struct npuprof_stamp st;

	npuprof_span_begin_at(&a, NPUPROF_SPAN_LOWER, NULL,
			      (struct npuprof_stamp){ 12345, 3 });
	EXPECT_EQ(0, a.on);
	st = npuprof_span_start(&a);
	EXPECT_EQ(0u, st.t);
	EXPECT_EQ(0u, st.key);
	st = npuprof_span_end_at(&a, (struct npuprof_stamp){ 12345, 3 });
	EXPECT_EQ(0u, st.t);
	EXPECT_EQ(0u, st.key);
}

TEST_HARNESS_MAIN
