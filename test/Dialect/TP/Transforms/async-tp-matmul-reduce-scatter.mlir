// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// matmul -> reduce-scatter on dim 0.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @scatter_rows
// CHECK-SAME:    (%[[H:.*]]: tensor<32x16xf32>, %[[W:.*]]: tensor<16x64xf32>)
func.func @scatter_rows(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[H]], %[[W]] on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  // CHECK-NEXT: return %[[Y]]
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Scatter on the last dim, with avg, and a transposed weight.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scatter_columns_avg
// CHECK-SAME:    (%[[H:.*]]: tensor<8x16xbf16>, %[[W:.*]]: tensor<64x16xbf16>)
func.func @scatter_columns_avg(%h: tensor<8x16xbf16>, %w: tensor<64x16xbf16>) -> tensor<8x32xbf16> {
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[H]], %[[W]] on @tp axes = [0] dim = 1 reduce = avg transpose_b : (tensor<8x16xbf16>, tensor<64x16xbf16>) -> tensor<8x32xbf16>
  // CHECK-NEXT: return %[[Y]]
  %p = tp.matmul %h, %w transpose_b : tensor<8x16xbf16>, tensor<64x16xbf16> -> tensor<8x64xbf16>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = avg : tensor<8x64xbf16> -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// -----

// F.linear's reshapes around the matmul, the sequence dim of [B, S, H]
// scattered, and a bias added once after the reduction.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @reshaped_with_bias
// CHECK-SAME:    (%[[H:.*]]: tensor<2x16x32xf32>, %[[W:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<64xf32>)
func.func @reshaped_with_bias(%h: tensor<2x16x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) -> tensor<2x4x64xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[H]], %[[W]] bias %[[B]] on @tp axes = [0] dim = 1 reduce = sum transpose_b : (tensor<2x16x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
  // CHECK-NEXT: return %[[Y]]
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x16x32xf32> into tensor<32x32xf32>
  %m = tp.matmul %c, %w transpose_b : tensor<32x32xf32>, tensor<64x32xf32> -> tensor<32x64xf32>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf32> into tensor<2x16x64xf32>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x16x64xf32> -> tensor<2x4x64xf32>
  %y = tp.bias_add %r, %b : tensor<2x4x64xf32>, tensor<64xf32>
  return %y : tensor<2x4x64xf32>
}

// -----

// Glue ran on the 2-D activation, so the matmul's A is 2-D and only its
// product is split back into [batch, seq, hidden]: the fused op takes A split
// the same way (static and dynamic sizes).

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @two_d_activation
// CHECK-SAME:    (%[[H:.*]]: tensor<32x64xf32>, %[[W:.*]]: tensor<32x64xf32>)
func.func @two_d_activation(%h: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<2x4x32xf32> {
  // CHECK-NEXT: %[[A:.*]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf32> into tensor<2x16x64xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[A]], %[[W]] on @tp axes = [0] dim = 1 reduce = sum transpose_b : (tensor<2x16x64xf32>, tensor<32x64xf32>) -> tensor<2x4x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %m = tp.matmul %h, %w transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 16, 32] : tensor<32x32xf32> into tensor<2x16x32xf32>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x16x32xf32> -> tensor<2x4x32xf32>
  return %r : tensor<2x4x32xf32>
}

// CHECK-LABEL: func.func @two_d_activation_dynamic
// CHECK-SAME:    (%[[H:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<64x32xf32>, %[[S:.*]]: index)
func.func @two_d_activation_dynamic(%h: tensor<?x64xf32>, %w: tensor<64x32xf32>, %s: index) -> tensor<2x?x32xf32> {
  // CHECK-NEXT: %[[A:.*]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2]] output_shape [8, %[[S]], 64] : tensor<?x64xf32> into tensor<8x?x64xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[A]], %[[W]] on @tp axes = [0] dim = 0 reduce = sum : (tensor<8x?x64xf32>, tensor<64x32xf32>) -> tensor<2x?x32xf32>
  %m = tp.matmul %h, %w : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [8, %s, 32] : tensor<?x32xf32> into tensor<8x?x32xf32>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<8x?x32xf32> -> tensor<2x?x32xf32>
  return %r : tensor<2x?x32xf32>
}

// Negative: the expand splits the last dim, not the rows.
// CHECK-LABEL: func.func @two_d_split_columns
func.func @two_d_split_columns(%h: tensor<32x64xf32>, %w: tensor<64x32xf32>) -> tensor<32x4x2xf32> {
  // CHECK: tp.reduce_scatter
  %m = tp.matmul %h, %w : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  %p = tensor.expand_shape %m [[0], [1, 2]] output_shape [32, 16, 2] : tensor<32x32xf32> into tensor<32x16x2xf32>
  // expected-remark @+1 {{reduce-scatter not fused: a reshape ('tensor.expand_shape') that does not just merge the leading dims sits between}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<32x16x2xf32> -> tensor<32x4x2xf32>
  return %r : tensor<32x4x2xf32>
}

// -----

// An addend (a GEMM's C operand) added on every rank before the reduction.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @addend
// CHECK-SAME:    (%[[H:.*]]: tensor<32x16xf32>, %[[W:.*]]: tensor<16x64xf32>, %[[C:.*]]: tensor<32x64xf32>)
func.func @addend(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %c: tensor<32x64xf32>) -> tensor<8x64xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[H]], %[[W]] addend %[[C]] on @tp axes = [0] dim = 0 reduce = sum
  // CHECK-NEXT: return %[[Y]]
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %s = arith.addf %c, %p : tensor<32x64xf32>
  %y = tp.reduce_scatter %s on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// The product has another user: the fused op returns it unreduced too.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @product_has_other_user
