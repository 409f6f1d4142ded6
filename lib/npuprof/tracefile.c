// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracefile.c - the .npuprof trace file (Documentation/npu/trace-file.rst):
 * its chunked writer and its low-level streaming reader.
 *
 * The writer keeps one chunk in a buffer allocated at open (chunk header
 * plus chunk_max payload bytes) and writes each complete chunk with one
 * write(), so memory does not grow with the trace and a file cut short by
 * a killed process is readable up to its last complete chunk. A failed
 * write() is sticky: every later call returns its error.
 *
 * The reader reads one chunk at a time with pread() into a buffer that
 * grows to the largest chunk met, never beyond the header's chunk_max
 * (itself at most NPF_CHUNK_MAX), and validates the whole chunk (header,
 * CRC, every item) before it returns the first of its items, so a caller
 * only ever sees items of sound chunks; after a rewind, the CRC of the
 * chunks that passed it already is not computed again (the items are). Whatever the input it neither
 * crashes, nor loops (every step consumes at least 8 bytes), nor
 * allocates more than that buffer and its own small struct.
 *
 * Locking: none. A writer or a reader is used by one thread at a time; the
 * caller serializes (a reader's read-ahead thread, npf_reader_readahead(),
 * is its own: it only preads into a buffer the caller is not using). Lifetime: npf_writer_open() .. npf_writer_close() or
 * npf_writer_abort(); npf_reader_open() .. npf_reader_close(). Items
 * returned by npf_reader_next() live until the next call on that reader.
 * npf_writer_flush() only calls write() and npf_crc32(), so a signal
 * handler may call it on a writer no other code is using at that moment.
 * errno is preserved by every function.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "npuprof_int.h"

/* Largest file header and chunk header a reader accepts (later versions
 * may grow them; version 1 readers skip the bytes they do not know). */
#define NPF_FILE_HDR_MAX	4096u
#define NPF_CHUNK_HDR_MAX	256u
#define NPF_CHUNK_HDR_SIZE	((uint32_t)sizeof(struct npf_chunk_hdr))
#define NPF_ITEM_HDR_SIZE	((uint32_t)sizeof(struct npf_item))

_Static_assert(sizeof(struct npf_file_hdr) == 64, "file header is 64 bytes");
_Static_assert(sizeof(struct npf_chunk_hdr) == 32, "chunk header is 32 bytes");
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

const uint32_t npf_item_min_body[NPF_ITEM_TYPE_MAX + 1] = {
	[NPF_ITEM_META] = 2,			/* "\0\0": empty key and value */
	[NPF_ITEM_DEVICE] = sizeof(struct npf_item_device),
	[NPF_ITEM_SPAN] = sizeof(struct npuprof_span_rec),
	[NPF_ITEM_RECORD] = sizeof(struct npf_item_record) +
			    sizeof(struct npu_trace_rec_hdr),
	[NPF_ITEM_SESSION] = sizeof(struct npf_item_session),
	[NPF_ITEM_HOST_LOST] = sizeof(struct npf_item_host_lost),
	[NPF_ITEM_CLOCK_FIT] = sizeof(struct npf_item_clock_fit),
	[NPF_ITEM_SUMMARY] = sizeof(struct npf_item_summary),
	[NPF_ITEM_STRING] = sizeof(struct npf_item_string) + 1,
	[NPF_ITEM_THREAD] = sizeof(struct npf_item_thread),
	/* files without an index end with the first two fields only */
	[NPF_ITEM_END] = offsetof(struct npf_item_end, index_off),
	[NPF_ITEM_RECORDS] = sizeof(struct npf_item_records) +
			     sizeof(struct npu_trace_rec_hdr),
	[NPF_ITEM_CLOCKS] = sizeof(struct npf_item_clocks),
};

