// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_breakdown.c - the latency breakdown (npf_breakdown_run() and
 * npuprof_print_breakdown()) on the hand-computed trace of
 * analysis_gen.h: each part of each inference, their exact sum (the wall
 * time) with overlapping CPU operators, a device start before the end of
 * the submit span, an inference without an execution and one whose
 * EXEC record was lost; the totals, the NPU's idle time while the host
 * was busy; children written after their inference (another thread's
 * buffer), a span later than the join's window left out, the window's
 * bound on memory; every output format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "analysis_gen.h"
#include "breakdown.h"
#include "join.h"
#include "npuprof_analysis.h"
#include "writer.h"

/* Expected parts per inference A..D (analysis_gen.h), NPF_BD_* order */
static const int64_t want[4][NPF_BD_NPARTS + 1] = {
	/* cpu, host, queue, run, iowait, delivery, wakeup, unexplained, wall */
	{ 750, 4050, 200, 3000, 1000, 500, 500, 0, 10000 },
	{ 400, 5600, 0, 1125, 375, 200, 300, 0, 8000 },
	{ 500, 2500, 0, 0, 0, 0, 0, 0, 3000 },
	{ 0, 2000, 0, 0, 0, 0, 0, 4000, 6000 },
};

struct seen {
	int n;
	bool got[4];
	int64_t sum_ok;
	struct __test_metadata *md;
};

static int check_row(void *ctx, const struct npf_bd_row *r)
{
	struct seen *s = ctx;
	unsigned int k = (unsigned int)r->span.trace_id[1] - 1, p;
	int64_t sum = 0;

	s->n++;
	if (k >= 4 || s->got[k]) {
		fprintf(stderr, "unexpected row k=%u\n", k);
		return -EINVAL;
	}
	s->got[k] = true;
	for (p = 0; p < NPF_BD_NPARTS; p++) {
		sum += r->part[p];
		if (r->part[p] != want[k][p]) {
			fprintf(stderr, "inference %u: %s %" PRId64 ", want %" PRId64 "\n",
				k, npf_bd_part_name(p), r->part[p], want[k][p]);
			return -EINVAL;
		}
	}
	if (sum != r->wall || r->wall != want[k][NPF_BD_NPARTS])
		return -EINVAL;
	s->sum_ok++;
	return 0;
}

FIXTURE(bd) {
	char *path;
	struct npuprof_trace *t;
};

FIXTURE_SETUP(bd)
{
	char err[256];

	self->path = ag_trace("bd", 2000, 500);
	ASSERT_EQ(0, npuprof_trace_open(self->path, &self->t, err, sizeof(err)));
}

FIXTURE_TEARDOWN(bd)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
	free(self->path);
}

/* The clock fit maps ticks one to one: the numbers above rely on it */
TEST_F(bd, mapping_is_exact)
{
	struct npuprof_clock_map m;

	ASSERT_EQ(0, npuprof_trace_map(self->t, 0, ag_t(1) + 1500 - AG_OFF, &m));
	ASSERT_TRUE(m.valid);
	ASSERT_EQ((int64_t)(ag_t(1) + 1500), m.ns);
}

TEST_F(bd, parts_of_each_inference)
{
	struct npf_bd_totals tot;
	struct seen s = { 0 };
	unsigned int p;

	ASSERT_EQ(0, npf_breakdown_run(self->t, check_row, &s, &tot));
	ASSERT_EQ(4, s.n);
	ASSERT_EQ(4, s.sum_ok);
	ASSERT_EQ(4u, tot.inferences);
	ASSERT_EQ(27000, tot.wall);
	{
		static const int64_t tp[NPF_BD_NPARTS] = {
			1650, 14150, 200, 4125, 1375, 700, 800, 4000 };
		int64_t sum = 0;

		for (p = 0; p < NPF_BD_NPARTS; p++) {
			ASSERT_EQ(tp[p], tot.part[p]);
			sum += tot.part[p];
		}
		ASSERT_EQ(tot.wall, sum);
	}
	ASSERT_EQ(15800, tot.host_busy);
	ASSERT_EQ(6000, tot.npu_busy);
	ASSERT_EQ(15300, tot.npu_idle_host_busy);
	/* the Lower span written after A's inference is A's all the same */
	ASSERT_EQ(0u, tot.late);
	ASSERT_GE(tot.max_pending, 1u);
	/* a second run over the same reader gives the same */
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(0, npf_breakdown_run(self->t, check_row, &s, &tot));
	ASSERT_EQ(4, s.sum_ok);
}

