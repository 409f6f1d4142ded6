/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memory_gen.h - the synthetic trace of the memory tests (test_memory.c,
 * and the memory tables of test_sqlite.c and the Python tests through
 * npuprof-python-gen if they use it): buffer records (BO_ALLOC, BO_FREE)
 * of three processes on two devices, whose every figure is computed by
 * hand below. Header-only, no state.
 *
 * Device 0 is /dev/npu2, dram_size 1 MiB; its DRAM starts at 0x400000.
 * Another process the trace does not show holds 64 KiB all along, so
 * dev_used (the driver's counter) is the trace's bytes + 65536 (+ 61440
 * after that process frees 4 KiB whose allocation the trace lacks).
 * Times are MEM_T0 + the microsecond given, in ns.
 *
 *   us  pid  event                                 trace bytes dev_used
 *   1   100  alloc id1 0x400000 64 KiB program     65536       131072
 *   2   200  alloc id2 0x420000 32 KiB input       98304       163840
 *   3   100  alloc id3 0x428000 128 KiB scratch    229376      294912  peak
 *   4   200  fail 1 MiB scratch -ENOMEM            229376      294912
 *   5   200  free id2 (handle)                     196608      262144
 *   6   300  alloc id4 0x410000 16 KiB output      212992      278528
 *   7   100  free id3 (close)                      81920       147456
 *   8   300  fail 8 KiB input -EDQUOT              81920       147456
 *   9   300  alloc id5 0x414000 4 KiB output       86016       151552
 *   10  400  free id99 (unpaired: skipped)         86016       147456
 *   10  -    alloc of size 0 (nonsense: skipped)
 *   11  300  free id4 (job)                        69632       131072
 *
 * Device 0: max_allocated 229376 at 3 us, device_max_allocated 294912
 * at 3 us; 5 allocs, 3 frees, 2 failures, 2 live at the end (id1, id5:
 * 69632 bytes), 2 skipped. At the peak id1 [0x400000, 0x410000), id2
 * [0x420000, 0x428000), id3 [0x428000, 0x448000) are live: free
 * 1048576 - 229376 = 819200 bytes, the largest extent 0x500000 -
 * 0x448000 = 753664, fragmentation 100 * 65536 / 819200 = 8 %. The
 * peak's buffers by size: id3 (131072, scratch, 100/101, 3 us), id1
 * (65536, program, 100/101, 1 us), id2 (32768, input, 200/201, 2 us).
 *
 * Device 1 is /dev/npu7, dram_size 64 KiB: process 100 allocates id1
 * (same id, another device) at 0x400000, 8 KiB, other, at 1.5 us and
 * frees it at 2.5 us (handle); dev_used 8192 then 0.
 *
 * Processes, largest first: (100, dev 0) max 196608 at 3 us, 2 allocs,
 * 1 free, 65536 at the end; (200, dev 0) 32768 at 2 us, 1, 1, 1
 * failure, 0; (300, dev 0) 20480 at 9 us, 2, 1, 1 failure, 4096;
 * (100, dev 1) 8192 at 1.5 us, 1, 1, 0.
 *
 * The used side (mem_gen_model_write()): process 100 on /dev/npu2 loads
 * model 5, "tiny" (slots: 0 const 4096, 1 input 1024, 2 output 256,
 * 3 scratch 2048), allocates one 4 KiB buffer per slot (16384 bytes,
 * at 1..4 us) and runs job 1 of it, whose two operators are recorded:
 *
 *   tensor  slot  bytes  written  read      lives
 *   T0 x    1     600    -        op0       [0, 0] (an input)
 *   T1 w    0     400    -        op0, op1  [0, 1] (a constant)
 *   T2 a    3     1000   op0      op1       [0, 1]
 *   T3 y    2     200    op1      -         [1, end] (an output)
 *
 *   op0 CONV2D: in 1000, out 1000, live 600 + 400 + 1000 = 2000 <- peak
 *   op1 FC:     in 1400, out 200,  live 400 + 1000 + 200  = 1600
 *
 * allocated (the slots the program uses) 4096 + 1024 + 256 + 2048 = 7424.
 * max_used 2000 against max_allocated 16384: 12.20703125 %.
 *
 * Its MODEL item carries the layer table of layers_gen.h after the
 * program: op0 is layer "conv1/Conv", op1 "fc/Gemm", with their shapes
 * (mem_gen_model_item_tail() writes other bytes there instead).
 */
#ifndef MEMORY_GEN_H
#define MEMORY_GEN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/npu.h>
#include "npu/npu_model_file.h"
#include "npu/npu_program.h"
#include "gen_util.h"
#include "layers_gen.h"
#include "npuprof.h"
#include "trace_format.h"
#include "writer.h"

#define MEM_T0		10000000000ull	/* 10 s */
#define MEM_US(us)	(MEM_T0 + (uint64_t)((us) * 1000))

/* Device @dev, /dev/npu@minor: 2 PEs, 1 GHz, @dram bytes */
static inline void mem_gen_device(struct npf_writer *w, uint32_t dev,
				  uint32_t minor, uint64_t dram)
{
	gen_util_device(w, dev, minor, 2, 1000000000, dram);
}

/* A BO record of device @dev */
static inline void mem_gen_bo(struct npf_writer *w, uint32_t dev,
			      uint16_t type, uint32_t seq, int32_t pid,
			      uint64_t id, uint64_t addr, uint64_t size,
			      uint32_t kind, int32_t error, uint32_t reason,
			      uint64_t ns, uint64_t used)
{
	struct npf_item_record ir = { .dev = dev };
	struct npu_trace_rec_bo r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = type;
	r.hdr.size = sizeof(r);
	r.hdr.seq = seq;
	r.pid = pid;
	r.tid = type == NPU_TRACE_REC_BO_ALLOC ? pid + 1 : 0;
	r.bo_id = id;
	r.dev_addr = addr;
	r.size = size;
	r.kind = kind;
	r.error = error;
	r.reason = reason;
	r.host_ns = ns;
	r.dev_used = used;
	if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), &r, sizeof(r)))
		abort();
}

