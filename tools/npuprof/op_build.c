// SPDX-License-Identifier: GPL-2.0-only
/*
 * op_build.c - npuprof op: the job that times an operator. From an opcode
 * with shapes and attributes it builds a one-operator program with the
 * project's program builder (tools/include/npu_progbuild.h): constants
 * (program, weights, bias, requantization table) in slot 0, the input in
 * slot 1, the output in slot 2. From a model it keeps the model's slots
 * and constant image and replaces the program by one holding the model's
 * whole tensor table and only the chosen operators, put in a slot of its
 * own after the model's, so that the operators run on the model's own
 * tensors (shapes, layouts, constants, requantization tables).
 *
 * No global state; every function fills its caller's struct npo_job.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnpu.h"
#include "npu/npu_model_layers.h"
#include "npu/npu_program.h"
#include "npu_progbuild.h"
#include "npu_cli.h"
#include "cli.h"
#include "op.h"

static const char *const op_names[NPU_OP_MAX + 1] = {
	[NPU_OP_CONV2D] = "conv2d", [NPU_OP_DWCONV2D] = "dwconv2d",
	[NPU_OP_PAD] = "pad", [NPU_OP_AVGPOOL] = "avgpool",
	[NPU_OP_MAXPOOL] = "maxpool", [NPU_OP_FC] = "fc",
	[NPU_OP_MATMUL] = "matmul", [NPU_OP_ADD] = "add",
	[NPU_OP_CLIP] = "clip", [NPU_OP_RESHAPE] = "reshape",
	[NPU_OP_TRANSPOSE] = "transpose", [NPU_OP_SLICE] = "slice",
	[NPU_OP_CONCAT] = "concat",
};

const char *npo_opcode_cli_name(uint16_t opcode)
{
	return opcode <= NPU_OP_MAX ? op_names[opcode] : NULL;
}

uint16_t npo_opcode_parse(const char *name)
{
	uint16_t i;

	for (i = 1; i <= NPU_OP_MAX; i++)
		if (op_names[i] && !strcasecmp(name, op_names[i]))
			return i;
	return 0;
}

void npo_job_free(struct npo_job *job)
{
	unsigned int i;

	for (i = 0; i < NPO_MAX_SLOTS; i++)
		free(job->image[i]);
	memset(job, 0, sizeof(*job));
}

uint64_t npo_fnv(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* ---- an operator from the command line ---- */

/* "1x112x112x32" for the description */
static void fmt_dims(char *buf, size_t len, const uint32_t *d, unsigned int n)
{
	size_t pos = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && pos < len; i++)
		pos += snprintf(buf + pos, len - pos, "%s%" PRIu32, i ? "x" : "",
				d[i]);
}

/* output size of a window along one dim, 0 when the window does not fit */
static uint32_t win_out(uint32_t in, uint32_t k, uint32_t s, uint32_t p0,
			uint32_t p1)
{
	uint64_t span = (uint64_t)in + p0 + p1;

	return span < k ? 0 : (uint32_t)((span - k) / s + 1);
}

/* TensorFlow's "same": out = ceil(in / s), the extra padding at the end */
static void pad_same(uint32_t in, uint32_t k, uint32_t s, uint32_t *p0,
		     uint32_t *p1)
{
	uint64_t out = ((uint64_t)in + s - 1) / s;
	uint64_t need = (out - 1) * s + k;
	uint64_t tot = need > in ? need - in : 0;

	*p0 = (uint32_t)(tot / 2);
	*p1 = (uint32_t)(tot - tot / 2);
}

struct spec_plan {
	uint32_t out[4];
	unsigned int out_ndim;
	uint32_t pad[4];	/* t, l, b, r */
	uint64_t w_elems, bias, rq_pairs;
	uint32_t w_dims[4];
	unsigned int w_ndim;
};

static int spec_err(const char *fmt, const char *a, unsigned long long v)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, a, v);
	return npu_cli_usage_error(NPO_PROG, "%s", msg);
}

/* the data-movement operators: output zero point = input's, no rq */
static bool is_move_op(uint16_t opc)
{
	return opc == NPU_OP_PAD || opc == NPU_OP_RESHAPE ||
	       opc == NPU_OP_TRANSPOSE || opc == NPU_OP_SLICE ||
	       opc == NPU_OP_CONCAT;
}

