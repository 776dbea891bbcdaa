# SPDX-License-Identifier: MIT
# A private single-node Slurm cluster in a folder, for the tests: sourced
# (after `set -u`), it gives
#   cluster_up DIR    munged with its own key and socket, slurmctld and
#                     slurmd with a slurm.conf in DIR (two free ports
#                     chosen now, state, spool, pid and log files in DIR),
#                     SLURM_CONF exported; returns once the node is idle.
#                     0, or 1 with what failed on stderr (the logs are in
#                     DIR/log).
#   cluster_down      cancels the cluster's jobs, stops its daemons (asking
#                     first, then SIGKILL by pid) and any process left of
#                     its jobs; safe to call twice, or when cluster_up
#                     failed half way. Call it from an EXIT trap.
#   cluster_procs     the processes of the cluster still there, one
#                     "PID COMMAND" a line (daemons, slurmstepd, job
#                     processes): what `pgrep -a 'slurm|munge'` shows of
#                     it, and its jobs' processes.
# Its own variables are named CLUSTER_* and cl_* (a function's variables
# are the caller's in sh).
# Nothing system-wide is read or written: no /etc/slurm, /etc/munge, no
# systemd; every daemon runs in the foreground, a child of the calling
# shell, and a watchdog stops the cluster if that shell is killed.
# Needs munged, slurmctld, slurmd and slurm-client (sbatch, sinfo, ...),
# and Debian's python3 for the free ports.
CLUSTER_DIR=""
CLUSTER_PIDS=""
CLUSTER_CTLD=""
CLUSTER_WATCHDOG=""

# Two free TCP ports of 127.0.0.1, chosen by the kernel.
cluster_ports() {
    /usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))'
}

