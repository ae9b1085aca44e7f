import fc from 'fast-check';
import { zonedFormatter } from '../../projects/timezone';
import { instantToLocal } from './local-time';

/** The wall clock of an instant straight from Intl (no offset remembered): what instantToLocal must equal. */
function reference(ms: number, tz: string): number {
  const f = zonedFormatter(tz);
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (((ms % 1000) + 1000) % 1000);
}

// DST both ways, half- and quarter-hour offsets, a 30-minute DST shift, zones with local-mean-time offsets in
// seconds before 1900, and a zone that skipped a whole day (Pacific/Apia, 2011-12-30).
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Europe/Amsterdam', 'Pacific/Apia', 'America/St_Johns'];
const FROM = Date.UTC(1850, 0, 1);
const TO = Date.UTC(2040, 0, 1);

describe('instantToLocal (offsets remembered per 15-minute slot)', () => {
  it.each(ZONES)('agrees with Intl around every offset change in %s, 1850–2040', (tz) => {
    let checked = 0;
    // Walk in 1-day steps; where the offset moved, bisect to the change and check its neighbourhood.
    const DAY = 86_400_000;
    const off = (ms: number) => reference(ms, tz) - ms;
    for (let t = FROM; t < TO; t += DAY) {
      if (off(t) === off(t + DAY)) continue;
      let lo = t;
      let hi = t + DAY;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (off(mid) === off(t)) lo = mid;
        else hi = mid;
      }
      for (const d of [-3_600_000, -60_000, -1, 0, 1, 60_000, 3_600_000]) {
        expect(instantToLocal(hi + d, tz)).toBe(reference(hi + d, tz));
        checked++;
      }
    }
    // every zone but UTC changed offset at least once in the span; UTC never did
    expect(checked > 0).toBe(tz !== 'UTC');
  });

  it('agrees with Intl at random instants', () => {
    fc.assert(
      fc.property(fc.integer({ min: FROM, max: TO }), fc.constantFrom(...ZONES), (ms, tz) => instantToLocal(ms, tz) === reference(ms, tz)),
      { numRuns: 3000 },
    );
  });
});
