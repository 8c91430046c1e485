//===- ABITest.cpp - the C ABI compiled code calls ------------------------===//
//
// Calls the runtime's entries the way compiled code does (descriptors built
// here), without MLIR:
// - strided descriptors in and out of runtime tensors, and the strided copy;
// - a staged matmul writes its result into the caller's strided buffer;
// - contiguous operands are read in place and contiguous results offered
//   for writing in place, unless a result shares bytes with another buffer
//   of the op (then it is computed apart and copied, so aliasing is safe);
// - a result buffer of the wrong shape, and a bias of the wrong length, fail
//   the op with its site; a failed context ignores later calls;
// - while a step is captured into a CUDA graph, a strided operand, a result
//   not written in place and an op that computes on the host fail the op;
// - a two-rank all-gather and all-to-all through tpRtRun, the ahead-of-time
//   driver API; an all-to-all whose split dim is out of range fails the op.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Embedding.h"
#include "tp/Runtime/MemRefs.h"
#include "tp/Runtime/RankContext.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace mlir::tp::rt;

namespace {

/// A memref descriptor over caller-owned floats, as compiled code passes it.
struct Descriptor {
  std::vector<int64_t> words;
  TPRtUnrankedMemRef memref;

  Descriptor(float *data, std::vector<int64_t> sizes,
             std::vector<int64_t> strides, int64_t offset = 0) {
    words.resize(3 + 2 * sizes.size());
    std::memcpy(&words[0], &data, sizeof(data));
    std::memcpy(&words[1], &data, sizeof(data));
    words[2] = offset;
    for (size_t d = 0; d < sizes.size(); ++d) {
      words[3 + d] = sizes[d];
      words[3 + sizes.size() + d] = strides[d];
    }
    memref = {static_cast<int64_t>(sizes.size()), words.data()};
  }
};

/// An i8 or i64 constant buffer (site text, grid shape, axes).
template <typename T> struct Constant {
  std::vector<T> values;
  std::vector<int64_t> words;
  TPRtUnrankedMemRef memref;

  explicit Constant(std::vector<T> v) : values(std::move(v)) {
    T *data = values.data();
    words = {0, 0, 0, static_cast<int64_t>(values.size()), 1};
    std::memcpy(&words[0], &data, sizeof(data));
    std::memcpy(&words[1], &data, sizeof(data));
    memref = {1, words.data()};
  }
};

Constant<char> site(const std::string &text) {
  return Constant<char>(std::vector<char>(text.begin(), text.end()));
}

TEST(ABI, StridedDescriptorsBecomeContiguousTensorsAndBack) {
  // A 2x3 view with row stride 4, offset 1, of a 3x4 buffer.
  std::vector<float> storage = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  Descriptor view(storage.data(), {2, 3}, {4, 1}, 1);
  Tensor t = mlir::tp::rt::abi::toTensor(view.memref, DType::F32);
  ASSERT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.get(0), 1);
  EXPECT_EQ(t.get(2), 3);
  EXPECT_EQ(t.get(3), 5);
  EXPECT_EQ(t.get(5), 7);

  // Written back through a transposed (column-major) view.
  std::vector<float> out(6, -1);
  Descriptor transposed(out.data(), {2, 3}, {1, 2});
  ASSERT_TRUE(
      mlir::tp::rt::abi::fromTensor(t, transposed.memref, DType::F32, "r")
          .isOk());
  EXPECT_EQ(out, (std::vector<float>{1, 5, 2, 6, 3, 7}));

  Status wrong = mlir::tp::rt::abi::fromTensor(
      t.reshaped({3, 2}), transposed.memref, DType::F32, "result 0");
  ASSERT_FALSE(wrong.isOk());
  EXPECT_EQ(wrong.message(), "result 0 is tensor<3x2xf32> but the program "
                             "expects tensor<2x3xf32>");
}

