//===- Run.cpp - call compiled programs as ranks --------------------------===//

#include "CrashReport.h"
#include "Program.h"
#include "tp/Runtime/MemRefs.h"
#include "tp/Runtime/RankContext.h"
#include "tp/Runtime/Trace.h"
#ifdef TP_HAVE_CUDA
#include "tp/Runtime/CudaBackend.h"
#endif

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

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
/// `kept` names memory someone else frees (a CUDA graph's capture made it).
static void
releaseResults(std::vector<TPRtUnrankedMemRef> &results,
               const std::function<bool(const void *)> &kept = nullptr) {
  std::vector<void *> freed;
  auto release = [&](void *ptr) {
    if (!kept || !kept(ptr))
      std::free(ptr);
  };
  for (TPRtUnrankedMemRef &result : results) {
    auto *desc = static_cast<TPRtMemRefDescriptor *>(result.descriptor);
    if (!desc)
      continue;
    void *allocated = desc->allocated;
    if (allocated && allocated != reinterpret_cast<void *>(0xdeadbeef) &&
        !llvm::is_contained(freed, allocated)) {
      freed.push_back(allocated);
      // Through the allocator compiled code used, which counts its buffers.
      if (!kept || !kept(allocated))
        _mlir_memref_to_llvm_free(allocated);
    }
    release(desc);
    result.descriptor = nullptr;
  }
}

/// A result whose size the program computed negative (possible with
/// runtime checks off): an error, before anything is sized from it.
static rt::Status checkResultSizes(
    const std::vector<TPRtUnrankedMemRef> &results,
    const std::string &entryName) {
  for (auto [i, result] : llvm::enumerate(results)) {
    std::vector<int64_t> shape = rt::abi::shapeOf(result);
    for (auto [d, size] : llvm::enumerate(shape))
      if (size < 0)
        return rt::Status::error(
            "@" + entryName + " returned result " + std::to_string(i) +
            " with a negative size (dim " + std::to_string(d) + " is " +
            std::to_string(size) +
            "); runtime checks name the op that computed it");
  }
  return rt::Status::ok();
}

rt::Status CompiledProgram::run(rt::Backend &backend, rt::World &world,
                                int rank, RankValues &values) const {
  std::vector<TPRtUnrankedMemRef> results;
  rt::Status status = call(backend, world, rank, values.args, results);
  values.results.clear();
  if (status.isOk())
    status = checkResultSizes(results, impl->entryName);
  if (status.isOk())
    for (auto [result, dtype] : llvm::zip_equal(results, impl->resultTypes))
      values.results.push_back(rt::abi::toTensor(result, dtype));
  releaseResults(results);
  return status;
}

rt::Status CompiledProgram::call(rt::Backend &backend, rt::World &world,
                                 int rank, const std::vector<rt::Tensor> &args,
                                 std::vector<TPRtUnrankedMemRef> &results) const {
  results.clear();
  if (args.size() != impl->argTypes.size())
    return rt::Status::error("rank " + std::to_string(rank) + " has " +
                             std::to_string(args.size()) + " inputs; @" +
                             impl->entryName + " takes " +
                             std::to_string(impl->argTypes.size()));
  for (auto [i, arg] : llvm::enumerate(args)) {
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
  rt::abi::setCurrentRank(rank);
  std::vector<ArgumentDescriptor> descriptors;
  descriptors.reserve(args.size());
  for (const rt::Tensor &arg : args)
    descriptors.emplace_back(arg);
  std::vector<void *> packed = {&contextPointer};
  for (ArgumentDescriptor &d : descriptors) {
    packed.push_back(&d.memref.rank);
    packed.push_back(&d.memref.descriptor);
  }
  results.assign(impl->resultTypes.size(), TPRtUnrankedMemRef{0, nullptr});
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
  return context.error;
}

rt::DType CompiledProgram::resultType(size_t index) const {
  return impl->resultTypes[index];
}

std::chrono::milliseconds mlir::tp::runLimit(const ExecutionOptions &options) {
  return rt::World::clampTimeout(rt::World::clampTimeout(options.timeout) *
                                 std::max(1, options.steps));
}

/// This process's resident memory and open descriptors after `step`.
static rt::StepReport::Resources sampleResources(int step) {
  rt::StepReport::Resources sample;
  sample.step = step;
  if (std::FILE *statm = std::fopen("/proc/self/statm", "r")) {
    long long pages = 0, resident = 0;
    if (std::fscanf(statm, "%lld %lld", &pages, &resident) == 2)
      sample.residentBytes = resident * ::sysconf(_SC_PAGESIZE);
    std::fclose(statm);
  }
  if (DIR *fds = ::opendir("/proc/self/fd")) {
    while (const dirent *entry = ::readdir(fds))
      sample.openFiles += entry->d_name[0] != '.';
    ::closedir(fds);
    --sample.openFiles; // The descriptor that read the folder.
  }
  return sample;
}

/// Whether a run of `steps` steps samples its resources after `step`: every
/// tenth step, the hundredth (the end of warm-up, which the soak benchmark
/// compares with the last) and the last. Not after every step: collectives
/// make every rank wait for the slowest.
static bool samplesAfter(int step, int steps) {
  return steps > 1 &&
         (step % 10 == 0 || step == std::min(100, steps) || step == steps);
}

/// Runs `program` options.steps times in a row as `rank`, timing each run
/// and counting the host-device copies of the last one.
static rt::Status runSteps(const CompiledProgram &program,
                           const ExecutionOptions &options,
                           rt::Backend &backend, rt::World &world, int rank,
                           RankValues &values) {
  values.steps = {};
  for (int step = 0; step < std::max(1, options.steps); ++step) {
    rt::Backend::HostTransfers before = backend.hostTransfers();
    auto start = std::chrono::steady_clock::now();
    rt::abi::resetBufferPeak();
    TP_RETURN_IF_ERROR(program.run(backend, world, rank, values));
    values.steps.peakBufferBytes =
        std::max(values.steps.peakBufferBytes, rt::abi::bufferPeakBytes());
    values.steps.millis.push_back(
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now() - start)
            .count());
    rt::Backend::HostTransfers after = backend.hostTransfers();
    values.steps.hostToDevice = after.hostToDevice - before.hostToDevice;
    values.steps.deviceToHost = after.deviceToHost - before.deviceToHost;
    if (samplesAfter(step + 1, options.steps))
      values.steps.resources.push_back(sampleResources(step + 1));
  }
  return rt::Status::ok();
}

