// SPDX-License-Identifier: GPL-2.0-only
/*
 * format.c - how npuprof writes times, durations, sizes and names, and its
 * error and warning lines. Stateless: every function formats into the
 * caller's buffer or returns a constant string.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "report_util.h"
#include "npu_cli.h"

/* the names live in the library, which the reports share */
const char *npc_lost_reason_name(uint32_t reason)
{
	return npf_lost_reason_name(reason);
}

const char *npc_opcode_name(uint32_t opcode)
{
	return npf_opcode_name(opcode);
}

const char *npc_session_op_name(uint32_t op)
{
	switch (op) {
	case NPUPROF_SESSION_START:
		return "START";
	case NPUPROF_SESSION_PAUSE:
		return "PAUSE";
	case NPUPROF_SESSION_RESUME:
		return "RESUME";
	case NPUPROF_SESSION_STOP:
		return "STOP";
	default:
		return "UNKNOWN";
	}
}

const char *npc_job_status_name(uint32_t status)
{
	return npf_job_status_name(status);
}

/* |@ns| as an unsigned number, without overflow at INT64_MIN */
static uint64_t mag(int64_t ns)
{
	return ns < 0 ? (uint64_t)-(ns + 1) + 1 : (uint64_t)ns;
}

const char *npc_fmt_time(char *buf, int64_t ns)
{
	uint64_t m = mag(ns);

	snprintf(buf, NPC_FMT_LEN, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "",
		 m / 1000000000u, m % 1000000000u);
	return buf;
}

const char *npc_fmt_dur(char *buf, int64_t ns)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} u[] = { { 1000000000u, "s" }, { 1000000u, "ms" }, { 1000u, "us" } };
	const char *sign = ns < 0 ? "-" : "";
	uint64_t m = mag(ns);
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (m >= u[i].div) {
			/* three decimals, exact: integer part and thousandths */
			uint64_t milli = u[i].div / 1000;

			snprintf(buf, NPC_FMT_LEN, "%s%" PRIu64 ".%03" PRIu64 " %s",
				 sign, m / u[i].div, (m % u[i].div) / milli,
				 u[i].unit);
			return buf;
		}
	}
	snprintf(buf, NPC_FMT_LEN, "%s%" PRIu64 " ns", sign, m);
	return buf;
}

const char *npc_fmt_bytes(char *buf, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int i = -1;

	if (bytes < 1024) {
		snprintf(buf, NPC_FMT_LEN, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024 && i < 3) {
		v /= 1024;
		i++;
	}
	snprintf(buf, NPC_FMT_LEN, "%.1f %s", v, unit[i]);
	return buf;
}

static void vmsg(const char *what, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", NPC_PROG, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

uint64_t npc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void npc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void npc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int npc_bad_option(const char *prog, int c, char **argv)
{
	if (c == ':')
		return npu_cli_usage_error(prog, "option '%s' needs a value",
					   argv[optind - 1]);
	return npu_cli_usage_error(prog, "unknown option '%s'", argv[optind - 1]);
}

int npc_help(const struct npc_cmd *cmd)
{
	fputs(cmd->help, stdout);
	return 0;
}

/*
 * The FILE operand after the options: at most one (or none when *@input
 * came from an option), NPC_DEFAULT_FILE when there is none. Returns 0, or
 * the status of a usage error after its message.
 */
int npc_file_operand(const char *prog, int argc, char **argv,
		     const char **input)
{
	if (optind < argc) {
		if (*input)
			return npu_cli_usage_error(prog, "FILE given twice ('%s' and '%s')",
						   *input, argv[optind]);
		*input = argv[optind++];
	}
	if (optind < argc)
		return npu_cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!*input)
		*input = NPC_DEFAULT_FILE;
	return 0;
}

/* Open @input, report errors and truncation; NULL after a message */
struct npuprof_trace *npc_open_trace(const char *input)
{
	struct npuprof_trace *tr = NULL;
	char err[512];
	int ret = npuprof_trace_open(input, &tr, err, sizeof(err));

	if (ret) {
		npc_err("%s", err[0] ? err : strerror(-ret));
		return NULL;
	}
	return tr;
}

void npc_warn_skipped(const struct npuprof_trace *tr)
{
	const char *last;
	uint64_t n = npuprof_trace_skipped(tr, &last);

	if (n == 1)
		npc_warn("%s (left out)", last);
	else if (n)
		npc_warn("%s (left out, and %llu more model items or layer tables)",
			 last, (unsigned long long)(n - 1));
}

const char *npc_fmt_damage_items(char *buf, size_t len,
				 const struct npuprof_damage *d)
{
	if (!d->items_unknown)
		snprintf(buf, len, "%llu item%s", (unsigned long long)d->items,
			 d->items == 1 ? "" : "s");
	else if (d->items)
		snprintf(buf, len, "at least %llu items",
			 (unsigned long long)d->items);
	else
		snprintf(buf, len, "items unknown");
	return buf;
}

void npc_warn_damage(const struct npuprof_trace *tr, const char *input)
{
	struct npuprof_damage d;
	const char *why;
	char items[64];

	if (!npuprof_trace_damage(tr, &d, &why))
		return;
	npc_fmt_damage_items(items, sizeof(items), &d);
	if (d.stretches == 1)
		npc_warn("%s: skipped %llu damaged chunk%s (%llu bytes, %s) at offset %llu (%s)",
			 input, (unsigned long long)d.chunks,
			 d.chunks == 1 ? "" : "s", (unsigned long long)d.bytes,
			 items, (unsigned long long)d.first_offset, why);
	else
		npc_warn("%s: skipped %llu damaged chunks (%llu bytes, %s) in %llu places, the first at offset %llu (%s)",
			 input, (unsigned long long)d.chunks,
			 (unsigned long long)d.bytes, items,
			 (unsigned long long)d.stretches,
			 (unsigned long long)d.first_offset, why);
}

/* The message of the library's error @ret on @tr; returns 1 */
int npc_trace_failed(struct npuprof_trace *tr, int ret)
{
	if (ret == -EIO && !npuprof_trace_error(tr)[0])
		npc_err("writing the output: %s", strerror(EIO));
	else
		npc_err("%s", npuprof_trace_error(tr)[0] ?
			npuprof_trace_error(tr) : strerror(-ret));
	return 1;
}
