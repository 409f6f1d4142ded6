// SPDX-License-Identifier: GPL-2.0-only
/*
 * zz_kernel_log - the kernel log holds no warning, bug or oops report.
 *
 * Named to sort last among the VM suites, so it checks everything the
 * suites before it did. It reads the log from the npu-vm marker line on
 * (or from boot, outside npu-vm).
 */

#include "kselftest_harness.h"
#include "npu_test.h"

TEST(no_kernel_warnings)
{
	int found = npu_kernel_log_problems();

	ASSERT_LE(0, found);
	EXPECT_EQ(0, found);
}

TEST_HARNESS_MAIN
