#include "sc_main/stats_window.h"

#include <sstream>
#include <stdexcept>

namespace ssd {

namespace {
double ratio(Tick part, Tick whole) { return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }
}  // namespace

WindowFigures nand_window(const nand::NandDevice& nand, Tick end) {
  WindowFigures w;
  w.end = end;
  const nand::ChipActivity& act = nand.activity();
  w.chips = act.chips();
  w.chip_utilization = act.utilization(end);
  for (std::size_t c = 0; c < act.chips(); ++c) {
    w.chip_busy.push_back(ratio(act.busy_ticks(c, end), end));
    w.chip_idle_while_others_busy.push_back(ratio(act.idle_while_others_busy_ticks(c, end), end));
  }
  for (unsigned ch = 0; ch < nand.channels(); ++ch)
    w.bus_utilization.push_back(ratio(nand.channel(ch).status().bus_busy_ticks(end), end));
  check_window(w);
  return w;
}

WindowFigures full_window(const nand::NandDevice& nand, const ctrl::FirmwareCore& fw, const ctrl::HostIface& iface,
                          Tick end) {
  WindowFigures w = nand_window(nand, end);
  w.core_utilization = ratio(fw.core_busy(end), end);
  w.link_utilization = ratio(iface.link_busy(end), end);
  check_window(w);
  return w;
}

void check_window(const WindowFigures& w) {
  std::ostringstream bad;
  auto in = [&bad](const std::string& what, double v, double hi) {
    if (!(v >= 0.0 && v <= hi * (1 + 1e-12))) bad << what << " = " << v << " is outside [0, " << hi << "]; ";
  };
  in("nand.chip_utilization", w.chip_utilization, static_cast<double>(w.chips));
  for (std::size_t i = 0; i < w.chip_busy.size(); ++i) {
    in("nand.chip_busy_ratio[" + std::to_string(i) + "]", w.chip_busy[i], 1.0);
    in("nand.chip_idle_while_others_busy_ratio[" + std::to_string(i) + "]", w.chip_idle_while_others_busy[i], 1.0);
  }
  for (std::size_t i = 0; i < w.bus_utilization.size(); ++i)
    in("nand.bus_utilization[" + std::to_string(i) + "]", w.bus_utilization[i], 1.0);
  in("firmware.core_utilization", w.core_utilization, 1.0);
  in("controller.link_utilization", w.link_utilization, 1.0);
  if (!bad.str().empty())
    throw std::logic_error("statistics over the window [0, " + std::to_string(w.end) + " ps]: " + bad.str());
}

}  // namespace ssd
