//===- CudaPlanTest.cpp - the CUDA backend's host-side decisions ----------===//
//
// What the CUDA backend decides before calling CUDA (lib/Runtime/Cuda/
// CudaPlan.h): checked here, on machines without a GPU, so the first GPU run
// does not find these mistakes.
//
//===----------------------------------------------------------------------===//

#include "CudaPlan.h"

#include <gtest/gtest.h>

#include <map>

using namespace tp::rt;
using namespace tp::rt::cuda;

namespace {

TEST(CudaPlanTest, AlignmentIsTheLargestPowerOfTwoUpTo256) {
  EXPECT_EQ(alignmentOf(uintptr_t(0)), 256);
  EXPECT_EQ(alignmentOf(uintptr_t(4096)), 256);
  EXPECT_EQ(alignmentOf(uintptr_t(4096 + 128)), 128);
  EXPECT_EQ(alignmentOf(uintptr_t(4096 + 16)), 16);
  EXPECT_EQ(alignmentOf(uintptr_t(4096 + 8)), 8);
  EXPECT_EQ(alignmentOf(uintptr_t(4096 + 6)), 2);
  EXPECT_EQ(alignmentOf(uintptr_t(4097)), 1);
}

TEST(CudaPlanTest, PieceOffsetsAreLessAlignedThanTheirBuffers) {
  // The pieces the fused ops hand cuBLASLt: a K piece of a bf16 gathered A
  // (ag_kdim: K pieces of 8 elements), an N-split column offset of an fp32
  // partial, a per-batch block. A 256-byte buffer does not make them 256.
  const uintptr_t buffer = 1u << 20;
  EXPECT_EQ(alignmentOf(buffer + 8 * 2), 16);       // bf16 K piece 1 of 8
  EXPECT_EQ(alignmentOf(buffer + 3 * 2), 2);        // bf16, 3 elements in
  EXPECT_EQ(alignmentOf(buffer + 12 * 4), 16);      // w + lo, lo = 12 (fp32)
  EXPECT_EQ(alignmentOf(buffer + 6 * 64 * 2), 256); // a whole 64-wide block
  EXPECT_EQ(alignmentOf(buffer + 5 * 40 * 2), 16);  // blocks of 40 bf16
}

TEST(CudaPlanTest, PreferencesTellCublasLtTheAlignmentsInItsOrder) {
  // cuBLASLt computes D^T = B^T A^T: our B is its A, our A its B.
  LtPreferences p = ltPreferences(/*alignA=*/8, /*alignB=*/32, /*alignD=*/4,
                                  /*workspaceBytes=*/32u << 20);
  EXPECT_EQ(p.maxWorkspaceBytes, 32u << 20);
  EXPECT_EQ(p.minAlignmentA, 32u);
  EXPECT_EQ(p.minAlignmentB, 8u);
  EXPECT_EQ(p.minAlignmentC, 4u);
  EXPECT_EQ(p.minAlignmentD, 4u);
  // None of them is left at the heuristic's 256-byte assumption.
  LtPreferences aligned = ltPreferences(256, 256, 256, 0);
  EXPECT_EQ(aligned.minAlignmentA, 256u);
  LtPreferences piece = ltPreferences(2, 256, 2, 0);
  EXPECT_EQ(piece.minAlignmentB, 2u);
  EXPECT_EQ(piece.minAlignmentD, 2u);
}

TEST(CudaPlanTest, Fp8NeedsSixteenByteMatrices) {
  EXPECT_TRUE(matrixPointersUsable(DType::F8E4M3FN, 16, 16, 16));
  EXPECT_TRUE(matrixPointersUsable(DType::F8E5M2, 256, 32, 16));
  EXPECT_FALSE(matrixPointersUsable(DType::F8E4M3FN, 8, 16, 16));
  EXPECT_FALSE(matrixPointersUsable(DType::F8E4M3FN, 16, 4, 16));
  EXPECT_FALSE(matrixPointersUsable(DType::F8E4M3FN, 16, 16, 8));
  // Other types ask the heuristic at any alignment.
  EXPECT_TRUE(matrixPointersUsable(DType::BF16, 2, 2, 2));
  EXPECT_TRUE(matrixPointersUsable(DType::F32, 4, 4, 4));
}

TEST(CudaPlanTest, Fp8BiasWithF32OutputIsAddedByAKernel) {
  EXPECT_EQ(biasRoute(false, DType::F8E4M3FN, DType::F32), BiasRoute::None);
  EXPECT_EQ(biasRoute(true, DType::F8E4M3FN, DType::F32), BiasRoute::Kernel);
  EXPECT_EQ(biasRoute(true, DType::F8E5M2, DType::F32), BiasRoute::Kernel);
  // A bf16 output takes a bf16 bias, which cuBLASLt's FP8 epilogue accepts.
  EXPECT_EQ(biasRoute(true, DType::F8E4M3FN, DType::BF16),
            BiasRoute::LtEpilogue);
  EXPECT_EQ(biasRoute(true, DType::BF16, DType::F32), BiasRoute::LtEpilogue);
  EXPECT_EQ(biasRoute(true, DType::BF16, DType::BF16), BiasRoute::LtEpilogue);
}

using Order = std::vector<ScaledPath>;

TEST(CudaPlanTest, ScaledGemmOrder) {
  EXPECT_EQ(scaledGemmOrder(Scaling::PerTensor, 4, 4),
            (Order{ScaledPath::Native, ScaledPath::Dequantize}));
  EXPECT_EQ(scaledGemmOrder(Scaling::RowWise, 16, 256),
            (Order{ScaledPath::Native, ScaledPath::UnitScaled,
                   ScaledPath::Dequantize}));
  // Native row-wise only on 16-byte aligned scale vectors.
  EXPECT_EQ(scaledGemmOrder(Scaling::RowWise, 4, 256),
            (Order{ScaledPath::UnitScaled, ScaledPath::Dequantize}));
  EXPECT_EQ(scaledGemmOrder(Scaling::RowWise, 256, 8),
            (Order{ScaledPath::UnitScaled, ScaledPath::Dequantize}));
  EXPECT_EQ(scaledGemmOrder(Scaling::MXFP8, 256, 256),
            (Order{ScaledPath::Dequantize}));
  EXPECT_EQ(scaledGemmOrder(Scaling::NVFP4, 256, 256),
            (Order{ScaledPath::Dequantize}));
}

/// Runs runFirstAccepted with per-path outcomes; records the paths tried
/// and the fallbacks noted.
struct FallbackRun {
  std::map<ScaledPath, Attempt> outcomes;
  std::vector<ScaledPath> tried;
  FallbackCounters counters;
  ScaledPath used = ScaledPath::Native;

