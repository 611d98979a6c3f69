// Transparent huge pages for large host arrays, as advice. Where THP is in "madvise" mode (the
// build VM and the H100 machine), a fresh array of gigabytes otherwise faults in 4 KiB pages
// when it is first written: half a million faults per 2 GB, each zeroing its page, which took
// more time than the copy that wrote the array (make_model at 10^7 x 20).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace coreset::support {

/// Bytes in a transparent huge page on x86-64 and most aarch64 kernels.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Advises the kernel to back the whole huge pages inside [data, data + bytes) with transparent
/// huge pages when they are first touched. Only the aligned interior is advised, so memory
/// outside the range (another allocation's) is never affected; a range holding no whole huge
/// page, a kernel without THP or a failed call leave ordinary pages, and the memory's contents
/// are untouched either way. Call it before the first write: pages already faulted stay small
/// until khugepaged gets to them.
inline void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (begin + bytes) / kHugePageBytes * kHugePageBytes;
  if (data != nullptr && last > first) {
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace coreset::support
