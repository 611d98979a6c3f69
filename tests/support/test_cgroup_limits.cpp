// The CPU and memory limits of a control group (support/cgroup_limits.hpp) on made-up /proc and
// cgroup trees laid out as the kernel and the container runtimes lay them out, the default team
// the CPU limit caps (support/threads.hpp) and the host memory the checks use
// (support/memory.hpp).
#include "support/cgroup_limits.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "coreset/error.hpp"
#include "support/memory.hpp"
#include "support/threads.hpp"

namespace coreset::support {
namespace {

namespace fs = std::filesystem;

// A made-up root: /proc/self/cgroup, /proc/self/mountinfo and the cgroup files below it.
class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::path(::testing::TempDir()) /
        ("cgroup_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "proc/self");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& path, const std::string& text) {
    const fs::path file = root_ / path;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  // A v1 group's quota over the usual period of 100000 us.
  void write_v1_quota(const std::string& group, const std::string& quota) {
    write(group + "/cpu.cfs_quota_us", quota + "\n");
    write(group + "/cpu.cfs_period_us", "100000\n");
  }
  std::optional<double> limit() const { return cgroup_cpu_limit(root_); }
  std::optional<std::int64_t> memory() const { return cgroup_memory_limit(root_); }

 private:
  fs::path root_;
};

// mountinfo lines as the kernel writes them (proc(5)): the fields the reader uses are the group
// at the mount's root, the mount point, the file system type and its options.
std::string mount_line(const std::string& root_group, const std::string& mount_point,
                       const std::string& type, const std::string& options) {
  return "35 24 0:30 " + root_group + " " + mount_point +
         " rw,nosuid,nodev,noexec,relatime shared:9 - " + type + " " + type + " " + options + "\n";
}
const std::string kRootMount = mount_line("/", "/", "ext4", "rw") + "\n";

// Docker on a cgroup v2 host with its own cgroup namespace (the default): the container's group
// is the root of what it sees, and `docker run --cpus=2` wrote its cpu.max.
TEST_F(CgroupTree, ReadsAContainersV2Limit) {
  write("proc/self/cgroup", "0::/\n");
  write("proc/self/mountinfo", kRootMount + mount_line("/", "/sys/fs/cgroup", "cgroup2", "rw"));
  write("sys/fs/cgroup/cpu.max", "200000 100000\n");
  EXPECT_EQ(limit(), std::optional<double>(2.0));
  write("sys/fs/cgroup/cpu.max", "max 100000\n");  // no limit
  EXPECT_EQ(limit(), std::nullopt);
  write("sys/fs/cgroup/cpu.max", "50000 100000\n");
  EXPECT_EQ(limit(), std::optional<double>(0.5));
}

// Seen from the host's namespace: the group is a path below the mount, and a parent's limit
// (a systemd slice's CPUQuota=) binds its children when it is the smaller.
TEST_F(CgroupTree, TheSmallestLimitFromTheGroupUpToTheMountWins) {
  write("proc/self/cgroup", "0::/system.slice/docker-abc.scope\n");
  write("proc/self/mountinfo", mount_line("/", "/sys/fs/cgroup", "cgroup2", "rw,nsdelegate"));
  write("sys/fs/cgroup/system.slice/docker-abc.scope/cpu.max", "400000 100000\n");
  EXPECT_EQ(limit(), std::optional<double>(4.0));
  write("sys/fs/cgroup/system.slice/cpu.max", "150000 100000\n");
  EXPECT_EQ(limit(), std::optional<double>(1.5));
  write("sys/fs/cgroup/system.slice/cpu.max", "max 100000\n");
  write("sys/fs/cgroup/system.slice/docker-abc.scope/cpu.max", "max 100000\n");
  write("sys/fs/cgroup/cpu.max", "300000 100000\n");  // the mount's root group is read too
  EXPECT_EQ(limit(), std::optional<double>(3.0));
}

// Docker on a v1 (hybrid) host without a cgroup namespace: the container's group is the root of
// the cpu hierarchy's mount. The v2 hierarchy mounted beside it holds no CPU controller, so its
// files are not the limit.
TEST_F(CgroupTree, ReadsAV1LimitWhereTheCpuControllerIsOnV1) {
  write("proc/self/cgroup",
        "12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n1:name=systemd:/docker/abc\n"
        "0::/docker/abc\n");
  write("proc/self/mountinfo",
        kRootMount + mount_line("/docker/abc", "/sys/fs/cgroup/memory", "cgroup", "rw,memory") +
            mount_line("/docker/abc", "/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct") +
            mount_line("/", "/sys/fs/cgroup/unified", "cgroup2", "rw"));
  write("sys/fs/cgroup/unified/docker/abc/cpu.max", "300000 100000\n");
  write_v1_quota("sys/fs/cgroup/cpu,cpuacct", "50000");
  EXPECT_EQ(limit(), std::optional<double>(0.5));
  write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");  // no limit
  EXPECT_EQ(limit(), std::nullopt);
}

// The v1 controller list is read item by item ("cpuacct" alone is not "cpu"), and so are the
// mount's options.
TEST_F(CgroupTree, TheCpuControllerIsNamedExactly) {
  write("proc/self/cgroup", "3:cpuacct:/job\n");
  write("proc/self/mountinfo", mount_line("/", "/sys/fs/cgroup/cpuacct", "cgroup", "rw,cpuacct"));
  write_v1_quota("sys/fs/cgroup/cpuacct/job", "100000");
  EXPECT_EQ(limit(), std::nullopt);
}

// mountinfo escapes a space in a path as \040.
TEST_F(CgroupTree, ReadsEscapedMountPoints) {
  write("proc/self/cgroup", "0::/job\n");
  write("proc/self/mountinfo", mount_line("/", "/cgroup\\040root", "cgroup2", "rw"));
  write("cgroup root/job/cpu.max", "250000 100000\n");
  EXPECT_EQ(limit(), std::optional<double>(2.5));
}

// A mount is the group's only when its root is the group or one of its parents, component by
// component: "/docker/ab" is not a parent of "/docker/abc".
TEST_F(CgroupTree, UsesTheMountWhoseRootHoldsTheGroup) {
  write("proc/self/cgroup", "0::/docker/abc\n");
  write("proc/self/mountinfo", mount_line("/docker/ab", "/mnt/wrong", "cgroup2", "rw") +
                                   mount_line("/docker", "/sys/fs/cgroup", "cgroup2", "rw"));
  write("mnt/wrong/cpu.max", "100000 100000\n");
  write("mnt/wrong/c/cpu.max", "100000 100000\n");
  write("sys/fs/cgroup/abc/cpu.max", "600000 100000\n");
  EXPECT_EQ(limit(), std::optional<double>(6.0));
}

// The host's /sys/fs/cgroup mounted into a container over the runtime's own mount of its group
// (systemd in Docker, some CI runners): the later mount covers the earlier, so the paths below
// it are the host's root group's, and the limit is found through the covering mount instead.
TEST_F(CgroupTree, AMountCoveredByALaterOneIsNotRead) {
  write("proc/self/cgroup", "4:cpu,cpuacct:/docker/abc\n");
  write("proc/self/mountinfo",
        kRootMount +
            mount_line("/docker/abc", "/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct") +
            mount_line("/", "/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct"));
  write_v1_quota("sys/fs/cgroup/cpu,cpuacct", "-1");  // the host's root group
  write_v1_quota("sys/fs/cgroup/cpu,cpuacct/docker/abc", "200000");
  EXPECT_EQ(limit(), std::optional<double>(2.0));
  // Covered from above: after a file system mounted later at /sys/fs/cgroup, the files at the
  // cgroup mount's path are that file system's (here a quota the group does not have), and the
  // group's own cannot be reached.
  write("proc/self/mountinfo",
        kRootMount +
            mount_line("/docker/abc", "/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct") +
            mount_line("/", "/sys/fs/cgroup", "tmpfs", "rw"));
  write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "300000\n");
  EXPECT_EQ(limit(), std::nullopt);
}

// A group outside the namespace's view ("/.." paths) has limits nobody here can read; the
// view's root is not its parent, so its limit is not taken either.
TEST_F(CgroupTree, AGroupOutsideTheViewHasNoKnownLimit) {
  write("proc/self/cgroup", "0::/../sibling\n");
  write("proc/self/mountinfo", mount_line("/", "/sys/fs/cgroup", "cgroup2", "rw"));
  write("sys/fs/cgroup/cpu.max", "100000 100000\n");
  EXPECT_EQ(limit(), std::nullopt);
}

// Absent, empty or malformed files limit nothing, and nothing throws.
TEST_F(CgroupTree, WhatCannotBeReadLimitsNothing) {
  EXPECT_EQ(limit(), std::nullopt);  // no /proc/self files at all
  write("proc/self/cgroup", "0::/\n");
  EXPECT_EQ(limit(), std::nullopt);  // no mountinfo
  write("proc/self/mountinfo", "garbage\n" + mount_line("/", "/sys/fs/cgroup", "cgroup2", "rw"));
  EXPECT_EQ(limit(), std::nullopt);  // no cpu.max: the controller is not enabled here
  for (const char* malformed : {"", "100000", "abc 100000", "100000 abc", "0 100000", "100000 0",
                                "-5 100000", "100000 100000 7", "1e5 100000"}) {
    write("sys/fs/cgroup/cpu.max", std::string(malformed) + "\n");
    EXPECT_EQ(limit(), std::nullopt) << '"' << malformed << '"';
  }
  // One level that cannot be read does not hide another's limit.
  write("proc/self/cgroup", "0::/job\n");
  write("sys/fs/cgroup/job/cpu.max", "garbage\n");
  write("sys/fs/cgroup/cpu.max", "100000 100000\n");
  EXPECT_EQ(limit(), std::optional<double>(1.0));
}

// Memory: v2's memory.max, the smallest up the path, "max" for none.
TEST_F(CgroupTree, ReadsV2MemoryLimitsUpThePath) {
  write("proc/self/cgroup", "0::/system.slice/job.scope\n");
  write("proc/self/mountinfo", mount_line("/", "/sys/fs/cgroup", "cgroup2", "rw"));
  EXPECT_EQ(memory(), std::nullopt);  // no memory.max anywhere: no memory controller
  write("sys/fs/cgroup/system.slice/job.scope/memory.max", "max\n");
  EXPECT_EQ(memory(), std::nullopt);
  write("sys/fs/cgroup/system.slice/job.scope/memory.max", "4294967296\n");
  EXPECT_EQ(memory(), std::optional<std::int64_t>(std::int64_t{4} << 30));
  write("sys/fs/cgroup/system.slice/memory.max", "1073741824\n");
  EXPECT_EQ(memory(), std::optional<std::int64_t>(std::int64_t{1} << 30));
  write("sys/fs/cgroup/system.slice/memory.max", "garbage\n");
  EXPECT_EQ(memory(), std::optional<std::int64_t>(std::int64_t{4} << 30));
}

// v1 keeps memory in a hierarchy of its own, mounted apart from cpu's: each limit is read from
// its own controller's mount. v1's "no limit" is a count just under 2^63.
TEST_F(CgroupTree, ReadsV1MemoryFromTheMemoryHierarchy) {
  write("proc/self/cgroup", "12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n0::/docker/abc\n");
  write("proc/self/mountinfo",
        mount_line("/docker/abc", "/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct") +
            mount_line("/docker/abc", "/sys/fs/cgroup/memory", "cgroup", "rw,memory") +
            mount_line("/", "/sys/fs/cgroup/unified", "cgroup2", "rw"));
  write("sys/fs/cgroup/unified/docker/abc/memory.max", "1073741824\n");      // not the controller's
  write("sys/fs/cgroup/cpu,cpuacct/memory.limit_in_bytes", "1073741824\n");  // not its mount
  write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(memory(), std::nullopt);
  write("sys/fs/cgroup/memory/memory.limit_in_bytes", "536870912\n");
  EXPECT_EQ(memory(), std::optional<std::int64_t>(std::int64_t{512} << 20));
  write_v1_quota("sys/fs/cgroup/cpu,cpuacct", "200000");
  EXPECT_EQ(limit(), std::optional<double>(2.0));
}

// The checks before a large allocation name the limit they met and who set it.
TEST(HostMemoryLimit, AControlGroupsLimitIsNamedInTheRefusal) {
  const HostMemoryLimit group{std::int64_t{64} << 20, true};
  try {
    check_host_fits(500.0 * 1e6, 8.0, group, "Phi (S x n)", "use fewer samples");
    FAIL() << "a 3.7 GiB Phi passed a 64 MiB limit";
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("Phi (S x n) needs 3814 MiB"), std::string::npos) << message;
    EXPECT_NE(message.find("control group (a container's memory limit) allows 64 MiB"),
              std::string::npos)
        << message;
  }
  // This process's: never above the machine's, and below it exactly when a group set it.
  const HostMemoryLimit own = host_memory_limit();
  const std::optional<std::int64_t> limit = process_memory_limit();
  EXPECT_EQ(own.set_by_control_group, limit && *limit < physical_memory());
  EXPECT_EQ(own.sharing_ranks, process_local_ranks());
  EXPECT_EQ(own.bytes, (own.set_by_control_group ? *limit : physical_memory()) / own.sharing_ranks);
}

