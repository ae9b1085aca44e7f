import { describeCohortsCompat } from '../helpers/cohorts-compat';
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describeCohortsCompat('DuckDB', () => s);
