// Seeded tables of numbers for the reader tests, and the same table as .npy in either order or as
// CSV lines: the files two readers must agree on.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "coreset/io.hpp"
#include "coreset/types.hpp"

namespace coreset::test {

/// A rows x cols table, row-major, of seeded values of assorted magnitudes (1e-4 ... 1e4).
inline std::vector<double> random_table(index_t rows, index_t cols, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  std::vector<double> values(static_cast<std::size_t>(rows * cols));
  for (double& value : values) {
    value = normal(random) * std::pow(10.0, static_cast<double>(random() % 9) - 4.0);
  }
  return values;
}

/// The row-major table as CSV lines of `cols` numbers each, printed with 17 digits (no header).
inline std::string csv_rows(const std::vector<double>& table, index_t cols) {
  std::string text;
  char cell[40];
  for (std::size_t i = 0; i < table.size(); ++i) {
    std::snprintf(cell, sizeof cell, "%.17g", table[i]);
    text += cell;
    text += (i + 1) % static_cast<std::size_t>(cols) == 0 ? "\n" : ",";
  }
  return text;
}

/// The row-major table as a (rows, cols) .npy file of element type T, in Fortran or C order.
template <class T>
void write_table(const std::string& path, const std::vector<double>& table, index_t rows,
                 index_t cols, bool fortran) {
  std::vector<T> data(table.size());
  for (index_t r = 0; r < rows; ++r) {
    for (index_t c = 0; c < cols; ++c) {
      const double value = table[static_cast<std::size_t>(r * cols + c)];
      data[static_cast<std::size_t>(fortran ? c * rows + r : r * cols + c)] = static_cast<T>(value);
    }
  }
  io::write_npy(path, data.data(), {rows, cols}, fortran);
}

}  // namespace coreset::test
