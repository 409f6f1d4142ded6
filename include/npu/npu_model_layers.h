/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * npu_model_layers.h - the layer table: for each operator of a program,
 * the source model's layer it comes from (its node name and op type), the
 * layer's input and output shapes and dtypes as the source model states
 * them, its MACs and its weight bytes.
 *
 * Documentation/npu/model.rst ("Layer table") is the normative
 * description; this header gives the same facts as code. The same bytes
 * travel in a model file (the section at layers_off) and in a trace file
 * (after the program of a MODEL item, Documentation/npu/trace-file.rst),
 * so that a trace names its layers without the model file. Writers:
 * npu-model-gen and the ONNX importer; readers: libnpu's loader and the
 * analysis library. Plain C11 and <stdint.h>, no libc calls beyond
 * snprintf() in the formatter. All values are little-endian.
 *
 * A table is a struct npu_layers_hdr, then n_layers struct npu_layer_desc
 * (one per program operator, in operator order; several operators may
 * carry the same layer name when one source node became several device
 * operators), then str_size bytes of NUL-terminated strings. A string is
 * named by its byte offset in that string area; offset 0 is "".
 */
#ifndef _NPU_MODEL_LAYERS_H
#define _NPU_MODEL_LAYERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NPU_LAYERS_MAGIC	0x52594c4e	/* "NLYR" */
#define NPU_LAYERS_VERSION	1
#define NPU_LAYERS_MAX_STR	(1u << 20)	/* bytes of strings */
#define NPU_LAYER_MAX_IN	3
#define NPU_LAYER_MAX_DIMS	4

/* dtypes of a layer's tensors, as the source model has them */
#define NPU_LAYER_DT_NONE	0
#define NPU_LAYER_DT_U8		1	/* = NPU_DT_U8 */
#define NPU_LAYER_DT_I8		2	/* = NPU_DT_I8 */
#define NPU_LAYER_DT_I32	3	/* = NPU_DT_I32 */
#define NPU_LAYER_DT_F32	4
#define NPU_LAYER_DT_MAX	4

/**
 * struct npu_layers_hdr - start of a layer table, 16 bytes
 * @magic: NPU_LAYERS_MAGIC
 * @version: NPU_LAYERS_VERSION
 * @hdr_size: sizeof(struct npu_layers_hdr)
 * @n_layers: descriptors that follow; equal to the program's n_ops
 * @str_size: bytes of the string area after the descriptors, 1..
 *	NPU_LAYERS_MAX_STR; its first and its last byte are NUL
 */
struct npu_layers_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t n_layers;
	uint32_t str_size;
};

/**
 * struct npu_layer_shape - one tensor of a layer, 20 bytes
 * @dtype: NPU_LAYER_DT_*; NONE only in an unused entry
 * @ndim: 0 (a scalar) to NPU_LAYER_MAX_DIMS
 * @rsvd: 0
 * @dims: the source model's dims (ONNX: NCHW); those from @ndim on are 0
 */
struct npu_layer_shape {
	uint8_t dtype;
	uint8_t ndim;
	uint16_t rsvd;
	uint32_t dims[NPU_LAYER_MAX_DIMS];
};

/**
 * struct npu_layer_desc - the layer of one program operator, 112 bytes
 * @name: string offset: the layer (ONNX: node) name; not ""
 * @op_type: string offset: the source op type, fused ones joined by '+'
 *	("QLinearConv+Clip", "Conv+Relu"); not ""
 * @macs: multiply-accumulates of the operator (program.rst, "Cost model")
 * @weight_bytes: bytes of its weights and bias
 * @n_in: used entries of @in, 0..NPU_LAYER_MAX_IN: the data inputs, then
 *	weights and bias, as the source node lists them
 * @n_out: used entries of @out, 0 or 1
 * @rsvd: 0
 * @in: the inputs; unused entries are all 0
 * @out: the output; all 0 when unused
 */
struct npu_layer_desc {
	uint32_t name;
	uint32_t op_type;
	uint64_t macs;
	uint64_t weight_bytes;
	uint8_t n_in;
	uint8_t n_out;
	uint8_t rsvd[6];
	struct npu_layer_shape in[NPU_LAYER_MAX_IN];
	struct npu_layer_shape out;
};

_Static_assert(sizeof(struct npu_layers_hdr) == 16, "npu_layers_hdr size");
_Static_assert(sizeof(struct npu_layer_shape) == 20, "npu_layer_shape size");
_Static_assert(sizeof(struct npu_layer_desc) == 112, "npu_layer_desc size");

/* bytes of a table of @n layers and @str_size bytes of strings */
static inline uint64_t npu_layers_size(uint32_t n, uint32_t str_size)
{
	return sizeof(struct npu_layers_hdr) +
	       (uint64_t)n * sizeof(struct npu_layer_desc) + str_size;
}

static inline const struct npu_layer_desc *
npu_layers_desc(const struct npu_layers_hdr *h, uint32_t i)
{
	return (const struct npu_layer_desc *)(h + 1) + i;
}

/* string at offset @off of a checked table */
static inline const char *npu_layers_str(const struct npu_layers_hdr *h,
					 uint32_t off)
{
	return (const char *)npu_layers_desc(h, h->n_layers) + off;
}

