// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace.c - the public reader of trace files: npuprof_trace_*.
 *
 * Opening a file fits each device's clock (clock.c) from its samples: those
 * of the file's index (the CLOCKS items at its end, found from its last
 * chunk: npf_reader_index()) when it has one, else those of a first pass
 * over the whole file that keeps only the devices and their CLOCK records.
 * The events then come in file order with device times mapped to host
 * time. Memory is the reader's chunk buffer, the clock samples, and the
 * last few label strings (a label's STRING item is written just before
 * its SPAN item by the same thread, so a small cache resolves every label
 * of a well-formed file).
 *
 * A reader is used by one thread at a time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "memuse.h"
#include "reader.h"
#include "ring_parse.h"
#include "trace.h"

#define NPF_TRACE_MAX_DEVS	64
#define NPF_STR_CACHE		64

struct npf_str {
	uint32_t id;
	char *text;
};

struct npf_samples {
	struct npf_clock_sample *s;
	size_t n, cap;
	uint64_t clock_hz;
};

struct npuprof_trace {
	struct npf_reader *r;
	char *path;
	char err[512];
	int bad;			/* a RECORDS item was corrupt */
	/* the RECORDS item being walked */
	const uint8_t *run;
	uint32_t run_left;		/* bytes */
	uint32_t run_count;		/* records still announced */
	uint32_t run_dev;
	uint64_t run_off;		/* file offset of the next record */
	/* the SPANS item being walked (npf_spans_next()) */
	const struct npf_span_c *sp_next;
	uint32_t sp_left;		/* spans still to give */
	uint32_t sp_clock;		/* NPF_SPANS_CLOCK_* */
	uint64_t sp_off;		/* file offset of the next span */
	uint64_t sp_time;		/* the last span's start, in sp_clock */
	struct npuprof_span_rec sp_rec;	/* the last span given */
	/* the host TSC's fit, from the HOST_CLOCK samples (tsc_fit.nseg) */
	struct npf_clock_fit tsc_fit;
	uint32_t tsc_piece;
	uint32_t ndev;
	struct npf_clock_fit fit[NPF_TRACE_MAX_DEVS];
	uint32_t piece[NPF_TRACE_MAX_DEVS];	/* npf_clock_map_cached()'s */
	struct npf_str str[NPF_STR_CACHE];
	unsigned int nstr_next;
	int64_t last_time;
	bool keep;
	struct npf_samples *kept;	/* the fits' samples, with @keep */
	/* the causality check of this pass (npf_check_exec()) */
	bool saw_fit;			/* the file has CLOCK_FIT items */
	uint32_t fit_next;		/* the next fit to give before @held */
	const struct npf_item *held;	/* the SUMMARY item, after the fits */
	uint64_t held_off;
	struct npf_check {
		uint64_t checked;
		uint64_t violations;
	} chk[NPF_TRACE_MAX_DEVS];
	/* the models of the MODEL items read (memuse.h), in file order */
	struct npf_model **models;
	size_t nmodels, models_cap;
	uint64_t models_bad;		/* damaged MODEL items skipped */
	uint64_t models_off;		/* MODEL items before it were seen */
	char models_err[256];		/* the last one's message */
	uint64_t layers_bad;		/* layer tables dropped */
	char layers_err[256];		/* the last one's message */
	const char *skipped_last;	/* models_err or layers_err, or "" */
};

/* Room in @v for @n more samples */
static int npf_samples_room(struct npf_samples *v, size_t n)
{
	size_t cap = v->cap ? v->cap : 64;
	void *p;

	/* at most half of SIZE_MAX in bytes: the doubling cannot wrap */
	if (n > SIZE_MAX / 2 / sizeof(*v->s) - v->n)
		return -ENOMEM;
	while (cap < v->n + n)
		cap *= 2;
	if (cap == v->cap)
		return 0;
	p = realloc(v->s, cap * sizeof(*v->s));
	if (!p)
		return -ENOMEM;
	v->s = p;
	v->cap = cap;
	return 0;
}

static int npf_push_sample(struct npf_samples *v,
			   const struct npu_trace_rec_clock *c)
{
	if (v->n == v->cap && npf_samples_room(v, 1))
		return -ENOMEM;
	v->s[v->n].before_ns = c->host_before_ns;
	v->s[v->n].tick = c->device_tick;
	v->s[v->n].after_ns = c->host_after_ns;
	v->n++;
	return 0;
}

/*
 * A MODEL item at file offset @off: its model kept (a later item with the
 * same id replaces nothing: the first one wins, as for SUBMIT spans), or
 * the item skipped and counted when it is damaged.
 */
