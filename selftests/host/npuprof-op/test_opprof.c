// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_opprof - npuprof op without a device: the statistics, the derived
 * figures (cost model, SRAM), the jobs it builds (run on the emulator's
 * program interpreter, which reports each operator's cost as the device
 * does), the cache, the three output formats and the command line's
 * usage errors (the npuprof binary of the build).
 *
 * Compiled with tools/npuprof/op_build.c, op_run.c, op_out.c and
 * format.c and the emulator's interpreter, with the sanitizers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "program.h"
#include "cli.h"
#include "op.h"

/* $NPU_BUILD, else the build directory this test is in ($(BUILD)/tests) */
static const char *build_dir(void)
{
	static char dir[512];
	const char *b = getenv("NPU_BUILD");
	ssize_t n;

	if (b)
		return b;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		return "build";
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';	/* tests */
	*strrchr(dir, '/') = '\0';
	return dir;
}

/* ---- statistics and derived figures ---- */

TEST(dist_nearest_rank)
{
	uint64_t v[100], w[3] = { 5, 1, 3 }, one = 7;
	struct npo_dist d;
	unsigned int i;

	for (i = 0; i < 100; i++)
		v[i] = (i * 37) % 100 + 1;	/* 1..100, shuffled */
	npo_dist(v, 100, &d);
	EXPECT_EQ(1, d.min);
	EXPECT_EQ(50, d.median);
	EXPECT_EQ(99, d.p99);	/* ceil(0.99 * 100) = the 99th */
	EXPECT_EQ(100, d.max);
	EXPECT_EQ(50.5, d.mean);
	npo_dist(w, 3, &d);
	EXPECT_EQ(1, d.min);
	EXPECT_EQ(3, d.median);
	EXPECT_EQ(5, d.p99);	/* ceil(2.97) = 3rd */
	npo_dist(&one, 1, &d);
	EXPECT_EQ(7, d.min);
	EXPECT_EQ(7, d.median);
	EXPECT_EQ(7, d.p99);
}

static void fill_result(struct npo_result *r, unsigned int n)
{
	static const uint64_t macs[] = { 25690112, 903168, 51380224 };
	static const uint64_t bytes[] = { 287744, 211456, 468992 };
	unsigned int i;

	memset(r, 0, sizeof(*r));
	snprintf(r->desc, sizeof(r->desc), "mobilenet-v1 ops 12..14");
	snprintf(r->device, sizeof(r->device), "/dev/npu0");
	r->hw_version = 1 << 16;
	r->pe_count = 2;
	r->clock_hz = 1000000000;
	r->macs_per_cycle = 256;
	r->dma_bw = 2000;
	r->sram_size = 1 << 20;
	r->runs = 10;
	r->warmup = 5;
	r->n_ops = n;
	for (i = 0; i < n; i++) {
		r->op[i].op_index = 12 + i;
		r->op[i].opcode = i == 1 ? NPU_OP_DWCONV2D : NPU_OP_CONV2D;
		snprintf(r->op[i].layer, NPO_NAME_LEN, "layer \"%u\"", i);
		r->op[i].macs = macs[i];
		r->op[i].dma_bytes = bytes[i];
		r->op[i].lat = (struct npo_dist){ 1000 + i, 2000 + i, 3000 + i,
						  4000 + i, 2100.5 };
		r->op[i].iowait = (struct npo_dist){ 10, 20, 30, 40, 25 };
	}
	r->total = (struct npo_dist){ 5000, 6000, 7000, 8000, 6100 };
	npo_result_derive(r);
}

