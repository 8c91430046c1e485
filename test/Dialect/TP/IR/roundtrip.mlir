// RUN: tp-opt %s | FileCheck %s
// Verify the printed output can be parsed.
// RUN: tp-opt %s | tp-opt | FileCheck %s
// Verify the generic form can be parsed.
// RUN: tp-opt %s --mlir-print-op-generic | tp-opt | FileCheck %s

// Every op of the tp dialect in its custom syntax, over a 1-D grid of 4 ranks
// (@tp) and a 2-D grid of 2x4 ranks (@g).

// CHECK: shard.grid @tp(shape = 4)
// CHECK: shard.grid @g(shape = 2x4)
shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

// CHECK-LABEL: func.func @all_gather(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-SAME:    ) -> tensor<32x64xf32>
// CHECK:         %[[R0:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
// CHECK:         return %[[R0]] : tensor<32x64xf32>
func.func @all_gather(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// CHECK-LABEL: func.func @all_gather_last(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-SAME:    ) -> tensor<8x256xf32>
// CHECK:         %[[R0:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 1 : tensor<8x64xf32> -> tensor<8x256xf32>
// CHECK:         return %[[R0]] : tensor<8x256xf32>
func.func @all_gather_last(%x: tensor<8x64xf32>) -> tensor<8x256xf32> {
  %0 = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<8x64xf32> -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}

// CHECK-LABEL: func.func @all_gather_grid2d(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-SAME:    ) -> tensor<32x64xf32>
// CHECK:         %[[R0:.*]] = tp.all_gather %[[X]] on @g axes = [1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
// CHECK:         return %[[R0]] : tensor<32x64xf32>
func.func @all_gather_grid2d(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  %0 = tp.all_gather %x on @g axes = [1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// CHECK-LABEL: func.func @all_gather_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>
// CHECK-SAME:    ) -> tensor<?x64xf32>
// CHECK:         %[[R0:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 0 : tensor<?x64xf32> -> tensor<?x64xf32>
// CHECK:         return %[[R0]] : tensor<?x64xf32>
func.func @all_gather_dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x64xf32> -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// CHECK-LABEL: func.func @reduce_scatter(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK-SAME:    ) -> tensor<8x64xf32>
// CHECK:         %[[R0:.*]] = tp.reduce_scatter %[[X]] on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
// CHECK:         return %[[R0]] : tensor<8x64xf32>
func.func @reduce_scatter(%x: tensor<32x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @reduce_scatter_grid2d(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x64xbf16>
// CHECK-SAME:    ) -> tensor<2x8xbf16>
// CHECK:         %[[R0:.*]] = tp.reduce_scatter %[[X]] on @g axes = [0, 1] dim = 1 reduce = max : tensor<2x64xbf16> -> tensor<2x8xbf16>
// CHECK:         return %[[R0]] : tensor<2x8xbf16>
func.func @reduce_scatter_grid2d(%x: tensor<2x64xbf16>) -> tensor<2x8xbf16> {
  %0 = tp.reduce_scatter %x on @g axes = [0, 1] dim = 1 reduce = max : tensor<2x64xbf16> -> tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}

// CHECK-LABEL: func.func @all_reduce(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-SAME:    ) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x64xf32>)
// CHECK:         %[[R0:.*]] = tp.all_reduce %[[X]] on @tp axes = [0] reduce = sum : tensor<8x64xf32>
// CHECK:         %[[R1:.*]] = tp.all_reduce %[[R0]] on @g axes = [1] reduce = avg : tensor<8x64xf32>
// CHECK:         %[[C:.*]] = tensor.cast %[[R1]] : tensor<8x64xf32> to tensor<?x64xf32>
// CHECK:         %[[R2:.*]] = tp.all_reduce %[[C]] on @tp axes = [0] reduce = min : tensor<?x64xf32>
// CHECK:         return %[[R0]], %[[R1]], %[[R2]] : tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x64xf32>
func.func @all_reduce(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x64xf32>) {
  %0 = tp.all_reduce %x on @tp axes = [0] reduce = sum : tensor<8x64xf32>
  %1 = tp.all_reduce %0 on @g axes = [1] reduce = avg : tensor<8x64xf32>
  %c = tensor.cast %1 : tensor<8x64xf32> to tensor<?x64xf32>
  %2 = tp.all_reduce %c on @tp axes = [0] reduce = min : tensor<?x64xf32>
  return %0, %1, %2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x64xf32>
}

// CHECK-LABEL: func.func @group_rank(
// CHECK-SAME:    ) -> (index, index)
// CHECK:         %[[R0:.*]] = tp.group_rank on @tp axes = [0]
// CHECK:         %[[R1:.*]] = tp.group_rank on @g axes = [1]
// CHECK:         return %[[R0]], %[[R1]] : index, index
func.func @group_rank() -> (index, index) {
  %0 = tp.group_rank on @tp axes = [0]
  %1 = tp.group_rank on @g axes = [1]
  return %0, %1 : index, index
}

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-SAME:    %[[BT:[a-zA-Z0-9_]+]]: tensor<128x64xf32>
// CHECK-SAME:    ) -> (tensor<32x128xf32>, tensor<32x128xf32>)
// CHECK:         %[[R0:.*]] = tp.matmul %[[A]], %[[B]] : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
// CHECK:         %[[R1:.*]] = tp.matmul %[[A]], %[[BT]] transpose_b : tensor<32x64xf32>, tensor<128x64xf32> -> tensor<32x128xf32>
// CHECK:         return %[[R0]], %[[R1]] : tensor<32x128xf32>, tensor<32x128xf32>
func.func @matmul(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>, %bt: tensor<128x64xf32>) -> (tensor<32x128xf32>, tensor<32x128xf32>) {
  %0 = tp.matmul %a, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  %1 = tp.matmul %a, %bt transpose_b : tensor<32x64xf32>, tensor<128x64xf32> -> tensor<32x128xf32>
  return %0, %1 : tensor<32x128xf32>, tensor<32x128xf32>
}

// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<?x64xbf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64x128xbf16>
// CHECK-SAME:    ) -> tensor<?x128xbf16>
// CHECK:         %[[R0:.*]] = tp.matmul %[[A]], %[[B]] : tensor<?x64xbf16>, tensor<64x128xbf16> -> tensor<?x128xbf16>
// CHECK:         return %[[R0]] : tensor<?x128xbf16>
func.func @matmul_dynamic(%a: tensor<?x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<?x128xbf16> {
  %0 = tp.matmul %a, %b : tensor<?x64xbf16>, tensor<64x128xbf16> -> tensor<?x128xbf16>
  return %0 : tensor<?x128xbf16>
}

// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x32x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<4x64x128xf16>
// CHECK-SAME:    %[[B2:[a-zA-Z0-9_]+]]: tensor<64x128xf16>
// CHECK-SAME:    %[[BT:[a-zA-Z0-9_]+]]: tensor<128x64xf16>
// CHECK-SAME:    ) -> (tensor<4x32x128xf16>, tensor<4x32x128xf16>, tensor<4x32x128xf16>)
// CHECK:         %[[R0:.*]] = tp.batch_matmul %[[A]], %[[B]] : tensor<4x32x64xf16>, tensor<4x64x128xf16> -> tensor<4x32x128xf16>
// CHECK:         %[[R1:.*]] = tp.batch_matmul %[[A]], %[[B2]] : tensor<4x32x64xf16>, tensor<64x128xf16> -> tensor<4x32x128xf16>
// CHECK:         %[[R2:.*]] = tp.batch_matmul %[[A]], %[[BT]] transpose_b : tensor<4x32x64xf16>, tensor<128x64xf16> -> tensor<4x32x128xf16>
// CHECK:         return %[[R0]], %[[R1]], %[[R2]] : tensor<4x32x128xf16>, tensor<4x32x128xf16>, tensor<4x32x128xf16>
func.func @batch_matmul(%a: tensor<4x32x64xf16>, %b: tensor<4x64x128xf16>, %b2: tensor<64x128xf16>, %bt: tensor<128x64xf16>) -> (tensor<4x32x128xf16>, tensor<4x32x128xf16>, tensor<4x32x128xf16>) {
  %0 = tp.batch_matmul %a, %b : tensor<4x32x64xf16>, tensor<4x64x128xf16> -> tensor<4x32x128xf16>
  %1 = tp.batch_matmul %a, %b2 : tensor<4x32x64xf16>, tensor<64x128xf16> -> tensor<4x32x128xf16>
  %2 = tp.batch_matmul %a, %bt transpose_b : tensor<4x32x64xf16>, tensor<128x64xf16> -> tensor<4x32x128xf16>
  return %0, %1, %2 : tensor<4x32x128xf16>, tensor<4x32x128xf16>, tensor<4x32x128xf16>
}

// CHECK-LABEL: func.func @bias_add(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x32x128xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128xf32>
// CHECK-SAME:    ) -> tensor<4x32x128xf32>
// CHECK:         %[[R0:.*]] = tp.bias_add %[[X]], %[[B]] : tensor<4x32x128xf32>, tensor<128xf32>
// CHECK:         return %[[R0]] : tensor<4x32x128xf32>
func.func @bias_add(%x: tensor<4x32x128xf32>, %b: tensor<128xf32>) -> tensor<4x32x128xf32> {
  %0 = tp.bias_add %x, %b : tensor<4x32x128xf32>, tensor<128xf32>
  return %0 : tensor<4x32x128xf32>
}

// CHECK-LABEL: func.func @linear_column(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<32xf32>
// CHECK-SAME:    ) -> tensor<32x32xf32>
// CHECK:         %[[R0:.*]] = tp.linear %[[X]], %[[W]] bias %[[B]] on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<32x32xf32>
// CHECK:         return %[[R0]] : tensor<32x32xf32>
func.func @linear_column(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  %0 = tp.linear %x, %w bias %b on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// CHECK-LABEL: func.func @linear_column_sp(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK-SAME:    ) -> tensor<32x32xf32>
// CHECK:         %[[R0:.*]] = tp.linear %[[X]], %[[W]] on @tp axes = [0] column input = shard(0) output = shard(1) : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
// CHECK:         return %[[R0]] : tensor<32x32xf32>
func.func @linear_column_sp(%x: tensor<8x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  %0 = tp.linear %x, %w on @tp axes = [0] column input = shard(0) output = shard(1) : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// CHECK-LABEL: func.func @linear_row(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x16xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<128x16xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128xf32>
// CHECK-SAME:    ) -> tensor<32x128xf32>
// CHECK:         %[[R0:.*]] = tp.linear %[[X]], %[[W]] bias %[[B]] on @tp axes = [0] row input = shard(1) output = replicated : (tensor<32x16xf32>, tensor<128x16xf32>, tensor<128xf32>) -> tensor<32x128xf32>
// CHECK:         return %[[R0]] : tensor<32x128xf32>
func.func @linear_row(%x: tensor<32x16xf32>, %w: tensor<128x16xf32>, %b: tensor<128xf32>) -> tensor<32x128xf32> {
  %0 = tp.linear %x, %w bias %b on @tp axes = [0] row input = shard(1) output = replicated : (tensor<32x16xf32>, tensor<128x16xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// CHECK-LABEL: func.func @linear_row_sp(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x32x16xbf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<128x16xbf16>
// CHECK-SAME:    ) -> tensor<2x8x128xbf16>
// CHECK:         %[[R0:.*]] = tp.linear %[[X]], %[[W]] on @g axes = [1] row input = shard(2) output = shard(1) : (tensor<2x32x16xbf16>, tensor<128x16xbf16>) -> tensor<2x8x128xbf16>
// CHECK:         return %[[R0]] : tensor<2x8x128xbf16>
func.func @linear_row_sp(%x: tensor<2x32x16xbf16>, %w: tensor<128x16xbf16>) -> tensor<2x8x128xbf16> {
  %0 = tp.linear %x, %w on @g axes = [1] row input = shard(2) output = shard(1) : (tensor<2x32x16xbf16>, tensor<128x16xbf16>) -> tensor<2x8x128xbf16>
  return %0 : tensor<2x8x128xbf16>
}

// CHECK-LABEL: func.func @linear_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK-SAME:    ) -> tensor<?x32xf32>
// CHECK:         %[[R0:.*]] = tp.linear %[[X]], %[[W]] on @tp axes = [0] column input = shard(0) output = shard(1) : (tensor<?x64xf32>, tensor<32x64xf32>) -> tensor<?x32xf32>
// CHECK:         return %[[R0]] : tensor<?x32xf32>
func.func @linear_dynamic(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %0 = tp.linear %x, %w on @tp axes = [0] column input = shard(0) output = shard(1) : (tensor<?x64xf32>, tensor<32x64xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// CHECK-LABEL: func.func @quantize(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-SAME:    ) -> (tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<64x128xf8E5M2>, tensor<64x1xf32>, tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>)
// CHECK:         %[[Q0:.*]], %[[S0:.*]] = tp.quantize %[[X]] per_tensor : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<f32>
// CHECK:         %[[Q1:.*]], %[[S1:.*]] = tp.quantize %[[X]] row_wise : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<64x1xf32>
// CHECK:         %[[Q2:.*]], %[[S2:.*]] = tp.quantize %[[X]] mxfp8 : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
// CHECK:         %[[Q3:.*]], %[[S3:.*]], %[[G3:.*]] = tp.quantize %[[X]] nvfp4 : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>
// CHECK:         return %[[Q0]], %[[S0]], %[[Q1]], %[[S1]], %[[Q2]], %[[S2]], %[[Q3]], %[[S3]], %[[G3]] : tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<64x128xf8E5M2>, tensor<64x1xf32>, tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>
func.func @quantize(%x: tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<64x128xf8E5M2>, tensor<64x1xf32>, tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>) {
  %q0, %s0 = tp.quantize %x per_tensor : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  %q1, %s1 = tp.quantize %x row_wise : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<64x1xf32>
  %q2, %s2 = tp.quantize %x mxfp8 : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %q3, %s3, %g3 = tp.quantize %x nvfp4 : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>
  return %q0, %s0, %q1, %s1, %q2, %s2, %q3, %s3, %g3 : tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<64x128xf8E5M2>, tensor<64x1xf32>, tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>
}

// CHECK-LABEL: func.func @quantize_amax(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<64x128xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<f32> {tp.replicated}
// CHECK:         %[[Q0:.*]], %[[S0:.*]] = tp.quantize %[[X]] amax %[[M]] per_tensor : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<f32>
// CHECK:         %[[Q1:.*]], %[[S1:.*]], %[[G1:.*]] = tp.quantize %[[X]] amax %[[M]] nvfp4 : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>
// CHECK:         return %[[S0]], %[[G1]]
func.func @quantize_amax(%x: tensor<64x128xf32>, %m: tensor<f32> {tp.replicated}) -> (tensor<f32>, tensor<f32>) {
  %q0, %s0 = tp.quantize %x amax %m per_tensor : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  %q1, %s1, %g1 = tp.quantize %x amax %m nvfp4 : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>
  return %s0, %g1 : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @quantize_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xbf16>
// CHECK-SAME:    ) -> (tensor<?x64xf8E4M3FN>, tensor<?x1xf32>)
// CHECK:         %[[Q:.*]], %[[S:.*]] = tp.quantize %[[X]] row_wise : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<?x1xf32>
// CHECK:         return %[[Q]], %[[S]] : tensor<?x64xf8E4M3FN>, tensor<?x1xf32>
func.func @quantize_dynamic(%x: tensor<?x64xbf16>) -> (tensor<?x64xf8E4M3FN>, tensor<?x1xf32>) {
  %q, %s = tp.quantize %x row_wise : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<?x1xf32>
  return %q, %s : tensor<?x64xf8E4M3FN>, tensor<?x1xf32>
}

// CHECK-LABEL: func.func @dequantize(
// CHECK-SAME:    %[[Q0:[a-zA-Z0-9_]+]]: tensor<64x128xf8E4M3FN>
// CHECK-SAME:    %[[S0:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[Q1:[a-zA-Z0-9_]+]]: tensor<64x128xf8E5M2>
// CHECK-SAME:    %[[S1:[a-zA-Z0-9_]+]]: tensor<64x1xf32>
// CHECK-SAME:    %[[S2:[a-zA-Z0-9_]+]]: tensor<64x4xf8E8M0FNU>
// CHECK-SAME:    %[[Q3:[a-zA-Z0-9_]+]]: tensor<64x128xf4E2M1FN>
// CHECK-SAME:    %[[S3:[a-zA-Z0-9_]+]]: tensor<64x8xf8E4M3FN>
// CHECK-SAME:    %[[G3:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    ) -> (tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xf16>, tensor<64x128xf32>)
// CHECK:         %[[R0:.*]] = tp.dequantize %[[Q0]] scale %[[S0]] per_tensor : (tensor<64x128xf8E4M3FN>, tensor<f32>) -> tensor<64x128xf32>
// CHECK:         %[[R1:.*]] = tp.dequantize %[[Q1]] scale %[[S1]] row_wise : (tensor<64x128xf8E5M2>, tensor<64x1xf32>) -> tensor<64x128xbf16>
// CHECK:         %[[R2:.*]] = tp.dequantize %[[Q0]] scale %[[S2]] mxfp8 : (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) -> tensor<64x128xf16>
// CHECK:         %[[R3:.*]] = tp.dequantize %[[Q3]] scale %[[S3]] global %[[G3]] nvfp4 : (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>) -> tensor<64x128xf32>
// CHECK:         return %[[R0]], %[[R1]], %[[R2]], %[[R3]] : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xf16>, tensor<64x128xf32>
func.func @dequantize(%q0: tensor<64x128xf8E4M3FN>, %s0: tensor<f32>, %q1: tensor<64x128xf8E5M2>, %s1: tensor<64x1xf32>, %s2: tensor<64x4xf8E8M0FNU>, %q3: tensor<64x128xf4E2M1FN>, %s3: tensor<64x8xf8E4M3FN>, %g3: tensor<f32>) -> (tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xf16>, tensor<64x128xf32>) {
  %0 = tp.dequantize %q0 scale %s0 per_tensor : (tensor<64x128xf8E4M3FN>, tensor<f32>) -> tensor<64x128xf32>
  %1 = tp.dequantize %q1 scale %s1 row_wise : (tensor<64x128xf8E5M2>, tensor<64x1xf32>) -> tensor<64x128xbf16>
  %2 = tp.dequantize %q0 scale %s2 mxfp8 : (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) -> tensor<64x128xf16>
  %3 = tp.dequantize %q3 scale %s3 global %g3 nvfp4 : (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>) -> tensor<64x128xf32>
  return %0, %1, %2, %3 : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xf16>, tensor<64x128xf32>
}

// CHECK-LABEL: func.func @scaled_matmul_per_tensor(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<32x64xf8E4M3FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf8E5M2>
// CHECK-SAME:    %[[BS:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[BIAS:[a-zA-Z0-9_]+]]: tensor<128xbf16>
// CHECK-SAME:    ) -> tensor<32x128xbf16>
// CHECK:         %[[R0:.*]] = tp.scaled_matmul %[[A]] scale %[[AS]], %[[B]] scale %[[BS]] bias %[[BIAS]] per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E5M2>, tensor<f32>, tensor<128xbf16>) -> tensor<32x128xbf16>
// CHECK:         return %[[R0]] : tensor<32x128xbf16>
func.func @scaled_matmul_per_tensor(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E5M2>, %bs: tensor<f32>, %bias: tensor<128xbf16>) -> tensor<32x128xbf16> {
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs bias %bias per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E5M2>, tensor<f32>, tensor<128xbf16>) -> tensor<32x128xbf16>
  return %0 : tensor<32x128xbf16>
}

// CHECK-LABEL: func.func @scaled_matmul_row_wise(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<32x64xf8E4M3FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<32x1xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf8E4M3FN>
// CHECK-SAME:    %[[BS:[a-zA-Z0-9_]+]]: tensor<128x1xf32>
// CHECK-SAME:    ) -> tensor<32x128xf32>
// CHECK:         %[[R0:.*]] = tp.scaled_matmul %[[A]] scale %[[AS]], %[[B]] scale %[[BS]] row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
// CHECK:         return %[[R0]] : tensor<32x128xf32>
func.func @scaled_matmul_row_wise(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) -> tensor<32x128xf32> {
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// CHECK-LABEL: func.func @scaled_matmul_mxfp8(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<32x64xf8E4M3FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<32x2xf8E8M0FNU>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf8E4M3FN>
// CHECK-SAME:    %[[BS:[a-zA-Z0-9_]+]]: tensor<128x2xf8E8M0FNU>
// CHECK-SAME:    %[[BIAS:[a-zA-Z0-9_]+]]: tensor<128xf16>
// CHECK-SAME:    ) -> tensor<32x128xf16>
// CHECK:         %[[R0:.*]] = tp.scaled_matmul %[[A]] scale %[[AS]], %[[B]] scale %[[BS]] bias %[[BIAS]] mxfp8 : (tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<128xf16>) -> tensor<32x128xf16>
// CHECK:         return %[[R0]] : tensor<32x128xf16>
func.func @scaled_matmul_mxfp8(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x2xf8E8M0FNU>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x2xf8E8M0FNU>, %bias: tensor<128xf16>) -> tensor<32x128xf16> {
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs bias %bias mxfp8 : (tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<128xf16>) -> tensor<32x128xf16>
  return %0 : tensor<32x128xf16>
}

// CHECK-LABEL: func.func @scaled_matmul_nvfp4(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<32x64xf4E2M1FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<32x4xf8E4M3FN>
// CHECK-SAME:    %[[AG:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf4E2M1FN>
// CHECK-SAME:    %[[BS:[a-zA-Z0-9_]+]]: tensor<128x4xf8E4M3FN>
// CHECK-SAME:    %[[BG:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[BIAS:[a-zA-Z0-9_]+]]: tensor<128xbf16>
// CHECK-SAME:    ) -> tensor<32x128xbf16>
// CHECK:         %[[R0:.*]] = tp.scaled_matmul %[[A]] scale %[[AS]] global %[[AG]], %[[B]] scale %[[BS]] global %[[BG]] bias %[[BIAS]] nvfp4 : (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128xbf16>) -> tensor<32x128xbf16>
// CHECK:         return %[[R0]] : tensor<32x128xbf16>
func.func @scaled_matmul_nvfp4(%a: tensor<32x64xf4E2M1FN>, %as: tensor<32x4xf8E4M3FN>, %ag: tensor<f32>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x4xf8E4M3FN>, %bg: tensor<f32>, %bias: tensor<128xbf16>) -> tensor<32x128xbf16> {
  %0 = tp.scaled_matmul %a scale %as global %ag, %b scale %bs global %bg bias %bias nvfp4 : (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128xbf16>) -> tensor<32x128xbf16>
  return %0 : tensor<32x128xbf16>
}

// CHECK-LABEL: func.func @all_gather_matmul(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-SAME:    %[[W1:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-SAME:    %[[W2:[a-zA-Z0-9_]+]]: tensor<64x32xf32>
// CHECK-SAME:    %[[W3:[a-zA-Z0-9_]+]]: tensor<64x16xf32>
// CHECK-SAME:    %[[B1:[a-zA-Z0-9_]+]]: tensor<128xf32>
// CHECK-SAME:    %[[B3:[a-zA-Z0-9_]+]]: tensor<16xf32>
// CHECK-SAME:    ) -> (tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>)
// CHECK:         %[[R0:.*]]:3 = tp.all_gather_matmul %[[X]], [%[[W1]] bias %[[B1]], %[[W2]], %[[W3]] bias %[[B3]]] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<64x32xf32>, tensor<64x16xf32>, tensor<128xf32>, tensor<16xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1, %[[R0]]#2 : tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>
func.func @all_gather_matmul(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<64x32xf32>, %w3: tensor<64x16xf32>, %b1: tensor<128xf32>, %b3: tensor<16xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>) {
  %0:3 = tp.all_gather_matmul %x, [%w1 bias %b1, %w2, %w3 bias %b3] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<64x32xf32>, tensor<64x16xf32>, tensor<128xf32>, tensor<16xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>)
  return %0#0, %0#1, %0#2 : tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>
}

// CHECK-LABEL: func.func @all_gather_matmul_gathered(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x8x64xbf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<128x64xbf16>
// CHECK-SAME:    ) -> (tensor<2x32x64xbf16>, tensor<2x32x128xbf16>)
// CHECK:         %[[R0:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 1 transpose_b return_gathered : (tensor<2x8x64xbf16>, tensor<128x64xbf16>) -> (tensor<2x32x64xbf16>, tensor<2x32x128xbf16>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1 : tensor<2x32x64xbf16>, tensor<2x32x128xbf16>
func.func @all_gather_matmul_gathered(%x: tensor<2x8x64xbf16>, %w: tensor<128x64xbf16>) -> (tensor<2x32x64xbf16>, tensor<2x32x128xbf16>) {
  %0:2 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 1 transpose_b return_gathered : (tensor<2x8x64xbf16>, tensor<128x64xbf16>) -> (tensor<2x32x64xbf16>, tensor<2x32x128xbf16>)
  return %0#0, %0#1 : tensor<2x32x64xbf16>, tensor<2x32x128xbf16>
}

// CHECK-LABEL: func.func @all_gather_matmul_last(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x16xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-SAME:    ) -> tensor<32x128xf32>
// CHECK:         %[[R0:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 1 : (tensor<32x16xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
// CHECK:         return %[[R0]] : tensor<32x128xf32>
func.func @all_gather_matmul_last(%x: tensor<32x16xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 1 : (tensor<32x16xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// Schedule attributes. The enum attribute is spelled #tp.algorithm<ring> (see
// FINDINGS.txt, item 2).
// CHECK-LABEL: func.func @all_gather_matmul_schedule(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-SAME:    ) -> tensor<32x128xf32>
// CHECK:         %[[R0:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @g axes = [1] dim = 0 {algorithm = #tp.algorithm<ring>, chunks = 4 : i64} : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
// CHECK:         return %[[R0]] : tensor<32x128xf32>
func.func @all_gather_matmul_schedule(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  %0 = tp.all_gather_matmul %x, [%w] on @g axes = [1] dim = 0 {algorithm = #tp.algorithm<ring>, chunks = 4} : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// CHECK-LABEL: func.func @all_gather_matmul_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-SAME:    ) -> tensor<?x128xf32>
// CHECK:         %[[R0:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 {algorithm = #tp.algorithm<per_peer>} : (tensor<?x64xf32>, tensor<64x128xf32>) -> tensor<?x128xf32>
// CHECK:         return %[[R0]] : tensor<?x128xf32>
func.func @all_gather_matmul_dynamic(%x: tensor<?x64xf32>, %w: tensor<64x128xf32>) -> tensor<?x128xf32> {
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 {algorithm = #tp.algorithm<per_peer>} : (tensor<?x64xf32>, tensor<64x128xf32>) -> tensor<?x128xf32>
  return %0 : tensor<?x128xf32>
}

// CHECK-LABEL: func.func @matmul_reduce_scatter(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x16xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<16x64xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf32>
// CHECK-SAME:    ) -> tensor<8x64xf32>
// CHECK:         %[[R0:.*]] = tp.matmul_reduce_scatter %[[X]], %[[W]] bias %[[B]] on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
// CHECK:         return %[[R0]] : tensor<8x64xf32>
func.func @matmul_reduce_scatter(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<8x64xf32> {
  %0 = tp.matmul_reduce_scatter %x, %w bias %b on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @matmul_reduce_scatter_full(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x32x16xbf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<64x16xbf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xbf16>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: tensor<2x32x64xbf16>
// CHECK-SAME:    ) -> (tensor<2x32x64xbf16>, tensor<2x8x64xbf16>)
// CHECK:         %[[R0:.*]]:2 = tp.matmul_reduce_scatter %[[X]], %[[W]] bias %[[B]] addend %[[C]] on @tp axes = [0] dim = 1 reduce = avg transpose_b return_unreduced {algorithm = #tp.algorithm<per_peer>, chunks = 2 : i64} : (tensor<2x32x16xbf16>, tensor<64x16xbf16>, tensor<64xbf16>, tensor<2x32x64xbf16>) -> (tensor<2x32x64xbf16>, tensor<2x8x64xbf16>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1 : tensor<2x32x64xbf16>, tensor<2x8x64xbf16>
func.func @matmul_reduce_scatter_full(%x: tensor<2x32x16xbf16>, %w: tensor<64x16xbf16>, %b: tensor<64xbf16>, %c: tensor<2x32x64xbf16>) -> (tensor<2x32x64xbf16>, tensor<2x8x64xbf16>) {
  %0:2 = tp.matmul_reduce_scatter %x, %w bias %b addend %c on @tp axes = [0] dim = 1 reduce = avg transpose_b return_unreduced {algorithm = #tp.algorithm<per_peer>, chunks = 2} : (tensor<2x32x16xbf16>, tensor<64x16xbf16>, tensor<64xbf16>, tensor<2x32x64xbf16>) -> (tensor<2x32x64xbf16>, tensor<2x8x64xbf16>)
  return %0#0, %0#1 : tensor<2x32x64xbf16>, tensor<2x8x64xbf16>
}

// CHECK-LABEL: func.func @matmul_reduce_scatter_addend(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x16xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<16x64xf32>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK-SAME:    ) -> tensor<32x16xf32>
// CHECK:         %[[R0:.*]] = tp.matmul_reduce_scatter %[[X]], %[[W]] addend %[[C]] on @g axes = [1] dim = 1 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<32x16xf32>
// CHECK:         return %[[R0]] : tensor<32x16xf32>
func.func @matmul_reduce_scatter_addend(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x16xf32> {
  %0 = tp.matmul_reduce_scatter %x, %w addend %c on @g axes = [1] dim = 1 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// CHECK-LABEL: func.func @all_gather_scaled_matmul(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf8E4M3FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<8x1xf32>
// CHECK-SAME:    %[[B1:[a-zA-Z0-9_]+]]: tensor<128x64xf8E4M3FN>
// CHECK-SAME:    %[[S1:[a-zA-Z0-9_]+]]: tensor<128x1xf32>
// CHECK-SAME:    %[[B2:[a-zA-Z0-9_]+]]: tensor<32x64xf8E5M2>
// CHECK-SAME:    %[[S2:[a-zA-Z0-9_]+]]: tensor<32x1xf32>
// CHECK-SAME:    %[[C1:[a-zA-Z0-9_]+]]: tensor<128xbf16>
// CHECK-SAME:    ) -> (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>)
// CHECK:         %[[R0:.*]]:4 = tp.all_gather_scaled_matmul %[[A]] scale %[[AS]], [%[[B1]] scale %[[S1]] bias %[[C1]], %[[B2]] scale %[[S2]]] on @tp axes = [0] dim = 0 row_wise return_gathered : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<32x64xf8E5M2>, tensor<128x1xf32>, tensor<32x1xf32>, tensor<128xbf16>) -> (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1, %[[R0]]#2, %[[R0]]#3 : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>
func.func @all_gather_scaled_matmul(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b1: tensor<128x64xf8E4M3FN>, %s1: tensor<128x1xf32>, %b2: tensor<32x64xf8E5M2>, %s2: tensor<32x1xf32>, %c1: tensor<128xbf16>) -> (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>) {
  %0:4 = tp.all_gather_scaled_matmul %a scale %as, [%b1 scale %s1 bias %c1, %b2 scale %s2] on @tp axes = [0] dim = 0 row_wise return_gathered : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<32x64xf8E5M2>, tensor<128x1xf32>, tensor<32x1xf32>, tensor<128xbf16>) -> (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>
}

// CHECK-LABEL: func.func @all_gather_scaled_matmul_per_tensor(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf8E4M3FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf8E4M3FN>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    ) -> (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x128xf32>)
// CHECK:         %[[R0:.*]]:3 = tp.all_gather_scaled_matmul %[[A]] scale %[[AS]], [%[[B]] scale %[[S]]] on @tp axes = [0] dim = 0 per_tensor return_gathered {algorithm = #tp.algorithm<ring>, chunks = 4 : i64} : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x128xf32>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1, %[[R0]]#2 : tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x128xf32>
func.func @all_gather_scaled_matmul_per_tensor(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %s: tensor<f32>) -> (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x128xf32>) {
  %0:3 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %s] on @tp axes = [0] dim = 0 per_tensor return_gathered {algorithm = #tp.algorithm<ring>, chunks = 4} : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x128xf32>)
  return %0#0, %0#1, %0#2 : tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x128xf32>
}

// CHECK-LABEL: func.func @all_gather_scaled_matmul_mxfp8(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<2x8x64xf8E4M3FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<2x8x2xf8E8M0FNU>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf8E4M3FN>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<128x2xf8E8M0FNU>
// CHECK-SAME:    ) -> tensor<2x32x128xf16>
// CHECK:         %[[R0:.*]] = tp.all_gather_scaled_matmul %[[A]] scale %[[AS]], [%[[B]] scale %[[S]]] on @g axes = [1] dim = 1 mxfp8 : (tensor<2x8x64xf8E4M3FN>, tensor<2x8x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) -> tensor<2x32x128xf16>
// CHECK:         return %[[R0]] : tensor<2x32x128xf16>
func.func @all_gather_scaled_matmul_mxfp8(%a: tensor<2x8x64xf8E4M3FN>, %as: tensor<2x8x2xf8E8M0FNU>, %b: tensor<128x64xf8E4M3FN>, %s: tensor<128x2xf8E8M0FNU>) -> tensor<2x32x128xf16> {
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %s] on @g axes = [1] dim = 1 mxfp8 : (tensor<2x8x64xf8E4M3FN>, tensor<2x8x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) -> tensor<2x32x128xf16>
  return %0 : tensor<2x32x128xf16>
}

// CHECK-LABEL: func.func @all_gather_scaled_matmul_nvfp4(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf4E2M1FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<8x4xf8E4M3FN>
// CHECK-SAME:    %[[AG:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf4E2M1FN>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<128x4xf8E4M3FN>
// CHECK-SAME:    %[[BG:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: tensor<128xbf16>
// CHECK-SAME:    ) -> (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<32x128xbf16>)
// CHECK:         %[[R0:.*]]:3 = tp.all_gather_scaled_matmul %[[A]] scale %[[AS]] global %[[AG]], [%[[B]] scale %[[S]] global %[[BG]] bias %[[C]]] on @tp axes = [0] dim = 0 nvfp4 return_gathered : (tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128xbf16>) -> (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<32x128xbf16>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1, %[[R0]]#2 : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<32x128xbf16>
func.func @all_gather_scaled_matmul_nvfp4(%a: tensor<8x64xf4E2M1FN>, %as: tensor<8x4xf8E4M3FN>, %ag: tensor<f32>, %b: tensor<128x64xf4E2M1FN>, %s: tensor<128x4xf8E4M3FN>, %bg: tensor<f32>, %c: tensor<128xbf16>) -> (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<32x128xbf16>) {
  %0:3 = tp.all_gather_scaled_matmul %a scale %as global %ag, [%b scale %s global %bg bias %c] on @tp axes = [0] dim = 0 nvfp4 return_gathered : (tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<128xbf16>) -> (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<32x128xbf16>)
  return %0#0, %0#1, %0#2 : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<32x128xbf16>
}

// CHECK-LABEL: func.func @scaled_matmul_reduce_scatter(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<32x64xf8E4M3FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<32x1xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf8E4M3FN>
// CHECK-SAME:    %[[BS:[a-zA-Z0-9_]+]]: tensor<128x1xf32>
// CHECK-SAME:    %[[BIAS:[a-zA-Z0-9_]+]]: tensor<128xbf16>
// CHECK-SAME:    ) -> tensor<8x128xbf16>
// CHECK:         %[[R0:.*]] = tp.scaled_matmul_reduce_scatter %[[A]] scale %[[AS]], %[[B]] scale %[[BS]] bias %[[BIAS]] on @tp axes = [0] dim = 0 reduce = sum row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>, tensor<128xbf16>) -> tensor<8x128xbf16>
// CHECK:         return %[[R0]] : tensor<8x128xbf16>
func.func @scaled_matmul_reduce_scatter(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>, %bias: tensor<128xbf16>) -> tensor<8x128xbf16> {
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs bias %bias on @tp axes = [0] dim = 0 reduce = sum row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>, tensor<128xbf16>) -> tensor<8x128xbf16>
  return %0 : tensor<8x128xbf16>
}

// CHECK-LABEL: func.func @scaled_matmul_reduce_scatter_nvfp4(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<2x32x64xf4E2M1FN>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<2x32x4xf8E4M3FN>
// CHECK-SAME:    %[[AG:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf4E2M1FN>
// CHECK-SAME:    %[[BS:[a-zA-Z0-9_]+]]: tensor<128x4xf8E4M3FN>
// CHECK-SAME:    %[[BG:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    ) -> (tensor<2x32x128xf32>, tensor<2x32x32xf32>)
// CHECK:         %[[R0:.*]]:2 = tp.scaled_matmul_reduce_scatter %[[A]] scale %[[AS]] global %[[AG]], %[[B]] scale %[[BS]] global %[[BG]] on @g axes = [1] dim = 2 reduce = avg nvfp4 return_unreduced {algorithm = #tp.algorithm<ring>, chunks = 4 : i64} : (tensor<2x32x64xf4E2M1FN>, tensor<2x32x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> (tensor<2x32x128xf32>, tensor<2x32x32xf32>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1 : tensor<2x32x128xf32>, tensor<2x32x32xf32>
func.func @scaled_matmul_reduce_scatter_nvfp4(%a: tensor<2x32x64xf4E2M1FN>, %as: tensor<2x32x4xf8E4M3FN>, %ag: tensor<f32>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x4xf8E4M3FN>, %bg: tensor<f32>) -> (tensor<2x32x128xf32>, tensor<2x32x32xf32>) {
  %0:2 = tp.scaled_matmul_reduce_scatter %a scale %as global %ag, %b scale %bs global %bg on @g axes = [1] dim = 2 reduce = avg nvfp4 return_unreduced {algorithm = #tp.algorithm<ring>, chunks = 4} : (tensor<2x32x64xf4E2M1FN>, tensor<2x32x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> (tensor<2x32x128xf32>, tensor<2x32x32xf32>)
  return %0#0, %0#1 : tensor<2x32x128xf32>, tensor<2x32x32xf32>
}

// CHECK-LABEL: func.func @scaled_matmul_reduce_scatter_modes(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<32x64xf8E5M2>
// CHECK-SAME:    %[[AS:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<128x64xf8E4M3FN>
// CHECK-SAME:    %[[BS:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK-SAME:    %[[MA:[a-zA-Z0-9_]+]]: tensor<32x64xf8E4M3FN>
// CHECK-SAME:    %[[MAS:[a-zA-Z0-9_]+]]: tensor<32x2xf8E8M0FNU>
// CHECK-SAME:    %[[MBS:[a-zA-Z0-9_]+]]: tensor<128x2xf8E8M0FNU>
// CHECK-SAME:    ) -> (tensor<8x128xf16>, tensor<8x128xf32>)
// CHECK:         %[[R0:.*]] = tp.scaled_matmul_reduce_scatter %[[A]] scale %[[AS]], %[[B]] scale %[[BS]] on @tp axes = [0] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E5M2>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf16>
// CHECK:         %[[R1:.*]] = tp.scaled_matmul_reduce_scatter %[[MA]] scale %[[MAS]], %[[B]] scale %[[MBS]] on @tp axes = [0] dim = 0 reduce = sum mxfp8 : (tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) -> tensor<8x128xf32>
// CHECK:         return %[[R0]], %[[R1]] : tensor<8x128xf16>, tensor<8x128xf32>
func.func @scaled_matmul_reduce_scatter_modes(%a: tensor<32x64xf8E5M2>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %ma: tensor<32x64xf8E4M3FN>, %mas: tensor<32x2xf8E8M0FNU>, %mbs: tensor<128x2xf8E8M0FNU>) -> (tensor<8x128xf16>, tensor<8x128xf32>) {
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E5M2>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf16>
  %1 = tp.scaled_matmul_reduce_scatter %ma scale %mas, %b scale %mbs on @tp axes = [0] dim = 0 reduce = sum mxfp8 : (tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) -> tensor<8x128xf32>
  return %0, %1 : tensor<8x128xf16>, tensor<8x128xf32>
}

// CHECK-LABEL: func.func @group_rank_2d(
// CHECK-SAME:    ) -> index
// CHECK:         %[[R0:.*]] = tp.group_rank on @g axes = [0, 1]
// CHECK:         return %[[R0]] : index
func.func @group_rank_2d() -> index {
  %0 = tp.group_rank on @g axes = [0, 1]
  return %0 : index
}

// CHECK-LABEL: func.func @reduce_scatter_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>
// CHECK-SAME:    ) -> tensor<?x16xf32>
// CHECK:         %[[R0:.*]] = tp.reduce_scatter %[[X]] on @tp axes = [0] dim = 1 reduce = avg : tensor<?x64xf32> -> tensor<?x16xf32>
// CHECK:         return %[[R0]] : tensor<?x16xf32>
func.func @reduce_scatter_dynamic(%x: tensor<?x64xf32>) -> tensor<?x16xf32> {
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 1 reduce = avg : tensor<?x64xf32> -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @all_gather_matmul_last_3d(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x8x16xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<32xf16>
// CHECK-SAME:    ) -> (tensor<2x8x64xf16>, tensor<2x8x32xf16>)
// CHECK:         %[[R0:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[W]] bias %[[B]]] on @tp axes = [0] dim = 2 transpose_b return_gathered : (tensor<2x8x16xf16>, tensor<32x64xf16>, tensor<32xf16>) -> (tensor<2x8x64xf16>, tensor<2x8x32xf16>)
// CHECK:         return %[[R0]]#0, %[[R0]]#1 : tensor<2x8x64xf16>, tensor<2x8x32xf16>
func.func @all_gather_matmul_last_3d(%x: tensor<2x8x16xf16>, %w: tensor<32x64xf16>, %b: tensor<32xf16>) -> (tensor<2x8x64xf16>, tensor<2x8x32xf16>) {
  %0:2 = tp.all_gather_matmul %x, [%w bias %b] on @tp axes = [0] dim = 2 transpose_b return_gathered : (tensor<2x8x16xf16>, tensor<32x64xf16>, tensor<32xf16>) -> (tensor<2x8x64xf16>, tensor<2x8x32xf16>)
  return %0#0, %0#1 : tensor<2x8x64xf16>, tensor<2x8x32xf16>
}

// CHECK-LABEL: func.func @matmul_reduce_scatter_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x16xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<16x64xf32>
// CHECK-SAME:    ) -> tensor<?x16xf32>
// CHECK:         %[[R0:.*]] = tp.matmul_reduce_scatter %[[X]], %[[W]] on @tp axes = [0] dim = 1 reduce = sum : (tensor<?x16xf32>, tensor<16x64xf32>) -> tensor<?x16xf32>
// CHECK:         return %[[R0]] : tensor<?x16xf32>
func.func @matmul_reduce_scatter_dynamic(%x: tensor<?x16xf32>, %w: tensor<16x64xf32>) -> tensor<?x16xf32> {
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 1 reduce = sum : (tensor<?x16xf32>, tensor<16x64xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @linear_column_grid2d(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<16x64xf32>
// CHECK-SAME:    ) -> tensor<16x16xf32>
// CHECK:         %[[R0:.*]] = tp.linear %[[X]], %[[W]] on @g axes = [1] column input = shard(0) output = shard(1) : (tensor<4x64xf32>, tensor<16x64xf32>) -> tensor<16x16xf32>
// CHECK:         return %[[R0]] : tensor<16x16xf32>
func.func @linear_column_grid2d(%x: tensor<4x64xf32>, %w: tensor<16x64xf32>) -> tensor<16x16xf32> {
  %0 = tp.linear %x, %w on @g axes = [1] column input = shard(0) output = shard(1) : (tensor<4x64xf32>, tensor<16x64xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
