// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memory.c - npuprof_memory(), the memory report of a trace's buffer
 * records (Documentation/npu/memory.rst, "Reports"): per device and per
 * process the most bytes allocated at once and when, the largest buffers
 * live at each device's peak with the fragmentation then, the failed
 * allocations, the bytes each operator's program uses (memuse.c, through
 * the model id the join gives operator records: RAF's max_used), and on
 * request every record.
 *
 * One pass over the trace replays the BO records into a tracker
 * (memtrack.c). The buffers live at a device's peak are copied when the
 * peak is over: at the first free after it (or the end), before that
 * free is applied; later allocations are told apart by their record
 * count. The events table, when asked with others, takes a second pass,
 * so that the text and CSV outputs keep the tables in order. The first
 * pass also feeds the join (join.c), whose operator rows carry their
 * model id: memuse.c's figures of that operator are its used bytes.
 * Memory: the live buffers, the failures, @top buffers per device, the
 * join's waiting rows, a counter per (model, operator) and per
 * (device, process).
 *
 * Locking: none; a call uses its trace alone (callers serialize calls on
 * one trace). Lifetime: everything is freed before the call returns.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "join.h"
#include "memtrack.h"
#include "memuse.h"
#include "report_util.h"

#define NCOLS(a)	(sizeof(a) / sizeof((a)[0]))
#define NPF_MR_TOP	10

struct npf_mr_devinfo {
	bool seen;
	uint32_t minor;
	uint64_t dram;
};

struct npf_mr_peak {
	bool pending;		/* a new peak, not marked yet */
	bool marked;		/* a peak, its buffers freed since in @gone */
	bool have;
	uint64_t lo, hi;	/* npf_mem_dev()'s at the peak */
	int64_t mark_ns;
	struct npf_mem_buf *gone;	/* freed since, live at the peak */
	size_t ngone, capgone;
	uint64_t free_bytes;
	uint64_t largest;
	uint64_t span;
	int64_t ns;
	struct npf_mem_buf *top;
	size_t ntop;
};

/* The most bytes a device's operators used, and at which operator */
struct npf_mr_used {
	bool have;
	uint64_t max;
	int64_t ns;		/* the operator's mapped start (0: unmapped) */
	uint32_t model_id;
	uint32_t op_index;
};

/* The most a process's operators used on a device */
struct npf_mr_puse {
	uint32_t dev;
	int32_t pid;
	uint64_t max;
};

/* Records of operator @key (model_id << 32 | op_index), 0: empty */
struct npf_mr_opn {
	uint64_t key;
	uint64_t count;
};

struct npf_mr_fail {
	uint32_t dev;
	struct npu_trace_rec_bo r;
};

struct npf_mr {
	struct npuprof_trace *trace;
	struct npuprof_memory_opts o;
	FILE *out;
	struct npf_mem *mem;
	struct npf_mr_devinfo di[NPF_MEM_MAX_DEVS];
	struct npf_mr_peak pk[NPF_MEM_MAX_DEVS];
	uint64_t bad[NPF_MEM_MAX_DEVS];	/* records that make no sense */
	struct npf_mr_fail *fails;
	size_t nfail, capfail;
	struct npf_mr_used used[NPF_MEM_MAX_DEVS];
	struct npf_mr_puse *puse;
	size_t npuse, cappuse;
	struct npf_mr_opn *opn;		/* open addressing, a power of two */
	size_t nopn, capopn;
	unsigned int ntables;		/* written so far */
};

static const struct npf_col dev_cols[] = {
	{ "device", NPF_COL_U64, 0, 6 },
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "dram_size", NPF_COL_U64, 0, 10 },
	{ "max_allocated", NPF_COL_U64, 0, 10 },
	{ "max_allocated_ns", NPF_COL_I64, 0, 14 },
	{ "max_used", NPF_COL_U64, 0, 8 },
	{ "used_pct", NPF_COL_F64, 0, 8 },
	{ "device_max_allocated", NPF_COL_U64, 0, 10 },
	{ "device_max_allocated_ns", NPF_COL_I64, NPF_COL_DATA, 14 },
	{ "allocs", NPF_COL_U64, 0, 6 },
	{ "frees", NPF_COL_U64, 0, 6 },
	{ "failures", NPF_COL_U64, 0, 6 },
	{ "live_at_end", NPF_COL_U64, 0, 6 },
	{ "allocated_at_end", NPF_COL_U64, NPF_COL_DATA, 10 },
	{ "free_at_peak", NPF_COL_U64, 0, 10 },
	{ "largest_free_at_peak", NPF_COL_U64, 0, 10 },
	{ "fragmentation_pct", NPF_COL_F64, 0, 8 },
	{ "skipped", NPF_COL_U64, 0, 4 },
	{ "max_used_ns", NPF_COL_I64, NPF_COL_DATA, 14 },
	{ "peak_op", NPF_COL_STR, 0, 16 },
};