static const char *const item_names[NPF_ITEM_TYPE_MAX + 1] = {
	[NPF_ITEM_META] = "META",
	[NPF_ITEM_DEVICE] = "DEVICE",
	[NPF_ITEM_SPAN] = "SPAN",
	[NPF_ITEM_RECORD] = "RECORD",
	[NPF_ITEM_SESSION] = "SESSION",
	[NPF_ITEM_HOST_LOST] = "HOST_LOST",
	[NPF_ITEM_CLOCK_FIT] = "CLOCK_FIT",
	[NPF_ITEM_SUMMARY] = "SUMMARY",
	[NPF_ITEM_STRING] = "STRING",
	[NPF_ITEM_THREAD] = "THREAD",
	[NPF_ITEM_END] = "END",
	[NPF_ITEM_RECORDS] = "RECORDS",
	[NPF_ITEM_CLOCKS] = "CLOCKS",
};

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

/* pread() up to @len bytes at @off; bytes read (short at EOF) or -errno */
static ssize_t pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, p + got, len - got, (off_t)(off + got));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
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

/* ------------------------------------------------------------------ */
/* Reader                                                               */
/* ------------------------------------------------------------------ */

#define NPF_READER_MSG	512

/**
 * struct npf_reader - a trace file being read
 * @fd: the file
 * @err: sticky error of npf_reader_next(), or 0
 * @done: npf_reader_next() returned 0
 * @ended: the END item was met
 * @truncated: the file stops before its END item
 * @seeked: npf_reader_seek() moved on past chunks it did not read
 * @hdr: the file header (the first 64 bytes)
 * @next_off: file offset of the next chunk
 * @seq: seq the next chunk must have
 * @verified: chunks 0 .. @verified - 1, read in order, passed their CRC
 *	check in an earlier pass (before a rewind): a later pass does not
 *	compute it again
 * @checked: chunks 0 .. @checked - 1 passed their item checks too: a later
 *	pass does not walk their items again (the same bytes, the same result)
 * @end_seq: the chunk holding the END item, UINT64_MAX before it is met
 * @items: items in the chunks before the current one
 * @buf: the current chunk's extra header bytes and payload
 * @cap: bytes of @buf
 * @payload: the current chunk's payload, inside @buf
 * @size: bytes of @payload
 * @pos: offset in @payload of the next item to return
 * @payload_off: file offset of @payload
 * @msg: the error message
 * @path: the file name, for messages
 */
struct npf_reader {
	int fd;
	int err;
	bool done;
	bool ended;
	bool truncated;
	bool seeked;
	struct npf_file_hdr hdr;
	uint64_t next_off;
	uint64_t seq;
	uint64_t verified;
	uint64_t checked;
	uint64_t end_seq;
	uint64_t items;
	uint64_t file_size;	/* a regular file's size, as last seen */
	struct npf_ahead *ah;	/* npf_reader_readahead() */
	uint8_t *buf;
	size_t cap;
	const uint8_t *payload;
	uint32_t size;
	uint32_t pos;
	uint64_t payload_off;
	char msg[NPF_READER_MSG];
	char path[];
};

