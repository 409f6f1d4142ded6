// SPDX-License-Identifier: GPL-2.0-only
/*
 * op.c - "npuprof op": time one NPU operator in isolation on the device
 * (Documentation/npu/opprof.rst), given by opcode with shapes and
 * attributes or as operators of a model; the command line, the cache
 * lookup and the flow. op_build.c, op_run.c and op_out.c do the work.
 *
 * Single-threaded; runs once per process.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "npu/npu_program.h"
#include "npu_cli.h"
#include "cli.h"
#include "op.h"

#define DEF_DEVICE	"/dev/npu0"
#define DEF_RUNS	100
#define DEF_WARMUP	5
#define DEF_TIMEOUT_MS	30000
#define MAX_RUNS	100000
#define MAX_DIM		(1u << 24)
#define MAX_ELEMS	(1ull << 30)

static const char op_help[] =
"NAME\n"
"    npuprof op - time one NPU operator in isolation on the device\n"
"\n"
"SYNOPSIS\n"
"    npuprof op OPCODE --input DIMS [SHAPE OPTIONS] [OPTIONS]\n"
"    npuprof op --model FILE (--layer NAME | --op-index N [--op-count K])\n"
"               [OPTIONS]\n"
"    npuprof op --model FILE --list\n"
"    npuprof op --cache-info | --cache-clear [--cache-dir DIR]\n"
"\n"
"DESCRIPTION\n"
"    Runs one operator (or the operators of one model layer) as a job of\n"
"    its own on the NPU, --warmup times untimed and then --runs times, with\n"
"    the device tracing at level 2, and reports the device time of each\n"
"    operator from its trace records: the latency distribution (min,\n"
"    median, p99, mean) in ns, the DMA wait (IoWait), the MACs, GMAC/s and\n"
"    the percentage of the PE's peak, the bytes the DMA engine moved and\n"
"    the on-chip memory (SRAM) the operator needs. It is the counterpart\n"
"    of RAF's op profiler (latency and workspace size).\n"
"\n"
"    The operator is given either by its opcode and shapes (zero weights\n"
"    and bias, a per-channel requantization table, a byte ramp as input:\n"
"    values do not change the device's timing), or as operators of a\n"
"    model file, which then run on the model's own tensors: shapes,\n"
"    layouts, constants and requantization tables. A layer made of several\n"
"    device operators is profiled as that sequence, per operator and in\n"
"    total.\n"
"\n"
"    Times are the device's: end_tick - start_tick of each operator's\n"
"    record, in ns at the device's nominal clock. In isolation an\n"
"    operator waits for all of its DMA (IoWait = its whole transfer time),\n"
"    whereas inside a model its transfers overlap the compute of the\n"
"    operator before it; see Documentation/npu/opprof.rst.\n"
"\n"
"    Results are cached, keyed by the device model (hardware version, PE\n"
"    count, clock, MACs per cycle, DMA bandwidth, SRAM size), the PE, the\n"
"    operator with its shapes and attributes (the program run) and the\n"
"    numbers of runs, so that a repeated query answers at once.\n"
"\n"
"OPCODES\n"
"    conv2d     --input NxHxWxC --filters F --kernel KHxKW [--stride S]\n"
"               [--pad P]\n"
"    dwconv2d   --input NxHxWxC --kernel KHxKW [--stride S] [--pad P]\n"
"    avgpool, maxpool\n"
"               --input NxHxWxC --kernel KHxKW [--stride S] [--pad P]\n"
"    fc, matmul --input MxK --filters N (fc: weights NxK; matmul: KxN)\n"
"    add, clip  --input DIMS (add: two inputs of those dims)\n"
"    pad        --input NxHxWxC --pad T,L,B,R\n"
"    reshape    --input DIMS --output DIMS (same element count)\n"
"    transpose  --input DIMS --perm P0,P1,...\n"
"    slice      --input DIMS --output DIMS (from index 0)\n"
"    concat     --input DIMS --inputs 2|3 --axis A\n"
"\n"
"SHAPE OPTIONS\n"
"    --input DIMS\n"
"        Input dims, 1 to 4 numbers joined by 'x' (1x112x112x32). 4-D\n"
"        activations are N, H, W, C.\n"
"    --filters N\n"
"        conv2d: output channels; fc and matmul: outputs (N).\n"
"    --kernel KHxKW, --kernel K\n"
"        Window of the convolutions and pools.\n"
"    --stride SHxSW, --stride S\n"
"        Stride (default 1).\n"
"    --pad same|valid|T,L,B,R\n"
"        Window padding: \"same\" (TensorFlow's: the output is\n"
"        ceil(input / stride), extra padding at the bottom and right),\n"
"        \"valid\" (none, the default) or explicit top, left, bottom,\n"
"        right. pad: the rows and columns added.\n"
"    --output DIMS\n"
"        reshape and slice: the output dims.\n"
"    --perm P0,P1,...\n"
"        transpose: output dim i is input dim Pi.\n"
"    --inputs N, --axis A\n"
"        concat: 2 or 3 inputs, joined along axis A.\n"
"    --layout nchwc16|plain\n"
"        Layout of the 4-D activations (default nchwc16, as the models\n"
"        npu-model-gen writes).\n"
"\n"
"MODEL OPTIONS\n"
"    -m, --model FILE\n"
"        A model file (Documentation/npu/model.rst).\n"
"    -l, --layer NAME\n"
"        The layer NAME of the model's layer table: all its operators.\n"
"    -i, --op-index N\n"
"        The model's operator N (0-based, program order).\n"
"    --op-count K\n"
"        With --op-index: K operators from N (default 1, at most 16).\n"
"    --list\n"
"        Print the model's operators (index, opcode, layer, input and\n"
"        output dims, the source model's op type) and exit.\n"
"\n"
"OPTIONS\n"
"    -n, --runs N\n"
"        Timed runs, 1..100000 (default 100).\n"
"    -w, --warmup N\n"
"        Untimed runs before them, 0..100000 (default 5).\n"
"    --pe N\n"
"        PE to run on (default 0).\n"
"    -d, --device PATH\n"
"        The NPU (default /dev/npu0).\n"
"    -f, --format table|csv|json\n"
"        Output format (default table). csv: a header and a row per\n"
"        operator, plus a \"total\" row for several; json: one object.\n"
"    --no-cache\n"
"        Neither read nor write the cache: measure now.\n"
"    --cache-dir DIR\n"
"        The cache directory (default $XDG_CACHE_HOME/npuprof/ops, else\n"
"        $HOME/.cache/npuprof/ops).\n"
"    --cache-info\n"
"        Print the cache's directory, entries and bytes, and exit.\n"
"    --cache-clear\n"
"        Remove every entry of the cache, and exit.\n"
"    --timeout MS\n"
"        Bound of one run's wait (default 30000).\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"OUTPUT\n"
"    Per operator: min_ns, median_ns, p99_ns (nearest rank), max_ns and\n"
"    mean_ns of the device time; iowait_ns, the median DMA wait;\n"
"    macs; gmacs = macs / median_ns (GMAC/s); peak_pct = gmacs /\n"
"    peak_gmacs, where peak_gmacs = MACS_PER_CYCLE x CLOCK_HZ / 10^9 is\n"
"    the peak of the one PE a job runs on; dma_bytes, the bytes of the\n"
"    operator's inputs, weights, bias, requantization table and output;\n"
"    sram_bytes, the on-chip memory it needs: those same bytes, as the\n"
"    device model keeps all of an operator's tensors in SRAM while it\n"
"    computes (for a sequence, the largest sum of two consecutive\n"
"    operators', as the DMA engine fills one while the other computes);\n"
"    compute_ns and dma_ns, the cost model's compute and transfer times.\n"
"\n"
"EXIT STATUS\n"
"    0   Success.\n"
"    1   An error: no device, a model that does not load, a job the\n"
"        device refused, trace records lost.\n"
"    2   A usage error.\n"
"\n"
"ENVIRONMENT\n"
"    XDG_CACHE_HOME, HOME\n"
"        Where the cache lives (see --cache-dir).\n"
"\n"
"EXAMPLES\n"
"    npuprof op conv2d --input 1x112x112x32 --filters 64 --kernel 3x3\n"
"    npuprof op dwconv2d --input 1x56x56x128 --kernel 3 --stride 2 --pad same\n"
"    npuprof op fc --input 1x1024 --filters 1000 --format json\n"
"    npuprof op --model mobilenet-v1.nmdl --list\n"
"    npuprof op --model mobilenet-v1.nmdl --layer conv_dw_7\n"
"    npuprof op --model mobilenet-v1.nmdl --op-index 14 --runs 20\n"
"    npuprof op --cache-info\n";

static int op_run_cmd(int argc, char **argv);

const struct npc_cmd npc_cmd_op = {
	.name = "op",
	.summary = "time one operator in isolation on the NPU",
	.help = op_help,
	.run = op_run_cmd,
};

enum {
	O_INPUT = 256, O_FILTERS, O_KERNEL, O_STRIDE, O_PAD, O_OUTPUT, O_PERM,
	O_INPUTS, O_AXIS, O_LAYOUT, O_OPCOUNT, O_LIST, O_PE, O_NOCACHE,
	O_CACHEDIR, O_CACHEINFO, O_CACHECLEAR, O_TIMEOUT,
};

static const struct option opts[] = {
	{ "input", required_argument, NULL, O_INPUT },
	{ "filters", required_argument, NULL, O_FILTERS },
	{ "kernel", required_argument, NULL, O_KERNEL },
	{ "stride", required_argument, NULL, O_STRIDE },
	{ "pad", required_argument, NULL, O_PAD },
	{ "output", required_argument, NULL, O_OUTPUT },
	{ "perm", required_argument, NULL, O_PERM },
	{ "inputs", required_argument, NULL, O_INPUTS },
	{ "axis", required_argument, NULL, O_AXIS },
	{ "layout", required_argument, NULL, O_LAYOUT },
	{ "model", required_argument, NULL, 'm' },
	{ "layer", required_argument, NULL, 'l' },
	{ "op-index", required_argument, NULL, 'i' },
	{ "op-count", required_argument, NULL, O_OPCOUNT },
	{ "list", no_argument, NULL, O_LIST },
	{ "runs", required_argument, NULL, 'n' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "pe", required_argument, NULL, O_PE },
	{ "device", required_argument, NULL, 'd' },
	{ "format", required_argument, NULL, 'f' },
	{ "no-cache", no_argument, NULL, O_NOCACHE },
	{ "cache-dir", required_argument, NULL, O_CACHEDIR },
	{ "cache-info", no_argument, NULL, O_CACHEINFO },
	{ "cache-clear", no_argument, NULL, O_CACHECLEAR },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct op_args {
	struct npo_spec spec;
	bool have_spec_opt;
	const char *opcode;
	const char *model;
	const char *layer;
	bool have_index;
	uint32_t index;
	uint32_t count;
	bool list;
	struct npo_run_opts run;
	unsigned int format;
	bool no_cache;
	const char *cache_dir;
	bool cache_info;
	bool cache_clear;
};

static int num(const char *opt, const char *s, uint64_t min, uint64_t max,
	       uint64_t *v)
{
	int ret = npu_cli_parse_u64(s, min, max, v);

	if (ret == -ERANGE)
		return npu_cli_usage_error(NPO_PROG,
					   "--%s: '%s' is out of range %" PRIu64 "..%" PRIu64,
					   opt, s, min, max);
	if (ret)
		return npu_cli_usage_error(NPO_PROG, "--%s: '%s' is not a number",
					   opt, s);
	return 0;
}

/*
 * "AxBxC" (@sep 'x') or "A,B,C" (@sep ','): 1..@maxn numbers in
 * [@min, @max]; their count in *@n
 */
