// Readers and writers for the files the engine exchanges with the outside world. Every reader
// validates what it reads and throws InputError naming the file (and line and column for text);
// every writer writes to a temporary file beside the target and renames it into place, so a
// failed or interrupted run never leaves a partial file.
//
// Common to every reader: InputError (with the file name, and line and column for text) for a
// file that is missing, unreadable, a directory, truncated or malformed; std::bad_alloc when the
// contents do not fit in memory. Common to every writer: OutputError for a folder that is missing
// or not writable, a full disk or another write failure. Numbers are stored and returned as they
// are: no function here converts units.
//
// Thread-safety: every function may be called from several threads at once. Readers share no
// state. Writers use a temporary name unique to the process and the call, so concurrent writes
// of distinct files never interfere, and concurrent writes of one file each leave a complete
// file (the last rename wins). Reading a file while another process rewrites it is safe: the
// rename is atomic.
#pragma once

#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/export.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "coreset/types.hpp"

namespace coreset::io {

/// Reads an S x n matrix from a NumPy .npy file (float32 or float64, also int32/int64 converted;
/// either byte order ('<', '>', '=' or '|'), C or Fortran order, format versions 1-3; 2-D shape
/// (S, n)) or from CSV (S lines of n numbers, no header; the delimiter, ',', ';' or tab, is
/// detected from line 1; quotes, CRLF and a byte-order mark as for read_dataset_csv). The format is
/// chosen by the ".npy" extension (any case). Values are converted to T (float or double: the two
/// instantiations the library provides). Throws InputError for an empty matrix, an unsupported
/// dtype or shape, a ragged CSV row, a cell that is not a number, and a value that is not finite or
/// not finite once converted to T, naming its position.
template <class T>
CORESET_API Matrix<T> read_matrix(const std::string& path);

/// Which axis of a matrix holds the datapoints: Phi (S x n) has them as columns, a table of
/// log-likelihoods (n x S) as rows.
enum class DatapointAxis { columns, rows };

/// A rank's block of a matrix (read_matrix_share).
template <class T>
struct MatrixShare {
  Matrix<T> values;   ///< the block: the rank's datapoints, with all of the other axis
  index_t first = 0;  ///< the block's first datapoint in the whole matrix
  index_t rows = 0;   ///< the whole matrix's shape
  index_t cols = 0;
};

/// Rank `rank` of `ranks`'s block of the matrix that read_matrix reads: the datapoints
/// datapoint_range(n, rank, ranks) (coreset/distributed.hpp) along `axis`. From a .npy file only
/// the block's elements are read, by offset, in either order (so a bad value outside the block
/// goes unnoticed: the rank that holds it finds it); a CSV Phi (datapoints as columns) is
/// scanned line by line but only the block's fields are parsed and stored (the same); a CSV
/// table with datapoints as rows is read whole, then cut. Throws as read_matrix does, naming
/// positions in the whole matrix; InvalidArgument for a rank outside 0 ... ranks - 1.
template <class T>
CORESET_API MatrixShare<T> read_matrix_share(const std::string& path, DatapointAxis axis, int rank,
                                             int ranks);
/// The same with the job's ranks (a collective: every rank calls it, with the same path and
/// axis): a CSV table whose datapoints are its rows (log-likelihoods, n lines of S numbers) is
/// then split by byte range, as read_dataset splits a CSV dataset (DatasetReadOptions::
/// communicator), so that no rank reads all of it; anything else as above.
template <class T>
CORESET_API MatrixShare<T> read_matrix_share(const std::string& path, DatapointAxis axis,
                                             const Communicator& comm);

/// Reads a vector: .npy of shape (m,), (m, 1) or (1, m); or CSV holding m numbers, one per line or
/// all on one line. T is float or double. Throws as read_matrix does (InputError also for an
/// empty vector or another shape).
template <class T>
CORESET_API std::vector<T> read_vector(const std::string& path);

/// Reads a dataset from CSV with a header row: one row per datapoint, every cell numeric and
/// finite. The delimiter is `delimiter` (',', ';' or '\t'), or with 0 the one of these that the
/// header line holds outside quotes (a tab beside a comma or semicolon is padding; two candidates
/// are an error). Fields may be quoted as in RFC 4180 ("1.5", "a ""b""", "x,y"); a quoted field
/// cannot span lines. Lines may end in CRLF; a UTF-8 byte-order mark and trailing blank lines are
/// ignored. The response is the column named `response` (empty: the last column); with
/// `has_response` false every column is a covariate. The result records the file and the line and
/// column of each row, so later validation can point at a bad cell. The file is read in chunks:
/// only the parsed numbers are held whole. Throws InvalidArgument for another delimiter;
/// InputError (file, line, column = field number) for an empty file, a file with no data rows, an
/// ambiguous delimiter, a header with a duplicate or empty name, an unknown response name, a
/// ragged row, a bad quote, a non-numeric cell, NaN or Inf. Whether the values suit a model
/// (labels, counts) is checked later, by build_coreset.
///
/// The rows of each chunk are parsed on `threads` threads (0: build_info().threads, every core
/// as OpenMP counts them within a CPU quota, or OMP_NUM_THREADS; InvalidArgument when negative).
/// The result, and the error for a bad file (the first in file order), are the same for every
/// thread count; the text held at once is about 4 MiB per thread.
CORESET_API Dataset read_dataset_csv(const std::string& path, const std::string& response = "",
                                     bool has_response = true, char delimiter = 0, int threads = 0);

/// Reads a dataset from a NumPy .npy file: a 2-D array of shape (N, D + 1) (with `has_response`
/// false: (N, D)), float64 or float32 (int32 and int64 are converted too; either byte order; C
/// or Fortran order; format versions 1-3), one row per datapoint. The response is column
/// `response_column` (0-based; -1: the last), the other columns are the covariates "x1" ..
/// "xD" in order; the response is named "y". The file is memory-mapped and converted on
/// `threads` threads (0: every core); it must not shrink while being read. The values are those
/// the CSV reader returns for the same numbers written with 17 significant digits. Throws
/// InputError for a file that is not a 2-D .npy array (messages as read_matrix), no rows, too
/// few columns, a response column past the last, and a value that is not finite (naming its
/// 0-based row and column, the first in row-major order); InvalidArgument for a response column
/// below -1 or one given with `has_response` false. Later errors for responses outside a
/// model's domain name the 0-based row and the response column (Dataset::first_data_line is 0).
CORESET_API Dataset read_dataset_npy(const std::string& path, index_t response_column = -1,
                                     bool has_response = true, int threads = 0);

/// Reads a dataset from LIBSVM / svmlight sparse text: one datapoint per line,
/// "LABEL [qid:Q] INDEX:VALUE INDEX:VALUE ... [# comment]", tokens separated by spaces or tabs,
/// indices 1-based and strictly ascending, qid ignored. Comment-only and blank lines may precede
/// the first row and follow the last. The response is the label ("label"; dropped when
/// `has_response` is false); the covariates are dense, absent entries 0, unnamed (so the models
/// call them "x1", ..., "xD", matching the indices), with
/// D = `features` or, when 0, the largest index in the file. Errors name the line and the token
/// (column 1 = the label): InputError for a bad number, an index that is 0, not ascending or above
/// `features`, a token without ':', no data rows, or a dense matrix larger than the machine's
/// memory; InvalidArgument for negative `features`.
CORESET_API Dataset read_dataset_libsvm(const std::string& path, bool has_response = true,
                                        index_t features = 0);

/// How read_dataset reads a file.
enum class DataFormat {
  automatic,  ///< by extension (any case): .svm, .libsvm, .svmlight are LIBSVM, .npy is .npy,
              ///< all else CSV
  csv,
  libsvm,
  npy,
};

/// Options of read_dataset; each applies to the formats it names.
struct CORESET_API DatasetReadOptions {
  DataFormat format = DataFormat::automatic;
  /// CSV: the response column's name; .npy: its 0-based index; empty: the last column.
  std::string response;
  bool has_response = true;  ///< false: no response (every column, no LIBSVM label)
  char delimiter = 0;        ///< CSV: ',', ';' or '\t'; 0: detected from the header
  index_t features = 0;      ///< LIBSVM: D; 0: the largest index in the file
  int threads = 0;           ///< CSV and .npy: threads converting the numbers; 0: every core
  /// ranks > 1: keep only rank `rank`'s share of the rows, the block datapoint_range(n, rank,
  /// ranks) of a distributed build (coreset/distributed.hpp); the Dataset's first_row and
  /// total_rows say which, and its errors name the whole file's lines and rows. A .npy file's
  /// other rows are never read; a CSV file is scanned whole for its line ends (to count the
  /// rows), and only the share's lines are parsed (see `communicator` for less); a LIBSVM file
  /// is parsed whole, then cut. InvalidArgument for rank outside 0 ... ranks - 1.
  int rank = 0;
  int ranks = 1;
  /// The job's ranks, instead of rank and ranks (which must then be left at 0 and 1): this
  /// rank's share as above, but a CSV file is split by byte range, so that no rank reads all of
  /// it: each rank counts the line ends of its 1/R of the file, the ranks exchange the counts,
  /// and each reads its share's lines from where they start (about 2/R of the file plus its
  /// share's text, where rank and ranks alone scan the whole file). read_dataset is then a
  /// collective: every rank must call it, with the same path and options. A file that cannot be
  /// opened or read, or is not a regular file (a pipe), fails on every rank alike (as
  /// on_every_rank does); an error in a rank's own rows fails on that rank alone.
  std::shared_ptr<const Communicator> communicator;
};

/// The format read_dataset uses for `path` under `format` (automatic: by extension).
CORESET_API DataFormat dataset_format(const std::string& path,
                                      DataFormat format = DataFormat::automatic);

/// Reads a dataset as read_dataset_csv, read_dataset_libsvm or read_dataset_npy, chosen by
/// dataset_format. Throws as they do; InvalidArgument when an option is given for a format it
/// does not apply to (a response for LIBSVM, a delimiter for LIBSVM or .npy, features for CSV or
/// .npy) or a .npy response that is not a non-negative integer.
CORESET_API Dataset read_dataset(const std::string& path, const DatasetReadOptions& options = {});

/// Writes a .npy file (format 1.0, little-endian) of the given 1-D or 2-D shape, holding the
/// product of the dimensions of elements read from `data`. `data` is in Fortran (column-major)
/// order when `fortran_order`, else C order; a Matrix is written as (rows, cols) with
/// fortran_order true. T is float, double, std::int32_t or std::int64_t. Throws InvalidArgument
/// for a shape that is not 1-D or 2-D, a negative or overflowing dimension or null data;
/// OutputError when the file cannot be written.
template <class T>
CORESET_API void write_npy(const std::string& path, const T* data,
                           const std::vector<index_t>& shape, bool fortran_order);

/// Writes `index,weight` CSV: a header line, then one line per datapoint, ascending index,
/// weights printed so that they read back bit-exactly. Throws InvalidArgument unless the
/// indices and weights have the same length, the indices are non-negative and strictly
/// ascending and every weight is finite and >= 0, so every file it writes reads back with
/// read_coreset_csv; OutputError as write_file_atomic.
CORESET_API void write_coreset_csv(const std::string& path, const Coreset& coreset);

/// Reads a coreset CSV written by write_coreset_csv (or by hand): header `index,weight`, then
/// 0-based non-negative integer indices in strictly ascending order and finite non-negative
/// weights (a weight of 0 is kept). The delimiter (',', ';' or tab) is detected from the header;
/// quotes, CRLF and a byte-order mark as for read_dataset_csv. Throws InputError (line, column)
/// for anything else. Whether the indices fit a dataset is checked by the overload below, or by
/// whoever uses the coreset.
CORESET_API Coreset read_coreset_csv(const std::string& path);
/// As above, for a dataset of `dataset_rows` rows: an index >= dataset_rows is an InputError at
/// its line and column. InvalidArgument for dataset_rows < 0.
CORESET_API Coreset read_coreset_csv(const std::string& path, index_t dataset_rows);

/// Where the writers here put a file named `path`, and how: `path` itself or, when `path` is a
/// symbolic link, the file it names (even one not yet made; the link stays a link, as with an
/// editor's save). `write_into` when that is neither a regular file nor a folder but a device
/// (/dev/null, /dev/stdout) or a FIFO: such a target is written into, never replaced, so that
/// writing to /dev/null discards the output instead of turning /dev/null into a file (which
/// root, Docker's default user, could otherwise do).
struct OutputDestination {
  std::string path;
  bool write_into = false;
};
CORESET_API OutputDestination output_destination(const std::string& path);

/// Replaces `path` atomically with `contents`, byte for byte (temporary file in the same folder,
/// flushed to disk, then renamed; a symbolic link and a device or FIFO as output_destination
/// says, the latter written into, not atomically). Throws OutputError when `path` names no file,
/// the folder is missing or not writable, or the disk is full; the old file, if any, is then left
/// as it was.
CORESET_API void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace coreset::io
