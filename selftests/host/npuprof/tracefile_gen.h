/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracefile_gen.h - deterministic trace file items for the trace file
 * tests and the fuzz target's seeds: item @i of a sequence has a type that
 * cycles through every known type and one unknown type, and a body that
 * is a valid instance of its type. No state; header-only (static
 * functions) so that the libFuzzer target and the kselftest binary, built
 * by different compilers, share it.
 */
#ifndef TRACEFILE_GEN_H
#define TRACEFILE_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trace_format.h"
#include "writer.h"

#define GEN_UNKNOWN_TYPE	200	/* a type no reader knows */
#define GEN_NTYPES		12	/* 11 known types (END excluded) + 1 */
#define GEN_MAX_PART		512

/* One item: npf_writer_add(w, type, a, alen, b, blen) */
struct gen_item {
	uint16_t type;
	size_t alen, blen;
	uint8_t a[GEN_MAX_PART];
	uint8_t b[GEN_MAX_PART];
};

/* Deterministic bytes from @seed */
static inline void gen_fill(void *buf, size_t n, uint32_t seed)
{
	uint8_t *p = buf;
	uint32_t x = seed * 2654435761u + 12345u;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* A ring record of one of the six known types or an unknown one */
static inline size_t gen_ring_rec(unsigned int i, uint8_t *buf)
{
	static const uint16_t sizes[] = { 112, 80, 56, 24, 80, 80, 8, 64 };
	static const uint16_t types[] = {
		NPU_TRACE_REC_EXEC, NPU_TRACE_REC_OP, NPU_TRACE_REC_CLOCK,
		NPU_TRACE_REC_LOST, NPU_TRACE_REC_BO_ALLOC,
		NPU_TRACE_REC_BO_FREE, 9, 7,
	};
	struct npu_trace_rec_hdr h;
	unsigned int k = i % 8;

	gen_fill(buf, sizes[k], i);
	h.type = types[k];
	h.size = sizes[k];
	h.seq = i;
	memcpy(buf, &h, sizeof(h));
	return sizes[k];
}

static inline void gen_item(unsigned int i, struct gen_item *g)
{
	unsigned int k = i % GEN_NTYPES;

	memset(g, 0, sizeof(*g));
	switch (k) {
	case 0:
		g->type = NPF_ITEM_META;
		g->alen = (size_t)snprintf((char *)g->a, GEN_MAX_PART,
					   "key.%u", i) + 1;
		g->blen = (size_t)snprintf((char *)g->b, GEN_MAX_PART,
					   "value of %u %.*s", i, (int)(i % 37),
					   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJK") + 1;
		break;
	case 1: {
		struct npf_item_device d = { .dev = i, .info_size =
					     sizeof(struct npu_info) };
		struct npu_info info;

		g->type = NPF_ITEM_DEVICE;
		snprintf(d.path, sizeof(d.path), "/dev/npu%u", i % 8);
		gen_fill(&info, sizeof(info), i);
		memcpy(g->a, &d, sizeof(d));
		g->alen = sizeof(d);
		memcpy(g->b, &info, sizeof(info));
		g->blen = sizeof(info);
		break;
	}
	case 2:
		g->type = NPF_ITEM_SPAN;
		g->alen = sizeof(struct npuprof_span_rec);
		gen_fill(g->a, g->alen, i);
		break;
	case 3: {
		struct npf_item_record r = { .dev = i % 3 };

		g->type = NPF_ITEM_RECORD;
		memcpy(g->a, &r, sizeof(r));
		g->alen = sizeof(r);
		g->blen = gen_ring_rec(i, g->b);
		break;
	}
	case 4: {
		struct npf_item_session s = { .op = 1 + i % 4,
					      .time_ns = 1000u * i };

		g->type = NPF_ITEM_SESSION;
		memcpy(g->a, &s, sizeof(s));
		g->alen = sizeof(s);
		break;
	}
	case 5:
		g->type = NPF_ITEM_HOST_LOST;
		g->alen = sizeof(struct npf_item_host_lost);
		gen_fill(g->a, g->alen, i);
		break;
	case 6:
		g->type = NPF_ITEM_CLOCK_FIT;
		g->alen = sizeof(struct npf_item_clock_fit);
		gen_fill(g->a, g->alen, i);
		break;
	case 7:
		g->type = NPF_ITEM_SUMMARY;
		g->alen = sizeof(struct npf_item_summary);
		gen_fill(g->a, g->alen, i);
		break;
	case 8: {
		struct npf_item_string s = { .id = i + 1, .len = i % 61 };

		g->type = NPF_ITEM_STRING;
		memcpy(g->a, &s, sizeof(s));
		g->alen = sizeof(s);
		memset(g->b, 'a' + i % 26, s.len);
		g->blen = s.len + 1;	/* with the NUL */
		break;
	}
	case 9: {
		struct npf_item_thread t = { .pid = (int32_t)i,
					     .tid = (int32_t)i + 1 };

		g->type = NPF_ITEM_THREAD;
		snprintf(t.name, sizeof(t.name), "worker-%u", i % 100000);
		memcpy(g->a, &t, sizeof(t));
		g->alen = sizeof(t);
		break;
	}
	case 10: {
		struct npf_item_records rs = { .dev = i % 3,
					       .count = 1 + i % 4 };
		unsigned int k;

		g->type = NPF_ITEM_RECORDS;
		memcpy(g->a, &rs, sizeof(rs));
		g->alen = sizeof(rs);
		for (k = 0; k < rs.count; k++)
			g->blen += gen_ring_rec(i + k, g->b + g->blen);
		break;
	}
	default:
		g->type = GEN_UNKNOWN_TYPE;
		g->alen = i % 45;	/* 0 included: a bare header */
		gen_fill(g->a, g->alen, i);
		break;
	}
}

/* Write items [0, @n) to @path with @chunk_max; close (with END) or abort
 * after a flush when @complete is 0. Return: 0 or the first error. */
static inline int gen_file(const char *path, uint32_t chunk_max,
			   unsigned int n, int complete)
{
	struct npf_writer *w;
	struct gen_item g;
	unsigned int i;
	int ret;

	ret = npf_writer_open(path, chunk_max, &w);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		gen_item(i, &g);
		ret = npf_writer_add(w, g.type, g.a, g.alen, g.b, g.blen);
		if (ret) {
			npf_writer_abort(w);
			return ret;
		}
	}
	if (complete)
		return npf_writer_close(w);
	ret = npf_writer_flush(w);
	npf_writer_abort(w);
	return ret;
}

#endif /* TRACEFILE_GEN_H */
