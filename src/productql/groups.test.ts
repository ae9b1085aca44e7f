/**
 * Groups in ProductQL (PostHog's posthog/hogql/database/schema/groups.py and events.py): the `groups` table, the
 * events' `$group_0..4` keys and their `group_0..4` lazy joins, on a real DuckDB; groups.clickhouse.test.ts runs this
 * file on ClickHouse with the same expected results. Project 2 has groups of the same types and keys as project 1
 * (and one keyed `''`, the key of every event without that group), all `P2_SECRET`: none may show through.
 */
import { UserError } from '../errors';
import { compileProductQL, shutdownParser } from './index';
import { createTestDb, SECRET, type TestDb } from './testing';

let db: TestDb;
const T0 = Date.parse('2024-05-01T12:00:00Z');
let n = 0;
const ev = (project: number, event: string, props: Record<string, unknown>, minutes: number) => ({
  project_id: project,
  uuid: `20000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  event,
  distinct_id: `g-user-${n}`,
  person_id: null,
  timestamp: T0 + minutes * 60_000,
  properties: JSON.stringify(props),
  session_id: null,
  elements_chain: null,
  created_at: T0,
});

beforeAll(async () => {
  db = await createTestDb();
  await db.addEvents([
    ev(1, 'grouped', { $group_0: 'org:1', $group_1: 'team:1' }, 0),
    ev(1, 'grouped', { $group_0: 'org:2' }, 1),
    ev(1, 'grouped', { $group_0: 'org:1' }, 2),
    // a key no group row has, and no group at all
    ev(1, 'grouped', { $group_0: 'org:404' }, 3),
    ev(1, 'grouped', {}, 4),
    ev(2, 'grouped', { $group_0: 'org:1', $group_1: 'team:1', marker: SECRET }, 0),
  ]);
  // A group of a type index project 1 has no events with: must not change anything above.
  await db.addGroups([{ project_id: 1, group_type_index: 2, group_key: 'org:1', created_at: T0, properties: { name: 'wrong type' }, version: 1 }]);
});
afterAll(async () => {
  await db?.close();
  await shutdownParser();
});

const all = async (text: string): Promise<unknown[][]> => (await db.query(text)).results;
const noSecret = (rows: unknown) => expect(JSON.stringify(rows)).not.toContain(SECRET);

describe('events.$group_N', () => {
  it("reads the event's group keys, '' when it has none", async () => {
    const r = await all("select $group_0, $group_1, $group_4 from events where event = 'grouped' order by timestamp");
    expect(r).toEqual([
      ['org:1', 'team:1', ''],
      ['org:2', '', ''],
      ['org:1', '', ''],
      ['org:404', '', ''],
      ['', '', ''],
    ]);
  });

  it('is a non-nullable string, usable in filters and GROUP BY', async () => {
    const r = await db.query("select $group_0, e.$group_1 from events e where event = 'grouped' limit 1");
    expect(r.types).toEqual([
      ['$group_0', 'String'],
      ['$group_1', 'String'],
    ]);
    expect(await all("select $group_0, count() from events where event = 'grouped' and $group_0 != '' group by $group_0 order by 1")).toEqual([
      ['org:1', 2],
      ['org:2', 1],
      ['org:404', 1],
    ]);
    // PostHog's unique_group: count(DISTINCT $group_0) over events that have one
    expect(await all("select uniq($group_0) from events where event = 'grouped' and $group_0 != ''")).toEqual([[3]]);
  });

  it('is not part of events.*', async () => {
    const r = await db.query('select * from events limit 1');
    expect(r.columns).not.toContain('$group_0');
    expect(r.columns).not.toContain('group_0');
  });
});

describe('events.group_N (groups on index N and key $group_N)', () => {
  // PostHog: group_0.properties.x, group_0.key, group_0.created_at through the events→groups lazy join.
  it('reaches the group row of the event', async () => {
    const r = await all(
      "select $group_0, group_0.key, group_0.index, group_0.properties.name, group_0.properties.industry, group_1.properties.name from events where event = 'grouped' order by timestamp",
    );
    expect(r).toEqual([
      ['org:1', 'org:1', 0, 'Org One', 'tech', 'Team One'],
      ['org:2', 'org:2', 0, 'Org Two', 'retail', null],
      ['org:1', 'org:1', 0, 'Org One', 'tech', null],
      // a key without a group row, and no key at all (project 2's group keyed '' must not match): NULL
      ['org:404', null, null, null, null, null],
      ['', null, null, null, null, null],
    ]);
  });

  it('reads created_at, updated_at and the whole properties', async () => {
    const r = await all("select group_0.created_at, group_0.updated_at, group_0.properties from events e where e.$group_0 = 'org:1' limit 1");
    expect(r[0][0]).toBe('2024-01-02T01:00:00+01:00');
    expect(r[0][1]).toBe('2024-01-02T01:00:00+01:00');
    expect(JSON.parse(r[0][2] as string)).toEqual({ name: 'Org One', industry: 'tech', marker: 'P1_MARKER' });
  });

  it('filters and groups by group properties', async () => {
    expect(await all("select count() from events where group_0.properties.industry = 'tech'")).toEqual([[2]]);
    expect(await all("select count() from events where event = 'grouped' and group_0.properties.industry != 'tech'")).toEqual([[3]]);
    expect(
      await all("select group_0.properties.name as name, count() from events where event = 'grouped' group by name order by name nulls last"),
    ).toEqual([
      ['Org One', 2],
      ['Org Two', 1],
      [null, 2],
    ]);
  });

  it('joins several group types and the person in one query', async () => {
    const r = await all(
      "select e.group_0.properties.name, e.group_1.properties.name, person.properties.email from events e where event = 'grouped' order by timestamp limit 1",
    );
    expect(r).toEqual([['Org One', 'Team One', null]]);
  });

  it('types group fields as nullable', async () => {
    const r = await db.query('select group_0.key, group_0.index, group_0.properties.name from events limit 1');
    expect(r.types.map((t) => t[1])).toEqual(['Nullable(String)', 'Nullable(Int32)', 'Nullable(String)']);
  });

  it('never reads another project’s groups', async () => {
    // Project 1's events without a group have $group_0 = '', the key of project 2's group; both projects have org:1.
    const r = await all('select group_0.properties, group_0.key, group_1.properties.marker, group_0.properties.marker from events');
    noSecret(r);
    expect(await all("select count() from events where group_0.properties.marker = 'P2_SECRET'")).toEqual([[0]]);
  });

  it.each([
    ['select group_0 from events', "Can't select a table when a column is expected: group_0"],
    ['select group_0.team_id from events', 'Field not found: team_id'],
    ['select group_0.project_id from events', 'Field not found: project_id'],
    ['select group_0.key.x from events', 'Cannot access "x" on group_0.key'],
    ['select group_5.key from events', 'Unable to resolve field: group_5'],
    ['select $group_0.x from events', 'Cannot access "x" on $group_0'],
  ])('refuses %s', async (text, message) => {
    const e = await db.query(text).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).status).toBe(400);
    expect((e as UserError).message).toContain(message);
  });
});

describe('printed SQL', () => {
  it('joins the guarded groups of the type on the key inside the guarded events reference (DuckDB)', async () => {
    const c = await compileProductQL({ query: 'select $group_0, group_0.properties.name from events limit 1', projectId: 1, timezone: 'UTC', dialect: 'duckdb' });
    const key = `coalesce(json_extract_string("events"."properties", $1), $2)`;
    expect(c.sql).toBe(
      `SELECT ${key} AS "$group_0", json_extract_string("events"."__group0_properties", $3) AS "name"` +
        ` FROM (SELECT "events".*, "__group0"."properties" AS "__group0_properties" FROM "events" AS "events"` +
        ` LEFT JOIN (SELECT "__gr0".* FROM "groups" AS "__gr0" WHERE "__gr0"."project_id" = $4 AND "__gr0"."group_type_index" = 0) AS "__group0"` +
        ` ON "__group0"."group_key" = ${key} WHERE "events"."project_id" = $4) AS "events" LIMIT 2`,
    );
    expect(c.params).toEqual(['/$group_0', '', '/name', 1]);
  });
});

describe('the groups table', () => {
  it("lists the project's groups with PostHog's columns", async () => {
    const r = await db.query('select * from groups order by index, key');
    expect(r.columns).toEqual(['index', 'key', 'created_at', 'updated_at', 'properties']);
    expect(r.results.map((x) => [x[0], x[1], x[2], JSON.parse(x[4] as string).name])).toEqual([
      [0, 'org:1', '2024-01-02T01:00:00+01:00', 'Org One'],
      [0, 'org:2', '2024-01-03T01:00:00+01:00', 'Org Two'],
      [1, 'team:1', '2024-01-04T01:00:00+01:00', 'Team One'],
      [2, 'org:1', '2024-05-01T14:00:00+02:00', 'wrong type'],
    ]);
  });

  it('reads properties like persons', async () => {
    expect(await all("select key, properties.name from groups where index = 0 and properties.industry = 'retail'")).toEqual([['org:2', 'Org Two']]);
    expect(await all('select g.key, g.properties.industry from groups g where g.index = 1')).toEqual([['team:1', null]]);
  });

  it('joins to events explicitly', async () => {
    const r = await all(
      "select g.properties.name, count() from events e join groups g on g.key = e.$group_0 where g.index = 0 and e.event = 'grouped' group by 1 order by 1",
    );
    expect(r).toEqual([
      ['Org One', 2],
      ['Org Two', 1],
    ]);
    noSecret(r);
  });

  it.each(['select team_id from groups', 'select project_id from groups', 'select g.version from groups g'])('refuses %s', async (text) => {
    const e = await db.query(text).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).status).toBe(400);
  });
});
