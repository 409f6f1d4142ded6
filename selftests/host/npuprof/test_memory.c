// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_memory.c - the memory report (npuprof_memory()), the Chrome
 * export's memory counters and the memory_flow SVG on the synthetic
 * trace of memory_gen.h, whose every figure is computed by hand there:
 * per device and per process maxima and when, the buffers at the peak,
 * fragmentation, failures, unpaired frees and nonsense records skipped,
 * the events table; bad options; a trace without buffer records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "memory_gen.h"
#include "npuprof_analysis.h"

/* The report with @tables in @format as a string */
static char *mem_str(struct npuprof_trace *t, unsigned int tables,
		     unsigned int format, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	*ret = npuprof_memory(t, f, NPUPROF_MEMORY_OPTS(.format = format,
			      .tables = tables));
	fclose(f);
	return buf;
}

static struct npuprof_trace *mem_open(const char *path)
{
	struct npuprof_trace *t;
	char err[256];

	if (npuprof_trace_open(path, &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return NULL;
	}
	return t;
}

FIXTURE(mem) {
	char *path;
	struct npuprof_trace *t;
};

FIXTURE_SETUP(mem)
{
	self->path = mem_gen_trace("m");
	self->t = mem_open(self->path);
	ASSERT_NE(NULL, self->t);
}

FIXTURE_TEARDOWN(mem)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
	free(self->path);
}

TEST_F(mem, devices)
{
	int ret;
	char *s = mem_str(self->t, NPUPROF_MEM_BIT(NPUPROF_MEM_DEVICES),
			  NPUPROF_FORMAT_CSV, &ret);

	ASSERT_EQ(0, ret);
	EXPECT_STREQ("device,minor,dram_size,max_allocated,max_allocated_ns,"
		     "max_used,used_pct,device_max_allocated,"
		     "device_max_allocated_ns,allocs,frees,failures,"
		     "live_at_end,allocated_at_end,free_at_peak,"
		     "largest_free_at_peak,fragmentation_pct,skipped,"
		     "max_used_ns,peak_op\r\n"
		     "0,2,1048576,229376,10000003000,,,294912,10000003000,"
		     "5,3,2,2,69632,819200,753664,8.000000,2,,\r\n"
		     "1,7,65536,8192,10000001500,,,8192,10000001500,"
		     "1,1,0,0,0,57344,57344,0.000000,0,,\r\n", s);
	free(s);
}

TEST_F(mem, processes)
{
	int ret;
	char *s = mem_str(self->t, NPUPROF_MEM_BIT(NPUPROF_MEM_PROCESSES),
			  NPUPROF_FORMAT_CSV, &ret);

	ASSERT_EQ(0, ret);
	EXPECT_STREQ("pid,device,minor,max_allocated,max_allocated_ns,"
		     "max_used,allocs,frees,failures,allocated_at_end,"
		     "used_pct\r\n"
		     "100,0,2,196608,10000003000,,2,1,0,65536,\r\n"
		     "200,0,2,32768,10000002000,,1,1,1,0,\r\n"
		     "300,0,2,20480,10000009000,,2,1,1,4096,\r\n"
		     "100,1,7,8192,10000001500,,1,1,0,0,\r\n", s);
	free(s);
}

TEST_F(mem, peak_buffers)
{
	int ret;
	char *s = mem_str(self->t, NPUPROF_MEM_BIT(NPUPROF_MEM_BUFFERS),
			  NPUPROF_FORMAT_CSV, &ret);

	ASSERT_EQ(0, ret);
	EXPECT_STREQ("device,minor,rank,bo_id,address,size,kind,pid,tid,"
		     "alloc_ns,peak_ns,addr\r\n"
		     "0,2,1,3,0x428000,131072,scratch,100,101,10000003000,"
		     "10000003000,4358144\r\n"
		     "0,2,2,1,0x400000,65536,program,100,101,10000001000,"
		     "10000003000,4194304\r\n"
		     "0,2,3,2,0x420000,32768,input,200,201,10000002000,"
		     "10000003000,4325376\r\n"
		     "1,7,1,1,0x400000,8192,other,100,101,10000001500,"
		     "10000001500,4194304\r\n", s);
	free(s);
}

