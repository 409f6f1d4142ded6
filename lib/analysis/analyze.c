// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * analyze.c - npuprof_analyze(): MegEngine's profile_analyze over a trace
 * (Documentation/npu/analysis.rst, "npuprof analyze"). Rows are NPU
 * operators (OP records: self time is the operator's Total, converted as
 * the reports do) and host spans (self time: the span less its children);
 * each has MACs and bytes moved (operators), hence GMAC/s, the share of
 * the device's peak (npu_info.macs_per_cycle * clock_hz) and GB/s, and
 * the operator's IoWait, how long another PE of its device was executing
 * meanwhile (overlap) and the IoWait that must lie in that overlap
 * (contended), and its IoWait above the least the same operator waited
 * anywhere in the trace (excess). The overlap needs every execution of
 * the other PEs, which may end long after the operator, and the excess
 * every run of the operator: a first pass over the trace keeps the
 * device interval of each EXEC record, per device and PE, and the least
 * IoWait of each operator.
 * Filters by type and self time apply to records; aggregation is by type,
 * or for the NPU operators of a model with a layer table by layer name or
 * by op_type and in_shapes (sum, mean, or the record with the max or min
 * self time); an operator's layer columns come from its model (memuse.h)
 * as pointers the trace owns; the rows are
 * ordered by a column and cut to the top N; cumulative time runs down
 * the printed rows.
 *
 * A span's self time needs all its children, whose spans may come before
 * or after it in the file (a child ends first, but on another thread its
 * span can be drained later): a span's row waits in the analysis window
 * (struct npf_win: until a span that ended 2 s after it has been read)
 * and every child found there or after it is subtracted; the time of
 * children that come first waits for their parent in a map.
 *
 * Memory: one accumulator per type (and per layer or shape) when
 * aggregating, else the top 2N rows
 * (all of them with top 0); the spans of the window (at most NPF_WIN_MAX)
 * and the children's time of parents that have not come yet; 16 bytes
 * per execution with device times (the busy intervals of the PEs), 64
 * per distinct operator (the least IoWait).
 * Each call uses its trace alone; callers serialize calls on one trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compiler.h"
#include "amap.h"
#include "analyze.h"
#include "join.h"
#include "memuse.h"
#include "report_util.h"

#define AN_NOPS		65536
#define AN_NKINDS	(NPUPROF_SPAN_KIND_MAX + 1)
#define AN_DEVS		64
#define AN_PES		16	/* hw.rst: PE_COUNT is 1..16 */

#define AN_NAMES	4	/* distinct opcodes an aggregate's name joins */

enum an_col { AN_TIME, AN_MACS, AN_GMACS, AN_PEAK, AN_BYTES, AN_GBPS,
	      AN_COUNT, AN_NAME, AN_IOWAIT, AN_CONTENDED, AN_EXCESS };

/*
 * An aggregate. Its name and layer columns are its records' when they
 * agree: @opc holds the distinct opcodes (@nopc of them, @more when
 * there were more than AN_NAMES), @first the first record's op_type,
 * in_shapes and out_shapes, @mixed which of them another differed in.
 */
struct an_acc {
	uint64_t count;
	int64_t self, iowait, overlap, contended, excess;
	uint64_t macs, bytes;
	struct npf_an_row rec;	/* the first record; MAX/MIN: the chosen */
	const char *first[3];
	uint32_t opc[AN_NAMES];
	unsigned int nopc;
	bool more;
	bool mixed[3];
};

/*
 * The least IoWait ticks of an operator: the records of one device with
 * the same opcode, op_index, bytes and MACs (the same operator of the
 * same program), by (dev << 48 | opcode << 32 | op_index, bytes ^ MACs
 * hashed); the full key is compared too
 */
struct an_least {
	struct npf_anode node;
	uint64_t bytes, macs;
	uint64_t least;
};

/* The busy intervals [s, e) of PE @pe of device @dev, in device ticks */
struct an_busy {
	uint32_t dev, pe;
	struct { uint64_t s, e; } *v;
	size_t n, cap;
};

/* The aggregate of a layer or a shape, by the two hashes of its key */
struct an_gacc {
	struct npf_anode node;
	struct an_acc a;
};

/* A span's children's time so far, by (pid, span_id) of the parent */
struct an_kids {
	struct npf_anode node;
	int64_t sum;
};

/* A span's row in the window, by (pid, span_id) */
struct an_held {
	struct npf_anode node;
	unsigned int type;
	struct npf_an_row row;
};

/* The NPU operator records kept (after the filters): the trailer */
struct an_totals {
	uint64_t records;
	int64_t self, iowait, overlap, contended, excess;
};

struct an_ctx {
	const struct npuprof_analyze_opts *o;
	const struct npuprof_trace *trace;
	enum an_col col;
	bool asc;
	double peak[AN_DEVS];
	struct npf_amap kids;
	struct npf_amap held;
	struct npf_win win;
	struct npf_an_row *rows;
	size_t n, cap;
	struct an_acc *ops;	/* by opcode */
	struct an_acc kinds[AN_NKINDS];
	struct npf_amap groups;	/* by layer or shape: struct an_gacc */
	struct an_busy *busy;	/* per device and PE, sorted, disjoint */
	size_t nbusy;
	struct { uint64_t s, e; } *piece;	/* an_overlap()'s scratch */
	size_t npiece;
	struct npf_amap least;	/* struct an_least */
	int64_t total;
	struct an_totals tot;
	int err;
};

