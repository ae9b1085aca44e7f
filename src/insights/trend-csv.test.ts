import { slugify, trendCsv, trendCsvDisposition } from './trend-csv';

describe('slugify (Django’s, for the export file name)', () => {
  it.each([
    ['Pageview count', 'pageview-count'],
    ['  Weekly -- signups!  ', 'weekly-signups'],
    ['Café crème', 'cafe-creme'],
    ['a/b\\c"d', 'abcd'],
    ['__x__', 'x'],
  ])('%j → %j', (input, slug) => expect(slugify(input)).toBe(slug));
});

describe('trendCsv', () => {
  it('quotes cells holding commas or quotes; the header comes from the first series', () => {
    const result = [
      { label: 'a, "b"', labels: ['1-Jan-2024', '2-Jan-2024'], data: [1, 2.5], action: { custom_name: null } },
      { label: 'c', labels: ['1-Jan-2024', '2-Jan-2024'], data: [3, 4], action: { custom_name: 'named' } },
    ];
    expect(trendCsv(result)).toBe('series,1-Jan-2024,2-Jan-2024\r\n"a, ""b""",1,2.5\r\nnamed,3,4\r\n');
    expect(trendCsv([])).toBe('series\r\n');
  });

  it('the file name without a start date reads "up until"', () => {
    expect(trendCsvDisposition(undefined, { date_from: null, date_to: '2024-02-03T23:59:59+01:00' })).toBe(
      'attachment; filename="export (up until 2024-02-03) from PostHog.csv"',
    );
  });
});
