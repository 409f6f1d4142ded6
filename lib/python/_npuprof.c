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
 * The tables come from the library's row sink (NPUPROF_FORMAT_ROWS): the
 * typed cells of each row go straight into growing columns (frame.c),
 * which become NumPy arrays without a copy and then a DataFrame; no text
 * is made or parsed between, and only the columns asked for are kept.
 *
 * Threads: every read of the trace file (the reports, the exports, the
 * table's rendering and the parse of its numbers) runs with the GIL
 * released. A Trace holds one reader, which each report rewinds: calls
 * on the same Trace from several threads take turns on its lock, taken
 * with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define PY_ARRAY_UNIQUE_SYMBOL npp_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "frame.h"
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

/*
 * Read to the end once (GIL released) so that truncated and damage can
 * tell; 0 with the lock held, or -1 with an exception set and the lock
 * released
 */
static int npp_read_to_end(npp_trace *self)
{
	struct npuprof_event ev;
	int ret = 0;

	if (npp_lock(self))
		return -1;
	if (!self->at_end) {
		Py_BEGIN_ALLOW_THREADS
		ret = npuprof_trace_rewind(self->t);
		while (!ret && (ret = npuprof_trace_next(self->t, &ev)) == 1)
			ret = 0;
		Py_END_ALLOW_THREADS
		if (ret) {
			npp_trace_raise(self, ret);
			npp_unlock(self);
			return -1;
		}
		self->at_end = 1;
	}
	return 0;
}

static PyObject *npp_trace_get_truncated(npp_trace *self, void *closure)
{
	int tr;

	(void)closure;
	if (npp_read_to_end(self))
		return NULL;
	tr = npuprof_trace_truncated(self->t);
	npp_unlock(self);
	return PyBool_FromLong(tr);
}

/* npuprof_trace_damage() as a dict, the file read to the end once */
static PyObject *npp_trace_get_damage(npp_trace *self, void *closure)
{
	struct npuprof_damage d;
	const char *why;

	(void)closure;
	if (npp_read_to_end(self))
		return NULL;
	npuprof_trace_damage(self->t, &d, &why);
	npp_unlock(self);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:s}",
			     "stretches", (unsigned long long)d.stretches,
			     "chunks", (unsigned long long)d.chunks,
			     "bytes", (unsigned long long)d.bytes,
			     "items", (unsigned long long)d.items,
			     "items_unknown", (unsigned long long)d.items_unknown,
			     "first_offset", (unsigned long long)d.first_offset,
			     "last_offset", (unsigned long long)d.last_offset,
			     "why", why);
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
/* Tables: typed rows into columns (frame.c)                            */
/* ------------------------------------------------------------------ */

/*
 * @seq (a list or tuple of str, or None) as a NULL-terminated array of
 * UTF-8 names into *@out (NULL for None), which borrow from *@keep (a
 * new reference, or NULL). Returns 0, or -1 with TypeError set.
 */
static int npp_names(PyObject *seq, const char ***out, PyObject **keep,
		     const char *what)
{
	PyObject *fast;
	Py_ssize_t n, i;
	const char **v;

	*out = NULL;
	*keep = NULL;
	if (!seq || seq == Py_None)
		return 0;
	if (PyUnicode_Check(seq)) {
		PyErr_Format(PyExc_TypeError, "%s: a list of str, not a str",
			     what);
		return -1;
	}
	fast = PySequence_Fast(seq, "a list of str");
	if (!fast)
		return -1;
	n = PySequence_Fast_GET_SIZE(fast);
	v = PyMem_Calloc((size_t)n + 1, sizeof(*v));
	if (!v) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(fast, i);

		if (!PyUnicode_Check(o) || !(v[i] = PyUnicode_AsUTF8(o))) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_TypeError,
					     "%s: a list of str, not %.80s",
					     what, Py_TYPE(o)->tp_name);
			PyMem_Free(v);
			Py_DECREF(fast);
			return -1;
		}
	}
	*out = v;
	*keep = fast;
	return 0;
}