cluster_up() {
    CLUSTER_DIR=$1
    cl_C=$CLUSTER_DIR
    mkdir -p "$cl_C/munge" "$cl_C/state" "$cl_C/spool" "$cl_C/log" || return 1
    chmod 700 "$cl_C/munge"
    if ! dd if=/dev/urandom of="$cl_C/munge/munge.key" bs=1024 count=1 2>/dev/null ||
        ! chmod 400 "$cl_C/munge/munge.key"; then
        echo "cluster: no munge key" >&2
        return 1
    fi
    # -F: in the foreground (a child of this shell); -f: run even as root.
    munged -F -f --socket="$cl_C/munge/munge.sock" --key-file="$cl_C/munge/munge.key" \
        --pid-file="$cl_C/munge/munged.pid" --log-file="$cl_C/log/munged.log" \
        --seed-file="$cl_C/munge/munged.seed" >"$cl_C/log/munged.out" 2>&1 &
    CLUSTER_PIDS=$!
    # The watchdog: if the calling shell dies without its EXIT trap
    # (SIGKILL), it takes the cluster down.
    cl_parent=$$
    (
        trap '' INT HUP
        while kill -0 "$cl_parent" 2>/dev/null; do sleep 1; done
        cluster_down
    ) >/dev/null 2>&1 &
    CLUSTER_WATCHDOG=$!
    cl_i=0
    until [ -S "$cl_C/munge/munge.sock" ]; do
        cl_i=$((cl_i + 1))
        if [ $cl_i -ge 100 ] || ! kill -0 "$CLUSTER_PIDS" 2>/dev/null; then
            echo "cluster: munged did not start: $(tail -3 "$cl_C/log/munged.log" "$cl_C/log/munged.out" 2>/dev/null)" >&2
            return 1
        fi
        sleep 0.1
    done
    # shellcheck disable=SC2046 # two port numbers
    set -- $(cluster_ports) || return 1
    [ $# -eq 2 ] || { echo "cluster: no free ports" >&2; return 1; }
    cl_host=$(hostname -s)
    : >"$cl_C/plugstack.conf"
    cat >"$cl_C/slurm.conf" <<EOF
# A private single-node cluster (tests/nightly/cluster.sh)
ClusterName=divergence-test
SlurmctldHost=$cl_host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$cl_C/munge/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
PlugStackConfig=$cl_C/plugstack.conf
StateSaveLocation=$cl_C/state
SlurmdSpoolDir=$cl_C/spool
SlurmctldPidFile=$cl_C/slurmctld.pid
SlurmdPidFile=$cl_C/slurmd.pid
SlurmctldLogFile=$cl_C/log/slurmctld.log
SlurmdLogFile=$cl_C/log/slurmd.log
ReturnToService=2
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=$cl_host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    SLURM_CONF=$cl_C/slurm.conf
    export SLURM_CONF
    # -D: in the foreground; -c: a clean state (no jobs of an earlier run).
    slurmctld -D -c -f "$SLURM_CONF" >"$cl_C/log/slurmctld.out" 2>&1 &
    CLUSTER_CTLD=$!
    CLUSTER_PIDS="$CLUSTER_PIDS $!"
    slurmd -D -f "$SLURM_CONF" >"$cl_C/log/slurmd.out" 2>&1 &
    CLUSTER_PIDS="$CLUSTER_PIDS $!"
    cl_i=0
    until [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; do
        cl_i=$((cl_i + 1))
        if [ $cl_i -ge 300 ]; then
            echo "cluster: the node is not idle after 30 s: $(sinfo 2>&1 | tail -1)" >&2
            tail -5 "$cl_C/log/slurmctld.log" "$cl_C/log/slurmd.log" >&2 2>/dev/null
            return 1
        fi
        sleep 0.1
    done
    return 0
}

# "PID COMMAND" of every process of the cluster: a daemon or slurmstepd
# whose command line, working folder or open files lie in CLUSTER_DIR, and
# any process of one of its jobs (SLURM_JOB_ID and this SLURM_CONF in its
# environment). Zombies are not processes any more.
cluster_procs() {
    [ -n "$CLUSTER_DIR" ] || return 0
    for cl_d in /proc/[0-9]*; do
        cl_pid=${cl_d#/proc/}
        [ "$cl_pid" = $$ ] && continue
        { read -r cl_stat <"$cl_d/stat" && read -r cl_comm <"$cl_d/comm"; } 2>/dev/null || continue
        cl_stat=${cl_stat##*) }
        [ "${cl_stat%% *}" = Z ] && continue
        cl_ours=0
        case $cl_comm in
        slurm* | munge*)
            { tr '\0' ' ' <"$cl_d/cmdline"; readlink "$cl_d/cwd"; ls -l "$cl_d/fd"; } 2>/dev/null |
                grep -q -F "$CLUSTER_DIR" && cl_ours=1 ;;
        *)
            grep -q -a -F "SLURM_CONF=$CLUSTER_DIR/slurm.conf" "$cl_d/environ" 2>/dev/null &&
                grep -q -a 'SLURM_JOB_ID=' "$cl_d/environ" 2>/dev/null && cl_ours=1 ;;
        esac
        [ $cl_ours = 1 ] && echo "$cl_pid $cl_comm $(tr '\0' ' ' <"$cl_d/cmdline" 2>/dev/null)"
    done
}

cluster_down() {
    [ -n "$CLUSTER_DIR" ] || return 0
    cl_C=$CLUSTER_DIR
    # The jobs first, while the controller is there to cancel them (the
    # client tools wait long for one that is gone: only when it lives).
    if [ -n "$CLUSTER_CTLD" ] && kill -0 "$CLUSTER_CTLD" 2>/dev/null; then
        SLURM_CONF=$cl_C/slurm.conf
        export SLURM_CONF
        cl_jobs=$(timeout 10 squeue -h -o %A 2>/dev/null)
        # shellcheck disable=SC2086
        [ -n "$cl_jobs" ] && timeout 10 scancel $cl_jobs 2>/dev/null
        cl_i=0
        while [ -n "$(timeout 10 squeue -h -o %A 2>/dev/null)" ] && [ $cl_i -lt 50 ]; do
            sleep 0.2
            cl_i=$((cl_i + 1))
        done
        timeout 10 scontrol shutdown >/dev/null 2>&1
    fi
    # The daemons: asked (scontrol shutdown, SIGTERM), then killed.
    for cl_pid in $CLUSTER_PIDS; do
        kill "$cl_pid" 2>/dev/null
    done
    cl_i=0
    for cl_pid in $CLUSTER_PIDS; do
        while kill -0 "$cl_pid" 2>/dev/null && [ $cl_i -lt 50 ]; do
            sleep 0.1
            cl_i=$((cl_i + 1))
        done
        kill -9 "$cl_pid" 2>/dev/null
        wait "$cl_pid" 2>/dev/null
    done
    # What the jobs left (slurmstepd, a job's processes), by pid.
    cl_i=0
    while [ $cl_i -lt 3 ]; do
        cl_left=$(cluster_procs | cut -d' ' -f1)
        [ -n "$cl_left" ] || break
        # shellcheck disable=SC2086
        kill -9 $cl_left 2>/dev/null
        sleep 0.2
        cl_i=$((cl_i + 1))
    done
    if [ -n "$CLUSTER_WATCHDOG" ]; then
        kill -9 "$CLUSTER_WATCHDOG" 2>/dev/null
        wait "$CLUSTER_WATCHDOG" 2>/dev/null
    fi
    CLUSTER_PIDS=""
    CLUSTER_CTLD=""
    CLUSTER_WATCHDOG=""
}
