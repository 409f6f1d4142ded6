// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_mem - device memory in the trace rings and the counters: every
 * buffer allocation (and failed one) and every free of a buffer's memory
 * gives a BO_ALLOC or BO_FREE record with its address, size, kind, owner
 * and times, the free when the last holder lets go (the handle, close(),
 * the last munmap(), the last job); a full ring loses them exactly; the
 * device's memory counters (sysfs memory/, netlink in npu_netlink) are
 * exact after a known sequence, and with several processes at once.
 * Documentation/npu/ring.rst and uapi.rst are the contract.
 *
 * Each test expects the device's memory to be unused when it starts (the
 * earlier tests closed their files), and sets clock_period_ms to 0 so
 * that the only CLOCK record of a ring is the one of its enable.
 */

#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#define MEM_DIR		NPU_SYSFS "/memory/"
#define QUOTA		"/sys/module/npu/parameters/max_file_dram_pct"
#define MAX_BO_RECS	4096
#define MiB		(1ull << 20)
#define KiB		(1ull << 10)

/* The BO records of a ring, in ring order. */
struct bo_recs {
	unsigned int n;
	unsigned int others;	/* records of other types */
	struct npu_trace_rec_bo rec[MAX_BO_RECS];
};

static void collect_bo(const struct npu_trace_rec_hdr *h, void *arg)
{
	struct bo_recs *b = arg;

	if (h->type != NPU_TRACE_REC_BO_ALLOC &&
	    h->type != NPU_TRACE_REC_BO_FREE) {
		b->others++;
		return;
	}
	if (b->n < MAX_BO_RECS && h->size >= sizeof(b->rec[0]))
		memcpy(&b->rec[b->n++], h, sizeof(b->rec[0]));
}

/* The device's memory counters, from sysfs. */
struct mem_ctr {
	unsigned long long used, peak, allocs, frees, nomem, quota, free,
			   largest;
};

static int mem_read(struct mem_ctr *c)
{
	return npu_read_u64(MEM_DIR "used", &c->used) ?:
	       npu_read_u64(MEM_DIR "peak", &c->peak) ?:
	       npu_read_u64(MEM_DIR "allocs", &c->allocs) ?:
	       npu_read_u64(MEM_DIR "frees", &c->frees) ?:
	       npu_read_u64(MEM_DIR "failed_nomem", &c->nomem) ?:
	       npu_read_u64(MEM_DIR "failed_quota", &c->quota) ?:
	       npu_read_u64(MEM_DIR "free", &c->free) ?:
	       npu_read_u64(MEM_DIR "largest_free", &c->largest);
}

static int bo_new_kind(int fd, unsigned long long size, uint32_t flags,
		       struct npu_bo_create *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->size = size;
	bo->flags = flags;
	return npu_ioctl(fd, NPU_IOCTL_BO_CREATE, bo);
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

FIXTURE(mem) {
	int fd;
	unsigned long long dram, period, quota;
	struct trace_ring t;
	struct trace_stats st;
	struct bo_recs *r;
};

FIXTURE_SETUP(mem)
{
	struct npu_info info;
	struct mem_ctr c;

	self->fd = -1;
	self->t.fd = -1;
	self->r = calloc(1, sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, trace_param_get("clock_period_ms", &self->period));
	ASSERT_EQ(0, npu_read_u64(QUOTA, &self->quota));
	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	self->dram = info.dram_size;
	ASSERT_EQ(0, mem_read(&c));
	ASSERT_EQ(0, c.used) TH_LOG("device memory in use before the test");
	ASSERT_EQ(self->dram, c.free);
	ASSERT_EQ(self->dram, c.largest);
}

FIXTURE_TEARDOWN(mem)
{
	char v[32];

	trace_close(&self->t);
	if (self->fd >= 0)
		close(self->fd);
	free(self->r);
	trace_param_set("clock_period_ms", self->period);
	snprintf(v, sizeof(v), "%llu", self->quota);
	npu_write_file(QUOTA, v);
}

/* Open and enable a ring of this process with @pages data pages. */
static int ring_on(FIXTURE_DATA(mem) *self, uint32_t flags, uint32_t pages)
{
	int ret = trace_open(self->fd, flags, pages, 0, &self->t);

	return ret ?: trace_enable(&self->t, 0);
}

/* Read the ring into self->r; 0 or -EIO (malformed, seq errors). */
static int ring_read(FIXTURE_DATA(mem) *self)
{
	if (trace_consume(&self->t, &self->st, collect_bo, self->r) < 0 ||
	    self->st.seq_errors)
		return -EIO;
	return 0;
}

/* Index of the record of @type for buffer @id in self->r, or -1. */
static int find_rec(FIXTURE_DATA(mem) *self, uint16_t type, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < self->r->n; i++)
		if (self->r->rec[i].hdr.type == type &&
		    self->r->rec[i].bo_id == id)
			return (int)i;
	return -1;
}

