// SPDX-License-Identifier: GPL-2.0-only
/*
 * A profiling session in the program itself, in the VM: libnpu and
 * libnpuprof linked in, npu_runner_run() on MNIST. N runs in a labelled
 * record, pause, M runs, resume, K runs in another labelled record, stop:
 * the file holds exactly the N + K executions and their spans, the M
 * paused jobs are missing by job id, every INFERENCE is the child of its
 * RUN span and every RUN of its labelled record.
 *
 * The model comes from $NPU_BUILD/models/mnist.nmdl; the file goes to
 * /tmp.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "npuprof_check.h"

#define N_BEFORE	3
#define M_PAUSED	2
#define K_AFTER		4
#define OUT		"/tmp/npuprof_session.npuprof"

struct mnist {
	struct npu_device *dev;
	struct npu_model *model;
	struct npu_runner *runner;
	float *x, *y;
	size_t nx, ny;
};

static int mnist_open(struct mnist *m, char *err, size_t errlen)
{
	const char *b = getenv("NPU_BUILD");
	char path[512];
	size_t i;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!b)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/models/mnist.nmdl", b);
	if (access(path, R_OK))
		return -ENOENT;
	ret = npu_model_load(path, &m->model, err, errlen);
	if (ret)
		return ret;
	ret = npu_device_open("/dev/npu0", &m->dev);
	if (ret)
		return ret;
	ret = npu_runner_create(m->dev, m->model, NULL, &m->runner);
	if (ret)
		return ret;
	m->nx = npu_model_input(m->model, 0)->count;
	m->ny = npu_model_output(m->model, 0)->count;
	m->x = calloc(m->nx, sizeof(float));
	m->y = calloc(m->ny, sizeof(float));
	if (!m->x || !m->y)
		return -ENOMEM;
	for (i = 0; i < m->nx; i++)
		m->x[i] = (float)(i % 7) / 7.0f;
	return 0;
}

static void mnist_close(struct mnist *m)
{
	npu_runner_free(m->runner);
	npu_device_close(m->dev);
	npu_model_free(m->model);
	free(m->x);
	free(m->y);
}

static int runs(struct mnist *m, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = npu_runner_run(m->runner, m->x, m->nx, m->y, m->ny, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_job(const void *a, const void *b)
{
	const struct ck_exec *x = a, *y = b;

	return x->x.job_id < y->x.job_id ? -1 : x->x.job_id > y->x.job_id;
}

/* The labelled record of @t with text @label; fails unless exactly one */
static const struct npuprof_span_rec *label_span(struct __test_metadata *_metadata,
						 const struct ck_trace *t,
						 const char *label)
{
	const struct npuprof_span_rec *found = NULL;
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		if (t->spans[i].kind != NPUPROF_SPAN_LABEL || !t->labels[i] ||
		    strcmp(t->labels[i], label))
			continue;
		EXPECT_EQ(NULL, found);
		found = &t->spans[i];
	}
	return found;
}

FIXTURE(session) {
	struct mnist m;
	struct npuprof_session *s;
};

