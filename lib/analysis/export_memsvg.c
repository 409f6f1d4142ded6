// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_memsvg.c - npuprof_export_memsvg(): the memory_flow SVG of a
 * trace, as MegEngine draws it: time across, device address down, each
 * buffer a rectangle from its allocation to its free (or the end of the
 * trace's buffer records), coloured by kind, with a <title> tooltip
 * (owner, size, kind, address, times, what freed it); one panel per
 * device, with axes, ticks, units and a legend; failed allocations as red
 * marks above the panel. Documentation/npu/export.rst, "memory-svg".
 *
 * Two passes over the trace: the first finds the time range and each
 * device's address range (the lowest and highest address a buffer had:
 * the records carry no DRAM base), the second replays the records
 * (memtrack.c) and draws each buffer when its free comes, the live ones
 * at the end. Memory: the live buffers. Rectangles are at least 1 px
 * wide and 1 px high, so that hundreds of short or small buffers stay
 * visible and hoverable.
 *
 * Locking: none; one export runs in its caller's thread. Lifetime:
 * everything is freed before the call returns.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "memtrack.h"

#define SVG_W		1200.0	/* the image's width */
#define SVG_ML		100.0	/* left margin: the address axis */
#define SVG_MR		20.0
#define SVG_PW		(SVG_W - SVG_ML - SVG_MR)	/* plot width */
#define SVG_HEAD	40.0	/* the title and legend */
#define SVG_PT		30.0	/* a panel's title */
#define SVG_PH		360.0	/* a panel's plot height */
#define SVG_PB		50.0	/* a panel's time axis */
#define SVG_PANEL	(SVG_PT + SVG_PH + SVG_PB)

struct svg_dev {
	bool seen;		/* a buffer was allocated on it */
	uint32_t minor;
	uint64_t lo, hi;	/* address range of its buffers */
	uint64_t n;		/* buffers */
	uint64_t fails;
	double top;		/* y of its plot area */
};

struct svg {
	FILE *f;
	struct svg_dev dev[NPF_MEM_MAX_DEVS];
	bool have_t;
	int64_t t0, t1;
	double t_div;		/* ns per display unit */
	const char *t_unit;
};

static const char *const svg_colour[] = {
	"#9e9e9e",	/* other */
	"#4e79a7",	/* program */
	"#59a14f",	/* input */
	"#f28e2b",	/* output */
	"#e15759",	/* scratch */
	"#b07aa1",	/* unknown */
};

static const char *svg_fill(uint32_t kind)
{
	return svg_colour[kind <= NPU_BO_KIND_MAX ? kind : NPU_BO_KIND_MAX + 1];
}

static double svg_x(const struct svg *s, int64_t t)
{
	return SVG_ML + (double)(t - s->t0) * SVG_PW / (double)(s->t1 - s->t0);
}

static double svg_y(const struct svg_dev *d, uint64_t a)
{
	return d->top + (double)(a - d->lo) * SVG_PH / (double)(d->hi - d->lo);
}

/* @b bytes as "128 KiB" (exact when it is a whole number of units) */
static void svg_bytes(char *buf, size_t len, uint64_t b)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int i = 0;
	double v = (double)b;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%" PRIu64 " %s", (uint64_t)v, u[i]);
	else
		snprintf(buf, len, "%.2f %s", v, u[i]);
}

/* A time as the axis shows it */
static void svg_time(const struct svg *s, char *buf, size_t len, int64_t t)
{
	snprintf(buf, len, "%.3f %s", (double)(t - s->t0) / s->t_div, s->t_unit);
}

