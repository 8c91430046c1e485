// RUN: tp-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of tp.all_to_all and tp.all_to_all_matmul.
// @tp is a group of 4 ranks.

shard.grid @tp(shape = 4)

func.func @split_out_of_range(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'split' 2 is out of range for 'input' of rank 2}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 2 concat = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @concat_out_of_range(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'concat' 5 is out of range for 'input' of rank 2}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 5 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @rank_changes(%x: tensor<8x64xf32>) -> tensor<512xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'result' rank 1 differs from 'input' rank 2}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 0 : tensor<8x64xf32> -> tensor<512xf32>
  return %0 : tensor<512xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @element_type_changes(%x: tensor<8x64xf32>) -> tensor<32x16xbf16> {
  // expected-error @+1 {{'tp.all_to_all' op 'result' element type 'bf16' differs from 'input' element type 'f32'}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x16xbf16>
  return %0 : tensor<32x16xbf16>
}

// -----

shard.grid @tp(shape = 4)

func.func @other_dim_changes(%x: tensor<8x64x3xf32>) -> tensor<32x16x6xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'result' dim 2 (6) differs from 'input' dim 2 (3)}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64x3xf32> -> tensor<32x16x6xf32>
  return %0 : tensor<32x16x6xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @same_dim_changes_shape(%x: tensor<8x64xf32>) -> tensor<2x64xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'result' dim 0 (2) differs from 'input' dim 0 (8); with split == concat the exchange keeps the shape}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 0 : tensor<8x64xf32> -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @split_not_divisible(%x: tensor<8x6xf32>) -> tensor<32x1xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'input' dim 1 (6) is the split dim and is not divisible by the group size 4}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x6xf32> -> tensor<32x1xf32>
  return %0 : tensor<32x1xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @split_result_wrong(%x: tensor<8x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'result' dim 1 (32) must be 'input' dim 1 (64) divided by the group size 4 = 16}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @concat_result_wrong(%x: tensor<8x64xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'result' dim 0 (16) must be 'input' dim 0 (8) times the group size 4 = 32}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @concat_overflows(%x: tensor<2305843009213693952x?xi1>) -> tensor<?x?xi1> {
  // expected-error @+1 {{'tp.all_to_all' op 'input' dim 0 (2305843009213693952) times the group size 4 overflows int64}}
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<2305843009213693952x?xi1> -> tensor<?x?xi1>
  return %0 : tensor<?x?xi1>
}

// -----

