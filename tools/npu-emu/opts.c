// SPDX-License-Identifier: GPL-2.0-only
/*
 * opts.c - npu-emu command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emu.h"
#include "npu_cli.h"

static const char usage_text[] =
"NAME\n"
"    npu-emu - emulated NPU device for QEMU's ivshmem-doorbell\n"
"\n"
"SYNOPSIS\n"
"    npu-emu -s PATH [-p N] [-m SIZE] [-f HZ] [--clock-offset TICKS]\n"
"            [--clock-drift-ppm PPM] [--dma-bw MBPS] [--dram-bw MBPS]\n"
"            [--macs-per-cycle N] [--sram-size SIZE] [--trace-size SIZE]\n"
"            [--stall-pe N]\n"
"            [--fail-after N] [--hw-version MAJOR.MINOR]\n"
"            [--fault NAME[@N]] [--replug] [-v] [-h]\n"
"\n"
"DESCRIPTION\n"
"    npu-emu is the NPU of Documentation/npu/hw.rst, implemented as a host\n"
"    process. It listens on the UNIX socket PATH and speaks QEMU's ivshmem\n"
"    server protocol to one QEMU, which exposes the device's memory as BAR2\n"
"    of an ivshmem-doorbell PCI function. Start QEMU with\n"
"\n"
"        -chardev socket,path=PATH,id=npu\n"
"        -device ivshmem-doorbell,chardev=npu,vectors=4\n"
"\n"
"    The socket is created under a temporary name and renamed to PATH once\n"
"    it listens, so PATH existing means QEMU can connect. One QEMU at a time\n"
"    is served; further connections are refused. npu-emu exits when QEMU\n"
"    disconnects (unless --replug) or on SIGTERM or SIGINT, and removes\n"
"    PATH.\n"
"\n"
"    Nothing is printed on standard output unless -v is given; errors go to\n"
"    standard error.\n"
"\n"
"OPTIONS\n"
"    -s, --socket PATH\n"
"        UNIX socket to listen on (required).\n"
"    -p, --pes N\n"
"        Processing elements, 1 to 16. Default 2.\n"
"    -m, --dram-size SIZE\n"
"        Device DRAM, a multiple of 4 KiB. The BAR is the next power of two\n"
"        holding the DRAM, at most 4 GiB. Default 64M.\n"
"    -f, --clock-hz HZ\n"
"        Device clock frequency, 1 to 4294967295. Default 1000000000.\n"
"    --clock-offset TICKS\n"
"        Device clock value when npu-emu starts. Default 0.\n"
"    --clock-drift-ppm PPM\n"
"        Clock rate error against the host's CLOCK_MONOTONIC, in parts per\n"
"        million; may be negative and fractional, |PPM| <= 100000. Default 0.\n"
"    --dma-bw MBPS\n"
"        DMA bandwidth per PE in MB/s (10^6 bytes/s), >= 1. Default 2000.\n"
"    --dram-bw MBPS\n"
"        DRAM bandwidth all PEs' DMA share, in MB/s, >= 1: n PEs whose\n"
"        transfers overlap each move min(DMA_BW, MBPS / n). Default: the\n"
"        --dma-bw value (one PE alone is not slowed; two at once share it).\n"
"    --macs-per-cycle N\n"
"        int8 multiply-accumulates per cycle per PE, >= 1. Default 256.\n"
"    --sram-size SIZE\n"
"        On-chip SRAM per PE, reported in the register page. Default 1M.\n"
"    --trace-size SIZE\n"
"        Trace data area, a power of two from 4K to 256M. Default 1M.\n"
"    --stall-pe N\n"
"        Fault injection: PE N takes jobs but never completes them, until a\n"
"        mailbox RESET aborts them.\n"
"    --fail-after N\n"
"        Fault injection: after N jobs, every job fails with\n"
"        NPU_HW_STATUS_BAD_PROGRAM without running. Default 0 (off).\n"
"    --hw-version MAJOR.MINOR\n"
"        Hardware interface version reported in the VERSION register,\n"
"        MAJOR and MINOR each 0 to 65535. Only the register changes: the\n"
"        device still behaves as version 1.0. For testing how a driver\n"
"        handles other versions (npu.ko refuses a major other than 1).\n"
"        Default 1.0.\n"
"    --fault NAME[@N]\n"
"        Fault injection: a fault a real device can have, hitting the Nth\n"
"        job the PEs start (default 1). NAME is one of:\n"
"          die-mid-job          the device process exits (status 0) while\n"
"                               job N runs, without completing it;\n"
"          spurious-completion  after job N's completion, the device posts\n"
"                               a completion for job id 2^62 + N, which no\n"
"                               driver submitted;\n"
"          corrupt-trace-record job N's EXEC trace record is written with\n"
"                               a size field of 3 (not a multiple of 8).\n"
"    --replug\n"
"        When QEMU disconnects (a hot-unplug removed the device and its\n"
"        chardev), reset the device as at power-up and wait for the next\n"
"        connection (a device_add) instead of exiting.\n"
"    -v, --verbose\n"
"        Log doorbells, mailbox requests, jobs and interrupts on stdout.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"\n"
"    SIZE is a number with an optional suffix K, M or G (also KiB, MiB,\n"
"    GiB; powers of 1024). Numbers may be decimal or 0x-prefixed hex.\n"
"\n"
"EXIT STATUS\n"
"    0   QEMU disconnected, or SIGTERM or SIGINT was received.\n"
"    1   A runtime error (socket in use, out of memory, protocol error).\n"
"    2   A usage error: bad or missing option.\n"
"\n"
"EXAMPLE\n"
"    npu-emu -s /tmp/npu.sock -p 4 -m 256M --clock-drift-ppm -25 &\n"
"    while [ ! -S /tmp/npu.sock ]; do sleep 0.05; done\n"
"    qemu-system-x86_64 ... -chardev socket,path=/tmp/npu.sock,id=npu \\\n"
"        -device ivshmem-doorbell,chardev=npu,vectors=4\n";

void npu_emu_opts_init(struct npu_emu_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pes = NPU_EMU_DEF_PES;
	o->dram_size = NPU_EMU_DEF_DRAM;
	o->clock_hz = NPU_EMU_DEF_CLOCK_HZ;
	o->dma_bw = NPU_EMU_DEF_DMA_BW;
	o->macs_per_cycle = NPU_EMU_DEF_MACS;
	o->sram_size = NPU_EMU_DEF_SRAM;
	o->trace_size = NPU_EMU_DEF_TRACE;
	o->stall_pe = -1;
	o->hw_version = NPU_HW_VERSION(NPU_HW_VERSION_MAJOR,
				       NPU_HW_VERSION_MINOR);
}

int npu_emu_parse_u64(const char *s, uint64_t *v)
{
	return npu_cli_parse_u64(s, 0, UINT64_MAX, v);
}

int npu_emu_parse_size(const char *s, uint64_t *v)
{
	static const struct {
		const char *sfx;
		unsigned int shift;
	} sfx[] = {
		{ "", 0 }, { "K", 10 }, { "KiB", 10 }, { "M", 20 },
		{ "MiB", 20 }, { "G", 30 }, { "GiB", 30 },
	};
	unsigned long long x;
	char *end;
	size_t i;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ' || *s == '\t')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s)
		return -EINVAL;
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (strcasecmp(end, sfx[i].sfx))
			continue;
		if (x > (UINT64_MAX >> sfx[i].shift))
			return -ERANGE;
		*v = (uint64_t)x << sfx[i].shift;
		return 0;
	}
	return -EINVAL;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

enum {
	OPT_CLOCK_OFFSET = 256,
	OPT_CLOCK_DRIFT,
	OPT_DMA_BW,
	OPT_DRAM_BW,
	OPT_MACS,
	OPT_SRAM,
	OPT_TRACE,
	OPT_STALL_PE,
	OPT_FAIL_AFTER,
	OPT_HW_VERSION,
	OPT_FAULT,
	OPT_REPLUG,
};

static const struct option long_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "pes", required_argument, NULL, 'p' },
	{ "dram-size", required_argument, NULL, 'm' },
	{ "clock-hz", required_argument, NULL, 'f' },
	{ "clock-offset", required_argument, NULL, OPT_CLOCK_OFFSET },
	{ "clock-drift-ppm", required_argument, NULL, OPT_CLOCK_DRIFT },
	{ "dma-bw", required_argument, NULL, OPT_DMA_BW },
	{ "dram-bw", required_argument, NULL, OPT_DRAM_BW },
	{ "macs-per-cycle", required_argument, NULL, OPT_MACS },
	{ "sram-size", required_argument, NULL, OPT_SRAM },
	{ "trace-size", required_argument, NULL, OPT_TRACE },
	{ "stall-pe", required_argument, NULL, OPT_STALL_PE },
	{ "fail-after", required_argument, NULL, OPT_FAIL_AFTER },
	{ "hw-version", required_argument, NULL, OPT_HW_VERSION },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "replug", no_argument, NULL, OPT_REPLUG },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *opt_name(int c)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}

static int bad_value(FILE *err, int c, const char *arg, const char *why)
{
	fprintf(err, "npu-emu: --%s: invalid value '%s': %s\n",
		opt_name(c), arg, why);
	return -EINVAL;
}

/* Parse an unsigned option value within [min, max] */
static int get_num(FILE *err, int c, const char *arg, bool size,
		   uint64_t min, uint64_t max, uint64_t *v)
{
	char why[96];
	int ret;

	ret = size ? npu_emu_parse_size(arg, v) : npu_emu_parse_u64(arg, v);
	if (ret == -ERANGE)
		return bad_value(err, c, arg, "too large");
	if (ret)
		return bad_value(err, c, arg, size ?
				 "expected a number with an optional K, M or G suffix" :
				 "expected a non-negative integer");
	if (*v < min || *v > max) {
		snprintf(why, sizeof(why), "must be in %" PRIu64 "..%" PRIu64,
			 min, max);
		return bad_value(err, c, arg, why);
	}
	return 0;
}

