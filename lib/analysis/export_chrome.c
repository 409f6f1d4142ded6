// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_chrome.c - npuprof_export_chrome(): the merged timeline
 * (timeline.c) as Chrome Trace Event JSON, the format Perfetto UI,
 * chrome://tracing and speedscope load. Documentation/npu/export.rst
 * gives the mapping of events to phases, tracks, ids and args. The
 * used memory counters are made here (npf_js_mem_op()), from the OP
 * items and the trace's models (memuse.h): the timeline calls back in
 * the reading thread, so the models read so far are safe to look up.
 *
 * Streaming: each timeline item is formatted by hand (no printf in the
 * hot path: fmt.h's integer, time and hex writers, eight digits at a
 * time) into a 256 KiB buffer (it stays in the L2 cache) written with
 * fwrite() when it fills, so memory is the buffer, a 192 KiB cache of
 * event heads, the timeline's bounded tables and a small buffer for the
 * trailing metadata object, whatever the trace's length. The constant
 * start of an event (phase, category, name, track) is formatted once per
 * kind, name and track and then copied whole (struct npf_js_head). Times
 * are printed from integer ns as µs with 3 decimals: exact to the ns; a
 * dur may be half a ns off, with a fourth decimal 5, so that importers
 * that add ts and dur in double nest slices as their ns do (npf_js_dur()).
 *
 * Locking: none; one export runs in the caller's thread. Lifetime: all
 * memory is freed before npuprof_export_chrome() returns.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "fmt.h"
#include "memtrack.h"
#include "memuse.h"
#include "report_util.h"
#include "timeline.h"

#define NPF_JS_BUF	(256u << 10)
#define NPF_JS_ROOM	4096		/* an item never needs more at once */
#define NPF_JS_TAIL	65536		/* trailing metadata, fits, summary */
#define NPF_JS_HC	1024		/* head cache entries (512 sets of 2) */
#define NPF_JS_HEAD	112		/* bytes of a cached head */
#define NPF_JS_MID	48		/* bytes of a cached OP args start */
#define NPF_JS_MDEVS	64		/* devices with used memory counters */
#define NPF_JS_MPES	64		/* PEs of a device they follow */
#define NPF_JS_MJOBS	4096		/* jobs' models (direct-mapped) */
#define NPF_JS_JOBS	16		/* job numbers' text (direct-mapped) */

/*
 * A job number as text: a job's operators, execution, queue interval and
 * submit span all print it, its operators one after another on its PE,
 * and the jobs in flight are a few consecutive numbers (npf_js_job())
 */
struct npf_js_jtext {
	uint64_t id;
	uint32_t len;		/* 0: empty */
	char text[NPF_FMT_U64_MAX + NPF_FMT_SLACK];
};

/*
 * The constant start of an event of one kind, name and track, up to its
 * "ts": (e.g. \n{"ph":"X","cat":"npu-op","name":"CONV2D","pid":1073741824,
 * "tid":1,"ts":), formatted once and then copied whole; for an OP also
 * the start of its args, up to "op_index":. Keyed by track (@k1) and kind
 * and name (@k2, 0: empty). A counter's by the addresses of its name (@k1)
 * and key (@k3), and its process (@k2): the timeline keeps both strings
 * at one address, unchanged, for the whole run (timeline.c); its head
 * ends at "ts": too, its args start (,"args":{"KEY":) is the second part.
 */
struct npf_js_head {
	uint64_t k1;
	uint64_t k2;
	uint64_t k3;
	uint32_t len;
	uint32_t mid_len;
	char head[NPF_JS_HEAD];
	char mid[NPF_JS_MID];
};

struct npf_js {
	FILE *f;
	char *buf;
	size_t len;
	int err;
	bool first;		/* no event written yet */
	struct npf_js_head *hc;	/* NPF_JS_HC */
	char *tail;		/* "key":value pairs of the metadata object */
	size_t tail_len;
	bool tail_cut;
	bool have_fit;
	/* npf_js_time(): the µs of the last time, its ms as text */
	uint64_t ts_base;	/* µs, a multiple of 1000; 1 << 63: none */
	uint32_t ts_pre_len;
	char ts_pre[NPF_FMT_U64_MAX + NPF_FMT_SLACK];
	struct npf_tl_stats st;
	struct npf_js_jtext jobs[NPF_JS_JOBS];
	/* the used memory counters (npf_js_mem_op()) */
	struct npuprof_trace *trace;
	struct npf_js_mjob *mjobs;	/* NPF_JS_MJOBS, NULL: no model yet */
	struct npf_js_mdev *mdev[NPF_JS_MDEVS];
	int64_t mem_next_end;		/* earliest end of a job followed */
};

/*
 * The used memory counters: the model of a job, from its SUBMIT span, by
 * (minor + 1, job_id); a later job of the same slot replaces it.
 */
struct npf_js_mjob {
	uint64_t job_id;
	uint32_t minor1;
	uint32_t model_id;
};

/* A PE's job: its used bytes (the live bytes of its last operator) */
struct npf_js_mpe {
	uint64_t job_id;
	uint64_t used;
	int64_t end;
	int32_t pid;
	bool active;
};

/* A device: the sum of its PEs' used bytes; the process counters' name */
struct npf_js_mdev {
	int64_t next_end;	/* earliest end of an active PE's job */
	uint64_t sum;
	uint32_t npes;		/* PEs seen: pe[0..npes) */
	char pname[40];		/* "npuN memory used" */
	struct npf_js_mpe pe[NPF_JS_MPES];
};

static void npf_js_flush(struct npf_js *o)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->err = -EIO;
	o->len = 0;
}

static inline char *npf_js_room(struct npf_js *o, size_t n)
{
	if (npf_unlikely(o->len + n > NPF_JS_BUF))
		npf_js_flush(o);
	return o->buf + o->len;
}

#define npf_u64		npf_fmt_u64
#define npf_i64		npf_fmt_i64
#define npf_us		npf_fmt_us

#define NPF_LIT(p, s)	(memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* Length of the valid UTF-8 sequence at @s (0: invalid) */
static size_t npf_utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/*
 * A JSON string of @s (at most @max bytes of it) at @p: quotes, backslashes
 * and control characters escaped, invalid UTF-8 replaced by U+FFFD. At
 * most 6 * @max + 2 bytes (an item's room holds that for @max <= 256);
 * returns the end.
 */
