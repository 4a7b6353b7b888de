// The policies of the controller's three seams, built by name from the config: the
// scheduler block's queue discipline (controller.scheduler), the firmware's scheduling
// of the commands it built (controller.firmware_sched) and where host page writes go
// (ftl.write_policy). A module takes what its factory builds and never asks which
// policy it holds; a new policy is a class and a line in its factory. Plain C++.
#pragma once

#include <memory>
#include <string>
#include <vector>

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
const std::vector<PolicyName>& sched_policies();
// `read_first` and `by_priority` are HOS's (docs/scheduler.md); the other policies
// ignore them. Throws std::invalid_argument naming the choices for an unknown name.
std::unique_ptr<SchedPolicy> make_sched_policy(const std::string& name, const nand::NandConfig& n, bool read_first,
                                               bool by_priority);

// controller.firmware_sched
const std::vector<PolicyName>& firmware_schedulers();
// `sos` configures the policy of that name (controller/sos_sched.h).
std::unique_ptr<FirmwareScheduler> make_firmware_scheduler(const std::string& name, const SosConfig& sos = {});

// ftl.write_policy (`ftl` gives the static order, ftl.allocation)
const std::vector<PolicyName>& write_policies();
std::unique_ptr<WriteAllocator> make_write_allocator(const std::string& name, const Ftl& ftl);

// The names of a factory's choices, "a | b | c"; as a list; described, "a = ...; b = ...".
std::string choices(const std::vector<PolicyName>& names);
std::vector<std::string> names_of(const std::vector<PolicyName>& names);
std::string described(const std::vector<PolicyName>& names);

}  // namespace ssd::ctrl
