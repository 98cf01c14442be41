# Sourced by tests that act on a running job's rank processes. Needs $launcher (the
# launcher's PID) and $dir (holding the run's r.csv); sets $ranks.
# The ranks: the launcher's descendants running collbench (Hydra starts them through a
# proxy, Open MPI's mpirun directly).
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
rank_pids() { for p in $(descendants "$launcher"); do [ "$(ps -o comm= -p "$p")" = collbench ] && echo "$p"; done | sort -n; }
# wait_for_ranks N: until N ranks run and the first rows are written (10 s at most).
wait_for_ranks() {
  for _ in $(seq 100); do
    ranks=$(rank_pids)
    [ "$(wc -w <<<"$ranks")" = "$1" ] && [ -f "$dir/r.csv" ] && [ "$(wc -l <"$dir/r.csv")" -ge 3 ] && return 0
    sleep 0.1
  done
  return 1
}
