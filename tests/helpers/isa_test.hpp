// A test suite run once per instruction set of the CPU kernels (src/cpu/simd/isa.hpp): each
// instance skips itself on a CPU that lacks its set, and is named after it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cpu/simd/isa.hpp"

namespace coreset::test {

class IsaTest : public ::testing::TestWithParam<cpu::simd::Isa> {
 protected:
  void SetUp() override {
    if (!cpu::simd::supported(GetParam())) {
      GTEST_SKIP() << cpu::simd::isa_name(GetParam()) << " is not supported by this CPU";
    }
  }
};

/// Every compiled set: INSTANTIATE_TEST_SUITE_P(AllCompiledSets, Suite, kEveryIsa, isa_test_name).
inline const auto kEveryIsa =
    ::testing::Values(cpu::simd::Isa::baseline, cpu::simd::Isa::avx2, cpu::simd::Isa::avx512);

inline std::string isa_test_name(const ::testing::TestParamInfo<cpu::simd::Isa>& info) {
  return cpu::simd::isa_name(info.param);
}

}  // namespace coreset::test
