// SPDX-License-Identifier: GPL-2.0-only
/*
 * onnx_lower.c - ONNX nodes to NPU operators (Documentation/npu/onnx.rst).
 *
 * Nodes are visited in topological order; every value gets a kind
 * (onnx_int.h): a constant, a quantized constant (DequantizeLinear of a
 * constant), a uint8 device activation, the float DequantizeLinear of a
 * device activation, or a float result waiting for the QuantizeLinear
 * that gives its output scale (Conv, MatMul, Gemm, Add and AveragePool in
 * the QDQ format). Relu and Clip narrow a waiting result's range, or fuse
 * into the operator that wrote a device activation when they are the only
 * way to it, or become a CLIP. Data movement works on device activations
 * directly. ONNX Runtime's com.microsoft QLinearAdd and QLinear pools are
 * lowered as Add and the pools are. Anything else is refused with the
 * node, its op type and why.
 *
 * 4-D activations are NCHW in ONNX and N, H, W, C (NCHWC16) on the device;
 * a device value keeps either form or both, and a TRANSPOSE makes the one
 * an operator needs (struct ox_dev).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnpu.h"
#include "npu_progbuild.h"
#include "onnx_int.h"

/* NHWC dim d is NCHW dim A4[d]; NCHW dim e is NHWC dim B4[e] */
static const uint8_t A4[4] = { 0, 2, 3, 1 };
static const uint8_t B4[4] = { 0, 3, 1, 2 };

static const char *op_type(struct ox_ctx *x, int node)
{
	return ox_node(x, node)->op_type;
}

static bool is(struct ox_ctx *x, int node, const char *type)
{
	return !strcmp(op_type(x, node), type);
}

/* ---- device values ---- */

static int new_dev(struct ox_ctx *x, int ndim, const uint32_t *dims,
		   int32_t zp)
{
	struct ox_dev *d;

	/*
	 * Every device value but a model input has a tensor written by an
	 * operator, so there are at most as many as tensors, plus the
	 * inputs: the array is allocated once and never moves, and pointers
	 * into it stay valid.
	 */
	if (!x->dv) {
		x->dvcap = NPU_PROG_MAX_TENSORS + NPU_MODEL_MAX_IO;
		x->dv = calloc(x->dvcap, sizeof(*x->dv));
		if (!x->dv) {
			ox_fail(x, -ENOMEM, "out of memory");
			return -1;
		}
	}
	if (x->ndv == x->dvcap) {
		ox_fail(x, -E2BIG, "more than %u device values", x->dvcap);
		return -1;
	}
	d = &x->dv[x->ndv];
	memset(d, 0, sizeof(*d));
	d->ndim = ndim;
	memcpy(d->dims, dims, (size_t)ndim * sizeof(*dims));
	d->zp = zp;
	d->t_nhwc = d->t_plain = -1;
	d->edge = -1;
	return (int)x->ndv++;
}

/* a tensor of device value @d in the NHWC (4-D) or the plain form */
static int form_tensor(struct ox_ctx *x, int d, bool nhwc, int kind)
{
	const struct ox_dev *v = &x->dv[d];
	uint32_t nd[4];
	int i, t;

	if (!nhwc)
		return ox_new_tensor(x, NPU_DT_U8, NPU_LAYOUT_PLAIN, v->ndim,
				     v->dims, v->zp, kind);
	for (i = 0; i < 4; i++)
		nd[i] = v->dims[A4[i]];
	t = ox_new_tensor(x, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 4, nd, v->zp,
			  kind);
	return t;
}

static void lshape(struct npu_layer_shape *s, uint8_t dtype, int ndim,
		   const uint32_t *dims)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->dtype = dtype;
	s->ndim = (uint8_t)ndim;
	for (i = 0; i < ndim && i < NPU_LAYER_MAX_DIMS; i++)
		s->dims[i] = dims[i];
}

static void lshape_c(struct npu_layer_shape *s, const struct ox_const *c)
{
	uint8_t dt = c->elem == OT_UINT8 ? NPU_LAYER_DT_U8 :
		     c->elem == OT_INT8 ? NPU_LAYER_DT_I8 :
		     c->elem == OT_INT32 ? NPU_LAYER_DT_I32 : NPU_LAYER_DT_F32;
	int i, n = c->ndim < NPU_LAYER_MAX_DIMS ? c->ndim : NPU_LAYER_MAX_DIMS;

	memset(s, 0, sizeof(*s));
	s->dtype = dt;
	s->ndim = (uint8_t)n;
	for (i = 0; i < n; i++)
		s->dims[i] = (uint32_t)c->dims[i];
}

/* the layer of the operator just created: data inputs and output */
static struct npu_layer_desc *layer(struct ox_ctx *x, const int *din,
				    int nin, int dout)
{
	struct npu_layer_desc *l = &x->ly[x->nop - 1].d;
	int i;

	l->n_in = (uint8_t)nin;
	for (i = 0; i < nin; i++)
		lshape(&l->in[i], NPU_LAYER_DT_U8, x->dv[din[i]].ndim,
		       x->dv[din[i]].dims);
	l->n_out = 1;
	lshape(&l->out, NPU_LAYER_DT_U8, x->dv[dout].ndim, x->dv[dout].dims);
	return l;
}

/* a one-input data movement operator from tensor @tin (of @din) */
static struct npu_prog_op *move_op(struct ox_ctx *x, uint16_t opcode,
				   int din, int tin, int dout, int tout)
{
	struct npu_prog_op *op = ox_new_op(x, opcode, tout);

	if (!op)
		return NULL;
	op->in[0] = (uint16_t)tin;
	ox_use(x, tin);
	layer(x, &din, 1, dout);
	return op;
}

/* device value @d in NHWC form, made by a TRANSPOSE when missing */
static int get_nhwc(struct ox_ctx *x, int d)
{
	struct npu_prog_op *op;
	int t, i, saved;

	if (x->dv[d].t_nhwc >= 0)
		return x->dv[d].t_nhwc;
	t = form_tensor(x, d, true, NPU_MODEL_SLOT_SCRATCH);
	if (t < 0)
		return -1;
	/* a model input's layout change belongs to its QuantizeLinear */
	saved = x->cur;
	if (x->dv[d].edge >= 0)
		x->cur = x->dv[d].edge;
	op = move_op(x, NPU_OP_TRANSPOSE, d, x->dv[d].t_plain, d, t);
	x->cur = saved;
	if (!op)
		return -1;
	for (i = 0; i < 4; i++)
		op->u.transpose.perm[i] = A4[i];
	x->dv[d].t_nhwc = t;
	return t;
}

/* device value @d in plain (ONNX) form */
static int get_plain(struct ox_ctx *x, int d)
{
	struct npu_prog_op *op;
	int t, i;

	if (x->dv[d].t_plain >= 0)
		return x->dv[d].t_plain;
	t = form_tensor(x, d, false, NPU_MODEL_SLOT_SCRATCH);
	if (t < 0)
		return -1;
	op = move_op(x, NPU_OP_TRANSPOSE, d, x->dv[d].t_nhwc, d, t);
	if (!op)
		return -1;
	for (i = 0; i < 4; i++)
		op->u.transpose.perm[i] = B4[i];
	x->dv[d].t_plain = t;
	return t;
}

/* a new device value and its tensor in the form asked */
static int new_out(struct ox_ctx *x, int ndim, const uint32_t *dims,
		   int32_t zp, bool nhwc, int *t)
{
	int d = new_dev(x, ndim, dims, zp);

	if (d < 0)
		return -1;
	*t = form_tensor(x, d, nhwc && ndim == 4, NPU_MODEL_SLOT_SCRATCH);
	if (*t < 0)
		return -1;
	if (nhwc && ndim == 4)
		x->dv[d].t_nhwc = *t;
	else
		x->dv[d].t_plain = *t;
	return d;
}

/* ---- reading values ---- */

static const struct ox_const *get_const(struct ox_ctx *x, int node,
					unsigned int i, const char *what)
{
	struct ox_val *v = ox_in(x, node, i);

	if (!v) {
		ox_bad(x, node, "the %s input is missing", what);
		return NULL;
	}
	if (v->kind == VK_CONST || v->has_bind)
		return &v->c;
	if (v->bad_bind) {
		ox_bad(x, node, "the bound value of '%.80s' is not a valid TensorProto",
		       v->name);
		return NULL;
	}
	ox_refuse(x, node, "the %s '%.80s' is not a constant (an initializer or a bound graph input)",
		  what, v->name);
	return NULL;
}

/* an optional constant input; NULL without error when absent */
static const struct ox_const *opt_const(struct ox_ctx *x, int node,
					unsigned int i, const char *what)
{
	return ox_in(x, node, i) ? get_const(x, node, i, what) : NULL;
}

/* a scalar scale: finite and > 0 */
static int scale_of(struct ox_ctx *x, int node, const struct ox_const *c,
		    float *s)
{
	if (c->count != 1)
		return ox_refuse(x, node,
				 "per-axis activation quantization (%llu scales) is not supported",
				 (unsigned long long)c->count);
	if (c->elem != OT_FLOAT)
		return ox_refuse(x, node, "scale of type %s (float expected)",
				 ox_elem_name(c->elem));
	*s = (float)ox_cf(c, 0);
	if (!isfinite(*s) || *s <= 0)
		return ox_refuse(x, node, "scale %g is not finite and positive",
				 (double)*s);
	return 0;
}

/* an activation zero point: uint8 (int8 activations are refused) */
static int zp_of(struct ox_ctx *x, int node, const struct ox_const *c,
		 int32_t *zp)
{
	*zp = 0;
	if (!c)
		return 0;
	if (c->elem == OT_INT8)
		return ox_refuse(x, node,
				 "int8 activations are not supported (the NPU's activations are uint8)");
	if (c->elem != OT_UINT8)
		return ox_refuse(x, node, "zero point of type %s (uint8 expected)",
				 ox_elem_name(c->elem));
	if (c->count != 1)
		return ox_refuse(x, node,
				 "per-axis activation quantization (%llu zero points) is not supported",
				 (unsigned long long)c->count);
	*zp = (int32_t)ox_ci64(c, 0);
	return 0;
}

