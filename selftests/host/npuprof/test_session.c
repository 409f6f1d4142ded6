// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_session.c - sessions and host spans of libnpuprof on the host, with
 * no device (an empty device list captures host spans only): spans from
 * many threads with their ids, parents and traces, labelled records,
 * pause and resume, exact counts of dropped spans, a span buffer faulted
 * in at the thread's first span, a writer killed in the
 * middle, and option errors. The files are read back with the public
 * reader.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof.h"
#include "npuprof_analysis.h"
#include "file_util.h"

static const char *const no_devices[] = { NULL };

/*
 * One directory for the files of every test, made before the harness
 * forks a process for each and removed with what a failed test left in
 * it when the harness's process exits.
 */
static char tmp_dir[64];
static pid_t tmp_owner;

__attribute__((constructor)) static void tmp_dir_make(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/npuprof-test-XXXXXX");
	if (!mkdtemp(tmp_dir))
		abort();
	tmp_owner = getpid();
}

__attribute__((destructor)) static void tmp_dir_remove(void)
{
	if (getpid() == tmp_owner)
		file_rmdir(tmp_dir);
}

static char *tmp_path(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", tmp_dir, name) < 0)
		abort();
	return p;
}

static int new_session(const char *path, unsigned int buf_kb,
		       struct npuprof_session **s)
{
	struct npuprof_opts o;

	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	if (buf_kb)
		o.span_buf_kb = buf_kb;
	return npuprof_session_create(&o, s);
}

/* What a file holds, counted by reading it back. */
struct contents {
	uint64_t spans, by_kind[NPUPROF_SPAN_KIND_MAX + 1];
	uint64_t threads, host_lost, sessions[5];
	int summary;
	struct npuprof_summary sum;
	int truncated;
	int err;
	struct npuprof_span_rec *recs;	/* every span, file order */
	char labels[64][32];		/* label text by span, first 64 */
	unsigned int nlabels;
};

static void read_file(const char *path, struct contents *c)
{
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char err[256];
	size_t cap = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = npuprof_trace_open(path, &t, err, sizeof(err));
	if (ret) {
		c->err = ret;
		return;
	}
	while ((ret = npuprof_trace_next(t, &ev)) == 1) {
		switch (ev.type) {
		case NPUPROF_EV_SPAN:
			if (c->spans == cap) {
				cap = cap ? cap * 2 : 1024;
				c->recs = realloc(c->recs, cap * sizeof(*c->recs));
			}
			c->recs[c->spans++] = *ev.span;
			if (ev.span->kind <= NPUPROF_SPAN_KIND_MAX)
				c->by_kind[ev.span->kind]++;
			if (ev.label && c->nlabels < 64)
				snprintf(c->labels[c->nlabels++], 32, "%s",
					 ev.label);
			break;
		case NPUPROF_EV_THREAD:
			c->threads++;
			break;
		case NPUPROF_EV_HOST_LOST:
			c->host_lost += ev.count;
			break;
		case NPUPROF_EV_SESSION:
			if (ev.session_op < 5)
				c->sessions[ev.session_op]++;
			break;
		case NPUPROF_EV_SUMMARY:
			c->summary = 1;
			c->sum = ev.summary;
			break;
		}
	}
	c->err = ret;
	c->truncated = npuprof_trace_truncated(t);
	npuprof_trace_close(t);
}

static const struct npuprof_span_rec *find_span(const struct contents *c,
						uint64_t id)
{
	for (uint64_t i = 0; i < c->spans; i++)
		if (c->recs[i].span_id == id)
			return &c->recs[i];
	return NULL;
}

#define THREADS		4
#define PER_THREAD	2000

static void *span_thread(void *arg)
{
	unsigned int i;

	(void)arg;
	npuprof_region_begin("warm up");
	for (i = 0; i < PER_THREAD; i++) {
		struct npuprof_span outer, inner;

		npuprof_span_begin(&outer, NPUPROF_SPAN_INFERENCE, NULL);
		npuprof_span_begin(&inner, NPUPROF_SPAN_QUANTIZE, &outer);
		inner.rec.flags |= NPUPROF_SPAN_F_OP;
		inner.rec.op_index = i;
		npuprof_span_end(&inner);
		npuprof_span_end(&outer);
		if (i % 256 == 255)
			usleep(2000);	/* let the reader thread drain */
	}
	npuprof_region_end();
	return NULL;
}