NPUPROF_EXPORT
void npuprof_analyze_opts_init(struct npuprof_analyze_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->top = 20;
	opts->max_ns = -1;
	opts->format = NPUPROF_FORMAT_TABLE;
}

static int an_parse_col(const char *s, enum an_col *col, bool *asc)
{
	static const struct {
		const char *name;
		enum an_col col;
	} cols[] = {
		{ "time", AN_TIME }, { "self", AN_TIME }, { "macs", AN_MACS },
		{ "computation", AN_MACS }, { "gmacs", AN_GMACS },
		{ "flops", AN_GMACS }, { "peak", AN_PEAK }, { "bytes", AN_BYTES },
		{ "memory", AN_BYTES }, { "gbps", AN_GBPS },
		{ "bandwidth", AN_GBPS }, { "count", AN_COUNT },
		{ "name", AN_NAME }, { "iowait", AN_IOWAIT },
		{ "contended", AN_CONTENDED }, { "excess", AN_EXCESS },
	};
	size_t i;

	*asc = false;
	*col = AN_TIME;
	if (!s)
		return 0;
	if (*s == '+')
		*asc = true, s++;
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (!strcasecmp(s, cols[i].name)) {
			*col = cols[i].col;
			return 0;
		}
	return -EINVAL;
}

/* A row's rates; < 0 when there is none */
static double an_gmacs(const struct npf_an_row *r)
{
	return r->npu && r->self > 0 ? (double)r->macs / (double)r->self : -1;
}

static double an_peak(const struct npf_an_row *r)
{
	double g = an_gmacs(r);

	return g >= 0 && r->peak_macs_s > 0 ?
		100.0 * g * 1e9 / r->peak_macs_s : -1;
}

static double an_gbps(const struct npf_an_row *r)
{
	return r->npu && r->self > 0 ? (double)r->bytes / (double)r->self : -1;
}

static int an_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct an_ctx *c = ctx;
	const struct npf_an_row *a = pa, *b = pb;
	double x = 0, y = 0;
	int r;

	switch (c->col) {
	case AN_TIME:	/* exact: int64 to double may round */
		x = a->self > b->self, y = a->self < b->self;
		break;
	case AN_MACS:
		x = (double)a->macs, y = (double)b->macs;
		break;
	case AN_GMACS:
		x = an_gmacs(a), y = an_gmacs(b);
		break;
	case AN_PEAK:
		x = an_peak(a), y = an_peak(b);
		break;
	case AN_BYTES:
		x = (double)a->bytes, y = (double)b->bytes;
		break;
	case AN_GBPS:
		x = an_gbps(a), y = an_gbps(b);
		break;
	case AN_COUNT:
		x = (double)a->count, y = (double)b->count;
		break;
	case AN_NAME:
		break;
	case AN_IOWAIT:
		x = a->iowait > b->iowait, y = a->iowait < b->iowait;
		break;
	case AN_CONTENDED:
		x = a->contended > b->contended, y = a->contended < b->contended;
		break;
	case AN_EXCESS:
		x = a->excess > b->excess, y = a->excess < b->excess;
		break;
	}
	r = c->col == AN_NAME ? strcmp(a->name, b->name) : (x > y) - (x < y);
	/*
	 * excess and contended are often 0 for every row: ties fall to the
	 * contended IoWait, the IoWait, then the self time, in the order's
	 * direction, so the rows that waited come first, not the names
	 */
	if (!r && (c->col == AN_EXCESS || c->col == AN_CONTENDED)) {
		if (c->col == AN_EXCESS)
			r = (a->contended > b->contended) -
			    (a->contended < b->contended);
		if (!r)
			r = (a->iowait > b->iowait) - (a->iowait < b->iowait);
		if (!r)
			r = (a->self > b->self) - (a->self < b->self);
	}
	if (!c->asc)
		r = -r;
	/* ties: by name, then by start, whatever the direction */
	if (!r)
		r = strcmp(a->name, b->name);
	if (!r)
		r = strcmp(a->layer, b->layer);
	if (!r)
		r = strcmp(a->in_shapes, b->in_shapes);
	if (!r)
		r = (a->start > b->start) - (a->start < b->start);
	return r;
}

static bool an_keep(const struct an_ctx *c, const struct npf_an_row *r)
{
	const char *const *t = c->o->types;

	if (r->self < c->o->min_ns || (c->o->max_ns >= 0 && r->self > c->o->max_ns))
		return false;
	if (!t || !*t)
		return true;
	for (; *t; t++)
		if (!strcasecmp(*t, r->name) ||
		    (*r->layer && !strcasecmp(*t, r->layer)) ||
		    (!strcasecmp(*t, "npu") && r->npu) ||
		    (!strcasecmp(*t, "host") && !r->npu))
			return true;
	return false;
}

static void an_sort(struct an_ctx *c)
{
	if (c->n > 1)	/* rows is NULL when nothing was kept */
		qsort_r(c->rows, c->n, sizeof(*c->rows), an_cmp, c);
	if (c->o->top && c->n > c->o->top)
		c->n = c->o->top;
}

/* FNV-1a of @s from @h, a 0x1f after it */
static uint64_t an_hash(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0x1f) * 0x100000001b3ull;
}