static char *npf_js_str_to(char *p, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	*p++ = '"';
	while (i < max && u[i]) {
		if (u[i] >= 0x20 && u[i] < 0x80 && u[i] != '"' && u[i] != '\\') {
			*p++ = (char)u[i++];
		} else if (u[i] == '"' || u[i] == '\\') {
			*p++ = '\\';
			*p++ = (char)u[i++];
		} else if (u[i] < 0x20) {
			p = NPF_LIT(p, "\\u00");
			*p++ = "0123456789abcdef"[u[i] >> 4];
			*p++ = "0123456789abcdef"[u[i] & 15];
			i++;
		} else if ((n = npf_utf8_len(u + i)) && i + n <= max) {
			memcpy(p, u + i, n);
			p += n;
			i += n;
		} else {
			p = NPF_LIT(p, "\\ufffd");
			i++;
		}
	}
	*p++ = '"';
	return p;
}

/* npf_js_str_to() at the end of the output (inside an item's room) */
static void npf_js_str(struct npf_js *o, const char *s, size_t max)
{
	o->len = (size_t)(npf_js_str_to(o->buf + o->len, s, max) - o->buf);
}

/* The separator of the next event; returns where the event goes */
static inline char *npf_js_next(struct npf_js *o)
{
	char *p = npf_js_room(o, NPF_JS_ROOM);

	*p = ',';
	p += !o->first;
	o->first = false;
	return p;
}

/* Start an event: the separator, then \n and @head, {"ph":"<ph>"... */
static inline char *npf_js_begin(struct npf_js *o, const char *head, size_t n)
{
	char *p = npf_js_next(o);

	*p++ = '\n';
	memcpy(p, head, n);
	return p + n;
}

#define NPF_JS_BEGIN(o, s)	npf_js_begin((o), (s), sizeof(s) - 1)

static inline char *npf_js_track(char *p, uint32_t pid, uint32_t tid)
{
	p = NPF_LIT(p, ",\"pid\":");
	p = npf_u64(p, pid);
	p = NPF_LIT(p, ",\"tid\":");
	return npf_u64(p, tid);
}

/*
 * An event's time @ns, as npf_us() writes it: the timeline's times come
 * in order, so the ms of the last one (its digits but the last three) is
 * kept as text, and a time in the same ms copies it and adds its µs and
 * ns from the ".000" to ".999" table: a few moves instead of eight digits
 * computed. Other times (negative, under 1 ms, another ms) as npf_us().
 */
static inline __attribute__((always_inline)) char *
npf_js_time(struct npf_js *o, char *p, int64_t ns)
{
	uint64_t us, d;

	if (npf_unlikely(ns < 0))
		return npf_us(p, ns);
	us = (uint64_t)ns / 1000;
	d = us - o->ts_base;
	if (npf_unlikely(d >= 1000)) {
		if (us < 1000)
			return npf_us(p, ns);
		o->ts_base = us - us % 1000;
		o->ts_pre_len = (uint32_t)(npf_u64(o->ts_pre, us / 1000) -
					   o->ts_pre);
		d = us - o->ts_base;
	}
	/* the ms (at most 13 digits: ns < 2^63), then "ddd" of ".ddd" */
	memcpy(p, o->ts_pre, 16);
	p += o->ts_pre_len;
	memcpy(p, &npf_fmt_dec3[d * 4 + 1], 4);
	p[3] = '.';
	memcpy(p + 4, &npf_fmt_dec3[((uint64_t)ns - us * 1000) * 4 + 1], 4);
	return p + 7;
}

/*
 * An X event's dur: its ns as npf_us() writes them, unless an importer
 * would then end the slice on the wrong side of its end.
 *
 * speedscope and catapult parse ts and dur into doubles, t and d, and end
 * the slice at t + d: with a time T ns written "T/1000 with 3 decimals",
 * t is the double nearest T / 1000, and the end of [T, E] lands within an
 * ulp of e, the double of E, either side. A slice that starts at E (the
 * next operator) starts at e; one that ends at E (the operator's
 * execution) ends elsewhere within that ulp. speedscope then ends a slice
 * after the next one started, or an execution before its last operator
 * ("Tried to end X when Y was on the top of the stack"). So:
 *  - an inner slice (@outer false: an operator, a queue interval, a CPU
 *    step of the runtime) ends at or before e: if t + d would pass e, dur
 *    is written half a ns short, (D - 1).ddd5, or a whole ns short where
 *    an ulp reaches half a ns (2^41 µs of uptime; an ulp stays under a ns
 *    to 2^43 µs, 100 days);
 *  - an outer slice (an execution, an inference, a run, a label, a user
 *    span) ends at or after e: if t + d would fall short of it, dur is
 *    written half a ns long, D.ddd5 (9: 0.9 ns past 2^41 µs), so it still
 *    ends before E + 1 ns.
 * Slices that follow each other touch or leave a gap; those that end
 * together nest, the outer one last (a tie is fine: speedscope ends the
 * one on top first). Perfetto converts a number to ns as (int64)(x *
 * 1000) of its double x, parsed correctly rounded (v20's jsoncpp) or as
 * the integer part plus the fraction / 1000 (newer releases), which
 * truncates D.ddd to D - 1 for about 1 value in 90: an outer slice's dur
 * is written so that both read D (else D.ddd5), an inner one reads D or
 * less, so there too no operator ends after its execution. The tests are
 * exact: with 0 < T and D <= T, e - t is exact (Sterbenz), t + d passes e
 * iff d > e - t, and the divisions are correctly rounded like the
 * importers' parse: the doubles are theirs. Documentation/npu/export.rst,
 * "Slice ends".
 */
static inline __attribute__((always_inline)) char *
npf_js_dur(char *p, int64_t ts, int64_t dur, bool outer)
{
	double t, gap, d;

	/* no span of ours is near 2^62 ns (146 years): as it is, unfixed */
	if (npf_unlikely(dur <= 0 || dur > INT64_MAX / 4 ||
			 ts > INT64_MAX - dur))
		return npf_us(p, dur);
	t = (double)ts / 1000;
	gap = (double)(ts + dur) / 1000 - t;
	d = (double)dur / 1000;
	if (!outer) {
		if (d <= gap)
			return npf_us(p, dur);
		/* (D - 1).ddd5, the double of (2D - 1) / 2000 */
		d = (double)(2 * dur - 1) / 2000;
		p = npf_us(p, dur - 1);
		if (npf_likely(d <= gap))
			*p++ = '5';
		return p;
	}
	p = npf_us(p, dur);
	if (d < gap || (int64_t)(d * 1000) != dur ||
	    (int64_t)(((double)(dur / 1000) + (double)(dur % 1000) / 1000) *
		      1000) != dur) {
		/* D.ddd5, the double of (2D + 1) / 2000 */
		d = (double)(2 * dur + 1) / 2000;
		*p++ = d < gap ? '9' : '5';
	}
	return p;
}

