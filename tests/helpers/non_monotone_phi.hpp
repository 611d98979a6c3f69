// A small Phi on which A-IHT II is not monotone, shared by the solver's and the command's tests.
#pragma once

#include "coreset/matrix.hpp"

namespace coreset::test {

// A 10 x 3 Phi (a centred logistic projection) on which A-IHT II at k = 1 leaves the empty
// coreset for column 1 (f = 0.229 against ||y||^2 = 4.73), then projects onto column 2, whose
// de-bias step alone clips to 0, and stays at 0: the papers' algorithm, which returns the last
// iterate. Found by a review: the empty-coreset check once blamed it on overflow.
inline Matrix<double> comes_back_to_empty_phi() {
  const double rows[10][3] = {{0.04214052903525992, 0.023771893480248222, 0.002841583000771986},
                              {-0.0009277114074231571, 0.4083465517737264, -0.031360938021357275},
                              {-0.025370462077525347, 0.7537049235268388, 0.006209183757483896},
                              {0.042207028692476924, -0.009332877551003206, -0.004422703899058637},
                              {0.09762370525033515, -0.9360353419236606, 0.13028734123960617},
                              {0.014555168405439946, 0.635652056317861, 0.056065902144877174},
                              {-0.2235770894610701, 1.1974738808706025, -0.06907467596511706},
                              {0.10209153803838573, -1.3371634830517534, 0.14174643397582393},
                              {0.09933413869989245, -1.2336536248312242, 0.11999578634018972},
                              {-0.14807684517577152, 0.4972360213883626, -0.3522879125732199}};
  Matrix<double> phi(10, 3);
  for (index_t i = 0; i < 10; ++i) {
    for (index_t j = 0; j < 3; ++j) {
      phi(i, j) = rows[i][j];
    }
  }
  return phi;
}

}  // namespace coreset::test
