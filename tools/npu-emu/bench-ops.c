// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-ops - throughput of the NPU's operators on MobileNet-like shapes.
 *
 * Each case is a one-operator program run through emu_prog_run() (so it
 * includes validation, weight packing and requantization) on NCHWC16
 * activations with random data; it prints GMAC/s per second of the
 * thread's CPU time (so other load on the machine does not skew it). --mobilenet runs a whole
 * MobileNet-v1 224x224 program (random weights) and prints inferences/s.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npu_cli.h"
#include "ops.h"
#include "program.h"
#include "npu_progbuild.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fill_random(uint8_t *p, uint64_t n, unsigned int *seed)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rand_r(seed);
}

/* per-channel table with factors around 1/2^10 */
static uint16_t rand_rq(struct progbuild *b, uint32_t c, unsigned int *seed)
{
	int32_t *pairs = malloc(8ull * c);
	uint16_t r;
	uint32_t i;

	if (!pairs) {
		fprintf(stderr, "bench-ops: out of memory\n");
		exit(1);
	}
	for (i = 0; i < c; i++) {
		pairs[2 * i] = (1 << 30) + (rand_r(seed) & 0x3fffffff);
		pairs[2 * i + 1] = -10;
	}
	r = progbuild_rq(b, c, pairs);
	free(pairs);
	return r;
}

static uint16_t rand_bias(struct progbuild *b, uint32_t c, unsigned int *seed)
{
	int32_t *v = malloc(4ull * c);
	uint16_t r;
	uint32_t i;

	if (!v) {
		fprintf(stderr, "bench-ops: out of memory\n");
		exit(1);
	}
	for (i = 0; i < c; i++)
		v[i] = rand_r(seed) % 20001 - 10000;
	r = progbuild_bias(b, c, v);
	free(v);
	return r;
}

/* add a conv/dwconv layer on @x; returns the output tensor */
static uint16_t add_conv(struct progbuild *b, uint16_t x, bool dw, uint32_t cout,
			 uint32_t k, uint32_t s, unsigned int *seed)
{
	const struct npu_prog_tensor *xt = &b->t[x];
	uint32_t n = xt->dims[0], h = xt->dims[1], w = xt->dims[2];
	uint32_t c = xt->dims[3], p = k / 2, oh, ow;
	uint16_t wt, bias, rq, y;

	if (dw)
		cout = c;
	oh = (h + 2 * p - k) / s + 1;
	ow = (w + 2 * p - k) / s + 1;
	wt = progbuild_tensor(b, 2, NPU_DT_I8, NPU_LAYOUT_PLAIN, 4, dw ? 1 : cout,
		       k, k, c, 0);
	fill_random(progbuild_data(b, wt), progbuild_bytes(&b->t[wt]), seed);
	bias = rand_bias(b, cout, seed);
	rq = rand_rq(b, cout, seed);
	y = progbuild_tensor(b, 1, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 4, n, oh, ow, cout,
		      3);
	progbuild_conv_op(b, dw ? NPU_OP_DWCONV2D : NPU_OP_CONV2D, x, wt, bias, y,
		   rq, (uint8_t)s, (uint8_t)p)->act_min = 3;
	return y;
}

static uint16_t add_fc(struct progbuild *b, uint16_t x, uint32_t nout,
		       unsigned int *seed)
{
	uint32_t k = b->t[x].dims[1];
	uint16_t wt, bias, rq, y;

	wt = progbuild_tensor(b, 2, NPU_DT_I8, NPU_LAYOUT_PLAIN, 2, nout, k, 1, 1, 0);
	fill_random(progbuild_data(b, wt), progbuild_bytes(&b->t[wt]), seed);
	bias = rand_bias(b, nout, seed);
	rq = rand_rq(b, nout, seed);
	y = progbuild_tensor(b, 1, NPU_DT_U8, NPU_LAYOUT_PLAIN, 2, 1, nout, 1, 1, 7);
	progbuild_op(b, NPU_OP_FC, x, wt, bias, y, rq, 0, 255);
	return y;
}

struct macs_hook {
	uint64_t macs;
};

static void count_end(void *arg, uint32_t i, const struct npu_prog_op *op,
		      const struct emu_op_cost *cost)
{
	(void)i;
	(void)op;
	((struct macs_hook *)arg)->macs += cost->macs;
}

