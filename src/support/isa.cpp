#include "support/isa.hpp"

#include <cstdlib>
#include <cstring>

namespace coreset::support {

bool supported(Isa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  switch (isa) {
    case Isa::baseline:
      return true;
    case Isa::avx2:
      // __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV).
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  }
  return false;
#else
  return isa == Isa::baseline;
#endif
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx2:
      return "avx2";
    case Isa::avx512:
      return "avx512";
    case Isa::baseline:
    default:
      return "baseline";
  }
}

namespace {

Isa choose_isa() {
  const Isa all[] = {Isa::avx512, Isa::avx2, Isa::baseline};
  if (const char* requested = std::getenv("CORESET_ISA")) {
    for (Isa isa : all) {
      if (std::strcmp(requested, isa_name(isa)) == 0 && supported(isa)) {
        return isa;
      }
    }
  }
  for (Isa isa : all) {
    if (supported(isa)) {
      return isa;
    }
  }
  return Isa::baseline;
}

}  // namespace

Isa active_isa() {
  static const Isa isa = choose_isa();
  return isa;
}

}  // namespace coreset::support
