#!/usr/bin/env bash
# The main job: install, build, then a validated allreduce sweep (8 B to 64 MiB) of
# every registered algorithm against MPI_Allreduce on 2 ranks. Results go to results/.
# Extra arguments are passed to `collbench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec build/mpiexec -n 2 build/harness/collbench run --collective allreduce "$@"
