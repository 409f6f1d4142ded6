// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_netlink - the generic netlink family "npu" (driver/npu_netlink.c)
 * through libnpu's libnl-genl-3 client (lib/npu/netlink.c), as a program
 * would use it, and through raw libnl requests for what the library never
 * sends:
 *  - NPU_CMD_DEV_GET, dump and do, against NPU_IOCTL_GET_INFO and sysfs;
 *  - NPU_CMD_STATS_GET, do and dump, against the jobs this test runs and
 *    the device's own EXEC trace records (completed, failed, busy ns, DMA
 *    bytes, MACs, trace records);
 *  - strict policies: malformed, out-of-range and unknown attributes, a
 *    missing key, an unknown device and unknown commands, each with its
 *    errno and extended-ack message;
 *  - the "events" group: job error, job timeout with the device reset, and
 *    trace overflow (one per ring per second at most);
 *  - npuprof devices and npuprof top (build/bin, in the guest's PATH).
 *
 * The timeout test needs a stalled PE (npu-vm --stall-pe 1, which sets
 * NPU_EMU_STALL_PE; selftests/npu/Makefile runs the suite so) and is
 * skipped without one. It lowers job_timeout_ms and restores it.
 */

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
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

#include "libnpu.h"

#define JOB_BYTES	4096
#define TIMEOUT_PARAM	"/sys/module/npu/parameters/job_timeout_ms"

/* ---- raw requests: replies counted, errors and extacks kept ------------- */

struct raw {
	struct nl_sock *sk;
	int family;
	int replies;
	int err;
	char extack[256];
	bool done;
};

static int raw_valid(struct nl_msg *msg, void *arg)
{
	((struct raw *)arg)->replies++;
	return NL_OK;
}

static int raw_done(struct nl_msg *msg, void *arg)
{
	((struct raw *)arg)->done = true;
	return NL_STOP;
}

/* The error, and the extended ack after the echoed request. */
static int raw_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct raw *r = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = NLMSG_HDRLEN + sizeof(*e);

	r->err = e->error;
	r->done = true;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len ||
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      nlh->nlmsg_len - off, NULL) ||
	    !tb[NLMSGERR_ATTR_MSG])
		return NL_STOP;
	snprintf(r->extack, sizeof(r->extack), "%s",
		 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

static int raw_open(struct raw *r)
{
	int one = 1;

	memset(r, 0, sizeof(*r));
	r->sk = nl_socket_alloc();
	if (!r->sk || genl_connect(r->sk))
		return -ECONNREFUSED;
	setsockopt(nl_socket_get_fd(r->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	r->family = genl_ctrl_resolve(r->sk, NPU_GENL_NAME);
	if (r->family < 0)
		return -ENOENT;
	nl_socket_modify_cb(r->sk, NL_CB_VALID, NL_CB_CUSTOM, raw_valid, r);
	nl_socket_modify_cb(r->sk, NL_CB_FINISH, NL_CB_CUSTOM, raw_done, r);
	nl_socket_modify_cb(r->sk, NL_CB_ACK, NL_CB_CUSTOM, raw_done, r);
	nl_socket_modify_err_cb(r->sk, NL_CB_CUSTOM, raw_error, r);
	return 0;
}

static struct nl_msg *raw_msg(struct raw *r, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg)
		genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, r->family, 0, 0,
			    cmd, NPU_GENL_VERSION);
	return msg;
}

/* Send @msg, read to the ack or error: 0 or the kernel's -errno. */
static int raw_run(struct raw *r, struct nl_msg *msg)
{
	int ret;

	r->replies = 0;
	r->err = 0;
	r->extack[0] = '\0';
	r->done = false;
	ret = nl_send_auto(r->sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return -EIO;
	while (!r->done)
		if (nl_recvmsgs_default(r->sk) < 0 && !r->done)
			return -EIO;
	return r->err;
}

/* ---- events through libnpu ---------------------------------------------- */

struct events {
	struct npu_nl_event ev[64];
	int n;
};

/* Read events for up to @ms, until one of @type came; its index or -1. */
static int events_wait(struct npu_nl *nl, struct events *e, uint32_t type,
		       int ms)
{
	struct pollfd pfd = { .fd = npu_nl_event_fd(nl), .events = POLLIN };
	int i;

	for (;;) {
		while (e->n < 64 && !npu_nl_event_read(nl, &e->ev[e->n]))
			e->n++;
		for (i = 0; i < e->n; i++)
			if (e->ev[i].type == type)
				return i;
		if (ms <= 0 || poll(&pfd, 1, 100) < 0)
			return -1;
		ms -= 100;
	}
}

static int events_count(const struct events *e, uint32_t type)
{
	int i, n = 0;

	for (i = 0; i < e->n; i++)
		n += e->ev[i].type == type;
	return n;
}

/* ---- fixture ------------------------------------------------------------ */

FIXTURE(nl) {
	int fd;
	struct npu_info info;
	struct npu_nl *nl;
	struct events ev;
};

FIXTURE_SETUP(nl)
{
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &self->info));
	ASSERT_EQ(0, self->info.minor) TH_LOG("tests expect /dev/npu0");
	ASSERT_EQ(0, npu_nl_open(&self->nl)) TH_LOG("family \"npu\" not found");
	ASSERT_EQ(0, npu_nl_subscribe(self->nl));
	self->ev.n = 0;
}

