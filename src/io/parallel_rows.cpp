// The non-template parts of the parallel row parser: cutting a block at line ends, counting lines.
#include "io/parallel_rows.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/error.hpp"
#include "io/newlines.hpp"
#include "io/readers.hpp"
#include "support/threads.hpp"

namespace coreset::io::detail {

void split_at_line_ends(std::string_view block, std::vector<RowPiece>& pieces) {
  const std::size_t count = pieces.size();
  std::size_t start = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t end = block.size();
    if (i + 1 < count) {
      // Just past the first newline at or after the even share's end.
      const std::size_t target = std::max(start, block.size() / count * (i + 1));
      const std::size_t newline = block.find('\n', target);
      end = newline == std::string_view::npos ? block.size() : newline + 1;
    }
    pieces[i].text = block.substr(start, end - start);
    start = end;
  }
}

index_t count_lines(std::string_view text) {
  const index_t newlines = count_newlines(text.data(), text.data() + text.size());
  return text.empty() || text.back() == '\n' ? newlines : newlines + 1;  // a last line without one
}

int resolve_threads(int threads) {
  if (threads < 0) {
    throw InvalidArgument("the number of reader threads must be >= 0 (0: every core), got " +
                          std::to_string(threads));
  }
  return support::resolve_threads(threads);
}

}  // namespace coreset::io::detail
