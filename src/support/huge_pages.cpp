#include "support/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace coreset::support {

namespace {

bool read_huge_pages_setting() {
  const char* value = std::getenv("CORESET_HUGE_PAGES");
  if (value == nullptr) {
    return kHugePagesByDefault;
  }
  for (const char* off : {"0", "off", "no"}) {
    if (std::strcmp(value, off) == 0) {
      return false;
    }
  }
  for (const char* on : {"1", "on", "yes"}) {
    if (std::strcmp(value, on) == 0) {
      return true;
    }
  }
  return kHugePagesByDefault;
}

}  // namespace

bool huge_pages_enabled() noexcept {
  static const bool enabled = read_huge_pages_setting();
  return enabled;
}

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || bytes < kLeastAdvisedBytes || !huge_pages_enabled()) {
    return;
  }
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (begin + bytes) / kHugePageBytes * kHugePageBytes;
  if (last > first) {
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace coreset::support
