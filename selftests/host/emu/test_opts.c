// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_opts.c - npu-emu command line parsing, memory map and exit codes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fakeqemu.h"

#define ARGV(...) ((char *[]){ "npu-emu", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "npu-emu", __VA_ARGS__ }) / sizeof(char *)))

/* Parse; capture stderr text in err (size 1024) */
static int parse(int argc, char **argv, struct npu_emu_opts *o, char *err)
{
	char *buf = NULL, *obuf = NULL;
	size_t len = 0, olen = 0;
	FILE *ef = open_memstream(&buf, &len);
	FILE *of = open_memstream(&obuf, &olen);
	int ret;

	ret = npu_emu_parse_opts(argc, argv, o, of, ef);
	fclose(ef);
	fclose(of);
	snprintf(err, 1024, "%s", buf ? buf : "");
	free(buf);
	free(obuf);
	return ret;
}

#define PARSE(o, err, ...) parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, err)

TEST(defaults)
{
	struct npu_emu_opts o;
	char err[1024];

	ASSERT_EQ(0, PARSE(&o, err, "-s", "/tmp/x.sock"));
	EXPECT_STREQ("/tmp/x.sock", o.socket_path);
	EXPECT_EQ(2, o.pes);
	EXPECT_EQ(64ull << 20, o.dram_size);
	EXPECT_EQ(1000000000ull, o.clock_hz);
	EXPECT_EQ(0, o.clock_offset);
	EXPECT_EQ(0, o.clock_drift_ppm);
	EXPECT_EQ(2000, o.dma_bw);
	/* 0: the DRAM's bandwidth is --dma-bw's */
	EXPECT_EQ(0, o.dram_bw);
	EXPECT_EQ(256, o.macs_per_cycle);
	EXPECT_EQ(1u << 20, o.sram_size);
	EXPECT_EQ(1ull << 20, o.trace_size);
	EXPECT_EQ(-1, o.stall_pe);
	EXPECT_EQ(0, o.fail_after);
	EXPECT_FALSE(o.verbose);
	EXPECT_STREQ("", err);
}

TEST(all_options)
{
	struct npu_emu_opts o;
	char err[1024];

	ASSERT_EQ(0, PARSE(&o, err, "--socket", "/s", "--pes", "16",
			   "--dram-size", "1G", "--clock-hz", "0x10000000",
			   "--clock-offset", "18446744073709551615",
			   "--clock-drift-ppm", "-12.5", "--dma-bw", "1",
			   "--macs-per-cycle", "4096", "--sram-size", "256KiB",
			   "--trace-size", "8k", "--stall-pe", "15",
			   "--fail-after", "3", "--dram-bw", "4294967295",
			   "--verbose"));
	EXPECT_EQ(16, o.pes);
	EXPECT_EQ(1ull << 30, o.dram_size);
	EXPECT_EQ(0x10000000ull, o.clock_hz);
	EXPECT_EQ(UINT64_MAX, o.clock_offset);
	EXPECT_EQ(-12.5, o.clock_drift_ppm);
	EXPECT_EQ(1, o.dma_bw);
	EXPECT_EQ(UINT32_MAX, o.dram_bw);
	EXPECT_EQ(4096, o.macs_per_cycle);
	EXPECT_EQ(256u << 10, o.sram_size);
	EXPECT_EQ(8192, o.trace_size);
	EXPECT_EQ(15, o.stall_pe);
	EXPECT_EQ(3, o.fail_after);
	EXPECT_TRUE(o.verbose);

	ASSERT_EQ(0, PARSE(&o, err, "-s", "/s", "-p", "1", "-m", "4096", "-f",
			   "1", "-v"));
	EXPECT_EQ(1, o.pes);
	EXPECT_EQ(4096, o.dram_size);
	EXPECT_EQ(1, o.clock_hz);
	EXPECT_TRUE(o.verbose);
}

