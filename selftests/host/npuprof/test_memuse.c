// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_memuse.c - used against allocated bytes (lib/analysis/memuse.c,
 * Documentation/npu/memory.rst "Used and allocated") and the models of a
 * trace file: a hand-built program whose tensor lifetimes, and so every
 * operator's used bytes and the peak, are known by hand; damaged MODEL
 * items refused with a clear message; models written by the capture
 * library (registered before the session, while it runs and while it is
 * paused) and read back with their SUBMIT spans; the join's model ids on
 * execution and operator rows, with an operator read before its SUBMIT
 * span, and a damaged MODEL item skipped while the rest of the file reads.
 *
 * The program (slots: 0 const 4096, 1 input 1024, 2 output 256,
 * 3 scratch 2048, 4 scratch 8192 that no tensor uses):
 *
 *   tensor  slot  bytes  written  read       lives
 *   T0 x    1     600    -        op0, op2   [0, 2] (an input)
 *   T1 w    0     400    -        op0, op3   [0, 3] (a constant)
 *   T2 rq   0     8      -        op0, op3   [0, 3] (i32 x 2)
 *   T3 a    3     1000   op0      op1        [0, 1]
 *   T4 b    3     500    op1      op2        [1, 2]
 *   T5 c    3     300    op2      op3        [2, 3] (a's bytes again)
 *   T6 y    2     200    op3      -          [3, 3] (output: to the end)
 *   T7      3     100    -        -          never live
 *
 *   op  in                out    used (live)
 *   0   T0 T1 T2 = 1008   1000   600+400+8+1000      = 2008
 *   1   T3       = 1000   500    600+400+8+1000+500  = 2508  <- peak
 *   2   T4 T0    = 1100   300    600+400+8+500+300   = 1808
 *   3   T5 T1 T2 = 708    200    400+8+300+200       = 908
 *
 * Allocated: slots 0..3 = 4096 + 1024 + 256 + 2048 = 7424 (slot 4 holds
 * no tensor: not the program's). Constants 408; all tensors 3108.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gen_util.h"
#include "npuprof.h"
#include "npuprof_analysis.h"
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "join.h"
#include "memuse.h"
#include "trace.h"
#include "trace_format.h"
#include "writer.h"

#define NT	8
#define NO	4
#define PROG_SIZE (sizeof(struct npu_prog_hdr) + NT * 32 + NO * 64)

struct body {
	struct npf_item_model h;
	uint8_t prog[PROG_SIZE];
};

static const uint64_t slot_size[5] = { 4096, 1024, 256, 2048, 8192 };
static const uint32_t slot_kind[5] = {
	NPU_MODEL_SLOT_CONST, NPU_MODEL_SLOT_INPUT, NPU_MODEL_SLOT_OUTPUT,
	NPU_MODEL_SLOT_SCRATCH, NPU_MODEL_SLOT_SCRATCH,
};

#define tensor	gen_util_tensor

static void op(struct npu_prog_op *o, uint16_t code, uint16_t a, uint16_t b,
	       uint16_t rq, uint16_t out)
{
	memset(o, 0, sizeof(*o));
	o->opcode = code;
	o->in[0] = a;
	o->in[1] = b;
	o->in[2] = NPU_PROG_NONE;
	o->rq = rq;
	o->out = out;
}

/* The program above, in its MODEL item body */
static void build(struct body *b, uint32_t id, int32_t pid, const char *name)
{
	struct npu_prog_hdr ph = {
		.magic = NPU_PROG_MAGIC, .version = NPU_PROG_VERSION,
		.hdr_size = sizeof(ph), .n_tensors = NT, .n_ops = NO,
		.tensors_off = sizeof(ph), .ops_off = sizeof(ph) + NT * 32,
		.size = PROG_SIZE,
	};
	struct npu_prog_tensor t[NT];
	struct npu_prog_op o[NO];
	const uint16_t N = NPU_PROG_NONE;

	memset(b, 0, sizeof(*b));
	b->h.model_id = id;
	b->h.pid = pid;
	snprintf(b->h.name, sizeof(b->h.name), "%s", name);
	b->h.n_slots = 5;
	b->h.prog_size = PROG_SIZE;
	memcpy(b->h.slot_size, slot_size, sizeof(slot_size));
	memcpy(b->h.slot_kind, slot_kind, sizeof(slot_kind));
	tensor(&t[0], NPU_DT_U8, 1, 0, 600);
	tensor(&t[1], NPU_DT_I8, 0, 0, 400);
	tensor(&t[2], NPU_DT_I32, 0, 400, 2);
	tensor(&t[3], NPU_DT_U8, 3, 0, 1000);
	tensor(&t[4], NPU_DT_U8, 3, 1024, 500);
	tensor(&t[5], NPU_DT_U8, 3, 0, 300);
	tensor(&t[6], NPU_DT_U8, 2, 0, 200);
	tensor(&t[7], NPU_DT_U8, 3, 1600, 100);
	op(&o[0], NPU_OP_CONV2D, 0, 1, 2, 3);
	op(&o[1], NPU_OP_CLIP, 3, N, N, 4);
	op(&o[2], NPU_OP_ADD, 4, 0, N, 5);
	op(&o[3], NPU_OP_FC, 5, 1, 2, 6);
	memcpy(b->prog, &ph, sizeof(ph));
	memcpy(b->prog + ph.tensors_off, t, sizeof(t));
	memcpy(b->prog + ph.ops_off, o, sizeof(o));
}

TEST(hand_built_program)
{
	static const uint64_t in[NO] = { 1008, 1000, 1100, 708 };
	static const uint64_t out[NO] = { 1000, 500, 300, 200 };
	static const uint64_t live[NO] = { 2008, 2508, 1808, 908 };
	static const uint16_t code[NO] = { NPU_OP_CONV2D, NPU_OP_CLIP,
					   NPU_OP_ADD, NPU_OP_FC };
	struct npf_model_mem mm;
	struct npf_op_mem om;
	struct npf_model *m;
	struct body b;
	char err[160];
	uint32_t i;

	build(&b, 7, 1234, "tiny");
	ASSERT_EQ(0, npf_model_parse(&b, sizeof(b), &m, err, sizeof(err)));
	EXPECT_EQ(7u, npf_model_id(m));
	EXPECT_EQ(1234, npf_model_pid(m));
	EXPECT_STREQ("tiny", npf_model_name(m));
	EXPECT_EQ((uint32_t)NO, npf_model_nops(m));
	for (i = 0; i < NO; i++) {
		ASSERT_EQ(0, npf_model_op_mem(m, i, &om));
		EXPECT_EQ(in[i], om.in_bytes);
		EXPECT_EQ(out[i], om.out_bytes);
		EXPECT_EQ(live[i], om.live_bytes);
		EXPECT_EQ(7424u, om.alloc_bytes);
		EXPECT_EQ(code[i], npf_model_opcode(m, i));
	}
	EXPECT_EQ(-ENOENT, npf_model_op_mem(m, NO, &om));
	EXPECT_EQ(0, npf_model_opcode(m, NO));
	ASSERT_EQ(0, npf_model_mem(m, &mm));
	EXPECT_EQ((uint32_t)NO, mm.n_ops);
	EXPECT_EQ((uint32_t)NT, mm.n_tensors);
	EXPECT_EQ(2508u, mm.peak_used);
	EXPECT_EQ(1u, mm.peak_op);
	EXPECT_EQ(7424u, mm.alloc_bytes);
	EXPECT_EQ(408u, mm.const_bytes);
	EXPECT_EQ(3108u, mm.tensor_bytes);
	/* the lifetimes of the table above; T7 never lives */
	for (i = 0; i < NT; i++) {
		static const int32_t first[NT] = { 0, 0, 0, 0, 1, 2, 3, -1 };
		static const int32_t last[NT] = { 2, 3, 3, 1, 2, 3, 3, -1 };
		static const uint64_t bytes[NT] = { 600, 400, 8, 1000, 500,
						    300, 200, 100 };
		struct npf_tensor_mem tm;

		ASSERT_EQ(0, npf_model_tensor(m, i, &tm));
		EXPECT_EQ(first[i], tm.first_op);
		EXPECT_EQ(last[i], tm.last_op);
		EXPECT_EQ(bytes[i], tm.bytes);
	}
	EXPECT_EQ(-ENOENT, npf_model_tensor(m, NT, &(struct npf_tensor_mem){ 0 }));
	npf_model_free(m);
}

/* Damage @b with @fn and expect -EBADMSG with @want in the message */
static int damaged(struct body *b, size_t len, const char *want)
{
	struct npf_model *m = (void *)1;
	char err[160];
	int ret = npf_model_parse(b, len, &m, err, sizeof(err));

	if (ret != -EBADMSG || m || !strstr(err, want)) {
		fprintf(stderr, "# want \"%s\": ret %d, \"%s\"\n", want, ret, err);
		return -1;
	}
	return 0;
}

static struct npu_prog_tensor *tensors(struct body *b)
{
	return (struct npu_prog_tensor *)(b->prog + sizeof(struct npu_prog_hdr));
}

static struct npu_prog_op *ops(struct body *b)
{
	return (struct npu_prog_op *)(b->prog + sizeof(struct npu_prog_hdr) +
				      NT * 32);
}

TEST(damaged_models)
{
	struct npu_prog_hdr *ph;
	struct body b;

	build(&b, 1, 1, "x");
	EXPECT_EQ(0, damaged(&b, sizeof(b.h) - 8, "its header needs"));
	b.h.model_id = 0;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "model id 0"));
	build(&b, 1, 1, "x");
	memset(b.h.name, 'a', sizeof(b.h.name));
	EXPECT_EQ(0, damaged(&b, sizeof(b), "name without a NUL"));
	build(&b, 1, 1, "x");
	b.h.n_slots = 17;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "17 slots"));
	build(&b, 1, 1, "x");
	b.h.slot_kind[2] = 9;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "slot 2: kind 9"));
	build(&b, 1, 1, "x");
	EXPECT_EQ(0, damaged(&b, sizeof(b) - 64, "the item holds"));
	b.h.prog_size = 16;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "its header needs 32"));
	build(&b, 1, 1, "x");
	ph = (struct npu_prog_hdr *)b.prog;
	ph->magic = 0;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "not a version 1 program"));
	build(&b, 1, 1, "x");
	ph->n_ops = 5000;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "out of range"));
	build(&b, 1, 1, "x");
	ph->ops_off = PROG_SIZE - 64;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "outside its"));
	build(&b, 1, 1, "x");
	tensors(&b)[3].buf = 5;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "tensor 3 in slot 5 of 5"));
	build(&b, 1, 1, "x");
	tensors(&b)[4].offset = 2000;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "tensor 4 [2000, +500) outside slot 3"));
	build(&b, 1, 1, "x");
	tensors(&b)[4].dims[0] = 0xffffffff;
	tensors(&b)[4].dims[1] = 0xffffffff;
	tensors(&b)[4].dims[2] = 0xffffffff;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "tensor 4: size out of range"));
	build(&b, 1, 1, "x");
	ops(&b)[2].out = NT;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "operator 2: output tensor 8"));
	build(&b, 1, 1, "x");
	ops(&b)[1].in[1] = 99;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "operator 1: input 1 is tensor 99"));
	build(&b, 1, 1, "x");
	ops(&b)[3].rq = 8;
	EXPECT_EQ(0, damaged(&b, sizeof(b), "operator 3: table tensor 8"));
}

