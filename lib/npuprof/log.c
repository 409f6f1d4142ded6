// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * log.c - a session's diagnostics (to its log callback, or errors to
 * stderr without one); the monotonic clock is inline in log.h.
 *
 * No state; every function is thread-safe.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

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