static bool is_window_op(uint16_t opc)
{
	return opc == NPU_OP_CONV2D || opc == NPU_OP_DWCONV2D ||
	       opc == NPU_OP_AVGPOOL || opc == NPU_OP_MAXPOOL;
}

/* shapes of the output and the constants; 0 or 2 after a usage message */
static int spec_plan(const struct npo_spec *s, struct spec_plan *p)
{
	const char *name = npo_opcode_cli_name(s->opcode);
	const uint32_t *in = s->in;
	uint64_t cnt_in = 1, cnt_out = 1;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	if (!s->in_ndim)
		return spec_err("%s: --input is required", name, 0);
	if (is_window_op(s->opcode)) {
		uint32_t kh = s->kh, kw = s->kw;

		if (s->in_ndim != 4)
			return spec_err("%s: --input must be NxHxWxC", name, 0);
		if (!kh || !kw)
			return spec_err("%s: --kernel is required", name, 0);
		if (kh > 255 || kw > 255 || s->sh > 255 || s->sw > 255)
			return spec_err("%s: kernel and stride must be at most %llu",
					name, 255);
		if (s->pad_mode == 1) {
			pad_same(in[1], kh, s->sh, &p->pad[0], &p->pad[2]);
			pad_same(in[2], kw, s->sw, &p->pad[1], &p->pad[3]);
		} else if (s->pad_mode == 0) {
			memcpy(p->pad, s->pad, sizeof(p->pad));
		}
		for (i = 0; i < 4; i++)
			if (p->pad[i] > 255)
				return spec_err("%s: padding must be at most %llu",
						name, 255);
		p->out[0] = in[0];
		p->out[1] = win_out(in[1], kh, s->sh, p->pad[0], p->pad[2]);
		p->out[2] = win_out(in[2], kw, s->sw, p->pad[1], p->pad[3]);
		p->out[3] = in[3];
		p->out_ndim = 4;
		if (!p->out[1] || !p->out[2])
			return spec_err("%s: the kernel does not fit the padded input",
					name, 0);
		if (s->opcode == NPU_OP_CONV2D) {
			if (!s->filters)
				return spec_err("%s: --filters is required", name, 0);
			p->out[3] = s->filters;
			p->w_dims[0] = s->filters;
			p->w_dims[1] = kh;
			p->w_dims[2] = kw;
			p->w_dims[3] = in[3];
			p->w_ndim = 4;
			p->bias = p->rq_pairs = s->filters;
		} else if (s->opcode == NPU_OP_DWCONV2D) {
			if (s->filters && s->filters != in[3])
				return spec_err("%s: --filters must equal the input channels (depth multiplier 1), not %llu",
						name, s->filters);
			p->w_dims[0] = 1;
			p->w_dims[1] = kh;
			p->w_dims[2] = kw;
			p->w_dims[3] = in[3];
			p->w_ndim = 4;
			p->bias = p->rq_pairs = in[3];
		}
	} else if (s->opcode == NPU_OP_FC || s->opcode == NPU_OP_MATMUL) {
		if (s->in_ndim != 2)
			return spec_err("%s: --input must be MxK", name, 0);
		if (!s->filters)
			return spec_err("%s: --filters (N, the outputs) is required",
					name, 0);
		p->out[0] = in[0];
		p->out[1] = s->filters;
		p->out_ndim = 2;
		p->w_dims[0] = s->opcode == NPU_OP_FC ? s->filters : in[1];
		p->w_dims[1] = s->opcode == NPU_OP_FC ? in[1] : s->filters;
		p->w_ndim = 2;
		p->bias = p->rq_pairs = s->filters;
	} else if (s->opcode == NPU_OP_ADD || s->opcode == NPU_OP_CLIP) {
		memcpy(p->out, in, sizeof(p->out));
		p->out_ndim = s->in_ndim;
		p->rq_pairs = s->opcode == NPU_OP_ADD ? 3 : 0;
	} else if (s->opcode == NPU_OP_PAD) {
		if (s->in_ndim != 4)
			return spec_err("%s: --input must be NxHxWxC", name, 0);
		memcpy(p->pad, s->pad, sizeof(p->pad));
		for (i = 0; i < 4; i++)
			if (p->pad[i] > 65535)
				return spec_err("%s: padding must be at most %llu",
						name, 65535);
		memcpy(p->out, in, sizeof(p->out));
		p->out[1] += p->pad[0] + p->pad[2];
		p->out[2] += p->pad[1] + p->pad[3];
		p->out_ndim = 4;
	} else if (s->opcode == NPU_OP_RESHAPE || s->opcode == NPU_OP_SLICE) {
		if (!s->out_ndim)
			return spec_err("%s: --output is required", name, 0);
		memcpy(p->out, s->out, sizeof(p->out));
		p->out_ndim = s->out_ndim;
		for (i = 0; i < 4; i++) {
			cnt_in *= i < s->in_ndim ? in[i] : 1;
			cnt_out *= i < s->out_ndim ? s->out[i] : 1;
		}
		if (s->opcode == NPU_OP_RESHAPE && cnt_in != cnt_out)
			return spec_err("%s: --output must have the input's %llu elements",
					name, cnt_in);
		if (s->opcode == NPU_OP_SLICE) {
			if (s->out_ndim != s->in_ndim)
				return spec_err("%s: --output must have the input's %llu dims",
						name, s->in_ndim);
			for (i = 0; i < s->in_ndim; i++)
				if (s->out[i] > in[i])
					return spec_err("%s: --output dim %llu is larger than the input's",
							name, i);
		}
	} else if (s->opcode == NPU_OP_TRANSPOSE) {
		bool seen[4] = { false };

		if (s->out_ndim != s->in_ndim)
			return spec_err("%s: --perm must list the input's %llu dims",
					name, s->in_ndim);
		for (i = 0; i < s->in_ndim; i++) {
			if (s->out[i] >= s->in_ndim || seen[s->out[i]])
				return spec_err("%s: --perm must be a permutation of 0..%llu",
						name, s->in_ndim - 1);
			seen[s->out[i]] = true;
			p->out[i] = in[s->out[i]];
		}
		p->out_ndim = s->in_ndim;
	} else if (s->opcode == NPU_OP_CONCAT) {
		if (s->axis >= s->in_ndim)
			return spec_err("%s: --axis must be below the input's %llu dims",
					name, s->in_ndim);
		memcpy(p->out, in, sizeof(p->out));
		p->out[s->axis] *= s->inputs;
		p->out_ndim = s->in_ndim;
	}
	for (i = 0; i < 4; i++)
		if (i >= p->out_ndim)
			p->out[i] = 1;
	return 0;
}

