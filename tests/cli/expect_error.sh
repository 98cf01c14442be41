#!/usr/bin/env bash
# Runs a command that must be refused: it has to exit 2 (bad input) and print exactly
# one "collbench: error:" line, matching PATTERN. ctest's TIMEOUT turns a hang into a failure.
# usage: expect_error.sh PATTERN COMMAND [ARGS...]
set -u
pattern=$1
shift
out=$("$@" 2>&1)
rc=$?
fail() { printf 'FAIL: %s\n--- output (exit %s) ---\n%s\n' "$1" "$rc" "$out"; exit 1; }
[ "$rc" -eq 2 ] || fail "expected exit status 2 (bad input)"
[ "$(grep -c 'collbench: error' <<<"$out")" -eq 1 ] || fail "expected exactly one error line"
grep -qE -- "$pattern" <<<"$out" || fail "no line matches /$pattern/"
echo "ok: exit $rc: $(grep 'collbench: error' <<<"$out")"
