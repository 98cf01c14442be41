#!/usr/bin/env bash
# Install, build, then every test: unit tests, MPI tests at 1 to 5 ranks, CLI tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
