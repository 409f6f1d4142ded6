// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memtrack.c - the buffer records of a trace checked (npf_bo_rec()) and
 * replayed (npf_mem_apply()): the live buffers of each device in a hash
 * table keyed by (device, bo_id), open addressing with linear probing and
 * backward-shift deletion (no tombstones: a long trace that allocates and
 * frees forever keeps its table as small as its live set); the
 * (device, process) totals in a second table that only grows.
 *
 * A BO_FREE pairs with the BO_ALLOC of its bo_id; one whose allocation
 * the trace does not hold (the capture began after it, a loss) changes
 * nothing and is counted as unpaired; an allocation of an id already live
 * (a damaged file) likewise, as a duplicate.
 *
 * Locking: none; one thread per tracker. Lifetime: npf_mem_new() to
 * npf_mem_free().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrack.h"

struct npf_mem {
	struct npf_mem_buf *buf;	/* live buffers, id 0: empty */
	size_t buf_cap;			/* power of two */
	size_t nbuf;
	struct npf_mem_proc *proc;	/* pid 0 and dev UINT32_MAX: empty */
	bool *proc_used;
	size_t proc_cap;
	size_t nproc;
	struct npf_mem_proc *plist;	/* npf_mem_procs() */
	struct npf_mem_buf *snap;	/* npf_mem_live() */
	size_t snap_cap;
	uint64_t seq;
	struct npf_mem_dev dev[NPF_MEM_MAX_DEVS];
};

int npf_bo_rec(const struct npuprof_event *ev,
	       const struct npu_trace_rec_bo **rec)
{
	const struct npu_trace_rec_bo *r;
	const struct npu_trace_rec_hdr *h;

	if (ev->type != NPUPROF_EV_RECORD || !ev->rec)
		return 0;
	h = ev->rec;
	if (h->type != NPU_TRACE_REC_BO_ALLOC && h->type != NPU_TRACE_REC_BO_FREE)
		return 0;
	if (h->size < sizeof(*r))
		return -EBADMSG;
	r = ev->rec;
	if (r->size > NPF_MEM_MAX_SIZE)
		return -EBADMSG;
	if (h->type == NPU_TRACE_REC_BO_ALLOC && r->error) {
		if (r->error > 0)
			return -EBADMSG;
	} else if (!r->size || !r->bo_id || r->error ||
		   r->dev_addr + r->size < r->dev_addr) {
		return -EBADMSG;
	}
	*rec = r;
	return 1;
}

const char *npf_bo_kind_name(uint32_t kind)
{
	static const char *const names[] = {
		[NPU_BO_KIND_OTHER] = "other",
		[NPU_BO_KIND_PROGRAM] = "program",
		[NPU_BO_KIND_INPUT] = "input",
		[NPU_BO_KIND_OUTPUT] = "output",
		[NPU_BO_KIND_SCRATCH] = "scratch",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

const char *npf_bo_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[NPU_TRACE_BO_FREE_OTHER] = "other",
		[NPU_TRACE_BO_FREE_HANDLE] = "handle",
		[NPU_TRACE_BO_FREE_CLOSE] = "close",
		[NPU_TRACE_BO_FREE_UNMAP] = "unmap",
		[NPU_TRACE_BO_FREE_JOB] = "job",
	};

	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] :
							    "unknown";
}

const char *npf_bo_error_name(int32_t error, char *buf, size_t len)
{
	if (error == -ENOMEM)
		return "ENOMEM";
	if (error == -EDQUOT)
		return "EDQUOT";
	snprintf(buf, len, "E%ld", -(long)error);
	return buf;
}

