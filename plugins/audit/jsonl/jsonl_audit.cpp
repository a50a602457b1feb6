#include "jsonl_audit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::plugins::audit {

namespace json = sdk::json;

namespace {

constexpr sdk::ConfigKey kConfig[] = {
    sdk::ConfigKey::number("sample_rate", "Share of analyze requests traced, 0 to 1")
        .defaults_to("0.01")
        .at_least(0)
        .at_most(1),
    sdk::ConfigKey::string("directory",
                           "Trace directory, relative to the instance's data directory")
        .defaults_to(R"("traces")"),
};

}  // namespace

const sdk::PluginInfo JsonlAudit::kInfo{
    "1.0.0", "Sampled private traces of analyze requests as JSON lines, one file per UTC day",
    kConfig};

JsonlAudit::JsonlAudit(const sdk::PluginContext& context)
    : sample_rate_(context.config.get_number("sample_rate")), random_(std::random_device{}()) {
  const std::filesystem::path directory(context.config.get_string("directory"));
  directory_ = directory.is_absolute() ? directory : context.data_dir / directory;
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec)
    context.config.fail("directory", "cannot create " + directory_.string() + ": " + ec.message());
}

std::optional<std::string> JsonlAudit::record(const sdk::AuditEvent& event) {
  const std::lock_guard lock(mutex_);
  if (!event.always && std::uniform_real_distribution<double>(0.0, 1.0)(random_) >= sample_rate_)
    return std::nullopt;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "trc_";
  std::uint64_t bits = random_();
  for (int i = 0; i < 16; ++i, bits >>= 4U)
    id.push_back(kHex[bits & 0xFU]);

  const json::object trace{{"trace_id", id},
                           {"at", toolkit::format_rfc3339(event.at)},
                           {"workspace", event.principal.tenant.workspace},
                           {"env", sdk::environment_name(event.principal.tenant.environment)},
                           {"key_id", event.principal.key_id},
                           {"operation", event.operation},
                           {"request", event.request},
                           {"context", event.context}};
  std::string line = sdk::to_json(trace);
  line.push_back('\n');
  const auto file = directory_ / (toolkit::format_rfc3339(event.at).substr(0, 10) + ".jsonl");
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw sdk::Error::internal("cannot write the audit trace file " + file.string());
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!written) throw sdk::Error::internal("cannot write the audit trace file " + file.string());
  return id;
}

}  // namespace eventsvc::plugins::audit
