/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progbuild.h - tiny program builder for the reference tests, on top of
 * tools/include/npu_prog_build.h (the builder every component shares).
 *
 * A program is laid out as: header at 0, tensor table at 32, operator table
 * right after it. Tests then poke at the emitted bytes to make them invalid.
 */
#ifndef PROGBUILD_H
#define PROGBUILD_H

#include <stdint.h>
#include <string.h>

#include "npu/npu_program.h"
#include "npu_prog_build.h"

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
	const uint32_t dims[4] = { d0, d1, d2, d3 };

	npb_tensor(&p->t[p->nt], dtype, layout, buf, offset, ndim, dims, zp);
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

	npb_op(o, opcode, in0, in1, in2, out, rq, amin, amax);
	return o;
}

static inline void pb_conv(struct npu_prog_op *o, uint8_t kh, uint8_t kw,
			   uint8_t sh, uint8_t sw, uint8_t pt, uint8_t pl,
			   uint8_t pb_, uint8_t pr)
{
	npb_conv(o, kh, kw, sh, sw, pt, pl, pb_, pr);
}

/* bytes pb_emit() writes */
static inline size_t pb_size(const struct pb *p)
{
	return npb_size(p->nt, p->no);
}

/* write the program to dst (pb_size() bytes); returns its size */
static inline size_t pb_emit(const struct pb *p, void *dst)
{
	return npb_write(dst, p->t, p->nt, p->o, p->no);
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
