// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ring.c - libFuzzer target of the ring parser (lib/npuprof/ring.c):
 * any consumer/producer positions and any bytes in a data area of 8 bytes
 * to 64 KiB. The parser must never read outside the area (it is a heap
 * block of exactly data_size bytes, so ASan sees an overread), never loop,
 * hand the callback only whole records inside the area, and end in one of
 * its documented states.
 *
 * Input: byte 0: data_size = 8 << (byte % 14); bytes 1-8: consumer
 * position; bytes 9-16: producer - consumer; byte 17: the callback stops
 * the parse at this record (1-based, 0: never); byte 18: ring header
 * version; then data bytes, copied into the area from the consumer's data
 * offset on, wrapping at its end. All in host byte order.
 *
 * With NPUPROF_FUZZ_SEEDS=DIR set, LLVMFuzzerInitialize writes a few valid
 * rings there (seed-*), as selftests/host/npuprof/run-fuzz.sh expects.
 *
 * Locking: single-threaded. Lifetime: each input's area is freed before
 * the call returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ring_parse.h"

#define IN_HDR	19

struct fz {
	const uint8_t *lo, *hi;	/* the data area */
	uint32_t calls, stop_at;
	uint64_t sum;
};

#define CHECK(x) do { if (!(x)) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #x); \
	abort(); } } while (0)

static int fz_cb(void *ctx, const struct npu_trace_rec_hdr *rec)
{
	struct fz *f = ctx;
	const uint8_t *b = (const void *)rec;
	uint32_t i, min = npf_ring_rec_min_size(rec->type);

	CHECK(b >= f->lo && rec->size <= f->hi - b);
	CHECK(rec->size >= 8 && !(rec->size & 7));
	CHECK(rec->type != NPU_TRACE_REC_PAD && rec->size >= min);
	for (i = 0; i < rec->size; i++)	/* as a writer copying it */
		f->sum += b[i];
	return ++f->calls == f->stop_at ? 7 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct npf_ring_stats st = { 0 };
	struct npu_trace_ring hdr = { 0 };
	struct fz f = { 0 };
	uint64_t size, cons0, cons, prod, delta, off, i;
	uint8_t *data;
	char err[160];
	uint32_t refused = 0;
	int ret, round;

	if (len < IN_HDR)
		return 0;
	size = (uint64_t)8 << (in[0] % 14);
	memcpy(&cons0, in + 1, 8);
	memcpy(&delta, in + 9, 8);
	f.stop_at = in[17];
	prod = cons0 + delta;
	data = aligned_alloc(8, size);
	CHECK(data);
	memset(data, 0, size);
	off = cons0 & (size - 1);
	for (i = 0; i < len - IN_HDR && i < size; i++)
		data[(off + i) & (size - 1)] = in[IN_HDR + i];
	f.lo = data;
	f.hi = data + size;

	hdr.version = in[18];
	hdr.data_size = size;
	hdr.hdr_size = sizeof(hdr);
	ret = npf_ring_check_hdr(&hdr, size, err, sizeof(err));
	CHECK(ret == 0 || ret == -EBADMSG || ret == -EPROTONOSUPPORT);

	cons = cons0;
	/* resume after each callback stop */
	for (round = 0; round < 256 + 2; round++) {
		uint64_t before = cons;

		err[0] = 0;
		ret = npf_ring_parse(data, size, &cons, prod, fz_cb, &f, &st,
				     err, sizeof(err));
		CHECK(cons - cons0 <= delta);
		CHECK(!(cons & 7) || cons == before);
		if (ret == 0) {
			CHECK(cons == prod);
			break;
		}
		if (ret == -EBADMSG) {
			CHECK(err[0]);
			CHECK(cons != prod);
			break;
		}
		CHECK(ret == 7);
		CHECK(cons != prod);
		refused++;
		f.stop_at = f.calls + 2;	/* the next round consumes one */
	}
	/* every record handed over once, and again after each refusal */
	CHECK(st.records + refused == f.calls);
	CHECK(st.unknown <= st.records);
	CHECK(delta > size || (st.records + st.pads) * 8 <= delta);
	free(data);
	return 0;
}

/* ---- seeds ---- */

struct seed {
	uint8_t b[IN_HDR + 4096];
	size_t len;
};

static void seed_init(struct seed *s, unsigned int exp, uint64_t cons,
		      uint8_t stop_at)
{
	memset(s, 0, sizeof(*s));
	s->b[0] = exp;
	memcpy(s->b + 1, &cons, 8);
	s->b[17] = stop_at;
	s->b[18] = NPU_TRACE_RING_VERSION;
	s->len = IN_HDR;
}

/* Append a record; @a, @b: the first two u64 of its body (LOST: reason) */
static void seed_rec(struct seed *s, uint16_t type, uint16_t size,
		     uint32_t seq, uint64_t a, uint64_t b)
{
	struct npu_trace_rec_hdr h = { .type = type, .size = size, .seq = seq };
	uint64_t delta;

	memcpy(s->b + s->len, &h, sizeof(h));
	if (size >= 24) {
		memcpy(s->b + s->len + 8, &a, 8);
		memcpy(s->b + s->len + 16, &b, 8);
	}
	s->len += size;
	memcpy(&delta, s->b + 9, 8);
	delta += size;
	memcpy(s->b + 9, &delta, 8);
}

static void seed_write(const char *dir, int n, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%d", dir, n);
	f = fopen(path, "w");
	if (!f)
		return;
	fwrite(s->b, 1, s->len, f);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("NPUPROF_FUZZ_SEEDS");
	struct seed s;

	if (!dir)
		return 0;
	/* 4 KiB: one of each type */
	seed_init(&s, 9, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_CLOCK, 56, 0, 8, 1000);
	seed_rec(&s, NPU_TRACE_REC_OP, 80, 1, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_EXEC, 112, 2, 1, 0);
	seed_rec(&s, NPU_TRACE_REC_LOST, 24, 5, NPU_TRACE_LOST_RING_FULL, 2);
	seed_rec(&s, NPU_TRACE_REC_LOST, 24, 6, NPU_TRACE_LOST_DEVICE, 9);
	seed_rec(&s, NPU_TRACE_REC_BO_ALLOC, 80, 7, 0x200000001ull, 1);
	seed_rec(&s, NPU_TRACE_REC_BO_FREE, 80, 8, 0x200000001ull, 1);
	seed_write(dir, 1, &s);
	/* 256 bytes, the consumer 64 bytes before the end: PAD, wrap */
	seed_init(&s, 5, 5 * 256 + 192, 2);
	seed_rec(&s, NPU_TRACE_REC_PAD, 64, 0, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_OP, 80, 7, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_CLOCK, 56, 8, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_LOST, 24, 9, NPU_TRACE_LOST_HOST, 1);
	seed_write(dir, 2, &s);
	/* 1 KiB, positions about to wrap 2^64: unknown and longer records */
	seed_init(&s, 7, (uint64_t)0 - 128, 0);
	seed_rec(&s, 77, 40, 0, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_PAD, 88, 0, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_EXEC, 128, 1, 0, 0);
	seed_rec(&s, 9, 8, 2, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_LOST, 32, 6, NPU_TRACE_LOST_RING_FULL, 3);
	seed_write(dir, 3, &s);
	/* corrupt: a size of 12 after a good record */
	seed_init(&s, 9, 4096, 0);
	seed_rec(&s, NPU_TRACE_REC_CLOCK, 56, 0, 0, 0);
	seed_rec(&s, NPU_TRACE_REC_OP, 12, 1, 0, 0);
	seed_write(dir, 4, &s);
	return 0;
}
