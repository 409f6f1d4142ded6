// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_sqlite.c - npuprof_export_sqlite(): one SQLite database per trace,
 * in the schema of Documentation/npu/sqlite.rst (tables of metadata,
 * devices, threads, sessions, spans, executions, operator records, clock
 * samples and fits, losses and the recorder's summary; views for the
 * reports), for users to answer their own questions in SQL or with
 * pandas.read_sql, as Nsight Systems' SQLite export is used.
 *
 * One pass over the trace through the join (join.c), so that executions
 * carry their trace and span ids. Rows go in through prepared statements
 * in transactions of NPF_SQ_BATCH rows; indexes are built at the end. The
 * database is written to PATH.tmp and renamed over PATH when complete, so
 * a failed export leaves no half database behind. Memory: the join's
 * waiting entries and SQLite's page cache (NPF_SQ_CACHE_KB), whatever the
 * length of the trace.
 *
 * Each call owns its database handle; callers serialize calls on a trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "npuprof_int.h"

#define NPF_SQ_BATCH	100000	/* rows per transaction */
#define NPF_SQ_CACHE_KB	16384	/* SQLite page cache */
#define NPF_SQ_VERSION	1	/* PRAGMA user_version of the schema */

static const char npf_sq_schema[] =
"CREATE TABLE meta(key TEXT NOT NULL, value TEXT);\n"
"CREATE TABLE devices(dev INTEGER PRIMARY KEY, path TEXT, minor INTEGER,\n"
"  pe_count INTEGER, clock_hz INTEGER, hw_version INTEGER,\n"
"  dram_size INTEGER, caps INTEGER, trace_levels INTEGER);\n"
"CREATE TABLE threads(pid INTEGER, tid INTEGER, name TEXT);\n"
"CREATE TABLE sessions(op TEXT, time_ns INTEGER);\n"
"CREATE TABLE spans(id INTEGER PRIMARY KEY, kind TEXT, kind_id INTEGER,\n"
"  name TEXT, pid INTEGER, tid INTEGER, trace_id TEXT, span_id TEXT,\n"
"  parent_id TEXT, start_ns INTEGER, end_ns INTEGER, dur_ns INTEGER,\n"
"  flags INTEGER, job_id INTEGER, minor INTEGER, op_index INTEGER,\n"
"  error INTEGER);\n"
"CREATE TABLE executions(id INTEGER PRIMARY KEY, dev INTEGER,\n"
"  minor INTEGER, job_id INTEGER, pid INTEGER, tid INTEGER,\n"
"  status INTEGER, trace_id TEXT, span_id TEXT, inference_span_id TEXT,\n"
"  pe INTEGER, exec_index INTEGER, n_ops INTEGER, submit_ns INTEGER,\n"
"  complete_ns INTEGER, start_ns INTEGER, end_ns INTEGER,\n"
"  start_tick INTEGER, end_tick INTEGER, run_ticks INTEGER,\n"
"  iowait_ticks INTEGER, total_ns INTEGER, run_ns INTEGER,\n"
"  iowait_ns INTEGER, err_ns INTEGER, dma_bytes INTEGER, macs INTEGER,\n"
"  inconsistent INTEGER, violation INTEGER);\n"
"CREATE TABLE operators(id INTEGER PRIMARY KEY, dev INTEGER,\n"
"  minor INTEGER, job_id INTEGER, pid INTEGER, tid INTEGER, pe INTEGER,\n"
"  exec_index INTEGER, op_index INTEGER, opcode INTEGER, name TEXT,\n"
"  start_ns INTEGER, end_ns INTEGER, dur_ns INTEGER, run_ns INTEGER,\n"
"  iowait_ns INTEGER, err_ns INTEGER, start_tick INTEGER,\n"
"  end_tick INTEGER, iowait_ticks INTEGER, dma_bytes INTEGER,\n"
"  macs INTEGER, inconsistent INTEGER);\n"
"CREATE TABLE clock_samples(dev INTEGER, host_before_ns INTEGER,\n"
"  device_tick INTEGER, host_after_ns INTEGER, samples INTEGER);\n"
"CREATE TABLE clock_fits(dev INTEGER, source TEXT, samples INTEGER,\n"
"  used INTEGER, segments INTEGER, ns_per_tick REAL, offset_ns REAL,\n"
"  err_ns INTEGER, checked INTEGER, violations INTEGER);\n"
"CREATE TABLE losses(dev INTEGER, kind TEXT, pid INTEGER, tid INTEGER,\n"
"  count INTEGER, time_ns INTEGER);\n"
"CREATE TABLE summary(spans INTEGER, spans_lost INTEGER,\n"
"  records INTEGER, lost_ring INTEGER, lost_device INTEGER,\n"
"  lost_host INTEGER, ring_errors INTEGER, violations INTEGER,\n"
"  start_ns INTEGER, stop_ns INTEGER);\n"
"CREATE VIEW inferences AS SELECT trace_id, span_id, tid AS \"thread.id\",\n"
"  dur_ns AS dur, pid, start_ns, end_ns FROM spans WHERE kind_id = 3;\n"
"CREATE VIEW npu_executions AS SELECT trace_id, span_id,\n"
"  pe AS pe_index, exec_index AS execution_index,\n"
"  total_ns AS \"NPU Total\", run_ns AS \"NPU Run\",\n"
"  iowait_ns AS \"NPU IoWait\", err_ns AS \"Bound (+-ns)\"\n"
"  FROM executions;\n"
"CREATE VIEW npu_operators AS SELECT name,\n"
"  AVG(dur_ns) AS \"average elapsed(ns)\", COUNT(*) AS count\n"
"  FROM operators WHERE dur_ns IS NOT NULL GROUP BY opcode\n"
"  ORDER BY 2 DESC, name;\n"
"CREATE VIEW external_operators AS SELECT trace_id, span_id,\n"
"  tid AS \"thread.id\", kind AS name, op_index AS operator_index,\n"
"  dur_ns AS dur FROM spans WHERE kind_id IN (6, 7, 8, 9);\n"
"CREATE VIEW inference_executions AS SELECT i.trace_id, i.span_id,\n"
"  i.dur_ns AS dur, COUNT(e.id) AS executions,\n"
"  SUM(e.total_ns) AS npu_total_ns, SUM(e.run_ns) AS npu_run_ns,\n"
"  SUM(e.iowait_ns) AS npu_iowait_ns\n"
"  FROM spans i LEFT JOIN executions e ON e.trace_id = i.trace_id\n"
"  AND e.inference_span_id = i.span_id\n"
"  WHERE i.kind_id = 3 GROUP BY i.id;\n"
"CREATE VIEW losses_total AS SELECT kind, SUM(count) AS count\n"
"  FROM losses GROUP BY kind;\n";

