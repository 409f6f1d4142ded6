// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-report.c - benchmarks of libnpuprof's analysis side: a synthetic
 * trace of N events (1 M and 10 M by default) as a capture writes them
 * (per inference: seven host spans, an EXEC and ten OP records in one
 * RECORDS item, a CLOCK sample every 1000 inferences; at the end the
 * index of clock samples a session writes at stop) exported to SQLite
 * (npuprof_export_sqlite()), and the time of the summary
 * (npuprof_print_summary()) and of the latency breakdown
 * (npuprof_print_breakdown()). Each measurement runs in a child process so
 * that its peak RSS is its own (wait4's ru_maxrss). Prints events/s, MB/s
 * of trace read, the database size and the peak RSS; never fails on a
 * number. With --runs K each measurement runs K times and the best wall
 * time is printed (the largest peak RSS): this machine is noisy. Next to
 * the export, SQLite alone on the same rows (dump_rows(), load_rows()):
 * the export's floor, measured in alternation with it, and the ratio.
 *
 * Usage: npuprof-bench-report [--quick] [--dir DIR] [--runs K] [EVENTS...]
 *        npuprof-bench-report --gen FILE EVENTS   (write the trace only)
 *        npuprof-bench-report [--runs K] --trace FILE   (an existing trace)
 *        npuprof-bench-report --export FILE DB   (the export, nothing else)
 *        npuprof-bench-report --rows DB ROWS   (the rows of an exported DB)
 *        npuprof-bench-report --load ROWS DB   (SQLite alone on them)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "npf_index.h"
#include "npuprof_analysis.h"
#include "trace_format.h"
#include "writer.h"

#define EV_PER_INF	18	/* 7 spans, 1 EXEC, 10 OP */
#define OPS_PER_INF	10

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void span(struct npf_writer *w, uint16_t kind, uint16_t flags,
		 uint64_t id, uint64_t parent, uint64_t t, uint64_t dur,
		 uint64_t job)
{
	struct npuprof_span_rec s;

	memset(&s, 0, sizeof(s));
	s.kind = kind;
	s.flags = flags;
	s.pid = 1000;
	s.tid = 1001;
	s.span_id = id;
	s.parent_id = parent;
	s.trace_id[0] = 0x1234;
	s.trace_id[1] = parent ? parent : id;
	s.start_ns = t;
	s.end_ns = t + dur;
	s.job_id = job;
	s.op_index = 0;
	if (npf_writer_add(w, NPF_ITEM_SPAN, &s, sizeof(s), NULL, 0))
		abort();
}

/* A trace of about @events events; returns the events written */
static uint64_t make_trace(const char *path, uint64_t events)
{
	uint64_t n = events / EV_PER_INF, i, written = 0;
	struct npf_item_device dev;
	struct npu_info info;
	struct npf_writer *w;
	uint8_t run[sizeof(struct npu_trace_rec_clock) +
		    sizeof(struct npu_trace_rec_exec) +
		    OPS_PER_INF * sizeof(struct npu_trace_rec_op)];
	uint32_t seq = 0;

	if (npf_writer_open(path, 0, &w))
		abort();
	memset(&dev, 0, sizeof(dev));
	memset(&info, 0, sizeof(info));
	strcpy(dev.path, "/dev/npu0");
	dev.info_size = sizeof(info);
	info.clock_hz = 1000000000;
	info.pe_count = 4;
	npf_writer_add(w, NPF_ITEM_DEVICE, &dev, sizeof(dev), &info, sizeof(info));
	for (i = 0; i < n; i++) {
		uint64_t t = 2000000000ull + i * 100000, id = i * 8 + 1, job = i + 1;
		struct npf_item_records ir = { .dev = 0, .count = 0 };
		struct npu_trace_rec_exec *e;
		size_t len = 0;
		int k;

		if (i % 1000 == 0) {
			struct npu_trace_rec_clock *c = (void *)run;

			memset(c, 0, sizeof(*c));
			c->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_CLOCK,
							     sizeof(*c), seq++ };
			c->host_before_ns = t - 500;
			c->device_tick = t - 1000000000ull;
			c->host_after_ns = t + 500;
			c->clock_hz = 1000000000;
			len += sizeof(*c);
			ir.count++;
			written++;
		}
		for (k = 0; k < OPS_PER_INF; k++) {
			struct npu_trace_rec_op *o = (void *)(run + len);

			memset(o, 0, sizeof(*o));
			o->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_OP,
							     sizeof(*o), seq++ };
			o->pid = 1000;
			o->tid = 1001;
			o->job_id = job;
			o->opcode = (uint16_t)(1 + k % 13);
			o->op_index = (uint32_t)k;
			o->start_tick = t + 10000 + (uint64_t)k * 3000 - 1000000000ull;
			o->end_tick = o->start_tick + 2500 + (uint64_t)k * 10;
			o->iowait_ticks = 300;
			len += sizeof(*o);
			ir.count++;
		}
		e = (void *)(run + len);
		memset(e, 0, sizeof(*e));
		e->hdr = (struct npu_trace_rec_hdr){ NPU_TRACE_REC_EXEC,
						     sizeof(*e), seq++ };
		e->flags = NPU_TRACE_EXEC_F_DEVICE;
		e->pid = 1000;
		e->tid = 1001;
		e->job_id = job;
		e->submit_ns = t + 5000;
		e->complete_ns = t + 50000;
		e->pe = (uint16_t)(i % 4);
		e->n_ops = OPS_PER_INF;
		e->start_tick = t + 10000 - 1000000000ull;
		e->end_tick = e->start_tick + 32000;
		e->run_ticks = 28000;
		e->iowait_ticks = 4000;
		len += sizeof(*e);
		ir.count++;
		/* the ring's records come before the spans, as they often do */
		if (npf_writer_add(w, NPF_ITEM_RECORDS, &ir, sizeof(ir), run, len))
			abort();
		span(w, NPUPROF_SPAN_QUANTIZE, NPUPROF_SPAN_F_OP, id + 1, id, t + 100, 900, 0);
		span(w, NPUPROF_SPAN_LOWER, NPUPROF_SPAN_F_OP, id + 2, id, t + 1000, 2000, 0);
		span(w, NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_F_JOB, id + 3, id, t + 4000, 1500, job);
		span(w, NPUPROF_SPAN_WAIT, NPUPROF_SPAN_F_JOB, id + 4, id, t + 6000, 45000, job);
		span(w, NPUPROF_SPAN_UNLOWER, NPUPROF_SPAN_F_OP, id + 5, id, t + 52000, 2000, 0);
		span(w, NPUPROF_SPAN_DEQUANTIZE, NPUPROF_SPAN_F_OP, id + 6, id, t + 55000, 800, 0);
		span(w, NPUPROF_SPAN_INFERENCE, 0, id, 0, t, 60000 + i % 7919, 0);
		written += EV_PER_INF;
	}
	/* the index, as a session writes it at stop: from a reading so far */
	if (npf_trace_index_file(w, path) || npf_writer_close(w))
		abort();
	return written;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/*
 * SQLite alone: the rows of an exported database loaded again through the
 * same schema by the fastest plain loop SQLite offers, with no profiler
 * work, the floor the export is measured against. dump_rows() writes the
 * database's schema and every row of every table to a flat file (not
 * timed); load_rows() (timed, in a child) maps it and inserts the same
 * values with the export's pragmas, in one transaction, through prepared
 * statements of LOAD_ROWS rows bound with SQLITE_STATIC values that point
 * into the map (an integer or NULL only when the parameter does not hold
 * it yet, as the export binds), then builds the same indexes and runs the
 * same ANALYZE.
 *
 * The file: records of a tag byte. 'S' (a table or view to create) and
 * 'I' (an index, built after the rows): a u32 length and the SQL; 'V': the
 * u32 user_version; 'T': a table's name (u32 length, bytes), its u32
 * column count and u64 row count, then its values row after row; 'E': the
 * end, and 8 bytes of 0. A value: a byte, 0 for NULL, 1 to 8 for an
 * integer of that many bytes (little endian, sign extended), VAL_REAL and
 * 8 bytes, VAL_TEXT or VAL_BLOB and a u32 length and the bytes. Numbers
 * in the host's order (little endian): the file is read where written.
 */
