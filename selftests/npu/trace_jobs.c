// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_jobs - trace rings with real jobs: EXEC and OP records against
 * what NPU_IOCTL_WAIT reports, ordering and per-PE monotonic timestamps,
 * device intervals mapped through the CLOCK records inside their host
 * submit..complete intervals, exact loss accounting with a slow reader,
 * several rings at once, process scoping (also unprivileged), closing
 * rings while jobs run, and the tracepoints.
 */

#include <grp.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "trace_lib.h"

#define JOB_BYTES	4096

static long double absl_(long double x)
{
	return x < 0 ? -x : x;
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* Every record of a ring, by type, with each one's position in the ring. */
struct recs {
	struct npu_trace_rec_exec *ex;
	struct npu_trace_rec_op *op;
	struct npu_trace_rec_clock *clk;
	unsigned int *ex_pos, *op_pos;
	unsigned int nex, nop, nclk, pos;
	unsigned int cap;
};

static void recs_init(struct recs *r, unsigned int cap)
{
	memset(r, 0, sizeof(*r));
	r->cap = cap;
	r->ex = calloc(cap, sizeof(*r->ex));
	r->op = calloc(cap, sizeof(*r->op));
	r->clk = calloc(cap, sizeof(*r->clk));
	r->ex_pos = calloc(cap, sizeof(*r->ex_pos));
	r->op_pos = calloc(cap, sizeof(*r->op_pos));
}

static void recs_free(struct recs *r)
{
	free(r->ex);
	free(r->op);
	free(r->clk);
	free(r->ex_pos);
	free(r->op_pos);
}

static void collect(const struct npu_trace_rec_hdr *h, void *arg)
{
	struct recs *r = arg;

	switch (h->type) {
	case NPU_TRACE_REC_EXEC:
		if (r->nex < r->cap) {
			r->ex_pos[r->nex] = r->pos;
			memcpy(&r->ex[r->nex++], h, sizeof(r->ex[0]));
		}
		break;
	case NPU_TRACE_REC_OP:
		if (r->nop < r->cap) {
			r->op_pos[r->nop] = r->pos;
			memcpy(&r->op[r->nop++], h, sizeof(r->op[0]));
		}
		break;
	case NPU_TRACE_REC_CLOCK:
		if (r->nclk < r->cap)
			memcpy(&r->clk[r->nclk++], h, sizeof(r->clk[0]));
		break;
	}
	r->pos++;
}

FIXTURE(tj)
{
	int fd;
	struct npu_info info;
	struct trace_jobs j;
	unsigned long long period, paranoid;
};

FIXTURE_SETUP(tj)
{
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &self->info));
	ASSERT_EQ(0, trace_jobs_init(&self->j, self->fd, JOB_BYTES, 1));
	ASSERT_EQ(0, trace_param_get("clock_period_ms", &self->period));
	ASSERT_EQ(0, trace_param_get("trace_paranoid", &self->paranoid));
}

FIXTURE_TEARDOWN(tj)
{
	trace_param_set("clock_period_ms", self->period);
	trace_param_set("trace_paranoid", self->paranoid);
	close(self->fd);
}

