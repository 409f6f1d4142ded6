// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump.c - `npuprof dump`: every host span and ring record of a trace, one
 * line each, in time order with device times mapped to host time, as
 * `perf script` prints a perf.data file; the metadata first and the totals
 * last. --raw prints every item in file order with its raw fields.
 *
 * Events in a trace are not sorted (spans are written when they end, ring
 * records when the reader drains them), so the dump reorders them in the
 * analysis library's bounded reorder buffer (npf_reorder_*, reorder.c,
 * which the merged timeline and the breakdown use too): a priority queue
 * keyed by (time, rank, longer span first, file order) that prints its
 * earliest event once it holds more than --max-buffered events or once
 * that event is more than --window older than the newest event read.
 * Memory is bounded by --max-buffered, whatever the trace's length.
 *
 * Single-threaded; the reorder buffer belongs to one dump run.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npu_cli.h"
#include "reorder.h"

#define DEFAULT_MAX_BUFFERED	65536u
#define DEFAULT_WINDOW_MS	2000u

static const char dump_help[] =
"NAME\n"
"    npuprof dump - print every event of a trace file, in time order\n"
"\n"
"SYNOPSIS\n"
"    npuprof dump [--raw] [--max-buffered N] [--window MS] [[-i] FILE]\n"
"\n"
"DESCRIPTION\n"
"    Prints the trace FILE (default ./npuprof.data) as perf script prints a\n"
"    perf.data file: first its metadata as \"#\" lines (process, command\n"
"    line, kernel, devices), then one line per host span and device record,\n"
"    in time order, then the totals as \"#\" lines. Each event line starts\n"
"    with its CLOCK_MONOTONIC time in seconds and where it happened:\n"
"\n"
"    12345.678901234 [cpu-span] pid 812 tid 812 Quantize op 0 dur 12.345 us\n"
"        trace 6a1f...e0 span 1a parent 19\n"
"        A host span of libnpu or of the program: its kind (or label), the\n"
"        CPU operator index, the job and device of a submit span, its\n"
"        duration, its trace (one per inference), its id and its parent's.\n"
"    12345.679012345 [npu0 pe1] EXEC job 17 pid 812 tid 812 status OK\n"
"        run 1.234 ms iowait 321.000 us total 1.555 ms (+-3.200 us)\n"
"        host 2.100 ms ops 31 macs 568740000 dma 4239360 B\n"
"        A job's execution: time spent computing (Run) and waiting for DMA\n"
"        (IoWait) on the PE, their sum (Total, exactly Run + IoWait: the\n"
"        device's ticks, mapped to host time), the error bound of the\n"
"        mapping, and the host's submit-to-completion time. Without device\n"
"        times (level 0) only the host part is shown.\n"
"    12345.679112345 [npu0 pe1] OP job 17 op 3 CONV2D dur 120.500 us\n"
"        iowait 20.000 us macs 10838016 dma 73728 B\n"
"        One operator of an execution (level 2); the opcode's number\n"
"        when its name is unknown.\n"
"    12345.679200000 [npu0] CLOCK tick 123456789 host +812 ns samples 8\n"
"        A device clock sample: the tick was latched within the printed\n"
"        host window.\n"
"    12345.680000000 [npu0] LOST 12 records: ring-full\n"
"    12345.680000000 [cpu-span] LOST 3 spans tid 815\n"
"    12345.600000000 [session] START\n"
"\n"
"    Durations are signed: a negative one is printed as such, never\n"
"    wrapped. A line of an EXEC whose end - start ticks differ from Run +\n"
"    IoWait ticks (a device bug) says so.\n"
"\n"
"    Time order with bounded memory: events are held in a reorder buffer\n"
"    and the earliest is printed once more than --max-buffered events are\n"
"    held, or once it is more than --window older than the newest event\n"
"    read. An event that arrives later than that (written more than the\n"
"    window after it happened) is printed out of order; the totals count\n"
"    such events.\n"
"\n"
"    A truncated file (the profiled program was killed) is dumped up to its\n"
"    last complete chunk, with a warning.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The trace file, as the FILE operand. Default ./npuprof.data.\n"
"    --raw\n"
"        Every item (strings and thread names included) in file order, no\n"
"        reordering, with its file offset and every field as stored: ticks\n"
"        as ticks, ids and flags in hex, plus the mapped times.\n"
"    --max-buffered N\n"
"        Most events the reorder buffer holds, 1 to 16777216. Default 65536\n"
"        (about 10 MiB).\n"
"    --window MS\n"
"        Reorder window in milliseconds, 0 to 3600000. Default 2000.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"EXIT STATUS\n"
"    0   FILE was dumped (a truncated FILE, or one with damaged\n"
"        chunks, which are skipped, too, with a warning).\n"
"    1   FILE cannot be read, is not a trace, or is corrupt (what came\n"
"        before the corruption is printed), or writing the output failed.\n"
"    2   A usage error.\n"
"\n"
"EXAMPLES\n"
"    npuprof dump | less\n"
"    npuprof dump mnist.npuprof | grep EXEC\n"
"    npuprof dump --raw -i t.npuprof | head\n";

