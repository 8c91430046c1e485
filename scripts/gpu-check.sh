#!/usr/bin/env bash
# Every GPU check on one GPU, in a few minutes, with tables to paste:
#   1. the CUDA backend's unit tests (each case against the CPU backend);
#   2. numerics of every fused op on the CUDA backend (bf16 and FP8) against
#      the unfused program on the CPU backend, on 1, 2, 4 and 8 ranks emulated
#      on the GPU (loopback transport);
#   3. the same over NCCL, one process per GPU (--transport nccl): on every
#      GPU of the machine when it has several, on one rank otherwise (NCCL
#      refuses two ranks on one GPU);
#   4. the benchmark table for Llama-class shapes (tp-gpu-bench), bf16 and FP8.
# Builds what is missing first (TP_ENABLE_CUDA=ON). Exits 1 on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
status=0
step() { echo; echo "== $*"; }

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU visible (nvidia-smi -L); nothing to check"
  exit 1
fi
nvidia-smi -L

step "build (TP_ENABLE_CUDA=ON)"
if [ ! -x "$build/bin/tp-gpu-bench" ] || [ ! -x "$build/test/Unit/TPCudaTests" ]; then
  TARGETS="tp-opt tp-run tp-gpu-bench TPCudaTests" \
    "$root/scripts/build.sh" -DTP_ENABLE_CUDA=ON || exit 1
fi

step "CUDA backend unit tests (against the CPU backend)"
"$build/test/Unit/TPCudaTests" --gtest_brief=1 || status=1

step "numerics: fused on cuda vs unfused on cpu"
numerics() {
  python3 "$root/test/Runtime/Inputs/fusion_numerics.py" \
    --tp-opt "$build/bin/tp-opt" --tp-run "$build/bin/tp-run" \
    --backend cuda --compare-backend cpu --ranks 1 2 4 8 "$@" | tail -n 3 || status=1
}
numerics --dtypes bf16 --schedules per_peer:1 ring:2 \
  ag_matmul_bias_t ag_kdim ag_reshape_seq ag_bmm ag_multi_partial \
  rs_matmul rs_lastdim_avg rs_reshape_bias rs_addend rs_unreduced rs_bmm linear_mlp
numerics --dtypes bf16 f32 --schedules per_peer:1 per_peer:2 --tolerance 2e-2 \
  sc_ag_per_tensor sc_ag_row_wise sc_ag_mxfp8 sc_ag_nvfp4 \
  sc_rs_per_tensor sc_rs_row_wise sc_rs_mxfp8 sc_rs_nvfp4

gpus=$(nvidia-smi -L | grep -c '^GPU')
nccl_ranks=1
[ "$gpus" -ge 2 ] && nccl_ranks="2 $gpus"
step "numerics over NCCL: one process per GPU, ranks: $nccl_ranks"
numerics --transport nccl --dtypes bf16 --schedules per_peer:2 ring:2 --ranks $nccl_ranks \
  ag_matmul_bias_t ag_kdim ag_reshape_seq rs_matmul rs_lastdim_avg rs_reshape_bias linear_mlp
numerics --transport nccl --dtypes bf16 --schedules per_peer:1 --ranks $nccl_ranks \
  --tolerance 2e-2 sc_ag_row_wise sc_rs_per_tensor

step "benchmark: 8 ranks on one GPU, M = 8192 tokens"
"$build/bin/tp-gpu-bench" --ranks 8 --tokens 8192 || status=1
"$build/bin/tp-gpu-bench" --ranks 8 --tokens 8192 --chunks 2 || status=1
"$build/bin/tp-gpu-bench" --ranks 8 --tokens 8192 --fp8 || status=1

echo
[ $status -eq 0 ] && echo "gpu-check: passed" || echo "gpu-check: FAILED"
exit $status
