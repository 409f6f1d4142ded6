// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_netlink - the generic netlink family "npu" (driver/npu_netlink.c),
 * through libnl-genl-3 as a client would use it:
 *  - NPU_CMD_DEV_GET, dump and do, against NPU_IOCTL_GET_INFO and sysfs;
 *  - NPU_CMD_STATS_GET against the jobs this test runs and the device's
 *    own EXEC trace records (completed, failed, busy ns, DMA bytes, MACs,
 *    trace records);
 *  - strict policies: malformed, out-of-range and unknown attributes, a
 *    missing key, an unknown device and an unknown command, each with its
 *    errno and extended-ack message;
 *  - the "events" group: job error, job timeout with the device reset, and
 *    trace overflow.
 *
 * The timeout test needs a stalled PE (run with npu-vm --stall-pe 1, which
 * sets NPU_EMU_STALL_PE; selftests/npu/Makefile does) and is skipped
 * without one. It lowers job_timeout_ms and restores it.
 */

#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#include <linux/npu_netlink.h>

#define JOB_BYTES	4096
#define TIMEOUT_PARAM	"/sys/module/npu/parameters/job_timeout_ms"

/* ---- a small synchronous libnl client ----------------------------------- */

struct nlc {
	struct nl_sock *sk;
	int family;
	/* the last request's outcome */
	int err;			/* 0 or -errno from the kernel */
	char extack[256];		/* NLMSGERR_ATTR_MSG, "" if none */
	bool done;
	/* replies are handed to this */
	void (*on_msg)(struct nlattr **tb, void *arg);
	void *arg;
	int maxattr;
};

static int nlc_valid(struct nl_msg *msg, void *arg)
{
	struct nlc *c = arg;
	struct nlattr *tb[64];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, c->maxattr, NULL) < 0)
		return NL_SKIP;
	if (c->on_msg)
		c->on_msg(tb, c->arg);
	return NL_OK;
}

static int nlc_finish(struct nl_msg *msg, void *arg)
{
	((struct nlc *)arg)->done = true;
	return NL_STOP;
}

/* The error and the extended ack that follows the echoed request. */
static int nlc_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlc *c = arg;
	struct nlattr *a;
	size_t off;
	int rem;

	c->err = e->error;
	c->done = true;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	if (off >= nlh->nlmsg_len)
		return NL_STOP;
	rem = nlh->nlmsg_len - off;
	for (a = (struct nlattr *)((char *)nlh + off); nla_ok(a, rem);
	     a = nla_next(a, &rem))
		if (nla_type(a) == NLMSGERR_ATTR_MSG)
			snprintf(c->extack, sizeof(c->extack), "%s",
				 (const char *)nla_data(a));
	return NL_STOP;
}

static int nlc_open(struct nlc *c)
{
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->sk = nl_socket_alloc();
	if (!c->sk)
		return -ENOMEM;
	if (genl_connect(c->sk))
		return -ECONNREFUSED;
	setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	c->family = genl_ctrl_resolve(c->sk, NPU_GENL_NAME);
	if (c->family < 0)
		return -ENOENT;
	nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_CUSTOM, nlc_valid, c);
	nl_socket_modify_cb(c->sk, NL_CB_FINISH, NL_CB_CUSTOM, nlc_finish, c);
	nl_socket_modify_cb(c->sk, NL_CB_ACK, NL_CB_CUSTOM, nlc_finish, c);
	nl_socket_modify_err_cb(c->sk, NL_CB_CUSTOM, nlc_error, c);
	return 0;
}

static void nlc_close(struct nlc *c)
{
	nl_socket_free(c->sk);
}

/*
 * Send @msg (its attributes put by the caller) and read until the ack, the
 * error or the end of the dump. Returns 0 or the kernel's -errno.
 */
