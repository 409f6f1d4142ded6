// SPDX-License-Identifier: GPL-2.0-only
/*
 * op_run.c - npuprof op: run a job N times on the device and reduce its
 * trace to latency distributions.
 *
 * The device and its buffers come from libnpu; jobs go through the
 * driver's NPU_IOCTL_SUBMIT and NPU_IOCTL_WAIT (tools/include/npu_job.h),
 * as the job is a bare program rather than a model; the records come from
 * a trace ring of this process enabled at level 2, read directly
 * (tools/include/npu_trace_reader.h, Documentation/npu/ring.rst): one OP
 * record per operator of each run, then the run's EXEC record. Durations
 * are device clock ticks (end_tick - start_tick of an OP record),
 * converted to ns at the device's nominal CLOCK_HZ.
 *
 * Single-threaded; everything it allocates is freed before it returns.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "libnpu.h"
#include "npu_trace_reader.h"
#include "cli.h"
#include "op.h"

#define NPO_RING_PAGES	64

static uint64_t ticks_ns(uint64_t ticks, uint64_t clock_hz)
{
	unsigned __int128 n = (unsigned __int128)ticks * 1000000000u;

	if (!clock_hz)
		return ticks;
	return (uint64_t)((n + clock_hz / 2) / clock_hz);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void npo_dist(uint64_t *v, uint32_t n, struct npo_dist *d)
{
	long double sum = 0;
	uint32_t i, rank;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	d->min = v[0];
	d->max = v[n - 1];
	d->median = v[(n - 1) / 2];
	rank = (uint32_t)(((uint64_t)n * 99 + 99) / 100);	/* ceil(.99 n) */
	d->p99 = v[rank - 1];
	d->mean = (double)(sum / n);
}

void npo_result_derive(struct npo_result *res)
{
	uint64_t prev = 0, mpc = res->macs_per_cycle ? res->macs_per_cycle : 1;
	uint32_t i;

	res->macs = res->dma_bytes = res->sram_bytes = 0;
	for (i = 0; i < res->n_ops; i++) {
		struct npo_opres *o = &res->op[i];
		unsigned __int128 num, den;
		uint64_t dma;

		o->compute_ns = ticks_ns(o->macs / mpc + (o->macs % mpc ? 1 : 0),
					 res->clock_hz);
		num = (unsigned __int128)o->dma_bytes * res->clock_hz;
		den = (unsigned __int128)(res->dma_bw ? res->dma_bw : 1) *
		      1000000u;
		dma = (uint64_t)(num / den + (num % den ? 1 : 0));
		o->dma_ns = ticks_ns(dma, res->clock_hz);
		/* all of an operator's tensors sit in SRAM while it computes */
		o->sram_bytes = o->dma_bytes;
		res->macs += o->macs;
		res->dma_bytes += o->dma_bytes;
		/* double buffering: op i's transfers land during op i-1 */
		if (prev + o->sram_bytes > res->sram_bytes)
			res->sram_bytes = prev + o->sram_bytes;
		prev = o->sram_bytes;
	}
}

int npo_device_model(const char *dev_path, struct npu_info *info, char *buf,
		     size_t len)
{
	struct npu_device *dev;
	int ret;

	ret = npu_device_open(dev_path, &dev);
	if (ret) {
		npc_err("op: %s: %s", dev_path, strerror(-ret));
		return 1;
	}
	*info = *npu_device_info(dev);
	npu_device_close(dev);
	snprintf(buf, len,
		 "hw=%u.%u pes=%u clock=%" PRIu64 " mpc=%u dma=%u sram=%u",
		 info->hw_version >> 16, info->hw_version & 0xffff,
		 info->pe_count, (uint64_t)info->clock_hz,
		 info->macs_per_cycle, info->dma_bw, info->sram_size);
	return 0;
}

/* what the records of one run give; filled by on_record() */
struct run_ctx {
	const struct npo_job *job;
	uint64_t job_id;
	uint32_t slot;		/* index of this run among the timed ones */
	bool timed;
	bool exec_seen;
	bool exec_device;
	uint32_t ops_seen;
	uint32_t exec_status;
	uint64_t *lat[NPO_MAX_OPS];
	uint64_t *iow[NPO_MAX_OPS];
	uint64_t macs[NPO_MAX_OPS];
	uint64_t dma[NPO_MAX_OPS];
	uint64_t lost;
};

