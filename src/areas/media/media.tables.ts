// The media area's tables. `images` and `videos` are created minimal by the foundation;
// their further columns are declared here by augmenting the foundation's interfaces,
// so every area sees one table type. New columns are optional on insert (defaults).
import type { Generated } from 'kysely';

declare module '../../db/foundation.tables.js' {
  interface ImageTable {
    /** The image this one was edited from. */
    srcid: number | null;
    filename: Generated<string>;
    size: Generated<number>;
    /** EXIF orientation of the stored original (1 = as stored). width/height are as displayed. */
    orientation: Generated<number>;
    /** JSON: the EXIF record; null: none known. */
    exif: string | null;
    /** JSON: the crop and markup an edit applied. */
    markup: string | null;
    /** The original's key in the blob store; null: no stored file. */
    blob_key: string | null;
    /** Bytes of the size variants made so far (they count against the owner's quota). */
    variant_bytes: Generated<number>;
  }
  interface VideoTable {
    mime: Generated<string>;
    size: Generated<number>;
    md5: string | null;
    blob_key: string | null;
    /** queued | processing | finished | failed */
    state: Generated<string>;
    state_reason: string | null;
    duration_ms: Generated<number>;
    width: Generated<number>;
    height: Generated<number>;
    /** JSON: what ffprobe said of the original (VideoMeta without state). */
    meta: string | null;
    poster_imageid: number | null;
    srcid: number | null;
  }
}

export interface VideoEncodingTable {
  encodingid: Generated<number>;
  videoid: number;
  /** mp4 | webm */
  format: string;
  codecs: string;
  mime: string;
  width: number;
  height: number;
  size: number;
  blob_key: string;
}

export interface DocumentTable {
  documentid: Generated<number>;
  guid: string;
  userid: number | null;
  filename: string;
  mime: string;
  size: number;
  md5: string | null;
  blob_key: string;
  created_date: number;
}

export interface EmbedTable {
  embedid: Generated<number>;
  guid: string;
  userid: number | null;
  url: string;
  title: string;
  provider: string;
  width: number | null;
  height: number | null;
  created_date: number;
}

export interface MediaItemTable {
  itemid: Generated<number>;
  userid: number;
  /** GuideImage | GuideVideoObject | GuideEmbedObject | Document */
  type: string;
  objectid: number;
  created_date: number;
}

/** One row per upload (or image edit) a user started: the hourly upload rate counts them. */
export interface MediaUploadTable {
  uploadid: Generated<number>;
  userid: number;
  created_date: number;
}

export interface MediaTables {
  media_uploads: MediaUploadTable;
  video_encodings: VideoEncodingTable;
  documents: DocumentTable;
  embeds: EmbedTable;
  media_items: MediaItemTable;
}