#define LOAD_ROWS	32	/* rows per INSERT, as the export's large tables */
#define VAL_REAL	9
#define VAL_TEXT	10
#define VAL_BLOB	11

/* The export's pragmas (lib/analysis/export_sqlite.c) */
#define LOAD_PRAGMAS "PRAGMA page_size=16384; " \
	"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" \
	"PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=FILE;" \
	"PRAGMA cache_size=-16384;"

static void put_u32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void put_bytes(FILE *f, int tag, const void *p, uint32_t n)
{
	fputc(tag, f);
	put_u32(f, n);
	fwrite(p, 1, n, f);
}

static void put_value(FILE *f, sqlite3_stmt *st, int col)
{
	int64_t v;
	double d;
	int n;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		v = sqlite3_column_int64(st, col);
		for (n = 1; n < 8; n++)
			if (v >= -(INT64_C(1) << (8 * n - 1)) &&
			    v < INT64_C(1) << (8 * n - 1))
				break;
		fputc(n, f);
		fwrite(&v, 1, (size_t)n, f);	/* little endian */
		break;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, col);
		fputc(VAL_REAL, f);
		fwrite(&d, sizeof(d), 1, f);
		break;
	case SQLITE_TEXT:
		put_bytes(f, VAL_TEXT, sqlite3_column_text(st, col),
			  (uint32_t)sqlite3_column_bytes(st, col));
		break;
	case SQLITE_BLOB:
		put_bytes(f, VAL_BLOB, sqlite3_column_blob(st, col),
			  (uint32_t)sqlite3_column_bytes(st, col));
		break;
	default:
		fputc(0, f);
	}
}

