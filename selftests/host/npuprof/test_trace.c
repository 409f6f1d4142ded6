// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_trace.c - the public reader (npuprof_trace_*) on synthetic trace
 * files: device records in RECORDS and RECORD items mapped to host time by
 * the clock fit of their device, a drifting device clock, label strings,
 * RECORDS items that lie about their contents, and the index of clock
 * samples at the end of a file (what the open reads instead of the whole
 * file, and how it falls back when the index is unsound).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "clock.h"
#include "npf_index.h"
#include "npuprof_analysis.h"
#include "reader.h"
#include "trace.h"
#include "trace_format.h"
#include "writer.h"

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

/* The index write_file() ends a file with */
enum {
	IDX_NONE,	/* none, as a file cut short or of an older writer */
	IDX_SAME,	/* the samples of its CLOCK records */
	IDX_SHIFTED,	/* them 50 us later: only the index tells */
	IDX_READ,	/* npf_trace_index_file(): the file so far read back */
};

static char *write_file(const char *name, int lie, int index)
{
	static struct npf_clock_sample cs[500];
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
		cs[i].before_ns = ((struct npu_trace_rec_clock *)run)->host_before_ns;
		cs[i].tick = ((struct npu_trace_rec_clock *)run)->device_tick;
		cs[i].after_ns = ((struct npu_trace_rec_clock *)run)->host_after_ns;
		if (index == IDX_SHIFTED) {
			cs[i].before_ns += 50000;
			cs[i].after_ns += 50000;
		}
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
	if (index == IDX_SAME || index == IDX_SHIFTED) {
		if (npf_writer_index(w) ||
		    npf_writer_add_clocks(w, 0, info.clock_hz, cs, 500))
			abort();
	} else if (index == IDX_READ) {
		/* the file so far, read back (no END yet), then its index */
		if (npf_trace_index_file(w, path))
			abort();
	}
	if (npf_writer_close(w))
		abort();
	return path;
}

/* Device @dev of @a and @b maps every tick alike */
static int same_maps(struct npuprof_trace *a, struct npuprof_trace *b)
{
	struct npuprof_clock_map ma, mb;
	uint64_t tick;
	int n = 0;

	/* before the first sample, across all of them, beyond the last */
	for (tick = 0; tick < tick_of(55000000000ull); tick += 99999989) {
		if (npuprof_trace_map(a, 0, tick, &ma) ||
		    npuprof_trace_map(b, 0, tick, &mb) ||
		    ma.valid != mb.valid || ma.ns != mb.ns ||
		    ma.err_ns != mb.err_ns)
			return 0;
		n++;
	}
	return n > 500;
}

static int64_t map_ns(struct npuprof_trace *t, uint64_t tick)
{
	struct npuprof_clock_map m;

	if (npuprof_trace_map(t, 0, tick, &m) || !m.valid)
		return INT64_MIN;
	return m.ns;
}

/* Flip bit 4 of the byte at @off of @path */
static void flip(const char *path, uint64_t off)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	if (fd < 0 || pread(fd, &b, 1, (off_t)off) != 1)
		abort();
	b ^= 0x10;
	if (pwrite(fd, &b, 1, (off_t)off) != 1)
		abort();
	close(fd);
}

/* Where the index of @path starts */
static uint64_t index_off(const char *path)
{
	struct npf_reader *r;
	uint64_t off = 0, seq;
	char err[256];

	if (npf_reader_open(path, &r, err, sizeof(err)) ||
	    npf_reader_index(r, &off, &seq))
		abort();
	npf_reader_close(r);
	return off;
}

