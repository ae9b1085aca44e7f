/**
 * Actions in ProductQL, as PostHog's posthog/hogql/functions/test/test_action.py pins them (`test_matches_action_name`,
 * `test_matches_action_id`: `matchesAction('<name>')` / `matchesAction(<id>)` in a HogQLQuery's WHERE is the saved
 * action's condition, `action_to_expr`) and as posthog/hogql/functions/action.py answers the references it cannot
 * resolve (400 with its messages). Actions are saved over REST, queries run through `POST …/query/` on the real
 * server, events imported through the real ingest path. actions-posthog-compat-2.clickhouse.test.ts runs this file on
 * ClickHouse. Also the REST refusal of an invalid `*_matching` in a step (DRF's ChoiceField message).
 *
 * Project P, person `bla`, events (`properties.n` = index):
 *  0 random event {random_prop: "don't include"}   1, 2 random event {random_prop: added}
 *  3 $pageview https://posthog.com/feedback/123     4 $pageview https://posthog.com/pricing
 * Project Q: one random event {random_prop: added}, and its own action.
 */
import { quarryOnTestEngine } from '../../test/helpers/clickhouse-quarry';
import type { TestServer } from '../../test/helpers/server';

const server = quarryOnTestEngine('quarry_actions_compat_2');

let s: TestServer;
let p: number;
let q: number;
/** RANDOM_TEST_ACTION (P), a url action (P), Q's action. */
let randomAction: number;
let urlAction: number;
let theirs: number;

async function action(project: number, name: string, steps: unknown[]): Promise<number> {
  const r = await s.api('POST', `/api/projects/${project}/actions/`, { name, steps });
  expect([r.status, r.body?.detail]).toEqual([201, undefined]);
  return r.body.id;
}
const hogql = (query: string, project = p) => s.api('POST', `/api/projects/${project}/query/`, { query: { kind: 'HogQLQuery', query } });
const results = async (query: string, project = p): Promise<unknown[][]> => {
  const r = await hogql(query, project);
  expect([r.status, r.body?.detail]).toEqual([200, undefined]);
  return r.body.results;
};

beforeAll(async () => {
  s = server();
  p = (await s.api('POST', '/api/projects/', { name: 'actions compat 2' })).body.id;
  q = (await s.api('POST', '/api/projects/', { name: 'actions compat 2, other' })).body.id;
  const at = (n: number) => `2024-03-01T1${n}:00:00Z`;
  const ing = s.server.services.ingestor;
  await ing.import(p, {
    persons: [{ distinct_ids: ['bla'], properties: { $os: 'Windows 95' } }],
    events: [
      { event: 'random event', distinct_id: 'bla', timestamp: at(0), properties: { n: 0, random_prop: "don't include" } },
      { event: 'random event', distinct_id: 'bla', timestamp: at(1), properties: { n: 1, random_prop: 'added' } },
      { event: 'random event', distinct_id: 'bla', timestamp: at(2), properties: { n: 2, random_prop: 'added' } },
      { event: '$pageview', distinct_id: 'bla', timestamp: at(3), properties: { n: 3, $current_url: 'https://posthog.com/feedback/123' } },
      { event: '$pageview', distinct_id: 'bla', timestamp: at(4), properties: { n: 4, $current_url: 'https://posthog.com/pricing' } },
    ],
  });
  await ing.import(q, { events: [{ event: 'random event', distinct_id: 'x', timestamp: at(0), properties: { n: 0, random_prop: 'added' } }] });
  await ing.flush();
  randomAction = await action(p, 'RANDOM_TEST_ACTION', [{ event: 'random event', properties: [{ key: 'random_prop', value: 'added', type: 'event' }] }]);
  urlAction = await action(p, 'feedback or signup', [{ event: '$pageview', url: '/feedback/', url_matching: 'contains' }, { event: 'signed up' }]);
  theirs = await action(q, 'THEIR_ACTION', [{ event: 'random event' }]);
});