static char *tmp_path(const char *name)
{
	char *p;

	if (asprintf(&p, "/tmp/npuprof-memuse-%d-%s", (int)getpid(), name) < 0)
		abort();
	return p;
}

static uint32_t reg(const char *name)
{
	struct npuprof_model_desc d = { .sz = sizeof(d) };
	struct body b;
	uint32_t id = 0;

	build(&b, 1, 1, name);
	d.name = name;
	d.program = b.prog;
	d.program_size = sizeof(b.prog);
	d.n_slots = 5;
	d.slot_sizes = slot_size;
	d.slot_kinds = slot_kind;
	if (npuprof_model_register(&d, &id))
		abort();
	return id;
}

static void submit(uint32_t model, uint64_t job)
{
	struct npuprof_span s;

	npuprof_span_begin(&s, NPUPROF_SPAN_SUBMIT, NULL);
	s.rec.flags |= NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_MODEL;
	s.rec.job_id = job;
	s.rec.minor = 0;
	s.rec.name_id = model;
	npuprof_span_end(&s);
}

TEST(register_errors)
{
	struct npuprof_model_desc d = { .sz = sizeof(d) };
	static uint8_t big[NPUPROF_MODEL_MAX_PROGRAM + 8];
	uint32_t id;

	EXPECT_EQ(-EINVAL, npuprof_model_register(NULL, &id));
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
	d.program = big;
	d.program_size = sizeof(big);
	d.n_slots = 1;
	d.slot_sizes = slot_size;
	EXPECT_EQ(-E2BIG, npuprof_model_register(&d, &id));
	d.program_size = 8;
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
	d.program_size = 64;
	d.n_slots = 17;
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
	d.n_slots = 1;
	d.sz = 8;
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
	EXPECT_EQ(-ENOENT, npuprof_model_unregister(0));
}

