// RUN: tp-opt %s --tp-simplify-collectives="emit-remarks stats" -verify-diagnostics | FileCheck %s

// expected-remark @below {{tp-simplify-collectives: 6 collectives removed, 9 zero addends dropped}}
module {
shard.grid @tp(shape = 4)
shard.grid @dyn(shape = ?)

//===----------------------------------------------------------------------===//
// Collectives whose result is never read
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unused
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @unused(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @below {{tp-simplify-collectives: removed 'tp.all_gather': its result is never used}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  return %x : tensor<4x8xf32>
}

// Upstream's pattern: the accumulator's tensor.empty gathered, only to be
// zero-filled.
// CHECK-LABEL: func.func @fill_init
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<16x8xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NEXT:    return %[[F]]
func.func @fill_init() -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{tp-simplify-collectives: removed 'tp.all_gather': its result is only the destination of 'linalg.fill', which overwrites it without reading it}}
  %g = tp.all_gather %e on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%g : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %f : tensor<16x8xf32>
}

// A generic whose payload ignores its init, and a tensor.dim of the result.
// CHECK-LABEL: func.func @generic_ignores_init
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[P:.*]]: tensor<16x8xf32>)
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[T:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK:         return %[[T]], %[[C4]]
func.func @generic_ignores_init(%x: tensor<4x8xf32>, %p: tensor<16x8xf32>) -> (tensor<4x8xf32>, index) {
  // expected-remark @below {{removed 'tp.reduce_scatter': its result is only the destination of 'linalg.generic'}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<16x8xf32> -> tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%r : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<4x8xf32>
  return %t, %d : tensor<4x8xf32>, index
}

// Dynamic sizes come from the input, times the group size along the
// gathered dim.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %[[C0]]
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[D0]], %[[C4]]
// CHECK-NEXT:    %[[D1:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[N]], %[[D1]]) : tensor<?x?xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK-NEXT:    return %[[F]]
func.func @dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-remark @below {{removed 'tp.all_gather': its result is only the destination of 'linalg.fill'}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%g : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %f : tensor<?x?xf32>
}

// The same on a grid of dynamic size: the gathered size is unknown, so the
// collective stays (and says why). An all-reduce there still goes.
// CHECK-LABEL: func.func @dynamic_group
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<4x?xf32>)
// CHECK:         %[[G:.*]] = tp.all_gather %[[X]] on @dyn
// CHECK-NEXT:    %[[F:.*]] = linalg.fill {{.*}} outs(%[[G]] : tensor<?x8xf32>)
// CHECK-NEXT:    %[[D:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<4x?xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
// CHECK-NEXT:    %[[K:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<4x?xf32>)
// CHECK-NEXT:    return %[[F]], %[[K]]
func.func @dynamic_group(%x: tensor<?x8xf32>, %y: tensor<4x?xf32>) -> (tensor<?x8xf32>, tensor<4x?xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-remark @below {{tp-simplify-collectives: kept 'tp.all_gather' although its result is never read: the size of its dynamic dimension 0 depends on a group size that is not static}}
  %g = tp.all_gather %x on @dyn axes = [0] dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%g : tensor<?x8xf32>) -> tensor<?x8xf32>
  // expected-remark @below {{removed 'tp.all_reduce'}}
  %h = tp.all_reduce %y on @dyn axes = [0] reduce = max : tensor<4x?xf32>
  %k = linalg.fill ins(%zero : f32) outs(%h : tensor<4x?xf32>) -> tensor<4x?xf32>
  return %f, %k : tensor<?x8xf32>, tensor<4x?xf32>
}

