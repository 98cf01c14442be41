# shellcheck shell=bash
# Sourced by CLI tests that work in a scratch directory: `dir` (removed at exit, and the
# working directory), `fail MESSAGE`, `refused WHAT PATTERN COMMAND...` (the command exits
# 2 with one message matching PATTERN), and list.json (`collbench list --json`).
# Needs `mpiexec` and `collbench` set.
: "${mpiexec:?}" "${collbench:?}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$dir" || exit 1
"$mpiexec" -n 1 "$collbench" list --json >list.json </dev/null || fail "list --json"
refused() {
  local what=$1 pattern=$2
  shift 2
  "$@" >out 2>&1 </dev/null
  local rc=$?
  [ "$rc" = 2 ] || { cat out; fail "$what: exit $rc, not 2"; }
  grep -q "$pattern" out || { cat out; fail "$what: message"; }
  echo "ok: $what refused"
}
