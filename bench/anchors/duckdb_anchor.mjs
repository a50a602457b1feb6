// DuckDB, the specialist for the history questions of bench/compare.py: count, sum and avg of
// metrics.latency_ms by stream over 7 days, and events per 5-minute bucket over 24 h.
//
//   node bench/anchors/duckdb_anchor.mjs --events FILE.jsonl --db FILE.duckdb
//        --week-from MS --day-from MS --to MS [--runs 100]
//
// Loads the JSON-lines events (id, stream, at_ms: epoch ms, latency_ms) into a typed table of an
// on-disk database, asks each question --runs times through a prepared statement, and prints one
// JSON line: per question p50, p99 and the first run in ms and the first run's answer. What is timed
// is the query inside this process (bind, execute, read every row): no network, no serialisation.
import { parseArgs } from 'node:util';
import { DuckDBInstance, DuckDBTimestampValue, version } from '@duckdb/node-api';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string' }, db: { type: 'string' }, 'week-from': { type: 'string' },
    'day-from': { type: 'string' }, to: { type: 'string' }, runs: { type: 'string', default: '100' },
  },
});
for (const name of ['events', 'db', 'week-from', 'day-from', 'to']) {
  if (args[name] === undefined) throw new Error(`--${name} is required`);
}
const timestamp = (ms) => new DuckDBTimestampValue(BigInt(ms) * 1000n); // microseconds
const quoted = (text) => `'${text.replaceAll("'", "''")}'`;

const instance = await DuckDBInstance.create(args.db);
const connection = await instance.connect();

// The schema a team would give these events: typed columns, rows in time order so that the
// per-row-group min/max of occurred_at (DuckDB's zone maps) skip what a time range excludes.
const loadStarted = process.hrtime.bigint();
await connection.run(`CREATE TABLE events (
  id VARCHAR NOT NULL, stream VARCHAR NOT NULL, occurred_at TIMESTAMP NOT NULL,
  latency_ms INTEGER NOT NULL)`);
await connection.run(`INSERT INTO events
  SELECT id, stream, epoch_ms(at_ms), latency_ms
  FROM read_json(${quoted(args.events)}, format = 'newline_delimited',
                 columns = {id: 'VARCHAR', stream: 'VARCHAR', at_ms: 'BIGINT', latency_ms: 'INTEGER'})
  ORDER BY at_ms`);
await connection.run('CHECKPOINT'); // the table in the database file, not in its WAL
const loadSeconds = Number(process.hrtime.bigint() - loadStarted) / 1e9;

const runs = Number(args.runs);

// Asks a prepared question `runs` times; bind(prepared) binds its parameters.
async function ask(sql, bind, answerOf) {
  const prepared = await connection.prepare(sql);
  const timings = [];
  let answer;
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    bind(prepared);
    const rows = (await prepared.runAndReadAll()).getRows();
    timings.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (run === 0) answer = answerOf(rows);
  }
  // The same figures as compare.py's: the middle run, the run at 99% and the first run.
  const first = timings[0];
  timings.sort((a, b) => a - b);
  return {
    first_ms: first,
    p50_ms: timings[Math.floor(timings.length / 2)],
    p99_ms: timings[Math.min(timings.length - 1, Math.floor(timings.length * 0.99))],
    runs, answer,
  };
}

const streams = await ask(
  `SELECT stream, count(*), sum(latency_ms), avg(latency_ms) FROM events
   WHERE occurred_at >= $1 GROUP BY stream`,
  (p) => p.bindTimestamp(1, timestamp(args['week-from'])),
  (rows) => Object.fromEntries(rows.map(([s, n, total, mean]) => [s, [Number(n), Number(total), mean]])));

const buckets = await ask(
  `SELECT epoch_ms(time_bucket(INTERVAL 5 MINUTE, occurred_at)), count(*) FROM events
   WHERE occurred_at BETWEEN $1 AND $2 GROUP BY 1`,
  (p) => {
    p.bindTimestamp(1, timestamp(args['day-from']));
    p.bindTimestamp(2, timestamp(args.to));
  },
  (rows) => Object.fromEntries(rows.map(([bucket, n]) => [String(bucket), Number(n)])));

connection.closeSync();
instance.closeSync();
console.log(JSON.stringify({ engine: 'DuckDB', version: version(), load_s: loadSeconds,
                             streams, buckets }));