static int num_list(const char *opt, const char *s, char sep,
		    unsigned int maxn, uint64_t min, uint64_t max,
		    uint32_t *v, unsigned int *n)
{
	char buf[128], *p, *q;
	uint64_t x;
	int ret;

	if (strlen(s) >= sizeof(buf) || !*s)
		return npu_cli_usage_error(NPO_PROG, "--%s: invalid value '%s'",
					   opt, s);
	strcpy(buf, s);
	*n = 0;
	for (p = buf;; p = q + 1) {
		q = strchr(p, sep);
		if (q)
			*q = '\0';
		if (*n == maxn)
			return npu_cli_usage_error(NPO_PROG,
						   "--%s: '%s' has more than %u values",
						   opt, s, maxn);
		ret = num(opt, p, min, max, &x);
		if (ret)
			return ret;
		v[(*n)++] = (uint32_t)x;
		if (!q)
			return 0;
	}
}

static int parse_dims(const char *opt, const char *s, uint32_t *d,
		      unsigned int *n)
{
	uint64_t elems = 1;
	unsigned int i;
	int ret;

	ret = num_list(opt, s, 'x', 4, 1, MAX_DIM, d, n);
	if (ret)
		return ret;
	for (i = 0; i < *n; i++) {
		elems *= d[i];
		if (elems > MAX_ELEMS)
			return npu_cli_usage_error(NPO_PROG,
						   "--%s: '%s' has more than %llu elements",
						   opt, s, MAX_ELEMS);
	}
	return 0;
}

