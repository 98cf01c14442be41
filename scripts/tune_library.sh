#!/usr/bin/env bash
# The whole tuning loop for the MPI library of BUILD, on the machine or cluster it runs on:
#  1. measure the library's default and every algorithm it can be forced to, per
#     collective (every one its tuning file can choose: `list --json`'s tunable) and
#     communicator size (COMM_SIZES: the job's and smaller ones where
#     asked), in MEASURE_ROUNDS rounds (OUTDIR/measure/round-N/; tune pairs each
#     algorithm with the default of its round): one launch per round where the library
#     switches its algorithms inside a run (-a mpi,mpi[all]: MPICH; Open MPI with
#     coll_tuned_use_dynamic_rules, which this script sets and which leaves its default
#     as it is), else one launch per algorithm (scripts/mpi_algorithms.sh);
#  2. `collbench tune` writes the library's tuning file from them (OUTDIR/tuning-file,
#     its choices in OUTDIR/tune.txt) and checks it;
#  3. judge it on new launches: ROUNDS rounds, each the default and every forced algorithm
#     and then the library with the file (beside every algorithm again where the library
#     switches them beside a file: MPICH, not Open MPI 4.1), per collective
#     (OUTDIR/evaluate/round-N/), at every communicator size the file was measured at,
#     every result checked; where the tuned library runs
#     alone, collbench's own first algorithm of the collective ('collbench list' order)
#     runs in both launches as a yardstick of the launch's fast or slow mode;
#  4. OUTDIR/SUMMARY.md and comparison.csv (scripts/summarize_tune.py): per size the
#     tuned library against the default and the best forced algorithm, with the spread.
# On one host every launch runs between two measurements of whether CPUs 0 and 1 share a
# cache (collbench-core-handoff; results/core-placement: launches here run fast or slow
# by it), LAUNCH.cpus-before.txt and LAUNCH.cpus-after.txt beside its CSV, so launches
# of the tuned library and the default are also compared where they ran alike.
# Choosing and judging on separate launches keeps the noise that picked a winner out of
# the verdict on it.
# Usage: scripts/tune_library.sh OUTDIR [collbench run options, e.g. -b 8 -e 64M -n 20 -w 5 --rounds 3]
# Environment: BUILD (build tree; build-openmpi for Open MPI), NP (ranks, default 2),
#              MPIEXEC_ARGS, COLLECTIVES (default: every one the file can tune), MEASURE_ROUNDS
#              (default 3), ROUNDS (judging rounds, default 3); COMM_SIZES (communicator
#              sizes to measure and judge at, each from 2 to the job's ranks, default the
#              job's: NP, or HOSTS; a smaller one runs on the job's first ranks, its files
#              named COLLECTIVE-Kranks, or ranks-K/ where one launch per algorithm);
#              JUDGE_SIZES (where the tuned library runs alone: sizes per judging launch,
#              the sweep split between several short launch pairs; all in one by default);
#              SEGMENTS (Open MPI: segment sizes, e.g. "8K,64K", each algorithm that takes a
#              segment measured once more per size as mpi[NAME:seg=BYTES], so the file
#              chooses the segment too; the plain mpi[NAME] keeps coll/tuned's, 0 unless
#              set); HOSTS=H PROFILE=P: on H emulated hosts, one rank each, their links shaped as
#              P (scripts/emulate_cluster.sh profiles; root; either library), up for the
#              run and taken down at its end.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [collbench run options...]" >&2; exit 2; }
out=$1
shift
build=${BUILD:-build}
[[ $build == /* ]] || build=$PWD/$build
collbench=$build/harness/collbench
mpiexec=${MPIEXEC:-$build/mpiexec}
np=${NP:-2}
rounds=${ROUNDS:-3}
[ -x "$collbench" ] || { echo "$0: no $collbench; build first (scripts/setup.sh)" >&2; exit 2; }
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "$0: $out already holds results; give a new directory (nothing measured is overwritten)" >&2
  exit 2
fi
cluster=tune
# shellcheck source=scripts/emulated_runs.sh
source scripts/emulated_runs.sh
if [ -n "${HOSTS:-}" ]; then
  emulated_preflight "$collbench" "$cluster"
  np=$HOSTS
fi
comm_sizes=$(for k in ${COMM_SIZES:-$np}; do
  [[ $k =~ ^[0-9]+$ ]] && [ "$k" -ge 2 ] && [ "$k" -le "$np" ] ||
    { echo "$0: COMM_SIZES: '$k' is not a communicator size from 2 to the job's $np ranks" >&2; exit 2; }
  echo "$k"
done | sort -nu) || exit 2
# JUDGE_SIZES=N: where the tuned library runs alone, its judging launches and the default's
# cover N sizes each (scripts/size_slices.py), so that a pair of launches is short enough
# to run alike (the CPU placement above) more often than two launches of the whole sweep.
judge_slices=() sweep_rest=()
if [ -n "${JUDGE_SIZES:-}" ]; then
  [[ $JUDGE_SIZES =~ ^[1-9][0-9]*$ ]] || { echo "$0: JUDGE_SIZES: '$JUDGE_SIZES' is not a number of sizes" >&2; exit 2; }
  slices=$(${PYTHON:-python3} scripts/size_slices.py slices "$JUDGE_SIZES" "$@" 2>&1) ||
    { echo "$0: JUDGE_SIZES: ${slices#size_slices.py: }" >&2; exit 2; }
  mapfile -t judge_slices <<<"$slices"
  mapfile -t sweep_rest < <(${PYTHON:-python3} scripts/size_slices.py rest "$@")
fi
# Open MPI switches its algorithms in a run only with this set at launch (MPI_T cannot).
export OMPI_MCA_coll_tuned_use_dynamic_rules=1
# shellcheck disable=SC2086
launch() { "$mpiexec" ${MPIEXEC_ARGS:-} "$@"; }
# collectives_with FIELD: the collectives whose library algorithms have FIELD in `list
# --json` (switchable: switched inside one run; segmented: with a segment of their own).
collectives_with() {
  launch -n 1 "$collbench" list --json </dev/null | ${PYTHON:-python3} -c '
import json, sys
print(" ".join(c for c, a in json.load(sys.stdin)["mpi_library"]["algorithms"].items() if a.get(sys.argv[1])))' "$1"
}
# Every collective the library's tuning file can choose by size, unless COLLECTIVES says.
collectives=${COLLECTIVES:-$(collectives_with tunable)}
[ -n "$collectives" ] || { echo "$0: this MPI library has no tuning file collbench writes" >&2; exit 2; }
known=$(collectives_with algorithms)
for coll in $collectives; do
  [[ " $known " == *" $coll "* ]] || { echo "$0: COLLECTIVES: unknown collective '$coll'; valid: $known" >&2; exit 2; }
done
# Segments are switched inside a run too: beside every algorithm that takes one, in every
# launch of its collective. A collective named in COLLECTIVES must have such an algorithm;
# by default those that have none run without.
declare -A segments_of=()
if [ -n "${SEGMENTS:-}" ]; then
  segmented=$(collectives_with segmented)
  for coll in $collectives; do
    if [[ " $segmented " == *" $coll "* ]]; then
      segments_of[$coll]=$SEGMENTS
    elif [ -n "${COLLECTIVES:-}" ]; then
      echo "$0: SEGMENTS: none of $coll's algorithms is switched with a segment of its own here" >&2
      exit 2
    fi
  done
  [ "${#segments_of[@]}" -gt 0 ] ||
    { echo "$0: SEGMENTS: no algorithm of $collectives is switched with a segment of its own here" >&2; exit 2; }
fi
# segments_for COLLECTIVE: its run options for SEGMENTS, in the array `segments`.
segments_for() { segments=(); [ -z "${segments_of[$1]:-}" ] || segments=(--mpi-segments "${segments_of[$1]}"); }
mkdir -p "$out/evaluate"
scripts/machine_facts.sh >"$out/machine.txt"
handoff=$build/harness/collbench-core-handoff
# placed BASE COMMAND...: COMMAND between two handoff measurements, BASE.cpus-{before,after}.txt
# (one host only: emulated hosts' ranks wait on their links).
placed() {
  local base=$1
  shift
  if [ -n "${HOSTS:-}" ] || [ ! -x "$handoff" ]; then
    "$@"
    return
  fi
  placed_between "$base.cpus-before.txt" "$base.cpus-after.txt" "$@"
}
# launch_all K COMMAND...: collbench on the first K ranks of the job (on the emulated hosts
# where asked).
launch_all() {
  local k=$1
  shift
  if [ -n "${HOSTS:-}" ]; then
    scripts/emulate_cluster.sh mpiexec --name "$cluster" --ranks-per-host 1 --ranks "$k" -- "$@"
  else
    launch -n "$k" "$@"
  fi
}
# The files of communicator size K: the job's own as before, a smaller one's apart.
suffix() { [ "$1" = "$np" ] || echo "-$1ranks"; }
subdir() { [ "$1" = "$np" ] || echo "/ranks-$1"; }
if [ -n "${HOSTS:-}" ]; then
  scripts/emulate_cluster.sh up --name "$cluster" --hosts "$HOSTS" --profile "${PROFILE:?PROFILE with HOSTS}" |
    tee "$out/emulator.txt"
fi
switchable=$(collectives_with switchable)
switches() { [[ " $switchable " == *" $1 "* ]]; }
# Per collective, collbench's own first algorithm of it, which no tuning file changes: a
# yardstick where the tuned library runs alone.
declare -A yardstick
while read -r coll name; do yardstick[$coll]=$name; done < <(launch -n 1 "$collbench" list --json </dev/null |
  ${PYTHON:-python3} -c '
import json, sys
for coll, algorithms in json.load(sys.stdin)["collectives"].items():
    own = [a["name"] for a in algorithms if a["name"] not in ("mpi", "nccl")]
    if own:
        print(coll, own[0])')
# measure COLLECTIVE DIR K [run options]: the default and every forced algorithm of one
# collective on K ranks into measured_json's file; one launch where the library switches
# them inside it (interleaved, so the launch's fast or slow mode is the same for all),
# else one launch each (scripts/mpi_algorithms.sh).
measure() {
  local coll=$1 dir=$2 k=$3
  shift 3
  if switches "$coll"; then
    mkdir -p "$dir"
    segments_for "$coll"
    placed "$dir/$coll$(suffix "$k")" launch_all "$k" "$collbench" run -c "$coll" -a 'mpi,mpi[all]' \
      "${segments[@]}" --csv "$dir/$coll$(suffix "$k").csv" "$@" \
      </dev/null || echo "$0: the run of $coll on $k ranks in $dir failed (kept what it measured)" >&2
  elif [ -n "${HOSTS:-}" ]; then
    echo "$0: $coll: the library cannot switch its algorithms in a run, which emulated hosts need here" >&2
    exit 2
  else
    REFERENCE_ALGORITHMS=mpi NP=$k BUILD=$build MPIEXEC=$mpiexec scripts/mpi_algorithms.sh "$coll" \
      "$dir$(subdir "$k")" "$@"
  fi
}
measured_json() {  # COLLECTIVE DIR K
  if switches "$1"; then echo "$2/$1$(suffix "$3").json"; else echo "$2$(subdir "$3")/$1.json"; fi
}

measured=()
for r in $(seq 1 "${MEASURE_ROUNDS:-3}"); do
  echo "== measure, round $r"
  for coll in $collectives; do
    for k in $comm_sizes; do
      measure "$coll" "$out/measure/round-$r" "$k" "$@"
      measured+=("$(measured_json "$coll" "$out/measure/round-$r" "$k")")
    done
  done
done
file=$(realpath -m "$out")/tuning-file
launch -n 1 "$collbench" tune "${measured[@]}" --out "$file" | tee "$out/tune.txt"
launch -n 1 "$collbench" tune --check "$file"
mapfile -t settings < <(launch -n 1 "$collbench" list --json | ${PYTHON:-python3} -c '
import json, sys
for s in json.load(sys.stdin)["mpi_library"]["tuning_file_settings"]:
    print(s.replace("{}", sys.argv[1]))' "$file")
# ...and those it still switches beside the file (Open MPI 4.1 lets the file win).
switchable_tuned=$(export "${settings[@]}" && collectives_with switchable)

# default_launch COLLECTIVE K DIR TAG YARDSTICK [run options]: the default beside every
# forced algorithm (and the yardstick) into DIR/parts/COLLECTIVE-default[-Kranks]TAG.csv.
default_launch() {
  local coll=$1 k=$2 dir=$3 tag=$4 yard=$5 base
  shift 5
  base=$dir/parts/$coll-default$(suffix "$k")$tag
  segments_for "$coll"
  placed "$base" launch_all "$k" "$collbench" run -c "$coll" -a "mpi,mpi[all]$yard" "${segments[@]}" \
    --csv "$base.csv" "$@" </dev/null ||
    echo "$0: the default run of $coll on $k ranks in $dir$tag failed (kept what it measured)" >&2
}
# tuned_launch COLLECTIVE K DIR TAG ALGORITHMS [run options]: the library with the file.
tuned_launch() {
  local coll=$1 k=$2 dir=$3 tag=$4 algorithms=$5 base
  shift 5
  base=$dir/parts/$coll-tuned$(suffix "$k")$tag
  (export "${settings[@]}" &&
    placed "$base" launch_all "$k" "$collbench" run -c "$coll" -a "$algorithms" --csv "$base.csv" "$@" </dev/null) ||
    echo "$0: the tuned run of $coll on $k ranks in $dir$tag failed (kept what it measured)" >&2
}

for r in $(seq 1 "$rounds"); do
  dir=$out/evaluate/round-$r
  echo "== evaluate, round $r of $rounds"
  for coll in $collectives; do
    # Where the library switches algorithms inside a run, the default runs beside every
    # algorithm, and so does the tuned library where it switches them beside the file
    # (forcing one overrides the file), so each is judged against its own launch's; where
    # the tuned library runs alone, a yardstick runs in both.
    mkdir -p "$dir/parts"
    algorithms=mpi yard=
    if [[ " $switchable_tuned " == *" $coll "* ]]; then
      algorithms='mpi,mpi[all]'
    elif switches "$coll"; then
      yard=,${yardstick[$coll]}
    fi
    for k in $comm_sizes; do
      if [ -n "$yard" ] && [ "${#judge_slices[@]}" -gt 0 ]; then
        # The tuned library alone: short launch pairs, JUDGE_SIZES sizes each.
        i=0
        for slice in "${judge_slices[@]}"; do
          i=$((i + 1))
          read -r lo hi <<<"$slice"
          default_launch "$coll" "$k" "$dir" "-slice$i" "$yard" "${sweep_rest[@]}" -b "$lo" -e "$hi"
          tuned_launch "$coll" "$k" "$dir" "-slice$i" "$algorithms$yard" "${sweep_rest[@]}" -b "$lo" -e "$hi"
        done
        continue
      fi
      if switches "$coll"; then
        default_launch "$coll" "$k" "$dir" "" "$yard" "$@"
      else
        measure "$coll" "$dir" "$k" "$@"
      fi
      tuned_launch "$coll" "$k" "$dir" "" "$algorithms$yard" "$@"
    done
  done
done
${PYTHON:-python3} scripts/summarize_tune.py "$out" >"$out/SUMMARY.md"
echo "tune_library: wrote $out (SUMMARY.md)"
