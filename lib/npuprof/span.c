// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * span.c - host spans: per-thread buffers written without a lock, and the
 * drain that moves them into the session's trace file.
 *
 * Hot path. npuprof_span_begin()/_end() in npuprof.h test one global flag
 * (or the span's own @on) inline and call the slow paths here only while a
 * session captures. A thread's first span allocates its struct npf_thread
 * and, in each session, its buffer; after that a span costs two clock
 * reads, a 48-byte item written into the thread's single-producer ring
 * and a release store, with no lock and no allocation.
 *
 * Packing. The drain turns each run of a thread's spans into one SPANS
 * item (trace-file.rst): the thread, trace and time bases once, then 28
 * bytes a span of deltas, instead of an 88-byte SPAN item each. A span
 * that does not pack (a job's, one far from its parent) goes in as a SPAN
 * item, in its place in the thread's order.
 *
 * Buffers. Each thread owns one struct npf_thread, found through a
 * __thread pointer and kept in a registry list. Its buffer is a
 * single-producer ring of trace-file items (iring.c) that the thread
 * writes and the drainer reads. A span that finds the ring full is dropped and
 * counted in @lost; the drain turns the count into a HOST_LOST item. A
 * write that fills the ring past a quarter wakes the drainer through its
 * eventfd: one write(2) per crossing, amortized over ~1300 spans.
 *
 * Generations. npf_gen (odd, +2 on every attach, pause, resume and
 * detach) stamps a span at its begin (@on) and a thread's registration.
 * A span whose generation is no longer current when it ends, or that ends
 * while spans are off, is not recorded: nothing of a paused interval is
 * kept. Turning spans off is followed by a grace period, as in userspace
 * RCU: membarrier() (or a full fence on the thread side where membarrier
 * is not available) orders every writer's @in_write store before its
 * check of the generation, then the drainer waits for each @in_write to
 * clear. After it, no thread writes a span of the old generation, so the
 * final drain loses nothing silently.
 *
 * Locking and lifetime. npf_reg_lock protects the registry, the attached
 * owner and each thread's registration; the drainer holds it while it
 * reads buffers, and a thread takes it only at its first span of a
 * generation and at exit. A struct npf_thread lives until its thread exits
 * (pthread key destructor) and its buffer has been drained; an exited
 * thread's buffer is freed by the drain that empties it, or at once when
 * no session is attached.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "compiler.h"
#include "iring.h"
#include "log.h"
#include "spans.h"
#include "trace_format.h"
#include "npuprof_usdt.h"

#define NPF_MAX_LABELS		32
#define NPF_LABEL_MAX		255
#define NPF_GRACE_SPINS		1000
#define NPF_GRACE_MAX_NS	(200 * 1000 * 1000ull)
/*
 * A ring filling past a quarter wakes the drainer: the other three
 * quarters are what a thread may write while the drainer is scheduled
 * (about 0.4 ms at 10 M spans/s in a 256 KiB buffer).
 */
#define NPF_WAKE_AT(r)		((r)->size / 4)

struct npf_label {
	struct npuprof_span span;
	uint32_t len;
	char text[NPF_LABEL_MAX + 1];
};

struct npf_thread {
	/* the thread produces, the drainer consumes (under npf_reg_lock) */
	struct npf_iring ring;
	/* written by the owning thread */
	uint64_t lost;			/* spans dropped; relaxed */
	int in_write;			/* inside the span write */
	uint32_t gen;			/* registered in this generation */
	uint64_t next_id;		/* next span id */
	unsigned int nlabels;
	struct npf_label *labels;	/* NPF_MAX_LABELS, on first use */
	char pad_[64];
	/* under npf_reg_lock */
	uint64_t lost_seen;
	uint64_t serial;		/* attach registered with */
	bool dead;			/* the thread exited */
	int32_t pid;
	int32_t tid;
	struct npf_thread *next;
};

/*
 * s->on of a span stamped with the TSC: the generation (kept below this
 * bit by npf_bump_gen()) with this bit set.
 */
#define NPF_ON_TSC		(1u << 30)

/* Read inline by npuprof_span_begin(): spans are being captured. */
NPUPROF_EXPORT int npuprof_spans_on;

/* Raised by tracers while npuprof:record_* is attached (npuprof_usdt.h). */
unsigned short npuprof_probes_semaphore __attribute__((section(".probes")));

static uint32_t npf_gen = 1;
static pthread_mutex_t npf_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npf_thread *npf_threads;		/* under npf_reg_lock */
static const void *npf_owner;			/* under npf_reg_lock */
static uint64_t npf_serial;			/* under npf_reg_lock */
static uint32_t npf_buf_bytes;			/* under npf_reg_lock */
static int npf_wake_fd = -1;			/* eventfd of the drainer */
static uint64_t npf_trace_hi;
static uint32_t npf_next_tindex;
static uint32_t npf_next_string;
/* the session stamps NPUPROF_SPAN_USER spans with the TSC */
static bool npf_span_tsc;
/* a sample taken at attach, to place spans that do not pack (TSC mode) */
static uint64_t npf_tsc_base_ns, npf_tsc_base_tick;
static bool npf_membarrier;
static pthread_key_t npf_key;
static pthread_once_t npf_once = PTHREAD_ONCE_INIT;
/*
 * initial-exec: one load off %fs, not a __tls_get_addr() call a span in
 * libnpuprof.so (8 bytes of the static TLS glibc keeps for dlopen()ed
 * libraries)
 */
static __thread struct npf_thread *npf_self
	__attribute__((tls_model("initial-exec")));

static void npf_thread_exit(void *arg);

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t npf_rdtsc(void)
{
	return __rdtsc();
}
#else
/* never called: the TSC is chosen on x86 only (npf_spans_tsc_usable()) */
static inline uint64_t npf_rdtsc(void)
{
	return 0;
}
#endif

static void npf_init_once(void)
{
	uint64_t r = 0;

	pthread_key_create(&npf_key, npf_thread_exit);
	/*
	 * Spans get ids for USDT probes with no session too: give their
	 * traces a random prefix until a session draws its own.
	 */
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = npf_now_ns() ^ ((uint64_t)getpid() << 32);
	pthread_mutex_lock(&npf_reg_lock);
	if (!npf_trace_hi)
		npf_trace_hi = r;
	pthread_mutex_unlock(&npf_reg_lock);
	if (syscall(SYS_membarrier,
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		npf_membarrier = true;
	pthread_atfork(NULL, NULL, npf_spans_atfork_child);
}

static struct npf_thread *npf_thread_get(void)
{
	struct npf_thread *t = npf_self;
	uint32_t idx;

	if (npf_likely(t))
		return t;
	pthread_once(&npf_once, npf_init_once);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	idx = __atomic_add_fetch(&npf_next_tindex, 1, __ATOMIC_RELAXED);
	t->next_id = ((uint64_t)idx << 40) + 1;
	t->pid = getpid();
	t->tid = (int32_t)syscall(SYS_gettid);
	pthread_mutex_lock(&npf_reg_lock);
	t->next = npf_threads;
	npf_threads = t;
	pthread_mutex_unlock(&npf_reg_lock);
	pthread_setspecific(npf_key, t);
	npf_self = t;
	return t;
}

static void npf_unlink(struct npf_thread *t)
{
	struct npf_thread **pp;

	for (pp = &npf_threads; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	npf_iring_fini(&t->ring);
	free(t->labels);
	free(t);
}

static void npf_thread_exit(void *arg)
{
	struct npf_thread *t = arg;

	pthread_mutex_lock(&npf_reg_lock);
	if (npf_owner && t->serial == npf_serial &&
	    npf_iring_used(&t->ring))
		t->dead = true;		/* the next drain frees it */
	else
		npf_unlink(t);
	pthread_mutex_unlock(&npf_reg_lock);
	npf_self = NULL;
}

/* Put one item in the thread's ring; false (and counted) when full. */
static bool npf_put(struct npf_thread *t, uint16_t type, const void *a,
		    size_t alen, const void *b, size_t blen)
{
	struct npf_iring *r = &t->ring;
	uint64_t before = r->head - __atomic_load_n(&r->tail, __ATOMIC_RELAXED);

	if (npf_unlikely(npf_iring_put(r, type, a, alen, b, blen))) {
		__atomic_store_n(&t->lost, t->lost + 1, __ATOMIC_RELAXED);
		return false;
	}
	/* crossing a quarter full: wake the drainer (one write a crossing) */
	if (npf_unlikely(before < NPF_WAKE_AT(r) &&
			 r->head - __atomic_load_n(&r->tail, __ATOMIC_RELAXED) >=
			 NPF_WAKE_AT(r))) {
		int fd = __atomic_load_n(&npf_wake_fd, __ATOMIC_RELAXED);
		uint64_t one = 1;

		if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
			(void)0;
	}
	return true;
}

_Static_assert(sizeof(struct npuprof_span_rec) % 8 == 0,
	       "a SPAN item needs no padding");

/*
 * A span of the packed form (struct npf_span_c) as the hot path puts it in
 * the thread's ring, absolute: the drain packs runs of them into SPANS
 * items. The ring's own item type, never in a file.
 */
#define NPF_RING_SPAN_SHORT	0x8000

struct npf_span_short {
	uint64_t start;
	uint64_t end;
	uint64_t span_id;
	uint64_t parent_id;
	uint64_t root_id;		/* trace_id[1] */
	uint8_t kind;
	uint8_t clock;			/* NPF_SPANS_CLOCK_* */
	uint16_t flags;
	uint32_t name_id;
};

_Static_assert(sizeof(struct npf_span_short) % 8 == 0,
	       "a short span item needs no padding");

/* Whether span @r of this session's trace fits the packed form. */
static inline bool npf_span_packs(const struct npuprof_span_rec *r)
{
	/* unsigned differences: one that would be negative wraps, too big */
	return !((r->flags & (NPF_SPANS_NOT_FLAGS | 0xff00)) |
		 (r->kind & 0xff00)) &&
	       r->trace_id[0] == npf_trace_hi &&
	       r->span_id - r->trace_id[1] <= UINT32_MAX &&
	       r->end_ns - r->start_ns <= UINT32_MAX &&
	       (!r->parent_id ||
		r->span_id - r->parent_id - 1 < UINT32_MAX);
}

/*
 * The hot path's put: a short span item of constant size written in
 * place; the ring's general put handles the tail pad, the full ring and
 * the half-full wake-up.
 */
static inline bool npf_put_short(struct npf_thread *t,
				 const struct npuprof_span_rec *rec,
				 uint8_t clock)
{
	struct npf_iring *r = &t->ring;
	const uint32_t len = sizeof(struct npf_item) +
			     sizeof(struct npf_span_short);
	uint64_t head = r->head;
	uint64_t used = head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint32_t off = (uint32_t)head & (r->size - 1);
	struct npf_span_short *sp;
	struct npf_item *it;

	if (npf_unlikely(r->size - off < len || r->size - used < len ||
			 (used + len >= NPF_WAKE_AT(r) &&
			  used < NPF_WAKE_AT(r)))) {
		struct npf_span_short b = {
			.start = rec->start_ns, .end = rec->end_ns,
			.span_id = rec->span_id, .parent_id = rec->parent_id,
			.root_id = rec->trace_id[1], .kind = (uint8_t)rec->kind,
			.clock = clock, .flags = rec->flags,
			.name_id = rec->name_id,
		};

		return npf_put(t, NPF_RING_SPAN_SHORT, &b, sizeof(b), NULL, 0);
	}
	it = (struct npf_item *)(r->data + off);
	it->type = NPF_RING_SPAN_SHORT;
	it->flags = 0;
	it->size = len;
	sp = (struct npf_span_short *)(it + 1);
	sp->start = rec->start_ns;
	sp->end = rec->end_ns;
	sp->span_id = rec->span_id;
	sp->parent_id = rec->parent_id;
	sp->root_id = rec->trace_id[1];
	sp->kind = (uint8_t)rec->kind;
	sp->clock = clock;
	sp->flags = rec->flags;
	sp->name_id = rec->name_id;
	__atomic_store_n(&r->head, head + len, __ATOMIC_RELEASE);
	return true;
}

/*
 * CLOCK_MONOTONIC ns of TSC value @tick, from the sample taken at attach
 * and one taken now: for the few TSC-stamped spans that do not pack (a
 * program set a job on its span), written as SPAN items in ns. The
 * error is the rate's over the span's distance from now, a few ns for a
 * span of a millisecond; packed spans are mapped by the reader's fit.
 */
static uint64_t npf_tsc_to_ns(uint64_t tick, uint64_t now_ns, uint64_t now_tick)
{
	double rate = now_tick > npf_tsc_base_tick ?
		(double)(now_ns - npf_tsc_base_ns) /
		(double)(now_tick - npf_tsc_base_tick) : 0.0;

	return now_ns - (uint64_t)((double)(now_tick - tick) * rate);
}

/* A span, packed when it can be, else a SPAN item. */
static inline bool npf_put_span(struct npf_thread *t,
				struct npuprof_span_rec *rec, bool tsc)
{
	if (npf_likely(npf_span_packs(rec)))
		return npf_put_short(t, rec, tsc ? NPF_SPANS_CLOCK_TSC :
				     NPF_SPANS_CLOCK_MONOTONIC);
	if (tsc) {
		uint64_t now_ns = npf_now_ns(), now_tick = npf_rdtsc();

		rec->start_ns = npf_tsc_to_ns(rec->start_ns, now_ns, now_tick);
		rec->end_ns = npf_tsc_to_ns(rec->end_ns, now_ns, now_tick);
	}
	/* fields begin did not clear: 0 unless their flag says valid */
	if (!(rec->flags & NPUPROF_SPAN_F_JOB)) {
		rec->job_id = 0;
		rec->minor = 0;
	}
	if (!(rec->flags & NPUPROF_SPAN_F_OP))
		rec->op_index = 0;
	return npf_put(t, NPF_ITEM_SPAN, rec, sizeof(*rec), NULL, 0);
}

/*
 * Register @t with the attached session in generation @gen: the thread's
 * first span of a generation. Allocates the ring on first use or when the
 * session's buffer size differs. Returns false when no session is
 * attached, the generation moved on, or memory is short.
 */
static bool npf_register(struct npf_thread *t, uint32_t gen)
{
	struct npf_item_thread ti;
	bool ok = false;

	pthread_mutex_lock(&npf_reg_lock);
	if (!npf_owner || __atomic_load_n(&npf_gen, __ATOMIC_RELAXED) != gen)
		goto out;
	if (t->ring.size != npf_buf_bytes || !t->ring.data) {
		npf_iring_fini(&t->ring);
		if (npf_iring_init(&t->ring, npf_buf_bytes))
			goto out;
		t->lost = 0;
		t->lost_seen = 0;
	}
	if (t->serial != npf_serial) {
		/* a new session: it gets the thread's name first */
		t->serial = npf_serial;
		t->ring.tail = t->ring.head;
		t->lost_seen = t->lost;
		memset(&ti, 0, sizeof(ti));
		ti.pid = t->pid;
		ti.tid = t->tid;
		prctl(PR_GET_NAME, ti.name, 0, 0, 0);
		ti.name[sizeof(ti.name) - 1] = 0;
		npf_put(t, NPF_ITEM_THREAD, &ti, sizeof(ti), NULL, 0);
	}
	t->gen = gen;
	ok = true;
out:
	pthread_mutex_unlock(&npf_reg_lock);
	return ok;
}

/*
 * Write span @s (and its label @text, @len bytes, when not NULL) to the
 * calling thread's ring, if its generation is still current.
 */
static void npf_commit(struct npuprof_span *s, const char *text, uint32_t len)
{
	struct npf_thread *t = npf_self;
	bool tsc = (uint32_t)s->on & NPF_ON_TSC;
	uint32_t gen;

	s->rec.end_ns = tsc ? npf_rdtsc() : npf_now_ns();
	if (npf_unlikely(!t))
		t = npf_thread_get();
	/* a span begun for a USDT probe alone: nothing to record */
	if (npf_unlikely(!t) ||
	    !__atomic_load_n(&npuprof_spans_on, __ATOMIC_RELAXED))
		return;
	gen = (uint32_t)s->on & ~NPF_ON_TSC;
	if (npf_unlikely(t->gen != gen) && !npf_register(t, gen))
		return;
	__atomic_store_n(&t->in_write, 1, __ATOMIC_RELAXED);
	if (npf_membarrier)
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (npf_likely(__atomic_load_n(&npf_gen, __ATOMIC_RELAXED) == gen &&
		       __atomic_load_n(&npuprof_spans_on, __ATOMIC_RELAXED))) {
		if (text) {
			struct npf_item_string st = {
				.id = __atomic_add_fetch(&npf_next_string, 1,
							 __ATOMIC_RELAXED),
				.len = len,
			};

			s->rec.name_id = st.id;
			/* the string goes in only with its span */
			if (npf_put(t, NPF_ITEM_STRING, &st, sizeof(st), text,
				    len + 1) &&
			    !npf_put_span(t, &s->rec, tsc))
				s->rec.name_id = 0;
		} else {
			npf_put_span(t, &s->rec, tsc);
		}
	}
	__atomic_store_n(&t->in_write, 0, __ATOMIC_RELEASE);
}

NPUPROF_EXPORT
void npuprof_span_begin_slow(struct npuprof_span *s, unsigned int kind,
			     const struct npuprof_span *parent)
{
	struct npf_thread *t = npf_self;
	uint32_t gen = __atomic_load_n(&npf_gen, __ATOMIC_RELAXED);

	s->on = 0;
	if (npf_unlikely(!t)) {
		t = npf_thread_get();
		if (!t)
			return;
	}
	/*
	 * Only what every span needs: job_id, op_index and minor are read
	 * with their flag only, pid and tid are the drain's
	 */
	s->rec.kind = (uint16_t)kind;
	s->rec.flags = 0;
	s->rec.name_id = 0;
	s->rec.pid = t->pid;
	s->rec.tid = t->tid;
	s->rec.span_id = t->next_id++;
	if (parent && parent->on) {
		s->rec.parent_id = parent->rec.span_id;
		s->rec.trace_id[0] = parent->rec.trace_id[0];
		s->rec.trace_id[1] = parent->rec.trace_id[1];
	} else {
		if (t->nlabels && t->labels[t->nlabels - 1].span.on)
			s->rec.parent_id =
				t->labels[t->nlabels - 1].span.rec.span_id;
		else
			s->rec.parent_id = 0;
		s->rec.trace_id[0] = npf_trace_hi;
		s->rec.trace_id[1] = s->rec.span_id;
	}
	/* a program's own spans: the TSC when the session chose it */
	if (kind == NPUPROF_SPAN_USER &&
	    __atomic_load_n(&npf_span_tsc, __ATOMIC_RELAXED)) {
		s->rec.start_ns = npf_rdtsc();
		s->on = (int)(gen | NPF_ON_TSC);
		return;
	}
	s->rec.start_ns = npf_now_ns();
	s->on = (int)gen;
}

NPUPROF_EXPORT
void npuprof_span_end_slow(struct npuprof_span *s)
{
	npf_commit(s, NULL, 0);
	s->on = 0;
}

NPUPROF_EXPORT
int npuprof_region_begin(const char *label)
{
	struct npf_thread *t;
	struct npf_label *l;
	size_t len;

	if (!label)
		return -EINVAL;
	t = npf_thread_get();
	if (!t)
		return -ENOMEM;
	if (!t->labels) {
		t->labels = calloc(NPF_MAX_LABELS, sizeof(*t->labels));
		if (!t->labels)
			return -ENOMEM;
	}
	if (t->nlabels == NPF_MAX_LABELS)
		return -E2BIG;
	l = &t->labels[t->nlabels];
	len = strnlen(label, NPF_LABEL_MAX);
	memcpy(l->text, label, len);
	l->text[len] = 0;
	l->len = (uint32_t)len;
	/* the parent is the enclosing record, found before the push */
	l->span.on = 0;
	if (npf_unlikely(__atomic_load_n(&npuprof_spans_on, __ATOMIC_RELAXED) |
			 NPU_USDT_SEMAPHORE(npuprof_probes_semaphore))) {
		npuprof_span_begin_slow(&l->span, NPUPROF_SPAN_LABEL, NULL);
		if (l->span.on)
			NPU_USDT_RECORD(region_begin, &l->span.rec, l->text);
	}
	t->nlabels++;
	return 0;
}

NPUPROF_EXPORT
int npuprof_region_end(void)
{
	struct npf_thread *t = npf_self;
	struct npf_label *l;

	if (!t || !t->nlabels)
		return -ENOENT;
	l = &t->labels[--t->nlabels];
	if (l->span.on) {
		npf_commit(&l->span, l->text, l->len);
		NPU_USDT_RECORD(region_end, &l->span.rec, l->text);
	}
	l->span.on = 0;
	return 0;
}

/* Wait until no thread is inside a span write (see the file header). */
static void npf_grace(void)
{
	struct npf_thread *t;

	if (npf_membarrier)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&npf_reg_lock);
	for (t = npf_threads; t; t = t->next) {
		uint64_t t0 = 0;
		unsigned int spins = 0;

		while (__atomic_load_n(&t->in_write, __ATOMIC_ACQUIRE)) {
			/*
			 * A writer interrupted by a fatal signal never
			 * finishes: give up on it after a bounded wait.
			 */
			if (++spins < NPF_GRACE_SPINS) {
				sched_yield();
				continue;
			}
			if (!t0)
				t0 = npf_now_ns();
			else if (npf_now_ns() - t0 > NPF_GRACE_MAX_NS)
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 100000 },
				  NULL);
		}
	}
	pthread_mutex_unlock(&npf_reg_lock);
}

/* Next generation, odd and below NPF_ON_TSC; under npf_reg_lock. */
static void npf_bump_gen(void)
{
	uint32_t g = __atomic_load_n(&npf_gen, __ATOMIC_RELAXED) + 2;

	__atomic_store_n(&npf_gen, g & (NPF_ON_TSC - 1), __ATOMIC_RELAXED);
}

/* Whether @path holds @want (and a newline), as a sysfs file does. */
static bool npf_file_is(const char *path, const char *want)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return !strcmp(buf, want);
}

bool npf_spans_tsc_usable(const char **why)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (!npf_file_is("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			 "tsc")) {
		*why = "the kernel's clocksource is not tsc";
		return false;
	}
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8))) {
		*why = "the CPU reports no invariant TSC";
		return false;
	}
	*why = "clocksource tsc, invariant TSC";
	return true;
