// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// The producer side of an all-to-all: its input is a matmul's product, and
// no matmul reads its result as A. tp.matmul_all_to_all computes each peer's
// block and sends it while it computes the next.

shard.grid @tp(shape = 4)

// Ulysses' sequence -> heads exchange of a projection: [S/4, H] split on H.
// CHECK-LABEL: func.func @projection_columns
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x32xf32>)
func.func @projection_columns(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<32x8xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_all_to_all %[[X]], %[[W]] on @tp axes = [0] split = 1 concat = 0 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<32x8xf32>
  // CHECK-NEXT: return %[[Y]]
  %p = tp.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %y = tp.all_to_all %p on @tp axes = [0] split = 1 concat = 0 : tensor<8x32xf32> -> tensor<32x8xf32>
  return %y : tensor<32x8xf32>
}

// -----

// An expert-parallel MoE layer's combine: each local expert's outputs (its
// own weight), the rows cut by the rank their tokens came from, stacked
// along the experts.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @expert_combine
// CHECK-SAME:    (%[[H:.*]]: tensor<2x6x16xf32>, %[[W:.*]]: tensor<2x16x8xf32>)
func.func @expert_combine(%h: tensor<2x6x16xf32>, %w: tensor<2x16x8xf32>) -> tensor<4x3x8xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_all_to_all %[[H]], %[[W]] on @tp axes = [0] split = 1 concat = 0 : (tensor<2x6x16xf32>, tensor<2x16x8xf32>) -> tensor<4x3x8xf32>
  // CHECK-NEXT: return %[[Y]]
  %o = tp.batch_matmul %h, %w : tensor<2x6x16xf32>, tensor<2x16x8xf32> -> tensor<2x6x8xf32>
  %y = tp.all_to_all %o on @tp axes = [0] split = 1 concat = 0 : tensor<2x6x8xf32> -> tensor<4x3x8xf32>
  return %y : tensor<4x3x8xf32>
}

// -----

// F.linear's reshapes around the product of a 3-D activation, the product
// also used (kept for the backward): the fused op returns it.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @linear_product_kept
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x16xf32>, %[[W:.*]]: tensor<8x16xf32>)
func.func @linear_product_kept(%x: tensor<2x3x16xf32>, %w: tensor<8x16xf32>) -> (tensor<2x6x4xf32>, tensor<2x3x8xf32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tp.matmul_all_to_all %[[X]], %[[W]] on @tp axes = [0] split = 2 concat = 1 transpose_b return_product : (tensor<2x3x16xf32>, tensor<8x16xf32>) -> (tensor<2x3x8xf32>, tensor<2x6x4xf32>)
  // CHECK-NEXT: return %[[R]]#1, %[[R]]#0
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
  %m = tp.matmul %c, %w transpose_b : tensor<6x16xf32>, tensor<8x16xf32> -> tensor<6x8xf32>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
  %y = tp.all_to_all %p on @tp axes = [0] split = 2 concat = 1 : tensor<2x3x8xf32> -> tensor<2x6x4xf32>
  return %y, %p : tensor<2x6x4xf32>, tensor<2x3x8xf32>
}

// -----

// Ulysses' heads -> sequence exchange after attention: P V per head
// [heads/2, S, D], transposed to [S, heads/2, D], the sequence split and the
// heads stacked. The transpose moves below the exchange (which then cuts the
// rows of each head's product), and the pair fuses.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @transposed_product
// CHECK-SAME:    (%[[A:.*]]: tensor<2x6x6xf32>, %[[V:.*]]: tensor<2x6x4xf32>)
func.func @transposed_product(%a: tensor<2x6x6xf32>, %v: tensor<2x6x4xf32>) -> tensor<3x4x4xf32> {
  // CHECK-NEXT: %[[E:.*]] = tp.matmul_all_to_all %[[A]], %[[V]] on @tp axes = [0] split = 1 concat = 0 : (tensor<2x6x6xf32>, tensor<2x6x4xf32>) -> tensor<4x3x4xf32>
  // CHECK-NEXT: %[[I:.*]] = tensor.empty() : tensor<3x4x4xf32>
  // CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<4x3x4xf32>) outs(%[[I]] : tensor<3x4x4xf32>) permutation = [1, 0, 2]
  // CHECK-NEXT: return %[[T]]
  %o = tp.batch_matmul %a, %v : tensor<2x6x6xf32>, tensor<2x6x4xf32> -> tensor<2x6x4xf32>
  %i = tensor.empty() : tensor<6x2x4xf32>
  %t = linalg.transpose ins(%o : tensor<2x6x4xf32>) outs(%i : tensor<6x2x4xf32>) permutation = [1, 0, 2]
  %y = tp.all_to_all %t on @tp axes = [0] split = 0 concat = 1 : tensor<6x2x4xf32> -> tensor<3x4x4xf32>
  return %y : tensor<3x4x4xf32>
}

// -----

