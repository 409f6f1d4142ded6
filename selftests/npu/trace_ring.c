// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_ring - trace fd and ring mechanics that need no jobs: open
 * arguments, the mapping and its protections, CLOCK records, polling, the
 * watermark, loss accounting on a full ring, scoping privileges and
 * NPU_IOCTL_CLOCK_SAMPLE. Documentation/npu/ring.rst is the contract.
 */

#include <grp.h>
#include <pthread.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#define CLK_REC_SIZE	sizeof(struct npu_trace_rec_clock)

static unsigned long long clock_hz(int fd)
{
	struct npu_info info;

	memset(&info, 0, sizeof(info));
	if (npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info))
		return 0;
	return info.clock_hz;
}

/* Collects CLOCK records. */
struct clocks {
	unsigned int n;
	struct npu_trace_rec_clock rec[512];
};

static void collect_clock(const struct npu_trace_rec_hdr *h, void *arg)
{
	struct clocks *c = arg;

	if (h->type == NPU_TRACE_REC_CLOCK && c->n < 512)
		memcpy(&c->rec[c->n++], h, sizeof(c->rec[0]));
}

/* Device clock and host clock agree within the brackets (1000 ppm). */
static int clocks_consistent(const struct npu_trace_rec_clock *a,
			     const struct npu_trace_rec_clock *b,
			     unsigned long long hz)
{
	double dt_ns = (double)(b->device_tick - a->device_tick) * 1e9 / hz;
	double lo = (double)(b->host_before_ns - a->host_after_ns);
	double hi = (double)(b->host_after_ns - a->host_before_ns);
	double slack = hi * 1e-3;

	return dt_ns >= lo - slack && dt_ns <= hi + slack;
}

FIXTURE(trace)
{
	int fd;
	unsigned long long period, samples, paranoid;
};

FIXTURE_SETUP(trace)
{
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, trace_param_get("clock_period_ms", &self->period));
	ASSERT_EQ(0, trace_param_get("clock_samples", &self->samples));
	ASSERT_EQ(0, trace_param_get("trace_paranoid", &self->paranoid));
}

FIXTURE_TEARDOWN(trace)
{
	trace_param_set("clock_period_ms", self->period);
	trace_param_set("clock_samples", self->samples);
	trace_param_set("trace_paranoid", self->paranoid);
	close(self->fd);
}

TEST_F(trace, open_bad_args)
{
	static const uint32_t bad_pages[] = { 0, 3, 6, 12,
		NPU_TRACE_MAX_DATA_PAGES * 2, 0x80000000u };
	struct npu_trace_open op;
	unsigned int i;

	for (i = 0; i < sizeof(bad_pages) / sizeof(bad_pages[0]); i++) {
		memset(&op, 0, sizeof(op));
		op.data_pages = bad_pages[i];
		EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN,
					     &op)) TH_LOG("pages %u", bad_pages[i]);
	}
	memset(&op, 0, sizeof(op));
	op.data_pages = 1;
	op.watermark = getpagesize();
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN, &op));
	memset(&op, 0, sizeof(op));
	op.data_pages = 1;
	op.flags = 2;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN, &op));
	memset(&op, 0, sizeof(op));
	op.data_pages = 1;
	op.reserved[3] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN, &op));
	memset(&op, 0, sizeof(op));
	op.data_pages = 1;
	op.fd = 5;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN, &op));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN, NULL));
	/* The largest ring is accepted. */
	memset(&op, 0, sizeof(op));
	op.data_pages = NPU_TRACE_MAX_DATA_PAGES;
	op.watermark = NPU_TRACE_MAX_DATA_PAGES * getpagesize() - 1;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN, &op));
	EXPECT_EQ((uint64_t)NPU_TRACE_MAX_DATA_PAGES * getpagesize(),
		  op.data_size);
	close(op.fd);
}

