// SPDX-License-Identifier: GPL-2.0-only
/*
 * log.c - npu-emu's messages (log.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "clock.h"
#include "log.h"

void emu_log(const struct emu_logger *lg, const char *fmt, ...)
{
	uint64_t us;
	va_list ap;

	if (!lg->verbose)
		return;
	us = (emu_mono_ns() - lg->start_ns) / 1000;
	flockfile(stdout);
	printf("npu-emu: [%" PRIu64 ".%06" PRIu64 "] ", us / 1000000,
	       us % 1000000);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	funlockfile(stdout);
}

void emu_err(const char *fmt, ...)
{
	va_list ap;

	flockfile(stderr);
	fputs("npu-emu: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}
