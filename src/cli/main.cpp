// `coreset`: command-line front end of libcoreset. Parses, dispatches, maps errors to exit codes.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/terminal.hpp"
#include "coreset/error.hpp"
#include "coreset/version.hpp"

int main(int argc, char** argv) {
  using namespace coreset::cli;
  CLI::App app{"coreset: Bayesian coresets by sparse non-negative regression (A-IHT)"};
  app.set_version_flag("--version", std::string("coreset ") + coreset::version());
  app.require_subcommand(1);
  app.fallthrough();  // before the subcommands, which inherit it: --quiet may follow them too
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kSuccess : kUsageError;
  }
  set_quiet(quiet);
  install_interrupt_handlers();
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
  } catch (const coreset::Cancelled&) {
    const int signal = interrupt_signal();
    std::fprintf(stderr, "coreset: interrupted by %s: stopped, no output written\n",
                 signal_name(signal));
    return signal == SIGTERM ? kTerminated : kInterrupted;
  } catch (const TargetNotReached& error) {
    std::fprintf(stderr, "coreset: target not reached: %s\n", error.what());
    return kTargetNotReached;
  } catch (const coreset::InvalidArgument& error) {
    std::fprintf(stderr, "coreset: error: %s\n", error.what());
    return kUsageError;
  } catch (const coreset::InputError& error) {
    std::fprintf(stderr, "coreset: input error: %s\n", error.what());
    return kInputError;
  } catch (const coreset::NumericalError& error) {
    std::fprintf(stderr, "coreset: numerical failure: %s\n", error.what());
    return kNumericalError;
  } catch (const coreset::OutputError& error) {
    std::fprintf(stderr, "coreset: output error: %s\n", error.what());
    return kOutputError;
  } catch (const coreset::DeviceError& error) {
    std::fprintf(stderr, "coreset: GPU error: %s\n", error.what());
    return kDeviceError;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "coreset: out of memory: the problem does not fit in this machine's RAM\n");
    return kOutOfMemory;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "coreset: internal error: %s\n", error.what());
    return kInternalError;
  }
}
