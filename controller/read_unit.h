// Partial-page reads: the bytes of a page a host read moves over the bus.
#pragma once

#include <cstdint>

namespace ssd::ctrl {

// Whether ECC codewords of `unit_bytes` can be the read unit of pages of `page_bytes`:
// 0 (whole pages), or a multiple of the 512-byte sector that divides the page.
inline bool read_unit_fits(std::uint32_t unit_bytes, std::uint32_t page_bytes) {
  return unit_bytes % 512 == 0 && (unit_bytes == 0 || page_bytes % unit_bytes == 0);
}

// A host read of sectors [lba, lba + sectors) (512 B each) reads logical page `lpn` of
// `sectors_per_page` sectors. The controller's ECC decodes whole codewords of
// `unit_bytes`, so the NAND moves out the codewords that hold the sectors read, from the
// first's column (ONFI: the read's address cycles carry the column). Returns the bytes
// moved out; 0 (the whole page) when `unit_bytes` is 0 or the codewords cover the page.
inline std::uint32_t read_out_bytes(std::uint64_t lba, std::uint64_t sectors, std::uint64_t lpn,
                                    std::uint32_t sectors_per_page, std::uint32_t unit_bytes) {
  if (unit_bytes == 0 || sectors == 0) return 0;
  const std::uint64_t page_first = lpn * sectors_per_page, page_end = page_first + sectors_per_page;
  const std::uint64_t first = lba > page_first ? lba - page_first : 0;  // sectors within the page
  const std::uint64_t end = (lba + sectors < page_end ? lba + sectors : page_end) - page_first;
  const std::uint64_t unit = unit_bytes / 512;  // sectors per codeword
  const std::uint64_t lo = first / unit * unit, hi = (end + unit - 1) / unit * unit;
  if (lo == 0 && hi >= sectors_per_page) return 0;
  return static_cast<std::uint32_t>((hi - lo) * 512);
}

}  // namespace ssd::ctrl
