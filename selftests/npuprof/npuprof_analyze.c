// SPDX-License-Identifier: GPL-2.0-only
/*
 * From capture to the reports on MobileNet, in the VM: `npuprof record`
 * around npu-classify (2 threads, trace level 2), then npuprof summary,
 * report, analyze (the operators and the latency breakdown), export
 * (Chrome JSON and SQLite) and diff on the file, each output parsed and
 * checked against the trace as the library reads it (npuprof_check.h)
 * and against each other: the executions the summary counts are the EXEC
 * records, each inference's breakdown adds up to its wall time, which is
 * its duration in the inferences table, the operator types of analyze
 * add up to the OP records and to the operators table's totals, and a
 * trace compared with itself changes nothing.
 *
 * npuprof and npu-classify come from PATH (the guest has $NPU_BUILD/bin
 * there), the model from $NPU_BUILD/models. Files go to /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof_check.h"

#define TRACE	"/tmp/npuprof_analyze.npuprof"
#define OUT	"/tmp/npuprof_analyze.out"
#define N_INF	4
#define MAXF	32

/* Run @argv with stdout to OUT; its exit status, or -errno */
static int run_out(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(200);
		execvp(argv[0], argv);
		_exit(201);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* One CSV line (no quoted fields in these tables) split in place */
static int split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = 0;
	f[n++] = line;
	for (char *p = line; *p && n < MAXF; p++)
		if (*p == ',') {
			*p = 0;
			f[n++] = p + 1;
		}
	return n;
}

