/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * layers_gen.h - the layer table (include/npu/npu_model_layers.h) of the
 * synthetic model "tiny" of memory_gen.h, as a MODEL item carries it
 * after the program, and damaged copies of it for the tests of the
 * reader. Header-only, no state.
 *
 *   op  layer         op_type           in_shapes                      out_shapes    macs  weights
 *   0   conv1/Conv    QLinearConv+Clip  u8[1,3,8,8] i8[4,3,3,3] i32[4] u8[1,4,6,6]   3888  124
 *   1   fc/Gemm       Gemm              u8[1,144] i8[10,144]           u8[1,10]      1440  1440
 */
#ifndef LAYERS_GEN_H
#define LAYERS_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npu/npu_model_layers.h"

#define LAY_NAME0	"conv1/Conv"
#define LAY_TYPE0	"QLinearConv+Clip"
#define LAY_IN0		"u8[1,3,8,8] i8[4,3,3,3] i32[4]"
#define LAY_OUT0	"u8[1,4,6,6]"
#define LAY_MACS0	3888u
#define LAY_WB0		124u
#define LAY_NAME1	"fc/Gemm"
#define LAY_TYPE1	"Gemm"
#define LAY_IN1		"u8[1,144] i8[10,144]"
#define LAY_OUT1	"u8[1,10]"
#define LAY_MACS1	1440u
#define LAY_WB1		1440u

/* The strings: "" at 0, then the names and op types */
#define LAY_STRS	"\0" LAY_NAME0 "\0" LAY_TYPE0 "\0" LAY_NAME1 "\0" \
			LAY_TYPE1 "\0"
#define LAY_STR_SIZE	(sizeof(LAY_STRS) - 1)	/* the last NUL is ours */
#define LAY_N		2
#define LAY_SIZE	(sizeof(struct npu_layers_hdr) + \
			 LAY_N * sizeof(struct npu_layer_desc) + LAY_STR_SIZE)

/* A table: its header, descriptors and strings (LAY_SIZE bytes) */
struct lay_table {
	struct npu_layers_hdr h;
	struct npu_layer_desc d[LAY_N];
	char str[LAY_STR_SIZE];
} __attribute__((packed, aligned(8)));

static inline void lay_shape(struct npu_layer_shape *s, uint8_t dtype,
			     uint8_t ndim, uint32_t d0, uint32_t d1,
			     uint32_t d2, uint32_t d3)
{
	memset(s, 0, sizeof(*s));
	s->dtype = dtype;
	s->ndim = ndim;
	s->dims[0] = d0;
	s->dims[1] = d1;
	s->dims[2] = d2;
	s->dims[3] = d3;
}

/* The table above into *@t (LAY_SIZE bytes) */
static inline void lay_gen_table(struct lay_table *t)
{
	static const char strs[] = LAY_STRS;

	memset(t, 0, sizeof(*t));
	t->h.magic = NPU_LAYERS_MAGIC;
	t->h.version = NPU_LAYERS_VERSION;
	t->h.hdr_size = sizeof(t->h);
	t->h.n_layers = LAY_N;
	t->h.str_size = LAY_STR_SIZE;
	memcpy(t->str, strs, LAY_STR_SIZE);
	t->d[0].name = 1;
	t->d[0].op_type = 1 + sizeof(LAY_NAME0);
	t->d[0].macs = LAY_MACS0;
	t->d[0].weight_bytes = LAY_WB0;
	t->d[0].n_in = 3;
	t->d[0].n_out = 1;
	lay_shape(&t->d[0].in[0], NPU_LAYER_DT_U8, 4, 1, 3, 8, 8);
	lay_shape(&t->d[0].in[1], NPU_LAYER_DT_I8, 4, 4, 3, 3, 3);
	lay_shape(&t->d[0].in[2], NPU_LAYER_DT_I32, 1, 4, 0, 0, 0);
	lay_shape(&t->d[0].out, NPU_LAYER_DT_U8, 4, 1, 4, 6, 6);
	t->d[1].name = t->d[0].op_type + sizeof(LAY_TYPE0);
	t->d[1].op_type = t->d[1].name + sizeof(LAY_NAME1);
	t->d[1].macs = LAY_MACS1;
	t->d[1].weight_bytes = LAY_WB1;
	t->d[1].n_in = 2;
	t->d[1].n_out = 1;
	lay_shape(&t->d[1].in[0], NPU_LAYER_DT_U8, 2, 1, 144, 0, 0);
	lay_shape(&t->d[1].in[1], NPU_LAYER_DT_I8, 2, 10, 144, 0, 0);
	lay_shape(&t->d[1].out, NPU_LAYER_DT_U8, 2, 1, 10, 0, 0);
}

_Static_assert(offsetof(struct lay_table, str) + LAY_STR_SIZE == LAY_SIZE,
	       "lay_table: no padding before the strings");

#endif /* LAYERS_GEN_H */