int npf_mem_new(struct npf_mem **out)
{
	struct npf_mem *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->buf_cap = 256;
	m->buf = calloc(m->buf_cap, sizeof(*m->buf));
	m->proc_cap = 64;
	m->proc = calloc(m->proc_cap, sizeof(*m->proc));
	m->proc_used = calloc(m->proc_cap, sizeof(*m->proc_used));
	if (!m->buf || !m->proc || !m->proc_used) {
		npf_mem_free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void npf_mem_free(struct npf_mem *m)
{
	if (!m)
		return;
	free(m->buf);
	free(m->proc);
	free(m->proc_used);
	free(m->plist);
	free(m->snap);
	free(m);
}

static inline size_t npf_mem_hash(uint32_t dev, uint64_t id, size_t cap)
{
	uint64_t h = (id ^ (uint64_t)dev << 56) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

/* The slot of (@dev, @id), or of the empty slot where it would go */
static size_t npf_mem_slot(const struct npf_mem *m, uint32_t dev, uint64_t id)
{
	size_t i = npf_mem_hash(dev, id, m->buf_cap);

	while (m->buf[i].id && (m->buf[i].id != id || m->buf[i].dev != dev))
		i = (i + 1) & (m->buf_cap - 1);
	return i;
}

static int npf_mem_grow(struct npf_mem *m)
{
	struct npf_mem_buf *old = m->buf;
	size_t oc = m->buf_cap, i;

	m->buf = calloc(oc * 2, sizeof(*m->buf));
	if (!m->buf) {
		m->buf = old;
		return -ENOMEM;
	}
	m->buf_cap = oc * 2;
	for (i = 0; i < oc; i++)
		if (old[i].id)
			m->buf[npf_mem_slot(m, old[i].dev, old[i].id)] = old[i];
	free(old);
	return 0;
}

/* Backward-shift deletion of slot @i */
static void npf_mem_del(struct npf_mem *m, size_t i)
{
	size_t mask = m->buf_cap - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!m->buf[j].id)
			break;
		k = npf_mem_hash(m->buf[j].dev, m->buf[j].id, m->buf_cap);
		/* move j to i unless its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->buf[i] = m->buf[j];
		i = j;
	}
	m->buf[i].id = 0;
}

static inline size_t npf_mem_phash(uint32_t dev, int32_t pid, size_t cap)
{
	uint64_t h = ((uint64_t)dev << 32 | (uint32_t)pid) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 24) & (cap - 1);
}

static struct npf_mem_proc *npf_mem_proc(struct npf_mem *m, uint32_t dev,
					 int32_t pid)
{
	size_t i;

	if ((m->nproc + 1) * 2 > m->proc_cap) {
		struct npf_mem_proc *op = m->proc;
		bool *ou = m->proc_used;
		size_t oc = m->proc_cap, j;

		m->proc = calloc(oc * 2, sizeof(*m->proc));
		m->proc_used = calloc(oc * 2, sizeof(*m->proc_used));
		if (!m->proc || !m->proc_used) {
			free(m->proc);
			free(m->proc_used);
			m->proc = op;
			m->proc_used = ou;
			return NULL;
		}
		m->proc_cap = oc * 2;
		for (j = 0; j < oc; j++) {
			if (!ou[j])
				continue;
			i = npf_mem_phash(op[j].dev, op[j].pid, m->proc_cap);
			while (m->proc_used[i])
				i = (i + 1) & (m->proc_cap - 1);
			m->proc[i] = op[j];
			m->proc_used[i] = true;
		}
		free(op);
		free(ou);
	}
	i = npf_mem_phash(dev, pid, m->proc_cap);
	while (m->proc_used[i] &&
	       (m->proc[i].dev != dev || m->proc[i].pid != pid))
		i = (i + 1) & (m->proc_cap - 1);
	if (!m->proc_used[i]) {
		m->proc_used[i] = true;
		m->proc[i] = (struct npf_mem_proc){ .dev = dev, .pid = pid };
		m->nproc++;
	}
	return &m->proc[i];
}

int npf_mem_apply(struct npf_mem *m, uint32_t dev,
		  const struct npu_trace_rec_bo *r, struct npf_mem_proc **procp,
		  struct npf_mem_buf *freed)
{
	struct npf_mem_dev *d;
	struct npf_mem_proc *p;
	int64_t ns = (int64_t)r->host_ns;
	size_t i;

	if (dev >= NPF_MEM_MAX_DEVS) {
		m->seq++;
		return NPF_MEM_SKIP;
	}
	d = &m->dev[dev];
	if ((m->nbuf + 1) * 4 > m->buf_cap * 3 && npf_mem_grow(m))
		return -ENOMEM;
	i = 0;
	if (r->hdr.type == NPU_TRACE_REC_BO_ALLOC && r->error) {
		p = npf_mem_proc(m, dev, r->pid);
	} else {
		i = npf_mem_slot(m, dev, r->bo_id);
		/* a free is the owner's, as its live entry says */
		p = npf_mem_proc(m, dev, m->buf[i].id &&
				 r->hdr.type == NPU_TRACE_REC_BO_FREE ?
				 m->buf[i].pid : r->pid);
		/* the proc table may have grown: the buffer table did not */
	}
	if (!p)
		return -ENOMEM;
	m->seq++;
	d->seen = true;
	if (r->dev_used > d->used_max) {
		d->used_max = r->dev_used;
		d->used_max_ns = ns;
	}
	if (procp)
		*procp = p;
	if (r->hdr.type == NPU_TRACE_REC_BO_ALLOC && r->error) {
		d->failures++;
		p->failures++;
		return NPF_MEM_FAIL;
	}
	if (r->hdr.type == NPU_TRACE_REC_BO_ALLOC) {
		if (m->buf[i].id) {
			d->dups++;
			return NPF_MEM_SKIP;
		}
		m->buf[i] = (struct npf_mem_buf){
			.id = r->bo_id, .addr = r->dev_addr, .size = r->size,
			.alloc_ns = ns, .seq = m->seq, .pid = r->pid,
			.tid = r->tid, .dev = dev, .kind = r->kind,
		};
		m->nbuf++;
		d->live++;
		d->allocs++;
		p->allocs++;
		if (!d->lo && !d->hi) {
			d->lo = r->dev_addr;
			d->hi = r->dev_addr + r->size;
		}
		if (r->dev_addr < d->lo)
			d->lo = r->dev_addr;
		if (r->dev_addr + r->size > d->hi)
			d->hi = r->dev_addr + r->size;
		d->cur += r->size;
		p->cur += r->size;
		if (d->cur > d->max) {
			d->max = d->cur;
			d->max_ns = ns;
			d->max_seq = m->seq;
		}
		if (p->cur > p->max) {
			p->max = p->cur;
			p->max_ns = ns;
		}
		return NPF_MEM_ALLOC;
	}
	if (!m->buf[i].id) {
		d->unpaired++;
		return NPF_MEM_SKIP;
	}
	if (freed)
		*freed = m->buf[i];
	d->cur -= m->buf[i].size;
	p->cur -= m->buf[i].size;
	d->live--;
	d->frees++;
	p->frees++;
	npf_mem_del(m, i);
	m->nbuf--;
	return NPF_MEM_FREE;
}

const struct npf_mem_dev *npf_mem_dev(const struct npf_mem *m, uint32_t dev)
{
	return dev < NPF_MEM_MAX_DEVS ? &m->dev[dev] : NULL;
}

const struct npf_mem_proc *npf_mem_procs(const struct npf_mem *m, size_t *n)
{
	struct npf_mem *mm = (struct npf_mem *)m;
	size_t i, k = 0;

	free(mm->plist);
	mm->plist = malloc((m->nproc ? m->nproc : 1) * sizeof(*mm->plist));
	if (!mm->plist) {
		*n = 0;
		return NULL;
	}
	for (i = 0; i < m->proc_cap; i++)
		if (m->proc_used[i])
			mm->plist[k++] = m->proc[i];
	*n = k;
	return mm->plist;
}

static int npf_mem_addr_cmp(const void *a, const void *b)
{
	const struct npf_mem_buf *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

long npf_mem_live(struct npf_mem *m, uint32_t dev, uint64_t max_seq,
		  const struct npf_mem_buf **out)
{
	size_t i, n = 0;

	if (m->snap_cap < m->nbuf + 1) {
		struct npf_mem_buf *s = realloc(m->snap,
						(m->nbuf + 1) * sizeof(*s));

		if (!s)
			return -ENOMEM;
		m->snap = s;
		m->snap_cap = m->nbuf + 1;
	}
	for (i = 0; i < m->buf_cap; i++)
		if (m->buf[i].id && m->buf[i].dev == dev &&
		    (!max_seq || m->buf[i].seq <= max_seq))
			m->snap[n++] = m->buf[i];
	qsort(m->snap, n, sizeof(*m->snap), npf_mem_addr_cmp);
	*out = m->snap;
	return (long)n;
}

uint64_t npf_mem_seq(const struct npf_mem *m)
{
	return m->seq;
}

void npf_mem_extent(const struct npf_mem_buf *b, size_t n, uint64_t base,
		    uint64_t span, uint64_t *free_bytes, uint64_t *largest)
{
	uint64_t at = base, end = base + span, fr = 0, big = 0, s, e;
	size_t i;

	for (i = 0; i <= n; i++) {
		if (i < n) {
			s = b[i].addr < base ? base : b[i].addr;
			e = b[i].addr + b[i].size;
			if (s > end)
				s = end;
			if (e > end)
				e = end;
		} else {
			s = e = end;
		}
		if (s > at) {
			fr += s - at;
			if (s - at > big)
				big = s - at;
		}
		if (e > at)
			at = e;
	}
	*free_bytes = fr;
	*largest = big;
}
