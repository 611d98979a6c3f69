#include "cli/option_lists.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "cli/solver_arguments.hpp"
#include "coreset/error.hpp"

namespace coreset::cli {

CLI::Option* add_list_option(CLI::App* command, const std::string& name,
                             std::vector<std::string>& arguments, const std::string& item_type,
                             const std::string& description) {
  // No ->delimiter(','): CLI11 would split here and silently drop the empty items. One word an
  // occurrence, all occurrences kept.
  return command->add_option(name, arguments, description)
      ->type_name(item_type + ",...")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::vector<std::string> list_items(const std::vector<std::string>& arguments,
                                    const std::string& option) {
  std::vector<std::string> items;
  for (const std::string& argument : arguments) {
    std::size_t begin = 0;
    while (true) {
      const std::size_t comma = argument.find(',', begin);
      std::size_t end = comma == std::string::npos ? argument.size() : comma;
      const std::size_t next = end + 1;
      // Spaces around an item are not part of it ("giga, fw" is two names).
      while (begin < end && (argument[begin] == ' ' || argument[begin] == '\t')) {
        ++begin;
      }
      while (end > begin && (argument[end - 1] == ' ' || argument[end - 1] == '\t')) {
        --end;
      }
      if (end == begin) {
        throw InvalidArgument(option + ": '" + argument +
                              "' has an empty item (a doubled, leading or trailing comma?): "
                              "separate the values by single commas");
      }
      items.push_back(argument.substr(begin, end - begin));
      if (comma == std::string::npos) {
        break;
      }
      begin = next;
    }
  }
  return items;
}

std::vector<index_t> budget_list(const std::vector<std::string>& arguments,
                                 const std::string& option) {
  std::vector<index_t> budgets;
  for (const std::string& item : list_items(arguments, option)) {
    budgets.push_back(parse_budget(item, option.c_str()));
  }
  return budgets;
}

std::vector<double> number_list(const std::vector<std::string>& arguments,
                                const std::string& option) {
  std::vector<double> numbers;
  for (const std::string& item : list_items(arguments, option)) {
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    if (end != item.c_str() + item.size() || errno == ERANGE || !std::isfinite(value)) {
      throw InvalidArgument(option + ": '" + item + "' is not a finite number");
    }
    numbers.push_back(value);
  }
  return numbers;
}

}  // namespace coreset::cli
