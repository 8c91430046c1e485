#!/usr/bin/env bash
# Configures (once) and builds the project into ${BUILD_DIR:-build}.
# Extra arguments go to CMake on the first configure, e.g.
#   BUILD_DIR=build-asan scripts/build.sh -DTP_ENABLE_SANITIZERS=ON
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    "$@"
fi
ninja -C "$build" ${TARGETS:-}
