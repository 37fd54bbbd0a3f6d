gpuprof-report "$DB" --format md --top 5
