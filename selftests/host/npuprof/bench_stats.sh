#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# npuprof-bench_stats - the statistics of the inference benchmarks, on
# figures whose answer is known, as kselftest TAP: the paired ratio
# (paired() in tools/vm/bench-guest.sh's BENCH_AWK, printed by
# tools/npuprof-bench/overhead.sh) and the summary of npuprof-bench-infer
# runs (tools/npuprof-bench/infer-series.sh --summarize).
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
	printf "%.4f %.4f %.4f\n", md, ci_lo, ci_hi
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
echo "1..9"

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

# infer-series.sh --summarize on three runs' output, with lines of the
# guest around them: the medians of the runs' figures per capture and
# state, in the order first seen. A run's semaphore line with a negative
# figure counts as it is.
infer_run() {	# infer_run SPANS_ON L2_SEM L2_ON L2_RATIO
	printf '%s\n' "level spans: 60 blocks of 20 inferences, the first 2 of each dropped" \
		"  off       n 1080 min 400.0 p25 450.0 p50 500.0 p75 600.0 mean 520.0 us; CPU an inference: this thread 1.0 us, others 1.0 us" \
		"  on        adds p50 $1 us, p25 1.0 us, min 1.0 us (p50 ratio 1.020)" \
		"level 2: 60 blocks of 20 inferences, the first 2 of each dropped" \
		"  semaphore adds p50 $2 us, p25 1.0 us, min 1.0 us (p50 ratio 1.005)" \
		"  on        adds p50 $3 us, p25 1.0 us, min 1.0 us (p50 ratio $4)"
}
summary=$( {
	echo "npu-vm: booting"
	infer_run 10.0 -2.5 30.0 1.060
	infer_run 14.0 4.0 20.0 1.040
	echo "random guest line"
	infer_run 12.0 1.0 25.0 1.050
} | "$ROOT/tools/npuprof-bench/infer-series.sh" --summarize 2>&1)
row() {	# row NAME CAPTURE STATE EXPECTED-TAIL (its blanks squeezed)
	n=$((n + 1))
	got=$(printf '%s\n' "$summary" | awk -v c="$2" -v s="$3" '
		$0 ~ "^" c " +" s " " { sub("^" c " +" s " +", ""); print }' |
		tr -s ' ')
	if [ "$got" = "$4" ]; then
		echo "ok $n $1"
		pass=$((pass + 1))
	else
		printf '%s\n' "$summary" | sed 's/^/# /'
		echo "# expected '$4', got '$got'"
		echo "not ok $n $1"
		fail=$((fail + 1))
	fi
}
row "infer-series: host spans' median over runs" "host spans" on \
	"3 12.0 (10.0 to 14.0) 1.020 (1.020-1.020)"
row "infer-series: a negative figure is a figure" "level 2" semaphore \
	"3 1.0 (-2.5 to 4.0) 1.005 (1.005-1.005)"
row "infer-series: the ratio's median and interval" "level 2" on \
	"3 25.0 (20.0 to 30.0) 1.050 (1.040-1.060)"

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
