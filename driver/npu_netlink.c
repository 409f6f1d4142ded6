// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_netlink.c - the generic netlink family "npu": device discovery
 * (NPU_CMD_DEV_GET), statistics (NPU_CMD_STATS_GET) and the multicast group
 * "events" (device add/remove, job error, job timeout, device reset, trace
 * overflow). uapi/linux/npu_netlink.h is the ABI,
 * Documentation/netlink/specs/npu.yaml its spec, Documentation/npu/
 * netlink.rst the contract.
 *
 * Requests are validated strictly by the genetlink core from the per-op
 * policies below (no GENL_DONT_VALIDATE_* flag); unknown commands fail
 * with -EOPNOTSUPP there. Nothing here changes state, so no command needs
 * a capability.
 *
 * Locking and lifetime: npu_nl_devs holds every bound device, by index,
 * from the end of probe (npu_nl_dev_add()) to the start of remove
 * (npu_nl_dev_del()). npu_nl_lock (a mutex) serializes changes to it and
 * is held by the handlers for as long as they use a device from it, so a
 * device they see cannot be removed under them (remove() waits). Order:
 * npu_nl_lock -> npu_dev.jobs_lock -> npu_trace_dev.lock; npu_nl_lock ->
 * npu_dev.mem_lock. The event
 * functions take none of these locks; they are called with jobs_lock or
 * the trace lock held.
 */

#include <linux/build_bug.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <linux/npu.h>
#include <linux/npu_netlink.h>

#include "npu_bo.h"
#include "npu_drv.h"
#include "npu_job.h"
#include "npu_netlink.h"
#include "npu_trace.h"

static DEFINE_MUTEX(npu_nl_lock);	/* npu_nl_devs and their use */
static DEFINE_XARRAY(npu_nl_devs);

static struct genl_family npu_nl_family;

enum npu_nl_mcgrp {
	NPU_NL_MCGRP_EVENTS,
};

static const struct genl_multicast_group npu_nl_mcgrps[] = {
	[NPU_NL_MCGRP_EVENTS] = { .name = NPU_GENL_MCGRP_EVENTS },
};

/*
 * Device indexes are ida ids: non-negative ints. Not const: 6.1's
 * nla_policy points to a non-const range (6.12's to a const one), and a
 * non-const object suits both without a version test.
 */
static struct netlink_range_validation npu_nl_index_range = {
	.min = 0,
	.max = S32_MAX,
};

static const struct nla_policy npu_nl_dev_get_policy[NPU_A_DEV_INDEX + 1] = {
	[NPU_A_DEV_INDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &npu_nl_index_range),
};

static const struct nla_policy
npu_nl_stats_get_policy[NPU_A_STATS_INDEX + 1] = {
	[NPU_A_STATS_INDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &npu_nl_index_range),
};

static u32 npu_nl_dev_state(struct npu_dev *ndev)
{
	if (npu_dev_unplugged(ndev))
		return NPU_DEV_STATE_REMOVED;
	if (npu_dev_dead(ndev))
		return NPU_DEV_STATE_DEAD;
	return NPU_DEV_STATE_ALIVE;
}

static int npu_nl_fill_dev(struct sk_buff *skb, struct npu_dev *ndev,
			   u32 state)
{
	const struct npu_hw_desc *hw = &ndev->hw;

	if (nla_put_u32(skb, NPU_A_DEV_INDEX, ndev->id) ||
	    nla_put_string(skb, NPU_A_DEV_NAME, ndev->name) ||
	    nla_put_string(skb, NPU_A_DEV_PCI_ADDR, pci_name(ndev->pdev)) ||
	    nla_put_u32(skb, NPU_A_DEV_HW_VERSION, hw->version) ||
	    nla_put_u32(skb, NPU_A_DEV_PE_COUNT, hw->pe_count) ||
	    nla_put_u32(skb, NPU_A_DEV_CLOCK_HZ, hw->clock_hz) ||
	    nla_put_u64_64bit(skb, NPU_A_DEV_DRAM_SIZE, hw->dram_size,
			      NPU_A_DEV_PAD) ||
	    nla_put_u32(skb, NPU_A_DEV_TRACE_LEVELS, hw->trace_levels) ||
	    nla_put_u32(skb, NPU_A_DEV_TRACE_MAX_PAGES,
			NPU_TRACE_MAX_DATA_PAGES) ||
	    nla_put_u32(skb, NPU_A_DEV_STATE, state))
		return -EMSGSIZE;
	return 0;
}