/*
 * Job number @id in decimal at @p, as npf_u64() writes it: copied from
 * the text of the last job of its slot when it is that job
 */
static inline __attribute__((always_inline)) char *
npf_js_job(struct npf_js *o, char *p, uint64_t id)
{
	struct npf_js_jtext *j = &o->jobs[id & (NPF_JS_JOBS - 1)];

	if (npf_unlikely(j->id != id || !j->len)) {
		j->id = id;
		j->len = (uint32_t)(npf_u64(j->text, id) - j->text);
	}
	memcpy(p, j->text, 24);
	return p + j->len;
}

/* Whether a host span of @kind holds others (npf_js_dur()'s outer) */
static inline bool npf_js_span_outer(uint32_t kind)
{
	return kind != NPUPROF_SPAN_SET_INPUT && kind != NPUPROF_SPAN_GET_OUTPUT &&
	       kind != NPUPROF_SPAN_QUANTIZE && kind != NPUPROF_SPAN_LOWER &&
	       kind != NPUPROF_SPAN_UNLOWER && kind != NPUPROF_SPAN_DEQUANTIZE &&
	       kind != NPUPROF_SPAN_SUBMIT && kind != NPUPROF_SPAN_WAIT;
}

static inline char *npf_js_ts(struct npf_js *o, char *p, int64_t ts)
{
	p = NPF_LIT(p, ",\"ts\":");
	return npf_js_time(o, p, ts);
}

static inline void npf_js_end(struct npf_js *o, char *p)
{
	o->len = (size_t)(p - o->buf);
}

/* An opcode's name, or @unknown and its number */
static char *npf_js_opname(char *p, uint16_t opcode, const char *unknown)
{
	const char *name = npf_opcode_name(opcode);

	if (name)
		return stpcpy(p, name);
	p = stpcpy(p, unknown);
	return npf_u64(p, opcode);
}

/*
 * The head of a cached kind: \n{"ph":..,"name":"..","pid":P,"tid":T,"ts":
 * (a flow: the part after its id, ","pid":P,"tid":T,"ts":).
 */
static char *npf_js_head_text(char *p, const struct npf_tl_item *it)
{
	switch (it->kind) {
	case NPF_TL_SPAN:
		p = NPF_LIT(p, "\n{\"ph\":\"X\",\"cat\":\"cpu\",\"name\":\"");
		p = stpcpy(p, npuprof_span_kind_name(it->ev->span->kind));
		*p++ = '"';
		break;
	case NPF_TL_EXEC:
		p = NPF_LIT(p, "\n{\"ph\":\"X\",\"cat\":\"npu\",\"name\":\"exec\"");
		break;
	case NPF_TL_OP: {
		const struct npu_trace_rec_op *r = it->ev->rec;

		p = NPF_LIT(p, "\n{\"ph\":\"X\",\"cat\":\"npu-op\",\"name\":\"");
		p = npf_js_opname(p, r->opcode, "opcode ");
		*p++ = '"';
		break;
	}
	case NPF_TL_QUEUE:
		p = NPF_LIT(p, "\n{\"ph\":\"X\",\"cat\":\"queue\",\"name\":\"queued\"");
		break;
	case NPF_TL_COUNTER:
		p = NPF_LIT(p, "\n{\"ph\":\"C\",\"name\":");
		p = npf_js_str_to(p, it->name, 64);
		p = NPF_LIT(p, ",\"pid\":");
		p = npf_u64(p, it->pid);
		return NPF_LIT(p, ",\"tid\":0,\"ts\":");
	default:
		*p++ = '"';
		break;
	}
	p = NPF_LIT(p, ",\"pid\":");
	p = npf_u64(p, it->pid);
	p = NPF_LIT(p, ",\"tid\":");
	p = npf_u64(p, it->tid);
	return NPF_LIT(p, ",\"ts\":");
}

/*
 * An OP's args up to its op_index: ,"args":{"opcode":"NAME","op_index":
 * (a counter's up to its value: ,"args":{"KEY":)
 */
static char *npf_js_mid_text(char *p, const struct npf_tl_item *it)
{
	const struct npu_trace_rec_op *r;

	if (it->kind == NPF_TL_COUNTER) {
		p = NPF_LIT(p, ",\"args\":{");
		p = npf_js_str_to(p, it->text ? it->text : "value", 64);
		*p++ = ':';
		return p;
	}
	r = it->ev->rec;
	p = NPF_LIT(p, ",\"args\":{\"opcode\":\"");
	p = npf_js_opname(p, r->opcode, "");
	return NPF_LIT(p, "\",\"op_index\":");
}

/* Format @e for @it; false when it does not fit (then left empty) */
static bool npf_js_head_fill(struct npf_js_head *e, const struct npf_tl_item *it,
			     uint64_t k1, uint64_t k2, uint64_t k3)
{
	char tmp[512];
	size_t n, m = 0;

	e->k2 = 0;
	n = (size_t)(npf_js_head_text(tmp, it) - tmp);
	if (n > NPF_JS_HEAD)
		return false;
	memcpy(e->head, tmp, n);
	if (it->kind == NPF_TL_OP || it->kind == NPF_TL_COUNTER) {
		m = (size_t)(npf_js_mid_text(tmp, it) - tmp);
		if (m > NPF_JS_MID)
			return false;
		memcpy(e->mid, tmp, m);
	}
	e->len = (uint32_t)n;
	e->mid_len = (uint32_t)m;
	e->k1 = k1;
	e->k2 = k2;
	e->k3 = k3;
	return true;
}

/*
 * Write the head of @it, keyed @k1, @k2, @k3 (struct npf_js_head), at @p,
 * from the cache (two ways a set: the last used first); returns the end,
 * and the entry in *@ep (NULL: not cached).
 */
