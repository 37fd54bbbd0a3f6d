gpuprof-analyze devices "$DB" --format csv
