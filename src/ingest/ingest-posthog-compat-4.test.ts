/**
 * Ingestion semantics ported from PostHog's own tests, fourth pass (after ingest-posthog-compat{,-2,-3}.test.ts):
 * the order of a person's distinct ids (process-event.test.ts's alias family asserts `fetchDistinctIdValues`, which
 * lists PersonDistinctId rows by id: first seen in the project, kept through merges), rust capture's RawEvent field
 * types (`timestamp: Option<String>`, `offset: Option<i64>`), plugin-server timestamps.ts parseDate (JavaScript's Date
 * first, then Luxon's ISO 8601) and person-state.ts createOrGetPerson (a new person gets `$set_once` and `$set`, not
 * `$unset`). Each test names the PostHog case it ports.
 *
 * Events go through the real capture parser and the real Ingestor into the engine; persons are read back as a user
 * reads them (ActorsQuery's person column, ProductQL). ingest-posthog-compat-4.clickhouse.test.ts runs this file on
 * ClickHouse.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import { ClickHouseEngine } from '../engines/clickhouse/clickhouse-engine';
import { actorsRunner } from '../queries/runners/actors-runner';
import { ProjectIdentity } from './identity';
import { ingestCompat } from './testing';

const TOKEN = 'phc_compat4';
const compat = ingestCompat(TOKEN);
const { project, parse, capture, batch, hogql } = compat;

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;
const one = (distinct_id: string, event: string, properties: Record<string, unknown> = {}) => batch({ event, distinct_id, properties });

/** Each person's `distinct_ids` as ActorsQuery's person column lists them (PostHog's get_actors), persons by first id. */
async function actorIds(pid: number): Promise<string[][]> {
  const r = await compat.h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], limit: 100 }, pid);
  return (r.results as [{ distinct_ids: string[] }][]).map(([p]) => p.distinct_ids).sort((a, b) => a[0].localeCompare(b[0]));
}

describe("process-event.test.ts alias family: a person's distinct ids in the order they were first seen (fetchDistinctIdValues)", () => {
  it("'alias': the aliased id comes after the person's own", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e'));
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id' }));
    expect(await actorIds(pid)).toEqual([['old_distinct_id', 'new_distinct_id']]);
  });

  it("'alias reverse'", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e'));
    await capture(pid, one('old_distinct_id', '$create_alias', { alias: 'new_distinct_id' }));
    expect(await actorIds(pid)).toEqual([['old_distinct_id', 'new_distinct_id']]);
  });

  it("'alias twice': a merged-in person's id comes last, the merged ids keep their places", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e'));
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id' }));
    expect(await actorIds(pid)).toEqual([['old_distinct_id', 'new_distinct_id']]);
    await capture(pid, one('old_distinct_id_2', 'e'));
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id_2' }));
    expect(await actorIds(pid)).toEqual([['old_distinct_id', 'new_distinct_id', 'old_distinct_id_2']]);
  });

  it("'alias before person': neither id known, the event's id first", async () => {
    const pid = await project();
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id' }));
    expect(await actorIds(pid)).toEqual([['new_distinct_id', 'old_distinct_id']]);
  });

  it("'alias both existing': the older person's id (seen first) comes first, though it was merged into the other", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e'));
    await capture(pid, one('new_distinct_id', 'e'));
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id' }));
    expect(await actorIds(pid)).toEqual([['old_distinct_id', 'new_distinct_id']]);
  });

  it("'distinct with multiple anonymous_ids which were already created' (an $identify merge), then more ids in order", async () => {
    const pid = await project();
    await capture(pid, one('zeta_anonymous', 'e'));
    await capture(pid, one('new_distinct_id', 'e', { $set: { email: 'someone@gmail.com' } }));
    await capture(pid, one('new_distinct_id', '$identify', { $anon_distinct_id: 'zeta_anonymous' }));
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'another_id' }));
    expect(await actorIds(pid)).toEqual([['zeta_anonymous', 'new_distinct_id', 'another_id']]);
  });

  it('the order is per project: ids seen in another project do not interleave', async () => {
    const a = await project();
    const b = await project();
    await capture(b, one('y', 'e'));
    await capture(a, one('z', 'e'));
    await capture(b, one('x', 'e'));
    await capture(a, one('z', '$create_alias', { alias: 'y' }));
    await capture(b, one('x', '$create_alias', { alias: 'y' }));
    expect(await actorIds(a)).toEqual([['z', 'y']]);
    expect(await actorIds(b)).toEqual([['y', 'x']]);
  });
});

