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
 *
 * With --bpf (record_bpf()), nothing is set in the traced program's
 * environment: npuprof itself opens a session on every device (every
 * process's jobs, no host spans of its own), attaches the eBPF probes of
 * tools/bpf to a running process (-p), to every process using libnpu
 * (--all) or to a command it launches (held on a pipe until the probes
 * are attached), and adds the spans they build to the session with
 * npuprof_session_add_span(). It stops on SIGINT, SIGTERM, SIGHUP, at
 * --duration, or when the traced process exits, detaching every probe.
 */
#include <dirent.h>
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

#include <time.h>

#include "cli.h"
#include "npu_cli.h"
#include "npubpf.h"

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
"    npuprof record --bpf [-o FILE] [-l N] [--pages N] [-d SEC] [-q]\n"
"                   [--uprobes] [--no-offcpu] [-T FILE]... [-v]\n"
"                   (-p PID | --all | [--] COMMAND [ARG]...)\n"
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
"  With --bpf\n"
"    Traces a program that was not started for profiling: a process already\n"
"    running (-p PID), every process using libnpu (--all), or COMMAND, which\n"
"    npuprof starts. No environment variable, rebuild or restart: npuprof\n"
"    loads eBPF programs (tools/bpf, Documentation/npu/bpf.rst) and\n"
"    attaches them to libnpu's USDT probes in the program (or, in a build\n"
"    without USDT notes, uprobes on libnpu's exported functions), to the\n"
"    driver's tracepoints npu_job_submit, npu_job_complete and\n"
"    npu_trace_lost, and to sched_switch (the off-CPU time of the threads\n"
"    that submit, while they wait for the NPU). The NPU records come from\n"
"    a trace ring npuprof opens on every device for every process's jobs\n"
"    (CAP_PERFMON or CAP_SYS_ADMIN, or trace_paranoid=0); the host spans\n"
"    the probes build go into the same FILE, as the library would have\n"
"    recorded them, so dump, summary, report, analyze and export read it\n"
"    as any other trace. Needs CAP_BPF and CAP_PERFMON (or root) and, for\n"
"    the off-CPU times, a kernel with BTF.\n"
"\n"
"    The traced libnpu is found in /proc/PID/maps and /proc/PID/exe (-p),\n"
"    in COMMAND's file and the libnpu.so.0 the dynamic linker would find\n"
"    first in LD_LIBRARY_PATH, npuprof's ../lib, /usr/local/lib and\n"
"    /usr/lib (COMMAND, --all), in the files of every process running when\n"
"    --all starts, and in each -T FILE: a program linked with libnpu.a and\n"
"    started later is traced by --all only when given with -T. The ring\n"
"    records every process's jobs: with -p or COMMAND, other processes\n"
"    using the NPU at the same time add executions that no host span\n"
"    joins, and so do jobs submitted before the probes were attached.\n"
"\n"
"    Capture stops on SIGINT (Ctrl-C), SIGTERM or SIGHUP, after --duration,\n"
"    or when the traced process (-p, COMMAND) exits: every probe is detached\n"
"    before npuprof reads the ring a last time and completes FILE. A\n"
"    signal sent to npuprof with kill(1) is passed on to COMMAND, as\n"
"    without --bpf; -p's process is left running. The report adds the\n"
"    probes' counts, e.g.\n"
"        npuprof: bpf: usdt probes, 22 links: 72 spans (0 labelled), 8 jobs\n"
"        submitted, 0 events dropped; off-CPU while waiting: 39 intervals,\n"
"        12.134 ms\n"
"    (the links are the probe sites in each file, the tracepoints and\n"
"    sched_switch; the off-CPU time is the sum of the intervals a thread\n"
"    that submitted spent switched out inside a wait for a job).\n"
"    and a warning when the BPF ring buffer overflowed.\n"
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
"        4096. Default: 256 (1 MiB with 4 KiB pages), grown at level 2 to\n"
"        up to 1024 within half of RLIMIT_MEMLOCK. A ring that fills up\n"
"        drops records and counts them exactly: raise N when the report\n"
"        shows ring-full losses.\n"
"    -a, --all\n"
"        Record every process's NPU jobs, not only COMMAND's. Needs\n"
"        CAP_PERFMON or CAP_SYS_ADMIN, or the npu module parameter\n"
"        trace_paranoid=0; without it the session fails and COMMAND runs\n"
"        unprofiled (libnpuprof says so on standard error).\n"
"    -q, --quiet\n"
"        No report unless something is wrong (the warnings stay).\n"
"    --bpf\n"
"        Record with eBPF probes (above). It must come before the other\n"
"        options: with it, -p is --pid and the ring size is --pages only.\n"
"    -p, --pid PID (--bpf)\n"
"        Trace the running process PID; stop when it exits.\n"
"    -a, --all (--bpf)\n"
"        Trace every process using libnpu, until a signal or --duration.\n"
"    -d, --duration SEC (--bpf)\n"
"        Stop after SEC seconds (a decimal number). Default: no limit.\n"
"        COMMAND runs on, untraced; npuprof waits for it and exits with\n"
"        its status.\n"
"    -T, --target FILE (--bpf)\n"
"        Also attach to FILE, a program linked with libnpu.a or a\n"
"        libnpu.so in an unusual place. May be repeated.\n"
"    --uprobes (--bpf)\n"
"        Use the uprobes on libnpu's exported functions even when the\n"
"        program has USDT notes.\n"
"    --no-offcpu (--bpf)\n"
"        Do not attach to sched_switch.\n"
"    -v, --verbose (--bpf)\n"
"        Print what is attached where, and libbpf's messages.\n"
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
"    With --bpf, -p or --all: 0 when FILE was completed, 1 when capture\n"
"    failed (probes or session: the message says why), 2 a usage error.\n"
"    125 also when the probes could not be loaded or attached before\n"
"    COMMAND would have run (COMMAND is then not run).\n"
"\n"
"ENVIRONMENT\n"
"    With --bpf nothing is set, and NPUPROF_OUTPUT_PATH is removed from\n"
"    COMMAND's environment (a session of its own would take its spans).\n"
"    Without --bpf, set for COMMAND:\n"
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
"        Every process's NPU jobs for 10 seconds.\n"
"    npuprof record --bpf -p $(pidof serve) -d 30 -o serve.npuprof\n"
"        30 seconds of a server that is already running, with its host\n"
"        spans and its jobs on one timeline; npuprof report serve.npuprof\n"
"        then shows its inferences and NPU executions.\n"
"    npuprof record --bpf -- npu-classify -m mobilenet-v1.nmdl -n 10 -q\n"
"        As the first example, without the environment variable.\n";

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
	/* 0: the library's automatic size, whatever the environment says */
	snprintf(num, sizeof(num), "%u", o->pages);
	if (o->pages ? setenv("NPUPROF_PAGES", num, 1) :
	    unsetenv("NPUPROF_PAGES"))
		return -1;
	return o->all ? setenv("NPUPROF_ALL", "1", 1) : unsetenv("NPUPROF_ALL");
}

