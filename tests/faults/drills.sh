#!/usr/bin/env bash
# Runs fault drills (scripts/fault_drills.sh --quick) on three emulated hosts and fails
# when any drill's verdict does; skips (77) where emulated hosts cannot be made here.
# usage: drills.sh BUILD_DIR DRILL...
set -u
build=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../cli/emulator_probe.sh"
why=$(emulator_unusable cbfdp)
[ -z "$why" ] || { echo "SKIP: $why"; exit 77; }
command -v mpiexec.mpich >/dev/null || { echo "SKIP: the drills launch through MPICH's Hydra (mpiexec.mpich)"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The Open MPI tree beside this one, as scripts/setup.sh --mpi all builds it (its drills
# are skipped where it is not built).
BUILD=$build BUILD_OPENMPI=${BUILD_OPENMPI:-$(dirname "$build")/build-openmpi} \
  "$here/../../scripts/fault_drills.sh" --quick --out "$out" "$@"
rc=$?
if [ "$rc" != 0 ]; then
  cat "$out/drills.jsonl" 2>/dev/null
  # The runs that failed, as they ended: their output is gone with $out once this exits.
  python3 - "$out/drills.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    log = r.get("facts", {}).get("log")
    if r.get("verdict", "").startswith("fail") and log:
        print(f"== last lines of {log}")
        print("".join(open(log, errors="replace").readlines()[-30:]), end="")
PY
  for f in "$out"/raw/slurm-log/*; do [ -f "$f" ] && { echo "== last lines of $f"; tail -n 40 "$f"; }; done
fi
exit "$rc"
