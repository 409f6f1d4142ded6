// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff_emu.c - differential test: libnpuref against the device model.
 *
 * Generates random programs from fixed seeds (valid ones over every opcode,
 * both layouts, per-tensor and per-channel requantization, random strides,
 * pads and zero points; invalid ones with one injected fault; and programs
 * with random bytes flipped), runs each through tools/npu-emu's
 * emu_prog_run() and through npuref_run() on identical copies of the
 * buffers, and requires the same status, op_index and every byte of every
 * slot. A disagreement is minimized (operators removed while it persists)
 * and printed with its seed; NPUREF_DIFF_SEED=<seed> reruns one case
 * verbosely, NPUREF_DIFF_CASES=<n> scales the number of cases.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "npuref.h"
#include "program.h"
#include "npu_progbuild.h"

#define NONE		NPU_PROG_NONE
#define CAP		(48 * 1024)	/* bytes of each slot buffer */
#define PROG_RESERVE	4608		/* program area at the start of slot 0 */
#define MAX_OPS		6

/* ---------------- random numbers ---------------- */

struct rng {
	uint64_t s;
};

static uint64_t rnext(struct rng *r)	/* splitmix64 */
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static uint32_t rnd(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnext(r) % n) : 0;
}

/* uniform in [lo, hi] */
static int64_t rrange(struct rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnext(r) % (uint64_t)(hi - lo + 1));
}

/* true with probability num/den */
static int chance(struct rng *r, uint32_t num, uint32_t den)
{
	return rnd(r, den) < num;
}

/* ---------------- a generated case ---------------- */

struct gcase {
	uint64_t seed;
	struct rng r;
	struct progbuild p;
	unsigned int nslots;
	uint8_t *mem[NPU_HW_MAX_BUFS];	/* initial contents, CAP bytes */
	uint32_t used[NPU_HW_MAX_BUFS];
	uint32_t size[NPU_HW_MAX_BUFS];
	uint32_t prog_off;
	uint32_t prog_slack;
	uint16_t last_out;		/* last operator's output or NONE */
	const char *fault;		/* injected fault, for messages */
	unsigned int moved;		/* outputs moved onto other bytes */
	/* byte edits applied to the emitted program */
	unsigned int nedits;
	struct { uint32_t off; uint8_t val; } edit[8];
};

struct outcome {
	int status;
	uint16_t op_index;
	uint8_t *mem[NPU_HW_MAX_BUFS];
};

static unsigned int esize(uint8_t dtype)
{
	return dtype == NPU_DT_I32 ? 4 : 1;
}

static uint64_t tbytes(const struct npu_prog_tensor *t)
{
	uint64_t b = 0;

	if (npuref_tensor_bytes(t, &b))
		return 0;
	return b;
}

static int32_t rand_zp(struct rng *r, uint8_t dtype)
{
	if (dtype == NPU_DT_U8)
		return (int32_t)rrange(r, 0, 255);
	if (dtype == NPU_DT_I8)
		return (int32_t)rrange(r, -128, 127);
	return 0;
}

/*
 * New tensor with its bytes placed in a random slot; the bytes keep the
 * random fill of the slot. Returns NONE when there is no room.
 */
static uint16_t new_tensor(struct gcase *g, uint8_t dtype, uint8_t layout,
			   uint8_t ndim, const uint32_t d[4], int32_t zp)
{
	struct npu_prog_tensor t = { 0 };
	unsigned int slot, i;
	uint32_t off, align;
	uint64_t b;

	if (g->p.nt >= PROGBUILD_MAX_TENSORS)
		return NONE;
	t.dtype = dtype;
	t.layout = layout;
	t.ndim = ndim;
	for (i = 0; i < 4; i++)
		t.dims[i] = i < ndim ? d[i] : 1;
	t.zero_point = zp;
	b = tbytes(&t);
	if (!b)
		return NONE;
	slot = rnd(&g->r, g->nslots);
	align = esize(dtype) == 4 || chance(&g->r, 1, 2) ? 4 : 1;
	off = (g->used[slot] + align - 1) / align * align;
	if (chance(&g->r, 1, 4))
		off += align * rnd(&g->r, 8);
	if (off + b > CAP)
		return NONE;
	g->used[slot] = off + (uint32_t)b;
	t.buf = (uint8_t)slot;
	t.offset = off;
	g->p.t[g->p.nt] = t;
	return (uint16_t)g->p.nt++;
}

static uint8_t *tdata(struct gcase *g, uint16_t t)
{
	return g->mem[g->p.t[t].buf] + g->p.t[t].offset;
}

static void put32(uint8_t *p, int32_t v)
{
	progbuild_put32(p, 0, v);
}

static int32_t get32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* a random {multiplier, shift} pair */
static void rand_pair(struct rng *r, int32_t *m, int32_t *s)
{
	switch (rnd(r, 8)) {
	case 0:	/* anything legal */
		*m = (int32_t)rrange(r, 0, INT32_MAX);
		*s = (int32_t)rrange(r, -31, 30);
		break;
	case 1:
		{	/* edges */;
		static const int32_t ms[] = { 0, 1, 1 << 30, INT32_MAX };
		static const int32_t ss[] = { -31, -30, -1, 0, 1, 29, 30 };

		*m = ms[rnd(r, 4)];
		*s = ss[rnd(r, 7)];
		break;
	}
	default:
		{	/* realistic: a real factor in [2^-16, 4) */;
		double real = exp2(-16.0 + 18.0 * (double)rnd(r, 1 << 20) /
				   (1 << 20));

		if (npuref_quantize_multiplier(real, m, s)) {
			*m = 1 << 30;
			*s = 0;
		}
		break;
	}
	}
}

/* a requantization table of n pairs */
static uint16_t new_rq(struct gcase *g, uint32_t n)
{
	uint32_t d[4] = { 2 * n, 1, 1, 1 };
	uint8_t ndim = 1;
	uint16_t t;
	uint32_t i;

	if (chance(&g->r, 1, 4)) {	/* dims are free: [n, 2] */
		d[0] = n;
		d[1] = 2;
		ndim = 2;
	}
	t = new_tensor(g, NPU_DT_I32, NPU_LAYOUT_PLAIN, ndim, d, 0);
	if (t == NONE)
		return NONE;
	for (i = 0; i < n; i++) {
		int32_t m, s;

		rand_pair(&g->r, &m, &s);
		put32(tdata(g, t) + 8 * i, m);
		put32(tdata(g, t) + 8 * i + 4, s);
	}
	return t;
}

