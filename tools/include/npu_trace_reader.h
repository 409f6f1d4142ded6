/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_trace_reader.h - a minimal trace ring reader, written from
 * Documentation/npu/ring.rst, and jobs that fill a ring: open a trace fd
 * and map its ring, enable it, read and check its records (types, LOST
 * counts, sequence numbers) and publish the consumer position, in a thread
 * of its own if wanted; and chains of CLIP operators, each of which writes
 * an OP record at trace level 2, run one at a time or as a flood.
 *
 * No library in between: it is the reference a library's reader is
 * measured against (npuprof-bench-vm) and the reader of the trace
 * selftests (selftests/npu/trace_lib.h includes it). Header-only; no
 * global state; helpers return 0 (or what they say) or a negative errno.
 */
#ifndef NPU_TRACE_READER_H
#define NPU_TRACE_READER_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/npu.h>

#include "npu_job.h"

struct trace_ring {
	int fd;
	struct npu_trace_ring *hdr;	/* header page, read-write */
	const uint8_t *data;		/* data pages, read-only */
	uint64_t data_size;
	long page;
};

/* What a reader saw; checked by trace_check_seq(). */
struct trace_stats {
	uint64_t records;		/* non-PAD records read */
	uint64_t pads;
	uint64_t by_type[8];
	uint64_t lost[4];		/* LOST counts by reason */
	uint64_t seq_errors;		/* gaps not explained by a LOST record */
	uint64_t bad;			/* malformed records */
	bool have_seq;
	uint32_t last_seq;
};