/* "3x3" or "3" into two values */
static int parse_pair(const char *opt, const char *s, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];
	unsigned int n;
	int ret;

	ret = num_list(opt, s, 'x', 2, 1, 255, v, &n);
	if (ret)
		return ret;
	*a = v[0];
	*b = n == 2 ? v[1] : v[0];
	return 0;
}

static int parse_pad(const char *s, struct npo_spec *sp)
{
	unsigned int n;
	int ret;

	if (!strcmp(s, "same")) {
		sp->pad_mode = 1;
		return 0;
	}
	if (!strcmp(s, "valid")) {
		sp->pad_mode = 2;
		return 0;
	}
	ret = num_list("pad", s, ',', 4, 0, 65535, sp->pad, &n);
	if (ret)
		return ret;
	if (n != 4)
		return npu_cli_usage_error(NPO_PROG,
					   "--pad: '%s': give same, valid or T,L,B,R",
					   s);
	sp->pad_mode = 0;
	return 0;
}

static int parse_format(const char *s, unsigned int *f)
{
	if (!strcmp(s, "table"))
		*f = NPO_FMT_TABLE;
	else if (!strcmp(s, "csv"))
		*f = NPO_FMT_CSV;
	else if (!strcmp(s, "json"))
		*f = NPO_FMT_JSON;
	else
		return npu_cli_usage_error(NPO_PROG,
					   "--format: invalid value '%s': must be table, csv or json",
					   s);
	return 0;
}

