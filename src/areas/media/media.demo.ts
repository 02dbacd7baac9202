// Demo images, drawn with sharp at seed time (nothing is downloaded): a circuit board,
// the back of a phone with its screws, tools on a work mat, and a battery connector.
// Stored as the author's library images; their ids go to ctx.ids.demoImage1.. for the
// guides seeder (which runs after this one).
import { sharpLib } from './images.js';
import type { DemoContext } from '../area.js';
import { storeGeneratedImage } from './media.service.js';

const W = 800;
const H = 600;

/** Deterministic pseudo-random numbers, so the demo looks the same every time. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function screw(x: number, y: number, r: number) {
  return `<circle cx="${x}" cy="${y}" r="${r}" fill="url(#metal)" stroke="#555" stroke-width="1.5"/>` +
    `<path d="M${x - r * 0.5},${y} L${x + r * 0.5},${y} M${x},${y - r * 0.5} L${x},${y + r * 0.5}" stroke="#333" stroke-width="${r * 0.25}" stroke-linecap="round"/>`;
}

const DEFS = `<defs>
  <radialGradient id="metal" cx="35%" cy="35%" r="70%"><stop offset="0" stop-color="#f4f4f4"/><stop offset="0.6" stop-color="#a9adb3"/><stop offset="1" stop-color="#6b7077"/></radialGradient>
  <linearGradient id="light" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff" stop-opacity="0.25"/><stop offset="1" stop-color="#000" stop-opacity="0.25"/></linearGradient>
  <linearGradient id="chip" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3a3a3a"/><stop offset="1" stop-color="#161616"/></linearGradient>
</defs>`;

function circuitBoard(): string {
  const r = rng(7);
  let traces = '';
  for (let i = 0; i < 60; i++) {
    const x = 40 + r() * 720;
    const y = 40 + r() * 520;
    const dx = (r() - 0.5) * 260;
    traces += `<path d="M${x},${y} h${dx} v${(r() - 0.5) * 160}" fill="none" stroke="#c9a43a" stroke-opacity="0.55" stroke-width="${1 + r() * 2}"/>`;
  }
  let pads = '';
  for (let i = 0; i < 40; i++) pads += `<circle cx="${40 + r() * 720}" cy="${40 + r() * 520}" r="${3 + r() * 3}" fill="#d8b85a" stroke="#8a6d1f"/>`;
  let caps = '';
  for (let i = 0; i < 14; i++) caps += `<rect x="${60 + r() * 660}" y="${60 + r() * 480}" width="16" height="8" rx="2" fill="#b88a4a" stroke="#6b4a1f"/>`;
  let legs = '';
  for (let i = 0; i < 12; i++) {
    legs += `<rect x="${262 + i * 24}" y="178" width="8" height="14" fill="#cfcfcf"/><rect x="${262 + i * 24}" y="428" width="8" height="14" fill="#cfcfcf"/>`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${DEFS}
    <rect width="${W}" height="${H}" fill="#1f6b3a"/>${traces}${pads}${caps}${legs}
    <rect x="250" y="190" width="300" height="240" rx="6" fill="url(#chip)"/>
    <text x="400" y="305" font-family="sans-serif" font-size="26" fill="#bbb" text-anchor="middle">A1042 SoC</text>
    <text x="400" y="340" font-family="sans-serif" font-size="16" fill="#888" text-anchor="middle">2231 TAIWAN</text>
    <rect x="600" y="80" width="140" height="90" rx="4" fill="url(#chip)"/>
    <rect x="70" y="420" width="120" height="120" rx="4" fill="#cfd3d8" stroke="#888"/>
    ${screw(40, 40, 14)}${screw(760, 40, 14)}${screw(40, 560, 14)}${screw(760, 560, 14)}
    <rect width="${W}" height="${H}" fill="url(#light)"/></svg>`;
}

function phoneBack(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${DEFS}
    <rect width="${W}" height="${H}" fill="#d9d4cc"/>
    <rect x="0" y="0" width="${W}" height="${H}" fill="url(#light)"/>
    <rect x="230" y="40" width="340" height="520" rx="48" fill="#2b2d31" stroke="#111" stroke-width="3"/>
    <rect x="246" y="56" width="308" height="488" rx="38" fill="#3a3d43"/>
    <rect x="270" y="80" width="120" height="120" rx="28" fill="#1c1d20"/>
    <circle cx="305" cy="115" r="24" fill="#0d0e10" stroke="#666" stroke-width="3"/>
    <circle cx="355" cy="165" r="24" fill="#0d0e10" stroke="#666" stroke-width="3"/>
    <circle cx="355" cy="115" r="8" fill="#f3e6a8"/>
    ${screw(330, 548, 9)}${screw(470, 548, 9)}
    <rect x="360" y="540" width="80" height="14" rx="7" fill="#111"/>
    <text x="400" y="380" font-family="sans-serif" font-size="22" fill="#777" text-anchor="middle">Model X-2</text>
    <rect width="${W}" height="${H}" fill="url(#light)" opacity="0.6"/></svg>`;
}

function toolsOnMat(): string {
  let grid = '';
  for (let x = 0; x <= W; x += 40) grid += `<line x1="${x}" y1="0" x2="${x}" y2="${H}" stroke="#3e6fa3" stroke-width="1"/>`;
  for (let y = 0; y <= H; y += 40) grid += `<line x1="0" y1="${y}" x2="${W}" y2="${y}" stroke="#3e6fa3" stroke-width="1"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${DEFS}
    <rect width="${W}" height="${H}" fill="#2a5a8c"/>${grid}
    <g transform="rotate(-18 400 300)">
      <rect x="140" y="250" width="230" height="60" rx="28" fill="#e2b100" stroke="#8a6a00" stroke-width="3"/>
      <rect x="370" y="272" width="260" height="16" fill="url(#metal)"/>
      <path d="M630,272 l26,8 l-26,8 z" fill="#777"/>
    </g>
    <g transform="rotate(12 400 300)">
      <rect x="180" y="420" width="420" height="26" rx="13" fill="#1d1d1d"/>
      <path d="M600,420 l60,13 l-60,13 z" fill="#1d1d1d"/>
    </g>
    ${screw(620, 130, 10)}${screw(660, 150, 10)}${screw(640, 180, 10)}
    <rect x="90" y="80" width="150" height="100" rx="10" fill="#c7c7c7" stroke="#888" stroke-width="2"/>
    <text x="165" y="138" font-family="sans-serif" font-size="18" fill="#555" text-anchor="middle">Bit set</text>
    <rect width="${W}" height="${H}" fill="url(#light)"/></svg>`;
}

function batteryConnector(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${DEFS}
    <rect width="${W}" height="${H}" fill="#20252b"/>
    <rect x="60" y="120" width="420" height="360" rx="16" fill="#2f3640" stroke="#111" stroke-width="3"/>
    <text x="270" y="300" font-family="sans-serif" font-size="30" fill="#9aa3ad" text-anchor="middle">Li-ion 3.85V</text>
    <text x="270" y="340" font-family="sans-serif" font-size="18" fill="#6f7882" text-anchor="middle">3110 mAh</text>
    <rect x="480" y="270" width="140" height="60" fill="#c0a040"/>
    <rect x="620" y="250" width="110" height="100" rx="6" fill="url(#metal)" stroke="#444" stroke-width="2"/>
    <rect x="636" y="270" width="78" height="60" rx="4" fill="#5d636b"/>
    ${screw(700, 180, 12)}${screw(700, 420, 12)}
    <rect width="${W}" height="${H}" fill="url(#light)"/></svg>`;
}

/** A JPEG of the drawing with a little sensor noise, so it reads as a photo. */
async function photo(svg: string, seed: number): Promise<Buffer> {
  const r = rng(seed);
  const noise = Buffer.alloc(W * H * 4);
  for (let i = 0; i < W * H; i++) {
    const v = Math.floor(r() * 255);
    noise[i * 4] = v;
    noise[i * 4 + 1] = v;
    noise[i * 4 + 2] = v;
    noise[i * 4 + 3] = 14;
  }
  return sharpLib()(Buffer.from(svg))
    .composite([{ input: noise, raw: { width: W, height: H, channels: 4 }, blend: 'over' }])
    .blur(0.6)
    .jpeg({ quality: 86 })
    .toBuffer();
}

export const DEMO_IMAGES = [
  { name: 'logic-board.jpg', draw: circuitBoard },
  { name: 'phone-back.jpg', draw: phoneBack },
  { name: 'tools-on-mat.jpg', draw: toolsOnMat },
  { name: 'battery-connector.jpg', draw: batteryConnector },
];

export async function seedMediaDemo(ctx: DemoContext) {
  const owner = ctx.users.author ?? ctx.users.admin;
  if (owner === undefined) return;
  const now = ctx.clock.now();
  let n = 0;
  for (const img of DEMO_IMAGES) {
    n++;
    const data = await photo(img.draw(), n);
    ctx.ids[`demoImage${n}`] = await storeGeneratedImage(ctx.db, ctx.config, now, owner, img.name, data);
  }
  ctx.log(`media: ${n} demo images (ctx.ids.demoImage1..${n})`);
}