struct dump_opts {
	const char *input;
	bool raw;
	uint64_t max_buffered;
	int64_t window_ns;
};

struct dump {
	const struct dump_opts *o;
	struct npc_totals t;
	struct npf_reorder *ro;
	bool have_printed;
	int64_t last_printed;
	uint64_t late;
};

/* ---- event lines ---- */

static const char *dev_name(const struct dump *d, uint32_t dev)
{
	const struct npc_dev *nd = npc_totals_dev(&d->t, dev);

	return nd ? nd->name : "dev?";
}

static void print_span(const struct npuprof_event *ev)
{
	const struct npuprof_span_rec *s = ev->span;
	char b[NPC_FMT_LEN];

	printf(" [cpu-span] pid %d tid %d ", s->pid, s->tid);
	if (s->kind == NPUPROF_SPAN_LABEL)
		printf("label \"%s\"", ev->label ? ev->label : "");
	else
		fputs(npuprof_span_kind_name(s->kind), stdout);
	if (s->flags & NPUPROF_SPAN_F_OP)
		printf(" op %u", s->op_index);
	if (s->flags & NPUPROF_SPAN_F_JOB)
		printf(" job %" PRIu64 " npu%u", s->job_id, s->minor);
	printf(" dur %s trace %016" PRIx64 "%016" PRIx64 " span %" PRIx64
	       " parent %" PRIx64 "%s\n",
	       npc_fmt_dur(b, (int64_t)s->end_ns - (int64_t)s->start_ns),
	       s->trace_id[0], s->trace_id[1], s->span_id, s->parent_id,
	       s->flags & NPUPROF_SPAN_F_ERROR ? " ERROR" : "");
}

/*
 * Duration in ns of device ticks [@t0, @t1], and ns per tick: from the
 * mapped times when the event has them, else the nominal clock.
 */
static int64_t dev_ns(const struct dump *d, const struct npuprof_event *ev,
		      uint64_t t0, uint64_t t1, double *scale)
{
	const struct npc_dev *nd = npc_totals_dev(&d->t, ev->dev);
	int64_t ticks = (int64_t)t1 - (int64_t)t0;

	*scale = nd && nd->clock_hz ? 1e9 / (double)nd->clock_hz : 1.0;
	if (ev->start.valid && ev->end.valid) {
		int64_t ns = ev->end.ns - ev->start.ns;

		if (ticks)
			*scale = (double)ns / (double)ticks;
		return ns;
	}
	return llround((double)ticks * *scale);
}

static const char *status_str(char *buf, uint32_t status)
{
	const char *n = npc_job_status_name(status);

	if (n)
		return n;
	snprintf(buf, NPC_FMT_LEN, "%u", status);
	return buf;
}

