// SPDX-License-Identifier: GPL-2.0-only
/*
 * analyze.c - `npuprof analyze`: MegEngine's profile_analyze over a trace
 * (npuprof_analyze()) and, with --breakdown, where each inference's
 * latency goes (npuprof_print_breakdown()). This file parses the command
 * line, with profile_analyze's options, and turns the library's errors
 * into messages and the exit status.
 *
 * Single-threaded; each command runs once per process.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npu_cli.h"

static const char analyze_help[] =
"NAME\n"
"    npuprof analyze - the slowest NPU operators and host spans, with MACs,\n"
"    GMAC/s, the share of the device's peak and GB/s; or where each\n"
"    inference's latency goes (--breakdown)\n"
"\n"
"SYNOPSIS\n"
"    npuprof analyze [-t N] [--type TYPE]... [--aggregate-by type|layer|shape]\n"
"                    [--aggregate sum|mean|max|min] [--order-by [+]COL]\n"
"                    [--min-time T] [--max-time T]\n"
"                    [--format table|csv|json|jsonl] [--wide] [[-i] FILE]\n"
"    npuprof analyze --breakdown [--format table|csv|json|jsonl] [[-i] FILE]\n"
"\n"
"DESCRIPTION\n"
"    Reads the trace FILE (default ./npuprof.data) and prints, as MegEngine's\n"
"    profile_analyze does, one row per NPU operator execution (OP records,\n"
"    trace level 2) and per host span, slowest first, with the columns:\n"
"\n"
"    name, where   opcode (CONV2D, ...) or span kind (Quantize, submit,\n"
"                  wait, inference, ...); npu or host\n"
"    count         records in the row (1, or the type's count)\n"
"    self_ns       self time: an operator's NPU Total; a span's duration\n"
"                  less its children's\n"
"    self_pct      of the total self time of every record kept\n"
"    cum_ns, cum_pct  self time added down the rows\n"
"    macs          multiply-accumulates (operators)\n"
"    gmac_s        macs / self_ns (GMAC/s)\n"
"    peak_pct      gmac_s of the device's peak, npu_info's macs_per_cycle\n"
"                  * clock_hz (one PE)\n"
"    iowait_ns     the operator's NPU IoWait (the device's DMA wait)\n"
"    iowait_pct    iowait_ns of self_ns\n"
"    contended_ns  IoWait that lay while another PE of the device was\n"
"                  executing, at least: max(0, IoWait - the time no other\n"
"                  PE ran); the PEs share the DRAM bandwidth, so this is\n"
"                  where their DMA can contend\n"
"    excess_ns     IoWait above the least the same operator (opcode,\n"
"                  op_index, bytes, MACs) waited in the trace: what\n"
"                  contention, or anything else, added to its best run\n"
"    bytes, gb_s   bytes moved by DMA, and bytes / self_ns (GB/s)\n"
"\n"
"    layer         the operator's layer (source node) name, when the\n"
"                  trace has its model's layer table; shown when a row\n"
"                  has one\n"
"\n"
"    Machine formats (and --wide) add overlap_ns (the time another PE\n"
"    was executing during the operator), minor, job_id, op_index, pe,\n"
"    start_ns, and the layer's op_type, in_shapes and out_shapes\n"
"    (\"u8[1,3,224,224] i8[32,3,3,3] i32[32]\"; \"\" without a table).\n"
"    The table ends with the IoWait of the NPU operator records kept,\n"
"    the contended part, the overlap and the excess.\n"
"\n"
"    --breakdown prints instead the latency breakdown of each inference:\n"
"    every ns of its wall time (its inference span) attributed once, by\n"
"    precedence, to CPU operators (Quantize, Lower, Unlower, Dequantize),\n"
"    other host work (outside the wait spans), queueing (the driver's\n"
"    submit to the device's start), NPU Run and NPU IoWait (device start\n"
"    to end, split in the ratio of the device's counts), completion\n"
"    delivery (device end to the driver's completion), waiting wake-up\n"
"    (completion to the end of the wait span) and unexplained wait (no\n"
"    device record); the parts add up exactly to the wall time. table and\n"
"    json print the sums, means and shares over the inferences and the\n"
"    NPU's idle time while the host was busy; csv and jsonl one row per\n"
"    inference. Documentation/npu/analysis.rst has the details.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The trace file, as the FILE operand. Default ./npuprof.data.\n"
"    -t, --top N\n"
"        Print the first N rows (default 20); 0 prints all (then without\n"
"        aggregation every record is kept in memory).\n"
"    --type TYPE\n"
"        Keep records of this type only (an opcode, a span kind, \"npu\"\n"
"        or \"host\", or a layer's name; any case). Repeatable.\n"
"    --aggregate-by type|layer|shape\n"
"        One row per type (the sum, unless --aggregate says otherwise);\n"
"        layer: per layer name of the operators whose model has a layer\n"
"        table; shape: per op_type and in_shapes of those (the layers\n"
"        that do the same work at the same shapes). Other operators and\n"
"        host spans stay by type. A sum or mean over records of several\n"
"        opcodes is named by them joined with + (CONV2D+PAD; \"mixed\"\n"
"        beyond 4 or 31 characters), and a layer column its records do\n"
"        not share (op_type, in_shapes, out_shapes) is \"mixed\".\n"
"    --aggregate sum|mean|max|min\n"
"        How a row's records are aggregated: sum and mean of self time,\n"
"        MACs and bytes; max and min: the record with the longest or\n"
"        shortest self time. Alone it implies --aggregate-by type.\n"
"    --order-by [+]COL\n"
"        Sort by time (the default), macs, gmacs, peak, bytes, gbps, count,\n"
"        name, iowait, contended or excess (also profile_analyze's\n"
"        computation, flops, memory, bandwidth); descending, ascending\n"
"        with a + prefix.\n"
"    --min-time T, --max-time T\n"
"        Keep records whose self time is at least / at most T: seconds as\n"
"        profile_analyze takes them (1e-4), or with a unit: 100us, 2ms,\n"
"        500ns, 1s.\n"
"    -f, --format table|csv|json|jsonl\n"
"        table (the default), csv (RFC 4180), json (one array) or jsonl.\n"
"    -w, --wide\n"
"        With the table format: every column, the machine ones too.\n"
"    -b, --breakdown\n"
"        Print the latency breakdown (see above).\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   Printed (a truncated FILE, or one with damaged\n"
"        chunks, which are skipped, too, with a warning).\n"
"    1   FILE cannot be read, is not a trace or is corrupt, or writing\n"
"        the output failed.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof analyze -t 5\n"
"    npuprof analyze -t 5 --aggregate-by type --aggregate sum\n"
"    npuprof analyze -t 10 --type npu --aggregate-by layer\n"
"    npuprof analyze -t 10 --aggregate-by shape --aggregate mean --wide\n"
"    npuprof analyze -t 5 --order-by bytes --min-time 1e-6 --type CONV2D\n"
"    npuprof analyze -t 10 --type npu --order-by excess\n"
"    npuprof analyze --breakdown\n"
"    npuprof analyze --breakdown --format csv > breakdown.csv\n";

int npc_parse_format(const char *prog, const char *s, unsigned int *format)
{
	static const struct {
		const char *name;
		unsigned int format;
	} f[] = {
		{ "table", NPUPROF_FORMAT_TABLE }, { "csv", NPUPROF_FORMAT_CSV },
		{ "json", NPUPROF_FORMAT_JSON }, { "jsonl", NPUPROF_FORMAT_JSONL },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(s, f[i].name)) {
			*format = f[i].format;
			return 0;
		}
	return npu_cli_usage_error(prog, "--format: invalid value '%s': must be table, csv, json or jsonl",
				   s);
}

/* "1e-4" (seconds), "100us", "2ms", "500ns", "1s" into ns */
static int parse_time(const char *s, int64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} u[] = { { "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
		  { "ns", 1 } };
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (!strcmp(end, u[i].unit)) {
			if (v * u[i].scale >= 9.2e18)
				return -ERANGE;
			*ns = llround(v * u[i].scale);
			return 0;
		}
	return -EINVAL;
}