TEST_F(trace, mapping)
{
	struct npu_trace_open op;
	long page = getpagesize();
	const struct npu_trace_ring *h;
	uint8_t *all, *hdrp, *w;
	const uint8_t *p;
	size_t i, total;
	int flags;

	memset(&op, 0, sizeof(op));
	op.data_pages = 4;
	op.watermark = 100;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_TRACE_OPEN, &op));
	ASSERT_LE(0, op.fd);
	EXPECT_EQ((uint64_t)page, op.data_offset);
	EXPECT_EQ((uint64_t)4 * page, op.data_size);
	flags = fcntl(op.fd, F_GETFD);
	EXPECT_TRUE(flags & FD_CLOEXEC);
	total = page + op.data_size;

	/* Everything read-only at once: header fields and zeroed pages. */
	all = mmap(NULL, total, PROT_READ, MAP_SHARED, op.fd, 0);
	ASSERT_NE(MAP_FAILED, all);
	h = (const void *)all;
	EXPECT_EQ(NPU_TRACE_RING_VERSION, h->version);
	EXPECT_EQ(0, h->flags);
	EXPECT_EQ((uint64_t)page, h->data_offset);
	EXPECT_EQ(op.data_size, h->data_size);
	EXPECT_EQ(sizeof(struct npu_trace_ring), h->hdr_size);
	EXPECT_EQ(100, h->watermark);
	EXPECT_EQ(0, h->producer);
	EXPECT_EQ(0, h->consumer);
	for (p = all + sizeof(struct npu_trace_ring), i = 0;
	     i < total - sizeof(struct npu_trace_ring); i++)
		if (p[i])
			break;
	EXPECT_EQ(total - sizeof(struct npu_trace_ring), i);
	/* Data pages cannot become writable. */
	EXPECT_EQ(-1, mprotect(all, total, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(all, total);

	/* Writable mappings of data pages are refused. */
	w = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, op.fd, 0);
	EXPECT_EQ(MAP_FAILED, w);
	EXPECT_EQ(EPERM, errno);
	w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, op.fd, page);
	EXPECT_EQ(MAP_FAILED, w);
	EXPECT_EQ(EPERM, errno);
	/* Out of range. */
	w = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, op.fd, 4 * page);
	EXPECT_EQ(MAP_FAILED, w);
	EXPECT_EQ(EINVAL, errno);
	w = mmap(NULL, page, PROT_READ, MAP_SHARED, op.fd, 5 * page);
	EXPECT_EQ(MAP_FAILED, w);

	/* The header page alone is writable: the consumer lives there. */
	hdrp = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, op.fd, 0);
	ASSERT_NE(MAP_FAILED, hdrp);
	((struct npu_trace_ring *)hdrp)->consumer = 0;
	munmap(hdrp, page);

	/* A private writable mapping would let the consumer diverge. */
	w = mmap(NULL, op.data_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 op.fd, page);
	EXPECT_EQ(MAP_FAILED, w);
	close(op.fd);
}

/*
 * Only a shared mapping of the header page is writable. A private one
 * would be copied on the first write and the kernel would never see the
 * consumer move: PROT_WRITE is refused, and a read-only private mapping
 * cannot be made writable later.
 */