/* A decimal number 0..65535 of 1 to 5 digits ending at @stop; NULL if not */
static const char *get_u16(const char *s, char stop, uint32_t *v)
{
	uint32_t x = 0;
	int n = 0;

	for (; *s >= '0' && *s <= '9'; s++) {
		if (++n > 5)
			return NULL;
		x = x * 10 + (uint32_t)(*s - '0');
	}
	if (!n || *s != stop || x > UINT16_MAX)
		return NULL;
	*v = x;
	return s;
}

/*
 * "MAJOR.MINOR", each decimal 0..65535, into major << 16 | minor.
 * Return: 0, or -EINVAL (reported on @err).
 */
static int get_version(FILE *err, int c, const char *arg, uint32_t *v)
{
	uint32_t major, minor;
	const char *p;

	p = get_u16(arg, '.', &major);
	if (!p || !get_u16(p + 1, '\0', &minor))
		return bad_value(err, c, arg,
				 "expected MAJOR.MINOR, decimal numbers in 0..65535 (e.g. 1.0)");
	*v = NPU_HW_VERSION(major, minor);
	return 0;
}

/* "NAME[@N]" of --fault. Return: 0, or -EINVAL (reported on @err). */
static int get_fault(FILE *err, int c, const char *arg,
		     struct npu_emu_opts *o)
{
	static const struct {
		const char *name;
		enum npu_emu_fault fault;
	} faults[] = {
		{ "die-mid-job", NPU_EMU_FAULT_DIE },
		{ "spurious-completion", NPU_EMU_FAULT_SPURIOUS_CPL },
		{ "corrupt-trace-record", NPU_EMU_FAULT_CORRUPT_TREC },
	};
	const char *at = strchr(arg, '@');
	size_t len = at ? (size_t)(at - arg) : strlen(arg);
	uint64_t n = 1;
	size_t i;

