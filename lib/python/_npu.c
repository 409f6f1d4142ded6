// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * _npu.c - the C extension of the Python package npu, the runtime: a model
 * file loaded as an npu.Model (no device needed), an npu.Session that runs
 * it on a device, shaped like furiosa.runtime.session, and npu.Future, one
 * submitted inference. Written against the CPython and NumPy C APIs over
 * the public API of libnpu (libnpu.h), linked in statically.
 *
 * Objects and lifetimes: a Session holds its Model, the device and the
 * runner; a Future holds its Session and one inference context of the
 * runner. Session.close() refuses new work at once, and frees the runner
 * and the device when the last acquired context has been released, so a
 * Future that outlives close() is still waited for correctly.
 *
 * Threads: the GIL is released around every call that may block or
 * computes over a tensor: model loading, device opening, acquiring a
 * context (it waits for a free one), Quantize and Lower, submission, the
 * wait, Unlower and Dequantize, release. Session fields that say what is
 * live (closed, nlive) are only touched with the GIL held.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structseq.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <npu/npu_model_file.h>
#include <npu/npu_model_layers.h>
#include <npu/npu_program.h>

#include "libnpu.h"
#include "npuref.h"

static PyObject *npu_error;		/* npu.Error, a subclass of OSError */
static PyObject *npu_input_error;	/* npu.InputError(Error, ValueError) */

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* Raise @type(errno, message[, filename]); returns NULL */
static PyObject *npu_raise(PyObject *type, int err, const char *msg,
			   const char *path)
{
	PyObject *exc;

	if (err < 0)
		err = -err;
	if (!msg || !*msg)
		msg = strerror(err);
	if (path)
		exc = PyObject_CallFunction(type, "isN", err, msg,
					    PyUnicode_DecodeFSDefault(path));
	else
		exc = PyObject_CallFunction(type, "is", err, msg);
	if (exc) {
		PyErr_SetObject(type, exc);
		Py_DECREF(exc);
	}
	return NULL;
}

/* Raise npu.Error(errno, message, @path), a str; returns NULL */
static PyObject *npu_raise_obj(int err, const char *msg, PyObject *path)
{
	PyObject *exc;

	if (err < 0)
		err = -err;
	exc = PyObject_CallFunction(npu_error, "isO", err, msg, path);
	if (exc) {
		PyErr_SetObject(npu_error, exc);
		Py_DECREF(exc);
	}
	return NULL;
}

/* Raise npu.InputError(EINVAL, printf-formatted message); returns NULL */
static PyObject *npu_input_raise(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return npu_raise(npu_input_error, EINVAL, msg, NULL);
}

/* A timeout in seconds (None: forever) as libnpu's ns (-1: forever) */
static int npu_timeout_ns(PyObject *obj, int64_t *ns)
{
	double s;

	if (!obj || obj == Py_None) {
		*ns = -1;
		return 0;
	}
	if (!PyFloat_Check(obj) && !PyLong_Check(obj)) {
		PyErr_Format(PyExc_TypeError,
			     "timeout must be a number of seconds or None, not %.100s",
			     Py_TYPE(obj)->tp_name);
		return -1;
	}
	s = PyFloat_AsDouble(obj);
	if (s == -1.0 && PyErr_Occurred())
		return -1;
	if (!(s >= 0)) {
		PyErr_SetString(PyExc_ValueError,
				"timeout must be >= 0 seconds, or None");
		return -1;
	}
	*ns = s >= 9.2e9 ? INT64_MAX : (int64_t)(s * 1e9);
	return 0;
}

/* ------------------------------------------------------------------ */
/* TensorDesc: a named tuple                                           */
/* ------------------------------------------------------------------ */

static PyStructSequence_Field npu_desc_fields[] = {
	{ "name", "the tensor's name in the model file" },
	{ "shape", "tuple of ints: the host array's shape (4-D: N, H, W, C)" },
	{ "dtype", "numpy.dtype: uint8, the device tensor's (Model); for a "
		   "Session's outputs, the dtype run() returns" },
	{ "scale", "quantization: real = (q - zero_point) * scale" },
	{ "zero_point", "quantization: the q of real 0.0, 0..255" },
	{ "layout", "the device layout: 'plain' or 'nchwc16'" },
	{ NULL, NULL }
};

static PyStructSequence_Desc npu_desc_desc = {
	"npu.TensorDesc",
	"An input or output of a model: name, shape, dtype, scale, zero_point,\n"
	"layout.",
	npu_desc_fields,
	6,
};

static PyTypeObject npu_desc_type;

/* A TensorDesc of @d whose dtype is @type_num (NPY_UINT8, NPY_FLOAT32) */
static PyObject *npu_desc_new(const struct npu_tensor_desc *d, int type_num)
{
	PyObject *t, *shape;
	uint32_t i;

	t = PyStructSequence_New(&npu_desc_type);
	if (!t)
		return NULL;
	shape = PyTuple_New(d->ndim);
	if (!shape)
		goto fail;
	for (i = 0; i < d->ndim; i++) {
		PyObject *v = PyLong_FromUnsignedLong(d->dims[i]);

		if (!v) {
			Py_DECREF(shape);
			goto fail;
		}
		PyTuple_SET_ITEM(shape, i, v);
	}
	PyStructSequence_SET_ITEM(t, 0, PyUnicode_FromString(d->name));
	PyStructSequence_SET_ITEM(t, 1, shape);
	PyStructSequence_SET_ITEM(t, 2, (PyObject *)PyArray_DescrFromType(type_num));
	PyStructSequence_SET_ITEM(t, 3, PyFloat_FromDouble(d->scale));
	PyStructSequence_SET_ITEM(t, 4, PyLong_FromLong(d->zero_point));
	PyStructSequence_SET_ITEM(t, 5, PyUnicode_FromString(
		d->layout == NPU_LAYOUT_NCHWC16 ? "nchwc16" : "plain"));
	for (i = 0; i < 6; i++)
		if (!PyStructSequence_GET_ITEM(t, i))
			goto fail;
	return t;
fail:
	Py_DECREF(t);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Model                                                                */
/* ------------------------------------------------------------------ */

typedef struct {
	PyObject_HEAD
	struct npu_model *m;
	PyObject *path;		/* str */
} npu_model_obj;

static PyTypeObject npu_model_type;

/* Load @path (str, bytes or os.PathLike) into a new Model */
static npu_model_obj *npu_model_load_obj(PyObject *pathobj)
{
	struct npu_model *m = NULL;
	npu_model_obj *self;
	PyObject *bytes = NULL;
	char err[512] = "";
	const char *path;
	int ret;

	if (!PyUnicode_FSConverter(pathobj, &bytes))
		return NULL;
	path = PyBytes_AS_STRING(bytes);
	Py_BEGIN_ALLOW_THREADS
	ret = npu_model_load(path, &m, err, sizeof(err));
	Py_END_ALLOW_THREADS
	if (ret) {
		npu_raise(npu_error, ret, err, path);
		Py_DECREF(bytes);
		return NULL;
	}
	self = PyObject_New(npu_model_obj, &npu_model_type);
	if (!self) {
		npu_model_free(m);
		Py_DECREF(bytes);
		return NULL;
	}
	self->m = m;
	self->path = PyUnicode_DecodeFSDefault(path);
	Py_DECREF(bytes);
	if (!self->path) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

/* @arg, an npu.Model or a path, as a new reference to a Model */
static npu_model_obj *npu_model_from_arg(PyObject *arg)
{
	if (PyObject_TypeCheck(arg, &npu_model_type))
		return (npu_model_obj *)Py_NewRef(arg);
	if (PyUnicode_Check(arg) || PyBytes_Check(arg) ||
	    PyObject_HasAttrString(arg, "__fspath__"))
		return npu_model_load_obj(arg);
	PyErr_Format(PyExc_TypeError, "model must be a path or an npu.Model, not %.100s",
		     Py_TYPE(arg)->tp_name);
	return NULL;
}

static PyObject *npu_model_tp_new(PyTypeObject *type, PyObject *args,
				  PyObject *kw)
{
	static char *kwlist[] = { "path", NULL };
	PyObject *path;

	(void)type;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Model", kwlist, &path))
		return NULL;
	return (PyObject *)npu_model_load_obj(path);
}

static void npu_model_dealloc(npu_model_obj *self)
{
	npu_model_free(self->m);
	Py_XDECREF(self->path);
	PyObject_Free(self);
}

/*
 * A list of TensorDesc, of the inputs (@out 0) or the outputs; the
 * outputs' dtype is @out_type (the inputs' is the device's, uint8)
 */
static PyObject *npu_model_descs(struct npu_model *m, int out, int out_type)
{
	unsigned int i, n = out ? npu_model_num_outputs(m) :
				  npu_model_num_inputs(m);
	PyObject *list = PyList_New(n);

	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		PyObject *d = out ? npu_desc_new(npu_model_output(m, i), out_type) :
				    npu_desc_new(npu_model_input(m, i), NPY_UINT8);
		if (!d) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, i, d);
	}
	return list;
}

