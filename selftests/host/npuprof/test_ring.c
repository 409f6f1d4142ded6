// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ring.c - the ring parser of libnpuprof (lib/npuprof/ring.c) on the
 * host: a producer thread implements the kernel's side of
 * Documentation/npu/ring.rst (the model of driver/npu_trace.c: records then
 * a release store of the producer position, PAD at the tail, dropped
 * records counted in a RING_FULL LOST record written before any other,
 * sequence numbers), and the test thread consumes with npf_ring_parse()
 * and a release store of the consumer position. Checked: every record
 * once, in order, intact, across wraps of small rings and of the 64-bit
 * positions and 32-bit sequence numbers; exact loss accounting with a slow
 * consumer; unknown and longer records; each kind of corruption (with the
 * data area followed by a PROT_NONE page, so that an overread crashes);
 * a callback stopping the parse; the header check.
 *
 * Locking: the two threads share only the ring header (positions, with
 * acquire/release) and a few counters read with atomics. Lifetime: each
 * test maps its data area and unmaps it at the end.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ring_parse.h"

#define NREASONS	4
#define MAX_REC		1024	/* largest record the generator makes */

/* ---- a data area between two PROT_NONE pages ---- */

struct area {
	uint8_t *map;
	size_t maplen;
	uint8_t *data;
	uint64_t size;
};

static int area_map(struct area *a, uint64_t size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	a->maplen = size + 2 * pg;
	a->map = mmap(NULL, a->maplen, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->map == MAP_FAILED)
		return -errno;
	a->data = a->map + pg;
	a->size = size;
	if (mprotect(a->data, size, PROT_READ | PROT_WRITE))
		return -errno;
	return 0;
}

static void area_unmap(struct area *a)
{
	munmap(a->map, a->maplen);
}

/* ---- the kernel's producer (driver/npu_trace.c, ring.rst) ---- */

struct kring {
	struct npu_trace_ring *hdr;
	uint8_t *data;
	uint64_t data_size;
	uint64_t prod;
	uint32_t seq;
	uint64_t pend[NREASONS];
	uint64_t n_records;	/* non-PAD records written */
	uint64_t n_pads;
	uint64_t n_lost;	/* records dropped, read by the consumer */
	uint64_t n_lost_recs;	/* LOST records written */
};

static void kring_init(struct kring *r, struct npu_trace_ring *hdr,
		       struct area *a, uint64_t pos, uint32_t seq)
{
	memset(r, 0, sizeof(*r));
	memset(hdr, 0, sizeof(*hdr));
	hdr->version = NPU_TRACE_RING_VERSION;
	hdr->data_offset = (uint64_t)sysconf(_SC_PAGESIZE);
	hdr->data_size = a->size;
	hdr->hdr_size = sizeof(*hdr);
	hdr->producer = pos;
	hdr->consumer = pos;
	r->hdr = hdr;
	r->data = a->data;
	r->data_size = a->size;
	r->prod = pos;
	r->seq = seq;
}

/* Unread bytes, or UINT64_MAX when the consumer position is inconsistent */
static uint64_t kring_used(struct kring *r)
{
	uint64_t used = r->prod -
		__atomic_load_n(&r->hdr->consumer, __ATOMIC_ACQUIRE);

	return used > r->data_size ? UINT64_MAX : used;
}

/* Copy one record in, with a PAD record first if it would wrap */
static bool kring_write(struct kring *r, const void *rec, uint32_t size)
{
	uint64_t used = kring_used(r);
	uint64_t off = r->prod & (r->data_size - 1);
	uint64_t tail = r->data_size - off;
	uint64_t need = tail < size ? tail + size : size;

	if (used == UINT64_MAX || r->data_size - used < need)
		return false;
	if (tail < size) {
		struct npu_trace_rec_hdr pad = {
			.type = NPU_TRACE_REC_PAD,
			.size = (uint16_t)tail,
		};

		memcpy(r->data + off, &pad, sizeof(pad));
		r->prod += tail;
		r->n_pads++;
		off = 0;
	}
	memcpy(r->data + off, rec, size);
	r->prod += size;
	__atomic_store_n(&r->hdr->producer, r->prod, __ATOMIC_RELEASE);
	return true;
}

/* Write the pending LOST records; false when one does not fit yet */
static bool kring_flush_lost(struct kring *r)
{
	struct npu_trace_rec_lost rec;
	uint32_t reason;

	for (reason = NPU_TRACE_LOST_RING_FULL; reason < NREASONS; reason++) {
		if (!r->pend[reason])
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.hdr.type = NPU_TRACE_REC_LOST;
		rec.hdr.size = sizeof(rec);
		rec.hdr.seq = r->seq;
		rec.reason = reason;
		rec.count = r->pend[reason];
		if (!kring_write(r, &rec, sizeof(rec)))
			return false;
		r->seq++;
		r->n_records++;
		r->n_lost_recs++;
		r->pend[reason] = 0;
	}
	return true;
}

