// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-onnx - compile an int8 ONNX model into an NPU model file
 * (Documentation/npu/onnx.rst). The importer is onnx_import.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npu_cli.h"
#include "onnx_import.h"

#define PROG		"npu-onnx"
#define MAX_BINDS	64
#define MAX_INPUT	(2ull << 30)	/* bytes of an ONNX file we read */
/* a usage error: message, exit status 2, what was read is freed */
#define USAGE(...)							\
	do {								\
		status = npu_cli_usage_error(PROG, __VA_ARGS__);	\
		goto out;						\
	} while (0)

static const char usage_text[] =
"NAME\n"
"    npu-onnx - compile an int8 ONNX model into an NPU model file\n"
"\n"
"SYNOPSIS\n"
"    npu-onnx [-o OUT.nmdl] [--name NAME] [--bind NAME=FILE.pb]... MODEL.onnx\n"
"    npu-onnx --check [--bind NAME=FILE.pb]... MODEL.onnx\n"
"    npu-onnx -h\n"
"\n"
"DESCRIPTION\n"
"    Reads a quantized ONNX model in the QOperator format (QLinearConv,\n"
"    QLinearMatMul, QuantizeLinear/DequantizeLinear at the edges) or the\n"
"    QDQ format (QuantizeLinear/DequantizeLinear pairs around Conv,\n"
"    MatMul, Gemm, Add and the pools) and writes an NPU model file\n"
"    (Documentation/npu/model.rst) with a layer table that names every\n"
"    device operator after its ONNX node. Model inputs and outputs keep\n"
"    the ONNX dims (NCHW); a QuantizeLinear at an input and a\n"
"    DequantizeLinear at an output become the model's host-side\n"
"    quantization. A node the NPU cannot run exactly is refused with\n"
"    \"node 'NAME' (OpType): why\"; the tool never writes an\n"
"    approximation. Documentation/npu/onnx.rst lists the supported\n"
"    operators and every refusal. The file is checked with libnpu's\n"
"    full model validation before it is written.\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Output file. Default: the stem of MODEL.onnx with .nmdl, in the\n"
"        current directory. A regular file that cannot be written\n"
"        completely is removed.\n"
"    -n, --name NAME\n"
"        Model name stored in the file (printable ASCII, cut to 31\n"
"        characters). Default: the graph's name, else the file's stem.\n"
"    -b, --bind NAME=FILE.pb\n"
"        Give graph input NAME the value of FILE.pb, a serialized\n"
"        onnx.TensorProto (as in ONNX's test data). The value is used\n"
"        where the compiler needs a constant (weights, scales, zero\n"
"        points, shapes, pads); an input a node reads as data stays a\n"
"        model input. Up to 64 times.\n"
"    -c, --check\n"
"        Compile, write nothing, print \"ok\" (or the error on stderr).\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   The model was written (or --check found it supported).\n"
"    1   A malformed ONNX file, a limit of the model format exceeded,\n"
"        out of memory, or an I/O error.\n"
"    2   A usage error: bad or missing option or MODEL.\n"
"    3   The model is refused: an operator, attribute or data type the\n"
"        NPU does not support (the message names the node).\n"
"\n"
"EXAMPLES\n"
"    npu-onnx -o mnist.nmdl mnist-qdq.onnx\n"
"    npu-onnx --check mobilenet.onnx\n"
"    npu-onnx --bind y_scale=input_1.pb --bind y_zero_point=input_2.pb \\\n"
"        -o q.nmdl model.onnx\n";

/* the whole file at @path in a malloc()ed buffer; -errno */
static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *b;
	int ret = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fclose(f);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > MAX_INPUT) {
		fclose(f);
		return -EFBIG;
	}
	b = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b) {
		fclose(f);
		return -ENOMEM;
	}
	if (fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		ret = ferror(f) ? -EIO : -EAGAIN;
	fclose(f);
	if (ret) {
		free(b);
		return ret == -EAGAIN ? -EIO : ret;
	}
	*buf = b;
	*len = (size_t)st.st_size;
	return 0;
}

