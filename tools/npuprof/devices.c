// SPDX-License-Identifier: GPL-2.0-only
/*
 * devices.c - `npuprof devices`: the NPUs the driver has bound, from the
 * generic netlink family "npu" through libnpu's npu_nl_* client (a dump of
 * dev-get, and of stats-get with --stats), as a table or as JSON. Needs no
 * access to /dev/npuN.
 *
 * Single-threaded; each command runs once per process.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "libnpu.h"
#include "npu_cli.h"

#define DEV_MAX	64

static const char devices_help[] =
"NAME\n"
"    npuprof devices - list the NPUs and their counters\n"
"\n"
"SYNOPSIS\n"
"    npuprof devices [--format table|json] [--stats]\n"
"\n"
"DESCRIPTION\n"
"    Lists every NPU that npu.ko has bound, asking the driver's generic\n"
"    netlink family \"npu\" (Documentation/npu/netlink.rst); no access to\n"
"    /dev/npuN is needed. For each device: its index N (/dev/npuN), name,\n"
"    PCI address, hardware interface version, processing elements (PEs),\n"
"    clock, device memory, supported trace levels and state: alive, dead\n"
"    (it stopped answering a reset; jobs fail until it is bound again) or\n"
"    removed.\n"
"\n"
"    With --stats, also the device's counters since it was bound: jobs\n"
"    completed and failed, device busy time, DMA bytes and multiply-\n"
"    accumulates (counted while tracing was on), trace records written\n"
"    and lost, and resets; per PE in JSON, summed over the PEs in the\n"
"    table. And its memory: bytes held by buffers now (MEM) and at the\n"
"    peak (MEM_PEAK, since the device was bound or the peak was reset\n"
"    through sysfs), the largest free extent (MAX_FREE: the largest\n"
"    buffer that can be created now), buffers allocated (ALLOCS) and\n"
"    failed allocations (ALLOC_FAIL: ENOMEM and EDQUOT); in JSON, \"mem\"\n"
"    has them all, with frees and free bytes.\n"
"\n"
"OPTIONS\n"
"    -f, --format table|json\n"
"        table (the default): one line per device, aligned columns;\n"
"        json: one array of objects, keys as the table's columns in\n"
"        lower case, numbers unformatted (bytes, Hz, ns).\n"
"    -s, --stats\n"
"        Add the counters.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   Printed (also when there is no device: an empty table or []).\n"
"    1   The family \"npu\" is not registered (npu.ko is not loaded), or a\n"
"        request failed.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof devices\n"
"      INDEX  NAME   PCI           HW    PES  CLOCK      DRAM      TRACE   STATE\n"
"      0      npu0   0000:00:02.0  1.0   2    1000 MHz   64.0 MiB  0,1,2   alive\n"
"    npuprof devices --format json --stats\n";

static const char *state_name(uint32_t state)
{
	switch (state) {
	case NPU_DEV_STATE_ALIVE:
		return "alive";
	case NPU_DEV_STATE_DEAD:
		return "dead";
	case NPU_DEV_STATE_REMOVED:
		return "removed";
	default:
		return "unknown";
	}
}

/* "0,1,2" from a bit mask of trace levels; "-" for none */
static const char *levels_str(char *buf, size_t len, uint32_t levels)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < 32 && n < len; i++)
		if (levels & (1u << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%u",
					      n ? "," : "", i);
	return buf[0] ? buf : "-";
}

/* The PE counters summed over the device's PEs */
static struct npu_nl_pe_stats pe_sum(const struct npu_nl_stats *st)
{
	struct npu_nl_pe_stats t = { 0 };
	uint32_t i;

	for (i = 0; i < st->pe_count; i++) {
		t.jobs_completed += st->pe[i].jobs_completed;
		t.jobs_failed += st->pe[i].jobs_failed;
		t.busy_ns += st->pe[i].busy_ns;
		t.dma_bytes += st->pe[i].dma_bytes;
		t.macs += st->pe[i].macs;
	}
	return t;
}

/**
 * npc_nl_stats_find() - the counters of device @index among @n in @st
 * @st: counters of a stats-get dump
 * @n: entries in @st
 * @index: the device
 *
 * Return: the entry, or NULL.
 */
