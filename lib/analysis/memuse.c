// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memuse.c - a model's program: used against allocated bytes per operator
 * (memuse.h). Stub: the API is fixed, the figures come next.
 */
#include <errno.h>
#include <stdlib.h>

#include "compiler.h"
#include "memuse.h"

int npf_model_parse(const void *body, size_t len, struct npf_model **m,
		    char *err, size_t errlen)
{
	(void)body;
	(void)len;
	(void)err;
	(void)errlen;
	*m = NULL;
	return -ENODATA;
}

void npf_model_free(struct npf_model *m)
{
	free(m);
}

uint32_t npf_model_id(const struct npf_model *m)
{
	(void)m;
	return 0;
}

int32_t npf_model_pid(const struct npf_model *m)
{
	(void)m;
	return 0;
}

const char *npf_model_name(const struct npf_model *m)
{
	(void)m;
	return "";
}

uint32_t npf_model_nops(const struct npf_model *m)
{
	(void)m;
	return 0;
}

uint16_t npf_model_opcode(const struct npf_model *m, uint32_t op)
{
	(void)m;
	(void)op;
	return 0;
}

int npf_model_op_mem(const struct npf_model *m, uint32_t op,
		     struct npf_op_mem *out)
{
	(void)m;
	(void)op;
	(void)out;
	return -ENODATA;
}

int npf_model_mem(const struct npf_model *m, struct npf_model_mem *out)
{
	(void)m;
	(void)out;
	return -ENODATA;
}