static const char npf_sq_indexes[] =
"CREATE INDEX spans_trace ON spans(trace_id);\n"
"CREATE INDEX spans_kind ON spans(kind_id);\n"
"CREATE INDEX spans_span ON spans(pid, span_id);\n"
"CREATE INDEX spans_job ON spans(minor, job_id);\n"
"CREATE INDEX executions_trace ON executions(trace_id);\n"
"CREATE INDEX executions_job ON executions(minor, job_id);\n"
"CREATE INDEX executions_inference ON executions(inference_span_id);\n"
"CREATE INDEX operators_job ON operators(minor, job_id);\n"
"CREATE INDEX operators_opcode ON operators(opcode);\n";

enum {
	SQ_META, SQ_DEVICE, SQ_THREAD, SQ_SESSION, SQ_SPAN, SQ_EXEC, SQ_OP,
	SQ_CLOCK, SQ_FIT, SQ_LOSS, SQ_SUMMARY, SQ_N
};

static const char *const npf_sq_insert[SQ_N] = {
	[SQ_META] = "INSERT INTO meta VALUES(?,?)",
	[SQ_DEVICE] = "INSERT INTO devices VALUES(?,?,?,?,?,?,?,?,?)",
	[SQ_THREAD] = "INSERT INTO threads VALUES(?,?,?)",
	[SQ_SESSION] = "INSERT INTO sessions VALUES(?,?)",
	[SQ_SPAN] = "INSERT INTO spans VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SQ_EXEC] = "INSERT INTO executions VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,"
		    "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SQ_OP] = "INSERT INTO operators VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		  "?,?,?,?,?,?,?,?,?)",
	[SQ_CLOCK] = "INSERT INTO clock_samples VALUES(?,?,?,?,?)",
	[SQ_FIT] = "INSERT INTO clock_fits VALUES(?,?,?,?,?,?,?,?,?,?)",
	[SQ_LOSS] = "INSERT INTO losses VALUES(?,?,?,?,?,?)",
	[SQ_SUMMARY] = "INSERT INTO summary VALUES(?,?,?,?,?,?,?,?,?,?)",
};

