//===- CudaPlanTest.cpp - the CUDA backend's host-side decisions ----------===//
//
// What the CUDA backend decides before calling CUDA (lib/Runtime/Cuda/
// CudaPlan.h): checked here, on machines without a GPU, so the first GPU run
// does not find these mistakes.
//
//===----------------------------------------------------------------------===//

#include "CudaPlan.h"
#include "tp/Runtime/Backend.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <numeric>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

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

//===----------------------------------------------------------------------===//
// all_gather_contract
//===----------------------------------------------------------------------===//

/// What LtGemm computes for `q` on row-major host matrices:
/// D[m, n] += op(A)[m, k] @ op(B)[k, n].
void hostGemm(const ContractGemm &q, const std::vector<double> &a,
              const std::vector<double> &b, std::vector<double> &d) {
  for (int64_t i = 0; i < q.m; ++i)
    for (int64_t j = 0; j < q.n; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < q.k; ++k) {
        double x = q.transposeA ? a[q.offsetA + k * q.lda + i]
                                : a[q.offsetA + i * q.lda + k];
        double y = q.transposeB ? b[q.offsetB + j * q.ldb + k]
                                : b[q.offsetB + k * q.ldb + j];
        sum += x * y;
      }
      d[i * q.ldd + j] += sum;
    }
}