/* Level 1: one EXEC record per job, matching NPU_IOCTL_WAIT exactly. */
TEST_F(tj, exec_records_level1)
{
	struct trace_stats st = { 0 };
	struct npu_wait w[20];
	struct trace_ring t;
	struct recs r;
	unsigned int i;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_open(self->fd, 0, 64, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 1));
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, trace_job_run(&self->j, i % self->info.pe_count,
					   &w[i]));
		ASSERT_EQ(NPU_JOB_OK, w[i].result.status);
	}
	recs_init(&r, 256);
	ASSERT_EQ(21, trace_consume(&t, &st, collect, &r));
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, st.by_type[NPU_TRACE_REC_LOST]);
	EXPECT_EQ(1, r.nclk);
	EXPECT_EQ(0, r.nop);
	ASSERT_EQ(20, r.nex);
	for (i = 0; i < 20; i++) {
		const struct npu_trace_rec_exec *e = &r.ex[i];

		/* Sequential jobs: ring order is submission order. */
		EXPECT_EQ(w[i].result.job_id, e->job_id);
		EXPECT_EQ(NPU_TRACE_REC_EXEC, e->hdr.type);
		EXPECT_EQ(sizeof(*e), e->hdr.size);
		EXPECT_EQ(i + 1, e->hdr.seq);
		EXPECT_EQ(NPU_TRACE_EXEC_F_DEVICE, e->flags);
		EXPECT_EQ(NPU_JOB_OK, e->status);
		EXPECT_EQ(getpid(), e->pid);
		EXPECT_EQ(gettid_(), e->tid);
		EXPECT_EQ(w[i].result.submit_ns, e->submit_ns);
		EXPECT_EQ(w[i].result.complete_ns, e->complete_ns);
		EXPECT_EQ(w[i].result.pe, e->pe);
		EXPECT_EQ(i % self->info.pe_count, e->pe);
		EXPECT_EQ(NPU_HW_STATUS_OK, e->dev_status);
		EXPECT_EQ(w[i].result.start_tick, e->start_tick);
		EXPECT_EQ(w[i].result.end_tick, e->end_tick);
		EXPECT_LT(e->start_tick, e->end_tick);
		EXPECT_EQ(e->end_tick - e->start_tick,
			  e->run_ticks + e->iowait_ticks);
		EXPECT_EQ(1, e->n_ops);
		EXPECT_EQ(JOB_BYTES, e->macs);
		EXPECT_LT(0, e->dma_bytes);
	}
	recs_free(&r);
	trace_close(&t);
}

/* Level 2: the OP records of an execution, in order, before its EXEC. */
TEST_F(tj, op_records_level2)
{
	const unsigned int k = 5, jobs = 10;
	struct trace_stats st = { 0 };
	struct npu_wait w;
	struct trace_ring t;
	struct recs r;
	unsigned int i, o, seen;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_jobs_set_ops(&self->j, k));
	ASSERT_EQ(0, trace_open(self->fd, 0, 64, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 2));
	for (i = 0; i < jobs; i++) {
		ASSERT_EQ(0, trace_job_run(&self->j, NPU_PE_ANY, &w));
		ASSERT_EQ(NPU_JOB_OK, w.result.status);
	}
	recs_init(&r, 1024);
	ASSERT_LE(0, trace_consume(&t, &st, collect, &r));
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, st.by_type[NPU_TRACE_REC_LOST]);
	ASSERT_EQ(jobs, r.nex);
	ASSERT_EQ(jobs * k, r.nop);
	for (i = 0; i < jobs; i++) {
		const struct npu_trace_rec_exec *e = &r.ex[i];
		uint64_t prev_end = e->start_tick, iowait = 0;

		EXPECT_EQ(NPU_TRACE_EXEC_F_DEVICE, e->flags);
		EXPECT_EQ(k, e->n_ops);
		seen = 0;
		for (o = 0; o < r.nop; o++) {
			const struct npu_trace_rec_op *op = &r.op[o];

			if (op->job_id != e->job_id)
				continue;
			EXPECT_LT(r.op_pos[o], r.ex_pos[i]);
			EXPECT_EQ(sizeof(*op), op->hdr.size);
			EXPECT_EQ(seen, op->op_index);
			EXPECT_EQ(NPU_OP_CLIP, op->opcode);
			EXPECT_EQ(e->pe, op->pe);
			EXPECT_EQ(e->exec_index, op->exec_index);
			EXPECT_EQ(getpid(), op->pid);
			EXPECT_EQ(gettid_(), op->tid);
			EXPECT_LE(prev_end, op->start_tick);
			EXPECT_LE(op->start_tick, op->end_tick);
			EXPECT_LE(op->end_tick, e->end_tick);
			EXPECT_LE(op->iowait_ticks, op->end_tick - op->start_tick);
			EXPECT_EQ(JOB_BYTES, op->macs);
			prev_end = op->end_tick;
			iowait += op->iowait_ticks;
			seen++;
		}
		EXPECT_EQ(k, seen);
		EXPECT_LE(iowait, e->iowait_ticks);
		EXPECT_EQ(k * JOB_BYTES, e->macs);
	}
	recs_free(&r);
	trace_close(&t);
}

