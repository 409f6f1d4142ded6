// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracefile_read.c - the .npuprof trace file's low-level streaming reader
 * (Documentation/npu/trace-file.rst); its writer is the capture library's
 * (lib/npuprof/tracefile_write.c).
 *
 * The reader reads one chunk at a time with pread() into a buffer that
 * grows to the largest chunk met, never beyond the header's chunk_max
 * (itself at most NPF_CHUNK_MAX), and validates the whole chunk (header
 * and its CRC, payload CRC, every item) before it returns the first of
 * its items, so a caller only ever sees items of sound chunks; after a
 * rewind, a chunk that passed every check in an earlier pass, read in
 * order with nothing skipped before it, is not checked again. A chunk
 * that fails a check of its header or a CRC is skipped: the reader looks
 * for the next sound chunk (at its place when the damaged chunk's header
 * was sound, else the next 8-aligned chunk magic whose header and payload
 * check) and counts the stretch it skipped (struct npuprof_damage).
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

#include "crc32.h"
#include "npuprof_analysis.h"
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
 * @skipped: this pass skipped a damaged stretch (since the last rewind)
 * @hdr: the file header (the first 64 bytes)
 * @next_off: file offset of the next chunk
 * @seq: seq the next chunk must have (at least, after a damaged stretch)
 * @cur_seq: seq of the chunk being checked, for its END item
 * @good_end: end of this pass's last sound chunk, or where it started: a
 *	damaged stretch is looked through from there
 * @checked: chunks 0 .. @checked - 1, read in order with nothing skipped
 *	before them, passed every check in an earlier pass (before a
 *	rewind): a later pass neither computes their CRC nor walks their
 *	items again (the same bytes, the same result)
 * @end_seq: the chunk holding the END item, UINT64_MAX before it is met
 * @items: items in the chunks before the current one
 * @dmg: the damaged stretches counted, each once over every pass
 * @dmg_end: end of the last stretch counted: a later pass meets the
 *	stretches before it again, counted already
 * @why: what was wrong at the start of the first stretch counted
 * @cause: what was wrong with the chunk chunk_at() looked at last
 * @nfound: the items check_items() found in a chunk that counts others
 * @plausible: chunk_at() failed a chunk without a header CRC on its
 *	payload's CRC alone: its header may be sound
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
	bool skipped;
	struct npf_file_hdr hdr;
	uint64_t next_off;
	uint64_t seq;
	uint64_t cur_seq;
	uint64_t good_end;
	uint64_t checked;
	uint64_t end_seq;
	uint64_t items;
	uint64_t file_size;	/* a regular file's size, as last seen */
	struct npuprof_damage dmg;
	uint64_t dmg_end;
	uint32_t nfound;
	bool plausible;
	char why[96];
	char cause[96];
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

		if (e->chunks != r->cur_seq)
			return ITEM_FAIL(r, boff + offsetof(struct npf_item_end,
							    chunks),
					 "END counts %llu chunks before its own, there are %llu",
					 (unsigned long long)e->chunks,
					 (unsigned long long)r->cur_seq);
		/* after npf_reader_seek() or a damaged stretch, the items
		 * before are unknown */
		if (!r->seeked && !r->skipped && e->items != before)
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

/* check_items(): the items are sound, but not as many as the chunk says */
#define NPF_ITEMS_MISCOUNT	1

/*
 * Walk every item of the chunk payload @p (@size bytes at @off). Return:
 * 0, NPF_ITEMS_MISCOUNT (r->nfound items, not @nitems), or -EBADMSG.
 */
static int check_items(struct npf_reader *r, const uint8_t *p, uint32_t size,
		       uint64_t off, uint32_t nitems)
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
	if (n != nitems) {
		r->nfound = n;
		return NPF_ITEMS_MISCOUNT;
	}
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

/* What chunk_at() found at an offset */
enum npf_chunk_state {
	NPF_CH_SOUND,	/* a chunk that passed every check: loaded */
	NPF_CH_END,	/* under a chunk header's bytes left: the file's end */
	NPF_CH_CUT,	/* a header whose payload runs past the end of the file */
	NPF_CH_BAD_HDR,	/* a header that fails a check, or unprotected (no
			 * hdr_crc) with something else wrong: nothing of it
			 * can be trusted */
	NPF_CH_BAD,	/* a sound header (its CRC matched), the chunk damaged
			 * (payload CRC, seq): its size and items are right */
};

/* Record in r->cause what is wrong with the chunk at hand; return @st */
__attribute__((format(printf, 3, 4)))
static int ch_cause(struct npf_reader *r, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->cause, sizeof(r->cause), fmt, ap);
	va_end(ap);
	return st;
}

