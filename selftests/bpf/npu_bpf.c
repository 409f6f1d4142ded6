// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof record --bpf in the VM: host spans from the eBPF probes of
 * tools/bpf, for programs started without any NPUPROF_* variable.
 *
 *  - cmd_usdt, cmd_uprobes: `npuprof record --bpf -- npu-classify` through
 *    libnpu's USDT probes and through the uprobe fallback; the trace is
 *    complete, every execution is joined to its submit span by job id and
 *    lies inside its inference span (npuprof_check.h), the tables of
 *    `npuprof report` hold one row per inference and every execution
 *    joined, and the span, execution and operator counts equal those of a
 *    library-built capture (`npuprof record` without --bpf) of the same
 *    workload;
 *  - no_caps_message: without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN,
 *    the message says why the probes cannot be loaded and what to do;
 *  - module_btf: npu.ko carries BTF (/sys/kernel/btf/npu), for tp_btf and
 *    fentry programs;
 *  - pid_both_paths_agree: `-p PID` on an npu-classify that captures
 *    through the library too (NPUPROF_OUTPUT_PATH): the probes' spans are
 *    the library's, field for field, an inference begun after the attach
 *    has the same spans in both files, and the executions' host times
 *    agree within the clock fits' bounds;
 *  - pid_sigint: `-p PID` on an npu-classify that was already running;
 *    every inference span the trace holds owns a submit span whose job has
 *    its EXEC record inside the span; SIGINT ends npuprof with status 0,
 *    the program keeps running, and every BPF program is gone afterwards.
 *
 * Runs in an npu-vm guest of its own with one vCPU (npu_bpf.npu-vm):
 * attaching probes patches kernel text, which QEMU TCG with two vCPUs
 * sometimes mishandles (Documentation/npu/bpf.rst).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof_check.h"
#include "npuprof_run.h"

#define MNIST_N		8

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* BPF programs loaded in the system (BPF_PROG_GET_NEXT_ID) */
static int bpf_progs(void)
{
	union bpf_attr attr;
	int n = 0;

	memset(&attr, 0, sizeof(attr));
	while (!syscall(__NR_bpf, BPF_PROG_GET_NEXT_ID, &attr, sizeof(attr))) {
		n++;
		attr.start_id = attr.next_id;
	}
	return n;
}

/*
 * `npuprof report TABLE --format csv FILE`: data rows, and of them the
 * ones whose first column (the trace id) is not empty
 */
static void report_rows(struct __test_metadata *_metadata, const char *table,
			const char *file, size_t *rows, size_t *joined)
{
	char *argv[] = { "npuprof", "report", (char *)table, "--format", "csv",
			 (char *)file, NULL };
	char line[2048];
	FILE *f;

	ASSERT_EQ(0, run(argv, "/tmp/npu_bpf_report.csv", NULL));
	f = fopen("/tmp/npu_bpf_report.csv", "r");
	ASSERT_NE(NULL, f);
	*rows = *joined = 0;
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));	/* the header */
	while (fgets(line, sizeof(line), f)) {
		(*rows)++;
		*joined += line[0] != ',';
	}
	fclose(f);
}

/* Record MNIST_N inferences into @file: with --bpf (and @extra) or not */
static void record(struct __test_metadata *_metadata, bool bpf,
		   const char *extra, const char *file, char *msg, size_t len)
{
	char path[512], cnt[12];
	char *argv[16];
	int i = 0;

	if (model_path("mnist", path, sizeof(path)))
		SKIP(return, "no mnist model in $NPU_BUILD/models");
	snprintf(cnt, sizeof(cnt), "%u", MNIST_N);
	argv[i++] = "npuprof";
	argv[i++] = "record";
	if (bpf)
		argv[i++] = "--bpf";
	if (extra)
		argv[i++] = (char *)extra;
	argv[i++] = "-o";
	argv[i++] = (char *)file;
	argv[i++] = "--";
	argv[i++] = "npu-classify";
	argv[i++] = "-m";
	argv[i++] = path;
	argv[i++] = "-n";
	argv[i++] = cnt;
	argv[i++] = "-q";
	argv[i] = NULL;
	ASSERT_EQ(0, run(argv, "/dev/null", "/tmp/npu_bpf_record.err"));
	ASSERT_EQ(0, slurp("/tmp/npu_bpf_record.err", msg, len));
	TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "npuprof: wrote "));
	EXPECT_NE(NULL, strstr(msg, "lost: 0 records, 0 spans"));
	EXPECT_NE(NULL, strstr(msg, "; 0 causality violations"));
	/* without kernel BTF, npuprof --bpf warns that it has no off-CPU times */
	if (!bpf || !access("/sys/kernel/btf/vmlinux", R_OK))
		EXPECT_EQ(NULL, strstr(msg, "warning"));
}

