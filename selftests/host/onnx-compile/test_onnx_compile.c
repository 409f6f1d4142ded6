// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_onnx_compile - the ONNX importer (tools/npu-onnx) on small models.
 *
 * gen_cases.py (python3-onnx, numpy) writes the models and cases.txt; this
 * test compiles each model with onnx_import() (compiled in, with ASan and
 * UBSan), then:
 *  - "ok" cases: loads the file with libnpu's loader, checks the model
 *    I/O's scale and zero point and the layer table (node names and op
 *    types, in operator order), runs the program on the host reference
 *    (lib/npuref) with the input bytes the script wrote, and compares every
 *    output byte with the script's numpy result;
 *  - "err" cases: checks the error code and the message.
 * Skips when python3-onnx is missing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "libnpu.h"
#include "npuref.h"
#include "npu/npu_model_file.h"
#include "npu/npu_model_layers.h"
#include "onnx_import.h"

#ifndef GEN_SCRIPT
#error GEN_SCRIPT must name gen_cases.py
#endif
#ifndef NPU_ONNX
#error NPU_ONNX must name the npu-onnx binary
#endif
#ifndef CASES_DIR
#error CASES_DIR must name the directory of the generated cases
#endif

static uint8_t *slurp(const char *dir, const char *name, const char *ext,
		      size_t *len)
{
	char path[1024];
	struct stat st;
	uint8_t *b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%s", dir, name, ext);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fstat(fileno(f), &st)) {
		fclose(f);
		return NULL;
	}
	b = malloc(st.st_size ? st.st_size : 1);
	if (b && fread(b, 1, st.st_size, f) != (size_t)st.st_size) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = st.st_size;
	return b;
}

/* the layer table of file image @f, or NULL */
static const struct npu_layers_hdr *layers_of(const uint8_t *f, size_t size)
{
	const struct npu_model_file_hdr *h = (const void *)f;

	if (size < sizeof(*h) || !(h->flags & NPU_MODEL_F_LAYERS))
		return NULL;
	return (const void *)(f + h->layers_off);
}

/* layers of a table, 0 for none */
static uint32_t table_layers(const void *t)
{
	return t ? ((const struct npu_layers_hdr *)t)->n_layers : 0;
}

struct run {
	int fails;
	int oks, errs, skipped_layers;
};

/* "name|type name|type ..." against the table; 0 when equal */
static int check_layers(const uint8_t *f, size_t size, const char *want,
			char *why, size_t len)
{
	const struct npu_layers_hdr *h = layers_of(f, size);
	const struct npu_model_file_hdr *fh = (const void *)f;
	const struct npu_prog_hdr *ph = (const void *)(f + fh->prog_off);
	char buf[4096], *tok, *save = NULL;
	uint32_t i = 0;

	if (!h) {
		snprintf(why, len, "no layer table");
		return -1;
	}
	if (npu_layers_check(h, fh->layers_size, ph->n_ops, NULL)) {
		snprintf(why, len, "layer table: %s",
			 npu_layers_check(h, fh->layers_size, ph->n_ops, NULL));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", want);
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save), i++) {
		char *bar = strchr(tok, '|');
		const struct npu_layer_desc *d;

		if (i >= h->n_layers) {
			snprintf(why, len, "%u layers, more expected", h->n_layers);
			return -1;
		}
		*bar = 0;
		d = npu_layers_desc(h, i);
		if (strcmp(npu_layers_str(h, d->name), tok) ||
		    strcmp(npu_layers_str(h, d->op_type), bar + 1)) {
			snprintf(why, len, "layer %u is %s|%s, expected %s|%s", i,
				 npu_layers_str(h, d->name),
				 npu_layers_str(h, d->op_type), tok, bar + 1);
			return -1;
		}
		if (!d->n_out) {
			snprintf(why, len, "layer %u has no output shape", i);
			return -1;
		}
	}
	if (i != h->n_layers) {
		snprintf(why, len, "%u layers, %u expected", h->n_layers, i);
		return -1;
	}
	return 0;
}

