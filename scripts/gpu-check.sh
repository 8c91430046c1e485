#!/usr/bin/env bash
# Every GPU check, most informative first, within a time budget, with tables
# to paste:
#   0. the CUDA device query (tp-gpu-bench --devices): when it fails, the CUDA
#      error is printed and nothing else runs (every step needs a device);
#   1. the CUDA backend's unit tests (each case against the CPU backend; NCCL
#      on one rank);
#   2. one numerics block per fused op (all_gather_matmul, then
#      matmul_reduce_scatter; bf16 and FP8; then all_gather_contract, the
#      weight gradients) on 4 ranks emulated on the GPU,
#      against the unfused program on the CPU backend;
#   3. the glue of an MLP block as PTX kernels (tp-lower-glue-to-nvvm),
#      compiled ahead of time, against the block compiled for the CPU; the
#      attention and MLP blocks as one CUDA graph per step; then a
#      transformer layer (attention + MLP) end to end with tp-run on 8 ranks
#      on one GPU, fused and unfused, fused with its glue on the GPU
#      (--glue gpu), and that as one CUDA graph per step (--cuda-graph), 10
#      steps each: step times and the host-device bytes per step (tables.md);
#   4. one benchmark table (tp-gpu-bench, bf16, 8 ranks on one GPU), and the
#      GEMMs of every schedule for Llama-3 70B and 405B layers, M = 512 to
#      16384, against the cost model (tp-gpu-bench --sweep, then
#      scripts/bench/gpu_sweep.py, which also fits the model's tiles:
#      gpu-target-fitted.json);
#   then the rest: the numerics on 1, 2, 4 and 8 ranks with more schedules,
#   over NCCL (one process per GPU: every GPU when there are several, one
#   rank otherwise, as NCCL refuses two ranks on one GPU), the transformer
#   layer over NCCL, one tp-run over NCCL end to end, and the benchmark with
#   2 pieces and in FP8.
#
#   scripts/gpu-check.sh [--out DIR]                      # builds what is missing
#   scripts/gpu-check.sh --prebuilt DIR|ARCHIVE [--out DIR] # builds nothing
#
# --prebuilt takes scripts/gpu-bundle.sh's archive (unpacked here, with xz or,
# where xz is missing, Python's tarfile) or the folder it unpacks to, for GPU
# machines without the build dependencies. --out (default: a fresh folder
# under /tmp) receives gpu-check.log (everything printed), one log per step,
# tables.md (the benchmark tables) and summary.txt, so a truncated console
# loses nothing.
#
# Once nvidia-smi has listed a GPU, a skip is a failure: TP_REQUIRE_CUDA_DEVICE
# makes the unit tests and tp-gpu-bench fail, with the CUDA error, where they
# would skip on a machine without a GPU.
#
# Time: every step has its own timeout, cut to what is left of the budget
# (--budget, default 500 s after the build); a step the budget no longer
# allows is not run, and counts as a failure. Estimate on one H200 (16
# cores, from the sizes: 0.25 s per tp-run on a CPU, plus ~1.5 s of CUDA and
# cuBLASLt start per process, 8 processes at a time; NCCL start ~3 s):
#   device query 2 s, unit tests 45 s, quick numerics 3 x 15 s, GPU glue
#   5 s, transformer layer 3 x 15 s, benchmark 20 s, GEMM sweep 40 s
#   (8 layers x 6 M x 10 schedules, each rank's calls 4 times, ~1 ms each;
#   then 480 tp-opt runs, one per core), full numerics 35 + 45 s,
#   NCCL numerics 60 + 15 s, layer over NCCL 2 x 15 s, end to end 10 s, two
#   more benchmarks 2 x 20 s: about 8 minutes, under 8.3 only just; the
#   budget cuts the last steps first.
# Exits 1 on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "usage: scripts/gpu-check.sh [--prebuilt DIR|ARCHIVE] [--out DIR] [--budget SECONDS]"
  exit 1
}
prebuilt_arg='' out='' budget=500
while [ $# -gt 0 ]; do
  case $1 in
    --prebuilt) [ $# -ge 2 ] || usage; prebuilt_arg=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --budget) [ $# -ge 2 ] || usage; budget=$2; shift 2
      # Seconds, a positive integer: bash arithmetic would read anything else
      # as a variable name.
      [[ $budget =~ ^[1-9][0-9]*$ ]] || usage ;;
    *) usage ;;
  esac
