#include "key_use_log.hpp"

#include <fstream>
#include <sstream>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/files.hpp"

namespace eventsvc::plugins::apikey {

KeyUseLog::KeyUseLog(std::filesystem::path file) : file_(std::move(file)) {
  std::ifstream in(file_);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  try {
    // Named: a range-for over a member of a temporary would outlive the temporary.
    const sdk::json::value document = sdk::parse_json(text.str());
    for (const auto& entry : document.as_object().at("last_used").as_object()) {
      last_[std::string(entry.key())] = entry.value().to_number<sdk::Millis>();
    }
  } catch (const std::exception&) {
    last_.clear();
  }
}

KeyUseLog::~KeyUseLog() {
  std::string text;
  {
    const std::lock_guard lock(mutex_);
    if (!changed_) return;
    text = text_locked();
    changed_ = false;
  }
  const std::lock_guard writing(writing_);
  try {
    toolkit::replace_file(file_, text, 0600);
  } catch (const std::exception&) {
    // Only a record of use: a plugin that stops on a full disk loses it, nothing else.
  }
}

void KeyUseLog::used(const std::string& id, sdk::Millis now) {
  std::string text;
  {
    const std::lock_guard lock(mutex_);
    const auto [last, first_use] = last_.try_emplace(id, now);
    if (first_use || now - last->second >= kPrecision) {
      last->second = now;
      changed_ = true;
    }
    if (!changed_ || now - written_at_ < kPrecision) return;
    written_at_ = now;
    text = text_locked();
    changed_ = false;
  }
  write(text);
}

std::optional<sdk::Millis> KeyUseLog::last_used(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  const auto found = last_.find(id);
  if (found == last_.end()) return std::nullopt;
  return found->second;
}

std::string KeyUseLog::text_locked() const {
  sdk::json::object uses;
  for (const auto& [id, at] : last_)
    uses[id] = at;
  return sdk::to_json(sdk::json::object{{"version", 1}, {"last_used", std::move(uses)}});
}

void KeyUseLog::write(const std::string& text) {
  const std::unique_lock writing(writing_, std::try_to_lock);
  bool written = false;
  if (writing.owns_lock()) {
    try {
      toolkit::replace_file(file_, text, 0600);
      written = true;
    } catch (const std::exception&) {
      // Tried again a minute on; the request goes on regardless.
    }
  }
  if (!written) {
    const std::lock_guard lock(mutex_);
    changed_ = true;
  }
}

}  // namespace eventsvc::plugins::apikey