static void npp_names_free(const char **v, PyObject *keep)
{
	PyMem_Free(v);
	Py_XDECREF(keep);
}

/* What fills a set of tables */
enum npp_run { NPP_RUN_REPORT, NPP_RUN_ANALYZE, NPP_RUN_BREAKDOWN,
	       NPP_RUN_MEMORY };

struct npp_fill {
	enum npp_run run;
	unsigned int table, tables;		/* NPP_RUN_REPORT, _MEMORY */
	struct npuprof_analyze_opts an;		/* NPP_RUN_ANALYZE */
};

/*
 * One pass over @self's trace into @f, the GIL released. Returns 0, or -1
 * with the exception set.
 */
static int npp_fill(npp_trace *self, struct npp_frames *f,
		    struct npp_fill *how)
{
	struct npuprof_report_opts o;
	int ret;

	if (npp_lock(self))
		return -1;
	Py_BEGIN_ALLOW_THREADS
	npuprof_report_opts_init(&o);
	o.format = NPUPROF_FORMAT_ROWS;
	o.sink = npp_frames_sink(f);
	switch (how->run) {
	case NPP_RUN_REPORT:
		o.table = how->table;
		o.tables = how->tables;
		ret = npuprof_report(self->t, NULL, &o);
		break;
	case NPP_RUN_ANALYZE:
		how->an.format = NPUPROF_FORMAT_ROWS;
		how->an.sink = o.sink;
		ret = npuprof_analyze(self->t, NULL, &how->an);
		break;
	case NPP_RUN_MEMORY:
		ret = npuprof_memory(self->t, NULL, NPUPROF_MEMORY_OPTS(
			.format = NPUPROF_FORMAT_ROWS, .sink = o.sink,
			.tables = how->tables));
		break;
	default:
		ret = npuprof_print_breakdown(self->t, NULL, &o);
		break;
	}
	Py_END_ALLOW_THREADS
	if (!ret)
		self->at_end = 1;
	if (ret == -ENOMEM && npp_frames_error(f) == -ENOMEM)
		PyErr_NoMemory();
	else if (ret == -EINVAL && how->run == NPP_RUN_ANALYZE)
		PyErr_SetString(PyExc_ValueError,
				"analyze(): a bad option (aggregate, order_by or types)");
	else if (ret)
		npp_trace_raise(self, ret);
	npp_unlock(self);
	return ret ? -1 : 0;
}

/* The DataFrame of one table (enum npuprof_table, 0: analyze ...) */
static PyObject *npp_table_frame(npp_trace *self, struct npp_fill *how,
				 PyObject *columns)
{
	struct npp_frames *f;
	const char **want;
	PyObject *keep, *df = NULL;

	if (npp_names(columns, &want, &keep, "columns"))
		return NULL;
	f = npp_frames_new(want);
	npp_names_free(want, keep);
	if (!f)
		return NULL;
	if (!npp_fill(self, f, how))
		df = npp_frames_table(f, how->run == NPP_RUN_REPORT ||
					 how->run == NPP_RUN_MEMORY ?
					 how->table : 0);
	npp_frames_free(f);
	return df;
}

/* table(name, columns=None) -> DataFrame */
static PyObject *npp_table(npp_trace *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", "columns", NULL };
	struct npp_fill how = { .run = NPP_RUN_REPORT };
	PyObject *columns = NULL;
	const char *name;
	unsigned int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|O:table", kwlist, &name,
					 &columns))
		return NULL;
	for (i = NPUPROF_TABLE_INFERENCES; npuprof_table_name(i); i++)
		if (!strcmp(name, npuprof_table_name(i))) {
			how.table = i;
			return npp_table_frame(self, &how, columns);
		}
	return PyErr_Format(PyExc_ValueError,
			    "unknown table '%s': inferences, executions, operators, external, spans or op_records",
			    name);
}