static uint16_t new_bias(struct gcase *g, uint32_t n)
{
	uint32_t d[4] = { n, 1, 1, 1 };
	uint32_t mode = rnd(&g->r, 8), i;
	uint16_t t;
	int32_t v;

	t = new_tensor(g, NPU_DT_I32, NPU_LAYOUT_PLAIN, 1, d, 0);
	if (t == NONE)
		return NONE;
	for (i = 0; i < n; i++) {
		if (mode == 0)		/* anything */
			v = (int32_t)(uint32_t)rnext(&g->r);
		else if (mode == 1)	/* near the ends: the int32 acc wraps */
			v = chance(&g->r, 1, 2) ?
			    INT32_MAX - (int32_t)rnd(&g->r, 20000) :
			    INT32_MIN + (int32_t)rnd(&g->r, 20000);
		else
			v = (int32_t)rrange(&g->r, -70000, 70000);
		put32(tdata(g, t) + 4 * i, v);
	}
	return t;
}

static void rand_act(struct gcase *g, struct npu_prog_op *o)
{
	if (chance(&g->r, 2, 3)) {
		o->act_min = 0;
		o->act_max = 255;
	} else {
		o->act_min = (int32_t)rrange(&g->r, 0, 255);
		o->act_max = (int32_t)rrange(&g->r, o->act_min, 255);
	}
}

static uint8_t rand_layout4(struct gcase *g)
{
	return chance(&g->r, 1, 2) ? NPU_LAYOUT_NCHWC16 : NPU_LAYOUT_PLAIN;
}

/* U8 NHWC activation: the previous output if it fits, else a new one */
static uint16_t act4(struct gcase *g, uint32_t maxc)
{
	uint32_t d[4];

	if (g->last_out != NONE && chance(&g->r, 1, 2)) {
		const struct npu_prog_tensor *t = &g->p.t[g->last_out];

		if (t->dtype == NPU_DT_U8 && t->ndim == 4 &&
		    t->dims[3] <= maxc && t->dims[1] <= 9 && t->dims[2] <= 9)
			return g->last_out;
	}
	d[0] = 1 + rnd(&g->r, 2);
	d[1] = 1 + rnd(&g->r, 7);
	d[2] = 1 + rnd(&g->r, 7);
	d[3] = 1 + rnd(&g->r, maxc);
	return new_tensor(g, NPU_DT_U8, rand_layout4(g), 4, d,
			  rand_zp(&g->r, NPU_DT_U8));
}

static struct npu_prog_op *new_op(struct gcase *g, uint16_t opcode)
{
	return progbuild_op(&g->p, opcode, NONE, NONE, NONE, NONE, NONE, 0, 255);
}

/* window parameters with a kernel that fits the padded input */
static void rand_window(struct gcase *g, uint32_t x, uint32_t k, int pool,
			uint8_t *p0, uint8_t *p1, uint8_t *s)
{
	uint32_t maxp = pool ? k - 1 : 2;

	*s = (uint8_t)(1 + rnd(&g->r, 3));
	do {
		*p0 = (uint8_t)rnd(&g->r, (maxp < 2 ? maxp : 2) + 1);
		*p1 = (uint8_t)rnd(&g->r, (maxp < 2 ? maxp : 2) + 1);
	} while (x + *p0 + *p1 < k);
}

static int gen_conv(struct gcase *g, int dw)
{
	uint16_t x = act4(g, 20), w, b = NONE, q, y;
	const struct npu_prog_tensor *xt;
	struct npu_prog_op *o;
	uint32_t d[4], cout, kh, kw, oh, ow;
	uint8_t pt, pb_, pl, pr, sh, sw, wdt;

	if (x == NONE)
		return -1;
	xt = &g->p.t[x];
	kh = 1 + rnd(&g->r, 3);
	kw = 1 + rnd(&g->r, 3);
	if (xt->dims[1] + 4 < kh || xt->dims[2] + 4 < kw)
		return -1;
	rand_window(g, xt->dims[1], kh, 0, &pt, &pb_, &sh);
	rand_window(g, xt->dims[2], kw, 0, &pl, &pr, &sw);
	oh = (xt->dims[1] + pt + pb_ - kh) / sh + 1;
	ow = (xt->dims[2] + pl + pr - kw) / sw + 1;
	cout = dw ? xt->dims[3] : 1 + rnd(&g->r, 20);
	wdt = chance(&g->r, 1, 2) ? NPU_DT_U8 : NPU_DT_I8;
	d[0] = dw ? 1 : cout;
	d[1] = kh;
	d[2] = kw;
	d[3] = xt->dims[3];
	w = new_tensor(g, wdt, NPU_LAYOUT_PLAIN, 4, d, rand_zp(&g->r, wdt));
	if (chance(&g->r, 3, 4))
		b = new_bias(g, cout);
	q = new_rq(g, chance(&g->r, 1, 2) ? cout : 1);
	d[0] = xt->dims[0];
	d[1] = oh;
	d[2] = ow;
	d[3] = cout;
	y = new_tensor(g, NPU_DT_U8, rand_layout4(g), 4, d,
		       rand_zp(&g->r, NPU_DT_U8));
	if (w == NONE || q == NONE || y == NONE)
		return -1;
	o = new_op(g, dw ? NPU_OP_DWCONV2D : NPU_OP_CONV2D);
	o->in[0] = x;
	o->in[1] = w;
	o->in[2] = b;
	o->out = y;
	o->rq = q;
	progbuild_conv(o, 0, 0, sh, sw, pt, pl, pb_, pr);
	if (chance(&g->r, 1, 4)) {	/* kh/kw are ignored */
		o->u.conv.kh = (uint8_t)rnd(&g->r, 256);
		o->u.conv.kw = (uint8_t)rnd(&g->r, 256);
	}
	rand_act(g, o);
	return y;
}

static int gen_pool(struct gcase *g, int avg)
{
	uint16_t x = act4(g, 34), q = NONE, y;
	const struct npu_prog_tensor *xt;
	struct npu_prog_op *o;
	uint32_t d[4], kh, kw;
	uint8_t pt, pb_, pl, pr, sh, sw;

	if (x == NONE)
		return -1;
	xt = &g->p.t[x];
	kh = 1 + rnd(&g->r, xt->dims[1] < 3 ? xt->dims[1] : 3);
	kw = 1 + rnd(&g->r, xt->dims[2] < 3 ? xt->dims[2] : 3);
	rand_window(g, xt->dims[1], kh, 1, &pt, &pb_, &sh);
	rand_window(g, xt->dims[2], kw, 1, &pl, &pr, &sw);
	if (avg && chance(&g->r, 1, 2))
		q = new_rq(g, 1);
	d[0] = xt->dims[0];
	d[1] = (xt->dims[1] + pt + pb_ - kh) / sh + 1;
	d[2] = (xt->dims[2] + pl + pr - kw) / sw + 1;
	d[3] = xt->dims[3];
	y = new_tensor(g, NPU_DT_U8, rand_layout4(g), 4, d,
		       rand_zp(&g->r, NPU_DT_U8));
	if (y == NONE)
		return -1;
	o = new_op(g, avg ? NPU_OP_AVGPOOL : NPU_OP_MAXPOOL);
	o->in[0] = x;
	o->out = y;
	o->rq = avg ? q : (chance(&g->r, 1, 2) ? NONE :
			   (uint16_t)rnd(&g->r, 0x10000));
	progbuild_conv(o, (uint8_t)kh, (uint8_t)kw, sh, sw, pt, pl, pb_, pr);
	rand_act(g, o);
	return y;
}

