//===- ABI.cpp - the C entry points compiled tp programs call -------------===//
//
// Each entry takes the buffers staged since the previous op, turns them into
// runtime tensors, calls the rank's Backend and writes the results into the
// staged result buffers. Nothing here unwinds: errors poison the context.
//
//===----------------------------------------------------------------------===//

#include "OperandChecks.h"
#include "tp/Runtime/Contract.h"
#include "tp/Runtime/MemRefs.h"
#include "tp/Runtime/Numerics.h"
#include "tp/Runtime/RankContext.h"
#include "tp/Runtime/Trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

using namespace mlir::tp::rt;

void TPRtContext::fail(const std::string &message) {
  if (error.isOk())
    error = Status::error(message);
  world.fail(rank, message);
}

void TPRtContext::startGlue() {
  if (TraceRecorder *trace = world.trace())
    glueStartUs = trace->nowUs();
}

void TPRtContext::traceGlue(const std::string &until) {
  TraceRecorder *trace = world.trace();
  if (!trace)
    return;
  double now = trace->nowUs();
  if (now > glueStartUs)
    trace->record(rank, Stream::Host, "compiled code before " + until, "glue",
                  glueStartUs, now);
}

static std::optional<Scaling> toScaling(int32_t mode) {
  switch (mode) {
  case TP_RT_PER_TENSOR:
    return Scaling::PerTensor;
  case TP_RT_ROW_WISE:
    return Scaling::RowWise;
  case TP_RT_MXFP8:
    return Scaling::MXFP8;
  case TP_RT_NVFP4:
    return Scaling::NVFP4;
  default:
    return std::nullopt;
  }
}

namespace {
/// The op being run: its site and the buffers staged for it, as tensors.
class Call {
public:
  Call(TPRtContext *ctx, TPRtUnrankedMemRef *siteText)
      : site(abi::textOf(siteText)), ctx(*ctx) {
    // C drivers call compiled code directly: name the rank in allocation
    // failure reports from here on.
    abi::setCurrentRank(ctx->rank);
    staged.swap(ctx->staged);
    if (live()) {
      ctx->traceGlue(site);
      offerResultBuffers();
    }
  }
  /// A failed or skipped op leaves zeros, not uninitialized memory, for the
  /// glue that still runs after it.
  ~Call() {
    ctx.backend.withdrawResults();
    if (!ctx.error.isOk())
      for (const TPRtContext::Staged &s : staged)
        if (s.role == TP_RT_ROLE_RESULT)
          abi::zeroFill(s.buffer, s.dtype);
    ctx.startGlue();
  }

  /// False once this rank has failed: the op does nothing.
  bool live() const { return ctx.error.isOk(); }
  /// Whether the step is being captured into a CUDA graph: the op may then
  /// only enqueue device work.
  bool capturing() const { return ctx.backend.capturingGraph(); }
  /// Fails an op that computes on the host while the step is captured (it
  /// would run once, at capture, and never on a replay); whether it did.
  bool refuseOnHostWhileCapturing() {
    if (!capturing())
      return false;
    fail("runs on the host, so a step with it cannot be captured in a CUDA "
         "graph");
    return true;
  }

  /// The staged operand of `role` (number `index`), or null.
  const Tensor *operand(int32_t role, int32_t index = 0) {
    auto key = std::make_pair(role, index);
    auto it = tensors.find(key);
    if (it != tensors.end())
      return &it->second;
    for (const TPRtContext::Staged &s : staged) {
      if (s.role != role || s.index != index)
        continue;
      if (capturing() && !abi::isContiguous(s.buffer, s.dtype)) {
        fail("an operand is strided: the runtime would pack it on the host, "
             "which a step captured into a CUDA graph cannot do");
        return nullptr;
      }
      return &tensors.emplace(key, abi::operandTensor(s.buffer, s.dtype))
                  .first->second;
    }
    return nullptr;
  }
  /// The staged operand of `role` (number `index`); fails the op when the
  /// caller staged none (a program compiled against another ABI).
  const Tensor *require(int32_t role, int32_t index = 0) {
    const Tensor *tensor = operand(role, index);
    if (!tensor && live())
      fail("no buffer of role " + std::to_string(role) + " (index " +
           std::to_string(index) + ") was staged");
    return tensor;
  }
  /// The scaling of code `mode`; fails the op for an unknown code.
  std::optional<Scaling> scalingOf(int32_t mode) {
    std::optional<Scaling> scaling = toScaling(mode);
    if (!scaling)
      fail("unknown scaling code " + std::to_string(mode));
    return scaling;
  }
  /// How many operands of `role` were staged.
  int count(int32_t role) const {
    int n = 0;
    for (const TPRtContext::Staged &s : staged)
      n += s.role == role;
    return n;
  }
  /// The element type of result `index`.
  DType resultType(int32_t index) const {
    for (const TPRtContext::Staged &s : staged)
      if (s.role == TP_RT_ROLE_RESULT && s.index == index)
        return s.dtype;
    return DType::F32;
  }

