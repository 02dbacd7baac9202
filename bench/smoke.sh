#!/usr/bin/env bash
# The benchmark's smoke run (CI, after the tests): a tiny site in a temporary SQLite file,
# every scenario for 1 s, then four of them again with the server as 2 processes
# (WEB_CONCURRENCY=2), and a check that the JSON was written with no failed request.
# Speed is not judged here (see BENCHMARKS.md); only that the benchmark still works.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db="sqlite:$dir/smoke.sqlite"
npm run -s seed:bench -- --guides 300 --database "$db" --hash-cost 4
npm run -s bench -- --database "$db" --duration 1 --connections 4 --write-connections 8 --processes 2 --json "$dir/smoke.json"
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const bad = r.scenarios.filter((s) => s.errors > 0 || s.requests === 0);
const missing = ["guide-304", "guide-cold-gzip", "guide-x2", "mixed-x2"].filter((n) => !r.scenarios.some((s) => s.name === n));
if (r.scenarios.length < 10 || bad.length || missing.length || r.failures.length) {
  console.error("benchmark smoke run failed:", JSON.stringify({ scenarios: r.scenarios.length, bad: bad.map((s) => [s.name, s.requests, s.statusCodes]), missing, failures: r.failures }));
  process.exit(1);
}
console.log(`benchmark smoke run: ${r.scenarios.length} scenarios, ${r.scenarios.reduce((n, s) => n + s.requests, 0)} requests, 0 errors`);
' "$dir/smoke.json"
