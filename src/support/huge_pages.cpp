#include "support/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <optional>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "support/kernel_files.hpp"
#include "support/switch_value.hpp"

namespace coreset::support {

namespace {

constexpr const char* kVirtioDevices = "/sys/bus/virtio/devices";
constexpr const char* kVirtioBalloonId = "0x0005";
constexpr std::size_t kBalloonFreePageReportingBit = 5;  // VIRTIO_BALLOON_F_REPORTING

HugePagesSetting decide_huge_pages() {
  if (const std::optional<bool> asked = parse_switch_value(std::getenv("CORESET_HUGE_PAGES"))) {
    return {*asked, HugePagesBasis::environment};
  }
  if (reports_free_pages_to_host(kVirtioDevices)) {
    return {false, HugePagesBasis::free_page_reporting};
  }
  return {true, HugePagesBasis::default_on};
}

}  // namespace

bool reports_free_pages_to_host(const std::string& virtio_devices) {
  std::error_code error;
  std::filesystem::directory_iterator device(virtio_devices, error);
  if (error) {
    return false;
  }
  for (; device != std::filesystem::directory_iterator(); device.increment(error)) {
    if (error) {
      return false;
    }
    if (first_line(device->path() / "device") != kVirtioBalloonId) {
      continue;
    }
    const std::string features = first_line(device->path() / "features");
    if (features.size() > kBalloonFreePageReportingBit &&
        features[kBalloonFreePageReportingBit] == '1') {
      return true;
    }
  }
  return false;
}

HugePagesSetting huge_pages_setting() noexcept {
  static const HugePagesSetting setting = [] {
    try {
      return decide_huge_pages();
    } catch (...) {  // an allocation failure while reading sysfs: the plain default
      return HugePagesSetting{true, HugePagesBasis::default_on};
    }
  }();
  return setting;
}

bool huge_pages_enabled() noexcept {
  return huge_pages_setting().enabled;
}

const char* to_string(HugePagesBasis basis) noexcept {
  switch (basis) {
    case HugePagesBasis::environment:
      return "CORESET_HUGE_PAGES";
    case HugePagesBasis::default_on:
      return "default";
    case HugePagesBasis::free_page_reporting:
      return "free page reporting";
  }
  return "default";
}

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || bytes < kLeastAdvisedBytes || !huge_pages_enabled()) {
    return;
  }
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (begin + bytes) / kHugePageBytes * kHugePageBytes;
  if (last > first) {
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace coreset::support
