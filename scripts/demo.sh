#!/usr/bin/env bash
# make demo: a session end to end. Uses a real recording from tests/data/ when one is there,
# else a synthetic training-like run; ingests it into demo/session.db and prints the report.
set -eu
cd "$(dirname "$0")/.."
export PATH="$PWD/build/bin:$PATH"
mkdir -p demo
rm -f demo/session.db
real=$(ls -d tests/data/demo-session* 2>/dev/null | head -1 || true)
if [ -n "$real" ]; then
	input=$real
	echo "demo: a real recording, $input" >&2
else
	input=demo/session
	rm -rf "$input"
	gpuprof-synth --kernels 20000 --seed 42 -o "$input" >/dev/null
	echo "demo: a synthetic training-like session (gpuprof-synth --seed 42), in $input" >&2
fi
gpuprof-ingest -q "$input" -o demo/session.db
gpuprof-report demo/session.db
cat >&2 <<MSG

demo: the database is demo/session.db. Try:
  build/bin/gpuprof-analyze hotspots demo/session.db --top 5 --format json
  sqlite3 demo/session.db 'SELECT name, calls, total_ns FROM hotspots LIMIT 5'
  build/bin/gpuprof-report demo/session.db -o demo/report.html      # the format from the extension
  build/bin/gpuprof-report demo/session.db -o demo/trace.json.gz    # open in https://ui.perfetto.dev
MSG
