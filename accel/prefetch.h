// A prefetch hint that the compiler keeps, for the mechanisms of accel/: the model's
// structures say where an operation will read (an address, or a visitor of addresses),
// and accel/ has those lines fetched while other work goes on. GCC treats
// __builtin_prefetch as free of side effects, so a small function made only of such
// hints is found "const" and a call to it whose result is unused is deleted (GCC 12 at
// -O2 deleted every hint but one that sat directly in the caller). A volatile asm has a
// side effect as far as the compiler knows, so the hint stays where it is written.
#pragma once

namespace ssd::accel {

inline void prefetch(const void* p) {
  if (!p) return;  // nothing to fetch (an address past a structure's end)
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
  asm volatile("" : : "r"(p));
#endif
}

}  // namespace ssd::accel
