/** Regression: a datetime string with its own offset, read from data, is an instant, not project-local time. */
import { shutdownParser } from './index';
import { createTestDb, type TestDb } from './testing';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  db.close();
  await shutdownParser();
});

const one = async (text: string, tz: string): Promise<unknown> => (await db.query(text, { timezone: tz })).results[0][0];

describe('regression: toDateTime of a non-constant string keeps its offset', () => {
  it.each([
    // the string comes from an expression, so the printer cannot see it at print time
    ["select toDateTime(concat('2024-06-01T10:00:00', 'Z'))", 'Europe/Berlin', '2024-06-01T12:00:00+02:00'],
    ["select toDateTime(concat('2024-06-01T10:00:00', '+02:00'))", 'Europe/Berlin', '2024-06-01T10:00:00+02:00'],
    ["select toDateTime(concat('2024-06-01T10:00:00', '-05:00'))", 'UTC', '2024-06-01T15:00:00Z'],
    // no offset: project-local wall-clock time
    ["select toDateTime(concat('2024-06-01 10:00:00', ''))", 'Europe/Berlin', '2024-06-01T10:00:00+02:00'],
  ])('%s in %s → %s', async (sql, tz, expected) => {
    expect(String(await one(sql, tz)).replace('+00:00', 'Z')).toBe(expected.replace('+00:00', 'Z'));
  });
});
