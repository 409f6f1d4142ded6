#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# onnx-roundtrip - our networks through ONNX and back (roundtrip.c)
#
# Makes, for mnist and mobilenet-v1, in $NPU_BUILD/onnx/models/NET/:
#   params/     npu-model-gen --params-out (the network as built)
#   gen.nmdl    npu-model-gen NET (the model built directly, same seed)
#   qop.onnx    mg2onnx.py --form qop (QOperator)
#   qdq.onnx    mg2onnx.py --form qdq (QDQ)
#   qop.nmdl, qdq.nmdl
#               npu-onnx of each (the CLI; --check must pass first)
# then runs the kselftest binary that compares them on the host reference
# (roundtrip.c). A failed step is printed as a TAP comment; the binary then
# fails the tests that need its file. The VM runner (selftests/onnx) runs
# the same files on the device.
set -u
BUILD=${NPU_BUILD:-@BUILD@}
SRC=${NPU_SRC:-@SRC@}
. "$SRC/selftests/host/onnx-models/lib.sh"
need_onnx
out=$BUILD/onnx/models
for net in mnist mobilenet-v1; do
	d=$out/$net
	rm -rf "$d"
	mkdir -p "$d" || exit 1
	step "$BUILD/bin/npu-model-gen" --params-out "$d/params" "$net" || continue
	step "$BUILD/bin/npu-model-gen" -o "$d/gen.nmdl" "$net"
	for form in qop qdq; do
		step "$PY" "$SRC/selftests/onnx-models/mg2onnx.py" --form "$form" \
			-o "$d/$form.onnx" "$d/params" || continue
		step "$BUILD/bin/npu-onnx" --check "$d/$form.onnx" &&
		step "$BUILD/bin/npu-onnx" -o "$d/$form.nmdl" "$d/$form.onnx"
	done
done
exec "$BUILD/obj/onnx-models/roundtrip"