FIXTURE_TEARDOWN(nl)
{
	npu_nl_close(self->nl);
	close(self->fd);
}

static void check_dev(struct __test_metadata *_metadata,
		      const struct npu_nl_dev *d, const struct npu_info *info)
{
	char bdf[32];

	EXPECT_EQ(info->minor, d->index);
	EXPECT_STREQ("npu0", d->name);
	ASSERT_EQ(0, npu_find_bdf(bdf, sizeof(bdf)));
	EXPECT_STREQ(bdf, d->pci_addr);
	EXPECT_EQ(info->hw_version, d->hw_version);
	EXPECT_EQ(info->pe_count, d->pe_count);
	EXPECT_EQ(info->clock_hz, d->clock_hz);
	EXPECT_EQ(info->dram_size, d->dram_size);
	EXPECT_EQ(info->trace_levels, d->trace_levels);
	EXPECT_EQ(NPU_TRACE_MAX_DATA_PAGES, d->trace_max_pages);
	EXPECT_EQ(NPU_DEV_STATE_ALIVE, d->state);
}

TEST_F(nl, dev_get_dump_and_do_match_get_info)
{
	struct npu_nl_dev devs[4], d;
	int n;

	n = npu_nl_dev_list(self->nl, devs, 4);
	ASSERT_LE(1, n);
	EXPECT_EQ(n, npu_nl_dev_list(self->nl, NULL, 0));	/* count only */
	check_dev(_metadata, &devs[0], &self->info);

	memset(&d, 0xa5, sizeof(d));
	ASSERT_EQ(0, npu_nl_dev_get(self->nl, 0, &d));
	check_dev(_metadata, &d, &self->info);

	EXPECT_EQ(-ENODEV, npu_nl_dev_get(self->nl, 4242, &d));
	EXPECT_STREQ("no such device", npu_nl_extack(self->nl));
}

