#!/usr/bin/env bash
# make gpu-check, phase 1 (on a machine with an NVIDIA GPU, nvcc and CUPTI): build the workload, run it
# under gpuprof-collect, time the overhead loops with and without the collector, and leave everything
# in ${OUT:-build/gpu-check}. Phase 2 (tests/gpu/check.py, anywhere): ingest and check exactly.
set -eu
cd "$(dirname "$0")/../.."
B=${GPUPROF_BUILD:-build}
out=${OUT:-$B/gpu-check}
mkdir -p "$out"
command -v nvcc >/dev/null || { echo "gpu-check: nvcc not found (needs a CUDA machine)"; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "gpu-check: no NVIDIA GPU here"; exit 2; }
nvcc -O2 -I/usr/local/cuda/include -o "$out/workload" tests/gpu/workload.cu -lcudart
rm -rf "$out/sessions"
"$B/bin/gpuprof-collect" -q -o "$out/sessions" -- "$out/workload" check
echo "gpu-check: session written under $out/sessions"
# Overhead: median of 3 runs each, with and without the collector.
for mode in "small 100000" "ms 2000"; do
	for with in off on; do
		for r in 1 2 3; do
			if [ $with = on ]; then
				"$B/bin/gpuprof-collect" -q -o "$out/overhead" -- "$out/workload" $mode
			else
				"$out/workload" $mode
			fi
		done | sort -n | sed -n 2p | sed "s/^/${mode%% *} $with /"
	done
done | tee "$out/overhead.txt"
rm -rf "$out/overhead"
