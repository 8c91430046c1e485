// A sum of every element: no parallel loop to map to GPU threads, so the
// host runs it (tp-run --cuda-graph refuses it).
func.func @main(%x: tensor<8xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%x : tensor<8xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<f32>
}
