// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_probes - the recipes of Documentation/npu/probes.rst, run in the VM
 * and checked on their values: perf lists and records the driver's
 * tracepoints, bpftrace one-liners on libnpu's USDT probes and on the
 * tracepoints, and spans built from the probes equal to the ones a
 * libnpuprof session records in the same run.
 *
 * perf and bpftrace are the host's (Debian's linux-perf and bpftrace), run
 * in a chroot of the host's root shared read-only at /host (npu-vm --share
 * /:/host, see npu_probes.npu-vm); /proc, /sys, /dev, tracefs, /tmp and
 * $NPU_BUILD of the guest are bound into it, so that the tools see the
 * guest's kernel and the very files (inodes) npu-classify runs from. A
 * missing /host, perf or bpftrace makes the tests SKIP with the reason.
 * The workload is npu-classify on MNIST, run by the guest directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define HOST		"/host"		/* the host's root (9p, read-only) */
#define ROOT		"/tmp-probes-root"	/* the chroot */
#define N_INF		8		/* inferences per workload run */
#define READY_S		240		/* bpftrace start-up under TCG */
#define STOP_S		90		/* bpftrace's exit after SIGINT */
#define WORK_S		180		/* the workload, at most */
#define MAX_OUT		(1 << 20)

static char build[256], classify[512], model[512];

/* Read file @path into a NUL-terminated malloc'd buffer (NULL on error). */
static char *slurp(const char *path)
{
	char *buf = malloc(MAX_OUT + 1);
	ssize_t n = -1;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, MAX_OUT);
		close(fd);
	}
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

/* Run @cmd with sh -c, outside or inside (@chroot) the host root. */
static int run(int chroot_host, const char *cmd, const char *out)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(200);
		if (chroot_host)
			execlp("chroot", "chroot", ROOT, "/bin/sh", "-c", cmd,
			       (char *)NULL);
		else
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(201);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* mkdir -p @path */
static int mkdirs(const char *path)
{
	char p[512], *q;

	snprintf(p, sizeof(p), "%s", path);
	for (q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*q = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* Bind @src (recursively) on ROOT@dst, made if missing. */
static int bind_at(const char *src, const char *dst)
{
	char d[512];

	snprintf(d, sizeof(d), ROOT "%s", dst);
	if (mkdirs(d))
		return -1;
	return mount(src, d, NULL, MS_BIND | MS_REC, NULL);
}

/*
 * Prepare the chroot at ROOT, once; returns NULL when ready, else why the
 * tests skip. ROOT is a tmpfs holding the host's /usr and /etc (from the
 * 9p share) and the guest's /proc, /sys, /dev, /tmp and $NPU_BUILD: the
 * mount points are tmpfs directories, not 9p ones (a 9p export of several
 * host file systems may give two directories one inode). The mounts are
 * shared by every test (one mount namespace).
 */
static const char *setup_host(void)
{
	static const char *const links[][2] = {
		{ "usr/bin", ROOT "/bin" }, { "usr/sbin", ROOT "/sbin" },
		{ "usr/lib", ROOT "/lib" }, { "usr/lib64", ROOT "/lib64" },
	};
	static const char *const guest[] = { "/proc", "/sys", "/dev", "/tmp" };
	const char *b = getenv("NPU_BUILD");
	unsigned int i;

	if (!b)
		return "NPU_BUILD is not set (run in npu-vm)";
	snprintf(build, sizeof(build), "%s", b);
	snprintf(classify, sizeof(classify), "%s/bin/npu-classify", build);
	snprintf(model, sizeof(model), "%s/models/mnist.nmdl", build);
	if (access(classify, X_OK) || access(model, R_OK))
		return "npu-classify or the MNIST model is missing in the guest";
	if (access(HOST "/usr/bin/env", X_OK))
		return "no host root at /host: run with npu-vm --share /:/host (npu_probes.npu-vm)";
	if (!access(ROOT "/usr/bin/env", X_OK))
		return NULL;		/* an earlier test made it */
	if (run(0, "command -v chroot", "/tmp/probes-chroot.out"))
		return "no chroot in the guest";
	if (mkdirs(ROOT) || mount("tmpfs", ROOT, "tmpfs", 0, NULL))
		return "cannot mount a tmpfs for the chroot";
	if (bind_at(HOST "/usr", "/usr") || bind_at(HOST "/etc", "/etc"))
		return "cannot bind the host's /usr and /etc";
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][0], links[i][1]))
			return "cannot make the chroot's /bin, /lib links";
	for (i = 0; i < sizeof(guest) / sizeof(guest[0]); i++)
		if (bind_at(guest[i], guest[i]))
			return "cannot bind the guest's /proc, /sys, /dev or /tmp";
	if (bind_at(build, build))
		return "cannot bind $NPU_BUILD into the chroot";
	if (mkdirs(ROOT "/root"))
		return "cannot make the chroot's /root";
	return NULL;
}