TEST(spans_from_threads)
{
	char *path = tmp_path("threads.npuprof");
	struct npuprof_session *s;
	struct npuprof_stats st = { .sz = sizeof(st) };
	pthread_t th[THREADS];
	struct contents c;
	uint64_t i, children = 0;

	/* buffers that hold every span: the drain's speed is not tested */
	ASSERT_EQ(0, new_session(path, 4096, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, span_thread, NULL));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	ASSERT_EQ(0, npuprof_session_stop(s));
	ASSERT_EQ(0, npuprof_session_stats(s, &st));
	EXPECT_EQ(THREADS * (2 * PER_THREAD + 1), st.spans);
	EXPECT_EQ(0, st.spans_lost);
	npuprof_session_free(s);

	read_file(path, &c);
	ASSERT_EQ(0, c.err);
	EXPECT_EQ(0, c.truncated);
	ASSERT_EQ(1, c.summary);
	EXPECT_EQ(THREADS * (2 * PER_THREAD + 1), c.spans);
	EXPECT_EQ(c.spans, c.sum.spans);
	EXPECT_EQ(0, c.sum.spans_lost);
	EXPECT_EQ(THREADS * PER_THREAD, c.by_kind[NPUPROF_SPAN_INFERENCE]);
	EXPECT_EQ(THREADS * PER_THREAD, c.by_kind[NPUPROF_SPAN_QUANTIZE]);
	EXPECT_EQ(THREADS, c.by_kind[NPUPROF_SPAN_LABEL]);
	EXPECT_EQ(THREADS, c.threads);
	EXPECT_EQ(1, c.sessions[NPUPROF_SESSION_START]);
	EXPECT_EQ(1, c.sessions[NPUPROF_SESSION_STOP]);
	ASSERT_EQ(THREADS, c.nlabels);
	for (i = 0; i < c.nlabels; i++)
		EXPECT_STREQ("warm up", c.labels[i]);
	for (i = 0; i < c.spans; i++) {
		const struct npuprof_span_rec *r = &c.recs[i], *p;

		ASSERT_NE(0, r->span_id);
		ASSERT_LE(r->start_ns, r->end_ns);
		ASSERT_NE(0, r->tid);
		ASSERT_EQ(getpid(), r->pid);
		if (r->kind == NPUPROF_SPAN_LABEL) {
			EXPECT_EQ(0, r->parent_id);
			continue;
		}
		p = find_span(&c, r->parent_id);
		ASSERT_NE(NULL, p);
		ASSERT_EQ(r->tid, p->tid);
		ASSERT_LE(p->start_ns, r->start_ns);
		ASSERT_GE(p->end_ns, r->end_ns);
		if (r->kind == NPUPROF_SPAN_QUANTIZE) {
			/* a child joins its parent's trace */
			ASSERT_EQ(NPUPROF_SPAN_INFERENCE, p->kind);
			ASSERT_EQ(p->trace_id[0], r->trace_id[0]);
			ASSERT_EQ(p->trace_id[1], r->trace_id[1]);
			ASSERT_EQ(NPUPROF_SPAN_F_OP, r->flags);
			children++;
		} else {
			/* an inference without parent: child of the label */
			ASSERT_EQ(NPUPROF_SPAN_LABEL, p->kind);
			ASSERT_NE(p->trace_id[1], r->trace_id[1]);
		}
	}
	EXPECT_EQ(THREADS * PER_THREAD, children);
	free(c.recs);
	unlink(path);
	free(path);
}

TEST(span_ids_unique)
{
	char *path = tmp_path("ids.npuprof");
	struct npuprof_session *s;
	pthread_t th[THREADS];
	struct contents c;
	uint64_t i;

	/* buffers that hold every span: the drain's speed is not tested */
	ASSERT_EQ(0, new_session(path, 4096, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, span_thread, NULL));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	npuprof_session_free(s);
	read_file(path, &c);
	ASSERT_EQ(0, c.err);
	ASSERT_EQ(THREADS * (2 * PER_THREAD + 1), c.spans);
	/* span ids unique, inference trace ids unique */
	for (i = 1; i < c.spans; i++) {
		const struct npuprof_span_rec *r = &c.recs[i];

		ASSERT_EQ(r, find_span(&c, r->span_id));
	}
	free(c.recs);
	unlink(path);
	free(path);
}

