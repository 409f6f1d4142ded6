/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progbuild.h - tiny program builder for the reference tests.
 *
 * A program is laid out as: header at 0, tensor table at 32, operator table
 * right after it. Tests then poke at the emitted bytes to make them invalid.
 */
#ifndef PROGBUILD_H
#define PROGBUILD_H

#include <stdint.h>
#include <string.h>

#include "npu_hw.h"

#define PB_MAX_T	64
#define PB_MAX_O	32

struct pb {
	struct npu_prog_tensor t[PB_MAX_T];
	struct npu_prog_op o[PB_MAX_O];
	unsigned int nt, no;
};

static inline void pb_init(struct pb *p)
{
	memset(p, 0, sizeof(*p));
}

/* add a tensor; returns its index */
static inline uint16_t pb_tensor(struct pb *p, uint8_t dtype, uint8_t layout,
				 uint8_t buf, uint32_t offset, uint8_t ndim,
				 uint32_t d0, uint32_t d1, uint32_t d2,
				 uint32_t d3, int32_t zp)
{
	struct npu_prog_tensor *t = &p->t[p->nt];

	memset(t, 0, sizeof(*t));
	t->dtype = dtype;
	t->layout = layout;
	t->buf = buf;
	t->offset = offset;
	t->ndim = ndim;
	t->dims[0] = d0;
	t->dims[1] = d1;
	t->dims[2] = d2;
	t->dims[3] = d3;
	t->zero_point = zp;
	return (uint16_t)p->nt++;
}

/* add an operator; returns it for the caller to fill u */
static inline struct npu_prog_op *pb_op(struct pb *p, uint16_t opcode,
					uint16_t in0, uint16_t in1,
					uint16_t in2, uint16_t out,
					uint16_t rq, int32_t amin,
					int32_t amax)
{
	struct npu_prog_op *o = &p->o[p->no++];

	memset(o, 0, sizeof(*o));
	o->opcode = opcode;
	o->in[0] = in0;
	o->in[1] = in1;
	o->in[2] = in2;
	o->out = out;
	o->rq = rq;
	o->act_min = amin;
	o->act_max = amax;
	return o;
}

static inline void pb_conv(struct npu_prog_op *o, uint8_t kh, uint8_t kw,
			   uint8_t sh, uint8_t sw, uint8_t pt, uint8_t pl,
			   uint8_t pb_, uint8_t pr)
{
	o->u.conv.kh = kh;
	o->u.conv.kw = kw;
	o->u.conv.sh = sh;
	o->u.conv.sw = sw;
	o->u.conv.pt = pt;
	o->u.conv.pl = pl;
	o->u.conv.pb = pb_;
	o->u.conv.pr = pr;
	o->u.conv.dh = 1;
	o->u.conv.dw = 1;
}

/* bytes pb_emit() writes */
static inline size_t pb_size(const struct pb *p)
{
	return sizeof(struct npu_prog_hdr) +
	       p->nt * sizeof(struct npu_prog_tensor) +
	       p->no * sizeof(struct npu_prog_op);
}

/* write the program to dst (pb_size() bytes); returns its size */
static inline size_t pb_emit(const struct pb *p, void *dst)
{
	struct npu_prog_hdr h;
	uint8_t *d = dst;

	memset(&h, 0, sizeof(h));
	h.magic = NPU_PROG_MAGIC;
	h.version = NPU_PROG_VERSION;
	h.hdr_size = sizeof(h);
	h.n_tensors = p->nt;
	h.n_ops = p->no;
	h.tensors_off = sizeof(h);
	h.ops_off = sizeof(h) + p->nt * sizeof(struct npu_prog_tensor);
	h.size = (uint32_t)pb_size(p);
	memcpy(d, &h, sizeof(h));
	memcpy(d + h.tensors_off, p->t, p->nt * sizeof(struct npu_prog_tensor));
	memcpy(d + h.ops_off, p->o, p->no * sizeof(struct npu_prog_op));
	return h.size;
}

/* little-endian int32 store for rq tables and bias */
static inline void pb_put32(void *dst, unsigned int i, int32_t v)
{
	uint8_t *d = (uint8_t *)dst + 4 * i;
	uint32_t u = (uint32_t)v;

	d[0] = u & 0xff;
	d[1] = (u >> 8) & 0xff;
	d[2] = (u >> 16) & 0xff;
	d[3] = (u >> 24) & 0xff;
}

#endif /* PROGBUILD_H */