/*
 * The accumulator of row @r: its type's, or with aggregate_by layer or
 * shape, its layer's or shape's when it has one. A key is its string's
 * two 64-bit FNV-1a hashes (two offset bases): two strings that differ
 * share both with a probability of about 2^-128. NULL: out of memory.
 */
static struct an_acc *an_acc_of(struct an_ctx *c, const struct npf_an_row *r,
				unsigned int type)
{
	static const uint64_t base[2] = { 0xcbf29ce484222325ull,
					  0x84222325cbf29ce4ull };
	uint64_t k[2];
	struct an_gacc *g;
	int i;

	if (!r->npu)
		return &c->kinds[type];
	if (c->o->aggregate_by == NPUPROF_AGG_BY_TYPE || !*r->layer)
		return &c->ops[type];
	for (i = 0; i < 2; i++)
		k[i] = c->o->aggregate_by == NPUPROF_AGG_BY_LAYER ?
		       an_hash(base[i], r->layer) :
		       an_hash(an_hash(base[i], r->op_type), r->in_shapes);
	g = npf_amap_find(&c->groups, k[0], k[1]);
	if (!g)
		g = npf_amap_add(&c->groups, k[0], k[1], sizeof(*g));
	return g ? &g->a : NULL;
}

/* Two layer strings the same (the same layer's are the same pointer) */
static bool an_same(const char *a, const char *b)
{
	return a == b || !strcmp(a, b);
}

/* Note what record @r of type @type tells about the names of @a */
static void an_names(struct an_acc *a, const struct npf_an_row *r,
		     unsigned int type)
{
	const char *col[3] = { r->op_type, r->in_shapes, r->out_shapes };
	unsigned int i;

	if (!a->count)
		memcpy(a->first, col, sizeof(col));
	for (i = 0; i < a->nopc && a->opc[i] != type; i++)
		;
	if (i == a->nopc && a->nopc < AN_NAMES)
		a->opc[a->nopc++] = type;
	else if (i == a->nopc)
		a->more = true;
	for (i = 0; i < 3 && r->npu; i++)
		a->mixed[i] |= !an_same(a->first[i], col[i]);
}

static int an_row(struct an_ctx *c, const struct npf_an_row *r, unsigned int type)
{
	struct an_acc *a;

	if (!an_keep(c, r))
		return 0;
	c->total += r->self;
	if (r->npu) {
		c->tot.records++;
		c->tot.self += r->self;
		c->tot.iowait += r->iowait;
		c->tot.overlap += r->overlap;
		c->tot.contended += r->contended;
		c->tot.excess += r->excess;
	}
	if (c->o->aggregate == NPUPROF_AGG_NONE) {
		size_t need = c->o->top ? 2 * (size_t)c->o->top : c->n + 1;

		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 64;
			void *p;

			if (cap > need && c->o->top)
				cap = need;
			p = realloc(c->rows, cap * sizeof(*c->rows));
			if (!p)
				return -ENOMEM;
			c->rows = p;
			c->cap = cap;
		}
		c->rows[c->n++] = *r;
		if (c->o->top && c->n == need)
			an_sort(c);
		return 0;
	}
	a = an_acc_of(c, r, type);
	if (!a)
		return -ENOMEM;
	an_names(a, r, type);
	if (!a->count++ ||
	    (c->o->aggregate == NPUPROF_AGG_MAX && r->self > a->rec.self) ||
	    (c->o->aggregate == NPUPROF_AGG_MIN && r->self < a->rec.self))
		a->rec = *r;
	a->self += r->self;
	a->iowait += r->iowait;
	a->overlap += r->overlap;
	a->contended += r->contended;
	a->excess += r->excess;
	a->macs += r->macs;
	a->bytes += r->bytes;
	return 0;
}

/* The name of opcode @op into @buf */
static void an_opname(uint32_t op, char *buf, size_t len)
{
	const char *name = npf_opcode_name(op);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "OP_%u", op);
}

static int an_busy_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return (*a > *b) - (*a < *b);
}

/* The busy list of PE @pe of device @dev; NULL: out of memory */
static struct an_busy *an_busy_of(struct an_ctx *c, uint32_t dev,
				  uint32_t pe)
{
	struct an_busy *b;
	size_t i;

	for (i = 0; i < c->nbusy; i++)
		if (c->busy[i].dev == dev && c->busy[i].pe == pe)
			return &c->busy[i];
	b = realloc(c->busy, (c->nbusy + 1) * sizeof(*b));
	if (!b)
		return NULL;
	c->busy = b;
	b = &c->busy[c->nbusy++];
	memset(b, 0, sizeof(*b));
	b->dev = dev;
	b->pe = pe;
	return b;
}

/*
 * The least IoWait of the operator of record @o of device @dev into *@l:
 * NULL when another operator has its keys (about 2^-64); with @add, a
 * new one (least UINT64_MAX) when there is none. Return: 0, -ENOMEM.
 */
static int an_least_of(struct an_ctx *c, uint32_t dev,
		       const struct npu_trace_rec_op *o, bool add,
		       struct an_least **l)
{
	uint64_t k1 = (uint64_t)dev << 48 ^ (uint64_t)o->opcode << 32 ^
		      o->op_index;
	uint64_t k2 = o->dma_bytes * 0x9e3779b97f4a7c15ull ^
		      o->macs * 0xc2b2ae3d27d4eb4full;

