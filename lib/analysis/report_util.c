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

#include <errno.h>
#include <string.h>

#include <linux/npu.h>

#include "compiler.h"
#include "report_util.h"
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

static const char *const npf_kind_names[NPUPROF_SPAN_KIND_MAX + 1] = {
	[NPUPROF_SPAN_LABEL] = "record",
	[NPUPROF_SPAN_RUN] = "run",
	[NPUPROF_SPAN_INFERENCE] = "inference",
	[NPUPROF_SPAN_SET_INPUT] = "set_input",
	[NPUPROF_SPAN_GET_OUTPUT] = "get_output",
	[NPUPROF_SPAN_QUANTIZE] = "Quantize",
	[NPUPROF_SPAN_LOWER] = "Lower",
	[NPUPROF_SPAN_UNLOWER] = "Unlower",
	[NPUPROF_SPAN_DEQUANTIZE] = "Dequantize",
	[NPUPROF_SPAN_SUBMIT] = "submit",
	[NPUPROF_SPAN_WAIT] = "wait",
	[NPUPROF_SPAN_USER] = "user",
};

NPUPROF_EXPORT
const char *npuprof_span_kind_name(unsigned int kind)
{
	if (kind > NPUPROF_SPAN_KIND_MAX || !npf_kind_names[kind])
		return "unknown";
	return npf_kind_names[kind];
}

NPUPROF_EXPORT
const char *npuprof_table_name(unsigned int table)
{
	static const char *const names[] = {
		[NPUPROF_TABLE_INFERENCES] = "inferences",
		[NPUPROF_TABLE_EXECUTIONS] = "executions",
		[NPUPROF_TABLE_OPERATORS] = "operators",
		[NPUPROF_TABLE_EXTERNAL] = "external",
		[NPUPROF_TABLE_SPANS] = "spans",
		[NPUPROF_TABLE_OP_RECORDS] = "op_records",
	};

	return table < sizeof(names) / sizeof(names[0]) ? names[table] : NULL;
}

NPUPROF_EXPORT
void npuprof_report_opts_init(struct npuprof_report_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->format = NPUPROF_FORMAT_TABLE;
	opts->table = NPUPROF_TABLE_INFERENCES;
}

int npf_opts_copy(void *o, size_t osz, const void *in, size_t min)
{
	size_t sz, i;

	if (!in)
		return 0;
	memcpy(&sz, in, sizeof(sz));
	if (sz < min)
		return -EINVAL;
	for (i = osz; i < sz; i++)
		if (((const unsigned char *)in)[i])
			return -E2BIG;
	memcpy(o, in, sz < osz ? sz : osz);
	memcpy(o, &osz, sizeof(osz));
	return 0;
}

int npf_report_opts(const struct npuprof_report_opts *in,
		    struct npuprof_report_opts *o)
{
	int ret;

	npuprof_report_opts_init(o);
	ret = npf_opts_copy(o, sizeof(*o), in, sizeof(size_t));
	if (ret)
		return ret;
	if (!o->format)
		o->format = NPUPROF_FORMAT_TABLE;
	if (!o->table)
		o->table = NPUPROF_TABLE_INFERENCES;
	return 0;
}
