// The solver layer's two ways of reusing one budget's work at another (issue 19): a warm start
// of the IHT family (SolverSettings::initial_weights) and the snapshots of one greedy run
// (solvers/budget_snapshots.hpp), on the CPU backend; the CUDA backend runs the same drivers.
#include <gtest/gtest.h>

#include <vector>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"
#include "solvers/run_algorithm.hpp"

namespace coreset {
namespace {

SolverOptions options_for(Algorithm algorithm, index_t k) {
  SolverOptions options = test::solver_options(algorithm, k);
  options.threads = 1;
  return options;
}

// One greedy run to the largest budget, snapshotted, equals a run to each budget alone, bit
// for bit: the snapshot is taken at the same state and finished by the same operations. The
// budgets include one past the step where the run stops early (stationary), whose result is
// the final one, and the refit is applied to each snapshot as its own run would.
TEST(BudgetSnapshots, EqualRunsToEachBudgetAloneForGigaAndFrankWolfe) {
  const test::PlantedProblem problem = test::planted_problem(30, 60, 5, 11);
  const std::vector<index_t> budgets = {1, 2, 5, 9, 40, 5000};
  for (const Algorithm algorithm : {Algorithm::giga, Algorithm::frank_wolfe}) {
    for (const bool refit : {false, true}) {
      cpu::CpuBackend<double> backend(problem.phi.view(), 1);
      auto y = backend.make_sample_vector();
      backend.column_sums(y);
      SolverOptions longest = options_for(algorithm, budgets.back());
      longest.refit = refit;
      solvers::BudgetSnapshots snapshots;
      snapshots.budgets = budgets;
      solvers::run_algorithm(backend, y, longest, &snapshots);
      ASSERT_EQ(snapshots.results.size(), budgets.size());
      for (std::size_t p = 0; p < budgets.size(); ++p) {
        SolverOptions alone = options_for(algorithm, budgets[p]);
        alone.refit = refit;
        const SolveResult expected = solvers::run_algorithm(backend, y, alone);
        const SolveResult& got = snapshots.results[p];
        SCOPED_TRACE(to_string(algorithm) + " k = " + std::to_string(budgets[p]));
        test::expect_same_solve(got, expected);
      }
    }
  }
}

// IHT with its safe step descends monotonically (spec T9): started from any feasible point it
// ends no higher than that point's objective. A driver that ignored the warm start (started
// from 0) would end wherever the cold run ends, which for a start at a better solution found
// with a larger iteration cap is higher.
TEST(WarmStart, IhtEndsNoHigherThanItsStartingPoint) {
  const test::PlantedProblem problem = test::planted_problem(40, 200, 8, 3);
  SolverOptions long_run = options_for(Algorithm::aiht2, 8);
  long_run.max_iterations = 2000;
  long_run.tolerance = 0.0;
  const SolveResult good = solve(problem.phi.view(), problem.y.data(), long_run);

  SolverOptions warm = options_for(Algorithm::iht, 12);
  warm.max_iterations = 5;
  warm.initial_weights = good.coreset;
  const SolveResult from_good = solve(problem.phi.view(), problem.y.data(), warm);
  EXPECT_LE(from_good.objective, good.objective * (1 + 1e-9));
  EXPECT_LE(from_good.objective_history.front(), good.objective * (1 + 1e-9));

  SolverOptions cold = warm;
  cold.initial_weights = {};
  const SolveResult from_zero = solve(problem.phi.view(), problem.y.data(), cold);
  EXPECT_GT(from_zero.objective, from_good.objective);
}

// Every accelerated variant takes the start too: a start at an optimum of the same budget is
// kept (no point of it is lost, the objective does not rise beyond rounding).
TEST(WarmStart, AStartAtAConvergedSolutionIsKept) {
  const test::PlantedProblem problem = test::planted_problem(40, 200, 8, 5);
  SolverOptions options = options_for(Algorithm::aiht2, 8);
  options.max_iterations = 3000;
  options.tolerance = 1e-12;
  const SolveResult converged = solve(problem.phi.view(), problem.y.data(), options);
  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    SolverOptions warm = options_for(algorithm, 8);
    warm.initial_weights = converged.coreset;
    const SolveResult result = solve(problem.phi.view(), problem.y.data(), warm);
    EXPECT_LE(result.objective, converged.objective * (1 + 1e-6) + 1e-12) << to_string(algorithm);
    EXPECT_LE(result.iterations, 20) << to_string(algorithm);
  }
}

TEST(WarmStart, RefusesAStartThatIsNotACoresetOfAtMostKPointsOfPhi) {
  const test::PlantedProblem problem = test::planted_problem(10, 20, 3, 7);
  const auto refused = [&](Algorithm algorithm, index_t k, Coreset start) {
    SolverOptions options = options_for(algorithm, k);
    options.initial_weights = std::move(start);
    EXPECT_THROW(solve(problem.phi.view(), nullptr, options), InvalidArgument)
        << to_string(algorithm);
  };
  refused(Algorithm::aiht2, 1, Coreset{{1, 2}, {1.0, 1.0}});   // more points than k
  refused(Algorithm::aiht2, 3, Coreset{{2, 1}, {1.0, 1.0}});   // not ascending
  refused(Algorithm::aiht2, 3, Coreset{{1, 1}, {1.0, 1.0}});   // repeated
  refused(Algorithm::aiht2, 3, Coreset{{1, 20}, {1.0, 1.0}});  // outside Phi's columns
  refused(Algorithm::aiht2, 3, Coreset{{1, 2}, {1.0, 0.0}});   // a zero weight
  refused(Algorithm::aiht2, 3, Coreset{{1, 2}, {1.0, -2.0}});  // a negative weight
  refused(Algorithm::iht, 3, Coreset{{1}, {1.0, 2.0}});        // sizes differ
  refused(Algorithm::giga, 3, Coreset{{1}, {1.0}});            // not an IHT algorithm
  refused(Algorithm::uniform, 3, Coreset{{1}, {1.0}});
}

}  // namespace
}  // namespace coreset
