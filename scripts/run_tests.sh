#!/usr/bin/env bash
# Install (Slurm and munge too, for the emulated cluster's tests), build against MPICH
# (build/) and Open MPI (build-openmpi/), then every test
# with MPICH (unit tests, MPI tests at 1 to 5 ranks, CLI tests) and again with Open MPI
# those whose outcome can depend on the library (the `library` label, tests/CMakeLists.txt),
# so a regression under either library fails. Ends with the ten
# slowest tests and the time each part took.
#   scripts/run_tests.sh              the suite
#   scripts/run_tests.sh --sanitize   instead, ASan and UBSan (GCC) over the unit tests,
#                                     the fuzz corpora and the 1 to 3 rank MPI and
#                                     command-line tests, in build-sanitize/ (MPICH)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --sanitize ]; then
  bash scripts/setup.sh --mpi mpich --packages-only
  cmake -S . -B build-sanitize -DCOLLBENCH_SANITIZE=ON -DCOLLBENCH_CUDA=OFF -DCOLLBENCH_MPI=mpich \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build-sanitize -j"$(nproc)"
  # Every report ends its process; leaks inside the MPI library and UCX are theirs
  # (tests/sanitizers.supp), and UCX must not hook malloc under ASan. The fault tests
  # preload their shims (tests/faults), which puts them before ASan's runtime: its
  # check of that order is off (the shims allocate nothing of their own).
  export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:verify_asan_link_order=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers.supp UCX_MEM_MALLOC_HOOKS=no UCX_MEM_EVENTS=no
  exec ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" \
    -E '^(mpi\.np[45]|mpi\.gpu|faults\.drills|cli\.(emulated_cluster|slurm_cluster|install|configure_mpi))'
elif [ $# -gt 0 ]; then
  echo "$0: unknown argument '$1'; usage: $0 [--sanitize]" >&2
  exit 2
fi
began=$SECONDS
bash scripts/setup.sh --mpi all --slurm
built=$SECONDS
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
status=0
echo "== tests with MPICH (build/)"
ctest --test-dir build --output-on-failure -j "$(nproc)" 2>&1 | tee "$logs/mpich" || status=1
echo "== tests with Open MPI (build-openmpi/): those whose outcome can depend on the library"
ctest --test-dir build-openmpi --output-on-failure -j "$(nproc)" -L '^library$' 2>&1 |
  tee "$logs/openmpi" || status=1
echo "== the ten slowest tests (seconds)"
for tree in mpich openmpi; do
  sed -nE "s/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 $tree \1/p" "$logs/$tree"
# awk, not head: head's early exit would end sort with SIGPIPE once the list outgrows a
# pipe's 64 KiB, and pipefail would make a green run exit 141.
done | sort -rn | awk 'NR <= 10 {printf "%9.2f  %-8s %s\n", $1, $2, $3}'
echo "== setup and builds $((built - began)) s, tests $((SECONDS - built)) s, in all $((SECONDS - began)) s"
exit $status