#else
	*why = "no TSC on this architecture";
	return false;
#endif
}

void npf_spans_clock_sample(struct npf_clock_sample *cs)
{
	cs->before_ns = npf_now_ns();
	cs->tick = npf_rdtsc();
	cs->after_ns = npf_now_ns();
}

int npf_spans_attach(const void *owner, uint32_t buf_bytes, int wake_fd,
		     bool tsc)
{
	uint64_t r = 0;

	pthread_once(&npf_once, npf_init_once);
	if (buf_bytes < 4096 || (buf_bytes & (buf_bytes - 1)))
		return -EINVAL;
	pthread_mutex_lock(&npf_reg_lock);
	if (npf_owner) {
		pthread_mutex_unlock(&npf_reg_lock);
		return -EBUSY;
	}
	npf_owner = owner;
	npf_serial++;
	__atomic_store_n(&npf_wake_fd, wake_fd, __ATOMIC_RELAXED);
	npf_buf_bytes = buf_bytes;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = npf_now_ns() ^ ((uint64_t)getpid() << 32);
	npf_trace_hi = r;
	if (tsc) {
		npf_tsc_base_ns = npf_now_ns();
		npf_tsc_base_tick = npf_rdtsc();
	}
	__atomic_store_n(&npf_span_tsc, tsc, __ATOMIC_RELAXED);
	npf_bump_gen();
	__atomic_store_n(&npuprof_spans_on, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&npf_reg_lock);
	return 0;
}

