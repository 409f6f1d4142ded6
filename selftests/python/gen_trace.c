// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_trace.c - writes the trace files of the Python package's tests
 * (selftests/python), with the capture library's own writer:
 *
 *   npuprof-python-gen report FILE   the trace of the C report and SQLite
 *                                    tests (report_gen.h: two devices,
 *                                    four inferences, operators, a label
 *                                    with a comma and quotes, losses)
 *   npuprof-python-gen memory FILE   the buffer records of the C memory
 *                                    tests (memory_gen.h: three
 *                                    processes on two devices)
 *   npuprof-python-gen memory-used FILE  memory_gen.h's model trace:
 *                                    a model's operators and buffers
 *   npuprof-python-gen empty FILE    a device and nothing else
 *   npuprof-python-gen large N FILE  N inferences of report_gen.h's shape
 *                                    on one device, each with its job's
 *                                    execution and 8 operator records: for
 *                                    the timings of the DataFrame getters
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "report_gen.h"
#include "memory_gen.h"

static void gen_large_op(struct npf_writer *w, uint64_t job, uint32_t idx,
			 uint64_t start)
{
	static const uint16_t ops[] = { NPU_OP_CONV2D, NPU_OP_PAD, NPU_OP_ADD,
					NPU_OP_CLIP };
	struct npu_trace_rec_op o;

	memset(&o, 0, sizeof(o));
	o.hdr.type = NPU_TRACE_REC_OP;
	o.hdr.size = sizeof(o);
	o.pid = GEN_PID;
	o.tid = GEN_TID;
	o.job_id = job;
	o.opcode = ops[idx % 4];
	o.op_index = idx;
	o.start_tick = start + 100 * idx;
	o.end_tick = o.start_tick + 40 + idx;
	o.iowait_ticks = idx;
	gen_add_rec(w, 0, &o);
}

static char *gen_large(unsigned long n)
{
	struct npf_writer *w;
	unsigned long k;
	uint32_t seq = 0;
	char *path;

	if (asprintf(&path, "/tmp/npuprof-python-%d-large", (int)getpid()) < 0)
		abort();
	if (npf_writer_open(path, 1 << 20, &w))
		abort();
	gen_device(w, 0, 3, 2000000000);
	for (k = 0; k < n; k++) {
		uint64_t t = GEN_T0 + (uint64_t)k * 10000000, inf = 10 * k + 1;
		uint64_t tr = k + 1, job = k + 1, st = 1000000 * k;
		uint32_t i;

		gen_span(w, NPUPROF_SPAN_QUANTIZE, NPUPROF_SPAN_F_OP, GEN_PID,
			 inf + 1, inf, tr, t + 10, 100 + k % 7, 0, 0);
		gen_span(w, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB, GEN_PID,
			 inf + 3, inf, tr, t + 500, 50, job, 3);
		gen_span(w, NPUPROF_SPAN_WAIT, NPUPROF_SPAN_F_JOB, GEN_PID,
			 inf + 4, inf, tr, t + 600, 1000, job, 3);
		gen_span(w, NPUPROF_SPAN_DEQUANTIZE, NPUPROF_SPAN_F_OP, GEN_PID,
			 inf + 6, inf, tr, t + 3000, 400 + k % 5, 0, 0);
		gen_span(w, NPUPROF_SPAN_INFERENCE, 0, GEN_PID, inf, 0, tr, t,
			 1000000 + 37 * (k % 101), 0, 0);
		gen_exec(w, 0, seq++, GEN_PID, job, (uint16_t)(k & 1), st,
			 900 + k % 13, 100, st + 1000 + k % 13, 1, 2);
		for (i = 0; i < 8; i++)
			gen_large_op(w, job, i, st);
	}
	if (npf_writer_close(w))
		abort();
	return path;
}

int main(int argc, char **argv)
{
	const char *out = argv[argc - 1];
	char *path, *end;
	unsigned long n;

	if (argc == 3 && !strcmp(argv[1], "report")) {
		path = gen_trace("python");
	} else if (argc == 3 && !strcmp(argv[1], "memory")) {
		path = mem_gen_trace("python");
	} else if (argc == 3 && !strcmp(argv[1], "memory-used")) {
		if (asprintf(&path, "%s.tmp", out) < 0)
			return 1;
		mem_gen_model_write(path);
	} else if (argc == 3 && !strcmp(argv[1], "empty")) {
		path = gen_empty("python-empty");
	} else if (argc == 4 && !strcmp(argv[1], "large")) {
		errno = 0;
		n = strtoul(argv[2], &end, 10);
		if (errno || *end || !n) {
			fprintf(stderr, "%s: bad count %s\n", argv[0], argv[2]);
			return 2;
		}
		path = gen_large(n);
	} else {
		fprintf(stderr, "usage: %s report|memory|memory-used|empty FILE\n"
			"       %s large N FILE\n", argv[0], argv[0]);
		return 2;
	}
	if (rename(path, out)) {
		perror(out);
		unlink(path);
		free(path);
		return 1;
	}
	free(path);
	return 0;
}
