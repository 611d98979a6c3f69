#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/atomic_file.hpp"
#include "io/input_file.hpp"
#include "io/npy_format.hpp"
#include "io/readers.hpp"
#include "support/non_finite.hpp"
#include "support/transpose.hpp"

namespace coreset::io {
namespace detail {
namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
// The spec asks writers to align the data to 64 bytes so that readers may map it directly.
constexpr std::size_t kAlignment = 64;
// Data are read, converted and checked this many bytes at a time.
constexpr std::size_t kChunkBytes = std::size_t{8} << 20;
// A C-order matrix is transposed in bands of at least this many rows, so that every cache line
// of a destination column is filled while it is in cache.
constexpr index_t kMinBand = 64;
// A 2-D header needs about 100 bytes; numpy itself refuses more than 10000 by default.
constexpr std::int64_t kMaxHeaderLength = std::int64_t{1} << 20;
constexpr std::size_t kMaxQuotedHeader = 120;
constexpr int kMaxNesting = 16;

const char* const kExpectedDtypes =
    " (expected float32 or float64: '<f4', '<f8', '>f4' or '>f8'; int32 and int64 ('<i4', '<i8', "
    "'>i4', '>i8') are converted too; '=' and '|' mean this machine's byte order)";

using Dtype = NpyDtype;
using Header = NpyHeader;

std::string escape(std::string_view text, std::size_t limit) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < std::min(text.size(), limit); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += static_cast<char>(byte);
    }
  }
  if (text.size() > limit) {
    out += "...";
  }
  return out;
}

std::string format_shape(const std::vector<index_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string format_value(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof(text), value).ptr);
}

