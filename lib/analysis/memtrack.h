/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memtrack.h - the buffer records of a trace (NPU_TRACE_REC_BO_ALLOC and
 * _BO_FREE, struct npu_trace_rec_bo) checked, and replayed into the
 * buffers live on each device and the bytes each device and each process
 * has allocated (memtrack.c). The memory report (memory.c), the Chrome
 * counters (timeline.c), the memory_flow SVG (export_memsvg.c) and the
 * SQLite export use it; it uses nothing of theirs.
 *
 * Locking: none; a tracker is used by one thread. Lifetime: from
 * npf_mem_new() to npf_mem_free(); memory grows with the buffers live at
 * once and the (device, process) pairs seen, never with the trace's
 * length.
 */
#ifndef NPF_MEMTRACK_H
#define NPF_MEMTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/npu.h>
#include "npuprof_analysis.h"

/* Largest buffer size believed: 2^48 bytes (a larger one is nonsense) */
#define NPF_MEM_MAX_SIZE	(1ull << 48)
/* Devices tracked; records of devices beyond are skipped */
#define NPF_MEM_MAX_DEVS	64

/*
 * npf_bo_rec() - the BO record of event @ev, checked
 * @ev: an event of the reader
 * @rec: out: the record (pointing into @ev's storage)
 *
 * Return: 1 with a BO_ALLOC or BO_FREE that makes sense; 0 for an event
 * that is not a BO record; -EBADMSG for one that cannot be (shorter than
 * struct npu_trace_rec_bo, a size of 0 or above NPF_MEM_MAX_SIZE, an
 * address range that wraps, a buffer id of 0 on a buffer that exists, an
 * error on a BO_FREE): the caller skips and counts it.
 */
int npf_bo_rec(const struct npuprof_event *ev,
	       const struct npu_trace_rec_bo **rec);

/* Name of an NPU_BO_KIND_*: "other", "program", "input", "output",
 * "scratch", or "unknown" */
const char *npf_bo_kind_name(uint32_t kind);
/* Name of an NPU_TRACE_BO_FREE_* reason: "other", "handle", "close",
 * "unmap", "job", or "unknown" */
const char *npf_bo_reason_name(uint32_t reason);
/* Name of an allocation error: "ENOMEM", "EDQUOT", or "E<n>" in @buf */
const char *npf_bo_error_name(int32_t error, char *buf, size_t len);

/* A live buffer */
struct npf_mem_buf {
	uint64_t id;		/* bo_id, never 0 in the table */
	uint64_t addr;
	uint64_t size;
	int64_t alloc_ns;	/* host_ns of its BO_ALLOC */
	uint64_t seq;		/* the tracker's count of BO records then */
	int32_t pid;
	int32_t tid;
	uint32_t dev;
	uint32_t kind;
};

/* A process's allocations on one device */
struct npf_mem_proc {
	uint32_t dev;
	int32_t pid;
	uint64_t cur;		/* bytes allocated now */
	uint64_t max;		/* the most at once */
	int64_t max_ns;		/* when first reached (0: never) */
	uint64_t allocs;
	uint64_t frees;
	uint64_t failures;
};

/* A device's allocations, of the buffers the trace shows */
struct npf_mem_dev {
	bool seen;		/* a BO record of the device was applied */
	uint64_t cur;		/* bytes allocated now (sum of the live) */
	uint64_t max;		/* the most at once */
	int64_t max_ns;		/* when first reached */
	uint64_t max_seq;	/* the tracker's count of records then */
	uint64_t used_max;	/* largest dev_used: every process */
	int64_t used_max_ns;
	uint64_t live;		/* buffers live now */
	uint64_t allocs;
	uint64_t frees;
	uint64_t failures;
	uint64_t unpaired;	/* frees of a buffer not seen allocated */
	uint64_t dups;		/* allocations of an id already live */
	uint64_t lo, hi;	/* lowest address, highest end seen */
};

/* What npf_mem_apply() did */
enum npf_mem_what {
	NPF_MEM_ALLOC = 1,	/* a buffer allocated */
	NPF_MEM_FREE,		/* a live buffer freed */
	NPF_MEM_FAIL,		/* a failed allocation (nothing changed) */
	NPF_MEM_SKIP,		/* unpaired free, duplicate id: nothing */
};

struct npf_mem;

int npf_mem_new(struct npf_mem **m);
void npf_mem_free(struct npf_mem *m);

/*
 * npf_mem_apply() - replay a checked BO record @r of device @dev
 * @proc: out (or NULL): the (device, process) entry it changed (ALLOC,
 *	FREE, FAIL), valid until the next call
 * @buf: out (or NULL): FREE: the buffer freed, as it was (its alloc
 *	time and owner)
 *
 * Return: enum npf_mem_what, or -ENOMEM (nothing changed).
 */
int npf_mem_apply(struct npf_mem *m, uint32_t dev,
		  const struct npu_trace_rec_bo *r, struct npf_mem_proc **proc,
		  struct npf_mem_buf *buf);

/* Device @dev's totals (zero before any record), NULL beyond the limit */
const struct npf_mem_dev *npf_mem_dev(const struct npf_mem *m, uint32_t dev);

/*
 * npf_mem_procs() - the (device, process) entries, in no order: *@n of
 * them, valid until the next npf_mem_apply()
 */
const struct npf_mem_proc *npf_mem_procs(const struct npf_mem *m, size_t *n);

/*
 * npf_mem_live() - the buffers live now on device @dev into *@out (an
 * array the tracker owns, valid until the next call), sorted by address;
 * with @max_seq, only those allocated at or before record count
 * @max_seq. Return: the count, or -ENOMEM.
 */
long npf_mem_live(struct npf_mem *m, uint32_t dev, uint64_t max_seq,
		  const struct npf_mem_buf **out);

/* The tracker's count of BO records applied (and skipped) so far */
uint64_t npf_mem_seq(const struct npf_mem *m);

/*
 * npf_mem_extent() - free bytes and the largest free extent of an
 * address range [@base, @base + @span) holding the @n buffers @b sorted
 * by address (overlaps counted once)
 */
void npf_mem_extent(const struct npf_mem_buf *b, size_t n, uint64_t base,
		    uint64_t span, uint64_t *free_bytes, uint64_t *largest);

#endif /* NPF_MEMTRACK_H */
