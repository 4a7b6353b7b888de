#include "nand/nand_tracer.h"

namespace ssd::nand {

NandTracer::NandTracer(VcdWriter& vcd, const std::string& scope, const NandConfig& cfg)
    : vcd_(vcd), cfg_(cfg) {
  bus_phase_ = vcd_.declare(scope + ".bus_phase", 2);
  // The owning chip, or all ones (shown as "-" by waves/bus_chip filter) when idle.
  bus_chip_ = vcd_.declare(scope + ".bus_chip", 8, 0xff);
  for (unsigned c = 0; c < cfg.chips_per_channel; ++c) {
    for (unsigned d = 0; d < cfg.dies_per_chip; ++d) {
      const std::string die = scope + ".chip" + std::to_string(c) + ".die" + std::to_string(d);
      array_.push_back(vcd_.declare(die + ".array", 2));
      queue_.push_back(vcd_.declare(die + ".queued", 16));
      for (unsigned p = 0; p < cfg.planes_per_die; ++p) {
        const std::string plane = die + ".plane" + std::to_string(p);
        data_reg_.push_back(vcd_.declare(plane + ".data_reg", 2));
        cache_reg_.push_back(vcd_.declare(plane + ".cache_reg", 2));
      }
    }
  }
}

void NandTracer::on_bus(Tick t, BusPhase phase, int chip) {
  vcd_.change(bus_phase_, t, static_cast<unsigned>(phase));
  vcd_.change(bus_chip_, t, chip < 0 ? 0xffu : static_cast<unsigned>(chip));
}

void NandTracer::on_array(Tick t, unsigned chip, unsigned die, ArrayState s) {
  vcd_.change(array_[chip * cfg_.dies_per_chip + die], t, static_cast<unsigned>(s));
}

void NandTracer::on_registers(Tick t, unsigned chip, unsigned die, unsigned plane, RegState data,
                              RegState cache) {
  const unsigned i = (chip * cfg_.dies_per_chip + die) * cfg_.planes_per_die + plane;
  vcd_.change(data_reg_[i], t, static_cast<unsigned>(data));
  vcd_.change(cache_reg_[i], t, static_cast<unsigned>(cache));
}

void NandTracer::on_queue(Tick t, unsigned chip, unsigned die, unsigned queued) {
  vcd_.change(queue_[chip * cfg_.dies_per_chip + die], t, queued);
}

}  // namespace ssd::nand
