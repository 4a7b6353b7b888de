#include "sc_main/stream_alone.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sc_main/json.h"
#include "sc_main/settings.h"

extern char** environ;

namespace ssd {

using param::key;

namespace {

// The member `name` of an object (null: none).
const json::Value* member(const json::Value& v, const std::string& name) {
  for (const auto& [k, m] : v.members)
    if (k == name) return &m;
  return nullptr;
}

}  // namespace

std::vector<double> stream_alone_means(const Config& cfg, const std::vector<std::size_t>& streams) {
  const std::string me = key(&ReportConfig::stream_alone);
  char dir_template[] = "/tmp/ssdsim-alone-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) throw std::runtime_error(me + ": cannot create a folder under /tmp for the alone runs");
  const std::filesystem::path base(dir);
  struct Cleanup {
    std::filesystem::path p;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } cleanup{base};
  const std::string config = (base / "config.json").string();
  {
    std::ofstream f(config);
    f << cfg.to_json();
    if (!f) throw std::runtime_error(me + ": cannot write " + config);
  }
  std::vector<double> means;
  for (const std::size_t i : streams) {
    const std::string out = (base / ("stream" + std::to_string(i))).string();
    std::vector<std::string> args = {"ssdsim", "--config", config,
                                     "--set", key(&ReportConfig::stream_only) + "=" + std::to_string(i),
                                     "--set", me + "=false",
                                     "--set", key(&ReportConfig::requests_csv) + "=",
                                     "--set", key(&TraceConfig::vcd) + "=",
                                     "--set", key(&TraceConfig::scopes) + "=",
                                     "--set", key(&ReportConfig::interval_us) + "=0",
                                     "--set", key(&ReportConfig::request_timeline) + "=",
                                     "--set", key(&TraceConfig::request) + "=",
                                     "--out", out};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = out + ".log";
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error(me + ": cannot start the alone run of stream " + std::to_string(i));
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::ifstream l(log);
      std::string text((std::istreambuf_iterator<char>(l)), std::istreambuf_iterator<char>());
      if (text.size() > 2000) text = text.substr(text.size() - 2000);
      throw std::runtime_error(me + ": the alone run of stream " + std::to_string(i) + " failed:\n" + text);
    }
    const json::Value stats = json::parse_file(out + "/stats.json");
    const json::Value* all = member(stats, "all");
    const json::Value* lat = all ? member(*all, "latency_us") : nullptr;
    const json::Value* mean = lat ? member(*lat, "mean") : nullptr;
    if (!mean || mean->kind != json::Value::Kind::Number)
      throw std::runtime_error(me + ": the alone run of stream " + std::to_string(i) +
                               " wrote no all.latency_us.mean");
    means.push_back(mean->num);
  }
  return means;
}

}  // namespace ssd