/* The workload: @n inferences; returns how many it reports, or -1. */
static int workload(int n, const char *env, const char *out)
{
	char cmd[2048], *s, *p;
	int got = -1;

	snprintf(cmd, sizeof(cmd), "%s timeout %d %s -m %s -n %d -q",
		 env ? env : "", WORK_S, classify, model, n);
	if (run(0, cmd, out))
		return -1;
	s = slurp(out);
	p = s ? strstr(s, "inferences ") : NULL;
	if (p)
		got = atoi(p + strlen("inferences "));
	free(s);
	return got;
}

/* Does the file hold @what yet? */
static int file_has(const char *path, const char *what)
{
	char *s = slurp(path);
	int r = s && strstr(s, what);

	free(s);
	return r;
}

/*
 * Start bpftrace on @prog (which prints READY from BEGIN: all its probes
 * are attached then), its output to @out. Returns its pid, or -1 when it
 * did not get ready (its output says why).
 */
static pid_t bpftrace_start(const char *prog, const char *out)
{
	pid_t pid = fork();
	int i, st;

	if (!pid) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(200);
		execlp("chroot", "chroot", ROOT, "/usr/bin/bpftrace", "-e",
		       prog, (char *)NULL);
		_exit(201);
	}
	if (pid < 0)
		return -1;
	for (i = 0; i < READY_S * 10; i++) {
		if (file_has(out, "READY"))
			return pid;
		if (waitpid(pid, &st, WNOHANG) == pid)
			return -1;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* Print file @path (a kernel stack, a wait channel) as "#" lines. */
static void show_file(const char *what, const char *path)
{
	char *s = slurp(path), *line, *save = NULL;

	fprintf(stderr, "# %s (%s):\n", what, path);
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "#   %s\n", line);
	free(s);
}

/*
 * Stop bpftrace with SIGINT (it prints its maps, detaches and exits) and
 * read its output; NULL when it does not exit within STOP_S seconds (it
 * is then killed, after its kernel stack is shown). SIGINT is sent again
 * every second: bpftrace 0.17's event loop (epoll_wait() with a 100 ms
 * timeout) seems to act on the flag its handler sets only when the signal
 * interrupts epoll_wait() or an event comes, so a SIGINT that lands
 * outside epoll_wait() with no event after it is never acted on (seen
 * twice in 20 runs: bpftrace sat in epoll_wait() 90 s); a later SIGINT
 * interrupts the wait.
 */
static char *bpftrace_stop(pid_t pid, const char *out)
{
	char path[64];
	int i, st;

	for (i = 0; i < STOP_S * 10; i++) {
		if (i % 10 == 0)
			kill(pid, SIGINT);
		if (waitpid(pid, &st, WNOHANG) == pid)
			return slurp(out);
		usleep(100000);
	}
	fprintf(stderr, "# bpftrace did not exit %d s after SIGINT\n", STOP_S);
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	show_file("its kernel stack", path);
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	show_file("its wait channel", path);
	show_file("its output", out);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return NULL;
}

/* The value of "@name: V" (a scalar map) in @s, or -1. */
static long map_scalar(const char *s, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\n%s: ", name);
	p = strstr(s, key);
	return p ? atol(p + strlen(key)) : -1;
}