// Product of `factor` and the dimensions, or false when it overflows 64 bits. Checked before
// each multiplication, so a lying header can never make us allocate or seek absurdly.
bool checked_product(const std::vector<index_t>& dims, index_t factor, index_t& product) {
  if (std::find(dims.begin(), dims.end(), index_t{0}) != dims.end()) {
    product = 0;
    return true;
  }
  product = factor;
  for (const index_t dim : dims) {
    if (product > std::numeric_limits<index_t>::max() / dim) {
      return false;
    }
    product *= dim;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The header is a Python dict literal. It is parsed as one (nested values included) rather than
// pattern-matched, so that key order, spacing, trailing commas and odd values are all handled
// and reported precisely.

struct Literal {
  enum class Kind { string, integer, number, boolean, none, tuple, list, dict };
  Kind kind = Kind::none;
  std::string_view source;  // as written, for messages
  std::string text;         // contents of a string
  std::int64_t integer = 0;
  bool overflow = false;  // an integer beyond 64 bits
  bool boolean = false;
  std::vector<Literal> items;  // dict: key, value, key, value, ...
};

class LiteralParser {
 public:
  LiteralParser(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  Literal parse_header_dict() {
    skip_space();
    if (peek() != '{') {
      fail("expected '{'");
    }
    Literal dict = parse_value(0);
    skip_space();
    if (position_ != text_.size()) {
      fail("unexpected text after the closing '}'");
    }
    return dict;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path_, "malformed .npy header: " + what + " at offset " +
                                std::to_string(position_) + " in \"" +
                                escape(text_, kMaxQuotedHeader) + "\"");
  }

  char peek() const { return position_ < text_.size() ? text_[position_] : '\0'; }

  void skip_space() {
    while (position_ < text_.size() && std::strchr(" \t\r\n", text_[position_]) != nullptr) {
      ++position_;
    }
  }

  static bool is_word_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '.';
  }

  Literal parse_value(int depth) {
    if (depth > kMaxNesting) {
      fail("values nested too deeply");
    }
    skip_space();
    const std::size_t start = position_;
    Literal value;
    const char c = peek();
    if (position_ >= text_.size()) {
      fail("unexpected end of header");
    } else if (c == '\'' || c == '"') {
      value = parse_string();
    } else if (c == '(') {
      value = parse_sequence(')', Literal::Kind::tuple, depth);
    } else if (c == '[') {
      value = parse_sequence(']', Literal::Kind::list, depth);
    } else if (c == '{') {
      value = parse_dict(depth);
    } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
      value = parse_number();
    } else if (is_word_char(c)) {
      value = parse_word();
    } else {
      fail("unexpected character '" + escape(std::string_view(&c, 1), 1) + "'");
    }
    if (value.source.empty()) {
      value.source = text_.substr(start, position_ - start);
    }
    return value;
  }

  Literal parse_string() {
    const char quote = text_[position_++];
    Literal value;
    value.kind = Literal::Kind::string;
    while (true) {
      if (position_ >= text_.size()) {
        fail("unterminated string");
      }
      char c = text_[position_++];
      if (c == quote) {
        return value;
      }
      if (c == '\\') {
        if (position_ >= text_.size()) {
          fail("unterminated string");
        }
        c = text_[position_++];
      }
      value.text += c;
    }
  }

  Literal parse_number() {
    const std::size_t start = position_;
    if (peek() == '-' || peek() == '+') {
      ++position_;
    }
    // Also swallows exponents and suffixes ("1e-3", "5L", "2j") to classify them below.
    while (is_word_char(peek()) ||
           ((peek() == '-' || peek() == '+') && (text_[position_ - 1] | 0x20) == 'e')) {
      ++position_;
    }
    std::string_view token = text_.substr(start, position_ - start);
    Literal value;
    value.kind = Literal::Kind::number;
    // Python 2 wrote shapes as "(3L, 4L)".
    if (!token.empty() && (token.back() == 'L' || token.back() == 'l')) {
      token.remove_suffix(1);
    }
    std::string_view digits = token;
    if (!digits.empty() && digits.front() == '+') {
      digits.remove_prefix(1);
    }
    const std::size_t first_digit = !digits.empty() && digits.front() == '-' ? 1 : 0;
    if (digits.size() > first_digit &&
        digits.find_first_not_of("0123456789", first_digit) == std::string_view::npos) {
      value.kind = Literal::Kind::integer;
      const auto [ptr, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), value.integer);
      value.overflow = ec != std::errc();
    }
    return value;
  }

  Literal parse_word() {
    const std::size_t start = position_;
    while (is_word_char(peek())) {
      ++position_;
    }
    const std::string_view word = text_.substr(start, position_ - start);
    Literal value;
    if (word == "True" || word == "False") {
      value.kind = Literal::Kind::boolean;
      value.boolean = word == "True";
    } else if (word == "None") {
      value.kind = Literal::Kind::none;
    } else {
      position_ = start;
      fail("unexpected name '" + escape(word, 40) + "'");
    }
    return value;
  }

  Literal parse_sequence(char close, Literal::Kind kind, int depth) {
    ++position_;
    Literal value;
    value.kind = kind;
    bool saw_comma = false;
    while (true) {
      skip_space();
      if (peek() == close) {
        ++position_;
        break;
      }
      value.items.push_back(parse_value(depth + 1));
      skip_space();
      if (peek() == ',') {
        ++position_;
        saw_comma = true;
      } else if (peek() == close) {
        ++position_;
        break;
      } else {
        fail(std::string("expected ',' or '") + close + "'");
      }
    }
    // As in Python, "(5)" is the number 5, not a tuple.
    if (kind == Literal::Kind::tuple && value.items.size() == 1 && !saw_comma) {
      return std::move(value.items.front());
    }
    return value;
  }

  Literal parse_dict(int depth) {
    ++position_;
    Literal value;
    value.kind = Literal::Kind::dict;
    while (true) {
      skip_space();
      if (peek() == '}') {
        ++position_;
        return value;
      }
      value.items.push_back(parse_value(depth + 1));
      skip_space();
      if (peek() != ':') {
        fail("expected ':' after key " + escape(value.items.back().source, 40));
      }
      ++position_;
      value.items.push_back(parse_value(depth + 1));
      skip_space();
      if (peek() == ',') {
        ++position_;
      } else if (peek() != '}') {
        fail("expected ',' or '}'");
      }
    }
  }

  const std::string& path_;
  std::string_view text_;
  std::size_t position_ = 0;
};

