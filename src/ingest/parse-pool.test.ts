import os from 'node:os';
import { defaultParseWorkers } from './parse-pool';

describe('defaultParseWorkers', () => {
  it('follows QUARRY_CAPTURE_PARSE_WORKERS when set', () => {
    expect(defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: '0' })).toBe(0);
    expect(defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: ' 2 ' })).toBe(2);
  });

  it('otherwise goes by CPU count: inline below 4 CPUs, else min(4, CPUs - 2)', () => {
    const n = os.cpus().length;
    const want = n < 4 ? 0 : Math.min(4, n - 2);
    expect(defaultParseWorkers({})).toBe(want);
    expect(defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: '' })).toBe(want);
  });

  it.each(['-1', '17', '1.5', 'many'])('refuses QUARRY_CAPTURE_PARSE_WORKERS=%p', (v) => {
    expect(() => defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: v })).toThrow(/QUARRY_CAPTURE_PARSE_WORKERS/);
  });
});