	if (at && (npu_emu_parse_u64(at + 1, &n) || !n))
		return bad_value(err, c, arg, "N after '@' must be a job number from 1");
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		if (strlen(faults[i].name) == len &&
		    !strncmp(faults[i].name, arg, len)) {
			o->fault = faults[i].fault;
			o->fault_job = n;
			return 0;
		}
	}
	return bad_value(err, c, arg,
			 "expected die-mid-job, spurious-completion or corrupt-trace-record, with an optional @N");
}

/*
 * The option groups of npu_emu_parse_opts(): each takes option @c with
 * value @arg into @o. Return: 0, -EINVAL (reported on @err), or 1 when
 * @c is not one of the group's.
 */

/* The device's geometry and identity: PEs, DRAM, SRAM, trace, version */
static int opt_device(FILE *err, int c, const char *arg,
		      struct npu_emu_opts *o)
{
	uint64_t v;

	switch (c) {
	case 'p':
		if (get_num(err, c, arg, false, 1, NPU_HW_MAX_PES, &v))
			return -EINVAL;
		o->pes = (unsigned int)v;
		return 0;
	case 'm':
		if (get_num(err, c, arg, true, 4096,
			    NPU_EMU_MAX_BAR - NPU_EMU_DRAM_BASE, &v))
			return -EINVAL;
		if (v & 4095)
			return bad_value(err, c, arg,
					 "must be a multiple of 4 KiB");
		o->dram_size = v;
		return 0;
	case OPT_SRAM:
		if (get_num(err, c, arg, true, 0, UINT32_MAX, &v))
			return -EINVAL;
		o->sram_size = (uint32_t)v;
		return 0;
	case OPT_TRACE:
		if (get_num(err, c, arg, true, NPU_EMU_MIN_TRACE,
			    NPU_EMU_MAX_TRACE, &v))
			return -EINVAL;
		if (!is_pow2(v))
			return bad_value(err, c, arg, "must be a power of two");
		o->trace_size = v;
		return 0;
	case OPT_HW_VERSION:
		return get_version(err, c, arg, &o->hw_version);
	}
	return 1;
}

