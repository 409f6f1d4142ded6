/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * op_test.h - what the npuprof op VM tests share: running "npuprof op"
 * with --format json into a file and reading numbers out of its one JSON
 * object (Documentation/npu/opprof.rst gives the keys). The object is
 * flat but for "device", "ops" (an array of objects) and "total", so a
 * key is looked up after an anchor: the start, the Nth operator object or
 * the total. Single-threaded; header-only.
 */
#ifndef NPUPROF_OP_TEST_H
#define NPUPROF_OP_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../npuprof/npuprof_run.h"

#define OP_OUT	"/tmp/npuprof-op.json"
#define OP_ERR	"/tmp/npuprof-op.err"
#define OP_BUF	65536

/* "npuprof op ARGS... --format json" into @buf; its exit status */
static inline int op_json(char *buf, char *const args[])
{
	char *argv[64];
	int n = 0, i, st;

	argv[n++] = "npuprof";
	argv[n++] = "op";
	for (i = 0; args[i] && n < 60; i++)
		argv[n++] = args[i];
	argv[n++] = "--format";
	argv[n++] = "json";
	argv[n] = NULL;
	st = run(argv, OP_OUT, OP_ERR);
	if (slurp(st ? OP_ERR : OP_OUT, buf, OP_BUF))
		buf[0] = '\0';
	return st;
}

/* where operator @i's object starts, or NULL */
static inline const char *op_obj(const char *buf, unsigned int i)
{
	const char *p = strstr(buf, "\"ops\": [");
	unsigned int k;

	for (k = 0; p && k <= i; k++)
		p = strstr(p + 1, "{\"index\"");
	return p;
}

static inline const char *op_total(const char *buf)
{
	return strstr(buf, "\"total\": {");
}

/* the number of "@key" at or after @from; -1 when missing */
static inline double op_num(const char *from, const char *key)
{
	char k[64];
	const char *p;

	if (!from)
		return -1;
	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(from, k);
	return p ? strtod(p + strlen(k), NULL) : -1;
}

static inline uint64_t op_u64(const char *from, const char *key)
{
	char k[64];
	const char *p;

	if (!from)
		return UINT64_MAX;
	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(from, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : UINT64_MAX;
}

/* the string value of @key after @from into @out ("" when missing) */
static inline void op_str(const char *from, const char *key, char *out,
			  size_t len)
{
	char k[64];
	const char *p, *e;

	out[0] = '\0';
	if (!from)
		return;
	snprintf(k, sizeof(k), "\"%s\": \"", key);
	p = strstr(from, k);
	if (!p)
		return;
	p += strlen(k);
	e = strchr(p, '"');
	if (e && (size_t)(e - p) < len) {
		memcpy(out, p, e - p);
		out[e - p] = '\0';
	}
}

/* ceil(a / b) */
static inline uint64_t op_ceil(uint64_t a, uint64_t b)
{
	return a / b + (a % b ? 1 : 0);
}

/* the cost model's DMA ticks of @bytes (hw.rst, "Timing model") */
static inline uint64_t op_dma_ticks(uint64_t bytes, uint64_t clock_hz,
				    uint64_t dma_bw)
{
	unsigned __int128 num = (unsigned __int128)bytes * clock_hz;
	unsigned __int128 den = (unsigned __int128)dma_bw * 1000000u;

	return (uint64_t)(num / den + (num % den ? 1 : 0));
}

#endif /* NPUPROF_OP_TEST_H */
