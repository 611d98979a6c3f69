// The readers behind coreset/io.hpp, over a LineReader or a ByteSource rather than a path, so
// that the same code reads files and bytes in memory (the fuzz targets' entry points).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "io/csv_parse.hpp"
#include "io/input_file.hpp"

namespace coreset::io {

/// Throws InvalidArgument unless `delimiter` is 0 (detect), ',', ';' or '\t'.
inline void check_delimiter(char delimiter) {
  if (delimiter != 0 && delimiter != ',' && delimiter != ';' && delimiter != '\t') {
    throw InvalidArgument("the CSV delimiter must be ',', ';' or a tab, got " +
                          detail::quote_cell(std::string_view(&delimiter, 1)));
  }
}

namespace detail {

/// Bytes of text per thread in one block of the parallel CSV reader.
inline constexpr std::size_t kParallelBytesPerThread = std::size_t{4} << 20;

/// support::resolve_threads for a reader's `threads` option: InvalidArgument when negative.
int resolve_threads(int threads);

/// With `threads` 0, line by line on the calling thread (the reference); with `threads` >= 1,
/// on that many threads a block of `block_bytes` (0: the reader's chunk) at a time, with the
/// same result and the same first error. With ranks > 1, only rank `rank`'s share of the rows
/// (datapoint_range) is parsed: the other lines are only scanned for their ends (LineReader
/// counts every line first) (Dataset::first_row, total_rows and first_data_line say where).
Dataset read_dataset_csv(LineReader& lines, const std::string& response, bool has_response,
                         char delimiter, int threads = 0, std::size_t block_bytes = 0, int rank = 0,
                         int ranks = 1);
/// Rank comm.rank()'s share of the CSV file `path`, found by byte range
/// (DatasetReadOptions::communicator): the same Dataset as read_dataset_csv_share gives it, but
/// the rank reads only its 1/R of the file for line ends, then its share's lines from where they
/// start, in chunks of `chunk_bytes` (0: as read_dataset_csv_share). A collective.
Dataset read_dataset_csv_by_byte_range(const std::string& path, const std::string& response,
                                       bool has_response, char delimiter, int threads,
                                       const Communicator& comm, std::size_t chunk_bytes = 0);
/// The CSV file `path` as read_dataset_csv(path, ...) reads it, as rank `rank`'s share.
Dataset read_dataset_csv_share(const std::string& path, const std::string& response,
                               bool has_response, char delimiter, int threads, int rank, int ranks);
Dataset read_dataset_libsvm(LineReader& lines, bool has_response, index_t features);
/// As above, refusing (InputError) a dense covariate matrix of more than `memory_limit` bytes
/// (the one-argument form: the machine's physical memory).
Dataset read_dataset_libsvm(LineReader& lines, bool has_response, index_t features,
                            std::int64_t memory_limit);
/// Rank comm.rank()'s share of the LIBSVM file `path`, found by byte range (FileLines): the same
/// Dataset as the whole file's read_dataset_libsvm cut by keep_share, but the rank reads only
/// its 1/R of the file for line ends, a few lines at the start and end (where the rows begin and
/// end), and its share's lines (checked, then filled), in chunks of `chunk_bytes` (0: the
/// default). D, when `features` is 0, is the largest index over the ranks. An error in a share
/// names the whole file's line; every rank throws the first one in the file. A collective.
Dataset read_dataset_libsvm_by_byte_range(const std::string& path, bool has_response,
                                          index_t features, const Communicator& comm,
                                          std::size_t chunk_bytes = 0);
/// read_coreset_csv(path[, dataset_rows]) on `lines`; dataset_rows < 0: indices unbounded.
Coreset read_coreset_csv(LineReader& lines, index_t dataset_rows = -1);
/// Rank comm.rank()'s block of rows of the table read_csv_matrix reads from `path` (the rows
/// datapoint_range gives), found by byte range (FileLines) and read in chunks of `chunk_bytes`
/// (0: the default): no rank reads all of the file. Errors in the block name the whole file's
/// lines. A collective.
template <class T>
MatrixShare<T> read_csv_matrix_rows_share(const std::string& path, const Communicator& comm,
                                          std::size_t chunk_bytes = 0);

/// The .npy dataset in `bytes` (the whole file, as mapped), whose header `file` reads. With
/// ranks > 1, only rank `rank`'s share of the rows (datapoint_range; Dataset::first_row and
/// total_rows say which): the other rows' bytes are never read.
Dataset read_dataset_npy(ByteSource& file, std::string_view bytes, index_t response_column,
                         bool has_response, int threads, int rank = 0, int ranks = 1);
/// The file `path` mapped and read as above.
Dataset read_dataset_npy_share(const std::string& path, index_t response_column, bool has_response,
                               int threads, int rank, int ranks);
/// Cuts a whole dataset read from a file to rank `rank`'s share of its rows (datapoint_range),
/// keeping its line numbers right (first_data_line) and setting first_row and total_rows.
void keep_share(Dataset& data, int rank, int ranks);

template <class T>
Matrix<T> read_npy_matrix(ByteSource& source);
template <class T>
std::vector<T> read_npy_vector(ByteSource& source);

}  // namespace detail
}  // namespace coreset::io
