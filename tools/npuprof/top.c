// SPDX-License-Identifier: GPL-2.0-only
/*
 * top.c - `npuprof top`: a live view of every NPU from the netlink family
 * "npu": per PE utilization, jobs/s and DMA GB/s from the differences of
 * two stats-get dumps, trace loss per device, and the latest events (job
 * errors and timeouts, resets, trace overflows, devices coming and going).
 * Quits on q or SIGINT/SIGTERM, restoring the terminal; -b prints frames
 * one after the other for scripts and tests.
 *
 * Single-threaded; each command runs once per process. The terminal state
 * saved at start is the one global (restored by top_restore()).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "libnpu.h"
#include "npu_cli.h"

#define TOP_DEV_MAX	16
#define TOP_EV_SHOWN	5

static const char top_help[] =
"NAME\n"
"    npuprof top - a live view of the NPUs: utilization, jobs, DMA, loss\n"
"\n"
"SYNOPSIS\n"
"    npuprof top [--delay SECS] [--iterations N] [--batch]\n"
"\n"
"DESCRIPTION\n"
"    Shows every NPU that npu.ko has bound, refreshed every --delay\n"
"    seconds from the driver's generic netlink family \"npu\"\n"
"    (Documentation/npu/netlink.rst); no access to /dev/npuN is needed.\n"
"    For each device, its trace records lost per second and resets; its\n"
"    memory: bytes held by buffers now and at the peak, the largest free\n"
"    extent against the free bytes, buffers allocated per second and\n"
"    failed allocations (ENOMEM, EDQUOT) in the interval; and for each\n"
"    of its processing elements (PEs), over the last interval:\n"
"\n"
"    UTIL%   device busy time of the PE's jobs / the interval\n"
"    JOBS/S  jobs completed per second\n"
"    FAIL/S  jobs failed per second (errors, aborts, timeouts)\n"
"    GB/S    DMA bytes per second, in 10^9; the device reports DMA in its\n"
"            trace records only, so this counts jobs run while a trace\n"
"            ring of the device is enabled (e.g. under npuprof record)\n"
"\n"
"    Below, the latest events of the \"events\" group: job errors and\n"
"    timeouts, device resets, trace overflows, devices added and removed.\n"
"    The first frame comes after one interval.\n"
"\n"
"    Interactive (standard input a terminal, no --batch): the screen is\n"
"    redrawn in place; q quits. SIGINT and SIGTERM quit too, and the\n"
"    terminal is restored.\n"
"\n"
"OPTIONS\n"
"    -d, --delay SECS\n"
"        Seconds between frames, 0.1 to 3600 (default 1).\n"
"    -n, --iterations N\n"
"        Quit after N frames (default 0: until q or a signal).\n"
"    -b, --batch\n"
"        Print the frames one after the other, without clearing the\n"
"        screen or reading the keyboard.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   Quit by q, a signal or after --iterations frames.\n"
"    1   The family \"npu\" is not registered (npu.ko is not loaded), or a\n"
"        request failed.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof top\n"
"    npuprof top -b -n 5 -d 0.5 > npu-top.log\n";

static volatile sig_atomic_t top_stop;
static struct termios top_saved;
static bool top_raw;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void top_restore(void)
{
	if (top_raw)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &top_saved);
	top_raw = false;
}

/* Keys without Enter and without echo; restored at exit. */
static void top_keyboard(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &top_saved))
		return;
	t = top_saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSAFLUSH, &t)) {
		top_raw = true;
		atexit(top_restore);
	}
}

static const char *top_event_name(uint32_t type)
{
	switch (type) {
	case NPU_CMD_DEV_ADD_NTF:
		return "device added";
	case NPU_CMD_DEV_DEL_NTF:
		return "device removed";
	case NPU_CMD_JOB_ERROR_NTF:
		return "job error";
	case NPU_CMD_JOB_TIMEOUT_NTF:
		return "job timeout";
	case NPU_CMD_DEV_RESET_NTF:
		return "device reset";
	case NPU_CMD_TRACE_OVERFLOW_NTF:
		return "trace overflow";
	default:
		return "event";
	}
}

struct top {
	struct npu_nl *nl;
	struct npu_nl_stats prev[TOP_DEV_MAX], cur[TOP_DEV_MAX];
	int nprev, ncur;
	uint64_t prev_ns, cur_ns;
	char ev[TOP_EV_SHOWN][128];
	unsigned int nev;		/* events seen, the last ones in @ev */
	bool lost_events;
};

