#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# npuprof-viewer - does a real viewer load what `npuprof export` writes?
# A kselftest-style test (TAP, "# Totals:" line) run on the host by
# `make check`: writes a synthetic trace (npuprof-viewer-gen), exports it
# with `npuprof export --format chrome`, installs the pinned viewer
# packages (package-lock.json: speedscope, playwright-core) from the npm
# registry with `npm ci` into BUILD/viewer/, and loads the JSON into
# speedscope in headless Chromium (viewer.mjs), checking what it imported.
# Missing chromium, node or npm is a failure with a message saying what
# to install (scripts/deps.sh does), never a silent skip.
#
# Environment: NPU_BUILD (default: the directory above this script's),
# CHROMIUM (default /usr/bin/chromium).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${NPU_BUILD:-$(cd "$HERE/.." && pwd)}
SHARE=$BUILD/share/viewer
WORK=$BUILD/viewer
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM

echo "TAP version 13"
fail() {
	echo "1..1"
	echo "not ok 1 npuprof-viewer: $*"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
}

[[ -x "$CHROMIUM" ]] || fail "$CHROMIUM missing: install Debian's chromium (scripts/deps.sh)"
command -v node >/dev/null || fail "node missing: install nodejs (scripts/deps.sh)"
command -v npm >/dev/null || fail "npm missing: install npm (nodejs)"
for f in npuprof npuprof-viewer-gen; do
	[[ -x "$BUILD/bin/$f" ]] || fail "$BUILD/bin/$f missing: run make"
done

mkdir -p "$WORK"
if ! cmp -s "$SHARE/package-lock.json" "$WORK/package-lock.json" ||
   [[ ! -d "$WORK/node_modules/speedscope" ]]; then
	cp "$SHARE/package.json" "$SHARE/package-lock.json" "$WORK/"
	(cd "$WORK" && timeout 300 npm ci --no-audit --no-fund --loglevel=error) >"$WORK/npm.log" 2>&1 ||
		fail "npm ci failed (see $WORK/npm.log): $(tail -3 "$WORK/npm.log" | tr '\n' ' ')"
fi

trace=$WORK/t.npuprof
json=$WORK/t.json
"$BUILD/bin/npuprof-viewer-gen" "$trace" || fail "npuprof-viewer-gen failed"
"$BUILD/bin/npuprof" export "$trace" --format chrome -o "$json" ||
	fail "npuprof export failed"
# the negative control: the same file cut in the middle
head -c $(($(stat -c %s "$json") / 2)) "$json" >"$WORK/bad.json"

out=$(timeout 90 node "$SHARE/viewer.mjs" "$WORK/node_modules" "$json" "$WORK/bad.json" 2>&1)
st=$?
pass=$(grep -c '^ok ' <<<"$out")
nfail=$(grep -c '^not ok ' <<<"$out")
if [[ $st -ne 0 && $nfail -eq 0 ]]; then
	# the script died (timeout, no browser): one failure with its output
	echo "$out" | sed 's/^/# /'
	nfail=1
	out="not ok $((pass + 1)) viewer.mjs exited with status $st"
fi
echo "1..$((pass + nfail))"
echo "$out" | grep -v '^# viewer checks'
echo "# Totals: pass:$pass fail:$nfail xfail:0 xpass:0 skip:0 error:0"
[[ $nfail -eq 0 ]]
