// Feeds one channel's state changes into a VcdWriter: per channel the bus phase
// and the chip that owns the bus; per die the array state and its queue length;
// per plane the data and cache register occupancy. Value encodings match the
// GTKWave translate filters in waves/ (bus_phase.txt, array_state.txt, reg_state.txt).
#pragma once

#include <string>
#include <vector>

#include "nand/channel_engine.h"
#include "common/vcd_writer.h"

namespace ssd::nand {

class NandTracer : public NandObserver {
 public:
  // `scope` is the channel's dotted name, e.g. "ssd.nand.ch0".
  NandTracer(VcdWriter& vcd, const std::string& scope, const NandConfig& cfg);
  void on_bus(Tick t, BusPhase phase, int chip) override;
  void on_array(Tick t, unsigned chip, unsigned die, ArrayState s) override;
  void on_registers(Tick t, unsigned chip, unsigned die, unsigned plane, RegState data,
                    RegState cache) override;
  void on_queue(Tick t, unsigned chip, unsigned die, unsigned queued) override;

 private:
  VcdWriter& vcd_;
  NandConfig cfg_;
  int bus_phase_, bus_chip_;
  std::vector<int> array_, queue_, data_reg_, cache_reg_;
};

}  // namespace ssd::nand
