#!/bin/sh
# SPDX-License-Identifier: MIT
# The GPU check of the CUDA plugins (plugins/cuda/; docs/findings.md, "CUDA"),
# in one go, on a machine with an NVIDIA GPU that starts bare (no package
# registry, none of this project's Debian packages): it brings its build.
#
#   sh scripts/gpu-check.sh --pack [BUILD_DIR]
#       Here, after the build (BUILD_DIR, default build): puts everything the
#       check runs into BUILD_DIR/gpu-check/: bin/divergence, plugins/
#       (reference.so, cuda.so, cuda-intrinsic.so, cuda-fast-math.so; cudart
#       is linked into them statically) and lib/ (every shared library they
#       load but glibc's own: sqlite3, seccomp, protobuf-c, libstdc++, ...),
#       with pack.txt naming each. Carry that one folder to the GPU machine.
#   sh scripts/gpu-check.sh [--quick] [--budget S] [--sweep-shard I/N] [--jobs J]
#       There, from the repository root (the working tree brings cases/):
#       1. the machine: GPU, driver, toolkit, /dev/nvidia*, libcuda, whether
#          the packed binaries find every library;
#       2. what confinement the CUDA runtime survives, one claim each:
#          the default sandbox without a grant (no device in the view: it
#          must fail naming the device), the default sandbox with
#          --grant cuda (while it runs, the device nodes, libraries,
#          threads and peak address space of the plugin's worker are read
#          from /proc), and --sandbox off with no address-space limit (does
#          the runtime work here at all);
#       3. exhaustive sweeps of f16 and bf16 (2^32 pairs each) for the ieee
#          (cuda.so) and intrinsic (cuda-intrinsic.so) flavours;
#       4. certify every claim of each flavour (3 x 65);
#       5. divergence diff of the three flavours and the reference kernel;
#       6. the fast-math flavour's f16 and bf16 sweeps, if time is left.
#       Results in $OUT (default: a new folder under /tmp): summary.txt (the
#       figures: time per sweep, verdicts, classes), environment.txt,
#       sweeps.txt, certificates.txt, diff.txt, gpu-check.log (everything
#       each command printed), gpu-check.db (the store).
#
# Sizing: about 5 minutes on one H100 with 16 cores (the estimate and how it
# was made: docs/findings.md). Every step runs under what is left of the
# budget (--budget S, default 290 s; a step cut short is said so) and the
# order puts the findings first. --quick: certify with --shape-tier 16 and
# 50 random cases per claim; --sweep-shard I/N: each sweep judges the chunks
# c with c % N == I only (N = 4: a quarter of the pairs).
#
# The plugins run in the default sandbox with --grant cuda
# (harness/sandbox/grant.h: the NVIDIA device nodes, /proc/driver/nvidia and
# libcuda in the worker's view, no address-space limit, one process: CUDA
# does not survive fork()) and --memory-limit 0 where the command has the
# flag; the certificates name the grant. Where the grant's probe fails and
# the unconfined one works (a driver that needs a file the grant lacks:
# environment.txt lists what the worker opened), the steps fall back to
# --sandbox off and summary.txt says so. SANDBOX_FLAGS overrides the flags.
#
# Exit status: 0 when every step ran (a NONCONFORMANT verdict is a finding,
# not a failure), 1 when a step failed or was cut short, 2 when the machine
# has no usable GPU or the pack is missing or broken.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2

