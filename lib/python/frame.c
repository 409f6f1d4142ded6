// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frame.c - the tables of libnpuprof-analysis as pandas DataFrames, filled
 * from its row sink: each cell goes, typed, into a growing column (8 bytes
 * a row for numbers; for strings a 4-byte id into a per-column table of
 * the distinct strings, so that a name repeated a million times is stored
 * and made into a Python str once). Only the columns asked for are kept.
 * With the GIL, each column becomes one NumPy array, the numbers without
 * a copy (the array takes over the buffer), and pandas.DataFrame() is
 * built from them.
 *
 * Lifetime: the sink runs without the GIL and touches no Python object;
 * everything else runs with it. One set of tables per call; not shared.
 */
#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL npp_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include "frame.h"

#include <numpy/arrayobject.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the report tables, and npuprof_memory()'s numbered from 32 */
#define NPP_NTABLES	(NPUPROF_MEM_TENSORS + 1)
#define NPP_NOSTR	UINT32_MAX	/* a string cell's id when empty */
#define NPP_MAXWANT	64

/* The distinct strings of a column: an arena and an open-addressing hash */
struct npp_strtab {
	char *arena;
	size_t alen, acap;
	uint64_t *ent;		/* per string: offset << 24 | length */
	uint32_t *hash;		/* per string */
	uint32_t n, cap;
	uint32_t *slot;		/* id + 1, 0 empty; a power of two */
	uint32_t nslot;
	uint32_t last;		/* the id of the previous cell (repeats) */
	PyObject **obj;		/* per id, made with the GIL */
};

struct npp_col {
	char *name;
	unsigned int type;	/* enum npuprof_col_type */
	bool keep;
	void *data;		/* 8 bytes a row, or a uint32_t id */
	uint8_t *null;		/* 1 per empty row; NULL until the first */
	size_t nnull;
	uint64_t umax;		/* U64: the largest value */
	bool neg;		/* I64: a negative value */
	unsigned int uses;	/* frame columns still to be made from it */
	struct npp_strtab st;
};

struct npp_tab {
	bool begun;
	unsigned int ncols;
	struct npp_col *cols;
	size_t rows, cap;
};

struct npp_frames {
	struct npuprof_row_sink sink;
	struct npp_tab tab[NPP_NTABLES];
	char **want;		/* NULL: every column */
	int err;
};

/* ------------------------------------------------------------------ */
/* The sink (no GIL)                                                    */
/* ------------------------------------------------------------------ */

/* A multiplicative hash, 8 bytes at a time (the ids are 16 or 32) */
static uint32_t npp_hash(const char *s, size_t len)
{
	uint64_t h = len * 0x9e3779b97f4a7c15ull, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	return (uint32_t)(h ^ h >> 29);
}

static const char *npp_st_str(const struct npp_strtab *t, uint32_t id,
			      size_t *len)
{
	*len = (size_t)(t->ent[id] & 0xffffff);
	return t->arena + (t->ent[id] >> 24);
}

static int npp_st_grow(struct npp_strtab *t)
{
	uint32_t n = t->nslot ? t->nslot * 2 : 1024, i, j, *slot;

	slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		for (j = t->hash[i] & (n - 1); slot[j]; j = (j + 1) & (n - 1))
			;
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = n;
	return 0;
}

