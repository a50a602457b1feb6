#include "rocksdb_storage.hpp"

#include <algorithm>
#include <limits>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/aggregate_accumulator.hpp"
#include "eventsvc/toolkit/cells.hpp"
#include "eventsvc/toolkit/rocksdb_checkpoint.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "log/log_append.hpp"
#include "log/log_scrub.hpp"
#include "projection/erasure_round.hpp"
#include "store/data_catalogue.hpp"
#include "store/erasure_formats.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

using sdk::ConfigKey;

constexpr std::string_view kCompressions[] = {"none", "snappy", "lz4", "zstd"};

constexpr ConfigKey kProjector[] = {
    ConfigKey::boolean("enabled",
                       "Project and verify accepted writes; when off, writes are accepted but "
                       "receipts report verification-unavailable")
        .defaults_to("true"),
    ConfigKey::integer("batch_writes", "Accepted writes per projection round")
        .defaults_to("128")
        .at_least(1)
        .at_most(100000),
    ConfigKey::integer("batch_events", "Events per projection round")
        .defaults_to("4096")
        .at_least(1)
        .at_most(1000000),
    ConfigKey::integer("merge_small_rows",
                       "Column chunks under this many rows are merged with their small "
                       "neighbours, up to this many rows together")
        .defaults_to("4096")
        .at_least(1)
        .at_most(1048576),
    ConfigKey::integer("merge_fanout",
                       "How many consecutive column chunks of one size class are merged into one")
        .defaults_to("4")
        .at_least(2)
        .at_most(64),
    ConfigKey::integer("merge_final_rows",
                       "Column chunks of this many rows or more are not merged again (at least "
                       "merge_small_rows)")
        .defaults_to("65536")
        .at_least(1)
        .at_most(16777216),
    ConfigKey::integer("column_page_rows",
                       "A column chunk's columns of more rows than this are kept in pages of this "
                       "many rows, so that a question about a few rows reads a few pages")
        .defaults_to("8192")
        .at_least(64)
        .at_most(16777216),
    ConfigKey::integer("pace_from_ms",
                       "While search is expected to trail a write accepted now by more than this, "
                       "each new write's 202 is held for half the excess (up to a second); 0: "
                       "never held")
        .defaults_to("1000")
        .at_least(0)
        .at_most(86400000),
    ConfigKey::integer("max_lag_ms",
                       "Writes are refused (503 with Retry-After) while the oldest accepted write "
                       "not yet searchable has waited longer than this; 0: never refused")
        .defaults_to("2000")
        .at_least(0)
        .at_most(86400000),
};

constexpr ConfigKey kDurableLog[] = {
    ConfigKey::integer("follow_batch",
                       "Entries of a durable log plugin copied into the local inbox per round")
        .defaults_to("256")
        .at_least(1)
        .at_most(100000),
};

constexpr ConfigKey kConfig[] = {
    ConfigKey::string("path", "Database directory, relative to the instance's data directory")
        .defaults_to(R"("db")"),
    ConfigKey::integer("block_cache_mb", "Shared block cache")
        .defaults_to("128")
        .at_least(8)
        .at_most(1 << 20),
    ConfigKey::integer("filter_cache_mb",
                       "Column chunks' term filters kept in memory, beside the block cache")
        .defaults_to("64")
        .at_least(1)
        .at_most(1 << 20),
    ConfigKey::integer("value_cache_mb",
                       "Rows of column chunks' value postings decoded by questions, kept for the "
                       "next ones (0: none)")
        .defaults_to("32")
        .at_least(0)
        .at_most(1 << 20),
    ConfigKey::integer(
        "page_cache_mb",
        "Pages of column chunks' columns parsed by questions, kept for the next ones "
        "(0: none)")
        .defaults_to("32")
        .at_least(0)
        .at_most(1 << 20),
    ConfigKey::integer("write_buffer_mb", "Memtable size per column family")
        .defaults_to("32")
        .at_least(1)
        .at_most(4096),
    ConfigKey::string("compression", "Block compression")
        .defaults_to(R"("lz4")")
        .allowed(kCompressions),
    ConfigKey::integer("max_range_candidates",
                       "Most index entries a range, prefix or exists condition may select before "
                       "the planner prefers a bounded time scan")
        .defaults_to("50000")
        .at_least(100)
        .at_most(10000000),
    ConfigKey::section("projector", "Asynchronous projection of accepted writes", kProjector),
    ConfigKey::section("durable_log", "Reading a durable log plugin back (scale-out)", kDurableLog),
};

}  // namespace