TEST_F(mem, top_one)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_EQ(0, npuprof_memory(self->t, f, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_CSV, .top = 1,
		.tables = NPUPROF_MEM_BIT(NPUPROF_MEM_BUFFERS))));
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "\r\n0,2,1,3,0x428000,"));
	EXPECT_EQ(NULL, strstr(buf, "\r\n0,2,2,"));
	EXPECT_NE(NULL, strstr(buf, "\r\n1,7,1,1,"));
	free(buf);
}

TEST_F(mem, failures)
{
	int ret;
	char *s = mem_str(self->t, NPUPROF_MEM_BIT(NPUPROF_MEM_FAILURES),
			  NPUPROF_FORMAT_CSV, &ret);

	ASSERT_EQ(0, ret);
	EXPECT_STREQ("time_ns,device,minor,pid,tid,size,kind,error,"
		     "device_allocated\r\n"
		     "10000004000,0,2,200,201,1048576,scratch,ENOMEM,294912\r\n"
		     "10000008000,0,2,300,301,8192,input,EDQUOT,147456\r\n", s);
	free(s);
}

TEST_F(mem, events)
{
	int ret, rows = -1;
	char *s = mem_str(self->t, NPUPROF_MEM_BIT(NPUPROF_MEM_EVENTS),
			  NPUPROF_FORMAT_CSV, &ret), *p;

	ASSERT_EQ(0, ret);
	for (p = s; (p = strstr(p, "\r\n")); p += 2)
		rows++;
	/* 14 records, the one of size 0 left out */
	EXPECT_EQ(13, rows);
	EXPECT_NE(NULL, strstr(s, "\r\n10000003000,0,2,alloc,3,100,101,"
			       "0x428000,131072,scratch,,,229376,196608,"
			       "294912,4358144,0\r\n"));
	EXPECT_NE(NULL, strstr(s, "\r\n10000004000,0,2,fail,,200,201,,"
			       "1048576,scratch,ENOMEM,,229376,32768,294912,,0\r\n"));
	EXPECT_NE(NULL, strstr(s, "\r\n10000007000,0,2,free,3,100,,0x428000,"
			       "131072,scratch,,close,81920,65536,147456,"
			       "4358144,0\r\n"));
	/* the unpaired free: a row, marked skipped, nothing changed */
	EXPECT_NE(NULL, strstr(s, "\r\n10000010000,0,2,free,99,400,,0x480000,"
			       "4096,other,,handle,86016,0,147456,4718592,1\r\n"));
	free(s);
}

TEST_F(mem, text_and_json)
{
	char cmd[512];
	int ret;
	char *s = mem_str(self->t, 0, NPUPROF_FORMAT_TABLE, &ret);
	FILE *f;

	ASSERT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(s, "Device memory"));
	EXPECT_NE(NULL, strstr(s, "\nProcesses\n"));
	EXPECT_NE(NULL, strstr(s, "\nAllocation failures\n"));
	EXPECT_NE(NULL, strstr(s, "0x428000"));
	EXPECT_EQ(NULL, strstr(s, "Buffer events"));
	free(s);
	s = mem_str(self->t, 0, NPUPROF_FORMAT_JSON, &ret);
	ASSERT_EQ(0, ret);
	snprintf(cmd, sizeof(cmd), "%s.json", self->path);
	f = fopen(cmd, "w");
	ASSERT_NE(NULL, f);
	fputs(s, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
		 " assert d[\"devices\"][0][\"max_allocated\"] == 229376;"
		 " assert d[\"devices\"][0][\"max_used\"] is None;"
		 " assert len(d[\"peak_buffers\"]) == 4;"
		 " assert d[\"failures\"][1][\"error\"] == \"EDQUOT\";"
		 " assert d[\"processes\"][2][\"pid\"] == 300' %s.json",
		 self->path);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s.json", self->path);
	unlink(cmd);
	free(s);
}

