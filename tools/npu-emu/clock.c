// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock.c - the device's free-running 64-bit clock.
 *
 * The clock is derived from the host's CLOCK_MONOTONIC so that it keeps
 * running whatever the emulator does. Its rate is clock_hz, scaled by
 * (1 + drift_ppm / 1e6) to model an oscillator that is off by drift_ppm;
 * the value at start-up is the configured offset. The product is computed
 * in long double (a 64-bit mantissa on x86), so elapsed nanoseconds up to
 * 2^64 are represented exactly and nothing overflows; the result wraps
 * modulo 2^64 like a hardware counter.
 */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "clock.h"

uint64_t emu_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void emu_clock_init(struct emu_clock *c, uint64_t hz, uint64_t offset,
		    double drift_ppm, uint64_t start_ns)
{
	c->start_ns = start_ns;
	c->offset = offset;
	c->ticks_per_ns = (long double)hz / 1e9L *
			  (1.0L + (long double)drift_ppm / 1e6L);
}

uint64_t emu_clock_at(const struct emu_clock *c, uint64_t mono_ns)
{
	long double t;
	uint64_t ns, ticks;

	ns = mono_ns > c->start_ns ? mono_ns - c->start_ns : 0;
	t = (long double)ns * c->ticks_per_ns;
	/* |drift| <= 10% and hz < 2^32: t < 2^64 for 500 years of uptime */
	ticks = t >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)t;
	return c->offset + ticks;
}

uint64_t emu_clock_now(const struct emu_clock *c)
{
	return emu_clock_at(c, emu_mono_ns());
}

uint64_t emu_clock_ns_for_ticks(const struct emu_clock *c, uint64_t ticks)
{
	long double ns = ceill((long double)ticks / c->ticks_per_ns);

	if (ns >= 18446744073709551615.0L)
		return UINT64_MAX;
	return (uint64_t)ns;
}

void emu_clock_wait_until(const struct emu_clock *c, uint64_t tick)
{
	struct timespec ts;
	uint64_t now, ns;
	int64_t left;

	for (;;) {
		now = emu_clock_now(c);
		left = (int64_t)(tick - now);
		if (left <= 0)
			return;
		ns = emu_clock_ns_for_ticks(c, (uint64_t)left);
		if (!ns)
			ns = 1;
		ts.tv_sec = (time_t)(ns / 1000000000ull);
		ts.tv_nsec = (long)(ns % 1000000000ull);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}
