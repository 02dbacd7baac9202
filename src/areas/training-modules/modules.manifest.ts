// imsmanifest.xml of a SCORM 1.2 or 2004 package, read with fast-xml-parser (entities
// not expanded by the parser: the predefined and numeric character references of every
// value read are decoded here, and a DOCTYPE that declares entities is refused): the SCORM version, the title, the manifest's `version` attribute and the
// launch file, found through organizations/@default -> its first item with an
// identifierref -> the resource with that identifier -> its href (under xml:base).
import { lazyRequire } from '../../lazy-require.js';

/** fast-xml-parser, loaded with the first package read (lazy-require.ts). */
const xmlParser = lazyRequire<typeof import('fast-xml-parser')>('fast-xml-parser');

export interface ManifestInfo {
  scorm_version: '1.2' | '2004';
  title: string;
  version: string | null;
  launch: string;
}

export class ManifestError extends Error {}

type Node = Record<string, any>;
const list = (v: unknown): Node[] => (Array.isArray(v) ? v : v === undefined || v === null || typeof v !== 'object' ? [] : [v as Node]);
const text = (v: unknown): string => {
  if (typeof v === 'string' || typeof v === 'number') return decodeReferences(String(v)).trim();
  if (v && typeof v === 'object' && '#text' in (v as Node)) return decodeReferences(String((v as Node)['#text'])).trim();
  return '';
};
/** An attribute's value, its references decoded; undefined when absent. */
const attr = (node: Node | undefined, name: string): string | undefined => (typeof node?.[`@_${name}`] === 'string' ? decodeReferences(node[`@_${name}`]) : undefined);

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The predefined (`&amp;`) and numeric (`&#38;`, `&#x26;`) character references of XML
 * decoded, in one pass (linear time); anything else is left as written. A reference to a
 * character XML does not allow makes the manifest malformed.
 */
export function decodeReferences(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));/g, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name) return PREDEFINED[name];
    const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    const allowed = code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
    if (!allowed) throw new ManifestError(`imsmanifest.xml is not well-formed XML (${whole} is no character XML allows).`);
    return String.fromCodePoint(code);
  });
}

/** Whether the manifest's DOCTYPE declares entities (refused: their expansion is a known attack, and SCORM manifests need none). */
export function declaresEntities(xml: string): boolean {
  const doctype = xml.indexOf('<!DOCTYPE');
  return doctype >= 0 && xml.indexOf('<!ENTITY', doctype) >= 0;
}

/** The first item (depth first, at most `budget` visited) that names a resource. */
function firstLaunchItem(items: Node[], budget: { left: number }): Node | null {
  const stack = [...items].reverse();
  while (stack.length && budget.left-- > 0) {
    const item = stack.pop()!;
    if (typeof item['@_identifierref'] === 'string' && item['@_identifierref']) return item;
    stack.push(...list(item.item).reverse());
  }
  return null;
}

export function parseManifest(xml: string): ManifestInfo {
  if (declaresEntities(xml)) throw new ManifestError('imsmanifest.xml declares entities in its DOCTYPE (manifest_entities); a manifest may not.');
  let doc: Node;
  try {
    const parser = new (xmlParser().XMLParser)({ ignoreAttributes: false, attributeNamePrefix: '@_', removeNSPrefix: true, processEntities: false, parseTagValue: false, parseAttributeValue: false });
    doc = parser.parse(xml, true) as Node;
  } catch (err) {
    throw new ManifestError(`imsmanifest.xml is not well-formed XML (${(err as Error).message.split('\n')[0]}).`);
  }
  const manifest = doc?.manifest;
  if (!manifest || typeof manifest !== 'object') throw new ManifestError('imsmanifest.xml has no <manifest> element.');

  const schemaversion = text(manifest.metadata?.schemaversion);
  let scorm_version: '1.2' | '2004';
  if (schemaversion === '1.2' || xml.includes('adlcp_rootv1p2')) scorm_version = '1.2';
  else if (schemaversion.includes('2004') || schemaversion.includes('CAM 1.3') || xml.includes('adlcp_v1p3')) scorm_version = '2004';
  else throw new ManifestError('imsmanifest.xml is neither SCORM 1.2 nor SCORM 2004 (schemaversion and namespaces unknown).');

  const organizations = list(manifest.organizations)[0];
  const orgs = list(organizations?.organization);
  if (!orgs.length) throw new ManifestError('imsmanifest.xml has no organization.');
  const wanted = attr(organizations, 'default') ?? null;
  const org = (wanted && orgs.find((o) => attr(o, 'identifier') === wanted)) || orgs[0];
  const item = firstLaunchItem(list(org.item), { left: 10_000 });
  if (!item) throw new ManifestError('The default organization has no item naming a resource (identifierref).');
  const ref = attr(item, 'identifierref')!;
  const resources = list(manifest.resources)[0];
  const resource = list(resources?.resource).find((r) => attr(r, 'identifier') === ref);
  if (!resource) throw new ManifestError(`No resource has the identifier "${ref.slice(0, 100)}" that the launch item names.`);
  const href = attr(resource, 'href')?.trim() ?? '';
  if (!href) throw new ManifestError(`The resource "${ref.slice(0, 100)}" has no href (launch file).`);
  const base = [attr(resources, 'base'), attr(resource, 'base')].filter((b): b is string => b !== undefined).join('');
  const params = attr(item, 'parameters') ?? '';
  const title = text(org.title) || text(item.title) || 'Untitled module';
  const version = attr(manifest, 'version')?.trim() ?? null;
  return { scorm_version, title: title.slice(0, 255), version, launch: base + href + params };
}

/** The launch file's path within the package (no query or fragment), or null when it leaves it. */
export function launchFilePath(launch: string): string | null {
  const cut = Math.min(...['?', '#'].map((c) => (launch.includes(c) ? launch.indexOf(c) : launch.length)));
  let path = launch.slice(0, cut);
  try {
    path = decodeURIComponent(path);
  } catch {
    return null;
  }
  if (path.startsWith('./')) path = path.slice(2);
  if (!path || path.includes('://') || path.startsWith('/') || path.includes('\\') || path.split('/').some((p) => p === '..' || p === '.')) return null;
  return path;
}
