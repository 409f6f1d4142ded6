#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# onnx-fuzz - run the libFuzzer targets of the ONNX importer for a bounded
# time
#
# Runs each $NPU_BUILD/obj/onnx-fuzz/fuzz_NAME for NPU_ONNX_FUZZ_SECONDS
# seconds (default 20, as the other fuzzers) from its seeds:
#   fuzz_import  every node vector of libonnx-testdata with its constant
#                inputs made initializers (selftests/onnx-models/seeds.py)
#                and our MNIST in both ONNX forms (npu-model-gen
#                --params-out, mg2onnx.py);
#   fuzz_bind    the ones it writes itself when run with
#                NPU_ONNX_FUZZ_SEEDS=DIR (see fuzz_bind.c).
# Prints kselftest TAP: one test per target, failed when libFuzzer reports
# a crash, a leak, a sanitizer error or a timeout (the log's last lines
# are printed).
set -u
BUILD=${NPU_BUILD:-@BUILD@}
SRC=${NPU_SRC:-@SRC@}
. "$SRC/selftests/host/onnx-models/lib.sh"
DATA=${NPU_ONNX_DATA:-/usr/share/libonnx-testdata/data/node}
dir=$BUILD/obj/onnx-fuzz
secs=${NPU_ONNX_FUZZ_SECONDS:-20}
echo "TAP version 13"
set -- "$dir"/fuzz_*
if [ ! -x "$1" ]; then
	echo "1..0 # SKIP no fuzz targets in $dir"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 4
fi
echo "1..$#"
n=0 pass=0 fail=0
for f in "$@"; do
	n=$((n + 1))
	name=${f##*/}
	work=$dir/run-$name
	rm -rf "$work" && mkdir -p "$work/corpus" "$work/seeds" || exit 1
	case $name in
	fuzz_import)
		"$PY" "$SRC/selftests/onnx-models/seeds.py" "$DATA" \
			"$work/seeds" 2>&1 | sed 's/^#* */# /'
		mnist_onnx "$work"
		cp "$work"/mnist-q*.onnx "$work/seeds/" 2>/dev/null ;;
	*)
		NPU_ONNX_FUZZ_SEEDS=$work/seeds "$f" -runs=0 "$work/seeds" \
			>/dev/null 2>&1 ;;
	esac
	if "$f" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
		-max_len=65536 -artifact_prefix="$work/" "$work/corpus" \
		"$work/seeds" >"$work/log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log" | tail -n 1)
		cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n 1)
		echo "# $name: ${runs:-?} runs in ${secs} s, ${cov:-cov: ?}, no failure"
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
