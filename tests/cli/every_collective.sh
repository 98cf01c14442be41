#!/usr/bin/env bash
# A short validated sweep of every collective and every algorithm, in and out of place,
# at a non-zero root, with checked timed calls: each must exit 0 (no wrong results).
# usage: every_collective.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
status=0
for c in allreduce broadcast reduce gather allgather reduce_scatter alltoall alltoallv; do
  for place in "" --in-place; do
    root=1
    # MPICH 4.0.x crashes in an in-place reduce at a non-zero root (collbench refuses it).
    [ "$c$place" = reduce--in-place ] && root=0
    out=$("$mpiexec" -n 2 "$collbench" run -c "$c" $place -r "$root" -b 8 -e 4K -f 8 -n 4 -w 1 --check-every 2 \
      --csv /dev/null --json /dev/null 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "FAIL: $c root $root ${place:-out of place}: exit $rc"
      grep "collbench: error" <<<"$out"
      status=1
    else
      echo "ok: $c root $root ${place:-out of place}"
    fi
  done
done
# alltoallv with skewed counts (not symmetric, so out of place only).
for counts in zipf:1.5 hot:1:1; do
  if "$mpiexec" -n 2 "$collbench" run -c alltoallv --counts "$counts" -b 8 -e 4K -f 8 -n 4 -w 1 --check-every 2 \
    --csv /dev/null --json /dev/null >/dev/null 2>&1; then
    echo "ok: alltoallv --counts $counts"
  else
    echo "FAIL: alltoallv --counts $counts"
    status=1
  fi
done
exit $status
