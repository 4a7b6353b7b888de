// What a block loaded from an image holds, computed when a page is read instead of
// stored per page: a preconditioned device (1 TiB raw: 134 million pages) then costs
// the model no memory and no time per page until the run rewrites the block. The
// preconditioning that built the image owns it; a NAND engine only reads it.
#pragma once

#include <cstdint>

#include "tlm/flash_command.h"

namespace ssd::nand {

class PageImage {
 public:
  virtual ~PageImage() = default;
  // The token of a page, by its device-wide index:
  //   (((channel * chips + chip) * dies + die) * planes + plane) * blocks_per_plane + block)
  //   * pages_per_block + page   (the FTL's physical page address);
  // with pages of U data units (NandConfig::units_per_page), of unit u of a page, at that
  // index x U + u (the FTL numbers its mapping units so).
  virtual Token token(std::uint32_t page) const = 0;
};

}  // namespace ssd::nand
