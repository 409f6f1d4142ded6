#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# npuprof-bench_paired - the paired ratio of the inference benchmarks
# (paired() in tools/vm/bench-guest.sh's BENCH_AWK, printed by
# tools/npuprof-bench/overhead.sh), on rounds whose answer is known, as
# kselftest TAP.
#
# @SRC@ is the source tree, set when the Makefile installs this script.
set -u
ROOT=@SRC@
n=0 pass=0 fail=0

# bench-guest.sh is sourced for BENCH_AWK alone (it sets nothing else).
# shellcheck source=/dev/null
. "$ROOT/tools/vm/bench-guest.sh"

check() {	# check NAME EXPECTED INPUT: paired(cfg, off, 2) on INPUT
	n=$((n + 1))
	got=$(printf '%b' "$3" | awk "$BENCH_AWK"'
END {
	if (!paired("cfg", "off", 2)) { print "none"; exit }
	printf "%.4f %.4f %.4f\n", pr_med, ci_lo, ci_hi
}')
	if [ "$got" = "$2" ]; then
		echo "ok $n $1"
		pass=$((pass + 1))
	else
		echo "# expected '$2', got '$got'"
		echo "not ok $n $1"
		fail=$((fail + 1))
	fi
}

echo "TAP version 13"
echo "1..6"

# The host's speed drifts from round to round (off 0.4 to 0.8 ms) while
# the configuration costs 5 % in each: the ratio of the medians over the
# rounds would carry the drift, the paired ratio is 1.05 exactly.
in=
for p in 0.400 0.800 0.500 0.700 0.600 0.450 0.750; do
	c=$(awk -v p=$p 'BEGIN { printf "%.4f", p * 1.05 }')
	in="${in}off 1 $p 1\ncfg 1 $c 1\n"
done
check "a constant cost under drift is paired exactly" \
	"1.0500 1.0500 1.0500" "$in"

check "the median of odd many rounds" "1.0200 1.0000 1.1000" \
	"off 1 0.5 1\ncfg 1 0.5 1\noff 1 0.5 1\ncfg 1 0.51 1\noff 1 0.5 1\ncfg 1 0.55 1\n"

check "the median of even many rounds" "2.5000 1.0000 4.0000" \
	"off 1 1 1\ncfg 1 1 1\noff 1 1 1\ncfg 1 2 1\noff 1 1 1\ncfg 1 3 1\noff 1 1 1\ncfg 1 4 1\n"

check "lines in any order within a round" "2.0000 2.0000 2.0000" \
	"cfg 1 2 1\noff 1 1 1\noff 1 3 1\ncfg 1 6 1\n"

check "a round without the configuration pairs nothing" "none" \
	"off 1 0.5 1\ncfg 1 0.5 1\noff 1 0.5 1\n"

check "a zero base pairs nothing" "none" \
	"off 1 0 1\ncfg 1 0.5 1\n"

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