/*
 * The column of table @name that is its INTEGER PRIMARY KEY (the rowid),
 * or -1
 */
static int rowid_column(sqlite3 *db, const char *name)
{
	char *sql = sqlite3_mprintf("SELECT cid, type, pk FROM "
				    "pragma_table_info(%Q)", name);
	sqlite3_stmt *st;
	int col = -1, pks = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (!sqlite3_column_int(st, 2))
				continue;
			pks++;
			if (!sqlite3_stricmp((const char *)sqlite3_column_text(st, 1),
					     "INTEGER"))
				col = sqlite3_column_int(st, 0);
		}
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return pks == 1 ? col : -1;
}

/*
 * The rows of table @name of @db into @f, in rowid order. A rowid that
 * is the row's number (from 1), as the export's are, is written NULL:
 * SQLite gives the row the same, as it did in the export, without looking
 * for it in the table.
 */
static int dump_table(sqlite3 *db, const char *name, FILE *f)
{
	int i, n, rc, ipk = rowid_column(db, name);
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", name);
	uint64_t rows = 0, r = 0;
	bool seq = true;	/* every rowid so far its row's number */

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		rows = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sql = sqlite3_mprintf("SELECT * FROM \"%w\" ORDER BY rowid", name);
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return -1;
	n = sqlite3_column_count(st);
	put_bytes(f, 'T', name, (uint32_t)strlen(name));
	put_u32(f, (uint32_t)n);
	fwrite(&rows, sizeof(rows), 1, f);
	while (r < rows && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		r++;
		for (i = 0; i < n; i++) {
			if (i == ipk && seq &&
			    sqlite3_column_int64(st, i) == (int64_t)r) {
				fputc(0, f);
				continue;
			}
			if (i == ipk)
				seq = false;
			put_value(f, st, i);
		}
	}
	sqlite3_finalize(st);
	return r == rows ? 0 : -1;
}