/*
 * Read and check the chunk whose header is at @off and whose seq must be
 * in @seq_lo..@seq_hi, into r->buf. Return: an NPF_CH_* state (@ch set
 * from NPF_CH_CUT on; r->cause says what is wrong), or a negative error:
 * -errno of a read, -ENOMEM, or -EBADMSG for an item that fails its
 * checks in a chunk whose CRC matched (r->msg says which).
 */
static int chunk_at(struct npf_reader *r, uint64_t off, uint64_t seq_lo,
		    uint64_t seq_hi, struct npf_chunk_hdr *ch)
{
	uint64_t left;
	size_t extra, need;
	struct stat st;
	uint32_t crc;
	bool prot;
	ssize_t n;
	int ret;

	r->plausible = false;
	n = pread_full(r->fd, ch, sizeof(*ch), off);
	if (n < 0)
		return rd_fail(r, (int)n, off, "read: %s", strerror((int)-n));
	if ((size_t)n < sizeof(*ch))
		return NPF_CH_END;	/* cut in a chunk header, or at one */
	if (ch->magic != NPF_CHUNK_MAGIC)
		return ch_cause(r, NPF_CH_BAD_HDR, "bad chunk magic 0x%08x",
				ch->magic);
	if (ch->hdr_size < sizeof(*ch) || ch->hdr_size > NPF_CHUNK_HDR_MAX ||
	    ch->hdr_size % 8)
		return ch_cause(r, NPF_CH_BAD_HDR, "bad chunk header size %u",
				ch->hdr_size);
	if (!ch->size || ch->size % 8 || ch->size > r->hdr.chunk_max)
		return ch_cause(r, NPF_CH_BAD_HDR,
				"chunk size %u (a multiple of 8 in 8..%u)",
				ch->size, r->hdr.chunk_max);
	prot = ch->hdr_crc != 0;
	if (prot) {
		crc = npf_crc32(0, ch, NPF_CHUNK_HDR_CRC_LEN);
		if (crc != ch->hdr_crc)
			return ch_cause(r, NPF_CH_BAD_HDR,
					"chunk header crc 0x%08x, the header has 0x%08x",
					ch->hdr_crc, crc);
	}
	if (ch->seq < seq_lo || ch->seq > seq_hi)
		return ch_cause(r, prot ? NPF_CH_BAD : NPF_CH_BAD_HDR,
				"chunk seq %llu, expected %llu",
				(unsigned long long)ch->seq,
				(unsigned long long)seq_lo);

	/* a chunk going past the end of the file is a cut one: no need to
	 * allocate for it */
	extra = ch->hdr_size - sizeof(*ch);
	need = extra + ch->size;
	/*
	 * A trace file only grows: a size seen before that holds the chunk
	 * still does (and a short read below catches the rest), so fstat()
	 * only when it does not (once, unless the file grew), not per chunk.
	 */
	if (r->file_size < off + sizeof(*ch) + need &&
	    !fstat(r->fd, &st) && S_ISREG(st.st_mode)) {
		r->file_size = (uint64_t)st.st_size;
		left = (uint64_t)st.st_size > off + sizeof(*ch) ?
		       (uint64_t)st.st_size - off - sizeof(*ch) : 0;
		if (left < need)
			return ch_cause(r, NPF_CH_CUT,
					"chunk of %u bytes runs past the end of the file",
					ch->size);
	}
	ret = reader_grow(r, need);
	if (ret)
		return rd_fail(r, ret, off, "no memory for a chunk of %u bytes",
			       ch->size);
	n = pread_full(r->fd, r->buf, need, off + sizeof(*ch));
	if (n < 0)
		return rd_fail(r, (int)n, off, "read: %s", strerror((int)-n));
	if ((size_t)n < need)
		return ch_cause(r, NPF_CH_CUT,
				"chunk of %u bytes runs past the end of the file",
				ch->size);
	/*
	 * A chunk that an earlier pass read in order, with nothing skipped
	 * before it, and checked is the same bytes (a trace file only ever
	 * grows: a cut shortens it, never changes it): a later pass neither
	 * computes its CRC nor walks its items again, so
	 * npuprof_trace_open()'s pass over the clock samples and the events'
	 * pass check each chunk once. A chunk that failed is checked again,
	 * and fails again. What a seek reached is checked whole and
	 * remembered for nothing: a seek (to an offset a file's END gave)
	 * may land on other bytes with the same seq.
	 */
	if (!r->seeked && !r->skipped && ch->seq < r->checked) {
		r->ended = ch->seq == r->end_seq;
		return NPF_CH_SOUND;
	}
	crc = npf_crc32(0, r->buf + extra, ch->size);
	if (crc != ch->crc) {
		/* without a header CRC, a header that checked up to here */
		r->plausible = !prot;
		return ch_cause(r, prot ? NPF_CH_BAD : NPF_CH_BAD_HDR,
				"chunk crc 0x%08x, its payload has 0x%08x",
				ch->crc, crc);
	}
	r->cur_seq = ch->seq;
	ret = check_items(r, r->buf + extra, ch->size, off + ch->hdr_size,
			  ch->items);
	if (ret == NPF_ITEMS_MISCOUNT) {
		/* in a header without its CRC, a damaged count */
		if (!prot)
			return ch_cause(r, NPF_CH_BAD_HDR,
					"chunk counts %u items, it holds %u",
					ch->items, r->nfound);
		return ITEM_FAIL(r, off + offsetof(struct npf_chunk_hdr, items),
				 "chunk counts %u items, it holds %u",
				 ch->items, r->nfound);
	}
	return ret ? ret : NPF_CH_SOUND;
}

