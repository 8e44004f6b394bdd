#!/bin/bash
# submit.sh check|simulate SHARDS: submit the job array of SHARDS shards
# (check.sbatch or simulate.sbatch) and its merge, which waits for every
# shard to succeed (--dependency=afterok). Prints both job ids. The
# environment (FTCHECK, RESULTS, CHECK_ARGS, SPLIT_DEPTH, SIM_ARGS) is passed
# on to the jobs.
set -euo pipefail
what=${1:?usage: submit.sh check|simulate SHARDS}
shards=${2:?usage: submit.sh check|simulate SHARDS}
here=$(cd "$(dirname "$0")" && pwd)
case $what in check | simulate) ;; *) echo "submit.sh: $what: want check or simulate" >&2; exit 2 ;; esac
array=$(sbatch --parsable --array=0-$((shards - 1)) "$here/$what.sbatch")
merge=$(sbatch --parsable --dependency=afterok:"$array" "$here/$what-merge.sbatch")
echo "array $array merge $merge"