/* The id of @s, added if new */
static int npp_st_intern(struct npp_strtab *t, const char *s, uint32_t *id)
{
	size_t len = strlen(s), l;
	uint32_t j, h;
	const char *o;

	if (len > 0xffffff)
		len = 0xffffff;	/* 16 MiB: no cell of ours is near */
	if (t->n) {
		o = npp_st_str(t, t->last, &l);
		if (l == len && !memcmp(o, s, len)) {
			*id = t->last;
			return 0;
		}
	}
	if ((t->n + 1) * 2 > t->nslot && npp_st_grow(t))
		return -ENOMEM;
	h = npp_hash(s, len);
	for (j = h & (t->nslot - 1); t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		if (t->hash[t->slot[j] - 1] != h)
			continue;
		o = npp_st_str(t, t->slot[j] - 1, &l);
		if (l == len && !memcmp(o, s, len)) {
			*id = t->last = t->slot[j] - 1;
			return 0;
		}
	}
	if (t->n == UINT32_MAX - 1 || t->alen + len > (1ull << 40))
		return -E2BIG;
	if (t->alen + len > t->acap) {
		size_t cap = t->acap ? t->acap * 2 : 4096;
		char *a;

		while (cap < t->alen + len)
			cap *= 2;
		a = realloc(t->arena, cap);
		if (!a)
			return -ENOMEM;
		t->arena = a;
		t->acap = cap;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256, *hs;
		uint64_t *e = realloc(t->ent, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		t->ent = e;
		hs = realloc(t->hash, cap * sizeof(*hs));
		if (!hs)
			return -ENOMEM;
		t->hash = hs;
		t->cap = cap;
	}
	memcpy(t->arena + t->alen, s, len);
	t->ent[t->n] = (uint64_t)t->alen << 24 | len;
	t->hash[t->n] = h;
	t->alen += len;
	t->slot[j] = t->n + 1;
	*id = t->last = t->n++;
	return 0;
}

static bool npp_wanted(const struct npp_frames *f, const char *name)
{
	char *const *w;

	if (!f->want)
		return true;
	for (w = f->want; *w; w++)
		if (!strcmp(*w, name))
			return true;
	return false;
}

static int npp_sink_columns(void *ctx, unsigned int table,
			    const struct npuprof_column *cols,
			    unsigned int ncols)
{
	struct npp_frames *f = ctx;
	struct npp_tab *t;
	unsigned int i;

	if (table >= NPP_NTABLES || f->tab[table].begun)
		return f->err = -EINVAL;
	t = &f->tab[table];
	t->cols = calloc(ncols ? ncols : 1, sizeof(*t->cols));
	if (!t->cols)
		return f->err = -ENOMEM;
	t->ncols = ncols;
	t->begun = true;
	for (i = 0; i < ncols; i++) {
		t->cols[i].name = strdup(cols[i].name);
		if (!t->cols[i].name)
			return f->err = -ENOMEM;
		t->cols[i].type = cols[i].type;
		t->cols[i].keep = npp_wanted(f, cols[i].name);
	}
	return 0;
}

static int npp_tab_grow(struct npp_tab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 4096, i;

	for (i = 0; i < t->ncols; i++) {
		struct npp_col *c = &t->cols[i];
		size_t w = c->type == NPUPROF_COL_STR ? 4 : 8;
		void *d;

		if (!c->keep)
			continue;
		d = realloc(c->data, cap * w);
		if (!d)
			return -ENOMEM;
		c->data = d;
		if (c->null) {
			d = realloc(c->null, cap);
			if (!d)
				return -ENOMEM;
			c->null = d;
			memset(c->null + t->cap, 0, cap - t->cap);
		}
	}
	t->cap = cap;
	return 0;
}

static int npp_set_null(struct npp_tab *t, struct npp_col *c, size_t row)
{
	if (!c->null) {
		c->null = calloc(t->cap, 1);
		if (!c->null)
			return -ENOMEM;
	}
	c->null[row] = 1;
	c->nnull++;
	return 0;
}

static int npp_sink_row(void *ctx, unsigned int table,
			const struct npuprof_value *v)
{
	struct npp_frames *f = ctx;
	struct npp_tab *t;
	unsigned int i;
	size_t row;
	int ret;

	if (table >= NPP_NTABLES || !f->tab[table].begun)
		return f->err = -EINVAL;
	t = &f->tab[table];
	row = t->rows;
	if (row == t->cap && (ret = npp_tab_grow(t)))
		return f->err = ret;
	for (i = 0; i < t->ncols; i++) {
		struct npp_col *c = &t->cols[i];

		if (!c->keep)
			continue;
		if (c->type == NPUPROF_COL_STR) {
			uint32_t *id = (uint32_t *)c->data + row;

			if (v[i].null || !v[i].s) {
				*id = NPP_NOSTR;
				c->nnull++;
			} else if ((ret = npp_st_intern(&c->st, v[i].s, id))) {
				return f->err = ret;
			}
			continue;
		}
		if (v[i].null) {
			if ((ret = npp_set_null(t, c, row)))
				return f->err = ret;
			if (c->type == NPUPROF_COL_F64)
				((double *)c->data)[row] = NAN;
			else
				((int64_t *)c->data)[row] = 0;
			continue;
		}
		switch (c->type) {
		case NPUPROF_COL_I64:
			((int64_t *)c->data)[row] = v[i].i;
			c->neg |= v[i].i < 0;
			break;
		case NPUPROF_COL_U64:
			((uint64_t *)c->data)[row] = v[i].u;
			if (v[i].u > c->umax)
				c->umax = v[i].u;
			break;
		default:
			((double *)c->data)[row] = v[i].f;
			break;
		}
	}
	t->rows++;
	return 0;
}

struct npp_frames *npp_frames_new(const char *const *want)
{
	struct npp_frames *f = calloc(1, sizeof(*f));
	size_t n = 0, i;

	if (!f)
		return (struct npp_frames *)PyErr_NoMemory();
	f->sink.columns = npp_sink_columns;
	f->sink.row = npp_sink_row;
	f->sink.ctx = f;
	if (want) {
		while (want[n])
			n++;
		f->want = calloc(n + 1, sizeof(*f->want));
		for (i = 0; f->want && i < n; i++)
			if (!(f->want[i] = strdup(want[i])))
				break;
		if (!f->want || i < n) {
			npp_frames_free(f);
			return (struct npp_frames *)PyErr_NoMemory();
		}
	}
	return f;
}

const struct npuprof_row_sink *npp_frames_sink(struct npp_frames *f)
{
	return &f->sink;
}

int npp_frames_error(const struct npp_frames *f)
{
	return f->err;
}

/* Drop the cells of @c (the arrays made from it hold what they need) */
static void npp_col_release(struct npp_col *c)
{
	uint32_t k;

	if (c->st.obj) {
		for (k = 0; k < c->st.n; k++)
			Py_XDECREF(c->st.obj[k]);
		free(c->st.obj);
	}
	free(c->st.arena);
	free(c->st.ent);
	free(c->st.hash);
	free(c->st.slot);
	free(c->data);
	free(c->null);
	memset(&c->st, 0, sizeof(c->st));
	c->data = NULL;
	c->null = NULL;
}

void npp_frames_free(struct npp_frames *f)
{
	unsigned int t, i;

	if (!f)
		return;
	for (t = 0; t < NPP_NTABLES; t++) {
		for (i = 0; i < f->tab[t].ncols; i++) {
			npp_col_release(&f->tab[t].cols[i]);
			free(f->tab[t].cols[i].name);
		}
		free(f->tab[t].cols);
	}
	if (f->want) {
		for (i = 0; f->want[i]; i++)
			free(f->want[i]);
		free(f->want);
	}
	free(f);
}

/* ------------------------------------------------------------------ */
/* Columns into arrays (the GIL held)                                   */
/* ------------------------------------------------------------------ */

/*
 * Where a column of a frame takes its rows from, one table after another:
 * a column (@col, and @alt where it is empty), a constant string, or
 * nothing; @gather: row r takes @col's row gather[r] of @src instead
 */
enum npp_how { NPP_NONE, NPP_COL, NPP_CONST };

struct npp_seg {
	enum npp_how how;
	size_t rows;
	struct npp_col *col, *alt;
	const char *cstr;
	const uint32_t *gather;	/* NPP_NOSTR: empty */
};

/* The Python str of a string id, made once per column */
static PyObject *npp_str_obj(struct npp_col *c, uint32_t id)
{
	struct npp_strtab *t = &c->st;
	const char *s;
	size_t len;

	if (!t->obj) {
		t->obj = calloc(t->n ? t->n : 1, sizeof(*t->obj));
		if (!t->obj)
			return PyErr_NoMemory();
	}
	if (!t->obj[id]) {
		s = npp_st_str(t, id, &len);
		t->obj[id] = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
	}
	return t->obj[id];
}

/* Row @r of @c (a string column) as a new reference, None if empty */
static PyObject *npp_str_cell(struct npp_col *c, size_t r)
{
	uint32_t id = ((uint32_t *)c->data)[r];
	PyObject *o;

	if (id == NPP_NOSTR)
		Py_RETURN_NONE;
	o = npp_str_obj(c, id);
	Py_XINCREF(o);
	return o;
}

/* Row @r of a column segment as a new reference, None if empty */
static PyObject *npp_seg_cell(const struct npp_seg *s, size_t r)
{
	struct npp_col *c = s->col;
	PyObject *o;

	if (s->how == NPP_CONST)
		return PyUnicode_FromString(s->cstr);
	if (s->how == NPP_NONE)
		Py_RETURN_NONE;
	if (s->gather) {
		if (s->gather[r] == NPP_NOSTR)
			Py_RETURN_NONE;
		r = s->gather[r];
	}
	if (c->type == NPUPROF_COL_STR) {
		o = npp_str_cell(c, r);
		if (o == Py_None && s->alt) {
			Py_DECREF(o);
			o = npp_str_cell(s->alt, r);
		}
		return o;
	}
	if (c->null && c->null[r])
		Py_RETURN_NONE;
	switch (c->type) {
	case NPUPROF_COL_I64:
		return PyLong_FromLongLong(((int64_t *)c->data)[r]);
	case NPUPROF_COL_U64:
		return PyLong_FromUnsignedLongLong(((uint64_t *)c->data)[r]);
	default:
		return PyFloat_FromDouble(((double *)c->data)[r]);
	}
}

/* An object array of the rows of @segs (strings, or every cell empty) */
static PyObject *npp_obj_array(const struct npp_seg *segs, unsigned int n,
			       size_t rows)
{
	npy_intp dims[1] = { (npy_intp)rows };
	PyObject *a, **o, *cst = NULL;
	size_t r, k = 0;
	unsigned int i;

	a = PyArray_SimpleNew(1, dims, NPY_OBJECT);
	if (!a)
		return NULL;
	o = PyArray_DATA((PyArrayObject *)a);
	for (r = 0; r < rows; r++) {	/* valid before the first error */
		Py_INCREF(Py_None);
		o[r] = Py_None;
	}
	for (i = 0; i < n; i++) {
		const struct npp_seg *s = &segs[i];

		if (s->how == NPP_NONE) {
			k += s->rows;
			continue;
		}
		if (s->how == NPP_CONST && s->rows) {
			cst = PyUnicode_FromString(s->cstr);
			if (!cst)
				goto fail;
		}
		for (r = 0; r < s->rows; r++, k++) {
			PyObject *v;

			if (cst) {
				Py_INCREF(cst);
				v = cst;
			} else {
				v = npp_seg_cell(s, r);
				if (!v)
					goto fail;
			}
			Py_SETREF(o[k], v);
		}
		Py_CLEAR(cst);
	}
	return a;
fail:
	Py_XDECREF(cst);
	Py_DECREF(a);
	return NULL;
}

/* A capsule that frees @p: the base of an array that took over @p */
static void npp_capsule_free(PyObject *cap)
{
	free(PyCapsule_GetPointer(cap, NULL));
}

/*
 * A 1-d array of @rows @type (8 or 1 bytes wide) over @data, which it
 * takes over, shrunk to fit: freed with the array, or now if it fails
 */
static PyObject *npp_own_array(void *data, size_t rows, int type)
{
	npy_intp dims[1] = { (npy_intp)rows };
	PyObject *a, *cap;
	void *d;

	if (!rows || !data) {
		free(data);
		return PyArray_ZEROS(1, dims, type, 0);
	}
	d = realloc(data, rows * (type == NPY_BOOL ? 1 : 8));
	if (d)
		data = d;
	a = PyArray_SimpleNewFromData(1, dims, type, data);
	if (!a) {
		free(data);
		return NULL;
	}
	cap = PyCapsule_New(data, NULL, npp_capsule_free);
	if (!cap || PyArray_SetBaseObject((PyArrayObject *)a, cap)) {
		Py_XDECREF(cap);
		Py_DECREF(a);	/* it does not own @data */
		free(data);
		return NULL;
	}
	return a;
}

/* pandas.arrays.IntegerArray(values, mask) */
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

/*
 * The array of a numeric column made of @segs (every segment a number
 * column or NPP_NONE): float64 if one is; else int64, or uint64 when a
 * value needs it and none is negative (float64 if both). Empty cells:
 * NaN, or an IntegerArray's mask. One column alone: no copy.
 */
static PyObject *npp_num_array(struct npp_seg *segs, unsigned int n,
			       size_t rows)
{
	bool flt = false, big = false, neg = false, nulls = false;
	npy_intp dims[1] = { (npy_intp)rows };
	PyObject *a = NULL, *m = NULL, *r;
	uint8_t *mask = NULL;
	unsigned int i;
	size_t k = 0;
	int type;

	for (i = 0; i < n; i++) {
		struct npp_col *c = segs[i].col;

		if (segs[i].how == NPP_NONE) {
			nulls |= segs[i].rows > 0;
			continue;
		}
		flt |= c->type == NPUPROF_COL_F64;
		big |= c->type == NPUPROF_COL_U64 && c->umax > INT64_MAX;
		neg |= c->type == NPUPROF_COL_I64 && c->neg;
		nulls |= c->nnull > 0;
	}
	if (big && neg)
		flt = true;
	type = flt ? NPY_DOUBLE : big ? NPY_UINT64 : NPY_INT64;

	if (n == 1 && segs[0].how == NPP_COL && !segs[0].gather) {
		/* one column as it is: the array takes its buffer (empty
		 * cells of float64 hold NaN already) */
		struct npp_col *c = segs[0].col;

		a = npp_own_array(c->data, rows, type);
		c->data = NULL;
		if (!a || flt || !c->nnull)
			return a;
		m = npp_own_array(c->null, rows, NPY_BOOL);
		c->null = NULL;
		if (!m) {
			Py_DECREF(a);
			return NULL;
		}
		r = npp_nullable(a, m);
		Py_DECREF(a);
		Py_DECREF(m);
		return r;
	}

	a = PyArray_SimpleNew(1, dims, type);
	if (!a)
		return NULL;
	if (nulls && !flt) {
		m = PyArray_ZEROS(1, dims, NPY_BOOL, 0);
		if (!m) {
			Py_DECREF(a);
			return NULL;
		}
		mask = PyArray_DATA((PyArrayObject *)m);
	}
	for (i = 0; i < n; i++) {
		struct npp_seg *s = &segs[i];
		struct npp_col *c = s->col;
		size_t j;

		for (j = 0; j < s->rows; j++, k++) {
			bool null = s->how == NPP_NONE || (c->null && c->null[j]);

			/* (no numeric column is gathered: npp_ref) */
			void *out = (char *)PyArray_DATA((PyArrayObject *)a) + 8 * k;

			if (null) {
				if (flt)
					*(double *)out = NAN;
				else
					*(int64_t *)out = 0;
				if (mask)
					mask[k] = 1;
			} else if (flt) {
				*(double *)out =
					c->type == NPUPROF_COL_F64 ? ((double *)c->data)[j] :
					c->type == NPUPROF_COL_U64 ?
					(double)((uint64_t *)c->data)[j] :
					(double)((int64_t *)c->data)[j];
			} else {
				/* int64 and uint64 share their bits here */
				*(uint64_t *)out = ((uint64_t *)c->data)[j];
			}
		}
	}
	if (!m)
		return a;
	r = npp_nullable(a, m);
	Py_DECREF(a);
	Py_DECREF(m);
	return r;
}

/* The array of a frame's column */
static PyObject *npp_column(struct npp_seg *segs, unsigned int n, size_t rows)
{
	bool strs = false, empty = rows > 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct npp_seg *s = &segs[i];

		if (s->how == NPP_CONST) {
			strs = true;
			empty &= !s->rows;
		} else if (s->how == NPP_COL) {
			strs |= s->col->type == NPUPROF_COL_STR;
			if (s->gather || s->alt)
				empty &= !s->rows;	/* not known: kept typed */
			else
				empty &= s->col->nnull == s->rows;
		}
	}
	/* a column empty in every row holds None, as CSV can tell no type */
	if (strs || empty)
		return npp_obj_array(segs, n, rows);
	return npp_num_array(segs, n, rows);
}

