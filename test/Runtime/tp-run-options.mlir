// tp-run's options, and what it says when they are wrong.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tp-run %s --ranks 2 --seed 3 --dump-dir %t/dump > %t/seed3.txt
// RUN: FileCheck %s --check-prefix=RUN1 < %t/seed3.txt
// RUN: ls %t/dump/rank0 %t/dump/rank1 | FileCheck %s --check-prefix=FILES
// The dumped inputs reproduce the run exactly; another seed gives other results.
// RUN: tp-run %s --ranks 2 --input-dir %t/dump > %t/reread.txt
// RUN: diff %t/seed3.txt %t/reread.txt
// RUN: tp-run %s --ranks 2 --seed 4 > %t/seed4.txt
// RUN: not diff %t/seed3.txt %t/seed4.txt
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp --compare-pipeline '' --trace %t/trace.json | FileCheck %s --check-prefix=TRACE
// RUN: FileCheck %s --check-prefix=JSON < %t/trace.json
// RUN: not tp-run %s --ranks 2 --input-dir %t/missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tp-run %s --ranks 2 --backend gpu 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not tp-run %s --ranks 2 --backend '' 2>&1 | FileCheck %s --check-prefix=NOBACKEND
// RUN: not tp-run - --ranks 2 --transport nccl < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not tp-run %s --ranks 2 --transport shm 2>&1 | FileCheck %s --check-prefix=TRANSPORT
// RUN: not tp-run %s --ranks 2 --transport nccl 2>&1 | FileCheck %s --check-prefix=NCCLCPU
// RUN: not tp-run %s --ranks 2 --pipeline no-such-pass 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not tp-run %s --ranks 2 --compare-pipeline no-such-pass 2>&1 | FileCheck %s --check-prefix=PIPELINE
// The compared program is made before anything runs: no results first.
// RUN: not tp-run %s --ranks 2 --compare-pipeline tp-lower-to-llvm 2>&1 | FileCheck %s --check-prefix=SIGNATURE
// RUN: not tp-run %s --ranks 2 --trace %S 2>&1 | FileCheck %s --check-prefix=TRACE-FOLDER
// RUN: not tp-run %s --ranks 0 2>&1 | FileCheck %s --check-prefix=RANKS
// RUN: not tp-run %s --ranks 2 --timeout-ms 0 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: not tp-run %s --ranks 2 --compare-pipeline '' --compare-backend gpu 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not tp-run %s --ranks 2 --trace %t/no/such/dir/t.json 2>&1 | FileCheck %s --check-prefix=TRACEFILE
// RUN: not tp-run %s --ranks 2 --dump-dir /dev/null/dump 2>&1 | FileCheck %s --check-prefix=DUMPDIR
// RUN: not tp-run %s --ranks 2 --entry nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not tp-run %S/Inputs/two_functions.mlir --ranks 2 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not tp-run %S/Inputs/dynamic_arg.mlir --ranks 2 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: tp-run %S/Inputs/dynamic_arg.mlir --ranks 2 --dim-size 3 | FileCheck %s --check-prefix=DYNOK
// RUN: not tp-run %S/Inputs/dynamic_arg.mlir --ranks 2 --arg-shape 0=3x6 2>&1 | FileCheck %s --check-prefix=ARGSHAPE
// RUN: not tp-run %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED

shard.grid @tp(shape = 2)

func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %y = tp.matmul %g, %w : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// RUN1: tp-run: @layer on 2 ranks (cpu)
// RUN1-NEXT: rank 0 result 0: tensor<8x16xf32> sum={{[-0-9.e+]+}} checksum={{[0-9a-f]+}}
// RUN1-NEXT: rank 1 result 0: tensor<8x16xf32> sum={{[-0-9.e+]+}} checksum={{[0-9a-f]+}}
// FILES: arg0.npy
// FILES-NEXT: arg1.npy
// FILES-NEXT: result0.npy
// TRACE: trace: {{.*}}trace.json ({{[1-9][0-9]*}} slices)
// TRACE: compare: every result on every rank matches (tp-async-tp on cpu vs as given on cpu; max normalized error {{.*}})
// JSON: "traceEvents"
// JSON-DAG: "name":"process_name"{{.*}}"rank 1"
// JSON-DAG: "name":"thread_name"{{.*}}"comm"
// JSON-DAG: "name":"recv r1 piece 0"
// JSON-DAG: "name":"gemm r0 piece 0"
// MISSING: tp-run: argument 0 of rank 0: '{{.*}}missing/rank0/arg0.npy': cannot open
// BACKEND: tp-run: unknown backend 'gpu'; this build has: cpu{{(, cuda)?}}
// NOBACKEND: tp-run: unknown backend ''; this build has: cpu
// STDIN: tp-run: with one process per rank the program cannot come from standard input (the other ranks cannot read it); pass a file
// TRANSPORT: tp-run: unknown transport 'shm'; expected loopback, nccl or mpi
// NCCLCPU: tp-run: --transport nccl runs the cuda backend; add --backend cuda
// SIGNATURE-NOT: result
// SIGNATURE: tp-run: the compared program has no function @layer of the same type
// TRACE-FOLDER: tp-run: cannot write the trace {{.*}}: it is a folder
// PIPELINE-NOT: result
// PIPELINE: tp-run: bad pipeline 'no-such-pass'
// RANKS: tp-run: --ranks must be at least 1
// TIMEOUT: tp-run: --timeout-ms must be between 1 and 1000000000 (11.6 days), got 0
// TRACEFILE: tp-run: {{.*}}no/such/dir/t.json
// DUMPDIR: tp-run: cannot create /dev/null/dump: Not a directory
// ENTRY: tp-run: no function @nope
// TWO: tp-run: several public functions (@first, @second); choose one with --entry
// DYN: tp-run: argument 0 has dynamic dims; give their sizes with --dim-size N or --arg-shape 0=AxB...
// DYNOK: rank 1 result 0: tensor<6x5xf32>
// ARGSHAPE: tp-run: --arg-shape for argument 0 does not fit its type
// MALFORMED: malformed.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