/* Each bad request: its errno and the extended ack's text. */
TEST_F(nl, bad_requests_rejected_with_extack)
{
	struct nl_msg *msg;
	uint16_t small = 0;
	struct raw r;

	ASSERT_EQ(0, raw_open(&r));

	/* A u32 attribute 2 bytes long. */
	msg = raw_msg(&r, NPU_CMD_DEV_GET);
	nla_put(msg, NPU_A_DEV_INDEX, sizeof(small), &small);
	EXPECT_EQ(-EINVAL, raw_run(&r, msg));
	EXPECT_STREQ("invalid attribute length", r.extack);

	/* Out of the policy's range (indexes are non-negative ints). */
	msg = raw_msg(&r, NPU_CMD_STATS_GET);
	nla_put_u32(msg, NPU_A_STATS_INDEX, 0x80000000u);
	EXPECT_EQ(-ERANGE, raw_run(&r, msg));
	EXPECT_STREQ("integer out of range", r.extack);

	/* An attribute the command does not know (strict validation). */
	msg = raw_msg(&r, NPU_CMD_DEV_GET);
	nla_put_u32(msg, NPU_A_DEV_INDEX, 0);
	nla_put_u32(msg, NPU_A_DEV_PE_COUNT, 1);
	EXPECT_EQ(-EINVAL, raw_run(&r, msg));
	EXPECT_STREQ("Unknown attribute type", r.extack);

	/* The key missing from a do. */
	msg = raw_msg(&r, NPU_CMD_DEV_GET);
	EXPECT_EQ(-EINVAL, raw_run(&r, msg));
	EXPECT_STREQ("device index required", r.extack);

	/* No such device. */
	msg = raw_msg(&r, NPU_CMD_STATS_GET);
	nla_put_u32(msg, NPU_A_STATS_INDEX, 4242);
	EXPECT_EQ(-ENODEV, raw_run(&r, msg));
	EXPECT_STREQ("no such device", r.extack);

	/* Unknown commands, a notification's number included. */
	EXPECT_EQ(-EOPNOTSUPP, raw_run(&r, raw_msg(&r, 200)));
	EXPECT_EQ(-EOPNOTSUPP, raw_run(&r, raw_msg(&r, NPU_CMD_JOB_ERROR_NTF)));

	/* Nothing was answered, and the family still answers. */
	EXPECT_EQ(0, r.replies);
	msg = raw_msg(&r, NPU_CMD_DEV_GET);
	nla_put_u32(msg, NPU_A_DEV_INDEX, 0);
	EXPECT_EQ(0, raw_run(&r, msg));
	EXPECT_EQ(1, r.replies);
	nl_socket_free(r.sk);
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
	struct npu_nl_stats s0, s1, sd[4];
	struct exec_sum sum = { .pe = 0 };
	struct trace_stats tst;
	struct trace_jobs j;
	struct trace_ring t;
	struct npu_wait w;
	unsigned long long id;
	uint64_t busy_lo, d_busy;
	int i, k;

	ASSERT_EQ(0, trace_jobs_init(&j, self->fd, JOB_BYTES, 4));
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s0));
	EXPECT_EQ(0, s0.index);
	ASSERT_EQ(self->info.pe_count, s0.pe_count);
	ASSERT_LE(1, npu_nl_stats_list(self->nl, sd, 4));
	EXPECT_EQ(0, sd[0].index);
	EXPECT_EQ(s0.pe_count, sd[0].pe_count);
	EXPECT_EQ(s0.pe[0].jobs_completed, sd[0].pe[0].jobs_completed);

	ASSERT_EQ(0, trace_open(self->fd, 0, 64, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 1));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, trace_job_run(&j, 0, &w));
		ASSERT_EQ(NPU_JOB_OK, w.result.status);
	}
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s1));
	memset(&tst, 0, sizeof(tst));
	ASSERT_LE(5, trace_consume(&t, &tst, sum_exec, &sum));
	trace_close(&t);
	ASSERT_EQ(5, sum.n);

	EXPECT_EQ(s0.pe[0].jobs_completed + 5, s1.pe[0].jobs_completed);
	EXPECT_EQ(s0.pe[0].jobs_failed, s1.pe[0].jobs_failed);
	d_busy = s1.pe[0].busy_ns - s0.pe[0].busy_ns;
	busy_lo = sum.ticks * 1000000000ull / self->info.clock_hz;
	EXPECT_LT(0, d_busy);
	/* floor(a + b) - floor(a) is floor(b) or floor(b) + 1 */
	EXPECT_LE(busy_lo, d_busy);
	EXPECT_GE(busy_lo + 1, d_busy);
	EXPECT_LE(2ull * 5 * JOB_BYTES, sum.dma);	/* in and out */
	EXPECT_EQ(s0.pe[0].dma_bytes + sum.dma, s1.pe[0].dma_bytes);
	EXPECT_EQ(s0.pe[0].macs + sum.macs, s1.pe[0].macs);
	/* Every record the ring got, CLOCK ones too, and none lost. */
	EXPECT_EQ(s0.trace_records + tst.records, s1.trace_records);
	EXPECT_EQ(s0.trace_lost, s1.trace_lost);
	for (k = 1; k < (int)s1.pe_count; k++)
		EXPECT_EQ(s0.pe[k].jobs_completed, s1.pe[k].jobs_completed);

	/* A bad opcode: failed, and an event names the job. */
	((struct npu_clip_prog *)j.prog_map)->op.opcode = 0xee;
	ASSERT_EQ(0, trace_job_submit(&j, 0, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, 10000000000ll, &w));
	EXPECT_NE(NPU_JOB_OK, w.result.status);
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s0));
	EXPECT_EQ(s1.pe[0].jobs_failed + 1, s0.pe[0].jobs_failed);
	EXPECT_EQ(s1.pe[0].jobs_completed, s0.pe[0].jobs_completed);
	i = events_wait(self->nl, &self->ev, NPU_CMD_JOB_ERROR_NTF, 5000);
	ASSERT_LE(0, i);
	EXPECT_EQ(0, self->ev.ev[i].dev_index);
	EXPECT_EQ(id, self->ev.ev[i].job_id);
	EXPECT_EQ(0, self->ev.ev[i].pe);
	EXPECT_EQ(w.result.status, self->ev.ev[i].status);
	EXPECT_EQ(getpid(), (pid_t)self->ev.ev[i].pid);
	EXPECT_LT(0, self->ev.ev[i].time_ns);
}

