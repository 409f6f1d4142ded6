// SPDX-License-Identifier: GPL-2.0-only
/*
 * program_stub.c - TEMPORARY stand-in for program.c/ops*.c (owned by the
 * operator engineer), used until those exist and link, or with
 * NPU_EMU_USE_STUB=1. Delete this file once the real interpreter is in.
 *
 * It checks the program header and the tensor and operator tables loosely,
 * executes NPU_OP_CLIP on PLAIN u8 tensors for real (with its cost per
 * program.rst), and runs every other operator as a no-op of zero cost.
 */
#include <string.h>

#include "program.h"

static uint64_t elems(const struct npu_prog_tensor *t)
{
	uint64_t n = 1;
	unsigned int i;

	for (i = 0; i < t->ndim && i < 4; i++)
		n *= t->dims[i];
	return n;
}

static int tensor_ok(const struct npu_prog_slot *slots, uint32_t nslots,
		     const struct npu_prog_tensor *t)
{
	if (t->buf >= nslots || !t->ndim || t->ndim > 4)
		return 0;
	return (uint64_t)t->offset + elems(t) <= slots[t->buf].size;
}

int npu_prog_run(const struct npu_prog_slot *slots, uint32_t nslots,
		 uint32_t prog_slot, uint32_t prog_offset, uint32_t prog_size,
		 const struct npu_prog_hooks *hooks, uint16_t *op_index)
{
	static __thread struct npu_prog_tensor tens[NPU_PROG_MAX_TENSORS];
	static __thread struct npu_prog_op ops[NPU_PROG_MAX_OPS];
	const struct npu_prog_tensor *ti = NULL, *to = NULL;
	struct npu_op_cost cost;
	struct npu_prog_hdr hdr;
	const uint8_t *p;
	uint64_t n = 0, k;
	uint32_t i;

	*op_index = 0xffff;
	if (!nslots || nslots > NPU_HW_MAX_BUFS || prog_slot >= nslots)
		return NPU_HW_STATUS_BAD_PROGRAM;
	if ((uint64_t)prog_offset + prog_size > slots[prog_slot].size ||
	    prog_size < sizeof(hdr))
		return NPU_HW_STATUS_BAD_PROGRAM;
	p = slots[prog_slot].base + prog_offset;
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.magic != NPU_PROG_MAGIC || hdr.version != NPU_PROG_VERSION ||
	    hdr.hdr_size != sizeof(hdr) || hdr.size > prog_size ||
	    hdr.n_ops > NPU_PROG_MAX_OPS ||
	    hdr.n_tensors > NPU_PROG_MAX_TENSORS ||
	    (uint64_t)hdr.ops_off + (uint64_t)hdr.n_ops * sizeof(ops[0]) > hdr.size ||
	    (uint64_t)hdr.tensors_off + (uint64_t)hdr.n_tensors * sizeof(tens[0]) >
	    hdr.size)
		return NPU_HW_STATUS_BAD_PROGRAM;
	memcpy(tens, p + hdr.tensors_off, hdr.n_tensors * sizeof(tens[0]));
	memcpy(ops, p + hdr.ops_off, hdr.n_ops * sizeof(ops[0]));
	for (i = 0; i < hdr.n_tensors; i++)
		if (!tensor_ok(slots, nslots, &tens[i]))
			return NPU_HW_STATUS_BAD_ADDRESS;
	for (i = 0; i < hdr.n_ops; i++) {
		*op_index = (uint16_t)i;
		if (!ops[i].opcode || ops[i].opcode > NPU_OP_MAX)
			return NPU_HW_STATUS_BAD_OPCODE;
		if (ops[i].opcode == NPU_OP_CLIP &&
		    (ops[i].in[0] >= hdr.n_tensors || ops[i].out >= hdr.n_tensors ||
		     elems(&tens[ops[i].in[0]]) != elems(&tens[ops[i].out])))
			return NPU_HW_STATUS_BAD_SHAPE;
	}
	*op_index = 0xffff;
	for (i = 0; i < hdr.n_ops; i++) {
		memset(&cost, 0, sizeof(cost));
		if (ops[i].opcode == NPU_OP_CLIP) {
			ti = &tens[ops[i].in[0]];
			to = &tens[ops[i].out];
			n = elems(to);
			cost.macs = n;
			cost.in_bytes = n;
			cost.out_bytes = n;
		}
		if (hooks && hooks->op_begin &&
		    hooks->op_begin(hooks->arg, i, &ops[i], &cost)) {
			*op_index = (uint16_t)i;
			return NPU_HW_STATUS_ABORTED;
		}
		if (ops[i].opcode == NPU_OP_CLIP) {
			const uint8_t *x = slots[ti->buf].base + ti->offset;
			uint8_t *y = slots[to->buf].base + to->offset;

			for (k = 0; k < n; k++) {
				int32_t v = to->zero_point + x[k] - ti->zero_point;

				v = v < 0 ? 0 : v > 255 ? 255 : v;
				v = v < ops[i].act_min ? ops[i].act_min : v;
				v = v > ops[i].act_max ? ops[i].act_max : v;
				y[k] = (uint8_t)v;
			}
		}
		if (hooks && hooks->op_end)
			hooks->op_end(hooks->arg, i, &ops[i], &cost);
	}
	return NPU_HW_STATUS_OK;
}