// Read: a generic that accumulates into its init, a matmul accumulating into
// it, a real consumer, and a fill init that is also returned.
// CHECK-LABEL: func.func @read
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[P:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK:         %[[R:.*]] = tp.all_reduce %[[P]] on @tp axes = [0] reduce = sum
// CHECK-NEXT:    %[[T:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%[[R]] : tensor<4x8xf32>)
// CHECK:         %[[G:.*]] = tp.all_reduce %[[X]] on @tp axes = [0] reduce = sum
// CHECK-NEXT:    %[[M:.*]] = linalg.matmul ins(%[[X]], %[[W]] : {{.*}}) outs(%[[G]] : tensor<4x8xf32>)
// CHECK-NEXT:    %[[G2:.*]] = tp.all_gather %[[P]] on @tp axes = [0] dim = 0
// CHECK-NEXT:    %[[U:.*]] = tp.matmul %[[G2]], %[[W]]
// CHECK-NEXT:    %[[G3:.*]] = tp.all_gather %[[P]] on @tp axes = [0] dim = 1
// CHECK-NEXT:    %[[F:.*]] = linalg.fill {{.*}} outs(%[[G3]] : tensor<4x32xf32>)
// CHECK-NEXT:    return %[[T]], %[[M]], %[[U]], %[[F]], %[[G3]]
func.func @read(%x: tensor<4x8xf32>, %p: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<16x8xf32>, tensor<4x32xf32>, tensor<4x32xf32>) {
  %r = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%r : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %g = tp.all_reduce %x on @tp axes = [0] reduce = sum : tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%g : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g2 = tp.all_gather %p on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  %u = tp.matmul %g2, %w : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %g3 = tp.all_gather %p on @tp axes = [0] dim = 1 : tensor<4x8xf32> -> tensor<4x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%g3 : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %t, %m, %u, %f, %g3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<16x8xf32>, tensor<4x32xf32>, tensor<4x32xf32>
}

//===----------------------------------------------------------------------===//
// Zero addends
//===----------------------------------------------------------------------===//

// +0.0 added to a matmul product (a zero-filled accumulator) goes: the product
// accumulates from +0.0, so it is never -0.0.
// CHECK-LABEL: func.func @product_plus_zero
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>)
// CHECK-NEXT:    %[[M:.*]] = tp.matmul %[[A]], %[[B]]
// CHECK-NEXT:    %[[N:.*]] = tp.matmul %[[A]], %[[B]]
// CHECK-NEXT:    return %[[M]], %[[N]]
func.func @product_plus_zero(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = tp.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // expected-remark @below {{tp-simplify-collectives: dropped a zero addend of 'arith.addf': the other operand (a matmul product or a sum with one) is never -0.0, so adding +0.0 is exact}}
  %s = arith.addf %f, %m : tensor<4x8xf32>
  %c = arith.constant dense<0.0> : tensor<4x8xf32>
  %n = tp.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // expected-remark @below {{dropped a zero addend of 'arith.addf'}}
  %t = arith.addf %n, %c : tensor<4x8xf32>
  return %s, %t : tensor<4x8xf32>, tensor<4x8xf32>
}

// Upstream's rank-0 accumulator once its gathered garbage is gone: zero on
// every branch, added to the product before the reduce-scatter.
// CHECK-LABEL: func.func @rank0_accumulator
// CHECK-SAME:    (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8x8xf32>)
// CHECK-NEXT:    %[[M:.*]] = tp.matmul %[[A]], %[[B]]
// CHECK-NEXT:    %[[R:.*]] = tp.reduce_scatter %[[M]] on @tp axes = [0] dim = 0 reduce = sum
// CHECK-NEXT:    return %[[R]]
func.func @rank0_accumulator(%a: tensor<16x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{removed 'tp.all_gather': its result is only the destination of 'linalg.fill'}}
  %g = tp.all_gather %e on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%g : tensor<16x8xf32>) -> tensor<16x8xf32>
  %rank = tp.group_rank on @tp axes = [0]
  %is0 = arith.cmpi eq, %rank, %c0 : index
  %acc = scf.if %is0 -> (tensor<16x8xf32>) {
    scf.yield %f : tensor<16x8xf32>
  } else {
    %e2 = tensor.empty() : tensor<16x8xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
    scf.yield %f2 : tensor<16x8xf32>
  }
  %m = tp.matmul %a, %b : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  // expected-remark @below {{dropped a zero addend of 'arith.addf'}}
  %s = arith.addf %m, %acc : tensor<16x8xf32>
  %r = tp.reduce_scatter %s on @tp axes = [0] dim = 0 reduce = sum : tensor<16x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -0.0 is an identity for any x (arith.addf folds a constant one itself;
// here it is filled); +0.0 with 'nsz' too.
// CHECK-LABEL: func.func @signed_zeros
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: f32)
// CHECK-NEXT:    return %[[X]], %[[S]]
func.func @signed_zeros(%x: tensor<4x8xf32>, %s: f32) -> (tensor<4x8xf32>, f32) {
  %m0 = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %nz = linalg.fill ins(%m0 : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{dropped a zero addend of 'arith.addf': adding -0.0 is exact}}
  %a = arith.addf %x, %nz : tensor<4x8xf32>
  %pz = arith.constant 0.0 : f32
  // expected-remark @below {{dropped a zero addend of 'arith.addf': the add has the 'nsz' flag}}
  %b = arith.addf %s, %pz fastmath<nsz> : f32
  return %a, %b : tensor<4x8xf32>, f32
}