static void print_exec(const struct dump *d, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_exec *x = ev->rec;
	char b1[NPC_FMT_LEN], b2[NPC_FMT_LEN], b3[NPC_FMT_LEN], b4[NPC_FMT_LEN];
	int64_t host = (int64_t)x->complete_ns - (int64_t)x->submit_ns;
	int64_t ticks, run, iowait, total;
	bool conserved;
	double scale;

	if (!(x->flags & NPU_TRACE_EXEC_F_DEVICE)) {
		printf(" [%s] EXEC job %" PRIu64 " pid %d tid %d status %s host %s (no device times)\n",
		       dev_name(d, ev->dev), (uint64_t)x->job_id, x->pid, x->tid,
		       status_str(b1, x->status), npc_fmt_dur(b2, host));
		return;
	}
	/* signed throughout: a bad record prints negative, never wraps */
	ticks = (int64_t)x->end_tick - (int64_t)x->start_tick;
	conserved = ticks == (int64_t)x->run_ticks + (int64_t)x->iowait_ticks;
	total = dev_ns(d, ev, x->start_tick, x->end_tick, &scale);
	if (conserved && ticks) {
		/* Total == Run + IoWait exactly: IoWait is the remainder */
		run = llround((double)total * (double)x->run_ticks / (double)ticks);
		iowait = total - run;
	} else {
		run = llround((double)(int64_t)x->run_ticks * scale);
		iowait = llround((double)(int64_t)x->iowait_ticks * scale);
		if (!conserved)
			total = run + iowait;
	}
	printf(" [%s pe%u] EXEC job %" PRIu64 " pid %d tid %d status %s run %s iowait %s total %s",
	       dev_name(d, ev->dev), x->pe, (uint64_t)x->job_id, x->pid, x->tid,
	       status_str(b1, x->status), npc_fmt_dur(b2, run),
	       npc_fmt_dur(b3, iowait), npc_fmt_dur(b4, total));
	if (ev->start.valid)
		printf(" (+-%s)", npc_fmt_dur(b1, (int64_t)(ev->start.err_ns > ev->end.err_ns ?
							   ev->start.err_ns : ev->end.err_ns)));
	else
		fputs(" (unmapped: nominal clock)", stdout);
	printf(" host %s ops %u macs %" PRIu64 " dma %" PRIu64 " B",
	       npc_fmt_dur(b1, host), x->n_ops, (uint64_t)x->macs,
	       (uint64_t)x->dma_bytes);
	if (x->dev_status)
		printf(" dev_status %u", x->dev_status);
	if (!conserved)
		printf(" [end-start %" PRId64 " ticks != run %" PRIu64 " + iowait %" PRIu64 " ticks]",
		       ticks, (uint64_t)x->run_ticks, (uint64_t)x->iowait_ticks);
	putchar('\n');
}

static void print_op(const struct dump *d, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_op *op = ev->rec;
	const char *name = npc_opcode_name(op->opcode);
	char b1[NPC_FMT_LEN], b2[NPC_FMT_LEN];
	double scale;
	int64_t dur = dev_ns(d, ev, op->start_tick, op->end_tick, &scale);

	printf(" [%s pe%u] OP job %" PRIu64 " op %u ", dev_name(d, ev->dev),
	       op->pe, (uint64_t)op->job_id, op->op_index);
	if (name)
		fputs(name, stdout);
	else
		printf("opcode %u", op->opcode);
	printf(" dur %s iowait %s macs %" PRIu64 " dma %" PRIu64 " B\n",
	       npc_fmt_dur(b1, dur),
	       npc_fmt_dur(b2, llround((double)(int64_t)op->iowait_ticks * scale)),
	       (uint64_t)op->macs, (uint64_t)op->dma_bytes);
}