TEST_F(trace, private_header_mapping)
{
	long page = getpagesize();
	struct trace_ring t;
	void *w;

	ASSERT_EQ(0, trace_open(self->fd, 0, 4, 0, &t));
	w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, t.fd, 0);
	EXPECT_EQ(MAP_FAILED, w);
	EXPECT_EQ(EPERM, errno);
	w = mmap(NULL, page + t.data_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 t.fd, 0);
	EXPECT_EQ(MAP_FAILED, w);
	EXPECT_EQ(EPERM, errno);

	/* Read-only and private: it reads the kernel's page, for good. */
	w = mmap(NULL, page, PROT_READ, MAP_PRIVATE, t.fd, 0);
	ASSERT_NE(MAP_FAILED, w);
	EXPECT_EQ(NPU_TRACE_RING_VERSION,
		  ((const struct npu_trace_ring *)w)->version);
	EXPECT_EQ(-1, mprotect(w, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	t.hdr->consumer = 0;	/* the shared mapping stays writable */
	EXPECT_EQ(0, ((const struct npu_trace_ring *)w)->consumer);
	munmap(w, page);
	trace_close(&t);
}

TEST_F(trace, enable_writes_clock)
{
	unsigned long long hz = clock_hz(self->fd);
	struct trace_stats st = { 0 };
	struct npu_trace_status ts;
	struct trace_ring t;
	static struct clocks c;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_param_set("clock_samples", 5));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(0, ts.records);
	EXPECT_EQ(0, ts.flags);

	ASSERT_EQ(0, trace_enable(&t, 0));
	EXPECT_EQ(NPU_TRACE_RING_F_ENABLED, t.hdr->flags);
	EXPECT_EQ(CLK_REC_SIZE, trace_unread(&t));
	/* Enabling again (a level change) adds one more. */
	usleep(20000);
	ASSERT_EQ(0, trace_enable(&t, 0));
	EXPECT_EQ(2 * CLK_REC_SIZE, trace_unread(&t));

	c.n = 0;
	ASSERT_EQ(2, trace_consume(&t, &st, collect_clock, &c));
	EXPECT_EQ(0, st.seq_errors);
	ASSERT_EQ(2, c.n);
	EXPECT_EQ(0, c.rec[0].hdr.seq);
	EXPECT_EQ(1, c.rec[1].hdr.seq);
	for (unsigned int i = 0; i < 2; i++) {
		const struct npu_trace_rec_clock *r = &c.rec[i];

		EXPECT_EQ(NPU_TRACE_REC_CLOCK, r->hdr.type);
		EXPECT_EQ(CLK_REC_SIZE, r->hdr.size);
		EXPECT_EQ(5, r->samples);
		EXPECT_EQ(hz, r->clock_hz);
		EXPECT_LE(r->host_before_ns, r->host_after_ns);
		EXPECT_EQ(r->host_after_ns - r->host_before_ns, r->width_ns);
	}
	EXPECT_LT(c.rec[0].device_tick, c.rec[1].device_tick);
	EXPECT_LT(c.rec[0].host_after_ns, c.rec[1].host_before_ns);
	EXPECT_TRUE(clocks_consistent(&c.rec[0], &c.rec[1], hz));

	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(2, ts.records);
	EXPECT_EQ(2, ts.clock_samples);
	EXPECT_EQ(0, ts.lost);
	EXPECT_EQ(2 * CLK_REC_SIZE, ts.producer);
	EXPECT_EQ(2 * CLK_REC_SIZE, ts.consumer);
	EXPECT_EQ(NPU_TRACE_RING_F_ENABLED, ts.flags);

	/* Disabling writes a closing CLOCK record, once. */
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_EQ(0, t.hdr->flags);
	EXPECT_EQ(CLK_REC_SIZE, trace_unread(&t));
	ASSERT_EQ(0, trace_disable(&t));	/* idempotent */
	EXPECT_EQ(CLK_REC_SIZE, trace_unread(&t));
	c.n = 0;
	ASSERT_EQ(1, trace_consume(&t, &st, collect_clock, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_EQ(2, c.rec[0].hdr.seq);
	EXPECT_EQ(0, st.seq_errors);
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(3, ts.clock_samples);
	trace_close(&t);
}

TEST_F(trace, bad_ioctls)
{
	struct npu_trace_enable en;
	struct trace_ring t;

	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	memset(&en, 0, sizeof(en));
	en.level = 3;
	EXPECT_EQ(-EINVAL, npu_ioctl(t.fd, NPU_TRACE_IOCTL_ENABLE, &en));
	en.level = 1;
	en.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(t.fd, NPU_TRACE_IOCTL_ENABLE, &en));
	en.flags = 0;
	en.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(t.fd, NPU_TRACE_IOCTL_ENABLE, &en));
	EXPECT_EQ(-EFAULT, npu_ioctl(t.fd, NPU_TRACE_IOCTL_ENABLE, NULL));
	EXPECT_EQ(-EFAULT, npu_ioctl(t.fd, NPU_TRACE_IOCTL_STATUS, NULL));
	EXPECT_EQ(-ENOTTY, npu_ioctl(t.fd, NPU_IOCTL_GET_INFO, &en));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, NPU_TRACE_IOCTL_DISABLE, NULL));
	/* Nothing was enabled by the failures. */
	EXPECT_EQ(0, trace_unread(&t));
	EXPECT_EQ(0, t.hdr->flags);
	trace_close(&t);
}

