// Transparent huge pages for large host arrays, as advice. Where THP is in "madvise" mode (as on
// the build VM), a fresh array of gigabytes otherwise faults in 4 KiB pages when it is first
// written: half a million faults per 2 GB, each zeroing its page.
//
// Whether that pays depends on the machine, and measured both ways:
//  - on an H200 host (bench/results/gpu_h200_20261126_fade1d4/huge_pages_ab/), the advice took the
//    N = 1e7 GPU build from 1.56-1.62 s to 1.49-1.51 s and the N = 1e8 one from 11.6 s to 8.9 s,
//    mostly in the model's set-up and the release of memory;
//  - on the 2-vCPU build VM, a guest whose kernel reports free memory to its host (a virtio
//    balloon with free page reporting), fresh huge pages cost the host's rate, about 1 GB/s, where
//    the first 2 GiB of small pages come from memory the guest still holds at about 4 GB/s: a
//    one-shot `coreset build` of 2e6 rows took 4.9-5.6 s with the advice and 2.9-3.0 s without
//    (bench/results/huge_pages_20261126/).
// So the advice is on by default except in a guest that reports its free pages, and
// CORESET_HUGE_PAGES=1 or 0 turns it on or off for a process either way. Only virtio balloons
// are recognised; other hypervisors' balloons that report free pages (Hyper-V's hv_balloon does)
// get the advice unless CORESET_HUGE_PAGES=0 says otherwise.
#pragma once

#include <cstddef>
#include <string>

namespace coreset::support {

/// Bytes in a transparent huge page on x86-64 and most aarch64 kernels.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// What decided huge_pages_enabled().
enum class HugePagesBasis {
  environment,          ///< CORESET_HUGE_PAGES said 1/on/yes or 0/off/no
  default_on,           ///< no such setting, and no free page reporting: on
  free_page_reporting,  ///< no such setting, and the kernel reports free pages to a host: off
};

/// Whether advise_huge_pages advises, and why; decided once per process.
struct HugePagesSetting {
  bool enabled = false;
  HugePagesBasis basis = HugePagesBasis::default_on;
};
HugePagesSetting huge_pages_setting() noexcept;
bool huge_pages_enabled() noexcept;
/// A word for the basis, for logs and benchmark records.
const char* to_string(HugePagesBasis basis) noexcept;

/// Whether a virtio balloon among `virtio_devices` (sysfs' /sys/bus/virtio/devices: a folder per
/// device, with `device` holding its id, 0x0005 for a balloon, and `features` a string of 0s and
/// 1s, one per feature bit from bit 0) has negotiated free page reporting
/// (VIRTIO_BALLOON_F_REPORTING, bit 5). False when the folder is absent or unreadable.
bool reports_free_pages_to_host(const std::string& virtio_devices);

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
