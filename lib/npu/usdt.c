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

/*
 * The begin probe of span @s's kind. Out of line, so that each probe keeps
 * one site although two entry points (with and without a shared stamp)
 * call it: a tracer attaches once.
 */
static __attribute__((noinline)) void
npu_span_probe_begin(const struct npuprof_span *s, unsigned int kind)
{
	const struct npuprof_span_rec *r = &s->rec;

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

/*
 * Span @s just begun: its fields, then the begin probe of its kind while a
 * tracer has libnpu's probes attached.
 */
static inline __attribute__((always_inline)) void
npu_span_begun(struct npuprof_span *s, unsigned int kind, uint32_t flags,
	       uint32_t op_index, uint64_t job_id, uint32_t minor)
{
	if (!s->on)
		return;
	s->rec.flags |= flags;
	s->rec.op_index = op_index;
	s->rec.job_id = job_id;
	s->rec.minor = minor;
	if (NPU_USDT_SEMAPHORE(npu_probes_semaphore))
		npu_span_probe_begin(s, kind);
}

void npu_span_begin_slow(struct npuprof_span *s, unsigned int kind,
			 const struct npuprof_span *parent, uint32_t flags,
			 uint32_t op_index, uint64_t job_id, uint32_t minor)
{
	npuprof_span_begin_slow(s, kind, parent);
	npu_span_begun(s, kind, flags, op_index, job_id, minor);
}

void npu_span_op_begin_at_slow(struct npuprof_span *s, unsigned int kind,
			       const struct npuprof_span *parent,
			       unsigned int idx, struct npuprof_stamp at)
{
	npuprof_span_begin_at_slow(s, kind, parent, at);
	npu_span_begun(s, kind, NPUPROF_SPAN_F_OP, idx, 0, 0);
}

/* The end probe of span @s's kind (out of line: one site). */
static __attribute__((noinline)) void
npu_span_probe_end(const struct npuprof_span *s)
{
	const struct npuprof_span_rec *r = &s->rec;

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

void npu_span_end_slow(struct npuprof_span *s)
{
	/* records the span when a session captures; sets end_ns always */
	npuprof_span_end_slow(s);
	if (NPU_USDT_SEMAPHORE(npu_probes_semaphore))
		npu_span_probe_end(s);
}

struct npuprof_stamp npu_span_end_at_slow(struct npuprof_span *s,
					  struct npuprof_stamp at)
{
	struct npuprof_stamp end = npuprof_span_end_at_slow(s, at);

	if (NPU_USDT_SEMAPHORE(npu_probes_semaphore))
		npu_span_probe_end(s);
	return end;
}
