/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memuse.h - what a model's program uses against what its job holds
 * (memuse.c; Documentation/npu/memory.rst, "Used and allocated"): the
 * models a trace file describes (its MODEL items,
 * Documentation/npu/trace-file.rst) and, for every operator of a model's
 * program, the bytes of its inputs, of its output, of the tensors live
 * while it runs (*used*) and of the job's buffer slots (*allocated*), as
 * RAF's memory profiler tells max_used from max_allocated.
 *
 * Internal to libnpuprof-analysis. A struct npf_model is immutable once
 * parsed: any number of threads may read it. The models of an open trace
 * belong to the trace (trace.h: npf_trace_model()) and live until
 * npuprof_trace_close().
 */
#ifndef NPF_MEMUSE_H
#define NPF_MEMUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One model of a trace: its id, name, slot plan and program. Opaque. */
struct npf_model;

/**
 * struct npf_op_mem - memory of one operator of a program
 * @in_bytes: bytes of its input tensors (in[0..2], the requantization
 *	table included), each counted once
 * @out_bytes: bytes of its output tensor
 * @live_bytes: *used*: bytes of every tensor live while the operator runs
 *	(its inputs and output included), each counted once
 * @alloc_bytes: *allocated*: bytes of the job's buffer slots the program
 *	refers to (the same for every operator of a model)
 */
struct npf_op_mem {
	uint64_t in_bytes;
	uint64_t out_bytes;
	uint64_t live_bytes;
	uint64_t alloc_bytes;
};

/**
 * struct npf_model_mem - memory of a whole program
 * @n_ops: operators of the program
 * @n_tensors: tensors of its tensor table
 * @peak_used: the largest @live_bytes of its operators
 * @peak_op: the first operator where it is reached
 * @alloc_bytes: bytes of the slots the program refers to
 * @const_bytes: bytes of the tensors in slot 0 (constants), live for the
 *	whole job
 * @tensor_bytes: bytes of all its tensors, each counted once
 */
struct npf_model_mem {
	uint32_t n_ops;
	uint32_t n_tensors;
	uint64_t peak_used;
	uint32_t peak_op;
	uint64_t alloc_bytes;
	uint64_t const_bytes;
	uint64_t tensor_bytes;
};

/*
 * npf_model_parse() - parse and check the body of a MODEL item (@len
 * bytes after its struct npf_item header) into *@m. Everything is
 * checked: the sizes, the name, the slot table, the program's header and
 * tables, every tensor's slot and size, every operator's tensor indices.
 * On error, @err receives what was wrong (without the file's name). The
 * layer table that may follow the program (at sizeof(struct
 * npf_item_model) + prog_size rounded up to 8; none when the body ends
 * there or only zero bytes follow) is checked with npu_layers_check() for the program's n_ops: a
 * bad one is dropped alone, npf_model_layers_error() tells why, and the
 * model is still parsed.
 * Return: 0; -EBADMSG for a damaged item; -ENOMEM.
 */
int npf_model_parse(const void *body, size_t len, struct npf_model **m,
		    char *err, size_t errlen);
void npf_model_free(struct npf_model *m);

/* Its id (nonzero, as the SUBMIT spans of its jobs carry it), process, name */
uint32_t npf_model_id(const struct npf_model *m);
int32_t npf_model_pid(const struct npf_model *m);
const char *npf_model_name(const struct npf_model *m);

/* The operators of its program */
uint32_t npf_model_nops(const struct npf_model *m);

/* The opcode (NPU_OP_*) of operator @op, 0 when out of range */
uint16_t npf_model_opcode(const struct npf_model *m, uint32_t op);

/*
 * npf_model_op_mem() - memory of operator @op (the op_index of its OP
 * records). Return: 0; -ENOENT when @op is not an operator of the
 * program.
 */
int npf_model_op_mem(const struct npf_model *m, uint32_t op,
		     struct npf_op_mem *out);

/**
 * struct npf_tensor_mem - one tensor of a program and its lifetime
 * @slot: its buffer slot
 * @offset: its byte offset in the slot
 * @bytes: its size (npu_prog_tensor_bytes())
 * @first_op: the first operator it is live at (0: from the job's start)
 * @last_op: the last one (the last operator: to the job's end); both -1
 *	when no operator reads or writes it (never live)
 */
