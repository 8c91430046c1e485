#!/usr/bin/env bash
# Every GPU check, in a few minutes, with tables to paste:
#   1. the CUDA backend's unit tests (each case against the CPU backend;
#      NCCL on one rank);
#   2. numerics of every fused op on the CUDA backend (bf16 and FP8) against
#      the unfused program on the CPU backend, on 1, 2, 4 and 8 ranks emulated
#      on the GPU (loopback transport);
#   3. the same over NCCL, one process per GPU (--transport nccl): on every
#      GPU of the machine when it has several, on one rank otherwise (NCCL
#      refuses two ranks on one GPU);
#   4. one tp-run over NCCL end to end (results, dump, per-rank traces);
#   5. the benchmark table for Llama-class shapes (tp-gpu-bench), bf16 and FP8.
#
#   scripts/gpu-check.sh                  # builds what is missing (TP_ENABLE_CUDA=ON)
#   scripts/gpu-check.sh --prebuilt DIR   # runs DIR/bin with DIR/lib, builds nothing
#
# --prebuilt takes the unpacked archive of scripts/gpu-bundle.sh, for GPU
# machines without the build dependencies. Exits 1 on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
step() { echo; echo "== $*"; }

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU visible (nvidia-smi -L); nothing to check"
  exit 1
fi
nvidia-smi -L

if [ "${1:-}" = "--prebuilt" ]; then
  if ! prebuilt=$(cd "${2:-}" 2> /dev/null && pwd) || [ ! -x "$prebuilt/bin/tp-run" ]; then
    echo "gpu-check: --prebuilt needs the unpacked bundle of scripts/gpu-bundle.sh"
    exit 1
  fi
  # CUDA's libraries come from this machine: the toolkit, or the Python
  # packages (nvidia-nccl-cu13, nvidia-cublas) that frameworks bring.
  library_path=$prebuilt/lib
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do
    [ -d "$d" ] && library_path=$library_path:$d
  done
  for site in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    for lib in $(find "$site/nvidia" -name 'libnccl.so.2' -o -name 'libcublasLt.so.13' \
                   -o -name 'libcudart.so.13' 2>/dev/null); do
      library_path=$library_path:$(dirname "$lib")
    done
  done
  library_path=$library_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  step "prebuilt: $prebuilt"
  # Only the bundle's programs see its libraries (python3 keeps its own): each
  # runs through a wrapper, and tp-run's rank processes inherit the path.
  bin=$(mktemp -d)
  for p in "$prebuilt"/bin/*; do
    if LD_LIBRARY_PATH=$library_path ldd "$p" | grep -q 'not found'; then
      echo "gpu-check: $p cannot load:"
      LD_LIBRARY_PATH=$library_path ldd "$p" | grep 'not found'
      exit 1
    fi
    printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$library_path" "$p" \
      > "$bin/${p##*/}"
    chmod +x "$bin/${p##*/}"
  done
  unit=$bin/TPCudaTests
  echo "every program loads (LD_LIBRARY_PATH=$library_path)"
else
  build=${BUILD_DIR:-$root/build}
  bin=$build/bin
  unit=$build/test/Unit/TPCudaTests
  step "build (TP_ENABLE_CUDA=ON)"
  TARGETS="tp-opt tp-run tp-gpu-bench TPCudaTests" \
    "$root/scripts/build.sh" -DTP_ENABLE_CUDA=ON || exit 1
fi

step "CUDA backend unit tests (against the CPU backend)"
"$unit" --gtest_brief=1 || status=1

# Options first, then `--` and the patterns (--schedules takes a list). Runs
# go jobs at a time: the GPU has room for several small programs. Prints the
# failed runs and the "passed N of M" line.
jobs=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
numerics() {
  python3 "$root/test/Runtime/Inputs/fusion_numerics.py" \
    --tp-opt "$bin/tp-opt" --tp-run "$bin/tp-run" \
    --backend cuda --compare-backend cpu --ranks 1 2 4 8 --jobs "$jobs" "$@" |
    grep -v ': ok (' || status=1
}
step "numerics: fused on cuda vs unfused on cpu"
numerics --dtypes bf16 --schedules per_peer:1 ring:2 -- \
  ag_matmul_bias_t ag_kdim ag_reshape_seq ag_bmm ag_multi_partial \
  rs_matmul rs_lastdim_avg rs_reshape_bias rs_addend rs_unreduced rs_bmm linear_mlp
numerics --dtypes bf16 f32 --schedules per_peer:1 per_peer:2 --tolerance 2e-2 -- \
  sc_ag_per_tensor sc_ag_row_wise sc_ag_mxfp8 sc_ag_nvfp4 \
  sc_rs_per_tensor sc_rs_row_wise sc_rs_mxfp8 sc_rs_nvfp4

gpus=$(nvidia-smi -L | grep -c '^GPU')
nccl_ranks=1
[ "$gpus" -eq 2 ] && nccl_ranks=2
[ "$gpus" -gt 2 ] && nccl_ranks="2 $gpus"
step "numerics over NCCL: one process per GPU, ranks: $nccl_ranks"
numerics --transport nccl --jobs 1 --dtypes bf16 --schedules per_peer:2 ring:2 --ranks $nccl_ranks -- \
  ag_matmul_bias_t ag_kdim ag_reshape_seq rs_matmul rs_lastdim_avg rs_reshape_bias linear_mlp
numerics --transport nccl --jobs 1 --dtypes bf16 --schedules per_peer:1 --ranks $nccl_ranks \
  --tolerance 2e-2 -- sc_ag_row_wise sc_rs_per_tensor

n=${nccl_ranks##* }
step "tp-run over NCCL end to end: $n rank(s), results, dump and traces"
e2e=$(mktemp -d)
rows=$((64 * n))
cat > "$e2e/layer.mlir" <<EOF
shard.grid @tp(shape = $n)
func.func @layer(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>) -> tensor<${rows}x256xbf16> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<64x128xbf16> -> tensor<${rows}x128xbf16>
  %y = tp.matmul %g, %w : tensor<${rows}x128xbf16>, tensor<128x256xbf16> -> tensor<${rows}x256xbf16>
  return %y : tensor<${rows}x256xbf16>
}
EOF
"$bin/tp-run" "$e2e/layer.mlir" --ranks "$n" --backend cuda --transport nccl \
  --pipeline tp-async-tp --compare-pipeline '' --compare-backend cpu \
  --trace "$e2e/t.json" --dump-dir "$e2e/dump" &&
  ls "$e2e/t.rank0.json" "$e2e/dump/rank0/result0.npy" || status=1

step "benchmark: 8 ranks on one GPU, M = 8192 tokens"
"$bin/tp-gpu-bench" --ranks 8 --tokens 8192 || status=1
"$bin/tp-gpu-bench" --ranks 8 --tokens 8192 --chunks 2 || status=1
"$bin/tp-gpu-bench" --ranks 8 --tokens 8192 --fp8 || status=1

echo
[ $status -eq 0 ] && echo "gpu-check: passed" || echo "gpu-check: FAILED"
exit $status