  /// Checks `status`; then writes `values` into the staged result buffers.
  void finish(const Status &status, const std::vector<Tensor> &values) {
    if (!status.isOk())
      return ctx.fail(status.message());
    if (static_cast<int>(values.size()) != count(TP_RT_ROLE_RESULT))
      return ctx.fail(site + ": the runtime made " +
                      std::to_string(values.size()) +
                      " results but the program expects " +
                      std::to_string(count(TP_RT_ROLE_RESULT)));
    for (const TPRtContext::Staged &s : staged) {
      if (s.role != TP_RT_ROLE_RESULT)
        continue;
      if (s.index < 0 || s.index >= static_cast<int32_t>(values.size()))
        return ctx.fail(site + ": result index " + std::to_string(s.index) +
                        " of " + std::to_string(values.size()));
      if (capturing() && !abi::isViewOf(values[s.index], s.buffer, s.dtype))
        return ctx.fail(site + ": result " + std::to_string(s.index) +
                        " was not written in place, and a step captured into "
                        "a CUDA graph cannot copy it on the host");
      Status written =
          abi::fromTensor(values[s.index], s.buffer, s.dtype,
                          site + ": result " + std::to_string(s.index));
      if (!written.isOk())
        return ctx.fail(written.message());
    }
  }
  void finish(const Status &status, const Tensor &value) {
    finish(status, std::vector<Tensor>{value});
  }
  void fail(const std::string &message) { ctx.fail(site + ": " + message); }

  /// The group of a collective: the grid's shape and the group's axes.
  std::optional<Group> group(TPRtUnrankedMemRef *grid,
                             TPRtUnrankedMemRef *axesBuffer) {
    std::vector<int64_t> shape = abi::integersOf(grid);
    std::vector<int64_t> axes = abi::integersOf(axesBuffer);
    std::vector<int64_t> key = shape;
    key.push_back(-1);
    key.insert(key.end(), axes.begin(), axes.end());
    auto it = ctx.groups.find(key);
    if (it != ctx.groups.end())
      return it->second;
    // Extents below 1 or a product that overflows cannot span the run.
    int64_t total = 1;
    bool counted = true;
    for (int64_t d : shape)
      counted = counted && d >= 1 && !__builtin_mul_overflow(total, d, &total);
    if (!counted || total != ctx.world.numRanks()) {
      fail("the grid " +
           (counted ? "has " + std::to_string(total) + " ranks"
                    : std::string("does not span the run")) +
           " but the run has " + std::to_string(ctx.world.numRanks()));
      return std::nullopt;
    }
    std::vector<int> axisList;
    for (int64_t a : axes) {
      if (a < 0 || a >= static_cast<int64_t>(shape.size())) {
        fail("grid axis " + std::to_string(a) + " is not an axis of the grid");
        return std::nullopt;
      }
      axisList.push_back(static_cast<int>(a));
    }
    Group result = makeGroup(shape, axisList, ctx.rank);
    ctx.groups[key] = result;
    return result;
  }

  Backend &backend() { return ctx.backend; }

  const std::string site;

private:
  /// Offers the backend the result buffers it may write in place: those
  /// laid out row-major that share no byte with another staged buffer (an
  /// operand read while the result is written, or another result).
  void offerResultBuffers() {
    std::vector<Tensor> views;
    for (size_t i = 0; i < staged.size(); ++i) {
      const TPRtContext::Staged &s = staged[i];
      if (s.role != TP_RT_ROLE_RESULT || s.index < 0 ||
          s.index >= static_cast<int32_t>(staged.size()))
        continue;
      bool alone = true;
      for (size_t j = 0; alone && j < staged.size(); ++j)
        alone = j == i || !abi::mayOverlap(s.buffer, s.dtype,
                                           staged[j].buffer, staged[j].dtype);
      if (!alone)
        continue;
      if (views.size() <= static_cast<size_t>(s.index))
        views.resize(s.index + 1);
      views[s.index] = abi::resultView(s.buffer, s.dtype);
    }
    ctx.backend.offerResults(std::move(views));
  }