/* The BO_ALLOC record of a buffer just created by this thread. */
static void check_alloc(struct __test_metadata *_metadata,
			const struct npu_trace_rec_bo *b,
			const struct npu_bo_create *bo, uint32_t kind,
			unsigned long long t0, unsigned long long t1)
{
	EXPECT_EQ(NPU_TRACE_REC_BO_ALLOC, b->hdr.type);
	EXPECT_EQ(sizeof(*b), b->hdr.size);
	EXPECT_EQ(getpid(), b->pid);
	EXPECT_EQ(my_tid(), b->tid);
	EXPECT_NE(0, b->bo_id);
	EXPECT_EQ(bo->dev_addr, b->dev_addr);
	EXPECT_EQ(bo->size, b->size);
	EXPECT_EQ(kind, b->kind);
	EXPECT_EQ(0, b->error);
	EXPECT_EQ(0, b->reason);
	EXPECT_LE(t0, b->host_ns);
	EXPECT_GE(t1, b->host_ns);
	EXPECT_EQ(NPU_TRACE_BO_F_TICK, b->flags & NPU_TRACE_BO_F_TICK);
	EXPECT_NE(0, b->dev_tick);
}

/* The BO_FREE record matching BO_ALLOC @a, freed for @reason. */
static void check_free(struct __test_metadata *_metadata,
		       const struct npu_trace_rec_bo *f,
		       const struct npu_trace_rec_bo *a, uint32_t reason)
{
	EXPECT_EQ(NPU_TRACE_REC_BO_FREE, f->hdr.type);
	EXPECT_EQ(a->pid, f->pid);
	EXPECT_EQ(0, f->tid);
	EXPECT_EQ(a->bo_id, f->bo_id);
	EXPECT_EQ(a->dev_addr, f->dev_addr);
	EXPECT_EQ(a->size, f->size);
	EXPECT_EQ(a->kind, f->kind);
	EXPECT_EQ(0, f->error);
	EXPECT_EQ(reason, f->reason);
	EXPECT_LE(a->host_ns, f->host_ns);
	EXPECT_LE(a->dev_tick, f->dev_tick);
}

/* Each kind, and old callers' flags; pairs with the right fields. */
TEST_F(mem, create_free_pairs)
{
	static const struct {
		unsigned long long size;
		uint32_t flags, kind;
	} k[] = {
		{ 4096, 0, NPU_BO_KIND_OTHER },
		{ 5000, NPU_BO_PROGRAM, NPU_BO_KIND_PROGRAM },
		{ 64 * KiB, NPU_BO_KIND(NPU_BO_KIND_PROGRAM),
		  NPU_BO_KIND_PROGRAM },
		{ 12288, NPU_BO_KIND(NPU_BO_KIND_INPUT), NPU_BO_KIND_INPUT },
		{ 3 * 4096, NPU_BO_KIND(NPU_BO_KIND_OUTPUT) | NPU_BO_PROGRAM,
		  NPU_BO_KIND_OUTPUT },
		{ MiB, NPU_BO_KIND(NPU_BO_KIND_SCRATCH), NPU_BO_KIND_SCRATCH },
	};
	struct npu_bo_create bo[6], bad;
	unsigned long long t0, t1, used = 0;
	unsigned int i;

	ASSERT_EQ(0, ring_on(self, 0, 16));
	/* kinds past the last and bits outside the field are refused */
	EXPECT_EQ(-EINVAL, bo_new_kind(self->fd, 4096,
				       NPU_BO_KIND(NPU_BO_KIND_MAX + 1), &bad));
	EXPECT_EQ(-EINVAL, bo_new_kind(self->fd, 4096, 1u << 12, &bad));
	EXPECT_EQ(-EINVAL, bo_new_kind(self->fd, 4096, 1u << 1, &bad));
	t0 = npu_now_ns();
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, bo_new_kind(self->fd, k[i].size, k[i].flags,
					 &bo[i]));
	t1 = npu_now_ns();
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, npu_bo_del(self->fd, bo[i].handle));

	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(12, self->r->n);
	EXPECT_EQ(1, self->r->others);		/* the enable's CLOCK */
	for (i = 0; i < 6; i++) {
		const struct npu_trace_rec_bo *a = &self->r->rec[i];

		check_alloc(_metadata, a, &bo[i], k[i].kind, t0, t1);
		used += a->size;
		EXPECT_EQ(used, a->dev_used);
		if (i)
			EXPECT_EQ(self->r->rec[i - 1].bo_id + 1, a->bo_id);
		check_free(_metadata, &self->r->rec[6 + i], a,
			   NPU_TRACE_BO_FREE_HANDLE);
		EXPECT_LT(self->r->rec[i].hdr.seq, self->r->rec[6 + i].hdr.seq);
	}
	EXPECT_EQ(8192, self->r->rec[1].size);
	EXPECT_EQ(0, self->r->rec[11].dev_used);
}