/*
 * The device memory counters: exact differences over known allocations,
 * frees and a failure, and the same values as sysfs memory/.
 */
TEST_F(nl, stats_memory)
{
	static const unsigned long long sizes[3] = { 4096, 65536, 3 * 4096 };
	struct npu_nl_stats s0, s1, s2;
	struct npu_bo_create bo[3], big;
	unsigned long long v;
	int i;

	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s0));
	ASSERT_EQ(1, s0.has_mem);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/memory/used", &v));
	EXPECT_EQ(v, s0.mem.used);
	EXPECT_EQ(self->info.dram_size, s0.mem.used + s0.mem.free);
	EXPECT_GE(s0.mem.free, s0.mem.largest_free);
	EXPECT_LE(s0.mem.used, s0.mem.peak);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, npu_bo_new(self->fd, sizes[i], &bo[i]));
	/* over the file's quota (default 50 %) */
	EXPECT_EQ(-EDQUOT, npu_bo_new(self->fd, self->info.dram_size - 4096,
				      &big));
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s1));
	EXPECT_EQ(s0.mem.used + 4096 + 65536 + 3 * 4096, s1.mem.used);
	EXPECT_EQ(s0.mem.free - (4096 + 65536 + 3 * 4096), s1.mem.free);
	EXPECT_EQ(s0.mem.allocs + 3, s1.mem.allocs);
	EXPECT_EQ(s0.mem.frees, s1.mem.frees);
	EXPECT_EQ(s0.mem.fail_quota + 1, s1.mem.fail_quota);
	EXPECT_EQ(s0.mem.fail_nomem, s1.mem.fail_nomem);
	EXPECT_LE(s1.mem.used, s1.mem.peak);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/memory/allocs", &v));
	EXPECT_EQ(v, s1.mem.allocs);
	ASSERT_EQ(0, npu_read_u64(NPU_SYSFS "/memory/largest_free", &v));
	EXPECT_EQ(v, s1.mem.largest_free);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, npu_bo_del(self->fd, bo[i].handle));
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s2));
	EXPECT_EQ(s0.mem.used, s2.mem.used);
	EXPECT_EQ(s0.mem.frees + 3, s2.mem.frees);
	EXPECT_LE(s1.mem.used, s2.mem.peak);
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
 * A one-page ring at level 2 that nobody reads overflows: an event names
 * the ring, and however many records are lost the events stay within one
 * per ring per second.
 */