/* An operator's shape option @c (O_INPUT .. O_LAYOUT) into @sp */
static int parse_shape_opt(int c, const char *arg, struct npo_spec *sp)
{
	uint64_t v;
	int ret = 0;

	switch (c) {
	case O_INPUT:
		return parse_dims("input", arg, sp->in, &sp->in_ndim);
	case O_FILTERS:
		ret = num("filters", arg, 1, MAX_DIM, &v);
		sp->filters = (uint32_t)v;
		break;
	case O_KERNEL:
		return parse_pair("kernel", arg, &sp->kh, &sp->kw);
	case O_STRIDE:
		return parse_pair("stride", arg, &sp->sh, &sp->sw);
	case O_PAD:
		return parse_pad(arg, sp);
	case O_OUTPUT:
		return parse_dims("output", arg, sp->out, &sp->out_ndim);
	case O_PERM:
		return num_list("perm", arg, ',', 4, 0, 3, sp->out,
				&sp->out_ndim);
	case O_INPUTS:
		ret = num("inputs", arg, 2, 3, &v);
		sp->inputs = (unsigned int)v;
		break;
	case O_AXIS:
		ret = num("axis", arg, 0, 3, &v);
		sp->axis = (uint32_t)v;
		break;
	case O_LAYOUT:
		if (!strcmp(arg, "plain"))
			sp->plain = true;
		else if (strcmp(arg, "nchwc16"))
			ret = npu_cli_usage_error(NPO_PROG,
						  "--layout: invalid value '%s': must be nchwc16 or plain",
						  arg);
		break;
	}
	return ret;
}

