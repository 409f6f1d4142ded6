// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_crc32.c - the CRC-32 implementations of crc32.c against each other
 * and against the bitwise definition: npf_crc32_select() picks one by
 * timing, so every implementation this CPU has must give the same CRC for
 * every length, alignment and starting value; and npf_crc32() must use
 * the one chosen. No test asserts on which one wins: that depends on the
 * CPU (and on QEMU's emulation of PCLMULQDQ).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "crc32.h"

/* zlib's CRC-32 bit by bit: the definition */
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* xorshift64: the same bytes on every run */
static void fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)(x >> 24);
	}
}

TEST(slicing_by_8_everywhere)
{
	/* implementation 0 exists on every CPU and every build */
	ASSERT_NE(NULL, npf_crc32_impl(0));
	EXPECT_STREQ("slicing-by-8", npf_crc32_impl(0));
	EXPECT_EQ(NULL, npf_crc32_impl(NPF_CRC32_IMPLS));
	EXPECT_EQ(0xcbf43926u, npf_crc32_with(0, 0, "123456789", 9));
}

TEST(implementations_agree)
{
	const size_t size = 256 * 1024;
	uint8_t *buf = malloc(size + 16);
	unsigned int i, have = 0, round;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < NPF_CRC32_IMPLS; i++)
		if (npf_crc32_impl(i)) {
			have++;
			TH_LOG("implementation %u: %s", i, npf_crc32_impl(i));
		}
	ASSERT_LE(1, have);
	/* random lengths (0 to 256 KiB, many around the 64- and 256-byte
	 * folds and 16-byte steps), alignments and starting CRCs */
	for (round = 0; round < 400; round++) {
		size_t len, off;
		uint32_t start, ref;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		off = (seed >> 60) & 15;
		len = round < 200 ? (seed >> 20) % 300 : (seed >> 20) % size;
		start = round % 3 ? (uint32_t)(seed >> 7) : 0;
		fill_random(buf, size + 16, seed);
		ref = npf_crc32_with(0, start, buf + off, len);
		if (len <= 4096)
			ASSERT_EQ(crc_bitwise(start, buf + off, len), ref) {
				TH_LOG("len %zu at %zu", len, off);
			}
		for (i = 1; i < NPF_CRC32_IMPLS; i++) {
			if (!npf_crc32_impl(i))
				continue;
			ASSERT_EQ(ref, npf_crc32_with(i, start, buf + off, len)) {
				TH_LOG("%s: len %zu at %zu from %08x",
				       npf_crc32_impl(i), len, off, start);
			}
		}
		ASSERT_EQ(ref, npf_crc32(start, buf + off, len));
	}
	free(buf);
}

TEST(chained_equals_whole)
{
	uint8_t buf[4096];
	unsigned int i;
	size_t cut;

	fill_random(buf, sizeof(buf), 42);
	for (i = 0; i < NPF_CRC32_IMPLS; i++) {
		uint32_t whole;

		if (!npf_crc32_impl(i))
			continue;
		whole = npf_crc32_with(i, 0, buf, sizeof(buf));
		for (cut = 0; cut <= sizeof(buf); cut += 61)
			ASSERT_EQ(whole, npf_crc32_with(i, npf_crc32_with(i, 0, buf, cut),
							buf + cut,
							sizeof(buf) - cut)) {
				TH_LOG("%s: cut at %zu", npf_crc32_impl(i), cut);
			}
	}
}

TEST(selection_is_stable)
{
	unsigned int a = npf_crc32_select(), b = npf_crc32_select();

	ASSERT_LT(a, NPF_CRC32_IMPLS);
	ASSERT_NE(NULL, npf_crc32_impl(a));
	EXPECT_EQ(a, b);
	TH_LOG("chosen: %s", npf_crc32_impl(a));
}

TEST_HARNESS_MAIN