static int nlc_run(struct nlc *c, struct nl_msg *msg, int maxattr,
		   void (*on_msg)(struct nlattr **, void *), void *arg)
{
	int ret;

	c->err = 0;
	c->extack[0] = '\0';
	c->done = false;
	c->on_msg = on_msg;
	c->arg = arg;
	c->maxattr = maxattr;
	ret = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return -EIO;
	while (!c->done) {
		ret = nl_recvmsgs_default(c->sk);
		if (ret < 0 && !c->done)
			return -EIO;
	}
	return c->err;
}

static struct nl_msg *nlc_msg(struct nlc *c, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg)
		genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, flags,
			    cmd, NPU_GENL_VERSION);
	return msg;
}

/* ---- replies ------------------------------------------------------------ */

struct dev_reply {
	int n;
	bool have[NPU_A_DEV_MAX + 1];
	uint32_t index, hw_version, pe_count, clock_hz, levels, max_pages;
	uint32_t state;
	uint64_t dram_size;
	char name[32], pci[32];
};

static void on_dev(struct nlattr **tb, void *arg)
{
	struct dev_reply *d = arg;
	int i;

	/* Keep the reply about /dev/npu0 when a dump lists several. */
	if (d->n++ && d->index == 0)
		return;
	for (i = 0; i <= NPU_A_DEV_MAX; i++)
		d->have[i] = tb[i];
	if (tb[NPU_A_DEV_INDEX])
		d->index = nla_get_u32(tb[NPU_A_DEV_INDEX]);
	if (tb[NPU_A_DEV_NAME])
		snprintf(d->name, sizeof(d->name), "%s",
			 nla_get_string(tb[NPU_A_DEV_NAME]));
	if (tb[NPU_A_DEV_PCI_ADDR])
		snprintf(d->pci, sizeof(d->pci), "%s",
			 nla_get_string(tb[NPU_A_DEV_PCI_ADDR]));
	if (tb[NPU_A_DEV_HW_VERSION])
		d->hw_version = nla_get_u32(tb[NPU_A_DEV_HW_VERSION]);
	if (tb[NPU_A_DEV_PE_COUNT])
		d->pe_count = nla_get_u32(tb[NPU_A_DEV_PE_COUNT]);
	if (tb[NPU_A_DEV_CLOCK_HZ])
		d->clock_hz = nla_get_u32(tb[NPU_A_DEV_CLOCK_HZ]);
	if (tb[NPU_A_DEV_DRAM_SIZE])
		d->dram_size = nla_get_u64(tb[NPU_A_DEV_DRAM_SIZE]);
	if (tb[NPU_A_DEV_TRACE_LEVELS])
		d->levels = nla_get_u32(tb[NPU_A_DEV_TRACE_LEVELS]);
	if (tb[NPU_A_DEV_TRACE_MAX_PAGES])
		d->max_pages = nla_get_u32(tb[NPU_A_DEV_TRACE_MAX_PAGES]);
	if (tb[NPU_A_DEV_STATE])
		d->state = nla_get_u32(tb[NPU_A_DEV_STATE]);
}

struct pe_counters {
	uint64_t completed, failed, busy_ns, dma_bytes, macs;
};

struct stats_reply {
	int n;
	uint32_t index;
	uint64_t resets, records, lost;
	unsigned int npe;
	struct pe_counters pe[16];
};

/*
 * The PE nests repeat NPU_A_STATS_PE, which a parse into a table cannot
 * keep: stats replies are walked attribute by attribute instead.
 */
