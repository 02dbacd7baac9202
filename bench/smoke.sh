#!/usr/bin/env bash
# The benchmark's smoke run (CI, after the tests): a tiny site in a temporary SQLite file
# (300 guides, a workforce of 500 people), every scenario for 1 s (`image-variant` on 8
# uploaded images; `image-variant-cold` is opt-in: an upload per request), then four again
# with the server as 2 processes (WEB_CONCURRENCY=2), and a check that the JSON was
# written with no failed request.
# Speed is not judged here (see BENCHMARKS.md); only that the benchmark still works.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db="sqlite:$dir/smoke.sqlite"
npm run -s seed:bench -- --guides 300 --users 500 --database "$db" --hash-cost 4
# Every public guide's record stored (in one variant or another: guides.cache.ts) by the
# seed's processes, each taking a part of the guides.
node -e '
const db = new (require("better-sqlite3"))(process.argv[1], { readonly: true });
const one = (q) => db.prepare(q).pluck().get();
const guides = one("select count(*) from guides where public = 1 and deleted = 0");
const stored = one("select count(*) from guides g where public = 1 and deleted = 0 and exists (select 1 from guide_records r where r.guideid = g.guideid and r.langid = g.langid and r.cache_stamp = g.cache_stamp)");
if (guides === 0 || stored !== guides) { console.error(`seed: ${stored} of ${guides} public guides have a stored record`); process.exit(1); }
console.log(`seed: all ${guides} public guides have a stored record`);
' "$dir/smoke.sqlite"
npm run -s bench -- --database "$db" --duration 1 --connections 4 --write-connections 8 --processes 2 --json "$dir/smoke.json"
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const bad = r.scenarios.filter((s) => s.errors > 0 || s.requests === 0);
const missing = ["guide-304", "guide-cold-gzip", "guide-x2", "mixed-x2", "skills-matrix", "team-courses", "summaries", "team-summaries", "user-assignments", "image-variant"].filter((n) => !r.scenarios.some((s) => s.name === n));
if (r.scenarios.length < 10 || bad.length || missing.length || r.failures.length) {
  console.error("benchmark smoke run failed:", JSON.stringify({ scenarios: r.scenarios.length, bad: bad.map((s) => [s.name, s.requests, s.statusCodes]), missing, failures: r.failures }));
  process.exit(1);
}
console.log(`benchmark smoke run: ${r.scenarios.length} scenarios, ${r.scenarios.reduce((n, s) => n + s.requests, 0)} requests, 0 errors`);
' "$dir/smoke.json"
