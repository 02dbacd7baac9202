// How the server's node process starts (docs/ARCHITECTURE.md, "Memory"): `npm start`
// (src/start.ts), the benchmark and the tests start it with these, and the processes of
// WEB_CONCURRENCY inherit them (node:cluster starts workers with their parent's flags and
// environment). Both must be in place before node starts: V8 sizes its heap and glibc its
// arenas at startup.

/**
 * V8's share of the memory: a young generation of 2 × 8 MB instead of 2 × 16 MB (2 × 4 MB
 * cost the list and the floor 15 to 30 % of their throughput in scavenges), and the old
 * generation let grow 35 % past what a full collection left alive instead of up to 4 times
 * it. Not 20 % (until 2026-11-28): with about 40 MB alive, 20 % left the old generation
 * little room, and V8 counts against it the buffers allocated since the last full
 * collection too, so under cold guide reads (37 KB buffers each) it marked without pause
 * (nine full collections a second, a quarter of the main thread); 35 % costs
 * about 6 MB more heap and gave SQLite's cold read and hierarchy about twice their rate
 * (BENCHMARKS.md, run of 2026-11-28, 07:14).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=35'];

/**
 * glibc's malloc keeps at most two arenas (by default up to 8 per core, one per thread that
 * allocates: V8's helper threads and libuv's pool each kept what they once used, about
 * 30 MB more at the peak of a run), and maps every block of 128 KB or more on its own, given
 * back when freed: by default the threshold rises to the largest block freed so far (up to
 * 32 MB), after which zlib's 256 KB deflate states and the like stay in the arenas, which
 * only give back their top (10 to 13 MB less at the peak of a run). Other platforms'
 * allocators ignore both.
 */
export const SERVER_MALLOC_ENV: Record<string, string> = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
