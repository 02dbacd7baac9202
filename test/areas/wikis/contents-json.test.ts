// Wiki writes take the contents as wiki syntax (`contents`) or as the editor's document
// tree (`contents_json`), never both; a tree is stored as the wiki syntax the editor
// writes, and reads back as the same tree.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, unique, type TestUser } from '../../helpers/factories.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

const para = (...content: unknown[]) => ({ type: 'paragraph', content });
const doc = {
  type: 'doc',
  content: [
    para({ type: 'text', text: 'this', marks: [{ type: 'strong' }] }, { type: 'text', text: 'is', marks: [{ type: 'strong' }, { type: 'em' }] },
      { type: 'text', text: 'text', marks: [{ type: 'em' }] }, { type: 'hard_break' }, { type: 'text', text: 'next line' }),
    { type: 'blockquote', attrs: { format: 'long', attribute: para({ type: 'text', text: 'Some ' }, { type: 'text', text: 'rich', marks: [{ type: 'em' }] }, { type: 'text', text: ' name' }) }, content: [para({ type: 'text', text: 'wise' })] },
    { type: 'ordered_list', attrs: { order: 1 }, content: [{ type: 'list_item', content: [para({ type: 'text', text: 'First' }), { type: 'bullet_list', content: [{ type: 'list_item', content: [para({ type: 'text', text: 'Nested' })] }] }] }] },
  ],
};
const WIKI = "'''this''is'''''''text''[br]\nnext line\n\n[quote|Some ''rich'' name]\nwise\n[/quote]\n\n# First\n** Nested";

describe('contents_json on wiki writes', () => {
  it('a tree is stored as the editor writes it and reads back as the same tree', async () => {
    const w = await makeWiki(t, author, { contents: undefined, contents_json: doc });
    expect(w.contents_raw).toBe(WIKI);
    expect(w.contents_json).toEqual(doc);
    expect(w.contents_rendered).toContain('<footer><cite>Some <em>rich</em> name</cite></footer>');
    const edited = await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents_json: { type: 'doc', content: [para({ type: 'text', text: 'Edited' })] } } });
    expect(edited.statusCode).toBe(200);
    expect(edited.json().contents_raw).toBe('Edited');
  });

  it('contents and contents_json at once: 422 naming contents_json, nothing written', async () => {
    const title = unique('Both ');
    const res = await t.post('/wikis', { token: author.token, body: { namespace: 'WIKI', title, contents: 'x', contents_json: doc } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'contents_json' });
    expect((await t.get(`/wikis/WIKI/${enc(title)}`)).statusCode).toBe(404);
    const w = await makeWiki(t, author, { contents: 'Kept' });
    const patch = await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'y', contents_json: doc } });
    expect(patch.statusCode).toBe(422);
    expect(patch.json().errors[0]).toMatchObject({ field: 'contents_json' });
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`)).json()).toMatchObject({ contents_raw: 'Kept', revisionid: w.revisionid });
  });

  it('the OpenAPI document describes both forms', async () => {
    const spec = (await t.get('/openapi.json')).json();
    const body = spec.paths['/wikis']?.post?.requestBody?.content?.['application/json']?.schema ?? {};
    const text = JSON.stringify(body);
    expect(text).toContain('contents_json');
    expect(text).toContain('both at once is a 422');
  });
});