done

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU visible (nvidia-smi -L); nothing to check"
  exit 1
fi

[ -n "$out" ] || out=$(mktemp -d /tmp/gpu-check.XXXXXX)
mkdir -p "$out" || { echo "gpu-check: cannot make --out $out"; exit 1; }
out=$(cd "$out" && pwd)
log=$out/gpu-check.log
: > "$log"
# Everything printed from here on also lands in the log.
exec > >(tee -a "$log") 2>&1
tee_pid=$!
echo "gpu-check: logs and tables in $out"
nvidia-smi -L
# nvidia-smi sees a GPU: from here a CUDA program that skips for want of a
# device is a broken setup, not a machine without a GPU.
export TP_REQUIRE_CUDA_DEVICE=1

status=0
summary=()
# Scratch folders (the unpacked bundle, wrappers, the end-to-end run) go when
# the script ends; what is worth keeping is copied to $out first.
scratch=()
trap 'rm -rf "${scratch[@]}"' EXIT
finish() {
  echo
  echo "== gpu-check summary ($out)"
  printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
  if [ $status -eq 0 ]; then
    echo "gpu-check: passed" | tee -a "$out/summary.txt"
  else
    echo "gpu-check: FAILED" | tee -a "$out/summary.txt"
  fi
  # Let tee write the last lines before the script ends.
  exec >&- 2>&-
  wait "$tee_pid" 2> /dev/null
  exit $status
}

if [ -n "$prebuilt_arg" ]; then
  if [ -f "$prebuilt_arg" ]; then
    # The archive of scripts/gpu-bundle.sh; tar -J needs the xz program, which
    # a GPU machine may lack: Python's tarfile reads xz without it.
    unpacked=$(mktemp -d /tmp/tp-gpu-bundle.XXXXXX)
    scratch+=("$unpacked")
    if tar -xJf "$prebuilt_arg" -C "$unpacked" 2> /dev/null; then
      echo "gpu-check: unpacked $prebuilt_arg with tar and xz"
    else
      rm -rf "${unpacked:?}"/*
      if python3 -m tarfile -e "$prebuilt_arg" "$unpacked"; then
        echo "gpu-check: unpacked $prebuilt_arg with python3 (no usable xz)"
      else
        echo "gpu-check: cannot unpack $prebuilt_arg (tried tar -J and python3 -m tarfile)"
        status=1
        finish
      fi
    fi
    prebuilt_arg=$unpacked/tp-gpu
  fi
  if ! prebuilt=$(cd "$prebuilt_arg" 2> /dev/null && pwd) || [ ! -x "$prebuilt/bin/tp-run" ]; then
    echo "gpu-check: --prebuilt needs the unpacked bundle of scripts/gpu-bundle.sh"
    status=1
    finish
  fi
  # CUDA's libraries come from this machine (see docs/Runtime.md, "Checking
  # it on a GPU"): the toolkit, or the Python packages (nvidia-nccl-cu13,
  # nvidia-cublas, nvidia-cuda-runtime) that frameworks bring.
  library_path=$prebuilt/lib
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && library_path=$library_path:$d
  done
  for site in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    for lib in $(find "$site/nvidia" -name 'libnccl.so.2' -o -name 'libcublasLt.so.13' \
                   -o -name 'libcudart.so.13' 2>/dev/null); do
      library_path=$library_path:$(dirname "$lib")
    done
  done
  library_path=$library_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo
  echo "== prebuilt: $prebuilt"
  # Only the bundle's programs see its libraries (python3 keeps its own): each
  # runs through a wrapper, and tp-run's rank processes inherit the path.
  bin=$(mktemp -d)
  scratch+=("$bin")
  for p in "$prebuilt"/bin/*; do
    if LD_LIBRARY_PATH=$library_path ldd "$p" 2>&1 | grep -q 'not found'; then
      echo "gpu-check: $p cannot load:"
      LD_LIBRARY_PATH=$library_path ldd "$p" | grep 'not found'
      status=1
      finish
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
  echo
  echo "== build (TP_ENABLE_CUDA=ON)"
  TARGETS="tp-opt tp-run tp-gpu-bench tp-glue-gpu-check TPCudaTests" \
    "$root/scripts/build.sh" -DTP_ENABLE_CUDA=ON || { status=1; finish; }
fi

deadline=$((SECONDS + budget))
steps=0
# step NAME TIMEOUT CMD...: runs CMD under its own timeout (cut to what is
# left of the budget). Its whole output goes to $out/NN-NAME.log; the console
# gets it without the numerics' per-run "ok" lines. The verdict and time go
# to the summary. Returns CMD's status.
step() {
  local name=$1 limit=$2
  shift 2
  steps=$((steps + 1))
  local file
  file=$(printf '%s/%02d-%s.log' "$out" "$steps" "$(echo "$name" | tr -c 'a-zA-Z0-9\n' '-')")
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 10 ]; then
    summary+=("$(printf '%-58s %s' "$name" "NOT RUN (budget of ${budget}s spent)")")
    status=1
    return 1
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo
  echo "== $name (timeout ${limit}s)"
  local start=$SECONDS rc verdict
  timeout -k 10 "$limit" "$@" > "$file" 2>&1
  rc=$?
  grep -v ': ok (' "$file"
  case $rc in
    0) verdict=ok ;;
    124|137) verdict="TIMEOUT after ${limit}s"; status=1 ;;
    *) verdict="FAILED (exit $rc)"; status=1 ;;
  esac
  summary+=("$(printf '%-58s %-24s %4ss  %s' "$name" "$verdict" $((SECONDS - start)) "${file##*/}")")
  return $rc
}
# bench NAME ARGS...: a tp-gpu-bench step whose table also goes to tables.md.
bench() {
  local name=$1
  shift
  step "$name" 120 "$bin/tp-gpu-bench" "$@"
  local rc=$?
  { echo "### $name"; echo; grep -hE '^\||fallbacks:|ranks emulated' "$out/$(printf '%02d' "$steps")"-*.log 2> /dev/null; echo; } \
    >> "$out/tables.md"
  return $rc
}
# Runs go jobs at a time: the GPU has room for several small programs.
jobs=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
numerics=(python3 "$root/test/Runtime/Inputs/fusion_numerics.py"
          --tp-opt "$bin/tp-opt" --tp-run "$bin/tp-run"
          --backend cuda --compare-backend cpu --jobs "$jobs")