TEST_F(trace, periodic_clock_and_poll)
{
	unsigned long long hz = clock_hz(self->fd);
	struct trace_stats st = { 0 };
	struct pollfd pfd;
	struct trace_ring t;
	static struct clocks c;
	unsigned int i, nper;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 10));
	/* Wake when three CLOCK records are unread. */
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 3 * CLK_REC_SIZE, &t));
	pfd.fd = t.fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, trace_enable(&t, 0));
	/* One record is below the watermark. */
	if (trace_unread(&t) < 3 * CLK_REC_SIZE) {
		pfd.revents = 0;
		EXPECT_EQ(0, poll(&pfd, 1, 0));
	}
	pfd.revents = 0;
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	EXPECT_EQ(POLLIN, pfd.revents);
	EXPECT_LE(3 * CLK_REC_SIZE, trace_unread(&t));

	/* Keep reading for a while: periodic, consecutive, consistent. */
	c.n = 0;
	while (c.n < 20) {
		pfd.revents = 0;
		ASSERT_EQ(1, poll(&pfd, 1, 5000));
		ASSERT_LE(0, trace_consume(&t, &st, collect_clock, &c));
	}
	ASSERT_EQ(0, trace_disable(&t));
	nper = c.n;
	/* The closing CLOCK record. */
	ASSERT_LE(1, trace_consume(&t, &st, collect_clock, &c));
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, st.bad);
	EXPECT_EQ(st.records, st.by_type[NPU_TRACE_REC_CLOCK]);
	for (i = 1; i < c.n; i++) {
		EXPECT_EQ(c.rec[i - 1].hdr.seq + 1, c.rec[i].hdr.seq);
		EXPECT_LT(c.rec[i - 1].device_tick, c.rec[i].device_tick);
		EXPECT_LT(c.rec[i - 1].host_after_ns, c.rec[i].host_before_ns);
		EXPECT_TRUE(clocks_consistent(&c.rec[i - 1], &c.rec[i], hz))
			TH_LOG("record %u", i);
		/* periodic ones 10 ms apart at least */
		if (i < nper)
			EXPECT_LE(c.rec[i - 1].host_before_ns + 10000000ull,
				  c.rec[i].host_after_ns);
	}
	TH_LOG("CLOCK width of the first record: %llu ns (best of %u)",
	       (unsigned long long)c.rec[0].width_ns, c.rec[0].samples);

	/* Disabled: no more records. */
	usleep(50000);
	EXPECT_EQ(0, trace_unread(&t));
	trace_close(&t);
}

/*
 * A one-page ring receiving CLOCK records every millisecond and never read
 * fills up: the overflow is counted exactly, reported in a LOST record as
 * soon as there is room, and sequence numbers account for every record.
 */
