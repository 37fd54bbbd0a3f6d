gpuprof-analyze hotspots "$DB" --format json --top 3
