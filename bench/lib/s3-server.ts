// The benchmark's S3 server: s3rver (the tests' devDependency) on loopback, storing in a
// folder, with one bucket; its own process, so that it does not share the bench
// process's event loop with the load generator.
//
//   node --import tsx bench/lib/s3-server.ts <folder> <bucket>
// prints "ready <port>" when listening; SIGTERM closes it.
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();
console.log(`ready ${port}`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
