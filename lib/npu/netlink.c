// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * netlink.c - libnpu's client of the generic netlink family "npu"
 * (uapi/linux/npu_netlink.h, Documentation/npu/netlink.rst) over
 * libnl-genl-3: device discovery, statistics and event subscription.
 *
 * A struct npu_nl owns two netlink sockets: one for requests, answered
 * synchronously (the reply, then the ack or the error with its extended
 * ack), and one, created by npu_nl_subscribe(), that joins the "events"
 * group and is read without blocking, so that events never interleave
 * with replies. A handle is not thread-safe: one thread at a time.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "libnpu.h"

#define NPU_NL_EVQ	32	/* events parsed ahead, a power of two */

struct npu_nl {
	struct nl_sock *sk;		/* requests */
	struct nl_sock *ev_sk;		/* events, after npu_nl_subscribe() */
	int family;
	/* the request in progress */
	int err;
	bool done;
	/* the replies: each one filled into items[n] while n < max */
	int (*fill)(struct nlmsghdr *nlh, void *item);
	void *items;
	size_t size;
	unsigned int max, n;
	int parse_err;
	char extack[128];
	/* parsed events not yet read */
	struct npu_nl_event evq[NPU_NL_EVQ];
	unsigned int ev_head, ev_tail;
};

/* A libnl error as a negative errno. */
static int npu_nl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0:
		return 0;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_INTR:
		return -EINTR;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_PERM:
		return -EPERM;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

/* A reply: into the next item, counted also when there is no room. */
static int npu_nl_on_valid(struct nl_msg *msg, void *arg)
{
	struct npu_nl *nl = arg;
	char *item;
	int ret;

	if (!nl->fill || nl->parse_err)
		return NL_OK;
	item = nl->n < nl->max ? (char *)nl->items + nl->n * nl->size : NULL;
	ret = item ? nl->fill(nlmsg_hdr(msg), item) : 0;
	if (ret)
		nl->parse_err = ret;
	else
		nl->n++;
	return NL_OK;
}

static int npu_nl_on_done(struct nl_msg *msg, void *arg)
{
	(void)msg;
	((struct npu_nl *)arg)->done = true;
	return NL_STOP;
}

/* The kernel's error and the text of its extended ack, if any. */
static int npu_nl_on_error(struct sockaddr_nl *who, struct nlmsgerr *e,
			   void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct npu_nl *nl = arg;
	struct nlattr *a;
	size_t off;
	int rem;

	(void)who;
	nl->err = e->error;
	nl->done = true;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	if (off >= nlh->nlmsg_len)
		return NL_STOP;
	rem = (int)(nlh->nlmsg_len - off);
	for (a = (struct nlattr *)((char *)nlh + off); nla_ok(a, rem);
	     a = nla_next(a, &rem))
		if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0)
			snprintf(nl->extack, sizeof(nl->extack), "%.*s",
				 nla_len(a), (const char *)nla_data(a));
	return NL_STOP;
}

static struct nl_sock *npu_nl_socket(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1;

	if (!sk)
		return NULL;
	if (genl_connect(sk)) {
		nl_socket_free(sk);
		return NULL;
	}
	/* Ask for the kernel's error messages (extended acks). */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	return sk;
}

int npu_nl_open(struct npu_nl **out)
{
	struct npu_nl *nl;

	*out = NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sk = npu_nl_socket();
	if (!nl->sk) {
		free(nl);
		return -ECONNREFUSED;
	}
	nl->family = genl_ctrl_resolve(nl->sk, NPU_GENL_NAME);
	if (nl->family < 0) {
		nl_socket_free(nl->sk);
		free(nl);
		return -ENOENT;
	}
	nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM,
			    npu_nl_on_valid, nl);
	nl_socket_modify_cb(nl->sk, NL_CB_FINISH, NL_CB_CUSTOM,
			    npu_nl_on_done, nl);
	nl_socket_modify_cb(nl->sk, NL_CB_ACK, NL_CB_CUSTOM,
			    npu_nl_on_done, nl);
	nl_socket_modify_err_cb(nl->sk, NL_CB_CUSTOM, npu_nl_on_error, nl);
	*out = nl;
	return 0;
}