const sdk::PluginInfo RocksdbStorage::kInfo{
    "1.0.0",
    "Embedded RocksDB: durable inbox, asynchronous projection into current state and history, "
    "field, id and text indexes, verified receipts",
    kConfig};

namespace {

ProjectorOptions projector_options_of(const sdk::ConfigSection& projector) {
  ProjectorOptions options;
  options.enabled = projector.get_bool("enabled");
  options.batch_writes = static_cast<std::size_t>(projector.get_int("batch_writes"));
  options.batch_events = static_cast<std::size_t>(projector.get_int("batch_events"));
  options.merge.small_rows = static_cast<std::uint32_t>(projector.get_int("merge_small_rows"));
  options.merge.fanout = static_cast<std::uint32_t>(projector.get_int("merge_fanout"));
  options.merge.final_rows = static_cast<std::uint32_t>(projector.get_int("merge_final_rows"));
  options.merge.page_rows = static_cast<std::uint32_t>(projector.get_int("column_page_rows"));
  if (options.merge.final_rows < options.merge.small_rows) {
    projector.fail("merge_final_rows", "must be at least merge_small_rows (" +
                                           std::to_string(options.merge.small_rows) + ")");
  }
  return options;
}

// The database's settings, with the catalogue's check that it is not behind what it recorded.
DatabaseOptions database_options_of(const sdk::PluginContext& context) {
  DatabaseOptions options;
  const std::filesystem::path path(context.config.get_string("path"));
  options.path = path.is_absolute() ? path : context.data_dir / path;
  options.logger = context.logger;
  std::optional<DataCatalogue> catalogue;
  try {
    catalogue = DataCatalogue::read(options.path);
  } catch (const sdk::Error& error) {
    context.config.fail("path", error.message());
  }
  if (catalogue) {
    options.required_families = catalogue->families;
    // Before the database is opened for writing, which would change its files: put the right
    // ones back and the next start succeeds.
    options.precheck_key = Projector::cursor_key();
    options.precheck = [where = options.path.string(),
                        projected = catalogue->projected](const std::optional<std::string>& value) {
      const std::uint64_t cursor = Projector::decode_cursor(value);
      if (cursor >= projected) return;
      throw sdk::Error::internal("the database at " + where +
                                 " is damaged: it has projected writes up to sequence " +
                                 std::to_string(cursor) + ", its catalogue recorded " +
                                 std::to_string(projected) + ": acknowledged writes are missing");
    };
  }
  options.block_cache_mb = static_cast<std::size_t>(context.config.get_int("block_cache_mb"));
  options.filter_cache_mb = static_cast<std::size_t>(context.config.get_int("filter_cache_mb"));
  options.value_cache_mb = static_cast<std::size_t>(context.config.get_int("value_cache_mb"));
  options.page_cache_mb = static_cast<std::size_t>(context.config.get_int("page_cache_mb"));
  options.write_buffer_mb = static_cast<std::size_t>(context.config.get_int("write_buffer_mb"));
  options.compression = context.config.get_string("compression");
  return options;
}

}  // namespace

