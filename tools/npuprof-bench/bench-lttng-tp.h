/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-lttng-tp.h - the LTTng-UST tracepoint of npuprof-bench-lttng: one
 * host span as an event (its kind, ids and start; LTTng stamps the end).
 * Read twice by lttng/tracepoint-event.h, as LTTng-UST's providers are.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER npuprof_bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./bench-lttng-tp.h"

#if !defined(NPUPROF_BENCH_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define NPUPROF_BENCH_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(npuprof_bench, span,
	TP_ARGS(uint16_t, kind, uint64_t, span_id, uint64_t, parent_id,
		uint64_t, start),
	TP_FIELDS(
		ctf_integer(uint16_t, kind, kind)
		ctf_integer(uint64_t, span_id, span_id)
		ctf_integer(uint64_t, parent_id, parent_id)
		ctf_integer(uint64_t, start, start)
	)
)

#endif /* NPUPROF_BENCH_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
