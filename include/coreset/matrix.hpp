// Dense column-major matrices: the layout every solver works on. Phi is S x n with leading
// dimension S, so column i (datapoint i's S projected log-likelihood values) is contiguous.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// Non-owning view of a column-major matrix: element (i, j) is data[i + j * ld].
template <class T>
struct MatrixView {
  const T* data = nullptr;
  index_t rows = 0;
  index_t cols = 0;
  index_t ld = 0;  ///< leading dimension, >= rows

  const T* column(index_t j) const { return data + j * ld; }
  T operator()(index_t i, index_t j) const { return data[i + j * ld]; }
};

namespace detail {

/// Large blocks (>= 32 MiB) come from the operating system aligned to 2 MiB and advised for
/// transparent huge pages, so a multi-gigabyte Phi costs thousands of page faults, not
/// millions; small ones from operator new. Throws std::bad_alloc.
void* allocate_matrix_storage(std::size_t bytes);
void free_matrix_storage(void* pointer, std::size_t bytes) noexcept;

/// Allocator for Matrix storage: value-initialises only when asked to, so a matrix that is
/// about to be overwritten is not first filled with zeros on one thread.
template <class T>
struct MatrixAllocator {
  using value_type = T;
  MatrixAllocator() = default;
  template <class U>
  MatrixAllocator(const MatrixAllocator<U>&) noexcept {}  // NOLINT(runtime/explicit)
  T* allocate(std::size_t count) {
    if (count > static_cast<std::size_t>(-1) / sizeof(T)) {
      throw std::bad_alloc();
    }
    return static_cast<T*>(allocate_matrix_storage(count * sizeof(T)));
  }
  void deallocate(T* pointer, std::size_t count) noexcept {
    free_matrix_storage(pointer, count * sizeof(T));
  }
  template <class U>
  void construct(U* pointer) noexcept {
    ::new (static_cast<void*>(pointer)) U;  // default-initialisation: no write
  }
  template <class U, class... Args>
  void construct(U* pointer, Args&&... args) {
    ::new (static_cast<void*>(pointer)) U(static_cast<Args&&>(args)...);
  }
  template <class U>
  bool operator==(const MatrixAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const MatrixAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace detail

/// Owning column-major matrix with leading dimension equal to its row count.
template <class T>
class Matrix {
 public:
  Matrix() = default;
  /// A zero-filled rows x cols matrix. Throws InvalidArgument for negative sizes.
  Matrix(index_t rows, index_t cols) : rows_(rows), cols_(cols) {
    values_.assign(checked_size(rows, cols), T(0));
  }

  /// A rows x cols matrix whose elements are indeterminate until written: for producers that
  /// write every element (in parallel, so each thread first-touches the pages it fills).
  static Matrix uninitialized(index_t rows, index_t cols) {
    Matrix matrix;
    matrix.values_.resize(checked_size(rows, cols));
    matrix.rows_ = rows;
    matrix.cols_ = cols;
    return matrix;
  }

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  T* data() noexcept { return values_.data(); }
  const T* data() const noexcept { return values_.data(); }
  T* column(index_t j) noexcept { return values_.data() + j * rows_; }
  const T* column(index_t j) const noexcept { return values_.data() + j * rows_; }
  T& operator()(index_t i, index_t j) { return values_[static_cast<std::size_t>(i + j * rows_)]; }
  T operator()(index_t i, index_t j) const {
    return values_[static_cast<std::size_t>(i + j * rows_)];
  }

  MatrixView<T> view() const noexcept { return {values_.data(), rows_, cols_, rows_}; }

 private:
  static std::size_t checked_size(index_t rows, index_t cols) {
    if (rows < 0 || cols < 0) {
      throw InvalidArgument("matrix dimensions must be non-negative");
    }
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  }

  index_t rows_ = 0;
  index_t cols_ = 0;
  std::vector<T, detail::MatrixAllocator<T>> values_;
};

}  // namespace coreset
