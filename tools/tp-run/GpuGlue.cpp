//===- GpuGlue.cpp - tp-run --glue gpu ------------------------------------===//

#include "GpuGlue.h"

#ifdef TP_HAVE_CUDA
#include "tp/Pipelines/GlueToNVVM.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <memory>

// lib/Runtime/Cuda/GpuHost.cpp: what upstream's GPU-to-LLVM lowering calls.
extern "C" {
void *mgpuModuleLoad(void *, size_t);
void *mgpuModuleLoadJIT(void *, int);
void mgpuModuleUnload(void *);
void *mgpuModuleGetFunction(void *, const char *);
void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, int32_t, void *, void **, void **, size_t);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *);
void mgpuStreamSynchronize(void *);
void mgpuStreamWaitEvent(void *, void *);
void *mgpuEventCreate();
void mgpuEventDestroy(void *);
void mgpuEventSynchronize(void *);
void mgpuEventRecord(void *, void *);
void *mgpuMemAlloc(uint64_t, void *, bool);
void mgpuMemFree(void *, void *);
void mgpuMemcpy(void *, void *, size_t, void *);
void mgpuMemset32(void *, unsigned int, size_t, void *);
void mgpuMemset16(void *, unsigned short, size_t, void *);
void mgpuSetDefaultDevice(int32_t);
}
#endif

using namespace mlir::tp;

rt::Status run::gpuGlue(const std::string &chip, bool cudaGraph,
                        int64_t unoptimizedStraightOps,
                        const mlir::tp::GlueLowering *&lowering) {
#ifndef TP_HAVE_CUDA
  (void)chip;
  (void)cudaGraph;
  (void)unoptimizedStraightOps;
  (void)lowering;
  return rt::Status::error("--glue gpu needs the CUDA backend, and this build "
                           "has none");
#else
  // One lowering per process; a run has one chip.
  static std::unique_ptr<mlir::tp::GlueLowering> made;
  made = std::make_unique<mlir::tp::GlueLowering>();
  auto options = std::make_shared<mlir::tp::GlueToNVVMOptions>();
  options->chip = chip;
  options->cudaGraph = cudaGraph;
  options->unoptimizedStraightOps = unoptimizedStraightOps;
  made->name = "the GPU (" + chip + ")";
  made->bufferize = [options](mlir::OpPassManager &pm) {
    mlir::tp::buildGlueBufferizePipeline(pm, *options);
  };
  made->lower = [options](mlir::OpPassManager &pm) {
    mlir::tp::buildGlueKernelsPipeline(pm, *options);
  };
  made->registerDialects = mlir::tp::registerGlueToNVVMDialects;
  auto bind = [&](const char *name, auto *function) {
    made->symbols.emplace_back(name, reinterpret_cast<void *>(function));
  };
  bind("mgpuModuleLoad", &mgpuModuleLoad);
  bind("mgpuModuleLoadJIT", &mgpuModuleLoadJIT);
  bind("mgpuModuleUnload", &mgpuModuleUnload);
  bind("mgpuModuleGetFunction", &mgpuModuleGetFunction);
  bind("mgpuLaunchKernel", &mgpuLaunchKernel);
  bind("mgpuStreamCreate", &mgpuStreamCreate);
  bind("mgpuStreamDestroy", &mgpuStreamDestroy);
  bind("mgpuStreamSynchronize", &mgpuStreamSynchronize);
  bind("mgpuStreamWaitEvent", &mgpuStreamWaitEvent);
  bind("mgpuEventCreate", &mgpuEventCreate);
  bind("mgpuEventDestroy", &mgpuEventDestroy);
  bind("mgpuEventSynchronize", &mgpuEventSynchronize);
  bind("mgpuEventRecord", &mgpuEventRecord);
  bind("mgpuMemAlloc", &mgpuMemAlloc);
  bind("mgpuMemFree", &mgpuMemFree);
  bind("mgpuMemcpy", &mgpuMemcpy);
  bind("mgpuMemset32", &mgpuMemset32);
  bind("mgpuMemset16", &mgpuMemset16);
  bind("mgpuSetDefaultDevice", &mgpuSetDefaultDevice);
  lowering = made.get();
  return rt::Status::ok();
#endif
}
