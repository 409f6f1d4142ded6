#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# onnx-fuzz - run the libFuzzer target of the ONNX importer for a bounded
# time
#
# Runs $NPU_BUILD/obj/onnx-fuzz/fuzz_import for NPU_ONNX_FUZZ_SECONDS
# seconds (default 30) from its seeds: every node vector of
# libonnx-testdata with its constant inputs made initializers
# (selftests/onnx-models/seeds.py) and our MNIST in both ONNX forms
# (npu-model-gen --params-out, mg2onnx.py). Prints kselftest TAP: one
# test, failed when libFuzzer reports a crash, a leak, a sanitizer error
# or a timeout (the log's last lines are printed).
set -u
BUILD=${NPU_BUILD:-@BUILD@}
SRC=${NPU_SRC:-@SRC@}
. "$SRC/selftests/host/onnx-models/lib.sh"
DATA=${NPU_ONNX_DATA:-/usr/share/libonnx-testdata/data/node}
dir=$BUILD/obj/onnx-fuzz
f=$dir/fuzz_import
secs=${NPU_ONNX_FUZZ_SECONDS:-20}
work=$dir/run
echo "TAP version 13"
if [ ! -x "$f" ]; then
	echo "1..0 # SKIP $f not built"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 4
fi
echo "1..1"
rm -rf "$work" && mkdir -p "$work/corpus" "$work/seeds" || exit 1
"$PY" "$SRC/selftests/onnx-models/seeds.py" "$DATA" "$work/seeds" 2>&1 |
	sed 's/^#* */# /'
mnist_onnx "$work"
cp "$work"/mnist-q*.onnx "$work/seeds/" 2>/dev/null
if "$f" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
	-max_len=65536 -artifact_prefix="$work/" "$work/corpus" "$work/seeds" \
	>"$work/log" 2>&1; then
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n 1)
	echo "# fuzz_import: ${runs:-?} runs in ${secs} s, ${cov:-cov: ?}, no failure"
	echo "ok 1 fuzz_import"
	echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
	exit 0
fi
tail -n 40 "$work/log" | sed 's/^/# /'
echo "not ok 1 fuzz_import"
echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
exit 1