TEST_F(bd, csv_rows)
{
	char b[64], *out;
	int ret, k, p;

	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_CSV)));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(5, ag_lines(out));
	ASSERT_STREQ("trace_id", ag_csv(out, 0, 0, b, sizeof(b)));
	ASSERT_STREQ("wall_ns", ag_csv(out, 0, 3, b, sizeof(b)));
	ASSERT_STREQ("unexplained_ns", ag_csv(out, 0, 11, b, sizeof(b)));
	/* rows in completion order: A, B, C, then D at the end (its job's
	 * record never came) */
	for (k = 0; k < 4; k++) {
		ASSERT_EQ(k + 1, (int)strtoll(ag_csv(out, k + 1, 0, b, sizeof(b)) + 16,
					      NULL, 16));
		ASSERT_EQ(want[k][NPF_BD_NPARTS],
			  strtoll(ag_csv(out, k + 1, 3, b, sizeof(b)), NULL, 10));
		for (p = 0; p < NPF_BD_NPARTS; p++)
			ASSERT_EQ(want[k][p], strtoll(ag_csv(out, k + 1, 4 + p, b,
							     sizeof(b)), NULL, 10));
	}
	ASSERT_STREQ("1", ag_csv(out, 1, 12, b, sizeof(b)));	/* executions */
	ASSERT_STREQ("0", ag_csv(out, 3, 12, b, sizeof(b)));
	free(out);
}

TEST_F(bd, table_and_json)
{
	char *out;
	int ret;

	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_TABLE)));
	ASSERT_EQ(0, ret);
	ASSERT_NE(NULL, strstr(out, "Latency Breakdown: 4 inferences"));
	ASSERT_NE(NULL, strstr(out, "CPU operators                      1650          412.5    6.11%"));
	ASSERT_NE(NULL, strstr(out, "NPU Run                            4125         1031.2   15.28%"));
	ASSERT_NE(NULL, strstr(out, "Wall time                         27000         6750.0  100.00%"));
	ASSERT_NE(NULL, strstr(out, "NPU idle while host busy (ns)   : 15300 (96.84% of host busy)"));
	free(out);
	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_JSON)));
	ASSERT_EQ(0, ret);
	ASSERT_NE(NULL, strstr(out, "{\"inferences\": 4, \"wall_ns\": 27000, \"cpu_ops_ns\": 1650, \"host_ns\": 14150, \"queue_ns\": 200, \"npu_run_ns\": 4125, \"npu_iowait_ns\": 1375, \"delivery_ns\": 700, \"wakeup_ns\": 800, \"unexplained_ns\": 4000,"));
	ASSERT_NE(NULL, strstr(out, "\"host_busy_ns\": 15800, \"npu_busy_ns\": 6000, \"npu_idle_host_busy_ns\": 15300, \"left_out\": 0}"));
	free(out);
	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_JSONL)));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(4, ag_lines(out));
	ASSERT_NE(NULL, strstr(out, "\"wall_ns\": 8000, \"cpu_ops_ns\": 400, \"host_ns\": 5600, \"queue_ns\": 0, \"npu_run_ns\": 1125, \"npu_iowait_ns\": 375"));
	free(out);
	ASSERT_EQ(-EINVAL, npuprof_print_breakdown(self->t, stdout,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_CHROME)));
}

/* Expected parts of E, F, H of ag_trace_order() */
static const int64_t want_order[3][NPF_BD_NPARTS + 1] = {
	/* cpu, host, queue, run, iowait, delivery, wakeup, unexplained, wall */
	{ 800, 4000, 200, 3000, 1000, 500, 500, 0, 10000 },
	{ 200, 2800, 500, 1500, 500, 500, 2000, 0, 8000 },
	{ 0, 1000, 0, 0, 0, 0, 0, 0, 1000 },
};

struct order_seen {
	int n, sum_ok;
	int order[3];
	uint32_t executions[3];
};

static int order_row(void *ctx, const struct npf_bd_row *r)
{
	struct order_seen *s = ctx;
	uint64_t k1 = r->span.trace_id[1];
	unsigned int k = k1 == 1 ? 0 : k1 == 2 ? 1 : k1 == 301 ? 2 : 3, p;
	int64_t sum = 0;

	if (k > 2 || s->n >= 3)
		return -EINVAL;
	s->order[s->n++] = (int)k;
	s->executions[k] = r->executions;
	for (p = 0; p < NPF_BD_NPARTS; p++) {
		sum += r->part[p];
		if (r->part[p] != want_order[k][p]) {
			fprintf(stderr, "# inference %c: %s %" PRId64 ", want %" PRId64 "\n",
				"EFH"[k], npf_bd_part_name(p), r->part[p],
				want_order[k][p]);
			return -EINVAL;
		}
	}
	if (sum == r->wall && r->wall == want_order[k][NPF_BD_NPARTS])
		s->sum_ok++;
	return 0;
}

/*
 * Children written after their inference's span (another thread's buffer
 * drained later) still belong to it: the join does not depend on the
 * order of the file within its window; a span later than the window is
 * left out and counted.
 */