static int stats_valid(struct nl_msg *msg, void *arg)
{
	struct stats_reply *s = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *a, *pt[NPU_A_PE_STATS_MAX + 1];
	struct nlattr *tb[NPU_A_STATS_MAX + 1];
	int rem;

	if (genlmsg_parse(nlh, 0, tb, NPU_A_STATS_MAX, NULL) < 0)
		return NL_SKIP;
	s->n++;
	if (!tb[NPU_A_STATS_INDEX] || nla_get_u32(tb[NPU_A_STATS_INDEX]))
		return NL_OK;	/* only /dev/npu0 */
	s->resets = nla_get_u64(tb[NPU_A_STATS_RESETS]);
	s->records = nla_get_u64(tb[NPU_A_STATS_TRACE_RECORDS]);
	s->lost = nla_get_u64(tb[NPU_A_STATS_TRACE_LOST]);
	s->npe = 0;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		struct pe_counters *p;
		uint32_t i;

		if (nla_type(a) != NPU_A_STATS_PE ||
		    nla_parse_nested(pt, NPU_A_PE_STATS_MAX, a, NULL) ||
		    !pt[NPU_A_PE_STATS_INDEX])
			continue;
		i = nla_get_u32(pt[NPU_A_PE_STATS_INDEX]);
		if (i >= 16 || i != s->npe)
			continue;	/* out of order: npe stays short */
		p = &s->pe[s->npe++];
		p->completed = nla_get_u64(pt[NPU_A_PE_STATS_JOBS_COMPLETED]);
		p->failed = nla_get_u64(pt[NPU_A_PE_STATS_JOBS_FAILED]);
		p->busy_ns = nla_get_u64(pt[NPU_A_PE_STATS_BUSY_NS]);
		p->dma_bytes = nla_get_u64(pt[NPU_A_PE_STATS_DMA_BYTES]);
		p->macs = nla_get_u64(pt[NPU_A_PE_STATS_MACS]);
	}
	return NL_OK;
}

/* NPU_CMD_STATS_GET of /dev/npu0, as a do (@dump false) or a dump. */
static int get_stats(struct nlc *c, bool dump, struct stats_reply *s)
{
	struct nl_msg *msg = nlc_msg(c, NPU_CMD_STATS_GET,
				     dump ? NLM_F_DUMP : 0);
	int ret;

	memset(s, 0, sizeof(*s));
	if (!msg)
		return -ENOMEM;
	if (!dump)
		nla_put_u32(msg, NPU_A_STATS_INDEX, 0);
	nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_CUSTOM, stats_valid, s);
	ret = nlc_run(c, msg, NPU_A_STATS_MAX, NULL, NULL);
	nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_CUSTOM, nlc_valid, c);
	return ret;
}

/* ---- events ------------------------------------------------------------- */

struct event {
	uint8_t cmd;
	uint32_t dev, pe, status, pid;
	uint64_t job_id, ring_id, lost;
};

struct events {
	struct nl_sock *sk;
	struct event ev[64];
	int n;
};

static int ev_valid(struct nl_msg *msg, void *arg)
{
	struct events *e = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *tb[NPU_A_EVENT_MAX + 1];
	struct event *ev;

	if (e->n >= 64 || genlmsg_parse(nlh, 0, tb, NPU_A_EVENT_MAX, NULL))
		return NL_OK;
	ev = &e->ev[e->n++];
	memset(ev, 0, sizeof(*ev));
	ev->cmd = g->cmd;
	if (g->cmd == NPU_CMD_DEV_ADD_NTF || g->cmd == NPU_CMD_DEV_DEL_NTF)
		return NL_OK;	/* set "dev", not used here */
	if (tb[NPU_A_EVENT_DEV_INDEX])
		ev->dev = nla_get_u32(tb[NPU_A_EVENT_DEV_INDEX]);
	if (tb[NPU_A_EVENT_PE])
		ev->pe = nla_get_u32(tb[NPU_A_EVENT_PE]);
	if (tb[NPU_A_EVENT_STATUS])
		ev->status = nla_get_u32(tb[NPU_A_EVENT_STATUS]);
	if (tb[NPU_A_EVENT_PID])
		ev->pid = nla_get_u32(tb[NPU_A_EVENT_PID]);
	if (tb[NPU_A_EVENT_JOB_ID])
		ev->job_id = nla_get_u64(tb[NPU_A_EVENT_JOB_ID]);
	if (tb[NPU_A_EVENT_RING_ID])
		ev->ring_id = nla_get_u64(tb[NPU_A_EVENT_RING_ID]);
	if (tb[NPU_A_EVENT_LOST])
		ev->lost = nla_get_u64(tb[NPU_A_EVENT_LOST]);
	return NL_OK;
}

