// RUN: tp-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition,canonicalize))' \
// RUN:   | FileCheck %s

// tp's scf.for model lets upstream's sharding-propagation and shard-partition
// through a loop over stacked layers: the loop slices layer i's weight (split
// on its columns), calls the layer, carries the layer's output and stacks
// its split hidden value. The layer function is upstream's to partition.

shard.grid @grid(shape = 2)

// CHECK-LABEL: func.func @stack
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<3x8x4xf32>) -> (tensor<4x8xf32>, tensor<3x4x4xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<3x4x4xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[X]], %[[S:.*]] = %[[INIT]]) -> (tensor<4x8xf32>, tensor<3x4x4xf32>) {
// CHECK-NEXT: %[[WI:.*]] = tensor.extract_slice %[[W]][%[[I]], 0, 0] [1, 8, 4] [1, 1, 1] : tensor<3x8x4xf32> to tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]]:2 = func.call @layer(%[[A]], %[[WI]]) : (tensor<4x8xf32>, tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>)
// CHECK-NEXT: %[[ST:.*]] = tensor.insert_slice %[[R]]#1 into %[[S]][%[[I]], 0, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4xf32> into tensor<3x4x4xf32>
// CHECK-NEXT: scf.yield %[[R]]#0, %[[ST]] : tensor<4x8xf32>, tensor<3x4x4xf32>
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#1 : tensor<4x8xf32>, tensor<3x4x4xf32>
func.func @stack(%x: tensor<4x8xf32>, %ws: tensor<3x8x8xf32>) -> (tensor<4x8xf32>, tensor<3x4x8xf32>) {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %split2 = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %w0 = shard.shard %ws to %split2 : tensor<3x8x8xf32>
  %w1 = shard.shard %w0 to %split2 annotate_for_users : tensor<3x8x8xf32>
  %e = tensor.empty() : tensor<3x4x8xf32>
  %e0 = shard.shard %e to %split2 : tensor<3x4x8xf32>
  %e1 = shard.shard %e0 to %split2 annotate_for_users : tensor<3x4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1, %s = %e1) -> (tensor<4x8xf32>, tensor<3x4x8xf32>) {
    %w = tensor.extract_slice %w1[%i, 0, 0] [1, 8, 8] [1, 1, 1] : tensor<3x8x8xf32> to tensor<8x8xf32>
    %y:2 = func.call @layer(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
    %y0 = shard.shard %y#0 to %rep : tensor<4x8xf32>
    %y1 = shard.shard %y#1 to %split1 : tensor<4x8xf32>
    %st = tensor.insert_slice %y1 into %s[%i, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<3x4x8xf32>
    scf.yield %y0, %st : tensor<4x8xf32>, tensor<3x4x8xf32>
  }
  %r0 = shard.shard %r#0 to %rep : tensor<4x8xf32>
  %r1 = shard.shard %r#1 to %split2 : tensor<3x4x8xf32>
  return %r0, %r1 : tensor<4x8xf32>, tensor<3x4x8xf32>
}

// The layer: h = x w with w split on its columns, so h is too; its output
// is h gathered.
// CHECK-LABEL: func.func private @layer
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>)
// CHECK: shard.all_gather
func.func private @layer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %w0 = shard.shard %w to %split1 : tensor<8x8xf32>
  %w1 = shard.shard %w0 to %split1 annotate_for_users : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x1, %w1 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h0 = shard.shard %h to %split1 : tensor<4x8xf32>
  %h1 = shard.shard %h0 to %split1 annotate_for_users : tensor<4x8xf32>
  %h2 = shard.shard %h0 to %rep annotate_for_users : tensor<4x8xf32>
  return %h2, %h1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A loop body may slice only dims that are not split.
shard.grid @grid(shape = 2)
func.func @slices_split_dim(%ws: tensor<3x8x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split2 = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %w0 = shard.shard %ws to %split2 : tensor<3x8x8xf32>
  %w1 = shard.shard %w0 to %split2 annotate_for_users : tensor<3x8x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %e0 = shard.shard %e to %rep : tensor<4x8xf32>
  %e1 = shard.shard %e0 to %rep annotate_for_users : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %e1) -> (tensor<4x8xf32>) {
    // expected-error @below {{'tensor.extract_slice' op slices dim 2, which is split across ranks (@grid [[], [], [0]]): a loop body may slice only dims that are not split}}
    %w = tensor.extract_slice %w1[%i, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<3x8x8xf32> to tensor<8x4xf32>
    %y = func.call @use(%a, %w) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
    %y0 = shard.shard %y to %rep : tensor<4x8xf32>
    scf.yield %y0 : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}
func.func private @use(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %s = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %w0 = shard.shard %w to %s : tensor<8x4xf32>
  return %x1 : tensor<4x8xf32>
}

// -----

// A layer's computation belongs in the function the body calls.
shard.grid @grid(shape = 2)
func.func @computes_in_body(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    // expected-error @below {{'arith.addf' op cannot be partitioned in the body of a loop over layers: tp partitions tensor.extract_slice, tensor.insert_slice, func.call and shard.shard there; compute in the function the body calls}}
    %y = arith.addf %a, %a : tensor<4x8xf32>
    scf.yield %y : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}

// -----

// A call's per-rank result type comes from its result's annotation.
shard.grid @grid(shape = 2)
func.func @call_not_annotated(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    // expected-error @below {{'func.call' op result 0 needs one use, a shard.shard giving its sharding, to be partitioned in a loop body}}
    %y = func.call @layer(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %y : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}
func.func private @layer(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  return %x1 : tensor<4x8xf32>
}

// -----

// A carried value keeps its sharding through the body.
shard.grid @grid(shape = 2)
func.func @yield_resharded(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    %y = func.call @layer(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %y0 = shard.shard %y to %split1 : tensor<4x8xf32>
    // expected-error @below {{'scf.yield' op yields carried value 0 split as @grid [[], [0]], but the loop carries it split as @grid [[]]}}
    scf.yield %y0 : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}
func.func private @layer(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  return %x1 : tensor<4x8xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @carried_out_differently(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-error @below {{'scf.for' op carries value 0 in as @grid [[]] and out as @grid [[], [0]]: a carried value keeps its sharding}}
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    %y = func.call @layer(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %y0 = shard.shard %y to %rep : tensor<4x8xf32>
    scf.yield %y0 : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %split1 : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}
func.func private @layer(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  return %x1 : tensor<4x8xf32>
}

// -----

// A tensor from outside the loop needs a sharding (a resource constant is
// the one kind upstream partitions unannotated).
shard.grid @grid(shape = 2)
func.func @captures_unannotated(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %bias = arith.constant dense_resource<ones> : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    // expected-error @below {{'func.call' op reads a tensor from outside the loop that has no sharding: annotate it with shard.shard before the loop}}
    %y = func.call @layer2(%a, %bias) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %y0 = shard.shard %y to %rep : tensor<4x8xf32>
    scf.yield %y0 : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}
func.func private @layer2(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %s = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %w0 = shard.shard %w to %s : tensor<4x8xf32>
  return %x1 : tensor<4x8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      ones: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}

// -----

// In a body, a value's annotation must agree with its sharding (resharding
// needs two annotations in a row, as upstream writes it).
shard.grid @grid(shape = 2)
func.func @annotation_disagrees(%x: tensor<4x8xf32>, %ws: tensor<3x8x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %w0 = shard.shard %ws to %rep : tensor<3x8x8xf32>
  %w1 = shard.shard %w0 to %rep annotate_for_users : tensor<3x8x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    %w = tensor.extract_slice %w1[%i, 0, 0] [1, 8, 8] [1, 1, 1] : tensor<3x8x8xf32> to tensor<8x8xf32>
    // expected-error @below {{'shard.shard' op annotates a value split as @grid [[]] with @grid [[], [0]]: in a loop body only a shard.shard after another one reshards}}
    %ws1 = shard.shard %w to %split1 annotate_for_users : tensor<8x8xf32>
    %y = func.call @layer2(%a, %ws1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %y0 = shard.shard %y to %rep : tensor<4x8xf32>
    scf.yield %y0 : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}
func.func private @layer2(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %w0 = shard.shard %w to %s : tensor<8x8xf32>
  return %x1 : tensor<4x8xf32>
}

// -----

// A stacked gradient is inserted as its tensor is split.
shard.grid @grid(shape = 2)
func.func @inserts_differently(%x: tensor<4x8xf32>) -> tensor<3x4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split2 = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %e = tensor.empty() : tensor<3x4x8xf32>
  %e0 = shard.shard %e to %split2 : tensor<3x4x8xf32>
  %e1 = shard.shard %e0 to %split2 annotate_for_users : tensor<3x4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %e1) -> (tensor<3x4x8xf32>) {
    // expected-error @below {{'tensor.insert_slice' op inserts a slice split as @grid [[]] into a tensor whose slice is split as @grid [[], [0]]}}
    %st = tensor.insert_slice %x1 into %s[%i, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<3x4x8xf32>
    scf.yield %st : tensor<3x4x8xf32>
  }
  %r0 = shard.shard %r to %split2 : tensor<3x4x8xf32>
  return %r0 : tensor<3x4x8xf32>
}

// -----

// On one rank a split dim of one element may be taken whole, but not dropped.
shard.grid @one(shape = 1)
func.func @drops_split_dim(%ws: tensor<1x8xf32>) -> tensor<8xf32> {
  %split0 = shard.sharding @one split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @one split_axes = [[]] : !shard.sharding
  %w0 = shard.shard %ws to %split0 : tensor<1x8xf32>
  %w1 = shard.shard %w0 to %split0 annotate_for_users : tensor<1x8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %e0 = shard.shard %e to %rep : tensor<8xf32>
  %e1 = shard.shard %e0 to %rep annotate_for_users : tensor<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %e1) -> (tensor<8xf32>) {
    // expected-error @below {{'tensor.extract_slice' op drops dim 0, which is split across ranks (@one [[0]])}}
    %w = tensor.extract_slice %w1[0, 0] [1, 8] [1, 1] : tensor<1x8xf32> to tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<8xf32>
  return %r0 : tensor<8xf32>
}

// -----

// Slices of a tensor with halos are not a layer's weights.
shard.grid @grid(shape = 2)
func.func @halo(%x: tensor<4x8xf32>, %ws: tensor<3x8x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %halo = shard.sharding @grid split_axes = [[], [], [0]] halo_sizes = [1, 1] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %w0 = shard.shard %ws to %halo : tensor<3x8x8xf32>
  %w1 = shard.shard %w0 to %halo annotate_for_users : tensor<3x8x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    // expected-error @below {{'tensor.extract_slice' op reads a tensor with halos or uneven shards, which a loop body cannot slice}}
    %w = tensor.extract_slice %w1[%i, 0, 0] [1, 8, 8] [1, 1, 1] : tensor<3x8x8xf32> to tensor<8x8xf32>
    scf.yield %a : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}

// -----

// The partitioned loop compares its bounds as the original did.
// CHECK-LABEL: func.func @unsigned_bounds
// CHECK: scf.for unsigned
shard.grid @grid(shape = 2)
func.func @unsigned_bounds(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for unsigned %i = %c0 to %c3 step %c1 iter_args(%a = %x1) -> (tensor<4x8xf32>) {
    %y = func.call @layer(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %y0 = shard.shard %y to %rep : tensor<4x8xf32>
    scf.yield %y0 : tensor<4x8xf32>
  }
  %r0 = shard.shard %r to %rep : tensor<4x8xf32>
  return %r0 : tensor<4x8xf32>
}
func.func private @layer(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rep : tensor<4x8xf32>
  %x1 = shard.shard %x0 to %rep annotate_for_users : tensor<4x8xf32>
  return %x1 : tensor<4x8xf32>
}