/* The value of "@name[key]: V" in @s, or -1. */
static long map_at(const char *s, const char *name, unsigned long long k)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof(key), "\n%s[%llu]: ", name, k);
	p = strstr(s, key);
	return p ? atol(p + strlen(key)) : -1;
}

/* How many "@name[" entries @s holds. */
static int map_entries(const char *s, const char *name)
{
	char key[64];
	const char *p = s;
	int n = 0;

	snprintf(key, sizeof(key), "\n%s[", name);
	while ((p = strstr(p, key))) {
		n++;
		p += strlen(key);
	}
	return n;
}

/* Sum of the bucket counts of histogram "@name[key]:" in @s, or -1. */
static long hist_total(const char *s, const char *name, unsigned long long k)
{
	char key[96], *line, *copy, *save = NULL;
	const char *p;
	long sum = 0;

	snprintf(key, sizeof(key), "\n%s[%llu]:", name, k);
	p = strstr(s, key);
	if (!p)
		return -1;
	p = strchr(p + 1, '\n');	/* the buckets start on the next line */
	if (!p)
		return -1;
	copy = strdup(p + 1);
	if (!copy)
		return -1;
	/*
	 * bucket lines: "[lo, hi)   count |@@@|" or "[v]   count |@|"; a
	 * blank line ends the histogram
	 */
	for (line = strtok_r(copy, "\n", &save); line && line[0] == '[';
	     line = strtok_r(NULL, "\n", &save)) {
		const char *c = strpbrk(line, ")]");

		if (c)
			sum += atol(c + 1);
	}
	free(copy);
	return sum;
}

/*
 * Run the workload (@env before its command line) while bpftrace runs the
 * probes of @body, and return bpftrace's output, maps included (free() it);
 * NULL, the test failed, when bpftrace did not start or the workload did
 * not run N_INF inferences. @tag names the files in /tmp.
 */
static char *traced_workload(struct __test_metadata *_metadata,
			     const char *body, const char *env, const char *tag)
{
	char prog[4096], out[128], wout[128], *s;
	time_t t0;
	pid_t bt;
	int n;

	snprintf(prog, sizeof(prog), "BEGIN { printf(\"READY\\n\"); }\n%s", body);
	snprintf(out, sizeof(out), "/tmp/bt-%s.out", tag);
	snprintf(wout, sizeof(wout), "/tmp/classify-%s.out", tag);
	t0 = time(NULL);
	bt = bpftrace_start(prog, out);
	fprintf(stderr, "# %s: bpftrace ready after %ld s\n", tag,
		(long)(time(NULL) - t0));
	if (bt <= 0) {
		s = slurp(out);
		EXPECT_GT(bt, 0) TH_LOG("bpftrace did not start:\n%s", s ? s : "");
		free(s);
		return NULL;
	}
	n = workload(N_INF, env, wout);
	fprintf(stderr, "# %s: workload ran %d inferences\n", tag, n);
	s = bpftrace_stop(bt, out);
	fprintf(stderr, "# %s: bpftrace %s after %ld s\n", tag,
		s ? "stopped" : "killed", (long)(time(NULL) - t0));
	if (n < 0) {
		char *w = slurp(wout);

		TH_LOG("npu-classify failed:\n%s", w ? w : "");
		free(w);
	}
	EXPECT_EQ(N_INF, n);
	EXPECT_NE(NULL, s);
	if (n != N_INF) {
		free(s);
		return NULL;
	}
	return s;
}

static int tool_missing(const char *path)
{
	char p[256];

	snprintf(p, sizeof(p), HOST "%s", path);
	return access(p, X_OK) != 0;
}

FIXTURE(probes) {
	const char *why;	/* the chroot is not ready: why */
};

FIXTURE_SETUP(probes)
{
	self->why = setup_host();
}

/* SKIP in FIXTURE_SETUP does not skip the test in 6.1's harness: here */
#define NEED_CHROOT()							\
	do {								\
		if (self->why)						\
			SKIP(return, "%s", self->why);			\
	} while (0)