static inline int trace_open(int devfd, uint32_t flags, uint32_t pages,
			     uint32_t watermark, struct trace_ring *t)
{
	struct npu_trace_open op;
	void *p;
	int ret;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->page = sysconf(_SC_PAGESIZE);
	memset(&op, 0, sizeof(op));
	op.flags = flags;
	op.data_pages = pages;
	op.watermark = watermark;
	ret = npu_ioctl(devfd, NPU_IOCTL_TRACE_OPEN, &op);
	if (ret)
		return ret;
	t->fd = op.fd;
	t->data_size = op.data_size;
	p = mmap(NULL, t->page, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	t->hdr = p;
	p = mmap(NULL, t->data_size, PROT_READ, MAP_SHARED, t->fd,
		 op.data_offset);
	if (p == MAP_FAILED)
		goto fail;
	t->data = p;
	return 0;
fail:
	ret = -errno;
	if (t->hdr)
		munmap(t->hdr, t->page);
	close(t->fd);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	return ret;
}

static inline void trace_close(struct trace_ring *t)
{
	if (t->data)
		munmap((void *)t->data, t->data_size);
	if (t->hdr)
		munmap(t->hdr, t->page);
	if (t->fd >= 0)
		close(t->fd);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

static inline int trace_enable(struct trace_ring *t, uint32_t level)
{
	struct npu_trace_enable en;

	memset(&en, 0, sizeof(en));
	en.level = level;
	return npu_ioctl(t->fd, NPU_TRACE_IOCTL_ENABLE, &en);
}

static inline int trace_disable(struct trace_ring *t)
{
	return ioctl(t->fd, NPU_TRACE_IOCTL_DISABLE) ? -errno : 0;
}

static inline int trace_status(struct trace_ring *t,
			       struct npu_trace_status *st)
{
	memset(st, 0, sizeof(*st));
	return npu_ioctl(t->fd, NPU_TRACE_IOCTL_STATUS, st);
}

static inline uint64_t trace_unread(struct trace_ring *t)
{
	return __atomic_load_n(&t->hdr->producer, __ATOMIC_ACQUIRE) -
	       t->hdr->consumer;
}

/* Account one record in @st: types, LOST counts, sequence continuity. */
static inline void trace_account(struct trace_stats *st,
				 const struct npu_trace_rec_hdr *h)
{
	if (h->type == NPU_TRACE_REC_PAD) {
		st->pads++;
		return;
	}
	st->records++;
	st->by_type[h->type < 8 ? h->type : 7]++;
	if (h->type == NPU_TRACE_REC_LOST) {
		const struct npu_trace_rec_lost *l = (const void *)h;

		st->lost[l->reason < 4 ? l->reason : 0] += l->count;
		if (l->reason == NPU_TRACE_LOST_RING_FULL) {
			if (st->have_seq &&
			    h->seq - st->last_seq - 1 != (uint32_t)l->count)
				st->seq_errors++;
			if (!st->have_seq && h->seq != (uint32_t)l->count)
				st->seq_errors++;
			st->have_seq = true;
			st->last_seq = h->seq;
			return;
		}
	}
	if ((st->have_seq && h->seq != st->last_seq + 1) ||
	    (!st->have_seq && h->seq != 0))
		st->seq_errors++;
	st->have_seq = true;
	st->last_seq = h->seq;
}

/*
 * Read every unread record, calling @fn (may be NULL) for each non-PAD
 * one, then publish the consumer position: what the ring holds, no
 * system call. Returns records read, or -EIO on a malformed record.
 */
typedef void (*trace_rec_fn)(const struct npu_trace_rec_hdr *h, void *arg);

static inline long trace_read(struct trace_ring *t, struct trace_stats *st,
			      trace_rec_fn fn, void *arg)
{
	uint64_t prod = __atomic_load_n(&t->hdr->producer, __ATOMIC_ACQUIRE);
	uint64_t cons = t->hdr->consumer;
	long n = 0;

	while (cons != prod) {
		const struct npu_trace_rec_hdr *h = (const void *)
			(t->data + (cons & (t->data_size - 1)));

		if (h->size < 8 || h->size % 8 || h->size > prod - cons ||
		    (cons & (t->data_size - 1)) + h->size > t->data_size) {
			st->bad++;
			return -EIO;
		}
		trace_account(st, h);
		if (h->type != NPU_TRACE_REC_PAD) {
			if (fn)
				fn(h, arg);
			n++;
		}
		cons += h->size;
	}
	__atomic_store_n(&t->hdr->consumer, cons, __ATOMIC_RELEASE);
	return n;
}

/*
 * trace_read() of every record of the jobs completed so far:
 * NPU_TRACE_IOCTL_STATUS first delivers their records, which the driver
 * otherwise writes a jiffy after their completion (ring.rst, "Delivery").
 */
static inline long trace_consume(struct trace_ring *t, struct trace_stats *st,
				 trace_rec_fn fn, void *arg)
{
	struct npu_trace_status ts;

	/* The device may be gone (ENODEV): what the ring holds is read. */
	(void)ioctl(t->fd, NPU_TRACE_IOCTL_STATUS, &ts);
	return trace_read(t, st, fn, arg);
}

/*
 * Thread body (pthread_create) of a reader that only parses: polls the
 * ring (up to every 10 ms) and reads what is there, as a library's reader
 * does (no system call but the poll), until @stop is set and nothing is
 * left unread (then with the pending records delivered), or a malformed
 * record (@err).
 */
struct trace_drainer {
	struct trace_ring *t;
	struct trace_stats st;
	volatile int stop;
	long err;
};

static inline void *trace_drainer_main(void *arg)
{
	struct trace_drainer *d = arg;
	struct pollfd pfd = { .fd = d->t->fd, .events = POLLIN };
	long n;

	for (;;) {
		poll(&pfd, 1, 10);
		n = d->stop ? trace_consume(d->t, &d->st, NULL, NULL) :
			      trace_read(d->t, &d->st, NULL, NULL);
		if (n < 0) {
			d->err = n;
			break;
		}
		if (d->stop && !trace_unread(d->t))
			break;
	}
	return NULL;
}

/* ---- jobs that fill a ring ---------------------------------------------- */

/*
 * A program of @k CLIP operators over @n bytes: the first reads slot
 * @in_slot and writes slot @out_slot, the others clip slot @out_slot in
 * place. @prog must hold trace_chain_size(@k) bytes.
 */
static inline size_t trace_chain_size(unsigned int k)
{
	return sizeof(struct npu_prog_hdr) + 2 * sizeof(struct npu_prog_tensor) +
	       k * sizeof(struct npu_prog_op);
}

static inline void trace_chain_prog(void *prog, unsigned int n, unsigned int k,
				    unsigned int in_slot, unsigned int out_slot,
				    int act_min, int act_max)
{
	struct npu_prog_hdr *h = prog;
	struct npu_prog_tensor *t = (void *)(h + 1);
	struct npu_prog_op *op = (void *)(t + 2);
	unsigned int i;

	memset(prog, 0, trace_chain_size(k));
	h->magic = NPU_PROG_MAGIC;
	h->version = NPU_PROG_VERSION;
	h->hdr_size = sizeof(*h);
	h->n_tensors = 2;
	h->n_ops = k;
	h->tensors_off = sizeof(*h);
	h->ops_off = sizeof(*h) + 2 * sizeof(*t);
	h->size = trace_chain_size(k);
	t[0].dtype = NPU_DT_U8;
	t[0].ndim = 1;
	t[0].layout = NPU_LAYOUT_PLAIN;
	t[0].buf = in_slot;
	t[0].dims[0] = n;
	t[0].dims[1] = t[0].dims[2] = t[0].dims[3] = 1;
	t[1] = t[0];
	t[1].buf = out_slot;
	for (i = 0; i < k; i++) {
		op[i].opcode = NPU_OP_CLIP;
		op[i].in[0] = i ? 1 : 0;
		op[i].in[1] = NPU_PROG_NONE;
		op[i].in[2] = NPU_PROG_NONE;
		op[i].out = 1;
		op[i].act_min = act_min + (int)(i % 32);
		op[i].act_max = act_max;
		op[i].rq = NPU_PROG_NONE;
	}
}

/* Everything needed to run CLIP-chain jobs on one /dev/npu0 fd. */
struct trace_jobs {
	int fd;
	unsigned int n;			/* bytes per job */
	unsigned int k;			/* operators per job */
	struct npu_bo_create prog, in, out;
	uint8_t *prog_map, *in_map, *out_map;
	unsigned int h[3];		/* slots: program, input, output */
};

#define TRACE_PROG_BO_SIZE	(128 * 1024)

static inline int trace_jobs_init(struct trace_jobs *j, int fd, unsigned int n,
				  unsigned int k)
{
	unsigned int i;
	int ret;

	memset(j, 0, sizeof(*j));
	j->fd = fd;
	j->n = n;
	j->k = k;
	if (trace_chain_size(k) > TRACE_PROG_BO_SIZE)
		return -EINVAL;
	ret = npu_bo_new(fd, TRACE_PROG_BO_SIZE, &j->prog);
	if (!ret)
		ret = npu_bo_new(fd, n, &j->in);
	if (!ret)
		ret = npu_bo_new(fd, n, &j->out);
	if (ret)
		return ret;
	j->prog_map = npu_bo_map(fd, &j->prog);
	j->in_map = npu_bo_map(fd, &j->in);
	j->out_map = npu_bo_map(fd, &j->out);
	if (!j->prog_map || !j->in_map || !j->out_map)
		return -errno;
	trace_chain_prog(j->prog_map, n, k, 1, 2, 10, 200);
	for (i = 0; i < n; i++)
		j->in_map[i] = (i * 7) & 0xff;
	j->h[0] = j->prog.handle;
	j->h[1] = j->in.handle;
	j->h[2] = j->out.handle;
	return 0;
}

/* Change the number of operators of the jobs' program. */
static inline int trace_jobs_set_ops(struct trace_jobs *j, unsigned int k)
{
	if (!k || trace_chain_size(k) > TRACE_PROG_BO_SIZE)
		return -EINVAL;
	j->k = k;
	trace_chain_prog(j->prog_map, j->n, k, 1, 2, 10, 200);
	return 0;
}

static inline int trace_job_submit(struct trace_jobs *j, unsigned int pe,
				   unsigned long long *id)
{
	return npu_submit_job(j->fd, pe, j->h, 3, 0, 0, trace_chain_size(j->k),
			      id);
}

/* Submit one job and wait for it. */
static inline int trace_job_run(struct trace_jobs *j, unsigned int pe,
				struct npu_wait *w)
{
	unsigned long long id;
	int ret;

	ret = trace_job_submit(j, pe, &id);
	if (ret)
		return ret;
	return npu_wait_job(j->fd, id, 0, 10000000000ll, w);
}

/*
 * Run @jobs jobs on any PE, keeping @depth of them in flight (at most 64),
 * each waited for in submission order. Returns 0, a negative errno, or
 * -EIO for a job that did not end OK.
 */
static inline int trace_jobs_flood(struct trace_jobs *j, unsigned int jobs,
				   unsigned int depth)
{
	unsigned long long ids[64];
	unsigned int done = 0, sub = 0;
	struct npu_wait w;
	int ret;

	if (!depth || depth > 64)
		return -EINVAL;
	while (done < jobs) {
		while (sub < jobs && sub - done < depth) {
			ret = trace_job_submit(j, NPU_PE_ANY, &ids[sub % 64]);
			if (ret)
				return ret;
			sub++;
		}
		ret = npu_wait_job(j->fd, ids[done % 64], 0, 10000000000ll, &w);
		if (ret)
			return ret;
		if (w.result.status != NPU_JOB_OK)
			return -EIO;
		done++;
	}
	return 0;
}

#endif /* NPU_TRACE_READER_H */
