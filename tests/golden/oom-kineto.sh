# The oom analysis and the report's sections on a PyTorch trace with [OutOfMemory] events
# (tests/data/kineto-oom.json): text, JSON, and the report in Markdown.
root=$(cd "$(dirname "$0")/../.." && pwd)
gpuprof-ingest -q "$root/tests/data/kineto-oom.json" -o oom.db
gpuprof-analyze oom oom.db
gpuprof-analyze oom oom.db --format json --top 2
gpuprof-report oom.db --format md
