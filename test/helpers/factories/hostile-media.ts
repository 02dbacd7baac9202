// Malicious "videos", built in the test (as bytes, or with ffmpeg): what an attacker
// uploads to make ffmpeg read server files, loop, print without end or encode for hours.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A DASH manifest that passes a sniffer reading bytes 4-8 (`<!--free-->`); `live` makes ffprobe loop. */
export function dashBehindAtom(baseUrl: string, live = false): Buffer {
  const head = '<!--free--><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" ';
  const body = live
    ? `type="dynamic" availabilityStartTime="1970-01-01T00:00:00Z" minimumUpdatePeriod="PT1S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-live:2011"><Period start="PT0S"><AdaptationSet mimeType="video/mp4"><SegmentTemplate media="${baseUrl}.$Number$.m4s" initialization="${baseUrl}" duration="1" startNumber="1"/><Representation id="1" bandwidth="1000" width="64" height="48"/></AdaptationSet></Period></MPD>\n`
    : `type="static" mediaPresentationDuration="PT1S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="1000" width="64" height="48"><BaseURL>${baseUrl}</BaseURL></Representation></AdaptationSet></Period></MPD>\n`;
  return Buffer.from(head + body);
}

/** An HLS playlist naming a server file, behind an eight-byte QuickTime atom header. */
export function hlsBehindAtom(path: string): Buffer {
  return Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.from('wide'), Buffer.from(`#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:${path}\n#EXT-X-ENDLIST\n`)]);
}

function ffmpegTo(ext: string, args: string[], files: Record<string, string> = {}): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cp-hostile-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const out = join(dir, `out.${ext}`);
    const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args.map((a) => a.replace('{dir}', dir)), out], { timeout: 60_000 });
    if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr}`);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A small 64x48 video (an honest upload, or the "server-side file" an attacker names). */
export const plainVideo = (ext: 'mp4' | 'mov' = 'mp4') => ffmpegTo(ext, ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=5', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p']);
export const plainMp4 = () => plainVideo('mp4');

/** A WebM whose metadata tags hold `tagBytes` bytes each (ffprobe's -show_format prints them all). */
export function hugeTagsWebm(tagBytes: number, tags = 3): Buffer {
  const meta = ';FFMETADATA1\n' + Array.from({ length: tags }, (_, i) => `big${i}=${'x'.repeat(tagBytes)}\n`).join('');
  return ffmpegTo('webm', ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=5', '-f', 'ffmetadata', '-i', '{dir}/meta.txt', '-map_metadata', '1', '-map', '0:v', '-c:v', 'libvpx', '-deadline', 'realtime'], { 'meta.txt': meta });
}

/** A 1.5 KB MP4 at 10 frames a second whose last frame comes `seconds` in: ffmpeg fills the gap, frame by frame. */
export function gappedMp4(seconds: number): Buffer {
  return ffmpegTo('mp4', ['-f', 'lavfi', '-i', 'color=c=gray:size=64x48:rate=10', '-frames:v', '4', '-vf', `setpts='if(lt(N,3),N*0.1/TB,${seconds}/TB)'`, '-fps_mode', 'passthrough', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p']);
}