/* The first pass: time and address ranges */
static int svg_scan(struct npuprof_trace *t, struct svg *s)
{
	const struct npu_trace_rec_bo *r;
	struct npuprof_event ev;
	int ret;

	ret = npuprof_trace_rewind(t);
	if (ret)
		return ret;
	while ((ret = npuprof_trace_next(t, &ev)) == 1) {
		struct svg_dev *d;
		int64_t ns;

		if (ev.type == NPUPROF_EV_DEVICE && ev.dev < NPF_MEM_MAX_DEVS) {
			const struct npu_info *i = ev.info;

			s->dev[ev.dev].minor = UINT32_MAX;
			if (i && ev.info_size >= offsetof(struct npu_info, minor) +
						 sizeof(i->minor))
				s->dev[ev.dev].minor = i->minor;
			continue;
		}
		if (npf_bo_rec(&ev, &r) != 1 || ev.dev >= NPF_MEM_MAX_DEVS ||
		    r->host_ns > INT64_MAX)
			continue;
		d = &s->dev[ev.dev];
		ns = (int64_t)r->host_ns;
		if (!s->have_t || ns < s->t0)
			s->t0 = ns;
		if (!s->have_t || ns > s->t1)
			s->t1 = ns;
		s->have_t = true;
		if (r->hdr.type != NPU_TRACE_REC_BO_ALLOC)
			continue;
		if (r->error) {
			d->fails++;
			continue;
		}
		if (!d->seen || r->dev_addr < d->lo)
			d->lo = r->dev_addr;
		if (!d->seen || r->dev_addr + r->size > d->hi)
			d->hi = r->dev_addr + r->size;
		d->seen = true;
		d->n++;
	}
	return ret;
}

/* A step of 1, 2 or 5 times a power of ten giving at most @max ticks */
static double svg_step10(double span, unsigned int max)
{
	double p = 1, m[] = { 1, 2, 5 };
	unsigned int i;

	while (span / p > max * 5)
		p *= 10;
	while (p > 1e-9 && span / (p / 10) <= max)
		p /= 10;
	for (i = 0; i < 3; i++)
		if (span / (p * m[i]) <= max)
			return p * m[i];
	return p * 10;
}

static void svg_axes(struct svg *s, uint32_t dev, struct svg_dev *d)
{
	FILE *f = s->f;
	double span = (double)(s->t1 - s->t0) / s->t_div, step, v;
	uint64_t astep = 1, a;
	char b1[32], b2[32];

	fprintf(f, "<g class=\"panel\" id=\"dev%u\">\n", dev);
	svg_bytes(b1, sizeof(b1), d->hi - d->lo);
	if (d->minor != UINT32_MAX)
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" class=\"ptitle\">npu%u "
			"(device %u): %" PRIu64 " buffer%s over %s of addresses"
			"</text>\n", SVG_ML, d->top - 10, d->minor, dev, d->n,
			d->n == 1 ? "" : "s", b1);
	else
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" class=\"ptitle\">device "
			"%u: %" PRIu64 " buffer%s over %s of addresses</text>\n",
			SVG_ML, d->top - 10, dev, d->n, d->n == 1 ? "" : "s", b1);
	fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		"class=\"plot\"/>\n", SVG_ML, d->top, SVG_PW, SVG_PH);
	/* time ticks */
	step = svg_step10(span, 10);
	for (v = 0; v <= span * (1 + 1e-9); v += step) {
		double x = SVG_ML + v * SVG_PW / span;

		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			"class=\"tick\"/><text x=\"%.2f\" y=\"%.2f\" "
			"class=\"tl\">%g</text>\n", x, d->top + SVG_PH, x,
			d->top + SVG_PH + 5, x, d->top + SVG_PH + 18, v);
	}
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" class=\"axis\">time since the "
		"first buffer record (%s)</text>\n", SVG_ML + SVG_PW / 2,
		d->top + SVG_PH + 38, s->t_unit);
	/* address ticks: a power of two apart, at most 8 */
	while ((d->hi - d->lo) / astep > 8)
		astep <<= 1;
	for (a = (d->lo + astep - 1) / astep * astep; a <= d->hi; a += astep) {
		double y = svg_y(d, a);

		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			"class=\"tick\"/><text x=\"%.2f\" y=\"%.2f\" class=\"al\">"
			"0x%" PRIx64 "</text>\n", SVG_ML - 5, y, SVG_ML, y,
			SVG_ML - 8, y + 4, a);
		if (a + astep < a)
			break;
	}
	svg_bytes(b2, sizeof(b2), astep);
	fprintf(f, "<text transform=\"translate(14 %.2f) rotate(-90)\" "
		"class=\"axis\">device address (ticks %s apart)</text>\n",
		d->top + SVG_PH / 2, b2);
}