  Status run(const Order &order) {
    return runFirstAccepted(
        order,
        [&](ScaledPath path, Status &error) {
          tried.push_back(path);
          Attempt outcome =
              outcomes.count(path) ? outcomes[path] : Attempt::Done;
          if (outcome != Attempt::Done)
            error = Status::error(std::string(name(path)) + " said no");
          return outcome;
        },
        [&](Fallback f) { counters.add(f); }, "scaled gemm", &used);
  }
};

TEST(CudaPlanTest, RowWiseFallsBackNativeThenUnitScaledThenDequantize) {
  Order order = scaledGemmOrder(Scaling::RowWise, 16, 16);
  {
    FallbackRun r;
    ASSERT_TRUE(r.run(order).isOk());
    EXPECT_EQ(r.tried, (Order{ScaledPath::Native}));
    EXPECT_EQ(r.counters.total(), 0u);
  }
  {
    // cublasLtMatmul refused the native scale pointers.
    FallbackRun r;
    r.outcomes[ScaledPath::Native] = Attempt::Refused;
    ASSERT_TRUE(r.run(order).isOk());
    EXPECT_EQ(r.tried, (Order{ScaledPath::Native, ScaledPath::UnitScaled}));
    EXPECT_EQ(r.used, ScaledPath::UnitScaled);
    EXPECT_EQ(r.counters[Fallback::RowWiseUnitScaled], 1u);
    EXPECT_EQ(r.counters[Fallback::Dequantized], 0u);
  }
  {
    FallbackRun r;
    r.outcomes[ScaledPath::Native] = Attempt::Refused;
    r.outcomes[ScaledPath::UnitScaled] = Attempt::Refused;
    ASSERT_TRUE(r.run(order).isOk());
    EXPECT_EQ(r.tried, order);
    EXPECT_EQ(r.used, ScaledPath::Dequantize);
    EXPECT_EQ(r.counters[Fallback::Dequantized], 1u);
    EXPECT_EQ(r.counters[Fallback::RowWiseUnitScaled], 0u);
  }
}

TEST(CudaPlanTest, UnalignedRowWiseScalesNeverTryNative) {
  FallbackRun r;
  ASSERT_TRUE(r.run(scaledGemmOrder(Scaling::RowWise, 4, 16)).isOk());
  EXPECT_EQ(r.tried, (Order{ScaledPath::UnitScaled}));
  EXPECT_EQ(r.counters[Fallback::RowWiseUnitScaled], 1u);
}

TEST(CudaPlanTest, PerTensorFallsBackToDequantize) {
  FallbackRun r;
  r.outcomes[ScaledPath::Native] = Attempt::Refused;
  ASSERT_TRUE(r.run(scaledGemmOrder(Scaling::PerTensor, 4, 4)).isOk());
  EXPECT_EQ(r.tried, (Order{ScaledPath::Native, ScaledPath::Dequantize}));
  EXPECT_EQ(r.counters[Fallback::Dequantized], 1u);
}

TEST(CudaPlanTest, BlockScalesDequantizeWithoutCountingAFallback) {
  // Dequantizing is their only path on Hopper, not a fallback.
  FallbackRun r;
  ASSERT_TRUE(r.run(scaledGemmOrder(Scaling::MXFP8, 256, 256)).isOk());
  EXPECT_EQ(r.counters.total(), 0u);
}

TEST(CudaPlanTest, AFailureStopsTheFallbacks) {
  FallbackRun r;
  r.outcomes[ScaledPath::Native] = Attempt::Failed;
  Status s = r.run(scaledGemmOrder(Scaling::RowWise, 16, 16));
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "native said no");
  EXPECT_EQ(r.tried, (Order{ScaledPath::Native}));
}

