// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * npubpf.c - the loader of npu_probes.bpf.c: attaches its programs and
 * turns the events of its ring buffer into host spans (npubpf.h).
 *
 * USDT. libnpu's NAME_end probes (and libnpuprof's region_end) pass a
 * whole span (lib/npuprof/npuprof_usdt.h); the span is passed on with the
 * event's pid and tid: it is the span the library records itself.
 *
 * Uprobes, the fallback for builds without USDT notes. An entry pushes a
 * frame on its thread's stack; the matching return pops it and ends the
 * span. Span and trace ids are made here, per process, as the library
 * makes them (a random trace prefix, the root span's id). An inference
 * is keyed by its struct npu_inference pointer: it starts when
 * npu_runner_acquire() returns it, or at the first call that uses it
 * (npu_runner_run() acquires internally), and ends when
 * npu_inference_release() returns. A submit span gets its job id from
 * the npu_job_submit tracepoint, which fires in the submitting thread
 * inside the call; a wait span gets the job of its inference's last
 * submit. A CPU operator is a span only inside set_input or get_output,
 * as in the library, with their index as operator index.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/types.h>

#include "npu_probes.h"
#include "npu_probes.skel.h"
#include "npubpf.h"

_Static_assert(NPB_KIND_WAIT == NPUPROF_SPAN_WAIT, "npu_probes.h's wait kind");

#define NPB_MAX_LINKS	256
#define NPB_MAX_FRAMES	16

struct npb_frame {
	uint32_t fn;
	bool span;			/* @rec is a span to emit */
	uint64_t obj;			/* struct npu_inference * */
	uint32_t idx;			/* input or output index */
	struct npuprof_span_rec rec;
};

struct npb_thread {
	int32_t pid;
	int32_t tid;
	unsigned int depth;
	struct npb_frame frames[NPB_MAX_FRAMES];
	struct npb_thread *next;
};

struct npb_proc {
	int32_t pid;
	uint64_t trace_hi;
	uint64_t next_id;
	struct npb_proc *next;
};

struct npb_inf {
	int32_t pid;
	uint64_t obj;
	bool has_job;
	struct npuprof_span_rec rec;	/* the inference span */
	struct npb_inf *next;
};

struct npubpf {
	struct npu_probes *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[NPB_MAX_LINKS];
	unsigned int nlinks;
	struct npubpf_opts o;
	struct npubpf_stats st;
	struct npb_thread *threads;
	struct npb_proc *procs;
	struct npb_inf *infs;
	int err;			/* first callback error */
	bool detached;
};

/* ---- diagnostics ---- */

static __thread struct npubpf *npb_cur;		/* for libbpf's messages */

static void npb_log(const struct npubpf *b, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void npb_log(const struct npubpf *b, int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (b && b->o.log)
		b->o.log(b->o.log_ctx, level, msg);
	else if (level <= NPUPROF_LOG_WARN)
		fprintf(stderr, "npubpf: %s\n", msg);
}

static int npb_libbpf_print(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	struct npubpf *b = npb_cur;
	char msg[1024];
	size_t n;

	if (!b || !b->o.verbose || level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	if (n && msg[n - 1] == '\n')
		msg[n - 1] = '\0';
	npb_log(b, NPUPROF_LOG_DEBUG, "libbpf: %s", msg);
	return 0;
}

/* ---- processes, threads, inferences (uprobe fallback) ---- */

static struct npb_proc *npb_proc(struct npubpf *b, int32_t pid)
{
	struct npb_proc *p;

	for (p = b->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (getrandom(&p->trace_hi, sizeof(p->trace_hi), GRND_NONBLOCK) !=
	    sizeof(p->trace_hi))
		p->trace_hi = ((uint64_t)pid << 32) ^ (uintptr_t)p;
	/* span ids of their own range: never 0, unique in the process */
	p->next_id = (1ull << 63) + 1;
	p->next = b->procs;
	b->procs = p;
	return p;
}

static int npb_thread_name(struct npubpf *b, int32_t pid, int32_t tid)
{
	char path[64], name[32] = "";
	ssize_t n;
	int fd;

	if (!b->o.thread)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* gone already: the spans stay unnamed */
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	name[n] = '\0';
	if (name[n - 1] == '\n')
		name[n - 1] = '\0';
	return b->o.thread(b->o.ctx, pid, tid, name);
}

static struct npb_thread *npb_thread(struct npubpf *b, int32_t pid,
				     int32_t tid)
{
	struct npb_thread *t;

	for (t = b->threads; t; t = t->next)
		if (t->tid == tid && t->pid == pid)
			return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->next = b->threads;
	b->threads = t;
	if (!b->err)
		b->err = npb_thread_name(b, pid, tid);
	return t;
}

static struct npb_inf *npb_inf_find(struct npubpf *b, int32_t pid,
				    uint64_t obj)
{
	struct npb_inf *i;

	for (i = b->infs; i; i = i->next)
		if (i->obj == obj && i->pid == pid)
			return i;
	return NULL;
}

static void npb_inf_drop(struct npubpf *b, struct npb_inf *inf)
{
	struct npb_inf **pp;

	for (pp = &b->infs; *pp; pp = &(*pp)->next)
		if (*pp == inf) {
			*pp = inf->next;
			free(inf);
			return;
		}
}

/* Fill the ids of @rec: a child of @parent, or a root of a new trace. */
static void npb_ids(struct npb_proc *p, struct npuprof_span_rec *rec,
		    const struct npuprof_span_rec *parent)
{
	rec->span_id = p->next_id++;
	if (parent) {
		rec->parent_id = parent->span_id;
		rec->trace_id[0] = parent->trace_id[0];
		rec->trace_id[1] = parent->trace_id[1];
	} else {
		rec->trace_id[0] = p->trace_hi;
		rec->trace_id[1] = rec->span_id;
	}
}

/* The innermost open run() of @t, or NULL. */
static const struct npuprof_span_rec *npb_run_of(const struct npb_thread *t)
{
	unsigned int i;

	for (i = t->depth; i-- > 0;)
		if (t->frames[i].fn == NPB_FN_RUN)
			return &t->frames[i].rec;
	return NULL;
}

static struct npb_inf *npb_inf_new(struct npubpf *b, struct npb_thread *t,
				   uint64_t obj, uint64_t ts)
{
	struct npb_proc *p = npb_proc(b, t->pid);
	struct npb_inf *inf;

	if (!p)
		return NULL;
	inf = npb_inf_find(b, t->pid, obj);
	if (inf)		/* a release we missed: start over */
		memset(&inf->rec, 0, sizeof(inf->rec));
	else {
		inf = calloc(1, sizeof(*inf));
		if (!inf)
			return NULL;
		inf->pid = t->pid;
		inf->obj = obj;
		inf->next = b->infs;
		b->infs = inf;
	}
	inf->has_job = false;
	inf->rec.kind = NPUPROF_SPAN_INFERENCE;
	inf->rec.pid = t->pid;
	inf->rec.tid = t->tid;
	inf->rec.start_ns = ts;
	npb_ids(p, &inf->rec, npb_run_of(t));
	return inf;
}

static struct npb_inf *npb_inf_get(struct npubpf *b, struct npb_thread *t,
				   uint64_t obj, uint64_t ts)
{
	struct npb_inf *inf = npb_inf_find(b, t->pid, obj);

	return inf ? inf : npb_inf_new(b, t, obj, ts);
}

static int npb_emit(struct npubpf *b, const struct npuprof_span_rec *rec,
		    const char *label)
{
	int ret;

	if (b->err)
		return b->err;
	ret = b->o.span(b->o.ctx, rec, label);
	if (ret) {
		b->err = ret;
		return ret;
	}
	b->st.spans++;
	if (label)
		b->st.labels++;
	return 0;
}

/* ---- events ---- */

static int npb_usdt_span(struct npubpf *b, const struct npb_event *e,
			 const char *label)
{
	struct npuprof_span_rec r;

	memset(&r, 0, sizeof(r));
	/* the arguments' order of lib/npuprof/npuprof_usdt.h */
	r.kind = (uint16_t)e->a[0];
	r.span_id = e->a[1];
	r.job_id = e->a[2];
	r.op_index = label ? 0 : (uint32_t)e->a[3];	/* label: a pointer */
	r.start_ns = e->a[4];
	r.end_ns = e->a[5];
	r.flags = (uint16_t)e->a[6];
	r.parent_id = e->a[7];
	r.trace_id[0] = e->a[8];
	r.trace_id[1] = e->a[9];
	r.minor = (uint32_t)e->a[10];
	r.pid = e->pid;
	r.tid = e->tid;
	if (!r.kind || r.kind > NPUPROF_SPAN_KIND_MAX || !r.span_id ||
	    r.end_ns < r.start_ns) {
		if (!b->st.bad_usdt++)
			npb_log(b, NPUPROF_LOG_WARN,
				"a USDT probe passed a span that is not one (kind %u span %" PRIu64 " start %" PRIu64 " end %" PRIu64 "): a libnpu whose probes differ from lib/npuprof/npuprof_usdt.h? Try --uprobes",
				r.kind, r.span_id, r.start_ns, r.end_ns);
		return 0;
	}
	if (!npb_thread(b, e->pid, e->tid))
		return -ENOMEM;
	return npb_emit(b, &r, label);
}

static bool npb_is_io(uint32_t fn)
{
	return fn == NPB_FN_SET_INPUT || fn == NPB_FN_SET_INPUT_U8 ||
	       fn == NPB_FN_GET_OUTPUT || fn == NPB_FN_GET_OUTPUT_U8;
}

static const uint16_t npb_fn_kind[NPB_FN_MAX + 1] = {
	[NPB_FN_RUN] = NPUPROF_SPAN_RUN,
	[NPB_FN_SET_INPUT] = NPUPROF_SPAN_SET_INPUT,
	[NPB_FN_SET_INPUT_U8] = NPUPROF_SPAN_SET_INPUT,
	[NPB_FN_GET_OUTPUT] = NPUPROF_SPAN_GET_OUTPUT,
	[NPB_FN_GET_OUTPUT_U8] = NPUPROF_SPAN_GET_OUTPUT,
	[NPB_FN_SUBMIT] = NPUPROF_SPAN_SUBMIT,
	[NPB_FN_WAIT] = NPUPROF_SPAN_WAIT,
	[NPB_FN_QUANTIZE] = NPUPROF_SPAN_QUANTIZE,
	[NPB_FN_LOWER] = NPUPROF_SPAN_LOWER,
	[NPB_FN_UNLOWER] = NPUPROF_SPAN_UNLOWER,
	[NPB_FN_DEQUANTIZE] = NPUPROF_SPAN_DEQUANTIZE,
};

static int npb_entry(struct npubpf *b, const struct npb_event *e)
{
	struct npb_thread *t = npb_thread(b, e->pid, e->tid);
	struct npb_proc *p = npb_proc(b, e->pid);
	struct npb_frame *f, *up;
	struct npb_inf *inf = NULL;
	uint32_t fn = e->fn;

	if (!t || !p)
		return -ENOMEM;
	if (fn < 1 || fn > NPB_FN_MAX || t->depth == NPB_MAX_FRAMES) {
		b->st.unmatched++;
		return 0;
	}
	up = t->depth ? &t->frames[t->depth - 1] : NULL;
	f = &t->frames[t->depth++];
	memset(f, 0, sizeof(*f));
	f->fn = fn;
	f->obj = e->a[0];
	f->idx = (uint32_t)e->a[1];
	f->rec.kind = npb_fn_kind[fn];
	f->rec.pid = e->pid;
	f->rec.tid = e->tid;
	f->rec.start_ns = e->ts;
	switch (fn) {
	case NPB_FN_RUN:
		f->span = true;
		npb_ids(p, &f->rec, NULL);
		break;
	case NPB_FN_ACQUIRE:
	case NPB_FN_RELEASE:
		break;
	case NPB_FN_SET_INPUT:
	case NPB_FN_SET_INPUT_U8:
	case NPB_FN_GET_OUTPUT:
	case NPB_FN_GET_OUTPUT_U8:
	case NPB_FN_SUBMIT:
	case NPB_FN_WAIT:
		inf = npb_inf_get(b, t, f->obj, e->ts);
		if (!inf)
			return -ENOMEM;
		f->span = true;
		npb_ids(p, &f->rec, &inf->rec);
		if (fn == NPB_FN_WAIT && inf->has_job) {
			f->rec.flags |= NPUPROF_SPAN_F_JOB;
			f->rec.job_id = inf->rec.job_id;
			f->rec.minor = inf->rec.minor;
		}
		break;
	default:	/* the CPU operators */
		if (!up || !npb_is_io(up->fn) || !up->span)
			break;
		f->span = true;
		npb_ids(p, &f->rec, &up->rec);
		f->rec.flags |= NPUPROF_SPAN_F_OP;
		f->rec.op_index = up->idx;
		break;
	}
	return 0;
}

static int npb_ret(struct npubpf *b, const struct npb_event *e)
{
	struct npb_thread *t = npb_thread(b, e->pid, e->tid);
	int64_t ret = (int64_t)e->a[0];
	struct npb_frame *f;
	struct npb_inf *inf;
	unsigned int i;
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (i = t->depth; i-- > 0;)
		if (t->frames[i].fn == e->fn)
			break;
	if (i == (unsigned int)-1) {
		b->st.unmatched++;	/* entered before we attached */
		return 0;
	}
	b->st.unmatched += t->depth - i - 1;
	t->depth = i;
	f = &t->frames[i];
	switch (f->fn) {
	case NPB_FN_ACQUIRE:
		if ((int)ret == 0 && e->a[1] && !npb_inf_new(b, t, e->a[1], e->ts))
			return -ENOMEM;
		return 0;
	case NPB_FN_RELEASE:
		inf = npb_inf_find(b, t->pid, f->obj);
		if (!inf)
			return 0;
		inf->rec.end_ns = e->ts;
		inf->rec.job_id = 0;
		inf->rec.minor = 0;
		err = npb_emit(b, &inf->rec, NULL);
		npb_inf_drop(b, inf);
		return err;
	case NPB_FN_SUBMIT:
		if ((int)ret >= 0 && (f->rec.flags & NPUPROF_SPAN_F_JOB)) {
			inf = npb_inf_find(b, t->pid, f->obj);
			if (inf) {
				inf->has_job = true;
				inf->rec.job_id = f->rec.job_id;
				inf->rec.minor = f->rec.minor;
			}
		} else {
			f->rec.flags &= ~NPUPROF_SPAN_F_JOB;
			f->rec.job_id = 0;
			f->rec.minor = 0;
		}
		break;
	default:
		break;
	}
	if (!f->span)
		return 0;
	/* int functions: the return value is the low 32 bits of rax */
	if ((int)ret < 0)
		f->rec.flags |= NPUPROF_SPAN_F_ERROR;
	f->rec.end_ns = e->ts;
	return npb_emit(b, &f->rec, NULL);
}

/* npu_job_submit in the submitting thread: the job of its submit span */
static void npb_submit(struct npubpf *b, const struct npb_event *e)
{
	struct npb_thread *t;
	unsigned int i;

	b->st.submits++;
	if (b->st.source != NPUBPF_SRC_UPROBES)
		return;
	for (t = b->threads; t; t = t->next)
		if (t->tid == (int32_t)e->a[4] && t->pid == (int32_t)e->a[3])
			break;
	if (!t)
		return;
	for (i = t->depth; i-- > 0;)
		if (t->frames[i].fn == NPB_FN_SUBMIT) {
			t->frames[i].rec.flags |= NPUPROF_SPAN_F_JOB;
			t->frames[i].rec.job_id = e->a[1];
			t->frames[i].rec.minor = (uint32_t)e->a[0];
			return;
		}
}

static int npb_event(void *ctx, void *data, size_t size)
{
	struct npubpf *b = ctx;
	const struct npb_event *e = data;
	const struct npb_label_event *le = data;
	char label[NPB_LABEL_MAX];

	if (size < sizeof(*e))
		return 0;
	b->st.events++;
	switch (e->type) {
	case NPB_EV_USDT_SPAN:
		return npb_usdt_span(b, e, NULL);
	case NPB_EV_USDT_LABEL:
		if (size < sizeof(*le))
			return 0;
		memcpy(label, le->label, sizeof(label));
		label[sizeof(label) - 1] = '\0';
		return npb_usdt_span(b, e, label);
	case NPB_EV_UPROBE_ENTRY:
		return npb_entry(b, e);
	case NPB_EV_UPROBE_RET:
		return npb_ret(b, e);
	case NPB_EV_SUBMIT:
		npb_submit(b, e);
		return 0;
	case NPB_EV_COMPLETE:
		b->st.completes++;
		return 0;
	case NPB_EV_LOST:
		b->st.trace_lost += e->a[3];
		return 0;
	case NPB_EV_OFFCPU:
		b->st.offcpu_waits++;
		return 0;
	}
	return 0;
}

/* ---- attaching ---- */

static int npb_keep(struct npubpf *b, struct bpf_link *l)
{
	int ret = -errno;

	if (!l)
		return ret ? ret : -EINVAL;
	if (b->nlinks == NPB_MAX_LINKS) {
		bpf_link__destroy(l);
		return -E2BIG;
	}
	b->links[b->nlinks++] = l;
	b->st.links++;
	return 0;
}

static const struct {
	const char *provider;
	const char *name;
	uint64_t cookie;
} npb_usdt_probes[] = {
	{ "npu", "run_end", NPB_USDT_END },
	{ "npu", "inference_end", NPB_USDT_END },
	{ "npu", "set_input_end", NPB_USDT_END },
	{ "npu", "get_output_end", NPB_USDT_END },
	{ "npu", "cpuop_end", NPB_USDT_END },
	{ "npu", "submit_end", NPB_USDT_END },
	{ "npu", "wait_end", NPB_USDT_END },
	{ "npu", "wait_begin", NPB_USDT_WAIT_BEGIN },
	{ "npuprof", "region_end", NPB_USDT_RECORD_END },
};

#define NPB_NUSDT (sizeof(npb_usdt_probes) / sizeof(npb_usdt_probes[0]))

/* USDT probes of @path; the number attached (0: none found). */
static int npb_attach_usdt(struct npubpf *b, const char *path)
{
	LIBBPF_OPTS(bpf_usdt_opts, uo);
	struct bpf_link *l;
	unsigned int i;
	int n = 0, ret;

	for (i = 0; i < NPB_NUSDT; i++) {
		uo.usdt_cookie = npb_usdt_probes[i].cookie;
		l = bpf_program__attach_usdt(b->skel->progs.usdt_span,
					     b->o.pid ? b->o.pid : -1, path,
					     npb_usdt_probes[i].provider,
					     npb_usdt_probes[i].name, &uo);
		ret = npb_keep(b, l);
		if (ret == -E2BIG)
			return ret;
		if (!ret)
			n++;
		else
			npb_log(b, NPUPROF_LOG_DEBUG, "%s: no USDT probe %s:%s (%s)",
				path, npb_usdt_probes[i].provider,
				npb_usdt_probes[i].name, strerror(-ret));
	}
	return n;
}

static const char *const npb_fn_names[NPB_FN_MAX + 1] = {
	[NPB_FN_RUN] = "npu_runner_run",
	[NPB_FN_ACQUIRE] = "npu_runner_acquire",
	[NPB_FN_RELEASE] = "npu_inference_release",
	[NPB_FN_SET_INPUT] = "npu_inference_set_input",
	[NPB_FN_SET_INPUT_U8] = "npu_inference_set_input_u8",
	[NPB_FN_GET_OUTPUT] = "npu_inference_get_output",
	[NPB_FN_GET_OUTPUT_U8] = "npu_inference_get_output_u8",
	[NPB_FN_SUBMIT] = "npu_inference_submit",
	[NPB_FN_WAIT] = "npu_inference_wait",
	[NPB_FN_QUANTIZE] = "npu_quantize",
	[NPB_FN_LOWER] = "npu_lower",
	[NPB_FN_UNLOWER] = "npu_unlower",
	[NPB_FN_DEQUANTIZE] = "npu_dequantize",
};

/* Uprobes on libnpu's functions in @path; the number attached. */
static int npb_attach_uprobes(struct npubpf *b, const char *path)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_link *l;
	unsigned int fn;
	int n = 0, ret, r;

	for (fn = 1; fn <= NPB_FN_MAX; fn++) {
		for (r = 0; r < 2; r++) {
			uo.func_name = npb_fn_names[fn];
			uo.retprobe = r;
			uo.bpf_cookie = fn;
			l = bpf_program__attach_uprobe_opts(
				r ? b->skel->progs.up_ret :
				    b->skel->progs.up_entry,
				b->o.pid ? b->o.pid : -1, path, 0, &uo);
			ret = npb_keep(b, l);
			if (ret == -E2BIG)
				return ret;
			if (ret) {
				npb_log(b, NPUPROF_LOG_DEBUG, "%s: no uprobe on %s (%s)",
					path, npb_fn_names[fn], strerror(-ret));
				break;
			}
			n++;
		}
	}
	return n;
}

static int npb_attach_tp(struct npubpf *b)
{
	struct bpf_program *progs[] = {
		b->skel->progs.npu_job_submit,
		b->skel->progs.npu_job_complete,
		b->skel->progs.npu_trace_lost,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		ret = npb_keep(b, bpf_program__attach(progs[i]));
		if (ret) {
			npb_log(b, NPUPROF_LOG_ERROR,
				"cannot attach to the driver's tracepoint %s: %s%s",
				bpf_program__name(progs[i]), strerror(-ret),
				ret == -ENOENT ?
				" (is npu.ko loaded? lsmod | grep npu)" : "");
			return ret;
		}
	}
	return 0;
}

static bool npb_have_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

static int npb_load(struct npubpf *b)
{
	unsigned int kb = b->o.ringbuf_kb ? b->o.ringbuf_kb : 1024;
	int ret;

	b->skel = npu_probes__open();
	if (!b->skel) {
		ret = -errno;
		npb_log(b, NPUPROF_LOG_ERROR, "cannot open the BPF object: %s",
			strerror(-ret));
		return ret;
	}
	b->skel->rodata->filter_tgid = b->o.pid;
	if (kb & (kb - 1))
		return -EINVAL;
	bpf_map__set_max_entries(b->skel->maps.events, kb * 1024);
	if ((b->o.flags & NPUBPF_F_NO_OFFCPU) || !npb_have_btf()) {
		if (!(b->o.flags & NPUBPF_F_NO_OFFCPU))
			npb_log(b, NPUPROF_LOG_WARN,
				"the kernel has no BTF (/sys/kernel/btf/vmlinux: CONFIG_DEBUG_INFO_BTF=y is needed): no off-CPU times; spans are recorded");
		bpf_program__set_autoload(b->skel->progs.sched_switch, false);
	}
	ret = npu_probes__load(b->skel);
	if (ret) {
		if (ret == -EPERM || ret == -EACCES)
			npb_log(b, NPUPROF_LOG_ERROR,
				"cannot load the BPF programs: %s: run as root, or give npuprof CAP_BPF and CAP_PERFMON (setcap cap_bpf,cap_perfmon+ep), and check kernel.unprivileged_bpf_disabled",
				strerror(-ret));
		else
			npb_log(b, NPUPROF_LOG_ERROR,
				"cannot load the BPF programs: %s (run with -v for the verifier's log)",
				strerror(-ret));
	}
	return ret;
}

int npubpf_open(const struct npubpf_opts *opts, struct npubpf **bpf)
{
	struct npubpf *b;
	unsigned int i;
	int ret, n, total = 0;

	if (!opts || opts->sz < sizeof(*opts) || !opts->targets ||
	    !opts->targets[0] || !opts->span || !bpf)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->o = *opts;
	b->st.sz = sizeof(b->st);
	npb_cur = b;
	libbpf_set_print(npb_libbpf_print);
	ret = npb_load(b);
	if (ret)
		goto fail;
	ret = npb_attach_tp(b);
	if (ret)
		goto fail;
	if (bpf_program__autoload(b->skel->progs.sched_switch)) {
		ret = npb_keep(b, bpf_program__attach(b->skel->progs.sched_switch));
		if (ret)
			npb_log(b, NPUPROF_LOG_WARN,
				"cannot attach to sched_switch: %s: no off-CPU times",
				strerror(-ret));
	}
	for (i = 0; opts->targets[i]; i++) {
		n = 0;
		if (!(opts->flags & NPUBPF_F_UPROBES)) {
			n = npb_attach_usdt(b, opts->targets[i]);
			if (n < 0) {
				ret = n;
				goto fail;
			}
			if (n)
				b->st.source = NPUBPF_SRC_USDT;
			else
				npb_log(b, NPUPROF_LOG_INFO,
					"%s has no USDT notes of libnpu (readelf -n shows no stapsdt npu:*): a libnpu built without sys/sdt.h; using uprobes on its exported functions",
					opts->targets[i]);
		}
		if (!n && b->st.source != NPUBPF_SRC_USDT) {
			n = npb_attach_uprobes(b, opts->targets[i]);
			if (n < 0) {
				ret = n;
				goto fail;
			}
			if (n)
				b->st.source = NPUBPF_SRC_UPROBES;
		}
		if (!n)
			npb_log(b, NPUPROF_LOG_INFO,
				"%s holds neither libnpu's USDT probes nor its functions (is it libnpu.so or a program linked with libnpu.a, not stripped?)",
				opts->targets[i]);
		total += n;
	}
	if (!total) {
		npb_log(b, NPUPROF_LOG_ERROR,
			"no target holds libnpu's probes or functions: nothing to attach to");
		ret = -ENOENT;
		goto fail;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), npb_event,
				 b, NULL);
	if (!b->rb) {
		ret = -errno;
		npb_log(b, NPUPROF_LOG_ERROR, "cannot map the BPF ring buffer: %s",
			strerror(-ret));
		goto fail;
	}
	*bpf = b;
	return 0;
fail:
	npubpf_close(b);
	return ret;
}

int npubpf_fd(const struct npubpf *b)
{
	return ring_buffer__epoll_fd(b->rb);
}

int npubpf_poll(struct npubpf *b, int timeout_ms)
{
	int ret;

	/*
	 * The programs wake us only when the buffer is half full (see
	 * npu_probes.bpf.c): a poll that times out reads what is there.
	 */
	ret = ring_buffer__poll(b->rb, timeout_ms);
	if (ret >= 0)
		ret = ring_buffer__consume(b->rb);
	if (b->err)
		return b->err;
	return ret;
}

static void npb_counters(struct npubpf *b)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;
	uint32_t k;
	int c;

	if (ncpu <= 0 || !b->skel)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return;
	for (k = 0; k < NPB_CNT_MAX; k++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.counters), &k,
					v))
			continue;
		for (c = 0; c < ncpu; c++)
			sum += v[c];
		if (k == NPB_CNT_RB_FULL)
			b->st.dropped = sum;
		else if (k == NPB_CNT_OFFCPU_NS)
			b->st.offcpu_ns = sum;
		else
			b->st.offcpu_wait_ns = sum;
	}
	free(v);
}

