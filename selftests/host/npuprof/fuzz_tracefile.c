// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tracefile.c - libFuzzer target of the trace file reader
 * (lib/npuprof/tracefile.c, Documentation/npu/trace-file.rst): the input
 * is a whole .npuprof file. It is written to a memfd and read through
 * /proc/self/fd/N with npf_reader until the end or an error, twice (the
 * second time after npf_reader_rewind()); then again with the CRC of every
 * chunk recomputed, so that mutated items get past the CRC check and reach
 * the item checks. The reader must not crash, loop
 * or overread (ASan), must end in a documented state, hand out only items
 * inside the file with sizes that are multiples of 8 at increasing
 * offsets, name the file and an offset inside it in every message, and
 * give the same result after a rewind.
 *
 * With NPUPROF_FUZZ_SEEDS=DIR set, LLVMFuzzerInitialize writes valid files
 * there (seed-*: complete files over one and many chunks, a file cut by an
 * aborted writer, an empty trace), as selftests/host/npuprof/run-fuzz.sh
 * expects.
 *
 * Locking: single-threaded. Lifetime: each input's memfd is closed before
 * the call returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npuprof_int.h"
#include "tracefile_gen.h"

#define CHECK(x) do { if (!(x)) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #x); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* What one pass over the file gave */
struct pass {
	int ret;
	int truncated;
	uint64_t items;
	uint64_t sum;		/* of item types, sizes and offsets */
};

/* "PATH: offset N: text" with N < @len (an error at open may name the
 * offset just past a short header, so <= there) */
static void check_msg(const char *msg, const char *path, uint64_t len)
{
	size_t plen = strlen(path);
	unsigned long long off;
	int n = 0;

	CHECK(!strncmp(msg, path, plen));
	if (sscanf(msg + plen, ": offset %llu: %n", &off, &n) == 1 && n) {
		CHECK(off <= len);
		CHECK(msg[plen + (size_t)n]);
	}
}

static void read_pass(struct npf_reader *r, const char *path, uint64_t len,
		      struct pass *p)
{
	const struct npf_item *it;
	uint64_t off, last = 0;

	memset(p, 0, sizeof(*p));
	while ((p->ret = npf_reader_next(r, &it, &off)) == 1) {
		CHECK(it->size >= 8 && !(it->size & 7));
		CHECK(off >= 64 + 32 && !(off & 7) && off > last);
		CHECK(off + it->size <= len);
		if (it->type && it->type <= NPF_ITEM_TYPE_MAX)
			CHECK(it->size - 8 >= npf_item_min_body[it->type]);
		last = off;
		p->items++;
		CHECK(p->items <= len / 8);
		p->sum += it->type * 31u + it->size * 7u + off;
	}
	p->truncated = npf_reader_truncated(r);
	if (p->ret) {
		CHECK(p->ret == -EBADMSG || p->ret == -ENOMEM);
		CHECK(!p->truncated);
		check_msg(npf_reader_error(r), path, len);
		CHECK(npf_reader_next(r, &it, &off) == p->ret);
	} else {
		CHECK(!npf_reader_error(r)[0]);
		CHECK(npf_reader_next(r, &it, &off) == 0);
	}
}

/*
 * Recompute the CRC of every chunk of @buf that a reader would reach;
 * Return: whether a CRC changed.
 */
static int fix_crcs(uint8_t *buf, size_t len)
{
	struct npf_file_hdr h;
	struct npf_chunk_hdr ch;
	size_t off;
	uint32_t crc;
	int changed = 0;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	off = h.hdr_size >= 64 && h.hdr_size <= 4096 ? h.hdr_size : 64;
	while (off + sizeof(ch) <= len) {
		memcpy(&ch, buf + off, sizeof(ch));
		if (ch.hdr_size < sizeof(ch) || ch.hdr_size > 256 ||
		    ch.hdr_size > len - off || ch.size > len - off - ch.hdr_size)
			break;
		crc = npf_crc32(0, buf + off + ch.hdr_size, ch.size);
		changed |= crc != ch.crc;
		ch.crc = crc;
		memcpy(buf + off, &ch, sizeof(ch));
		off += ch.hdr_size + ch.size;
	}
	return changed;
}

/* Read @in (@len bytes) as a trace file, checking the reader's contract */
static void fuzz_one(const uint8_t *in, size_t len)
{
	struct npf_reader *r;
	struct pass a, b;
	char path[64], err[512];
	int fd, ret;

	fd = memfd_create("npuprof-fuzz", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(write(fd, in, len) == (ssize_t)len);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	ret = npf_reader_open(path, &r, err, sizeof(err));
	if (ret) {
		CHECK(ret == -ENOEXEC || ret == -EPROTONOSUPPORT ||
		      ret == -EBADMSG);
		CHECK(!r);
		check_msg(err, path, len);
		close(fd);
		return;
	}
	CHECK(len >= 64);
	read_pass(r, path, len, &a);
	CHECK(npf_reader_rewind(r) == 0);
	read_pass(r, path, len, &b);
	CHECK(a.ret == b.ret && a.truncated == b.truncated &&
	      a.items == b.items && a.sum == b.sum);
	npf_reader_close(r);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	uint8_t *copy;

	fuzz_one(in, len);
	copy = malloc(len ? len : 1);
	CHECK(copy);
	memcpy(copy, in, len);
	if (fix_crcs(copy, len))
		fuzz_one(copy, len);
	free(copy);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct {
		const char *name;
		uint32_t chunk_max;
		unsigned int items;
		int complete;
	} seeds[] = {
		{ "seed-chunks", NPF_CHUNK_MIN, 120, 1 },
		{ "seed-one-chunk", 0, 22, 1 },
		{ "seed-cut", NPF_CHUNK_MIN, 90, 0 },
		{ "seed-empty", 0, 0, 1 },
	};
	const char *dir = getenv("NPUPROF_FUZZ_SEEDS");
	char path[4096];
	size_t i;

	(void)argc;
	(void)argv;
	if (!dir || !*dir)
		return 0;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
		CHECK(gen_file(path, seeds[i].chunk_max, seeds[i].items,
			       seeds[i].complete) == 0);
	}
	return 0;
}
