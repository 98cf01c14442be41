#!/usr/bin/env bash
# How often a run that finished fails to exit cleanly across emulated hosts (root).
# Three emulated hosts x 1 rank on links shaped to PROFILE, MPICH over UCX's TCP
# transport; RUNS rounds, each running three arms one after the other:
#   plain     collbench-plain-loop (a plain MPI program: allreduce loops, then
#             MPI_Finalize at once), to see the MPI library's own behaviour
#   before    collbench with COLLBENCH_FINALIZE_QUIET_MS=0: MPI_Finalize at once, as
#             collbench did before (a 20 s deadline then ends a hung rank)
#   quiet-Nms collbench with COLLBENCH_FINALIZE_QUIET_MS=N for each N of QUIET (1 10):
#             how much quiet time the order needs
#   after     collbench as it is now (a barrier and a quiet time before MPI_Finalize
#             where the library needs it; see collectives/transport/mpi/clean_finalize.hpp)
# collbench runs `run -a mpi,ring -b 1K -e 64K` with fixed counts (-w 5 -n 20). A run
# still going after LIMIT seconds counts as hung and is interrupted. Writes
# results/finalize/ (or $1): runs.csv (one row per run), SUMMARY.md, machine.txt, and
# raw/ with the output of every run that did not exit 0 within 20 s.
# Environment: BUILD (build), RUNS (30), PROFILE (1gbe), LIMIT (40), QUIET (1 10).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/finalize}
build=${BUILD:-build}
runs=${RUNS:-30}
profile=${PROFILE:-1gbe}
limit=${LIMIT:-40}
quiet=${QUIET:-1 10}
bin=$PWD/$build/harness/collbench
plain=$PWD/$build/harness/collbench-plain-loop
cluster=cbfin
source scripts/emulated_runs.sh
emulated_preflight "$bin" "$cluster"
trap 'echo "measure_finalize: interrupted" >&2; exit 130' INT TERM
raw=$out/raw
rm -rf "$out"
mkdir -p "$raw"
scripts/machine_facts.sh >"$out/machine.txt"
scripts/emulate_cluster.sh up --name "$cluster" --hosts 3 --profile "$profile" | tee -a "$out/machine.txt"
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

collbench_args=(run -a mpi,ring -b 1K -e 64K -w 5 -n 20)
emu=(scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host 1 --)
for run in $(seq "$runs"); do
  one plain "$run" "${emu[@]}" "$plain" 65536 20 5
  one before "$run" env COLLBENCH_FINALIZE_QUIET_MS=0 "${emu[@]}" "$bin" "${collbench_args[@]}" \
    --csv "$raw/before-$run.csv" --json "$raw/before-$run.json"
  for ms in $quiet; do
    one "quiet-${ms}ms" "$run" env COLLBENCH_FINALIZE_QUIET_MS="$ms" "${emu[@]}" "$bin" "${collbench_args[@]}" \
      --csv "$raw/quiet-${ms}ms-$run.csv" --json "$raw/quiet-${ms}ms-$run.json"
  done
  one after "$run" "${emu[@]}" "$bin" "${collbench_args[@]}" --csv "$raw/after-$run.csv" --json "$raw/after-$run.json"
done
scripts/emulate_cluster.sh down --name "$cluster" >/dev/null
${PYTHON:-python3} scripts/summarize_finalize.py "$out" >"$out/SUMMARY.md"
echo "measure_finalize: wrote $out"