// The ranks of one MPI job on a node share its memory: the refusal says it met a share.
TEST(HostMemoryLimit, ASharedLimitIsNamedAsEachRanksShare) {
  const HostMemoryLimit share{std::int64_t{64} << 20, true, 4};
  try {
    check_host_fits(500.0 * 1e6, 8.0, share, "Phi (S x n)", "use fewer samples");
    FAIL() << "a 3.7 GiB Phi passed a 64 MiB share";
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    EXPECT_NE(
        message.find("allows 64 MiB for each of the 4 MPI ranks on this node, which share it"),
        std::string::npos)
        << message;
  }
}

// The launchers' counts of ranks on the node: Open MPI's first, then MPICH's; anything but a
// positive decimal count is no count (1).
TEST(LocalRanks, AreTheLaunchersCountOrOne) {
  EXPECT_EQ(local_ranks_from(nullptr, nullptr), 1);
  EXPECT_EQ(local_ranks_from("4", nullptr), 4);
  EXPECT_EQ(local_ranks_from(nullptr, "3"), 3);
  EXPECT_EQ(local_ranks_from("4", "3"), 4);
  EXPECT_EQ(local_ranks_from("1", "3"), 1);
  for (const char* bad : {"", "0", "-2", "4x", " 4", "2.5", "99999999999999999999"}) {
    EXPECT_EQ(local_ranks_from(bad, nullptr), 1) << bad;
  }
}

