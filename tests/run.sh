#!/usr/bin/env bash
# make test: every test that needs no GPU, quietly. Each suite prints "NAME: N passed, M failed";
# this script runs them GPUPROF_TEST_JOBS at a time (default: the number of CPUs), shows each one's line
# in the order below as they finish, and ends with "N passed, M failed". Exit status 1 if anything failed.
# Arguments, when given, name the suites to run (e.g. tests/run.sh units cases); a name that is no suite is
# a usage error (exit 2). A unit program of tests/unit or tests/fuzz that was not built fails its suite.
set -u
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
build=${GPUPROF_BUILD:-build}
jobs=${GPUPROF_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
passed=0 failed=0
names=() shown=0 running=0

# The unit programs there must be: one per tests/unit/*.c and per fuzz target's replay (the Makefile's
# UNITS and FUZZ_REPLAYS; fuzz_activity only where CUPTI's header is, as there). What the sources say,
# not what build/tests holds: one that was not built is a failed suite, and none at all is no failure
# where there are no sources for any.
units() {
	local f n
	for f in tests/unit/*.c tests/fuzz/fuzz_*.c; do
		[ -f "$f" ] || continue
		n=${f##*/}
		n=${n%.c}
		[ "$n" = fuzz_activity ] && [ ! -f "${CUDA:-/usr/local/cuda}/include/cupti.h" ] && continue
		echo "$n"
	done
}

# The suites, longest first, so that the last to finish is a short one.
list() {
	echo "vtab python3 tests/vtab.py"
	echo "schema python3 tests/schema_versions.py"
	echo "analyses python3 tests/analyses.py"
	echo "modules_shell python3 tests/modules_shell.py"
	echo "compare python3 tests/compare.py"
	echo "ingest_jobs python3 tests/ingest_jobs.py"
	echo "interrupt python3 tests/interrupt.py"
	echo "trace_export python3 tests/trace_export.py"
	echo "warehouse python3 tests/warehouse.py"
	echo "sqlext python3 tests/sqlext.py"
	echo "kineto python3 tests/traces_kineto.py"
	echo "ops_ingest python3 tests/ops_ingest.py"
	echo "ops python3 tests/ops.py"
	echo "progress python3 tests/ingest_progress.py"
	echo "faults python3 tests/faults.py"
	local n
	for n in $(units); do
		echo "$n $build/tests/$n"
	done
	echo "cases python3 tests/cases.py"
	echo "wire_doc python3 tests/wire_doc.py"
	echo "golden tests/golden.sh"
	echo "truth python3 tests/truth.py"
	echo "nsys python3 tests/traces_nsys.py"
	echo "nsys_rows python3 tests/nsys_rows.py"
	echo "nsys_stats python3 tests/nsys_stats.py"
	echo "rows python3 tests/rows.py"
	echo "modules python3 tests/modules.py"
	echo "export python3 tests/export.py"
	echo "outputs_atomic python3 tests/outputs_atomic.py"
	echo "views python3 tests/views.py"
	echo "refs python3 tests/refs.py"
	echo "comment_paths python3 tests/comment_paths.py"
	echo "ranks python3 tests/ranks.py"
	echo "parallel python3 tests/parallel.py"
	echo "classes python3 tests/analyses_launch_classes.py"
	echo "memory python3 tests/memory.py"
	echo "stalls python3 tests/stalls.py"
	echo "html python3 tests/report_html.py"
	echo "xlsx python3 tests/report_xlsx.py"
	echo "csv python3 tests/report_csv.py"
	echo "report_schema /usr/bin/python3 tests/report_schema.py"
	echo "md python3 tests/report_md.py"
	echo "user_modules /usr/bin/python3 tests/user_modules.py"
	echo "hostile /usr/bin/python3 tests/hostile.py"
	echo "demo python3 tests/demo_session.py"
	echo "collector python3 tests/collector.py"
	echo "install python3 tests/install.py"
	echo "collect tests/collect.sh"
	echo "atomic tests/atomic.sh"
	echo "runner tests/runner.sh"
}

# run NAME COMMAND...: one suite, in the background; its output to NAME.log, then its exit status and
# seconds to NAME.done.
run() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s.%N)
	case $1 in
	"$build"/tests/*)
		if [ ! -x "$1" ]; then
			echo "$name: 0 passed, 1 failed ($1 was not built: make test-programs builds it)" >"$dir/$name.log"
			echo "1 0.0" >"$dir/$name.done"
			return
		fi ;;
	esac
	"$@" >"$dir/$name.log" 2>&1 </dev/null
	rc=$?
	awk -v rc=$rc -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%d %.1f\n", rc, b - a }' >"$dir/$name.tmp"
	mv "$dir/$name.tmp" "$dir/$name.done"
}

# show: the finished suites' lines, in the list's order, as far as all before them have finished.
show() {
	local name rc secs line p f
	while [ "$shown" -lt "${#names[@]}" ] && [ -f "$dir/${names[$shown]}.done" ]; do
		name=${names[$shown]}
		read -r rc secs <"$dir/$name.done"
		line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' "$dir/$name.log" | tail -1)
		p=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
		f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		[ -n "$line" ] || { p=0; f=1; }
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		passed=$((passed + p))
		failed=$((failed + f))
		if [ "$f" -ne 0 ]; then
			echo "--- $name failed (exit $rc):"
			tail -60 "$dir/$name.log"
		else
			printf '%-13s %-28s %6s s\n' "$name" "${line#*: }" "$secs"
		fi
		shown=$((shown + 1))
	done
}

# wanted NAME COMMAND ARGS...: whether the arguments name the suite (or there are none; "units" names the
# unit programs)
wanted() {
	local a
	[ $# -gt 2 ] || return 0
	for a in "${@:3}"; do
		[ "$a" = "$1" ] && return 0
		[ "$a" = units ] && case $2 in "$build"/tests/*) true ;; *) false ;; esac && return 0
	done
	return 1
}

# A name that is no suite would run nothing and pass: a usage error.
for a in "$@"; do
	[ "$a" = units ] || list | cut -d" " -f1 | grep -qxF -- "$a" || { echo "tests/run.sh: error: no suite '$a'" >&2; exit 2; }
done

while read -r name cmd; do
	wanted "$name" "${cmd%% *}" "$@" || continue
	names+=("$name")
	while [ "$running" -ge "$jobs" ]; do
		wait -n
		running=$((running - 1))
		show
	done
	# shellcheck disable=SC2086 # the command's words
	run "$name" $cmd &
	running=$((running + 1))
done < <(list)
wait
show
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