static int gen_fc(struct gcase *g, int matmul)
{
	uint16_t x = NONE, w, b = NONE, q, y;
	struct npu_prog_op *o;
	uint32_t d[4] = { 1, 1, 1, 1 }, m, k, n;
	uint8_t wdt;

	if (g->last_out != NONE && chance(&g->r, 1, 2)) {
		const struct npu_prog_tensor *t = &g->p.t[g->last_out];

		if (t->dtype == NPU_DT_U8 && t->ndim == 2 &&
		    t->layout == NPU_LAYOUT_PLAIN && t->dims[1] <= 64)
			x = g->last_out;
	}
	if (x == NONE) {
		d[0] = 1 + rnd(&g->r, 4);
		d[1] = 1 + rnd(&g->r, 40);
		x = new_tensor(g, NPU_DT_U8, NPU_LAYOUT_PLAIN, 2, d,
			       rand_zp(&g->r, NPU_DT_U8));
		if (x == NONE)
			return -1;
	}
	m = g->p.t[x].dims[0];
	k = g->p.t[x].dims[1];
	n = 1 + rnd(&g->r, 20);
	wdt = chance(&g->r, 1, 2) ? NPU_DT_U8 : NPU_DT_I8;
	d[0] = matmul ? k : n;
	d[1] = matmul ? n : k;
	w = new_tensor(g, wdt, NPU_LAYOUT_PLAIN, 2, d, rand_zp(&g->r, wdt));
	if (chance(&g->r, 3, 4))
		b = new_bias(g, n);
	q = new_rq(g, chance(&g->r, 1, 2) ? n : 1);
	d[0] = m;
	d[1] = n;
	y = new_tensor(g, NPU_DT_U8, NPU_LAYOUT_PLAIN, 2, d,
		       rand_zp(&g->r, NPU_DT_U8));
	if (w == NONE || q == NONE || y == NONE)
		return -1;
	o = new_op(g, matmul ? NPU_OP_MATMUL : NPU_OP_FC);
	o->in[0] = x;
	o->in[1] = w;
	o->in[2] = b;
	o->out = y;
	o->rq = q;
	rand_act(g, o);
	return y;
}

/* random dims for an elementwise or data movement operand */
static uint8_t rand_dims(struct gcase *g, uint32_t d[4], uint32_t maxd)
{
	uint8_t ndim = (uint8_t)(1 + rnd(&g->r, 4));
	unsigned int i;

	for (i = 0; i < 4; i++)
		d[i] = i < ndim ? 1 + rnd(&g->r, maxd) : 1;
	return ndim;
}

static uint8_t layout_for(struct gcase *g, uint8_t ndim, uint8_t dtype)
{
	if (ndim == 4 && dtype != NPU_DT_I32)
		return rand_layout4(g);
	return NPU_LAYOUT_PLAIN;
}

static int gen_eltwise(struct gcase *g, int add)
{
	uint16_t x0 = NONE, x1, y, q = NONE;
	struct npu_prog_op *o;
	uint32_t d[4];
	uint8_t ndim;

	if (g->last_out != NONE && g->p.t[g->last_out].dtype == NPU_DT_U8 &&
	    chance(&g->r, 1, 2)) {
		x0 = g->last_out;
		ndim = g->p.t[x0].ndim;
		memcpy(d, g->p.t[x0].dims, sizeof(d));
	} else {
		ndim = rand_dims(g, d, 6);
		if (ndim == 4)
			d[3] = 1 + rnd(&g->r, 20);
		x0 = new_tensor(g, NPU_DT_U8, layout_for(g, ndim, NPU_DT_U8),
				ndim, d, rand_zp(&g->r, NPU_DT_U8));
	}
	x1 = add ? (chance(&g->r, 1, 8) ? x0 :
		    new_tensor(g, NPU_DT_U8, layout_for(g, ndim, NPU_DT_U8),
			       ndim, d, rand_zp(&g->r, NPU_DT_U8))) : NONE;
	if (add)
		q = new_rq(g, 3);
	/* in place now and then: the output may overlap its operands */
	if (chance(&g->r, 1, 8) && x0 != NONE)
		y = x0;
	else
		y = new_tensor(g, NPU_DT_U8, layout_for(g, ndim, NPU_DT_U8),
			       ndim, d, rand_zp(&g->r, NPU_DT_U8));
	if (x0 == NONE || (add && (x1 == NONE || q == NONE)) || y == NONE)
		return -1;
	o = new_op(g, add ? NPU_OP_ADD : NPU_OP_CLIP);
	o->in[0] = x0;
	o->in[1] = x1;
	o->out = y;
	o->rq = add ? q : (chance(&g->r, 1, 2) ? NONE :
			   (uint16_t)rnd(&g->r, 0x10000));
	rand_act(g, o);
	return y;
}

static uint8_t rand_dtype(struct gcase *g)
{
	/* data movement is on U8 activations; now and then try the others */
	static const uint8_t dt[] = { NPU_DT_I8, NPU_DT_I32 };

	return chance(&g->r, 1, 16) ? dt[rnd(&g->r, 2)] : NPU_DT_U8;
}

/* data movement input: the previous output or a new tensor */
static uint16_t move_in(struct gcase *g, uint32_t maxd)
{
	uint32_t d[4];
	uint8_t ndim, dt;

	if (g->last_out != NONE && chance(&g->r, 1, 2)) {
		const struct npu_prog_tensor *t = &g->p.t[g->last_out];

		if (t->dims[0] <= maxd && t->dims[1] <= maxd &&
		    t->dims[2] <= maxd && t->dims[3] <= 40)
			return g->last_out;
	}
	dt = rand_dtype(g);
	ndim = rand_dims(g, d, maxd);
	if (ndim == 4 && chance(&g->r, 1, 2))
		d[3] = 1 + rnd(&g->r, 34);
	return new_tensor(g, dt, layout_for(g, ndim, dt), ndim, d,
			  rand_zp(&g->r, dt));
}

