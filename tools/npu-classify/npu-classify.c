// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-classify - run an image classifier on the NPU.
 *
 * Loads a model, runs COUNT inferences from THREADS threads (one runner
 * context each, PEs round-robin or NPU_PE_ANY), prints the top 5 classes
 * with their scores and latency / throughput figures. With --verify every
 * NPU output is compared bit for bit with lib/npuref running the same
 * program on the same input bytes; any difference exits with status 1.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libnpu.h"
#include "npu_cli.h"
#include "npu/npu_hw.h"
#include "npu/npu_model_file.h"
#include "npuref.h"
#include "refcache.h"

#define MAX_INPUTS 4	/* distinct inputs with --random */

struct opts {
	const char *dev;
	const char *model;
	const char *input;
	const char *ref;
	const char *write_ref;
	unsigned long count;
	unsigned int threads;
	unsigned int n_inputs;
	unsigned long long seed;
	bool verify;
	bool quiet;
	struct npu_runner_opts ropts;
};

struct input {
	float *x;		/* host floats */
	uint8_t *q;		/* quantized, NHWC */
	uint8_t *ref_out;	/* npuref's output slot, for --verify */
	size_t ref_size;
};

struct shared {
	const struct opts *o;
	const struct npu_model *model;
	struct npu_runner *runner;
	struct input in[MAX_INPUTS];
	unsigned int n_in;
	atomic_ulong next;
	atomic_ulong mismatches;
	atomic_ulong failures;
	uint64_t *lat_ns;	/* per inference */
	uint32_t *pe;		/* per inference */
	float *first_out[MAX_INPUTS];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static const char usage_text[] =
"NAME\n"
"    npu-classify - run an image classifier on the NPU\n"
"\n"
"SYNOPSIS\n"
"    npu-classify [-d DEV] -m MODEL [-n COUNT] [-j THREADS] [-p LIST]\n"
"                 [-s uring|ioctl] [-i FILE | -r SEED] [-k K]\n"
"                 [-V [--ref FILE]] [-q]\n"
"    npu-classify -m MODEL [-r SEED] [-k K] --write-ref FILE\n"
"    npu-classify -h\n"
"\n"
"DESCRIPTION\n"
"    Loads MODEL (a model file of npu-model-gen, Documentation/npu/model.rst;\n"
"    one input, one output), runs COUNT inferences on the NPU DEV from\n"
"    THREADS threads through libnpu (one runner context per thread), prints\n"
"    the top 5 classes of each distinct input, the latency distribution, the\n"
"    throughput and how many inferences each PE ran.\n"
"\n"
"    With --verify every output is compared bit for bit with lib/npuref\n"
"    running the same program on the same input bytes on the host; any\n"
"    difference is reported and makes the exit status 1. --write-ref runs\n"
"    only npuref (no device) and stores its outputs for a later --ref.\n"
"\n"
"OPTIONS\n"
"    -d, --device DEV\n"
"        NPU character device. Default /dev/npu0.\n"
"    -m, --model MODEL\n"
"        Model file (required).\n"
"    -n, --count COUNT\n"
"        Inferences to run, 1 to 10000000. Default 1.\n"
"    -j, --threads THREADS\n"
"        Concurrent inferences, one context and thread each, 1 to 64.\n"
"        Default 1.\n"
"    -p, --pes LIST\n"
"        Comma-separated PEs to submit to round-robin, e.g. 0,1; each below\n"
"        the device's PE count, at most 16 entries. Default: any PE.\n"
"    -s, --submit PATH\n"
"        How jobs reach the driver: \"uring\" (NPU_URING_CMD_SUBMIT commands\n"
"        on an io_uring ring, whose CQEs carry the completions) or \"ioctl\"\n"
"        (NPU_IOCTL_SUBMIT and NPU_IOCTL_WAIT). Default: uring when the\n"
"        driver and the kernel offer it, else ioctl; \"uring\" where they\n"
"        do not is an error. The path taken is printed.\n"
"    -i, --input FILE\n"
"        Input: a binary PGM (P5) or PPM (P6) with maxval 255 of the model's\n"
"        width, height and channels, pixels spanning the input's range; or\n"
"        raw little-endian float32 NHWC values, exactly the input's count.\n"
"    -r, --random SEED\n"
"        Pseudo-random inputs from SEED, 0 to 2^64-1 (the default input,\n"
"        SEED 1).\n"
"    -k, --inputs K\n"
"        Distinct random inputs, used in turn, 1 to 4. Default 2. --verify\n"
"        runs npuref once per input.\n"
"    -V, --verify\n"
"        Check every output bit for bit against npuref.\n"
"    --ref FILE\n"
"        With --verify and random inputs: take npuref's outputs from FILE\n"
"        (written by --write-ref) when it matches the model, SEED and K;\n"
"        otherwise say so and compute them.\n"
"    --write-ref FILE\n"
"        Run npuref on the random inputs, write its outputs to FILE and\n"
"        exit; no device is opened.\n"
"    -q, --quiet\n"
"        No top-5 listing.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"    Numbers may be decimal or 0x-prefixed hex.\n"
"\n"
"EXIT STATUS\n"
"    0   Every inference succeeded (and matched npuref with --verify), or\n"
"        --write-ref wrote FILE.\n"
"    1   A runtime error: MODEL, DEV or FILE unusable, a job failed, or an\n"
"        output differs from npuref.\n"
"    2   A usage error: bad or missing option.\n"
"\n"
"EXAMPLES\n"
"    npu-classify -m mnist.nmdl -i digit.pgm\n"
"    npu-classify -m mobilenet-v1.nmdl -n 100 -j 2 -p 0,1 -q\n"
"    npu-classify -m mnist.nmdl -n 8 --verify --ref mnist.ref\n"
"    npu-classify -m mnist.nmdl -n 1000 -j 32 --submit ioctl -q\n";

static int parse_pes(const char *s, struct npu_runner_opts *r)
{
	char *end;

	r->n_pes = 0;
	while (*s) {
		unsigned long v;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		errno = 0;
		v = strtoul(s, &end, 0);
		if (errno || end == s || v >= NPU_HW_MAX_PES ||
		    r->n_pes >= sizeof(r->pes) / sizeof(r->pes[0]))
			return -EINVAL;
		r->pes[r->n_pes++] = (uint32_t)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return r->n_pes ? 0 : -EINVAL;
}

/* PGM (P5) / PPM (P6) with maxval 255 and the model's H, W, C; else raw */
static int load_input(const char *path, const struct npu_tensor_desc *d,
		      float *x)
{
	FILE *f = fopen(path, "rb");
	char magic[3] = { 0 };
	unsigned int w, h, maxv;
	size_t i, n;
	long size;

	if (!f) {
		fprintf(stderr, "npu-classify: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(magic, 1, 2, f) == 2 && magic[0] == 'P' &&
	    (magic[1] == '5' || magic[1] == '6')) {
		unsigned int c = magic[1] == '5' ? 1 : 3;
		float lo = (0 - d->zero_point) * d->scale;
		float hi = (255 - d->zero_point) * d->scale;
		uint8_t *px;

		if (fscanf(f, "%u %u %u", &w, &h, &maxv) != 3 || maxv != 255 ||
		    fgetc(f) == EOF || d->ndim != 4 || h != d->dims[1] ||
		    w != d->dims[2] || c != d->dims[3]) {
			fprintf(stderr,
				"npu-classify: %s: want a %ux%u %s with maxval 255\n",
				path, d->dims[2], d->dims[1],
				d->dims[3] == 1 ? "PGM (P5)" : "PPM (P6)");
			fclose(f);
			return -1;
		}
		px = malloc(d->count);
		if (!px || fread(px, 1, d->count, f) != d->count) {
			fprintf(stderr, "npu-classify: %s: short image\n", path);
			free(px);
			fclose(f);
			return -1;
		}
		/* pixels 0..255 span the input's representable range */
		for (i = 0; i < d->count; i++)
			x[i] = lo + (hi - lo) * px[i] / 255.0f;
		free(px);
		fclose(f);
		return 0;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	n = d->count * sizeof(float);
	if (size < 0 || (size_t)size != n || fread(x, 1, n, f) != n) {
		fprintf(stderr,
			"npu-classify: %s: not a PGM/PPM and not %zu raw float32 values (%zu bytes)\n",
			path, d->count, n);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static void *worker(void *arg)
{
	struct shared *sh = arg;
	const struct npu_tensor_desc *dout = npu_model_output(sh->model, 0);
	float *y = malloc(dout->count * sizeof(float));
	unsigned long i;

	if (!y) {
		atomic_fetch_add(&sh->failures, 1);
		return NULL;
	}
	while ((i = atomic_fetch_add(&sh->next, 1)) < sh->o->count) {
		struct input *in = &sh->in[i % sh->n_in];
		struct npu_inference *inf;
		struct npu_job_result res = { 0 };
		uint64_t t0 = now_ns();
		int ret;

		npu_runner_acquire(sh->runner, &inf);
		/* Quantize + Lower, as an application would */
		ret = npu_inference_set_input(inf, 0, in->x, npu_model_input(sh->model, 0)->count);
		if (!ret)
			ret = npu_inference_submit(inf);
		if (!ret)
			ret = npu_inference_wait(inf, -1, &res);
		if (!ret)
			ret = npu_inference_get_output(inf, 0, y, dout->count);
		sh->lat_ns[i] = now_ns() - t0;
		sh->pe[i] = res.pe;
		if (ret) {
			fprintf(stderr,
				"npu-classify: inference %lu: %s (job status %u, op %u)\n",
				i, strerror(-ret), res.status, res.op_index);
			atomic_fetch_add(&sh->failures, 1);
		} else {
			if (in->ref_out) {
				size_t sz;
				const void *dev = npu_inference_slot(inf, dout->slot, &sz);

				if (sz != in->ref_size || memcmp(dev, in->ref_out, sz)) {
					const uint8_t *a = dev, *b = in->ref_out;
					size_t k = 0;

					while (k < sz && a[k] == b[k])
						k++;
					fprintf(stderr,
						"npu-classify: inference %lu on PE %u: output differs from npuref at byte %zu (npu %u, ref %u)\n",
						i, res.pe, k, a[k], b[k]);
					atomic_fetch_add(&sh->mismatches, 1);
				}
			}
			if (i < sh->n_in)
				memcpy(sh->first_out[i], y, dout->count * sizeof(float));
		}
		npu_inference_release(inf);
	}
	free(y);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_top5(const float *y, size_t n, unsigned int which)
{
	unsigned int top[5], k, j;
	size_t i;

	printf("input %u: top 5\n", which);
	for (k = 0; k < 5 && k < n; k++) {
		int best = -1;

		for (i = 0; i < n; i++) {
			for (j = 0; j < k; j++)
				if (top[j] == i)
					break;
			if (j < k)
				continue;
			if (best < 0 || y[i] > y[best])
				best = (int)i;
		}
		top[k] = (unsigned int)best;
		printf("  %u. class %4u  score %8.4f\n", k + 1, top[k], y[top[k]]);
	}
}

/* What main() sets up, runs and reports, and frees at the end. */
struct classify {
	struct opts o;
	struct shared sh;
	struct npu_device *dev;
	struct npu_model *model;
	uint64_t *sorted;	/* the latencies, sorted for the report */
	uint64_t wall;		/* ns from the first thread's start to the end */
};

/* Usage errors after the options were read: 0, or the exit status 2. */
static int check_opts(int argc, char **argv, const struct opts *o)
{
	if (optind < argc)
		return npu_cli_usage_error("npu-classify", "unexpected argument '%s'", argv[optind]);
	if (!o->model)
		return npu_cli_usage_error("npu-classify", "missing --model MODEL");
	if ((o->write_ref || o->ref) && o->input)
		return npu_cli_usage_error("npu-classify", "--ref and --write-ref need --random inputs, not --input");
	if (o->ref && !o->verify)
		return npu_cli_usage_error("npu-classify", "--ref needs --verify");
	if (o->write_ref && o->verify)
		return npu_cli_usage_error("npu-classify", "--write-ref runs no inference: it cannot --verify");
	return 0;
}

/* the long options; usage_text describes them */
static const struct option lopts[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "model", required_argument, NULL, 'm' },
	{ "count", required_argument, NULL, 'n' },
	{ "threads", required_argument, NULL, 'j' },
	{ "pes", required_argument, NULL, 'p' },
	{ "submit", required_argument, NULL, 's' },
	{ "input", required_argument, NULL, 'i' },
	{ "random", required_argument, NULL, 'r' },
	{ "inputs", required_argument, NULL, 'k' },
	{ "verify", no_argument, NULL, 'V' },
	{ "ref", required_argument, NULL, 'R' },
	{ "write-ref", required_argument, NULL, 'W' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Read the command line into @o: -1 to go on, or the exit status (0 after
 * --help, 2 after a usage error).
 */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	uint64_t v;
	int c, ret;

	*o = (struct opts){ .dev = "/dev/npu0", .count = 1, .threads = 1,
			    .seed = 1, .n_inputs = 2 };
	npu_runner_opts_init(&o->ropts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:m:n:j:p:s:i:r:k:Vqh", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'm':
			o->model = optarg;
			break;
		case 'n':
			if (npu_cli_parse_u64(optarg, 1, 10000000, &v))
				return npu_cli_usage_error("npu-classify", "--count: invalid value '%s': must be 1..10000000",
						   optarg);
			o->count = (unsigned long)v;
			break;
		case 'j':
			if (npu_cli_parse_u64(optarg, 1, 64, &v))
				return npu_cli_usage_error("npu-classify", "--threads: invalid value '%s': must be 1..64",
						   optarg);
			o->threads = (unsigned int)v;
			break;
		case 'p':
			if (parse_pes(optarg, &o->ropts))
				return npu_cli_usage_error("npu-classify", "--pes: invalid list '%s': want PE numbers 0..%d separated by commas, at most 16",
						   optarg, NPU_HW_MAX_PES - 1);
			break;
		case 's':
			if (!strcmp(optarg, "uring"))
				o->ropts.submit = NPU_SUBMIT_URING;
			else if (!strcmp(optarg, "ioctl"))
				o->ropts.submit = NPU_SUBMIT_IOCTL;
			else
				return npu_cli_usage_error("npu-classify", "--submit: invalid path '%s': want uring or ioctl",
							   optarg);
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'r':
			if (npu_cli_parse_u64(optarg, 0, UINT64_MAX, &v))
				return npu_cli_usage_error("npu-classify", "--random: invalid seed '%s': must be 0..2^64-1",
						   optarg);
			o->seed = v;
			break;
		case 'k':
			if (npu_cli_parse_u64(optarg, 1, MAX_INPUTS, &v))
				return npu_cli_usage_error("npu-classify", "--inputs: invalid value '%s': must be 1..%d",
						   optarg, MAX_INPUTS);
			o->n_inputs = (unsigned int)v;
			break;
		case 'V':
			o->verify = true;
			break;
		case 'R':
			o->ref = optarg;
			break;
		case 'W':
			o->write_ref = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case ':':
			return npu_cli_usage_error("npu-classify", "option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return npu_cli_usage_error("npu-classify", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	ret = check_opts(argc, argv, o);
	return ret ? ret : -1;
}

/*
 * Load the model (1 input, 1 output) and make the inputs: host floats and
 * their quantized bytes, and room for each one's first output. 0, or -1
 * after a message.
 */
static int setup_model(struct classify *cl)
{
	const struct opts *o = &cl->o;
	struct shared *sh = &cl->sh;
	const struct npu_tensor_desc *din, *dout;
	char err[256];
	unsigned int i;

	/* err names the file */
	if (npu_model_load(o->model, &cl->model, err, sizeof(err))) {
		fprintf(stderr, "npu-classify: %s\n", err);
		return -1;
	}
	sh->model = cl->model;
	if (npu_model_num_inputs(cl->model) != 1 ||
	    npu_model_num_outputs(cl->model) != 1) {
		fprintf(stderr, "npu-classify: %s: need 1 input and 1 output\n", o->model);
		return -1;
	}
	din = npu_model_input(cl->model, 0);
	dout = npu_model_output(cl->model, 0);

	sh->n_in = o->input ? 1 : o->n_inputs;
	for (i = 0; i < sh->n_in; i++) {
		struct input *in = &sh->in[i];

		in->x = malloc(din->count * sizeof(float));
		in->q = malloc(din->count);
		sh->first_out[i] = calloc(dout->count, sizeof(float));
		if (!in->x || !in->q || !sh->first_out[i]) {
			fprintf(stderr, "npu-classify: out of memory\n");
			return -1;
		}
		if (o->input) {
			if (load_input(o->input, din, in->x))
				return -1;
		} else {
			nc_random_input(din, in->x, o->seed + i);
		}
		npu_quantize(in->x, in->q, din->count, din->scale, din->zero_point);
	}
	return 0;
}

/* Open the device and prepare the runner: 0, or -1 after a message. */
static int setup_device(struct classify *cl)
{
	struct opts *o = &cl->o;
	int ret;

	ret = npu_device_open(o->dev, &cl->dev);
	if (ret) {
		fprintf(stderr, "npu-classify: %s: %s\n", o->dev, strerror(-ret));
		return -1;
	}
	o->ropts.contexts = o->threads;
	ret = npu_runner_create(cl->dev, cl->model, &o->ropts, &cl->sh.runner);
	if (ret) {
		fprintf(stderr, "npu-classify: cannot prepare %s on %s: %s\n",
			o->model, o->dev, strerror(-ret));
		return -1;
	}
	return 0;
}

/*
 * npuref's output slot for every input, from --ref FILE or computed, for
 * --verify; --write-ref stores them. 0, or -1 after a message.
 */
static int setup_refs(struct classify *cl)
{
	const struct opts *o = &cl->o;
	struct shared *sh = &cl->sh;
	const struct npu_tensor_desc *dout = npu_model_output(cl->model, 0);
	uint8_t *outs[MAX_INPUTS] = { NULL };
	unsigned int i;
	size_t osz;
	int ret;

	npu_model_slot(cl->model, dout->slot, NULL, &osz);
	ret = o->ref ? nc_ref_read(o->ref, cl->model, o->seed, sh->n_in, outs, osz)
		     : -ENOENT;
	if (o->ref && ret)
		fprintf(stderr, "npu-classify: %s: %s; running npuref\n",
			o->ref, ret == -ESTALE ?
			"for another model, seed or input count" :
			strerror(-ret));
	if (!ret && !o->write_ref)
		printf("verify: npuref outputs from %s\n", o->ref);
	for (i = 0; i < sh->n_in; i++) {
		if (!outs[i] && nc_reference(cl->model, sh->in[i].x, &outs[i], &osz)) {
			fprintf(stderr, "npu-classify: npuref failed on input %u\n", i);
			return -1;
		}
		sh->in[i].ref_out = outs[i];
		sh->in[i].ref_size = osz;
	}
	if (o->write_ref) {
		ret = nc_ref_write(o->write_ref, cl->model, o->seed, sh->n_in, outs, osz);
		if (ret) {
			fprintf(stderr, "npu-classify: %s: %s\n", o->write_ref,
				strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/*
 * The inferences, from o.threads workers; sets cl->wall. Returns the
 * threads that ran (0 when none could start), or -1 after a message.
 */
static int run_inferences(struct classify *cl)
{
	const struct opts *o = &cl->o;
	struct shared *sh = &cl->sh;
	const struct npu_tensor_desc *din = npu_model_input(cl->model, 0);
	const struct npu_tensor_desc *dout = npu_model_output(cl->model, 0);
	pthread_t tid[64];
	unsigned int i, n_thr;
	uint64_t t0;
	int ret;

	sh->lat_ns = calloc(o->count, sizeof(*sh->lat_ns));
	sh->pe = calloc(o->count, sizeof(*sh->pe));
	cl->sorted = calloc(o->count, sizeof(*cl->sorted));
	if (!sh->lat_ns || !sh->pe || !cl->sorted) {
		fprintf(stderr, "npu-classify: out of memory\n");
		return -1;
	}

	printf("model %s: input %ux%ux%u scale %g zp %d, %zu outputs; device %s, %u PEs, submit %s\n",
	       npu_model_name(cl->model), din->dims[1], din->dims[2], din->dims[3],
	       (double)din->scale, din->zero_point, dout->count, o->dev,
	       npu_device_info(cl->dev)->pe_count,
	       npu_runner_submit_path(sh->runner) == NPU_SUBMIT_URING ?
	       "uring" : "ioctl");
	t0 = now_ns();
	for (n_thr = 0; n_thr < o->threads; n_thr++) {
		ret = pthread_create(&tid[n_thr], NULL, worker, sh);
		if (ret) {
			fprintf(stderr, "npu-classify: cannot start thread %u: %s\n",
				n_thr, strerror(ret));
			/* the started ones take the remaining inferences */
			atomic_fetch_add(&sh->failures, 1);
			break;
		}
	}
	for (i = 0; i < n_thr; i++)
		pthread_join(tid[i], NULL);
	cl->wall = now_ns() - t0;
	return (int)n_thr;
}

/* The top 5s, latencies, throughput and PEs; the exit status. */
static int report(struct classify *cl)
{
	const struct opts *o = &cl->o;
	struct shared *sh = &cl->sh;
	const struct npu_tensor_desc *dout = npu_model_output(cl->model, 0);
	unsigned long pe_count[NPU_HW_MAX_PES] = { 0 };
	uint64_t *sorted = cl->sorted, sum = 0;
	unsigned int i;

	if (!o->quiet)
		for (i = 0; i < sh->n_in && i < o->count; i++)
			print_top5(sh->first_out[i], dout->count, i);
	for (i = 0; i < o->count; i++) {
		sorted[i] = sh->lat_ns[i];
		sum += sh->lat_ns[i];
		if (sh->pe[i] < NPU_HW_MAX_PES)
			pe_count[sh->pe[i]]++;
	}
	qsort(sorted, o->count, sizeof(*sorted), cmp_u64);
	printf("inferences %lu, threads %u: latency ms min %.3f avg %.3f p50 %.3f p99 %.3f max %.3f\n",
	       o->count, o->threads, sorted[0] / 1e6, (double)sum / o->count / 1e6,
	       sorted[o->count / 2] / 1e6, sorted[(o->count * 99) / 100] / 1e6,
	       sorted[o->count - 1] / 1e6);
	printf("throughput %.2f inferences/s (wall %.3f s)\n",
	       o->count / (cl->wall / 1e9), cl->wall / 1e9);
	printf("per PE:");
	for (i = 0; i < NPU_HW_MAX_PES; i++)
		if (pe_count[i])
			printf(" pe%u=%lu", i, pe_count[i]);
	printf("\n");
	if (o->verify)
		printf("verify: %lu of %lu outputs differ from npuref\n",
		       (unsigned long)atomic_load(&sh->mismatches), o->count);
	return atomic_load(&sh->failures) || atomic_load(&sh->mismatches) ? 1 : 0;
}

static void cleanup(struct classify *cl)
{
	struct shared *sh = &cl->sh;
	unsigned int i;

	free(cl->sorted);
	npu_runner_free(sh->runner);
	npu_device_close(cl->dev);
	for (i = 0; i < MAX_INPUTS; i++) {
		free(sh->in[i].x);
		free(sh->in[i].q);
		free(sh->in[i].ref_out);
		free(sh->first_out[i]);
	}
	free(sh->lat_ns);
	free(sh->pe);
	npu_model_free(cl->model);
}

/*
 * The model and its inputs; the device first, so that a missing device
 * fails before minutes of npuref; the references; the inferences; the
 * report.
 */
static int classify(struct classify *cl)
{
	const struct opts *o = &cl->o;

	if (setup_model(cl))
		return 1;
	if (!o->write_ref && setup_device(cl))
		return 1;
	if (o->write_ref || o->verify) {
		if (setup_refs(cl))
			return 1;
		if (o->write_ref)
			return 0;
	}
	if (run_inferences(cl) <= 0)
		return 1;
	return report(cl);
}

int main(int argc, char **argv)
{
	struct classify cl = { .sh.o = &cl.o };
	int status;

	status = parse_opts(argc, argv, &cl.o);
	if (status >= 0)
		return status;
	status = classify(&cl);
	cleanup(&cl);
	return status;
}
