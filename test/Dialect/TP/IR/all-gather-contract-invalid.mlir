// RUN: tp-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of tp.all_gather_contract. @tp is a group of
// 4 ranks.

shard.grid @tp(shape = 4)

func.func @no_other(%x: tensor<16x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op needs at least one operand to contract the gathered 'x' with}}
  %0 = tp.all_gather_contract %x, [] on @tp axes = [0] dim = 0 return_gathered : (tensor<16x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @x_three_d_k_trailing(%x: tensor<2x8x32xf32>, %a: tensor<8x128xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op 'x' contracts over its last dim, so it must be 2-D [free, K], got 'tensor<2x8x32xf32>'}}
  %0 = tp.all_gather_contract %x, [%a] on @tp axes = [0] dim = 1 transpose_b : (tensor<2x8x32xf32>, tensor<8x128xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @other_one_d(%x: tensor<16x32xf32>, %dy: tensor<64xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op 'others[0]' contracts over its leading dims, so it must be 2-D [K, free] or 3-D [K0, K1, free], got 'tensor<64xf32>'}}
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<64xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @free_dim_gathered(%x: tensor<16x8xf32>, %dy: tensor<16x24xf32>) -> tensor<24x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op 'dim' (1) must be a contraction dim of 'x' 'tensor<16x8xf32>'; gathering its free dim is tp.all_gather_matmul's job}}
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 1 transpose_a : (tensor<16x8xf32>, tensor<16x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @result_count(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> tensor<24x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op expected 2 results (the gathered x if returned, then one per other operand), got 1}}
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a return_gathered : (tensor<16x32xf32>, tensor<64x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @element_types(%x: tensor<16x32xf32>, %dy: tensor<64x24xbf16>) -> tensor<24x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op every other operand and result must have 'x''s element type 'f32', got 'tensor<64x24xbf16>'}}
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<64x24xbf16>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @k_mismatch(%x: tensor<16x32xf32>, %dy: tensor<48x24xf32>) -> tensor<24x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op 'others[0]' 'tensor<48x24xf32>' has K = 48, the gathered 'x' 'tensor<64x32xf32>' has K = 64}}
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<48x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @batch_mismatch(%x: tensor<2x8x32xf32>, %dy: tensor<4x16x24xf32>) -> tensor<24x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op 'others[0]' 'tensor<4x16x24xf32>' and the gathered 'x' 'tensor<2x32x32xf32>' differ in dim 0}}
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 1 transpose_a : (tensor<2x8x32xf32>, tensor<4x16x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @product_shape(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> tensor<32x24xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op 'products[0]' must be tensor<24x32xf32>, got 'tensor<32x24xf32>'}}
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<64x24xf32>) -> tensor<32x24xf32>
  return %0 : tensor<32x24xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @gathered_shape(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> (tensor<32x32xf32>, tensor<24x32xf32>) {
  // expected-error @+1 {{'tp.all_gather_contract' op 'gathered' dim 0 (32) must be 'x' dim 0 (16) times the group size 4 = 64}}
  %0:2 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a return_gathered : (tensor<16x32xf32>, tensor<64x24xf32>) -> (tensor<32x32xf32>, tensor<24x32xf32>)
  return %0#0, %0#1 : tensor<32x32xf32>, tensor<24x32xf32>
}

// -----

func.func @unknown_grid(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> tensor<24x32xf32> {
  // expected-error @+1 {{'tp.all_gather_contract' op 'grid' @nope does not name a shard.grid}}
  %0 = tp.all_gather_contract %x, [%dy] on @nope axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<64x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}
