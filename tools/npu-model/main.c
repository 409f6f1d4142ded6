// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-model-gen - write a deterministic quantized network as an NPU model
 * file (Documentation/npu/model.rst).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libnpu.h"
#include "modelgen.h"

#define DEFAULT_SEED 1

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npu-model-gen [-o FILE] [--seed N] NETWORK\n"
		"       npu-model-gen --list | --help\n"
		"\n"
		"Builds NETWORK with fixed-seed PRNG weights and calibrated uint8\n"
		"quantization, and writes it as an NPU model file.\n"
		"\n"
		"  -o, --output FILE  output file (default: NETWORK.nmdl)\n"
		"  -s, --seed N       PRNG seed (default %d); same seed, same bytes\n"
		"  -l, --list         list the networks\n"
		"  -h, --help         this text\n", DEFAULT_SEED);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	unsigned long long seed = DEFAULT_SEED;
	char err[256], path[512], *end;
	struct npu_model *model;
	uint8_t *file;
	size_t size, n, i;
	FILE *f;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:s:lh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg) {
				fprintf(stderr, "npu-model-gen: bad seed '%s'\n", optarg);
				return 2;
			}
			break;
		case 'l': {
			const struct mg_net *nets = mg_nets(&n);

			for (i = 0; i < n; i++)
				printf("%-14s %s\n", nets[i].name, nets[i].desc);
			return 0;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	ret = mg_build(argv[optind], seed, &file, &size, err, sizeof(err));
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
	if (!out) {
		snprintf(path, sizeof(path), "%s.nmdl", argv[optind]);
		out = path;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(file, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "npu-model-gen: %s: %s\n", out, strerror(errno));
		free(file);
		return 1;
	}
	free(file);
	return 0;
}
