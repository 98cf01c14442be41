#!/usr/bin/env bash
# Sweeps one collective with every reference algorithm and MPICH's automatic choice,
# then once per MPICH algorithm forced through MPIR_CVAR_<COLL>_INTRA_ALGORITHM, and
# merges everything so each forced algorithm is its own baseline row (mpi[ring], ...).
#
# Usage: scripts/mpich_algorithms.sh COLLECTIVE OUTDIR [collbench run options...]
# Environment: NP (ranks, default 2), MPIEXEC (default mpiexec), MPIEXEC_ARGS,
#              ALGS (MPICH algorithms to force; default: all that MPICH 4.0 offers),
#              REFERENCE=0 (reuse OUTDIR/parts/COLLECTIVE-reference.csv instead of rerunning it).
#
# Forced runs set MPIR_CVAR_COLLECTIVE_FALLBACK=error, so an algorithm MPICH cannot
# use fails loudly instead of silently running another one, and
# MPIR_CVAR_DEVICE_COLLECTIVES=none, so the ch4 device cannot route the call around
# the forced MPIR algorithm. A choice that fails is reported and skipped; the rest go on.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: $0 COLLECTIVE OUTDIR [collbench run options...]" >&2
  exit 2
fi
coll=$1 out=$2
shift 2
case "$coll" in
  allreduce) var=MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM; all="recursive_doubling reduce_scatter_allgather smp nb" ;;
  broadcast) var=MPIR_CVAR_BCAST_INTRA_ALGORITHM
             all="binomial scatter_recursive_doubling_allgather scatter_ring_allgather smp nb" ;;
  reduce) var=MPIR_CVAR_REDUCE_INTRA_ALGORITHM; all="binomial reduce_scatter_gather smp nb" ;;
  gather) var=MPIR_CVAR_GATHER_INTRA_ALGORITHM; all="binomial nb" ;;
  allgather) var=MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM; all="brucks recursive_doubling ring nb" ;;
  reduce_scatter) var=MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM
                  all="noncommutative recursive_doubling pairwise recursive_halving nb" ;;
  *) echo "$0: unknown collective '$coll'; valid: allreduce, broadcast, reduce, gather, allgather, reduce_scatter" >&2
     exit 2 ;;
esac
algs=${ALGS:-$all}
np=${NP:-2}
collbench=build/harness/collbench
[ -x "$collbench" ] || { echo "$0: $collbench not built; run scripts/setup.sh first" >&2; exit 2; }
mkdir -p "$out/parts"
# shellcheck disable=SC2086
run() { ${MPIEXEC:-mpiexec} ${MPIEXEC_ARGS:-} -n "$np" "$collbench" run -c "$coll" "$@"; }

reference="$out/parts/$coll-reference.csv"
if [ "${REFERENCE:-1}" = 0 ] && [ -s "$reference" ]; then
  echo "== $coll: reusing $reference"
else
  echo "== $coll: reference algorithms and MPICH's automatic choice"
  run --csv "$reference" --overwrite "$@" || echo "$0: the reference run failed (kept what it measured)" >&2
fi
failed=()
for alg in $algs; do
  echo "== $coll: MPICH forced to $alg ($var=$alg)"
  part="$out/parts/$coll-mpi-$alg.csv"
  rm -f "$part"
  if ! (export "$var=$alg" MPIR_CVAR_COLLECTIVE_FALLBACK=error MPIR_CVAR_DEVICE_COLLECTIVES=none
        run -a mpi --csv "$part" --overwrite "$@"); then
    failed+=("$alg")
    [ -s "$part" ] || rm -f "$part" "${part%.csv}.json"
  fi
done
# Merge every part in the folder, so a rerun of some algorithms (ALGS=...) keeps the others.
shopt -s nullglob
others=("$out/parts/$coll-mpi-"*.csv)
${PYTHON:-python3} scripts/merge_results.py "$out/$coll" "$reference" "${others[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "$0: MPICH refused or failed with: ${failed[*]} (see the output above); their rows are missing or partial" >&2
fi