static void print_record(const struct dump *d, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_hdr *h = ev->rec;
	char b[NPC_FMT_LEN];

	switch (h->type) {
	case NPU_TRACE_REC_EXEC:
		print_exec(d, ev);
		return;
	case NPU_TRACE_REC_OP:
		print_op(d, ev);
		return;
	case NPU_TRACE_REC_CLOCK: {
		const struct npu_trace_rec_clock *c = ev->rec;

		printf(" [%s] CLOCK tick %" PRIu64 " host +%s samples %u\n",
		       dev_name(d, ev->dev), (uint64_t)c->device_tick,
		       npc_fmt_dur(b, (int64_t)c->host_after_ns - (int64_t)c->host_before_ns),
		       c->samples);
		return;
	}
	case NPU_TRACE_REC_LOST: {
		const struct npu_trace_rec_lost *l = ev->rec;

		printf(" [%s] LOST %" PRIu64 " records: %s\n", dev_name(d, ev->dev),
		       (uint64_t)l->count, npc_lost_reason_name(l->reason));
		return;
	}
	default:
		printf(" [%s] REC type %u size %u seq %u\n", dev_name(d, ev->dev),
		       h->type, h->size, h->seq);
		return;
	}
}

static void print_event(struct dump *d, const struct npuprof_event *ev,
			int64_t key)
{
	char b[NPC_FMT_LEN];

	if (d->have_printed && key < d->last_printed)
		d->late++;
	else
		d->last_printed = key;
	d->have_printed = true;
	printf("%18s", npc_fmt_time(b, key));
	switch (ev->type) {
	case NPUPROF_EV_SPAN:
		print_span(ev);
		break;
	case NPUPROF_EV_RECORD:
		print_record(d, ev);
		break;
	case NPUPROF_EV_SESSION:
		printf(" [session] %s\n", npc_session_op_name(ev->session_op));
		break;
	case NPUPROF_EV_HOST_LOST:
		printf(" [cpu-span] LOST %" PRIu64 " spans tid %" PRIu64 "\n",
		       ev->count, ev->id);
		break;
	default:
		printf(" [?] event type %u\n", ev->type);
		break;
	}
}

/* ---- header and totals ---- */

static void print_device(const struct npuprof_event *ev)
{
	const struct npu_info *i = ev->info;

	printf("# device %u: %s", ev->dev, ev->key ? ev->key : "?");
	if (i && ev->info_size >= offsetof(struct npu_info, minor) + sizeof(i->minor))
		printf(": hw %u.%u, %u PEs, clock %" PRIu64 " Hz, trace levels 0x%x, caps 0x%x",
		       i->hw_version >> 16, i->hw_version & 0xffff, i->pe_count,
		       (uint64_t)i->clock_hz, i->trace_levels, i->caps);
	putchar('\n');
}

static void print_totals(const struct dump *d, bool truncated,
			 const struct npuprof_damage *dmg)
{
	const struct npc_totals *t = &d->t;
	char b1[NPC_FMT_LEN], b2[NPC_FMT_LEN], items[64];
	uint32_t i;

	printf("# totals: %" PRIu64 " events: %" PRIu64 " spans (%" PRIu64
	       " labelled records), %" PRIu64 " executions (%" PRIu64
	       " with device times), %" PRIu64 " operators, %" PRIu64
	       " clock samples\n", t->events, t->spans, t->labels, t->execs,
	       t->execs_device, t->ops, t->clocks);
	printf("# lost: %" PRIu64 " records (ring-full %" PRIu64 ", device %" PRIu64
	       ", host %" PRIu64 "), %" PRIu64 " spans; %" PRIu64
	       " records missing without a LOST record\n", npc_totals_lost(t),
	       t->lost[NPU_TRACE_LOST_RING_FULL], t->lost[NPU_TRACE_LOST_DEVICE],
	       t->lost[NPU_TRACE_LOST_HOST], t->spans_lost, t->seq_gaps);
	for (i = 0; i < t->ndev; i++) {
		const struct npc_dev *nd = &t->dev[i];

		if (nd->fit_seen)
			printf("# clock fit %s: %.9f ns/tick, %u samples, %u segments, +-%s\n",
			       nd->name, nd->fit_ns_per_tick, nd->fit_samples,
			       nd->fit_segments, npc_fmt_dur(b1, (int64_t)nd->fit_err_ns));
		else
			printf("# clock fit %s: none\n", nd->name);
	}
	if (t->have_summary)
		printf("# causality violations: %" PRIu64 "\n", t->summary.violations);
	else
		printf("# causality violations: not checked (no trailer)\n");
	printf("# sessions: start %" PRIu64 ", pause %" PRIu64 ", resume %" PRIu64
	       ", stop %" PRIu64 "\n", t->sessions[NPUPROF_SESSION_START],
	       t->sessions[NPUPROF_SESSION_PAUSE], t->sessions[NPUPROF_SESSION_RESUME],
	       t->sessions[NPUPROF_SESSION_STOP]);
	if (!d->o->raw)
		printf("# reorder buffer: at most %zu events held, %" PRIu64
		       " printed out of time order (window %s, %" PRIu64 " events)\n",
		       npf_reorder_max_held(d->ro), d->late, npc_fmt_dur(b2, d->o->window_ns),
		       d->o->max_buffered);
	if (dmg->stretches)
		printf("# damaged: %" PRIu64 " chunk%s skipped (%" PRIu64
		       " bytes, %s) in %" PRIu64 " place%s, the first at offset %"
		       PRIu64 "\n", dmg->chunks, dmg->chunks == 1 ? "" : "s",
		       dmg->bytes,
		       npc_fmt_damage_items(items, sizeof(items), dmg),
		       dmg->stretches, dmg->stretches == 1 ? "" : "s",
		       dmg->first_offset);
	if (truncated)
		printf("# truncated: the file ends before its trailer\n");
}

