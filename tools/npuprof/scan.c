// SPDX-License-Identifier: GPL-2.0-only
/*
 * scan.c - the totals of a trace, counted event by event: what `npuprof
 * record` reports after the command and `npuprof dump` prints at the end.
 *
 * Counts records by type, losses by reason (LOST records and HOST_LOST
 * events, or the trailer's summary when it says more), checks the ring sequence numbers of every device (records
 * missing by seq and not explained by a RING_FULL LOST record are counted
 * as seq gaps: lost silently), and keeps the clock fits and the causality
 * violations of the trailer. Memory is the struct: bounded by NPC_MAX_DEV.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void npc_totals_init(struct npc_totals *t)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < NPC_MAX_DEV; i++)
		snprintf(t->dev[i].name, sizeof(t->dev[i].name), "dev%u", i);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static struct npc_dev *dev_of(struct npc_totals *t, uint32_t dev)
{
	if (dev >= NPC_MAX_DEV)
		return NULL;
	if (dev >= t->ndev)
		t->ndev = dev + 1;
	return &t->dev[dev];
}

const struct npc_dev *npc_totals_dev(const struct npc_totals *t, uint32_t dev)
{
	return dev < NPC_MAX_DEV ? &t->dev[dev] : NULL;
}

static void add_device(struct npc_totals *t, const struct npuprof_event *ev)
{
	struct npc_dev *d = dev_of(t, ev->dev);
	const struct npu_info *info = ev->info;

	if (!d)
		return;
	if (info && ev->info_size >= offsetof(struct npu_info, minor) +
				     sizeof(info->minor)) {
		snprintf(d->name, sizeof(d->name), "npu%u", info->minor);
		d->clock_hz = info->clock_hz;
	} else if (ev->key && *ev->key) {
		const char *base = strrchr(ev->key, '/');

		snprintf(d->name, sizeof(d->name), "%s", base ? base + 1 : ev->key);
	}
}

/*
 * Ring seq continuity: between consecutive records a and b of a device,
 * b - a - 1 records were dropped, and only a RING_FULL LOST record b may
 * account for them (ring.rst, "Sequence numbers and losses").
 */
static void check_seq(struct npc_totals *t, struct npc_dev *d,
		      const struct npu_trace_rec_hdr *h)
{
	uint64_t explained = 0;
	uint32_t missing;

	if (h->type == NPU_TRACE_REC_LOST &&
	    h->size >= sizeof(struct npu_trace_rec_lost)) {
		const struct npu_trace_rec_lost *l = (const void *)h;

		if (l->reason == NPU_TRACE_LOST_RING_FULL)
			explained = l->count;
	}
	if (d->have_seq) {
		missing = h->seq - d->last_seq - 1;	/* 32-bit, wrapping */
		if (missing != explained)
			t->seq_gaps += missing > explained ? missing - explained
							   : explained - missing;
	}
	d->have_seq = true;
	d->last_seq = h->seq;
}

static void add_record(struct npc_totals *t, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_hdr *h = ev->rec;
	struct npc_dev *d = dev_of(t, ev->dev);

	if (!h)
		return;
	if (d)
		check_seq(t, d, h);
	else
		t->untracked_dev++;
	switch (h->type) {
	case NPU_TRACE_REC_EXEC:
		t->execs++;
		if (h->size >= sizeof(struct npu_trace_rec_exec) &&
		    (((const struct npu_trace_rec_exec *)h)->flags &
		     NPU_TRACE_EXEC_F_DEVICE))
			t->execs_device++;
		break;
	case NPU_TRACE_REC_OP:
		t->ops++;
		break;
	case NPU_TRACE_REC_CLOCK:
		t->clocks++;
		break;
	case NPU_TRACE_REC_LOST:
		if (h->size >= sizeof(struct npu_trace_rec_lost)) {
			const struct npu_trace_rec_lost *l = (const void *)h;

			t->lost[l->reason < 4 ? l->reason : 0] += l->count;
		}
		break;
	default:
		t->other_recs++;
		break;
	}
}

void npc_totals_add(struct npc_totals *t, const struct npuprof_event *ev)
{
	struct npc_dev *d;

	t->events++;
	switch (ev->type) {
	case NPUPROF_EV_DEVICE:
		add_device(t, ev);
		break;
	case NPUPROF_EV_SPAN:
		t->spans++;
		if (ev->span && ev->span->kind == NPUPROF_SPAN_LABEL)
			t->labels++;
		break;
	case NPUPROF_EV_RECORD:
		add_record(t, ev);
		break;
	case NPUPROF_EV_SESSION:
		t->sessions[ev->session_op <= 4 ? ev->session_op : 0]++;
		break;
	case NPUPROF_EV_HOST_LOST:
		t->spans_lost += ev->count;
		break;
	case NPUPROF_EV_CLOCK_FIT:
		d = dev_of(t, ev->dev);
		if (d) {
			d->fit_seen = true;
			d->fit_err_ns = ev->fit.err_ns;
			d->fit_samples = ev->fit.samples;
			d->fit_segments = ev->fit.segments;
			d->fit_ns_per_tick = ev->fit.ns_per_tick;
		}
		break;
	case NPUPROF_EV_SUMMARY:
		t->have_summary = true;
		t->summary = ev->summary;
		/*
		 * The session's own counts: a loss whose LOST record never
		 * reached the ring still shows
		 */
		t->lost[NPU_TRACE_LOST_RING_FULL] = max_u64(t->lost[NPU_TRACE_LOST_RING_FULL],
							  ev->summary.lost_ring);
		t->lost[NPU_TRACE_LOST_DEVICE] = max_u64(t->lost[NPU_TRACE_LOST_DEVICE],
						       ev->summary.lost_device);
		t->lost[NPU_TRACE_LOST_HOST] = max_u64(t->lost[NPU_TRACE_LOST_HOST],
						     ev->summary.lost_host);
		t->spans_lost = max_u64(t->spans_lost, ev->summary.spans_lost);
		break;
	default:
		break;
	}
}

uint64_t npc_totals_lost(const struct npc_totals *t)
{
	return t->lost[0] + t->lost[1] + t->lost[2] + t->lost[3];
}

bool npc_totals_fit_err(const struct npc_totals *t, uint64_t *err_ns)
{
	bool seen = false;
	uint32_t i;

	*err_ns = 0;
	for (i = 0; i < t->ndev; i++) {
		if (!t->dev[i].fit_seen)
			continue;
		seen = true;
		if (t->dev[i].fit_err_ns > *err_ns)
			*err_ns = t->dev[i].fit_err_ns;
	}
	return seen;
}
