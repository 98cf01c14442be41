#!/usr/bin/env bash
# Builds git revision REV of this repository in DIR (outside the repository: `git archive`
# into DIR/src, a Release build with MPICH in DIR/build) and prints the build directory.
# For the before/after comparisons of scripts/measure_*.sh.
# usage: scripts/build_revision.sh REV DIR TARGET...
set -euo pipefail
rev=$1 dir=$2
shift 2
cd "$(dirname "$0")/.."
echo "building $rev in $dir" >&2
mkdir -p "$dir/src"
git archive "$rev" | tar -x -C "$dir/src"
cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCOLLBENCH_MPI=mpich >/dev/null
cmake --build "$dir/build" -j"$(nproc)" --target "$@" >/dev/null
echo "$dir/build"
