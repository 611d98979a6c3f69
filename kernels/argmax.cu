// The fused score-and-argmax of the greedy baselines (GIGA, Frank-Wolfe): one pass computing
// rule(v_0[i], ...) in double and keeping the best (larger score, then lower index), then one
// block reducing the per-block winners. solvers::better is associative and commutative, so the
// winner does not depend on the reduction order.
#include <string>
#include <type_traits>

#include "coreset/error.hpp"
#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "kernels/transfer.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"

namespace coreset::kernels {
namespace {

__device__ inline solvers::ArgMax block_best(solvers::ArgMax mine) {
  __shared__ index_t shared_index[kBlock];
  __shared__ double shared_score[kBlock];
  shared_index[threadIdx.x] = mine.index;
  shared_score[threadIdx.x] = mine.score;
  __syncthreads();
  for (int width = kBlock / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      const solvers::ArgMax a{shared_index[threadIdx.x], shared_score[threadIdx.x]};
      const solvers::ArgMax b{shared_index[threadIdx.x + width], shared_score[threadIdx.x + width]};
      const solvers::ArgMax best = solvers::better(a, b);
      shared_index[threadIdx.x] = best.index;
      shared_score[threadIdx.x] = best.score;
    }
    __syncthreads();
  }
  return {shared_index[0], shared_score[0]};
}

template <int N, class T, class Rule>
__device__ inline double score(const Rule& rule, const T* const* v, index_t i) {
  if constexpr (N == 1) {
    return rule(static_cast<double>(v[0][i]));
  } else if constexpr (N == 2) {
    return rule(static_cast<double>(v[0][i]), static_cast<double>(v[1][i]));
  } else {
    return rule(static_cast<double>(v[0][i]), static_cast<double>(v[1][i]),
                static_cast<double>(v[2][i]));
  }
}

template <class T>
struct Vectors {
  const T* v[3];
};

template <int N, class T, class Rule>
__global__ void argmax_partials_kernel(Rule rule, Vectors<T> vectors, index_t n,
                                       solvers::ArgMax* partials) {
  solvers::ArgMax mine;
  for (index_t i = global_thread(); i < n; i += grid_stride()) {
    const double s = score<N>(rule, vectors.v, i);
    if (s > mine.score) {  // strict: within a thread indices grow, the lower one keeps a tie
      mine = {i, s};
    }
  }
  const solvers::ArgMax best = block_best(mine);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = best;
  }
}

__global__ void argmax_final_kernel(solvers::ArgMax* partials, int blocks) {
  solvers::ArgMax mine;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
    mine = solvers::better(mine, partials[b]);
  }
  const solvers::ArgMax best = block_best(mine);
  if (threadIdx.x == 0) {
    partials[0] = best;
  }
}

}  // namespace

template <class T, class Rule>
solvers::ArgMax argmax(cudaStream_t s, const Rule& rule, const T* const* vectors, int count,
                       index_t n, solvers::ArgMax* partials) {
  Vectors<T> packed{{nullptr, nullptr, nullptr}};
  for (int c = 0; c < count && c < 3; ++c) {
    packed.v[c] = vectors[c];
  }
  const unsigned int blocks = blocks_for(n, kReducePartials);
  // The rule's arity fixes how many vectors it scores; `count` is what the caller passed.
  constexpr int arity = std::is_invocable_v<Rule, double, double, double> ? 3
                        : std::is_invocable_v<Rule, double, double>       ? 2
                                                                          : 1;
  if (count != arity) {
    throw InvalidArgument("argmax: the rule takes " + std::to_string(arity) + " vectors, got " +
                          std::to_string(count));
  }
  argmax_partials_kernel<arity, T, Rule><<<blocks, kBlock, 0, s>>>(rule, packed, n, partials);
  CORESET_CUDA_CHECK_LAUNCH();
  argmax_final_kernel<<<1, kBlock, 0, s>>>(partials, static_cast<int>(blocks));
  CORESET_CUDA_CHECK_LAUNCH();
  solvers::ArgMax result;
  copy_to_host_async(s, &result, partials, sizeof(solvers::ArgMax));
  CORESET_CUDA_TRY(cudaStreamSynchronize(s));
  return result;
}

template solvers::ArgMax argmax<float, solvers::GigaScore>(cudaStream_t, const solvers::GigaScore&,
                                                           const float* const*, int, index_t,
                                                           solvers::ArgMax*);
template solvers::ArgMax argmax<double, solvers::GigaScore>(cudaStream_t, const solvers::GigaScore&,
                                                            const double* const*, int, index_t,
                                                            solvers::ArgMax*);
template solvers::ArgMax argmax<float, solvers::FrankWolfeScore>(cudaStream_t,
                                                                 const solvers::FrankWolfeScore&,
                                                                 const float* const*, int, index_t,
                                                                 solvers::ArgMax*);
template solvers::ArgMax argmax<double, solvers::FrankWolfeScore>(cudaStream_t,
                                                                  const solvers::FrankWolfeScore&,
                                                                  const double* const*, int,
                                                                  index_t, solvers::ArgMax*);

}  // namespace coreset::kernels
