// JSON documents as text: the one way the reports are written.
#pragma once

#include <string>

namespace coreset::support {

/// `document` as indented text with a final newline. Strings from the user's files (column
/// names, paths) are bytes in whatever encoding the files use, and JSON text is UTF-8: an invalid
/// sequence is written as U+FFFD rather than thrown (nlohmann's default), which would lose the
/// whole report, and the coreset written with it, over a name.
template <class Json>
std::string json_text(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace coreset::support
