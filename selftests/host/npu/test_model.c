// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the model file parser: a valid generated model loads; every
 * class of malformed file fails with its documented error and a message
 * naming the problem (Documentation/npu/model.rst, "Validation"). A loaded
 * model is described to the trace files of a profiling session started
 * after it (npuprof_model_register(): a MODEL item, its layer table after
 * the program), and no longer once it is freed. The layer table: found by
 * npu_model_layers() and npu_model_find_layer(), optional, and one
 * malformed table of each class of model.rst ("Layer table") refused with
 * the message naming the check and the layer; 4000 random edits of the
 * table either refused that way or sound when accepted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "modelgen.h"
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npu/npu_model_layers.h"
#include "npuref.h"
#include "npuprof.h"
#include "trace_items.h"

FIXTURE(model) {
	uint8_t *file;
	size_t size;
	struct npu_model_file_hdr *h;
	struct npu_model_slot *slots;
	struct npu_model_io *io;
	struct npu_prog_hdr *ph;
	struct npu_prog_tensor *t;
	struct npu_prog_op *ops;
	struct npu_layers_hdr *lh;
	struct npu_layer_desc *ld;
	char err[256];
};

FIXTURE_SETUP(model)
{
	char err[256];

	ASSERT_EQ(0, mg_build("mnist", 1, &self->file, &self->size, err,
			      sizeof(err))) TH_LOG("%s", err);
	self->h = (void *)self->file;
	self->slots = (void *)(self->file + self->h->slots_off);
	self->io = (void *)(self->file + self->h->io_off);
	self->ph = (void *)(self->file + self->h->prog_off);
	self->t = (void *)((uint8_t *)self->ph + self->ph->tensors_off);
	self->ops = (void *)((uint8_t *)self->ph + self->ph->ops_off);
	ASSERT_EQ(NPU_MODEL_F_LAYERS, self->h->flags);
	self->lh = (void *)(self->file + self->h->layers_off);
	self->ld = (void *)(self->lh + 1);
}

FIXTURE_TEARDOWN(model)
{
	free(self->file);
}

/* The MODEL items of a trace file: their count, the first two copied */
struct models {
	int n;
	uint64_t body[2][1024];		/* 8-aligned, as in a chunk */
	uint32_t len[2];
};

static void on_item(void *ctx, uint16_t type, const void *body, uint32_t len)
{
	struct models *m = ctx;

	if (type != NPF_ITEM_MODEL)
		return;
	if (m->n < 2 && len <= sizeof(m->body[0])) {
		memcpy(m->body[m->n], body, len);
		m->len[m->n] = len;
	}
	m->n++;
}

static int model_items(const char *path, struct models *m)
{
	memset(m, 0, sizeof(*m));
	trace_items(path, on_item, m);
	return m->n;
}

/* A host-only session (no device) from start to stop, into @path */
static void session(const char *path)
{
	static const char *const no_devices[] = { NULL };
	struct npuprof_session *s;
	struct npuprof_opts o;

	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	if (npuprof_session_create(&o, &s) || npuprof_session_start(s) ||
	    npuprof_session_stop(s))
		abort();
	npuprof_session_free(s);
}

TEST_F(model, described_to_trace_files)
{
	static struct models items;
	const struct npf_item_model *mi = (const void *)items.body[0];
	char path[64];
	struct npu_model *m;
	unsigned int i;
	size_t sz;

	snprintf(path, sizeof(path), "/tmp/npu-model-%d.npuprof", (int)getpid());
	ASSERT_EQ(0, npu_model_load_mem(self->file, self->size, &m, self->err,
					sizeof(self->err)));
	/* the session starts after the model was loaded */
	session(path);
	ASSERT_EQ(1, model_items(path, &items));
	EXPECT_NE(0u, mi->model_id);
	EXPECT_EQ(getpid(), mi->pid);
	EXPECT_STREQ("mnist", mi->name);
	EXPECT_EQ(4u, mi->n_slots);
	for (i = 0; i < 4; i++) {
		uint32_t kind;

		ASSERT_EQ(0, npu_model_slot(m, i, &kind, &sz));
		EXPECT_EQ(sz, mi->slot_size[i]);
		EXPECT_EQ(kind, mi->slot_kind[i]);
	}
	EXPECT_EQ(0u, mi->slot_size[4]);
	ASSERT_EQ(self->h->prog_size, mi->prog_size);
	EXPECT_EQ(0, memcmp(mi + 1, self->ph, mi->prog_size));
	/* the layer table follows the program, padded to 8 bytes with zeros */
	sz = (mi->prog_size + 7) & ~7u;
	for (i = mi->prog_size; i < sz; i++)
		EXPECT_EQ(0, ((const uint8_t *)(mi + 1))[i]);
	EXPECT_EQ(0, memcmp((const uint8_t *)(mi + 1) + sz, self->lh,
			    self->h->layers_size));
	EXPECT_EQ(sizeof(*mi) + sz + self->h->layers_size, items.len[0]);
	npu_model_free(m);
	/* freed: the next session does not describe it */
	session(path);
	EXPECT_EQ(0, model_items(path, &items));
	unlink(path);
}