static const struct npf_col proc_cols[] = {
	{ "pid", NPF_COL_I64, 0, 7 },
	{ "device", NPF_COL_U64, 0, 6 },
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "max_allocated", NPF_COL_U64, 0, 10 },
	{ "max_allocated_ns", NPF_COL_I64, 0, 14 },
	{ "max_used", NPF_COL_U64, 0, 8 },
	{ "allocs", NPF_COL_U64, 0, 6 },
	{ "frees", NPF_COL_U64, 0, 6 },
	{ "failures", NPF_COL_U64, 0, 6 },
	{ "allocated_at_end", NPF_COL_U64, 0, 10 },
	{ "used_pct", NPF_COL_F64, NPF_COL_DATA, 8 },
};

static const struct npf_col buf_cols[] = {
	{ "device", NPF_COL_U64, 0, 6 },
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "rank", NPF_COL_U64, 0, 4 },
	{ "bo_id", NPF_COL_U64, 0, 6 },
	{ "address", NPF_COL_STR, 0, 12 },
	{ "size", NPF_COL_U64, 0, 10 },
	{ "kind", NPF_COL_STR, 0, 7 },
	{ "pid", NPF_COL_I64, 0, 7 },
	{ "tid", NPF_COL_I64, 0, 7 },
	{ "alloc_ns", NPF_COL_I64, 0, 14 },
	{ "peak_ns", NPF_COL_I64, NPF_COL_DATA, 14 },
	{ "addr", NPF_COL_U64, NPF_COL_DATA, 12 },
};

static const struct npf_col fail_cols[] = {
	{ "time_ns", NPF_COL_I64, 0, 14 },
	{ "device", NPF_COL_U64, 0, 6 },
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "pid", NPF_COL_I64, 0, 7 },
	{ "tid", NPF_COL_I64, 0, 7 },
	{ "size", NPF_COL_U64, 0, 10 },
	{ "kind", NPF_COL_STR, 0, 7 },
	{ "error", NPF_COL_STR, 0, 6 },
	{ "device_allocated", NPF_COL_U64, 0, 10 },
};