TEST(device_times_are_mapped)
{
	char *path = write_file("good", 0, IDX_NONE);
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
	char *path = write_file("lie", 1, IDX_NONE);
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

/*
 * A file's index gives the fits a pass over the whole file gives: the same
 * mapping of every tick, the same mapped events; whether the index was
 * written from the samples directly (the session's way: it keeps the
 * samples of the CLOCK records it copies) or by npf_trace_index_file() from
 * a reading of the file so far (the benchmarks' synthetic traces).
 */
TEST(index_gives_the_fits_of_a_full_pass)
{
	char *p0 = write_file("idx-none", 0, IDX_NONE);
	char *p1 = write_file("idx-same", 0, IDX_SAME);
	char *p3 = write_file("idx-read", 0, IDX_READ);
	struct npuprof_trace *t0, *t1, *t3;
	struct npuprof_event e0, e1;
	char err[256];
	int r0, r1, n = 0;

	ASSERT_EQ(0, npuprof_trace_open(p0, &t0, err, sizeof(err)));
	ASSERT_EQ(0, npuprof_trace_open(p1, &t1, err, sizeof(err)));
	ASSERT_EQ(0, npuprof_trace_open(p3, &t3, err, sizeof(err)));
	EXPECT_TRUE(same_maps(t0, t1));
	EXPECT_TRUE(same_maps(t0, t3));
	/* the events, mapped alike; the index is no event */
	for (;;) {
		r0 = npuprof_trace_next(t0, &e0);
		r1 = npuprof_trace_next(t1, &e1);
		ASSERT_EQ(r0, r1);
		if (r0 != 1)
			break;
		ASSERT_EQ(e0.type, e1.type);
		ASSERT_EQ(e0.time_ns, e1.time_ns);
		ASSERT_EQ(e0.start.ns, e1.start.ns);
		ASSERT_EQ(e0.start.err_ns, e1.start.err_ns);
		ASSERT_EQ(e0.end.ns, e1.end.ns);
		n++;
	}
	EXPECT_EQ(0, r0);
	EXPECT_EQ(5000 + 3, n);	/* and DEVICE, STRING, SPAN */
	EXPECT_EQ(0, npuprof_trace_truncated(t1));
	/* only a reading that kept its samples gives them */
	{
		const struct npf_clock_sample *cs;
		uint64_t hz;
		size_t ns;

		EXPECT_EQ(-EINVAL, npf_trace_samples(t0, 0, &cs, &ns, &hz));
	}
	npuprof_trace_close(t0);
	npuprof_trace_close(t1);
	npuprof_trace_close(t3);
	unlink(p0);
	unlink(p1);
	unlink(p3);
	free(p0);
	free(p1);
	free(p3);
}

/*
 * The open takes the fits from the index alone: an index whose samples
 * are 50 us later than the CLOCK records moves every mapped time by 50 us.
 * An unsound one is not used: with its END chunk or an index chunk
 * corrupt, the open makes its pass over the file (the fits of the CLOCK
 * records), and the corrupt chunk is reported when the events reach it.
 */
TEST(open_reads_only_a_sound_index)
{
	char *p0 = write_file("only-none", 0, IDX_NONE);
	char *p1 = write_file("only-same", 0, IDX_SAME);
	char *p2 = write_file("only-shifted", 0, IDX_SHIFTED);
	struct npuprof_trace *t0, *t;
	struct npuprof_event ev;
	uint64_t tick = tick_of(30000000000ull);
	struct stat st;
	char err[256];
	int64_t d;
	int ret, n = 0;

	ASSERT_EQ(0, npuprof_trace_open(p0, &t0, err, sizeof(err)));
	ASSERT_EQ(0, npuprof_trace_open(p2, &t, err, sizeof(err)));
	d = map_ns(t, tick) - map_ns(t0, tick);
	EXPECT_LE(49000, d);
	EXPECT_GE(51000, d);
	npuprof_trace_close(t);

	/* END's chunk corrupt: no index, a pass over the CLOCK records */
	ASSERT_EQ(0, stat(p2, &st));
	flip(p2, (uint64_t)st.st_size - 8);
	ASSERT_EQ(0, npuprof_trace_open(p2, &t, err, sizeof(err)));
	EXPECT_TRUE(same_maps(t0, t));
	npuprof_trace_close(t);

	/* a sample of the index changed: its CRC fails, a pass instead */
	flip(p1, index_off(p1) + 32 + 8 + 16);
	ASSERT_EQ(0, npuprof_trace_open(p1, &t, err, sizeof(err)));
	EXPECT_TRUE(same_maps(t0, t));
	while ((ret = npuprof_trace_next(t, &ev)) == 1)
		n++;
	/* the damaged index chunk skipped: it holds no event */
	EXPECT_EQ(0, ret);
	EXPECT_EQ(5000 + 3, n);
	EXPECT_EQ(0, npuprof_trace_truncated(t));
	{
		struct npuprof_damage d;
		const char *why;

		EXPECT_EQ(1u, npuprof_trace_damage(t, &d, &why));
		EXPECT_EQ(1u, d.chunks);
		EXPECT_NE(NULL, strstr(why, "chunk crc"));
	}
	npuprof_trace_close(t);

	npuprof_trace_close(t0);
	unlink(p0);
	unlink(p1);
	unlink(p2);
	free(p0);
	free(p1);
	free(p2);
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

/*
 * A BO record's event time is its own host_ns, not the time of the event
 * before it: the memory report and the Chrome counters place it so
 */
TEST(bo_records_have_their_own_time)
{
	struct npf_item_device dev = { .dev = 0 };
	struct npf_item_records ir = { .dev = 0, .count = 2 };
	struct npu_trace_rec_bo bo[2];
	struct npuprof_trace *t = NULL;
	struct npuprof_event ev;
	struct npu_info info;
	struct npf_writer *w;
	char path[64], err[256] = "";
	uint64_t times[2] = { 0 };
	int i, n = 0, ret;

	snprintf(path, sizeof(path), "/tmp/npuprof-trace-%d-bo", (int)getpid());
	ASSERT_EQ(0, npf_writer_open(path, 4096, &w));
	memset(&info, 0, sizeof(info));
	info.clock_hz = 1000000000;
	dev.info_size = sizeof(info);
	snprintf(dev.path, sizeof(dev.path), "/dev/npu0");
	ASSERT_EQ(0, npf_writer_add(w, NPF_ITEM_DEVICE, &dev, sizeof(dev),
				    &info, sizeof(info)));
	memset(bo, 0, sizeof(bo));
	for (i = 0; i < 2; i++) {
		bo[i].hdr.type = i ? NPU_TRACE_REC_BO_FREE : NPU_TRACE_REC_BO_ALLOC;
		bo[i].hdr.size = sizeof(bo[i]);
		bo[i].hdr.seq = (uint32_t)i + 1;
		bo[i].pid = 42;
		bo[i].bo_id = 7;
		bo[i].dev_addr = 0x100000;
		bo[i].size = 65536;
		bo[i].host_ns = 5000000000ull + (uint64_t)i * 123456789ull;
	}
	ASSERT_EQ(0, npf_writer_add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), bo,
				    sizeof(bo)));
	ASSERT_EQ(0, npf_writer_close(w));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err))) TH_LOG("%s", err);
	while ((ret = npuprof_trace_next(t, &ev)) == 1)
		if (ev.type == NPUPROF_EV_RECORD && n < 2)
			times[n++] = (uint64_t)ev.time_ns;
	EXPECT_EQ(0, ret);
	ASSERT_EQ(2, n);
	EXPECT_EQ(5000000000ull, times[0]);
	EXPECT_EQ(5123456789ull, times[1]);
	npuprof_trace_close(t);
	unlink(path);
}