static inline char *npf_js_head_k(struct npf_js *o, char *p,
				  const struct npf_tl_item *it, uint64_t k1,
				  uint64_t k2, uint64_t k3,
				  const struct npf_js_head **ep)
{
	/*
	 * The set: the top bits of a product of the track or name keys
	 * (they depend on all bits), plus the kind and name id of @k2 (16
	 * sets apart a kind, one an id): a track's operators of different
	 * opcodes, which alternate, and its kinds take consecutive sets, not
	 * random ones where three of them could share two ways and evict
	 * each other at every item
	 */
	uint64_t x = ((k1 * 0x9e3779b97f4a7c15ull) ^ k3) *
		     0xbf58476d1ce4e5b9ull;
	size_t set = ((size_t)(x >> (64 - 9)) + (size_t)(k2 & 0xff) +
		      (size_t)((k2 >> 28) & 0xf0)) & (NPF_JS_HC / 2 - 1);
	struct npf_js_head *e;

	e = &o->hc[2 * set];
	if (npf_unlikely(e->k1 != k1 || e->k2 != k2 || e->k3 != k3)) {
		if (e[1].k1 == k1 && e[1].k2 == k2 && e[1].k3 == k3) {
			e++;
		} else {
			e[1] = e[0];
			if (!npf_js_head_fill(e, it, k1, k2, k3)) {
				*ep = NULL;
				return npf_js_head_text(p, it);
			}
		}
	}
	*ep = e;
	memcpy(p, e->head, NPF_JS_HEAD);
	return p + e->len;
}

/* The second part of @it's head: from its entry @e, or formatted */
static inline char *npf_js_mid(char *p, const struct npf_js_head *e,
			       const struct npf_tl_item *it)
{
	if (npf_likely(e != NULL)) {
		memcpy(p, e->mid, NPF_JS_MID);
		return p + e->mid_len;
	}
	return npf_js_mid_text(p, it);
}

/* The head of @it of a kind, name @nid and track */
static inline char *npf_js_head(struct npf_js *o, char *p,
				const struct npf_tl_item *it, uint32_t nid,
				const struct npf_js_head **ep)
{
	return npf_js_head_k(o, p, it, (uint64_t)it->pid << 32 | it->tid,
			     1ull << 63 | (uint64_t)it->kind << 32 | nid, 0,
			     ep);
}

static void npf_js_span(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npuprof_span_rec *s = it->ev->span;
	const struct npf_js_head *e;
	char *p;

	if (s->kind == NPUPROF_SPAN_LABEL) {
		p = NPF_JS_BEGIN(o, "{\"ph\":\"X\",\"cat\":\"label\",\"name\":");
		npf_js_end(o, p);
		npf_js_str(o, it->ev->label ? it->ev->label : "label", 256);
		p = o->buf + o->len;
		p = npf_js_track(p, it->pid, it->tid);
		p = NPF_LIT(p, ",\"ts\":");
	} else {
		p = npf_js_head(o, npf_js_next(o), it, s->kind, &e);
	}
	p = npf_js_time(o, p, it->ts);
	p = NPF_LIT(p, ",\"dur\":");
	p = npf_js_dur(p, it->ts, it->dur, npf_js_span_outer(s->kind));
	p = NPF_LIT(p, ",\"args\":{\"trace_id\":\"");
	p = npf_fmt_hex16(p, s->trace_id[0]);
	p = npf_fmt_hex16(p, s->trace_id[1]);
	p = NPF_LIT(p, "\",\"span_id\":\"");
	p = npf_fmt_hex16(p, s->span_id);
	p = NPF_LIT(p, "\",\"parent_id\":\"");
	p = npf_fmt_hex16(p, s->parent_id);
	*p++ = '"';
	if (s->flags & NPUPROF_SPAN_F_OP) {
		p = NPF_LIT(p, ",\"op_index\":");
		p = npf_u64(p, s->op_index);
	}
	if (s->flags & NPUPROF_SPAN_F_JOB) {
		p = NPF_LIT(p, ",\"job_id\":");
		p = npf_js_job(o, p, s->job_id);
		p = NPF_LIT(p, ",\"npu\":");
		p = npf_u64(p, s->minor);
	}
	if (s->flags & NPUPROF_SPAN_F_ERROR)
		p = NPF_LIT(p, ",\"error\":true");
	if (it->lane) {
		p = NPF_LIT(p, ",\"lane\":");
		p = npf_u64(p, it->lane);
	}
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
}

static inline __attribute__((always_inline)) char *
npf_js_dur_args(char *p, const struct npf_tl_item *it)
{
	if (!it->dur_dev.ok)
		return p;
	p = NPF_LIT(p, ",\"run_ns\":");
	p = npf_i64(p, it->dur_dev.run);
	p = NPF_LIT(p, ",\"iowait_ns\":");
	p = npf_i64(p, it->dur_dev.iowait);
	p = NPF_LIT(p, ",\"total_ns\":");
	return npf_i64(p, it->dur_dev.total);
}

static void npf_js_exec(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npu_trace_rec_exec *x = it->ev->rec;
	const char *st = npf_job_status_name(x->status);
	const struct npf_js_head *e;
	char *p;

	p = npf_js_head(o, npf_js_next(o), it, 0, &e);
	p = npf_js_time(o, p, it->ts);
	p = NPF_LIT(p, ",\"dur\":");
	p = npf_js_dur(p, it->ts, it->dur, true);
	p = NPF_LIT(p, ",\"args\":{\"job_id\":");
	p = npf_js_job(o, p, x->job_id);
	p = NPF_LIT(p, ",\"pe\":");
	p = npf_u64(p, x->pe);
	p = NPF_LIT(p, ",\"status\":\"");
	if (st)
		p = stpcpy(p, st);
	else
		p = npf_u64(p, x->status);
	*p++ = '"';
	if (it->device) {
		p = npf_js_dur_args(p, it);
		p = NPF_LIT(p, ",\"macs\":");
		p = npf_u64(p, x->macs);
		p = NPF_LIT(p, ",\"dma_bytes\":");
		p = npf_u64(p, x->dma_bytes);
		p = NPF_LIT(p, ",\"exec_index\":");
		p = npf_u64(p, x->exec_index);
		p = NPF_LIT(p, ",\"n_ops\":");
		p = npf_u64(p, x->n_ops);
		p = NPF_LIT(p, ",\"err_ns\":");
		p = npf_u64(p, it->err_ns);
		if (x->dev_status) {
			p = NPF_LIT(p, ",\"dev_status\":");
			p = npf_u64(p, x->dev_status);
		}
	} else {
		p = NPF_LIT(p, ",\"device_times\":false");
	}
	p = NPF_LIT(p, ",\"pid\":");
	p = npf_i64(p, x->pid);
	p = NPF_LIT(p, ",\"tid\":");
	p = npf_i64(p, x->tid);
	if (it->minor != UINT32_MAX) {
		p = NPF_LIT(p, ",\"npu\":");
		p = npf_u64(p, it->minor);
	}
	p = NPF_LIT(p, ",\"submit_ns\":");
	p = npf_u64(p, x->submit_ns);
	p = NPF_LIT(p, ",\"complete_ns\":");
	p = npf_u64(p, x->complete_ns);
	if (it->violation)
		p = NPF_LIT(p, ",\"violation\":true");
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
}

