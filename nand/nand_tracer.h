// Feeds one channel's state changes into a VcdWriter: per channel the bus phase
// and the chip that owns the bus; per die the array state and its queue length;
// per plane the data and cache register occupancy. The bus and each die also show
// whose work it is: the command's id, its origin and the host request it serves (0:
// none). Value encodings match the GTKWave translate filters in waves/
// (bus_phase.txt, bus_chip.txt, array_state.txt, reg_state.txt, origin.txt, id.txt).
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
  void on_bus(Tick t, BusPhase phase, const FlashCommand* c) override;
  void on_array(Tick t, const FlashCommand& c, ArrayState s) override;
  void on_registers(Tick t, unsigned chip, unsigned die, unsigned plane, RegState data,
                    RegState cache) override;
  void on_queue(Tick t, unsigned chip, unsigned die, unsigned queued) override;
  void on_suspend(Tick t, const FlashCommand& op, SuspendPhase s) override;
  // Declares the suspend variables (controller.suspend on): per die `suspend`
  // (SuspendPhase: 0 none, 1 suspending, 2 suspended, 3 resumed) and `suspends` (the
  // times the operation in it was suspended). Before the simulation starts.
  void declare_suspend();

 private:
  VcdWriter& vcd_;
  NandConfig cfg_;
  struct Owner {  // whose work a bus or a die does
    int cmd, origin, request;
  };
  Owner declare_owner(const std::string& scope);
  void set_owner(const Owner& o, Tick t, const FlashCommand* c);
  int bus_phase_, bus_chip_;
  Owner bus_owner_;
  std::vector<int> array_, queue_, data_reg_, cache_reg_;
  std::vector<Owner> die_owner_;
  // With a fault model (NandConfig::fault): per die, the read level of the operation in its
  // array (0 otherwise), the most bit errors of a codeword of its last read, and the
  // status of its last array operation (FlashStatus: a failed program or erase shows).
  std::vector<int> level_, bit_errors_, status_;
  std::string scope_;
  std::vector<int> suspend_, suspends_;  // declare_suspend()
};

}  // namespace ssd::nand
