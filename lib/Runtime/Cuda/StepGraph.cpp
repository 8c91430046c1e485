//===- StepGraph.cpp - every rank's step as one CUDA graph ----------------===//
//
// Capture: rank 0 starts a capture on an origin stream and records a fork
// event; every rank's compute stream waits on it, which joins it to the
// capture, and the rank runs its step in capture mode (CudaRank: ops only
// enqueue, and join their comm stream back into compute; GpuHost: the glue's
// kernels, copies and allocations go to the compute stream and the rank's
// arena). Ops that exchange with peers wait on the peers' events, which
// become the graph's edges between ranks. Each rank then records a done
// event that the origin stream waits on, and rank 0 ends the capture.
//
//===----------------------------------------------------------------------===//

#include "CudaRank.h"
#include "GraphCapture.h"
#include "tp/Runtime/CudaBackend.h"
#include "tp/Runtime/MemRefs.h"
#include "tp/Runtime/World.h"

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

//===----------------------------------------------------------------------===//
// The capture's arena and the calling thread's scope.
//===----------------------------------------------------------------------===//

namespace {
thread_local CaptureScope *threadScope = nullptr;
} // namespace

CaptureScope *mlir::tp::rt::cuda::currentCaptureScope() { return threadScope; }
void mlir::tp::rt::cuda::setCaptureScope(CaptureScope *scope) {
  threadScope = scope;
}

CaptureArena::~CaptureArena() {
  for (auto &[aligned, base] : bases)
    cudaFree(base);
}

