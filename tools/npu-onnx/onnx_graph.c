// SPDX-License-Identifier: GPL-2.0-only
/*
 * onnx_graph.c - the ONNX side of the importer: unpack the ModelProto
 * (protobuf-c), build the value table (initializers, graph inputs with
 * their bound values, node outputs), check that every name is defined once
 * and used names exist, order the nodes topologically (a cycle is an
 * error), and read constants and attributes with every size checked.
 *
 * Everything lives in the struct ox_ctx of one onnx_import() call.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"

static void vfail(struct ox_ctx *x, int err, const char *pre,
		  const char *fmt, va_list ap)
{
	size_t n;

	if (x->err)
		return;
	x->err = err;
	if (!x->msg || !x->msglen)
		return;
	snprintf(x->msg, x->msglen, "%s", pre);
	n = strlen(x->msg);
	vsnprintf(x->msg + n, x->msglen - n, fmt, ap);
	/* one line: the names in it come from the file */
	for (n = 0; x->msg[n]; n++)
		if ((unsigned char)x->msg[n] < 0x20 || x->msg[n] == 0x7f)
			x->msg[n] = '?';
}

/* record the first error; returns it */
int ox_fail(struct ox_ctx *x, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(x, err, "", fmt, ap);
	va_end(ap);
	return x->err;
}

static void node_pre(struct ox_ctx *x, int node, char *pre, size_t len)
{
	Onnx__NodeProto *n = ox_node(x, node);

	snprintf(pre, len, "node '%.80s' (%.40s): ", x->nname[node],
		 n->op_type ? n->op_type : "");
}

/* -EOPNOTSUPP: "node 'NAME' (OpType): why" */
int ox_refuse(struct ox_ctx *x, int node, const char *fmt, ...)
{
	char pre[160];
	va_list ap;

	node_pre(x, node, pre, sizeof(pre));
	va_start(ap, fmt);
	vfail(x, -EOPNOTSUPP, pre, fmt, ap);
	va_end(ap);
	return x->err;
}

/* -EINVAL for a malformed node: "node 'NAME' (OpType): what" */
int ox_bad(struct ox_ctx *x, int node, const char *fmt, ...)
{
	char pre[160];
	va_list ap;

	node_pre(x, node, pre, sizeof(pre));
	va_start(ap, fmt);
	vfail(x, -EINVAL, pre, fmt, ap);
	va_end(ap);
	return x->err;
}

/* zeroed memory freed with the context; NULL (and -ENOMEM) on failure */
void *ox_alloc(struct ox_ctx *x, size_t n)
{
	void *p;

	if (x->nowned == x->owncap) {
		unsigned int cap = x->owncap ? 2 * x->owncap : 64;
		void **o = realloc(x->owned, cap * sizeof(*o));

		if (!o) {
			ox_fail(x, -ENOMEM, "out of memory");
			return NULL;
		}
		x->owned = o;
		x->owncap = cap;
	}
	p = calloc(1, n ? n : 1);
	if (!p) {
		ox_fail(x, -ENOMEM, "out of memory");
		return NULL;
	}
	x->owned[x->nowned++] = p;
	return p;
}

