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
#include "npu_hw.h"
#include "npu_model_file.h"
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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npu-classify [-d DEV] -m MODEL [-n COUNT] [-j THREADS]\n"
		"                    [--pes LIST] [--input FILE | --random SEED]\n"
		"                    [-k K] [--verify [--ref FILE]] [-q]\n"
		"       npu-classify -m MODEL [--random SEED] [-k K] --write-ref FILE\n"
		"\n"
		"  -d, --device DEV    NPU device (default /dev/npu0)\n"
		"  -m, --model MODEL   model file (npu-model-gen)\n"
		"  -n, --count N       inferences to run (default 1)\n"
		"  -j, --threads N     concurrent inferences, one context each (default 1)\n"
		"  -p, --pes LIST      PEs to use round-robin, e.g. 0,1 (default: any)\n"
		"  -i, --input FILE    input: binary PGM/PPM of the model's size, or\n"
		"                      raw little-endian float32 NHWC values\n"
		"  -r, --random SEED   pseudo-random inputs from SEED (default 1)\n"
		"  -k, --inputs K      distinct random inputs, used in turn, 1..%d\n"
		"                      (default 2); --verify runs npuref once per input\n"
		"  -V, --verify        check every output bit for bit against npuref\n"
		"      --ref FILE      with --verify and --random: npuref's outputs\n"
		"                      from FILE (written by --write-ref) when it\n"
		"                      matches the model, seed and -k; else computed\n"
		"      --write-ref FILE  run npuref on the random inputs, write\n"
		"                      FILE and exit (no device needed)\n"
		"  -q, --quiet         no top-5 listing\n"
		"  -h, --help          this text\n", MAX_INPUTS);
}