	*l = npf_amap_find(&c->least, k1, k2);
	if (*l && ((*l)->bytes != o->dma_bytes || (*l)->macs != o->macs))
		*l = NULL;
	else if (!*l && add) {
		*l = npf_amap_add(&c->least, k1, k2, sizeof(**l));
		if (!*l)
			return -ENOMEM;
		(*l)->bytes = o->dma_bytes;
		(*l)->macs = o->macs;
		(*l)->least = UINT64_MAX;
	}
	return 0;
}

/* Take operator record @o of device @dev into the least IoWaits */
static int an_least_see(struct an_ctx *c, uint32_t dev,
			const struct npu_trace_rec_op *o)
{
	struct an_least *l;
	int ret;

	if (o->end_tick < o->start_tick ||
	    o->iowait_ticks > o->end_tick - o->start_tick)
		return 0;	/* inconsistent: it has no row either */
	ret = an_least_of(c, dev, o, true, &l);
	if (!ret && l && o->iowait_ticks < l->least)
		l->least = o->iowait_ticks;
	return ret;
}

/*
 * The first pass over @trace: the device interval of every execution
 * with device times, per device and PE, sorted and merged (a PE runs one
 * job at a time; a hand-made file's overlapping ones count once). A
 * device or PE number out of range (a damaged record) is left out.
 */
static int an_busy_read(struct an_ctx *c, struct npuprof_trace *trace)
{
	struct npuprof_event ev;
	size_t i, j, n;
	int ret;

	while ((ret = npuprof_trace_next(trace, &ev)) == 1) {
		const struct npu_trace_rec_exec *e = ev.rec;
		const struct npu_trace_rec_hdr *h = ev.rec;
		struct an_busy *b;

		if (ev.type == NPUPROF_EV_RECORD && h->type == NPU_TRACE_REC_OP &&
		    h->size >= sizeof(struct npu_trace_rec_op)) {
			if (an_least_see(c, ev.dev, ev.rec))
				return -ENOMEM;
			continue;
		}
		if (ev.type != NPUPROF_EV_RECORD || h->type != NPU_TRACE_REC_EXEC ||
		    h->size < sizeof(*e) || !(e->flags & NPU_TRACE_EXEC_F_DEVICE) ||
		    e->end_tick <= e->start_tick || ev.dev >= AN_DEVS ||
		    e->pe >= AN_PES)
			continue;
		b = an_busy_of(c, ev.dev, e->pe);
		if (!b)
			return -ENOMEM;
		if (b->n == b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 64;
			void *p = realloc(b->v, cap * sizeof(*b->v));

			if (!p)
				return -ENOMEM;
			b->v = p;
			b->cap = cap;
		}
		b->v[b->n].s = e->start_tick;
		b->v[b->n++].e = e->end_tick;
	}
	if (ret)
		return ret;
	for (i = 0; i < c->nbusy; i++) {
		struct an_busy *b = &c->busy[i];

		if (b->n > 1)
			qsort(b->v, b->n, sizeof(*b->v), an_busy_cmp);
		for (j = n = 0; j < b->n; j++) {
			if (n && b->v[j].s <= b->v[n - 1].e) {
				if (b->v[j].e > b->v[n - 1].e)
					b->v[n - 1].e = b->v[j].e;
			} else {
				b->v[n++] = b->v[j];
			}
		}
		b->n = n;
	}
	return npuprof_trace_rewind(trace);
}

/*
 * Ticks of [@s, @e) during which a PE of device @dev other than @pe ran
 * an execution (their union) into *@ov, at most @e - @s (any uint64_t:
 * a damaged file's operator may be longer than 2^63 ticks); -ENOMEM
 */
static int an_overlap(struct an_ctx *c, uint32_t dev, uint32_t pe,
		      uint64_t s, uint64_t e, uint64_t *ov)
{
	size_t i, k, np = 0, lo, hi;
	uint64_t end = 0, sum = 0;

	for (i = 0; i < c->nbusy; i++) {
		const struct an_busy *b = &c->busy[i];

		if (b->dev != dev || b->pe == pe)
			continue;
		/* the first interval ending after @s */
		for (lo = 0, hi = b->n; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (b->v[mid].e <= s)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < b->n && b->v[k].s < e; k++) {
			if (np == c->npiece) {
				size_t cap = c->npiece ? 2 * c->npiece : 16;
				void *p = realloc(c->piece, cap * sizeof(*c->piece));

				if (!p)
					return -ENOMEM;
				c->piece = p;
				c->npiece = cap;
			}
			c->piece[np].s = b->v[k].s > s ? b->v[k].s : s;
			c->piece[np++].e = b->v[k].e < e ? b->v[k].e : e;
		}
	}
	if (np > 1)
		qsort(c->piece, np, sizeof(*c->piece), an_busy_cmp);
	for (k = 0; k < np; k++) {
		uint64_t ps = c->piece[k].s > end ? c->piece[k].s : end;

		if (c->piece[k].e > ps)
			sum += c->piece[k].e - ps;
		if (c->piece[k].e > end)
			end = c->piece[k].e;
	}
	*ov = sum;
	return 0;
}