/* Take the sound chunk chunk_at() loaded from @off as the current one */
static int chunk_take(struct npf_reader *r, const struct npf_chunk_hdr *ch,
		      uint64_t off)
{
	size_t extra = ch->hdr_size - sizeof(*ch);

	if (!r->seeked && !r->skipped && ch->seq >= r->checked) {
		r->checked = ch->seq + 1;
		if (r->ended)
			r->end_seq = ch->seq;
	}
	r->seq = ch->seq + 1;
	r->items += ch->items;
	r->payload = r->buf + extra;
	r->size = ch->size;
	r->pos = 0;
	r->payload_off = off + ch->hdr_size;
	r->next_off = r->payload_off + ch->size;
	r->good_end = r->next_off;
	return 1;
}

/*
 * The next 8-aligned offset from @from (8-aligned) whose 4 bytes are the
 * chunk magic, into *@at; UINT64_MAX when there is none before the end.
 * Return: 0 or -errno of a read.
 */
static int find_magic(struct npf_reader *r, uint64_t from, uint64_t *at)
{
	uint64_t blk[512];
	ssize_t n;
	size_t i;

	for (;;) {
		n = pread_full(r->fd, blk, sizeof(blk), from);
		if (n < 0)
			return rd_fail(r, (int)n, from, "read: %s",
				       strerror((int)-n));
		for (i = 0; i + 4 <= (size_t)n; i += 8) {
			uint32_t m;

			memcpy(&m, (const uint8_t *)blk + i, sizeof(m));
			if (m == NPF_CHUNK_MAGIC) {
				*at = from + i;
				return 0;
			}
		}
		if ((size_t)n < sizeof(blk)) {
			*at = UINT64_MAX;
			return 0;
		}
		from += sizeof(blk);
	}
}

/*
 * Count the damaged stretch [@start, @end) of @chunks chunks (@known of
 * them with a sound header, holding @items items), unless it is empty
 * (r->skipped back to @was then) or an earlier pass counted it; a seek's
 * pass counts nothing (the pass from the start will).
 */
static void stretch_count(struct npf_reader *r, bool was, uint64_t start,
			  uint64_t end, uint64_t chunks, uint64_t known,
			  uint64_t items, const char *why)
{
	struct npuprof_damage *d = &r->dmg;

	if (!chunks && end <= start) {
		r->skipped = was;
		return;
	}
	r->skipped = true;
	if (r->seeked || start < r->dmg_end)
		return;
	if (!d->stretches++) {
		d->first_offset = start;
		snprintf(r->why, sizeof(r->why), "%s", why);
	}
	d->last_offset = start;
	d->chunks += chunks;
	d->bytes += end > start ? end - start : 0;
	d->items += items;
	d->items_unknown += chunks > known ? chunks - known : 0;
	r->dmg_end = end > start ? end : start + 1;
}

/* The size of the file now (a regular file's; else the last known) */
static uint64_t file_end(struct npf_reader *r)
{
	struct stat st;

	if (!fstat(r->fd, &st) && S_ISREG(st.st_mode))
		r->file_size = (uint64_t)st.st_size;
	return r->file_size;
}

/*
 * The chunk at @off failed (@st; @ch as chunk_at() left it, r->cause
 * why): skip the damaged stretch that starts there, up to the next sound
 * chunk, and load it. A sound header gives the next chunk's place; past
 * a damaged one, the next chunk magic at an 8-aligned offset from the end
 * of the last sound chunk is tried, and so on. The chunk found must have
 * a seq from r->seq on, at most one more for every 40 bytes (the smallest
 * chunk) skipped. Return: 1 with the chunk loaded; 0 at the end of the
 * file (truncated, the stretch running to it); a negative error.
 */
