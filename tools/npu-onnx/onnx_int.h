/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * onnx_int.h - the importer's internal state, shared by its source files
 * (onnx_graph.c: the protobuf, the value table, constants, attributes and
 * the node order; onnx_lower.c: ONNX nodes to NPU operators; onnx_emit.c:
 * the slot plan, the layer table and the model file).
 *
 * One struct ox_ctx per onnx_import() call, freed before it returns; it
 * is used by one thread only.
 */
#ifndef NPU_ONNX_INT_H
#define NPU_ONNX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npu/npu_model_layers.h"
#include "onnx.pb-c.h"
#include "onnx_import.h"

/* onnx.TensorProto.DataType */
#define OT_FLOAT	1
#define OT_UINT8	2
#define OT_INT8		3
#define OT_UINT16	4
#define OT_INT16	5
#define OT_INT32	6
#define OT_INT64	7
#define OT_BOOL		9
#define OT_DOUBLE	11
#define OT_UINT32	12
#define OT_UINT64	13
#define OT_LAST		16	/* BFLOAT16, the last type of onnx.proto */

#define OX_MAX_DIMS	8
#define OX_MAX_NODES	16384		/* nodes of a graph */
#define OX_MAX_ELEMS	(1ull << 30)	/* elements of one tensor */
#define OX_NAME_MAX	255		/* bytes of a name in the layer table */

/* a constant tensor (initializer, bound value, Constant node) */
struct ox_const {
	int32_t elem;		/* OT_* */
	int ndim;
	int64_t dims[OX_MAX_DIMS];
	uint64_t count;		/* elements */
	const uint8_t *raw;	/* packed little-endian values, or NULL */
	const void *typed;	/* the TensorProto's typed field, or NULL */
	const char *name;
};

enum ox_kind {
	VK_NONE,	/* not computed (yet) */
	VK_CONST,	/* a constant */
	VK_QCONST,	/* DequantizeLinear of a constant */
	VK_FIN,		/* a float graph input (QuantizeLinear makes it the model input) */
	VK_Q8,		/* a uint8 activation on the device */
	VK_DQF,		/* the float DequantizeLinear of a device activation */
	VK_PEND,	/* a float result waiting for its QuantizeLinear */
};

/* a value of the graph: a node output, an initializer or a graph input */
struct ox_val {
	const char *name;
	int kind;
	int producer;		/* node, or -1 */
	int nuse;		/* node inputs reading it */
	bool graph_out;
	int input;		/* graph input index, or -1 */
	bool has_bind;		/* a graph input with a bound value in @c */
	bool bad_bind;		/* its bound value is not a valid tensor */
	int32_t elem;		/* OT_* of a graph input */
	/* VK_CONST (and bound graph inputs): the value */
	struct ox_const c;
	/* VK_QCONST: @c quantized, @qs its scale(s), @qz its zero point(s) */
	struct ox_const qs, qz;
	bool has_qz;
	int qaxis;
	/* VK_Q8, VK_DQF: device value, its scale and zero point */
	int dev;
	float scale;
	int32_t zp;
	bool chain;		/* the only way to its device value's producer */
	/* VK_PEND */
	float lo, hi;		/* real clamp of fused Relu/Clip */
	char fused[64];		/* "+Relu", "+Clip" */
	/* VK_FIN: the model input once a QuantizeLinear made it one */
	int fin_dev;
};

/*
 * A device value: one activation as ONNX sees it (@ndim, @dims, NCHW for
 * 4-D) held in one or two device tensors: @t_nhwc (4-D only, logical
 * N, H, W, C in NCHWC16) and @t_plain (the ONNX dims, PLAIN). The missing
 * one is made by a TRANSPOSE when an operator needs it.
 */
struct ox_dev {
	int ndim;
	uint32_t dims[4];
	int32_t zp;
	int t_nhwc, t_plain;
	int edge;		/* the QuantizeLinear of a model input, or -1 */
};

/* what the emitter needs of each program tensor */
struct ox_tinfo {
	int kind;		/* NPU_MODEL_SLOT_* */
	int io;			/* input or output index, or -1 */
	int def, last;		/* op writing it, last op reading it */
};

