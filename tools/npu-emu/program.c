// SPDX-License-Identifier: GPL-2.0-only
/*
 * program.c - validate and execute one NPU program (program format v1).
 *
 * The header and both tables are copied out of the slot first; everything
 * below works on the copies, so a host rewriting the program while the job
 * runs cannot steer the device outside its slots. Every check of
 * Documentation/npu/program.rst ("Validation order") is made before the
 * first operator runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "program.h"

/* a program's outcome is the job's completion status, value for value */
_Static_assert(NPU_PROG_OK == NPU_HW_STATUS_OK &&
	       NPU_PROG_BAD_OPCODE == NPU_HW_STATUS_BAD_OPCODE &&
	       NPU_PROG_BAD_ADDRESS == NPU_HW_STATUS_BAD_ADDRESS &&
	       NPU_PROG_MISALIGNED == NPU_HW_STATUS_MISALIGNED &&
	       NPU_PROG_BAD_SHAPE == NPU_HW_STATUS_BAD_SHAPE &&
	       NPU_PROG_BAD_PROGRAM == NPU_HW_STATUS_BAD_PROGRAM &&
	       NPU_PROG_NO_OP_INDEX == NPU_HW_NO_OP_INDEX,
	       "program statuses are completion statuses");

/* Check 3a of program.rst: the tensor's own fields. */
static int tensor_fields_ok(const struct npu_prog_tensor *pt)
{
	unsigned int i;
	int32_t lo, hi;

	switch (pt->dtype) {
	case NPU_DT_U8:
		lo = 0;
		hi = 255;
		break;
	case NPU_DT_I8:
		lo = -128;
		hi = 127;
		break;
	case NPU_DT_I32:
		lo = 0;
		hi = 0;
		break;
	default:
		return 0;
	}
	if (pt->ndim < 1 || pt->ndim > 4 || pt->rsvd)
		return 0;
	if (pt->zero_point < lo || pt->zero_point > hi)
		return 0;
	if (pt->layout == NPU_LAYOUT_NCHWC16) {
		if (pt->ndim != 4 || pt->dtype == NPU_DT_I32)
			return 0;
	} else if (pt->layout != NPU_LAYOUT_PLAIN) {
		return 0;
	}
	for (i = 0; i < 4; i++) {
		if (i < pt->ndim ? pt->dims[i] < 1 : pt->dims[i] != 1)
			return 0;
	}
	return 1;
}

/* a * b, or UINT64_MAX when it does not fit */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return UINT64_MAX;
	return r;
}

/* Checks 3a-3c for one tensor; fills @t on success. */
static int tensor_resolve(const struct npu_prog_tensor *pt,
			  const struct emu_prog_slot *slots, uint32_t nslots,
			  struct emu_tensor *t)
{
	const uint32_t *d = pt->dims;
	uint64_t count, bytes, cb;

	if (!tensor_fields_ok(pt))
		return NPU_HW_STATUS_BAD_PROGRAM;

	memset(t, 0, sizeof(*t));
	t->dtype = pt->dtype;
	t->ndim = pt->ndim;
	t->layout = pt->layout;
	t->esize = pt->dtype == NPU_DT_I32 ? 4 : 1;
	t->zp = pt->zero_point;
	memcpy(t->dims, pt->dims, sizeof(t->dims));

	/* each dim < 2^32: the products below saturate instead of wrapping */
	count = mul_sat(mul_sat((uint64_t)d[0] * d[1], d[2]), d[3]);
	if (pt->layout == NPU_LAYOUT_NCHWC16) {
		cb = ((uint64_t)d[3] + 15) / 16;
		bytes = mul_sat(mul_sat((uint64_t)d[0] * cb, d[1]),
				mul_sat((uint64_t)d[2], 16));
	} else {
		bytes = mul_sat(count, t->esize);
	}
	t->count = count;
	t->bytes = bytes;

	if (pt->buf >= nslots || !slots[pt->buf].base)
		return NPU_HW_STATUS_BAD_ADDRESS;
	if (bytes > slots[pt->buf].size ||
	    pt->offset > slots[pt->buf].size - bytes)
		return NPU_HW_STATUS_BAD_ADDRESS;
	if (pt->offset % t->esize)
		return NPU_HW_STATUS_MISALIGNED;
	t->data = slots[pt->buf].base + pt->offset;
	return NPU_HW_STATUS_OK;
}