TEST(CudaPlanTest, EveryPathRefusedIsAnErrorNamingEach) {
  FallbackRun r;
  r.outcomes[ScaledPath::Native] = Attempt::Refused;
  r.outcomes[ScaledPath::Dequantize] = Attempt::Refused;
  Status s = r.run(scaledGemmOrder(Scaling::PerTensor, 4, 4));
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "scaled gemm: no way to run this scaled GEMM "
                         "(native: native said no; dequantize: dequantize "
                         "said no)");
}

TEST(CudaPlanTest, FallbackCountersSummaryListsEveryKind) {
  FallbackCounters c;
  EXPECT_EQ(c.summary(), "fp8_bias_kernel=0 row_wise_unit_scaled=0 "
                         "dequantized=0 not_supported_retry=0");
  c.add(Fallback::Fp8BiasKernel);
  c.add(Fallback::NotSupportedRetry);
  c.add(Fallback::NotSupportedRetry);
  EXPECT_EQ(c.summary(), "fp8_bias_kernel=1 row_wise_unit_scaled=0 "
                         "dequantized=0 not_supported_retry=2");
  EXPECT_EQ(c.total(), 3u);
}

TEST(CudaPlanTest, LoopbackReducesOnlyTypesItsKernelLoadsAndStores) {
  for (DType ok : {DType::F32, DType::F64, DType::F16, DType::BF16})
    EXPECT_TRUE(checkKernelReduction(ok, "rs").isOk()) << name(ok);
  for (DType bad : {DType::F8E4M3FN, DType::F8E5M2, DType::F8E8M0FNU,
                    DType::F4E2M1FN, DType::I1, DType::I32, DType::I64}) {
    Status s = checkKernelReduction(bad, "rs");
    ASSERT_FALSE(s.isOk()) << name(bad);
    EXPECT_EQ(s.message(), "rs: the loopback transport reduces f32, f64, f16 "
                           "and bf16, not " +
                               std::string(name(bad)));
  }
  EXPECT_FALSE(checkKernelOutput(DType::F8E4M3FN, "agm").isOk());
  EXPECT_FALSE(checkKernelOutput(DType::I32, "agm").isOk());
  EXPECT_TRUE(checkKernelOutput(DType::BF16, "agm").isOk());
}

TEST(CudaPlanTest, EveryStreamOwnsItsWorkspace) {
  WorkspaceOwners owners;
  int streams[8];
  bool fresh = false;
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(owners.slotOf(&streams[i], fresh), size_t(i));
    EXPECT_TRUE(fresh);
  }
  // The same stream always gets the same slot, and nothing new.
  for (int i = 7; i >= 0; --i) {
    EXPECT_EQ(owners.slotOf(&streams[i], fresh), size_t(i));
    EXPECT_FALSE(fresh);
  }
  EXPECT_EQ(owners.size(), 8u);
  // The default stream (a null handle) is a stream like any other.
  EXPECT_EQ(owners.slotOf(nullptr, fresh), 8u);
  EXPECT_TRUE(fresh);
}

TEST(CudaPlanTest, LateWriteSlotsStayPutUntilReleased) {
  LateWriteSlots<void *> slots;
  void **first = slots.acquire();
  EXPECT_EQ(*first, nullptr);
  std::vector<void **> more;
  for (int i = 0; i < 100; ++i)
    more.push_back(slots.acquire());
  // A late writer still finds the first slot where it was.
  int target;
  *first = &target;
  EXPECT_EQ(slots.pending(), 101u);
  slots.release(first);
  EXPECT_EQ(slots.pending(), 100u);
  slots.release(first); // twice is harmless
  EXPECT_EQ(slots.pending(), 100u);
  for (void **slot : more)
    slots.release(slot);
  EXPECT_EQ(slots.pending(), 0u);
}

} // namespace