RocksdbStorage::RocksdbStorage(const sdk::PluginContext& context)
    : logger_(context.logger),
      data_dir_(context.data_dir),
      path_key_("plugins." + context.instance + ".config.path") {
  // Checked, like every key, before the database is opened: a config error writes nothing.
  const auto projector = context.config.get_section("projector");
  ProjectorOptions projector_options = projector_options_of(projector);
  lag_bound_ =
      std::make_unique<LagBound>(std::chrono::milliseconds(projector.get_int("pace_from_ms")),
                                 std::chrono::milliseconds(projector.get_int("max_lag_ms")));
  follow_batch_ =
      static_cast<std::size_t>(context.config.get_section("durable_log").get_int("follow_batch"));
  const DatabaseOptions options = database_options_of(context);
  path_ = options.path;
  try {
    database_ = std::make_unique<Database>(options);
  } catch (const sdk::Error& error) {
    context.config.fail("path", error.message());
  }

  sequence_ = std::make_unique<toolkit::AppendSequence>(resume_backlog());
  verdicts_ = std::make_unique<Verdicts>(*database_);
  columns_ = std::make_unique<ColumnReader>(*database_);

  projector_options.version_indexes = !columns_->chunk_indexed();
  projector_ =
      std::make_unique<Projector>(*database_, *sequence_, backlog_, logger_, projector_options);
  feed_ = std::make_unique<ChangeFeed>(*database_, *verdicts_);
  projector_->use_feed(feed_.get(), [this] {
    std::shared_ptr<const std::function<void()>> changed;
    {
      const std::lock_guard lock(changed_mutex_);
      changed = changed_;
    }
    if (changed && *changed) (*changed)();
  });
  projector_->on_checkpoint([this] { record_catalogue(); });
  record_catalogue();
  ingest_ = std::make_unique<IngestWriter>(
      *database_, *sequence_, backlog_, [this] { return projector_->available(); },
      [this] { admit_while_search_keeps_up(); }, [this] { projector_->wake(); });
  queries_ = std::make_unique<QueryEngine>(
      *database_, *verdicts_, *columns_,
      static_cast<std::size_t>(context.config.get_int("max_range_candidates")));
  list_erased_chunks(*database_);
  // An erasure's condition takes its versions' ids and instants from the columns, decoding no
  // record; history from before the columns is read record by record.
  projector_->use_version_finder([this](const sdk::Tenant& tenant, sdk::Source source,
                                        const std::vector<sdk::Condition>& where) {
    sdk::RecordQuery query;
    query.source = source;
    query.where = where;
    query.limit = 0;
    query.scan_limit = std::numeric_limits<std::size_t>::max();
    std::vector<VersionAt> found;
    if (auto matched = columns_->matches(tenant, MatchQuery::of(query, query.scan_limit))) {
      found.reserve(matched->versions.size());
      for (auto& version : matched->versions)
        found.push_back({version.timestamp, std::move(version.id)});
      return found;
    }
    queries_->scan(tenant, query,
                   [&](sdk::Record& record, double) {
                     found.push_back({record.timestamp, std::move(record.id)});
                     return true;
                   },
                   {});
    return found;
  });
  if (!projector_options.enabled) {
    logger_->warning(
        "the projector is disabled: writes are accepted but not projected or verified");
  }
}

std::uint64_t RocksdbStorage::resume_backlog() {
  const std::uint64_t cursor = Projector::stored_cursor(*database_);
  std::uint64_t next = cursor;
  std::string start;
  append_u64(start, cursor);
  auto it = database_->iterator(database_->inbox);
  for (it->Seek(start); it->Valid(); it->Next()) {
    std::string_view value(it->value().data(), it->value().size());
    const std::uint64_t sequence = read_u64(std::string_view(it->key().data(), it->key().size()));
    if (const auto tenant = take_string(value)) backlog_.accepted(*tenant, sequence);
    next = sequence + 1;
  }
  check(it->status(), "inbox scan");
  return next;
}

RocksdbStorage::~RocksdbStorage() {
  stop();
}

void RocksdbStorage::use_embedder(const sdk::Embedder* embedder) {
  projector_->use_embedder(embedder);
  embedding_model_ = embedder != nullptr ? embedder->model() : std::string();
}

namespace {

bool holds_anything(Database& database, rocksdb::ColumnFamilyHandle* family) {
  auto it = database.iterator(family);
  it->SeekToFirst();
  check(it->status(), "family scan");
  return it->Valid();
}

}  // namespace