TEST_F(nl, trace_overflow_event)
{
	unsigned long long ring_id, t0, secs;
	struct npu_nl_stats s0, s1;
	struct trace_jobs j;
	struct trace_ring t;
	struct npu_wait w;
	int i, n;

	ASSERT_EQ(0, trace_jobs_init(&j, self->fd, JOB_BYTES, 64));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	ASSERT_EQ(0, fdinfo_ring_id(t.fd, &ring_id));
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s0));
	t0 = npu_now_ns();
	ASSERT_EQ(0, trace_enable(&t, 2));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, trace_job_run(&j, 0, &w));
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s1));
	EXPECT_LT(s0.trace_lost + 64, s1.trace_lost);

	i = events_wait(self->nl, &self->ev, NPU_CMD_TRACE_OVERFLOW_NTF, 5000);
	ASSERT_LE(0, i);
	EXPECT_EQ(0, self->ev.ev[i].dev_index);
	EXPECT_EQ(ring_id, self->ev.ev[i].ring_id);
	EXPECT_LT(0, self->ev.ev[i].lost);
	events_wait(self->nl, &self->ev, 0, 300);	/* collect the rest */
	secs = (npu_now_ns() - t0) / 1000000000ull;
	n = events_count(&self->ev, NPU_CMD_TRACE_OVERFLOW_NTF);
	/* one at the start and one per whole second, a tick of slack */
	EXPECT_GE(secs + 2, (unsigned long long)n);
	trace_close(&t);
}

static int set_timeout_ms(unsigned int ms)
{
	char s[16];

	snprintf(s, sizeof(s), "%u", ms);
	return npu_write_file(TIMEOUT_PARAM, s);
}

/* A job on the stalled PE times out: a reset event, then a timeout event. */
TEST_F(nl, timeout_and_reset_events)
{
	unsigned long long old, id;
	struct npu_nl_stats s0, s1;
	struct npu_nl_event *to;
	struct trace_jobs j;
	struct npu_wait w;
	int stalled, i, r;

	stalled = (int)npu_env_u64("NPU_EMU_STALL_PE", ~0ull);
	if (stalled < 0)
		SKIP(return, "NPU_EMU_STALL_PE not set (run with npu-vm --stall-pe N)");
	ASSERT_LT(stalled, (int)self->info.pe_count);
	ASSERT_EQ(0, npu_read_u64(TIMEOUT_PARAM, &old));
	ASSERT_EQ(0, trace_jobs_init(&j, self->fd, JOB_BYTES, 1));
	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s0));

	ASSERT_EQ(0, set_timeout_ms(300));
	ASSERT_EQ(0, trace_job_submit(&j, stalled, &id));
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, 30000000000ll, &w));
	set_timeout_ms(old);
	EXPECT_EQ(NPU_JOB_TIMEOUT, w.result.status);

	i = events_wait(self->nl, &self->ev, NPU_CMD_JOB_TIMEOUT_NTF, 5000);
	ASSERT_LE(0, i);
	to = &self->ev.ev[i];
	EXPECT_EQ(0, to->dev_index);
	EXPECT_EQ(id, to->job_id);
	EXPECT_EQ(stalled, (int)to->pe);
	EXPECT_EQ(NPU_JOB_TIMEOUT, to->status);
	EXPECT_EQ(getpid(), (pid_t)to->pid);
	r = events_wait(self->nl, &self->ev, NPU_CMD_DEV_RESET_NTF, 5000);
	ASSERT_LE(0, r);
	EXPECT_EQ(0, self->ev.ev[r].dev_index);
	/* The reset is announced before it fails the job. */
	EXPECT_LT(r, i);
	EXPECT_GE(to->time_ns, self->ev.ev[r].time_ns);
	EXPECT_EQ(0, events_count(&self->ev, NPU_CMD_JOB_ERROR_NTF));

	ASSERT_EQ(0, npu_nl_stats_get(self->nl, 0, &s1));
	EXPECT_EQ(s0.resets + 1, s1.resets);
	EXPECT_EQ(s0.pe[stalled].jobs_failed + 1, s1.pe[stalled].jobs_failed);
	EXPECT_EQ(s0.pe[stalled].jobs_completed,
		  s1.pe[stalled].jobs_completed);
}

