// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_scope - whose jobs a process-scoped trace ring receives, and which
 * pids its records carry. The scope follows the opener's process (its
 * struct pid), not its pid number: a ring inherited by a child receives
 * nothing from a later process that reuses the opener's pid, which the
 * test forces through /proc/sys/kernel/ns_last_pid. Pids in records are
 * numbers in the PID namespace of the ring's opener, 0 for a submitter
 * that namespace cannot see. Documentation/npu/ring.rst is the contract.
 */

#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#define JOB_BYTES	4096
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"
#define MAX_EXEC	16

/* The EXEC records of a ring. */
struct execs {
	unsigned int n;
	struct npu_trace_rec_exec rec[MAX_EXEC];
};

static void collect_exec(const struct npu_trace_rec_hdr *h, void *arg)
{
	struct execs *e = arg;

	if (h->type == NPU_TRACE_REC_EXEC && e->n < MAX_EXEC)
		memcpy(&e->rec[e->n++], h, sizeof(e->rec[0]));
}

/* Read the whole ring; 0 or -errno. */
static int read_execs(struct trace_ring *t, struct execs *e)
{
	struct trace_stats st = { 0 };

	memset(e, 0, sizeof(*e));
	if (trace_consume(t, &st, collect_exec, e) < 0 || st.seq_errors)
		return -EIO;
	return 0;
}

