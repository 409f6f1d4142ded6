#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# npuprof-fuzz - run every libFuzzer target of libnpuprof for a bounded time
#
# Runs each $NPU_BUILD/obj/npuprof-fuzz/fuzz_NAME for NPUPROF_FUZZ_SECONDS
# seconds (default 20), starting from the seeds fuzz_NAME writes itself when
# run with NPUPROF_FUZZ_SEEDS=DIR set (see the fuzz_*.c files), and prints
# kselftest TAP: one test per target, failed when libFuzzer reports a crash,
# a leak, a sanitizer error or a timeout.
set -u
BUILD=${NPU_BUILD:-${BUILD:-build}}
dir=$BUILD/obj/npuprof-fuzz
secs=${NPUPROF_FUZZ_SECONDS:-20}
set -- "$dir"/fuzz_*
[ -x "$1" ] || { echo "1..0 # SKIP no fuzz targets in $dir"; echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"; exit 4; }
echo "TAP version 13"
echo "1..$#"
n=0 pass=0 fail=0
for f in "$@"; do
	n=$((n + 1))
	name=${f##*/}
	work=$dir/run-$name
	rm -rf "$work" && mkdir -p "$work/corpus" "$work/seeds"
	NPUPROF_FUZZ_SEEDS=$work/seeds "$f" -runs=0 "$work/seeds" >/dev/null 2>&1 || true
	if "$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$work/" "$work/corpus" "$work/seeds" \
		>"$work/log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log" | tail -n 1)
		echo "# $name: ${runs:-?} runs in ${secs} s, no failure"
		echo "ok $n $name"
		pass=$((pass + 1))
	else
		tail -n 40 "$work/log" | sed 's/^/# /'
		echo "not ok $n $name"
		fail=$((fail + 1))
	fi
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ $fail -eq 0 ]
