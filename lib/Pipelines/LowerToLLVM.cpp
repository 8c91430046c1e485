//===- LowerToLLVM.cpp - tp programs to the LLVM dialect ------------------===//

#include "tp/Pipelines/LowerToLLVM.h"
#include "tp/Conversion/Passes.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPLOWERTOSA
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

//===----------------------------------------------------------------------===//
// TOSA
//===----------------------------------------------------------------------===//

void mlir::tp::buildTosaToLinalgPipeline(OpPassManager &pm) {
  // Upstream's own order (tosa-to-linalg-pipeline, without its validation,
  // which would demand a target environment frontends do not attach):
  // decompositions, shape inference, named ops (matmul, convolutions,
  // pooling), then element-wise ops and reductions as linalg.generic.
  TosaToLinalgOptions linalgOptions;
  tosa::addTosaToLinalgPasses(pm, linalgOptions, TosaToLinalgNamedOptions(),
                              /*validationOptions=*/std::nullopt);
  // What tosa-to-linalg leaves: constants and tosa.apply_scale (arith),
  // reshapes, slices, pads and concatenations (tensor), cond_if and
  // while_loop (scf). Then the shape constants nobody reads any more go.
  TosaToArithPassOptions arithOptions;
  arithOptions.includeApplyRescale = true;
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass(arithOptions));
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  pm.addNestedPass<func::FuncOp>(createTosaToSCFPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
}

namespace {
/// `tp-lower-tosa`: the TOSA lowering above, run only on a module that has
/// TOSA ops (a module without any is left exactly as it is: no canonicalizer,
/// no folding), then a located error for any TOSA op still there.
struct LowerTosaPass : mlir::tp::impl::TPLowerTosaBase<LowerTosaPass> {
  LowerTosaPass() : pipeline(ModuleOp::getOperationName()) {
    mlir::tp::buildTosaToLinalgPipeline(pipeline);
  }
  LowerTosaPass(const LowerTosaPass &other)
      : TPLowerTosaBase(other), pipeline(other.pipeline) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    pipeline.getDependentDialects(registry);
  }

  static bool isTosa(Operation *op) {
    return op->getName().getDialectNamespace() ==
           tosa::TosaDialect::getDialectNamespace();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto findTosa = [&] {
      Operation *found = nullptr;
      module.walk([&](Operation *op) {
        if (!isTosa(op))
          return WalkResult::advance();
        found = op;
        return WalkResult::interrupt();
      });
      return found;
    };
    if (!findTosa())
      return;
    // Upstream's conversions report the op they could not legalize (or the
    // linalg op a malformed TOSA op became), at its location; a note says
    // where that came from.
    {
      ScopedDiagnosticHandler explain(&getContext(), [](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          diag.attachNote() << "while lowering TOSA ops through upstream's "
                               "conversions (tp-lower-tosa)";
        return failure();
      });
      if (failed(runPipeline(pipeline, module)))
        return signalPassFailure();
    }
    // Ops outside functions (tosa.variable) and ops the conversions leave
    // legal but nothing after them lowers.
    if (Operation *left = findTosa()) {
      left->emitOpError()
          << "is not lowered by upstream's TOSA conversions "
             "(tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith, "
             "tosa-to-tensor, tosa-to-scf); tp cannot compile it";
      signalPassFailure();
    }
  }

  OpPassManager pipeline;
};
} // namespace

//===----------------------------------------------------------------------===//
// The lowering
//===----------------------------------------------------------------------===//

void mlir::tp::buildLowerToLLVMPipeline(OpPassManager &pm,
                                        const LowerToLLVMOptions &options) {
  buildBufferizePipeline(pm, options);
  buildBuffersToLLVMPipeline(pm, options);
}

void mlir::tp::buildBufferizePipeline(OpPassManager &pm,
                                      const LowerToLLVMOptions &options) {
  // TOSA glue a frontend emitted becomes linalg, arith, tensor and scf on
  // tensors, like any other glue (a no-op without TOSA ops).
  pm.addPass(mlir::tp::createTPLowerTosa());
  // tp ops: layers lowered, rank context threaded through.
  pm.addPass(createTPLowerLinear());
  // Long functions in bounded pieces, before anything else grows them: the
  // time of every pass after this one, LLVM's included, then grows linearly
  // with the program.
  mlir::tp::TPSplitLongFunctionsOptions split;
  split.maxOps = options.maxFunctionOps;
  pm.addPass(mlir::tp::createTPSplitLongFunctions(split));
  pm.addPass(createTPToRuntime());
  // Glue on tensors: element-wise ops as linalg (whose runtime checks
  // compare operand shapes; arith and math ops on tensors have none), ...
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // ... checks on the program as written, before folding merges its ops ...
  if (options.runtimeChecks) {
    pm.addPass(createGenerateRuntimeVerificationPass());
    pm.addPass(mlir::tp::createTPCheckDynamicSizes());
  }
  // ... and producers fused into their consumers so intermediates need no
  // buffers.
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  // Row sums and maxima (norms, softmax) vectorize only when they may be
  // summed in another order.
  if (options.reassociateReductions)
    pm.addPass(mlir::tp::createTPReassociateReductions());

  // Buffers: tp ops become runtime calls here; identity layouts at function
  // boundaries give embedders plain row-major descriptors.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A collective in a loop yields a new buffer each trip; ownership-based
  // deallocation frees the old one.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(mlir::tp::createTPUnshareEmptyTensors());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Upstream's buffer-deallocation-pipeline, with the deallocations of
  // distinct allocations split before its simplification, which takes
  // quadratic time over a long function's one dealloc.
  memref::ExpandReallocPassOptions realloc;
  realloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(realloc));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(mlir::tp::createTPSplitDistinctDeallocs());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Frees right after last uses: peak memory follows the live buffers, not
  // the program's length.
  pm.addPass(mlir::tp::createTPFreeBuffersEarly());
}

