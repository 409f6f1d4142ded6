// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-info - print what an NPU reports through npu.ko
 *
 * Opens /dev/npuN, reads struct npu_info with NPU_IOCTL_GET_INFO and prints
 * it; optionally measures doorbell-to-interrupt round trips with
 * NPU_IOCTL_PING. See usage() or `npu-info --help`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/npu.h>

#ifdef NPU_PING_MAX_COUNT
#define PING_MAX	NPU_PING_MAX_COUNT
#else
#define PING_MAX	1024	/* npu_ping.count upper bound, see linux/npu.h */
#endif

static const char *prog = "npu-info";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-d DEVICE | -a] [-p COUNT] [-h]\n"
		"\n"
		"Print the information an NPU reports through npu.ko\n"
		"(NPU_IOCTL_GET_INFO).\n"
		"\n"
		"  -d, --device DEVICE  character device to query (default /dev/npu0)\n"
		"  -a, --all            query every /dev/npu[0-9]*\n"
		"  -p, --ping COUNT     also time COUNT doorbell-to-interrupt round\n"
		"                       trips (NPU_IOCTL_PING), 1..%d\n"
		"  -h, --help           show this help\n"
		"\n"
		"Exit status: 0 on success, 1 if a device could not be queried,\n"
		"2 on a usage error.\n",
		prog, PING_MAX);
}

static void print_size(const char *label, uint64_t bytes)
{
	if (bytes && !(bytes & ((1ull << 20) - 1)))
		printf("  %-22s %" PRIu64 " MiB (%" PRIu64 " bytes)\n", label,
		       bytes >> 20, bytes);
	else if (bytes && !(bytes & ((1ull << 10) - 1)))
		printf("  %-22s %" PRIu64 " KiB (%" PRIu64 " bytes)\n", label,
		       bytes >> 10, bytes);
	else
		printf("  %-22s %" PRIu64 " bytes\n", label, bytes);
}

static void print_info(const char *dev, const struct npu_info *info)
{
	static const char *const levels[] = { "off", "exec", "ops" };
	uint64_t peak;
	unsigned int i;
	bool first = true;

	printf("%s: NPU hardware v%u.%u (info v%u, minor %u)\n", dev,
	       info->hw_version >> 16, info->hw_version & 0xffff,
	       info->version, info->minor);
	printf("  %-22s %u\n", "processing elements", info->pe_count);
	printf("  %-22s %llu Hz\n", "clock",
	       (unsigned long long)info->clock_hz);
	print_size("device memory", info->dram_size);
	print_size("SRAM per PE", info->sram_size);
	printf("  %-22s %u MB/s\n", "DMA bandwidth per PE", info->dma_bw);
	printf("  %-22s %u\n", "int8 MACs/cycle/PE", info->macs_per_cycle);
	/* Peak over all PEs; clock_hz < 2^32 and the rest are 32-bit. */
	peak = (uint64_t)info->clock_hz * info->macs_per_cycle / 1000000;
	printf("  %-22s %" PRIu64 " GMAC/s per PE, %" PRIu64 " GMAC/s total\n",
	       "peak int8", peak / 1000, peak * info->pe_count / 1000);

	printf("  %-22s", "trace levels");
	for (i = 0; i < 32; i++) {
		if (!(info->trace_levels & (1u << i)))
			continue;
		if (i < sizeof(levels) / sizeof(levels[0]))
			printf("%s%s", first ? " " : ", ", levels[i]);
		else
			printf("%s%u", first ? " " : ", ", i);
		first = false;
	}
	printf("%s\n", first ? " none" : "");

	printf("  %-22s", "capabilities");
	first = true;
	if (info->caps & NPU_INFO_CAP_TRACE) {
		printf(" trace");
		first = false;
	}
	if (info->caps & NPU_INFO_CAP_CLOCK_LATCH) {
		printf(" clock-latch");
		first = false;
	}
	if (info->caps & NPU_INFO_CAP_MULTI_PE) {
		printf(" multi-pe");
		first = false;
	}
	if (info->caps & ~(NPU_INFO_CAP_TRACE | NPU_INFO_CAP_CLOCK_LATCH |
			   NPU_INFO_CAP_MULTI_PE)) {
		printf(" unknown:%#x", info->caps & ~(NPU_INFO_CAP_TRACE |
					NPU_INFO_CAP_CLOCK_LATCH |
					NPU_INFO_CAP_MULTI_PE));
		first = false;
	}
	printf("%s\n", first ? " none" : "");
}

static int query(const char *dev, unsigned int ping)
{
	struct npu_info info;
	struct npu_ping pg;
	int fd, ret = 0;

	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s%s\n", prog, dev, strerror(errno),
			errno == ENOENT ?
			" (is npu.ko loaded and bound to the device?)" : "");
		return -errno;
	}
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, NPU_IOCTL_GET_INFO, &info) < 0) {
		ret = -errno;
		fprintf(stderr, "%s: %s: NPU_IOCTL_GET_INFO: %s\n", prog, dev,
			strerror(errno));
		goto out;
	}
	print_info(dev, &info);

	if (ping) {
		memset(&pg, 0, sizeof(pg));
		pg.count = ping;
		if (ioctl(fd, NPU_IOCTL_PING, &pg) < 0) {
			ret = -errno;
			fprintf(stderr, "%s: %s: NPU_IOCTL_PING: %s\n", prog,
				dev, strerror(errno));
			goto out;
		}
		printf("  %-22s %u round trips: min %.1f us, avg %.1f us, max %.1f us\n",
		       "doorbell->MSI-X", ping, pg.min_ns / 1e3,
		       (double)pg.total_ns / ping / 1e3, pg.max_ns / 1e3);
	}
out:
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "ping", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "/dev/npu0";
	unsigned int ping = 0;
	bool all = false;
	int c, failed = 0;
	char *end;
	long v;

	while ((c = getopt_long(argc, argv, "d:ap:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 ||
			    v > PING_MAX) {
				fprintf(stderr,
					"%s: --ping: expected a count from 1 to %d, got '%s'\n",
					prog, PING_MAX, optarg);
				return 2;
			}
			ping = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		usage(stderr);
		return 2;
	}

	if (all) {
		glob_t g;
		size_t i;

		if (glob("/dev/npu[0-9]*", 0, NULL, &g) != 0) {
			fprintf(stderr, "%s: no /dev/npu* device (is npu.ko loaded and bound?)\n",
				prog);
			return 1;
		}
		for (i = 0; i < g.gl_pathc; i++)
			failed |= query(g.gl_pathv[i], ping) < 0;
		globfree(&g);
	} else {
		failed = query(dev, ping) < 0;
	}
	return failed ? 1 : 0;
}
