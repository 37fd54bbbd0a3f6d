#!/usr/bin/env bash
# gpuprof-collect, end to end with the real programs: sessions, exit statuses, host sampling of the
# process tree, signals, the environment given to the program, GPUPROF_DISABLED. Needs no GPU: where
# NVML is missing the session must say so in collector_errors; the NVML path itself is checked against
# a stand-in libnvidia-ml.so.1 built here.
set -u
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
build=${GPUPROF_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build ;; esac
collect=$build/bin/gpuprof-collect
ingest=$build/bin/gpuprof-ingest
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset GPUPROF_DISABLED GPUPROF_SESSION_DIR GPUPROF_OUTPUT GPUPROF_ENGINE GPUPROF_INTERVAL_MS GPUPROF_LIBRARY \
	GPUPROF_PC_PERIOD GPUPROF_PC_MODE GPUPROF_API CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
passed=0 failed=0
check() { # check DESCRIPTION GOT WANT
	if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: got '$2', want '$3'"; fi
}
ok() { # ok DESCRIPTION COMMAND...: the command succeeds
	if "${@:2}"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1"; fi
}
# run NAME ARGS...: the launcher under a time bound; stdout, stderr and status in $tmp/NAME.{out,err,rc}
run() {
	local name=$1
	shift
	timeout 30 "$collect" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
session_of() { sed -n 's/^gpuprof-collect: session: //p' "$tmp/$1.err"; }
q() { sqlite3 "$1" "$2"; }
if [ ! -x "$collect" ] || [ ! -x "$ingest" ]; then
	echo "collect: 0 passed, 1 failed ($collect or $ingest missing)"
	exit 1
fi
have_nvml=0
ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 ' && have_nvml=1

# A short program: its exit status, one file from header to end, ingested clean.
run basic -o "$tmp/a" -- /bin/sh -c 'sleep 0.5; exit 7'
check "exit status passed on" "$(rc basic)" 7
dir=$(session_of basic)
check "session directory printed" "${dir%/*}" "$tmp/a"
ok "session directory exists" test -d "$dir"
check "one file in the session" "$(ls "$dir" | wc -l)" 1
check "file named after the launcher" "$(ls "$dir" | grep -cE '^[0-9]+\.ndjson$')" 1
file=$(ls "$dir"/*.ndjson 2>/dev/null | head -1)
check "first line is the header" "$(head -1 "$file" | grep -c '^{"type":"header","v":3,')" 1
check "last line is the end record" "$(tail -1 "$file" | grep -c '^{"type":"end",')" 1
check "header names the program" "$(head -1 "$file" | grep -c '"program":"/bin/sh","args":\["-c","sleep 0.5; exit 7"\]')" 1
check "header session is the directory's" "$(head -1 "$file" | grep -c "\"session\":\"${dir##*/}\"")" 1
"$ingest" -q "$dir" -o "$tmp/a.db" 2>"$tmp/ingest.err"
check "ingest of the session" "$?" 0
check "clean end" "$(q "$tmp/a.db" 'SELECT clean_end FROM sessions')" 1
check "at least 3 host samples in 0.5 s" "$(q "$tmp/a.db" 'SELECT count(*) >= 3 FROM host_metrics')" 1
check "resident memory measured" "$(q "$tmp/a.db" 'SELECT max(rss_bytes) > 0 FROM host_metrics')" 1
check "system memory measured" "$(q "$tmp/a.db" 'SELECT min(sys_mem_total) > 0 AND min(sys_mem_used) > 0 FROM host_metrics')" 1
if [ -r /proc/diskstats ] && [ -r /proc/net/dev ]; then
	check "the system's disk and network counters in every sample" \
		"$(q "$tmp/a.db" 'SELECT count(disk_read_bytes) = count(*) AND count(disk_write_bytes) = count(*) AND count(net_rx_bytes) = count(*) AND count(net_tx_bytes) = count(*) FROM host_metrics')" 1
else
	echo "collect: no /proc/diskstats or /proc/net/dev here: the I/O counters are not checked"
fi
check "cpu null only in the first sample" "$(q "$tmp/a.db" 'SELECT count(*) FROM host_metrics WHERE cpu_pct IS NULL')" 1
check "samples within the run" "$(q "$tmp/a.db" 'SELECT count(*) FROM host_metrics h, sessions s WHERE h.ts_ns < s.origin_ns OR h.ts_ns > s.end_ns')" 0
if [ $have_nvml = 1 ]; then
	check "device metrics sampled, or why not" "$(q "$tmp/a.db" "SELECT (SELECT count(*) > 0 FROM device_metrics) + (SELECT count(*) FROM collector_errors WHERE what = 'nvml')")" 1
else
	check "missing NVML recorded" "$(q "$tmp/a.db" "SELECT count(*) FROM collector_errors WHERE what = 'nvml' AND reason LIKE '%libnvidia-ml.so.1%'")" 1
fi
check "nothing rejected" "$(q "$tmp/a.db" 'SELECT count(*) FROM ingest_errors')" 0

# The NVML path, against a stand-in libnvidia-ml.so.1 with two devices: device 1 lacks the v2
# memory call and power (NOT_SUPPORTED), so its memory comes from the v1 call and its power is null.
cc=${CC:-cc}
mkdir -p "$tmp/nvml"
cat >"$tmp/nvml/nvml.c" <<'EOF'
#include <stdint.h>
typedef struct { unsigned gpu, memory; } util_t;
typedef struct { unsigned long long total, free, used; } mem_t;
typedef struct { unsigned version; unsigned long long total, reserved, free, used; } mem2_t;
typedef struct { unsigned version; int sensor, temp; } temp_t;
#define DEV(d) ((int)(intptr_t)(d) - 1)
int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int rc) { return rc == 3 ? "Not Supported" : "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { *d = (void *)(intptr_t)(i + 1); return i < 2 ? 0 : 2; }
int nvmlDeviceGetUtilizationRates(void *d, util_t *u) { u->gpu = 40 + DEV(d); u->memory = 7; return 0; }
int nvmlDeviceGetMemoryInfo_v2(void *d, mem2_t *m)
{
	if (DEV(d) == 1) return 3;
	if (m->version != (sizeof(*m) | 2u << 24)) return 25;
	m->total = 80ULL << 30; m->reserved = 1 << 20; m->used = 5ULL << 30; m->free = m->total - m->used;
	return 0;
}
int nvmlDeviceGetMemoryInfo(void *d, mem_t *m) { (void)d; m->total = 40ULL << 30; m->used = 3ULL << 30; m->free = 0; return 0; }
int nvmlDeviceGetTemperatureV(void *d, temp_t *t)
{
	if (t->version != (sizeof(*t) | 1u << 24) || t->sensor != 0) return 25;
	t->temp = 61 + DEV(d);
	return 0;
}
int nvmlDeviceGetPowerUsage(void *d, unsigned *mw) { if (DEV(d) == 1) return 3; *mw = 250000; return 0; }
int nvmlDeviceGetClockInfo(void *d, int type, unsigned *mhz) { (void)d; if (type != 1) return 2; *mhz = 1980; return 0; }
int nvmlDeviceGetTotalEnergyConsumption(void *d, unsigned long long *mj) { (void)d; *mj = 123456789012ULL; return 0; }
EOF
if "$cc" -shared -fPIC -o "$tmp/nvml/libnvidia-ml.so.1" "$tmp/nvml/nvml.c" 2>"$tmp/nvml/cc.err"; then
	LD_LIBRARY_PATH=$tmp/nvml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run nvml -q -o "$tmp/n" -- /bin/sh -c 'sleep 0.3'
	check "nvml: exit status" "$(rc nvml)" 0
	"$ingest" -q "$tmp"/n/* -o "$tmp/n.db" 2>/dev/null
	check "nvml: no error recorded" "$(q "$tmp/n.db" 'SELECT count(*) FROM collector_errors')" 0
	check "nvml: both devices every sample" "$(q "$tmp/n.db" 'SELECT count(*) > 2 AND count(*) = 2 * (SELECT count(*) FROM host_metrics) FROM device_metrics')" 1
	check "nvml: device 0 values" "$(q "$tmp/n.db" 'SELECT DISTINCT gpu_util, mem_util, mem_used, mem_total, temp_c, power_mw, sm_clock_mhz, energy_mj FROM device_metrics WHERE device_id = 0')" \
		"40|7|5368709120|85899345920|61|250000|1980|123456789012"
	check "nvml: device 1 falls back, power null" "$(q "$tmp/n.db" "SELECT DISTINCT gpu_util, mem_used, mem_total, temp_c, coalesce(power_mw, 'null') FROM device_metrics WHERE device_id = 1")" \
		"41|3221225472|42949672960|62|null"
else
	check "nvml: stand-in library builds with $cc" "$(head -1 "$tmp/nvml/cc.err")" ""
fi

# Death by signal and programs that cannot run, as a shell reports them.
run killed -q -o "$tmp/b" -- /bin/sh -c 'kill -9 $$'
check "killed by SIGKILL" "$(rc killed)" 137
run missing -o "$tmp/c" -- "$tmp/no-such-program" arg
check "missing program" "$(rc missing)" 127
check "missing program message" "$(grep -c "^gpuprof-collect: error: cannot run '$tmp/no-such-program': No such file or directory\$" "$tmp/missing.err")" 1
dir=$(session_of missing)
"$ingest" -q "$dir" -o "$tmp/c.db" 2>/dev/null
check "missing program: ingest" "$?" 0
check "missing program: clean session" "$(q "$tmp/c.db" 'SELECT clean_end FROM sessions')" 1
check "missing program: recorded" "$(q "$tmp/c.db" "SELECT count(*) FROM collector_errors WHERE what = 'exec'")" 1
printf 'echo x\n' >"$tmp/noexec"
run noexec -q -o "$tmp/c" -- "$tmp/noexec"
check "program not executable" "$(rc noexec)" 126

# GPUPROF_DISABLED: the program runs untouched and nothing is written.
GPUPROF_DISABLED=1 run disabled -o "$tmp/d" -- /bin/sh -c 'echo "${GPUPROF_SESSION-unset} ${CUDA_INJECTION64_PATH-unset}"'
check "disabled: exit status" "$(rc disabled)" 0
check "disabled: no output directory" "$(test -e "$tmp/d" && echo exists || echo none)" none
check "disabled: no environment" "$(cat "$tmp/disabled.out")" "unset unset"
check "disabled: silent" "$(cat "$tmp/disabled.err")" ""
GPUPROF_DISABLED=1 run disabled2 -o "$tmp/d" -- /bin/sh -c 'exit 3'
check "disabled: exit status passed on" "$(rc disabled2)" 3

# Sampling interval and usage errors.
run fast -q -o "$tmp/e" --interval 20 -- /bin/sh -c 'sleep 0.5'
run slow -q -o "$tmp/f" -- /bin/sh -c 'sleep 0.5'
n_fast=$(grep -h '"type":"end"' "$tmp"/e/*/*.ndjson | sed -E 's/.*"totals":\{[^}]*"host_metric":([0-9]+).*/\1/')
n_slow=$(grep -h '"type":"end"' "$tmp"/f/*/*.ndjson | sed -E 's/.*"totals":\{[^}]*"host_metric":([0-9]+).*/\1/')
check "--interval 20 samples more often" "$([ "${n_fast:-0}" -gt $((${n_slow:-0} + 10)) ] && echo yes || echo "no ($n_fast vs $n_slow)")" yes
check "--interval 20 options in the header" "$(head -1 "$tmp"/e/*/*.ndjson | grep -c '"options":{"interval_ms":20,')" 1
run zero -o "$tmp/g" --interval 0 -- /bin/true
check "--interval 0 is a usage error" "$(rc zero)" 2
run big -o "$tmp/g" --interval 60001 -- /bin/true
check "--interval 60001 is a usage error" "$(rc big)" 2
run noprog -o "$tmp/g"
check "no program is a usage error" "$(rc noprog)" 2
run noprog2 -o "$tmp/g" --
check "nothing after -- is a usage error" "$(rc noprog2)" 2
run badengine -o "$tmp/g" --engine nope -- /bin/true
check "unknown engine is a usage error" "$(rc badengine)" 2
check "usage errors create nothing" "$(test -e "$tmp/g" && echo exists || echo none)" none
GPUPROF_INTERVAL_MS=0 run badenv -o "$tmp/g" -- /bin/true
check "bad GPUPROF_INTERVAL_MS is a usage error" "$(rc badenv)" 2
run pc4 -o "$tmp/g" --engine pcsampling --pc-period 4 -- /bin/true
check "--pc-period 4 is a usage error" "$(rc pc4)" 2
check "--pc-period 4: the message" "$(cat "$tmp/pc4.err")" \
	"gpuprof-collect: error: invalid PC sampling period '4' (5..31: 2^N cycles)"
run pc32 -o "$tmp/g" --engine pcsampling --pc-period 32 -- /bin/true
check "--pc-period 32 is a usage error" "$(rc pc32)" 2
run pcmode -o "$tmp/g" --engine pcsampling --pc-mode sometimes -- /bin/true
check "unknown --pc-mode is a usage error" "$(rc pcmode)" 2
GPUPROF_PC_PERIOD=32 run pcenv -o "$tmp/g" --engine pcsampling -- /bin/true
check "bad GPUPROF_PC_PERIOD is a usage error" "$(rc pcenv)" 2
check "bad GPUPROF_PC_PERIOD: the message" "$(cat "$tmp/pcenv.err")" \
	"gpuprof-collect: error: GPUPROF_PC_PERIOD: invalid PC sampling period '32' (5..31: 2^N cycles)"
GPUPROF_PC_MODE=x run pcenv2 -o "$tmp/g" --engine pcsampling -- /bin/true
check "bad GPUPROF_PC_MODE is a usage error" "$(rc pcenv2)" 2
run api -o "$tmp/g" --api most -- /bin/true
check "unknown --api is a usage error" "$(rc api)/$(cat "$tmp/api.err")" \
	"2/gpuprof-collect: error: unknown API-call selection 'most' (core, all, runtime or driver)"
GPUPROF_API=x run apienv -o "$tmp/g" -- /bin/true
check "bad GPUPROF_API is a usage error" "$(rc apienv)" 2
run help --help
check "--help exits 0" "$(rc help)" 0
check "--help on stdout" "$(grep -c '^usage: gpuprof-collect' "$tmp/help.out")" 1

# The process tree: memory of a grandchild counts.
run tree -q -o "$tmp/h" -- /bin/sh -c 'python3 -c "x = bytearray(200*1024*1024); import time; time.sleep(0.6)"; true'
check "tree: exit status" "$(rc tree)" 0
"$ingest" -q "$tmp"/h/* -o "$tmp/h.db" 2>/dev/null
check "tree: child memory counted" "$(q "$tmp/h.db" 'SELECT max(rss_bytes) > 150*1024*1024 FROM host_metrics')" 1
# CPU of two busy grandchildren, one orphaned at once (the launcher adopts and reaps it): the samples,
# integrated over time, add up to the CPU time the shell measures for the launcher and its children,
# however loaded the machine is. Each spins until its own CPU time (utime + stime of /proc/$$/stat, in
# clock ticks) reaches 0.5 s and 0.8 s: a fixed count of loops is 0.4 s on one machine and 1 s on
# another, and a loaded machine, as when suites run side by side, stretches the run but not the CPU
# time. The program ends only once the orphan has: an orphan still running at the end is in the samples
# but in no one's measured time.
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
burn='t=$1; while :; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done
	read -r s </proc/$$/stat; set -- ${s##*) }; [ $((${12} + ${13})) -ge "$t" ] && exit 0; done'
TIMEFORMAT='%3U %3S'
cpu_s=$( { time timeout 60 "$collect" -q -o "$tmp/i" -- /bin/sh -c \
	'p=$( (sh -c "$1" burn "$2" >/dev/null 2>&1 & echo $!) )
	sh -c "$1" burn "$3"
	while s=$(cut -d" " -f3 /proc/$p/stat 2>/dev/null) && [ "$s" != Z ]; do sleep 0.05; done' \
	cpu "$burn" $((hz / 2)) $((hz * 8 / 10)) 2>/dev/null; } 2>&1 |
	awk '{print $1 + $2}')
"$ingest" -q "$tmp"/i/* -o "$tmp/i.db" 2>/dev/null
sampled_s=$(q "$tmp/i.db" 'SELECT sum(cpu_pct * dt) / 1e11 FROM (SELECT cpu_pct, ts_ns - lag(ts_ns) OVER (ORDER BY ts_ns) AS dt FROM host_metrics)')
check "cpu: samples add up to the tree's CPU time" "$(awk -v a="$sampled_s" -v b="$cpu_s" 'BEGIN { d = a - b; if (d < 0) d = -d; print (b > 0.5 && d <= 0.15 + 0.15 * b) ? "yes" : "no (sampled " a " s, measured " b " s)" }')" yes

# The environment the program gets; options win over inherited variables.
touch "$tmp/libfake.so"
export GPUPROF_LIBRARY=$tmp/libfake.so
show='echo "$GPUPROF_ENGINE $GPUPROF_INTERVAL_MS $GPUPROF_LAUNCHER ${CUDA_INJECTION64_PATH-unset} ${NVTX_INJECTION64_PATH-unset}"'
run env1 -o "$tmp/j" -- /bin/sh -c "$show"
check "environment for trace: the library injected into CUDA and NVTX" "$(cat "$tmp/env1.out")" \
	"trace 100 1 $(realpath "$tmp/libfake.so") $(realpath "$tmp/libfake.so")"
check "GPUPROF_SESSION_DIR is the session directory" "$(timeout 30 "$collect" -q -o "$tmp/j" -- /bin/sh -c 'echo "$GPUPROF_SESSION_DIR/$GPUPROF_SESSION"' | awk -F/ '{print ($(NF-1) == $NF)}')" 1
GPUPROF_ENGINE=monitor GPUPROF_INTERVAL_MS=250 run env2 -o "$tmp/j" -- /bin/sh -c "$show"
check "inherited engine and interval" "$(cat "$tmp/env2.out")" "monitor 250 1 unset unset"
GPUPROF_ENGINE=monitor GPUPROF_INTERVAL_MS=250 run env3 -o "$tmp/j" --engine pcsampling --interval 50 -- /bin/sh -c "$show"
check "options win over inherited variables" "$(cat "$tmp/env3.out")" "pcsampling 50 1 $(realpath "$tmp/libfake.so") $(realpath "$tmp/libfake.so")"
pcshow='echo "$GPUPROF_ENGINE ${GPUPROF_PC_PERIOD-unset} ${GPUPROF_PC_MODE-unset}"'
run pc1 -o "$tmp/j" --engine pcsampling -- /bin/sh -c "$pcshow"
check "pcsampling: collector defaults" "$(cat "$tmp/pc1.out")" "pcsampling unset unset"
run pc2 -o "$tmp/j" --engine pcsampling --pc-period 9 --pc-mode serialized -- /bin/sh -c "$pcshow"
check "--pc-period and --pc-mode reach the collector" "$(cat "$tmp/pc2.out")" "pcsampling 9 serialized"
GPUPROF_PC_PERIOD=12 GPUPROF_PC_MODE=serialized run pc3 -o "$tmp/j" --engine pcsampling --pc-period 7 -- /bin/sh -c "$pcshow"
check "--pc-period wins over GPUPROF_PC_PERIOD" "$(cat "$tmp/pc3.out")" "pcsampling 7 serialized"
apishow='echo "${GPUPROF_API-unset}"'
run api1 -o "$tmp/j" -- /bin/sh -c "$apishow"
check "API selection: the collector's default" "$(cat "$tmp/api1.out")" unset
GPUPROF_API=all run api2 -o "$tmp/j" -- /bin/sh -c "$apishow"
check "GPUPROF_API inherited" "$(cat "$tmp/api2.out")" all
GPUPROF_API=all run api3 -o "$tmp/j" --api core -- /bin/sh -c "$apishow"
check "--api wins over GPUPROF_API" "$(cat "$tmp/api3.out")" core
run pc5 -o "$tmp/j" --pc-period 9 -- /bin/true
check "PC sampling settings with the trace engine: a warning" "$(rc pc5)/$(grep -c 'warning: PC sampling settings have no effect with the trace engine' "$tmp/pc5.err")" 0/1
GPUPROF_LIBRARY=$tmp/missing.so run env4 -o "$tmp/j" -- /bin/sh -c "$show"
check "missing library: monitor mode" "$(cat "$tmp/env4.out")" "monitor 100 1 unset unset"
check "missing library: one warning" "$(grep -c 'warning:.*missing\.so' "$tmp/env4.err")" 1
check "missing library: header says monitor" "$(head -1 "$(session_of env4)"/*.ndjson | grep -c '"engine":"monitor"')" 1
unset GPUPROF_LIBRARY

# Signals sent to the launcher reach the program (once its trap is set: it says so with a file).
timeout 30 "$collect" -q -o "$tmp/k" -- /bin/sh -c \
	'trap "kill \$!; exit 5" TERM; sleep 10 & touch "$0"; wait' "$tmp/k.ready" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e "$tmp/k.ready" ] && break; sleep 0.05; done
kill -TERM $pid
wait $pid
check "SIGTERM forwarded" "$?" 5
check "SIGTERM: clean session" "$(tail -1 "$tmp"/k/*/*.ndjson | grep -c '"type":"end"')" 1

# A launcher killed outright has flushed what it sampled up to about a second before.
"$collect" -q -o "$tmp/m" -- sleep 3 >/dev/null 2>&1 &
pid=$!
sleep 2.3
kill -9 $pid
wait $pid 2>/dev/null
n=$(grep -h '"type":"host_metric"' "$tmp"/m/*/*.ndjson | sed -E 's/.*"n":([0-9]+).*/\1/' | awk '{ n += $1 } END { print n + 0 }')
check "killed launcher: samples kept" "$([ "$n" -ge 10 ] && echo yes || echo "no ($n)")" yes
check "killed launcher: whole lines, no end" "$(tail -c 1 "$tmp"/m/*/*.ndjson | od -An -c | tr -d ' ')/$(grep -c '"type":"end"' "$tmp"/m/*/*.ndjson)" '\n/0'

# The launcher never writes to stdout.
out=$(timeout 30 "$collect" -o "$tmp/l" -- /bin/echo hi 2>/dev/null)
check "stdout is the program's" "$out" hi

echo "collect: $passed passed, $failed failed"
[ $failed -eq 0 ]
