// SPDX-License-Identifier: GPL-2.0-only
/*
 * zz_kernel_log - the kernel log holds no warning, bug or oops report.
 *
 * Named to sort last among the VM suites, so it checks everything the
 * suites before it did. It reads the log from the npu-vm marker line on
 * (or from boot, outside npu-vm).
 */

#include <sys/klog.h>

#include "kselftest_harness.h"
#include "npu_test.h"

static const char * const bad[] = {
	"WARNING:", "BUG:", "BUG ", "Oops", "Call Trace", "KASAN", "UBSAN",
	"refcount_t", "general protection fault", "kernel BUG", "INFO: task",
	"possible circular locking", "inconsistent lock state", "list_add corruption",
	"list_del corruption", "use-after-free", "double free",
};

TEST(no_kernel_warnings)
{
	const char *marker = "npu-vm: kernel log checked from here";
	char *buf, *start, *line, *save;
	int size, n, found = 0;
	size_t i;

	size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	ASSERT_LT(0, size);
	buf = calloc(1, size + 1);
	ASSERT_NE(NULL, buf);
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	ASSERT_LE(0, n);
	buf[n] = '\0';

	start = strstr(buf, marker);
	if (!start)
		start = buf;
	for (line = strtok_r(start, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (strstr(line, bad[i])) {
				TH_LOG("kernel log: %s", line);
				found++;
				break;
			}
		}
	}
	free(buf);
	EXPECT_EQ(0, found);
}

TEST_HARNESS_MAIN