static PyObject *npu_model_inputs(npu_model_obj *self, PyObject *unused)
{
	(void)unused;
	return npu_model_descs(self->m, 0, NPY_UINT8);
}

static PyObject *npu_model_outputs(npu_model_obj *self, PyObject *unused)
{
	(void)unused;
	return npu_model_descs(self->m, 1, NPY_UINT8);
}

static PyObject *npu_model_get_name(npu_model_obj *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(npu_model_name(self->m));
}

static PyObject *npu_model_get_path(npu_model_obj *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->path);
}

/* @n shapes as every report prints them: "u8[1,28,28,1] i8[16,3,3,1]" */
static PyObject *npu_shapes_str(const struct npu_layer_shape *s,
				unsigned int n)
{
	char buf[NPU_LAYER_MAX_IN * 64];

	/* 3 shapes of 4 dims of at most 10 digits: under 64 bytes each */
	npu_layer_shapes_fmt(s, n, buf, sizeof(buf));
	return PyUnicode_FromString(buf);
}

/*
 * One layer: the descriptors [@first, @first + @n) of @h, consecutive
 * operators of one name; shapes of the first's inputs and the last's
 * output, MACs and weight bytes summed
 */
static PyObject *npu_layer_dict(const struct npu_layers_hdr *h,
				uint32_t first, uint32_t n)
{
	const struct npu_layer_desc *d = npu_layers_desc(h, first);
	const struct npu_layer_desc *last = npu_layers_desc(h, first + n - 1);
	unsigned long long macs = 0, wb = 0;
	PyObject *ops, *in, *out, *dict;
	uint32_t i;

	ops = PyList_New(n);
	if (!ops)
		return NULL;
	for (i = 0; i < n; i++) {
		PyObject *v = PyLong_FromUnsignedLong(first + i);

		if (!v) {
			Py_DECREF(ops);
			return NULL;
		}
		PyList_SET_ITEM(ops, i, v);
		macs += npu_layers_desc(h, first + i)->macs;
		wb += npu_layers_desc(h, first + i)->weight_bytes;
	}
	in = npu_shapes_str(d->in, d->n_in);
	out = npu_shapes_str(&last->out, last->n_out);
	dict = in && out ?
		Py_BuildValue("{s:s,s:s,s:O,s:O,s:K,s:K,s:O}",
			      "name", npu_layers_str(h, d->name),
			      "op_type", npu_layers_str(h, d->op_type),
			      "in_shapes", in, "out_shapes", out,
			      "macs", macs, "weight_bytes", wb, "ops", ops) :
		NULL;
	Py_XDECREF(in);
	Py_XDECREF(out);
	Py_DECREF(ops);
	return dict;
}

