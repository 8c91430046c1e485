#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (lit + FileCheck, gtest
# through lit). Ends with one "tests: N passed, N failed" line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$@"
log=$(mktemp)
status=0
ninja -C "$build" check-tp 2>&1 | tee "$log" || status=$?
passed=$(grep -Eo '^ *Passed *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1 || true)
failed=$(grep -Eo '^ *Failed *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1 || true)
rm -f "$log"
echo "tests: ${passed:-0} passed, ${failed:-0} failed"
exit $status