TEST(ABI, StridedCopyNeverPassesEitherBuffer) {
  std::vector<float> source = {1, 2, 3, 4, 5, 6};
  std::vector<float> target(6, 0);
  Descriptor from(source.data(), {2, 3}, {3, 1});
  Descriptor to(target.data(), {2, 3}, {1, 2});
  tp_rt_memref_copy(sizeof(float), &from.memref, &to.memref);
  EXPECT_EQ(target, (std::vector<float>{1, 4, 2, 5, 3, 6}));

  // A program without runtime checks may claim a larger source: only the
  // common part is copied.
  std::vector<float> small(2, 0);
  Descriptor wide(source.data(), {6}, {1});
  Descriptor narrow(small.data(), {2}, {1});
  tp_rt_memref_copy(sizeof(float), &wide.memref, &narrow.memref);
  EXPECT_EQ(small, (std::vector<float>{1, 2}));
}

class ABIRank : public ::testing::Test {
protected:
  World world{1, std::chrono::milliseconds(5000)};
  std::unique_ptr<Backend> backend = createCpuBackend(world, 0);
  TPRtContext ctx{*backend, world, 0};
};

TEST_F(ABIRank, MatmulWritesIntoTheCallersStridedBuffer) {
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  std::vector<float> out(8, 0); // a 2x2 result in the first 2 columns of 2x4
  Descriptor da(a.data(), {2, 2}, {2, 1}), db(b.data(), {2, 2}, {2, 1});
  Descriptor dout(out.data(), {2, 2}, {4, 1});
  auto text = site("'tp.matmul' at t.mlir:1:1");
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_matmul(&ctx, &text.memref, /*transposeB=*/0);
  ASSERT_TRUE(ctx.error.isOk()) << ctx.error.message();
  EXPECT_EQ(out, (std::vector<float>{19, 22, 0, 0, 43, 50, 0, 0}));
  EXPECT_TRUE(ctx.staged.empty());
}

/// A backend whose matmul reports what the ABI handed it and writes a + 1
/// (any shape) through newResult.
class ProbeBackend final : public Backend {
public:
  std::string name() const override { return "probe"; }
  Status allGather(const Group &, const Tensor &, int64_t,
                   const std::string &, Tensor &) override {
    return Status::error("unused");
  }
  Status reduceScatter(const Group &, const Tensor &, int64_t, Reduction,
                       const std::string &, Tensor &) override {
    return Status::error("unused");
  }
  Status allReduce(const Group &, const Tensor &, Reduction,
                   const std::string &, Tensor &) override {
    return Status::error("unused");
  }
  Status allToAll(const Group &, const Tensor &, int64_t, int64_t,
                  const std::string &, Tensor &) override {
    return Status::error("unused");
  }
  Status matmul(const Tensor &a, const Tensor &, bool, const std::string &,
                Tensor &result) override {
    operandBytes = a.data();
    result = newResult(0, a.dtype(), a.shape(), /*zeroed=*/false);
    resultInPlace = result.isView();
    for (int64_t i = 0; i < a.numElements(); ++i)
      result.set(i, a.get(i) + 1);
    resultBytes = result.data();
    return Status::ok();
  }
  Status scaledMatmul(const Operand &, const Operand &, const Tensor *, DType,
                      const std::string &, Tensor &) override {
    return Status::error("unused");
  }
  Status allGatherMatmul(const Group &, const AllGatherMatmulArgs &,
                         std::vector<Tensor> &) override {
    return Status::error("unused");
  }
  Status matmulReduceScatter(const Group &, const MatmulReduceScatterArgs &,
                             std::vector<Tensor> &) override {
    return Status::error("unused");
  }
  Status allGatherContract(const Group &, const AllGatherContractArgs &,
                           std::vector<Tensor> &) override {
    return Status::error("unused");
  }

  bool capturingGraph() const override { return capturing; }

