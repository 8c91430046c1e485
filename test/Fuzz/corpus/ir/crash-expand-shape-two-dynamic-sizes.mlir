
// A dynamic expand into other extents of the same product keeps its own
// reshape: the fused product is collapsed and expanded as the program says.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @dynamic_expand_elsewhere
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x8xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-NEXT:  %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0
// CHECK-NEXT:  %[[C:.*]] = tensor.collapse_shape %[[Y]]
// CHECK-NEXT:  %[[E:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [%[[A]], %[[B]], 4]
// CHECK-NEXT:  return %[[E]]
func.func @dynamic_expand_elsewhere(%x: tensor<?x?x8xf32>, %w: tensor<8x4xf32>, %a: index, %b: index) -> tensor<?x?x4xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %m = tp.matmul %c, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [%a, %b, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

