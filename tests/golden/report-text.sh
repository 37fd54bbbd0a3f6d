gpuprof-report "$DB"
