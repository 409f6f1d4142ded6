// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memuse.c - a model's program, used against allocated bytes per operator
 * (memuse.h; Documentation/npu/memory.rst, "Used and allocated").
 *
 * A MODEL item (Documentation/npu/trace-file.rst) is checked whole, then
 * every tensor's lifetime is found in one pass over the operators: it
 * starts at the job's start when no operator writes it or one reads it
 * before the first writer (an input, a constant), else at its first
 * writer; it ends at the job's end when it lives in an output slot, else
 * at the last operator that reads or writes it. The used bytes of every
 * operator then come from a difference array over the lifetimes: O(tensors
 * + operators), the figures of every operator computed at parse time.
 *
 * The layer table that may follow the program (npu_model_layers.h) is
 * checked with npu_layers_check() against the program's operators; a bad
 * one is dropped alone (the model keeps its memory figures) and its
 * reason kept for the reader's warning. Each operator's layer is copied
 * with its shapes formatted once (npu_layer_shapes_fmt()), so the reports
 * take them as strings.
 *
 * Locking: none; a parsed model is immutable. Lifetime: from
 * npf_model_parse() to npf_model_free(); it copies what it keeps and
 * holds no pointer into the item.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npu/npu_model_layers.h"
#include "memuse.h"
#include "trace_format.h"

struct npf_model {
	uint32_t id;
	int32_t pid;
	char name[NPF_MODEL_NAME_LEN];
	uint32_t n_ops;
	uint16_t *opcode;		/* [n_ops] */
	struct npf_op_mem *op;		/* [n_ops] */
	struct npf_tensor_mem *t;	/* [mem.n_tensors] */
	struct npf_model_mem mem;
	/* the layer table, NULL without (or dropped) */
	struct npf_op_layer *layer;	/* [n_ops] */
	char *lstr;			/* names, op types, shapes */
	char layers_err[96];		/* why it was dropped, or "" */
};

/* The longest shape text: 3 shapes of "i32[4294967295,...]" (< 50 each) */
#define NPF_SHAPES_MAX	256

/* An operator's layer: offsets into npf_model.lstr; macs and weights */
struct npf_op_layer {
	uint32_t name, op_type, in_shapes, out_shapes;
	uint64_t macs, weight_bytes;
};

