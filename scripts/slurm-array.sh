#!/usr/bin/env bash
# One shard of an `sr run` per Slurm array task; `score` merges the shards once all are done.
#
#   sbatch --array=1-8 --cpus-per-task=4 scripts/slurm-array.sh --tasks S1,S2   # shard K of 8 each
#   sbatch --dependency=afterok:JOBID scripts/slurm-array.sh score              # or SR_JOB=JOBID ... score
#
# Array task K (SLURM_ARRAY_TASK_ID, counted from SLURM_ARRAY_TASK_MIN) runs `sr run --shard K/N`
# with N = SLURM_ARRAY_TASK_COUNT into $SR_RUNS/shard-K-of-N; arguments after the script name are the
# run's identity (scope, --agent, --model). A requeued or retried task finds its directory and
# continues it with `sr run --resume --run-dir` (the directory keeps its own scope). No shard is
# scored by itself; `score` runs `sr score` over every shard directory (refused, with counts only,
# until all are terminal) and writes the report to $SR_RUNS/scored.
#
# Environment: SR (the sr command, default `sr`), SR_RUNS (default runs/slurm-<array job id>),
# SR_JOB (the array job id when scoring from another job), SR_WORKERS (default SLURM_CPUS_PER_TASK
# or 2), SR_SESSION_OPTIONS (options of every session, fresh or resumed, e.g. "--executor ray" or
# "--base-url http://gpu-node:8000/v1 --model-cache /shared/model-calls.sqlite"). Every array task
# must see the project directory (a shared file system).
#SBATCH --job-name=sr-shard
#SBATCH --output=sr-shard-%A_%a.out
set -euo pipefail

SR=${SR:-sr}
job=${SR_JOB:-${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-local}}}
runs=${SR_RUNS:-runs/slurm-$job}
read -r -a sr <<<"$SR"

if [[ "${1:-}" == "score" ]]; then
    shift
    shopt -s nullglob
    shards=("$runs"/shard-*-of-*)
    if [[ ${#shards[@]} -eq 0 ]]; then
        echo "slurm-array.sh: no shard directory under $runs" >&2
        exit 1
    fi
    exec "${sr[@]}" score "${shards[@]}" --out "$runs/scored" "$@"
fi

: "${SLURM_ARRAY_TASK_ID:?run as a Slurm array task (or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT)}"
: "${SLURM_ARRAY_TASK_COUNT:?SLURM_ARRAY_TASK_COUNT is the number of shards}"
count=$SLURM_ARRAY_TASK_COUNT
index=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
if ((index < 1 || index > count)); then
    echo "slurm-array.sh: array task $SLURM_ARRAY_TASK_ID is not one of $count shards" >&2
    exit 1
fi
workers=${SR_WORKERS:-${SLURM_CPUS_PER_TASK:-2}}
dir="$runs/shard-$index-of-$count"
mkdir -p "$runs"

read -r -a session <<<"${SR_SESSION_OPTIONS:-}"
if [[ -f "$dir/manifest.json" ]]; then
    exec "${sr[@]}" run --resume --run-dir "$dir" --workers "$workers" "${session[@]}"
fi
exec "${sr[@]}" run --shard "$index/$count" --run-dir "$dir" --workers "$workers" "${session[@]}" "$@"
