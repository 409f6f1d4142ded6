// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_iring_reserve.c - items built in place in an item ring
 * (npf_iring_reserve(), npf_iring_commit(), iring.c), as the span drain
 * packs SPANS items into the session's stage: the room given is 8-byte
 * aligned, at least what was asked and at most the maximum; nothing is
 * visible before the commit; a room that only fits after the wrap gets a
 * pad first, which the consumer skips; a full ring gives no room.
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "iring.h"
#include "trace_format.h"

TEST(reserve_then_commit)
{
	struct npf_iring r;
	const struct npf_item *it;
	uint32_t room = 0, len, n;
	uint8_t *p;

	ASSERT_EQ(0, npf_iring_init(&r, 4096));
	p = npf_iring_reserve(&r, 100, 1000, &room);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(1000u, room);
	EXPECT_EQ(0u, (uintptr_t)p % 8);
	/* nothing to read until the commit */
	EXPECT_EQ(0u, npf_iring_used(&r));
	EXPECT_EQ(NULL, npf_iring_peek(&r, 4096, &len, &n));
	memset(p, 0xab, 13);
	npf_iring_commit(&r, NPF_ITEM_SPANS, 13);
	/* the header and 13 bytes, padded with zeros to 24 */
	EXPECT_EQ(24u, npf_iring_used(&r));
	it = npf_iring_peek(&r, 4096, &len, &n);
	ASSERT_NE(NULL, it);
	EXPECT_EQ(1u, n);
	EXPECT_EQ(24u, len);
	EXPECT_EQ(NPF_ITEM_SPANS, it->type);
	EXPECT_EQ(24u, it->size);
	EXPECT_EQ((const uint8_t *)(it + 1), p);
	EXPECT_EQ(0xab, p[12]);
	EXPECT_EQ(0, p[13]);
	EXPECT_EQ(0, p[15]);
	npf_iring_release(&r, len);
	EXPECT_EQ(0u, npf_iring_used(&r));
	/* the room is the free space when it is smaller than @max */
	p = npf_iring_reserve(&r, 8, 1u << 20, &room);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(4096u - 24 - 8, room);
	npf_iring_fini(&r);
}

TEST(room_after_the_wrap_gets_a_pad)
{
	struct npf_iring r;
	uint8_t body[3000];
	const struct npf_item *it;
	uint32_t room = 0, len, n;
	uint8_t *p;

	memset(body, 1, sizeof(body));
	ASSERT_EQ(0, npf_iring_init(&r, 4096));
	/* 3008 bytes used, then consumed: 1088 left before the end */
	ASSERT_EQ(0, npf_iring_put(&r, NPF_ITEM_META, body, 3000, NULL, 0));
	it = npf_iring_peek(&r, 4096, &len, &n);
	ASSERT_NE(NULL, it);
	npf_iring_release(&r, len);
	/* 2000 bytes fit only at the start: a pad fills the end */
	p = npf_iring_reserve(&r, 2000, 2000, &room);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(2000u, room);
	EXPECT_EQ(r.data + 8, p);
	memset(p, 2, 2000);
	npf_iring_commit(&r, NPF_ITEM_SPANS, 2000);
	/* the pad is skipped: one item, at the start of the data */
	it = npf_iring_peek(&r, 4096, &len, &n);
	ASSERT_NE(NULL, it);
	EXPECT_EQ(1u, n);
	EXPECT_EQ((const void *)r.data, (const void *)it);
	EXPECT_EQ(NPF_ITEM_SPANS, it->type);
	EXPECT_EQ(2008u, it->size);
	npf_iring_release(&r, len);
	EXPECT_EQ(0u, npf_iring_used(&r));
	npf_iring_fini(&r);
}

TEST(full_ring_gives_no_room)
{
	struct npf_iring r;
	uint8_t body[4000] = { 0 };
	uint32_t room = 12345;
	uint64_t used;

	ASSERT_EQ(0, npf_iring_init(&r, 4096));
	ASSERT_EQ(0, npf_iring_put(&r, NPF_ITEM_META, body, 4000, NULL, 0));
	used = npf_iring_used(&r);
	/* 88 bytes free: 100 do not fit, 80 do */
	EXPECT_EQ(NULL, npf_iring_reserve(&r, 100, 200, &room));
	EXPECT_EQ(12345u, room);
	EXPECT_EQ(used, npf_iring_used(&r));
	ASSERT_NE(NULL, npf_iring_reserve(&r, 80, 200, &room));
	EXPECT_EQ(80u, room);
	npf_iring_fini(&r);
}

TEST_HARNESS_MAIN