  const void *operandBytes = nullptr, *resultBytes = nullptr;
  bool resultInPlace = false;
  /// Stands for a step being captured into a CUDA graph.
  bool capturing = false;
};

class ABIProbe : public ::testing::Test {
protected:
  /// Stages a (and a 1x1 weight) and `result`, then runs the matmul entry.
  void run(Descriptor &a, Descriptor &result) {
    call(a, result);
    ASSERT_TRUE(ctx.error.isOk()) << ctx.error.message();
  }
  void call(Descriptor &a, Descriptor &result) {
    float one = 1;
    Descriptor b(&one, {1, 1}, {1, 1});
    auto text = site("'tp.matmul' at t.mlir:1:1");
    _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &a.memref);
    _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &b.memref);
    _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &result.memref);
    _mlir_ciface_tp_rt_matmul(&ctx, &text.memref, /*transposeB=*/0);
  }

  World world{1, std::chrono::milliseconds(5000)};
  ProbeBackend probe;
  TPRtContext ctx{probe, world, 0};
};

TEST_F(ABIProbe, ContiguousBuffersAreUsedInPlace) {
  std::vector<float> a = {1, 2, 3, 4}, out(4, 0);
  Descriptor da(a.data(), {4, 1}, {1, 1}), dout(out.data(), {4, 1}, {1, 1});
  run(da, dout);
  EXPECT_EQ(probe.operandBytes, a.data());
  EXPECT_TRUE(probe.resultInPlace);
  EXPECT_EQ(probe.resultBytes, out.data());
  EXPECT_EQ(out, (std::vector<float>{2, 3, 4, 5}));
}

TEST_F(ABIProbe, StridedBuffersAreCopied) {
  std::vector<float> a = {1, 0, 2, 0}, out(4, 0);
  Descriptor da(a.data(), {2, 1}, {2, 1}), dout(out.data(), {2, 1}, {2, 1});
  run(da, dout);
  EXPECT_NE(probe.operandBytes, a.data());
  EXPECT_FALSE(probe.resultInPlace);
  EXPECT_EQ(out, (std::vector<float>{2, 0, 3, 0}));
}

TEST_F(ABIProbe, AResultThatAliasesAnOperandIsComputedApart) {
  // The result overlaps the operand by one element: written in place, the
  // op would read elements it had already written.
  std::vector<float> storage = {1, 10, 100, 1000, 0};
  Descriptor da(storage.data(), {4, 1}, {1, 1});
  Descriptor dout(storage.data() + 1, {4, 1}, {1, 1});
  run(da, dout);
  EXPECT_FALSE(probe.resultInPlace);
  EXPECT_EQ(storage, (std::vector<float>{1, 2, 11, 101, 1001}));
}

// While a step is captured into a CUDA graph, the ABI copies nothing on the
// host: such a copy would run once, at capture, and never on a replay.
TEST_F(ABIProbe, CapturingUsesContiguousBuffersInPlace) {
  probe.capturing = true;
  std::vector<float> a = {1, 2, 3, 4}, out(4, 0);
  Descriptor da(a.data(), {4, 1}, {1, 1}), dout(out.data(), {4, 1}, {1, 1});
  run(da, dout);
  EXPECT_TRUE(probe.resultInPlace);
  EXPECT_EQ(out, (std::vector<float>{2, 3, 4, 5}));
}

TEST_F(ABIProbe, CapturingRefusesAStridedOperand) {
  probe.capturing = true;
  std::vector<float> a = {1, 0, 2, 0}, out(2, 0);
  Descriptor da(a.data(), {2, 1}, {2, 1}), dout(out.data(), {2, 1}, {1, 1});
  call(da, dout);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.matmul' at t.mlir:1:1: an operand is strided: the runtime "
            "would pack it on the host, which a step captured into a CUDA "
            "graph cannot do");
  EXPECT_EQ(probe.operandBytes, nullptr); // the backend never ran
}

