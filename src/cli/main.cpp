// `coreset`: command-line front end of libcoreset. Parses, dispatches, maps errors to exit codes.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <tuple>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/mpi_run.hpp"
#include "cli/terminal.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/version.hpp"

int main(int argc, char** argv) {
  using namespace coreset::cli;
  CLI::App app{"coreset: Bayesian coresets by sparse non-negative regression (A-IHT)"};
  app.set_version_flag("--version", std::string("coreset ") + coreset::version());
  app.require_subcommand(1);
  app.fallthrough();  // before the subcommands, which inherit it: --quiet may follow them too
  // Parse errors in the form of every other error ("coreset: error: ..."), so that a script
  // can find them the same way.
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return "coreset: error: " + std::string(error.what()) +
           "\nRun with --help for more information.\n";
  });
  const auto build = add_build_command(app);
  const auto evaluate = add_evaluate_command(app);
  const auto solve = add_solve_command(app);
  const auto sweep = add_sweep_command(app);
  const auto experiment = add_experiment_command(app);
  const auto info = add_info_command(app);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet,
               "no progress line and no summary (errors still print; without --out the coreset "
               "is still listed on stdout)");
  // The first word that is no option names the command: an unknown one is said as such (CLI11
  // would say "A subcommand is required").
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') {
      continue;
    }
    std::string known;
    bool found = false;
    for (const CLI::App* command : app.get_subcommands({})) {
      known += (known.empty() ? "" : ", ") + command->get_name();
      found = found || command->get_name() == word;
    }
    if (!found) {
      std::fprintf(stderr, "coreset: error: unknown command '%s' (expected one of: %s)\n",
                   word.c_str(), known.c_str());
      return kUsageError;
    }
    break;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kSuccess : kUsageError;
  }
  set_quiet(quiet);
  install_interrupt_handlers();
  // The failure, if any: its exit code and what to print; `what` is the library's message.
  int code = kSuccess;
  std::string label;
  std::string what;
  try {
    if (app.got_subcommand("build")) {
      return build();
    }
    if (app.got_subcommand("evaluate")) {
      return evaluate();
    }
    if (app.got_subcommand("solve")) {
      return solve();
    }
    if (app.got_subcommand("sweep")) {
      return sweep();
    }
    if (app.got_subcommand("experiment")) {
      return experiment();
    }
    return info();
  } catch (const coreset::Cancelled& error) {
    const int signal = interrupt_signal();
    code = signal == SIGTERM ? kTerminated : kInterrupted;
    label = signal == 0 ? std::string("interrupted")
                        : "interrupted by " + std::string(signal_name(signal));
    what = "stopped, no output written";
    // Under mpirun every rank stopped together (a signal reached some rank): one message, and
    // every rank exits with its code instead of aborting the job.
    if (coreset::thrown_on_every_rank(error.what())) {
      return report_shared_failure(code, label, what);
    }
  } catch (const TargetNotReached& error) {
    std::tie(code, label, what) = std::tuple(kTargetNotReached, "target not reached", error.what());
  } catch (const coreset::InvalidArgument& error) {
    std::tie(code, label, what) = std::tuple(kUsageError, "error", error.what());
  } catch (const coreset::InputError& error) {
    std::tie(code, label, what) = std::tuple(kInputError, "input error", error.what());
  } catch (const coreset::NumericalError& error) {
    std::tie(code, label, what) = std::tuple(kNumericalError, "numerical failure", error.what());
  } catch (const coreset::OutputError& error) {
    std::tie(code, label, what) = std::tuple(kOutputError, "output error", error.what());
  } catch (const coreset::DeviceError& error) {
    std::tie(code, label, what) = std::tuple(kDeviceError, "GPU error", error.what());
  } catch (const std::bad_alloc&) {
    std::tie(code, label, what) =
        std::tuple(kOutOfMemory, "out of memory", "the problem does not fit in this machine's RAM");
  } catch (const std::exception& error) {
    std::tie(code, label, what) = std::tuple(kInternalError, "internal error", error.what());
  }
  return report_failure(code, label, what);
}
