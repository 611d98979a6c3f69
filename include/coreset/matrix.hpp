// Dense column-major matrices: the layout every solver works on. Phi is S x n with leading
// dimension S, so column i (datapoint i's S projected log-likelihood values) is contiguous.
//
// Element access is unchecked (like std::vector::operator[]): an index outside the matrix is
// undefined behaviour. Thread-safety is that of std::vector: any number of threads may read one
// matrix at once, and threads may write distinct elements at once, but nothing may read or write
// a matrix while another thread assigns, moves or destroys it.
#pragma once

#include <cstddef>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/export.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// Non-owning, read-only view of a column-major matrix: element (i, j) is data[i + j * ld]. The
/// viewed memory must outlive the view and stay unchanged while a function reads through it.
/// The functions that take a view (solve, objective) check that data is not null, that it has at
/// least one row and one column and that ld >= rows (InvalidArgument), not the memory behind it.
/// Copying a view copies the pointer, never the elements.
template <class T>
struct MatrixView {
  const T* data = nullptr;
  index_t rows = 0;
  index_t cols = 0;
  index_t ld = 0;  ///< leading dimension, >= rows

  /// The `rows` contiguous elements of column j (0 <= j < cols; unchecked).
  const T* column(index_t j) const { return data + j * ld; }
  /// Element (i, j) (0 <= i < rows, 0 <= j < cols; unchecked).
  T operator()(index_t i, index_t j) const { return data[i + j * ld]; }
};

/// Non-owning, read-only view of a 2-D array in CUDA device memory: a CuPy, PyTorch, JAX or Numba
/// array's buffer, or the caller's own cudaMalloc. Element (i, j) is
/// data[i * row_stride + j * col_stride] (strides in elements, >= 0, as DLPack gives them), so a
/// column-major S x n Phi has strides (1, S) and a C-ordered n x S array read as S x n also does.
/// The GPU that owns the memory is found from the pointer. `stream`: a cudaStream_t whose queued
/// work writes the array (the array's producer's stream; CUDA's legacy default stream is 1 and
/// the per-thread default stream 2, as cuda_runtime_api.h defines them), or null when the array
/// is ready now: the functions that take a view wait for it before they read. The memory must
/// outlive the call and stay unchanged during it.
template <class T>
struct DeviceArrayView {
  const T* data = nullptr;
  index_t rows = 0;
  index_t cols = 0;
  index_t row_stride = 1;
  index_t col_stride = 0;
  void* stream = nullptr;
};

namespace detail {

/// Not part of the stable API: the storage behind Matrix. Large blocks (>= 32 MiB) come straight
/// from the operating system (mmap), advised for transparent huge pages unless the machine is a
/// VM whose balloon reports free pages to its host (where fresh huge pages were slower to first
/// write than small ones) or CORESET_HUGE_PAGES=0 (=1 advises everywhere); small ones from operator
/// new. `bytes` is the block size in bytes. allocate throws std::bad_alloc; free must get the
/// same `bytes` as the allocation. Both are thread-safe.
CORESET_API void* allocate_matrix_storage(std::size_t bytes);
CORESET_API void free_matrix_storage(void* pointer, std::size_t bytes) noexcept;

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

/// Sanitized builds (CMakeLists.txt defines CORESET_POISON_UNINITIALIZED) fill the elements of
/// Matrix::uninitialized with NaN: an element its producer forgets to write then reads as NaN,
/// which the tests that compare values see, not as the plausible 0.0 of fresh pages.
template <class T, class Values>
void poison_uninitialized(Values& values) {
#ifdef CORESET_POISON_UNINITIALIZED
  if constexpr (std::numeric_limits<T>::has_quiet_NaN) {
    for (T& value : values) {
      value = std::numeric_limits<T>::quiet_NaN();
    }
  }
#else
  static_cast<void>(values);
#endif
}

}  // namespace detail

/// Owning column-major matrix with leading dimension equal to its row count. Copyable (a deep
/// copy) and movable (cheap; the moved-from matrix is 0 x 0); a default-constructed matrix is
/// 0 x 0, which the options that take an optional matrix read as "not given".
template <class T>
class Matrix {
 public:
  Matrix() = default;
  Matrix(const Matrix&) = default;
  Matrix& operator=(const Matrix&) = default;
  Matrix(Matrix&& other) noexcept
      : rows_(std::exchange(other.rows_, 0)),
        cols_(std::exchange(other.cols_, 0)),
        values_(std::move(other.values_)) {}
  Matrix& operator=(Matrix&& other) noexcept {
    rows_ = std::exchange(other.rows_, 0);
    cols_ = std::exchange(other.cols_, 0);
    values_ = std::move(other.values_);
    return *this;
  }
  ~Matrix() = default;
  /// A zero-filled rows x cols matrix. Throws InvalidArgument for a negative size and
  /// std::bad_alloc when rows * cols elements do not fit in memory.
  Matrix(index_t rows, index_t cols) : rows_(rows), cols_(cols) {
    values_.assign(checked_size(rows, cols), T(0));
  }

  /// A rows x cols matrix whose elements are indeterminate until written: for producers that
  /// write every element (in parallel, so each thread first-touches the pages it fills).
  /// Reading an element before writing it is undefined. Throws as the constructor does.
  static Matrix uninitialized(index_t rows, index_t cols) {
    Matrix matrix;
    matrix.values_.resize(checked_size(rows, cols));
    detail::poison_uninitialized<T>(matrix.values_);
    matrix.rows_ = rows;
    matrix.cols_ = cols;
    return matrix;
  }

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  /// The rows * cols elements, column after column (leading dimension rows()); may be null for
  /// a matrix without elements.
  T* data() noexcept { return values_.data(); }
  const T* data() const noexcept { return values_.data(); }
  T* column(index_t j) noexcept { return values_.data() + j * rows_; }
  const T* column(index_t j) const noexcept { return values_.data() + j * rows_; }
  T& operator()(index_t i, index_t j) { return values_[static_cast<std::size_t>(i + j * rows_)]; }
  T operator()(index_t i, index_t j) const {
    return values_[static_cast<std::size_t>(i + j * rows_)];
  }

  /// A view of the whole matrix, valid until the matrix is assigned, moved from or destroyed.
  MatrixView<T> view() const noexcept { return {values_.data(), rows_, cols_, rows_}; }

 private:
  static std::size_t checked_size(index_t rows, index_t cols) {
    if (rows < 0 || cols < 0) {
      throw InvalidArgument("matrix dimensions must be non-negative");
    }
    // rows * cols elements of sizeof(T) bytes must be addressable: a product that wraps would
    // allocate a few elements for a matrix that claims billions.
    const auto r = static_cast<std::size_t>(rows);
    const auto c = static_cast<std::size_t>(cols);
    if (r != 0 && c > std::numeric_limits<std::size_t>::max() / sizeof(T) / r) {
      throw std::bad_alloc();
    }
    return r * c;
  }

  index_t rows_ = 0;
  index_t cols_ = 0;
  std::vector<T, detail::MatrixAllocator<T>> values_;
};

}  // namespace coreset