void npf_spans_pause(const void *owner, bool off)
{
	pthread_mutex_lock(&npf_reg_lock);
	if (npf_owner != owner) {
		pthread_mutex_unlock(&npf_reg_lock);
		return;
	}
	npf_bump_gen();
	__atomic_store_n(&npuprof_spans_on, off ? 0 : 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&npf_reg_lock);
	if (off)
		npf_grace();
}

void npf_spans_detach(const void *owner)
{
	struct npf_thread *t, *next;

	pthread_mutex_lock(&npf_reg_lock);
	if (npf_owner != owner) {
		pthread_mutex_unlock(&npf_reg_lock);
		return;
	}
	npf_bump_gen();
	__atomic_store_n(&npuprof_spans_on, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&npf_reg_lock);
	npf_grace();
	pthread_mutex_lock(&npf_reg_lock);
	npf_owner = NULL;
	__atomic_store_n(&npf_span_tsc, false, __ATOMIC_RELAXED);
	__atomic_store_n(&npf_wake_fd, -1, __ATOMIC_RELAXED);
	/* exited threads kept for the drain are not needed any more */
	for (t = npf_threads; t; t = next) {
		next = t->next;
		if (t->dead)
			npf_unlink(t);
	}
	pthread_mutex_unlock(&npf_reg_lock);
}

