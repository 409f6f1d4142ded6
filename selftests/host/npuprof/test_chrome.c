// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_chrome.c - npuprof_export_chrome() on hand-built trace files: the
 * JSON is parsed back by a real JSON parser (Python's json module, run
 * by the test) and checked event by event: phases, times to the ns,
 * nesting, flows from SUBMIT spans to their executions, queue intervals,
 * counters, instants for losses and causality violations, several
 * processes, devices and PEs, the names and sort indices, the metadata,
 * an empty trace, a truncated one, spans that do not nest, and strings
 * that need escaping.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "chrome_gen.h"
#include "file_util.h"
#include "npuprof_analysis.h"
#include "timeline.h"
#include "trace_format.h"
#include "writer.h"

/* ---- exporting and parsing back ---- */

/* One event as the JSON parser read it */
struct jev {
	char ph[4];
	long long pid, tid;
	bool has_ts, has_dur;
	long long ts, dur;	/* ns, from the parsed µs */
	char name[160];
	char id[40];
	char scope[8];		/* "s" and "bp" */
	char args[1024];	/* compact JSON, sorted keys */
};

struct parsed {
	struct jev *ev;
	int n;
	char meta[16384];	/* the metadata object, compact, sorted */
	char *text;		/* the file as written */
	int ss_warnings;	/* speedscope's import warnings (parse_py) */
	char ss_first[512];	/* the first of them */
};

/*
 * The parser: Python's json module, strict (no NaN, no trailing commas,
 * no duplicate handling tricks); every event printed as one tab-separated
 * line with ts and dur converted back to integer ns as Perfetto reads
 * them: the decimal text, exact, truncated to the ns. Then a line "SS",
 * the number of warnings that speedscope's importer (1.25) would print
 * for the file, and the first: speedscope() below does what it does with
 * the B, E and X events of each track, in double as it does (JavaScript's
 * numbers; Python's floats are the same IEEE doubles and parse a number
 * to the same one): ts less the track's first, an X event's end as
 * ts + dur, the begins and the ends each sorted by time (stable; the X
 * events first by ts, the longer first), a begin before an end only when
 * it is earlier or the same frame, an end matched against the top of the
 * stack. selftests/viewer/ checks the real one.
 */
static const char parse_py[] =
"import json,sys\n"
"from decimal import Decimal\n"
"def bad(c):\n"
"    raise ValueError('constant '+c)\n"
"d=json.load(open(sys.argv[1],encoding='utf-8'),parse_constant=bad,parse_float=Decimal)\n"
"assert isinstance(d,dict) and isinstance(d['traceEvents'],list)\n"
"def fl(v):\n"
"    if isinstance(v,Decimal):\n"
"        return float(v)\n"
"    if isinstance(v,dict):\n"
"        return {k:fl(x) for k,x in v.items()}\n"
"    if isinstance(v,list):\n"
"        return [fl(x) for x in v]\n"
"    return v\n"
"def ns(v):\n"
"    return '-' if v is None else str(int(Decimal(v)*1000))\n"
"def c(v):\n"
"    return json.dumps(fl(v),sort_keys=True,separators=(',',':'),ensure_ascii=False)\n"
"def key(e):\n"
"    k=e.get('name') or '(unnamed)'\n"
"    return k+' '+json.dumps(fl(e['args']),separators=(',',':')) if 'args' in e else k\n"
"def swap(en,same):\n"
"    for u in range(1,len(en)):\n"
"        if en[u][0]>en[0][0]:\n"
"            return False\n"
"        if same(en[u][1]):\n"
"            en[0],en[u]=en[u],en[0]\n"
"            return True\n"
"    return False\n"
"def speedscope(evs):\n"
"    tracks={}\n"
"    for e in evs:\n"
"        if e['ph'] in ('B','E','X'):\n"
"            tracks.setdefault((e.get('pid'),e.get('tid')),[]).append(e)\n"
"    w=[]\n"
"    for t in tracks.values():\n"
"        m=min(float(e['ts']) for e in t)\n"
"        dur=lambda e:float(e.get('dur',e.get('tdur',0)))\n"
"        b=[(float(e['ts'])-m,e) for e in t if e['ph']=='B']\n"
"        en=[(float(e['ts'])-m,e) for e in t if e['ph']=='E']\n"
"        x=sorted([(float(e['ts'])-m,e) for e in t if e['ph']=='X'],key=lambda q:(q[0],-dur(q[1])))\n"
"        for ts,e in x:\n"
"            b.append((ts,e))\n"
"            en.append((ts+dur(e),e))\n"
"        b.sort(key=lambda q:q[0])\n"
"        en.sort(key=lambda q:q[0])\n"
"        st=[]\n"
"        while b or en:\n"
"            if not en or (b and (b[0][0]<en[0][0] or (b[0][0]==en[0][0] and key(b[0][1])==key(en[0][1])))):\n"
"                st.append(b.pop(0)[1])\n"
"                continue\n"
"            if st:\n"
"                swap(en,lambda g:key(g)==key(st[-1])) or swap(en,lambda g:g.get('name')==st[-1].get('name'))\n"
"            ts,e=en.pop(0)\n"
"            if not st:\n"
"                w.append('Tried to end %s, but the stack was empty'%key(e))\n"
"            elif e.get('name')!=st[-1].get('name') or key(e)!=key(st[-1]):\n"
"                w.append('ts=%r: Tried to end %s when %s was on the top of the stack'%(ts,key(e),key(st[-1])))\n"
"                if e.get('name')==st[-1].get('name'):\n"
"                    st.pop()\n"
"            else:\n"
"                st.pop()\n"
"        w+=['Frame %s was still open at end of profile'%key(e) for e in st]\n"
"    return w\n"
"print('META\\t'+c(d.get('metadata',{})))\n"
"for e in d['traceEvents']:\n"
"    for k in ('ts','dur'):\n"
"        assert k not in e or isinstance(e[k],(int,Decimal)),e\n"
"    print('\\t'.join([e['ph'],str(e.get('pid','-')),str(e.get('tid','-')),"
"ns(e.get('ts')),ns(e.get('dur')),e.get('name','').replace('\\t',' ').replace('\\n',' '),"
"str(e.get('id','-')),e.get('s','-')+e.get('bp',''),c(e.get('args',{}))]))\n"
"w=speedscope(d['traceEvents'])\n"
"print('SS\\t%d\\t%s'%(len(w),(w+[''])[0][:400].replace('\\t',' ').replace('\\n',' ')))\n";