/* Column @name of the header @f of @n fields, or -1 */
static int col(char **f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

/* Run @argv (exit 0) and open its CSV output, the header split into @h */
static FILE *run_csv(char *const argv[], char *hdr, size_t len, char **h,
		     int *nh)
{
	FILE *fp;

	if (run_out(argv))
		return NULL;
	fp = fopen(OUT, "r");
	if (fp && !fgets(hdr, (int)len, fp)) {
		fclose(fp);
		return NULL;
	}
	if (fp)
		*nh = split(hdr, h);
	return fp;
}

struct inf {
	char span_id[20];
	long long dur;
};

FIXTURE(mn) {
	struct ck_trace t;
};

FIXTURE_SETUP(mn)
{
	char model[512], err[512], cnt[8];
	char *argv[] = { "npuprof", "record", "-q", "-o", TRACE, "-l", "2",
			 "--", "npu-classify", "-m", model, "-n", cnt, "-j", "2",
			 "-q", NULL };
	const char *b = getenv("NPU_BUILD");

	ASSERT_NE(NULL, b);
	snprintf(model, sizeof(model), "%s/models/mobilenet-v1.nmdl", b);
	snprintf(cnt, sizeof(cnt), "%d", N_INF);
	ASSERT_EQ(0, run_out(argv));
	ASSERT_EQ(0, ck_load(TRACE, &self->t, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(N_INF, ck_count_kind(&self->t, NPUPROF_SPAN_INFERENCE));
	ASSERT_EQ(N_INF, self->t.nexecs);
	ASSERT_LT(0, self->t.nops);
}

FIXTURE_TEARDOWN(mn)
{
	ck_free(&self->t);
	unlink(TRACE);
	unlink(OUT);
}

TEST_F(mn, capture_to_reports)
{
	char line[4096], *f[MAXF], *h[MAXF], hdr[4096];
	struct inf infs[N_INF];
	int n, nh, ninf = 0, i, rows = 0;
	long long exec_json = -1, sum_counts = 0;
	long long op_total[64] = { 0 }, an_total[64] = { 0 };
	char op_name[64][16];
	int nop = 0;
	struct stat st;
	FILE *fp;

	/* the summary counts the EXEC records */
	{
		char *argv[] = { "npuprof", "summary", "--format", "json", TRACE, NULL };
		char *p;

		ASSERT_EQ(0, run_out(argv));
		fp = fopen(OUT, "r");
		ASSERT_NE(NULL, fp);
		ASSERT_NE(NULL, fgets(line, sizeof(line), fp));
		fclose(fp);
		p = strstr(line, "\"executions\": ");
		ASSERT_NE(NULL, p);
		exec_json = atoll(p + 14);
		ASSERT_EQ((long long)self->t.nexecs, exec_json);
		p = strstr(line, "\"inferences\": ");
		ASSERT_NE(NULL, p);
		ASSERT_EQ(N_INF, atoll(p + 14));
	}
	/* the inferences and their durations */
	{
		char *argv[] = { "npuprof", "report", "--inferences", "--format",
				 "csv", TRACE, NULL };
		int cs, cd;

		fp = run_csv(argv, hdr, sizeof(hdr), h, &nh);
		ASSERT_NE(NULL, fp);
		cs = col(h, nh, "span_id");
		cd = col(h, nh, "dur");
		ASSERT_LE(0, cs);
		ASSERT_LE(0, cd);
		while (fgets(line, sizeof(line), fp)) {
			n = split(line, f);
			ASSERT_EQ(nh, n);
			ASSERT_GT(N_INF, ninf);
			snprintf(infs[ninf].span_id, sizeof(infs[0].span_id), "%s", f[cs]);
			infs[ninf++].dur = atoll(f[cd]);
		}
		fclose(fp);
		ASSERT_EQ(N_INF, ninf);
	}
	/* the breakdown: parts add up to the wall, the wall is the duration */
	{
		char *argv[] = { "npuprof", "analyze", "--breakdown", "--format",
				 "csv", TRACE, NULL };
		static const char *const parts[] = { "cpu_ops_ns", "host_ns",
			"queue_ns", "npu_run_ns", "npu_iowait_ns", "delivery_ns",
			"wakeup_ns", "unexplained_ns" };
		int cp[8], cw, cs, ce;

		fp = run_csv(argv, hdr, sizeof(hdr), h, &nh);
		ASSERT_NE(NULL, fp);
		cw = col(h, nh, "wall_ns");
		cs = col(h, nh, "span_id");
		ce = col(h, nh, "executions");
		for (i = 0; i < 8; i++) {
			cp[i] = col(h, nh, parts[i]);
			ASSERT_LE(0, cp[i]);
		}
		while (fgets(line, sizeof(line), fp)) {
			long long sum = 0, wall;
			bool found = false;

			n = split(line, f);
			ASSERT_EQ(nh, n);
			wall = atoll(f[cw]);
			for (i = 0; i < 8; i++) {
				ASSERT_LE(0, atoll(f[cp[i]])) TH_LOG("%s", parts[i]);
				sum += atoll(f[cp[i]]);
			}
			ASSERT_EQ(wall, sum);
			/* a job ran on the NPU for each inference */
			ASSERT_EQ(1, atoll(f[ce]));
			ASSERT_LT(0, atoll(f[cp[3]]));
			ASSERT_LT(0, atoll(f[cp[0]]));	/* Quantize, Lower, ... */
			ASSERT_EQ(0, atoll(f[cp[7]]));	/* nothing lost */
			for (i = 0; i < ninf; i++)
				if (!strcmp(infs[i].span_id, f[cs])) {
					ASSERT_EQ(infs[i].dur, wall);
					found = true;
				}
			ASSERT_TRUE(found);
			rows++;
		}
		fclose(fp);
		ASSERT_EQ(N_INF, rows);
	}
	/* the operators table's totals by opcode */
	{
		char *argv[] = { "npuprof", "report", "--operators", "--format",
				 "csv", TRACE, NULL };
		int cn, ct;

		fp = run_csv(argv, hdr, sizeof(hdr), h, &nh);
		ASSERT_NE(NULL, fp);
		cn = col(h, nh, "name");
		ct = col(h, nh, "total_ns");
		/* a row per opcode, or per layer operator of a model with a
		 * layer table: their totals by opcode */
		while (fgets(line, sizeof(line), fp)) {
			split(line, f);
			for (i = 0; i < nop && strcmp(op_name[i], f[cn]); i++)
				;
			if (i == nop) {
				ASSERT_GT(64, nop);
				snprintf(op_name[nop], sizeof(op_name[0]), "%s",
					 f[cn]);
				op_total[nop++] = 0;
			}
			op_total[i] += atoll(f[ct]);
		}
		fclose(fp);
		ASSERT_LT(0, nop);
	}
	/* analyze by type: counts add up to the OP records, sums match */
	{
		char *argv[] = { "npuprof", "analyze", "--aggregate-by", "type",
				 "--aggregate", "sum", "--type", "npu", "-t", "0",
				 "--format", "csv", TRACE, NULL };
		int cn, cc, cs, cg, cpk;

		fp = run_csv(argv, hdr, sizeof(hdr), h, &nh);
		ASSERT_NE(NULL, fp);
		cn = col(h, nh, "name");
		cc = col(h, nh, "count");
		cs = col(h, nh, "self_ns");
		cg = col(h, nh, "gmac_s");
		cpk = col(h, nh, "peak_pct");
		while (fgets(line, sizeof(line), fp)) {
			n = split(line, f);
			ASSERT_EQ(nh, n);
			sum_counts += atoll(f[cc]);
			/* MobileNet's operators all do work at a sane rate */
			ASSERT_LE(0.0, atof(f[cg]));
			ASSERT_GE(100.0, atof(f[cpk])) TH_LOG("%s", f[cn]);
			for (i = 0; i < nop; i++)
				if (!strcmp(op_name[i], f[cn]))
					an_total[i] = atoll(f[cs]);
		}
		fclose(fp);
		ASSERT_EQ((long long)self->t.nops, sum_counts);
		for (i = 0; i < nop; i++)
			ASSERT_EQ(op_total[i], an_total[i]) TH_LOG("%s", op_name[i]);
	}
	/* the exports */
	{
		char *chrome[] = { "npuprof", "export", "--format", "chrome", "-o",
				   "/tmp/npuprof_analyze.json", TRACE, NULL };
		char *sqlite[] = { "npuprof", "export", "--format", "sqlite", "-o",
				   "/tmp/npuprof_analyze.sqlite", TRACE, NULL };

		ASSERT_EQ(0, run_out(chrome));
		ASSERT_EQ(0, stat("/tmp/npuprof_analyze.json", &st));
		ASSERT_LT(1000, st.st_size);
		ASSERT_EQ(0, run_out(sqlite));
		ASSERT_EQ(0, stat("/tmp/npuprof_analyze.sqlite", &st));
		ASSERT_LT(1000, st.st_size);
		unlink("/tmp/npuprof_analyze.json");
		unlink("/tmp/npuprof_analyze.sqlite");
	}
	/* a trace compared with itself: nothing changes, exit 0 */
	{
		char *argv[] = { "npuprof", "diff", "--fail-above", "0", "--format",
				 "csv", TRACE, TRACE, NULL };

		ASSERT_EQ(0, run_out(argv));
		fp = fopen(OUT, "r");
		ASSERT_NE(NULL, fgets(hdr, sizeof(hdr), fp));
		rows = 0;
		while (fgets(line, sizeof(line), fp)) {
			n = split(line, f);
			ASSERT_EQ(8, n);
			ASSERT_STREQ("0", f[4]);
			rows++;
		}
		fclose(fp);
		ASSERT_LT(9, rows);
	}
}

TEST_HARNESS_MAIN