TEST(derive_cost_model_and_sram)
{
	struct npo_result r;

	fill_result(&r, 3);
	/* ceil(macs / 256) and ceil(bytes * 1e9 / 2e9) ticks, ns at 1 GHz */
	EXPECT_EQ(100352, r.op[0].compute_ns);
	EXPECT_EQ(3528, r.op[1].compute_ns);
	EXPECT_EQ(143872, r.op[0].dma_ns);
	EXPECT_EQ(105728, r.op[1].dma_ns);
	EXPECT_EQ(287744, r.op[0].sram_bytes);
	EXPECT_EQ(25690112ull + 903168 + 51380224, r.macs);
	EXPECT_EQ(287744ull + 211456 + 468992, r.dma_bytes);
	/* the largest pair of neighbours: ops 13 and 14 */
	EXPECT_EQ(211456ull + 468992, r.sram_bytes);
	EXPECT_EQ(256.0, npo_peak_gmacs(&r));
	/* at 500 MHz a tick is 2 ns */
	r.clock_hz = 500000000;
	npo_result_derive(&r);
	EXPECT_EQ(2 * 100352, r.op[0].compute_ns);
	EXPECT_EQ(2 * 71936, r.op[0].dma_ns);
}

/* ---- the jobs: run on the emulator's interpreter ---- */

struct cost_log {
	unsigned int n;
	struct emu_op_cost c[NPO_MAX_OPS];
	uint16_t opcode[NPO_MAX_OPS];
};

static void on_end(void *arg, uint32_t index, const struct npu_prog_op *op,
		   const struct emu_op_cost *cost)
{
	struct cost_log *l = arg;

	if (l->n < NPO_MAX_OPS) {
		l->c[l->n] = *cost;
		l->opcode[l->n++] = op->opcode;
	}
}

/* run @job on the interpreter; NPU_HW_STATUS_* */
static int run_job(const struct npo_job *job, struct cost_log *log)
{
	struct emu_prog_slot s[NPO_MAX_SLOTS];
	struct emu_prog_hooks h = { .arg = log, .op_end = on_end };
	uint16_t op_index;
	unsigned int i;
	int ret;

	memset(log, 0, sizeof(*log));
	for (i = 0; i < job->nslots; i++) {
		s[i].size = (uint32_t)job->size[i];
		s[i].base = calloc(1, job->size[i]);
		if (job->image[i])
			memcpy(s[i].base, job->image[i], job->size[i]);
	}
	ret = emu_prog_run(s, job->nslots, job->prog_slot, job->prog_off,
			   job->prog_size, &h, &op_index);
	for (i = 0; i < job->nslots; i++)
		free(s[i].base);
	return ret;
}

static struct npo_spec spec(uint16_t opcode, unsigned int ndim, uint32_t d0,
			    uint32_t d1, uint32_t d2, uint32_t d3)
{
	struct npo_spec s = {
		.opcode = opcode, .in = { d0, d1, d2, d3 }, .in_ndim = ndim,
		.sh = 1, .sw = 1, .pad_mode = 2, .inputs = 2,
	};

	return s;
}

TEST(spec_conv2d_same)
{
	struct npo_spec s = spec(NPU_OP_CONV2D, 4, 1, 28, 28, 32);
	struct cost_log log;
	struct npo_job job;

	s.filters = 16;
	s.kh = s.kw = 3;
	s.sh = s.sw = 2;
	s.pad_mode = 1;
	ASSERT_EQ(0, npo_build_spec(&s, &job));
	EXPECT_STREQ("conv2d in=1x28x28x32 filters=16 kernel=3x3 stride=2x2 pad=0,0,1,1 out=1x14x14x16 layout=nchwc16",
		     job.desc);
	EXPECT_EQ(1, job.n_ops);
	EXPECT_EQ(NPU_HW_STATUS_OK, run_job(&job, &log));
	ASSERT_EQ(1, log.n);
	EXPECT_EQ(1ull * 14 * 14 * 16 * 9 * 32, log.c[0].macs);
	EXPECT_EQ(28 * 28 * 32, log.c[0].in_bytes);
	EXPECT_EQ(16 * 9 * 32 + 16 * 4 + 16 * 8, log.c[0].w_bytes);
	EXPECT_EQ(14 * 14 * 16, log.c[0].out_bytes);
	/* the key holds the description and the program's hash */
	EXPECT_EQ(0, strncmp(job.key, job.desc, strlen(job.desc)));
	EXPECT_NE(NULL, strstr(job.key, " prog="));
	npo_job_free(&job);
	/* plain layout: another job, another key */
	s.plain = true;
	ASSERT_EQ(0, npo_build_spec(&s, &job));
	EXPECT_NE(NULL, strstr(job.desc, "layout=plain"));
	EXPECT_EQ(NPU_HW_STATUS_OK, run_job(&job, &log));
	npo_job_free(&job);
}