/* Read every pending event into the list of the latest. */
static int top_read_events(struct top *t)
{
	struct npu_nl_event ev;
	char *line;
	int ret;

	while ((ret = npu_nl_event_read(t->nl, &ev)) != -EAGAIN) {
		if (ret == -ENOBUFS) {
			t->lost_events = true;
			continue;
		}
		if (ret)
			return ret;
		line = t->ev[t->nev++ % TOP_EV_SHOWN];
		if (ev.type == NPU_CMD_JOB_ERROR_NTF ||
		    ev.type == NPU_CMD_JOB_TIMEOUT_NTF)
			snprintf(line, 128, "npu%u %s: job %" PRIu64 " on PE %u, status %u, pid %u",
				 ev.dev_index, top_event_name(ev.type),
				 ev.job_id, ev.pe, ev.status, ev.pid);
		else if (ev.type == NPU_CMD_TRACE_OVERFLOW_NTF)
			snprintf(line, 128, "npu%u %s: ring %" PRIu64 " lost %" PRIu64 " records",
				 ev.dev_index, top_event_name(ev.type),
				 ev.ring_id, ev.lost);
		else
			snprintf(line, 128, "npu%u %s", ev.dev_index,
				 top_event_name(ev.type));
	}
	return 0;
}

static double top_rate(uint64_t a, uint64_t b, double secs)
{
	return b >= a && secs > 0 ? (double)(b - a) / secs : 0;
}

static void top_print_pe(const struct npu_nl_pe_stats *a,
			 const struct npu_nl_pe_stats *b, unsigned int pe,
			 double secs)
{
	printf("  PE %-3u %6.1f %10.1f %8.1f %8.3f\n", pe,
	       100.0 * top_rate(a->busy_ns, b->busy_ns, secs) / 1e9,
	       top_rate(a->jobs_completed, b->jobs_completed, secs),
	       top_rate(a->jobs_failed, b->jobs_failed, secs),
	       top_rate(a->dma_bytes, b->dma_bytes, secs) / 1e9);
}

/* The device's memory: now, peak, fragmentation, allocation rate. */
static void top_print_mem(const struct npu_nl_mem_stats *a,
			  const struct npu_nl_mem_stats *b, double secs)
{
	char used[32], peak[32], lfree[32], avail[32];

	printf("  mem %s, peak %s, largest free %s of %s, allocs/s %.1f, alloc fails %" PRIu64 "\n",
	       npc_fmt_bytes(used, b->used), npc_fmt_bytes(peak, b->peak),
	       npc_fmt_bytes(lfree, b->largest_free),
	       npc_fmt_bytes(avail, b->free),
	       top_rate(a->allocs, b->allocs, secs),
	       b->fail_nomem + b->fail_quota - a->fail_nomem - a->fail_quota);
}

static void top_frame(struct top *t, bool clear)
{
	double secs = (double)(t->cur_ns - t->prev_ns) / 1e9;
	unsigned int i, n;
	int d;

	if (clear)
		fputs("\033[H\033[2J", stdout);
	printf("npuprof top: %d device%s, interval %.2f s\n", t->ncur,
	       t->ncur == 1 ? "" : "s", secs);
	for (d = 0; d < t->ncur; d++) {
		const struct npu_nl_stats *b = &t->cur[d];
		const struct npu_nl_stats *a = npc_nl_stats_find(t->prev, t->nprev,
								 b->index);

		if (!a)
			a = b;	/* new: no difference yet */
		printf("npu%-3u trace lost/s %.1f, resets %" PRIu64 "\n",
		       b->index, top_rate(a->trace_lost, b->trace_lost, secs),
		       b->resets);
		if (b->has_mem)
			top_print_mem(&a->mem, &b->mem, secs);
		printf("  %-6s %6s %10s %8s %8s\n", "PE", "UTIL%", "JOBS/S",
		       "FAIL/S", "GB/S");
		for (i = 0; i < b->pe_count; i++)
			top_print_pe(i < a->pe_count ? &a->pe[i] : &b->pe[i],
				     &b->pe[i], i, secs);
	}
	printf("events%s:\n", t->lost_events ? " (some lost: reader too slow)" : "");
	n = t->nev < TOP_EV_SHOWN ? t->nev : TOP_EV_SHOWN;
	for (i = 0; i < n; i++)
		printf("  %s\n", t->ev[(t->nev - n + i) % TOP_EV_SHOWN]);
	if (!n)
		printf("  (none)\n");
	if (clear)
		printf("\n(q quits)\n");
	else
		putchar('\n');
	fflush(stdout);
}