// Kept: +0.0 added to an arbitrary x (x = -0.0 would become +0.0), a non-zero
// fill, and an accumulator that is zero on one branch only.
// CHECK-LABEL: func.func @kept_adds
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>, %[[C:.*]]: i1)
// CHECK:         %[[P:.*]] = arith.addf %[[X]], %{{.*}} : tensor<4x8xf32>
// CHECK:         %[[M:.*]] = tp.matmul %[[A]], %[[B]]
// CHECK-NEXT:    %[[Q:.*]] = arith.addf %[[M]], %{{.*}} : tensor<4x8xf32>
// CHECK:         %[[I:.*]] = scf.if %[[C]]
// CHECK:         %[[R:.*]] = arith.addf %[[M]], %[[I]]
// CHECK:         return %[[P]], %[[Q]], %[[R]]
func.func @kept_adds(%x: tensor<4x8xf32>, %a: tensor<4x8xf32>, %b: tensor<8x8xf32>, %c: i1)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = arith.addf %x, %z : tensor<4x8xf32>
  %o = linalg.fill ins(%one : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = tp.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %q = arith.addf %m, %o : tensor<4x8xf32>
  %i = scf.if %c -> (tensor<4x8xf32>) {
    scf.yield %z : tensor<4x8xf32>
  } else {
    scf.yield %x : tensor<4x8xf32>
  }
  %r = arith.addf %m, %i : tensor<4x8xf32>
  return %p, %q, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// linalg.add with an integer zero, and tp.bias_add with a zero bias on a
// product; the bias on an argument stays.
// CHECK-LABEL: func.func @add_and_bias
// CHECK-SAME:    (%[[I:.*]]: tensor<4x8xi32>, %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>)
// CHECK:         %[[M:.*]] = tp.matmul %[[A]], %[[B]]
// CHECK-NEXT:    %[[K:.*]] = tp.bias_add %[[A]], %{{.*}}
// CHECK-NEXT:    return %[[I]], %[[M]], %[[K]]
func.func @add_and_bias(%i: tensor<4x8xi32>, %a: tensor<4x8xf32>, %b: tensor<8x8xf32>)
    -> (tensor<4x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zi = arith.constant 0 : i32
  %ei = tensor.empty() : tensor<4x8xi32>
  %fi = linalg.fill ins(%zi : i32) outs(%ei : tensor<4x8xi32>) -> tensor<4x8xi32>
  // expected-remark @below {{dropped a zero addend of 'linalg.add': adding integer 0 is exact}}
  %s = linalg.add ins(%i, %fi : tensor<4x8xi32>, tensor<4x8xi32>) outs(%ei : tensor<4x8xi32>) -> tensor<4x8xi32>
  %bias = arith.constant dense<0.0> : tensor<8xf32>
  %m = tp.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // expected-remark @below {{dropped a zero bias of 'tp.bias_add'}}
  %y = tp.bias_add %m, %bias : tensor<4x8xf32>, tensor<8xf32>
  %k = tp.bias_add %a, %bias : tensor<4x8xf32>, tensor<8xf32>
  return %s, %y, %k : tensor<4x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// The fused op's addend and bias.
// CHECK-LABEL: func.func @fused_addend
// CHECK-SAME:    (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8x8xf32>)
// CHECK-NEXT:    %[[Y:.*]] = tp.matmul_reduce_scatter %[[A]], %[[B]] on @tp axes = [0] dim = 0 reduce = sum : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @fused_addend(%a: tensor<16x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %bias = arith.constant dense<0.0> : tensor<8xf32>
  // expected-remark @below {{dropped a zero addend of 'tp.matmul_reduce_scatter': the addend joins a matmul product}}
  // expected-remark @below {{dropped a zero bias of 'tp.matmul_reduce_scatter': the bias joins reduced matmul products}}
  %y = tp.matmul_reduce_scatter %a, %b bias %bias addend %f on @tp axes = [0] dim = 0 reduce = sum
      : (tensor<16x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
}