/* Bytes of a layer name and op type the args keep (NPF_JS_ROOM holds 6x) */
#define NPF_JS_LAYER_MAX	200
#define NPF_JS_OPTYPE_MAX	96

static const struct npf_model *npf_js_mjob_model(struct npf_js *o,
						 uint32_t minor,
						 uint64_t job_id);

/* An OP's layer args, when its job's model has a layer table */
static char *npf_js_layer(struct npf_js *o, char *p,
			  const struct npf_tl_item *it,
			  const struct npu_trace_rec_op *r)
{
	struct npf_layer l;

	npf_model_layer(npf_js_mjob_model(o, it->minor, r->job_id),
			r->op_index, &l);
	if (!*l.name)
		return p;
	p = NPF_LIT(p, ",\"layer\":");
	p = npf_js_str_to(p, l.name, NPF_JS_LAYER_MAX);
	p = NPF_LIT(p, ",\"op_type\":");
	p = npf_js_str_to(p, l.op_type, NPF_JS_OPTYPE_MAX);
	/* shapes: ASCII, at most 146 bytes (npu_layer_shapes_fmt()) */
	p = NPF_LIT(p, ",\"in_shapes\":");
	p = npf_js_str_to(p, l.in_shapes, 256);
	p = NPF_LIT(p, ",\"out_shapes\":");
	return npf_js_str_to(p, l.out_shapes, 256);
}

static inline __attribute__((always_inline)) void
npf_js_op(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npu_trace_rec_op *r = it->ev->rec;
	const struct npf_js_head *e;
	char *p;

	p = npf_js_head(o, npf_js_next(o), it, r->opcode, &e);
	p = npf_js_time(o, p, it->ts);
	p = NPF_LIT(p, ",\"dur\":");
	p = npf_js_dur(p, it->ts, it->dur, false);
	p = npf_js_mid(p, e, it);
	p = npf_u64(p, r->op_index);
	p = NPF_LIT(p, ",\"job_id\":");
	p = npf_js_job(o, p, r->job_id);
	p = NPF_LIT(p, ",\"macs\":");
	p = npf_u64(p, r->macs);
	p = NPF_LIT(p, ",\"dma\":");
	p = npf_u64(p, r->dma_bytes);
	p = npf_js_dur_args(p, it);
	if (npf_unlikely(o->mjobs != NULL))
		p = npf_js_layer(o, p, it, r);
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
}

static void npf_js_queue(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npu_trace_rec_exec *x = it->ev->rec;
	const struct npf_js_head *e;
	char *p;

	p = npf_js_head(o, npf_js_next(o), it, 0, &e);
	p = npf_js_time(o, p, it->ts);
	p = NPF_LIT(p, ",\"dur\":");
	p = npf_js_dur(p, it->ts, it->dur, false);
	p = NPF_LIT(p, ",\"args\":{\"job_id\":");
	p = npf_js_job(o, p, x->job_id);
	p = NPF_LIT(p, ",\"pe\":");
	p = npf_u64(p, x->pe);
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
}

static void npf_js_flow(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npf_js_head *e;
	char *p;

	if (it->kind == NPF_TL_FLOW_OUT)
		p = NPF_JS_BEGIN(o, "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"job\",\"id\":\"0x");
	else
		p = NPF_JS_BEGIN(o, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"job\",\"id\":\"0x");
	p = npf_fmt_hex(p, it->id);
	p = npf_js_head(o, p, it, 0, &e);
	p = npf_js_time(o, p, it->ts);
	*p++ = '}';
	npf_js_end(o, p);
}

static void npf_js_counter(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npf_js_head *e;
	char *p;

	p = npf_js_head_k(o, npf_js_next(o), it, (uintptr_t)it->name,
			  1ull << 63 | (uint64_t)NPF_TL_COUNTER << 32 | it->pid,
			  (uintptr_t)it->text, &e);
	p = npf_js_time(o, p, it->ts);
	p = npf_js_mid(p, e, it);
	p = npf_fmt_fixed(p, it->value, (unsigned int)it->decimals);
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
}

/* ---- the used memory counters ---- */

static inline size_t npf_js_mjob_slot(uint32_t minor, uint64_t job_id)
{
	return (size_t)(((job_id * 0x9e3779b97f4a7c15ull) ^ minor) *
			0xbf58476d1ce4e5b9ull >> 52) & (NPF_JS_MJOBS - 1);
}

/* A SUBMIT span with a model: remember the model of its job */
static void npf_js_mem_span(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npuprof_span_rec *s = it->ev->span;
	struct npf_js_mjob *j;

	if (s->kind != NPUPROF_SPAN_SUBMIT || !s->name_id ||
	    (s->flags & (NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_MODEL |
			 NPUPROF_SPAN_F_ERROR)) !=
	    (NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_MODEL) ||
	    s->minor == UINT32_MAX)
		return;
	if (!o->mjobs) {
		o->mjobs = calloc(NPF_JS_MJOBS, sizeof(*o->mjobs));
		if (!o->mjobs) {
			o->err = -ENOMEM;
			return;
		}
	}
	j = &o->mjobs[npf_js_mjob_slot(s->minor, s->job_id)];
	j->job_id = s->job_id;
	j->minor1 = s->minor + 1;
	j->model_id = s->name_id;
}

/* The model of job @job_id on @minor, or NULL */
static const struct npf_model *npf_js_mjob_model(struct npf_js *o,
						 uint32_t minor,
						 uint64_t job_id)
{
	const struct npf_js_mjob *j;

	if (!o->mjobs || minor == UINT32_MAX)
		return NULL;
	j = &o->mjobs[npf_js_mjob_slot(minor, job_id)];
	if (j->minor1 != minor + 1 || j->job_id != job_id)
		return NULL;
	return npf_trace_model(o->trace, j->model_id);
}