#ifdef TP_HAVE_CUDA
namespace {
/// What the rank threads of a run replaying a CUDA graph share.
struct GraphRun {
  GraphRun(int ranks, std::chrono::milliseconds timeout)
      : graph(ranks, timeout) {}
  rt::StepGraph graph;
  std::mutex mutex;
  std::condition_variable changed;
  /// Set by rank 0 after the last replay (or a failed one).
  bool replayed = false, replayFailed = false;
  std::vector<double> millis;
};
} // namespace

/// ExecutionOptions::cudaGraph: the first step runs as usual (loading the
/// kernels and sizing every workspace), then every rank's step is captured
/// into one graph on inputs copied to the device, and rank 0 replays it for
/// the remaining steps while the others wait; every rank then reads its
/// results, which the last replay wrote.
static rt::Status runGraphSteps(const CompiledProgram &program,
                                const ExecutionOptions &options,
                                rt::Backend &backend, rt::World &world,
                                int rank, RankValues &values, GraphRun &run) {
  values.steps = {};
  auto start = std::chrono::steady_clock::now();
  rt::Status prepared = program.run(backend, world, rank, values);
  values.steps.millis.push_back(std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - start)
                                    .count());
  // Every rank takes part in the capture, even one that cannot run its step
  // in it, so that the others do not wait for it.
  std::vector<rt::Tensor> deviceArgs;
  if (prepared.isOk())
    prepared = run.graph.deviceInputs(rank, values.args, deviceArgs);
  std::vector<TPRtUnrankedMemRef> raw;
  auto kept = [&](const void *ptr) { return run.graph.owns(rank, ptr); };
  rt::Status status = run.graph.capture(world, backend, rank, [&] {
    TP_RETURN_IF_ERROR(prepared);
    return program.call(backend, world, rank, deviceArgs, raw);
  });
  if (!status.isOk()) {
    releaseResults(raw, kept);
    return status;
  }
  if (rank == 0) {
    std::vector<double> millis;
    for (int step = 1; step < options.steps && status.isOk(); ++step) {
      double ms = 0;
      status = run.graph.replay(ms);
      millis.push_back(ms);
    }
    values.graphNodes = run.graph.nodeCount();
    values.graphBytes = run.graph.capturedBytes();
    std::lock_guard<std::mutex> lock(run.mutex);
    run.replayed = true;
    run.replayFailed = !status.isOk();
    run.millis = std::move(millis);
    run.changed.notify_all();
  } else {
    std::unique_lock<std::mutex> lock(run.mutex);
    auto until = std::chrono::steady_clock::now() + runLimit(options);
    while (!run.replayed && !world.failed() &&
           std::chrono::steady_clock::now() < until)
      run.changed.wait_for(lock, std::chrono::milliseconds(10));
    // A failed replay may still be writing this rank's results.
    if ((!run.replayed || run.replayFailed) && status.isOk())
      status = rt::Status::error("rank " + std::to_string(rank) +
                                 ": rank 0 did not finish replaying the "
                                 "CUDA graph");
  }
  if (status.isOk()) {
    std::lock_guard<std::mutex> lock(run.mutex);
    values.steps.millis.insert(values.steps.millis.end(), run.millis.begin(),
                               run.millis.end());
    // A replay is one launch: the runtime copies nothing to or from the host.
    values.steps.hostToDevice = values.steps.deviceToHost = 0;
    values.results.clear();
    for (size_t i = 0; i < raw.size(); ++i)
      values.results.push_back(
          rt::abi::toTensor(raw[i], program.resultType(i)));
  }
  releaseResults(raw, kept);
  return status;
}
#endif

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

