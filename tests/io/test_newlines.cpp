// io::detail::count_newlines, the readers' line counter, against std::count: every length and
// alignment around its 16-byte steps, runs long enough to fill its byte counters (255 vectors),
// text of nothing but newlines and of none, and the line count built on it.
#include "io/newlines.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "io/parallel_rows.hpp"

namespace coreset::io::detail {
namespace {

index_t reference(const std::string& text, std::size_t begin, std::size_t end) {
  return std::count(text.begin() + static_cast<std::ptrdiff_t>(begin),
                    text.begin() + static_cast<std::ptrdiff_t>(end), '\n');
}

TEST(CountNewlines, MatchesStdCountAtEveryLengthAndAlignment) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string text(9000, '\0');
  for (char& c : text) {
    const int b = byte(rng);
    c = b < 40 ? '\n' : static_cast<char>(b);  // about one byte in six a newline, bytes >= 0x80 too
  }
  for (std::size_t begin = 0; begin < 17; ++begin) {
    for (std::size_t length = 0; length < 300; ++length) {
      ASSERT_EQ(count_newlines(text.data() + begin, text.data() + begin + length),
                reference(text, begin, begin + length))
          << "from " << begin << ", " << length << " bytes";
    }
  }
  // Past one round of 255 vectors (4080 bytes), and past two.
  for (const std::size_t length : {4079u, 4080u, 4081u, 4096u, 8160u, 8191u, 8999u}) {
    EXPECT_EQ(count_newlines(text.data() + 1, text.data() + 1 + length),
              reference(text, 1, 1 + length))
        << length << " bytes";
  }
}

TEST(CountNewlines, NothingButNewlinesFillsNoCounterPastItsByte) {
  // Every lane matches in every vector: a round of more than 255 vectors would wrap its counters.
  const std::string newlines(20000, '\n');
  EXPECT_EQ(count_newlines(newlines.data(), newlines.data() + newlines.size()), 20000);
  const std::string none(20000, 'x');
  EXPECT_EQ(count_newlines(none.data(), none.data() + none.size()), 0);
}

TEST(CountLines, ALastLineWithoutANewlineCounts) {
  EXPECT_EQ(count_lines(""), 0);
  EXPECT_EQ(count_lines("a"), 1);
  EXPECT_EQ(count_lines("a\n"), 1);
  EXPECT_EQ(count_lines("a\nb"), 2);
  EXPECT_EQ(count_lines("\n\n"), 2);
  EXPECT_EQ(count_lines(std::string(100, 'y') + "\n" + std::string(40, 'z')), 2);
}

}  // namespace
}  // namespace coreset::io::detail