describe('distinct id order: imports and restarts', () => {
  it("an imported person's ids keep the order they are given (PostHog's createPerson adds its distinct ids in order)", async () => {
    const pid = await compat.h.load({ persons: [{ distinct_ids: ['zz', 'aa', 'mm'], properties: {} }] });
    await capture(pid, one('zz', '$create_alias', { alias: 'bb' }));
    expect(await actorIds(pid)).toEqual([['zz', 'aa', 'mm', 'bb']]);
  });

  it('after a reload of the identity state, new ids come after every stored one', () => {
    const state = new ProjectIdentity(1);
    const P = '00000000-0000-4000-8000-000000000001';
    state.load({
      persons: [{ id: P, created_at: 0, properties: {}, is_identified: true, version: 0 }],
      distinctIds: [
        { distinct_id: 'b', person_id: P, version: 0, seq: 5 },
        { distinct_id: 'a', person_id: P, version: 0, seq: 2 },
        { distinct_id: 'legacy', person_id: P, version: 0 },
      ],
      overrides: [],
    });
    state.processEvent({ event: '$create_alias', distinct_id: 'b', properties: { alias: 'c' }, timestamp: 0 });
    expect(state.drain().newDistinctIds).toEqual([{ project_id: 1, distinct_id: 'c', person_id: P, version: 0, seq: 6 }]);
  });
});

