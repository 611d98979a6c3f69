// Readers and writers for the files the engine exchanges with the outside world. Every reader
// validates what it reads and throws InputError naming the file (and line and column for text);
// every writer writes to a temporary file beside the target and renames it into place, so a
// failed or interrupted run never leaves a partial file.
#pragma once

#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "coreset/types.hpp"

namespace coreset::io {

/// Reads an S x n matrix from a NumPy .npy file (float32 or float64, also int32/int64 converted;
/// either byte order, C or Fortran order, format versions 1-3; 2-D shape (S, n)) or from CSV (S
/// lines of n numbers, comma separated, no header). The format is chosen by the ".npy" extension.
/// Values are converted to T. Non-finite values are rejected with their position.
template <class T>
Matrix<T> read_matrix(const std::string& path);

/// Reads a vector: .npy of shape (m,), (m, 1) or (1, m); or CSV holding m numbers, one per line or
/// all on one line.
template <class T>
std::vector<T> read_vector(const std::string& path);

/// Reads a dataset from CSV with a header row: comma-separated, one row per datapoint, every cell
/// numeric and finite. The response is the column named `response` (empty: the last column);
/// with `has_response` false every column is a covariate. The result records the file and the
/// line and column of each row, so later validation can point at a bad cell. Throws InputError
/// (file, line, column) for an empty file, a header with a duplicate or empty name, an unknown
/// response name, a ragged row, a non-numeric cell, NaN or Inf.
Dataset read_dataset_csv(const std::string& path, const std::string& response = "",
                         bool has_response = true);

/// Writes a .npy file (format 1.0, little-endian) of the given 1-D or 2-D shape. `data` is in
/// Fortran (column-major) order when `fortran_order`, else C order. Throws InvalidArgument for a
/// shape that is not 1-D or 2-D, a negative dimension or null data; OutputError when the file
/// cannot be written.
template <class T>
void write_npy(const std::string& path, const T* data, const std::vector<index_t>& shape,
               bool fortran_order);

/// Writes `index,weight` CSV: a header line, then one line per datapoint, ascending index,
/// weights printed so that they read back bit-exactly. Throws InvalidArgument unless the
/// indices are non-negative and strictly ascending and every weight is finite and >= 0, so every
/// file it writes reads back with read_coreset_csv.
void write_coreset_csv(const std::string& path, const Coreset& coreset);

/// Reads a coreset CSV written by write_coreset_csv (or by hand): header `index,weight`, then
/// non-negative integer indices and finite non-negative weights.
Coreset read_coreset_csv(const std::string& path);

/// Replaces `path` atomically with `contents` (temporary file in the same folder, then rename).
/// Throws OutputError when the folder is not writable or the disk is full.
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace coreset::io
