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
# with the runner the host suites share (selftests/host/fuzz-runner.sh):
# kselftest TAP, one test per target.
set -u
BUILD=${NPU_BUILD:-@BUILD@}
SRC=${NPU_SRC:-@SRC@}
. "$SRC/selftests/host/onnx-models/lib.sh"
. "$SRC/selftests/host/fuzz-runner.sh"
DATA=${NPU_ONNX_DATA:-/usr/share/libonnx-testdata/data/node}
FUZZ_DIR=$BUILD/obj/onnx-fuzz
FUZZ_SECS=${NPU_ONNX_FUZZ_SECONDS:-20}
FUZZ_SEEDS_ENV=NPU_ONNX_FUZZ_SEEDS
FUZZ_TIMEOUT=20
FUZZ_OPTS=-max_len=65536

# fuzz_import's seeds: the test vectors and MNIST, in WORK/seeds
fuzz_seeds() {	# NAME BINARY WORK
	[ "$1" = fuzz_import ] || return 1
	"$PY" "$SRC/selftests/onnx-models/seeds.py" "$DATA" "$3/seeds" 2>&1 |
		sed 's/^#* */# /'
	mnist_onnx "$3"
	cp "$3"/mnist-q*.onnx "$3/seeds/" 2>/dev/null
	return 0
}

fuzz_main
