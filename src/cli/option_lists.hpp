// Comma-separated list options: sweep's -k, experiment's --k and --algorithms, --rbf-scales.
//
// CLI11's own delimiter drops empty items, so `-k 5,,10` ran as `-k 5,10` and `--rbf-scales 0.2,`
// as one scale: a mistyped list passed unseen. These options take their arguments whole, and
// are split here, where an empty item is an error naming the option and the argument.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "coreset/types.hpp"

namespace coreset::cli {

/// Registers `name` as a list option whose arguments land in `arguments` unsplit. It may be
/// repeated (`-k 10 -k 20`), and each argument may hold several items (`-k 10,20`); the help
/// shows it as `ITEM_TYPE,...`.
CLI::Option* add_list_option(CLI::App* command, const std::string& name,
                             std::vector<std::string>& arguments, const std::string& item_type,
                             const std::string& description);

/// The items of a list option's arguments, each argument split at its commas and each item
/// without the spaces around it, in order. An empty item (`5,,10`, `5,`, `,5`, "", " ") is an
/// InvalidArgument naming `option` and the argument.
std::vector<std::string> list_items(const std::vector<std::string>& arguments,
                                    const std::string& option);

/// The items as budgets (integers >= 1), in order.
std::vector<index_t> budget_list(const std::vector<std::string>& arguments,
                                 const std::string& option);

/// The items as finite numbers, in order.
std::vector<double> number_list(const std::vector<std::string>& arguments,
                                const std::string& option);

}  // namespace coreset::cli