/* "lshape NAME IDX MACS WBYTES INS|OUT" against layer IDX */
static int check_lshape(const uint8_t *f, size_t size, const char *line,
			char *why, size_t len)
{
	const struct npu_layers_hdr *h = layers_of(f, size);
	unsigned long long macs, wb;
	char name[256], ins[512], out[128], got_in[512], got_out[128];
	const struct npu_layer_desc *d;
	unsigned int i;

	if (sscanf(line, "lshape %255s %u %llu %llu %511[^|]|%127[^\n]", name,
		   &i, &macs, &wb, ins, out) != 6) {
		snprintf(why, len, "bad lshape line");
		return -1;
	}
	if (!h || i >= h->n_layers) {
		snprintf(why, len, "no layer %u", i);
		return -1;
	}
	d = npu_layers_desc(h, i);
	npu_layer_shapes_fmt(d->in, d->n_in, got_in, sizeof(got_in));
	npu_layer_shapes_fmt(&d->out, d->n_out, got_out, sizeof(got_out));
	if (d->macs != macs || d->weight_bytes != wb || strcmp(got_in, ins) ||
	    strcmp(got_out, out)) {
		snprintf(why, len,
			 "layer %u: %s -> %s, %llu MACs, %llu weight bytes; expected %s -> %s, %llu, %llu",
			 i, got_in, got_out, (unsigned long long)d->macs,
			 (unsigned long long)d->weight_bytes, ins, out, macs, wb);
		return -1;
	}
	return 0;
}

