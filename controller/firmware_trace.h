// The firmware's waveforms (trace.vcd), plain C++ over the VCD writer: the core busy,
// host commands waiting for it, flash commands built and not completed, planes
// collecting garbage; with the map log a checkpoint under way and its commands in flight;
// per plane (chN.chipC.dieD.planeP) GC active and its free blocks.
// Off until attach(): every call is then one test. The core's busy signal falls when
// its reserved work ends: the module wakes core_idle() then (the `wake` it gives).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/vcd_writer.h"
#include "controller/ftl.h"
#include "controller/gc_unit.h"

namespace ssd::ctrl {

class FirmwareTrace {
 public:
  FirmwareTrace(const Ftl& ftl, const GcUnit& gc) : ftl_(ftl), gc_(gc) {}
  // Declares the signals under `scope`; `wake(t)`: call core_idle() at time t.
  void attach(VcdWriter& vcd, const std::string& scope, std::function<void(Tick)> wake);
  bool on() const { return vcd_ != nullptr; }

  // A flash command on page `ppa` built (+1) or completed or dropped (-1).
  void command(std::uint32_t ppa, int delta, Tick now) {
    if (!vcd_) return;
    commands_ += delta;
    counts(now);
    plane(ftl_.plane_of_ppa(ppa), now);
  }
  // A plane's GC state or free blocks may have changed.
  void plane(std::uint32_t plane, Tick now) {
    if (vcd_) trace_plane(plane, now);
  }
  // Host commands waiting for the core.
  void work_queue(std::uint32_t backlog, Tick now) {
    backlog_ = backlog;
    if (vcd_) counts(now);
  }
  // The map log (ftl.map_persist = journal): a checkpoint under way or not, its commands
  // in flight.
  void map_log(bool checkpoint, std::uint32_t commands, Tick now) {
    if (!vcd_ || v_map_checkpoint_ < 0) return;
    vcd_->change(v_map_checkpoint_, now, checkpoint ? 1u : 0u);
    vcd_->change(v_map_commands_, now, commands);
  }
  // The core took work ending at `done`.
  void core_reserved(Tick now, Tick done);
  void core_idle(Tick now);  // the module's wake-up, at the end of the reserved work

 private:
  void counts(Tick now) {
    vcd_->change(v_work_queue_, now, backlog_);
    vcd_->change(v_commands_, now, commands_);
  }
  void trace_plane(std::uint32_t plane, Tick now);

  const Ftl& ftl_;
  const GcUnit& gc_;
  VcdWriter* vcd_ = nullptr;
  std::function<void(Tick)> wake_;
  int v_busy_ = 0, v_work_queue_ = 0, v_commands_ = 0, v_gc_planes_ = 0;
  int v_map_checkpoint_ = -1, v_map_commands_ = -1;  // with the map log only
  std::vector<int> v_gc_, v_free_;  // per plane
  std::vector<char> gc_on_;         // per plane, as last traced
  std::uint32_t backlog_ = 0, commands_ = 0, gc_planes_ = 0;
  Tick busy_until_ = 0;
};

}  // namespace ssd::ctrl