TEST_F(trace, ring_full_exact_loss)
{
	struct trace_stats st = { 0 };
	struct npu_trace_status ts0, ts;
	struct pollfd pfd;
	struct trace_ring t;
	uint64_t cap;
	int i;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 1));
	ASSERT_EQ(0, trace_param_set("clock_samples", 1));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	cap = t.data_size / CLK_REC_SIZE;
	ASSERT_EQ(0, trace_enable(&t, 0));
	/* Wait until records were dropped. */
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, trace_status(&t, &ts0));
		if (ts0.lost >= 10)
			break;
		usleep(10000);
	}
	ASSERT_LE(10, ts0.lost);
	/* Full: nothing was overwritten, the data are the first records. */
	EXPECT_LE(t.data_size - CLK_REC_SIZE, trace_unread(&t));
	EXPECT_EQ(cap, ts0.records);

	/* Read everything; then a poll flushes the pending LOST record. */
	ASSERT_LE(0, trace_consume(&t, &st, NULL, NULL));
	EXPECT_EQ(0, st.by_type[NPU_TRACE_REC_LOST]);
	ASSERT_EQ(0, trace_disable(&t));
	pfd.fd = t.fd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_LE(1, trace_consume(&t, &st, NULL, NULL));
	ASSERT_EQ(0, trace_status(&t, &ts));

	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, st.bad);
	EXPECT_EQ(1, st.by_type[NPU_TRACE_REC_LOST]);
	/* Exact: records offered = read + reported lost. */
	EXPECT_EQ(ts.lost, st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(ts.records, st.records);
	EXPECT_EQ((uint64_t)st.last_seq + 1,
		  st.records + st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(ts.clock_samples + ts.lost + 1,
		  st.records + st.lost[NPU_TRACE_LOST_RING_FULL]);
	TH_LOG("ring of %llu records: %llu read, %llu lost",
	       (unsigned long long)cap, (unsigned long long)st.records,
	       (unsigned long long)st.lost[NPU_TRACE_LOST_RING_FULL]);
	trace_close(&t);
}

/* A consumer position the kernel cannot trust makes it drop, not corrupt. */
TEST_F(trace, bogus_consumer)
{
	struct trace_stats st = { 0 };
	struct npu_trace_status ts;
	struct trace_ring t;
	uint64_t prod;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 0));
	prod = t.hdr->producer;
	ASSERT_EQ(CLK_REC_SIZE, prod);
	/* Ahead of the producer. */
	t.hdr->consumer = prod + 8;
	ASSERT_EQ(0, trace_enable(&t, 0));
	ASSERT_EQ(0, trace_enable(&t, 0));
	EXPECT_EQ(prod, t.hdr->producer);
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(2, ts.lost);
	/* Back to sane: the LOST record comes first, then new records. */
	t.hdr->consumer = 0;
	ASSERT_EQ(0, trace_enable(&t, 0));
	ASSERT_EQ(3, trace_consume(&t, &st, NULL, NULL));
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(2, st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(2, st.by_type[NPU_TRACE_REC_CLOCK]);
	EXPECT_EQ(4, st.last_seq);
	trace_close(&t);
}

/* Records never wrap: a PAD record fills the tail. */
TEST_F(trace, pad_at_wrap)
{
	struct trace_stats st = { 0 };
	struct trace_ring t;
	uint64_t cap, i;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_param_set("clock_samples", 1));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	cap = t.data_size / CLK_REC_SIZE;
	/* Go around the ring three times, reading as we go. */
	for (i = 0; i < 3 * cap + 1; i++) {
		ASSERT_EQ(0, trace_enable(&t, 0));
		ASSERT_EQ(1, trace_consume(&t, &st, NULL, NULL));
	}
	EXPECT_EQ(3 * cap + 1, st.records);
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, st.bad);
	/* 4096 % 56 != 0: every lap ends with a PAD record. */
	if (t.data_size % CLK_REC_SIZE)
		EXPECT_EQ(3, st.pads);
	EXPECT_LT(t.data_size * 3, t.hdr->producer);
	trace_close(&t);
}