/* close() frees the handles the file still has. */
TEST_F(mem, free_at_close)
{
	struct npu_bo_create bo[3];
	unsigned int i;
	int fd2;

	ASSERT_EQ(0, ring_on(self, 0, 16));
	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, bo_new_kind(fd2, (i + 1) * 4096,
					 NPU_BO_KIND(NPU_BO_KIND_INPUT),
					 &bo[i]));
	ASSERT_EQ(0, npu_bo_del(fd2, bo[1].handle));
	close(fd2);
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(6, self->r->n);
	for (i = 0; i < 3; i++) {
		int a = find_rec(self, NPU_TRACE_REC_BO_ALLOC,
				 self->r->rec[i].bo_id);
		int f = find_rec(self, NPU_TRACE_REC_BO_FREE,
				 self->r->rec[i].bo_id);

		ASSERT_EQ((int)i, a);
		ASSERT_LT(a, f);
		EXPECT_EQ(bo[i].dev_addr, self->r->rec[a].dev_addr);
		check_free(_metadata, &self->r->rec[f], &self->r->rec[a],
			   i == 1 ? NPU_TRACE_BO_FREE_HANDLE :
				    NPU_TRACE_BO_FREE_CLOSE);
	}
}

/* A mapping holds the memory past BO_FREE and close(), until munmap(). */
TEST_F(mem, free_after_last_unmap)
{
	struct npu_bo_create bo;
	struct mem_ctr c;
	void *p1, *p2;
	int fd2;

	ASSERT_EQ(0, ring_on(self, 0, 16));
	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_new_kind(fd2, 2 * 4096, 0, &bo));
	p1 = npu_bo_map(fd2, &bo);
	ASSERT_NE(NULL, p1);
	p2 = npu_bo_map(fd2, &bo);
	ASSERT_NE(NULL, p2);
	ASSERT_EQ(0, npu_bo_del(fd2, bo.handle));
	close(fd2);
	ASSERT_EQ(0, munmap(p1, bo.size));
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(1, self->r->n);		/* still held by p2 */
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(bo.size, c.used);
	ASSERT_EQ(0, munmap(p2, bo.size));
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(2, self->r->n);
	check_free(_metadata, &self->r->rec[1], &self->r->rec[0],
		   NPU_TRACE_BO_FREE_UNMAP);
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(0, c.used);
}