static inline const char *npu_layers_shape_check(const struct npu_layer_shape *s,
						 int used)
{
	unsigned int d;

	if (s->rsvd)
		return "reserved field set";
	if (!used) {
		for (d = 0; d < NPU_LAYER_MAX_DIMS; d++)
			if (s->dims[d])
				return "unused shape not zero";
		return s->dtype || s->ndim ? "unused shape not zero" : NULL;
	}
	if (!s->dtype || s->dtype > NPU_LAYER_DT_MAX)
		return "unknown dtype";
	if (s->ndim > NPU_LAYER_MAX_DIMS)
		return "ndim above 4";
	for (d = 0; d < NPU_LAYER_MAX_DIMS; d++)
		if (d >= s->ndim ? s->dims[d] != 0 : s->dims[d] == 0)
			return "bad dims";
	return NULL;
}

/**
 * npu_layers_check() - check a layer table
 * @buf: the table, 4-byte aligned
 * @len: bytes available at @buf (may exceed the table by padding)
 * @n_ops: operators of the program it describes
 * @layer: out: the index of the bad descriptor, or -1 (may be NULL)
 *
 * Return: NULL when the table is sound, else what is wrong, a static
 * string ("magic", "n_layers differs from the program's operators", ...).
 */
static inline const char *npu_layers_check(const void *buf, size_t len,
					   uint32_t n_ops, long *layer)
{
	const struct npu_layers_hdr *h = (const struct npu_layers_hdr *)buf;
	const char *str, *why;
	uint32_t i, j;

	if (layer)
		*layer = -1;
	if (len < sizeof(*h))
		return "shorter than its header";
	if (h->magic != NPU_LAYERS_MAGIC)
		return "bad magic";
	if (h->version != NPU_LAYERS_VERSION)
		return "unknown version";
	if (h->hdr_size != sizeof(*h))
		return "bad header size";
	if (h->n_layers != n_ops)
		return "n_layers differs from the program's operators";
	if (!h->str_size || h->str_size > NPU_LAYERS_MAX_STR)
		return "string area size out of range";
	if (npu_layers_size(h->n_layers, h->str_size) > len)
		return "larger than the bytes that hold it";
	str = npu_layers_str(h, 0);
	if (str[0] || str[h->str_size - 1])
		return "string area not NUL-delimited";
	for (i = 0; i < h->n_layers; i++) {
		const struct npu_layer_desc *d = npu_layers_desc(h, i);

		if (layer)
			*layer = i;
		if (!d->name || d->name >= h->str_size || !str[d->name] ||
		    !d->op_type || d->op_type >= h->str_size ||
		    !str[d->op_type])
			return "name or op type outside the strings or empty";
		if (d->n_in > NPU_LAYER_MAX_IN || d->n_out > 1)
			return "too many shapes";
		for (j = 0; j < sizeof(d->rsvd); j++)
			if (d->rsvd[j])
				return "reserved field set";
		for (j = 0; j < NPU_LAYER_MAX_IN; j++) {
			why = npu_layers_shape_check(&d->in[j], j < d->n_in);
			if (why)
				return why;
		}
		why = npu_layers_shape_check(&d->out, d->n_out);
		if (why)
			return why;
	}
	if (layer)
		*layer = -1;
	return NULL;
}

/* "u8", "i8", "i32", "f32"; "?" for anything else */
static inline const char *npu_layer_dtype_name(unsigned int dtype)
{
	static const char *const names[NPU_LAYER_DT_MAX + 1] = {
		"?", "u8", "i8", "i32", "f32",
	};

	return dtype <= NPU_LAYER_DT_MAX ? names[dtype] : "?";
}

/**
 * npu_layer_shapes_fmt() - format shapes the way every report prints them
 * @s: the shapes
 * @n: how many
 * @buf: out: "u8[1,3,224,224] i8[32,3,3,3] i32[32]" (a scalar is "u8[]"),
 *	"" for none; always NUL-terminated when @len > 0
 * @len: bytes of @buf
 *
 * Return: the length of the full string (as snprintf()).
 */
static inline int npu_layer_shapes_fmt(const struct npu_layer_shape *s,
				       unsigned int n, char *buf, size_t len)
{
	size_t pos = 0;
	unsigned int i, d;
	int w;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(buf + (pos < len ? pos : len),
			     pos < len ? len - pos : 0, "%s%s[", i ? " " : "",
			     npu_layer_dtype_name(s[i].dtype));
		pos += w > 0 ? (size_t)w : 0;
		for (d = 0; d < s[i].ndim && d < NPU_LAYER_MAX_DIMS; d++) {
			w = snprintf(buf + (pos < len ? pos : len),
				     pos < len ? len - pos : 0, "%s%u",
				     d ? "," : "", s[i].dims[d]);
			pos += w > 0 ? (size_t)w : 0;
		}
		w = snprintf(buf + (pos < len ? pos : len),
			     pos < len ? len - pos : 0, "]");
		pos += w > 0 ? (size_t)w : 0;
	}
	return (int)pos;
}

#endif /* _NPU_MODEL_LAYERS_H */