/* ---- the reorder buffer (the library's, timeline.c) ---- */

static int print_held(void *ctx, const struct npuprof_event *ev, int64_t key)
{
	print_event(ctx, ev, key);
	return 0;
}

static int hold(struct dump *d, const struct npuprof_event *ev)
{
	return npf_reorder_push(d->ro, ev, print_held, d);
}

static int dump_event(struct dump *d, const struct npuprof_event *ev)
{
	switch (ev->type) {
	case NPUPROF_EV_META:
		printf("# %s: %s\n", ev->key ? ev->key : "", ev->value ? ev->value : "");
		return 0;
	case NPUPROF_EV_DEVICE:
		print_device(ev);
		return 0;
	case NPUPROF_EV_SPAN:
		if (!ev->span)
			return 0;
		return hold(d, ev);
	case NPUPROF_EV_RECORD:
		if (!ev->rec)
			return 0;
		return hold(d, ev);
	case NPUPROF_EV_SESSION:
	case NPUPROF_EV_HOST_LOST:
		return hold(d, ev);
	default:
		/* strings, thread names, fits and the summary: in the totals */
		return 0;
	}
}

/* ---- --raw ---- */

static void raw_record(const struct npuprof_event *ev)
{
	const struct npu_trace_rec_hdr *h = ev->rec;

	printf(" dev=%u type=%u size=%u seq=%u", ev->dev, h->type, h->size, h->seq);
	if (h->type == NPU_TRACE_REC_EXEC) {
		const struct npu_trace_rec_exec *x = ev->rec;

		printf(" EXEC flags=0x%x status=%u pid=%d tid=%d job_id=%" PRIu64
		       " submit_ns=%" PRIu64 " complete_ns=%" PRIu64 " pe=%u dev_status=%u exec_index=%u n_ops=%u dev_seq=%u start_tick=%" PRIu64
		       " end_tick=%" PRIu64 " run_ticks=%" PRIu64 " iowait_ticks=%" PRIu64
		       " dma_bytes=%" PRIu64 " macs=%" PRIu64, x->flags, x->status,
		       x->pid, x->tid, (uint64_t)x->job_id, (uint64_t)x->submit_ns,
		       (uint64_t)x->complete_ns, x->pe, x->dev_status, x->exec_index,
		       x->n_ops, x->dev_seq, (uint64_t)x->start_tick,
		       (uint64_t)x->end_tick, (uint64_t)x->run_ticks,
		       (uint64_t)x->iowait_ticks, (uint64_t)x->dma_bytes,
		       (uint64_t)x->macs);
	} else if (h->type == NPU_TRACE_REC_OP) {
		const struct npu_trace_rec_op *o = ev->rec;

		printf(" OP pid=%d tid=%d job_id=%" PRIu64 " pe=%u opcode=%u op_index=%u exec_index=%u dev_seq=%u start_tick=%" PRIu64
		       " end_tick=%" PRIu64 " iowait_ticks=%" PRIu64 " dma_bytes=%" PRIu64
		       " macs=%" PRIu64, o->pid, o->tid, (uint64_t)o->job_id, o->pe,
		       o->opcode, o->op_index, o->exec_index, o->dev_seq,
		       (uint64_t)o->start_tick, (uint64_t)o->end_tick,
		       (uint64_t)o->iowait_ticks, (uint64_t)o->dma_bytes,
		       (uint64_t)o->macs);
	} else if (h->type == NPU_TRACE_REC_CLOCK) {
		const struct npu_trace_rec_clock *c = ev->rec;

		printf(" CLOCK samples=%u host_before_ns=%" PRIu64 " device_tick=%" PRIu64
		       " host_after_ns=%" PRIu64 " width_ns=%" PRIu64 " clock_hz=%" PRIu64,
		       c->samples, (uint64_t)c->host_before_ns, (uint64_t)c->device_tick,
		       (uint64_t)c->host_after_ns, (uint64_t)c->width_ns,
		       (uint64_t)c->clock_hz);
	} else if (h->type == NPU_TRACE_REC_LOST) {
		const struct npu_trace_rec_lost *l = ev->rec;

		printf(" LOST reason=%u count=%" PRIu64, l->reason, (uint64_t)l->count);
	}
	if (ev->start.valid)
		printf(" mapped_start=%" PRId64 " mapped_end=%" PRId64 " err_ns=%" PRIu64,
		       ev->start.ns, ev->end.ns, ev->start.err_ns);
}

