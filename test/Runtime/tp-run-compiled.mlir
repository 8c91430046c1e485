// What compiling adds to tp-run: runtime checks (on by default) that report
// the op and its location, --no-runtime-checks, and compiled glue in traces.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not tp-run %s --entry out_of_bounds --ranks 2 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not tp-run %s --entry narrow --arg-shape 0=7 2>&1 | FileCheck %s --check-prefix=CHECKED
// RUN: tp-run %s --entry narrow --arg-shape 0=7 --no-runtime-checks | FileCheck %s --check-prefix=UNCHECKED
// RUN: tp-run %s --entry glue --ranks 2 --trace %t/glue.json | FileCheck %s --check-prefix=TRACE
// RUN: FileCheck %s --check-prefix=JSON < %t/glue.json
// RUN: not tp-run %s --entry takes_memref 2>&1 | FileCheck %s --check-prefix=MEMREF

shard.grid @tp(shape = 2)

// Rank 1 slices rows [3, 5) of a 4-row tensor.
// OOB: ERROR: Runtime op verification failed
// OOB: tensor.extract_slice
// OOB: Location: loc({{.*}}tp-run-compiled.mlir":[[@LINE+6]]:8)
// OOB: tp-run: rank 1 died running @out_of_bounds: SIGABRT: a runtime check failed
func.func @out_of_bounds(%x: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %rank = tp.group_rank on @tp axes = [0]
  %c3 = arith.constant 3 : index
  %offset = arith.muli %rank, %c3 : index
  %s = tensor.extract_slice %x[%offset, 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

// A dynamic argument cast to a size it does not have: reported with runtime
// checks, trusted without them (reading element 0 stays in bounds).
// CHECKED: ERROR: Runtime op verification failed
// CHECKED: Location: loc({{.*}}tp-run-compiled.mlir":[[@LINE+4]]:8)
// CHECKED: tp-run: rank 0 died running @narrow
// UNCHECKED: rank 0 result 0: tensor<f32>
func.func @narrow(%b: tensor<?xf32>) -> f32 {
  %r = tensor.cast %b : tensor<?xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %r[%c0] : tensor<4xf32>
  return %e : f32
}

// The trace shows the compiled code between runtime calls, on each rank.
// TRACE: trace: {{.*}}glue.json
// JSON-DAG: "name":"compiled code before 'tp.all_gather' at {{.*}}tp-run-compiled.mlir:[[@LINE+5]]:8"{{.*}}"cat":"glue"
// JSON-DAG: "name":"compiled code before return"{{.*}}"cat":"glue"
func.func @glue(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %t = math.tanh %x : tensor<4x8xf32>
  %s = arith.mulf %t, %x : tensor<4x8xf32>
  %g = tp.all_gather %s on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %e = math.exp %g : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}

// Only ranked tensors and scalars cross the driver's boundary.
// MEMREF: tp-run: {{.*}}: @takes_memref takes a value of type 'memref<4xf32>' (argument 0), which a run cannot feed
func.func @takes_memref(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}
