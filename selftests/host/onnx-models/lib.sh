# SPDX-License-Identifier: GPL-2.0-only
#
# lib.sh - what the ONNX host suites' scripts (run-*.sh) share; sourced.
# Needs BUILD and SRC set.

PY=/usr/bin/python3

# step CMD...: run CMD quietly; on failure print it and its output as TAP
# comments and return its status
step() {
	log=$("$@" 2>&1)
	st=$?
	if [ $st -ne 0 ]; then
		echo "# FAILED (status $st): $*"
		printf '%s\n' "$log" | sed 's/^/#   /'
	fi
	return $st
}

# mnist_onnx DIR: our MNIST's parameters dump in DIR/mnist-params and its
# two ONNX forms, DIR/mnist-qop.onnx and DIR/mnist-qdq.onnx
mnist_onnx() {
	step "$BUILD/bin/npu-model-gen" --params-out "$1/mnist-params" mnist ||
		return
	for form in qop qdq; do
		step "$PY" "$SRC/selftests/onnx-models/mg2onnx.py" --form "$form" \
			-o "$1/mnist-$form.onnx" "$1/mnist-params"
	done
}

# need_onnx: skip the whole suite (kselftest TAP, exit 4) when Debian's
# python3-onnx or python3-numpy is missing: scripts/deps.sh installs them
need_onnx() {
	"$PY" -c 'import onnx, numpy' 2>/dev/null && return 0
	echo "TAP version 13"
	echo "1..0 # SKIP python3-onnx or python3-numpy missing (scripts/deps.sh installs them)"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 4
}
