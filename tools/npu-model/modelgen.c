// SPDX-License-Identifier: GPL-2.0-only
/*
 * modelgen.c - deterministic quantized networks for the NPU.
 *
 * A network is built layer by layer. Each layer gets PRNG weights (He
 * uniform), quantized per output channel to symmetric int8; its output is
 * computed in float over a set of PRNG calibration inputs, and the output's
 * uint8 scale and zero point are chosen from the observed range (post-
 * training calibration as TFLite does it). The float activations are then
 * fake-quantized so that the next layer is calibrated on what the NPU will
 * see. The layer is emitted as program operators (Documentation/npu/
 * program.rst) with NCHWC16 activations.
 *
 * Slot plan (Documentation/npu/model.rst): 0 constants + program, 1 input,
 * 2 output, 3 scratch with two ping-pong regions.
 *
 * Every layer is also recorded (struct mg_layer): its name, shapes, MACs
 * and where its weights lie in the constant blob. The records give the
 * model file's layer table (include/npu/npu_model_layers.h) and the
 * parameters dump (mg_build_params(), model.rst "Parameters dump").
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libnpu.h"
#include "modelgen.h"
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npu/npu_model_layers.h"
#include "npu_progbuild.h"

#define SLOT_CONST	0
#define SLOT_IN		1
#define SLOT_OUT	2
#define SLOT_SCRATCH	3
#define N_SLOTS		4
#define MAX_LAYERS	64	/* of a generated network, one operator each */

