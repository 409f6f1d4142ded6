/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * op.h - npuprof op, the operator profiler (Documentation/npu/opprof.rst):
 * what its files share. op.c parses the command line, op_build.c turns an
 * opcode with shapes, or operators of a model, into one job (a program and
 * the images of its buffer slots), op_run.c runs that job on the device at
 * trace level 2 and reduces the OP records to a struct npo_result, and
 * op_out.c prints a result and keeps the result cache.
 *
 * Single-threaded; a struct npo_job and a struct npo_result belong to
 * their caller, who frees a job with npo_job_free().
 */
#ifndef NPUPROF_OP_H
#define NPUPROF_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/npu.h>

#define NPO_PROG	"npuprof op"
/* device operators one profile covers (one layer, or one --op-count run) */
#define NPO_MAX_OPS	16
/* slots of a job: the model's slots plus the one holding the program */
#define NPO_MAX_SLOTS	NPU_MAX_JOB_BUFS
#define NPO_NAME_LEN	64
#define NPO_DESC_LEN	256
#define NPO_KEY_LEN	512

/**
 * struct npo_spec - an operator given by opcode on the command line
 * @opcode: NPU_OP_*
 * @in: input dims (N, H, W, C for 4-D; M, K for fc and matmul)
 * @in_ndim: used dims of @in
 * @filters: CONV2D: output channels; FC/MATMUL: N
 * @kh: kernel height (convolutions and pools)
 * @kw: kernel width
 * @sh: vertical stride
 * @sw: horizontal stride
 * @pad_mode: 0 explicit (@pad), 1 same, 2 valid
 * @pad: top, left, bottom, right
 * @out: RESHAPE/TRANSPOSE/SLICE output dims (TRANSPOSE: the permutation)
 * @out_ndim: used entries of @out
 * @inputs: CONCAT: inputs (2 or 3); @axis its axis
 * @axis: CONCAT axis
 * @plain: activations PLAIN instead of NCHWC16 (4-D ones)
 */
struct npo_spec {
	uint16_t opcode;
	uint32_t in[4];
	unsigned int in_ndim;
	uint32_t filters;
	uint32_t kh, kw, sh, sw;
	unsigned int pad_mode;
	uint32_t pad[4];
	uint32_t out[4];
	unsigned int out_ndim;
	unsigned int inputs;
	uint32_t axis;
	bool plain;
};

/**
 * struct npo_job - one job to time: its slots' contents and its program
 * @nslots: buffer slots
 * @size: bytes of each slot
 * @image: initial contents of each slot (@size bytes, malloc'd), or NULL
 *	for zeros
 * @prog_slot: slot holding the program
 * @prog_off: its offset there, a multiple of 64
 * @prog_size: its bytes
 * @n_ops: operators of the program (1..NPO_MAX_OPS)
 * @first_op: index in the source model of the first operator (0 for a
 *	command-line operator)
 * @opcode: the opcode of each operator
 * @layer: the layer name of each operator ("" when unknown)
 * @desc: what is profiled, one line ("conv2d in=1x112x112x32 ...",
 *	"mobilenet-v1 op 3..3")
 * @key: the cache key's operator part: @desc plus a hash of the program
 */
struct npo_job {
	unsigned int nslots;
	size_t size[NPO_MAX_SLOTS];
	uint8_t *image[NPO_MAX_SLOTS];
	unsigned int prog_slot;
	uint32_t prog_off;
	uint32_t prog_size;
	unsigned int n_ops;
	uint32_t first_op;
	uint16_t opcode[NPO_MAX_OPS];
	char layer[NPO_MAX_OPS][NPO_NAME_LEN];
	char desc[NPO_DESC_LEN];
	char key[NPO_KEY_LEN];
};

/**
 * struct npo_dist - a latency distribution over the runs, in ns
 * @min: smallest
 * @median: the middle one (the lower of the two middle ones)
 * @p99: nearest rank: the ceil(0.99 * runs)-th smallest
 * @max: largest
 * @mean: arithmetic mean
 */
struct npo_dist {
	uint64_t min, median, p99, max;
	double mean;
};

/**
 * struct npo_opres - one device operator of a result
 * @op_index: index in the source model (or 0)
 * @opcode: NPU_OP_*
 * @layer: layer name or ""
 * @lat: device time of the operator (end - start), ns
 * @iowait: DMA wait (iowait_ticks), ns
 * @run: device time less the DMA wait, ns
 * @macs: multiply-accumulates (from the device record)
 * @dma_bytes: bytes the DMA engine moved (from the device record)
 * @sram_bytes: on-chip memory the operator needs (opprof.rst)
 * @compute_ns: modelled compute: ceil(macs / MACS_PER_CYCLE) ticks
 * @dma_ns: modelled DMA: ceil(dma_bytes * CLOCK_HZ / DMA_BW) ticks
 */
struct npo_opres {
	uint32_t op_index;
	uint16_t opcode;
	char layer[NPO_NAME_LEN];
	struct npo_dist lat, iowait, run;
	uint64_t macs, dma_bytes, sram_bytes;
	uint64_t compute_ns, dma_ns;
};