// Negative: per-expert weights whose blocks are cut along the experts (each
// block would need every B), an addend before the exchange, a bias_add
// before it, and a scaled matmul's product.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @not_fused
// CHECK-NOT:   tp.matmul_all_to_all
func.func @not_fused(%h: tensor<2x6x16xf32>, %w: tensor<2x16x8xf32>, %x: tensor<4x16xf32>, %v: tensor<16x8xf32>,
    %c: tensor<4x8xf32>, %b: tensor<8xf32>, %q: tensor<4x16xf8E4M3FN>, %qs: tensor<f32>, %wq: tensor<16x16xf8E4M3FN>)
    -> (tensor<1x12x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x8xf32>) {
  %o = tp.batch_matmul %h, %w : tensor<2x6x16xf32>, tensor<2x16x8xf32> -> tensor<2x6x8xf32>
  // expected-remark @below {{all-to-all not fused: the batched matmul has one B per batch, and the all-to-all cuts dim 0, not the rows (dim 1): each block would need every B}}
  %e0 = tp.all_to_all %o on @tp axes = [0] split = 0 concat = 1 : tensor<2x6x8xf32> -> tensor<1x12x8xf32>
  %p = tp.matmul %x, %v : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %s = arith.addf %p, %c : tensor<4x8xf32>
  // expected-remark @below {{all-to-all not fused: an addend ('arith.addf') is added to the matmul's product before the all-to-all}}
  %e1 = tp.all_to_all %s on @tp axes = [0] split = 1 concat = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %p2 = tp.matmul %x, %v : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %pb = tp.bias_add %p2, %b : tensor<4x8xf32>, tensor<8xf32>
  // expected-remark @below {{all-to-all not fused: a bias_add sits between the matmul and the all-to-all}}
  %e2 = tp.all_to_all %pb on @tp axes = [0] split = 1 concat = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %sp = tp.scaled_matmul %q scale %qs, %wq scale %qs per_tensor : (tensor<4x16xf8E4M3FN>, tensor<f32>, tensor<16x16xf8E4M3FN>, tensor<f32>) -> tensor<4x16xf32>
  // expected-remark @below {{all-to-all not fused: the matmul before it is a scaled (low-precision) matmul, and tp.matmul_all_to_all multiplies f32, bf16 or f16 operands: its product is exchanged unfused}}
  %e3 = tp.all_to_all %sp on @tp axes = [0] split = 1 concat = 0 : tensor<4x16xf32> -> tensor<8x8xf32>
  return %e0, %e1, %e2, %e3 : tensor<1x12x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x8xf32>
}

// -----

// Negative, with the reason: a reshape between the matmul and the exchange,
// a transpose that cannot move (dynamic dims), the matmul in another block,
// and a product exchanged twice (the first exchange takes the matmul, and
// returns its product for the second).

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @layout_and_blocks
// CHECK:       tp.all_to_all %
// CHECK:       tp.all_to_all %
func.func @layout_and_blocks(%x: tensor<2x3x16xf32>, %w: tensor<16x8xf32>, %d: tensor<?x16xf32>, %i: tensor<8x?xf32>)
    -> (tensor<12x4xf32>, tensor<4x?xf32>) {
  %p = tp.batch_matmul %x, %w : tensor<2x3x16xf32>, tensor<16x8xf32> -> tensor<2x3x8xf32>
  %c = tensor.collapse_shape %p [[0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
  // expected-remark @below {{all-to-all not fused: a reshape ('tensor.collapse_shape') sits between the matmul and the all-to-all: exchange the product before reshaping it}}
  %e = tp.all_to_all %c on @tp axes = [0] split = 1 concat = 0 : tensor<6x8xf32> -> tensor<12x4xf32>
  %q = tp.matmul %d, %w : tensor<?x16xf32>, tensor<16x8xf32> -> tensor<?x8xf32>
  %t = linalg.transpose ins(%q : tensor<?x8xf32>) outs(%i : tensor<8x?xf32>) permutation = [1, 0]
  // expected-remark @below {{all-to-all not fused: a transpose ('linalg.transpose') sits between the matmul and the all-to-all and cannot move below it (dynamic dims, or other users of the transposed product)}}
  %f = tp.all_to_all %t on @tp axes = [0] split = 0 concat = 1 : tensor<8x?xf32> -> tensor<4x?xf32>
  return %e, %f : tensor<12x4xf32>, tensor<4x?xf32>
}

// CHECK-LABEL: func.func @other_block_and_twice
// CHECK:       tp.all_to_all %
// CHECK:       %[[R:.*]]:2 = tp.matmul_all_to_all %{{.*}}, %{{.*}} on @tp axes = [0] split = 1 concat = 0 return_product
// CHECK:       tp.all_to_all %[[R]]#0 on @tp axes = [0] split = 0 concat = 1
func.func @other_block_and_twice(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %c: i1) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<2x16xf32>) {
  %p = tp.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %r = scf.if %c -> tensor<8x4xf32> {
    // expected-remark @below {{all-to-all not fused: the matmul is in a different block than the all-to-all}}
    %e = tp.all_to_all %p on @tp axes = [0] split = 1 concat = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
    scf.yield %e : tensor<8x4xf32>
  } else {
    %z = tensor.empty() : tensor<8x4xf32>
    scf.yield %z : tensor<8x4xf32>
  }
  %q = tp.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %e1 = tp.all_to_all %q on @tp axes = [0] split = 1 concat = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  // expected-remark @below {{all-to-all not fused: the matmul producing it is already fused with another collective ('tp.matmul_all_to_all' returns its product)}}
  %e2 = tp.all_to_all %q on @tp axes = [0] split = 0 concat = 1 : tensor<4x8xf32> -> tensor<2x16xf32>
  return %r, %e1, %e2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<2x16xf32>
}