static PyObject *npu_model_get_layers(npu_model_obj *self, void *closure)
{
	const struct npu_layers_hdr *h;
	PyObject *list, *d;
	uint32_t i, n;

	(void)closure;
	list = PyList_New(0);
	if (!list || npu_model_layers(self->m, (const void **)&h, NULL))
		return list;
	for (i = 0; i < h->n_layers; i += n) {
		const char *name = npu_layers_str(h, npu_layers_desc(h, i)->name);

		for (n = 1; i + n < h->n_layers; n++)
			if (strcmp(name, npu_layers_str(h,
					npu_layers_desc(h, i + n)->name)))
				break;
		d = npu_layer_dict(h, i, n);
		if (!d || PyList_Append(list, d)) {
			Py_XDECREF(d);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(d);
	}
	return list;
}

static PyObject *npu_model_repr(npu_model_obj *self)
{
	return PyUnicode_FromFormat("<npu.Model %s from %R: %u inputs, %u outputs>",
				    npu_model_name(self->m), self->path,
				    npu_model_num_inputs(self->m),
				    npu_model_num_outputs(self->m));
}

static PyMethodDef npu_model_methods[] = {
	{ "inputs", (PyCFunction)npu_model_inputs, METH_NOARGS,
	  "inputs() -> list of TensorDesc" },
	{ "outputs", (PyCFunction)npu_model_outputs, METH_NOARGS,
	  "outputs() -> list of TensorDesc" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef npu_model_getset[] = {
	{ "name", (getter)npu_model_get_name, NULL, "the model's name", NULL },
	{ "path", (getter)npu_model_get_path, NULL, "the file it was loaded from", NULL },
	{ "layers", (getter)npu_model_get_layers, NULL,
	  "list of dict: the source model's layers, from the model file's\n"
	  "layer table (Documentation/npu/model.rst, \"Layer table\"), in\n"
	  "program order; [] for a file without one. Consecutive operators of\n"
	  "one layer name make one entry. Keys: name (str: the layer, ONNX:\n"
	  "the node name), op_type (str, fused ops joined by '+', e.g.\n"
	  "'Conv2D+Relu6'), in_shapes (str: the data inputs, weights and bias\n"
	  "of its first operator, 'u8[1,28,28,1] i8[16,3,3,1] i32[16]', the\n"
	  "source model's dims as every report prints them), out_shapes (str:\n"
	  "its last operator's output), macs and weight_bytes (int: summed\n"
	  "over its operators), ops (list of int: the program operator\n"
	  "indices, consecutive).", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject npu_model_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "npu.Model",
	.tp_doc = "Model(path): a model file (.nmdl), loaded and validated\n"
		  "by libnpu with no device; inputs() and outputs() describe it.",
	.tp_basicsize = sizeof(npu_model_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = npu_model_tp_new,
	.tp_dealloc = (destructor)npu_model_dealloc,
	.tp_repr = (reprfunc)npu_model_repr,
	.tp_methods = npu_model_methods,
	.tp_getset = npu_model_getset,
};

/* ------------------------------------------------------------------ */
/* Session                                                              */
/* ------------------------------------------------------------------ */

/*
 * An orphan: the context of a Future freed while its job was still on the
 * device (a run() or wait() that timed out, a Future never waited for).
 * Freeing the Future does not wait for the job, which on a stalled PE ends
 * only when the driver's job_timeout_ms resets the device (never with 0):
 * the session keeps the context, oldest first, and collects it later.
 */
struct npu_orphan {
	struct npu_inference *inf;
	struct npu_orphan *next;
};

typedef struct {
	PyObject_HEAD
	npu_model_obj *model;
	struct npu_device *dev;
	struct npu_runner *runner;
	PyObject *dev_path;	/* str */
	int64_t timeout_ns;	/* of run(); -1: none */
	unsigned int ncontexts;	/* the runner's */
	unsigned int nlive;	/* contexts acquired, or being acquired, orphans included */
	struct npu_orphan *orphans;	/* oldest first; not those being collected */
	int out_type;		/* of the outputs: NPY_FLOAT32 or NPY_UINT8 */
	int closed;
} npu_session;

static PyTypeObject npu_session_type;

/* Free the runner and the device once closed and no context is live */
static void npu_session_finish(npu_session *self)
{
	struct npu_runner *runner = self->runner;
	struct npu_device *dev = self->dev;

	if (!self->closed || self->nlive)
		return;
	self->runner = NULL;
	self->dev = NULL;
	if (!runner && !dev)
		return;
	Py_BEGIN_ALLOW_THREADS
	npu_runner_free(runner);
	npu_device_close(dev);
	Py_END_ALLOW_THREADS
}

static int npu_session_check(npu_session *self)
{
	if (self->closed) {
		PyErr_SetString(PyExc_ValueError, "operation on a closed session");
		return -1;
	}
	return 0;
}

static int64_t npu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Orphans of the session (the last after the first) */
static void npu_orphans_append(npu_session *self, struct npu_orphan *list)
{
	struct npu_orphan **pp = &self->orphans;

	while (*pp)
		pp = &(*pp)->next;
	*pp = list;
}

static unsigned int npu_orphans_count(const npu_session *self)
{
	const struct npu_orphan *o;
	unsigned int n = 0;

	for (o = self->orphans; o; o = o->next)
		n++;
	return n;
}

/*
 * Collect the orphans whose job has ended: each is polled (a wait of 0 ns)
 * with the GIL released, the list taken off the session meanwhile so that
 * two threads never collect the same one. GIL held.
 */
static void npu_session_reap(npu_session *self)
{
	struct npu_orphan *list = self->orphans, *done = NULL, *o, **pp;

	if (!list)
		return;
	self->orphans = NULL;
	Py_BEGIN_ALLOW_THREADS
	for (pp = &list; (o = *pp);) {
		if (npu_inference_wait(o->inf, 0, NULL) == -ETIMEDOUT) {
			pp = &o->next;
			continue;
		}
		npu_inference_release(o->inf);
		*pp = o->next;
		o->next = done;
		done = o;
	}
	Py_END_ALLOW_THREADS
	/* older than those orphaned meanwhile */
	o = self->orphans;
	self->orphans = list;
	npu_orphans_append(self, o);
	while ((o = done)) {
		done = o->next;
		PyMem_RawFree(o);
		self->nlive--;
	}
	npu_session_finish(self);
}

/*
 * Wait up to @timeout_ns (-1: until it ends) for the job of the oldest
 * orphan and collect it. GIL held. Returns 0, or -ETIMEDOUT (it is kept).
 */
static int npu_session_collect_oldest(npu_session *self, int64_t timeout_ns)
{
	struct npu_orphan *o = self->orphans;
	int ret;

	self->orphans = o->next;
	Py_BEGIN_ALLOW_THREADS
	ret = npu_inference_wait(o->inf, timeout_ns, NULL);
	if (ret != -ETIMEDOUT)
		npu_inference_release(o->inf);
	Py_END_ALLOW_THREADS
	if (ret == -ETIMEDOUT) {
		o->next = self->orphans;
		self->orphans = o;
		return ret;
	}
	PyMem_RawFree(o);
	self->nlive--;
	return 0;
}

/*
 * Before a context is acquired: collect the orphans that are done, and
 * while every context is taken, some by orphans, wait for the oldest (up
 * to @timeout_ns in all; -1: until its job ends, which the driver's
 * job_timeout_ms bounds). Without it npu_runner_acquire() would wait for
 * ever for contexts nobody gives back. GIL held. Returns 0, or -1 with an
 * exception: npu.Error ETIMEDOUT, or ValueError when the session was
 * closed meanwhile.
 */
static int npu_session_make_room(npu_session *self, int64_t timeout_ns)
{
	int64_t deadline = timeout_ns > 0 ? npu_now_ns() + timeout_ns : 0;
	int64_t left = timeout_ns;

	npu_session_reap(self);
	while (!self->closed && self->orphans && self->nlive >= self->ncontexts) {
		if (timeout_ns > 0) {
			left = deadline - npu_now_ns();
			if (left < 0)
				left = 0;
		}
		if (npu_session_collect_oldest(self, left) == -ETIMEDOUT) {
			char msg[256];

			snprintf(msg, sizeof(msg),
				 "no free context within %.3f s: %u of the session's %u "
				 "are held by jobs that timed out and are still on the device",
				 timeout_ns / 1e9, npu_orphans_count(self),
				 self->ncontexts);
			npu_raise_obj(ETIMEDOUT, msg, self->dev_path);
			return -1;
		}
	}
	if (npu_session_check(self)) {	/* closed by another thread */
		npu_session_finish(self);
		return -1;
	}
	return 0;
}

/* pes: None or a sequence of ints, into @opts */
static int npu_parse_pes(PyObject *pes, struct npu_runner_opts *opts)
{
	PyObject *seq;
	Py_ssize_t i, n;

	if (!pes || pes == Py_None)
		return 0;
	seq = PySequence_Fast(pes, "pes must be a sequence of ints or None");
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n < 1 || n > (Py_ssize_t)(sizeof(opts->pes) / sizeof(opts->pes[0]))) {
		Py_DECREF(seq);
		PyErr_Format(PyExc_ValueError, "pes: 1 to %zu PEs, not %zd",
			     sizeof(opts->pes) / sizeof(opts->pes[0]), n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		PyObject *v = PySequence_Fast_GET_ITEM(seq, i);
		long pe;

		if (!PyLong_Check(v)) {
			PyErr_Format(PyExc_TypeError, "pes[%zd] must be an int, not %.100s",
				     i, Py_TYPE(v)->tp_name);
			Py_DECREF(seq);
			return -1;
		}
		pe = PyLong_AsLong(v);
		if (pe == -1 && PyErr_Occurred()) {
			Py_DECREF(seq);
			return -1;
		}
		if (pe < 0 || pe > (long)UINT32_MAX) {
			PyErr_Format(PyExc_ValueError, "pes[%zd] = %ld is not a PE index",
				     i, pe);
			Py_DECREF(seq);
			return -1;
		}
		opts->pes[i] = (uint32_t)pe;
	}
	opts->n_pes = (unsigned int)n;
	Py_DECREF(seq);
	return 0;
}

/*
 * output_dtype: None or float32 (Dequantized), or uint8 (the device's
 * quantized values, unlowered only); model file v1 has uint8 tensors alone
 */
static int npu_parse_out_type(PyObject *obj, int *type)
{
	PyArray_Descr *d = NULL;
	int t;

	if (!obj || obj == Py_None) {
		*type = NPY_FLOAT32;
		return 0;
	}
	if (!PyArray_DescrConverter(obj, &d))
		return -1;
	t = d->type_num;
	if (t != NPY_FLOAT32 && t != NPY_UINT8) {
		PyErr_Format(PyExc_ValueError,
			     "output_dtype %R: float32 (dequantized) or uint8 (as the "
			     "device computed them, the dtype of Model.outputs())",
			     (PyObject *)d);
		Py_DECREF(d);
		return -1;
	}
	Py_DECREF(d);
	*type = t;
	return 0;
}

static PyObject *npu_session_tp_new(PyTypeObject *type, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "model", "device", "pes", "contexts",
				  "timeout", "output_dtype", NULL };
	PyObject *model_arg, *device = Py_None, *pes = Py_None, *timeout = Py_None;
	PyObject *out_dtype = Py_None, *dev_bytes = NULL;
	struct npu_runner_opts opts;
	struct npu_device *dev = NULL;
	struct npu_runner *runner = NULL;
	npu_model_obj *model;
	npu_session *self;
	unsigned int contexts = 0;
	int64_t timeout_ns;
	char idx_path[32];
	const char *dev_path;
	long index = -1;
	int ret, out_type;

	(void)type;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOIOO:Session", kwlist,
					 &model_arg, &device, &pes, &contexts,
					 &timeout, &out_dtype))
		return NULL;
	npu_runner_opts_init(&opts);
	if (contexts)
		opts.contexts = contexts;
	if (npu_parse_pes(pes, &opts) || npu_timeout_ns(timeout, &timeout_ns) ||
	    npu_parse_out_type(out_dtype, &out_type))
		return NULL;
	if (device == Py_None) {
		index = 0;
	} else if (PyLong_Check(device)) {
		index = PyLong_AsLong(device);
		if (index == -1 && PyErr_Occurred())
			return NULL;
		if (index < 0 || index > (long)UINT32_MAX) {
			PyErr_Format(PyExc_ValueError, "device index %ld out of range", index);
			return NULL;
		}
	} else if (PyUnicode_Check(device) || PyBytes_Check(device) ||
		   PyObject_HasAttrString(device, "__fspath__")) {
		if (!PyUnicode_FSConverter(device, &dev_bytes))
			return NULL;
	} else {
		PyErr_Format(PyExc_TypeError,
			     "device must be None, an int or a path, not %.100s",
			     Py_TYPE(device)->tp_name);
		return NULL;
	}

	/* the model first: a bad file is reported whatever the device */
	model = npu_model_from_arg(model_arg);
	if (!model) {
		Py_XDECREF(dev_bytes);
		return NULL;
	}

	if (dev_bytes) {
		dev_path = PyBytes_AS_STRING(dev_bytes);
	} else {
		snprintf(idx_path, sizeof(idx_path), "/dev/npu%ld", index);
		dev_path = idx_path;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = npu_device_open(dev_path, &dev);
	if (!ret)
		ret = npu_runner_create(dev, model->m, &opts, &runner);
	Py_END_ALLOW_THREADS
	if (ret) {
		char msg[256];

		if (!dev)
			snprintf(msg, sizeof(msg), "cannot open the NPU: %s%s",
				 strerror(-ret), ret == -ENOENT ?
				 " (no such device: is npu.ko loaded?)" : "");
		else
			snprintf(msg, sizeof(msg), "cannot prepare model %s: %s",
				 npu_model_name(model->m), strerror(-ret));
		npu_raise(npu_error, ret, msg, dev_path);
		goto fail;
	}
	self = PyObject_New(npu_session, &npu_session_type);
	if (!self)
		goto fail;
	self->model = model;
	self->dev = dev;
	self->runner = runner;
	self->timeout_ns = timeout_ns;
	self->ncontexts = opts.contexts;
	self->nlive = 0;
	self->orphans = NULL;
	self->out_type = out_type;
	self->closed = 0;
	self->dev_path = PyUnicode_DecodeFSDefault(dev_path);
	Py_XDECREF(dev_bytes);
	if (!self->dev_path) {
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
fail:
	Py_BEGIN_ALLOW_THREADS
	npu_runner_free(runner);
	npu_device_close(dev);
	Py_END_ALLOW_THREADS
	Py_DECREF(model);
	Py_XDECREF(dev_bytes);
	return NULL;
}

static void npu_session_dealloc(npu_session *self)
{
	/* no Future is left (each holds a reference), orphans may be */
	self->closed = 1;
	while (self->orphans)
		npu_session_collect_oldest(self, -1);
	npu_session_finish(self);
	Py_XDECREF(self->model);
	Py_XDECREF(self->dev_path);
	PyObject_Free(self);
}

static PyObject *npu_session_close(npu_session *self, PyObject *unused)
{
	(void)unused;
	self->closed = 1;
	npu_session_reap(self);	/* the rest when the session is freed */
	npu_session_finish(self);
	Py_RETURN_NONE;
}

static PyObject *npu_session_enter(npu_session *self, PyObject *unused)
{
	(void)unused;
	if (npu_session_check(self))
		return NULL;
	return Py_NewRef(self);
}

static PyObject *npu_session_exit(npu_session *self, PyObject *args)
{
	(void)args;
	return npu_session_close(self, NULL);
}

static PyObject *npu_session_inputs(npu_session *self, PyObject *unused)
{
	(void)unused;
	if (npu_session_check(self))
		return NULL;
	return npu_model_descs(self->model->m, 0, NPY_UINT8);
}

static PyObject *npu_session_outputs(npu_session *self, PyObject *unused)
{
	(void)unused;
	if (npu_session_check(self))
		return NULL;
	return npu_model_descs(self->model->m, 1, self->out_type);
}

/* ------------------------------------------------------------------ */
/* Future: one submitted inference                                      */
/* ------------------------------------------------------------------ */

typedef struct {
	PyObject_HEAD
	npu_session *sess;
	struct npu_inference *inf;	/* NULL once released */
	PyObject *result;		/* list of arrays, once done */
	struct npu_job_result res;
	int err;			/* the failure, once failed */
	int busy;			/* a thread is in wait() */
} npu_future;

static PyTypeObject npu_future_type;

/* Give the context back (GIL released: it waits for a submitted job) */
static void npu_future_release(npu_future *self)
{
	struct npu_inference *inf = self->inf;

	if (!inf)
		return;
	self->inf = NULL;
	Py_BEGIN_ALLOW_THREADS
	npu_inference_release(inf);
	Py_END_ALLOW_THREADS
	self->sess->nlive--;
	npu_session_finish(self->sess);
}

/*
 * A Future freed with its job still on the device: its context becomes an
 * orphan of the session (no wait here, which could be for ever); else it
 * is given back. GIL held.
 */
static void npu_future_drop(npu_future *self)
{
	struct npu_inference *inf = self->inf;
	npu_session *sess = self->sess;
	struct npu_orphan *o;
	int ret;

	if (!inf)
		return;
	self->inf = NULL;
	o = PyMem_RawMalloc(sizeof(*o));
	Py_BEGIN_ALLOW_THREADS
	ret = npu_inference_wait(inf, 0, NULL);	/* -EINVAL: not submitted */
	if (ret != -ETIMEDOUT || !o)	/* no memory: wait for it here */
		npu_inference_release(inf);
	Py_END_ALLOW_THREADS
	if (ret == -ETIMEDOUT && o) {
		o->inf = inf;
		o->next = NULL;
		npu_orphans_append(sess, o);
		return;
	}
	PyMem_RawFree(o);
	sess->nlive--;
	npu_session_finish(sess);
}

static void npu_future_dealloc(npu_future *self)
{
	if (self->sess) {
		npu_future_drop(self);
		Py_DECREF(self->sess);
	}
	Py_XDECREF(self->result);
	PyObject_Free(self);
}

/*
 * The inputs of Session.submit()/run() and reference_run(): one ndarray or a list or tuple of
 * them, one per model input, each of the input's shape and of dtype
 * float32 (quantized here) or uint8 (already quantized). Returns new
 * C-contiguous references in @arrs (npu_free_arrays() them), or -1.
 */
static int npu_parse_inputs(const struct npu_model *m, PyObject *arg,
			    PyArrayObject ***arrs_out, unsigned int *n_out)
{
	unsigned int i, n = npu_model_num_inputs(m);
	PyArrayObject **arrs;
	PyObject *seq;
	Py_ssize_t given;

	if (PyArray_Check(arg)) {
		seq = PyTuple_Pack(1, arg);
	} else if (PyList_Check(arg) || PyTuple_Check(arg)) {
		seq = PySequence_Tuple(arg);
	} else {
		PyErr_Format(PyExc_TypeError,
			     "inputs must be a numpy.ndarray or a list of them, not %.100s",
			     Py_TYPE(arg)->tp_name);
		return -1;
	}
	if (!seq)
		return -1;
	given = PyTuple_GET_SIZE(seq);
	if (given != (Py_ssize_t)n) {
		Py_DECREF(seq);
		npu_input_raise("model %s takes %u input%s, %zd given",
				npu_model_name(m), n, n == 1 ? "" : "s", given);
		return -1;
	}
	arrs = PyMem_Calloc(n, sizeof(*arrs));
	if (!arrs) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct npu_tensor_desc *d = npu_model_input(m, i);
		PyObject *a = PyTuple_GET_ITEM(seq, i);
		int type, nd, k, ok;

		if (!PyArray_Check(a)) {
			PyErr_Format(PyExc_TypeError,
				     "input %u must be a numpy.ndarray, not %.100s",
				     i, Py_TYPE(a)->tp_name);
			goto fail;
		}
		type = PyArray_TYPE((PyArrayObject *)a);
		if (type != NPY_FLOAT32 && type != NPY_UINT8) {
			PyObject *r = PyObject_Repr((PyObject *)PyArray_DESCR((PyArrayObject *)a));

			npu_input_raise("input %u '%s': dtype %s, not float32 (quantized "
					"by the runtime) or uint8 (already quantized)",
					i, d->name, r ? PyUnicode_AsUTF8(r) : "?");
			Py_XDECREF(r);
			goto fail;
		}
		nd = PyArray_NDIM((PyArrayObject *)a);
		ok = nd == (int)d->ndim;
		for (k = 0; ok && k < nd; k++)
			ok = PyArray_DIM((PyArrayObject *)a, k) == (npy_intp)d->dims[k];
		if (!ok) {
			PyObject *shape = PyObject_GetAttrString(a, "shape");
			PyObject *want = PyTuple_New(d->ndim);
			PyObject *rs = NULL, *rw = NULL;

			for (k = 0; want && k < (int)d->ndim; k++)
				PyTuple_SET_ITEM(want, k, PyLong_FromUnsignedLong(d->dims[k]));
			if (shape && want) {
				rs = PyObject_Repr(shape);
				rw = PyObject_Repr(want);
			}
			if (rs && rw)
				npu_input_raise("input %u '%s': shape %s, the model's is %s",
						i, d->name, PyUnicode_AsUTF8(rs),
						PyUnicode_AsUTF8(rw));
			Py_XDECREF(shape);
			Py_XDECREF(want);
			Py_XDECREF(rs);
			Py_XDECREF(rw);
			goto fail;
		}
		arrs[i] = (PyArrayObject *)PyArray_FROM_OTF(a, type, NPY_ARRAY_IN_ARRAY);
		if (!arrs[i])
			goto fail;
	}
	Py_DECREF(seq);
	*arrs_out = arrs;
	*n_out = n;
	return 0;
fail:
	for (i = 0; i < n; i++)
		Py_XDECREF(arrs[i]);
	PyMem_Free(arrs);
	Py_DECREF(seq);
	return -1;
}

static void npu_free_arrays(PyArrayObject **arrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		Py_XDECREF(arrs[i]);
	PyMem_Free(arrs);
}

/*
 * Session.submit(inputs) -> Future; @timeout_ns bounds the wait for a
 * context held by an orphan
 */
static PyObject *npu_session_submit_impl(npu_session *self, PyObject *inputs,
					 int64_t timeout_ns)
{
	struct npu_inference *inf = NULL;
	PyArrayObject **arrs;
	npu_future *fut;
	unsigned int i, n;
	int ret = 0;

	if (npu_session_check(self) ||
	    npu_parse_inputs(self->model->m, inputs, &arrs, &n))
		return NULL;
	if (npu_session_make_room(self, timeout_ns)) {
		npu_free_arrays(arrs, n);
		return NULL;
	}
	fut = PyObject_New(npu_future, &npu_future_type);
	if (!fut) {
		npu_free_arrays(arrs, n);
		return NULL;
	}
	fut->sess = (npu_session *)Py_NewRef(self);
	fut->inf = NULL;
	fut->result = NULL;
	fut->err = 0;
	fut->busy = 0;
	memset(&fut->res, 0, sizeof(fut->res));
	self->nlive++;	/* close() now leaves the runner to the last one */
	Py_BEGIN_ALLOW_THREADS
	ret = npu_runner_acquire(self->runner, &inf);
	for (i = 0; !ret && i < n; i++) {
		PyArrayObject *a = arrs[i];

		if (PyArray_TYPE(a) == NPY_FLOAT32)
			ret = npu_inference_set_input(inf, i, PyArray_DATA(a),
						      PyArray_SIZE(a));
		else
			ret = npu_inference_set_input_u8(inf, i, PyArray_DATA(a),
							 PyArray_SIZE(a));
	}
	if (!ret)
		ret = npu_inference_submit(inf);
	Py_END_ALLOW_THREADS
	npu_free_arrays(arrs, n);
	fut->inf = inf;
	if (!inf) {
		self->nlive--;
		npu_session_finish(self);
	}
	if (ret) {
		Py_DECREF(fut);	/* releases the context */
		return npu_raise(npu_error, ret, ret == -EINVAL ?
				 "cannot set the inputs" : "cannot submit the job",
				 NULL);
	}
	return (PyObject *)fut;
}

static PyObject *npu_session_submit(npu_session *self, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "inputs", NULL };
	PyObject *inputs;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:submit", kwlist, &inputs))
		return NULL;
	return npu_session_submit_impl(self, inputs, self->timeout_ns);
}

static const char *const npu_job_status[] = {
	"ok", "bad opcode", "bad address", "misaligned", "bad shape",
	"bad program", "aborted", "bad command", "timeout",
};

/* Raise the failure of a finished job; returns NULL */
static PyObject *npu_future_raise(npu_future *self)
{
	char msg[256], op[32] = "";

	if (self->err == -EIO) {
		uint32_t st = self->res.status;

		if (self->res.op_index != NPU_PROG_NO_OP_INDEX)
			snprintf(op, sizeof(op), ", operator %u", self->res.op_index);
		snprintf(msg, sizeof(msg), "job %llu failed on PE %u: status %u (%s)%s%s",
			 (unsigned long long)self->res.job_id, self->res.pe, st,
			 st < sizeof(npu_job_status) / sizeof(npu_job_status[0]) ?
			 npu_job_status[st] : "unknown", op,
			 st == NPU_JOB_TIMEOUT ? ": it ran past the driver's "
			 "job_timeout_ms, and the device was reset" :
			 st == NPU_JOB_ABORTED ? ": the device was reset" : "");
	} else {
		snprintf(msg, sizeof(msg), "waiting for the job: %s",
			 strerror(-self->err));
	}
	return npu_raise_obj(self->err, msg, self->sess->dev_path);
}

/*
 * The outputs as a new list (a copy of the cached one), of the session's
 * dtype. @run: for run(), whose Future is freed after a timeout.
 */
static PyObject *npu_future_wait_ns(npu_future *self, int64_t timeout_ns,
				    int run)
{
	struct npu_model *m = self->sess->model->m;
	unsigned int i, n = npu_model_num_outputs(m);
	struct npu_inference *inf = self->inf;
	int out_type = self->sess->out_type;
	PyObject *list;
	int ret = 0;

	if (self->result)
		return PyList_GetSlice(self->result, 0, n);
	if (self->err)
		return npu_future_raise(self);
	if (self->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"another thread is waiting for this inference");
		return NULL;
	}
	list = PyList_New(n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct npu_tensor_desc *d = npu_model_output(m, i);
		npy_intp dims[4];
		uint32_t k;

		for (k = 0; k < d->ndim; k++)
			dims[k] = d->dims[k];
		PyObject *a = PyArray_SimpleNew((int)d->ndim, dims, out_type);
		if (!a) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, i, a);
	}
	self->busy = 1;
	Py_BEGIN_ALLOW_THREADS
	ret = npu_inference_wait(inf, timeout_ns, &self->res);
	for (i = 0; !ret && i < n; i++) {
		PyArrayObject *a = (PyArrayObject *)PyList_GET_ITEM(list, i);

		if (out_type == NPY_UINT8)
			ret = npu_inference_get_output_u8(inf, i, PyArray_DATA(a),
							  PyArray_SIZE(a));
		else
			ret = npu_inference_get_output(inf, i, PyArray_DATA(a),
						       PyArray_SIZE(a));
	}
	Py_END_ALLOW_THREADS
	self->busy = 0;
	if (ret == -ETIMEDOUT) {	/* still submitted: wait again */
		char msg[200];

		Py_DECREF(list);
		snprintf(msg, sizeof(msg), run ?
			 "the job did not complete within %.3f s; it is left on the "
			 "device, and the session collects it when it ends" :
			 "the job did not complete within %.3f s; it is still on "
			 "the device: wait() again", timeout_ns / 1e9);
		return npu_raise_obj(ETIMEDOUT, msg, self->sess->dev_path);
	}
	npu_future_release(self);
	if (ret) {
		Py_DECREF(list);
		self->err = ret;
		return npu_future_raise(self);
	}
	self->result = list;
	return PyList_GetSlice(list, 0, n);
}

