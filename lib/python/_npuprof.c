// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * _npuprof.c - the C extension of the Python package npuprof: a trace file
 * opened with npuprof.open(path) as a Trace, its reports printed as the
 * npuprof CLI prints them, its tables as pandas DataFrames, and its Chrome
 * and SQLite exports. Written against the CPython and NumPy C APIs over the
 * public API of libnpuprof-analysis (npuprof_analysis.h), linked in
 * statically; and the Session type over the capture library libnpuprof
 * (npuprof.h, linked in too) that npuprof.profile() drives.
 * Documentation/npu/python.rst describes the package.
 *
 * The tables take the first route: npuprof_report() writes the table as
 * JSON Lines into a memory buffer, which is parsed here, in C, into one
 * typed NumPy array per column (int64 or uint64, float64, object holding
 * str), and pandas.DataFrame() is built from those arrays. JSON Lines and
 * not CSV because its quoting tells a string cell from a number (a span
 * id of 16 decimal digits stays a string); the values are those of the
 * CSV, cell for cell, which the tests check. The next step, for the
 * 5 M events/s goal, is to fill the columns from the join directly.
 *
 * Threads: every read of the trace file (the reports, the exports, the
 * table's rendering and the parse of its numbers) runs with the GIL
 * released. A Trace holds one reader, which each report rewinds: calls
 * on the same Trace from several threads take turns on its lock, taken
 * with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npuprof.h"
#include "npuprof_analysis.h"

static PyObject *npp_error;	/* npuprof.Error, a subclass of OSError */

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* Raise npuprof.Error(errno, message, filename); returns NULL */
static PyObject *npp_raise(int err, const char *msg, const char *path)
{
	PyObject *exc;

	if (err < 0)
		err = -err;
	if (!msg || !*msg)
		msg = strerror(err);
	exc = PyObject_CallFunction(npp_error, "isy", err, msg, path);
	if (exc) {
		PyErr_SetObject(npp_error, exc);
		Py_DECREF(exc);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The Trace type                                                       */
/* ------------------------------------------------------------------ */

typedef struct {
	PyObject_HEAD
	struct npuprof_trace *t;
	PyThread_type_lock lock;
	char *path;		/* bytes, the file system's encoding */
	int at_end;		/* the reader reached the end once */
} npp_trace;

static PyTypeObject npp_trace_type;

/*
 * Take the trace's lock, with the GIL released when it must wait; fails
 * with ValueError on a closed trace. The caller holds the GIL.
 */
static int npp_lock(npp_trace *self)
{
	if (!self->lock) {
		PyErr_SetString(PyExc_ValueError, "operation on a closed trace");
		return -1;
	}
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	if (!self->t) {	/* closed while we waited */
		PyThread_release_lock(self->lock);
		PyErr_SetString(PyExc_ValueError, "operation on a closed trace");
		return -1;
	}
	return 0;
}

static void npp_unlock(npp_trace *self)
{
	PyThread_release_lock(self->lock);
}

/* Raise the error @ret of a call on @self's reader; returns NULL */
static PyObject *npp_trace_raise(npp_trace *self, int ret)
{
	return npp_raise(ret, npuprof_trace_error(self->t), self->path);
}

/* npuprof.open(path) */
static PyObject *npp_open(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", NULL };
	struct npuprof_trace *t = NULL;
	PyObject *bytes = NULL;
	npp_trace *self;
	char err[512] = "";
	const char *path;
	int ret;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:open", kwlist,
					 PyUnicode_FSConverter, &bytes))
		return NULL;
	path = PyBytes_AS_STRING(bytes);
	Py_BEGIN_ALLOW_THREADS
	ret = npuprof_trace_open(path, &t, err, sizeof(err));
	Py_END_ALLOW_THREADS
	if (ret) {
		npp_raise(ret, err, path);
		Py_DECREF(bytes);
		return NULL;
	}
	self = PyObject_New(npp_trace, &npp_trace_type);
	if (!self)
		goto fail;
	self->t = t;
	self->at_end = 0;
	self->lock = NULL;
	self->path = strdup(path);
	if (!self->path) {
		Py_DECREF(self);	/* closes t */
		Py_DECREF(bytes);
		return PyErr_NoMemory();
	}
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		Py_DECREF(bytes);
		return PyErr_NoMemory();
	}
	Py_DECREF(bytes);
	return (PyObject *)self;
fail:
	npuprof_trace_close(t);
	Py_DECREF(bytes);
	return NULL;
}

static void npp_trace_dealloc(npp_trace *self)
{
	npuprof_trace_close(self->t);
	if (self->lock)
		PyThread_free_lock(self->lock);
	free(self->path);
	PyObject_Free(self);
}

static PyObject *npp_trace_close(npp_trace *self, PyObject *unused)
{
	struct npuprof_trace *t;

	(void)unused;
	if (!self->lock || !self->t)
		Py_RETURN_NONE;
	if (npp_lock(self))
		return NULL;
	t = self->t;
	self->t = NULL;
	npp_unlock(self);
	npuprof_trace_close(t);
	Py_RETURN_NONE;
}

static PyObject *npp_trace_enter(npp_trace *self, PyObject *unused)
{
	(void)unused;
	if (!self->t) {
		PyErr_SetString(PyExc_ValueError, "operation on a closed trace");
		return NULL;
	}
	Py_INCREF(self);
	return (PyObject *)self;
}

static PyObject *npp_trace_exit(npp_trace *self, PyObject *args)
{
	(void)args;
	return npp_trace_close(self, NULL);
}

static PyObject *npp_trace_repr(npp_trace *self)
{
	return PyUnicode_FromFormat("<npuprof.Trace %s%s>", self->path,
				    self->t ? "" : " (closed)");
}

static PyObject *npp_trace_get_path(npp_trace *self, void *closure)
{
	(void)closure;
	return PyUnicode_DecodeFSDefault(self->path);
}

static PyObject *npp_trace_get_closed(npp_trace *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->t);
}

