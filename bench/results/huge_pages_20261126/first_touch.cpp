// First writes of a fresh anonymous mapping, one byte per 4 KiB page on every OpenMP thread, four
// mappings of N MiB in turn (none freed): GB/s with and without MADV_HUGEPAGE.
// g++ -O2 -fopenmp first_touch.cpp -o first_touch && ./first_touch 1024 1 && ./first_touch 1024 0
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const size_t bytes = size_t(atoll(argv[1])) << 20;
  const int huge = atoi(argv[2]);
  for (int r = 0; r < 4; ++r) {
    const auto t = std::chrono::steady_clock::now();
    char* p = static_cast<char*>(
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (huge)
      madvise(p, bytes, MADV_HUGEPAGE);
#pragma omp parallel for
    for (long i = 0; i < static_cast<long>(bytes >> 12); ++i)
      p[i << 12] = 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    printf("%s %.3f GB/s  ", huge ? "huge" : "4k", bytes / s / 1e9);
  }
  printf("\n");
}
