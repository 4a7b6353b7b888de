// The preconditioned image's lookups computed on the machine's other core (accel/
// lookahead.h runs precompute() on its thread for the pages the workload will ask), for
// speed only. The image asks the table before it computes (ctrl::ImageResults): both
// lookups are pure functions of the image, so the table changes the time a lookup takes,
// never its answer. Each result is one 64-bit word (key << 32 | value) in a direct-mapped
// table of 2^log2_entries words per lookup, stored and read atomically: a lookup whose
// word holds its own key takes the value, any other computes it and stores it there. Not
// for more than 2^32 - 1 logical pages (the key is 32 bits: make() says no). Plain C++.
#pragma once

#include <cstdint>
#include <memory>

#include "common/big_array.h"
#include "controller/steady_image.h"

namespace ssd::accel {

class ImageResultTable final : public ctrl::ImageResults {
 public:
  // A table for `image` (which must outlive it), or null where the keys do not fit.
  static std::unique_ptr<ImageResultTable> make(const ctrl::SteadyImage& image, unsigned log2_entries) {
    if (image.fill() >= 0xFFFFFFFFull || log2_entries < 1 || log2_entries > 30)
      return nullptr;
    return std::unique_ptr<ImageResultTable>(new ImageResultTable(image, log2_entries));
  }

  // ---- the image's lookups (the simulation's thread) ----
  bool known_l2p(std::uint64_t lpn, std::uint32_t& ppa) override {
    std::uint64_t v;
    if (!known(l2p_word(lpn), lpn, v)) return false;
    ppa = static_cast<std::uint32_t>(v);
    return true;
  }
  bool known_p2l(std::uint32_t ppa, std::uint64_t& lpn) override { return known(p2l_word(ppa), ppa, lpn); }
  void computed_l2p(std::uint64_t lpn, std::uint32_t ppa) override { store(l2p_word(lpn), entry(lpn, ppa)); }
  // kNoPage (no data there) fits in the word's 32 bits.
  void computed_p2l(std::uint32_t ppa, std::uint64_t lpn) override { store(p2l_word(ppa), entry(ppa, lpn)); }
  // Lookups answered from the table, and computed (the simulation's thread's counts).
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  // The words a lookup of lpn, or of page ppa, will read.
  const void* l2p_address(std::uint64_t lpn) const { return l2p_word(lpn); }
  const void* p2l_address(std::uint32_t ppa) const { return p2l_word(ppa); }

  // ---- the other thread (or any) ----
  // l2p(lpn) and p2l of that page into the table. Any lpn (past the fill: nothing).
  void precompute(std::uint64_t lpn) const {
    if (lpn < image_.fill()) store_pair(lpn, image_.compute_l2p(lpn));
  }
  // The same from the page's side: p2l(ppa), and l2p of that logical page (ppa itself)
  // when the image holds one there. Any ppa (past the device: nothing).
  void precompute_page(std::uint32_t ppa) const {
    if (ppa >= image_.pages()) return;
    const std::uint64_t lpn = image_.compute_p2l(ppa);
    if (lpn != ctrl::SteadyImage::kNoPage) store_pair(lpn, ppa);
    else store(p2l_word(ppa), entry(ppa, lpn));  // a page the image holds no data in
  }

 private:
  ImageResultTable(const ctrl::SteadyImage& image, unsigned log2_entries)
      : image_(image), mask_((std::uint64_t{1} << log2_entries) - 1), words_(2 * (mask_ + 1), true) {
    // Entry i of each lookup's half starts with the key i + 1, which no key that maps
    // to entry i equals.
    for (std::uint64_t i = 0; i <= mask_; ++i) words_[i] = words_[mask_ + 1 + i] = entry((i + 1) & 0xFFFFFFFFu, 0);
  }
  static constexpr std::uint64_t entry(std::uint64_t key, std::uint64_t value) {
    return key << 32 | (value & 0xFFFFFFFFu);
  }
  // One array (huge pages: a word fetched ahead costs no page walk): l2p's words, then p2l's.
  std::uint64_t* l2p_word(std::uint64_t lpn) const { return &words_[lpn & mask_]; }
  std::uint64_t* p2l_word(std::uint32_t ppa) const { return &words_[mask_ + 1 + (ppa & mask_)]; }
  static void store(std::uint64_t* w, std::uint64_t v) { __atomic_store_n(w, v, __ATOMIC_RELAXED); }
  void store_pair(std::uint64_t lpn, std::uint32_t ppa) const {  // l2p and p2l are inverses on the image's pages
    store(l2p_word(lpn), entry(lpn, ppa));
    store(p2l_word(ppa), entry(ppa, lpn));
  }
  bool known(const std::uint64_t* w, std::uint64_t key, std::uint64_t& value) {
    const std::uint64_t e = __atomic_load_n(w, __ATOMIC_RELAXED);
    if (e >> 32 != key) {
      ++misses_;
      return false;
    }
    ++hits_;
    value = static_cast<std::uint32_t>(e);
    return true;
  }

  const ctrl::SteadyImage& image_;
  std::uint64_t mask_;
  mutable BigArray<std::uint64_t> words_;  // written by both threads, atomically
  // What the simulation's thread writes, on a line of its own: the other thread reads the
  // members above.
  alignas(64) std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace ssd::accel