/* Device @dev's state, made at its first job with a model */
static struct npf_js_mdev *npf_js_mdev(struct npf_js *o, uint32_t dev,
				       uint32_t minor)
{
	struct npf_js_mdev *d = o->mdev[dev];

	if (d)
		return d;
	d = calloc(1, sizeof(*d));
	if (!d) {
		o->err = -ENOMEM;
		return NULL;
	}
	d->next_end = INT64_MAX;
	snprintf(d->pname, sizeof(d->pname), "npu%u memory used", minor);
	o->mdev[dev] = d;
	return d;
}

static void npf_js_mdev_next(struct npf_js *o, struct npf_js_mdev *d)
{
	uint32_t i;

	d->next_end = INT64_MAX;
	for (i = 0; i < d->npes; i++)
		if (d->pe[i].active && d->pe[i].end < d->next_end)
			d->next_end = d->pe[i].end;
	if (d->next_end < o->mem_next_end)
		o->mem_next_end = d->next_end;
}

/* The used counters of device @dev at @ts: its sum, and process @pid's */
static void npf_js_used(struct npf_js *o, uint32_t dev,
			const struct npf_js_mdev *d, int32_t pid, int64_t ts)
{
	struct npf_tl_item c = {
		.kind = NPF_TL_COUNTER, .pid = NPF_TL_DEV_PID + dev, .ts = ts,
		.name = "memory used", .text = "MB", .decimals = 6,
		.value = (int64_t)d->sum,
	};
	uint64_t sum = 0;
	uint32_t i;

	npf_js_counter(o, &c);
	if (pid <= 0 || pid >= (1 << NPF_TL_LANE_SHIFT))
		return;
	for (i = 0; i < d->npes; i++)
		if (d->pe[i].active && d->pe[i].pid == pid)
			sum += d->pe[i].used;
	c.pid = (uint32_t)pid;
	c.name = d->pname;
	c.value = (int64_t)sum;
	npf_js_counter(o, &c);
}

/* The jobs that ended by @t leave the used counters, in order of end */
static void npf_js_mem_flush(struct npf_js *o, int64_t t)
{
	uint32_t dev, i;

	o->mem_next_end = INT64_MAX;
	for (dev = 0; dev < NPF_JS_MDEVS; dev++) {
		struct npf_js_mdev *d = o->mdev[dev];

		if (!d)
			continue;
		while (d->next_end <= t) {
			struct npf_js_mpe *pe = NULL;

			for (i = 0; i < d->npes; i++)
				if (d->pe[i].active &&
				    d->pe[i].end == d->next_end) {
					pe = &d->pe[i];
					break;
				}
			if (!pe)
				break;
			pe->active = false;
			if (pe->used) {
				d->sum -= pe->used;
				pe->used = 0;
				npf_js_used(o, dev, d, pe->pid, pe->end);
			}
			npf_js_mdev_next(o, d);
		}
		if (d->next_end < o->mem_next_end)
			o->mem_next_end = d->next_end;
	}
}

/*
 * PE @pe of device @dev runs job @job_id of process @pid to @end (an
 * EXEC, or an OP whose EXEC is not seen yet: the job ends at its last
 * operator's end then); returns the PE's state.
 */
static struct npf_js_mpe *npf_js_mem_job(struct npf_js *o,
					 const struct npf_tl_item *it,
					 uint16_t pe_no, uint64_t job_id,
					 int32_t pid, int64_t end)
{
	uint32_t dev = it->pid - NPF_TL_DEV_PID;
	struct npf_js_mdev *d;
	struct npf_js_mpe *pe;

	if (dev >= NPF_JS_MDEVS || pe_no >= NPF_JS_MPES ||
	    !(d = npf_js_mdev(o, dev, it->minor)))
		return NULL;
	pe = &d->pe[pe_no];
	if (pe_no >= d->npes)
		d->npes = pe_no + 1u;
	if (pe->active && pe->job_id == job_id) {
		if (end > pe->end)
			pe->end = end;
	} else {
		if (pe->active && pe->used) {
			/* overlaps a job of the PE not ended yet: replaces it */
			d->sum -= pe->used;
			pe->used = 0;
			npf_js_used(o, dev, d, pe->pid, it->ts);
		}
		pe->active = true;
		pe->job_id = job_id;
		pe->pid = pid;
		pe->used = 0;
		pe->end = end;
	}
	npf_js_mdev_next(o, d);
	return pe;
}

static void npf_js_mem_exec(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npu_trace_rec_exec *x = it->ev->rec;

	if (it->device && npf_js_mjob_model(o, it->minor, x->job_id))
		npf_js_mem_job(o, it, x->pe, x->job_id, x->pid,
			       it->ts + it->dur);
}

/* An operator of a job with a model: its live bytes from its start */
static void npf_js_mem_op(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npu_trace_rec_op *r = it->ev->rec;
	uint32_t dev = it->pid - NPF_TL_DEV_PID;
	const struct npf_model *m;
	struct npf_op_mem om;
	struct npf_js_mpe *pe;

	m = npf_js_mjob_model(o, it->minor, r->job_id);
	if (!m || npf_model_op_mem(m, r->op_index, &om))
		return;
	pe = npf_js_mem_job(o, it, r->pe, r->job_id, r->pid, it->ts + it->dur);
	if (!pe || pe->used == om.live_bytes)
		return;
	o->mdev[dev]->sum += om.live_bytes - pe->used;
	pe->used = om.live_bytes;
	npf_js_used(o, dev, o->mdev[dev], pe->pid, it->ts);
}

