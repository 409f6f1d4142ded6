// SPDX-License-Identifier: GPL-2.0-only
/* refcache.c - see refcache.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu/npu_model_file.h"
#include "npuref.h"
#include "refcache.h"

void nc_random_input(const struct npu_tensor_desc *d, float *x, uint64_t seed)
{
	float lo = (0 - d->zero_point) * d->scale;
	float hi = (255 - d->zero_point) * d->scale;
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < d->count; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x[i] = lo + (hi - lo) * (float)(s >> 40) / 16777216.0f;
	}
}

int nc_reference(const struct npu_model *m, const float *x, uint8_t **out,
		 size_t *out_size)
{
	const struct npu_tensor_desc *in = npu_model_input(m, 0);
	const struct npu_tensor_desc *o = npu_model_output(m, 0);
	struct npuref_buf s[NPU_MODEL_MAX_SLOTS];
	unsigned int i, n = npu_model_num_slots(m);
	uint8_t *q = malloc(in->count);
	uint32_t po, ps;
	size_t isz;
	const void *img = npu_model_const_image(m, &isz, &po, &ps);
	int ret = -ENOMEM;

	memset(s, 0, sizeof(s));
	if (!q)
		return ret;
	for (i = 0; i < n; i++) {
		npu_model_slot(m, i, NULL, &s[i].size);
		s[i].base = calloc(1, s[i].size);
		if (!s[i].base)
			goto out;
	}
	memcpy(s[0].base, img, isz);
	ret = npu_quantize(x, q, in->count, in->scale, in->zero_point);
	if (!ret)
		ret = npu_lower(q, (uint8_t *)s[in->slot].base + in->offset,
				in->dev_size, in->dims, in->layout,
				(uint8_t)in->zero_point);
	if (!ret)
		ret = npuref_run((uint8_t *)s[0].base + po, ps, s, n, 0, NULL);
	if (ret > 0)
		ret = -EIO;	/* a device status: the program failed */
	if (!ret) {
		*out = s[o->slot].base;
		*out_size = s[o->slot].size;
		s[o->slot].base = NULL;
	}
out:
	for (i = 0; i < n; i++)
		free(s[i].base);
	free(q);
	return ret;
}

static uint32_t model_crc(const struct npu_model *m)
{
	size_t isz;
	const void *img = npu_model_const_image(m, &isz, NULL, NULL);

	return npu_crc32(0, img, isz);
}

int nc_ref_write(const char *path, const struct npu_model *m, uint64_t seed,
		 unsigned int n, uint8_t *const *outs, size_t size)
{
	struct nc_ref_hdr h = {
		.magic = NC_REF_MAGIC, .version = NC_REF_VERSION,
		.model_crc = model_crc(m), .n_inputs = n, .seed = seed,
		.slot_size = size,
	};
	FILE *f = fopen(path, "wb");
	unsigned int k;
	int ret = 0;

	if (!f)
		return -errno;
	if (fwrite(&h, sizeof(h), 1, f) != 1)
		ret = -EIO;
	for (k = 0; !ret && k < n; k++)
		if (fwrite(outs[k], 1, size, f) != size)
			ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

int nc_ref_read(const char *path, const struct npu_model *m, uint64_t seed,
		unsigned int n, uint8_t **outs, size_t size)
{
	struct nc_ref_hdr h;
	FILE *f = fopen(path, "rb");
	unsigned int k;
	int ret = 0;

	if (!f)
		return -errno;
	if (fread(&h, sizeof(h), 1, f) != 1 || h.magic != NC_REF_MAGIC ||
	    h.version != NC_REF_VERSION) {
		/* a read error (EISDIR for a directory) is not a bad file */
		ret = ferror(f) && errno ? -errno : -EBADMSG;
		fclose(f);
		return ret;
	}
	if (h.model_crc != model_crc(m) || h.seed != seed || h.n_inputs != n ||
	    h.slot_size != size) {
		fclose(f);
		return -ESTALE;
	}
	for (k = 0; k < n; k++)
		outs[k] = NULL;
	for (k = 0; !ret && k < n; k++) {
		outs[k] = malloc(size);
		if (!outs[k])
			ret = -ENOMEM;
		else if (fread(outs[k], 1, size, f) != size)
			ret = -EBADMSG;
	}
	if (!ret && fgetc(f) != EOF)
		ret = -EBADMSG;
	fclose(f);
	if (ret)
		for (k = 0; k < n; k++) {
			free(outs[k]);
			outs[k] = NULL;
		}
	return ret;
}
