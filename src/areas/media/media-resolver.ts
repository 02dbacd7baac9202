// The media half of a wiki-syntax resolver: `[image|ID]` and `[video|ID]` embeds render
// from these records. Build it once per page of texts from what `collectRefs` found
// (two queries, whatever the number of embeds), then hand it to `renderWiki`.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { MarkupResolver, ResolvedImage, ResolvedVideo } from '../../markup/index.js';
import { IMAGE_VARIANTS, imageVariantUrl, type ImageVariant } from './image-object.js';
import { variantSize } from './images.js';
import { videoFileUrl } from './media-records.js';

/** The variant an embed without a (known) size shows. */
export const DEFAULT_EMBED_VARIANT: ImageVariant = 'standard';

export async function loadMediaResolver(db: Kysely<Database>, config: Config, refs: { images: number[]; videos: number[] }): Promise<Pick<MarkupResolver, 'image' | 'video'>> {
  const imageIds = [...new Set(refs.images)];
  const videoIds = [...new Set(refs.videos)];
  const videos = videoIds.length
    ? await db.selectFrom('videos').select(['videoid', 'guid', 'state', 'poster_imageid']).where('videoid', 'in', videoIds).execute()
    : [];
  const encoded = videos.length
    ? await db.selectFrom('video_encodings').select(['videoid', 'format']).where('videoid', 'in', videos.map((v) => v.videoid)).where('format', '=', 'mp4').execute()
    : [];
  const allImages = [...imageIds, ...videos.map((v) => v.poster_imageid).filter((x): x is number => x != null)];
  const images = allImages.length
    ? await db.selectFrom('images').select(['imageid', 'guid', 'width', 'height']).where('imageid', 'in', [...new Set(allImages)]).execute()
    : [];
  const imageById = new Map(images.map((r) => [r.imageid, r]));
  const withMp4 = new Set(encoded.map((e) => e.videoid));
  const videoById = new Map(videos.map((v) => [v.videoid, v]));

  return {
    image(id: number, size: string): ResolvedImage | null {
      const r = imageById.get(id);
      if (!r) return null;
      const variant = (IMAGE_VARIANTS as readonly string[]).includes(size) ? (size as ImageVariant) : DEFAULT_EMBED_VARIANT;
      const dims = variantSize(variant, r.width, r.height);
      return { src: imageVariantUrl(config, r.guid, variant), width: dims.width, height: dims.height };
    },
    video(id: number): ResolvedVideo | null {
      const v = videoById.get(id);
      if (!v || v.state !== 'finished' || !withMp4.has(id)) return null;
      const poster = v.poster_imageid != null ? imageById.get(v.poster_imageid) : undefined;
      return { src: videoFileUrl(config, v.guid, 'mp4'), ...(poster ? { poster: imageVariantUrl(config, poster.guid, 'large') } : {}) };
    },
  };
}