/*
 * Models reach the file of a session wherever they were registered:
 * before it was created, while it ran, while it was paused; each once;
 * an unregistered one not in the next session's file.
 */
TEST(capture_models)
{
	static const char *const no_devices[] = { NULL };
	char *path = tmp_path("cap"), *path2 = tmp_path("cap2");
	uint32_t a, b, c, ids[3];
	struct npuprof_session *s;
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npuprof_opts o;
	unsigned int nsub = 0;
	char err[256];
	size_t i;

	a = reg("before");
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	ASSERT_EQ(0, npuprof_session_create(&o, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	submit(a, 1);
	b = reg("running");
	submit(b, 2);
	ASSERT_EQ(0, npuprof_session_pause(s));
	c = reg("paused");
	ASSERT_EQ(0, npuprof_session_resume(s));
	submit(c, 3);
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	ASSERT_TRUE(a && b && c && a != b && b != c && a != c);

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	/* streamed: each model before the SUBMIT spans of its jobs */
	while (npuprof_trace_next(t, &ev) == 1) {
		if (ev.type != NPUPROF_EV_SPAN ||
		    ev.span->kind != NPUPROF_SPAN_SUBMIT)
			continue;
		ASSERT_TRUE(ev.span->flags & NPUPROF_SPAN_F_MODEL);
		ASSERT_NE(NULL, npf_trace_model(t, ev.span->name_id));
		EXPECT_EQ(nsub + 1, ev.span->job_id);
		ids[nsub++] = ev.span->name_id;
	}
	EXPECT_EQ(3u, nsub);
	EXPECT_EQ(a, ids[0]);
	EXPECT_EQ(b, ids[1]);
	EXPECT_EQ(c, ids[2]);
	ASSERT_EQ(3, npf_trace_load_models(t));
	EXPECT_STREQ("before", npf_model_name(npf_trace_model_at(t, 0)));
	EXPECT_STREQ("running", npf_model_name(npf_trace_model_at(t, 1)));
	EXPECT_STREQ("paused", npf_model_name(npf_trace_model_at(t, 2)));
	for (i = 0; i < 3; i++) {
		struct npf_model_mem mm;

		EXPECT_EQ(getpid(), npf_model_pid(npf_trace_model_at(t, i)));
		npf_model_mem(npf_trace_model_at(t, i), &mm);
		EXPECT_EQ(2508u, mm.peak_used);
	}
	EXPECT_EQ(0u, npf_trace_models_bad(t, NULL));
	npuprof_trace_close(t);

	/* a second session: the models still registered, each once */
	EXPECT_EQ(0, npuprof_model_unregister(a));
	EXPECT_EQ(-ENOENT, npuprof_model_unregister(a));
	o.output = path2;
	ASSERT_EQ(0, npuprof_session_create(&o, &s));
	ASSERT_EQ(0, npuprof_session_start(s));
	ASSERT_EQ(0, npuprof_session_stop(s));
	npuprof_session_free(s);
	ASSERT_EQ(0, npuprof_trace_open(path2, &t, err, sizeof(err)));
	ASSERT_EQ(2, npf_trace_load_models(t));
	EXPECT_EQ(NULL, npf_trace_model(t, a));
	EXPECT_STREQ("running", npf_model_name(npf_trace_model(t, b)));
	EXPECT_STREQ("paused", npf_model_name(npf_trace_model(t, c)));
	npuprof_trace_close(t);
	EXPECT_EQ(0, npuprof_model_unregister(b));
	EXPECT_EQ(0, npuprof_model_unregister(c));
	unlink(path);
	unlink(path2);
	free(path);
	free(path2);
}

/* ---- the join ---- */

static void add_rec(struct npf_writer *w, const void *rec)
{
	struct npf_item_record ir = { .dev = 0 };
	const struct npu_trace_rec_hdr *h = rec;

	if (npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir), rec, h->size))
		abort();
}