const struct npu_nl_stats *npc_nl_stats_find(const struct npu_nl_stats *st,
					     int n, uint32_t index)
{
	int i;

	for (i = 0; i < n; i++)
		if (st[i].index == index)
			return &st[i];
	return NULL;
}

/* The memory columns; "-" from a driver without memory counters. */
static void print_table_mem(const struct npu_nl_stats *s)
{
	char b1[32], b2[32], b3[32];

	if (!s->has_mem) {
		printf(" %10s %10s %10s %8s %10s", "-", "-", "-", "-", "-");
		return;
	}
	printf(" %10s %10s %10s %8" PRIu64 " %10" PRIu64,
	       npc_fmt_bytes(b1, s->mem.used), npc_fmt_bytes(b2, s->mem.peak),
	       npc_fmt_bytes(b3, s->mem.largest_free), s->mem.allocs,
	       s->mem.fail_nomem + s->mem.fail_quota);
}

static void print_table(const struct npu_nl_dev *d, int n,
			const struct npu_nl_stats *st, int nst, bool stats)
{
	char lv[64], b1[32], b2[32], b3[32];
	int i;

	/* the last column unpadded: no trailing blanks */
	printf("%-6s %-6s %-13s %-5s %-4s %-10s %-9s %-7s %-*s", "INDEX",
	       "NAME", "PCI", "HW", "PES", "CLOCK", "DRAM", "TRACE",
	       stats ? 7 : 0, "STATE");
	if (stats)
		printf(" %10s %7s %12s %10s %10s %8s %6s %10s %10s %10s %8s %10s",
		       "JOBS", "FAILED", "BUSY", "DMA", "RECORDS", "LOST",
		       "RESETS", "MEM", "MEM_PEAK", "MAX_FREE", "ALLOCS",
		       "ALLOC_FAIL");
	putchar('\n');
	for (i = 0; i < n; i++) {
		const struct npu_nl_stats *s = npc_nl_stats_find(st, nst, d[i].index);
		char hw[16], clk[24];

		snprintf(hw, sizeof(hw), "%u.%u", d[i].hw_version >> 16,
			 d[i].hw_version & 0xffff);
		snprintf(clk, sizeof(clk), "%u MHz", d[i].clock_hz / 1000000);
		printf("%-6u %-6s %-13s %-5s %-4u %-10s %-9s %-7s %-*s",
		       d[i].index, d[i].name, d[i].pci_addr, hw, d[i].pe_count,
		       clk, npc_fmt_bytes(b1, d[i].dram_size),
		       levels_str(lv, sizeof(lv), d[i].trace_levels),
		       stats ? 7 : 0, state_name(d[i].state));
		if (stats && s) {
			struct npu_nl_pe_stats t = pe_sum(s);

			printf(" %10" PRIu64 " %7" PRIu64 " %12s %10s %10" PRIu64
			       " %8" PRIu64 " %6" PRIu64, t.jobs_completed,
			       t.jobs_failed,
			       npc_fmt_dur(b2, (int64_t)t.busy_ns),
			       npc_fmt_bytes(b3, t.dma_bytes),
			       s->trace_records, s->trace_lost, s->resets);
			print_table_mem(s);
		}
		putchar('\n');
	}
}

static void print_json_stats(const struct npu_nl_stats *s)
{
	uint32_t i;

	printf(",\"stats\":{\"resets\":%" PRIu64 ",\"trace_records\":%" PRIu64
	       ",\"trace_lost\":%" PRIu64 ",\"pes\":[", s->resets,
	       s->trace_records, s->trace_lost);
	for (i = 0; i < s->pe_count; i++) {
		const struct npu_nl_pe_stats *p = &s->pe[i];

		printf("%s{\"pe\":%u,\"jobs_completed\":%" PRIu64
		       ",\"jobs_failed\":%" PRIu64 ",\"busy_ns\":%" PRIu64
		       ",\"dma_bytes\":%" PRIu64 ",\"macs\":%" PRIu64 "}",
		       i ? "," : "", i, p->jobs_completed, p->jobs_failed,
		       p->busy_ns, p->dma_bytes, p->macs);
	}
	printf("]");
	if (s->has_mem)
		printf(",\"mem\":{\"used\":%" PRIu64 ",\"peak\":%" PRIu64
		       ",\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64
		       ",\"fail_nomem\":%" PRIu64 ",\"fail_quota\":%" PRIu64
		       ",\"free\":%" PRIu64 ",\"largest_free\":%" PRIu64 "}",
		       s->mem.used, s->mem.peak, s->mem.allocs, s->mem.frees,
		       s->mem.fail_nomem, s->mem.fail_quota, s->mem.free,
		       s->mem.largest_free);
	printf("}");
}

