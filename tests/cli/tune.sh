#!/usr/bin/env bash
# collbench tune under whichever MPI library runs it: the library's default and one of its
# algorithms forced (as scripts/mpi_algorithms.sh measures them) make a tuning file that
# `tune --check` accepts and the library then runs with (correct results, no abort);
# a damaged file, a result of another library, a CSV and an existing --out are refused,
# and so is a run with a file the library cannot read, would misread or ignores.
# usage: tune.sh MPIEXEC COLLBENCH
set -u
mpiexec=$1 collbench=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cli/cli_scratch.sh
source "$here/cli_scratch.sh"
read -r family forcing tuning algorithm < <(python3 -c '
import json, sys
lib = json.load(open(sys.argv[1]))["mpi_library"]
a = lib["algorithms"]["allreduce"]
alg = next((x for x in a["algorithms"] if x in ("recursive_doubling", "ring")), "")
print(lib["summary"].split()[0], ",".join(a["settings"]), ",".join(lib["tuning_file_settings"]) or "-", alg or "-")' list.json)
if [ "$algorithm" = - ] || [ "$tuning" = - ]; then
  echo "skip: collbench cannot tune this library ($family)"
  exit 77
fi
with() {  # with SETTINGS VALUE COMMAND...: run with the library's settings, {} = VALUE
  local settings=$1 value=$2 env_args=() s
  shift 2
  IFS=, read -ra parts <<<"$settings"
  for s in "${parts[@]}"; do env_args+=("${s//\{\}/$value}"); done
  env "${env_args[@]}" "$@"
}
sweep=(run -c allreduce -a mpi -b 8 -e 4K -f 8 -n 20 -w 2 --rounds 2)
"$mpiexec" -n 2 "$collbench" "${sweep[@]}" --json default.json --csv default.csv >/dev/null || fail "default run"
with "$forcing" "$algorithm" "$mpiexec" -n 2 "$collbench" "${sweep[@]}" --json forced.json --csv forced.csv >/dev/null ||
  fail "forced run"

# One launch round: the default and the forced algorithm in one file, as mpi_algorithms.sh merges them.
python3 "$here/../../scripts/merge_results.py" round default.csv forced.csv >/dev/null || fail "merge"
"$mpiexec" -n 1 "$collbench" tune round.json --out tuned >tune.out 2>&1 || { cat tune.out; fail "tune"; }
grep -q "allreduce, 2 ranks, 8 B: default" tune.out || { cat tune.out; fail "tune printed no choice per size"; }
grep -q "use it with:" tune.out || fail "tune did not say how to use the file"
"$mpiexec" -n 1 "$collbench" tune --check tuned || fail "tune --check refused tune's own file"
# The library reads it and runs every collective correctly with it; the rows say so
# (mpi[tuned]) and the metadata names the file and its digest.
with "$tuning" "$dir/tuned" "$mpiexec" -n 2 "$collbench" run -c allreduce -a mpi,ring -b 4 -e 64K -f 16 -n 5 -w 1 \
  --csv tuned-run.csv --json tuned-run.json >run.out 2>&1 || { cat run.out; fail "a run with the tuned file"; }
python3 - tuned-run.csv tuned-run.json "$dir/tuned" <<'PY' || exit 1
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["errors"] == "0" for r in rows), "wrong results with the tuned file"
assert {r["algorithm"] for r in rows} == {"mpi[tuned]", "ring"}, {r["algorithm"] for r in rows}
t = json.load(open(sys.argv[2]))["metadata"]["mpi"]["tuning_file"]
assert t["path"] == sys.argv[3] and len(t["fnv1a"]) == 16 and t["bytes"] > 0, t
PY
with "$tuning" "$dir/tuned" "$mpiexec" -n 2 "$collbench" run -c broadcast -a mpi -b 4 -e 4K -f 16 -n 5 -w 1 \
  --csv /dev/null --json /dev/null >/dev/null 2>&1 || fail "an untuned collective with the tuned file"

# Refusals: one message, exit 2, nothing written over.
refused() {  # refused PATTERN ARGS... (the collbench command only, unlike cli_scratch.sh's)
  local pattern=$1
  shift
  "$here/expect_error.sh" "$pattern" "$mpiexec" -n 1 "$collbench" "$@" || fail "not refused: $*"
}
refused_run() {  # refused_run PATTERN FILE [VAR=VALUE...]: a run with the library told to read FILE
  local pattern=$1 file=$2
  shift 2
  with "$tuning" "$file" "$here/expect_error.sh" "$pattern" env "$@" "$mpiexec" -n 2 "$collbench" run -b 8 -e 8 \
    --csv /dev/null --json /dev/null || fail "a run with $file was not refused"
}
refused_run "cannot read the tuning file $dir/nowhere" "$dir/nowhere"
cp tuned before
refused "exists" tune round.json --out tuned
refused "given twice" tune round.json round.json --out other
cmp -s tuned before || fail "an existing --out was changed"
refused "JSON results" tune default.csv --out other
python3 - default.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for run in d.get("runs", [d.get("metadata", {})]):
    run["mpi"]["library"] = "Another MPI 9.9"
json.dump(d, open("foreign.json", "w"))
PY
refused "measured with Another MPI 9.9" tune foreign.json round.json --out other
[ ! -e other ] || fail "a refused tune left a file"
if [ "$family" = MPICH ]; then
  python3 - tuned <<'PY'
import json, sys
text = open(sys.argv[1]).read()
body = json.loads(text[text.index("*/") + 2:])
missing = dict(body); missing.pop("collective=barrier")
json.dump(missing, open("missing.json", "w"))
text = text.replace("MPIR_Allreduce_intra_recursive_doubling", "MPIR_Allreduce_intra_bogus")
open("bogus.json", "w").write(text)
PY
  refused "collective=barrier: missing" tune --check missing.json
  refused "unknown algorithm MPIR_Allreduce_intra_bogus" tune --check bogus.json
  refused_run "bogus.json .* would not be read as written by MPICH" "$dir/bogus.json"
else
  sed 's/^\( *\)0 0 0 0/\116 0 0 0/' tuned >shifted.rules
  refused "the first message rule must be for size 0" tune --check shifted.rules
  sed '0,/^\( *\)0 0 0 0/s//\10 99 0 0/' tuned >bogus.rules
  refused "algorithm 99 does not exist" tune --check bogus.rules
  refused_run "shifted.rules .* would not be read as written by Open MPI" "$dir/shifted.rules"
  refused_run "Open MPI ignores coll_tuned_dynamic_rules_filename unless" "$dir/tuned" \
    OMPI_MCA_coll_tuned_use_dynamic_rules=0
fi
echo PASS
