// Demo guides for the demo site's plant: a lockout/tagout technique (the prerequisite of
// the others), a drive belt replacement, a gripper air-leak repair and a scanner
// teardown, with formatted lines, nested bullets, parts, tools, tags, flags, a team of
// collaborators, completions and a release. Categories and items are inserted as bare
// wiki rows when the wikis area has not made them (it may run before or after this).
import type { DemoContext } from '../area.js';
import { loadBulletStyles, type Db } from './guides.queries.js';
import { commitGuideRevision, insertGuide, insertStep, timeRequiredText, type LineValues } from './guides.service.js';
import type { FieldValues } from './guides.fields.js';
import { createRelease } from './guides.releases.js';

type DemoLine = [text: string, bullet?: string, level?: number];
interface DemoStep { title: string; lines: DemoLine[]; images?: number; fields?: FieldValues[] }
interface DemoGuide {
  key: string;
  type: string;
  category: string;
  subject: string;
  title: string;
  author: string;
  summary: string;
  introduction: string;
  conclusion: string;
  difficulty: string;
  time: [number, number];
  parts: Array<[string, number, string?]>;
  tools: string[];
  tags: string[];
  prerequisites: string[];
  steps: DemoStep[];
}

const GUIDES: DemoGuide[] = [
  {
    key: 'guideLoto', type: 'technique', category: 'Plant Safety', subject: 'Lockout/Tagout', title: 'Lockout/Tagout Before Maintenance', author: 'moderator',
    summary: 'Isolate every energy source before you touch a machine.',
    introduction: "Every maintenance task on the line starts here. ''Lockout/tagout'' (LOTO) keeps a machine from starting while someone works on it.\n\nYou need your own '''personal lock''' and a tag with your name.",
    conclusion: 'Only the person who applied a lock may remove it. See [link|/Wiki/Energy_Isolation|the energy isolation list] for every machine.',
    difficulty: 'Easy', time: [300, 600], parts: [], tools: ['Personal Safety Lock'], tags: ['safety', 'lockout'], prerequisites: [],
    steps: [
      { title: 'Announce the shutdown', lines: [['Tell the line lead and the operators which machine you will stop and for how long.'], ['Nobody may restart it until you remove your lock.', 'icon_caution', 1]] },
      { title: 'Isolate the energy', lines: [['Switch the machine off at its panel, then open the main disconnect.'], ['Close and bleed the air supply:', 'black', 0], ['close the ball valve', 'black', 1], ["open the dump valve until the gauge reads '''0 bar'''", 'black', 1], ['Stored energy (springs, raised loads) must be blocked too.', 'red', 0]] },
      { title: 'Lock, tag and verify', lines: [["Put your lock and tag on the disconnect. '''One lock per person.'''"], ['Press the start button: nothing may move.', 'black', 0], ['If anything moves, stop and call the line lead.', 'icon_caution', 1]] },
    ],
  },
  {
    key: 'guideReplacement', type: 'replacement', category: 'Conveyor C-200', subject: 'Drive Belt', title: 'Conveyor C-200 Drive Belt Replacement', author: 'author',
    summary: 'Replace a worn or cracked drive belt and set its tension.',
    introduction: "Replace the drive belt when it shows cracks, glazing or more than '''2 mm''' of stretch. The job takes one person about an hour.\n\n== Before you start ==\n* Order the belt by its part number: B-1200\n* Have the tension gauge calibrated\n** calibration is due every 12 months",
    conclusion: "Run the conveyor empty for five minutes and check the tension again: a new belt settles. Record the change in the maintenance log.",
    difficulty: 'Moderate', time: [2700, 4500], parts: [['Drive Belt B-1200', 1]], tools: ['Hex Key Set', 'Belt Tension Gauge', 'Torque Wrench'], tags: ['conveyor', 'belt', 'preventive maintenance'], prerequisites: ['guideLoto'],
    steps: [
      { title: 'Lock out the conveyor', lines: [["Apply lockout/tagout as in [guide|0|the LOTO guide]."], ['Check that the belt cannot move by hand-turning the drive pulley.', 'black', 1]], images: 1 },
      { title: 'Remove the guard', lines: [["Undo the four ``M6`` screws of the side guard with a 5 mm hex key."], ['Keep the screws in a tray: they are easy to drop into the frame.', 'icon_note', 1], ['Lift the guard off.']], images: 1 },
      { title: 'Release the tension', lines: [['Loosen the two motor mount bolts by one turn.'], ['Push the motor towards the pulley to slacken the belt.'], ["Never pry the belt over the pulley flange: it ''will'' damage the new belt's cords.", 'icon_caution', 1]] },
      { title: 'Fit the new belt and set the tension', lines: [['Fit the new belt over both pulleys.'], ['Pull the motor back until the gauge reads:', 'black', 0], ["'''45 Hz''' for a new belt", 'green', 1], ["'''38 Hz''' after running in", 'green', 1], ["Tighten the motor mount bolts to '''25 N·m''' (^^±^^2).", 'black', 0]], images: 1,
        fields: [
          { named: null, type: 'number', label: 'Belt tension (Hz)', required: true, options: [] },
          { named: null, type: 'checkbox', label: 'Bolts torqued to 25 N·m', required: true, options: [] },
        ] },
      { title: 'Refit the guard and test', lines: [['Refit the guard and its four screws.'], ['Remove your lock and run the conveyor empty.'], ['Listen for squeal: it means the tension is too low.', 'icon_reminder', 1]],
        fields: [
          { named: null, type: 'choice', label: 'Test run', required: true, options: ['Quiet', 'Squeal', 'Belt slips'] },
          { named: null, type: 'text', label: 'Remarks', required: false, options: [] },
        ] },
    ],
  },
  {
    key: 'guideRepair', type: 'repair', category: 'Pick-and-Place Robot', subject: 'Gripper Air Leak', title: 'Pick-and-Place Gripper Air Leak Repair', author: 'author',
    summary: 'Find and fix the leak that makes the gripper drop parts.',
    introduction: "A gripper that drops parts or hisses usually leaks at a fitting or at its piston seal. This guide finds the leak and fixes it.",
    conclusion: 'If the gripper still drops parts, replace the whole gripper module and send the old one to the workshop.',
    difficulty: 'Difficult', time: [1800, 3600], parts: [['Air Line Fitting 6 mm', 2], ['PTFE Tape', 1, 'Only on threads, never on the push-in end']], tools: ['Leak Detector Spray', 'Hex Key Set'], tags: ['pneumatics', 'robot'], prerequisites: ['guideLoto'],
    steps: [
      { title: 'Find the leak', lines: [['With the air on and the robot locked out, spray every fitting with leak detector.'], ['Bubbles show the leak.', 'black', 1], ['No bubbles at the fittings? The piston seal leaks: go to the last step.', 'icon_note', 1]] },
      { title: 'Replace the fitting', lines: [['Bleed the air, then unscrew the leaking fitting.'], ["Wrap the new fitting's thread with PTFE tape, ''clockwise'', two turns."], ['Screw it in hand-tight plus half a turn.']], images: 1 },
      { title: 'Check the piston seal', lines: [['Unscrew the four cylinder cap bolts and pull the piston out.'], ['A torn or flattened seal must be replaced:', 'red', 0], ['order the seal kit from the [https://example.com/parts|parts catalogue|new_window=true]', 'black', 1]] },
    ],
  },
  {
    key: 'guideTeardown', type: 'teardown', category: 'Barcode Scanner', subject: 'Handheld Scanner', title: 'Handheld Barcode Scanner Teardown', author: 'admin',
    summary: 'What is inside the handheld scanners used at the packing stations.',
    introduction: "We opened one of the packing-station scanners to see which parts can be repaired in house.\n\n[quote|Quality assurance]\nMost failures we see are the trigger switch and the cable strain relief.\n[/quote]",
    conclusion: "The scanner is repairable: the trigger, the cable and the battery are all held by screws, not glue.",
    difficulty: 'Easy', time: [900, 1200], parts: [], tools: ['Spudger', 'Phillips #1 Screwdriver'], tags: ['teardown', 'scanner'], prerequisites: [],
    steps: [
      { title: 'Open the handle', lines: [['Remove the three Phillips #1 screws under the rubber boot.'], ['Pry the two halves apart with a spudger, starting at the cable end.']], images: 1 },
      { title: 'The scan engine', lines: [['The scan engine is a single module held by two screws.'], ["Its ribbon cable has a ''ZIF'' latch: flip it up before pulling.", 'icon_caution', 1]], images: 1 },
      { title: 'Trigger and cable', lines: [['The trigger switch is a standard 6 mm tactile switch.'], ['The cable plugs into a header: no soldering needed.']] },
    ],
  },
];

