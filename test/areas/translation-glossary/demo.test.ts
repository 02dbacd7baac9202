import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';

describe('demo glossary', () => {
  const t = appForFile({ config: { languages: ['en', 'de', 'fr'] } }, async () => {
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });

  const tokenOf = async (email: string) => {
    const u = await t.db.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirstOrThrow();
    return (await issueToken(t.db, t.config, t.clock, u.userid)).token;
  };

  it('glossary terms from English into the site\'s other languages', async () => {
    const token = await tokenOf('user@example.com');
    const entries = (await t.get('/translation_glossary/entries', { token })).json();
    expect(entries.length).toBeGreaterThanOrEqual(5);
    expect(entries.find((e: { term: string }) => e.term === 'drive belt')).toMatchObject({
      source_langid: 'en', translations: [{ langid: 'de', term: 'Antriebsriemen' }, { langid: 'fr', term: 'courroie d\'entraînement' }],
    });
  });
});
