// SPDX-License-Identifier: GPL-2.0-only
/* onnxvec.c - see onnxvec.h */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npu/npu_model_file.h"
#include "npuref.h"
#include "onnx.pb-c.h"
#include "onnxvec.h"

#define MAX_FILE	(1u << 30)

/*
 * The kselftest harness runs each test in a forked child that ends with
 * _exit(): stdout must be line-buffered, or the "#" lines a test prints
 * are lost with the child's stdio buffer. Every program linking this file
 * is a test.
 */
__attribute__((constructor)) static void line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int ov_slurp(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;
	int ret = 0;

	if (!f)
		return -errno;
	n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (n < 0 || fseek(f, 0, SEEK_SET)) {
		ret = errno ? -errno : -EIO;
	} else if ((unsigned long)n > MAX_FILE) {
		ret = -EFBIG;
	} else {
		b = malloc(n ? n : 1);
		if (!b)
			ret = -ENOMEM;
		else if (fread(b, 1, n, f) != (size_t)n)
			ret = -EIO;
	}
	fclose(f);
	if (ret) {
		free(b);
		return ret;
	}
	*buf = b;
	*len = n;
	return 0;
}

int ov_write(const char *path, const void *buf, size_t len)
{
	char tmp[4096];
	FILE *f;
	int ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wb");
	if (!f)
		return -errno;
	if (len && fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

static size_t type_size(int type)
{
	switch (type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
		return 1;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		return 4;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
		return 8;
	default:
		return 0;
	}
}

int ov_tensor_parse(const void *buf, size_t len, struct ov_tensor *t,
		    char *err, size_t errlen)
{
	Onnx__TensorProto *p;
	size_t i, es;
	int ret;

	memset(t, 0, sizeof(*t));
	p = onnx__tensor_proto__unpack(NULL, len, buf);
	if (!p)
		return fail(err, errlen, "not a TensorProto");
	ret = fail(err, errlen, "tensor of type %d: not uint8, int8, int32, int64 or float",
		   p->data_type);
	t->type = p->data_type;
	es = type_size(t->type);
	if (!es)
		goto out;
	ret = fail(err, errlen, "%zu dims", p->n_dims);
	if (p->n_dims > OV_MAX_DIMS)
		goto out;
	t->ndim = p->n_dims;
	t->esize = es;
	t->count = 1;
	for (i = 0; i < p->n_dims; i++) {
		ret = fail(err, errlen, "dim %zu is %lld", i,
			   (long long)p->dims[i]);
		if (p->dims[i] < 0 || p->dims[i] > (1 << 24))
			goto out;
		t->dims[i] = p->dims[i];
		t->count *= p->dims[i];
		if (t->count > (1u << 26))
			goto out;
	}
	ret = -ENOMEM;
	t->data = calloc(t->count ? t->count : 1, es);
	if (!t->data)
		goto out;
	ret = fail(err, errlen, "%zu elements, but the data holds another count",
		   t->count);
	if (p->has_raw_data) {
		if (p->raw_data.len != t->count * es)
			goto out;
		memcpy(t->data, p->raw_data.data, p->raw_data.len);
	} else if (t->type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
		if (p->n_float_data != t->count)
			goto out;
		memcpy(t->data, p->float_data, t->count * es);
	} else if (t->type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64) {
		if (p->n_int64_data != t->count)
			goto out;
		memcpy(t->data, p->int64_data, t->count * es);
	} else {
		/* (u)int8 and int32 travel in int32_data */
		if (p->n_int32_data != t->count)
			goto out;
		for (i = 0; i < t->count; i++) {
			if (es == 1)
				((uint8_t *)t->data)[i] = (uint8_t)p->int32_data[i];
			else
				((int32_t *)t->data)[i] = p->int32_data[i];
		}
	}
	ret = 0;
out:
	if (ret)
		ov_tensor_free(t);
	onnx__tensor_proto__free_unpacked(p, NULL);
	return ret;
}

int ov_tensor_load(const char *path, struct ov_tensor *t, char *err,
		   size_t errlen)
{
	char msg[256];
	uint8_t *buf;
	size_t len;
	int ret = ov_slurp(path, &buf, &len);

	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = ov_tensor_parse(buf, len, t, msg, sizeof(msg));
	free(buf);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, msg);
	return ret;
}

void ov_tensor_free(struct ov_tensor *t)
{
	free(t->data);
	memset(t, 0, sizeof(*t));
}

static bool is_init(const Onnx__GraphProto *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name &&
		    !strcmp(g->initializer[i]->name, name))
			return true;
	return false;
}