static void npf_js_instant(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npuprof_event *ev = it->ev;
	bool thread = it->what == NPF_TL_I_HOST_LOST ||
		      it->what == NPF_TL_I_VIOLATION ||
		      it->what == NPF_TL_I_BO_FAIL;
	char eb[16];
	char *p;

	if (thread)
		p = NPF_JS_BEGIN(o, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"anomaly\",\"name\":");
	else
		p = NPF_JS_BEGIN(o, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"anomaly\",\"name\":");
	npf_js_end(o, p);
	npf_js_str(o, it->name, 64);
	p = o->buf + o->len;
	p = npf_js_track(p, it->pid, it->tid);
	p = npf_js_ts(o, p, it->ts);
	p = NPF_LIT(p, ",\"args\":{");
	switch (it->what) {
	case NPF_TL_I_LOST: {
		const struct npu_trace_rec_lost *l = ev->rec;

		p = NPF_LIT(p, "\"count\":");
		p = npf_u64(p, l->count);
		p = NPF_LIT(p, ",\"reason\":\"");
		p = stpcpy(p, npf_lost_reason_name(l->reason));
		*p++ = '"';
		break;
	}
	case NPF_TL_I_HOST_LOST:
		p = NPF_LIT(p, "\"count\":");
		p = npf_u64(p, ev->count);
		break;
	case NPF_TL_I_VIOLATION: {
		const struct npu_trace_rec_exec *x = ev->rec;

		p = NPF_LIT(p, "\"job_id\":");
		p = npf_u64(p, x->job_id);
		p = NPF_LIT(p, ",\"submit_ns\":");
		p = npf_u64(p, x->submit_ns);
		p = NPF_LIT(p, ",\"complete_ns\":");
		p = npf_u64(p, x->complete_ns);
		p = NPF_LIT(p, ",\"start_ns\":");
		p = npf_i64(p, ev->start.ns);
		p = NPF_LIT(p, ",\"end_ns\":");
		p = npf_i64(p, ev->end.ns);
		p = NPF_LIT(p, ",\"err_ns\":");
		p = npf_u64(p, it->err_ns);
		break;
	}
	case NPF_TL_I_BO_FAIL: {
		const struct npu_trace_rec_bo *r = ev->rec;

		p = NPF_LIT(p, "\"size\":");
		p = npf_u64(p, r->size);
		p = NPF_LIT(p, ",\"kind\":\"");
		p = stpcpy(p, npf_bo_kind_name(r->kind));
		p = NPF_LIT(p, "\",\"error\":\"");
		p = stpcpy(p, npf_bo_error_name(r->error, eb, sizeof(eb)));
		p = NPF_LIT(p, "\",\"device_allocated\":");
		p = npf_u64(p, r->dev_used);
		break;
	}
	case NPF_TL_I_FIT:
		p += sprintf(p, "\"samples\":%u,\"used\":%u,\"segments\":%u,"
			     "\"err_ns\":%llu,\"violations\":%llu,\"checked\":%llu",
			     ev->fit.samples, ev->fit.used, ev->fit.segments,
			     (unsigned long long)ev->fit.err_ns,
			     (unsigned long long)ev->fit.violations,
			     (unsigned long long)ev->fit.checked);
		break;
	default:
		break;
	}
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
}

static void npf_js_meta_ev(struct npf_js *o, const struct npf_tl_item *it)
{
	bool proc = it->kind == NPF_TL_PROCESS;
	char *p;

	p = proc ? NPF_JS_BEGIN(o, "{\"ph\":\"M\",\"name\":\"process_name\"") :
		   NPF_JS_BEGIN(o, "{\"ph\":\"M\",\"name\":\"thread_name\"");
	p = npf_js_track(p, it->pid, it->tid);
	p = NPF_LIT(p, ",\"args\":{\"name\":");
	npf_js_end(o, p);
	npf_js_str(o, it->name, 256);
	p = o->buf + o->len;
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
	p = proc ? NPF_JS_BEGIN(o, "{\"ph\":\"M\",\"name\":\"process_sort_index\"") :
		   NPF_JS_BEGIN(o, "{\"ph\":\"M\",\"name\":\"thread_sort_index\"");
	p = npf_js_track(p, it->pid, it->tid);
	p = NPF_LIT(p, ",\"args\":{\"sort_index\":");
	p = npf_i64(p, it->sort);
	p = NPF_LIT(p, "}}");
	npf_js_end(o, p);
}

static void npf_js_session(struct npf_js *o, const struct npf_tl_item *it)
{
	char *p = it->kind == NPF_TL_BEGIN ?
		  NPF_JS_BEGIN(o, "{\"ph\":\"B\",\"cat\":\"session\",\"name\":\"capture\"") :
		  NPF_JS_BEGIN(o, "{\"ph\":\"E\",\"cat\":\"session\",\"name\":\"capture\"");

	p = npf_js_track(p, it->pid, it->tid);
	p = npf_js_ts(o, p, it->ts);
	*p++ = '}';
	npf_js_end(o, p);
}

/* ---- the trailing metadata object, kept apart until the end ---- */

static void npf_js_tail(struct npf_js *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void npf_js_tail(struct npf_js *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->tail_cut)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->tail + o->tail_len, NPF_JS_TAIL - o->tail_len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= NPF_JS_TAIL - o->tail_len) {
		o->tail[o->tail_len] = 0;
		o->tail_cut = true;
		return;
	}
	o->tail_len += (size_t)n;
}

/* Escape @s into the tail (META keys and values, cut at 128 bytes) */
static void npf_js_tail_str(struct npf_js *o, const char *s)
{
	char *save = o->buf, tmp[1024];
	size_t len = o->len;

	/* the string writer on a scratch buffer: 128 bytes escape to < 1024 */
	o->buf = tmp;
	o->len = 0;
	npf_js_str(o, s, 128);
	tmp[o->len] = 0;
	o->buf = save;
	o->len = len;
	npf_js_tail(o, "%s", tmp);
}

static void npf_js_meta_kv(struct npf_js *o, const struct npf_tl_item *it)
{
	npf_js_tail(o, ",\n  ");
	npf_js_tail_str(o, it->name);
	npf_js_tail(o, ":");
	npf_js_tail_str(o, it->text);
}

static void npf_js_fit(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npuprof_event *ev = it->ev;

	npf_js_tail(o, "%s{\"device\":%u,\"samples\":%u,\"used\":%u,"
		    "\"segments\":%u,\"ns_per_tick\":%.12g,\"err_ns\":%llu,"
		    "\"checked\":%llu,\"violations\":%llu}",
		    o->have_fit ? ",\n    " : ",\n  \"clock_fits\":[",
		    ev->dev, ev->fit.samples, ev->fit.used, ev->fit.segments,
		    ev->fit.ns_per_tick, (unsigned long long)ev->fit.err_ns,
		    (unsigned long long)ev->fit.checked,
		    (unsigned long long)ev->fit.violations);
	o->have_fit = true;
}