static int parse_pes(const char *s, struct npu_runner_opts *r)
{
	char *end;

	r->n_pes = 0;
	while (*s) {
		unsigned long v = strtoul(s, &end, 0);

		if (end == s || v >= NPU_HW_MAX_PES ||
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

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "model", required_argument, NULL, 'm' },
		{ "count", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 'j' },
		{ "pes", required_argument, NULL, 'p' },
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
	struct opts o = { .dev = "/dev/npu0", .count = 1, .threads = 1, .seed = 1,
			  .n_inputs = 2 };
	struct shared sh = { .o = &o };
	const struct npu_tensor_desc *din, *dout;
	struct npu_device *dev = NULL;
	struct npu_model *model = NULL;
	pthread_t tid[64];
	uint64_t t0, wall, sum = 0, *sorted;
	unsigned long pe_count[NPU_HW_MAX_PES] = { 0 };
	char err[256], *end;
	unsigned int i;
	int c, ret, status = 1;

	while ((c = getopt_long(argc, argv, "d:m:n:j:p:i:r:k:Vqh", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.dev = optarg;
			break;
		case 'm':
			o.model = optarg;
			break;
		case 'n':
			o.count = strtoul(optarg, &end, 0);
			if (*end || !o.count || o.count > 10000000) {
				fprintf(stderr, "npu-classify: bad count '%s'\n", optarg);
				return 2;
			}
			break;
		case 'j':
			o.threads = (unsigned int)strtoul(optarg, &end, 0);
			if (*end || !o.threads || o.threads > 64) {
				fprintf(stderr, "npu-classify: threads must be 1..64\n");
				return 2;
			}
			break;
		case 'p':
			if (parse_pes(optarg, &o.ropts)) {
				fprintf(stderr, "npu-classify: bad PE list '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			o.input = optarg;
			break;
		case 'r':
			o.seed = strtoull(optarg, &end, 0);
			if (*end) {
				fprintf(stderr, "npu-classify: bad seed '%s'\n", optarg);
				return 2;
			}
			break;
		case 'k':
			o.n_inputs = (unsigned int)strtoul(optarg, &end, 0);
			if (*end || !o.n_inputs || o.n_inputs > MAX_INPUTS) {
				fprintf(stderr, "npu-classify: inputs must be 1..%d\n",
					MAX_INPUTS);
				return 2;
			}
			break;
		case 'V':
			o.verify = true;
			break;
		case 'R':
			o.ref = optarg;
			break;
		case 'W':
			o.write_ref = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.model || optind != argc) {
		usage(stderr);
		return 2;
	}
	ret = npu_model_load(o.model, &model, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "npu-classify: %s: %s\n", o.model, err);
		return 1;
	}
	sh.model = model;
	if (npu_model_num_inputs(model) != 1 || npu_model_num_outputs(model) != 1) {
		fprintf(stderr, "npu-classify: %s: need 1 input and 1 output\n", o.model);
		goto out;
	}
	din = npu_model_input(model, 0);
	dout = npu_model_output(model, 0);

	sh.n_in = o.input ? 1 : o.n_inputs;
	if ((o.write_ref || o.ref) && o.input) {
		fprintf(stderr, "npu-classify: --ref and --write-ref need --random inputs\n");
		goto out;
	}
	for (i = 0; i < sh.n_in; i++) {
		struct input *in = &sh.in[i];

		in->x = malloc(din->count * sizeof(float));
		in->q = malloc(din->count);
		sh.first_out[i] = calloc(dout->count, sizeof(float));
		if (!in->x || !in->q || !sh.first_out[i])
			goto out;
		if (o.input) {
			if (load_input(o.input, din, in->x))
				goto out;
		} else {
			nc_random_input(din, in->x, o.seed + i);
		}
		npu_quantize(in->x, in->q, din->count, din->scale, din->zero_point);
	}
	if (o.write_ref || o.verify) {
		uint8_t *outs[MAX_INPUTS] = { NULL };
		size_t osz;

		npu_model_slot(model, dout->slot, NULL, &osz);
		ret = o.ref ? nc_ref_read(o.ref, model, o.seed, sh.n_in, outs, osz)
			    : -ENOENT;
		if (o.ref && ret)
			fprintf(stderr, "npu-classify: %s: %s; running npuref\n",
				o.ref, ret == -ESTALE ?
				"for another model, seed or input count" :
				strerror(-ret));
		if (!ret && !o.write_ref)
			printf("verify: npuref outputs from %s\n", o.ref);
		for (i = 0; i < sh.n_in; i++) {
			if (!outs[i] && nc_reference(model, sh.in[i].x, &outs[i], &osz)) {
				fprintf(stderr, "npu-classify: npuref failed on input %u\n", i);
				goto out;
			}
			sh.in[i].ref_out = outs[i];
			sh.in[i].ref_size = osz;
		}
		if (o.write_ref) {
			ret = nc_ref_write(o.write_ref, model, o.seed, sh.n_in, outs, osz);
			if (ret) {
				fprintf(stderr, "npu-classify: %s: %s\n", o.write_ref,
					strerror(-ret));
				goto out;
			}
			status = 0;
			goto out;
		}
	}

	ret = npu_device_open(o.dev, &dev);
	if (ret) {
		fprintf(stderr, "npu-classify: %s: %s\n", o.dev, strerror(-ret));
		goto out;
	}
	o.ropts.contexts = o.threads;
	ret = npu_runner_create(dev, model, &o.ropts, &sh.runner);
	if (ret) {
		fprintf(stderr, "npu-classify: cannot prepare %s on %s: %s\n",
			o.model, o.dev, strerror(-ret));
		goto out;
	}
	sh.lat_ns = calloc(o.count, sizeof(*sh.lat_ns));
	sh.pe = calloc(o.count, sizeof(*sh.pe));
	sorted = calloc(o.count, sizeof(*sorted));
	if (!sh.lat_ns || !sh.pe || !sorted)
		goto out;

	printf("model %s: input %ux%ux%u scale %g zp %d, %zu outputs; device %s, %u PEs\n",
	       npu_model_name(model), din->dims[1], din->dims[2], din->dims[3],
	       (double)din->scale, din->zero_point, dout->count, o.dev,
	       npu_device_info(dev)->pe_count);
	t0 = now_ns();
	for (i = 0; i < o.threads; i++)
		if (pthread_create(&tid[i], NULL, worker, &sh)) {
			fprintf(stderr, "npu-classify: cannot start threads\n");
			exit(1);
		}
	for (i = 0; i < o.threads; i++)
		pthread_join(tid[i], NULL);
	wall = now_ns() - t0;

	if (!o.quiet)
		for (i = 0; i < sh.n_in && i < o.count; i++)
			print_top5(sh.first_out[i], dout->count, i);
	for (i = 0; i < o.count; i++) {
		sorted[i] = sh.lat_ns[i];
		sum += sh.lat_ns[i];
		if (sh.pe[i] < NPU_HW_MAX_PES)
			pe_count[sh.pe[i]]++;
	}
	qsort(sorted, o.count, sizeof(*sorted), cmp_u64);
	printf("inferences %lu, threads %u: latency ms min %.3f avg %.3f p50 %.3f p99 %.3f max %.3f\n",
	       o.count, o.threads, sorted[0] / 1e6, (double)sum / o.count / 1e6,
	       sorted[o.count / 2] / 1e6, sorted[(o.count * 99) / 100] / 1e6,
	       sorted[o.count - 1] / 1e6);
	printf("throughput %.2f inferences/s (wall %.3f s)\n",
	       o.count / (wall / 1e9), wall / 1e9);
	printf("per PE:");
	for (i = 0; i < NPU_HW_MAX_PES; i++)
		if (pe_count[i])
			printf(" pe%u=%lu", i, pe_count[i]);
	printf("\n");
	if (o.verify)
		printf("verify: %lu of %lu outputs differ from npuref\n",
		       (unsigned long)atomic_load(&sh.mismatches), o.count);
	status = atomic_load(&sh.failures) || atomic_load(&sh.mismatches) ? 1 : 0;
	free(sorted);
out:
	npu_runner_free(sh.runner);
	npu_device_close(dev);
	for (i = 0; i < MAX_INPUTS; i++) {
		free(sh.in[i].x);
		free(sh.in[i].q);
		free(sh.in[i].ref_out);
		free(sh.first_out[i]);
	}
	free(sh.lat_ns);
	free(sh.pe);
	npu_model_free(model);
	return status;
}
