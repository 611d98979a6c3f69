#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include "support/exact_sum.hpp"
using coreset::support::ExactSum;
int main() {
  std::mt19937_64 g(1);
  std::normal_distribution<double> nd;
  std::vector<ExactSum> sums(500);
  for (auto& s : sums)
    for (int i = 0; i < 200; ++i)
      s.add(nd(g) * 0.01);
  volatile double sink = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t = std::chrono::steady_clock::now();
    for (int k = 0; k < 200; ++k)
      for (auto& s : sums)
        sink = sink + s.value();
    double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t).count() /
        (200 * 500);
    std::vector<double> terms(200 * 500);
    for (auto& x : terms)
      x = nd(g) * 0.01;
    auto t2 = std::chrono::steady_clock::now();
    for (int k = 0; k < 10; ++k)
      for (std::size_t i = 0; i < terms.size(); ++i)
        sums[i % 500].add(terms[i]);
    double ns2 =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t2).count() /
        (10 * terms.size());
    std::printf("value %.1f ns  add %.2f ns\n", ns, ns2);
  }
}
