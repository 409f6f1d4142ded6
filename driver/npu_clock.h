/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_clock.h - bracketed samples of the device clock against a host clock
 * (npu_clock.c).
 */
#ifndef _NPU_CLOCK_H
#define _NPU_CLOCK_H

#include <linux/time.h>
#include <linux/types.h>

struct npu_dev;
struct npu_clock_pair;

int npu_clock_sample(struct npu_dev *ndev, clockid_t clockid, u32 count,
		     struct npu_clock_pair *samples, u32 *best);

#endif /* _NPU_CLOCK_H */