void *CaptureArena::allocate(size_t alignment, size_t size) {
  // cudaMallocManaged aligns to 256 bytes; larger alignments take a margin.
  size_t margin = alignment > 256 ? alignment : 0;
  void *base = nullptr;
  if (cudaMallocManaged(&base, (size ? size : 1) + margin,
                        cudaMemAttachGlobal) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  auto address = reinterpret_cast<uintptr_t>(base);
  if (margin)
    address = (address + alignment - 1) / alignment * alignment;
  void *aligned = reinterpret_cast<void *>(address);
  bases[aligned] = base;
  total += size + margin;
  return aligned;
}

//===----------------------------------------------------------------------===//
// StepGraph
//===----------------------------------------------------------------------===//

struct StepGraph::Impl {
  Impl(int ranks, std::chrono::milliseconds timeout)
      : ranks(ranks), timeout(World::clampTimeout(timeout)), done(ranks),
        arenas(ranks) {
    for (auto &arena : arenas)
      arena = std::make_unique<CaptureArena>();
  }

  /// Waits until `ready()` (under the mutex), the timeout, or (with
  /// `untilFailure`) a failed rank.
  bool waitFor(World &world, std::unique_lock<std::mutex> &lock,
               const std::function<bool()> &ready, bool untilFailure = true) {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (!ready()) {
      if ((untilFailure && world.failed()) ||
          std::chrono::steady_clock::now() > until)
        return false;
      changed.wait_for(lock, std::chrono::milliseconds(10));
    }
    return true;
  }

  /// Rank 0: starts the capture and records the fork event.
  Status begin() {
    std::string context = "CUDA graph capture";
    TP_CUDA(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
    TP_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    // Relaxed: rank threads allocate (glue buffers, events) while capturing.
    TP_CUDA(cudaStreamBeginCapture(origin, cudaStreamCaptureModeRelaxed));
    capturing = true;
    TP_CUDA(cudaEventRecord(fork, origin));
    return Status::ok();
  }

  /// Rank 0, once every rank is done: joins their streams and builds the
  /// graph (ending the capture even when a rank failed).
  Status end(Status status) {
    std::string context = "CUDA graph capture";
    for (int r = 0; r < ranks; ++r)
      if (done[r] && status.isOk())
        status = check(cudaStreamWaitEvent(origin, done[r], 0),
                       "cudaStreamWaitEvent", context);
    cudaGraph_t captured = nullptr;
    cudaError_t ended = cudaStreamEndCapture(origin, &captured);
    capturing = false;
    if (status.isOk())
      status = check(ended, "cudaStreamEndCapture", context);
    if (status.isOk())
      status = check(cudaGraphInstantiate(&exec, captured, 0),
                     "cudaGraphInstantiate", context);
    if (status.isOk())
      status = check(cudaGraphGetNodes(captured, nullptr, &nodes),
                     "cudaGraphGetNodes", context);
    if (captured)
      cudaGraphDestroy(captured);
    return status;
  }

  int ranks;
  std::chrono::milliseconds timeout;
  cudaStream_t origin = nullptr;
  cudaEvent_t fork = nullptr;
  bool capturing = false;
  std::vector<cudaEvent_t> done;
  std::vector<std::unique_ptr<CaptureArena>> arenas;
  cudaGraphExec_t exec = nullptr;
  size_t nodes = 0;

  std::mutex mutex;
  std::condition_variable changed;
  /// Set by rank 0: the fork event is recorded (or `beginError` says why
  /// not); the graph is built (or `buildError` says why not).
  bool begun = false, built = false;
  Status beginError, buildError;
  /// Ranks done with their first step (ready) and with their capture.
  int ready = 0, arrived = 0;
  /// A replay did not finish: its memory may still be in use.
  bool abandoned = false;
};

StepGraph::StepGraph(int ranks, std::chrono::milliseconds timeout)
    : impl(std::make_unique<Impl>(ranks, timeout)) {}

StepGraph::~StepGraph() {
  // A graph that may still run keeps its memory and handles: freeing them
  // would wait for it, or pull memory from under it.
  if (impl->abandoned) {
    for (auto &arena : impl->arenas)
      arena.release();
    return;
  }
  if (impl->exec)
    cudaGraphExecDestroy(impl->exec);
  for (cudaEvent_t e : impl->done)
    if (e)
      cudaEventDestroy(e);
  if (impl->fork)
    cudaEventDestroy(impl->fork);
  if (impl->origin)
    cudaStreamDestroy(impl->origin);
}

Status StepGraph::deviceInputs(int rank, const std::vector<Tensor> &inputs,
                               std::vector<Tensor> &onDevice) {
  onDevice.clear();
  for (const Tensor &input : inputs) {
    void *memory = impl->arenas[rank]->allocate(64, input.numBytes());
    if (!memory)
      return Status::error("rank " + std::to_string(rank) +
                           ": cannot allocate " +
                           std::to_string(input.numBytes()) +
                           " bytes of managed memory for an input of the "
                           "CUDA graph");
    std::memcpy(memory, input.data(), input.numBytes());
    onDevice.push_back(Tensor::borrow(input.dtype(), input.shape(), memory));
  }
  return Status::ok();
}

Status StepGraph::capture(World &world, Backend &backend, int rank,
                          const std::function<Status()> &step) {
  Impl &g = *impl;
  auto *cuda = dynamic_cast<CudaRank *>(&backend);
  std::string context = "rank " + std::to_string(rank) + " capturing its step";
  Status status = cuda ? Status::ok()
                       : Status::error(context + ": a CUDA graph needs the "
                                                 "cuda backend, not " +
                                       backend.name());

  std::unique_lock<std::mutex> lock(g.mutex);
  ++g.ready;
  g.changed.notify_all();
  if (rank == 0) {
    // Every rank must be past its first step first: freeing memory there
    // synchronizes the device, which would invalidate a capture on it.
    if (status.isOk() &&
        !g.waitFor(world, lock, [&] { return g.ready == g.ranks; }))
      status = Status::error(context + ": not every rank finished its first "
                                       "step");
    if (status.isOk())
      status = g.begin();
    g.begun = true;
    g.beginError = status;
    g.changed.notify_all();
  } else if (!g.waitFor(world, lock, [&] { return g.begun; })) {
    status = Status::error(context + ": the capture did not start (rank 0 "
                                     "failed or took too long)");
  } else if (!g.beginError.isOk()) {
    status = Status::error(context + ": rank 0 could not start the capture");
  }
  lock.unlock();

  // This rank's part: its compute stream joins the capture and the step
  // enqueues into it.
  bool joined = false;
  if (status.isOk())
    status = cuda->beginCapture(context);
  if (status.isOk()) {
    status = check(cudaStreamWaitEvent(cuda->computeStream(), g.fork, 0),
                   "cudaStreamWaitEvent", context);
    joined = status.isOk();
  }
  if (status.isOk()) {
    CaptureScope scope{cuda->computeStream(), g.arenas[rank].get()};
    abi::AllocationHooks hooks;
    hooks.state = scope.arena;
    hooks.allocate = [](void *arena, size_t alignment, size_t size) {
      return static_cast<CaptureArena *>(arena)->allocate(alignment, size);
    };
    hooks.release = [](void *arena, void *ptr) {
      return static_cast<CaptureArena *>(arena)->owns(ptr);
    };
    setCaptureScope(&scope);
    abi::setAllocationHooks(&hooks);
    status = step();
    abi::setAllocationHooks(nullptr);
    setCaptureScope(nullptr);
    // The glue's first CUDA error is the cause of any later one.
    if (!scope.error.empty())
      status = Status::error(context + ": " + scope.error);
  }
  if (cuda)
    cuda->endCapture();
  // The origin stream must take in every stream that joined, failed or not,
  // for the capture to end.
  if (joined) {
    Status recorded =
        check(cudaEventCreateWithFlags(&g.done[rank], cudaEventDisableTiming),
              "cudaEventCreate", context);
    if (recorded.isOk())
      recorded = check(cudaEventRecord(g.done[rank], cuda->computeStream()),
                       "cudaEventRecord", context);
    if (status.isOk())
      status = recorded;
  }
  if (!status.isOk())
    world.fail(rank, status.message());

  lock.lock();
  ++g.arrived;
  g.changed.notify_all();
  if (rank == 0) {
    // Every rank must be out of its step before the capture ends, even after
    // a failure (peers stop at their next collective): a rank still
    // enqueuing would find its stream's capture gone.
    bool all = g.waitFor(
        world, lock, [&] { return g.arrived == g.ranks; },
        /*untilFailure=*/false);
    Status built = status;
    if (built.isOk() && !all)
      built = Status::error("CUDA graph capture: not every rank finished "
                            "capturing its step");
    if (built.isOk() && world.failed())
      built = Status::error("CUDA graph capture: a rank failed");
    if (g.capturing)
      built = g.end(built);
    g.built = true;
    g.buildError = built;
    g.changed.notify_all();
    return built;
  }
  // Even after a failure: this rank's streams belong to the capture until
  // rank 0 ends it, so they must outlive it.
  if (!g.waitFor(
          world, lock, [&] { return g.built; }, /*untilFailure=*/false) &&
      status.isOk())
    status = Status::error(context + ": the graph was not built in time");
  if (status.isOk() && !g.buildError.isOk())
    status = Status::error(context + ": rank 0 could not build the graph");
  return status;
}

Status StepGraph::replay(double &millis) {
  Impl &g = *impl;
  std::string context = "CUDA graph replay";
  if (!g.exec)
    return Status::error(context + ": no graph was captured");
  auto start = std::chrono::steady_clock::now();
  TP_CUDA(cudaGraphLaunch(g.exec, g.origin));
  // Polled rather than waited for, so a graph that never ends (a peer's
  // event never recorded) ends the run with a message instead of a hang.
  auto until = start + g.timeout;
  cudaError_t state;
  while ((state = cudaStreamQuery(g.origin)) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() > until) {
      g.abandoned = true;
      return Status::error(context + ": the step's graph did not finish "
                                     "within the timeout of " +
                           std::to_string(g.timeout.count()) + " ms");
    }
    std::this_thread::yield();
  }
  TP_CUDA(state);
  millis = std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
               .count();
  return Status::ok();
}

bool StepGraph::owns(int rank, const void *ptr) const {
  return rank >= 0 && rank < impl->ranks &&
         impl->arenas[rank]->owns(const_cast<void *>(ptr));
}

size_t StepGraph::nodeCount() const { return impl->nodes; }

size_t StepGraph::capturedBytes() const {
  size_t total = 0;
  for (const auto &arena : impl->arenas)
    total += arena->bytes();
  return total;
}