static void ignored_fields(struct gcase *g, struct npu_prog_op *o)
{
	/* act and rq are ignored by data movement */
	if (chance(&g->r, 1, 3)) {
		o->act_min = (int32_t)(uint32_t)rnext(&g->r);
		o->act_max = (int32_t)(uint32_t)rnext(&g->r);
		o->rq = (uint16_t)rnd(&g->r, 0x10000);
	}
}

static int gen_move(struct gcase *g, uint16_t opcode)
{
	uint16_t x = move_in(g, 6), x1 = NONE, x2 = NONE, y = NONE;
	const struct npu_prog_tensor *xt;
	struct npu_prog_op *o;
	uint32_t d[4], e[4], elems;
	unsigned int i;
	uint8_t ndim, perm[4] = { 0, 1, 2, 3 };

	if (x == NONE)
		return -1;
	xt = &g->p.t[x];
	ndim = xt->ndim;
	memcpy(d, xt->dims, sizeof(d));
	o = NULL;
	switch (opcode) {
	case NPU_OP_PAD: {
		uint16_t bef[4] = { 0 }, aft[4] = { 0 };

		for (i = 0; i < ndim; i++) {
			bef[i] = (uint16_t)rnd(&g->r, 3);
			aft[i] = (uint16_t)rnd(&g->r, 3);
			e[i] = d[i] + bef[i] + aft[i];
		}
		for (; i < 4; i++)
			e[i] = 1;
		y = new_tensor(g, xt->dtype, layout_for(g, ndim, xt->dtype),
			       ndim, e, xt->zero_point);
		if (y == NONE)
			return -1;
		o = new_op(g, NPU_OP_PAD);
		memcpy(o->u.pad.before, bef, sizeof(bef));
		memcpy(o->u.pad.after, aft, sizeof(aft));
		break;
	}
	case NPU_OP_RESHAPE: {
		/* factor the element count into a random shape */
		uint8_t nd = (uint8_t)(1 + rnd(&g->r, 4));

		elems = d[0] * d[1] * d[2] * d[3];
		for (i = 0; i < 4; i++)
			e[i] = 1;
		for (i = 0; i + 1 < nd; i++) {
			uint32_t f, tries;

			for (tries = 0; tries < 8; tries++) {
				f = 1 + rnd(&g->r, elems);
				if (elems % f == 0)
					break;
			}
			if (elems % f)
				f = 1;
			e[i] = f;
			elems /= f;
		}
		e[nd - 1] = elems;
		y = new_tensor(g, xt->dtype, layout_for(g, nd, xt->dtype), nd,
			       e, xt->zero_point);
		if (y == NONE)
			return -1;
		o = new_op(g, NPU_OP_RESHAPE);
		break;
	}
	case NPU_OP_TRANSPOSE:
		for (i = ndim; i > 1; i--) {
			uint32_t j = rnd(&g->r, i);
			uint8_t t = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = t;
		}
		for (i = 0; i < 4; i++)
			e[i] = i < ndim ? d[perm[i]] : 1;
		y = new_tensor(g, xt->dtype, layout_for(g, ndim, xt->dtype),
			       ndim, e, xt->zero_point);
		if (y == NONE)
			return -1;
		o = new_op(g, NPU_OP_TRANSPOSE);
		for (i = 0; i < 4; i++)
			/* perm[i >= ndim] is not looked at: keep it random-ish */
			o->u.transpose.perm[i] = i < ndim ? perm[i] :
					(uint8_t)(chance(&g->r, 1, 2) ? i : 0);
		break;
	case NPU_OP_SLICE: {
		uint32_t beg[4] = { 0 };

		for (i = 0; i < ndim; i++) {
			e[i] = 1 + rnd(&g->r, d[i]);
			beg[i] = rnd(&g->r, d[i] - e[i] + 1);
		}
		for (; i < 4; i++)
			e[i] = 1;
		y = new_tensor(g, xt->dtype, layout_for(g, ndim, xt->dtype),
			       ndim, e, xt->zero_point);
		if (y == NONE)
			return -1;
		o = new_op(g, NPU_OP_SLICE);
		memcpy(o->u.slice.begin, beg, sizeof(beg));
		break;
	}
	case NPU_OP_CONCAT: {
		uint32_t ax = rnd(&g->r, ndim), a1 = 1 + rnd(&g->r, 4);
		uint32_t a2 = 1 + rnd(&g->r, 4);
		int three = chance(&g->r, 1, 2);

		memcpy(e, d, sizeof(e));
		e[ax] = a1;
		x1 = new_tensor(g, xt->dtype, layout_for(g, ndim, xt->dtype),
				ndim, e, xt->zero_point);
		if (three) {
			e[ax] = a2;
			x2 = chance(&g->r, 1, 6) ? x :
			     new_tensor(g, xt->dtype,
					layout_for(g, ndim, xt->dtype), ndim,
					e, xt->zero_point);
			if (x2 == x)
				a2 = d[ax];
		}
		e[ax] = d[ax] + a1 + (three ? a2 : 0);
		y = new_tensor(g, xt->dtype, layout_for(g, ndim, xt->dtype),
			       ndim, e, xt->zero_point);
		if (x1 == NONE || (three && x2 == NONE) || y == NONE)
			return -1;
		o = new_op(g, NPU_OP_CONCAT);
		o->in[1] = x1;
		o->in[2] = x2;
		o->u.concat.axis = ax;
		break;
	}
	default:
		return -1;
	}
	o->in[0] = x;
	o->out = y;
	o->act_min = 0;
	o->act_max = 0;
	ignored_fields(g, o);
	return y;
}

/* NPUREF_DIFF_OPS=<mask>: bit n set generates opcode n (triage aid) */
static uint32_t op_mask(void)
{
	const char *e = getenv("NPUREF_DIFF_OPS");

	return e ? (uint32_t)strtoul(e, NULL, 0) : 0;
}

static int gen_op(struct gcase *g)
{
	uint16_t opcode = (uint16_t)(1 + rnd(&g->r, NPU_OP_MAX));
	uint32_t mask = op_mask();

	if (mask && !(mask & (1u << opcode)))
		return -1;

	switch (opcode) {
	case NPU_OP_CONV2D:
		return gen_conv(g, 0);
	case NPU_OP_DWCONV2D:
		return gen_conv(g, 1);
	case NPU_OP_AVGPOOL:
		return gen_pool(g, 1);
	case NPU_OP_MAXPOOL:
		return gen_pool(g, 0);
	case NPU_OP_FC:
		return gen_fc(g, 0);
	case NPU_OP_MATMUL:
		return gen_fc(g, 1);
	case NPU_OP_ADD:
		return gen_eltwise(g, 1);
	case NPU_OP_CLIP:
		return gen_eltwise(g, 0);
	default:
		return gen_move(g, opcode);
	}
}

