// SPDX-License-Identifier: GPL-2.0-only
/*
 * op_out.c - npuprof op: print a result (table, CSV, JSON) and keep the
 * result cache, one file per entry in the cache directory (opprof.rst,
 * "Cache"): "<fnv64 of the key>.op" holding a magic, the whole key and
 * the struct npo_result. An entry is used only when its magic, sizes and
 * key match exactly; anything else is a miss and is overwritten.
 *
 * No global state. Entries are written to a temporary file and renamed,
 * so concurrent profilers sharing a cache see whole entries or none.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npu/npu_program.h"
#include "cli.h"
#include "op.h"

#define CACHE_MAGIC	"NPUOPC1\n"
#define CACHE_SUFFIX	".op"

double npo_peak_gmacs(const struct npo_result *res)
{
	return (double)res->macs_per_cycle * (double)res->clock_hz / 1e9;
}

/* MACs per ns of median device time: GMAC/s */
static double gmacs(uint64_t macs, uint64_t ns)
{
	return ns ? (double)macs / (double)ns : 0;
}

static double peak_pct(const struct npo_result *res, uint64_t macs,
		       uint64_t ns)
{
	double peak = npo_peak_gmacs(res);

	return peak > 0 ? 100.0 * gmacs(macs, ns) / peak : 0;
}

static const char *opname(uint16_t opcode)
{
	const char *n = npo_opcode_cli_name(opcode);

	return n ? n : "?";
}

/* a JSON string: only the characters a description or name can hold */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* a CSV field, quoted when it holds a comma, quote or blank */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\" \n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void json_dist(FILE *out, const char *name, const struct npo_dist *d)
{
	fprintf(out, "\"%s\": {\"min\": %" PRIu64 ", \"median\": %" PRIu64
		", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 ", \"mean\": %.1f}",
		name, d->min, d->median, d->p99, d->max, d->mean);
}

/* the fields an operator row and the total row share, in JSON */
static void json_row(FILE *out, const struct npo_result *res,
		     const struct npo_dist *lat, const struct npo_dist *iow,
		     uint64_t macs, uint64_t dma, uint64_t sram)
{
	fprintf(out, "\"min_ns\": %" PRIu64 ", \"median_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
		", \"mean_ns\": %.1f, \"iowait_ns\": %" PRIu64
		", \"macs\": %" PRIu64 ", \"gmacs\": %.3f, \"peak_pct\": %.2f"
		", \"dma_bytes\": %" PRIu64 ", \"sram_bytes\": %" PRIu64
		", \"sram_fits\": %s, ",
		lat->min, lat->median, lat->p99, lat->max, lat->mean,
		iow->median, macs, gmacs(macs, lat->median),
		peak_pct(res, macs, lat->median), dma, sram,
		sram <= res->sram_size ? "true" : "false");
	json_dist(out, "latency_ns", lat);
	fputs(", ", out);
	json_dist(out, "iowait_dist_ns", iow);
}

static void print_json(const struct npo_result *res, FILE *out)
{
	uint32_t i;

	fputs("{\"operator\": ", out);
	json_str(out, res->desc);
	fputs(", \"device\": {\"path\": ", out);
	json_str(out, res->device);
	fprintf(out, ", \"hw_version\": \"%u.%u\", \"pe_count\": %u"
		", \"clock_hz\": %" PRIu64 ", \"macs_per_cycle\": %u"
		", \"dma_bw_mbps\": %u, \"sram_size\": %u}",
		res->hw_version >> 16, res->hw_version & 0xffff, res->pe_count,
		res->clock_hz, res->macs_per_cycle, res->dma_bw,
		res->sram_size);
	fprintf(out, ", \"pe\": %u, \"runs\": %u, \"warmup\": %u"
		", \"cached\": %s, \"peak_gmacs\": %.3f, \"ops\": [",
		res->pe, res->runs, res->warmup,
		res->cached ? "true" : "false", npo_peak_gmacs(res));
	for (i = 0; i < res->n_ops; i++) {
		const struct npo_opres *o = &res->op[i];

		fprintf(out, "%s{\"index\": %u, \"opcode\": \"%s\", \"layer\": ",
			i ? ", " : "", o->op_index, opname(o->opcode));
		json_str(out, o->layer);
		fputs(", ", out);
		json_row(out, res, &o->lat, &o->iowait, o->macs, o->dma_bytes,
			 o->sram_bytes);
		fprintf(out, ", \"run_ns\": %" PRIu64 ", \"compute_ns\": %"
			PRIu64 ", \"dma_ns\": %" PRIu64 "}", o->run.median,
			o->compute_ns, o->dma_ns);
	}
	fputs("], \"total\": {", out);
	json_row(out, res, &res->total, &res->total_iowait, res->macs,
		 res->dma_bytes, res->sram_bytes);
	fputs("}}\n", out);
}