func.func @unknown_grid(%x: tensor<8x64xf32>) -> tensor<32x16xf32> {
  // expected-error @+1 {{'tp.all_to_all' op 'grid' @nope does not name a shard.grid}}
  %0 = tp.all_to_all %x on @nope axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// tp.all_to_all_matmul: one case per verifier message.

shard.grid @tp(shape = 4)

func.func @a2am_ring(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_to_all_matmul' op cannot run the ring schedule: each rank sends each peer a different block (use per_peer or coalesced)}}
  %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0 {algorithm = #tp.algorithm<ring>} : (tensor<8x64xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @a2am_split_out_of_range(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_to_all_matmul' op 'split' 2 is out of range for 'a' of rank 2}}
  %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 2 concat = 0 : (tensor<8x64xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @a2am_indivisible(%x: tensor<8x66xf32>, %w: tensor<16x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_to_all_matmul' op 'a' dim 1 (66) is the split dim and is not divisible by the group size 4}}
  %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0 : (tensor<8x66xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @a2am_contraction(%x: tensor<8x64xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_to_all_matmul' op contraction dims differ: 'a' has K = 16, 'bs[0]' has K = 32 (B is [K, N])}}
  %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0 : (tensor<8x64xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @a2am_product_shape(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'tp.all_to_all_matmul' op 'products[0]' must be tensor<32x32xf32>, got 'tensor<8x32xf32>'}}
  %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0 : (tensor<8x64xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @a2am_exchanged_shape(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>) -> (tensor<8x64xf32>, tensor<32x32xf32>) {
  // expected-error @+1 {{'tp.all_to_all_matmul' op 'exchanged' must be tensor<32x16xf32>, got 'tensor<8x64xf32>'}}
  %e, %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0 return_exchanged : (tensor<8x64xf32>, tensor<16x32xf32>) -> (tensor<8x64xf32>, tensor<32x32xf32>)
  return %e, %y : tensor<8x64xf32>, tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @a2am_element_type(%x: tensor<8x64xf32>, %w: tensor<16x32xbf16>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_to_all_matmul' op every B, bias and result must have 'a''s element type 'f32', got 'tensor<16x32xbf16>'}}
  %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0 : (tensor<8x64xf32>, tensor<16x32xbf16>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @a2am_result_count(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_to_all_matmul' op expected 1 results (the exchanged A if returned, then one per B), got 2}}
  %y:2 = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0 : (tensor<8x64xf32>, tensor<16x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>)
  return %y#0 : tensor<32x32xf32>
}

// -----

// tp.matmul_all_to_all

shard.grid @tp(shape = 4)

func.func @product_split_out_of_range(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op 'split' 2 is out of range for 'the product' of rank 2}}
  %0 = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 2 concat = 0 : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_ring(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<32x2xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op cannot run the ring schedule: each rank sends each peer a different block (use per_peer or coalesced)}}
  %0 = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 1 concat = 0 {algorithm = #tp.algorithm<ring>} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<32x2xf32>
  return %0 : tensor<32x2xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_result_count(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<32x2xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op expected 1 results (the product if returned, then the exchanged result), got 2}}
  %0:2 = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 1 concat = 0 : (tensor<8x16xf32>, tensor<16x8xf32>) -> (tensor<32x2xf32>, tensor<32x2xf32>)
  return %0#0 : tensor<32x2xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_element_type(%x: tensor<8x16xf32>, %w: tensor<16x8xbf16>) -> tensor<32x2xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op 'b' and the results must have 'a''s element type 'f32', got 'tensor<16x8xbf16>'}}
  %0 = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 1 concat = 0 : (tensor<8x16xf32>, tensor<16x8xbf16>) -> tensor<32x2xf32>
  return %0 : tensor<32x2xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_split_not_divisible(%x: tensor<8x16xf32>, %w: tensor<16x6xf32>) -> tensor<32x2xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op 'the product' dim 1 (6) is the split dim and is not divisible by the group size 4}}
  %0 = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 1 concat = 0 : (tensor<8x16xf32>, tensor<16x6xf32>) -> tensor<32x2xf32>
  return %0 : tensor<32x2xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_contraction(%x: tensor<8x16xf32>, %w: tensor<12x8xf32>) -> tensor<32x2xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op}}
  %0 = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 1 concat = 0 : (tensor<8x16xf32>, tensor<12x8xf32>) -> tensor<32x2xf32>
  return %0 : tensor<32x2xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_exchanged_shape(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op 'exchanged'}}
  %0 = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 1 concat = 0 : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_per_batch_b_not_rows(%h: tensor<4x8x16xf32>, %w: tensor<4x16x8xf32>) -> tensor<1x32x8xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op 'b' 'tensor<4x16x8xf32>' is per batch, which needs 'a''s rank and the blocks cut along the rows (split = 1)}}
  %0 = tp.matmul_all_to_all %h, %w on @tp axes = [0] split = 0 concat = 1 : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<1x32x8xf32>
  return %0 : tensor<1x32x8xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_per_batch_b_dims(%h: tensor<4x8x16xf32>, %w: tensor<2x16x8xf32>) -> tensor<16x2x8xf32> {
  // expected-error @+1 {{'tp.matmul_all_to_all' op 'b' dim 0 (2) differs from 'a''s (4)}}
  %0 = tp.matmul_all_to_all %h, %w on @tp axes = [0] split = 1 concat = 0 : (tensor<4x8x16xf32>, tensor<2x16x8xf32>) -> tensor<16x2x8xf32>
  return %0 : tensor<16x2x8xf32>
}