__attribute__((format(printf, 4, 5)))
static int bad(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Is [off, off + len) inside [0, size)? */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* The item's header and program header, checked; the tables copied */
struct pctx {
	struct npf_item_model h;
	struct npu_prog_hdr ph;
	struct npu_prog_tensor *t;
	struct npu_prog_op *ops;
	uint64_t *bytes;		/* [n_tensors] */
	int32_t *start, *end;		/* [n_tensors], -1: not live */
	int64_t *diff;			/* [n_ops + 1] */
};

static int check_hdr(struct pctx *c, const uint8_t *body, size_t len,
		     char *err, size_t errlen)
{
	const struct npf_item_model *h = &c->h;
	const struct npu_prog_hdr *ph = &c->ph;
	const uint8_t *prog = body + sizeof(*h);
	uint32_t i;

	if (len < sizeof(*h))
		return bad(err, errlen, -EBADMSG,
			   "item body of %zu bytes, its header needs %zu", len,
			   sizeof(*h));
	memcpy(&c->h, body, sizeof(c->h));
	if (!h->model_id)
		return bad(err, errlen, -EBADMSG, "model id 0");
	if (!memchr(h->name, 0, sizeof(h->name)))
		return bad(err, errlen, -EBADMSG, "name without a NUL");
	if (!h->n_slots || h->n_slots > NPF_MODEL_MAX_SLOTS)
		return bad(err, errlen, -EBADMSG, "%u slots out of range [1, %u]",
			   h->n_slots, NPF_MODEL_MAX_SLOTS);
	for (i = 0; i < h->n_slots; i++)
		if (h->slot_kind[i] > NPU_MODEL_SLOT_SCRATCH)
			return bad(err, errlen, -EBADMSG, "slot %u: kind %u", i,
				   h->slot_kind[i]);
	if (h->prog_size > len - sizeof(*h))
		return bad(err, errlen, -EBADMSG,
			   "program of %u bytes, the item holds %zu",
			   h->prog_size, len - sizeof(*h));
	if (h->prog_size < sizeof(*ph))
		return bad(err, errlen, -EBADMSG,
			   "program of %u bytes, its header needs %zu",
			   h->prog_size, sizeof(*ph));
	memcpy(&c->ph, prog, sizeof(c->ph));
	if (ph->magic != NPU_PROG_MAGIC || ph->version != NPU_PROG_VERSION ||
	    ph->hdr_size != sizeof(*ph))
		return bad(err, errlen, -EBADMSG,
			   "program magic 0x%08x version %u header %u: not a version %u program",
			   ph->magic, ph->version, ph->hdr_size,
			   NPU_PROG_VERSION);
	if (!ph->n_tensors || ph->n_tensors > NPU_PROG_MAX_TENSORS ||
	    !ph->n_ops || ph->n_ops > NPU_PROG_MAX_OPS)
		return bad(err, errlen, -EBADMSG,
			   "program of %u tensors and %u operators, out of range",
			   ph->n_tensors, ph->n_ops);
	if (!inside(ph->tensors_off,
		    (uint64_t)ph->n_tensors * sizeof(struct npu_prog_tensor),
		    h->prog_size) ||
	    !inside(ph->ops_off,
		    (uint64_t)ph->n_ops * sizeof(struct npu_prog_op),
		    h->prog_size))
		return bad(err, errlen, -EBADMSG,
			   "program tables [%u, %u) outside its %u bytes",
			   ph->tensors_off, ph->ops_off, h->prog_size);
	return 0;
}

static int check_tables(struct pctx *c, char *err, size_t errlen)
{
	const struct npf_item_model *h = &c->h;
	uint32_t i, k;

	for (i = 0; i < c->ph.n_tensors; i++) {
		const struct npu_prog_tensor *t = &c->t[i];

		if (t->buf >= h->n_slots)
			return bad(err, errlen, -EBADMSG,
				   "tensor %u in slot %u of %u", i, t->buf,
				   h->n_slots);
		if (!npu_prog_tensor_bytes(t, &c->bytes[i]))
			return bad(err, errlen, -EBADMSG,
				   "tensor %u: size out of range", i);
		/* a slot size of 0 is unknown: not checked */
		if (h->slot_size[t->buf] &&
		    !inside(t->offset, c->bytes[i], h->slot_size[t->buf]))
			return bad(err, errlen, -EBADMSG,
				   "tensor %u [%u, +%llu) outside slot %u of %llu bytes",
				   i, t->offset,
				   (unsigned long long)c->bytes[i], t->buf,
				   (unsigned long long)h->slot_size[t->buf]);
	}
	for (i = 0; i < c->ph.n_ops; i++) {
		const struct npu_prog_op *op = &c->ops[i];

		if (op->out >= c->ph.n_tensors)
			return bad(err, errlen, -EBADMSG,
				   "operator %u: output tensor %u of %u", i,
				   op->out, c->ph.n_tensors);
		for (k = 0; k < 3; k++)
			if (op->in[k] != NPU_PROG_NONE &&
			    op->in[k] >= c->ph.n_tensors)
				return bad(err, errlen, -EBADMSG,
					   "operator %u: input %u is tensor %u of %u",
					   i, k, op->in[k], c->ph.n_tensors);
		if (op->rq != NPU_PROG_NONE && op->rq >= c->ph.n_tensors)
			return bad(err, errlen, -EBADMSG,
				   "operator %u: table tensor %u of %u", i,
				   op->rq, c->ph.n_tensors);
	}
	return 0;
}

/* The tensors operator @op reads: in[0..2] and its table, each once */
static unsigned int op_inputs(const struct npu_prog_op *op, uint16_t in[4])
{
	const uint16_t all[4] = { op->in[0], op->in[1], op->in[2], op->rq };
	unsigned int n = 0, k, l;

	for (k = 0; k < 4; k++) {
		if (all[k] == NPU_PROG_NONE)
			continue;
		for (l = 0; l < n && in[l] != all[k]; l++)
			;
		if (l == n)
			in[n++] = all[k];
	}
	return n;
}

/* Lifetimes, then every operator's figures and the program's */
static void compute(struct pctx *c, struct npf_model *m)
{
	const struct npf_item_model *h = &c->h;
	uint32_t nt = c->ph.n_tensors, no = c->ph.n_ops, i, k, n;
	int32_t *first_w = c->end;	/* reused: first writer, then end */
	uint64_t alloc = 0;
	bool slot_used[NPF_MODEL_MAX_SLOTS] = { true };	/* the program's */
	int64_t live = 0;
	uint16_t in[4];

	for (i = 0; i < nt; i++) {
		c->start[i] = -1;	/* first reader */
		first_w[i] = -1;
	}
	/* first reader and first writer of each tensor */
	for (i = 0; i < no; i++) {
		const struct npu_prog_op *op = &c->ops[i];

		n = op_inputs(op, in);
		for (k = 0; k < n; k++)
			if (c->start[in[k]] < 0)
				c->start[in[k]] = (int32_t)i;
		if (first_w[op->out] < 0)
			first_w[op->out] = (int32_t)i;
	}
	/* start: the job's (0) unless written before any read */
	for (i = 0; i < nt; i++) {
		int32_t r = c->start[i], w = first_w[i];

		if (r < 0 && w < 0)
			c->start[i] = -1;	/* no operator touches it */
		else if (w < 0 || (r >= 0 && r < w))
			c->start[i] = 0;
		else
			c->start[i] = w;
		c->end[i] = -1;
	}
	/* end: the last operator that reads or writes it */
	for (i = 0; i < no; i++) {
		const struct npu_prog_op *op = &c->ops[i];

		n = op_inputs(op, in);
		for (k = 0; k < n; k++)
			c->end[in[k]] = (int32_t)i;
		c->end[op->out] = (int32_t)i;
	}
	memset(c->diff, 0, (no + 1) * sizeof(*c->diff));
	for (i = 0; i < nt; i++) {
		const struct npu_prog_tensor *t = &c->t[i];

		m->mem.tensor_bytes += c->bytes[i];
		if (t->buf == 0)
			m->mem.const_bytes += c->bytes[i];
		slot_used[t->buf] = true;
		m->t[i] = (struct npf_tensor_mem){
			.slot = t->buf, .offset = t->offset,
			.bytes = c->bytes[i], .first_op = -1, .last_op = -1,
		};
		if (c->start[i] < 0)
			continue;
		/* an output slot's tensors are the job's result: to its end */
		if (h->slot_kind[t->buf] == NPU_MODEL_SLOT_OUTPUT)
			c->end[i] = (int32_t)no - 1;
		m->t[i].first_op = c->start[i];
		m->t[i].last_op = c->end[i];
		c->diff[c->start[i]] += (int64_t)c->bytes[i];
		c->diff[c->end[i] + 1] -= (int64_t)c->bytes[i];
	}
	for (i = 0; i < h->n_slots; i++)
		if (slot_used[i])
			alloc += h->slot_size[i];
	m->mem.n_ops = no;
	m->mem.n_tensors = nt;
	m->mem.alloc_bytes = alloc;
	for (i = 0; i < no; i++) {
		const struct npu_prog_op *op = &c->ops[i];
		struct npf_op_mem *o = &m->op[i];

		live += c->diff[i];
		m->opcode[i] = op->opcode;
		n = op_inputs(op, in);
		for (k = 0; k < n; k++)
			o->in_bytes += c->bytes[in[k]];
		o->out_bytes = c->bytes[op->out];
		o->live_bytes = (uint64_t)live;
		o->alloc_bytes = alloc;
		if (o->live_bytes > m->mem.peak_used || i == 0) {
			m->mem.peak_used = o->live_bytes;
			m->mem.peak_op = i;
		}
	}
}

/*
 * The layer table of @m at @off of the @len bytes of @body, if the body
 * goes on there: checked, then copied. A bad table is dropped, its
 * reason in m->layers_err. Return: 0, or -ENOMEM.
 */
static int parse_layers(struct npf_model *m, const uint8_t *body, size_t len,
			uint64_t off)
{
	const struct npu_layers_hdr *h;
	uint64_t pool = 0, tlen;
	uint32_t *buf, i, p;
	const char *why;
	char *str, tmp[NPF_SHAPES_MAX];
	long at;

	if (off >= len)
		return 0;	/* none */
	/* zero padding alone: none either (the table starts with its magic) */
	for (tlen = off; tlen < len && !body[tlen]; tlen++)
		;
	if (tlen == len)
		return 0;
	/* a copy: aligned for npu_layers_check(), as long as it can check */
	tlen = len - off;
	buf = malloc(tlen + sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	memcpy(buf, body + off, tlen);
	h = (const struct npu_layers_hdr *)buf;
	why = npu_layers_check(buf, tlen, m->n_ops, &at);
	if (why) {
		if (at >= 0)
			snprintf(m->layers_err, sizeof(m->layers_err),
				 "layer %ld: %s", at, why);
		else
			snprintf(m->layers_err, sizeof(m->layers_err), "%s",
				 why);
		free(buf);
		return 0;
	}
	/* the strings, then every operator's two shape texts */
	pool = h->str_size;
	for (i = 0; i < m->n_ops; i++) {
		const struct npu_layer_desc *d = npu_layers_desc(h, i);

		pool += (uint64_t)npu_layer_shapes_fmt(d->in, d->n_in, tmp,
						       sizeof(tmp)) +
			(uint64_t)npu_layer_shapes_fmt(&d->out, d->n_out, tmp,
						       sizeof(tmp)) + 2;
	}
	m->layer = calloc(m->n_ops, sizeof(*m->layer));
	m->lstr = malloc(pool);
	if (!m->layer || !m->lstr) {
		free(buf);
		return -ENOMEM;
	}
	str = m->lstr;
	memcpy(str, npu_layers_str(h, 0), h->str_size);
	p = h->str_size;
	for (i = 0; i < m->n_ops; i++) {
		const struct npu_layer_desc *d = npu_layers_desc(h, i);
		struct npf_op_layer *l = &m->layer[i];

		l->name = d->name;
		l->op_type = d->op_type;
		l->macs = d->macs;
		l->weight_bytes = d->weight_bytes;
		l->in_shapes = p;
		p += (uint32_t)npu_layer_shapes_fmt(d->in, d->n_in, str + p,
						    pool - p) + 1;
		l->out_shapes = p;
		p += (uint32_t)npu_layer_shapes_fmt(&d->out, d->n_out, str + p,
						    pool - p) + 1;
	}
	free(buf);
	return 0;
}

int npf_model_parse(const void *body, size_t len, struct npf_model **mp,
		    char *err, size_t errlen)
{
	const uint8_t *b = body;
	struct pctx c = { 0 };
	struct npf_model *m = NULL;
	const uint8_t *prog;
	int ret;

	*mp = NULL;
	if (err && errlen)
		err[0] = 0;
	if (!body)
		return bad(err, errlen, -EBADMSG, "no body");
	ret = check_hdr(&c, b, len, err, errlen);
	if (ret)
		return ret;
	prog = b + sizeof(c.h);
	c.t = malloc(c.ph.n_tensors * sizeof(*c.t));
	c.ops = malloc(c.ph.n_ops * sizeof(*c.ops));
	c.bytes = calloc(c.ph.n_tensors, sizeof(*c.bytes));
	c.start = malloc(c.ph.n_tensors * sizeof(*c.start));
	c.end = malloc(c.ph.n_tensors * sizeof(*c.end));
	c.diff = malloc((c.ph.n_ops + 1) * sizeof(*c.diff));
	m = calloc(1, sizeof(*m));
	if (m) {
		m->opcode = calloc(c.ph.n_ops, sizeof(*m->opcode));
		m->op = calloc(c.ph.n_ops, sizeof(*m->op));
		m->t = calloc(c.ph.n_tensors, sizeof(*m->t));
	}
	if (!c.t || !c.ops || !c.bytes || !c.start || !c.end || !c.diff ||
	    !m || !m->opcode || !m->op || !m->t) {
		ret = bad(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(c.t, prog + c.ph.tensors_off, c.ph.n_tensors * sizeof(*c.t));
	memcpy(c.ops, prog + c.ph.ops_off, c.ph.n_ops * sizeof(*c.ops));
	ret = check_tables(&c, err, errlen);
	if (ret)
		goto out;
	m->id = c.h.model_id;
	m->pid = c.h.pid;
	memcpy(m->name, c.h.name, sizeof(m->name));
	m->n_ops = c.ph.n_ops;
	compute(&c, m);
	/* the layer table after the program, padded to 8 bytes */
	ret = parse_layers(m, b, len, sizeof(c.h) +
			   (((uint64_t)c.h.prog_size + 7) & ~7ull));
	if (ret) {
		ret = bad(err, errlen, ret, "out of memory");
		goto out;
	}
	*mp = m;
	m = NULL;
out:
	npf_model_free(m);
	free(c.t);
	free(c.ops);
	free(c.bytes);
	free(c.start);
	free(c.end);
	free(c.diff);
	return ret;
}

void npf_model_free(struct npf_model *m)
{
	if (!m)
		return;
	free(m->opcode);
	free(m->op);
	free(m->t);
	free(m->layer);
	free(m->lstr);
	free(m);
}

uint32_t npf_model_id(const struct npf_model *m)
{
	return m->id;
}

int32_t npf_model_pid(const struct npf_model *m)
{
	return m->pid;
}

const char *npf_model_name(const struct npf_model *m)
{
	return m->name;
}

uint32_t npf_model_nops(const struct npf_model *m)
{
	return m->n_ops;
}

uint16_t npf_model_opcode(const struct npf_model *m, uint32_t op)
{
	return op < m->n_ops ? m->opcode[op] : 0;
}

int npf_model_op_mem(const struct npf_model *m, uint32_t op,
		     struct npf_op_mem *out)
{
	if (op >= m->n_ops)
		return -ENOENT;
	*out = m->op[op];
	return 0;
}

int npf_model_tensor(const struct npf_model *m, uint32_t i,
		     struct npf_tensor_mem *out)
{
	if (i >= m->mem.n_tensors)
		return -ENOENT;
	*out = m->t[i];
	return 0;
}

int npf_model_mem(const struct npf_model *m, struct npf_model_mem *out)
{
	*out = m->mem;
	return 0;
}

bool npf_model_has_layers(const struct npf_model *m)
{
	return m && m->layer;
}

const char *npf_model_layers_error(const struct npf_model *m)
{
	return m ? m->layers_err : "";
}

void npf_model_layer(const struct npf_model *m, uint32_t op,
		     struct npf_layer *out)
{
	const struct npf_op_layer *l;

	if (!m || !m->layer || op >= m->n_ops) {
		*out = (struct npf_layer){ "", "", "", "", 0, 0 };
		return;
	}
	l = &m->layer[op];
	*out = (struct npf_layer){
		.name = m->lstr + l->name, .op_type = m->lstr + l->op_type,
		.in_shapes = m->lstr + l->in_shapes,
		.out_shapes = m->lstr + l->out_shapes,
		.macs = l->macs, .weight_bytes = l->weight_bytes,
	};
}
