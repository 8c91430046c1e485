//===- Run.cpp - call compiled programs as ranks --------------------------===//

#include "CrashReport.h"
#include "Program.h"
#include "tp/Runtime/MemRefs.h"
#include "tp/Runtime/RankContext.h"
#include "tp/Runtime/Trace.h"
#ifdef TP_HAVE_CUDA
#include "tp/Runtime/CudaBackend.h"
#endif

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

using namespace mlir;
using namespace mlir::tp;

//===----------------------------------------------------------------------===//
// One rank's call.
//===----------------------------------------------------------------------===//

namespace {
/// A row-major descriptor of a tensor's storage, as compiled code reads it.
struct ArgumentDescriptor {
  std::vector<int64_t> words;
  TPRtUnrankedMemRef memref;

  explicit ArgumentDescriptor(const rt::Tensor &tensor) {
    auto *data = const_cast<void *>(tensor.data());
    words.resize(3 + 2 * tensor.rank());
    std::memcpy(&words[0], &data, sizeof(data));
    std::memcpy(&words[1], &data, sizeof(data));
    words[2] = 0;
    std::vector<int64_t> strides = tensor.strides();
    for (int64_t d = 0; d < tensor.rank(); ++d) {
      words[3 + d] = tensor.dim(d);
      words[3 + tensor.rank() + d] = strides[d];
    }
    memref = {tensor.rank(), words.data()};
  }
};
} // namespace

/// Frees what compiled code returned: the descriptors (unranked results are
/// copied to the heap) and the buffers, which the caller owns. Constants
/// (memref.get_global) carry the 0xdeadbeef marker as their allocation.
static void releaseResults(std::vector<TPRtUnrankedMemRef> &results) {
  std::vector<void *> freed;
  for (TPRtUnrankedMemRef &result : results) {
    auto *desc = static_cast<TPRtMemRefDescriptor *>(result.descriptor);
    if (!desc)
      continue;
    void *allocated = desc->allocated;
    if (allocated && allocated != reinterpret_cast<void *>(0xdeadbeef) &&
        !llvm::is_contained(freed, allocated)) {
      freed.push_back(allocated);
      std::free(allocated);
    }
    std::free(desc);
    result.descriptor = nullptr;
  }
}

rt::Status CompiledProgram::run(rt::Backend &backend, rt::World &world,
                                int rank, RankValues &values) const {
  if (values.args.size() != impl->argTypes.size())
    return rt::Status::error("rank " + std::to_string(rank) + " has " +
                             std::to_string(values.args.size()) + " inputs; @" +
                             impl->entryName + " takes " +
                             std::to_string(impl->argTypes.size()));
  for (auto [i, arg] : llvm::enumerate(values.args)) {
    const std::vector<int64_t> &shape = impl->argShapes[i];
    bool fits = arg.dtype() == impl->argTypes[i] &&
                arg.rank() == static_cast<int64_t>(shape.size());
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = ShapedType::isDynamic(shape[d]) || shape[d] == arg.dim(d);
    if (!fits) {
      std::string expected = "tensor<";
      for (int64_t d : shape)
        expected += (ShapedType::isDynamic(d) ? "?" : std::to_string(d)) + "x";
      expected += std::string(rt::name(impl->argTypes[i])) + ">";
      return rt::Status::error("input " + std::to_string(i) + " of rank " +
                               std::to_string(rank) + " is " +
                               arg.typeString() + " but @" + impl->entryName +
                               " takes " + expected);
    }
  }
  TPRtContext context(backend, world, rank);
  TPRtContext *contextPointer = &context;
  std::vector<ArgumentDescriptor> descriptors;
  descriptors.reserve(values.args.size());
  for (const rt::Tensor &arg : values.args)
    descriptors.emplace_back(arg);
  std::vector<void *> packed = {&contextPointer};
  for (ArgumentDescriptor &d : descriptors) {
    packed.push_back(&d.memref.rank);
    packed.push_back(&d.memref.descriptor);
  }
  std::vector<TPRtUnrankedMemRef> results(impl->resultTypes.size(),
                                          TPRtUnrankedMemRef{0, nullptr});
  if (!results.empty())
    packed.push_back(results.data());
  {
    std::optional<exec::CrashScope> crashes;
    if (impl->reportCrashes)
      crashes.emplace(rank, impl->entryName.c_str());
    context.startGlue();
    impl->function(packed.data());
    context.traceGlue("return");
  }
  values.results.clear();
  if (context.error.isOk())
    for (auto [result, dtype] : llvm::zip_equal(results, impl->resultTypes))
      values.results.push_back(rt::abi::toTensor(result, dtype));
  releaseResults(results);
  return context.error;
}