#define ALIGN(x, a)	(((x) + (a) - 1) / (a) * (a))

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [-1, 1) with 24 bits */
static float rng_uniform(struct rng *r)
{
	return (float)(rng_next(r) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

enum act_fn { ACT_NONE, ACT_RELU, ACT_RELU6 };

/* an activation: float calibration data and its device tensor */
struct act {
	float *data;		/* ncal * count floats, NHWC */
	uint32_t ndim;
	uint32_t dims[4];
	size_t count;		/* per calibration input */
	float scale;
	int32_t zp;
	uint16_t tensor;
};

/* the shape and quantization of an activation, for the records */
struct act_shape {
	uint32_t ndim;
	uint32_t dims[4];
	float scale;
	int32_t zp;
};

/*
 * One layer as built: one program operator (@op). @w and @b are the
 * weight and bias tensors (constants; NPU_PROG_NONE without), @sw the
 * per-channel weight scales passed to npu_quantize_multiplier().
 */
struct mg_layer {
	char name[16];
	const char *kind;	/* params.json "op" */
	const char *op_type;	/* the layer table's op type */
	enum act_fn fn;
	int input;		/* producing layer, -1 for the model input */
	uint32_t op;
	struct act_shape in, out;
	uint16_t w, b;
	const char *wlayout;
	float *sw;
	uint64_t macs;
};

struct gb {
	struct npu_prog_tensor t[NPU_PROG_MAX_TENSORS];
	int region[NPU_PROG_MAX_TENSORS];	/* scratch region or -1 */
	uint32_t nt;
	struct npu_prog_op ops[NPU_PROG_MAX_OPS];
	uint32_t nops;
	uint8_t *cb;
	size_t csize, ccap;
	uint64_t region_size;
	uint64_t slot_size[N_SLOTS];
	struct npu_model_io io[2];
	struct act_shape input;
	struct mg_layer layers[MAX_LAYERS];
	unsigned int nl;
	unsigned int ncal;
	struct rng rng;
	int last_region;
	int err;
	char *msg;
	size_t msglen;
};

__attribute__((format(printf, 3, 4)))
static void gfail(struct gb *g, int err, const char *fmt, ...)
{
	va_list ap;

	if (g->err)
		return;
	g->err = err;
	if (g->msg && g->msglen) {
		va_start(ap, fmt);
		vsnprintf(g->msg, g->msglen, fmt, ap);
		va_end(ap);
	}
}

static uint64_t tensor_bytes(const struct npu_prog_tensor *t)
{
	return progbuild_bytes(t);
}

static uint16_t add_tensor(struct gb *g, uint8_t dtype, uint8_t layout,
			   uint32_t ndim, const uint32_t *dims, uint8_t slot,
			   uint32_t offset, int32_t zp)
{
	uint32_t d4[4], i;

	if (g->nt >= NPU_PROG_MAX_TENSORS) {
		gfail(g, -E2BIG, "too many tensors");
		return 0;
	}
	for (i = 0; i < 4; i++)
		d4[i] = i < ndim ? dims[i] : 1;
	progbuild_fill_tensor(&g->t[g->nt], dtype, layout, slot, offset, (uint8_t)ndim,
		   d4, zp);
	g->region[g->nt] = -1;
	return (uint16_t)g->nt++;
}

/* append to the constant blob, 64-byte aligned; returns the offset */
static uint32_t add_const(struct gb *g, const void *data, size_t n)
{
	size_t off = ALIGN(g->csize, 64);

	if (off + n > g->ccap) {
		size_t cap = g->ccap ? g->ccap : 1 << 16;
		uint8_t *p;

		while (cap < off + n)
			cap *= 2;
		p = realloc(g->cb, cap);
		if (!p) {
			gfail(g, -ENOMEM, "out of memory");
			return 0;
		}
		memset(p + g->ccap, 0, cap - g->ccap);
		g->cb = p;
		g->ccap = cap;
	}
	memcpy(g->cb + off, data, n);
	g->csize = off + n;
	return (uint32_t)off;
}

static uint16_t const_tensor(struct gb *g, uint8_t dtype, uint32_t ndim,
			     const uint32_t *dims, const void *data, int32_t zp)
{
	size_t n = 1;
	uint32_t i;

	for (i = 0; i < ndim; i++)
		n *= dims[i];
	n *= dtype == NPU_DT_I32 ? 4 : 1;
	i = add_const(g, data, n);
	return add_tensor(g, dtype, NPU_LAYOUT_PLAIN, ndim, dims, SLOT_CONST, i,
			  zp);
}

/* a new activation tensor: scratch (ping-pong) or the model output */
static uint16_t act_tensor(struct gb *g, struct act *a, bool final)
{
	uint8_t layout = a->ndim == 4 ? NPU_LAYOUT_NCHWC16 : NPU_LAYOUT_PLAIN;
	uint16_t ti;
	uint64_t bytes;

	ti = add_tensor(g, NPU_DT_U8, layout, a->ndim, a->dims,
			final ? SLOT_OUT : SLOT_SCRATCH, 0, a->zp);
	bytes = tensor_bytes(&g->t[ti]);
	if (final) {
		g->slot_size[SLOT_OUT] = ALIGN(bytes, 64);
	} else {
		g->last_region = !g->last_region;
		g->region[ti] = g->last_region;
		if (bytes > g->region_size)
			g->region_size = bytes;
	}
	a->tensor = ti;
	return ti;
}

static struct npu_prog_op *add_op(struct gb *g, uint16_t opcode)
{
	struct npu_prog_op *op;

	if (g->nops >= NPU_PROG_MAX_OPS) {
		gfail(g, -E2BIG, "too many operators");
		return &g->ops[0];
	}
	op = &g->ops[g->nops++];
	progbuild_fill_op(op, opcode, NPU_PROG_NONE, NPU_PROG_NONE, NPU_PROG_NONE, 0,
	       NPU_PROG_NONE, 0, 255);
	return op;
}

static float fake_quant(float v, float s, int32_t zp)
{
	float q = rintf(v / s) + (float)zp;

	if (q < 0.0f)
		q = 0.0f;
	if (q > 255.0f)
		q = 255.0f;
	return (q - (float)zp) * s;
}

/*
 * Choose the output scale/zero point from the calibration data, set the
 * operator's clamp, and fake-quantize the data.
 */
static void calibrate(struct act *a, unsigned int ncal, enum act_fn fn,
		      struct npu_prog_op *op)
{
	size_t i, n = a->count * ncal;
	float lo = 0.0f, hi = 0.0f;

	for (i = 0; i < n; i++) {
		if (a->data[i] < lo)
			lo = a->data[i];
		if (a->data[i] > hi)
			hi = a->data[i];
	}
	if (fn != ACT_NONE)
		lo = 0.0f;
	if (fn == ACT_NONE) {
		/* headroom: other inputs reach beyond the calibration set */
		lo *= 1.25f;
		hi *= 1.25f;
	}
	if (fn == ACT_RELU6 && hi > 6.0f)
		hi = 6.0f;
	if (hi - lo < 1e-6f)
		hi = lo + 1e-6f;
	a->scale = (hi - lo) / 255.0f;
	a->zp = (int32_t)lrintf(-lo / a->scale);
	if (a->zp < 0)
		a->zp = 0;
	if (a->zp > 255)
		a->zp = 255;
	op->act_min = fn == ACT_NONE ? 0 : a->zp;
	op->act_max = 255;
	if (fn == ACT_RELU6) {
		long m = a->zp + lrintf(6.0f / a->scale);

		op->act_max = m > 255 ? 255 : (int32_t)m;
	}
	for (i = 0; i < n; i++)
		a->data[i] = fake_quant(a->data[i], a->scale, a->zp);
}

static float apply_fn(float v, enum act_fn fn)
{
	if (fn != ACT_NONE && v < 0.0f)
		v = 0.0f;
	if (fn == ACT_RELU6 && v > 6.0f)
		v = 6.0f;
	return v;
}

/* TF "SAME" padding */
static void same_pad(uint32_t in, uint32_t k, uint32_t s, uint32_t *out,
		     uint8_t *pa, uint8_t *pb)
{
	uint32_t o = (in + s - 1) / s;
	int64_t tot = (int64_t)(o - 1) * s + k - in;

	if (tot < 0)
		tot = 0;
	*out = o;
	*pa = (uint8_t)(tot / 2);
	*pb = (uint8_t)(tot - tot / 2);
}

/*
 * Quantize float weights [cout][per] per output channel, symmetric int8;
 * replaces them with their dequantized values. Returns scales in @sw.
 */
static void quant_weights(float *w, int8_t *q, uint32_t cout, size_t per,
			  uint32_t stride_c, float *sw)
{
	uint32_t c;
	size_t i;

	/* element (c, i) is at w[i * stride_c + c] when stride_c > 1 (dw) */
	for (c = 0; c < cout; c++) {
		float m = 0.0f;

		for (i = 0; i < per; i++) {
			float v = fabsf(w[stride_c > 1 ? i * stride_c + c : c * per + i]);

			if (v > m)
				m = v;
		}
		sw[c] = m > 0.0f ? m / 127.0f : 1.0f;
		for (i = 0; i < per; i++) {
			size_t k = stride_c > 1 ? i * stride_c + c : c * per + i;
			long v = lrintf(w[k] / sw[c]);

			v = v > 127 ? 127 : v < -127 ? -127 : v;
			q[k] = (int8_t)v;
			w[k] = (float)v * sw[c];
		}
	}
}

/* bias, quantized with scale sx * sw[c]; replaces it by its exact value */
static void quant_bias(float *b, int32_t *q, uint32_t n, float sx,
		       const float *sw)
{
	uint32_t c;

	for (c = 0; c < n; c++) {
		double s = (double)sx * sw[c];

		q[c] = (int32_t)lrint(b[c] / s);
		b[c] = (float)(q[c] * s);
	}
}

static uint16_t rq_table(struct gb *g, uint32_t n, float sx, const float *sw,
			 float sy)
{
	int32_t *rq = calloc(2 * (size_t)n, sizeof(*rq));
	uint32_t dims[1] = { 2 * n };
	uint16_t ti;
	uint32_t c;

	if (!rq) {
		gfail(g, -ENOMEM, "out of memory");
		return 0;
	}
	for (c = 0; c < n; c++)
		if (npu_quantize_multiplier((double)sx * sw[c] / sy, &rq[2 * c],
					    &rq[2 * c + 1]))
			gfail(g, -ERANGE, "requantization factor out of range");
	ti = const_tensor(g, NPU_DT_I32, 1, dims, rq, 0);
	free(rq);
	return ti;
}

static struct act_shape shape_of(const struct act *a)
{
	struct act_shape s = { .ndim = a->ndim, .scale = a->scale, .zp = a->zp };

	memcpy(s.dims, a->dims, sizeof(s.dims));
	return s;
}

/*
 * Record the layer whose operator was just added: @in is its input as it
 * was, @out its output; @sw (of the output channels) is copied.
 */
static void record(struct gb *g, const char *name, const char *kind,
		   const char *op_type, enum act_fn fn, const struct act *in,
		   const struct act *out, const float *sw, uint64_t macs)
{
	const struct npu_prog_op *op = &g->ops[g->nops - 1];
	struct mg_layer *l;

	if (g->err)
		return;
	if (g->nl >= MAX_LAYERS) {
		gfail(g, -E2BIG, "too many layers");
		return;
	}
	l = &g->layers[g->nl];
	*l = (struct mg_layer){
		.kind = kind, .op_type = op_type, .fn = fn,
		.input = (int)g->nl - 1, .op = g->nops - 1,
		.in = shape_of(in), .out = shape_of(out),
		.w = op->in[1], .b = op->in[2], .macs = macs,
	};
	snprintf(l->name, sizeof(l->name), "%s", name);
	if (sw) {
		size_t n = out->dims[out->ndim - 1];

		l->sw = malloc(n * sizeof(*sw));
		if (!l->sw) {
			gfail(g, -ENOMEM, "out of memory");
			return;
		}
		memcpy(l->sw, sw, n * sizeof(*sw));
	}
	g->nl++;
}

/* CONV2D (dw = false) or DWCONV2D with TF SAME padding */
static void layer_conv(struct gb *g, const char *name, struct act *x,
		       uint32_t cout, uint32_t k, uint32_t s, bool dw,
		       enum act_fn fn, bool final)
{
	uint32_t H = x->dims[1], W = x->dims[2], C = x->dims[3], OH, OW;
	uint32_t co, kh, kw, ci, oh, ow, b;
	uint8_t pt, pb, pl, pr;
	size_t per = (size_t)k * k * (dw ? 1 : C), nw;
	float *w, *bias, *sw, *y;
	int8_t *wq;
	int32_t *bq;
	struct act out;
	struct npu_prog_op *op;
	float fan_in = (float)per, a;

	if (dw)
		cout = C;
	nw = per * cout;
	same_pad(H, k, s, &OH, &pt, &pb);
	same_pad(W, k, s, &OW, &pl, &pr);
	w = malloc(nw * sizeof(*w));
	wq = malloc(nw);
	bias = malloc(cout * sizeof(*bias));
	bq = malloc(cout * sizeof(*bq));
	sw = malloc(cout * sizeof(*sw));
	y = malloc((size_t)g->ncal * OH * OW * cout * sizeof(*y));
	if (!w || !wq || !bias || !bq || !sw || !y) {
		gfail(g, -ENOMEM, "out of memory");
		goto out;
	}
	a = sqrtf(6.0f / fan_in);
	for (size_t i = 0; i < nw; i++)
		w[i] = a * rng_uniform(&g->rng);
	for (co = 0; co < cout; co++)
		bias[co] = 0.05f * (rng_uniform(&g->rng) + 1.0f);
	/* weights are [cout][kh][kw][cin], depthwise [1][kh][kw][c] */
	quant_weights(w, wq, cout, per, dw ? cout : 1, sw);
	quant_bias(bias, bq, cout, x->scale, sw);

	for (b = 0; b < g->ncal; b++) {
		const float *xi = x->data + (size_t)b * x->count;
		float *yo = y + (size_t)b * OH * OW * cout;

		for (oh = 0; oh < OH; oh++)
			for (ow = 0; ow < OW; ow++)
				for (co = 0; co < cout; co++) {
					float acc = bias[co];

					for (kh = 0; kh < k; kh++) {
						int ih = (int)(oh * s + kh) - pt;

						if (ih < 0 || ih >= (int)H)
							continue;
						for (kw = 0; kw < k; kw++) {
							int iw = (int)(ow * s + kw) - pl;
							const float *px;

							if (iw < 0 || iw >= (int)W)
								continue;
							px = xi + ((size_t)ih * W + iw) * C;
							if (dw) {
								acc += px[co] * w[(kh * k + kw) * C + co];
								continue;
							}
							for (ci = 0; ci < C; ci++)
								acc += px[ci] *
								       w[((co * k + kh) * k + kw) * C + ci];
						}
					}
					yo[((size_t)oh * OW + ow) * cout + co] =
						apply_fn(acc, fn);
				}
	}

	out = (struct act){ .data = y, .ndim = 4, .dims = { 1, OH, OW, cout },
			    .count = (size_t)OH * OW * cout };
	op = add_op(g, dw ? NPU_OP_DWCONV2D : NPU_OP_CONV2D);
	calibrate(&out, g->ncal, fn, op);
	{
		uint32_t wd[4] = { dw ? 1 : cout, k, k, dw ? cout : C };
		uint32_t bd[1] = { cout };

		op->in[0] = x->tensor;
		op->in[1] = const_tensor(g, NPU_DT_I8, 4, wd, wq, 0);
		op->in[2] = const_tensor(g, NPU_DT_I32, 1, bd, bq, 0);
		op->rq = rq_table(g, cout, x->scale, sw, out.scale);
		op->out = act_tensor(g, &out, final);
		progbuild_conv(op, (uint8_t)k, (uint8_t)k, (uint8_t)s, (uint8_t)s, pt,
			 pl, pb, pr);
	}
	record(g, name, dw ? "dwconv2d" : "conv2d",
	       dw ? (fn == ACT_RELU6 ? "DepthwiseConv2D+Relu6" :
		     fn == ACT_RELU ? "DepthwiseConv2D+Relu" : "DepthwiseConv2D") :
	       (fn == ACT_RELU6 ? "Conv2D+Relu6" :
		fn == ACT_RELU ? "Conv2D+Relu" : "Conv2D"),
	       fn, x, &out, sw,
	       (uint64_t)OH * OW * cout * k * k * (dw ? 1 : C));
	free(x->data);
	*x = out;
	y = NULL;
out:
	free(w);
	free(wq);
	free(bias);
	free(bq);
	free(sw);
	free(y);
}

/* MAXPOOL or AVGPOOL, VALID padding, same scale and zero point */
static void layer_pool(struct gb *g, const char *name, struct act *x,
		       bool avg, uint32_t k, uint32_t s)
{
	uint32_t H = x->dims[1], W = x->dims[2], C = x->dims[3];
	uint32_t OH = (H - k) / s + 1, OW = (W - k) / s + 1, oh, ow, c, b, i, j;
	float *y = malloc((size_t)g->ncal * OH * OW * C * sizeof(*y));
	struct npu_prog_op *op;
	struct act out;

	if (!y) {
		gfail(g, -ENOMEM, "out of memory");
		return;
	}
	for (b = 0; b < g->ncal; b++)
		for (oh = 0; oh < OH; oh++)
			for (ow = 0; ow < OW; ow++)
				for (c = 0; c < C; c++) {
					float m = -INFINITY, sum = 0.0f;

					for (i = 0; i < k; i++)
						for (j = 0; j < k; j++) {
							float v = x->data[(size_t)b * x->count +
									  (((size_t)oh * s + i) * W +
									   ow * s + j) * C + c];

							sum += v;
							if (v > m)
								m = v;
						}
					y[(size_t)b * OH * OW * C +
					  ((size_t)oh * OW + ow) * C + c] =
						avg ? fake_quant(sum / (float)(k * k),
								 x->scale, x->zp) : m;
				}
	out = (struct act){ .data = y, .ndim = 4, .dims = { 1, OH, OW, C },
			    .count = (size_t)OH * OW * C, .scale = x->scale,
			    .zp = x->zp };
	op = add_op(g, avg ? NPU_OP_AVGPOOL : NPU_OP_MAXPOOL);
	op->in[0] = x->tensor;
	op->out = act_tensor(g, &out, false);
	progbuild_conv(op, (uint8_t)k, (uint8_t)k, (uint8_t)s, (uint8_t)s, 0, 0, 0, 0);
	record(g, name, avg ? "avgpool" : "maxpool",
	       avg ? "AveragePool2D" : "MaxPool2D", ACT_NONE, x, &out, NULL,
	       (uint64_t)OH * OW * C * k * k);
	free(x->data);
	*x = out;
}

/* RESHAPE [1, H, W, C] (NCHWC16) -> [1, H * W * C] (PLAIN) */
static void layer_flatten(struct gb *g, const char *name, struct act *x)
{
	struct npu_prog_op *op = add_op(g, NPU_OP_RESHAPE);
	struct act in = *x;

	x->ndim = 2;
	x->dims[0] = 1;
	x->dims[1] = (uint32_t)x->count;
	x->dims[2] = x->dims[3] = 1;
	op->in[0] = in.tensor;
	op->out = act_tensor(g, x, false);
	record(g, name, "reshape", "Reshape", ACT_NONE, &in, x, NULL, 0);
}

/* FC [1, K] -> [1, N] */
static void layer_fc(struct gb *g, const char *name, struct act *x,
		     uint32_t n, enum act_fn fn, bool final)
{
	uint32_t K = (uint32_t)x->count, o, k, b;
	float *w = malloc((size_t)n * K * sizeof(*w));
	int8_t *wq = malloc((size_t)n * K);
	float *bias = malloc(n * sizeof(*bias)), *sw = malloc(n * sizeof(*sw));
	int32_t *bq = malloc(n * sizeof(*bq));
	float *y = malloc((size_t)g->ncal * n * sizeof(*y));
	float a = sqrtf(6.0f / (float)K);
	struct npu_prog_op *op;
	struct act out;

	if (!w || !wq || !bias || !sw || !bq || !y) {
		gfail(g, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < (size_t)n * K; i++)
		w[i] = a * rng_uniform(&g->rng);
	for (o = 0; o < n; o++)
		bias[o] = 0.05f * rng_uniform(&g->rng);
	quant_weights(w, wq, n, K, 1, sw);
	quant_bias(bias, bq, n, x->scale, sw);
	for (b = 0; b < g->ncal; b++)
		for (o = 0; o < n; o++) {
			float acc = bias[o];

			for (k = 0; k < K; k++)
				acc += x->data[(size_t)b * K + k] * w[(size_t)o * K + k];
			y[(size_t)b * n + o] = apply_fn(acc, fn);
		}
	out = (struct act){ .data = y, .ndim = 2, .dims = { 1, n, 1, 1 },
			    .count = n };
	op = add_op(g, NPU_OP_FC);
	calibrate(&out, g->ncal, fn, op);
	{
		uint32_t wd[2] = { n, K }, bd[1] = { n };

		op->in[0] = x->tensor;
		op->in[1] = const_tensor(g, NPU_DT_I8, 2, wd, wq, 0);
		op->in[2] = const_tensor(g, NPU_DT_I32, 1, bd, bq, 0);
		op->rq = rq_table(g, n, x->scale, sw, out.scale);
		op->out = act_tensor(g, &out, final);
	}
	record(g, name, "fc",
	       fn == ACT_RELU6 ? "FullyConnected+Relu6" :
	       fn == ACT_RELU ? "FullyConnected+Relu" : "FullyConnected",
	       fn, x, &out, sw, (uint64_t)n * K);
	free(x->data);
	*x = out;
	y = NULL;
out:
	free(w);
	free(wq);
	free(bias);
	free(sw);
	free(bq);
	free(y);
}

/* model input: [1, H, W, C] in [lo, hi], quantized with scale/zp */
static void input_act(struct gb *g, struct act *x, uint32_t H, uint32_t W,
		      uint32_t C, float scale, int32_t zp, float lo, float hi)
{
	size_t i, n;
	uint16_t ti;

	*x = (struct act){ .ndim = 4, .dims = { 1, H, W, C },
			   .count = (size_t)H * W * C, .scale = scale, .zp = zp };
	n = x->count * g->ncal;
	x->data = malloc(n * sizeof(float));
	if (!x->data) {
		gfail(g, -ENOMEM, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		float u = (rng_uniform(&g->rng) + 1.0f) * 0.5f;

		x->data[i] = fake_quant(lo + u * (hi - lo), scale, zp);
	}
	ti = add_tensor(g, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 4, x->dims, SLOT_IN, 0,
			zp);
	x->tensor = ti;
	g->slot_size[SLOT_IN] = ALIGN(tensor_bytes(&g->t[ti]), 64);
	g->input = shape_of(x);
}

static void io_desc(struct npu_model_io *io, const char *name,
		    const struct npu_prog_tensor *t, uint32_t ti, float scale)
{
	memset(io, 0, sizeof(*io));
	snprintf(io->name, sizeof(io->name), "%s", name);
	io->tensor = ti;
	io->dtype = t->dtype;
	io->layout = t->layout;
	io->ndim = t->ndim;
	memcpy(io->dims, t->dims, sizeof(io->dims));
	io->scale = scale;
	io->zero_point = t->zero_point;
}

static void build_mnist(struct gb *g)
{
	struct act x;

	g->ncal = 8;
	input_act(g, &x, 28, 28, 1, 1.0f / 255.0f, 0, 0.0f, 1.0f);
	io_desc(&g->io[0], "image", &g->t[x.tensor], x.tensor, x.scale);
	layer_conv(g, "conv1", &x, 16, 3, 1, false, ACT_RELU, false);
	layer_pool(g, "pool1", &x, false, 2, 2);
	layer_conv(g, "conv2", &x, 32, 3, 1, false, ACT_RELU, false);
	layer_pool(g, "pool2", &x, false, 2, 2);
	layer_flatten(g, "flatten", &x);
	layer_fc(g, "fc", &x, 10, ACT_NONE, true);
	io_desc(&g->io[1], "logits", &g->t[x.tensor], x.tensor, x.scale);
	free(x.data);
}

static void build_mobilenet_v1(struct gb *g)
{
	/* Howard et al. 2017, table 1; depth multiplier 1.0, 224x224 */
	static const struct { uint32_t cout, stride; } blocks[13] = {
		{ 64, 1 }, { 128, 2 }, { 128, 1 }, { 256, 2 }, { 256, 1 },
		{ 512, 2 }, { 512, 1 }, { 512, 1 }, { 512, 1 }, { 512, 1 },
		{ 512, 1 }, { 1024, 2 }, { 1024, 1 },
	};
	char name[16];
	struct act x;
	unsigned int i;

	g->ncal = 3;
	input_act(g, &x, 224, 224, 3, 1.0f / 128.0f, 128, -1.0f, 1.0f);
	io_desc(&g->io[0], "image", &g->t[x.tensor], x.tensor, x.scale);
	layer_conv(g, "conv1", &x, 32, 3, 2, false, ACT_RELU6, false);
	for (i = 0; i < 13 && !g->err; i++) {
		snprintf(name, sizeof(name), "conv_dw_%u", i + 1);
		layer_conv(g, name, &x, 0, 3, blocks[i].stride, true, ACT_RELU6,
			   false);
		snprintf(name, sizeof(name), "conv_pw_%u", i + 1);
		layer_conv(g, name, &x, blocks[i].cout, 1, 1, false, ACT_RELU6,
			   false);
	}
	layer_pool(g, "avg_pool", &x, true, 7, 1);
	layer_flatten(g, "reshape", &x);
	layer_fc(g, "fc", &x, 1001, ACT_NONE, true);
	io_desc(&g->io[1], "logits", &g->t[x.tensor], x.tensor, x.scale);
	free(x.data);
}

static const struct mg_net nets[] = {
	{ "mnist", "28x28x1 CNN: conv3x3 16 relu, maxpool, conv3x3 32 relu, maxpool, FC 10" },
	{ "mobilenet-v1", "MobileNet v1 1.0 224x224x3, 13 depthwise-separable blocks, avgpool, FC 1001" },
};

const struct mg_net *mg_nets(size_t *count)
{
	*count = sizeof(nets) / sizeof(nets[0]);
	return nets;
}

/* the offset of @str in the string area @area (@len bytes), added if new */
static uint32_t str_add(char *area, uint32_t *len, const char *str)
{
	size_t n = strlen(str) + 1;
	uint32_t off;

	for (off = 1; off < *len; off += (uint32_t)strlen(area + off) + 1)
		if (!strcmp(area + off, str))
			return off;
	memcpy(area + *len, str, n);
	off = *len;
	*len += (uint32_t)n;
	return off;
}

static void layer_shape(struct npu_layer_shape *s, uint8_t dtype,
			uint32_t ndim, const uint32_t *dims)
{
	memset(s, 0, sizeof(*s));
	s->dtype = dtype;
	s->ndim = (uint8_t)ndim;
	memcpy(s->dims, dims, ndim * sizeof(*dims));
}

/*
 * The layer table of the recorded layers (one per operator), shapes in
 * modelgen's own NHWC; malloc()ed, @sizep bytes (a multiple of 8: the
 * string area is padded with NULs).
 */
static void *layer_table(struct gb *g, uint32_t *sizep)
{
	/* 16-byte names and op types under 32 bytes, one each per layer */
	char strs[1 + MAX_LAYERS * 48 + 8] = "";
	struct npu_layers_hdr *h;
	uint32_t slen = 1, i;
	uint64_t size;

	if (g->nl != g->nops) {
		gfail(g, -EINVAL, "internal error: %u layers for %u operators",
		      g->nl, g->nops);
		return NULL;
	}
	h = calloc(1, npu_layers_size(g->nl, sizeof(strs)));
	if (!h) {
		gfail(g, -ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < g->nl; i++) {
		const struct mg_layer *l = &g->layers[i];
		struct npu_layer_desc *d = (struct npu_layer_desc *)(h + 1) + i;
		const struct npu_prog_tensor *t;

		d->name = str_add(strs, &slen, l->name);
		d->op_type = str_add(strs, &slen, l->op_type);
		d->macs = l->macs;
		d->n_in = 1;
		d->n_out = 1;
		layer_shape(&d->in[0], NPU_LAYER_DT_U8, l->in.ndim, l->in.dims);
		layer_shape(&d->out, NPU_LAYER_DT_U8, l->out.ndim, l->out.dims);
		if (l->w != NPU_PROG_NONE) {
			t = &g->t[l->w];
			layer_shape(&d->in[d->n_in++], NPU_LAYER_DT_I8, t->ndim,
				    t->dims);
			d->weight_bytes += tensor_bytes(t);
		}
		if (l->b != NPU_PROG_NONE) {
			t = &g->t[l->b];
			layer_shape(&d->in[d->n_in++], NPU_LAYER_DT_I32, t->ndim,
				    t->dims);
			d->weight_bytes += tensor_bytes(t);
		}
	}
	slen = ALIGN(slen, 8);
	h->magic = NPU_LAYERS_MAGIC;
	h->version = NPU_LAYERS_VERSION;
	h->hdr_size = sizeof(*h);
	h->n_layers = g->nl;
	h->str_size = slen;
	memcpy((char *)npu_layers_desc(h, g->nl), strs, slen);
	size = npu_layers_size(g->nl, slen);
	*sizep = (uint32_t)size;
	return h;
}

static int emit(struct gb *g, const char *name, uint8_t **filep, size_t *sizep)
{
	struct npu_model_file_hdr h = { 0 };
	struct npu_model_slot slots[N_SLOTS] = { 0 };
	uint64_t region = ALIGN(g->region_size, 64);
	uint32_t i, lsize = 0;
	size_t prog_size;
	void *layers;
	uint8_t *f;

	layers = layer_table(g, &lsize);
	if (!layers)
		return g->err;

	for (i = 0; i < g->nt; i++)
		if (g->region[i] >= 0)
			g->t[i].offset = (uint32_t)(g->region[i] * region);
	g->slot_size[SLOT_SCRATCH] = region ? 2 * region : 64;
	prog_size = progbuild_size_for(g->nt, g->nops);

	h.magic = NPU_MODEL_MAGIC;
	h.version = NPU_MODEL_VERSION;
	h.hdr_size = sizeof(h);
	snprintf(h.name, sizeof(h.name), "%s", name);
	h.n_slots = N_SLOTS;
	h.slots_off = sizeof(h);
	h.n_inputs = 1;
	h.n_outputs = 1;
	h.io_off = h.slots_off + sizeof(slots);
	h.prog_off = h.io_off + 2 * sizeof(struct npu_model_io);
	h.prog_size = prog_size;
	h.const_off = ALIGN(h.prog_off + prog_size, 64);
	h.const_size = g->csize;
	h.prog_slot_offset = (uint32_t)ALIGN(g->csize, 64);
	h.flags = NPU_MODEL_F_LAYERS;
	h.layers_off = (uint32_t)ALIGN(h.const_off + g->csize, 8);
	h.layers_size = lsize;
	h.file_size = h.layers_off + lsize;

	g->slot_size[SLOT_CONST] = ALIGN(h.prog_slot_offset + prog_size, 64);
	slots[SLOT_CONST].kind = NPU_MODEL_SLOT_CONST;
	slots[SLOT_IN].kind = NPU_MODEL_SLOT_INPUT;
	slots[SLOT_OUT].kind = NPU_MODEL_SLOT_OUTPUT;
	slots[SLOT_SCRATCH].kind = NPU_MODEL_SLOT_SCRATCH;
	for (i = 0; i < N_SLOTS; i++)
		slots[i].size = g->slot_size[i];

	f = calloc(1, h.file_size);
	if (!f) {
		free(layers);
		return -ENOMEM;
	}
	memcpy(f + h.layers_off, layers, lsize);
	free(layers);
	memcpy(f + h.slots_off, slots, sizeof(slots));
	memcpy(f + h.io_off, g->io, sizeof(g->io));
	progbuild_write(f + h.prog_off, g->t, g->nt, g->ops, g->nops);
	if (g->csize)
		memcpy(f + h.const_off, g->cb, g->csize);
	memcpy(f, &h, sizeof(h));
	h.crc32 = npu_crc32(0, f, h.file_size);
	memcpy(f, &h, sizeof(h));
	*filep = f;
	*sizep = h.file_size;
	return 0;
}

static const char *act_name(enum act_fn fn)
{
	return fn == ACT_RELU6 ? "relu6" : fn == ACT_RELU ? "relu" : "none";
}

static void json_dims(FILE *f, const uint32_t *dims, uint32_t ndim)
{
	uint32_t i;

	fputc('[', f);
	for (i = 0; i < ndim; i++)
		fprintf(f, "%s%u", i ? "," : "", dims[i]);
	fputc(']', f);
}

/* write @n bytes of constant tensor @ti to @dir/@name.@what.bin */
static void write_blob(struct gb *g, const char *dir, const char *name,
		       const char *what, uint16_t ti, char *file,
		       size_t filelen)
{
	char path[4096];
	size_t n = (size_t)tensor_bytes(&g->t[ti]);
	FILE *f;

	snprintf(file, filelen, "%s.%s.bin", name, what);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "wb");
	if (!f) {
		gfail(g, -errno, "%s: %s", path, strerror(errno));
		return;
	}
	if (fwrite(g->cb + g->t[ti].offset, 1, n, f) != n)
		gfail(g, -EIO, "%s: write error", path);
	if (fclose(f))
		gfail(g, -errno, "%s: %s", path, strerror(errno));
}

static void json_layer(struct gb *g, FILE *f, const char *dir,
		       const struct mg_layer *l)
{
	const struct npu_prog_op *op = &g->ops[l->op];
	const struct npu_prog_tensor *t;
	char file[64];
	uint32_t c, n;

	fprintf(f, "    {\"name\": \"%s\", \"op\": \"%s\", \"act\": \"%s\", "
		"\"act_min\": %d, \"act_max\": %d,\n", l->name, l->kind,
		act_name(l->fn), op->act_min, op->act_max);
	fprintf(f, "     \"input\": \"%s\", \"output\": \"%s\",\n",
		l->input < 0 ? "input" : g->layers[l->input].name, l->name);
	if (op->opcode != NPU_OP_RESHAPE && op->opcode != NPU_OP_FC)
		fprintf(f, "     \"kernel\": [%u,%u], \"stride\": [%u,%u], "
			"\"pads\": [%u,%u,%u,%u],\n", op->u.conv.kh,
			op->u.conv.kw, op->u.conv.sh, op->u.conv.sw,
			op->u.conv.pt, op->u.conv.pl, op->u.conv.pb,
			op->u.conv.pr);
	if (l->w != NPU_PROG_NONE) {
		t = &g->t[l->w];
		write_blob(g, dir, l->name, "weights", l->w, file, sizeof(file));
		fputs("     \"weights\": {\"shape\": ", f);
		json_dims(f, t->dims, t->ndim);
		fprintf(f, ", \"layout\": \"%s\", \"dtype\": \"int8\", "
			"\"zero_point\": %d, \"scales\": [",
			op->opcode == NPU_OP_DWCONV2D ? "1HWC" :
			op->opcode == NPU_OP_FC ? "NK" : "OHWI",
			t->zero_point);
		n = l->out.dims[l->out.ndim - 1];
		for (c = 0; c < n; c++)
			fprintf(f, "%s%.9g", c ? "," : "", (double)l->sw[c]);
		fprintf(f, "], \"file\": \"%s\"},\n", file);
	}
	if (l->b != NPU_PROG_NONE) {
		t = &g->t[l->b];
		write_blob(g, dir, l->name, "bias", l->b, file, sizeof(file));
		fputs("     \"bias\": {\"shape\": ", f);
		json_dims(f, t->dims, t->ndim);
		fprintf(f, ", \"dtype\": \"int32\", \"file\": \"%s\"},\n",
			file);
	}
	fputs("     \"out\": {\"shape\": ", f);
	json_dims(f, l->out.dims, l->out.ndim);
	fprintf(f, ", \"scale\": %.9g, \"zero_point\": %d}}",
		(double)l->out.scale, l->out.zp);
}

/*
 * The parameters dump (model.rst, "Parameters dump"): @dir/params.json
 * and one raw little-endian file per weight and bias tensor, the bytes
 * of the constant blob.
 */
static void write_params(struct gb *g, const char *name, uint64_t seed,
			 const char *dir)
{
	const struct mg_layer *last = &g->layers[g->nl - 1];
	char path[4096];
	unsigned int i;
	FILE *f;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		gfail(g, -errno, "%s: %s", dir, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/params.json", dir);
	f = fopen(path, "w");
	if (!f) {
		gfail(g, -errno, "%s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "{\"network\": \"%s\", \"seed\": %llu,\n", name,
		(unsigned long long)seed);
	fputs(" \"input\": {\"name\": \"input\", \"shape\": ", f);
	json_dims(f, g->input.dims, g->input.ndim);
	fprintf(f, ", \"layout\": \"NHWC\", \"scale\": %.9g, "
		"\"zero_point\": %d},\n", (double)g->input.scale, g->input.zp);
	fprintf(f, " \"output\": {\"name\": \"%s\", \"shape\": ",
		g->io[1].name);
	json_dims(f, last->out.dims, last->out.ndim);
	fprintf(f, ", \"scale\": %.9g, \"zero_point\": %d},\n",
		(double)last->out.scale, last->out.zp);
	fputs(" \"layers\": [\n", f);
	for (i = 0; i < g->nl && !g->err; i++) {
		json_layer(g, f, dir, &g->layers[i]);
		fputs(i + 1 < g->nl ? ",\n" : "\n", f);
	}
	fputs(" ]}\n", f);
	if (ferror(f))
		gfail(g, -EIO, "%s: write error", path);
	if (fclose(f))
		gfail(g, -errno, "%s: %s", path, strerror(errno));
}

int mg_build(const char *name, uint64_t seed, uint8_t **file, size_t *size,
	     char *err, size_t errlen)
{
	return mg_build_params(name, seed, NULL, file, size, err, errlen);
}

int mg_build_params(const char *name, uint64_t seed, const char *params_dir,
		    uint8_t **file, size_t *size, char *err, size_t errlen)
{
	struct gb *g;
	unsigned int i;
	int ret;

	if (err && errlen)
		err[0] = 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->msg = err;
	g->msglen = errlen;
	g->rng.s = seed;
	g->last_region = 1;
	if (!strcmp(name, "mnist")) {
		build_mnist(g);
	} else if (!strcmp(name, "mobilenet-v1")) {
		build_mobilenet_v1(g);
	} else {
		gfail(g, -ENOENT, "unknown network '%s' (see --list)", name);
	}
	ret = g->err;
	if (!ret) {
		ret = emit(g, name, file, size);
		if (ret)
			gfail(g, ret, "out of memory");
	}
	if (!ret && params_dir) {
		write_params(g, name, seed, params_dir);
		ret = g->err;
		if (ret) {
			free(*file);
			*file = NULL;
		}
	}
	for (i = 0; i < g->nl; i++)
		free(g->layers[i].sw);
	free(g->cb);
	free(g);
	return ret;
}
