// Names that come from outside (a mark type in a client's contents_json, a profile name
// ffprobe reports) are looked up as own keys only: `constructor`, `__proto__` and
// `toString` are unknown names, never Object.prototype's members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeUser, type TestUser } from '../helpers/factories.js';
import { docToWiki, renderDoc, type DocNode } from '../../src/markup/index.js';
import { codecsOf } from '../../src/areas/media/videos.js';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
const marked = (type: string): DocNode => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'hi', marks: [{ type }, { type: 'strong' }] }] }] });

describe('prototype names as lookup keys', () => {
  it('a mark of an unknown type such as constructor is ignored when rendering and when written as wiki text', () => {
    for (const name of NAMES) {
      expect(renderDoc(marked(name)), name).toBe('<p><strong>hi</strong></p>');
      expect(docToWiki(marked(name)), name).toBe("'''hi'''");
    }
  });

  it('an h264 profile name such as constructor gets the default profile in the codecs value', () => {
    for (const profile of NAMES) {
      expect(codecsOf({ streams: [{ codec_name: 'h264', profile, level: 31 }] } as never), profile).toBe('avc1.64001f');
    }
    expect(codecsOf({ streams: [{ codec_name: 'h264', profile: 'Main', level: 31 }] } as never)).toBe('avc1.4d001f');
  });
});

describe('contents_json with prototype-named marks through HTTP', () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    user = await makeUser(t);
  });
  afterAll(() => t.close());

  it('is stored without the unknown marks and read back as written, never a 5xx', async () => {
    const body = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'hi', marks: NAMES.map((type) => ({ type })) }] }] };
    const res = await t.post('/wikis', { token: user.token, body: { namespace: 'USER', title: String(user.userid), contents_json: body } });
    expect(res.statusCode, res.body).toBe(201);
    const read = (await t.get(`/wikis/USER/${user.userid}`)).json();
    expect(read.contents_raw).toBe('hi');
    expect(read.contents_rendered).toBe('<p>hi</p>');
  });
});