Dtype parse_dtype(const std::string& path, const Literal& descr) {
  if (descr.kind != Literal::Kind::string) {
    throw InputError(path, "unsupported dtype " + escape(descr.source, 60) +
                               (descr.kind == Literal::Kind::list ? " (a structured array)" : "") +
                               kExpectedDtypes);
  }
  const std::string& s = descr.text;
  // '|' ("not applicable") is what numpy writes for one-byte types; for wider ones numpy itself
  // reads it as the machine's order, like '='.
  const bool supported = s.size() == 3 &&
                         (s[0] == '<' || s[0] == '>' || s[0] == '=' || s[0] == '|') &&
                         (s[1] == 'f' || s[1] == 'i') && (s[2] == '4' || s[2] == '8');
  if (!supported) {
    throw InputError(path, "unsupported dtype '" + escape(s, 40) + "'" + kExpectedDtypes);
  }
  Dtype dtype;
  dtype.kind = s[1];
  dtype.size = s[2] - '0';
  dtype.swap = (s[0] == '<' && !kLittleEndianHost) || (s[0] == '>' && kLittleEndianHost);
  dtype.descr = s;
  return dtype;
}

std::vector<index_t> parse_shape(const std::string& path, const Literal& shape) {
  const std::string expected = "'shape' must be a tuple of non-negative integers, found ";
  if (shape.kind != Literal::Kind::tuple) {
    throw InputError(path, "malformed .npy header: " + expected + escape(shape.source, 60));
  }
  std::vector<index_t> dims;
  for (const Literal& item : shape.items) {
    if (item.kind != Literal::Kind::integer || item.overflow || item.integer < 0) {
      throw InputError(path, "malformed .npy header: " + expected + escape(shape.source, 60) +
                                 " (bad dimension " + escape(item.source, 40) + ")");
    }
    dims.push_back(item.integer);
  }
  return dims;
}

Header parse_header(const std::string& path, std::string_view text) {
  const Literal dict = LiteralParser(path, text).parse_header_dict();
  const Literal* descr = nullptr;
  const Literal* fortran_order = nullptr;
  const Literal* shape = nullptr;
  for (std::size_t i = 0; i < dict.items.size(); i += 2) {
    const Literal& key = dict.items[i];
    const Literal** slot = nullptr;
    if (key.kind == Literal::Kind::string) {
      slot = key.text == "descr"           ? &descr
             : key.text == "fortran_order" ? &fortran_order
             : key.text == "shape"         ? &shape
                                           : nullptr;
    }
    if (slot == nullptr) {
      throw InputError(path, "malformed .npy header: unexpected key " + escape(key.source, 40) +
                                 " (expected 'descr', 'fortran_order' and 'shape')");
    }
    if (*slot != nullptr) {
      throw InputError(path, "malformed .npy header: duplicate key " + escape(key.source, 40));
    }
    *slot = &dict.items[i + 1];
  }
  for (const auto& [name, value] :
       {std::pair{"descr", descr}, std::pair{"fortran_order", fortran_order},
        std::pair{"shape", shape}}) {
    if (value == nullptr) {
      throw InputError(path, std::string("malformed .npy header: missing key '") + name + "'");
    }
  }
  if (fortran_order->kind != Literal::Kind::boolean) {
    throw InputError(path, "malformed .npy header: 'fortran_order' must be True or False, found " +
                               escape(fortran_order->source, 40));
  }
  Header header;
  header.dtype = parse_dtype(path, *descr);
  header.fortran_order = fortran_order->boolean;
  header.shape = parse_shape(path, *shape);
  return header;
}

