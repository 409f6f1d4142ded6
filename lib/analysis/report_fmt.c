// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report_fmt.c - writes the rows of a report table in one of the output
 * formats: aligned text laid out as the reference documents' pandas
 * tables (NPUPROF_FORMAT_TABLE; NPUPROF_FORMAT_WIDE with the data
 * columns too), CSV (RFC 4180), JSON Lines, and one JSON
 * document (an array of objects); or gives them, typed, to a caller's row
 * sink (NPUPROF_FORMAT_ROWS). Streams: nothing is kept between rows but
 * the row count. Strings are written as valid UTF-8 JSON (bytes that
 * are not UTF-8 become U+FFFD).
 *
 * A writer is used by one thread; it lives on its caller's stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_util.h"

/* Width of the pandas-like row index of the text tables */
#define NPF_IDX_W	6
/* The widest table given to a sink (the executions: 22) */
#define NPF_SINK_MAXCOLS	32

static bool npf_tw_shown(const struct npf_tw *w, const struct npf_col *c)
{
	if (w->format != NPUPROF_FORMAT_TABLE)
		return true;
	if (c->flags & NPF_COL_NOTEXT)
		return false;
	if (w->wide)
		return true;
	if (c->flags & NPF_COL_DATA)
		return false;
	return !(c->flags & NPF_COL_OPT) || w->opt_w > 0;
}

static int npf_col_w(const struct npf_tw *w, const struct npf_col *c)
{
	int n = (int)strlen(c->name);
	int cw = c->flags & NPF_COL_OPT ? w->opt_w : c->width;

	return n > cw ? n : cw;
}

static void npf_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Length of the valid UTF-8 sequence at @s, 0 if none */
static size_t npf_utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void npf_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = npf_utf8_len(s))) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fputs("\\ufffd", f);
			s++;
		}
	}
	fputc('"', f);
}

/* @v as text into @buf; NULL for a null value */
static const char *npf_val_text(const struct npf_col *c,
				const struct npuprof_value *v, char *buf, size_t len)
{
	if (v->null)
		return NULL;
	switch (c->type) {
	case NPF_COL_STR:
		return v->s;
	case NPF_COL_I64:
		snprintf(buf, len, "%" PRId64, v->i);
		break;
	case NPF_COL_U64:
		snprintf(buf, len, "%" PRIu64, v->u);
		break;
	default:
		snprintf(buf, len, "%.6f", v->f);
		break;
	}
	return buf;
}

void npf_tw_begin(struct npf_tw *w, FILE *out, unsigned int format,
		  const struct npf_col *cols, unsigned int ncols,
		  bool name_index)
{
	npf_tw_begin_opt(w, out, format, cols, ncols, name_index, 0);
}

void npf_tw_begin_opt(struct npf_tw *w, FILE *out, unsigned int format,
		      const struct npf_col *cols, unsigned int ncols,
		      bool name_index, int opt_w)
{
	unsigned int i;
	bool first = true;

	w->out = out;
	w->opt_w = opt_w;
	w->wide = format == NPUPROF_FORMAT_WIDE;
	if (w->wide)
		format = NPUPROF_FORMAT_TABLE;
	w->format = format;
	w->cols = cols;
	w->ncols = ncols;
	w->rows = 0;
	w->name_index = name_index;
	w->sink = NULL;
	w->table = 0;
	w->err = 0;
	if (format == NPUPROF_FORMAT_JSON) {
		fputc('[', out);
		return;
	}
	if (format == NPUPROF_FORMAT_CSV) {
		for (i = 0; i < ncols; i++) {
			if (!first)
				fputc(',', out);
			first = false;
			npf_csv_str(out, cols[i].name);
		}
		fputs("\r\n", out);
		return;
	}
	if (format != NPUPROF_FORMAT_TABLE)
		return;
	/*
	 * pandas: the index column has no label; with a named index (the
	 * operators table) its name gets a line of its own below.
	 */
	i = 0;
	if (name_index) {
		fprintf(out, "%-*s", npf_col_w(w, &cols[0]), "");
		i = 1;
	} else {
		fprintf(out, "%-*s", NPF_IDX_W, "");
	}
	for (; i < ncols; i++)
		if (npf_tw_shown(w, &cols[i]))
			fprintf(out, "  %*s", npf_col_w(w, &cols[i]), cols[i].name);
	fputc('\n', out);
	if (name_index)
		fprintf(out, "%s\n", cols[0].name);
}

int npf_tw_sink(struct npf_tw *w, const struct npuprof_row_sink *sink,
		unsigned int table)
{
	struct npuprof_column cols[NPF_SINK_MAXCOLS];
	unsigned int i;

	w->sink = sink;
	w->table = table;
	if (w->ncols > NPF_SINK_MAXCOLS || !sink || !sink->row) {
		w->err = -EINVAL;
		return w->err;
	}
	for (i = 0; i < w->ncols; i++)
		cols[i] = (struct npuprof_column){ w->cols[i].name,
						   w->cols[i].type };
	if (sink->columns)
		w->err = sink->columns(sink->ctx, table, cols, w->ncols);
	return w->err;
}

void npf_tw_row(struct npf_tw *w, const struct npuprof_value *v)
{
	FILE *f = w->out;
	char buf[64];
	const char *t;
	unsigned int i = 0;
	bool first = true;

	switch (w->format) {
	case NPUPROF_FORMAT_ROWS:
		if (!w->err)
			w->err = w->sink->row(w->sink->ctx, w->table, v);
		break;
	case NPUPROF_FORMAT_TABLE:
		if (w->name_index) {
			t = npf_val_text(&w->cols[0], &v[0], buf, sizeof(buf));
			fprintf(f, "%-*s", npf_col_w(w, &w->cols[0]), t ? t : "-");
			i = 1;
		} else {
			fprintf(f, "%-*" PRIu64, NPF_IDX_W, w->rows);
		}
		for (; i < w->ncols; i++) {
			if (!npf_tw_shown(w, &w->cols[i]))
				continue;
			t = npf_val_text(&w->cols[i], &v[i], buf, sizeof(buf));
			fprintf(f, "  %*s", npf_col_w(w, &w->cols[i]), t ? t : "-");
		}
		fputc('\n', f);
		break;
	case NPUPROF_FORMAT_CSV:
		for (i = 0; i < w->ncols; i++) {
			if (!first)
				fputc(',', f);
			first = false;
			t = npf_val_text(&w->cols[i], &v[i], buf, sizeof(buf));
			if (t)
				npf_csv_str(f, t);
		}
		fputs("\r\n", f);
		break;
	default:
		if (w->format == NPUPROF_FORMAT_JSON)
			fputs(w->rows ? ",\n" : "\n", f);
		fputc('{', f);
		for (i = 0; i < w->ncols; i++) {
			if (i)
				fputs(", ", f);
			npf_json_str(f, w->cols[i].name);
			fputs(": ", f);
			t = npf_val_text(&w->cols[i], &v[i], buf, sizeof(buf));
			if (!t)
				fputs("null", f);
			else if (w->cols[i].type == NPF_COL_STR)
				npf_json_str(f, t);
			else
				fputs(t, f);
		}
		fputc('}', f);
		if (w->format == NPUPROF_FORMAT_JSONL)
			fputc('\n', f);
		break;
	}
	w->rows++;
}

int npf_tw_end(struct npf_tw *w)
{
	if (w->format == NPUPROF_FORMAT_JSON)
		fputs(w->rows ? "\n]\n" : "]\n", w->out);
	return w->err;
}
