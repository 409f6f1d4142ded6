// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * model.c - the models the process loaded (npuprof_model_register()), for
 * the trace files: each becomes a MODEL item (trace_format.h) in the file
 * of the session that captures the process's host spans, once, at the
 * session's start or at its registration, whichever comes later. The item
 * carries the program and, when the model has one, its layer table.
 *
 * Locking: one mutex (npf_models_lock) guards the list and the attached
 * session; a session's writer callback is called with it held and takes
 * the session's lock, never the other way round. Lifetime: an entry lives
 * from its registration to its unregistration; a child after fork() keeps
 * the entries and has no session attached.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "models.h"
#include "npu/npu_model_layers.h"
#include "trace_format.h"

_Static_assert(NPUPROF_MODEL_MAX_SLOTS == NPF_MODEL_MAX_SLOTS,
	       "the public and the file's slot limits agree");
_Static_assert(sizeof(struct npf_item_model) % 8 == 0,
	       "the program follows the header 8-aligned");
_Static_assert(sizeof(struct npf_item) + sizeof(struct npf_item_model) +
	       NPUPROF_MODEL_MAX_ITEM <= NPF_CHUNK_DEFAULT,
	       "a MODEL item fits a chunk of the sessions' files");
_Static_assert(NPUPROF_MODEL_MAX_PROGRAM <= NPUPROF_MODEL_MAX_ITEM &&
	       NPUPROF_MODEL_MAX_LAYERS <= NPUPROF_MODEL_MAX_ITEM,
	       "each part alone fits an item");

/*
 * @body: the MODEL item's body after @hdr: the program, zeros up to a
 * multiple of 8, then the layer table when there is one; @body_size bytes
 */
struct npf_model_ent {
	struct npf_model_ent *next;
	struct npf_item_model hdr;
	void *body;
	size_t body_size;
};

static pthread_mutex_t npf_models_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npf_model_ent *npf_models;	/* newest first */
static uint32_t npf_models_next;		/* last id given */
static void *npf_models_owner;
static npf_model_write_fn npf_models_fn;
static pthread_once_t npf_models_once = PTHREAD_ONCE_INIT;

static void npf_models_atfork_child(void)
{
	/* the parent's session is not the child's */
	pthread_mutex_init(&npf_models_lock, NULL);
	npf_models_owner = NULL;
	npf_models_fn = NULL;
}

static void npf_models_init(void)
{
	pthread_atfork(NULL, NULL, npf_models_atfork_child);
}

/* Write entry @e to the attached session; under npf_models_lock */
static int npf_model_write(struct npf_model_ent *e)
{
	e->hdr.pid = getpid();
	return npf_models_fn(npf_models_owner, &e->hdr, sizeof(e->hdr),
			     e->body, e->body_size);
}

NPUPROF_EXPORT
int npuprof_model_register(const struct npuprof_model_desc *desc,
			   uint32_t *model_id)
{
	const void *layers = NULL;
	size_t layers_size = 0, prog_pad;
	struct npf_model_ent *e;
	unsigned int i;

	if (!desc || !model_id || desc->sz < NPUPROF_MODEL_DESC_SZ_V0 ||
	    !desc->program || !desc->slot_sizes || !desc->n_slots ||
	    desc->n_slots > NPUPROF_MODEL_MAX_SLOTS ||
	    desc->program_size < 32)
		return -EINVAL;
	/* a caller built before the layer table passes the older size */
	if (desc->sz >= offsetof(struct npuprof_model_desc, layers_size) +
			sizeof(desc->layers_size)) {
		layers = desc->layers;
		layers_size = desc->layers_size;
		if (!layers != !layers_size ||
		    (layers && layers_size < sizeof(struct npu_layers_hdr)))
			return -EINVAL;
	}
	if (desc->program_size > NPUPROF_MODEL_MAX_PROGRAM ||
	    layers_size > NPUPROF_MODEL_MAX_LAYERS)
		return -E2BIG;
	prog_pad = NPF_ALIGN8(desc->program_size);
	if (prog_pad + layers_size > NPUPROF_MODEL_MAX_ITEM)
		return -E2BIG;
	pthread_once(&npf_models_once, npf_models_init);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->body_size = layers ? prog_pad + layers_size : desc->program_size;
	e->body = calloc(1, e->body_size);
	if (!e->body) {
		free(e);
		return -ENOMEM;
	}
	memcpy(e->body, desc->program, desc->program_size);
	if (layers)
		memcpy((uint8_t *)e->body + prog_pad, layers, layers_size);
	if (desc->name)
		strncpy(e->hdr.name, desc->name, sizeof(e->hdr.name) - 1);
	e->hdr.n_slots = desc->n_slots;
	e->hdr.prog_size = (uint32_t)desc->program_size;
	for (i = 0; i < desc->n_slots; i++) {
		e->hdr.slot_size[i] = desc->slot_sizes[i];
		e->hdr.slot_kind[i] = desc->slot_kinds ? desc->slot_kinds[i] : 0;
	}
	pthread_mutex_lock(&npf_models_lock);
	e->hdr.model_id = ++npf_models_next;
	if (!e->hdr.model_id)		/* 2^32 registrations: skip 0 */
		e->hdr.model_id = ++npf_models_next;
	e->next = npf_models;
	npf_models = e;
	if (npf_models_fn)
		npf_model_write(e);	/* the session logs its own errors */
	pthread_mutex_unlock(&npf_models_lock);
	*model_id = e->hdr.model_id;
	return 0;
}

NPUPROF_EXPORT
int npuprof_model_unregister(uint32_t model_id)
{
	struct npf_model_ent **p, *e = NULL;

	pthread_mutex_lock(&npf_models_lock);
	for (p = &npf_models; *p; p = &(*p)->next)
		if ((*p)->hdr.model_id == model_id) {
			e = *p;
			*p = e->next;
			break;
		}
	pthread_mutex_unlock(&npf_models_lock);
	if (!e)
		return -ENOENT;
	free(e->body);
	free(e);
	return 0;
}

/* The entries oldest first: the file lists models in load order */
static int npf_models_write_all(struct npf_model_ent *e)
{
	int ret;

	if (!e)
		return 0;
	ret = npf_models_write_all(e->next);
	return ret ? ret : npf_model_write(e);
}

int npf_models_attach(void *owner, npf_model_write_fn fn)
{
	int ret;

	pthread_once(&npf_models_once, npf_models_init);
	pthread_mutex_lock(&npf_models_lock);
	npf_models_owner = owner;
	npf_models_fn = fn;
	ret = npf_models_write_all(npf_models);
	pthread_mutex_unlock(&npf_models_lock);
	return ret;
}

void npf_models_detach(void *owner)
{
	pthread_mutex_lock(&npf_models_lock);
	if (npf_models_owner == owner) {
		npf_models_owner = NULL;
		npf_models_fn = NULL;
	}
	pthread_mutex_unlock(&npf_models_lock);
}