void npu_nl_close(struct npu_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->ev_sk);
	nl_socket_free(nl->sk);
	free(nl);
}

const char *npu_nl_extack(const struct npu_nl *nl)
{
	return nl->extack;
}

/*
 * Send a request for @cmd (a dump without @index, else a do of @index) and
 * fill each reply into @items (@max of @size bytes) with @fill. Returns
 * the number of replies, the kernel's -errno or @fill's.
 */
static int npu_nl_request(struct npu_nl *nl, uint8_t cmd, bool dump,
			  uint32_t index,
			  int (*fill)(struct nlmsghdr *, void *),
			  void *items, size_t size, unsigned int max)
{
	struct nl_msg *msg = nlmsg_alloc();
	int ret;

	if (!msg)
		return -ENOMEM;
	/* dev-get and stats-get key on attribute 1 alike */
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, NPU_GENL_VERSION) ||
	    (!dump && nla_put_u32(msg, NPU_A_DEV_INDEX, index))) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl->err = 0;
	nl->done = false;
	nl->fill = fill;
	nl->items = items;
	nl->size = size;
	nl->max = max;
	nl->n = 0;
	nl->parse_err = 0;
	nl->extack[0] = '\0';
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return npu_nl_errno(ret);
	while (!nl->done) {
		ret = nl_recvmsgs_default(nl->sk);
		if (ret < 0 && !nl->done)
			return npu_nl_errno(ret);
	}
	nl->fill = NULL;
	if (nl->err || nl->parse_err)
		return nl->err ? nl->err : nl->parse_err;
	return (int)nl->n;
}

/* A reply's attributes of set @maxattr into @tb. */
static int npu_nl_attrs(struct nlmsghdr *nlh, struct nlattr **tb, int maxattr)
{
	return genlmsg_parse(nlh, 0, tb, maxattr, NULL) ? -EPROTO : 0;
}

static uint32_t npu_nl_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

static uint64_t npu_nl_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static void npu_nl_str(char *dst, size_t len, struct nlattr *a)
{
	snprintf(dst, len, "%s", a ? nla_get_string(a) : "");
}

static int npu_nl_fill_dev(struct nlmsghdr *nlh, void *item)
{
	struct npu_nl_dev *d = item;
	struct nlattr *tb[NPU_A_DEV_MAX + 1];

	if (npu_nl_attrs(nlh, tb, NPU_A_DEV_MAX) || !tb[NPU_A_DEV_INDEX])
		return -EPROTO;
	memset(d, 0, sizeof(*d));
	d->index = npu_nl_u32(tb[NPU_A_DEV_INDEX]);
	npu_nl_str(d->name, sizeof(d->name), tb[NPU_A_DEV_NAME]);
	npu_nl_str(d->pci_addr, sizeof(d->pci_addr), tb[NPU_A_DEV_PCI_ADDR]);
	d->hw_version = npu_nl_u32(tb[NPU_A_DEV_HW_VERSION]);
	d->pe_count = npu_nl_u32(tb[NPU_A_DEV_PE_COUNT]);
	d->clock_hz = npu_nl_u32(tb[NPU_A_DEV_CLOCK_HZ]);
	d->dram_size = npu_nl_u64(tb[NPU_A_DEV_DRAM_SIZE]);
	d->trace_levels = npu_nl_u32(tb[NPU_A_DEV_TRACE_LEVELS]);
	d->trace_max_pages = npu_nl_u32(tb[NPU_A_DEV_TRACE_MAX_PAGES]);
	d->state = npu_nl_u32(tb[NPU_A_DEV_STATE]);
	return 0;
}

int npu_nl_dev_list(struct npu_nl *nl, struct npu_nl_dev *devs,
		    unsigned int max)
{
	return npu_nl_request(nl, NPU_CMD_DEV_GET, true, 0, npu_nl_fill_dev,
			      devs, sizeof(*devs), max);
}

