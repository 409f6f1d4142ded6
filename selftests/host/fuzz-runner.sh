# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# fuzz-runner.sh - the libFuzzer runner of the host test directories,
# sourced (sh) by their run-fuzz.sh, which set:
#
#   FUZZ_DIR        where their Makefile put the fuzz_NAME binaries
#   FUZZ_SECS       seconds each target runs
#   FUZZ_SEEDS_ENV  the variable that makes a target write its own seeds
#                   into the directory it names (run with -runs=0)
#   FUZZ_TIMEOUT    seconds one input may take (default 10)
#   FUZZ_OPTS       more libFuzzer options, split on blanks (default none)
#
# and may define fuzz_seeds NAME BINARY WORK to write target NAME's seeds
# into WORK/seeds another way (it returns 1 to leave NAME to the default).
# Then fuzz_main runs every target for FUZZ_SECS from an empty corpus and
# its seeds, in FUZZ_DIR/run-NAME/, and prints kselftest TAP: one test per
# target, failed when libFuzzer reports a crash, a leak, a sanitizer error
# or a timeout (the log's last 40 lines printed), else its runs and
# coverage. Exits 0, 1 when a target failed, 4 (skip) without targets.

# the default: none of the caller's own
fuzz_seeds() {
	return 1
}

fuzz_main() {
	echo "TAP version 13"
	set -- "$FUZZ_DIR"/fuzz_*
	if [ ! -x "$1" ]; then
		echo "1..0 # SKIP no fuzz targets in $FUZZ_DIR"
		echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
		exit 4
	fi
	echo "1..$#"
	fz_n=0 fz_pass=0 fz_fail=0
	for fz_bin in "$@"; do
		fz_n=$((fz_n + 1))
		fz_name=${fz_bin##*/}
		fz_work=$FUZZ_DIR/run-$fz_name
		rm -rf "$fz_work" && mkdir -p "$fz_work/corpus" "$fz_work/seeds" ||
			exit 1
		if ! fuzz_seeds "$fz_name" "$fz_bin" "$fz_work"; then
			env "$FUZZ_SEEDS_ENV=$fz_work/seeds" "$fz_bin" -runs=0 \
				"$fz_work/seeds" >/dev/null 2>&1
		fi
		# shellcheck disable=SC2086
		if "$fz_bin" -max_total_time="$FUZZ_SECS" \
			-timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
			${FUZZ_OPTS:-} -artifact_prefix="$fz_work/" \
			"$fz_work/corpus" "$fz_work/seeds" >"$fz_work/log" 2>&1; then
			fz_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$fz_work/log" |
				tail -n 1)
			fz_cov=$(grep -o 'cov: [0-9]*' "$fz_work/log" | tail -n 1)
			echo "# $fz_name: ${fz_runs:-?} runs in $FUZZ_SECS s, ${fz_cov:-cov: ?}, no failure"
			echo "ok $fz_n $fz_name"
			fz_pass=$((fz_pass + 1))
		else
			tail -n 40 "$fz_work/log" | sed 's/^/# /'
			echo "not ok $fz_n $fz_name"
			fz_fail=$((fz_fail + 1))
		fi
	done
	echo "# Totals: pass:$fz_pass fail:$fz_fail xfail:0 xpass:0 skip:0 error:0"
	[ $fz_fail -eq 0 ]
	exit
}