/* The schema and rows of the database @db into the file @out */
static int dump_rows(const char *db, const char *out)
{
	sqlite3 *d = NULL;
	sqlite3_stmt *st = NULL;
	FILE *f = fopen(out, "w");
	int ret = -1, rc, pass;

	if (!f)
		return -1;
	if (sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_prepare_v2(d, "PRAGMA user_version", -1, &st, NULL) ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto out;
	fputc('V', f);
	put_u32(f, (uint32_t)sqlite3_column_int(st, 0));
	sqlite3_finalize(st);
	/* the tables and views, then every table's rows, then the indexes */
	if (sqlite3_prepare_v2(d, "SELECT type, name, sql FROM sqlite_master "
			       "WHERE sql NOT NULL AND name NOT LIKE 'sqlite%' "
			       "ORDER BY rowid", -1, &st, NULL))
		goto out;
	for (pass = 0; pass < 3; pass++) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *type = (const char *)sqlite3_column_text(st, 0);
			const char *name = (const char *)sqlite3_column_text(st, 1);
			const char *sql = (const char *)sqlite3_column_text(st, 2);
			bool index = !strcmp(type, "index");

			if (pass == 0 && !index)
				put_bytes(f, 'S', sql, (uint32_t)strlen(sql));
			else if (pass == 1 && !strcmp(type, "table") &&
				 dump_table(d, name, f))
				goto out;
			else if (pass == 2 && index)
				put_bytes(f, 'I', sql, (uint32_t)strlen(sql));
		}
		if (rc != SQLITE_DONE)
			goto out;
		sqlite3_reset(st);
	}
	/* 'E', then the padding bind_value() reads integers into */
	fwrite("E\0\0\0\0\0\0\0\0", 9, 1, f);
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(d);
	if (fclose(f))
		ret = -1;
	if (ret)
		unlink(out);
	return ret;
}

/*
 * A cursor over the mapped file: NULL once it ran past the end; @done
 * the start of what is still mapped in
 */
struct load_cur {
	const uint8_t *p, *end, *done;
};

/*
 * Give back the pages read before @c (rows already inserted: SQLite
 * holds no pointer into them), so that the peak RSS is SQLite's and not
 * the map's
 */
static void load_release(struct load_cur *c)
{
	long pg = sysconf(_SC_PAGESIZE);
	const uint8_t *to;

	if (!c->p || c->p - c->done < (8 << 20))
		return;
	to = (const uint8_t *)((uintptr_t)c->p & ~(uintptr_t)(pg - 1));
	madvise((void *)c->done, (size_t)(to - c->done), MADV_DONTNEED);
	c->done = to;
}

