#!/bin/sh
# A fuzz target replaying its corpus leaves none of its input files behind: they go to
# /dev/shm (fuzz_input.hpp), which outlives the process.
# usage: leaves_no_files.sh TARGET CORPUS
"$1" "$2" >/dev/null &
pid=$!
wait "$pid" || { echo "FAIL: $1 $2 exited with $?"; exit 1; }
left=$(ls /dev/shm/collbench-fuzz-"$pid"* "${TMPDIR:-/tmp}"/collbench-fuzz-"$pid"* 2>/dev/null)
[ -z "$left" ] || { echo "FAIL: $1 left $left"; rm -f $left; exit 1; }
echo "PASS: $1 (PID $pid) left no input file behind"