/* Device 0: /dev/npu0 (minor 0, the SUBMIT spans' minor), 1 GHz */
static void gen_device(struct npf_writer *w)
{
	gen_util_device(w, 0, 0, 0, 1000000000, 0);
}

static void gen_op(struct npf_writer *w, int32_t pid, uint64_t job,
		   uint32_t idx)
{
	struct npu_trace_rec_op o;

	memset(&o, 0, sizeof(o));
	o.hdr.type = NPU_TRACE_REC_OP;
	o.hdr.size = sizeof(o);
	o.pid = pid;
	o.tid = pid;
	o.job_id = job;
	o.op_index = idx;
	o.start_tick = 1000 * job + 10 * idx;
	o.end_tick = o.start_tick + 5;
	add_rec(w, &o);
}

static void gen_exec(struct npf_writer *w, int32_t pid, uint64_t job)
{
	struct npu_trace_rec_exec e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = NPU_TRACE_REC_EXEC;
	e.hdr.size = sizeof(e);
	e.pid = pid;
	e.tid = pid;
	e.job_id = job;
	e.submit_ns = 1;
	e.complete_ns = 2;
	add_rec(w, &e);
}

static void gen_submit(struct npf_writer *w, int32_t pid, uint64_t job,
		       uint32_t model)
{
	struct npuprof_span_rec s;

	memset(&s, 0, sizeof(s));
	s.kind = NPUPROF_SPAN_SUBMIT;
	s.flags = NPUPROF_SPAN_F_JOB | (model ? NPUPROF_SPAN_F_MODEL : 0);
	s.name_id = model;
	s.pid = pid;
	s.tid = pid;
	s.span_id = job;
	s.start_ns = 100 * job;
	s.end_ns = s.start_ns + 10;
	s.job_id = job;
	s.minor = 0;
	if (npf_writer_add(w, NPF_ITEM_SPAN, &s, sizeof(s), NULL, 0))
		abort();
}

