// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - `npuprof summary` and `npuprof report`: the summary and the
 * tables of the reference documents (print_summary, print_inferences,
 * print_npu_executions, print_npu_operators, print_external_operators)
 * computed from a trace file by the library (npuprof_print_summary(),
 * npuprof_report()). This file parses the command line and turns the
 * library's errors into messages naming the file and offset and into the
 * exit status.
 *
 * Single-threaded; each command runs once per process.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npu_cli.h"

static const char summary_help[] =
"NAME\n"
"    npuprof summary - inference latency statistics and the trace's totals\n"
"\n"
"SYNOPSIS\n"
"    npuprof summary [--format table|json] [[-i] FILE]\n"
"\n"
"DESCRIPTION\n"
"    Reads the trace FILE (default ./npuprof.data) and prints, as the\n"
"    reference profiler's print_summary() does, the number of inferences\n"
"    (INFERENCE spans: acquire to release of an inference context) and the\n"
"    minimum, maximum, mean, median and the 90, 95, 97, 99 and 99.9th\n"
"    percentiles of their latency in ns:\n"
"\n"
"    ================================================\n"
"      Inference Results Summary\n"
"    ================================================\n"
"    Inference counts                : 4\n"
"    Min latency (ns)                : 1584494\n"
"    ...\n"
"    99.9 percentile latency (ns)    : 3024561\n"
"\n"
"    then the totals of the trace: NPU executions (and how many were\n"
"    joined to the host span that submitted them), submit spans that\n"
"    never got an execution, operator records, host spans, records and\n"
"    spans lost, the bound of the device clock fit, causality violations\n"
"    (executions whose device interval is not inside their host submit to\n"
"    completion interval), device records whose ticks do not add up, and\n"
"    whether the file was truncated.\n"
"\n"
"    Percentiles are exact: every latency is kept (8 bytes per inference)\n"
"    and the p-th percentile is the linear interpolation between the two\n"
"    closest ranks, x[k] + (x[k+1] - x[k]) * f where k + f = p/100 * (n-1)\n"
"    (numpy's default), rounded to the nearest ns, halves up; the mean is\n"
"    rounded the same way. Documentation/npu/reports.rst has the details.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The trace file, as the FILE operand. Default ./npuprof.data.\n"
"    -f, --format table|json\n"
"        table (the default): the text above. json: one JSON object with\n"
"        the keys inferences, min_ns, max_ns, mean_ns, median_ns, p90_ns,\n"
"        p95_ns, p97_ns, p99_ns, p99_9_ns (null without inferences) and\n"
"        the totals.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   The summary was printed (of a truncated FILE, or one with\n"
"        damaged chunks, which are skipped, too, with a warning).\n"
"    1   FILE cannot be read, is not a trace or is corrupt (the message\n"
"        names the file offset), or writing the output failed.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof record -- npu-classify -m mobilenet-v1.nmdl -n 100 -q\n"
"    npuprof summary\n"
"    npuprof summary --format json mnist.npuprof | jq .p99_ns\n";