/* the canonical description: the cache key's operator part */
static void spec_desc(const struct npo_spec *s, const struct spec_plan *p,
		      char *buf, size_t len)
{
	char din[64], dout[64];
	size_t pos;

	fmt_dims(din, sizeof(din), s->in, s->in_ndim);
	fmt_dims(dout, sizeof(dout), p->out, p->out_ndim);
	pos = snprintf(buf, len, "%s in=%s", npo_opcode_cli_name(s->opcode),
		       din);
	if (pos < len && s->filters)
		pos += snprintf(buf + pos, len - pos, " filters=%" PRIu32,
				s->filters);
	if (pos < len && is_window_op(s->opcode))
		pos += snprintf(buf + pos, len - pos,
				" kernel=%" PRIu32 "x%" PRIu32 " stride=%" PRIu32
				"x%" PRIu32 " pad=%" PRIu32 ",%" PRIu32 ",%" PRIu32
				",%" PRIu32, s->kh, s->kw, s->sh, s->sw,
				p->pad[0], p->pad[1], p->pad[2], p->pad[3]);
	if (pos < len && s->opcode == NPU_OP_PAD)
		pos += snprintf(buf + pos, len - pos,
				" pad=%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32,
				p->pad[0], p->pad[1], p->pad[2], p->pad[3]);
	if (pos < len && s->opcode == NPU_OP_CONCAT)
		pos += snprintf(buf + pos, len - pos, " inputs=%u axis=%" PRIu32,
				s->inputs, s->axis);
	if (pos < len)
		snprintf(buf + pos, len - pos, " out=%s layout=%s", dout,
			 s->plain ? "plain" : "nchwc16");
}

static uint8_t act_layout(const struct npo_spec *s, unsigned int ndim)
{
	return ndim == 4 && !s->plain ? NPU_LAYOUT_NCHWC16 : NPU_LAYOUT_PLAIN;
}

/* a * b, saturating: sizes beyond a slot's limit are refused anyway */
static uint64_t smul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t act_bytes(uint8_t layout, const uint32_t *d)
{
	uint64_t c = layout == NPU_LAYOUT_NCHWC16 ? (d[3] + 15ull) / 16 * 16 :
						     d[3];

	return smul(smul(smul(d[0], d[1]), d[2]), c);
}