static int top_sample(struct top *t)
{
	int n = npu_nl_stats_list(t->nl, t->cur, TOP_DEV_MAX);

	if (n < 0)
		return n;
	t->ncur = n < TOP_DEV_MAX ? n : TOP_DEV_MAX;
	t->cur_ns = npc_now_ns();
	return 0;
}

/* Wait until @deadline for keys and events; 1 when asked to quit. */
static int top_wait(struct top *t, uint64_t deadline, bool keys)
{
	struct pollfd pfd[2] = {
		{ .fd = npu_nl_event_fd(t->nl), .events = POLLIN },
		{ .fd = STDIN_FILENO, .events = POLLIN },
	};
	uint64_t now;
	char c;
	int ret;

	while (!top_stop && (now = npc_now_ns()) < deadline) {
		ret = poll(pfd, keys ? 2 : 1,
			   (int)((deadline - now + 999999) / 1000000));
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret <= 0)
			continue;
		if ((pfd[0].revents & POLLIN) && (ret = top_read_events(t)))
			return ret;
		if (keys && (pfd[1].revents & (POLLIN | POLLHUP))) {
			if (read(STDIN_FILENO, &c, 1) != 1 || c == 'q' ||
			    c == 'Q')
				return 1;
		}
	}
	return top_stop ? 1 : 0;
}

static int top_run(struct top *t, uint64_t delay_ns, uint64_t iterations,
		   bool batch)
{
	bool keys = !batch && isatty(STDIN_FILENO);
	uint64_t frames = 0;
	int ret;

	if (keys)
		top_keyboard();
	ret = top_sample(t);
	while (!ret) {
		memcpy(t->prev, t->cur, sizeof(t->prev));
		t->nprev = t->ncur;
		t->prev_ns = t->cur_ns;
		ret = top_wait(t, t->prev_ns + delay_ns, keys);
		if (ret)
			break;
		ret = top_sample(t);
		if (ret)
			break;
		top_frame(t, !batch);
		if (iterations && ++frames == iterations)
			break;
	}
	top_restore();
	return ret < 0 ? ret : 0;
}

static int top_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "batch", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = NPC_PROG " top";
	struct sigaction sa;
	uint64_t iterations = 0;
	double delay = 1.0;
	struct top *t;
	bool batch = false;
	char *end;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":d:n:bh", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			errno = 0;
			delay = strtod(optarg, &end);
			if (end == optarg || *end || errno ||
			    !(delay >= 0.1 && delay <= 3600))
				return npu_cli_usage_error(prog, "--delay: invalid value '%s': must be 0.1..3600",
							   optarg);
			break;
		case 'n':
			if (npu_cli_parse_u64(optarg, 0, UINT32_MAX, &iterations))
				return npu_cli_usage_error(prog, "--iterations: invalid value '%s'",
							   optarg);
			break;
		case 'b':
			batch = true;
			break;
		case 'h':
			return npc_help(&npc_cmd_top);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	if (optind < argc)
		return npu_cli_usage_error(prog, "unexpected argument '%s'",
					   argv[optind]);

	t = calloc(1, sizeof(*t));
	if (!t) {
		npc_err("top: %s", strerror(ENOMEM));
		return 1;
	}
	ret = npc_nl_open("top", &t->nl);
	if (!ret) {
		ret = npu_nl_subscribe(t->nl);
		if (ret)
			npc_err("top: joining the events group: %s",
				strerror(-ret));
	}
	if (ret) {
		npu_nl_close(t->nl);
		free(t);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = top_signal;	/* no SA_RESTART: poll() returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	ret = top_run(t, (uint64_t)(delay * 1e9), iterations, batch);
	if (ret)
		npc_err("top: %s%s%s", strerror(-ret),
			npu_nl_extack(t->nl)[0] ? ": " : "",
			npu_nl_extack(t->nl));
	npu_nl_close(t->nl);
	free(t);
	return ret ? 1 : 0;
}

const struct npc_cmd npc_cmd_top = {
	.name = "top",
	.summary = "a live view of the NPUs: utilization, jobs, DMA, loss",
	.help = top_help,
	.run = top_main,
};
