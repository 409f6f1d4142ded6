/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * declared_fixture.h - what declared.sh must tell apart, for install.sh's
 * test of it (declared_fixture.c is its library).
 *
 * The functions it declares: fx_a, fx_attr, fx_b, fx_c99_inline, fx_one,
 * fx_ret_fp, fx_split, fx_typedefd. Not its functions: those of <stdio.h>,
 * fx_static_inline, the typedefs, the member, the macro and the variable.
 */
#ifndef DECLARED_FIXTURE_H
#define DECLARED_FIXTURE_H

#include <stdio.h>	/* declares functions, none of them this header's */

#ifdef __cplusplus
extern "C" {
#endif

#define FX_API __attribute__((visibility("default")))

FX_API int fx_one(void);

/* over several lines */
FX_API const char *
fx_split(int a,
	 long b);

/* static inline: the caller compiles it in, the library has none */
static inline int fx_static_inline(int x)
{
	return fx_one() + x;
}

/* a pointer to a function and a function type: typedefs, no function */
typedef int (*fx_cb)(int);
typedef int fx_fn_t(int);

/* a function declared through its type */
FX_API fx_fn_t fx_typedefd;

/* a member: no function */
struct fx_ops {
	int (*member)(void);
};

/* a function that returns a pointer to a function */
FX_API void (*fx_ret_fp(fx_cb cb))(int);

/* an attribute after the parameters */
FX_API int fx_attr(int x) __attribute__((warn_unused_result));

/* a macro: no function */
#define fx_macro(x) fx_one()

/* two in one declaration */
FX_API int fx_a(void), fx_b(int x);

/* a variable: no function */
extern FX_API int fx_var;

/* inline without static: a call may use the library's definition */
FX_API inline int fx_c99_inline(void)
{
	return 1;
}

#ifdef __cplusplus
}
#endif

#endif /* DECLARED_FIXTURE_H */