/* the layer of one operator, finished into the layer table at the end */
struct ox_layer {
	const char *name;
	char type[96];
	struct npu_layer_desc d;	/* shapes, macs, weight bytes */
};

struct ox_io {
	const char *name;
	int tensor;
	float scale;
	bool is_float;
};

struct ox_ctx {
	Onnx__ModelProto *model;
	Onnx__GraphProto *g;
	const struct onnx_import_opts *opts;
	Onnx__TensorProto **binds;	/* unpacked bound values */
	/* values: a hash table of names */
	struct ox_val *v;
	unsigned int nv, vcap;
	int *hash;
	unsigned int hmask;
	/* nodes */
	unsigned int nn;
	int *order;			/* topological order */
	const char **nname;		/* display names */
	int cur;			/* node being lowered */
	/* devices values, tensors, operators */
	struct ox_dev *dv;
	unsigned int ndv, dvcap;
	struct npu_prog_tensor t[NPU_PROG_MAX_TENSORS];
	struct ox_tinfo ti[NPU_PROG_MAX_TENSORS];
	unsigned int nt;
	struct npu_prog_op op[NPU_PROG_MAX_OPS];
	struct ox_layer ly[NPU_PROG_MAX_OPS];
	unsigned int nop;
	/* the constant blob */
	uint8_t *cb;
	size_t csize, ccap;
	/* model I/O */
	struct ox_io in[NPU_MODEL_MAX_IO], out[NPU_MODEL_MAX_IO];
	unsigned int nin, nout;
	/* buffers to free with the context */
	void **owned;
	unsigned int nowned, owncap;
	/* the first error */
	int err;
	char *msg;
	size_t msglen;
};

/* onnx_graph.c */
__attribute__((format(printf, 3, 4)))
int ox_fail(struct ox_ctx *x, int err, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
int ox_refuse(struct ox_ctx *x, int node, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
int ox_bad(struct ox_ctx *x, int node, const char *fmt, ...);
void *ox_alloc(struct ox_ctx *x, size_t n);
int ox_parse(struct ox_ctx *x, const void *buf, size_t len);
void ox_free(struct ox_ctx *x);
Onnx__NodeProto *ox_node(const struct ox_ctx *x, int i);
struct ox_val *ox_find(const struct ox_ctx *x, const char *name);
struct ox_val *ox_in(struct ox_ctx *x, int node, unsigned int i);
struct ox_val *ox_out(struct ox_ctx *x, int node, unsigned int i);
int ox_const_from_tp(struct ox_ctx *x, const Onnx__TensorProto *tp,
		     struct ox_const *c, const char *what);
int64_t ox_ci64(const struct ox_const *c, uint64_t i);
double ox_cf(const struct ox_const *c, uint64_t i);
bool ox_is_int(int32_t elem);
const char *ox_elem_name(int32_t elem);
const Onnx__AttributeProto *ox_attr(const Onnx__NodeProto *n, const char *name);
int ox_attr_int(struct ox_ctx *x, int node, const char *name, int64_t def,
		int64_t *v);
int ox_attr_float(struct ox_ctx *x, int node, const char *name, float def,
		  float *v);
int ox_attr_ints(struct ox_ctx *x, int node, const char *name, int64_t *v,
		 unsigned int max, unsigned int *n);
int ox_attr_str(struct ox_ctx *x, int node, const char *name,
		const char *def, char *v, size_t len);
int ox_attrs_only(struct ox_ctx *x, int node, const char *const *known);

/* onnx_lower.c */
int ox_lower(struct ox_ctx *x);

/* onnx_emit.c */
int ox_new_tensor(struct ox_ctx *x, uint8_t dtype, uint8_t layout, int ndim,
		  const uint32_t *dims, int32_t zp, int kind);
int ox_const_tensor(struct ox_ctx *x, uint8_t dtype, int ndim,
		    const uint32_t *dims, const void *data, size_t bytes);
struct npu_prog_op *ox_new_op(struct ox_ctx *x, uint16_t opcode, int out);
void ox_use(struct ox_ctx *x, int tensor);
int ox_emit(struct ox_ctx *x, const char *name, uint8_t **file, size_t *size);

#endif /* NPU_ONNX_INT_H */