struct npf_sq {
	struct npuprof_trace *trace;
	const char *path;
	sqlite3 *db;
	sqlite3_stmt *st[SQ_N];
	uint64_t rows;		/* in the open transaction */
	int64_t last_time;
	int err;		/* -EIO once SQLite failed */
};

static int npf_sq_fail(struct npf_sq *s, const char *what)
{
	if (!s->err)
		npf_trace_set_error(s->trace, "sqlite: %s: %s", what,
				    s->db ? sqlite3_errmsg(s->db) : "out of memory");
	s->err = -EIO;
	return -EIO;
}

static int npf_sq_exec(struct npf_sq *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return npf_sq_fail(s, sql);
	return 0;
}

/*
 * Insert one row with statement @which. @fmt gives the values in order:
 * 'i' int64_t, 'u' uint64_t (stored as the same 64 bits, signed), 'd'
 * int (a 32-bit field), 'f' double, 's' const char * (NULL: NULL), 'n'
 * NULL; a '?' before one of them takes an int first: 0 stores NULL
 * instead of the value (which is still consumed).
 */
static int npf_sq_row(struct npf_sq *s, int which, const char *fmt, ...)
{
	sqlite3_stmt *st = s->st[which];
	va_list ap;
	int i = 1, rc = SQLITE_OK, present;

	va_start(ap, fmt);
	for (; *fmt && rc == SQLITE_OK; fmt++, i++) {
		present = 1;
		if (*fmt == '?') {
			present = va_arg(ap, int);
			fmt++;
		}
		switch (*fmt) {
		case 'i': {
			int64_t v = va_arg(ap, int64_t);

			rc = present ? sqlite3_bind_int64(st, i, v) :
				sqlite3_bind_null(st, i);
			break;
		}
		case 'u': {
			uint64_t v = va_arg(ap, uint64_t);

			rc = present ? sqlite3_bind_int64(st, i, (sqlite3_int64)v) :
				sqlite3_bind_null(st, i);
			break;
		}
		case 'd': {
			int v = va_arg(ap, int);

			rc = present ? sqlite3_bind_int64(st, i, v) :
				sqlite3_bind_null(st, i);
			break;
		}
		case 'f': {
			double v = va_arg(ap, double);

			rc = present ? sqlite3_bind_double(st, i, v) :
				sqlite3_bind_null(st, i);
			break;
		}
		case 's': {
			const char *v = va_arg(ap, const char *);

			rc = present && v ?
				sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) :
				sqlite3_bind_null(st, i);
			break;
		}
		default:
			rc = sqlite3_bind_null(st, i);
			break;
		}
	}
	va_end(ap);
	if (rc == SQLITE_OK && sqlite3_step(st) != SQLITE_DONE)
		rc = SQLITE_ERROR;
	sqlite3_reset(st);
	if (rc != SQLITE_OK)
		return npf_sq_fail(s, npf_sq_insert[which]);
	if (++s->rows >= NPF_SQ_BATCH) {
		s->rows = 0;
		if (npf_sq_exec(s, "COMMIT; BEGIN"))
			return -EIO;
	}
	return 0;
}