static const void *take(struct load_cur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (!p || (size_t)(c->end - p) < n) {
		c->p = NULL;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t take_u32(struct load_cur *c)
{
	const void *p = take(c, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

/*
 * What a parameter of the batched INSERT holds since it was last bound
 * (SQLite keeps bindings across sqlite3_reset()): tag 0 (NULL) or 1 (an
 * integer, @v), else not known
 */
struct load_val {
	int64_t v;
	int tag;
};

/*
 * Bind the value at @c to column @col of @st, unless @last (what the
 * parameter holds, or NULL) says it already holds that integer or NULL,
 * as the export does. The file ends with 8 bytes of padding after 'E', so
 * that an integer is read as 8 bytes at once and its bytes beyond the
 * value's shifted out.
 */
static inline int bind_value(sqlite3_stmt *st, int col, struct load_cur *c,
			     struct load_val *last)
{
	const uint8_t *p = c->p;
	unsigned int t, sh;
	uint64_t u;
	uint32_t n;
	int64_t v;
	double d;

	if (!p || c->end - p < 9) {
		c->p = NULL;
		return -1;
	}
	t = *p;
	if (t - 1 < 8) {
		memcpy(&u, p + 1, 8);	/* little endian */
		sh = 64 - 8 * t;
		c->p = p + 1 + t;
		v = (int64_t)(u << sh) >> sh;
		if (last && last->tag == 1 && last->v == v)
			return SQLITE_OK;
		if (last)
			*last = (struct load_val){ v, 1 };
		return sqlite3_bind_int64(st, col, v);
	}
	c->p = p + 1;
	if (last && t == 0 && last->tag == 0)
		return SQLITE_OK;
	if (last)
		last->tag = t == 0 ? 0 : -1;
	if (t == 0)
		return sqlite3_bind_null(st, col);
	if (t == VAL_REAL) {
		memcpy(&d, p + 1, 8);
		c->p = p + 9;
		return sqlite3_bind_double(st, col, d);
	}
	n = take_u32(c);
	if (!(p = take(c, n)) || n > INT32_MAX)
		return -1;
	if (t == VAL_TEXT)
		return sqlite3_bind_text(st, col, (const char *)p, (int)n,
					 SQLITE_STATIC);
	return t == VAL_BLOB ? sqlite3_bind_blob(st, col, p, (int)n,
						 SQLITE_STATIC) : -1;
}

/* INSERT INTO @name of @rows rows of @ncols values */
static sqlite3_stmt *load_insert(sqlite3 *db, const char *name, int ncols,
				 int rows)
{
	sqlite3_str *s = sqlite3_str_new(db);
	sqlite3_stmt *st = NULL;
	char *sql;
	int r, i;

	sqlite3_str_appendf(s, "INSERT INTO \"%w\" VALUES", name);
	for (r = 0; r < rows; r++) {
		sqlite3_str_appendall(s, r ? ",(" : "(");
		for (i = 0; i < ncols; i++)
			sqlite3_str_appendall(s, i ? ",?" : "?");
		sqlite3_str_appendchar(s, 1, ')');
	}
	sql = sqlite3_str_finish(s);
	if (sql)
		sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st,
				   NULL);
	sqlite3_free(sql);
	return st;
}

/* The rows of one table ('T' record) at @c */
static int load_table(sqlite3 *db, struct load_cur *c)
{
	uint32_t len = take_u32(c), ncols;
	const char *p = take(c, len);
	const void *q;
	struct load_val last[LOAD_ROWS * 64];
	sqlite3_stmt *many, *one;
	uint64_t rows, r;
	char name[128];
	int i, rc = 0, ret = -1;

	ncols = take_u32(c);
	q = take(c, 8);
	if (!p || !q || len >= sizeof(name) || !ncols || ncols > 64)
		return -1;
	memcpy(&rows, q, 8);
	memcpy(name, p, len);
	name[len] = 0;
	for (i = 0; i < LOAD_ROWS * 64; i++)
		last[i].tag = -1;
	many = load_insert(db, name, (int)ncols, LOAD_ROWS);
	one = load_insert(db, name, (int)ncols, 1);
	if (!many || !one)
		goto out;
	for (r = 0; r + LOAD_ROWS <= rows; r += LOAD_ROWS) {
		for (i = 0; i < LOAD_ROWS * (int)ncols; i++)
			rc |= bind_value(many, i + 1, c, &last[i]);
		if (rc || sqlite3_step(many) != SQLITE_DONE)
			goto out;
		sqlite3_reset(many);
		load_release(c);
	}
	for (; r < rows; r++) {
		for (i = 0; i < (int)ncols; i++)
			rc |= bind_value(one, i + 1, c, NULL);
		if (rc || sqlite3_step(one) != SQLITE_DONE)
			goto out;
		sqlite3_reset(one);
	}
	ret = 0;
out:
	sqlite3_finalize(many);
	sqlite3_finalize(one);
	return ret;
}

static int load_exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* The SQL of an 'S' or 'I' record at @c, run on @db */
static int load_sql(sqlite3 *db, struct load_cur *c)
{
	uint32_t n = take_u32(c);
	const char *p = take(c, n);
	char *sql = p ? strndup(p, n) : NULL;
	int ret = sql ? load_exec(db, sql) : -1;

	free(sql);
	return ret;
}

/* Load the file @dump (dump_rows()) into a new database @db */
static int load_rows(const char *dump, const char *db)
{
	struct load_cur c = { NULL, NULL, NULL };
	struct stat st;
	sqlite3 *d = NULL;
	void *map = MAP_FAILED;
	const uint8_t *t;
	int fd = open(dump, O_RDONLY), ret = -1, began = 0;
	char sql[64];

	if (fd < 0 || fstat(fd, &st))
		goto out;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	c.p = map;
	c.done = map;
	c.end = c.p + st.st_size;
	unlink(db);
	if (sqlite3_open_v2(db, &d, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    load_exec(d, LOAD_PRAGMAS))
		goto out;
	while ((t = take(&c, 1)) && *t != 'E') {
		if (*t == 'V') {
			snprintf(sql, sizeof(sql), "PRAGMA user_version=%u;",
				 take_u32(&c));
			ret = load_exec(d, sql);
		} else if (*t == 'S') {
			ret = load_sql(d, &c);
		} else if (*t == 'T') {
			/* one transaction for the rows of every table */
			ret = began++ ? 0 : load_exec(d, "BEGIN");
			if (!ret)
				ret = load_table(d, &c);
		} else if (*t == 'I') {
			/* the indexes after the last row, as the export */
			ret = began ? load_exec(d, "COMMIT") : 0;
			began = 0;
			if (!ret)
				ret = load_sql(d, &c);
		} else {
			ret = -1;
		}
		if (ret)
			goto out;
	}
	ret = -1;
	if (!t || (began && load_exec(d, "COMMIT")) ||
	    load_exec(d, "PRAGMA analysis_limit=1000; ANALYZE"))
		goto out;
	ret = 0;
out:
	if (d && sqlite3_close(d) != SQLITE_OK)
		ret = -1;
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* CPU seconds (user + system) in @ru */
static double cpu_s(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
	       (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1e-6;
}

/* npuprof_export_sqlite() of the trace @trace into @db: exit status */
static int export_one(const char *trace, const char *db)
{
	struct npuprof_trace *t;
	char err[256];
	int ret;

	if (npuprof_trace_open(trace, &t, err, sizeof(err))) {
		fprintf(stderr, "npuprof-bench-report: %s\n", err);
		return 1;
	}
	ret = npuprof_export_sqlite(t, db);
	if (ret)
		fprintf(stderr, "npuprof-bench-report: %s\n", npuprof_trace_error(t));
	npuprof_trace_close(t);
	return ret ? 1 : 0;
}

/*
 * --rows DB FILE (@load false: the rows of DB) or --load FILE DB (SQLite
 * alone on them): the exit status, and a line when it failed
 */
static int rows_cmd(bool load, const char *from, const char *to)
{
	if (!(load ? load_rows(from, to) : dump_rows(from, to)))
		return 0;
	fprintf(stderr, "npuprof-bench-report: cannot %s %s into %s\n",
		load ? "load the rows (of --rows?) of" : "write the rows of",
		from, to);
	return 1;
}

/* What a child measures */
enum { RUN_EXPORT, RUN_SUMMARY, RUN_BREAKDOWN, RUN_ALONE };

/*
 * Run @what on @trace (for RUN_ALONE, a file of dump_rows()) in a child:
 * wall seconds, its CPU seconds in *@cpu and its peak RSS (KiB) in
 * *@rss_kb, or -1
 */
static double child(int what, const char *trace, const char *db, long *rss_kb,
		    double *cpu)
{
	struct rusage ru;
	double t0 = now_s();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		struct npuprof_trace *t;
		char err[256];
		FILE *null;
		int ret;

		if (what == RUN_ALONE)
			_exit(load_rows(trace, db) ? 1 : 0);
		if (npuprof_trace_open(trace, &t, err, sizeof(err)))
			_exit(1);
		null = fopen("/dev/null", "w");
		if (what == RUN_EXPORT)
			ret = npuprof_export_sqlite(t, db);
		else if (!null)
			ret = -1;
		else if (what == RUN_SUMMARY)
			ret = npuprof_print_summary(t, null,
				NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_TABLE));
		else
			ret = npuprof_print_breakdown(t, null,
				NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_TABLE));
		if (ret)
			fprintf(stderr, "npuprof-bench-report: %s\n", npuprof_trace_error(t));
		_exit(ret ? 1 : 0);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	*rss_kb = ru.ru_maxrss;
	*cpu = cpu_s(&ru);
	return now_s() - t0;
}

/* The spans and device records of the trace @path (0 if unreadable) */
static uint64_t count_events(const char *path)
{
	struct npuprof_trace *t;
	struct npuprof_event ev;
	uint64_t n = 0;
	char err[256];

	if (npuprof_trace_open(path, &t, err, sizeof(err)))
		return 0;
	while (npuprof_trace_next(t, &ev) == 1)
		n += ev.type == NPUPROF_EV_SPAN || ev.type == NPUPROF_EV_RECORD;
	npuprof_trace_close(t);
	return n;
}

/* The best of the runs of one measurement */
struct best {
	double wall, cpu;	/* the least of the runs; wall < 0: failed */
	long rss_kb;		/* the largest */
	int runs;
};

/* One more run of child(@what) into @b (none once a run failed) */
static void run_once(struct best *b, int what, const char *trace,
		     const char *db)
{
	double t, c = 0;
	long rss = 0;

	if (b->runs && b->wall < 0)
		return;
	t = child(what, trace, db, &rss, &c);
	if (t < 0 || !b->runs || t < b->wall)
		b->wall = t;
	if (!b->runs || c < b->cpu)
		b->cpu = c;
	if (rss > b->rss_kb)
		b->rss_kb = rss;
	b->runs++;
}

/*
 * The export, then SQLite alone on the rows it wrote, @runs times in
 * alternation (the same load for both): best of each into @ex and @al;
 * the sizes of both databases in @db_mb
 */
static void export_and_alone(int runs, const char *trace, const char *db,
			     const char *dir, struct best *ex, struct best *al,
			     double db_mb[2])
{
	char dump[560], adb[560];
	int i;

	snprintf(dump, sizeof(dump), "%s/npuprof-bench-report-%d.rows", dir,
		 (int)getpid());
	snprintf(adb, sizeof(adb), "%s/npuprof-bench-report-%d.alone.db", dir,
		 (int)getpid());
	for (i = 0; i < runs; i++) {
		run_once(ex, RUN_EXPORT, trace, db);
		if (ex->wall < 0)
			break;
		if (!i && dump_rows(db, dump)) {
			al->wall = -1;
			al->runs = 1;
		}
		run_once(al, RUN_ALONE, dump, adb);
	}
	db_mb[0] = (double)file_size(db) / 1e6;
	db_mb[1] = (double)file_size(adb) / 1e6;
	unlink(dump);
	unlink(adb);
}

/* Benchmark @events events in a new trace under @dir, or @given */
static void bench(const char *dir, uint64_t events, const char *given, int runs)
{
	struct best ex = { 0 }, al = { 0 }, b;
	char trace[512], db[520];
	uint64_t n, bytes;
	double tw, db_mb[2];
	int i;

	if (given) {
		snprintf(trace, sizeof(trace), "%s", given);
		snprintf(db, sizeof(db), "%s/npuprof-bench-report-%d.db", dir,
			 (int)getpid());
		bytes = file_size(trace);
		n = count_events(trace);
		printf("report: trace %s of %llu events, %.1f MB\n", trace,
		       (unsigned long long)n, (double)bytes / 1e6);
	} else {
		snprintf(trace, sizeof(trace), "%s/npuprof-bench-report-%d.npuprof",
			 dir, (int)getpid());
		snprintf(db, sizeof(db), "%s.db", trace);
		tw = now_s();
		n = make_trace(trace, events);
		tw = now_s() - tw;
		bytes = file_size(trace);
		printf("report: trace of %llu events (%llu inferences), %.1f MB, written in %.2f s\n",
		       (unsigned long long)n, (unsigned long long)(n / EV_PER_INF),
		       (double)bytes / 1e6, tw);
	}
	export_and_alone(runs, trace, db, dir, &ex, &al, db_mb);
	if (ex.wall < 0)
		printf("report: sqlite export failed\n");
	else
		printf("report:   sqlite export: %.2f s (CPU %.2f s), %.0f events/s, %.1f MB/s of trace, database %.1f MB, peak RSS %.1f MiB\n",
		       ex.wall, ex.cpu, (double)n / ex.wall,
		       (double)bytes / 1e6 / ex.wall, db_mb[0],
		       (double)ex.rss_kb / 1024);
	if (ex.wall >= 0 && al.wall < 0)
		printf("report: sqlite alone failed\n");
	else if (ex.wall >= 0)
		printf("report:   sqlite alone (the export's rows, schema, pragmas and indexes; %d-row INSERTs binding what changed, no profiler work): %.2f s (CPU %.2f s), %.0f events/s, database %.1f MB, peak RSS %.1f MiB\n"
		       "report:   sqlite export / sqlite alone: %.2fx wall, %.2fx CPU (%d run%s each, alternating)\n",
		       LOAD_ROWS, al.wall, al.cpu, (double)n / al.wall, db_mb[1],
		       (double)al.rss_kb / 1024, ex.wall / al.wall,
		       al.cpu > 0 ? ex.cpu / al.cpu : 0.0, runs,
		       runs > 1 ? "s" : "");
	for (i = RUN_SUMMARY; i <= RUN_BREAKDOWN; i++) {
		const char *what = i == RUN_SUMMARY ? "summary" : "breakdown";
		int r;

		memset(&b, 0, sizeof(b));
		for (r = 0; r < runs; r++)
			run_once(&b, i, trace, NULL);
		if (b.wall < 0)
			printf("report: %s failed\n", what);
		else
			printf("report:   %s: %.2f s (CPU %.2f s), %.0f events/s, %.1f MB/s, peak RSS %.1f MiB (%llu inferences)\n",
			       what, b.wall, b.cpu, (double)n / b.wall,
			       (double)bytes / 1e6 / b.wall, (double)b.rss_kb / 1024,
			       (unsigned long long)(n / EV_PER_INF));
	}
	unlink(db);
	if (!given)
		unlink(trace);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	int i, quick = 0, any = 0, runs = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc &&
			   atoi(argv[i + 1]) > 0) {
			runs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--gen") && i + 2 < argc) {
			printf("%llu events\n", (unsigned long long)
			       make_trace(argv[i + 1], strtoull(argv[i + 2], NULL, 10)));
			return 0;
		} else if (!strcmp(argv[i], "--export") && i + 2 < argc) {
			/* the export alone, in this process (to profile it) */
			return export_one(argv[i + 1], argv[i + 2]);
		} else if ((!strcmp(argv[i], "--rows") ||
			    !strcmp(argv[i], "--load")) && i + 2 < argc) {
			/* SQLite alone, apart (to profile it) */
			return rows_cmd(!strcmp(argv[i], "--load"), argv[i + 1],
					argv[i + 2]);
		} else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			bench(dir, 0, argv[++i], runs);
			any = 1;
		} else if (argv[i][0] >= '1' && argv[i][0] <= '9') {
			bench(dir, strtoull(argv[i], NULL, 10), NULL, runs);
			any = 1;
		} else {
			fprintf(stderr, "usage: npuprof-bench-report [--quick] [--dir DIR] [--runs K] [EVENTS...]\n"
				"       npuprof-bench-report --gen FILE EVENTS\n"
				"       npuprof-bench-report [--runs K] --trace FILE\n"
				"       npuprof-bench-report --export FILE DB   (export only)\n"
				"       npuprof-bench-report --rows DB ROWS   (the rows of DB)\n"
				"       npuprof-bench-report --load ROWS DB   (SQLite alone)\n");
			return 2;
		}
	}
	if (!any) {
		bench(dir, quick ? 100000 : 1000000, NULL, runs);
		if (!quick)
			bench(dir, 10000000, NULL, runs);
	}
	return 0;
}