struct rows {
	unsigned int nexec, nop;
	uint64_t exec_job[8];
	uint32_t exec_model[8];
	uint64_t op_job[16];
	uint32_t op_index[16], op_model[16];
};

static int on_exec(void *ctx, const struct npf_exec_row *r)
{
	struct rows *x = ctx;

	if (x->nexec < 8) {
		x->exec_job[x->nexec] = r->rec.job_id;
		x->exec_model[x->nexec++] = r->model_id;
	}
	return 0;
}

static int on_op(void *ctx, const struct npf_op_row *r)
{
	struct rows *x = ctx;

	if (x->nop < 16) {
		x->op_job[x->nop] = r->rec->job_id;
		x->op_index[x->nop] = r->rec->op_index;
		x->op_model[x->nop++] = r->model_id;
	}
	return 0;
}

static uint32_t model_of(const struct rows *x, uint64_t job, uint32_t idx)
{
	unsigned int i;

	for (i = 0; i < x->nop; i++)
		if (x->op_job[i] == job && x->op_index[i] == idx)
			return x->op_model[i];
	return 0xdead;
}

/*
 * Process 100 has model 5 ("m5") and model 6, whose item is damaged (id 0
 * after it was written: skipped, the rest reads). Job 1: its operators
 * and execution come before its SUBMIT span (held, then model 5); job 2:
 * SUBMIT first (model 5 at once); job 3: a SUBMIT without a model; job 4
 * of process 300, which has no model: not held, model 0.
 */
