#!/usr/bin/env bash
# make test: every test that needs no GPU, quietly. Each suite prints "NAME: N passed, M failed";
# this script adds them up and ends with "N passed, M failed". Exit status 1 if anything failed.
set -u
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
passed=0 failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# suite NAME COMMAND...: run one suite, show its output only when it fails.
suite() {
	local name=$1 line p f rc
	shift
	"$@" >"$log" 2>&1
	rc=$?
	line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	p=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	[ -n "$line" ] || { p=0; f=1; }
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		echo "--- $name failed (exit $rc):"
		tail -60 "$log"
	else
		printf '%-12s %s\n' "$name" "${line#*: }"
	fi
}

units=0
for t in "${GPUPROF_BUILD:-build}"/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	units=$((units + 1))
	suite "${t##*/}" "$t"
done
if [ "$units" -eq 0 ]; then
	echo "--- no unit test programs in ${GPUPROF_BUILD:-build}/tests (make test builds them)"
	failed=$((failed + 1))
fi
suite cases python3 tests/cases.py
suite wire_doc python3 tests/wire_doc.py
suite golden tests/golden.sh
suite truth python3 tests/truth.py
suite kineto python3 tests/traces_kineto.py
suite schema python3 tests/schema_versions.py
suite nsys python3 tests/traces_nsys.py
suite nsys_rows python3 tests/nsys_rows.py
suite nsys_stats python3 tests/nsys_stats.py
suite rows python3 tests/rows.py
suite analyses python3 tests/analyses.py
suite views python3 tests/views.py
suite sqlext python3 tests/sqlext.py
suite vtab python3 tests/vtab.py
suite ranks python3 tests/ranks.py
suite ingest_jobs python3 tests/ingest_jobs.py
suite progress python3 tests/ingest_progress.py
suite trace_export python3 tests/trace_export.py
suite compare python3 tests/compare.py
suite parallel python3 tests/parallel.py
suite classes python3 tests/analyses_launch_classes.py
suite memory python3 tests/memory.py
suite stalls python3 tests/stalls.py
suite html python3 tests/report_html.py
suite xlsx python3 tests/report_xlsx.py
suite csv python3 tests/report_csv.py
suite report_schema /usr/bin/python3 tests/report_schema.py
suite md python3 tests/report_md.py
suite demo python3 tests/demo_session.py
suite collector python3 tests/collector.py
suite install python3 tests/install.py
suite collect tests/collect.sh
suite atomic tests/atomic.sh
suite faults python3 tests/faults.py
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
