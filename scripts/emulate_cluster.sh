#!/usr/bin/env bash
# Emulated hosts on one machine (root): each host a network namespace with its own
# address and host name, joined by a veth pair to one bridge (the data network, eth0 in
# the host, 10.213.0.0/24), its link shaped in both
# directions with tc tbf (this kernel has no netem: no added delay, latency is what the
# stack gives). MPI runs across them through Hydra, with a launcher that starts each
# proxy inside its host, and UCX limited to TCP on the host's link. `mpiexec` launches
# through the library PROGRAM is linked with (--mpi to say which): MPICH's Hydra, or
# Open MPI's mpirun, whose rsh launcher starts each orted inside its host the same way.
#
#   emulate_cluster.sh up --hosts H [--profile P | --rate R] [--name N] [--force] [--slurm]
#   emulate_cluster.sh mpiexec [--name N] [--ranks-per-host K] [--ranks R] [--mpi mpich|openmpi] -- PROGRAM [ARGS...]
#                                     (R: the first R ranks only, hosts filled in order; default all)
#   emulate_cluster.sh srun [--name N] -- SRUN_ARGS...     (with --slurm)
#   emulate_cluster.sh sbatch [--name N] -- SBATCH_ARGS... (with --slurm)
#   emulate_cluster.sh slurm-env [--name N]                (export lines for srun/sbatch by hand)
#   emulate_cluster.sh link [--name N] --host K down|up    (take host K's link down or up: fault drills)
#   emulate_cluster.sh rate [--name N] --host K --rate R | --profile P   (change host K's link rate)
#   emulate_cluster.sh identity [--name N] --host K [--hostname H] [--clock-offset S]
#                                     (what processes launched on host K from now on see)
#   emulate_cluster.sh down [--name N]
#   emulate_cluster.sh status [--name N]
#   emulate_cluster.sh profiles
#   emulate_cluster.sh shaping [--profile P | --rate R]   (what up would set; no root)
#   emulate_cluster.sh tcp [--name N] [--seconds S]       (one raw TCP stream, host 2 to 1)
#
# Profiles: loopback (unshaped), 10gbe, 1gbe, 100mbe; --rate takes tc's units (e.g.
# 2500mbit, 1gbit); a rate above what unshaped TCP between two hosts reaches here is
# refused (--force: run anyway, at what the machine gives, and say so). Names: N
# (default cb, at most 6 characters) prefixes every namespace (N-h1..), link, the
# bridge (N-br) and the /etc/hosts lines it adds. `up` removes what it created if it
# fails or is interrupted; `down` is safe to repeat and also clears what a killed `up`
# left, processes still running in the hosts included.
#
# --slurm also starts Slurm (Debian's slurmctld, slurmd, munge; scripts/slurm_cluster.sh):
# one munged and the controller (N-ctl) on the management network, one slurmd per host inside it.
# srun and sbatch then place tasks on the hosts as on a cluster; MPICH needs
# --mpi=pmi2, Open MPI --mpi=pmix.
#
# Where the hosts together run more ranks than the machine has cores (4 hosts on 2), the
# ranks take turns on the cores: Open MPI is told to yield when idle, and MPICH's ranks,
# whose ch4 never yields, get scripts/ucx_yield_when_idle.c preloaded (built here, with
# gcc, into the cluster's state); otherwise a rank waiting for one that is not running
# spins until the next 4 ms tick. The rows' interconnect details say which. Under srun
# and sbatch, whose task count the script does not see, every step gets the preload and
# each rank decides (ucx_yield_when_idle=if_oversubscribed; Open MPI's ranks too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state_root=/run/collbench-emulate

die() { echo "emulate_cluster: $*" >&2; exit 2; }

profile_rate() {
  case "$1" in
    loopback) echo "" ;;
    10gbe) echo 10gbit ;;
    1gbe) echo 1gbit ;;
    100mbe) echo 100mbit ;;
    *) return 1 ;;
  esac
}

# tc rate -> bits per second ("" for unshaped).
rate_bits() {
  local r=$1
  [ -z "$r" ] && { echo 0; return; }
  [[ $r =~ ^([0-9]+)(|k|m|g)bit$ ]] || return 1
  local n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]}
  case "$unit" in "") echo "$n" ;; k) echo $((n * 1000)) ;; m) echo $((n * 1000000)) ;; g) echo $((n * 1000000000)) ;; esac
}