#define NPP_GETTER(fn, tab)						\
static PyObject *npp_##fn(npp_trace *self, PyObject *args, PyObject *kw)\
{									\
	static char *kwlist[] = { "columns", NULL };			\
	struct npp_fill how = { .run = NPP_RUN_REPORT, .table = tab };	\
	PyObject *columns = NULL;					\
									\
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:" #fn, kwlist,	\
					 &columns))			\
		return NULL;						\
	return npp_table_frame(self, &how, columns);			\
}
NPP_GETTER(inferences, NPUPROF_TABLE_INFERENCES)
NPP_GETTER(npu_executions, NPUPROF_TABLE_EXECUTIONS)
NPP_GETTER(npu_operators, NPUPROF_TABLE_OPERATORS)
NPP_GETTER(external_operators, NPUPROF_TABLE_EXTERNAL)
NPP_GETTER(spans, NPUPROF_TABLE_SPANS)
NPP_GETTER(npu_operator_records, NPUPROF_TABLE_OP_RECORDS)

/*
 * Trace.get_pandas_dataframe(columns=None): every span, NPU execution and
 * operator record in the reference profiler's columns, from one pass
 */
static PyObject *npp_get_pandas_dataframe(npp_trace *self, PyObject *args,
					  PyObject *kw)
{
	static char *kwlist[] = { "columns", NULL };
	struct npp_fill how = { .run = NPP_RUN_REPORT,
				.table = NPUPROF_TABLE_SPANS };
	const char *want[64], **cols;
	PyObject *columns = NULL, *keep, *df = NULL;
	struct npp_frames *f;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:get_pandas_dataframe",
					 kwlist, &columns))
		return NULL;
	if (npp_names(columns, &cols, &keep, "columns"))
		return NULL;
	if (npp_reference_want(cols, want))
		goto out;
	how.tables = npp_reference_tables();
	f = npp_frames_new(want);
	if (!f)
		goto out;
	if (!npp_fill(self, f, &how))
		df = npp_frames_reference(f, cols);
	npp_frames_free(f);
out:
	npp_names_free(cols, keep);
	return df;
}

/* Trace.analyze(...) -> DataFrame: npuprof analyze's rows */
static PyObject *npp_analyze(npp_trace *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "top", "types", "aggregate", "order_by",
				  "min_ns", "max_ns", "aggregate_by", NULL };
	static const char *const aggs[] = { "none", "sum", "mean", "max",
					    "min", NULL };
	/* enum npuprof_aggregate_by */
	static const char *const bys[] = { "type", "layer", "shape", NULL };
	struct npp_fill how = { .run = NPP_RUN_ANALYZE };
	PyObject *types = NULL, *keep, *df;
	const char *agg = NULL, *order = NULL, *by = NULL, **tv;
	long long min_ns = 0, max_ns = -1;
	int top = 20;
	unsigned int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|iOzzLLz:analyze", kwlist,
					 &top, &types, &agg, &order, &min_ns,
					 &max_ns, &by))
		return NULL;
	if (top < 0)
		return PyErr_Format(PyExc_ValueError,
				    "analyze(): top must be >= 0 (0: every row)");
	npuprof_analyze_opts_init(&how.an);
	how.an.top = (unsigned int)top;
	how.an.order_by = order;
	how.an.min_ns = min_ns;
	how.an.max_ns = max_ns;
	if (agg) {
		for (i = 0; aggs[i] && strcasecmp(aggs[i], agg); i++)
			;
		if (!aggs[i])
			return PyErr_Format(PyExc_ValueError,
					    "analyze(): aggregate '%s': none, sum, mean, max or min",
					    agg);
		how.an.aggregate = i;
	}
	if (by) {
		for (i = 0; bys[i] && strcasecmp(bys[i], by); i++)
			;
		if (!bys[i])
			return PyErr_Format(PyExc_ValueError,
					    "analyze(): aggregate_by '%s': type, layer or shape",
					    by);
		how.an.aggregate_by = i;
		/* as npuprof analyze --aggregate-by: a sum unless told */
		if (!agg)
			how.an.aggregate = NPUPROF_AGG_SUM;
	}
	if (npp_names(types, &tv, &keep, "types"))
		return NULL;
	how.an.types = tv;
	df = npp_table_frame(self, &how, NULL);
	npp_names_free(tv, keep);
	return df;
}