FIXTURE_SETUP(session)
{
	char err[256];
	int ret;

	/* this process's session is the one under test, not the env's */
	unsetenv("NPUPROF_OUTPUT_PATH");
	self->s = NULL;
	ret = mnist_open(&self->m, err, sizeof(err));
	if (ret == -ENOENT && !self->m.model)
		SKIP(return, "no mnist model in $NPU_BUILD/models");
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(session)
{
	npuprof_session_free(self->s);
	mnist_close(&self->m);
}

TEST_F_TIMEOUT(session, pause_resume, 300)
{
	const size_t n = N_BEFORE + K_AFTER;
	const struct npuprof_span_rec *warm, *trace;
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_opts o;
	struct ck_trace t;
	char err[512];
	size_t i;

	npuprof_opts_init(&o);
	o.output = OUT;
	o.level = 2;
	ASSERT_EQ(0, npuprof_session_create(&o, &self->s));
	ASSERT_EQ(0, npuprof_session_start(self->s));
	ASSERT_EQ(0, npuprof_region_begin("warm up"));
	ASSERT_EQ(0, runs(&self->m, N_BEFORE));
	ASSERT_EQ(0, npuprof_region_end());
	ASSERT_EQ(0, npuprof_session_pause(self->s));
	ASSERT_EQ(-EALREADY, npuprof_session_pause(self->s));
	ASSERT_EQ(0, runs(&self->m, M_PAUSED));
	ASSERT_EQ(0, npuprof_session_resume(self->s));
	ASSERT_EQ(0, npuprof_region_begin("trace"));
	ASSERT_EQ(0, runs(&self->m, K_AFTER));
	ASSERT_EQ(0, npuprof_region_end());
	ASSERT_EQ(0, npuprof_session_stop(self->s));
	ASSERT_EQ(0, npuprof_session_stats(self->s, &st));
	EXPECT_EQ(n, st.exec_records);
	EXPECT_EQ(0, st.spans_lost);
	EXPECT_EQ(0, st.lost_ring + st.lost_device + st.lost_host);

	ASSERT_EQ(0, ck_load(OUT, &t, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(getpid(), t.meta_pid);
	ck_check_complete(_metadata, &t);
	ck_check_spans(_metadata, &t);
	ck_check_inference_spans(_metadata, &t, n);
	ck_check_execs(_metadata, &t, 2, n, getpid());
	EXPECT_EQ(st.spans, t.nspans);

	/* start, pause, resume, stop */
	ASSERT_EQ(4, t.nsession_ops);
	EXPECT_EQ(NPUPROF_SESSION_PAUSE, t.session_ops[1]);
	EXPECT_EQ(NPUPROF_SESSION_RESUME, t.session_ops[2]);

	/* the M jobs submitted while paused are the gap in the job ids */
	qsort(t.execs, t.nexecs, sizeof(*t.execs), cmp_job);
	for (i = 1; i < t.nexecs; i++)
		EXPECT_EQ(i == N_BEFORE ? M_PAUSED + 1 : 1,
			  t.execs[i].x.job_id - t.execs[i - 1].x.job_id);

	/* labelled records hold the runs; runs hold the inferences */
	warm = label_span(_metadata, &t, "warm up");
	trace = label_span(_metadata, &t, "trace");
	ASSERT_NE(NULL, warm);
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(2, ck_count_kind(&t, NPUPROF_SPAN_LABEL));
	EXPECT_EQ(n, ck_count_kind(&t, NPUPROF_SPAN_RUN));
	for (i = 0; i < t.nspans; i++) {
		const struct npuprof_span_rec *s = &t.spans[i], *p;

		if (s->kind == NPUPROF_SPAN_INFERENCE) {
			p = ck_span(&t, s->pid, s->parent_id);
			ASSERT_NE(NULL, p);
			ASSERT_EQ(NPUPROF_SPAN_RUN, p->kind);
			ASSERT_TRUE(ck_same_trace(s, p));
			ASSERT_LE(p->start_ns, s->start_ns);
			ASSERT_GE(p->end_ns, s->end_ns);
		} else if (s->kind == NPUPROF_SPAN_RUN) {
			p = ck_span(&t, s->pid, s->parent_id);
			ASSERT_NE(NULL, p);
			ASSERT_TRUE(p == warm || p == trace);
			ASSERT_LE(p->start_ns, s->start_ns);
			ASSERT_GE(p->end_ns, s->end_ns);
		}
	}
	ck_free(&t);
}

/* The debug line that tells the size a grown default ring got */
static void ring_log(void *ctx, int level, const char *msg)
{
	unsigned int *pages = ctx;
	const char *p = strstr(msg, ": a ");

	(void)level;
	if (p && strstr(p, "-page ring at level 2"))
		sscanf(p, ": a %u-page ring", pages);
}

/* The ring a session on /dev/npu0 gets: 0 when it was not grown */
static int ring_of(int level, unsigned int ask, unsigned int *pages)
{
	static const char *const devs[] = { "/dev/npu0", NULL };
	struct npuprof_session *s;
	struct npuprof_opts o;
	int ret;

	npuprof_opts_init(&o);
	o.output = OUT;
	o.devices = devs;
	o.level = level;
	o.ring_pages = ask;
	o.log = ring_log;
	o.log_ctx = pages;
	o.log_level = NPUPROF_LOG_DEBUG;
	*pages = 0;
	ret = npuprof_session_create(&o, &s);
	if (!ret)
		npuprof_session_free(s);
	unlink(OUT);
	return ret;
}

/*
 * Left to the library, a level-2 ring grows to 1024 pages within half of
 * RLIMIT_MEMLOCK (npuprof.rst, "Reading the rings"); a size asked for,
 * and levels 0 and 1, are kept.
 */
TEST(default_ring_grows_within_memlock)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rlimit old, rl;
	unsigned int pages, want = 1024;

	if (access("/dev/npu0", R_OK | W_OK))
		SKIP(return, "no /dev/npu0");
	unsetenv("NPUPROF_OUTPUT_PATH");
	ASSERT_EQ(0, getrlimit(RLIMIT_MEMLOCK, &old));
	if (old.rlim_cur != RLIM_INFINITY)
		while (want > 256 && (rlim_t)want * page > old.rlim_cur / 2)
			want /= 2;
	ASSERT_EQ(0, ring_of(2, 0, &pages));
	EXPECT_EQ(want, pages);
	/* the ring takes at most half of the limit: 2 MiB leaves 256 */
	rl = old;
	rl.rlim_cur = 2u << 20;
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(0, ring_of(2, 0, &pages));
	EXPECT_EQ(256, pages);
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &old));
	/* asked for, or not level 2: as it is, not grown */
	EXPECT_EQ(0, ring_of(2, 512, &pages));
	EXPECT_EQ(0, pages);
	EXPECT_EQ(0, ring_of(2, 256, &pages));
	EXPECT_EQ(0, pages);
	EXPECT_EQ(0, ring_of(0, 0, &pages));
	EXPECT_EQ(0, pages);
}

TEST_HARNESS_MAIN