TEST(join_model_ids)
{
	static const struct npf_join_ops ops = { .exec = on_exec, .op = on_op };
	char *path = tmp_path("join");
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npf_writer *w;
	struct npf_join *j;
	struct rows x;
	struct body b;
	const char *msg;
	char err[256];
	uint32_t i;

	ASSERT_EQ(0, npf_writer_open(path, 4096, &w));
	gen_device(w);
	build(&b, 5, 100, "m5");
	ASSERT_EQ(0, npf_writer_add(w, NPF_ITEM_MODEL, &b, sizeof(b), NULL, 0));
	build(&b, 6, 100, "m6");
	b.h.model_id = 0;
	ASSERT_EQ(0, npf_writer_add(w, NPF_ITEM_MODEL, &b, sizeof(b), NULL, 0));
	for (i = 0; i < 4; i++)
		gen_op(w, 100, 1, i);
	gen_exec(w, 100, 1);
	gen_submit(w, 100, 1, 5);
	gen_submit(w, 100, 2, 5);
	gen_op(w, 100, 2, 0);
	gen_op(w, 100, 2, 1);
	gen_exec(w, 100, 2);
	gen_submit(w, 100, 3, 0);
	gen_op(w, 100, 3, 0);
	gen_exec(w, 100, 3);
	gen_op(w, 300, 4, 0);
	gen_exec(w, 300, 4);
	ASSERT_EQ(0, npf_writer_close(w));

	memset(&x, 0, sizeof(x));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(0, npf_join_new(t, &ops, &x, &j));
	while (npf_trace_next(t, &ev) == 1)
		ASSERT_EQ(0, npf_join_event(j, &ev));
	ASSERT_EQ(0, npf_join_finish(j));
	EXPECT_EQ(8u, x.nop);
	EXPECT_EQ(4u, x.nexec);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(5u, model_of(&x, 1, i));
	EXPECT_EQ(5u, model_of(&x, 2, 0));
	EXPECT_EQ(5u, model_of(&x, 2, 1));
	EXPECT_EQ(0u, model_of(&x, 3, 0));
	EXPECT_EQ(0u, model_of(&x, 4, 0));
	for (i = 0; i < x.nexec; i++)
		EXPECT_EQ(x.exec_job[i] <= 2 ? 5u : 0u, x.exec_model[i]);
	EXPECT_EQ(6u, npf_join_stats(j)->ops_with_model);
	EXPECT_EQ(4u, npf_join_stats(j)->ops_held_max);
	npf_join_free(j);

	/* the damaged model: skipped with its offset and what was wrong */
	EXPECT_EQ(1u, npf_trace_nmodels(t));
	EXPECT_EQ(1u, npf_trace_models_bad(t, &msg));
	EXPECT_NE(NULL, strstr(msg, ": offset "));
	EXPECT_NE(NULL, strstr(msg, "model: model id 0"));
	EXPECT_NE(NULL, npf_trace_model(t, 5));
	EXPECT_EQ(NULL, npf_trace_model(t, 6));
	/* a second pass: the same models, the damaged one counted once */
	ASSERT_EQ(1, npf_trace_load_models(t));
	EXPECT_EQ(1u, npf_trace_models_bad(t, NULL));
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

static int count_op(void *ctx, const struct npf_op_row *r)
{
	uint64_t *n = ctx;

	n[0]++;
	n[1] += r->model_id == 5;
	return 0;
}

/*
 * At most NPF_JOIN_HELD_OPS operators wait for their SUBMIT span: the
 * 65537th of a job whose span is late sends the first 65536 out without
 * a model; the 100 after it get the model when the span comes.
 */
TEST(join_holds_a_bounded_number)
{
	static const struct npf_join_ops ops = { .op = count_op };
	char *path = tmp_path("held");
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npf_writer *w;
	struct npf_join *j;
	uint64_t n[2] = { 0, 0 };
	struct body b;
	char err[256];
	uint32_t i;

	ASSERT_EQ(0, npf_writer_open(path, 0, &w));
	gen_device(w);
	build(&b, 5, 100, "m5");
	ASSERT_EQ(0, npf_writer_add(w, NPF_ITEM_MODEL, &b, sizeof(b), NULL, 0));
	for (i = 0; i < NPF_JOIN_HELD_OPS + 100; i++)
		gen_op(w, 100, 7, i % NO);
	gen_submit(w, 100, 7, 5);
	ASSERT_EQ(0, npf_writer_close(w));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(0, npf_join_new(t, &ops, n, &j));
	while (npf_trace_next(t, &ev) == 1)
		ASSERT_EQ(0, npf_join_event(j, &ev));
	ASSERT_EQ(0, npf_join_finish(j));
	EXPECT_EQ(NPF_JOIN_HELD_OPS + 100u, n[0]);
	EXPECT_EQ(100u, n[1]);
	EXPECT_EQ(100u, npf_join_stats(j)->ops_with_model);
	EXPECT_EQ(NPF_JOIN_HELD_OPS, npf_join_stats(j)->ops_held_max);
	npf_join_free(j);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