Header read_header(ByteSource& file) {
  const std::string& path = file.path();
  if (file.size() < 0) {
    throw InputError(path, "not a regular file (a .npy file is read by size and offset)");
  }
  unsigned char prefix[12] = {};
  const std::size_t got =
      static_cast<std::size_t>(std::min<std::int64_t>(file.size(), sizeof(prefix)));
  file.read_at(0, prefix, got);
  if (got < kMagic.size() || std::memcmp(prefix, kMagic.data(), kMagic.size()) != 0) {
    throw InputError(path, "not a .npy file: it does not start with the magic string \\x93NUMPY");
  }
  const std::string truncated =
      "truncated .npy header (the file has only " + std::to_string(file.size()) + " bytes)";
  if (got < 8) {
    throw InputError(path, truncated);
  }
  const int major = prefix[6];
  const int minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0) {
    throw InputError(path, "unsupported .npy format version " + std::to_string(major) + "." +
                               std::to_string(minor) + " (expected 1.0, 2.0 or 3.0)");
  }
  // Version 1.0 stores the header length in 2 bytes, later versions in 4; always little-endian.
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (got < 8 + length_bytes) {
    throw InputError(path, truncated);
  }
  std::int64_t header_length = 0;
  for (std::size_t i = 0; i < length_bytes; ++i) {
    header_length |= std::int64_t{prefix[8 + i]} << (8 * i);
  }
  const std::int64_t header_start = 8 + static_cast<std::int64_t>(length_bytes);
  if (header_start + header_length > file.size()) {
    throw InputError(path, "header length " + std::to_string(header_length) +
                               " runs past the end of the file (the header would end at byte " +
                               std::to_string(header_start + header_length) + ", the file has " +
                               std::to_string(file.size()) + " bytes)");
  }
  if (header_length > kMaxHeaderLength) {
    throw InputError(path, "header length " + std::to_string(header_length) +
                               " is implausibly large (at most " +
                               std::to_string(kMaxHeaderLength) + " bytes accepted)");
  }
  std::string text(static_cast<std::size_t>(header_length), '\0');
  file.read_at(header_start, text.data(), text.size());
  Header header = parse_header(path, text);
  header.data_offset = header_start + header_length;
  return header;
}

// Checks that what follows the header is exactly the declared array; returns its element count.
index_t check_data_size(const ByteSource& file, const Header& header) {
  const std::string& path = file.path();
  const std::string what =
      "shape " + format_shape(header.shape) + " of dtype '" + header.dtype.descr + "'";
  index_t bytes = 0;
  if (!checked_product(header.shape, header.dtype.size, bytes)) {
    throw InputError(path, what + " is too large: its size in bytes overflows 64 bits");
  }
  const std::int64_t found = file.size() - header.data_offset;
  if (bytes != found) {
    throw InputError(path, std::string(bytes > found ? "truncated data: " : "trailing bytes: ") +
                               what + " needs " + std::to_string(bytes) +
                               " bytes of data, but the file has " + std::to_string(found) +
                               " bytes after the header");
  }
  return bytes / header.dtype.size;
}

// ---------------------------------------------------------------------------------------------
// Element conversion: byte order, dtype and the finiteness check, a chunk at a time.

template <class Src>
using Bits = std::conditional_t<sizeof(Src) == 4, std::uint32_t, std::uint64_t>;

inline std::uint32_t byte_swap(std::uint32_t bits) {
  return __builtin_bswap32(bits);
}
inline std::uint64_t byte_swap(std::uint64_t bits) {
  return __builtin_bswap64(bits);
}