/* Offer one record: pending LOST records first, else it is dropped too */
static bool kring_emit(struct kring *r, void *rec, uint32_t size)
{
	struct npu_trace_rec_hdr *h = rec;

	if (kring_flush_lost(r)) {
		h->seq = r->seq;
		if (kring_write(r, rec, size)) {
			r->seq++;
			r->n_records++;
			return true;
		}
	}
	r->seq++;
	r->pend[NPU_TRACE_LOST_RING_FULL]++;
	__atomic_store_n(&r->n_lost, r->n_lost + 1, __ATOMIC_RELAXED);
	return false;
}

/* Device or host losses: no sequence numbers */
static void kring_report_lost(struct kring *r, uint32_t reason,
			      uint64_t count)
{
	r->pend[reason] += count;
	kring_flush_lost(r);
}

/* Room for @size bytes at the producer, a PAD included (kring_write) */
static bool kring_fits(struct kring *r, uint32_t size)
{
	uint64_t used = kring_used(r);
	uint64_t tail = r->data_size - (r->prod & (r->data_size - 1));
	uint64_t need = tail < size ? tail + size : size;

	return used != UINT64_MAX && r->data_size - used >= need;
}

/* ---- records: type, size and content are a function of their number ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static const uint16_t unknown_types[] = { 7, 8, 9, 200, 0xffff };

/*
 * Data record number @k into @buf (MAX_REC bytes): EXEC, OP, CLOCK at
 * their struct size, EXEC and OP longer than their struct, unknown types
 * of 16 to 488 bytes. After the header: @k, then bytes derived from @k.
 */
static uint32_t gen_rec(uint64_t k, uint64_t *buf)
{
	uint64_t x = mix64(k);
	struct npu_trace_rec_hdr h = { 0 };
	uint32_t i;

	switch (x & 7) {
	case 0: case 1:
		h.type = NPU_TRACE_REC_EXEC;
		h.size = sizeof(struct npu_trace_rec_exec);
		break;
	case 2: case 3:
		h.type = NPU_TRACE_REC_OP;
		h.size = sizeof(struct npu_trace_rec_op);
		break;
	case 4:
		h.type = NPU_TRACE_REC_CLOCK;
		h.size = sizeof(struct npu_trace_rec_clock);
		break;
	case 5:
		h.type = NPU_TRACE_REC_EXEC;
		h.size = sizeof(struct npu_trace_rec_exec) +
			 8 * (1 + (x >> 8) % 8);
		break;
	case 6:
		h.type = unknown_types[(x >> 16) % 5];
		h.size = 16 + 8 * ((x >> 24) % 60);
		break;
	default:
		h.type = NPU_TRACE_REC_OP;
		h.size = sizeof(struct npu_trace_rec_op) +
			 8 * (1 + (x >> 8) % 4);
		break;
	}
	memcpy(buf, &h, sizeof(h));
	buf[1] = k;
	for (i = 2; i < h.size / 8u; i++)
		buf[i] = mix64(k * 131 + i);
	return h.size;
}

static bool is_unknown(uint16_t type)
{
	return !npf_ring_rec_min_size(type);
}

static bool is_longer(uint16_t type, uint32_t size)
{
	return !is_unknown(type) && size > npf_ring_rec_min_size(type);
}

/* ---- the producer thread ---- */

struct producer {
	struct kring r;
	uint64_t n;		/* data records to offer */
	bool wait;		/* wait for room: nothing is dropped */
	uint32_t dev_every;	/* a DEVICE loss every this many records */
	uint32_t host_every;	/* a HOST loss every this many records */
	uint32_t yield_every;	/* let the consumer run (0: never) */
	/* results */
	uint64_t dev_total, host_total;
	uint64_t written_by_type[8];
	uint64_t written_unknown, written_longer;
	int offered_all;	/* atomic: every record offered */
	int done;		/* atomic: and the last LOST written */
};