static int npf_sq_exec_row(void *ctx, const struct npf_exec_row *r)
{
	struct npf_sq *s = ctx;
	const struct npu_trace_rec_exec *e = &r->rec;
	char tid[NPF_HEX_TRACE], sid[NPF_HEX_SPAN], pid[NPF_HEX_SPAN];
	int dv = r->device, ok = r->dur.ok;

	return npf_sq_row(s, SQ_EXEC,
		"d?uudduss""s?u?u?u" "uu?i?i?u?u?u?u" "?i?i?i?u?u?u" "dd",
		(int)r->dev, r->minor != UINT32_MAX, (uint64_t)r->minor,
		e->job_id, (int)e->pid, (int)e->tid, (uint64_t)e->status,
		r->matched ? npf_hex_trace(tid, r->trace_id) : NULL,
		r->matched ? npf_hex_span(sid, r->span_id) : NULL,
		r->matched && r->parent_id ? npf_hex_span(pid, r->parent_id) : NULL,
		dv, (uint64_t)e->pe, dv, (uint64_t)e->exec_index, dv,
		(uint64_t)e->n_ops,
		e->submit_ns, e->complete_ns,
		dv && r->start.valid, r->start.ns, dv && r->end.valid, r->end.ns,
		dv, e->start_tick, dv, e->end_tick, dv, e->run_ticks,
		dv, e->iowait_ticks,
		ok, r->dur.total, ok, r->dur.run, ok, r->dur.iowait,
		ok && r->dur.err_ns != UINT64_MAX, r->dur.err_ns,
		dv, e->dma_bytes, dv, e->macs,
		(int)r->inconsistent, (int)r->violation);
}

static int npf_sq_op_row(void *ctx, const struct npf_op_row *r)
{
	struct npf_sq *s = ctx;
	const struct npu_trace_rec_op *o = r->rec;
	int ok = r->dur.ok;

	return npf_sq_row(s, SQ_OP,
		"d?uudduuuus" "?i?i?i?i?i?u" "uuuuud",
		(int)r->dev, r->minor != UINT32_MAX, (uint64_t)r->minor,
		o->job_id, (int)o->pid, (int)o->tid, (uint64_t)o->pe,
		(uint64_t)o->exec_index, (uint64_t)o->op_index,
		(uint64_t)o->opcode,
		npf_opcode_name(o->opcode),
		r->start.valid, r->start.ns, r->end.valid, r->end.ns,
		ok, r->dur.total, ok, r->dur.run, ok, r->dur.iowait,
		ok && r->dur.err_ns != UINT64_MAX, r->dur.err_ns,
		o->start_tick, o->end_tick, o->iowait_ticks, o->dma_bytes,
		o->macs, (int)r->inconsistent);
}

static const struct npf_join_ops npf_sq_ops = {
	.exec = npf_sq_exec_row,
	.op = npf_sq_op_row,
};

static const char *npf_sq_session_op(uint32_t op)
{
	static const char *const names[] = { "unknown", "start", "pause",
					     "resume", "stop" };

	return op < 5 ? names[op] : names[0];
}

