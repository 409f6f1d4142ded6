// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * util.c - small helpers of libnpuprof: the log callback, the monotonic
 * clock, names of span kinds and the option defaults.
 *
 * No state; every function is thread-safe.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "npuprof_int.h"

void npf_log(const struct npf_log *log, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (log && level > log->level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log && log->fn)
		log->fn(log->ctx, level, msg);
	else if (level <= NPUPROF_LOG_WARN)
		fprintf(stderr, "npuprof: %s%s\n",
			level == NPUPROF_LOG_ERROR ? "error: " : "", msg);
}

uint64_t npf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *const npf_kind_names[NPUPROF_SPAN_KIND_MAX + 1] = {
	[NPUPROF_SPAN_LABEL] = "record",
	[NPUPROF_SPAN_RUN] = "run",
	[NPUPROF_SPAN_INFERENCE] = "inference",
	[NPUPROF_SPAN_SET_INPUT] = "set_input",
	[NPUPROF_SPAN_GET_OUTPUT] = "get_output",
	[NPUPROF_SPAN_QUANTIZE] = "Quantize",
	[NPUPROF_SPAN_LOWER] = "Lower",
	[NPUPROF_SPAN_UNLOWER] = "Unlower",
	[NPUPROF_SPAN_DEQUANTIZE] = "Dequantize",
	[NPUPROF_SPAN_SUBMIT] = "submit",
	[NPUPROF_SPAN_WAIT] = "wait",
	[NPUPROF_SPAN_USER] = "user",
};

NPUPROF_EXPORT
const char *npuprof_span_kind_name(unsigned int kind)
{
	if (kind > NPUPROF_SPAN_KIND_MAX || !npf_kind_names[kind])
		return "unknown";
	return npf_kind_names[kind];
}

NPUPROF_EXPORT
void npuprof_opts_init(struct npuprof_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->level = NPUPROF_DEFAULT_LEVEL;
	opts->ring_pages = NPUPROF_DEFAULT_RING_PAGES;
	opts->span_buf_kb = NPUPROF_DEFAULT_SPAN_BUF_KB;
	opts->log_level = NPUPROF_LOG_WARN;
}
