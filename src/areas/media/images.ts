// Image work with sharp: reading an upload (dimensions, orientation, EXIF), the size
// variants (made on first request, then kept in the blob store), and edits (crop and
// markup drawn as an SVG overlay onto a new image).
import type { Sharp } from 'sharp';
import exifReader from 'exif-reader';
import type { ImageVariant } from './image-object.js';
import type { Config } from '../../config.js';
import { invalidField } from '../../http/errors.js';
import { imageQueue } from './image-queue.js';
import { lazyRequire } from '../../lazy-require.js';

/** sharp (libvips), loaded with the first image (lazy-require.ts), its cache off. */
export const sharpLib = lazyRequire<typeof import('sharp').default>('sharp', (sharp) => sharp.cache(false));

/**
 * The box of each size variant. `cover`: exactly that size, scaled to fill and cut to
 * the centre (thumbnails line up in grids). `inside`: fits inside the box keeping the
 * aspect ratio, never enlarged. `original`: the uploaded file as it was.
 */
export const VARIANT_BOXES: Record<Exclude<ImageVariant, 'original'>, { width: number; height: number; fit: 'cover' | 'inside' }> = {
  mini: { width: 40, height: 30, fit: 'cover' },
  thumbnail: { width: 96, height: 72, fit: 'cover' },
  '140x105': { width: 140, height: 105, fit: 'cover' },
  '200x150': { width: 200, height: 150, fit: 'cover' },
  standard: { width: 300, height: 225, fit: 'inside' },
  '440x330': { width: 440, height: 330, fit: 'cover' },
  medium: { width: 592, height: 444, fit: 'inside' },
  large: { width: 800, height: 600, fit: 'inside' },
  huge: { width: 1600, height: 1200, fit: 'inside' },
};

/** Largest width and height accepted for an upload. */
export const MAX_IMAGE_SIDE = 16_000;

/** Pixel budgets of image work; process-wide, like the queue (`configureImageWork`). */
const limits = {
  /** Largest image decoded at all (sharp's limitInputPixels: guards against decompression bombs). */
  inputPixels: 120_000_000,
  /** Largest image an edit may produce (its memory grows with it). */
  editPixels: 40_000_000,
};

/** Applies the settings of image work: the queue's sizes and the pixel budgets. */
export function configureImageWork(config: Pick<Config, 'imageConcurrency' | 'imageQueueSize' | 'imageMaxPixels' | 'imageMaxEditPixels'>) {
  imageQueue.concurrency = Math.max(1, config.imageConcurrency);
  imageQueue.waiting = config.imageQueueSize;
  limits.inputPixels = config.imageMaxPixels;
  limits.editPixels = config.imageMaxEditPixels;
}

