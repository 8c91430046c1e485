#!/usr/bin/env bash
# The main job on a bundled example: installs what is missing, builds, then
# lowers and fuses a sequence-parallel MLP, printing why anything did not fuse.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
example=${1:-$root/examples/seqpar_mlp.mlir}
"$root/scripts/install-deps.sh"
TARGETS=tp-opt "$root/scripts/build.sh"
echo "== $example, fused by tp-opt"
"$build/bin/tp-opt" "$example" \
  --tp-lower-linear --cse --tp-async-tp="emit-remarks stats"
