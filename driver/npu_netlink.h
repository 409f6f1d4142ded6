/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_netlink.h - the generic netlink family "npu" (npu_netlink.c) as seen
 * by the rest of the driver: registration, the device list it answers
 * from, and the events of the multicast group "events".
 *
 * The event functions cost one genl_has_listeners() test when nobody
 * listens. Documentation/npu/netlink.rst is the contract with userspace.
 */
#ifndef _NPU_NETLINK_H
#define _NPU_NETLINK_H

#include <linux/types.h>

struct npu_dev;
struct npu_job;

int npu_nl_init(void);
void npu_nl_exit(void);

/* At the end of probe (device usable) and at the start of remove. */
void npu_nl_dev_add(struct npu_dev *ndev);
void npu_nl_dev_del(struct npu_dev *ndev);

/* Process context (npu_dev.jobs_lock may be held). */
void npu_nl_job_event(struct npu_dev *ndev, const struct npu_job *job);
void npu_nl_reset_event(struct npu_dev *ndev);

/* Any context (npu_trace_dev.lock held): allocates with GFP_ATOMIC. */
void npu_nl_trace_overflow_event(struct npu_dev *ndev, u64 ring_id,
				 u64 lost);

#endif /* _NPU_NETLINK_H */