  TPRtContext &ctx;
  std::vector<TPRtContext::Staged> staged;
  std::map<std::pair<int32_t, int32_t>, Tensor> tensors;
};
} // namespace

/// The reduction an ABI code names. An unknown code (compiled code from
/// another build, or a corrupted call) is an error, never a sum.
static Status toReduction(int32_t kind, Reduction &reduction) {
  switch (kind) {
  case TP_RT_SUM:
    reduction = Reduction::Sum;
    return Status::ok();
  case TP_RT_AVG:
    reduction = Reduction::Avg;
    return Status::ok();
  case TP_RT_MAX:
    reduction = Reduction::Max;
    return Status::ok();
  case TP_RT_MIN:
    reduction = Reduction::Min;
    return Status::ok();
  }
  return Status::error("unknown reduction code " + std::to_string(kind) +
                       " (the runtime knows 0 sum, 1 avg, 2 max, 3 min)");
}

/// The schedule an ABI algorithm code, chunk count and stream count name
/// (counts of 0 mean the default); unknown codes are errors, as for
/// reductions.
static Status toSchedule(int32_t algorithm, int64_t chunks, int32_t streams,
                         Schedule &schedule) {
  schedule = Schedule();
  switch (algorithm) {
  case TP_RT_PER_PEER:
    schedule.algorithm = Schedule::Algorithm::PerPeer;
    break;
  case TP_RT_RING:
    schedule.algorithm = Schedule::Algorithm::Ring;
    break;
  case TP_RT_COALESCED:
    schedule.algorithm = Schedule::Algorithm::Coalesced;
    break;
  default:
    return Status::error(
        "unknown algorithm code " + std::to_string(algorithm) +
        " (the runtime knows 0 per_peer, 1 ring, 2 coalesced)");
  }
  if (chunks > 0)
    schedule.chunks = static_cast<int>(
        std::min<int64_t>(chunks, std::numeric_limits<int>::max()));
  if (streams > 0)
    schedule.streams = streams;
  return Status::ok();
}

/// Runs `collective` on the staged input and the group of (grid, axes).
template <typename Collective>
static void runCollective(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                          TPRtUnrankedMemRef *grid, TPRtUnrankedMemRef *axes,
                          Collective collective) {
  Call call(ctx, site);
  if (!call.live())
    return;
  std::optional<Group> group = call.group(grid, axes);
  const Tensor *input = group ? call.require(TP_RT_ROLE_INPUT) : nullptr;
  if (!input)
    return;
  Tensor result;
  Status status = collective(call.backend(), *group, *input, call.site, result);
  call.finish(status, result);
}

extern "C" {

#define TP_RT_DEFINE_BUFFER(NAME, DTYPE)                                       \
  void _mlir_ciface_tp_rt_buffer_##NAME(TPRtContext *ctx, int32_t role,        \
                                        int32_t index,                         \
                                        TPRtUnrankedMemRef *buffer) {          \
    ctx->staged.push_back({role, index, *buffer, static_cast<DType>(DTYPE)});  \
  }
TP_RT_BUFFER_TYPES(TP_RT_DEFINE_BUFFER)
#undef TP_RT_DEFINE_BUFFER

void _mlir_ciface_tp_rt_all_gather(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   TPRtUnrankedMemRef *grid,
                                   TPRtUnrankedMemRef *axes, int64_t dim) {
  runCollective(ctx, site, grid, axes,
                [&](Backend &backend, const Group &group, const Tensor &input,
                    const std::string &where, Tensor &result) {
                  std::string why =
                      abi::checkAllGather(input, dim, group.size());
                  if (!why.empty())
                    return Status::error(where + ": " + why);
                  return backend.allGather(group, input, dim, where, result);
                });
}

void _mlir_ciface_tp_rt_reduce_scatter(TPRtContext *ctx,
                                       TPRtUnrankedMemRef *site,
                                       TPRtUnrankedMemRef *grid,
                                       TPRtUnrankedMemRef *axes, int64_t dim,
                                       int32_t reduction) {
  runCollective(ctx, site, grid, axes,
                [&](Backend &backend, const Group &group, const Tensor &input,
                    const std::string &where, Tensor &result) {
                  Reduction kind;
                  if (Status known = toReduction(reduction, kind); !known)
                    return Status::error(where + ": " + known.message());
                  return backend.reduceScatter(group, input, dim, kind, where,
                                               result);
                });
}