/* the static shape of graph input @v */
static int input_shape(struct ox_ctx *x, int node, const struct ox_val *v,
		       int *ndim, uint32_t *dims)
{
	const Onnx__ValueInfoProto *vi = x->g->input[v->input];
	const Onnx__TensorShapeProto *sh;
	size_t i;

	if (!vi->type || vi->type->value_case !=
			 ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !vi->type->tensor_type->shape)
		return ox_refuse(x, node, "input '%.80s' has no static shape",
				 v->name);
	sh = vi->type->tensor_type->shape;
	if (sh->n_dim > 4)
		return ox_refuse(x, node, "input '%.80s' has %zu dims (at most 4)",
				 v->name, sh->n_dim);
	for (i = 0; i < sh->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *dm = sh->dim[i];

		if (dm->value_case !=
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			return ox_refuse(x, node,
					 "input '%.80s' has a dynamic shape (dim %zu is '%.40s')",
					 v->name, i,
					 dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
					 dm->dim_param ? dm->dim_param : "?");
		if (dm->dim_value <= 0 || dm->dim_value > UINT32_MAX)
			return ox_refuse(x, node, "input '%.80s' dim %zu is %lld",
					 v->name, i, (long long)dm->dim_value);
		dims[i] = (uint32_t)dm->dim_value;
	}
	*ndim = (int)sh->n_dim;
	if (!*ndim) {
		*ndim = 1;
		dims[0] = 1;
	}
	return 0;
}

/* make graph input @v a model input with @scale and @zp */
static int model_input(struct ox_ctx *x, int node, struct ox_val *v,
		       float scale, int32_t zp)
{
	uint32_t dims[4];
	int ndim = 0, d, t;

	if (x->nin >= NPU_MODEL_MAX_IO)
		return ox_fail(x, -E2BIG, "more than %d model inputs",
			       NPU_MODEL_MAX_IO);
	if (input_shape(x, node, v, &ndim, dims))
		return x->err;
	d = new_dev(x, ndim, dims, zp);
	if (d < 0)
		return x->err;
	t = form_tensor(x, d, false, NPU_MODEL_SLOT_INPUT);
	if (t < 0)
		return x->err;
	x->dv[d].t_plain = t;
	x->ti[t].io = (int)x->nin;
	x->in[x->nin++] = (struct ox_io){ .name = v->name, .tensor = t,
					  .scale = scale,
					  .is_float = v->elem == OT_FLOAT };
	return d;
}

/* a constant @name quietly: NULL when it is not one */
static const struct ox_const *peek_const(struct ox_ctx *x, const char *name)
{
	struct ox_val *v = ox_find(x, name);

	return v && (v->kind == VK_CONST || v->has_bind) ? &v->c : NULL;
}

/*
 * The scale and zero point that the first node reading uint8 value @name
 * as quantized data states (DequantizeLinear, the QLinear operators),
 * looking through data movement (at most 32 values): a uint8 model input
 * read by a Reshape before its QLinearConv gets the QLinearConv's zero
 * point. False, with *@s and *@zp untouched, when no node states them.
 */
static bool stated_later(struct ox_ctx *x, const char *name, float *s,
			 int32_t *zp)
{
	static const char *const moves[] = { "Reshape", "Flatten", "Squeeze",
		"Unsqueeze", "Transpose", "Slice", "Pad", "Concat", "MaxPool",
		"Identity", "Clip", "Relu", NULL };
	const char *queue[32];
	unsigned int head = 0, tail = 0, i, j, k;

	queue[tail++] = name;
	while (head < tail) {
		const char *cur = queue[head++];

		for (i = 0; i < x->nn; i++) {
			const Onnx__NodeProto *n = ox_node(x, (int)i);
			const struct ox_const *cs, *cz;
			int si = -1;

			for (j = 0; j < n->n_input && strcmp(n->input[j], cur); j++)
				;
			if (j == n->n_input)
				continue;
			if (j == 0 && (!strcmp(n->op_type, "DequantizeLinear") ||
				       !strncmp(n->op_type, "QLinear", 7)))
				si = 1;
			else if (j == 3 && !strcmp(n->op_type, "QLinearAdd"))
				si = 4;
			if (si > 0) {
				cs = (unsigned int)si < n->n_input ?
				     peek_const(x, n->input[si]) : NULL;
				cz = (unsigned int)si + 1 < n->n_input ?
				     peek_const(x, n->input[si + 1]) : NULL;
				if (!cs || cs->count != 1 || cs->elem != OT_FLOAT ||
				    (cz && (cz->count != 1 || cz->elem != OT_UINT8)))
					continue;
				*s = (float)ox_cf(cs, 0);
				*zp = cz ? (int32_t)ox_ci64(cz, 0) : 0;
				return true;
			}
			for (k = 0; moves[k] && strcmp(moves[k], n->op_type); k++)
				;
			if (moves[k] && n->n_output && n->output[0][0] &&
			    tail < 32)
				queue[tail++] = n->output[0];
		}
	}
	return false;
}

/*
 * Input @i of @node as a device activation (VK_Q8 or VK_DQF). A uint8
 * graph input becomes a model input here, with the scale and zero point
 * this node states (@stated), else those a node states further on
 * (stated_later()), else 1.0 and 0.
 */
static struct ox_val *act_in(struct ox_ctx *x, int node, unsigned int i,
			     bool stated, float s, int32_t zp)
{
	struct ox_val *v = ox_in(x, node, i);
	int d;

	if (!v) {
		ox_bad(x, node, "input %u is missing", i);
		return NULL;
	}
	if (v->kind == VK_NONE && v->input >= 0) {
		if (v->elem == OT_INT8) {
			ox_refuse(x, node,
				  "int8 activations are not supported (the NPU's activations are uint8)");
			return NULL;
		}
		if (v->elem == OT_FLOAT) {
			v->kind = VK_FIN;
		} else if (v->elem != OT_UINT8) {
			ox_refuse(x, node, "input '%.80s' of type %s is not supported",
				  v->name, v->elem ? ox_elem_name(v->elem) :
				  "other than a tensor");
			return NULL;
		} else {
			if (!stated) {
				s = 1.0f;
				zp = 0;
				stated_later(x, v->name, &s, &zp);
			}
			d = model_input(x, node, v, s, zp);
			if (d < 0)
				return NULL;
			v->kind = VK_Q8;
			v->dev = d;
			v->scale = s;
			v->zp = zp;
		}
	}
	switch (v->kind) {
	case VK_Q8:
	case VK_DQF:
		if (stated && zp != v->zp) {
			ox_refuse(x, node,
				  "input '%.80s' has zero point %d here but %d where it is produced",
				  v->name, zp, v->zp);
			return NULL;
		}
		return v;
	case VK_FIN:
		ox_refuse(x, node,
			  "float-only path: input '%.80s' is float, not quantized by a QuantizeLinear",
			  v->name);
		return NULL;
	case VK_PEND:
		ox_refuse(x, node,
			  "float-only path: the float output '%.80s' of node '%.80s' has no QuantizeLinear",
			  v->name, x->nname[v->producer]);
		return NULL;
	case VK_CONST:
	case VK_QCONST:
		ox_refuse(x, node,
			  "constant '%.80s' used as an activation (constant folding is not supported)",
			  v->name);
		return NULL;
	default:
		ox_refuse(x, node, "input '%.80s' is not computed", v->name);
		return NULL;
	}
}

/* the output value of @node: an activation of @kind on device value @dev */
static struct ox_val *set_act(struct ox_ctx *x, int node, int kind, int dev,
			      float s, int32_t zp)
{
	struct ox_val *o = ox_out(x, node, 0);

	if (!o) {
		ox_bad(x, node, "the output has no name");
		return NULL;
	}
	o->kind = kind;
	o->dev = dev;
	o->scale = s;
	o->zp = zp;
	o->chain = true;
	return o;
}

/* ---- clamps ---- */

static int32_t qclamp(float v, float s, int32_t zp, int32_t inf)
{
	float q;

	if (isinf(v))
		return inf;
	q = v / s;
	if (q < -1024.0f)
		return 0;
	if (q > 1024.0f)
		return 255;
	q = (float)zp + (float)lrintf(q);
	return q < 0 ? 0 : q > 255 ? 255 : (int32_t)q;
}

static bool uses_act(uint16_t opcode)
{
	switch (opcode) {
	case NPU_OP_CONV2D:
	case NPU_OP_DWCONV2D:
	case NPU_OP_AVGPOOL:
	case NPU_OP_MAXPOOL:
	case NPU_OP_FC:
	case NPU_OP_MATMUL:
	case NPU_OP_ADD:
	case NPU_OP_CLIP:
		return true;
	default:
		return false;
	}
}

/* ---- weights ---- */

struct qw {
	const struct ox_const *q, *s, *z;
	int axis;
};

/* check weights @w for @cout output channels along @axis; scales to @sw */
static int weights(struct ox_ctx *x, int node, const struct qw *w,
		   uint32_t cout, int axis, float **sw, int32_t *zw)
{
	uint64_t i, ns = w->s->count;
	int wax = w->axis < 0 ? w->axis + w->q->ndim : w->axis;

	if (w->q->elem != OT_INT8 && w->q->elem != OT_UINT8)
		return ox_refuse(x, node, "weights of type %s (int8 or uint8 expected)",
				 ox_elem_name(w->q->elem));
	if (w->s->elem != OT_FLOAT || (ns != 1 && ns != cout))
		return ox_refuse(x, node,
				 "weight scales: %llu %s values for %u channels",
				 (unsigned long long)ns, ox_elem_name(w->s->elem),
				 cout);
	if (ns > 1 && wax != axis)
		return ox_refuse(x, node,
				 "weights quantized along axis %d (the output channels are axis %d)",
				 w->axis, axis);
	*sw = ox_alloc(x, cout * sizeof(float));
	if (!*sw)
		return x->err;
	for (i = 0; i < cout; i++) {
		float s = (float)ox_cf(w->s, ns == 1 ? 0 : i);

		if (!isfinite(s) || s <= 0)
			return ox_refuse(x, node, "weight scale %g is not finite and positive",
					 (double)s);
		(*sw)[i] = s;
	}
	*zw = 0;
	if (w->z && w->z->count) {
		if (w->z->elem != w->q->elem)
			return ox_bad(x, node, "weight zero point of type %s for %s weights",
				      ox_elem_name(w->z->elem),
				      ox_elem_name(w->q->elem));
		if (w->z->count != 1 && w->z->count != cout)
			return ox_refuse(x, node, "%llu weight zero points for %u channels",
					 (unsigned long long)w->z->count, cout);
		*zw = (int32_t)ox_ci64(w->z, 0);
		for (i = 1; i < w->z->count; i++)
			if (ox_ci64(w->z, i) != *zw)
				return ox_refuse(x, node,
						 "per-channel weight zero points differ (the NPU has one per tensor)");
	}
	return 0;
}

/*
 * bias: @b->q int32 as given when its scale is sx * sw[c] (relative 1e-6)
 * and its zero point 0 (always without @b->s: QLinearConv); otherwise its
 * real value (a float constant, or (q - zb) * sb) quantized with scale
 * sx * sw[c], rounded to nearest even.
 */
static int bias(struct ox_ctx *x, int node, const struct qw *b,
		uint32_t cout, float sx, const float *sw, int32_t **bq)
{
	uint32_t c;

	*bq = NULL;
	if (!b)
		return 0;
	if (b->q->count != cout)
		return ox_refuse(x, node, "bias of %llu values for %u channels",
				 (unsigned long long)b->q->count, cout);
	if (b->q->elem != OT_INT32 && b->q->elem != OT_FLOAT)
		return ox_refuse(x, node, "bias of type %s (int32 or float expected)",
				 ox_elem_name(b->q->elem));
	if (b->s && ((b->s->count != 1 && b->s->count != cout) ||
		     b->s->elem != OT_FLOAT))
		return ox_refuse(x, node, "bias scales: %llu %s values for %u channels",
				 (unsigned long long)b->s->count,
				 ox_elem_name(b->s->elem), cout);
	if (b->z && b->z->count != 1 && b->z->count != cout)
		return ox_refuse(x, node, "%llu bias zero points for %u channels",
				 (unsigned long long)b->z->count, cout);
	*bq = ox_alloc(x, cout * sizeof(int32_t));
	if (!*bq)
		return x->err;
	for (c = 0; c < cout; c++) {
		double t = (double)sx * sw[c], real, v;
		double sb = b->s ? ox_cf(b->s, b->s->count == 1 ? 0 : c) : 0;
		int64_t zb = b->z ? ox_ci64(b->z, b->z->count == 1 ? 0 : c) : 0;

		if (b->q->elem == OT_INT32 &&
		    (!b->s || (!zb && fabs(sb - t) <= 1e-6 * t))) {
			(*bq)[c] = (int32_t)ox_ci64(b->q, c);
			continue;
		}
		real = b->q->elem == OT_FLOAT ? ox_cf(b->q, c) :
		       (double)(ox_ci64(b->q, c) - zb) * sb;
		v = rint(real / t);
		if (!(v >= INT32_MIN && v <= INT32_MAX))
			return ox_refuse(x, node, "bias %g does not fit int32 at scale %g",
					 real, t);
		(*bq)[c] = (int32_t)v;
	}
	return 0;
}

/* requantization table: one pair per scale in @sw (n of them) */
static int rq_table(struct ox_ctx *x, int node, const float *sw, uint32_t n,
		    float sx, float sy)
{
	int32_t *rq = ox_alloc(x, 8ull * n);
	uint32_t c, dims[1] = { 2 * n };

	if (!rq)
		return -1;
	for (c = 0; c < n; c++)
		if (npu_quantize_multiplier((double)sx * sw[c] / sy, &rq[2 * c],
					    &rq[2 * c + 1])) {
			ox_refuse(x, node,
				  "requantization factor %g is out of range",
				  (double)sx * sw[c] / sy);
			return -1;
		}
	return ox_const_tensor(x, NPU_DT_I32, 1, dims, rq, 8ull * n);
}

/* ---- windows: Conv and the pools ---- */

struct win {
	uint32_t kh, kw, sh, sw, pt, pl, pb, pr, oh, ow;
};

static int window(struct ox_ctx *x, int node, uint32_t H, uint32_t W,
		  uint32_t kh, uint32_t kw, bool pool, struct win *w)
{
	int64_t k[4], s[4], p[8], dl[4];
	unsigned int nk, ns, np, nd, i;
	int64_t ceil_mode;
	char ap[32];

	if (ox_attr_ints(x, node, "kernel_shape", k, 4, &nk) ||
	    ox_attr_ints(x, node, "strides", s, 4, &ns) ||
	    ox_attr_ints(x, node, "pads", p, 8, &np) ||
	    ox_attr_ints(x, node, "dilations", dl, 4, &nd) ||
	    ox_attr_str(x, node, "auto_pad", "NOTSET", ap, sizeof(ap)) ||
	    ox_attr_int(x, node, "ceil_mode", 0, &ceil_mode))
		return x->err;
	if (nk && (nk != 2 || (!pool && (k[0] != kh || k[1] != kw))))
		return ox_bad(x, node, "kernel_shape does not match the weights");
	if (pool) {
		if (nk != 2)
			return ox_refuse(x, node, "a 2-D kernel_shape is required");
		if (k[0] < 1 || k[1] < 1 || k[0] > 255 || k[1] > 255)
			return ox_refuse(x, node, "kernel %lldx%lld (1..255 supported)",
					 (long long)k[0], (long long)k[1]);
		kh = (uint32_t)k[0];
		kw = (uint32_t)k[1];
	}
	for (i = 0; i < nd; i++)
		if (dl[i] != 1)
			return ox_refuse(x, node, "dilations other than 1 are not supported");
	if (ns && ns != 2)
		return ox_bad(x, node, "strides has %u values", ns);
	w->sh = ns ? (uint32_t)s[0] : 1;
	w->sw = ns ? (uint32_t)s[1] : 1;
	if (ns && (s[0] < 1 || s[1] < 1 || s[0] > 255 || s[1] > 255))
		return ox_refuse(x, node, "strides %lldx%lld (1..255 supported)",
				 (long long)s[0], (long long)s[1]);
	w->kh = kh;
	w->kw = kw;
	w->pt = w->pl = w->pb = w->pr = 0;
	if (!strcmp(ap, "NOTSET")) {
		if (np && np != 4)
			return ox_bad(x, node, "pads has %u values", np);
		for (i = 0; i < np; i++)
			if (p[i] < 0 || p[i] > 65535)
				return ox_refuse(x, node, "pad %lld (0..65535 supported)",
						 (long long)p[i]);
		if (np) {
			w->pt = (uint32_t)p[0];
			w->pl = (uint32_t)p[1];
			w->pb = (uint32_t)p[2];
			w->pr = (uint32_t)p[3];
		}
	} else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
		uint64_t oh = (H + w->sh - 1) / w->sh, ow = (W + w->sw - 1) / w->sw;
		int64_t th = (int64_t)((oh - 1) * w->sh + kh) - H;
		int64_t tw = (int64_t)((ow - 1) * w->sw + kw) - W;
		bool upper = ap[5] == 'U';

		th = th < 0 ? 0 : th;
		tw = tw < 0 ? 0 : tw;
		w->pt = (uint32_t)(upper ? th / 2 : th - th / 2);
		w->pb = (uint32_t)(th - w->pt);
		w->pl = (uint32_t)(upper ? tw / 2 : tw - tw / 2);
		w->pr = (uint32_t)(tw - w->pl);
	} else if (strcmp(ap, "VALID")) {
		return ox_refuse(x, node, "auto_pad '%s' is not supported", ap);
	}
	if ((uint64_t)H + w->pt + w->pb < kh || (uint64_t)W + w->pl + w->pr < kw)
		return ox_bad(x, node, "the kernel %ux%u is larger than the padded input %llux%llu",
			      kh, kw, (unsigned long long)H + w->pt + w->pb,
			      (unsigned long long)W + w->pl + w->pr);
	w->oh = (uint32_t)(((uint64_t)H + w->pt + w->pb - kh) / w->sh + 1);
	w->ow = (uint32_t)(((uint64_t)W + w->pl + w->pr - kw) / w->sw + 1);
	if (ceil_mode &&
	    (((uint64_t)H + w->pt + w->pb - kh) % w->sh ||
	     ((uint64_t)W + w->pl + w->pr - kw) % w->sw))
		return ox_refuse(x, node, "ceil_mode=1 changes the output size; not supported");
	return 0;
}