/* every opcode builds a program the device accepts, with its MACs */
TEST(spec_every_opcode)
{
	struct {
		struct npo_spec s;
		uint64_t macs;
	} t[13];
	struct cost_log log;
	struct npo_job job;
	unsigned int i, n = 0;

	t[n].s = spec(NPU_OP_CONV2D, 4, 1, 8, 8, 3);
	t[n].s.filters = 4, t[n].s.kh = t[n].s.kw = 3;
	t[n++].macs = 6 * 6 * 4 * 9 * 3;
	t[n].s = spec(NPU_OP_DWCONV2D, 4, 1, 16, 16, 32);
	t[n].s.kh = t[n].s.kw = 3, t[n].s.pad_mode = 0;
	t[n].s.pad[0] = t[n].s.pad[1] = t[n].s.pad[2] = t[n].s.pad[3] = 1;
	t[n++].macs = 16 * 16 * 32 * 9;
	t[n].s = spec(NPU_OP_AVGPOOL, 4, 1, 8, 8, 32);
	t[n].s.kh = t[n].s.kw = 8;
	t[n++].macs = 32 * 64;
	t[n].s = spec(NPU_OP_MAXPOOL, 4, 1, 16, 16, 16);
	t[n].s.kh = t[n].s.kw = 2, t[n].s.sh = t[n].s.sw = 2;
	t[n++].macs = 8 * 8 * 16 * 4;
	t[n].s = spec(NPU_OP_FC, 2, 2, 256, 1, 1);
	t[n].s.filters = 10;
	t[n++].macs = 2 * 256 * 10;
	t[n].s = spec(NPU_OP_MATMUL, 2, 4, 64, 1, 1);
	t[n].s.filters = 32;
	t[n++].macs = 4 * 64 * 32;
	t[n].s = spec(NPU_OP_ADD, 4, 1, 8, 8, 64);
	t[n++].macs = 8 * 8 * 64;
	t[n].s = spec(NPU_OP_CLIP, 1, 4096, 1, 1, 1);
	t[n++].macs = 4096;
	t[n].s = spec(NPU_OP_PAD, 4, 1, 8, 8, 16);
	t[n].s.pad[0] = 1, t[n].s.pad[1] = 2, t[n].s.pad[2] = 3, t[n].s.pad[3] = 4;
	t[n++].macs = 0;
	t[n].s = spec(NPU_OP_RESHAPE, 4, 1, 1, 1, 1024);
	t[n].s.out[0] = 1, t[n].s.out[1] = 1024, t[n].s.out_ndim = 2;
	t[n++].macs = 0;
	t[n].s = spec(NPU_OP_TRANSPOSE, 4, 2, 3, 4, 5);
	t[n].s.out[0] = 0, t[n].s.out[1] = 3, t[n].s.out[2] = 1, t[n].s.out[3] = 2;
	t[n].s.out_ndim = 4;
	t[n++].macs = 0;
	t[n].s = spec(NPU_OP_SLICE, 4, 1, 8, 8, 16);
	t[n].s.out[0] = 1, t[n].s.out[1] = 4, t[n].s.out[2] = 8, t[n].s.out[3] = 16;
	t[n].s.out_ndim = 4;
	t[n++].macs = 0;
	t[n].s = spec(NPU_OP_CONCAT, 4, 1, 4, 4, 16);
	t[n].s.inputs = 3, t[n].s.axis = 3;
	t[n++].macs = 0;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, npo_build_spec(&t[i].s, &job))
			TH_LOG("%s", npo_opcode_cli_name(t[i].s.opcode));
		EXPECT_EQ(NPU_HW_STATUS_OK, run_job(&job, &log))
			TH_LOG("%s", job.desc);
		ASSERT_EQ(1, log.n);
		EXPECT_EQ(t[i].s.opcode, log.opcode[0]);
		EXPECT_EQ(t[i].macs, log.c[0].macs) TH_LOG("%s", job.desc);
		npo_job_free(&job);
	}
}