// Each rank's default team is its share of the quota: 4 ranks in a container given 8 CPUs get 2
// threads each, not 8 (nor 16, the cores a rank may run on).
TEST(LocalRanks, DivideTheCpuLimitTheDefaultTeamIsCappedAt) {
  EXPECT_EQ(threads_within_limit(16, 8.0 / local_ranks_from("4", nullptr), false), 2);
  const std::optional<double> limit = process_cpu_limit();
  const std::optional<double> share = process_cpu_share();
  ASSERT_EQ(limit.has_value(), share.has_value());
  if (limit) {
    EXPECT_EQ(*share, *limit / process_local_ranks());
  }
}

TEST(ThreadsWithinLimit, CapsAtTheLimitRoundedToTheNearestWholeCpu) {
  EXPECT_EQ(threads_within_limit(16, 2.0, false), 2);
  EXPECT_EQ(threads_within_limit(16, 2.5, false), 3);  // halves up
  EXPECT_EQ(threads_within_limit(16, 2.49, false), 2);
  EXPECT_EQ(threads_within_limit(16, 1.75, false), 2);
  EXPECT_EQ(threads_within_limit(16, 1.25, false), 1);
  EXPECT_EQ(threads_within_limit(16, 0.25, false), 1);  // at least one
  EXPECT_EQ(threads_within_limit(4, 8.0, false), 4);    // a limit above the cores changes nothing
  EXPECT_EQ(threads_within_limit(4, 3.5, false), 4);
  EXPECT_EQ(threads_within_limit(16, std::nullopt, false), 16);
  EXPECT_EQ(threads_within_limit(0, std::nullopt, false), 1);
  EXPECT_EQ(threads_within_limit(0, 0.5, false), 1);
}