/* a PAD of the NHWC tensor of @d by the window's pads; returns the dev */
static int pad_first(struct ox_ctx *x, int d, struct win *w)
{
	uint32_t dims[4];
	struct npu_prog_op *op;
	int t, o, tin;

	tin = get_nhwc(x, d);
	if (tin < 0)
		return -1;
	memcpy(dims, x->dv[d].dims, sizeof(dims));
	dims[2] += w->pt + w->pb;
	dims[3] += w->pl + w->pr;
	o = new_out(x, 4, dims, x->dv[d].zp, true, &t);
	if (o < 0)
		return -1;
	op = move_op(x, NPU_OP_PAD, d, tin, o, t);
	if (!op)
		return -1;
	op->u.pad.before[1] = (uint16_t)w->pt;
	op->u.pad.before[2] = (uint16_t)w->pl;
	op->u.pad.after[1] = (uint16_t)w->pb;
	op->u.pad.after[2] = (uint16_t)w->pr;
	w->pt = w->pl = w->pb = w->pr = 0;
	return o;
}

/* the NHWC tensor of @d, after a PAD by the window's pads when @pad */
static int padded_nhwc(struct ox_ctx *x, int d, struct win *w, bool pad)
{
	if (pad) {
		d = pad_first(x, d, w);
		if (d < 0)
			return -1;
	}
	return get_nhwc(x, d);
}

static void set_win(struct npu_prog_op *op, const struct win *w, bool pool)
{
	progbuild_conv(op, pool ? (uint8_t)w->kh : 0, pool ? (uint8_t)w->kw : 0,
		       (uint8_t)w->sh, (uint8_t)w->sw, (uint8_t)w->pt,
		       (uint8_t)w->pl, (uint8_t)w->pb, (uint8_t)w->pr);
}

/* ---- compute operators ---- */

struct qout {
	float s;
	int32_t z, amin, amax;
	const char *fused;
};

static void finish_type(struct ox_ctx *x, const struct qout *q)
{
	struct ox_layer *l = &x->ly[x->nop - 1];
	size_t n = strlen(l->type);

	if (q->fused)
		snprintf(l->type + n, sizeof(l->type) - n, "%s", q->fused);
}

/* what CONV2D, DWCONV2D and FC have in common, for emit_weighted() */
struct wop {
	uint16_t opcode;
	int din, tin;			/* data input: device value, tensor */
	const struct qw *w, *b;		/* as the node gives them */
	const uint8_t *wt;		/* weights in the device's order */
	int wndim;
	const uint32_t *wdims;
	size_t wbytes;
	int32_t zw;
	const int32_t *bq;		/* bias, cout values, or NULL */
	const float *sw;		/* weight scales, cout values */
	uint32_t cout;
	float sx;
	int ondim;
	const uint32_t *odims;		/* ONNX dims of the output */
	bool nhwc;
};

/*
 * The constants (weights, bias, requantization table), the output, the
 * operator and its layer. Returns the output device value and the
 * operator in *@opp, or -1.
 */
static int emit_weighted(struct ox_ctx *x, int node, const struct wop *p,
			 const struct qout *q, struct npu_prog_op **opp)
{
	struct npu_layer_desc *l;
	struct npu_prog_op *op;
	int tw, tb = NPU_PROG_NONE, trq, o, t;

	tw = ox_const_tensor(x, p->w->q->elem == OT_INT8 ? NPU_DT_I8 : NPU_DT_U8,
			     p->wndim, p->wdims, p->wt, p->wbytes);
	if (tw < 0)
		return -1;
	x->t[tw].zero_point = p->zw;
	if (p->bq) {
		tb = ox_const_tensor(x, NPU_DT_I32, 1, &p->cout, p->bq,
				     4ull * p->cout);
		if (tb < 0)
			return -1;
	}
	trq = rq_table(x, node, p->sw, p->w->s->count == 1 ? 1 : p->cout,
		       p->sx, q->s);
	if (trq < 0)
		return -1;
	o = new_out(x, p->ondim, p->odims, q->z, p->nhwc, &t);
	if (o < 0)
		return -1;
	op = ox_new_op(x, p->opcode, t);
	if (!op)
		return -1;
	op->in[0] = (uint16_t)p->tin;
	op->in[1] = (uint16_t)tw;
	op->in[2] = (uint16_t)tb;
	op->rq = (uint16_t)trq;
	op->act_min = q->amin;
	op->act_max = q->amax;
	ox_use(x, p->tin);
	finish_type(x, q);
	l = layer(x, &p->din, 1, o);
	lshape_c(&l->in[1], p->w->q);
	l->n_in = 2;
	if (p->b) {
		lshape_c(&l->in[2], p->b->q);
		l->in[2].dtype = NPU_LAYER_DT_I32;
		l->n_in = 3;
	}
	*opp = op;
	return o;
}

/* Conv / QLinearConv; returns the output device value */
static int lower_conv(struct ox_ctx *x, int node, const struct ox_val *xv,
		      float sx, const struct qw *w, const struct qw *b,
		      const struct qout *q)
{
	const struct ox_dev *xd = &x->dv[xv->dev];
	uint32_t N, C, H, W, M, KH, KW, wd[4], od[4];
	int64_t group;
	float *sw;
	int32_t zw, *bq;
	uint8_t *wt;
	struct win win;
	struct npu_prog_op *op;
	bool dw;
	int tin, o;
	uint64_t i, nw;
	uint32_t m, c, kh, kw;
	static const char *const known[] = { "auto_pad", "dilations", "group",
		"kernel_shape", "pads", "strides", NULL };

	if (ox_attrs_only(x, node, known) ||
	    ox_attr_int(x, node, "group", 1, &group))
		return -1;
	if (xd->ndim != 4)
		return ox_refuse(x, node, "a %d-D convolution (only 2-D is supported)",
				 xd->ndim - 2);
	if (w->q->ndim != 4)
		return ox_bad(x, node, "weights of %d dims for a 2-D convolution",
			      w->q->ndim);
	N = xd->dims[0];
	C = xd->dims[1];
	H = xd->dims[2];
	W = xd->dims[3];
	M = (uint32_t)w->q->dims[0];
	KH = (uint32_t)w->q->dims[2];
	KW = (uint32_t)w->q->dims[3];
	dw = group != 1;
	if (dw && (group != C || M != C || w->q->dims[1] != 1))
		return ox_refuse(x, node,
				 "group=%lld with %u input and %u output channels: only 1 or depthwise (group = channels, depth multiplier 1) is supported",
				 (long long)group, C, M);
	if (!dw && w->q->dims[1] != C)
		return ox_bad(x, node, "weights for %lld input channels, the input has %u",
			      (long long)w->q->dims[1], C);
	if (!M || !KH || !KW)
		return ox_bad(x, node, "empty weights");
	if (window(x, node, H, W, KH, KW, false, &win) ||
	    weights(x, node, w, M, 0, &sw, &zw) ||
	    bias(x, node, b, M, sx, sw, &bq))
		return -1;
	tin = padded_nhwc(x, xv->dev, &win, win.pt > 255 || win.pl > 255 ||
			  win.pb > 255 || win.pr > 255);
	if (tin < 0)
		return -1;
	/* OIHW -> OHWI (depthwise [C,1,KH,KW] -> [1,KH,KW,C]) */
	nw = (uint64_t)M * KH * KW * (dw ? 1 : C);
	wt = ox_alloc(x, nw);
	if (!wt)
		return -1;
	for (i = 0; i < nw; i++) {
		uint64_t r = i;

		if (dw) {
			c = (uint32_t)(r % M);
			r /= M;
			kw = (uint32_t)(r % KW);
			kh = (uint32_t)(r / KW);
			wt[i] = (uint8_t)ox_ci64(w->q, ((uint64_t)c * KH + kh) * KW + kw);
		} else {
			c = (uint32_t)(r % C);
			r /= C;
			kw = (uint32_t)(r % KW);
			r /= KW;
			kh = (uint32_t)(r % KH);
			m = (uint32_t)(r / KH);
			wt[i] = (uint8_t)ox_ci64(w->q,
				(((uint64_t)m * C + c) * KH + kh) * KW + kw);
		}
	}
	wd[0] = dw ? 1 : M;
	wd[1] = KH;
	wd[2] = KW;
	wd[3] = dw ? M : C;
	od[0] = N;
	od[1] = M;
	od[2] = win.oh;
	od[3] = win.ow;
	o = emit_weighted(x, node, &(struct wop){
		.opcode = dw ? NPU_OP_DWCONV2D : NPU_OP_CONV2D,
		.din = xv->dev, .tin = tin, .w = w, .b = b, .wt = wt,
		.wndim = 4, .wdims = wd, .wbytes = nw, .zw = zw, .bq = bq,
		.sw = sw, .cout = M, .sx = sx, .ondim = 4, .odims = od,
		.nhwc = true }, q, &op);
	if (o >= 0)
		set_win(op, &win, false);
	return o;
}

