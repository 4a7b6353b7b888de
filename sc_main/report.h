// Statistics output: a readable summary for people, stats.json for scripts
// (key names per DESIGN.md section 10).
#pragma once

#include <iosfwd>
#include <string>

#include "nand/nand_device.h"
#include "sc_main/json.h"
#include "sc_main/nand_script_driver.h"

namespace ssd {

struct RunFigures {
  double wall_seconds = 0;
  double peak_rss_mb = 0;
};

double peak_rss_mb();

json::Value nand_ops_stats(const NandScriptDriver& drv, const nand::NandDevice& nand,
                           const RunFigures& run);
void print_nand_ops_summary(std::ostream& os, const NandScriptDriver& drv,
                            const nand::NandDevice& nand, const RunFigures& run);
void print_timeline(std::ostream& os, const NandScriptDriver& drv, std::size_t max_lines);

}  // namespace ssd