static void gcase_free(struct gcase *g)
{
	unsigned int i;

	for (i = 0; i < NPU_HW_MAX_BUFS; i++) {
		free(g->mem[i]);
		g->mem[i] = NULL;
	}
}

/* a valid random program; returns 0 or -1 (out of memory) */
static int gen_valid(struct gcase *g, uint64_t seed)
{
	unsigned int i, nops;
	uint32_t j;

	memset(g, 0, sizeof(*g));
	g->seed = seed;
	g->r.s = seed;
	g->nslots = 1 + rnd(&g->r, 4);
	for (i = 0; i < g->nslots; i++) {
		g->mem[i] = malloc(CAP);
		if (!g->mem[i])
			return -1;
		for (j = 0; j < CAP; j++)
			g->mem[i][j] = (uint8_t)rnext(&g->r);
	}
	g->prog_off = chance(&g->r, 1, 8) ? 8 * rnd(&g->r, 32) : 64 * rnd(&g->r, 4);
	g->used[0] = g->prog_off + PROG_RESERVE;
	g->prog_slack = chance(&g->r, 1, 4) ? 8 * rnd(&g->r, 8) : 0;
	g->last_out = NONE;
	progbuild_init(&g->p);
	nops = 1 + rnd(&g->r, MAX_OPS);
	for (i = 0; i < nops * 3 && g->p.nop < nops; i++) {
		unsigned int nt = g->p.nt, no = g->p.nop;
		int y = gen_op(g);

		if (y < 0) {		/* roll back a half-built operator */
			g->p.nt = nt;
			g->p.nop = no;
			continue;
		}
		g->last_out = (uint16_t)y;
	}
	/*
	 * Now and then move an operator's output onto other bytes: program.rst
	 * defines outputs overlapping operands, later operators' weights or
	 * requantization tables (read when they run, clamped) and the
	 * program (copied before it runs).
	 */
	if (chance(&g->r, 1, 4) && g->p.nop) {
		unsigned int k, moves = 1 + rnd(&g->r, 2);

		for (k = 0; k < moves; k++) {
			struct npu_prog_op *o = &g->p.op[rnd(&g->r, g->p.nop)];
			struct npu_prog_tensor *t = &g->p.t[o->out];
			unsigned int slot = rnd(&g->r, g->nslots);
			uint64_t b = tbytes(t);

			if (b > g->used[slot])
				continue;
			t->buf = (uint8_t)slot;
			t->offset = rnd(&g->r, g->used[slot] - (uint32_t)b + 1);
			g->moved++;
		}
	}
	/* slots end a little after their last tensor */
	for (i = 0; i < g->nslots; i++) {
		uint32_t s = g->used[i] + rnd(&g->r, 3) * 8;

		g->size[i] = s < 64 ? 64 : (s > CAP ? CAP : s);
	}
	/* a few tensors no operator uses are still validated */
	if (chance(&g->r, 1, 8)) {
		uint32_t d[4] = { 3, 1, 1, 1 };
		uint16_t t = new_tensor(g, NPU_DT_I32, 0, 1, d, 0);

		if (t != NONE && g->used[g->p.t[t].buf] > g->size[g->p.t[t].buf])
			g->p.nt--;
	}
	return 0;
}

/* ---------------- running both ---------------- */

static size_t emit(const struct gcase *g, uint8_t *slot0)
{
	size_t n = progbuild_emit(&g->p, slot0 + g->prog_off);
	unsigned int i;

	for (i = 0; i < g->nedits; i++)
		slot0[g->prog_off + g->edit[i].off] = g->edit[i].val;
	return n + g->prog_slack;
}

static int outcome_init(struct outcome *o, const struct gcase *g)
{
	unsigned int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < g->nslots; i++) {
		o->mem[i] = malloc(CAP);
		if (!o->mem[i])
			return -1;
		memcpy(o->mem[i], g->mem[i], CAP);
	}
	return 0;
}

static void outcome_free(struct outcome *o)
{
	unsigned int i;

	for (i = 0; i < NPU_HW_MAX_BUFS; i++)
		free(o->mem[i]);
}

static void run_emu(const struct gcase *g, struct outcome *o)
{
	struct emu_prog_slot s[NPU_HW_MAX_BUFS];
	size_t n = emit(g, o->mem[0]);
	unsigned int i;

	for (i = 0; i < g->nslots; i++) {
		s[i].base = o->mem[i];
		s[i].size = g->size[i];
	}
	o->op_index = 0x1234;
	o->status = emu_prog_run(s, g->nslots, 0, g->prog_off, (uint32_t)n,
				 NULL, &o->op_index);
}

static void run_ref(const struct gcase *g, struct outcome *o)
{
	struct npuref_buf s[NPU_HW_MAX_BUFS];
	size_t n = emit(g, o->mem[0]);
	unsigned int i;

	for (i = 0; i < g->nslots; i++) {
		s[i].base = o->mem[i];
		s[i].size = g->size[i];
	}
	o->op_index = 0x1234;
	o->status = npuref_run(o->mem[0] + g->prog_off, n, s, g->nslots, 0,
			       &o->op_index);
}

struct diff {
	int differs;
	int st_emu, st_ref;
	uint16_t idx_emu, idx_ref;
	unsigned int slot;
	uint32_t off;
	uint8_t b_emu, b_ref;
};

static int run_both(const struct gcase *g, struct diff *d)
{
	struct outcome a, b;
	unsigned int i;
	uint32_t j;

	memset(d, 0, sizeof(*d));
	if (outcome_init(&a, g) || outcome_init(&b, g)) {
		outcome_free(&a);
		outcome_free(&b);
		return -1;
	}
	run_emu(g, &a);
	run_ref(g, &b);
	d->st_emu = a.status;
	d->st_ref = b.status;
	d->idx_emu = a.op_index;
	d->idx_ref = b.op_index;
	if (a.status != b.status || a.op_index != b.op_index)
		d->differs = 1;
	for (i = 0; i < g->nslots && !d->differs; i++)
		for (j = 0; j < CAP; j++)
			if (a.mem[i][j] != b.mem[i][j]) {
				d->differs = 2;
				d->slot = i;
				d->off = j;
				d->b_emu = a.mem[i][j];
				d->b_ref = b.mem[i][j];
				break;
			}
	outcome_free(&a);
	outcome_free(&b);
	return 0;
}

/* ---------------- reporting ---------------- */

static const char *const opnames[] = {
	"?", "CONV2D", "DWCONV2D", "PAD", "AVGPOOL", "MAXPOOL", "FC",
	"MATMUL", "ADD", "CLIP", "RESHAPE", "TRANSPOSE", "SLICE", "CONCAT",
};