/* Read to the end once (GIL released) so that truncated can tell */
static PyObject *npp_trace_get_truncated(npp_trace *self, void *closure)
{
	struct npuprof_event ev;
	int ret = 0, tr;

	(void)closure;
	if (npp_lock(self))
		return NULL;
	if (!self->at_end) {
		Py_BEGIN_ALLOW_THREADS
		ret = npuprof_trace_rewind(self->t);
		while (!ret && (ret = npuprof_trace_next(self->t, &ev)) == 1)
			ret = 0;
		Py_END_ALLOW_THREADS
		if (ret) {
			npp_trace_raise(self, ret);
			npp_unlock(self);
			return NULL;
		}
		self->at_end = 1;
	}
	tr = npuprof_trace_truncated(self->t);
	npp_unlock(self);
	return PyBool_FromLong(tr);
}

/* ------------------------------------------------------------------ */
/* Reports into memory                                                  */
/* ------------------------------------------------------------------ */

enum npp_what { NPP_SUMMARY, NPP_REPORT };

struct npp_buf {
	char *data;
	size_t len;
};

/*
 * Run a report of @self into @buf (malloc'd, NUL-terminated), the GIL
 * released. Returns 0, or NULL-returning Python error set and -1.
 */
static int npp_render(npp_trace *self, enum npp_what what, unsigned int table,
		      unsigned int format, struct npp_buf *buf)
{
	struct npuprof_report_opts o;
	FILE *f;
	int ret = 0;

	buf->data = NULL;
	buf->len = 0;
	if (npp_lock(self))
		return -1;
	Py_BEGIN_ALLOW_THREADS
	npuprof_report_opts_init(&o);
	o.format = format;
	o.table = table;
	f = open_memstream(&buf->data, &buf->len);
	if (!f) {
		ret = -errno;
	} else {
		if (what == NPP_SUMMARY)
			ret = npuprof_print_summary(self->t, f, &o);
		else
			ret = npuprof_report(self->t, f, &o);
		if (fclose(f) && !ret)
			ret = -ENOMEM;
	}
	Py_END_ALLOW_THREADS
	if (!ret)
		self->at_end = 1;
	if (ret) {
		npp_trace_raise(self, ret);
		free(buf->data);
		buf->data = NULL;
	}
	npp_unlock(self);
	return ret ? -1 : 0;
}

/* Write @text to @file (a file object), or to sys.stdout when None */
static PyObject *npp_write_text(const struct npp_buf *b, PyObject *file)
{
	PyObject *s, *r;

	if (!file || file == Py_None) {
		file = PySys_GetObject("stdout");	/* borrowed */
		if (!file || file == Py_None) {
			PyErr_SetString(PyExc_RuntimeError, "lost sys.stdout");
			return NULL;
		}
	}
	s = PyUnicode_DecodeUTF8(b->data, (Py_ssize_t)b->len, "replace");
	if (!s)
		return NULL;
	Py_INCREF(file);
	r = PyObject_CallMethod(file, "write", "O", s);
	Py_DECREF(file);
	Py_DECREF(s);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_NONE;
}

static PyObject *npp_print(npp_trace *self, PyObject *args, PyObject *kw,
			   enum npp_what what, unsigned int table,
			   const char *fmt)
{
	static char *kwlist[] = { "file", NULL };
	PyObject *file = Py_None, *r;
	struct npp_buf b;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &file))
		return NULL;
	if (npp_render(self, what, table, NPUPROF_FORMAT_TABLE, &b))
		return NULL;
	r = npp_write_text(&b, file);
	free(b.data);
	return r;
}

#define NPP_PRINT(fn, what, table)					\
static PyObject *npp_##fn(npp_trace *self, PyObject *args, PyObject *kw)\
{									\
	return npp_print(self, args, kw, what, table, "|O:" #fn);	\
}
NPP_PRINT(print_summary, NPP_SUMMARY, 0)
NPP_PRINT(print_inferences, NPP_REPORT, NPUPROF_TABLE_INFERENCES)
NPP_PRINT(print_npu_executions, NPP_REPORT, NPUPROF_TABLE_EXECUTIONS)
NPP_PRINT(print_npu_operators, NPP_REPORT, NPUPROF_TABLE_OPERATORS)
NPP_PRINT(print_external_operators, NPP_REPORT, NPUPROF_TABLE_EXTERNAL)

/* summary(format="table"|"json") -> str */
static PyObject *npp_summary(npp_trace *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "format", NULL };
	const char *fmt = "table";
	unsigned int format;
	struct npp_buf b;
	PyObject *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|s:summary", kwlist, &fmt))
		return NULL;
	if (!strcmp(fmt, "table"))
		format = NPUPROF_FORMAT_TABLE;
	else if (!strcmp(fmt, "json"))
		format = NPUPROF_FORMAT_JSON;
	else
		return PyErr_Format(PyExc_ValueError,
				    "format must be 'table' or 'json', not '%s'",
				    fmt);
	if (npp_render(self, NPP_SUMMARY, 0, format, &b))
		return NULL;
	r = PyUnicode_DecodeUTF8(b.data, (Py_ssize_t)b.len, "replace");
	free(b.data);
	return r;
}

/* ------------------------------------------------------------------ */
/* Exports                                                              */
/* ------------------------------------------------------------------ */

static PyObject *npp_export(npp_trace *self, PyObject *args, PyObject *kw,
			    int sqlite)
{
	static char *kwlist[] = { "path", NULL };
	PyObject *bytes = NULL;
	const char *path;
	int ret = 0, open_failed = 0;
	FILE *f;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
			sqlite ? "O&:export_sqlite" : "O&:export_chrome",
			kwlist, PyUnicode_FSConverter, &bytes))
		return NULL;
	path = PyBytes_AS_STRING(bytes);
	if (npp_lock(self)) {
		Py_DECREF(bytes);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	if (sqlite) {
		ret = npuprof_export_sqlite(self->t, path);
	} else {
		f = fopen(path, "we");
		if (!f) {
			ret = -errno;
			open_failed = 1;
		} else {
			ret = npuprof_export_chrome(self->t, f, NULL);
			if (fclose(f) && !ret)
				ret = -EIO;
			if (ret)
				unlink(path);
		}
	}
	Py_END_ALLOW_THREADS
	if (ret) {
		/* fopen's error is about @path, not the trace */
		if (open_failed)
			npp_raise(ret, NULL, path);
		else
			npp_trace_raise(self, ret);
		npp_unlock(self);
		Py_DECREF(bytes);
		return NULL;
	}
	self->at_end = 1;
	npp_unlock(self);
	Py_DECREF(bytes);
	Py_RETURN_NONE;
}

