#include "controller/start_state.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "controller/steady_image.h"

namespace ssd::ctrl {

double GcBalance::write_amplification(double free_blocks) const {
  const double ppb = pages_per_block, F = static_cast<double>(blocks_per_plane) - free_blocks - 2;
  const double Vf = valid_pages - ppb;  // the two open blocks hold half a block each, on average
  if (F < 1 || Vf >= F * ppb) return std::numeric_limits<double>::infinity();  // every page valid
  if (Vf <= ppb) return 1.0;  // the plane's data fits its newest block: the victims are empty
  const double a = SteadyImage::decay(Vf, F, ppb);  // as the image solves it
  const double victim = ppb * std::exp(-a * (F - 1) / F);  // the oldest block's valid pages
  return ppb / (ppb - victim);
}

GcBalance::Choice GcBalance::choose(double host_pages_per_s, double copies_per_s) const {
  const double H = host_pages_per_s, C = copies_per_s;
  if (!(H >= 0) || !(C >= 0) || !std::isfinite(H) || !std::isfinite(C))
    throw std::invalid_argument("GcBalance::choose: rates must be finite and not negative");
  const double low = gc_low, bottom = gc_reserve + 1.0;
  Choice c;
  const double need = H * (write_amplification(low) - 1);  // copies a second holding the mark takes
  if (need <= C) {
    c.regime = Regime::KeepsUp;
    c.collecting = C > 0 ? need / C : 0;
    c.free_blocks = std::max(bottom, low - c.collecting);
    c.write_amplification = write_amplification(low);
    return c;
  }
  const double target = 1 + C / H;  // H > 0 here
  if (write_amplification(bottom) >= target) {
    c.regime = Regime::AtReserve;
    c.free_blocks = bottom;
  } else {
    c.regime = Regime::GcBound;
    double lo = bottom, hi = low;  // WA(lo) < target <= WA(hi)
    for (int it = 0; it < 60; ++it) {
      const double mid = (lo + hi) / 2;
      (write_amplification(mid) < target ? lo : hi) = mid;
    }
    c.free_blocks = (lo + hi) / 2;
  }
  c.collecting = c.free_blocks <= low - 1 ? 1.0 : low - c.free_blocks;
  c.write_amplification = write_amplification(c.free_blocks);
  return c;
}

const char* regime_name(GcBalance::Regime r) {
  switch (r) {
    case GcBalance::Regime::KeepsUp: return "keeps_up";
    case GcBalance::Regime::GcBound: return "gc_bound";
    case GcBalance::Regime::AtReserve: return "at_reserve";
  }
  return "?";
}

const param::Table<PreconditionConfig>& PreconditionConfig::keys() {
  static const param::Table<PreconditionConfig> t = [] {
    using P = PreconditionConfig;
    param::Table<P> k;
    k.number("ftl.precondition", &P::fraction, 0, 1,
             "fraction of the logical space written (and aged) before time 0 (1: every host read reaches the flash)")
        .number("ftl.precondition_age", &P::age, 0, 1000,
                "0: the filled pages are written once, in order; > 0: the steady state of uniform random "
                "overwrites under greedy GC, with this many drive writes of erase history").unit("drive writes")
        .choice("ftl.precondition_free", &P::free, {"auto", "gc_mark", "gc_running", "reserve"},
                "aged preconditioning: where each plane starts in its GC cycle. auto = where the workload holds "
                "it: a pilot run of the workload's first report.start_pilot_requests measures its host write "
                "rate and GC's copy rate, and the planes start at the free blocks that balance them "
                "(controller/start_state.h; the mean goes to ftl.precondition_free_blocks; stats.json run.start_pilot); "
                "gc_mark = at the GC low mark, no GC run under way; gc_running = one block under the mark with "
                "a GC run under way on every plane, part of its copies done; reserve = the last free block and "
                "one more, runs under way")
        .number("ftl.precondition_free_blocks", &P::free_blocks, 0, 16777216,
                "ftl.precondition_free = auto: the mean free blocks per plane at time 0, from the last reserve + 1 "
                "to the GC low mark (each plane gets the integer below or above it, drawn from the seed; a "
                "plane under the mark starts with a GC run under way). 0 = from the start pilot (ssdsim sets "
                "it, and config.json keeps it: a run of that file needs no pilot)").unit("blocks per plane");
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
