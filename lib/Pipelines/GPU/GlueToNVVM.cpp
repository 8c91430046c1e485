//===- GlueToNVVM.cpp - a program's glue as GPU kernels in PTX ------------===//

#include "tp/Pipelines/GlueToNVVM.h"
#include "SharedBuffers.h"
#include "tp/Conversion/Passes.h"
#include "tp/Pipelines/LowerToLLVM.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPCHECKNVVMTARGET
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

namespace {

/// The chips the NVPTX backend knows with the oldest PTX ISA each needs
/// (LLVM's NVPTX.td). LLVM aborts on a chip and PTX version that do not go
/// together, so the pipeline refuses them first, with a diagnostic.
constexpr std::pair<llvm::StringLiteral, int> kChips[] = {
    {"sm_60", 50},  {"sm_61", 50},  {"sm_62", 50},   {"sm_70", 60},
    {"sm_72", 61},  {"sm_75", 63},  {"sm_80", 70},   {"sm_86", 71},
    {"sm_87", 74},  {"sm_89", 78},  {"sm_90", 78},   {"sm_90a", 80},
    {"sm_100", 86}, {"sm_100a", 86}, {"sm_120", 87}, {"sm_120a", 87}};

/// Checks the pipeline's options before LLVM sees them: the chip and PTX
/// features, the optimization level and the toolkit's libdevice.
struct CheckNVVMTargetPass
    : mlir::tp::impl::TPCheckNVVMTargetBase<CheckNVVMTargetPass> {
  using TPCheckNVVMTargetBase::TPCheckNVVMTargetBase;

  void runOnOperation() override {
    // Plain values of the options, for messages.
    const std::string chip = this->chip, features = this->features,
                      cudaPath = this->cudaPath;
    const int optLevel = this->optLevel;
    if (optLevel < 0 || optLevel > 3) {
      getOperation().emitError()
          << "tp-lower-glue-to-nvvm: 'opt-level' must be 0 to 3, got "
          << optLevel;
      return signalPassFailure();
    }
    // The kernels' math functions come from the toolkit's libdevice.
    SmallString<128> libdevice(cudaPath);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice");
    if (!cudaPath.empty() && !llvm::sys::fs::is_directory(libdevice)) {
      getOperation().emitError()
          << "tp-lower-glue-to-nvvm: 'cuda-path' " << cudaPath
          << " has no nvvm/libdevice (the kernels' math functions come from "
             "it)";
      return signalPassFailure();
    }
    auto known = llvm::find_if(kChips, [&](const auto &entry) {
      return entry.first == chip;
    });
    if (known == std::end(kChips)) {
      InFlightDiagnostic diag = getOperation().emitError()
                                << "tp-lower-glue-to-nvvm: unknown chip '"
                                << chip << "'; known: ";
      llvm::interleaveComma(kChips, diag,
                            [&](const auto &entry) { diag << entry.first; });
      return signalPassFailure();
    }
    SmallVector<StringRef> parts;
    StringRef(features).split(parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef part : parts) {
      int version = 0;
      if (!part.consume_front("+ptx") || part.getAsInteger(10, version))
        continue;
      if (version >= known->second)
        continue;
      getOperation().emitError()
          << "tp-lower-glue-to-nvvm: chip '" << chip << "' needs PTX "
          << known->second / 10 << "." << known->second % 10
          << " or newer, but 'features' asks for +ptx" << version;
      return signalPassFailure();
    }
  }
};

} // namespace

/// Upstream's gpu-lower-to-nvvm-pipeline, step for step, except that the
/// CUDA toolkit (for libdevice, which math functions such as expf and rsqrtf
/// come from) is named rather than taken from the environment.
static void buildKernelsToNVVM(OpPassManager &pm,
                               const mlir::tp::GlueToNVVMOptions &options) {
  // Host and kernels: kernels outlined into gpu.module ops, control flow and
  // functions in the LLVM dialect, the NVVM target attached.
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Kernels: GPU ops to NVVM.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  // Host: plain allocations (results leaving the program) through the
  // runtime's allocator, as tp-lower-to-llvm does (a CUDA graph capture
  // redirects them); launches as GPU runtime calls; kernels serialized to
  // PTX.
  pm.addPass(mlir::tp::createTPLowerAllocaScopes());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = options.cudaPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tp::buildGlueToNVVMPipeline(OpPassManager &pm,
                                       const GlueToNVVMOptions &options) {
  buildGlueBufferizePipeline(pm, options);
  buildGlueKernelsPipeline(pm, options);
}

void mlir::tp::buildGlueBufferizePipeline(OpPassManager &pm,
                                          const GlueToNVVMOptions &options) {
  pm.addPass(
      mlir::tp::createTPCheckNVVMTarget(mlir::tp::TPCheckNVVMTargetOptions{
          options.chip, options.features, options.cudaPath, options.optLevel}));
  // Runtime verification asserts on the host; kernels have no way to report.
  LowerToLLVMOptions bufferize;
  bufferize.runtimeChecks = false;
  // Shared buffers copy a public function's inputs in and results out; the
  // glue stays in the functions the program wrote.
  bufferize.maxFunctionOps = 0;
  buildBufferizePipeline(pm, bufferize);
  // Kernels, the runtime and the host code share every buffer.
  pm.addNestedPass<func::FuncOp>(mlir::tp::createTPGpuSharedBuffers());
}

void mlir::tp::buildGlueKernelsPipeline(OpPassManager &pm,
                                        const GlueToNVVMOptions &options) {
  // Each linalg op on buffers becomes a parallel loop nest (reductions stay
  // sequential inside), its outer parallel loops map to blocks and threads.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  if (options.cudaGraph)
    pm.addPass(mlir::tp::createTPCheckGraphCapture());
  buildKernelsToNVVM(pm, options);
  // What LLVM IR translation does not know (grid declarations, markers).
  pm.addPass(mlir::tp::createTPFinalizeRuntimeLowering());
  // The host code is a sequence of kernel launches and runtime calls.
  mlir::tp::TPUnoptimizedStraightCodeOptions straight;
  straight.minOps = options.unoptimizedStraightOps;
  pm.addPass(mlir::tp::createTPUnoptimizedStraightCode(straight));
}

void mlir::tp::registerGlueToNVVMPipeline() {
  registerTPGpuSharedBuffers();
  registerTPCheckGraphCapture();
  registerTPCheckNVVMTarget();
  PassPipelineRegistration<GlueToNVVMOptions>(
      "tp-lower-glue-to-nvvm",
      "Bufferize as tp-lower-to-llvm, then compile the glue between runtime "
      "calls into GPU kernels (gpu.binary holding PTX) launched from the host",
      buildGlueToNVVMPipeline);
}

void mlir::tp::registerGlueToNVVMDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // The NVVM pipeline's conversions find each dialect's patterns through
  // these interfaces (without them, index block arguments stay unconverted).
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  // gpu.binary's default handler (#gpu.select_object) embeds the PTX: a
  // translation inside this process (a JIT) needs it; mlir-translate
  // registers it on its own.
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
