#include "sc_main/nand_script_driver.h"

#include "common/activations.h"

#include <sstream>

#include "tlm/host_protocol.h"

namespace ssd {

using namespace sc_core;


NandScriptDriver::NandScriptDriver(sc_module_name name, const nand::NandConfig& cfg,
                                   const std::string& script_path, std::size_t keep_records)
    : sc_module(name),
      cfg_(cfg),
      reader_(script_path, cfg),
      pool_("nand script"),
      keep_records_(keep_records) {
  for (unsigned c = 0; c < cfg.channels; ++c) {
    const std::string n = "flash" + std::to_string(c);
    sockets.push_back(std::make_unique<FlashInitiatorSocketTagged<NandScriptDriver>>(n.c_str()));
    sockets.back()->register_nb_transport_bw(this, &NandScriptDriver::nb_transport_bw,
                                             static_cast<int>(c));
  }
  SC_HAS_PROCESS(NandScriptDriver);
  SC_METHOD(issue);
}

std::uint64_t NandScriptDriver::page_key(const FlashCommand& c, unsigned plane) const {
  return ((((std::uint64_t{c.channel} * cfg_.chips_per_channel + c.chip) * cfg_.dies_per_chip +
            c.die) * cfg_.planes_per_die + plane) * cfg_.blocks_per_plane + c.block[plane]) *
             cfg_.pages_per_block + c.page;
}

void NandScriptDriver::fatal(const std::string& msg) {
  errors_.push_back(msg);
  sc_stop();
}

void NandScriptDriver::issue() {
  count_activation();
  const Tick now = sc_time_stamp().value();
  try {
    for (;;) {
      if (!have_next_) {
        if (!reader_.next(next_)) return;  // script done: no further trigger
        have_next_ = true;
      }
      if (next_.time > now) {
        next_trigger(sc_time::from_value(next_.time - now));
        return;
      }
      have_next_ = false;
      if (next_.power_cut) {
        ++power_cuts_;
        cut_short_.clear();
        if (power_cut_) power_cut_();  // the lost commands' responses come back inside it
        for (auto it = cut_short_.rbegin(); it != cut_short_.rend(); ++it) lost(*it);
        cut_short_.clear();
        continue;
      }
      if (next_.channel >= cfg_.channels) {
        std::ostringstream os;
        os << reader_.path() << ':' << next_.line << ": field 'channel': channel " << next_.channel
           << " does not exist (" << param::key(&nand::NandConfig::channels) << " = " << cfg_.channels << ")";
        fatal(os.str());
        return;
      }
      tlm::tlm_generic_payload* gp = pool_.acquire();
      FlashCommand& c = flash_cmd(*gp);
      c.op = next_.op;
      c.channel = next_.channel;
      c.chip = next_.chip;
      c.die = next_.die;
      c.plane_mask = next_.plane_mask;
      c.page = next_.page;
      c.suspend = next_.suspend;
      c.slc = next_.slc;
      c.id = static_cast<std::uint64_t>(next_.line);
      for (unsigned p = 0; p < kMaxPlanes; ++p) c.block[p] = next_.block;
      // The shadow follows submission order, which is each die's execution order.
      std::vector<std::pair<std::uint64_t, Token>>* before = nullptr;  // an erase's: the pages it erases
      if (c.op == FlashOp::Erase) {
        const std::uint32_t slot = FlashPayloadPool::slot_of(*gp);
        if (slot >= before_erase_.size()) before_erase_.resize(slot + 1);
        before = &before_erase_[slot];
        before->clear();
      }
      for (unsigned p = 0; p < kMaxPlanes && p < cfg_.planes_per_die; ++p) {
        if (!(c.plane_mask >> p & 1u)) continue;
        if (c.op == FlashOp::Read) {
          auto it = shadow_.find(page_key(c, p));
          expected(*gp)[p] = it == shadow_.end() ? kErasedToken : it->second;
        } else if (c.op == FlashOp::Program) {  // a wordline's pages (nand.bits_per_cell)
          for (unsigned k = 0; k < cfg_.pages_written(c); ++k) {
            const std::uint64_t key = page_key(c, p) + k;
            c.token_of(k, p) = write_token(key, ++write_seq_);
            shadow_[key] = c.token_of(k, p);
          }
        } else if (c.op == FlashOp::Erase) {
          for_block_pages(c, p, [&](std::uint64_t key) {
            if (const auto it = shadow_.find(key); it != shadow_.end()) {
              before->push_back(*it);
              shadow_.erase(it);
            }
          });
        }
      }
      gp->set_command(c.op == FlashOp::Read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
      gp->set_data_length(c.op == FlashOp::Erase || c.op == FlashOp::Resume ? 0 : c.plane_count() * cfg_.page_bytes);
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_time delay = SC_ZERO_TIME;
      ++submitted_;
      (*sockets[c.channel])->nb_transport_fw(*gp, phase, delay);
    }
  } catch (const ScriptError& e) {
    fatal(e.what());
  }
}

tlm::tlm_sync_enum NandScriptDriver::nb_transport_bw(int, tlm::tlm_generic_payload& gp,
                                                     tlm::tlm_phase& phase, sc_time&) {
  if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;  // END_REQ: nothing to do
  FlashCommand& c = flash_cmd(gp);
  ++completed_;
  if (c.status == FlashStatus::PowerLoss) {
    ++lost_;
    Lost l{c, {}};
    if (c.op == FlashOp::Erase) l.before_erase = std::move(before_erase_[FlashPayloadPool::slot_of(gp)]);
    cut_short_.push_back(std::move(l));
    if (records_.size() < keep_records_) records_.push_back({static_cast<int>(c.id), c});
    gp.release();
    return tlm::TLM_COMPLETED;
  }
  if (c.status != FlashStatus::Ok) {
    fatal(reader_.path() + ":" + std::to_string(c.id) + ": NAND protocol error: " + c.error);
  } else {
    const int op = static_cast<int>(c.op);
    if (c.op == FlashOp::Resume) {  // no operation of its own: its effect is the one it restarts
      if (records_.size() < keep_records_) records_.push_back({static_cast<int>(c.id), c});
      gp.release();
      return tlm::TLM_COMPLETED;
    }
    latency_[op].record(c.t_done - c.t_submit);
    if (c.op != FlashOp::Erase) latency_all_.record(c.t_done - c.t_submit);
    pages_[op] += c.plane_count() * cfg_.pages_written(c);
    last_done_ = std::max(last_done_, c.t_done);
    if (c.op == FlashOp::Read) {
      for (unsigned p = 0; p < cfg_.planes_per_die; ++p) {
        if (!(c.plane_mask >> p & 1u)) continue;
        ++reads_checked_;
        if (c.token[p] != expected(gp)[p]) {
          ++mismatches_;
          std::ostringstream os;
          os << reader_.path() << ':' << c.id << ": DATA MISMATCH " << c.describe() << " plane " << p
             << ": read token 0x" << std::hex << c.token[p] << ", last written 0x" << expected(gp)[p];
          errors_.push_back(os.str());
        }
      }
    }
    if (records_.size() < keep_records_) records_.push_back({static_cast<int>(c.id), c});
  }
  gp.release();
  return tlm::TLM_COMPLETED;
}

void NandScriptDriver::lost(const Lost& l) {
  const FlashCommand& c = l.cmd;
  for (unsigned p = 0; p < kMaxPlanes && p < cfg_.planes_per_die; ++p) {
    if (!(c.plane_mask >> p & 1u)) continue;
    const bool torn = c.failed_planes >> p & 1u;
    if (c.op == FlashOp::Program) {  // its wordline's pages
      for (unsigned k = 0; k < cfg_.pages_written(c); ++k) {
        if (torn) shadow_[page_key(c, p) + k] = kTornToken;
        else shadow_.erase(page_key(c, p) + k);  // its data never left the registers: still erased
      }
    } else if (c.op == FlashOp::Erase && torn) {
      for_block_pages(c, p, [&](std::uint64_t key) { shadow_[key] = kTornToken; });
    }
  }
  if (c.op == FlashOp::Erase && !c.failed_planes)  // never began: the block holds what it held
    for (const auto& [key, t] : l.before_erase) shadow_[key] = t;
}

}  // namespace ssd
