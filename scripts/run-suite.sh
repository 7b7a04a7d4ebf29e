#!/usr/bin/env bash
# Runs a build tree's ctest suite (make test, make check) in three parts, so that the tests whose assertions rest on
# timing keep both CPUs while every other test runs on what they leave idle:
#   1. the tests labelled `setup` alone (browser_fixtures: it profiles resnet50, and that first profile measures the
#      roofs the suite's cache holds);
#   2. the tests labelled `timed` (integration_timed, unit_timed), one after the other, at the normal priority; and
#      beside them
#   3. every other test, JOBS + 1 at a time, at SCHED_IDLE (`chrt --idle 0`; `nice -n 19` where that is refused):
#      the kernel runs them only on a CPU the timed tests leave idle (runners starting, inference sessions created on
#      one thread, pages loading), and a timed test's thread that wakes takes its CPU back at once. One more than the
#      CPUs: once the timed tests are done, the last of these run one beside another that waits (a Slurm poll, a
#      page, the unit tests' single thread), and a third keeps the CPUs busy (the last minute of the queue was a
#      quarter idle at JOBS).
# Part 3's output goes to a log, streamed once part 2 is done. The exit code is 1 if any part failed.
# Usage: run-suite.sh BUILD_DIR [JOBS]
set -uo pipefail

build="${1:?usage: run-suite.sh BUILD_DIR [JOBS]}"
jobs="${2:-$(nproc)}"
cd "$build" || exit 2

idle=(chrt --idle 0)
"${idle[@]}" true 2>/dev/null || idle=(nice -n 19)

ctest --output-on-failure -L setup
rc_setup=$?

log=ctest-beside-timed.log
# -FS: every fixture's setup ran in part 1; none is set up again.
"${idle[@]}" ctest --output-on-failure -j "$((jobs + 1))" -LE 'setup|timed' -FS '.*' > "$log" 2>&1 &
beside=$!
echo "run-suite: the other tests run beside the timed ones at ${idle[*]} (log: $build/$log)"

ctest --output-on-failure -L timed
rc_timed=$?

tail -n +1 -f --pid="$beside" "$log"
wait "$beside"
rc_beside=$?

echo "run-suite: fixtures rc $rc_setup, timed groups rc $rc_timed, the other tests rc $rc_beside"
((rc_setup == 0 && rc_timed == 0 && rc_beside == 0)) || exit 1
