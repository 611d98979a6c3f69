// What a control group allows this process: CPU time (`docker run --cpus`, Kubernetes' CPU
// limits, systemd's CPUQuota=) and memory (`docker run --memory`, MemoryMax=).
//
// CPU. OpenMP sizes its default team by the CPUs the process may run on (its affinity mask),
// which a quota leaves alone: a container given 2 CPUs of a 16-core host gets 16 threads, which
// share 2 CPUs' time. A team larger than the limit gains nothing (the quota bounds the group's
// CPU time) and pays for its threads' waiting on time the quota counts: each A-IHT II iteration
// of the CPU solver runs seven parallel regions (README's example), and libgomp's threads spin
// at their ends before they sleep. So the library's default team (support/threads.hpp) is
// capped at the limit; bench/run_cpu_limit_bench.sh measures both ways
// (bench/results/cpu_limit_20261128/).
//
// Memory. The machine's memory is not what a limited group may hold: a job checked against it
// (support/memory.hpp) would pass the check and then be killed by the kernel's OOM killer, with
// no message, part-way through. So the checks use the smaller of the two.
//
// Shared limits. The ranks of one MPI job on one node (one container, or one machine) share its
// limits: each of 4 ranks in a container given 8 CPUs and 32 GiB may use 2 CPUs and 8 GiB, or
// they oversubscribe the quota 4 times and each passes a memory check that all four together
// fail. The launcher says how many ranks it started on the node (Open MPI's mpirun sets
// OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's Hydra MPI_LOCALNRANKS), and the defaults divide by it.
//
// Both cgroup versions are read, as the kernel documents them:
//  - /proc/self/cgroup names the process's group in each hierarchy ("ID:controllers:path"; the
//    v2 hierarchy has ID 0 and no controllers);
//  - /proc/self/mountinfo says where each hierarchy is mounted and which of its groups is the
//    mount's root (a container sees its own group as the root);
//  - v2's limits are `cpu.max` ("QUOTA PERIOD", or "max PERIOD" for none) and `memory.max`
//    (bytes, or "max"); v1's `cpu.cfs_quota_us` (-1 for none) over `cpu.cfs_period_us`, and
//    `memory.limit_in_bytes` (just under 2^63 for none).
// A group's parents limit it too, so every group from the process's up to the mount is read and
// the smallest limit wins. A v1 hierarchy that lists the controller, where there is one, holds
// it (hybrid systems also mount a v2 hierarchy without it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace coreset::support {

/// The CPUs' worth of time per period (quota over period) that the control groups of this process
/// allow it: the smallest along the path from its group up to its hierarchy's mount. Nothing
/// when no limit is set, or the files are absent, unreadable or not in the documented form (a
/// level that cannot be read limits nothing). Every path read is under `root`: "/" for this
/// process, a made-up tree in tests (root/proc/self/cgroup, root/proc/self/mountinfo, and the
/// mount points that mountinfo names, below root). Never throws but std::bad_alloc.
std::optional<double> cgroup_cpu_limit(const std::filesystem::path& root);

/// The bytes of memory that the control groups of this process allow it: the smallest along the
/// same path, read as cgroup_cpu_limit reads the CPU limit. Nothing when no limit is set.
std::optional<std::int64_t> cgroup_memory_limit(const std::filesystem::path& root);

/// cgroup_cpu_limit("/") and cgroup_memory_limit("/"), each read at its first call (a limit
/// changed later is not seen).
std::optional<double> process_cpu_limit() noexcept;
std::optional<std::int64_t> process_memory_limit() noexcept;

/// The ranks of this process's MPI job on its node, from the launcher's variables as getenv
/// gives them (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, else MPICH's MPI_LOCALNRANKS; null when
/// unset): a positive decimal integer, else 1 (no launcher, or a value not in that form).
int local_ranks_from(const char* open_mpi_local_size, const char* mpich_local_ranks) noexcept;

/// local_ranks_from(getenv(...), getenv(...)), read at the first call.
int process_local_ranks() noexcept;

/// This process's share of its group's CPU limit: process_cpu_limit() over
/// process_local_ranks() (the ranks on the node share it). Nothing when no limit is set.
std::optional<double> process_cpu_share() noexcept;

/// The default team: `openmp_threads` (what OpenMP offers) capped at `cpu_limit` rounded to the
/// nearest whole CPU (halves up), at least 1. Whether a thread for the fraction pays depends on
/// how well the work divides: README's example, two threads against one, was 27% slower to 3%
/// faster under 1.25 CPUs, 1-8% faster under 1.5 and 18-25% faster under 1.75 (medians of two
/// runs on the build VM, bench/results/cpu_limit_20261128/). A team the user sized through
/// OMP_NUM_THREADS
/// (`omp_num_threads_set`) is theirs and is not capped.
int threads_within_limit(int openmp_threads, std::optional<double> cpu_limit,
                         bool omp_num_threads_set) noexcept;

}  // namespace coreset::support
