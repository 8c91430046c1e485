// RUN: tp-opt %s --split-input-file --tp-split-long-functions=max-ops=3 | FileCheck %s
// RUN: tp-opt %s --split-input-file --tp-split-long-functions=max-ops=0 | FileCheck %s --check-prefix=OFF
// RUN: not tp-opt %s --tp-split-long-functions=max-ops=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tp-opt %s --tp-lower-to-llvm=max-function-ops=-2 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: tp-opt %s --split-input-file --tp-split-long-functions="max-ops=3 max-values=2" | FileCheck %s --check-prefix=BOUND
// RUN: not tp-opt %s --tp-split-long-functions=max-values=0 2>&1 | FileCheck %s --check-prefix=VALUES

// NEGATIVE: error: tp-split-long-functions: max-ops must not be negative, got -1
// PIPELINE: error: tp-split-long-functions: max-ops must not be negative, got -2
// VALUES: error: tp-split-long-functions: max-values must be positive, got 0

// With at most two values handed over, @chain's first run (x and w in, the
// tanh out) and its second (the tanh and w in, the product out) hand over
// three each and stay in place; only the last (%r in, %s out) is outlined.

// Seven ops in runs of three: each run is a private no_inline function,
// called in program order (the collectives' order is kept). Constants and
// static empty tensors are made again in each run that reads them; a
// reshape is neither passed nor returned: the run returns what it views and
// the reader reshapes it again.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func private @chain_part(
// CHECK-SAME:      %[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// CHECK:         %[[G:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 0
// CHECK:         %[[M:.*]] = tp.matmul %[[G]], %[[W]]
// CHECK:         %[[T:.*]] = math.tanh %[[M]]
// CHECK:         return %[[T]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @chain_part_0(
// CHECK-SAME:      %[[T0:.*]]: tensor<4x8xf32>, %[[W0:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK:         %[[V:.*]] = tensor.collapse_shape %[[T0]] {{\[}}[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// CHECK:         %[[A:.*]] = arith.addf %[[E]], %[[ONE]]
// CHECK:         %[[N:.*]] = tp.matmul %[[A]], %[[W0]]
// CHECK:         %[[R:.*]] = arith.mulf %[[N]], %[[ONE]]
// CHECK:         return %[[R]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @chain_part_1(
// CHECK-SAME:      %[[R1:.*]]: tensor<4x8xf32>) -> tensor<2x8xf32> attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// CHECK:         %[[S:.*]] = tp.reduce_scatter %[[R1]] on @tp axes = [0] dim = 0 reduce = sum
// CHECK:         return %[[S]]
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[IN:.*]]: tensor<2x8xf32>, %[[WI:.*]]: tensor<8x8xf32>)
// CHECK-NEXT:    %[[C0:.*]] = call @chain_part(%[[IN]], %[[WI]])
// CHECK-NEXT:    %[[C1:.*]] = call @chain_part_0(%[[C0]], %[[WI]])
// CHECK-NEXT:    %[[C2:.*]] = call @chain_part_1(%[[C1]])
// CHECK-NEXT:    return %[[C2]]
// BOUND-LABEL: func.func private @chain_part(
// BOUND-SAME:      %[[R:.*]]: tensor<4x8xf32>) -> tensor<2x8xf32> attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// BOUND-NEXT:    %[[S:.*]] = tp.reduce_scatter %[[R]]
// BOUND-NEXT:    return %[[S]]
// BOUND-LABEL: func.func @chain(
// BOUND:         tp.all_gather
// BOUND:         math.tanh
// BOUND:         tp.matmul
// BOUND:         %[[MUL:.*]] = arith.mulf
// BOUND-NEXT:    %[[C:.*]] = call @chain_part(%[[MUL]])
// BOUND-NEXT:    return %[[C]]
// OFF-LABEL: func.func @chain(
// OFF-NOT:   call
// OFF:       tp.reduce_scatter
func.func @chain(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x8xf32> {
  %one = arith.constant dense<1.0> : tensor<4x8xf32>
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %m = tp.matmul %g, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t = math.tanh %m : tensor<4x8xf32>
  %v = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %e = tensor.expand_shape %v [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  %a = arith.addf %e, %one : tensor<4x8xf32>
  %n = tp.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %r = arith.mulf %n, %one : tensor<4x8xf32>
  %s = tp.reduce_scatter %r on @tp axes = [0] dim = 0 reduce = sum : tensor<4x8xf32> -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}

// -----

// Negative: a function of at most max-ops ops, and one with several blocks,
// stay as written; so does every function with max-ops=0.

// CHECK-LABEL: func.func @short(
// CHECK-NOT:     call
// CHECK:         return
func.func @short(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  %b = arith.addf %a, %x : tensor<4xf32>
  %c = arith.mulf %b, %x : tensor<4xf32>
  return %c : tensor<4xf32>
}

// CHECK-LABEL: func.func @blocks(
// CHECK-NOT:     call
// CHECK:         cf.br
func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  %b = arith.addf %a, %x : tensor<4xf32>
  %c = arith.mulf %b, %x : tensor<4xf32>
  %d = arith.subf %c, %x : tensor<4xf32>
  cf.br ^next(%d : tensor<4xf32>)
^next(%y: tensor<4xf32>):
  return %y : tensor<4xf32>
}

// -----

// A view of what a run computes is made again inside the run, after it.

// CHECK-LABEL: func.func private @view_of_run_part(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[T:.*]] = math.tanh %[[X]]
// CHECK-NEXT:    %[[V:.*]] = tensor.collapse_shape %[[T]]
// CHECK-NEXT:    %[[E:.*]] = tensor.expand_shape %[[V]]
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[E]], %[[X]]
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[A]], %[[X]]
// CHECK-NEXT:    return %[[M]]
// CHECK-LABEL: func.func private @view_of_run_part_0(
// CHECK-LABEL: func.func @view_of_run(
// CHECK-NEXT:    call @view_of_run_part(
// CHECK-NEXT:    call @view_of_run_part_0(
// CHECK-NEXT:    return
func.func @view_of_run(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = math.tanh %x : tensor<4x8xf32>
  %v = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %e = tensor.expand_shape %v [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  %a = arith.addf %e, %x : tensor<4x8xf32>
  %m = arith.mulf %a, %x : tensor<4x8xf32>
  %s = arith.subf %m, %x : tensor<4x8xf32>
  %f = arith.addf %s, %x : tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}