/* "dir/model.onnx" -> "model" */
static void stem(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	const char *dot;
	size_t n;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	snprintf(out, len, "%.*s", (int)n, b);
}

static int write_file(const char *out, const uint8_t *file, size_t size)
{
	struct stat st;
	bool regular;
	FILE *f;
	int ret;

	f = fopen(out, "wb");
	if (!f)
		return errno;
	/* a partial regular file is removed; never a device or a pipe */
	regular = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	ret = fwrite(file, 1, size, f) == size ? 0 : (errno ? errno : EIO);
	if (fclose(f) && !ret)
		ret = errno ? errno : EIO;
	if (ret && regular)
		unlink(out);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'n' },
		{ "bind", required_argument, NULL, 'b' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct onnx_bind binds[MAX_BINDS];
	char *bind_names[MAX_BINDS];
	struct onnx_import_opts opts = { 0 };
	const char *out = NULL, *name = NULL, *model;
	char err[512], path[512], gname[64], sname[64];
	uint8_t *buf = NULL, *file = NULL;
	unsigned int nb = 0, i;
	size_t len, size;
	bool check = false;
	int c, ret, status = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:n:b:ch", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				USAGE("--output: empty file name");
			out = optarg;
			break;
		case 'n':
			if (!*optarg)
				USAGE("--name: empty name");
			name = optarg;
			break;
		case 'b': {
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1])
				USAGE("--bind: expected NAME=FILE.pb, got '%s'",
							   optarg);
			if (nb == MAX_BINDS)
				USAGE("--bind: more than %d values",
							   MAX_BINDS);
			bind_names[nb] = strndup(optarg, (size_t)(eq - optarg));
			if (!bind_names[nb]) {
				fprintf(stderr, PROG ": out of memory\n");
				status = 1;
				goto out;
			}
			ret = read_file(eq + 1, (uint8_t **)&binds[nb].pb,
					&binds[nb].len);
			binds[nb].name = bind_names[nb];
			if (ret) {
				fprintf(stderr, PROG ": %s: %s\n", eq + 1,
					strerror(-ret));
				free(bind_names[nb]);
				status = 1;
				goto out;
			}
			nb++;
			break;
		}
		case 'c':
			check = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			goto out;
		case ':':
			USAGE("option '%s' needs a value",
						   argv[optind - 1]);
		default:
			USAGE("unknown option '%s'",
						   argv[optind - 1]);
		}
	}
	if (optind == argc)
		USAGE("missing MODEL.onnx");
	if (optind < argc - 1)
		USAGE("unexpected argument '%s'",
					   argv[optind + 1]);
	if (check && out)
		USAGE("--check writes nothing: no --output");
	model = argv[optind];
	ret = read_file(model, &buf, &len);
	if (ret) {
		fprintf(stderr, PROG ": %s: %s\n", model,
			ret == -EINVAL ? "not a regular file" : strerror(-ret));
		status = 1;
		goto out;
	}
	stem(model, sname, sizeof(sname));
	if (!name && (onnx_graph_name(buf, len, gname, sizeof(gname)) ||
		      !gname[0]))
		name = sname[0] ? sname : NULL;
	opts.name = name;
	opts.binds = binds;
	opts.n_binds = nb;
	ret = onnx_import(buf, len, &opts, &file, &size, err, sizeof(err));
	if (ret) {
		fprintf(stderr, PROG ": %s: %s\n", model,
			err[0] ? err : strerror(-ret));
		status = ret == -EOPNOTSUPP ? 3 : 1;
		goto out;
	}
	if (check) {
		printf("ok\n");
		goto out;
	}
	if (!out) {
		snprintf(path, sizeof(path), "%s.nmdl", sname[0] ? sname : "model");
		out = path;
	}
	ret = write_file(out, file, size);
	if (ret) {
		fprintf(stderr, PROG ": %s: %s\n", out, strerror(ret));
		status = 1;
	}
out:
	free(buf);
	free(file);
	for (i = 0; i < nb; i++) {
		free((void *)binds[i].pb);
		free(bind_names[i]);
	}
	return status;
}
