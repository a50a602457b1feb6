#include "metrics/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace eventsvc::host {

namespace {

// The fields of /proc/self/stat after the command name (which may hold spaces), so that field
// N of proc(5) is at index N - 3.
std::vector<std::string> stat_fields() {
  std::ifstream file("/proc/self/stat");
  std::string line;
  std::getline(file, line);
  const std::size_t name_end = line.rfind(')');
  if (name_end == std::string::npos) return {};
  std::istringstream rest(line.substr(name_end + 1));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;)
    fields.push_back(field);
  return fields;
}

double boot_time_seconds() {
  std::ifstream file("/proc/stat");
  for (std::string key; file >> key;) {
    if (key == "btime") {
      double seconds = 0;
      file >> seconds;
      return seconds;
    }
    file.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

void report_stat(sdk::MetricsSink& sink, const std::vector<std::string>& fields) {
  // proc(5): utime 14, stime 15, num_threads 20, starttime 22, vsize 23, rss 24.
  constexpr std::size_t kUtime = 11, kStime = 12, kThreads = 17, kStart = 19, kVsize = 20,
                        kRss = 21;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  if (fields.size() <= kRss || ticks <= 0) return;
  sink.counter("process_cpu_seconds_total", "User and system CPU time spent, in seconds",
               (std::stod(fields[kUtime]) + std::stod(fields[kStime])) / ticks);
  sink.gauge("process_resident_memory_bytes", "Resident memory size, in bytes",
             std::stod(fields[kRss]) * page);
  sink.gauge("process_virtual_memory_bytes", "Virtual memory size, in bytes",
             std::stod(fields[kVsize]));
  sink.gauge("process_threads", "Threads of the process", std::stod(fields[kThreads]));
  if (const double boot = boot_time_seconds(); boot > 0) {
    sink.gauge("process_start_time_seconds",
               "Start time of the process since the Unix epoch, in seconds",
               boot + std::stod(fields[kStart]) / ticks);
  }
}

}  // namespace

void report_process_metrics(sdk::MetricsSink& sink) {
  // A field that does not read as a number (proc(5) fixes them; never seen) leaves these out.
  try {
    report_stat(sink, stat_fields());
  } catch (const std::exception&) {
  }
  std::error_code error;
  std::size_t descriptors = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++descriptors;
  }
  if (!error) {
    sink.gauge("process_open_fds", "Open file descriptors", static_cast<double>(descriptors));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    sink.gauge("process_max_fds", "Most file descriptors the process may open",
               static_cast<double>(limit.rlim_cur));
  }
}

}  // namespace eventsvc::host