/* pandas.DataFrame from @names and @arrays (both lists), columns in order */
static PyObject *npp_dataframe(PyObject *names, PyObject *arrays)
{
	PyObject *pd, *dict = NULL, *df = NULL, *key, *cols = NULL;
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
	/*
	 * copy=False: each column stays the array made here, not copied
	 * into one 2-d block per dtype (pandas' consolidation)
	 */
	{
		PyObject *ctor = PyObject_GetAttrString(pd, "DataFrame");
		PyObject *args = ctor ? PyTuple_Pack(1, dict) : NULL;
		PyObject *kw = args ? Py_BuildValue("{s:O}", "copy", Py_False) :
			       NULL;

		if (kw)
			df = PyObject_Call(ctor, args, kw);
		Py_XDECREF(kw);
		Py_XDECREF(args);
		Py_XDECREF(ctor);
	}
	if (!df)
		goto out;
	cols = PyObject_CallMethod(pd, "Index", "O", names);
	if (!cols || PyObject_SetAttrString(df, "columns", cols))
		Py_CLEAR(df);
out:
	Py_XDECREF(cols);
	Py_XDECREF(dict);
	Py_DECREF(pd);
	return df;
}

/* Append column @name, made of @segs, to @names and @arrays */
static int npp_append(PyObject *names, PyObject *arrays, const char *name,
		      struct npp_seg *segs, unsigned int n, size_t rows)
{
	PyObject *o = PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name),
					   "replace");

	if (!o || PyList_Append(names, o)) {
		Py_XDECREF(o);
		return -1;
	}
	Py_DECREF(o);
	o = npp_column(segs, n, rows);
	if (!o || PyList_Append(arrays, o)) {
		Py_XDECREF(o);
		return -1;
	}
	Py_DECREF(o);
	return 0;
}