static PyObject *npu_future_wait(npu_future *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "timeout", NULL };
	PyObject *timeout = Py_None;
	int64_t ns;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", kwlist, &timeout) ||
	    npu_timeout_ns(timeout, &ns))
		return NULL;
	return npu_future_wait_ns(self, ns, 0);
}

static PyObject *npu_future_done(npu_future *self, PyObject *unused)
{
	(void)unused;
	return PyBool_FromLong(!self->inf);
}

static PyObject *npu_future_get_job(npu_future *self, void *closure)
{
	(void)closure;
	if (!self->result && self->err != -EIO)
		Py_RETURN_NONE;
	return Py_BuildValue("{sKsIsIsIsKsKsKsK}",
			     "job_id", (unsigned long long)self->res.job_id,
			     "status", self->res.status,
			     "pe", self->res.pe,
			     "op_index", self->res.op_index,
			     "start_tick", (unsigned long long)self->res.start_tick,
			     "end_tick", (unsigned long long)self->res.end_tick,
			     "submit_ns", (unsigned long long)self->res.submit_ns,
			     "complete_ns", (unsigned long long)self->res.complete_ns);
}

static PyMethodDef npu_future_methods[] = {
	{ "wait", (PyCFunction)(void (*)(void))npu_future_wait,
	  METH_VARARGS | METH_KEYWORDS,
	  "wait(timeout=None) -> list of arrays, the outputs (float32, or the\n"
	  "session's output_dtype)" },
	{ "result", (PyCFunction)(void (*)(void))npu_future_wait,
	  METH_VARARGS | METH_KEYWORDS, "result(timeout=None): as wait()" },
	{ "done", (PyCFunction)npu_future_done, METH_NOARGS,
	  "done() -> True once waited for (successfully or not)" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef npu_future_getset[] = {
	{ "job", (getter)npu_future_get_job, NULL,
	  "the driver's npu_job_result as a dict, once waited for, else None", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject npu_future_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "npu.Future",
	.tp_doc = "One inference submitted by Session.submit(); wait() for it.",
	.tp_basicsize = sizeof(npu_future),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)npu_future_dealloc,
	.tp_methods = npu_future_methods,
	.tp_getset = npu_future_getset,
};

/* Session.run(inputs, timeout=<the session's>) */
static PyObject *npu_session_run(npu_session *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "inputs", "timeout", NULL };
	PyObject *inputs, *timeout = NULL, *out;
	npu_future *fut;
	int64_t ns = self->timeout_ns;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:run", kwlist, &inputs,
					 &timeout))
		return NULL;
	if (timeout && npu_timeout_ns(timeout, &ns))
		return NULL;
	fut = (npu_future *)npu_session_submit_impl(self, inputs, ns);
	if (!fut)
		return NULL;
	out = npu_future_wait_ns(fut, ns, 1);
	Py_DECREF(fut);	/* after a timeout, an orphan */
	return out;
}

