/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * onnx_import.h - compile an int8 ONNX model into an NPU model file
 * (Documentation/npu/onnx.rst, model.rst, program.rst).
 *
 * The importer is every C file of tools/npu-onnx but main.c; other
 * programs (tests, the fuzzer) compile them in by listing them, with the
 * protobuf-c code generated from libonnx-dev's onnx.proto, and link libnpu
 * (npu_quantize_multiplier(), npu_crc32(), npu_model_load_mem()).
 *
 * No global state: every call works on memory of its own, so concurrent
 * calls from several threads are safe. Nothing is kept between calls.
 */
#ifndef NPU_ONNX_IMPORT_H
#define NPU_ONNX_IMPORT_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct onnx_bind - a value for a graph input
 * @name: the graph input's name
 * @pb: a serialized onnx.TensorProto
 * @len: bytes of @pb
 *
 * The importer uses a bound value where it needs a constant (weights,
 * scales, zero points, shapes, pads, ...); a bound graph input that a node
 * uses as data stays a model input.
 */
struct onnx_bind {
	const char *name;
	const void *pb;
	size_t len;
};

/**
 * struct onnx_import_opts - options of onnx_import()
 * @name: model name; NULL: the graph's name, else "model" (the CLI passes
 *	the file's stem when the graph has no name). Characters outside
 *	printable ASCII become '_'; the name is cut to 31 characters.
 * @binds: values of graph inputs, or NULL
 * @n_binds: entries of @binds
 */
struct onnx_import_opts {
	const char *name;
	const struct onnx_bind *binds;
	unsigned int n_binds;
};

/**
 * onnx_import() - compile an ONNX model into an NPU model file image
 * @buf: the serialized onnx.ModelProto
 * @len: bytes of @buf
 * @opts: options, or NULL for the defaults
 * @file: out: the model file image, malloc()ed (the caller frees it)
 * @size: out: bytes of @file
 * @err: out: a one-line message when the call fails ("" on success)
 * @errlen: bytes of @err (may be 0)
 *
 * The image passed libnpu's npu_model_load_mem() before it is returned.
 *
 * Return: 0; -EINVAL for a malformed ONNX file (@err says what and where);
 * -EOPNOTSUPP for a model the NPU cannot run (@err is "node 'NAME'
 * (OpType): why"); -E2BIG when the model exceeds a limit of the program or
 * model format; -ENOMEM.
 */
int onnx_import(const void *buf, size_t len, const struct onnx_import_opts *opts,
		uint8_t **file, size_t *size, char *err, size_t errlen);

/**
 * onnx_graph_name() - the name of the graph of a serialized ModelProto
 * @buf: the serialized onnx.ModelProto
 * @len: bytes of @buf
 * @name: out: the graph's name, "" when it has none
 * @namelen: bytes of @name
 *
 * Return: 0, -EINVAL when @buf is not a ModelProto with a graph.
 */
int onnx_graph_name(const void *buf, size_t len, char *name, size_t namelen);

#endif /* NPU_ONNX_IMPORT_H */
