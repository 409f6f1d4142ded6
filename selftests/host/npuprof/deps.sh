#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# npuprof-deps - the profiler's libraries keep their shape
# (Documentation/npu/libraries.rst), checked on the built objects and the
# sources, as kselftest TAP:
#
#  - within each library (libnpuprof, libnpuprof-analysis) no two files
#    depend on each other, even through others: a file depends on the one
#    that defines a symbol it leaves undefined (nm), and tsort finds no loop;
#  - the internal headers include each other without a loop;
#  - libnpuprof.so and libnpu.so need no SQLite, libnpuprof.so nothing but
#    libc: a profiled program loads capture alone;
#  - no library or tool is compiled with -I driver or -I selftests/..., or
#    includes a header by a path into driver/ or selftests/.
#
# @SRC@ is the source tree, set when the Makefile installs this script.
set -u
BUILD=${NPU_BUILD:-${BUILD:-build}}
ROOT=@SRC@
n=0 pass=0 fail=0

result() {	# result OK NAME [DETAIL...]
	n=$((n + 1))
	ok=$1 name=$2
	shift 2
	if [ "$ok" = 0 ]; then
		echo "ok $n $name"
		pass=$((pass + 1))
	else
		printf '%s\n' "$@" | sed 's/^/# /'
		echo "not ok $n $name"
		fail=$((fail + 1))
	fi
}

# "A B" lines: object A needs a symbol object B defines
obj_edges() {
	dir=$1
	for o in "$dir"/*.o; do
		nm --defined-only "$o" | awk -v f="${o##*/}" \
			'$2 ~ /^[TDBR]$/ { print "D", $3, f }'
		nm -u "$o" | awk -v f="${o##*/}" '{ print "U", $2, f }'
	done | awk '$1 == "D" { def[$2] = $3; next }
		    { use[NR] = $2 " " $3 }
		    END { for (i in use) { split(use[i], a, " ");
			  if ((a[1] in def) && def[a[1]] != a[2])
				print a[2], def[a[1]] } }' | sort -u
}

echo "TAP version 13"
echo "1..7"

for lib in libnpuprof libnpuprof-analysis; do
	dir=$BUILD/obj/$lib
	if ! ls "$dir"/*.o >/dev/null 2>&1; then
		result 1 "$lib: files depend one way" "no objects in $dir"
		continue
	fi
	edges=$(obj_edges "$dir")
	# tsort needs the pairs; a file alone is a pair with itself
	out=$( { echo "$edges"; for o in "$dir"/*.o; do echo "${o##*/} ${o##*/}"; done; } |
		tsort 2>&1 >/dev/null)
	if [ -z "$out" ]; then
		result 0 "$lib: files depend one way ($(echo "$edges" | grep -c .) edges)"
	else
		result 1 "$lib: files depend one way" "$out" $edges
	fi
done

# the internal headers' includes
edges=$(cd "$ROOT/lib" && for h in npuprof/*.h analysis/*.h; do
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$h" | while read -r i; do
		echo "${h##*/} $i"
	done
	echo "${h##*/} ${h##*/}"
done)
out=$(echo "$edges" | tsort 2>&1 >/dev/null)
if [ -z "$out" ]; then
	result 0 "headers include each other without a loop"
else
	result 1 "headers include each other without a loop" "$out"
fi

bad=$(for l in libnpuprof.so libnpu.so; do
	readelf -d "$BUILD/lib/$l" 2>&1 | grep -i "NEEDED.*sqlite\|No such file" |
		sed "s|^|$l: |"
done)
result "$([ -z "$bad" ] && echo 0 || echo 1)" \
	"libnpuprof.so and libnpu.so need no SQLite" "$bad"

bad=$(readelf -d "$BUILD/lib/libnpuprof.so" 2>&1 |
	sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' |
	grep -v '^libc\.so\|^ld-linux' )
result "$([ -z "$bad" ] && echo 0 || echo 1)" \
	"libnpuprof.so needs libc alone" "$bad"

bad=$(cd "$ROOT" && grep -n -e '-I[$(A-Z)]*/driver' -e '-I[$(A-Z)]*/selftests' \
	lib/*/Makefile lib/*/*.mk tools/*/Makefile tools/*/*.mk 2>/dev/null)
result "$([ -z "$bad" ] && echo 0 || echo 1)" \
	"no library or tool is built with -I driver or -I selftests" "$bad"

# nor reaches them by a path: the hardware contract is include/npu's
bad=$(cd "$ROOT" && grep -rn -E '^#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?(driver|selftests)/' \
	--include='*.[ch]' lib tools 2>/dev/null)
result "$([ -z "$bad" ] && echo 0 || echo 1)" \
	"no library or tool source includes a driver or selftests header" "$bad"

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ $fail -eq 0 ]