static void npf_js_summary(struct npf_js *o, const struct npf_tl_item *it)
{
	const struct npuprof_summary *s = &it->ev->summary;

	if (o->have_fit)
		npf_js_tail(o, "]");
	o->have_fit = false;
	npf_js_tail(o, ",\n  \"summary\":{\"spans\":%llu,\"spans_lost\":%llu,"
		    "\"records\":%llu,\"lost_ring\":%llu,\"lost_device\":%llu,"
		    "\"lost_host\":%llu,\"ring_errors\":%llu,\"violations\":%llu,"
		    "\"start_ns\":%llu,\"stop_ns\":%llu}",
		    (unsigned long long)s->spans,
		    (unsigned long long)s->spans_lost,
		    (unsigned long long)s->records,
		    (unsigned long long)s->lost_ring,
		    (unsigned long long)s->lost_device,
		    (unsigned long long)s->lost_host,
		    (unsigned long long)s->ring_errors,
		    (unsigned long long)s->violations,
		    (unsigned long long)s->start_ns,
		    (unsigned long long)s->stop_ns);
}

static int npf_js_item(void *ctx, const struct npf_tl_item *it)
{
	struct npf_js *o = ctx;

	/* a used counter steps down at the end of its job, in time order */
	if (npf_unlikely(it->ts >= o->mem_next_end) ||
	    (npf_unlikely(o->mem_next_end != INT64_MAX) &&
	     it->kind >= NPF_TL_PROCESS))
		npf_js_mem_flush(o, it->kind >= NPF_TL_PROCESS ? INT64_MAX :
				 it->ts);
	switch (it->kind) {
	case NPF_TL_SPAN:
		npf_js_span(o, it);
		if (npf_unlikely(it->ev->span->flags & NPUPROF_SPAN_F_MODEL))
			npf_js_mem_span(o, it);
		break;
	case NPF_TL_EXEC:
		npf_js_exec(o, it);
		if (npf_unlikely(o->mjobs != NULL))
			npf_js_mem_exec(o, it);
		break;
	case NPF_TL_OP:
		npf_js_op(o, it);
		if (npf_unlikely(o->mjobs != NULL))
			npf_js_mem_op(o, it);
		break;
	case NPF_TL_QUEUE:
		npf_js_queue(o, it);
		break;
	case NPF_TL_FLOW_OUT:
	case NPF_TL_FLOW_IN:
		npf_js_flow(o, it);
		break;
	case NPF_TL_COUNTER:
		npf_js_counter(o, it);
		break;
	case NPF_TL_INSTANT:
		npf_js_instant(o, it);
		break;
	case NPF_TL_BEGIN:
	case NPF_TL_END:
		npf_js_session(o, it);
		break;
	case NPF_TL_PROCESS:
	case NPF_TL_THREAD:
		npf_js_meta_ev(o, it);
		break;
	case NPF_TL_META:
		npf_js_meta_kv(o, it);
		break;
	case NPF_TL_FIT:
		npf_js_fit(o, it);
		break;
	case NPF_TL_SUMMARY:
		npf_js_summary(o, it);
		break;
	default:
		break;
	}
	return o->err;
}

NPUPROF_EXPORT
int npuprof_export_chrome(struct npuprof_trace *trace, FILE *out,
			  const struct npuprof_export_opts *opts)
{
	struct npf_js o = { .f = out, .first = true, .ts_base = 1ull << 63,
			    .trace = trace, .mem_next_end = INT64_MAX };
	struct npuprof_damage dmg;
	size_t i;
	char *p;
	int ret;

	if (!trace || !out || (opts && opts->sz < sizeof(size_t)))
		return -EINVAL;
	o.buf = malloc(NPF_JS_BUF);
	o.tail = malloc(NPF_JS_TAIL);
	o.hc = calloc(NPF_JS_HC, sizeof(*o.hc));
	if (!o.buf || !o.tail || !o.hc) {
		free(o.buf);
		free(o.tail);
		free(o.hc);
		return -ENOMEM;
	}
	o.tail[0] = 0;
	p = npf_js_room(&o, 64);
	p = NPF_LIT(p, "{\"traceEvents\":[");
	npf_js_end(&o, p);
	ret = npf_timeline_run(trace, 0, 0, npf_js_item, &o, &o.st);
	if (!ret && o.mem_next_end != INT64_MAX)
		npf_js_mem_flush(&o, INT64_MAX);
	if (!ret && o.err)
		ret = o.err;
	if (!ret) {
		if (o.have_fit)
			npf_js_tail(&o, "]");
		npf_js_tail(&o, ",\n  \"timeline\":{\"events\":%llu,\"items\":%llu,"
			    "\"max_held\":%llu,\"late\":%llu,\"lanes\":%llu,"
			    "\"violations\":%llu,\"unmapped\":%llu,"
			    "\"untracked\":%llu,\"truncated\":%s}",
			    (unsigned long long)o.st.events,
			    (unsigned long long)o.st.items,
			    (unsigned long long)o.st.max_held,
			    (unsigned long long)o.st.late,
			    (unsigned long long)o.st.lanes,
			    (unsigned long long)o.st.violations,
			    (unsigned long long)o.st.unmapped,
			    (unsigned long long)o.st.untracked,
			    npuprof_trace_truncated(trace) ? "true" : "false");
		npuprof_trace_damage(trace, &dmg, NULL);
		npf_js_tail(&o, ",\n  \"damaged\":{\"stretches\":%llu,\"chunks\":%llu,"
			    "\"bytes\":%llu,\"items\":%llu,\"items_unknown\":%llu}",
			    (unsigned long long)dmg.stretches,
			    (unsigned long long)dmg.chunks,
			    (unsigned long long)dmg.bytes,
			    (unsigned long long)dmg.items,
			    (unsigned long long)dmg.items_unknown);
		p = npf_js_room(&o, 256);
		p = NPF_LIT(p, "\n],\n\"metadata\":{\n  \"exporter\":\"npuprof "
			    "chrome 1\",\n  \"clock_domain\":\"CLOCK_MONOTONIC\","
			    "\n  \"ts_unit\":\"us\"");
		npf_js_end(&o, p);
		npf_js_flush(&o);
		if (!o.err && (fputs(o.tail, out) == EOF ||
			       fputs("\n}}\n", out) == EOF))
			o.err = -EIO;
		if (!o.err && fflush(out))
			o.err = -EIO;
		ret = o.err;
	}
	free(o.buf);
	free(o.tail);
	free(o.hc);
	free(o.mjobs);
	for (i = 0; i < NPF_JS_MDEVS; i++)
		free(o.mdev[i]);
	return ret;
}
