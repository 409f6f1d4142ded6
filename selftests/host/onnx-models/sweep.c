// SPDX-License-Identifier: GPL-2.0-only
/*
 * sweep.c - every ONNX node test vector of Debian's libonnx-testdata
 * through the importer (tools/npu-onnx, onnx_import()).
 *
 * Each directory DATA/NAME/ (DATA: $NPU_ONNX_DATA or
 * /usr/share/libonnx-testdata/data/node) holding a model.onnx is compiled
 * with every graph input K that has a test_data_set_0/input_K.pb bound to
 * that value (the importer takes a bound value where it needs a constant;
 * an input a node uses as data stays a model input). Each vector is then
 *
 *   supported  onnx_import() returned 0; the model file must load
 *              (npu_model_load_mem()) and, run on the host reference
 *              (lib/npuref) with the vector's inputs, give its output_K.pb
 *              bit for bit; the CLI, npu-onnx --bind NAME=input_K.pb ...,
 *              must write the same bytes;
 *   refused    -EOPNOTSUPP or -E2BIG: grouped by the reason of the
 *              importer's message "node 'N' (Op): why";
 *   malformed  -EINVAL.
 *
 * The counts, the per-reason table and one line per vector are printed and
 * written to OUT/sweep.txt, the supported names to OUT/supported.txt (OUT:
 * $NPU_BUILD/onnx, else the build directory compiled in); every supported
 * vector is kept in OUT/vectors/NAME/ (model.nmdl, io.txt, the input and
 * output .pb files it uses) for the device runner in the VM
 * (selftests/onnx). The test fails when the supported set is not exactly
 * supported.txt next to this file (a regression, or a vector newly
 * supported: update the list), when a supported model does not load or
 * differs from its output_K.pb, when the importer fails otherwise, or
 * when a message breaks onnx_import.h's contract (a refusal that names
 * no node, an empty message or one of several lines).
 *
 * Locking: single-threaded. Lifetime: everything is freed per vector.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "onnx_import.h"
#include "onnxvec.h"

#define DATA_DIR	"/usr/share/libonnx-testdata/data/node"
#define MAX_VEC		4096
#define MAX_REASONS	256
#define MAX_BINDS	32	/* graph inputs bound, the first ones */

enum verdict { V_SUPPORTED, V_REFUSED, V_MALFORMED, V_ERROR };

static const char *const verdict_name[] = {
	"supported", "refused", "malformed", "error",
};

struct vec {
	char name[256];
	enum verdict v;
	char op[64];		/* op type named in the importer's message */
	char reason[160];	/* the reason's group */
	char msg[512];		/* the importer's message, or ours */
	bool bad;		/* supported, but wrong: see msg */
};

struct reason {
	char key[160];
	unsigned int n;
	char ops[512];
};

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "node 'NAME' (OpType): why: detail" -> op "OpType", reason "why": the
 * text after "): " (and after a quoted subject, "tensor 'x': ") up to the
 * first ':' or ';', with the op type, numbers (not those of a type name:
 * int64 stays) and quoted values replaced,
 * so that one cause is one group.
 */
