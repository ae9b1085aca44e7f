import { describeActionCohortsCompat } from '../helpers/action-cohorts-compat';
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describeActionCohortsCompat('DuckDB', () => s);