PyObject *npp_frames_table(struct npp_frames *f, unsigned int table)
{
	struct npp_tab *t;
	PyObject *names, *arrays, *df = NULL;
	unsigned int i;

	if (table >= NPP_NTABLES) {
		PyErr_SetString(PyExc_ValueError, "no such table");
		return NULL;
	}
	t = &f->tab[table];
	names = PyList_New(0);
	arrays = PyList_New(0);
	if (!names || !arrays)
		goto out;
	for (i = 0; i < t->ncols; i++) {
		struct npp_col *c = &t->cols[i];
		struct npp_seg seg = { NPP_COL, t->rows, c, NULL, NULL, NULL };

		if (c->keep && npp_append(names, arrays, c->name, &seg, 1,
					  t->rows))
			goto out;
	}
	df = npp_dataframe(names, arrays);
out:
	Py_XDECREF(names);
	Py_XDECREF(arrays);
	return df;
}

/* ------------------------------------------------------------------ */
/* get_pandas_dataframe(): three tables in the reference's columns      */
/* ------------------------------------------------------------------ */

/* Where a reference column comes from in one table */
struct npp_src {
	enum npp_how how;
	const char *col;	/* NPP_COL: the column; NPP_CONST: the string */
	const char *alt;	/* NPP_COL: where @col is empty */
	bool gather;		/* from the execution of the record's job */
};

