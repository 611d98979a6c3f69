// on_every_rank (coreset/distributed.hpp): a step's failure on any rank becomes the same error on
// every rank. Here, in the lowest layer, because the readers run collective steps too (a CSV
// file's share by byte range, io::DatasetReadOptions::communicator).
#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"

namespace coreset {

namespace {

// The digits at `p` of `text`, if any; moves `p` past them.
bool skip_digits(const std::string& text, std::size_t& p) {
  const std::size_t start = p;
  while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) != 0) {
    ++p;
  }
  return p > start;
}

// An error crossing ranks: '!' when every rank threw it alike already (a step's own
// on_every_rank agreed on it), its type as a letter, then (InputError) its place, then the
// message.
std::string encode(char kind, const std::exception& error, const InputError* input = nullptr) {
  const std::string message = error.what();
  std::string out = thrown_on_every_rank(message) ? "!" : "";
  out += kind;
  if (input != nullptr) {
    const std::string place = InputError(input->file(), "", input->line(), input->column()).what();
    out += std::to_string(input->line()) + "\n" + std::to_string(input->column()) + "\n" +
           input->file() + "\n" + message.substr(std::min(place.size(), message.size()));
  } else {
    out += message;
  }
  return out;
}

// What encode() wrote after the kind letter of an InputError: its place, file and message.
struct EncodedInput {
  index_t line = 0;
  index_t column = 0;
  std::string file;
  std::string message;
};
EncodedInput decode_input(const std::string& body) {
  const std::size_t a = body.find('\n');
  const std::size_t b = body.find('\n', a + 1);
  const std::size_t c = body.find('\n', b + 1);
  return {std::stoll(body.substr(0, a)), std::stoll(body.substr(a + 1, b - a - 1)),
          body.substr(b + 1, c - b - 1), body.substr(c + 1)};
}

[[noreturn]] void rethrow(std::string failure, int rank, int ranks) {
  const bool agreed = failure[0] == '!';
  if (agreed) {
    failure.erase(0, 1);
  }
  const std::string where =
      agreed ? "" : " (rank " + std::to_string(rank) + " of " + std::to_string(ranks) + ")";
  const std::string message = failure.substr(1);
  switch (failure[0]) {
    case 'A':
      throw InvalidArgument(message + where);
    case 'N':
      throw NumericalError(message + where);
    case 'O':
      throw OutputError(message + where);
    case 'D':
      throw DeviceError(message + where);
    case 'C':
      throw Cancelled(message + where);
    case 'I': {
      const EncodedInput input = decode_input(message);
      throw InputError(input.file, input.message + where, input.line, input.column);
    }
    default:
      throw Error(message + where);
  }
}

// An encoded failure's place in its file, when it is an InputError at a line.
std::optional<EncodedInput> input_place(const std::string& failure) {
  const std::size_t kind = failure[0] == '!' ? 1 : 0;
  if (failure.size() <= kind || failure[kind] != 'I') {
    return std::nullopt;
  }
  EncodedInput place = decode_input(failure.substr(kind + 1));
  if (place.line == 0) {
    return std::nullopt;
  }
  return place;
}

// Which rank's failure every rank throws (all.size() when none failed): the lowest rank's, except
// that when it is a bad place in a file, the earliest place in that file that any rank found
// (line, then column), which is the one a single process reading the whole file reports first. A
// rank's share of a file is a block of its lines (the lowest rank's first error is then the
// earliest) or, for a CSV Phi, a block of its columns on every line (then it need not be).
std::size_t first_failure(const std::vector<std::string>& all) {
  std::size_t chosen = 0;
  while (chosen < all.size() && all[chosen].empty()) {
    ++chosen;
  }
  if (chosen == all.size()) {
    return chosen;
  }
  std::optional<EncodedInput> best = input_place(all[chosen]);
  if (!best) {
    return chosen;
  }
  for (std::size_t r = chosen + 1; r < all.size(); ++r) {
    const std::optional<EncodedInput> place = all[r].empty() ? std::nullopt : input_place(all[r]);
    if (place && place->file == best->file &&
        std::pair(place->line, place->column) < std::pair(best->line, best->column)) {
      best = place;
      chosen = r;
    }
  }
  return chosen;
}

}  // namespace

bool thrown_on_every_rank(const std::string& message) {
  if (message.rfind(kStoppedOnEveryRank, 0) == 0) {
    return true;
  }
  // " (rank R of N)" at the end.
  const std::size_t at = message.rfind(" (rank ");
  if (at == std::string::npos || message.back() != ')') {
    return false;
  }
  std::size_t p = at + 7;
  if (!skip_digits(message, p) || message.compare(p, 4, " of ") != 0) {
    return false;
  }
  p += 4;
  return skip_digits(message, p) && p + 1 == message.size();
}

void on_every_rank(const Communicator* comm, const std::function<void()>& step) {
  if (comm == nullptr) {
    step();
    return;
  }
  std::string failure;
  try {
    step();
  } catch (const InputError& error) {
    failure = encode('I', error, &error);
  } catch (const InvalidArgument& error) {
    failure = encode('A', error);
  } catch (const NumericalError& error) {
    failure = encode('N', error);
  } catch (const OutputError& error) {
    failure = encode('O', error);
  } catch (const DeviceError& error) {
    failure = encode('D', error);
  } catch (const Cancelled& error) {
    failure = encode('C', error);
  } catch (const std::exception& error) {
    failure = encode('E', error);
  }
  const std::vector<std::string> all = comm->all_gather(failure);
  const std::size_t chosen = first_failure(all);
  if (chosen < all.size()) {
    rethrow(all[chosen], static_cast<int>(chosen), comm->size());
  }
}

}  // namespace coreset