/* @x of @ticks ticks that last @ns in all, in ns (rounded, halves up) */
static int64_t an_tick_ns(uint64_t x, uint64_t ticks, int64_t ns)
{
	if (!ticks || ns <= 0)
		return 0;
	return (int64_t)(((unsigned __int128)x * (uint64_t)ns + ticks / 2) /
			 ticks);
}

/*
 * The IoWait columns of operator @r into @row: its IoWait, its overlap
 * with the other PEs' executions and the IoWait that must lie in it,
 * computed in ticks and converted at the record's own ns per tick, and
 * its IoWait above the least of its operator (0 when that is unknown)
 */
static int an_op_iowait(struct an_ctx *c, const struct npf_op_row *r,
			struct npf_an_row *row)
{
	const struct npu_trace_rec_op *o = r->rec;
	uint64_t ticks = o->end_tick > o->start_tick ?
			 o->end_tick - o->start_tick : 0;
	uint64_t io = o->iowait_ticks < ticks ? o->iowait_ticks : ticks;
	uint64_t alone, cont, ov = 0;
	struct an_least *l;

	row->iowait = r->dur.iowait;
	if (an_least_of(c, r->dev, o, false, &l))
		return -ENOMEM;
	if (l && l->least <= o->iowait_ticks)
		row->excess = an_tick_ns(o->iowait_ticks - l->least,
					 o->iowait_ticks, r->dur.iowait);
	if (ticks && c->nbusy > 1 &&
	    an_overlap(c, r->dev, o->pe, o->start_tick, o->end_tick, &ov))
		return -ENOMEM;
	alone = ticks - ov;
	cont = io > alone ? io - alone : 0;
	row->overlap = an_tick_ns(ov, ticks, r->dur.total);
	row->contended = cont == o->iowait_ticks ? r->dur.iowait :
			 an_tick_ns(cont, ticks, r->dur.total);
	if (row->contended > row->iowait)
		row->contended = row->iowait;
	return 0;
}

static int an_op(void *ctx, const struct npf_op_row *r)
{
	struct an_ctx *c = ctx;
	const struct npu_trace_rec_op *o = r->rec;
	struct npf_layer l;
	struct npf_an_row row = {
		.npu = true, .count = 1, .self = r->dur.total, .macs = o->macs,
		.bytes = o->dma_bytes, .minor = r->minor, .job_id = o->job_id,
		.op_index = o->op_index, .pe = o->pe,
		.start = r->start.valid ? r->start.ns : 0,
		.peak_macs_s = r->dev < AN_DEVS ? c->peak[r->dev] : 0,
	};

	if (!r->dur.ok)
		return 0;
	if (an_op_iowait(c, r, &row))
		return -ENOMEM;
	npf_model_layer(npf_trace_model(c->trace, r->model_id), o->op_index,
			&l);
	row.layer = l.name;
	row.op_type = l.op_type;
	row.in_shapes = l.in_shapes;
	row.out_shapes = l.out_shapes;
	an_opname(o->opcode, row.name, sizeof(row.name));
	return an_row(c, &row, o->opcode);
}

/* Rows of the spans leaving the window (all of them with @all) */
static int an_release(struct an_ctx *c, bool all)
{
	struct npf_went e;
	int ret = 0;

	while (!ret && npf_win_next(&c->win, all, &e)) {
		struct an_held *h = npf_amap_find(&c->held, e.k1, e.k2);

		if (!h)
			continue;
		ret = an_row(c, &h->row, h->type);
		npf_amap_del(&c->held, h);
	}
	return ret;
}

static int an_span(struct an_ctx *c, const struct npuprof_span_rec *s)
{
	int64_t dur = (int64_t)(s->end_ns - s->start_ns);
	struct npf_an_row row = {
		.count = 1, .self = dur, .minor = UINT32_MAX,
		.op_index = UINT32_MAX, .pe = UINT32_MAX,
		.start = s->start_ns > INT64_MAX ? INT64_MAX : (int64_t)s->start_ns,
		.layer = "", .op_type = "", .in_shapes = "", .out_shapes = "",
	};
	unsigned int type = s->kind < AN_NKINDS ? s->kind : 0;
	struct an_held *h;
	struct an_kids *k;

	if (s->parent_id) {
		/* the parent's row, still in the window, or its children's sum */
		h = npf_amap_find(&c->held, (uint32_t)s->pid, s->parent_id);
		k = h ? NULL : npf_amap_find(&c->kids, (uint32_t)s->pid,
					     s->parent_id);
		if (!h && !k)
			k = npf_amap_add(&c->kids, (uint32_t)s->pid, s->parent_id,
					 sizeof(*k));
		if (h)
			h->row.self -= dur;
		else if (k)
			k->sum += dur;
		else
			return -ENOMEM;
	}
	k = npf_amap_find(&c->kids, (uint32_t)s->pid, s->span_id);
	if (k) {
		row.self -= k->sum;
		npf_amap_del(&c->kids, k);
	}
	if (s->flags & NPUPROF_SPAN_F_JOB) {
		row.minor = s->minor;
		row.job_id = s->job_id;
	}
	if (s->flags & NPUPROF_SPAN_F_OP)
		row.op_index = s->op_index;
	snprintf(row.name, sizeof(row.name), "%s",
		 npuprof_span_kind_name(s->kind));
	npf_win_saw(&c->win, s->end_ns);
	/* the same id twice: the second one has no children of its own */
	if (npf_amap_find(&c->held, (uint32_t)s->pid, s->span_id))
		return an_row(c, &row, type);
	h = npf_amap_add(&c->held, (uint32_t)s->pid, s->span_id, sizeof(*h));
	if (!h || npf_win_push(&c->win, s->end_ns, (uint32_t)s->pid,
			       s->span_id))
		return -ENOMEM;
	h->row = row;
	h->type = type;
	return an_release(c, false);
}

