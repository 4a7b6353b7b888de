#include "nand/read_burst.h"

#include <algorithm>
#include <stdexcept>

#include "nand/page_image.h"

namespace ssd::nand {

namespace {
// What the scratch engines' blocks hold: nothing anyone wrote (the burst's reads are
// timed, their data is not looked at).
class Blank final : public PageImage {
 public:
  Token token(std::uint32_t) const override { return 0; }
};
const Blank kBlank;
}  // namespace

// An engine of one channel, block 0 of each of its planes loaded whole (the reads go
// there: their timing depends on the page type, not on the block) and, with n > 1 bits
// per cell, block 1 loaded whole in SLC mode (the SLC reads go there); and its clock: a
// burst starts at the end of the one before (an engine's time only moves forward).
struct ReadBurst::Channel {
  ChannelEngine engine;
  Tick now = 0;
  Channel(const NandConfig& cfg, unsigned c) : engine(cfg, c) {
    engine.set_image(&kBlank);
    const bool slc = cfg.bits_per_cell > 1 && cfg.blocks_per_plane > 1;
    for (unsigned chip = 0; chip < cfg.chips_per_channel; ++chip)
      for (unsigned die = 0; die < cfg.dies_per_chip; ++die)
        for (unsigned plane = 0; plane < cfg.planes_per_die; ++plane) {
          engine.backdoor_load_image(chip, die, plane, 0, cfg.pages_per_block, 0);
          if (!slc) continue;
          engine.backdoor_load_image(chip, die, plane, 1, cfg.slc_pages_per_block(), 0);
          engine.backdoor_set_slc(chip, die, plane, 1, true);
        }
  }
};

ReadBurst::ReadBurst(const NandConfig& cfg) : cfg_(cfg) {
  per_die_.resize(static_cast<std::size_t>(cfg_.chips()) * cfg_.dies_per_chip);
  channels_.resize(cfg_.channels);
}

ReadBurst::~ReadBurst() = default;

void ReadBurst::add(std::uint32_t plane, std::uint32_t first_page, std::uint64_t count, std::uint32_t bytes,
                    bool slc) {
  if (plane >= per_die_.size() * cfg_.planes_per_die) throw std::out_of_range("ReadBurst::add: no such plane");
  if (bytes > cfg_.page_bytes) throw std::out_of_range("ReadBurst::add: more bytes than a page");
  if (slc && (cfg_.bits_per_cell == 1 || cfg_.blocks_per_plane < 2))
    throw std::out_of_range("ReadBurst::add: SLC mode needs n > 1 bits per cell and two blocks a plane");
  std::vector<Read>& reads = per_die_[plane / cfg_.planes_per_die];
  const auto p = static_cast<std::uint8_t>(plane % cfg_.planes_per_die);
  const std::uint32_t pages = slc ? cfg_.slc_pages_per_block() : cfg_.pages_per_block;
  std::uint32_t page = first_page % pages;
  for (std::uint64_t i = 0; i < count; ++i) {
    reads.push_back({p, page, bytes, slc});
    if (++page == pages) page = 0;
  }
  pending_ += count;
}

Tick ReadBurst::run() {
  if (!pending_) return 0;
  const std::uint32_t dies = cfg_.chips_per_channel * cfg_.dies_per_chip;
  Tick longest = 0;
  std::vector<FlashCommand> cmds;
  std::vector<ChannelEngine::Completed> done;
  for (std::uint32_t c = 0; c < cfg_.channels; ++c) {
    std::size_t total = 0, most = 0;
    for (std::uint32_t d = 0; d < dies; ++d) {
      total += per_die_[c * dies + d].size();
      most = std::max(most, per_die_[c * dies + d].size());
    }
    if (!total) continue;
    if (!channels_[c]) channels_[c] = std::make_unique<Channel>(cfg_, c);
    Channel& ch = *channels_[c];
    cmds.assign(total, FlashCommand{});  // submitted by address: no reallocation below
    std::size_t k = 0;
    for (std::size_t i = 0; i < most; ++i)
      for (std::uint32_t d = 0; d < dies; ++d) {
        const std::vector<Read>& reads = per_die_[c * dies + d];
        if (i >= reads.size()) continue;
        FlashCommand& f = cmds[k++];
        f.op = FlashOp::Read;
        f.channel = static_cast<std::uint16_t>(c);
        f.chip = static_cast<std::uint16_t>(d / cfg_.dies_per_chip);
        f.die = static_cast<std::uint16_t>(d % cfg_.dies_per_chip);
        f.plane_mask = static_cast<std::uint8_t>(1u << reads[i].plane);
        f.block[reads[i].plane] = reads[i].slc ? 1 : 0;
        f.slc = reads[i].slc;
        f.page = reads[i].page;
        f.out_bytes = reads[i].bytes;
        f.id = k;
        ch.engine.submit(&f, ch.now);
      }
    const Tick start = ch.now;
    std::size_t completed = 0;
    while (completed < total) {
      const Tick t = ch.engine.next_event();
      if (t == kNever) throw std::logic_error("ReadBurst: the engine stopped with reads outstanding");
      done.clear();
      ch.engine.advance(t, done);
      for (const ChannelEngine::Completed& x : done) {
        if (x.cmd->status != FlashStatus::Ok)
          throw std::logic_error("ReadBurst: a read ended " + std::string(to_string(x.cmd->status)) + ": " +
                                 x.cmd->error);
        ch.now = std::max(ch.now, x.cmd->t_done);
      }
      completed += done.size();
    }
    longest = std::max(longest, ch.now - start);
    for (std::uint32_t d = 0; d < dies; ++d) per_die_[c * dies + d].clear();
  }
  pending_ = 0;
  return longest;
}

}  // namespace ssd::nand
