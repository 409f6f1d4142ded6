#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# onnx-hostile - malformed and hostile ONNX files (hostile.c)
#
# Writes the cases of selftests/onnx-models/hostile.py and our MNIST in
# both ONNX forms (npu-model-gen --params-out, mg2onnx.py) into
# $NPU_BUILD/onnx/hostile/, then runs the kselftest binary (hostile.c). A
# failed step is printed as a TAP comment; the binary then fails the tests
# that need its files.
set -u
BUILD=${NPU_BUILD:-@BUILD@}
SRC=${NPU_SRC:-@SRC@}
. "$SRC/selftests/host/onnx-models/lib.sh"
need_onnx
d=$BUILD/onnx/hostile

rm -rf "$d"
mkdir -p "$d" || exit 1
step "$PY" "$SRC/selftests/onnx-models/hostile.py" "$d"
mnist_onnx "$d"
exec "$BUILD/obj/onnx-models/hostile"
