#!/usr/bin/env bash
# drape on Slurm: one array task per shard of a batch.
#
#   sbatch --array=0-2 slurm.sh BATCH SUMMARIES [drape bake flags...]
#
# BATCH is a folder of scene files, a list file or a scene; its paths must
# resolve on every node (shared storage; paths in a list file are relative to
# the list file). --array=0-(N-1) makes N shards: each task bakes shard
# $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT, skips the jobs a resume
# record shows done, and writes SUMMARIES/summary-I.json. Resubmitting the
# array after a failure or a cancelled task bakes only what is missing. When
# every task is done:
#
#   drape report merge SUMMARIES/summary-*.json -o report.json --markdown report.md
#
# DRAPE names the drape binary (default: drape on the PATH).
#SBATCH --job-name=drape-bake
#SBATCH --cpus-per-task=2
#SBATCH --output=drape-bake-%A_%a.log
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: sbatch --array=0-(N-1) $0 BATCH SUMMARIES [drape bake flags...]" >&2
  exit 2
fi
: "${SLURM_ARRAY_TASK_ID:?run this script as an array job: sbatch --array=0-(N-1) $0 ...}"
batch=$1
summaries=$2
shift 2
mkdir -p "$summaries"
# one job per allocated CPU; every job's result is the same at any thread count
exec "${DRAPE:-drape}" bake "$batch" -r \
  --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
  --summary "$summaries/summary-$SLURM_ARRAY_TASK_ID.json" \
  -j "${SLURM_CPUS_PER_TASK:-1}" "$@"
