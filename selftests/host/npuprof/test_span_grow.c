// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_span_grow.c - a thread's span ring grows within a session (span.c,
 * npf_grow()): a burst larger than the first ring, with no drain until it
 * ends, is kept whole and in order; growth stops at 32 times the
 * session's size, 8 MiB at most (none from 8 MiB), and the spans after
 * that are dropped and counted exactly; a thread that makes few
 * spans, drained as a session would, never grows; a grown ring is kept
 * across a pause and the next session starts at its own size again; a
 * thread that grew and exited before any drain is drained whole; and
 * two threads bursting against a drainer that runs all along keep their
 * order, every span kept or counted.
 * The tests attach the span layer (spans.h) without a session, so that
 * the drain runs only where the test calls npf_spans_drain().
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof.h"
#include "spans.h"
#include "trace_format.h"
#include "file_util.h"

#define KIB		1024u
/* span.c's NPF_GROW_MAX: a ring grows to 32 times its first size, this at most */
#define GROW_MAX	(8u << 20)
#define RING_SPAN	56u		/* a span's bytes in the ring */
#define MAX_TIDS	4

/* What a drain gave, per thread, in order. */
struct seen {
	int32_t tid[MAX_TIDS];
	uint64_t first[MAX_TIDS];	/* the first span id */
	uint64_t last[MAX_TIDS];	/* the last span id */
	uint64_t spans[MAX_TIDS];
	uint64_t gaps[MAX_TIDS];	/* a span id not last + 1 */
	uint64_t disorder;		/* a span id not above the last */
	uint64_t lost;
	uint64_t spans_all;
	uint64_t lost_all;		/* npf_spans_drain()'s counts */
	uint64_t bad;			/* items of no thread, too many tids */
};

static int seen_slot(struct seen *sn, int32_t tid)
{
	int i;

	for (i = 0; i < MAX_TIDS; i++) {
		if (sn->tid[i] == tid)
			return i;
		if (!sn->tid[i]) {
			sn->tid[i] = tid;
			return i;
		}
	}
	sn->bad++;
	return -1;
}

static void seen_span(struct seen *sn, int32_t tid, uint64_t id)
{
	int i = seen_slot(sn, tid);

	if (i < 0)
		return;
	if (!sn->spans[i])
		sn->first[i] = id;
	else if (id <= sn->last[i])
		sn->disorder++;
	else if (id != sn->last[i] + 1)
		sn->gaps[i]++;
	sn->last[i] = id;
	sn->spans[i]++;
}

static int seen_item(void *ctx, uint16_t type, const void *body, size_t len)
{
	struct seen *sn = ctx;

	if (type == NPF_ITEM_SPANS) {
		const struct npf_item_spans *h = body;
		const struct npf_span_c *c = (const void *)(h + 1);
		uint64_t id = h->span_id;
		uint32_t i;

		if (len < sizeof(*h) + (size_t)h->count * sizeof(*c)) {
			sn->bad++;
			return 0;
		}
		for (i = 0; i < h->count; i++) {
			id += (int64_t)c[i].id_delta;
			seen_span(sn, h->tid, id);
		}
	} else if (type == NPF_ITEM_SPAN) {
		const struct npuprof_span_rec *r = body;

		seen_span(sn, r->tid, r->span_id);
	} else if (type == NPF_ITEM_HOST_LOST) {
		const struct npf_item_host_lost *hl = body;

		sn->lost += hl->count;
	}
	return 0;
}

static int owner_token;

static void drain(struct seen *sn)
{
	(void)npf_spans_drain(&owner_token, &(struct npf_span_sink){
				      .item = seen_item, .ctx = sn },
			      &sn->spans_all, &sn->lost_all);
}

/* Spans off (a grace period), the last drain, then detach. */
static void finish(struct seen *sn)
{
	npf_spans_pause(&owner_token, true);
	drain(sn);
	npf_spans_detach(&owner_token);
}

static int attach(uint32_t bytes)
{
	setenv("NPUPROF_SPAN_CLOCK", "monotonic", 1);
	return npf_spans_attach(&owner_token, bytes, -1, false);
}

/* One thread's @n spans all read back, in order, none dropped. */
static void expect_whole(struct __test_metadata *_metadata,
			 const struct seen *sn, uint64_t n)
{
	EXPECT_EQ(0u, sn->bad);
	EXPECT_EQ(n, sn->spans[0]);
	EXPECT_EQ(0u, sn->lost);
	EXPECT_EQ(0u, sn->disorder);
	EXPECT_EQ(0u, sn->gaps[0]);
	EXPECT_EQ(n - 1, sn->last[0] - sn->first[0]);
	EXPECT_EQ(n, sn->spans_all);
	EXPECT_EQ(0u, sn->lost_all);
}

