import { startServer, type TestServer } from '../helpers/server';

/** Deleting a project removes its events and persons; deleting a person removes it (and, if asked, its events). */
describe('deletes', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  const count = async (projectId: number, sql: string) =>
    (await s.server.services.engine.query(sql.replace('$P', String(projectId)), [])).rows[0][0];

  it('deleting a project removes its events and persons, and nothing of another project', async () => {
    const a = (await s.api('POST', '/api/projects/', { name: 'A' })).body.id;
    const b = (await s.api('POST', '/api/projects/', { name: 'B' })).body.id;
    for (const p of [a, b]) {
      await s.server.services.ingestor.import(p, {
        events: [
          { event: 'e', distinct_id: 'same-id', timestamp: '2024-01-01T00:00:00Z' },
          { event: 'e', distinct_id: 'other', timestamp: '2024-01-02T00:00:00Z' },
        ],
      });
    }
    expect(await count(a, 'SELECT count(*) FROM events WHERE project_id = $P')).toBe(2);
    expect((await s.api('DELETE', `/api/projects/${a}/`)).status).toBe(204);
    expect((await s.api('GET', `/api/projects/${a}/`)).status).toBe(404);
    for (const t of ['events', 'persons', 'person_distinct_ids']) {
      expect(await count(a, `SELECT count(*) FROM ${t} WHERE project_id = $P`)).toBe(0);
      expect(await count(b, `SELECT count(*) FROM ${t} WHERE project_id = $P`)).toBeGreaterThan(0);
    }
  });

  it('deletes a person, with and without its events', async () => {
    await s.server.services.ingestor.import(1, {
      events: [
        { event: 'e', distinct_id: 'keep-events', timestamp: '2024-01-01T00:00:00Z' },
        { event: 'e', distinct_id: 'drop-events', timestamp: '2024-01-01T00:00:00Z' },
      ],
    });
    const personOf = async (d: string) =>
      (
        await s.api('POST', '/api/projects/1/query/', {
          query: { kind: 'ProductQLQuery', query: `SELECT person_id FROM events WHERE distinct_id = '${d}' LIMIT 1` },
          refresh: 'force_blocking',
        })
      ).body.results[0][0] as string;
    const keep = await personOf('keep-events');
    const drop = await personOf('drop-events');
    // PostHog's person delete answers 202 Accepted with an empty body (test_person.py test_delete_person)
    const kept = await s.api('DELETE', `/api/projects/1/persons/${keep}/`);
    expect([kept.status, kept.text]).toEqual([202, '']);
    expect((await s.api('DELETE', `/api/projects/1/persons/${drop}/?delete_events=true`)).status).toBe(202);
    expect(await count(1, `SELECT count(*) FROM persons WHERE project_id = $P AND id IN ('${keep}', '${drop}')`)).toBe(0);
    expect(await count(1, "SELECT count(*) FROM events WHERE project_id = $P AND distinct_id = 'keep-events'")).toBe(1);
    expect(await count(1, "SELECT count(*) FROM events WHERE project_id = $P AND distinct_id = 'drop-events'")).toBe(0);
    // unknown or malformed ids, and another project's person, are 404
    expect((await s.api('DELETE', `/api/projects/1/persons/${drop}/`)).status).toBe(404);
    expect((await s.api('DELETE', '/api/projects/1/persons/not-a-uuid/')).status).toBe(404);
  });
});
