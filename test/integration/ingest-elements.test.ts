/** Autocapture elements over /batch/ through the real server on DuckDB (test/helpers/elements-capture.ts). */
import { describeElementsCapture } from '../helpers/elements-capture';
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describeElementsCapture('DuckDB', () => s);