TEST(burst_kept_whole_after_growth)
{
	static struct seen sn;
	const uint64_t n = 5000;	/* 280 000 bytes, 17 first rings */

	memset(&sn, 0, sizeof(sn));
	ASSERT_EQ(0, attach(16 * KIB));
	file_user_spans(n);
	/* it grew, past the burst's half (the rings before hold the rest) */
	EXPECT_GE(npf_spans_ring_bytes(), 256 * KIB);
	EXPECT_LE(npf_spans_ring_bytes(), 512 * KIB);
	finish(&sn);
	expect_whole(_metadata, &sn, n);
	TH_LOG("%llu spans from a 16 KiB ring: all kept, ring now %u KiB",
	       (unsigned long long)sn.spans[0], npf_spans_ring_bytes() / KIB);
}

/*
 * A ring of @start bytes, @n spans with no drain: it grows to @cap and no
 * further, keeps the first spans, and drops and counts the rest.
 */
static void cap_run(struct __test_metadata *_metadata, uint32_t start,
		    uint32_t cap, uint64_t n)
{
	static struct seen sn;

	memset(&sn, 0, sizeof(sn));
	ASSERT_EQ(0, attach(start));
	file_user_spans(n);
	EXPECT_EQ(cap, npf_spans_ring_bytes());
	finish(&sn);
	EXPECT_EQ(0u, sn.bad);
	EXPECT_EQ(n, sn.spans[0] + sn.lost);
	EXPECT_EQ(sn.spans[0], sn.spans_all);
	EXPECT_EQ(sn.lost, sn.lost_all);
	/*
	 * the full last ring and half of each before it (a bit more: a
	 * ring is looked at every sixteenth), the THREAD item aside
	 */
	EXPECT_GE(sn.spans[0], (uint64_t)(cap + (cap - start) / 2) /
		  RING_SPAN - 2);
	EXPECT_LE(sn.spans[0], (uint64_t)(2 * cap) / RING_SPAN);
	EXPECT_GT(sn.lost, 0u);
	/* nothing drained until the end: the kept spans are the first ones */
	EXPECT_EQ(0u, sn.disorder);
	EXPECT_EQ(0u, sn.gaps[0]);
	EXPECT_EQ(sn.spans[0] - 1, sn.last[0] - sn.first[0]);
	TH_LOG("%llu spans from a %u KiB ring: %llu kept, %llu dropped, ring %u KiB",
	       (unsigned long long)n, start / KIB,
	       (unsigned long long)sn.spans[0], (unsigned long long)sn.lost,
	       npf_spans_ring_bytes() / KIB);
}

/* the default 256 KiB grows to 8 MiB (12.4 MB in all): 22.4 MB of spans */
TEST(growth_stops_at_8_mib_drops_counted)
{
	cap_run(_metadata, NPUPROF_DEFAULT_SPAN_BUF_KB * KIB, GROW_MAX, 400000);
}

/* 4 KiB grows to 32 times that, 128 KiB (190 KB in all): 1.1 MB of spans */
TEST(growth_stops_at_32_times_drops_counted)
{
	cap_run(_metadata, 4 * KIB, 128 * KIB, 20000);
}

/* a ring of 8 MiB or more does not grow */
TEST(no_growth_from_8_mib)
{
	cap_run(_metadata, GROW_MAX, GROW_MAX, 200000);
}

TEST(few_spans_never_grow)
{
	static struct seen sn;
	unsigned int i;

	memset(&sn, 0, sizeof(sn));
	ASSERT_EQ(0, attach(NPUPROF_DEFAULT_SPAN_BUF_KB * KIB));
	/* 9 spans an inference, drained every 10 inferences */
	for (i = 0; i < 20000; i++) {
		file_user_spans(9);
		if (i % 10 == 9)
			drain(&sn);
		if (npf_spans_ring_bytes() != NPUPROF_DEFAULT_SPAN_BUF_KB * KIB)
			break;
	}
	EXPECT_EQ(NPUPROF_DEFAULT_SPAN_BUF_KB * KIB, npf_spans_ring_bytes());
	finish(&sn);
	expect_whole(_metadata, &sn, 180000);
}

