# Sourced by the scripts that measure on emulated hosts (measure_interconnects.sh,
# validate_model.sh), as the calling script's own lines; messages name that script.
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

# `checked JSON COMMAND...` runs a collbench command. Over UCX's TCP transport a run may exit non-zero only because MPI_Finalize
# hung after every result was written (openucx/ucx#8738; collbench ends it after 20 s,
# and Hydra may then report an error): such a run counts when its JSON is complete
# with no wrong results, and is listed in $raw/finalize_hangs.txt. Anything else stops
# the script. Needs $raw (the run's raw/ directory).
checked() {  # JSON COMMAND...
  local json=$1
  shift
  "$@" && return 0
  local rc=$?
  ${PYTHON:-python3} -c 'import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(0 if d["completed"] and all((r.get("errors") or 0) <= 0 for r in d["rows"]) else 1)' "$json" 2>/dev/null ||
    { echo "$(basename "$0" .sh): $json: the run failed (exit $rc)" >&2; exit 1; }
  echo "$json: exit $rc after complete results" >>"$raw/finalize_hangs.txt"
}