static void an_device(struct an_ctx *c, const struct npuprof_event *ev)
{
	const struct npu_info *info = ev->info;

	if (ev->dev < AN_DEVS &&
	    ev->info_size >= offsetof(struct npu_info, macs_per_cycle) +
	    sizeof(info->macs_per_cycle))
		c->peak[ev->dev] = (double)info->macs_per_cycle *
				   (double)info->clock_hz;
}

/* @a / @n rounded to the nearest, halves up (@n > 0) */
static int64_t an_mean(int64_t a, uint64_t n)
{
	__int128 d = 2 * (__int128)n, q = (2 * (__int128)a + (__int128)n) / d;

	if ((2 * (__int128)a + (__int128)n) % d < 0)
		q--;
	return (int64_t)q;
}

static int an_str_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * The name of a sum or mean over several opcodes: their names in
 * alphabetical order joined by "+", or "mixed" when there are more than
 * AN_NAMES or they do not fit
 */
static void an_join_names(const struct an_acc *a, char *buf, size_t len)
{
	char names[AN_NAMES][32];
	size_t used = 0;
	unsigned int i;

	for (i = 0; i < a->nopc; i++)
		an_opname(a->opc[i], names[i], sizeof(names[i]));
	qsort(names, a->nopc, sizeof(names[0]), an_str_cmp);
	buf[0] = 0;
	for (i = 0; i < a->nopc && !a->more; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "+" : "",
				 names[i]);

		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (a->more || i < a->nopc)
		snprintf(buf, len, "mixed");
}

/* The row of accumulator @a into @r */
static void an_collect_one(const struct an_ctx *c, const struct an_acc *a,
			   struct npf_an_row *r)
{
	*r = a->rec;
	r->count = a->count;
	if (c->o->aggregate != NPUPROF_AGG_SUM &&
	    c->o->aggregate != NPUPROF_AGG_MEAN)
		return;
	/* rec is the first record: its name and layer columns if shared */
	if (r->npu && (a->nopc > 1 || a->more))
		an_join_names(a, r->name, sizeof(r->name));
	if (a->mixed[0])
		r->op_type = "mixed";
	if (a->mixed[1])
		r->in_shapes = "mixed";
	if (a->mixed[2])
		r->out_shapes = "mixed";
	r->self = a->self;
	r->iowait = a->iowait;
	r->overlap = a->overlap;
	r->contended = a->contended;
	r->excess = a->excess;
	r->macs = a->macs;
	r->bytes = a->bytes;
	r->minor = UINT32_MAX;
	r->job_id = 0;
	r->op_index = r->pe = UINT32_MAX;
	r->start = 0;
	/* the key's columns stay, and those the records agree on */
	if (c->o->aggregate_by == NPUPROF_AGG_BY_TYPE || !*r->layer)
		r->layer = r->op_type = r->in_shapes = r->out_shapes = "";
	else if (c->o->aggregate_by == NPUPROF_AGG_BY_SHAPE)
		r->layer = "";
	if (c->o->aggregate == NPUPROF_AGG_MEAN) {
		r->self = an_mean(a->self, a->count);
		r->iowait = an_mean(a->iowait, a->count);
		r->overlap = an_mean(a->overlap, a->count);
		r->contended = an_mean(a->contended, a->count);
		r->excess = an_mean(a->excess, a->count);
		r->macs = (uint64_t)an_mean((int64_t)a->macs, a->count);
		r->bytes = (uint64_t)an_mean((int64_t)a->bytes, a->count);
	}
}

