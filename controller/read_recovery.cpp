#include "controller/read_recovery.h"

#include "controller/holding_stage.h"

namespace ssd::ctrl {

ReadRecovery::ReadRecovery(const EccConfig& ecc, HoldingStage& stage, Core& core, std::uint64_t cycles_per_page,
                           FaultCounters& faults)
    : ecc_(ecc), stage_(stage), core_(core), cycles_per_page_(cycles_per_page), faults_(faults) {
  faults_.retries.assign(ecc_.soft_level() + 1, 0);
}

// The decoder's verdict on a read's worst codeword, as its status: Ok (decoded at the
// default level), ReadRetried (decoded at a further level), Uncorrectable (beyond the
// soft decode); or the page read again at the next level (its issuer hears of the last
// attempt only). A read that did not end Ok (a protocol error) goes on as it ended.
void ReadRecovery::ended(FwCommand& c) {
  FlashCommand& f = *c.cmd;
  if (f.status == FlashStatus::Ok) {
    const unsigned level = f.read_level;
    switch (ecc_.verdict(f.bit_errors[f.first_plane()], level)) {
      case EccDecoder::Verdict::Decoded:
        ++faults_.tier_reads[ecc_.tier(level)];
        ++faults_.retries[level];
        if (level) f.status = FlashStatus::ReadRetried;
        break;
      case EccDecoder::Verdict::Retry:
        retry(c);
        return;
      case EccDecoder::Verdict::Uncorrectable:
        ++faults_.uncorrectable_reads;
        ++faults_.retries[level];
        f.status = FlashStatus::Uncorrectable;
        break;
    }
  }
  c.then->ended(c);
}

// The page read again at the next level (a read-retry step, then the soft-decision read),
// for the same purpose: its reads in flight stay counted (Ftl::add_pending_read) until
// the last attempt's end.
void ReadRecovery::retry(const FwCommand& f) {
  ++faults_.retry_reads;
  const FlashCommand& fc = *f.cmd;
  FwCommand& r = stage_.build(FlashOp::Read, f.ppa, fc.origin, *f.then);
  r.t_arrived = f.t_arrived;
  FlashCommand& rc = *r.cmd;
  rc.read_level = static_cast<std::uint8_t>(fc.read_level + 1);
  r.host = f.host;
  rc.host_page = fc.host_page;
  rc.request = fc.request;
  rc.lpn = fc.lpn;
  rc.out_bytes = fc.out_bytes;
  r.write_op = f.write_op;
  r.plane = f.plane;
  r.t_first_built = f.t_first_built ? f.t_first_built : f.t_built;
  stage_.submit(r, core_.charge(cycles_per_page_));
}

}  // namespace ssd::ctrl