/* The Chrome export: memory counters per device and process, failures */
TEST_F(mem, chrome_counters)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p;
	int n;

	ASSERT_EQ(0, npuprof_export_chrome(self->t, f, NULL));
	fclose(f);
	/* device 0 (process 0x40000000): the trace's bytes, in MB */
	EXPECT_NE(NULL, strstr(buf, "{\"ph\":\"C\",\"name\":\"memory allocated\","
			       "\"pid\":1073741824,\"tid\":0,\"ts\":10000003.000,"
			       "\"args\":{\"MB\":0.229376}}"));
	EXPECT_NE(NULL, strstr(buf, "{\"ph\":\"C\",\"name\":\"memory allocated\","
			       "\"pid\":1073741824,\"tid\":0,\"ts\":10000011.000,"
			       "\"args\":{\"MB\":0.069632}}"));
	/* the driver's counter of every process */
	EXPECT_NE(NULL, strstr(buf, "{\"ph\":\"C\",\"name\":\"memory in use, "
			       "all processes\",\"pid\":1073741824,\"tid\":0,"
			       "\"ts\":10000003.000,\"args\":{\"MB\":0.294912}}"));
	/* process 100 on npu2 and npu7, process 300 */
	EXPECT_NE(NULL, strstr(buf, "{\"ph\":\"C\",\"name\":\"npu2 memory "
			       "allocated\",\"pid\":100,\"tid\":0,\"ts\":"
			       "10000003.000,\"args\":{\"MB\":0.196608}}"));
	EXPECT_NE(NULL, strstr(buf, "{\"ph\":\"C\",\"name\":\"npu7 memory "
			       "allocated\",\"pid\":100,\"tid\":0,\"ts\":"
			       "10000002.500,\"args\":{\"MB\":0.000000}}"));
	EXPECT_NE(NULL, strstr(buf, "{\"ph\":\"C\",\"name\":\"npu2 memory "
			       "allocated\",\"pid\":300,\"tid\":0,\"ts\":"
			       "10000009.000,\"args\":{\"MB\":0.020480}}"));
	/* 12 changes (7 allocs, 5 frees... less the unpaired one): 3
	 * counters each on the devices, one per process */
	for (n = 0, p = buf; (p = strstr(p, "\"name\":\"memory allocated\"")); p++)
		n++;
	EXPECT_EQ(10, n);
	/* the two failures, on their thread */
	EXPECT_NE(NULL, strstr(buf, "\"name\":\"allocation failed\",\"pid\":200,"
			       "\"tid\":201,\"ts\":10000004.000,\"args\":{"
			       "\"size\":1048576,\"kind\":\"scratch\",\"error\":"
			       "\"ENOMEM\",\"device_allocated\":294912}}"));
	EXPECT_NE(NULL, strstr(buf, "\"error\":\"EDQUOT\""));
	free(buf);
}

