#!/bin/sh
# SPDX-License-Identifier: MIT
# Two nights of scripts/nightly --scheduler slurm on a private single-node
# Slurm cluster (cluster.sh: its own munge key and socket, its own ports,
# everything in a temporary folder). Night 1 runs "nightly-div" 1.0 (it
# floors integers), night 2 its build 2.0 (the floor fixed, subnormal
# results flushed). Each night's certify and fuzz shards are array jobs
# and the finish step a job that depends on them; the merged runs must
# equal the unsharded runs of the same seed (counts, certificates,
# histograms, signatures), and after night 2 `query new` lists exactly
# the flushing signatures, `fixed` exactly the floor signatures of the
# claims certified again, `regressions` exactly the f32 claims, each with
# its regression or fixed range 1.0 .. 2.0 (bisected over the two
# archived builds). The same checks fail on a night with a shard lost, a
# shard run twice, or a merged count changed. The cluster goes down at
# the end, even when a check fails, and no process of it may be left.
# Usage: test_nightly_slurm.sh DIVERGENCE NIGHTLY_BUILD_DIR SOURCE_ROOT
set -u
ROOT=$3
set -- "$1" "$2" "$3/tests/nightly"
. "$ROOT/tests/reports/lib.sh"
need sqlite3
for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel; do need $tool; done
# shellcheck source=tests/nightly/cluster.sh
. "$S/cluster.sh"
started=$(date +%s)
# Down whatever happens; the folder after it.
trap 'cluster_down; rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP

cd "$tmp" || exit 1
mkdir nocases plugins
cluster_up "$tmp/cluster" || { echo "FAIL: the cluster did not start"; exit 1; }
up=$(date +%s)
echo "cluster up in $((up - started)) s ($(sinfo -h -o '%P %t %c CPUs'))"

export NO_BUILD=1 SHARDS=3 FUZZ_CASES=60 FUZZ_SECONDS=0 POLL_SECONDS=0.5
BUILD_DIR=$(dirname "$D")
export BUILD_DIR NIGHTLY_DB="$tmp/history.db" PLUGINS="$tmp/plugins/nightly-div.so"
export CERTIFY_ARGS="--variant onnx-div-14 --variant openvino-divide-1 --dtype i16 --dtype i32 --dtype f32 --random 20 --shape-tier 0 --cases $tmp/nocases"