TEST_F(ABIProbe, CapturingRefusesAResultNotWrittenInPlace) {
  probe.capturing = true;
  std::vector<float> a = {1, 2}, out(4, 0);
  Descriptor da(a.data(), {2, 1}, {1, 1}), dout(out.data(), {2, 1}, {2, 1});
  call(da, dout);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.matmul' at t.mlir:1:1: result 0 was not written in place, "
            "and a step captured into a CUDA graph cannot copy it on the "
            "host");
  EXPECT_FALSE(probe.resultInPlace);
}

TEST_F(ABIProbe, CapturingRefusesOpsThatComputeOnTheHost) {
  probe.capturing = true;
  std::vector<float> x = {1, 2, 3, 4};
  Descriptor dx(x.data(), {1, 4}, {4, 1});
  auto text = site("'tp.quantize' at t.mlir:2:1");
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &dx.memref);
  _mlir_ciface_tp_rt_quantize(&ctx, &text.memref, TP_RT_PER_TENSOR);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.quantize' at t.mlir:2:1: runs on the host, so a step with "
            "it cannot be captured in a CUDA graph");
}

TEST_F(ABIRank, AMatmulIntoItsOwnOperandIsRight) {
  // C = A @ B written over A (2x2): the CPU backend must not read A after
  // writing C.
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  Descriptor da(a.data(), {2, 2}, {2, 1}), db(b.data(), {2, 2}, {2, 1});
  auto text = site("'tp.matmul' at t.mlir:1:1");
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &da.memref);
  _mlir_ciface_tp_rt_matmul(&ctx, &text.memref, /*transposeB=*/0);
  ASSERT_TRUE(ctx.error.isOk()) << ctx.error.message();
  EXPECT_EQ(a, (std::vector<float>{19, 22, 43, 50}));
}

TEST_F(ABIRank, AWrongResultBufferFailsTheOpAndLaterCallsAreIgnored) {
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, out(3, 0);
  Descriptor da(a.data(), {2, 2}, {2, 1}), db(b.data(), {2, 2}, {2, 1});
  Descriptor dout(out.data(), {1, 3}, {3, 1});
  auto text = site("'tp.matmul' at t.mlir:2:3");
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_matmul(&ctx, &text.memref, 0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.matmul' at t.mlir:2:3: result 0 is tensor<2x2xf32> but the "
            "program expects tensor<1x3xf32>");
  EXPECT_TRUE(world.failed());
  EXPECT_STREQ(tpRtContextError(&ctx), ctx.error.message().c_str());

  // A later op does nothing but zero its result buffer, so the glue that
  // still runs reads zeros, not uninitialized memory.
  std::vector<float> later(4, -1);
  Descriptor dlater(later.data(), {2, 2}, {2, 1});
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dlater.memref);
  _mlir_ciface_tp_rt_matmul(&ctx, &text.memref, 0);
  EXPECT_EQ(later, (std::vector<float>(4, 0)));
  EXPECT_TRUE(ctx.staged.empty());
}