static const char *opname(uint16_t op)
{
	return op <= NPU_OP_MAX ? opnames[op] : "?";
}

/* print the program as the implementations see it (after byte edits) */
static void print_case(const struct gcase *g)
{
	static uint8_t buf[PROG_RESERVE + 64];
	struct npu_prog_hdr h;
	unsigned int i;
	size_t n;

	memset(buf, 0, sizeof(buf));
	n = progbuild_emit(&g->p, buf);
	for (i = 0; i < g->nedits; i++)
		buf[g->edit[i].off] = g->edit[i].val;
	memcpy(&h, buf, sizeof(h));
	fprintf(stderr, "#   nslots %u sizes", g->nslots);
	for (i = 0; i < g->nslots; i++)
		fprintf(stderr, " %u", g->size[i]);
	fprintf(stderr, ", prog at slot 0 + %u, prog_size %zu, %u outputs moved%s%s\n",
		g->prog_off, n + g->prog_slack, g->moved,
		g->fault ? ", fault: " : "", g->fault ? g->fault : "");
	fprintf(stderr,
		"#   hdr magic 0x%08x ver %u hdr_size %u n_tensors %u n_ops %u tensors_off %u ops_off %u size %u rsvd %u\n",
		h.magic, h.version, h.hdr_size, h.n_tensors, h.n_ops,
		h.tensors_off, h.ops_off, h.size, h.rsvd);
	for (i = 0; i < h.n_tensors && i < PROGBUILD_MAX_TENSORS &&
	     (uint64_t)h.tensors_off + (i + 1) * 32 <= n; i++) {
		struct npu_prog_tensor t;

		memcpy(&t, buf + h.tensors_off + 32 * i, sizeof(t));
		fprintf(stderr,
			"#   t%-2u dt %u nd %u lay %u buf %u off %u dims [%u,%u,%u,%u] zp %d rsvd %u\n",
			i, t.dtype, t.ndim, t.layout, t.buf, t.offset,
			t.dims[0], t.dims[1], t.dims[2], t.dims[3],
			t.zero_point, t.rsvd);
	}
	for (i = 0; i < h.n_ops && i < PROGBUILD_MAX_OPS &&
	     (uint64_t)h.ops_off + (i + 1) * 64 <= n; i++) {
		struct npu_prog_op o;
		unsigned int k;

		memcpy(&o, buf + h.ops_off + 64 * i, sizeof(o));
		fprintf(stderr,
			"#   op%u %s(%u) fl %u in %u,%u,%u out %u rq %u act [%d,%d] rsvd %u u:",
			i, opname(o.opcode), o.opcode, o.flags, o.in[0],
			o.in[1], o.in[2], o.out, o.rq, o.act_min, o.act_max,
			o.rsvd);
		for (k = 0; k < 40; k++)
			if (k < 16 || o.u.raw[k])
				fprintf(stderr, " %s%u", k >= 16 ? "@" : "",
					o.u.raw[k]);
		fprintf(stderr, "\n");
		if (o.rq < g->p.nt && o.opcode >= NPU_OP_CONV2D &&
		    o.opcode <= NPU_OP_ADD && o.opcode != NPU_OP_MAXPOOL &&
		    o.opcode != NPU_OP_PAD) {
			const struct npu_prog_tensor *q = &g->p.t[o.rq];
			uint64_t np = tbytes(q) / 8;

			fprintf(stderr, "#     rq pairs (initial):");
			for (k = 0; k < np && k < 8 && q->buf < g->nslots &&
			     q->offset + 8 * (k + 1) <= CAP; k++)
				fprintf(stderr, " {%d,%d}",
					get32(g->mem[q->buf] + q->offset + 8 * k),
					get32(g->mem[q->buf] + q->offset + 8 * k +
					      4));
			fprintf(stderr, "\n");
		}
	}
	for (i = 0; i < g->nedits; i++)
		fprintf(stderr, "#   program byte %u set to 0x%02x\n",
			g->edit[i].off, g->edit[i].val);
}

/* which tensor element a differing byte belongs to */
static void print_where(const struct gcase *g, const struct diff *d)
{
	unsigned int i;

	for (i = 0; i < g->p.nt; i++) {
		const struct npu_prog_tensor *t = &g->p.t[i];
		uint64_t p, n;

		if (t->buf != d->slot || d->off < t->offset ||
		    d->off >= t->offset + tbytes(t))
			continue;
		if (npuref_tensor_elems(t, &n))
			continue;
		for (p = 0; p < n; p++) {
			uint32_t idx[4];
			uint64_t off;
			uint64_t q = p;
			int k;

			for (k = 3; k >= 0; k--) {
				idx[k] = (uint32_t)(q % t->dims[k]);
				q /= t->dims[k];
			}
			npuref_tensor_offset(t, idx, &off);
			if (t->offset + off <= d->off &&
			    d->off < t->offset + off + esize(t->dtype)) {
				fprintf(stderr,
					"#   = tensor t%u element (%u,%u,%u,%u)\n",
					i, idx[0], idx[1], idx[2], idx[3]);
				return;
			}
		}
		fprintf(stderr, "#   = tensor t%u padding lane\n", i);
		return;
	}
	fprintf(stderr, "#   = outside every tensor\n");
}

static void report(const struct gcase *g, const struct diff *d,
		   const char *kind)
{
	fprintf(stderr,
		"# MISMATCH (%s) seed 0x%016" PRIx64
		": emu status %d op_index %u, ref status %d op_index %u\n",
		kind, g->seed, d->st_emu, d->idx_emu, d->st_ref, d->idx_ref);
	if (d->differs == 2) {
		fprintf(stderr,
			"#   first differing byte: slot %u offset %u emu 0x%02x ref 0x%02x\n",
			d->slot, d->off, d->b_emu, d->b_ref);
		print_where(g, d);
	}
	print_case(g);
}

/*
 * Drop operators while the disagreement persists. Dropped operators keep
 * their tensors, which are still validated, so faults in them stay.
 */
static void minimize(struct gcase *g)
{
	struct diff d;
	unsigned int i;
	int progress = 1;

	while (progress && g->p.nop > 1) {
		progress = 0;
		for (i = g->p.nop; i-- > 0;) {
			struct npu_prog_op saved[PROGBUILD_MAX_OPS];
			unsigned int no = g->p.nop;

			if (g->nedits)
				return;	/* byte offsets would move */
			memcpy(saved, g->p.op, sizeof(saved));
			memmove(&g->p.op[i], &g->p.op[i + 1],
				(no - i - 1) * sizeof(g->p.op[0]));
			g->p.nop--;
			if (!run_both(g, &d) && d.differs) {
				progress = 1;
				continue;
			}
			memcpy(g->p.op, saved, sizeof(saved));
			g->p.nop = no;
		}
	}
}