/* Check 2: the header, against the program's size in its slot. */
static int header_ok(const struct npu_prog_hdr *h, uint32_t prog_size)
{
	uint64_t end;

	if (h->magic != NPU_PROG_MAGIC || h->version != NPU_PROG_VERSION ||
	    h->hdr_size != sizeof(*h) || h->rsvd)
		return 0;
	/* the header is part of the program: hdr_size <= size <= prog_size */
	if (h->size < h->hdr_size || h->size > prog_size)
		return 0;
	if (h->n_tensors > NPU_PROG_MAX_TENSORS || h->n_ops > NPU_PROG_MAX_OPS)
		return 0;
	if (h->tensors_off % 8 || h->ops_off % 8)
		return 0;
	end = (uint64_t)h->tensors_off +
	      (uint64_t)h->n_tensors * sizeof(struct npu_prog_tensor);
	if (end > h->size)
		return 0;
	end = (uint64_t)h->ops_off +
	      (uint64_t)h->n_ops * sizeof(struct npu_prog_op);
	if (end > h->size)
		return 0;
	return 1;
}

struct prog_copy {
	struct npu_prog_hdr hdr;
	struct npu_prog_tensor *ptens;
	struct npu_prog_op *ops;
	struct emu_tensor *tens;
	struct emu_op_cost *costs;
};

static void prog_copy_free(struct prog_copy *c)
{
	free(c->ptens);
	free(c->ops);
	free(c->tens);
	free(c->costs);
}

/* allocation of at least one byte, so that empty tables are not NULL */
static void *alloc_n(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

int emu_prog_run(const struct emu_prog_slot *slots, uint32_t nslots,
		 uint32_t prog_slot, uint32_t prog_offset, uint32_t prog_size,
		 const struct emu_prog_hooks *hooks, uint16_t *op_index)
{
	struct prog_copy c = { 0 };
	const uint8_t *prog;
	uint16_t dummy;
	uint32_t i;
	int st;

	if (!op_index)
		op_index = &dummy;
	*op_index = NPU_HW_NO_OP_INDEX;

	if (!slots || nslots < 1 || nslots > NPU_HW_MAX_BUFS ||
	    prog_slot >= nslots)
		return NPU_HW_STATUS_BAD_CMD;
	/* 1: the program lies inside its slot */
	if (!slots[prog_slot].base || prog_size > slots[prog_slot].size ||
	    prog_offset > slots[prog_slot].size - prog_size)
		return NPU_HW_STATUS_BAD_ADDRESS;
	if (prog_size < sizeof(c.hdr))
		return NPU_HW_STATUS_BAD_PROGRAM;
	prog = slots[prog_slot].base + prog_offset;

	/* 2: header, then copy the tables out */
	memcpy(&c.hdr, prog, sizeof(c.hdr));
	if (!header_ok(&c.hdr, prog_size))
		return NPU_HW_STATUS_BAD_PROGRAM;

	c.ptens = alloc_n(c.hdr.n_tensors, sizeof(*c.ptens));
	c.ops = alloc_n(c.hdr.n_ops, sizeof(*c.ops));
	c.tens = alloc_n(c.hdr.n_tensors, sizeof(*c.tens));
	c.costs = alloc_n(c.hdr.n_ops, sizeof(*c.costs));
	if (!c.ptens || !c.ops || !c.tens || !c.costs) {
		prog_copy_free(&c);
		return NPU_HW_STATUS_ABORTED;
	}
	memcpy(c.ptens, prog + c.hdr.tensors_off,
	       (size_t)c.hdr.n_tensors * sizeof(*c.ptens));
	memcpy(c.ops, prog + c.hdr.ops_off,
	       (size_t)c.hdr.n_ops * sizeof(*c.ops));

	/* 3: every tensor, in table order */
	for (i = 0; i < c.hdr.n_tensors; i++) {
		st = tensor_resolve(&c.ptens[i], slots, nslots, &c.tens[i]);
		if (st != NPU_HW_STATUS_OK)
			goto out;
	}

	/* 4: every operator, in table order */
	for (i = 0; i < c.hdr.n_ops; i++) {
		st = emu_op_check(&c.ops[i], c.tens, c.hdr.n_tensors,
				  &c.costs[i]);
		if (st != NPU_HW_STATUS_OK) {
			*op_index = (uint16_t)i;
			goto out;
		}
	}

	/* run */
	st = NPU_HW_STATUS_OK;
	for (i = 0; i < c.hdr.n_ops; i++) {
		if (hooks && hooks->op_begin &&
		    hooks->op_begin(hooks->arg, i, &c.ops[i], &c.costs[i])) {
			*op_index = (uint16_t)i;
			st = NPU_HW_STATUS_ABORTED;
			goto out;
		}
		if (emu_op_run(&c.ops[i], c.tens) < 0) {
			/* no memory for an overlapping output's scratch */
			*op_index = (uint16_t)i;
			st = NPU_HW_STATUS_ABORTED;
			goto out;
		}
		if (hooks && hooks->op_end)
			hooks->op_end(hooks->arg, i, &c.ops[i], &c.costs[i]);
	}
out:
	prog_copy_free(&c);
	return st;
}