TEST(grown_ring_kept_across_pause_next_session_small)
{
	static struct seen sn;

	memset(&sn, 0, sizeof(sn));
	ASSERT_EQ(0, attach(8 * KIB));
	file_user_spans(1000);
	EXPECT_GT(npf_spans_ring_bytes(), 8 * KIB);
	npf_spans_pause(&owner_token, true);
	npf_spans_pause(&owner_token, false);
	file_user_spans(1000);
	finish(&sn);
	expect_whole(_metadata, &sn, 2000);

	/* the next session: the first span registers at its size again */
	memset(&sn, 0, sizeof(sn));
	ASSERT_EQ(0, attach(8 * KIB));
	file_user_spans(10);
	EXPECT_EQ(8 * KIB, npf_spans_ring_bytes());
	finish(&sn);
	expect_whole(_metadata, &sn, 10);
}

static void *exiting_thread(void *arg)
{
	file_user_spans(*(const uint64_t *)arg);
	return (void *)(uintptr_t)npf_spans_ring_bytes();
}

/*
 * A thread that grew and exited before any drain: the drain still reads
 * its old rings and its last one, in order.
 */
TEST(exited_thread_grown_rings_drained)
{
	static struct seen sn;
	uint64_t n = 3000;	/* 168 000 bytes from 8 KiB */
	pthread_t th;
	void *size;

	memset(&sn, 0, sizeof(sn));
	ASSERT_EQ(0, attach(8 * KIB));
	ASSERT_EQ(0, pthread_create(&th, NULL, exiting_thread, &n));
	ASSERT_EQ(0, pthread_join(th, &size));
	EXPECT_GT((uintptr_t)size, 8 * KIB);
	finish(&sn);
	expect_whole(_metadata, &sn, n);
}

/* Two threads' bursts against a drainer running all along. */
#define BURST_THREADS	2
#define BURST_SPANS	300000

static volatile int burst_done;

static void *burst_thread(void *arg)
{
	uint64_t i;

	(void)arg;
	for (i = 0; i < BURST_SPANS; i++) {
		struct npuprof_span a;

		npuprof_span_begin(&a, NPUPROF_SPAN_USER, NULL);
		npuprof_span_end(&a);
		/* a pause now and then, for the drain to catch up */
		if (i % 50000 == 49999)
			usleep(1000);
	}
	return (void *)(uintptr_t)npf_spans_ring_bytes();
}

static void *drain_thread(void *arg)
{
	struct seen *sn = arg;

	while (!__atomic_load_n(&burst_done, __ATOMIC_ACQUIRE)) {
		npf_spans_drain(&owner_token, &(struct npf_span_sink){
					.item = seen_item, .ctx = sn },
				&sn->spans_all, &sn->lost_all);
		usleep(200);
	}
	return NULL;
}

TEST(bursts_against_a_running_drain)
{
	static struct seen sn;
	pthread_t th[BURST_THREADS], dr;
	uint64_t kept = 0, lost_sum;
	void *size;
	int i;

	memset(&sn, 0, sizeof(sn));
	burst_done = 0;
	ASSERT_EQ(0, attach(4 * KIB));
	ASSERT_EQ(0, pthread_create(&dr, NULL, drain_thread, &sn));
	for (i = 0; i < BURST_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, burst_thread, NULL));
	for (i = 0; i < BURST_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(th[i], &size));
		EXPECT_LE((uintptr_t)size, 128 * KIB);
		TH_LOG("thread %d: ring %lu KiB at its end", i,
		       (unsigned long)((uintptr_t)size / KIB));
	}
	__atomic_store_n(&burst_done, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(dr, NULL));
	finish(&sn);
	EXPECT_EQ(0u, sn.bad);
	EXPECT_EQ(0u, sn.disorder);
	for (i = 0; i < BURST_THREADS; i++) {
		EXPECT_NE(0, sn.tid[i]);
		kept += sn.spans[i];
	}
	lost_sum = sn.lost;
	EXPECT_EQ((uint64_t)BURST_THREADS * BURST_SPANS, kept + lost_sum);
	EXPECT_EQ(kept, sn.spans_all);
	EXPECT_EQ(lost_sum, sn.lost_all);
	TH_LOG("%d x %d spans from 4 KiB rings: %llu kept, %llu dropped",
	       BURST_THREADS, BURST_SPANS, (unsigned long long)kept,
	       (unsigned long long)lost_sum);
}

TEST_HARNESS_MAIN
