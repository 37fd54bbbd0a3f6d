gpuprof-analyze summary "$DB" --format json