/* MatMul / Gemm / QLinearMatMul with constant B -> FC */
static int lower_fc(struct ox_ctx *x, int node, const struct ox_val *av,
		    float sa, const struct qw *w, bool transb,
		    const struct qw *b, const struct qout *q)
{
	const struct ox_dev *ad = &x->dv[av->dev];
	uint32_t M, K, N, wd[2], od[2], n, k;
	float *sw;
	int32_t zw, *bq;
	uint8_t *wt;
	struct npu_prog_op *op;
	int tin;

	if (ad->ndim != 2)
		return ox_refuse(x, node, "input A of %d dims (2 supported)",
				 ad->ndim);
	if (w->q->ndim != 2)
		return ox_refuse(x, node, "B of %d dims (2 supported)",
				 w->q->ndim);
	M = ad->dims[0];
	K = ad->dims[1];
	N = (uint32_t)w->q->dims[transb ? 0 : 1];
	if ((uint32_t)w->q->dims[transb ? 1 : 0] != K || !N)
		return ox_bad(x, node, "B [%lld, %lld] does not match A [%u, %u]",
			      (long long)w->q->dims[0], (long long)w->q->dims[1],
			      M, K);
	if (b && b->q->count != N)
		return ox_refuse(x, node, "bias of %llu values for %u outputs (no broadcasting)",
				 (unsigned long long)b->q->count, N);
	if (weights(x, node, w, N, transb ? 0 : 1, &sw, &zw) ||
	    bias(x, node, b, N, sa, sw, &bq))
		return -1;
	tin = get_plain(x, av->dev);
	if (tin < 0)
		return -1;
	wt = ox_alloc(x, (size_t)N * K);
	if (!wt)
		return -1;
	for (n = 0; n < N; n++)
		for (k = 0; k < K; k++)
			wt[(size_t)n * K + k] = (uint8_t)ox_ci64(w->q,
				transb ? (uint64_t)n * K + k : (uint64_t)k * N + n);
	wd[0] = N;
	wd[1] = K;
	od[0] = M;
	od[1] = N;
	return emit_weighted(x, node, &(struct wop){
		.opcode = NPU_OP_FC, .din = av->dev, .tin = tin, .w = w, .b = b,
		.wt = wt, .wndim = 2, .wdims = wd, .wbytes = (size_t)N * K,
		.zw = zw, .bq = bq, .sw = sw, .cout = N, .sx = sa, .ondim = 2,
		.odims = od, .nhwc = false }, q, &op);
}

/* Add of two activations, TFLite's way (program.rst, ADD) */
static int lower_add(struct ox_ctx *x, int node, const struct ox_val *a,
		     const struct ox_val *b, const struct qout *q)
{
	const struct ox_dev *da = &x->dv[a->dev], *db = &x->dv[b->dev];
	double twice, f[3];
	int32_t rq[6];
	uint32_t dims[1] = { 6 };
	struct npu_prog_op *op;
	int ta, tb, trq, o, t, i, ins[2];
	/* elementwise: NHWC when an input has that form, else plain */
	bool nhwc = da->ndim == 4 && (da->t_nhwc >= 0 || db->t_nhwc >= 0);

	if (da->ndim != db->ndim ||
	    memcmp(da->dims, db->dims, (size_t)da->ndim * sizeof(uint32_t)))
		return ox_refuse(x, node, "broadcasting is not supported (the inputs' shapes differ)");
	twice = 2.0 * fmax(a->scale, b->scale);
	f[0] = a->scale / twice;
	f[1] = b->scale / twice;
	f[2] = twice / ((1 << 20) * (double)q->s);
	for (i = 0; i < 3; i++)
		if (npu_quantize_multiplier(f[i], &rq[2 * i], &rq[2 * i + 1]))
			return ox_refuse(x, node, "requantization factor %g is out of range",
					 f[i]);
	ta = nhwc ? get_nhwc(x, a->dev) : get_plain(x, a->dev);
	tb = nhwc ? get_nhwc(x, b->dev) : get_plain(x, b->dev);
	if (ta < 0 || tb < 0)
		return -1;
	trq = ox_const_tensor(x, NPU_DT_I32, 1, dims, rq, sizeof(rq));
	if (trq < 0)
		return -1;
	o = new_out(x, da->ndim, da->dims, q->z, nhwc, &t);
	if (o < 0)
		return -1;
	op = ox_new_op(x, NPU_OP_ADD, t);
	if (!op)
		return -1;
	op->in[0] = (uint16_t)ta;
	op->in[1] = (uint16_t)tb;
	op->rq = (uint16_t)trq;
	op->act_min = q->amin;
	op->act_max = q->amax;
	ox_use(x, ta);
	ox_use(x, tb);
	finish_type(x, q);
	ins[0] = a->dev;
	ins[1] = b->dev;
	layer(x, ins, 2, o);
	return o;
}

/* AveragePool / GlobalAveragePool / MaxPool */
static int lower_pool(struct ox_ctx *x, int node, const struct ox_val *xv,
		      bool avg, const struct qout *q)
{
	const struct ox_dev *xd = &x->dv[xv->dev];
	struct npu_prog_op *op;
	struct win win;
	bool global = is(x, node, "GlobalAveragePool") ||
		      is(x, node, "QLinearGlobalAveragePool");
	uint32_t od[4];
	int64_t cip = 0, so = 0, cl = 0;
	int tin, trq = NPU_PROG_NONE, o, t;
	bool pad = false;
	static const char *const known[] = { "auto_pad", "ceil_mode",
		"count_include_pad", "dilations", "kernel_shape", "pads",
		"storage_order", "strides", "channels_last", NULL };

	if (xd->ndim != 4)
		return ox_refuse(x, node, "a %d-D pool (only 2-D is supported)",
				 xd->ndim - 2);
	/* com.microsoft's QLinear pools: NCHW only */
	if (ox_attr_int(x, node, "channels_last", 0, &cl))
		return -1;
	if (cl)
		return ox_refuse(x, node, "channels_last=1 is not supported");
	if (global) {
		static const char *const gknown[] = { "channels_last", NULL };

		if (xd->dims[2] > 255 || xd->dims[3] > 255)
			return ox_refuse(x, node, "a %ux%u window (at most 255x255)",
					 xd->dims[2], xd->dims[3]);
		win = (struct win){ .kh = xd->dims[2], .kw = xd->dims[3],
				    .sh = 1, .sw = 1, .oh = 1, .ow = 1 };
		if (ox_attrs_only(x, node, gknown))
			return -1;
	} else {
		if (ox_attrs_only(x, node, known) ||
		    ox_attr_int(x, node, "count_include_pad", 0, &cip) ||
		    ox_attr_int(x, node, "storage_order", 0, &so) ||
		    window(x, node, xd->dims[2], xd->dims[3], 0, 0, true, &win))
			return -1;
		if (so)
			return ox_refuse(x, node, "storage_order=1 is not supported");
		if (!avg && ox_node(x, node)->n_output > 1 &&
		    ox_node(x, node)->output[1][0])
			return ox_refuse(x, node, "the Indices output is not supported");
		if (!avg && (win.pt > 255 || win.pl > 255 || win.pb > 255 ||
			     win.pr > 255))
			return ox_refuse(x, node, "pads above 255 are not supported");
		if (avg && (win.pt > 255 || win.pl > 255 || win.pb > 255 ||
			    win.pr > 255) && !cip)
			return ox_refuse(x, node, "pads above 255 without count_include_pad are not supported");
		pad = avg && cip && (win.pt || win.pl || win.pb || win.pr);
	}
	tin = padded_nhwc(x, xv->dev, &win, pad);
	if (tin < 0)
		return -1;
	if (avg && q->s != xv->scale) {
		float one = 1.0f;

		trq = rq_table(x, node, &one, 1, xv->scale, q->s);
		if (trq < 0)
			return -1;
	}
	od[0] = x->dv[xv->dev].dims[0];	/* xd may have moved (pad_first) */
	od[1] = x->dv[xv->dev].dims[1];
	od[2] = win.oh;
	od[3] = win.ow;
	o = new_out(x, 4, od, q->z, true, &t);
	if (o < 0)
		return -1;
	op = ox_new_op(x, avg ? NPU_OP_AVGPOOL : NPU_OP_MAXPOOL, t);
	if (!op)
		return -1;
	op->in[0] = (uint16_t)tin;
	op->rq = (uint16_t)trq;
	op->act_min = q->amin;
	op->act_max = q->amax;
	set_win(op, &win, true);
	ox_use(x, tin);
	finish_type(x, q);
	layer(x, &xv->dev, 1, o);
	return o;
}

/* ---- QDQ: the float compute nodes and their QuantizeLinear ---- */

static bool is_pend_op(struct ox_ctx *x, int node)
{
	return is(x, node, "Conv") || is(x, node, "MatMul") ||
	       is(x, node, "Gemm") || is(x, node, "Add") ||
	       is(x, node, "AveragePool") || is(x, node, "GlobalAveragePool");
}

/* a DQF input of a float compute node */
static const struct ox_val *dqf_in(struct ox_ctx *x, int node, unsigned int i)
{
	struct ox_val *v = ox_in(x, node, i);
	/* a uint8 graph input is an integer tensor too, before act_in() */
	bool raw = v && v->kind == VK_NONE && v->input >= 0 &&
		   v->elem == OT_UINT8;

	if (v && is(x, node, "Add") && (raw || v->kind == VK_Q8)) {
		ox_refuse(x, node, "integer Add wraps around (the NPU's ADD saturates): quantize it with Q/DQ");
		return NULL;
	}
	if (v && v->kind == VK_Q8) {
		ox_refuse(x, node, "input '%.80s' is an integer tensor without DequantizeLinear",
			  v->name);
		return NULL;
	}
	return act_in(x, node, i, false, 0, 0);
}

/* a quantized constant (weights, bias) of a float compute node */
static int qconst_in(struct ox_ctx *x, int node, unsigned int i,
		     struct qw *w, const char *what)
{
	struct ox_val *v = ox_in(x, node, i);

	if (!v)
		return ox_bad(x, node, "the %s input is missing", what);
	if (v->kind == VK_QCONST) {
		*w = (struct qw){ .q = &v->c, .s = &v->qs,
				  .z = v->has_qz ? &v->qz : NULL,
				  .axis = v->qaxis };
		return 0;
	}
	if (v->kind == VK_CONST || v->has_bind)
		return ox_refuse(x, node,
				 "float-only path: the %s '%.80s' is float, without DequantizeLinear",
				 what, v->name);
	return ox_refuse(x, node, "non-constant %s '%.80s' are not supported",
			 what, v->name);
}

/* check a float compute node when it is met; it runs at its QuantizeLinear */
static int pend_node(struct ox_ctx *x, int node)
{
	struct ox_val *o = ox_out(x, node, 0);
	struct qw w;
	unsigned int n = (unsigned int)ox_node(x, node)->n_input, i;

	if (!o)
		return ox_bad(x, node, "the output has no name");
	if (is(x, node, "Conv") || is(x, node, "MatMul") || is(x, node, "Gemm")) {
		if (!dqf_in(x, node, 0) || qconst_in(x, node, 1, &w, "weights"))
			return x->err ? x->err : -EINVAL;
		if (n > 2 && ox_in(x, node, 2)) {
			struct ox_val *b = ox_in(x, node, 2);

			if (b->kind != VK_QCONST && b->kind != VK_CONST &&
			    !b->has_bind)
				return ox_refuse(x, node, "non-constant bias '%.80s' is not supported",
						 b->name);
		}
	} else {
		for (i = 0; i < n; i++)
			if (!dqf_in(x, node, i))
				return x->err;
	}
	o->kind = VK_PEND;
	o->lo = -INFINITY;
	o->hi = INFINITY;
	return 0;
}

