// on_every_rank (coreset/distributed.hpp): a step's failure on any rank becomes the same error on
// every rank. Here, in the lowest layer, because the readers run collective steps too (a CSV
// file's share by byte range, io::DatasetReadOptions::communicator).
#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"

namespace coreset {

Communicator::~Communicator() = default;

namespace {

// The message of the last error on_every_rank threw on this thread. A step may itself run
// on_every_rank (a collective read inside the step of a command): then every rank throws that
// agreed error, which already names its rank, and the enclosing call passes it on unchanged
// instead of naming rank 0, the lowest of the ranks that threw it.
thread_local std::string last_agreed_message;

// An error crossing ranks: '!' when it was agreed already, its type as a letter, then
// (InputError) its place, then the message.
std::string encode(char kind, const std::exception& error, const InputError* input = nullptr) {
  const std::string message = error.what();
  std::string out = message == last_agreed_message ? "!" : "";
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

template <class E>
[[noreturn]] void throw_agreed(const E& error) {
  last_agreed_message = error.what();
  throw error;
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
      throw_agreed(InvalidArgument(message + where));
    case 'N':
      throw_agreed(NumericalError(message + where));
    case 'O':
      throw_agreed(OutputError(message + where));
    case 'D':
      throw_agreed(DeviceError(message + where));
    case 'C':
      throw_agreed(Cancelled(message + where));
    case 'I': {
      const std::size_t a = message.find('\n');
      const std::size_t b = message.find('\n', a + 1);
      const std::size_t c = message.find('\n', b + 1);
      throw_agreed(InputError(message.substr(b + 1, c - b - 1), message.substr(c + 1) + where,
                              std::stoll(message.substr(0, a)),
                              std::stoll(message.substr(a + 1, b - a - 1))));
    }
    default:
      throw_agreed(Error(message + where));
  }
}

}  // namespace

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
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty()) {
      rethrow(all[r], static_cast<int>(r), comm->size());
    }
  }
}

}  // namespace coreset