namespace {
/// What rank threads share. A rank that does not stop (compiled code cannot
/// be interrupted) may outlive executeSPMD, so it holds its own reference.
struct SpmdRun {
  SpmdRun(const ExecutionOptions &options, std::vector<RankValues> values)
      : options(options), backend(options.backend),
        world(options.ranks, options.timeout, options.trace),
        perRank(std::move(values)), running(options.ranks, true) {}

  ExecutionOptions options;
  std::string backend;
  std::unique_ptr<CompiledProgram> program;
  rt::World world;
#ifdef TP_HAVE_CUDA
  std::unique_ptr<GraphRun> graph;
#endif
  std::vector<RankValues> perRank;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<bool> running;
  int finished = 0;

  void runRank(int rank) {
    std::unique_ptr<rt::Backend> rankBackend;
    rt::Status status = createBackend(backend, world, rank, rankBackend);
    if (status.isOk()) {
#ifdef TP_HAVE_CUDA
      if (graph)
        status = runGraphSteps(*program, options, *rankBackend, world, rank,
                               perRank[rank], *graph);
      else
#endif
        status = runSteps(*program, options, *rankBackend, world, rank,
                          perRank[rank]);
    }
    if (!status.isOk())
      world.fail(rank, status.message());
    // Peers still waiting for this rank in a collective stop now.
    world.markFinished(rank);
    std::lock_guard<std::mutex> lock(mutex);
    running[rank] = false;
    ++finished;
    changed.notify_all();
  }

  /// Waits until every rank finished or `until` passed (or, with
  /// `untilFailure`, a rank failed); whether every rank finished.
  bool waitForRanks(std::chrono::steady_clock::time_point until,
                    bool untilFailure) {
    std::unique_lock<std::mutex> lock(mutex);
    int total = static_cast<int>(running.size());
    // Short waits: a failure does not notify.
    while (finished < total && std::chrono::steady_clock::now() < until &&
           !(untilFailure && world.failed()))
      changed.wait_for(lock, std::chrono::milliseconds(10));
    return finished == total;
  }

  /// "ranks 1, 3" still running (at most a few named).
  std::string stillRunning() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<int> ranks;
    for (size_t r = 0; r < running.size(); ++r)
      if (running[r])
        ranks.push_back(static_cast<int>(r));
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size() && i < 8; ++i)
      text += (i ? ", " : "") + std::to_string(ranks[i]);
    if (ranks.size() > 8)
      text += " and " + std::to_string(ranks.size() - 8) + " more";
    return text;
  }
};
} // namespace

/// What a run replaying a CUDA graph needs; the rest is checked as it is
/// captured.
static rt::Status checkGraphOptions(const ExecutionOptions &options) {
  if (!options.cudaGraph)
    return rt::Status::ok();
#ifndef TP_HAVE_CUDA
  return rt::Status::error("CUDA graphs need a build with the CUDA backend");
#else
  if (options.backend != "cuda")
    return rt::Status::error("a CUDA graph of the step needs the cuda "
                             "backend, not " +
                             options.backend);
  if (!options.glue)
    return rt::Status::error("a CUDA graph of the step needs the glue on the "
                             "GPU: glue on the host cannot be captured");
  if (options.steps < 2)
    return rt::Status::error("a CUDA graph of the step needs 2 steps or more: "
                             "the first runs as usual, the others replay it");
  return rt::Status::ok();
#endif
}

/// How long ranks get to stop once the run has failed or timed out: those in
/// a collective notice within milliseconds, those in compiled code never.
static std::chrono::milliseconds stopGrace(const ExecutionOptions &options) {
  return std::min(rt::World::clampTimeout(options.timeout),
                  std::chrono::milliseconds(2000));
}