static void split_reason(const char *msg, char *op, size_t oplen, char *key,
			 size_t keylen)
{
	const char *p = strstr(msg, "' ("), *q, *why = msg;
	size_t n = 0;

	snprintf(op, oplen, "?");
	q = p ? strstr(p, "): ") : NULL;
	if (q) {
		snprintf(op, oplen, "%.*s", (int)(q - p - 3), p + 3);
		why = q + 3;
	}
	/* "tensor 'x': why", "attribute 'a': why": the subject goes */
	while ((q = strstr(why, ": ")) && memchr(why, '\'', q - why))
		why = q + 2;
	for (p = why; *p && *p != ':' && *p != ';' && n + 6 < keylen; p++) {
		size_t ol = strlen(op);

		/* the op type named in the text: one group for all ops */
		if (ol > 1 && !strncmp(p, op, ol) && (p == why || p[-1] == ' ') &&
		    (p[ol] == ' ' || !p[ol])) {
			memcpy(key + n, "<op>", 4);
			n += 4;
			p += ol - 1;
		} else if (isdigit((unsigned char)*p)) {
			/* a type name's digits stay: int64, uint8 */
			bool type = p > why && isalpha((unsigned char)p[-1]);

			for (;;) {
				if (type)
					key[n++] = *p;
				if (!isdigit((unsigned char)p[1]) || n + 6 >= keylen)
					break;
				p++;
			}
			if (!type)
				key[n++] = 'N';
		} else if (*p == '\'' && strchr(p + 1, '\'')) {
			memcpy(key + n, "'*'", 3);
			n += 3;
			p = strchr(p + 1, '\'');
		} else {
			key[n++] = *p;
		}
	}
	while (n && key[n - 1] == ' ')
		n--;
	key[n] = '\0';
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static int mkdirs(const char *path)
{
	char tmp[4096], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	return mkdir(tmp, 0755) && errno != EEXIST ? -errno : 0;
}

static int copy_file(const char *from, const char *to)
{
	uint8_t *buf;
	size_t len;
	int ret = ov_slurp(from, &buf, &len);

	if (ret)
		return ret;
	ret = ov_write(to, buf, len);
	free(buf);
	return ret;
}

/* OUT/vectors/NAME: model.nmdl, io.txt and the .pb files of @p */
static int keep(const char *out, const char *data, const char *name,
		const uint8_t *file, size_t size, const struct ov_plan *p)
{
	char dir[4096], from[4096], to[4096];
	unsigned int i;
	int ret;

	snprintf(dir, sizeof(dir), "%s/vectors/%s", out, name);
	ret = mkdirs(dir);
	snprintf(to, sizeof(to), "%s/model.nmdl", dir);
	if (!ret)
		ret = ov_write(to, file, size);
	if (!ret)
		ret = ov_plan_write(dir, p);
	for (i = 0; !ret && i < p->n_in + p->n_out; i++) {
		bool in = i < p->n_in;
		unsigned int k = in ? p->in[i] : p->out[i - p->n_in];

		snprintf(from, sizeof(from), "%s/%s/test_data_set_0/%s_%u.pb",
			 data, name, in ? "input" : "output", k);
		snprintf(to, sizeof(to), "%s/%s_%u.pb", dir, in ? "input" : "output",
			 k);
		ret = copy_file(from, to);
	}
	return ret;
}

/*
 * A supported vector: the file must load, and npuref must give the
 * expected outputs bit for bit. Returns false (why in v->msg) otherwise.
 */
static bool verify(struct vec *v, const char *data, const char *out,
		   const uint8_t *onnx, size_t onnx_len, const uint8_t *file,
		   size_t size)
{
	uint8_t *in[OV_MAX_IO] = { NULL }, *res[OV_MAX_IO] = { NULL };
	char dir[4096], err[512];
	struct npu_model *m = NULL;
	struct ov_graph g;
	struct ov_plan p;
	int ret;

	ret = npu_model_load_mem(file, size, &m, err, sizeof(err));
	if (ret) {
		snprintf(v->msg, sizeof(v->msg), "the model file does not load: %s",
			 err);
		return false;
	}
	ret = ov_graph_io(onnx, onnx_len, &g);
	if (!ret) {
		ret = ov_plan_make(m, &g, &p, err, sizeof(err));
		ov_graph_free(&g);
	} else {
		snprintf(err, sizeof(err), "graph inputs: %s", strerror(-ret));
	}
	snprintf(dir, sizeof(dir), "%s/%s/test_data_set_0", data, v->name);
	if (!ret)
		ret = ov_plan_inputs(m, &p, dir, in, err, sizeof(err));
	if (!ret) {
		ret = ov_ref_run(m, in, res, err, sizeof(err));
		if (!ret)
			ret = ov_plan_check(m, &p, dir, res, err, sizeof(err));
		ov_bufs_free(in, p.n_in);
		ov_bufs_free(res, p.n_out);
	}
	if (!ret)
		ret = keep(out, data, v->name, file, size, &p);
	npu_model_free(m);
	if (ret)
		snprintf(v->msg, sizeof(v->msg), "%s", ret > 0 || ret == -EINVAL ||
			 ret == -EIO || ret == -ENOENT ? err : strerror(-ret));
	return !ret;
}

/*
 * The CLI with the same values bound (--bind NAME=FILE.pb) must write the
 * library's bytes. Returns false (why in v->msg) otherwise.
 */
static bool cli_same(struct vec *v, const char *data, const char *out,
		     const char *mname, const struct ov_graph *g,
		     const bool *bound, const uint8_t *file, size_t size)
{
	char bin[4096], model[4096], dst[4096], err[512];
	char binds[MAX_BINDS][4200];
	const char *argv[8 + 2 * MAX_BINDS];
	unsigned int k, a = 0, nb = 0;
	uint8_t *cli = NULL;
	size_t len = 0;
	int st;

	snprintf(bin, sizeof(bin), "%s/bin/npu-onnx",
		 env_or("NPU_BUILD", BUILD_DIR));
	snprintf(model, sizeof(model), "%s/%s/model.onnx", data, v->name);
	snprintf(dst, sizeof(dst), "%s/vectors/%s/cli.nmdl", out, v->name);
	argv[a++] = bin;
	argv[a++] = "-o";
	argv[a++] = dst;
	argv[a++] = "--name";
	argv[a++] = mname;
	for (k = 0; k < g->n_in && k < MAX_BINDS; k++) {
		if (!bound[k])
			continue;
		snprintf(binds[nb], sizeof(binds[nb]),
			 "%s=%s/%s/test_data_set_0/input_%u.pb", g->in[k], data,
			 v->name, k);
		argv[a++] = "--bind";
		argv[a++] = binds[nb++];
	}
	argv[a++] = model;
	argv[a] = NULL;
	st = ov_exec(argv, err, sizeof(err));
	if (st || ov_slurp(dst, &cli, &len)) {
		snprintf(v->msg, sizeof(v->msg), "npu-onnx --bind: status %d: %s",
			 st, err);
		return false;
	}
	unlink(dst);
	st = len == size && !memcmp(cli, file, size);
	free(cli);
	if (!st)
		snprintf(v->msg, sizeof(v->msg),
			 "npu-onnx --bind wrote %zu bytes, other than onnx_import()'s %zu",
			 len, size);
	return st;
}

static void sweep_one(struct vec *v, const char *data, const char *out)
{
	struct onnx_bind binds[MAX_BINDS];
	uint8_t *pb[MAX_BINDS] = { NULL };
	struct onnx_import_opts o = { 0 };
	char path[4096], mname[32];
	uint8_t *onnx = NULL, *file = NULL;
	size_t onnx_len, size, len;
	struct ov_graph g = { 0 };
	bool bound[MAX_BINDS] = { false };
	unsigned int k, nb = 0;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/model.onnx", data, v->name);
	ret = ov_slurp(path, &onnx, &onnx_len);
	if (ret) {
		v->v = V_ERROR;
		snprintf(v->msg, sizeof(v->msg), "%s: %s", path, strerror(-ret));
		return;
	}
	/*
	 * bind every graph input that has a value; a sequence's or an
	 * optional's input_K.pb is no TensorProto
	 */
	if (!ov_graph_io(onnx, onnx_len, &g)) {
		for (k = 0; k < g.n_in && k < MAX_BINDS; k++) {
			if (!g.in_tensor[k])
				continue;
			snprintf(path, sizeof(path), "%s/%s/test_data_set_0/input_%u.pb",
				 data, v->name, k);
			if (ov_slurp(path, &pb[nb], &len))
				continue;
			bound[k] = true;
			binds[nb].name = g.in[k];
			binds[nb].pb = pb[nb];
			binds[nb].len = len;
			nb++;
		}
	}
	snprintf(mname, sizeof(mname), "%s", v->name);
	o.name = mname;
	o.binds = binds;
	o.n_binds = nb;
	v->msg[0] = '\0';
	ret = onnx_import(onnx, onnx_len, &o, &file, &size, v->msg,
			  sizeof(v->msg));
	switch (ret) {
	case 0:
		v->v = V_SUPPORTED;
		v->bad = !verify(v, data, out, onnx, onnx_len, file, size) ||
			 !cli_same(v, data, out, mname, &g, bound, file, size);
		free(file);
		break;
	case -EOPNOTSUPP:
	case -E2BIG:
		v->v = V_REFUSED;
		split_reason(v->msg, v->op, sizeof(v->op), v->reason,
			     sizeof(v->reason));
		if (ret == -E2BIG)
			snprintf(v->reason + strlen(v->reason),
				 sizeof(v->reason) - strlen(v->reason), " (E2BIG)");
		break;
	case -EINVAL:
		v->v = V_MALFORMED;
		break;
	default:
		v->v = V_ERROR;
		snprintf(v->msg + strlen(v->msg), sizeof(v->msg) - strlen(v->msg),
			 " [%s]", strerror(-ret));
	}
	for (k = 0; k < nb; k++)
		free(pb[k]);
	ov_graph_free(&g);
	free(onnx);
}

/* the expected supported names, one a line ('#' comments) */
static char **read_list(const char *path, unsigned int *n)
{
	char line[512], **l = calloc(MAX_VEC, sizeof(char *));
	FILE *f = fopen(path, "r");

	*n = 0;
	if (!f || !l) {
		if (f)
			fclose(f);
		free(l);
		return NULL;
	}
	while (fgets(line, sizeof(line), f) && *n < MAX_VEC) {
		line[strcspn(line, " \t\r\n#")] = '\0';
		if (line[0])
			l[(*n)++] = strdup(line);
	}
	fclose(f);
	qsort(l, *n, sizeof(*l), cmp_name);
	return l;
}

static bool in_list(char **l, unsigned int n, const char *name)
{
	return l && bsearch(&name, l, n, sizeof(*l), cmp_name);
}

static int cmp_reason(const void *a, const void *b)
{
	const struct reason *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void add_op(char *ops, size_t len, const char *op)
{
	char needle[80];
	size_t n = strlen(ops);

	snprintf(needle, sizeof(needle), " %s,", op);
	if (strstr(ops, needle) || n + strlen(needle) + 1 >= len)
		return;
	snprintf(ops + n, len - n, "%s", needle);
}

FIXTURE(sweep) {
	int unused;
};

FIXTURE_SETUP(sweep)
{
}

FIXTURE_TEARDOWN(sweep)
{
}

/* about a thousand imports and the npuref runs of the supported ones */
TEST_F_TIMEOUT(sweep, node_vectors, 600)
{
	const char *data = env_or("NPU_ONNX_DATA", DATA_DIR);
	char out[4096], path[4096], **names = NULL, **want;
	unsigned int i, j, n = 0, nwant, cnt[4] = { 0 }, nreasons = 0, bad = 0;
	unsigned int missing = 0, extra = 0, badmsg = 0;
	struct reason *reasons = calloc(MAX_REASONS, sizeof(*reasons));
	struct vec *v = calloc(MAX_VEC, sizeof(*v));
	struct dirent *de;
	FILE *rep, *sup;
	DIR *d;

	ASSERT_NE(NULL, v);
	ASSERT_NE(NULL, reasons);
	snprintf(out, sizeof(out), "%s/onnx", env_or("NPU_BUILD", BUILD_DIR));
	/* no report of an earlier run survives this one (the VM suite reads it) */
	snprintf(path, sizeof(path), "%s/sweep.txt", out);
	unlink(path);
	d = opendir(data);
	if (!d)
		SKIP(return, "%s: %s (package libonnx-testdata)", data,
		     strerror(errno));
	names = calloc(MAX_VEC, sizeof(char *));
	ASSERT_NE(NULL, names);
	while ((de = readdir(d)) && n < MAX_VEC) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s/model.onnx", data, de->d_name);
		if (de->d_name[0] != '.' && !stat(path, &st))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	ASSERT_LT(0, n) TH_LOG("no vectors in %s", data);
	qsort(names, n, sizeof(*names), cmp_name);

	snprintf(path, sizeof(path), "%s/vectors", out);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(0, mkdirs(path)) TH_LOG("%s: %s", path, strerror(errno));

	for (i = 0; i < n; i++) {
		snprintf(v[i].name, sizeof(v[i].name), "%s", names[i]);
		sweep_one(&v[i], data, out);
		cnt[v[i].v]++;
		bad += v[i].bad;
		if (v[i].v != V_REFUSED)
			continue;
		for (j = 0; j < nreasons && strcmp(reasons[j].key, v[i].reason); j++)
			;
		if (j == nreasons && nreasons < MAX_REASONS)
			snprintf(reasons[nreasons++].key, sizeof(reasons[0].key),
				 "%s", v[i].reason);
		if (j < nreasons) {
			reasons[j].n++;
			add_op(reasons[j].ops, sizeof(reasons[j].ops), v[i].op);
		}
	}
	qsort(reasons, nreasons, sizeof(*reasons), cmp_reason);

	/* the report: on stdout as TAP comments, and in OUT/sweep.txt */
	snprintf(path, sizeof(path), "%s/sweep.txt", out);
	rep = fopen(path, "w");
	ASSERT_NE(NULL, rep) TH_LOG("%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/supported.txt", out);
	sup = fopen(path, "w");
	ASSERT_NE(NULL, sup) TH_LOG("%s: %s", path, strerror(errno));
	for (int pass = 0; pass < 2; pass++) {
		FILE *f = pass ? rep : stdout;
		const char *c = pass ? "" : "# ";

		fprintf(f, "%sONNX node vectors of %s: %u\n", c, data, n);
		fprintf(f, "%ssupported %u (bit-exact on npuref: %u), refused %u, malformed %u, error %u\n",
			c, cnt[V_SUPPORTED], cnt[V_SUPPORTED] - bad,
			cnt[V_REFUSED], cnt[V_MALFORMED], cnt[V_ERROR]);
		fprintf(f, "%srefused, by reason:\n", c);
		for (j = 0; j < nreasons; j++)
			fprintf(f, "%s%5u  %s  [%s ]\n", c, reasons[j].n,
				reasons[j].key, reasons[j].ops);
		if (!pass)
			continue;
		fprintf(f, "\nper vector:\n");
		for (i = 0; i < n; i++)
			fprintf(f, "%-60s %-9s %s%s\n", v[i].name,
				verdict_name[v[i].v], v[i].bad ? "WRONG: " : "",
				v[i].msg);
	}
	for (i = 0; i < n; i++)
		if (v[i].v == V_SUPPORTED)
			fprintf(sup, "%s\n", v[i].name);
	fclose(rep);
	fclose(sup);

	/* the supported set is exactly the expected list */
	snprintf(path, sizeof(path), "%s/supported.txt",
		 env_or("NPU_ONNX_EXPECTED_DIR", SRC_DIR));
	want = read_list(path, &nwant);
	ASSERT_NE(NULL, want) TH_LOG("%s: %s", path, strerror(errno));
	for (i = 0; i < n; i++) {
		bool exp = in_list(want, nwant, v[i].name);

		if (exp && v[i].v != V_SUPPORTED) {
			missing++;
			TH_LOG("%s: expected supported, now %s: %s", v[i].name,
			       verdict_name[v[i].v], v[i].msg);
		} else if (!exp && v[i].v == V_SUPPORTED) {
			extra++;
			TH_LOG("%s: supported but not in %s (add it)", v[i].name,
			       path);
		}
		if (v[i].bad)
			TH_LOG("%s: WRONG: %s", v[i].name, v[i].msg);
		if (v[i].v == V_ERROR)
			TH_LOG("%s: importer error: %s", v[i].name, v[i].msg);
		/* onnx_import.h: a refusal is "node 'NAME' (OpType): why" */
		if (v[i].v == V_REFUSED && strncmp(v[i].msg, "node '", 6) &&
		    !strstr(v[i].reason, "(E2BIG)")) {
			badmsg++;
			TH_LOG("%s: refusal names no node: %s", v[i].name,
			       v[i].msg);
		}
		if (v[i].v != V_SUPPORTED && (!v[i].msg[0] ||
					      strchr(v[i].msg, '\n'))) {
			badmsg++;
			TH_LOG("%s: not a one-line message: '%s'", v[i].name,
			       v[i].msg);
		}
	}
	for (i = 0; i < nwant; i++) {
		for (j = 0; j < n && strcmp(want[i], v[j].name); j++)
			;
		if (j == n) {
			missing++;
			TH_LOG("%s: in %s but not in %s", want[i], path, data);
		}
	}
	EXPECT_EQ(0u, missing);
	EXPECT_EQ(0u, extra);
	EXPECT_EQ(0u, bad);
	EXPECT_EQ(0u, cnt[V_ERROR]);
	EXPECT_EQ(0u, badmsg);
	for (i = 0; i < nwant; i++)
		free(want[i]);
	free(want);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(reasons);
	free(v);
}

TEST_HARNESS_MAIN
