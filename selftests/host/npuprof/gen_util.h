/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gen_util.h - the writers the synthetic traces of the host tests share
 * (report_gen.h, memory_gen.h, test_memuse.c): a DEVICE item and a
 * program's 1-D tensor. Header-only, no state.
 */
#ifndef GEN_UTIL_H
#define GEN_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/npu.h>
#include "npu/npu_program.h"
#include "trace_format.h"
#include "writer.h"

/* A DEVICE item: device @dev is /dev/npu@minor, @pes PEs, @hz, @dram bytes */
static inline void gen_util_device(struct npf_writer *w, uint32_t dev,
				   uint32_t minor, uint32_t pes, uint64_t hz,
				   uint64_t dram)
{
	struct npf_item_device d;
	struct npu_info info;

	memset(&d, 0, sizeof(d));
	memset(&info, 0, sizeof(info));
	d.dev = dev;
	d.info_size = sizeof(info);
	snprintf(d.path, sizeof(d.path), "/dev/npu%u", minor);
	info.version = NPU_INFO_VERSION;
	info.pe_count = pes;
	info.clock_hz = hz;
	info.dram_size = dram;
	info.minor = minor;
	if (npf_writer_add(w, NPF_ITEM_DEVICE, &d, sizeof(d), &info,
			   sizeof(info)))
		abort();
}

/* A tensor of @n elements of @dtype (1-D: dims 1, 1, 1, @n) at @off of slot @buf */
static inline void gen_util_tensor(struct npu_prog_tensor *t, uint8_t dtype,
				   uint8_t buf, uint32_t off, uint32_t n)
{
	memset(t, 0, sizeof(*t));
	t->dtype = dtype;
	t->ndim = 1;
	t->buf = buf;
	t->offset = off;
	t->dims[0] = t->dims[1] = t->dims[2] = 1;
	t->dims[3] = n;
}

#endif /* GEN_UTIL_H */