/* The clock and the timing model: frequency, offset, drift, bandwidths */
static int opt_timing(FILE *err, int c, const char *arg,
		      struct npu_emu_opts *o)
{
	uint64_t v;
	char *end;
	double d;

	switch (c) {
	case 'f':
		if (get_num(err, c, arg, false, 1, UINT32_MAX, &v))
			return -EINVAL;
		o->clock_hz = v;
		return 0;
	case OPT_CLOCK_OFFSET:
		if (get_num(err, c, arg, false, 0, UINT64_MAX, &v))
			return -EINVAL;
		o->clock_offset = v;
		return 0;
	case OPT_CLOCK_DRIFT:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(d))
			return bad_value(err, c, arg, "expected a number");
		if (fabs(d) > NPU_EMU_MAX_DRIFT_PPM)
			return bad_value(err, c, arg,
					 "must be in -100000..100000");
		o->clock_drift_ppm = d;
		return 0;
	case OPT_DMA_BW:
	case OPT_DRAM_BW:
	case OPT_MACS:
		if (get_num(err, c, arg, false, 1, UINT32_MAX, &v))
			return -EINVAL;
		if (c == OPT_DMA_BW)
			o->dma_bw = (uint32_t)v;
		else if (c == OPT_DRAM_BW)
			o->dram_bw = (uint32_t)v;
		else
			o->macs_per_cycle = (uint32_t)v;
		return 0;
	}
	return 1;
}

/* Fault injection: a stalled PE, failing jobs, a named fault */
static int opt_fault(FILE *err, int c, const char *arg,
		     struct npu_emu_opts *o)
{
	uint64_t v;

	switch (c) {
	case OPT_STALL_PE:
		if (get_num(err, c, arg, false, 0, NPU_HW_MAX_PES - 1, &v))
			return -EINVAL;
		o->stall_pe = (int)v;
		return 0;
	case OPT_FAIL_AFTER:
		if (get_num(err, c, arg, false, 0, UINT64_MAX, &v))
			return -EINVAL;
		o->fail_after = v;
		return 0;
	case OPT_FAULT:
		return get_fault(err, c, arg, o);
	}
	return 1;
}

/*
 * The options of no group: the socket, the switches, and getopt's
 * errors. Return: 0, 1 after --help, or -EINVAL (reported on @err).
 */
static int opt_other(int c, char **argv, struct npu_emu_opts *o, FILE *out,
		     FILE *err)
{
	switch (c) {
	case 's':
		if (!*optarg) {
			fprintf(err, "npu-emu: --socket: empty path\n");
			return -EINVAL;
		}
		o->socket_path = optarg;
		return 0;
	case OPT_REPLUG:
		o->replug = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'h':
		fputs(usage_text, out);
		return 1;
	case ':':
		fprintf(err, "npu-emu: option '%s' needs a value\n",
			argv[optind - 1]);
		return -EINVAL;
	}
	if (optopt)
		fprintf(err, "npu-emu: unknown option '-%c'\n", optopt);
	else
		fprintf(err, "npu-emu: unknown option '%s'\n", argv[optind - 1]);
	return -EINVAL;
}

/* What the options say together. Return: 0 or -EINVAL (reported). */
static int opts_check(int argc, char **argv, const struct npu_emu_opts *o,
		      FILE *err)
{
	if (optind < argc) {
		fprintf(err, "npu-emu: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (!o->socket_path) {
		fprintf(err, "npu-emu: missing --socket PATH\n");
		return -EINVAL;
	}
	if (o->stall_pe >= 0 && (unsigned int)o->stall_pe >= o->pes) {
		fprintf(err, "npu-emu: --stall-pe %d: only %u PEs (0..%u)\n",
			o->stall_pe, o->pes, o->pes - 1);
		return -EINVAL;
	}
	return 0;
}

int npu_emu_parse_opts(int argc, char **argv, struct npu_emu_opts *o,
		       FILE *out, FILE *err)
{
	int c, ret = 0;

	npu_emu_opts_init(o);
	optind = 0;	/* full getopt reinitialisation: callable repeatedly */
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, ":s:p:m:f:vh", long_opts,
					NULL)) != -1) {
		ret = opt_device(err, c, optarg, o);
		if (ret == 1)
			ret = opt_timing(err, c, optarg, o);
		if (ret == 1)
			ret = opt_fault(err, c, optarg, o);
		if (ret == 1) {
			ret = opt_other(c, argv, o, out, err);
			if (ret == 1)
				return 1;	/* --help */
		}
	}
	if (!ret)
		ret = opts_check(argc, argv, o, err);
	if (ret)
		fprintf(err, "Try 'npu-emu --help' for more information.\n");
	return ret;
}
