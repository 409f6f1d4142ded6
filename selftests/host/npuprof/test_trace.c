// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_trace.c - the public reader (npuprof_trace_*) on synthetic trace
 * files: device records in RECORDS and RECORD items mapped to host time by
 * the clock fit of their device, a drifting device clock, label strings,
 * and RECORDS items that lie about their contents.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npuprof_int.h"

/* The device: tick = (host - 1 s) * (1 + 200 ppm), 1 GHz nominal. */
static uint64_t tick_of(uint64_t host_ns)
{
	return (uint64_t)((double)(host_ns - 1000000000ull) * 1.0002);
}

static uint64_t host_of(uint64_t tick)
{
	return (uint64_t)((double)tick / 1.0002) + 1000000000ull;
}

static void clock_rec(struct npu_trace_rec_clock *c, uint32_t seq,
		      uint64_t host)
{
	memset(c, 0, sizeof(*c));
	c->hdr.type = NPU_TRACE_REC_CLOCK;
	c->hdr.size = sizeof(*c);
	c->hdr.seq = seq;
	c->samples = 8;
	c->host_before_ns = host - 20000;
	c->device_tick = tick_of(host);
	c->host_after_ns = host + 20000;
	c->width_ns = 40000;
	c->clock_hz = 1000000000;
}

static void exec_rec(struct npu_trace_rec_exec *e, uint32_t seq, uint64_t job,
		     uint64_t start_host, uint64_t dur)
{
	memset(e, 0, sizeof(*e));
	e->hdr.type = NPU_TRACE_REC_EXEC;
	e->hdr.size = sizeof(*e);
	e->hdr.seq = seq;
	e->flags = NPU_TRACE_EXEC_F_DEVICE;
	e->pid = 42;
	e->tid = 43;
	e->job_id = job;
	e->submit_ns = start_host - 100000;
	e->complete_ns = start_host + dur + 100000;
	e->start_tick = tick_of(start_host);
	e->end_tick = tick_of(start_host + dur);
	e->run_ticks = e->end_tick - e->start_tick - 1000;
	e->iowait_ticks = 1000;
}

static char *write_file(const char *name, int lie)
{
	struct npf_item_device dev;
	struct npu_info info;
	struct npf_writer *w;
	uint8_t run[16 * 112];
	struct npf_item_records ir = { .dev = 0 };
	struct npf_item_string st = { .id = 7, .len = 7 };
	struct npuprof_span_rec sp;
	char *path;
	uint32_t seq = 0;
	size_t len;
	int i, k;

	if (asprintf(&path, "/tmp/npuprof-trace-%d-%s", (int)getpid(), name) < 0)
		abort();
	if (npf_writer_open(path, 4096, &w))
		abort();
	memset(&dev, 0, sizeof(dev));
	memset(&info, 0, sizeof(info));
	info.clock_hz = 1000000000;
	strcpy(dev.path, "/dev/npu0");
	dev.info_size = sizeof(info);
	npf_writer_add(w, NPF_ITEM_DEVICE, &dev, sizeof(dev), &info,
		       sizeof(info));
	/* 50 s of trace: a CLOCK record every 100 ms, an EXEC every 10 ms */
	for (i = 0; i < 500; i++) {
		uint64_t t = 2000000000ull + (uint64_t)i * 100000000ull;

		len = 0;
		clock_rec((void *)run, seq++, t);
		len += sizeof(struct npu_trace_rec_clock);
		for (k = 0; k < 9; k++) {
			exec_rec((void *)(run + len), seq++, (uint64_t)i * 9 + k,
				 t + 1000000 + (uint64_t)k * 10000000, 3000000);
			len += sizeof(struct npu_trace_rec_exec);
		}
		ir.count = 10;
		if (lie && i == 251)
			ir.count = 11;	/* announces a record that is not there */
		if (i % 2)
			npf_writer_add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), run,
				       len);
		else
			/* one record per RECORD item, as older writers did */
			for (k = 0, len = 0; k < 10; k++) {
				const struct npu_trace_rec_hdr *h =
					(const void *)(run + len);
				struct npf_item_record one = { .dev = 0 };

				npf_writer_add(w, NPF_ITEM_RECORD, &one,
					       sizeof(one), h, h->size);
				len += h->size;
			}
	}
	npf_writer_add(w, NPF_ITEM_STRING, &st, sizeof(st), "warm up", 8);
	memset(&sp, 0, sizeof(sp));
	sp.kind = NPUPROF_SPAN_LABEL;
	sp.name_id = 7;
	sp.span_id = 1;
	sp.start_ns = 5;
	sp.end_ns = 6;
	npf_writer_add(w, NPF_ITEM_SPAN, &sp, sizeof(sp), NULL, 0);
	if (npf_writer_close(w))
		abort();
	return path;
}