static int resync(struct npf_reader *r, uint64_t off, int st,
		  struct npf_chunk_hdr *ch)
{
	uint64_t at = off, from = off + 8, next, items = 0, known = 0;
	bool cut = st == NPF_CH_CUT;	/* maybe only a cut file */
	bool was = r->skipped;
	char why[sizeof(r->cause)];
	int ret;

	/*
	 * A header without its CRC that checked but for the payload's CRC:
	 * if the next sound chunk is where it says, with the next seq, it
	 * was sound and its item count is known
	 */
	uint64_t pl_end = 0, pl_items = 0;

	if (st == NPF_CH_BAD_HDR && r->plausible) {
		pl_end = off + ch->hdr_size + ch->size;
		pl_items = ch->items < ch->size / 8 ? ch->items : ch->size / 8;
	}
	snprintf(why, sizeof(why), "%s", r->cause);
	/* chunk 0 may be before the file header's hdr_size, when that is
	 * the damaged byte: looked for from the header's end */
	if (off > r->good_end) {
		st = NPF_CH_BAD_HDR;
		from = r->good_end;
	}
	/* what follows is checked whole, and END's count of items not */
	r->skipped = true;
	for (;;) {
		if (st == NPF_CH_BAD) {
			/* a sound header: the next chunk is where it says,
			 * its items what it says as far as its size allows */
			items += ch->items < ch->size / 8 ? ch->items :
				 ch->size / 8;
			known++;
			next = at + ch->hdr_size + ch->size;
		} else {
			ret = find_magic(r, from, &next);
			if (ret)
				return ret;
			if (next == UINT64_MAX)
				break;
		}
		st = chunk_at(r, next, r->seq,
			      r->seq + (next - r->good_end) / 40, ch);
		if (st < 0)
			return st;
		if (st == NPF_CH_SOUND) {
			if (next == pl_end && ch->seq == r->seq + 1) {
				known = 1;
				items = pl_items;
			}
			stretch_count(r, was, off, next, ch->seq - r->seq, known,
				      items, why);
			return chunk_take(r, ch, next);
		}
		if (st == NPF_CH_END)
			break;
		if (st == NPF_CH_CUT && ch->hdr_crc) {
			/* a sound header cut by the end of the file: the
			 * stretch ends there, then the file is cut */
			if (!cut)
				stretch_count(r, was, off, next, ch->seq - r->seq,
					      known, items, why);
			else
				r->skipped = was;
			r->truncated = true;
			return 0;
		}
		at = next;
		from = next + 8;
	}
	/* no sound chunk up to the end of the file */
	if (!cut)
		stretch_count(r, was, off, file_end(r), known ? known : 1,
			      known, items, why);
	else
		r->skipped = was;
	r->truncated = true;
	return 0;
}

/*
 * Read and check the chunk at r->next_off, skipping a damaged stretch.
 * Return: 1 with the chunk loaded, 0 at the end of the file (r->truncated
 * set unless the END item was met), or an error.
 */
static int load_chunk(struct npf_reader *r)
{
	uint64_t off = r->next_off;
	struct npf_chunk_hdr ch;
	ssize_t n;
	int st;

	if (r->ended) {
		n = pread_full(r->fd, &ch, 1, off);
		if (n < 0)
			return rd_fail(r, (int)n, off, "read: %s",
				       strerror((int)-n));
		if (n)
			return rd_fail(r, -EBADMSG, off,
				       "data after the END item");
		return 0;
	}
	st = chunk_at(r, off, r->seq, r->seq, &ch);
	if (st < 0)
		return st;
	switch (st) {
	case NPF_CH_SOUND:
		return chunk_take(r, &ch, off);
	case NPF_CH_END:
		r->truncated = true;
		return 0;
	case NPF_CH_CUT:
		/* a sound header: the file was cut there; without its CRC
		 * the size may be a damaged one, if a sound chunk follows */
		if (ch.hdr_crc) {
			r->truncated = true;
			return 0;
		}
		return resync(r, off, st, &ch);
	default:
		return resync(r, off, st, &ch);
	}
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
	r->skipped = false;
	r->next_off = r->hdr.hdr_size;
	/* where chunk 0 is when hdr_size is what was damaged */
	r->good_end = sizeof(struct npf_file_hdr);
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
	    (t.ch.hdr_crc &&
	     t.ch.hdr_crc != npf_crc32(0, &t.ch, NPF_CHUNK_HDR_CRC_LEN)) ||
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
	r->good_end = off;
	r->seq = seq;
	return 0;
}

uint64_t npf_reader_damage(const struct npf_reader *r,
			   struct npuprof_damage *d, const char **why)
{
	if (d)
		*d = r->dmg;
	if (why)
		*why = r->dmg.stretches ? r->why : "";
	return r->dmg.stretches;
}

int npf_reader_skipped(const struct npf_reader *r)
{
	return r->skipped;
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