# ------------------------------------------------------------------------
# --pack
# ------------------------------------------------------------------------
if [ "${1:-}" = "--pack" ]; then
    B=${2:-build}
    PACK=$B/gpu-check
    for f in "$B/divergence" "$B/plugins/reference.so" "$B/plugins/cuda.so" \
        "$B/plugins/cuda-intrinsic.so" "$B/plugins/cuda-fast-math.so"; do
        if [ ! -f "$f" ]; then
            echo "gpu-check --pack: $f is missing (build first; the CUDA plugins need nvcc)" >&2
            exit 2
        fi
    done
    rm -rf "$PACK"
    mkdir -p "$PACK/bin" "$PACK/plugins" "$PACK/lib"
    cp "$B/divergence" "$PACK/bin/"
    cp "$B/plugins/reference.so" "$B/plugins/cuda.so" "$B/plugins/cuda-intrinsic.so" \
        "$B/plugins/cuda-fast-math.so" "$PACK/plugins/"
    # Every library the ELF files load, but the C library's own (the GPU
    # machine's glibc must be as new as the one here: pack.txt names it).
    {
        echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
        echo "built on: $(. /etc/os-release && echo "$PRETTY_NAME"), $(ldd --version | head -n 1)"
        for elf in "$PACK"/bin/* "$PACK"/plugins/*.so; do
            echo "$(basename "$elf"):"
            ldd "$elf" | sed 's/^/  /'
        done
    } >"$PACK/pack.txt"
    for elf in "$PACK"/bin/* "$PACK"/plugins/*.so; do
        ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
    done | sort -u | while read -r lib; do
        case $(basename "$lib") in
            libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libresolv.so.*) ;;
            *) cp -L "$lib" "$PACK/lib/" ;;
        esac
    done
    kib=$(du -sk "$PACK" | cut -f1)
    echo "gpu-check --pack: $PACK: $(ls "$PACK/lib" | tr '\n' ' ')($kib KiB)"
    if [ "$kib" -gt 61440 ]; then
        echo "gpu-check --pack: $PACK is over 60 MiB; the device machine takes 64 MiB in all" >&2
        exit 1
    fi
    exit 0
fi

# ------------------------------------------------------------------------
# The check
# ------------------------------------------------------------------------
usage() {
    echo "usage: sh scripts/gpu-check.sh --pack [BUILD_DIR]" >&2
    echo "       sh scripts/gpu-check.sh [--quick] [--budget S] [--sweep-shard I/N] [--jobs J]" >&2
    exit 2
}
BUDGET=290
QUICK=0
SHARD=""
JOBS=$(nproc)
while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=1 ;;
        --budget) [ $# -ge 2 ] || usage; BUDGET=$2; shift ;;
        --sweep-shard) [ $# -ge 2 ] || usage; SHARD=$2; shift ;;
        --jobs) [ $# -ge 2 ] || usage; JOBS=$2; shift ;;
        *) usage ;;
    esac
    shift
done
case $BUDGET in '' | *[!0-9]*) usage ;; esac
case $JOBS in '' | *[!0-9]*) usage ;; esac
[ "$JOBS" -gt 64 ] && JOBS=64

PACK=${PACK:-build/gpu-check}
D=$PACK/bin/divergence
P=$PACK/plugins
if [ ! -x "$D" ]; then
    echo "gpu-check: $D is missing: run 'sh scripts/gpu-check.sh --pack' where it was built" \
         "and carry $PACK" >&2
    exit 2
fi
if [ -z "${OUT:-}" ]; then
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-XXXXXX")
fi
mkdir -p "$OUT"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-work-XXXXXX")
watcher=""
trap 'if [ -n "$watcher" ]; then kill "$watcher" 2>/dev/null; fi; rm -rf "$work"' EXIT
LD_LIBRARY_PATH=$ROOT/$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DIVERGENCE_DATA_DIR=$ROOT
DIVERGENCE_NO_ZYGOTE=1
export LD_LIBRARY_PATH DIVERGENCE_DATA_DIR DIVERGENCE_NO_ZYGOTE
SANDBOX_FLAGS_SET=${SANDBOX_FLAGS:+1}
SANDBOX_FLAGS=${SANDBOX_FLAGS:---grant cuda}
TIMEOUT_MS=60000
DB=$work/gpu-check.db
LOG=$OUT/gpu-check.log
SUMMARY=$OUT/summary.txt
ENVF=$OUT/environment.txt
: >"$LOG"
: >"$SUMMARY"
: >"$ENVF"
: >"$OUT/sweeps.txt"
: >"$OUT/certificates.txt"
start=$(date +%s)
status=0

say() { echo "$*" | tee -a "$SUMMARY"; }
left() { echo $((BUDGET - ($(date +%s) - start))); }

# step NAME FILE MIN_SECONDS COMMAND...: runs COMMAND under what is left of
# the budget, its output appended to FILE and the log; skipped when less
# than MIN_SECONDS is left. Sets rc (124: cut short) and secs.
step() {
    name=$1 file=$2 min=$3
    shift 3
    rest=$(left)
    if [ "$rest" -lt "$min" ]; then
        say "  $name: skipped, ${rest} s of the budget left"
        rc=124 secs=0
        status=1
        return
    fi
    echo "== $name: $*" | tee -a "$LOG" >>"$file"
    t0=$(date +%s.%N)
    rc=0
    timeout "$rest" "$@" >"$work/step.out" 2>&1 || rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    cat "$work/step.out" >>"$LOG"
    [ "$file" = "$LOG" ] || cat "$work/step.out" >>"$file"
    echo "== exit $rc after $secs s" | tee -a "$LOG" >>"$file"
    if [ "$rc" -eq 124 ]; then
        say "  $name: cut short after $secs s (budget)"
        status=1
    fi
    if [ -f "$DB" ]; then cp "$DB" "$OUT/gpu-check.db"; fi
}

# --------------------------------------------------------------------
# 1. The machine.
# --------------------------------------------------------------------
{
    echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ), budget $BUDGET s, jobs $JOBS, quick $QUICK, sweep shard ${SHARD:-all}"
    echo "== uname: $(uname -a)"
    echo "== os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(ldd --version 2>/dev/null | head -n 1)"
    echo "== cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
    echo "== memory: $(grep MemTotal /proc/meminfo)"
    echo "== nvidia-smi:"
    nvidia-smi 2>&1 || echo "(no nvidia-smi)"
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,persistence_mode,clocks.max.sm \
        --format=csv 2>&1 || true
    echo "== /proc/driver/nvidia/version:"
    cat /proc/driver/nvidia/version 2>&1 || true
    echo "== device nodes:"
    ls -l /dev/nvidia* /dev/nvidia-caps 2>&1 || true
    echo "== libcuda:"
    ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libnvidia-(ptxjitcompiler|gpucomp|nvvm)' || echo "(not in the loader's cache)"
    libcuda=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')
    for dir in $(echo "$LD_LIBRARY_PATH" | tr ':' ' ') /usr/local/nvidia/lib64 /usr/lib64; do
        if [ -z "$libcuda" ] && [ -e "$dir/libcuda.so.1" ]; then libcuda=$dir/libcuda.so.1; fi
    done
    if [ -n "$libcuda" ]; then
        echo "== ldd $libcuda:"
        ldd "$libcuda" 2>&1
    fi
    echo "== nvcc here: $(nvcc --version 2>/dev/null | tail -n 1)"
    echo "== the pack:"
    cat "$PACK/pack.txt" 2>/dev/null
    echo "== its libraries here:"
    for elf in "$D" "$P"/*.so; do
        echo "$(basename "$elf"):"
        ldd "$elf" 2>&1 | sed 's/^/  /'
    done | tee "$work/ldd.txt"
} >>"$ENVF" 2>&1
cat "$ENVF" >>"$LOG"
say "gpu-check: $(grep -m1 -E '^[A-Z].*, [0-9.]+, ' "$ENVF" 2>/dev/null || echo "no GPU named by nvidia-smi")"
if grep -q 'not found' "$work/ldd.txt"; then
    say "gpu-check: a packed binary misses a library here (environment.txt: 'not found')"
    exit 2
fi

# --------------------------------------------------------------------
# 2. What the CUDA runtime survives, and what it uses.
# --------------------------------------------------------------------
probe="--variant onnx-div-7 --dtype f32 --random 5 --shape-tier 0 --no-progress --timeout $TIMEOUT_MS"
say "confinement, one claim (onnx-div-7 f32) of cuda.so each:"
# shellcheck disable=SC2086 # one word per flag
step "probe: default sandbox, no grant" "$ENVF" 5 \
    "$D" certify --plugin "$P/cuda.so" --db "$work/probe1.db" $probe
say "  default sandbox, no grant: exit $rc: $(grep -m1 -E 'no CUDA|claims hold|cannot' "$work/step.out")"

# The worker's view of the GPU, read from /proc while it runs.
watch_worker() {
    while :; do
        for m in /proc/[0-9]*/maps; do
            pid=${m#/proc/}
            pid=${pid%/maps}
            grep -q 'plugins/cuda' "$m" 2>/dev/null || continue
            for fd in "/proc/$pid/fd"/*; do readlink "$fd"; done 2>/dev/null |
                grep -E '^/(dev|sys|proc|run)/' | sed 's/^/fd /'
            awk '$6 ~ /\.so/ {print "lib " $6}' "$m" 2>/dev/null
            grep -E '^(VmPeak|Threads):' "/proc/$pid/status" 2>/dev/null
        done
        sleep 0.2
    done >>"$work/watch.raw"
}
watch_worker &
watcher=$!
# shellcheck disable=SC2086
step "probe: default sandbox, --grant cuda" "$ENVF" 5 \
    "$D" certify --plugin "$P/cuda.so" --db "$work/probe2.db" --grant cuda --memory-limit 0 $probe
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
watcher=""
granted=$rc
say "  default sandbox, --grant cuda: exit $rc: $(grep -m1 -E 'no CUDA|claims hold|cannot|CUDA device' "$work/step.out")"
grep -m1 '^  sandbox:' "$work/step.out" | tee -a "$SUMMARY"
cp "$work/step.out" "$work/granted.out"
# shellcheck disable=SC2086
step "probe: --sandbox off, --memory-limit 0" "$ENVF" 5 \
    "$D" certify --plugin "$P/cuda.so" --db "$work/probe3.db" --sandbox off --memory-limit 0 $probe
unconfined=$rc
say "  --sandbox off, no address-space limit: exit $rc: $(grep -m1 -E 'no CUDA|claims hold|cannot|CUDA device' "$work/step.out")"
if [ "$granted" -ne 0 ] && [ "$granted" -ne 1 ] && [ -z "${SANDBOX_FLAGS_SET:-}" ] &&
    { [ "$unconfined" -eq 0 ] || [ "$unconfined" -eq 1 ]; }; then
    say "gpu-check: WARNING: the CUDA plugin runs unconfined but not with --grant cuda (exit $granted);" \
        "the steps below run with --sandbox off (what the worker opened: environment.txt)"
    SANDBOX_FLAGS="--sandbox off"
fi
{
    echo "== what the worker of cuda.so held open and mapped (sampled every 0.2 s):"
    grep -v -E '^(VmPeak|Threads):' "$work/watch.raw" 2>/dev/null | sort -u
    echo "== its peak address space and threads:"
    grep '^VmPeak:' "$work/watch.raw" 2>/dev/null | sort -k2 -n | tail -n 1
    grep '^Threads:' "$work/watch.raw" 2>/dev/null | sort -k2 -n | tail -n 1
} >>"$ENVF"
say "  worker: $(grep '^VmPeak:' "$work/watch.raw" 2>/dev/null | sort -k2 -n | tail -n 1 | tr -s ' \t' ' ')," \
    "$(grep '^Threads:' "$work/watch.raw" 2>/dev/null | sort -k2 -n | tail -n 1 | tr -s ' \t' ' ')," \
    "device nodes: $(grep '^fd /dev/nvidia' "$work/watch.raw" 2>/dev/null | sort -u | cut -c4- | tr '\n' ' ')"
grep -m1 '^Certificate:' "$work/granted.out" | sed 's/^/  /' | tee -a "$SUMMARY"
if [ "$unconfined" -ne 0 ] && [ "$unconfined" -ne 1 ]; then
    say "gpu-check: the CUDA plugin does not run on this machine even unconfined (exit $unconfined); see environment.txt"
    exit 2
fi

# Flags only newer harnesses have: use them where they are.
mem_flag() { "$D" "$1" --help 2>&1 | grep -q -- '--memory-limit' && echo "--memory-limit 0"; }
SWEEP_MEM=$(mem_flag sweep)
DIFF_MEM=$(mem_flag diff)
[ -n "$SWEEP_MEM" ] || say "note: 'divergence sweep' has no --memory-limit here: its workers keep the 8 GiB limit"
[ -n "$DIFF_MEM" ] || say "note: 'divergence diff' has no --memory-limit here: its workers keep the 8 GiB limit"
shard_flag=""
[ -n "$SHARD" ] && shard_flag="--shard $SHARD"
cert_flags="" diff_flags=""
[ "$QUICK" = 1 ] && cert_flags="--shape-tier 16 --random 50" diff_flags="--random 50"

# sweep PLUGIN DTYPE: one exhaustive sweep, its figures in the summary.
sweep() {
    # shellcheck disable=SC2086
    step "sweep $1 $2" "$OUT/sweeps.txt" 20 "$D" sweep --plugin "$P/$1.so" --dtype "$2" \
        --variant onnx-div-14 --jobs "$JOBS" --db "$DB" --timeout "$TIMEOUT_MS" --no-progress \
        $SANDBOX_FLAGS $SWEEP_MEM $shard_flag
    [ "$rc" -le 1 ] || status=1
    say "  $1 $2: exit $rc, $secs s: $(grep -m1 'pairs judged' "$work/step.out" | sed 's/^ *//')"
    grep -E '^  (CONFORMANT|NONCONFORMANT|CRASHED)|^    [a-z-]+ +[0-9]+ ' "$work/step.out" |
        sed 's/^/  /' | tee -a "$SUMMARY" >/dev/null
}

# --------------------------------------------------------------------
# 3. Exhaustive f16 and bf16 sweeps, ieee and intrinsic.
# --------------------------------------------------------------------
say "sweeps (onnx-div-14, every pair${SHARD:+, shard $SHARD}):"
for plugin in cuda cuda-intrinsic; do
    for t in f16 bf16; do
        sweep "$plugin" "$t"
    done
done

# --------------------------------------------------------------------
# 4. Every claim of each flavour.
# --------------------------------------------------------------------
say "certify (every claim${cert_flags:+, $cert_flags}):"
for plugin in cuda cuda-intrinsic cuda-fast-math; do
    # shellcheck disable=SC2086
    step "certify $plugin" "$OUT/certificates.txt" 20 "$D" certify --plugin "$P/$plugin.so" \
        --db "$DB" --timeout "$TIMEOUT_MS" --memory-limit 0 --no-progress $SANDBOX_FLAGS $cert_flags
    [ "$rc" -le 1 ] || status=1
    say "  $plugin: exit $rc, $secs s: $(grep -m1 -E 'claims hold' "$work/step.out" | cut -d';' -f1,3)"
    grep -E ' (NONCONFORMANT|CRASHED|UNSUPPORTED)' "$work/step.out" | sed 's/^/    /' | tee -a "$SUMMARY" >/dev/null
done

# --------------------------------------------------------------------
# 5. Where the flavours and the reference differ.
# --------------------------------------------------------------------
say "diff (reference, cuda, cuda-intrinsic, cuda-fast-math):"
# shellcheck disable=SC2086
step "diff" "$OUT/diff.txt" 20 "$D" diff --plugin "$P/reference.so" --plugin "$P/cuda.so" \
    --plugin "$P/cuda-intrinsic.so" --plugin "$P/cuda-fast-math.so" --db "$DB" \
    --timeout "$TIMEOUT_MS" $SANDBOX_FLAGS $DIFF_MEM $diff_flags
[ "$rc" -le 1 ] || status=1
say "  exit $rc, $secs s (0: no departure, 1: a plugin departs; diff.txt)"

# --------------------------------------------------------------------
# 6. The fast-math flavour's sweeps, if there is time.
# --------------------------------------------------------------------
if [ "$(left)" -ge 40 ]; then
    say "sweeps, fast-math:"
    sweep cuda-fast-math f16
    sweep cuda-fast-math bf16
fi

say "gpu-check: $(( $(date +%s) - start )) s; exit $status; results in $OUT"
exit $status