describe('distinct id order in a store written before it was kept (person_distinct_ids.seq added by migration)', () => {
  it('older ids read alphabetically, before every id seen after the upgrade', async () => {
    if (compat.h.kind === 'duckdb') {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-pdi-seq-'));
      const file = path.join(dir, 'events.duckdb');
      try {
        // The first release's table, with two ids of one person.
        const old = await DuckDbEngine.open(file);
        await old.withWriter(async (w) => {
          await w.run('DROP TABLE person_distinct_ids');
          await w.run('CREATE TABLE person_distinct_ids (project_id INTEGER NOT NULL, distinct_id VARCHAR NOT NULL, person_id UUID NOT NULL, version BIGINT NOT NULL DEFAULT 0)');
          await w.run("INSERT INTO person_distinct_ids VALUES (1, 'b', '00000000-0000-4000-8000-000000000001', 0), (1, 'a', '00000000-0000-4000-8000-000000000001', 0)");
        });
        await old.close();
        const upgraded = await DuckDbEngine.open(file);
        try {
          const ids = await upgraded.loadIdentity(1);
          expect(ids.distinctIds.map((d) => [d.distinct_id, d.seq]).sort()).toEqual([
            ['a', 0],
            ['b', 0],
          ]);
          await upgraded.writeBatch({ events: [], newDistinctIds: [{ project_id: 1, distinct_id: 'c', person_id: '00000000-0000-4000-8000-000000000001', version: 0, seq: 1 }] });
          expect((await upgraded.query('SELECT distinct_id FROM person_distinct_ids ORDER BY seq, distinct_id', [])).rows).toEqual([['a'], ['b'], ['c']]);
        } finally {
          await upgraded.close();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    } else {
      const opts = (compat.h.engine as unknown as { opts: { url: string; nodeUrls?: string[]; cluster?: string } }).opts;
      const db = `quarry_pdi_seq_${process.pid}`;
      // The first release's table (local tables and Distributed ones over them on a cluster), with two ids of one person.
      const old = await ClickHouseEngine.open({ ...opts, database: db });
      const cols = 'project_id Int32, distinct_id String, person_id UUID, version Int64, is_deleted UInt8, _row_version UInt64';
      for (const t of opts.cluster ? ['person_distinct_ids', 'person_distinct_ids_local'] : ['person_distinct_ids']) await old.exec(`DROP TABLE ${db}.${t}`);
      if (opts.cluster) {
        await old.exec(`CREATE TABLE ${db}.person_distinct_ids_local (${cols}) ENGINE = ReplacingMergeTree(_row_version) ORDER BY (project_id, distinct_id)`);
        await old.exec(`CREATE TABLE ${db}.person_distinct_ids AS ${db}.person_distinct_ids_local ENGINE = Distributed(${opts.cluster}, ${db}, person_distinct_ids_local, cityHash64(distinct_id))`);
      } else await old.exec(`CREATE TABLE ${db}.person_distinct_ids (${cols}) ENGINE = ReplacingMergeTree(_row_version) ORDER BY (project_id, distinct_id)`);
      await old.exec(
        `INSERT INTO ${db}.person_distinct_ids VALUES (1, 'b', toUUID('00000000-0000-4000-8000-000000000001'), 0, 0, 1), (1, 'a', toUUID('00000000-0000-4000-8000-000000000001'), 0, 0, 2)`,
      );
      await old.close();
      const upgraded = await ClickHouseEngine.open({ ...opts, database: db });
      try {
        const ids = await upgraded.loadIdentity(1);
        expect(ids.distinctIds.map((d) => [d.distinct_id, d.seq]).sort()).toEqual([
          ['a', 0],
          ['b', 0],
        ]);
        await upgraded.writeBatch({ events: [], newDistinctIds: [{ project_id: 1, distinct_id: 'c', person_id: '00000000-0000-4000-8000-000000000001', version: 0, seq: 1 }] });
        const r = await upgraded.query(`SELECT distinct_id FROM person_distinct_ids FINAL WHERE project_id = 1 AND is_deleted = 0 ORDER BY seq, distinct_id`, []);
        expect(r.rows).toEqual([['a'], ['b'], ['c']]);
      } finally {
        await upgraded.exec(`DROP DATABASE ${db}${opts.cluster ? ` ON CLUSTER ${opts.cluster}` : ''}`).catch(() => undefined);
        await upgraded.close();
      }
    }
  });
});

describe("rust capture RawEvent: `timestamp: Option<String>`, `offset: Option<i64>` (another JSON type fails the request's deserialization)", () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a numeric timestamp', { timestamp: 1635562920000 }, /timestamp must be a string/],
    ['a boolean timestamp', { timestamp: true }, /timestamp must be a string/],
    ['a string offset', { offset: '6000' }, /offset must be an integer/],
    ['a fractional offset', { offset: 12.5 }, /offset must be an integer/],
    ['a string offset beside a timestamp', { timestamp: '2021-10-30T03:02:00.000Z', offset: '6000' }, /offset must be an integer/],
  ])('%s is a 400 and nothing of the request is stored', async (_name, fields, message) => {
    expect(() => parse(batch({ event: 'e', distinct_id: 'u', ...fields }))).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(message) }));
    const pid = await project();
    await expect(capture(pid, batch({ event: 'good', distinct_id: 'u' }, { event: 'bad', distinct_id: 'u', ...fields }))).rejects.toMatchObject({ status: 400 });
    expect(await hogql(pid, 'select count() from events')).toEqual([[0]]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a null timestamp is no timestamp (the offset is used)', { timestamp: null, offset: 6000 }, '2021-10-30T03:13:54.000Z'],
    ['a null offset is no offset', { offset: null }, '2021-10-30T03:14:00.000Z'],
    ['a negative integer offset is taken (the event is later than now, within the 23 hours allowed)', { offset: -60000 }, '2021-10-30T03:15:00.000Z'],
  ])('%s', (_name, fields, expected) => {
    expect(new Date(parse(batch({ event: 'e', distinct_id: 'u', ...fields })).events[0].timestamp).toISOString()).toBe(expected);
  });

  it('imports still take an epoch-milliseconds timestamp (their rows are not capture requests)', async () => {
    const pid = await compat.h.load({ events: [{ event: 'imported', distinct_id: 'u', timestamp: Date.parse('2021-10-29T10:00:00Z') }] });
    expect(await hogql(pid, "select event, toString(timestamp) from events")).toEqual([['imported', '2021-10-29 10:00:00.000000']]);
  });
});