TEST(spec_refused)
{
	struct npo_spec s = spec(NPU_OP_CONV2D, 4, 1, 8, 8, 3);
	struct npo_job job;

	/* no filters, no kernel, a kernel larger than the input */
	s.kh = s.kw = 3;
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	s.filters = 4;
	s.kh = s.kw = 0;
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	s.kh = s.kw = 9;
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	/* "same" pads it back */
	s.pad_mode = 1;
	EXPECT_EQ(0, npo_build_spec(&s, &job));
	npo_job_free(&job);
	s = spec(NPU_OP_DWCONV2D, 4, 1, 8, 8, 16);
	s.kh = s.kw = 3;
	s.filters = 8;		/* depth multiplier 1 only */
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	s = spec(NPU_OP_FC, 4, 1, 8, 8, 16);	/* fc wants MxK */
	s.filters = 3;
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	s = spec(NPU_OP_RESHAPE, 2, 4, 4, 1, 1);
	s.out[0] = 15, s.out_ndim = 1;		/* 16 elements, not 15 */
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	s = spec(NPU_OP_TRANSPOSE, 3, 2, 3, 4, 1);
	s.out[0] = 0, s.out[1] = 0, s.out[2] = 1, s.out_ndim = 3;
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	s = spec(NPU_OP_SLICE, 2, 4, 4, 1, 1);
	s.out[0] = 5, s.out[1] = 4, s.out_ndim = 2;
	EXPECT_EQ(2, npo_build_spec(&s, &job));
	s = spec(NPU_OP_CONCAT, 2, 4, 4, 1, 1);
	s.axis = 2;
	EXPECT_EQ(2, npo_build_spec(&s, &job));
}

/* the generated MobileNet, operators 12..14 on its own tensors */
TEST(model_operators)
{
	char path[600];
	struct cost_log log;
	struct npo_job job;

	snprintf(path, sizeof(path), "%s/models/mobilenet-v1.nmdl",
		 build_dir());
	if (access(path, R_OK))
		SKIP(return, "no %s", path);
	ASSERT_EQ(0, npo_build_model(path, NULL, 12, 3, &job));
	EXPECT_EQ(12, job.first_op);
	EXPECT_EQ(3, job.n_ops);
	EXPECT_EQ(job.nslots - 1, job.prog_slot);
	EXPECT_EQ(NPU_HW_STATUS_OK, run_job(&job, &log));
	ASSERT_EQ(3, log.n);
	EXPECT_EQ(NPU_OP_CONV2D, log.opcode[0]);
	EXPECT_EQ(NPU_OP_DWCONV2D, log.opcode[1]);
	EXPECT_EQ(1ull * 14 * 14 * 512 * 9, log.c[1].macs);
	EXPECT_NE(NULL, strstr(job.desc, "ops 12..14"));
	if (job.layer[0][0])	/* a layer table: the first and last layers */
		EXPECT_STREQ("mobilenet-v1 ops 12..14 conv_pw_6..conv_pw_7",
			     job.desc);
	npo_job_free(&job);
	/* out of range */
	EXPECT_EQ(2, npo_build_model(path, NULL, 30, 1, &job));
	EXPECT_EQ(2, npo_build_model(path, NULL, 29, 2, &job));
	/* by layer name, when the model has its layer table */
	if (npo_build_model(path, "conv_dw_7", 0, 1, &job) == 0) {
		EXPECT_EQ(13, job.first_op);
		EXPECT_EQ(1, job.n_ops);
		EXPECT_STREQ("conv_dw_7", job.layer[0]);
		npo_job_free(&job);
		EXPECT_EQ(2, npo_build_model(path, "no_such", 0, 1, &job));
	}
	EXPECT_EQ(1, npo_build_model("/nonexistent.nmdl", NULL, 0, 1, &job));
}

/* ---- the cache ---- */

static char cache_dir[] = "/tmp/opprof-test.XXXXXX";

static uint64_t file_size(const char *dir, const char *key)
{
	char p[600];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%016llx.op", dir,
		 (unsigned long long)npo_fnv(NPO_FNV_INIT, key, strlen(key)));
	return stat(p, &st) ? 0 : (uint64_t)st.st_size;
}