static int npf_sq_span(struct npf_sq *s, const struct npuprof_event *ev)
{
	const struct npuprof_span_rec *p = ev->span;
	char tid[NPF_HEX_TRACE], sid[NPF_HEX_SPAN], par[NPF_HEX_SPAN];
	int job = !!(p->flags & NPUPROF_SPAN_F_JOB);

	return npf_sq_row(s, SQ_SPAN, "sdsddsssuuiu?u?d?dd",
		npuprof_span_kind_name(p->kind), (int)p->kind,
		p->kind == NPUPROF_SPAN_LABEL ? (ev->label ? ev->label : "") : NULL,
		(int)p->pid, (int)p->tid, npf_hex_trace(tid, p->trace_id),
		npf_hex_span(sid, p->span_id),
		p->parent_id ? npf_hex_span(par, p->parent_id) : NULL,
		p->start_ns, p->end_ns, (int64_t)(p->end_ns - p->start_ns),
		(uint64_t)p->flags, job, p->job_id, job, (int)p->minor,
		!!(p->flags & NPUPROF_SPAN_F_OP), (int)p->op_index,
		!!(p->flags & NPUPROF_SPAN_F_ERROR));
}

static int npf_sq_device(struct npf_sq *s, const struct npuprof_event *ev)
{
	struct npu_info info;
	size_t n = ev->info_size < sizeof(info) ? ev->info_size : sizeof(info);
	int full = n >= offsetof(struct npu_info, reserved);

	memset(&info, 0, sizeof(info));
	memcpy(&info, ev->info, n);
	return npf_sq_row(s, SQ_DEVICE, "ds?d?d?u?d?u?d?d",
		(int)ev->dev, ev->key, full, (int)info.minor, full,
		(int)info.pe_count, full, info.clock_hz, full,
		(int)info.hw_version, full, info.dram_size, full, (int)info.caps,
		full, (int)info.trace_levels);
}

static int npf_sq_record(struct npf_sq *s, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_hdr *h = ev->rec;

	if (h->type == NPU_TRACE_REC_CLOCK) {
		const struct npu_trace_rec_clock *c = ev->rec;

		return npf_sq_row(s, SQ_CLOCK, "duuud", (int)ev->dev,
				  c->host_before_ns, c->device_tick,
				  c->host_after_ns, (int)c->samples);
	}
	if (h->type == NPU_TRACE_REC_LOST) {
		const struct npu_trace_rec_lost *l = ev->rec;

		return npf_sq_row(s, SQ_LOSS, "dsnnui", (int)ev->dev,
				  npf_lost_reason_name(l->reason), l->count,
				  ev->time_ns);
	}
	return 0;
}

static int npf_sq_event(struct npf_sq *s, const struct npuprof_event *ev)
{
	const struct npuprof_summary *m = &ev->summary;

	switch (ev->type) {
	case NPUPROF_EV_META:
		return npf_sq_row(s, SQ_META, "ss", ev->key, ev->value);
	case NPUPROF_EV_DEVICE:
		return npf_sq_device(s, ev);
	case NPUPROF_EV_SPAN:
		return npf_sq_span(s, ev);
	case NPUPROF_EV_RECORD:
		return npf_sq_record(s, ev);
	case NPUPROF_EV_SESSION:
		return npf_sq_row(s, SQ_SESSION, "si",
				  npf_sq_session_op(ev->session_op), ev->time_ns);
	case NPUPROF_EV_HOST_LOST:
		return npf_sq_row(s, SQ_LOSS, "nsddui", "spans", (int)ev->pid,
				  (int)(int64_t)ev->id, ev->count, ev->time_ns);
	case NPUPROF_EV_CLOCK_FIT:
		return npf_sq_row(s, SQ_FIT, "dsdddffuuu", (int)ev->dev,
				  "recorder", (int)ev->fit.samples,
				  (int)ev->fit.used, (int)ev->fit.segments,
				  ev->fit.ns_per_tick, ev->fit.offset_ns,
				  ev->fit.err_ns, ev->fit.checked,
				  ev->fit.violations);
	case NPUPROF_EV_SUMMARY:
		return npf_sq_row(s, SQ_SUMMARY, "uuuuuuuuuu", m->spans,
				  m->spans_lost, m->records, m->lost_ring,
				  m->lost_device, m->lost_host, m->ring_errors,
				  m->violations, m->start_ns, m->stop_ns);
	case NPUPROF_EV_THREAD:
		return npf_sq_row(s, SQ_THREAD, "dds", (int)ev->pid,
				  (int)(int64_t)ev->id, ev->key);
	default:
		return 0;
	}
}

