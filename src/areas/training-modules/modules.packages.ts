// Small SCORM packages written in code: the demo module and the tests' packages. A tiny
// zip writer (stored or deflated entries, no data descriptors) so the server needs no
// zip-writing dependency; the tests also use it to forge hostile archives.
import { deflateRawSync } from 'node:zlib';

export interface ZipEntryInput {
  name: string;
  data: Buffer | string;
  /** Deflate the entry (default true). */
  compress?: boolean;
  /** Unix mode bits written to the external attributes (e.g. 0o120777 for a symlink). */
  mode?: number;
  /** Written instead of the real uncompressed size (hostile tests). */
  declaredSize?: number;
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = -1;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

export function writeZip(entries: ZipEntryInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data, 'utf8');
    const compress = e.compress ?? true;
    const body = compress ? deflateRawSync(data) : data;
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(data);
    const size = e.declaredSize ?? data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(compress ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(compress ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? (e.name.endsWith('/') ? 0o40755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function scormManifest(opts: { version: '1.2' | '2004'; title: string; href?: string; manifestVersion?: string }): string {
  const href = opts.href ?? 'index.html';
  const v12 = opts.version === '1.2';
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="demo.manifest" version="${escapeXml(opts.manifestVersion ?? '1')}"
  xmlns="${v12 ? 'http://www.imsproject.org/xsd/imscp_rootv1p1p2' : 'http://www.imsglobal.org/xsd/imscp_v1p1'}"
  xmlns:adlcp="${v12 ? 'http://www.adlnet.org/xsd/adlcp_rootv1p2' : 'http://www.adlnet.org/xsd/adlcp_v1p3'}">
  <metadata><schema>ADL SCORM</schema><schemaversion>${v12 ? '1.2' : '2004 4th Edition'}</schemaversion></metadata>
  <organizations default="org1">
    <organization identifier="org1">
      <title>${escapeXml(opts.title)}</title>
      <item identifier="item1" identifierref="res1"><title>${escapeXml(opts.title)}</title></item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="res1" type="webcontent" adlcp:${v12 ? 'scormtype' : 'scormType'}="sco" href="${escapeXml(href)}"><file href="${escapeXml(href)}"/></resource>
  </resources>
</manifest>
`;
}

/** A one-page SCO: a button that reports completion (1.2: passed; 2004: completed and passed). */
export function scoPage(version: '1.2' | '2004', title: string, opts: { autoComplete?: boolean } = {}): string {
  const finish = version === '1.2'
    ? "api.LMSSetValue('cmi.core.lesson_status','passed');api.LMSSetValue('cmi.core.score.raw','100');api.LMSCommit('');api.LMSFinish('');"
    : "api.SetValue('cmi.completion_status','completed');api.SetValue('cmi.success_status','passed');api.SetValue('cmi.score.scaled','1');api.Commit('');api.Terminate('');";
  const init = version === '1.2' ? "api.LMSInitialize('');" : "api.Initialize('');";
  const name = version === '1.2' ? 'API' : 'API_1484_11';
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeXml(title)}</title></head><body>
<h1>${escapeXml(title)}</h1><p id="state">Loading</p><button id="done" type="button">I have read this</button>
<script>
function findAPI(w){for(var i=0;w&&i<10;i++){if(w.${name})return w.${name};if(w.parent===w)break;w=w.parent;}return null;}
var api=findAPI(window.parent);
if(api){${init}document.getElementById('state').textContent='Ready';}else{document.getElementById('state').textContent='No runtime';}
function finish(){${finish}document.getElementById('state').textContent='Done';}
document.getElementById('done').addEventListener('click',finish);
${opts.autoComplete ? 'if(api)finish();' : ''}
</script></body></html>
`;
}

/** A complete single-SCO package. */
export function scormPackage(version: '1.2' | '2004', title: string, opts: { manifestVersion?: string; autoComplete?: boolean } = {}): Buffer {
  return writeZip([
    { name: 'imsmanifest.xml', data: scormManifest({ version, title, manifestVersion: opts.manifestVersion }) },
    { name: 'index.html', data: scoPage(version, title, opts) },
  ]);
}