/* run @b repeatedly for at least @secs; returns runs/s, sets MACs/run */
static double time_prog(struct progbuild *b, double secs, uint64_t *macs)
{
	struct macs_hook mh = { 0 };
	struct emu_prog_hooks hooks = { .arg = &mh, .op_end = count_end };
	double t0, t;
	uint16_t idx;
	long runs = 0;
	int st;

	st = progbuild_run(b, &hooks, &idx);
	if (st != NPU_HW_STATUS_OK) {
		fprintf(stderr, "bench-ops: program failed: status %d op %u\n",
			st, idx);
		exit(1);
	}
	*macs = mh.macs;
	t0 = now();
	do {
		progbuild_run_at(b, 0, 0, b->prog_size, NULL,
			     &idx);
		runs++;
		t = now() - t0;
	} while (t < secs);
	return runs / t;
}

struct bcase {
	const char *name;
	uint32_t h, w, c, cout, k, s;
	bool dw, fc;
};

static const struct bcase cases[] = {
	{ "conv3x3 s2 224x224x3->32 (first layer)", 224, 224, 3, 32, 3, 2, false, false },
	{ "conv3x3 s1 28x28x128->128", 28, 28, 128, 128, 3, 1, false, false },
	{ "conv1x1 112x112x32->64", 112, 112, 32, 64, 1, 1, false, false },
	{ "conv1x1 56x56x128->128", 56, 56, 128, 128, 1, 1, false, false },
	{ "conv1x1 14x14x512->512", 14, 14, 512, 512, 1, 1, false, false },
	{ "conv1x1 7x7x1024->1024", 7, 7, 1024, 1024, 1, 1, false, false },
	{ "dwconv3x3 s1 112x112x32", 112, 112, 32, 0, 3, 1, true, false },
	{ "dwconv3x3 s1 56x56x128", 56, 56, 128, 0, 3, 1, true, false },
	{ "dwconv3x3 s2 28x28x256", 28, 28, 256, 0, 3, 2, true, false },
	{ "dwconv3x3 s1 14x14x512", 14, 14, 512, 0, 3, 1, true, false },
	{ "fc 1x1024->1000", 1, 1, 1024, 1000, 0, 0, false, true },
};

static int mobilenet(double secs)
{
	static const struct { uint32_t cout, s; } pw[13] = {
		{ 64, 1 }, { 128, 2 }, { 128, 1 }, { 256, 2 }, { 256, 1 },
		{ 512, 2 }, { 512, 1 }, { 512, 1 }, { 512, 1 }, { 512, 1 },
		{ 512, 1 }, { 1024, 2 }, { 1024, 1 },
	};
	unsigned int seed = 1;
	struct npu_prog_op *op;
	struct progbuild b;
	uint16_t x, y, r, f;
	uint64_t macs;
	double ips;
	int i;

	if (progbuild_init_slots(&b, 3, 32u << 20)) {
		fprintf(stderr, "bench-ops: out of memory\n");
		return 1;
	}
	x = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 4, 1, 224, 224, 3,
		      128);
	fill_random(progbuild_data(&b, x), progbuild_bytes(&b.t[x]), &seed);
	y = add_conv(&b, x, false, 32, 3, 2, &seed);
	for (i = 0; i < 13; i++) {
		y = add_conv(&b, y, true, 0, 3, pw[i].s, &seed);
		y = add_conv(&b, y, false, pw[i].cout, 1, 1, &seed);
	}
	x = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 4, 1, 1, 1, 1024,
		      3);
	op = progbuild_op(&b, NPU_OP_AVGPOOL, y, NPU_PROG_NONE, NPU_PROG_NONE, x, NPU_PROG_NONE, 0,
		   255);
	op->u.conv.kh = op->u.conv.kw = 7;
	op->u.conv.sh = op->u.conv.sw = 1;
	op->u.conv.dh = op->u.conv.dw = 1;
	r = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_PLAIN, 2, 1, 1024, 1, 1, 3);
	progbuild_op(&b, NPU_OP_RESHAPE, x, NPU_PROG_NONE, NPU_PROG_NONE, r, NPU_PROG_NONE, 0, 0);
	f = add_fc(&b, r, 1000, &seed);
	(void)f;
	ips = time_prog(&b, secs, &macs);
	printf("%-42s %8.3f GMAC/s  %7.2f inferences/s  (%.1f M MACs, %u ops)\n",
	       "mobilenet-v1 224x224 (whole program)", ips * macs / 1e9, ips,
	       macs / 1e6, b.nop);
	progbuild_free(&b);
	return 0;
}

