// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - `npuprof record`: run a command with profiling on and report
 * what its trace file holds.
 *
 * Capture is libnpuprof's zero-code activation: the command runs with
 * NPUPROF_OUTPUT_PATH (and NPUPROF_LEVEL, NPUPROF_PAGES, NPUPROF_ALL) in
 * its environment, and libnpu starts a session when it opens a device.
 * npuprof forks and execs the command, passes on the SIGINT, SIGTERM and
 * SIGHUP sent to it, waits, then reads the file back and summarizes it.
 *
 * One command per process: the child's pid lives in a static for the
 * signal handler, set while the forwarded signals are blocked.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "npu_cli.h"

/* npuprof's own failure before CMD ran, as env(1) and timeout(1) use */
#define EXIT_NPUPROF	125
#define EXIT_NOEXEC	126
#define EXIT_NOTFOUND	127

static const char record_help[] =
"NAME\n"
"    npuprof record - run a command and record its NPU profile\n"
"\n"
"SYNOPSIS\n"
"    npuprof record [-o FILE] [-l N] [-p N] [-a] [-q] [--] COMMAND [ARG]...\n"
"\n"
"DESCRIPTION\n"
"    Runs COMMAND with profiling on and, when it has exited, prints to\n"
"    standard error where the trace went, what it holds and what was lost.\n"
"\n"
"    Nothing in COMMAND needs to change: npuprof sets NPUPROF_OUTPUT_PATH,\n"
"    NPUPROF_LEVEL and NPUPROF_PAGES (and NPUPROF_ALL with --all) in its\n"
"    environment, replacing any inherited values (NPUPROF_ALL is removed\n"
"    without --all), and libnpu starts a profiling session in COMMAND when\n"
"    it first opens an NPU device. The session ends, and the file is\n"
"    completed, when COMMAND exits, also through exit() from any thread or a\n"
"    fatal signal (then the file ends at its last complete chunk and is\n"
"    reported as truncated). COMMAND is found in PATH as a shell would.\n"
"\n"
"    An existing FILE is renamed FILE.old first, as perf record does.\n"
"    Every process COMMAND starts inherits the environment: when several of\n"
"    them use an NPU, each writes FILE in turn and the last one wins. To\n"
"    get one file per process, run COMMAND with NPUPROF_OUTPUT_PATH set to a\n"
"    name holding %p (the pid) instead of using npuprof record.\n"
"\n"
"    A SIGINT, SIGTERM or SIGHUP sent to npuprof is passed on to COMMAND;\n"
"    the ones a terminal sends (Ctrl-C) reach COMMAND directly, since it\n"
"    runs in npuprof's process group, and are not sent twice. npuprof waits\n"
"    for COMMAND to exit in every case.\n"
"\n"
"    The report reads the trace back with libnpuprof, e.g.\n"
"        npuprof: wrote npuprof.data (1.2 MiB): 512 spans, 128 executions,\n"
"        4096 operators, 258 clock samples; lost: 0 records, 0 spans;\n"
"        clock fit: +-12.345 us; 0 causality violations\n"
"    Counts come from the records themselves; the clock fit error and the\n"
"    causality violations (executions whose device interval, mapped to host\n"
"    time, leaves their host submit..complete interval) from the file's\n"
"    trailer. Warnings follow when the file is missing (COMMAND opened no\n"
"    NPU device through libnpu), truncated or corrupt, or anything was lost.\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Trace file to write. Default ./npuprof.data. A relative FILE is\n"
"        made absolute, so that COMMAND changing directory does not move it.\n"
"    -l, --level N\n"
"        Trace level 0, 1 or 2. Default 2.\n"
"        0: one EXEC record per job with its host context (pid, tid,\n"
"           submit and completion times, status), no device times;\n"
"        1: and the device's execution times (start, end, Run, IoWait,\n"
"           MACs, DMA bytes);\n"
"        2: and one OP record per operator the NPU executed.\n"
"        Host spans are recorded at every level.\n"
"    -p, --pages N\n"
"        Data pages of each device's trace ring, a power of two from 1 to\n"
"        4096. Default 256 (1 MiB with 4 KiB pages). A ring that fills up\n"
"        drops records and counts them exactly: raise N when the report\n"
"        shows ring-full losses.\n"
"    -a, --all\n"
"        Record every process's NPU jobs, not only COMMAND's. Needs\n"
"        CAP_PERFMON or CAP_SYS_ADMIN, or the npu module parameter\n"
"        trace_paranoid=0; without it the session fails and COMMAND runs\n"
"        unprofiled (libnpuprof says so on standard error).\n"
"    -q, --quiet\n"
"        No report unless something is wrong (the warnings stay).\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"    Options end at the first non-option argument or at \"--\"; what\n"
"    follows is COMMAND and its arguments.\n"
"\n"
"EXIT STATUS\n"
"    COMMAND's exit status, or 128+N when it was killed by signal N (as a\n"
"    shell reports it), whatever the trace holds. Otherwise:\n"
"    2   a usage error;\n"
"    125 npuprof failed before running COMMAND (FILE could not be moved\n"
"        to FILE.old, fork failed);\n"
"    126 COMMAND was found but could not be executed;\n"
"    127 COMMAND was not found.\n"
"\n"
"ENVIRONMENT\n"
"    Set for COMMAND:\n"
"    NPUPROF_OUTPUT_PATH  the absolute path of FILE, every % doubled (the\n"
"                         library would expand %p to the pid)\n"
"    NPUPROF_LEVEL        --level\n"
"    NPUPROF_PAGES        --pages\n"
"    NPUPROF_ALL          1 with --all, else removed\n"
"    PATH                 where COMMAND is looked for\n"
"\n"
"EXAMPLES\n"
"    npuprof record -- npu-classify -m mobilenet-v1.nmdl -n 10 -q\n"
"        Profile 10 inferences at level 2 into ./npuprof.data.\n"
"    npuprof record -o mnist.npuprof -l 0 -p 1024 -- ./serve --port 80\n"
"        Host context of every job only, a 4 MiB ring.\n"
"    sudo npuprof record -a -o all.npuprof -- sleep 10\n"
"        Every process's NPU jobs for 10 seconds.\n";