/*
 * A file of two devices with no CLOCK_FIT item (a session since the
 * libraries were split writes none): the reader gives one per device,
 * its own ("reader"), just before the SUMMARY, with the executions it
 * checked and those outside their host interval; the SUMMARY's
 * violations are its count. With @fit_item, an older writer's CLOCK_FIT
 * item is there instead and passes through, the SUMMARY's count unchanged.
 */
static char *write_checked(const char *name, bool fit_item)
{
	struct npf_item_device dev;
	struct npf_item_summary sum;
	struct npu_info info;
	struct npf_writer *w;
	uint8_t run[4 * 112];
	struct npf_item_records ir = { .count = 4 };
	char *path;
	uint32_t d;
	int i;

	if (asprintf(&path, "/tmp/npuprof-trace-%d-%s", (int)getpid(), name) < 0)
		abort();
	if (npf_writer_open(path, 4096, &w))
		abort();
	memset(&info, 0, sizeof(info));
	info.clock_hz = 1000000000;
	for (d = 0; d < 2; d++) {
		memset(&dev, 0, sizeof(dev));
		dev.dev = d;
		dev.info_size = sizeof(info);
		snprintf(dev.path, sizeof(dev.path), "/dev/npu%u", d);
		npf_writer_add(w, NPF_ITEM_DEVICE, &dev, sizeof(dev), &info,
			       sizeof(info));
	}
	/* per device: 4 clock samples 1 s apart, 3 executions between them */
	for (d = 0; d < 2; d++) {
		for (i = 0; i < 4; i++) {
			size_t len = 0;
			uint64_t t = 2000000000ull + (uint64_t)i * 1000000000ull;

			clock_rec((void *)run, (uint32_t)i * 4, t);
			len += sizeof(struct npu_trace_rec_clock);
			if (i < 3) {
				struct npu_trace_rec_exec *e = (void *)(run + len);

				exec_rec(e, (uint32_t)i * 4 + 1, (uint64_t)i,
					 t + 100000000, 3000000);
				/* device 1's second: completed before it ended */
				if (d == 1 && i == 1)
					e->complete_ns = t + 100000000 + 1000000;
				len += sizeof(*e);
			}
			ir.dev = d;
			ir.count = i < 3 ? 2 : 1;
			npf_writer_add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), run,
				       len);
		}
	}
	if (fit_item) {
		struct npf_item_clock_fit f = { .dev = 0, .samples = 4,
						.used = 4, .segments = 1,
						.checked = 3, .violations = 5 };

		npf_writer_add(w, NPF_ITEM_CLOCK_FIT, &f, sizeof(f), NULL, 0);
	}
	memset(&sum, 0, sizeof(sum));
	sum.violations = fit_item ? 5 : 0;
	sum.stop_ns = 6000000000ull;
	npf_writer_add(w, NPF_ITEM_SUMMARY, &sum, sizeof(sum), NULL, 0);
	if (npf_writer_close(w))
		abort();
	return path;
}