void _mlir_ciface_tp_rt_all_reduce(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   TPRtUnrankedMemRef *grid,
                                   TPRtUnrankedMemRef *axes,
                                   int32_t reduction) {
  runCollective(ctx, site, grid, axes,
                [&](Backend &backend, const Group &group, const Tensor &input,
                    const std::string &where, Tensor &result) {
                  Reduction kind;
                  if (Status known = toReduction(reduction, kind); !known)
                    return Status::error(where + ": " + known.message());
                  return backend.allReduce(group, input, kind, where, result);
                });
}

void _mlir_ciface_tp_rt_all_to_all(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   TPRtUnrankedMemRef *grid,
                                   TPRtUnrankedMemRef *axes, int64_t split,
                                   int64_t concat) {
  runCollective(ctx, site, grid, axes,
                [&](Backend &backend, const Group &group, const Tensor &input,
                    const std::string &where, Tensor &result) {
                  std::string why =
                      abi::checkAllToAll(input, split, concat, group.size());
                  if (!why.empty())
                    return Status::error(where + ": " + why);
                  return backend.allToAll(group, input, split, concat, where,
                                          result);
                });
}

int64_t _mlir_ciface_tp_rt_group_rank(TPRtContext *ctx,
                                      TPRtUnrankedMemRef *site,
                                      TPRtUnrankedMemRef *grid,
                                      TPRtUnrankedMemRef *axes) {
  Call call(ctx, site);
  if (!call.live())
    return 0;
  std::optional<Group> group = call.group(grid, axes);
  return group ? group->index : 0;
}

void _mlir_ciface_tp_rt_matmul(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                               int32_t transposeB) {
  Call call(ctx, site);
  if (!call.live())
    return;
  const Tensor *a = call.require(TP_RT_ROLE_INPUT);
  const Tensor *b = call.require(TP_RT_ROLE_WEIGHT);
  if (!a || !b)
    return;
  std::string mismatch = abi::checkMatmul(*a, *b, transposeB != 0);
  if (!mismatch.empty())
    return call.fail(mismatch);
  Tensor result;
  Status status =
      call.backend().matmul(*a, *b, transposeB != 0, call.site, result);
  call.finish(status, result);
}

/// Operand `index` of `role` with its scales, as the backend takes it; its
/// data (and scale, when scaled) must have been staged.
static std::optional<Operand> scaledOperand(Call &call, bool input,
                                            int32_t index,
                                            std::optional<Scaling> scaling) {
  Operand op = Operand::plain(
      call.require(input ? TP_RT_ROLE_INPUT : TP_RT_ROLE_WEIGHT, index));
  int32_t scaleRole = input ? TP_RT_ROLE_INPUT_SCALE : TP_RT_ROLE_WEIGHT_SCALE;
  op.scale = scaling ? call.require(scaleRole, index) : nullptr;
  if (!op.data || (scaling && !op.scale))
    return std::nullopt;
  op.globalScale = call.operand(
      input ? TP_RT_ROLE_INPUT_GLOBAL : TP_RT_ROLE_WEIGHT_GLOBAL, index);
  op.scaling = scaling;
  return op;
}

void _mlir_ciface_tp_rt_scaled_matmul(TPRtContext *ctx,
                                      TPRtUnrankedMemRef *site,
                                      int32_t scaling) {
  Call call(ctx, site);
  if (!call.live())
    return;
  std::optional<Scaling> mode = call.scalingOf(scaling);
  if (!mode)
    return;
  std::optional<Operand> a = scaledOperand(call, true, 0, mode);
  std::optional<Operand> b = scaledOperand(call, false, 0, mode);
  if (!a || !b)
    return;
  std::string mismatch = abi::checkScaledMatmul(*a, *b);
  if (mismatch.empty())
    mismatch = abi::checkMatmulBias(call.operand(TP_RT_ROLE_BIAS),
                                    b->data->dim(0));
  if (!mismatch.empty())
    return call.fail(mismatch);
  Tensor result;
  Status status =
      call.backend().scaledMatmul(*a, *b, call.operand(TP_RT_ROLE_BIAS),
                                  call.resultType(0), call.site, result);
  call.finish(status, result);
}

