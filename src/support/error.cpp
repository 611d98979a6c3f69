#include "coreset/error.hpp"

#include <string>
#include <utility>

namespace coreset {
namespace {

std::string located_message(const std::string& file, const std::string& message, index_t line,
                            index_t column) {
  std::string where = file;
  if (line > 0) {
    where += ":" + std::to_string(line);
    if (column > 0) {
      where += ":" + std::to_string(column);
    }
  }
  return where + ": " + message;
}

}  // namespace

InputError::InputError(std::string file, const std::string& message, index_t line, index_t column)
    : Error(located_message(file, message, line, column)),
      file_(std::move(file)),
      line_(line),
      column_(column) {}

}  // namespace coreset
