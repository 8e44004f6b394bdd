#!/bin/bash
# ci/slurm.sh: run the sharded check and campaign of deploy/slurm on a real,
# single-node Slurm, and compare the merges with the unsharded runs.
#
# It installs Debian's slurm-wlm and munge (needs root and apt), starts
# munged as the munge user, writes a slurm.conf whose only node is this host
# with its CPUs (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none,
# SelectType=select/cons_tres), starts slurmctld then slurmd, waits for
# sinfo to show the node idle, then submits with deploy/slurm/submit.sh:
#   - a small ERA check (era --n 3) split in 4 shards, and its merge;
#   - a small Table 1 campaign (correction --table1 --P 256 --runs 40) split
#     in 4 shards, and its merge;
# waits for the merges, and compares them with the same runs unsharded:
# equal verdicts and distinct-state and transition counts for the check, equal figures
# (every --json key but seconds) for the campaign. It stops the daemons it
# started on exit. Run on demand (it is not part of go test):
#
#   sudo bash ci/slurm.sh        # prints what docs/scale-out.md shows
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/ftcheck-slurm.XXXXXX)
chmod 755 "$work"
log() { printf '\n$ %s\n' "$*"; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null
fi

go build -o "$work/ftcheck" ./cmd/ftcheck

# munge: its key, and /run/munge owned by the munge user.
if [ ! -s /etc/munge/munge.key ]; then
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 755 /run/munge
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ -f /run/munge/ftcheck-munged.pid ]; then kill "$(cat /run/munge/ftcheck-munged.pid)" 2>/dev/null || true; fi
}
trap cleanup EXIT
runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/ftcheck-munged.pid --force
munge -n | unmunge >/dev/null

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2/1024) - 1024}' /proc/meminfo)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
chown slurm:slurm /var/spool/slurmctld /var/log/slurm
cat >/etc/slurm/slurm.conf <<CONF
ClusterName=ftcheck
SlurmctldHost=$host
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
started=$(date +%s)
/usr/sbin/slurmctld -D >"$work/slurmctld.out" 2>&1 &
pids+=($!)
sleep 1
/usr/sbin/slurmd -D >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
	if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then break; fi
	sleep 1
done
log sinfo
sinfo
echo "(Slurm up $(( $(date +%s) - started )) s after slurmctld started)"

export FTCHECK=$work/ftcheck RESULTS=$work/results
export CHECK_ARGS="era --n 3" SPLIT_DEPTH=4
export SIM_ARGS="correction --table1 --P 256 --runs 40 --seed 1"
cd "$work"
log deploy/slurm/submit.sh check 4
read -r _ carray _ cmerge < <("$OLDPWD/deploy/slurm/submit.sh" check 4)
echo "array $carray merge $cmerge"
log deploy/slurm/submit.sh simulate 4
read -r _ sarray _ smerge < <("$OLDPWD/deploy/slurm/submit.sh" simulate 4)
echo "array $sarray merge $smerge"
log squeue
squeue
for _ in $(seq 300); do
	if [ -z "$(squeue -h)" ]; then break; fi
	sleep 1
done
log "scontrol -o show job (the job states)"
for j in "$carray" "$cmerge" "$sarray" "$smerge"; do
	scontrol -o show job "$j" 2>/dev/null | grep -o 'JobId=[0-9]* ArrayJobId=[0-9]* ArrayTaskId=[0-9]*\|JobId=[0-9]* JobName=[^ ]*\|JobState=[A-Z]*' | paste -sd' ' || true
done
log cat ftcheck-merge-"$cmerge".out
cat ftcheck-merge-"$cmerge".out
log cat ftcheck-merge-"$smerge".out
cat ftcheck-merge-"$smerge".out

# The same runs, unsharded, against the merges (JSON).
"$FTCHECK" check $CHECK_ARGS --quiet --json --out "$work/out" >whole-check.json
"$FTCHECK" merge --json --out "$work/out" "$RESULTS"/check-*.shard >merged-check.json
"$FTCHECK" simulate $SIM_ARGS --quiet --json --out "$work/out" >whole-sim.json
"$FTCHECK" merge --json "$RESULTS"/simulate-*.shard >merged-sim.json
log compare with the unsharded runs
python3 - <<'PY'
import json, sys
w, m = json.load(open("whole-check.json")), json.load(open("merged-check.json"))
ok = True
for k in ("states", "transitions", "complete", "violations", "max_depth"):
    same = w[k] == m[k]
    ok &= same
    print(f"check {k}: unsharded {w[k]}, merged {m[k]}: {'equal' if same else 'DIFFERENT'}")
w, m = json.load(open("whole-sim.json")), json.load(open("merged-sim.json"))
for d in (w, m):
    d.pop("seconds"); d.pop("shards", None)
same = w == m
ok &= same
print(f"campaign: {len(w)} keys (all but seconds): {'equal' if same else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
PY
