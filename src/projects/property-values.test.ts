/** Property values as PostHog's values endpoints name them (posthog/api/event.py, person.py: convert_property_value). */
import { flattenValue, propertyValueName, quotedKey } from './property-values';

describe('flattenValue: the names one stored value gives', () => {
  it.each([
    ['a string', 'asdf', ['asdf']],
    ['a number', '565', ['565']],
    ['true', 'true', ['true']],
    ['false', 'false', ['false']],
    ['an array: its items', '["item1","item2"]', ['item1', 'item2']],
    ['an array of objects and numbers', '[{"b":1,"a":[2]},3,true]', ['{"a": [2], "b": 1}', '3', 'true']],
    ['an object: Python’s json.dumps(sort_keys=True)', '{"last_name":"Smith","first_name":"Mary"}', ['{"first_name": "Mary", "last_name": "Smith"}']],
    ['non-ASCII in an object is escaped as Python does', '{"k":"é😀"}', ['{"k": "\\u00e9\\ud83d\\ude00"}']],
    ['text that only looks like JSON', '[not json', ['[not json']],
  ])('%s', (_n, text, names) => {
    expect(flattenValue(text)).toEqual(names);
  });

  it('null is Python’s None', () => {
    expect(propertyValueName(null)).toBe('None');
  });
});

describe('ProductQL text pieces', () => {
  it('quotedKey: backticks double, backslashes escape', () => {
    expect(quotedKey('a`b\\c')).toBe('`a``b\\\\c`');
  });
});
