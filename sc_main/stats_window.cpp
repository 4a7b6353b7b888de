#include "sc_main/stats_window.h"

#include "controller/nvme_front_end.h"

#include <sstream>
#include <stdexcept>

namespace ssd {

namespace {
double ratio(Tick part, Tick whole) { return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }
}  // namespace

WindowTicks nand_ticks(const nand::NandDevice& nand, Tick at) {
  WindowTicks t;
  t.at = at;
  const nand::ChipActivity& act = nand.activity();
  for (std::size_t c = 0; c < act.chips(); ++c) {
    t.chip_busy.push_back(act.busy_ticks(c, at));
    t.chip_busy_sum += t.chip_busy.back();
    t.chip_idle_while_others_busy.push_back(act.idle_while_others_busy_ticks(c, at));
  }
  t.any_chip_busy = act.any_busy_ticks(at);
  for (unsigned ch = 0; ch < nand.channels(); ++ch) t.bus_busy.push_back(nand.channel(ch).status().bus_busy_ticks(at));
  return t;
}

WindowTicks full_ticks(const nand::NandDevice& nand, const ctrl::FirmwareCore& fw, const ctrl::HostFront& iface,
                       Tick at) {
  WindowTicks t = nand_ticks(nand, at);
  t.core_busy = fw.core_busy(at);
  t.link_busy = iface.link_busy(at);
  t.ncq_tag_ticks = iface.tag_ticks(at);
  t.ncq_depth = iface.depth();
  if (const auto* nv = dynamic_cast<const ctrl::NvmeFrontEnd*>(&iface)) {
    t.pcie_up_busy = nv->up_busy(at);
    t.pcie_down_busy = nv->down_busy(at);
  }
  return t;
}

WindowFigures window_between(const WindowTicks& from, const WindowTicks& to) {
  WindowFigures w;
  w.start = from.at;
  w.end = to.at;
  const Tick len = to.at - from.at;
  // A snapshot at time 0 is all zeros: `from` may be left empty for it.
  auto at = [](const std::vector<Tick>& v, std::size_t i) { return i < v.size() ? v[i] : Tick{0}; };
  w.chips = to.chip_busy.size();
  w.chip_utilization = ratio(to.chip_busy_sum - from.chip_busy_sum, len);
  w.chip_utilization_while_busy = ratio(to.chip_busy_sum - from.chip_busy_sum, to.any_chip_busy - from.any_chip_busy);
  for (std::size_t c = 0; c < w.chips; ++c) {
    w.chip_busy.push_back(ratio(to.chip_busy[c] - at(from.chip_busy, c), len));
    w.chip_idle_while_others_busy.push_back(
        ratio(to.chip_idle_while_others_busy[c] - at(from.chip_idle_while_others_busy, c), len));
  }
  for (std::size_t ch = 0; ch < to.bus_busy.size(); ++ch)
    w.bus_utilization.push_back(ratio(to.bus_busy[ch] - at(from.bus_busy, ch), len));
  w.core_utilization = ratio(to.core_busy - from.core_busy, len);
  w.link_utilization = ratio(to.link_busy - from.link_busy, len);
  w.ncq_tags_mean = len ? (to.ncq_tag_ticks - from.ncq_tag_ticks) / static_cast<double>(len) : 0.0;
  w.ncq_depth = to.ncq_depth;
  w.pcie_up_utilization = ratio(to.pcie_up_busy - from.pcie_up_busy, len);
  w.pcie_down_utilization = ratio(to.pcie_down_busy - from.pcie_down_busy, len);
  check_window(w);
  return w;
}

WindowFigures nand_window(const nand::NandDevice& nand, Tick end) { return window_between(WindowTicks{}, nand_ticks(nand, end)); }

WindowFigures full_window(const nand::NandDevice& nand, const ctrl::FirmwareCore& fw, const ctrl::HostFront& iface,
                          Tick end, const WindowTicks& from) {
  return window_between(from, full_ticks(nand, fw, iface, end));
}

void check_window(const WindowFigures& w) {
  std::ostringstream bad;
  auto in = [&bad](const std::string& what, double v, double hi) {
    if (!(v >= 0.0 && v <= hi * (1 + 1e-12))) bad << what << " = " << v << " is outside [0, " << hi << "]; ";
  };
  in("nand.chip_utilization", w.chip_utilization, static_cast<double>(w.chips));
  in("nand.chip_utilization_while_busy", w.chip_utilization_while_busy, static_cast<double>(w.chips));
  if (w.chip_utilization_while_busy > 0 && w.chip_utilization_while_busy < 1.0 - 1e-12)
    bad << "nand.chip_utilization_while_busy = " << w.chip_utilization_while_busy << " is below 1; ";
  for (std::size_t i = 0; i < w.chip_busy.size(); ++i) {
    in("nand.chip_busy_ratio[" + std::to_string(i) + "]", w.chip_busy[i], 1.0);
    in("nand.chip_idle_while_others_busy_ratio[" + std::to_string(i) + "]", w.chip_idle_while_others_busy[i], 1.0);
  }
  for (std::size_t i = 0; i < w.bus_utilization.size(); ++i)
    in("nand.bus_utilization[" + std::to_string(i) + "]", w.bus_utilization[i], 1.0);
  in("firmware.core_utilization", w.core_utilization, 1.0);
  in("controller.link_utilization", w.link_utilization, 1.0);
  in("controller.ncq_tags_mean", w.ncq_tags_mean, static_cast<double>(w.ncq_depth));
  if (!bad.str().empty())
    throw std::logic_error("statistics over the window [" + std::to_string(w.start) + ", " + std::to_string(w.end) +
                           " ps]: " + bad.str());
}

}  // namespace ssd