static PyObject *npp_export_chrome(npp_trace *self, PyObject *args,
				   PyObject *kw)
{
	return npp_export(self, args, kw, 0);
}

static PyObject *npp_export_sqlite(npp_trace *self, PyObject *args,
				   PyObject *kw)
{
	return npp_export(self, args, kw, 1);
}

/* ------------------------------------------------------------------ */
/* Tables: JSON Lines into typed columns                                */
/* ------------------------------------------------------------------ */

enum npp_cell { NPP_NULL, NPP_INT, NPP_FLT, NPP_STR };

/* Column kinds seen in the first pass */
#define NPP_SEEN_INT	1u
#define NPP_SEEN_FLT	2u
#define NPP_SEEN_STR	4u
#define NPP_SEEN_NULL	8u
#define NPP_SEEN_NEG	16u	/* an integer below 0 */
#define NPP_SEEN_BIG	32u	/* an integer above INT64_MAX */

struct npp_col {
	const char *key;	/* raw JSON key text in the buffer */
	size_t key_len;
	unsigned int seen;
	int type;		/* NPY_INT64, _UINT64, _DOUBLE, _OBJECT */
	void *data;		/* the array's data */
	uint8_t *mask;		/* nullable integers: 1 where missing */
	char **str;		/* strings: decoded text, NULL when null */
	size_t *str_len;
};

struct npp_table {
	int learn;		/* npp_line() records the keys */
	char *buf;
	const char *end;
	size_t rows;
	size_t ncols;
	struct npp_col *cols;
};

static const char *npp_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* A JSON string at @p ('"'): sets its raw text; returns past it or NULL */
static const char *npp_jstr(const char *p, const char *end, const char **s,
			    size_t *len)
{
	const char *q;

	if (p >= end || *p != '"')
		return NULL;
	for (q = p + 1; q < end && *q != '"'; q++)
		if (*q == '\\' && ++q >= end)
			return NULL;
	if (q >= end)
		return NULL;
	*s = p + 1;
	*len = (size_t)(q - p - 1);
	return q + 1;
}

/* A value at @p: returns past it or NULL; sets its kind and raw text */
static const char *npp_jval(const char *p, const char *end,
			    enum npp_cell *kind, const char **s, size_t *len)
{
	const char *q;

	if (p < end && *p == '"') {
		*kind = NPP_STR;
		return npp_jstr(p, end, s, len);
	}
	if (end - p >= 4 && !memcmp(p, "null", 4)) {
		*kind = NPP_NULL;
		*s = p;
		*len = 4;
		return p + 4;
	}
	*kind = NPP_INT;
	for (q = p; q < end; q++) {
		if (*q == '.' || *q == 'e' || *q == 'E')
			*kind = NPP_FLT;
		else if (!(*q == '-' || *q == '+' || (*q >= '0' && *q <= '9')))
			break;
	}
	if (q == p)
		return NULL;
	*s = p;
	*len = (size_t)(q - p);
	return q;
}