TEST(cache_round_trip)
{
	struct npo_result r, back;
	char sub[600], p[700];
	uint64_t entries, bytes;
	const char *key = "npuprof-op 1 | hw=1.0 | pe=0 runs=10 | a";
	int fd;

	ASSERT_NE(NULL, mkdtemp(cache_dir));
	snprintf(sub, sizeof(sub), "%s/x/y", cache_dir);	/* made as needed */
	fill_result(&r, 2);
	EXPECT_EQ(0, npo_cache_info(sub, &entries, &bytes));
	EXPECT_EQ(0, entries);
	EXPECT_EQ(0, npo_cache_get(sub, key, &back));
	ASSERT_EQ(0, npo_cache_put(sub, key, &r));
	ASSERT_EQ(1, npo_cache_get(sub, key, &back));
	EXPECT_TRUE(back.cached);
	back.cached = false;
	EXPECT_EQ(0, memcmp(&r, &back, sizeof(r)));
	/* another key is another entry */
	EXPECT_EQ(0, npo_cache_get(sub, "npuprof-op 1 | other", &back));
	ASSERT_EQ(0, npo_cache_put(sub, "npuprof-op 1 | other", &r));
	EXPECT_EQ(0, npo_cache_info(sub, &entries, &bytes));
	EXPECT_EQ(2, entries);
	EXPECT_EQ(file_size(sub, key) + file_size(sub, "npuprof-op 1 | other"),
		  bytes);
	/* a truncated entry is a miss, and is rewritten */
	snprintf(p, sizeof(p), "%s/%016llx.op", sub,
		 (unsigned long long)npo_fnv(NPO_FNV_INIT, key, strlen(key)));
	ASSERT_EQ(0, truncate(p, 100));
	EXPECT_EQ(0, npo_cache_get(sub, key, &back));
	ASSERT_EQ(0, npo_cache_put(sub, key, &r));
	EXPECT_EQ(1, npo_cache_get(sub, key, &back));
	/* an entry whose key differs (a hash collision) is a miss */
	fd = open(p, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, pwrite(fd, "X", 1, 12));
	close(fd);
	EXPECT_EQ(0, npo_cache_get(sub, key, &back));
	/* clear removes the entries, not the other files */
	snprintf(p, sizeof(p), "%s/README", sub);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(2, npo_cache_clear(sub));
	EXPECT_EQ(0, npo_cache_info(sub, &entries, &bytes));
	EXPECT_EQ(0, entries);
	EXPECT_EQ(0, access(p, F_OK));
	EXPECT_EQ(0, npo_cache_clear("/nonexistent/dir"));
}

TEST(cache_dir_default)
{
	char buf[4096];

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	ASSERT_EQ(0, npo_cache_dir(NULL, buf, sizeof(buf)));
	EXPECT_STREQ("/x/cache/npuprof/ops", buf);
	setenv("XDG_CACHE_HOME", "relative", 1);	/* ignored, as XDG says */
	setenv("HOME", "/home/u", 1);
	ASSERT_EQ(0, npo_cache_dir(NULL, buf, sizeof(buf)));
	EXPECT_STREQ("/home/u/.cache/npuprof/ops", buf);
	ASSERT_EQ(0, npo_cache_dir("/d", buf, sizeof(buf)));
	EXPECT_STREQ("/d", buf);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	EXPECT_EQ(-ENOENT, npo_cache_dir(NULL, buf, sizeof(buf)));
}

/* ---- the formats ---- */

static char *print(const struct npo_result *r, unsigned int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	npo_print(r, format, f);
	fclose(f);
	return buf;
}

static unsigned int count(const char *s, char c)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