TEST_F(ABIRank, AMissingOperandOrAnUnknownScalingFailsTheOp) {
  std::vector<float> a = {1, 2, 3, 4}, out(4, 7);
  Descriptor da(a.data(), {2, 2}, {2, 1}), dout(out.data(), {2, 2}, {2, 1});
  auto text = site("'tp.matmul' at t.mlir:3:1");
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_matmul(&ctx, &text.memref, 0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(), "'tp.matmul' at t.mlir:3:1: no buffer of "
                                 "role 3 (index 0) was staged");
  EXPECT_EQ(out, (std::vector<float>(4, 0)));

  World other(1, std::chrono::milliseconds(5000));
  std::unique_ptr<Backend> backend2 = createCpuBackend(other, 0);
  TPRtContext fresh(*backend2, other, 0);
  auto quantizeSite = site("'tp.quantize' at t.mlir:4:1");
  _mlir_ciface_tp_rt_buffer_f32(&fresh, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_quantize(&fresh, &quantizeSite.memref, 9);
  ASSERT_FALSE(fresh.error.isOk());
  EXPECT_EQ(fresh.error.message(),
            "'tp.quantize' at t.mlir:4:1: unknown scaling code 9");
  EXPECT_STREQ(tpRtContextError(nullptr),
               "no context (tpRtRunContext returned null)");
}

TEST_F(ABIRank, ABiasOfTheWrongLengthFailsTheFusedOp) {
  std::vector<float> a(4, 1), b(4, 1), bias(3, 0), out(4, 0);
  Descriptor da(a.data(), {2, 2}, {2, 1}), db(b.data(), {2, 2}, {2, 1});
  Descriptor dbias(bias.data(), {3}, {1}), dout(out.data(), {2, 2}, {2, 1});
  auto text = site("'tp.all_gather_matmul' at t.mlir:4:5");
  Constant<int64_t> grid({1}), axes({0});
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_BIAS, 0, &dbias.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_all_gather_matmul(&ctx, &text.memref, &grid.memref,
                                       &axes.memref, 0, -1, 0, 0, 0, 0, 0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.all_gather_matmul' at t.mlir:4:5: bias tensor<3xf32> does "
            "not have the product's 2 columns");
}

TEST_F(ABIRank, AGridThatDoesNotSpanTheRunFailsTheOp) {
  auto text = site("'tp.group_rank' at t.mlir:5:1");
  Constant<int64_t> grid({2, 2}), axes({1});
  EXPECT_EQ(_mlir_ciface_tp_rt_group_rank(&ctx, &text.memref, &grid.memref,
                                          &axes.memref),
            0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(), "'tp.group_rank' at t.mlir:5:1: the grid "
                                 "has 4 ranks but the run has 1");
}

TEST(ABIRun, TwoRanksGatherThroughTheDriverAPI) {
  EXPECT_EQ(tpRtRunCreate(0, 1000), nullptr);
  TPRtRun *run = tpRtRunCreate(2, 5000);
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(tpRtRunContext(run, 2), nullptr);
  std::vector<std::vector<float>> inputs = {{1, 2}, {3, 4}};
  std::vector<std::vector<float>> outputs(2, std::vector<float>(4, 0));
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      TPRtContext *ctx = tpRtRunContext(run, r);
      Descriptor in(inputs[r].data(), {1, 2}, {2, 1});
      Descriptor out(outputs[r].data(), {2, 2}, {2, 1});
      auto text = site("'tp.all_gather' at t.mlir:6:1");
      Constant<int64_t> grid({2}), axes({0});
      _mlir_ciface_tp_rt_buffer_f32(ctx, TP_RT_ROLE_INPUT, 0, &in.memref);
      _mlir_ciface_tp_rt_buffer_f32(ctx, TP_RT_ROLE_RESULT, 0, &out.memref);
      _mlir_ciface_tp_rt_all_gather(ctx, &text.memref, &grid.memref,
                                    &axes.memref, 0);
    });
  for (std::thread &t : threads)
    t.join();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(tpRtContextError(tpRtRunContext(run, r)), nullptr);
    EXPECT_EQ(outputs[r], (std::vector<float>{1, 2, 3, 4}));
  }
  tpRtRunDestroy(run);
}

/// [2, 2] per rank, split on 1 and concatenated on 0: rank r gets column r
/// of both ranks, stacked. An odd split dim fails the op with its site.
TEST(ABIRun, TheCpuBackendCopiesNothingToADevice) {
  TPRtRun *run = tpRtRunCreate(2, 1000);
  ASSERT_NE(run, nullptr);
  int64_t in = -1, out = -1;
  tpRtContextHostTransfers(tpRtRunContext(run, 0), &in, &out);
  EXPECT_EQ(in, 0);
  EXPECT_EQ(out, 0);
  // A null context (an out-of-range rank) reads as nothing copied; null
  // outputs are skipped.
  in = out = -1;
  tpRtContextHostTransfers(tpRtRunContext(run, 5), &in, &out);
  EXPECT_EQ(in, 0);
  EXPECT_EQ(out, 0);
  tpRtContextHostTransfers(tpRtRunContext(run, 0), nullptr, nullptr);
  tpRtRunDestroy(run);
}