/* A job holds its buffers past BO_FREE until it completes. */
TEST_F(mem, free_after_job)
{
	struct trace_jobs j;
	struct npu_wait w;
	unsigned long long id;
	struct mem_ctr c;
	unsigned int i;
	int f;

	ASSERT_EQ(0, ring_on(self, 0, 16));
	/* a long job: 100 CLIPs over 1 MiB */
	ASSERT_EQ(0, trace_jobs_init(&j, self->fd, MiB, 100));
	munmap(j.prog_map, j.prog.size);
	munmap(j.in_map, j.in.size);
	munmap(j.out_map, j.out.size);
	ASSERT_EQ(0, trace_job_submit(&j, NPU_PE_ANY, &id));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, npu_bo_del(self->fd, j.h[i]));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(j.prog.size + j.in.size + j.out.size, c.used)
		TH_LOG("the job completed before its buffers were freed");
	ASSERT_EQ(0, npu_wait_job(self->fd, id, 0, 30000000000ll, &w));
	EXPECT_EQ(NPU_JOB_OK, w.result.status);
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(6, self->r->n);
	for (i = 0; i < 3; i++) {
		f = find_rec(self, NPU_TRACE_REC_BO_FREE, self->r->rec[i].bo_id);
		ASSERT_LE(3, f);
		check_free(_metadata, &self->r->rec[f], &self->r->rec[i],
			   NPU_TRACE_BO_FREE_JOB);
		EXPECT_LE(w.result.complete_ns, self->r->rec[f].host_ns);
	}
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(0, c.used);
}

/* EDQUOT and ENOMEM: counted, and recorded with the size asked. */
TEST_F(mem, alloc_failures)
{
	unsigned long long n = self->dram / MiB, i;
	struct npu_bo_create bo;
	struct mem_ctr c0, c;
	const struct npu_trace_rec_bo *b;

	ASSERT_EQ(0, mem_read(&c0));
	ASSERT_EQ(0, npu_write_file(QUOTA, "50"));
	ASSERT_EQ(0, ring_on(self, 0, 64));
	/* over the quota; then larger than the device */
	EXPECT_EQ(-EDQUOT, bo_new_kind(self->fd, self->dram / 2 + 1,
				       NPU_BO_KIND(NPU_BO_KIND_SCRATCH), &bo));
	EXPECT_EQ(-ENOMEM, bo_new_kind(self->fd, self->dram + 4096, 0, &bo));
	/* a full device, with no quota */
	ASSERT_EQ(0, npu_write_file(QUOTA, "0"));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, bo_new_kind(self->fd, MiB, 0, &bo));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(0, c.free);
	EXPECT_EQ(0, c.largest);
	EXPECT_EQ(-ENOMEM, bo_new_kind(self->fd, 4096,
				       NPU_BO_KIND(NPU_BO_KIND_INPUT), &bo));

	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(c0.quota + 1, c.quota);
	EXPECT_EQ(c0.nomem + 2, c.nomem);
	EXPECT_EQ(c0.allocs + n, c.allocs);
	EXPECT_EQ(self->dram, c.used);
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(n + 3, self->r->n);
	b = &self->r->rec[0];
	EXPECT_EQ(NPU_TRACE_REC_BO_ALLOC, b->hdr.type);
	EXPECT_EQ(-EDQUOT, b->error);
	EXPECT_EQ(self->dram / 2 + 4096, b->size);
	EXPECT_EQ(NPU_BO_KIND_SCRATCH, b->kind);
	EXPECT_EQ(0, b->bo_id);
	EXPECT_EQ(0, b->dev_addr);
	EXPECT_EQ(getpid(), b->pid);
	EXPECT_EQ(0, b->dev_used);
	b = &self->r->rec[1];
	EXPECT_EQ(-ENOMEM, b->error);
	EXPECT_EQ(self->dram + 4096, b->size);
	b = &self->r->rec[n + 2];
	EXPECT_EQ(NPU_TRACE_REC_BO_ALLOC, b->hdr.type);
	EXPECT_EQ(-ENOMEM, b->error);
	EXPECT_EQ(4096, b->size);
	EXPECT_EQ(NPU_BO_KIND_INPUT, b->kind);
	EXPECT_EQ(self->dram, b->dev_used);
	for (i = 2; i < n + 2; i++)
		EXPECT_EQ(0, self->r->rec[i].error);
}

