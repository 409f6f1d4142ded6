#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# python-notebook - execute the example Jupyter notebooks as kselftest TAP
#
# Executes every notebook in @NOTEBOOKS@ (*.ipynb) with Debian's nbclient
# and ipykernel (execute.py in @SRC@), the kernel being Debian's
# /usr/bin/python3 with PYTHONPATH=$NPU_BUILD/python (the python3 on PATH
# may be a pyenv interpreter: it is never used), and prints one TAP point
# per notebook: "not ok" when a cell raises, the notebook is not valid
# nbformat 4 JSON or the kernel does not start. The trace the notebooks
# open is $NPUPROF_TRACE, else one written now on the host by
# $NPU_BUILD/bin/npuprof-python-gen (200 synthetic inferences). The
# executed copies, outputs and PNGs included, are left in
# $NPU_BUILD/notebook/. Offline, no stdin. Never skips: without nbclient,
# ipykernel, matplotlib or pandas (scripts/deps.sh installs them) it fails.
# Environment: NPU_BUILD (or BUILD; default: the build directory this
# script is installed in), NPUPROF_TRACE, NPU_NOTEBOOKS (another directory
# of notebooks), NPU_NOTEBOOK_TIMEOUT (seconds per cell, default 120).
set -u
SRC=@SRC@
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${NPU_BUILD:-${BUILD:-$here}}
BUILD=$(cd "$BUILD" && pwd) || exit 1
NOTEBOOKS=${NPU_NOTEBOOKS:-@NOTEBOOKS@}
PY=/usr/bin/python3
KERNEL=npu-debian-python3

echo "TAP version 13"
totals() {
	echo "# Totals: pass:$1 fail:$2 xfail:0 xpass:0 skip:0 error:0"
}

set -- "$NOTEBOOKS"/*.ipynb
if [ ! -f "$1" ]; then
	echo "1..1"
	echo "not ok 1 notebooks # no *.ipynb in $NOTEBOOKS"
	totals 0 1
	exit 1
fi
echo "1..$#"

fail_all() {
	n=0
	for nb in "$@"; do
		n=$((n + 1))
		echo "not ok $n ${nb##*/} # $why"
	done
	totals 0 $#
	exit 1
}

if ! "$PY" -c 'import nbclient, nbformat, ipykernel, matplotlib, pandas' 2>/dev/null; then
	why="$PY lacks nbclient, nbformat, ipykernel, matplotlib or pandas (scripts/deps.sh)"
	fail_all "$@"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/python-notebook.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# A kernelspec of our own, first on JUPYTER_PATH: a user's or pyenv's
# "python3" kernelspec cannot replace Debian's interpreter.
mkdir -p "$tmp/jupyter/kernels/$KERNEL"
cat >"$tmp/jupyter/kernels/$KERNEL/kernel.json" <<JSON
{
 "argv": ["$PY", "-Xfrozen_modules=off", "-m", "ipykernel_launcher",
          "-f", "{connection_file}"],
 "display_name": "Debian python3 (npu)",
 "language": "python"
}
JSON

trace=${NPUPROF_TRACE:-}
if [ -z "$trace" ]; then
	trace=$tmp/synthetic.npuprof
	if ! "$BUILD/bin/npuprof-python-gen" large 200 "$trace" >"$tmp/gen.log" 2>&1; then
		sed 's/^/# /' "$tmp/gen.log"
		why="$BUILD/bin/npuprof-python-gen failed: run make"
		fail_all "$@"
	fi
fi
echo "# trace: $trace"

out=$BUILD/notebook
mkdir -p "$out" || exit 1
n=0 pass=0 fail=0
for nb in "$@"; do
	n=$((n + 1))
	name=${nb##*/}
	if JUPYTER_PATH=$tmp/jupyter IPYTHONDIR=$tmp/ipython \
		JUPYTER_RUNTIME_DIR=$tmp/runtime \
		PYTHONPATH=$BUILD/python NPU_BUILD=$BUILD NPUPROF_TRACE=$trace \
		MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 \
		"$PY" "$SRC/execute.py" "$nb" "$out/$name" "$KERNEL" \
		"${NPU_NOTEBOOK_TIMEOUT:-120}" </dev/null >"$tmp/log" 2>&1; then
		tail -n 1 "$tmp/log" | sed 's/^/# /'
		echo "ok $n $name"
		pass=$((pass + 1))
	else
		sed 's/^/# /' "$tmp/log" | tail -n 60
		echo "not ok $n $name"
		fail=$((fail + 1))
	fi
done
totals $pass $fail
[ $fail -eq 0 ]