std::vector<double> iota(int64_t count, double start) {
  std::vector<double> v(count);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(CudaPlanTest, ContractRunOfKTrailingTimesKLeading) {
  // A [M=3, K=10] times B [K=10, N=4], K range [2, 7).
  ContractView lhs{false, 10, 3}, rhs{true, 10, 4};
  ContractGemm q = contractRunGemm(lhs, rhs, 2, 7);
  EXPECT_EQ(q.m, 3);
  EXPECT_EQ(q.n, 4);
  EXPECT_EQ(q.k, 5);
  EXPECT_FALSE(q.transposeA);
  EXPECT_FALSE(q.transposeB);
  EXPECT_EQ(q.lda, 10);
  EXPECT_EQ(q.ldb, 4);
  EXPECT_EQ(q.ldd, 4);
  EXPECT_EQ(q.offsetA, 2);     // two columns in
  EXPECT_EQ(q.offsetB, 2 * 4); // two rows in
}

TEST(CudaPlanTest, ContractRunOfKLeadingTimesKTrailing) {
  // A stored [K=10, M=3] (transpose_a), B stored [N=4, K=10] (transpose_b).
  ContractView lhs{true, 10, 3}, rhs{false, 10, 4};
  ContractGemm q = contractRunGemm(lhs, rhs, 6, 10);
  EXPECT_EQ(q.k, 4);
  EXPECT_TRUE(q.transposeA);
  EXPECT_TRUE(q.transposeB);
  EXPECT_EQ(q.lda, 3);
  EXPECT_EQ(q.ldb, 10);
  EXPECT_EQ(q.offsetA, 6 * 3);
  EXPECT_EQ(q.offsetB, 6);
}

/// Plans x (per rank) against `other` and checks that the GEMMs of every
/// rank's pieces' K runs add up to the whole product.
void checkRunsAddUp(const std::vector<int64_t> &xShape,
                    const std::vector<int64_t> &otherShape, int64_t dim,
                    bool gatheredLhs, bool transposeA, bool transposeB,
                    int groupSize, int chunks) {
  SCOPED_TRACE("x dim " + std::to_string(dim) + " lhs " +
               std::to_string(gatheredLhs) + " chunks " +
               std::to_string(chunks));
  Tensor x(DType::F32, xShape), other(DType::F32, otherShape);
  AllGatherContractArgs args;
  args.x = &x;
  args.others = {&other};
  args.dim = dim;
  args.gatheredLhs = gatheredLhs;
  args.transposeA = transposeA;
  args.transposeB = transposeB;
  args.site = "agc";
  ContractPlan plan;
  Status planned = planContract(args, groupSize, plan);
  ASSERT_TRUE(planned.isOk()) << planned.message();
  const ContractView &lhs = gatheredLhs ? plan.x : plan.others[0];
  const ContractView &rhs = gatheredLhs ? plan.others[0] : plan.x;
  std::vector<double> l = iota(lhs.k * lhs.free, 1),
                      r = iota(rhs.k * rhs.free, -7);
  int64_t m = plan.m[0], n = plan.n[0];
  std::vector<double> whole(m * n, 0.0), pieces(m * n, 0.0);
  hostGemm(contractRunGemm(lhs, rhs, 0, lhs.k), l, r, whole);
  std::vector<int> covered(plan.x.k, 0);
  for (int origin = 0; origin < groupSize; ++origin)
    for (int j = 0; j < chunks; ++j) {
      auto [lo, hi] = Schedule::pieceRange(plan.shardExtent, chunks, j);
      for (auto [k0, k1] : plan.runs(origin, lo, hi)) {
        for (int64_t k = k0; k < k1; ++k)
          ++covered[k];
        hostGemm(contractRunGemm(lhs, rhs, k0, k1), l, r, pieces);
      }
    }
  EXPECT_EQ(covered, std::vector<int>(plan.x.k, 1));
  EXPECT_EQ(pieces, whole);
}

TEST(CudaPlanTest, ContractRunsOfEveryPieceAddUpToTheProduct) {
  // Weight gradient of a sequence-parallel layer: x [B, S/N, H] gathered
  // along S, K = B * S, dW = x^T @ dy.
  checkRunsAddUp({2, 3, 4}, {2, 6, 5}, 1, true, true, false, 2, 2);
  checkRunsAddUp({2, 3, 4}, {2, 6, 5}, 1, true, true, false, 2, 3);
  // Gathered along the batch: one run per piece.
  checkRunsAddUp({3, 2, 4}, {6, 2, 5}, 0, true, true, false, 2, 3);
  // x on the right: dW^T = dy^T @ x.
  checkRunsAddUp({2, 3, 4}, {2, 6, 5}, 1, false, true, false, 2, 1);
  // K-trailing x [M, K/N] against a transposed B [N, K].
  checkRunsAddUp({4, 3}, {5, 9}, 1, true, false, true, 3, 2);
  checkRunsAddUp({4, 3}, {5, 9}, 1, false, false, true, 3, 3);
}

TEST(CudaPlanTest, CoalescedPartialsAreOneGemmPerRunWhereRowsStayTogether) {
  // Member 1 of 4, remote slices in one GEMM: slices 2, 3 and 0, which are
  // rows [8, 16) and [0, 4) of the workspace (share 4).
  std::vector<GemmStep> plan =
      planScatter(4, 1, {Schedule::Algorithm::Coalesced, 1}, 4);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(partialGemms(plan[0], 4, /*rowsTogether=*/true),
            (std::vector<PartialGemm>{{0, 0, 4}, {0, 8, 16}}));
  // An N split (or several outer blocks): one GEMM per slice.
  EXPECT_EQ(partialGemms(plan[0], 4, /*rowsTogether=*/false),
            (std::vector<PartialGemm>{{2, 0, 4}, {3, 0, 4}, {0, 0, 4}}));
  EXPECT_EQ(partialGemms(plan[1], 4, true),
            (std::vector<PartialGemm>{{0, 4, 8}}));
  // Per_peer pieces stay pieces: piece 1 of 2 of slice 2.
  std::vector<GemmStep> perPeer =
      planScatter(4, 1, {Schedule::Algorithm::PerPeer, 2}, 4);
  EXPECT_EQ(partialGemms(perPeer[1], 4, true),
            (std::vector<PartialGemm>{{0, 10, 12}}));
  EXPECT_EQ(partialGemms(perPeer[1], 4, false),
            (std::vector<PartialGemm>{{2, 2, 4}}));
}

TEST(CudaPlanTest, ConcurrentStepsOnlyWhereTheyWriteApart) {
  Schedule perPeer{Schedule::Algorithm::PerPeer, 2};
  perPeer.streams = 2;
  EXPECT_EQ(pieceStreamCount(perPeer, 16, /*serial=*/false), 2);
  // A K-split gather or a weight gradient adds every step into one result;
  // scaled GEMMs' fallbacks share a workspace.
  EXPECT_EQ(pieceStreamCount(perPeer, 16, /*serial=*/true), 1);
  // No more streams than steps, nor than kMaxPieceStreams.
  EXPECT_EQ(pieceStreamCount(perPeer, 1, false), 1);
  perPeer.streams = 64;
  EXPECT_EQ(pieceStreamCount(perPeer, 16, false), kMaxPieceStreams);
  // Coalesced steps wait for one another.
  Schedule coalesced{Schedule::Algorithm::Coalesced, 2};
  coalesced.streams = 2;
  EXPECT_EQ(pieceStreamCount(coalesced, 3, false), 1);
  Schedule ring{Schedule::Algorithm::Ring, 1};
  EXPECT_EQ(pieceStreamCount(ring, 8, false), 1);
}

TEST(CudaPlanTest, ContractAccumulatesWide) {
  DType acc = DType::I32;
  for (DType type : {DType::F32, DType::BF16, DType::F16}) {
    ASSERT_TRUE(contractAccumulator(type, "agc", acc).isOk());
    EXPECT_EQ(acc, DType::F32);
  }
  ASSERT_TRUE(contractAccumulator(DType::F64, "agc", acc).isOk());
  EXPECT_EQ(acc, DType::F64);
  Status s = contractAccumulator(DType::F8E4M3FN, "agc", acc);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "agc: the CUDA backend contracts f32, f64, f16 and "
                         "bf16 operands, not " +
                             std::string(name(DType::F8E4M3FN)));
}

} // namespace

