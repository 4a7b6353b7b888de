// A prefetch hint that the compiler keeps. GCC treats __builtin_prefetch as free of side
// effects, so a small function made only of such hints is found "const" and a call to it
// whose result is unused is deleted (GCC 12 at -O2 deleted every hint of this project
// but one that sat directly in the caller). A volatile asm has a side effect as far as
// the compiler knows, so the hint stays where it is written.
#pragma once

namespace ssd {

inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
  asm volatile("" : : "r"(p));
#endif
}

}  // namespace ssd
