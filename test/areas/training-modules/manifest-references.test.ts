// SCORM manifests of ADL's conformance shapes (issue 62, item 4): the predefined and numeric
// character references of the values the importer reads are decoded once; a DOCTYPE that
// declares entities is refused at the upload (422 manifest_entities).
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { courseWithModule, importPackage } from '../../helpers/factories/modules.js';
import { scoPage, writeZip } from '../../../src/areas/training-modules/modules.packages.js';
import { decodeReferences } from '../../../src/areas/training-modules/modules.manifest.js';

let admin: TestUser;
let learner: TestUser;
const t = appForFile({}, async () => {
  [admin, learner] = await Promise.all([makeAdmin(t), makeUser(t)]);
});

/** ADL's SCORM 2004 conformance shape: parameters with an escaped `&`, an xml:base, a title with one. */
const adlManifest = (doctype = '') => `<?xml version="1.0" encoding="UTF-8"?>${doctype}
<manifest identifier="com.adlnet.APITest" version="1&#x2E;1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:xml="http://www.w3.org/XML/1998/namespace">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG&#45;1">
    <organization identifier="ORG-1">
      <title>Tools &amp; Safety</title>
      <item identifier="ITEM-1" identifierref="RES&#x2D;1" parameters="?tc=API&amp;act=1"><title>Tools &amp; Safety &#8211; part 1</title></item>
    </organization>
  </organizations>
  <resources xml:base="c&#111;ntent/">
    <resource identifier="RES-1" type="webcontent" adlcp:scormType="sco" href="AssetLaunchTest.htm"><file href="AssetLaunchTest.htm"/></resource>
  </resources>
</manifest>`;

describe('SCORM manifests with character references', () => {
  it('decodes parameters, xml:base, identifiers and titles once: the content sees act, the player page escapes the title once', async () => {
    const zip = writeZip([{ name: 'imsmanifest.xml', data: adlManifest() }, { name: 'content/AssetLaunchTest.htm', data: scoPage('2004', 'Asset') }]);
    const { importid, external_training_moduleid } = await importPackage(t, admin, zip);
    const progress = (await t.get(`/external_training_modules/imports/${importid}/progress`, { token: admin.token })).json();
    expect(progress.status, progress.message).toBe('COMPLETE');
    expect((await t.put(`/external_training_modules/${external_training_moduleid}/current`, { token: admin.token, body: { importid } })).statusCode).toBe(200);
    await courseWithModule(t, admin, external_training_moduleid, learner);
    const player = await t.get(`/external_training_modules/${external_training_moduleid}/player`, { token: learner.token });
    expect(player.statusCode, player.body).toBe(200);
    const data = player.json();
    expect(data.title).toBe('Tools & Safety');
    expect(data.launch_url).toMatch(/\/content\/content\/AssetLaunchTest\.htm\?tc=API&act=1$/);
    const url = new URL(data.launch_url, 'http://test.local');
    expect(url.searchParams.get('act')).toBe('1');
    const page = await t.app.inject({ method: 'GET', url: new URL(data.player_url, 'http://test.local').pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Tools &#38; Safety</title>'); // the page's escape of "&"
    expect(page.body).not.toMatch(/&(amp|#38);amp;/);
    // The launch file is served at the decoded path.
    expect((await t.app.inject({ method: 'GET', url: url.pathname })).statusCode).toBe(200);
  });

  it('refuses a manifest whose DOCTYPE declares entities: 422 manifest_entities at the upload', async () => {
    const lol = '<!DOCTYPE manifest [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>';
    const zip = writeZip([{ name: 'imsmanifest.xml', data: adlManifest(lol).replace('Tools &amp; Safety</title>', '&lol2;</title>') }, { name: 'content/AssetLaunchTest.htm', data: scoPage('2004', 'Asset') }]);
    const created = await t.post('/external_training_modules/imports', { token: admin.token, body: {} });
    const res = await t.post(`/external_training_modules/imports/${created.json().importid}/start/byUpload`, { token: admin.token, headers: { 'content-type': 'application/octet-stream' }, payload: zip });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].code).toBe('manifest_entities');
    // A DOCTYPE without declarations is fine.
    const plain = writeZip([{ name: 'imsmanifest.xml', data: adlManifest('<!DOCTYPE manifest>') }, { name: 'content/AssetLaunchTest.htm', data: scoPage('2004', 'Asset') }]);
    const { importid } = await importPackage(t, admin, plain);
    expect((await t.get(`/external_training_modules/imports/${importid}/progress`, { token: admin.token })).json().status).toBe('COMPLETE');
  });

  it('decodes in linear time and leaves other references as written', () => {
    expect(decodeReferences('a&amp;b&lt;&#x41;&#66;&unknown;&amp')).toBe('a&b<AB&unknown;&amp');
    const long = '&amp;'.repeat(200_000) + '&'.repeat(200_000);
    const started = performance.now();
    expect(decodeReferences(long).length).toBe(400_000);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(() => decodeReferences('&#0;')).toThrow(/not well-formed/);
  });
});