/*
 * JSON; the strings come from the driver ("npuN", a PCI address) and hold
 * no character that needs escaping, which the driver's formats guarantee.
 */
static void print_json(const struct npu_nl_dev *d, int n,
		       const struct npu_nl_stats *st, int nst, bool stats)
{
	int i;

	putchar('[');
	for (i = 0; i < n; i++) {
		const struct npu_nl_stats *s = npc_nl_stats_find(st, nst, d[i].index);

		printf("%s\n{\"index\":%u,\"name\":\"%s\",\"pci\":\"%s\","
		       "\"hw_version\":\"%u.%u\",\"pes\":%u,\"clock_hz\":%u,"
		       "\"dram_bytes\":%" PRIu64 ",\"trace_levels\":%u,"
		       "\"trace_max_pages\":%u,\"state\":\"%s\"",
		       i ? "," : "", d[i].index, d[i].name, d[i].pci_addr,
		       d[i].hw_version >> 16, d[i].hw_version & 0xffff,
		       d[i].pe_count, d[i].clock_hz, d[i].dram_size,
		       d[i].trace_levels, d[i].trace_max_pages,
		       state_name(d[i].state));
		if (stats && s)
			print_json_stats(s);
		putchar('}');
	}
	printf("%s]\n", n ? "\n" : "");
}

/**
 * npc_nl_open() - npu_nl_open() with the error message of command @cmd
 * @cmd: the command's name, for the message
 * @nl: out: the handle
 *
 * Return: 0, or -errno after a message on stderr.
 */
int npc_nl_open(const char *cmd, struct npu_nl **nl)
{
	int ret = npu_nl_open(nl);

	if (ret)
		npc_err("%s: %s", cmd, ret == -ENOENT ?
			"the netlink family \"npu\" is not registered (is npu.ko loaded?)" :
			strerror(-ret));
	return ret;
}

static int devices_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = NPC_PROG " devices";
	struct npu_nl_stats *st = NULL;
	struct npu_nl_dev *devs = NULL;
	bool json = false, stats = false;
	struct npu_nl *nl = NULL;
	int c, n = 0, nst = 0, ret = 1;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:sh", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				json = true;
			else if (!strcmp(optarg, "table"))
				json = false;
			else
				return npu_cli_usage_error(prog, "--format: '%s': must be table or json",
							   optarg);
			break;
		case 's':
			stats = true;
			break;
		case 'h':
			return npc_help(&npc_cmd_devices);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	if (optind < argc)
		return npu_cli_usage_error(prog, "unexpected argument '%s'",
					   argv[optind]);

	if (npc_nl_open("devices", &nl))
		return 1;
	devs = calloc(DEV_MAX, sizeof(*devs));
	st = calloc(DEV_MAX, sizeof(*st));
	if (!devs || !st) {
		npc_err("devices: %s", strerror(ENOMEM));
		goto out;
	}
	n = npu_nl_dev_list(nl, devs, DEV_MAX);
	if (n >= 0 && stats)
		nst = npu_nl_stats_list(nl, st, DEV_MAX);
	if (n < 0 || nst < 0) {
		npc_err("devices: %s%s%s", strerror(-(n < 0 ? n : nst)),
			npu_nl_extack(nl)[0] ? ": " : "", npu_nl_extack(nl));
		goto out;
	}
	n = n < DEV_MAX ? n : DEV_MAX;
	nst = nst < DEV_MAX ? nst : DEV_MAX;
	if (json)
		print_json(devs, n, st, nst, stats);
	else
		print_table(devs, n, st, nst, stats);
	ret = fflush(stdout) ? 1 : 0;
	if (ret)
		npc_err("devices: writing the output: %s", strerror(errno));
out:
	free(st);
	free(devs);
	npu_nl_close(nl);
	return ret;
}

const struct npc_cmd npc_cmd_devices = {
	.name = "devices",
	.summary = "list the NPUs and their counters (netlink)",
	.help = devices_help,
	.run = devices_main,
};