/* ---------------- faults ---------------- */

static void inject_fault(struct gcase *g)
{
	struct rng *r = &g->r;
	struct npu_prog_tensor *t;
	struct npu_prog_op *o;
	size_t psize = progbuild_size(&g->p);
	unsigned int k;

	t = &g->p.t[rnd(r, g->p.nt)];
	o = &g->p.op[rnd(r, g->p.nop)];
	switch (rnd(r, 41)) {
	case 0:
		g->fault = "hdr magic";
		g->edit[g->nedits].off = rnd(r, 4);
		g->edit[g->nedits++].val = (uint8_t)(1 + rnd(r, 255));
		break;
	case 1:
		g->fault = "hdr version";
		g->edit[g->nedits].off = 4;
		g->edit[g->nedits++].val = (uint8_t)(2 + rnd(r, 254));
		break;
	case 2:
		g->fault = "hdr hdr_size";
		g->edit[g->nedits].off = 6;
		g->edit[g->nedits++].val = (uint8_t)(8 * rnd(r, 4));
		break;
	case 3:
		g->fault = "hdr rsvd";
		g->edit[g->nedits].off = 28 + rnd(r, 4);
		g->edit[g->nedits++].val = (uint8_t)(1 + rnd(r, 255));
		break;
	case 4:
		g->fault = "hdr n_tensors";
		g->edit[g->nedits].off = 8 + rnd(r, 2);
		g->edit[g->nedits++].val = (uint8_t)(1 + rnd(r, 255));
		break;
	case 5:
		g->fault = "hdr n_ops";
		g->edit[g->nedits].off = 12 + rnd(r, 2);
		g->edit[g->nedits++].val = (uint8_t)(1 + rnd(r, 255));
		break;
	case 6:
		g->fault = "hdr tensors_off";
		g->edit[g->nedits].off = 16;
		g->edit[g->nedits++].val = (uint8_t)(32 + 1 + rnd(r, 15));
		break;
	case 7:
		g->fault = "hdr ops_off";
		g->edit[g->nedits].off = 20 + rnd(r, 2);
		g->edit[g->nedits++].val = (uint8_t)rnd(r, 256);
		break;
	case 8:
		g->fault = "hdr size";
		g->edit[g->nedits].off = 24 + rnd(r, 2);
		g->edit[g->nedits++].val = (uint8_t)rnd(r, 256);
		break;
	case 9:
		g->fault = "program past its slot";
		g->size[0] = g->prog_off + (uint32_t)psize -
			     8 * (1 + rnd(r, 3));
		break;
	case 10:
		g->fault = "t dtype";
		t->dtype = (uint8_t)rnd(r, 256);
		break;
	case 11:
		g->fault = "t ndim";
		t->ndim = (uint8_t)rnd(r, 8);
		break;
	case 12:
		g->fault = "t layout";
		t->layout = (uint8_t)rnd(r, 4);
		break;
	case 13:
		g->fault = "t buf";
		t->buf = (uint8_t)rnd(r, 16);
		break;
	case 14:
		g->fault = "t offset";
		t->offset = (uint32_t)rrange(r, 0, CAP + 64);
		break;
	case 15:
		g->fault = "t offset far";
		t->offset = (uint32_t)rnext(r);
		break;
	case 16:
		g->fault = "t dim";
		t->dims[rnd(r, 4)] = rnd(r, 4) ? rnd(r, 40) :
				     (uint32_t)rnext(r);
		break;
	case 17:
		g->fault = "t zero_point";
		t->zero_point = (int32_t)rrange(r, -300, 300);
		break;
	case 18:
		g->fault = "t rsvd";
		t->rsvd = 1u << rnd(r, 32);
		break;
	case 19:
		g->fault = "op opcode";
		o->opcode = (uint16_t)(rnd(r, 2) ? 0 : NPU_OP_MAX + 1 +
				       rnd(r, 100));
		break;
	case 20:
		g->fault = "op flags";
		o->flags = (uint16_t)(1 + rnd(r, 9));
		break;
	case 21:
		g->fault = "op rsvd";
		o->rsvd = (uint16_t)(1 + rnd(r, 9));
		break;
	case 22:
		g->fault = "op u byte";
		o->u.raw[rnd(r, 40)] = (uint8_t)rnd(r, 256);
		break;
	case 23:
		g->fault = "op in";
		o->in[rnd(r, 3)] = (uint16_t)(rnd(r, 2) ? NONE :
					      rnd(r, g->p.nt + 4));
		break;
	case 24:
		g->fault = "op out";
		o->out = (uint16_t)(rnd(r, 2) ? NONE : rnd(r, g->p.nt + 4));
		break;
	case 25:
		g->fault = "op rq";
		o->rq = (uint16_t)(rnd(r, 2) ? NONE : rnd(r, g->p.nt + 4));
		break;
	case 26:
		g->fault = "op act";
		o->act_min = (int32_t)rrange(r, -10, 300);
		o->act_max = (int32_t)rrange(r, -10, 300);
		break;
	case 27:
		g->fault = "op stride/dilation";
		o->u.conv.sh = (uint8_t)rnd(r, 3);
		o->u.conv.dw = (uint8_t)rnd(r, 3);
		break;
	case 28:
		g->fault = "op pads";
		o->u.conv.pt = (uint8_t)rnd(r, 5);
		o->u.conv.pr = (uint8_t)rnd(r, 5);
		break;
	case 29:
		g->fault = "op kernel";
		o->u.conv.kh = (uint8_t)rnd(r, 5);
		o->u.conv.kw = (uint8_t)rnd(r, 5);
		break;
	case 30:
		g->fault = "op out dims";
		if (o->out < g->p.nt)
			g->p.t[o->out].dims[rnd(r, 4)] += 1;
		break;
	case 31:
		g->fault = "op in dims";
		if (o->in[0] < g->p.nt)
			g->p.t[o->in[0]].dims[rnd(r, 4)] += 1;
		break;
	case 32:
		g->fault = "tensor dtype swap";
		if (o->in[rnd(r, 3)] != NONE)
			t->dtype = (uint8_t)(1 + rnd(r, 3));
		break;
	case 33:
		g->fault = "zero point mismatch";
		if (o->out < g->p.nt)
			g->p.t[o->out].zero_point ^= 1;
		break;
	case 34:
		g->fault = "rq value";
		if (o->rq < g->p.nt && g->p.t[o->rq].buf < g->nslots) {
			struct npu_prog_tensor *q = &g->p.t[o->rq];
			uint64_t b = tbytes(q);

			if (b >= 8 && q->offset + b <= CAP) {
				uint32_t k = 4 * rnd(r, (uint32_t)(b / 4));
				int32_t v = k % 8 ? (int32_t)rrange(r, -40, 40) :
					    (int32_t)(uint32_t)rnext(r);

				put32(g->mem[q->buf] + q->offset + k, v);
			}
		}
		break;
	case 35:
		g->fault = "perm/axis/begin";
		o->u.raw[rnd(r, 4)] = (uint8_t)rnd(r, 6);
		break;
	case 36:
		g->fault = "slot shrunk";
		g->size[rnd(r, g->nslots)] -= 1 + rnd(r, 64);
		break;
	case 37:
		g->fault = "nchwc16 layout";
		t->layout = NPU_LAYOUT_NCHWC16;
		break;
	case 38:
		g->fault = "plain layout";
		t->layout = NPU_LAYOUT_PLAIN;
		break;
	case 39:
		g->fault = "misaligned i32";
		for (k = 0; k < g->p.nt; k++)
			if (g->p.t[k].dtype == NPU_DT_I32) {
				g->p.t[k].offset += 1 + rnd(r, 3);
				break;
			}
		break;
	default:
		g->fault = "pad amounts";
		o->u.pad.after[rnd(r, 4)] = (uint16_t)rnd(r, 3);
		break;
	}
}