/* Jobs queued on every PE at once: each PE's timestamps never go back. */
TEST_F(tj, per_pe_monotonic)
{
	const unsigned int jobs = 48, k = 3;
	struct trace_stats st = { 0 };
	unsigned long long ids[48];
	unsigned int i, o, pe, per_pe[NPU_HW_MAX_PES] = { 0 };
	uint64_t last_end[NPU_HW_MAX_PES] = { 0 };
	uint64_t last_op_end[NPU_HW_MAX_PES] = { 0 };
	struct npu_wait w;
	struct trace_ring t;
	struct recs r;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_jobs_set_ops(&self->j, k));
	ASSERT_EQ(0, trace_open(self->fd, 0, 64, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 2));
	for (i = 0; i < jobs; i++)
		ASSERT_EQ(0, trace_job_submit(&self->j, NPU_PE_ANY, &ids[i]));
	for (i = 0; i < jobs; i++) {
		ASSERT_EQ(0, npu_wait_job(self->fd, ids[i], 0, 10000000000ll,
					  &w));
		ASSERT_EQ(NPU_JOB_OK, w.result.status);
	}
	recs_init(&r, 1024);
	ASSERT_LE(0, trace_consume(&t, &st, collect, &r));
	EXPECT_EQ(0, st.seq_errors);
	ASSERT_EQ(jobs, r.nex);
	/* Every device record arrived or was counted lost by the device. */
	for (i = 0, o = 0; i < r.nex; i++)
		o += r.ex[i].flags & NPU_TRACE_EXEC_F_DEVICE ? 1 : 0;
	ASSERT_EQ(jobs * (k + 1), r.nop + o + st.lost[NPU_TRACE_LOST_DEVICE]);
	for (i = 0; i < r.nex; i++) {
		const struct npu_trace_rec_exec *e = &r.ex[i];

		if (!(e->flags & NPU_TRACE_EXEC_F_DEVICE))
			continue;
		ASSERT_LT(e->pe, self->info.pe_count);
		EXPECT_LE(last_end[e->pe], e->start_tick)
			TH_LOG("PE %u, exec %u", e->pe, i);
		last_end[e->pe] = e->end_tick;
		per_pe[e->pe]++;
	}
	for (o = 0; o < r.nop; o++) {
		const struct npu_trace_rec_op *op = &r.op[o];

		ASSERT_LT(op->pe, self->info.pe_count);
		EXPECT_LE(last_op_end[op->pe], op->start_tick)
			TH_LOG("PE %u, op %u", op->pe, o);
		last_op_end[op->pe] = op->end_tick;
	}
	for (pe = 0; pe < self->info.pe_count; pe++) {
		TH_LOG("PE %u ran %u of %u jobs", pe, per_pe[pe], jobs);
		if (!st.lost[NPU_TRACE_LOST_DEVICE])
			EXPECT_LT(0, per_pe[pe]);
	}
	recs_free(&r);
	trace_close(&t);
}

/*
 * Map device ticks to CLOCK_MONOTONIC with a weighted least-squares fit over
 * the CLOCK records (sample midpoints), as a reader would, and check that
 * every execution's device interval lies inside its host submit..complete
 * interval.
 */
