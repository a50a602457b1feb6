#include "metrics/metric_families.hpp"

#include <prometheus/check_names.h>
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <limits>
#include <sstream>

namespace eventsvc::host {

namespace {

constexpr std::size_t kRejectionsKept = 8;

prometheus::ClientMetric with_labels(const sdk::MetricLabels& common,
                                     const sdk::MetricLabels& own) {
  prometheus::ClientMetric metric;
  for (const auto* labels : {&common, &own}) {
    for (const auto& [name, value] : *labels)
      metric.label.push_back({name, value});
  }
  return metric;
}

}  // namespace

class MetricFamilies::Sink final : public sdk::MetricsSink {
 public:
  Sink(MetricFamilies& page, std::string prefix, sdk::MetricLabels labels)
      : page_(page), prefix_(std::move(prefix)), labels_(std::move(labels)) {}

  void counter(std::string_view name, std::string_view help, double value,
               const sdk::MetricLabels& labels) override {
    auto metric = with_labels(labels_, labels);
    metric.counter.value = value;
    add(name, help, prometheus::MetricType::Counter, std::move(metric));
  }

  void gauge(std::string_view name, std::string_view help, double value,
             const sdk::MetricLabels& labels) override {
    auto metric = with_labels(labels_, labels);
    metric.gauge.value = value;
    add(name, help, prometheus::MetricType::Gauge, std::move(metric));
  }

  void histogram(std::string_view name, std::string_view help, const sdk::HistogramSnapshot& value,
                 const sdk::MetricLabels& labels) override {
    auto metric = with_labels(labels_, labels);
    auto& histogram = metric.histogram;
    histogram.sample_sum = value.sum;
    histogram.sample_count = value.cumulative_counts.empty() ? 0 : value.cumulative_counts.back();
    for (std::size_t i = 0; i < value.upper_bounds.size() && i < value.cumulative_counts.size();
         ++i) {
      histogram.bucket.push_back({value.cumulative_counts[i], value.upper_bounds[i]});
    }
    histogram.bucket.push_back({histogram.sample_count, std::numeric_limits<double>::infinity()});
    add(name, help, prometheus::MetricType::Histogram, std::move(metric));
  }

 private:
  void add(std::string_view name, std::string_view help, prometheus::MetricType type,
           prometheus::ClientMetric metric) {
    const std::string full = prefix_ + std::string(name);
    std::string problem;
    if (!prometheus::CheckMetricName(full)) problem = "not a metric name";
    for (const auto& label : metric.label) {
      if (problem.empty() && (!prometheus::CheckLabelName(label.name) || label.name == "le")) {
        problem = "label '" + label.name + "' is not a label name";
      }
    }
    prometheus::MetricFamily* family =
        problem.empty() ? page_.family(full, help, static_cast<int>(type)) : nullptr;
    if (problem.empty() && family == nullptr) {
      problem = "already reported with another kind or help text";
    }
    if (!problem.empty()) {
      ++page_.rejected_;
      if (page_.rejections_.size() < kRejectionsKept) {
        page_.rejections_.push_back(full + ": " + problem);
      }
      return;
    }
    family->metric.push_back(std::move(metric));
  }

  MetricFamilies& page_;
  std::string prefix_;
  sdk::MetricLabels labels_;
};

MetricFamilies::MetricFamilies() = default;
MetricFamilies::~MetricFamilies() = default;

std::unique_ptr<sdk::MetricsSink> MetricFamilies::sink(std::string prefix,
                                                       sdk::MetricLabels labels) {
  return std::make_unique<Sink>(*this, std::move(prefix), std::move(labels));
}

prometheus::MetricFamily* MetricFamilies::family(const std::string& name, std::string_view help,
                                                 int type) {
  const auto found = by_name_.find(name);
  if (found != by_name_.end()) {
    auto& existing = families_[found->second];
    const bool same = static_cast<int>(existing.type) == type && existing.help == help;
    return same ? &existing : nullptr;
  }
  by_name_.emplace(name, families_.size());
  families_.push_back({name, std::string(help), static_cast<prometheus::MetricType>(type), {}});
  return &families_.back();
}

std::string MetricFamilies::text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families_);
  return out.str();
}

}  // namespace eventsvc::host