/* Record "PATH: offset OFF: what" and return @ret */
__attribute__((format(printf, 4, 5)))
static int rd_fail(struct npf_reader *r, int ret, uint64_t off,
		   const char *fmt, ...)
{
	int n = snprintf(r->msg, sizeof(r->msg), "%s: offset %llu: ", r->path,
			 (unsigned long long)off);
	va_list ap;

	if (n >= 0 && (size_t)n < sizeof(r->msg)) {
		va_start(ap, fmt);
		vsnprintf(r->msg + n, sizeof(r->msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int check_file_hdr(struct npf_reader *r)
{
	struct npf_file_hdr *h = &r->hdr;
	ssize_t n = pread_full(r->fd, h, sizeof(*h), 0);

	if (n < 0)
		return rd_fail(r, (int)n, 0, "cannot read the header: %s",
			       strerror((int)-n));
	if (n == 0)
		return rd_fail(r, -ENOEXEC, 0, "empty file, not a trace file");
	if ((size_t)n < sizeof(h->magic) ||
	    memcmp(h->magic, NPF_FILE_MAGIC, sizeof(h->magic)))
		return rd_fail(r, -ENOEXEC, 0,
			       "not a trace file (no \"%s\" magic)",
			       NPF_FILE_MAGIC);
	if ((size_t)n < sizeof(*h))
		return rd_fail(r, -EBADMSG, (uint64_t)n,
			       "file header cut short (%zd of %zu bytes)", n,
			       sizeof(*h));
	if (h->byte_order == __builtin_bswap32(NPF_BYTE_ORDER))
		return rd_fail(r, -EPROTONOSUPPORT,
			       offsetof(struct npf_file_hdr, byte_order),
			       "written on a host of the other byte order");
	if (h->byte_order != NPF_BYTE_ORDER)
		return rd_fail(r, -EBADMSG,
			       offsetof(struct npf_file_hdr, byte_order),
			       "bad byte order mark 0x%08x", h->byte_order);
	if (h->version != NPF_FILE_VERSION)
		return rd_fail(r, -EPROTONOSUPPORT,
			       offsetof(struct npf_file_hdr, version),
			       "format version %u, this reader knows %u",
			       h->version, NPF_FILE_VERSION);
	if (h->hdr_size < sizeof(*h) || h->hdr_size > NPF_FILE_HDR_MAX ||
	    h->hdr_size % 8)
		return rd_fail(r, -EBADMSG,
			       offsetof(struct npf_file_hdr, hdr_size),
			       "bad header size %u", h->hdr_size);
	if (h->chunk_max < NPF_CHUNK_MIN || h->chunk_max > NPF_CHUNK_MAX ||
	    h->chunk_max % 8)
		return rd_fail(r, -EBADMSG,
			       offsetof(struct npf_file_hdr, chunk_max),
			       "bad chunk_max %u (a multiple of 8 in %u..%u)",
			       h->chunk_max, NPF_CHUNK_MIN, NPF_CHUNK_MAX);
	return 0;
}

int npf_reader_open(const char *path, struct npf_reader **rp, char *err,
		    size_t errlen)
{
	int saved = errno;
	size_t plen = strlen(path);
	struct npf_reader *r;
	int ret;

	*rp = NULL;
	if (err && errlen)
		err[0] = '\0';
	r = calloc(1, sizeof(*r) + plen + 1);
	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		errno = saved;
		return -ENOMEM;
	}
	memcpy(r->path, path, plen + 1);
	r->end_seq = UINT64_MAX;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		snprintf(r->msg, sizeof(r->msg), "%s: %s", path,
			 strerror(-ret));
	} else {
		ret = check_file_hdr(r);
	}
	if (ret) {
		if (err && errlen)
			snprintf(err, errlen, "%s", r->msg);
		if (r->fd >= 0)
			close(r->fd);
		free(r);
		errno = saved;
		return ret;
	}
	npf_reader_rewind(r);
	*rp = r;
	errno = saved;
	return 0;
}

#define ITEM_FAIL(r, off, ...) rd_fail(r, -EBADMSG, off, __VA_ARGS__)

/* RECORDS: @count ring records filling the body (@blen bytes at @boff) */
static int check_records(struct npf_reader *r, const uint8_t *body,
			 uint32_t blen, uint64_t boff)
{
	const struct npf_item_records *rs = (const void *)body;
	uint64_t coff = boff + offsetof(struct npf_item_records, count);
	uint32_t pos = sizeof(*rs), n;

	if (!rs->count)
		return ITEM_FAIL(r, coff, "RECORDS count 0");
	for (n = 0; n < rs->count; n++) {
		const struct npu_trace_rec_hdr *h = (const void *)(body + pos);

		/* pos and blen are multiples of 8: the header is inside */
		if (pos == blen)
			return ITEM_FAIL(r, coff,
					 "RECORDS count %u, the item holds %u records",
					 rs->count, n);
		if (h->size < sizeof(*h) || h->size % 8 || h->size > blen - pos)
			return ITEM_FAIL(r, boff + pos +
					 offsetof(struct npu_trace_rec_hdr, size),
					 "RECORDS record %u of size %u (%u bytes left)",
					 n, h->size, blen - pos);
		pos += h->size;
	}
	if (pos != blen)
		return ITEM_FAIL(r, coff,
				 "RECORDS count %u, the item holds more records",
				 rs->count);
	return 0;
}

/*
 * Check the type-specific layout of the item at file offset @off: @body
 * (@blen bytes, 8-aligned) is its body; @before is the number of items
 * before it in the file.
 */
static int check_item(struct npf_reader *r, const struct npf_item *it,
		      uint64_t off, uint64_t before)
{
	const uint8_t *body = (const uint8_t *)(it + 1);
	uint32_t blen = it->size - NPF_ITEM_HDR_SIZE;
	uint64_t boff = off + NPF_ITEM_HDR_SIZE;
	const uint8_t *k, *v;

	if (it->type > NPF_ITEM_TYPE_MAX || !npf_item_min_body[it->type])
		return 0;		/* unknown: returned as it is */
	if (blen < npf_item_min_body[it->type])
		return ITEM_FAIL(r, off + offsetof(struct npf_item, size),
				 "%s item of %u bytes, its body needs %u",
				 item_names[it->type], it->size,
				 npf_item_min_body[it->type]);

	switch (it->type) {
	case NPF_ITEM_META:
		k = memchr(body, 0, blen);
		if (!k)
			return ITEM_FAIL(r, boff, "META key without a NUL");
		v = memchr(k + 1, 0, blen - (size_t)(k + 1 - body));
		if (!v)
			return ITEM_FAIL(r, boff + (uint64_t)(k + 1 - body),
					 "META value without a NUL");
		break;
	case NPF_ITEM_DEVICE: {
		const struct npf_item_device *d = (const void *)body;

		if (d->info_size > blen - sizeof(*d))
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_device,
							    info_size),
					 "DEVICE info_size %u, the item holds %zu",
					 d->info_size, blen - sizeof(*d));
		if (!memchr(d->path, 0, sizeof(d->path)))
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_device,
							    path),
					 "DEVICE path without a NUL");
		break;
	}
	case NPF_ITEM_RECORD: {
		const struct npu_trace_rec_hdr *h =
			(const void *)(body + sizeof(struct npf_item_record));
		uint64_t hoff = boff + sizeof(struct npf_item_record) +
				offsetof(struct npu_trace_rec_hdr, size);

		if (h->size < sizeof(*h) || h->size % 8)
			return ITEM_FAIL(r, hoff, "RECORD ring record size %u",
					 h->size);
		if (blen != sizeof(struct npf_item_record) + h->size)
			return ITEM_FAIL(r, hoff,
					 "RECORD ring record of %u bytes in an item of %u",
					 h->size, it->size);
		break;
	}
	case NPF_ITEM_RECORDS:
		return check_records(r, body, blen, boff);
	case NPF_ITEM_STRING: {
		const struct npf_item_string *s = (const void *)body;
		const uint8_t *text = body + sizeof(*s), *nul;

		if ((uint64_t)s->len + 1 > blen - sizeof(*s))
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_string,
							    len),
					 "STRING len %u, the item holds %zu bytes",
					 s->len, blen - sizeof(*s));
		/* exactly @len bytes of text, then the NUL */
		nul = memchr(text, 0, (size_t)s->len + 1);
		if (!nul)
			return ITEM_FAIL(r, boff + sizeof(*s) + s->len,
					 "STRING text without a NUL at its end");
		if (nul != text + s->len)
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_string,
							    len),
					 "STRING len %u, its text ends at %zu",
					 s->len, (size_t)(nul - text));
		break;
	}
	case NPF_ITEM_CLOCKS: {
		const struct npf_item_clocks *c = (const void *)body;

		if ((uint64_t)c->count * sizeof(struct npf_clock_sample) >
		    blen - sizeof(*c))
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_clocks,
							    count),
					 "CLOCKS count %u, the item holds %zu samples",
					 c->count, (blen - sizeof(*c)) /
					 sizeof(struct npf_clock_sample));
		break;
	}
	case NPF_ITEM_THREAD: {
		const struct npf_item_thread *t = (const void *)body;

		if (!memchr(t->name, 0, sizeof(t->name)))
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_thread,
							    name),
					 "THREAD name without a NUL");
		break;
	}
	case NPF_ITEM_END: {
		const struct npf_item_end *e = (const void *)body;

		if (e->chunks != r->seq)
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_end,
							    chunks),
					 "END counts %llu chunks before its own, there are %llu",
					 (unsigned long long)e->chunks,
					 (unsigned long long)r->seq);
		/* after npf_reader_seek(), the items before are unknown */
		if (!r->seeked && e->items != before)
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_end,
							    items),
					 "END counts %llu items before it, there are %llu",
					 (unsigned long long)e->items,
					 (unsigned long long)before);
		break;
	}
	default:
		break;
	}
	return 0;
}