TEST(ABIRun, TwoRanksExchangeBlocksThroughAllToAll) {
  TPRtRun *run = tpRtRunCreate(2, 5000);
  ASSERT_NE(run, nullptr);
  std::vector<std::vector<float>> inputs = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  std::vector<std::vector<float>> outputs(2, std::vector<float>(4, 0));
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      TPRtContext *ctx = tpRtRunContext(run, r);
      Descriptor in(inputs[r].data(), {2, 2}, {2, 1});
      Descriptor out(outputs[r].data(), {4, 1}, {1, 1});
      auto text = site("'tp.all_to_all' at t.mlir:7:1");
      Constant<int64_t> grid({2}), axes({0});
      _mlir_ciface_tp_rt_buffer_f32(ctx, TP_RT_ROLE_INPUT, 0, &in.memref);
      _mlir_ciface_tp_rt_buffer_f32(ctx, TP_RT_ROLE_RESULT, 0, &out.memref);
      _mlir_ciface_tp_rt_all_to_all(ctx, &text.memref, &grid.memref,
                                    &axes.memref, 1, 0);
    });
  for (std::thread &t : threads)
    t.join();
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(tpRtContextError(tpRtRunContext(run, r)), nullptr);
  EXPECT_EQ(outputs[0], (std::vector<float>{1, 3, 5, 7}));
  EXPECT_EQ(outputs[1], (std::vector<float>{2, 4, 6, 8}));
  tpRtRunDestroy(run);
}

TEST_F(ABIRank, AnIndivisibleAllToAllFailsTheOp) {
  std::vector<float> a(3, 1), out(3, 0);
  Descriptor da(a.data(), {3}, {1}), dout(out.data(), {3}, {1});
  auto text = site("'tp.all_to_all' at t.mlir:8:3");
  Constant<int64_t> grid({1}), axes({0});
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_all_to_all(&ctx, &text.memref, &grid.memref,
                                &axes.memref, 1, 0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(), "'tp.all_to_all' at t.mlir:8:3: split dim 1 "
                                 "is out of range for tensor<3xf32>");
}

TEST_F(ABIRank, UnknownEnumCodesFailTheOp) {
  std::vector<float> a(2, 1), out(2, 0);
  Descriptor da(a.data(), {2}, {1}), dout(out.data(), {2}, {1});
  Constant<int64_t> grid({1}), axes({0});
  auto reduce = site("'tp.all_reduce' at t.mlir:9:3");
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_all_reduce(&ctx, &reduce.memref, &grid.memref,
                                &axes.memref, 7);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.all_reduce' at t.mlir:9:3: unknown reduction code 7 (the "
            "runtime knows 0 sum, 1 avg, 2 max, 3 min)");
}

TEST_F(ABIRank, UnknownAlgorithmCodesFailTheFusedOp) {
  std::vector<float> a(4, 1), b(4, 1), out(4, 0);
  Descriptor da(a.data(), {2, 2}, {2, 1}), db(b.data(), {2, 2}, {2, 1});
  Descriptor dout(out.data(), {2, 2}, {2, 1});
  auto text = site("'tp.all_gather_matmul' at t.mlir:6:5");
  Constant<int64_t> grid({1}), axes({0});
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_all_gather_matmul(&ctx, &text.memref, &grid.memref,
                                       &axes.memref, 0, -1, 0, 0, 3, 0, 0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.all_gather_matmul' at t.mlir:6:5: unknown algorithm code 3 "
            "(the runtime knows 0 per_peer, 1 ring, 2 coalesced)");
}

