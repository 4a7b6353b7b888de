#include "controller/map_port.h"

#include "controller/holding_stage.h"

namespace ssd::ctrl {

void MapPort::program(std::uint32_t plane, std::uint32_t k, std::uint32_t page) {
  FwCommand& f = stage_.build_map(FlashOp::Program, plane, ftl_.map_log_address(plane, k, page), *this);
  f.plane = plane;
  stage_.submit(f, core_.charge(cycles_));
}

void MapPort::erase(std::uint32_t plane, std::uint32_t k) {
  FwCommand& f = stage_.build_map(FlashOp::Erase, plane, ftl_.map_log_address(plane, k, 0), *this);
  f.plane = plane;
  stage_.submit(f, core_.charge(cycles_));
}

void MapPort::ended(FwCommand& f) {
  const FlashCommand& fc = *f.cmd;
  const bool erase = fc.op == FlashOp::Erase;
  const bool ok = fc.status == FlashStatus::Ok;
  if (!ok && fc.status != (erase ? FlashStatus::EraseFailed : FlashStatus::ProgramFailed)) {
    reports_.error(unrecovered(fc, erase ? "a map log erase cannot end so" : "a map log program cannot end so"));
    return;
  }
  if (erase) log_->erase_ended(f.plane, ok);
  else log_->program_ended(f.plane, ok);
}

}  // namespace ssd::ctrl
