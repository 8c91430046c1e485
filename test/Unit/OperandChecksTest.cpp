//===- OperandChecksTest.cpp - run-time shapes against the ops' rules -----===//

#include "OperandChecks.h"

#include <gtest/gtest.h>

using namespace mlir::tp::rt;

TEST(OperandChecksTest, Matmul) {
  Tensor a(DType::F32, {4, 8}), b(DType::F32, {8, 3}), bt(DType::F32, {3, 8});
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmul(a, b, false), "");
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmul(a, bt, true), "");
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmul(a, bt, false),
            "contraction dims differ: tensor<4x8xf32> has K = 8, "
            "tensor<3x8xf32> has K = 3");
  Tensor a3(DType::F32, {2, 4, 8}), b3(DType::F32, {3, 8, 5});
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmul(a3, b3, false),
            "batch dim 0 differs: tensor<2x4x8xf32> and tensor<3x8x5xf32>");
  Tensor b1(DType::F32, {8});
  EXPECT_NE(mlir::tp::rt::abi::checkMatmul(a3, b1, false), "");
}

TEST(OperandChecksTest, ScaledOperandsNeedFittingScales) {
  Tensor a(DType::F8E4M3FN, {4, 16}), b(DType::F8E4M3FN, {8, 16});
  Tensor rows4(DType::F32, {4, 1}), rows3(DType::F32, {3, 1}),
      rows8(DType::F32, {8, 1});
  Operand qa = Operand::plain(&a), qb = Operand::plain(&b);
  qa.scaling = qb.scaling = Scaling::RowWise;
  qa.scale = &rows4;
  qb.scale = &rows8;
  EXPECT_EQ(mlir::tp::rt::abi::checkScaledMatmul(qa, qb), "");
  qa.scale = &rows3;
  EXPECT_EQ(mlir::tp::rt::abi::checkScaledMatmul(qa, qb),
            "A tensor<4x16xf8E4M3FN>: row_wise scale shape mismatch: expected "
            "[4, 1] for data of shape [4, 16], got [3, 1]");
}

TEST(OperandChecksTest, MatmulReduceScatter) {
  Tensor a(DType::F32, {4, 8}), b(DType::F32, {8, 6}),
      addend(DType::F32, {4, 6}), wrongAddend(DType::F32, {2, 6}),
      bias(DType::F32, {6}), wrongBias(DType::F32, {5});
  MatmulReduceScatterArgs args;
  args.a = Operand::plain(&a);
  args.b = Operand::plain(&b);
  args.addend = &addend;
  args.bias = &bias;
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmulReduceScatter(args, 2), "");
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmulReduceScatter(args, 3),
            "the product's dim 0 (4) is not divisible by the group size 3");
  args.addend = &wrongAddend;
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmulReduceScatter(args, 2),
            "addend tensor<2x6xf32> does not have the product's shape "
            "tensor<4x6xf32>");
  args.addend = nullptr;
  args.bias = &wrongBias;
  EXPECT_EQ(mlir::tp::rt::abi::checkMatmulReduceScatter(args, 2),
            "bias tensor<5xf32> does not have the product's 6 columns");
}

TEST(OperandChecksTest, AllGatherMatmulContractsTheGatheredK) {
  Tensor a(DType::F32, {2, 4}), b(DType::F32, {8, 3}), b4(DType::F32, {4, 3});
  AllGatherMatmulArgs args;
  args.a = Operand::plain(&a);
  args.bs = {Operand::plain(&b4)};
  args.biases = {nullptr};
  args.dim = 0;
  EXPECT_EQ(mlir::tp::rt::abi::checkAllGatherMatmul(args, 2), "");
  // Gathering the last dim gathers K: 4 per rank, 8 in all.
  args.dim = 1;
  EXPECT_EQ(mlir::tp::rt::abi::checkAllGatherMatmul(args, 2),
            "contraction dims differ: the gathered A has K = 8, "
            "tensor<4x3xf32> has K = 4");
  args.bs = {Operand::plain(&b)};
  EXPECT_EQ(mlir::tp::rt::abi::checkAllGatherMatmul(args, 2), "");
  args.dim = 2;
  EXPECT_EQ(mlir::tp::rt::abi::checkAllGatherMatmul(args, 2),
            "dim 2 is out of range for tensor<2x4xf32>");
}

TEST(OperandChecksTest, AllToAll) {
  Tensor x(DType::F32, {4, 6});
  EXPECT_EQ(mlir::tp::rt::abi::checkAllToAll(x, 0, 1, 2), "");
  EXPECT_EQ(mlir::tp::rt::abi::checkAllToAll(x, 1, 1, 3), "");
  EXPECT_EQ(mlir::tp::rt::abi::checkAllToAll(x, 0, 1, 3),
            "the split dim 0 of tensor<4x6xf32> (4) is not divisible by the "
            "group size 3");
  EXPECT_EQ(mlir::tp::rt::abi::checkAllToAll(x, 2, 0, 2),
            "split dim 2 is out of range for tensor<4x6xf32>");
  EXPECT_EQ(mlir::tp::rt::abi::checkAllToAll(x, 0, -1, 2),
            "concat dim -1 is out of range for tensor<4x6xf32>");
}