int npu_nl_dev_get(struct npu_nl *nl, uint32_t index, struct npu_nl_dev *dev)
{
	int ret = npu_nl_request(nl, NPU_CMD_DEV_GET, false, index,
				 npu_nl_fill_dev, dev, sizeof(*dev), 1);

	return ret == 1 ? 0 : ret < 0 ? ret : -EPROTO;
}

/* One NPU_A_STATS_PE nest into @st->pe[], in PE order. */
static int npu_nl_fill_pe(struct nlattr *nest, struct npu_nl_stats *st)
{
	struct nlattr *tb[NPU_A_PE_STATS_MAX + 1];
	struct npu_nl_pe_stats *p;

	if (nla_parse_nested(tb, NPU_A_PE_STATS_MAX, nest, NULL) ||
	    !tb[NPU_A_PE_STATS_INDEX] ||
	    nla_get_u32(tb[NPU_A_PE_STATS_INDEX]) != st->pe_count ||
	    st->pe_count >= NPU_NL_MAX_PES)
		return -EPROTO;
	p = &st->pe[st->pe_count++];
	p->jobs_completed = npu_nl_u64(tb[NPU_A_PE_STATS_JOBS_COMPLETED]);
	p->jobs_failed = npu_nl_u64(tb[NPU_A_PE_STATS_JOBS_FAILED]);
	p->busy_ns = npu_nl_u64(tb[NPU_A_PE_STATS_BUSY_NS]);
	p->dma_bytes = npu_nl_u64(tb[NPU_A_PE_STATS_DMA_BYTES]);
	p->macs = npu_nl_u64(tb[NPU_A_PE_STATS_MACS]);
	return 0;
}

static int npu_nl_fill_stats(struct nlmsghdr *nlh, void *item)
{
	struct nlattr *tb[NPU_A_STATS_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct npu_nl_stats *st = item;
	struct nlattr *a;
	int rem;

	/* The PE nests repeat: walked one by one, not through @tb. */
	if (npu_nl_attrs(nlh, tb, NPU_A_STATS_MAX) || !tb[NPU_A_STATS_INDEX])
		return -EPROTO;
	memset(st, 0, sizeof(*st));
	st->index = nla_get_u32(tb[NPU_A_STATS_INDEX]);
	st->resets = npu_nl_u64(tb[NPU_A_STATS_RESETS]);
	st->trace_records = npu_nl_u64(tb[NPU_A_STATS_TRACE_RECORDS]);
	st->trace_lost = npu_nl_u64(tb[NPU_A_STATS_TRACE_LOST]);
	st->has_mem = tb[NPU_A_STATS_MEM_USED] != NULL;
	st->mem.used = npu_nl_u64(tb[NPU_A_STATS_MEM_USED]);
	st->mem.peak = npu_nl_u64(tb[NPU_A_STATS_MEM_PEAK]);
	st->mem.allocs = npu_nl_u64(tb[NPU_A_STATS_MEM_ALLOCS]);
	st->mem.frees = npu_nl_u64(tb[NPU_A_STATS_MEM_FREES]);
	st->mem.fail_nomem = npu_nl_u64(tb[NPU_A_STATS_MEM_FAIL_NOMEM]);
	st->mem.fail_quota = npu_nl_u64(tb[NPU_A_STATS_MEM_FAIL_QUOTA]);
	st->mem.free = npu_nl_u64(tb[NPU_A_STATS_MEM_FREE]);
	st->mem.largest_free = npu_nl_u64(tb[NPU_A_STATS_MEM_LARGEST_FREE]);
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		if (nla_type(a) == NPU_A_STATS_PE && npu_nl_fill_pe(a, st))
			return -EPROTO;
	}
	return 0;
}

int npu_nl_stats_get(struct npu_nl *nl, uint32_t index,
		     struct npu_nl_stats *st)
{
	int ret = npu_nl_request(nl, NPU_CMD_STATS_GET, false, index,
				 npu_nl_fill_stats, st, sizeof(*st), 1);

	return ret == 1 ? 0 : ret < 0 ? ret : -EPROTO;
}

int npu_nl_stats_list(struct npu_nl *nl, struct npu_nl_stats *st,
		      unsigned int max)
{
	return npu_nl_request(nl, NPU_CMD_STATS_GET, true, 0,
			      npu_nl_fill_stats, st, sizeof(*st), max);
}

