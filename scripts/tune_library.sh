#!/usr/bin/env bash
# The whole tuning loop for the MPI library of BUILD, on the machine or cluster it runs on:
#  1. measure the library's default and every algorithm it can be forced to, per
#     collective, in MEASURE_ROUNDS rounds (scripts/mpi_algorithms.sh:
#     OUTDIR/measure/round-N/; tune pairs each algorithm with the default of its round);
#  2. `collbench tune` writes the library's tuning file from them (OUTDIR/tuning-file,
#     its choices in OUTDIR/tune.txt) and checks it;
#  3. judge it on new launches: ROUNDS rounds, each the default and every forced algorithm
#     (mpi_algorithms.sh again) and then the library with the file, per collective
#     (OUTDIR/evaluate/round-N/), every result checked;
#  4. OUTDIR/SUMMARY.md and comparison.csv (scripts/summarize_tune.py): per size the
#     tuned library against the default and the best forced algorithm, with the spread.
# Choosing and judging on separate launches keeps the noise that picked a winner out of
# the verdict on it.
# Usage: scripts/tune_library.sh OUTDIR [collbench run options, e.g. -b 8 -e 64M -n 20 -w 5 --rounds 3]
# Environment: BUILD (build tree; build-openmpi for Open MPI), NP (ranks, default 2),
#              MPIEXEC_ARGS, COLLECTIVES (default: allreduce broadcast), MEASURE_ROUNDS
#              (default 3), ROUNDS (judging rounds, default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [collbench run options...]" >&2; exit 2; }
out=$1
shift
build=${BUILD:-build}
collbench=$PWD/$build/harness/collbench
mpiexec=${MPIEXEC:-$PWD/$build/mpiexec}
np=${NP:-2}
rounds=${ROUNDS:-3}
collectives=${COLLECTIVES:-allreduce broadcast}
[ -x "$collbench" ] || { echo "$0: no $collbench; build first (scripts/setup.sh)" >&2; exit 2; }
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "$0: $out already holds results; give a new directory (nothing measured is overwritten)" >&2
  exit 2
fi
mkdir -p "$out/evaluate"
scripts/machine_facts.sh >"$out/machine.txt"
# shellcheck disable=SC2086
launch() { "$mpiexec" ${MPIEXEC_ARGS:-} "$@"; }
measure() {  # measure COLLECTIVE DIR [run options]: the default and every forced algorithm of one collective
  local coll=$1 dir=$2
  shift 2
  REFERENCE_ALGORITHMS=mpi NP=$np BUILD=$build MPIEXEC=$mpiexec scripts/mpi_algorithms.sh "$coll" "$dir" "$@"
}

measured=()
for r in $(seq 1 "${MEASURE_ROUNDS:-3}"); do
  echo "== measure, round $r"
  for coll in $collectives; do
    measure "$coll" "$out/measure/round-$r" "$@"
    measured+=("$out/measure/round-$r/$coll.json")
  done
done
file=$(realpath -m "$out")/tuning-file
launch -n 1 "$collbench" tune "${measured[@]}" --out "$file" | tee "$out/tune.txt"
launch -n 1 "$collbench" tune --check "$file"
mapfile -t settings < <(launch -n 1 "$collbench" list --json | ${PYTHON:-python3} -c '
import json, sys
for s in json.load(sys.stdin)["mpi_library"]["tuning_file_settings"]:
    print(s.replace("{}", sys.argv[1]))' "$file")

for r in $(seq 1 "$rounds"); do
  dir=$out/evaluate/round-$r
  echo "== evaluate, round $r of $rounds"
  for coll in $collectives; do
    measure "$coll" "$dir" "$@"
    (export "${settings[@]}" && launch -n "$np" "$collbench" run -c "$coll" -a mpi --csv "$dir/parts/$coll-tuned.csv" "$@") ||
      echo "$0: the tuned run of $coll in round $r failed (kept what it measured)" >&2
  done
done
${PYTHON:-python3} scripts/summarize_tune.py "$out" >"$out/SUMMARY.md"
echo "tune_library: wrote $out (SUMMARY.md)"
