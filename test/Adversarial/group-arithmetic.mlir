// RUN: tp-opt %s --split-input-file --verify-diagnostics

// Hostile group arithmetic: grids with an axis of extent 0, groups whose rank
// count overflows int64, local extents that overflow int64 once multiplied by
// the group size, tensor types whose byte size overflows int64, and grid axes
// or dims that are out of range, negative or named twice. Every case must be
// a clean verifier (or parser) error, never a wrapped-around size.

//===----------------------------------------------------------------------===//
// An axis of extent 0: every op that names a grid
//===----------------------------------------------------------------------===//

shard.grid @g(shape = 0)

func.func @all_gather_zero_extent(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.all_gather %x on @g axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 0)

func.func @reduce_scatter_zero_extent(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.reduce_scatter %x on @g axes = [0] dim = 0 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 0)

func.func @all_reduce_zero_extent(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.all_reduce %x on @g axes = [0] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 2x0)

func.func @group_rank_zero_extent() -> index {
  // expected-error @+1 {{'tp.group_rank' op grid axis 1 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.group_rank on @g axes = [1]
  return %0 : index
}

// -----

shard.grid @g(shape = 0)

func.func @linear_zero_extent(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.linear' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.linear %x, %w on @g axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @g(shape = 0)

func.func @all_gather_matmul_zero_extent(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{'tp.all_gather_matmul' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.all_gather_matmul %x, [%w] on @g axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

shard.grid @g(shape = 0)

func.func @matmul_reduce_scatter_zero_extent(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.matmul_reduce_scatter %x, %w on @g axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 0)

func.func @all_gather_scaled_matmul_zero_extent(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @g axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @g(shape = 0)

func.func @scaled_matmul_reduce_scatter_zero_extent(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op grid axis 0 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @g axes = [0] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

// The empty axis sits between two ordinary ones.
shard.grid @g(shape = 2x0x4)

func.func @zero_extent_middle_axis(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op grid axis 1 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.all_reduce %x on @g axes = [0, 1, 2] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// An axis of extent 0 next to the largest extent: the empty group is reported,
// not an overflow (0 * anything fits).
shard.grid @g(shape = 9223372036854775807x0)

func.func @zero_extent_beside_huge(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op grid axis 1 of @g has extent 0; a group needs at least one rank}}
  %0 = tp.all_reduce %x on @g axes = [0, 1] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

//===----------------------------------------------------------------------===//
// Groups with more ranks than int64 holds
//===----------------------------------------------------------------------===//

// -----

shard.grid @g(shape = 9223372036854775807x9223372036854775807)

func.func @all_reduce_group_overflow(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.all_reduce %x on @g axes = [0, 1] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// 2^62 * 4 = 2^64.
shard.grid @g(shape = 4611686018427387904x4)

func.func @group_rank_group_overflow() -> index {
  // expected-error @+1 {{'tp.group_rank' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.group_rank on @g axes = [0, 1]
  return %0 : index
}

// -----

// 2^62 * 2 = 2^63, one more than INT64_MAX: the smallest overflow.
shard.grid @g(shape = 4611686018427387904x2)

func.func @group_rank_group_overflow_by_one() -> index {
  // expected-error @+1 {{'tp.group_rank' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.group_rank on @g axes = [0, 1]
  return %0 : index
}

// -----

// Three axes of 2^21: any two fit (2^42), all three (2^63) do not.
shard.grid @g(shape = 2097152x2097152x2097152)

func.func @all_reduce_three_axes_overflow(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op the group over axes [0, 1, 2] of @g has more ranks than int64 holds}}
  %0 = tp.all_reduce %x on @g axes = [0, 1, 2] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// Axes named out of order: the message lists them as written.
shard.grid @g(shape = 4294967296x4294967296)

func.func @all_gather_group_overflow(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op the group over axes [1, 0] of @g has more ranks than int64 holds}}
  %0 = tp.all_gather %x on @g axes = [1, 0] dim = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 4294967296x4294967296)

func.func @reduce_scatter_group_overflow(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.reduce_scatter %x on @g axes = [0, 1] dim = 0 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 4294967296x4294967296)

func.func @linear_group_overflow(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.linear' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.linear %x, %w on @g axes = [0, 1] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @g(shape = 4294967296x4294967296)

func.func @all_gather_matmul_group_overflow(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{'tp.all_gather_matmul' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.all_gather_matmul %x, [%w] on @g axes = [0, 1] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

shard.grid @g(shape = 4294967296x4294967296)

func.func @matmul_reduce_scatter_group_overflow(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.matmul_reduce_scatter %x, %w on @g axes = [0, 1] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 4294967296x4294967296)

func.func @all_gather_scaled_matmul_group_overflow(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @g axes = [0, 1] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @g(shape = 4294967296x4294967296)

func.func @scaled_matmul_reduce_scatter_group_overflow(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @g axes = [0, 1] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

// 7 * 7905747460161236407 = 2^65 + 1: a product taken modulo 2^64 would be a
// "group of one rank" and fold the all-reduce away.
shard.grid @g(shape = 7x7905747460161236407)

func.func @group_overflow_wraps_to_one(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op the group over axes [0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.all_reduce %x on @g axes = [0, 1] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// A dynamic axis named last does not hide the overflow of the static ones.
shard.grid @g(shape = 9223372036854775807x2x?)

func.func @group_overflow_before_dynamic_axis(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op the group over axes [0, 1, 2] of @g has more ranks than int64 holds}}
  %0 = tp.all_reduce %x on @g axes = [0, 1, 2] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

//===----------------------------------------------------------------------===//
// A local extent times the group size overflows int64
//===----------------------------------------------------------------------===//

// -----

// 2^62 rows gathered over 4 ranks would be 2^64 rows.
shard.grid @g(shape = 4)

func.func @all_gather_gathered_overflow(%x: tensor<4611686018427387904x1xi8>) -> tensor<4x1xi8> {
  // expected-error @+1 {{'tp.all_gather' op 'input' dim 0 (4611686018427387904) times the group size 4 overflows int64}}
  %0 = tp.all_gather %x on @g axes = [0] dim = 0 : tensor<4611686018427387904x1xi8> -> tensor<4x1xi8>
  return %0 : tensor<4x1xi8>
}

// -----

// A sequence-sharded column-parallel input is gathered before the GEMM.
shard.grid @g(shape = 4)

func.func @linear_gathered_overflow(%x: tensor<2305843009213693952x1xf16>, %w: tensor<16x1xf16>) -> tensor<?x16xf16> {
  // expected-error @+1 {{'tp.linear' op 'input' dim 0 (2305843009213693952) times the group size 4 overflows int64}}
  %0 = tp.linear %x, %w on @g axes = [0] column input = shard(0) output = shard(1) : (tensor<2305843009213693952x1xf16>, tensor<16x1xf16>) -> tensor<?x16xf16>
  return %0 : tensor<?x16xf16>
}

// -----

shard.grid @g(shape = 4)

func.func @all_gather_matmul_gathered_overflow(%x: tensor<2305843009213693952x1xf16>, %w: tensor<1x16xf16>) -> tensor<?x16xf16> {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'a' dim 0 (2305843009213693952) times the group size 4 overflows int64}}
  %0 = tp.all_gather_matmul %x, [%w] on @g axes = [0] dim = 0 : (tensor<2305843009213693952x1xf16>, tensor<1x16xf16>) -> tensor<?x16xf16>
  return %0 : tensor<?x16xf16>
}

// -----

// Gathering K: the gathered contraction dim overflows.
shard.grid @g(shape = 4)

func.func @all_gather_matmul_gathered_k_overflow(%x: tensor<1x2305843009213693952xf16>, %w: tensor<16x16xf16>) -> tensor<1x16xf16> {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'a' dim 1 (2305843009213693952) times the group size 4 overflows int64}}
  %0 = tp.all_gather_matmul %x, [%w] on @g axes = [0] dim = 1 : (tensor<1x2305843009213693952xf16>, tensor<16x16xf16>) -> tensor<1x16xf16>
  return %0 : tensor<1x16xf16>
}

// -----

shard.grid @g(shape = 4)

func.func @all_gather_matmul_return_gathered_overflow(%x: tensor<2305843009213693952x1xf16>, %w: tensor<1x16xf16>) -> (tensor<?x1xf16>, tensor<?x16xf16>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'a' dim 0 (2305843009213693952) times the group size 4 overflows int64}}
  %0:2 = tp.all_gather_matmul %x, [%w] on @g axes = [0] dim = 0 return_gathered : (tensor<2305843009213693952x1xf16>, tensor<1x16xf16>) -> (tensor<?x1xf16>, tensor<?x16xf16>)
  return %0#0, %0#1 : tensor<?x1xf16>, tensor<?x16xf16>
}

// -----

// A tiny local tensor over a group of 2^62 ranks.
shard.grid @g(shape = 4611686018427387904)

func.func @all_gather_matmul_huge_group(%x: tensor<2x1xf16>, %w: tensor<1x16xf16>) -> tensor<?x16xf16> {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'a' dim 0 (2) times the group size 4611686018427387904 overflows int64}}
  %0 = tp.all_gather_matmul %x, [%w] on @g axes = [0] dim = 0 : (tensor<2x1xf16>, tensor<1x16xf16>) -> tensor<?x16xf16>
  return %0 : tensor<?x16xf16>
}

// -----

// 2^58 rows of 16 FP8 values fit (2^62 bytes); gathered over 32 ranks they
// do not.
shard.grid @g(shape = 32)

func.func @all_gather_scaled_matmul_gathered_overflow(%a: tensor<288230376151711744x16xf8E4M3FN>, %as: tensor<288230376151711744x1xf32>, %b: tensor<16x16xf8E4M3FN>, %bs: tensor<16x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'a' dim 0 (288230376151711744) times the group size 32 overflows int64}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @g axes = [0] dim = 0 row_wise : (tensor<288230376151711744x16xf8E4M3FN>, tensor<288230376151711744x1xf32>, tensor<16x16xf8E4M3FN>, tensor<16x1xf32>) -> tensor<?x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// Tensor types whose element count or byte size overflows int64
//===----------------------------------------------------------------------===//

// -----

// The element count itself overflows: 2^32 * (2^32 + 1).
shard.grid @g(shape = 4)

func.func @all_reduce_element_count_overflow(%x: tensor<4294967296x4294967297xf32>) -> tensor<4294967296x4294967297xf32> {
  // expected-error @+1 {{'tp.all_reduce' op operand #0 ('tensor<4294967296x4294967297xf32>') holds more bytes than int64 counts}}
  %0 = tp.all_reduce %x on @g axes = [0] reduce = sum : tensor<4294967296x4294967297xf32>
  return %0 : tensor<4294967296x4294967297xf32>
}

// -----

// 2^61 elements fit; 2^61 * 4 bytes do not.
shard.grid @g(shape = 4)

func.func @all_reduce_byte_size_overflow(%x: tensor<2305843009213693952xf32>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{'tp.all_reduce' op operand #0 ('tensor<2305843009213693952xf32>') holds more bytes than int64 counts}}
  %0 = tp.all_reduce %x on @g axes = [0] reduce = sum : tensor<2305843009213693952xf32>
  return %0 : tensor<2305843009213693952xf32>
}

// -----

// A dynamic leading dim does not hide the overflow of the static ones.
shard.grid @g(shape = 4)

func.func @all_reduce_dynamic_and_overflow(%x: tensor<?x4294967296x4294967297xf32>) -> tensor<?x4294967296x4294967297xf32> {
  // expected-error @+1 {{'tp.all_reduce' op operand #0 ('tensor<?x4294967296x4294967297xf32>') holds more bytes than int64 counts}}
  %0 = tp.all_reduce %x on @g axes = [0] reduce = sum : tensor<?x4294967296x4294967297xf32>
  return %0 : tensor<?x4294967296x4294967297xf32>
}

// -----

// index elements count as 8 bytes: 2^60 of them overflow.
shard.grid @g(shape = 4)

func.func @all_reduce_index_byte_size_overflow(%x: tensor<1152921504606846976xindex>) -> tensor<1152921504606846976xindex> {
  // expected-error @+1 {{'tp.all_reduce' op operand #0 ('tensor<1152921504606846976xindex>') holds more bytes than int64 counts}}
  %0 = tp.all_reduce %x on @g axes = [0] reduce = sum : tensor<1152921504606846976xindex>
  return %0 : tensor<1152921504606846976xindex>
}

// -----

// The input fits (2^61 bytes); the gathered result (2^63 bytes) does not.
shard.grid @g(shape = 4)

func.func @all_gather_result_byte_size_overflow(%x: tensor<576460752303423488xf32>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{'tp.all_gather' op result #0 ('tensor<2305843009213693952xf32>') holds more bytes than int64 counts}}
  %0 = tp.all_gather %x on @g axes = [0] dim = 0 : tensor<576460752303423488xf32> -> tensor<2305843009213693952xf32>
  return %0 : tensor<2305843009213693952xf32>
}

// -----

shard.grid @g(shape = 4)

func.func @reduce_scatter_operand_byte_size_overflow(%x: tensor<2305843009213693952xf32>) -> tensor<576460752303423488xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op operand #0 ('tensor<2305843009213693952xf32>') holds more bytes than int64 counts}}
  %0 = tp.reduce_scatter %x on @g axes = [0] dim = 0 reduce = sum : tensor<2305843009213693952xf32> -> tensor<576460752303423488xf32>
  return %0 : tensor<576460752303423488xf32>
}

// -----

func.func @matmul_element_count_overflow(%a: tensor<4294967296x4294967297xf32>, %b: tensor<4294967297x2xf32>) -> tensor<4294967296x2xf32> {
  // expected-error @+1 {{'tp.matmul' op operand #0 ('tensor<4294967296x4294967297xf32>') holds more bytes than int64 counts}}
  %0 = tp.matmul %a, %b : tensor<4294967296x4294967297xf32>, tensor<4294967297x2xf32> -> tensor<4294967296x2xf32>
  return %0 : tensor<4294967296x2xf32>
}

// -----

func.func @batch_matmul_byte_size_overflow(%a: tensor<4x2305843009213693952x16xf16>, %b: tensor<16x16xf16>) {
  // expected-error @+1 {{'tp.batch_matmul' op operand #0 ('tensor<4x2305843009213693952x16xf16>') holds more bytes than int64 counts}}
  %0 = tp.batch_matmul %a, %b : tensor<4x2305843009213693952x16xf16>, tensor<16x16xf16> -> tensor<4x2305843009213693952x16xf16>
  return
}

// -----

func.func @bias_add_byte_size_overflow(%x: tensor<1152921504606846976x4xf32>, %b: tensor<4xf32>) -> tensor<1152921504606846976x4xf32> {
  // expected-error @+1 {{'tp.bias_add' op operand #0 ('tensor<1152921504606846976x4xf32>') holds more bytes than int64 counts}}
  %0 = tp.bias_add %x, %b : tensor<1152921504606846976x4xf32>, tensor<4xf32>
  return %0 : tensor<1152921504606846976x4xf32>
}

// -----

func.func @quantize_byte_size_overflow(%x: tensor<1152921504606846976x32xf32>) {
  // expected-error @+1 {{'tp.quantize' op operand #0 ('tensor<1152921504606846976x32xf32>') holds more bytes than int64 counts}}
  %q, %s = tp.quantize %x row_wise : tensor<1152921504606846976x32xf32> -> tensor<1152921504606846976x32xf8E4M3FN>, tensor<1152921504606846976x1xf32>
  return
}

// -----

func.func @dequantize_byte_size_overflow(%q: tensor<2305843009213693952x16xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'tp.dequantize' op operand #0 ('tensor<2305843009213693952x16xf8E4M3FN>') holds more bytes than int64 counts}}
  %0 = tp.dequantize %q scale %s per_tensor : (tensor<2305843009213693952x16xf8E4M3FN>, tensor<f32>) -> tensor<2305843009213693952x16xf32>
  return
}

// -----

shard.grid @g(shape = 4)

func.func @linear_weight_byte_size_overflow(%x: tensor<32x64xf32>, %w: tensor<4611686018427387904x64xf32>) -> tensor<32x?xf32> {
  // expected-error @+1 {{'tp.linear' op operand #1 ('tensor<4611686018427387904x64xf32>') holds more bytes than int64 counts}}
  %0 = tp.linear %x, %w on @g axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<4611686018427387904x64xf32>) -> tensor<32x?xf32>
  return %0 : tensor<32x?xf32>
}

// -----

shard.grid @g(shape = 4)

func.func @all_gather_scaled_matmul_byte_size_overflow(%a: tensor<4611686018427387904x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op operand #0 ('tensor<4611686018427387904x64xf8E4M3FN>') holds more bytes than int64 counts}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @g axes = [0] dim = 0 per_tensor : (tensor<4611686018427387904x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<?x128xf32>
  return
}

//===----------------------------------------------------------------------===//
// Grid axes out of range, negative, named twice
//===----------------------------------------------------------------------===//

// -----

shard.grid @g(shape = 4)

func.func @axis_i16_max() -> index {
  // expected-error @+1 {{'tp.group_rank' op grid axis 32767 is out of range for grid @g of rank 1}}
  %0 = tp.group_rank on @g axes = [32767]
  return %0 : index
}

// -----

shard.grid @g(shape = 4)

func.func @axis_i16_min() -> index {
  // expected-error @+1 {{'tp.group_rank' op grid axis -32768 is out of range for grid @g of rank 1}}
  %0 = tp.group_rank on @g axes = [-32768]
  return %0 : index
}

// -----

// One past i16: a parse error, not a wrapped-around axis 0 or -32768.
shard.grid @g(shape = 4)

func.func @axis_past_i16() -> index {
  // expected-error @+1 {{integer value too large}}
  %0 = tp.group_rank on @g axes = [32768]
  return %0 : index
}

// -----

shard.grid @g(shape = 2x4)

func.func @axis_negative_after_valid(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op grid axis -1 is out of range for grid @g of rank 2}}
  %0 = tp.all_reduce %x on @g axes = [1, -1] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// The range is checked before the extent: axis 5 is reported, not the empty