static int npf_model_item(struct npuprof_trace *t, const struct npf_item *it,
			  uint64_t off)
{
	struct npf_model *m;
	char msg[160];
	void *p;
	int ret;

	/* after a rewind: seen already */
	if (off < t->models_off)
		return 0;
	t->models_off = off + 1;
	ret = npf_model_parse(it + 1, it->size - sizeof(*it), &m, msg,
			      sizeof(msg));
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		t->models_bad++;
		snprintf(t->models_err, sizeof(t->models_err),
			 "%s: offset %llu: model: %s", t->path,
			 (unsigned long long)off, msg);
		t->skipped_last = t->models_err;
		return 0;
	}
	if (npf_trace_model(t, npf_model_id(m))) {
		npf_model_free(m);
		return 0;
	}
	if (*npf_model_layers_error(m)) {
		/* the model stays, without its layers */
		t->layers_bad++;
		snprintf(t->layers_err, sizeof(t->layers_err),
			 "%s: offset %llu: model %u: layer table: %s", t->path,
			 (unsigned long long)off, npf_model_id(m),
			 npf_model_layers_error(m));
		t->skipped_last = t->layers_err;
	}
	if (t->nmodels == t->models_cap) {
		size_t cap = t->models_cap ? 2 * t->models_cap : 8;

		p = realloc(t->models, cap * sizeof(*t->models));
		if (!p) {
			npf_model_free(m);
			return -ENOMEM;
		}
		t->models = p;
		t->models_cap = cap;
	}
	t->models[t->nmodels++] = m;
	return 0;
}

const struct npf_model *npf_trace_model(const struct npuprof_trace *t,
					uint32_t id)
{
	size_t i;

	/* models are few: one per model a process loaded */
	for (i = 0; t && id && i < t->nmodels; i++)
		if (npf_model_id(t->models[i]) == id)
			return t->models[i];
	return NULL;
}

size_t npf_trace_nmodels(const struct npuprof_trace *t)
{
	return t ? t->nmodels : 0;
}

const struct npf_model *npf_trace_model_at(const struct npuprof_trace *t,
					   size_t i)
{
	return t && i < t->nmodels ? t->models[i] : NULL;
}

uint64_t npf_trace_models_bad(const struct npuprof_trace *t,
			      const char **msg)
{
	if (msg)
		*msg = t ? t->models_err : "";
	return t ? t->models_bad : 0;
}

uint64_t npf_trace_layers_bad(const struct npuprof_trace *t,
			      const char **msg)
{
	if (msg)
		*msg = t ? t->layers_err : "";
	return t ? t->layers_bad : 0;
}

int npf_trace_load_models(struct npuprof_trace *t)
{
	const struct npf_item *it;
	uint64_t off;
	int ret;

	if (!t)
		return -EINVAL;
	ret = npuprof_trace_rewind(t);
	while (!ret && (ret = npf_reader_next(t->r, &it, &off)) > 0) {
		ret = 0;
		if (it->type == NPF_ITEM_MODEL)
			ret = npf_model_item(t, it, off);
	}
	if (npuprof_trace_rewind(t) && !ret)
		ret = -EIO;
	return ret < 0 ? ret : (int)t->nmodels;
}

/* Start walking the records of a RECORDS item at file offset @off. */
static void npf_run_start(struct npuprof_trace *t, const struct npf_item *it,
			  uint64_t off)
{
	const struct npf_item_records *ir = (const void *)(it + 1);

	t->run = (const uint8_t *)(ir + 1);
	t->run_left = it->size - sizeof(*it) - sizeof(*ir);
	t->run_count = ir->count;
	t->run_dev = ir->dev;
	t->run_off = off + sizeof(*it) + sizeof(*ir);
}

static int npf_run_bad(struct npuprof_trace *t, const char *what)
{
	snprintf(t->err, sizeof(t->err), "%s: offset %llu: %s", t->path,
		 (unsigned long long)t->run_off, what);
	t->bad = -EBADMSG;
	t->run_left = 0;
	t->run_count = 0;
	return -EBADMSG;
}

/*
 * The next record of the current RECORDS item: 1 with *@h set, 0 when the
 * item is done, -EBADMSG when it is corrupt (sizes that do not add up, a
 * known type shorter than its struct, a count that does not match).
 */
static inline __attribute__((always_inline)) int
npf_run_next(struct npuprof_trace *t, const struct npu_trace_rec_hdr **h,
	     uint64_t *off)
{
	const struct npu_trace_rec_hdr *r;
	struct npu_trace_rec_hdr hd;

	for (;;) {
		if (!t->run_left) {
			if (t->run_count)
				return npf_run_bad(t, "RECORDS item holds fewer records than its count");
			return 0;
		}
		if (t->run_left < sizeof(hd))
			return npf_run_bad(t, "ring record header cut short");
		r = (const void *)t->run;
		memcpy(&hd, r, sizeof(hd));
		if (hd.size < sizeof(hd) || hd.size % 8 || hd.size > t->run_left)
			return npf_run_bad(t, "ring record size is not a multiple of 8 inside its item");
		/* the usual types without a call */
		if (hd.type == NPU_TRACE_REC_OP ?
		    hd.size < sizeof(struct npu_trace_rec_op) :
		    hd.type == NPU_TRACE_REC_EXEC ?
		    hd.size < sizeof(struct npu_trace_rec_exec) :
		    hd.size < npf_ring_rec_min_size(hd.type))
			return npf_run_bad(t, "ring record shorter than its type");
		*off = t->run_off;
		t->run += hd.size;
		t->run_left -= hd.size;
		t->run_off += hd.size;
		if (hd.type == NPU_TRACE_REC_PAD)
			continue;
		if (!t->run_count)
			return npf_run_bad(t, "RECORDS item holds more records than its count");
		t->run_count--;
		*h = r;
		return 1;
	}
}

