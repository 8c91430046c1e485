#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the lit suite (lit +
# FileCheck, gtest and the C API test through lit), the embedding check
# (install, find_package from an out-of-tree program), then the whole lit
# suite again in an AddressSanitizer + UndefinedBehaviorSanitizer build
# (TP_SKIP_SANITIZERS=1 skips that). Ends with one
# "tests: N passed, N failed, N skipped" line (the CUDA tests skip without a
# GPU).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
asan_build=${ASAN_BUILD_DIR:-$root/build-asan}
"$root/scripts/install-deps.sh" || exit 1
"$root/scripts/build.sh" "$@" || exit 1

passed=0
failed=0
skipped=0
status=0
# Runs check-tp in build dir $1, adding its counts to the totals.
run_suite() {
  local log
  log=$(mktemp)
  ninja -C "$1" check-tp 2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  local p f s
  p=$(grep -Eo '^ *Passed *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
  f=$(grep -Eo '^ *Failed *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
  s=$(grep -Eo '^ *Skipped *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  skipped=$((skipped + ${s:-0}))
  rm -f "$log"
}

run_suite "$build"

if "$root/scripts/check-embed.sh" > "$build/check-embed.log" 2>&1; then
  echo "check-embed: passed"
  passed=$((passed + 1))
else
  tail -n 30 "$build/check-embed.log"
  echo "check-embed: FAILED (log: $build/check-embed.log)"
  failed=$((failed + 1))
  status=1
fi

if [ "${TP_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer"
  if BUILD_DIR=$asan_build "$root/scripts/build.sh" -DTP_ENABLE_SANITIZERS=ON; then
    # MLIR's own libraries are not instrumented; leaks in them at exit are
    # not ours to fix, so leak checking stays off. Allocations that fail
    # return null, as they do without ASan: the code reports them itself
    # (test/Adversarial/resources.test).
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      run_suite "$asan_build"
  else
    echo "sanitizer build: FAILED"
    failed=$((failed + 1))
    status=1
  fi
fi

echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit $status
