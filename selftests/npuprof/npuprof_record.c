// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof record and dump in the VM: `npuprof record` around npu-classify
 * on MobileNet at trace levels 0, 1 and 2 and around two MNIST processes at
 * once, every file read back through libnpuprof and checked
 * (npuprof_check.h); `npuprof dump` of the same files; the exit status,
 * signal forwarding and FILE.old rules of `npuprof record`.
 *
 * npuprof and npu-classify come from PATH (the guest has $NPU_BUILD/bin
 * there), the models from $NPU_BUILD/models. Files go to /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof_check.h"
#include "npuprof_run.h"

#define MOBILENET_N	2	/* ~0.1 s each under TCG */
#define MNIST_N		8

/*
 * `npuprof dump FILE`: exits 0; event lines in nondecreasing time; as
 * many EXEC and OP lines as the trace has records.
 */
static void check_dump(struct __test_metadata *_metadata, const char *file,
		       const struct ck_trace *t)
{
	char *argv[] = { "npuprof", "dump", (char *)file, NULL };
	char line[1024];
	size_t execs = 0, ops = 0, events = 0;
	long long prev = 0, sec, ns;
	bool totals = false;
	FILE *f;

	ASSERT_EQ(0, run(argv, "/tmp/npuprof_dump.txt", NULL));
	f = fopen("/tmp/npuprof_dump.txt", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#') {
			totals |= !strncmp(line, "# totals:", 9);
			continue;
		}
		ASSERT_EQ(2, sscanf(line, " %lld.%9lld", &sec, &ns));
		ASSERT_LE(prev, sec * 1000000000ll + ns);
		prev = sec * 1000000000ll + ns;
		events++;
		execs += strstr(line, "] EXEC job ") != NULL;
		ops += strstr(line, "] OP job ") != NULL;
	}
	fclose(f);
	EXPECT_TRUE(totals);
	EXPECT_EQ(t->nexecs, execs);
	EXPECT_EQ(t->nops, ops);
	EXPECT_LE(t->nspans + t->nexecs + t->nops, events);
}

/* Record @n inferences of @model at @level into @file and check it all */
static void record_classify(struct __test_metadata *_metadata, const char *model,
			    int level, unsigned int n, const char *file)
{
	char path[512], lvl[4], cnt[12], err[512], msg[2048];
	char *argv[] = { "npuprof", "record", "-o", (char *)file, "-l", lvl,
			 "--", "npu-classify", "-m", path, "-n", cnt, "-q", NULL };
	struct ck_trace t;
	int ret;

	if (model_path(model, path, sizeof(path)))
		SKIP(return, "no %s model in $NPU_BUILD/models", model);
	snprintf(lvl, sizeof(lvl), "%d", level);
	snprintf(cnt, sizeof(cnt), "%u", n);
	ASSERT_EQ(0, run(argv, "/dev/null", "/tmp/npuprof_record.err"));
	ASSERT_EQ(0, slurp("/tmp/npuprof_record.err", msg, sizeof(msg)));
	TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "npuprof: wrote "));
	EXPECT_NE(NULL, strstr(msg, "lost: 0 records, 0 spans"));
	EXPECT_NE(NULL, strstr(msg, "; 0 causality violations"));
	EXPECT_EQ(NULL, strstr(msg, "warning"));

	ret = ck_load(file, &t, err, sizeof(err));
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	ASSERT_LT(0, t.meta_pid);
	ck_check_complete(_metadata, &t);
	/* the runner's buffers, created and freed inside the recording */
	EXPECT_LT(0, t.bo_allocs);
	EXPECT_EQ(t.bo_allocs, t.bo_frees);
	EXPECT_EQ(0, t.bo_failed);
	EXPECT_EQ(t.meta_pid, t.bo_pid);
	TH_LOG("%llu buffers allocated and freed",
	       (unsigned long long)t.bo_allocs);
	ck_check_spans(_metadata, &t);
	ck_check_inference_spans(_metadata, &t, n);
	ck_check_execs(_metadata, &t, level, n, (int32_t)t.meta_pid);
	check_dump(_metadata, file, &t);
	ck_free(&t);
}

FIXTURE(record) {
	int unused;
};

FIXTURE_SETUP(record)
{
	self->unused = 0;
	unsetenv("NPUPROF_OUTPUT_PATH");
}

FIXTURE_TEARDOWN(record)
{
}

TEST_F_TIMEOUT(record, mobilenet_level0, 300)
{
	record_classify(_metadata, "mobilenet-v1", 0, MOBILENET_N,
			"/tmp/npuprof_l0.npuprof");
}

TEST_F_TIMEOUT(record, mobilenet_level1, 300)
{
	record_classify(_metadata, "mobilenet-v1", 1, MOBILENET_N,
			"/tmp/npuprof_l1.npuprof");
}

TEST_F_TIMEOUT(record, mobilenet_level2, 300)
{
	record_classify(_metadata, "mobilenet-v1", 2, MOBILENET_N,
			"/tmp/npuprof_l2.npuprof");
}

