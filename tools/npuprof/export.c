// SPDX-License-Identifier: GPL-2.0-only
/*
 * export.c - `npuprof export`: a trace file into another format: the
 * merged timeline as Chrome Trace Event JSON (npuprof_export_chrome()),
 * every table as CSV or JSON Lines files in a directory (npuprof_report()),
 * or a SQLite database (npuprof_export_sqlite()). The library does the
 * work; this file parses the command line, opens the output and turns
 * errors into messages that name the file and offset and into the exit
 * status.
 *
 * Single-threaded; runs once per process.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "npu_cli.h"

static const char export_help[] =
"NAME\n"
"    npuprof export - write a trace in a format other tools read\n"
"\n"
"SYNOPSIS\n"
"    npuprof export [--format chrome|csv|jsonl|sqlite|memory-svg] -o OUT\n"
"                   [[-i] FILE]\n"
"\n"
"DESCRIPTION\n"
"    Reads the trace FILE (default ./npuprof.data) and writes it to OUT:\n"
"\n"
"    chrome (the default)\n"
"        The merged timeline as Chrome Trace Event JSON, for Perfetto UI\n"
"        (ui.perfetto.dev: Open trace file), chrome://tracing (Load) and\n"
"        speedscope. OUT is a file, \"-\" for the standard output. The\n"
"        profiled process has a track per host thread with its spans\n"
"        nested as recorded; each NPU is a process with a track per PE\n"
"        holding its executions and, nested in them, their operators,\n"
"        plus queue tracks (host submit to device start). An arrow (a\n"
"        flow) leads from each submit span to its execution. Counters\n"
"        show PE utilization, DMA bandwidth, losses and the device\n"
"        memory allocated (per device: the trace's buffers and the\n"
"        driver's count of every process's; per process and device), in\n"
"        MB; instants mark losses, failed allocations, clock fit\n"
"        anomalies and causality violations\n"
"        (executions whose device times fall outside their host submit\n"
"        to completion interval: shown, never dropped). Times are\n"
"        CLOCK_MONOTONIC in microseconds with 3 decimals (exact ns); the\n"
"        CLOCK_REALTIME/CLOCK_MONOTONIC pair of the capture is in the\n"
"        \"metadata\" object. Documentation/npu/export.rst gives the\n"
"        whole mapping.\n"
"    csv, jsonl\n"
"        One file per table in the directory OUT (created if needed):\n"
"        inferences, executions, operators, external, spans and\n"
"        op_records, each OUT/TABLE.csv (RFC 4180 with a header line) or\n"
"        OUT/TABLE.jsonl (one JSON object per line). See \"npuprof help\n"
"        report\" for the columns.\n"
"    sqlite\n"
"        A SQLite database OUT with every table (replaced if it exists);\n"
"        Documentation/npu/sqlite.rst gives the schema.\n"
"    memory-svg\n"
"        The memory flow of the trace's buffer records as an SVG image\n"
"        (OUT, \"-\" for the standard output), as MegEngine's\n"
"        memory_flow.svg: for each device, time across and device address\n"
"        down, each buffer a rectangle from its allocation to its free\n"
"        (or the end), coloured by kind (program, input, output, scratch,\n"
"        other); hovering one shows its owner pid and tid, size, address\n"
"        and times. Red marks above a panel are failed allocations. Open\n"
"        it in a web browser.\n"
"\n"
"    Memory stays bounded whatever the length of the trace. A truncated\n"
"    FILE (its writer was killed) is exported up to its last complete\n"
"    chunk, with a warning.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The trace file, as the FILE operand. Default ./npuprof.data.\n"
"    -f, --format FORMAT\n"
"        chrome, csv, jsonl, sqlite or memory-svg. Default chrome.\n"
"    -o, --output OUT\n"
"        Where to write: required.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   OUT was written (from a truncated FILE, or one with\n"
"        damaged chunks, which are skipped, too, with a warning).\n"
"    1   FILE cannot be read, is not a trace or is corrupt (the message\n"
"        names the file and the offset), or OUT cannot be written; OUT\n"
"        may then hold a partial export.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof export -o trace.json\n"
"    npuprof export mnist.npuprof --format chrome -o - | gzip > t.json.gz\n"
"    npuprof export t.npuprof --format csv -o tables/\n"
"    npuprof export t.npuprof --format sqlite -o t.db\n"
"    npuprof export t.npuprof --format memory-svg -o memory.svg\n";

/* The trace's error for @ret: its message (file and offset) if it has one */
static void trace_err(struct npuprof_trace *tr, const char *input, int ret)
{
	const char *m = npuprof_trace_error(tr);

	if (m && *m)
		npc_err("%s", m);
	else
		npc_err("%s: %s", input, strerror(-ret));
}