/*
 * Pass 1's walk of a RECORDS item: its CLOCK records into @v. The reader
 * checked that the records' sizes fill the item (tracefile.c); the walk
 * stops where npf_run_next() would, at a record shorter than its type.
 * Return: 0 or -ENOMEM.
 */
static int npf_run_clocks(struct npuprof_trace *t, const struct npf_item *it,
			  uint64_t off, struct npf_samples *v)
{
	const uint8_t *p, *end;
	int ret;

	npf_run_start(t, it, off);
	if (t->run_dev >= NPF_TRACE_MAX_DEVS)
		return 0;
	p = t->run;
	end = p + t->run_left;
	while (end - p >= (ptrdiff_t)sizeof(struct npu_trace_rec_hdr)) {
		struct npu_trace_rec_hdr hd;

		memcpy(&hd, p, sizeof(hd));
		if (hd.size < sizeof(hd) || hd.size % 8 || hd.size > end - p ||
		    hd.size < npf_ring_rec_min_size(hd.type))
			break;
		if (hd.type == NPU_TRACE_REC_CLOCK) {
			ret = npf_push_sample(&v[t->run_dev], (const void *)p);
			if (ret)
				return ret;
		}
		p += hd.size;
	}
	return 0;
}

/*
 * The devices and their clock samples from the file's index: 0; -ENOENT
 * when the file has none, or one that is not sound (pass 1 then reads the
 * whole file, and reports what is corrupt); -ENOMEM.
 */
static int npf_trace_index(struct npuprof_trace *t, struct npf_samples *v)
{
	const struct npf_item *it;
	uint64_t off, seq;
	int ret;

	if (npf_reader_index(t->r, &off, &seq) ||
	    npf_reader_seek(t->r, off, seq))
		return -ENOENT;
	while ((ret = npf_reader_next(t->r, &it, NULL)) == 1) {
		const struct npf_item_clocks *c = (const void *)(it + 1);
		struct npf_samples *d;

		if (it->type != NPF_ITEM_CLOCKS ||
		    c->dev >= NPF_TRACE_MAX_DEVS)
			continue;
		d = &v[c->dev];
		d->clock_hz = c->clock_hz;
		if (c->dev >= t->ndev)
			t->ndev = c->dev + 1;
		/* the reader checked that @count samples fit in the item */
		if (npf_samples_room(d, c->count))
			return -ENOMEM;
		memcpy(d->s + d->n, c + 1, c->count * sizeof(*d->s));
		d->n += c->count;
	}
	/* a damaged index: pass 1 reads the samples from the records */
	if (ret < 0 || npf_reader_truncated(t->r) || npf_reader_skipped(t->r))
		return -ENOENT;
	return 0;
}

/*
 * The devices and their clock samples, from the index or pass 1, then the
 * fits.
 */
static int npf_trace_fit_all(struct npuprof_trace *t)
{
	struct npf_samples *v;
	const struct npf_item *it;
	uint64_t off;
	uint32_t i;
	int ret;

	v = calloc(NPF_TRACE_MAX_DEVS, sizeof(*v));
	if (!v)
		return -ENOMEM;
	ret = npf_trace_index(t, v);
	if (ret != -ENOENT)
		goto fit;
	/* pass 1, from the start: what an unsound index gave is dropped */
	for (i = 0; i < NPF_TRACE_MAX_DEVS; i++) {
		v[i].n = 0;
		v[i].clock_hz = 0;
	}
	t->ndev = 0;
	npf_reader_rewind(t->r);
	while ((ret = npf_reader_next(t->r, &it, &off)) == 1) {
		const void *body = it + 1;

		if (it->type == NPF_ITEM_DEVICE) {
			const struct npf_item_device *d = body;
			const struct npu_info *info = (const void *)(d + 1);

			if (d->dev >= NPF_TRACE_MAX_DEVS)
				continue;
			if (d->info_size >= offsetof(struct npu_info, dram_size))
				v[d->dev].clock_hz = info->clock_hz;
			if (d->dev >= t->ndev)
				t->ndev = d->dev + 1;
		} else if (it->type == NPF_ITEM_RECORD) {
			const struct npf_item_record *ir = body;
			const struct npu_trace_rec_hdr *h = (const void *)(ir + 1);

			if (ir->dev < NPF_TRACE_MAX_DEVS &&
			    h->type == NPU_TRACE_REC_CLOCK &&
			    h->size >= sizeof(struct npu_trace_rec_clock)) {
				ret = npf_push_sample(&v[ir->dev], (const void *)h);
				if (ret)
					break;
			}
		} else if (it->type == NPF_ITEM_RECORDS &&
			   it->size >= sizeof(*it) + sizeof(struct npf_item_records)) {
			ret = npf_run_clocks(t, it, off, v);
			if (ret == -ENOMEM)
				break;
			ret = 1;
		}
	}
	/* a corrupt item is reported again, with its offset, by _next() */
fit:
	if (ret != -ENOMEM)
		ret = 0;
	t->bad = 0;
	t->err[0] = 0;
	t->run_left = 0;
	t->run_count = 0;
	if (!ret && t->keep) {
		/* npf_clock_fit_build() may reorder its samples: a copy */
		t->kept = calloc(NPF_TRACE_MAX_DEVS, sizeof(*t->kept));
		if (!t->kept)
			ret = -ENOMEM;
		for (i = 0; !ret && i < t->ndev; i++) {
			t->kept[i].clock_hz = v[i].clock_hz;
			if (npf_samples_room(&t->kept[i], v[i].n)) {
				ret = -ENOMEM;
				break;
			}
			if (v[i].n)
				memcpy(t->kept[i].s, v[i].s,
				       v[i].n * sizeof(*v[i].s));
			t->kept[i].n = v[i].n;
		}
	}
	for (i = 0; !ret && i < t->ndev; i++)
		ret = npf_clock_fit_build(v[i].s, v[i].n,
					  v[i].clock_hz ? v[i].clock_hz : 1,
					  &t->fit[i]);
	for (i = 0; i < NPF_TRACE_MAX_DEVS; i++)
		free(v[i].s);
	free(v);
	return ret;
}

