// The part of autocannon's API the bench scripts use (the package ships no types).
declare module 'autocannon' {
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request;
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
    requests?: Request[];
  }
  export interface Histogram { average: number; mean: number; stddev: number; min: number; max: number; p50: number; p90: number; p99: number; p99_9?: number }
  export interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    '1xx': number; '2xx': number; '3xx': number; '4xx': number; '5xx': number;
    latency: Histogram;
    requests: Histogram & { total: number; sent: number };
    throughput: Histogram;
    duration: number;
    statusCodeStats?: Record<string, { count: number }>;
  }
  export interface Instance {
    stop(): void;
    on(event: 'response', fn: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
  }
  function autocannon(opts: Options, cb: (err: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
