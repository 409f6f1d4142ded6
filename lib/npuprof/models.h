/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * models.h - the process's registered models (model.c) and the session
 * that writes them into its file.
 */
#ifndef NPF_MODELS_H
#define NPF_MODELS_H

#include <stddef.h>

/*
 * Writes one MODEL item (body @a of @alen bytes, then @b of @blen) into
 * @owner's file; returns 0 or -errno. Called with the registry's lock
 * held: it may take the session's lock, never the other way round.
 */
typedef int (*npf_model_write_fn)(void *owner, const void *a, size_t alen,
				  const void *b, size_t blen);

/*
 * npf_models_attach() - make @owner the session that receives the
 * models: every model registered so far is written now (through @fn),
 * each later one at its registration. One owner at a time: a second
 * attach replaces the first. Call without the session's lock.
 * Return: 0, or the first error of @fn (the models after it not written).
 */
int npf_models_attach(void *owner, npf_model_write_fn fn);

/* npf_models_detach() - @owner receives no more models (no-op if not it) */
void npf_models_detach(void *owner);

#endif /* NPF_MODELS_H */