/*
 * The TSC fit's least model tolerance: CLOCK_MONOTONIC is the TSC scaled
 * by the kernel, bent only by NTP's slewing; a change of rate that bends
 * it by more between two samples 0.1 s apart starts a new piece
 * (clock-fit.rst, "The host TSC").
 */
#define NPF_TSC_TOL_NS		100.0

/*
 * The fit of the host TSC (clock-fit.rst), when the file says its spans
 * read it (META host_span_clock "tsc", among the first items): a pass
 * over the file for its HOST_CLOCK samples. Other files stop at their
 * first item after the metadata. A corrupt item ends the pass; _next()
 * reports it.
 */
static int npf_trace_tsc_fit(struct npuprof_trace *t)
{
	struct npf_clock_sample *v = NULL;
	const struct npf_item *it;
	size_t n = 0, cap = 0;
	uint64_t off, hz = 1000000000;
	bool tsc = false;
	int ret;

	npf_reader_rewind(t->r);
	while ((ret = npf_reader_next(t->r, &it, &off)) == 1) {
		const struct npf_item_host_clock *h = (const void *)(it + 1);
		uint32_t blen = it->size - sizeof(*it);

		if (it->type == NPF_ITEM_META) {
			const char *k = (const char *)h;

			if (!strcmp(k, "host_span_clock"))
				tsc = !strcmp(k + strlen(k) + 1, "tsc");
			continue;
		}
		if (!tsc)
			break;
		if (it->type != NPF_ITEM_HOST_CLOCK || blen < sizeof(*h) ||
		    h->clock != NPF_SPANS_CLOCK_TSC ||
		    h->count > (blen - sizeof(*h)) / sizeof(*v))
			continue;
		if (n + h->count > cap) {
			size_t c = (n + h->count) * 2 + 64;
			void *p = realloc(v, c * sizeof(*v));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
			cap = c;
		}
		memcpy(v + n, h + 1, h->count * sizeof(*v));
		n += h->count;
	}
	ret = 0;
	if (n >= 2 && v[n - 1].tick > v[0].tick &&
	    v[n - 1].before_ns > v[0].after_ns) {
		/* the nominal frequency, for the fit's outlier tests */
		double f = (double)(v[n - 1].tick - v[0].tick) * 1e9 /
			   (double)(v[n - 1].before_ns + v[n - 1].after_ns -
				    v[0].before_ns - v[0].after_ns) * 2;

		/* a damaged sample: the fit drops it, any rate will do */
		if (f >= 1e6 && f <= 1e11)
			hz = (uint64_t)f;
	}
	if (n)
		ret = npf_clock_fit_build_tol(v, n, hz, NPF_TSC_TOL_NS,
					      &t->tsc_fit);
	free(v);
	return ret;
}

int npf_trace_open(const char *path, bool keep, struct npuprof_trace **tracep,
		   char *err, size_t errlen)
{
	struct npuprof_trace *t;
	int ret;

	if (!path || !tracep)
		return -EINVAL;
	*tracep = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->keep = keep;
	t->path = strdup(path);
	if (!t->path) {
		free(t);
		return -ENOMEM;
	}
	ret = npf_reader_open(path, &t->r, t->err, sizeof(t->err));
	if (!ret)
		ret = npf_trace_fit_all(t);
	if (!ret)
		ret = npf_trace_tsc_fit(t);
	if (t->r) {
		int err = npf_reader_rewind(t->r);

		if (!ret)
			ret = err;
	}
	if (ret) {
		if (err && errlen) {
			if (t->err[0])
				snprintf(err, errlen, "%s", t->err);
			else
				snprintf(err, errlen, "%s: %s", path,
					 strerror(-ret));
		}
		npuprof_trace_close(t);
		return ret;
	}
	*tracep = t;
	return 0;
}