static void field(char **s, char *dst, size_t len)
{
	char *t = strchr(*s, '\t');
	size_t n = t ? (size_t)(t - *s) : strlen(*s);

	snprintf(dst, len, "%.*s", (int)n, *s);
	*s = t ? t + 1 : *s + n;
}

static bool num(const char *s, long long *v)
{
	if (!strcmp(s, "-"))
		return false;
	*v = strtoll(s, NULL, 10);
	return true;
}

/* Export @trace_path to @json; 0 or -1 */
static int export_to(const char *trace_path, const char *json)
{
	struct npuprof_trace *t;
	char err[256];
	FILE *f;
	int ret;

	ret = npuprof_trace_open(trace_path, &t, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "# open: %s\n", err);
		return -1;
	}
	f = fopen(json, "w");
	if (!f) {
		npuprof_trace_close(t);
		return -1;
	}
	ret = npuprof_export_chrome(t, f, NULL);
	if (fclose(f) && !ret)
		ret = -EIO;
	npuprof_trace_close(t);
	if (ret)
		fprintf(stderr, "# export: %d\n", ret);
	return ret ? -1 : 0;
}

/*
 * Export @trace_path to JSON and parse it back; 0 or -1. Every export
 * must import into speedscope without a warning (parse_py's
 * speedscope()): its slices nest as their ns do.
 */
static int export_parse(const char *trace_path, struct parsed *p)
{
	char json[160], py[160], cmd[512], line[4096], tmp[1100];
	size_t len;
	FILE *f;
	int ret, fd;

	memset(p, 0, sizeof(*p));
	snprintf(json, sizeof(json), "%s.json", trace_path);
	if (export_to(trace_path, json))
		return -1;
	p->text = (char *)file_slurp(json, &len);
	if (!p->text)
		return -1;
	snprintf(py, sizeof(py), "/tmp/npuprof-chrome-%d-parse.py", (int)getpid());
	fd = open(py, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0 || write(fd, parse_py, sizeof(parse_py) - 1) !=
	    (ssize_t)sizeof(parse_py) - 1)
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s", py, json);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	p->ev = calloc(100000, sizeof(*p->ev));
	while (fgets(line, sizeof(line), f)) {
		struct jev *e = &p->ev[p->n];
		char *s = line;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "META\t", 5)) {
			snprintf(p->meta, sizeof(p->meta), "%s", line + 5);
			continue;
		}
		if (!strncmp(line, "SS\t", 3)) {
			s = line + 3;
			field(&s, tmp, sizeof(tmp));
			p->ss_warnings = atoi(tmp);
			snprintf(p->ss_first, sizeof(p->ss_first), "%s", s);
			continue;
		}
		if (p->n == 100000)
			break;
		field(&s, e->ph, sizeof(e->ph));
		field(&s, tmp, sizeof(tmp));
		e->pid = strtoll(tmp, NULL, 10);
		field(&s, tmp, sizeof(tmp));
		e->tid = strtoll(tmp, NULL, 10);
		field(&s, tmp, sizeof(tmp));
		e->has_ts = num(tmp, &e->ts);
		field(&s, tmp, sizeof(tmp));
		e->has_dur = num(tmp, &e->dur);
		field(&s, e->name, sizeof(e->name));
		field(&s, e->id, sizeof(e->id));
		field(&s, e->scope, sizeof(e->scope));
		field(&s, e->args, sizeof(e->args));
		p->n++;
	}
	ret = pclose(f);
	unlink(py);
	unlink(json);
	if (ret) {
		fprintf(stderr, "# the JSON parser failed (status %d)\n", ret);
		return -1;
	}
	if (p->ss_warnings) {
		fprintf(stderr, "# speedscope would print %d warnings: %s\n",
			p->ss_warnings, p->ss_first);
		return -1;
	}
	return 0;
}

static void parsed_free(struct parsed *p)
{
	free(p->ev);
	free(p->text);
}