static const char report_help[] =
"NAME\n"
"    npuprof report - print a table of a trace: inferences, NPU executions,\n"
"    NPU operators, CPU operators, spans or operator records\n"
"\n"
"SYNOPSIS\n"
"    npuprof report TABLE [--format table|csv|json|jsonl] [--wide] [[-i] FILE]\n"
"    TABLE: --inferences | --executions | --operators | --external |\n"
"           --spans | --op-records\n"
"\n"
"DESCRIPTION\n"
"    Reads the trace FILE (default ./npuprof.data) and prints one table,\n"
"    with the columns and labels of the reference profiler's reports.\n"
"    Times are ns. Trace ids are 32 hex digits, span ids 16.\n"
"\n"
"    --inferences (print_inferences)\n"
"        One row per inference: trace_id, span_id, thread.id, dur.\n"
"        Machine formats add pid, start_ns, end_ns, executions and\n"
"        npu_total_ns (the executions of its submit spans and the sum of\n"
"        their NPU Total) and unmatched_submits.\n"
"    --executions (print_npu_executions)\n"
"        One row per NPU execution: trace_id and span_id of the submit\n"
"        span that queued it (empty when none was recorded), pe_index,\n"
"        execution_index, NPU Total, NPU Run, NPU IoWait and Bound (+-ns).\n"
"        Run and IoWait are the device's tick counts converted to ns with\n"
"        the clock fit's slope (the nominal clock without one), and Total\n"
"        is their sum: Total == Run + IoWait exactly, all signed, never a\n"
"        wrapped subtraction. Bound is the error bound of Total from the\n"
"        clock fit (- without a fit). Machine formats add minor, job_id,\n"
"        pid, tid, status, submit_ns, complete_ns, start_ns, end_ns (the\n"
"        device interval in host time), n_ops, dma_bytes, macs,\n"
"        inference_span_id and violation.\n"
"    --operators (print_npu_operators)\n"
"        NPU operators by opcode: name, average elapsed(ns) and count,\n"
"        slowest first; the operators of a model whose trace has its\n"
"        layer table one row each, with their layer (the source model's\n"
"        node name). Machine formats add opcode, total_ns,\n"
"        average_iowait_ns, skipped (records whose ticks do not add up,\n"
"        or without a clock), op_type, in_shapes, out_shapes, macs (the\n"
"        records' mean), model_id and op_index.\n"
"    --external (print_external_operators)\n"
"        CPU operators (Quantize, Lower, Unlower, Dequantize): trace_id,\n"
"        span_id, thread.id, name, operator_index, dur.\n"
"    --spans\n"
"        Every host span: kind, name (of a labelled record), pid, tid,\n"
"        trace_id, span_id, parent_id, start_ns, dur, job_id, minor,\n"
"        op_index, error.\n"
"    --op-records\n"
"        Every NPU operator record: minor, job_id, pe, exec_index,\n"
"        op_index, name, start_ns, dur, run, iowait, Bound (+-ns).\n"
"        Machine formats add layer, pid, tid, opcode, end_ns, dma_bytes,\n"
"        macs, inconsistent, op_type, in_shapes, out_shapes, model_id.\n"
"\n"
"    Layers: when the trace carries a model's layer table (written with\n"
"    its MODEL item), every operator row names its layer: layer (the\n"
"    node name, \"\" without a table), op_type (QLinearConv+Clip),\n"
"    in_shapes and out_shapes (\"u8[1,3,224,224] i8[32,3,3,3] i32[32]\").\n"
"    The text shows the layer when a row has one, the shapes with\n"
"    --wide; CSV and JSON always have them. A damaged layer table is\n"
"    dropped with a warning, its model kept.\n"
"\n"
"    Executions are joined to their submit spans by (device minor, job\n"
"    id) whatever their order in the file; rows come in the order the join\n"
"    completes them, executions no span claims at the end (another\n"
"    process's, or a lost span). Nothing is dropped: the summary counts\n"
"    what stayed unmatched. Memory is bounded by the jobs in flight, not\n"
"    by the length of the trace.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The trace file, as the FILE operand. Default ./npuprof.data.\n"
"    -f, --format table|csv|json|jsonl\n"
"        table (the default): aligned text as the reference documents\n"
"        show, a missing value as -. csv: RFC 4180 with a header line,\n"
"        a missing value empty. json: one array of objects. jsonl: one\n"
"        object per line. Missing values are null in JSON.\n"
"    -w, --wide\n"
"        With the table format: every column, the machine ones too\n"
"        (shapes, ids, times), for a wide terminal or a pager.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   The table was printed (of a truncated FILE, or one with\n"
"        damaged chunks, which are skipped, too, with a warning).\n"
"    1   FILE cannot be read, is not a trace or is corrupt (the message\n"
"        names the file offset), or writing the output failed.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof report --executions\n"
"    npuprof report --operators mnist.npuprof\n"
"    npuprof report --op-records --wide | less -S\n"
"    npuprof report --external --format csv -i t.npuprof > cpu-ops.csv\n"
"    npuprof report --inferences --format jsonl | jq .dur\n";

struct rep_opts {
	const char *input;
	unsigned int format;
	unsigned int table;
	bool wide;
};

