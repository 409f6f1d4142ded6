// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_model_layers.c - a registered model's layer table in the trace file
 * (lib/npuprof/model.c, Documentation/npu/trace-file.rst "MODEL"): the
 * MODEL item's body is the header, the program, zeros up to a multiple of
 * 8 and the table verbatim; a caller built before the table existed (the
 * older struct npuprof_model_desc size) still registers, without one; the
 * bounds (-EINVAL, -E2BIG) and the largest item that still fits a chunk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof.h"
#include "npu/npu_model_layers.h"
#include "../npu/trace_items.h"

static const uint64_t slot_size[2] = { 4096, 1024 };
static const uint32_t slot_kind[2] = { 1, 2 };

/* a MODEL item's body, copied */
struct item {
	int n;
	uint32_t len;
	uint8_t *body;
};

static void on_item(void *ctx, uint16_t type, const void *body, uint32_t len)
{
	struct item *m = ctx;

	if (type != NPF_ITEM_MODEL)
		return;
	if (!m->n++) {
		m->body = malloc(len);
		if (!m->body)
			abort();
		memcpy(m->body, body, len);
		m->len = len;
	}
}

/* a host-only session (no device) from start to stop, into @path */
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

/* the MODEL items of a session started now, the first one in @it */
static int capture(struct item *it)
{
	char path[64];

	memset(it, 0, sizeof(*it));
	snprintf(path, sizeof(path), "/tmp/npuprof-layers-%d.npuprof",
		 (int)getpid());
	session(path);
	trace_items(path, on_item, it);
	unlink(path);
	return it->n;
}

/*
 * A layer table of two layers (its content is the capture's business
 * only as bytes: libnpuprof copies it, the reader checks it)
 */
static size_t build_table(uint8_t *buf)
{
	static const char strs[] = "\0conv1\0Conv2D+Relu6\0fc\0FullyConnected\0";
	struct npu_layers_hdr h = {
		.magic = NPU_LAYERS_MAGIC, .version = NPU_LAYERS_VERSION,
		.hdr_size = sizeof(h), .n_layers = 2, .str_size = sizeof(strs),
	};
	struct npu_layer_desc d[2] = {
		{ .name = 1, .op_type = 7, .macs = 1000, .weight_bytes = 64,
		  .n_in = 1, .n_out = 1,
		  .in = { { .dtype = 1, .ndim = 4, .dims = { 1, 3, 8, 8 } } },
		  .out = { .dtype = 1, .ndim = 4, .dims = { 1, 4, 4, 4 } } },
		{ .name = 20, .op_type = 23, .macs = 640, .n_in = 1, .n_out = 1,
		  .in = { { .dtype = 1, .ndim = 2, .dims = { 1, 64 } } },
		  .out = { .dtype = 1, .ndim = 2, .dims = { 1, 10 } } },
	};

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), d, sizeof(d));
	memcpy(buf + sizeof(h) + sizeof(d), strs, sizeof(strs));
	return sizeof(h) + sizeof(d) + sizeof(strs);
}

static void desc_init(struct npuprof_model_desc *d, const void *prog,
		      size_t prog_size)
{
	memset(d, 0, sizeof(*d));
	d->sz = sizeof(*d);
	d->name = "layers";
	d->program = prog;
	d->program_size = prog_size;
	d->n_slots = 2;
	d->slot_sizes = slot_size;
	d->slot_kinds = slot_kind;
}

TEST(table_follows_program)
{
	/* 36 bytes of program: 4 bytes of zero padding before the table */
	uint8_t prog[36], table[512];
	const struct npf_item_model *mi;
	struct npuprof_model_desc d;
	size_t tsize = build_table(table);
	struct item it;
	uint32_t id;
	unsigned int i;

	memset(prog, 0xa5, sizeof(prog));
	desc_init(&d, prog, sizeof(prog));
	d.layers = table;
	d.layers_size = tsize;
	ASSERT_EQ(NULL, npu_layers_check(table, tsize, 2, NULL));
	ASSERT_EQ(0, npuprof_model_register(&d, &id));
	/* the caller's buffers are copied */
	memset(table, 0, sizeof(table));
	memset(prog, 0, sizeof(prog));
	ASSERT_EQ(1, capture(&it));
	mi = (const void *)it.body;
	EXPECT_EQ(id, mi->model_id);
	ASSERT_EQ(sizeof(prog), mi->prog_size);
	/* the body: header, program, padding, table, the item's padding */
	ASSERT_EQ((sizeof(*mi) + 40 + tsize + 7) & ~7ul, it.len);
	for (i = 0; i < sizeof(prog); i++)
		EXPECT_EQ(0xa5, it.body[sizeof(*mi) + i]);
	for (i = sizeof(prog); i < 40; i++)
		EXPECT_EQ(0, it.body[sizeof(*mi) + i]);
	build_table(table);
	EXPECT_EQ(0, memcmp(it.body + sizeof(*mi) + 40, table, tsize));
	/* a reader finds it there by its magic, and it checks */
	EXPECT_EQ(NPU_LAYERS_MAGIC,
		  *(const uint32_t *)(it.body + sizeof(*mi) + 40));
	EXPECT_EQ(NULL, npu_layers_check(it.body + sizeof(*mi) + 40,
					 it.len - sizeof(*mi) - 40, 2, NULL));
	{
		const struct npu_layers_hdr *h =
			(const void *)(it.body + sizeof(*mi) + 40);
		char buf[96];

		EXPECT_STREQ("fc", npu_layers_str(h, npu_layers_desc(h, 1)->name));
		npu_layer_shapes_fmt(&npu_layers_desc(h, 0)->in[0], 1, buf,
				     sizeof(buf));
		EXPECT_STREQ("u8[1,3,8,8]", buf);
	}
	free(it.body);
	EXPECT_EQ(0, npuprof_model_unregister(id));
}

