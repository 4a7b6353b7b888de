#include "controller/firmware_trace.h"

namespace ssd::ctrl {

void FirmwareTrace::attach(VcdWriter& vcd, const std::string& scope, std::function<void(Tick)> wake) {
  vcd_ = &vcd;
  wake_ = std::move(wake);
  v_busy_ = vcd.declare(scope + ".busy", 1);
  v_work_queue_ = vcd.declare(scope + ".work_queue", 16);
  v_commands_ = vcd.declare(scope + ".commands", 32);
  v_gc_planes_ = vcd.declare(scope + ".gc_planes", 32);
  if (ftl_.config().map_journal) {
    v_map_checkpoint_ = vcd.declare(scope + ".map_log_checkpoint", 1);
    v_map_commands_ = vcd.declare(scope + ".map_log_commands", 32);
  }
  const nand::NandConfig& n = ftl_.config().nand;
  const std::uint64_t pages_per_plane = std::uint64_t{n.blocks_per_plane} * n.pages_per_block;
  for (std::uint32_t p = 0; p < ftl_.planes(); ++p) {
    const PhysAddr a = ftl_.decode(static_cast<std::uint32_t>(p * pages_per_plane));
    const std::string name = scope + ".ch" + std::to_string(a.channel) + ".chip" + std::to_string(a.chip) + ".die" +
                             std::to_string(a.die) + ".plane" + std::to_string(a.plane);
    v_gc_.push_back(vcd.declare(name + ".gc", 1));
    v_free_.push_back(vcd.declare(name + ".free_blocks", 32, ftl_.free_blocks(p)));
  }
  gc_on_.assign(ftl_.planes(), 0);
}

void FirmwareTrace::core_reserved(Tick now, Tick done) {
  if (!vcd_ || done <= now) return;
  vcd_->change(v_busy_, now, 1);
  if (busy_until_ <= now) wake_(done);  // else a wake-up is pending
  busy_until_ = done;
}

void FirmwareTrace::core_idle(Tick now) {
  if (busy_until_ > now) {
    wake_(busy_until_);
    return;
  }
  vcd_->change(v_busy_, now, 0);
}

void FirmwareTrace::trace_plane(std::uint32_t plane, Tick now) {
  const char on = gc_.active(plane) ? 1 : 0;
  if (on != gc_on_[plane]) {
    gc_on_[plane] = on;
    gc_planes_ += on ? 1 : -1;
    vcd_->change(v_gc_[plane], now, static_cast<unsigned>(on));
    vcd_->change(v_gc_planes_, now, gc_planes_);
  }
  vcd_->change(v_free_[plane], now, ftl_.free_blocks(plane));
}

}  // namespace ssd::ctrl