static int parse_format(const char *prog, const char *s, bool tables,
			unsigned int *format)
{
	static const struct {
		const char *name;
		unsigned int format;
		bool table_only;
	} f[] = {
		{ "table", NPUPROF_FORMAT_TABLE, false },
		{ "json", NPUPROF_FORMAT_JSON, false },
		{ "csv", NPUPROF_FORMAT_CSV, true },
		{ "jsonl", NPUPROF_FORMAT_JSONL, true },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(s, f[i].name) && (tables || !f[i].table_only)) {
			*format = f[i].format;
			return 0;
		}
	return npu_cli_usage_error(prog, "--format: invalid value '%s': must be %s",
				   s, tables ? "table, csv, json or jsonl" :
				   "table or json");
}

/* Open the trace, run the report, turn errors into messages */
static int rep_run(const struct rep_opts *o, bool summary)
{
	struct npuprof_trace *tr = npc_open_trace(o->input);
	int ret;

	if (!tr)
		return 1;
	if (summary)
		ret = npuprof_print_summary(tr, stdout,
			NPUPROF_REPORT_OPTS(.format = o->format));
	else
		ret = npuprof_report(tr, stdout,
			NPUPROF_REPORT_OPTS(.table = o->table,
				.format = o->format));
	if (ret)
		npc_trace_failed(tr, ret);
	npc_warn_damage(tr, o->input);
	if (!ret && npuprof_trace_truncated(tr))
		npc_warn("%s is truncated (the profiled program was killed): reported up to its last complete chunk",
			 o->input);
	if (!ret)
		npc_warn_skipped(tr);
	npuprof_trace_close(tr);
	return ret ? 1 : 0;
}

static int rep_main(int argc, char **argv, bool summary)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "inferences", no_argument, NULL, NPUPROF_TABLE_INFERENCES },
		{ "executions", no_argument, NULL, NPUPROF_TABLE_EXECUTIONS },
		{ "operators", no_argument, NULL, NPUPROF_TABLE_OPERATORS },
		{ "external", no_argument, NULL, NPUPROF_TABLE_EXTERNAL },
		{ "spans", no_argument, NULL, NPUPROF_TABLE_SPANS },
		{ "op-records", no_argument, NULL, NPUPROF_TABLE_OP_RECORDS },
		{ "wide", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rep_opts o = { .format = NPUPROF_FORMAT_TABLE };
	const char *prog = summary ? NPC_PROG " summary" : NPC_PROG " report";
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, summary ? ":i:f:h" : ":i:f:wh",
				lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'w':
			if (summary)
				return npu_cli_usage_error(prog, "unknown option '%s'",
							   argv[optind - 1]);
			o.wide = true;
			break;
		case 'f':
			if (parse_format(prog, optarg, !summary, &o.format))
				return 2;
			break;
		case 'h':
			return npc_help(summary ? &npc_cmd_summary : &npc_cmd_report);
		case NPUPROF_TABLE_INFERENCES:
		case NPUPROF_TABLE_EXECUTIONS:
		case NPUPROF_TABLE_OPERATORS:
		case NPUPROF_TABLE_EXTERNAL:
		case NPUPROF_TABLE_SPANS:
		case NPUPROF_TABLE_OP_RECORDS:
			if (summary)
				return npu_cli_usage_error(prog, "unknown option '%s'",
							   argv[optind - 1]);
			if (o.table && o.table != (unsigned int)c)
				return npu_cli_usage_error(prog, "one table at a time ('%s')",
							   argv[optind - 1]);
			o.table = (unsigned int)c;
			break;
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	ret = npc_file_operand(prog, argc, argv, &o.input);
	if (ret)
		return ret;
	if (!summary && !o.table)
		return npu_cli_usage_error(prog, "which table? --inferences, --executions, --operators, --external, --spans or --op-records");
	if (o.wide && o.format != NPUPROF_FORMAT_TABLE)
		return npu_cli_usage_error(prog, "--wide is for the table format (csv and json have every column)");
	if (o.wide)
		o.format = NPUPROF_FORMAT_WIDE;
	return rep_run(&o, summary);
}

static int summary_main(int argc, char **argv)
{
	return rep_main(argc, argv, true);
}

static int report_main(int argc, char **argv)
{
	return rep_main(argc, argv, false);
}

const struct npc_cmd npc_cmd_summary = {
	.name = "summary",
	.summary = "inference latency percentiles and the totals of a trace",
	.help = summary_help,
	.run = summary_main,
};

const struct npc_cmd npc_cmd_report = {
	.name = "report",
	.summary = "a table of a trace: inferences, executions, operators, ...",
	.help = report_help,
	.run = report_main,
};