#define MEM_A	NPU_TRACE_REC_BO_ALLOC
#define MEM_F	NPU_TRACE_REC_BO_FREE

/* Write the trace described above to @path */
static inline void mem_gen_write(const char *path)
{
	struct npf_writer *w;

	if (npf_writer_open(path, 4096, &w))
		abort();
	if (npf_writer_add(w, NPF_ITEM_META, "cmdline\0memgen", 15, NULL, 0))
		abort();
	mem_gen_device(w, 0, 2, 1048576);
	mem_gen_device(w, 1, 7, 65536);
	mem_gen_bo(w, 0, MEM_A, 1, 100, 1, 0x400000, 65536,
		   NPU_BO_KIND_PROGRAM, 0, 0, MEM_US(1), 131072);
	mem_gen_bo(w, 1, MEM_A, 1, 100, 1, 0x400000, 8192,
		   NPU_BO_KIND_OTHER, 0, 0, MEM_US(1.5), 8192);
	mem_gen_bo(w, 0, MEM_A, 2, 200, 2, 0x420000, 32768,
		   NPU_BO_KIND_INPUT, 0, 0, MEM_US(2), 163840);
	mem_gen_bo(w, 1, MEM_F, 2, 100, 1, 0x400000, 8192,
		   NPU_BO_KIND_OTHER, 0, NPU_TRACE_BO_FREE_HANDLE, MEM_US(2.5), 0);
	mem_gen_bo(w, 0, MEM_A, 3, 100, 3, 0x428000, 131072,
		   NPU_BO_KIND_SCRATCH, 0, 0, MEM_US(3), 294912);
	mem_gen_bo(w, 0, MEM_A, 4, 200, 0, 0, 1048576,
		   NPU_BO_KIND_SCRATCH, -ENOMEM, 0, MEM_US(4), 294912);
	mem_gen_bo(w, 0, MEM_F, 5, 200, 2, 0x420000, 32768,
		   NPU_BO_KIND_INPUT, 0, NPU_TRACE_BO_FREE_HANDLE, MEM_US(5), 262144);
	mem_gen_bo(w, 0, MEM_A, 6, 300, 4, 0x410000, 16384,
		   NPU_BO_KIND_OUTPUT, 0, 0, MEM_US(6), 278528);
	mem_gen_bo(w, 0, MEM_F, 7, 100, 3, 0x428000, 131072,
		   NPU_BO_KIND_SCRATCH, 0, NPU_TRACE_BO_FREE_CLOSE, MEM_US(7), 147456);
	mem_gen_bo(w, 0, MEM_A, 8, 300, 0, 0, 8192,
		   NPU_BO_KIND_INPUT, -EDQUOT, 0, MEM_US(8), 147456);
	mem_gen_bo(w, 0, MEM_A, 9, 300, 5, 0x414000, 4096,
		   NPU_BO_KIND_OUTPUT, 0, 0, MEM_US(9), 151552);
	mem_gen_bo(w, 0, MEM_F, 10, 400, 99, 0x480000, 4096,
		   NPU_BO_KIND_OTHER, 0, NPU_TRACE_BO_FREE_HANDLE, MEM_US(10), 147456);
	mem_gen_bo(w, 0, MEM_A, 11, 400, 7, 0x480000, 0,
		   NPU_BO_KIND_OTHER, 0, 0, MEM_US(10), 147456);
	mem_gen_bo(w, 0, MEM_F, 12, 300, 4, 0x410000, 16384,
		   NPU_BO_KIND_OUTPUT, 0, NPU_TRACE_BO_FREE_JOB, MEM_US(11), 131072);
	if (npf_writer_close(w))
		abort();
}