static void raw_event(const struct npuprof_event *ev)
{
	static const char *const names[] = {
		"?", "META", "DEVICE", "SPAN", "RECORD", "SESSION", "HOST_LOST",
		"CLOCK_FIT", "SUMMARY", "STRING", "THREAD",
	};
	const struct npuprof_span_rec *s = ev->span;

	printf("@0x%08" PRIx64 " %s time_ns=%" PRId64, ev->offset,
	       ev->type < sizeof(names) / sizeof(names[0]) ? names[ev->type] : "?",
	       ev->time_ns);
	switch (ev->type) {
	case NPUPROF_EV_META:
		printf(" %s=%s", ev->key ? ev->key : "", ev->value ? ev->value : "");
		break;
	case NPUPROF_EV_DEVICE:
		printf(" dev=%u path=%s info_size=%u", ev->dev, ev->key ? ev->key : "",
		       ev->info_size);
		break;
	case NPUPROF_EV_SPAN:
		if (!s)
			break;
		printf(" kind=%u flags=0x%x name_id=%u pid=%d tid=%d start_ns=%" PRIu64
		       " end_ns=%" PRIu64 " span_id=0x%" PRIx64 " parent_id=0x%" PRIx64
		       " trace_id=%016" PRIx64 "%016" PRIx64 " job_id=%" PRIu64
		       " op_index=%u minor=%u", s->kind, s->flags, s->name_id, s->pid,
		       s->tid, s->start_ns, s->end_ns, s->span_id, s->parent_id,
		       s->trace_id[0], s->trace_id[1], s->job_id, s->op_index, s->minor);
		if (ev->label)
			printf(" label=\"%s\"", ev->label);
		break;
	case NPUPROF_EV_RECORD:
		if (ev->rec)
			raw_record(ev);
		break;
	case NPUPROF_EV_SESSION:
		printf(" op=%u", ev->session_op);
		break;
	case NPUPROF_EV_HOST_LOST:
		printf(" tid=%" PRIu64 " count=%" PRIu64, ev->id, ev->count);
		break;
	case NPUPROF_EV_CLOCK_FIT:
		printf(" dev=%u ns_per_tick=%.12g offset_ns=%.12g err_ns=%" PRIu64
		       " samples=%u segments=%u", ev->dev, ev->fit.ns_per_tick,
		       ev->fit.offset_ns, ev->fit.err_ns, ev->fit.samples,
		       ev->fit.segments);
		break;
	case NPUPROF_EV_SUMMARY:
		printf(" violations=%" PRIu64, ev->count);
		break;
	case NPUPROF_EV_STRING:
		printf(" id=%" PRIu64 " text=\"%s\"", ev->id, ev->key ? ev->key : "");
		break;
	case NPUPROF_EV_THREAD:
		printf(" tid=%" PRIu64 " name=\"%s\"", ev->id, ev->key ? ev->key : "");
		break;
	default:
		break;
	}
	putchar('\n');
}

