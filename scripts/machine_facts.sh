#!/usr/bin/env bash
# Prints what a result needs to say about the machine it came from: the CPU (lscpu),
# kernel, cores and memory, and the versions of the MPI, UCX and Slurm packages.
# usage: scripts/machine_facts.sh > machine.txt
set -u
echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
# Dirty only for changes outside results/: the scripts write their own results there
# (and clear what a run before left) before they record this.
repo=$(dirname "$0")/..
dirty=$(git -C "$repo" status --porcelain -- . ':(exclude)results' 2>/dev/null | head -1)
echo "source: $(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)${dirty:+-dirty}"
echo "kernel: $(uname -srm)"
echo "cores: $(nproc)"
echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo "packages:"
dpkg-query -W -f='  ${Package} ${Version}\n' mpich libmpich12 openmpi-bin libucx0 libpmix2 slurmd slurmctld slurm-client munge 2>/dev/null
echo "lscpu:"
lscpu | sed 's/^/  /'