template <class Src, bool kSwap>
Src load(const unsigned char* bytes) {
  Bits<Src> bits;
  std::memcpy(&bits, bytes, sizeof(bits));
  if constexpr (kSwap) {
    bits = byte_swap(bits);
  }
  Src value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

template <class Src, bool kSwap, class T>
void convert(const unsigned char* bytes, index_t count, T* out) {
  for (index_t i = 0; i < count; ++i) {
    out[i] = static_cast<T>(load<Src, kSwap>(bytes + i * index_t{sizeof(Src)}));
  }
}

template <class Src, class T>
void convert(const unsigned char* bytes, index_t count, bool swap, T* out) {
  if (swap) {
    convert<Src, true>(bytes, count, out);
  } else {
    convert<Src, false>(bytes, count, out);
  }
}

template <class T>
void decode(const Dtype& dtype, const unsigned char* bytes, index_t count, T* out) {
  if (dtype.kind == 'f') {
    dtype.size == 4 ? convert<float>(bytes, count, dtype.swap, out)
                    : convert<double>(bytes, count, dtype.swap, out);
  } else {
    dtype.size == 4 ? convert<std::int32_t>(bytes, count, dtype.swap, out)
                    : convert<std::int64_t>(bytes, count, dtype.swap, out);
  }
}

double load_as_double(const Dtype& dtype, const unsigned char* bytes) {
  double value = 0;
  decode(dtype, bytes, 1, &value);
  return value;
}

template <class T>
void swap_in_place(T* values, index_t count) {
  for (index_t i = 0; i < count; ++i) {
    Bits<T> bits;
    std::memcpy(&bits, values + i, sizeof(bits));
    bits = byte_swap(bits);
    std::memcpy(values + i, &bits, sizeof(bits));
  }
}

template <class T>
const char* type_name() {
  return sizeof(T) == 4 ? "float32" : "float64";
}

template <class T>
class ElementReader {
 public:
  ElementReader(ByteSource& file, const Header& header) : file_(file), header_(header) {}

  /// Reads elements [first, first + count) of the data into `out`, converted to T. Returns the
  /// offset within the range of the first value that is not finite (or not finite once converted
  /// to T), or -1. Reading stops there.
  index_t read(index_t first, index_t count, T* out) {
    const Dtype& dtype = header_.dtype;
    const index_t size = dtype.size;
    const bool direct = dtype.kind == 'f' && size == index_t{sizeof(T)};
    const index_t chunk = static_cast<index_t>(kChunkBytes) / size;
    for (index_t done = 0; done < count;) {
      const index_t n = std::min(chunk, count - done);
      const std::int64_t offset = header_.data_offset + (first + done) * size;
      const auto bytes = static_cast<std::size_t>(n * size);
      T* const dst = out + done;
      if (direct) {
        // Same representation as T: straight into place, no second copy of the data.
        file_.read_at(offset, dst, bytes);
        if (dtype.swap) {
          swap_in_place(dst, n);
        }
      } else {
        buffer_.resize(std::max(buffer_.size(), bytes));
        file_.read_at(offset, buffer_.data(), bytes);
        decode(dtype, buffer_.data(), n, dst);
      }
      if (dtype.kind == 'f') {
        const index_t bad = support::first_non_finite(dst, n);
        if (bad >= 0) {
          bad_source_ = direct ? static_cast<double>(dst[bad])
                               : load_as_double(dtype, buffer_.data() + bad * size);
          return done + bad;
        }
      }
      done += n;
    }
    return -1;
  }

  /// The value in the file of the element last reported by read().
  double bad_source() const noexcept { return bad_source_; }

 private:
  ByteSource& file_;
  const Header& header_;
  std::vector<unsigned char> buffer_;
  double bad_source_ = 0;
};

template <class T>
[[noreturn]] void throw_bad_value(const std::string& path, double source,
                                  const std::string& where) {
  if (std::isfinite(source)) {
    throw InputError(path, "value " + format_value(source) + " at " + where +
                               " is out of range for " + type_name<T>());
  }
  throw InputError(path, "non-finite value " + format_value(source) + " at " + where +
                             " (every entry must be finite)");
}

std::string matrix_position(index_t row, index_t col) {
  return "row " + std::to_string(row) + ", column " + std::to_string(col) + " (0-based)";
}

// Row-major file, column-major matrix: read bands of rows (or, when rows are very long, blocks
// of a band) and transpose each tile into place. The matrix is rows first_row ... of the file,
// which has as many columns.
template <class T>
void read_transposed(const std::string& path, ElementReader<T>& reader, Matrix<T>& matrix,
                     index_t first_row = 0) {
  const index_t rows = matrix.rows();
  const index_t cols = matrix.cols();
  const auto budget = static_cast<index_t>(kChunkBytes / sizeof(T));
  const index_t band = std::min(rows, std::max(kMinBand, budget / cols));
  const index_t width = std::min(cols, std::max(index_t{1}, budget / band));
  std::vector<T> staging(static_cast<std::size_t>(band * width));
  for (index_t r0 = 0; r0 < rows; r0 += band) {
    const index_t band_rows = std::min(band, rows - r0);
    // Blocks of a band arrive column block by column block, not in file order; the error must
    // name the first bad value in file order, so the band is finished before reporting.
    index_t bad_row = -1;
    index_t bad_col = -1;
    double bad_value = 0;
    for (index_t c0 = 0; c0 < cols; c0 += width) {
      const index_t block_cols = std::min(width, cols - c0);
      if (block_cols == cols) {
        const index_t bad = reader.read((first_row + r0) * cols, band_rows * cols, staging.data());
        if (bad >= 0) {
          throw_bad_value<T>(path, reader.bad_source(),
                             matrix_position(first_row + r0 + bad / cols, bad % cols));
        }
      } else {
        for (index_t r = 0; r < band_rows; ++r) {
          const index_t bad = reader.read((first_row + r0 + r) * cols + c0, block_cols,
                                          staging.data() + r * block_cols);
          if (bad >= 0 && (bad_row < 0 || r0 + r < bad_row)) {
            bad_row = r0 + r;
            bad_col = c0 + bad;
            bad_value = reader.bad_source();
          }
        }
      }
      support::transpose_into(staging.data(), block_cols, band_rows, block_cols,
                              matrix.data() + r0 + c0 * rows, rows);
    }
    if (bad_row >= 0) {
      throw_bad_value<T>(path, bad_value, matrix_position(first_row + bad_row, bad_col));
    }
  }
}

template <class T>
constexpr const char* little_endian_descr() {
  if constexpr (std::is_same_v<T, float>) {
    return "<f4";
  } else if constexpr (std::is_same_v<T, double>) {
    return "<f8";
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return "<i4";
  } else {
    static_assert(std::is_same_v<T, std::int64_t>,
                  "write_npy supports float, double, int32, int64");
    return "<i8";
  }
}

std::string npy_preamble(const char* descr, bool fortran_order, const std::vector<index_t>& shape) {
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': " + (fortran_order ? "True" : "False") +
                     ", 'shape': " + format_shape(shape) + ", }";
  // Magic, version and the 2-byte length come first; the dict ends with '\n'.
  const std::size_t unpadded = kMagic.size() + 2 + 2 + dict.size() + 1;
  dict.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  dict += '\n';
  std::string preamble(kMagic);
  preamble += '\x01';
  preamble += '\x00';
  preamble += static_cast<char>(dict.size() & 0xff);
  preamble += static_cast<char>((dict.size() >> 8) & 0xff);
  return preamble + dict;
}

}  // namespace

