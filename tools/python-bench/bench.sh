#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh - the DataFrame getters of the npuprof Python package against
# the SQLite route (issue 22, item 4), run by `make bench`: a synthetic
# trace (npuprof-bench-export --gen) read into get_pandas_dataframe() and
# into npu_executions(), and exported with export_sqlite() then read back
# with pandas.read_sql; each in a child process, 3 rounds interleaved.
# Prints rows, seconds, events/s, rows/s, peak RSS and the ratios to the
# SQLite route. Figures only; no pass/fail.
#
# Usage: bench.sh [--quick | --large | --events N | N]
#   default 1 M events; --quick 200 k; --large 10 M (as the issue asks);
#   PYTHON_BENCH_EVENTS=N in the environment sets N when no argument does.
#
# Debian's /usr/bin/python3 (with its numpy and pandas), never the python3
# on PATH, which can be a pyenv interpreter without them.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
PY=/usr/bin/python3

events=${PYTHON_BENCH_EVENTS:-1000000}
while [[ $# -gt 0 ]]; do
	case $1 in
	--quick) events=200000 ;;
	--large) events=10000000 ;;
	--events) events=$2; shift ;;
	[0-9]*) events=$1 ;;
	*) echo "usage: $0 [--quick | --large | --events N | N]" >&2; exit 2 ;;
	esac
	shift
done

if ! PYTHONPATH=$BUILD/python $PY -c 'import npuprof, pandas' 2>/dev/null; then
	echo "python-bench: $PY cannot import npuprof (from $BUILD/python) and pandas; not run"
	exit 0
fi
exec env PYTHONPATH="$BUILD/python" $PY "$ROOT/tools/python-bench/bench.py" \
	--build "$BUILD" --events "$events"
