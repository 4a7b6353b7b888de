// The policies of the controller's three seams, built by name from the config: the
// scheduler block's queue discipline (controller.scheduler), the holding stage's release
// policy (controller.firmware_sched) and where host page writes go (ftl.write_policy).
// sc_main builds them and hands each to its module at construction; a module never
// picks or asks which policy it holds. A new policy is a class and a line in its
// factory. Plain C++.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/params.h"
#include "controller/firmware_sched.h"
#include "controller/ftl.h"
#include "controller/sched_policy.h"
#include "controller/sos_sched.h"
#include "controller/write_allocator.h"

namespace ssd::ctrl {

// A factory's choices: a name and what it is, in the order --list-keys shows them.
struct PolicyName {
  const char* name;
  const char* what;
};

// controller.scheduler
constexpr const char* kDefaultScheduler = "hos";
const std::vector<PolicyName>& sched_policies();
// `read_first` and `by_priority` are HOS's (docs/scheduler.md); the other policies
// ignore them. `reschedule`: Park et al.'s rescheduling (controller.reschedule), HOS's
// only. Throws std::invalid_argument naming the choices for an unknown name, and naming
// both keys for a rescheduling the policy or the NAND cannot do.
std::unique_ptr<SchedPolicy> make_sched_policy(const std::string& name, const nand::NandConfig& n, bool read_first,
                                               bool by_priority, const RescheduleConfig& reschedule = {});

// controller.firmware_sched
constexpr const char* kDefaultFirmwareSched = "in_order";
const std::vector<PolicyName>& firmware_schedulers();
// `sos` configures the policy of that name (controller/sos_sched.h).
std::unique_ptr<FirmwareScheduler> make_firmware_scheduler(const std::string& name, const SosConfig& sos = {});

// ftl.write_policy (`ftl` gives the static order, ftl.allocation)
constexpr const char* kDefaultWritePolicy = "static";
const std::vector<PolicyName>& write_policies();
// `ftl.allocation` must be a valid order (FtlConfig::validate).
std::unique_ptr<WriteAllocator> make_write_allocator(const std::string& name, const FtlConfig& ftl);
inline std::unique_ptr<WriteAllocator> make_write_allocator(const std::string& name, const Ftl& ftl) {
  return make_write_allocator(name, ftl.config());
}

// The policies a configuration names, one per seam: its keys controller.scheduler,
// controller.firmware_sched and ftl.write_policy (policies.cpp).
struct PolicyChoice {
  std::string scheduler = kDefaultScheduler;
  std::string firmware_sched = kDefaultFirmwareSched;
  std::string write_policy = kDefaultWritePolicy;
  static const param::Table<PolicyChoice>& keys();
};

// The names of a factory's choices, "a | b | c"; as a list; described, "a = ...; b = ...".
std::string choices(const std::vector<PolicyName>& names);
std::vector<std::string> names_of(const std::vector<PolicyName>& names);
std::string described(const std::vector<PolicyName>& names);

}  // namespace ssd::ctrl
