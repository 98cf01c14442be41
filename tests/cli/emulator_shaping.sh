#!/usr/bin/env bash
# scripts/emulate_cluster.sh's pure parts, without root: profiles and rate strings into
# the rate, tbf bucket and packet cap `up` would set (the bucket holds 200 us of the
# rate, at least 4500 bytes; packets at most 2/3 of it, 1500 to 65536 bytes), and bad
# input refused with one message and exit 2.
# usage: emulator_shaping.sh
set -u
emu=$(cd "$(dirname "$0")/../.." && pwd)/scripts/emulate_cluster.sh
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # EXPECTED ARGS...
  local want=$1 got
  shift
  got=$("$emu" shaping "$@" 2>&1) || fail "shaping $* exited $?: $got"
  [ "$got" = "$want" ] || fail "shaping $*: got '$got', want '$want'"
}
expect "profile=loopback rate=unshaped"
expect "profile=loopback rate=unshaped" --profile loopback
expect "profile=1gbe rate=1gbit burst=25000 gso_max_size=16666" --profile 1gbe
expect "profile=10gbe rate=10gbit burst=250000 gso_max_size=65536" --profile 10gbe
expect "profile=100mbe rate=100mbit burst=4500 gso_max_size=3000" --profile 100mbe
expect "profile=custom rate=2500mbit burst=62500 gso_max_size=41666" --rate 2500mbit
expect "profile=custom rate=1000000bit burst=4500 gso_max_size=3000" --rate 1000000bit
expect "profile=custom rate=5000kbit burst=4500 gso_max_size=3000" --rate 5000kbit
refuse() {  # MESSAGE ARGS...
  local want=$1 out rc
  shift
  out=$("$emu" shaping "$@" 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "shaping $*: exit $rc, want 2"
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "shaping $*: not one line: $out"
  printf '%s' "$out" | grep -qF -- "$want" || fail "shaping $*: '$out' does not say '$want'"
}
refuse "unknown profile '40gbe'; valid: loopback, 10gbe, 1gbe, 100mbe" --profile 40gbe
refuse "--rate must be a number with kbit, mbit, gbit or bit, not '1.5gbit'" --rate 1.5gbit
refuse "--rate must be a number with kbit, mbit, gbit or bit, not 'fast'" --rate fast
refuse "--rate 999kbit is below 1mbit" --rate 999kbit
refuse "give --profile or --rate, not both" --profile 1gbe --rate 1gbit
refuse "unknown argument '--hosts2'" --hosts2
echo "ok: profiles, rates and their shaping; bad input refused"
