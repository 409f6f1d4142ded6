// SPDX-License-Identifier: GPL-2.0-only
/*
 * declared_fixture.c - a library for declared_fixture.h, for install.sh's
 * test of declared.sh: it defines every function the header declares, but
 * fx_split() only with -DFX_ALL.
 */
#include "declared_fixture.h"

int fx_var;

int fx_one(void)
{
	return 1;
}

#ifdef FX_ALL
const char *fx_split(int a, long b)
{
	return a + b ? "" : NULL;
}
#endif

int fx_typedefd(int x)
{
	return x;
}

static void fx_noop(int x)
{
	(void)x;
}

void (*fx_ret_fp(fx_cb cb))(int)
{
	(void)cb;
	return fx_noop;
}

int fx_attr(int x)
{
	return x;
}

int fx_a(void)
{
	return 0;
}

int fx_b(int x)
{
	return x;
}

/* the external definition of the inline function */
extern inline int fx_c99_inline(void);