static const char usage_text[] =
"NAME\n"
"    bench-ops - throughput of the emulated NPU's operators\n"
"\n"
"SYNOPSIS\n"
"    bench-ops [-t SECONDS] [-g] [-m] [-f TEXT]\n"
"    bench-ops -h\n"
"\n"
"DESCRIPTION\n"
"    Runs one-operator programs with MobileNet-like shapes (convolutions,\n"
"    depthwise convolutions, a fully connected layer) through the device\n"
"    model's program interpreter, emu_prog_run(), on NCHWC16 activations\n"
"    with random data, and prints the GMAC/s of each per second of the\n"
"    thread's CPU time, so that other load on the machine does not skew\n"
"    the figures. Each figure includes validation, weight packing and\n"
"    requantization. A benchmark, not a test: nothing is checked beyond\n"
"    the status of the programs.\n"
"\n"
"OPTIONS\n"
"    -t, --time SECONDS\n"
"        CPU time per case, more than 0 and less than 3600; may be\n"
"        fractional. Default 0.5.\n"
"    -g, --generic\n"
"        Use the generic (literal) operator paths only, not the fast ones.\n"
"    -m, --mobilenet\n"
"        Also run a whole MobileNet-v1 224x224 program (random weights) for\n"
"        4 x SECONDS and print inferences/s.\n"
"    -f, --filter TEXT\n"
"        Only the cases whose name contains TEXT; at least one must match.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   All cases ran.\n"
"    1   A program failed or memory ran out.\n"
"    2   A usage error: bad option, or no case matches --filter.\n"
"\n"
"EXAMPLES\n"
"    bench-ops -t 0.2\n"
"    bench-ops -f dwconv -g\n"
"    bench-ops -m -f fc\n";

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "time", required_argument, NULL, 't' },
		{ "generic", no_argument, NULL, 'g' },
		{ "mobilenet", no_argument, NULL, 'm' },
		{ "filter", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *filter = NULL;
	double secs = 0.5;
	bool mnet = false;
	unsigned int i;
	char *end;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":t:gmf:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			errno = 0;
			secs = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(secs > 0 && secs < 3600))
				return npu_cli_usage_error("bench-ops", "--time: invalid value '%s': want seconds in (0, 3600)",
						   optarg);
			break;
		case 'g':
			emu_ops_set_fast_path(false);
			break;
		case 'm':
			mnet = true;
			break;
		case 'f':
			filter = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case ':':
			return npu_cli_usage_error("bench-ops", "option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return npu_cli_usage_error("bench-ops", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind != argc)
		return npu_cli_usage_error("bench-ops", "unexpected argument '%s'", argv[optind]);
	for (i = 0; filter && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strstr(cases[i].name, filter))
			break;
	if (filter && i == sizeof(cases) / sizeof(cases[0]) && !mnet)
		return npu_cli_usage_error("bench-ops", "--filter: no case matches '%s'", filter);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bcase *c = &cases[i];
		unsigned int seed = i + 1;
		struct progbuild b;
		uint16_t x;
		uint64_t macs;
		double ips;

		if (filter && !strstr(c->name, filter))
			continue;
		if (progbuild_init_slots(&b, 3, 16u << 20)) {
			fprintf(stderr, "bench-ops: out of memory\n");
			return 1;
		}
		if (c->fc) {
			x = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_PLAIN, 2, 1,
				      c->c, 1, 1, 128);
			fill_random(progbuild_data(&b, x), c->c, &seed);
			add_fc(&b, x, c->cout, &seed);
		} else {
			x = progbuild_tensor(&b, 1, NPU_DT_U8, NPU_LAYOUT_NCHWC16, 4,
				      1, c->h, c->w, c->c, 128);
			fill_random(progbuild_data(&b, x), progbuild_bytes(&b.t[x]), &seed);
			add_conv(&b, x, c->dw, c->cout, c->k, c->s, &seed);
		}
		ips = time_prog(&b, secs, &macs);
		printf("%-42s %8.3f GMAC/s  (%.2f M MACs)\n", c->name,
		       ips * macs / 1e9, macs / 1e6);
		progbuild_free(&b);
	}
	return mnet ? mobilenet(secs * 4) : 0;
}