NpyHeader read_npy_header(ByteSource& file) {
  NpyHeader header = read_header(file);
  check_data_size(file, header);
  return header;
}

std::string npy_shape_text(const std::vector<index_t>& shape) {
  return format_shape(shape);
}

index_t decode_npy_checked(const NpyDtype& dtype, const unsigned char* bytes, index_t count,
                           double* out) {
  decode(dtype, bytes, count, out);
  return dtype.kind == 'f' ? support::first_non_finite(out, count) : -1;
}

void throw_npy_nonfinite(const std::string& path, double value, const std::string& where) {
  throw_bad_value<double>(path, value, where);
}

namespace {

// The header of a 2-D array with at least one element, checked against the file's size.
Header read_matrix_header(ByteSource& file) {
  const std::string& path = file.path();
  const Header header = read_header(file);
  if (header.shape.size() != 2) {
    throw InputError(
        path, "expected a 2-D array of shape (S, n), got shape " + format_shape(header.shape));
  }
  check_data_size(file, header);
  if (header.shape[0] == 0 || header.shape[1] == 0) {
    throw InputError(path, "empty array of shape " + format_shape(header.shape) +
                               " (expected at least one row and one column)");
  }
  return header;
}

}  // namespace

template <class T>
MatrixShare<T> read_npy_matrix_share(ByteSource& file, DatapointAxis axis, int rank, int ranks) {
  const std::string& path = file.path();
  const Header header = read_matrix_header(file);
  MatrixShare<T> share;
  share.rows = header.shape[0];
  share.cols = header.shape[1];
  const bool by_column = axis == DatapointAxis::columns;
  const DatapointRange range = datapoint_range(by_column ? share.cols : share.rows, rank, ranks);
  share.first = range.first;
  // The block: all of the other axis, the range's datapoints.
  const index_t rows = by_column ? share.rows : range.count;
  const index_t cols = by_column ? range.count : share.cols;
  share.values = Matrix<T>(rows, cols);
  if (rows == 0 || cols == 0) {
    return share;
  }
  ElementReader<T> reader(file, header);
  T* const out = share.values.data();
  // A single row or column is laid out the same way in either order.
  const bool column_major = header.fortran_order || share.rows == 1 || share.cols == 1;
  if (column_major == by_column) {
    // The block's elements are one run of the file: columns of a column-major file, rows of a
    // row-major one.
    const index_t run = by_column ? share.rows : share.cols;
    if (by_column) {
      const index_t bad = reader.read(range.first * run, range.count * run, out);
      if (bad >= 0) {
        throw_bad_value<T>(path, reader.bad_source(),
                           matrix_position(bad % run, range.first + bad / run));
      }
    } else {
      read_transposed(path, reader, share.values, range.first);
    }
    return share;
  }
  // One run per line of the other axis (in file order, so the first bad value is the file's
  // first): a row's columns of a row-major file go through a staging row, a column's rows of a
  // column-major file straight into place.
  if (by_column) {
    std::vector<T> staging(static_cast<std::size_t>(cols));
    for (index_t r = 0; r < rows; ++r) {
      const index_t bad = reader.read(r * share.cols + range.first, cols, staging.data());
      if (bad >= 0) {
        throw_bad_value<T>(path, reader.bad_source(), matrix_position(r, range.first + bad));
      }
      for (index_t c = 0; c < cols; ++c) {
        out[r + c * rows] = staging[static_cast<std::size_t>(c)];
      }
    }
  } else {
    for (index_t c = 0; c < cols; ++c) {
      const index_t bad = reader.read(c * share.rows + range.first, rows, out + c * rows);
      if (bad >= 0) {
        throw_bad_value<T>(path, reader.bad_source(), matrix_position(range.first + bad, c));
      }
    }
  }
  return share;
}