int npf_trace_samples(const struct npuprof_trace *t, uint32_t dev,
		      const struct npf_clock_sample **s, size_t *n,
		      uint64_t *clock_hz)
{
	if (!t->kept || dev >= t->ndev)
		return -EINVAL;
	*s = t->kept[dev].s;
	*n = t->kept[dev].n;
	*clock_hz = t->kept[dev].clock_hz;
	return 0;
}

NPUPROF_EXPORT
int npuprof_trace_open(const char *path, struct npuprof_trace **tracep,
		       char *err, size_t errlen)
{
	return npf_trace_open(path, false, tracep, err, errlen);
}

static void npf_str_put(struct npuprof_trace *t,
			const struct npf_item_string *s)
{
	struct npf_str *e = &t->str[t->nstr_next++ % NPF_STR_CACHE];
	char *text = strdup((const char *)(s + 1));

	if (!text)
		return;
	free(e->text);
	e->id = s->id;
	e->text = text;
}

static const char *npf_str_get(const struct npuprof_trace *t, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < NPF_STR_CACHE; i++)
		if (t->str[i].text && t->str[i].id == id)
			return t->str[i].text;
	return NULL;
}

/*
 * The causality check of an EXEC record with device times, mapped: its
 * device interval, within the fit's bound, must lie inside its host
 * submit..complete interval (Documentation/npu/clock-fit.rst). Counted per
 * device and given with the fits at the end (npf_fit_event()).
 */
static inline void npf_check_exec(struct npuprof_trace *t,
				  const struct npuprof_event *ev,
				  const struct npu_trace_rec_exec *e)
{
	struct npf_check *c = &t->chk[ev->dev];

	if (!ev->start.valid || !ev->end.valid)
		return;
	c->checked++;
	if (ev->start.ns + (int64_t)ev->start.err_ns < (int64_t)e->submit_ns ||
	    ev->end.ns - (int64_t)ev->end.err_ns > (int64_t)e->complete_ns ||
	    ev->end.ns < ev->start.ns)
		c->violations++;
}

static inline __attribute__((always_inline)) void
npf_map_record(struct npuprof_trace *t, struct npuprof_event *ev,
	       const struct npu_trace_rec_hdr *h)
{
	uint64_t a = 0, b = 0;
	bool dev_times = false, exec = false;

	if (h->type == NPU_TRACE_REC_EXEC) {
		const struct npu_trace_rec_exec *e = (const void *)h;

		ev->time_ns = (int64_t)e->submit_ns;
		if (e->flags & NPU_TRACE_EXEC_F_DEVICE) {
			a = e->start_tick;
			b = e->end_tick;
			dev_times = true;
			exec = true;
		}
	} else if (h->type == NPU_TRACE_REC_OP) {
		const struct npu_trace_rec_op *o = (const void *)h;

		a = o->start_tick;
		b = o->end_tick;
		dev_times = true;
	} else if (h->type == NPU_TRACE_REC_CLOCK) {
		const struct npu_trace_rec_clock *c = (const void *)h;

		ev->time_ns = (int64_t)c->host_before_ns;
	} else if ((h->type == NPU_TRACE_REC_BO_ALLOC ||
		    h->type == NPU_TRACE_REC_BO_FREE) &&
		   h->size >= sizeof(struct npu_trace_rec_bo)) {
		const struct npu_trace_rec_bo *bo = (const void *)h;

		/* when the memory was taken or given back, not the last event */
		ev->time_ns = (int64_t)bo->host_ns;
	} else {
		ev->time_ns = t->last_time;
	}
	if (dev_times && ev->dev < t->ndev) {
		npf_clock_map2_cached(&t->fit[ev->dev], &t->piece[ev->dev], a,
				      b, &ev->start, &ev->end);
		if (ev->start.valid)
			ev->time_ns = ev->start.ns;
		if (exec)
			npf_check_exec(t, ev, (const void *)h);
	}
	if (ev->time_ns == 0 && !dev_times)
		ev->time_ns = t->last_time;
}

/*
 * The fields of an event up to its fit but its type, dev, offset and rec,
 * zeroed one by one: a memset() of the struct is a "rep stos" of one
 * store an iteration here, twice the instructions
 */
_Static_assert(offsetof(struct npuprof_event, fit) == 152 &&
	       sizeof(struct npuprof_event) == 288,
	       "struct npuprof_event changed: npf_trace_clear() must clear "
	       "every field before fit");

static inline void npf_trace_clear(struct npuprof_event *ev)
{
	ev->time_ns = 0;
	ev->key = NULL;
	ev->value = NULL;
	ev->span = NULL;
	ev->label = NULL;
	ev->start = (struct npuprof_clock_map){ 0 };
	ev->end = (struct npuprof_clock_map){ 0 };
	ev->info = NULL;
	ev->info_size = 0;
	ev->session_op = 0;
	ev->count = 0;
	ev->id = 0;
	ev->pid = 0;
}

/*
 * CLOCK_FIT event of device @dev as the reader computed it: its fit and
 * this pass's causality check. Files written by a session since the
 * capture and analysis libraries were split have no CLOCK_FIT items; the
 * reader gives these instead, just before the SUMMARY, where a session
 * wrote its own.
 */