int npubpf_detach(struct npubpf *b)
{
	unsigned int i;

	if (!b || b->detached)
		return b ? b->err : 0;
	for (i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	b->nlinks = 0;
	b->detached = true;
	if (b->rb)
		ring_buffer__consume(b->rb);
	npb_counters(b);
	return b->err;
}

int npubpf_stats(const struct npubpf *b, struct npubpf_stats *st)
{
	if (!st || st->sz != sizeof(*st))
		return -EINVAL;
	*st = b->st;
	return 0;
}

void npubpf_close(struct npubpf *b)
{
	if (!b)
		return;
	npubpf_detach(b);
	ring_buffer__free(b->rb);
	npu_probes__destroy(b->skel);
	while (b->threads) {
		struct npb_thread *t = b->threads;

		b->threads = t->next;
		free(t);
	}
	while (b->procs) {
		struct npb_proc *p = b->procs;

		b->procs = p->next;
		free(p);
	}
	while (b->infs) {
		struct npb_inf *i = b->infs;

		b->infs = i->next;
		free(i);
	}
	if (npb_cur == b)
		npb_cur = NULL;
	free(b);
}

/* ---- targets ---- */

/* What @scn (a symbol table) says: NPUBPF_HAS_FUNCS if it defines one */
static int npb_symtab_has(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;
	const char *name;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && !strcmp(name, "npu_runner_run"))
			return NPUBPF_HAS_FUNCS;
	}
	return 0;
}

int npubpf_target_has(const char *path)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name;
	int fd, has = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_NOTE && name &&
		    !strcmp(name, ".note.stapsdt"))
			has |= NPUBPF_HAS_USDT;
		else if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			has |= npb_symtab_has(elf, scn, &sh);
	}
	elf_end(elf);
	close(fd);
	return has;
}