static void csv_line(FILE *out, const struct npo_result *res, const char *idx,
		     const char *opcode, const char *layer,
		     const struct npo_dist *lat, const struct npo_dist *iow,
		     uint64_t macs, uint64_t dma, uint64_t sram,
		     uint64_t compute_ns, uint64_t dma_ns)
{
	csv_str(out, res->desc);
	fprintf(out, ",%s,%s,", idx, opcode);
	csv_str(out, layer);
	fprintf(out, ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%.1f,%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%.2f,%" PRIu64
		",%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%d\n", res->runs,
		lat->min, lat->median, lat->p99, lat->max, lat->mean,
		iow->median, macs, gmacs(macs, lat->median),
		npo_peak_gmacs(res), peak_pct(res, macs, lat->median), dma,
		sram, res->sram_size, compute_ns, dma_ns, res->cached);
}

static void print_csv(const struct npo_result *res, FILE *out)
{
	char idx[16];
	uint32_t i;

	fputs("operator,index,opcode,layer,runs,min_ns,median_ns,p99_ns,max_ns,"
	      "mean_ns,iowait_ns,macs,gmacs,peak_gmacs,peak_pct,dma_bytes,"
	      "sram_bytes,sram_size,compute_ns,dma_ns,cached\n", out);
	for (i = 0; i < res->n_ops; i++) {
		const struct npo_opres *o = &res->op[i];

		snprintf(idx, sizeof(idx), "%u", o->op_index);
		csv_line(out, res, idx, opname(o->opcode), o->layer, &o->lat,
			 &o->iowait, o->macs, o->dma_bytes, o->sram_bytes,
			 o->compute_ns, o->dma_ns);
	}
	if (res->n_ops > 1)
		csv_line(out, res, "total", "", "", &res->total,
			 &res->total_iowait, res->macs, res->dma_bytes,
			 res->sram_bytes, 0, 0);
}

static void table_line(FILE *out, const struct npo_result *res,
		       const char *idx, const char *opcode, const char *layer,
		       const struct npo_dist *lat, const struct npo_dist *iow,
		       uint64_t macs, uint64_t dma, uint64_t sram)
{
	fprintf(out, "%-5s %-9s %-12s %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		" %12.1f %10" PRIu64 " %12" PRIu64 " %8.2f %6.2f %10" PRIu64
		" %10" PRIu64 "\n", idx, opcode, layer[0] ? layer : "-",
		lat->min, lat->median, lat->p99, lat->mean, iow->median, macs,
		gmacs(macs, lat->median), peak_pct(res, macs, lat->median), dma,
		sram);
}

static void print_table(const struct npo_result *res, FILE *out)
{
	char b[NPC_FMT_LEN];
	char idx[16];
	uint32_t i;

	fprintf(out, "Operator:  %s\n", res->desc);
	fprintf(out, "Device:    %s, hw %u.%u, PE %u of %u, %" PRIu64
		" Hz, %u MACs/cycle, DMA %u MB/s, SRAM %s\n", res->device,
		res->hw_version >> 16, res->hw_version & 0xffff, res->pe,
		res->pe_count, res->clock_hz, res->macs_per_cycle, res->dma_bw,
		npc_fmt_bytes(b, res->sram_size));
	fprintf(out, "Runs:      %u timed after %u warm-up, trace level 2%s\n",
		res->runs, res->warmup, res->cached ? " (from the cache)" : "");
	fprintf(out, "Peak:      %.1f GMAC/s per PE (MACS_PER_CYCLE x CLOCK_HZ)\n\n",
		npo_peak_gmacs(res));
	fprintf(out, "%-5s %-9s %-12s %10s %10s %10s %12s %10s %12s %8s %6s %10s %10s\n",
		"index", "opcode", "layer", "min_ns", "median_ns", "p99_ns",
		"mean_ns", "iowait_ns", "macs", "GMAC/s", "peak%",
		"dma_bytes", "sram_bytes");
	for (i = 0; i < res->n_ops; i++) {
		const struct npo_opres *o = &res->op[i];

		snprintf(idx, sizeof(idx), "%u", o->op_index);
		table_line(out, res, idx, opname(o->opcode), o->layer, &o->lat,
			   &o->iowait, o->macs, o->dma_bytes, o->sram_bytes);
	}
	if (res->n_ops > 1)
		table_line(out, res, "total", "", "", &res->total,
			   &res->total_iowait, res->macs, res->dma_bytes,
			   res->sram_bytes);
	for (i = 0; i < res->n_ops; i++)
		if (res->op[i].sram_bytes > res->sram_size)
			fprintf(out, "note: operator %u needs %" PRIu64
				" bytes of SRAM, more than the %u the PE has\n",
				res->op[i].op_index, res->op[i].sram_bytes,
				res->sram_size);
}