static void npf_fit_event(struct npuprof_trace *t, struct npuprof_event *ev,
			  uint32_t dev)
{
	const struct npf_clock_fit *f = &t->fit[dev];

	memset(ev, 0, sizeof(*ev));
	ev->type = NPUPROF_EV_CLOCK_FIT;
	ev->offset = t->held_off;
	ev->key = "reader";
	ev->dev = dev;
	ev->fit.samples = f->samples;
	ev->fit.used = f->used;
	ev->fit.segments = f->nseg;
	if (f->nseg) {
		ev->fit.ns_per_tick = f->seg[0].ns_per_tick;
		ev->fit.offset_ns = (double)f->seg[0].ref_ns -
			(double)f->seg[0].ref_tick * f->seg[0].ns_per_tick;
	}
	ev->fit.err_ns = f->err_ns;
	ev->fit.checked = t->chk[dev].checked;
	ev->fit.violations = t->chk[dev].violations;
	ev->count = ev->fit.violations;
}

/* The event of item @it at file offset @off (not RECORDS, not END) */
static void npf_item_event(struct npuprof_trace *t, struct npuprof_event *ev,
	       const struct npf_item *it, uint64_t off, bool whole)
{
	const void *body = it + 1;

	if (whole || it->type == NPF_ITEM_CLOCK_FIT ||
	    it->type == NPF_ITEM_SUMMARY) {
		memset(ev, 0, sizeof(*ev));
	} else {
		npf_trace_clear(ev);
		ev->dev = 0;
		ev->rec = NULL;
	}
	ev->type = it->type;
	ev->offset = off;
	switch (it->type) {
	case NPF_ITEM_META:
		ev->key = body;
		ev->value = ev->key + strlen(ev->key) + 1;
		break;
	case NPF_ITEM_DEVICE: {
		const struct npf_item_device *d = body;

		ev->dev = d->dev;
		ev->key = d->path;
		ev->info = d + 1;
		ev->info_size = d->info_size;
		break;
	}
	case NPF_ITEM_SPAN:
		ev->span = body;
		ev->time_ns = (int64_t)ev->span->start_ns;
		if (ev->span->kind == NPUPROF_SPAN_LABEL)
			ev->label = npf_str_get(t, ev->span->name_id);
		break;
	case NPF_ITEM_RECORD: {
		const struct npf_item_record *ir = body;

		ev->dev = ir->dev;
		ev->rec = ir + 1;
		npf_map_record(t, ev, ev->rec);
		break;
	}
	case NPF_ITEM_SESSION: {
		const struct npf_item_session *s = body;

		ev->session_op = s->op;
		ev->time_ns = (int64_t)s->time_ns;
		break;
	}
	case NPF_ITEM_HOST_LOST: {
		const struct npf_item_host_lost *l = body;

		ev->pid = l->pid;
		ev->id = (uint64_t)(int64_t)l->tid;
		ev->count = l->count;
		ev->time_ns = t->last_time;
		break;
	}
	case NPF_ITEM_CLOCK_FIT: {
		const struct npf_item_clock_fit *f = body;

		ev->dev = f->dev;
		ev->fit.ns_per_tick = f->ns_per_tick;
		ev->fit.offset_ns = f->offset_ns;
		ev->fit.err_ns = f->err_ns;
		ev->fit.samples = f->samples;
		ev->fit.used = f->used;
		ev->fit.segments = f->segments;
		ev->fit.checked = f->checked;
		ev->fit.violations = f->violations;
		ev->count = f->violations;
		break;
	}
	case NPF_ITEM_SUMMARY:
		memcpy(&ev->summary, body, sizeof(ev->summary));
		if (!t->saw_fit) {
			uint32_t i;

			/* the reader's check, given with its fits */
			ev->summary.violations = 0;
			for (i = 0; i < t->ndev; i++)
				ev->summary.violations += t->chk[i].violations;
		}
		ev->count = ev->summary.violations;
		ev->time_ns = (int64_t)ev->summary.stop_ns;
		break;
	case NPF_ITEM_STRING: {
		const struct npf_item_string *s = body;

		npf_str_put(t, s);
		ev->id = s->id;
		ev->key = (const char *)(s + 1);
		break;
	}
	case NPF_ITEM_THREAD: {
		const struct npf_item_thread *th = body;

		ev->pid = th->pid;
		ev->id = (uint64_t)(int64_t)th->tid;
		ev->key = th->name;
		break;
	}
	}
}

/*
 * Start walking the spans of SPANS item @it at file offset @off: 0, or
 * -EBADMSG when its count does not match its size.
 */
