// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * npu_probes.bpf.c - eBPF host probes of the NPU stack (CO-RE, built with
 * clang -target bpf against the guest kernel's vmlinux.h).
 *
 * Programs:
 *  - usdt_span: libnpu's NAME_end and libnpuprof's region_end USDT probes
 *    (lib/npuprof/npuprof_usdt.h). Their arguments are a whole span, sent
 *    on as they are: the loader turns them into the span the library
 *    would have recorded. usdt_wait_begin marks a thread as waiting.
 *  - up_entry, up_ret: uprobes on libnpu's exported functions, the
 *    fallback for builds without USDT notes. The attach cookie names the
 *    function; the loader rebuilds the spans from entries and returns.
 *  - npu_job_submit, npu_job_complete, npu_trace_lost: the driver's
 *    tracepoints, as raw tracepoints (they need no module BTF). A submit
 *    gives the loader the job id of the thread's submit span and makes the
 *    thread one whose off-CPU time is measured.
 *  - sched_switch (tp_btf, vmlinux BTF): off-CPU intervals of submitting
 *    threads; the ones inside a wait go to the loader.
 *
 * Every event is stamped with bpf_ktime_get_ns() (CLOCK_MONOTONIC) and
 * goes through one BPF ring buffer; an event that finds it full is
 * counted in counters[NPB_CNT_RB_FULL]. The loader is woken only when the
 * buffer is half full (wakeup()); it polls it on a timer otherwise.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>

#include "npu_probes.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before loading: the process traced, 0 for all */
const volatile __s32 filter_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NPB_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* threads that submitted a job: tid -> 1 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} submitters SEC(".maps");

/* threads inside a wait: tid -> 1 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} waiting SEC(".maps");

/* submitting threads off CPU: tid -> { since, waiting } */
struct offcpu {
	__u64 since;
	__u64 waiting;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct offcpu);
} offcpu SEC(".maps");

/* npu_runner_acquire's out pointer, entry to return: tid -> pointer */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} acquire_out SEC(".maps");

static __always_inline void count(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += n;
}

/*
 * Wake the loader only when the ring buffer is half full: it reads it on
 * a timer anyway (npuprof: every 100 ms). A wake-up per event would switch to the loader at
 * every probe hit, which on a small machine costs the traced program more
 * than the probes themselves.
 */
static __always_inline __u64 wakeup(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
	       bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 2 ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline bool wanted(__s32 tgid)
{
	return !filter_tgid || tgid == filter_tgid;
}

/* A zeroed event of @type for the current thread, or NULL (counted). */
static __always_inline struct npb_event *ev_new(__u32 type, __u32 fn)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct npb_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(NPB_CNT_RB_FULL, 1);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->type = type;
	e->fn = fn;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->ts = bpf_ktime_get_ns();
	return e;
}

static __always_inline void usdt_args(struct pt_regs *ctx, __u64 *a)
{
	long v;
	int i;

	for (i = 0; i < NPB_NARGS; i++) {
		v = 0;
		bpf_usdt_arg(ctx, i, &v);
		a[i] = v;
	}
}

