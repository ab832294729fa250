#!/usr/bin/env bash
# fxreplay batch as a Slurm job array: each array task renders the recordings whose path
# hashes to its index (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) out of
# SLURM_ARRAY_TASK_COUNT; fxreplay reads both from the environment.
#
#   sbatch deploy/slurm/array.sh                      # 8 tasks, the defaults below
#   sbatch --array=0-15 deploy/slurm/array.sh         # 16 tasks
#   MANIFEST=/shared/m.csv OUT=/shared/out JOB=/shared/job.yaml sbatch deploy/slurm/array.sh
#
# The array must be a range (A-B or A-B:STEP; a %LIMIT throttle is fine), not a list.
# Re-submitting after failures or a time-out is safe: finished outputs are skipped.
#SBATCH --job-name=fxreplay
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=12:00:00
#SBATCH --output=fxreplay-%A_%a.out
set -euo pipefail

MANIFEST="${MANIFEST:-$PWD/manifest.csv}"
OUT="${OUT:-$PWD/out}"
FXREPLAY="${FXREPLAY:-fxreplay}"
# Each render is multi-threaded itself: run half as many at once as the task has CPUs
# (two on two CPUs), as fxreplay does by default when it can see the CPUs it may use.
cpus="${SLURM_CPUS_PER_TASK:-2}"
jobs=$(( cpus >= 4 ? cpus / 2 : (cpus >= 2 ? 2 : 1) ))

args=(batch --manifest "$MANIFEST" --out "$OUT" -j "$jobs" --progress plain)
if [ -n "${JOB:-}" ]; then args+=(--job "$JOB"); fi

# fxreplay from the .deb or the self-contained tarball unpacked on the shared file system
# (FXREPLAY=/shared/fxreplay/bin/fxreplay), or the container image the Dockerfile builds
# (scripts/package.sh deb && docker build -t fxreplay:0.1.0 .), made an Apptainer image once:
#   apptainer build /shared/fxreplay.sif docker-daemon://fxreplay:0.1.0
#   FXREPLAY="apptainer exec --bind /shared /shared/fxreplay.sif fxreplay"
# (word splitting of $FXREPLAY is intended).
# shellcheck disable=SC2086
exec $FXREPLAY "${args[@]}"