TEST(device_times_are_mapped)
{
	char *path = write_file("good", 0);
	struct npuprof_trace *t;
	struct npuprof_event ev;
	struct npuprof_clock_map m;
	char err[256];
	uint64_t execs = 0, clocks = 0, worst = 0, worst_err = 0;
	int ret, labels = 0;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	while ((ret = npuprof_trace_next(t, &ev)) == 1) {
		const struct npu_trace_rec_exec *e = ev.rec;
		int64_t truth, d;

		if (ev.type == NPUPROF_EV_SPAN && ev.label) {
			EXPECT_STREQ("warm up", ev.label);
			labels++;
		}
		if (ev.type != NPUPROF_EV_RECORD)
			continue;
		if (e->hdr.type == NPU_TRACE_REC_CLOCK) {
			clocks++;
			continue;
		}
		ASSERT_EQ(NPU_TRACE_REC_EXEC, e->hdr.type);
		execs++;
		ASSERT_TRUE(ev.start.valid);
		ASSERT_TRUE(ev.end.valid);
		truth = (int64_t)host_of(e->start_tick);
		d = ev.start.ns - truth;
		if (d < 0)
			d = -d;
		/* the truth is within the stated bound, which is small */
		ASSERT_LE((uint64_t)d, ev.start.err_ns);
		ASSERT_LT(ev.start.err_ns, 100000);
		ASSERT_EQ(ev.start.ns, ev.time_ns);
		/* inside its host interval */
		ASSERT_GE(ev.start.ns + (int64_t)ev.start.err_ns,
			  (int64_t)e->submit_ns);
		ASSERT_LE(ev.end.ns - (int64_t)ev.end.err_ns,
			  (int64_t)e->complete_ns);
		if ((uint64_t)d > worst)
			worst = (uint64_t)d;
		if (ev.start.err_ns > worst_err)
			worst_err = ev.start.err_ns;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, npuprof_trace_truncated(t));
	EXPECT_EQ(500, clocks);
	EXPECT_EQ(4500, execs);
	EXPECT_EQ(1, labels);
	ASSERT_EQ(0, npuprof_trace_map(t, 0, tick_of(30000000000ull), &m));
	EXPECT_TRUE(m.valid);
	EXPECT_EQ(-ENOENT, npuprof_trace_map(t, 1, 0, &m));
	printf("# worst error %llu ns, worst bound %llu ns\n",
	       (unsigned long long)worst, (unsigned long long)worst_err);
	/* a rewind gives the same events again */
	ASSERT_EQ(0, npuprof_trace_rewind(t));
	execs = 0;
	while (npuprof_trace_next(t, &ev) == 1)
		if (ev.type == NPUPROF_EV_RECORD &&
		    ((const struct npu_trace_rec_hdr *)ev.rec)->type ==
		    NPU_TRACE_REC_EXEC)
			execs++;
	EXPECT_EQ(4500, execs);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST(lying_records_item_is_an_error_with_an_offset)
{
	char *path = write_file("lie", 1);
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char err[256];
	int ret, n = 0;

	ret = npuprof_trace_open(path, &t, err, sizeof(err));
	if (ret == 0) {
		while ((ret = npuprof_trace_next(t, &ev)) == 1)
			n++;
		EXPECT_EQ(-EBADMSG, ret);
		EXPECT_NE(NULL, strstr(npuprof_trace_error(t), "offset"));
		EXPECT_NE(NULL, strstr(npuprof_trace_error(t), path));
		/* everything before the bad item was delivered */
		EXPECT_GE(n, 2500);
		/* and the error sticks */
		EXPECT_EQ(-EBADMSG, npuprof_trace_next(t, &ev));
		npuprof_trace_close(t);
	} else {
		EXPECT_EQ(-EBADMSG, ret);
		EXPECT_NE(NULL, strstr(err, "offset"));
	}
	unlink(path);
	free(path);
}

TEST(open_errors)
{
	struct npuprof_trace *t = (void *)1;
	char err[256] = "";

	EXPECT_EQ(-ENOENT, npuprof_trace_open("/nonexistent.npuprof", &t, err,
					      sizeof(err)));
	EXPECT_EQ(NULL, t);
	EXPECT_NE(NULL, strstr(err, "/nonexistent.npuprof"));
	EXPECT_EQ(-ENOEXEC, npuprof_trace_open("/etc/passwd", &t, err,
					       sizeof(err)));
	EXPECT_EQ(-EINVAL, npuprof_trace_open(NULL, &t, err, sizeof(err)));
	npuprof_trace_close(NULL);
	EXPECT_STREQ("unknown", npuprof_span_kind_name(99));
	EXPECT_STREQ("Quantize", npuprof_span_kind_name(NPUPROF_SPAN_QUANTIZE));
}

TEST_HARNESS_MAIN
