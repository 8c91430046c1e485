# Upstream MLIR's headers, parsed once. GCC spends ~80% of a compiler
# translation unit's time parsing them (lib/Execution/Checks.cpp: 10 of 12 s),
# so every target that includes them shares one precompiled header, built by
# the first of them with the flags they all have. The runtime (no MLIR) and
# the CUDA files do not use it. TP_PRECOMPILE_HEADERS=OFF builds without.
option(TP_PRECOMPILE_HEADERS "Precompile upstream MLIR headers" ON)
if(NOT TP_PRECOMPILE_HEADERS)
  return()
endif()

set(TP_PRECOMPILED_MLIR_HEADERS
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/Linalg/IR/Linalg.h>
  <mlir/Dialect/MemRef/IR/MemRef.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/Dialect/Shard/IR/ShardOps.h>
  <mlir/Dialect/Tensor/IR/Tensor.h>
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinOps.h>
  <mlir/IR/Diagnostics.h>
  <mlir/IR/Matchers.h>
  <mlir/IR/PatternMatch.h>
  <mlir/Pass/Pass.h>
  <mlir/Pass/PassManager.h>
  <mlir/Transforms/DialectConversion.h>)

# The object libraries add_mlir_library makes, and the C++ tools.
set(TP_PRECOMPILED_TARGETS
  obj.TPUtils obj.TPDialect obj.TPTransforms obj.TPShardToTP obj.TPToRuntime
  obj.TPPipelines obj.TPGlueToNVVM obj.TPExecution obj.TPCAPI obj.TPSharding
  tp-opt tp-run tp-fuzz-ir)
set(owner "")
foreach(target ${TP_PRECOMPILED_TARGETS})
  if(NOT TARGET ${target})
    continue()
  endif()
  if(owner STREQUAL "")
    set(owner ${target})
    target_precompile_headers(${target} PRIVATE ${TP_PRECOMPILED_MLIR_HEADERS})
  else()
    target_precompile_headers(${target} REUSE_FROM ${owner})
  endif()
endforeach()
