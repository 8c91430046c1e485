#!/usr/bin/env bash
# The main job on a bundled example: installs what is missing, builds, fuses a
# sequence-parallel MLP (printing why anything did not fuse), then runs it on
# 4 ranks fused and unfused, compares every result, and writes a trace to open
# in Perfetto (ui.perfetto.dev) or chrome://tracing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
example=${1:-$root/examples/seqpar_mlp.mlir}
ranks=${RANKS:-4}
"$root/scripts/install-deps.sh"
TARGETS="tp-opt tp-run" "$root/scripts/build.sh"

echo "== $example, fused by tp-opt"
"$build/bin/tp-opt" "$example" --tp-lower-linear --cse \
  --tp-async-tp="emit-remarks stats"

trace=$build/$(basename "$example" .mlir).trace.json
echo "== executed on $ranks ranks: fused (traced) vs unfused"
"$build/bin/tp-run" "$example" --ranks "$ranks" \
  --pipeline tp-lower-linear,cse,tp-async-tp --compare-pipeline '' --trace "$trace"
echo "== open $trace in Perfetto to see communication and GEMM pieces overlap"