/**
 * struct npo_result - what npuprof op measured, the cached value
 * @desc: the job's @desc
 * @device: device node
 * @hw_version: npu_info.hw_version
 * @pe_count: npu_info.pe_count
 * @pe: the PE the runs were submitted to
 * @clock_hz: npu_info.clock_hz
 * @macs_per_cycle: npu_info.macs_per_cycle
 * @dma_bw: npu_info.dma_bw, 10^6 B/s
 * @sram_size: npu_info.sram_size, bytes per PE
 * @runs: timed runs
 * @warmup: untimed runs before them
 * @n_ops: entries of @op
 * @op: the operators
 * @total: the whole job (sum of its operators) per run
 * @total_iowait: its DMA wait
 * @macs: sum over @op
 * @dma_bytes: sum over @op
 * @sram_bytes: the largest on-chip need of the sequence (opprof.rst)
 * @cached: filled from the cache, not measured now (not stored)
 */
struct npo_result {
	char desc[NPO_DESC_LEN];
	char device[64];
	uint32_t hw_version;
	uint32_t pe_count;
	uint32_t pe;
	uint64_t clock_hz;
	uint32_t macs_per_cycle;
	uint32_t dma_bw;
	uint32_t sram_size;
	uint32_t runs;
	uint32_t warmup;
	uint32_t n_ops;
	struct npo_opres op[NPO_MAX_OPS];
	struct npo_dist total, total_iowait;
	uint64_t macs, dma_bytes, sram_bytes;
	bool cached;
};

/* the subcommand (op.c), listed in main.c's table */
extern const struct npc_cmd npc_cmd_op;

/* op_build.c */

/* Name of an opcode as the command line spells it ("conv2d"), or NULL */
const char *npo_opcode_cli_name(uint16_t opcode);
/* The opcode of a command-line name ("fc" and "matmul" included); 0 if none */
uint16_t npo_opcode_parse(const char *name);
/*
 * Build the one-operator job of @s; returns 0, or 2 after a usage message
 * (a shape the operator refuses), 1 after a runtime error.
 */
int npo_build_spec(const struct npo_spec *s, struct npo_job *job);
/*
 * Build the job of operators [@first, @first + @count) of the model at
 * @path, over the model's own slots and constants; with @layer (not NULL)
 * the operators of that layer instead. Returns 0, 2 (bad selection) or 1.
 */
int npo_build_model(const char *path, const char *layer, uint32_t first,
		    uint32_t count, struct npo_job *job);
/* Print the operators of the model at @path, one a line; 0 or 1 */
int npo_list_model(const char *path, FILE *out);
void npo_job_free(struct npo_job *job);

/* op_run.c */

/**
 * struct npo_run_opts - how to run a job
 * @device: device node
 * @pe: PE to submit to, or -1 for PE 0
 * @runs: timed runs, >= 1
 * @warmup: untimed runs first
 * @timeout_ms: bound of one job's wait
 */
struct npo_run_opts {
	const char *device;
	int pe;
	uint32_t runs;
	uint32_t warmup;
	uint32_t timeout_ms;
};

/*
 * The device model of @dev_path as "hw=1.0 pes=2 clock=... mpc=... dma=...
 * sram=..." for the cache key, and its npu_info; 0 or 1 after a message.
 */
int npo_device_model(const char *dev_path, struct npu_info *info,
		     char *buf, size_t len);
/* Run @job as @o says and fill @res; 0 or 1 after a message */
int npo_run(const struct npo_job *job, const struct npo_run_opts *o,
	    const struct npu_info *info, struct npo_result *res);
/* Distribution of @n values (sorted in place), ns */
void npo_dist(uint64_t *v, uint32_t n, struct npo_dist *d);
/* Fill the derived fields of @res (modelled times, SRAM, totals' sums) */
void npo_result_derive(struct npo_result *res);

/* op_out.c */

enum { NPO_FMT_TABLE, NPO_FMT_CSV, NPO_FMT_JSON };

/* Peak of one PE, GMAC/s: MACS_PER_CYCLE * CLOCK_HZ / 10^9 */
double npo_peak_gmacs(const struct npo_result *res);
/* Print @res in @format (NPO_FMT_*) */
void npo_print(const struct npo_result *res, unsigned int format, FILE *out);

/*
 * The cache directory: @dir when not NULL, else $XDG_CACHE_HOME/npuprof/ops,
 * else $HOME/.cache/npuprof/ops; -ENOENT when none can be named
 */
int npo_cache_dir(const char *dir, char *buf, size_t len);
/* Look @key up in @dir; 1 found (@res filled), 0 not there, <0 error */
int npo_cache_get(const char *dir, const char *key, struct npo_result *res);
/* Store @res under @key in @dir (created as needed); 0 or -errno */
int npo_cache_put(const char *dir, const char *key,
		  const struct npo_result *res);
/* Entries and bytes of the cache in @dir (0 and 0 when it does not exist) */
int npo_cache_info(const char *dir, uint64_t *entries, uint64_t *bytes);
/* Remove every entry of @dir; the entries removed, or -errno */
long npo_cache_clear(const char *dir);
/* 64-bit FNV-1a of @len bytes, continuing from @h (start: NPO_FNV_INIT) */
#define NPO_FNV_INIT	0xcbf29ce484222325ull
uint64_t npo_fnv(uint64_t h, const void *p, size_t len);

#endif /* NPUPROF_OP_H */