struct record_opts {
	const char *output;
	unsigned int level;
	unsigned int pages;
	bool all;
	bool quiet;
};

/* The running command, for the forwarding handler; 0 when none */
static volatile sig_atomic_t child_pid;

static const int fwd_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NFWD (sizeof(fwd_signals) / sizeof(fwd_signals[0]))

/*
 * A signal sent to npuprof (kill, sigqueue: si_code <= 0) goes on to the
 * command; one from the terminal (SI_KERNEL) reached the whole foreground
 * process group, the command included, already.
 */
static void forward(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (child_pid > 0 && si->si_code != SI_KERNEL)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

static int set_handlers(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (fn) {
		sa.sa_sigaction = fn;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
	} else {
		sa.sa_handler = SIG_DFL;
	}
	for (i = 0; i < NFWD; i++)
		if (sigaction(fwd_signals[i], &sa, NULL))
			return -errno;
	return 0;
}

static void fwd_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NFWD; i++)
		sigaddset(set, fwd_signals[i]);
}

/* @path made absolute (malloc'ed), or NULL with errno */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX];
	char *abs;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (asprintf(&abs, "%s/%s", strcmp(cwd, "/") ? cwd : "", path) < 0)
		return NULL;
	return abs;
}

/* Rename an existing, non-empty @path to @path.old, as perf record does */
static int keep_old(const char *path)
{
	struct stat st;
	char *old;
	int ret = 0;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		npc_err("%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		npc_err("%s: is a directory", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	if (asprintf(&old, "%s.old", path) < 0) {
		npc_err("out of memory");
		return -1;
	}
	if (rename(path, old)) {
		npc_err("cannot rename %s to %s: %s", path, old, strerror(errno));
		ret = -1;
	}
	free(old);
	return ret;
}

/*
 * libnpuprof expands %p (the pid) and %% in NPUPROF_OUTPUT_PATH: escape
 * every % so that the file is FILE itself, the file record reads back.
 */
