// The test S3 server (a devDependency) ships no types: what the helper uses of it.
declare module 's3rver' {
  export default class S3rver {
    constructor(options: { port?: number; address?: string; silent?: boolean; directory: string; resetOnClose?: boolean; configureBuckets?: Array<{ name: string }> });
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