#define MEM_NT		4
#define MEM_NO		2
#define MEM_PROG_SIZE	(sizeof(struct npu_prog_hdr) + MEM_NT * 32 + MEM_NO * 64)

static inline void mem_gen_tensor(struct npu_prog_tensor *t, uint8_t buf,
				  uint32_t off, uint32_t n)
{
	gen_util_tensor(t, NPU_DT_U8, buf, off, n);
}

static inline void mem_gen_prog_op(struct npu_prog_op *o, uint16_t code,
				   uint16_t a, uint16_t b, uint16_t out)
{
	memset(o, 0, sizeof(*o));
	o->opcode = code;
	o->in[0] = a;
	o->in[1] = b;
	o->in[2] = NPU_PROG_NONE;
	o->rq = NPU_PROG_NONE;
	o->out = out;
}

/* Model 5's MODEL item body up to its program's end, padded to 8 bytes */
struct mem_gen_body {
	struct npf_item_model h;
	uint8_t prog[(MEM_PROG_SIZE + 7) & ~7u];
};

/* Model 5, "tiny", described above: its MODEL item's body into *@b */
static inline void mem_gen_model_body(struct mem_gen_body *b)
{
	static const uint64_t slot_size[4] = { 4096, 1024, 256, 2048 };
	static const uint32_t slot_kind[4] = {
		NPU_MODEL_SLOT_CONST, NPU_MODEL_SLOT_INPUT,
		NPU_MODEL_SLOT_OUTPUT, NPU_MODEL_SLOT_SCRATCH,
	};
	struct npu_prog_hdr ph = {
		.magic = NPU_PROG_MAGIC, .version = NPU_PROG_VERSION,
		.hdr_size = sizeof(ph), .n_tensors = MEM_NT, .n_ops = MEM_NO,
		.tensors_off = sizeof(ph), .ops_off = sizeof(ph) + MEM_NT * 32,
		.size = MEM_PROG_SIZE,
	};
	struct npu_prog_tensor t[MEM_NT];
	struct npu_prog_op o[MEM_NO];

	memset(b, 0, sizeof(*b));
	b->h.model_id = 5;
	b->h.pid = 100;
	snprintf(b->h.name, sizeof(b->h.name), "tiny");
	b->h.n_slots = 4;
	b->h.prog_size = MEM_PROG_SIZE;
	memcpy(b->h.slot_size, slot_size, sizeof(slot_size));
	memcpy(b->h.slot_kind, slot_kind, sizeof(slot_kind));
	mem_gen_tensor(&t[0], 1, 0, 600);
	mem_gen_tensor(&t[1], 0, 0, 400);
	mem_gen_tensor(&t[2], 3, 0, 1000);
	mem_gen_tensor(&t[3], 2, 0, 200);
	mem_gen_prog_op(&o[0], NPU_OP_CONV2D, 0, 1, 2);
	mem_gen_prog_op(&o[1], NPU_OP_FC, 2, 1, 3);
	memcpy(b->prog, &ph, sizeof(ph));
	memcpy(b->prog + ph.tensors_off, t, sizeof(t));
	memcpy(b->prog + ph.ops_off, o, sizeof(o));
}

