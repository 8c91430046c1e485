// An entry that calls itself: tp-run calls a copy of it that takes unranked
// buffers, and the recursive calls reach the entry as written. Each level
// subtracts 1 while x[0] > -2, so with x[0] in [-1, 1) the result is x - k
// for a whole k from 2 to 3, the same for every element.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: tp-run %s --ranks 2 --dump-dir %t | FileCheck %s
// RUN: %numpy-python -c "import numpy as np; \
// RUN:   x = [np.load(f'%t/rank{r}/arg0.npy') for r in (0, 1)]; \
// RUN:   y = [np.load(f'%t/rank{r}/result0.npy') for r in (0, 1)]; \
// RUN:   k = [a - b for a, b in zip(x, y)]; \
// RUN:   print('levels', sorted({round(float(d[0])) for d in k}), \
// RUN:         all(np.allclose(d, round(float(d[0])), atol=1e-6) for d in k))" \
// RUN:   | FileCheck %s --check-prefix=LEVELS

// CHECK: tp-run: @countdown on 2 ranks (cpu)
// CHECK: rank 1 result 0: tensor<4xf32>
// LEVELS: levels [2, 3] True

func.func @countdown(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %first = tensor.extract %x[%c0] : tensor<4xf32>
  %limit = arith.constant -2.0 : f32
  %more = arith.cmpf ogt, %first, %limit : f32
  %result = scf.if %more -> tensor<4xf32> {
    %one = arith.constant dense<1.0> : tensor<4xf32>
    %less = arith.subf %x, %one : tensor<4xf32>
    %rest = func.call @countdown(%less) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %rest : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %result : tensor<4xf32>
}