TEST_F(tj, device_interval_inside_host_interval)
{
	const unsigned int jobs = 60;
	struct trace_stats st = { 0 };
	long double sx = 0, sy = 0, sxx = 0, sxy = 0, a, b, n;	/* n: sum of weights */
	long double worst_res = 0, min_lead = 1e30, min_lag = 1e30;
	uint64_t t0, x0;
	unsigned int i, bad = 0, nodev = 0;
	struct npu_wait w;
	struct trace_ring t;
	struct recs r;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 5));
	ASSERT_EQ(0, trace_open(self->fd, 0, 64, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 1));
	for (i = 0; i < jobs; i++) {
		ASSERT_EQ(0, trace_job_run(&self->j, i % self->info.pe_count,
					   &w));
		ASSERT_EQ(NPU_JOB_OK, w.result.status);
		usleep(1000);
	}
	usleep(30000);
	ASSERT_EQ(0, trace_disable(&t));
	recs_init(&r, 1024);
	ASSERT_LE(0, trace_consume(&t, &st, collect, &r));
	EXPECT_EQ(0, st.seq_errors);
	ASSERT_EQ(jobs, r.nex);
	ASSERT_LE(3, r.nclk);

	/* Weighted least squares: a narrow sample counts more. */
	t0 = r.clk[0].host_before_ns;
	x0 = r.clk[0].device_tick;
	n = 0;
	for (i = 0; i < r.nclk; i++) {
		long double x = (long double)(r.clk[i].device_tick - x0);
		long double y = (long double)(r.clk[i].host_before_ns - t0) +
				(long double)r.clk[i].width_ns / 2;
		long double u = (long double)r.clk[i].width_ns + 100;
		long double wt = 1e6L / (u * u);

		n += wt;
		sx += wt * x;
		sy += wt * y;
		sxx += wt * x * x;
		sxy += wt * x * y;
	}
	b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	a = (sy - b * sx) / n;
	for (i = 0; i < r.nclk; i++) {
		long double x = (long double)(r.clk[i].device_tick - x0);
		long double y = (long double)(r.clk[i].host_before_ns - t0) +
				(long double)r.clk[i].width_ns / 2;
		long double res = absl_(y - (a + b * x));

		if (res > worst_res)
			worst_res = res;
	}
	for (i = 0; i < r.nex; i++) {
		const struct npu_trace_rec_exec *e = &r.ex[i];
		long double hs = a + b * (long double)(e->start_tick - x0) + t0;
		long double he = a + b * (long double)(e->end_tick - x0) + t0;
		long double lead = hs - (long double)e->submit_ns;
		long double lag = (long double)e->complete_ns - he;

		if (!(e->flags & NPU_TRACE_EXEC_F_DEVICE)) {
			nodev++;
			continue;
		}

		if (lead < min_lead)
			min_lead = lead;
		if (lag < min_lag)
			min_lag = lag;
		if (lead < 0 || lag < 0) {
			bad++;
			TH_LOG("job %llu: submit %llu start %.0Lf end %.0Lf complete %llu",
			       (unsigned long long)e->job_id,
			       (unsigned long long)e->submit_ns, hs, he,
			       (unsigned long long)e->complete_ns);
		}
	}
	TH_LOG("%u CLOCK records: rate %.9Lf ns/tick, worst residual %.0Lf ns",
	       r.nclk, b, worst_res);
	TH_LOG("closest margins: submit->start %.0Lf ns, end->complete %.0Lf ns",
	       min_lead, min_lag);
	EXPECT_EQ(0, bad);
	/* Only a device trace area overflow may leave out device data. */
	EXPECT_EQ(nodev ? 1 : 0, st.lost[NPU_TRACE_LOST_DEVICE] ? 1 : 0);
	/* The fitted rate is the nominal one within 1000 ppm. */
	EXPECT_LT(absl_(b * self->info.clock_hz / 1e9L - 1), 1e-3L);
	recs_free(&r);
	trace_close(&t);
}

struct slow_reader {
	struct trace_ring *t;
	struct trace_stats st;
	volatile int stop;
	long ret;
};

static void *slow_reader_main(void *arg)
{
	struct slow_reader *sr = arg;
	struct npu_trace_status ts;

	/* Do not read before the ring overflowed once, however slow the VM. */
	while (!sr->stop) {
		if (trace_status(sr->t, &ts)) {
			sr->ret = -EIO;
			return NULL;
		}
		if (ts.lost)
			break;
		usleep(5000);
	}
	while (!sr->stop) {
		sr->ret = trace_consume(sr->t, &sr->st, NULL, NULL);
		if (sr->ret < 0)
			break;
		usleep(50000);
	}
	return NULL;
}

/*
 * A one-page ring and a reader that reads every 50 ms: records are lost,
 * and exactly as many as reported. Offered records are known: one CLOCK
 * at enable, then k OP records and one EXEC per job, plus LOST records.
 */