//===----------------------------------------------------------------------===//
// All-to-all blocks
//===----------------------------------------------------------------------===//

namespace {
/// cudaMemcpy2D on host memory.
void copy2D(const StridedCopy &c, const uint8_t *src, uint8_t *dst) {
  for (int64_t r = 0; r < c.rows; ++r)
    std::memcpy(dst + c.dst + r * c.dstPitch, src + c.src + r * c.srcPitch,
                c.width);
}
} // namespace

// The device packing (one 2-D copy per block) lays the blocks out exactly as
// the CPU backend packs them, for every split dim of 2- to 4-D tensors.
TEST(CudaPlanTest, PackedBlocksMatchTheCpuPacking) {
  const std::vector<std::vector<int64_t>> shapes = {
      {4, 6}, {8, 3}, {2, 4, 6}, {3, 8, 2}, {2, 2, 4, 4}};
  for (const std::vector<int64_t> &shape : shapes)
    for (int64_t split = 0; split < static_cast<int64_t>(shape.size()); ++split)
      for (int g : {1, 2, 4})
        for (DType dtype : {DType::F32, DType::BF16}) {
          if (shape[split] % g != 0)
            continue;
          Tensor input(dtype, shape);
          auto *bytes = static_cast<uint8_t *>(input.mutableData());
          for (size_t i = 0; i < input.numBytes(); ++i)
            bytes[i] = static_cast<uint8_t>(i * 7 + 3);
          Tensor packed;
          std::vector<int64_t> blockShape;
          ASSERT_TRUE(
              packAllToAllBlocks(input, split, g, "test", packed, blockShape)
                  .isOk());
          int64_t outer = 1, inner = 1;
          for (int64_t d = 0; d < split; ++d)
            outer *= shape[d];
          for (size_t d = split + 1; d < shape.size(); ++d)
            inner *= shape[d];
          std::vector<uint8_t> device(input.numBytes(), 0);
          for (const StridedCopy &c :
               packBlockCopies(outer, shape[split], inner, byteSize(dtype), g))
            copy2D(c, bytes, device.data());
          EXPECT_EQ(0, std::memcmp(device.data(), packed.data(), device.size()))
              << "split " << split << " over " << g << " ranks of "
              << input.typeString();
        }
}

// The pieces an all-to-all sends member `to` cover its block exactly, in
// order, and nothing of any other member's block.
TEST(CudaPlanTest, ExchangeSendPiecesCoverTheDestinationsBlock) {
  const int64_t outer = 3, extL = 5;
  const size_t slab = 8, blockBytes = outer * extL * slab;
  for (int to = 0; to < 4; ++to)
    for (int chunks : {1, 2, 5}) {
      std::vector<int> covered(4 * blockBytes, 0);
      for (int j = 0; j < chunks; ++j) {
        auto [lo, hi] = Schedule::pieceRange(extL, chunks, j);
        StridedCopy piece =
            exchangeSendPiece(blockBytes, to, extL, lo, hi, slab, outer);
        for (int64_t r = 0; r < piece.rows; ++r)
          for (size_t b = 0; b < piece.width; ++b)
            ++covered[piece.src + r * piece.srcPitch + b];
      }
      for (size_t i = 0; i < covered.size(); ++i)
        EXPECT_EQ(covered[i], i / blockBytes == size_t(to) ? 1 : 0)
            << "byte " << i << " sending to " << to << " in " << chunks
            << " pieces";
    }
}