TEST(pause_resume_keeps_nothing_between)
{
	char *path = tmp_path("pause.npuprof");
	struct npuprof_session *s;
	struct npuprof_span straddle, sp;
	struct contents c;
	int i;

	ASSERT_EQ(0, new_session(path, 0, &s));
	EXPECT_EQ(-EINVAL, npuprof_session_pause(s));
	ASSERT_EQ(0, npuprof_session_start(s));
	EXPECT_EQ(-EALREADY, npuprof_session_start(s));
	for (i = 0; i < 10; i++) {
		npuprof_span_begin(&sp, NPUPROF_SPAN_USER, NULL);
		npuprof_span_end(&sp);
	}
	npuprof_span_begin(&straddle, NPUPROF_SPAN_RUN, NULL);
	ASSERT_NE(0, straddle.on);
	ASSERT_EQ(0, npuprof_session_pause(s));
	EXPECT_EQ(-EALREADY, npuprof_session_pause(s));
	for (i = 0; i < 7; i++) {
		npuprof_span_begin(&sp, NPUPROF_SPAN_SUBMIT, NULL);
		EXPECT_EQ(0, sp.on);
		npuprof_span_end(&sp);
	}
	ASSERT_EQ(0, npuprof_session_resume(s));
	EXPECT_EQ(-EINVAL, npuprof_session_resume(s));
	/* begun before the pause: not kept */
	npuprof_span_end(&straddle);
	for (i = 0; i < 5; i++) {
		npuprof_span_begin(&sp, NPUPROF_SPAN_WAIT, NULL);
		npuprof_span_end(&sp);
	}
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	read_file(path, &c);
	ASSERT_EQ(0, c.err);
	EXPECT_EQ(15, c.spans);
	EXPECT_EQ(10, c.by_kind[NPUPROF_SPAN_USER]);
	EXPECT_EQ(5, c.by_kind[NPUPROF_SPAN_WAIT]);
	EXPECT_EQ(0, c.by_kind[NPUPROF_SPAN_SUBMIT]);
	EXPECT_EQ(0, c.by_kind[NPUPROF_SPAN_RUN]);
	EXPECT_EQ(1, c.sessions[NPUPROF_SESSION_PAUSE]);
	EXPECT_EQ(1, c.sessions[NPUPROF_SESSION_RESUME]);
	EXPECT_EQ(0, c.sum.spans_lost);
	free(c.recs);
	unlink(path);
	free(path);
}

/*
 * Hold the session's threads back so that a burst outruns them: every
 * thread of the process on this thread's CPU, the session's threads
 * (npuprof-read and npuprof-write) at SCHED_IDLE, which never preempts a running thread.
 * The span ring grows and the drainer is faster than a producer, so left
 * to run on the other core it may keep up with any burst. Returns how
 * many session threads were held back.
 */
static int hold_back_session_threads(cpu_set_t *old)
{
	struct sched_param prio = { 0 };
	struct dirent *de;
	cpu_set_t one;
	int held = 0;
	DIR *d;

	if (sched_getaffinity(0, sizeof(*old), old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[64], comm[32] = "";
		pid_t tid = atoi(de->d_name);
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = 0;
			fclose(f);
		}
		if (sched_setaffinity(tid, sizeof(one), &one))
			held = -errno;
		if (held >= 0 && (!strcmp(comm, "npuprof-read\n") ||
				  !strcmp(comm, "npuprof-write\n"))) {
			if (sched_setscheduler(tid, SCHED_IDLE, &prio))
				held = -errno;
			else
				held++;
		}
	}
	closedir(d);
	return held;
}