/* the largest slot a command-line operator gets (a model file's limit) */
#define MAX_SLOT	(1ull << 30)

/* bytes of an allocation of @n bytes in a slot, 64-byte aligned */
#define ALIGN64(n)	(((n) + 63) & ~63ull)

/*
 * The requantization table of @s's operator, @pairs (multiplier, shift)
 * pairs, into @b as *@rq: ADD's scales each input and the sum, the
 * others' one multiplier. Return: 0 or -ENOMEM.
 */
static int spec_rq(struct progbuild *b, const struct npo_spec *s,
		   uint64_t pairs, uint16_t *rq)
{
	static const int32_t add_rq[6] = { 1 << 30, 0, 1 << 30, 0, 1 << 30,
					   -20 };
	int32_t *tab;
	uint64_t i;

	tab = calloc(pairs, 2 * sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < pairs; i++) {
		bool add = s->opcode == NPU_OP_ADD;

		tab[2 * i] = add ? add_rq[2 * i] : 1 << 30;
		tab[2 * i + 1] = add ? add_rq[2 * i + 1] : -8;
	}
	*rq = progbuild_rq(b, (uint32_t)pairs, tab);
	free(tab);
	return 0;
}

/*
 * The fields of @op that depend on its opcode: the second and third
 * inputs (@x1, @x2) of ADD and CONCAT, CONCAT's axis, a window's kernel,
 * stride and padding, PAD's and TRANSPOSE's attributes; no
 * requantization for the data-movement operators.
 */
static void spec_op_fields(struct npu_prog_op *op, const struct npo_spec *s,
			   const struct spec_plan *p, uint16_t x1, uint16_t x2)
{
	unsigned int i;

	if (s->opcode == NPU_OP_CLIP || s->opcode == NPU_OP_ADD)
		op->act_min = 100;
	if (s->opcode == NPU_OP_ADD) {
		op->in[1] = x1;
		op->in[2] = NPU_PROG_NONE;
	}
	if (s->opcode == NPU_OP_CONCAT) {
		op->in[1] = x1;
		op->in[2] = x2;
		op->u.concat.axis = s->axis;
	} else if (is_window_op(s->opcode)) {
		progbuild_conv(op, (uint8_t)s->kh, (uint8_t)s->kw,
			       (uint8_t)s->sh, (uint8_t)s->sw, (uint8_t)p->pad[0],
			       (uint8_t)p->pad[1], (uint8_t)p->pad[2],
			       (uint8_t)p->pad[3]);
	} else if (s->opcode == NPU_OP_PAD) {
		op->u.pad.before[1] = (uint16_t)p->pad[0];
		op->u.pad.before[2] = (uint16_t)p->pad[1];
		op->u.pad.after[1] = (uint16_t)p->pad[2];
		op->u.pad.after[2] = (uint16_t)p->pad[3];
	} else if (s->opcode == NPU_OP_TRANSPOSE) {
		for (i = 0; i < s->in_ndim; i++)
			op->u.transpose.perm[i] = (uint8_t)s->out[i];
	}
	if (is_move_op(s->opcode))
		op->rq = NPU_PROG_NONE;
}

