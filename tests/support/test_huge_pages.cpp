// The huge-page setting (support/huge_pages.hpp): the switches' values (CORESET_HUGE_PAGES's,
// support/switch_value.hpp), and the detection of a virtio balloon that reports free pages to its
// host, on made-up sysfs trees.
#include "support/huge_pages.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "support/switch_value.hpp"

namespace coreset::support {
namespace {

TEST(SwitchValue, ReadsOnlyTheDocumentedValues) {
  for (const char* on : {"1", "on", "yes"}) {
    EXPECT_EQ(parse_switch_value(on), std::optional<bool>(true)) << on;
  }
  for (const char* off : {"0", "off", "no"}) {
    EXPECT_EQ(parse_switch_value(off), std::optional<bool>(false)) << off;
  }
  // Anything else leaves the machine's default in charge.
  for (const char* other : {"", "2", "ON", "true", "1 ", "o"}) {
    EXPECT_EQ(parse_switch_value(other), std::nullopt) << '"' << other << '"';
  }
  EXPECT_EQ(parse_switch_value(nullptr), std::nullopt);
}

// A made-up /sys/bus/virtio/devices: one folder per device with its `device` and `features`.
class VirtioTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        std::filesystem::path(::testing::TempDir()) /
        ("virtio_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void add_device(const std::string& name, const std::string& id, const std::string& features) {
    const std::filesystem::path folder = root_ / name;
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "device") << id << '\n';
    std::ofstream(folder / "features") << features << '\n';
  }

  std::string root() const { return root_.string(); }

 private:
  std::filesystem::path root_;
};

// The build VM's balloon, as its sysfs showed it: bits 1, 2, 5 (VIRTIO_BALLOON_F_REPORTING), 7 and
// 32.
constexpr const char* kReportingBalloon = "01100101000000000000000000000000100000000000";
constexpr const char* kPlainBalloon = "01100001000000000000000000000000100000000000";

TEST_F(VirtioTree, FindsABalloonThatReportsFreePages) {
  add_device("virtio0", "0x0001", "11111111");  // a network device with bit 5 set: not a balloon
  EXPECT_FALSE(reports_free_pages_to_host(root()));
  add_device("virtio1", "0x0005", kReportingBalloon);
  EXPECT_TRUE(reports_free_pages_to_host(root()));
}

// Real sysfs lists each device as a link to its folder under /sys/devices.
TEST_F(VirtioTree, FollowsTheLinksSysfsListsDevicesBy) {
  const std::filesystem::path elsewhere = std::filesystem::path(root()) / "devices" / "virtio7";
  std::filesystem::create_directories(elsewhere);
  std::ofstream(elsewhere / "device") << "0x0005\n";
  std::ofstream(elsewhere / "features") << kReportingBalloon << '\n';
  const std::filesystem::path bus = std::filesystem::path(root()) / "bus";
  std::filesystem::create_directories(bus);
  std::filesystem::create_directory_symlink(elsewhere, bus / "virtio7");
  EXPECT_TRUE(reports_free_pages_to_host(bus.string()));
}

TEST_F(VirtioTree, IgnoresABalloonWithoutReporting) {
  add_device("virtio0", "0x0005", kPlainBalloon);
  add_device("virtio1", "0x0005", "01111");  // too short to say anything of bit 5
  EXPECT_FALSE(reports_free_pages_to_host(root()));
}

TEST_F(VirtioTree, AnEmptyOrMissingTreeReportsNothing) {
  EXPECT_FALSE(reports_free_pages_to_host(root()));
  EXPECT_FALSE(reports_free_pages_to_host(root() + "/absent"));
}

TEST(HugePagesSetting, TheProcessSettingFollowsItsBasis) {
  const HugePagesSetting setting = huge_pages_setting();
  EXPECT_EQ(setting.enabled, huge_pages_enabled());
  switch (setting.basis) {
    case HugePagesBasis::environment:
      EXPECT_EQ(parse_switch_value(std::getenv("CORESET_HUGE_PAGES")),
                std::optional<bool>(setting.enabled));
      break;
    case HugePagesBasis::default_on:
      EXPECT_TRUE(setting.enabled);
      EXPECT_FALSE(reports_free_pages_to_host("/sys/bus/virtio/devices"));
      break;
    case HugePagesBasis::free_page_reporting:
      EXPECT_FALSE(setting.enabled);
      EXPECT_TRUE(reports_free_pages_to_host("/sys/bus/virtio/devices"));
      break;
  }
}

}  // namespace
}  // namespace coreset::support