static int events_open(struct events *e)
{
	int grp;

	memset(e, 0, sizeof(*e));
	e->sk = nl_socket_alloc();
	if (!e->sk || genl_connect(e->sk))
		return -ECONNREFUSED;
	grp = genl_ctrl_resolve_grp(e->sk, NPU_GENL_NAME,
				    NPU_GENL_MCGRP_EVENTS);
	if (grp < 0)
		return -ENOENT;
	nl_socket_disable_seq_check(e->sk);
	nl_socket_modify_cb(e->sk, NL_CB_VALID, NL_CB_CUSTOM, ev_valid, e);
	if (nl_socket_add_membership(e->sk, grp))
		return -EIO;
	return nl_socket_set_nonblocking(e->sk) ? -EIO : 0;
}

/* Read events for up to @ms, until one with @cmd arrived; its index. */
static int events_wait(struct events *e, uint8_t cmd, int ms)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(e->sk), .events = POLLIN };
	int i, left = ms;

	for (;;) {
		for (i = 0; i < e->n; i++)
			if (e->ev[i].cmd == cmd)
				return i;
		if (left <= 0 || poll(&pfd, 1, 100) < 0)
			return -1;
		left -= 100;
		if (pfd.revents & POLLIN)
			nl_recvmsgs_default(e->sk);
	}
}

static int events_count(struct events *e, uint8_t cmd)
{
	int i, n = 0;

	for (i = 0; i < e->n; i++)
		n += e->ev[i].cmd == cmd;
	return n;
}

/* ---- fixture ------------------------------------------------------------ */

FIXTURE(nl) {
	int fd;
	struct npu_info info;
	struct nlc c;
};

FIXTURE_SETUP(nl)
{
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &self->info));
	ASSERT_EQ(0, self->info.minor) TH_LOG("tests expect /dev/npu0");
	ASSERT_EQ(0, nlc_open(&self->c)) TH_LOG("family \"npu\" not found");
}

FIXTURE_TEARDOWN(nl)
{
	nlc_close(&self->c);
	close(self->fd);
}

static void check_dev(struct __test_metadata *_metadata,
		      const struct dev_reply *d, const struct npu_info *info)
{
	char bdf[32];
	int i;

	for (i = NPU_A_DEV_INDEX; i <= NPU_A_DEV_STATE; i++)
		EXPECT_TRUE(d->have[i]) TH_LOG("attribute %d missing", i);
	EXPECT_EQ(info->minor, d->index);
	EXPECT_STREQ("npu0", d->name);
	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	EXPECT_STREQ(bdf, d->pci);
	EXPECT_EQ(info->hw_version, d->hw_version);
	EXPECT_EQ(info->pe_count, d->pe_count);
	EXPECT_EQ(info->clock_hz, d->clock_hz);
	EXPECT_EQ(info->dram_size, d->dram_size);
	EXPECT_EQ(info->trace_levels, d->levels);
	EXPECT_EQ(NPU_TRACE_MAX_DATA_PAGES, d->max_pages);
	EXPECT_EQ(NPU_DEV_STATE_ALIVE, d->state);
}