int npo_build_spec(const struct npo_spec *s, struct npo_job *job)
{
	struct spec_plan p;
	struct progbuild *b;
	uint32_t din[4] = { 1, 1, 1, 1 };
	uint64_t slot_sz[3], ibytes, obytes, wbytes;
	uint16_t x, x1 = NPU_PROG_NONE, x2 = NPU_PROG_NONE, w = NPU_PROG_NONE;
	uint16_t bias = NPU_PROG_NONE, rq = NPU_PROG_NONE, y;
	uint8_t lin, lout;
	struct npu_prog_op *op;
	unsigned int i, nin;
	int ret;

	ret = spec_plan(s, &p);
	if (ret)
		return ret;
	memset(job, 0, sizeof(*job));
	memcpy(din, s->in, s->in_ndim * sizeof(din[0]));
	lin = act_layout(s, s->in_ndim);
	lout = act_layout(s, p.out_ndim);
	ibytes = act_bytes(lin, din);
	obytes = act_bytes(lout, p.out);
	nin = s->opcode == NPU_OP_ADD ? 2 :
	      s->opcode == NPU_OP_CONCAT ? s->inputs : 1;
	wbytes = p.w_ndim ? smul(smul(p.w_dims[0], p.w_dims[1]),
				 p.w_ndim == 4 ? smul(p.w_dims[2], p.w_dims[3]) : 1) : 0;
	/* each term is below 2^62 or refused: no sum wraps */
	if (wbytes > MAX_SLOT || ibytes > MAX_SLOT || obytes > MAX_SLOT)
		return spec_err("%s: a tensor of the operator is larger than %llu bytes",
				npo_opcode_cli_name(s->opcode), MAX_SLOT);
	slot_sz[0] = PROGBUILD_PROG_BYTES + ALIGN64(wbytes) +
		     ALIGN64(4 * p.bias) + ALIGN64(8 * p.rq_pairs) + 64;
	slot_sz[1] = nin * ALIGN64(ibytes) + 64;
	slot_sz[2] = ALIGN64(obytes) + 64;
	for (i = 0; i < 3; i++)
		if (slot_sz[i] > MAX_SLOT)
			return spec_err("%s: the operator's slot %llu would be larger than 1 GiB",
					npo_opcode_cli_name(s->opcode), i);
	b = calloc(1, sizeof(*b));
	if (!b || progbuild_init_slots(b, 1, (uint32_t)slot_sz[0])) {
		npc_err("op: out of memory");
		if (b)
			progbuild_free(b);
		free(b);
		return 1;
	}
	/* slots 1 and 2 are placed by hand (progbuild owns slot 0 only) */
	x = progbuild_tensor_at(b, NPU_DT_U8, lin, 1, 0, (uint8_t)s->in_ndim,
				din[0], din[1], din[2], din[3], 128);
	if (nin > 1)
		x1 = progbuild_tensor_at(b, NPU_DT_U8, lin, 1,
					 (uint32_t)ALIGN64(ibytes),
					 (uint8_t)s->in_ndim, din[0], din[1],
					 din[2], din[3], 128);
	if (nin > 2)
		x2 = progbuild_tensor_at(b, NPU_DT_U8, lin, 1,
					 (uint32_t)(2 * ALIGN64(ibytes)),
					 (uint8_t)s->in_ndim, din[0], din[1],
					 din[2], din[3], 128);
	y = progbuild_tensor_at(b, NPU_DT_U8, lout, 2, 0, (uint8_t)p.out_ndim,
				p.out[0], p.out[1], p.out[2], p.out[3],
				is_move_op(s->opcode) ? 128 : 100);
	if (p.w_ndim)
		w = progbuild_tensor(b, 0, NPU_DT_I8, NPU_LAYOUT_PLAIN,
				     (uint8_t)p.w_ndim, p.w_dims[0], p.w_dims[1],
				     p.w_ndim == 4 ? p.w_dims[2] : 1,
				     p.w_ndim == 4 ? p.w_dims[3] : 1, 0);
	if (p.bias) {
		bias = progbuild_tensor(b, 0, NPU_DT_I32, NPU_LAYOUT_PLAIN, 1,
					(uint32_t)p.bias, 1, 1, 1, 0);
		memset(progbuild_data(b, bias), 0, 4 * p.bias);
	}
	if (p.rq_pairs && spec_rq(b, s, p.rq_pairs, &rq)) {
		npc_err("op: out of memory");
		progbuild_free(b);
		free(b);
		return 1;
	}
	op = progbuild_op(b, s->opcode, x, x1 != NPU_PROG_NONE ? x1 : w,
			  x1 != NPU_PROG_NONE ? x2 : bias, y, rq, 0, 255);
	spec_op_fields(op, s, &p, x1, x2);
	progbuild_finish(b);

	job->nslots = 3;
	job->size[0] = slot_sz[0];
	job->size[1] = slot_sz[1];
	job->size[2] = slot_sz[2];
	job->image[0] = b->slots[0].base;	/* taken over from @b */
	b->slots[0].base = NULL;
	job->image[1] = malloc(slot_sz[1]);
	if (!job->image[1]) {
		npc_err("op: out of memory");
		progbuild_free(b);
		free(b);
		npo_job_free(job);
		return 1;
	}
	/* the inputs hold their zero point and a ramp: any values time alike */
	for (i = 0; i < slot_sz[1]; i++)
		job->image[1][i] = (uint8_t)(i * 7);
	job->prog_slot = 0;
	job->prog_off = 0;
	job->prog_size = b->prog_size;
	job->n_ops = 1;
	job->opcode[0] = s->opcode;
	spec_desc(s, &p, job->desc, sizeof(job->desc));
	snprintf(job->key, sizeof(job->key), "%s prog=%016" PRIx64, job->desc,
		 npo_fnv(NPO_FNV_INIT, job->image[0], job->prog_size));
	progbuild_free(b);
	free(b);
	return 0;
}

