# Sourced by the scripts that measure on emulated hosts (measure_interconnects.sh,
# validate_model.sh, measure_alltoall.sh, measure_finalize.sh,
# measure_exchange_modes.sh), and for `placed_between` by those that record where a
# launch's CPUs were (measure_shm.sh, measure_core_placement.sh, tune_library.sh), as
# the calling script's own lines; messages name that script.
#
# `emulated_preflight BIN CLUSTER`: refuses (exit 2) without root, without a built
# collbench at BIN, or with the emulated cluster CLUSTER already up; from then on the
# cluster is taken down however the script exits.
emulated_preflight() {  # BIN CLUSTER
  local me bin=$1 cluster=$2
  me=$(basename "$0" .sh)
  [ "$(id -u)" = 0 ] || { echo "$me: needs root (emulated hosts)" >&2; exit 2; }
  [ -x "$bin" ] || { echo "$me: no $bin; build first (scripts/setup.sh)" >&2; exit 2; }
  scripts/emulate_cluster.sh status --name "$cluster" | grep -q ': down$' ||
    { echo "$me: emulated cluster '$cluster' is up; run scripts/emulate_cluster.sh down --name $cluster" >&2; exit 2; }
  # shellcheck disable=SC2064  # the name now, not at exit
  trap "scripts/emulate_cluster.sh down --name '$cluster' >/dev/null 2>&1 || true" EXIT
}

# `keep_earlier_results OUT`: refuses (exit 2) where OUT holds a finished measurement
# (its SUMMARY.md), unless OVERWRITE is set: nothing already measured is lost.
keep_earlier_results() {  # OUT
  [ -e "$1/SUMMARY.md" ] && [ -z "${OVERWRITE:-}" ] || return 0
  echo "$(basename "$0" .sh): $1 holds results already; set OVERWRITE=1 or give another directory" >&2
  exit 2
}

# `fresh_raw OUT`: keep_earlier_results, then an empty OUT/raw with the machine's facts
# (raw/machine.txt); sets `raw`.
fresh_raw() {  # OUT
  keep_earlier_results "$1"
  raw=$1/raw
  rm -rf "$raw"
  mkdir -p "$raw"
  scripts/machine_facts.sh >"$raw/machine.txt"
}

# `checked JSON COMMAND...` runs a collbench command writing JSON; anything but a clean
# exit stops the script. (Runs across emulated hosts once hung in MPI_Finalize over UCX's
# TCP transport and were accepted when their JSON was complete; collbench now ends MPI
# so that they exit cleanly: collectives/transport/mpi/clean_finalize.hpp.)
checked() {  # JSON COMMAND...
  local json=$1
  shift
  "$@" && return 0
  local rc=$?
  echo "$(basename "$0" .sh): $json: the run failed (exit $rc)" >&2
  exit 1
}

# `placed_between BEFORE AFTER COMMAND...` runs COMMAND between two measurements of
# whether CPUs 0 and 1 share a cache ($handoff, collbench-core-handoff; results/core-placement:
# shared memory runs in two modes here), written to the files BEFORE and AFTER. Both or
# neither are kept (a placement needs the two); returns COMMAND's status.
placed_between() {  # BEFORE AFTER COMMAND...
  local before=$1 after=$2 rc=0
  shift 2
  "${handoff:?placed_between needs \$handoff}" 0 1 >"$before" 2>/dev/null || rm -f "$before"
  "$@" || rc=$?
  "$handoff" 0 1 >"$after" 2>/dev/null || rm -f "$after"
  if [ ! -e "$before" ] || [ ! -e "$after" ]; then rm -f "$before" "$after"; fi
  return "$rc"
}