/* The @nth event of phase @ph named @name (NULL: any), or NULL */
static const struct jev *find(const struct parsed *p, const char *ph,
			      const char *name, int nth)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->ev[i].ph, ph) &&
		    (!name || !strcmp(p->ev[i].name, name)) && nth-- == 0)
			return &p->ev[i];
	return NULL;
}

static int count(const struct parsed *p, const char *ph, const char *name)
{
	int i, n = 0;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->ev[i].ph, ph) &&
		    (!name || !strcmp(p->ev[i].name, name)))
			n++;
	return n;
}

/* The integer value of "key" in compact JSON @args, or LLONG_MIN */
static long long arg(const char *args, const char *key)
{
	char pat[80];
	const char *s;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	s = strstr(args, pat);
	return s ? strtoll(s + strlen(pat), NULL, 10) : LLONG_MIN;
}

/* The string value of "key" in @args, copied to @buf ("" if none) */
static const char *sarg(const char *args, const char *key, char *buf,
			size_t len)
{
	char pat[80];
	const char *s;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	s = strstr(args, pat);
	buf[0] = 0;
	if (s) {
		s += strlen(pat);
		snprintf(buf, len, "%.*s", (int)strcspn(s, "\""), s);
	}
	return buf;
}

/* The M event @what ("process_name", ...) of (@pid, @tid) */
static const struct jev *meta_of(const struct parsed *p, const char *what,
				 long long pid, long long tid)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->ev[i].ph, "M") && !strcmp(p->ev[i].name, what) &&
		    p->ev[i].pid == pid && (tid < 0 || p->ev[i].tid == tid))
			return &p->ev[i];
	return NULL;
}

#define DEV_PID(d)	((long long)NPF_TL_DEV_PID + (d))

/* ---- the tests ---- */