static int set_env(const struct record_opts *o, const char *path)
{
	char num[16], *esc;
	size_t i, n = 0;
	int ret;

	esc = malloc(2 * strlen(path) + 1);
	if (!esc)
		return -1;
	for (i = 0; path[i]; i++) {
		if (path[i] == '%')
			esc[n++] = '%';
		esc[n++] = path[i];
	}
	esc[n] = '\0';
	ret = setenv("NPUPROF_OUTPUT_PATH", esc, 1);
	free(esc);
	if (ret)
		return -1;
	snprintf(num, sizeof(num), "%u", o->level);
	if (setenv("NPUPROF_LEVEL", num, 1))
		return -1;
	snprintf(num, sizeof(num), "%u", o->pages);
	if (setenv("NPUPROF_PAGES", num, 1))
		return -1;
	return o->all ? setenv("NPUPROF_ALL", "1", 1) : unsetenv("NPUPROF_ALL");
}

/*
 * Fork and exec @argv; wait for it. Returns its exit status as a shell
 * computes it, 126/127 when it could not be executed (*@ran false), or
 * EXIT_NPUPROF.
 */
static int run(char **argv, bool *ran)
{
	sigset_t fwd, old;
	int pfd[2], err = 0, status;
	ssize_t n;
	pid_t pid;

	*ran = false;
	if (pipe2(pfd, O_CLOEXEC)) {
		npc_err("pipe: %s", strerror(errno));
		return EXIT_NPUPROF;
	}
	fwd_set(&fwd);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	if (set_handlers(forward)) {
		npc_err("sigaction: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		close(pfd[1]);
		return EXIT_NPUPROF;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		close(pfd[1]);
		npc_err("fork: %s", strerror(err));
		return EXIT_NPUPROF;
	}
	if (!pid) {
		set_handlers(NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		execvp(argv[0], argv);
		err = errno;
		/* the parent reports it; nothing else to do here */
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(EXIT_NOEXEC);
		_exit(err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	do {
		n = read(pfd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			npc_err("waitpid: %s", strerror(errno));
			child_pid = 0;
			return EXIT_NPUPROF;
		}
	}
	child_pid = 0;
	set_handlers(NULL);
	if (n == (ssize_t)sizeof(err)) {
		if (err == ENOENT) {
			npc_err("%s: command not found", argv[0]);
			return EXIT_NOTFOUND;
		}
		npc_err("%s: cannot execute: %s", argv[0], strerror(err));
		return EXIT_NOEXEC;
	}
	*ran = true;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void warn_losses(const char *path, const struct npc_totals *t)
{
	uint64_t lost = npc_totals_lost(t);

	if (lost)
		npc_warn("%s: lost %" PRIu64 " device records (ring-full %" PRIu64
			 ", device %" PRIu64 ", host %" PRIu64 ", other %" PRIu64
			 ")%s", path, lost, t->lost[NPU_TRACE_LOST_RING_FULL],
			 t->lost[NPU_TRACE_LOST_DEVICE],
			 t->lost[NPU_TRACE_LOST_HOST], t->lost[0],
			 t->lost[NPU_TRACE_LOST_RING_FULL] ?
			 "; a larger --pages keeps ring-full losses away" : "");
	if (t->spans_lost)
		npc_warn("%s: lost %" PRIu64 " host spans: a thread's span buffer was full",
			 path, t->spans_lost);
	if (t->seq_gaps)
		npc_warn("%s: %" PRIu64 " records missing by sequence number with no LOST record to account for them (a bug)",
			 path, t->seq_gaps);
	if (t->have_summary && t->summary.ring_errors)
		npc_warn("%s: %" PRIu64 " device rings were found corrupt and stopped early",
			 path, t->summary.ring_errors);
	if (t->have_summary && t->summary.violations)
		npc_warn("%s: %" PRIu64 " causality violations: executions outside their host submit..complete interval",
			 path, t->summary.violations);
}

/* Read the trace back and report on it. */
static void report(const struct record_opts *o, const char *file,
		   const char *cmd)
{
	const char *path = o->output;	/* as the user wrote it */
	struct npuprof_trace *tr = NULL;
	struct npuprof_event ev;
	struct npc_totals t;
	char err[512], b1[NPC_FMT_LEN], b2[NPC_FMT_LEN], b3[NPC_FMT_LEN];
	char viol[64];
	uint64_t fit_err;
	struct stat st;
	int ret;

	ret = npuprof_trace_open(file, &tr, err, sizeof(err));
	if (ret == -ENOENT) {
		npc_warn("no trace in %s: %s opened no NPU device through libnpu, so no profiling session started",
			 path, cmd);
		return;
	}
	if (ret) {
		npc_warn("cannot read the trace: %s", err[0] ? err : strerror(-ret));
		return;
	}
	npc_totals_init(&t);
	while ((ret = npuprof_trace_next(tr, &ev)) > 0)
		npc_totals_add(&t, &ev);
	if (ret < 0)
		npc_warn("%s is corrupt: %s; counted up to there", path,
			 npuprof_trace_error(tr)[0] ? npuprof_trace_error(tr) :
			 strerror(-ret));
	else if (npuprof_trace_truncated(tr))
		npc_warn("%s is truncated: %s ended before the profiler completed it; counted up to its last complete chunk",
			 path, cmd);
	/* the summary of `npuprof summary`, on stderr as the rest */
	if (!o->quiet && ret == 0 &&
	    npuprof_print_summary(tr, NPUPROF_FORMAT_TABLE, stderr))
		npc_warn("no summary of %s: %s", path, npuprof_trace_error(tr));
	npuprof_trace_close(tr);

	if (!o->quiet) {
		if (stat(file, &st))
			st.st_size = 0;
		if (t.have_summary)
			snprintf(viol, sizeof(viol), "%" PRIu64 " causality violations",
				 t.summary.violations);
		else
			snprintf(viol, sizeof(viol), "causality not checked (no trailer)");
		if (npc_totals_fit_err(&t, &fit_err))
			snprintf(b2, sizeof(b2), "+-%s", npc_fmt_dur(b3, (int64_t)fit_err));
		else
			snprintf(b2, sizeof(b2), "none");
		fprintf(stderr,
			"%s: wrote %s (%s): %" PRIu64 " spans, %" PRIu64
			" executions, %" PRIu64 " operators, %" PRIu64
			" clock samples; lost: %" PRIu64 " records, %" PRIu64
			" spans; clock fit: %s; %s\n", NPC_PROG, path,
			npc_fmt_bytes(b1, (uint64_t)st.st_size), t.spans, t.execs,
			t.ops, t.clocks, npc_totals_lost(&t), t.spans_lost, b2,
			viol);
	}
	if (!t.execs && !t.spans)
		npc_warn("%s holds no span and no execution: %s ran no inference while the session captured",
			 path, cmd);
	warn_losses(path, &t);
}

static int record_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "level", required_argument, NULL, 'l' },
		{ "pages", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_opts o = { .output = NPC_DEFAULT_FILE,
				 .level = NPUPROF_DEFAULT_LEVEL,
				 .pages = NPUPROF_DEFAULT_RING_PAGES };
	const char *prog = NPC_PROG " record";
	char *path;
	uint64_t v;
	bool ran;
	int c, st;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:l:p:aqh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return npu_cli_usage_error(prog, "--output: empty file name");
			o.output = optarg;
			break;
		case 'l':
			if (npu_cli_parse_u64(optarg, 0, 2, &v))
				return npu_cli_usage_error(prog, "--level: invalid value '%s': must be 0, 1 or 2",
							   optarg);
			o.level = (unsigned int)v;
			break;
		case 'p':
			if (npu_cli_parse_u64(optarg, 1, 4096, &v) || (v & (v - 1)))
				return npu_cli_usage_error(prog, "--pages: invalid value '%s': must be a power of two from 1 to 4096",
							   optarg);
			o.pages = (unsigned int)v;
			break;
		case 'a':
			o.all = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			return npc_help(&npc_cmd_record);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	if (optind >= argc)
		return npu_cli_usage_error(prog, "missing COMMAND to run");

	path = absolute(o.output);
	if (!path) {
		npc_err("%s: %s", o.output, strerror(errno));
		return EXIT_NPUPROF;
	}
	if (keep_old(path)) {
		free(path);
		return EXIT_NPUPROF;
	}
	if (set_env(&o, path)) {
		npc_err("setenv: %s", strerror(errno));
		free(path);
		return EXIT_NPUPROF;
	}
	st = run(argv + optind, &ran);
	if (ran)
		report(&o, path, argv[optind]);
	free(path);
	return st;
}

const struct npc_cmd npc_cmd_record = {
	.name = "record",
	.summary = "run a command and record its NPU profile into a trace file",
	.help = record_help,
	.run = record_main,
};
