// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracefile_write.c - the .npuprof trace file's chunked writer
 * (Documentation/npu/trace-file.rst); its reader is the analysis
 * library's (lib/analysis/tracefile_read.c).
 *
 * The writer keeps one chunk in a buffer allocated at open (chunk header
 * plus chunk_max payload bytes) and writes each complete chunk with one
 * write(), so memory does not grow with the trace and a file cut short by
 * a killed process is readable up to its last complete chunk. Each chunk
 * header carries the CRC of its payload and its own (hdr_crc), so that a
 * reader can skip a damaged chunk and find the next sound one. A failed
 * write() is sticky: every later call returns its error.
 *
 * Locking: none; a writer is used by one thread at a time. Lifetime:
 * npf_writer_open() .. npf_writer_close() or npf_writer_abort().
 * npf_writer_flush() only calls write() and npf_crc32(), so a signal
 * handler may call it on a writer no other code is using at that moment.
 * errno is preserved by every function.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "crc32.h"
#include "log.h"
#include "writer.h"

#define NPF_CHUNK_HDR_SIZE	((uint32_t)sizeof(struct npf_chunk_hdr))

_Static_assert(sizeof(struct npf_file_hdr) == 64, "file header is 64 bytes");
_Static_assert(sizeof(struct npf_chunk_hdr) == 32, "chunk header is 32 bytes");
_Static_assert(NPF_CHUNK_HDR_CRC_LEN == 28, "hdr_crc covers 28 bytes");
_Static_assert(sizeof(struct npf_item) == 8, "item header is 8 bytes");
_Static_assert(sizeof(struct npf_item_device) == 72, "DEVICE body");
_Static_assert(sizeof(struct npf_item_record) == 8, "RECORD body");
_Static_assert(sizeof(struct npf_item_session) == 16, "SESSION body");
_Static_assert(sizeof(struct npf_item_host_lost) == 16, "HOST_LOST body");
_Static_assert(sizeof(struct npf_item_clock_fit) == 56, "CLOCK_FIT body");
_Static_assert(sizeof(struct npf_item_summary) == 80, "SUMMARY body");
_Static_assert(sizeof(struct npf_item_string) == 8, "STRING body");
_Static_assert(sizeof(struct npf_item_thread) == 24, "THREAD body");
_Static_assert(sizeof(struct npf_item_end) == 32, "END body");
_Static_assert(sizeof(struct npf_item_clocks) == 16, "CLOCKS body");
_Static_assert(sizeof(struct npf_clock_sample) == 24, "a CLOCKS sample");
_Static_assert(sizeof(struct npf_item_records) == 8, "RECORDS body");
_Static_assert(sizeof(struct npuprof_span_rec) == 80, "SPAN body");
_Static_assert(NPF_CHUNK_MIN % 8 == 0 && NPF_CHUNK_MAX % 8 == 0,
	       "chunk limits are multiples of 8");

