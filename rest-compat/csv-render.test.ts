import { chosenFormat, negotiatedFormat } from './csv-render';

describe('DRF renderer choice over a JSON then a CSV renderer', () => {
  it('format wins over Accept', () => {
    expect(chosenFormat({ format: 'json' }, 'text/csv')).toBe('json');
    expect(chosenFormat({ format: 'csv' }, 'application/json')).toBe('csv');
  });

  it('a format no renderer has is a 404', () => {
    expect(() => chosenFormat({ format: 'xml' }, 'text/csv')).toThrow(expect.objectContaining({ status: 404 }));
  });

  it.each([
    [undefined, 'json'],
    ['text/csv', 'csv'],
    // one precedence group: the renderers are tried in order, so JSON wins (DefaultContentNegotiation.select_renderer)
    ['text/csv, application/json', 'json'],
    ['application/json, text/csv', 'json'],
    // a media type with parameters is more specific than one without
    ['text/csv; charset=utf-8, application/json', 'csv'],
    // type/subtype before type/*, and */* last
    ['text/*, text/csv', 'csv'],
    ['*/*, text/csv', 'csv'],
    ['*/*', 'json'],
    // q is ignored, as DRF ignores it
    ['application/json;q=0.1, text/csv;q=0.9', 'json'],
    ['image/png', 'json'],
  ])('Accept %j renders %s', (accept, format) => {
    expect(negotiatedFormat(accept)).toBe(format);
    expect(chosenFormat({}, accept)).toBe(format);
  });
});