TEST_F(tj, exact_loss_slow_reader)
{
	const unsigned int jobs = 100, k = 8;
	unsigned long long ids[100];
	struct slow_reader sr;
	struct npu_trace_status ts;
	struct pollfd pfd;
	struct npu_wait w;
	struct trace_ring t;
	pthread_t th;
	uint64_t offered;
	unsigned int i;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_jobs_set_ops(&self->j, k));
	ASSERT_EQ(0, trace_open(self->fd, 0, 1, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 2));
	memset(&sr, 0, sizeof(sr));
	sr.t = &t;
	ASSERT_EQ(0, pthread_create(&th, NULL, slow_reader_main, &sr));
	for (i = 0; i < jobs; i++)
		ASSERT_EQ(0, trace_job_submit(&self->j, NPU_PE_ANY, &ids[i]));
	for (i = 0; i < jobs; i++) {
		ASSERT_EQ(0, npu_wait_job(self->fd, ids[i], 0, 10000000000ll,
					  &w));
		ASSERT_EQ(NPU_JOB_OK, w.result.status);
	}
	sr.stop = 1;
	pthread_join(th, NULL);
	ASSERT_LE(0, sr.ret);

	/* Drain; a poll() writes the pending LOST record. */
	ASSERT_EQ(0, trace_disable(&t));
	ASSERT_LE(0, trace_consume(&t, &sr.st, NULL, NULL));
	pfd.fd = t.fd;
	pfd.events = POLLIN;
	poll(&pfd, 1, 0);
	ASSERT_LE(0, trace_consume(&t, &sr.st, NULL, NULL));
	ASSERT_EQ(0, trace_status(&t, &ts));

	/* CLOCK at enable, OP and EXEC records, CLOCK at disable */
	offered = 1 + (uint64_t)jobs * (k + 1) + 1;
	TH_LOG("%llu records offered to a %llu-byte ring: %llu read, %llu lost, in %llu LOST records",
	       (unsigned long long)offered, (unsigned long long)t.data_size,
	       (unsigned long long)(sr.st.records -
				    sr.st.by_type[NPU_TRACE_REC_LOST]),
	       (unsigned long long)sr.st.lost[NPU_TRACE_LOST_RING_FULL],
	       (unsigned long long)sr.st.by_type[NPU_TRACE_REC_LOST]);
	EXPECT_EQ(0, sr.st.seq_errors);
	EXPECT_EQ(0, sr.st.bad);
	EXPECT_LT(0, sr.st.lost[NPU_TRACE_LOST_RING_FULL]);
	/*
	 * produced == consumed + reported lost, exactly. (When the device's
	 * own trace area overflowed too, fewer OP records were produced;
	 * the sequence numbers below still account for every one.)
	 */
	if (!sr.st.lost[NPU_TRACE_LOST_DEVICE])
		EXPECT_EQ(offered, sr.st.records -
				   sr.st.by_type[NPU_TRACE_REC_LOST] +
				   sr.st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_GE(offered, sr.st.records - sr.st.by_type[NPU_TRACE_REC_LOST] +
			   sr.st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(ts.lost, sr.st.lost[NPU_TRACE_LOST_RING_FULL]);
	EXPECT_EQ(ts.records, sr.st.records);
	EXPECT_EQ(sr.st.records + ts.lost, (uint64_t)sr.st.last_seq + 1);
	EXPECT_EQ(ts.producer, t.hdr->consumer);
	trace_close(&t);
}

/* Two rings at different levels; the device traces at the higher one. */
TEST_F(tj, two_rings_two_levels)
{
	struct trace_stats sa = { 0 }, sb = { 0 };
	struct trace_ring a, b;
	struct recs ra, rb;
	struct npu_wait w;
	unsigned int i;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_jobs_set_ops(&self->j, 3));
	ASSERT_EQ(0, trace_open(self->fd, 0, 16, 0, &a));
	ASSERT_EQ(0, trace_open(self->fd, 0, 16, 0, &b));
	ASSERT_EQ(0, trace_enable(&a, 1));
	ASSERT_EQ(0, trace_enable(&b, 2));
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, trace_job_run(&self->j, NPU_PE_ANY, &w));
	recs_init(&ra, 256);
	recs_init(&rb, 256);
	ASSERT_LE(0, trace_consume(&a, &sa, collect, &ra));
	ASSERT_LE(0, trace_consume(&b, &sb, collect, &rb));
	EXPECT_EQ(6, ra.nex);
	EXPECT_EQ(0, ra.nop);
	EXPECT_EQ(6, rb.nex);
	EXPECT_EQ(18, rb.nop);
	for (i = 0; i < 6 && i < ra.nex && i < rb.nex; i++) {
		EXPECT_EQ(0, memcmp((char *)&ra.ex[i] + 8, (char *)&rb.ex[i] + 8,
				    sizeof(ra.ex[i]) - 8));
		EXPECT_EQ(NPU_TRACE_EXEC_F_DEVICE, ra.ex[i].flags);
	}

	/* b off: the device drops to level 1, a still gets device data. */
	ASSERT_EQ(0, trace_disable(&b));
	ASSERT_EQ(1, trace_consume(&b, &sb, collect, &rb));	/* CLOCK */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, trace_job_run(&self->j, NPU_PE_ANY, &w));
	ASSERT_LE(0, trace_consume(&a, &sa, collect, &ra));
	EXPECT_EQ(0, trace_unread(&b));
	EXPECT_EQ(9, ra.nex);
	EXPECT_EQ(0, ra.nop);
	for (i = 6; i < ra.nex; i++)
		EXPECT_EQ(NPU_TRACE_EXEC_F_DEVICE, ra.ex[i].flags);

	/* a at level 0: host context only, device fields zero. */
	ASSERT_EQ(0, trace_enable(&a, 0));
	ASSERT_EQ(0, trace_job_run(&self->j, NPU_PE_ANY, &w));
	ASSERT_LE(0, trace_consume(&a, &sa, collect, &ra));
	ASSERT_EQ(10, ra.nex);
	EXPECT_EQ(0, ra.ex[9].flags);
	EXPECT_EQ(w.result.job_id, ra.ex[9].job_id);
	EXPECT_EQ(w.result.submit_ns, ra.ex[9].submit_ns);
	EXPECT_EQ(w.result.complete_ns, ra.ex[9].complete_ns);
	EXPECT_EQ(0, ra.ex[9].start_tick);
	EXPECT_EQ(0, ra.ex[9].end_tick);
	EXPECT_EQ(0, ra.ex[9].macs);
	EXPECT_EQ(0, sa.seq_errors);
	EXPECT_EQ(0, sb.seq_errors);
	recs_free(&ra);
	recs_free(&rb);
	trace_close(&a);
	trace_close(&b);
}