#define NEED_BPFTRACE()							\
	do {								\
		NEED_CHROOT();						\
		if (tool_missing("/usr/bin/bpftrace"))			\
			SKIP(return, "bpftrace is not installed on the host"); \
	} while (0)

FIXTURE_TEARDOWN(probes)
{
}

/* perf list shows the driver's five tracepoints. */
TEST_F_TIMEOUT(probes, perf_list, 120)
{
	static const char *const tps[] = {
		"npu:npu_job_submit", "npu:npu_job_start",
		"npu:npu_job_complete", "npu:npu_trace_lost",
		"npu:npu_device_fault",
	};
	char *s;
	unsigned int i;

	NEED_CHROOT();
	if (tool_missing("/usr/bin/perf"))
		SKIP(return, "perf is not installed on the host (linux-perf)");
	ASSERT_EQ(0, run(1, "perf list 'npu:*'", "/tmp/perf-list.out"));
	s = slurp("/tmp/perf-list.out");
	ASSERT_NE(NULL, s);
	for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		char want[96];

		snprintf(want, sizeof(want), "%s ", tps[i]);
		EXPECT_NE(NULL, strstr(s, want)) TH_LOG("%s not listed:\n%s",
							 tps[i], s);
	}
	EXPECT_NE(NULL, strstr(s, "[Tracepoint event]"));
	free(s);
}

/*
 * perf record -e 'npu:*' around npu-classify, then perf script: one
 * npu_job_submit by npu-classify per inference, one npu_job_complete with
 * status 0 per job, for the same job ids.
 */
TEST_F_TIMEOUT(probes, perf_record_script, 300)
{
	unsigned long long sub[64], cpl[64];
	int nsub = 0, ncpl = 0, i, j;
	char cmd[2048], *s, *line, *save = NULL;

	NEED_CHROOT();
	if (tool_missing("/usr/bin/perf"))
		SKIP(return, "perf is not installed on the host (linux-perf)");
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -a -e 'npu:*' -o /tmp/perf.data -- %s -m %s -n %d -q",
		 classify, model, N_INF);
	ASSERT_EQ(0, run(1, cmd, "/tmp/perf-record.out")) {
		s = slurp("/tmp/perf-record.out");
		TH_LOG("%s", s ? s : "");
		free(s);
	}
	ASSERT_EQ(0, run(1, "perf script -i /tmp/perf.data", "/tmp/perf-script.out"));
	s = slurp("/tmp/perf-script.out");
	ASSERT_NE(NULL, s);
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *j_ = strstr(line, " job=");
		unsigned long long id;

		if (!j_)
			continue;
		id = strtoull(j_ + 5, NULL, 10);
		if (strstr(line, "npu:npu_job_submit:")) {
			/* the submitting task is npu-classify itself */
			EXPECT_NE(NULL, strstr(line, "npu-classify")) TH_LOG("%s", line);
			ASSERT_LT(nsub, 64);
			sub[nsub++] = id;
		} else if (strstr(line, "npu:npu_job_complete:")) {
			EXPECT_NE(NULL, strstr(line, " status=0 ")) TH_LOG("%s", line);
			ASSERT_LT(ncpl, 64);
			cpl[ncpl++] = id;
		}
	}
	free(s);
	EXPECT_EQ(N_INF, nsub);
	EXPECT_EQ(N_INF, ncpl);
	for (i = 0; i < nsub; i++) {
		int found = 0;

		for (j = 0; j < ncpl; j++)
			found += cpl[j] == sub[i];
		EXPECT_EQ(1, found) TH_LOG("job %llu: %d completions", sub[i],
					   found);
		for (j = 0; j < i; j++)
			EXPECT_NE(sub[j], sub[i]);
	}
}

/*
 * bpftrace counts npu:submit_end by job id (USDT, arg2) and the driver's
 * npu_job_submit by job id (tracepoint) for npu-classify: one submit per
 * inference it ran, each job id once, the same ids on both sides.
 */