/* writev() all of @iov, looping on short writes and EINTR; 0 or -errno */
static int writev_all(int fd, struct iovec *iov, int cnt)
{
	for (;;) {
		ssize_t n;

		while (cnt && !iov->iov_len) {
			iov++;
			cnt--;
		}
		if (!cnt)
			return 0;
		n = writev(fd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		while (cnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
}

/* write() all of @buf, looping on short writes and EINTR; 0 or -errno */
static int write_all(int fd, const void *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return writev_all(fd, &iov, 1);
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

/**
 * struct npf_writer - a trace file being written
 * @fd: the file
 * @err: first write() error (sticky), or 0
 * @chunk_max: payload bytes of a chunk
 * @used: payload bytes of the current chunk
 * @nitems: items in the current chunk
 * @seq: chunks written, the seq of the current chunk
 * @items: items added, END excluded
 * @bytes: bytes written (file header and complete chunks)
 * @index_off: offset of the index's first chunk (npf_writer_index()), 0
 * @index_seq: its seq
 * @buf: struct npf_chunk_hdr then @chunk_max payload bytes
 */
struct npf_writer {
	int fd;
	int err;
	uint32_t chunk_max;
	uint32_t used;
	uint32_t nitems;
	uint64_t seq;
	uint64_t items;
	uint64_t bytes;
	uint64_t index_off;
	uint64_t index_seq;
	uint8_t *buf;
};

int npf_writer_open(const char *path, uint32_t chunk_max,
		    struct npf_writer **wp)
{
	int saved = errno;
	struct npf_file_hdr hdr;
	struct npf_writer *w;
	struct timespec now;
	int ret;

	*wp = NULL;
	if (!chunk_max)
		chunk_max = NPF_CHUNK_DEFAULT;
	if (chunk_max < NPF_CHUNK_MIN || chunk_max > NPF_CHUNK_MAX ||
	    chunk_max % 8)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (w)
		w->buf = malloc(NPF_CHUNK_HDR_SIZE + (size_t)chunk_max);
	if (!w || !w->buf) {
		free(w);
		errno = saved;
		return -ENOMEM;
	}
	w->chunk_max = chunk_max;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		ret = -errno;
		goto fail;
	}

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, NPF_FILE_MAGIC, sizeof(hdr.magic));
	hdr.version = NPF_FILE_VERSION;
	hdr.hdr_size = sizeof(hdr);
	hdr.byte_order = NPF_BYTE_ORDER;
	hdr.chunk_max = chunk_max;
	if (!clock_gettime(CLOCK_REALTIME, &now))
		hdr.realtime_ns = (uint64_t)now.tv_sec * 1000000000u +
				  (uint64_t)now.tv_nsec;
	hdr.monotonic_ns = npf_now_ns();
	ret = write_all(w->fd, &hdr, sizeof(hdr));
	if (ret) {
		close(w->fd);
		goto fail;
	}
	w->bytes = sizeof(hdr);
	*wp = w;
	errno = saved;
	return 0;
fail:
	free(w->buf);
	free(w);
	errno = saved;
	return ret;
}

/* The header of chunk number w->seq over @size payload bytes */
static void chunk_hdr(const struct npf_writer *w, struct npf_chunk_hdr *ch,
		      const void *payload, uint32_t size, uint32_t items)
{
	memset(ch, 0, sizeof(*ch));
	ch->magic = NPF_CHUNK_MAGIC;
	ch->hdr_size = NPF_CHUNK_HDR_SIZE;
	ch->seq = w->seq;
	ch->size = size;
	ch->crc = npf_crc32(0, payload, size);
	ch->items = items;
	/* last: it covers every field above (0 by chance reads unprotected) */
	ch->hdr_crc = npf_crc32(0, ch, NPF_CHUNK_HDR_CRC_LEN);
}

/* Account for a chunk written, or make its error sticky */
static int chunk_written(struct npf_writer *w, int ret, uint32_t size)
{
	if (ret) {
		w->err = ret;
		return ret;
	}
	w->bytes += NPF_CHUNK_HDR_SIZE + (uint64_t)size;
	w->seq++;
	return 0;
}

/* Write the current chunk if it holds an item; errno is the caller's */
static int writer_flush(struct npf_writer *w)
{
	struct npf_chunk_hdr ch;
	uint8_t *payload = w->buf + NPF_CHUNK_HDR_SIZE;
	int ret;

	if (w->err || !w->nitems)
		return w->err;
	chunk_hdr(w, &ch, payload, w->used, w->nitems);
	memcpy(w->buf, &ch, sizeof(ch));
	ret = write_all(w->fd, w->buf, NPF_CHUNK_HDR_SIZE + (size_t)w->used);
	ret = chunk_written(w, ret, w->used);
	if (!ret) {
		w->used = 0;
		w->nitems = 0;
	}
	return ret;
}

/*
 * Make room for an item of @isize bytes (header included, aligned) in the
 * current chunk, writing the chunk first when the item does not fit.
 */
static int writer_reserve(struct npf_writer *w, size_t isize)
{
	if (isize > w->chunk_max)
		return -EMSGSIZE;
	if (isize > w->chunk_max - w->used)
		return writer_flush(w);
	return 0;
}

/* Append an item that writer_reserve() made room for */
static void writer_put(struct npf_writer *w, uint16_t type, size_t isize,
		       const void *a, size_t alen, const void *b, size_t blen)
{
	uint8_t *p = w->buf + NPF_CHUNK_HDR_SIZE + w->used;
	struct npf_item it = { .type = type, .size = (uint32_t)isize };
	size_t end = sizeof(it) + alen + blen;

	memcpy(p, &it, sizeof(it));
	if (alen)
		memcpy(p + sizeof(it), a, alen);
	if (blen)
		memcpy(p + sizeof(it) + alen, b, blen);
	memset(p + end, 0, isize - end);
	w->used += (uint32_t)isize;
	w->nitems++;
}

int npf_writer_add(struct npf_writer *w, uint16_t type, const void *a,
		   size_t alen, const void *b, size_t blen)
{
	int saved = errno;
	size_t isize;
	int ret;

	if (w->err)
		return w->err;
	if (type == NPF_ITEM_END)
		return -EINVAL;		/* only npf_writer_close() ends a file */
	if (alen > w->chunk_max || blen > w->chunk_max)
		return -EMSGSIZE;
	isize = NPF_ALIGN8(sizeof(struct npf_item) + alen + blen);
	ret = writer_reserve(w, isize);
	if (!ret) {
		writer_put(w, type, isize, a, alen, b, blen);
		w->items++;
	}
	errno = saved;
	return ret;
}

int npf_writer_add_items(struct npf_writer *w, const void *items,
			 uint32_t len, uint32_t n)
{
	int saved = errno;
	struct npf_chunk_hdr ch;
	struct iovec iov[2];
	int ret;

	if (len > w->chunk_max || len % 8)
		return -EMSGSIZE;
	ret = writer_flush(w);
	if (ret || !n)
		goto out;
	chunk_hdr(w, &ch, items, len, n);
	iov[0].iov_base = &ch;
	iov[0].iov_len = sizeof(ch);
	iov[1].iov_base = (void *)items;
	iov[1].iov_len = len;
	ret = chunk_written(w, writev_all(w->fd, iov, 2), len);
	if (!ret)
		w->items += n;
out:
	errno = saved;
	return ret;
}

int npf_writer_flush(struct npf_writer *w)
{
	int saved = errno;
	int ret = writer_flush(w);

	errno = saved;
	return ret;
}

int npf_writer_index(struct npf_writer *w)
{
	int saved = errno;
	int ret = writer_flush(w);

	if (!ret) {
		w->index_off = w->bytes;
		w->index_seq = w->seq;
	}
	errno = saved;
	return ret;
}

int npf_writer_add_clocks(struct npf_writer *w, uint32_t dev,
			  uint64_t clock_hz,
			  const struct npf_clock_sample *s, size_t n)
{
	/* as many samples as one chunk holds, per item */
	size_t per = (w->chunk_max - sizeof(struct npf_item) -
		      sizeof(struct npf_item_clocks)) / sizeof(*s);
	struct npf_item_clocks c = { .dev = dev, .clock_hz = clock_hz };
	int ret;

	do {
		c.count = (uint32_t)(n < per ? n : per);
		ret = npf_writer_add(w, NPF_ITEM_CLOCKS, &c, sizeof(c), s,
				     c.count * sizeof(*s));
		s += c.count;
		n -= c.count;
	} while (!ret && n);
	return ret;
}

int npf_writer_close(struct npf_writer *w)
{
	int saved = errno;
	struct npf_item_end end;
	size_t isize = sizeof(struct npf_item) + sizeof(end);
	int ret = 0;

	if (!w)
		return 0;
	/* with an index, END alone in the last chunk: found from the end */
	if (w->index_off)
		ret = writer_flush(w);
	if (!ret)
		ret = writer_reserve(w, isize);
	if (!ret) {
		end.chunks = w->seq;
		end.items = w->items;
		end.index_off = w->index_off;
		end.index_seq = w->index_seq;
		writer_put(w, NPF_ITEM_END, isize, &end, sizeof(end), NULL, 0);
		ret = writer_flush(w);
	}
	if (close(w->fd) && !ret)
		ret = -errno;
	free(w->buf);
	free(w);
	errno = saved;
	return ret;
}

void npf_writer_abort(struct npf_writer *w)
{
	int saved = errno;

	if (!w)
		return;
	close(w->fd);
	free(w->buf);
	free(w);
	errno = saved;
}

uint64_t npf_writer_bytes(const struct npf_writer *w)
{
	return w->bytes;
}

uint64_t npf_writer_chunks(const struct npf_writer *w)
{
	return w->seq;
}

