// What the firmware's units (controller/firmware.h) ask of the module that runs them: the
// time, the way out to the scheduler block and to the host interface, the events that
// wake the firmware later, and the reports. Everything the firmware decides, it decides
// itself; these are the module's only jobs. Plain C++: a test implements them without
// the kernel (tests/controller/firmware_units_test.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "tlm/flash_command.h"

namespace ssd::ctrl {

struct FwCommand;
struct HostWork;

// The time, as the module last set it: at every entry into the firmware (a host command,
// a completion, a wake-up) the module sets the simulation's time, which does not change
// until that entry returns. The units read it here, without a call into the kernel.
class Clock {
 public:
  Tick now() const { return now_; }
  void set(Tick t) { now_ = t; }

 private:
  Tick now_ = 0;
};

// Toward the scheduler block, and the events of the commands held for it.
class FlashOut {
 public:
  virtual ~FlashOut() = default;
  // `c` leaves for the scheduler block (BEGIN_REQ), bound and marked.
  virtual void send(FwCommand& c) = 0;
  // Call HoldingStage::time_came(c) at `at` (> now): c was released for that time.
  virtual void wake_at(FwCommand& c, Tick at) = 0;
  // Call HoldingStage::settle() once the work of this instant is done: at the end of the
  // firmware's work step under way, or a delta cycle from now.
  virtual void settle_soon() = 0;
  // Call HoldingStage::alarm() at `at` (> now) or earlier: a call for a time later than one
  // pending may be dropped (the stage asks again for what remains).
  virtual void alarm_at(Tick at) = 0;
};

// Toward the host interface.
class HostOut {
 public:
  virtual ~HostOut() = default;
  // Host command `w` is complete: its response (BEGIN_RESP) goes out now. Its host
  // command and payload are the host's again when this returns (the response may bring
  // the next host command at once); `w` itself stays the splitter's record.
  virtual void complete(HostWork& w) = 0;
};

// Errors the firmware does not recover from, and warnings (SystemC reports in the model).
class Reports {
 public:
  virtual ~Reports() = default;
  virtual void error(const std::string& what) = 0;
  virtual void warning(const std::string& what) = 0;
};

// Told of what the firmware issues, so that a helper beside the model (accel/) can
// prepare the work the firmware will do at the command's end. A listener changes nothing
// the simulation sees; without one the firmware does the same work, only later.
class FirmwareListener {
 public:
  virtual ~FirmwareListener() = default;
  // A program of logical page `lpn` was issued (released); at its end the mapping of lpn
  // moves and page `replaces` (kUnmapped: none) becomes invalid.
  virtual void program_issued(std::uint64_t lpn, std::uint32_t replaces) = 0;
  // A GC copy's read of page `ppa` was issued; at its end the firmware takes the page's
  // logical page (Ftl::written_owner).
  virtual void copy_read_issued(std::uint32_t ppa) = 0;
};

// All of it, as the module implements it.
class FirmwarePorts : public FlashOut, public HostOut, public Reports {};

}  // namespace ssd::ctrl
