/**
 * PostHog's persons and events API cases (posthog/api/test/test_person.py, test_event.py), second batch, on DuckDB:
 * property filters, email, names, property values, ordering and paging. The same cases run on ClickHouse in
 * persons-events-posthog-compat.clickhouse.test.ts (test/helpers/persons-events-compat.ts).
 */
import { describePersonsEventsCompat } from '../helpers/persons-events-compat';
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

describePersonsEventsCompat('DuckDB', () => s);