/* ---- operators of a model ---- */

/* the program of a loaded model, with its tables; NULL when malformed */
static const struct npu_prog_hdr *model_prog(const struct npu_model *m,
					     size_t *img_size,
					     uint32_t *prog_off)
{
	const uint8_t *img;
	uint32_t psize;

	img = npu_model_const_image(m, img_size, prog_off, &psize);
	if (!img || psize < sizeof(struct npu_prog_hdr))
		return NULL;
	/* npu_model_load() checked the whole program against the slots */
	return (const struct npu_prog_hdr *)(img + *prog_off);
}

static const struct npu_prog_op *prog_op(const struct npu_prog_hdr *h,
					 uint32_t i)
{
	return (const struct npu_prog_op *)((const uint8_t *)h + h->ops_off) + i;
}

static int load_model(const char *path, struct npu_model **m)
{
	char err[256];
	int ret;

	ret = npu_model_load(path, m, err, sizeof(err));
	if (ret) {
		npc_err("op: %s", err[0] ? err : strerror(-ret));
		return 1;
	}
	return 0;
}

/* the layer table of @m, or NULL when the model file has none */
static const struct npu_layers_hdr *model_layers(const struct npu_model *m)
{
	const void *t;

	return npu_model_layers(m, &t, NULL) ? NULL : t;
}

/*
 * The layer of operator @i of @m into @buf ("" when the model has no
 * layer table; Documentation/npu/model.rst, "Layer table").
 */
static void op_layer(const struct npu_model *m, uint32_t i, char *buf,
		     size_t len)
{
	const struct npu_layers_hdr *h = model_layers(m);

	if (h && i < h->n_layers)
		snprintf(buf, len, "%s",
			 npu_layers_str(h, npu_layers_desc(h, i)->name));
	else if (len)
		buf[0] = '\0';
}

/* first operator and count of layer @name of @m; 0, or 2 after a message */
static int find_layer(const struct npu_model *m, const char *path,
		      const char *name, uint32_t *first, uint32_t *count)
{
	unsigned int f, n;

	if (!model_layers(m))
		return npu_cli_usage_error(NPO_PROG,
					   "--layer %s: %s has no layer table (a model written before layer names); use --op-index",
					   name, path);
	if (npu_model_find_layer(m, name, &f, &n))
		return npu_cli_usage_error(NPO_PROG,
					   "--layer %s: no such layer in %s (npuprof op --model %s --list shows them)",
					   name, path, path);
	if (n > NPO_MAX_OPS)
		return npu_cli_usage_error(NPO_PROG,
					   "--layer %s: %u operators, more than the %u one profile covers",
					   name, n, NPO_MAX_OPS);
	*first = f;
	*count = n;
	return 0;
}