/** The dimensions a variant of a `width` x `height` image has. */
export function variantSize(variant: ImageVariant, width: number, height: number): { width: number; height: number } {
  if (variant === 'original') return { width, height };
  const box = VARIANT_BOXES[variant];
  if (box.fit === 'cover') return { width: box.width, height: box.height };
  const scale = Math.min(1, box.width / width, box.height / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** The format a variant is written in: the original's, except GIF (a PNG still). */
export function variantFormat(mime: string): { format: 'jpeg' | 'png' | 'webp'; mime: string } {
  if (mime === 'image/jpeg') return { format: 'jpeg', mime };
  if (mime === 'image/webp') return { format: 'webp', mime };
  return { format: 'png', mime: 'image/png' };
}

function encode(img: Sharp, format: 'jpeg' | 'png' | 'webp') {
  if (format === 'jpeg') return img.jpeg({ quality: 85 });
  if (format === 'webp') return img.webp({ quality: 85 });
  return img.png({ compressionLevel: 6 });
}

const input = (path: string | Buffer) => sharpLib()(path, { limitInputPixels: limits.inputPixels, failOn: 'error' });

/** Makes one variant of the original at `path` (in the image queue). */
export async function makeVariant(path: string, mime: string, variant: Exclude<ImageVariant, 'original'>, width: number, height: number): Promise<Buffer> {
  const size = variantSize(variant, width, height);
  const box = VARIANT_BOXES[variant];
  return imageQueue.run(() => {
    const img = input(path).rotate().resize(size.width, size.height, { fit: box.fit === 'cover' ? 'cover' : 'fill', position: 'centre' });
    return encode(img, variantFormat(mime).format).toBuffer();
  });
}

/** The original turned upright (for originals stored with an EXIF orientation; in the image queue). */
export async function uprightOriginal(path: string, mime: string): Promise<Buffer> {
  return imageQueue.run(() => encode(input(path).rotate(), variantFormat(mime).format).toBuffer());
}

export interface ImageInfo {
  format: string;
  /** As displayed (after the EXIF orientation). */
  width: number;
  height: number;
  orientation: number;
  channels: number;
  exif?: Buffer;
}

/** Reads an image's header (in the image queue); throws when it is not a readable image. */
export async function readImageInfo(path: string): Promise<ImageInfo> {
  return imageQueue.run(() => readImageInfoNow(path));
}

async function readImageInfoNow(path: string): Promise<ImageInfo> {
  const m = await input(path).metadata();
  if (!m.width || !m.height || !m.format) throw new Error('not an image');
  if (m.width * m.height > limits.inputPixels || m.width > MAX_IMAGE_SIDE || m.height > MAX_IMAGE_SIDE) {
    throw new RangeError(`The image is ${m.width}x${m.height}; images may be at most ${MAX_IMAGE_SIDE} pixels wide and high and ${megapixels(limits.inputPixels)} megapixels.`);
  }
  // Decode a little to be sure the file is not just a plausible header.
  await input(path).resize(8, 8, { fit: 'inside' }).raw().toBuffer();
  const orientation = m.orientation && m.orientation >= 1 && m.orientation <= 8 ? m.orientation : 1;
  const swap = orientation >= 5;
  return { format: m.format, width: swap ? m.height : m.width, height: swap ? m.width : m.height, orientation, channels: m.channels ?? 3, exif: m.exif };
}

/** PHP's IMAGETYPE_* numbers, which the EXIF record's FileType carries. */
const FILE_TYPES: Record<string, number> = { 'image/gif': 1, 'image/jpeg': 2, 'image/png': 3, 'image/webp': 18 };

function exifValue(v: unknown): unknown {
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return undefined;
    const p = (n: number) => String(n).padStart(2, '0');
    return `${v.getUTCFullYear()}:${p(v.getUTCMonth() + 1)}:${p(v.getUTCDate())} ${p(v.getUTCHours())}:${p(v.getUTCMinutes())}:${p(v.getUTCSeconds())}`;
  }
  if (Buffer.isBuffer(v)) return undefined;
  if (typeof v === 'string') return v.replace(/\0/g, '').trim().slice(0, 1000);
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (Array.isArray(v)) return v.length <= 64 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? v : undefined;
  return undefined;
}

/**
 * The EXIF record, shaped like PHP's exif_read_data (which existing clients know):
 * FileName, FileDateTime, FileSize, FileType, MimeType, SectionsFound, COMPUTED, then the
 * tags of the IFD0 and EXIF sections. GPS tags are left out (the record is public).
 */
export function exifRecord(o: { filename: string; date: number; size: number; mime: string; width: number; height: number; channels: number; exif?: Buffer }): Record<string, unknown> {
  let parsed: ReturnType<typeof exifReader> | null = null;
  if (o.exif && o.exif.length > 0) {
    try {
      parsed = exifReader(o.exif);
    } catch {
      parsed = null;
    }
  }
  const sections: string[] = [];
  // Keyed by the file's tag names: no prototype, so no name is special.
  const tags: Record<string, unknown> = Object.create(null);
  const take = (section: Record<string, unknown> | undefined, name: string) => {
    if (!section) return;
    let any = false;
    for (const [k, v] of Object.entries(section)) {
      const value = exifValue(v);
      if (value === undefined || k in tags) continue;
      tags[k] = value;
      any = true;
    }
    if (any) sections.push(name);
  };
  take(parsed?.Image as Record<string, unknown> | undefined, 'IFD0');
  if (parsed?.Thumbnail && Object.keys(parsed.Thumbnail).length) sections.push('THUMBNAIL');
  take(parsed?.Photo as Record<string, unknown> | undefined, 'EXIF');
  if (sections.length) sections.unshift('ANY_TAG');
  const computed: Record<string, unknown> = {
    html: `width="${o.width}" height="${o.height}"`,
    Height: o.height,
    Width: o.width,
    IsColor: o.channels >= 3 ? 1 : 0,
  };
  if (parsed) computed.ByteOrderMotorola = parsed.bigEndian ? 1 : 0;
  const fnumber = parsed?.Photo?.FNumber;
  if (typeof fnumber === 'number' && fnumber > 0) computed.ApertureFNumber = `f/${Math.round(fnumber * 10) / 10}`;
  return {
    FileName: o.filename,
    FileDateTime: o.date,
    FileSize: o.size,
    FileType: FILE_TYPES[o.mime] ?? 0,
    MimeType: o.mime,
    SectionsFound: sections.join(', '),
    COMPUTED: computed,
    ...tags,
  };
}

// ---------------------------------------------------------------- edits

export interface Point { x: number; y: number }
export interface Crop { x: number; y: number; width: number; height: number }
export interface Markup {
  circles?: Array<{ x: number; y: number; radius: number; color?: string; stroke?: number }>;
  rectangles?: Array<{ x: number; y: number; width: number; height: number; color?: string; stroke?: number }>;
  arrows?: Array<{ from: Point; to: Point; color?: string; stroke?: number }>;
  lines?: Array<{ from: Point; to: Point; color?: string; stroke?: number }>;
}

/** The named colours markup accepts (besides `#rgb` and `#rrggbb`). */
export const MARKUP_COLORS: Record<string, string> = {
  red: '#ff0000',
  orange: '#ff8000',
  yellow: '#ffff00',
  green: '#00c000',
  blue: '#0060ff',
  violet: '#8000ff',
  black: '#000000',
  white: '#ffffff',
};

/** `#rrggbb` for a named or hex colour, or null when it is neither. */
export function markupColor(c: string | undefined): string | null {
  if (c === undefined) return MARKUP_COLORS.red;
  const name = c.toLowerCase();
  // Own names only: `constructor` is not a colour.
  if (Object.hasOwn(MARKUP_COLORS, name)) return MARKUP_COLORS[name];
  if (/^#[0-9a-f]{6}$/i.test(c)) return c.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(c)) return ('#' + c.slice(1).split('').map((x) => x + x).join('')).toLowerCase();
  return null;
}

/** The default stroke: a little under 1% of the longer side, at least 2 pixels. */
export const defaultStroke = (width: number, height: number) => Math.max(2, Math.round(Math.max(width, height) * 0.008));

const f = (n: number) => (Math.round(n * 100) / 100).toString();

/**
 * The markup as an SVG of `crop`'s size; shapes are given in the original's pixels and
 * moved by the crop's offset.
 */
export function markupSvg(markup: Markup, crop: Crop, fullWidth: number, fullHeight: number): string {
  const dx = -crop.x;
  const dy = -crop.y;
  const sw = (s: number | undefined) => s ?? defaultStroke(fullWidth, fullHeight);
  const col = (c: string | undefined) => markupColor(c) ?? MARKUP_COLORS.red;
  const parts: string[] = [];
  for (const r of markup.rectangles ?? []) {
    parts.push(`<rect x="${f(r.x + dx)}" y="${f(r.y + dy)}" width="${f(r.width)}" height="${f(r.height)}" fill="none" stroke="${col(r.color)}" stroke-width="${sw(r.stroke)}"/>`);
  }
  for (const c of markup.circles ?? []) {
    parts.push(`<circle cx="${f(c.x + dx)}" cy="${f(c.y + dy)}" r="${f(c.radius)}" fill="none" stroke="${col(c.color)}" stroke-width="${sw(c.stroke)}"/>`);
  }
  for (const l of markup.lines ?? []) {
    parts.push(`<line x1="${f(l.from.x + dx)}" y1="${f(l.from.y + dy)}" x2="${f(l.to.x + dx)}" y2="${f(l.to.y + dy)}" stroke="${col(l.color)}" stroke-width="${sw(l.stroke)}" stroke-linecap="round"/>`);
  }
  for (const a of markup.arrows ?? []) {
    const w = sw(a.stroke);
    const len = Math.hypot(a.to.x - a.from.x, a.to.y - a.from.y) || 1;
    const ux = (a.to.x - a.from.x) / len;
    const uy = (a.to.y - a.from.y) / len;
    const head = Math.min(len, w * 4);
    // The shaft stops where the head begins, so the tip stays sharp.
    const bx = a.to.x - ux * head;
    const by = a.to.y - uy * head;
    const px = -uy * head * 0.6;
    const py = ux * head * 0.6;
    parts.push(`<line x1="${f(a.from.x + dx)}" y1="${f(a.from.y + dy)}" x2="${f(bx + dx)}" y2="${f(by + dy)}" stroke="${col(a.color)}" stroke-width="${w}" stroke-linecap="round"/>`);
    parts.push(`<polygon points="${f(a.to.x + dx)},${f(a.to.y + dy)} ${f(bx + px + dx)},${f(by + py + dy)} ${f(bx - px + dx)},${f(by - py + dy)}" fill="${col(a.color)}"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${crop.width}" height="${crop.height}" viewBox="0 0 ${crop.width} ${crop.height}">${parts.join('')}</svg>`;
}

const megapixels = (pixels: number) => Math.round(pixels / 100_000) / 10;

/**
 * Crops the (upright) original at `path` and draws the markup; answers the new file. An
 * edit producing more than the edit budget of pixels is a 422 (crop); the work runs in
 * the image queue.
 */
export async function renderEdit(path: string, mime: string, width: number, height: number, crop: Crop | undefined, markup: Markup | undefined): Promise<{ data: Buffer; mime: string }> {
  const area = crop ?? { x: 0, y: 0, width, height };
  if (area.width * area.height > limits.editPixels) {
    throw invalidField('crop', `An edit may produce at most ${megapixels(limits.editPixels)} megapixels; ${area.width}x${area.height} is ${megapixels(area.width * area.height)}. Crop a smaller part of the image.`, 'out_of_range');
  }
  return imageQueue.run(() => renderEditNow(path, mime, width, height, area, markup));
}

async function renderEditNow(path: string, mime: string, width: number, height: number, area: Crop, markup: Markup | undefined): Promise<{ data: Buffer; mime: string }> {
  // Turn upright first, then cut (sharp applies extract before rotate within one pipeline);
  // an upright original is cut straight from the file, without a full-size copy.
  const orientation = (await input(path).metadata()).orientation ?? 1;
  const upright = orientation > 1 ? await input(path).rotate().png({ compressionLevel: 1 }).toBuffer() : path;
  let img = input(upright).extract({ left: area.x, top: area.y, width: area.width, height: area.height });
  const hasMarkup = markup && ['circles', 'rectangles', 'arrows', 'lines'].some((k) => (markup[k as keyof Markup]?.length ?? 0) > 0);
  if (hasMarkup) {
    const svg = Buffer.from(markupSvg(markup, area, width, height));
    img = input(await img.png().toBuffer()).composite([{ input: svg, top: 0, left: 0 }]);
  }
  const out = variantFormat(mime);
  return { data: await encode(img, out.format).toBuffer(), mime: out.mime };
}
