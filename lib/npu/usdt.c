// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdt.c - the slow path of libnpu's spans and its USDT probes, one site
 * per probe (names and arguments: lib/npuprof/npuprof_usdt.h).
 *
 * libnpuprof's slow path assigns the span's ids and start time whether or
 * not a session captures, so a probe-built span has the same ids as the
 * library-built one; the probe fires after it, with the fields the caller
 * knew at the start (operator index, job id).
 */
#include "npu_internal.h"
#include "npu_usdt.h"

/* Raised by tracers while a libnpu probe is attached (npuprof_usdt.h). */
unsigned short npu_probes_semaphore __attribute__((section(".probes")));

void npu_span_begin_slow(struct npuprof_span *s, unsigned int kind,
			 const struct npuprof_span *parent, uint32_t flags,
			 uint32_t op_index, uint64_t job_id, uint32_t minor)
{
	const struct npuprof_span_rec *r = &s->rec;

	npuprof_span_begin_slow(s, kind, parent);
	if (!s->on)
		return;
	s->rec.flags |= flags;
	s->rec.op_index = op_index;
	s->rec.job_id = job_id;
	s->rec.minor = minor;
	switch (kind) {
	case NPUPROF_SPAN_RUN:
		NPU_USDT_SPAN(run_begin, r);
		break;
	case NPUPROF_SPAN_INFERENCE:
		NPU_USDT_SPAN(inference_begin, r);
		break;
	case NPUPROF_SPAN_SET_INPUT:
		NPU_USDT_SPAN(set_input_begin, r);
		break;
	case NPUPROF_SPAN_GET_OUTPUT:
		NPU_USDT_SPAN(get_output_begin, r);
		break;
	case NPUPROF_SPAN_QUANTIZE:
	case NPUPROF_SPAN_LOWER:
	case NPUPROF_SPAN_UNLOWER:
	case NPUPROF_SPAN_DEQUANTIZE:
		NPU_USDT_SPAN(cpuop_begin, r);
		break;
	case NPUPROF_SPAN_SUBMIT:
		NPU_USDT_SPAN(submit_begin, r);
		break;
	case NPUPROF_SPAN_WAIT:
		NPU_USDT_SPAN(wait_begin, r);
		break;
	}
}

void npu_span_end_slow(struct npuprof_span *s)
{
	const struct npuprof_span_rec *r = &s->rec;

	/* records the span when a session captures; sets end_ns always */
	npuprof_span_end_slow(s);
	switch (r->kind) {
	case NPUPROF_SPAN_RUN:
		NPU_USDT_SPAN(run_end, r);
		break;
	case NPUPROF_SPAN_INFERENCE:
		NPU_USDT_SPAN(inference_end, r);
		break;
	case NPUPROF_SPAN_SET_INPUT:
		NPU_USDT_SPAN(set_input_end, r);
		break;
	case NPUPROF_SPAN_GET_OUTPUT:
		NPU_USDT_SPAN(get_output_end, r);
		break;
	case NPUPROF_SPAN_QUANTIZE:
	case NPUPROF_SPAN_LOWER:
	case NPUPROF_SPAN_UNLOWER:
	case NPUPROF_SPAN_DEQUANTIZE:
		NPU_USDT_SPAN(cpuop_end, r);
		break;
	case NPUPROF_SPAN_SUBMIT:
		NPU_USDT_SPAN(submit_end, r);
		break;
	case NPUPROF_SPAN_WAIT:
		NPU_USDT_SPAN(wait_end, r);
		break;
	}
}