/*
 * Any other option @c: the model's operator, the runs, the output, the
 * cache. Return: 0, -1 for --help, or 2 after a usage error was printed.
 */
static int parse_run_opt(int c, char **argv, struct op_args *a)
{
	uint64_t v;
	int ret = 0;

	switch (c) {
	case 'm':
		a->model = optarg;
		break;
	case 'l':
		if (!*optarg)
			ret = npu_cli_usage_error(NPO_PROG, "--layer: empty name");
		a->layer = optarg;
		break;
	case 'i':
		ret = num("op-index", optarg, 0, UINT32_MAX - 1, &v);
		a->index = (uint32_t)v;
		a->have_index = true;
		break;
	case O_OPCOUNT:
		ret = num("op-count", optarg, 1, NPO_MAX_OPS, &v);
		a->count = (uint32_t)v;
		break;
	case O_LIST:
		a->list = true;
		break;
	case 'n':
		ret = num("runs", optarg, 1, MAX_RUNS, &v);
		a->run.runs = (uint32_t)v;
		break;
	case 'w':
		ret = num("warmup", optarg, 0, MAX_RUNS, &v);
		a->run.warmup = (uint32_t)v;
		break;
	case O_PE:
		ret = num("pe", optarg, 0, 15, &v);
		a->run.pe = (int)v;
		break;
	case 'd':
		a->run.device = optarg;
		break;
	case 'f':
		ret = parse_format(optarg, &a->format);
		break;
	case O_NOCACHE:
		a->no_cache = true;
		break;
	case O_CACHEDIR:
		a->cache_dir = optarg;
		break;
	case O_CACHEINFO:
		a->cache_info = true;
		break;
	case O_CACHECLEAR:
		a->cache_clear = true;
		break;
	case O_TIMEOUT:
		ret = num("timeout", optarg, 1, 3600000, &v);
		a->run.timeout_ms = (uint32_t)v;
		break;
	case 'h':
		return -1;
	default:
		return npc_bad_option(NPO_PROG, c, argv);
	}
	return ret;
}

/* The operand and the options' combinations: one way to name an operator */
static int check_args(int argc, char **argv, struct op_args *a)
{
	unsigned int n = (unsigned int)(argc - optind);

	if (n > 1)
		return npu_cli_usage_error(NPO_PROG, "unexpected argument '%s'",
					   argv[optind + 1]);
	if (n == 1)
		a->opcode = argv[optind];
	if (a->cache_info || a->cache_clear) {
		if (a->opcode || a->model || a->cache_info == a->cache_clear)
			return npu_cli_usage_error(NPO_PROG,
						   "--cache-info and --cache-clear take no operator and not each other");
		return 0;
	}
	if (a->model) {
		if (a->opcode || a->have_spec_opt)
			return npu_cli_usage_error(NPO_PROG,
						   "--model takes no OPCODE and no shape options");
		if (a->list)
			return a->layer || a->have_index ?
			       npu_cli_usage_error(NPO_PROG, "--list takes no --layer or --op-index") : 0;
		if (!!a->layer == a->have_index)
			return npu_cli_usage_error(NPO_PROG,
						   "--model needs one of --layer NAME and --op-index N");
		if (a->layer && a->count != 1)
			return npu_cli_usage_error(NPO_PROG,
						   "--op-count goes with --op-index, not --layer");
		return 0;
	}
	if (a->layer || a->have_index || a->list || a->count != 1)
		return npu_cli_usage_error(NPO_PROG,
					   "--layer, --op-index, --op-count and --list need --model");
	if (!a->opcode)
		return npu_cli_usage_error(NPO_PROG,
					   "give an OPCODE (conv2d, dwconv2d, fc, ...) or --model");
	a->spec.opcode = npo_opcode_parse(a->opcode);
	if (!a->spec.opcode)
		return npu_cli_usage_error(NPO_PROG,
					   "unknown opcode '%s': conv2d, dwconv2d, avgpool, maxpool, fc, matmul, add, clip, pad, reshape, transpose, slice or concat",
					   a->opcode);
	return 0;
}