template <class T>
Matrix<T> read_npy_matrix(ByteSource& file) {
  const std::string& path = file.path();
  const Header header = read_matrix_header(file);
  const index_t rows = header.shape[0];
  const index_t cols = header.shape[1];
  Matrix<T> matrix(rows, cols);
  ElementReader<T> reader(file, header);
  // A single row or column is laid out the same way in either order.
  if (header.fortran_order || rows == 1 || cols == 1) {
    const index_t bad = reader.read(0, rows * cols, matrix.data());
    if (bad >= 0) {
      throw_bad_value<T>(path, reader.bad_source(), matrix_position(bad % rows, bad / rows));
    }
  } else {
    read_transposed(path, reader, matrix);
  }
  return matrix;
}

template <class T>
std::vector<T> read_npy_vector(ByteSource& file) {
  const std::string& path = file.path();
  const Header header = read_header(file);
  const std::vector<index_t>& shape = header.shape;
  if (shape.size() != 1 && !(shape.size() == 2 && (shape[0] == 1 || shape[1] == 1))) {
    throw InputError(path, "expected a vector of shape (m,), (m, 1) or (1, m), got shape " +
                               format_shape(shape));
  }
  const index_t count = check_data_size(file, header);
  if (count == 0) {
    throw InputError(path, "empty vector of shape " + format_shape(shape));
  }
  std::vector<T> values(static_cast<std::size_t>(count));
  ElementReader<T> reader(file, header);
  const index_t bad = reader.read(0, count, values.data());
  if (bad >= 0) {
    throw_bad_value<T>(path, reader.bad_source(), "index " + std::to_string(bad) + " (0-based)");
  }
  return values;
}

