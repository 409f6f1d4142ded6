/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * onnxvec.h - ONNX test vectors and compiled models for the ONNX ground-
 * truth tests: the node-vector sweep and the round trip on the host
 * (selftests/host/onnx-models), the device runner in the VM
 * (selftests/onnx).
 *
 * It reads TensorProto files (test_data_set_0/input_K.pb, output_K.pb) and
 * a model's graph inputs and outputs with the protobuf-c code generated
 * from libonnx-dev's onnx.proto; it matches the inputs and outputs of a
 * model file that tools/npu-onnx compiled to the ONNX graph's by name (a
 * "plan", kept next to the model as io.txt); it turns a TensorProto into
 * the uint8 host array of a model input (QuantizeLinear at the edge: float
 * values quantized with npu_quantize(); uint8 values as they are) and
 * checks a model output against one bit for bit (uint8 byte for byte;
 * float as ONNX's DequantizeLinear, (q - zero_point) * scale in float32);
 * and it runs a model on the host reference (lib/npuref).
 *
 * Locking: none; every function works on its arguments only. Lifetime:
 * what a function returns through a pointer is malloc()ed and the caller's
 * (freed by the matching *_free()).
 */
#ifndef ONNXVEC_H
#define ONNXVEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libnpu.h"

#define OV_MAX_IO	8	/* a model file's inputs + outputs */
#define OV_MAX_DIMS	8

/**
 * struct ov_tensor - a TensorProto's values
 * @type: ONNX__TENSOR_PROTO__DATA_TYPE__* (UINT8, INT8, INT32, INT64 or
 *	FLOAT)
 * @ndim: dims used
 * @dims: the dims
 * @count: elements
 * @esize: bytes per element
 * @data: @count elements, little-endian as in raw_data
 */
struct ov_tensor {
	int type;
	unsigned int ndim;
	int64_t dims[OV_MAX_DIMS];
	size_t count;
	size_t esize;
	void *data;
};

/**
 * struct ov_graph - names of a model's graph inputs (initializers left
 * out) and outputs, in order: input K is test_data_set_0/input_K.pb
 * @n_in: inputs
 * @n_out: outputs
 * @in: their names
 * @out: their names
 * @in_tensor: input i is a tensor (not a sequence, map or optional), so
 *	its input_K.pb is a TensorProto
 */
struct ov_graph {
	unsigned int n_in, n_out;
	char **in, **out;
	bool *in_tensor;
};

/**
 * struct ov_plan - the ONNX tensor of each model file input and output
 * @n_in: model inputs
 * @n_out: model outputs
 * @in: graph input index of model input i (input_K.pb)
 * @out: graph output index of model output j (output_K.pb)
 */
struct ov_plan {
	unsigned int n_in, n_out;
	unsigned int in[OV_MAX_IO], out[OV_MAX_IO];
};

/* read a whole file; 0 or -errno (-EFBIG above 1 GiB) */
int ov_slurp(const char *path, uint8_t **buf, size_t *len);

/* write a whole file (atomically, through PATH.tmp); 0 or -errno */
int ov_write(const char *path, const void *buf, size_t len);

/*
 * A serialized TensorProto into @t; -EINVAL (message in @err) for a file
 * that is not one or a type this file cannot hold.
 */
int ov_tensor_parse(const void *buf, size_t len, struct ov_tensor *t,
		    char *err, size_t errlen);
/* as ov_tensor_parse(), from a file; -errno of reading it */
int ov_tensor_load(const char *path, struct ov_tensor *t, char *err,
		   size_t errlen);
void ov_tensor_free(struct ov_tensor *t);

/* the graph's input and output names; -EINVAL when @buf is no model */
int ov_graph_io(const void *buf, size_t len, struct ov_graph *g);
void ov_graph_free(struct ov_graph *g);

/*
 * Match the model file's inputs and outputs to @g's by name (a model file
 * name has 15 characters: a longer ONNX name matches on its first 15).
 * -ENOENT (message in @err) when one has no match.
 */
int ov_plan_make(const struct npu_model *m, const struct ov_graph *g,
		 struct ov_plan *p, char *err, size_t errlen);
/* @dir/io.txt: "in I K" and "out J K" lines; 0 or -errno, -EINVAL */
int ov_plan_write(const char *dir, const struct ov_plan *p);
int ov_plan_read(const char *dir, struct ov_plan *p, char *err,
		 size_t errlen);

/*
 * The host array (d->count uint8 values) of model input @d from @t: float
 * quantized with @d's scale and zero point, uint8 copied. -EINVAL (message
 * in @err) when the count or type does not fit.
 */
int ov_input_u8(const struct npu_tensor_desc *d, const struct ov_tensor *t,
		uint8_t *q, char *err, size_t errlen);

/*
 * Check model output @d's host array @q against @expect bit for bit.
 * Return: 0 when equal; 1 when an element differs (the first one, its
 * index and both values in @err); -EINVAL when count or type do not fit.
 */
int ov_output_check(const struct npu_tensor_desc *d, const uint8_t *q,
		    const struct ov_tensor *expect, char *err, size_t errlen);

/*
 * Inputs of vector directory @dir (test_data_set_0/ or a kept copy: the
 * files input_K.pb) for @m under @p: @in[i] is a malloc()ed host array of
 * model input i. Outputs are checked by ov_plan_check().
 */
int ov_plan_inputs(const struct npu_model *m, const struct ov_plan *p,
		   const char *dir, uint8_t **in, char *err, size_t errlen);
int ov_plan_check(const struct npu_model *m, const struct ov_plan *p,
		  const char *dir, uint8_t *const *out, char *err,
		  size_t errlen);
void ov_bufs_free(uint8_t **b, unsigned int n);

/*
 * Run @m on lib/npuref: lower the host arrays @in[i] (uint8, the count of
 * model input i) into a job's slots, run the program, unlower each output
 * into a malloc()ed @out[j]. 0; -EIO (status in @err) when the program
 * fails; -ENOMEM.
 */
int ov_ref_run(const struct npu_model *m, uint8_t *const *in, uint8_t **out,
	       char *err, size_t errlen);

/*
 * Run @argv[0] with @argv (NULL-terminated), stdout to /dev/null, stderr
 * into @err (NUL-terminated, cut to @errlen). Returns its exit status,
 * 128 + N when signal N killed it (as a shell says it), -1 when it could
 * not be run.
 */
int ov_exec(const char *const *argv, char *err, size_t errlen);

/* @n PRNG bytes (xorshift64) of input @seed: the round trip's inputs */
void ov_prng_u8(uint8_t *x, size_t n, uint64_t seed);

/* NHWC @in of dims @d (N, H, W, C) -> NCHW @out */
void ov_nhwc_to_nchw(const uint8_t *in, uint8_t *out, const uint32_t *d);

#endif /* ONNXVEC_H */