void npo_print(const struct npo_result *res, unsigned int format, FILE *out)
{
	if (format == NPO_FMT_JSON)
		print_json(res, out);
	else if (format == NPO_FMT_CSV)
		print_csv(res, out);
	else
		print_table(res, out);
}

/* ---- the cache ---- */

int npo_cache_dir(const char *dir, char *buf, size_t len)
{
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (dir && *dir)
		n = snprintf(buf, len, "%s", dir);
	else if (x && x[0] == '/')	/* the spec: relative ones are ignored */
		n = snprintf(buf, len, "%s/npuprof/ops", x);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.cache/npuprof/ops", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int entry_path(const char *dir, const char *key, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%016" PRIx64 CACHE_SUFFIX, dir,
			 npo_fnv(NPO_FNV_INIT, key, strlen(key)));

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int npo_cache_get(const char *dir, const char *key, struct npo_result *res)
{
	char path[4096], magic[8];
	uint32_t klen, rsize;
	char *k = NULL;
	FILE *f;
	int ret = 0;

	if (entry_path(dir, key, path, sizeof(path)))
		return -ENAMETOOLONG;
	f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, CACHE_MAGIC, 8) ||
	    fread(&klen, 4, 1, f) != 1 || klen != strlen(key))
		goto out;
	k = malloc(klen + 1);
	if (!k || fread(k, 1, klen, f) != klen || memcmp(k, key, klen))
		goto out;
	if (fread(&rsize, 4, 1, f) != 1 || rsize != sizeof(*res) ||
	    fread(res, sizeof(*res), 1, f) != 1 || fgetc(f) != EOF)
		goto out;
	/* a damaged entry must not index out of its arrays */
	if (res->n_ops < 1 || res->n_ops > NPO_MAX_OPS)
		goto out;
	res->desc[sizeof(res->desc) - 1] = '\0';
	res->device[sizeof(res->device) - 1] = '\0';
	for (klen = 0; klen < res->n_ops; klen++)
		res->op[klen].layer[NPO_NAME_LEN - 1] = '\0';
	res->cached = true;
	ret = 1;
out:
	free(k);
	fclose(f);
	return ret;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char p[4096];
	size_t i;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int npo_cache_put(const char *dir, const char *key,
		  const struct npo_result *res)
{
	char path[4096], tmp[4200];
	struct npo_result r = *res;
	uint32_t klen = (uint32_t)strlen(key), rsize = sizeof(r);
	FILE *f;
	int ret, fd;

	ret = make_dirs(dir);
	if (ret)
		return ret;
	ret = entry_path(dir, key, path, sizeof(path));
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "wb");
	if (!f) {
		ret = -errno;
		close(fd);
		unlink(tmp);
		return ret;
	}
	r.cached = false;
	fwrite(CACHE_MAGIC, 1, 8, f);
	fwrite(&klen, 4, 1, f);
	fwrite(key, 1, klen, f);
	fwrite(&rsize, 4, 1, f);
	fwrite(&r, sizeof(r), 1, f);
	ret = ferror(f) ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && chmod(tmp, 0644))
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

static bool is_entry(const char *name)
{
	size_t n = strlen(name);

	return n == 16 + strlen(CACHE_SUFFIX) &&
	       !strcmp(name + 16, CACHE_SUFFIX) &&
	       strspn(name, "0123456789abcdef") == 16;
}

int npo_cache_info(const char *dir, uint64_t *entries, uint64_t *bytes)
{
	struct dirent *e;
	struct stat st;
	DIR *d;

	*entries = *bytes = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (!is_entry(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		(*entries)++;
		*bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	return 0;
}

long npo_cache_clear(const char *dir)
{
	struct dirent *e;
	long n = 0;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (!is_entry(e->d_name))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0)) {
			ret = -errno;
			continue;
		}
		n++;
	}
	closedir(d);
	return ret ? ret : n;
}