static void on_record(const struct npu_trace_rec_hdr *h, void *arg)
{
	struct run_ctx *c = arg;

	if (h->type == NPU_TRACE_REC_LOST && h->size >= sizeof(struct npu_trace_rec_lost)) {
		c->lost += ((const struct npu_trace_rec_lost *)h)->count;
		return;
	}
	if (h->type == NPU_TRACE_REC_OP && h->size >= sizeof(struct npu_trace_rec_op)) {
		const struct npu_trace_rec_op *r = (const void *)h;

		if (r->job_id != c->job_id || r->op_index >= c->job->n_ops)
			return;
		c->ops_seen++;
		c->macs[r->op_index] = r->macs;
		c->dma[r->op_index] = r->dma_bytes;
		if (c->timed) {
			c->lat[r->op_index][c->slot] = r->end_tick - r->start_tick;
			c->iow[r->op_index][c->slot] = r->iowait_ticks;
		}
		return;
	}
	if (h->type == NPU_TRACE_REC_EXEC && h->size >= sizeof(struct npu_trace_rec_exec)) {
		const struct npu_trace_rec_exec *r = (const void *)h;

		if (r->job_id != c->job_id)
			return;
		c->exec_seen = true;
		c->exec_device = r->flags & NPU_TRACE_EXEC_F_DEVICE;
		c->exec_status = r->status;
	}
}

/* read the ring until the EXEC record of c->job_id; 0 or 1 after a message */
static int collect(struct trace_ring *ring, struct run_ctx *c,
		   uint32_t timeout_ms)
{
	struct trace_stats st;
	struct pollfd pfd = { .fd = ring->fd, .events = POLLIN };
	uint32_t waited = 0;
	long n;

	memset(&st, 0, sizeof(st));
	for (;;) {
		n = trace_consume(ring, &st, on_record, c);
		if (n < 0) {
			npc_err("op: the trace ring holds a malformed record");
			return 1;
		}
		if (c->exec_seen)
			return 0;
		if (waited >= timeout_ms) {
			npc_err("op: no trace record of job %" PRIu64 " after %u ms%s",
				c->job_id, timeout_ms,
				c->lost ? " (trace records were lost)" : "");
			return 1;
		}
		poll(&pfd, 1, 10);
		waited += 10;
	}
}

struct run_bufs {
	struct npu_buffer *buf[NPO_MAX_SLOTS];
	unsigned int handle[NPO_MAX_SLOTS];
	unsigned int n;
};

static int make_bufs(struct npu_device *dev, const struct npo_job *job,
		     struct run_bufs *b)
{
	unsigned int i;
	void *p;
	int ret;

	for (i = 0; i < job->nslots; i++) {
		ret = npu_buffer_create(dev, job->size[i],
					i == job->prog_slot ?
					NPU_BO_PROGRAM |
					NPU_BO_KIND(NPU_BO_KIND_PROGRAM) : 0,
					&b->buf[i]);
		if (ret) {
			npc_err("op: a buffer of %zu bytes for slot %u: %s",
				job->size[i], i, strerror(-ret));
			return 1;
		}
		b->n = i + 1;
		b->handle[i] = npu_buffer_handle(b->buf[i]);
		if (!job->image[i])
			continue;
		ret = npu_buffer_map(b->buf[i], &p);
		if (ret) {
			npc_err("op: mapping slot %u: %s", i, strerror(-ret));
			return 1;
		}
		memcpy(p, job->image[i], job->size[i]);
	}
	return 0;
}

static void free_bufs(struct run_bufs *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		npu_buffer_free(b->buf[i]);
	b->n = 0;
}

static int run_once(int fd, const struct npo_job *job,
		    const struct npo_run_opts *o, const struct run_bufs *b,
		    struct trace_ring *ring, struct run_ctx *c, uint32_t pe)
{
	unsigned long long id;
	struct npu_wait w;
	int ret;

	ret = npu_submit_job(fd, pe, b->handle, job->nslots, job->prog_slot,
			     job->prog_off, job->prog_size, &id);
	if (ret) {
		npc_err("op: submitting the job: %s", strerror(-ret));
		return 1;
	}
	ret = npu_wait_job(fd, id, 0, (long long)o->timeout_ms * 1000000, &w);
	if (ret) {
		npc_err("op: waiting for the job: %s", strerror(-ret));
		return 1;
	}
	if (w.result.status != NPU_JOB_OK) {
		const char *s = npc_job_status_name(w.result.status);

		npc_err("op: the device refused the operator: status %s, operator %u",
			s ? s : "unknown", w.result.op_index);
		return 1;
	}
	c->job_id = id;
	c->exec_seen = false;
	c->ops_seen = 0;
	ret = collect(ring, c, o->timeout_ms);
	if (ret)
		return ret;
	if (!c->exec_device || c->ops_seen != job->n_ops) {
		npc_err("op: job %llu has %u of its %u operator records%s%s",
			id, c->ops_seen, job->n_ops,
			c->exec_device ? "" : " and no device times",
			c->lost ? " (trace records were lost)" : "");
		return 1;
	}
	return 0;
}