Onnx__NodeProto *ox_node(const struct ox_ctx *x, int i)
{
	return x->g->node[i];
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

struct ox_val *ox_find(const struct ox_ctx *x, const char *name)
{
	uint32_t h;

	if (!name || !*name)
		return NULL;
	for (h = hash_str(name) & x->hmask; x->hash[h] >= 0;
	     h = (h + 1) & x->hmask)
		if (!strcmp(x->v[x->hash[h]].name, name))
			return &x->v[x->hash[h]];
	return NULL;
}

/* a new value @name; NULL when it exists (the caller reports it) */
static struct ox_val *add_val(struct ox_ctx *x, const char *name)
{
	struct ox_val *v;
	uint32_t h;

	for (h = hash_str(name) & x->hmask; x->hash[h] >= 0;
	     h = (h + 1) & x->hmask)
		if (!strcmp(x->v[x->hash[h]].name, name))
			return NULL;
	x->hash[h] = (int)x->nv;
	v = &x->v[x->nv++];
	memset(v, 0, sizeof(*v));
	v->name = name;
	v->producer = -1;
	v->input = -1;
	v->dev = -1;
	v->fin_dev = -1;
	v->lo = -INFINITY;
	v->hi = INFINITY;
	return v;
}

/* input @i of @node; NULL when absent or an empty name (optional) */
struct ox_val *ox_in(struct ox_ctx *x, int node, unsigned int i)
{
	Onnx__NodeProto *n = ox_node(x, node);

	return i < n->n_input ? ox_find(x, n->input[i]) : NULL;
}

struct ox_val *ox_out(struct ox_ctx *x, int node, unsigned int i)
{
	Onnx__NodeProto *n = ox_node(x, node);

	return i < n->n_output ? ox_find(x, n->output[i]) : NULL;
}

static unsigned int elem_size(int32_t elem)
{
	switch (elem) {
	case OT_UINT8:
	case OT_INT8:
	case OT_BOOL:
		return 1;
	case OT_UINT16:
	case OT_INT16:
		return 2;
	case OT_FLOAT:
	case OT_INT32:
	case OT_UINT32:
		return 4;
	case OT_INT64:
	case OT_DOUBLE:
	case OT_UINT64:
		return 8;
	default:
		return 0;
	}
}

bool ox_is_int(int32_t elem)
{
	return elem_size(elem) && elem != OT_FLOAT && elem != OT_DOUBLE;
}

const char *ox_elem_name(int32_t elem)
{
	static const char *const names[] = {
		"undefined", "float", "uint8", "int8", "uint16", "int16",
		"int32", "int64", "string", "bool", "float16", "double",
		"uint32", "uint64", "complex64", "complex128", "bfloat16",
	};

	return elem >= 0 && elem < (int32_t)(sizeof(names) / sizeof(names[0])) ?
	       names[elem] : "unknown";
}

/*
 * Decode a TensorProto into @c (pointing into @tp, which outlives it): the
 * dims, the element count (overflow-checked) and where the values are,
 * which must be exactly count values. Element types without a reader
 * (strings, float16, ...) are kept with no data: a node that needs their
 * values refuses them.
 */
int ox_const_from_tp(struct ox_ctx *x, const Onnx__TensorProto *tp,
		     struct ox_const *c, const char *what)
{
	unsigned int es;
	uint64_t n = 1, have;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->name = what;
	c->elem = tp->has_data_type ? tp->data_type : 0;
	if (c->elem <= 0 || c->elem > OT_LAST)
		return ox_fail(x, -EINVAL, "tensor '%.80s': unknown element type %d",
			       what, c->elem);
	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return ox_fail(x, -EOPNOTSUPP,
			       "tensor '%.80s': external data is not supported",
			       what);
	if (tp->segment)
		return ox_fail(x, -EOPNOTSUPP,
			       "tensor '%.80s': segmented tensors are not supported",
			       what);
	if (tp->n_dims > OX_MAX_DIMS)
		return ox_fail(x, -EINVAL, "tensor '%.80s': %zu dims (at most %d)",
			       what, tp->n_dims, OX_MAX_DIMS);
	c->ndim = (int)tp->n_dims;
	for (i = 0; i < tp->n_dims; i++) {
		if (tp->dims[i] < 0)
			return ox_fail(x, -EINVAL,
				       "tensor '%.80s': negative dim %lld", what,
				       (long long)tp->dims[i]);
		c->dims[i] = tp->dims[i];
		if (__builtin_mul_overflow(n, (uint64_t)tp->dims[i], &n) ||
		    n > OX_MAX_ELEMS)
			return ox_fail(x, -EINVAL,
				       "tensor '%.80s': more than 2^30 elements",
				       what);
	}
	c->count = n;
	es = elem_size(c->elem);
	if (!es)
		return 0;
	if (tp->has_raw_data) {
		if (tp->raw_data.len != n * es)
			return ox_fail(x, -EINVAL,
				       "tensor '%.80s': %zu bytes of raw data for %llu %s values",
				       what, tp->raw_data.len,
				       (unsigned long long)n,
				       ox_elem_name(c->elem));
		c->raw = tp->raw_data.data;
		return 0;
	}
	switch (c->elem) {
	case OT_FLOAT:
		have = tp->n_float_data;
		c->typed = tp->float_data;
		break;
	case OT_DOUBLE:
		have = tp->n_double_data;
		c->typed = tp->double_data;
		break;
	case OT_INT64:
		have = tp->n_int64_data;
		c->typed = tp->int64_data;
		break;
	case OT_UINT32:
	case OT_UINT64:
		have = tp->n_uint64_data;
		c->typed = tp->uint64_data;
		break;
	default:	/* int32, and the narrower types stored as int32 */
		have = tp->n_int32_data;
		c->typed = tp->int32_data;
		break;
	}
	if (have != n)
		return ox_fail(x, -EINVAL,
			       "tensor '%.80s': %llu values for dims holding %llu",
			       what, (unsigned long long)have,
			       (unsigned long long)n);
	return 0;
}

/* element @i as an integer (floats truncated); 0 without data */
int64_t ox_ci64(const struct ox_const *c, uint64_t i)
{
	const uint8_t *p;
	uint64_t u = 0;
	unsigned int es = elem_size(c->elem), b;

	if (i >= c->count || !es)
		return 0;
	if (!c->raw) {
		switch (c->elem) {
		case OT_FLOAT:
			return (int64_t)((const float *)c->typed)[i];
		case OT_DOUBLE:
			return (int64_t)((const double *)c->typed)[i];
		case OT_INT64:
			return ((const int64_t *)c->typed)[i];
		case OT_UINT32:
		case OT_UINT64:
			return (int64_t)((const uint64_t *)c->typed)[i];
		case OT_UINT8:
			return (uint8_t)((const int32_t *)c->typed)[i];
		case OT_INT8:
			return (int8_t)((const int32_t *)c->typed)[i];
		default:
			return ((const int32_t *)c->typed)[i];
		}
	}
	p = c->raw + i * es;
	for (b = 0; b < es; b++)
		u |= (uint64_t)p[b] << (8 * b);
	switch (c->elem) {
	case OT_FLOAT: {
		uint32_t w = (uint32_t)u;
		float f;

		memcpy(&f, &w, 4);
		return (int64_t)f;
	}
	case OT_DOUBLE: {
		double d;

		memcpy(&d, &u, 8);
		return (int64_t)d;
	}
	case OT_INT8:
		return (int8_t)u;
	case OT_INT16:
		return (int16_t)u;
	case OT_INT32:
		return (int32_t)u;
	default:
		return (int64_t)u;
	}
}

/* element @i as a real number; 0 without data */
double ox_cf(const struct ox_const *c, uint64_t i)
{
	const uint8_t *p;

	if (i >= c->count)
		return 0;
	if (c->elem == OT_FLOAT) {
		float f;

		if (!c->raw)
			return ((const float *)c->typed)[i];
		p = c->raw + 4 * i;
		memcpy(&f, p, 4);	/* little-endian hosts only */
		return f;
	}
	if (c->elem == OT_DOUBLE) {
		double d;

		if (!c->raw)
			return ((const double *)c->typed)[i];
		memcpy(&d, c->raw + 8 * i, 8);
		return d;
	}
	return (double)ox_ci64(c, i);
}

const Onnx__AttributeProto *ox_attr(const Onnx__NodeProto *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name))
			return n->attribute[i];
	return NULL;
}