static int npu_nl_fill_pe(struct sk_buff *skb, struct npu_dev *ndev, u32 pe,
			  const struct npu_pe_stats *ps,
			  const struct npu_trace_stats *ts)
{
	struct nlattr *nest;
	u64 busy_ns = 0;

	if (ndev->hw.clock_hz)
		busy_ns = mul_u64_u32_div(ps->busy_ticks, NSEC_PER_SEC,
					  ndev->hw.clock_hz);
	nest = nla_nest_start(skb, NPU_A_STATS_PE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NPU_A_PE_STATS_INDEX, pe) ||
	    nla_put_u64_64bit(skb, NPU_A_PE_STATS_JOBS_COMPLETED,
			      ps->jobs_completed, NPU_A_PE_STATS_PAD) ||
	    nla_put_u64_64bit(skb, NPU_A_PE_STATS_JOBS_FAILED,
			      ps->jobs_failed, NPU_A_PE_STATS_PAD) ||
	    nla_put_u64_64bit(skb, NPU_A_PE_STATS_BUSY_NS, busy_ns,
			      NPU_A_PE_STATS_PAD) ||
	    nla_put_u64_64bit(skb, NPU_A_PE_STATS_DMA_BYTES,
			      ts->dma_bytes[pe], NPU_A_PE_STATS_PAD) ||
	    nla_put_u64_64bit(skb, NPU_A_PE_STATS_MACS, ts->macs[pe],
			      NPU_A_PE_STATS_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int npu_nl_put_u64(struct sk_buff *skb, int attr, u64 v)
{
	return nla_put_u64_64bit(skb, attr, v, NPU_A_STATS_PAD);
}

/* The device memory counters (npu_bo.c), read at one instant. */
static int npu_nl_fill_mem(struct sk_buff *skb, struct npu_dev *ndev)
{
	struct npu_mem_stats ms;

	npu_bo_get_stats(ndev, &ms);
	if (npu_nl_put_u64(skb, NPU_A_STATS_MEM_USED, ms.used) ||
	    npu_nl_put_u64(skb, NPU_A_STATS_MEM_PEAK, ms.peak) ||
	    npu_nl_put_u64(skb, NPU_A_STATS_MEM_ALLOCS, ms.allocs) ||
	    npu_nl_put_u64(skb, NPU_A_STATS_MEM_FREES, ms.frees) ||
	    npu_nl_put_u64(skb, NPU_A_STATS_MEM_FAIL_NOMEM, ms.fail_nomem) ||
	    npu_nl_put_u64(skb, NPU_A_STATS_MEM_FAIL_QUOTA, ms.fail_quota) ||
	    npu_nl_put_u64(skb, NPU_A_STATS_MEM_FREE, ms.free) ||
	    npu_nl_put_u64(skb, NPU_A_STATS_MEM_LARGEST_FREE,
			   ms.largest_free))
		return -EMSGSIZE;
	return 0;
}

static int npu_nl_fill_stats(struct sk_buff *skb, struct npu_dev *ndev)
{
	struct npu_pe_stats pe[NPU_HW_MAX_PES];
	struct npu_trace_stats ts;
	u32 i, npe = min_t(u32, ndev->hw.pe_count, NPU_HW_MAX_PES);
	u64 resets;

	mutex_lock(&ndev->jobs_lock);
	memcpy(pe, ndev->pe_stats, sizeof(pe));
	resets = ndev->resets;
	mutex_unlock(&ndev->jobs_lock);
	npu_trace_get_stats(ndev, &ts);

	if (nla_put_u32(skb, NPU_A_STATS_INDEX, ndev->id) ||
	    nla_put_u64_64bit(skb, NPU_A_STATS_RESETS, resets,
			      NPU_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, NPU_A_STATS_TRACE_RECORDS, ts.records,
			      NPU_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, NPU_A_STATS_TRACE_LOST, ts.lost,
			      NPU_A_STATS_PAD) ||
	    npu_nl_fill_mem(skb, ndev))
		return -EMSGSIZE;
	for (i = 0; i < npe; i++)
		if (npu_nl_fill_pe(skb, ndev, i, &pe[i], &ts))
			return -EMSGSIZE;
	return 0;
}

/* What a do and a dump of one command differ in. */
struct npu_nl_cmd {
	u8 cmd;
	int (*fill)(struct sk_buff *skb, struct npu_dev *ndev);
};

static int npu_nl_fill_dev_now(struct sk_buff *skb, struct npu_dev *ndev)
{
	return npu_nl_fill_dev(skb, ndev, npu_nl_dev_state(ndev));
}

static const struct npu_nl_cmd npu_nl_cmds[] = {
	{ NPU_CMD_DEV_GET, npu_nl_fill_dev_now },
	{ NPU_CMD_STATS_GET, npu_nl_fill_stats },
};

/* The genetlink core calls the handlers only for the commands of npu_nl_ops. */
static const struct npu_nl_cmd *npu_nl_cmd_of(u8 cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(npu_nl_cmds) - 1; i++)
		if (npu_nl_cmds[i].cmd == cmd)
			break;
	return &npu_nl_cmds[i];
}

/* One reply message for @ndev; npu_nl_lock held. */
static int npu_nl_put_one_locked(struct sk_buff *skb,
				 const struct npu_nl_cmd *c,
				 struct npu_dev *ndev, u32 portid, u32 seq,
				 int flags)
{
	void *hdr;

	lockdep_assert_held(&npu_nl_lock);
	hdr = genlmsg_put(skb, portid, seq, &npu_nl_family, flags, c->cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (c->fill(skb, ndev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The do of NPU_CMD_DEV_GET and NPU_CMD_STATS_GET: both key on attr 1. */
static_assert((int)NPU_A_DEV_INDEX == (int)NPU_A_STATS_INDEX);

static int npu_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct npu_nl_cmd *c = npu_nl_cmd_of(info->genlhdr->cmd);
	struct nlattr *attr = info->attrs[NPU_A_DEV_INDEX];
	struct npu_dev *ndev;
	struct sk_buff *msg;
	int ret;

	if (!attr) {
		NL_SET_ERR_MSG(info->extack, "device index required");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&npu_nl_lock);
	ndev = xa_load(&npu_nl_devs, nla_get_u32(attr));
	if (!ndev) {
		mutex_unlock(&npu_nl_lock);
		nlmsg_free(msg);
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no such device");
		return -ENODEV;
	}
	ret = npu_nl_put_one_locked(msg, c, ndev, info->snd_portid,
				    info->snd_seq, 0);
	mutex_unlock(&npu_nl_lock);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* The dumps: cb->args[0] is the next device index to report. */
static int npu_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct npu_nl_cmd *c =
		npu_nl_cmd_of(((struct genlmsghdr *)nlmsg_data(cb->nlh))->cmd);
	struct npu_dev *ndev;
	unsigned long index;
	int ret = 0;

	mutex_lock(&npu_nl_lock);
	xa_for_each_start(&npu_nl_devs, index, ndev, cb->args[0]) {
		ret = npu_nl_put_one_locked(skb, c, ndev,
					    NETLINK_CB(cb->skb).portid,
					    cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		cb->args[0] = index + 1;
	}
	mutex_unlock(&npu_nl_lock);
	/* A full skb with something in it: the core calls again. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

static const struct genl_ops npu_nl_ops[] = {
	{
		.cmd = NPU_CMD_DEV_GET,
		.doit = npu_nl_get_doit,
		.dumpit = npu_nl_get_dumpit,
		.policy = npu_nl_dev_get_policy,
		.maxattr = NPU_A_DEV_INDEX,
	},
	{
		.cmd = NPU_CMD_STATS_GET,
		.doit = npu_nl_get_doit,
		.dumpit = npu_nl_get_dumpit,
		.policy = npu_nl_stats_get_policy,
		.maxattr = NPU_A_STATS_INDEX,
	},
};

static struct genl_family npu_nl_family __ro_after_init = {
	.name = NPU_GENL_NAME,
	.version = NPU_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = npu_nl_ops,
	.n_ops = ARRAY_SIZE(npu_nl_ops),
	/* Every command is new: strict validation, no .validate flags. */
	.resv_start_op = NPU_CMD_STATS_GET + 1,
	.mcgrps = npu_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(npu_nl_mcgrps),
};

/* ------------------------------------------------------------------------
 * events
 */

static bool npu_nl_listening(void)
{
	return genl_has_listeners(&npu_nl_family, &init_net,
				  NPU_NL_MCGRP_EVENTS);
}

/* Start an event message; NULL when it cannot be allocated. */
static struct sk_buff *npu_nl_event_new(u8 cmd, gfp_t gfp, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, gfp);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &npu_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static void npu_nl_event_send(struct sk_buff *msg, void *hdr, int err,
			      gfp_t gfp)
{
	if (err) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&npu_nl_family, msg, 0, NPU_NL_MCGRP_EVENTS, gfp);
}

static void npu_nl_dev_event(struct npu_dev *ndev, u8 cmd, u32 state)
{
	struct sk_buff *msg;
	void *hdr;

	if (!npu_nl_listening())
		return;
	msg = npu_nl_event_new(cmd, GFP_KERNEL, &hdr);
	if (msg)
		npu_nl_event_send(msg, hdr, npu_nl_fill_dev(msg, ndev, state),
				  GFP_KERNEL);
}

/* An event of set "event" with the device index and time; @fill the rest. */
static struct sk_buff *npu_nl_event_start(struct npu_dev *ndev, u8 cmd,
					  gfp_t gfp, void **hdr)
{
	struct sk_buff *msg;

	if (!npu_nl_listening())
		return NULL;
	msg = npu_nl_event_new(cmd, gfp, hdr);
	if (!msg)
		return NULL;
	if (nla_put_u32(msg, NPU_A_EVENT_DEV_INDEX, ndev->id) ||
	    nla_put_u64_64bit(msg, NPU_A_EVENT_TIME_NS, ktime_get_ns(),
			      NPU_A_EVENT_PAD)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/**
 * npu_nl_job_event() - a job completed: events for errors and timeouts
 * @ndev: the device
 * @job: the job, its status set
 *
 * NPU_JOB_TIMEOUT sends NPU_CMD_JOB_TIMEOUT_NTF; any other failure except
 * NPU_JOB_ABORTED (the reset's own event covers those) sends
 * NPU_CMD_JOB_ERROR_NTF. Process context.
 */
void npu_nl_job_event(struct npu_dev *ndev, const struct npu_job *job)
{
	struct sk_buff *msg;
	void *hdr;
	u8 cmd;

	if (job->status == NPU_JOB_OK || job->status == NPU_JOB_ABORTED)
		return;
	cmd = job->status == NPU_JOB_TIMEOUT ? NPU_CMD_JOB_TIMEOUT_NTF :
					       NPU_CMD_JOB_ERROR_NTF;
	msg = npu_nl_event_start(ndev, cmd, GFP_KERNEL, &hdr);
	if (!msg)
		return;
	npu_nl_event_send(msg, hdr,
			  nla_put_u64_64bit(msg, NPU_A_EVENT_JOB_ID, job->id,
					    NPU_A_EVENT_PAD) ||
			  nla_put_u32(msg, NPU_A_EVENT_PE, job->pe) ||
			  nla_put_u32(msg, NPU_A_EVENT_STATUS, job->status) ||
			  nla_put_u32(msg, NPU_A_EVENT_PID, job->tgid),
			  GFP_KERNEL);
}

/**
 * npu_nl_reset_event() - the driver reset the device
 * @ndev: the device
 *
 * Process context.
 */
void npu_nl_reset_event(struct npu_dev *ndev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = npu_nl_event_start(ndev, NPU_CMD_DEV_RESET_NTF, GFP_KERNEL, &hdr);
	if (msg)
		npu_nl_event_send(msg, hdr, 0, GFP_KERNEL);
}

/**
 * npu_nl_trace_overflow_event() - a trace ring lost records
 * @ndev: the device
 * @ring_id: the ring
 * @lost: records the ring lost so far
 *
 * The caller rate-limits (npu_tring.c: one per ring per second). Any
 * context.
 */
void npu_nl_trace_overflow_event(struct npu_dev *ndev, u64 ring_id, u64 lost)
{
	struct sk_buff *msg;
	void *hdr;

	msg = npu_nl_event_start(ndev, NPU_CMD_TRACE_OVERFLOW_NTF, GFP_ATOMIC,
				 &hdr);
	if (!msg)
		return;
	npu_nl_event_send(msg, hdr,
			  nla_put_u64_64bit(msg, NPU_A_EVENT_RING_ID, ring_id,
					    NPU_A_EVENT_PAD) ||
			  nla_put_u64_64bit(msg, NPU_A_EVENT_LOST, lost,
					    NPU_A_EVENT_PAD),
			  GFP_ATOMIC);
}

/* ------------------------------------------------------------------------
 * the device list
 */

/**
 * npu_nl_dev_add() - a device is bound and usable: list it, announce it
 * @ndev: the device, at the end of probe
 *
 * A device that cannot be listed (no memory) works but is not reported.
 */
void npu_nl_dev_add(struct npu_dev *ndev)
{
	int ret;

	mutex_lock(&npu_nl_lock);
	ret = xa_insert(&npu_nl_devs, ndev->id, ndev, GFP_KERNEL);
	mutex_unlock(&npu_nl_lock);
	if (ret) {
		ndev_warn(ndev, "not listed in netlink: %d\n", ret);
		return;
	}
	npu_nl_dev_event(ndev, NPU_CMD_DEV_ADD_NTF, NPU_DEV_STATE_ALIVE);
}

/**
 * npu_nl_dev_del() - a device is being removed: unlist it, announce it
 * @ndev: the device, at the start of remove
 *
 * Waits for the handlers using it. Afterwards no request sees it.
 */
void npu_nl_dev_del(struct npu_dev *ndev)
{
	struct npu_dev *old;

	mutex_lock(&npu_nl_lock);
	old = xa_erase(&npu_nl_devs, ndev->id);
	mutex_unlock(&npu_nl_lock);
	if (old == ndev)
		npu_nl_dev_event(ndev, NPU_CMD_DEV_DEL_NTF,
				 NPU_DEV_STATE_REMOVED);
}

/**
 * npu_nl_init() - register the family, at module init
 *
 * Return: 0 or a negative errno.
 */
int npu_nl_init(void)
{
	return genl_register_family(&npu_nl_family);
}

/**
 * npu_nl_exit() - unregister the family, at module exit
 *
 * After the PCI driver is unregistered: the device list is empty.
 */
void npu_nl_exit(void)
{
	genl_unregister_family(&npu_nl_family);
	WARN_ON_ONCE(!xa_empty(&npu_nl_devs));
}