/* Walk every item of the chunk payload @p (@size bytes at @off) */
static int check_items(struct npf_reader *r, const uint8_t *p, uint32_t size,
		       uint64_t off, uint64_t hdr_off, uint32_t nitems)
{
	uint32_t pos = 0, n = 0;
	bool end = false;
	int ret;

	while (pos < size) {
		const struct npf_item *it = (const void *)(p + pos);
		uint64_t ioff = off + pos;

		/* pos and size are multiples of 8: the header is inside */
		if (it->size < NPF_ITEM_HDR_SIZE || it->size % 8)
			return ITEM_FAIL(r, ioff + offsetof(struct npf_item, size),
					 "item size %u (a multiple of 8, at least 8)",
					 it->size);
		if (it->size > size - pos)
			return ITEM_FAIL(r, ioff + offsetof(struct npf_item, size),
					 "item of %u bytes crosses the end of its chunk (%u bytes left)",
					 it->size, size - pos);
		if (end)
			return ITEM_FAIL(r, ioff, "item after the END item");
		ret = check_item(r, it, ioff, r->items + n);
		if (ret)
			return ret;
		end = it->type == NPF_ITEM_END;
		pos += it->size;
		n++;
	}
	if (n != nitems)
		return ITEM_FAIL(r, hdr_off + offsetof(struct npf_chunk_hdr, items),
				 "chunk counts %u items, it holds %u", nitems, n);
	r->ended = end;
	return 0;
}