/* Run one job on a new /dev/npu0 file; 0 when it completed OK. */
static int run_one_job(void)
{
	struct trace_jobs j;
	struct npu_wait w;
	int fd, ret;

	fd = npu_open();
	if (fd < 0)
		return fd;
	ret = trace_jobs_init(&j, fd, JOB_BYTES, 1);
	if (!ret)
		ret = trace_job_run(&j, NPU_PE_ANY, &w);
	if (!ret && w.result.status != NPU_JOB_OK)
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * Open a ring on a /dev/npu0 file of its own and enable it at level 0;
 * the file is closed again (the trace fd holds the device).
 */
static int open_ring(uint32_t flags, struct trace_ring *t)
{
	int fd, ret;

	fd = npu_open();
	if (fd < 0)
		return fd;
	ret = trace_open(fd, flags, 16, 0, t);
	close(fd);
	if (!ret)
		ret = trace_enable(t, 0);
	return ret;
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static int write_pid(const char *path, pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", pid);
	return npu_write_file(path, buf);
}

FIXTURE(scope)
{
	unsigned long long period;
};

FIXTURE_SETUP(scope)
{
	ASSERT_EQ(0, trace_param_get("clock_period_ms", &self->period));
	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
}

FIXTURE_TEARDOWN(scope)
{
	trace_param_set("clock_period_ms", self->period);
}

/* What the child holding the inherited ring saw, sent to the test. */
struct inherit_report {
	int err;		/* 0, or the step that failed */
	unsigned int n_exec;
	pid_t exec_pid[MAX_EXEC];
};

/*
 * Child C of the opener A: holds A's ring, runs a job of its own, and
 * reports the ring's EXEC records once the test says so.
 */
static int inherit_child(struct trace_ring *t, int go_rd, int rep_wr)
{
	struct inherit_report rep = { 0 };
	struct execs e;
	unsigned int i;
	char c;

	if (read(go_rd, &c, 1) != 1)
		rep.err = 1;
	else if (run_one_job())
		rep.err = 2;
	else if (read_execs(t, &e))
		rep.err = 3;
	rep.n_exec = rep.err ? 0 : e.n;
	for (i = 0; i < rep.n_exec; i++)
		rep.exec_pid[i] = e.rec[i].pid;
	return write(rep_wr, &rep, sizeof(rep)) == sizeof(rep) ? 0 : 4;
}

/* Opener A: open and enable a ring, run a job, fork C, exit. */
static int opener(int go_rd, int rep_wr)
{
	struct trace_ring t;
	pid_t c;

	if (open_ring(0, &t))
		return 20;
	if (run_one_job())
		return 22;
	c = fork();
	if (c < 0)
		return 23;
	if (c == 0)
		_exit(inherit_child(&t, go_rd, rep_wr));
	return 0;
}

/*
 * A ring inherited across fork keeps following its opener A. Once A is
 * dead, a new process B that gets A's pid number is another process: the
 * ring sees B's jobs on today's code only if it compares numbers.
 */
TEST_F(scope, pid_reuse_after_opener_exits)
{
	int go[2], rep[2], tries, st;
	struct inherit_report r;
	struct trace_ring all;
	unsigned int i, from_a;
	struct execs e;
	pid_t a, b;
	char c = 0;

	/* a kernel without CONFIG_CHECKPOINT_RESTORE (the debug kernel) */
	if (access(NS_LAST_PID, W_OK))
		SKIP(return, "%s: %s: pid reuse cannot be forced", NS_LAST_PID,
		     strerror(errno));
	/* C is reparented to us when A exits, so we can reap it. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(rep));
	/* Root's view of every job, to prove that B's job was traced. */
	ASSERT_EQ(0, open_ring(NPU_TRACE_ALL_PROCESSES, &all));

	a = fork();
	ASSERT_LE(0, a);
	if (a == 0)
		_exit(opener(go[0], rep[1]));
	ASSERT_EQ(0, npu_wait_child(a));	/* A is dead and reaped */

	/* B: the next process to get A's pid. */
	for (tries = 0; tries < 20; tries++) {
		ASSERT_EQ(0, write_pid(NS_LAST_PID, a - 1));
		b = fork();
		ASSERT_LE(0, b);
		if (b == 0)
			_exit(getpid() != a ? 77 : run_one_job() ? 78 : 0);
		st = npu_wait_child(b);
		if (st != 77)
			break;
	}
	ASSERT_EQ(a, b);
	ASSERT_EQ(0, st);

	/* C: run a job of its own, then report what A's ring holds. */
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(sizeof(r), read(rep[0], &r, sizeof(r)));
	ASSERT_EQ(0, r.err);
	/* Only A's own job: not C's, not B's (same number, other process). */
	EXPECT_EQ(1, r.n_exec);
	for (i = 0; i < r.n_exec; i++)
		EXPECT_EQ(a, r.exec_pid[i]);
	while (waitpid(-1, &st, 0) > 0)
		;

	/* The all-process ring saw A's, B's and C's jobs: pid a twice. */
	ASSERT_EQ(0, read_execs(&all, &e));
	EXPECT_EQ(3, e.n);
	for (i = 0, from_a = 0; i < e.n; i++)
		from_a += e.rec[i].pid == a;
	EXPECT_EQ(2, from_a);
	trace_close(&all);
}

/* What the namespaced child saw, sent to the test. */
struct ns_report {
	int err;
	pid_t pid_in_ns;
	unsigned int own_n, all_n, all_self, all_hidden;
	pid_t own_pid, own_tid;
};

/*
 * In a new PID namespace, as its init: an own ring and an all-process
 * ring; one job of ours, one of the test's (outside the namespace).
 */
static int ns_child(int go_rd, int ready_wr, int rep_wr)
{
	struct ns_report rep = { 0 };
	struct trace_ring own, all;
	struct execs e;
	unsigned int i;
	char c = 0;

	rep.pid_in_ns = getpid();
	if (open_ring(0, &own) || open_ring(NPU_TRACE_ALL_PROCESSES, &all))
		rep.err = 1;
	else if (run_one_job())
		rep.err = 2;
	/* The test runs its job now. */
	else if (write(ready_wr, &c, 1) != 1 || read(go_rd, &c, 1) != 1)
		rep.err = 3;
	else if (read_execs(&own, &e))
		rep.err = 4;
	if (!rep.err) {
		rep.own_n = e.n;
		rep.own_pid = e.n ? e.rec[0].pid : -1;
		rep.own_tid = e.n ? e.rec[0].tid : -1;
		if (read_execs(&all, &e))
			rep.err = 5;
	}
	if (!rep.err) {
		rep.all_n = e.n;
		for (i = 0; i < e.n; i++) {
			rep.all_self += e.rec[i].pid == getpid() &&
					e.rec[i].tid == gettid_();
			rep.all_hidden += !e.rec[i].pid && !e.rec[i].tid;
		}
	}
	return write(rep_wr, &rep, sizeof(rep)) == sizeof(rep) ? 0 : 30;
}

/*
 * Pids in records are numbers in the PID namespace of the ring's opener:
 * the child namespace's init sees itself as 1 and the test's job as 0;
 * the test's ring sees the child by its number in the initial namespace.
 */
TEST_F(scope, pid_namespace_translation)
{
	int go[2], ready[2], rep[2], qpipe[2];
	struct trace_ring all;
	struct ns_report r;
	unsigned int i, from_q = 0, from_me = 0;
	struct execs e;
	pid_t p, q;
	char c = 0;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(rep));
	ASSERT_EQ(0, pipe(qpipe));
	ASSERT_EQ(0, open_ring(NPU_TRACE_ALL_PROCESSES, &all));

	p = fork();
	ASSERT_LE(0, p);
	if (p == 0) {
		if (unshare(CLONE_NEWPID))
			_exit(40);
		q = fork();
		if (q < 0)
			_exit(41);
		if (q == 0)
			_exit(ns_child(go[0], ready[1], rep[1]));
		/* q is the child's number in our (the initial) namespace. */
		if (write(qpipe[1], &q, sizeof(q)) != sizeof(q))
			_exit(42);
		_exit(npu_wait_child(q));
	}
	ASSERT_EQ(sizeof(q), read(qpipe[0], &q, sizeof(q)));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, run_one_job());
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(sizeof(r), read(rep[0], &r, sizeof(r)));
	EXPECT_EQ(0, npu_wait_child(p));
	ASSERT_EQ(0, r.err);

	EXPECT_EQ(1, r.pid_in_ns);
	/* Its own ring: its one job, as pid 1 / tid 1. */
	EXPECT_EQ(1, r.own_n);
	EXPECT_EQ(1, r.own_pid);
	EXPECT_EQ(1, r.own_tid);
	/* Its all-process ring: its job as 1, ours as 0 (not visible). */
	EXPECT_EQ(2, r.all_n);
	EXPECT_EQ(1, r.all_self);
	EXPECT_EQ(1, r.all_hidden);

	/* Our ring: its job under its number here, ours under ours. */
	ASSERT_EQ(0, read_execs(&all, &e));
	EXPECT_EQ(2, e.n);
	for (i = 0; i < e.n; i++) {
		from_q += e.rec[i].pid == q && e.rec[i].tid == q;
		from_me += e.rec[i].pid == getpid() &&
			   e.rec[i].tid == gettid_();
	}
	EXPECT_EQ(1, from_q);
	EXPECT_EQ(1, from_me);
	trace_close(&all);
}

TEST_HARNESS_MAIN