static int dump_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "raw", no_argument, NULL, 'r' },
		{ "max-buffered", required_argument, NULL, 'N' },
		{ "window", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_opts o = { .input = NULL, .max_buffered = DEFAULT_MAX_BUFFERED,
			       .window_ns = DEFAULT_WINDOW_MS * 1000000ll };
	const char *prog = NPC_PROG " dump";
	struct npuprof_trace *tr = NULL;
	struct npuprof_event ev;
	struct dump d = { .o = &o };
	struct npuprof_damage dmg;
	int c, ret, status = 0;
	uint64_t v;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'r':
			o.raw = true;
			break;
		case 'N':
			if (npu_cli_parse_u64(optarg, 1, 1u << 24, &v))
				return npu_cli_usage_error(prog, "--max-buffered: invalid value '%s': must be 1..16777216",
							   optarg);
			o.max_buffered = v;
			break;
		case 'W':
			if (npu_cli_parse_u64(optarg, 0, 3600000, &v))
				return npu_cli_usage_error(prog, "--window: invalid value '%s': must be 0..3600000 (ms)",
							   optarg);
			o.window_ns = (int64_t)v * 1000000;
			break;
		case 'h':
			return npc_help(&npc_cmd_dump);
		default:
			return npc_bad_option(prog, c, argv);
		}
	}
	ret = npc_file_operand(prog, argc, argv, &o.input);
	if (ret)
		return ret;
	tr = npc_open_trace(o.input);
	if (!tr)
		return 1;
	if (npf_reorder_new(o.max_buffered, o.window_ns, &d.ro)) {
		npc_err("out of memory");
		npuprof_trace_close(tr);
		return 1;
	}
	npc_totals_init(&d.t);
	printf("# npuprof dump of %s\n", o.input);
	while ((ret = npuprof_trace_next(tr, &ev)) > 0) {
		npc_totals_add(&d.t, &ev);
		if (o.raw) {
			raw_event(&ev);
			continue;
		}
		ret = dump_event(&d, &ev);
		if (ret)
			break;
	}
	npf_reorder_drain(d.ro, print_held, &d);
	if (ret < 0) {
		const char *m = npuprof_trace_error(tr);

		npc_err("%s", ret == -ENOMEM ? "out of memory" :
			m && *m ? m : strerror(-ret));
		status = 1;
	}
	npuprof_trace_damage(tr, &dmg, NULL);
	print_totals(&d, !ret && npuprof_trace_truncated(tr), &dmg);
	npc_warn_damage(tr, o.input);
	if (!ret && npuprof_trace_truncated(tr))
		npc_warn("%s is truncated (its writer was killed?): dumped up to its last complete chunk",
			 o.input);
	npuprof_trace_close(tr);
	npf_reorder_free(d.ro);
	if (fflush(stdout) || ferror(stdout)) {
		npc_err("writing the output: %s", strerror(errno));
		status = 1;
	}
	return status;
}

const struct npc_cmd npc_cmd_dump = {
	.name = "dump",
	.summary = "print every event of a trace file in time order",
	.help = dump_help,
	.run = dump_main,
};