/* a bias input of a QDQ node: the int32 DequantizeLinear or a float constant */
static const struct qw *qdq_bias(struct ox_ctx *x, int node, unsigned int i,
				 struct qw *b)
{
	struct ox_val *v = ox_in(x, node, i);

	if (!v)
		return NULL;
	*b = (struct qw){ .q = &v->c };
	if (v->kind == VK_QCONST) {
		b->s = &v->qs;
		b->z = v->has_qz ? &v->qz : NULL;
	}
	return b;
}

/* run pending value @p (its node) with output scale @s, zero point @z */
static int materialize(struct ox_ctx *x, const struct ox_val *p, float s,
		       int32_t z)
{
	int node = p->producer, saved = x->cur, d = -1;
	struct qout q = { .s = s, .z = z, .fused = p->fused };
	const struct ox_val *a;
	struct qw w, b;

	q.amin = qclamp(p->lo, s, z, 0);
	q.amax = qclamp(p->hi, s, z, 255);
	if (q.amin > q.amax)
		return ox_refuse(x, node, "the clamp range is empty after quantization");
	x->cur = node;
	a = dqf_in(x, node, 0);
	if (!a)
		goto out;
	if (is(x, node, "Conv")) {
		if (!qconst_in(x, node, 1, &w, "weights"))
			d = lower_conv(x, node, a, a->scale, &w,
				       qdq_bias(x, node, 2, &b), &q);
	} else if (is(x, node, "MatMul") || is(x, node, "Gemm")) {
		int64_t ta = 0, tb = 0;
		float alpha = 1, beta = 1;
		static const char *const known[] = { "alpha", "beta", "transA",
			"transB", NULL };

		if (ox_attrs_only(x, node, known) ||
		    ox_attr_int(x, node, "transA", 0, &ta) ||
		    ox_attr_int(x, node, "transB", 0, &tb) ||
		    ox_attr_float(x, node, "alpha", 1, &alpha) ||
		    ox_attr_float(x, node, "beta", 1, &beta))
			goto out;
		if (ta || alpha != 1 || (beta != 1 && ox_in(x, node, 2))) {
			ox_refuse(x, node, "transA, alpha or beta other than the defaults");
			goto out;
		}
		if (!qconst_in(x, node, 1, &w, "weights"))
			d = lower_fc(x, node, a, a->scale, &w, tb,
				     is(x, node, "Gemm") ? qdq_bias(x, node, 2, &b) : NULL,
				     &q);
	} else if (is(x, node, "Add")) {
		const struct ox_val *b = dqf_in(x, node, 1);

		if (b)
			d = lower_add(x, node, a, b, &q);
	} else {
		d = lower_pool(x, node, a, true, &q);
	}
out:
	x->cur = saved;
	return d < 0 ? (x->err ? x->err : -EINVAL) : d;
}

/* ---- QuantizeLinear, DequantizeLinear ---- */

/* requantize a 4-D activation: AVGPOOL 1x1 with the factor sx / sy */
static int requant_1x1(struct ox_ctx *x, int node, const struct ox_val *v,
		       float s, int32_t z)
{
	struct win win = { .kh = 1, .kw = 1, .sh = 1, .sw = 1 };
	struct npu_prog_op *op;
	float one = 1.0f;
	int tin, trq, o, t;

	tin = get_nhwc(x, v->dev);
	if (tin < 0)
		return -1;
	trq = rq_table(x, node, &one, 1, v->scale, s);
	if (trq < 0)
		return -1;
	o = new_out(x, 4, x->dv[v->dev].dims, z, true, &t);
	if (o < 0)
		return -1;
	op = ox_new_op(x, NPU_OP_AVGPOOL, t);
	if (!op)
		return -1;
	op->in[0] = (uint16_t)tin;
	op->rq = (uint16_t)trq;
	set_win(op, &win, true);
	ox_use(x, tin);
	layer(x, &v->dev, 1, o);
	return o;
}

/* quantize a float constant (Q of weights kept in float) */
static int quantize_const(struct ox_ctx *x, int node, const struct ox_val *v,
			  const struct ox_const *sc, const struct ox_const *zc,
			  struct ox_val *o)
{
	int64_t axis, inner = 1;
	int32_t elem = zc ? zc->elem : OT_UINT8;
	int64_t lo = elem == OT_INT8 ? -128 : 0, hi = elem == OT_INT8 ? 127 : 255;
	uint8_t *q;
	uint64_t i, ch;
	int k;

	if (ox_attr_int(x, node, "axis", 1, &axis))
		return x->err;
	if (axis < 0)
		axis += v->c.ndim;
	if (elem != OT_INT8 && elem != OT_UINT8)
		return ox_refuse(x, node, "zero point of type %s", ox_elem_name(elem));
	if (sc->count != 1) {
		if (axis < 0 || axis >= v->c.ndim || sc->count != (uint64_t)v->c.dims[axis])
			return ox_bad(x, node, "%llu scales for axis %lld",
				      (unsigned long long)sc->count, (long long)axis);
		for (k = (int)axis + 1; k < v->c.ndim; k++)
			inner *= v->c.dims[k];
	}
	q = ox_alloc(x, v->c.count);
	if (!q)
		return x->err;
	for (i = 0; i < v->c.count; i++) {
		ch = sc->count == 1 ? 0 : (i / (uint64_t)inner) % sc->count;
		float s = (float)ox_cf(sc, ch);
		float r = rintf((float)ox_cf(&v->c, i) / s) +
			  (float)(zc ? ox_ci64(zc, zc->count == 1 ? 0 : ch) : 0);
		int64_t iv = r < (float)lo ? lo : r > (float)hi ? hi : (int64_t)r;

		q[i] = (uint8_t)iv;
	}
	o->kind = VK_CONST;
	o->c = v->c;
	o->c.elem = elem;
	o->c.raw = q;
	o->c.typed = NULL;
	o->c.name = o->name;
	return 0;
}

static int lower_quantize(struct ox_ctx *x, int node)
{
	struct ox_val *v = ox_in(x, node, 0), *o = ox_out(x, node, 0);
	const struct ox_const *sc, *zc;
	float s;
	int32_t z;
	int d;
	static const char *const known[] = { "axis", "saturate", NULL };

	if (!v || !o)
		return ox_bad(x, node, "an input or the output is missing");
	if (ox_attrs_only(x, node, known))
		return x->err;
	sc = get_const(x, node, 1, "scale");
	if (!sc)
		return x->err;
	zc = opt_const(x, node, 2, "zero point");
	if (x->err)
		return x->err;
	if (v->kind == VK_CONST)
		return quantize_const(x, node, v, sc, zc, o);
	if (scale_of(x, node, sc, &s) || zp_of(x, node, zc, &z))
		return x->err;
	if (v->kind == VK_NONE && v->input >= 0 && v->elem == OT_FLOAT)
		v->kind = VK_FIN;
	switch (v->kind) {
	case VK_FIN:
		if (v->fin_dev < 0) {
			d = model_input(x, node, v, s, z);
			if (d < 0)
				return x->err;
			x->dv[d].edge = node;
			v->fin_dev = d;
			v->scale = s;
			v->zp = z;
		} else if (v->scale != s || v->zp != z) {
			return ox_refuse(x, node,
					 "input '%.80s' is quantized twice with different parameters",
					 v->name);
		}
		o = set_act(x, node, VK_Q8, v->fin_dev, s, z);
		if (o)
			o->chain = false;
		return x->err;
	case VK_PEND:
		if (v->nuse != 1 || v->graph_out)
			return ox_refuse(x, node,
					 "float-only path: the float output '%.80s' has %d consumers",
					 v->name, v->nuse + v->graph_out);
		d = materialize(x, v, s, z);
		if (d < 0)
			return d;
		set_act(x, node, VK_Q8, d, s, z);
		return x->err;
	case VK_DQF:
		if (v->scale == s && v->zp == z) {
			o = set_act(x, node, VK_Q8, v->dev, s, z);
			if (o)
				o->chain = v->chain && v->nuse == 1 &&
					   !v->graph_out;
			return x->err;
		}
		if (x->dv[v->dev].ndim == 4) {
			d = requant_1x1(x, node, v, s, z);
			if (d < 0)
				return x->err;
			set_act(x, node, VK_Q8, d, s, z);
			return x->err;
		}
		return ox_refuse(x, node,
				 "requantizing a %d-D tensor (scale %g zero point %d to %g, %d) is not supported",
				 x->dv[v->dev].ndim, (double)v->scale, v->zp,
				 (double)s, z);
	case VK_Q8:
		return ox_refuse(x, node, "QuantizeLinear of an integer tensor");
	default:
		act_in(x, node, 0, false, 0, 0);
		return x->err ? x->err : ox_refuse(x, node, "unsupported input");
	}
}

static int lower_dequantize(struct ox_ctx *x, int node)
{
	struct ox_val *v = ox_in(x, node, 0), *o = ox_out(x, node, 0);
	const struct ox_const *sc, *zc;
	int64_t axis;
	float s;
	int32_t z;
	static const char *const known[] = { "axis", NULL };

	if (!v || !o)
		return ox_bad(x, node, "an input or the output is missing");
	if (ox_attrs_only(x, node, known) ||
	    ox_attr_int(x, node, "axis", 1, &axis))
		return x->err;
	sc = get_const(x, node, 1, "scale");
	if (!sc)
		return x->err;
	zc = opt_const(x, node, 2, "zero point");
	if (x->err)
		return x->err;
	if (v->kind == VK_CONST || (v->kind == VK_NONE && v->has_bind &&
				    v->elem != OT_UINT8)) {
		if (!ox_is_int(v->c.elem))
			return ox_refuse(x, node, "DequantizeLinear of %s '%.80s'",
					 ox_elem_name(v->c.elem), v->name);
		o->kind = VK_QCONST;
		o->c = v->c;
		o->qs = *sc;
		if (zc) {
			o->qz = *zc;
			o->has_qz = true;
		}
		o->qaxis = (int)axis;
		return 0;
	}
	if (scale_of(x, node, sc, &s) || zp_of(x, node, zc, &z))
		return x->err;
	v = act_in(x, node, 0, true, s, z);
	if (!v)
		return x->err;
	if (v->kind == VK_DQF)
		return ox_refuse(x, node, "DequantizeLinear of a float tensor");
	o = set_act(x, node, VK_DQF, v->dev, s, z);
	if (o)
		o->chain = v->chain && v->nuse == 1 && !v->graph_out;
	return x->err;
}

/* ---- Relu, Clip ---- */

static int clip_bound(struct ox_ctx *x, int node, unsigned int i,
		      const char *attr, bool q8, double def, double *b)
{
	const struct ox_const *c;
	float f;

	*b = def;
	if (ox_attr(ox_node(x, node), attr)) {
		if (ox_attr_float(x, node, attr, 0, &f))
			return x->err;
		*b = f;
		return 0;
	}
	c = opt_const(x, node, i, attr);
	if (x->err || !c)
		return x->err;
	if (c->count != 1)
		return ox_bad(x, node, "%s is not a scalar", attr);
	if (q8 && c->elem != OT_UINT8)
		return ox_refuse(x, node, "%s of type %s for a uint8 tensor", attr,
				 ox_elem_name(c->elem));
	if (!q8 && c->elem != OT_FLOAT)
		return ox_refuse(x, node, "%s of type %s", attr,
				 ox_elem_name(c->elem));
	*b = ox_cf(c, 0);
	return 0;
}