static const unsigned int npp_ref_tabs[3] = {
	NPUPROF_TABLE_SPANS, NPUPROF_TABLE_EXECUTIONS,
	NPUPROF_TABLE_OP_RECORDS,
};

#define C(c)		{ NPP_COL, c, NULL, false }
#define K(s)		{ NPP_CONST, s, NULL, false }
#define G(c)		{ NPP_COL, c, NULL, true }
#define N		{ NPP_NONE, NULL, NULL, false }

/* spans, executions, operator records */
static const struct {
	const char *name;
	struct npp_src src[3];
} npp_ref[] = {
	{ "trace_id", { C("trace_id"), C("trace_id"), G("trace_id") } },
	{ "parent_span_id", { C("parent_id"), C("span_id"), G("span_id") } },
	{ "span_id", { C("span_id"), N, N } },
	{ "name", { { NPP_COL, "name", "kind", false }, K("execution"),
		    C("name") } },
	{ "cat", { C("kind"), K("npu_execution"), K("npu_operator") } },
	{ "start", { C("start_ns"), C("start_ns"), C("start_ns") } },
	{ "end", { C("end_ns"), C("end_ns"), C("end_ns") } },
	{ "dur", { C("dur"), C("NPU Total"), C("dur") } },
	{ "pid", { C("pid"), C("pid"), C("pid") } },
	{ "thread.id", { C("tid"), C("tid"), C("tid") } },
	{ "job_id", { C("job_id"), C("job_id"), C("job_id") } },
	{ "minor", { C("minor"), C("minor"), C("minor") } },
	{ "op_index", { C("op_index"), N, C("op_index") } },
	{ "pe_index", { N, C("pe_index"), C("pe") } },
	{ "error", { C("error"), C("status"), N } },
	{ "flags", { C("flags"), N, N } },
	/*
	 * an operator record's layer (its model's layer table), "" without;
	 * last: columns=None has them only when a record has a layer
	 */
	{ "layer", { N, N, C("layer") } },
	{ "op_type", { N, N, C("op_type") } },
	{ "in_shapes", { N, N, C("in_shapes") } },
	{ "out_shapes", { N, N, C("out_shapes") } },
};

