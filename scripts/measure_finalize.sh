#!/usr/bin/env bash
# How often a run that finished fails to exit cleanly across emulated hosts (root).
# HOSTS emulated hosts x 1 rank on links shaped to PROFILE, MPICH over UCX's TCP
# transport; RUNS rounds, each running the arms of ARMS one after the other:
#   plain     collbench-plain-loop (a plain MPI program: allreduce loops, then
#             MPI_Finalize at once), to see the MPI library's own behaviour
#   before    collbench with COLLBENCH_FINALIZE_QUIET_MS=0: MPI_Finalize at once, as
#             collbench did first (a 20 s deadline then ends a hung rank)
#   quiet     collbench with COLLBENCH_FINALIZE_QUIET_MS=N for each N of QUIET (1 10):
#             a barrier and N ms quiet, no pairs (COLLBENCH_FINALIZE_CONNECT=0)
#   nopairs   collbench with COLLBENCH_FINALIZE_CONNECT=0: a barrier and 200 ms quiet,
#             as collbench did before it connected every pair
#   after     collbench as it is now (every pair, a barrier and a quiet time before
#             MPI_Finalize where the library needs it; see
#             collectives/transport/mpi/clean_finalize.hpp)
# collbench runs ARGS (`run -a mpi,ring -b 1K -e 64K -w 5 -n 20`). A run still going
# after LIMIT seconds counts as hung and is interrupted. Writes results/finalize/ (or
# $1): runs.csv (one row per run), SUMMARY.md, machine.txt, and raw/ with the output of
# every run that did not exit 0 within 20 s.
# Environment: OVERWRITE (1: replace an earlier measurement in the directory), BUILD
# (build), RUNS (30), HOSTS (3), PROFILE (1gbe), LIMIT (40), QUIET (1 10), ARMS (plain
# before quiet nopairs after), ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/finalize}
build=${BUILD:-build}
runs=${RUNS:-30}
profile=${PROFILE:-1gbe}
limit=${LIMIT:-40}
quiet=${QUIET:-1 10}
hosts=${HOSTS:-3}
arms=${ARMS:-plain before quiet nopairs after}
read -r -a collbench_args <<<"${ARGS:-run -a mpi,ring -b 1K -e 64K -w 5 -n 20}"
for arm in $arms; do
  case $arm in plain | before | quiet | nopairs | after) ;; *)
    echo "measure_finalize: unknown arm '$arm'; valid: plain before quiet nopairs after" >&2
    exit 2 ;;
  esac
done
# Busy-polling ranks beyond the cores yield at once (as in validate_model.sh).
if [ "$hosts" -gt "$(nproc)" ]; then export MPIR_CVAR_POLLS_BEFORE_YIELD=1; fi
bin=$PWD/$build/harness/collbench
plain=$PWD/$build/harness/collbench-plain-loop
cluster=cbfin
source scripts/emulated_runs.sh
emulated_preflight "$bin" "$cluster"
trap 'echo "measure_finalize: interrupted" >&2; exit 130' INT TERM
raw=$out/raw
keep_earlier_results "$out"
rm -rf "$out"
mkdir -p "$raw"
scripts/machine_facts.sh >"$out/machine.txt"
scripts/emulate_cluster.sh up --name "$cluster" --hosts "$hosts" --profile "$profile" | tee -a "$out/machine.txt"
echo "arm,run,exit,seconds,hung,deadline_exits,launcher_errors,completed,rows,wrong" >"$out/runs.csv"

# one ARM RUN COMMAND...: runs it under the limit and appends its row.
one() {
  local arm=$1 run=$2
  shift 2
  local log=$raw/$arm-$run.log json=$raw/$arm-$run.json start end rc=0
  start=$(date +%s.%N)
  timeout --signal=INT --kill-after=10 "$limit" "$@" >"$log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  local hung=0
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && hung=1
  ${PYTHON:-python3} - "$arm" "$run" "$rc" "$start" "$end" "$hung" "$log" "$json" >>"$out/runs.csv" <<'PY'
import json, os, sys
arm, run, rc, start, end, hung, log, path = sys.argv[1:]
text = open(log, errors="replace").read()
deadline = text.count("MPI_Finalize has not returned")
launcher = text.count("process manager error") + text.count("BAD TERMINATION")
completed, rows, wrong = "", "", ""
if os.path.exists(path):
    d = json.load(open(path))
    completed, rows = int(d.get("completed", False)), len(d["rows"])
    wrong = sum(max(r.get("errors") or 0, 0) for r in d["rows"])
print(f"{arm},{run},{rc},{float(end) - float(start):.1f},{hung},{deadline},{launcher},{completed},{rows},{wrong}")
PY
  tail -1 "$out/runs.csv"
  # Keep the output of runs that did not exit 0 in time; the rest were all alike.
  if [ "$rc" = 0 ] && [ "$(awk -F, 'END {print ($4 < 20)}' "$out/runs.csv")" = 1 ]; then rm -f "$log"; fi
  rm -f "$json" "${json%.json}.csv"
}

emu=(scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host 1 --)
# collbench ARM RUN [VARIABLE=VALUE...]: one collbench run of the arm.
collbench() {
  local arm=$1 run=$2
  shift 2
  one "$arm" "$run" env "$@" "${emu[@]}" "$bin" "${collbench_args[@]}" \
    --csv "$raw/$arm-$run.csv" --json "$raw/$arm-$run.json"
}
for run in $(seq "$runs"); do
  for arm in $arms; do
    case $arm in
      plain) one plain "$run" "${emu[@]}" "$plain" 65536 20 5 ;;
      before) collbench before "$run" COLLBENCH_FINALIZE_QUIET_MS=0 ;;
      quiet) for ms in $quiet; do
          collbench "quiet-${ms}ms" "$run" COLLBENCH_FINALIZE_QUIET_MS="$ms" COLLBENCH_FINALIZE_CONNECT=0
        done ;;
      nopairs) collbench nopairs "$run" COLLBENCH_FINALIZE_CONNECT=0 ;;
      after) collbench after "$run" ;;
    esac
  done
done
scripts/emulate_cluster.sh down --name "$cluster" >/dev/null
${PYTHON:-python3} scripts/summarize_finalize.py "$out" "$hosts" "$profile" "${collbench_args[*]}" >"$out/SUMMARY.md"
echo "measure_finalize: wrote $out"