TEST_F_TIMEOUT(probes, bpftrace_submits, 600)
{
	char prog[2048], *s;
	unsigned long long id;
	const int n = N_INF;
	int k;

	NEED_BPFTRACE();
	snprintf(prog, sizeof(prog),
		 "usdt:%s:npu:submit_end { @usdt[arg2] = count(); @n_usdt = count(); }\n"
		 "tracepoint:npu:npu_job_submit /comm == \"npu-classify\"/ "
		 "{ @tp[args->job_id] = count(); @n_tp = count(); }\n",
		 classify);
	s = traced_workload(_metadata, prog, NULL, "submits");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(n, map_scalar(s, "@n_usdt")) TH_LOG("bpftrace:\n%s", s);
	EXPECT_EQ(n, map_scalar(s, "@n_tp"));
	EXPECT_EQ(n, map_entries(s, "@usdt"));
	EXPECT_EQ(n, map_entries(s, "@tp"));
	/* every USDT job id was submitted once, and seen by the driver */
	for (k = 0; k < n; k++) {
		const char *p = s;
		int i;

		for (i = 0; i <= k && p; i++) {
			p = strstr(p, "\n@usdt[");
			if (p)
				p += 7;
		}
		ASSERT_NE(NULL, p);
		id = strtoull(p, NULL, 10);
		EXPECT_EQ(1, map_at(s, "@usdt", id));
		EXPECT_EQ(1, map_at(s, "@tp", id)) TH_LOG("job %llu", id);
	}
	free(s);
}

/*
 * bpftrace's count and histogram of CPU operator durations by kind
 * (npu:cpuop_end: arg0 the kind, arg5 - arg4 the duration): npu-classify
 * quantizes, lowers, unlowers and dequantizes once per inference.
 */
TEST_F_TIMEOUT(probes, bpftrace_cpuop_hist, 600)
{
	char prog[2048], *s;
	unsigned long long kind;
	const int n = N_INF;

	NEED_BPFTRACE();
	snprintf(prog, sizeof(prog),
		 "usdt:%s:npu:cpuop_end { @ops[arg0] = count(); "
		 "@us[arg0] = hist((arg5 - arg4) / 1000); "
		 "if (arg5 < arg4) { @backwards = count(); } }\n",
		 classify);
	s = traced_workload(_metadata, prog, NULL, "cpuop");
	ASSERT_NE(NULL, s);
	/* Quantize 6, Lower 7, Unlower 8, Dequantize 9 (npuprof.h) */
	EXPECT_EQ(4, map_entries(s, "@ops")) TH_LOG("bpftrace:\n%s", s);
	for (kind = 6; kind <= 9; kind++) {
		EXPECT_EQ(n, map_at(s, "@ops", kind)) TH_LOG("kind %llu", kind);
		EXPECT_EQ(n, hist_total(s, "@us", kind)) TH_LOG("kind %llu", kind);
	}
	EXPECT_GE(0, map_scalar(s, "@backwards"));	/* 0 or not printed */
	free(s);
}

struct span6 {
	unsigned long long kind, id, job, op, start, dur;
	int matched;
};

/* enum npuprof_span_kind by npuprof_span_kind_name(), as the CSV has it */
static const char *const kind_names[] = {
	[1] = "record", [2] = "run", [3] = "inference", [4] = "set_input",
	[5] = "get_output", [6] = "Quantize", [7] = "Lower", [8] = "Unlower",
	[9] = "Dequantize", [10] = "submit", [11] = "wait",
};

/* Split a CSV line without quoted commas into at most @max fields. */
static int csv_split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, ',');
		if (!line)
			break;
		*line++ = 0;
	}
	return n;
}

/*
 * Spans built from the probes equal the library's: npu-classify runs with
 * NPUPROF_OUTPUT_PATH (a libnpuprof session records its host spans) while
 * bpftrace prints every npu:*_end probe's kind, span id, job id, operator
 * index, start and end; each printed span is a span of the trace file with
 * the same values, and the other way round.
 */