int ov_graph_io(const void *buf, size_t len, struct ov_graph *g)
{
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
	Onnx__GraphProto *gp;
	size_t i;
	int ret = -EINVAL;

	memset(g, 0, sizeof(*g));
	if (!m)
		return -EINVAL;
	gp = m->graph;
	if (!gp)
		goto out;
	ret = -ENOMEM;
	g->in = calloc(gp->n_input + 1, sizeof(char *));
	g->out = calloc(gp->n_output + 1, sizeof(char *));
	g->in_tensor = calloc(gp->n_input + 1, sizeof(bool));
	if (!g->in || !g->out || !g->in_tensor)
		goto out;
	for (i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *v = gp->input[i];
		const char *n = v->name ? v->name : "";

		if (is_init(gp, n))
			continue;
		g->in_tensor[g->n_in] = v->type && v->type->value_case ==
					ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
		g->in[g->n_in] = strdup(n);
		if (!g->in[g->n_in++])
			goto out;
	}
	for (i = 0; i < gp->n_output; i++) {
		const char *n = gp->output[i]->name ? gp->output[i]->name : "";

		g->out[g->n_out] = strdup(n);
		if (!g->out[g->n_out++])
			goto out;
	}
	ret = 0;
out:
	onnx__model_proto__free_unpacked(m, NULL);
	if (ret)
		ov_graph_free(g);
	return ret;
}

void ov_graph_free(struct ov_graph *g)
{
	unsigned int i;

	for (i = 0; g->in && i < g->n_in; i++)
		free(g->in[i]);
	for (i = 0; g->out && i < g->n_out; i++)
		free(g->out[i]);
	free(g->in);
	free(g->out);
	free(g->in_tensor);
	memset(g, 0, sizeof(*g));
}

/* a model file's I/O name (at most 15 characters) against an ONNX name */
static bool name_match(const char *model, const char *onnx)
{
	size_t n = strlen(model);

	return n && !strncmp(model, onnx, n) &&
	       (onnx[n] == '\0' || n == sizeof(((struct npu_model_io *)0)->name) - 1);
}

static int match(const char *what, const char *name, char *const *names,
		 unsigned int n, unsigned int *k, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (name_match(name, names[i])) {
			*k = i;
			return 0;
		}
	snprintf(err, errlen, "model %s '%s' is none of the graph's %u", what,
		 name, n);
	return -ENOENT;
}