if ! step "CUDA device query" 30 "$bin/tp-gpu-bench" --devices; then
  echo "gpu-check: the CUDA device query failed (the error is above); every"
  echo "other step needs a device, so none runs"
  finish
fi

step "CUDA backend unit tests (against the CPU backend)" 150 \
  "$unit" --gtest_brief=1

# Most informative first: every fused op once, on 4 ranks.
step "numerics all_gather_matmul: 4 ranks, bf16 and fp8" 90 \
  "${numerics[@]}" --ranks 4 --dtypes bf16 --schedules ring:2 -- \
  ag_matmul_bias_t ag_kdim ag_reshape_seq ag_bmm ag_multi_partial \
  sc_ag_per_tensor sc_ag_row_wise sc_ag_mxfp8 sc_ag_nvfp4
step "numerics matmul_reduce_scatter: 4 ranks, bf16 and fp8" 90 \
  "${numerics[@]}" --ranks 4 --dtypes bf16 --schedules per_peer:2 -- \
  rs_matmul rs_lastdim_avg rs_reshape_bias rs_addend rs_unreduced rs_bmm \
  sc_rs_per_tensor sc_rs_row_wise sc_rs_mxfp8 sc_rs_nvfp4
step "numerics all_gather_contract: 4 ranks, bf16 and f32" 60 \
  "${numerics[@]}" --ranks 4 --dtypes bf16 f32 --schedules ring:2 per_peer:1 -- \
  agc_wgrad agc_transposed_a agc_ksplit_b agc_seq3d agc_seqfirst

# Glue on the GPU: the MLP block compiled with tp-lower-glue-to-nvvm (PTX
# kernels, host-shared buffers, the runtime's mgpu* entry points) against
# the same block compiled for the CPU.
step "GPU glue: the MLP block's glue kernels vs the CPU, 4 ranks" 60 \
  "$bin/tp-glue-gpu-check"

# The same blocks as one CUDA graph per step (tp-run --cuda-graph): step 1
# as usual, steps 2 and 3 replayed, the last step's results against the
# unfused blocks on the CPU backend.
step "CUDA graph: attention and MLP blocks, f32 and bf16, 4 ranks, vs CPU" 90 \
  sh -c 'for f in "$@"; do "$0" "$f" --ranks 4 --backend cuda --glue gpu --gpu-chip sm_80 \
    --cuda-graph --steps 3 --pipeline tp-async-tp-pipeline --compare-pipeline "" \
    --compare-backend cpu || exit 1; done' "$bin/tp-run" \
  "$root"/test/Pipelines/Inputs/glue_attention_block.mlir \
  "$root"/test/Pipelines/Inputs/glue_mlp_block.mlir \
  "$root"/test/Pipelines/Inputs/glue_attention_block_bf16.mlir \
  "$root"/test/Pipelines/Inputs/glue_mlp_block_bf16.mlir

