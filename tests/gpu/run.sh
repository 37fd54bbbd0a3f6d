#!/usr/bin/env bash
# make gpu-check, phase 1 (on a machine with an NVIDIA GPU, nvcc and CUPTI): build the workload, run it
# under gpuprof-collect (trace, then PC sampling in both collection modes), record the PyTorch training
# loop tests/gpu/train.py where PyTorch is installed, time the overhead loops with
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
# Failed allocations, then SIGKILL (exit 137): the immediate flush must have written them and what came before.
rm -rf "$out/oom"
"$B/bin/gpuprof-collect" -q -o "$out/oom" -- "$out/workload" oom >"$out/oom-bytes.txt" || true
rm -rf "$out/train"
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	"$B/bin/gpuprof-collect" -q -o "$out/train" -- python3 tests/gpu/train.py 60 >/dev/null
else
	echo "gpu-check: no PyTorch with CUDA here: the training session (tests/gpu/train.py) is not recorded"
fi
echo "gpu-check: sessions written under $out/sessions, $out/pcs-* and $out/train"

# overhead FILE "COLLECT OPTIONS" "MODE N"...: median of 5 runs each, without and with the collector, the
# two taken in turn so that a machine's drift (clocks, neighbours) falls on both alike.
overhead() {
	local file=$1 opts=$2 mode with
	shift 2
	for mode in "$@"; do
		for _ in 1 2 3 4 5; do
			# shellcheck disable=SC2086 # mode and opts are words
			echo "off $("$out/workload" $mode)"
			# shellcheck disable=SC2086
			echo "on $("$B/bin/gpuprof-collect" -q -o "$out/overhead" $opts -- "$out/workload" $mode)"
		done >"$out/runs.txt"
		for with in off on; do
			grep "^$with " "$out/runs.txt" | cut -d' ' -f2 | sort -n | sed -n 3p | sed "s/^/${mode%% *} $with /"
		done
	done | tee "$file"
	rm -rf "$out/overhead" "$out/runs.txt"
}
overhead "$out/overhead.txt" "" "small 100000" "ms 2000"
overhead "$out/pcs-overhead.txt" "--engine pcsampling" "membound 20" "fma 20"
