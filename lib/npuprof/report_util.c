// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report_util.c - names and ids as the reports write them: the NPU
 * operator names of include/npu/npu_program.h's NPU_OP_* (also used by the
 * CLI's dump), and trace and span ids in hex as the reference documents show
 * them, and the conversion of device tick counts to host durations.
 *
 * Stateless; safe from any thread.
 */
#include <inttypes.h>
#include <stdio.h>

#include "npuprof_int.h"
#include "npu/npu_program.h"	/* NPU_OP_* */

const char *npf_opcode_name(uint32_t opcode)
{
	return npu_prog_op_name(opcode);
}

const char *npf_job_status_name(uint32_t status)
{
	static const char *const names[] = {
		[NPU_JOB_OK] = "OK",
		[NPU_JOB_BAD_OPCODE] = "BAD_OPCODE",
		[NPU_JOB_BAD_ADDRESS] = "BAD_ADDRESS",
		[NPU_JOB_MISALIGNED] = "MISALIGNED",
		[NPU_JOB_BAD_SHAPE] = "BAD_SHAPE",
		[NPU_JOB_BAD_PROGRAM] = "BAD_PROGRAM",
		[NPU_JOB_ABORTED] = "ABORTED",
		[NPU_JOB_BAD_CMD] = "BAD_CMD",
		[NPU_JOB_TIMEOUT] = "TIMEOUT",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : NULL;
}

const char *npf_lost_reason_name(uint32_t reason)
{
	switch (reason) {
	case NPU_TRACE_LOST_RING_FULL:
		return "ring-full";
	case NPU_TRACE_LOST_DEVICE:
		return "device";
	case NPU_TRACE_LOST_HOST:
		return "host";
	default:
		return "unknown";
	}
}

/* 16 lowercase hex digits of @v at @p (no terminator) */
static void npf_hex16(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 15; i >= 0; i--, v >>= 4)
		p[i] = digits[v & 15];
}

char *npf_hex_trace(char *buf, const uint64_t id[2])
{
	npf_hex16(buf, id[0]);
	npf_hex16(buf + 16, id[1]);
	buf[32] = 0;
	return buf;
}

char *npf_hex_span(char *buf, uint64_t id)
{
	npf_hex16(buf, id);
	buf[16] = 0;
	return buf;
}

void npf_dev_dur(const struct npuprof_trace *trace, uint32_t dev,
		 uint64_t clock_hz, uint64_t tick, uint64_t run_ticks,
		 uint64_t iowait_ticks, const struct npuprof_clock_map *start,
		 const struct npuprof_clock_map *end, struct npf_dur *out)
{
	const struct npf_clock_fit *fit = npf_trace_fit(trace, dev);
	double slope = 0;

	if (fit && fit->nseg && fit->seg)
		slope = npf_fit_slope(fit, tick);
	else if (clock_hz)
		slope = 1e9 / (double)clock_hz;
	npf_dur_at(slope, run_ticks, iowait_ticks, start, end, out);
}