static PyObject *npu_session_get_model(npu_session *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->model);
}

static PyObject *npu_session_get_device(npu_session *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->dev_path);
}

static PyObject *npu_session_get_closed(npu_session *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->closed);
}

static PyMethodDef npu_session_methods[] = {
	{ "inputs", (PyCFunction)npu_session_inputs, METH_NOARGS,
	  "inputs() -> list of TensorDesc" },
	{ "outputs", (PyCFunction)npu_session_outputs, METH_NOARGS,
	  "outputs() -> list of TensorDesc" },
	{ "run", (PyCFunction)(void (*)(void))npu_session_run,
	  METH_VARARGS | METH_KEYWORDS,
	  "run(inputs, timeout=None) -> list of arrays (float32, or the\n"
	  "session's output_dtype)" },
	{ "submit", (PyCFunction)(void (*)(void))npu_session_submit,
	  METH_VARARGS | METH_KEYWORDS, "submit(inputs) -> Future" },
	{ "close", (PyCFunction)npu_session_close, METH_NOARGS,
	  "close(): no more work; the device is closed once every Future is done" },
	{ "__enter__", (PyCFunction)npu_session_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)npu_session_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef npu_session_getset[] = {
	{ "model", (getter)npu_session_get_model, NULL, "the npu.Model", NULL },
	{ "device", (getter)npu_session_get_device, NULL, "the device's path", NULL },
	{ "closed", (getter)npu_session_get_closed, NULL, "True after close()", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject npu_session_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "npu.Session",
	.tp_doc = "Session(model, device=None, pes=None, contexts=0, timeout=None,\n"
		  "output_dtype=numpy.float32): a model prepared on a device\n"
		  "(/dev/npu0 by default).",
	.tp_basicsize = sizeof(npu_session),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = npu_session_tp_new,
	.tp_dealloc = (destructor)npu_session_dealloc,
	.tp_methods = npu_session_methods,
	.tp_getset = npu_session_getset,
};

/* ------------------------------------------------------------------ */
/* The host reference: libnpuref                                        */
/* ------------------------------------------------------------------ */

/*
 * Run @m on the host with libnpuref as one job of a runner runs it on the
 * device: slot 0 holds the model's constants and program, the other slots
 * start zeroed; each input is Quantized (@in_type[i] NPY_FLOAT32, with
 * npu_quantize(), as npu_inference_set_input() does) or taken as it is
 * (NPY_UINT8), and Lowered into its slot; after npuref_run(), each output
 * is Unlowered, and Dequantized for @out_type NPY_FLOAT32, as
 * npu_inference_get_output() does. Touches no Python object: called with
 * the GIL released. Returns 0, an NPU_PROG_* status > 0 (the program
 * failed: *@op is its operator), or -errno.
 */
static int npu_ref_compute(const struct npu_model *m, const void *const *in,
			   const int *in_type, void *const *out, int out_type,
			   uint16_t *op)
{
	struct npuref_buf s[NPU_MODEL_MAX_SLOTS];
	unsigned int i, n = npu_model_num_slots(m);
	unsigned int nin = npu_model_num_inputs(m), nout = npu_model_num_outputs(m);
	size_t isz, qsz = 1;
	uint32_t po, ps;
	const void *img = npu_model_const_image(m, &isz, &po, &ps);
	uint8_t *q = NULL;
	int ret = -ENOMEM;

	memset(s, 0, sizeof(s));
	for (i = 0; i < nin; i++)
		if (npu_model_input(m, i)->count > qsz)
			qsz = npu_model_input(m, i)->count;
	for (i = 0; i < nout; i++)
		if (npu_model_output(m, i)->count > qsz)
			qsz = npu_model_output(m, i)->count;
	q = malloc(qsz);
	if (!q)
		goto out;
	for (i = 0; i < n; i++) {
		npu_model_slot(m, i, NULL, &s[i].size);
		s[i].base = calloc(1, s[i].size);
		if (!s[i].base)
			goto out;
	}
	memcpy(s[0].base, img, isz);
	ret = 0;
	for (i = 0; !ret && i < nin; i++) {
		const struct npu_tensor_desc *d = npu_model_input(m, i);
		const uint8_t *src = in[i];

		if (in_type[i] == NPY_FLOAT32) {
			ret = npu_quantize(in[i], q, d->count, d->scale, d->zero_point);
			src = q;
		}
		if (!ret)
			ret = npu_lower(src, (uint8_t *)s[d->slot].base + d->offset,
					d->dev_size, d->dims, d->layout,
					(uint8_t)d->zero_point);
	}
	if (!ret)
		ret = npuref_run((uint8_t *)s[0].base + po, ps, s, n, 0, op);
	for (i = 0; !ret && i < nout; i++) {
		const struct npu_tensor_desc *d = npu_model_output(m, i);
		const uint8_t *dev = (uint8_t *)s[d->slot].base + d->offset;

		if (out_type == NPY_UINT8) {
			ret = npu_unlower(dev, d->dev_size, out[i], d->dims, d->layout);
		} else {
			ret = npu_unlower(dev, d->dev_size, q, d->dims, d->layout);
			if (!ret)
				ret = npu_dequantize(q, out[i], d->count, d->scale,
						     d->zero_point);
		}
	}
out:
	for (i = 0; i < n; i++)
		free(s[i].base);
	free(q);
	return ret;
}

/* npu.reference_run(model, inputs, output_dtype=float32) */
static PyObject *npu_reference_run(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "model", "inputs", "output_dtype", NULL };
	PyObject *model_arg, *inputs, *out_dtype = Py_None, *list = NULL;
	PyArrayObject **arrs = NULL;
	npu_model_obj *model;
	const void **in = NULL;
	void **out = NULL;
	int *in_type = NULL;
	unsigned int i, n = 0, nout;
	uint16_t op = NPU_PROG_NO_OP_INDEX;
	int ret, out_type;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:reference_run", kwlist,
					 &model_arg, &inputs, &out_dtype) ||
	    npu_parse_out_type(out_dtype, &out_type))
		return NULL;
	model = npu_model_from_arg(model_arg);
	if (!model)
		return NULL;
	if (npu_parse_inputs(model->m, inputs, &arrs, &n))
		goto done;
	nout = npu_model_num_outputs(model->m);
	list = PyList_New(nout);
	in = PyMem_Calloc(n, sizeof(*in));
	in_type = PyMem_Calloc(n, sizeof(*in_type));
	out = PyMem_Calloc(nout, sizeof(*out));
	if (!list || !in || !in_type || !out) {
		if (list)
			PyErr_NoMemory();
		Py_CLEAR(list);
		goto done;
	}
	for (i = 0; i < n; i++) {
		in[i] = PyArray_DATA(arrs[i]);
		in_type[i] = PyArray_TYPE(arrs[i]);
	}
	for (i = 0; i < nout; i++) {
		const struct npu_tensor_desc *d = npu_model_output(model->m, i);
		npy_intp dims[4];
		PyObject *a;
		uint32_t k;

		for (k = 0; k < d->ndim; k++)
			dims[k] = d->dims[k];
		a = PyArray_SimpleNew((int)d->ndim, dims, out_type);
		if (!a) {
			Py_CLEAR(list);
			goto done;
		}
		PyList_SET_ITEM(list, i, a);
		out[i] = PyArray_DATA((PyArrayObject *)a);
	}
	Py_BEGIN_ALLOW_THREADS
	ret = npu_ref_compute(model->m, in, in_type, out, out_type, &op);
	Py_END_ALLOW_THREADS
	if (ret) {
		char msg[256], ops[32] = "";

		if (op != NPU_PROG_NO_OP_INDEX)
			snprintf(ops, sizeof(ops), ", operator %u", op);
		if (ret > 0)
			snprintf(msg, sizeof(msg),
				 "libnpuref: the program of model %s failed: status %d (%s)%s",
				 npu_model_name(model->m), ret,
				 ret < (int)(sizeof(npu_job_status) / sizeof(npu_job_status[0])) ?
				 npu_job_status[ret] : "unknown", ops);
		else
			snprintf(msg, sizeof(msg), "libnpuref: model %s: %s",
				 npu_model_name(model->m), strerror(-ret));
		Py_CLEAR(list);
		npu_raise_obj(ret > 0 ? EIO : -ret, msg, model->path);
	}
