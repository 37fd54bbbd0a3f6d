#!/usr/bin/env bash
# make gpu-peers (on a machine with an NVIDIA GPU, nvcc and CUPTI; PyTorch for train.py): gpuprof's
# collector overhead beside the peers', on the same machine in one run. Each workload runs under every
# variant in turn, round after round (ROUNDS, default 5), so that a machine's drift falls on all alike;
# the table gives each variant's median and its overhead against no profiler. Variants:
#   none; gpuprof --engine trace; --engine monitor; --engine trace --trace-window 2s/60s;
#   nsys profile -t cuda,nvtx (where nsys is found: PATH, /usr/local/cuda*/bin, /opt/nvidia); and for
#   train.py --trace-window 200ms/6s (2s/60s's duty cycle with ten times its window edges, which a run of
#   seconds can measure) and the PyTorch profiler with activities [CUDA] and [CPU, CUDA]
#   (tests/gpu/train.py --kineto=).
# Workloads: tests/gpu/workload small 100000 (tiny kernels), ms 2000 (~1 ms kernels), train.py 150 steps
# (steps 21-150 timed by the script itself). Writes $OUT/peers.md (default build/gpu-check) and prints it.
# EXPERIMENTS=1 adds, on the tiny kernels, what issue 21 asks to measure of gpuprof's own settings: API
# records of one domain (--api runtime, --api driver), CUPTI's buffer attributes (GPUPROF_CUPTI_ATTRS:
# per-thread buffers off, 32 MB device buffers, 8 pre-allocated, pinned host memory) and the writer
# pinned to CPU 0 (GPUPROF_WRITER_CPU).
set -eu
cd "$(dirname "$0")/../.."
B=${GPUPROF_BUILD:-build}
out=${OUT:-$B/gpu-check}
rounds=${ROUNDS:-5}
mkdir -p "$out"
command -v nvcc >/dev/null || { echo "gpu-peers: nvcc not found (needs a CUDA machine)"; exit 2; }
[ -x "$out/workload" ] || nvcc -O2 -lineinfo -I/usr/local/cuda/include -o "$out/workload" tests/gpu/workload.cu -lcudart
collect="$B/bin/gpuprof-collect -q -o $out/peers-sessions"
nsys=$(command -v nsys || find /usr/local/cuda*/bin /opt/nvidia -name nsys -type f -perm -u+x 2>/dev/null | head -1 ||
	true)
torch=0
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && torch=1

# variants WORKLOAD: "name|command prefix" lines for one workload.
variants() {
	echo "none|"
	echo "gpuprof trace|$collect --engine trace --"
	echo "gpuprof monitor|$collect --engine monitor --"
	echo "gpuprof trace 2s/60s|$collect --engine trace --trace-window 2s/60s --"
	[ -n "$nsys" ] && echo "nsys -t cuda,nvtx|$nsys profile -q -t cuda,nvtx -o $out/peers-nsys --force-overwrite true"
	if [ "${EXPERIMENTS:-0}" = 1 ] && [ "$1" = "small 100000" ]; then
		echo "gpuprof --api runtime|$collect --api runtime --"
		echo "gpuprof --api driver|$collect --api driver --"
		echo "gpuprof per_thread=0|env GPUPROF_CUPTI_ATTRS=per_thread=0 $collect --"
		echo "gpuprof device_buffer_mb=32|env GPUPROF_CUPTI_ATTRS=device_buffer_mb=32 $collect --"
		echo "gpuprof prealloc=8|env GPUPROF_CUPTI_ATTRS=prealloc=8 $collect --"
		echo "gpuprof pinned=1|env GPUPROF_CUPTI_ATTRS=pinned=1 $collect --"
		echo "gpuprof writer on CPU 0|env GPUPROF_WRITER_CPU=0 $collect --"
	fi
	if [ "$1" = train ]; then
		# 2s/60s's share of traced time (1/30) in a run of seconds, not minutes: ten times its toggles, so
		# an upper bound of what 2s/60s costs a long job (target: <= 2 %).
		echo "gpuprof trace 200ms/6s|$collect --engine trace --trace-window 200ms/6s --"
		echo "kineto [CUDA]|KINETO=cuda"
		echo "kineto [CPU, CUDA]|KINETO=cpu,cuda"
	fi
	return 0
}

# measure WORKLOAD PREFIX: one run's time in ms (the workload's own figure: ns for workload, s for train).
measure() {
	local w=$1 prefix=$2 kineto="" line
	case $prefix in KINETO=*) kineto="--kineto=${prefix#KINETO=}"; prefix="" ;; esac
	case $w in
	train)
		# shellcheck disable=SC2086 # prefix is words
		line=$($prefix python3 tests/gpu/train.py 150 $kineto | tail -1)
		echo "$line" | sed -E 's/.*steps [0-9]+-[0-9]+ in ([0-9.]+) s.*/\1/' | awk '{ printf "%.3f\n", $1 * 1000 }' ;;
	*)
		# shellcheck disable=SC2086
		$prefix "$out/workload" $w | tail -1 | awk '{ printf "%.3f\n", $1 / 1e6 }' ;;
	esac
}

report="$out/peers.md"
{
	echo "| workload | profiler | median (ms) | overhead | runs |"
	echo "|---|---|---|---|---|"
} >"$report"
for w in "small 100000" "ms 2000" train; do
	[ "$w" = train ] && [ "$torch" = 0 ] && { echo "gpu-peers: no PyTorch with CUDA: train.py skipped"; continue; }
	runs="$out/peers-runs.txt"
	: >"$runs"
	for _ in $(seq "$rounds"); do
		variants "$w" | while IFS='|' read -r name prefix; do
			printf '%s|%s\n' "$name" "$(measure "$w" "$prefix" </dev/null)" >>"$runs"
			rm -rf "$out/peers-sessions" "$out/peers-nsys".* train-kineto.json
		done
	done
	base=$(grep '^none|' "$runs" | cut -d'|' -f2 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	variants "$w" | while IFS='|' read -r name _; do
		grep -F "$name|" "$runs" | cut -d'|' -f2 | sort -n |
			awk -v w="$w" -v n="$name" -v b="$base" '{ v[NR] = $1; all = all (NR > 1 ? " " : "") $1 }
			END { m = v[int((NR + 1) / 2)]; printf "| %s | %s | %.1f | %+.1f %% | %s |\n", w, n, m, 100 * (m - b) / b, all }'
	done >>"$report"
done
[ -n "$nsys" ] || echo "gpu-peers: Nsight Systems (nsys) not found on PATH, /usr/local/cuda*/bin or /opt/nvidia" | tee -a "$report"
cat "$report"
