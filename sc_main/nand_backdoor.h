// The FTL's FlashBackdoor onto a NandDevice's page state (preconditioning), where the model
// is wired: it writes the NAND's page state, which no controller part may reach.
#pragma once

#include "controller/ftl.h"
#include "nand/nand_device.h"

namespace ssd::ctrl {

class NandBackdoor : public FlashBackdoor {
 public:
  explicit NandBackdoor(nand::NandDevice& nand) : nand_(nand) {}
  void program(const PhysAddr& a, Token t) override {
    nand_.engine(a.channel).backdoor_program(a.chip, a.die, a.plane, a.block, a.page, t, a.unit);
  }
  void erase(const PhysAddr& a) override {
    nand_.engine(a.channel).backdoor_erase(a.chip, a.die, a.plane, a.block);
  }
  void erase(const PhysAddr& a, std::uint32_t times) override {
    nand_.engine(a.channel).backdoor_erase(a.chip, a.die, a.plane, a.block, times);
  }
  void set_slc(const PhysAddr& a) override { nand_.engine(a.channel).backdoor_set_slc(a.chip, a.die, a.plane, a.block, true); }
  void program_block(const PhysAddr& a, const Token* tokens, std::uint32_t n) override {
    nand_.engine(a.channel).backdoor_program_block(a.chip, a.die, a.plane, a.block, tokens, n);
  }
  void image_renumbered() override {
    for (unsigned c = 0; c < nand_.config().channels; ++c) nand_.engine(c).keep_image_numbering();
  }
  void attach_image(const nand::PageImage& image) override {
    FlashBackdoor::attach_image(image);
    for (unsigned c = 0; c < nand_.config().channels; ++c) nand_.engine(c).set_image(&image);
  }
  // The engine reads the block's pages from the image: nothing is stored per page.
  void load_image_block(const PhysAddr& a, std::uint32_t first_ppa, std::uint32_t pages, std::uint32_t erases) override {
    const std::uint32_t image_block = first_ppa / nand_.config().units_per_block();  // the FTL's pages: units
    nand_.engine(a.channel).backdoor_load_image(a.chip, a.die, a.plane, a.block, pages, erases, image_block);
  }
  Token read(const PhysAddr& a) const override {
    return nand_.engine(a.channel).backdoor_read(a.chip, a.die, a.plane, a.block, a.page, a.unit);
  }

 private:
  nand::NandDevice& nand_;
};

}  // namespace ssd::ctrl