//===----------------------------------------------------------------------===//
// Ranks as threads, or one rank of a multi-process run.
//===----------------------------------------------------------------------===//

/// Compiles `entry`, traced as a slice of `rank`'s host track.
static rt::Status compileTraced(func::FuncOp entry,
                                const ExecutionOptions &options, int rank,
                                std::unique_ptr<CompiledProgram> &program) {
  double start = options.trace ? options.trace->nowUs() : 0;
  TP_RETURN_IF_ERROR(CompiledProgram::compile(entry, options, program));
  if (options.trace)
    options.trace->record(rank, rt::Stream::Host,
                          "compile @" + entry.getName().str() + " (lower, JIT)",
                          "compile", start, options.trace->nowUs());
  return rt::Status::ok();
}

static rt::Status createBackend(const std::string &name, rt::World &world,
                                int rank, std::unique_ptr<rt::Backend> &out) {
  if (name == "cpu") {
    out = rt::createCpuBackend(world, rank);
    return rt::Status::ok();
  }
#ifdef TP_HAVE_CUDA
  if (name == "cuda")
    return rt::createCudaBackend(world, rank, out);
#endif
  return rt::Status::error("unknown backend '" + name + "'");
}

rt::Status mlir::tp::executeSPMD(func::FuncOp entry,
                                 const ExecutionOptions &options,
                                 std::vector<RankValues> &perRank) {
  if (static_cast<int>(perRank.size()) != options.ranks)
    return rt::Status::error("inputs for " + std::to_string(perRank.size()) +
                             " ranks, but the run has " +
                             std::to_string(options.ranks));
  std::unique_ptr<CompiledProgram> program;
  TP_RETURN_IF_ERROR(compileTraced(entry, options, 0, program));
  rt::World world(options.ranks, options.timeout, options.trace);
  rt::configureCpuThreads(options.ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < options.ranks; ++r)
    threads.emplace_back([&, r] {
      std::unique_ptr<rt::Backend> backend;
      rt::Status status = createBackend(options.backend, world, r, backend);
      if (status.isOk())
        status = program->run(*backend, world, r, perRank[r]);
      if (!status.isOk())
        world.fail(r, status.message());
    });
  for (std::thread &t : threads)
    t.join();
  if (world.failed())
    return rt::Status::error("rank " + std::to_string(world.firstFailedRank()) +
                             " failed first: " + world.firstFailure());
  return rt::Status::ok();
}

rt::Status mlir::tp::executeOneRank(func::FuncOp entry,
                                    const ExecutionOptions &options, int rank,
                                    rt::Backend &backend, RankValues &values) {
  if (rank < 0 || rank >= options.ranks)
    return rt::Status::error("rank " + std::to_string(rank) + " of a run of " +
                             std::to_string(options.ranks));
  std::unique_ptr<CompiledProgram> program;
  TP_RETURN_IF_ERROR(compileTraced(entry, options, rank, program));
  // The world only counts ranks and records the trace here: peers are other
  // processes, reached by `backend` itself.
  rt::World world(options.ranks, options.timeout, options.trace);
  rt::configureCpuThreads(1);
  return program->run(backend, world, rank, values);
}