describe('matchesAction in a HogQLQuery (posthog/hogql/functions/test/test_action.py)', () => {
  it('test_matches_action_name: matchesAction(<name>) keeps the events the action matches', async () => {
    expect(await results("SELECT event, properties.random_prop FROM events WHERE matchesAction('RANDOM_TEST_ACTION') ORDER BY properties.n")).toEqual([
      ['random event', 'added'],
      ['random event', 'added'],
    ]);
  });

  it('test_matches_action_id: matchesAction(<id>)', async () => {
    expect(await results(`SELECT event, properties.random_prop FROM events WHERE matchesAction(${randomAction}) ORDER BY properties.n`)).toEqual([
      ['random event', 'added'],
      ['random event', 'added'],
    ]);
  });

  it('an action of url steps (steps ORed, url contains)', async () => {
    expect(await results(`SELECT properties.n FROM events WHERE matchesAction(${urlAction}) ORDER BY properties.n`)).toEqual([['3']]);
  });

  it('NOT matchesAction, and matchesAction in the SELECT list (a condition per event)', async () => {
    expect(await results("SELECT properties.n FROM events WHERE NOT matchesAction('RANDOM_TEST_ACTION') ORDER BY properties.n")).toEqual([['0'], ['3'], ['4']]);
    expect(await results(`SELECT countIf(matchesAction('RANDOM_TEST_ACTION')), countIf(matchesAction(${urlAction})), count() FROM events`)).toEqual([[2, 1, 5]]);
  });

  it('on an aliased events table, and in a subquery', async () => {
    expect(await results("SELECT e.properties.n FROM events e WHERE matchesAction('RANDOM_TEST_ACTION') ORDER BY e.properties.n")).toEqual([['1'], ['2']]);
    expect(await results(`SELECT count() FROM (SELECT event FROM events AS ev WHERE matchesAction(${randomAction}))`)).toEqual([[2]]);
  });

  it('in a hogql filter of a HogQLQuery’s {filters}', async () => {
    const r = await s.api('POST', `/api/projects/${p}/query/`, {
      query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events WHERE {filters}', filters: { properties: [{ type: 'hogql', key: "matchesAction('RANDOM_TEST_ACTION')" }] } },
    });
    expect([r.status, r.body.results]).toEqual([200, [[2]]]);
  });

  it('an action of another project is unknown in this one, and matches there', async () => {
    const r = await hogql(`SELECT count() FROM events WHERE matchesAction(${theirs})`);
    expect([r.status, r.body.detail]).toEqual([400, `Could not find cohort with ID ${theirs}`]);
    expect(await results(`SELECT count() FROM events WHERE matchesAction(${theirs})`, q)).toEqual([[1]]);
    const byName = await hogql("SELECT count() FROM events WHERE matchesAction('THEIR_ACTION')");
    expect([byName.status, byName.body.detail]).toEqual([400, "Could not find an action with the name 'THEIR_ACTION'"]);
  });

  it.each<[string, string, string]>([
    ['an unknown id (action.py says cohort: its message is copied from the cohort function)', 'matchesAction(987654321)', 'Could not find cohort with ID 987654321'],
    ['an unknown name', "matchesAction('nope')", "Could not find an action with the name 'nope'"],
    ['an argument that is no constant', 'matchesAction(event)', 'action() takes only constant arguments'],
    ['a constant that is neither a number nor a string', 'matchesAction(true)', 'action() takes exactly one string or integer argument'],
  ])('%s is a 400', async (_n, call, detail) => {
    const r = await hogql(`SELECT count() FROM events WHERE ${call}`);
    expect([r.status, r.body.type, r.body.detail]).toEqual([400, 'validation_error', detail]);
  });

  it('a renamed action is found by its new name only; a changed definition applies at once', async () => {
    const id = await action(p, 'to rename', [{ event: '$pageview' }]);
    expect(await results("SELECT count() FROM events WHERE matchesAction('to rename')")).toEqual([[2]]);
    expect((await s.api('PATCH', `/api/projects/${p}/actions/${id}/`, { name: 'renamed' })).status).toBe(200);
    expect(await results("SELECT count() FROM events WHERE matchesAction('renamed')")).toEqual([[2]]);
    expect((await hogql("SELECT count() FROM events WHERE matchesAction('to rename')")).status).toBe(400);
    // a changed definition applies at once (a change to an action drops the project's cached results)
    expect((await s.api('PATCH', `/api/projects/${p}/actions/${id}/`, { steps: [{ event: 'random event' }] })).status).toBe(200);
    expect(await results("SELECT count() FROM events WHERE matchesAction('renamed')")).toEqual([[3]]);
  });
});

