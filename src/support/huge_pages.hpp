// Transparent huge pages for large host arrays, as advice. Where THP is in "madvise" mode (as on
// the build VM), a fresh array of gigabytes otherwise faults in 4 KiB pages when it is first
// written: half a million faults per 2 GB, each zeroing its page.
//
// Whether that pays depends on the machine. On the 2-vCPU build VM (a guest whose kernel reports
// free memory to its host), with huge pages the process reuses make_model ran 2.5x faster
// and the model was freed 23x faster than with 4 KiB pages, but fresh ones cost the host's rate,
// about 1 GB/s, where the first 2 GiB of small pages come from memory the guest still holds at
// about 4 GB/s; a one-shot `coreset build` meets mostly fresh ones
// (bench/results/huge_pages_20261126/). CORESET_HUGE_PAGES=1 or 0 turns the advice on or off for a
// process.
#pragma once

#include <cstddef>

namespace coreset::support {

/// Bytes in a transparent huge page on x86-64 and most aarch64 kernels.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// The default of huge_pages_enabled(): off, as measured on the one machine where both could be
/// timed (one-shot builds on the build VM took 4.9-5.6 s with the advice, 2.9-3.0 s without).
inline constexpr bool kHugePagesByDefault = false;

/// Whether advise_huge_pages advises: CORESET_HUGE_PAGES=1 (or on, yes) or 0 (or off, no), read
/// once per process; without it (or with another value), kHugePagesByDefault.
bool huge_pages_enabled() noexcept;

/// Ranges shorter than this are never advised: glibc's malloc serves blocks this large or larger
/// from mappings of their own (its mmap threshold never rises above 32 MiB on 64-bit systems),
/// so the advice cannot outlive the block on heap pages that later allocations reuse.
inline constexpr std::size_t kLeastAdvisedBytes = std::size_t{32} << 20;

/// When huge_pages_enabled() and bytes >= kLeastAdvisedBytes, advises the kernel to back the
/// whole huge pages inside [data, data + bytes) with transparent huge pages when they are first
/// touched. Only the aligned interior is advised, so memory outside the range is never
/// affected; a kernel without THP or a failed call leave ordinary pages, and the memory's
/// contents are untouched either way. Call it before the first
/// write: pages already faulted stay small until khugepaged gets to them.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

}  // namespace coreset::support
