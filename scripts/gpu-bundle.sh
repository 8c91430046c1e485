#!/usr/bin/env bash
# Packs everything scripts/gpu-check.sh runs into one archive, for a GPU
# machine that has a driver and CUDA 13's libraries but none of this
# project's build dependencies (the lent device machines: no MLIR, no
# OpenBLAS, no network).
#
#   scripts/gpu-bundle.sh        # here: builds, writes .gpu-bundle/tp-gpu.tar.xz
#
# On the GPU machine, from the repository root (the device tool carries
# .gpu-bundle, which git ignores; $OUT is the folder it brings back):
#
#   scripts/gpu-check.sh --prebuilt .gpu-bundle/tp-gpu.tar.xz --out "$OUT"
#
# gpu-check.sh unpacks it with tar and xz, or with python3 where xz is
# missing. The archive holds bin/ (the tools and tests gpu-check.sh runs) and
# lib/ (every shared library they load except the C/C++ runtime and CUDA's
# own cudart, cuBLASLt and NCCL, which the GPU machine provides: see
# docs/Runtime.md, "Checking it on a GPU"). xz keeps it under the device
# tool's 64 MiB carry limit, which a gzip copy next to it would break.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$root/.gpu-bundle
programs=(bin/tp-opt bin/tp-run bin/tp-gpu-bench bin/tp-launch-probe
          bin/tp-glue-gpu-check test/Unit/TPCudaTests)

TARGETS="tp-opt tp-run tp-gpu-bench tp-launch-probe tp-glue-gpu-check TPCudaTests" \
  "$root/scripts/build.sh" -DTP_ENABLE_CUDA=ON
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tp-gpu/bin" "$stage/tp-gpu/lib"
for p in "${programs[@]}"; do
  cp "$build/$p" "$stage/tp-gpu/bin/"
  strip --strip-unneeded "$stage/tp-gpu/bin/$(basename "$p")"
done
for p in "${programs[@]}"; do ldd "$build/$p"; done |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  while read -r lib; do
    case $(basename "$lib") in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|\
      libstdc++.so*|libgcc_s.so*|libcuda*|libcublas*|libnccl*) ;;
      *) cp -L "$lib" "$stage/tp-gpu/lib/" ;;
    esac
  done
mkdir -p "$out"
tar -C "$stage" -cf - tp-gpu | xz -T0 -6 > "$out/tp-gpu.tar.xz"
echo "gpu-bundle: $out/tp-gpu.tar.xz ($(du -h "$out/tp-gpu.tar.xz" | cut -f1);" \
     "$(ls "$stage/tp-gpu/lib" | wc -l) libraries)"
