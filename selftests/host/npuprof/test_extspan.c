// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_extspan.c - spans built outside the process (the eBPF collector's
 * path, extspan.c): npuprof_session_add_span(), _add_thread() and
 * _add_meta() on a session with no device and no host spans of its own;
 * the file read back holds the spans field for field, the labels' text,
 * the thread names and the metadata, and the totals count them. Bad
 * spans, a session not started, a paused one and a stopped one are
 * refused or ignored as documented.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof.h"
#include "npuprof_analysis.h"

static const char *const no_devices[] = { NULL };

static char *tmp_file(const char *name)
{
	char *p;

	if (asprintf(&p, "/tmp/npuprof-extspan-%d-%s", (int)getpid(), name) < 0)
		abort();
	return p;
}

static int ext_session(const char *path, struct npuprof_session **s)
{
	struct npuprof_opts o;

	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	o.flags = NPUPROF_F_NO_HOST_SPANS;
	return npuprof_session_create(&o, s);
}

static struct npuprof_span_rec span_of(uint64_t id, uint16_t kind)
{
	struct npuprof_span_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.flags = NPUPROF_SPAN_F_JOB;
	r.pid = 4242;
	r.tid = 4243;
	r.start_ns = 1000 * id;
	r.end_ns = 1000 * id + 500;
	r.span_id = id;
	r.parent_id = id > 1 ? 1 : 0;
	r.trace_id[0] = 0xabcdef;
	r.trace_id[1] = 1;
	r.job_id = 100 + id;
	r.minor = 3;
	return r;
}

TEST(spans_read_back_as_added)
{
	char *path = tmp_file("a.npuprof");
	struct npuprof_session *s;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npuprof_span_rec r;
	struct npuprof_stats st;
	unsigned int nspans = 0, nlabels = 0, nthreads = 0, nmeta = 0;
	char err[256];
	int ret;
	uint64_t i;

	ASSERT_EQ(0, ext_session(path, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	ASSERT_EQ(0, npuprof_session_add_thread(s, 4242, 4243, "server-worker-thread"));
	for (i = 1; i <= 100; i++) {
		r = span_of(i, i == 1 ? NPUPROF_SPAN_INFERENCE : NPUPROF_SPAN_SUBMIT);
		r.name_id = 77;		/* ignored, and so is a model */
		r.flags |= NPUPROF_SPAN_F_MODEL;
		ASSERT_EQ(0, npuprof_session_add_span(s, &r, NULL));
	}
	r = span_of(101, NPUPROF_SPAN_LABEL);
	ASSERT_EQ(0, npuprof_session_add_span(s, &r, "warm up"));
	ASSERT_EQ(0, npuprof_session_add_meta(s, "bpf.source", "usdt"));
	st.sz = sizeof(st);
	ASSERT_EQ(0, npuprof_session_stats(s, &st));
	EXPECT_EQ(101, st.spans);
	ASSERT_EQ(0, npuprof_session_stop(s));
	/* stopped: refused */
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(s, &r, NULL));
	npuprof_session_free(s);

	ret = npuprof_trace_open(path, &t, err, sizeof(err));
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	while ((ret = npuprof_trace_next(t, &ev)) > 0) {
		if (ev.type == NPUPROF_EV_THREAD) {
			nthreads++;
			EXPECT_EQ(4243, ev.id);
			EXPECT_EQ(4242, ev.pid);
			EXPECT_STREQ("server-worker-t", ev.key);
		}
		if (ev.type == NPUPROF_EV_META && !strcmp(ev.key, "bpf.source")) {
			nmeta++;
			EXPECT_STREQ("usdt", ev.value);
		}
		if (ev.type == NPUPROF_EV_SUMMARY)
			EXPECT_EQ(101, ev.summary.spans);
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		nspans++;
		if (ev.span->kind == NPUPROF_SPAN_LABEL) {
			nlabels++;
			ASSERT_NE(NULL, ev.label);
			EXPECT_STREQ("warm up", ev.label);
			continue;
		}
		r = span_of(ev.span->span_id, ev.span->span_id == 1 ?
			    NPUPROF_SPAN_INFERENCE : NPUPROF_SPAN_SUBMIT);
		EXPECT_EQ(0, memcmp(&r, ev.span, sizeof(r)))
			TH_LOG("span %llu", (unsigned long long)ev.span->span_id);
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(101, nspans);
	EXPECT_EQ(1, nlabels);
	EXPECT_EQ(1, nthreads);
	EXPECT_EQ(1, nmeta);
	EXPECT_EQ(0, npuprof_trace_truncated(t));
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST(bad_spans_and_states)
{
	char *path = tmp_file("b.npuprof");
	struct npuprof_session *s;
	struct npuprof_span_rec r = span_of(5, NPUPROF_SPAN_WAIT);
	struct npuprof_stats st;

	ASSERT_EQ(0, ext_session(path, &s));
	/* not started */
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(s, &r, NULL));
	ASSERT_EQ(0, npuprof_session_start(s));
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(NULL, &r, NULL));
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(s, NULL, NULL));
	r.kind = 0;
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(s, &r, NULL));
	r.kind = NPUPROF_SPAN_KIND_MAX + 1;
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(s, &r, NULL));
	r = span_of(5, NPUPROF_SPAN_WAIT);
	r.end_ns = r.start_ns - 1;
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(s, &r, NULL));
	r = span_of(5, NPUPROF_SPAN_WAIT);
	r.span_id = 0;
	EXPECT_EQ(-EINVAL, npuprof_session_add_span(s, &r, NULL));
	EXPECT_EQ(-EINVAL, npuprof_session_add_meta(s, "", "x"));
	EXPECT_EQ(-EINVAL, npuprof_session_add_thread(s, 1, 0, "x"));
	/* paused: accepted, not kept */
	r = span_of(5, NPUPROF_SPAN_WAIT);
	ASSERT_EQ(0, npuprof_session_pause(s));
	EXPECT_EQ(0, npuprof_session_add_span(s, &r, NULL));
	ASSERT_EQ(0, npuprof_session_resume(s));
	EXPECT_EQ(0, npuprof_session_add_span(s, &r, NULL));
	st.sz = sizeof(st);
	ASSERT_EQ(0, npuprof_session_stats(s, &st));
	EXPECT_EQ(1, st.spans);
	npuprof_session_free(s);
	unlink(path);
	free(path);
}

struct adder {
	struct npuprof_session *s;
	uint64_t base;
	int err;
};

static void *add_many(void *arg)
{
	struct adder *a = arg;
	struct npuprof_span_rec r;
	uint64_t i;

	for (i = 0; i < 20000 && !a->err; i++) {
		r = span_of(a->base + i + 1, NPUPROF_SPAN_QUANTIZE);
		a->err = npuprof_session_add_span(a->s, &r, NULL);
	}
	return NULL;
}

/* Several threads adding at once: every span is in the file */
TEST(threads_add_concurrently)
{
	char *path = tmp_file("c.npuprof");
	struct npuprof_session *s;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct adder a[4];
	pthread_t th[4];
	uint64_t n = 0;
	char err[256];
	int i;

	ASSERT_EQ(0, ext_session(path, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	for (i = 0; i < 4; i++) {
		a[i] = (struct adder){ .s = s, .base = (uint64_t)i << 32 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, add_many, &a[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, a[i].err);
	}
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err))) TH_LOG("%s", err);
	while (npuprof_trace_next(t, &ev) > 0)
		n += ev.type == NPUPROF_EV_SPAN;
	EXPECT_EQ(4 * 20000, n);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