/*
 * Trace.get_memory_trace(columns=None) -> DataFrame: every buffer record
 * (npuprof memory --table events)
 */
static PyObject *npp_get_memory_trace(npp_trace *self, PyObject *args,
				      PyObject *kw)
{
	static char *kwlist[] = { "columns", NULL };
	struct npp_fill how = { .run = NPP_RUN_MEMORY,
				.table = NPUPROF_MEM_EVENTS,
				.tables = NPUPROF_MEM_BIT(NPUPROF_MEM_EVENTS) };
	PyObject *columns = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:get_memory_trace",
					 kwlist, &columns))
		return NULL;
	return npp_table_frame(self, &how, columns);
}

/* Trace.memory(table='devices', columns=None) -> DataFrame */
static PyObject *npp_memory(npp_trace *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "table", "columns", NULL };
	struct npp_fill how = { .run = NPP_RUN_MEMORY };
	const char *name = "devices", *n;
	PyObject *columns = NULL;
	unsigned int t;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|sO:memory", kwlist, &name,
					 &columns))
		return NULL;
	for (t = NPUPROF_MEM_DEVICES; (n = npuprof_mem_table_name(t)); t++)
		if (!strcmp(n, name)) {
			how.table = t;
			how.tables = NPUPROF_MEM_BIT(t);
			return npp_table_frame(self, &how, columns);
		}
	return PyErr_Format(PyExc_ValueError,
			    "memory(): unknown table '%s': devices, processes, peak_buffers, failures, operators, tensors or events",
			    name);
}

/* The largest max_allocated and max_used of the devices table's rows */
struct npp_maxmem {
	int c_alloc, c_used;
	bool have_alloc, have_used;
	uint64_t alloc, used;
};

static int npp_maxmem_cols(void *ctx, unsigned int table,
			   const struct npuprof_column *cols, unsigned int n)
{
	struct npp_maxmem *m = ctx;
	unsigned int i;

	(void)table;
	m->c_alloc = m->c_used = -1;
	for (i = 0; i < n; i++) {
		if (!strcmp(cols[i].name, "max_allocated"))
			m->c_alloc = (int)i;
		else if (!strcmp(cols[i].name, "max_used"))
			m->c_used = (int)i;
	}
	return m->c_alloc < 0 || m->c_used < 0 ? -EPROTO : 0;
}

static int npp_maxmem_row(void *ctx, unsigned int table,
			  const struct npuprof_value *v)
{
	struct npp_maxmem *m = ctx;

	(void)table;
	if (!v[m->c_alloc].null && (!m->have_alloc || v[m->c_alloc].u > m->alloc)) {
		m->alloc = v[m->c_alloc].u;
		m->have_alloc = true;
	}
	if (!v[m->c_used].null && (!m->have_used || v[m->c_used].u > m->used)) {
		m->used = v[m->c_used].u;
		m->have_used = true;
	}
	return 0;
}

static PyObject *npp_mib(bool have, uint64_t b)
{
	if (!have)
		Py_RETURN_NONE;
	return PyFloat_FromDouble((double)b / (1024.0 * 1024.0));
}

/*
 * Trace.get_max_memory_info() -> dict: RAF's max_used and max_allocated,
 * in MB (MiB), the largest of the trace's devices; max_used None while
 * the report has no used bytes
 */