/* run @m on npuref with the case's inputs; compare the outputs */
static int run_model(const char *dir, const char *name, struct npu_model *m,
		     char *why, size_t len)
{
	struct npuref_buf slots[NPU_MODEL_MAX_SLOTS] = { 0 };
	unsigned int n = npu_model_num_slots(m), i;
	uint32_t prog_off, prog_size;
	const void *img;
	size_t isz, sz, blen;
	uint16_t opi = 0;
	int ret = -1, st;
	char ext[32];
	uint8_t *b;

	for (i = 0; i < n; i++) {
		npu_model_slot(m, i, NULL, &sz);
		slots[i].base = calloc(1, sz);
		slots[i].size = sz;
	}
	img = npu_model_const_image(m, &isz, &prog_off, &prog_size);
	memcpy(slots[0].base, img, isz);
	for (i = 0; i < npu_model_num_inputs(m); i++) {
		const struct npu_tensor_desc *d = npu_model_input(m, i);

		snprintf(ext, sizeof(ext), ".in%u.bin", i);
		b = slurp(dir, name, ext, &blen);
		if (!b || blen != d->count || d->layout != NPU_LAYOUT_PLAIN) {
			snprintf(why, len, "input %u: %zu bytes for %zu elements, layout %u",
				 i, b ? blen : 0, d->count, d->layout);
			free(b);
			goto out;
		}
		memcpy((uint8_t *)slots[d->slot].base + d->offset, b, blen);
		free(b);
	}
	st = npuref_run((uint8_t *)slots[0].base + prog_off, prog_size, slots, n,
			0, &opi);
	if (st != NPU_PROG_OK) {
		snprintf(why, len, "npuref_run: status %d at op %u", st, opi);
		goto out;
	}
	for (i = 0; i < npu_model_num_outputs(m); i++) {
		const struct npu_tensor_desc *d = npu_model_output(m, i);
		const uint8_t *got;
		size_t k;

		snprintf(ext, sizeof(ext), ".out%u.bin", i);
		b = slurp(dir, name, ext, &blen);
		if (!b || blen != d->count || d->layout != NPU_LAYOUT_PLAIN) {
			snprintf(why, len, "output %u: %zu bytes for %zu elements",
				 i, b ? blen : 0, d->count);
			free(b);
			goto out;
		}
		got = (const uint8_t *)slots[d->slot].base + d->offset;
		for (k = 0; k < blen && got[k] == b[k]; k++)
			;
		if (k < blen) {
			snprintf(why, len, "output %u differs at element %zu: %u, expected %u",
				 i, k, got[k], b[k]);
			free(b);
			goto out;
		}
		free(b);
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(slots[i].base);
	return ret;
}

/* the "io" and "layers" lines of case @name */
static int check_meta(FILE *cases, const char *name, const uint8_t *f,
		      size_t size, struct npu_model *m, char *why, size_t len)
{
	char line[8192], cname[256], dirn[8];
	unsigned int k;
	float scale;
	int zp;
	long pos = ftell(cases);

	rewind(cases);
	while (fgets(line, sizeof(line), cases)) {
		if (sscanf(line, "io %255s %7s %u %f %d", cname, dirn, &k, &scale,
			   &zp) == 5 && !strcmp(cname, name)) {
			const struct npu_tensor_desc *d = dirn[0] == 'i' ?
				npu_model_input(m, k) : npu_model_output(m, k);

			if (!d || d->scale != scale || d->zero_point != zp) {
				snprintf(why, len, "%s %u: scale %g zero point %d, expected %g %d",
					 dirn, k, d ? d->scale : 0.0,
					 d ? d->zero_point : -1, scale, zp);
				fseek(cases, pos, SEEK_SET);
				return -1;
			}
		}
		if (sscanf(line, "scratch %255s %u", cname, &k) == 2 &&
		    !strcmp(cname, name)) {
			unsigned int i;
			uint32_t kind;
			size_t sz;

			for (i = 0; i < npu_model_num_slots(m); i++) {
				npu_model_slot(m, i, &kind, &sz);
				if (kind == NPU_MODEL_SLOT_SCRATCH && sz > k) {
					snprintf(why, len, "scratch slot of %zu bytes, at most %u expected",
						 sz, k);
					fseek(cases, pos, SEEK_SET);
					return -1;
				}
			}
		}
		if (sscanf(line, "lshape %255s %u", cname, &k) == 2 &&
		    !strcmp(cname, name) &&
		    check_lshape(f, size, line, why, len)) {
			fseek(cases, pos, SEEK_SET);
			return -1;
		}
		if (sscanf(line, "layers %255s", cname) == 1 &&
		    !strcmp(cname, name)) {
			const char *l = line + strlen("layers ") + strlen(name) + 1;

			if (check_layers(f, size, l, why, len)) {
				fseek(cases, pos, SEEK_SET);
				return -1;
			}
		}
	}
	fseek(cases, pos, SEEK_SET);
	return 0;
}

TEST(onnx_compile)
{
	char cmd[2048], line[8192], name[256], why[1200], msg[512];
	struct run r = { 0 };
	FILE *cases;
	int rc, want;

	mkdir(CASES_DIR, 0755);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s", GEN_SCRIPT,
		 CASES_DIR);
	rc = system(cmd);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 4)
		SKIP(return, "python3-onnx or numpy is missing");
	ASSERT_EQ(0, rc);
	snprintf(cmd, sizeof(cmd), "%s/cases.txt", CASES_DIR);
	cases = fopen(cmd, "r");
	ASSERT_NE(NULL, cases);
	while (fgets(line, sizeof(line), cases)) {
		uint8_t *buf, *file = NULL;
		size_t len, size = 0;
		struct npu_model *m = NULL;
		bool ok = !strncmp(line, "ok ", 3);
		const void *table = NULL;
		size_t tsize = 0;
		char text[400] = "";

		if (!ok && strncmp(line, "err ", 4))
			continue;
		if (ok)
			sscanf(line, "ok %255s", name);
		else
			sscanf(line, "err %255s %d %399[^\n]", name, &want, text);
		buf = slurp(CASES_DIR, name, ".onnx", &len);
		ASSERT_NE(NULL, buf);
		rc = onnx_import(buf, len, NULL, &file, &size, msg, sizeof(msg));
		free(buf);
		why[0] = 0;
		if (ok) {
			if (rc)
				snprintf(why, sizeof(why), "onnx_import: %d %s", rc, msg);
			else if (npu_model_load_mem(file, size, &m, msg, sizeof(msg)))
				snprintf(why, sizeof(why), "load: %s", msg);
			else if (npu_model_layers(m, &table, &tsize) ||
				 table_layers(table) != table_layers(layers_of(file, size)))
				snprintf(why, sizeof(why), "no layer table");
			else if (!check_meta(cases, name, file, size, m, why,
					     sizeof(why)))
				run_model(CASES_DIR, name, m, why, sizeof(why));
			r.oks++;
		} else {
			if (rc != -want)
				snprintf(why, sizeof(why), "returned %d (%s), expected %d",
					 rc, msg, -want);
			else if (!strstr(msg, text))
				snprintf(why, sizeof(why), "message '%s' lacks '%s'",
					 msg, text);
			else if (file)
				snprintf(why, sizeof(why), "a file on failure");
			r.errs++;
		}
		if (why[0]) {
			r.fails++;
			printf("# FAIL %s: %s\n", name, why);
		} else {
			printf("# ok %s%s%s\n", name, ok ? "" : ": ", ok ? "" : msg);
		}
		fflush(stdout);
		{
		}
		npu_model_free(m);
		free(file);
	}
	fclose(cases);
	printf("# %d compiled and run, %d refused or malformed, %d failed\n",
	       r.oks, r.errs, r.fails);
	fflush(stdout);
	EXPECT_EQ(0, r.fails);
	EXPECT_LT(40, r.oks + r.errs);
}

