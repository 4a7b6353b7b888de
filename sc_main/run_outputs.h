// The files a run writes for its results (stats.json, config.json, the request CSV,
// timeseries.csv): each is written under FILE.partial and moved into place only once the
// run has completed, so that a run stopped by bad input or an error leaves no file that
// looks like a finished run's (a VCD is kept as written up to the stop: it is what one
// debugs the stop with). Process-wide, as the run is.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace ssd {

class RunOutputs {
 public:
  // The name to write `final_path` under until commit(); the same for the same path.
  static std::string partial(const std::string& final_path) {
    for (const auto& [f, p] : files())
      if (f == final_path) return p;
    files().emplace_back(final_path, final_path + ".partial");
    return files().back().second;
  }
  // The files registered so far, by their final names, in the order they were registered.
  static std::vector<std::string> pending() {
    std::vector<std::string> names;
    for (const auto& [f, p] : files()) names.push_back(f);
    return names;
  }
  // The run completed: every file takes its final name (throws std::runtime_error if a
  // rename fails).
  static void commit() {
    for (const auto& [f, p] : files()) {
      std::error_code ec;
      std::filesystem::rename(p, f, ec);
      if (ec) throw std::runtime_error("cannot move " + p + " to " + f + ": " + ec.message());
    }
    files().clear();
  }
  // The run did not complete: the files written so far go.
  static void discard() {
    for (const auto& [f, p] : files()) {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
    files().clear();
  }

 private:
  static std::vector<std::pair<std::string, std::string>>& files() {
    static std::vector<std::pair<std::string, std::string>> f;
    return f;
  }
};

}  // namespace ssd
