// A large zero-initialised array for the model's per-page tables (mapping tables,
// page tokens, the host's shadow): anonymous memory from the operating system, mapped
// lazily (a page costs time and memory only once written). A `dense` array (one that a
// run fills at random nearly everywhere once it uses it: the FTL's map past its hash
// stage, the valid bits, the image's masks) asks for transparent huge pages: random
// lookups then miss the TLB less, for a little more resident memory. The others keep
// small pages (the host's shadow; the tables written a block at a time: the FTL's P2L,
// the NAND's page tokens), which would otherwise turn a write to a new place into 2 MiB
// of resident memory: the memory a run keeps is then bounded by what it touched.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <utility>

namespace ssd {

template <typename T>
class BigArray {
 public:
  BigArray() = default;
  explicit BigArray(std::size_t n, bool dense = false) : n_(n) {
    bytes_ = (n ? n : 1) * sizeof(T);
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    p_ = static_cast<T*>(p);
    set_dense(dense);  // both ways: a machine may give huge pages unasked (THP "always")
  }
  // Changes the advice for the memory not yet touched (advice only: failure is harmless).
  void set_dense(bool dense) {
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    if (p_) madvise(p_, bytes_, dense ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void)dense;
#endif
  }
  ~BigArray() {
    if (p_) munmap(p_, bytes_);
  }
  BigArray(BigArray&& o) noexcept { swap(o); }
  BigArray& operator=(BigArray&& o) noexcept {
    swap(o);
    return *this;
  }
  BigArray(const BigArray&) = delete;
  BigArray& operator=(const BigArray&) = delete;

  // Maps every page now, by writing a zero into each (the array stays zero): the cost of
  // first touching fresh memory, paid by whichever thread calls it.
  void touch() {
    volatile char* c = reinterpret_cast<volatile char*>(p_);
    for (std::size_t off = 0; off < bytes_; off += 4096) c[off] = 0;
  }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  T* data() { return p_; }
  std::size_t size() const { return n_; }

 private:
  void swap(BigArray& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(bytes_, o.bytes_);
  }
  T* p_ = nullptr;
  std::size_t n_ = 0, bytes_ = 0;
};

}  // namespace ssd
