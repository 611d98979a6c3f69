// The huge-page advice in force for a benchmark's process (support/huge_pages.hpp), for the
// benches that link the library's internals: whether large arrays are advised, and what decided
// it (CORESET_HUGE_PAGES, the default, or the host's free page reporting).
#pragma once

#include <nlohmann/json.hpp>

#include "support/huge_pages.hpp"

namespace coreset::bench {

inline nlohmann::json huge_pages_record() {
  const support::HugePagesSetting setting = support::huge_pages_setting();
  return {{"advised", setting.enabled}, {"basis", support::to_string(setting.basis)}};
}

}  // namespace coreset::bench