TEST_F(nl, dev_get_dump_and_do_match_get_info)
{
	struct dev_reply d;
	struct nl_msg *msg;

	memset(&d, 0, sizeof(d));
	msg = nlc_msg(&self->c, NPU_CMD_DEV_GET, NLM_F_DUMP);
	ASSERT_EQ(0, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	ASSERT_LE(1, d.n);
	check_dev(_metadata, &d, &self->info);

	memset(&d, 0, sizeof(d));
	msg = nlc_msg(&self->c, NPU_CMD_DEV_GET, 0);
	nla_put_u32(msg, NPU_A_DEV_INDEX, 0);
	ASSERT_EQ(0, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	ASSERT_EQ(1, d.n);
	check_dev(_metadata, &d, &self->info);
}

/* Each bad request: its errno and the extended ack's text. */
TEST_F(nl, bad_requests_rejected_with_extack)
{
	struct dev_reply d;
	struct nl_msg *msg;
	uint16_t small = 0;

	/* A u32 attribute 2 bytes long. */
	msg = nlc_msg(&self->c, NPU_CMD_DEV_GET, 0);
	nla_put(msg, NPU_A_DEV_INDEX, sizeof(small), &small);
	EXPECT_EQ(-EINVAL, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	EXPECT_STREQ("invalid attribute length", self->c.extack);

	/* Out of the policy's range (indexes are non-negative ints). */
	msg = nlc_msg(&self->c, NPU_CMD_STATS_GET, 0);
	nla_put_u32(msg, NPU_A_STATS_INDEX, 0x80000000u);
	EXPECT_EQ(-EINVAL, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	EXPECT_STREQ("integer out of range", self->c.extack);

	/* An attribute the command does not know (strict validation). */
	msg = nlc_msg(&self->c, NPU_CMD_DEV_GET, 0);
	nla_put_u32(msg, NPU_A_DEV_INDEX, 0);
	nla_put_u32(msg, NPU_A_DEV_PE_COUNT, 1);
	EXPECT_EQ(-EINVAL, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	EXPECT_STREQ("Unknown attribute type", self->c.extack);

	/* The key missing from a do. */
	msg = nlc_msg(&self->c, NPU_CMD_DEV_GET, 0);
	EXPECT_EQ(-EINVAL, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	EXPECT_STREQ("device index required", self->c.extack);

	/* No such device. */
	msg = nlc_msg(&self->c, NPU_CMD_STATS_GET, 0);
	nla_put_u32(msg, NPU_A_STATS_INDEX, 4242);
	EXPECT_EQ(-ENODEV, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	EXPECT_STREQ("no such device", self->c.extack);

	/* Unknown commands, a notification's number included. */
	msg = nlc_msg(&self->c, 200, 0);
	EXPECT_EQ(-EOPNOTSUPP, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev,
				       &d));
	msg = nlc_msg(&self->c, NPU_CMD_JOB_ERROR_NTF, 0);
	EXPECT_EQ(-EOPNOTSUPP, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev,
				       &d));

	/* The family still answers. */
	memset(&d, 0, sizeof(d));
	msg = nlc_msg(&self->c, NPU_CMD_DEV_GET, 0);
	nla_put_u32(msg, NPU_A_DEV_INDEX, 0);
	EXPECT_EQ(0, nlc_run(&self->c, msg, NPU_A_DEV_MAX, on_dev, &d));
	EXPECT_EQ(1, d.n);
}

struct exec_sum {
	unsigned int pe, n;
	uint64_t ticks, dma, macs;
};

static void sum_exec(const struct npu_trace_rec_hdr *h, void *arg)
{
	const struct npu_trace_rec_exec *ex = (const void *)h;
	struct exec_sum *s = arg;

	if (h->type != NPU_TRACE_REC_EXEC || ex->pe != s->pe)
		return;
	s->n++;
	s->ticks += ex->end_tick - ex->start_tick;
	s->dma += ex->dma_bytes;
	s->macs += ex->macs;
}

/*
 * Five jobs on PE 0 with a ring at level 1: the PE's counters grow by
 * exactly what the device's EXEC records of those jobs say; a job with a
 * bad opcode counts as failed and sends a job error event.
 */
TEST_F(nl, stats_match_jobs_and_job_error_event)
{
	struct stats_reply s0, s1, sd;
	struct trace_stats tst;
	struct exec_sum sum = { .pe = 0 };
	struct trace_jobs j;
	struct trace_ring t;
	struct events ev;
	struct npu_wait w;
	unsigned long long id;
	uint64_t busy_lo, d_busy;
	int i, k;

	ASSERT_EQ(0, events_open(&ev));
	ASSERT_EQ(0, trace_jobs_init(&j, self->fd, JOB_BYTES, 4));
	ASSERT_EQ(0, get_stats(&self->c, false, &s0));
	ASSERT_EQ(self->info.pe_count, s0.npe);
	ASSERT_EQ(0, get_stats(&self->c, true, &sd));
	EXPECT_LE(1, sd.n);
	EXPECT_EQ(s0.npe, sd.npe);

	ASSERT_EQ(0, trace_open(self->fd, 0, 64, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 1));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, trace_job_run(&j, 0, &w));
		ASSERT_EQ(NPU_JOB_OK, w.status);
	}
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_EQ(0, get_stats(&self->c, false, &s1));
	memset(&tst, 0, sizeof(tst));
	ASSERT_LE(5, trace_consume(&t, &tst, sum_exec, &sum));
	trace_close(&t);
	ASSERT_EQ(5, sum.n);

	EXPECT_EQ(s0.pe[0].completed + 5, s1.pe[0].completed);
	EXPECT_EQ(s0.pe[0].failed, s1.pe[0].failed);
	d_busy = s1.pe[0].busy_ns - s0.pe[0].busy_ns;
	busy_lo = sum.ticks * 1000000000ull / self->info.clock_hz;
	EXPECT_LT(0, d_busy);
	/* floor(a + b) - floor(a) is floor(b) or floor(b) + 1 */
	EXPECT_LE(busy_lo, d_busy);
	EXPECT_GE(busy_lo + 1, d_busy);
	EXPECT_LT(0, sum.dma);
	EXPECT_LE(2ull * 5 * JOB_BYTES, sum.dma);	/* in and out */
	EXPECT_EQ(s0.pe[0].dma_bytes + sum.dma, s1.pe[0].dma_bytes);
	EXPECT_EQ(s0.pe[0].macs + sum.macs, s1.pe[0].macs);
	/* Every record the ring got, CLOCK ones too, and none lost. */
	EXPECT_EQ(s0.records + tst.records, s1.records);
	EXPECT_EQ(s0.lost, s1.lost);
	for (k = 1; k < (int)s1.npe; k++)
		EXPECT_EQ(s0.pe[k].completed, s1.pe[k].completed);

	/* A bad opcode: failed, and an event names the job. */
	((struct npu_clip_prog *)j.prog_map)->op.opcode = 0xee;
	ASSERT_EQ(0, trace_job_submit(&j, 0, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, 10000000000ll, &w));
	EXPECT_NE(NPU_JOB_OK, w.status);
	ASSERT_EQ(0, get_stats(&self->c, false, &s0));
	EXPECT_EQ(s1.pe[0].failed + 1, s0.pe[0].failed);
	EXPECT_EQ(s1.pe[0].completed, s0.pe[0].completed);
	i = events_wait(&ev, NPU_CMD_JOB_ERROR_NTF, 5000);
	ASSERT_LE(0, i);
	EXPECT_EQ(0, ev.ev[i].dev);
	EXPECT_EQ(id, ev.ev[i].job_id);
	EXPECT_EQ(0, ev.ev[i].pe);
	EXPECT_EQ(w.status, ev.ev[i].status);
	EXPECT_EQ(getpid(), (pid_t)ev.ev[i].pid);
	nl_socket_free(ev.sk);
}

static int fdinfo_ring_id(int fd, unsigned long long *id)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (npu_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "ring_id:");
	return p && sscanf(p, "ring_id: %llu", id) == 1 ? 0 : -1;
}

/*
 * A one-page ring at level 2 that nobody reads overflows: one event names
 * the ring, and however many records are lost the events stay within one
 * per ring per second.
 */
TEST_F(nl, trace_overflow_event)
{
	unsigned long long ring_id, t0, secs;
	struct stats_reply s0, s1;
	struct trace_jobs j;
	struct trace_ring t;
	struct events ev;
	struct npu_wait w;
	int i, n;

	ASSERT_EQ(0, events_open(&ev));
	ASSERT_EQ(0, trace_jobs_init(&j, self->fd, JOB_BYTES, 64));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	ASSERT_EQ(0, fdinfo_ring_id(t.fd, &ring_id));
	ASSERT_EQ(0, get_stats(&self->c, false, &s0));
	t0 = npu_now_ns();
	ASSERT_EQ(0, trace_enable(&t, 2));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, trace_job_run(&j, 0, &w));
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_EQ(0, get_stats(&self->c, false, &s1));
	secs = (npu_now_ns() - t0) / 1000000000ull;
	EXPECT_LT(s0.lost + 64, s1.lost);

	i = events_wait(&ev, NPU_CMD_TRACE_OVERFLOW_NTF, 5000);
	ASSERT_LE(0, i);
	EXPECT_EQ(0, ev.ev[i].dev);
	EXPECT_EQ(ring_id, ev.ev[i].ring_id);
	EXPECT_LT(0, ev.ev[i].lost);
	events_wait(&ev, 0, 300);	/* collect the rest */
	n = events_count(&ev, NPU_CMD_TRACE_OVERFLOW_NTF);
	EXPECT_GE(secs + 2, (unsigned long long)n);
	trace_close(&t);
	nl_socket_free(ev.sk);
}

static int set_timeout_ms(unsigned int ms)
{
	char s[16];

	snprintf(s, sizeof(s), "%u", ms);
	return npu_write_file(TIMEOUT_PARAM, s);
}

/* A job on the stalled PE times out: a timeout event, then a reset. */
TEST_F(nl, timeout_and_reset_events)
{
	unsigned long long old, id;
	struct stats_reply s0, s1;
	struct trace_jobs j;
	struct events ev;
	struct npu_wait w;
	int stalled, i, r;

	stalled = (int)npu_env_u64("NPU_EMU_STALL_PE", ~0ull);
	if (stalled < 0)
		SKIP(return, "NPU_EMU_STALL_PE not set (run with npu-vm --stall-pe N)");
	ASSERT_LT(stalled, (int)self->info.pe_count);
	ASSERT_EQ(0, npu_read_u64(TIMEOUT_PARAM, &old));
	ASSERT_EQ(0, events_open(&ev));
	ASSERT_EQ(0, trace_jobs_init(&j, self->fd, JOB_BYTES, 1));
	ASSERT_EQ(0, get_stats(&self->c, false, &s0));

	ASSERT_EQ(0, set_timeout_ms(300));
	ASSERT_EQ(0, trace_job_submit(&j, stalled, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, 30000000000ll, &w));
	set_timeout_ms(old);
	EXPECT_EQ(NPU_JOB_TIMEOUT, w.status);

	i = events_wait(&ev, NPU_CMD_JOB_TIMEOUT_NTF, 5000);
	ASSERT_LE(0, i);
	EXPECT_EQ(id, ev.ev[i].job_id);
	EXPECT_EQ(stalled, (int)ev.ev[i].pe);
	EXPECT_EQ(NPU_JOB_TIMEOUT, ev.ev[i].status);
	EXPECT_EQ(getpid(), (pid_t)ev.ev[i].pid);
	r = events_wait(&ev, NPU_CMD_DEV_RESET_NTF, 5000);
	ASSERT_LE(0, r);
	EXPECT_EQ(0, ev.ev[r].dev);
	/* The reset is announced before it fails the job. */
	EXPECT_LT(r, i);
	EXPECT_EQ(0, events_count(&ev, NPU_CMD_JOB_ERROR_NTF));

	ASSERT_EQ(0, get_stats(&self->c, false, &s1));
	EXPECT_EQ(s0.resets + 1, s1.resets);
	EXPECT_EQ(s0.pe[stalled].failed + 1, s1.pe[stalled].failed);
	EXPECT_EQ(s0.pe[stalled].completed, s1.pe[stalled].completed);
	nl_socket_free(ev.sk);
}

TEST_HARNESS_MAIN
