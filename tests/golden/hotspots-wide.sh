gpuprof analyze hotspots "$DB" --top 4 --wide --match 'cutlass|nccl'
