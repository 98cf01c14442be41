#!/usr/bin/env bash
# Sweeps one collective with every reference algorithm and the MPI library's automatic
# choice, then once per algorithm of the library's own, forced through the library's
# knobs, and merges everything so each forced algorithm is its own baseline row, named
# by the library (mpi[ring], mpi[recursive_doubling], ...). Which algorithms the
# library has and how to force them comes from the library itself (`collbench list
# --json`, from MPI_T where the library names them):
#   MPICH:    MPIR_CVAR_<COLL>_INTRA_ALGORITHM=ALG with MPIR_CVAR_COLLECTIVE_FALLBACK=error,
#             so an algorithm MPICH cannot use fails loudly instead of silently running
#             another, and MPIR_CVAR_DEVICE_COLLECTIVES=none, so the ch4 device cannot
#             route the call around it.
#   Open MPI: OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_<coll>_algorithm=ALG
#             with OMPI_MCA_coll=^han, so coll/han cannot take the call from coll/tuned.
# collbench refuses (exit 2) a forced choice the library would ignore or reject; such a
# choice is reported at the end and has no rows.
#
# Usage: scripts/mpi_algorithms.sh COLLECTIVE OUTDIR [collbench run options...]
# Environment: BUILD (build tree, default build; its generated BUILD/mpiexec is the
#              launcher unless MPIEXEC is given), NP (ranks, default 2), MPIEXEC_ARGS,
#              ALGS (the library's algorithms to force; default: all it offers),
#              REFERENCE=0 (reuse OUTDIR/parts/COLLECTIVE-reference.csv instead of rerunning it),
#              REFERENCE_ALGORITHMS (the reference run's -a; default: every reference algorithm
#              and mpi; "mpi": the library's automatic choice alone).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
if [ $# -lt 2 ]; then
  echo "usage: $0 COLLECTIVE OUTDIR [collbench run options...]" >&2
  exit 2
fi
coll=$1 out=$2
shift 2
build=${BUILD:-build}
collbench=$build/harness/collbench
mpiexec=${MPIEXEC:-$build/mpiexec}
[ -x "$collbench" ] || { echo "$0: $collbench not built; run scripts/setup.sh first" >&2; exit 2; }
np=${NP:-2}
# shellcheck disable=SC2086
launch() { "$mpiexec" ${MPIEXEC_ARGS:-} "$@"; }

# The library's algorithms for this collective and the settings that force one ({} = the name).
choices=$(launch -n 1 "$collbench" list --json | ${PYTHON:-python3} -c '
import json, sys
coll = sys.argv[1]
lib = json.load(sys.stdin)["mpi_library"]
if coll not in lib["algorithms"]:
    sys.exit(f"unknown collective {coll!r}; valid: " + ", ".join(lib["algorithms"]))
c = lib["algorithms"][coll]
print(lib["summary"]); print(" ".join(c["settings"])); print(" ".join(c["algorithms"]))' "$coll") || exit 2
{ read -r library; read -r settings; read -r all; } <<<"$choices"
[ -n "$all" ] || echo "$0: collbench cannot force $library's algorithms; only its automatic choice is measured" >&2
algs=${ALGS:-$all}
mkdir -p "$out/parts"
run() { launch -n "$np" "$collbench" run -c "$coll" "$@"; }

reference="$out/parts/$coll-reference.csv"
if [ "${REFERENCE:-1}" = 0 ] && [ -s "$reference" ]; then
  echo "== $coll: reusing $reference"
else
  echo "== $coll: reference algorithms and $library's automatic choice"
  run ${REFERENCE_ALGORITHMS:+-a "$REFERENCE_ALGORITHMS"} --csv "$reference" --overwrite "$@" ||
    echo "$0: the reference run failed (kept what it measured)" >&2
fi
failed=()
for alg in $algs; do
  forced=()
  for s in $settings; do forced+=("${s//\{\}/$alg}"); done
  echo "== $coll: $library forced to $alg (${forced[*]})"
  part="$out/parts/$coll-mpi-$alg.csv"
  rm -f "$part" "${part%.csv}.json"
  if ! (export "${forced[@]}"; run -a mpi --csv "$part" --overwrite "$@"); then
    failed+=("$alg")
    [ -s "$part" ] || rm -f "$part" "${part%.csv}.json"
  fi
done
# Merge every part in the folder, so a rerun of some algorithms (ALGS=...) keeps the others.
shopt -s nullglob
others=("$out/parts/$coll-mpi-"*.csv)
${PYTHON:-python3} scripts/merge_results.py "$out/$coll" "$reference" "${others[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "$0: $library refused or failed with: ${failed[*]} (see the output above); their rows are missing or partial" >&2
fi