TEST(basic_phases_times_ids_args)
{
	const struct jev *sub, *wait, *inf, *lab, *ex, *op0, *op1, *q, *s, *f;
	struct parsed p;
	struct tb b;
	char buf[64];
	int i;

	write_basic(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));

	/* host spans: X with exact times, ids in args */
	sub = find(&p, "X", "submit", 0);
	wait = find(&p, "X", "wait", 0);
	inf = find(&p, "X", "inference", 0);
	lab = find(&p, "X", "warm up", 0);
	ASSERT_NE(NULL, sub);
	ASSERT_NE(NULL, wait);
	ASSERT_NE(NULL, inf);
	ASSERT_NE(NULL, lab);
	EXPECT_EQ(100, sub->pid);
	EXPECT_EQ(101, sub->tid);
	EXPECT_EQ((long long)T0 + 1000, sub->ts);
	EXPECT_EQ(2001, sub->dur);
	EXPECT_EQ((long long)T0, inf->ts);
	EXPECT_EQ(700000, inf->dur);
	/* the text has 3 decimals: ns precision, printed from integers */
	EXPECT_NE(NULL, strstr(p.text, "\"ts\":5000000.123,\"dur\":700.000"));
	EXPECT_NE(NULL, strstr(p.text, "\"ts\":5000001.123,\"dur\":2.001"));
	EXPECT_STREQ("0123456789abcdeffedcba9876543210",
		     sarg(sub->args, "trace_id", buf, sizeof(buf)));
	EXPECT_STREQ("0000000000000012", sarg(sub->args, "span_id", buf, sizeof(buf)));
	EXPECT_STREQ("0000000000000011", sarg(sub->args, "parent_id", buf, sizeof(buf)));
	EXPECT_EQ(7, arg(sub->args, "job_id"));
	EXPECT_EQ(3, arg(sub->args, "npu"));

	/* nesting: spans of the thread come out by start, enclosing first */
	EXPECT_LT(lab - p.ev, inf - p.ev);
	EXPECT_LT(inf - p.ev, sub - p.ev);
	EXPECT_LT(sub - p.ev, wait - p.ev);
	EXPECT_LE(inf->ts + inf->dur, lab->ts + lab->dur);
	EXPECT_EQ(101, lab->tid);	/* all nest: one lane */
	EXPECT_EQ(101, wait->tid);

	/* the execution on PE 1 of npu3, device pid and PE tid */
	ex = find(&p, "X", "exec", 0);
	ASSERT_NE(NULL, ex);
	EXPECT_EQ(DEV_PID(0), ex->pid);
	EXPECT_EQ(NPF_TL_PE_TID + 1, ex->tid);
	EXPECT_LE(llabs(ex->ts - (long long)(T0 + 10000)), 100);
	EXPECT_LE(llabs(ex->dur - 500000), 100);
	EXPECT_EQ(7, arg(ex->args, "job_id"));
	EXPECT_EQ(1, arg(ex->args, "pe"));
	EXPECT_STREQ("OK", sarg(ex->args, "status", buf, sizeof(buf)));
	EXPECT_EQ(arg(ex->args, "total_ns"),
		  arg(ex->args, "run_ns") + arg(ex->args, "iowait_ns"));
	EXPECT_EQ(375000, arg(ex->args, "run_ns"));
	EXPECT_EQ(125000, arg(ex->args, "iowait_ns"));
	EXPECT_EQ(777, arg(ex->args, "macs"));
	EXPECT_EQ(1000000, arg(ex->args, "dma_bytes"));
	EXPECT_EQ(3, arg(ex->args, "npu"));
	EXPECT_EQ(LLONG_MIN, arg(ex->args, "violation"));

	/* operators nested in it, on its track */
	op0 = find(&p, "X", "CONV2D", 0);
	op1 = find(&p, "X", "ADD", 0);
	ASSERT_NE(NULL, op0);
	ASSERT_NE(NULL, op1);
	EXPECT_EQ(ex->pid, op0->pid);
	EXPECT_EQ(ex->tid, op0->tid);
	EXPECT_EQ(ex->tid, op1->tid);
	EXPECT_GE(op0->ts, ex->ts);
	EXPECT_LE(op1->ts + op1->dur, ex->ts + ex->dur);
	EXPECT_LT(ex - p.ev, op0 - p.ev);	/* the enclosing one first */
	EXPECT_EQ(0, arg(op0->args, "op_index"));
	EXPECT_EQ(1, arg(op1->args, "op_index"));
	EXPECT_STREQ("CONV2D", sarg(op0->args, "opcode", buf, sizeof(buf)));
	EXPECT_EQ(1000, arg(op0->args, "macs"));
	EXPECT_EQ(4096, arg(op0->args, "dma"));
	EXPECT_EQ(arg(op0->args, "total_ns"),
		  arg(op0->args, "run_ns") + arg(op0->args, "iowait_ns"));

	/* queueing: host submit to device start */
	q = find(&p, "X", "queued", 0);
	ASSERT_NE(NULL, q);
	EXPECT_EQ(DEV_PID(0), q->pid);
	EXPECT_EQ(NPF_TL_QUEUE_TID, q->tid);
	EXPECT_EQ((long long)T0 + 2000, q->ts);
	EXPECT_EQ(ex->ts, q->ts + q->dur);

	/* the flow: s inside the submit span, f inside the execution */
	s = find(&p, "s", NULL, 0);
	f = find(&p, "f", NULL, 0);
	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, f);
	EXPECT_STREQ(s->id, f->id);
	EXPECT_STREQ("0x4000000000007", s->id);	/* (minor + 1) << 48 | job */
	EXPECT_EQ(sub->pid, s->pid);
	EXPECT_EQ(sub->tid, s->tid);
	EXPECT_GT(s->ts, sub->ts);
	EXPECT_LT(s->ts, sub->ts + sub->dur);
	EXPECT_EQ(ex->pid, f->pid);
	EXPECT_EQ(ex->tid, f->tid);
	EXPECT_STREQ("-e", f->scope);	/* "bp":"e": the enclosing slice */
	EXPECT_EQ(f->ts, ex->ts);	/* before its first operator opens */
	EXPECT_EQ(1, count(&p, "s", NULL));
	EXPECT_EQ(1, count(&p, "f", NULL));
	/* ts in µs as the format says: Perfetto v20 read it as ns with it */
	EXPECT_EQ(NULL, strstr(p.text, "displayTimeUnit"));

	/* counters: utilization in bins of 1 ms, DMA bandwidth */
	i = 0;
	{
		const struct jev *c = find(&p, "C", "PE 1 utilization", 0);
		const struct jev *bw = find(&p, "C", "PE 1 DMA", 0);
		const struct jev *bw0 = find(&p, "C", "PE 1 DMA", 1);

		ASSERT_NE(NULL, c);
		EXPECT_EQ(DEV_PID(0), c->pid);
		/* busy 500 us of the bin [5000000000, 5001000000): 50.0 % */
		EXPECT_EQ(5000000000ll, c->ts);
		EXPECT_NE(NULL, strstr(c->args, "\"%\":50.0"));
		c = find(&p, "C", "PE 1 utilization", 1);
		ASSERT_NE(NULL, c);
		EXPECT_EQ(5001000000ll, c->ts);
		EXPECT_NE(NULL, strstr(c->args, "\"%\":0"));
		ASSERT_NE(NULL, bw);
		ASSERT_NE(NULL, bw0);
		EXPECT_EQ(ex->ts, bw->ts);
		/* 1e6 bytes in 500 us: 2000 MB/s */
		EXPECT_NE(NULL, strstr(bw->args, "\"MB/s\":2000."));
		EXPECT_EQ(ex->ts + ex->dur, bw0->ts);
		EXPECT_NE(NULL, strstr(bw0->args, "\"MB/s\":0"));
		i = 1;
	}
	EXPECT_EQ(1, i);

	/* B/E: the capture */
	ASSERT_NE(NULL, find(&p, "B", "capture", 0));
	EXPECT_EQ((long long)T0 - 1000000, find(&p, "B", "capture", 0)->ts);
	EXPECT_EQ((long long)T0 + 900000, find(&p, "E", "capture", 0)->ts);

	/* names and sort indices */
	ASSERT_NE(NULL, meta_of(&p, "process_name", 100, -1));
	EXPECT_NE(NULL, strstr(meta_of(&p, "process_name", 100, -1)->args,
			       "\"name\":\"npu-classify\""));
	ASSERT_NE(NULL, meta_of(&p, "thread_name", 100, 101));
	EXPECT_NE(NULL, strstr(meta_of(&p, "thread_name", 100, 101)->args,
			       "\"name\":\"worker\""));
	ASSERT_NE(NULL, meta_of(&p, "process_name", DEV_PID(0), -1));
	EXPECT_NE(NULL, strstr(meta_of(&p, "process_name", DEV_PID(0), -1)->args,
			       "\"name\":\"npu3\""));
	ASSERT_NE(NULL, meta_of(&p, "thread_name", DEV_PID(0), NPF_TL_PE_TID + 1));
	EXPECT_NE(NULL, strstr(meta_of(&p, "thread_name", DEV_PID(0),
				       NPF_TL_PE_TID + 1)->args, "\"name\":\"PE 1\""));
	ASSERT_NE(NULL, meta_of(&p, "process_sort_index", DEV_PID(0), -1));
	EXPECT_GT(arg(meta_of(&p, "process_sort_index", DEV_PID(0), -1)->args,
		      "sort_index"),
		  arg(meta_of(&p, "process_sort_index", 100, -1)->args,
		      "sort_index"));
	EXPECT_NE(NULL, meta_of(&p, "thread_sort_index", DEV_PID(0),
				NPF_TL_QUEUE_TID));

	/* the absolute base in the metadata */
	EXPECT_NE(NULL, strstr(p.meta, "\"clock.realtime_ns\":\"1700000000123456789\""));
	EXPECT_NE(NULL, strstr(p.meta, "\"clock.monotonic_ns\":\"4999000000\""));
	EXPECT_NE(NULL, strstr(p.meta, "\"clock_domain\":\"CLOCK_MONOTONIC\""));
	EXPECT_NE(NULL, strstr(p.meta, "\"violations\":0"));

	/* every pid and tid fits a uint32 */
	for (i = 0; i < p.n; i++) {
		EXPECT_GE(p.ev[i].pid, 0);
		EXPECT_LE(p.ev[i].pid, 0xffffffffll);
		EXPECT_LE(p.ev[i].tid, 0xffffffffll);
	}
	parsed_free(&p);
	unlink(b.path);
}

