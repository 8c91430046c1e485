#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the lit suite (lit +
# FileCheck, gtest and the C API test through lit), then the embedding check
# (install, find_package from an out-of-tree program). Ends with one
# "tests: N passed, N failed" line.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh" || exit 1
"$root/scripts/build.sh" "$@" || exit 1

log=$(mktemp)
status=0
ninja -C "$build" check-tp 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
passed=$(grep -Eo '^ *Passed *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
failed=$(grep -Eo '^ *Failed *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
passed=${passed:-0}
failed=${failed:-0}
rm -f "$log"

if "$root/scripts/check-embed.sh" > "$build/check-embed.log" 2>&1; then
  echo "check-embed: passed"
  passed=$((passed + 1))
else
  tail -n 30 "$build/check-embed.log"
  echo "check-embed: FAILED (log: $build/check-embed.log)"
  failed=$((failed + 1))
  status=1
fi

echo "tests: ${passed} passed, ${failed} failed"
exit $status
