#!/usr/bin/env bash
# make gpu-check, phase 1 (on a machine with an NVIDIA GPU, nvcc and CUPTI): build the workload, run it
# under gpuprof-collect (trace, then PC sampling in both collection modes), time the overhead loops with
# and without the collector, and leave everything in ${OUT:-build/gpu-check}. Phase 2
# (tests/gpu/check.py, anywhere): ingest and check exactly.
set -eu
cd "$(dirname "$0")/../.."
B=${GPUPROF_BUILD:-build}
out=${OUT:-$B/gpu-check}
mkdir -p "$out"
command -v nvcc >/dev/null || { echo "gpu-check: nvcc not found (needs a CUDA machine)"; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "gpu-check: no NVIDIA GPU here"; exit 2; }
# -lineinfo: PC samples map to workload.cu lines.
nvcc -O2 -lineinfo -I/usr/local/cuda/include -o "$out/workload" tests/gpu/workload.cu -lcudart
rm -rf "$out/sessions" "$out/pcs-continuous" "$out/pcs-serialized"
"$B/bin/gpuprof-collect" -q -o "$out/sessions" -- "$out/workload" check
"$B/bin/gpuprof-collect" -q -o "$out/pcs-continuous" --engine pcsampling -- "$out/workload" stalls
"$B/bin/gpuprof-collect" -q -o "$out/pcs-serialized" --engine pcsampling --pc-mode serialized -- \
	"$out/workload" stalls
echo "gpu-check: sessions written under $out/sessions and $out/pcs-*"

# overhead FILE "COLLECT OPTIONS" "MODE N"...: median of 3 runs each, without and with the collector.
overhead() {
	local file=$1 opts=$2 mode with r
	shift 2
	for mode in "$@"; do
		for with in off on; do
			for r in 1 2 3; do
				if [ $with = on ]; then
					# shellcheck disable=SC2086 # opts are words
					"$B/bin/gpuprof-collect" -q -o "$out/overhead" $opts -- "$out/workload" $mode
				else
					"$out/workload" $mode
				fi
			done | sort -n | sed -n 2p | sed "s/^/${mode%% *} $with /"
		done
	done | tee "$file"
	rm -rf "$out/overhead"
}
overhead "$out/overhead.txt" "" "small 100000" "ms 2000"
overhead "$out/pcs-overhead.txt" "--engine pcsampling" "membound 20" "fma 20"