/* Grow the chunk buffer to @need bytes (bounded by the caller) */
static int reader_grow(struct npf_reader *r, size_t need)
{
	size_t cap = r->cap ? r->cap : 4096;
	size_t limit = (size_t)r->hdr.chunk_max + NPF_CHUNK_HDR_MAX;
	uint8_t *buf;

	if (need <= r->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (cap > limit)
		cap = limit < need ? need : limit;
	buf = realloc(r->buf, cap);
	if (!buf)
		return -ENOMEM;
	r->buf = buf;
	r->cap = cap;
	return 0;
}

/*
 * Read-ahead (npf_reader_readahead()): a thread of the reader's reads the
 * next chunk's bytes (its header, and as many bytes as the largest chunk)
 * into one of two buffers while the caller walks the current chunk,
 * which is in the other one or in r->buf. load_chunk() takes the bytes
 * when they hold the whole chunk, else it reads as without (a short or
 * failed read-ahead is read again: the file may have grown since, and an
 * error is reported as ever). A trace file's bytes never change, only
 * grow, so bytes read ahead are the bytes a read now would give; checks,
 * CRC and errors are the same. The buffer the caller's items are in is
 * read into again only at the next chunk, when they are dead.
 */
struct npf_ahead {
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	uint8_t *buf[2];
	size_t cap;
	bool quit;
	bool req;		/* a read asked, not yet done */
	bool pending;		/* a read asked, its result not yet taken */
	int idx;		/* the buffer asked for */
	uint64_t off;
	ssize_t n;		/* its result */
};

#define NPF_AHEAD_MAX	(4u << 20)	/* chunks beyond: no read-ahead */

static void *ahead_main(void *arg)
{
	struct npf_ahead *ah = arg;

	pthread_mutex_lock(&ah->mu);
	for (;;) {
		while (!ah->req && !ah->quit)
			pthread_cond_wait(&ah->cv, &ah->mu);
		if (ah->quit)
			break;
		pthread_mutex_unlock(&ah->mu);
		/* the buffer and offset are ours until req is cleared */
		ah->n = pread_full(ah->fd, ah->buf[ah->idx], ah->cap, ah->off);
		pthread_mutex_lock(&ah->mu);
		ah->req = false;
		pthread_cond_broadcast(&ah->cv);
	}
	pthread_mutex_unlock(&ah->mu);
	return NULL;
}

/* Wait for the read asked, if any; returns its buffer, NULL without */
static const uint8_t *ahead_wait(struct npf_ahead *ah)
{
	if (!ah->pending)
		return NULL;
	pthread_mutex_lock(&ah->mu);
	while (ah->req)
		pthread_cond_wait(&ah->cv, &ah->mu);
	pthread_mutex_unlock(&ah->mu);
	ah->pending = false;
	return ah->buf[ah->idx];
}

/*
 * The chunk at @off read ahead: its header into *@ch and the bytes from
 * the header on returned (r->ah->n of them), or NULL.
 */
static const uint8_t *ahead_take(struct npf_reader *r, uint64_t off,
				 struct npf_chunk_hdr *ch)
{
	const uint8_t *b;

	if (!r->ah)
		return NULL;
	b = ahead_wait(r->ah);
	if (!b || r->ah->off != off || r->ah->n < (ssize_t)sizeof(*ch))
		return NULL;
	memcpy(ch, b, sizeof(*ch));
	return b;
}

/* Ask for the next chunk's bytes, into the buffer @cur (the chunk now
 * walked) is not in */
static void ahead_start(struct npf_reader *r, const uint8_t *cur)
{
	struct npf_ahead *ah = r->ah;

	if (!ah || r->ended)
		return;
	pthread_mutex_lock(&ah->mu);
	ah->idx = cur >= ah->buf[0] && cur < ah->buf[0] + ah->cap;
	ah->off = r->next_off;
	ah->req = true;
	ah->pending = true;
	pthread_cond_broadcast(&ah->cv);
	pthread_mutex_unlock(&ah->mu);
}

static void ahead_stop(struct npf_reader *r)
{
	struct npf_ahead *ah = r->ah;

	if (!ah)
		return;
	pthread_mutex_lock(&ah->mu);
	ah->quit = true;
	pthread_cond_broadcast(&ah->cv);
	pthread_mutex_unlock(&ah->mu);
	pthread_join(ah->thr, NULL);
	pthread_cond_destroy(&ah->cv);
	pthread_mutex_destroy(&ah->mu);
	free(ah->buf[0]);
	free(ah->buf[1]);
	free(ah);
	r->ah = NULL;
}

int npf_reader_readahead(struct npf_reader *r, bool on)
{
	struct npf_ahead *ah;
	int saved = errno;

	if (!on || r->ah) {
		if (!on) {
			/* the chunk walked now may be in a read-ahead buffer */
			if (r->ah && r->payload && r->pos < r->size)
				return -EBUSY;
			ahead_stop(r);
		}
		return 0;
	}
	if (r->hdr.chunk_max > NPF_AHEAD_MAX)
		return -E2BIG;
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return -ENOMEM;
	ah->fd = r->fd;
	ah->cap = sizeof(struct npf_chunk_hdr) + NPF_CHUNK_HDR_MAX +
		  r->hdr.chunk_max;
	ah->buf[0] = malloc(ah->cap);
	ah->buf[1] = malloc(ah->cap);
	if (!ah->buf[0] || !ah->buf[1] || pthread_mutex_init(&ah->mu, NULL))
		goto fail;
	if (pthread_cond_init(&ah->cv, NULL))
		goto fail_mu;
	if (pthread_create(&ah->thr, NULL, ahead_main, ah))
		goto fail_cv;
	r->ah = ah;
	errno = saved;
	return 0;
fail_cv:
	pthread_cond_destroy(&ah->cv);
fail_mu:
	pthread_mutex_destroy(&ah->mu);
fail:
	free(ah->buf[0]);
	free(ah->buf[1]);
	free(ah);
	errno = saved;
	return -ENOMEM;
}

/*
 * Read and check the chunk at r->next_off. Return: 1 with the chunk
 * loaded, 0 at the end of the file (r->truncated set unless the END item
 * was met), or an error.
 */
static int load_chunk(struct npf_reader *r)
{
	uint64_t off = r->next_off, poff, left;
	struct npf_chunk_hdr ch;
	const uint8_t *body;
	size_t extra, need;
	struct stat st;
	uint32_t crc;
	ssize_t n;
	int ret;

	body = ahead_take(r, off, &ch);
	n = body ? (ssize_t)sizeof(ch) : pread_full(r->fd, &ch, sizeof(ch), off);
	if (n < 0)
		return rd_fail(r, (int)n, off, "read: %s", strerror((int)-n));
	if (r->ended) {
		if (n)
			return rd_fail(r, -EBADMSG, off,
				       "data after the END item");
		return 0;
	}
	if ((size_t)n < sizeof(ch)) {
		r->truncated = true;	/* cut in a chunk header, or at one */
		return 0;
	}
	if (ch.magic != NPF_CHUNK_MAGIC)
		return rd_fail(r, -EBADMSG, off, "bad chunk magic 0x%08x",
			       ch.magic);
	if (ch.hdr_size < sizeof(ch) || ch.hdr_size > NPF_CHUNK_HDR_MAX ||
	    ch.hdr_size % 8)
		return rd_fail(r, -EBADMSG,
			       off + offsetof(struct npf_chunk_hdr, hdr_size),
			       "bad chunk header size %u", ch.hdr_size);
	if (ch.seq != r->seq)
		return rd_fail(r, -EBADMSG,
			       off + offsetof(struct npf_chunk_hdr, seq),
			       "chunk seq %llu, expected %llu",
			       (unsigned long long)ch.seq,
			       (unsigned long long)r->seq);
	if (!ch.size || ch.size % 8 || ch.size > r->hdr.chunk_max)
		return rd_fail(r, -EBADMSG,
			       off + offsetof(struct npf_chunk_hdr, size),
			       "chunk size %u (a multiple of 8 in 8..%u)",
			       ch.size, r->hdr.chunk_max);

	/* a chunk going past the end of the file is a cut one: no need to
	 * allocate for it */
	extra = ch.hdr_size - sizeof(ch);
	need = extra + ch.size;
	poff = off + ch.hdr_size;
	/*
	 * A trace file only grows: a size seen before that holds the chunk
	 * still does (and a short read below catches the rest), so fstat()
	 * only when it does not (once, unless the file grew), not per chunk.
	 */
	if (body && r->ah->n >= (ssize_t)(sizeof(ch) + need)) {
		/* read ahead, whole: no fstat(), no pread() */
	} else if (r->file_size < off + sizeof(ch) + need &&
		   !fstat(r->fd, &st) && S_ISREG(st.st_mode)) {
		r->file_size = (uint64_t)st.st_size;
		left = (uint64_t)st.st_size > off + sizeof(ch) ?
		       (uint64_t)st.st_size - off - sizeof(ch) : 0;
		if (left < need) {
			r->truncated = true;
			return 0;
		}
	}
	if (body && r->ah->n >= (ssize_t)(sizeof(ch) + need)) {
		body += sizeof(ch);
	} else {
		ret = reader_grow(r, need);
		if (ret)
			return rd_fail(r, ret, off,
				       "no memory for a chunk of %u bytes",
				       ch.size);
		n = pread_full(r->fd, r->buf, need, off + sizeof(ch));
		if (n < 0)
			return rd_fail(r, (int)n, off, "read: %s",
				       strerror((int)-n));
		if ((size_t)n < need) {
			r->truncated = true;
			return 0;
		}
		body = r->buf;
	}
	/*
	 * A chunk that an earlier pass read in order and checked is the same
	 * bytes (a trace file only ever grows: a cut shortens it, never
	 * changes it): a later pass neither computes its CRC nor walks its
	 * items again, so npuprof_trace_open()'s pass over the clock samples
	 * and the events' pass check each chunk once. A chunk that failed is
	 * checked again, and fails again. What a seek reached is checked
	 * whole and remembered for nothing: a seek (to an offset a file's
	 * END gave) may land on other bytes with the same seq.
	 */
	if (r->seeked || ch.seq >= r->verified) {
		crc = npf_crc32(0, body + extra, ch.size);
		if (crc != ch.crc)
			return rd_fail(r, -EBADMSG,
				       off + offsetof(struct npf_chunk_hdr, crc),
				       "chunk crc 0x%08x, its payload has 0x%08x",
				       ch.crc, crc);
		if (!r->seeked)
			r->verified = ch.seq + 1;
	}
	if (r->seeked || ch.seq >= r->checked) {
		ret = check_items(r, body + extra, ch.size, poff, off,
				  ch.items);
		if (ret)
			return ret;
		if (!r->seeked) {
			r->checked = ch.seq + 1;
			if (r->ended)
				r->end_seq = ch.seq;
		}
	} else {
		r->ended = ch.seq == r->end_seq;
	}
	r->seq++;
	r->items += ch.items;
	r->payload = body + extra;
	r->size = ch.size;
	r->pos = 0;
	r->payload_off = poff;
	r->next_off = poff + ch.size;
	ahead_start(r, body);
	return 1;
}

int npf_reader_next(struct npf_reader *r, const struct npf_item **item,
		    uint64_t *offset)
{
	int saved = errno;
	int ret;

	for (;;) {
		if (r->err)
			return r->err;
		if (r->pos < r->size) {
			const struct npf_item *it =
				(const void *)(r->payload + r->pos);

			*item = it;
			if (offset)
				*offset = r->payload_off + r->pos;
			r->pos += it->size;
			return 1;
		}
		if (r->done)
			return 0;
		ret = load_chunk(r);
		errno = saved;
		if (ret < 0) {
			r->err = ret;
			return ret;
		}
		if (ret == 0) {
			r->done = true;
			return 0;
		}
	}
}

const char *npf_reader_error(const struct npf_reader *r)
{
	return r->err ? r->msg : "";
}

int npf_reader_truncated(const struct npf_reader *r)
{
	return r->truncated;
}

int npf_reader_rewind(struct npf_reader *r)
{
	if (r->ah)
		ahead_wait(r->ah);	/* for another offset: dropped */
	r->err = 0;
	r->done = false;
	r->ended = false;
	r->truncated = false;
	r->seeked = false;
	r->next_off = r->hdr.hdr_size;
	r->seq = 0;
	r->items = 0;
	r->payload = NULL;
	r->size = 0;
	r->pos = 0;
	r->payload_off = 0;
	r->msg[0] = '\0';
	return 0;
}

int npf_reader_index(struct npf_reader *r, uint64_t *off, uint64_t *seq)
{
	/* the last chunk: a header, then END alone, as npf_writer_close() */
	struct {
		struct npf_chunk_hdr ch;
		struct npf_item it;
		struct npf_item_end end;
	} t;
	int saved = errno;
	struct stat st;
	uint64_t at;
	ssize_t n;

	_Static_assert(sizeof(t) == 72, "the last chunk of a file with an index");
	if (fstat(r->fd, &st)) {
		n = -errno;
		errno = saved;
		return (int)n;
	}
	if (!S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < r->hdr.hdr_size + sizeof(t))
		return -ENOENT;
	at = (uint64_t)st.st_size - sizeof(t);
	n = pread_full(r->fd, &t, sizeof(t), at);
	errno = saved;
	if (n < 0)
		return (int)n;
	if ((size_t)n < sizeof(t) || t.ch.magic != NPF_CHUNK_MAGIC ||
	    t.ch.hdr_size != sizeof(t.ch) ||
	    t.ch.size != sizeof(t.it) + sizeof(t.end) || t.ch.items != 1 ||
	    t.ch.crc != npf_crc32(0, &t.it, t.ch.size) ||
	    t.it.type != NPF_ITEM_END || t.it.size != t.ch.size ||
	    t.end.chunks != t.ch.seq || !t.end.index_off ||
	    t.end.index_off % 8 || t.end.index_off < r->hdr.hdr_size ||
	    t.end.index_off >= at || t.end.index_seq >= t.ch.seq)
		return -ENOENT;
	*off = t.end.index_off;
	*seq = t.end.index_seq;
	return 0;
}

int npf_reader_seek(struct npf_reader *r, uint64_t off, uint64_t seq)
{
	if (off % 8 || off < r->hdr.hdr_size)
		return -EINVAL;
	npf_reader_rewind(r);
	r->seeked = true;
	r->next_off = off;
	r->seq = seq;
	return 0;
}

const struct npf_file_hdr *npf_reader_hdr(const struct npf_reader *r)
{
	return &r->hdr;
}

void npf_reader_close(struct npf_reader *r)
{
	int saved = errno;

	if (!r)
		return;
	ahead_stop(r);
	close(r->fd);
	free(r->buf);
	free(r);
	errno = saved;
}