/* npuprof export --format memory-svg: no npuprof_format of its own */
#define EXPORT_MEMSVG	100

/* The Chrome JSON, or the memory SVG, to the file @out or "-" */
static int export_chrome(struct npuprof_trace *tr, const char *input,
			 const char *out, unsigned int format)
{
	bool std = !strcmp(out, "-");
	FILE *f = std ? stdout : fopen(out, "w");
	int ret;

	if (!f) {
		npc_err("%s: %s", out, strerror(errno));
		return 1;
	}
	if (format == EXPORT_MEMSVG)
		ret = npuprof_export_memsvg(tr, f, NULL);
	else
		ret = npuprof_export_chrome(tr, f, NULL);
	if (!std && fclose(f) && !ret)
		ret = -EIO;
	if (ret == -EIO && !*npuprof_trace_error(tr)) {
		npc_err("%s: write error", std ? "standard output" : out);
		return 1;
	}
	if (ret) {
		trace_err(tr, input, ret);
		return 1;
	}
	return 0;
}

static int export_tables(struct npuprof_trace *tr, const char *input,
			 const char *dir, unsigned int format)
{
	const char *ext = format == NPUPROF_FORMAT_CSV ? "csv" : "jsonl";
	unsigned int i;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		npc_err("%s: %s", dir, strerror(errno));
		return 1;
	}
	for (i = NPUPROF_TABLE_INFERENCES; npuprof_table_name(i); i++) {
		char path[4096];
		FILE *f;
		int ret;

		snprintf(path, sizeof(path), "%s/%s.%s", dir,
			 npuprof_table_name(i), ext);
		f = fopen(path, "w");
		if (!f) {
			npc_err("%s: %s", path, strerror(errno));
			return 1;
		}
		ret = npuprof_report(tr, f,
			NPUPROF_REPORT_OPTS(.table = i,
				.format = format));
		if (fclose(f) && !ret)
			ret = -EIO;
		if (ret == -EIO && !*npuprof_trace_error(tr)) {
			npc_err("%s: write error", path);
			return 1;
		}
		if (ret) {
			trace_err(tr, input, ret);
			return 1;
		}
	}
	return 0;
}

static int export_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = NPC_PROG " export", *input = NULL, *out = NULL;
	unsigned int format = NPUPROF_FORMAT_CHROME;
	struct npuprof_trace *tr = NULL;
	int c, ret, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:f:o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "chrome"))
				format = NPUPROF_FORMAT_CHROME;
			else if (!strcmp(optarg, "csv"))
				format = NPUPROF_FORMAT_CSV;
			else if (!strcmp(optarg, "jsonl"))
				format = NPUPROF_FORMAT_JSONL;
			else if (!strcmp(optarg, "sqlite"))
				format = NPUPROF_FORMAT_SQLITE;
			else if (!strcmp(optarg, "memory-svg"))
				format = EXPORT_MEMSVG;
			else
				return npu_cli_usage_error(prog, "--format: unknown format '%s': chrome, csv, jsonl, sqlite or memory-svg",
							   optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			return npc_help(&npc_cmd_export);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	ret = npc_file_operand(prog, argc, argv, &input);
	if (ret)
		return ret;
	if (!out || !*out)
		return npu_cli_usage_error(prog, "-o OUT is required");
	if (!strcmp(out, "-") && format != NPUPROF_FORMAT_CHROME &&
	    format != EXPORT_MEMSVG)
		return npu_cli_usage_error(prog, "-o -: only the chrome and memory-svg formats go to the standard output");
	tr = npc_open_trace(input);
	if (!tr)
		return 1;
	switch (format) {
	case NPUPROF_FORMAT_CHROME:
	case EXPORT_MEMSVG:
		status = export_chrome(tr, input, out, format);
		break;
	case NPUPROF_FORMAT_SQLITE:
		ret = npuprof_export_sqlite(tr, out);
		status = 0;
		if (ret) {
			trace_err(tr, input, ret);
			status = 1;
		}
		break;
	default:
		status = export_tables(tr, input, out, format);
		break;
	}
	npc_warn_damage(tr, input);
	if (!status && npuprof_trace_truncated(tr))
		npc_warn("%s is truncated (its writer was killed?): exported up to its last complete chunk",
			 input);
	if (!status)
		npc_warn_skipped(tr);
	npuprof_trace_close(tr);
	return status;
}

const struct npc_cmd npc_cmd_export = {
	.name = "export",
	.summary = "write a trace as Chrome JSON, CSV, JSON Lines, SQLite, SVG",
	.help = export_help,
	.run = export_main,
};
