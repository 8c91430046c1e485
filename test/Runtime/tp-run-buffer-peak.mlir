// tp-run --steps reports the largest rank's peak of compiled-code buffers in
// a step: here three 1 MiB tensors live at once (exp(x), its transpose, the
// sum; the input is the caller's and not counted). Every rank counts its own
// buffers, and the same program on 3 ranks peaks as high on each.
// RUN: tp-run %s --ranks 1 --steps 2 | FileCheck %s
// RUN: tp-run %s --ranks 3 --steps 3 | FileCheck %s
// The MPI transport reports it from each rank process.
// RUN: %if mpi %{ tp-run %s --ranks 2 --steps 2 --transport mpi | FileCheck %s %}

// CHECK: compiled code's buffers at their peak (activations and temporaries, without inputs): 3.00 MiB ({{[0-9]+}} bytes) on rank 0, the largest
func.func @glue(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %e = math.exp %x : tensor<512x512xf32>
  %t = linalg.transpose ins(%e : tensor<512x512xf32>) outs(%x : tensor<512x512xf32>) permutation = [1, 0]
  %s = arith.addf %t, %e : tensor<512x512xf32>
  return %s : tensor<512x512xf32>
}