describe('matchesAction of an action whose step filters on a cohort (test_trends.py test_action_filtering_with_cohort)', () => {
  it('the cohort of the step is loaded with the query: only its persons’ events match, by id and by name', async () => {
    const r = (await s.api('POST', '/api/projects/', { name: 'actions compat 2, cohort' })).body.id;
    const ing = s.server.services.ingestor;
    await ing.import(r, {
      persons: [
        { distinct_ids: ['bla'], properties: { $os: 'Windows 95' } },
        { distinct_ids: ['mac'], properties: { $os: 'Mac OS X' } },
      ],
      events: ['bla', 'mac', 'bla'].map((d, i) => ({ event: 'random event', distinct_id: d, timestamp: `2024-03-01T1${i}:00:00Z`, properties: { n: i } })),
    });
    await ing.flush();
    const cohort = await s.api('POST', `/api/projects/${r}/cohorts/`, {
      name: 'windows',
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: '$os', value: 'Windows 95', operator: 'exact' }] }] } },
    });
    expect(cohort.status).toBe(201);
    const id = await action(r, 'windows random', [{ event: 'random event', properties: [{ type: 'cohort', key: 'id', value: cohort.body.id }] }]);
    expect(await results("SELECT distinct_id, properties.n FROM events WHERE matchesAction('windows random') ORDER BY properties.n", r)).toEqual([
      ['bla', '0'],
      ['bla', '2'],
    ]);
    expect(await results(`SELECT count() FROM events WHERE NOT matchesAction(${id})`, r)).toEqual([[1]]);
  });
});

describe('step validation (posthog/api/action.py ActionStepJSONSerializer: the *_matching fields are ChoiceFields)', () => {
  it.each<[string, unknown[], string, string]>([
    ['url_matching', [{ event: '$pageview', url: '/x', url_matching: 'foo' }], '"foo" is not a valid choice.', 'steps__0__url_matching'],
    ['text_matching of the second step', [{ event: '$pageview' }, { event: '$autocapture', text: 'x', text_matching: 'starts_with' }], '"starts_with" is not a valid choice.', 'steps__1__text_matching'],
    ['href_matching ""', [{ event: '$autocapture', href: '/x', href_matching: '' }], '"" is not a valid choice.', 'steps__0__href_matching'],
  ])('an invalid %s is a 400 invalid_choice', async (_n, steps, detail, attr) => {
    const r = await s.api('POST', `/api/projects/${p}/actions/`, { name: `bad ${attr}`, steps });
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_choice', detail, attr }]);
  });

  it('each of contains, regex and exact is accepted', async () => {
    const r = await s.api('POST', `/api/projects/${p}/actions/`, {
      name: 'all matchings',
      steps: [{ event: '$autocapture', url: '/x', url_matching: 'exact', text: 'x', text_matching: 'regex', href: '/y', href_matching: 'contains' }],
    });
    expect(r.status).toBe(201);
    expect(r.body.steps[0]).toMatchObject({ url_matching: 'exact', text_matching: 'regex', href_matching: 'contains' });
  });
});