void mlir::tp::buildBuffersToLLVMPipeline(OpPassManager &pm,
                                          const LowerToLLVMOptions &options) {
  // Loops, then straight-line math and f32 arithmetic for types the host has
  // no instructions for.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // A function of many loop nests in a row (a model written out layer by
  // layer) costs LLVM's IndVarSimplify time quadratic in their number; one
  // function per nest costs linear time.
  pm.addPass(mlir::tp::createTPOutlineLoopNests());
  if (options.runtimeChecks)
    pm.addPass(mlir::tp::createTPCheckIntegerDivision());
  // Math on types the host has no instructions for runs in f32: LLVM would
  // otherwise call compiler-rt's conversions (__truncsfbf2), which neither
  // the JIT nor Debian's libgcc provides.
  pm.addPass(math::createMathExtendToSupportedTypes());
  pm.addPass(mlir::tp::createTPApproximateMath());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16",   "f16",       "f8E4M3FN",
                            "f8E5M2", "f8E8M0FNU", "f4E2M1FN"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  // What is left are conversions: upstream expands bf16, f8E8M0FNU and
  // f4E2M1FN ones, the runtime does f8E4M3FN and f8E5M2.
  pm.addPass(mlir::tp::createTPLowerFP8Casts());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  expand.includeF8E8M0 = true;
  expand.includeF4E2M1 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));

  // The LLVM dialect.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(mlir::tp::createTPExpandMultiDynamicReshapes());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Runtime calls' staging scopes, without splitting the step's one block
  // at each (upstream's lowering: quadratic time in a deep model).
  pm.addPass(mlir::tp::createTPLowerAllocaScopes());
  // Allocations go through the runtime, which reports one that fails.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(mlir::tp::createTPFinalizeRuntimeLowering());
  // The step's call sequence, once its loops are outlined: LLVM's
  // schedulers would take superlinear time over its long blocks.
  mlir::tp::TPUnoptimizedStraightCodeOptions straight;
  straight.minOps = options.unoptimizedStraightOps;
  pm.addPass(mlir::tp::createTPUnoptimizedStraightCode(straight));
}

void mlir::tp::registerLowerToLLVMPipeline() {
  PassPipelineRegistration<LowerToLLVMOptions>(
      "tp-lower-to-llvm",
      "tp programs to the LLVM dialect: tp ops become calls of the runtime "
      "ABI, everything else lowers through upstream passes",
      buildLowerToLLVMPipeline);
  // Its first half alone: buffers and runtime calls, glue still as linalg
  // (for other backends of the glue, e.g. GPU kernels).
  PassPipelineRegistration<LowerToLLVMOptions>(
      "tp-bufferize",
      "The first half of tp-lower-to-llvm: tp ops become runtime calls, "
      "element-wise glue becomes linalg, everything is bufferized",
      buildBufferizePipeline);
  // Also on its own, to lower TOSA before tp-async-tp-pipeline.
  mlir::tp::registerTPLowerTosa();
  mlir::tp::registerTPSplitLongFunctions();
  mlir::tp::registerTPOutlineLoopNests();
  mlir::tp::registerTPUnoptimizedStraightCode();
  mlir::tp::registerTPReassociateReductions();
  mlir::tp::registerTPSpecializeDynamicGrids();
  mlir::tp::registerTPCheckRunnable();
  mlir::tp::registerTPApproximateMath();
  mlir::tp::registerTPLowerFP8Casts();
  mlir::tp::registerTPCheckIntegerDivision();
  mlir::tp::registerTPCheckDynamicSizes();
  mlir::tp::registerTPSplitDistinctDeallocs();
  mlir::tp::registerTPLowerAllocaScopes();
  mlir::tp::registerTPUnshareEmptyTensors();
  mlir::tp::registerTPFreeBuffersEarly();
  mlir::tp::registerTPExpandMultiDynamicReshapes();
}

void mlir::tp::registerLoweringDialects(DialectRegistry &registry) {
  registry
      .insert<affine::AffineDialect, bufferization::BufferizationDialect,
              cf::ControlFlowDialect, index::IndexDialect, LLVM::LLVMDialect,
              memref::MemRefDialect, ub::UBDialect, vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  arith::registerBufferViewFlowOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  memref::registerBufferViewFlowOpInterfaceExternalModels(registry);
  memref::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  mlir::tp::registerRuntimeCallBufferization(registry);
}
