#!/usr/bin/env bash
# Builds the libFuzzer binaries of the fuzz harnesses (docs/Fuzzing.md) in
# ${FUZZ_BUILD_DIR:-build-fuzz} with Clang and runs each for SECONDS
# (default 300) on a copy of its seed corpus in test/Fuzz/corpus, one
# fuzzing process at a time, niced. Crash reproducers land in the folder it
# prints; it ends with a summary table and exits 1 if anything crashed.
#   scripts/fuzz.sh [SECONDS]
#   FUZZ_HARNESSES=npy scripts/fuzz.sh 60        # one harness
#   CC=clang-22 CXX=clang++-22 scripts/fuzz.sh   # another Clang
#   FUZZ_OUT_DIR=build-fuzz/fuzz-runs/X scripts/fuzz.sh  # resume run X
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
harnesses=${FUZZ_HARNESSES:-ir npy}
out=${FUZZ_OUT_DIR:-$build/fuzz-runs/$(date +%Y%m%d-%H%M%S)}
export CC=${CC:-clang} CXX=${CXX:-clang++}

# libFuzzer ships with Clang's runtime (Debian: clang-14 has it; for
# clang-N, libclang-rt-N-dev).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }\n' \
  > "$probe/probe.cpp"
if ! "$CXX" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2> "$probe/log"; then
  cat "$probe/log" >&2
  echo "error: $CXX cannot link -fsanitize=fuzzer (install its libFuzzer runtime)" >&2
  exit 1
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DTP_ENABLE_FUZZERS=ON -DTP_ENABLE_CUDA=OFF -DTP_ENABLE_MPI=OFF
fi
targets=()
for h in $harnesses; do targets+=("tp-fuzz-$h-fuzzer"); done
nice -n 10 ninja -C "$build" "${targets[@]}"

mkdir -p "$out"
echo "== fuzzing ${harnesses} for ${seconds} s each; crashes go to $out/<harness>/crashes"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rows=()
status=0
for h in $harnesses; do
  dir=$out/$h
  mkdir -p "$dir/corpus" "$dir/crashes"
  # A FUZZ_OUT_DIR of an earlier run resumes from its corpus.
  cp -n "$root/test/Fuzz/corpus/$h/"* "$dir/corpus/"
  case $h in
  ir)
    # Inputs are whole modules; a lowering of a large one takes seconds.
    # Upstream MLIR leaks on some error paths: not ours, so no leak checks.
    flags=(-max_len=8192 -timeout=30 -rss_limit_mb=4096 -detect_leaks=0
           "-dict=$root/tools/fuzz/ir.dict") ;;
  npy)
    flags=(-max_len=4096 -timeout=5 -rss_limit_mb=2048 -use_value_profile=1) ;;
  *)
    flags=() ;;
  esac
  echo "-- $h: log $dir/fuzz.log"
  # -fork=1: one fuzzing process that keeps going after a crash, so one run
  # finds more than the first bug.
  nice -n 10 "$build/bin/tp-fuzz-$h-fuzzer" -fork=1 -ignore_crashes=1 \
    -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" \
    -artifact_prefix="$dir/crashes/" "${flags[@]}" "$dir/corpus" \
    > "$dir/fuzz.log" 2>&1 || true
  stats=$(grep -E '^#[0-9]+: cov:' "$dir/fuzz.log" | tail -1 || true)
  execs=$(sed -nE 's/^#([0-9]+):.*/\1/p' <<< "$stats")
  rate=$(sed -nE 's/.*exec\/s:? ([0-9]+).*/\1/p' <<< "$stats")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<< "$stats")
  corpus=$(find "$dir/corpus" -type f | wc -l)
  crashes=$(find "$dir/crashes" -type f -name 'crash-*' | wc -l)
  hangs=$(find "$dir/crashes" -type f \( -name 'timeout-*' -o -name 'slow-unit-*' \) | wc -l)
  ooms=$(find "$dir/crashes" -type f -name 'oom-*' | wc -l)
  [ $((crashes + hangs + ooms)) -eq 0 ] || status=1
  rows+=("$(printf '%-8s %10s %8s %6s %8s %8s %9s %6s' "$h" "${execs:-?}" \
    "${rate:-?}" "${cov:-?}" "$corpus" "$crashes" "$hangs" "$ooms")")
done

echo
echo "== summary (${seconds} s each; reproducers in $out/<harness>/crashes)"
printf '%-8s %10s %8s %6s %8s %8s %9s %6s\n' harness execs exec/s cov corpus \
  crashes timeouts ooms
for row in "${rows[@]}"; do echo "$row"; done
exit $status
