// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff.c - `npuprof diff A B`: what changed between two traces, per
 * phase of the latency breakdown and per operator type (npuprof_diff()),
 * with --fail-above PCT for CI (exit status 3 on a larger regression).
 *
 * Single-threaded; each command runs once per process.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npu_cli.h"

static const char diff_help[] =
"NAME\n"
"    npuprof diff - what got faster or slower from trace A to trace B\n"
"\n"
"SYNOPSIS\n"
"    npuprof diff [--format table|csv|json|jsonl] [--fail-above PCT]\n"
"                 [--min-delta NS] A B\n"
"\n"
"DESCRIPTION\n"
"    Compares two trace files: the mean inference latency, the mean of\n"
"    each part of the latency breakdown per inference (see \"npuprof help\n"
"    analyze\", --breakdown) and the mean self time of each NPU operator\n"
"    type and host span kind. One row each, with kind (latency, phase,\n"
"    npu, host), name, a_ns, b_ns, delta_ns (b - a), delta_pct (of a) and\n"
"    the counts in each trace, the largest absolute change first. A row\n"
"    present in one trace only has no delta.\n"
"\n"
"OPTIONS\n"
"    -f, --format table|csv|json|jsonl\n"
"        table (the default), csv (RFC 4180), json (one array) or jsonl.\n"
"    --fail-above PCT\n"
"        Exit with status 3 when a row present in both traces got slower\n"
"        by more than PCT percent (a regression), after printing.\n"
"    --min-delta NS\n"
"        With --fail-above: ignore increases smaller than NS ns (noise).\n"
"        Default 0.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   Printed, no regression above --fail-above.\n"
"    1   A file cannot be read, is not a trace or is corrupt, or writing\n"
"        the output failed.\n"
"    2   A usage error.\n"
"    3   A regression larger than --fail-above PCT.\n"
"\n"
"EXAMPLES\n"
"    npuprof diff before.npuprof after.npuprof\n"
"    npuprof diff --fail-above 10 --min-delta 1000 base.npuprof new.npuprof\n";

static int diff_main(int argc, char **argv)
{
	enum { O_FAIL = 256, O_MIN };
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "fail-above", required_argument, NULL, O_FAIL },
		{ "min-delta", required_argument, NULL, O_MIN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = NPC_PROG " diff";
	unsigned int format = NPUPROF_FORMAT_TABLE;
	struct npuprof_trace *a = NULL, *b = NULL;
	double fail = -1, worst = 0;
	uint64_t min_delta = 0;
	char *end;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (npc_parse_format(prog, optarg, &format))
				return 2;
			break;
		case O_FAIL:
			errno = 0;
			fail = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(fail >= 0))
				return npu_cli_usage_error(prog, "--fail-above: invalid percentage '%s'",
							   optarg);
			break;
		case O_MIN:
			if (npu_cli_parse_u64(optarg, 0, INT64_MAX, &min_delta))
				return npu_cli_usage_error(prog, "--min-delta: invalid value '%s'",
							   optarg);
			break;
		case 'h':
			return npc_help(&npc_cmd_diff);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	if (argc - optind != 2)
		return npu_cli_usage_error(prog, "two trace files expected, A and B");
	a = npc_open_trace(argv[optind]);
	if (a)
		b = npc_open_trace(argv[optind + 1]);
	if (!a || !b) {
		npuprof_trace_close(a);
		return 1;
	}
	ret = npuprof_diff(a, b, stdout,
		NPUPROF_REPORT_OPTS(.format = format,
			.min_delta_ns = (int64_t)min_delta), &worst);
	npc_warn_damage(a, argv[optind]);
	npc_warn_damage(b, argv[optind + 1]);
	if (ret) {
		/* name the trace whose error it was */
		ret = npc_trace_failed(npuprof_trace_error(a)[0] ? a : b, ret);
	} else if (fail >= 0 && worst > fail) {
		fprintf(stderr, "%s: regression: +%.2f%% > --fail-above %g%%\n",
			prog, worst, fail);
		ret = 3;
	}
	npuprof_trace_close(a);
	npuprof_trace_close(b);
	return ret;
}

const struct npc_cmd npc_cmd_diff = {
	.name = "diff",
	.summary = "the change per phase and operator between two traces",
	.help = diff_help,
	.run = diff_main,
};
