#!/usr/bin/env bash
# Golden CLI tests: each tests/golden/NAME.sh runs real programs on a fixed synthetic session; its
# standard output must equal tests/expected/NAME.out. `tests/golden.sh --approve` rewrites the expected
# files after an intended change (review the diff before committing).
set -u
export LC_ALL=C TZ=UTC COLUMNS=120
cd "$(dirname "$0")/.."
root=$PWD
approve=0
[ "${1:-}" = --approve ] && approve=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PATH="$root/${GPUPROF_BUILD:-build}/bin:$PATH"

# The fixed session every golden test reads: a small synthetic run, seed 7.
gpuprof-synth --kernels 3000 --seed 7 -o "$tmp/session" --no-expected >/dev/null &&
	gpuprof-ingest -q "$tmp/session" -o "$tmp/session.db" || { echo "golden: setup failed"; exit 1; }

passed=0 failed=0
for t in tests/golden/*.sh; do
	name=${t##*/}
	name=${name%.sh}
	(cd "$tmp" && DB="$tmp/session.db" bash "$root/$t") >"$tmp/$name.out" 2>&1
	sed -i "s|$tmp|TMP|g" "$tmp/$name.out"
	if [ $approve = 1 ]; then
		cp "$tmp/$name.out" "tests/expected/$name.out"
		echo "approved $name"
	elif diff -u "tests/expected/$name.out" "$tmp/$name.out"; then
		passed=$((passed + 1))
	else
		echo "FAIL golden $name"
		failed=$((failed + 1))
	fi
done
echo "golden: $passed passed, $failed failed"
[ $failed -eq 0 ]
