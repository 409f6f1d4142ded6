// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_env.c - the session the environment asks for (npuprof_env_start):
 * a file completed at exit() and by a fatal signal, "%p" in the path, a
 * forked child that must not take over the parent's file, and bad values.
 * Each case runs in a child process (the environment session lives once
 * per process); NPUPROF_DEVICES="" captures host spans without a device.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof.h"
#include "npuprof_analysis.h"
#include "file_util.h"

struct seen {
	int err, truncated, summary;
	uint64_t spans, stop;
};

static void read_back(const char *path, struct seen *c)
{
	struct npuprof_trace *t;
	struct npuprof_event ev;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = npuprof_trace_open(path, &t, NULL, 0);
	if (ret) {
		c->err = ret;
		return;
	}
	while ((ret = npuprof_trace_next(t, &ev)) == 1) {
		if (ev.type == NPUPROF_EV_SPAN)
			c->spans++;
		else if (ev.type == NPUPROF_EV_SUMMARY)
			c->summary = 1;
		else if (ev.type == NPUPROF_EV_SESSION &&
			 ev.session_op == NPUPROF_SESSION_STOP)
			c->stop++;
	}
	c->err = ret;
	c->truncated = npuprof_trace_truncated(t);
	npuprof_trace_close(t);
}

static void env_for(const char *path)
{
	setenv("NPUPROF_OUTPUT_PATH", path, 1);
	setenv("NPUPROF_DEVICES", "", 1);
	unsetenv("NPUPROF_LEVEL");
}

TEST(completed_at_exit)
{
	char path[64];
	struct seen c;
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "/tmp/npuprof-env-exit-%d", getpid());
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		env_for(path);
		if (npuprof_env_start() != 1)
			_exit(3);
		/* a second call finds the running session */
		if (npuprof_env_start() != 1)
			_exit(4);
		file_user_spans(1000);
		exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	read_back(path, &c);
	EXPECT_EQ(0, c.err);
	EXPECT_EQ(0, c.truncated);
	EXPECT_EQ(1, c.summary);
	EXPECT_EQ(1, c.stop);
	EXPECT_EQ(1000, c.spans);
	unlink(path);
}

TEST(completed_by_a_fatal_signal)
{
	/* not SIGSEGV: the sanitizers take it */
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGABRT };
	char path[64];
	struct seen c;
	unsigned int i;
	pid_t pid;
	int st;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/tmp/npuprof-env-sig-%d-%u",
			 getpid(), i);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid) {
			env_for(path);
			if (npuprof_env_start() != 1)
				_exit(3);
			file_user_spans(500);
			raise(sigs[i]);
			_exit(5);	/* not reached */
		}
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		/* the program still dies of its signal */
		ASSERT_TRUE(WIFSIGNALED(st));
		ASSERT_EQ(sigs[i], WTERMSIG(st));
		read_back(path, &c);
		EXPECT_EQ(0, c.err);
		EXPECT_EQ(0, c.truncated);
		EXPECT_EQ(1, c.summary);
		EXPECT_EQ(500, c.spans);
		unlink(path);
	}
}

TEST(pid_in_path_and_forked_child)
{
	char pat[64], path[64];
	struct seen c;
	pid_t pid;
	int st;

	snprintf(pat, sizeof(pat), "/tmp/npuprof-env-%%p-%d", getpid());
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		pid_t kid;

		env_for(pat);
		if (npuprof_env_start() != 1)
			_exit(3);
		file_user_spans(10);
		kid = fork();
		if (!kid) {
			/* a forked child does not start its own session */
			file_user_spans(5);
			_exit(npuprof_env_start() == 0 ? 0 : 6);
		}
		if (waitpid(kid, &st, 0) != kid || !WIFEXITED(st))
			_exit(7);
		if (WEXITSTATUS(st))
			_exit(WEXITSTATUS(st));
		file_user_spans(10);
		exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	snprintf(path, sizeof(path), "/tmp/npuprof-env-%d-%d", pid, getpid());
	read_back(path, &c);
	EXPECT_EQ(0, c.err);
	EXPECT_EQ(0, c.truncated);
	/* the child's spans are not in the parent's file */
	EXPECT_EQ(20, c.spans);
	unlink(path);
}

TEST(not_asked_and_bad_values)
{
	pid_t pid;
	int st;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		unsetenv("NPUPROF_OUTPUT_PATH");
		_exit(npuprof_env_start() == 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		env_for("/tmp/npuprof-env-bad");
		setenv("NPUPROF_LEVEL", "7", 1);
		/* refused with a message, and the program goes on */
		_exit(npuprof_env_start() == -EINVAL ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_NE(0, access("/tmp/npuprof-env-bad", F_OK));
}

TEST_HARNESS_MAIN
