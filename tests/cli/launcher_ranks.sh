# Sourced by tests that act on a running job's rank processes. Needs $launcher (the
# launcher's PID) and $dir (holding the run's r.csv and err); sets $ranks.
# The ranks: the launcher's descendants running collbench (Hydra starts them through a
# proxy, Open MPI's mpirun directly).
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
rank_pids() { for p in $(descendants "$launcher"); do [ "$(ps -o comm= -p "$p")" = collbench ] && echo "$p"; done | sort -n; }
# wait_for_ranks N: until N ranks run and the first rows are written (40 s at most: a
# loaded machine starts slowly).
wait_for_ranks() {
  for _ in $(seq 400); do
    ranks=$(rank_pids)
    [ "$(wc -w <<<"$ranks")" = "$1" ] && [ -f "$dir/r.csv" ] && [ "$(wc -l <"$dir/r.csv")" -ge 3 ] && return 0
    sleep 0.1
  done
  return 1
}
# ended_by_watchdog SECONDS: waits for the launcher to end (SECONDS at most), prints its
# status and the run's stderr, and fails (fail()) unless it exited with the watchdog's 4.
ended_by_watchdog() {
  local start rc
  start=$(date +%s%N)
  for _ in $(seq $(($1 * 10))); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$launcher" 2>/dev/null && fail "the run did not end within $1 s"
  wait "$launcher"
  rc=$?
  echo "exit status $rc, $((($(date +%s%N) - start) / 1000000)) ms after the stop"
  cat "$dir/err"
  [ "$rc" = 4 ] || fail "exit status $rc, want 4 (the watchdog's)"
}