const CATEGORY_NAMES = [...new Set(GUIDES.map((g) => g.category))];
const ITEM_NAMES = [...new Set(GUIDES.flatMap((g) => [...g.parts.map((p) => p[0]), ...g.tools]))];

async function ensureWikis(db: Db, namespace: string, titles: string[]) {
  for (const title of titles) {
    await db.insertInto('wikis').values({ namespace, title }).onConflict((oc) => oc.columns(['namespace', 'title']).doNothing()).execute();
  }
}

export async function seedGuidesDemo(ctx: DemoContext) {
  const { db, config, users, teams, ids } = ctx;
  const now = ctx.clock.now();
  const langid = config.languages[0];
  await ensureWikis(db, 'CATEGORY', CATEGORY_NAMES);
  await ensureWikis(db, 'ITEM', ITEM_NAMES);
  const styles = await loadBulletStyles(db);
  const images = Object.keys(ids).filter((k) => /^demoImage\d+$/.test(k)).sort((a, b) => Number(a.slice(9)) - Number(b.slice(9))).map((k) => ids[k]);
  let nextImage = 0;

  for (const g of GUIDES) {
    const userid = users[g.author] ?? users.admin;
    const guideid = await insertGuide(db, now, {
      langid,
      userid,
      tags: g.tags,
      fields: {
        set: {
          type: g.type, category: g.category, title: g.title, subject: g.subject, summary: g.summary, introduction: g.introduction, conclusion: g.conclusion,
          difficulty: g.difficulty, time_required_min: g.time[0], time_required_max: g.time[1], time_required: timeRequiredText(g.time[0], g.time[1]),
          public: 1, parts: JSON.stringify(g.parts.map(([title, quantity, notes]) => ({ title, quantity, notes: notes ?? '' }))),
          tools: JSON.stringify(g.tools.map((title) => ({ title, quantity: 1, notes: '' }))),
        },
        prerequisites: g.prerequisites.map((k) => ids[k]).filter((x) => x !== undefined),
      },
    });
    ids[g.key] = guideid;
    for (const s of g.steps) {
      const lines: LineValues[] = s.lines.map(([text, bullet = 'black', level = 0]) => {
        const style = styles.byName.get(bullet) ?? styles.fallback;
        // [guide|0] in the demo texts points at the LOTO guide
        return { lineid: null, text: text.replace('[guide|0|', `[guide|${ids.guideLoto ?? guideid}|`), bullet: style.name, bullet_styleid: style.bullet_styleid, level };
      });
      const stepImages: number[] = [];
      for (let i = 0; i < (s.images ?? 0) && images.length; i++) stepImages.push(images[nextImage++ % images.length]);
      await insertStep(db, guideid, langid, userid, now, { title: s.title, lines, media: stepImages.length ? { type: 'image', imageids: stepImages } : null, fields: s.fields });
    }
    const revisionid = await commitGuideRevision(db, guideid, langid, userid, now, 'step_add');
    ids[`${g.key}Revision`] = revisionid;
  }

  const starred = ids.guideReplacement;
  await db.insertInto('guide_flags').values([
    { guideid: ids.guideLoto, flagid: 'DANGER', userid: users.moderator, date: now },
    { guideid: starred, flagid: 'GUIDE_STARRED', userid: users.moderator, date: now },
    { guideid: ids.guideRepair, flagid: 'GUIDE_IN_PROGRESS', userid: users.author, date: now },
  ]).execute();
  if (teams.maintenance) {
    await db.insertInto('guide_collaborators').values({ guideid: ids.guideRepair, kind: 'team', memberid: teams.maintenance, added_by: users.author, date: now }).execute();
  }
  await db.insertInto('guide_completions').values({ userid: users.user, guideid: ids.guideLoto, langid, date: now }).execute();
  await db.insertInto('guide_favorites').values({ userid: users.user, guideid: starred, langid, date: now }).execute();
  const release = await createRelease(db, now, {
    guideid: starred, langid, revisionid: ids.guideReplacementRevision, userid: users.author, type: 'major', notes: 'First approved version for the C-200 line.',
  });
  ids.guideRelease = release.releaseid;
  ctx.log(`guides: ${GUIDES.map((g) => g.title).join('; ')} (release ${release.version} of the belt replacement)`);
}
