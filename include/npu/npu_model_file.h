/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * npu_model_file.h - the on-disk NPU model format, version 1.
 *
 * Documentation/npu/model.rst is the normative description; this header
 * gives the same facts as code. It is shared by libnpu (the loader) and
 * npu-model-gen (the writer). All values are little-endian.
 *
 * A file is: struct npu_model_file_hdr at offset 0, then (in any order, each
 * 8-byte aligned, inside the file, not overlapping each other or the header)
 * the slot table, the I/O descriptor table, the program, the constant blob
 * (64-byte aligned) and, with NPU_MODEL_F_LAYERS, the layer table
 * (include/npu/npu_model_layers.h).
 *
 * At run time slot 0 holds the constant blob at offset 0 and the program at
 * prog_slot_offset; slot 0 is shared read-only by every inference. The other
 * slots are allocated per inference, zero-filled, with the sizes and kinds
 * of the slot table.
 */
#ifndef NPU_MODEL_FILE_H
#define NPU_MODEL_FILE_H

#include <linux/npu.h>	/* NPU_MAX_JOB_BUFS */
#include <linux/types.h>

#define NPU_MODEL_MAGIC		0x4c444d4e	/* "NMDL" */
#define NPU_MODEL_VERSION	1

/* a slot is one buffer of the job that runs the model */
#define NPU_MODEL_MAX_SLOTS	NPU_MAX_JOB_BUFS
#define NPU_MODEL_MAX_IO	8		/* inputs + outputs */
#define NPU_MODEL_MAX_FILE	(1ull << 30)	/* bytes of a model file */
#define NPU_MODEL_MAX_SLOT	(1ull << 30)	/* bytes of one slot */
#define NPU_MODEL_NAME_LEN	32

/* struct npu_model_file_hdr.flags */
#define NPU_MODEL_F_LAYERS	(1u << 0)	/* the file has a layer table */
#define NPU_MODEL_F_ALL		NPU_MODEL_F_LAYERS

/* struct npu_model_slot.kind */
#define NPU_MODEL_SLOT_CONST	1	/* slot 0 only: constants + program */
#define NPU_MODEL_SLOT_INPUT	2	/* written by the host before a run */
#define NPU_MODEL_SLOT_OUTPUT	3	/* read by the host after a run */
#define NPU_MODEL_SLOT_SCRATCH	4	/* intermediates, device only */

/**
 * struct npu_model_file_hdr - model file header, 128 bytes
 * @magic: NPU_MODEL_MAGIC
 * @version: NPU_MODEL_VERSION
 * @hdr_size: sizeof(struct npu_model_file_hdr)
 * @flags: NPU_MODEL_F_* bits; no other bit is set
 * @crc32: CRC-32 (IEEE 802.3, as zlib's crc32()) of the whole file computed
 *	with this field set to 0
 * @file_size: bytes of the file
 * @name: model name, NUL-terminated, printable ASCII
 * @n_slots: entries in the slot table, 2..NPU_MODEL_MAX_SLOTS
 * @slots_off: file offset of the slot table (struct npu_model_slot)
 * @n_inputs: input descriptors, >= 1
 * @n_outputs: output descriptors, >= 1; n_inputs + n_outputs <=
 *	NPU_MODEL_MAX_IO
 * @io_off: file offset of the descriptor table (struct npu_model_io),
 *	inputs first
 * @prog_slot_offset: where the program goes in slot 0: 64-byte aligned,
 *	>= @const_size
 * @prog_off: file offset of the program (struct npu_prog_hdr ...)
 * @prog_size: bytes of program
 * @const_off: file offset of the constant blob, 64-byte aligned
 * @const_size: bytes of the constant blob (may be 0)
 * @layers_off: with NPU_MODEL_F_LAYERS, file offset of the layer table
 *	(8-byte aligned), else 0
 * @layers_size: with NPU_MODEL_F_LAYERS, bytes of the layer table, exactly
 *	npu_layers_size(n_layers, str_size), else 0
 * @rsvd: 0
 */
struct npu_model_file_hdr {
	__u32 magic;
	__u16 version;
	__u16 hdr_size;
	__u32 flags;
	__u32 crc32;
	__u64 file_size;
	char name[NPU_MODEL_NAME_LEN];
	__u32 n_slots;
	__u32 slots_off;
	__u32 n_inputs;
	__u32 n_outputs;
	__u32 io_off;
	__u32 prog_slot_offset;
	__u64 prog_off;
	__u64 prog_size;
	__u64 const_off;
	__u64 const_size;
	__u32 layers_off;
	__u32 layers_size;
	__u32 rsvd[2];
};

/**
 * struct npu_model_slot - one buffer slot of the job
 * @kind: NPU_MODEL_SLOT_*; slot 0 is CONST, no other slot is
 * @flags: 0
 * @size: bytes the slot needs, 1..NPU_MODEL_MAX_SLOT; slot 0 must hold
 *	prog_slot_offset + prog_size
 */
struct npu_model_slot {
	__u32 kind;
	__u32 flags;
	__u64 size;
};

/**
 * struct npu_model_io - one model input or output, 64 bytes
 * @name: NUL-terminated
 * @tensor: index in the program's tensor table of the device tensor
 * @dtype: NPU_DT_U8 (v1)
 * @layout: device layout, NPU_LAYOUT_* (equal to the program tensor's)
 * @ndim: 1..4, equal to the program tensor's
 * @rsvd0: 0
 * @dims: logical dims (N, H, W, C for 4-D), equal to the program tensor's
 * @scale: real value = (q - @zero_point) * @scale; finite and > 0
 * @zero_point: equal to the program tensor's zero point
 * @rsvd: 0
 *
 * The host side of an input or output is always the plain row-major
 * (NHWC) array of @dims; libnpu converts to and from @layout. An input
 * tensor must live in an INPUT slot, an output tensor in an OUTPUT slot.
 */
struct npu_model_io {
	char name[16];
	__u32 tensor;
	__u8 dtype;
	__u8 layout;
	__u8 ndim;
	__u8 rsvd0;
	__u32 dims[4];
	float scale;
	__s32 zero_point;
	__u32 rsvd[4];
};

#endif /* NPU_MODEL_FILE_H */