#undef C
#undef K
#undef G
#undef N

#define NPP_NREF (sizeof(npp_ref) / sizeof(npp_ref[0]))
/* The first of the layer columns, the last four */
#define NPP_NREF_LAYER	(NPP_NREF - 4)

unsigned int npp_reference_tables(void)
{
	return 1u << NPUPROF_TABLE_SPANS | 1u << NPUPROF_TABLE_EXECUTIONS |
	       1u << NPUPROF_TABLE_OP_RECORDS;
}

static int npp_ref_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < NPP_NREF; i++)
		if (!strcmp(npp_ref[i].name, name))
			return (int)i;
	return -1;
}

static void npp_add(const char **out, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(out[i], name))
			return;
	if (*n < NPP_MAXWANT - 1)
		out[(*n)++] = name;
}

int npp_reference_want(const char *const *cols, const char **out)
{
	size_t n = 0, i;
	unsigned int k, t;
	int r;

	for (k = 0; cols ? cols[k] != NULL : k < NPP_NREF; k++) {
		r = cols ? npp_ref_index(cols[k]) : (int)k;
		if (r < 0) {
			PyErr_Format(PyExc_ValueError,
				     "get_pandas_dataframe(): no column '%s'",
				     cols[k]);
			return -1;
		}
		for (t = 0; t < 3; t++) {
			const struct npp_src *s = &npp_ref[r].src[t];

			if (s->how != NPP_COL)
				continue;
			npp_add(out, &n, s->col);
			if (s->alt)
				npp_add(out, &n, s->alt);
			if (s->gather) {
				npp_add(out, &n, "minor");
				npp_add(out, &n, "job_id");
			}
		}
	}
	for (i = n; i < NPP_MAXWANT; i++)
		out[i] = NULL;
	return 0;
}