static int npf_spans_start(struct npuprof_trace *t, const struct npf_item *it,
			   uint64_t off)
{
	const struct npf_item_spans *h = (const void *)(it + 1);
	uint32_t blen = it->size - sizeof(*it);

	t->run_off = off;
	if (blen < sizeof(*h))
		return npf_run_bad(t, "SPANS item too short");
	if (h->count > (blen - sizeof(*h)) / sizeof(struct npf_span_c))
		return npf_run_bad(t, "SPANS item holds fewer spans than its count");
	if (h->clock != NPF_SPANS_CLOCK_MONOTONIC &&
	    h->clock != NPF_SPANS_CLOCK_TSC)
		return npf_run_bad(t, "SPANS item of an unknown clock");
	if (h->clock == NPF_SPANS_CLOCK_TSC && !t->tsc_fit.nseg)
		return npf_run_bad(t, "SPANS item of TSC times, and no HOST_CLOCK sample to map them");
	memset(&t->sp_rec, 0, sizeof(t->sp_rec));
	t->sp_rec.pid = h->pid;
	t->sp_rec.tid = h->tid;
	t->sp_clock = h->clock;
	t->sp_time = h->time;
	t->sp_rec.span_id = h->span_id;
	t->sp_rec.trace_id[0] = h->trace_hi;
	t->sp_next = (const void *)(h + 1);
	t->sp_left = h->count;
	t->sp_off = off + sizeof(*it) + sizeof(*h);
	return 0;
}

/* The next span of the SPANS item being walked, as a SPAN event. */
static void npf_spans_next(struct npuprof_trace *t, struct npuprof_event *ev,
			   bool whole)
{
	const struct npf_span_c *c = t->sp_next++;
	struct npuprof_span_rec *r = &t->sp_rec;

	if (whole)
		memset(ev, 0, sizeof(*ev));
	else
		npf_trace_clear(ev);
	t->sp_time += (uint64_t)(int64_t)c->start_delta;
	if (t->sp_clock == NPF_SPANS_CLOCK_TSC) {
		struct npuprof_clock_map a, b;

		npf_clock_map2_cached(&t->tsc_fit, &t->tsc_piece, t->sp_time,
				      t->sp_time + c->dur, &a, &b);
		r->start_ns = (uint64_t)a.ns;
		r->end_ns = (uint64_t)b.ns;
	} else {
		r->start_ns = t->sp_time;
		r->end_ns = t->sp_time + c->dur;
	}
	r->span_id += (uint64_t)(int64_t)c->id_delta;
	r->parent_id = c->parent_back ? r->span_id - c->parent_back : 0;
	r->trace_id[1] = r->span_id - c->trace_back;
	r->kind = c->kind;
	r->flags = c->flags;
	r->name_id = c->name_id;
	t->sp_left--;
	ev->type = NPUPROF_EV_SPAN;
	ev->offset = t->sp_off;
	t->sp_off += sizeof(*c);
	ev->dev = 0;
	ev->rec = NULL;
	ev->span = r;
	ev->time_ns = (int64_t)r->start_ns;
	if (r->kind == NPUPROF_SPAN_LABEL)
		ev->label = npf_str_get(t, r->name_id);
}

/*
 * npuprof_trace_next(); @whole false: the fit and summary (the last fields
 * of the struct, about half of it) of an event of another type are left as
 * they were instead of zeroed (npf_trace_next())
 */
static inline __attribute__((always_inline)) int
npf_trace_next_ev(struct npuprof_trace *t, struct npuprof_event *ev,
		  bool whole)
{
	const struct npf_item *it;
	uint64_t off;
	int ret;

	/* the library's own callers (@whole false) pass both */
	if (whole && (!t || !ev))
		return -EINVAL;
	if (t->bad)
		return t->bad;
	for (;;) {
		if (t->run_left || t->run_count) {
			const struct npu_trace_rec_hdr *h;

			ret = npf_run_next(t, &h, &off);
			if (ret < 0)
				return ret;
			if (ret) {
				if (whole)
					memset(ev, 0, sizeof(*ev));
				else
					npf_trace_clear(ev);
				ev->type = NPUPROF_EV_RECORD;
				ev->offset = off;
				ev->dev = t->run_dev;
				ev->rec = h;
				npf_map_record(t, ev, h);
				if (ev->time_ns)
					t->last_time = ev->time_ns;
				return 1;
			}
		}
		if (t->sp_left) {
			npf_spans_next(t, ev, whole);
			t->last_time = ev->time_ns;
			return 1;
		}
		if (npf_unlikely(t->held != NULL)) {
			/* the reader's fits, then the SUMMARY they came before */
			if (t->fit_next < t->ndev) {
				npf_fit_event(t, ev, t->fit_next++);
				return 1;
			}
			it = t->held;
			off = t->held_off;
			t->held = NULL;
			goto item;
		}
		ret = npf_reader_next(t->r, &it, &off);
		if (ret <= 0)
			return ret;
		if (it->type == NPF_ITEM_RECORDS) {
			if (it->size < sizeof(*it) + sizeof(struct npf_item_records)) {
				t->run_off = off;
				return npf_run_bad(t, "RECORDS item too short");
			}
			npf_run_start(t, it, off);
			continue;
		}
		if (it->type == NPF_ITEM_SPANS) {
			ret = npf_spans_start(t, it, off);
			if (ret)
				return ret;
			continue;
		}
		if (it->type >= NPF_ITEM_META && it->type <= NPF_ITEM_THREAD)
			break;
		if (it->type == NPF_ITEM_MODEL) {
			/* a model is not an event: kept, read by memuse.h */
			ret = npf_model_item(t, it, off);
			if (ret)
				return ret;
			continue;
		}
		/* END and unknown types are not events */
	}
	if (it->type == NPF_ITEM_CLOCK_FIT) {
		t->saw_fit = true;
	} else if (it->type == NPF_ITEM_SUMMARY && !t->saw_fit && t->ndev) {
		/* the item lives until the next npf_reader_next() */
		t->held = it;
		t->held_off = off;
		t->fit_next = 1;
		npf_fit_event(t, ev, 0);
		return 1;
	}
item:
	npf_item_event(t, ev, it, off, whole);
	if (ev->time_ns)
		t->last_time = ev->time_ns;
	return 1;
}