#define MAX_TYPES	64

static int analyze_main(int argc, char **argv)
{
	enum { O_TYPE = 256, O_AGG_BY, O_AGG, O_ORDER, O_MIN, O_MAX };
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 't' },
		{ "type", required_argument, NULL, O_TYPE },
		{ "aggregate-by", required_argument, NULL, O_AGG_BY },
		{ "aggregate", required_argument, NULL, O_AGG },
		{ "order-by", required_argument, NULL, O_ORDER },
		{ "min-time", required_argument, NULL, O_MIN },
		{ "max-time", required_argument, NULL, O_MAX },
		{ "breakdown", no_argument, NULL, 'b' },
		{ "wide", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const aggs[] = { "", "sum", "mean", "max", "min" };
	/* enum npuprof_aggregate_by */
	static const char *const bys[] = { "type", "layer", "shape" };
	const char *prog = NPC_PROG " analyze", *input = NULL;
	const char *types[MAX_TYPES + 1] = { NULL };
	struct npuprof_analyze_opts o;
	unsigned int format = NPUPROF_FORMAT_TABLE, ntypes = 0, i;
	struct npuprof_trace *tr;
	bool breakdown = false, by_type = false, wide = false;
	uint64_t v;
	int c, ret;

	npuprof_analyze_opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:f:t:bwh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			if (npc_parse_format(prog, optarg, &format))
				return 2;
			break;
		case 't':
			if (npu_cli_parse_u64(optarg, 0, 1u << 24, &v))
				return npu_cli_usage_error(prog, "--top: invalid value '%s': must be 0..16777216",
							   optarg);
			o.top = (unsigned int)v;
			break;
		case O_TYPE:
			if (ntypes == MAX_TYPES)
				return npu_cli_usage_error(prog, "--type: at most %d", MAX_TYPES);
			types[ntypes++] = optarg;
			o.types = types;
			break;
		case O_AGG_BY:
			for (i = 0; i < 3 && strcmp(optarg, bys[i]); i++)
				;
			if (i == 3)
				return npu_cli_usage_error(prog, "--aggregate-by: invalid value '%s': must be type, layer or shape",
							   optarg);
			o.aggregate_by = i;
			by_type = true;
			break;
		case O_AGG:
			for (i = 1; i < 5 && strcmp(optarg, aggs[i]); i++)
				;
			if (i == 5)
				return npu_cli_usage_error(prog, "--aggregate: invalid value '%s': must be sum, mean, max or min",
							   optarg);
			o.aggregate = i;
			break;
		case O_ORDER:
			o.order_by = optarg;
			break;
		case O_MIN:
		case O_MAX:
			if (parse_time(optarg, c == O_MIN ? &o.min_ns : &o.max_ns))
				return npu_cli_usage_error(prog, "--%s: invalid time '%s' (seconds, or a number with ns, us, ms or s)",
							   c == O_MIN ? "min-time" : "max-time",
							   optarg);
			break;
		case 'b':
			breakdown = true;
			break;
		case 'w':
			wide = true;
			break;
		case 'h':
			return npc_help(&npc_cmd_analyze);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	ret = npc_file_operand(prog, argc, argv, &input);
	if (ret)
		return ret;
	if (by_type && !o.aggregate)
		o.aggregate = NPUPROF_AGG_SUM;
	if (wide && (breakdown || format != NPUPROF_FORMAT_TABLE))
		return npu_cli_usage_error(prog, "--wide is for the table format of the operators and spans");
	if (wide)
		format = NPUPROF_FORMAT_WIDE;
	tr = npc_open_trace(input);
	if (!tr)
		return 1;
	o.format = format;
	if (breakdown)
		ret = npuprof_print_breakdown(tr, stdout,
			NPUPROF_REPORT_OPTS(.format = format));
	else
		ret = npuprof_analyze(tr, stdout, &o);
	if (ret == -EINVAL && !breakdown) {
		npuprof_trace_close(tr);
		return npu_cli_usage_error(prog, "--order-by: invalid column '%s': must be [+]time, macs, gmacs, peak, bytes, gbps, count, name, iowait, contended or excess",
					   o.order_by ? o.order_by : "");
	}
	if (ret)
		ret = npc_trace_failed(tr, ret);
	npc_warn_damage(tr, input ? input : NPC_DEFAULT_FILE);
	if (!ret && npuprof_trace_truncated(tr))
		npc_warn("%s is truncated (the profiled program was killed): analyzed up to its last complete chunk",
			 input ? input : NPC_DEFAULT_FILE);
	if (!ret)
		npc_warn_skipped(tr);
	npuprof_trace_close(tr);
	return ret;
}

const struct npc_cmd npc_cmd_analyze = {
	.name = "analyze",
	.summary = "slowest operators and spans (profile_analyze); --breakdown",
	.help = analyze_help,
	.run = analyze_main,
};