// axis 0 after it.
shard.grid @g(shape = 0x4)

func.func @axis_out_of_range_before_zero_extent(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op grid axis 5 is out of range for grid @g of rank 2}}
  %0 = tp.all_reduce %x on @g axes = [5, 0] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 2x4)

func.func @axis_named_twice_adjacent(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op grid axis 0 is named twice}}
  %0 = tp.all_reduce %x on @g axes = [0, 0] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 2x4)

func.func @fused_axis_named_twice(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op grid axis 1 is named twice}}
  %0 = tp.matmul_reduce_scatter %x, %w on @g axes = [1, 1] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

//===----------------------------------------------------------------------===//
// Dims out of range: huge, negative, past int64
//===----------------------------------------------------------------------===//

// -----

shard.grid @g(shape = 4)

func.func @all_gather_dim_int64_max(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'dim' 9223372036854775807 is out of range for 'input' of rank 2}}
  %0 = tp.all_gather %x on @g axes = [0] dim = 9223372036854775807 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// 2^63 is read as a 64-bit pattern: it is the negative -2^63, which the
// attribute constraint rejects.
shard.grid @g(shape = 4)

func.func @all_gather_dim_two_pow_63(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tp.all_gather %x on @g axes = [0] dim = 9223372036854775808 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 4)