/* A buffer's rectangle, from its allocation to @end_ns */
static void svg_buf(struct svg *s, const struct npf_mem_buf *b, int64_t end_ns,
		    const char *freed_by)
{
	struct svg_dev *d = &s->dev[b->dev];
	double x = svg_x(s, b->alloc_ns), x2 = svg_x(s, end_ns);
	double y = svg_y(d, b->addr), y2 = svg_y(d, b->addr + b->size);
	char sz[32], ta[32], tf[32], dur[32];

	svg_bytes(sz, sizeof(sz), b->size);
	svg_time(s, ta, sizeof(ta), b->alloc_ns);
	svg_time(s, tf, sizeof(tf), end_ns);
	snprintf(dur, sizeof(dur), "%.3f %s",
		 (double)(end_ns - b->alloc_ns) / s->t_div, s->t_unit);
	fprintf(s->f, "<rect class=\"bo\" data-dev=\"%u\" data-bo=\"%" PRIu64 "\" x=\"%.2f\" "
		"y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
		"<title>buffer %" PRIu64 ", %s: %s (%" PRIu64 " bytes) at 0x%"
		PRIx64 "\nowner: pid %d, tid %d\nallocated %s, %s %s "
		"(%s)</title></rect>\n",
		b->dev, b->id, x, y, x2 - x < 1 ? 1 : x2 - x, y2 - y < 1 ? 1 : y2 - y,
		svg_fill(b->kind), b->id, npf_bo_kind_name(b->kind), sz, b->size,
		b->addr, b->pid, b->tid, ta,
		freed_by ? "freed" : "live at the end,", tf,
		freed_by ? freed_by : "not freed in the trace");
}

static void svg_fail(struct svg *s, uint32_t dev,
		     const struct npu_trace_rec_bo *r)
{
	struct svg_dev *d = &s->dev[dev];
	double x = svg_x(s, (int64_t)r->host_ns);
	char sz[32], t[32], eb[16];

	if (!d->seen)
		return;
	svg_bytes(sz, sizeof(sz), r->size);
	svg_time(s, t, sizeof(t), (int64_t)r->host_ns);
	fprintf(s->f, "<path class=\"fail\" d=\"M%.2f %.2fl-4 -8h8z\">"
		"<title>allocation failed: %s, %s (%" PRIu64 " bytes), %s\n"
		"pid %d, tid %d, at %s</title></path>\n", x, d->top - 1,
		npf_bo_error_name(r->error, eb, sizeof(eb)), sz,
		(uint64_t)r->size, npf_bo_kind_name(r->kind), r->pid, r->tid, t);
}

/* The second pass: each buffer drawn at its free, the live at the end */
static int svg_draw(struct npuprof_trace *t, struct svg *s)
{
	const struct npu_trace_rec_bo *r;
	const struct npf_mem_buf *live;
	struct npuprof_event ev;
	struct npf_mem_buf b;
	struct npf_mem *m;
	uint32_t i;
	long n, k;
	int ret, what;

	ret = npf_mem_new(&m);
	if (ret)
		return ret;
	ret = npuprof_trace_rewind(t);
	while (!ret && (ret = npuprof_trace_next(t, &ev)) == 1) {
		ret = 0;
		if (npf_bo_rec(&ev, &r) != 1 || ev.dev >= NPF_MEM_MAX_DEVS ||
		    r->host_ns > INT64_MAX)
			continue;
		what = npf_mem_apply(m, ev.dev, r, NULL, &b);
		if (what < 0)
			ret = what;
		else if (what == NPF_MEM_FREE && s->dev[ev.dev].seen)
			svg_buf(s, &b, (int64_t)r->host_ns,
				npf_bo_reason_name(r->reason));
		else if (what == NPF_MEM_FAIL)
			svg_fail(s, ev.dev, r);
	}
	for (i = 0; i < NPF_MEM_MAX_DEVS && !ret; i++) {
		if (!s->dev[i].seen)
			continue;
		n = npf_mem_live(m, i, 0, &live);
		if (n < 0)
			ret = (int)n;
		for (k = 0; k < n; k++)
			svg_buf(s, &live[k], s->t1, NULL);
	}
	npf_mem_free(m);
	return ret;
}