static int lower_clip(struct ox_ctx *x, int node)
{
	bool relu = is(x, node, "Relu");
	struct ox_val *v = ox_in(x, node, 0), *o = ox_out(x, node, 0);
	static const char *const known[] = { "min", "max", NULL };
	int32_t qlo, qhi;
	double lo, hi;
	bool q8;
	int t;

	if (!v || !o)
		return ox_bad(x, node, "an input or the output is missing");
	if (ox_attrs_only(x, node, relu ? known + 2 : known))
		return x->err;
	if (v->kind == VK_PEND) {
		if (v->nuse != 1 || v->graph_out)
			return ox_refuse(x, node,
					 "float-only path: the float output '%.80s' has %d consumers",
					 v->name, v->nuse + v->graph_out);
		if (relu) {
			lo = 0;
			hi = INFINITY;
		} else if (clip_bound(x, node, 1, "min", false, -INFINITY, &lo) ||
			   clip_bound(x, node, 2, "max", false, INFINITY, &hi)) {
			return x->err;
		}
		*o = (struct ox_val){ .name = o->name, .kind = VK_PEND,
				      .producer = v->producer, .nuse = o->nuse,
				      .graph_out = o->graph_out, .input = -1,
				      .dev = -1, .fin_dev = -1,
				      .lo = fmaxf(v->lo, (float)lo),
				      .hi = fminf(v->hi, (float)hi) };
		snprintf(o->fused, sizeof(o->fused), "%.40s+%.20s", v->fused,
			 op_type(x, node));
		return 0;
	}
	v = act_in(x, node, 0, false, 0, 0);
	if (!v)
		return x->err;
	q8 = v->kind == VK_Q8;
	if (relu) {
		lo = 0;
		hi = INFINITY;
	} else if (clip_bound(x, node, 1, "min", q8, q8 ? 0 : -INFINITY, &lo) ||
		   clip_bound(x, node, 2, "max", q8, q8 ? 255 : INFINITY, &hi)) {
		return x->err;
	}
	if (q8) {
		qlo = relu ? 0 : (int32_t)lo;
		qhi = relu ? 255 : (int32_t)hi;
	} else {
		qlo = qclamp((float)lo, v->scale, v->zp, 0);
		qhi = qclamp((float)hi, v->scale, v->zp, 255);
	}
	if (qlo > qhi)
		return ox_refuse(x, node, "the clamp range is empty after quantization");
	/* fuse into the operator that wrote the value, if this is its only use */
	{
		const struct ox_dev *d = &x->dv[v->dev];
		int tt = d->t_nhwc >= 0 && d->t_plain >= 0 ? -1 :
			 d->t_nhwc >= 0 ? d->t_nhwc : d->t_plain;
		int def = tt >= 0 ? x->ti[tt].def : -1;

		if (v->chain && v->nuse == 1 && !v->graph_out && def >= 0 &&
		    x->ti[tt].kind == NPU_MODEL_SLOT_SCRATCH &&
		    uses_act(x->op[def].opcode)) {
			struct ox_layer *l = &x->ly[def];
			size_t n = strlen(l->type);

			if (x->op[def].act_min < qlo)
				x->op[def].act_min = qlo;
			if (x->op[def].act_max > qhi)
				x->op[def].act_max = qhi;
			if (x->op[def].act_min > x->op[def].act_max)
				return ox_refuse(x, node, "the fused clamp range is empty");
			snprintf(l->type + n, sizeof(l->type) - n, "+%s",
				 op_type(x, node));
			o = set_act(x, node, v->kind, v->dev, v->scale, v->zp);
			return x->err;
		}
	}
	{
		const struct ox_dev *d = &x->dv[v->dev];
		bool nhwc = d->ndim == 4 && d->t_nhwc >= 0;
		int tin = nhwc ? d->t_nhwc : get_plain(x, v->dev), od;
		struct npu_prog_op *op;

		if (tin < 0)
			return x->err;
		od = new_out(x, d->ndim, d->dims, d->zp, nhwc, &t);
		if (od < 0)
			return x->err;
		op = ox_new_op(x, NPU_OP_CLIP, t);
		if (!op)
			return x->err;
		op->in[0] = (uint16_t)tin;
		op->act_min = qlo;
		op->act_max = qhi;
		ox_use(x, tin);
		layer(x, &v->dev, 1, od);
		set_act(x, node, v->kind, od, v->scale, v->zp);
	}
	return x->err;
}

/* ---- data movement ---- */

/* the input of a data movement node; its output is set like it */
static struct ox_val *dm_in(struct ox_ctx *x, int node, unsigned int i)
{
	struct ox_val *v = ox_in(x, node, i);

	if (v && (v->kind == VK_CONST || v->kind == VK_QCONST)) {
		ox_refuse(x, node, "constant input '%.80s' (constant folding is not supported)",
			  v->name);
		return NULL;
	}
	return act_in(x, node, i, false, 0, 0);
}

/* RESHAPE of @v to @ndim/@dims (ONNX order) */
static int reshape_to(struct ox_ctx *x, int node, const struct ox_val *v,
		      int ndim, const uint32_t *dims)
{
	const struct ox_dev *d = &x->dv[v->dev];
	bool in_hw1 = d->ndim == 4 && (uint64_t)d->dims[2] * d->dims[3] == 1;
	bool out_nhwc = ndim == 4 && (uint64_t)dims[2] * dims[3] == 1;
	int tin, o, t;

	tin = in_hw1 && d->t_nhwc >= 0 ? d->t_nhwc : get_plain(x, v->dev);
	if (tin < 0)
		return x->err;
	o = new_out(x, ndim, dims, d->zp, out_nhwc, &t);
	if (o < 0)
		return x->err;
	if (!move_op(x, NPU_OP_RESHAPE, v->dev, tin, o, t))
		return x->err;
	set_act(x, node, v->kind, o, v->scale, v->zp);
	return x->err;
}

static uint64_t elems(int ndim, const uint32_t *dims)
{
	uint64_t n = 1;
	int i;

	for (i = 0; i < ndim; i++)
		n *= dims[i];
	return n;
}

static int lower_reshape(struct ox_ctx *x, int node)
{
	struct ox_val *v = dm_in(x, node, 0);
	const struct ox_const *sc;
	uint32_t dims[4];
	int64_t allowzero, neg = -1, k;
	uint64_t known = 1, n;
	unsigned int i;
	static const char *const attrs[] = { "allowzero", NULL };

	if (!v || ox_attrs_only(x, node, attrs) ||
	    ox_attr_int(x, node, "allowzero", 0, &allowzero))
		return x->err;
	sc = get_const(x, node, 1, "shape");
	if (!sc)
		return x->err;
	if (sc->elem != OT_INT64 || sc->ndim != 1)
		return ox_bad(x, node, "the shape is not a 1-D int64 tensor");
	if (sc->count > 4 || !sc->count)
		return ox_refuse(x, node, "a %llu-D output (1 to 4 supported)",
				 (unsigned long long)sc->count);
	n = elems(x->dv[v->dev].ndim, x->dv[v->dev].dims);
	for (i = 0; i < sc->count; i++) {
		k = ox_ci64(sc, i);
		if (k == 0 && !allowzero) {
			if ((int)i >= x->dv[v->dev].ndim)
				return ox_bad(x, node, "shape dim %u copies a missing dim", i);
			k = x->dv[v->dev].dims[i];
		}
		if (k == -1) {
			if (neg >= 0)
				return ox_bad(x, node, "two -1 in the shape");
			neg = i;
			continue;
		}
		if (k <= 0 || k > UINT32_MAX)
			return ox_refuse(x, node, "shape dim %u is %lld", i,
					 (long long)k);
		dims[i] = (uint32_t)k;
		known *= (uint64_t)k;
		if (known > n)
			return ox_bad(x, node, "the shape holds more than the input's %llu elements",
				      (unsigned long long)n);
	}
	if (neg >= 0) {
		if (n % known)
			return ox_bad(x, node, "no -1 makes the shape hold %llu elements",
				      (unsigned long long)n);
		dims[neg] = (uint32_t)(n / known);
		known = n;
	}
	if (known != n)
		return ox_bad(x, node, "the shape holds %llu elements, the input %llu",
			      (unsigned long long)known, (unsigned long long)n);
	return reshape_to(x, node, v, (int)sc->count, dims);
}

static int lower_flatten(struct ox_ctx *x, int node)
{
	struct ox_val *v = dm_in(x, node, 0);
	static const char *const attrs[] = { "axis", NULL };
	uint32_t dims[2] = { 1, 1 };
	int64_t axis;
	int i, nd;

	if (!v || ox_attrs_only(x, node, attrs) ||
	    ox_attr_int(x, node, "axis", 1, &axis))
		return x->err;
	nd = x->dv[v->dev].ndim;
	if (axis < 0)
		axis += nd;
	if (axis < 0 || axis > nd)
		return ox_bad(x, node, "axis %lld for %d dims", (long long)axis, nd);
	for (i = 0; i < nd; i++)
		dims[i >= axis] *= x->dv[v->dev].dims[i];
	return reshape_to(x, node, v, 2, dims);
}

static int lower_squeeze(struct ox_ctx *x, int node, bool un)
{
	struct ox_val *v = dm_in(x, node, 0);
	const struct ox_dev *d;
	int64_t ax[8];
	unsigned int nax = 0, i;
	bool mark[8] = { false };
	uint32_t dims[8];
	int nd, od = 0, k, j;
	const struct ox_const *c;
	static const char *const attrs[] = { "axes", NULL };

	if (!v || ox_attrs_only(x, node, attrs) ||
	    ox_attr_ints(x, node, "axes", ax, 8, &nax))
		return x->err;
	if (!nax && ox_in(x, node, 1)) {
		c = get_const(x, node, 1, "axes");
		if (!c)
			return x->err;
		if (c->count > 8)
			return ox_bad(x, node, "%llu axes", (unsigned long long)c->count);
		for (i = 0; i < c->count; i++)
			ax[nax++] = ox_ci64(c, i);
	}
	d = &x->dv[v->dev];
	nd = un ? d->ndim + (int)nax : d->ndim;
	if (nd > 8 || (un && !nax))
		return ox_bad(x, node, "bad axes");
	for (i = 0; i < nax; i++) {
		if (ax[i] < -nd || ax[i] >= nd)
			return ox_bad(x, node, "bad axis %lld", (long long)ax[i]);
		k = (int)(ax[i] < 0 ? ax[i] + nd : ax[i]);
		if (mark[k])
			return ox_bad(x, node, "bad axis %lld", (long long)ax[i]);
		mark[k] = true;
	}
	for (k = 0, j = 0; k < nd; k++) {
		if (un) {
			dims[od++] = mark[k] ? 1 : d->dims[j++];
		} else if (mark[k] || (!nax && d->dims[k] == 1)) {
			if (d->dims[k] != 1)
				return ox_bad(x, node, "dim %d is %u, not 1", k, d->dims[k]);
		} else {
			dims[od++] = d->dims[k];
		}
	}
	if (!od)
		dims[od++] = 1;
	if (od > 4)
		return ox_refuse(x, node, "a %d-D output (at most 4)", od);
	return reshape_to(x, node, v, od, dims);
}

/*
 * A data movement operator from @v to a new value of @nd dims @dims (ONNX
 * order) in the form @v has (NHWC when it has both), set as the node's
 * output. The caller fills op->u; *@nhwc says which form it is.
 */
static struct npu_prog_op *dm_op(struct ox_ctx *x, int node,
				 const struct ox_val *v, uint16_t opcode,
				 int nd, const uint32_t *dims, bool *nhwc)
{
	struct npu_prog_op *op;
	int tin, o, t;

	*nhwc = nd == 4 && x->dv[v->dev].t_nhwc >= 0;
	tin = *nhwc ? x->dv[v->dev].t_nhwc : get_plain(x, v->dev);
	if (tin < 0)
		return NULL;
	o = new_out(x, nd, dims, x->dv[v->dev].zp, *nhwc, &t);
	if (o < 0)
		return NULL;
	op = move_op(x, opcode, v->dev, tin, o, t);
	if (op)
		set_act(x, node, v->kind, o, v->scale, v->zp);
	return op;
}