rt::Status mlir::tp::executeSPMD(func::FuncOp entry,
                                 const ExecutionOptions &options,
                                 std::vector<RankValues> &perRank) {
  if (static_cast<int>(perRank.size()) != options.ranks)
    return rt::Status::error("inputs for " + std::to_string(perRank.size()) +
                             " ranks, but the run has " +
                             std::to_string(options.ranks));
  TP_RETURN_IF_ERROR(checkGraphOptions(options));
  auto run = std::make_shared<SpmdRun>(options, std::move(perRank));
#ifdef TP_HAVE_CUDA
  if (options.cudaGraph)
    run->graph = std::make_unique<GraphRun>(options.ranks, options.timeout);
#endif
  // The caller keeps its inputs unless ranks are abandoned.
  auto giveBack = [&] { perRank = std::move(run->perRank); };
  rt::Status compiled = compileTraced(entry, options, 0, run->program);
  if (!compiled.isOk()) {
    giveBack();
    return compiled;
  }
  rt::configureCpuThreads(options.ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < options.ranks; ++r) {
    std::thread thread;
    rt::Status started = rt::startThread([run, r] { run->runRank(r); }, thread);
    if (!started.isOk()) {
      // Ranks already started stop at their first collective.
      run->world.fail(r, "cannot start a thread for rank " + std::to_string(r) +
                             " of " + std::to_string(options.ranks) + ": " +
                             started.message());
      std::lock_guard<std::mutex> lock(run->mutex);
      for (int q = r; q < options.ranks; ++q)
        run->running[q] = false;
      run->finished += options.ranks - r;
      break;
    }
    threads.push_back(std::move(thread));
  }

  // A quarter and 100 ms more than the timeout (per step): a rank waiting
  // on a peer reports its own wait first, which says more than this
  // deadline does.
  std::chrono::milliseconds timeout = runLimit(options);
  auto deadline = std::chrono::steady_clock::now() + timeout + timeout / 4 +
                  std::chrono::milliseconds(100);
  bool done = run->waitForRanks(deadline, /*untilFailure=*/true);
  if (!done && !run->world.failed())
    run->world.fail(-1, "the run took longer than the timeout of " +
                            std::to_string(options.timeout.count()) + " ms" +
                            (options.steps > 1 ? " per step" : ""));
  if (!done)
    done = run->waitForRanks(
        std::chrono::steady_clock::now() + stopGrace(options),
        /*untilFailure=*/false);
  if (!done && options.abandonRunawayRanks) {
    std::string why = run->world.firstFailure();
    int first = run->world.firstFailedRank();
    std::string runaway = run->stillRunning();
    for (std::thread &t : threads)
      t.detach();
    return rt::Status::error(
        (first >= 0 ? "rank " + std::to_string(first) + " failed first: "
                    : std::string()) +
        why + "; " + runaway + " did not stop within " +
        std::to_string(stopGrace(options).count()) +
        " ms after that (compiled code cannot be interrupted)");
  }
  for (std::thread &t : threads)
    t.join();
  giveBack();
  if (run->world.failed()) {
    int first = run->world.firstFailedRank();
    return rt::Status::error(
        first >= 0 ? "rank " + std::to_string(first) +
                         " failed first: " + run->world.firstFailure()
                   : run->world.firstFailure());
  }
  return rt::Status::ok();
}

rt::Status mlir::tp::executeOneRank(func::FuncOp entry,
                                    const ExecutionOptions &options, int rank,
                                    rt::Backend &backend, RankValues &values) {
  if (rank < 0 || rank >= options.ranks)
    return rt::Status::error("rank " + std::to_string(rank) + " of a run of " +
                             std::to_string(options.ranks));
  if (options.cudaGraph)
    return rt::Status::error("a CUDA graph of the step takes ranks as threads "
                             "of one process; this run has one process per "
                             "rank");
  std::unique_ptr<CompiledProgram> program;
  TP_RETURN_IF_ERROR(compileTraced(entry, options, rank, program));
  // Peers that compile slower must not eat into the first collective's
  // timeout; the time allowed is tp-run's watchdog's allowance to start.
  TP_RETURN_IF_ERROR(backend.waitForPeersToStart(
      rt::World::clampTimeout(options.timeout) + std::chrono::seconds(10)));
  // The world only counts ranks and records the trace here: peers are other
  // processes, reached by `backend` itself.
  rt::World world(options.ranks, options.timeout, options.trace);
  rt::configureCpuThreads(options.ranksPerNode);
  return runSteps(*program, options, backend, world, rank, values);
}