void _mlir_ciface_tp_rt_quantize(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                 int32_t scaling) {
  Call call(ctx, site);
  if (!call.live() || call.refuseOnHostWhileCapturing())
    return;
  std::optional<Scaling> mode = call.scalingOf(scaling);
  const Tensor *input = call.require(TP_RT_ROLE_INPUT);
  if (!mode || !input)
    return;
  Quantized q;
  std::string error;
  if (!quantize(*input, *mode, call.resultType(0), q, error,
                call.operand(TP_RT_ROLE_AMAX)))
    return call.fail(error);
  std::vector<Tensor> results = {q.data, q.scale};
  if (call.count(TP_RT_ROLE_RESULT) == 3)
    results.push_back(q.globalScale);
  call.finish(Status::ok(), results);
}

void _mlir_ciface_tp_rt_dequantize(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   int32_t scaling) {
  Call call(ctx, site);
  if (!call.live() || call.refuseOnHostWhileCapturing())
    return;
  std::optional<Scaling> mode = call.scalingOf(scaling);
  const Tensor *input = call.require(TP_RT_ROLE_INPUT);
  const Tensor *scale = call.require(TP_RT_ROLE_INPUT_SCALE);
  if (!mode || !input || !scale)
    return;
  Tensor result;
  std::string error;
  if (!dequantize(*input, *scale, call.operand(TP_RT_ROLE_INPUT_GLOBAL), *mode,
                  call.resultType(0), result, error))
    return call.fail(error);
  call.finish(Status::ok(), result);
}

/// The body both gather-then-multiply entries share: A and the weights
/// (scaled with `mode`), the schedule, the operand checks and the run. `args`
/// already holds the dims, the flags and the exchange.
static void runGatherMatmul(Call &call, const Group &group,
                            std::optional<Scaling> mode,
                            AllGatherMatmulArgs &args, int32_t algorithm,
                            int64_t chunks, int32_t streams) {
  std::optional<Operand> a = scaledOperand(call, true, 0, mode);
  if (!a)
    return;
  args.a = *a;
  // Results: the gathered (or exchanged) A and, when scaled, its scale when
  // returned; then the products.
  int firstProduct = args.returnGathered ? (mode ? 2 : 1) : 0;
  for (int i = 0, weights = call.count(TP_RT_ROLE_WEIGHT); i < weights; ++i) {
    std::optional<Operand> b = scaledOperand(call, false, i, mode);
    if (!b)
      return;
    args.bs.push_back(*b);
    args.biases.push_back(call.operand(TP_RT_ROLE_BIAS, i));
    args.outTypes.push_back(call.resultType(firstProduct + i));
  }
  if (Status known = toSchedule(algorithm, chunks, streams, args.schedule);
      !known)
    return call.fail(known.message());
  args.site = call.site;
  std::string mismatch = args.exchangeSplit
                             ? abi::checkAllToAllMatmul(args, group.size())
                             : abi::checkAllGatherMatmul(args, group.size());
  if (!mismatch.empty())
    return call.fail(mismatch);
  std::vector<Tensor> results;
  Status status = call.backend().allGatherMatmul(group, args, results);
  call.finish(status, results);
}

void _mlir_ciface_tp_rt_all_gather_matmul(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t dim, int32_t scaling, int32_t transposeB,
    int32_t returnGathered, int32_t algorithm, int64_t chunks,
    int32_t streams) {
  Call call(ctx, site);
  if (!call.live())
    return;
  std::optional<Group> group = call.group(grid, axes);
  if (!group)
    return;
  AllGatherMatmulArgs args;
  args.dim = dim;
  args.transposeB = transposeB != 0;
  args.returnGathered = returnGathered != 0;
  runGatherMatmul(call, *group, toScaling(scaling), args, algorithm, chunks,
                  streams);
}

void _mlir_ciface_tp_rt_all_to_all_matmul(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t split, int64_t concat, int32_t transposeB,
    int32_t returnExchanged, int32_t algorithm, int64_t chunks,
    int32_t streams) {
  Call call(ctx, site);
  if (!call.live())
    return;
  std::optional<Group> group = call.group(grid, axes);
  if (!group)
    return;
  AllGatherMatmulArgs args;
  args.dim = concat;
  args.exchangeSplit = split;
  args.transposeB = transposeB != 0;
  args.returnGathered = returnExchanged != 0;
  runGatherMatmul(call, *group, std::nullopt, args, algorithm, chunks, streams);
}