static int lower_transpose(struct ox_ctx *x, int node)
{
	struct ox_val *v = dm_in(x, node, 0);
	static const char *const attrs[] = { "perm", NULL };
	const struct ox_dev *d;
	int64_t p[8];
	unsigned int np, i;
	uint32_t dims[4];
	bool seen[4] = { false }, nhwc;
	struct npu_prog_op *op;
	int nd;

	if (!v || ox_attrs_only(x, node, attrs) ||
	    ox_attr_ints(x, node, "perm", p, 8, &np))
		return x->err;
	d = &x->dv[v->dev];
	nd = d->ndim;
	if (!np) {
		for (i = 0; i < (unsigned int)nd; i++)
			p[i] = nd - 1 - i;
		np = (unsigned int)nd;
	}
	if ((int)np != nd)
		return ox_bad(x, node, "perm of %u values for %d dims", np, nd);
	for (i = 0; i < np; i++) {
		if (p[i] < 0 || p[i] >= nd || seen[p[i]])
			return ox_bad(x, node, "perm is not a permutation");
		seen[p[i]] = true;
		dims[i] = d->dims[p[i]];
	}
	op = dm_op(x, node, v, NPU_OP_TRANSPOSE, nd, dims, &nhwc);
	if (!op)
		return x->err;
	for (i = 0; i < np; i++)
		op->u.transpose.perm[i] = (uint8_t)(nhwc ? B4[p[A4[i]]] : p[i]);
	return x->err;
}

/* integer list from an attribute or a constant input (opset changes) */
static int ints_of(struct ox_ctx *x, int node, const char *attr,
		   unsigned int in, int64_t *v, unsigned int max,
		   unsigned int *n, bool *present)
{
	const struct ox_const *c;
	uint64_t i;

	*present = false;
	if (ox_attr(ox_node(x, node), attr)) {
		*present = true;
		return ox_attr_ints(x, node, attr, v, max, n);
	}
	*n = 0;
	if (!ox_in(x, node, in))
		return 0;
	c = get_const(x, node, in, attr);
	if (!c)
		return x->err;
	if (!ox_is_int(c->elem) || c->count > max)
		return ox_bad(x, node, "%s: %llu %s values", attr,
			      (unsigned long long)c->count, ox_elem_name(c->elem));
	for (i = 0; i < c->count; i++)
		v[i] = ox_ci64(c, i);
	*n = (unsigned int)c->count;
	*present = true;
	return 0;
}

static int lower_slice(struct ox_ctx *x, int node)
{
	struct ox_val *v = dm_in(x, node, 0);
	static const char *const attrs[] = { "starts", "ends", "axes", NULL };
	int64_t st[4], en[4], ax[4], sp[4];
	unsigned int ns, ne, na, nsp, i;
	bool ps, pe, pa, psp, done[4] = { false }, nhwc;
	uint32_t begin[4] = { 0 }, dims[4];
	const struct ox_dev *d;
	struct npu_prog_op *op;
	int nd;

	if (!v || ox_attrs_only(x, node, attrs) ||
	    ints_of(x, node, "starts", 1, st, 4, &ns, &ps) ||
	    ints_of(x, node, "ends", 2, en, 4, &ne, &pe) ||
	    ints_of(x, node, "axes", 3, ax, 4, &na, &pa) ||
	    ints_of(x, node, "steps", 4, sp, 4, &nsp, &psp))
		return x->err;
	d = &x->dv[v->dev];
	nd = d->ndim;
	memcpy(dims, d->dims, sizeof(dims));
	if (!ps || !pe || ns != ne || (pa && na != ns) || (psp && nsp != ns))
		return ox_bad(x, node, "starts, ends, axes and steps do not match");
	for (i = 0; i < ns; i++) {
		int64_t a = pa ? ax[i] : (int64_t)i, s = st[i], e = en[i], dim;

		if (a < 0)
			a += nd;
		if (a < 0 || a >= nd || done[a])
			return ox_bad(x, node, "bad axis %lld", (long long)(pa ? ax[i] : i));
		done[a] = true;
		if (psp && sp[i] != 1)
			return ox_refuse(x, node, "steps other than 1 are not supported");
		dim = d->dims[a];
		if (s < 0)
			s += dim;
		if (e < 0)
			e += dim;
		s = s < 0 ? 0 : s > dim ? dim : s;
		e = e < 0 ? 0 : e > dim ? dim : e;
		if (e <= s)
			return ox_refuse(x, node, "an empty slice along axis %lld",
					 (long long)a);
		begin[a] = (uint32_t)s;
		dims[a] = (uint32_t)(e - s);
	}
	op = dm_op(x, node, v, NPU_OP_SLICE, nd, dims, &nhwc);
	if (!op)
		return x->err;
	for (i = 0; i < (unsigned int)nd; i++)
		op->u.slice.begin[i] = nhwc ? begin[A4[i]] : begin[i];
	return x->err;
}

static int lower_pad(struct ox_ctx *x, int node)
{
	struct ox_val *v = dm_in(x, node, 0);
	static const char *const attrs[] = { "mode", "pads", "value", NULL };
	int64_t p[8];
	unsigned int np, i;
	bool pp, nhwc;
	char mode[16];
	double val = 0;
	const struct ox_dev *d;
	const struct ox_const *c;
	struct npu_prog_op *op;
	uint32_t dims[4];
	int nd;
	float f;

	if (!v || ox_attrs_only(x, node, attrs) ||
	    ox_attr_str(x, node, "mode", "constant", mode, sizeof(mode)) ||
	    ints_of(x, node, "pads", 1, p, 8, &np, &pp))
		return x->err;
	if (strcmp(mode, "constant"))
		return ox_refuse(x, node, "mode '%s' (only constant is supported)", mode);
	if (ox_in(x, node, 3))
		return ox_refuse(x, node, "the axes input is not supported");
	d = &x->dv[v->dev];
	nd = d->ndim;
	if (!pp || np != 2u * (unsigned int)nd)
		return ox_bad(x, node, "pads has %u values for %d dims", np, nd);
	if (ox_attr(ox_node(x, node), "value")) {
		if (ox_attr_float(x, node, "value", 0, &f))
			return x->err;
		val = f;
	} else if (ox_in(x, node, 2)) {
		c = get_const(x, node, 2, "constant_value");
		if (!c)
			return x->err;
		val = ox_cf(c, 0);
		if (v->kind == VK_Q8 && val != d->zp)
			return ox_refuse(x, node, "padding with %g, not the zero point %d",
					 val, d->zp);
		if (v->kind == VK_Q8)
			val = 0;
	}
	if (v->kind == VK_DQF && qclamp((float)val, v->scale, v->zp, 0) != v->zp)
		return ox_refuse(x, node, "padding with %g, which does not quantize to the zero point",
				 val);
	for (i = 0; i < np; i++)
		if (p[i] < 0 || p[i] > 65535)
			return ox_refuse(x, node, "pad %lld (0..65535 supported)",
					 (long long)p[i]);
	for (i = 0; i < (unsigned int)nd; i++)
		dims[i] = d->dims[i] + (uint32_t)(p[i] + p[nd + i]);
	op = dm_op(x, node, v, NPU_OP_PAD, nd, dims, &nhwc);
	if (!op)
		return x->err;
	for (i = 0; i < (unsigned int)nd; i++) {
		unsigned int e = nhwc ? A4[i] : i;

		op->u.pad.before[i] = (uint16_t)p[e];
		op->u.pad.after[i] = (uint16_t)p[nd + e];
	}
	return x->err;
}

static int lower_concat(struct ox_ctx *x, int node)
{
	const Onnx__NodeProto *n = ox_node(x, node);
	static const char *const attrs[] = { "axis", NULL };
	struct ox_val *v[64];
	uint32_t dims[4];
	int64_t axis;
	unsigned int nv = (unsigned int)n->n_input, i, k;
	int nd, cur, tcur, ins[3], tins[3], o, t;
	bool nhwc;
	struct npu_prog_op *op;

	if (ox_attrs_only(x, node, attrs) ||
	    ox_attr_int(x, node, "axis", 0, &axis))
		return x->err;
	if (!nv || nv > 64)
		return ox_refuse(x, node, "%u inputs (1 to 64 supported)", nv);
	for (i = 0; i < nv; i++) {
		v[i] = dm_in(x, node, i);
		if (!v[i])
			return x->err;
		if (v[i]->kind != v[0]->kind || v[i]->zp != v[0]->zp ||
		    (v[0]->kind == VK_DQF && v[i]->scale != v[0]->scale))
			return ox_refuse(x, node,
					 "inputs quantized differently ('%.80s' and '%.80s'): requantization is not supported",
					 v[0]->name, v[i]->name);
	}
	nd = x->dv[v[0]->dev].ndim;
	if (axis < 0)
		axis += nd;
	if (axis < 0 || axis >= nd)
		return ox_bad(x, node, "axis %lld for %d dims", (long long)axis, nd);
	for (i = 1; i < nv; i++) {
		const struct ox_dev *a = &x->dv[v[0]->dev], *b = &x->dv[v[i]->dev];

		if (b->ndim != nd)
			return ox_bad(x, node, "inputs of different ranks");
		for (k = 0; k < (unsigned int)nd; k++)
			if (k != axis && a->dims[k] != b->dims[k])
				return ox_bad(x, node, "input shapes differ off the axis");
	}
	if (nv == 1)
		return reshape_to(x, node, v[0], nd, x->dv[v[0]->dev].dims);
	/* 4-D: NHWC when every input has that form, else plain */
	nhwc = nd == 4;
	for (i = 0; i < nv; i++)
		nhwc = nhwc && x->dv[v[i]->dev].t_nhwc >= 0;
	cur = v[0]->dev;
	tcur = nhwc ? get_nhwc(x, cur) : get_plain(x, cur);
	if (tcur < 0)
		return x->err;
	for (i = 1; i < nv; ) {
		unsigned int take = nv - i >= 2 ? 2 : 1;

		memcpy(dims, x->dv[cur].dims, sizeof(dims));
		ins[0] = cur;
		tins[0] = tcur;
		for (k = 0; k < take; k++) {
			ins[k + 1] = v[i + k]->dev;
			tins[k + 1] = nhwc ? get_nhwc(x, ins[k + 1]) :
					     get_plain(x, ins[k + 1]);
			if (tins[k + 1] < 0)
				return x->err;
			dims[axis] += x->dv[ins[k + 1]].dims[axis];
		}
		o = new_out(x, nd, dims, v[0]->zp, nhwc, &t);
		if (o < 0)
			return x->err;
		op = ox_new_op(x, NPU_OP_CONCAT, t);
		if (!op)
			return x->err;
		for (k = 0; k <= take; k++) {
			op->in[k] = (uint16_t)tins[k];
			ox_use(x, tins[k]);
		}
		op->u.concat.axis = nhwc ? B4[axis] : (uint32_t)axis;
		layer(x, ins, (int)take + 1, o);
		cur = o;
		tcur = t;
		i += take;
	}
	set_act(x, node, v[0]->kind, cur, v[0]->scale, v[0]->zp);
	return x->err;
}

static int lower_maxpool(struct ox_ctx *x, int node)
{
	struct ox_val *v = dm_in(x, node, 0);
	struct qout q;
	int o;

	if (!v)
		return x->err;
	q = (struct qout){ .s = v->scale, .z = v->zp, .amin = 0, .amax = 255 };
	o = lower_pool(x, node, v, false, &q);
	if (o < 0)
		return x->err;
	set_act(x, node, v->kind, o, v->scale, v->zp);
	return x->err;
}

/* ---- QOperator ---- */

static int lower_qlinear(struct ox_ctx *x, int node, bool conv)
{
	const struct ox_const *xs, *xz, *ws, *wz, *ys, *yz, *w, *b = NULL;
	struct ox_val *v;
	struct qout q = { .amin = 0, .amax = 255 };
	struct qw qw, qb;
	float sx;
	int32_t zx;
	int o;

	xs = get_const(x, node, 1, "input scale");
	xz = xs ? opt_const(x, node, 2, "input zero point") : NULL;
	w = !x->err ? get_const(x, node, 3, "weights") : NULL;
	ws = w ? get_const(x, node, 4, "weight scale") : NULL;
	wz = ws ? opt_const(x, node, 5, "weight zero point") : NULL;
	ys = !x->err ? get_const(x, node, 6, "output scale") : NULL;
	yz = ys ? opt_const(x, node, 7, "output zero point") : NULL;
	if (conv && !x->err)
		b = opt_const(x, node, 8, "bias");
	if (x->err)
		return x->err;
	if (scale_of(x, node, xs, &sx) || zp_of(x, node, xz, &zx) ||
	    scale_of(x, node, ys, &q.s) || zp_of(x, node, yz, &q.z))
		return x->err;
	v = act_in(x, node, 0, true, sx, zx);
	if (!v)
		return x->err;
	if (v->kind != VK_Q8)
		return ox_refuse(x, node, "input '%.80s' is not uint8", v->name);
	if (b && b->elem != OT_INT32)
		return ox_bad(x, node, "bias of type %s (int32 expected)",
			      ox_elem_name(b->elem));
	qw = (struct qw){ .q = w, .s = ws, .z = wz, .axis = conv ? 0 : 1 };
	qb = (struct qw){ .q = b };
	if (conv)
		o = lower_conv(x, node, v, sx, &qw, b ? &qb : NULL, &q);
	else
		o = lower_fc(x, node, v, sx, &qw, false, NULL, &q);
	if (o < 0)
		return x->err;
	set_act(x, node, VK_Q8, o, q.s, q.z);
	return x->err;
}