TEST(format_json)
{
	struct npo_result r;
	char *s;

	fill_result(&r, 2);
	s = print(&r, NPO_FMT_JSON);
	EXPECT_EQ(0, strncmp(s, "{\"operator\": \"mobilenet-v1 ops 12..14\", \"device\": {\"path\": \"/dev/npu0\", \"hw_version\": \"1.0\", \"pe_count\": 2, \"clock_hz\": 1000000000, \"macs_per_cycle\": 256, \"dma_bw_mbps\": 2000, \"sram_size\": 1048576}, \"pe\": 0, \"runs\": 10, \"warmup\": 5, \"cached\": false, \"peak_gmacs\": 256.000, \"ops\": [{\"index\": 12, \"opcode\": \"conv2d\", \"layer\": \"layer \\\"0\\\"\", \"min_ns\": 1000, \"median_ns\": 2000, \"p99_ns\": 3000, \"max_ns\": 4000, \"mean_ns\": 2100.5, \"iowait_ns\": 20, \"macs\": 25690112, \"gmacs\": 12845.056, \"peak_pct\": 5017.60, \"dma_bytes\": 287744, \"sram_bytes\": 287744, \"sram_fits\": true, ",
			     400)) TH_LOG("%s", s);
	EXPECT_NE(NULL, strstr(s, "\"index\": 13, \"opcode\": \"dwconv2d\""));
	EXPECT_NE(NULL, strstr(s, "\"total\": {\"min_ns\": 5000, \"median_ns\": 6000"));
	EXPECT_NE(NULL, strstr(s, "\"compute_ns\": 100352, \"dma_ns\": 143872}"));
	EXPECT_EQ(count(s, '{'), count(s, '}'));
	EXPECT_EQ(count(s, '['), count(s, ']'));
	EXPECT_EQ('\n', s[strlen(s) - 1]);
	free(s);
}

#define CSV_HEADER "operator,index,opcode,layer,runs,min_ns,median_ns,p99_ns," \
	"max_ns,mean_ns,iowait_ns,macs,gmacs,peak_gmacs,peak_pct,dma_bytes," \
	"sram_bytes,sram_size,compute_ns,dma_ns,cached\n"

TEST(format_csv)
{
	struct npo_result r;
	char *s, *line, *save = NULL;
	unsigned int lines = 0, commas = 0;

	fill_result(&r, 2);
	r.cached = true;
	s = print(&r, NPO_FMT_CSV);
	EXPECT_EQ(0, strncmp(s, CSV_HEADER, strlen(CSV_HEADER)));
	EXPECT_NE(NULL, strstr(s, "\n\"mobilenet-v1 ops 12..14\",12,conv2d,\"layer \"\"0\"\"\",10,1000,2000,3000,4000,2100.5,20,25690112,"));
	EXPECT_NE(NULL, strstr(s, ",total,,,10,5000,6000,7000,8000,6100.0,"));
	/* every line has the header's fields (no quoted comma here) */
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!lines++)
			commas = count(line, ',');
		EXPECT_EQ(commas, count(line, ',')) TH_LOG("%s", line);
		if (lines > 1)	/* cached */
			EXPECT_EQ('1', line[strlen(line) - 1]);
	}
	EXPECT_EQ(4, lines);	/* header, 2 operators, total */
	free(s);
	/* one operator: no total row */
	fill_result(&r, 1);
	s = print(&r, NPO_FMT_CSV);
	EXPECT_EQ(2, count(s, '\n'));
	free(s);
}

TEST(format_table)
{
	struct npo_result r;
	char *s;

	fill_result(&r, 2);
	r.op[1].sram_bytes = 2 << 20;
	s = print(&r, NPO_FMT_TABLE);
	EXPECT_NE(NULL, strstr(s, "Operator:  mobilenet-v1 ops 12..14\n"));
	EXPECT_NE(NULL, strstr(s, "Peak:      256.0 GMAC/s per PE"));
	EXPECT_NE(NULL, strstr(s, "Runs:      10 timed after 5 warm-up"));
	EXPECT_NE(NULL, strstr(s, "\ntotal "));
	EXPECT_NE(NULL, strstr(s, "note: operator 13 needs 2097152 bytes of SRAM"));
	free(s);
}

/* ---- the command line ---- */

/* run "npuprof op ARGS"; its status, the first line of stderr in @err */
static int cli(char *err, size_t len, const char *const *args)
{
	char exe[600], *argv[32];
	int p[2], st, n = 0;
	ssize_t got;
	pid_t pid;

	snprintf(exe, sizeof(exe), "%s/bin/npuprof", build_dir());
	argv[n++] = exe;
	argv[n++] = "op";
	while (*args && n < 30)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(p[1], 2);
		execv(exe, argv);
		_exit(127);
	}
	close(p[1]);
	n = 0;
	while ((size_t)n < len - 1 &&
	       (got = read(p[0], err + n, len - 1 - n)) > 0)
		n += (int)got;
	err[n] = '\0';
	if (strchr(err, '\n'))
		*strchr(err, '\n') = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