/* ---- events ------------------------------------------------------------ */

static int npu_nl_fill_event(struct nlmsghdr *nlh, struct npu_nl_event *ev)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *tb[NPU_A_EVENT_MAX + 1];

	memset(ev, 0, sizeof(*ev));
	ev->type = g->cmd;
	if (g->cmd == NPU_CMD_DEV_ADD_NTF || g->cmd == NPU_CMD_DEV_DEL_NTF) {
		if (npu_nl_fill_dev(nlh, &ev->dev))
			return -EPROTO;
		ev->dev_index = ev->dev.index;
		return 0;
	}
	if (g->cmd < NPU_CMD_JOB_ERROR_NTF || g->cmd > NPU_CMD_MAX ||
	    npu_nl_attrs(nlh, tb, NPU_A_EVENT_MAX))
		return -EPROTO;
	ev->dev_index = npu_nl_u32(tb[NPU_A_EVENT_DEV_INDEX]);
	ev->time_ns = npu_nl_u64(tb[NPU_A_EVENT_TIME_NS]);
	ev->job_id = npu_nl_u64(tb[NPU_A_EVENT_JOB_ID]);
	ev->pe = npu_nl_u32(tb[NPU_A_EVENT_PE]);
	ev->status = npu_nl_u32(tb[NPU_A_EVENT_STATUS]);
	ev->pid = npu_nl_u32(tb[NPU_A_EVENT_PID]);
	ev->ring_id = npu_nl_u64(tb[NPU_A_EVENT_RING_ID]);
	ev->lost = npu_nl_u64(tb[NPU_A_EVENT_LOST]);
	return 0;
}

static int npu_nl_on_event(struct nl_msg *msg, void *arg)
{
	struct npu_nl *nl = arg;
	struct npu_nl_event ev;

	/* Unknown notifications of a newer driver are skipped. */
	if (npu_nl_fill_event(nlmsg_hdr(msg), &ev))
		return NL_OK;
	if (nl->ev_tail - nl->ev_head < NPU_NL_EVQ)
		nl->evq[nl->ev_tail++ % NPU_NL_EVQ] = ev;
	return NL_OK;
}

int npu_nl_subscribe(struct npu_nl *nl)
{
	int grp, ret;

	if (nl->ev_sk)
		return 0;
	nl->ev_sk = npu_nl_socket();
	if (!nl->ev_sk)
		return -ECONNREFUSED;
	grp = genl_ctrl_resolve_grp(nl->ev_sk, NPU_GENL_NAME,
				    NPU_GENL_MCGRP_EVENTS);
	ret = grp < 0 ? -ENOENT : 0;
	if (!ret) {
		nl_socket_disable_seq_check(nl->ev_sk);
		nl_socket_modify_cb(nl->ev_sk, NL_CB_VALID, NL_CB_CUSTOM,
				    npu_nl_on_event, nl);
		ret = npu_nl_errno(nl_socket_add_membership(nl->ev_sk, grp));
	}
	if (!ret)
		ret = npu_nl_errno(nl_socket_set_nonblocking(nl->ev_sk));
	if (ret) {
		nl_socket_free(nl->ev_sk);
		nl->ev_sk = NULL;
	}
	return ret;
}

int npu_nl_event_fd(const struct npu_nl *nl)
{
	return nl->ev_sk ? nl_socket_get_fd(nl->ev_sk) : -EINVAL;
}

int npu_nl_event_read(struct npu_nl *nl, struct npu_nl_event *ev)
{
	int ret;

	if (!nl->ev_sk)
		return -EINVAL;
	while (nl->ev_head == nl->ev_tail) {
		ret = nl_recvmsgs_default(nl->ev_sk);
		if (ret < 0)
			/* ENOBUFS: the socket overflowed, events were lost */
			return ret == -NLE_NOMEM ? -ENOBUFS : npu_nl_errno(ret);
	}
	*ev = nl->evq[nl->ev_head++ % NPU_NL_EVQ];
	return 0;
}