void RocksdbStorage::use_log(sdk::DurableLog* log) {
  log_ = log;
  follower_.reset();
  projector_->on_erased({});
  projector_->use_purge_compaction([this] {
    database_->compact_everything();
    if (!follower_) return true;
    // The log trims or has scrubbed the entries of the erased writes once it hears they are
    // verified here.
    return follower_->await_published(std::chrono::seconds(30)) && log_->purge_deleted();
  });
  if (log_ == nullptr) return;
  // A database that accepted writes before a log plugin was loaded keeps their answers and claims
  // here; they go on counting beside the log's (docs/operators.md, "Durable log").
  accepted_here_before_ = holds_anything(*database_, database_->idempotency) ||
                          holds_anything(*database_, database_->digests);
  projector_->on_erased([this](const std::string& tenant, const ErasedVersions& erased) {
    log_->release_claims(erased.claims);
    scrub_log_entries(*log_, tenant, erased.by_receipt);
  });
  follower_ = std::make_unique<LogFollower>(
      *log_, *database_, *sequence_, backlog_, [this] { projector_->wake(); },
      [this] { return projector_->available(); }, logger_, follow_batch_);
}

void RocksdbStorage::start() {
  if (!follower_ && LogFollower::followed_a_log(*database_)) {
    logger_->warning(
        "this database was filled from a durable log plugin and none is loaded now: writes that "
        "log accepted and this server had not copied yet are not served until it is loaded again");
  }
  projector_->start();
  if (follower_) follower_->start();
}

void RocksdbStorage::stop() {
  if (follower_) follower_->stop();
  if (projector_) projector_->stop();
  if (!database_) return;
  try {
    record_catalogue();
  } catch (const sdk::Error& error) {
    // The last one recorded stays: it is behind, never ahead, so the next start still opens.
    logger_->warning("could not record the storage catalogue at stop: " + error.message());
  }
}

bool RocksdbStorage::back_up(const std::filesystem::path& into) {
  // The catalogue first: it records only what was durable when it was written, so the copy taken
  // after it holds at least that, and opens.
  const auto catalogue = DataCatalogue::read(path_);
  const auto place = toolkit::backup_place(path_, data_dir_, into, path_key_);
  std::filesystem::create_directories(place.parent_path());
  toolkit::checkpoint_rocksdb(database_->db(), place, "the storage database");
  if (catalogue) catalogue->write(place);
  return true;
}

void RocksdbStorage::record_catalogue() {
  DataCatalogue catalogue;
  catalogue.families = Database::family_names();
  catalogue.projected = Projector::stored_cursor(*database_);  // then made durable
  database_->sync();
  catalogue.write(path_);
}

void RocksdbStorage::admit_while_search_keeps_up() {
  // A projector that is off or failing is reported otherwise (receipts say
  // verification-unavailable, /readyz is not ready): writes go on being accepted then, as before.
  if (projector_->available()) lag_bound_->admit(backlog_.lag());
}

sdk::AcceptResult RocksdbStorage::accept(const sdk::IncomingWrite& write,
                                         const sdk::ReceiptRenderer& render) {
  sdk::AcceptResult result = accept_write(write, render);
  if (!result.replayed && projector_->available()) result.hold = lag_bound_->hold(lag_ahead());
  return result;
}

std::chrono::milliseconds RocksdbStorage::lag_ahead() const {
  const std::chrono::milliseconds waited = backlog_.lag();
  const double pace = projector_->stats().writes_per_second.load(std::memory_order_relaxed);
  if (pace <= 0) return waited;
  const auto to_project = std::chrono::milliseconds(
      static_cast<std::int64_t>(1000.0 * static_cast<double>(backlog_.total()) / pace));
  return std::max(waited, to_project);
}

