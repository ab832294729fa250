#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine (Debian's slurm-wlm and munge), for the interop
# checks (scripts/interop/slurm-array.sh) and for trying deploy/slurm/array.sh by hand:
#
#   scripts/slurm-cluster.sh run DIR -- COMMAND…   # start, run COMMAND with SLURM_CONF set, always stop
#   scripts/slurm-cluster.sh start DIR             # start and leave running (prints the export to use)
#   scripts/slurm-cluster.sh stop DIR              # stop what start started
#
# Everything lives in DIR (created; an absolute path is best): slurm.conf, a fresh munge key, state,
# spool, logs and pid files, so nothing under /etc is used or changed. munged, slurmctld and slurmd
# run as root and talk over loopback only (the node's address is 127.0.0.1). The node has this
# machine's CPUs (nproc) and most of its memory; jobs share it by CPU and memory (cons_tres).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
dir=${2:-}
if [ -z "$mode" ] || [ -z "$dir" ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
node=$(hostname -s)

pid_of() { cat "$dir/$1.pid" 2>/dev/null || true; }

stop() {
  local daemon pid
  for daemon in slurmd slurmctld munged; do
    pid=$(pid_of "$daemon")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/$daemon.pid"
  done
}

start() {
  bash scripts/install-deps.sh interop
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 0700 "$dir/munge"
  if [ ! -s "$dir/munge/munge.key" ]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  fi
  chmod 0600 "$dir/munge/munge.key"
  local memory
  memory=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm-cluster.sh for one node on this machine.
ClusterName=fxreplay-local
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
ReturnToService=2
KillWait=10
MinJobAge=600
SlurmctldParameters=enable_configless
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  /usr/sbin/munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed"
  export SLURM_CONF="$dir/slurm.conf"
  /usr/sbin/slurmctld -f "$SLURM_CONF"
  /usr/sbin/slurmd -f "$SLURM_CONF" -N "$node"
  # Wait until the node is idle: slurmd registered with slurmctld and takes jobs.
  local state=""
  for _ in $(seq 60); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 1
  done
  if [ "$state" != idle ]; then
    echo "slurm-cluster: node $node is '${state:-unknown}' after 60 s; logs in $dir/log" >&2
    tail -5 "$dir"/log/*.log >&2 || true
    return 1
  fi
  echo "slurm-cluster: node $node idle ($(nproc) CPUs, ${memory} MB); export SLURM_CONF=$SLURM_CONF" >&2
}

case "$mode" in
  start) start || { stop; exit 1; } ;;
  stop) stop ;;
  run)
    shift 2
    [ "${1:-}" = "--" ] && shift
    trap stop EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    start
    SLURM_CONF="$dir/slurm.conf" "$@"
    ;;
  *) echo "slurm-cluster: unknown mode '$mode' (run, start or stop)" >&2; exit 2 ;;
esac