TEST(loss_and_causality_violation_are_shown)
{
	const struct jev *ex, *v, *l0, *l1, *c0, *c1, *hl;
	struct parsed p;
	struct tb b;
	char buf[32];
	struct npf_item_host_lost hlost = { .pid = 100, .tid = 102, .count = 4 };

	tb_open(&b, "loss");
	tb_meta(&b, "pid", "100");
	tb_device(&b, 0, 0, 1);
	tb_exec(&b, 0, 100, 1, 0, T0, T0 + 1000, T0 + 2000, T0 + 3000, 0);
	tb_lost(&b, 0, NPU_TRACE_LOST_RING_FULL, 5);
	tb_add(&b, NPF_ITEM_HOST_LOST, &hlost, sizeof(hlost), NULL, 0);
	/* job 2: device start 1 ms before it was submitted */
	tb_exec(&b, 0, 100, 2, 0, T0 + 2000000, T0 + 1000000, T0 + 1500000,
		T0 + 3000000, 0);
	tb_lost(&b, 0, NPU_TRACE_LOST_RING_FULL, 3);
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));

	/* both executions are shown, the second marked */
	EXPECT_EQ(2, count(&p, "X", "exec"));
	/* no submit span: no flow end without its start */
	EXPECT_EQ(0, count(&p, "f", NULL));
	EXPECT_EQ(0, count(&p, "s", NULL));
	ex = find(&p, "X", "exec", 1);
	ASSERT_NE(NULL, ex);
	EXPECT_EQ(2, arg(ex->args, "job_id"));
	EXPECT_NE(NULL, strstr(ex->args, "\"violation\":true"));
	v = find(&p, "i", "causality violation", 0);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(1, count(&p, "i", "causality violation"));
	EXPECT_STREQ("t", v->scope);
	EXPECT_EQ(ex->pid, v->pid);
	EXPECT_EQ(ex->tid, v->tid);
	EXPECT_EQ(ex->ts, v->ts);
	EXPECT_EQ(2, arg(v->args, "job_id"));
	EXPECT_EQ((long long)T0 + 2000000, arg(v->args, "submit_ns"));
	/* no queue interval for an execution that started before submit */
	EXPECT_EQ(1, count(&p, "X", "queued"));

	/* LOST records: an instant each, a cumulative counter */
	l0 = find(&p, "i", "records lost (ring full)", 0);
	l1 = find(&p, "i", "records lost (ring full)", 1);
	ASSERT_NE(NULL, l0);
	ASSERT_NE(NULL, l1);
	EXPECT_STREQ("p", l0->scope);
	EXPECT_EQ(DEV_PID(0), l0->pid);
	EXPECT_EQ(5, arg(l0->args, "count"));
	EXPECT_STREQ("ring-full", sarg(l0->args, "reason", buf, sizeof(buf)));
	EXPECT_EQ(3, arg(l1->args, "count"));
	c0 = find(&p, "C", "records lost (ring full)", 0);
	c1 = find(&p, "C", "records lost (ring full)", 1);
	ASSERT_NE(NULL, c0);
	ASSERT_NE(NULL, c1);
	EXPECT_EQ(5, arg(c0->args, "count"));
	EXPECT_EQ(8, arg(c1->args, "count"));
	EXPECT_LE(c0->ts, c1->ts);

	/* host spans lost: an instant on the thread, a counter */
	hl = find(&p, "i", "host spans lost", 0);
	ASSERT_NE(NULL, hl);
	EXPECT_EQ(100, hl->pid);
	EXPECT_EQ(102, hl->tid);
	EXPECT_EQ(4, arg(hl->args, "count"));
	ASSERT_NE(NULL, find(&p, "C", "host spans lost", 0));
	EXPECT_EQ(4, arg(find(&p, "C", "host spans lost", 0)->args, "count"));
	EXPECT_NE(NULL, strstr(p.meta, "\"violations\":1"));
	parsed_free(&p);
	unlink(b.path);
}

