#!/usr/bin/env bash
# Configuring names the MPI a user asked for, as FindMPI's hints and cluster modules
# give it, or refuses with one message; never another library in silence. Each case
# configures a fresh tree (no CUDA, no tests: seconds).
# usage: configure_mpi.sh SOURCE_DIR [found|hinted|refused]   (all where none is named;
#        ctest runs them as three tests, each well under a minute on a loaded machine)
set -u
src=$1 part=${2:-all}
case "$part" in found | hinted | refused | all) ;; *) echo "usage: $0 SOURCE_DIR [found|hinted|refused]" >&2; exit 2 ;; esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v mpicxx.mpich >/dev/null && command -v mpicxx.openmpi >/dev/null ||
  { echo "SKIP: needs Debian's MPICH and Open MPI (scripts/setup.sh --mpi all)"; exit 77; }
configure() {  # configure ARGS...: the summary line, or the error
  rm -rf "$dir/b"
  env -u MPI_HOME cmake -S "$src" -B "$dir/b" -DCOLLBENCH_CUDA=OFF -DBUILD_TESTING=OFF "$@" >"$dir/log" 2>&1
  echo "rc=$?"
  grep -E "collbench: MPI " "$dir/log"
  tr '\n' ' ' <"$dir/log" | grep -o "CMake Error at [^:]*:[0-9]* (message):.*" | sed 's/  */ /g'
}
expect() {  # expect PATTERN ARGS...
  local pattern=$1
  shift
  out=$(configure "$@" | tr "\n" " ")
  echo "$out" | grep -Eq -- "$pattern" || fail "configure $*: wanted /$pattern/, got: $out"
  echo "ok: $* -> $(echo "$out" | grep -Eo -- "$pattern")"
}
# The library asked for, named by COLLBENCH_MPI or by a hint, is the one found.
if [ "$part" = found ] || [ "$part" = all ]; then
  expect "collbench: MPI mpich \(mpich\), launcher '/usr/bin/mpiexec.mpich'"
  expect "collbench: MPI openmpi \(openmpi\), launcher '/usr/bin/mpirun.openmpi" -DCOLLBENCH_MPI=openmpi
fi
if [ "$part" = hinted ] || [ "$part" = all ]; then
  # A compiler or launcher named alone brings its own library's siblings.
  expect "collbench: MPI system \(openmpi\), launcher '/usr/bin/mpiexec.openmpi" -DMPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi
  expect "collbench: MPI system \(openmpi\), launcher '/usr/bin/mpirun.openmpi" -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi
  expect "collbench: MPI system \(mpich\), launcher '/usr/bin/mpiexec.mpich'" -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich
fi
if [ "$part" = refused ] || [ "$part" = all ]; then
  # Hints of another library than COLLBENCH_MPI, or of two libraries: one clear error.
  expect "rc=1.*MPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi names another MPI than COLLBENCH_MPI=mpich" \
    -DCOLLBENCH_MPI=mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi
  expect "rc=1.*are of different libraries" -DMPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi -DMPI_C_COMPILER=/usr/bin/mpicc.mpich
  expect "rc=1.*is not the launcher's" -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi
  expect "rc=1.*MPI_HOME=/nonexistent holds no MPI C\+\+ wrapper" -DMPI_HOME=/nonexistent
fi