static struct npp_col *npp_find(struct npp_tab *t, const char *name)
{
	unsigned int i;

	for (i = 0; name && i < t->ncols; i++)
		if (t->cols[i].keep && !strcmp(t->cols[i].name, name))
			return &t->cols[i];
	return NULL;
}

/* A (minor, job_id) key of row @r; all ones when either is empty */
static uint64_t npp_job_key(struct npp_col *minor, struct npp_col *job,
			    size_t r)
{
	if ((minor->null && minor->null[r]) || (job->null && job->null[r]))
		return UINT64_MAX;
	return ((uint64_t *)minor->data)[r] << 48 ^ ((uint64_t *)job->data)[r];
}

/*
 * For each operator record, the execution row of its job (NPP_NOSTR when
 * none): a hash over the executions' (minor, job_id). NULL: no memory,
 * or an error).
 */
static uint32_t *npp_gather_jobs(struct npp_tab *ex, struct npp_tab *op)
{
	struct npp_col *em = npp_find(ex, "minor"), *ej = npp_find(ex, "job_id");
	struct npp_col *om = npp_find(op, "minor"), *oj = npp_find(op, "job_id");
	uint32_t *slot, *g, nslot = 1, j;
	size_t r;

	g = malloc((op->rows ? op->rows : 1) * sizeof(*g));
	if (!g)
		return NULL;
	for (r = 0; r < op->rows; r++)
		g[r] = NPP_NOSTR;
	if (!em || !ej || !om || !oj || !ex->rows || ex->rows >= NPP_NOSTR)
		return g;
	while (nslot < ex->rows * 2)
		nslot *= 2;
	slot = calloc(nslot, sizeof(*slot));
	if (!slot) {
		free(g);
		return NULL;
	}
	for (r = 0; r < ex->rows; r++) {
		uint64_t key = npp_job_key(em, ej, r);

		if (key == UINT64_MAX)
			continue;
		for (j = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (nslot - 1);
		     slot[j]; j = (j + 1) & (nslot - 1))
			if (npp_job_key(em, ej, slot[j] - 1) == key)
				break;
		if (!slot[j])
			slot[j] = (uint32_t)r + 1;	/* the first execution */
	}
	for (r = 0; r < op->rows; r++) {
		uint64_t key = npp_job_key(om, oj, r);

		if (key == UINT64_MAX)
			continue;
		for (j = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (nslot - 1);
		     slot[j]; j = (j + 1) & (nslot - 1))
			if (npp_job_key(em, ej, slot[j] - 1) == key) {
				g[r] = slot[j] - 1;
				break;
			}
	}
	free(slot);
	return g;
}