TEST(reader_checks_causality_without_a_fit_item)
{
	char *path = write_checked("checked", false);
	struct npuprof_trace *t;
	struct npuprof_event ev;
	char err[256];
	int ret, pass, n;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	/* twice: a rewind starts the count again */
	for (pass = 0; pass < 2; pass++) {
		n = 0;
		while ((ret = npuprof_trace_next(t, &ev)) == 1) {
			if (ev.type == NPUPROF_EV_CLOCK_FIT) {
				ASSERT_EQ((uint32_t)n, ev.dev);
				ASSERT_NE(NULL, ev.key);
				EXPECT_STREQ("reader", ev.key);
				EXPECT_EQ(4, ev.fit.samples);
				EXPECT_EQ(3, ev.fit.checked);
				EXPECT_EQ(ev.dev == 1 ? 1 : 0, ev.fit.violations);
				EXPECT_EQ(ev.fit.violations, ev.count);
				EXPECT_TRUE(fabs(ev.fit.ns_per_tick - 1.0 / 1.0002) < 1e-9);
				n++;
			} else if (ev.type == NPUPROF_EV_SUMMARY) {
				/* after both fits */
				EXPECT_EQ(2, n);
				EXPECT_EQ(1, ev.summary.violations);
				EXPECT_EQ(1, ev.count);
				n = 100;
			}
		}
		EXPECT_EQ(0, ret);
		EXPECT_EQ(100, n);
		ASSERT_EQ(0, npuprof_trace_rewind(t));
	}
	npuprof_trace_close(t);
	unlink(path);
	free(path);

	path = write_checked("fit-item", true);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	n = 0;
	while ((ret = npuprof_trace_next(t, &ev)) == 1) {
		if (ev.type == NPUPROF_EV_CLOCK_FIT) {
			EXPECT_EQ(NULL, ev.key);
			EXPECT_EQ(5, ev.fit.violations);
			n++;
		} else if (ev.type == NPUPROF_EV_SUMMARY) {
			EXPECT_EQ(5, ev.summary.violations);
		}
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1, n);	/* the file's, none of the reader's */
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