# The unsharded runs of a night's seed, for the comparison: ref-N.db.
reference() { # NIGHT SEED
    # shellcheck disable=SC2086 # CERTIFY_ARGS: words, as the nightly splits them
    "$D" certify --plugin "$PLUGINS" --seed "$2" --db "ref-$1.db" --no-progress $CERTIFY_ARGS >/dev/null 2>&1
    [ $? -le 1 ] || echo "FAIL: the unsharded certify of night $1"
    "$D" fuzz --plugin "$PLUGINS" --seconds 0 --cases $((FUZZ_CASES * SHARDS)) --seed "$2" --jobs 1 \
        --db "ref-$1.db" --no-progress >/dev/null 2>&1
    [ $? -le 1 ] || echo "FAIL: the unsharded fuzz of night $1"
}
# night_ok DB BEFORE NIGHT: the runs DB holds after run BEFORE are one
# certify and one fuzz run, each complete and merged from its SHARDS
# shards, with the counts, certificates, histograms and signatures of the
# unsharded runs of the night (ref-NIGHT.db: certify run 1, fuzz run 2).
night_ok() {
    n=$(sqlite3 "$1" "SELECT count(*) FROM runs WHERE id > $2")
    [ "$n" -eq 2 ] || { echo "night_ok: $n runs after run $2, not 2"; return 1; }
    for kind in certify fuzz; do
        r=$(sqlite3 "$1" "SELECT id FROM runs WHERE id > $2 AND kind = '$kind' AND status = 'complete'
            AND shard_index IS NULL AND shard_count = $SHARDS
            AND (SELECT count(DISTINCT shard_index) FROM run_shards h WHERE h.run_id = runs.id) = $SHARDS")
        [ -n "$r" ] || { echo "night_ok: no complete $kind run of $SHARDS shards after run $2"; return 1; }
        if [ $kind = certify ]; then
            "$PY" "$S/../reports/check_merge.py" "ref-$3.db" 1 "$1" "$r" --run-only || return 1
        else
            "$PY" "$S/../reports/check_merge.py" "ref-$3.db" 2 "$1" "$r" --keys || return 1
        fi
    done
}
# js FILE EXPRESSION: a Python expression over the parsed JSON (as j) holds
js() {
    "$PY" -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
q() { sqlite3 "$NIGHTLY_DB" "$1"; }

# ---- Night 1: nightly-div 1.0, waiting for the night.
cp "$P/nightly_div_1.so" plugins/nightly-div.so
export SEED=101 NIGHTLY_DIR="$tmp/night1"
reference 1 101
t0=$(date +%s)
sh "$ROOT/scripts/nightly" --scheduler slurm >night1.out 2>night1.err
rc=$?
t1=$(date +%s)
echo "night 1 through Slurm: $((t1 - t0)) s"
check "night 1: exit $rc ($(tail -3 night1.err))" [ $rc -eq 0 ]
check "night 1: two array jobs and the finish job" [ "$(wc -l <night1/logs/slurm-jobs.txt)" -eq 3 ]
check "night 1: every array task wrote its Slurm log" [ "$(ls night1/logs/slurm-certify-nightly-div-*.out night1/logs/slurm-fuzz-nightly-div-*.out | wc -l)" -eq 6 ]
fid=$(awk '$1 == "finish" { print $3 }' night1/logs/slurm-jobs.txt)
scontrol show job -o "$fid" >finish-job.txt 2>&1
check "night 1: the finish job $fid ran under Slurm and completed" grep -q 'JobState=COMPLETED' finish-job.txt
check "night 1: the finish job printed the night" grep -q '== Runs of this night' night1/logs/slurm-finish.out
check "night 1: the build archived" cmp -s "$P/nightly_div_1.so" night1/builds/nightly-div.so
night_ok "$NIGHTLY_DB" 0 1 >ok1.out 2>&1
rc=$?
check "night 1: merged = unsharded: $(tail -2 ok1.out)" [ $rc -eq 0 ]
after1=$(q "SELECT max(id) FROM runs")
floor1=$(q "SELECT count(*) FROM signatures WHERE class = 'floor-vs-trunc'")
check "night 1 found the floor bug ($floor1 signatures) and nothing else" [ "$floor1" -gt 0 ] && \
    [ "$(q "SELECT count(*) FROM signatures WHERE class <> 'floor-vs-trunc'")" -eq 0 ]
check "night 1: every signature's regression range starts before its one build" \
    [ "$(q "SELECT count(*) FROM v_signature_ranges WHERE kind = 'regression' AND before_build_id IS NULL AND after_version = '1.0'")" -eq \
      "$(q "SELECT count(*) FROM signatures")" ]
cp "$NIGHTLY_DB" history-1.db

# ---- Night 2: nightly-div 2.0 fixes the floor and flushes subnormals;
# submitted without waiting: the job ids come back, the test waits.
cp "$P/nightly_div_2.so" plugins/nightly-div.so
export SEED=102 NIGHTLY_DIR="$tmp/night2"
reference 2 102
t0=$(date +%s)
ids=$(sh "$ROOT/scripts/nightly" --scheduler slurm --no-wait 2>night2.err)
rc=$?
check "night 2 --no-wait: exit $rc, job ids '$ids'" [ $rc -eq 0 ] && echo "$ids" | grep -qx '[0-9]*,[0-9]*,[0-9]*'
i=0
while squeue -h -o %i -j "$ids" 2>/dev/null | grep -q . && [ $i -lt 600 ]; do
    sleep 0.5
    i=$((i + 1))
done
t1=$(date +%s)
echo "night 2 through Slurm: $((t1 - t0)) s"
check "night 2: the finish job's status is 0 ($(tail -3 night2/logs/slurm-finish.out))" \
    [ "$(cat night2/logs/finish.status 2>/dev/null)" = 0 ]
night_ok "$NIGHTLY_DB" "$after1" 2 >ok2.out 2>&1
rc=$?
check "night 2: merged = unsharded: $(tail -2 ok2.out)" [ $rc -eq 0 ]
check "night 2: the build archived" cmp -s "$P/nightly_div_2.so" night2/builds/nightly-div.so
certify2=$(q "SELECT id FROM runs WHERE id > $after1 AND kind = 'certify'")

"$D" query --db "$NIGHTLY_DB" --json new --since "$after1" >new.json 2>&1
check "query new: exactly the signatures first found tonight, all flushing, in 2.0" js new.json \
    "len(j['new']) == $(q "SELECT count(*) FROM signatures WHERE first_run_id > $after1") > 0 and all(r['class'] == 'flushed-subnormal-output' and r['version'] == '2.0' for r in j['new'])"
"$D" query --db "$NIGHTLY_DB" --json fixed --since "$after1" >fixed.json 2>&1
want_fixed=$(q "SELECT count(*) FROM signatures s WHERE class = 'floor-vs-trunc' AND EXISTS
    (SELECT 1 FROM certificates t WHERE t.run_id = $certify2 AND t.variant = s.variant AND t.dtype = s.dtype)")
check "query fixed: the $want_fixed floor signatures of the claims certified again, 1.0 -> 2.0" js fixed.json \
    "len(j['fixed']) == $want_fixed > 0 and all(r['class'] == 'floor-vs-trunc' and r['last_version'] == '1.0' and r['fixed_version'] == '2.0' for r in j['fixed'])"
"$D" query --db "$NIGHTLY_DB" --json regressions --plugin nightly-div --since "$after1" >reg.json 2>&1
check "query regressions: the two f32 claims, held in 1.0, failing in 2.0" js reg.json \
    "sorted((r['variant'], r['dtype'], r['held_in'], r['fails_in']) for r in j['regressions']) == [('onnx-div-14', 'f32', '1.0', '2.0'), ('openvino-divide-1', 'f32', '1.0', '2.0')]"
check "the finish job printed them" grep -q 'Regressions of nightly-div' night2/logs/slurm-finish.out
# Ranges: bisected by the finish job over the two archived builds.
check "every new signature: regression range 1.0 .. 2.0, no fixed range" \
    [ "$(q "SELECT count(*) FROM v_signature_ranges WHERE kind = 'regression' AND before_version = '1.0' AND after_version = '2.0' AND builds = 2")" -eq \
      "$(q "SELECT count(*) FROM signatures WHERE first_run_id > $after1")" ] && \
    [ "$(q "SELECT count(*) FROM v_signature_ranges g JOIN signatures s ON s.id = g.signature_id WHERE s.first_run_id > $after1 AND g.kind = 'fixed'")" -eq 0 ]
check "every fixed signature: fixed range 1.0 .. 2.0" \
    [ "$(q "SELECT count(*) FROM v_signature_ranges WHERE kind = 'fixed' AND before_version = '1.0' AND after_version = '2.0' AND builds = 2")" -eq "$want_fixed" ]
check "the finish job printed the ranges" grep -q 'fixed range: 1.0 (build 1 of 2) .. 2.0 (build 2 of 2)' night2/logs/slurm-finish.out
check "the night's reports show the ranges" js "night2/reports/run-$certify2.json" \
    "any(f['ranges'] == 'regression 1.0 .. 2.0' for f in j['findings']) and all(f['ranges'] for f in j['findings'])"
check "... in Markdown too" grep -q '^- ranges (divergence bisect): regression 1.0 .. 2.0$' "night2/reports/run-$certify2.md"
s=$(q "SELECT min(id) FROM signatures WHERE status = 'fixed'")
"$D" query --db "$NIGHTLY_DB" history "sig:$s" >hist.txt 2>&1
check "query history sig:$s shows its fixed range" grep -q '^fixed  *1.0 (.*)  *2.0 (' hist.txt

# ---- The same night 2 on this machine (the default scheduler, GNU
# parallel) merges to the same runs.
NIGHTLY_DIR="$tmp/local" NIGHTLY_DB="$tmp/local.db" JOBS=2 sh "$ROOT/scripts/nightly" >local.out 2>&1
rc=$?
check "night 2 with --scheduler local: exit $rc ($(tail -1 local.out))" [ $rc -eq 0 ]
night_ok local.db 0 2 >local-ok.out 2>&1
rc=$?
check "night 2 locally: merged = unsharded: $(tail -2 local-ok.out)" [ $rc -eq 0 ]

# ---- The checks fail on a broken night (scratch copies of night 2).
broken() { # NAME: night2 and the history before it, copied to NAME/
    mkdir "$1" && cp -r night2 "$1/night" && cp history-1.db "$1/history.db" &&
        rm -f "$1/night/logs/finish.status"
}
# caught NAME WHAT MESSAGE: the finish step on NAME (locally) exits 1 and
# says MESSAGE, and the night's check fails on what it merged.
caught() {
    NIGHTLY_DIR="$tmp/$1/night" NIGHTLY_DB="$tmp/$1/history.db" sh "$ROOT/scripts/nightly" --finish \
        >"$1/finish.out" 2>"$1/finish.err"
    rc=$?
    check "$2: the finish step exits 1 ($rc)" [ $rc -eq 1 ]
    check "$2: it says '$3'" grep -q "$3" "$1/finish.err"
    night_ok "$1/history.db" "$after1" 2 >"$1/ok.out" 2>&1
    rc=$?
    check "$2: the night's check fails ($(tail -1 "$1/ok.out"))" [ $rc -ne 0 ]
}
# A shard lost.
broken lost && rm lost/night/shards/certify-nightly-div-1.db
caught lost "a lost shard" 'shard certify 1/3 of nightly-div is missing'
# A shard run twice: once more by hand, its database beside the first.
broken twice
NIGHTLY_DIR="$tmp/twice/again" sh "$ROOT/scripts/nightly" --job certify "$tmp/night2/builds/nightly-div.so" 2 &&
    cp twice/again/shards/certify-nightly-div-2.db twice/night/shards/certify-nightly-div-2-again.db
caught twice "a shard run twice" 'is incomplete: a shard of it is missing, failed or ran twice'
# A shard that failed (its status says so; its database, a partial one,
# is what it is).
broken failed && echo "failed 2" >failed/night/logs/fuzz-nightly-div-0.status
NIGHTLY_DIR="$tmp/failed/night" NIGHTLY_DB="$tmp/failed/history.db" sh "$ROOT/scripts/nightly" --finish \
    >failed/finish.out 2>failed/finish.err
rc=$?
check "a failed shard: the finish step exits 1 ($rc)" [ $rc -eq 1 ] && grep -q 'fuzz 0/3 of nightly-div did not finish' failed/finish.err
# Merged wrongly: one count of the merged certify run changed.
cp "$NIGHTLY_DB" wrong.db
sqlite3 wrong.db "UPDATE counts SET elements = elements + 1 WHERE run_id = $certify2 AND class = 'match' AND variant = 'onnx-div-14' AND dtype = 'i16'"
night_ok wrong.db "$after1" 2 >wrong.out 2>&1
rc=$?
check "a count merged wrongly: the night's check fails ($(tail -1 wrong.out))" [ $rc -ne 0 ]
night_ok "$NIGHTLY_DB" "$after1" 2 >/dev/null 2>&1
check "and the real night still passes it" [ $? -eq 0 ]

# ---- Down: nothing of the cluster may be left.
t0=$(date +%s)
cluster_down
t1=$(date +%s)
left=$(cluster_procs)
check "no process of the cluster is left: $left" [ -z "$left" ]
left=$(pgrep -a 'slurm|munge' | grep -F "$tmp")
check "pgrep finds none of it: $left" [ -z "$left" ]
echo "cluster down in $((t1 - t0)) s; the whole test $((t1 - started)) s"
finish