/* --all: two processes, two devices with two PEs each */
TEST(several_processes_devices_and_pes)
{
	struct parsed p;
	struct tb b;
	int i, pid, dev, pe, n;

	tb_open(&b, "all");
	tb_meta(&b, "scope", "all");
	tb_device(&b, 0, 0, 2);
	tb_device(&b, 1, 1, 2);
	for (pid = 200; pid <= 300; pid += 100) {
		tb_thread(&b, pid, pid, pid == 200 ? "alpha" : "beta");
		for (dev = 0; dev < 2; dev++)
			for (pe = 0; pe < 2; pe++) {
				uint64_t job = (uint64_t)pid + dev * 10 + pe;
				uint64_t t = T0 + job * 10000;

				tb_span(&b, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB,
					pid, pid, t, t + 100, job * 2 + 1, 0,
					job, (uint32_t)dev);
				tb_exec(&b, (uint32_t)dev, pid, job, (uint16_t)pe,
					t + 50, t + 200, t + 3000, t + 4000, 8);
			}
	}
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));
	EXPECT_EQ(8, count(&p, "X", "exec"));
	EXPECT_EQ(8, count(&p, "X", "submit"));
	EXPECT_EQ(8, count(&p, "s", NULL));
	EXPECT_EQ(8, count(&p, "f", NULL));
	/* each execution on its device's process and its PE's track */
	n = 0;
	for (i = 0; i < p.n; i++) {
		const struct jev *e = &p.ev[i];
		long long job;
		int j;

		if (strcmp(e->ph, "X") || strcmp(e->name, "exec"))
			continue;
		job = arg(e->args, "job_id");
		EXPECT_EQ(DEV_PID((job % 100) / 10), e->pid);
		EXPECT_EQ(NPF_TL_PE_TID + job % 10, e->tid);
		EXPECT_EQ(job / 100 * 100, arg(e->args, "pid"));
		/* its flow end pairs with a start on its process's thread */
		for (j = 0; j < p.n; j++) {
			const struct jev *f = &p.ev[j], *s;
			int k;

			if (strcmp(f->ph, "f") || f->pid != e->pid ||
			    f->ts != e->ts)
				continue;
			for (k = 0; k < p.n; k++) {
				s = &p.ev[k];
				if (!strcmp(s->ph, "s") && !strcmp(s->id, f->id)) {
					EXPECT_EQ(job / 100 * 100, s->pid);
					n++;
				}
			}
		}
	}
	EXPECT_EQ(8, n);
	/* names of both processes and devices, and of every PE */
	EXPECT_NE(NULL, strstr(meta_of(&p, "process_name", 200, -1)->args, "alpha"));
	EXPECT_NE(NULL, strstr(meta_of(&p, "process_name", 300, -1)->args, "beta"));
	EXPECT_NE(NULL, strstr(meta_of(&p, "process_name", DEV_PID(1), -1)->args, "npu1"));
	for (dev = 0; dev < 2; dev++)
		for (pe = 0; pe < 2; pe++)
			EXPECT_NE(NULL, meta_of(&p, "thread_name", DEV_PID(dev),
						NPF_TL_PE_TID + pe));
	/* overlapping queue intervals go to separate lanes */
	EXPECT_EQ(8, count(&p, "X", "queued"));
	parsed_free(&p);
	unlink(b.path);
}

TEST(empty_and_truncated_traces)
{
	struct parsed p;
	struct tb b;

	tb_open(&b, "empty");
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));
	EXPECT_EQ(0, count(&p, "X", NULL));
	EXPECT_EQ(0, count(&p, "C", NULL));
	EXPECT_NE(NULL, strstr(p.meta, "\"truncated\":false"));
	parsed_free(&p);
	unlink(b.path);

	/* killed writer: a START without STOP, a span in a flushed chunk */
	tb_open(&b, "cut");
	tb_session(&b, NPUPROF_SESSION_START, T0);
	tb_span(&b, NPUPROF_SPAN_RUN, 0, 5, 5, T0 + 10, T0 + 20, 1, 0, 0, 0);
	npf_writer_flush(b.w);
	tb_span(&b, NPUPROF_SPAN_RUN, 0, 5, 5, T0 + 30, T0 + 40, 2, 0, 0, 0);
	npf_writer_abort(b.w);
	ASSERT_EQ(0, export_parse(b.path, &p));
	EXPECT_EQ(1, count(&p, "X", "run"));
	EXPECT_EQ(1, count(&p, "B", "capture"));
	/* the open capture is closed at the last time seen */
	ASSERT_EQ(1, count(&p, "E", "capture"));
	EXPECT_EQ((long long)T0 + 10, find(&p, "E", "capture", 0)->ts);
	EXPECT_NE(NULL, strstr(p.meta, "\"truncated\":true"));
	parsed_free(&p);
	unlink(b.path);
}

