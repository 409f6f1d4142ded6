// SPDX-License-Identifier: GPL-2.0-only
/*
 * memory.c - `npuprof memory`: where a trace's device memory went, from
 * its buffer records (BO_ALLOC, BO_FREE): the library's memory report
 * (npuprof_memory()). This file parses the command line and turns the
 * library's errors into messages and the exit status.
 *
 * Single-threaded; runs once per process.
 */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npu_cli.h"

static const char memory_help[] =
"NAME\n"
"    npuprof memory - device memory of a trace: the most allocated per\n"
"    device and per process, the buffers at the peak, failures and\n"
"    fragmentation\n"
"\n"
"SYNOPSIS\n"
"    npuprof memory [--format table|csv|json|jsonl] [--top N]\n"
"                   [--table NAME] [[-i] FILE]\n"
"\n"
"DESCRIPTION\n"
"    Reads the trace FILE (default ./npuprof.data) and replays its\n"
"    buffer records (one when the driver allocated a buffer's device\n"
"    memory, one when it gave it back, one for each failed allocation)\n"
"    into these tables, in bytes and CLOCK_MONOTONIC ns:\n"
"\n"
"    devices\n"
"        Per device: max_allocated, the most bytes the trace's buffers\n"
"        held at once, and max_allocated_ns, when it was first reached;\n"
"        max_used, the most bytes the live tensors of a program took at\n"
"        one of its operators (RAF's max_used; - without a model in the\n"
"        trace), used_pct, its share of max_allocated, and peak_op, the\n"
"        operator (machine formats add max_used_ns);\n"
"        device_max_allocated, the\n"
"        driver's own counter of every process's buffers (a trace of one\n"
"        process shows its own buffers only); allocs, frees, failures;\n"
"        live_at_end, the buffers never freed in the trace; and the\n"
"        fragmentation at the peak: free_at_peak, largest_free_at_peak\n"
"        (the largest range no buffer covered) and fragmentation_pct,\n"
"        100 * (1 - largest / free). The records do not carry the\n"
"        device's free extents: they are computed from the live buffers'\n"
"        address ranges within dram_size bytes from the lowest address\n"
"        any buffer had. skipped counts records that make no sense and\n"
"        frees of buffers allocated before the trace began.\n"
"    processes\n"
"        Per process and device: max_allocated and when, max_used,\n"
"        allocs, frees, failures, allocated_at_end and (machine\n"
"        formats) used_pct, 100 * max_used / max_allocated; largest\n"
"        first.\n"
"    peak_buffers\n"
"        The N largest buffers live at each device's peak: bo_id,\n"
"        address, size, kind (program, input, output, scratch, other),\n"
"        owner pid and tid, alloc_ns.\n"
"    failures\n"
"        Each failed allocation: when, who, the size asked, kind, error\n"
"        (ENOMEM: no free range that large; EDQUOT: over the file's\n"
"        quota) and the device's bytes in use then.\n"
"    operators\n"
"        Per model and operator with records: model_id, model, op_index,\n"
"        name, records, and the bytes of its program's tensors: in_bytes,\n"
"        out_bytes, live_bytes (used) and alloc_bytes (the job's slots).\n"
"    tensors\n"
"        The N largest tensors live at each device's max_used operator:\n"
"        model_id, model, op_index, rank, tensor (its index in the\n"
"        program), slot, offset, size, first_op and last_op (where it\n"
"        lives).\n"
"    events\n"
"        Only with --table events: every buffer record (alloc, free,\n"
"        fail) with the bytes allocated after it on the device and by its\n"
"        process, and the driver's counter.\n"
"\n"
"    Memory is bounded by the buffers live at once, not by the length of\n"
"    the trace. Documentation/npu/memory.rst has the details.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The trace file, as the FILE operand. Default ./npuprof.data.\n"
"    -f, --format table|csv|json|jsonl\n"
"        table (the default): each table under a title, aligned, a\n"
"        missing value as -. csv: RFC 4180, each table with its header\n"
"        line, tables separated by an empty line. json: one object whose\n"
"        members (devices, processes, peak_buffers, failures, operators,\n"
"        tensors) are arrays of rows. jsonl: one object per line, tables separated by an\n"
"        empty line. Missing values are empty in CSV, null in JSON.\n"
"    -n, --top N\n"
"        Buffers listed per device at its peak, and tensors at its\n"
"        max_used. Default 10.\n"
"    -t, --table NAME\n"
"        Only this table: devices, processes, peak_buffers, failures,\n"
"        operators, tensors or events. May be given more than once.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   The report was printed (of a truncated FILE, or one with\n"
"        damaged chunks, which are skipped, too, with a warning).\n"
"    1   FILE cannot be read, is not a trace or is corrupt (the message\n"
"        names the file offset), or writing the output failed.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof memory\n"
"    npuprof memory --format json mobilenet.npuprof | jq .devices\n"
"    npuprof memory --table events --format csv > memory-events.csv\n";

static int memory_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 'n' },
		{ "table", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = NPC_PROG " memory", *input = NULL, *name;
	unsigned int format = NPUPROF_FORMAT_TABLE, tables = 0, top = 0, t;
	struct npuprof_trace *tr;
	uint64_t v;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:f:n:t:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			if (npc_parse_format(prog, optarg, &format))
				return 2;
			break;
		case 'n':
			if (npu_cli_parse_u64(optarg, 1, 1000000, &v))
				return npu_cli_usage_error(prog, "--top: invalid value '%s': must be 1 to 1000000",
							   optarg);
			top = (unsigned int)v;
			break;
		case 't':
			for (t = NPUPROF_MEM_DEVICES;
			     (name = npuprof_mem_table_name(t)); t++)
				if (!strcmp(name, optarg))
					break;
			if (!name)
				return npu_cli_usage_error(prog, "--table: invalid value '%s': must be devices, processes, peak_buffers, failures, operators, tensors or events",
							   optarg);
			tables |= NPUPROF_MEM_BIT(t);
			break;
		case 'h':
			return npc_help(&npc_cmd_memory);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	ret = npc_file_operand(prog, argc, argv, &input);
	if (ret)
		return ret;
	tr = npc_open_trace(input);
	if (!tr)
		return 1;
	ret = npuprof_memory(tr, stdout, NPUPROF_MEMORY_OPTS(.format = format,
			     .tables = tables, .top = top));
	if (ret)
		npc_trace_failed(tr, ret);
	npc_warn_damage(tr, input);
	if (!ret && npuprof_trace_truncated(tr))
		npc_warn("%s is truncated (the profiled program was killed): reported up to its last complete chunk",
			 input);
	if (!ret)
		npc_warn_skipped(tr);
	npuprof_trace_close(tr);
	return ret ? 1 : 0;
}

const struct npc_cmd npc_cmd_memory = {
	.name = "memory",
	.summary = "device memory: max allocated, peak buffers, failures",
	.help = memory_help,
	.run = memory_main,
};