template <class T>
Matrix<T> read_npy_matrix(const std::string& path) {
  InputFile file(path);
  return read_npy_matrix<T>(file);
}

template <class T>
std::vector<T> read_npy_vector(const std::string& path) {
  InputFile file(path);
  return read_npy_vector<T>(file);
}

template MatrixShare<float> read_npy_matrix_share<float>(ByteSource&, DatapointAxis, int, int);
template MatrixShare<double> read_npy_matrix_share<double>(ByteSource&, DatapointAxis, int, int);
template Matrix<float> read_npy_matrix<float>(ByteSource&);
template Matrix<double> read_npy_matrix<double>(ByteSource&);
template std::vector<float> read_npy_vector<float>(ByteSource&);
template std::vector<double> read_npy_vector<double>(ByteSource&);
template Matrix<float> read_npy_matrix<float>(const std::string&);
template Matrix<double> read_npy_matrix<double>(const std::string&);
template std::vector<float> read_npy_vector<float>(const std::string&);
template std::vector<double> read_npy_vector<double>(const std::string&);

}  // namespace detail

template <class T>
void write_npy(const std::string& path, const T* data, const std::vector<index_t>& shape,
               bool fortran_order) {
  if (shape.size() != 1 && shape.size() != 2) {
    throw InvalidArgument("write_npy: shape must have 1 or 2 dimensions, got " +
                          std::to_string(shape.size()));
  }
  if (std::any_of(shape.begin(), shape.end(), [](index_t dim) { return dim < 0; })) {
    throw InvalidArgument("write_npy: negative dimension in shape " + detail::format_shape(shape));
  }
  index_t bytes = 0;
  if (!detail::checked_product(shape, index_t{sizeof(T)}, bytes)) {
    throw InvalidArgument("write_npy: shape " + detail::format_shape(shape) + " is too large");
  }
  if (data == nullptr && bytes > 0) {
    throw InvalidArgument("write_npy: no data for shape " + detail::format_shape(shape));
  }
  detail::AtomicFile file(path);
  const std::string preamble =
      detail::npy_preamble(detail::little_endian_descr<T>(), fortran_order, shape);
  file.write(preamble.data(), preamble.size());
  if constexpr (detail::kLittleEndianHost) {
    file.write(data, static_cast<std::size_t>(bytes));
  } else {
    const index_t count = bytes / index_t{sizeof(T)};
    std::vector<T> chunk(detail::kChunkBytes / sizeof(T));
    for (index_t done = 0; done < count;) {
      const index_t n = std::min(static_cast<index_t>(chunk.size()), count - done);
      std::copy(data + done, data + done + n, chunk.data());
      detail::swap_in_place(chunk.data(), n);
      file.write(chunk.data(), static_cast<std::size_t>(n) * sizeof(T));
      done += n;
    }
  }
  file.commit();
}

template void write_npy<float>(const std::string&, const float*, const std::vector<index_t>&, bool);
template void write_npy<double>(const std::string&, const double*, const std::vector<index_t>&,
                                bool);
template void write_npy<std::int32_t>(const std::string&, const std::int32_t*,
                                      const std::vector<index_t>&, bool);
template void write_npy<std::int64_t>(const std::string&, const std::int64_t*,
                                      const std::vector<index_t>&, bool);

}  // namespace coreset::io