static PyObject *npp_get_max_memory_info(npp_trace *self, PyObject *unused)
{
	struct npp_maxmem m = { 0 };
	struct npuprof_row_sink sink = { npp_maxmem_cols, npp_maxmem_row, &m };
	PyObject *d, *a, *u;
	int ret;

	(void)unused;
	if (npp_lock(self))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = npuprof_memory(self->t, NULL, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_ROWS, .sink = &sink,
		.tables = NPUPROF_MEM_BIT(NPUPROF_MEM_DEVICES)));
	Py_END_ALLOW_THREADS
	if (!ret)
		self->at_end = 1;
	else
		npp_trace_raise(self, ret);
	npp_unlock(self);
	if (ret)
		return NULL;
	a = npp_mib(m.have_alloc, m.alloc);
	u = npp_mib(m.have_used, m.used);
	d = a && u ? Py_BuildValue("{sOsO}", "max_used", u, "max_allocated",
				   a) : NULL;
	Py_XDECREF(a);
	Py_XDECREF(u);
	return d;
}

/* Trace.breakdown() -> DataFrame: one row per inference */
static PyObject *npp_breakdown(npp_trace *self, PyObject *unused)
{
	struct npp_fill how = { .run = NPP_RUN_BREAKDOWN };

	(void)unused;
	return npp_table_frame(self, &how, NULL);
}

/* npuprof.diff(a, b, min_delta_ns=0) -> DataFrame */
static PyObject *npp_diff(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "a", "b", "min_delta_ns", NULL };
	npp_trace *a, *b;
	struct npuprof_report_opts o;
	struct npp_frames *f;
	long long min_delta = 0;
	PyObject *df = NULL;
	int ret;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|L:diff", kwlist,
					 &npp_trace_type, &a, &npp_trace_type,
					 &b, &min_delta))
		return NULL;
	f = npp_frames_new(NULL);
	if (!f)
		return NULL;
	if (npp_lock(a))
		goto out;
	if (b != a && npp_lock(b)) {
		npp_unlock(a);
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	npuprof_report_opts_init(&o);
	o.format = NPUPROF_FORMAT_ROWS;
	o.sink = npp_frames_sink(f);
	o.min_delta_ns = min_delta;
	ret = npuprof_diff(a->t, b->t, NULL, &o, NULL);
	Py_END_ALLOW_THREADS
	if (ret == -ENOMEM && npp_frames_error(f) == -ENOMEM)
		PyErr_NoMemory();
	else if (ret)
		npp_raise(ret, npuprof_trace_error(a->t)[0] ?
			  npuprof_trace_error(a->t) : npuprof_trace_error(b->t),
			  npuprof_trace_error(a->t)[0] ? a->path : b->path);
	if (b != a)
		npp_unlock(b);
	npp_unlock(a);
	if (!ret)
		df = npp_frames_table(f, 0);
out:
	npp_frames_free(f);
	return df;
}

/* ------------------------------------------------------------------ */
/* Type and module                                                      */
/* ------------------------------------------------------------------ */