/* The memory_flow SVG: one rectangle per buffer, where it belongs */
TEST_F(mem, svg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p;
	int n;

	ASSERT_EQ(0, npuprof_export_memsvg(self->t, f, NULL));
	fclose(f);
	for (n = 0, p = buf; (p = strstr(p, "<rect class=\"bo\"")); p++)
		n++;
	EXPECT_EQ(6, n);
	for (n = 0, p = buf; (p = strstr(p, "<path class=\"fail\"")); p++)
		n++;
	EXPECT_EQ(2, n);
	/*
	 * 1 us is 108 px (10 us over 1080 px from x 100); device 0's
	 * addresses 0x400000..0x448000 over 360 px from y 70: id3 from 3 us
	 * to 7 us at 0x428000, 128 KiB
	 */
	EXPECT_NE(NULL, strstr(buf, "<rect class=\"bo\" data-dev=\"0\" "
			       "data-bo=\"3\" x=\"316.00\" y=\"270.00\" "
			       "width=\"432.00\" height=\"160.00\" fill=\"#e15759\">"
			       "<title>buffer 3, scratch: 128 KiB (131072 bytes) "
			       "at 0x428000\nowner: pid 100, tid 101\nallocated "
			       "2.000 \xc2\xb5s, freed 6.000 \xc2\xb5s (close)"
			       "</title></rect>"));
	/* id1 of device 0 is never freed: to the end */
	EXPECT_NE(NULL, strstr(buf, "data-dev=\"0\" data-bo=\"1\" x=\"100.00\" "
			       "y=\"70.00\" width=\"1080.00\" height=\"80.00\""));
	EXPECT_NE(NULL, strstr(buf, "live at the end, 10.000"));
	/* device 1, its own panel below: 0x400000..0x402000 */
	EXPECT_NE(NULL, strstr(buf, "data-dev=\"1\" data-bo=\"1\" x=\"154.00\" "
			       "y=\"510.00\" width=\"108.00\" height=\"360.00\""));
	EXPECT_NE(NULL, strstr(buf, "npu7 (device 1): 1 buffer over 8 KiB"));
	EXPECT_NE(NULL, strstr(buf, "allocation failed: EDQUOT, 8 KiB"));
	EXPECT_NE(NULL, strstr(buf, "</svg>\n"));
	free(buf);
}

struct rows {
	unsigned int tables[8];
	unsigned int ncols[8];
	unsigned int n[8];
	uint64_t max_alloc;
};

static int rows_cols(void *ctx, unsigned int table,
		     const struct npuprof_column *cols, unsigned int ncols)
{
	struct rows *r = ctx;

	(void)cols;
	if (table < NPUPROF_MEM_DEVICES || table > NPUPROF_MEM_OPERATORS)
		return -EINVAL;
	r->ncols[table - NPUPROF_MEM_DEVICES] = ncols;
	return 0;
}

static int rows_row(void *ctx, unsigned int table,
		    const struct npuprof_value *v)
{
	struct rows *r = ctx;

	if (table == NPUPROF_MEM_DEVICES && !r->n[0])
		r->max_alloc = v[3].u;
	r->n[table - NPUPROF_MEM_DEVICES]++;
	return 0;
}

TEST_F(mem, rows)
{
	struct rows r = { 0 };
	struct npuprof_row_sink sink = { rows_cols, rows_row, &r };

	ASSERT_EQ(0, npuprof_memory(self->t, NULL, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_ROWS, .sink = &sink,
		.tables = 0x1f)));
	EXPECT_EQ(229376, r.max_alloc);
	EXPECT_EQ(2, r.n[0]);
	EXPECT_EQ(4, r.n[1]);
	EXPECT_EQ(4, r.n[2]);
	EXPECT_EQ(2, r.n[3]);
	EXPECT_EQ(13, r.n[4]);
	EXPECT_EQ(20, r.ncols[0]);
}

TEST_F(mem, bad_options)
{
	EXPECT_EQ(-EINVAL, npuprof_memory(self->t, stdout, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_CHROME)));
	EXPECT_EQ(-EINVAL, npuprof_memory(self->t, stdout, NPUPROF_MEMORY_OPTS(
		.tables = 1u << 7)));
	EXPECT_EQ(-EINVAL, npuprof_memory(self->t, NULL, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_ROWS)));
	EXPECT_EQ(-EINVAL, npuprof_memory(NULL, stdout, NULL));
	EXPECT_STREQ("devices", npuprof_mem_table_name(NPUPROF_MEM_DEVICES));
	EXPECT_STREQ("events", npuprof_mem_table_name(NPUPROF_MEM_EVENTS));
	EXPECT_STREQ("operators", npuprof_mem_table_name(NPUPROF_MEM_OPERATORS));
	EXPECT_STREQ("tensors", npuprof_mem_table_name(NPUPROF_MEM_TENSORS));
	EXPECT_EQ(NULL, npuprof_mem_table_name(NPUPROF_MEM_TENSORS + 1));
	EXPECT_EQ(NULL, npuprof_mem_table_name(0));
}

