// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * span.c - host spans: per-thread buffers written without a lock, and the
 * drain that moves them into the session's trace file.
 *
 * Hot path. npuprof_span_begin()/_end() in npuprof.h test one global flag
 * (or the span's own @on) inline and call the slow paths here only while a
 * session captures. A thread's first span allocates its struct npf_thread
 * and, in each session, its buffer; after that a span costs two clock
 * reads (none for a shared timestamp), one load of the session's key at
 * each end (and of its trace_hi: at the begin for a span without a
 * parent, at the end to tell a foreign trace's span), and at the end a
 * 56-byte item stored into the thread's single-producer ring with one
 * compare against a limit the thread keeps, and a release store: no lock,
 * no allocation, no look at the drainer's position. Nothing else happens
 * on the path: whether a span packs, the wake-ups, the full ring and the
 * ring's wrap are decided by the drain or on a slow put.
 *
 * Keys. A span's @on is its key: 0 off; NPF_KEY_PROBE begun for a USDT
 * probe alone; else the generation of the session that records it
 * (odd: gen * 2 + 1) with NPF_ON_TSC when it read the TSC. npf_hot.key_rec
 * is the recording key (0 while no session records; it changes on every
 * attach, pause, resume and detach, under npf_reg_lock) and key_user the
 * same with NPF_ON_TSC when the session stamps NPUPROF_SPAN_USER spans
 * with the TSC. A thread registers with a key at its first span of it
 * (t->key); a span whose key is not the recording key when it ends is not
 * recorded: nothing of a paused interval is kept.
 *
 * Shared timestamps. npuprof_span_begin_at_slow() and
 * npuprof_span_end_at_slow() take a stamp (a time and the key of the span
 * it came from) instead of reading the clock, when its key is the one the
 * span takes (the same session, generation and clock); otherwise they read
 * the clock, so no time of another session or clock enters the trace.
 *
 * Packing. The drain turns each run of a thread's spans into one SPANS
 * item (trace-file.rst): the thread, trace and time bases once, then 24
 * bytes a span of deltas, instead of an 80-byte SPAN item each. A span
 * that does not pack (a job's, one far from its parent) goes in as a SPAN
 * item, in its place in the thread's order: the hot path writes job and
 * model spans, those of a foreign trace and CPU operators' with a name_id
 * as SPAN items itself (npf_ring_span_ok()), the drain the others that
 * do not fit the packed form, among them CPU operators' spans, which the
 * hot path stores as ring spans with their op_index in name_id's place
 * (0 for them).
 *
 * Buffers. Each thread owns one struct npf_thread, found through a
 * __thread pointer and kept in a registry list. Its buffer is a
 * single-producer ring of trace-file items (iring.c) that the thread
 * writes and the drainer reads. A span that finds the ring full is dropped
 * and counted in @lost; the drain turns the count into a HOST_LOST item.
 * The thread looks at the drainer's position only on a slow put, at least
 * every sixteenth of the ring, at the wrap and when the ring looks full:
 * one that finds the ring a quarter full or more wakes the drainer through
 * its eventfd, once for each pass of the drainer.
 *
 * Growth. A slow put that finds the ring half full (the drainer has not
 * kept up) gives the thread a ring twice the size, up to 32 times the
 * session's and at most 8 MiB (npf_grow()): the full one is retired to
 * the thread's list of old rings, which the drain reads, oldest first,
 * before the thread's ring, and frees once read, so the thread's order
 * stays. The switch takes npf_reg_lock only with a trylock (the drainer
 * holds the lock while it reads rings, the grace period while it waits
 * for writers): a span never waits; a busy lock means another try at the
 * next slow put. The grown ring stays for the rest of the session; the
 * next session starts at its own size. A thread whose drain keeps up
 * never grows.
 *
 * Grace. Turning spans off is followed by a grace period, as in userspace
 * RCU: membarrier() (or a full fence on the thread side where membarrier
 * is not available) orders every writer's @in_write store before its
 * check of the key, then the drainer waits for each @in_write to clear.
 * After it, no thread writes a span of the old key, so the final drain
 * loses nothing silently.
 *
 * Locking and lifetime. npf_reg_lock protects the registry, the attached
 * owner and each thread's registration; the drainer holds it while it
 * reads buffers, and a thread takes it only at its first span of a key
 * and at exit, and tries it to grow its ring. A struct npf_thread lives
 * until its thread exits (pthread key destructor) and its buffers have
 * been drained; an exited thread's buffers are freed by the drain that
 * empties them, or at once when no session is attached.
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
 * A ring a quarter full wakes the drainer: the other three quarters are
 * what a thread may write while the drainer is scheduled (about 0.35 ms
 * at 10 M spans/s in a 256 KiB buffer).
 */
#define NPF_WAKE_AT(size)	((size) / 4)
/* a thread looks at the drainer's position at least every this much */
#define NPF_CHECK_EVERY(size)	((size) / 16)
/*
 * A ring found half full on a slow put is replaced by one twice its size
 * (npf_grow()), up to NPF_GROW_TIMES the session's size and at most
 * NPF_GROW_MAX: the default 256 KiB grows to 8 MiB; a session's size of
 * 8 MiB or more never grows.
 */
#define NPF_GROW_TIMES		32u
#define NPF_GROW_MAX		(8u << 20)

/* s->on of a span begun for a USDT probe with no session recording */
#define NPF_KEY_PROBE		1u
/* s->on of a span stamped with the TSC: its key with this bit set */
#define NPF_ON_TSC		(1u << 30)
/* generations: keys (gen * 2 + 1) stay below NPF_ON_TSC */
#define NPF_GEN_MASK		((1u << 28) - 1)

/*
 * A ring the thread grew out of (npf_grow()), kept until the drain has
 * read it: the thread writes it no more.
 */
struct npf_old_ring {
	struct npf_iring ring;
	struct npf_old_ring *next;	/* the next newer one */
};

struct npf_label {
	struct npuprof_span span;
	uint32_t len;
	char text[NPF_LABEL_MAX + 1];
};

struct npf_thread {
	/*
	 * the span path, one cache line the owning thread writes; the
	 * drainer reads none of it but @in_write, and only in the grace
	 */
	uint64_t limit;			/* ring.head may grow to this */
	uint8_t *data;			/* ring.data */
	uint32_t mask;			/* ring.size - 1 */
	uint32_t key;			/* registered with this key; 0: none */
	uint64_t next_id;		/* next span id */
	uint64_t label_parent;		/* innermost open region's id, if on */
	int32_t pid;			/* pid then tid: struct npuprof_span_rec's */
	int32_t tid;
	int in_write;			/* inside the span write */
	unsigned int nlabels;
	/* the producer's, on slow puts */
	uint64_t wake_tail;		/* ring.tail when it last woke the drainer */
	/* past the span path's line: the drainer reads it every drain */
	uint64_t lost;			/* spans dropped */
	struct npf_label *labels;	/* NPF_MAX_LABELS, on first use */
	uint32_t grow_max;		/* the ring grows up to this */
	/* the producer writes head, the drainer tail (under npf_reg_lock) */
	struct npf_iring ring;
	/* under npf_reg_lock */
	struct npf_old_ring *old;	/* rings grown out of, oldest first */
	uint64_t lost_seen;
	uint64_t serial;		/* attach registered with */
	bool dead;			/* the thread exited */
	struct npf_thread *next;
} __attribute__((aligned(64)));

_Static_assert(offsetof(struct npf_thread, wake_tail) < 64 &&
	       offsetof(struct npf_thread, lost) >= 64,
	       "the span path fills one line, @lost is on the next");

/*
 * What every span reads, on a cache line no thread writes (only attach,
 * pause, resume and detach do, under npf_reg_lock).
 */
static struct {
	uint32_t key_rec;		/* the recording key, 0: none */
	uint32_t key_user;		/* the same, | NPF_ON_TSC for the TSC */
	uint64_t trace_hi;		/* trace_id[0] of this process's traces */
	bool membarrier;		/* registered for membarrier() */
	uint8_t pad_[40];		/* the line to itself */
} npf_hot __attribute__((aligned(64)));

_Static_assert(sizeof(npf_hot) == 64, "npf_hot is one cache line");

/* Read inline by npuprof_span_begin(): spans are being captured. */
NPUPROF_EXPORT int npuprof_spans_on;

/* Raised by tracers while npuprof:record_* is attached (npuprof_usdt.h). */
unsigned short npuprof_probes_semaphore __attribute__((section(".probes")));

static uint32_t npf_gen;			/* under npf_reg_lock */
static pthread_mutex_t npf_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npf_thread *npf_threads;		/* under npf_reg_lock */
static const void *npf_owner;			/* under npf_reg_lock */
static uint64_t npf_serial;			/* under npf_reg_lock */
static uint32_t npf_buf_bytes;			/* under npf_reg_lock */
static bool npf_tsc;				/* under npf_reg_lock */
static int npf_wake_fd = -1;			/* eventfd of the drainer */
static uint32_t npf_next_tindex;
static uint32_t npf_next_string;
/* a sample taken at attach, to place spans that do not pack (TSC mode) */
static uint64_t npf_tsc_base_ns, npf_tsc_base_tick;
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
	if (!npf_hot.trace_hi)
		npf_hot.trace_hi = r;
	pthread_mutex_unlock(&npf_reg_lock);
	if (syscall(SYS_membarrier,
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		npf_hot.membarrier = true;
	pthread_atfork(NULL, NULL, npf_spans_atfork_child);
}

static struct npf_thread *npf_thread_get(void)
{
	struct npf_thread *t = npf_self;
	uint32_t idx;

	if (npf_likely(t))
		return t;
	pthread_once(&npf_once, npf_init_once);
	t = aligned_alloc(_Alignof(struct npf_thread), sizeof(*t));
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
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

/* Free the oldest ring @t grew out of; under npf_reg_lock. */
static void npf_free_oldest(struct npf_thread *t)
{
	struct npf_old_ring *o = t->old;

	t->old = o->next;
	npf_iring_fini(&o->ring);
	free(o);
}

/* Free the rings @t grew out of; under npf_reg_lock. */
static void npf_free_old(struct npf_thread *t)
{
	while (t->old)
		npf_free_oldest(t);
}

static void npf_unlink(struct npf_thread *t)
{
	struct npf_thread **pp;

	for (pp = &npf_threads; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	npf_free_old(t);
	npf_iring_fini(&t->ring);
	free(t->labels);
	free(t);
}

static void npf_thread_exit(void *arg)
{
	struct npf_thread *t = arg;

	pthread_mutex_lock(&npf_reg_lock);
	if (npf_owner && t->serial == npf_serial &&
	    (npf_iring_used(&t->ring) || t->old))
		t->dead = true;		/* the next drain frees it */
	else
		npf_unlink(t);
	pthread_mutex_unlock(&npf_reg_lock);
	npf_self = NULL;
}

/*
 * The position the thread may write up to without looking at the
 * drainer's, from @tail as last seen: the ring's wrap, its end seen from
 * @tail, and the next look (NPF_CHECK_EVERY), whichever comes first.
 */
static void npf_set_limit(struct npf_thread *t, uint64_t tail)
{
	uint64_t head = t->ring.head, size = (uint64_t)t->mask + 1;
	uint64_t lim = (head | t->mask) + 1;

	if (lim > tail + size)
		lim = tail + size;
	if (lim > head + NPF_CHECK_EVERY(size))
		lim = head + NPF_CHECK_EVERY(size);
	t->limit = lim;
}

/*
 * Replace the thread's ring, half full, by one twice its size: the old
 * one goes to the end of @t->old, where the drain reads it before the new
 * one, so the thread's order stays. Only if npf_reg_lock is free at once:
 * a span never waits for the drainer (nor for a grace period, which holds
 * the lock while it waits for this thread); the next slow put tries
 * again. Under the lock the drainer is not reading the ring it moves.
 * Returns whether the ring grew.
 */
static bool npf_grow(struct npf_thread *t)
{
	struct npf_old_ring *o, **pp;
	struct npf_iring nr;

	if (pthread_mutex_trylock(&npf_reg_lock))
		return false;
	o = malloc(sizeof(*o));
	if (!o || npf_iring_init(&nr, t->ring.size * 2)) {
		pthread_mutex_unlock(&npf_reg_lock);
		free(o);
		return false;
	}
	o->ring = t->ring;
	o->next = NULL;
	for (pp = &t->old; *pp; pp = &(*pp)->next)
		;
	*pp = o;
	t->ring = nr;
	t->data = nr.data;
	t->mask = nr.size - 1;
	t->wake_tail = UINT64_MAX;
	pthread_mutex_unlock(&npf_reg_lock);
	return true;
}

/*
 * Put one item in the thread's ring; false (and counted) when full. The
 * slow put: it reads the drainer's position, grows a ring it finds half
 * full (npf_grow()), wakes the drainer when the ring is a quarter full
 * (once a pass of the drainer: its position moved since the last
 * wake-up) and sets the thread's next limit.
 */
static __attribute__((noinline)) bool
npf_put(struct npf_thread *t, uint16_t type, const void *a, size_t alen,
	const void *b, size_t blen)
{
	struct npf_iring *r = &t->ring;
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	bool ok;

	if (npf_unlikely(r->head - tail >= r->size / 2) &&
	    r->size < t->grow_max && npf_grow(t))
		tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	ok = !npf_iring_put(r, type, a, alen, b, blen);

	if (npf_unlikely(!ok))
		__atomic_store_n(&t->lost, t->lost + 1, __ATOMIC_RELAXED);
	if (r->head - tail >= NPF_WAKE_AT(r->size) && tail != t->wake_tail) {
		int fd = __atomic_load_n(&npf_wake_fd, __ATOMIC_RELAXED);
		uint64_t one = 1;

		t->wake_tail = tail;
		if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
			(void)0;
	}
	npf_set_limit(t, tail);
	return ok;
}

_Static_assert(sizeof(struct npuprof_span_rec) % 8 == 0,
	       "a SPAN item needs no padding");

/*
 * A span as the hot path puts it in the thread's ring, absolute: the
 * drain packs runs of them into SPANS items, or writes a SPAN item for one
 * that does not pack. The ring's own item types, never in a file: the
 * type says the clock.
 */
#define NPF_RING_SPAN_MONO	0x8000
#define NPF_RING_SPAN_TSC	0x8001

struct npf_ring_span {
	/* struct npuprof_span_rec's first 8 bytes (npf_ring_word()) */
	uint16_t kind;
	uint16_t flags;
	uint32_t name_id;		/* op_index with NPUPROF_SPAN_F_OP */
	uint64_t start;
	uint64_t end;
	uint64_t span_id;
	uint64_t parent_id;
	uint64_t root_id;		/* trace_id[1]; trace_id[0] is trace_hi */
};

#define NPF_RING_SPAN_LEN	(sizeof(struct npf_item) + \
				 sizeof(struct npf_ring_span))

_Static_assert(sizeof(struct npf_ring_span) % 8 == 0,
	       "a ring span needs no padding");
_Static_assert(offsetof(struct npuprof_span_rec, flags) == 2 &&
	       offsetof(struct npuprof_span_rec, name_id) == 4 &&
	       offsetof(struct npuprof_span_rec, tid) ==
	       offsetof(struct npuprof_span_rec, pid) + 4,
	       "kind, flags and name_id are copied as one word");

/* Flags of spans that go in the ring as SPAN items (their job fields) */
#define NPF_RING_NOT_FLAGS	(NPUPROF_SPAN_F_JOB | NPUPROF_SPAN_F_MODEL)

/*
 * Whether span @r goes in the ring as a struct npf_ring_span: not a job's,
 * of this process's trace, and a CPU operator's only when its name_id is
 * 0 (its op_index takes that place).
 */
static inline bool npf_ring_span_ok(const struct npuprof_span_rec *r)
{
	return !(r->flags & NPF_RING_NOT_FLAGS) &&
	       !((r->flags & NPUPROF_SPAN_F_OP) && r->name_id) &&
	       r->trace_id[0] == npf_hot.trace_hi;
}

/*
 * A ring span's first word: @r's kind, flags and name_id, a CPU
 * operator's op_index in name_id's place (the drain puts it back).
 */
static inline uint64_t npf_ring_word(const struct npuprof_span_rec *r)
{
	uint64_t w;

	memcpy(&w, r, 8);
	if (r->flags & NPUPROF_SPAN_F_OP)
		w |= (uint64_t)r->op_index << 32;
	return w;
}

/* The item header of a ring span (struct npf_item, as one word). */
#define NPF_RING_SPAN_HDR(type)	((uint64_t)(type) | \
				 ((uint64_t)NPF_RING_SPAN_LEN << 32))

/* A ring span through npf_put(): the ring is past the thread's limit. */
static __attribute__((noinline)) bool
npf_put_ring_span_slow(struct npf_thread *t,
		       const struct npuprof_span_rec *rec, bool tsc)
{
	struct npf_ring_span b = {
		.start = rec->start_ns, .end = rec->end_ns,
		.span_id = rec->span_id, .parent_id = rec->parent_id,
		.root_id = rec->trace_id[1],
	};
	uint64_t w = npf_ring_word(rec);

	memcpy(&b, &w, 8);
	return npf_put(t, tsc ? NPF_RING_SPAN_TSC : NPF_RING_SPAN_MONO, &b,
		       sizeof(b), NULL, 0);
}

_Static_assert(offsetof(struct npf_ring_span, start) == 8 &&
	       offsetof(struct npf_ring_span, root_id) == 40 &&
	       offsetof(struct npuprof_span_rec, end_ns) ==
	       offsetof(struct npuprof_span_rec, start_ns) + 8 &&
	       offsetof(struct npuprof_span_rec, span_id) ==
	       offsetof(struct npuprof_span_rec, start_ns) + 16 &&
	       offsetof(struct npuprof_span_rec, parent_id) ==
	       offsetof(struct npuprof_span_rec, start_ns) + 24,
	       "a ring span is copied in three runs");

/*
 * CLOCK_MONOTONIC ns of TSC value @tick, from the sample taken at attach
 * and one taken now: for the few TSC-stamped spans that do not pack,
 * written as SPAN items in ns. The error is the rate's over the span's
 * distance from now, a few ns for a span of a millisecond; packed spans
 * are mapped by the reader's fit.
 */
static uint64_t npf_tsc_to_ns(uint64_t tick, uint64_t now_ns, uint64_t now_tick)
{
	double rate = now_tick > npf_tsc_base_tick ?
		(double)(now_ns - npf_tsc_base_ns) /
		(double)(now_tick - npf_tsc_base_tick) : 0.0;

	return now_ns - (uint64_t)((double)(now_tick - tick) * rate);
}

/*
 * A span that is not a ring span (npf_ring_span_ok(): a job's or a
 * model's, one of a foreign trace, a CPU operator's with a name_id) as a
 * SPAN item, in ns.
 */
static __attribute__((noinline)) bool
npf_put_span_item(struct npf_thread *t, struct npuprof_span_rec *rec,
		  bool tsc)
{
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
 * Register @t with the attached session under key @k: the thread's first
 * span of a key. Allocates the ring on first use, and in a new session
 * when the ring's size is not the session's (another size, or grown in a
 * session before: each session starts at its own size); a ring grown in
 * this session is kept across a pause. Returns false when no session
 * records under @k (any more), or memory is short.
 */
static bool npf_register(struct npf_thread *t, uint32_t k)
{
	struct npf_item_thread ti;
	bool ok = false;

	pthread_mutex_lock(&npf_reg_lock);
	if (!npf_owner || __atomic_load_n(&npf_hot.key_rec,
					  __ATOMIC_RELAXED) != k)
		goto out;
	if (t->serial != npf_serial)
		npf_free_old(t);	/* a session before's, unread */
	if (!t->ring.data ||
	    (t->serial != npf_serial && t->ring.size != npf_buf_bytes)) {
		npf_iring_fini(&t->ring);
		if (npf_iring_init(&t->ring, npf_buf_bytes))
			goto out;
		/*
		 * faulted in here, at the thread's first span, and not one
		 * page every 73 spans while a short session is measured
		 */
		npf_iring_prefault(&t->ring);
		t->data = t->ring.data;
		t->mask = t->ring.size - 1;
		t->limit = 0;		/* the first put is a slow one */
		t->lost = 0;
		t->lost_seen = 0;
	}
	if (t->serial != npf_serial) {
		/* a new session: it gets the thread's name first */
		t->serial = npf_serial;
		t->ring.tail = t->ring.head;
		t->lost_seen = t->lost;
		t->wake_tail = UINT64_MAX;
		t->limit = 0;		/* the first put is a slow one */
		memset(&ti, 0, sizeof(ti));
		ti.pid = t->pid;
		ti.tid = t->tid;
		prctl(PR_GET_NAME, ti.name, 0, 0, 0);
		ti.name[sizeof(ti.name) - 1] = 0;
		npf_put(t, NPF_ITEM_THREAD, &ti, sizeof(ti), NULL, 0);
	}
	t->grow_max = npf_buf_bytes < NPF_GROW_MAX / NPF_GROW_TIMES ?
		npf_buf_bytes * NPF_GROW_TIMES : NPF_GROW_MAX;
	t->key = k;
	ok = true;
out:
	pthread_mutex_unlock(&npf_reg_lock);
	return ok;
}

/*
 * The end of a span whose key the thread is not registered with: one
 * begun for a USDT probe alone (nothing to record), the thread's first
 * span of a key, a thread without its state yet. Returns the thread to
 * write the span with, or NULL.
 */
static __attribute__((noinline)) struct npf_thread *
npf_end_register(struct npf_thread *t, uint32_t k)
{
	if (k == NPF_KEY_PROBE)
		return NULL;
	if (!t) {
		t = npf_thread_get();
		if (!t)
			return NULL;
	}
	return t->key == k || npf_register(t, k) ? t : NULL;
}

/* A label's STRING then its span, both or neither. */
static __attribute__((noinline)) void
npf_put_label(struct npf_thread *t, struct npuprof_span_rec *rec, bool tsc,
	      const char *text, uint32_t len)
{
	struct npf_item_string st = {
		.id = __atomic_add_fetch(&npf_next_string, 1,
					 __ATOMIC_RELAXED),
		.len = len,
	};
	bool ok;

	rec->name_id = st.id;
	if (!npf_put(t, NPF_ITEM_STRING, &st, sizeof(st), text, len + 1))
		return;
	ok = npf_ring_span_ok(rec) ? npf_put_ring_span_slow(t, rec, tsc) :
		npf_put_span_item(t, rec, tsc);
	if (!ok)
		rec->name_id = 0;
}

/*
 * Enter the span write: from here until npf_write_done() the drainer's
 * grace period waits for the thread. Then whether @k is still the
 * recording key.
 */
static inline bool npf_write_enter(struct npf_thread *t, uint32_t k)
{
	__atomic_store_n(&t->in_write, 1, __ATOMIC_RELAXED);
	if (npf_likely(npf_hot.membarrier))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return npf_likely(__atomic_load_n(&npf_hot.key_rec,
					  __ATOMIC_RELAXED) == k);
}

static inline void npf_write_done(struct npf_thread *t)
{
	__atomic_store_n(&t->in_write, 0, __ATOMIC_RELEASE);
}

/* The span write's slow puts, out of line: they end the write. */
static __attribute__((noinline)) void
npf_write_slow(struct npf_thread *t, struct npuprof_span_rec *rec, bool tsc)
{
	if (npf_ring_span_ok(rec))
		npf_put_ring_span_slow(t, rec, tsc);
	else
		npf_put_span_item(t, rec, tsc);
	npf_write_done(t);
}

/*
 * Write span @rec (its end just stamped), with the TSC when @tsc, to thread @t
 * registered with its key @k, if @k is still the recording key: in the
 * thread's limit, one ring span stored in place.
 */
static inline __attribute__((always_inline)) void
npf_write(struct npf_thread *t, struct npuprof_span_rec *rec, uint32_t k,
	  bool tsc)
{
	uint64_t head, hdr = tsc ? NPF_RING_SPAN_HDR(NPF_RING_SPAN_TSC) :
		NPF_RING_SPAN_HDR(NPF_RING_SPAN_MONO);
	uint64_t w, start, end = rec->end_ns, ids[2], root;
	uint8_t *p;

	if (!npf_write_enter(t, k))
		goto out;
	head = t->ring.head;
	memcpy(&w, rec, 8);
	if (npf_unlikely((rec->flags & NPF_SPANS_NOT_FLAGS) ||
			 rec->trace_id[0] != npf_hot.trace_hi ||
			 head + NPF_RING_SPAN_LEN > t->limit)) {
		/* a CPU operator's span still goes in, in the limit */
		if (!npf_ring_span_ok(rec) ||
		    head + NPF_RING_SPAN_LEN > t->limit) {
			npf_write_slow(t, rec, tsc);
			return;
		}
		w = npf_ring_word(rec);
	}
	p = t->data + ((uint32_t)head & t->mask);
	/*
	 * kind, flags, name_id; start, end (from its register: a load
	 * across the store just made would wait for it), span_id and
	 * parent_id; the root
	 */
	memcpy(&start, &rec->start_ns, 8);
	memcpy(ids, &rec->span_id, 16);
	memcpy(&root, &rec->trace_id[1], 8);
	memcpy(p, &hdr, 8);
	memcpy(p + 8, &w, 8);
	memcpy(p + 16, &start, 8);
	memcpy(p + 24, &end, 8);
	memcpy(p + 32, ids, 16);
	memcpy(p + 48, &root, 8);
	__atomic_store_n(&t->ring.head, head + NPF_RING_SPAN_LEN,
			 __ATOMIC_RELEASE);
out:
	npf_write_done(t);
}

/*
 * The end of a span the thread is not registered for (see
 * npf_end_register()), its end already stamped.
 */
static __attribute__((noinline)) void
npf_end_first(struct npuprof_span_rec *rec, uint32_t key)
{
	uint32_t k = key & ~NPF_ON_TSC;
	struct npf_thread *t = npf_end_register(npf_self, k);

	if (t)
		npf_write(t, rec, k, key & NPF_ON_TSC);
}

/* The end of a span stamped with CLOCK_MONOTONIC. */
static __attribute__((noinline)) void
npf_end_mono(struct npuprof_span_rec *rec, uint32_t key)
{
	struct npf_thread *t = npf_self;

	rec->end_ns = npf_now_ns();
	/* a span begun for a USDT probe alone: its end time only */
	if (key == NPF_KEY_PROBE)
		return;
	if (npf_unlikely(!t || t->key != key))
		npf_end_first(rec, key);
	else
		npf_write(t, rec, key, false);
}

/* The end of region @l: its label's STRING, then its span. */
static void npf_end_label(struct npf_label *l)
{
	uint32_t key = (uint32_t)l->span.on;
	uint32_t k = key & ~NPF_ON_TSC;
	bool tsc = key & NPF_ON_TSC;
	struct npf_thread *t;

	l->span.rec.end_ns = tsc ? npf_rdtsc() : npf_now_ns();
	t = npf_end_register(npf_self, k);
	if (!t)
		return;
	if (npf_write_enter(t, k))
		npf_put_label(t, &l->span.rec, tsc, l->text, l->len);
	npf_write_done(t);
}

/* The begin of a span stamped with CLOCK_MONOTONIC, key @key. */
static __attribute__((noinline)) void
npf_begin_mono(struct npuprof_span *s, uint32_t key)
{
	s->rec.start_ns = npf_now_ns();
	s->on = (int)key;
}

/*
 * Begin span @s on thread @t (npuprof_span_begin_slow()); with @shared
 * (a constant), at @at when it is a stamp of @s's key.
 */
static inline __attribute__((always_inline)) void
npf_begin(struct npf_thread *t, struct npuprof_span *s, unsigned int kind,
	  const struct npuprof_span *parent, bool shared,
	  struct npuprof_stamp at)
{
	uint64_t id = t->next_id++, w = (uint16_t)kind;	/* flags, name 0 */
	/* the recording key, or NPF_KEY_PROBE: never 0 */
	uint32_t key = (kind == NPUPROF_SPAN_USER ?
			__atomic_load_n(&npf_hot.key_user, __ATOMIC_RELAXED) :
			__atomic_load_n(&npf_hot.key_rec, __ATOMIC_RELAXED)) |
		NPF_KEY_PROBE;

	/*
	 * Only what every span needs: job_id, op_index and minor are read
	 * with their flag only
	 */
	memcpy(&s->rec, &w, 8);
	memcpy(&s->rec.pid, &t->pid, 8);
	s->rec.span_id = id;
	if (parent && parent->on) {
		s->rec.parent_id = parent->rec.span_id;
		s->rec.trace_id[0] = parent->rec.trace_id[0];
		s->rec.trace_id[1] = parent->rec.trace_id[1];
	} else {
		s->rec.parent_id = t->label_parent;
		s->rec.trace_id[0] = npf_hot.trace_hi;
		s->rec.trace_id[1] = id;
	}
	/* a time of the same session and clock: no clock read */
	if (shared && at.key == key) {
		s->rec.start_ns = at.t;
		s->on = (int)key;
		return;
	}
	/* a program's own spans: the TSC when the session chose it */
	if (npf_unlikely(!(key & NPF_ON_TSC))) {
		npf_begin_mono(s, key);
		return;
	}
	s->rec.start_ns = npf_rdtsc();
	s->on = (int)key;
}

/* The begin of a thread's first span: its state first. */
static __attribute__((noinline)) void
npf_begin_first(struct npuprof_span *s, unsigned int kind,
		const struct npuprof_span *parent, struct npuprof_stamp at)
{
	struct npf_thread *t = npf_thread_get();

	if (t)
		npf_begin(t, s, kind, parent, true, at);
	else
		s->on = 0;
}

NPUPROF_EXPORT
void npuprof_span_begin_slow(struct npuprof_span *s, unsigned int kind,
			     const struct npuprof_span *parent)
{
	static const struct npuprof_stamp none;
	struct npf_thread *t = npf_self;

	if (npf_unlikely(!t))
		npf_begin_first(s, kind, parent, none);
	else
		npf_begin(t, s, kind, parent, false, none);
}

NPUPROF_EXPORT
void npuprof_span_begin_at_slow(struct npuprof_span *s, unsigned int kind,
				const struct npuprof_span *parent,
				struct npuprof_stamp at)
{
	struct npf_thread *t = npf_self;

	if (npf_unlikely(!t))
		npf_begin_first(s, kind, parent, at);
	else
		npf_begin(t, s, kind, parent, true, at);
}

NPUPROF_EXPORT
void npuprof_span_end_slow(struct npuprof_span *s)
{
	uint32_t key = (uint32_t)s->on;
	struct npf_thread *t = npf_self;

	s->on = 0;
	if (npf_unlikely(!(key & NPF_ON_TSC))) {
		npf_end_mono(&s->rec, key);
		return;
	}
	s->rec.end_ns = npf_rdtsc();
	if (npf_unlikely(!t || t->key != (key & ~NPF_ON_TSC))) {
		npf_end_first(&s->rec, key);
		return;
	}
	npf_write(t, &s->rec, key & ~NPF_ON_TSC, true);
}

NPUPROF_EXPORT
struct npuprof_stamp npuprof_span_end_at_slow(struct npuprof_span *s,
					      struct npuprof_stamp at)
{
	uint32_t key = (uint32_t)s->on;
	uint32_t k = key & ~NPF_ON_TSC;
	struct npf_thread *t = npf_self;
	struct npuprof_stamp end = { 0, key };

	if (!key)
		return end;
	s->on = 0;
	/* a time of the same session and clock, not before the start */
	if (at.key == key && at.t >= s->rec.start_ns)
		end.t = at.t;
	else
		end.t = key & NPF_ON_TSC ? npf_rdtsc() : npf_now_ns();
	s->rec.end_ns = end.t;
	/* a span begun for a USDT probe alone: its end time only */
	if (key == NPF_KEY_PROBE)
		return end;
	if (npf_unlikely(!t || t->key != k))
		npf_end_first(&s->rec, key);
	else
		npf_write(t, &s->rec, k, key & NPF_ON_TSC);
	return end;
}

/* The parent of the thread's spans begun without one. */
static void npf_label_parent(struct npf_thread *t)
{
	const struct npf_label *l = t->nlabels ?
		&t->labels[t->nlabels - 1] : NULL;

	t->label_parent = l && l->span.on ? l->span.rec.span_id : 0;
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
	npf_label_parent(t);
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
	npf_label_parent(t);
	if (l->span.on) {
		npf_end_label(l);
		NPU_USDT_RECORD(region_end, &l->span.rec, l->text);
	}
	l->span.on = 0;
	return 0;
}

/* Wait until no thread is inside a span write (see the file header). */
static void npf_grace(void)
{
	struct npf_thread *t;

	if (npf_hot.membarrier)
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

/*
 * A new generation, and the keys spans read: recording (@on) or not;
 * under npf_reg_lock.
 */
static void npf_set_keys(bool on)
{
	uint32_t k;

	npf_gen = (npf_gen + 1) & NPF_GEN_MASK;
	if (!npf_gen)
		npf_gen = 1;
	k = on ? npf_gen * 2 + 1 : 0;
	__atomic_store_n(&npf_hot.key_rec, k, __ATOMIC_RELAXED);
	__atomic_store_n(&npf_hot.key_user, k && npf_tsc ? k | NPF_ON_TSC : k,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&npuprof_spans_on, on ? 1 : 0, __ATOMIC_RELEASE);
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
	__atomic_store_n(&npf_hot.trace_hi, r, __ATOMIC_RELAXED);
	if (tsc) {
		npf_tsc_base_ns = npf_now_ns();
		npf_tsc_base_tick = npf_rdtsc();
	}
	npf_tsc = tsc;
	npf_set_keys(true);
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
	npf_set_keys(!off);
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
	npf_set_keys(false);
	pthread_mutex_unlock(&npf_reg_lock);
	npf_grace();
	pthread_mutex_lock(&npf_reg_lock);
	npf_owner = NULL;
	npf_tsc = false;
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
 * NPF_SPANS_MAX spans, well inside a chunk and the session's stage. It
 * is built in the sink's memory when the sink gives room (the session's
 * stage), else in npf_pack.
 */
#define NPF_SPANS_MAX	2048
/* the least room worth packing in place */
#define NPF_SPANS_MIN_IN_PLACE	256

static struct {
	struct npf_item_spans hdr;
	struct npf_span_c c[NPF_SPANS_MAX];
} npf_pack;

/**
 * struct npf_packer - the SPANS item being packed
 * @h: its header; NULL: none begun
 * @cap: spans it may hold
 * @in_place: in the sink's memory (npf_span_sink.reserve)
 * @time: start of its last span
 * @id: id of its last span
 * @pending: ring bytes it (and pads among them) came from
 */
struct npf_packer {
	struct npf_item_spans *h;
	uint32_t cap;
	bool in_place;
	uint64_t time;
	uint64_t id;
	uint32_t pending;
};

_Static_assert(offsetof(struct npf_span_c, flags) ==
	       offsetof(struct npf_span_c, kind) + 1 &&
	       offsetof(struct npf_span_c, name_id) ==
	       offsetof(struct npf_span_c, kind) + 4 &&
	       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "a packed span's kind, flags and name_id are one word");

/*
 * Whether ring span @sp cannot pack even alone, from its first word: a
 * kind or flags past 8 bits, or a flag SPANS never has (a CPU
 * operator's). npf_pack_run() refuses the same and more (a delta past 32
 * bits); this spares such a span a SPANS item begun and abandoned.
 */
static inline bool npf_never_packs(const struct npf_ring_span *sp)
{
	return (sp->flags & NPF_SPANS_NOT_FLAGS) || (sp->kind | sp->flags) >> 8;
}

/* Begin a SPANS item of thread @t with the first span @sp, clock @clock. */
static void npf_pack_begin(struct npf_packer *pk, const struct npf_thread *t,
			   const struct npf_span_sink *sink,
			   const struct npf_ring_span *sp, uint32_t clock)
{
	const uint32_t hs = sizeof(struct npf_item_spans);
	const uint32_t cs = sizeof(struct npf_span_c);
	uint32_t room = 0;
	void *p = sink->reserve ?
		sink->reserve(sink->ctx, hs + NPF_SPANS_MIN_IN_PLACE * cs,
			      hs + NPF_SPANS_MAX * cs, &room) : NULL;

	pk->in_place = p;
	pk->h = p ? p : &npf_pack.hdr;
	pk->cap = p ? (room - hs) / cs : NPF_SPANS_MAX;
	pk->h->pid = t->pid;
	pk->h->tid = t->tid;
	pk->h->count = 0;
	pk->h->clock = clock;
	pk->h->time = pk->time = sp->start;
	pk->h->span_id = pk->id = sp->span_id;
	pk->h->trace_hi = npf_hot.trace_hi;
}

/*
 * Pack the ring spans of clock @type at @p (@len contiguous bytes of the
 * ring) into the item being packed, while they fit it: up to an item of
 * another kind, another clock, a span that does not fit the packed form
 * or a delta past 32 bits, or a full item. Returns the spans packed.
 */
static uint32_t npf_pack_run(struct npf_packer *pk, const uint8_t *p,
			     uint32_t len, uint16_t type)
{
	const uint64_t want = NPF_RING_SPAN_HDR(type);
	struct npf_item_spans *h = pk->h;
	struct npf_span_c *c = (struct npf_span_c *)(h + 1) + h->count;
	uint32_t n = 0, room = pk->cap - h->count;
	uint64_t time = pk->time, id = pk->id;

	if (len / NPF_RING_SPAN_LEN < room)
		room = len / NPF_RING_SPAN_LEN;
	for (; n < room; n++, c++, p += NPF_RING_SPAN_LEN) {
		const struct npf_ring_span *sp = (const void *)(p + 8);
		uint64_t hw, w, dt, di, dur, tb, pb;

		memcpy(&hw, p, 8);
		if (hw != want)
			break;
		/* kind, flags and name_id as one word (little-endian) */
		memcpy(&w, sp, 8);
		/* unsigned differences: one that would be negative wraps */
		dt = sp->start - time + 0x80000000u;
		di = sp->span_id - id + 0x80000000u;
		dur = sp->end - sp->start;
		tb = sp->span_id - sp->root_id;
		pb = sp->parent_id ? sp->span_id - sp->parent_id : 0;
		/* a kind or flags past 8 bits, a flag SPANS never has */
		if (npf_unlikely(((dt | di | dur | tb) >> 32) |
				 (w & (0xff00ff00ull |
				       (uint64_t)NPF_SPANS_NOT_FLAGS << 16)) |
				 (sp->parent_id && pb - 1 >= UINT32_MAX)))
			break;
		c->start_delta = (int32_t)(uint32_t)(dt - 0x80000000u);
		c->dur = (uint32_t)dur;
		c->id_delta = (int32_t)(uint32_t)(di - 0x80000000u);
		c->parent_back = (uint32_t)pb;
		c->trace_back = (uint32_t)tb;
		/* kind, flags, rsvd 0, name_id */
		w = (w & 0xffffffff000000ffull) | ((w >> 8) & 0xff00);
		memcpy(&c->kind, &w, 8);
		time = sp->start;
		id = sp->span_id;
	}
	h->count += n;
	pk->time = time;
	pk->id = id;
	pk->pending += n * NPF_RING_SPAN_LEN;
	return n;
}

/*
 * Write the item being packed; on success ring @r gives back the bytes it
 * came from.
 */
static int npf_pack_flush(struct npf_packer *pk, struct npf_iring *r,
			  const struct npf_span_sink *sink, uint64_t *spans)
{
	struct npf_item_spans *h = pk->h;
	uint32_t len;
	int ret = 0;

	if (h) {
		len = sizeof(*h) + h->count * sizeof(struct npf_span_c);
		if (pk->in_place) {
			sink->commit(sink->ctx, NPF_ITEM_SPANS, len);
		} else {
			ret = sink->item(sink->ctx, NPF_ITEM_SPANS, h, len);
			if (ret) {
				/* left in the ring: packed again next time */
				pk->h = NULL;
				pk->pending = 0;
				return ret;
			}
		}
		*spans += h->count;
		pk->h = NULL;
	}
	npf_iring_release(r, pk->pending);
	pk->pending = 0;
	return 0;
}

/* A clock sample taken once a drain, for ring spans in SPAN items. */
struct npf_drain_now {
	uint64_t ns;
	uint64_t tick;
};

/*
 * Ring span @sp that does not pack, as a SPAN item of thread @t (its
 * times in ns).
 */
static int npf_span_unpacked(struct npf_thread *t,
			     const struct npf_ring_span *sp, uint16_t type,
			     struct npf_drain_now *now,
			     const struct npf_span_sink *sink)
{
	struct npuprof_span_rec rec = {
		.kind = sp->kind, .flags = sp->flags, .name_id = sp->name_id,
		.pid = t->pid, .tid = t->tid,
		.start_ns = sp->start, .end_ns = sp->end,
		.span_id = sp->span_id, .parent_id = sp->parent_id,
		.trace_id = { npf_hot.trace_hi, sp->root_id },
	};

	/* a CPU operator's index rode in name_id's place */
	if (sp->flags & NPUPROF_SPAN_F_OP) {
		rec.op_index = sp->name_id;
		rec.name_id = 0;
	}
	if (type == NPF_RING_SPAN_TSC) {
		if (!now->tick) {
			now->ns = npf_now_ns();
			now->tick = npf_rdtsc();
		}
		rec.start_ns = npf_tsc_to_ns(sp->start, now->ns, now->tick);
		rec.end_ns = npf_tsc_to_ns(sp->end, now->ns, now->tick);
	}
	return sink->item(sink->ctx, NPF_ITEM_SPAN, &rec, sizeof(rec));
}

/*
 * Drain ring @r of thread @t (its ring or one it grew out of) up to its
 * head as read now; under npf_reg_lock. Runs of ring spans become SPANS
 * items; every other item is passed on as it is, in ring order (a label's
 * STRING before its span).
 */
static int npf_drain_ring(struct npf_thread *t, struct npf_iring *r,
			  const struct npf_span_sink *sink, uint64_t *spans)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	struct npf_drain_now now = { 0 };
	struct npf_packer pk = { 0 };
	uint64_t pos;
	int ret = 0;

	while ((pos = r->tail + pk.pending) != head) {
		uint32_t off = (uint32_t)pos & (r->size - 1);
		const struct npf_item *it = (const void *)(r->data + off);
		const struct npf_ring_span *sp = (const void *)(it + 1);
		uint64_t len = head - pos;

		if (npf_likely((it->type & ~1) == NPF_RING_SPAN_MONO)) {
			if (pk.h && pk.h->clock == (it->type & 1u) &&
			    npf_pack_run(&pk, (const uint8_t *)it,
					 len < r->size - off ? (uint32_t)len :
					 r->size - off, it->type))
				continue;
			/* a new item: this span does not fit the last */
			ret = npf_pack_flush(&pk, r, sink, spans);
			if (ret)
				return ret;
			if (npf_likely(!npf_never_packs(sp))) {
				npf_pack_begin(&pk, t, sink, sp, it->type & 1);
				if (npf_pack_run(&pk, (const uint8_t *)it,
						 NPF_RING_SPAN_LEN, it->type))
					continue;
				/*
				 * It does not pack alone: an item begun in
				 * place is left unpublished, for the sink to
				 * reuse.
				 */
				pk.h = NULL;
			}
			/* a SPAN item */
			ret = npf_span_unpacked(t, sp, it->type, &now, sink);
			if (ret)
				return ret;
			(*spans)++;
			npf_iring_release(r, it->size);
		} else if (it->type) {
			ret = npf_pack_flush(&pk, r, sink, spans);
			if (ret)
				return ret;
			ret = sink->item(sink->ctx, it->type, it + 1,
					 it->size - sizeof(*it));
			if (ret)
				return ret;
			if (it->type == NPF_ITEM_SPAN)
				(*spans)++;
			npf_iring_release(r, it->size);
		} else {
			pk.pending += it->size;		/* the pad before the wrap */
		}
	}
	return npf_pack_flush(&pk, r, sink, spans);
}

/*
 * Drain thread @t; under npf_reg_lock. The rings it grew out of first,
 * oldest first, each freed once read (the thread writes them no more),
 * then its ring, then a HOST_LOST item for the spans dropped since the
 * last drain.
 */
static int npf_drain_one(struct npf_thread *t, const struct npf_span_sink *sink,
			 uint64_t *spans, uint64_t *lost)
{
	uint64_t l;
	int ret;

	while (t->old) {
		ret = npf_drain_ring(t, &t->old->ring, sink, spans);
		if (ret)
			return ret;
		npf_free_oldest(t);
	}
	ret = npf_drain_ring(t, &t->ring, sink, spans);
	l = __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
	if (!ret && l != t->lost_seen) {
		struct npf_item_host_lost hl = {
			.pid = t->pid, .tid = t->tid, .count = l - t->lost_seen,
		};

		ret = sink->item(sink->ctx, NPF_ITEM_HOST_LOST, &hl, sizeof(hl));
		if (!ret) {
			*lost += hl.count;
			t->lost_seen = l;
		}
	}
	return ret;
}

int npf_spans_drain(const void *owner, const struct npf_span_sink *sink,
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
		ret = npf_drain_one(t, sink, spans, lost);
		if (!ret && t->dead)
			npf_unlink(t);
	}
	pthread_mutex_unlock(&npf_reg_lock);
	return ret;
}

uint32_t npf_spans_ring_bytes(void)
{
	struct npf_thread *t = npf_self;

	return t ? t->ring.size : 0;
}

void npf_spans_atfork_child(void)
{
	/* only the forking thread exists here; the registry is the parent's */
	pthread_mutex_init(&npf_reg_lock, NULL);
	npf_threads = NULL;
	npf_owner = NULL;
	npf_tsc = false;
	npf_set_keys(false);
	npf_self = NULL;
	pthread_setspecific(npf_key, NULL);
}
