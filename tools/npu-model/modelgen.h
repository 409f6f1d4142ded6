/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * modelgen.h - build deterministic quantized networks as NPU model files
 * (Documentation/npu/model.rst). Used by npu-model-gen and the host tests.
 */
#ifndef NPU_MODELGEN_H
#define NPU_MODELGEN_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct mg_net - a network the generator knows
 * @name: name given on the command line and stored in the file
 * @desc: one line for --list
 */
struct mg_net {
	const char *name;
	const char *desc;
};

/**
 * mg_nets() - the networks the generator knows
 * @count: out: entries
 *
 * Return: a static table.
 */
const struct mg_net *mg_nets(size_t *count);

/**
 * mg_build() - build network @name into a model file image
 * @name: one of mg_nets()
 * @seed: PRNG seed of weights and calibration data (same seed, same bytes)
 * @file: out: malloc()ed file image
 * @size: out: bytes of @file
 * @err: message buffer
 * @errlen: bytes of @err
 *
 * Weights come from a fixed-seed PRNG; the quantization parameters of every
 * activation are calibrated by a float forward pass over PRNG inputs.
 *
 * The file has a layer table (include/npu/npu_model_layers.h) naming
 * every operator after its layer (Documentation/npu/model.rst,
 * "Generated networks").
 *
 * Return: 0, -ENOENT for an unknown name, -ENOMEM.
 */
int mg_build(const char *name, uint64_t seed, uint8_t **file, size_t *size,
	     char *err, size_t errlen);

/**
 * mg_build_params() - as mg_build(), also dumping the parameters
 * @name: one of mg_nets()
 * @seed: PRNG seed
 * @params_dir: NULL, or a directory (created if missing, one level) that
 *	receives params.json and the raw weight and bias files
 *	(Documentation/npu/model.rst, "Parameters dump")
 * @file: out: malloc()ed file image
 * @size: out: bytes of @file
 * @err: message buffer
 * @errlen: bytes of @err
 *
 * Return: as mg_build(), or a negative errno of writing @params_dir (then
 * @err names the file and no image is returned).
 */
int mg_build_params(const char *name, uint64_t seed, const char *params_dir,
		    uint8_t **file, size_t *size, char *err, size_t errlen);

#endif /* NPU_MODELGEN_H */
