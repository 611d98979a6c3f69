#include "pipeline/setup_parts.hpp"

namespace coreset::pipeline {

SetupPartTotals& setup_part_totals() noexcept {
  static SetupPartTotals totals;
  return totals;
}

}  // namespace coreset::pipeline
