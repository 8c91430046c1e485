//===- CublasLtTest.cpp - cuBLASLt, opened on first use -------------------===//
//
// The CUDA backend opens cuBLASLt with dlopen (lib/Runtime/Cuda/CublasLt.h).
// Opening it needs no GPU, so this runs on every machine with the toolkit:
// the library is found from the build tree and has every function the
// backend calls.
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"

#include <gtest/gtest.h>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

namespace {

TEST(CublasLtTest, OpensTheLibraryWithEveryFunctionTheBackendCalls) {
  const CublasLtApi *api = nullptr;
  Status status = loadCublasLt(api, "test");
  ASSERT_TRUE(status.isOk()) << status.message();
  ASSERT_NE(api, nullptr);
#define TP_EXPECT_RESOLVED(name) EXPECT_NE(api->name, nullptr) << #name;
  TP_CUBLASLT_FUNCTIONS(TP_EXPECT_RESOLVED)
#undef TP_EXPECT_RESOLVED
  // Once per process: a second call hands out the same table.
  const CublasLtApi *again = nullptr;
  ASSERT_TRUE(loadCublasLt(again, "test").isOk());
  EXPECT_EQ(again, api);
}

TEST(CublasLtTest, AMissingLibraryIsNamedWithTheLoadersReason) {
  CublasLtApi api;
  Status status = openCublasLt({"/nonexistent/libcublasLt.so.99"}, api);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("cannot load cuBLASLt: "), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("/nonexistent/libcublasLt.so.99"),
            std::string::npos)
      << status.message();
  EXPECT_FALSE(openCublasLt({}, api).isOk());
}

TEST(CublasLtTest, ALibraryWithoutItsFunctionsIsRefused) {
  // The C library loads, and has none of cuBLASLt's functions.
  CublasLtApi api;
  Status status = openCublasLt({"libc.so.6"}, api);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("cuBLASLt (libc.so.6) lacks cublasLtCreate, "
                                  "cublasLtDestroy"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(api.cublasLtCreate, nullptr);
}

TEST(CublasLtTest, StatusTextNamesTheCode) {
  EXPECT_EQ(cublasStatusText(CUBLAS_STATUS_NOT_SUPPORTED)
                .rfind("CUBLAS_STATUS_NOT_SUPPORTED (", 0),
            0u)
      << cublasStatusText(CUBLAS_STATUS_NOT_SUPPORTED);
}

} // namespace