# Hydra's ssh launcher runs "LAUNCHER [-x] HOST COMMAND...": run COMMAND in HOST's
# namespace, with HOST as its host name (a UTS namespace of its own), or with the host
# name and clock offset `identity` gave it (a time namespace: CLOCK_MONOTONIC and
# CLOCK_BOOTTIME moved; CLOCK_REALTIME cannot be moved per namespace).
launch() {
  while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
  local host=${1:-} as offset=0 f
  [ $# -gt 0 ] && shift
  ip netns list 2>/dev/null | awk '{print $1}' | grep -qx -- "$host" ||
    die "unknown command or emulated host '$host'; use $commands"
  as=$host
  for f in "$state_root"/*/"identity-$host"; do
    [ -f "$f" ] || continue
    as=$(sed -n 's/^hostname=//p' "$f")
    offset=$(sed -n 's/^clock_offset=//p' "$f")
  done
  # Hydra sends its proxy's command (exec'd, so that the proxy is the process Hydra
  # watches); Open MPI's rsh launcher a shell line that sets PATH and LD_LIBRARY_PATH
  # before orted, run as ssh would run it.
  local line="exec $*"
  [[ "$*" =~ ^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*= ]] && line="$*"
  if [ "$offset" != 0 ]; then
    exec ip netns exec "$host" unshare --uts --time --monotonic "$offset" --boottime "$offset" sh -c "hostname $as && $line"
  fi
  exec ip netns exec "$host" unshare --uts sh -c "hostname $as && $line"
}
commands="up, mpiexec, srun, sbatch, slurm-env, link, rate, identity, down, status, profiles, shaping or tcp"
case "${1:-}" in
  up | down | status | profiles | mpiexec | shaping | tcp | srun | sbatch | slurm-env | link | rate | identity | "") ;;
  *) launch "$@" ;;
esac

name=cb hosts= profile= rate= rph=1 ranks= mpi= seconds=3 force=0 slurm=0 host= as= clock_offset= link_state= cmd=${1:-}
[ $# -gt 0 ] && shift
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts=${2:-}; shift 2 ;;
    --profile) profile=${2:-}; shift 2 ;;
    --rate) rate=${2:-}; shift 2 ;;
    --name) name=${2:-}; shift 2 ;;
    --ranks-per-host) rph=${2:-}; shift 2 ;;
    --mpi) mpi=${2:-}; shift 2 ;;
    --ranks) ranks=${2:-}; shift 2 ;;
    --seconds) seconds=${2:-}; shift 2 ;;
    --force) force=1; shift ;;
    --slurm) slurm=1; shift ;;
    --host) host=${2:-}; shift 2 ;;
    --hostname) as=${2:-}; shift 2 ;;
    --clock-offset) clock_offset=${2:-}; shift 2 ;;
    --) shift; break ;;
    down | up) [ "$cmd" = link ] || die "unknown argument '$1'; see the usage at the top of $0"
      link_state=$1; shift ;;
    *) die "unknown argument '$1'; see the usage at the top of $0" ;;
  esac
done
[[ $name =~ ^[a-z][a-z0-9]{0,5}$ ]] || die "--name must be 1 to 6 lower-case letters or digits, starting with a letter, not '$name'"
state=$state_root/$name
bridge=$name-br
# The management network, as clusters keep one apart from their fabric: the launcher's
# and Slurm's control traffic (mgmt0 in each host, 10.214.0.0/24, unshaped), so a fault
# on a host's data link leaves the launcher able to end the job.
mgmt_bridge=$name-mg
marker="# collbench-emulate $name"

host_ns() { echo "$name-h$1"; }

down() {
  local ns link pid
  source "$here/slurm_cluster.sh"
  slurm_down
  # Processes still running in the hosts (a hung or killed run's ranks): ours to end.
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-h[0-9]+$" || true); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  done
  # The root side of each veth pair first: deleting a namespace removes its links only
  # later, from a kernel work queue.
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^$name-h[0-9]+(-m)?$" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-(h[0-9]+|probe)$" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "$bridge" 2>/dev/null || true
  ip link del "$mgmt_bridge" 2>/dev/null || true
  if [ -f /etc/hosts ] && grep -qF "$marker" /etc/hosts; then
    grep -vF "$marker" /etc/hosts >/etc/hosts.collbench-emulate.tmp && cat /etc/hosts.collbench-emulate.tmp >/etc/hosts
    rm -f /etc/hosts.collbench-emulate.tmp
  fi
  rm -rf "$state"
}

# --profile or --rate into $profile and $rate ("" for unshaped); dies on bad input.
resolve_rate() {
  [ -n "$profile" ] && [ -n "$rate" ] && die "give --profile or --rate, not both"
  if [ -n "$profile" ]; then
    rate=$(profile_rate "$profile") || die "unknown profile '$profile'; valid: loopback, 10gbe, 1gbe, 100mbe"
  elif [ -n "$rate" ]; then
    rate_bits "$rate" >/dev/null || die "--rate must be a number with kbit, mbit, gbit or bit, not '$rate'"
    [ "$(rate_bits "$rate")" -ge 1000000 ] || die "--rate $rate is below 1mbit: MPI start-up would time out"
    profile=custom
  else
    profile=loopback
  fi
}

# What `up` shapes with (after resolve_rate): "profile=P rate=R burst=B gso_max_size=G".
shaping() {
  if [ -z "$rate" ]; then echo "profile=$profile rate=unshaped"; return; fi
  local burst gso
  read -r burst gso < <(shaping_sizes "$(rate_bits "$rate")")
  echo "profile=$profile rate=$rate burst=$burst gso_max_size=$gso"
}

need_root() {
  [ "$(id -u)" = 0 ] || die "needs root (network namespaces, links and tc)"
  command -v ip >/dev/null && command -v tc >/dev/null || die "needs ip and tc (Debian package iproute2)"
}

# Bits per second one TCP stream reaches from host 2 to host 1 (python3 sockets, for
# SECONDS, default 1): unshaped, what a profile's rate is checked against; shaped (the
# tcp command), what MPI and collbench over the links are compared with.
tcp_bits() {
  local seconds=${1:-1}
  local sink
  sink=$(mktemp)
  ip netns exec "$(host_ns 1)" python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 5999)); s.listen(1); s.settimeout(5)
print("ready", flush=True)
c, _ = s.accept(); c.settimeout(5)
while c.recv(1 << 20): pass
' >"$sink" &
  local server=$!
  for _ in $(seq 50); do grep -q ready "$sink" && break; sleep 0.05; done
  ip netns exec "$(host_ns 2)" python3 -c '
import socket, sys, time
c = socket.create_connection(("10.213.0.2", 5999)); b = bytes(1 << 20); n = 0; t0 = time.time()
while time.time() - t0 < float(sys.argv[1]): c.sendall(b); n += len(b)
c.close(); print(int(n * 8 / (time.time() - t0)))
' "$seconds"
  wait "$server" || true
  rm -f "$sink"
}

# tbf lets a bucket of `burst` bytes through at full speed after an idle gap, and
# passes a GSO packet (up to 64 KiB on veth) whole: both let a message that fits go
# faster than the line. So the bucket holds 200 us of traffic (at least 3 frames, as
# tbf needs to keep the rate), and packets are capped at 2/3 of it. Prints
# "BURST GSO_MAX_SIZE" for a rate in bits per second.
shaping_sizes() {
  local bits=$1 burst gso
  burst=$((bits / 8 / 5000))
  [ "$burst" -lt 4500 ] && burst=4500
  gso=$((burst * 2 / 3))
  [ "$gso" -lt 1500 ] && gso=1500
  [ "$gso" -gt 65536 ] && gso=65536
  echo "$burst $gso"
}

# A new tbf each time (a handle other than the current one), never a change of the old:
# a lower rate's smaller bucket would leave packets queued under the old one (GSO
# packets up to the old gso_max_size) larger than the bucket, and tbf never sends a
# packet its bucket cannot hold, so the link stalls for good behind it (seen: 383
# packets stuck, TCP backing off to 53 s, the run ended by the watchdog). The new tbf
# drops the old queue instead; TCP resends it, cut to fit.
shape() {  # DEVICE [NETNS]: tbf at $rate on the device's egress, packets capped to fit its bucket
  local dev=$1 ns=${2:-} burst gso handle=1:
  [ -z "$rate" ] && return 0
  read -r burst gso < <(shaping_sizes "$(rate_bits "$rate")")
  ${ns:+ip netns exec "$ns"} ip link set dev "$dev" gso_max_size "$gso"
  [ "$(${ns:+ip netns exec "$ns"} tc qdisc show dev "$dev" root | awk '{print $3; exit}')" = 1: ] && handle=2:
  ${ns:+ip netns exec "$ns"} tc qdisc replace dev "$dev" root handle "$handle" tbf rate "$rate" burst "$burst" \
    latency 100ms
}

up() {
  need_root
  [[ $hosts =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le 200 ] || die "--hosts must be a whole number from 1 to 200, not '$hosts'"
  resolve_rate
  [ -e "$state" ] && die "'$name' is already up ($(cat "$state/summary")); run '$0 down --name $name' first"
  ip link show "$bridge" >/dev/null 2>&1 && die "a link named $bridge exists but is not ours; choose another --name"
  ip link show "$mgmt_bridge" >/dev/null 2>&1 && die "a link named $mgmt_bridge exists but is not ours; choose another --name"
  ip -o addr show | grep -Eq ' 10\.21[34]\.0\.1/' && die "another emulated cluster is up (10.213.0.1 or 10.214.0.1 is taken); run down for it first"
  local i
  for i in $(seq "$hosts"); do
    getent hosts "$(host_ns "$i")" >/dev/null && die "host name $(host_ns "$i") is already known to this machine; choose another --name"
  done
  # From the probe on, an interrupted up removes what it made (down removes the probe too):
  # a TERM between the probe's add and del left it behind on a loaded machine.
  trap 'echo "emulate_cluster: up failed or was interrupted; removing what it created" >&2; down; exit 2' ERR INT TERM
  ip netns add "$name-probe" 2>/dev/null || die "cannot create network namespaces here (not permitted in this container?)"
  ip netns del "$name-probe"
  mkdir -p "$state"
  ip link add "$bridge" type bridge
  ip addr add 10.213.0.1/24 dev "$bridge"
  ip link set "$bridge" up
  ip link add "$mgmt_bridge" type bridge
  ip addr add 10.214.0.1/24 dev "$mgmt_bridge"
  ip link set "$mgmt_bridge" up
  for i in $(seq "$hosts"); do
    local ns; ns=$(host_ns "$i")
    ip netns add "$ns"
    ip link add "$ns" type veth peer name eth0 netns "$ns"
    ip link set "$ns" master "$bridge" up
    ip netns exec "$ns" ip addr add "10.213.0.$((i + 1))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip link add "$ns-m" type veth peer name mgmt0 netns "$ns"
    ip link set "$ns-m" master "$mgmt_bridge" up
    ip netns exec "$ns" ip addr add "10.214.0.$((i + 1))/24" dev mgmt0
    ip netns exec "$ns" ip link set mgmt0 up
    ip netns exec "$ns" ip link set lo up
    echo "$(ip netns exec "$ns" ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1) $ns $marker" >>/etc/hosts
    echo "$ns" >>"$state/hosts"
  done
  local reach="not measured (one host)"
  if [ "$hosts" -ge 2 ]; then
    local bits; bits=$(tcp_bits)
    reach="$((bits / 1000000))mbit"
    if [ -n "$rate" ] && [ "$bits" -lt "$(rate_bits "$rate")" ]; then
      if [ "$force" != 1 ]; then
        trap - ERR INT TERM
        down
        die "unshaped TCP between two hosts reaches only $reach here, below $rate: the links would run at what the machine gives; ask for less, or give --force to run anyway"
      fi
      echo "emulate_cluster: warning: unshaped TCP between two hosts reaches only $reach here, below $rate:" \
        "the links run at what the machine gives, not at $rate" >&2
      reach="$reach (below the rate)"
    fi
  fi
  for i in $(seq "$hosts"); do
    shape "$(host_ns "$i")"
    shape eth0 "$(host_ns "$i")"
  done
  echo "$(shaping) unshaped_tcp=$reach hosts=$hosts" >"$state/summary"
  # What collbench's rows will call it.
  if [ "$profile" = custom ]; then echo "emulated-$rate"; else echo "emulated-$profile"; fi >"$state/interconnect"
  if [ "$slurm" = 1 ]; then
    source "$here/slurm_cluster.sh"
    slurm_up
  fi
  trap - ERR INT TERM
  echo "up: $(cat "$state/summary"); hosts $(paste -sd, "$state/hosts"); data $bridge 10.213.0.1, management $mgmt_bridge 10.214.0.1$([ "$slurm" = 1 ] && echo "; slurm: controller $name-ctl, SLURM_CONF=$state/slurm/slurm.conf")"
}

# What a rank needs to reach the others over the emulated links, and what collbench
# records about them: "VARIABLE=VALUE" lines.
rank_environment() {
  echo "UCX_TLS=tcp,self"
  echo "UCX_NET_DEVICES=eth0"
  echo "OMPI_MCA_btl_tcp_if_include=eth0"
  echo "OMPI_MCA_oob_tcp_if_include=mgmt0"
  echo "COLLBENCH_INTERCONNECT=$(cat "$state/interconnect")"
  echo "COLLBENCH_INTERCONNECT_DETAILS=cluster=$name $(cat "$state/summary")${1:+ $1}"
}

run_mpiexec() {
  need_root
  [ -f "$state/hosts" ] || die "'$name' is not up; run '$0 up --name $name --hosts H' first"
  [[ $rph =~ ^[0-9]+$ ]] && [ "$rph" -ge 1 ] || die "--ranks-per-host must be a whole number of at least 1, not '$rph'"
  [ $# -gt 0 ] || die "mpiexec needs a program after --"
  local hostlist n summary
  hostlist=$(paste -sd, "$state/hosts")
  n=$(($(wc -l <"$state/hosts") * rph))
  if [ -n "$ranks" ]; then
    [[ $ranks =~ ^[0-9]+$ ]] && [ "$ranks" -ge 1 ] && [ "$ranks" -le "$n" ] ||
      die "--ranks must be a whole number from 1 to the cluster's $n ranks, not '$ranks'"
    n=$ranks
  fi
  [ -n "$mpi" ] || mpi=$(program_mpi "$1")
  # collbench puts COLLBENCH_INTERCONNECT in every row and both in its metadata.
  local genv=() kv details="ranks_per_host=$rph" oversubscribed=0
  [ "$n" -gt "$(nproc)" ] && oversubscribed=1
  case "$mpi" in
    mpich)
      # Why and what it saves: scripts/ucx_yield_when_idle.c.
      if [ "$oversubscribed" = 1 ]; then
        if ucx_yield_shim; then
          genv+=(-genv LD_PRELOAD "$state/ucx_yield_when_idle.so${LD_PRELOAD:+ $LD_PRELOAD}")
          details+=" ucx_yield_when_idle=on"
        else
          echo "emulate_cluster: warning: cannot build ucx_yield_when_idle.so (gcc): MPICH's ranks outnumber the cores and poll until the scheduler's tick" >&2
          details+=" ucx_yield_when_idle=off"
        fi
      fi
      while IFS= read -r kv; do genv+=(-genv "${kv%%=*}" "${kv#*=}"); done < <(rank_environment "$details")
      HYDRA_LAUNCHER_AUTOFORK=0 exec /usr/bin/mpiexec.mpich -launcher ssh -launcher-exec "$here/emulate_cluster.sh" \
        -localhost 10.214.0.1 -hosts "$hostlist" -ppn "$rph" -n "$n" "${genv[@]}" "$@" ;;
    openmpi)
      command -v mpirun.openmpi >/dev/null || die "--mpi openmpi needs Open MPI's mpirun.openmpi (scripts/setup.sh --mpi openmpi)"
      # mpirun passes on OMPI_MCA_* by itself; Hydra passes the whole environment, so
      # what collbench records and reads (COLLBENCH_*, UCX_*, MALLOC_*) goes too.
      while IFS= read -r kv; do genv+=(-x "$kv"); done < <(rank_environment "$details")
      while IFS= read -r kv; do genv+=(-x "$kv"); done < <(compgen -e | grep -E '^(COLLBENCH_|UCX_|MALLOC_)' |
        grep -vxE "$(rank_environment | cut -d= -f1 | paste -sd'|')" || true)
      # Open MPI yields when idle on a node it knows is oversubscribed; each host's orted
      # takes the machine's cores for its own, so say it where the hosts together run
      # more ranks than there are (4 x 1 on 2 cores: an 8-byte allreduce 6.6 ms -> 0.17).
      if [ "$oversubscribed" = 1 ] && [ -z "${OMPI_MCA_mpi_yield_when_idle:-}" ]; then
        export OMPI_MCA_mpi_yield_when_idle=1
      fi
      # Every orted from mpirun (no tree spawn), talking back over the management network;
      # no binding, as each host's orted sees all of the machine's cores and would bind
      # every host's first rank to the same one (4 ms a ping-pong: a scheduler tick).
      exec mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "$here/emulate_cluster.sh" \
        --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include 10.214.0.0/24 --bind-to none \
        -H "$(sed "s/\$/:$rph/" "$state/hosts" | paste -sd,)" --map-by "ppr:$rph:node" -n "$n" "${genv[@]}" "$@" ;;
    *) die "--mpi must be mpich or openmpi, not '$mpi'" ;;
  esac
}

# Builds the yield-when-idle preload for MPICH's ranks into the cluster's state (once;
# renamed into place, so a launch beside the build never preloads a half-written file).
ucx_yield_shim() {
  local so=$state/ucx_yield_when_idle.so
  [ -f "$so" ] || { gcc -O2 -shared -fPIC -o "$so.$$" "$here/ucx_yield_when_idle.c" -ldl 2>/dev/null && mv -f "$so.$$" "$so"; }
}

# The MPI library PROGRAM is linked with (mpich or openmpi); MPICH's Hydra for anything
# else, as it launches any program.
program_mpi() {
  local libs
  libs=$(ldd "$(command -v "$1" || echo "$1")" 2>/dev/null || true)
  if grep -q 'libmpi\.so' <<<"$libs"; then echo openmpi; else echo mpich; fi
}

# slurm-env: export lines for a shell that runs srun and sbatch on the cluster by hand.
slurm_env() {
  [ -f "$state/hosts" ] || die "'$name' is not up; run '$0 up --name $name --hosts H --slurm' first"
  [ -f "$state/slurm/slurm.conf" ] || die "'$name' runs no Slurm; bring it up with --slurm"
  echo "export SLURM_CONF=$state/slurm/slurm.conf"
  local kv details=""
  # srun's steps inherit it, and each rank decides whether its step's tasks outnumber the
  # cores (scripts/ucx_yield_when_idle.c: MPICH's yield, Open MPI's are told to).
  if ucx_yield_shim; then
    printf 'export LD_PRELOAD=%q\n' "$state/ucx_yield_when_idle.so${LD_PRELOAD:+ $LD_PRELOAD}"
    details="ucx_yield_when_idle=if_oversubscribed"
  fi
  while IFS= read -r kv; do printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"; done < <(rank_environment "$details")
}

case "$cmd" in
  up) up ;;
  shaping) resolve_rate; shaping ;;
  tcp)
    need_root
    [ "$(cat "$state/hosts" 2>/dev/null | wc -l)" -ge 2 ] || die "'$name' is not up with 2 or more hosts"
    [[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] && [ "$seconds" != 0 ] || die "--seconds must be a positive number, not '$seconds'"
    echo "tcp_bits_per_s=$(tcp_bits "$seconds") from $(host_ns 2) to $(host_ns 1), one stream, ${seconds}s" ;;
  down) need_root; down; echo "down: $name" ;;
  status) [ -f "$state/summary" ] && echo "$name: $(cat "$state/summary"); hosts $(paste -sd, "$state/hosts")" || echo "$name: down" ;;
  profiles) echo "loopback (unshaped), 10gbe (10gbit), 1gbe (1gbit), 100mbe (100mbit)" ;;
  mpiexec) run_mpiexec "$@" ;;
  link | rate | identity)
    need_root
    [ -f "$state/hosts" ] || die "'$name' is not up"
    [[ $host =~ ^[0-9]+$ ]] && [ "$host" -ge 1 ] && [ "$host" -le "$(wc -l <"$state/hosts")" ] ||
      die "--host must be a host number from 1 to $(wc -l <"$state/hosts"), not '$host'"
    ns=$(host_ns "$host")
    case "$cmd" in
      link)
        [ -n "$link_state" ] || die "link needs down or up"
        ip link set "$ns" "$link_state"
        echo "link: $ns $link_state" ;;
      rate)
        resolve_rate
        [ -n "$rate" ] || die "rate needs --rate or a shaped --profile"
        shape "$ns"
        shape eth0 "$ns"
        echo "rate: $ns $(shaping)" ;;
      identity)
        [ -z "$as" ] || [[ $as =~ ^[a-zA-Z0-9][a-zA-Z0-9.-]{0,62}$ ]] || die "--hostname must be a host name, not '$as'"
        [ -z "$clock_offset" ] || [[ $clock_offset =~ ^-?[0-9]+$ ]] || die "--clock-offset must be whole seconds, not '$clock_offset'"
        if [ -z "$as" ] && [ -z "$clock_offset" ]; then rm -f "$state/identity-$ns"; echo "identity: $ns as itself"; exit 0; fi
        printf 'hostname=%s\nclock_offset=%s\n' "${as:-$ns}" "${clock_offset:-0}" >"$state/identity-$ns"
        echo "identity: $ns reports host name ${as:-$ns}, clocks moved by ${clock_offset:-0} s" ;;
    esac ;;
  slurm-env) slurm_env ;;
  srun | sbatch)
    exports=$(slurm_env) || exit 2  # slurm_env said why
    eval "$exports"
    exec "$cmd" "$@" ;;
  *) die "unknown command '$cmd'; use $commands" ;;
esac