// An all-to-all exchange hands each peer a different block: no ring passes
// them on, whatever the compiled code asks for.
TEST_F(ABIRank, AllToAllMatmulRefusesTheRing) {
  std::vector<float> a(4, 1), b(4, 1), out(4, 0);
  Descriptor da(a.data(), {2, 2}, {2, 1}), db(b.data(), {2, 2}, {2, 1});
  Descriptor dout(out.data(), {2, 2}, {2, 1});
  auto text = site("'tp.all_to_all_matmul' at t.mlir:7:5");
  Constant<int64_t> grid({1}), axes({0});
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_all_to_all_matmul(&ctx, &text.memref, &grid.memref,
                                       &axes.memref, 1, 0, 0, 0, 1, 0, 0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.all_to_all_matmul' at t.mlir:7:5: an all-to-all exchange "
            "cannot run the ring schedule: each member takes a different "
            "block (use per_peer or coalesced)");
}

// One B per batch needs the blocks stacked along the rows: here they stack
// along the batch (concat 0).
TEST_F(ABIRank, AllToAllMatmulRefusesAPerBatchBTheBlocksDoNotFit) {
  std::vector<float> a(8, 1), b(8, 1), out(8, 0);
  Descriptor da(a.data(), {2, 2, 2}, {4, 2, 1});
  Descriptor db(b.data(), {2, 2, 2}, {4, 2, 1});
  Descriptor dout(out.data(), {2, 2, 2}, {4, 2, 1});
  auto text = site("'tp.all_to_all_matmul' at t.mlir:8:5");
  Constant<int64_t> grid({1}), axes({0});
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_all_to_all_matmul(&ctx, &text.memref, &grid.memref,
                                       &axes.memref, 1, 0, 0, 0, 0, 0, 0);
  ASSERT_FALSE(ctx.error.isOk());
  EXPECT_EQ(ctx.error.message(),
            "'tp.all_to_all_matmul' at t.mlir:8:5: B #0 tensor<2x2x2xf32> is "
            "per batch, which needs the blocks stacked along the rows (concat "
            "1) and B's leading dims equal to the exchanged A's");
}

// The producer side refuses the ring too, and a per-batch B whose blocks
// are not cut along the rows (each block would need every B).
static std::string matmulAllToAllError(TPRtContext &ctx, const char *where,
                                       int64_t split, int32_t algorithm) {
  std::vector<float> a(8, 1), b(8, 1), out(8, 0);
  Descriptor da(a.data(), {2, 2, 2}, {4, 2, 1});
  Descriptor db(b.data(), {2, 2, 2}, {4, 2, 1});
  Descriptor dout(out.data(), {2, 2, 2}, {4, 2, 1});
  Constant<int64_t> grid({1}), axes({0});
  auto text = site(where);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_INPUT, 0, &da.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_WEIGHT, 0, &db.memref);
  _mlir_ciface_tp_rt_buffer_f32(&ctx, TP_RT_ROLE_RESULT, 0, &dout.memref);
  _mlir_ciface_tp_rt_matmul_all_to_all(&ctx, &text.memref, &grid.memref,
                                       &axes.memref, split, 0, 0, 0, algorithm,
                                       0, 0);
  return ctx.error.isOk() ? "" : ctx.error.message();
}

TEST_F(ABIRank, MatmulAllToAllRefusesTheRing) {
  EXPECT_EQ(matmulAllToAllError(ctx, "'tp.matmul_all_to_all' at t.mlir:9:5",
                                /*split=*/1, /*algorithm=*/1),
            "'tp.matmul_all_to_all' at t.mlir:9:5: an all-to-all exchange "
            "cannot run the ring schedule: each member takes a different "
            "block (use per_peer or coalesced)");
}