NPUPROF_EXPORT
int npuprof_export_memsvg(struct npuprof_trace *trace, FILE *out,
			  const struct npuprof_export_opts *opts)
{
	static const char *const kinds[] = {
		"other", "program", "input", "output", "scratch",
	};
	struct svg *s;
	double h = SVG_HEAD, x;
	uint32_t i, panels = 0;
	int64_t span;
	int ret;

	if (!trace || !out || (opts && opts->sz < sizeof(size_t)))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->f = out;
	ret = svg_scan(trace, s);
	if (ret)
		goto out;
	if (s->t1 <= s->t0)
		s->t1 = s->t0 + 1;
	span = s->t1 - s->t0;
	s->t_div = span >= 10000000000 ? 1e9 : span >= 10000000 ? 1e6 :
		   span >= 10000 ? 1e3 : 1;
	s->t_unit = span >= 10000000000 ? "s" : span >= 10000000 ? "ms" :
		    span >= 10000 ? "\xc2\xb5s" : "ns";
	for (i = 0; i < NPF_MEM_MAX_DEVS; i++) {
		struct svg_dev *d = &s->dev[i];

		if (!d->seen)
			continue;
		if (d->hi <= d->lo)
			d->hi = d->lo + 1;
		d->top = h + SVG_PT;
		h += SVG_PANEL;
		panels++;
	}
	if (!panels)
		h += 40;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<title>memory flow: device buffers over time</title>\n"
		"<style>.plot{fill:#fafafa;stroke:#444}.tick{stroke:#444}"
		".tl{text-anchor:middle}.al{text-anchor:end}"
		".axis{text-anchor:middle;font-size:12px}"
		".ptitle{font-size:13px;font-weight:bold}"
		".bo{stroke:#222;stroke-width:0.3;fill-opacity:0.85}"
		".bo:hover{stroke-width:1.5;fill-opacity:1}"
		".fail{fill:#d00}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%.2f\" y=\"18\" font-size=\"15\" font-weight=\"bold\">"
		"memory flow: each buffer from its allocation to its free "
		"(hover for details)</text>\n", SVG_W, h, SVG_W, h, SVG_ML);
	x = SVG_ML;
	fprintf(out, "<g class=\"legend\">\n");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		fprintf(out, "<rect x=\"%.2f\" y=\"26\" width=\"10\" height=\"10\" "
			"fill=\"%s\"/><text x=\"%.2f\" y=\"35\">%s</text>\n", x,
			svg_colour[i], x + 14, kinds[i]);
		x += 90;
	}
	fprintf(out, "<path d=\"M%.2f 36l-4 -8h8z\" class=\"fail\"/>"
		"<text x=\"%.2f\" y=\"35\">failed allocation</text>\n</g>\n",
		x + 5, x + 14);
	if (!panels)
		fprintf(out, "<text x=\"%.2f\" y=\"%.2f\">no buffer records in "
			"the trace</text>\n", SVG_ML, SVG_HEAD + 20);
	for (i = 0; i < NPF_MEM_MAX_DEVS; i++)
		if (s->dev[i].seen) {
			svg_axes(s, i, &s->dev[i]);
			fputs("</g>\n", out);
		}
	fputs("<g class=\"buffers\">\n", out);
	ret = svg_draw(trace, s);
	if (ret)
		goto out;
	fputs("</g>\n</svg>\n", out);
	if (fflush(out) || ferror(out))
		ret = -EIO;
out:
	free(s);
	return ret;
}
