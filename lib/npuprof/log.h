/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * log.h - a session's or a reader's diagnostics, and the monotonic clock
 * (log.c).
 */
#ifndef NPF_LOG_H
#define NPF_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* Monotonic clock in ns */
uint64_t npf_now_ns(void);

#endif /* NPF_LOG_H */