TEST_F(ABIRank, MatmulAllToAllRefusesBlocksAcrossBatches) {
  EXPECT_EQ(matmulAllToAllError(ctx, "'tp.matmul_all_to_all' at t.mlir:10:5",
                                /*split=*/0, /*algorithm=*/0),
            "'tp.matmul_all_to_all' at t.mlir:10:5: B tensor<2x2x2xf32> is "
            "per batch, which needs the blocks cut along the rows (split 1) "
            "and B's leading dims equal to A's tensor<2x2x2xf32>");
}

/// Stands for a CUDA graph capture's arena: hands out slots of `pool`.
struct FakeArena {
  alignas(256) char pool[1024];
  size_t used = 0;
  std::vector<size_t> alignments;
  int released = 0;
};

// While hooks are set (a CUDA graph capture), compiled code's allocations go
// to them and frees of what they made are theirs; other frees, and every
// allocation once the hooks are gone, go to malloc and free.
TEST(ABIAlloc, HooksTakeTheThreadsAllocationsWhileSet) {
  FakeArena arena;
  mlir::tp::rt::abi::AllocationHooks hooks;
  hooks.state = &arena;
  hooks.allocate = [](void *state, size_t alignment, size_t size) -> void * {
    auto *a = static_cast<FakeArena *>(state);
    a->alignments.push_back(alignment);
    void *slot = a->pool + a->used;
    a->used += (size + 255) / 256 * 256;
    return slot;
  };
  hooks.release = [](void *state, void *ptr) {
    auto *a = static_cast<FakeArena *>(state);
    bool mine = ptr >= static_cast<void *>(a->pool) &&
                ptr < static_cast<void *>(a->pool + sizeof(a->pool));
    a->released += mine;
    return mine;
  };
  void *before = _mlir_memref_to_llvm_alloc(16);
  mlir::tp::rt::abi::setAllocationHooks(&hooks);
  void *plain = _mlir_memref_to_llvm_alloc(100);
  void *aligned = _mlir_memref_to_llvm_aligned_alloc(64, 10);
  EXPECT_EQ(plain, arena.pool);
  EXPECT_EQ(aligned, arena.pool + 256);
  EXPECT_EQ(arena.alignments.size(), 2u);
  EXPECT_EQ(arena.alignments[1], 64u);
  _mlir_memref_to_llvm_free(plain);
  _mlir_memref_to_llvm_free(before); // not the arena's: freed
  EXPECT_EQ(arena.released, 1);
  mlir::tp::rt::abi::setAllocationHooks(nullptr);
  void *after = _mlir_memref_to_llvm_alloc(16);
  EXPECT_FALSE(after >= static_cast<void *>(arena.pool) &&
               after < static_cast<void *>(arena.pool + sizeof(arena.pool)));
  _mlir_memref_to_llvm_free(after);
  EXPECT_EQ(arena.used, 512u);
}

} // namespace

#ifdef __GLIBC__
// Defined when AddressSanitizer's runtime is linked in: its allocator
// replaces glibc's and ignores mallopt.
extern "C" __attribute__((weak)) void __asan_init();

// Each op's results and workspaces must not be fresh pages from the kernel
// every time: tp-run keeps freed buffers (up to 32 MiB) in the process.
TEST(ABIAlloc, FreedBuffersStayInTheProcess) {
  if (&__asan_init)
    GTEST_SKIP() << "AddressSanitizer's allocator ignores mallopt";
  mlir::tp::rt::abi::keepFreedMemory();
  constexpr size_t size = size_t(24) << 20;
  size_t mappedBefore = mallinfo2().hblkhd;
  void *buffer = std::malloc(size);
  ASSERT_NE(buffer, nullptr);
  std::memset(buffer, 1, size);
  EXPECT_LT(mallinfo2().hblkhd, mappedBefore + size)
      << "a 24 MiB buffer was mapped on its own";
  std::free(buffer);
  EXPECT_GE(mallinfo2().fordblks, size) << "the freed buffer was given back";
}
#endif