// CHECK-SAME:    (%[[H:.*]]: tensor<32x16xf32>, %[[W:.*]]: tensor<16x64xf32>)
func.func @product_has_other_user(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> (tensor<8x64xf32>, tensor<32x64xf32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tp.matmul_reduce_scatter %[[H]], %[[W]] on @tp axes = [0] dim = 0 reduce = sum return_unreduced : (tensor<32x16xf32>, tensor<16x64xf32>) -> (tensor<32x64xf32>, tensor<8x64xf32>)
  // CHECK-NEXT: %[[N:.*]] = arith.negf %[[R]]#0
  // CHECK-NEXT: return %[[R]]#1, %[[N]]
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %n = arith.negf %p : tensor<32x64xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y, %n : tensor<8x64xf32>, tensor<32x64xf32>
}

// -----

// A bias computed after the matmul is moved above the fused op.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @hoist_bias
// CHECK-SAME:    (%[[H:.*]]: tensor<32x16xf32>, %[[W:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<64xf32>)
func.func @hoist_bias(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<8x64xf32> {
  // CHECK-NEXT: %[[NB:.*]] = arith.negf %[[B]]
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[H]], %[[W]] bias %[[NB]]
  // CHECK-NEXT: return %[[Y]]
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  %nb = arith.negf %b : tensor<64xf32>
  %y = tp.bias_add %r, %nb : tensor<8x64xf32>, tensor<64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: max does not distribute over chunked partial products.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @max_reduction
func.func @max_reduction(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // CHECK: tp.matmul
  // CHECK: tp.reduce_scatter
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the reduce-scatter reduces with max; only sum and avg distribute over the chunked product}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = max : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: min, likewise.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @min_reduction
func.func @min_reduction(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // CHECK: tp.reduce_scatter
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the reduce-scatter reduces with min; only sum and avg distribute over the chunked product}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = min : tensor<32x64xf32> -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

// Negative: a bias added before the reduction would be summed over the group.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @bias_before_reduction
func.func @bias_before_reduction(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<8x64xf32> {
  // CHECK: tp.bias_add
  // CHECK: tp.reduce_scatter
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %pb = tp.bias_add %p, %b : tensor<32x64xf32>, tensor<64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: a bias_add sits between the matmul and the reduce-scatter, so the bias is summed over the group}}
  %y = tp.reduce_scatter %pb on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: an elementwise op between the matmul and the reduce-scatter.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @elementwise_before_reduction
func.func @elementwise_before_reduction(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // CHECK: tp.matmul
  // CHECK: math.exp
  // CHECK: tp.reduce_scatter
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %e = math.exp %p : tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: an elementwise op ('math.exp') sits between the matmul and the reduce-scatter}}
  %y = tp.reduce_scatter %e on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: the input is a function argument.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @block_argument
func.func @block_argument(%p: tensor<32x64xf32>) -> tensor<8x64xf32> {
  // CHECK: tp.reduce_scatter
  // expected-remark @+1 {{reduce-scatter not fused: its input is a block argument, not a matmul result}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: the matmul between the all-gather and the reduce-scatter goes to
// the all-gather.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @matmul_taken_by_all_gather
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x64xf32>)
func.func @matmul_taken_by_all_gather(%x: tensor<8x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // CHECK-NEXT: %[[P:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]]
  // CHECK-NEXT: %[[Y:.*]] = tp.reduce_scatter %[[P]]
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  %p = tp.matmul %g, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the matmul producing it is already fused with an all-gather}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: the reduce-scatter reads the gathered operand itself, which the
// fused all-gather-matmul returns: no matmul produces it.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gathered_operand_reduce_scattered
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x64xf32>)
func.func @gathered_operand_reduce_scattered(%x: tensor<8x16xf32>, %w: tensor<16x64xf32>) -> (tensor<32x64xf32>, tensor<8x16xf32>) {
  // CHECK-NEXT: %[[F:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[W]]] {{.*}} return_gathered
  // CHECK-NEXT: %[[Y:.*]] = tp.reduce_scatter %[[F]]#0
  // CHECK-NEXT: return %[[F]]#1, %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  %p = tp.matmul %g, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: it reads the gathered operand that a fused all-gather-matmul returns, not a matmul product}}
  %y = tp.reduce_scatter %g on @tp axes = [0] dim = 0 reduce = sum : tensor<32x16xf32> -> tensor<8x16xf32>
  return %p, %y : tensor<32x64xf32>, tensor<8x16xf32>
}

