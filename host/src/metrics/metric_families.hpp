// The metrics page being built for one scrape: the series every source (the host, the connection
// layer, the process, each plugin) reports through sdk::MetricsSink, grouped into families and
// written in the Prometheus text exposition format by prometheus-cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "eventsvc/sdk/metrics.hpp"

namespace prometheus {
struct MetricFamily;
}

namespace eventsvc::host {

class MetricFamilies {
 public:
  MetricFamilies();
  ~MetricFamilies();
  MetricFamilies(const MetricFamilies&) = delete;
  MetricFamilies& operator=(const MetricFamilies&) = delete;

  // A sink whose series are named `prefix` + name and carry `labels` besides their own. Lives no
  // longer than this object.
  std::unique_ptr<sdk::MetricsSink> sink(std::string prefix, sdk::MetricLabels labels = {});

  // Series refused so far: an invalid name or label, or a name already used with another kind or
  // help text (the first one reported stays).
  std::size_t rejected() const { return rejected_; }
  const std::vector<std::string>& rejections() const { return rejections_; }

  // The page, in text format 0.0.4.
  std::string text() const;

 private:
  class Sink;
  prometheus::MetricFamily* family(const std::string& name, std::string_view help, int type);

  std::vector<prometheus::MetricFamily> families_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::size_t rejected_ = 0;
  std::vector<std::string> rejections_;  // the first few, for the log
};

}  // namespace eventsvc::host
