/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - npu-emu's messages: a log of what the device does (--verbose, on
 * stdout, stamped with the time since the device started) and errors (on
 * stderr, always). Each message is one line starting with "npu-emu: ";
 * lines of different threads do not interleave.
 */
#ifndef NPU_EMU_LOG_H
#define NPU_EMU_LOG_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct emu_logger - where emu_log() writes
 * @start_ns: CLOCK_MONOTONIC time (ns) the stamps count from
 * @verbose: log at all; without it emu_log() prints nothing
 */
struct emu_logger {
	uint64_t start_ns;
	bool verbose;
};

/* A line on stdout, "npu-emu: [S.UUUUUU] ...", with @lg->verbose only */
void emu_log(const struct emu_logger *lg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A line on stderr, "npu-emu: ..." */
void emu_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* NPU_EMU_LOG_H */