// -----

// Negative: the matmul sits in another block.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @matmul_in_other_block
func.func @matmul_in_other_block(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %c: i1) -> tensor<8x64xf32> {
  // CHECK: scf.if
  // CHECK: tp.reduce_scatter
  %p = scf.if %c -> tensor<32x64xf32> {
    %m = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
    scf.yield %m : tensor<32x64xf32>
  } else {
    %z = tensor.empty() : tensor<32x64xf32>
    scf.yield %z : tensor<32x64xf32>
  }
  // expected-remark @+1 {{reduce-scatter not fused: its input is produced by 'scf.if', not by a matmul}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: the reduce-scatter spans two grid axes.

shard.grid @g(shape = 2x2)

// CHECK-LABEL: func.func @two_axes
func.func @two_axes(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // CHECK: tp.reduce_scatter
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the reduce-scatter spans grid axes [0, 1]; async TP fuses collectives along one tensor-parallel axis}}
  %y = tp.reduce_scatter %p on @g axes = [0, 1] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: the 2-D product is used before the reshape back.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @inner_product_has_other_user
func.func @inner_product_has_other_user(%h: tensor<2x8x16xf32>, %w: tensor<16x64xf32>) -> (tensor<2x4x64xf32>, tensor<16x64xf32>) {
  // CHECK: tp.reduce_scatter
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
  %m = tp.matmul %c, %w : tensor<16x16xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 64] : tensor<16x64xf32> into tensor<2x8x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the matmul's 2-D product has users besides the reshape back}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x64xf32> -> tensor<2x4x64xf32>
  return %y, %m : tensor<2x4x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: the reduce-scatter sits in a nested region, the matmul outside.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @reduce_scatter_in_other_block
func.func @reduce_scatter_in_other_block(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %c: i1) -> tensor<8x64xf32> {
  // CHECK: tp.matmul
  // CHECK: tp.reduce_scatter
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %r = scf.if %c -> tensor<8x64xf32> {
    // expected-remark @+1 {{reduce-scatter not fused: the matmul is in a different block than the reduce-scatter}}
    %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
    scf.yield %y : tensor<8x64xf32>
  } else {
    %z = tensor.empty() : tensor<8x64xf32>
    scf.yield %z : tensor<8x64xf32>
  }
  return %r : tensor<8x64xf32>
}

// -----

// Negative: the bias added after the reduction is computed from the product.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @bias_depends_on_product
func.func @bias_depends_on_product(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // CHECK: tp.reduce_scatter
  // CHECK: tp.bias_add
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the bias depends on the matmul's product}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  %b = tensor.extract_slice %p[0, 0] [1, 64] [1, 1] : tensor<32x64xf32> to tensor<64xf32>
  %y = tp.bias_add %r, %b : tensor<8x64xf32>, tensor<64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: the bias is computed after the matmul by an op that cannot move
// (a branch calls a function, so the scf.if may have side effects).

shard.grid @tp(shape = 4)

func.func private @observe(tensor<64xf32>)

// CHECK-LABEL: func.func @bias_not_movable
func.func @bias_not_movable(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b0: tensor<64xf32>, %c: i1) -> tensor<8x64xf32> {
  // CHECK: tp.reduce_scatter
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the bias is computed after the matmul by 'scf.if', which cannot move above the fused op (it may have side effects)}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  %b = scf.if %c -> tensor<64xf32> {
    scf.yield %b0 : tensor<64xf32>
  } else {
    %n = arith.negf %b0 : tensor<64xf32>
    func.call @observe(%n) : (tensor<64xf32>) -> ()
    scf.yield %n : tensor<64xf32>
  }
  %y = tp.bias_add %r, %b : tensor<8x64xf32>, tensor<64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: glue before the reduce-scatter, but no matmul before the glue.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @no_matmul_before
func.func @no_matmul_before(%x: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // CHECK: tp.reduce_scatter
  %t = math.tanh %x : tensor<8x8xf32>
  // expected-remark @+1 {{reduce-scatter not fused: its input comes from an elementwise op ('math.tanh') with no matmul before it}}
  %r = tp.reduce_scatter %t on @tp axes = [0] dim = 0 reduce = sum : tensor<8x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