/* Resolve the sources of reference column @r in @tabs into @segs */
static void npp_ref_segs(struct npp_tab **tabs, int r, struct npp_seg *segs,
			 const uint32_t *gather)
{
	unsigned int t;

	for (t = 0; t < 3; t++) {
		const struct npp_src *src = &npp_ref[r].src[t];
		struct npp_seg *sg = &segs[t];
		struct npp_tab *from = src->gather ? tabs[1] : tabs[t];

		*sg = (struct npp_seg){ .how = src->how, .rows = tabs[t]->rows };
		if (src->how == NPP_CONST) {
			sg->cstr = src->col;
		} else if (src->how == NPP_COL) {
			sg->col = npp_find(from, src->col);
			sg->alt = npp_find(from, src->alt);
			sg->gather = src->gather ? gather : NULL;
			if (!sg->col || (src->gather && !gather))
				sg->how = NPP_NONE;
		}
	}
}

/* Does a row of @t have a layer: a non-empty string in its "layer"? */
static bool npp_has_layers(struct npp_tab *t)
{
	struct npp_col *c = npp_find(t, "layer");
	uint32_t i;

	for (i = 0; c && i < c->st.n; i++)
		if (c->st.ent[i] & 0xffffff)
			return true;
	return false;
}

PyObject *npp_frames_reference(struct npp_frames *f, const char *const *cols)
{
	struct npp_tab *tabs[3];
	PyObject *names = NULL, *arrays = NULL, *df = NULL;
	uint32_t *gather = NULL;
	struct npp_seg segs[3];
	int idx[NPP_MAXWANT];
	unsigned int k, t, n, nall = NPP_NREF;
	size_t rows = 0;

	for (t = 0; t < 3; t++) {
		tabs[t] = &f->tab[npp_ref_tabs[t]];
		rows += tabs[t]->rows;
	}
	/* every column: the layer's when a record has one */
	if (!cols && !npp_has_layers(tabs[2]))
		nall = NPP_NREF_LAYER;
	for (n = 0; cols ? cols[n] != NULL : n < nall; n++) {
		if (n == NPP_MAXWANT) {
			PyErr_SetString(PyExc_ValueError,
					"get_pandas_dataframe(): too many columns");
			return NULL;
		}
		idx[n] = cols ? npp_ref_index(cols[n]) : (int)n;
		if (idx[n] < 0) {
			PyErr_Format(PyExc_ValueError,
				     "get_pandas_dataframe(): no column '%s'",
				     cols[n]);
			return NULL;
		}
		for (t = 0; t < 3; t++)
			if (npp_ref[idx[n]].src[t].gather && !gather &&
			    !(gather = npp_gather_jobs(tabs[1], tabs[2])))
				return PyErr_NoMemory();
	}
	/* how many frame columns each source feeds: freed after the last */
	for (k = 0; k < n; k++) {
		npp_ref_segs(tabs, idx[k], segs, gather);
		for (t = 0; t < 3; t++) {
			if (segs[t].how != NPP_COL)
				continue;
			segs[t].col->uses++;
			if (segs[t].alt)
				segs[t].alt->uses++;
		}
	}
	names = PyList_New(0);
	arrays = PyList_New(0);
	if (!names || !arrays)
		goto out;
	for (k = 0; k < n; k++) {
		npp_ref_segs(tabs, idx[k], segs, gather);
		if (npp_append(names, arrays, npp_ref[idx[k]].name, segs, 3, rows))
			goto out;
		for (t = 0; t < 3; t++) {
			if (segs[t].how != NPP_COL)
				continue;
			if (!--segs[t].col->uses)
				npp_col_release(segs[t].col);
			if (segs[t].alt && !--segs[t].alt->uses)
				npp_col_release(segs[t].alt);
		}
	}
	df = npp_dataframe(names, arrays);
out:
	free(gather);
	Py_XDECREF(names);
	Py_XDECREF(arrays);
	return df;
}