TEST(cli_usage_errors)
{
	static const struct {
		const char *args[10];
		const char *msg;
	} t[] = {
		{ { NULL }, "give an OPCODE" },
		{ { "conv3d", "--input", "1x2", NULL }, "unknown opcode 'conv3d'" },
		{ { "conv2d", "--input", "1x0x2", NULL }, "--input: '0' is out of range" },
		{ { "conv2d", "--input", "1x2x3x4x5", NULL }, "more than 4 values" },
		{ { "conv2d", "--input", "1xax3", NULL }, "'a' is not a number" },
		{ { "conv2d", "--input", "1x1024x1024x2048", NULL }, "more than 1073741824 elements" },
		{ { "conv2d", "--input", "1x8x8x3", "--kernel", "3", NULL }, "--filters is required" },
		{ { "conv2d", "--input", "1x8x8x3", "--filters", "2", "--kernel", "3", "--pad", "1,2" }, "give same, valid or T,L,B,R" },
		{ { "conv2d", "--input", "1x8x8x3", "--kernel", "256", NULL }, "out of range 1..255" },
		{ { "clip", "--input", "8", "--runs", "0", NULL }, "--runs: '0' is out of range 1..100000" },
		{ { "clip", "--input", "8", "--format", "xml", NULL }, "must be table, csv or json" },
		{ { "clip", "--input", "8", "--layer", "x", NULL }, "need --model" },
		{ { "clip", "--input", "8", "--bogus", NULL }, "bogus" },
		{ { "--model", "m.nmdl", NULL }, "one of --layer NAME and --op-index N" },
		{ { "--model", "m.nmdl", "--layer", "a", "--op-index", "1", NULL }, "one of --layer NAME and --op-index N" },
		{ { "--model", "m.nmdl", "clip", "--op-index", "1", NULL }, "no OPCODE" },
		{ { "--model", "m.nmdl", "--layer", "a", "--op-count", "2", NULL }, "--op-count goes with --op-index" },
		{ { "--cache-info", "--cache-clear", NULL }, "not each other" },
		{ { "clip", "extra", NULL }, "unexpected argument 'extra'" },
		/* dims allowed one by one, whose products would wrap */
		{ { "pad", "--input", "64x1x1x16777216", "--pad", "65535,65535,65535,65535", NULL },
		  "larger than 1073741824 bytes" },
		{ { "fc", "--input", "16777216x64", "--filters", "16777216", NULL },
		  "larger than 1073741824 bytes" },
		{ { "conv2d", "--input", "1x8x8x3", "--filters", "2", "--kernel", "3", "--pad", "256,0,0,0", NULL },
		  "padding must be at most 255" },
	};
	char err[512];
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		EXPECT_EQ(2, cli(err, sizeof(err), t[i].args)) TH_LOG("case %u: %s", i, err);
		EXPECT_NE(NULL, strstr(err, t[i].msg)) TH_LOG("case %u: %s", i, err);
		EXPECT_EQ(0, strncmp(err, "npuprof op: ", 12)) TH_LOG("%s", err);
	}
}

TEST(cli_runtime_errors)
{
	const char *nomodel[] = { "--model", "/nonexistent.nmdl", "--op-index", "0", NULL };
	const char *nodev[] = { "clip", "--input", "8", "--device", "/nonexistent/npu", NULL };
	const char *help[] = { "--help", NULL };
	char err[512];

	EXPECT_EQ(1, cli(err, sizeof(err), nomodel));
	EXPECT_NE(NULL, strstr(err, "/nonexistent.nmdl")) TH_LOG("%s", err);
	EXPECT_EQ(1, cli(err, sizeof(err), nodev));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/npu: No such file")) TH_LOG("%s", err);
	EXPECT_EQ(0, cli(err, sizeof(err), help));
}

TEST_HARNESS_MAIN
