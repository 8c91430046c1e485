//===- TensorTest.cpp - exact integers and checked allocation -------------===//

#include "tp/Runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

using namespace mlir::tp::rt;

TEST(TensorTest, IntegersAbove2To53StayExact) {
  Tensor t(DType::I64, {3});
  const int64_t values[] = {(int64_t(1) << 53) + 1, INT64_MAX, INT64_MIN + 1};
  for (int k = 0; k < 3; ++k)
    t.setInt(k, values[k]);
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(t.getInt(k), values[k]);
  // Through assignConverted to another integer type and back.
  Tensor copy(DType::I64, {3});
  copy.assignConverted(t);
  EXPECT_EQ(copy.getInt(0), values[0]);
}

TEST(TensorTest, NarrowingWrapsLikeATruncation) {
  Tensor wide(DType::I64, {2});
  wide.setInt(0, (int64_t(1) << 32) + 5);
  wide.setInt(1, -1);
  Tensor narrow(DType::I32, {2});
  narrow.assignConverted(wide);
  EXPECT_EQ(narrow.getInt(0), 5);
  EXPECT_EQ(narrow.getInt(1), -1);
  Tensor bits(DType::I1, {2});
  bits.assignConverted(wide);
  EXPECT_EQ(bits.getInt(0), 1);
}

TEST(TensorTest, FloatsConvertToIntegersClampedAndNanToZero) {
  Tensor f(DType::F64, {3});
  f.set(0, 1e300);
  f.set(1, -2.9);
  f.set(2, NAN);
  EXPECT_EQ(f.getInt(0), INT64_MAX);
  EXPECT_EQ(f.getInt(1), -2);
  EXPECT_EQ(f.getInt(2), 0);
}

TEST(TensorTest, AllocationFailuresAreErrors) {
  Tensor t;
  std::string error;
  EXPECT_FALSE(
      Tensor::tryAllocate(DType::F32, {INT64_C(1) << 40, 1 << 30}, t, error));
  EXPECT_EQ(error, "a tensor of this shape holds more bytes than int64 counts");
  EXPECT_FALSE(Tensor::tryAllocate(DType::F32, {-1}, t, error));
  ASSERT_TRUE(Tensor::tryAllocate(DType::F32, {2, 3}, t, error)) << error;
  EXPECT_EQ(t.numElements(), 6);
  EXPECT_EQ(t.get(5), 0.0);
}

TEST(TensorTest, ABorrowedViewIsCopiedOnItsFirstWrite) {
  std::vector<float> bytes = {1, 2, 3, 4};
  Tensor view = Tensor::borrow(DType::F32, {2, 2}, bytes.data());
  EXPECT_TRUE(view.isView());
  EXPECT_EQ(view.data(), bytes.data());
  EXPECT_EQ(view.get(3), 4);
  view.set(0, 9);
  EXPECT_FALSE(view.isView());
  EXPECT_NE(view.data(), bytes.data());
  EXPECT_EQ(view.get(0), 9);
  EXPECT_EQ(view.get(1), 2);
  EXPECT_EQ(bytes[0], 1) << "the viewed buffer must not change";
}

TEST(TensorTest, AWrappedBufferIsWrittenInPlaceWhileItHasOneHolder) {
  std::vector<float> bytes = {1, 2, 3, 4};
  Tensor view = Tensor::wrap(DType::F32, {4}, bytes.data());
  EXPECT_EQ(view.mutableData(), bytes.data());
  view.set(2, 7);
  EXPECT_EQ(bytes[2], 7);
  // A copy shares the bytes; writing either detaches the writer.
  Tensor copy = view;
  copy.set(0, 5);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(copy.get(0), 5);
  EXPECT_EQ(copy.get(2), 7);
}