int ov_plan_make(const struct npu_model *m, const struct ov_graph *g,
		 struct ov_plan *p, char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	memset(p, 0, sizeof(*p));
	p->n_in = npu_model_num_inputs(m);
	p->n_out = npu_model_num_outputs(m);
	if (p->n_in > OV_MAX_IO || p->n_out > OV_MAX_IO)
		return fail(err, errlen, "%u inputs, %u outputs", p->n_in,
			    p->n_out);
	for (i = 0; i < p->n_in; i++) {
		ret = match("input", npu_model_input(m, i)->name, g->in,
			    g->n_in, &p->in[i], err, errlen);
		if (ret)
			return ret;
	}
	for (i = 0; i < p->n_out; i++) {
		ret = match("output", npu_model_output(m, i)->name, g->out,
			    g->n_out, &p->out[i], err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int ov_plan_write(const char *dir, const struct ov_plan *p)
{
	char path[4096], buf[1024];
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < p->n_in; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "in %u %u\n", i,
			      p->in[i]);
	for (i = 0; i < p->n_out; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "out %u %u\n", i,
			      p->out[i]);
	snprintf(path, sizeof(path), "%s/io.txt", dir);
	return ov_write(path, buf, n);
}

int ov_plan_read(const char *dir, struct ov_plan *p, char *err,
		 size_t errlen)
{
	char path[4096], what[8];
	unsigned int i, k;
	FILE *f;
	int ret = 0, n;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/io.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	while ((n = fscanf(f, "%7s %u %u", what, &i, &k)) == 3) {
		bool in = !strcmp(what, "in");

		if ((!in && strcmp(what, "out")) || i >= OV_MAX_IO ||
		    i != (in ? p->n_in : p->n_out)) {
			ret = fail(err, errlen, "%s: bad line '%s %u %u'",
				   path, what, i, k);
			break;
		}
		if (in)
			p->in[p->n_in++] = k;
		else
			p->out[p->n_out++] = k;
	}
	if (!ret && (n != EOF || !p->n_in || !p->n_out))
		ret = fail(err, errlen, "%s: malformed", path);
	fclose(f);
	return ret;
}

int ov_input_u8(const struct npu_tensor_desc *d, const struct ov_tensor *t,
		uint8_t *q, char *err, size_t errlen)
{
	if (t->count != d->count)
		return fail(err, errlen, "input '%s': %zu values for %zu elements",
			    d->name, t->count, d->count);
	if (t->type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
		return npu_quantize(t->data, q, d->count, d->scale,
				    d->zero_point) ?
		       fail(err, errlen, "input '%s': bad scale %g or zero point %d",
			    d->name, d->scale, d->zero_point) : 0;
	if (t->type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8) {
		memcpy(q, t->data, d->count);
		return 0;
	}
	return fail(err, errlen, "input '%s': ONNX type %d is neither float nor uint8",
		    d->name, t->type);
}

int ov_output_check(const struct npu_tensor_desc *d, const uint8_t *q,
		    const struct ov_tensor *expect, char *err, size_t errlen)
{
	size_t i;

	if (expect->count != d->count)
		return fail(err, errlen, "output '%s': %zu expected values for %zu elements",
			    d->name, expect->count, d->count);
	if (expect->type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8) {
		const uint8_t *e = expect->data;

		for (i = 0; i < d->count; i++)
			if (q[i] != e[i]) {
				snprintf(err, errlen,
					 "output '%s'[%zu] = %u, expected %u",
					 d->name, i, q[i], e[i]);
				return 1;
			}
		return 0;
	}
	if (expect->type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
		const float *e = expect->data;

		for (i = 0; i < d->count; i++) {
			/* ONNX DequantizeLinear, in float32 */
			float v = (float)((int32_t)q[i] - d->zero_point) * d->scale;

			if (memcmp(&v, &e[i], sizeof(v))) {
				snprintf(err, errlen,
					 "output '%s'[%zu] = %.9g (q %u), expected %.9g",
					 d->name, i, v, q[i], e[i]);
				return 1;
			}
		}
		return 0;
	}
	return fail(err, errlen, "output '%s': ONNX type %d is neither float nor uint8",
		    d->name, expect->type);
}

void ov_bufs_free(uint8_t **b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(b[i]);
		b[i] = NULL;
	}
}

int ov_plan_inputs(const struct npu_model *m, const struct ov_plan *p,
		   const char *dir, uint8_t **in, char *err, size_t errlen)
{
	struct ov_tensor t;
	char path[4096];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < p->n_in; i++)
		in[i] = NULL;
	for (i = 0; !ret && i < p->n_in; i++) {
		const struct npu_tensor_desc *d = npu_model_input(m, i);

		snprintf(path, sizeof(path), "%s/input_%u.pb", dir, p->in[i]);
		ret = ov_tensor_load(path, &t, err, errlen);
		if (ret)
			break;
		in[i] = malloc(d->count ? d->count : 1);
		ret = in[i] ? ov_input_u8(d, &t, in[i], err, errlen) : -ENOMEM;
		ov_tensor_free(&t);
	}
	if (ret)
		ov_bufs_free(in, p->n_in);
	return ret;
}

int ov_plan_check(const struct npu_model *m, const struct ov_plan *p,
		  const char *dir, uint8_t *const *out, char *err,
		  size_t errlen)
{
	struct ov_tensor t;
	char path[4096];
	unsigned int j;
	int ret = 0;

	for (j = 0; !ret && j < p->n_out; j++) {
		snprintf(path, sizeof(path), "%s/output_%u.pb", dir, p->out[j]);
		ret = ov_tensor_load(path, &t, err, errlen);
		if (ret)
			break;
		ret = ov_output_check(npu_model_output(m, j), out[j], &t, err,
				      errlen);
		ov_tensor_free(&t);
	}
	return ret;
}

int ov_ref_run(const struct npu_model *m, uint8_t *const *in, uint8_t **out,
	       char *err, size_t errlen)
{
	struct npuref_buf s[NPU_MODEL_MAX_SLOTS];
	unsigned int i, n = npu_model_num_slots(m);
	unsigned int ni = npu_model_num_inputs(m), no = npu_model_num_outputs(m);
	uint32_t po, ps;
	size_t isz;
	const void *img = npu_model_const_image(m, &isz, &po, &ps);
	uint16_t op = 0;
	int ret = -ENOMEM, st;

	memset(s, 0, sizeof(s));
	for (i = 0; i < no; i++)
		out[i] = NULL;
	for (i = 0; i < n; i++) {
		npu_model_slot(m, i, NULL, &s[i].size);
		s[i].base = calloc(1, s[i].size);
		if (!s[i].base)
			goto out;
	}
	memcpy(s[0].base, img, isz);
	for (i = 0; i < ni; i++) {
		const struct npu_tensor_desc *d = npu_model_input(m, i);

		ret = npu_lower(in[i], (uint8_t *)s[d->slot].base + d->offset,
				d->dev_size, d->dims, d->layout,
				(uint8_t)d->zero_point);
		if (ret) {
			fail(err, errlen, "input '%s': npu_lower: %s", d->name,
			     strerror(-ret));
			goto out;
		}
	}
	st = npuref_run((uint8_t *)s[0].base + po, ps, s, n, 0, &op);
	if (st) {
		ret = st < 0 ? st : -EIO;
		snprintf(err, errlen, "npuref_run: status %d at operator %u",
			 st, op);
		goto out;
	}
	for (i = 0; i < no; i++) {
		const struct npu_tensor_desc *d = npu_model_output(m, i);

		ret = -ENOMEM;
		out[i] = malloc(d->count ? d->count : 1);
		if (!out[i])
			goto out;
		ret = npu_unlower((uint8_t *)s[d->slot].base + d->offset,
				  d->dev_size, out[i], d->dims, d->layout);
		if (ret) {
			fail(err, errlen, "output '%s': npu_unlower: %s",
			     d->name, strerror(-ret));
			goto out;
		}
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(s[i].base);
	if (ret)
		ov_bufs_free(out, no);
	return ret;
}

int ov_exec(const char *const *argv, char *err, size_t errlen)
{
	int pfd[2], st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	while (got + 1 < errlen &&
	       (n = read(pfd[0], err + got, errlen - 1 - got)) > 0)
		got += n;
	if (errlen)
		err[got] = '\0';
	/* the rest of a long message, so that the child never blocks */
	while (read(pfd[0], &st, sizeof(st)) > 0)
		;
	close(pfd[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) :
	       WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

void ov_prng_u8(uint8_t *x, size_t n, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x[i] = (uint8_t)(s >> 40);
	}
}

void ov_nhwc_to_nchw(const uint8_t *in, uint8_t *out, const uint32_t *d)
{
	uint32_t n, h, w, c;

	for (n = 0; n < d[0]; n++)
		for (h = 0; h < d[1]; h++)
			for (w = 0; w < d[2]; w++)
				for (c = 0; c < d[3]; c++)
					out[((n * d[3] + c) * d[1] + h) * d[2] + w] =
						in[((n * d[1] + h) * d[2] + w) * d[3] + c];
}