static void prod_wait_room(struct producer *p, uint32_t size)
{
	while (!kring_flush_lost(&p->r) || !kring_fits(&p->r, size))
		sched_yield();
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	uint64_t buf[MAX_REC / 8];
	uint64_t k;

	for (k = 0; k < p->n; k++) {
		uint32_t size = gen_rec(k, buf);
		struct npu_trace_rec_hdr *h = (void *)buf;

		if (p->wait)
			prod_wait_room(p, size);
		if (kring_emit(&p->r, buf, size)) {
			if (h->type < 8)
				p->written_by_type[h->type]++;
			p->written_unknown += is_unknown(h->type);
			p->written_longer += is_longer(h->type, size);
		}
		if (p->dev_every && k % p->dev_every == p->dev_every - 1) {
			kring_report_lost(&p->r, NPU_TRACE_LOST_DEVICE, k % 7 + 1);
			p->dev_total += k % 7 + 1;
		}
		if (p->host_every && k % p->host_every == 0) {
			kring_report_lost(&p->r, NPU_TRACE_LOST_HOST, 3);
			p->host_total += 3;
		}
		if (p->yield_every && k % p->yield_every == 0)
			sched_yield();
	}
	__atomic_store_n(&p->offered_all, 1, __ATOMIC_RELEASE);
	/* as NPU_TRACE_IOCTL_DISABLE: the pending LOST records, once they fit */
	while (!kring_flush_lost(&p->r))
		sched_yield();
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- the consumer's callback: order, content, losses ---- */

struct rx {
	uint64_t next_k;	/* next data record expected */
	uint64_t dropped;	/* RING_FULL count not yet matched */
	uint64_t got;		/* data records received */
	uint64_t bad;		/* out of order or altered */
	uint64_t unknown, longer;
	uint64_t lost[NREASONS];
	uint64_t bytes;
};

static int rx_cb(void *ctx, const struct npu_trace_rec_hdr *rec)
{
	struct rx *rx = ctx;
	uint64_t want[MAX_REC / 8];
	const uint64_t *w = (const void *)rec;
	uint32_t size;

	rx->bytes += rec->size;
	if (rec->type == NPU_TRACE_REC_LOST) {
		const struct npu_trace_rec_lost *l = (const void *)rec;

		rx->lost[l->reason < NREASONS ? l->reason : 0] += l->count;
		if (l->reason == NPU_TRACE_LOST_RING_FULL)
			rx->dropped += l->count;
		return 0;
	}
	/* the records dropped were the data records before this one */
	if (w[1] != rx->next_k + rx->dropped) {
		rx->bad++;
		return 0;
	}
	size = gen_rec(w[1], want);
	if (size != rec->size || memcmp(want, w, 4) ||
	    memcmp(want + 1, w + 1, size - 8))
		rx->bad++;
	rx->next_k = w[1] + 1;
	rx->dropped = 0;
	rx->got++;
	rx->unknown += is_unknown(rec->type);
	rx->longer += is_longer(rec->type, rec->size);
	return 0;
}

/*
 * Consume until the producer is done. Every @pace rounds (0: never) wait
 * until the producer dropped more records, so that drops are certain.
 */
static int consume(struct producer *p, struct rx *rx,
		   struct npf_ring_stats *st, uint32_t pace, char *err,
		   size_t errlen)
{
	struct npu_trace_ring *hdr = p->r.hdr;
	uint64_t cons = hdr->consumer;
	uint64_t seen_lost = 0;
	uint64_t round;
	int ret;

	for (round = 0;; round++) {
		int done = __atomic_load_n(&p->done, __ATOMIC_ACQUIRE);
		uint64_t prod = __atomic_load_n(&hdr->producer,
						__ATOMIC_ACQUIRE);

		ret = npf_ring_parse(p->r.data, p->r.data_size, &cons, prod,
				     rx_cb, rx, st, err, errlen);
		if (ret)
			return ret;
		__atomic_store_n(&hdr->consumer, cons, __ATOMIC_RELEASE);
		if (done)	/* prod was loaded after the last store */
			return 0;
		if (pace && round % pace == 0) {
			while (__atomic_load_n(&p->r.n_lost, __ATOMIC_RELAXED) ==
			       seen_lost &&
			       !__atomic_load_n(&p->offered_all,
						__ATOMIC_ACQUIRE))
				sched_yield();
			seen_lost = __atomic_load_n(&p->r.n_lost,
						    __ATOMIC_RELAXED);
		} else if (cons == prod) {
			sched_yield();
		}
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Positions start close to 2^64 and seqs close to 2^32: both wrap */
#define START_POS(size)	((uint64_t)0 - 5 * (size) / 2 - 40)
#define START_SEQ	(UINT32_MAX - 100000u)

/* The checks every threaded run ends with */
static void check_run(struct __test_metadata *_metadata, struct producer *p,
		      struct rx *rx, struct npf_ring_stats *st)
{
	int t;

	EXPECT_EQ(0, rx->bad);
	EXPECT_EQ(0, st->seq_gaps);
	/* records offered = records read + sum of RING_FULL counts */
	EXPECT_EQ((uint32_t)(p->r.seq - START_SEQ),
		  st->records + st->lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(p->n, rx->got + st->lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(p->n, rx->next_k + rx->dropped);
	EXPECT_EQ(p->r.n_lost, st->lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(p->dev_total, st->lost[NPU_TRACE_LOST_DEVICE]);
	EXPECT_EQ(p->host_total, st->lost[NPU_TRACE_LOST_HOST]);
	for (t = 0; t < NREASONS; t++)
		EXPECT_EQ(rx->lost[t], st->lost[t]);
	EXPECT_EQ(p->r.n_records, st->records);
	EXPECT_EQ(p->r.n_pads, st->pads);
	EXPECT_EQ(p->r.n_lost_recs, st->by_type[NPU_TRACE_REC_LOST]);
	for (t = 1; t < 8; t++)
		if (t != NPU_TRACE_REC_LOST)
			EXPECT_EQ(p->written_by_type[t], st->by_type[t]);
	EXPECT_EQ(p->written_unknown, st->unknown);
	EXPECT_EQ(p->written_unknown, rx->unknown);
	EXPECT_EQ(p->written_longer, rx->longer);
	EXPECT_TRUE(st->have_seq);
	EXPECT_EQ((uint32_t)(p->r.seq - 1), st->last_seq);
	EXPECT_EQ(p->r.prod, p->r.hdr->consumer);
}

static void run(struct __test_metadata *_metadata, uint64_t data_size,
		struct producer *p, struct rx *rx, struct npf_ring_stats *st,
		uint32_t pace)
{
	struct npu_trace_ring hdr;
	struct area a;
	pthread_t th;
	char err[256] = "";
	double t0, t;

	ASSERT_EQ(0, area_map(&a, data_size));
	kring_init(&p->r, &hdr, &a, START_POS(data_size), START_SEQ);
	ASSERT_EQ(0, npf_ring_check_hdr(&hdr, data_size, err, sizeof(err)));
	/* a fresh ring starts at seq START_SEQ: check the first record too */
	st->have_seq = true;
	st->last_seq = START_SEQ - 1;
	t0 = now_s();
	ASSERT_EQ(0, pthread_create(&th, NULL, producer_main, p));
	EXPECT_EQ(0, consume(p, rx, st, pace, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, pthread_join(th, NULL));
	t = now_s() - t0;
	/* information only: the pair of threads, sanitizers included */
	TH_LOG("%llu records (%llu read, %llu dropped, %llu PAD), %.1f MB in %.2f s: %.2f Mrec/s",
	       (unsigned long long)p->n, (unsigned long long)rx->got,
	       (unsigned long long)st->lost[NPU_TRACE_LOST_RING_FULL],
	       (unsigned long long)st->pads, rx->bytes / 1e6, t,
	       st->records / t / 1e6);
	check_run(_metadata, p, rx, st);
	area_unmap(&a);
}

/* Millions of mixed records through a 2-page ring: all, once, in order */
TEST(wrap_and_pad)
{
	struct producer p = {
		.n = 3000000, .wait = true, .dev_every = 5000,
		.host_every = 7777,
	};
	struct npf_ring_stats st = { 0 };
	struct rx rx = { 0 };

	run(_metadata, 2 * (uint64_t)sysconf(_SC_PAGESIZE), &p, &rx, &st, 0);
	EXPECT_EQ(p.n, rx.got);
	EXPECT_EQ(0, st.lost[NPU_TRACE_LOST_RING_FULL]);
	/* many wraps */
	EXPECT_GT(st.pads, 10000);
	EXPECT_GT(rx.unknown, 100000);
	EXPECT_GT(rx.longer, 100000);
	EXPECT_GT(st.lost[NPU_TRACE_LOST_DEVICE], 0);
	EXPECT_GT(st.lost[NPU_TRACE_LOST_HOST], 0);
}

/* A slow consumer on a 1-page ring: drops, counted exactly */
TEST(lost_ring_full)
{
	struct producer p = {
		.n = 1000000, .wait = false, .dev_every = 3000,
		.host_every = 4001, .yield_every = 4,
	};
	struct npf_ring_stats st = { 0 };
	struct rx rx = { 0 };

	run(_metadata, (uint64_t)sysconf(_SC_PAGESIZE), &p, &rx, &st, 8);
	EXPECT_GT(st.lost[NPU_TRACE_LOST_RING_FULL], 0);
	EXPECT_GT(rx.got, 0);
	EXPECT_GT(st.pads, 0);
	EXPECT_GT(st.lost[NPU_TRACE_LOST_DEVICE], 0);
	EXPECT_GT(st.lost[NPU_TRACE_LOST_HOST], 0);
}

/* ---- single-threaded rings built by hand ---- */

/* Write a record header at @pos (payload zeroed), return the next position */
static uint64_t put(struct area *a, uint64_t pos, uint16_t type,
		    uint16_t size, uint32_t seq)
{
	struct npu_trace_rec_hdr h = { .type = type, .size = size, .seq = seq };
	uint64_t off = pos & (a->size - 1);
	uint64_t n = size < 8 ? 8 : size;

	if (n > a->size - off)
		n = a->size - off;
	memset(a->data + off, 0, n);
	memcpy(a->data + off, &h, sizeof(h));
	return pos + size;
}

static uint64_t put_lost(struct area *a, uint64_t pos, uint16_t size,
			 uint32_t seq, uint32_t reason, uint64_t count)
{
	struct npu_trace_rec_lost *l =
		(void *)(a->data + (pos & (a->size - 1)));
	uint64_t next = put(a, pos, NPU_TRACE_REC_LOST, size, seq);

	l->reason = reason;
	l->count = count;
	return next;
}

/* Records the callback saw; it reads each one whole, as a writer would */
struct seen {
	uint32_t n;
	uint64_t sum;
	uint32_t stop_at;	/* return 42 at this call (1-based), 0: never */
	uint16_t type[16];
	uint16_t size[16];
	uint32_t seq[16];
	const void *at[16];
};

static int seen_cb(void *ctx, const struct npu_trace_rec_hdr *rec)
{
	struct seen *s = ctx;
	const uint8_t *b = (const void *)rec;
	uint32_t i;

	for (i = 0; i < rec->size; i++)
		s->sum += b[i];
	if (s->n < 16) {
		s->type[s->n] = rec->type;
		s->size[s->n] = rec->size;
		s->seq[s->n] = rec->seq;
		s->at[s->n] = rec;
	}
	s->n++;
	return s->n == s->stop_at ? 42 : 0;
}

TEST(min_sizes)
{
	EXPECT_EQ(8, npf_ring_rec_min_size(NPU_TRACE_REC_PAD));
	EXPECT_EQ(112, npf_ring_rec_min_size(NPU_TRACE_REC_EXEC));
	EXPECT_EQ(80, npf_ring_rec_min_size(NPU_TRACE_REC_OP));
	EXPECT_EQ(56, npf_ring_rec_min_size(NPU_TRACE_REC_CLOCK));
	EXPECT_EQ(24, npf_ring_rec_min_size(NPU_TRACE_REC_LOST));
	EXPECT_EQ(80, npf_ring_rec_min_size(NPU_TRACE_REC_BO_ALLOC));
	EXPECT_EQ(80, npf_ring_rec_min_size(NPU_TRACE_REC_BO_FREE));
	EXPECT_EQ(0, npf_ring_rec_min_size(7));
	EXPECT_EQ(0, npf_ring_rec_min_size(0xffff));
}

/* Unknown types and known types longer than their struct, by size */
TEST(unknown_and_longer)
{
	struct npf_ring_stats st = { 0 };
	struct seen s = { 0 };
	struct area a;
	char err[256] = "";
	uint64_t pos = 0, cons = 0;

	ASSERT_EQ(0, area_map(&a, 4096));
	pos = put(&a, pos, NPU_TRACE_REC_EXEC, 128, 0);
	pos = put(&a, pos, 77, 40, 1);
	pos = put(&a, pos, 9, 8, 2);		/* header only */
	pos = put_lost(&a, pos, 32, 3, NPU_TRACE_LOST_DEVICE, 5);
	pos = put_lost(&a, pos, 24, 4, 9, 6);	/* unknown reason */
	pos = put(&a, pos, NPU_TRACE_REC_OP, 88, 5);
	pos = put(&a, pos, NPU_TRACE_REC_PAD, 64, 0);
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 6);
	EXPECT_EQ(0, npf_ring_parse(a.data, a.size, &cons, pos, seen_cb, &s,
				    &st, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(pos, cons);
	ASSERT_EQ(7, s.n);
	EXPECT_EQ(NPU_TRACE_REC_EXEC, s.type[0]);
	EXPECT_EQ(128, s.size[0]);
	EXPECT_EQ(77, s.type[1]);
	EXPECT_EQ(40, s.size[1]);
	EXPECT_EQ(a.data + 128, s.at[1]);
	EXPECT_EQ(9, s.type[2]);
	EXPECT_EQ(32, s.size[3]);
	EXPECT_EQ(88, s.size[5]);
	EXPECT_EQ(NPU_TRACE_REC_CLOCK, s.type[6]);
	EXPECT_EQ(6, s.seq[6]);
	EXPECT_EQ(7, st.records);
	EXPECT_EQ(1, st.pads);
	EXPECT_EQ(2, st.unknown);
	EXPECT_EQ(1, st.by_type[NPU_TRACE_REC_EXEC]);
	EXPECT_EQ(1, st.by_type[NPU_TRACE_REC_OP]);
	EXPECT_EQ(1, st.by_type[NPU_TRACE_REC_CLOCK]);
	EXPECT_EQ(2, st.by_type[NPU_TRACE_REC_LOST]);
	EXPECT_EQ(5, st.lost[NPU_TRACE_LOST_DEVICE]);
	EXPECT_EQ(6, st.lost[0]);
	EXPECT_EQ(0, st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(0, st.seq_gaps);
	EXPECT_EQ(6, st.last_seq);
	area_unmap(&a);
}

/* The seq rule: gaps only where no RING_FULL count explains them */
TEST(seq_accounting)
{
	struct npf_ring_stats st = { 0 };
	struct area a;
	char err[256] = "";
	uint64_t pos = 0, cons = 0;

	ASSERT_EQ(0, area_map(&a, 4096));
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 0);
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 1);
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 3);	/* 2: unexplained */
	pos = put_lost(&a, pos, 24, 6, NPU_TRACE_LOST_RING_FULL, 2);
	pos = put(&a, pos, NPU_TRACE_REC_PAD, 16, 0);	/* no seq */
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 7);
	pos = put_lost(&a, pos, 24, 8, NPU_TRACE_LOST_DEVICE, 100);
	pos = put_lost(&a, pos, 24, 9, NPU_TRACE_LOST_HOST, 5);
	pos = put(&a, pos, 99, 16, 10);
	ASSERT_EQ(0, npf_ring_parse(a.data, a.size, &cons, pos, NULL, NULL,
				    &st, err, sizeof(err)));
	EXPECT_EQ(1, st.seq_gaps);
	EXPECT_EQ(2, st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(100, st.lost[NPU_TRACE_LOST_DEVICE]);
	EXPECT_EQ(5, st.lost[NPU_TRACE_LOST_HOST]);
	EXPECT_EQ(10, st.last_seq);

	/* across 2^32, a LOST record counting too few, one counting too many */
	memset(&st, 0, sizeof(st));
	st.have_seq = true;
	st.last_seq = UINT32_MAX - 2;
	cons = pos = 0;
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, UINT32_MAX - 1);
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, UINT32_MAX);
	pos = put_lost(&a, pos, 24, 2, NPU_TRACE_LOST_RING_FULL, 2);
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 3);
	ASSERT_EQ(0, npf_ring_parse(a.data, a.size, &cons, pos, NULL, NULL,
				    &st, err, sizeof(err)));
	EXPECT_EQ(0, st.seq_gaps);
	pos = put_lost(&a, pos, 24, 8, NPU_TRACE_LOST_RING_FULL, 1); /* 3 */
	pos = put_lost(&a, pos, 24, 9, NPU_TRACE_LOST_RING_FULL, 2); /* -2 */
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 8);		/* back 2 */
	ASSERT_EQ(0, npf_ring_parse(a.data, a.size, &cons, pos, NULL, NULL,
				    &st, err, sizeof(err)));
	EXPECT_EQ(3 + 2 + 2, st.seq_gaps);
	EXPECT_EQ(8, st.last_seq);
	area_unmap(&a);
}

/* A nonzero callback return stops at that record, not consumed */
TEST(callback_stops)
{
	struct npf_ring_stats st = { 0 };
	struct seen s = { .stop_at = 3 };
	struct area a;
	char err[256] = "";
	uint64_t pos = 4096 - 64, cons = pos, third;

	ASSERT_EQ(0, area_map(&a, 4096));
	pos = put(&a, pos, NPU_TRACE_REC_CLOCK, 56, 0);
	pos = put(&a, pos, NPU_TRACE_REC_PAD, 8, 0);	/* to the end */
	pos = put(&a, pos, NPU_TRACE_REC_OP, 80, 1);
	third = pos;
	pos = put(&a, pos, NPU_TRACE_REC_EXEC, 112, 2);
	pos = put(&a, pos, NPU_TRACE_REC_OP, 80, 3);
	EXPECT_EQ(42, npf_ring_parse(a.data, a.size, &cons, pos, seen_cb, &s,
				     &st, err, sizeof(err)));
	EXPECT_EQ(third, cons);
	EXPECT_EQ(3, s.n);
	EXPECT_EQ(NPU_TRACE_REC_EXEC, s.type[2]);
	EXPECT_EQ(2, st.records);
	EXPECT_EQ(0, st.by_type[NPU_TRACE_REC_EXEC]);
	EXPECT_EQ(1, st.last_seq);
	/* again: the stopped record comes first */
	EXPECT_EQ(0, npf_ring_parse(a.data, a.size, &cons, pos, seen_cb, &s,
				    &st, err, sizeof(err)));
	EXPECT_EQ(pos, cons);
	EXPECT_EQ(5, s.n);
	EXPECT_EQ(NPU_TRACE_REC_EXEC, s.type[3]);
	EXPECT_EQ(2, s.seq[3]);
	EXPECT_EQ(4, st.records);
	EXPECT_EQ(1, st.pads);
	EXPECT_EQ(0, st.seq_gaps);
	EXPECT_EQ(3, st.last_seq);
	area_unmap(&a);
}

/* A full ring, producer exactly data_size ahead, is fine */
TEST(full_ring)
{
	struct npf_ring_stats st = { 0 };
	struct area a;
	char err[256] = "";
	uint64_t pos = (uint64_t)0 - 1024, cons = pos, end = pos + 4096;
	uint32_t seq = 0;

	ASSERT_EQ(0, area_map(&a, 4096));
	while (pos != end)
		pos = put(&a, pos, NPU_TRACE_REC_LOST, 64, seq++);
	EXPECT_EQ(0, npf_ring_parse(a.data, a.size, &cons, pos, NULL, NULL,
				    &st, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(end, cons);
	EXPECT_EQ(64, st.records);
	EXPECT_EQ(0, st.seq_gaps);
	/* empty: nothing to do */
	EXPECT_EQ(0, npf_ring_parse(a.data, a.size, &cons, cons, NULL, NULL,
				    &st, err, sizeof(err)));
	EXPECT_EQ(end, cons);
	area_unmap(&a);
}

/* ---- corruption: -EBADMSG, a message, *cons at the bad record ---- */

FIXTURE(corrupt) {
	struct area a;
	struct npf_ring_stats st;
	struct seen s;
	char err[256];
	uint64_t first, bad, prod;
};

/*
 * Two good records, then one of @type and @size at data offset @off
 * (before the end of the data area: 0), with @unread bytes from it to the
 * producer.
 */
FIXTURE_VARIANT(corrupt) {
	uint16_t type;
	uint16_t size;
	uint64_t off;
	uint64_t unread;
	const char *msg;
};

FIXTURE_VARIANT_ADD(corrupt, size0) {
	.type = NPU_TRACE_REC_EXEC, .size = 0, .unread = 112,
	.msg = "of size 0: not a positive multiple of 8",
};

FIXTURE_VARIANT_ADD(corrupt, size12) {
	.type = NPU_TRACE_REC_OP, .size = 12, .unread = 80,
	.msg = "of size 12: not a positive multiple of 8",
};

FIXTURE_VARIANT_ADD(corrupt, crosses_end) {
	.type = NPU_TRACE_REC_OP, .size = 80, .off = 16, .unread = 80,
	.msg = "crosses the end of the data area",
};

FIXTURE_VARIANT_ADD(corrupt, unknown_crosses_end) {
	.type = 300, .size = 3960, .off = 8, .unread = 3960,
	.msg = "crosses the end of the data area",
};

FIXTURE_VARIANT_ADD(corrupt, larger_than_unread) {
	.type = NPU_TRACE_REC_EXEC, .size = 112, .unread = 56,
	.msg = "larger than the unread bytes",
};

FIXTURE_VARIANT_ADD(corrupt, exec_short) {
	.type = NPU_TRACE_REC_EXEC, .size = 104, .unread = 104,
	.msg = "shorter than its struct (112 bytes)",
};

FIXTURE_VARIANT_ADD(corrupt, lost_short) {
	.type = NPU_TRACE_REC_LOST, .size = 16, .off = 16, .unread = 16,
	.msg = "shorter than its struct (24 bytes)",
};

FIXTURE_VARIANT_ADD(corrupt, header_cut) {
	.type = NPU_TRACE_REC_OP, .size = 80, .unread = 4,
	.msg = "fewer unread bytes than a record header",
};

FIXTURE_SETUP(corrupt)
{
	uint64_t base = (uint64_t)0 - 8 * 4096;	/* positions wrap 2^64 */
	uint64_t off = variant->off ? 4096 - variant->off : 1000;

	ASSERT_EQ(0, area_map(&self->a, 4096));
	/* fill with junk that would be a record if it were read */
	memset(self->a.data, 0x5a, 4096);
	self->bad = base + off;
	self->first = self->bad - 136;
	put(&self->a, self->first, NPU_TRACE_REC_OP, 80, 0);
	put(&self->a, self->first + 80, NPU_TRACE_REC_CLOCK, 56, 1);
	put(&self->a, self->bad, variant->type, variant->size, 2);
	self->prod = self->bad + variant->unread;
	memset(&self->st, 0, sizeof(self->st));
	memset(&self->s, 0, sizeof(self->s));
	self->err[0] = 0;
}

FIXTURE_TEARDOWN(corrupt)
{
	area_unmap(&self->a);
}

TEST_F(corrupt, stops)
{
	char pos[64];
	uint64_t cons = self->first;
	int i;

	snprintf(pos, sizeof(pos), "position %llu ",
		 (unsigned long long)self->bad);
	/* twice: the same error, no progress */
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(-EBADMSG,
			  npf_ring_parse(self->a.data, self->a.size, &cons,
					 self->prod, seen_cb, &self->s,
					 &self->st, self->err,
					 sizeof(self->err)));
		EXPECT_EQ(self->bad, cons);
		EXPECT_EQ(2, self->s.n);
		EXPECT_EQ(2, self->st.records);
		EXPECT_NE(NULL, strstr(self->err, pos)) TH_LOG("%s", self->err);
		EXPECT_NE(NULL, strstr(self->err, variant->msg))
			TH_LOG("%s", self->err);
	}
}

/* The producer position jumped back, or more than data_size ahead */
TEST_F(corrupt, producer_back)
{
	uint64_t cons = self->first;

	EXPECT_EQ(-EBADMSG, npf_ring_parse(self->a.data, self->a.size, &cons,
					   self->first - 8, seen_cb, &self->s,
					   &self->st, self->err,
					   sizeof(self->err)));
	EXPECT_EQ(self->first, cons);
	EXPECT_EQ(0, self->s.n);
	EXPECT_NE(NULL, strstr(self->err, "is behind the consumer"))
		TH_LOG("%s", self->err);
}

TEST_F(corrupt, producer_too_far)
{
	uint64_t cons = self->first;

	EXPECT_EQ(-EBADMSG, npf_ring_parse(self->a.data, self->a.size, &cons,
					   self->first + 4096 + 8, seen_cb,
					   &self->s, &self->st, self->err,
					   sizeof(self->err)));
	EXPECT_EQ(self->first, cons);
	EXPECT_EQ(0, self->s.n);
	EXPECT_NE(NULL, strstr(self->err, "more than data_size ahead"))
		TH_LOG("%s", self->err);
}

/* No message buffer: the error still comes back */
TEST_F(corrupt, no_err_buffer)
{
	uint64_t cons = self->first;

	EXPECT_EQ(-EBADMSG, npf_ring_parse(self->a.data, self->a.size, &cons,
					   self->prod, NULL, NULL, &self->st,
					   NULL, 0));
	EXPECT_EQ(self->bad, cons);
}

/* ---- npf_ring_check_hdr ---- */

TEST(check_hdr)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	struct npu_trace_ring h = {
		.version = NPU_TRACE_RING_VERSION,
		.data_offset = pg,
		.data_size = 4 * pg,
		.hdr_size = sizeof(h),
	};
	char err[256] = "";

	EXPECT_EQ(0, npf_ring_check_hdr(&h, 4 * pg, err, sizeof(err)));
	h.hdr_size = 512;		/* a newer, larger header */
	EXPECT_EQ(0, npf_ring_check_hdr(&h, 4 * pg, err, sizeof(err)));
	h.version = 2;
	EXPECT_EQ(-EPROTONOSUPPORT,
		  npf_ring_check_hdr(&h, 4 * pg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "version 2")) TH_LOG("%s", err);
	h.version = 0;
	EXPECT_EQ(-EPROTONOSUPPORT,
		  npf_ring_check_hdr(&h, 4 * pg, err, sizeof(err)));
	h.version = NPU_TRACE_RING_VERSION;
	h.hdr_size = sizeof(h) - 8;
	EXPECT_EQ(-EBADMSG, npf_ring_check_hdr(&h, 4 * pg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "hdr_size")) TH_LOG("%s", err);
	h.hdr_size = 0;
	EXPECT_EQ(-EBADMSG, npf_ring_check_hdr(&h, 4 * pg, err, sizeof(err)));
	h.hdr_size = sizeof(h);
	h.data_size = 3 * pg;
	EXPECT_EQ(-EBADMSG, npf_ring_check_hdr(&h, 3 * pg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "power of two")) TH_LOG("%s", err);
	h.data_size = 0;
	EXPECT_EQ(-EBADMSG, npf_ring_check_hdr(&h, 0, err, sizeof(err)));
	h.data_size = pg / 2;		/* below a page */
	EXPECT_EQ(-EBADMSG, npf_ring_check_hdr(&h, pg / 2, err, sizeof(err)));
	h.data_size = 8 * pg;		/* not what TRACE_OPEN returned */
	EXPECT_EQ(-EBADMSG, npf_ring_check_hdr(&h, 4 * pg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "opened with")) TH_LOG("%s", err);
	/* no message buffer */
	EXPECT_EQ(-EBADMSG, npf_ring_check_hdr(&h, 4 * pg, NULL, 0));
}

/* A data area the parser cannot use is the caller's bug: -EINVAL */
TEST(bad_area)
{
	struct npf_ring_stats st = { 0 };
	uint64_t buf[8] = { 0 };
	uint64_t cons = 0;

	EXPECT_EQ(-EINVAL, npf_ring_parse((const uint8_t *)buf, 48, &cons, 8,
					  NULL, NULL, &st, NULL, 0));
	EXPECT_EQ(-EINVAL, npf_ring_parse((const uint8_t *)buf + 4, 32, &cons,
					  8, NULL, NULL, &st, NULL, 0));
	EXPECT_EQ(0, cons);
}

TEST_HARNESS_MAIN