/* Spans that overlap without nesting go to a lane of their own */
TEST(spans_that_do_not_nest_get_a_lane)
{
	const struct jev *a, *c;
	struct parsed p;
	struct tb b;

	tb_open(&b, "lanes");
	tb_span(&b, NPUPROF_SPAN_USER, 0, 7, 8, T0, T0 + 1000, 1, 0, 0, 0);
	tb_span(&b, NPUPROF_SPAN_USER, 0, 7, 8, T0 + 500, T0 + 1500, 2, 0, 0, 0);
	tb_span(&b, NPUPROF_SPAN_USER, 0, 7, 8, T0 + 2000, T0 + 2500, 3, 0, 0, 0);
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));
	ASSERT_EQ(3, count(&p, "X", "user"));
	a = find(&p, "X", "user", 0);
	c = find(&p, "X", "user", 1);
	EXPECT_EQ(8, a->tid);
	EXPECT_EQ(8 + (1ll << NPF_TL_LANE_SHIFT), c->tid);
	EXPECT_EQ(1, arg(c->args, "lane"));
	EXPECT_EQ(8, find(&p, "X", "user", 2)->tid);
	EXPECT_NE(NULL, meta_of(&p, "thread_name", 7, 8 + (1ll << NPF_TL_LANE_SHIFT)));
	parsed_free(&p);
	unlink(b.path);
}

/* Labels and names that need escaping come back as they were */
TEST(strings_are_escaped)
{
	static const char label[] = "a \"q\" \\ b\tc\x01 \xc3\xa9 \xff!";
	struct parsed p;
	struct tb b;

	tb_open(&b, "escape");
	tb_thread(&b, 9, 9, "th\"x");
	tb_label(&b, 9, 9, T0, T0 + 10, 1, 3, label);
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));
	/* tab and newline are blanked by the test's printer only */
	ASSERT_EQ(1, count(&p, "X", "a \"q\" \\ b c\x01 \xc3\xa9 \xef\xbf\xbd!"));
	EXPECT_NE(NULL, strstr(meta_of(&p, "thread_name", 9, 9)->args,
			       "th\\\"x"));
	parsed_free(&p);
	unlink(b.path);
}

/* Written in end order over more than the reorder window's count */
TEST(many_spans_come_out_in_start_order)
{
	struct parsed p;
	struct tb b;
	int i, x = 0;
	long long last = 0;

	tb_open(&b, "order");
	for (i = 0; i < 3000; i++) {
		uint64_t t = T0 + (uint64_t)i * 1000;

		/* the child ends first, so it is written first */
		tb_span(&b, NPUPROF_SPAN_QUANTIZE, 0, 1, 1, t + 100, t + 200,
			(uint64_t)i * 2 + 2, (uint64_t)i * 2 + 1, 0, 0);
		tb_span(&b, NPUPROF_SPAN_RUN, 0, 1, 1, t, t + 900,
			(uint64_t)i * 2 + 1, 0, 0, 0);
	}
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));
	for (i = 0; i < p.n; i++) {
		if (strcmp(p.ev[i].ph, "X"))
			continue;
		EXPECT_GE(p.ev[i].ts, last);
		EXPECT_EQ(1, p.ev[i].tid);	/* everything nests */
		last = p.ev[i].ts;
		x++;
	}
	EXPECT_EQ(6000, x);
	parsed_free(&p);
	unlink(b.path);
}

/* A labelled record longer than the reorder window comes out late */
TEST(a_record_longer_than_the_window_stays_on_its_thread)
{
	struct parsed p;
	struct tb b;
	int i;

	tb_open(&b, "long");
	for (i = 0; i < 30; i++)
		tb_span(&b, NPUPROF_SPAN_RUN, 0, 3, 3,
			T0 + (uint64_t)i * 100000000, T0 + (uint64_t)i * 100000000 + 1000000,
			(uint64_t)i + 2, 1, 0, 0);
	tb_label(&b, 3, 3, T0 - 10, T0 + 3000000000ull, 1, 1, "trace");
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));
	ASSERT_EQ(1, count(&p, "X", "trace"));
	EXPECT_EQ(3, find(&p, "X", "trace", 0)->tid);
	EXPECT_EQ(30, count(&p, "X", "run"));
	for (i = 0; i < 30; i++)
		EXPECT_EQ(3, find(&p, "X", "run", i)->tid);
	EXPECT_EQ(NULL, strstr(p.meta, "\"late\":0,"));
	EXPECT_NE(NULL, strstr(p.meta, "\"lanes\":0,"));
	parsed_free(&p);
	unlink(b.path);
}

/*
 * Times are written from their ns as µs with 3 decimals; the exporter
 * keeps the text of the last time's ms and writes a time in the same ms
 * from it: times under 1 ms, on either side of an ms and of a power of
 * ten, far apart and back in the same ms each come out exact, both as
 * text and parsed.
 */