int npo_build_model(const char *path, const char *layer, uint32_t first,
		    uint32_t count, struct npo_job *job)
{
	const struct npu_prog_hdr *h;
	struct npu_model *m = NULL;
	struct npu_prog_hdr nh;
	const uint8_t *img;
	uint32_t prog_off, i, ns;
	size_t img_size, psize;
	uint8_t *np;
	int ret;

	if (load_model(path, &m))
		return 1;
	memset(job, 0, sizeof(*job));
	h = model_prog(m, &img_size, &prog_off);
	if (!h) {
		npc_err("op: %s: no program", path);
		ret = 1;
		goto out;
	}
	if (layer) {
		ret = find_layer(m, path, layer, &first, &count);
		if (ret)
			goto out;
	}
	if (first >= h->n_ops) {
		ret = npu_cli_usage_error(NPO_PROG,
					  "--op-index %" PRIu32 ": %s has operators 0..%" PRIu32,
					  first, path, h->n_ops - 1);
		goto out;
	}
	if (count < 1 || count > NPO_MAX_OPS || count > h->n_ops - first) {
		ret = npu_cli_usage_error(NPO_PROG,
					  "--op-count %" PRIu32 ": 1..%u operators from %" PRIu32 " (the model has %" PRIu32 ")",
					  count, NPO_MAX_OPS, first, h->n_ops);
		goto out;
	}
	ns = npu_model_num_slots(m);
	if (ns >= NPO_MAX_SLOTS) {
		npc_err("op: %s: %u slots leave none for the operator's program",
			path, ns);
		ret = 1;
		goto out;
	}
	img = npu_model_const_image(m, NULL, NULL, NULL);
	job->nslots = ns + 1;
	for (i = 0; i < ns; i++)
		npu_model_slot(m, i, NULL, &job->size[i]);
	job->image[0] = calloc(1, job->size[0]);
	psize = progbuild_size_for(h->n_tensors, count);
	job->image[ns] = calloc(1, psize);
	if (!job->image[0] || !job->image[ns]) {
		npc_err("op: out of memory");
		ret = 1;
		goto out;
	}
	memcpy(job->image[0], img, img_size);
	/* the model's tensor table, then only the chosen operators */
	np = job->image[ns];
	progbuild_write(np, (const struct npu_prog_tensor *)
			((const uint8_t *)h + h->tensors_off), h->n_tensors,
			prog_op(h, first), count);
	memcpy(&nh, np, sizeof(nh));
	job->size[ns] = psize;
	job->prog_slot = ns;
	job->prog_off = 0;
	job->prog_size = nh.size;
	job->n_ops = count;
	job->first_op = first;
	for (i = 0; i < count; i++) {
		job->opcode[i] = prog_op(h, first + i)->opcode;
		op_layer(m, first + i, job->layer[i], sizeof(job->layer[i]));
	}
	if (count == 1)
		snprintf(job->desc, sizeof(job->desc), "%s op %" PRIu32 "%s%s",
			 npu_model_name(m), first, job->layer[0][0] ? " " : "",
			 job->layer[0]);
	else if (strcmp(job->layer[0], job->layer[count - 1]))
		snprintf(job->desc, sizeof(job->desc),
			 "%s ops %" PRIu32 "..%" PRIu32 " %s..%s",
			 npu_model_name(m), first, first + count - 1,
			 job->layer[0], job->layer[count - 1]);
	else	/* one layer of several operators, or no names */
		snprintf(job->desc, sizeof(job->desc),
			 "%s ops %" PRIu32 "..%" PRIu32 "%s%s",
			 npu_model_name(m), first, first + count - 1,
			 job->layer[0][0] ? " " : "", job->layer[0]);
	snprintf(job->key, sizeof(job->key), "model %s prog=%016" PRIx64,
		 job->desc, npo_fnv(NPO_FNV_INIT, np, psize));
	ret = 0;
out:
	if (ret)
		npo_job_free(job);
	npu_model_free(m);
	return ret;
}

int npo_list_model(const char *path, FILE *out)
{
	const struct npu_prog_hdr *h;
	const struct npu_prog_tensor *t;
	const struct npu_layers_hdr *lh;
	struct npu_model *m = NULL;
	char layer[NPO_NAME_LEN], din[64], dout[64];
	uint32_t prog_off, i;
	size_t img_size;

	if (load_model(path, &m))
		return 1;
	h = model_prog(m, &img_size, &prog_off);
	if (!h) {
		npc_err("op: %s: no program", path);
		npu_model_free(m);
		return 1;
	}
	t = (const struct npu_prog_tensor *)((const uint8_t *)h + h->tensors_off);
	lh = model_layers(m);
	fprintf(out, "%-5s %-10s %-16s %-18s %-18s %s\n", "index", "opcode",
		"layer", "input", "output", "source op");
	for (i = 0; i < h->n_ops; i++) {
		const struct npu_prog_op *op = prog_op(h, i);

		op_layer(m, i, layer, sizeof(layer));
		fmt_dims(din, sizeof(din), t[op->in[0]].dims, t[op->in[0]].ndim);
		fmt_dims(dout, sizeof(dout), t[op->out].dims, t[op->out].ndim);
		fprintf(out, "%-5" PRIu32 " %-10s %-16s %-18s %-18s %s\n", i,
			npo_opcode_cli_name(op->opcode) ?
			npo_opcode_cli_name(op->opcode) : "?",
			layer[0] ? layer : "-", din, dout,
			lh && i < lh->n_layers ?
			npu_layers_str(lh, npu_layers_desc(lh, i)->op_type) :
			"-");
	}
	npu_model_free(m);
	return 0;
}