int ox_attr_int(struct ox_ctx *x, int node, const char *name, int64_t def,
		int64_t *v)
{
	const Onnx__AttributeProto *a = ox_attr(ox_node(x, node), name);

	*v = def;
	if (!a)
		return 0;
	if (!a->has_i &&
	    a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
		return ox_bad(x, node, "attribute '%s' is not an integer", name);
	*v = a->i;
	return 0;
}

int ox_attr_float(struct ox_ctx *x, int node, const char *name, float def,
		  float *v)
{
	const Onnx__AttributeProto *a = ox_attr(ox_node(x, node), name);

	*v = def;
	if (!a)
		return 0;
	if (!a->has_f &&
	    a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT)
		return ox_bad(x, node, "attribute '%s' is not a float", name);
	*v = a->f;
	return 0;
}

/* an INTS attribute; *@n = 0 when absent */
int ox_attr_ints(struct ox_ctx *x, int node, const char *name, int64_t *v,
		 unsigned int max, unsigned int *n)
{
	const Onnx__AttributeProto *a = ox_attr(ox_node(x, node), name);

	*n = 0;
	if (!a)
		return 0;
	if (!a->n_ints && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
		return ox_bad(x, node, "attribute '%s' is not a list of integers",
			      name);
	if (a->n_ints > max)
		return ox_refuse(x, node, "attribute '%s' has %zu values (at most %u)",
				 name, a->n_ints, max);
	if (a->n_ints)
		memcpy(v, a->ints, a->n_ints * sizeof(*v));
	*n = (unsigned int)a->n_ints;
	return 0;
}

int ox_attr_str(struct ox_ctx *x, int node, const char *name,
		const char *def, char *v, size_t len)
{
	const Onnx__AttributeProto *a = ox_attr(ox_node(x, node), name);

	snprintf(v, len, "%s", def);
	if (!a)
		return 0;
	if (!a->has_s)
		return ox_bad(x, node, "attribute '%s' is not a string", name);
	snprintf(v, len, "%.*s", (int)(a->s.len < len ? a->s.len : len - 1),
		 a->s.data ? (const char *)a->s.data : "");
	return 0;
}

/* refuse an attribute not in the NULL-terminated list @known */
int ox_attrs_only(struct ox_ctx *x, int node, const char *const *known)
{
	const Onnx__NodeProto *n = ox_node(x, node);
	size_t i, k;

	for (i = 0; i < n->n_attribute; i++) {
		const char *a = n->attribute[i]->name ? n->attribute[i]->name : "";

		for (k = 0; known[k]; k++)
			if (!strcmp(known[k], a))
				break;
		if (!known[k])
			return ox_refuse(x, node, "attribute '%.60s' is not supported",
					 a);
	}
	return 0;
}

static int bind_value(struct ox_ctx *x, struct ox_val *v)
{
	const struct onnx_import_opts *o = x->opts;
	unsigned int i;

	for (i = 0; o && i < o->n_binds; i++) {
		if (!o->binds[i].name || strcmp(o->binds[i].name, v->name))
			continue;
		/*
		 * A value that is not a tensor (the test data of sequences,
		 * optionals) is an error only where a node needs it.
		 */
		x->binds[i] = onnx__tensor_proto__unpack(NULL, o->binds[i].len,
							 o->binds[i].pb);
		if (!x->binds[i] ||
		    ox_const_from_tp(x, x->binds[i], &v->c, v->name)) {
			x->err = 0;
			if (x->msg && x->msglen)
				x->msg[0] = 0;
			v->bad_bind = true;
			return 0;
		}
		v->has_bind = true;
		return 0;
	}
	return 0;
}

static int add_graph_inputs(struct ox_ctx *x)
{
	Onnx__GraphProto *g = x->g;
	struct ox_val *v;
	size_t i;
	int ret;

	for (i = 0; i < g->n_initializer; i++) {
		const char *name = g->initializer[i]->name;

		if (!name || !*name)
			return ox_fail(x, -EINVAL, "initializer %zu has no name", i);
		v = add_val(x, name);
		if (!v)
			return ox_fail(x, -EINVAL, "initializer '%.80s' defined twice",
				       name);
		v->kind = VK_CONST;
		ret = ox_const_from_tp(x, g->initializer[i], &v->c, name);
		if (ret)
			return ret;
	}
	for (i = 0; i < g->n_input; i++) {
		const Onnx__ValueInfoProto *vi = g->input[i];
		const char *name = vi->name;

		if (!name || !*name)
			return ox_fail(x, -EINVAL, "graph input %zu has no name", i);
		v = ox_find(x, name);
		if (v && v->kind == VK_CONST && v->input < 0) {
			v->input = (int)i;	/* an initializer's default */
			continue;
		}
		if (v)
			return ox_fail(x, -EINVAL, "graph input '%.80s' listed twice",
				       name);
		v = add_val(x, name);
		v->input = (int)i;
		if (vi->type && vi->type->value_case ==
				ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
		    vi->type->tensor_type->has_elem_type)
			v->elem = vi->type->tensor_type->elem_type;
		ret = bind_value(x, v);
		if (ret)
			return ret;
	}
	for (i = 0; x->opts && i < x->opts->n_binds; i++)
		if (!x->binds[i] && x->opts->binds[i].name &&
		    !ox_find(x, x->opts->binds[i].name))
			return ox_fail(x, -EINVAL,
				       "--bind: the graph has no input '%.80s'",
				       x->opts->binds[i].name);
	return 0;
}

static void node_names(struct ox_ctx *x)
{
	unsigned int i;

	for (i = 0; i < x->nn; i++) {
		Onnx__NodeProto *n = ox_node(x, (int)i);
		char *s;

		if (n->name && *n->name) {
			x->nname[i] = n->name;
		} else if (n->n_output && n->output[0] && *n->output[0]) {
			x->nname[i] = n->output[0];
		} else {
			s = ox_alloc(x, 32);
			if (s)
				snprintf(s, 32, "node%u", i);
			x->nname[i] = s ? s : "?";
		}
	}
}

/* every output defined once, every input defined; then Kahn's order */
static int order_nodes(struct ox_ctx *x)
{
	Onnx__GraphProto *g = x->g;
	unsigned int i, j, head = 0, tail = 0;
	int *indeg, *users, *ustart, *ufill;
	size_t total = 0;
	struct ox_val *v;

	for (i = 0; i < x->nn; i++) {
		Onnx__NodeProto *n = g->node[i];

		if (!n->op_type || !*n->op_type)
			return ox_fail(x, -EINVAL, "node %u has no op_type", i);
		for (j = 0; j < n->n_output; j++) {
			if (!n->output[j] || !*n->output[j])
				continue;
			v = add_val(x, n->output[j]);
			if (!v)
				return ox_bad(x, (int)i,
					      "output '%.80s' is already defined",
					      n->output[j]);
			v->producer = (int)i;
		}
	}
	indeg = ox_alloc(x, x->nn * sizeof(int));
	ustart = ox_alloc(x, (x->nn + 1) * sizeof(int));
	ufill = ox_alloc(x, (x->nn + 1) * sizeof(int));
	if (!indeg || !ustart || !ufill)
		return x->err;
	for (i = 0; i < x->nn; i++) {
		Onnx__NodeProto *n = g->node[i];

		for (j = 0; j < n->n_input; j++) {
			if (!n->input[j] || !*n->input[j])
				continue;
			v = ox_find(x, n->input[j]);
			if (!v)
				return ox_bad(x, (int)i,
					      "input '%.80s' is not a graph input, an initializer or a node output",
					      n->input[j]);
			v->nuse++;
			if (v->producer >= 0) {
				indeg[i]++;
				ustart[v->producer + 1]++;
				total++;
			}
		}
	}
	for (i = 0; i < x->nn; i++)
		ustart[i + 1] += ustart[i];
	users = ox_alloc(x, (total + 1) * sizeof(int));
	if (!users)
		return x->err;
	for (i = 0; i < x->nn; i++) {
		Onnx__NodeProto *n = g->node[i];

		for (j = 0; j < n->n_input; j++) {
			v = ox_find(x, n->input[j]);
			if (v && v->producer >= 0)
				users[ustart[v->producer] +
				      ufill[v->producer]++] = (int)i;
		}
	}
	for (i = 0; i < x->nn; i++)
		if (!indeg[i])
			x->order[tail++] = (int)i;
	while (head < tail) {
		int n = x->order[head++];

		for (j = (unsigned int)ustart[n]; j < (unsigned int)ustart[n + 1]; j++)
			if (!--indeg[users[j]])
				x->order[tail++] = users[j];
	}
	if (tail < x->nn) {
		for (i = 0; i < x->nn && !indeg[i]; i++)
			;
		return ox_bad(x, (int)i, "the graph has a cycle through this node");
	}
	for (i = 0; i < g->n_output; i++) {
		const char *name = g->output[i]->name;

		v = ox_find(x, name);
		if (!v)
			return ox_fail(x, -EINVAL,
				       "graph output '%.80s' is not defined",
				       name ? name : "");
		for (j = 0; j < i; j++)
			if (!strcmp(g->output[j]->name, name))
				return ox_fail(x, -EINVAL,
					       "graph output '%.80s' listed twice",
					       name);
		v->graph_out = true;
	}
	return 0;
}

#define OX_MAX_NESTING	64	/* messages within messages */

/* a varint at *@p before @end; false when truncated or over 64 bits */
static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift;

	*v = 0;
	for (shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/*
 * protobuf-c unpacks nested messages recursively, without a bound: a few
 * MB of subgraphs nested 50000 deep overflow the stack. Walk the wire
 * format first, without recursion, following the descriptors of the
 * message fields, and refuse nesting deeper than OX_MAX_NESTING. Anything
 * else malformed is left to protobuf-c.
 */
static int check_nesting(struct ox_ctx *x, const uint8_t *buf, size_t len)
{
	struct {
		const uint8_t *end;
		const ProtobufCMessageDescriptor *d;
	} st[OX_MAX_NESTING];
	const uint8_t *p = buf;
	unsigned int depth = 0;
	uint64_t tag, v;

	st[0].end = buf + len;
	st[0].d = &onnx__model_proto__descriptor;
	for (;;) {
		const ProtobufCFieldDescriptor *f;

		while (p == st[depth].end && depth)
			depth--;
		if (p >= st[depth].end)
			return 0;
		if (!get_varint(&p, st[depth].end, &tag))
			return 0;
		switch (tag & 7) {
		case PROTOBUF_C_WIRE_TYPE_VARINT:
			if (!get_varint(&p, st[depth].end, &v))
				return 0;
			break;
		case PROTOBUF_C_WIRE_TYPE_64BIT:
			if (st[depth].end - p < 8)
				return 0;
			p += 8;
			break;
		case PROTOBUF_C_WIRE_TYPE_32BIT:
			if (st[depth].end - p < 4)
				return 0;
			p += 4;
			break;
		case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
			if (!get_varint(&p, st[depth].end, &v) ||
			    v > (uint64_t)(st[depth].end - p))
				return 0;
			f = tag >> 3 <= UINT32_MAX ?
			    protobuf_c_message_descriptor_get_field(st[depth].d,
								    (unsigned int)(tag >> 3)) :
			    NULL;
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && f->descriptor) {
				if (depth + 1 >= OX_MAX_NESTING)
					return ox_fail(x, -EINVAL,
						       "messages nested deeper than %d (subgraphs within subgraphs)",
						       OX_MAX_NESTING);
				depth++;
				st[depth].end = p + v;
				st[depth].d = f->descriptor;
			} else {
				p += v;
			}
			break;
		default:
			return 0;	/* groups: protobuf-c's error */
		}
	}
}

int ox_parse(struct ox_ctx *x, const void *buf, size_t len)
{
	Onnx__GraphProto *g;
	size_t nvals, i;

	if (!buf || !len)
		return ox_fail(x, -EINVAL, "empty file: not an ONNX model");
	if (check_nesting(x, buf, len))
		return x->err;
	x->model = onnx__model_proto__unpack(NULL, len, buf);
	if (!x->model)
		return ox_fail(x, -EINVAL,
			       "not an ONNX model: the protobuf is truncated or malformed");
	g = x->g = x->model->graph;
	if (!g)
		return ox_fail(x, -EINVAL, "the model has no graph");
	if (!g->n_node)
		return ox_fail(x, -EINVAL, "the graph has no node");
	if (g->n_node > OX_MAX_NODES)
		return ox_fail(x, -E2BIG, "%zu nodes (at most %d)", g->n_node,
			       OX_MAX_NODES);
	if (!g->n_output)
		return ox_fail(x, -EINVAL, "the graph has no output");
	if (g->n_sparse_initializer)
		return ox_fail(x, -EOPNOTSUPP,
			       "sparse initializers are not supported");
	x->nn = (unsigned int)g->n_node;
	nvals = g->n_initializer + g->n_input;
	for (i = 0; i < g->n_node; i++) {
		nvals += g->node[i]->n_output;
		if (nvals > 16 * OX_MAX_NODES)
			return ox_fail(x, -E2BIG, "too many values in the graph");
	}
	if (nvals > 16 * OX_MAX_NODES)
		return ox_fail(x, -E2BIG, "too many values in the graph");
	x->vcap = (unsigned int)nvals + 1;
	for (x->hmask = 63; x->hmask < 2 * x->vcap; x->hmask = 2 * x->hmask + 1)
		;
	x->v = ox_alloc(x, x->vcap * sizeof(*x->v));
	x->hash = ox_alloc(x, ((size_t)x->hmask + 1) * sizeof(int));
	x->order = ox_alloc(x, x->nn * sizeof(int));
	x->nname = ox_alloc(x, x->nn * sizeof(char *));
	x->binds = ox_alloc(x, (x->opts ? x->opts->n_binds : 0) *
			       sizeof(*x->binds) + 1);
	if (x->err)
		return x->err;
	memset(x->hash, 0xff, ((size_t)x->hmask + 1) * sizeof(int));
	node_names(x);
	if (x->err)
		return x->err;
	if (add_graph_inputs(x))
		return x->err;
	return order_nodes(x);
}

void ox_free(struct ox_ctx *x)
{
	unsigned int i;

	for (i = 0; x->binds && x->opts && i < x->opts->n_binds; i++)
		if (x->binds[i])
			onnx__tensor_proto__free_unpacked(x->binds[i], NULL);
	if (x->model)
		onnx__model_proto__free_unpacked(x->model, NULL);
	for (i = 0; i < x->nowned; i++)
		free(x->owned[i]);
	free(x->owned);
	free(x->cb);
	free(x->dv);
}

int onnx_graph_name(const void *buf, size_t len, char *name, size_t namelen)
{
	Onnx__ModelProto *m;

	if (namelen)
		name[0] = 0;
	struct ox_ctx x = { 0 };

	if (!buf || !len || check_nesting(&x, buf, len))
		return -EINVAL;
	m = onnx__model_proto__unpack(NULL, len, buf);
	if (!m)
		return -EINVAL;
	if (!m->graph) {
		onnx__model_proto__free_unpacked(m, NULL);
		return -EINVAL;
	}
	if (namelen)
		snprintf(name, namelen, "%s", m->graph->name ? m->graph->name : "");
	onnx__model_proto__free_unpacked(m, NULL);
	return 0;
}