void _mlir_ciface_tp_rt_all_gather_contract(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t dim, int32_t gatheredLhs,
    int32_t transposeA, int32_t transposeB, int32_t returnGathered,
    int32_t algorithm, int64_t chunks, int32_t streams) {
  Call call(ctx, site);
  if (!call.live())
    return;
  std::optional<Group> group = call.group(grid, axes);
  if (!group)
    return;
  AllGatherContractArgs args;
  args.x = call.require(TP_RT_ROLE_INPUT);
  if (!args.x)
    return;
  int others = call.count(TP_RT_ROLE_WEIGHT);
  for (int i = 0; i < others; ++i) {
    const Tensor *other = call.require(TP_RT_ROLE_WEIGHT, i);
    if (!other)
      return;
    args.others.push_back(other);
  }
  args.dim = dim;
  args.gatheredLhs = gatheredLhs != 0;
  args.transposeA = transposeA != 0;
  args.transposeB = transposeB != 0;
  args.returnGathered = returnGathered != 0;
  if (Status known = toSchedule(algorithm, chunks, streams, args.schedule);
      !known)
    return call.fail(known.message());
  args.site = call.site;
  // Shapes only known at run time are checked before any rank moves data.
  ContractPlan plan;
  if (Status planned = planContract(args, group->size(), plan);
      !planned.isOk())
    return ctx->fail(planned.message());
  std::vector<Tensor> results;
  Status status = call.backend().allGatherContract(*group, args, results);
  call.finish(status, results);
}

/// The body of the multiply-then-scatter entries: A and B (scaled with
/// `mode`), the result type, the schedule, the operand checks and the run.
/// `args` already holds the dims, the flags, the reduction or the exchange.
static void runMatmulScatter(Call &call, const Group &group,
                             std::optional<Scaling> mode,
                             MatmulReduceScatterArgs &args, int32_t algorithm,
                             int64_t chunks, int32_t streams) {
  std::optional<Operand> a = scaledOperand(call, true, 0, mode);
  std::optional<Operand> b = scaledOperand(call, false, 0, mode);
  if (!a || !b)
    return;
  args.a = *a;
  args.b = *b;
  args.outType = call.resultType(args.returnUnreduced ? 1 : 0);
  if (Status known = toSchedule(algorithm, chunks, streams, args.schedule);
      !known)
    return call.fail(known.message());
  args.site = call.site;
  std::string mismatch =
      args.exchangeConcat ? abi::checkMatmulAllToAll(args, group.size())
                          : abi::checkMatmulReduceScatter(args, group.size());
  if (!mismatch.empty())
    return call.fail(mismatch);
  std::vector<Tensor> results;
  Status status = call.backend().matmulReduceScatter(group, args, results);
  call.finish(status, results);
}

void _mlir_ciface_tp_rt_matmul_reduce_scatter(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t dim, int32_t reduction, int32_t scaling,
    int32_t transposeB, int32_t returnUnreduced, int32_t algorithm,
    int64_t chunks, int32_t streams) {
  Call call(ctx, site);
  if (!call.live())
    return;
  std::optional<Group> group = call.group(grid, axes);
  if (!group)
    return;
  MatmulReduceScatterArgs args;
  args.bias = call.operand(TP_RT_ROLE_BIAS);
  args.addend = call.operand(TP_RT_ROLE_ADDEND);
  args.dim = dim;
  if (Status known = toReduction(reduction, args.reduction); !known)
    return call.fail(known.message());
  args.transposeB = transposeB != 0;
  args.returnUnreduced = returnUnreduced != 0;
  runMatmulScatter(call, *group, toScaling(scaling), args, algorithm, chunks,
                   streams);
}

void _mlir_ciface_tp_rt_matmul_all_to_all(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t split, int64_t concat, int32_t transposeB,
    int32_t returnProduct, int32_t algorithm, int64_t chunks, int32_t streams) {
  Call call(ctx, site);
  if (!call.live())
    return;
  std::optional<Group> group = call.group(grid, axes);
  if (!group)
    return;
  MatmulReduceScatterArgs args;
  args.dim = split;
  args.exchangeConcat = concat;
  args.transposeB = transposeB != 0;
  args.returnUnreduced = returnProduct != 0;
  runMatmulScatter(call, *group, std::nullopt, args, algorithm, chunks,
                   streams);
}

float _mlir_ciface_tp_rt_extf_f8(int8_t bits, int32_t dtype) {
  return static_cast<float>(
      loadElement(&bits, static_cast<DType>(static_cast<uint8_t>(dtype)), 0));
}

int8_t _mlir_ciface_tp_rt_truncf_f8(float value, int32_t dtype) {
  int8_t bits = 0;
  storeElement(&bits, static_cast<DType>(static_cast<uint8_t>(dtype)), 0,
               value);
  return bits;
}

} // extern "C"