/* Child: as nobody, trace its own jobs only. Exit status 0 = passed. */
static int scope_child(int devfd, int go_rd, int ready_wr)
{
	struct trace_stats st = { 0 };
	struct trace_jobs j;
	struct trace_ring t;
	struct npu_wait w;
	struct recs r;
	unsigned int i;
	char c = 0;

	if (npu_drop_to_nobody())
		return 10;
	if (trace_open(devfd, NPU_TRACE_ALL_PROCESSES, 1, 0, &t) != -EACCES)
		return 11;
	if (trace_open(devfd, 0, 16, 0, &t) || trace_enable(&t, 1))
		return 12;
	if (trace_jobs_init(&j, devfd, JOB_BYTES, 1))
		return 13;
	/* Tell the parent to run its jobs while this ring is enabled. */
	if (write(ready_wr, &c, 1) != 1 || read(go_rd, &c, 1) != 1)
		return 14;
	for (i = 0; i < 5; i++)
		if (trace_job_run(&j, NPU_PE_ANY, &w) || w.result.status != NPU_JOB_OK)
			return 15;
	recs_init(&r, 64);
	if (trace_consume(&t, &st, collect, &r) < 0 || st.seq_errors)
		return 16;
	if (r.nex != 5)
		return 17;
	for (i = 0; i < r.nex; i++)
		if (r.ex[i].pid != getpid() || r.ex[i].tid != gettid_())
			return 18;
	return 0;
}

