#!/usr/bin/env bash
# Install (Slurm and munge too, for the emulated cluster's tests), build against MPICH
# (build/) and Open MPI (build-openmpi/), then every test
# with MPICH (unit tests, MPI tests at 1 to 5 ranks, CLI tests) and the MPI-facing ones
# again with Open MPI, so a regression under either library fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --mpi all --slurm
status=0
echo "== tests with MPICH (build/)"
ctest --test-dir build --output-on-failure -j "$(nproc)" || status=1
echo "== tests with Open MPI (build-openmpi/): MPI, command-line and fault tests"
ctest --test-dir build-openmpi --output-on-failure -j "$(nproc)" -R '^(mpi|cli|faults)\.' || status=1
exit $status