TEST(times_are_exact_across_ms_and_digit_counts)
{
	static const uint64_t ts[] = {
		0, 1, 999, 1000, 999999, 1000000, 1000001, 1000999,
		1001000, 1999999, 2000000, 9999999999ull, 10000000000ull,
		10000000001ull, 123456789012345ull, 123456789012999ull,
		123456789013000ull,
	};
	static const char *const text[] = {
		"\"ts\":0.000,", "\"ts\":0.001,", "\"ts\":0.999,",
		"\"ts\":1.000,", "\"ts\":999.999,", "\"ts\":1000.000,",
		"\"ts\":1000.001,", "\"ts\":1000.999,", "\"ts\":1001.000,",
		"\"ts\":1999.999,", "\"ts\":2000.000,",
		"\"ts\":9999999.999,", "\"ts\":10000000.000,",
		"\"ts\":10000000.001,", "\"ts\":123456789012.345,",
		"\"ts\":123456789012.999,", "\"ts\":123456789013.000,",
	};
	const size_t n = sizeof(ts) / sizeof(ts[0]);
	struct parsed p;
	struct tb b;
	size_t i;
	int j;

	tb_open(&b, "times");
	/* each span on a thread of its own, 1 ns long */
	for (i = 0; i < n; i++)
		tb_span(&b, NPUPROF_SPAN_RUN, 0, 1, 10 + (int)i, ts[i],
			ts[i] + 1, i + 1, 0, 0, 0);
	tb_close(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));
	for (i = 0; i < n; i++) {
		bool found = false;

		EXPECT_NE(NULL, strstr(p.text, text[i])) {
			TH_LOG("no %s", text[i]);
		}
		for (j = 0; j < p.n; j++) {
			if (strcmp(p.ev[j].ph, "X") || p.ev[j].tid != 10 + (long long)i)
				continue;
			found = true;
			EXPECT_EQ((long long)ts[i], p.ev[j].ts);
			EXPECT_EQ(1, p.ev[j].dur);
		}
		EXPECT_TRUE(found);
	}
	parsed_free(&p);
	unlink(b.path);
}

/* The X event of job @job named @name, op_index @idx (-1: none) */
static const struct jev *find_job(const struct parsed *p, const char *name,
				  long long job, long long idx)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->ev[i].ph, "X") && !strcmp(p->ev[i].name, name) &&
		    arg(p->ev[i].args, "job_id") == job &&
		    (idx < 0 || arg(p->ev[i].args, "op_index") == idx))
			return &p->ev[i];
	return NULL;
}

/*
 * Operators back to back at 10 days of uptime (write_b2b(), the trace of
 * the viewer test), where ts + dur in double lands on either side of the
 * next operator's ts: the importers that add in double see each operator
 * end at or before the next one starts, and inside its execution, which
 * ends with its last operator (speedscope's importer, parse_py: no
 * warning); in ns as Perfetto reads them (truncated), the same, with
 * every ts exact, an execution's dur exact and an operator's exact or
 * 1 ns short (Documentation/npu/export.rst, "Slice ends").
 */
TEST(back_to_back_operators_nest)
{
	uint64_t t = B2B_T0, start, d, end;
	const struct jev *ex, *op;
	int n_short = 0, n_ops = 0;
	struct parsed p;
	unsigned int j, k;
	struct tb b;

	write_b2b(&b);
	ASSERT_EQ(0, export_parse(b.path, &p));	/* speedscope: no warning */
	for (j = 0; j < B2B_EXECS; j++) {
		ex = find_job(&p, "exec", j + 1, -1);
		ASSERT_NE(NULL, ex);
		start = t;
		for (end = start, k = 0; k < B2B_OPS; k++)
			end += b2b_dur(j, k);
		EXPECT_EQ(DEV_PID(0), ex->pid);
		EXPECT_EQ(NPF_TL_PE_TID + j % B2B_PES, ex->tid);
		EXPECT_EQ((long long)start, ex->ts);
		EXPECT_EQ((long long)(end - start), ex->dur);
		for (k = 0; k < B2B_OPS; k++, t += d) {
			d = b2b_dur(j, k);
			op = find_job(&p, npu_prog_op_name(b2b_opcode(k)), j + 1, k);
			ASSERT_NE(NULL, op);
			n_ops++;
			EXPECT_EQ(ex->tid, op->tid);
			EXPECT_LT(ex - p.ev, op - p.ev);	/* the execution first */
			EXPECT_EQ((long long)t, op->ts);
			EXPECT_LE((long long)d - 1, op->dur);
			EXPECT_GE((long long)d, op->dur);
			n_short += op->dur != (long long)d;
		}
		EXPECT_EQ(end, t);
		t += b2b_gap(j);
	}
	EXPECT_EQ(B2B_EXECS * B2B_OPS, n_ops);
	EXPECT_EQ(B2B_EXECS * B2B_OPS, count(&p, "X", "CONV2D") +
		  count(&p, "X", "DWCONV2D") + count(&p, "X", "AVGPOOL") +
		  count(&p, "X", "FC") + count(&p, "X", "RESHAPE"));
	TH_LOG("%d of %d operators written short of their ns", n_short, n_ops);
	parsed_free(&p);
	unlink(b.path);
}

TEST_HARNESS_MAIN