/*
 * A ring sees its own process's jobs; NPU_TRACE_ALL_PROCESSES (root here)
 * sees everyone's; an unprivileged process sees only its own.
 */
TEST_F(tj, process_scope)
{
	struct trace_stats s1 = { 0 }, s2 = { 0 };
	struct trace_ring own, all;
	struct recs r1, r2;
	int go[2], ready[2], status;
	unsigned int i, mine = 0, theirs = 0;
	struct npu_wait w;
	pid_t child;
	char c = 0;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_param_set("trace_paranoid", 1));
	ASSERT_EQ(0, trace_open(self->fd, 0, 16, 0, &own));
	ASSERT_EQ(0, trace_open(self->fd, NPU_TRACE_ALL_PROCESSES, 16, 0, &all));
	ASSERT_EQ(0, trace_enable(&own, 1));
	ASSERT_EQ(0, trace_enable(&all, 1));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int fd = npu_open();

		_exit(fd < 0 ? 9 : scope_child(fd, go[0], ready[1]));
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, trace_job_run(&self->j, NPU_PE_ANY, &w));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	recs_init(&r1, 64);
	recs_init(&r2, 64);
	ASSERT_LE(0, trace_consume(&own, &s1, collect, &r1));
	ASSERT_LE(0, trace_consume(&all, &s2, collect, &r2));
	EXPECT_EQ(5, r1.nex);
	for (i = 0; i < r1.nex; i++)
		EXPECT_EQ(getpid(), r1.ex[i].pid);
	for (i = 0; i < r2.nex; i++) {
		if (r2.ex[i].pid == getpid())
			mine++;
		else if (r2.ex[i].pid == child && r2.ex[i].tid == child)
			theirs++;
	}
	EXPECT_EQ(10, r2.nex);
	EXPECT_EQ(5, mine);
	EXPECT_EQ(5, theirs);
	EXPECT_EQ(0, s1.seq_errors);
	EXPECT_EQ(0, s2.seq_errors);
	recs_free(&r1);
	recs_free(&r2);
	trace_close(&own);
	trace_close(&all);
}

struct runner {
	struct trace_jobs *j;
	volatile int stop;
	unsigned int ok, bad;
};

static void *runner_main(void *arg)
{
	struct runner *rn = arg;
	struct npu_wait w;

	while (!rn->stop) {
		if (trace_job_run(rn->j, NPU_PE_ANY, &w) || w.result.status != NPU_JOB_OK)
			rn->bad++;
		else
			rn->ok++;
	}
	return NULL;
}

/* Rings opened, enabled and closed (mapped or not) while jobs run. */
TEST_F(tj, close_while_jobs_run)
{
	struct trace_stats st = { 0 };
	struct runner rn[2];
	pthread_t th[2];
	struct trace_ring t;
	struct npu_wait w;
	struct recs r;
	unsigned int i;
	int fd2;

	fd2 = npu_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, trace_jobs_set_ops(&self->j, 4));
	memset(rn, 0, sizeof(rn));
	rn[0].j = &self->j;
	{
		static struct trace_jobs j2;

		ASSERT_EQ(0, trace_jobs_init(&j2, fd2, JOB_BYTES, 2));
		rn[1].j = &j2;
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, runner_main, &rn[i]));
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, trace_open(self->fd, i & 1 ? NPU_TRACE_ALL_PROCESSES : 0,
					1u << (i % 4), 0, &t));
		ASSERT_EQ(0, trace_enable(&t, 1 + i % 2));
		usleep((i % 5) * 1000);
		if (i % 3 == 0) {
			/* Close first, unmap later. */
			close(t.fd);
			t.fd = -1;
			usleep(1000);
		}
		trace_close(&t);
	}
	for (i = 0; i < 2; i++) {
		rn[i].stop = 1;
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, rn[i].bad);
		EXPECT_LT(0, rn[i].ok);
	}
	/* Tracing still works afterwards. */
	ASSERT_EQ(0, trace_open(self->fd, 0, 4, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 2));
	ASSERT_EQ(0, trace_job_run(&self->j, NPU_PE_ANY, &w));
	recs_init(&r, 64);
	ASSERT_LE(0, trace_consume(&t, &st, collect, &r));
	EXPECT_EQ(1, r.nex);
	EXPECT_EQ(4, r.nop);
	EXPECT_EQ(w.result.job_id, r.ex[0].job_id);
	recs_free(&r);
	trace_close(&t);
	close(fd2);
}

