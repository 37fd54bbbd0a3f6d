#!/usr/bin/env bash
# tests/run.sh itself, on build directories made here: the unit programs it runs are those the sources
# call for (tests/unit/*.c, tests/fuzz/fuzz_*.c; fuzz_activity only where CUPTI's header is), so one that
# was not built fails loudly, naming it, while a run of other suites needs none; a name that is no suite
# is a usage error, not a run of nothing that passes.
set -u
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
build=${GPUPROF_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # check DESCRIPTION GOT WANT
	if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: got '$2', want '$3'"; fi
}
# runner NAME BUILD CUDA ARGS...: tests/run.sh ARGS on build directory BUILD with CUDA=CUDA; its output
# in $tmp/NAME.out, its exit status in $tmp/NAME.rc
runner() {
	local name=$1 b=$2 cuda=$3
	shift 3
	GPUPROF_BUILD=$b CUDA=$cuda GPUPROF_TEST_JOBS=1 timeout 120 tests/run.sh "$@" >"$tmp/$name.out" 2>&1
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
last() { tail -1 "$tmp/$1.out"; }
if [ ! -x "$build/bin/gpuprof-ingest" ]; then
	echo "runner: 0 passed, 1 failed ($build/bin/gpuprof-ingest missing)"
	exit 1
fi

# A CUDA with CUPTI's header and one without.
mkdir -p "$tmp/cuda/include" "$tmp/nocuda"
touch "$tmp/cuda/include/cupti.h"

# No unit programs built at all: a run of another suite passes.
mkdir -p "$tmp/empty/tests"
ln -s "$build/bin" "$tmp/empty/bin"
runner empty "$tmp/empty" "$tmp/cuda" wire_doc
check "no unit programs, another suite: exit status" "$(rc empty)" 0
check "no unit programs, another suite: the summary" "$(last empty | grep -cE '^[1-9][0-9]* passed, 0 failed$')" 1
# ... while asking for the unit programs fails, each one named.
n=0
for f in tests/unit/*.c tests/fuzz/fuzz_*.c; do
	[ -f "$f" ] && n=$((n + 1))
done
runner emptyunits "$tmp/empty" "$tmp/cuda" units
check "no unit programs, units: exit status" "$(rc emptyunits)" 1
check "no unit programs, units: the summary" "$(last emptyunits)" "0 passed, $n failed"
check "no unit programs, units: each named" "$(grep -c 'was not built: make test-programs builds it' "$tmp/emptyunits.out")" $n

# Every unit program there, as stand-ins that pass: all of them run.
mkdir -p "$tmp/full/tests"
ln -s "$build/bin" "$tmp/full/bin"
for f in tests/unit/*.c tests/fuzz/fuzz_*.c; do
	t=${f##*/}
	t=$tmp/full/tests/${t%.c}
	printf '#!/bin/sh\necho "${0##*/}: 1 passed, 0 failed"\n' >"$t"
	chmod +x "$t"
done
runner full "$tmp/full" "$tmp/cuda" units
check "all built: exit status" "$(rc full)" 0
check "all built: every one ran" "$(last full)" "$n passed, 0 failed"

# One missing: the run fails and says which.
rm "$tmp/full/tests/test_json"
runner onegone "$tmp/full" "$tmp/cuda" units
check "test_json not built: exit status" "$(rc onegone)" 1
check "test_json not built: the summary" "$(last onegone)" "$((n - 1)) passed, 1 failed"
check "test_json not built: named" "$(grep -cF "test_json: 0 passed, 1 failed ($tmp/full/tests/test_json was not built" "$tmp/onegone.out")" 1
printf '#!/bin/sh\necho "${0##*/}: 1 passed, 0 failed"\n' >"$tmp/full/tests/test_json"
chmod +x "$tmp/full/tests/test_json"

# fuzz_activity is built only where CUPTI's header is (the Makefile's FUZZ_NAMES): missing, it fails
# only there.
rm "$tmp/full/tests/fuzz_activity"
runner nocupti "$tmp/full" "$tmp/nocuda" units
check "no CUPTI, no fuzz_activity: exit status" "$(rc nocupti)" 0
check "no CUPTI, no fuzz_activity: the rest ran" "$(last nocupti)" "$((n - 1)) passed, 0 failed"
runner cupti "$tmp/full" "$tmp/cuda" units
check "CUPTI, no fuzz_activity: exit status" "$(rc cupti)" 1
check "CUPTI, no fuzz_activity: named" "$(grep -c '^fuzz_activity: 0 passed, 1 failed' "$tmp/cupti.out")" 1

# A name that is no suite.
runner nosuch "$tmp/full" "$tmp/cuda" units test_jsn
check "no such suite: exit status" "$(rc nosuch)" 2
check "no such suite: the message" "$(cat "$tmp/nosuch.out")" "tests/run.sh: error: no suite 'test_jsn'"

echo "runner: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