/* The rows of the accumulators */
static int an_collect(struct an_ctx *c)
{
	const struct an_gacc *g;
	size_t i, n = c->groups.n;

	for (i = 0; i < AN_NOPS + AN_NKINDS; i++) {
		const struct an_acc *a = i < AN_NOPS ? &c->ops[i] :
					 &c->kinds[i - AN_NOPS];

		n += a->count != 0;
	}
	c->rows = calloc(n ? n : 1, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	for (i = 0; i < AN_NOPS + AN_NKINDS; i++) {
		const struct an_acc *a = i < AN_NOPS ? &c->ops[i] :
					 &c->kinds[i - AN_NOPS];

		if (a->count)
			an_collect_one(c, a, &c->rows[c->n++]);
	}
	for (g = npf_amap_first(&c->groups); g;
	     g = g->node.next != &c->groups.head ?
		 (const struct an_gacc *)g->node.next : NULL)
		an_collect_one(c, &g->a, &c->rows[c->n++]);
	return 0;
}

static const struct npf_join_ops an_ops = { .op = an_op };

/* npf_analyze_rows(), and the totals of the NPU records kept in *@tot */
static int an_rows(struct npuprof_trace *trace,
		   const struct npuprof_analyze_opts *o,
		   struct npf_an_row **rows, size_t *n, int64_t *total,
		   struct an_totals *tot)
{
	struct npuprof_analyze_opts def;
	struct an_ctx c;
	struct npf_join *j = NULL;
	struct npuprof_event ev;
	size_t i;
	int ret;

	if (!o) {
		npuprof_analyze_opts_init(&def);
		o = &def;
	}
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.trace = trace;
	if (o->sz < sizeof(*o) || o->aggregate > NPUPROF_AGG_MIN ||
	    o->aggregate_by > NPUPROF_AGG_BY_SHAPE ||
	    an_parse_col(o->order_by, &c.col, &c.asc))
		return -EINVAL;
	if (o->aggregate) {
		c.ops = calloc(AN_NOPS, sizeof(*c.ops));
		if (!c.ops)
			return -ENOMEM;
	}
	ret = npf_amap_init(&c.kids);
	if (!ret)
		ret = npf_amap_init(&c.held);
	if (!ret)
		ret = npf_amap_init(&c.least);
	if (!ret)
		ret = npf_amap_init(&c.groups);
	if (!ret)
		ret = npuprof_trace_rewind(trace);
	if (!ret)
		ret = an_busy_read(&c, trace);
	if (!ret)
		ret = npf_join_new(trace, &an_ops, &c, &j);
	while (!ret && (ret = npuprof_trace_next(trace, &ev)) == 1) {
		ret = 0;
		if (ev.type == NPUPROF_EV_DEVICE)
			an_device(&c, &ev);
		else if (ev.type == NPUPROF_EV_SPAN)
			ret = an_span(&c, ev.span);
		if (!ret)
			ret = npf_join_event(j, &ev);
	}
	if (!ret)
		ret = an_release(&c, true);
	npf_join_free(j);
	npf_amap_fini(&c.kids);
	npf_amap_fini(&c.held);
	npf_win_fini(&c.win);
	if (!ret && o->aggregate)
		ret = an_collect(&c);
	npf_amap_fini(&c.groups);
	free(c.ops);
	for (i = 0; i < c.nbusy; i++)
		free(c.busy[i].v);
	free(c.busy);
	free(c.piece);
	npf_amap_fini(&c.least);
	if (ret) {
		free(c.rows);
		return ret;
	}
	an_sort(&c);
	*rows = c.rows;
	*n = c.n;
	*total = c.total;
	*tot = c.tot;
	return 0;
}

int npf_analyze_rows(struct npuprof_trace *trace,
		     const struct npuprof_analyze_opts *o,
		     struct npf_an_row **rows, size_t *n, int64_t *total)
{
	struct an_totals tot;

	return an_rows(trace, o, rows, n, total, &tot);
}

static const struct npf_col an_cols[] = {
	{ "name", NPF_COL_STR, 0, 12 },
	{ "where", NPF_COL_STR, 0, 5 },
	{ "count", NPF_COL_U64, 0, 6 },
	{ "self_ns", NPF_COL_I64, 0, 10 },
	{ "self_pct", NPF_COL_F64, 0, 10 },
	{ "cum_ns", NPF_COL_I64, 0, 10 },
	{ "cum_pct", NPF_COL_F64, 0, 10 },
	{ "macs", NPF_COL_U64, 0, 10 },
	{ "gmac_s", NPF_COL_F64, 0, 10 },
	{ "peak_pct", NPF_COL_F64, 0, 10 },
	{ "iowait_ns", NPF_COL_I64, 0, 10 },
	{ "iowait_pct", NPF_COL_F64, 0, 10 },
	{ "overlap_ns", NPF_COL_I64, NPF_COL_DATA, 0 },
	{ "contended_ns", NPF_COL_I64, 0, 12 },
	{ "excess_ns", NPF_COL_I64, 0, 10 },
	{ "bytes", NPF_COL_U64, 0, 9 },
	{ "gb_s", NPF_COL_F64, 0, 10 },
	{ "minor", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "job_id", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "op_index", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "pe", NPF_COL_U64, NPF_COL_DATA, 0 },
	{ "start_ns", NPF_COL_I64, NPF_COL_DATA, 0 },
	/* last: a long name ends the line of the text */
	{ "layer", NPF_COL_STR, NPF_COL_OPT, 0 },
	{ "op_type", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "in_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "out_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
};

#define AN_NCOLS		(sizeof(an_cols) / sizeof(an_cols[0]))
#define AN_COL_MINOR		17
#define AN_COL_START		21
#define AN_COL_LAYER		22
#define AN_COL_IN_SHAPES	24
_Static_assert(AN_COL_MINOR < AN_COL_START && AN_COL_START < AN_COL_LAYER &&
	       AN_COL_LAYER < AN_NCOLS && AN_COL_IN_SHAPES < AN_NCOLS,
	       "an_cols holds the record ids, the layer and in_shapes columns");

static struct npuprof_value an_f(double v)
{
	return (struct npuprof_value){ .null = v < 0, .f = v };
}

static struct npuprof_value an_u(uint64_t v, bool null)
{
	return (struct npuprof_value){ .null = null, .u = v };
}

static double an_pct(int64_t a, int64_t total)
{
	return total ? 100.0 * (double)a / (double)total : -1;
}

static struct npuprof_value an_i(int64_t v, bool null)
{
	return (struct npuprof_value){ .null = null, .i = v };
}

/* The text's last line: the IoWait of the NPU records kept */
static void an_trailer(FILE *out, const struct an_totals *t)
{
	if (!t->records)
		return;
	fprintf(out, "NPU IoWait %" PRId64 " ns of %" PRId64
		" ns (%.2f%%) in %" PRIu64 " operator records; at least %"
		PRId64 " ns while another PE ran (contended), which ran during %"
		PRId64 " ns; %" PRId64 " ns above each operator's least IoWait "
		"(excess)\n", t->iowait, t->self,
		t->self ? 100.0 * (double)t->iowait / (double)t->self : 0.0,
		t->records, t->contended, t->overlap, t->excess);
}

/*
 * @in (NULL: the defaults) into *@o: a caller built against an older
 * header passes a smaller sz and gets the defaults of the fields it
 * lacks; a newer one's bytes beyond ours must be 0 (-E2BIG)
 */
static int an_opts(const struct npuprof_analyze_opts *in,
		   struct npuprof_analyze_opts *o)
{
	int ret;

	npuprof_analyze_opts_init(o);
	ret = npf_opts_copy(o, sizeof(*o), in,
			    offsetof(struct npuprof_analyze_opts, format) +
			    sizeof(in->format));
	if (!ret && !o->format)
		o->format = NPUPROF_FORMAT_TABLE;
	return ret;
}

NPUPROF_EXPORT
int npuprof_analyze(struct npuprof_trace *trace, FILE *out,
		    const struct npuprof_analyze_opts *opts)
{
	struct npf_col cols[AN_NCOLS];
	struct npuprof_analyze_opts o;
	struct npf_an_row *rows = NULL;
	struct an_totals tot;
	int64_t total = 0, cum = 0;
	unsigned int format;
	struct npf_tw tw;
	size_t n = 0, i;
	bool rec;
	int ret, opt_w = 0;

	ret = an_opts(opts, &o);
	if (ret)
		return ret;
	format = o.format;
	if (!trace ||
	    (format == NPUPROF_FORMAT_ROWS ? !o.sink || !o.sink->row :
	     !out ||
	     (format != NPUPROF_FORMAT_TABLE && format != NPUPROF_FORMAT_WIDE &&
	      format != NPUPROF_FORMAT_CSV && format != NPUPROF_FORMAT_JSONL &&
	      format != NPUPROF_FORMAT_JSON)))
		return -EINVAL;
	ret = an_rows(trace, &o, &rows, &n, &total, &tot);
	if (ret)
		return ret;
	/* a record's own columns: not for sums and means */
	rec = o.aggregate == NPUPROF_AGG_NONE || o.aggregate >= NPUPROF_AGG_MAX;
	/*
	 * The text shows the layer column when a row has a layer; by
	 * shape, the input shapes instead: they are the rows' key.
	 */
	memcpy(cols, an_cols, sizeof(cols));
	/* an aggregate's rows have no record ids: not even --wide shows them */
	for (i = AN_COL_MINOR; !rec && i <= AN_COL_START; i++)
		cols[i].flags |= NPF_COL_NOTEXT;
	if (o.aggregate_by == NPUPROF_AGG_BY_SHAPE && !rec) {
		cols[AN_COL_LAYER].flags = NPF_COL_DATA;
		cols[AN_COL_IN_SHAPES].flags = NPF_COL_OPT;
	}
	for (i = 0; i < n; i++) {
		const char *s = cols[AN_COL_LAYER].flags == NPF_COL_OPT ?
				rows[i].layer : rows[i].in_shapes;

		if (*s)
			opt_w = npf_opt_w(opt_w, s);
	}
	npf_tw_begin_opt(&tw, out, format, cols, AN_NCOLS, false, opt_w);
	if (format == NPUPROF_FORMAT_ROWS)
		ret = npf_tw_sink(&tw, o.sink, 0);
	for (i = 0; i < n && !ret; i++) {
		const struct npf_an_row *r = &rows[i];

		cum += r->self;
		npf_tw_row(&tw, (struct npuprof_value[]){
			{ .s = r->name }, { .s = r->npu ? "npu" : "host" },
			{ .u = r->count }, { .i = r->self },
			an_f(an_pct(r->self, total)), { .i = cum },
			an_f(an_pct(cum, total)), an_u(r->macs, !r->npu),
			an_f(an_gmacs(r)), an_f(an_peak(r)),
			an_i(r->iowait, !r->npu),
			an_f(r->npu ? an_pct(r->iowait, r->self) : -1),
			an_i(r->overlap, !r->npu), an_i(r->contended, !r->npu),
			an_i(r->excess, !r->npu),
			an_u(r->bytes, !r->npu), an_f(an_gbps(r)),
			an_u(r->minor, r->minor == UINT32_MAX),
			an_u(r->job_id, !rec || r->minor == UINT32_MAX),
			an_u(r->op_index, r->op_index == UINT32_MAX),
			an_u(r->pe, r->pe == UINT32_MAX),
			{ .null = !rec, .i = r->start }, { .s = r->layer },
			{ .s = r->op_type },
			{ .s = r->in_shapes }, { .s = r->out_shapes } });
		ret = tw.err;
	}
	if (!ret)
		ret = npf_tw_end(&tw);
	if (!ret && (format == NPUPROF_FORMAT_TABLE ||
		     format == NPUPROF_FORMAT_WIDE))
		an_trailer(out, &tot);
	free(rows);
	if (!ret && out && (fflush(out) || ferror(out)))
		return -EIO;
	return ret;
}
