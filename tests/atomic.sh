#!/usr/bin/env bash
# An ingest killed halfway leaves the database exactly as it was: one transaction per session.
# The input is a FIFO, so the kill lands deterministically while the transaction is open.
set -u
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
export PATH="$PWD/${GPUPROF_BUILD:-build}/bin:$PATH"
tmp=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # check DESCRIPTION GOT WANT
	if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: got '$2', want '$3'"; fi
}
counts() { sqlite3 "$tmp/s.db" "SELECT (SELECT count(*) FROM sessions) || ' ' || (SELECT count(*) FROM kernels) || ' ' || (SELECT count(*) FROM strings) || ' ' || (SELECT count(*) FROM ingest_errors)"; }

gpuprof-synth --kernels 20000 --seed 3 -o "$tmp/a" --no-expected >/dev/null
gpuprof-synth --kernels 20000 --seed 4 -o "$tmp/b" --no-expected >/dev/null
gpuprof-ingest -q "$tmp/a" -o "$tmp/s.db"
before=$(counts)
file=$(ls "$tmp"/b/*.ndjson)
lines=$(wc -l <"$file")

mkfifo "$tmp/fifo"
pid=
gpuprof-ingest -q --format ndjson "$tmp/fifo" -o "$tmp/s.db" 2>/dev/null &
pid=$!
exec 3>"$tmp/fifo"
head -n $((lines / 2)) "$file" >&3
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
exec 3>&-

check "integrity after kill" "$(sqlite3 "$tmp/s.db" 'PRAGMA integrity_check')" ok
check "database unchanged after kill" "$(counts)" "$before"

# The same input ingests completely afterwards.
gpuprof-ingest -q "$tmp/b" -o "$tmp/s.db"
check "ingest after kill" "$?" 0
check "second session present" "$(sqlite3 "$tmp/s.db" 'SELECT count(*) FROM sessions')" 2
check "kernels of both" "$(sqlite3 "$tmp/s.db" 'SELECT count(*) FROM kernels')" 40000
echo "atomic: $passed passed, $failed failed"
[ $failed -eq 0 ]
