// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_iring.c - the item ring's in-place consumer (npf_iring_peek(),
 * npf_iring_release(), iring.c), which the session's writer thread uses
 * to write the stage to the file: every run it returns lies inside the
 * ring's memory and holds whole items, in order, whatever the wrap; in
 * particular a run stops where an item ends exactly at the end of the
 * memory (no pad before the wrap), which a run once crossed, writing
 * bytes past the ring into a trace file (a chunk with an item of size 0
 * at the stage's first wrap, found by selftests/bpf's -p capture).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "iring.h"
#include "trace_format.h"

/* Put items of @body bytes numbered from *@next until the ring is full */
static unsigned int fill(struct npf_iring *r, uint32_t body, uint64_t *next)
{
	uint8_t buf[256];
	unsigned int n = 0;

	for (;;) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, next, sizeof(*next));
		if (npf_iring_put(r, NPF_ITEM_SPAN, buf, body, NULL, 0))
			return n;
		(*next)++;
		n++;
	}
}

/* Take every run; check bounds, items and their order */
static void drain_runs(struct __test_metadata *_metadata, struct npf_iring *r,
		       uint64_t *expect, uint32_t max)
{
	const uint8_t *p, *q;
	uint32_t len, n, i;

	while ((p = npf_iring_peek(r, max, &len, &n))) {
		ASSERT_LE(r->data, p);
		ASSERT_GE(r->data + r->size, p + len);
		ASSERT_LE(len, max);
		for (i = 0, q = p; i < n; i++) {
			const struct npf_item *it = (const void *)q;
			uint64_t v;

			ASSERT_EQ(NPF_ITEM_SPAN, it->type);
			ASSERT_LE(8, it->size);
			memcpy(&v, it + 1, sizeof(v));
			ASSERT_EQ(*expect, v);
			(*expect)++;
			q += it->size;
		}
		ASSERT_EQ(p + len, q);
		npf_iring_release(r, len);
	}
}

/* Items that tile the ring exactly: runs must stop at its end */
TEST(run_stops_at_the_end_without_pad)
{
	struct npf_iring r;
	uint64_t next = 0, expect = 0;
	int round;

	ASSERT_EQ(0, npf_iring_init(&r, 4096));
	/*
	 * 8-byte header + 56 = 64 bytes an item: they tile the 4096 bytes.
	 * Start half way, so that every fill wraps with no pad; a run from
	 * the middle must end at the end of the memory.
	 */
	for (round = 0; round < 32; round++) {
		uint8_t buf[56] = { 0 };

		memcpy(buf, &next, sizeof(next));
		ASSERT_EQ(0, npf_iring_put(&r, NPF_ITEM_SPAN, buf, 56, NULL, 0));
		next++;
	}
	drain_runs(_metadata, &r, &expect, 1 << 20);
	for (round = 0; round < 20; round++) {
		fill(&r, 56, &next);
		drain_runs(_metadata, &r, &expect, 1 << 20);
	}
	EXPECT_EQ(next, expect);
	npf_iring_fini(&r);
}

/* Sizes that leave pads at the wrap, partial drains, a small run limit */
TEST(runs_with_pads_and_partial_drains)
{
	static const uint32_t bodies[] = { 8, 24, 56, 88, 120, 200 };
	struct npf_iring r;
	uint64_t next = 0, expect = 0;
	unsigned int i;

	ASSERT_EQ(0, npf_iring_init(&r, 8192));
	for (i = 0; i < 600; i++) {
		const uint8_t *p;
		uint32_t len, n;

		fill(&r, bodies[i % 6], &next);
		/* take one run only, then refill */
		p = npf_iring_peek(&r, 1000, &len, &n);
		if (p) {
			ASSERT_GE(r.data + r.size, p + len);
			expect += n;
			npf_iring_release(&r, len);
		}
	}
	drain_runs(_metadata, &r, &expect, 1000);
	EXPECT_EQ(next, expect);
	npf_iring_fini(&r);
}

/* A prefaulted ring (the session's stage) is empty and works as any */
TEST(prefault_then_use)
{
	const uint32_t size = 1u << 20;
	struct npf_iring r;
	uint64_t next = 0, expect = 0;
	unsigned int n, i;

	ASSERT_EQ(0, npf_iring_init(&r, size));
	npf_iring_prefault(&r);
	EXPECT_EQ(0u, npf_iring_used(&r));
	for (i = 0; i < 3; i++) {
		n = fill(&r, 120, &next);
		/* 128 bytes an item: the whole ring, and again after a drain */
		ASSERT_EQ(size / 128, n);
		drain_runs(_metadata, &r, &expect, NPF_CHUNK_DEFAULT);
		ASSERT_EQ(next, expect);
	}
	npf_iring_fini(&r);
}

TEST_HARNESS_MAIN
