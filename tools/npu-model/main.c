// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-model-gen - write a deterministic quantized network as an NPU model
 * file (Documentation/npu/model.rst).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libnpu.h"
#include "npu_cli.h"
#include "modelgen.h"

#define DEFAULT_SEED 1

static const char usage_text[] =
"NAME\n"
"    npu-model-gen - write a deterministic quantized network as an NPU\n"
"    model file\n"
"\n"
"SYNOPSIS\n"
"    npu-model-gen [-o FILE] [-s SEED] NETWORK\n"
"    npu-model-gen --params-out DIR [-o FILE] [-s SEED] NETWORK\n"
"    npu-model-gen -l | -h\n"
"\n"
"DESCRIPTION\n"
"    Builds NETWORK (one of --list) with weights from a fixed-seed PRNG,\n"
"    calibrates the uint8 quantization of every activation with a float\n"
"    forward pass over PRNG inputs, and writes the result as an NPU model\n"
"    file (Documentation/npu/model.rst). The same NETWORK and SEED give\n"
"    the same bytes on every host. The file is checked with libnpu's full\n"
"    model validation before it is written. It has a layer table that\n"
"    names every operator after its layer (conv1, conv_dw_1, fc, ...).\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Output file. Default NETWORK.nmdl in the current directory. A\n"
"        regular file that cannot be written completely is removed.\n"
"    -p, --params-out DIR\n"
"        Dump the network as built into DIR (created if missing):\n"
"        DIR/params.json (layers, shapes, quantization scales and zero\n"
"        points, activation ranges) and one raw little-endian file per\n"
"        weight and bias tensor, enough to rebuild the network as ONNX\n"
"        with bit-identical quantization (Documentation/npu/model.rst,\n"
"        \"Parameters dump\"). The model file is then written only with\n"
"        --output.\n"
"    -s, --seed SEED\n"
"        PRNG seed, 0 to 2^64-1, decimal or 0x-prefixed hex. Default 1.\n"
"    -l, --list\n"
"        List the networks, one per line with a description, and exit.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   The model (or the parameters) was written (or --list, --help).\n"
"    1   A runtime error: out of memory, the output or DIR cannot be\n"
"        written.\n"
"    2   A usage error: bad or missing option or NETWORK.\n"
"\n"
"EXAMPLES\n"
"    npu-model-gen --list\n"
"    npu-model-gen -o build/models/mnist.nmdl mnist\n"
"    npu-model-gen --seed 7 -o /tmp/mobilenet.nmdl mobilenet-v1\n"
"    npu-model-gen --params-out /tmp/mnist-params mnist\n";

static bool known_net(const char *name)
{
	const struct mg_net *nets;
	size_t n, i;

	nets = mg_nets(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(nets[i].name, name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "params-out", required_argument, NULL, 'p' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *params = NULL;
	uint64_t seed = DEFAULT_SEED;
	char err[256], path[512];
	struct npu_model *model;
	uint8_t *file;
	size_t size, n, i;
	struct stat st;
	bool regular;
	FILE *f;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:s:p:lh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return npu_cli_usage_error("npu-model-gen", "--output: empty file name");
			out = optarg;
			break;
		case 'p':
			if (!*optarg)
				return npu_cli_usage_error("npu-model-gen", "--params-out: empty directory name");
			params = optarg;
			break;
		case 's':
			if (npu_cli_parse_u64(optarg, 0, UINT64_MAX, &seed))
				return npu_cli_usage_error("npu-model-gen", "--seed: invalid value '%s': expected 0..2^64-1",
						   optarg);
			break;
		case 'l': {
			const struct mg_net *nets = mg_nets(&n);

			for (i = 0; i < n; i++)
				printf("%-14s %s\n", nets[i].name, nets[i].desc);
			return 0;
		}
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case ':':
			return npu_cli_usage_error("npu-model-gen", "option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return npu_cli_usage_error("npu-model-gen", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind == argc)
		return npu_cli_usage_error("npu-model-gen", "missing NETWORK (see --list)");
	if (optind < argc - 1)
		return npu_cli_usage_error("npu-model-gen", "unexpected argument '%s'", argv[optind + 1]);
	if (!known_net(argv[optind]))
		return npu_cli_usage_error("npu-model-gen", "unknown network '%s' (see --list)",
				   argv[optind]);
	ret = mg_build_params(argv[optind], seed, params, &file, &size, err,
			      sizeof(err));
	if (ret) {
		fprintf(stderr, "npu-model-gen: %s\n", err[0] ? err : strerror(-ret));
		return 1;
	}
	/* the generator's output must pass the runtime's full validation */
	ret = npu_model_load_mem(file, size, &model, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "npu-model-gen: internal error, invalid model: %s\n",
			err);
		free(file);
		return 1;
	}
	npu_model_free(model);
	if (params && !out) {
		free(file);
		return 0;
	}
	if (!out) {
		snprintf(path, sizeof(path), "%s.nmdl", argv[optind]);
		out = path;
	}
	f = fopen(out, "wb");
	if (!f) {
		fprintf(stderr, "npu-model-gen: %s: %s\n", out, strerror(errno));
		free(file);
		return 1;
	}
	/* a partial regular file is removed; never a device or a pipe */
	regular = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	ret = fwrite(file, 1, size, f) == size ? 0 : (errno ? errno : EIO);
	if (fclose(f) && !ret)
		ret = errno ? errno : EIO;
	free(file);
	if (ret) {
		if (regular)
			unlink(out);
		fprintf(stderr, "npu-model-gen: %s: %s\n", out, strerror(ret));
		return 1;
	}
	return 0;
}
