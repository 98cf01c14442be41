#!/usr/bin/env bash
# `cmake --install` of this build tree into a fresh prefix: the programs, the launcher
# of the tree's MPI, the tools and the documentation are there, and the installed copy
# runs on its own (from another directory, with nothing of the build tree on its
# library path): --version names this version and revision, a checked allreduce passes.
# usage: install.sh BUILD_DIR
set -u
build=$1
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install exited $?"; }
for f in bin/collbench bin/collbench-kernels bin/collbench-plain-loop bin/collbench-core-handoff bin/collbench-mpiexec \
  share/collbench/scripts/emulate_cluster.sh share/collbench/scripts/slurm_cluster.sh \
  share/collbench/scripts/ucx_yield_when_idle.c share/collbench/scripts/plot_sweep.py \
  share/doc/collbench/README.md share/doc/collbench/results/README.md; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
readelf -d "$prefix/bin/collbench" | grep -q "$build" && fail "the installed collbench still names the build tree: $(readelf -d "$prefix/bin/collbench" | grep -i path)"
cd "$work"
want=$("$build/harness/collbench" --version) || fail "collbench --version exited $?"
got=$("$prefix/bin/collbench" --version) || fail "the installed collbench --version exited $?"
[ "$got" = "$want" ] || fail "installed --version says '$got', the build tree's '$want'"
echo "$got" | grep -Eq '^collbench [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]{7,}' || fail "--version names no version and revision: $got"
"$prefix/bin/collbench-mpiexec" -n 2 "$prefix/bin/collbench" run -a mpi,ring -b 8 -e 1K -f 8 -w 2 -n 5 \
  --output-dir "$work/out" >"$work/run.log" 2>&1 || { cat "$work/run.log"; fail "the installed copy's run exited $?"; }
ls "$work"/out/*.json >/dev/null 2>&1 || fail "the installed copy wrote no results under the working directory"
"$prefix/share/collbench/scripts/emulate_cluster.sh" shaping --profile 1gbe | grep -q '^profile=1gbe rate=1gbit' ||
  fail "the installed emulate_cluster.sh does not run"
echo "ok: installed under $prefix: $got"