/* Decode the JSON string text @s of @len bytes in place; returns its length */
static size_t npp_unescape(char *s, size_t len)
{
	size_t i, o = 0;
	unsigned int cp;

	for (i = 0; i < len; i++) {
		if (s[i] != '\\') {
			s[o++] = s[i];
			continue;
		}
		i++;
		switch (s[i]) {
		case 'n': s[o++] = '\n'; break;
		case 't': s[o++] = '\t'; break;
		case 'r': s[o++] = '\r'; break;
		case 'b': s[o++] = '\b'; break;
		case 'f': s[o++] = '\f'; break;
		case 'u':
			if (i + 4 >= len) {
				s[o++] = '?';
				i = len;
				break;
			}
			{
				char hex[5] = { s[i + 1], s[i + 2], s[i + 3],
						s[i + 4], 0 };

				cp = (unsigned int)strtoul(hex, NULL, 16);
			}
			i += 4;
			/* the writer escapes controls and U+FFFD only */
			if (cp < 0x80) {
				s[o++] = (char)cp;
			} else if (cp < 0x800) {
				s[o++] = (char)(0xc0 | cp >> 6);
				s[o++] = (char)(0x80 | (cp & 0x3f));
			} else {
				s[o++] = (char)(0xe0 | cp >> 12);
				s[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				s[o++] = (char)(0x80 | (cp & 0x3f));
			}
			break;
		default:	/* '"', '\\', '/' */
			s[o++] = s[i];
			break;
		}
	}
	return o;
}

/*
 * Walk one line {"k": v, ...} at @p. With @tb->cols NULL, count the keys
 * into @tb->ncols; else check them against the first line's and call
 * @cell(tb, row, col, kind, text, len) for each. Returns past the line's
 * '\n', or NULL when the line is malformed.
 */
typedef int (*npp_cell_fn)(struct npp_table *tb, size_t row, size_t col,
			   enum npp_cell kind, char *s, size_t len);

static char *npp_line(struct npp_table *tb, char *p, size_t row,
		      npp_cell_fn cell)
{
	const char *end = tb->end, *k = NULL, *v = NULL;
	size_t col = 0, klen = 0, vlen = 0;
	enum npp_cell kind;

	p = (char *)npp_ws(p, end);
	if (p >= end || *p++ != '{')
		return NULL;
	p = (char *)npp_ws(p, end);
	while (p < end && *p != '}') {
		if (col) {
			if (*p++ != ',')
				return NULL;
			p = (char *)npp_ws(p, end);
		}
		p = (char *)npp_jstr(p, end, &k, &klen);
		if (!p)
			return NULL;
		p = (char *)npp_ws(p, end);
		if (p >= end || *p++ != ':')
			return NULL;
		p = (char *)npp_ws(p, end);
		p = (char *)npp_jval(p, end, &kind, &v, &vlen);
		if (!p)
			return NULL;
		p = (char *)npp_ws(p, end);
		if (tb->cols && tb->learn) {
			if (col >= tb->ncols)
				return NULL;
			tb->cols[col].key = k;
			tb->cols[col].key_len = klen;
		} else if (tb->cols) {
			if (col >= tb->ncols || klen != tb->cols[col].key_len ||
			    memcmp(k, tb->cols[col].key, klen))
				return NULL;
			if (cell(tb, row, col, kind, (char *)v, vlen))
				return NULL;
		}
		col++;
	}
	if (p >= end || *p++ != '}')
		return NULL;
	if (tb->cols && col != tb->ncols)
		return NULL;
	if (!tb->cols)
		tb->ncols = col;
	p = (char *)npp_ws(p, end);
	if (p < end && *p++ != '\n')
		return NULL;
	return p;
}

static int npp_cell_keys(struct npp_table *tb, size_t row, size_t col,
			 enum npp_cell kind, char *s, size_t len)
{
	(void)tb, (void)row, (void)col, (void)kind, (void)s, (void)len;
	return 0;
}

/* First pass: what each column holds */
static int npp_cell_scan(struct npp_table *tb, size_t row, size_t col,
			 enum npp_cell kind, char *s, size_t len)
{
	struct npp_col *c = &tb->cols[col];

	(void)row;
	switch (kind) {
	case NPP_NULL:
		c->seen |= NPP_SEEN_NULL;
		break;
	case NPP_STR:
		c->seen |= NPP_SEEN_STR;
		break;
	case NPP_FLT:
		c->seen |= NPP_SEEN_FLT;
		break;
	case NPP_INT:
		c->seen |= NPP_SEEN_INT;
		if (*s == '-')
			c->seen |= NPP_SEEN_NEG;
		else if (len >= 19 && (len > 19 || memcmp(s, "9223372036854775807", 19) > 0))
			c->seen |= NPP_SEEN_BIG;
		break;
	}
	return 0;
}

/* Second pass: the values into the columns */
static int npp_cell_fill(struct npp_table *tb, size_t row, size_t col,
			 enum npp_cell kind, char *s, size_t len)
{
	struct npp_col *c = &tb->cols[col];
	char num[64], *e;

	if (kind == NPP_NULL) {
		switch (c->type) {
		case NPY_DOUBLE:
			((double *)c->data)[row] = NAN;
			break;
		case NPY_OBJECT:
			c->str[row] = NULL;
			break;
		default:
			((int64_t *)c->data)[row] = 0;
			c->mask[row] = 1;
			break;
		}
		return 0;
	}
	if (c->type == NPY_OBJECT) {
		if (kind != NPP_STR)
			return -1;
		c->str[row] = s;
		c->str_len[row] = npp_unescape(s, len);
		return 0;
	}
	if (kind == NPP_STR || len >= sizeof(num))
		return -1;
	memcpy(num, s, len);
	num[len] = 0;
	errno = 0;
	switch (c->type) {
	case NPY_DOUBLE:
		((double *)c->data)[row] = strtod(num, &e);
		break;
	case NPY_UINT64:
		((uint64_t *)c->data)[row] = strtoull(num, &e, 10);
		break;
	default:
		((int64_t *)c->data)[row] = strtoll(num, &e, 10);
		break;
	}
	if (*e || errno)
		return -1;
	if (c->mask)
		c->mask[row] = 0;
	return 0;
}

/* Walk every line with @cell; returns the rows, or -1 when malformed */
static ssize_t npp_walk(struct npp_table *tb, npp_cell_fn cell)
{
	char *p = tb->buf;
	size_t row = 0;

	while (npp_ws(p, tb->end) < tb->end) {
		p = npp_line(tb, p, row, cell);
		if (!p)
			return -1;
		row++;
	}
	return (ssize_t)row;
}

/* The column names of an empty table, from its CSV header line */
static PyObject *npp_csv_header(const char *s)
{
	PyObject *names = PyList_New(0), *n;
	char *field = malloc(strlen(s) + 1);
	size_t o;
	int q;

	if (!names || !field) {
		Py_XDECREF(names);
		free(field);
		return PyErr_NoMemory();
	}
	while (*s && *s != '\r' && *s != '\n') {
		o = 0;
		q = *s == '"';
		if (q)
			s++;
		for (; *s; s++) {
			if (q && *s == '"' && s[1] == '"') {
				field[o++] = '"';
				s++;
			} else if (q && *s == '"') {
				q = 0;
			} else if (!q && (*s == ',' || *s == '\r' || *s == '\n')) {
				break;
			} else {
				field[o++] = *s;
			}
		}
		n = PyUnicode_DecodeUTF8(field, (Py_ssize_t)o, "replace");
		if (!n || PyList_Append(names, n)) {
			Py_XDECREF(n);
			Py_DECREF(names);
			free(field);
			return NULL;
		}
		Py_DECREF(n);
		if (*s == ',')
			s++;
	}
	free(field);
	return names;
}

static void npp_table_free(struct npp_table *tb)
{
	size_t i;

	if (tb->cols)
		for (i = 0; i < tb->ncols; i++) {
			free(tb->cols[i].str);
			free(tb->cols[i].str_len);
		}
	free(tb->cols);
	free(tb->buf);
}

/* pandas.DataFrame from @names and @arrays (both lists), columns in order */
static PyObject *npp_frame(PyObject *names, PyObject *arrays)
{
	PyObject *pd = NULL, *dict = NULL, *df = NULL, *key, *cols = NULL;
	Py_ssize_t i;

	pd = PyImport_ImportModule("pandas");
	if (!pd)
		return NULL;
	dict = PyDict_New();
	if (!dict)
		goto out;
	/* integer keys: a DataFrame keeps every column even if names repeat */
	for (i = 0; i < PyList_GET_SIZE(arrays); i++) {
		key = PyLong_FromSsize_t(i);
		if (!key || PyDict_SetItem(dict, key, PyList_GET_ITEM(arrays, i))) {
			Py_XDECREF(key);
			goto out;
		}
		Py_DECREF(key);
	}
	df = PyObject_CallMethod(pd, "DataFrame", "O", dict);
	if (!df)
		goto out;
	cols = PyObject_CallMethod(pd, "Index", "O", names);
	if (!cols || PyObject_SetAttrString(df, "columns", cols))
		Py_CLEAR(df);
out:
	Py_XDECREF(cols);
	Py_XDECREF(dict);
	Py_XDECREF(pd);
	return df;
}

/* A nullable integer column: pandas.arrays.IntegerArray(values, mask) */
static PyObject *npp_nullable(PyObject *values, PyObject *mask)
{
	PyObject *mod, *r;

	mod = PyImport_ImportModule("pandas.arrays");
	if (!mod)
		return NULL;
	r = PyObject_CallMethod(mod, "IntegerArray", "OO", values, mask);
	Py_DECREF(mod);
	return r;
}

static PyObject *npp_table_frame(npp_trace *self, unsigned int table)
{
	struct npp_table tb = { 0 };
	struct npp_buf b;
	PyObject *names = NULL, *arrays = NULL, *df = NULL, *a, *m, *s;
	npy_intp dims[1];
	ssize_t rows = 0;
	size_t i, r;
	int bad = 0, type;

	if (npp_render(self, NPP_REPORT, table, NPUPROF_FORMAT_JSONL, &b))
		return NULL;
	tb.buf = b.data;
	tb.end = b.data + b.len;

	/* the keys of the first line, then what each column holds */
	Py_BEGIN_ALLOW_THREADS
	if (npp_ws(tb.buf, tb.end) < tb.end) {
		if (!npp_line(&tb, tb.buf, 0, npp_cell_keys))
			bad = 1;
		else if (!(tb.cols = calloc(tb.ncols ? tb.ncols : 1,
					    sizeof(*tb.cols))))
			bad = 2;
	}
	if (!bad && tb.cols) {
		tb.learn = 1;
		if (!npp_line(&tb, tb.buf, 0, npp_cell_keys))
			bad = 1;
		tb.learn = 0;
	}
	if (!bad && tb.cols) {
		rows = npp_walk(&tb, npp_cell_scan);
		if (rows < 0)
			bad = 1;
	}
	Py_END_ALLOW_THREADS
	if (bad) {
		npp_table_free(&tb);
		if (bad == 2)
			return PyErr_NoMemory();
		return npp_raise(EBADMSG, "npuprof: malformed table output",
				 self->path);
	}

	if (!tb.cols) {
		/* no row: the names from the CSV header, empty columns */
		free(tb.buf);
		tb.buf = NULL;
		if (npp_render(self, NPP_REPORT, table, NPUPROF_FORMAT_CSV, &b))
			return NULL;
		names = npp_csv_header(b.data ? b.data : "");
		free(b.data);
		if (!names)
			return NULL;
		arrays = PyList_New(0);
		dims[0] = 0;
		for (i = 0; arrays && i < (size_t)PyList_GET_SIZE(names); i++) {
			a = PyArray_SimpleNew(1, dims, NPY_OBJECT);
			if (!a || PyList_Append(arrays, a))
				Py_CLEAR(arrays);
			Py_XDECREF(a);
		}
		goto frame;
	}

	names = PyList_New((Py_ssize_t)tb.ncols);
	arrays = PyList_New((Py_ssize_t)tb.ncols);
	if (!names || !arrays)
		goto out;
	dims[0] = (npy_intp)rows;
	for (i = 0; i < tb.ncols; i++) {
		struct npp_col *c = &tb.cols[i];
		char *key = malloc(c->key_len + 1);

		if (!key) {
			PyErr_NoMemory();
			goto out;
		}
		memcpy(key, c->key, c->key_len);
		s = PyUnicode_DecodeUTF8(key, (Py_ssize_t)npp_unescape(key, c->key_len),
					 "replace");
		free(key);
		if (!s)
			goto out;
		PyList_SET_ITEM(names, (Py_ssize_t)i, s);

		if (c->seen & NPP_SEEN_STR) {
			if (c->seen & (NPP_SEEN_INT | NPP_SEEN_FLT)) {
				npp_raise(EBADMSG, "npuprof: a column of strings and numbers",
					  self->path);
				goto out;
			}
			type = NPY_OBJECT;
		} else if (c->seen & NPP_SEEN_FLT) {
			type = NPY_DOUBLE;
		} else if (c->seen & NPP_SEEN_INT) {
			type = (c->seen & NPP_SEEN_BIG) ? NPY_UINT64 : NPY_INT64;
			if ((c->seen & NPP_SEEN_BIG) && (c->seen & NPP_SEEN_NEG))
				type = NPY_DOUBLE;
		} else {
			type = NPY_OBJECT;	/* every cell empty */
		}
		c->type = type;
		a = PyArray_SimpleNew(1, dims, type);
		if (!a)
			goto out;
		PyList_SET_ITEM(arrays, (Py_ssize_t)i, a);
		c->data = PyArray_DATA((PyArrayObject *)a);
		if (type == NPY_OBJECT) {
			c->str = calloc(rows ? (size_t)rows : 1, sizeof(*c->str));
			c->str_len = calloc(rows ? (size_t)rows : 1,
					    sizeof(*c->str_len));
			if (!c->str || !c->str_len) {
				PyErr_NoMemory();
				goto out;
			}
			/* None until filled, so that an error leaves it valid */
			for (r = 0; r < (size_t)rows; r++) {
				Py_INCREF(Py_None);
				((PyObject **)c->data)[r] = Py_None;
			}
		}
	}
	/* the nullable integer columns get their masks */
	for (i = 0; i < tb.ncols; i++) {
		struct npp_col *c = &tb.cols[i];

		if ((c->type == NPY_INT64 || c->type == NPY_UINT64) &&
		    (c->seen & NPP_SEEN_NULL)) {
			m = PyArray_ZEROS(1, dims, NPY_BOOL, 0);
			if (!m)
				goto out;
			c->mask = PyArray_DATA((PyArrayObject *)m);
			a = npp_nullable(PyList_GET_ITEM(arrays, (Py_ssize_t)i), m);
			Py_DECREF(m);	/* the IntegerArray holds it */
			if (!a)
				goto out;
			PyList_SetItem(arrays, (Py_ssize_t)i, a);
		}
	}

	/* the numbers, without the GIL */
	Py_BEGIN_ALLOW_THREADS
	if (npp_walk(&tb, npp_cell_fill) != rows)
		bad = 1;
	Py_END_ALLOW_THREADS
	if (bad) {
		npp_raise(EBADMSG, "npuprof: malformed value in table output",
			  self->path);
		goto out;
	}
	/* the strings */
	for (i = 0; i < tb.ncols; i++) {
		struct npp_col *c = &tb.cols[i];
		PyObject **o = c->data;

		if (c->type != NPY_OBJECT)
			continue;
		for (r = 0; r < (size_t)rows; r++) {
			if (!c->str[r])
				continue;
			s = PyUnicode_DecodeUTF8(c->str[r], (Py_ssize_t)c->str_len[r],
						 "replace");
			if (!s)
				goto out;
			Py_SETREF(o[r], s);
		}
	}
frame:
	if (names && arrays)
		df = npp_frame(names, arrays);
out:
	Py_XDECREF(names);
	Py_XDECREF(arrays);
	npp_table_free(&tb);
	return df;
}

/* table(name) -> DataFrame */
static PyObject *npp_table(npp_trace *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", NULL };
	const char *name;
	unsigned int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s:table", kwlist, &name))
		return NULL;
	for (i = NPUPROF_TABLE_INFERENCES; npuprof_table_name(i); i++)
		if (!strcmp(name, npuprof_table_name(i)))
			return npp_table_frame(self, i);
	return PyErr_Format(PyExc_ValueError,
			    "unknown table '%s': inferences, executions, operators, external, spans or op_records",
			    name);
}

#define NPP_GETTER(fn, table)						\
static PyObject *npp_##fn(npp_trace *self, PyObject *unused)		\
{									\
	(void)unused;							\
	return npp_table_frame(self, table);				\
}
NPP_GETTER(inferences, NPUPROF_TABLE_INFERENCES)
NPP_GETTER(npu_executions, NPUPROF_TABLE_EXECUTIONS)
NPP_GETTER(npu_operators, NPUPROF_TABLE_OPERATORS)
NPP_GETTER(external_operators, NPUPROF_TABLE_EXTERNAL)
NPP_GETTER(spans, NPUPROF_TABLE_SPANS)
NPP_GETTER(npu_operator_records, NPUPROF_TABLE_OP_RECORDS)

/* ------------------------------------------------------------------ */
/* Type and module                                                      */
/* ------------------------------------------------------------------ */

#define NPP_KW(fn, doc) \
	{ #fn, (PyCFunction)(void (*)(void))npp_##fn, METH_VARARGS | METH_KEYWORDS, doc }
#define NPP_NOARG(fn, doc) \
	{ #fn, (PyCFunction)(void (*)(void))npp_##fn, METH_NOARGS, doc }

/*
 * Trace.get_pandas_dataframe(): every span in the reference profiler's
 * columns. Built by npuprof._reference_frame() (__init__.py) from the
 * spans table with column operations of pandas, no Python loop.
 */
static PyObject *npp_get_pandas_dataframe(npp_trace *self, PyObject *unused)
{
	PyObject *mod, *r;

	(void)unused;
	mod = PyImport_ImportModule("npuprof");
	if (!mod)
		return NULL;
	r = PyObject_CallMethod(mod, "_reference_frame", "O", (PyObject *)self);
	Py_DECREF(mod);
	return r;
}

static PyMethodDef npp_trace_methods[] = {
	NPP_KW(print_summary, "print_summary(file=None)\n--\n\n"
	       "Print the summary of `npuprof summary` to file (sys.stdout)."),
	NPP_KW(print_inferences, "print_inferences(file=None)\n--\n\n"
	       "Print the table of `npuprof report --inferences`."),
	NPP_KW(print_npu_executions, "print_npu_executions(file=None)\n--\n\n"
	       "Print the table of `npuprof report --executions`."),
	NPP_KW(print_npu_operators, "print_npu_operators(file=None)\n--\n\n"
	       "Print the table of `npuprof report --operators`."),
	NPP_KW(print_external_operators,
	       "print_external_operators(file=None)\n--\n\n"
	       "Print the table of `npuprof report --external`."),
	NPP_KW(summary, "summary(format='table')\n--\n\n"
	       "The summary as a str: 'table' (as printed) or 'json'."),
	NPP_NOARG(inferences, "inferences()\n--\n\n"
		  "DataFrame of the inferences (the CSV of report --inferences)."),
	NPP_NOARG(npu_executions, "npu_executions()\n--\n\n"
		  "DataFrame of the NPU executions (report --executions)."),
	NPP_NOARG(npu_operators, "npu_operators()\n--\n\n"
		  "DataFrame of the NPU operators by opcode (report --operators)."),
	NPP_NOARG(external_operators, "external_operators()\n--\n\n"
		  "DataFrame of the CPU operators (report --external)."),
	NPP_NOARG(spans, "spans()\n--\n\n"
		  "DataFrame of every host span (report --spans)."),
	NPP_NOARG(npu_operator_records, "npu_operator_records()\n--\n\n"
		  "DataFrame of every NPU operator record (report --op-records)."),
	NPP_NOARG(get_pandas_dataframe, "get_pandas_dataframe()\n--\n\n"
		  "DataFrame of every span with the reference profiler's columns\n"
		  "(trace_id, span_id, parent_span_id, name, thread.id, dur, ...)."),
	NPP_KW(table, "table(name)\n--\n\n"
	       "DataFrame of a table by name: inferences, executions, operators,\n"
	       "external, spans or op_records."),
	NPP_KW(export_chrome, "export_chrome(path)\n--\n\n"
	       "Write the merged timeline as Chrome Trace Event JSON."),
	NPP_KW(export_sqlite, "export_sqlite(path)\n--\n\n"
	       "Write every table into a new SQLite database."),
	{ "close", (PyCFunction)npp_trace_close, METH_NOARGS,
	  "close()\n--\n\nClose the reader; idempotent." },
	{ "__enter__", (PyCFunction)npp_trace_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)npp_trace_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef npp_trace_getset[] = {
	{ "path", (getter)npp_trace_get_path, NULL, "the trace file", NULL },
	{ "closed", (getter)npp_trace_get_closed, NULL, "whether closed", NULL },
	{ "truncated", (getter)npp_trace_get_truncated, NULL,
	  "whether the file ends before its trailer (a killed writer)", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject npp_trace_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "npuprof.Trace",
	.tp_basicsize = sizeof(npp_trace),
	.tp_dealloc = (destructor)npp_trace_dealloc,
	.tp_repr = (reprfunc)npp_trace_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A .npuprof trace file opened with npuprof.open(path).",
	.tp_methods = npp_trace_methods,
	.tp_getset = npp_trace_getset,
};

/* ------------------------------------------------------------------ */
/* Capture: the Session type over libnpuprof                            */
/* ------------------------------------------------------------------ */

/*
 * A libnpuprof session (npuprof.h), created by _npuprof.session(output,
 * level): npuprof.profile() and npuprof.start() (__init__.py) drive it.
 * Creating, starting and stopping it run with the GIL released, under
 * the session's lock, so that two threads never use the handle at once;
 * close() frees it (stopping it first if needed), as dealloc does.
 */
typedef struct {
	PyObject_HEAD
	struct npuprof_session *s;
	PyThread_type_lock lock;
	char *path;
	char msg[256];		/* the library's last error message */
} npp_session;

static PyTypeObject npp_session_type;

/* npuprof_opts.log: keep the last error for the exception's message */
static void npp_session_log(void *ctx, int level, const char *msg)
{
	npp_session *self = ctx;

	if (level == NPUPROF_LOG_ERROR)
		snprintf(self->msg, sizeof(self->msg), "%s", msg);
}

static int npp_sess_lock(npp_session *self)
{
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	if (!self->s) {
		PyThread_release_lock(self->lock);
		PyErr_SetString(PyExc_ValueError, "operation on a closed session");
		return -1;
	}
	return 0;
}

static PyObject *npp_sess_raise(npp_session *self, int ret)
{
	PyObject *r = npp_raise(ret, self->msg[0] ? self->msg : NULL, self->path);

	self->msg[0] = '\0';
	return r;
}

/* Whether a /dev/npuN node exists (else the session records host spans) */
static int npp_have_device(void)
{
	glob_t g;
	int n;

	if (glob("/dev/npu[0-9]*", GLOB_NOSORT, NULL, &g))
		return 0;
	n = g.gl_pathc > 0;
	globfree(&g);
	return n;
}

/* _npuprof.session(output, level=2): a created, not yet started, Session */
static PyObject *npp_session_new(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "output", "level", NULL };
	static const char *const no_devices[] = { NULL };
	struct npuprof_opts o;
	PyObject *bytes = NULL;
	npp_session *self;
	int level = NPUPROF_DEFAULT_LEVEL, ret;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|i:session", kwlist,
					 PyUnicode_FSConverter, &bytes, &level))
		return NULL;
	if (level < 0 || level > 2) {
		Py_DECREF(bytes);
		PyErr_Format(PyExc_ValueError,
			     "level must be 0, 1 or 2, not %d", level);
		return NULL;
	}
	self = PyObject_New(npp_session, &npp_session_type);
	if (!self) {
		Py_DECREF(bytes);
		return NULL;
	}
	self->s = NULL;
	self->msg[0] = '\0';
	self->lock = PyThread_allocate_lock();
	self->path = strdup(PyBytes_AS_STRING(bytes));
	Py_DECREF(bytes);
	if (!self->lock || !self->path) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	npuprof_opts_init(&o);
	o.output = self->path;
	o.level = level;
	o.log = npp_session_log;
	o.log_ctx = self;
	o.log_level = NPUPROF_LOG_ERROR;
	Py_BEGIN_ALLOW_THREADS
	/* with no device, host spans and labelled regions only */
	if (!npp_have_device())
		o.devices = no_devices;
	ret = npuprof_session_create(&o, &self->s);
	Py_END_ALLOW_THREADS
	if (ret) {
		self->s = NULL;
		npp_sess_raise(self, ret);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

static void npp_session_dealloc(npp_session *self)
{
	if (self->s) {
		Py_BEGIN_ALLOW_THREADS
		npuprof_session_free(self->s);
		Py_END_ALLOW_THREADS
	}
	if (self->lock)
		PyThread_free_lock(self->lock);
	free(self->path);
	PyObject_Free(self);
}

enum npp_sess_op { NPP_START, NPP_PAUSE, NPP_RESUME, NPP_STOP };

static PyObject *npp_session_op(npp_session *self, enum npp_sess_op op)
{
	int ret = 0;

	if (npp_sess_lock(self))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	switch (op) {
	case NPP_START:
		ret = npuprof_session_start(self->s);
		break;
	case NPP_PAUSE:
		ret = npuprof_session_pause(self->s);
		break;
	case NPP_RESUME:
		ret = npuprof_session_resume(self->s);
		break;
	case NPP_STOP:
		ret = npuprof_session_stop(self->s);
		break;
	}
	Py_END_ALLOW_THREADS
	PyThread_release_lock(self->lock);
	if (ret)
		return npp_sess_raise(self, ret);
	Py_RETURN_NONE;
}

#define NPP_SESS_OP(fn, op)						\
static PyObject *npp_session_##fn(npp_session *self, PyObject *unused)	\
{									\
	(void)unused;							\
	return npp_session_op(self, op);				\
}
NPP_SESS_OP(start, NPP_START)
NPP_SESS_OP(pause, NPP_PAUSE)
NPP_SESS_OP(resume, NPP_RESUME)
NPP_SESS_OP(stop, NPP_STOP)

static PyObject *npp_session_close(npp_session *self, PyObject *unused)
{
	struct npuprof_session *s;

	(void)unused;
	if (!self->s)
		Py_RETURN_NONE;
	if (npp_sess_lock(self)) {
		PyErr_Clear();	/* closed while we waited */
		Py_RETURN_NONE;
	}
	s = self->s;
	self->s = NULL;
	PyThread_release_lock(self->lock);
	Py_BEGIN_ALLOW_THREADS
	npuprof_session_free(s);
	Py_END_ALLOW_THREADS
	Py_RETURN_NONE;
}

/* Session.stats(): the counters of npuprof_session_stats() as a dict */
static PyObject *npp_session_stats(npp_session *self, PyObject *unused)
{
	struct npuprof_stats st = { .sz = sizeof(st) };
	int ret;

	(void)unused;
	if (npp_sess_lock(self))
		return NULL;
	ret = npuprof_session_stats(self->s, &st);
	PyThread_release_lock(self->lock);
	if (ret)
		return npp_sess_raise(self, ret);
	return Py_BuildValue("{sKsKsKsKsKsK}",
			     "spans", (unsigned long long)st.spans,
			     "spans_lost", (unsigned long long)st.spans_lost,
			     "records", (unsigned long long)st.records,
			     "exec_records", (unsigned long long)st.exec_records,
			     "op_records", (unsigned long long)st.op_records,
			     "bytes_written",
			     (unsigned long long)st.bytes_written);
}

static PyObject *npp_session_get_output(npp_session *self, void *closure)
{
	(void)closure;
	return PyUnicode_DecodeFSDefault(self->path);
}

static PyObject *npp_session_get_closed(npp_session *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->s);
}

static PyMethodDef npp_session_methods[] = {
	{ "start", (PyCFunction)npp_session_start, METH_NOARGS,
	  "start()\n--\n\nnpuprof_session_start(): capture from now on." },
	{ "pause", (PyCFunction)npp_session_pause, METH_NOARGS,
	  "pause()\n--\n\nnpuprof_session_pause()." },
	{ "resume", (PyCFunction)npp_session_resume, METH_NOARGS,
	  "resume()\n--\n\nnpuprof_session_resume()." },
	{ "stop", (PyCFunction)npp_session_stop, METH_NOARGS,
	  "stop()\n--\n\nnpuprof_session_stop(): complete the file." },
	{ "close", (PyCFunction)npp_session_close, METH_NOARGS,
	  "close()\n--\n\nnpuprof_session_free(); idempotent." },
	{ "stats", (PyCFunction)npp_session_stats, METH_NOARGS,
	  "stats()\n--\n\nThe counters of npuprof_session_stats()." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef npp_session_getset[] = {
	{ "output", (getter)npp_session_get_output, NULL, "the trace file",
	  NULL },
	{ "closed", (getter)npp_session_get_closed, NULL, "whether closed",
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject npp_session_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "npuprof._npuprof.Session",
	.tp_basicsize = sizeof(npp_session),
	.tp_dealloc = (destructor)npp_session_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A libnpuprof capture session (npuprof.profile() uses it).",
	.tp_methods = npp_session_methods,
	.tp_getset = npp_session_getset,
};

/* _npuprof.region_begin(label): npuprof_region_begin() on this thread */
static PyObject *npp_region_begin(PyObject *mod, PyObject *args)
{
	const char *label;
	int ret;

	(void)mod;
	if (!PyArg_ParseTuple(args, "s:region_begin", &label))
		return NULL;
	ret = npuprof_region_begin(label);
	if (ret)
		return npp_raise(ret, ret == -E2BIG ?
				 "32 labelled regions are open on this thread" :
				 NULL, NULL);
	Py_RETURN_NONE;
}

/* _npuprof.region_end(): npuprof_region_end() on this thread */
static PyObject *npp_region_end(PyObject *mod, PyObject *unused)
{
	int ret;

	(void)mod;
	(void)unused;
	ret = npuprof_region_end();
	if (ret)
		return npp_raise(ret, "no labelled region is open on this thread",
				 NULL);
	Py_RETURN_NONE;
}

static PyMethodDef npp_methods[] = {
	{ "open", (PyCFunction)(void (*)(void))npp_open,
	  METH_VARARGS | METH_KEYWORDS,
	  "open(path)\n--\n\nOpen a .npuprof trace file: a Trace." },
	{ "session", (PyCFunction)(void (*)(void))npp_session_new,
	  METH_VARARGS | METH_KEYWORDS,
	  "session(output, level=2)\n--\n\n"
	  "Create a libnpuprof session writing output (not started)." },
	{ "region_begin", (PyCFunction)npp_region_begin, METH_VARARGS,
	  "region_begin(label)\n--\n\nnpuprof_region_begin() on this thread." },
	{ "region_end", (PyCFunction)npp_region_end, METH_NOARGS,
	  "region_end()\n--\n\nnpuprof_region_end() on this thread." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef npp_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "npuprof._npuprof",
	.m_doc = "C extension of npuprof over libnpuprof-analysis.",
	.m_size = -1,
	.m_methods = npp_methods,
};

PyMODINIT_FUNC PyInit__npuprof(void);

PyMODINIT_FUNC PyInit__npuprof(void)
{
	PyObject *m;

	import_array();
	if (PyType_Ready(&npp_trace_type) < 0 ||
	    PyType_Ready(&npp_session_type) < 0)
		return NULL;
	m = PyModule_Create(&npp_module);
	if (!m)
		return NULL;
	npp_error = PyErr_NewExceptionWithDoc("npuprof.Error",
		"An error of the trace library: errno, strerror (the library's\n"
		"message, naming the file offset) and filename.",
		PyExc_OSError, NULL);
	if (!npp_error || PyModule_AddObjectRef(m, "Error", npp_error) ||
	    PyModule_AddObjectRef(m, "Trace", (PyObject *)&npp_trace_type) ||
	    PyModule_AddObjectRef(m, "Session",
				  (PyObject *)&npp_session_type)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