/* a program of a multiple of 8 bytes: the table right after it */
TEST(table_after_aligned_program)
{
	uint8_t prog[64] = { 1 }, table[512];
	struct npuprof_model_desc d;
	size_t tsize = build_table(table);
	struct item it;
	uint32_t id;

	desc_init(&d, prog, sizeof(prog));
	d.layers = table;
	d.layers_size = tsize;
	ASSERT_EQ(0, npuprof_model_register(&d, &id));
	ASSERT_EQ(1, capture(&it));
	EXPECT_EQ(0, memcmp(it.body + sizeof(struct npf_item_model) + 64,
			    table, tsize));
	free(it.body);
	npuprof_model_unregister(id);
}

/* without a table, or from a caller built before it: the program only */
TEST(no_table)
{
	uint8_t prog[36] = { 7 }, table[512];
	struct npuprof_model_desc d;
	struct item it;
	uint32_t id;

	desc_init(&d, prog, sizeof(prog));
	ASSERT_EQ(0, npuprof_model_register(&d, &id));
	ASSERT_EQ(1, capture(&it));
	EXPECT_EQ((sizeof(struct npf_item_model) + sizeof(prog) + 7) & ~7ul,
		  it.len);
	free(it.body);
	npuprof_model_unregister(id);

	/* the older size: the fields beyond it are not read */
	d.sz = NPUPROF_MODEL_DESC_SZ_V0;
	d.layers = table;
	d.layers_size = 3;	/* would be -EINVAL if read */
	ASSERT_EQ(0, npuprof_model_register(&d, &id));
	ASSERT_EQ(1, capture(&it));
	EXPECT_EQ((sizeof(struct npf_item_model) + sizeof(prog) + 7) & ~7ul,
		  it.len);
	free(it.body);
	npuprof_model_unregister(id);
	d.sz = NPUPROF_MODEL_DESC_SZ_V0 - 1;
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
}

TEST(bounds)
{
	static uint8_t prog[NPUPROF_MODEL_MAX_PROGRAM];
	static uint8_t table[NPUPROF_MODEL_MAX_LAYERS + 8];
	struct npuprof_model_desc d;
	struct item it;
	uint32_t id;

	desc_init(&d, prog, 64);
	d.layers = table;
	d.layers_size = 0;
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
	d.layers = NULL;
	d.layers_size = 64;
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
	d.layers = table;
	d.layers_size = sizeof(struct npu_layers_hdr) - 1;
	EXPECT_EQ(-EINVAL, npuprof_model_register(&d, &id));
	d.layers_size = NPUPROF_MODEL_MAX_LAYERS + 8;
	EXPECT_EQ(-E2BIG, npuprof_model_register(&d, &id));
	/* each within its bound, both together too large for a chunk */
	d.program_size = NPUPROF_MODEL_MAX_PROGRAM;
	d.layers_size = NPUPROF_MODEL_MAX_ITEM - NPUPROF_MODEL_MAX_PROGRAM + 8;
	EXPECT_EQ(-E2BIG, npuprof_model_register(&d, &id));
	/* the largest item: written whole into a session's file */
	d.program_size = NPUPROF_MODEL_MAX_PROGRAM - 4;
	d.layers_size = NPUPROF_MODEL_MAX_ITEM - NPUPROF_MODEL_MAX_PROGRAM;
	memset(table, 0x5a, d.layers_size);
	ASSERT_EQ(0, npuprof_model_register(&d, &id));
	ASSERT_EQ(1, capture(&it));
	EXPECT_EQ(sizeof(struct npf_item_model) + NPUPROF_MODEL_MAX_ITEM,
		  it.len);
	EXPECT_EQ(0x5a, it.body[it.len - 1]);
	EXPECT_EQ(0, it.body[sizeof(struct npf_item_model) +
			     NPUPROF_MODEL_MAX_PROGRAM - 1]);
	free(it.body);
	npuprof_model_unregister(id);
}

TEST_HARNESS_MAIN