NPUPROF_EXPORT
int npuprof_trace_next(struct npuprof_trace *t, struct npuprof_event *ev)
{
	return npf_trace_next_ev(t, ev, true);
}

int npf_trace_next(struct npuprof_trace *t, struct npuprof_event *ev)
{
	return npf_trace_next_ev(t, ev, false);
}

NPUPROF_EXPORT
const char *npuprof_trace_error(const struct npuprof_trace *t)
{
	if (t && t->bad)
		return t->err;
	return t && t->r ? npf_reader_error(t->r) : "";
}

void npf_trace_set_error(struct npuprof_trace *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(t->err, sizeof(t->err), "%s: ", t->path);
	if (n < 0 || (size_t)n >= sizeof(t->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(t->err + n, sizeof(t->err) - (size_t)n, fmt, ap);
	va_end(ap);
	/* reported until the next rewind, which every exporter starts with */
	t->bad = -EIO;
}

uint32_t npf_trace_ndev(const struct npuprof_trace *t)
{
	return t->ndev;
}

const struct npf_clock_fit *npf_trace_fit(const struct npuprof_trace *t,
					  uint32_t dev)
{
	return dev < t->ndev ? &t->fit[dev] : NULL;
}

NPUPROF_EXPORT
uint64_t npuprof_trace_skipped(const struct npuprof_trace *t,
			       const char **last)
{
	if (last)
		*last = t && t->skipped_last ? t->skipped_last : "";
	return t ? t->models_bad + t->layers_bad : 0;
}

NPUPROF_EXPORT
uint64_t npuprof_trace_damage(const struct npuprof_trace *t,
			      struct npuprof_damage *out, const char **why)
{
	if (t && t->r)
		return npf_reader_damage(t->r, out, why);
	if (out)
		memset(out, 0, sizeof(*out));
	if (why)
		*why = "";
	return 0;
}

NPUPROF_EXPORT
int npuprof_trace_truncated(const struct npuprof_trace *t)
{
	return t && t->r ? npf_reader_truncated(t->r) : 0;
}

NPUPROF_EXPORT
int npuprof_trace_rewind(struct npuprof_trace *t)
{
	if (!t)
		return -EINVAL;
	t->last_time = 0;
	t->bad = 0;
	t->run_left = 0;
	t->run_count = 0;
	t->sp_left = 0;
	t->saw_fit = false;
	t->held = NULL;
	memset(t->chk, 0, sizeof(t->chk));
	return npf_reader_rewind(t->r);
}

NPUPROF_EXPORT
int npuprof_trace_map(const struct npuprof_trace *t, uint32_t dev,
		      uint64_t tick, struct npuprof_clock_map *out)
{
	if (!t || !out)
		return -EINVAL;
	if (dev >= t->ndev)
		return -ENOENT;
	npf_clock_map(&t->fit[dev], tick, out);
	return 0;
}

NPUPROF_EXPORT
void npuprof_trace_close(struct npuprof_trace *t)
{
	unsigned int i;

	if (!t)
		return;
	npf_reader_close(t->r);
	for (i = 0; i < NPF_TRACE_MAX_DEVS; i++)
		npf_clock_fit_release(&t->fit[i]);
	npf_clock_fit_release(&t->tsc_fit);
	for (i = 0; t->kept && i < NPF_TRACE_MAX_DEVS; i++)
		free(t->kept[i].s);
	free(t->kept);
	for (i = 0; i < NPF_STR_CACHE; i++)
		free(t->str[i].text);
	for (i = 0; i < t->nmodels; i++)
		npf_model_free(t->models[i]);
	free(t->models);
	free(t->path);
	free(t);
}

void npf_dev_dur(const struct npuprof_trace *trace, uint32_t dev,
		 uint64_t clock_hz, uint64_t tick, uint64_t run_ticks,
		 uint64_t iowait_ticks, const struct npuprof_clock_map *start,
		 const struct npuprof_clock_map *end, struct npf_dur *out)
{
	const struct npf_clock_fit *fit = npf_trace_fit(trace, dev);
	double slope = 0;

	if (fit && fit->nseg && fit->seg)
		slope = npf_fit_slope(fit, tick);
	else if (clock_hz)
		slope = 1e9 / (double)clock_hz;
	npf_dur_at(slope, run_ticks, iowait_ticks, start, end, out);
}
