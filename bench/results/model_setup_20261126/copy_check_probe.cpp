// The copy and the non-finite check of make_model's covariates, timed apart and together on
// 2e6 x 20 doubles (the bench_build_stages case of this folder's README): the parallel scan
// (support::first_non_finite_in_columns), the copy by row blocks, the copy then a check of each
// copied block (fb9bf26), and the one-pass copy that tests as it goes (the loop of
// support::copy_testing_finite). Build and run from the repository root:
//   g++ -O2 -fopenmp -std=c++17 -Isrc -Iinclude
//   bench/results/model_setup_20261126/copy_check_probe.cpp -o probe && ./probe
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include "support/non_finite.hpp"
int main() {
  const long n = 2000000, d = 20;
  std::vector<double> a(n * d);
  for (long i = 0; i < n * d; ++i)
    a[i] = i * 1e-7;
  std::vector<double> b(n * d);
  std::memset(b.data(), 0, b.size() * 8);
  for (int r = 0; r < 5; ++r) {
    auto t = std::chrono::steady_clock::now();
    long bad = coreset::support::first_non_finite_in_columns(a.data(), n, d, n);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    t = std::chrono::steady_clock::now();
#pragma omp parallel for
    for (long blk = 0; blk < (n + 65535) / 65536; ++blk) {
      long f = blk * 65536, l = std::min(n, f + 65536);
      for (long c = 0; c < d; ++c)
        std::copy(a.data() + c * n + f, a.data() + c * n + l, b.data() + c * n + f);
    }
    double s2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    t = std::chrono::steady_clock::now();
    long bad2 = -1;
#pragma omp parallel for reduction(max : bad2)
    for (long blk = 0; blk < (n + 65535) / 65536; ++blk) {
      long f = blk * 65536, l = std::min(n, f + 65536);
      for (long c = 0; c < d; ++c) {
        std::copy(a.data() + c * n + f, a.data() + c * n + l, b.data() + c * n + f);
        bad2 = std::max(bad2, coreset::support::first_non_finite(b.data() + c * n + f, l - f));
      }
    }
    double s3 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    t = std::chrono::steady_clock::now();
    bool anyb = false;
#pragma omp parallel for reduction(|| : anyb)
    for (long blk = 0; blk < (n + 65535) / 65536; ++blk) {
      long f = blk * 65536, l = std::min(n, f + 65536);
      for (long c = 0; c < d; ++c) {
        const double* src = a.data() + c * n;
        double* dst = b.data() + c * n;
        bool any = false;
        for (long i = f; i < l; ++i) {
          double v = src[i];
          unsigned long long bits;
          std::memcpy(&bits, &v, 8);
          any |= (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
          dst[i] = v;
        }
        anyb = anyb || any;
      }
    }
    double s4 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    std::printf("scan %.4f copy %.4f copy+check %.4f fused %.4f (%ld %ld %d)\n", s, s2, s3, s4, bad,
                bad2, (int)anyb);
  }
}