TEST(ThreadsWithinLimit, OmpNumThreadsIsTheUsersChoice) {
  EXPECT_EQ(threads_within_limit(16, 2.0, true), 16);
  EXPECT_EQ(threads_within_limit(3, 1.0, true), 3);
}

// OMP_NUM_THREADS turns the cap off only where libgomp takes its value.
TEST(ThreadsWithinLimit, OmpNumThreadsCountsOnlyWhenOpenMpTakesIt) {
  for (const char* taken : {"1", "8", "16", "04", " 8", "8,2", "8 "}) {
    EXPECT_TRUE(sizes_openmp_team(taken)) << '"' << taken << '"';
  }
  for (const char* ignored : {"", "0", "00", "abc", "-2", "x8", ",8", "8x"}) {
    EXPECT_FALSE(sizes_openmp_team(ignored)) << '"' << ignored << '"';
  }
  EXPECT_FALSE(sizes_openmp_team(nullptr));
}

// The library's default: OpenMP's team under this process's own limit, never more than the
// team the caller set, and what ScopedDefaultTeam(0) sets.
TEST(DefaultThreads, IsOpenMpsTeamUnderThisProcesssLimit) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(3);
  EXPECT_EQ(default_threads(),
            threads_within_limit(3, process_cpu_limit(), omp_num_threads_in_environment()));
  EXPECT_GE(default_threads(), 1);
  EXPECT_LE(default_threads(), 3);
  EXPECT_EQ(resolve_threads(0), default_threads());
  EXPECT_EQ(resolve_threads(5), 5);  // a positive request is taken as it is
  {
    const ScopedDefaultTeam team(0);
    EXPECT_EQ(omp_get_max_threads(), default_threads());
  }
  EXPECT_EQ(omp_get_max_threads(), 3);
  omp_set_num_threads(before);
}

}  // namespace
}  // namespace coreset::support
