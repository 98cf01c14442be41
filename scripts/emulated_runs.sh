# Sourced by the measurement scripts. `checked JSON COMMAND...` runs a collbench
# command. Over UCX's TCP transport a run may exit non-zero only because MPI_Finalize
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
    { echo "$(basename "$0"): $json: the run failed (exit $rc)" >&2; exit 1; }
  echo "$json: exit $rc after complete results" >>"$raw/finalize_hangs.txt"
}