# A whole transformer layer (attention + MLP, bf16, 8 x 128 tokens, hidden
# 1024) end to end, fused and unfused, 10 steps each, against the unfused
# layer on the CPU backend: its step times and the bytes a step copies
# between host and device (with glue on the host, every op's operands and
# results; with glue on the GPU, the inputs and results; in a CUDA graph
# replay, none) go to tables.md.
layer_program() {  # layer_program RANKS FILE
  python3 "$root/test/Runtime/Inputs/glue_numerics.py" --emit transformer_block --ranks "$1" \
    --dtypes bf16 --sizes 128,1024,4096,16,64 > "$2"
}
layer_table_row() {  # layer_table_row LABEL: from the last step's log
  local file
  file=$(ls "$out/$(printf '%02d' "$steps")"-*.log 2> /dev/null | head -n 1)
  local times bytes
  times=$(sed -n 's/^steps: [0-9]*; step time (slowest rank): //p' "$file" 2> /dev/null)
  bytes=$(sed -n 's/^host-device copies in the last step (all ranks): //p' "$file" 2> /dev/null)
  echo "| $1 | ${times:-did not run} | ${bytes:--} |" >> "$out/tables.md"
}
{ echo "### transformer layer (attention + MLP, bf16, 128 tokens per rank, hidden 1024), 10 steps"; echo
  echo "| run | step time | host-device bytes per step |"; echo "|---|---|---|"; } >> "$out/tables.md"
if layer_program 8 "$out/transformer_layer_8.mlir"; then
  for pipeline in tp-async-tp-pipeline cse; do
    label="8 ranks on one GPU, $([ $pipeline = cse ] && echo unfused || echo fused)"
    step "transformer layer: $label, vs CPU" 120 \
      "$bin/tp-run" "$out/transformer_layer_8.mlir" --ranks 8 --backend cuda --pipeline "$pipeline" \
      --steps 10 --compare-pipeline '' --compare-backend cpu
    layer_table_row "$label"
  done
  # Glue compiled for the GPU too (PTX for sm_80, which the driver compiles
  # for any newer GPU): every buffer stays in host-shared memory.
  label="8 ranks on one GPU, fused, glue on the GPU"
  step "transformer layer: $label, vs CPU" 120 \
    "$bin/tp-run" "$out/transformer_layer_8.mlir" --ranks 8 --backend cuda --glue gpu --gpu-chip sm_80 \
    --pipeline tp-async-tp-pipeline --steps 10 --compare-pipeline '' --compare-backend cpu
  layer_table_row "$label"
  # And the whole step as one CUDA graph: step 1 runs as above, steps 2 to 10
  # replay the graph of every rank's step captured after it.
  label="8 ranks on one GPU, fused, glue on the GPU, CUDA graph"
  step "transformer layer: $label, vs CPU" 120 \
    "$bin/tp-run" "$out/transformer_layer_8.mlir" --ranks 8 --backend cuda --glue gpu --gpu-chip sm_80 \
    --cuda-graph --pipeline tp-async-tp-pipeline --steps 10 --compare-pipeline '' --compare-backend cpu
  layer_table_row "$label"
  graph_note=$(grep -h '^CUDA graph:' "$out/$(printf '%02d' "$steps")"-*.log 2> /dev/null | head -n 1)
else
  summary+=("transformer layer: cannot write the program (python3 with numpy?)")
  status=1
fi

# Also writes a cost-model target description measured on this GPU.
bench "benchmark bf16: 8 ranks on one GPU, M = 8192" --ranks 8 --tokens 8192 \
  --write-target "$out/gpu-target.json"

# The GEMMs of every schedule against the cost model's prediction of them,
# and the model's tiles fitted to them.
step "GEMM sweep: every schedule's GEMMs, Llama 70B/405B, M 512-16384" 120 \
  "$bin/tp-gpu-bench" --sweep "$out/gemm-sweep.csv"
