// A test suite run once per instruction set of the CPU kernels (src/support/isa.hpp): each
// instance skips itself on a CPU that lacks its set, and is named after it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/isa.hpp"

namespace coreset::test {

class IsaTest : public ::testing::TestWithParam<support::Isa> {
 protected:
  void SetUp() override {
    if (!support::supported(GetParam())) {
      GTEST_SKIP() << support::isa_name(GetParam()) << " is not supported by this CPU";
    }
  }
};

/// Every compiled set: INSTANTIATE_TEST_SUITE_P(AllCompiledSets, Suite, kEveryIsa, isa_test_name).
inline const auto kEveryIsa =
    ::testing::Values(support::Isa::baseline, support::Isa::avx2, support::Isa::avx512);

inline std::string isa_test_name(const ::testing::TestParamInfo<support::Isa>& info) {
  return support::isa_name(info.param);
}

}  // namespace coreset::test