TEST_F(trace, two_rings)
{
	struct trace_stats s1 = { 0 }, s2 = { 0 };
	struct npu_trace_status ts;
	struct trace_ring a, b;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 5));
	ASSERT_EQ(0, trace_open(self->fd, 0, 2, 0, &a));
	ASSERT_EQ(0, trace_open(self->fd, 0, 8, 0, &b));
	ASSERT_EQ(0, trace_enable(&a, 0));
	ASSERT_EQ(0, trace_enable(&b, 0));
	usleep(100000);
	ASSERT_EQ(0, trace_disable(&a));
	ASSERT_LE(2, trace_consume(&a, &s1, NULL, NULL));
	usleep(50000);
	/* a is disabled: nothing new; b keeps receiving. */
	EXPECT_EQ(0, trace_unread(&a));
	ASSERT_LE(2, trace_consume(&b, &s2, NULL, NULL));
	EXPECT_LT(s1.records, s2.records);
	EXPECT_EQ(0, s1.seq_errors);
	EXPECT_EQ(0, s2.seq_errors);
	ASSERT_EQ(0, trace_status(&a, &ts));
	EXPECT_EQ(s1.records, ts.records);
	/* Closing an enabled ring leaves the other one working. */
	trace_close(&b);
	ASSERT_EQ(0, trace_enable(&a, 0));
	usleep(30000);
	ASSERT_LE(1, trace_consume(&a, &s1, NULL, NULL));
	EXPECT_EQ(0, s1.seq_errors);
	trace_close(&a);
}

/*
 * A watermark above what the ring holds when its next record no longer
 * fits (here: one byte below the data size, with 56-byte records) is never
 * reached. Once records are dropped the ring must still become readable
 * and a sleeping reader must be woken, or it sleeps while all is lost.
 */
TEST_F(trace, watermark_above_last_record)
{
	struct trace_stats st = { 0 };
	struct npu_trace_status ts;
	struct pollfd pfd;
	struct trace_ring t;
	struct trace_poller p;
	pthread_t th;
	uint64_t fit, i;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_param_set("clock_samples", 1));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, getpagesize() - 1, &t));
	fit = t.data_size / CLK_REC_SIZE;
	/* Each ENABLE writes one CLOCK record: fill the ring exactly. */
	for (i = 0; i < fit; i++)
		ASSERT_EQ(0, trace_enable(&t, 0));
	ASSERT_EQ(fit * CLK_REC_SIZE, trace_unread(&t));
	ASSERT_GT(t.data_size - 1, trace_unread(&t));
	pfd.fd = t.fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	/* A reader sleeps in poll(); the next record is dropped. */
	memset(&p, 0, sizeof(p));
	p.fd = t.fd;
	p.timeout_ms = 10000;
	ASSERT_EQ(0, pthread_create(&th, NULL, trace_poller_main, &p));
	usleep(100000);
	ASSERT_EQ(0, trace_enable(&t, 0));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(1, p.ret);
	EXPECT_EQ(POLLIN, p.revents);
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(1, ts.lost);
	pfd.revents = 0;
	EXPECT_EQ(1, poll(&pfd, 1, 0));

	/* Reading makes room: LOST, then the closing CLOCK record. */
	ASSERT_EQ((long)fit, trace_consume(&t, &st, NULL, NULL));
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_EQ(2, trace_consume(&t, &st, NULL, NULL));
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, st.bad);
	EXPECT_EQ(1, st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(fit + 1, st.by_type[NPU_TRACE_REC_CLOCK]);
	trace_close(&t);
}

/* NPU_TRACE_IOCTL_STATUS reports the kernel's flags, not the page's. */
TEST_F(trace, status_flags_from_kernel)
{
	struct npu_trace_status ts;
	struct trace_ring t;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	/* The header page is writable: a reader may scribble on it. */
	t.hdr->flags = ~0u;
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(0, ts.flags);
	ASSERT_EQ(0, trace_enable(&t, 0));
	EXPECT_EQ(NPU_TRACE_RING_F_ENABLED, t.hdr->flags);
	t.hdr->flags = NPU_TRACE_RING_F_DEAD;
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(NPU_TRACE_RING_F_ENABLED, ts.flags);
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(0, ts.flags);
	trace_close(&t);
}

TEST_F(trace, fdinfo)
{
	char path[64], buf[1024];
	struct trace_ring t;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 0));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", t.fd);
	ASSERT_EQ(0, npu_read_file(path, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "ring_id:"));
	EXPECT_NE(NULL, strstr(buf, "scope:\tprocess"));
	EXPECT_NE(NULL, strstr(buf, "enabled:\t1"));
	EXPECT_NE(NULL, strstr(buf, "records:\t1"));
	trace_close(&t);
}

