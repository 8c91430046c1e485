shard.grid @tp(shape = 4)

func.func @gather_dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %g : tensor<?x8xf32>
}

func.func @fused(%x: tensor<2x16xbf16>, %wq: tensor<8x16xbf16>, %wk: tensor<4x16xbf16>, %bk: tensor<4xbf16>) -> (tensor<8x16xbf16>, tensor<8x8xbf16>, tensor<8x4xbf16>) {
  %g, %q, %k = tp.all_gather_matmul %x, [%wq, %wk bias %bk] on @tp axes = [0] dim = 0 transpose_b return_gathered {algorithm = #tp.algorithm<ring>, chunks = 2 : i64}
      : (tensor<2x16xbf16>, tensor<8x16xbf16>, tensor<4x16xbf16>, tensor<4xbf16>) -> (tensor<8x16xbf16>, tensor<8x8xbf16>, tensor<8x4xbf16>)
  return %g, %q, %k : tensor<8x16xbf16>, tensor<8x8xbf16>, tensor<8x4xbf16>
}

func.func @reduce_scatter_dynamic(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = tp.matmul_reduce_scatter %a, %b addend %c on @tp axes = [0] dim = 0 reduce = sum
      : (tensor<?x16xf32>, tensor<16x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

func.func @quantize_dynamic(%x: tensor<4x?xf32>) -> (tensor<4x?xf8E4M3FN>, tensor<4x?xf8E8M0FNU>) {
  %q, %s = tp.quantize %x mxfp8 : tensor<4x?xf32> -> tensor<4x?xf8E4M3FN>, tensor<4x?xf8E8M0FNU>
  return %q, %s : tensor<4x?xf8E4M3FN>, tensor<4x?xf8E8M0FNU>
}

func.func @quantize_row_wise(%x: tensor<4x?xf32>) -> (tensor<4x?xf8E4M3FN>, tensor<4x?xf32>) {
  %q, %s = tp.quantize %x row_wise : tensor<4x?xf32> -> tensor<4x?xf8E4M3FN>, tensor<4x?xf32>
  return %q, %s : tensor<4x?xf8E4M3FN>, tensor<4x?xf32>
}
