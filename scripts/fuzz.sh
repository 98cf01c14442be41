#!/usr/bin/env bash
# Fuzzes every reader of a user's input (tests/fuzz/README.md): builds the targets with
# Debian's clang-16 (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer) in
# build-fuzz/, then runs each until RUNS executions (a million) or MAX_SECONDS (600),
# one after another. New inputs go to a scratch corpus under build-fuzz/ (the committed
# seeds are read, never written); a crash, leak, sanitizer report or timeout stops that
# target and its input is left in build-fuzz/findings/TARGET/. Ends with one line per
# target: executions, seconds, findings.
#   scripts/fuzz.sh [TARGET...]        (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-1000000}
max_seconds=${MAX_SECONDS:-600}
packages=(clang-16 libclang-rt-16-dev)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing=1
done
if [ -n "${missing:-}" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
bash scripts/setup.sh --mpi mpich --packages-only
CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -DCOLLBENCH_FUZZ=ON -DCOLLBENCH_CUDA=OFF \
  -DCOLLBENCH_MPI=mpich -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=("$@")
if [ ${#targets[@]} = 0 ]; then
  mapfile -t targets < <(sed -n 's/^set(COLLBENCH_FUZZ_TARGETS \(.*\)/\1/p; s/^    \([a-z_ ]*\))$/\1/p' \
    tests/fuzz/CMakeLists.txt | tr ' ' '\n' | grep .)
fi
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz-}"
# Leaks inside the MPI library and UCX are theirs (tests/sanitizers.supp); stacks named.
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers.supp
ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || true)
export ASAN_SYMBOLIZER_PATH
summary=()
status=0
for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$work" "$findings"
  log=build-fuzz/fuzz-$t.log
  echo "== fuzz-$t: up to $runs executions or $max_seconds s"
  rc=0
  # Leaks are checked at exit and every run; a slow input (10 s) is a finding too.
  # The committed corpus is copied in, never handed to the fuzzer, which writes into the
  # corpus directories it is given.
  cp -n tests/fuzz/corpus/"$t"/* "$work"/
  (cd "$findings" && "../../tests/fuzz/fuzz-$t" -runs="$runs" -max_total_time="$max_seconds" -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 "../../corpus/$t") >"$log" 2>&1 || rc=$?
  done_line=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
  secs=$(grep -Eo 'Done [0-9]+ runs in [0-9]+' <<<"$done_line" | grep -Eo '[0-9]+$' || echo "?")
  found=$(find "$findings" -type f | wc -l)
  [ "$rc" = 0 ] || status=1
  note=
  [ "$rc" = 0 ] || note="  (see $log)"
  summary+=("$(printf '%-14s %9s executions %5s s  exit %s  %s findings%s' "$t" "$execs" "$secs" "$rc" "$found" "$note")")
done
echo "== summary (clang-16, ASan + UBSan + libFuzzer; $(lscpu | sed -n 's/^Model name: *//p'))"
printf '%s\n' "${summary[@]}"
exit $status
