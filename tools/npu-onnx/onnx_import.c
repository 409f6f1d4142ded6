// SPDX-License-Identifier: GPL-2.0-only
/*
 * onnx_import.c - onnx_import(): parse, lower, emit (onnx_import.h).
 * A context per call, freed before it returns: no global state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"

int onnx_import(const void *buf, size_t len, const struct onnx_import_opts *opts,
		uint8_t **file, size_t *size, char *err, size_t errlen)
{
	struct ox_ctx *x;
	const char *name;
	int ret;

	if (err && errlen)
		err[0] = 0;
	if (!file || !size) {
		if (err && errlen)
			snprintf(err, errlen, "no output pointer");
		return -EINVAL;
	}
	*file = NULL;
	*size = 0;
	x = calloc(1, sizeof(*x));
	if (!x) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->opts = opts;
	x->msg = err;
	x->msglen = err ? errlen : 0;
	ret = ox_parse(x, buf, len);
	if (!ret)
		ret = ox_lower(x);
	if (!ret) {
		name = opts && opts->name && *opts->name ? opts->name :
		       x->g->name && *x->g->name ? x->g->name : "model";
		ret = ox_emit(x, name, file, size);
	}
	if (ret && !x->err)
		ox_fail(x, ret, "%s", strerror(-ret));
	ret = x->err;
	ox_free(x);
	free(x);
	return ret;
}