/*
 * Model 5's MODEL item, with @tail_len bytes of @tail after the program
 * padded to 8 bytes (none when 0)
 */
static inline void mem_gen_model_item_tail(struct npf_writer *w,
					   const void *tail, size_t tail_len)
{
	struct mem_gen_body b;

	mem_gen_model_body(&b);
	if (npf_writer_add(w, NPF_ITEM_MODEL, &b,
			   tail_len ? sizeof(b) : sizeof(b.h) + MEM_PROG_SIZE,
			   tail, tail_len))
		abort();
}

/* Model 5's MODEL item with its layer table (layers_gen.h) */
static inline void mem_gen_model_item(struct npf_writer *w)
{
	struct lay_table t;

	lay_gen_table(&t);
	mem_gen_model_item_tail(w, &t, LAY_SIZE);
}

static const uint16_t mem_gen_opcode[MEM_NO] = { NPU_OP_CONV2D, NPU_OP_FC };

/* The SUBMIT span of job @job of model 5 on /dev/npu2 */
static inline void mem_gen_submit(struct npf_writer *w, int32_t pid,
				  uint64_t job, uint64_t start, uint64_t end)
{
	struct npuprof_span_rec sp;

	memset(&sp, 0, sizeof(sp));
	sp.kind = NPUPROF_SPAN_SUBMIT;
	sp.flags = NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_MODEL;
	sp.name_id = 5;
	sp.pid = pid;
	sp.tid = pid + 1;
	sp.span_id = job;
	sp.start_ns = start;
	sp.end_ns = end;
	sp.job_id = job;
	sp.minor = 2;
	if (npf_writer_add(w, NPF_ITEM_SPAN, &sp, sizeof(sp), NULL, 0))
		abort();
}

/* Operator @i of job @job on PE @pe, from tick @start, 5 ticks long */
static inline void mem_gen_op(struct npf_writer *w, int32_t pid, uint64_t job,
			      uint16_t pe, uint32_t i, uint32_t seq,
			      uint64_t start)
{
	struct npf_item_record ir = { .dev = 0 };
	struct npu_trace_rec_op op;

	memset(&op, 0, sizeof(op));
	op.hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_OP, sizeof(op),
					     seq };
	op.pid = pid;
	op.tid = pid + 1;
	op.job_id = job;
	op.pe = pe;
	op.opcode = mem_gen_opcode[i];
	op.op_index = i;
	op.start_tick = start;
	op.end_tick = start + 5;
	if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), &op,
			   sizeof(op)))
		abort();
}

/* The used side's trace, described above, to @path */
static inline void mem_gen_model_write(const char *path)
{
	struct npf_item_record ir = { .dev = 0 };
	struct npu_trace_rec_exec e;
	struct npf_writer *w;
	uint32_t i;

	if (npf_writer_open(path, 4096, &w))
		abort();
	mem_gen_device(w, 0, 2, 1048576);
	mem_gen_model_item(w);
	for (i = 0; i < 4; i++)
		mem_gen_bo(w, 0, MEM_A, i, 100, i + 1, 0x400000 + i * 4096,
			   4096, i == 0 ? NPU_BO_KIND_PROGRAM :
			   i == 1 ? NPU_BO_KIND_INPUT : i == 2 ?
			   NPU_BO_KIND_OUTPUT : NPU_BO_KIND_SCRATCH, 0, 0,
			   MEM_US(i + 1), 4096 * (i + 1));
	mem_gen_submit(w, 100, 1, MEM_US(5), MEM_US(6));
	for (i = 0; i < MEM_NO; i++)
		mem_gen_op(w, 100, 1, 0, i, 4 + i, 1000 + 10 * i);
	memset(&e, 0, sizeof(e));
	e.hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_EXEC, sizeof(e), 6 };
	e.pid = 100;
	e.tid = 101;
	e.job_id = 1;
	e.submit_ns = MEM_US(5);
	e.complete_ns = MEM_US(7);
	if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), &e, sizeof(e)))
		abort();
	if (npf_writer_close(w))
		abort();
}