struct npf_tensor_mem {
	uint32_t slot;
	uint32_t offset;
	uint64_t bytes;
	int32_t first_op;
	int32_t last_op;
};

/*
 * npf_model_tensor() - tensor @i of the program (@i below
 * npf_model_mem()'s n_tensors): the tensors live at an operator are
 * those with first_op <= op <= last_op. Return: 0; -ENOENT for an @i out
 * of range.
 */
int npf_model_tensor(const struct npf_model *m, uint32_t i,
		     struct npf_tensor_mem *out);

/* npf_model_mem() - memory of the whole program. Return: 0. */
int npf_model_mem(const struct npf_model *m, struct npf_model_mem *out);

/**
 * struct npf_layer - the source layer of one operator (npu_model_layers.h)
 * @name: the layer (ONNX node) name; "" when the model has no table
 * @op_type: the source op type ("QLinearConv+Clip"); "" without
 * @in_shapes: its inputs, npu_layer_shapes_fmt() ("u8[1,3,224,224]
 *	i8[32,3,3,3] i32[32]"); "" without
 * @out_shapes: its output, likewise
 * @macs: the table's MACs of the operator; 0 without
 * @weight_bytes: the bytes of its weights and bias; 0 without
 *
 * The strings belong to the model (they live as long as it does).
 */
struct npf_layer {
	const char *name;
	const char *op_type;
	const char *in_shapes;
	const char *out_shapes;
	uint64_t macs;
	uint64_t weight_bytes;
};

/* Does @m (may be NULL) have a sound layer table? */
bool npf_model_has_layers(const struct npf_model *m);

/*
 * npf_model_layer() - the layer of operator @op of @m into *@out: empty
 * strings and zeros when @m is NULL, has no table or @op is out of range
 */
void npf_model_layer(const struct npf_model *m, uint32_t op,
		     struct npf_layer *out);

/*
 * npf_model_layers_error() - why the layer table of @m was dropped ("bad
 * magic", "layer 3: unknown dtype": npu_layers_check()'s reason), or ""
 * when it had none or a sound one
 */
const char *npf_model_layers_error(const struct npf_model *m);

/* ------------------------------------------------------------------ */
/* The models of an open trace (trace.c)                                */
/* ------------------------------------------------------------------ */

struct npuprof_trace;

/*
 * The reader keeps the model of every sound MODEL item its stream has
 * passed (a session writes a model's item before the SUBMIT span of any
 * of its jobs), by id; a damaged one is skipped and counted, the rest of
 * the file reads on. npf_trace_load_models() reads them all at once.
 */

/* The model of id @id read so far, or NULL */
const struct npf_model *npf_trace_model(const struct npuprof_trace *t,
					uint32_t id);

/* The models read so far, in file order: @i below npf_trace_nmodels() */
size_t npf_trace_nmodels(const struct npuprof_trace *t);
const struct npf_model *npf_trace_model_at(const struct npuprof_trace *t,
					   size_t i);

/*
 * MODEL items skipped as damaged so far; *@msg (if not NULL) receives the
 * last one's message, "PATH: offset N: model: what was wrong", or "".
 */
uint64_t npf_trace_models_bad(const struct npuprof_trace *t,
			      const char **msg);

/*
 * Layer tables dropped so far (the models kept without them); *@msg (if
 * not NULL) receives the last one's message, "PATH: offset N: model M:
 * layer table: why" (M the model id), or "".
 */
uint64_t npf_trace_layers_bad(const struct npuprof_trace *t,
			      const char **msg);

/*
 * npf_trace_load_models() - read every MODEL item of the file now (one
 * pass over its items, records not parsed), then rewind the trace
 * (npuprof_trace_rewind()). Return: the number of models, or -errno of
 * reading (-EBADMSG: a corrupt chunk; the models before it are kept).
 */
int npf_trace_load_models(struct npuprof_trace *t);

#endif /* NPF_MEMUSE_H */