static void flip_bytes(struct gcase *g)
{
	size_t psize = progbuild_size(&g->p);
	unsigned int i, n = 1 + rnd(&g->r, 4);

	g->fault = "byte flips";
	for (i = 0; i < n; i++) {
		g->edit[g->nedits].off = (uint32_t)rnd(&g->r, (uint32_t)psize);
		g->edit[g->nedits++].val = (uint8_t)rnext(&g->r);
	}
}

/* ---------------- the test ---------------- */

enum mode { M_VALID, M_FAULT, M_FLIP };

static unsigned int n_cases(unsigned int dflt)
{
	const char *e = getenv("NPUREF_DIFF_CASES");

	return e ? (unsigned int)strtoul(e, NULL, 0) : dflt;
}

/* NPUREF_DIFF_REPORTS=<n>: mismatches printed in full per batch (5) */
static unsigned int max_reports(void)
{
	const char *e = getenv("NPUREF_DIFF_REPORTS");

	return e ? (unsigned int)strtoul(e, NULL, 0) : 5;
}

/* status histogram of a batch, printed as a TAP comment */
static void print_hist(const char *name, const unsigned int *h,
		       unsigned int n, const unsigned int *byop)
{
	unsigned int i;

	fprintf(stderr,
		"# %s: %u cases: OK %u BAD_OPCODE %u BAD_ADDRESS %u MISALIGNED %u BAD_SHAPE %u BAD_PROGRAM %u other %u\n",
		name, n, h[0], h[1], h[2], h[3], h[4], h[5], h[6]);
	for (i = 0; i <= NPU_OP_MAX + 1; i++)
		if (byop[i])
			fprintf(stderr, "# %s: %u mismatches at %s\n", name,
				byop[i], i <= NPU_OP_MAX ? opname((uint16_t)i) :
				"program level");
}

/* opcode the disagreement is about: the failing or the writing operator */
static unsigned int blame(const struct gcase *g, const struct diff *d)
{
	uint16_t i = d->idx_emu != 0xffff ? d->idx_emu : d->idx_ref;
	unsigned int k;

	if (d->differs == 2) {
		for (k = g->p.nop; k-- > 0;) {
			const struct npu_prog_tensor *t;

			if (g->p.op[k].out >= g->p.nt)
				continue;
			t = &g->p.t[g->p.op[k].out];
			if (t->buf == d->slot && d->off >= t->offset &&
			    d->off < t->offset + tbytes(t))
				return g->p.op[k].opcode <= NPU_OP_MAX ?
				       g->p.op[k].opcode : 0;
		}
		return NPU_OP_MAX + 1;
	}
	if (i < g->p.nop && !g->nedits)
		return g->p.op[i].opcode <= NPU_OP_MAX ? g->p.op[i].opcode : 0;
	return NPU_OP_MAX + 1;
}

/* returns the number of mismatches */
static unsigned int batch(enum mode m, uint64_t base, unsigned int n,
			  const char *name)
{
	unsigned int i, bad = 0, hist[7] = { 0 }, byop[NPU_OP_MAX + 2] = { 0 };
	const char *one = getenv("NPUREF_DIFF_SEED");

	for (i = 0; i < n; i++) {
		uint64_t seed = base + i;
		struct gcase g;
		struct diff d;

		if (one) {
			seed = strtoull(one, NULL, 0);
			if ((seed & 0xff00000000000000ull) != base)
				return 0;
			if (i)
				break;
		}
		if (gen_valid(&g, seed)) {
			gcase_free(&g);
			continue;
		}
		if (m == M_FAULT)
			inject_fault(&g);
		else if (m == M_FLIP)
			flip_bytes(&g);
		if (run_both(&g, &d)) {
			gcase_free(&g);
			continue;
		}
		hist[d.st_ref >= 0 && d.st_ref < 6 ? d.st_ref : 6]++;
		if (one)
			print_case(&g);
		if (d.differs) {
			byop[blame(&g, &d)]++;
			if (bad < max_reports()) {
				minimize(&g);
				run_both(&g, &d);
				report(&g, &d, name);
			}
			bad++;
		}
		gcase_free(&g);
	}
	print_hist(name, hist, n, byop);
	return bad;
}

/*
 * Seeds: the top byte says which batch, the rest is the case number, so
 * every failure message names a seed that reproduces its case alone.
 */
#define SEED_VALID	0x0100000000000000ull
#define SEED_FAULT	0x0200000000000000ull
#define SEED_FLIP	0x0300000000000000ull

FIXTURE(diff) {
	int unused;
};

FIXTURE_SETUP(diff)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(diff)
{
}

TEST_F_TIMEOUT(diff, valid_programs, 600)
{
	unsigned int bad = batch(M_VALID, SEED_VALID, n_cases(3000), "valid");

	EXPECT_EQ(0u, bad);
}

TEST_F_TIMEOUT(diff, single_faults, 600)
{
	unsigned int bad = batch(M_FAULT, SEED_FAULT, n_cases(3000), "fault");

	EXPECT_EQ(0u, bad);
}

TEST_F_TIMEOUT(diff, byte_flips, 600)
{
	unsigned int bad = batch(M_FLIP, SEED_FLIP, n_cases(2000), "flip");

	EXPECT_EQ(0u, bad);
}

TEST_HARNESS_MAIN