TEST(fault_options)
{
	struct npu_emu_opts o;
	char err[1024];

	ASSERT_EQ(0, PARSE(&o, err, "-s", "/s"));
	EXPECT_EQ(NPU_EMU_FAULT_NONE, o.fault);
	EXPECT_FALSE(o.replug);
	ASSERT_EQ(0, PARSE(&o, err, "-s", "/s", "--fault", "die-mid-job"));
	EXPECT_EQ(NPU_EMU_FAULT_DIE, o.fault);
	EXPECT_EQ(1, o.fault_job);
	ASSERT_EQ(0, PARSE(&o, err, "-s", "/s", "--fault",
			   "spurious-completion@7", "--replug"));
	EXPECT_EQ(NPU_EMU_FAULT_SPURIOUS_CPL, o.fault);
	EXPECT_EQ(7, o.fault_job);
	EXPECT_TRUE(o.replug);
	ASSERT_EQ(0, PARSE(&o, err, "-s", "/s", "--fault",
			   "corrupt-trace-record@0x10"));
	EXPECT_EQ(NPU_EMU_FAULT_CORRUPT_TREC, o.fault);
	EXPECT_EQ(16, o.fault_job);

	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-s", "/s", "--fault", "melt"));
	EXPECT_NE(NULL, strstr(err, "expected die-mid-job"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-s", "/s", "--fault", "die-mid-job@0"));
	EXPECT_NE(NULL, strstr(err, "job number from 1"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-s", "/s", "--fault", "die-mid-job@"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-s", "/s", "--fault", "die-mid-jobs"));
}

TEST(help)
{
	struct npu_emu_opts o;
	char *buf = NULL;
	size_t len = 0;
	FILE *of = open_memstream(&buf, &len);
	int ret;

	ret = npu_emu_parse_opts(2, ARGV("--help"), &o, of, stderr);
	fclose(of);
	EXPECT_EQ(1, ret);
	ASSERT_NE(NULL, buf);
	EXPECT_NE(NULL, strstr(buf, "SYNOPSIS"));
	EXPECT_NE(NULL, strstr(buf, "--clock-drift-ppm"));
	EXPECT_NE(NULL, strstr(buf, "EXIT STATUS"));
	free(buf);
}

struct bad_case {
	const char *args[4];
	const char *msg;
};

TEST(bad_options)
{
	static const struct bad_case cases[] = {
		{ { NULL }, "missing --socket" },
		{ { "-s", "" }, "empty path" },
		{ { "-s", "/s", "-p", "0" }, "must be in 1..16" },
		{ { "-s", "/s", "-p", "17" }, "must be in 1..16" },
		{ { "-s", "/s", "-p", "two" }, "non-negative integer" },
		{ { "-s", "/s", "-p", "-1" }, "non-negative integer" },
		{ { "-s", "/s", "-p", "2x" }, "non-negative integer" },
		{ { "-s", "/s", "-m", "100" }, "must be in" },
		{ { "-s", "/s", "-m", "5000" }, "multiple of 4 KiB" },
		{ { "-s", "/s", "-m", "8T" }, "optional K, M or G" },
		{ { "-s", "/s", "-m", "5G" }, "must be in" },
		{ { "-s", "/s", "-m", "99999999999999999999" }, "too large" },
		{ { "-s", "/s", "-m", "17179869184G" }, "too large" },
		{ { "-s", "/s", "-f", "0" }, "must be in 1..4294967295" },
		{ { "-s", "/s", "-f", "4294967296" }, "must be in" },
		{ { "-s", "/s", "--clock-drift-ppm", "abc" }, "expected a number" },
		{ { "-s", "/s", "--clock-drift-ppm", "nan" }, "expected a number" },
		{ { "-s", "/s", "--clock-drift-ppm", "200000" }, "-100000..100000" },
		{ { "-s", "/s", "--clock-offset", "-5" }, "non-negative" },
		{ { "-s", "/s", "--dma-bw", "0" }, "must be in" },
		{ { "-s", "/s", "--dram-bw", "0" }, "must be in" },
		{ { "-s", "/s", "--dram-bw", "4294967296" }, "must be in" },
		{ { "-s", "/s", "--macs-per-cycle", "0" }, "must be in" },
		{ { "-s", "/s", "--trace-size", "3M" }, "power of two" },
		{ { "-s", "/s", "--trace-size", "2k" }, "must be in" },
		{ { "-s", "/s", "--trace-size", "512M" }, "must be in" },
		{ { "-s", "/s", "--stall-pe", "2" }, "only 2 PEs" },
		{ { "-s", "/s", "--bogus" }, "unknown option '--bogus'" },
		{ { "-s", "/s", "-x" }, "unknown option '-x'" },
		{ { "-s", "/s", "extra" }, "unexpected argument 'extra'" },
		{ { "-s" }, "needs a value" },
		{ { "-s", "/s", "--pes" }, "needs a value" },
	};
	struct npu_emu_opts o;
	char err[1024];
	char *argv[6];
	size_t i;
	int argc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		argv[0] = "npu-emu";
		for (argc = 1; argc < 5 && cases[i].args[argc - 1]; argc++)
			argv[argc] = (char *)cases[i].args[argc - 1];
		argv[argc] = NULL;
		EXPECT_EQ(-EINVAL, parse(argc, argv, &o, err))
			TH_LOG("case %zu accepted", i);
		EXPECT_NE(NULL, strstr(err, cases[i].msg))
			TH_LOG("case %zu: expected '%s' in '%s'", i,
			       cases[i].msg, err);
		EXPECT_NE(NULL, strstr(err, "Try 'npu-emu --help'"));
	}
}

TEST(parse_numbers)
{
	uint64_t v;

	EXPECT_EQ(0, npu_emu_parse_size("0x10M", &v));
	EXPECT_EQ(16ull << 20, v);
	EXPECT_EQ(0, npu_emu_parse_size("3g", &v));
	EXPECT_EQ(3ull << 30, v);
	EXPECT_EQ(0, npu_emu_parse_size("7", &v));
	EXPECT_EQ(7, v);
	EXPECT_EQ(-EINVAL, npu_emu_parse_size("", &v));
	EXPECT_EQ(-EINVAL, npu_emu_parse_size("M", &v));
	EXPECT_EQ(-EINVAL, npu_emu_parse_size("1MM", &v));
	EXPECT_EQ(-EINVAL, npu_emu_parse_size(" 1", &v));
	EXPECT_EQ(-ERANGE, npu_emu_parse_size("18446744073709551615K", &v));
	EXPECT_EQ(0, npu_emu_parse_u64("18446744073709551615", &v));
	EXPECT_EQ(UINT64_MAX, v);
	EXPECT_EQ(-ERANGE, npu_emu_parse_u64("18446744073709551616", &v));
	EXPECT_EQ(-EINVAL, npu_emu_parse_u64("+1", &v));
}

TEST(layout)
{
	struct npu_emu_layout l;
	struct npu_emu_opts o;

	npu_emu_opts_init(&o);
	ASSERT_EQ(0, npu_emu_compute_layout(&o, &l));
	EXPECT_EQ(0x10000, l.cmdq_base);
	EXPECT_EQ(0x4000, l.cmdq_stride);
	EXPECT_EQ(64, l.cmdq_entries);
	EXPECT_EQ(0x50000, l.cplq_base);
	EXPECT_EQ(1024, l.cplq_entries);
	EXPECT_EQ(0x100000, l.trace_base);
	EXPECT_EQ(1u << 20, l.trace_size);
	EXPECT_EQ(0x400000, l.dram_base);
	EXPECT_EQ(64u << 20, l.dram_size);
	EXPECT_EQ(128u << 20, l.bar_size);	/* 4M + 64M -> 128M */

	o.dram_size = (64u << 20) - (4u << 20);	/* exactly 64M */
	ASSERT_EQ(0, npu_emu_compute_layout(&o, &l));
	EXPECT_EQ(64u << 20, l.bar_size);

	o.dram_size = 4096;
	ASSERT_EQ(0, npu_emu_compute_layout(&o, &l));
	EXPECT_EQ(8u << 20, l.bar_size);

	/* a large trace area pushes DRAM up to the next MiB */
	o.trace_size = 4u << 20;
	ASSERT_EQ(0, npu_emu_compute_layout(&o, &l));
	EXPECT_EQ(0x600000, l.dram_base);

	/* biggest DRAM: BAR of 4 GiB */
	o.trace_size = 1u << 20;
	o.dram_size = (4ull << 30) - 0x400000;
	ASSERT_EQ(0, npu_emu_compute_layout(&o, &l));
	EXPECT_EQ(4ull << 30, l.bar_size);
	o.dram_size += 4096;
	EXPECT_EQ(-EINVAL, npu_emu_compute_layout(&o, &l));
	o.dram_size = 5000;
	EXPECT_EQ(-EINVAL, npu_emu_compute_layout(&o, &l));
}

/* Run npu_emu_main() in a child; return its exit status, stderr in err */
static int run_main(char **argv, char *err, size_t errlen)
{
	int pfd[2], status;
	ssize_t n, off = 0;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int argc = 0;

		close(pfd[0]);
		dup2(pfd[1], 2);
		while (argv[argc])
			argc++;
		_exit(npu_emu_main(argc, argv));
	}
	close(pfd[1]);
	while ((size_t)off < errlen - 1 &&
	       (n = read(pfd[0], err + off, errlen - 1 - off)) > 0)
		off += n;
	err[off] = 0;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(exit_codes)
{
	char err[2048];

	EXPECT_EQ(2, run_main(ARGV("-p", "99"), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "--pes"));
	EXPECT_EQ(2, run_main(ARGV("-p", "1"), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "missing --socket"));
	EXPECT_EQ(0, run_main(ARGV("-h"), err, sizeof(err)));
	EXPECT_STREQ("", err);
	/* runtime errors: 1 */
	EXPECT_EQ(1, run_main(ARGV("-s", "/nonexistent-dir/x/npu.sock"), err,
			      sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "cannot bind"));
	EXPECT_EQ(1, run_main(ARGV("-s", "/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock"),
			      err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "too long"));
	EXPECT_EQ(1, run_main(ARGV("-s", "/dev/null"), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "not a socket"));
}

TEST_HARNESS_MAIN