step "GEMM sweep against the h100-nvlink model" 120 \
  python3 "$root/scripts/bench/gpu_sweep.py" --measured "$out/gemm-sweep.csv" \
  --tp-opt "$bin/tp-opt" --write-target "$out/gpu-target-fitted.json"
{ echo "### GEMM sweep against the h100-nvlink model"; echo
  grep -hE '^\||within|fastest' "$out/$(printf '%02d' "$steps")"-*.log 2> /dev/null; echo; } \
  >> "$out/tables.md"

# The rest.
step "numerics: every bf16 pattern on 1, 2, 4, 8 ranks" 150 \
  "${numerics[@]}" --ranks 1 2 4 8 --dtypes bf16 --schedules per_peer:1 ring:2 coalesced:2 -- \
  ag_matmul_bias_t ag_kdim ag_reshape_seq ag_bmm ag_multi_partial \
  rs_matmul rs_lastdim_avg rs_reshape_bias rs_addend rs_unreduced rs_bmm linear_mlp
step "numerics: every scaled pattern on 1, 2, 4, 8 ranks" 150 \
  "${numerics[@]}" --ranks 1 2 4 8 --dtypes bf16 f32 --schedules per_peer:1 per_peer:2 \
  --tolerance 2e-2 -- \
  sc_ag_per_tensor sc_ag_row_wise sc_ag_mxfp8 sc_ag_nvfp4 \
  sc_rs_per_tensor sc_rs_row_wise sc_rs_mxfp8 sc_rs_nvfp4

gpus=$(nvidia-smi -L | grep -c '^GPU')
nccl_ranks=1
[ "$gpus" -eq 2 ] && nccl_ranks=2
[ "$gpus" -gt 2 ] && nccl_ranks="2 $gpus"
step "numerics over NCCL, one process per GPU, ranks: $nccl_ranks" 150 \
  "${numerics[@]}" --transport nccl --jobs 1 --dtypes bf16 --schedules per_peer:2 ring:2 \
  --ranks $nccl_ranks -- \
  ag_matmul_bias_t ag_kdim ag_reshape_seq rs_matmul rs_lastdim_avg rs_reshape_bias linear_mlp
step "numerics over NCCL, scaled, ranks: $nccl_ranks" 90 \
  "${numerics[@]}" --transport nccl --jobs 1 --dtypes bf16 --schedules per_peer:1 \
  --ranks $nccl_ranks --tolerance 2e-2 -- sc_ag_row_wise sc_rs_per_tensor

n=${nccl_ranks##* }
e2e=$(mktemp -d)
scratch+=("$e2e")
rows=$((64 * n))
cat > "$e2e/layer.mlir" <<EOF
shard.grid @tp(shape = $n)
func.func @layer(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>) -> tensor<${rows}x256xbf16> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<64x128xbf16> -> tensor<${rows}x128xbf16>
  %y = tp.matmul %g, %w : tensor<${rows}x128xbf16>, tensor<128x256xbf16> -> tensor<${rows}x256xbf16>
  return %y : tensor<${rows}x256xbf16>
}
EOF
if layer_program "$n" "$e2e/layer_$n.mlir"; then
  for pipeline in tp-async-tp-pipeline cse; do
    label="$n rank(s) over NCCL, $([ $pipeline = cse ] && echo unfused || echo fused)"
    step "transformer layer: $label, vs CPU" 120 \
      "$bin/tp-run" "$e2e/layer_$n.mlir" --ranks "$n" --backend cuda --transport nccl \
      --pipeline "$pipeline" --steps 10 --compare-pipeline '' --compare-backend cpu
    layer_table_row "$label"
  done
fi
echo >> "$out/tables.md"
if [ -n "${graph_note:-}" ]; then printf '%s\n\n' "$graph_note" >> "$out/tables.md"; fi
step "tp-run over NCCL end to end: $n rank(s), results, dump and traces" 90 \
  sh -c '"$@" && ls "$0/t.rank0.json" "$0/dump/rank0/result0.npy"' "$e2e" \
  "$bin/tp-run" "$e2e/layer.mlir" --ranks "$n" --backend cuda --transport nccl \
  --pipeline tp-async-tp --compare-pipeline '' --compare-backend cpu \
  --trace "$e2e/t.json" --dump-dir "$e2e/dump"
cp "$e2e"/t.rank*.json "$out/" 2> /dev/null

bench "benchmark bf16, 2 pieces per rank" --ranks 8 --tokens 8192 --chunks 2
bench "benchmark fp8 (per-tensor)" --ranks 8 --tokens 8192 --fp8

finish
