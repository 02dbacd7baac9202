// Packages that only some requests need (image work, PDFs, quiz scoring, SCORM manifests,
// SMTP), loaded on their first use instead of with the server. Loaded at startup they took
// about 40 MB of every process's memory (sharp with libvips, pdfkit, survey-core,
// nodemailer, fast-xml-parser: measured together on Node 20, after a collection), which a
// process that never makes a PDF or an image variant paid for nothing.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A package's exports, `require`d on the first call (then `init` runs once) and kept. */
export function lazyRequire<T>(name: string, init?: (loaded: T) => void): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      const m = require(name) as T;
      init?.(m);
      loaded = m;
    }
    return loaded;
  };
}