/*
 * With the device's trace area overflowing (run the emulator with a small
 * --trace-size to see it happen), every device record is either delivered
 * or counted in a NPU_TRACE_LOST_DEVICE record. With the default area
 * nothing is lost and the identity holds trivially.
 */
TEST_F(tj, device_records_accounted)
{
	const unsigned int jobs = 20, k = 200;
	struct trace_stats st = { 0 };
	struct npu_trace_status ts;
	struct trace_ring t;
	struct npu_wait w;
	struct recs r;
	uint64_t delivered;
	unsigned int i;

	ASSERT_EQ(0, trace_param_set("clock_period_ms", 0));
	ASSERT_EQ(0, trace_jobs_set_ops(&self->j, k));
	ASSERT_EQ(0, trace_open(self->fd, 0, 256, 0, &t));
	ASSERT_EQ(0, trace_enable(&t, 2));
	for (i = 0; i < jobs; i++) {
		ASSERT_EQ(0, trace_job_run(&self->j, NPU_PE_ANY, &w));
		ASSERT_EQ(NPU_JOB_OK, w.result.status);
	}
	recs_init(&r, 8192);
	ASSERT_LE(0, trace_consume(&t, &st, collect, &r));
	ASSERT_EQ(0, trace_status(&t, &ts));
	EXPECT_EQ(0, st.seq_errors);
	EXPECT_EQ(0, ts.lost);
	/* Every job has its EXEC record; device fields when not lost. */
	EXPECT_EQ(jobs, r.nex);
	delivered = r.nop;
	for (i = 0; i < r.nex; i++)
		delivered += r.ex[i].flags & NPU_TRACE_EXEC_F_DEVICE ? 1 : 0;
	TH_LOG("device records: %llu delivered, %llu lost by the device",
	       (unsigned long long)delivered,
	       (unsigned long long)st.lost[NPU_TRACE_LOST_DEVICE]);
	EXPECT_EQ((uint64_t)jobs * (k + 1),
		  delivered + st.lost[NPU_TRACE_LOST_DEVICE]);
	EXPECT_EQ(ts.device_lost, st.lost[NPU_TRACE_LOST_DEVICE]);
	recs_free(&r);
	trace_close(&t);
}

/* The tracepoints, through ftrace. */
TEST_F(tj, tracepoints)
{
	static const char *const events[] = { "npu", NULL };
	static char buf[1 << 16];
	char want[128], record_cmd[8];
	struct npu_wait w;

	if (access(TRACEFS "/events/npu/npu_job_submit", F_OK))
		SKIP(return, "no tracefs or no npu events at " TRACEFS);
	ASSERT_EQ(0, tracefs_begin(events, record_cmd, sizeof(record_cmd)));
	ASSERT_EQ(0, trace_job_run(&self->j, 0, &w));
	ASSERT_LT(0, tracefs_end(events, record_cmd, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "npu_job_submit: npu0 job=%llu pe=0 tgid=%d",
		 (unsigned long long)w.result.job_id, getpid());
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("%s", buf);
	snprintf(want, sizeof(want), "npu_job_start: npu0 job=%llu pe=0 start_tick=%llu",
		 (unsigned long long)w.result.job_id,
		 (unsigned long long)w.result.start_tick);
	EXPECT_NE(NULL, strstr(buf, want));
	snprintf(want, sizeof(want), "npu_job_complete: npu0 job=%llu pe=0 status=0 tgid=%d submit_ns=%llu complete_ns=%llu",
		 (unsigned long long)w.result.job_id, getpid(),
		 (unsigned long long)w.result.submit_ns,
		 (unsigned long long)w.result.complete_ns);
	EXPECT_NE(NULL, strstr(buf, want));
}

TEST_HARNESS_MAIN