SEC("usdt")
int BPF_USDT(usdt_span)
{
	__u64 cookie = bpf_usdt_cookie(ctx);
	struct npb_label_event *le;
	struct npb_event *e;
	__u64 id;
	__u32 tid;
	long p = 0;

	id = bpf_get_current_pid_tgid();
	if (!wanted(id >> 32))
		return 0;
	tid = (__u32)id;
	if (cookie == NPB_USDT_WAIT_BEGIN) {
		__u8 one = 1;

		bpf_map_update_elem(&waiting, &tid, &one, BPF_ANY);
		return 0;
	}
	if (cookie == NPB_USDT_RECORD_END) {
		le = bpf_ringbuf_reserve(&events, sizeof(*le), 0);
		if (!le) {
			count(NPB_CNT_RB_FULL, 1);
			return 0;
		}
		__builtin_memset(&le->e, 0, sizeof(le->e));
		le->e.type = NPB_EV_USDT_LABEL;
		le->e.pid = id >> 32;
		le->e.tid = tid;
		le->e.ts = bpf_ktime_get_ns();
		usdt_args(ctx, le->e.a);
		le->label[0] = 0;
		/* record_*: arg3 is the label (npuprof_usdt.h) */
		if (!bpf_usdt_arg(ctx, 3, &p) && p)
			bpf_probe_read_user_str(le->label, sizeof(le->label),
						(const void *)p);
		bpf_ringbuf_submit(le, wakeup());
		return 0;
	}
	e = ev_new(NPB_EV_USDT_SPAN, 0);
	if (!e)
		return 0;
	usdt_args(ctx, e->a);
	/* the end of a wait (arg0, the kind) */
	if (e->a[0] == NPB_KIND_WAIT)
		bpf_map_delete_elem(&waiting, &tid);
	bpf_ringbuf_submit(e, wakeup());
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(up_entry, __u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	__u32 fn = (__u32)bpf_get_attach_cookie(ctx);
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct npb_event *e;

	if (!wanted(id >> 32))
		return 0;
	if (fn == NPB_FN_ACQUIRE)
		bpf_map_update_elem(&acquire_out, &tid, &a1, BPF_ANY);
	if (fn == NPB_FN_WAIT) {
		__u8 one = 1;

		bpf_map_update_elem(&waiting, &tid, &one, BPF_ANY);
	}
	e = ev_new(NPB_EV_UPROBE_ENTRY, fn);
	if (!e)
		return 0;
	e->a[0] = a0;
	e->a[1] = a1;
	e->a[2] = a2;
	e->a[3] = a3;
	bpf_ringbuf_submit(e, wakeup());
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(up_ret, long ret)
{
	__u32 fn = (__u32)bpf_get_attach_cookie(ctx);
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct npb_event *e;
	__u64 *out, inf = 0;

	if (!wanted(id >> 32))
		return 0;
	if (fn == NPB_FN_ACQUIRE) {
		out = bpf_map_lookup_elem(&acquire_out, &tid);
		if (out && *out)
			bpf_probe_read_user(&inf, sizeof(inf),
					    (const void *)*out);
		bpf_map_delete_elem(&acquire_out, &tid);
	}
	if (fn == NPB_FN_WAIT)
		bpf_map_delete_elem(&waiting, &tid);
	e = ev_new(NPB_EV_UPROBE_RET, fn);
	if (!e)
		return 0;
	e->a[0] = ret;
	e->a[1] = inf;
	bpf_ringbuf_submit(e, wakeup());
	return 0;
}

SEC("raw_tp/npu_job_submit")
int BPF_PROG(npu_job_submit, int dev, __u64 job_id, __u32 pe, int tgid,
	     int pid, __u64 submit_ns)
{
	struct npb_event *e;
	__u32 tid = pid;
	__u8 one = 1;

	if (!wanted(tgid))
		return 0;
	bpf_map_update_elem(&submitters, &tid, &one, BPF_ANY);
	e = ev_new(NPB_EV_SUBMIT, 0);
	if (!e)
		return 0;
	e->a[0] = dev;
	e->a[1] = job_id;
	e->a[2] = pe;
	e->a[3] = tgid;
	e->a[4] = pid;
	e->a[5] = submit_ns;
	bpf_ringbuf_submit(e, wakeup());
	return 0;
}

SEC("raw_tp/npu_job_complete")
int BPF_PROG(npu_job_complete, int dev, __u64 job_id, __u32 pe, __u32 status,
	     int tgid, __u64 submit_ns, __u64 complete_ns)
{
	struct npb_event *e;

	if (!wanted(tgid))
		return 0;
	e = ev_new(NPB_EV_COMPLETE, 0);
	if (!e)
		return 0;
	e->a[0] = dev;
	e->a[1] = job_id;
	e->a[2] = pe;
	e->a[3] = status;
	e->a[4] = tgid;
	e->a[5] = submit_ns;
	e->a[6] = complete_ns;
	bpf_ringbuf_submit(e, wakeup());
	return 0;
}

SEC("raw_tp/npu_trace_lost")
int BPF_PROG(npu_trace_lost, int dev, __u64 ring, __u32 reason, __u64 cnt)
{
	struct npb_event *e = ev_new(NPB_EV_LOST, 0);

	if (!e)
		return 0;
	e->a[0] = dev;
	e->a[1] = ring;
	e->a[2] = reason;
	e->a[3] = cnt;
	bpf_ringbuf_submit(e, wakeup());
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 ptid = prev->pid, ntid = next->pid;
	struct offcpu *oc, o = {};
	struct npb_event *e;
	__u64 now, d;

	if (bpf_map_lookup_elem(&submitters, &ptid)) {
		o.since = bpf_ktime_get_ns();
		o.waiting = bpf_map_lookup_elem(&waiting, &ptid) != NULL;
		bpf_map_update_elem(&offcpu, &ptid, &o, BPF_ANY);
	}
	oc = bpf_map_lookup_elem(&offcpu, &ntid);
	if (!oc)
		return 0;
	now = bpf_ktime_get_ns();
	d = now - oc->since;
	count(NPB_CNT_OFFCPU_NS, d);
	if (oc->waiting) {
		count(NPB_CNT_OFFCPU_WAIT_NS, d);
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (e) {
			__builtin_memset(e, 0, sizeof(*e));
			e->type = NPB_EV_OFFCPU;
			e->pid = next->tgid;
			e->tid = ntid;
			e->ts = now;
			e->a[0] = oc->since;
			e->a[1] = now;
			bpf_ringbuf_submit(e, wakeup());
		} else {
			count(NPB_CNT_RB_FULL, 1);
		}
	}
	bpf_map_delete_elem(&offcpu, &ntid);
	return 0;
}