/* Two profiled processes at once: each file holds its own jobs only */
TEST_F_TIMEOUT(record, two_processes, 300)
{
	static const char *const files[2] = { "/tmp/npuprof_p0.npuprof",
					      "/tmp/npuprof_p1.npuprof" };
	char path[512], cnt[12], err[512];
	struct ck_trace t[2];
	pid_t pid[2];
	int i;

	if (model_path("mnist", path, sizeof(path)))
		SKIP(return, "no mnist model in $NPU_BUILD/models");
	snprintf(cnt, sizeof(cnt), "%u", MNIST_N);
	for (i = 0; i < 2; i++) {
		char *argv[] = { "npuprof", "record", "-q", "-o", (char *)files[i],
				 "--", "npu-classify", "-m", path, "-n", cnt,
				 "-q", NULL };

		pid[i] = spawn(argv, "/dev/null", NULL);
		ASSERT_LT(0, pid[i]);
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, reap(pid[i]));
	for (i = 0; i < 2; i++) {
		size_t k;

		TH_LOG("file %s", files[i]);
		ASSERT_EQ(0, ck_load(files[i], &t[i], err, sizeof(err))) TH_LOG("%s", err);
		ASSERT_LT(0, t[i].meta_pid);
		ck_check_complete(_metadata, &t[i]);
		ck_check_spans(_metadata, &t[i]);
		ck_check_inference_spans(_metadata, &t[i], MNIST_N);
		/* exactly its own MNIST_N jobs, not the other's */
		ck_check_execs(_metadata, &t[i], 2, MNIST_N, (int32_t)t[i].meta_pid);
		for (k = 0; k < t[i].nspans; k++)
			ASSERT_EQ(t[i].meta_pid, t[i].spans[k].pid);
	}
	EXPECT_NE(t[0].meta_pid, t[1].meta_pid);
	ck_free(&t[0]);
	ck_free(&t[1]);
}

/* COMMAND's status, 128+N for signal N, 127 not found, 126 not executable */
TEST_F(record, exit_status)
{
	char *exit3[] = { "npuprof", "record", "-o", "/tmp/npuprof_st.npuprof",
			  "--", "sh", "-c", "exit 3", NULL };
	char *killed[] = { "npuprof", "record", "-o", "/tmp/npuprof_st.npuprof",
			   "--", "sh", "-c", "kill -KILL $$", NULL };
	char *missing[] = { "npuprof", "record", "-o", "/tmp/npuprof_st.npuprof",
			    "--", "/nonexistent/cmd", NULL };
	char *noexec[] = { "npuprof", "record", "-o", "/tmp/npuprof_st.npuprof",
			   "--", "/tmp/npuprof_noexec", NULL };
	char *usage[] = { "npuprof", "record", "--level", "3", "--", "true", NULL };
	char *nocmd[] = { "npuprof", "frobnicate", NULL };
	char msg[2048];
	int fd;

	unlink("/tmp/npuprof_st.npuprof");
	EXPECT_EQ(3, run(exit3, NULL, "/tmp/npuprof_st.err"));
	ASSERT_EQ(0, slurp("/tmp/npuprof_st.err", msg, sizeof(msg)));
	/* sh opened no NPU device: no file, and npuprof says so */
	EXPECT_NE(NULL, strstr(msg, "no trace in /tmp/npuprof_st.npuprof"));
	EXPECT_NE(0, access("/tmp/npuprof_st.npuprof", F_OK));
	EXPECT_EQ(128 + SIGKILL, run(killed, NULL, "/dev/null"));
	EXPECT_EQ(127, run(missing, NULL, "/dev/null"));
	fd = open("/tmp/npuprof_noexec", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(126, run(noexec, NULL, "/dev/null"));
	EXPECT_EQ(2, run(usage, NULL, "/dev/null"));
	EXPECT_EQ(2, run(nocmd, NULL, "/dev/null"));
}

/* A SIGTERM sent to npuprof reaches COMMAND, whose status npuprof returns */
TEST_F_TIMEOUT(record, forwards_sigterm, 60)
{
	char *argv[] = { "npuprof", "record", "-o", "/tmp/npuprof_sig.npuprof",
			 "--", "sh", "-c",
			 "trap 'exit 7' TERM; : >/tmp/npuprof_ready; "
			 "while :; do sleep 0.05; done", NULL };
	struct stat st;
	pid_t pid;
	int i;

	unlink("/tmp/npuprof_ready");
	pid = spawn(argv, NULL, "/dev/null");
	ASSERT_LT(0, pid);
	/* COMMAND runs (npuprof's handlers are set before the fork) */
	for (i = 0; i < 2000 && stat("/tmp/npuprof_ready", &st); i++)
		usleep(10000);
	ASSERT_EQ(0, stat("/tmp/npuprof_ready", &st));
	ASSERT_EQ(0, kill(pid, SIGTERM));
	EXPECT_EQ(7, reap(pid));
}

/* An existing FILE becomes FILE.old, as with perf record */
TEST_F(record, keeps_old_file)
{
	char *argv[] = { "npuprof", "record", "-q", "-o", "/tmp/npuprof_old.npuprof",
			 "--", "true", NULL };
	char buf[64];
	FILE *f;

	unlink("/tmp/npuprof_old.npuprof.old");
	f = fopen("/tmp/npuprof_old.npuprof", "w");
	ASSERT_NE(NULL, f);
	fputs("previous\n", f);
	fclose(f);
	EXPECT_EQ(0, run(argv, NULL, "/dev/null"));
	ASSERT_EQ(0, slurp("/tmp/npuprof_old.npuprof.old", buf, sizeof(buf)));
	EXPECT_STREQ("previous\n", buf);
	EXPECT_NE(0, access("/tmp/npuprof_old.npuprof", F_OK));
}

TEST_HARNESS_MAIN