/* The reader's own fits (those the exported times use) */
static int npf_sq_fits(struct npf_sq *s, const struct npf_join_stats *js)
{
	const struct npf_clock_fit *f;
	uint32_t d;
	int ret = 0;

	for (d = 0; !ret && (f = npf_trace_fit(s->trace, d)); d++) {
		int have = f->nseg > 0;

		ret = npf_sq_row(s, SQ_FIT, "dsddd?f?f?unn", (int)d, "reader",
				 (int)f->samples, (int)f->used, (int)f->nseg,
				 have, have ? f->seg[0].ns_per_tick : 0.0,
				 have, have ? (double)f->seg[0].ref_ns -
				 f->seg[0].ns_per_tick * (double)f->seg[0].ref_tick :
				 0.0, have, f->err_ns);
	}
	(void)js;
	return ret;
}

static int npf_sq_open(struct npf_sq *s, const char *tmp)
{
	char sql[128];
	int i;

	unlink(tmp);
	if (sqlite3_open_v2(tmp, &s->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
		return npf_sq_fail(s, "open");
	snprintf(sql, sizeof(sql),
		 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		 "PRAGMA cache_size=-%d; PRAGMA user_version=%d;",
		 NPF_SQ_CACHE_KB, NPF_SQ_VERSION);
	if (npf_sq_exec(s, sql) || npf_sq_exec(s, npf_sq_schema))
		return -EIO;
	for (i = 0; i < SQ_N; i++)
		if (sqlite3_prepare_v2(s->db, npf_sq_insert[i], -1, &s->st[i],
				       NULL) != SQLITE_OK)
			return npf_sq_fail(s, npf_sq_insert[i]);
	return npf_sq_exec(s, "BEGIN");
}

static void npf_sq_close(struct npf_sq *s)
{
	int i;

	for (i = 0; i < SQ_N; i++)
		sqlite3_finalize(s->st[i]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK && !s->err)
		npf_sq_fail(s, "close");
	s->db = NULL;
}

NPUPROF_EXPORT
int npuprof_export_sqlite(struct npuprof_trace *trace, const char *path)
{
	struct npf_sq s = { .trace = trace, .path = path };
	struct npuprof_event ev;
	struct npf_join *j = NULL;
	char *tmp = NULL;
	int ret;

	if (!trace || !path || !*path)
		return -EINVAL;
	ret = npuprof_trace_rewind(trace);
	if (ret)
		return ret;
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return -ENOMEM;
	ret = npf_join_new(trace, &npf_sq_ops, &s, &j);
	if (!ret)
		ret = npf_sq_open(&s, tmp);
	while (!ret && (ret = npuprof_trace_next(trace, &ev)) == 1) {
		ret = npf_sq_event(&s, &ev);
		if (!ret)
			ret = npf_join_event(j, &ev);
	}
	if (!ret)
		ret = npf_join_finish(j);
	if (!ret)
		ret = npf_sq_fits(&s, npf_join_stats(j));
	if (!ret)
		ret = npf_sq_exec(&s, "COMMIT");
	if (!ret)
		ret = npf_sq_exec(&s, npf_sq_indexes);
	if (!ret)
		ret = npf_sq_exec(&s, "ANALYZE");
	npf_sq_close(&s);
	if (!ret && s.err)
		ret = s.err;
	if (!ret && rename(tmp, path)) {
		ret = -errno;
		npf_trace_set_error(trace, "rename to %s: %s", path, strerror(-ret));
	}
	if (ret)
		unlink(tmp);
	npf_join_free(j);
	free(tmp);
	return ret;
}
