/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * log.h - a session's or a reader's diagnostics (log.c), and the monotonic
 * clock.
 */
#ifndef NPF_LOG_H
#define NPF_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "npuprof.h"

/* ------------------------------------------------------------------ */
/* Logging                                                              */
/* ------------------------------------------------------------------ */

struct npf_log {
	npuprof_log_fn fn;
	void *ctx;
	int level;
};

void npf_log(const struct npf_log *log, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * CLOCK_MONOTONIC in ns; inline, as the span path reads it: a call more a
 * span costs little on a host and much in a TCG guest.
 */
static inline uint64_t npf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* NPF_LOG_H */
