// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracefile_read.c - the .npuprof trace file's low-level streaming reader
 * (Documentation/npu/trace-file.rst); its writer is the capture library's
 * (lib/npuprof/tracefile_write.c).
 *
 * The reader reads one chunk at a time with pread() into a buffer that
 * grows to the largest chunk met, never beyond the header's chunk_max
 * (itself at most NPF_CHUNK_MAX), and validates the whole chunk (header,
 * CRC, every item) before it returns the first of its items, so a caller
 * only ever sees items of sound chunks; after a rewind, the CRC of the
 * chunks that passed it already is not computed again (the items are).
 * Whatever the input it neither crashes, nor loops (every step consumes
 * at least 8 bytes), nor allocates more than that buffer and its own
 * small struct.
 *
 * Locking: none; a reader is used by one thread at a time. Lifetime:
 * npf_reader_open() .. npf_reader_close(). Items returned by
 * npf_reader_next() live until the next call on that reader. errno is
 * preserved by every function.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler.h"
#include "crc32.h"
#include "reader.h"
#include "ring_parse.h"

/* Largest file header and chunk header a reader accepts (later versions
 * may grow them; version 1 readers skip the bytes they do not know). */
#define NPF_FILE_HDR_MAX	4096u
#define NPF_CHUNK_HDR_MAX	256u
#define NPF_CHUNK_HDR_SIZE	((uint32_t)sizeof(struct npf_chunk_hdr))
#define NPF_ITEM_HDR_SIZE	((uint32_t)sizeof(struct npf_item))

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
	[NPF_ITEM_MODEL] = "MODEL",
};

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

	n = pread_full(r->fd, &ch, sizeof(ch), off);
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
	if (r->file_size < off + sizeof(ch) + need &&
		   !fstat(r->fd, &st) && S_ISREG(st.st_mode)) {
		r->file_size = (uint64_t)st.st_size;
		left = (uint64_t)st.st_size > off + sizeof(ch) ?
		       (uint64_t)st.st_size - off - sizeof(ch) : 0;
		if (left < need) {
			r->truncated = true;
			return 0;
		}
	}
	ret = reader_grow(r, need);
	if (ret)
		return rd_fail(r, ret, off, "no memory for a chunk of %u bytes",
			       ch.size);
	n = pread_full(r->fd, r->buf, need, off + sizeof(ch));
	if (n < 0)
		return rd_fail(r, (int)n, off, "read: %s", strerror((int)-n));
	if ((size_t)n < need) {
		r->truncated = true;
		return 0;
	}
	body = r->buf;
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
	close(r->fd);
	free(r->buf);
	free(r);
	errno = saved;
}
