// upstream's shard-partition output for test/Pipelines/Inputs/seqpar_mlp.mlir:
//   mlir-opt-22 seqpar_mlp.mlir --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))'
module {
  shard.grid @tp(shape = 8)
  func.func @seqpar_mlp(%arg0: tensor<32x512xf32>, %arg1: tensor<512x256xf32>, %arg2: tensor<256x512xf32>, %arg3: tensor<256x256xf32>, %arg4: tensor<256x512xf32>) -> tensor<32x512xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %all_gather = shard.all_gather %arg0 on @tp grid_axes = [0] gather_axis = 0 : tensor<32x512xf32> -> tensor<256x512xf32>
    %0 = linalg.matmul ins(%all_gather, %arg1 : tensor<256x512xf32>, tensor<512x256xf32>) outs(%arg3 : tensor<256x256xf32>) -> tensor<256x256xf32>
    %proc_linear_idx = shard.process_multi_index on @tp axes = [0] : index
    %1 = arith.cmpi eq, %proc_linear_idx, %c0 : index
    %2 = scf.if %1 -> (tensor<256x512xf32>) {
      scf.yield %arg4 : tensor<256x512xf32>
    } else {
      %4 = tensor.empty() : tensor<256x512xf32>
      %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<256x512xf32>) -> tensor<256x512xf32>
      scf.yield %5 : tensor<256x512xf32>
    }
    %3 = linalg.matmul ins(%0, %arg2 : tensor<256x256xf32>, tensor<256x512xf32>) outs(%2 : tensor<256x512xf32>) -> tensor<256x512xf32>
    %all_reduce = shard.all_reduce %3 on @tp grid_axes = [0] : tensor<256x512xf32> -> tensor<256x512xf32>
    %all_slice = shard.all_slice %all_reduce on @tp grid_axes = [0] slice_axis = 0 : tensor<256x512xf32> -> tensor<32x512xf32>
    return %all_slice : tensor<32x512xf32>
  }
}

