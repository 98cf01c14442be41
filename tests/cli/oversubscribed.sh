#!/usr/bin/env bash
# More ranks than cores on one host: `run` must say so in its header and metadata.
# Skipped (77) where that would take more than a few ranks.
# usage: oversubscribed.sh MPIEXEC COLLBENCH
set -eu
mpiexec=$1 collbench=$2
cores=$(nproc --all)
[ "$cores" -le 4 ] || { echo "SKIP: $cores cores"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ranks=$((cores + 1))
out=$("$mpiexec" -n "$ranks" "$collbench" run -a ring -b 8 -e 8 -w 1 -n 2 --csv "$dir/r.csv")
echo "$out" | head -4
grep -q "^# WARNING: host .* runs $ranks ranks on $cores cores (oversubscribed" <<<"$out" || { echo "FAIL: no warning"; exit 1; }
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['metadata']['oversubscription']; assert m['oversubscribed'], m" \
  "$dir/r.json"
out=$("$mpiexec" -n 1 "$collbench" run -a ring -b 8 -e 8 -w 1 -n 2 --csv "$dir/one.csv")
! grep -q "WARNING" <<<"$out" || { echo "FAIL: one rank is not oversubscribed"; exit 1; }
echo PASS