/* Return: 0, -1 for --help, or 2 after a usage error was printed */
static int parse_args(int argc, char **argv, struct op_args *a)
{
	int c, ret;

	memset(a, 0, sizeof(*a));
	a->spec.sh = a->spec.sw = 1;
	a->spec.pad_mode = 2;
	a->spec.inputs = 2;
	a->count = 1;
	a->run.device = DEF_DEVICE;
	a->run.pe = -1;
	a->run.runs = DEF_RUNS;
	a->run.warmup = DEF_WARMUP;
	a->run.timeout_ms = DEF_TIMEOUT_MS;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":m:l:i:n:w:d:f:h", opts, NULL)) != -1) {
		if (c >= O_INPUT && c <= O_LAYOUT) {
			a->have_spec_opt = true;
			ret = parse_shape_opt(c, optarg, &a->spec);
		} else {
			ret = parse_run_opt(c, argv, a);
		}
		if (ret)
			return ret;
	}
	return check_args(argc, argv, a);
}

static int cache_cmd(const struct op_args *a)
{
	char dir[4096];
	uint64_t entries, bytes;
	long n;
	int ret;

	ret = npo_cache_dir(a->cache_dir, dir, sizeof(dir));
	if (ret) {
		npc_err("op: no cache directory: set XDG_CACHE_HOME or HOME, or give --cache-dir");
		return 1;
	}
	if (a->cache_clear) {
		n = npo_cache_clear(dir);
		if (n < 0) {
			npc_err("op: clearing %s: %s", dir, strerror((int)-n));
			return 1;
		}
		printf("removed %ld entries from %s\n", n, dir);
		return 0;
	}
	ret = npo_cache_info(dir, &entries, &bytes);
	if (ret) {
		npc_err("op: %s: %s", dir, strerror(-ret));
		return 1;
	}
	printf("directory: %s\nentries: %" PRIu64 "\nbytes: %" PRIu64 "\n", dir,
	       entries, bytes);
	return 0;
}

static int op_run_cmd(int argc, char **argv)
{
	struct op_args a;
	struct npo_job job;
	struct npo_result res;
	struct npu_info info;
	char devmodel[256], key[1024], dir[4096];
	bool use_cache;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret < 0)
		return npc_help(&npc_cmd_op);
	if (ret)
		return ret;
	if (a.cache_info || a.cache_clear)
		return cache_cmd(&a);
	if (a.list)
		return npo_list_model(a.model, stdout);
	ret = a.model ? npo_build_model(a.model, a.layer, a.index, a.count, &job) :
			npo_build_spec(&a.spec, &job);
	if (ret)
		return ret;
	ret = npo_device_model(a.run.device, &info, devmodel, sizeof(devmodel));
	if (ret)
		goto out;
	snprintf(key, sizeof(key), "npuprof-op 1 | %s | pe=%d runs=%u warmup=%u | %s",
		 devmodel, a.run.pe < 0 ? 0 : a.run.pe, a.run.runs,
		 a.run.warmup, job.key);
	use_cache = !a.no_cache && !npo_cache_dir(a.cache_dir, dir, sizeof(dir));
	if (use_cache && npo_cache_get(dir, key, &res) == 1) {
		/* the key holds the device model, not its node */
		snprintf(res.device, sizeof(res.device), "%s", a.run.device);
		npo_print(&res, a.format, stdout);
		goto out;
	}
	ret = npo_run(&job, &a.run, &info, &res);
	if (ret)
		goto out;
	npo_print(&res, a.format, stdout);
	if (use_cache) {
		int err = npo_cache_put(dir, key, &res);

		if (err)
			npc_warn("op: not cached in %s: %s", dir, strerror(-err));
	}
out:
	npo_job_free(&job);
	return ret;
}
