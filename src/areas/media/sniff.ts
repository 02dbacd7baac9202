// What a file is, decided from its first bytes (never from its name or the client's word).
export type MediaKind = 'image' | 'video' | 'document';

export interface Sniffed {
  kind: MediaKind;
  /** jpeg, png, gif, webp, mp4, quicktime, webm, pdf */
  format: string;
  mime: string;
  ext: string;
  /**
   * The first bytes fit but prove little: a bare QuickTime atom (`free`, `skip`, `wide`,
   * `mdat`...) is eight bytes anyone can type in front of any text. Such a file is kept
   * only once ffprobe, pinned to the QuickTime demuxer, finds a video stream in it.
   */
  provisional?: true;
}

/** How many leading bytes `sniff` wants to be sure (a WebM's doctype may sit a little way in). */
export const SNIFF_BYTES = 4096;

const MP4_BRANDS = new Set(['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'mp41', 'mp42', 'avc1', 'M4V ', 'M4VP', 'dash', 'mmp4', 'MSNV', 'XAVC', 'f4v ']);
const QT_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

function ascii(buf: Buffer, start: number, end: number) {
  return buf.length >= end ? buf.toString('latin1', start, end) : '';
}

/** The kind of file `head` starts, or null when it is none the service accepts. */
export function sniff(head: Buffer): Sniffed | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { kind: 'image', format: 'jpeg', mime: 'image/jpeg', ext: 'jpg' };
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { kind: 'image', format: 'png', mime: 'image/png', ext: 'png' };
  const six = ascii(head, 0, 6);
  if (six === 'GIF87a' || six === 'GIF89a') return { kind: 'image', format: 'gif', mime: 'image/gif', ext: 'gif' };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return { kind: 'image', format: 'webp', mime: 'image/webp', ext: 'webp' };
  if (ascii(head, 0, 5) === '%PDF-') return { kind: 'document', format: 'pdf', mime: 'application/pdf', ext: 'pdf' };
  const box = ascii(head, 4, 8);
  if (box === 'ftyp') {
    const brand = ascii(head, 8, 12);
    if (brand === 'qt  ') return { kind: 'video', format: 'quicktime', mime: 'video/quicktime', ext: 'mov' };
    if (MP4_BRANDS.has(brand)) return { kind: 'video', format: 'mp4', mime: 'video/mp4', ext: 'mp4' };
    // Other ISO brands (audio-only M4A, HEIF images, 3GPP...) are not accepted.
    return null;
  }
  if (QT_ATOMS.has(box)) return { kind: 'video', format: 'quicktime', mime: 'video/quicktime', ext: 'mov', provisional: true };
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) {
    // EBML: WebM when the DocType element (0x42 0x82) says "webm"; plain Matroska is not accepted.
    const i = head.indexOf(Buffer.from([0x42, 0x82]));
    if (i > 0 && i + 2 < head.length) {
      const len = head[i + 2] & 0x7f;
      if (head.toString('latin1', i + 3, i + 3 + len) === 'webm') return { kind: 'video', format: 'webm', mime: 'video/webm', ext: 'webm' };
    }
    return null;
  }
  return null;
}

export const ACCEPTED_FORMATS = {
  image: [
    { format: 'jpeg', mime: 'image/jpeg', extensions: ['jpg', 'jpeg'] },
    { format: 'png', mime: 'image/png', extensions: ['png'] },
    { format: 'gif', mime: 'image/gif', extensions: ['gif'] },
    { format: 'webp', mime: 'image/webp', extensions: ['webp'] },
  ],
  video: [
    { format: 'mp4', mime: 'video/mp4', extensions: ['mp4', 'm4v'] },
    { format: 'webm', mime: 'video/webm', extensions: ['webm'] },
    { format: 'quicktime', mime: 'video/quicktime', extensions: ['mov', 'qt'] },
  ],
  document: [{ format: 'pdf', mime: 'application/pdf', extensions: ['pdf'] }],
} as const;