/* A trace without buffer records: empty tables, no error */
TEST(no_buffers)
{
	char *path, *s = NULL;
	struct npf_writer *w;
	struct npuprof_trace *t;
	size_t len = 0;
	FILE *f;

	ASSERT_LE(0, asprintf(&path, "/tmp/npuprof-memory-%d-empty",
			      (int)getpid()));
	ASSERT_EQ(0, npf_writer_open(path, 4096, &w));
	mem_gen_device(w, 0, 0, 1 << 20);
	ASSERT_EQ(0, npf_writer_close(w));
	t = mem_open(path);
	ASSERT_NE(NULL, t);
	f = open_memstream(&s, &len);
	EXPECT_EQ(0, npuprof_memory(t, f, NULL));
	fclose(f);
	EXPECT_NE(NULL, strstr(s, "(none)"));
	free(s);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/*
 * Hostile BO records (valid chunks, nonsense fields: sizes of 0 and
 * 2^64 - 1, wrapping ranges, ids of 0, duplicate ids, frees of unknown
 * buffers, devices beyond the tables, short records): every consumer
 * skips or counts them and succeeds, under ASan and UBSan
 */
TEST(hostile_records)
{
	static const uint64_t sizes[] = { 0, 1, 4096, 1ull << 47, 1ull << 48,
					  (1ull << 48) + 1, UINT64_MAX };
	static const uint64_t addrs[] = { 0, 0x400000, UINT64_MAX - 4095,
					  UINT64_MAX, 1ull << 63 };
	uint64_t seed = 42;
	char *path, *db, *buf = NULL;
	struct npf_writer *w;
	struct npuprof_trace *t;
	size_t len = 0;
	uint32_t dev;
	FILE *f;
	int i;

	ASSERT_LE(0, asprintf(&path, "/tmp/npuprof-memory-%d-hostile",
			      (int)getpid()));
	ASSERT_LE(0, asprintf(&db, "%s.db", path));
	ASSERT_EQ(0, npf_writer_open(path, 4096, &w));
	mem_gen_device(w, 0, 1, 1 << 20);
	mem_gen_device(w, 1, 2, 0);
	for (i = 0; i < 3000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		dev = (uint32_t)(seed >> 60) < 12 ? (uint32_t)(seed >> 60) % 2 :
		      60 + (uint32_t)(seed >> 58) % 10;
		mem_gen_bo(w, dev, (seed >> 20) & 1 ? MEM_A : MEM_F,
			   (uint32_t)i, (int32_t)(seed >> 32) % 5 - 1,
			   (seed >> 24) % 40, addrs[(seed >> 30) % 5] +
			   ((seed >> 8) % 64) * 4096, sizes[(seed >> 40) % 7],
			   (uint32_t)(seed >> 44) % 8,
			   (seed >> 48) % 7 == 0 ? -ENOMEM :
			   (seed >> 48) % 7 == 1 ? 5 : 0,
			   (uint32_t)(seed >> 52) % 7,
			   (seed >> 54) % 2 ? MEM_T0 + (uint64_t)i * 100 : UINT64_MAX - i,
			   seed);
	}
	{
		/* a record too short for struct npu_trace_rec_bo */
		struct npf_item_record ir = { .dev = 0 };
		struct npu_trace_rec_hdr h = { MEM_A, sizeof(h), 9999 };

		ASSERT_EQ(0, npf_writer_add(w, NPF_ITEM_RECORD, &ir, sizeof(ir),
					    &h, sizeof(h)));
	}
	ASSERT_EQ(0, npf_writer_close(w));
	t = mem_open(path);
	ASSERT_NE(NULL, t);
	f = open_memstream(&buf, &len);
	EXPECT_EQ(0, npuprof_memory(t, f, NPUPROF_MEMORY_OPTS(.tables = 0x1f)));
	EXPECT_EQ(0, npuprof_memory(t, f, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_JSON, .top = 1000)));
	EXPECT_EQ(0, npuprof_export_memsvg(t, f, NULL));
	EXPECT_EQ(0, npuprof_export_chrome(t, f, NULL));
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "</svg>"));
	free(buf);
	EXPECT_EQ(0, npuprof_export_sqlite(t, db));
	npuprof_trace_close(t);
	unlink(db);
	unlink(path);
	free(db);
	free(path);
}