/*
 * com.microsoft's QLinearAdd (A, A_scale, A_zp, B, B_scale, B_zp, C_scale,
 * C_zp) and QLinearAveragePool / QLinearGlobalAveragePool (X, x_scale,
 * x_zp, y_scale, y_zp), which ONNX Runtime's QOperator exports use.
 */
static int lower_qlinear_ms(struct ox_ctx *x, int node, bool add)
{
	unsigned int ys_in = add ? 6 : 3;
	const struct ox_const *as, *az, *bs = NULL, *bz = NULL, *ys, *yz;
	struct qout q = { .amin = 0, .amax = 255 };
	struct ox_val va, vb, *a, *b = NULL;
	float sa, sb = 0;
	int32_t za, zb = 0;
	int o;

	as = get_const(x, node, 1, "input scale");
	az = as ? opt_const(x, node, 2, "input zero point") : NULL;
	if (add && !x->err) {
		bs = get_const(x, node, 4, "input scale");
		bz = bs ? opt_const(x, node, 5, "input zero point") : NULL;
	}
	ys = !x->err ? get_const(x, node, ys_in, "output scale") : NULL;
	yz = ys ? opt_const(x, node, ys_in + 1, "output zero point") : NULL;
	if (x->err)
		return x->err;
	if (scale_of(x, node, as, &sa) || zp_of(x, node, az, &za) ||
	    (add && (scale_of(x, node, bs, &sb) || zp_of(x, node, bz, &zb))) ||
	    scale_of(x, node, ys, &q.s) || zp_of(x, node, yz, &q.z))
		return x->err;
	a = act_in(x, node, 0, true, sa, za);
	if (add && a)
		b = act_in(x, node, 3, true, sb, zb);
	if (!a || (add && !b))
		return x->err;
	if (a->kind != VK_Q8 || (add && b->kind != VK_Q8))
		return ox_refuse(x, node, "an input is not uint8");
	/* the scales this node states, whatever the producers said */
	va = *a;
	va.scale = sa;
	if (add) {
		vb = *b;
		vb.scale = sb;
		o = lower_add(x, node, &va, &vb, &q);
	} else {
		o = lower_pool(x, node, &va, true, &q);
	}
	if (o < 0)
		return x->err;
	set_act(x, node, VK_Q8, o, q.s, q.z);
	return x->err;
}

/* ---- the rest ---- */

static int lower_constant(struct ox_ctx *x, int node)
{
	const Onnx__AttributeProto *a;
	struct ox_val *o = ox_out(x, node, 0);

	if (!o)
		return ox_bad(x, node, "the output has no name");
	if (ox_node(x, node)->n_attribute != 1)
		return ox_refuse(x, node, "only the 'value' attribute is supported");
	a = ox_attr(ox_node(x, node), "value");
	if (!a || !a->t)
		return ox_refuse(x, node, "only the 'value' attribute is supported");
	o->kind = VK_CONST;
	return ox_const_from_tp(x, a->t, &o->c, o->name);
}

static int lower_node(struct ox_ctx *x, int node)
{
	const char *t = op_type(x, node);
	const Onnx__NodeProto *n = ox_node(x, node);
	struct ox_val *v, *o;

	static const char *const known[] = {
		"QuantizeLinear", "DequantizeLinear", "Conv", "MatMul", "Gemm",
		"Add", "AveragePool", "GlobalAveragePool", "QLinearConv",
		"QLinearMatMul", "MaxPool", "Relu", "Clip", "Reshape", "Flatten",
		"Squeeze", "Unsqueeze", "Transpose", "Slice", "Concat", "Pad",
		"Constant", "Identity", NULL,
	};
	unsigned int k;

	if (n->domain && !strcmp(n->domain, "com.microsoft")) {
		if (!strcmp(t, "QLinearAdd"))
			return lower_qlinear_ms(x, node, true);
		if (!strcmp(t, "QLinearAveragePool") ||
		    !strcmp(t, "QLinearGlobalAveragePool"))
			return lower_qlinear_ms(x, node, false);
	}
	if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx"))
		return ox_refuse(x, node, "operator domain '%.60s' is not supported",
				 n->domain);
	for (k = 0; known[k] && strcmp(known[k], t); k++)
		;
	if (!known[k])
		return ox_refuse(x, node, "operator %.40s is not supported by the NPU",
				 t);
	if (!n->n_output || !ox_out(x, node, 0))
		return ox_bad(x, node, "no output");
	if (!strcmp(t, "QuantizeLinear"))
		return lower_quantize(x, node);
	if (!strcmp(t, "DequantizeLinear"))
		return lower_dequantize(x, node);
	if (is_pend_op(x, node))
		return pend_node(x, node);
	if (!strcmp(t, "QLinearConv"))
		return lower_qlinear(x, node, true);
	if (!strcmp(t, "QLinearMatMul"))
		return lower_qlinear(x, node, false);
	if (!strcmp(t, "MaxPool"))
		return lower_maxpool(x, node);
	if (!strcmp(t, "Relu") || !strcmp(t, "Clip"))
		return lower_clip(x, node);
	if (!strcmp(t, "Reshape"))
		return lower_reshape(x, node);
	if (!strcmp(t, "Flatten"))
		return lower_flatten(x, node);
	if (!strcmp(t, "Squeeze"))
		return lower_squeeze(x, node, false);
	if (!strcmp(t, "Unsqueeze"))
		return lower_squeeze(x, node, true);
	if (!strcmp(t, "Transpose"))
		return lower_transpose(x, node);
	if (!strcmp(t, "Slice"))
		return lower_slice(x, node);
	if (!strcmp(t, "Concat"))
		return lower_concat(x, node);
	if (!strcmp(t, "Pad"))
		return lower_pad(x, node);
	if (!strcmp(t, "Constant"))
		return lower_constant(x, node);
	if (!strcmp(t, "Identity")) {
		v = ox_in(x, node, 0);
		o = ox_out(x, node, 0);
		if (!v)
			return ox_bad(x, node, "the input is missing");
		if (v->kind == VK_NONE && v->input >= 0 && !act_in(x, node, 0, false, 0, 0))
			return x->err;
		*o = (struct ox_val){ .name = o->name, .kind = v->kind,
				      .producer = v->producer, .nuse = o->nuse,
				      .graph_out = o->graph_out, .input = -1,
				      .c = v->c, .qs = v->qs, .qz = v->qz,
				      .has_qz = v->has_qz, .qaxis = v->qaxis,
				      .dev = v->dev, .scale = v->scale,
				      .zp = v->zp, .lo = v->lo, .hi = v->hi,
				      .fin_dev = -1,
				      .chain = v->chain && v->nuse == 1 &&
					       !v->graph_out };
		memcpy(o->fused, v->fused, sizeof(o->fused));
		return 0;
	}
	return ox_refuse(x, node, "operator %.40s is not supported", t);
}

/* a fully static declared shape of graph output @i must be what it computes */
static int check_declared(struct ox_ctx *x, unsigned int i, const struct ox_dev *d)
{
	const Onnx__ValueInfoProto *vi = x->g->output[i];
	const Onnx__TensorShapeProto *sh;
	size_t k, nd;

	if (!vi->type || vi->type->value_case !=
			 ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !vi->type->tensor_type->shape)
		return 0;
	sh = vi->type->tensor_type->shape;
	for (k = 0; k < sh->n_dim; k++)
		if (sh->dim[k]->value_case !=
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			return 0;
	nd = sh->n_dim ? sh->n_dim : 1;
	for (k = 0; k < sh->n_dim && nd == (size_t)d->ndim; k++)
		if (sh->dim[k]->dim_value != d->dims[k])
			break;
	if (nd == (size_t)d->ndim && (k == sh->n_dim || !sh->n_dim) &&
	    (sh->n_dim || d->dims[0] == 1))
		return 0;
	return ox_fail(x, -EINVAL,
		       "graph output '%.80s' is declared with %zu dims [%lld, ...] but computes %d dims [%u, ...]",
		       vi->name, sh->n_dim,
		       sh->n_dim ? (long long)sh->dim[0]->dim_value : 0LL,
		       d->ndim, d->dims[0]);
}

/* the device tensor of graph output @v, in the OUTPUT slot */
static int graph_output(struct ox_ctx *x, struct ox_val *v)
{
	struct ox_dev *d;
	int t, tin, o;
	struct npu_prog_op *op;

	x->cur = v->producer >= 0 ? v->producer : x->order[x->nn - 1];
	switch (v->kind) {
	case VK_Q8:
	case VK_DQF:
		break;
	case VK_PEND:
		return ox_refuse(x, v->producer,
				 "float-only path: output '%.80s' is float, without QuantizeLinear",
				 v->name);
	case VK_CONST:
	case VK_QCONST:
		if (v->producer >= 0)
			return ox_refuse(x, v->producer,
					 "output '%.80s' is a constant (the NPU computes nothing)",
					 v->name);
		return ox_fail(x, -EOPNOTSUPP, "output '%.80s' is a constant",
			       v->name);
	default:
		return ox_fail(x, -EOPNOTSUPP,
			       "output '%.80s' is a graph input: the model computes nothing",
			       v->name);
	}
	if (x->nout >= NPU_MODEL_MAX_IO)
		return ox_fail(x, -E2BIG, "more than %d model outputs",
			       NPU_MODEL_MAX_IO);
	d = &x->dv[v->dev];
	if (check_declared(x, x->nout, d))
		return x->err;
	t = d->t_plain;
	if (t < 0 || x->ti[t].kind != NPU_MODEL_SLOT_SCRATCH || x->ti[t].def < 0) {
		/* a copy: TRANSPOSE from NHWC, or RESHAPE of the plain form */
		bool from_nhwc = t < 0;

		tin = from_nhwc ? d->t_nhwc : t;
		o = v->dev;
		t = form_tensor(x, o, false, NPU_MODEL_SLOT_OUTPUT);
		if (t < 0)
			return x->err;
		op = move_op(x, from_nhwc ? NPU_OP_TRANSPOSE : NPU_OP_RESHAPE,
			     v->dev, tin, v->dev, t);
		if (!op)
			return x->err;
		if (from_nhwc) {
			int i;

			for (i = 0; i < 4; i++)
				op->u.transpose.perm[i] = B4[i];
		}
		if (x->dv[v->dev].t_plain < 0)
			x->dv[v->dev].t_plain = t;
	}
	x->ti[t].kind = NPU_MODEL_SLOT_OUTPUT;
	x->ti[t].io = (int)x->nout;
	x->out[x->nout++] = (struct ox_io){ .name = v->name, .tensor = t,
					    .scale = v->scale,
					    .is_float = v->kind == VK_DQF };
	return 0;
}

int ox_lower(struct ox_ctx *x)
{
	unsigned int i, j;
	struct ox_io tmp;

	for (i = 0; i < x->nn; i++) {
		x->cur = x->order[i];
		if (lower_node(x, x->cur))
			return x->err ? x->err : -EINVAL;
	}
	for (i = 0; i < x->g->n_output; i++)
		if (graph_output(x, ox_find(x, x->g->output[i]->name)))
			return x->err;
	/* model inputs in the graph's order */
	for (i = 1; i < x->nin; i++)
		for (j = i; j > 0 && ox_find(x, x->in[j - 1].name)->input >
				     ox_find(x, x->in[j].name)->input; j--) {
			tmp = x->in[j];
			x->in[j] = x->in[j - 1];
			x->in[j - 1] = tmp;
		}
	if (!x->nin)
		return ox_fail(x, -EOPNOTSUPP, "the model has no input the NPU reads");
	return 0;
}