static const struct npf_col op_cols[] = {
	{ "model_id", NPF_COL_U64, 0, 5 },
	{ "model", NPF_COL_STR, 0, 12 },
	{ "op_index", NPF_COL_U64, 0, 5 },
	{ "name", NPF_COL_STR, 0, 10 },
	{ "records", NPF_COL_U64, 0, 7 },
	{ "in_bytes", NPF_COL_U64, 0, 10 },
	{ "out_bytes", NPF_COL_U64, 0, 10 },
	{ "live_bytes", NPF_COL_U64, 0, 10 },
	{ "alloc_bytes", NPF_COL_U64, 0, 10 },
	{ "layer", NPF_COL_STR, NPF_COL_OPT, 0 },
	{ "op_type", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "in_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "out_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
};

static const struct npf_col tensor_cols[] = {
	{ "device", NPF_COL_U64, 0, 6 },
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "model_id", NPF_COL_U64, 0, 5 },
	{ "model", NPF_COL_STR, 0, 12 },
	{ "op_index", NPF_COL_U64, 0, 5 },
	{ "rank", NPF_COL_U64, 0, 4 },
	{ "tensor", NPF_COL_U64, 0, 6 },
	{ "slot", NPF_COL_U64, 0, 4 },
	{ "offset", NPF_COL_U64, 0, 8 },
	{ "size", NPF_COL_U64, 0, 10 },
	{ "first_op", NPF_COL_I64, 0, 5 },
	{ "last_op", NPF_COL_I64, 0, 5 },
	{ "layer", NPF_COL_STR, NPF_COL_OPT, 0 },
	{ "op_type", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "in_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
	{ "out_shapes", NPF_COL_STR, NPF_COL_DATA, 0 },
};

static const struct npf_col ev_cols[] = {
	{ "time_ns", NPF_COL_I64, 0, 14 },
	{ "device", NPF_COL_U64, 0, 6 },
	{ "minor", NPF_COL_U64, 0, 5 },
	{ "event", NPF_COL_STR, 0, 5 },
	{ "bo_id", NPF_COL_U64, 0, 6 },
	{ "pid", NPF_COL_I64, 0, 7 },
	{ "tid", NPF_COL_I64, 0, 7 },
	{ "address", NPF_COL_STR, 0, 12 },
	{ "size", NPF_COL_U64, 0, 10 },
	{ "kind", NPF_COL_STR, 0, 7 },
	{ "error", NPF_COL_STR, 0, 6 },
	{ "reason", NPF_COL_STR, 0, 6 },
	{ "allocated", NPF_COL_U64, 0, 10 },
	{ "process_allocated", NPF_COL_U64, 0, 10 },
	{ "device_allocated", NPF_COL_U64, 0, 10 },
	{ "addr", NPF_COL_U64, NPF_COL_DATA, 12 },
	{ "skipped", NPF_COL_U64, NPF_COL_DATA, 1 },
};

static const struct {
	const char *name;
	const char *title;
	const struct npf_col *cols;
	unsigned int n;
} npf_mr_tabs[] = {
	{ "devices", "Device memory (bytes; allocated: the trace's buffers, "
	  "device_max_allocated: every process's)", dev_cols, NCOLS(dev_cols) },
	{ "processes", "Processes", proc_cols, NCOLS(proc_cols) },
	{ "peak_buffers", "Largest buffers live at each device's peak",
	  buf_cols, NCOLS(buf_cols) },
	{ "failures", "Allocation failures", fail_cols, NCOLS(fail_cols) },
	{ "events", "Buffer events", ev_cols, NCOLS(ev_cols) },
	{ "operators", "Operators (bytes of the program's tensors: in, out, "
	  "live = used; alloc: the job's slots)", op_cols, NCOLS(op_cols) },
	{ "tensors", "Largest tensors live at each device's max_used operator",
	  tensor_cols, NCOLS(tensor_cols) },
};

NPUPROF_EXPORT
const char *npuprof_mem_table_name(unsigned int table)
{
	if (table < NPUPROF_MEM_DEVICES ||
	    table - NPUPROF_MEM_DEVICES >= NCOLS(npf_mr_tabs))
		return NULL;
	return npf_mr_tabs[table - NPUPROF_MEM_DEVICES].name;
}

static struct npuprof_value npf_v_u(uint64_t u)
{
	return (struct npuprof_value){ .u = u };
}

static struct npuprof_value npf_v_i(int64_t i)
{
	return (struct npuprof_value){ .i = i };
}

static struct npuprof_value npf_v_s(const char *s)
{
	return (struct npuprof_value){ .null = !s, .s = s };
}

static struct npuprof_value npf_v_null(void)
{
	return (struct npuprof_value){ .null = true };
}

static struct npuprof_value npf_mr_minor(const struct npf_mr *p, uint32_t dev)
{
	if (dev >= NPF_MEM_MAX_DEVS || !p->di[dev].seen)
		return npf_v_null();
	return npf_v_u(p->di[dev].minor);
}

/* Start table @t: its title (text), its name (JSON), or its columns */
static int npf_mr_begin(struct npf_mr *p, struct npf_tw *w, unsigned int t)
{
	unsigned int k = t - NPUPROF_MEM_DEVICES;
	unsigned int f = p->o.format;
	int opt_w = 0;
	uint32_t op;
	size_t i;

	/* the layer column of the text: when a model has a layer table */
	for (i = 0; i < npf_trace_nmodels(p->trace); i++) {
		const struct npf_model *m = npf_trace_model_at(p->trace, i);
		struct npf_layer l;

		for (op = 0; npf_model_has_layers(m) &&
		     op < npf_model_nops(m); op++) {
			npf_model_layer(m, op, &l);
			opt_w = npf_opt_w(opt_w, l.name);
		}
	}
	switch (f) {
	case NPUPROF_FORMAT_TABLE:
	case NPUPROF_FORMAT_WIDE:
		fprintf(p->out, "%s%s\n", p->ntables ? "\n" : "",
			npf_mr_tabs[k].title);
		break;
	case NPUPROF_FORMAT_JSON:
		fprintf(p->out, "%s\"%s\": ", p->ntables ? ",\n" : "{\n",
			npf_mr_tabs[k].name);
		break;
	case NPUPROF_FORMAT_CSV:
	case NPUPROF_FORMAT_JSONL:
		if (p->ntables)
			fputs(f == NPUPROF_FORMAT_CSV ? "\r\n" : "\n", p->out);
		break;
	default:
		break;
	}
	p->ntables++;
	npf_tw_begin_opt(w, p->out, f, npf_mr_tabs[k].cols, npf_mr_tabs[k].n,
			 false, opt_w);
	if (f == NPUPROF_FORMAT_ROWS)
		return npf_tw_sink(w, p->o.sink, t);
	return 0;
}

static int npf_mr_end(struct npf_mr *p, struct npf_tw *w)
{
	int ret = npf_tw_end(w);

	if ((p->o.format == NPUPROF_FORMAT_TABLE ||
	     p->o.format == NPUPROF_FORMAT_WIDE) && !w->rows)
		fputs("(none)\n", p->out);
	return ret;
}

static bool npf_mr_want(const struct npf_mr *p, unsigned int t)
{
	return p->o.tables & NPUPROF_MEM_BIT(t);
}

static void npf_mr_device(struct npf_mr *p, const struct npuprof_event *ev)
{
	const struct npu_info *info = ev->info;

	if (ev->dev >= NPF_MEM_MAX_DEVS)
		return;
	p->di[ev->dev].seen = true;
	p->di[ev->dev].minor = UINT32_MAX;
	if (info && ev->info_size >= offsetof(struct npu_info, minor) +
					sizeof(info->minor)) {
		p->di[ev->dev].minor = info->minor;
		p->di[ev->dev].dram = info->dram_size;
	}
}

static int npf_mr_size_cmp(const void *a, const void *b)
{
	const struct npf_mem_buf *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* npf_mem_live()'s order: by address, then id */
static int npf_mr_addr_cmp(const void *a, const void *b)
{
	const struct npf_mem_buf *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Device @dev's state is that of its peak (the first free after a new
 * peak): note it, and from here keep each buffer live then that is freed
 * (npf_mr_gone()), so that npf_mr_snap() can rebuild the peak's buffers
 * once, at the end. Copying them at every new peak instead took time
 * quadratic in the records when peaks and frees alternate.
 */
static void npf_mr_mark(struct npf_mr *p, uint32_t dev)
{
	const struct npf_mem_dev *d = npf_mem_dev(p->mem, dev);
	struct npf_mr_peak *k = &p->pk[dev];

	k->lo = d->lo;
	k->hi = d->hi;
	k->mark_ns = d->max_ns;
	k->ngone = 0;
	k->marked = true;
	k->pending = false;
}

static int npf_mr_gone(struct npf_mr *p, uint32_t dev,
		       const struct npf_mem_buf *b)
{
	const struct npf_mem_dev *d = npf_mem_dev(p->mem, dev);
	struct npf_mr_peak *k = &p->pk[dev];

	if (!k->marked || k->pending || (d->max_seq && b->seq > d->max_seq))
		return 0;
	if (k->ngone == k->capgone) {
		size_t c = k->capgone ? k->capgone * 2 : 16;
		struct npf_mem_buf *g = realloc(k->gone, c * sizeof(*g));

		if (!g)
			return -ENOMEM;
		k->gone = g;
		k->capgone = c;
	}
	k->gone[k->ngone++] = *b;
	return 0;
}

/* Copy the buffers of device @dev live at its peak, and the extent */
static int npf_mr_snap(struct npf_mr *p, uint32_t dev)
{
	const struct npf_mem_dev *d = npf_mem_dev(p->mem, dev);
	struct npf_mr_peak *k = &p->pk[dev];
	const struct npf_mem_buf *live;
	struct npf_mem_buf *all;
	uint64_t span = p->di[dev].dram;
	long n = npf_mem_live(p->mem, dev, d->max_seq, &live);
	size_t top = p->o.top ? p->o.top : NPF_MR_TOP, nall;

	if (n < 0)
		return (int)n;
	nall = (size_t)n + k->ngone;
	all = malloc((nall ? nall : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	memcpy(all, live, (size_t)n * sizeof(*all));
	if (k->ngone) {
		memcpy(all + n, k->gone, k->ngone * sizeof(*all));
		qsort(all, nall, sizeof(*all), npf_mr_addr_cmp);
	}
	/*
	 * The records carry no DRAM base: the allocator fills from it, so
	 * the lowest address seen stands for it, and dram_size for the
	 * length (or the range seen, when larger or unknown)
	 */
	if (span < k->hi - k->lo)
		span = k->hi - k->lo;
	npf_mem_extent(all, nall, k->lo, span, &k->free_bytes, &k->largest);
	k->span = span;
	k->ns = k->mark_ns;
	qsort(all, nall, sizeof(*all), npf_mr_size_cmp);
	if (nall < top)
		top = nall;
	free(k->top);
	k->top = all;
	k->ntop = top;
	k->have = true;
	return 0;
}

static int npf_mr_fail(struct npf_mr *p, uint32_t dev,
		       const struct npu_trace_rec_bo *r)
{
	if (p->nfail == p->capfail) {
		size_t c = p->capfail ? p->capfail * 2 : 16;
		struct npf_mr_fail *f = realloc(p->fails, c * sizeof(*f));

		if (!f)
			return -ENOMEM;
		p->fails = f;
		p->capfail = c;
	}
	p->fails[p->nfail].dev = dev;
	p->fails[p->nfail++].r = *r;
	return 0;
}

static struct npf_mr_puse *npf_mr_puse(struct npf_mr *p, uint32_t dev,
				       int32_t pid)
{
	size_t i;

	for (i = p->npuse; i-- > 0;)
		if (p->puse[i].dev == dev && p->puse[i].pid == pid)
			return &p->puse[i];
	if (p->npuse == p->cappuse) {
		size_t c = p->cappuse ? p->cappuse * 2 : 16;
		struct npf_mr_puse *n = realloc(p->puse, c * sizeof(*n));

		if (!n)
			return NULL;
		p->puse = n;
		p->cappuse = c;
	}
	p->puse[p->npuse] = (struct npf_mr_puse){ .dev = dev, .pid = pid };
	return &p->puse[p->npuse++];
}

static inline size_t npf_mr_opslot(const struct npf_mr *p, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) &
		   (p->capopn - 1);

	while (p->opn[i].key && p->opn[i].key != key)
		i = (i + 1) & (p->capopn - 1);
	return i;
}

/* Count a record of operator @key (model ids are nonzero: keys too) */
static int npf_mr_opcount(struct npf_mr *p, uint64_t key)
{
	size_t i;

	if ((p->nopn + 1) * 2 > p->capopn) {
		struct npf_mr_opn *old = p->opn;
		size_t oc = p->capopn, c = oc ? oc * 2 : 64, j;

		p->opn = calloc(c, sizeof(*p->opn));
		if (!p->opn) {
			p->opn = old;
			return -ENOMEM;
		}
		p->capopn = c;
		for (j = 0; j < oc; j++)
			if (old[j].key)
				p->opn[npf_mr_opslot(p, old[j].key)] = old[j];
		free(old);
	}
	i = npf_mr_opslot(p, key);
	if (!p->opn[i].key) {
		p->opn[i].key = key;
		p->nopn++;
	}
	p->opn[i].count++;
	return 0;
}

/* An operator record with its model: what its program used then */
static int npf_mr_op(void *ctx, const struct npf_op_row *r)
{
	struct npf_mr *p = ctx;
	const struct npf_model *m;
	struct npf_mr_used *u;
	struct npf_mr_puse *pu;
	struct npf_op_mem om;

	if (!r->model_id || r->dev >= NPF_MEM_MAX_DEVS)
		return 0;
	m = npf_trace_model(p->trace, r->model_id);
	if (!m || npf_model_op_mem(m, r->rec->op_index, &om))
		return 0;
	u = &p->used[r->dev];
	if (!u->have || om.live_bytes > u->max) {
		u->have = true;
		u->max = om.live_bytes;
		u->ns = r->start.valid ? r->start.ns : 0;
		u->model_id = r->model_id;
		u->op_index = r->rec->op_index;
	}
	pu = npf_mr_puse(p, r->dev, r->rec->pid);
	if (!pu)
		return -ENOMEM;
	if (om.live_bytes > pu->max)
		pu->max = om.live_bytes;
	return npf_mr_opcount(p, (uint64_t)r->model_id << 32 | r->rec->op_index);
}

static const struct npf_join_ops npf_mr_join_ops = { .op = npf_mr_op };

/* The first pass: the tracker, the peaks, the failures */
static int npf_mr_pass(struct npf_mr *p, struct npf_join *j)
{
	const struct npu_trace_rec_bo *r;
	struct npuprof_event ev;
	struct npf_mem_buf freed;
	uint64_t max0;
	int ret, what;

	ret = npuprof_trace_rewind(p->trace);
	if (ret)
		return ret;
	while ((ret = npuprof_trace_next(p->trace, &ev)) == 1) {
		if (j && (ret = npf_join_event(j, &ev)))
			return ret;
		if (ev.type == NPUPROF_EV_DEVICE) {
			npf_mr_device(p, &ev);
			continue;
		}
		if (ev.type != NPUPROF_EV_RECORD)
			continue;
		ret = npf_bo_rec(&ev, &r);
		if (!ret)
			continue;
		if (ev.dev >= NPF_MEM_MAX_DEVS)
			continue;
		if (ret < 0) {
			p->bad[ev.dev]++;
			continue;
		}
		if (r->hdr.type == NPU_TRACE_REC_BO_FREE && p->pk[ev.dev].pending)
			npf_mr_mark(p, ev.dev);
		max0 = npf_mem_dev(p->mem, ev.dev)->max;
		what = npf_mem_apply(p->mem, ev.dev, r, NULL, &freed);
		if (what < 0)
			return what;
		if (what == NPF_MEM_FREE &&
		    (ret = npf_mr_gone(p, ev.dev, &freed)))
			return ret;
		if (what == NPF_MEM_FAIL && npf_mr_want(p, NPUPROF_MEM_FAILURES)) {
			ret = npf_mr_fail(p, ev.dev, r);
			if (ret)
				return ret;
		}
		if (npf_mem_dev(p->mem, ev.dev)->max > max0)
			p->pk[ev.dev].pending = true;
	}
	if (!ret && j)
		ret = npf_join_finish(j);
	return ret;
}

/*
 * "MODEL op N OPCODE" of the operator where device @u's used peaked, then
 * " (LAYER)" when its model has a layer table
 */
static const char *npf_mr_peak_op(const struct npf_mr *p,
				  const struct npf_mr_used *u, char *buf,
				  size_t len)
{
	const struct npf_model *m = npf_trace_model(p->trace, u->model_id);
	struct npf_layer l;
	const char *name;

	if (!u->have || !m)
		return NULL;
	name = npf_opcode_name(npf_model_opcode(m, u->op_index));
	npf_model_layer(m, u->op_index, &l);
	snprintf(buf, len, "%s op %u %s%s%s%s", npf_model_name(m),
		 u->op_index, name ? name : "?", *l.name ? " (" : "", l.name,
		 *l.name ? ")" : "");
	return buf;
}

static int npf_mr_devices(struct npf_mr *p)
{
	struct npf_tw w;
	char op[160];
	uint32_t i;
	int ret = npf_mr_begin(p, &w, NPUPROF_MEM_DEVICES);

	for (i = 0; i < NPF_MEM_MAX_DEVS && !ret; i++) {
		const struct npf_mem_dev *d = npf_mem_dev(p->mem, i);
		const struct npf_mr_peak *k = &p->pk[i];
		const struct npf_mr_used *u = &p->used[i];

		if (!d->seen && !p->bad[i] && !u->have)
			continue;
		npf_tw_row(&w, (struct npuprof_value[]){
			npf_v_u(i), npf_mr_minor(p, i),
			p->di[i].seen && p->di[i].dram ? npf_v_u(p->di[i].dram) :
							 npf_v_null(),
			npf_v_u(d->max),
			d->max ? npf_v_i(d->max_ns) : npf_v_null(),
			u->have ? npf_v_u(u->max) : npf_v_null(),
			u->have && d->max ? (struct npuprof_value){
				.f = 100.0 * (double)u->max / (double)d->max } :
				npf_v_null(),
			npf_v_u(d->used_max),
			d->used_max ? npf_v_i(d->used_max_ns) : npf_v_null(),
			npf_v_u(d->allocs), npf_v_u(d->frees),
			npf_v_u(d->failures), npf_v_u(d->live),
			npf_v_u(d->cur),
			k->have ? npf_v_u(k->free_bytes) : npf_v_null(),
			k->have ? npf_v_u(k->largest) : npf_v_null(),
			k->have ? (struct npuprof_value){ .f = k->free_bytes ?
				100.0 * (double)(k->free_bytes - k->largest) /
					(double)k->free_bytes : 0.0 } :
				  npf_v_null(),
			npf_v_u(p->bad[i] + d->unpaired + d->dups),
			u->have && u->ns ? npf_v_i(u->ns) : npf_v_null(),
			npf_v_s(npf_mr_peak_op(p, u, op, sizeof(op))) });
	}
	return ret ? ret : npf_mr_end(p, &w);
}

static int npf_mr_proc_cmp(const void *a, const void *b)
{
	const struct npf_mem_proc *x = a, *y = b;

	if (x->max != y->max)
		return x->max > y->max ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int npf_mr_procs(struct npf_mr *p)
{
	const struct npf_mem_proc *pr;
	struct npf_mem_proc *s;
	struct npf_tw w;
	size_t n, i;
	int ret;

	pr = npf_mem_procs(p->mem, &n);
	if (!pr)
		return -ENOMEM;
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, pr, n * sizeof(*s));
	qsort(s, n, sizeof(*s), npf_mr_proc_cmp);
	ret = npf_mr_begin(p, &w, NPUPROF_MEM_PROCESSES);
	for (i = 0; i < n && !ret; i++) {
		const struct npf_mr_puse *pu;
		size_t k;

		if (!s[i].allocs && !s[i].failures)
			continue;	/* only unpaired frees: nothing known */
		for (pu = NULL, k = 0; k < p->npuse && !pu; k++)
			if (p->puse[k].dev == s[i].dev && p->puse[k].pid == s[i].pid)
				pu = &p->puse[k];
		npf_tw_row(&w, (struct npuprof_value[]){
			npf_v_i(s[i].pid), npf_v_u(s[i].dev),
			npf_mr_minor(p, s[i].dev), npf_v_u(s[i].max),
			s[i].max ? npf_v_i(s[i].max_ns) : npf_v_null(),
			pu ? npf_v_u(pu->max) : npf_v_null(),
			npf_v_u(s[i].allocs),
			npf_v_u(s[i].frees), npf_v_u(s[i].failures),
			npf_v_u(s[i].cur),
			pu && s[i].max ? (struct npuprof_value){
				.f = 100.0 * (double)pu->max / (double)s[i].max } :
				npf_v_null() });
	}
	free(s);
	return ret ? ret : npf_mr_end(p, &w);
}

static int npf_mr_bufs(struct npf_mr *p)
{
	struct npf_tw w;
	char hex[24];
	uint32_t i;
	size_t j;
	int ret = npf_mr_begin(p, &w, NPUPROF_MEM_BUFFERS);

	for (i = 0; i < NPF_MEM_MAX_DEVS && !ret; i++) {
		const struct npf_mr_peak *k = &p->pk[i];

		for (j = 0; k->have && j < k->ntop; j++) {
			const struct npf_mem_buf *b = &k->top[j];

			snprintf(hex, sizeof(hex), "0x%" PRIx64, b->addr);
			npf_tw_row(&w, (struct npuprof_value[]){
				npf_v_u(i), npf_mr_minor(p, i), npf_v_u(j + 1),
				npf_v_u(b->id), npf_v_s(hex), npf_v_u(b->size),
				npf_v_s(npf_bo_kind_name(b->kind)),
				npf_v_i(b->pid), npf_v_i(b->tid),
				npf_v_i(b->alloc_ns), npf_v_i(k->ns),
				npf_v_u(b->addr) });
		}
	}
	return ret ? ret : npf_mr_end(p, &w);
}

static int npf_mr_fails(struct npf_mr *p)
{
	struct npf_tw w;
	char eb[16];
	size_t i;
	int ret = npf_mr_begin(p, &w, NPUPROF_MEM_FAILURES);

	for (i = 0; i < p->nfail && !ret; i++) {
		const struct npu_trace_rec_bo *r = &p->fails[i].r;

		npf_tw_row(&w, (struct npuprof_value[]){
			npf_v_i((int64_t)r->host_ns), npf_v_u(p->fails[i].dev),
			npf_mr_minor(p, p->fails[i].dev), npf_v_i(r->pid),
			npf_v_i(r->tid), npf_v_u(r->size),
			npf_v_s(npf_bo_kind_name(r->kind)),
			npf_v_s(npf_bo_error_name(r->error, eb, sizeof(eb))),
			npf_v_u(r->dev_used) });
	}
	return ret ? ret : npf_mr_end(p, &w);
}

static int npf_mr_key_cmp(const void *a, const void *b)
{
	const struct npf_mr_opn *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The operators table: per model and operator, by model id and index */
static int npf_mr_ops(struct npf_mr *p)
{
	struct npf_mr_opn *v;
	struct npf_tw w;
	size_t i, n = 0;
	int ret;

	v = malloc((p->nopn ? p->nopn : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->capopn; i++)
		if (p->opn[i].key)
			v[n++] = p->opn[i];
	qsort(v, n, sizeof(*v), npf_mr_key_cmp);
	ret = npf_mr_begin(p, &w, NPUPROF_MEM_OPERATORS);
	for (i = 0; i < n && !ret; i++) {
		uint32_t id = (uint32_t)(v[i].key >> 32), op = (uint32_t)v[i].key;
		const struct npf_model *m = npf_trace_model(p->trace, id);
		struct npf_op_mem om;
		struct npf_layer l;
		const char *name;

		if (!m || npf_model_op_mem(m, op, &om))
			continue;
		name = npf_opcode_name(npf_model_opcode(m, op));
		npf_model_layer(m, op, &l);
		npf_tw_row(&w, (struct npuprof_value[]){
			npf_v_u(id), npf_v_s(npf_model_name(m)), npf_v_u(op),
			npf_v_s(name), npf_v_u(v[i].count),
			npf_v_u(om.in_bytes), npf_v_u(om.out_bytes),
			npf_v_u(om.live_bytes), npf_v_u(om.alloc_bytes),
			npf_v_s(l.name), npf_v_s(l.op_type),
			npf_v_s(l.in_shapes), npf_v_s(l.out_shapes) });
	}
	free(v);
	return ret ? ret : npf_mr_end(p, &w);
}

struct npf_mr_tensor {
	uint32_t i;
	struct npf_tensor_mem t;
};

/* Largest first, then by index */
static int npf_mr_tensor_cmp(const void *a, const void *b)
{
	const struct npf_mr_tensor *x = a, *y = b;

	if (x->t.bytes != y->t.bytes)
		return x->t.bytes > y->t.bytes ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The tensors table: per device, the --top largest tensors live at the
 * operator where its used bytes peaked (npf_mr_used), from its model
 */
static int npf_mr_tensors(struct npf_mr *p)
{
	unsigned int top = p->o.top ? p->o.top : NPF_MR_TOP;
	struct npf_mr_tensor *v = NULL;
	struct npf_tw w;
	uint32_t d;
	int ret = npf_mr_begin(p, &w, NPUPROF_MEM_TENSORS);

	for (d = 0; d < NPF_MEM_MAX_DEVS && !ret; d++) {
		const struct npf_mr_used *u = &p->used[d];
		const struct npf_model *m;
		struct npf_model_mem mm;
		struct npf_mr_tensor *nv;
		struct npf_layer l;
		uint32_t i, n = 0;

		if (!u->have || !(m = npf_trace_model(p->trace, u->model_id)) ||
		    npf_model_mem(m, &mm))
			continue;
		npf_model_layer(m, u->op_index, &l);
		nv = realloc(v, (mm.n_tensors ? mm.n_tensors : 1) * sizeof(*v));
		if (!nv) {
			ret = -ENOMEM;
			break;
		}
		v = nv;
		for (i = 0; i < mm.n_tensors; i++) {
			if (npf_model_tensor(m, i, &v[n].t) ||
			    v[n].t.first_op < 0 ||
			    (uint32_t)v[n].t.first_op > u->op_index ||
			    (uint32_t)v[n].t.last_op < u->op_index)
				continue;
			v[n++].i = i;
		}
		qsort(v, n, sizeof(*v), npf_mr_tensor_cmp);
		for (i = 0; i < n && i < top; i++)
			npf_tw_row(&w, (struct npuprof_value[]){
				npf_v_u(d), npf_mr_minor(p, d),
				npf_v_u(u->model_id),
				npf_v_s(npf_model_name(m)),
				npf_v_u(u->op_index), npf_v_u(i + 1),
				npf_v_u(v[i].i), npf_v_u(v[i].t.slot),
				npf_v_u(v[i].t.offset), npf_v_u(v[i].t.bytes),
				npf_v_i(v[i].t.first_op),
				npf_v_i(v[i].t.last_op), npf_v_s(l.name),
				npf_v_s(l.op_type), npf_v_s(l.in_shapes),
				npf_v_s(l.out_shapes) });
	}
	free(v);
	return ret ? ret : npf_mr_end(p, &w);
}

/* The events table: a pass of its own, with a tracker of its own */
static int npf_mr_events(struct npf_mr *p)
{
	const struct npu_trace_rec_bo *r;
	struct npf_mem_proc *pr;
	struct npuprof_event ev;
	struct npf_mem *m;
	struct npf_tw w;
	char hex[24], eb[16];
	int ret, what;

	ret = npf_mem_new(&m);
	if (ret)
		return ret;
	ret = npf_mr_begin(p, &w, NPUPROF_MEM_EVENTS);
	if (!ret)
		ret = npuprof_trace_rewind(p->trace);
	while (!ret && (ret = npuprof_trace_next(p->trace, &ev)) == 1) {
		const struct npf_mem_dev *d;
		const char *e;
		bool fail;

		ret = 0;
		if (ev.type == NPUPROF_EV_DEVICE) {
			npf_mr_device(p, &ev);
			continue;
		}
		if (ev.type != NPUPROF_EV_RECORD || npf_bo_rec(&ev, &r) != 1 ||
		    ev.dev >= NPF_MEM_MAX_DEVS)
			continue;
		pr = NULL;
		what = npf_mem_apply(m, ev.dev, r, &pr, NULL);
		if (what < 0) {
			ret = what;
			break;
		}
		d = npf_mem_dev(m, ev.dev);
		fail = r->hdr.type == NPU_TRACE_REC_BO_ALLOC && r->error;
		e = fail ? "fail" : r->hdr.type == NPU_TRACE_REC_BO_ALLOC ?
			   "alloc" : "free";
		snprintf(hex, sizeof(hex), "0x%" PRIx64, (uint64_t)r->dev_addr);
		npf_tw_row(&w, (struct npuprof_value[]){
			npf_v_i((int64_t)r->host_ns), npf_v_u(ev.dev),
			npf_mr_minor(p, ev.dev), npf_v_s(e),
			fail ? npf_v_null() : npf_v_u(r->bo_id),
			npf_v_i(r->pid),
			r->hdr.type == NPU_TRACE_REC_BO_ALLOC ? npf_v_i(r->tid) :
								 npf_v_null(),
			fail ? npf_v_null() : npf_v_s(hex),
			npf_v_u(r->size), npf_v_s(npf_bo_kind_name(r->kind)),
			fail ? npf_v_s(npf_bo_error_name(r->error, eb, sizeof(eb))) :
			       npf_v_null(),
			r->hdr.type == NPU_TRACE_REC_BO_FREE ?
				npf_v_s(npf_bo_reason_name(r->reason)) :
				npf_v_null(),
			npf_v_u(d->cur), pr ? npf_v_u(pr->cur) : npf_v_null(),
			npf_v_u(r->dev_used),
			fail ? npf_v_null() : npf_v_u(r->dev_addr),
			npf_v_u(what == NPF_MEM_SKIP) });
		if (w.err)
			ret = w.err;
	}
	npf_mem_free(m);
	if (!ret)
		ret = npf_mr_end(p, &w);
	return ret;
}

NPUPROF_EXPORT
int npuprof_memory(struct npuprof_trace *trace, FILE *out,
		   const struct npuprof_memory_opts *opts)
{
	const unsigned int all = (1u << NCOLS(npf_mr_tabs)) - 1;
	struct npf_join *j = NULL;
	struct npf_mr *p;
	unsigned int f, i;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = (struct npuprof_memory_opts){ .sz = sizeof(p->o) };
	ret = npf_opts_copy(&p->o, sizeof(p->o), opts, sizeof(size_t));
	if (ret)
		goto out;
	if (!p->o.format)
		p->o.format = NPUPROF_FORMAT_TABLE;
	if (!p->o.tables)
		p->o.tables = all & ~NPUPROF_MEM_BIT(NPUPROF_MEM_EVENTS);
	f = p->o.format;
	ret = -EINVAL;
	if (!trace || (p->o.tables & ~all) ||
	    (f == NPUPROF_FORMAT_ROWS ? !p->o.sink || !p->o.sink->row :
	     !out || (f != NPUPROF_FORMAT_TABLE && f != NPUPROF_FORMAT_WIDE &&
		      f != NPUPROF_FORMAT_CSV && f != NPUPROF_FORMAT_JSONL &&
		      f != NPUPROF_FORMAT_JSON)))
		goto out;
	p->trace = trace;
	p->out = out;
	ret = npf_mem_new(&p->mem);
	if (ret)
		goto out;
	/* the used bytes: operator records joined to their model */
	if (p->o.tables & (NPUPROF_MEM_BIT(NPUPROF_MEM_DEVICES) |
			   NPUPROF_MEM_BIT(NPUPROF_MEM_PROCESSES) |
			   NPUPROF_MEM_BIT(NPUPROF_MEM_OPERATORS) |
			   NPUPROF_MEM_BIT(NPUPROF_MEM_TENSORS)))
		ret = npf_join_new(trace, &npf_mr_join_ops, p, &j);
	if (ret)
		goto out;
	if (p->o.tables != NPUPROF_MEM_BIT(NPUPROF_MEM_EVENTS)) {
		ret = npf_mr_pass(p, j);
		for (i = 0; i < NPF_MEM_MAX_DEVS && !ret; i++) {
			if (p->pk[i].pending)
				npf_mr_mark(p, i);
			if (p->pk[i].marked)
				ret = npf_mr_snap(p, i);
		}
	}
	if (!ret && npf_mr_want(p, NPUPROF_MEM_DEVICES))
		ret = npf_mr_devices(p);
	if (!ret && npf_mr_want(p, NPUPROF_MEM_PROCESSES))
		ret = npf_mr_procs(p);
	if (!ret && npf_mr_want(p, NPUPROF_MEM_BUFFERS))
		ret = npf_mr_bufs(p);
	if (!ret && npf_mr_want(p, NPUPROF_MEM_FAILURES))
		ret = npf_mr_fails(p);
	if (!ret && npf_mr_want(p, NPUPROF_MEM_OPERATORS))
		ret = npf_mr_ops(p);
	if (!ret && npf_mr_want(p, NPUPROF_MEM_TENSORS))
		ret = npf_mr_tensors(p);
	if (!ret && npf_mr_want(p, NPUPROF_MEM_EVENTS))
		ret = npf_mr_events(p);
	if (!ret && f == NPUPROF_FORMAT_JSON)
		fputs("}\n", out);
	if (!ret && out && f != NPUPROF_FORMAT_ROWS &&
	    (fflush(out) || ferror(out)))
		ret = -EIO;
out:
	npf_join_free(j);
	if (p->mem)
		npf_mem_free(p->mem);
	free(p->puse);
	free(p->opn);
	for (i = 0; i < NPF_MEM_MAX_DEVS; i++) {
		free(p->pk[i].top);
		free(p->pk[i].gone);
	}
	free(p->fails);
	free(p);
	return ret;
}