/* The used side: a model's operators (memory_gen.h, mem_gen_model_write()) */
TEST(used_bytes)
{
	char *path, *s = NULL;
	struct npuprof_trace *t;
	size_t len = 0;
	FILE *f;
	int ret;

	ASSERT_LE(0, asprintf(&path, "/tmp/npuprof-memory-%d-used",
			      (int)getpid()));
	mem_gen_model_write(path);
	t = mem_open(path);
	ASSERT_NE(NULL, t);
	f = open_memstream(&s, &len);
	EXPECT_EQ(0, npuprof_memory(t, f, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_CSV,
		.tables = NPUPROF_MEM_BIT(NPUPROF_MEM_DEVICES) |
			  NPUPROF_MEM_BIT(NPUPROF_MEM_PROCESSES) |
			  NPUPROF_MEM_BIT(NPUPROF_MEM_OPERATORS))));
	fclose(f);
	/* max_allocated 16384 at 4 us, max_used 2000: 12.20703125 % */
	EXPECT_NE(NULL, strstr(s, "\r\n0,2,1048576,16384,10000004000,2000,"
			       "12.207031,16384,10000004000,4,0,0,4,16384,"));
	EXPECT_NE(NULL, strstr(s, ",0,,tiny op 0 CONV2D (" LAY_NAME0 ")\r\n"));
	/* the process's own ratio, the same here: one process */
	EXPECT_NE(NULL, strstr(s, "\r\n100,0,2,16384,10000004000,2000,4,0,0,"
			       "16384,12.207031\r\n"));
	/* with each operator's layer (layers_gen.h) */
	EXPECT_NE(NULL, strstr(s, "model_id,model,op_index,name,records,"
			       "in_bytes,out_bytes,live_bytes,alloc_bytes,"
			       "layer,op_type,in_shapes,out_shapes\r\n"
			       "5,tiny,0,CONV2D,1,1000,1000,2000,7424,"
			       LAY_NAME0 "," LAY_TYPE0 ",\"" LAY_IN0 "\",\""
			       LAY_OUT0 "\"\r\n"
			       "5,tiny,1,FC,1,1400,200,1600,7424,"
			       LAY_NAME1 "," LAY_TYPE1 ",\"" LAY_IN1 "\",\""
			       LAY_OUT1 "\"\r\n"));
	free(s);
	/* the tensors live at op 0 (T0, T1, T2), largest first; T3 is not */
	s = mem_str(t, NPUPROF_MEM_BIT(NPUPROF_MEM_TENSORS),
		    NPUPROF_FORMAT_CSV, &ret);
	EXPECT_EQ(0, ret);
	EXPECT_STREQ("device,minor,model_id,model,op_index,rank,tensor,slot,"
		     "offset,size,first_op,last_op,layer,op_type,in_shapes,"
		     "out_shapes\r\n"
		     "0,2,5,tiny,0,1,2,3,0,1000,0,1," LAY_NAME0 "," LAY_TYPE0
		     ",\"" LAY_IN0 "\",\"" LAY_OUT0 "\"\r\n"
		     "0,2,5,tiny,0,2,0,1,0,600,0,0," LAY_NAME0 "," LAY_TYPE0
		     ",\"" LAY_IN0 "\",\"" LAY_OUT0 "\"\r\n"
		     "0,2,5,tiny,0,3,1,0,0,400,0,1," LAY_NAME0 "," LAY_TYPE0
		     ",\"" LAY_IN0 "\",\"" LAY_OUT0 "\"\r\n", s);
	free(s);
	/* --top 2 */
	f = open_memstream(&s, &len);
	EXPECT_EQ(0, npuprof_memory(t, f, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_JSONL, .top = 2,
		.tables = NPUPROF_MEM_BIT(NPUPROF_MEM_TENSORS))));
	fclose(f);
	EXPECT_NE(NULL, strstr(s, "\"rank\": 2, \"tensor\": 0, \"slot\": 1, "
			       "\"offset\": 0, \"size\": 600, \"first_op\": 0, "
			       "\"last_op\": 0, \"layer\": \"" LAY_NAME0 "\", "
			       "\"op_type\": \"" LAY_TYPE0 "\", "
			       "\"in_shapes\": \"" LAY_IN0 "\", "
			       "\"out_shapes\": \"" LAY_OUT0 "\"}\n"));
	EXPECT_EQ(NULL, strstr(s, "\"size\": 400"));
	free(s);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/* The used counters of the Chrome export (memory_gen.h, mem_gen_jobs_write()) */