sdk::AcceptResult RocksdbStorage::accept_write(const sdk::IncomingWrite& write,
                                               const sdk::ReceiptRenderer& render) {
  if (log_) {
    // Before the log's transaction: the replay of a completed key is refused too while lagging.
    admit_while_search_keeps_up();
    if (!accepted_here_before_) {
      return log_->append(log_append_of(write, projector_->available(), render));
    }
    const std::string key = tenant_prefix(write.tenant) + write.idempotency_key;
    if (auto answer = stored_answer(*database_, key, write.received_at)) return {*answer, true};
    return log_->append(log_append_of(
        write, projector_->available(), render,
        [this](const std::string& claim) { return database_->exists(database_->digests, claim); }));
  }
  return ingest_->accept(write, render);
}

sdk::AcceptResult RocksdbStorage::erase(const sdk::ErasureRequest& request,
                                        const sdk::ErasureRenderer& render) {
  if (!log_) return ingest_->accept_erasure(request, render);
  if (accepted_here_before_) {
    const std::string key =
        tenant_prefix(request.tenant) + erasure_idempotency_key(request.idempotency_key);
    if (auto answer = stored_answer(*database_, key, request.received_at)) return {*answer, true};
  }
  return log_->append(log_append_of_erasure(request, render));
}

std::optional<sdk::ErasureStatus> RocksdbStorage::erasure(const sdk::Tenant& tenant,
                                                          std::string_view erasure_id) {
  const std::string tenant_key = tenant_prefix(tenant);
  const std::string key = erasure_status_key(tenant_key, erasure_id);
  auto value = database_->get(database_->meta, key);
  if (!value && log_) {
    value = receipt_from_log(tenant_key, erasure_id);  // accepted, not copied here yet
    if (!value) value = database_->get(database_->meta, key);
  }
  if (!value) return std::nullopt;
  return decode_erasure_status(*value);
}

std::optional<sdk::Receipt> RocksdbStorage::receipt(const sdk::Tenant& tenant,
                                                    std::string_view receipt_id) {
  const std::string tenant_key = tenant_prefix(tenant);
  const std::string key = tenant_key + std::string(receipt_id);
  auto value = database_->get(database_->receipts, key);
  if (!value && log_) {
    value = receipt_from_log(tenant_key, receipt_id);
    // Copied here and trimmed from the log between the two reads.
    if (!value) value = database_->get(database_->receipts, key);
  }
  if (!value) return std::nullopt;
  StoredReceipt stored = decode_receipt(*value);
  sdk::Receipt receipt = std::move(stored.receipt);
  receipt.receipt_id = std::string(receipt_id);
  receipt.expires_at = receipt.created_at + kReceiptLifetimeMs;
  if (receipt.expires_at <= toolkit::now_millis()) return std::nullopt;
  const bool final =
      receipt.state == sdk::ReceiptState::verified || receipt.state == sdk::ReceiptState::conflict;
  if (!final && !projector_->available())
    receipt.state = sdk::ReceiptState::verification_unavailable;
  if (receipt.state == sdk::ReceiptState::verified && log_ &&
      !verified_everywhere(tenant_key, receipt_id)) {
    receipt.state = sdk::ReceiptState::projecting;
  }
  return receipt;
}

std::optional<std::string> RocksdbStorage::receipt_from_log(const std::string& tenant_key,
                                                            std::string_view receipt_id) {
  try {
    const auto entry = log_->find_receipt(tenant_key, receipt_id);
    if (!entry) return std::nullopt;
    return entry->receipt;  // as accepted: not copied here yet
  } catch (const sdk::Error& error) {
    logger_->warning("receipt lookup in the durable log failed: " + error.message());
    throw sdk::Error::unavailable("the durable log cannot be reached", 1);
  }
}

bool RocksdbStorage::verified_everywhere(const std::string& tenant_key,
                                         std::string_view receipt_id) {
  try {
    const auto entry = log_->find_receipt(tenant_key, receipt_id);
    return !entry || !log_->held_back(entry->position);
  } catch (const sdk::Error&) {
    return false;  // whether every server has it cannot be known while the log is out of reach
  }
}

