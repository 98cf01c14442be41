#!/usr/bin/env bash
# Installs what is missing (Debian packages), then configures and builds collbench.
#   scripts/setup.sh                builds ./build against MPICH (the default)
#   scripts/setup.sh --mpi openmpi  builds ./build-openmpi against Open MPI
#   scripts/setup.sh --mpi all      both
#   scripts/setup.sh --packages-only  installs, builds nothing (scripts/fuzz.sh, --sanitize)
#   scripts/setup.sh --slurm        also Debian's Slurm and munge, for emulate_cluster.sh up --slurm
#                                   (which starts daemons of its own; the packages' services are
#                                   left as Debian installs them)
# Each tree names its MPI explicitly (COLLBENCH_MPI, cmake/SelectMpi.cmake), so it does
# not matter where Debian's mpicc/mpiexec alternatives point. Installing Open MPI moves
# those alternatives to it; this script puts them back where they were (or on MPICH
# when it installed both), so the machine's mpicc/mpiexec stay the library its user
# chose. Safe to run again: it installs and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
mpis=mpich
slurm=0
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --slurm) slurm=1; shift ;;
    --packages-only) build=0; shift ;;
    --mpi) mpis=${2:-}; shift 2 || { echo "$0: --mpi needs mpich, openmpi or all" >&2; exit 2; } ;;
    --mpi=*) mpis=${1#--mpi=}; shift ;;
    *) echo "$0: unknown argument '$1'; usage: $0 [--mpi mpich|openmpi|all] [--slurm] [--packages-only]" >&2; exit 2 ;;
  esac
done
case "$mpis" in
  mpich) mpis=(mpich) ;; openmpi) mpis=(openmpi) ;; all) mpis=(mpich openmpi) ;;
  *) echo "$0: --mpi must be mpich, openmpi or all, not '$mpis'" >&2; exit 2 ;;
esac

packages=(g++ make ninja-build cmake git python3 libcli11-dev libfccp-dev nlohmann-json3-dev
          libgtest-dev libgmock-dev libbenchmark-dev python3-matplotlib iproute2)
for m in "${mpis[@]}"; do
  case "$m" in
    mpich) packages+=(mpich libmpich-dev) ;;
    openmpi) packages+=(openmpi-bin libopenmpi-dev) ;;
  esac
done
[ "$slurm" = 1 ] && packages+=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  alternatives=(mpi mpirun "mpi-$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)")
  declare -A before=()
  # The value of an alternative, or "" where there is none yet (a fresh machine).
  alternative() { update-alternatives --query "$1" 2>/dev/null | sed -n 's/^Value: //p' || true; }
  for a in "${alternatives[@]}"; do before[$a]=$(alternative "$a"); done
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  for a in "${alternatives[@]}"; do
    now=$(alternative "$a")
    want=${before[$a]}
    # Nothing chosen before: MPICH, the project's default, if it is one of the choices.
    [ -n "$want" ] || want=$(update-alternatives --list "$a" 2>/dev/null | grep -m1 mpich || true)
    if [ -n "$want" ] && [ -n "$now" ] && [ "$now" != "$want" ]; then
      echo "setup: installing moved the '$a' alternative to $now; setting it back to $want"
      $sudo update-alternatives --quiet --set "$a" "$want"
    fi
  done
fi

[ "$build" = 1 ] || exit 0
for m in "${mpis[@]}"; do
  tree=build
  [ "$m" = mpich ] || tree=build-$m
  # With both, the second tree serves the MPI-facing tests (run_tests.sh): the unit
  # tests are built once, in ./build.
  unit=ON
  [ "$tree" = build ] || [ ${#mpis[@]} = 1 ] || unit=OFF
  # Ninja for a new tree (on 2 cores it builds one in 2.5 min where make takes 3.2); a tree
  # configured before keeps its generator, which CMake cannot change in place.
  generator=()
  [ -f "$tree/CMakeCache.txt" ] || generator=(-G Ninja)
  cmake -S . -B "$tree" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCOLLBENCH_MPI="$m" -DCOLLBENCH_UNIT_TESTS=$unit >/dev/null
  cmake --build "$tree" -j"$(nproc)"
done
