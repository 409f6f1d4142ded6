#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - inferences/s and latency of the generated networks on the
# emulated NPU, in the VM. A benchmark, not a test: it prints figures.
#
#   tools/npu-classify/bench.sh [-n MNIST_COUNT] [-N MOBILENET_COUNT] [-- NPU-VM-OPTIONS]
#
# Needs `make` to have built build/bin/npu-classify, build/models/*.nmdl,
# npu.ko and npu-emu. Each net runs on 1 PE with 1 thread, then on 2 PEs
# with 2 threads (the emulated NPU has 2 PEs unless NPU-VM-OPTIONS say
# otherwise). One untimed --verify run of each net comes first, so that the
# figures are for outputs known to match lib/npuref bit for bit.
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MNIST_N=200
MOBILENET_N=8

while [ $# -gt 0 ]; do
	case "$1" in
	-n) MNIST_N=$2; shift 2 ;;
	-N) MOBILENET_N=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,13p' "$0"; exit 0 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

for f in "$ROOT/build/bin/npu-classify" "$ROOT/build/models/mnist.nmdl" \
	 "$ROOT/build/models/mobilenet-v1.nmdl"; do
	[ -e "$f" ] || { echo "bench.sh: $f missing; run make first" >&2; exit 1; }
done

# The guest script: models are at the same path as on the host.
GUEST=$(cat <<EOS
set -e
M=\$NPU_BUILD/models
for net in mnist:$MNIST_N mobilenet-v1:$MOBILENET_N; do
	name=\${net%%:*}; n=\${net##*:}
	echo "== \$name: verify"
	npu-classify -m \$M/\$name.nmdl -n 4 -j 2 --pes 0,1 --verify --ref \$NPU_BUILD/data/\$name.ref -q | grep verify
	echo "== \$name: 1 PE, 1 thread, \$n inferences"
	npu-classify -m \$M/\$name.nmdl -n \$n -j 1 --pes 0 -q
	echo "== \$name: 2 PEs, 2 threads, \$n inferences"
	npu-classify -m \$M/\$name.nmdl -n \$n -j 2 --pes 0,1 -q
done
EOS
)
exec "$ROOT/tools/vm/npu-vm" "$@" -- "$GUEST"