func.func @reduce_scatter_dim_int64_min(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tp.reduce_scatter %x on @g axes = [0] dim = -9223372036854775808 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 4)

func.func @all_gather_matmul_dim_int64_max(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'dim' 9223372036854775807 is out of range for 'a' of rank 2}}
  %0 = tp.all_gather_matmul %x, [%w] on @g axes = [0] dim = 9223372036854775807 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

shard.grid @g(shape = 4)

func.func @matmul_reduce_scatter_negative_dim(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tp.matmul_reduce_scatter %x, %w on @g axes = [0] dim = -1 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 4)

func.func @linear_shard_dim_int64_max(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.linear' op a column-parallel 'input' must be replicated or sharded on a dim before the last (1), got shard(9223372036854775807)}}
  %0 = tp.linear %x, %w on @g axes = [0] column input = shard(9223372036854775807) output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

// A placement dim past int64 is a parse error (no wrap to a negative dim).
shard.grid @g(shape = 4)

func.func @linear_shard_dim_past_int64(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{integer value too large}}
  %0 = tp.linear %x, %w on @g axes = [0] column input = shard(9223372036854775808) output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @g(shape = 4)

func.func @linear_shard_dim_int64_min(%x: tensor<32x16xf32>, %w: tensor<128x16xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{placement shard dimension must be non-negative, got -9223372036854775808}}
  %0 = tp.linear %x, %w on @g axes = [0] row input = shard(1) output = shard(-9223372036854775808) : (tensor<32x16xf32>, tensor<128x16xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

// A gathered extent that overflows is refused even when the result's dim is
// dynamic (the fusion pass would otherwise compute it).
shard.grid @g(shape = 4)
func.func @gather_dynamic_result_overflow(%x: tensor<4611686018427387904x1xi8>) -> tensor<?x1xi8> {
  // expected-error @+1 {{'tp.all_gather' op 'input' dim 0 (4611686018427387904) times the group size 4 overflows int64}}
  %0 = tp.all_gather %x on @g axes = [0] dim = 0 : tensor<4611686018427387904x1xi8> -> tensor<?x1xi8>
  return %0 : tensor<?x1xi8>
}

// -----

// The static extents of a group must multiply without overflow whatever the
// order of the axes, even with a dynamic one first.
shard.grid @g(shape = 9223372036854775807x2x?)
func.func @overflow_after_dynamic_axis(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op the group over axes [2, 0, 1] of @g has more ranks than int64 holds}}
  %0 = tp.all_reduce %x on @g axes = [2, 0, 1] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
