// The FTL's FlashBackdoor onto real NAND page state, one ChannelEngine per channel,
// without the SystemC kernel. `lazy`: blocks loaded from a preconditioning image read
// from it, as in the model (nothing stored per page); otherwise FlashBackdoor's default
// programs them page by page.
#pragma once

#include <memory>
#include <vector>

#include "controller/ftl.h"
#include "nand/channel_engine.h"

namespace ssd::ctrl::test {

struct EngineBackdoor : FlashBackdoor {
  std::vector<std::unique_ptr<nand::ChannelEngine>> ch;
  bool lazy;
  explicit EngineBackdoor(const nand::NandConfig& n, bool lazy_image = false) : lazy(lazy_image) {
    for (unsigned c = 0; c < n.channels; ++c) ch.push_back(std::make_unique<nand::ChannelEngine>(n, c));
  }
  void program(const PhysAddr& a, Token t) override {
    ch[a.channel]->backdoor_program(a.chip, a.die, a.plane, a.block, a.page, t, a.unit);
  }
  void program_block(const PhysAddr& a, const Token* tokens, std::uint32_t n) override {
    ch[a.channel]->backdoor_program_block(a.chip, a.die, a.plane, a.block, tokens, n);
  }
  void erase(const PhysAddr& a) override { ch[a.channel]->backdoor_erase(a.chip, a.die, a.plane, a.block); }
  // One erase at a time unless `lazy`: both ways must leave the same state.
  void erase(const PhysAddr& a, std::uint32_t times) override {
    if (lazy) ch[a.channel]->backdoor_erase(a.chip, a.die, a.plane, a.block, times);
    else FlashBackdoor::erase(a, times);
  }
  void set_slc(const PhysAddr& a) override { ch[a.channel]->backdoor_set_slc(a.chip, a.die, a.plane, a.block, true); }
  Token read(const PhysAddr& a) const override {
    return ch[a.channel]->backdoor_read(a.chip, a.die, a.plane, a.block, a.page, a.unit);
  }
  void image_renumbered() override {
    if (lazy)
      for (auto& e : ch) e->keep_image_numbering();
  }
  void attach_image(const nand::PageImage& image) override {
    FlashBackdoor::attach_image(image);
    if (lazy)
      for (auto& e : ch) e->set_image(&image);
  }
  void load_image_block(const PhysAddr& a, std::uint32_t first_ppa, std::uint32_t pages, std::uint32_t erases) override {
    if (lazy)
      ch[a.channel]->backdoor_load_image(a.chip, a.die, a.plane, a.block, pages, erases,
                                         first_ppa / ch[a.channel]->config().units_per_block());
    else FlashBackdoor::load_image_block(a, first_ppa, pages, erases);
  }
};

}  // namespace ssd::ctrl::test
