/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * refcache.h - deterministic inputs and lib/npuref reference outputs for
 * npu-classify --verify and the VM tests.
 *
 * npuref is exact and slow; under TCG one MobileNet reference takes minutes.
 * A reference file holds, for a model and the K inputs of one seed, the
 * output slot npuref_run() produced on the host; it is tied to the model by
 * a CRC of slot 0 (constants + program) and used only when everything
 * matches.
 *
 * File layout (little-endian): struct nc_ref_hdr, then K output slots of
 * slot_size bytes each.
 */
#ifndef NPU_CLASSIFY_REFCACHE_H
#define NPU_CLASSIFY_REFCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "libnpu.h"

#define NC_REF_MAGIC	0x4645524e	/* "NREF" */
#define NC_REF_VERSION	1

struct nc_ref_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t model_crc;	/* npu_crc32 of the slot 0 image */
	uint32_t n_inputs;	/* K */
	uint64_t seed;		/* input k is nc_random_input(seed + k) */
	uint64_t slot_size;	/* bytes of the output slot */
};

/* input @seed: uniform over the input's representable range */
void nc_random_input(const struct npu_tensor_desc *d, float *x, uint64_t seed);

/* npuref_run() of @m on @x; *out (malloc) is the whole output slot */
int nc_reference(const struct npu_model *m, const float *x, uint8_t **out,
		 size_t *out_size);

/* write the K = @n references of inputs @seed .. @seed + n - 1 */
int nc_ref_write(const char *path, const struct npu_model *m, uint64_t seed,
		 unsigned int n, uint8_t *const *outs, size_t size);

/*
 * read them back into @outs (each malloc'ed); -ENOENT when missing,
 * -ESTALE when the file is for another model, seed or count, -EBADMSG when
 * malformed
 */
int nc_ref_read(const char *path, const struct npu_model *m, uint64_t seed,
		unsigned int n, uint8_t **outs, size_t size);

#endif /* NPU_CLASSIFY_REFCACHE_H */
