# SPDX-License-Identifier: MIT
# What the shell benchmarks share (sourced: . bench/lib.sh): arithmetic on
# the seconds /usr/bin/time prints, and one timed certification.
# faster A B: true when A < B.
faster() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# ratio A B: "A/Bx" with two decimals, "-" when B is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
# add A B: A + B with two decimals.
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
# sub A B: A - B with two decimals.
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
# load: the one-minute load average.
load() { cut -d' ' -f1 /proc/loadavg; }
# say WORDS: a progress line on stderr, after the script's BENCH name.
say() { echo "${BENCH:-bench}: $*" >&2; }

# certify_best NAME DIVERGENCE PLUGIN ARGS...: one `DIVERGENCE certify` of
# PLUGIN with ARGS, into a fresh database in $tmp (the caller's mktemp -d).
# Keeps NAME's best wall time, with that run's user and system time, in
# $tmp/NAME.best ("wall user sys") and that run's output in $tmp/NAME.out.
# An exit above CERTIFY_MAX_RC (default 0: the kernel must conform; 1 lets
# a NONCONFORMANT verdict through) ends the benchmark with exit 2.
certify_best() {
    cb_name=$1 cb_bin=$2 cb_plugin=$3
    shift 3
    rm -f "$tmp/run.db" "$tmp/run.db-wal" "$tmp/run.db-shm"
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$cb_bin" certify --plugin "$cb_plugin" \
        --no-progress --db "$tmp/run.db" "$@" >"$tmp/run.out" 2>"$tmp/run.err"
    cb_rc=$?
    if [ $cb_rc -gt "${CERTIFY_MAX_RC:-0}" ]; then
        say "$cb_name: divergence certify exit $cb_rc:"
        tail -5 "$tmp/run.err" "$tmp/run.out" >&2
        exit 2
    fi
    tail -1 "$tmp/time" >"$tmp/t1" # (after "Command exited with ..." when it did)
    read -r cb_w cb_u cb_s <"$tmp/t1"
    say "$cb_name: $cb_w s wall, $cb_u s user, $cb_s s sys (load $(load))"
    if [ ! -s "$tmp/$cb_name.best" ] || faster "$cb_w" "$(cut -d' ' -f1 "$tmp/$cb_name.best")"; then
        echo "$cb_w $cb_u $cb_s" >"$tmp/$cb_name.best"
        mv "$tmp/run.out" "$tmp/$cb_name.out"
    fi
}

# case_counts NAME: "cases elements" of NAME's best run (its claim lines).
case_counts() {
    awk '/ cases +[0-9]+ elements/ { c += $(NF-3); e += $(NF-1) } END { printf "%d %d\n", c, e }' \
        "$tmp/$1.out"
}
