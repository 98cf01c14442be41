# Sourced by the tests that build emulated hosts: `emulator_unusable NAME` prints why
# this machine cannot (not root, no iproute2, no namespaces, bridges, veth pairs, tbf,
# or a read-only /etc/hosts), trying each primitive once and removing it; nothing when it can.
emulator_unusable() {
  local name=$1
  [ "$(id -u)" = 0 ] || { echo "needs root for network namespaces"; return; }
  command -v ip >/dev/null && command -v tc >/dev/null || { echo "needs ip and tc (iproute2)"; return; }
  {
    ip netns add "$name-try" 2>/dev/null || { echo "cannot create network namespaces here"; return; }
    ip link add "$name-tb" type bridge 2>/dev/null || echo "cannot create a bridge here"
    ip link add "$name-tv" type veth peer name eth0 netns "$name-try" 2>/dev/null || echo "cannot create veth pairs here"
    tc qdisc replace dev "$name-tv" root tbf rate 1gbit burst 65536 latency 100ms 2>/dev/null || echo "cannot shape links with tc tbf here"
    [ -w /etc/hosts ] || echo "/etc/hosts is not writable here"
    ip link del "$name-tv" 2>/dev/null
    ip link del "$name-tb" 2>/dev/null
    ip netns del "$name-try" 2>/dev/null
  } | head -1
}

# Whether each of the N tasks that LAUNCH... starts on emulated hosts has the yield-when-idle
# preload mapped (what makes ranks that outnumber the cores yield); if not, prints what
# they said and returns 1.
ranks_have_yield_preload() {
  local n=$1 mapped
  shift
  mapped=$("$@" grep -c ucx_yield_when_idle /proc/self/maps 2>&1)
  [ "$(grep -c '^[1-9]' <<<"$mapped")" = "$n" ] || { echo "${mapped:-no output}"; return 1; }
}
