#include "controller/policies.h"

#include "controller/write_policies.h"

#include <stdexcept>

namespace ssd::ctrl {

std::string choices(const std::vector<PolicyName>& names) {
  std::string s;
  for (const PolicyName& p : names) s += (s.empty() ? "" : " | ") + std::string(p.name);
  return s;
}

std::vector<std::string> names_of(const std::vector<PolicyName>& names) {
  std::vector<std::string> v;
  for (const PolicyName& p : names) v.push_back(p.name);
  return v;
}

std::string described(const std::vector<PolicyName>& names) {
  std::string s;
  for (const PolicyName& p : names) s += std::string(s.empty() ? "" : "; ") + p.name + " = " + p.what;
  return s;
}

namespace {

[[noreturn]] void unknown(const std::string& key, const std::string& name, const std::vector<PolicyName>& names) {
  throw std::invalid_argument(std::string(key) + " = " + name + ": not one of " + choices(names));
}

}  // namespace

const std::vector<PolicyName>& sched_policies() {
  static const std::vector<PolicyName> names = {
      {"ios", "in-order: one FIFO, its head issued when ready"},
      {"hos", "per-chip queues, chips scanned round-robin per channel"},
      {"pass", "pass-through under a firmware scheduler (controller.firmware_sched = sos): what the firmware "
               "sends, per chip in arrival order in one class, issued as soon as its die can take it, the chips "
               "of a channel served round-robin (HOS's rule without classes or read first)"},
  };
  return names;
}

std::unique_ptr<SchedPolicy> make_sched_policy(const std::string& name, const nand::NandConfig& n, bool read_first,
                                               bool by_priority, const RescheduleConfig& reschedule) {
  if (reschedule.on()) {
    using param::key;
    const std::string r = key(&RescheduleConfig::multiplane) + " = " + std::string(reschedule.name());
    if (name != "hos")
      throw std::invalid_argument(r + " needs " + key(&PolicyChoice::scheduler) + " = hos (it is " + name + ")");
    if (reschedule.multiplane && (!n.multiplane || n.planes_per_die < 2))
      throw std::invalid_argument(r + " needs n-plane commands: " + key(&nand::NandConfig::multiplane) + " = true and " +
                                  key(&nand::NandConfig::planes_per_die) + " >= 2");
    if (reschedule.window == 0)
      throw std::invalid_argument(key(&RescheduleConfig::window) + " must be at least 1");
    auto hos = std::make_unique<HosPolicy>(n.channels, n.chips_per_channel, read_first, by_priority);
    hos->set_reschedule(reschedule, n.dies_per_chip);
    return hos;
  }
  if (name == "ios") return std::make_unique<IosPolicy>(n.channels, n.chips_per_channel);
  if (name == "hos") return std::make_unique<HosPolicy>(n.channels, n.chips_per_channel, read_first, by_priority);
  if (name == "pass") return std::make_unique<HosPolicy>(n.channels, n.chips_per_channel, false, false);
  unknown(param::key(&PolicyChoice::scheduler), name, sched_policies());
}

const std::vector<PolicyName>& firmware_schedulers() {
  static const std::vector<PolicyName> names = {
      {"in_order", "each command passed on as soon as its core work is done"},
      {"sos", "SOS (Hahn et al.): per-chip software queues, a chip's next command released when the chip is "
              "idle, with QSL (controller.sos_qsl) and WHM (controller.sos_whm); use with controller.scheduler = pass"},
  };
  return names;
}

std::unique_ptr<FirmwareScheduler> make_firmware_scheduler(const std::string& name, const SosConfig& sos) {
  if (name == "in_order") return std::make_unique<InOrderRelease>();
  if (name == "sos") return std::make_unique<SosScheduler>(sos);
  unknown(param::key(&PolicyChoice::firmware_sched), name, firmware_schedulers());
}

const std::vector<PolicyName>& write_policies() {
  static const std::vector<PolicyName> names = {
      {"static", "a logical page always on one plane, by ftl.allocation"},
      {"rr", "Chen et al.'s round-robin baseline: channels in turn, and each channel's dies in turn"},
      {"weight", "Chen et al.'s weight-based dispatch: the channel with the least weight of queued commands "
                 "(read 1, program or erase 2), then its earliest-free die, in write groups of up to dies x planes"},
      {"delay", "Chen et al.'s delay-based dispatch: the channel with the least total predicted wait "
                "(queueTotalDelay, Eqs. 1-9), then its earliest-free die, in write groups of up to dies x planes"},
      {"sqf", "Park et al.'s shortest-queue-first: the die with the fewest queued commands"},
      {"setf", "Park et al.'s shortest-estimated-time-first: the die whose forecast work ends first"},
      {"stripe", "Park et al.'s multi-level stripe: write i to channel i mod C, then package, die, plane"},
  };
  return names;
}

std::unique_ptr<WriteAllocator> make_write_allocator(const std::string& name, const FtlConfig& ftl) {
  const nand::NandConfig& n = ftl.nand;
  const StaticAllocator st(n, ftl.allocation);
  using C = ChannelFirstAllocator::Rule;
  using D = DieFirstAllocator::Rule;
  if (name == "static") return std::make_unique<StaticAllocator>(st);
  if (name == "rr") return std::make_unique<ChannelFirstAllocator>(n, st, C::RoundRobin);
  if (name == "weight") return std::make_unique<ChannelFirstAllocator>(n, st, C::Weight);
  if (name == "delay") return std::make_unique<ChannelFirstAllocator>(n, st, C::Delay);
  if (name == "sqf") return std::make_unique<DieFirstAllocator>(n, st, D::ShortestQueue);
  if (name == "setf") return std::make_unique<DieFirstAllocator>(n, st, D::ShortestEstimatedTime);
  if (name == "stripe") return std::make_unique<StripeAllocator>(n, st);
  unknown(param::key(&PolicyChoice::write_policy), name, write_policies());
}

const param::Table<PolicyChoice>& PolicyChoice::keys() {
  static const param::Table<PolicyChoice> t = [] {
    using P = PolicyChoice;
    param::Table<P> k;
    k.choice("controller.scheduler", &P::scheduler, names_of(sched_policies()),
             "the flash scheduler block's queue discipline: " + described(sched_policies()))
        .choice("controller.firmware_sched", &P::firmware_sched, names_of(firmware_schedulers()),
                "the firmware's release of the flash commands it built to the scheduler block "
                "(controller/firmware_sched.h): " + described(firmware_schedulers()))
        .choice("ftl.write_policy", &P::write_policy, names_of(write_policies()),
                "where a host page write goes (controller/write_allocator.h): " + described(write_policies()));
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
