// Writes the projection Phi of a small Bayesian coreset problem, so the README's first command
// shows the whole solve with nothing to download.
//
// Model (spec 3.1): theta ~ N(0, I_d), x_n | theta ~ N(theta, I_d), n = 1..N. Its posterior is
// exact, N(sum_n x_n / (1 + N), I / (1 + N)), so the S samples of the weighting distribution are
// drawn from the true posterior. Column n of Phi is datapoint n's log-likelihood at the samples,
// centred over the samples and scaled by 1/sqrt(S) (spec 1.3); constants cancel in the centring.
//
// Usage: gaussian_mean_phi OUT.npy [N] [d] [S] [seed]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "coreset/coreset.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.npy [N=5000] [d=20] [S=200] [seed=1]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const long n = argc > 2 ? std::atol(argv[2]) : 5000;
  const long d = argc > 3 ? std::atol(argv[3]) : 20;
  const long s = argc > 4 ? std::atol(argv[4]) : 200;
  const unsigned long seed = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 1;
  if (n < 1 || d < 1 || s < 2) {
    std::fprintf(stderr, "N and d must be >= 1 and S >= 2\n");
    return 2;
  }
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal;

  std::vector<double> theta_true(d), x(n * d), posterior_mean(d, 0.0);
  for (double& t : theta_true) {
    t = normal(generator);
  }
  for (long i = 0; i < n; ++i) {
    for (long c = 0; c < d; ++c) {
      x[i * d + c] = theta_true[c] + normal(generator);
      posterior_mean[c] += x[i * d + c] / (1.0 + static_cast<double>(n));
    }
  }
  const double posterior_sd = 1.0 / std::sqrt(1.0 + static_cast<double>(n));
  std::vector<double> samples(s * d);
  for (long j = 0; j < s; ++j) {
    for (long c = 0; c < d; ++c) {
      samples[j * d + c] = posterior_mean[c] + posterior_sd * normal(generator);
    }
  }

  coreset::Matrix<double> phi(s, n);
  const double scale = 1.0 / std::sqrt(static_cast<double>(s));
  for (long i = 0; i < n; ++i) {
    double mean = 0.0;
    for (long j = 0; j < s; ++j) {
      double squared = 0.0;
      for (long c = 0; c < d; ++c) {
        const double diff = x[i * d + c] - samples[j * d + c];
        squared += diff * diff;
      }
      phi(j, i) = -0.5 * squared;
      mean += phi(j, i) / static_cast<double>(s);
    }
    for (long j = 0; j < s; ++j) {
      phi(j, i) = (phi(j, i) - mean) * scale;
    }
  }
  coreset::io::write_npy(out, phi.data(), {s, n}, /*fortran_order=*/true);
  std::printf("wrote %s: Phi of shape (%ld, %ld) for the Gaussian mean model, d = %ld\n",
              out.c_str(), s, n, d);
  return 0;
}