/* run npu-onnx with @args in CASES_DIR; its exit status, output in @out */
static int run_cli(const char *args, char *out, size_t len)
{
	char cmd[2048];
	size_t n = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "cd %s && %s %s 2>&1", CASES_DIR, NPU_ONNX,
		 args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n + 1 < len && fgets(out + n, (int)(len - n), p))
		n += strlen(out + n);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static struct npu_model *load(const char *file)
{
	char path[1024], err[256];
	struct npu_model *m = NULL;

	snprintf(path, sizeof(path), "%s/%s", CASES_DIR, file);
	if (npu_model_load(path, &m, err, sizeof(err)))
		printf("# %s\n", err);
	return m;
}

TEST(command_line)
{
	char out[8192];
	struct npu_model *m;

	/* the models come from the first test's run of gen_cases.py */
	if (access(CASES_DIR "/cli_bind.onnx", R_OK))
		SKIP(return, "no generated models (python3-onnx missing?)");
	ASSERT_EQ(0, run_cli("--help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "EXIT STATUS"));
	EXPECT_NE(NULL, strstr(out, "EXAMPLES"));
	EXPECT_EQ(2, run_cli("", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "missing MODEL.onnx"));
	EXPECT_EQ(2, run_cli("--bogus x.onnx", out, sizeof(out)));
	EXPECT_EQ(2, run_cli("--bind x_s cli_bind.onnx", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "expected NAME=FILE.pb"));
	EXPECT_EQ(2, run_cli("a.onnx b.onnx", out, sizeof(out)));
	EXPECT_EQ(2, run_cli("--check -o x.nmdl qdq_conv_relu.onnx", out, sizeof(out)));

	EXPECT_EQ(0, run_cli("--check qdq_conv_relu.onnx", out, sizeof(out)));
	EXPECT_STREQ("ok\n", out);
	EXPECT_EQ(3, run_cli("--check refuse_float_conv.onnx", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "node 'conv' (Conv): float-only path"));
	EXPECT_EQ(1, run_cli("--check bad_truncated.onnx", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "truncated or malformed"));
	EXPECT_EQ(1, run_cli("--check no-such-file.onnx", out, sizeof(out)));
	EXPECT_EQ(1, run_cli("--check bad_too_many_ops.onnx", out, sizeof(out)));

	/* names: --name, else the graph's, else the file's stem */
	unlink(CASES_DIR "/named.nmdl");
	ASSERT_EQ(0, run_cli("-o named.nmdl --name custom qdq_gemm_kn.onnx", out,
			 sizeof(out)));
	m = load("named.nmdl");
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("custom", npu_model_name(m));
	npu_model_free(m);
	ASSERT_EQ(0, run_cli("-o graph.nmdl qdq_gemm_kn.onnx", out, sizeof(out)));
	m = load("graph.nmdl");
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("qdq_gemm_kn", npu_model_name(m));
	npu_model_free(m);
	unlink(CASES_DIR "/cli_noname.nmdl");
	ASSERT_EQ(0, run_cli("cli_noname.onnx", out, sizeof(out)));
	m = load("cli_noname.nmdl");
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("cli_noname", npu_model_name(m));
	npu_model_free(m);

	/* I/O names: cut to 15 bytes and made unique */
	ASSERT_EQ(0, run_cli("-o long.nmdl cli_longnames.onnx", out, sizeof(out)));
	m = load("long.nmdl");
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("a_very_long_inp", npu_model_input(m, 0)->name);
	EXPECT_STREQ("a_very_long_i~1", npu_model_input(m, 1)->name);
	EXPECT_STREQ("y", npu_model_output(m, 0)->name);
	npu_model_free(m);

	/* --bind: scales and zero points from TensorProto files */
	EXPECT_EQ(3, run_cli("--check cli_bind.onnx", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "the scale 'x_s' is not a constant"));
	EXPECT_EQ(1, run_cli("--check --bind nope=cli_bind_s.pb cli_bind.onnx", out,
			 sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "the graph has no input 'nope'"));
	ASSERT_EQ(0, run_cli("-o bound.nmdl --bind x_s=cli_bind_s.pb --bind x_z=cli_bind_z.pb cli_bind.onnx",
			 out, sizeof(out)));
	m = load("bound.nmdl");
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0.25f, npu_model_input(m, 0)->scale);
	EXPECT_EQ(9, npu_model_input(m, 0)->zero_point);
	EXPECT_EQ(1, npu_model_num_inputs(m));
	npu_model_free(m);
}

struct job {
	const uint8_t *onnx, *want;
	size_t len, want_size;
	int differ;
};

static void *compile_many(void *arg)
{
	struct job *j = arg;
	uint8_t *file;
	size_t size;
	int i;

	for (i = 0; i < 8; i++) {
		if (onnx_import(j->onnx, j->len, NULL, &file, &size, NULL, 0)) {
			j->differ++;
			continue;
		}
		j->differ += size != j->want_size || memcmp(file, j->want, size);
		free(file);
	}
	return NULL;
}

/* the same bytes every time, from concurrent calls too (no global state) */
TEST(deterministic_and_reentrant)
{
	static const char *const names[] = { "qdq_mnist_like", "qdq_residual",
		"qop_conv_clip", "nhwc_concat" };
	struct job jobs[4];
	pthread_t th[4];
	uint8_t *onnx[4], *want[4];
	unsigned int i;

	if (access(CASES_DIR "/qdq_residual.onnx", R_OK))
		SKIP(return, "no generated models (python3-onnx missing?)");
	for (i = 0; i < 4; i++) {
		onnx[i] = slurp(CASES_DIR, names[i], ".onnx", &jobs[i].len);
		ASSERT_NE(NULL, onnx[i]);
		ASSERT_EQ(0, onnx_import(onnx[i], jobs[i].len, NULL, &want[i],
					 &jobs[i].want_size, NULL, 0));
		jobs[i].onnx = onnx[i];
		jobs[i].want = want[i];
		jobs[i].differ = 0;
	}
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, compile_many, &jobs[i]));
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, jobs[i].differ);
		free(onnx[i]);
		free(want[i]);
	}
}

TEST_HARNESS_MAIN