done:
	if (arrs)
		npu_free_arrays(arrs, n);
	PyMem_Free(in);
	PyMem_Free(in_type);
	PyMem_Free(out);
	Py_DECREF(model);
	return list;
}

static PyMethodDef npu_module_methods[] = {
	{ "reference_run", (PyCFunction)(void (*)(void))npu_reference_run,
	  METH_VARARGS | METH_KEYWORDS,
	  "reference_run(model, inputs, output_dtype=numpy.float32) -> list of arrays\n\n"
	  "The outputs of model (a path or an npu.Model) for inputs (as\n"
	  "Session.run() takes them) computed on the host CPU by libnpuref,\n"
	  "the reference implementation of the NPU's operators: what a\n"
	  "Session of the same output_dtype returns, bit for bit. Needs no\n"
	  "device; slow on purpose (scalar loops), the GIL released." },
	{ NULL, NULL, 0, NULL }
};

/* ------------------------------------------------------------------ */
/* Module                                                               */
/* ------------------------------------------------------------------ */

static struct PyModuleDef npu_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "npu._npu",
	.m_doc = "C extension of npu over libnpu.",
	.m_size = -1,
	.m_methods = npu_module_methods,
};

PyMODINIT_FUNC PyInit__npu(void);

PyMODINIT_FUNC PyInit__npu(void)
{
	PyObject *m, *bases;

	import_array();
	if (PyType_Ready(&npu_model_type) < 0 ||
	    PyType_Ready(&npu_session_type) < 0 ||
	    PyType_Ready(&npu_future_type) < 0)
		return NULL;
	if (!npu_desc_type.tp_name &&
	    PyStructSequence_InitType2(&npu_desc_type, &npu_desc_desc) < 0)
		return NULL;
	m = PyModule_Create(&npu_module);
	if (!m)
		return NULL;
	npu_error = PyErr_NewExceptionWithDoc("npu.Error",
		"An error of the runtime: errno, strerror and, for a file or a\n"
		"device, filename.", PyExc_OSError, NULL);
	if (!npu_error)
		goto fail;
	bases = PyTuple_Pack(2, npu_error, PyExc_ValueError);
	if (!bases)
		goto fail;
	npu_input_error = PyErr_NewExceptionWithDoc("npu.InputError",
		"Inputs that do not fit the model (number, dtype, shape):\n"
		"errno EINVAL; both an npu.Error and a ValueError.", bases, NULL);
	Py_DECREF(bases);
	if (!npu_input_error ||
	    PyModule_AddObjectRef(m, "Error", npu_error) ||
	    PyModule_AddObjectRef(m, "InputError", npu_input_error) ||
	    PyModule_AddObjectRef(m, "Model", (PyObject *)&npu_model_type) ||
	    PyModule_AddObjectRef(m, "Session", (PyObject *)&npu_session_type) ||
	    PyModule_AddObjectRef(m, "Future", (PyObject *)&npu_future_type) ||
	    PyModule_AddObjectRef(m, "TensorDesc", (PyObject *)&npu_desc_type))
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