/* The counters after a known sequence, fragmentation included. */
TEST_F(mem, counters_exact)
{
	unsigned long long n = self->dram / MiB, i;
	struct npu_bo_create a, b, cc, d, *all;
	struct mem_ctr c0, c;

	ASSERT_EQ(0, mem_read(&c0));
	/* the peak starts again from what is used now: 0 */
	EXPECT_EQ(-EINVAL, npu_write_file(MEM_DIR "peak", "1"));
	ASSERT_EQ(0, npu_write_file(MEM_DIR "peak", "0"));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(0, c.peak);

	ASSERT_EQ(0, bo_new_kind(self->fd, 64 * KiB, 0, &a));
	ASSERT_EQ(0, bo_new_kind(self->fd, 128 * KiB, 0, &b));
	ASSERT_EQ(0, bo_new_kind(self->fd, 256 * KiB - 100, 0, &cc));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(448 * KiB, c.used);
	EXPECT_EQ(self->dram - 448 * KiB, c.free);
	ASSERT_EQ(0, npu_bo_del(self->fd, b.handle));
	ASSERT_EQ(0, bo_new_kind(self->fd, 32 * KiB, 0, &d));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(352 * KiB, c.used);
	EXPECT_EQ(448 * KiB, c.peak);
	ASSERT_EQ(0, npu_bo_del(self->fd, a.handle));
	ASSERT_EQ(0, npu_bo_del(self->fd, cc.handle));
	ASSERT_EQ(0, npu_bo_del(self->fd, d.handle));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(0, c.used);
	EXPECT_EQ(448 * KiB, c.peak);
	EXPECT_EQ(c0.allocs + 4, c.allocs);
	EXPECT_EQ(c0.frees + 4, c.frees);
	EXPECT_EQ(c0.nomem, c.nomem);
	EXPECT_EQ(c0.quota, c.quota);
	EXPECT_EQ(self->dram, c.free);
	EXPECT_EQ(self->dram, c.largest);

	/* every other MiB free: half the device free, 1 MiB the largest */
	ASSERT_EQ(0, npu_write_file(QUOTA, "0"));
	all = calloc(n, sizeof(*all));
	ASSERT_NE(NULL, all);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, bo_new_kind(self->fd, MiB, 0, &all[i]));
	for (i = 0; i < n; i += 2)
		ASSERT_EQ(0, npu_bo_del(self->fd, all[i].handle));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(self->dram / 2, c.used);
	EXPECT_EQ(self->dram / 2, c.free);
	EXPECT_EQ(MiB, c.largest);
	EXPECT_EQ(self->dram, c.peak);
	EXPECT_EQ(-ENOMEM, bo_new_kind(self->fd, 2 * MiB, 0, &a));
	/* the last two free extents joined */
	ASSERT_EQ(0, npu_bo_del(self->fd, all[n - 3].handle));
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(3 * MiB, c.largest);
	EXPECT_EQ(c0.nomem + 1, c.nomem);
	free(all);
}

