#include "nand/nand_tracer.h"

#include <algorithm>

namespace ssd::nand {

NandTracer::NandTracer(VcdWriter& vcd, const std::string& scope, const NandConfig& cfg)
    : vcd_(vcd), cfg_(cfg), scope_(scope) {
  bus_phase_ = vcd_.declare(scope + ".bus_phase", 2);
  // The owning chip, or all ones (shown as "-" by waves/bus_chip filter) when idle.
  bus_chip_ = vcd_.declare(scope + ".bus_chip", 8, 0xff);
  bus_owner_ = declare_owner(scope + ".bus_");
  for (unsigned c = 0; c < cfg.chips_per_channel; ++c) {
    for (unsigned d = 0; d < cfg.dies_per_chip; ++d) {
      const std::string die = scope + ".chip" + std::to_string(c) + ".die" + std::to_string(d);
      array_.push_back(vcd_.declare(die + ".array", 2));
      queue_.push_back(vcd_.declare(die + ".queued", 16));
      die_owner_.push_back(declare_owner(die + "."));
      if (cfg.fault.on()) {
        level_.push_back(vcd_.declare(die + ".read_level", 8));
        bit_errors_.push_back(vcd_.declare(die + ".bit_errors", 16));
        status_.push_back(vcd_.declare(die + ".status", 3));
      }
      for (unsigned p = 0; p < cfg.planes_per_die; ++p) {
        const std::string plane = die + ".plane" + std::to_string(p);
        data_reg_.push_back(vcd_.declare(plane + ".data_reg", 2));
        cache_reg_.push_back(vcd_.declare(plane + ".cache_reg", 2));
      }
    }
  }
}

NandTracer::Owner NandTracer::declare_owner(const std::string& prefix) {
  return {vcd_.declare(prefix + "cmd", 64), vcd_.declare(prefix + "origin", 3), vcd_.declare(prefix + "request", 64)};
}

void NandTracer::set_owner(const Owner& o, Tick t, const FlashCommand* c) {
  vcd_.change(o.cmd, t, c ? c->id : 0);
  vcd_.change(o.origin, t, c ? static_cast<unsigned>(c->origin) : 0);
  vcd_.change(o.request, t, c ? c->request : 0);
}

void NandTracer::on_bus(Tick t, BusPhase phase, const FlashCommand* c) {
  vcd_.change(bus_phase_, t, static_cast<unsigned>(phase));
  vcd_.change(bus_chip_, t, c ? c->chip : 0xffu);
  set_owner(bus_owner_, t, c);
}

void NandTracer::on_array(Tick t, const FlashCommand& c, ArrayState s) {
  const unsigned i = c.chip * cfg_.dies_per_chip + c.die;
  vcd_.change(array_[i], t, static_cast<unsigned>(s));
  set_owner(die_owner_[i], t, s == ArrayState::Idle ? nullptr : &c);
  if (level_.empty()) return;
  vcd_.change(level_[i], t, s == ArrayState::Read ? c.read_level : 0u);
  if (s != ArrayState::Idle) return;
  // Its end: what the fault model decided (the engine completes a good one as Ok later).
  const FlashStatus st = c.status == FlashStatus::Pending ? FlashStatus::Ok : c.status;
  vcd_.change(status_[i], t, static_cast<unsigned>(st));
  if (c.op == FlashOp::Read) {
    unsigned worst = 0;
    for_planes(c.plane_mask, [&](unsigned p) { worst = std::max<unsigned>(worst, c.bit_errors[p]); });
    vcd_.change(bit_errors_[i], t, worst);
  }
}

void NandTracer::on_registers(Tick t, unsigned chip, unsigned die, unsigned plane, RegState data,
                              RegState cache) {
  const unsigned i = (chip * cfg_.dies_per_chip + die) * cfg_.planes_per_die + plane;
  vcd_.change(data_reg_[i], t, static_cast<unsigned>(data));
  vcd_.change(cache_reg_[i], t, static_cast<unsigned>(cache));
}

void NandTracer::declare_suspend() {
  for (unsigned c = 0; c < cfg_.chips_per_channel; ++c)
    for (unsigned d = 0; d < cfg_.dies_per_chip; ++d) {
      const std::string die = scope_ + ".chip" + std::to_string(c) + ".die" + std::to_string(d);
      suspend_.push_back(vcd_.declare(die + ".suspend", 2));
      suspends_.push_back(vcd_.declare(die + ".suspends", 8));
    }
}

void NandTracer::on_suspend(Tick t, const FlashCommand& op, SuspendPhase s) {
  if (suspend_.empty()) return;
  const unsigned i = op.chip * cfg_.dies_per_chip + op.die;
  vcd_.change(suspend_[i], t, static_cast<unsigned>(s));
  vcd_.change(suspends_[i], t, s == SuspendPhase::None ? 0u : op.suspends);
}

void NandTracer::on_queue(Tick t, unsigned chip, unsigned die, unsigned queued) {
  vcd_.change(queue_[chip * cfg_.dies_per_chip + die], t, queued);
}

}  // namespace ssd::nand
