// bench_gpu --end-to-end: build_coreset on the GPU, each stage beside its floor.
#pragma once

#include <nlohmann/json.hpp>

#include "coreset/types.hpp"

namespace coreset::bench {

/// build_coreset on `rows` synthetic logistic rows of `dims` covariates (plus the intercept),
/// S = `samples`, k = `budget`, float, on the GPU, timed whole and per stage, with each stage's
/// floor: the bytes it must move over the bandwidth measured in the same run (`copy_bandwidth`,
/// device-to-device bytes read + written per second; the host-to-device bandwidth is measured
/// here, from pageable memory as the dataset's upload is).
nlohmann::json end_to_end(index_t rows, index_t dims, index_t samples, index_t budget,
                          double copy_bandwidth);

}  // namespace coreset::bench