/* recompute the checksum after an edit, so the edit itself is what fails */
static void fix_crc(uint8_t *file, size_t size)
{
	struct npu_model_file_hdr *h = (void *)file;

	h->crc32 = 0;
	h->crc32 = npu_crc32(0, file, size);
}

/*
 * A layer table too large for a trace item (a string area of 200 KiB of
 * padding: the file is sound): the model is described without it.
 */
TEST_F(model, huge_layer_table_described_without_it)
{
	static struct models items;
	const struct npf_item_model *mi = (const void *)items.body[0];
	const size_t extra = 200 * 1024;
	struct npu_model_file_hdr *h;
	struct npu_layers_hdr *lh;
	struct npu_model *m;
	uint8_t *big = calloc(1, self->size + extra);
	char path[64];
	size_t sz;

	ASSERT_NE(NULL, big);
	memcpy(big, self->file, self->size);
	h = (void *)big;
	lh = (void *)(big + h->layers_off);
	lh->str_size += extra;
	h->layers_size += extra;
	h->file_size += extra;
	fix_crc(big, self->size + extra);
	ASSERT_EQ(0, npu_model_load_mem(big, self->size + extra, &m, self->err,
					sizeof(self->err))) TH_LOG("%s", self->err);
	ASSERT_EQ(0, npu_model_layers(m, NULL, &sz));
	EXPECT_EQ(h->layers_size, sz);
	snprintf(path, sizeof(path), "/tmp/npu-model-big-%d.npuprof",
		 (int)getpid());
	session(path);
	ASSERT_EQ(1, model_items(path, &items));
	EXPECT_STREQ("mnist", mi->name);
	EXPECT_EQ((sizeof(*mi) + mi->prog_size + 7) & ~7ul, items.len[0]);
	npu_model_free(m);
	unlink(path);
	free(big);
}

static int load(uint8_t *file, size_t size, char *err, size_t errlen)
{
	struct npu_model *m = NULL;
	int ret = npu_model_load_mem(file, size, &m, err, errlen);

	npu_model_free(m);
	return ret;
}

/* edit, fix the checksum, expect @ret and a message containing @what */
#define EXPECT_REJECT(ret, what) do {					\
	fix_crc(self->file, self->size);				\
	EXPECT_EQ(ret, load(self->file, self->size, self->err,		\
			    sizeof(self->err)));			\
	EXPECT_NE(NULL, strstr(self->err, what))			\
		TH_LOG("message: '%s', want '%s'", self->err, what);	\
} while (0)