int npo_run(const struct npo_job *job, const struct npo_run_opts *o,
	    const struct npu_info *info, struct npo_result *res)
{
	struct run_bufs b = { .n = 0 };
	struct trace_ring ring = { .fd = -1 };
	struct npu_device *dev = NULL;
	struct run_ctx c;
	uint64_t *tot = NULL, *totiow = NULL, *tmp = NULL;
	uint32_t r, i, pe = o->pe < 0 ? 0 : (uint32_t)o->pe;
	int ret = 1, err;

	memset(&c, 0, sizeof(c));
	c.job = job;
	if (pe >= info->pe_count) {
		npc_err("op: --pe %u: %s has PEs 0..%u", pe, o->device,
			info->pe_count - 1);
		return 1;
	}
	err = npu_device_open(o->device, &dev);
	if (err) {
		npc_err("op: %s: %s", o->device, strerror(-err));
		return 1;
	}
	for (i = 0; i < job->n_ops; i++) {
		c.lat[i] = calloc(o->runs, sizeof(uint64_t));
		c.iow[i] = calloc(o->runs, sizeof(uint64_t));
		if (!c.lat[i] || !c.iow[i])
			goto nomem;
	}
	tot = calloc(o->runs, sizeof(uint64_t));
	totiow = calloc(o->runs, sizeof(uint64_t));
	tmp = calloc(o->runs, sizeof(uint64_t));
	if (!tot || !totiow || !tmp)
		goto nomem;
	if (make_bufs(dev, job, &b))
		goto out;
	err = trace_open(npu_device_fd(dev), 0, NPO_RING_PAGES, 0, &ring);
	if (!err)
		err = trace_enable(&ring, 2);
	if (err) {
		npc_err("op: a trace ring at level 2 on %s: %s", o->device,
			strerror(-err));
		goto out;
	}
	for (r = 0; r < o->warmup + o->runs; r++) {
		c.timed = r >= o->warmup;
		c.slot = r - (c.timed ? o->warmup : 0);
		if (run_once(npu_device_fd(dev), job, o, &b, &ring, &c, pe))
			goto out;
	}
	trace_disable(&ring);

	memset(res, 0, sizeof(*res));
	snprintf(res->desc, sizeof(res->desc), "%s", job->desc);
	snprintf(res->device, sizeof(res->device), "%s", o->device);
	res->hw_version = info->hw_version;
	res->pe_count = info->pe_count;
	res->pe = pe;
	res->clock_hz = info->clock_hz;
	res->macs_per_cycle = info->macs_per_cycle;
	res->dma_bw = info->dma_bw;
	res->sram_size = info->sram_size;
	res->runs = o->runs;
	res->warmup = o->warmup;
	res->n_ops = job->n_ops;
	for (i = 0; i < job->n_ops; i++) {
		struct npo_opres *op = &res->op[i];

		op->op_index = job->first_op + i;
		op->opcode = job->opcode[i];
		snprintf(op->layer, sizeof(op->layer), "%s", job->layer[i]);
		op->macs = c.macs[i];
		op->dma_bytes = c.dma[i];
		for (r = 0; r < o->runs; r++) {
			tot[r] += c.lat[i][r];
			totiow[r] += c.iow[i][r];
			tmp[r] = ticks_ns(c.lat[i][r] - c.iow[i][r],
					  info->clock_hz);
			c.lat[i][r] = ticks_ns(c.lat[i][r], info->clock_hz);
			c.iow[i][r] = ticks_ns(c.iow[i][r], info->clock_hz);
		}
		npo_dist(tmp, o->runs, &op->run);
		npo_dist(c.lat[i], o->runs, &op->lat);
		npo_dist(c.iow[i], o->runs, &op->iowait);
	}
	for (r = 0; r < o->runs; r++) {
		tot[r] = ticks_ns(tot[r], info->clock_hz);
		totiow[r] = ticks_ns(totiow[r], info->clock_hz);
	}
	npo_dist(tot, o->runs, &res->total);
	npo_dist(totiow, o->runs, &res->total_iowait);
	npo_result_derive(res);
	ret = 0;
	goto out;
nomem:
	npc_err("op: out of memory for %u runs", o->runs);
out:
	trace_close(&ring);
	free_bufs(&b);
	npu_device_close(dev);
	for (i = 0; i < NPO_MAX_OPS; i++) {
		free(c.lat[i]);
		free(c.iow[i]);
	}
	free(tot);
	free(totiow);
	free(tmp);
	return ret;
}
