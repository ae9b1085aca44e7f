/**
 * The engine-dependent cases of rest-posthog-compat-4.test.ts (PostHog's test_person.py), for one engine: they read
 * ProductQL's persons table, so they must answer the same on DuckDB (rest-posthog-compat-4.test.ts) and ClickHouse
 * (rest-posthog-compat-4.clickhouse.test.ts).
 */
import { newKey, newProject, type TestServer } from './server';

export function describeRestCompat4Persons(engine: string, server: () => TestServer): void {
  let s: TestServer;
  beforeAll(() => {
    s = server();
  });

  describe(`person property names (test_person.py) on ${engine}`, () => {
    it('test_person_property_names: [{name, count}], most common first, then by name; only this project’s persons', async () => {
      const p = await newProject(s, 'person-property-names');
      const other = await newProject(s, 'person-property-names-other');
      await s.server.services.ingestor.import(p, {
        persons: [
          { distinct_ids: ['a'], properties: { $browser: 'whatever', $os: 'Mac OS X' } },
          { distinct_ids: ['b'], properties: { random_prop: 'asdf' } },
          { distinct_ids: ['c'], properties: { random_prop: 'asdf' } },
          { distinct_ids: ['d'], properties: {} },
        ],
      });
      await s.server.services.ingestor.import(other, { persons: [{ distinct_ids: ['x'], properties: { secret_prop: 1, random_prop: 2 } }] });
      await s.server.services.ingestor.flush();
      const r = await s.api('GET', `/api/projects/${p}/persons/properties/`);
      expect([r.status, r.body?.detail]).toEqual([200, undefined]);
      expect(r.body).toEqual([
        { name: 'random_prop', count: 2 },
        { name: '$browser', count: 1 },
        { name: '$os', count: 1 },
      ]);
      // a project without persons has no property names
      const empty = await newProject(s, 'person-property-names-empty');
      expect((await s.api('GET', `/api/projects/${empty}/persons/properties/`)).body).toEqual([]);
    });

    it('scope person:read', async () => {
      const p = await newProject(s, 'person-property-names-scope');
      expect((await s.api('GET', `/api/projects/${p}/persons/properties/`, undefined, await newKey(s, ['insight:read']))).status).toBe(403);
      expect((await s.api('GET', `/api/projects/${p}/persons/properties/`, undefined, await newKey(s, ['person:read']))).status).toBe(200);
    });
  });
}