/*
 * The SPANS item the drain packs (under npf_reg_lock): up to
 * NPF_SPANS_MAX spans, well inside a chunk and the session's stage.
 */
#define NPF_SPANS_MAX	2048

static struct {
	struct npf_item_spans hdr;
	struct npf_span_c c[NPF_SPANS_MAX];
} npf_pack;
static uint64_t npf_pack_time, npf_pack_id;	/* the last span's */

/* Add short span @sp to the pack; false when it does not fit it. */
static bool npf_pack_add(const struct npf_span_short *sp)
{
	struct npf_item_spans *h = &npf_pack.hdr;
	int64_t dt = (int64_t)(sp->start - npf_pack_time);
	int64_t di = (int64_t)(sp->span_id - npf_pack_id);
	struct npf_span_c *c;

	if (!h->count) {
		h->clock = sp->clock;
		h->time = npf_pack_time = sp->start;
		h->span_id = npf_pack_id = sp->span_id;
		dt = 0;
		di = 0;
	} else if (h->count == NPF_SPANS_MAX || h->clock != sp->clock ||
		   dt != (int32_t)dt ||
		   di != (int32_t)di) {
		return false;
	}
	c = &npf_pack.c[h->count++];
	c->start_delta = (int32_t)dt;
	c->dur = (uint32_t)(sp->end - sp->start);
	c->id_delta = (int32_t)di;
	c->parent_back = sp->parent_id ? (uint32_t)(sp->span_id -
						     sp->parent_id) : 0;
	c->trace_back = (uint32_t)(sp->span_id - sp->root_id);
	c->kind = (uint8_t)sp->kind;
	c->flags = (uint8_t)sp->flags;
	c->rsvd = 0;
	c->name_id = sp->name_id;
	npf_pack_time = sp->start;
	npf_pack_id = sp->span_id;
	return true;
}