describe("plugin-server timestamps.ts parseDate(): JavaScript's Date first, so forms Luxon's fromISO refuses are dates too", () => {
  const tsOf = (timestamp: string, sentAt?: string) =>
    new Date(parse({ ...batch({ event: 'e', distinct_id: 'u', timestamp }), ...(sentAt ? { sent_at: sentAt } : {}) }).events[0].timestamp).toISOString();

  it.each<[string, string]>([
    ['Fri, 29 Oct 2021 00:00:00 GMT', '2021-10-29T00:00:00.000Z'],
    ['Fri, 29 Oct 2021 02:00:00 +0200', '2021-10-29T00:00:00.000Z'],
    ['Thu, 28 Oct 2021 20:00:00 EDT', '2021-10-29T00:00:00.000Z'],
    ['Fri Oct 29 2021 02:00:00 GMT+0200 (Central European Summer Time)', '2021-10-29T00:00:00.000Z'],
    // No zone: PostHog's servers run in UTC, where Date reads such text.
    ['Fri, 29 Oct 2021 00:00:00', '2021-10-29T00:00:00.000Z'],
    ['October 29, 2021 12:30:00', '2021-10-29T12:30:00.000Z'],
    ['2021/10/29 00:00:00', '2021-10-29T00:00:00.000Z'],
  ])('%j is %s', (timestamp, expected) => {
    expect(tsOf(timestamp)).toBe(expected);
  });

  it('such a timestamp is skew-corrected by sent_at like any other', () => {
    expect(tsOf('Sat, 30 Oct 2021 03:02:00 GMT', '2021-10-30T03:12:00.000Z')).toBe('2021-10-30T03:04:00.000Z');
  });

  it('sent_at is ISO 8601 only (rust capture parses it): an RFC 2822 sent_at is ignored', () => {
    expect(tsOf('2021-10-30T03:02:00.000Z', 'Sat, 30 Oct 2021 03:12:00 GMT')).toBe('2021-10-30T03:02:00.000Z');
  });

  it.each(['notISO', 'Fri, 32 Oct 2021 00:00:00 GMT', '2021-13-01T00:00:00Z'])('%j is still not a date: a 400', (timestamp) => {
    expect(() => parse(batch({ event: 'e', distinct_id: 'u', timestamp }))).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('the stored event reads at that time', async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'rfc', distinct_id: 'u', timestamp: 'Fri, 29 Oct 2021 02:00:00 +0200' }));
    expect(await hogql(pid, "select event, toString(timestamp) from events")).toEqual([['rfc', '2021-10-29 00:00:00.000000']]);
  });
});

describe("person-state.ts createOrGetPerson: a new person is made from $set_once and $set, and its $unset is not applied", () => {
  const propsOf = async (pid: number) =>
    (await hogql(pid, 'select d.distinct_id, p.properties from persons p join person_distinct_ids d on d.person_id = p.id order by d.distinct_id')).map(
      ([d, p]) => {
        const { $creator_event_uuid: _creator, ...rest } = json(p);
        return [d, rest];
      },
    );

  it('the first event of a person: $unset of a key its $set or $set_once gives leaves it', async () => {
    const pid = await project();
    await capture(pid, one('u', 'e', { $set: { a: 1, keep: true }, $set_once: { b: 2 }, $unset: ['a', 'b'] }));
    expect(await propsOf(pid)).toEqual([['u', { a: 1, b: 2, keep: true }]]);
    expect(await hogql(pid, 'select version from raw_persons')).toEqual([[0]]);
  });

  it("the person's next event applies its $unset (updatePersonProperties)", async () => {
    const pid = await project();
    await capture(pid, one('u', 'e', { $set: { a: 1, keep: true }, $unset: ['a'] }));
    await capture(pid, one('u', 'e', { $unset: ['a'] }));
    expect(await propsOf(pid)).toEqual([['u', { keep: true }]]);
    expect(await hogql(pid, 'select version from raw_persons')).toEqual([[1]]);
  });

  it('a person an $identify merge creates (neither id known) goes through updatePersonProperties: its $unset applies', async () => {
    const pid = await project();
    await capture(pid, one('user', '$identify', { $anon_distinct_id: 'anon', $set: { a: 1, keep: true }, $unset: ['a'] }));
    expect(await propsOf(pid)).toEqual([
      ['anon', { keep: true }],
      ['user', { keep: true }],
    ]);
  });
});