TEST(children_after_their_inference)
{
	char *path = ag_trace_order("bd-order"), err[256];
	struct order_seen s = { 0 };
	struct npf_bd_totals tot;
	struct npuprof_trace *t;
	static const int64_t tp[NPF_BD_NPARTS] = {
		1000, 7800, 700, 4500, 1500, 1000, 2500, 0 };
	unsigned int p;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(0, npf_breakdown_run(t, order_row, &s, &tot));
	ASSERT_EQ(3, s.n);
	ASSERT_EQ(3, s.sum_ok);
	/* E and F leave the window when H (3 s later) comes; H at the end */
	ASSERT_EQ(0, s.order[0]);
	ASSERT_EQ(1, s.order[1]);
	ASSERT_EQ(2, s.order[2]);
	ASSERT_EQ(1u, s.executions[0]);
	ASSERT_EQ(1u, s.executions[1]);
	ASSERT_EQ(0u, s.executions[2]);
	ASSERT_EQ(3u, tot.inferences);
	ASSERT_EQ(19000, tot.wall);
	for (p = 0; p < NPF_BD_NPARTS; p++)
		ASSERT_EQ(tp[p], tot.part[p]);
	ASSERT_EQ(8800, tot.host_busy);
	ASSERT_EQ(6000, tot.npu_busy);
	ASSERT_EQ(8800, tot.npu_idle_host_busy);
	ASSERT_EQ(1u, tot.late);	/* E's Unlower, 3 s after E ended */
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

struct inf_seen {
	uint64_t n, executions, npu_total, unmatched;
};

static int inf_row(void *ctx, const struct npf_inf_row *r)
{
	struct inf_seen *s = ctx;

	s->n++;
	s->executions += r->executions;
	s->npu_total += (uint64_t)r->npu_total_ns;
	s->unmatched += r->unmatched;
	return 0;
}

/* The join itself: each inference gets the execution of its late submit */
TEST(join_children_after_their_inference)
{
	static const struct npf_join_ops ops = { .inference = inf_row };
	char *path = ag_trace_order("join-order"), err[256];
	struct inf_seen s = { 0 };
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npf_join *j;
	int ret;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(0, npf_join_new(t, &ops, &s, &j));
	while ((ret = npuprof_trace_next(t, &ev)) == 1)
		ASSERT_EQ(0, npf_join_event(j, &ev));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, npf_join_finish(j));
	ASSERT_EQ(3u, s.n);
	ASSERT_EQ(2u, s.executions);
	/* NPU Total: E 4000 + F 2000 */
	ASSERT_EQ(6000u, s.npu_total);
	ASSERT_EQ(0u, s.unmatched);
	ASSERT_EQ(2u, npf_join_stats(j)->matched);
	npf_join_free(j);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

struct win_seen {
	unsigned int n, ok;
};

static int win_row(void *ctx, const struct npf_bd_row *r)
{
	struct win_seen *s = ctx;

	s->n++;
	s->ok += r->executions == 1 && r->wall == 5000 &&
		 r->part[NPF_BD_HOST] == 3000 && r->part[NPF_BD_WAKEUP] == 1000 &&
		 r->part[NPF_BD_UNKNOWN] == 1000;
	return 0;
}

/*
 * 1000 inferences over 10 s, every child after its inference: all of them
 * complete, and the join holds about the 2 s window (200 inferences), not
 * the trace.
 */
TEST(window_bounds_memory)
{
	char *path = ag_trace_window("bd-window", 1000), err[256];
	struct win_seen s = { 0 };
	struct npf_bd_totals tot;
	struct npuprof_trace *t;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(0, npf_breakdown_run(t, win_row, &s, &tot));
	ASSERT_EQ(1000u, s.n);
	ASSERT_EQ(1000u, s.ok);
	ASSERT_EQ(0u, tot.late);
	ASSERT_EQ(5000000, tot.wall);
	ASSERT_LE(tot.max_pending, 250u);
	ASSERT_GE(tot.max_pending, 150u);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/* No inference: zero everywhere, still valid output */
TEST(empty)
{
	struct npuprof_trace *t;
	struct npf_writer *w;
	struct npf_bd_totals tot;
	char path[] = "/tmp/npuprof-bd-empty-XXXXXX", err[256];
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, npf_writer_open(path, 4096, &w));
	ASSERT_EQ(0, npf_writer_close(w));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(0, npf_breakdown_run(t, NULL, NULL, &tot));
	ASSERT_EQ(0u, tot.inferences);
	ASSERT_EQ(0, tot.wall);
	ASSERT_EQ(0, tot.host_busy);
	npuprof_trace_close(t);
	unlink(path);
}

TEST_HARNESS_MAIN
