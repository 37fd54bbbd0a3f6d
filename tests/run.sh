#!/usr/bin/env bash
# make test: every test that needs no GPU, quietly. Each suite prints "NAME: N passed, M failed";
# this script runs them GPUPROF_TEST_JOBS at a time (default: the number of CPUs), shows each one's line
# in the order below as they finish, and ends with "N passed, M failed". Exit status 1 if anything failed.
# Arguments, when given, name the suites to run (e.g. tests/run.sh units cases).
set -u
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
build=${GPUPROF_BUILD:-build}
jobs=${GPUPROF_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
passed=0 failed=0
names=() shown=0 running=0

# The suites, longest first, so that the last to finish is a short one.
list() {
	echo "vtab python3 tests/vtab.py"
	echo "schema python3 tests/schema_versions.py"
	echo "analyses python3 tests/analyses.py"
	echo "compare python3 tests/compare.py"
	echo "ingest_jobs python3 tests/ingest_jobs.py"
	echo "trace_export python3 tests/trace_export.py"
	echo "warehouse python3 tests/warehouse.py"
	echo "sqlext python3 tests/sqlext.py"
	echo "kineto python3 tests/traces_kineto.py"
	echo "ops_ingest python3 tests/ops_ingest.py"
	echo "ops python3 tests/ops.py"
	echo "progress python3 tests/ingest_progress.py"
	echo "faults python3 tests/faults.py"
	local t
	for t in "$build"/tests/*; do
		[ -f "$t" ] && [ -x "$t" ] && echo "${t##*/} $t"
	done
	echo "cases python3 tests/cases.py"
	echo "wire_doc python3 tests/wire_doc.py"
	echo "golden tests/golden.sh"
	echo "truth python3 tests/truth.py"
	echo "nsys python3 tests/traces_nsys.py"
	echo "nsys_rows python3 tests/nsys_rows.py"
	echo "nsys_stats python3 tests/nsys_stats.py"
	echo "rows python3 tests/rows.py"
	echo "export python3 tests/export.py"
	echo "views python3 tests/views.py"
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
	echo "demo python3 tests/demo_session.py"
	echo "collector python3 tests/collector.py"
	echo "install python3 tests/install.py"
	echo "collect tests/collect.sh"
	echo "atomic tests/atomic.sh"
}

# run NAME COMMAND...: one suite, in the background; its output to NAME.log, then its exit status and
# seconds to NAME.done.
run() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s.%N)
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

wanted() { # wanted NAME: whether the arguments name it (or there are none; "units" names the unit programs)
	local a
	[ $# -gt 1 ] || return 0
	for a in "${@:2}"; do
		[ "$a" = "$1" ] && return 0
		[ "$a" = units ] && [ -f "$build/tests/$1" ] && [ -x "$build/tests/$1" ] && return 0
	done
	return 1
}

units=0
while read -r name cmd; do
	case $cmd in "$build"/tests/*) units=$((units + 1)) ;; esac
	wanted "$name" "$@" || continue
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
if [ "$units" -eq 0 ]; then
	echo "--- no unit test programs in $build/tests (make test builds them)"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