/* Run @argv with its standard output on a pipe; the child's pid. */
static pid_t spawn(char *const argv[], int *out)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

/* Read @fd to EOF (or until @stop appears) into @buf; bytes read. */
static size_t read_all(int fd, char *buf, size_t len, const char *stop)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0) {
		n += (size_t)r;
		buf[n] = '\0';
		if (stop && strstr(buf, stop))
			break;
	}
	buf[n] = '\0';
	return n;
}

/*
 * The CLI on top of the library: npuprof devices as JSON, npuprof top in
 * batch mode while another process runs jobs on PE 0 (its last frame shows
 * them), and top quitting cleanly on SIGINT.
 */
TEST_F(nl, npuprof_devices_and_top)
{
	char *devices[] = { "npuprof", "devices", "--format", "json",
			    "--stats", NULL };
	char *top[] = { "npuprof", "top", "-b", "-n", "3", "-d", "0.5", NULL };
	char *top_forever[] = { "npuprof", "top", "-b", "-d", "0.2", NULL };
	static char buf[65536];
	char want[64], *pe0;
	double util, jobs, fail, gbs;
	unsigned int pe;
	pid_t pid, worker;
	int fd, st;

	pid = spawn(devices, &fd);
	ASSERT_LT(0, pid);
	read_all(fd, buf, sizeof(buf), NULL);
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\"name\":\"npu0\""));
	EXPECT_NE(NULL, strstr(buf, "\"state\":\"alive\""));
	snprintf(want, sizeof(want), "\"pes\":%u,\"clock_hz\":%llu",
		 self->info.pe_count, (unsigned long long)self->info.clock_hz);
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("%s", buf);
	/* the memory counters */
	EXPECT_NE(NULL, strstr(buf, ",\"mem\":{\"used\":")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, ",\"largest_free\":")) TH_LOG("%s", buf);

	worker = fork();
	ASSERT_LE(0, worker);
	if (worker == 0) {
		struct trace_jobs j;
		struct npu_wait w;
		int wfd = npu_open();

		if (wfd < 0 || trace_jobs_init(&j, wfd, JOB_BYTES, 4))
			_exit(1);
		for (;;)
			if (trace_job_run(&j, 0, &w))
				_exit(1);
	}
	pid = spawn(top, &fd);
	ASSERT_LT(0, pid);
	read_all(fd, buf, sizeof(buf), NULL);
	close(fd);
	kill(worker, SIGKILL);
	waitpid(worker, NULL, 0);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "npu0 "));
	/* the device's memory line */
	EXPECT_NE(NULL, strstr(buf, "\n  mem ")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, ", largest free ")) TH_LOG("%s", buf);
	/* the last frame's PE 0: jobs completed during its interval */
	pe0 = NULL;
	for (char *p = buf; (p = strstr(p, "  PE 0 ")); p++)
		pe0 = p;
	ASSERT_NE(NULL, pe0) TH_LOG("%s", buf);
	ASSERT_EQ(5, sscanf(pe0, "  PE %u %lf %lf %lf %lf", &pe, &util, &jobs,
			    &fail, &gbs)) TH_LOG("%s", buf);
	EXPECT_LT(0, jobs) TH_LOG("%s", buf);
	EXPECT_LT(0, util) TH_LOG("%s", buf);
	EXPECT_EQ(0, fail);

	/* SIGINT after the first frame: exit status 0 */
	pid = spawn(top_forever, &fd);
	ASSERT_LT(0, pid);
	read_all(fd, buf, sizeof(buf), "events");
	kill(pid, SIGINT);
	read_all(fd, buf, sizeof(buf), NULL);
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

TEST_HARNESS_MAIN