TEST_F_TIMEOUT(probes, bpftrace_spans_equal_library, 600)
{
	static struct span6 probe[512], lib[512];
	int np = 0, nl = 0, i, j, col[16], ncol;
	char prog[2048], *s, *line, *save = NULL;
	const int n = N_INF;

	NEED_BPFTRACE();
	snprintf(prog, sizeof(prog),
		 "usdt:%s:npu:*_end { printf(\"E %%lu %%lu %%lu %%lu %%lu %%lu\\n\", "
		 "arg0, arg1, arg2, arg3, arg4, arg5); }\n",
		 classify);
	unlink("/tmp/probes.npuprof");
	s = traced_workload(_metadata, prog,
			    "NPUPROF_OUTPUT_PATH=/tmp/probes.npuprof", "spans");
	ASSERT_NE(NULL, s);
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct span6 *p = &probe[np];
		unsigned long long end;

		if (line[0] != 'E' || line[1] != ' ')
			continue;
		ASSERT_LT(np, 512);
		ASSERT_EQ(6, sscanf(line, "E %llu %llu %llu %llu %llu %llu",
				    &p->kind, &p->id, &p->job, &p->op,
				    &p->start, &end));
		ASSERT_GE(end, p->start);
		p->dur = end - p->start;
		np++;
	}
	free(s);
	/* per inference: Inference, SetInput, GetOutput, four CPU ops, Submit, Wait */
	EXPECT_EQ(9 * n, np);

	ASSERT_EQ(0, run(0, "rm -rf /tmp/probes-csv && npuprof export --format csv -o /tmp/probes-csv /tmp/probes.npuprof",
			 "/tmp/probes-export.out"));
	s = slurp("/tmp/probes-csv/spans.csv");
	ASSERT_NE(NULL, s);
	save = NULL;
	line = strtok_r(s, "\n", &save);
	ASSERT_NE(NULL, line);
	{
		static const char *const want[] = {
			"kind", "span_id", "job_id", "op_index", "start_ns", "end_ns",
		};
		char *f[32];
		int nf = csv_split(line, f, 32), k;

		for (k = 0; k < 6; k++) {
			col[k] = -1;
			for (j = 0; j < nf; j++)
				if (!strcmp(f[j], want[k]))
					col[k] = j;
			ASSERT_GE(col[k], 0) TH_LOG("no column %s", want[k]);
		}
		ncol = nf;
	}
	for (line = strtok_r(NULL, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct span6 *p = &lib[nl];
		char *f[32];
		unsigned long long k;

		ASSERT_EQ(ncol, csv_split(line, f, 32));
		for (k = 1; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
			if (kind_names[k] && !strcmp(f[col[0]], kind_names[k]))
				break;
		ASSERT_LT(k, sizeof(kind_names) / sizeof(kind_names[0]))
			TH_LOG("unknown kind %s", f[col[0]]);
		ASSERT_LT(nl, 512);
		p->kind = k;
		p->id = strtoull(f[col[1]], NULL, 16);
		p->job = strtoull(f[col[2]], NULL, 10);
		p->op = strtoull(f[col[3]], NULL, 10);
		p->start = strtoull(f[col[4]], NULL, 10);
		p->dur = strtoull(f[col[5]], NULL, 10) - p->start;
		nl++;
	}
	free(s);
	EXPECT_EQ(np, nl);
	for (i = 0; i < np; i++) {
		for (j = 0; j < nl; j++)
			if (!lib[j].matched && lib[j].id == probe[i].id)
				break;
		if (j == nl) {
			EXPECT_TRUE(0) TH_LOG("probe span %llx (kind %llu) not in the trace",
					      probe[i].id, probe[i].kind);
			continue;
		}
		lib[j].matched = 1;
		EXPECT_EQ(lib[j].kind, probe[i].kind);
		EXPECT_EQ(lib[j].start, probe[i].start);
		EXPECT_EQ(lib[j].dur, probe[i].dur);
		EXPECT_EQ(lib[j].op, probe[i].op);
		/* job ids: only the spans that carry one (flags JOB) */
		if (probe[i].kind == 10 || probe[i].kind == 11)
			EXPECT_EQ(lib[j].job, probe[i].job);
	}
}

TEST_HARNESS_MAIN