/*
 * Fork and exec @argv; wait for it. Returns its exit status as a shell
 * computes it, 126/127 when it could not be executed (*@ran false), or
 * EXIT_NPUPROF.
 */
/*
 * In a forked child: execvp() @argv, or write its errno to @errfd (close
 * on exec) for the parent to report, and exit with the shell's status.
 */
static void __attribute__((noreturn)) exec_child(char **argv, int errfd)
{
	int err;

	execvp(argv[0], argv);
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(EXIT_NOEXEC);
	_exit(err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

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
		exec_child(argv, pfd[1]);
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
		npc_warn("%s: lost %" PRIu64 " host spans: a thread's span buffer was full at its cap (32 times its size, 8 MiB at most)",
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
	npc_warn_damage(tr, path);
	/* the summary of `npuprof summary`, on stderr as the rest */
	if (!o->quiet && ret == 0 &&
	    npuprof_print_summary(tr, stderr,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_TABLE)))
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

/* ---- record --bpf ---- */

struct bpf_rec {
	struct record_opts o;
	pid_t pid;			/* -p */
	double duration;		/* -d, 0: none */
	const char *targets[20];
	unsigned int ntargets;
	unsigned int flags;		/* NPUBPF_F_* */
	bool verbose;
	struct npuprof_session *sess;
	/* the run */
	bool have_cmd;			/* COMMAND given (cleared if not run) */
	char **cmd;			/* COMMAND and its arguments */
	const char *what;		/* what is recorded, for messages */
	char pidstr[32];
	char *path;			/* the output, absolute */
	struct npubpf *bpf;
	pid_t cpid;			/* COMMAND's process, 0 without */
	int go, errfd;			/* bpf_spawn()'s pipes, -1 closed */
	bool child_done;
	int rc;				/* the exit status */
};

static volatile sig_atomic_t bpf_stop_sig;

static void bpf_on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	bpf_stop_sig = sig;
	/* as without --bpf: kill(1) on npuprof reaches COMMAND too */
	if (child_pid > 0 && si->si_code != SI_KERNEL)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

static void bpf_log(void *ctx, int level, const char *msg)
{
	const struct bpf_rec *r = ctx;

	if (level <= NPUPROF_LOG_WARN)
		fprintf(stderr, "%s: %s%s\n", NPC_PROG,
			level == NPUPROF_LOG_ERROR ? "" : "warning: ", msg);
	else if (r->verbose)
		fprintf(stderr, "%s: %s\n", NPC_PROG, msg);
}

static int bpf_span(void *ctx, const struct npuprof_span_rec *rec,
		    const char *label)
{
	struct bpf_rec *r = ctx;

	return npuprof_session_add_span(r->sess, rec, label);
}

static int bpf_thread(void *ctx, int32_t pid, int32_t tid, const char *name)
{
	struct bpf_rec *r = ctx;

	return npuprof_session_add_thread(r->sess, pid, tid, name);
}

static void bpf_add_target(struct bpf_rec *r, const char *path)
{
	unsigned int i;

	for (i = 0; i < r->ntargets; i++)
		if (!strcmp(r->targets[i], path))
			return;
	if (r->ntargets + 1 < sizeof(r->targets) / sizeof(r->targets[0]))
		r->targets[r->ntargets++] = strdup(path);
	if (r->verbose)
		fprintf(stderr, "%s: target %s\n", NPC_PROG, path);
}

/* A target when @path holds libnpu (probes or functions) */
static void bpf_try_target(struct bpf_rec *r, const char *path)
{
	char real[PATH_MAX];

	if (!realpath(path, real))
		return;
	if (npubpf_target_has(real) > 0)
		bpf_add_target(r, real);
}

/* libnpu.so.0 and libnpuprof.so.0 where the dynamic linker looks */
static void bpf_lib_targets(struct bpf_rec *r)
{
	char self[PATH_MAX], dir[PATH_MAX + 16], path[PATH_MAX + 64];
	const char *fixed[] = { "/usr/local/lib", "/usr/lib/x86_64-linux-gnu",
				"/usr/lib", "/lib/x86_64-linux-gnu" };
	char *llp, *save = NULL, *d;
	ssize_t n;
	size_t i;

	llp = getenv("LD_LIBRARY_PATH") ? strdup(getenv("LD_LIBRARY_PATH")) : NULL;
	for (d = llp ? strtok_r(llp, ":", &save) : NULL; d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/libnpu.so.0", d);
		if (!access(path, R_OK))
			goto found;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		snprintf(dir, sizeof(dir), "%s/../lib", self);
		snprintf(path, sizeof(path), "%s/libnpu.so.0", dir);
		if (!access(path, R_OK))
			goto found;
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		snprintf(path, sizeof(path), "%s/libnpu.so.0", fixed[i]);
		if (!access(path, R_OK))
			goto found;
	}
	free(llp);
	return;
found:
	bpf_try_target(r, path);
	/* the labelled records' probe lives in libnpuprof, next to it */
	snprintf(strrchr(path, '/'), sizeof(path) - (strrchr(path, '/') - path),
		 "/libnpuprof.so.0");
	bpf_try_target(r, path);
	free(llp);
}

/* The files of process @pid that hold libnpu */
static int bpf_pid_targets(struct bpf_rec *r, pid_t pid, bool quiet)
{
	char path[64], line[PATH_MAX + 128], *f;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "re");
	if (!maps) {
		if (!quiet)
			npc_err("process %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), maps)) {
		line[strcspn(line, "\n")] = '\0';
		f = strchr(line, '/');
		if (!f || !strstr(f, "/libnpu"))
			continue;
		bpf_try_target(r, f);
	}
	fclose(maps);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	bpf_try_target(r, path);
	return 0;
}

/* --all: the files holding libnpu of every process running now */
static void bpf_running_targets(struct bpf_rec *r)
{
	struct dirent *d;
	char *end;
	DIR *proc;
	long pid;

	proc = opendir("/proc");
	if (!proc)
		return;
	while ((d = readdir(proc))) {
		pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		bpf_pid_targets(r, (pid_t)pid, true);
	}
	closedir(proc);
}

/* COMMAND's file, as execvp() finds it */
static void bpf_cmd_target(struct bpf_rec *r, const char *cmd)
{
	char path[PATH_MAX], *pathenv, *save = NULL, *d;

	if (strchr(cmd, '/')) {
		bpf_try_target(r, cmd);
		return;
	}
	pathenv = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	for (d = pathenv ? strtok_r(pathenv, ":", &save) : NULL; d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", *d ? d : ".", cmd);
		if (!access(path, X_OK)) {
			bpf_try_target(r, path);
			break;
		}
	}
	free(pathenv);
}

/*
 * Fork COMMAND, held before exec until *@go is written to (EOF: give
 * up). Returns its pid, or -1.
 */
static pid_t bpf_spawn(char **argv, int *go, int *errfd)
{
	int gp[2], ep[2];
	char c;
	pid_t pid;

	if (pipe2(gp, O_CLOEXEC)) {
		npc_err("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		npc_err("pipe: %s", strerror(errno));
		goto fail_gp;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		npc_err("fork: %s", strerror(errno));
		close(ep[0]);
		close(ep[1]);
		goto fail_gp;
	}
	if (!pid) {
		set_handlers(NULL);
		close(gp[1]);
		close(ep[0]);
		if (read(gp[0], &c, 1) != 1)
			_exit(EXIT_NPUPROF);
		unsetenv("NPUPROF_OUTPUT_PATH");
		exec_child(argv, ep[1]);
	}
	close(gp[0]);
	close(ep[1]);
	*go = gp[1];
	*errfd = ep[0];
	return pid;
fail_gp:
	close(gp[0]);
	close(gp[1]);
	return -1;
}

/* The probes' totals as metadata and, unless quiet, on stderr */
static void bpf_summary(struct bpf_rec *r, const struct npubpf_stats *st)
{
	static const char *const src[] = { "none", "usdt", "uprobes" };
	char v[64], b1[NPC_FMT_LEN];

	npuprof_session_add_meta(r->sess, "bpf.source",
				 src[st->source < 3 ? st->source : 0]);
	snprintf(v, sizeof(v), "%" PRIu64, st->spans);
	npuprof_session_add_meta(r->sess, "bpf.spans", v);
	snprintf(v, sizeof(v), "%" PRIu64, st->dropped);
	npuprof_session_add_meta(r->sess, "bpf.dropped", v);
	snprintf(v, sizeof(v), "%" PRIu64, st->offcpu_ns);
	npuprof_session_add_meta(r->sess, "bpf.offcpu_ns", v);
	snprintf(v, sizeof(v), "%" PRIu64, st->offcpu_wait_ns);
	npuprof_session_add_meta(r->sess, "bpf.offcpu_wait_ns", v);
	snprintf(v, sizeof(v), "%" PRIu64, st->offcpu_waits);
	npuprof_session_add_meta(r->sess, "bpf.offcpu_waits", v);
	if (!r->o.quiet)
		fprintf(stderr,
			"%s: bpf: %s probes, %u links: %" PRIu64 " spans (%" PRIu64
			" labelled), %" PRIu64 " jobs submitted, %" PRIu64
			" events dropped; off-CPU while waiting: %" PRIu64
			" intervals, %s\n", NPC_PROG,
			src[st->source < 3 ? st->source : 0], st->links, st->spans,
			st->labels, st->submits, st->dropped, st->offcpu_waits,
			npc_fmt_dur(b1, (int64_t)st->offcpu_wait_ns));
	if (st->dropped)
		npc_warn("bpf: %" PRIu64 " probe events were dropped: the BPF ring buffer was full; spans are missing",
			 st->dropped);
	if (st->unmatched && r->verbose)
		fprintf(stderr, "%s: bpf: %" PRIu64 " uprobe events matched no open call (calls under way at attach)\n",
			NPC_PROG, st->unmatched);
}

/* Parse record --bpf's options into @r; -1 to go on, else the exit status */
static int bpf_parse(int argc, char **argv, struct bpf_rec *r)
{
	static const struct option lopts[] = {
		{ "bpf", no_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "level", required_argument, NULL, 'l' },
		{ "pages", required_argument, NULL, 'P' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "target", required_argument, NULL, 'T' },
		{ "uprobes", no_argument, NULL, 'U' },
		{ "no-offcpu", no_argument, NULL, 'N' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = NPC_PROG " record --bpf";
	char *end;
	uint64_t v;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:l:p:ad:T:vqh", lopts, NULL)) != -1) {
		switch (c) {
		case 'B':
			break;
		case 'o':
			if (!*optarg)
				return npu_cli_usage_error(prog, "--output: empty file name");
			r->o.output = optarg;
			break;
		case 'l':
			if (npu_cli_parse_u64(optarg, 0, 2, &v))
				return npu_cli_usage_error(prog, "--level: invalid value '%s': must be 0, 1 or 2",
							   optarg);
			r->o.level = (unsigned int)v;
			break;
		case 'P':
			if (npu_cli_parse_u64(optarg, 1, 4096, &v) || (v & (v - 1)))
				return npu_cli_usage_error(prog, "--pages: invalid value '%s': must be a power of two from 1 to 4096",
							   optarg);
			r->o.pages = (unsigned int)v;
			break;
		case 'p':
			if (npu_cli_parse_u64(optarg, 1, INT32_MAX, &v))
				return npu_cli_usage_error(prog, "--pid: invalid value '%s'", optarg);
			r->pid = (pid_t)v;
			break;
		case 'a':
			r->o.all = true;
			break;
		case 'd':
			errno = 0;
			r->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(r->duration > 0) ||
			    r->duration > 1e9)
				return npu_cli_usage_error(prog, "--duration: invalid value '%s': seconds, more than 0",
							   optarg);
			break;
		case 'T':
			if (r->ntargets + 2 >= sizeof(r->targets) / sizeof(r->targets[0]))
				return npu_cli_usage_error(prog, "--target: too many");
			if (npubpf_target_has(optarg) <= 0)
				return npu_cli_usage_error(prog, "--target %s: not an ELF file holding libnpu's probes or functions",
							   optarg);
			bpf_add_target(r, optarg);
			break;
		case 'U':
			r->flags |= NPUBPF_F_UPROBES;
			break;
		case 'N':
			r->flags |= NPUBPF_F_NO_OFFCPU;
			break;
		case 'v':
			r->verbose = true;
			break;
		case 'q':
			r->o.quiet = true;
			break;
		case 'h':
			return npc_help(&npc_cmd_record);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	r->have_cmd = optind < argc;
	if ((r->pid > 0) + r->o.all + r->have_cmd != 1)
		return npu_cli_usage_error(prog, "give one of -p PID, --all or COMMAND");
	r->cmd = r->have_cmd ? argv + optind : NULL;
	return -1;
}

/* The libnpu files to attach to, and r->what; 0 or -1 (said why) */
static int bpf_targets(struct bpf_rec *r)
{
	if (r->pid > 0) {
		if (bpf_pid_targets(r, r->pid, false))
			return -1;
		snprintf(r->pidstr, sizeof(r->pidstr), "process %d", (int)r->pid);
		r->what = r->pidstr;
	} else if (r->o.all) {
		bpf_lib_targets(r);
		bpf_running_targets(r);
		r->what = "--all";
	} else {
		bpf_cmd_target(r, r->cmd[0]);
		bpf_lib_targets(r);
		r->what = r->cmd[0];
	}
	if (!r->ntargets) {
		npc_err("found no libnpu to attach to in %s (give its file with --target)",
			r->what);
		return -1;
	}
	r->targets[r->ntargets] = NULL;
	return 0;
}

/* The session: every device, every process's jobs, no own spans */
static int bpf_session(struct bpf_rec *r)
{
	struct npuprof_opts so;
	int ret;

	npuprof_opts_init(&so);
	so.output = r->path;
	so.level = (int)r->o.level;
	so.ring_pages = r->o.pages;
	so.flags = NPUPROF_F_ALL_PROCESSES | NPUPROF_F_NO_HOST_SPANS;
	ret = npuprof_session_create(&so, &r->sess);
	if (ret)
		npc_err("cannot open the NPU trace: %s%s", strerror(-ret),
			ret == -EACCES ? " (every process's jobs need CAP_PERFMON or CAP_SYS_ADMIN, or npu's trace_paranoid=0)" :
			ret == -ENOENT ? " (no /dev/npu* device: is npu.ko loaded and bound?)" : "");
	return ret;
}

/* Start the session and attach the probes; 0 or -1 (said why) */
static int bpf_attach(struct bpf_rec *r)
{
	struct npubpf_opts bo;
	int ret;

	memset(&bo, 0, sizeof(bo));
	bo.sz = sizeof(bo);
	bo.pid = r->pid > 0 ? r->pid : r->cpid;
	bo.targets = r->targets;
	bo.flags = r->flags;
	bo.span = bpf_span;
	bo.thread = bpf_thread;
	bo.ctx = r;
	bo.log = bpf_log;
	bo.log_ctx = r;
	bo.verbose = r->verbose;
	ret = npuprof_session_start(r->sess);
	if (ret) {
		npc_err("cannot start the NPU trace: %s", strerror(-ret));
		return -1;
	}
	return npubpf_open(&bo, &r->bpf) ? -1 : 0;
}

/* COMMAND's status as a shell gives it */
static int bpf_status(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				     WEXITSTATUS(status);
}

static void bpf_reap(struct bpf_rec *r, int *status)
{
	while (waitpid(r->cpid, status, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
}

/*
 * The probes are in place: let COMMAND run, and learn whether it could be
 * executed. 0 (r->child_done and r->rc set when it could not) or -1.
 */
static int bpf_release(struct bpf_rec *r)
{
	ssize_t n;
	int err, status;

	if (write(r->go, "g", 1) != 1) {
		npc_err("cannot start %s: %s", r->cmd[0], strerror(errno));
		return -1;
	}
	close(r->go);
	r->go = -1;
	do {
		n = read(r->errfd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(r->errfd);
	r->errfd = -1;
	if (n == (ssize_t)sizeof(err)) {
		npc_err("%s: %s", r->cmd[0], err == ENOENT ?
			"command not found" : strerror(err));
		r->rc = err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
		r->have_cmd = false;	/* rc stays */
		r->child_done = true;
		bpf_reap(r, &status);
	}
	return 0;
}

/* Poll the probes until a signal, --duration, COMMAND's or PID's end */
static void bpf_loop(struct bpf_rec *r)
{
	uint64_t deadline = 0;
	int ret, status;

	if (r->duration > 0)
		deadline = npc_now_ns() + (uint64_t)(r->duration * 1e9);
	while (!bpf_stop_sig && !r->child_done) {
		int ms = 100;

		if (deadline) {
			uint64_t now = npc_now_ns();

			if (now >= deadline)
				break;
			if ((deadline - now) / 1000000 < (uint64_t)ms)
				ms = (int)((deadline - now) / 1000000) + 1;
		}
		ret = npubpf_poll(r->bpf, ms);
		if (ret < 0 && ret != -EINTR) {
			npc_err("reading the probes' events: %s", strerror(-ret));
			break;
		}
		if (r->cpid > 0 && waitpid(r->cpid, &status, WNOHANG) == r->cpid) {
			r->child_done = true;
			child_pid = 0;
			r->rc = bpf_status(status);
		}
		if (r->pid > 0 && kill(r->pid, 0) && errno == ESRCH)
			break;
	}
}

/* Detach, complete the file, wait for COMMAND; 0 when the file is whole */
static int bpf_finish(struct bpf_rec *r)
{
	struct npubpf_stats st;
	int ret, status;

	/* detach everything, then take what the ring buffer still holds */
	ret = npubpf_detach(r->bpf);
	if (ret)
		npc_err("adding the probes' spans: %s", strerror(-ret));
	st.sz = sizeof(st);
	npubpf_stats(r->bpf, &st);
	bpf_summary(r, &st);
	ret = npuprof_session_stop(r->sess);
	if (ret)
		npc_err("%s: cannot complete the trace: %s", r->path,
			strerror(-ret));
	else if (!r->have_cmd && !r->child_done)
		r->rc = 0;
	if (r->cpid > 0 && !r->child_done) {
		/* a signal or --duration stopped us: wait for COMMAND */
		bpf_reap(r, &status);
		r->rc = bpf_status(status);
	}
	return ret;
}

static int record_bpf(int argc, char **argv)
{
	struct bpf_rec r = { .o = { .output = NPC_DEFAULT_FILE,
				    .level = NPUPROF_DEFAULT_LEVEL,
				    .pages = 0 },
			     .go = -1, .errfd = -1, .rc = 1 };
	unsigned int i;
	int ret, status;

	ret = bpf_parse(argc, argv, &r);
	if (ret >= 0)
		return ret;
	if (bpf_targets(&r))
		return r.have_cmd ? EXIT_NPUPROF : 1;
	r.path = absolute(r.o.output);
	if (!r.path || keep_old(r.path)) {
		if (!r.path)
			npc_err("%s: %s", r.o.output, strerror(errno));
		ret = -1;
		goto out;
	}
	ret = bpf_session(&r);
	if (ret)
		goto out;
	/* signals: stop; kill(1) on npuprof reaches COMMAND */
	set_handlers(bpf_on_signal);
	if (r.have_cmd) {
		r.cpid = bpf_spawn(r.cmd, &r.go, &r.errfd);
		if (r.cpid < 0)
			goto out;
		child_pid = r.cpid;
	}
	if (bpf_attach(&r) || (r.have_cmd && bpf_release(&r))) {
		ret = -1;
		goto out;
	}
	if (!r.o.quiet)
		fprintf(stderr, "%s: recording %s with eBPF probes; Ctrl-C stops\n",
			NPC_PROG, r.o.all ? "every process using libnpu" : r.what);
	bpf_loop(&r);
	ret = bpf_finish(&r);
	npubpf_close(r.bpf);
	npuprof_session_free(r.sess);
	if (!ret)
		report(&r.o, r.path, r.have_cmd ? r.cmd[0] : r.what);
	goto done;
out:
	if (r.go >= 0)
		close(r.go);		/* COMMAND gives up: EOF before exec */
	if (r.errfd >= 0)
		close(r.errfd);
	if (r.cpid > 0)
		bpf_reap(&r, &status);
	npubpf_close(r.bpf);
	npuprof_session_free(r.sess);
	r.rc = r.have_cmd ? EXIT_NPUPROF : 1;
done:
	for (i = 0; i < r.ntargets; i++)
		free((char *)r.targets[i]);
	free(r.path);
	return r.rc;
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
				 .pages = 0 };
	const char *prog = NPC_PROG " record";
	char *path;
	uint64_t v;
	bool ran;
	int c, st;

	if (argc > 1 && !strcmp(argv[1], "--bpf"))
		return record_bpf(argc, argv);
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