/*
 * Write the pack as a SPANS item; on success the ring gives back the
 * @*pending bytes it came from.
 */
static int npf_pack_flush(struct npf_thread *t, npf_item_fn fn, void *ctx,
			  uint32_t *pending, uint64_t *spans)
{
	struct npf_item_spans *h = &npf_pack.hdr;
	int ret = 0;

	if (h->count) {
		ret = fn(ctx, NPF_ITEM_SPANS, &npf_pack,
			 sizeof(*h) + h->count * sizeof(struct npf_span_c));
		if (ret) {
			/* left in the ring: packed again by the next drain */
			h->count = 0;
			return ret;
		}
		*spans += h->count;
		h->count = 0;
	}
	npf_iring_release(&t->ring, *pending);
	*pending = 0;
	return 0;
}

/*
 * Drain one thread's ring; under npf_reg_lock. Runs of short spans become
 * SPANS items; every other item is passed on as it is, in ring order (a
 * label's STRING before its span).
 */
static int npf_drain_one(struct npf_thread *t, npf_item_fn fn, void *ctx,
			 uint64_t *spans, uint64_t *lost)
{
	struct npf_iring *r = &t->ring;
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint32_t pending = 0;
	uint64_t l;
	int ret = 0;

	npf_pack.hdr.pid = t->pid;
	npf_pack.hdr.tid = t->tid;
	npf_pack.hdr.count = 0;
	npf_pack.hdr.trace_hi = npf_trace_hi;
	while (r->tail + pending != head) {
		const struct npf_item *it = (const void *)(r->data +
			((uint32_t)(r->tail + pending) & (r->size - 1)));

		if (npf_likely(it->type == NPF_RING_SPAN_SHORT)) {
			if (!npf_pack_add((const void *)(it + 1))) {
				ret = npf_pack_flush(t, fn, ctx, &pending,
						     spans);
				if (ret)
					return ret;
				continue;
			}
		} else if (it->type) {
			ret = npf_pack_flush(t, fn, ctx, &pending, spans);
			if (ret)
				return ret;
			ret = fn(ctx, it->type, it + 1, it->size - sizeof(*it));
			if (ret)
				return ret;
			if (it->type == NPF_ITEM_SPAN)
				(*spans)++;
			npf_iring_release(r, it->size);
			continue;
		}
		pending += it->size;
	}
	ret = npf_pack_flush(t, fn, ctx, &pending, spans);
	l = __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
	if (!ret && l != t->lost_seen) {
		struct npf_item_host_lost hl = {
			.pid = t->pid, .tid = t->tid, .count = l - t->lost_seen,
		};

		ret = fn(ctx, NPF_ITEM_HOST_LOST, &hl, sizeof(hl));
		if (!ret) {
			*lost += hl.count;
			t->lost_seen = l;
		}
	}
	return ret;
}

int npf_spans_drain(const void *owner, npf_item_fn fn, void *ctx,
		    uint64_t *spans, uint64_t *lost)
{
	struct npf_thread *t, *next;
	int ret = 0;

	pthread_mutex_lock(&npf_reg_lock);
	for (t = npf_threads; t && !ret; t = next) {
		next = t->next;
		if (npf_owner != owner || t->serial != npf_serial ||
		    !t->ring.data)
			continue;
		ret = npf_drain_one(t, fn, ctx, spans, lost);
		if (!ret && t->dead)
			npf_unlink(t);
	}
	pthread_mutex_unlock(&npf_reg_lock);
	return ret;
}

void npf_spans_atfork_child(void)
{
	/* only the forking thread exists here; the registry is the parent's */
	pthread_mutex_init(&npf_reg_lock, NULL);
	npf_threads = NULL;
	npf_owner = NULL;
	npf_span_tsc = false;
	npf_bump_gen();
	__atomic_store_n(&npuprof_spans_on, 0, __ATOMIC_RELEASE);
	npf_self = NULL;
	pthread_setspecific(npf_key, NULL);
}
