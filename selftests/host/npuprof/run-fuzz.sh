#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# npuprof-fuzz - run every libFuzzer target of the profiler's libraries for
# a bounded time
#
# Runs each $NPU_BUILD/obj/npuprof-fuzz/fuzz_NAME for NPUPROF_FUZZ_SECONDS
# seconds (default 20), starting from the seeds fuzz_NAME writes itself when
# run with NPUPROF_FUZZ_SEEDS=DIR set (see the fuzz_*.c files), with the
# runner the host suites share (selftests/host/fuzz-runner.sh): kselftest
# TAP, one test per target.
set -u
BUILD=${NPU_BUILD:-@BUILD@}
SRC=${NPU_SRC:-@SRC@}
. "$SRC/selftests/host/fuzz-runner.sh"
FUZZ_DIR=$BUILD/obj/npuprof-fuzz
FUZZ_SECS=${NPUPROF_FUZZ_SECONDS:-20}
FUZZ_SEEDS_ENV=NPUPROF_FUZZ_SEEDS
fuzz_main