/*
 * The used counters' trace (mem_gen_jobs_write()): model 5 on /dev/npu2
 * with device times (clock samples: tick = host ns - 1 s, exactly), two
 * jobs on its two PEs, T = 10 s + 10 us:
 *
 *   job  pid  PE  EXEC        op0 (2000)  op1 (1600)
 *   1    100  0   T+0..T+20   T+0..T+5    T+10..T+15
 *   2    300  1   T+8..T+30   T+8..T+13   T+22..T+27
 *
 * "memory used" of the device: 2000 at T, 4000 at T+8, 3600 at T+10,
 * 2000 at T+20 (job 1 ends), 1600 at T+22, 0 at T+30; "npu2 memory used"
 * of process 100: 2000 at T, 1600 at T+10, 0 at T+20; of process 300:
 * 2000 at T+8, 1600 at T+22, 0 at T+30. Job 1's SUBMIT span follows its
 * records in the file (as a capture writes it: at its end), job 2's comes
 * first: the model is process 100's, so the join holds only process
 * 100's operators for a span to come (join.c). mem_gen_jobs_write_tail()
 * puts other bytes than the layer table after the model's program.
 */
static inline void mem_gen_jobs_write_tail(const char *path,
					   const void *tail, size_t tail_len)
{
	static const struct {
		int32_t pid;
		uint16_t pe;
		uint64_t start, end, op[MEM_NO];
	} job[2] = {
		{ 100, 0, 0, 20, { 0, 10 } },
		{ 300, 1, 8, 30, { 8, 22 } },
	};
	const uint64_t t = MEM_US(10) - 1000000000ull;	/* in ticks */
	struct npf_item_record ir = { .dev = 0 };
	struct npu_trace_rec_clock c;
	struct npu_trace_rec_exec e;
	struct npf_writer *w;
	uint32_t i, k, seq = 0;

	if (npf_writer_open(path, 4096, &w))
		abort();
	mem_gen_device(w, 0, 2, 1048576);
	mem_gen_model_item_tail(w, tail, tail_len);
	for (i = 0; i < 11; i++) {
		uint64_t h = MEM_T0 + (uint64_t)i * 10000000;

		memset(&c, 0, sizeof(c));
		c.hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_CLOCK,
						    sizeof(c), seq++ };
		c.samples = 8;
		c.host_before_ns = h - 1000;
		c.device_tick = h - 1000000000ull;
		c.host_after_ns = h + 1000;
		c.width_ns = 2000;
		c.clock_hz = 1000000000;
		if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), &c,
				   sizeof(c)))
			abort();
	}
	for (k = 0; k < 2; k++) {
		if (k == 1)	/* before its records: the join needs it */
			mem_gen_submit(w, job[k].pid, k + 1, MEM_US(5),
				       MEM_US(50));
		/* the driver writes a job's OP records before its EXEC */
		for (i = 0; i < MEM_NO; i++)
			mem_gen_op(w, job[k].pid, k + 1, job[k].pe, i, seq++,
				   t + job[k].op[i]);
		memset(&e, 0, sizeof(e));
		e.hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_EXEC,
						    sizeof(e), seq++ };
		e.flags = NPU_TRACE_EXEC_F_DEVICE;
		e.pid = job[k].pid;
		e.tid = job[k].pid + 1;
		e.job_id = k + 1;
		e.submit_ns = MEM_US(5);
		e.complete_ns = MEM_US(50);
		e.pe = job[k].pe;
		e.n_ops = MEM_NO;
		e.start_tick = t + job[k].start;
		e.end_tick = t + job[k].end;
		e.run_ticks = job[k].end - job[k].start;
		if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), &e,
				   sizeof(e)))
			abort();
		if (k == 0)
			mem_gen_submit(w, job[k].pid, k + 1, MEM_US(5),
				       MEM_US(50));
	}
	if (npf_writer_close(w))
		abort();
}

/* That trace, its model with the layer table of layers_gen.h */
static inline void mem_gen_jobs_write(const char *path)
{
	struct lay_table t;

	lay_gen_table(&t);
	mem_gen_jobs_write_tail(path, &t, LAY_SIZE);
}

/* The trace above in a new temporary file; free() the path */
static inline char *mem_gen_trace(const char *name)
{
	char *path;

	if (asprintf(&path, "/tmp/npuprof-memory-%d-%s", (int)getpid(), name) < 0)
		abort();
	mem_gen_write(path);
	return path;
}

#endif /* MEMORY_GEN_H */
