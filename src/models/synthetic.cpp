// The synthetic logistic-regression data of spec 3.6, generated from raw mt19937_64 output so the
// same seed gives the same dataset with every compiler and standard library.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "models/link.hpp"
#include "support/random.hpp"
#include "support/splitmix.hpp"

namespace coreset {
namespace {

void check_rows(index_t rows, const char* what) {
  if (rows < 1) {
    throw InvalidArgument(std::string("the ") + what + " dataset needs at least one row (got " +
                          std::to_string(rows) + ")");
  }
}

// The data of stream t come from a generator seeded with splitmix64(t), not t itself: the
// experiments seed trial t's samples with t, and row j's noise must not be sample j's.
std::uint64_t data_seed(std::uint64_t stream) {
  return support::splitmix64(stream);
}

}  // namespace

Dataset synthetic_gaussian_dataset(index_t rows, index_t dims, std::uint64_t trial) {
  check_rows(rows, "synthetic Gaussian");
  if (dims < 1) {
    throw InvalidArgument("the synthetic Gaussian dataset needs at least one dimension (got " +
                          std::to_string(dims) + ")");
  }
  Dataset data;
  data.covariates = Matrix<double>(rows, dims);
  support::NormalGenerator random(data_seed(trial));
  for (index_t i = 0; i < rows; ++i) {  // row by row: x_n = 1 + N(0, I)
    for (index_t c = 0; c < dims; ++c) {
      data.covariates(i, c) = 1.0 + random();
    }
  }
  for (index_t c = 0; c < dims; ++c) {
    data.covariate_names.push_back("x" + std::to_string(c + 1));
  }
  data.source = "synthetic Gaussian data (trial " + std::to_string(trial) + ")";
  return data;
}

// A SYNTHETIC STAND-IN for the UK house-price data of spec 3.5 (Land Registry sale prices at
// Geonames postcode coordinates), which is not available: 1000 sales per trial, regenerated
// from the trial's own stream, with (latitude, longitude) in degrees and the response log10 of
// the price, as the authors' file has them. Locations: 80% around 13 British cities (a normal
// spread of 0.1-0.25 degrees of latitude, 1.6 times that in longitude, shares by size), 20%
// uniform over the box 50.2-55.8 N, 5.3 W-1.7 E. Price: log10 p = 5.2 + 0.4 exp(-d_L^2 / (2 0.8^2))
// - 0.06 (lat - 52.5) + 0.1 exp(-d_c^2 / (2 0.15^2)) + 0.15 eps, with d_L the distance to
// London and d_c to the nearest city centre (degrees, longitude scaled by 1/1.6), eps ~ N(0, 1):
// a south-east premium, a north-south trend, an urban premium and noise, so that the radial
// bases have local structure at all their scales to fit. Draw order per row: the mixture
// uniform, then the location's two numbers, then eps.
Dataset uk_house_price_standin_dataset(index_t rows, std::uint64_t trial) {
  check_rows(rows, "UK house-price stand-in");
  struct City {
    double lat, lon, share, spread;
  };
  static constexpr City kCities[] = {
      {51.51, -0.13, 0.30, 0.25},  // London
      {52.49, -1.89, 0.10, 0.15},  // Birmingham
      {53.48, -2.24, 0.10, 0.15},  // Manchester
      {53.80, -1.55, 0.07, 0.12},  // Leeds
      {53.41, -2.98, 0.06, 0.12},  // Liverpool
      {51.45, -2.59, 0.06, 0.12},  // Bristol
      {54.98, -1.61, 0.05, 0.12},  // Newcastle
      {53.38, -1.47, 0.05, 0.10},  // Sheffield
      {52.95, -1.15, 0.05, 0.10},  // Nottingham
      {50.90, -1.40, 0.05, 0.12},  // Southampton
      {51.48, -3.18, 0.04, 0.10},  // Cardiff
      {55.86, -4.25, 0.04, 0.12},  // Glasgow
      {55.95, -3.19, 0.03, 0.10},  // Edinburgh
  };
  constexpr double kBackground = 0.2;
  constexpr double kLonStretch = 1.6;  // ~1 / cos(52 degrees): degrees of longitude are shorter
  const auto squared_distance = [&](double lat, double lon, const City& city) {
    const double dlat = lat - city.lat;
    const double dlon = (lon - city.lon) / kLonStretch;
    return dlat * dlat + dlon * dlon;
  };

  Dataset data;
  data.covariates = Matrix<double>(rows, 2);
  data.response.resize(static_cast<std::size_t>(rows));
  support::NormalGenerator random(data_seed(trial));
  for (index_t i = 0; i < rows; ++i) {
    double lat = 0.0;
    double lon = 0.0;
    const double u = random.uniform();
    if (u < kBackground) {
      lat = 50.2 + 5.6 * random.uniform();
      lon = -5.3 + 7.0 * random.uniform();
    } else {
      double cumulative = kBackground;
      const City* city = &kCities[0];
      for (const City& candidate : kCities) {
        city = &candidate;
        cumulative += (1.0 - kBackground) * candidate.share;
        if (u < cumulative) {
          break;
        }
      }
      lat = city->lat + city->spread * random();
      lon = city->lon + kLonStretch * city->spread * random();
    }
    double nearest = squared_distance(lat, lon, kCities[0]);
    for (const City& city : kCities) {
      nearest = std::min(nearest, squared_distance(lat, lon, city));
    }
    const double london = squared_distance(lat, lon, kCities[0]);
    data.covariates(i, 0) = lat;
    data.covariates(i, 1) = lon;
    data.response[static_cast<std::size_t>(i)] =
        5.2 + 0.4 * std::exp(-london / (2 * 0.8 * 0.8)) - 0.06 * (lat - 52.5) +
        0.1 * std::exp(-nearest / (2 * 0.15 * 0.15)) + 0.15 * random();
  }
  data.covariate_names = {"latitude", "longitude"};
  data.response_name = "log10_price";
  data.source =
      "synthetic stand-in for the UK house-price data (trial " + std::to_string(trial) + ")";
  return data;
}

Dataset synthetic_logistic_dataset(index_t rows, std::uint64_t seed) {
  if (rows < 1) {
    throw InvalidArgument("the synthetic dataset needs at least one row (got " +
                          std::to_string(rows) + ")");
  }
  // The generating parameters of the papers: theta = (3, 3), intercept 0.
  constexpr double kSlope = 3.0;

  Dataset data;
  data.covariates = Matrix<double>(rows, 2);
  data.response.resize(static_cast<std::size_t>(rows));
  support::NormalGenerator random(seed);
  for (index_t i = 0; i < rows; ++i) {
    // A fixed draw order per row (x1, x2, then the label's uniform), so the first m rows of a
    // longer dataset are the m-row dataset of the same seed.
    const double x1 = random();
    const double x2 = random();
    const double u = random.uniform();
    data.covariates(i, 0) = x1;
    data.covariates(i, 1) = x2;
    data.response[static_cast<std::size_t>(i)] =
        u < models::sigmoid(kSlope * x1 + kSlope * x2) ? 1.0 : -1.0;
  }
  data.covariate_names = {"x1", "x2"};
  data.response_name = "y";
  data.source = "built-in synthetic logistic data";
  data.first_data_line = 0;
  data.response_column = 0;
  return data;
}

}  // namespace coreset