TEST_F(model, valid_loads)
{
	struct npu_model *m;
	const struct npu_tensor_desc *in, *out;
	uint32_t kind;
	size_t sz;

	ASSERT_EQ(0, npu_model_load_mem(self->file, self->size, &m, self->err,
					sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_STREQ("mnist", npu_model_name(m));
	ASSERT_EQ(1, npu_model_num_inputs(m));
	ASSERT_EQ(1, npu_model_num_outputs(m));
	in = npu_model_input(m, 0);
	out = npu_model_output(m, 0);
	EXPECT_EQ(NULL, npu_model_input(m, 1));
	EXPECT_EQ(28 * 28, in->count);
	EXPECT_EQ(NPU_LAYOUT_NCHWC16, in->layout);
	EXPECT_EQ(28 * 28 * 16, in->dev_size);
	EXPECT_EQ(1, in->slot);
	EXPECT_EQ(10, out->count);
	EXPECT_EQ(2, out->slot);
	EXPECT_EQ(4, npu_model_num_slots(m));
	ASSERT_EQ(0, npu_model_slot(m, 0, &kind, &sz));
	EXPECT_EQ(NPU_MODEL_SLOT_CONST, kind);
	ASSERT_EQ(0, npu_model_slot(m, 3, &kind, &sz));
	EXPECT_EQ(NPU_MODEL_SLOT_SCRATCH, kind);
	EXPECT_EQ(-EINVAL, npu_model_slot(m, 4, &kind, &sz));
	npu_model_free(m);
}

TEST_F(model, truncated)
{
	EXPECT_EQ(-EBADMSG, load(self->file, self->size - 1, self->err,
				 sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "truncated"));
	EXPECT_EQ(-EBADMSG, load(self->file, 100, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "truncated"));
	EXPECT_EQ(-EBADMSG, load(self->file, 0, self->err, sizeof(self->err)));
}

TEST_F(model, trailing_data)
{
	uint8_t *big = calloc(1, self->size + 8);

	ASSERT_NE(NULL, big);
	memcpy(big, self->file, self->size);
	EXPECT_EQ(-EINVAL, load(big, self->size + 8, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "trailing"));
	free(big);
}

TEST_F(model, bad_magic)
{
	self->h->magic = 0x464c457f;	/* an ELF file */
	EXPECT_REJECT(-ENOEXEC, "magic");
}

TEST_F(model, bad_version)
{
	self->h->version = 2;
	EXPECT_REJECT(-EPROTONOSUPPORT, "version");
}

TEST_F(model, bad_header_size)
{
	self->h->hdr_size = 120;
	EXPECT_REJECT(-EINVAL, "header size");
}

TEST_F(model, checksum_mismatch)
{
	/* one bit of one weight */
	self->file[self->h->const_off + 5] ^= 0x10;
	EXPECT_EQ(-EBADMSG, load(self->file, self->size, self->err,
				 sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "checksum"));
}

TEST_F(model, reserved_field)
{
	self->h->rsvd[1] = 1;
	EXPECT_REJECT(-EINVAL, "reserved");
}

TEST_F(model, unknown_flag)
{
	self->h->flags |= 1u << 1;
	EXPECT_REJECT(-EINVAL, "reserved header field");
}

/* ---- the layer table (model.rst, "Layer table") ---- */

TEST_F(model, layers_found)
{
	static const char *const names[] = {
		"conv1", "pool1", "conv2", "pool2", "flatten", "fc",
	};
	const struct npu_layers_hdr *lh;
	unsigned int first = 99, n = 99, i;
	struct npu_model *m;
	const void *table;
	size_t sz;

	ASSERT_EQ(0, npu_model_load_mem(self->file, self->size, &m, self->err,
					sizeof(self->err))) TH_LOG("%s", self->err);
	ASSERT_EQ(0, npu_model_layers(m, &table, &sz));
	ASSERT_EQ(self->h->layers_size, sz);
	/* a copy of the file's bytes */
	EXPECT_EQ(0, memcmp(table, self->lh, sz));
	EXPECT_NE((const void *)self->lh, table);
	lh = table;
	ASSERT_EQ(6u, lh->n_layers);
	for (i = 0; i < 6; i++) {
		EXPECT_STREQ(names[i],
			     npu_layers_str(lh, npu_layers_desc(lh, i)->name));
		EXPECT_EQ(0, npu_model_find_layer(m, names[i], &first, &n));
		EXPECT_EQ(i, first);
		EXPECT_EQ(1u, n);
	}
	EXPECT_EQ(-ENOENT, npu_model_find_layer(m, "conv", &first, &n));
	EXPECT_EQ(-ENOENT, npu_model_find_layer(m, "", NULL, NULL));
	EXPECT_EQ(-EINVAL, npu_model_find_layer(m, NULL, &first, &n));
	/* the program: the file's, as npu_model_const_image() places it */
	{
		uint32_t poff, psize;
		const uint8_t *img = npu_model_const_image(m, NULL, &poff, &psize);
		const void *prog = npu_model_program(m, &sz);

		EXPECT_EQ(psize, sz);
		EXPECT_EQ((const void *)(img + poff), prog);
		EXPECT_EQ(0, memcmp(prog, self->ph, sz));
		EXPECT_EQ(0, (uintptr_t)prog % 8);
	}
	npu_model_free(m);
}

/* consecutive operators of one layer: the run; a repeated name: the first */
TEST_F(model, find_layer_runs)
{
	struct npu_model *m;
	unsigned int first, n;

	self->ld[3].name = self->ld[2].name;	/* pool2 is conv2 too */
	self->ld[5].name = self->ld[2].name;	/* and fc, after flatten */
	fix_crc(self->file, self->size);
	ASSERT_EQ(0, npu_model_load_mem(self->file, self->size, &m, self->err,
					sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(0, npu_model_find_layer(m, "conv2", &first, &n));
	EXPECT_EQ(2u, first);
	EXPECT_EQ(2u, n);
	npu_model_free(m);
}

/* a file without the table (as before it existed) still loads */
TEST_F(model, layers_optional)
{
	struct npu_model *m;
	const void *table = &m;
	size_t sz = 7;

	self->size = self->h->layers_off;
	self->h->file_size = self->size;
	self->h->flags = 0;
	self->h->layers_off = 0;
	self->h->layers_size = 0;
	fix_crc(self->file, self->size);
	ASSERT_EQ(0, npu_model_load_mem(self->file, self->size, &m, self->err,
					sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(-ENOENT, npu_model_layers(m, &table, &sz));
	EXPECT_EQ((const void *)&m, table);
	EXPECT_EQ(7u, sz);
	EXPECT_EQ(-ENOENT, npu_model_find_layer(m, "conv1", NULL, NULL));
	npu_model_free(m);
}

TEST_F(model, layers_fields_without_flag)
{
	self->h->flags = 0;
	EXPECT_REJECT(-EINVAL, "without the layers flag");
}

TEST_F(model, layers_shorter_than_header)
{
	self->h->layers_size = 8;
	EXPECT_REJECT(-EINVAL, "layer table: 8 bytes, shorter than its header");
}

TEST_F(model, layers_outside_file)
{
	self->h->layers_off += 8;
	EXPECT_REJECT(-EINVAL, "layer table [");
	EXPECT_NE(NULL, strstr(self->err, "outside the file"));
}

TEST_F(model, layers_misaligned)
{
	self->h->layers_off -= 4;
	EXPECT_REJECT(-EINVAL, "layer table offset");
	EXPECT_NE(NULL, strstr(self->err, "misaligned"));
}

TEST_F(model, layers_overlap_constants)
{
	self->h->layers_off = self->h->const_off;
	EXPECT_REJECT(-EINVAL, "layer table overlaps constants");
}

TEST_F(model, layers_bad_magic)
{
	self->lh->magic = NPU_MODEL_MAGIC;
	EXPECT_REJECT(-EINVAL, "layer table: bad magic");
}

TEST_F(model, layers_bad_version)
{
	self->lh->version = 2;
	EXPECT_REJECT(-EINVAL, "layer table: unknown version");
}

TEST_F(model, layers_bad_header_size)
{
	self->lh->hdr_size = 20;
	EXPECT_REJECT(-EINVAL, "layer table: bad header size");
}

TEST_F(model, layers_count_differs)
{
	self->lh->n_layers = 5;
	EXPECT_REJECT(-EINVAL,
		      "layer table: n_layers differs from the program's operators");
}

TEST_F(model, layers_no_strings)
{
	self->lh->str_size = 0;
	EXPECT_REJECT(-EINVAL, "layer table: string area size out of range");
}

TEST_F(model, layers_larger_than_section)
{
	self->lh->str_size += 8;
	EXPECT_REJECT(-EINVAL, "layer table: larger than the bytes that hold it");
}

/* a sound table in a section longer than the table: exact size required */
TEST_F(model, layers_section_longer)
{
	char *str = (char *)(self->ld + self->lh->n_layers);

	/* the strings are padded with NULs: drop one, the table stays sound */
	ASSERT_EQ(0, str[self->lh->str_size - 2]);
	self->lh->str_size--;
	EXPECT_REJECT(-EINVAL, "layer table: ");
	EXPECT_NE(NULL, strstr(self->err, "its header describes"))
		TH_LOG("message: '%s'", self->err);
}

TEST_F(model, layers_strings_not_terminated)
{
	char *str = (char *)(self->ld + self->lh->n_layers);

	str[self->lh->str_size - 1] = 'x';
	EXPECT_REJECT(-EINVAL, "layer table: string area not NUL-delimited");
}

TEST_F(model, layers_name_outside_strings)
{
	self->ld[3].name = self->lh->str_size;
	EXPECT_REJECT(-EINVAL,
		      "layer table: layer 3: name or op type outside the strings or empty");
}

TEST_F(model, layers_empty_op_type)
{
	self->ld[4].op_type = 0;
	EXPECT_REJECT(-EINVAL, "layer table: layer 4: name or op type");
}

TEST_F(model, layers_too_many_shapes)
{
	self->ld[0].n_in = NPU_LAYER_MAX_IN + 1;
	EXPECT_REJECT(-EINVAL, "layer table: layer 0: too many shapes");
}

TEST_F(model, layers_reserved_set)
{
	self->ld[5].rsvd[5] = 1;
	EXPECT_REJECT(-EINVAL, "layer table: layer 5: reserved field set");
}

TEST_F(model, layers_shape_reserved_set)
{
	self->ld[2].in[1].rsvd = 1;
	EXPECT_REJECT(-EINVAL, "layer table: layer 2: reserved field set");
}

/* pool1 has one input: its unused second entry must be all zero */
TEST_F(model, layers_unused_shape_not_zero)
{
	ASSERT_EQ(1, self->ld[1].n_in);
	self->ld[1].in[1].dims[2] = 3;
	EXPECT_REJECT(-EINVAL, "layer table: layer 1: unused shape not zero");
}

TEST_F(model, layers_unknown_dtype)
{
	self->ld[2].in[2].dtype = NPU_LAYER_DT_MAX + 1;
	EXPECT_REJECT(-EINVAL, "layer table: layer 2: unknown dtype");
}

TEST_F(model, layers_too_many_dims)
{
	self->ld[5].out.ndim = NPU_LAYER_MAX_DIMS + 1;
	EXPECT_REJECT(-EINVAL, "layer table: layer 5: ndim above 4");
}

TEST_F(model, layers_zero_dim)
{
	self->ld[0].out.dims[2] = 0;
	EXPECT_REJECT(-EINVAL, "layer table: layer 0: bad dims");
}

TEST_F(model, layers_dim_beyond_ndim)
{
	/* fc's output is [1, 10]: a third dim is not zero */
	self->ld[5].out.dims[2] = 1;
	EXPECT_REJECT(-EINVAL, "layer table: layer 5: bad dims");
}

TEST_F(model, too_many_slots)
{
	self->h->n_slots = NPU_MODEL_MAX_SLOTS + 1;
	EXPECT_REJECT(-EINVAL, "slots out of range");
}

TEST_F(model, too_many_io)
{
	self->h->n_outputs = NPU_MODEL_MAX_IO;
	EXPECT_REJECT(-EINVAL, "outputs out of range");
}

TEST_F(model, slot_size_out_of_range)
{
	self->slots[3].size = NPU_MODEL_MAX_SLOT + 1;
	EXPECT_REJECT(-EINVAL, "slot 3: size");
}

TEST_F(model, slot_size_zero)
{
	self->slots[2].size = 0;
	EXPECT_REJECT(-EINVAL, "slot 2: size");
}

TEST_F(model, const_size_out_of_range)
{
	self->h->const_size = 1ull << 40;
	EXPECT_REJECT(-EINVAL, "size out of range");
}

TEST_F(model, slot0_not_const)
{
	self->slots[0].kind = NPU_MODEL_SLOT_SCRATCH;
	EXPECT_REJECT(-EINVAL, "slot 0: bad kind");
}

TEST_F(model, program_outside_file)
{
	self->h->prog_off = self->size - 8;
	EXPECT_REJECT(-EINVAL, "program");
	EXPECT_NE(NULL, strstr(self->err, "outside the file"));
}

TEST_F(model, offset_wraps)
{
	self->h->const_off = ~0ull & ~63ull;
	EXPECT_REJECT(-EINVAL, "outside the file");
}

TEST_F(model, sections_overlap)
{
	self->h->io_off = self->h->slots_off + 8;
	EXPECT_REJECT(-EINVAL, "overlaps");
}

TEST_F(model, section_overlaps_header)
{
	self->h->slots_off = 64;
	EXPECT_REJECT(-EINVAL, "overlaps header");
}

TEST_F(model, misaligned_constants)
{
	self->h->const_off += 8;
	self->h->const_size -= 8;
	EXPECT_REJECT(-EINVAL, "misaligned");
}

TEST_F(model, program_placement_overlaps_constants)
{
	self->h->prog_slot_offset -= 64;
	EXPECT_REJECT(-EINVAL, "overlaps the constants");
}

TEST_F(model, program_bad_magic)
{
	self->ph->magic ^= 1;
	EXPECT_REJECT(-EINVAL, "program: bad magic");
}

TEST_F(model, program_table_outside)
{
	self->ph->n_ops += 1;
	EXPECT_REJECT(-EINVAL, "tables misplaced");
}

TEST_F(model, tensor_refers_to_missing_slot)
{
	/* the first conv's weights move to slot 4 of a 4-slot model */
	self->t[self->ops[0].in[1]].buf = 4;
	EXPECT_REJECT(-EINVAL, "refers to slot 4 but there are 4 slots");
}

TEST_F(model, tensor_outside_slot)
{
	struct npu_prog_tensor *t = &self->t[self->ops[0].out];

	t->offset = (uint32_t)self->slots[t->buf].size - 64;
	EXPECT_REJECT(-EINVAL, "lies outside slot");
}

TEST_F(model, tensor_outside_const_blob)
{
	struct npu_prog_tensor *t = &self->t[self->ops[0].in[1]];

	/* inside slot 0, but on top of the program */
	t->offset = self->h->prog_slot_offset;
	EXPECT_REJECT(-EINVAL, "outside the constant blob");
}

TEST_F(model, tensor_bad_layout)
{
	self->t[self->ops[0].in[2]].layout = NPU_LAYOUT_NCHWC16;
	EXPECT_REJECT(-EINVAL, "NCHWC16 tensor");
}

TEST_F(model, unknown_opcode)
{
	self->ops[1].opcode = NPU_OP_MAX + 1;
	EXPECT_REJECT(-EINVAL, "unknown opcode");
}

TEST_F(model, op_tensor_index_out_of_range)
{
	self->ops[0].in[0] = (uint16_t)self->ph->n_tensors;
	EXPECT_REJECT(-EINVAL, "input 0 is tensor");
}

TEST_F(model, op_writes_constants)
{
	self->ops[0].out = self->ops[0].in[1];
	EXPECT_REJECT(-EINVAL, "not an output or scratch slot");
}

TEST_F(model, op_output_overlaps_input)
{
	/* op 1 (maxpool) writing onto its own input */
	self->t[self->ops[1].out].offset = self->t[self->ops[1].in[0]].offset;
	EXPECT_REJECT(-EINVAL, "overlaps its input");
}

TEST_F(model, op_bad_shape)
{
	/* conv weights with Cout 15 for a 16-channel output */
	self->t[self->ops[0].in[1]].dims[0] = 15;
	EXPECT_REJECT(-EINVAL, "do not match");
}

TEST_F(model, op_bad_activation_range)
{
	self->ops[0].act_min = 200;
	self->ops[0].act_max = 100;
	EXPECT_REJECT(-EINVAL, "activation range");
}

TEST_F(model, pool_dilation_not_one)
{
	ASSERT_EQ(NPU_OP_MAXPOOL, self->ops[1].opcode);
	self->ops[1].u.conv.dh = 2;
	EXPECT_REJECT(-EINVAL, "dilation must be 1");
}

TEST_F(model, unused_input_not_none)
{
	ASSERT_EQ(NPU_OP_MAXPOOL, self->ops[1].opcode);
	self->ops[1].in[1] = self->ops[1].in[0];
	EXPECT_REJECT(-EINVAL, "does not use input 1");
}

TEST_F(model, op_u_reserved_set)
{
	ASSERT_EQ(NPU_OP_CONV2D, self->ops[0].opcode);
	self->ops[0].u.conv.rsvd[29] = 1;
	EXPECT_REJECT(-EINVAL, "op 0 reserved field set");
}

TEST_F(model, bias_not_1d)
{
	struct npu_prog_tensor *b = &self->t[self->ops[0].in[2]];

	ASSERT_EQ(1, b->ndim);
	/* the same elements as [1, C] */
	b->dims[1] = b->dims[0];
	b->dims[0] = 1;
	b->ndim = 2;
	EXPECT_REJECT(-EINVAL, "bias must be plain 1-D i32");
}

TEST_F(model, requant_pair_out_of_range)
{
	struct npu_prog_tensor *rq = &self->t[self->ops[0].rq];
	int32_t shift = 31;

	memcpy(self->file + self->h->const_off + rq->offset + 4, &shift, 4);
	EXPECT_REJECT(-EINVAL, "requantization pair 0");
}

TEST_F(model, requant_table_wrong_length)
{
	self->t[self->ops[0].rq].dims[0] -= 2;
	EXPECT_REJECT(-EINVAL, "requantization table has");
}

TEST_F(model, io_does_not_match_program)
{
	self->io[0].dims[3] = 3;
	EXPECT_REJECT(-EINVAL, "does not match program tensor");
}

TEST_F(model, io_bad_scale)
{
	self->io[1].scale = -1.0f;
	EXPECT_REJECT(-EINVAL, "scale");
}

TEST_F(model, input_in_wrong_slot)
{
	/* claim the output tensor is the input */
	self->io[0] = self->io[1];
	EXPECT_REJECT(-EINVAL, "not an input slot");
}

/*
 * "Nothing malformed ever reaches a device": change a few bytes of the
 * program's tables at random (fixed seed), fix the checksum; every model
 * the loader still accepts must pass all of the device's checks, i.e.
 * npuref_run() must not fail with a BAD_* status.
 */
TEST_F(model, accepted_mutations_run)
{
	uint8_t *orig = malloc(self->size);
	size_t tab_off = (uint8_t *)self->t - self->file;
	size_t tab_len = self->ph->n_tensors * sizeof(struct npu_prog_tensor) +
			 self->ph->n_ops * sizeof(struct npu_prog_op);
	static const uint8_t vals[] = { 0, 1, 2, 3, 4, 15, 16, 64, 127, 128,
					255 };
	unsigned int iter, k, accepted = 0, iters = 4000;
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	/* NPU_MODEL_FUZZ_ITERS=<n>: more (or fewer) mutations, for triage */
	if (getenv("NPU_MODEL_FUZZ_ITERS"))
		iters = (unsigned int)strtoul(getenv("NPU_MODEL_FUZZ_ITERS"),
					      NULL, 0);
	if (getenv("NPU_MODEL_FUZZ_SEED"))
		rng = strtoull(getenv("NPU_MODEL_FUZZ_SEED"), NULL, 0) | 1;
	ASSERT_NE(NULL, orig);
	/* the tables are contiguous in a generated model */
	ASSERT_EQ((uint8_t *)self->ops - (uint8_t *)self->t,
		  self->ph->n_tensors * sizeof(struct npu_prog_tensor));
	memcpy(orig, self->file, self->size);
	for (iter = 0; iter < iters; iter++) {
		struct npuref_buf slots[NPU_MODEL_MAX_SLOTS] = { { 0 } };
		struct npu_model *m = NULL;
		const void *img;
		uint32_t po, ps;
		unsigned int n, nmut;
		size_t isz;
		uint16_t op;
		int st;

		memcpy(self->file, orig, self->size);
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		nmut = 1 + rng % 3;
		for (k = 0; k < nmut; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			self->file[tab_off + (rng >> 8) % tab_len] =
				vals[(rng >> 40) % sizeof(vals)];
		}
		fix_crc(self->file, self->size);
		if (npu_model_load_mem(self->file, self->size, &m, self->err,
				       sizeof(self->err)))
			continue;
		accepted++;
		n = npu_model_num_slots(m);
		for (k = 0; k < n; k++) {
			npu_model_slot(m, k, NULL, &slots[k].size);
			slots[k].base = calloc(1, slots[k].size);
			ASSERT_NE(NULL, slots[k].base);
		}
		img = npu_model_const_image(m, &isz, &po, &ps);
		memcpy(slots[0].base, img, isz);
		st = npuref_run((uint8_t *)slots[0].base + po, ps, slots, n, 0,
				&op);
		EXPECT_EQ(NPU_PROG_OK, st)
			TH_LOG("mutation %u accepted by the loader fails on the device: status %d op %u",
			       iter, st, op);
		for (k = 0; k < n; k++)
			free(slots[k].base);
		npu_model_free(m);
		if (st != NPU_PROG_OK) {
			for (k = 0; k < tab_len; k++)
				if (self->file[tab_off + k] != orig[tab_off + k])
					TH_LOG("table byte %u: 0x%02x -> 0x%02x",
					       k, orig[tab_off + k],
					       self->file[tab_off + k]);
			break;
		}
	}
	/* the unchanged bytes (e.g. a value written over itself) load */
	EXPECT_LT(0, accepted);
	free(orig);
}

/*
 * Random bytes of the layer table (fixed seed, checksum fixed): the loader
 * refuses the table with a one-line "layer table:" message, or accepts
 * one that is sound: every string inside the area, every name found again
 * by npu_model_find_layer(), every shape printable. ASan watches the rest.
 */
TEST_F(model, layer_table_mutations)
{
	static const uint8_t vals[] = { 0, 1, 2, 3, 4, 5, 7, 8, 112, 127,
					128, 255 };
	unsigned int iter, k, accepted = 0, refused = 0, iters = 4000;
	uint32_t len = self->h->layers_size;
	uint64_t rng = 0x2545f4914f6cdd1dull;
	uint8_t *orig = malloc(self->size);

	ASSERT_NE(NULL, orig);
	memcpy(orig, self->file, self->size);
	for (iter = 0; iter < iters; iter++) {
		const struct npu_layers_hdr *h;
		struct npu_model *m = NULL;
		unsigned int nmut = 0, first, n;
		size_t sz;

		memcpy(self->file, orig, self->size);
		do {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			self->file[self->h->layers_off + (rng >> 8) % len] =
				vals[(rng >> 40) % sizeof(vals)];
		} while (++nmut < 1 + (rng >> 60) % 3);
		fix_crc(self->file, self->size);
		if (npu_model_load_mem(self->file, self->size, &m, self->err,
				       sizeof(self->err))) {
			refused++;
			EXPECT_EQ(0, strncmp(self->err, "layer table: ", 13))
				TH_LOG("mutation %u: '%s'", iter, self->err);
			EXPECT_EQ(NULL, strchr(self->err, '\n'));
			continue;
		}
		accepted++;
		ASSERT_EQ(0, npu_model_layers(m, (const void **)&h, &sz));
		ASSERT_EQ(NULL, npu_layers_check(h, sz, self->ph->n_ops, NULL));
		for (k = 0; k < h->n_layers; k++) {
			const struct npu_layer_desc *d = npu_layers_desc(h, k);
			const char *name = npu_layers_str(h, d->name);
			char buf[256];

			ASSERT_LT(d->name, h->str_size);
			ASSERT_LT(d->op_type, h->str_size);
			ASSERT_EQ(0, npu_model_find_layer(m, name, &first, &n));
			EXPECT_LE(first, k);
			EXPECT_EQ(0, strcmp(name, npu_layers_str(h,
					npu_layers_desc(h, first)->name)));
			EXPECT_LT(npu_layer_shapes_fmt(d->in, d->n_in, buf,
						       sizeof(buf)),
				  (int)sizeof(buf));
		}
		npu_model_free(m);
	}
	TH_LOG("%u mutations: %u refused, %u accepted", iters, refused,
	       accepted);
	EXPECT_LT(0, refused);
	free(orig);
}

/* npu_layer_shapes_fmt() truncates as snprintf() does */
TEST(layer_shapes_fmt)
{
	const struct npu_layer_shape s[3] = {
		{ .dtype = NPU_LAYER_DT_U8, .ndim = 4, .dims = { 1, 3, 224, 224 } },
		{ .dtype = NPU_LAYER_DT_F32, .ndim = 0 },
		{ .dtype = 9, .ndim = 1, .dims = { 7 } },
	};
	const char *full = "u8[1,3,224,224] f32[] ?[7]";
	char buf[64];

	EXPECT_EQ((int)strlen(full), npu_layer_shapes_fmt(s, 3, buf, sizeof(buf)));
	EXPECT_STREQ(full, buf);
	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ((int)strlen(full), npu_layer_shapes_fmt(s, 3, buf, 10));
	EXPECT_STREQ("u8[1,3,22", buf);
	EXPECT_EQ('x', buf[10]);
	EXPECT_EQ((int)strlen(full), npu_layer_shapes_fmt(s, 3, NULL, 0));
	EXPECT_EQ(0, npu_layer_shapes_fmt(s, 0, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

TEST(missing_file)
{
	struct npu_model *m;
	char err[256];

	EXPECT_EQ(-ENOENT, npu_model_load("/nonexistent/x.nmdl", &m, err,
					  sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/x.nmdl"));
}

TEST(file_too_large)
{
	char path[] = "/tmp/npu-model-test-XXXXXX", err[256];
	struct npu_model *m;
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	/* sparse: costs no disk space */
	ASSERT_EQ(0, ftruncate(fd, (off_t)NPU_MODEL_MAX_FILE + 1));
	close(fd);
	EXPECT_EQ(-EFBIG, npu_model_load(path, &m, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "larger than"));
	unlink(path);
}

TEST(load_from_file_matches_memory)
{
	char path[] = "/tmp/npu-model-test-XXXXXX", err[256];
	struct npu_model *m;
	uint8_t *file;
	size_t size;
	int fd;

	ASSERT_EQ(0, mg_build("mnist", 7, &file, &size, err, sizeof(err)));
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ((ssize_t)size, write(fd, file, size));
	close(fd);
	ASSERT_EQ(0, npu_model_load(path, &m, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(10, npu_model_output(m, 0)->count);
	npu_model_free(m);
	/* the same file cut short */
	ASSERT_EQ(0, truncate(path, (off_t)size / 2));
	EXPECT_EQ(-EBADMSG, npu_model_load(path, &m, err, sizeof(err)));
	unlink(path);
	free(file);
}

TEST_HARNESS_MAIN