/*
 * NPU_TRACE_ALL_PROCESSES needs CAP_PERFMON or CAP_SYS_ADMIN unless
 * trace_paranoid is 0; the own-process scope needs nothing.
 */
TEST_F(trace, all_processes_privilege)
{
	struct trace_ring t;
	pid_t pid;
	int status;

	ASSERT_EQ(0, trace_open(self->fd, NPU_TRACE_ALL_PROCESSES, 1, 0, &t));
	trace_close(&t);

	ASSERT_EQ(0, trace_param_set("trace_paranoid", 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* /dev/npu0 was opened as root; now become nobody. */
		if (npu_drop_to_nobody())
			_exit(10);
		if (trace_open(self->fd, NPU_TRACE_ALL_PROCESSES, 1, 0, &t) !=
		    -EACCES)
			_exit(11);
		if (trace_open(self->fd, 0, 1, 0, &t))
			_exit(12);
		if (trace_enable(&t, 0))
			_exit(13);
		trace_close(&t);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	ASSERT_EQ(0, trace_param_set("trace_paranoid", 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (npu_drop_to_nobody())
			_exit(10);
		if (trace_open(self->fd, NPU_TRACE_ALL_PROCESSES, 1, 0, &t))
			_exit(11);
		trace_close(&t);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

static int64_t ts_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

TEST_F(trace, clock_sample_ioctl)
{
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
					    CLOCK_REALTIME, CLOCK_BOOTTIME };
	unsigned long long hz = clock_hz(self->fd);
	struct npu_clock_sample cs;
	unsigned int c, i;

	for (c = 0; c < 4; c++) {
		uint64_t minw = UINT64_MAX;
		int64_t t0, t1;

		memset(&cs, 0, sizeof(cs));
		cs.clockid = clocks[c];
		cs.count = c == 0 ? NPU_CLOCK_MAX_SAMPLES : 4 + c;
		t0 = ts_ns(clocks[c]);
		ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
		t1 = ts_ns(clocks[c]);
		EXPECT_EQ(hz, cs.clock_hz);
		ASSERT_LT(cs.best, cs.count);
		for (i = 0; i < cs.count; i++) {
			const struct npu_clock_pair *s = &cs.samples[i];
			uint64_t w = s->host_after_ns - s->host_before_ns;

			EXPECT_LE(s->host_before_ns, s->host_after_ns);
			/* Brackets inside the ioctl, in the chosen clock. */
			EXPECT_LE(t0, (int64_t)s->host_before_ns)
				TH_LOG("clock %d sample %u", clocks[c], i);
			EXPECT_GE(t1, (int64_t)s->host_after_ns)
				TH_LOG("clock %d sample %u", clocks[c], i);
			if (i) {
				EXPECT_LT(cs.samples[i - 1].device_tick,
					  s->device_tick);
				EXPECT_LE(cs.samples[i - 1].host_before_ns,
					  s->host_before_ns);
			}
			if (w < minw)
				minw = w;
		}
		EXPECT_EQ(minw, cs.samples[cs.best].host_after_ns -
				cs.samples[cs.best].host_before_ns);
		for (i = cs.count; i < NPU_CLOCK_MAX_SAMPLES; i++)
			EXPECT_EQ(0, cs.samples[i].device_tick);
		if (c == 0)
			TH_LOG("best of %u samples: width %llu ns", cs.count,
			       (unsigned long long)minw);
	}

	memset(&cs, 0, sizeof(cs));
	cs.clockid = CLOCK_MONOTONIC;
	cs.count = 0;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
	cs.count = NPU_CLOCK_MAX_SAMPLES + 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
	cs.count = 1;
	cs.clockid = CLOCK_PROCESS_CPUTIME_ID;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
	cs.clockid = 1000;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
	cs.clockid = CLOCK_MONOTONIC;
	cs.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
	cs.flags = 0;
	cs.reserved[0] = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, &cs));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_CLOCK_SAMPLE, NULL));
}

TEST_HARNESS_MAIN
