// imsmanifest.xml of a SCORM 1.2 or 2004 package, read with fast-xml-parser (entities
// not expanded): the SCORM version, the title, the manifest's `version` attribute and the
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
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim();
  if (v && typeof v === 'object' && '#text' in (v as Node)) return String((v as Node)['#text']).trim();
  return '';
};

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
  const wanted = typeof organizations?.['@_default'] === 'string' ? organizations['@_default'] : null;
  const org = (wanted && orgs.find((o) => o['@_identifier'] === wanted)) || orgs[0];
  const item = firstLaunchItem(list(org.item), { left: 10_000 });
  if (!item) throw new ManifestError('The default organization has no item naming a resource (identifierref).');
  const ref = item['@_identifierref'] as string;
  const resources = list(manifest.resources)[0];
  const resource = list(resources?.resource).find((r) => r['@_identifier'] === ref);
  if (!resource) throw new ManifestError(`No resource has the identifier "${ref.slice(0, 100)}" that the launch item names.`);
  const href = typeof resource['@_href'] === 'string' ? resource['@_href'].trim() : '';
  if (!href) throw new ManifestError(`The resource "${ref.slice(0, 100)}" has no href (launch file).`);
  const base = [resources?.['@_base'], resource['@_base']].filter((b): b is string => typeof b === 'string').join('');
  const params = typeof item['@_parameters'] === 'string' ? item['@_parameters'] : '';
  const title = text(org.title) || text(item.title) || 'Untitled module';
  const version = typeof manifest['@_version'] === 'string' ? manifest['@_version'].trim() : null;
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