sdk::ScanStats RocksdbStorage::scan(const sdk::Tenant& tenant, const sdk::RecordQuery& query,
                                    const sdk::RecordVisitor& visit) {
  return queries_->scan(tenant, query, visit, embedding_model_);
}

std::optional<sdk::ScanStats> RocksdbStorage::scan_json(const sdk::Tenant& tenant,
                                                        const sdk::RecordQuery& query,
                                                        const sdk::RecordJsonVisitor& visit) {
  return queries_->scan_json(tenant, query, visit);
}

sdk::ChangePosition RocksdbStorage::change_head(const sdk::Tenant& tenant) {
  return feed_->head(tenant_prefix(tenant));
}

void RocksdbStorage::watch_changes(std::function<void()> changed) {
  const std::lock_guard lock(changed_mutex_);
  changed_ = std::make_shared<const std::function<void()>>(std::move(changed));
}

sdk::ChangeScan RocksdbStorage::changes(const sdk::Tenant& tenant, const sdk::ChangeQuery& query,
                                        const sdk::ChangeVisitor& visit) {
  return feed_->read(tenant_prefix(tenant), query, visit);
}

sdk::AggregateResult RocksdbStorage::aggregate(const sdk::Tenant& tenant,
                                               const sdk::AggregateRequest& request) {
  if (auto answered = columns_->aggregate(tenant, request)) return std::move(*answered);
  return toolkit::aggregate_by_scanning(*this, tenant, request);
}

sdk::ScanStats RocksdbStorage::scan_cells(const sdk::Tenant& tenant, const sdk::CellQuery& query,
                                          const sdk::CellVisitor& visit) {
  const std::string tenant_key = tenant_prefix(tenant);
  const auto verification = [&](std::string_view receipt_id) {
    return verdicts_->of(tenant_key, receipt_id);
  };
  if (auto answered = columns_->cells(tenant, query, visit, verification)) return *answered;
  return toolkit::scan_cells_by_records(*this, tenant, query, visit);
}

sdk::Neighbors RocksdbStorage::neighbors(const sdk::Tenant& tenant, sdk::Source source,
                                         const sdk::Record& anchor, std::size_t before,
                                         std::size_t after, sdk::Millis not_before) {
  return queries_->neighbors(tenant, source, anchor, before, after, not_before);
}

sdk::StorageStatus RocksdbStorage::status(const sdk::Tenant& tenant) {
  sdk::StorageStatus status;
  status.projection_backlog = backlog_.get(tenant_prefix(tenant));
  status.projector_available = projector_->available();
  const auto [timestamp, ingested_at] = queries_->newest(tenant);
  status.newest_timestamp = timestamp;
  status.newest_ingested_at = ingested_at;
  return status;
}

sdk::StorageHealth RocksdbStorage::health() {
  sdk::StorageHealth health;
  health.problem = database_->write_problem();
  // Both, when both fail (one disk under both databases): each names what to look at.
  if (const auto log_problem = log_ != nullptr ? log_->problem() : std::string();
      !log_problem.empty()) {
    health.problem += (health.problem.empty() ? "" : "; ") + log_problem;
  }
  health.projecting = projector_->available();
  health.projection_backlog = backlog_.total();
  if (follower_) {
    // A log that cannot be read now does not make this server unready once its copy has caught
    // up: reads go on from the copy (the follower says so in the log and in /metrics).
    health.follows_log = true;
    // Caught up once the copy reached the end of the log and projected all of it; from then on
    // the backlog check says how far behind it is.
    if (!caught_up_ && follower_->caught_up() && health.projection_backlog == 0) caught_up_ = true;
    health.caught_up = caught_up_.load();
    // Until then, why the copy cannot go on (the log out of reach, or trimmed past this copy);
    // a copy the log refuses stays unready whenever that happens.
    if ((!health.caught_up || follower_->problem_lasts()) && health.problem.empty()) {
      health.problem = follower_->problem();
    }
  }
  return health;
}

}  // namespace eventsvc::plugins::rocksdb_storage