/*
 * A --bpf capture of npu-classify through @source ("usdt" or "uprobes"),
 * checked alone and against a library-built capture of the same workload
 */
static void cmd_capture(struct __test_metadata *_metadata, const char *extra,
			const char *source)
{
	const char *fb = "/tmp/npu_bpf_cmd.npuprof";
	const char *fl = "/tmp/npu_bpf_lib.npuprof";
	char msg[4096], want[64], err[512];
	struct ck_trace b, l;
	size_t rows, joined;
	unsigned int k;

	record(_metadata, true, extra, fb, msg, sizeof(msg));
	snprintf(want, sizeof(want), "npuprof: bpf: %s probes", source);
	EXPECT_NE(NULL, strstr(msg, want));
	EXPECT_NE(NULL, strstr(msg, " 0 events dropped"));
	ASSERT_EQ(0, ck_load(fb, &b, err, sizeof(err))) TH_LOG("%s", err);
	ck_check_complete(_metadata, &b);
	ck_check_spans(_metadata, &b);
	ck_check_inference_spans(_metadata, &b, MNIST_N);
	/* joined by job id, inside the inference span, level 2 */
	ck_check_execs(_metadata, &b, 2, MNIST_N, 0);
	ASSERT_LT(0, b.nspans);
	/* the spans are the traced program's, not npuprof's */
	for (k = 0; k < b.nspans; k++)
		ASSERT_NE(b.meta_pid, b.spans[k].pid);

	/* the reports see them: one row per inference, executions joined */
	report_rows(_metadata, "--inferences", fb, &rows, &joined);
	EXPECT_EQ(MNIST_N, rows);
	report_rows(_metadata, "--executions", fb, &rows, &joined);
	EXPECT_EQ(MNIST_N, rows);
	EXPECT_EQ(MNIST_N, joined);
	report_rows(_metadata, "--external", fb, &rows, &joined);
	EXPECT_EQ(4 * MNIST_N, rows);	/* Quantize, Lower, Unlower, Dequantize */

	/* the same workload through the library: the same counts */
	record(_metadata, false, NULL, fl, msg, sizeof(msg));
	ASSERT_EQ(0, ck_load(fl, &l, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(l.nspans, b.nspans);
	EXPECT_EQ(l.nexecs, b.nexecs);
	EXPECT_EQ(l.nops, b.nops);
	for (k = NPUPROF_SPAN_LABEL; k <= NPUPROF_SPAN_KIND_MAX; k++)
		EXPECT_EQ(ck_count_kind(&l, k), ck_count_kind(&b, k))
			TH_LOG("span kind %s", npuprof_span_kind_name(k));
	ck_free(&l);
	ck_free(&b);
}

/*
 * The programs are CO-RE: libbpf relocates them against the kernel's BTF,
 * which the debug kernel (CONFIG_DEBUG_INFO_NONE) does not have, and npu.ko
 * has BTF only where the kernel has.
 */
#define NEED_BTF()							\
	do {								\
		if (access("/sys/kernel/btf/vmlinux", R_OK))		\
			SKIP(return, "the kernel has no BTF (/sys/kernel/btf/vmlinux)"); \
	} while (0)

FIXTURE(bpf) {
	int unused;
};

FIXTURE_SETUP(bpf)
{
	self->unused = 0;
	unsetenv("NPUPROF_OUTPUT_PATH");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		TH_LOG("the kernel has no BTF: no off-CPU times");
}

FIXTURE_TEARDOWN(bpf)
{
}

TEST_F_TIMEOUT(bpf, cmd_usdt, 300)
{
	NEED_BTF();
	cmd_capture(_metadata, NULL, "usdt");
}

TEST_F_TIMEOUT(bpf, cmd_uprobes, 300)
{
	NEED_BTF();
	cmd_capture(_metadata, "--uprobes", "uprobes");
}

/*
 * -p on a program that was running before: spans joined to executions,
 * SIGINT detaches (no BPF program left) and the program keeps running
 */
TEST_F_TIMEOUT(bpf, pid_sigint, 300)
{
	const char *file = "/tmp/npu_bpf_pid.npuprof";
	char path[512], pidstr[16], msg[4096], err[512];
	char *app[] = { "npu-classify", "-m", path, "-n", "1000000", "-q", NULL };
	char *rec[] = { "npuprof", "record", "--bpf", "-o", (char *)file, "-p",
			pidstr, NULL };
	size_t i, j, ninf = 0;
	int progs0, progs, tries;
	struct ck_trace t;
	struct stat st;
	pid_t app_pid, rec_pid;

	NEED_BTF();
	if (model_path("mnist", path, sizeof(path)))
		SKIP(return, "no mnist model in $NPU_BUILD/models");
	progs0 = bpf_progs();
	app_pid = spawn(app, "/dev/null", NULL);
	ASSERT_LT(0, app_pid);
	sleep_ms(1500);		/* it opened the device and runs */
	ASSERT_EQ(0, kill(app_pid, 0));
	snprintf(pidstr, sizeof(pidstr), "%d", (int)app_pid);
	unlink(file);
	rec_pid = spawn(rec, "/dev/null", "/tmp/npu_bpf_pid.err");
	ASSERT_LT(0, rec_pid);
	/* attached once it says so */
	for (tries = 0; tries < 300; tries++) {
		sleep_ms(100);
		if (!slurp("/tmp/npu_bpf_pid.err", msg, sizeof(msg)) &&
		    strstr(msg, "recording process"))
			break;
	}
	ASSERT_NE(NULL, strstr(msg, "recording process")) TH_LOG("%s", msg);
	ASSERT_LT(progs0, bpf_progs());
	sleep_ms(3000);
	ASSERT_EQ(0, kill(rec_pid, SIGINT));
	EXPECT_EQ(0, reap(rec_pid));
	ASSERT_EQ(0, slurp("/tmp/npu_bpf_pid.err", msg, sizeof(msg)));
	TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "npuprof: wrote "));
	EXPECT_NE(NULL, strstr(msg, "npuprof: bpf: usdt probes"));
	/* detached: every program freed (deferred a little), app running */
	for (tries = 0; tries < 50; tries++) {
		progs = bpf_progs();
		if (progs <= progs0)
			break;
		sleep_ms(100);
	}
	EXPECT_EQ(progs0, progs);
	EXPECT_EQ(0, kill(app_pid, 0));
	EXPECT_EQ(0, waitpid(app_pid, NULL, WNOHANG));
	kill(app_pid, SIGKILL);
	reap(app_pid);
	ASSERT_EQ(0, stat(file, &st));

	ASSERT_EQ(0, ck_load(file, &t, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_FALSE(t.truncated);
	ASSERT_TRUE(t.have_summary);
	EXPECT_EQ(0, t.summary.violations);
	EXPECT_EQ(t.nspans, t.summary.spans);
	for (i = 0; i < t.nspans; i++) {
		const struct npuprof_span_rec *inf = &t.spans[i], *sub = NULL;
		const struct ck_exec *e = NULL;
		int64_t er;

		ASSERT_EQ(app_pid, inf->pid);
		if (inf->kind != NPUPROF_SPAN_INFERENCE)
			continue;
		ninf++;
		for (j = 0; j < t.nspans; j++)
			if (t.spans[j].kind == NPUPROF_SPAN_SUBMIT &&
			    t.spans[j].parent_id == inf->span_id &&
			    t.spans[j].pid == inf->pid) {
				EXPECT_EQ(NULL, sub);
				sub = &t.spans[j];
			}
		/* an inference whose submit ended before the attach */
		if (!sub)
			continue;
		ASSERT_TRUE(sub->flags & NPUPROF_SPAN_F_JOB);
		for (j = 0; j < t.nexecs; j++)
			if (t.execs[j].x.job_id == sub->job_id &&
			    t.execs[j].minor == sub->minor)
				e = &t.execs[j];
		ASSERT_NE(NULL, e) TH_LOG("job %llu", (unsigned long long)sub->job_id);
		ASSERT_EQ(app_pid, e->x.pid);
		ASSERT_EQ(NPU_JOB_OK, e->x.status);
		ASSERT_TRUE(e->start.valid && e->end.valid);
		er = (int64_t)(e->start.err_ns > e->end.err_ns ? e->start.err_ns :
								   e->end.err_ns);
		EXPECT_GE(e->start.ns + er, (int64_t)inf->start_ns);
		EXPECT_LE(e->end.ns - er, (int64_t)inf->end_ns);
	}
	TH_LOG("%zu inferences, %zu executions in 3 s", ninf, t.nexecs);
	EXPECT_LE(3, ninf);
	ck_free(&t);
}

/* CLOCK_MONOTONIC in ns, the clock of every span */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The spans of @t whose trace id is @id's */
static size_t spans_of(const struct ck_trace *t, const uint64_t id[2])
{
	size_t i, n = 0;

	for (i = 0; i < t->nspans; i++)
		n += t->spans[i].trace_id[0] == id[0] &&
		     t->spans[i].trace_id[1] == id[1];
	return n;
}

/*
 * Both paths at once on the same inferences: npu-classify runs with
 * NPUPROF_OUTPUT_PATH (the library's session and file) while `npuprof
 * record --bpf -p` traces it, until it exits. Every span the probes saw
 * is in the library's file with the same fields, every inference that
 * began once the probes were attached has the same spans in both files,
 * and every execution of both files maps to host times that agree within
 * the two clock fits' bounds.
 */
TEST_F_TIMEOUT(bpf, pid_both_paths_agree, 300)
{
	const char *fb = "/tmp/npu_bpf_both.npuprof";
	const char *fl = "/tmp/npu_bpf_both_lib.npuprof";
	char path[512], pidstr[16], msg[4096], err[512];
	char *app[] = { "npu-classify", "-m", path, "-n", "4000", "-q", NULL };
	char *rec[] = { "npuprof", "record", "--bpf", "-o", (char *)fb, "-p",
			pidstr, NULL };
	size_t i, j, ninf = 0, nexec = 0;
	struct ck_trace b, l;
	pid_t app_pid, rec_pid;
	uint64_t ready = 0;
	int tries, st;

	NEED_BTF();
	if (model_path("mnist", path, sizeof(path)))
		SKIP(return, "no mnist model in $NPU_BUILD/models");
	unlink(fb);
	unlink(fl);
	setenv("NPUPROF_OUTPUT_PATH", fl, 1);
	app_pid = spawn(app, "/dev/null", NULL);
	unsetenv("NPUPROF_OUTPUT_PATH");
	ASSERT_LT(0, app_pid);
	sleep_ms(500);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)app_pid);
	rec_pid = spawn(rec, "/dev/null", "/tmp/npu_bpf_both.err");
	ASSERT_LT(0, rec_pid);
	for (tries = 0; tries < 600 && !ready; tries++) {
		sleep_ms(50);
		if (!slurp("/tmp/npu_bpf_both.err", msg, sizeof(msg)) &&
		    strstr(msg, "recording process"))
			ready = mono_ns();	/* every probe is attached */
	}
	ASSERT_NE(0, ready) TH_LOG("%s", msg);
	/* the program ends by itself, and npuprof with it */
	EXPECT_EQ(0, reap(app_pid));
	for (tries = 0; tries < 600; tries++) {
		if (waitpid(rec_pid, &st, WNOHANG) == rec_pid)
			break;
		sleep_ms(100);
	}
	if (tries == 600) {
		kill(rec_pid, SIGINT);
		reap(rec_pid);
		ASSERT_TRUE(false) TH_LOG("npuprof did not stop with its process");
	}
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, ck_load(fb, &b, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, ck_load(fl, &l, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_FALSE(l.truncated);
	EXPECT_FALSE(b.truncated);
	ASSERT_LT(0, b.nspans);

	/* every span the probes saw is the library's, field for field */
	for (i = 0; i < b.nspans; i++) {
		const struct npuprof_span_rec *x = &b.spans[i], *y = NULL;

		for (j = 0; j < l.nspans && !y; j++)
			if (l.spans[j].span_id == x->span_id)
				y = &l.spans[j];
		ASSERT_NE(NULL, y) TH_LOG("span %llx", (unsigned long long)x->span_id);
		ASSERT_EQ(y->kind, x->kind);
		/*
		 * but for the model id of the library's SUBMIT spans: it
		 * names a MODEL item of the traced process's own session,
		 * which the probes' collector does not have
		 */
		ASSERT_EQ(0, x->flags & NPUPROF_SPAN_F_MODEL);
		ASSERT_EQ(y->flags & ~NPUPROF_SPAN_F_MODEL, x->flags);
		ASSERT_EQ(y->pid, x->pid);
		ASSERT_EQ(y->tid, x->tid);
		ASSERT_EQ(y->start_ns, x->start_ns);
		ASSERT_EQ(y->end_ns, x->end_ns);
		ASSERT_EQ(y->parent_id, x->parent_id);
		ASSERT_EQ(y->trace_id[0], x->trace_id[0]);
		ASSERT_EQ(y->trace_id[1], x->trace_id[1]);
		ASSERT_EQ(y->job_id, x->job_id);
		ASSERT_EQ(y->op_index, x->op_index);
		ASSERT_EQ(y->minor, x->minor);
	}
	/* an inference begun after the attach: the same spans in both */
	for (i = 0; i < b.nspans; i++) {
		const struct npuprof_span_rec *x = &b.spans[i];

		if (x->kind != NPUPROF_SPAN_INFERENCE || x->start_ns <= ready)
			continue;
		ninf++;
		ASSERT_EQ(spans_of(&l, x->trace_id), spans_of(&b, x->trace_id));
	}
	/* the executions: the same jobs, host times within the bounds */
	for (i = 0; i < b.nexecs; i++) {
		const struct ck_exec *x = &b.execs[i], *y = NULL;
		int64_t e0, e1;

		if (x->x.pid != app_pid)
			continue;
		for (j = 0; j < l.nexecs && !y; j++)
			if (l.execs[j].x.job_id == x->x.job_id &&
			    l.execs[j].minor == x->minor)
				y = &l.execs[j];
		if (!y)		/* before the library's ring was enabled */
			continue;
		ASSERT_TRUE(x->start.valid && x->end.valid && y->start.valid &&
			    y->end.valid);
		e0 = (int64_t)(x->start.err_ns + y->start.err_ns);
		e1 = (int64_t)(x->end.err_ns + y->end.err_ns);
		EXPECT_LE(llabs(x->start.ns - y->start.ns), e0)
			TH_LOG("job %llu", (unsigned long long)x->x.job_id);
		EXPECT_LE(llabs(x->end.ns - y->end.ns), e1);
		nexec++;
	}
	TH_LOG("%zu spans by the probes, %zu by the library; %zu inferences whole in both, %zu executions in both (bounds %llu and %llu ns)",
	       b.nspans, l.nspans, ninf, nexec,
	       (unsigned long long)b.fit_err_ns, (unsigned long long)l.fit_err_ns);
	EXPECT_LE(10, ninf);
	EXPECT_LE(ninf, nexec);
	ck_free(&b);
	ck_free(&l);
}

/*
 * Without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (dropped from the
 * bounding set, so root's exec does not get them back; trace_paranoid=0
 * lets the ring through), the probes cannot be loaded: npuprof says why
 * and what to do, and does not run COMMAND (125).
 */
TEST_F(bpf, no_caps_message)
{
	const char *param = "/sys/module/npu/parameters/trace_paranoid";
	char *argv[] = { "npuprof", "record", "--bpf", "-o",
			 "/tmp/npu_bpf_nocap.npuprof", "--", "touch",
			 "/tmp/npu_bpf_nocap.ran", NULL };
	static const int caps[] = { 21 /* SYS_ADMIN */, 38 /* PERFMON */,
				    39 /* BPF */ };
	char old[16] = "1", msg[4096];
	FILE *f;
	pid_t pid;
	size_t i;

	NEED_BTF();
	f = fopen(param, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(old, sizeof(old), f));
	fclose(f);
	f = fopen(param, "w");
	ASSERT_NE(NULL, f);
	fputs("0\n", f);
	fclose(f);
	unlink("/tmp/npu_bpf_nocap.ran");
	pid = fork();
	if (!pid) {
		for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
			if (prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0))
				_exit(202);
		execvp("sh", (char *[]){ "sh", "-c",
			"exec npuprof \"$@\" 2>/tmp/npu_bpf_nocap.err", "sh",
			argv[1], argv[2], argv[3], argv[4], argv[5], argv[6],
			argv[7], NULL });
		_exit(201);
	}
	EXPECT_EQ(125, reap(pid));
	f = fopen(param, "w");
	if (f) {
		fputs(old, f);
		fclose(f);
	}
	ASSERT_EQ(0, slurp("/tmp/npu_bpf_nocap.err", msg, sizeof(msg)));
	TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "cannot load the BPF programs"));
	EXPECT_NE(NULL, strstr(msg, "CAP_BPF and CAP_PERFMON"));
	/* COMMAND was never run */
	EXPECT_NE(0, access("/tmp/npu_bpf_nocap.ran", F_OK));
}

/* make modules builds npu.ko with BTF: the kernel publishes it */
TEST_F(bpf, module_btf)
{
	struct stat st;

	NEED_BTF();
	ASSERT_EQ(0, stat("/sys/kernel/btf/npu", &st))
		TH_LOG("npu.ko has no BTF: built without the kernel's vmlinux (make modules, Documentation/npu/bpf.rst)");
	EXPECT_LT(1000, st.st_size);
}

TEST_HARNESS_MAIN
