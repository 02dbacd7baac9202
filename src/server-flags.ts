// How the server's node process starts (docs/ARCHITECTURE.md, "Memory"): `npm start`
// (src/start.ts), the benchmark and the tests start it with these, and the processes of
// WEB_CONCURRENCY inherit them (node:cluster starts workers with their parent's flags and
// environment). Both must be in place before node starts: V8 sizes its heap and glibc its
// arenas at startup.

/**
 * V8's share of the memory: a young generation of 2 × 8 MB instead of 2 × 16 MB (2 × 4 MB
 * cost the list and the floor 15 to 30 % of their throughput in scavenges), and the old
 * generation let grow 20 % past what a full collection left alive instead of up to 4 times it.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=20'];

/**
 * glibc's malloc keeps at most two arenas (by default up to 8 per core, one per thread that
 * allocates: V8's helper threads and libuv's pool each kept what they once used, about
 * 30 MB more at the peak of a run). Other platforms' allocators ignore it.
 */
export const SERVER_MALLOC_ENV: Record<string, string> = { MALLOC_ARENA_MAX: '2' };
