// Matrix storage (include/coreset/matrix.hpp): large blocks straight from mmap, so that freeing
// one returns it to the system at once, advised for transparent huge pages when the process
// asks for them (support/huge_pages.hpp).
#include <cstdlib>
#include <new>

#include "coreset/matrix.hpp"
#include "support/huge_pages.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace coreset::detail {
namespace {

constexpr std::size_t kLargeBlock = std::size_t{32} << 20;

}  // namespace

void* allocate_matrix_storage(std::size_t bytes) {
#if defined(__linux__)
  if (bytes >= kLargeBlock) {
    void* pointer =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pointer == MAP_FAILED) {
      throw std::bad_alloc();
    }
    support::advise_huge_pages(pointer, bytes);
    return pointer;
  }
#endif
  return ::operator new(bytes == 0 ? 1 : bytes);
}

void free_matrix_storage(void* pointer, std::size_t bytes) noexcept {
  if (pointer == nullptr) {
    return;
  }
#if defined(__linux__)
  if (bytes >= kLargeBlock) {
    munmap(pointer, bytes);
    return;
  }
#endif
  (void)bytes;
  ::operator delete(pointer);
}

}  // namespace coreset::detail