TEST(chrome_used)
{
	static const char *const want[] = {
		/* device: the sum of its PEs' jobs */
		"\"name\":\"memory used\",\"pid\":1073741824,\"tid\":0,"
		"\"ts\":10000010.000,\"args\":{\"MB\":0.002000}}",
		"\"name\":\"memory used\",\"pid\":1073741824,\"tid\":0,"
		"\"ts\":10000010.008,\"args\":{\"MB\":0.004000}}",
		"\"name\":\"memory used\",\"pid\":1073741824,\"tid\":0,"
		"\"ts\":10000010.010,\"args\":{\"MB\":0.003600}}",
		"\"name\":\"memory used\",\"pid\":1073741824,\"tid\":0,"
		"\"ts\":10000010.020,\"args\":{\"MB\":0.002000}}",
		"\"name\":\"memory used\",\"pid\":1073741824,\"tid\":0,"
		"\"ts\":10000010.022,\"args\":{\"MB\":0.001600}}",
		"\"name\":\"memory used\",\"pid\":1073741824,\"tid\":0,"
		"\"ts\":10000010.030,\"args\":{\"MB\":0.000000}}",
		/* the processes */
		"\"name\":\"npu2 memory used\",\"pid\":100,\"tid\":0,"
		"\"ts\":10000010.000,\"args\":{\"MB\":0.002000}}",
		"\"name\":\"npu2 memory used\",\"pid\":100,\"tid\":0,"
		"\"ts\":10000010.010,\"args\":{\"MB\":0.001600}}",
		"\"name\":\"npu2 memory used\",\"pid\":100,\"tid\":0,"
		"\"ts\":10000010.020,\"args\":{\"MB\":0.000000}}",
		"\"name\":\"npu2 memory used\",\"pid\":300,\"tid\":0,"
		"\"ts\":10000010.008,\"args\":{\"MB\":0.002000}}",
		"\"name\":\"npu2 memory used\",\"pid\":300,\"tid\":0,"
		"\"ts\":10000010.022,\"args\":{\"MB\":0.001600}}",
		"\"name\":\"npu2 memory used\",\"pid\":300,\"tid\":0,"
		"\"ts\":10000010.030,\"args\":{\"MB\":0.000000}}",
	};
	char *path, *buf = NULL;
	struct npuprof_trace *t;
	const char *p, *last = NULL;
	size_t len = 0, i;
	FILE *f;
	int n;

	ASSERT_LE(0, asprintf(&path, "/tmp/npuprof-memory-%d-jobs",
			      (int)getpid()));
	mem_gen_jobs_write(path);
	t = mem_open(path);
	ASSERT_NE(NULL, t);
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, npuprof_export_chrome(t, f, NULL));
	fclose(f);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		p = strstr(buf, want[i]);
		EXPECT_NE(NULL, p) TH_LOG("missing %s", want[i]);
		/* each series in time order in the file */
		if (p && i && i != 6 && i != 9)
			EXPECT_LT(last, p);
		last = p;
	}
	for (n = 0, p = buf; (p = strstr(p, "memory used\"")); p++)
		n++;
	EXPECT_EQ(12, n);
	free(buf);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
