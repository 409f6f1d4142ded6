/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock.h - the device's free-running 64-bit clock (clock.c).
 */
#ifndef NPU_EMU_CLOCK_H
#define NPU_EMU_CLOCK_H

#include <stdint.h>

/**
 * struct emu_clock - the device clock
 *
 * tick(t) = offset + (t - start) * clock_hz / 1e9 * (1 + drift_ppm / 1e6),
 * with t the host CLOCK_MONOTONIC time in ns; modulo 2^64.
 */
struct emu_clock {
	uint64_t start_ns;
	uint64_t offset;
	long double ticks_per_ns;
};

/* Host CLOCK_MONOTONIC in ns */
uint64_t emu_mono_ns(void);
void emu_clock_init(struct emu_clock *c, uint64_t hz, uint64_t offset,
		    double drift_ppm, uint64_t start_ns);
/* Device clock at host time @mono_ns (ns since boot, >= start_ns) */
uint64_t emu_clock_at(const struct emu_clock *c, uint64_t mono_ns);
/* Device clock now */
uint64_t emu_clock_now(const struct emu_clock *c);
/* Host nanoseconds the clock takes to advance by @ticks, rounded up */
uint64_t emu_clock_ns_for_ticks(const struct emu_clock *c, uint64_t ticks);
/* Sleep until the clock reads at least @tick (compared modulo 2^64) */
void emu_clock_wait_until(const struct emu_clock *c, uint64_t tick);

#endif /* NPU_EMU_CLOCK_H */