/* A full ring drops BO records and counts them exactly. */
TEST_F(mem, ring_full_exact_loss)
{
	struct npu_trace_status ts;
	struct npu_bo_create bo;
	uint64_t offered, read;
	unsigned int i, n = 300;

	ASSERT_EQ(0, ring_on(self, 0, 1));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, bo_new_kind(self->fd, 4096, 0, &bo));
		ASSERT_EQ(0, npu_bo_del(self->fd, bo.handle));
	}
	/* read what fits, then the LOST record */
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(0, trace_disable(&self->t));
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(0, trace_status(&self->t, &ts));
	offered = 1 + 2ull * n + 1;		/* CLOCKs at enable and disable */
	read = self->st.records - self->st.by_type[NPU_TRACE_REC_LOST];
	EXPECT_EQ(0, self->st.seq_errors);
	EXPECT_LT(0, self->st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(ts.lost, self->st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(offered, read + self->st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(self->r->n + self->r->others,
		  read + self->st.by_type[NPU_TRACE_REC_LOST]);
	EXPECT_EQ((uint64_t)self->st.last_seq + 1,
		  read + self->st.lost[NPU_TRACE_LOST_RING_FULL] +
		  self->st.by_type[NPU_TRACE_REC_LOST]);
	TH_LOG("%llu BO records offered to a 1-page ring: %u read, %llu lost",
	       2ull * n, self->r->n,
	       (unsigned long long)self->st.lost[NPU_TRACE_LOST_RING_FULL]);
}

/* A ring of another process sees none of this process's buffers. */
TEST_F(mem, scope)
{
	struct npu_bo_create bo;
	int pfd[2], status;
	pid_t child;
	char c;

	ASSERT_EQ(0, ring_on(self, 0, 16));
	ASSERT_EQ(0, pipe(pfd));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		int fd = npu_open();

		close(pfd[0]);
		if (fd < 0 || bo_new_kind(fd, 4096, 0, &bo))
			_exit(1);
		close(fd);
		_exit(write(pfd[1], "x", 1) == 1 ? 0 : 1);
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	close(pfd[0]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, bo_new_kind(self->fd, 4096, 0, &bo));
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(1, self->r->n);
	EXPECT_EQ(getpid(), self->r->rec[0].pid);
	EXPECT_EQ(bo.dev_addr, self->r->rec[0].dev_addr);
}

#define PROCS		4
#define PER_PROC	100

/* One child's work: create and free buffers, some mapped, some by close. */
static int child_work(unsigned int seed)
{
	unsigned int h[8] = { 0 }, i, x = seed * 2654435761u + 1;
	struct npu_bo_create bo;
	int fd = npu_open();

	if (fd < 0)
		return 1;
	for (i = 0; i < PER_PROC; i++) {
		unsigned int s = i % 8;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (h[s] && npu_bo_del(fd, h[s]))
			return 1;
		if (bo_new_kind(fd, 4096 * (1 + x % 16),
				NPU_BO_KIND(x % (NPU_BO_KIND_MAX + 1)), &bo))
			return 1;
		h[s] = bo.handle;
		if (x & 1) {
			void *p = npu_bo_map(fd, &bo);

			if (!p || munmap(p, bo.size))
				return 1;
		}
	}
	close(fd);
	return 0;
}

/* Processes at once: every create paired with its free, sums exact. */
TEST_F(mem, concurrent_processes)
{
	unsigned long long used = 0, peak = 0, sizes = 0;
	pid_t pids[PROCS];
	struct mem_ctr c0, c;
	unsigned int i, p, allocs = 0;

	ASSERT_EQ(0, mem_read(&c0));
	ASSERT_EQ(0, npu_write_file(MEM_DIR "peak", "0"));
	ASSERT_EQ(0, ring_on(self, NPU_TRACE_ALL_PROCESSES, 64));
	for (p = 0; p < PROCS; p++) {
		pids[p] = fork();
		ASSERT_LE(0, pids[p]);
		if (!pids[p])
			_exit(child_work(p + 1));
	}
	for (p = 0; p < PROCS; p++) {
		int status;

		ASSERT_EQ(pids[p], waitpid(pids[p], &status, 0));
		EXPECT_EQ(0, status);
	}
	ASSERT_EQ(0, ring_read(self));
	EXPECT_EQ(0, self->st.lost[NPU_TRACE_LOST_RING_FULL]);
	ASSERT_EQ(2 * PROCS * PER_PROC, self->r->n);
	/* in ring order, each record's dev_used is the running sum */
	for (i = 0; i < self->r->n; i++) {
		const struct npu_trace_rec_bo *b = &self->r->rec[i];
		int a;

		if (b->hdr.type == NPU_TRACE_REC_BO_ALLOC) {
			EXPECT_EQ(0, b->error);
			used += b->size;
			sizes += b->size;
			peak = used > peak ? used : peak;
			allocs++;
			for (p = 0; p < PROCS; p++)
				if (b->pid == pids[p])
					break;
			EXPECT_GT(PROCS, p);
			EXPECT_LT(i, find_rec(self, NPU_TRACE_REC_BO_FREE,
					      b->bo_id));
		} else {
			used -= b->size;
			a = find_rec(self, NPU_TRACE_REC_BO_ALLOC, b->bo_id);
			ASSERT_LE(0, a);
			ASSERT_LT(a, (int)i);
			EXPECT_EQ(self->r->rec[a].pid, b->pid);
			EXPECT_EQ(self->r->rec[a].dev_addr, b->dev_addr);
			EXPECT_EQ(self->r->rec[a].size, b->size);
			EXPECT_EQ(self->r->rec[a].kind, b->kind);
		}
		EXPECT_EQ(used, b->dev_used);
	}
	EXPECT_EQ(0, used);
	EXPECT_EQ(PROCS * PER_PROC, allocs);
	ASSERT_EQ(0, mem_read(&c));
	EXPECT_EQ(c0.allocs + PROCS * PER_PROC, c.allocs);
	EXPECT_EQ(c0.frees + PROCS * PER_PROC, c.frees);
	EXPECT_EQ(0, c.used);
	EXPECT_EQ(peak, c.peak);
	EXPECT_EQ(self->dram, c.largest);
	TH_LOG("%u buffers of %llu KiB in all from %u processes, peak %llu KiB",
	       allocs, sizes >> 10, PROCS, peak >> 10);
}

/* ns per BO_CREATE + BO_FREE of one page, best of 5 rounds of @n. */
static double create_free_ns(FIXTURE_DATA(mem) *self, unsigned int n)
{
	struct npu_bo_create bo;
	double best = 0;
	unsigned int r, i;

	for (r = 0; r < 5; r++) {
		unsigned long long t0 = npu_now_ns(), t;

		for (i = 0; i < n; i++) {
			if (bo_new_kind(self->fd, 4096, 0, &bo) ||
			    npu_bo_del(self->fd, bo.handle))
				return -1;
		}
		t = npu_now_ns() - t0;
		if (self->t.fd >= 0 && ring_read(self))
			return -1;
		self->r->n = 0;
		if (!r || t < best)
			best = t;
	}
	return best / n;
}

/* The cost of the records: create + free with a ring at level 1 and off. */
TEST_F(mem, cost)
{
	double off, on;

	off = create_free_ns(self, 100);
	ASSERT_LT(0, off);
	ASSERT_EQ(0, trace_open(self->fd, 0, 64, 0, &self->t));
	ASSERT_EQ(0, trace_enable(&self->t, 1));
	on = create_free_ns(self, 100);
	ASSERT_LT(0, on);
	EXPECT_EQ(0, self->st.lost[NPU_TRACE_LOST_RING_FULL]);
	TH_LOG("BO_CREATE + BO_FREE of a page: %.0f ns untraced, %.0f ns at level 1 (x%.2f)",
	       off, on, on / off);
}

/* The tracepoints npu_bo_alloc and npu_bo_free, through ftrace. */
TEST_F(mem, tracepoints)
{
	static const char *const events[] = {
		"npu/npu_bo_alloc", "npu/npu_bo_free", NULL,
	};
	static char buf[1 << 16];
	char want[160], record_cmd[8];
	struct npu_bo_create bo;
	const struct npu_trace_rec_bo *b;

	if (access(TRACEFS "/events/npu/npu_bo_alloc", F_OK))
		SKIP(return, "no tracefs or no npu events at " TRACEFS);
	ASSERT_EQ(0, npu_write_file(QUOTA, "50"));
	ASSERT_EQ(0, ring_on(self, 0, 16));
	ASSERT_EQ(0, tracefs_begin(events, record_cmd, sizeof(record_cmd)));
	ASSERT_EQ(0, bo_new_kind(self->fd, 8192,
				 NPU_BO_KIND(NPU_BO_KIND_OUTPUT), &bo));
	ASSERT_EQ(0, npu_bo_del(self->fd, bo.handle));
	EXPECT_EQ(-EDQUOT, bo_new_kind(self->fd, self->dram / 2 + 4096, 0,
				       &bo));
	ASSERT_LT(0, tracefs_end(events, record_cmd, buf, sizeof(buf)));
	ASSERT_EQ(0, ring_read(self));
	ASSERT_EQ(3, self->r->n);
	b = &self->r->rec[0];
	snprintf(want, sizeof(want),
		 "npu_bo_alloc: npu0 bo=%llu addr=%#llx size=8192 kind=3 tgid=%d err=0 used=8192",
		 (unsigned long long)b->bo_id,
		 (unsigned long long)b->dev_addr, getpid());
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("%s", buf);
	snprintf(want, sizeof(want),
		 "npu_bo_free: npu0 bo=%llu addr=%#llx size=8192 kind=3 tgid=%d reason=1 used=0",
		 (unsigned long long)b->bo_id,
		 (unsigned long long)b->dev_addr, getpid());
	EXPECT_NE(NULL, strstr(buf, want));
	snprintf(want, sizeof(want),
		 "npu_bo_alloc: npu0 bo=0 addr=0x0 size=%llu kind=0 tgid=%d err=-122 used=0",
		 self->dram / 2 + 4096, getpid());
	EXPECT_NE(NULL, strstr(buf, want));
}

TEST_HARNESS_MAIN