TEST(full_buffer_drops_are_counted_exactly)
{
	char *path = tmp_path("lost.npuprof");
	struct npuprof_session *s;
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct contents c;
	const int n = 200000;
	cpu_set_t cpus;
	int i;

	/*
	 * 4 KiB per thread holds 46 spans and grows to 128 KiB, 2,340:
	 * a burst of 200,000 with the drainer held back must overflow.
	 */
	ASSERT_EQ(0, new_session(path, 4, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	/* the threads name themselves once they run */
	for (i = 0; i < 5000 && hold_back_session_threads(&cpus) != 2; i++)
		usleep(1000);
	ASSERT_EQ(2, hold_back_session_threads(&cpus));
	file_user_spans(n);
	ASSERT_EQ(0, npuprof_session_stop(s));
	sched_setaffinity(0, sizeof(cpus), &cpus);
	ASSERT_EQ(0, npuprof_session_stats(s, &st));
	npuprof_session_free(s);
	EXPECT_GT(st.spans_lost, 0);
	EXPECT_EQ(n, st.spans + st.spans_lost);
	read_file(path, &c);
	ASSERT_EQ(0, c.err);
	EXPECT_EQ(st.spans, c.spans);
	EXPECT_EQ(st.spans_lost, c.host_lost);
	EXPECT_EQ(st.spans_lost, c.sum.spans_lost);
	free(c.recs);
	unlink(path);
	free(path);
}

/* Minor page faults of the calling thread so far. */
static long thread_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_minflt;
}

/*
 * The thread's span buffer is faulted in at its first span: the 2,000
 * spans after it (112,000 bytes of the default 256 KiB, one page every
 * 73 spans) take no page fault, where a buffer faulted in as it filled
 * took 26. Under half the buffer, so that it cannot grow (into a buffer
 * that faults in as it fills) whatever the drain's pace.
 */
TEST(first_span_faults_the_buffer_in)
{
	char *path = tmp_path("faults.npuprof");
	struct npuprof_session *s;
	long before, after;

	ASSERT_EQ(0, new_session(path, 0, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	file_user_spans(1);
	before = thread_faults();
	ASSERT_LE(0, before);
	file_user_spans(2000);
	after = thread_faults();
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	EXPECT_LT(after - before, 4);
	TH_LOG("%ld page faults in 2000 spans", after - before);
	unlink(path);
	free(path);
}

TEST(no_session_costs_nothing_and_records_nothing)
{
	struct npuprof_span sp;

	npuprof_span_begin(&sp, NPUPROF_SPAN_USER, NULL);
	EXPECT_EQ(0, sp.on);
	npuprof_span_end(&sp);
	EXPECT_EQ(0, npuprof_region_begin("idle"));
	EXPECT_EQ(0, npuprof_region_end());
	EXPECT_EQ(-ENOENT, npuprof_region_end());
	EXPECT_EQ(-EINVAL, npuprof_region_begin(NULL));
}

TEST(labels_nest)
{
	char *path = tmp_path("labels.npuprof");
	struct npuprof_session *s;
	struct npuprof_span sp;
	struct contents c;
	const struct npuprof_span_rec *outer = NULL, *inner = NULL, *user = NULL;
	char big[400];
	int i;

	ASSERT_EQ(0, new_session(path, 0, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	ASSERT_EQ(0, npuprof_region_begin("outer"));
	ASSERT_EQ(0, npuprof_region_begin("inner"));
	npuprof_span_begin(&sp, NPUPROF_SPAN_USER, NULL);
	npuprof_span_end(&sp);
	ASSERT_EQ(0, npuprof_region_end());
	ASSERT_EQ(0, npuprof_region_end());
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, npuprof_region_begin("deep"));
	EXPECT_EQ(-E2BIG, npuprof_region_begin("too deep"));
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, npuprof_region_end());
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ASSERT_EQ(0, npuprof_region_begin(big));
	ASSERT_EQ(0, npuprof_region_end());
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	read_file(path, &c);
	ASSERT_EQ(0, c.err);
	ASSERT_EQ(36, c.spans);
	for (uint64_t k = 0; k < c.spans; k++)
		if (c.recs[k].kind == NPUPROF_SPAN_USER)
			user = &c.recs[k];
	ASSERT_NE(NULL, user);
	inner = find_span(&c, user->parent_id);
	ASSERT_NE(NULL, inner);
	outer = find_span(&c, inner->parent_id);
	ASSERT_NE(NULL, outer);
	EXPECT_EQ(0, outer->parent_id);
	EXPECT_STREQ("inner", c.labels[0]);
	EXPECT_STREQ("outer", c.labels[1]);
	/* a long label is cut at 255 bytes */
	EXPECT_EQ(31, strlen(c.labels[34]));
	free(c.recs);
	unlink(path);
	free(path);
}

TEST(killed_writer_leaves_a_readable_file)
{
	char *path = tmp_path("killed.npuprof");
	struct contents c;
	struct stat stt;
	pid_t pid;
	int i, status;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npuprof_session *s;

		if (new_session(path, 0, &s) || npuprof_session_start(s))
			_exit(1);
		for (;;) {
			struct npuprof_span sp;

			npuprof_span_begin(&sp, NPUPROF_SPAN_USER, NULL);
			npuprof_span_end(&sp);
			usleep(50);
		}
	}
	/* wait until at least two chunks are flushed, then kill -9 */
	for (i = 0; i < 600; i++) {
		if (!stat(path, &stt) && stt.st_size > 300 * 1024)
			break;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	read_file(path, &c);
	ASSERT_EQ(0, c.err);
	EXPECT_EQ(1, c.truncated);
	EXPECT_EQ(0, c.summary);
	EXPECT_GT(c.spans, 1000);
	free(c.recs);
	unlink(path);
	free(path);
}

TEST(option_errors)
{
	struct npuprof_session *s = (void *)1;
	struct npuprof_opts o;
	struct {
		struct npuprof_opts o;
		uint64_t extra;
	} big;
	char *path = tmp_path("opts.npuprof");

	EXPECT_EQ(-EINVAL, npuprof_session_create(NULL, &s));
	EXPECT_EQ(NULL, s);
	npuprof_opts_init(&o);
	/* the ring's size is the library's to choose unless asked */
	EXPECT_EQ(0, o.ring_pages);
	o.devices = no_devices;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&o, &s));	/* no output */
	o.output = path;
	o.level = 3;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&o, &s));
	o.level = 2;
	o.ring_pages = 3;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&o, &s));
	o.ring_pages = 8192;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&o, &s));
	o.ring_pages = 64;
	o.flags = 1u << 7;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&o, &s));
	o.flags = 0;
	o.span_buf_kb = 5;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&o, &s));
	o.span_buf_kb = 64;
	/* a newer caller's unknown fields must be zero */
	memset(&big, 0, sizeof(big));
	big.o = o;
	big.o.sz = sizeof(big);
	big.extra = 1;
	EXPECT_EQ(-EINVAL, npuprof_session_create(&big.o, &s));
	big.extra = 0;
	ASSERT_EQ(0, npuprof_session_create(&big.o, &s));
	EXPECT_EQ(-EINVAL, npuprof_session_stop(s));
	EXPECT_STREQ(path, npuprof_session_output(s));
	npuprof_session_free(s);
	/* 0, automatic, at every level */
	o.ring_pages = 0;
	for (o.level = 0; o.level <= 2; o.level++) {
		ASSERT_EQ(0, npuprof_session_create(&o, &s));
		npuprof_session_free(s);
	}
	o.level = 2;
	/* an unwritable output */
	o.output = "/nonexistent-dir/x.npuprof";
	EXPECT_EQ(-ENOENT, npuprof_session_create(&o, &s));
	unlink(path);
	free(path);
}

TEST(one_span_session_at_a_time)
{
	char *p1 = tmp_path("a.npuprof"), *p2 = tmp_path("b.npuprof");
	struct npuprof_session *a, *b;
	struct npuprof_opts o;

	ASSERT_EQ(0, new_session(p1, 0, &a));
	ASSERT_EQ(0, new_session(p2, 0, &b));
	ASSERT_EQ(0, npuprof_session_start(a));
	EXPECT_EQ(-EBUSY, npuprof_session_start(b));
	npuprof_session_free(b);
	/* without host spans, a second session is fine */
	npuprof_opts_init(&o);
	o.output = p2;
	o.devices = no_devices;
	o.flags = NPUPROF_F_NO_HOST_SPANS;
	ASSERT_EQ(0, npuprof_session_create(&o, &b));
	EXPECT_EQ(0, npuprof_session_start(b));
	npuprof_session_free(b);
	npuprof_session_free(a);
	unlink(p1);
	unlink(p2);
	free(p1);
	free(p2);
}

TEST_HARNESS_MAIN