#define NPP_KW(fn, doc) \
	{ #fn, (PyCFunction)(void (*)(void))npp_##fn, METH_VARARGS | METH_KEYWORDS, doc }
#define NPP_NOARG(fn, doc) \
	{ #fn, (PyCFunction)(void (*)(void))npp_##fn, METH_NOARGS, doc }

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
	NPP_KW(inferences, "inferences(columns=None)\n--\n\n"
	       "DataFrame of the inferences (the CSV of report --inferences);\n"
	       "columns: the names to keep (a list), None for all."),
	NPP_KW(npu_executions, "npu_executions(columns=None)\n--\n\n"
	       "DataFrame of the NPU executions (report --executions)."),
	NPP_KW(npu_operators, "npu_operators(columns=None)\n--\n\n"
	       "DataFrame of the NPU operators by opcode (report --operators)."),
	NPP_KW(external_operators, "external_operators(columns=None)\n--\n\n"
	       "DataFrame of the CPU operators (report --external)."),
	NPP_KW(spans, "spans(columns=None)\n--\n\n"
	       "DataFrame of every host span (report --spans)."),
	NPP_KW(npu_operator_records, "npu_operator_records(columns=None)\n--\n\n"
	       "DataFrame of every NPU operator record (report --op-records)."),
	NPP_KW(get_pandas_dataframe, "get_pandas_dataframe(columns=None)\n--\n\n"
	       "DataFrame of every span, NPU execution and NPU operator record\n"
	       "in the reference profiler's columns (trace_id, parent_span_id,\n"
	       "span_id, name, cat, start, end, dur, pid, thread.id, job_id,\n"
	       "minor, op_index, pe_index, error, flags), then, when a record\n"
	       "has a layer (or columns names them), an operator record's\n"
	       "layer, op_type, in_shapes and out_shapes (strings, '' without\n"
	       "a layer table, None for spans and executions); cat tells the\n"
	       "kind."),
	NPP_KW(table, "table(name, columns=None)\n--\n\n"
	       "DataFrame of a table by name: inferences, executions, operators,\n"
	       "external, spans or op_records."),
	NPP_KW(analyze, "analyze(top=20, types=None, aggregate=None, order_by=None,\n"
	       "        min_ns=0, max_ns=-1, aggregate_by=None)\n--\n\n"
	       "DataFrame of `npuprof analyze`: self and cumulative time, MACs,\n"
	       "GMAC/s, IoWait (iowait_ns, iowait_pct), overlap with the other\n"
	       "PEs (overlap_ns, contended_ns), excess_ns, bytes and GB/s per\n"
	       "record or, with aggregate ('sum', 'mean', 'max', 'min'), per\n"
	       "type, or per layer or shape with aggregate_by ('type', 'layer',\n"
	       "'shape'; alone: a sum), and each operator's layer, op_type,\n"
	       "in_shapes, out_shapes; order_by also takes 'iowait',\n"
	       "'contended' and 'excess'; top=0 keeps every row."),
	NPP_NOARG(get_max_memory_info, "get_max_memory_info()\n--\n\n"
		  "RAF's memory figures as a dict: max_allocated, the most device\n"
		  "memory the trace's buffers held at once, and max_used, the most\n"
		  "the programs' live tensors needed, in MB (2**20 bytes), the\n"
		  "largest over the trace's devices; None when the trace has no\n"
		  "buffer records (max_used: no operator record of a model)."),
	NPP_KW(get_memory_trace, "get_memory_trace(columns=None)\n--\n\n"
	       "DataFrame of every buffer record (RAF's memory trace): time_ns,\n"
	       "device, minor, event (alloc, free, fail), bo_id, pid, tid,\n"
	       "address, size, kind, error, reason, allocated (the device's\n"
	       "bytes after it), process_allocated, device_allocated (every\n"
	       "process's), addr, skipped (a free the trace never saw allocated)."),
	NPP_KW(memory, "memory(table='devices', columns=None)\n--\n\n"
	       "DataFrame of a table of `npuprof memory`: devices, processes,\n"
	       "peak_buffers, failures, operators, tensors or events."),
	NPP_NOARG(breakdown, "breakdown()\n--\n\n"
		  "DataFrame of `npuprof breakdown --format csv`: where each\n"
		  "inference's latency goes, one row per inference."),
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
	{ "damage", (getter)npp_trace_get_damage, NULL,
	  "the damaged chunks the reader skipped, a dict: stretches, chunks, "
	  "bytes, items, items_unknown, first_offset, last_offset, why", NULL },
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
	{ "diff", (PyCFunction)(void (*)(void))npp_diff,
	  METH_VARARGS | METH_KEYWORDS,
	  "diff(a, b, min_delta_ns=0)\n--\n\n"
	  "DataFrame of `npuprof diff A B`: the change from Trace a to Trace b\n"
	  "of the mean latency, each part of the breakdown and each operator\n"
	  "type, largest absolute change first." },
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
