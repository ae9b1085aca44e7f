/**
 * elements_chain at ingestion: PostHog's `elements_to_string` (posthog/models/element/test/test_element.py and the
 * plugin-server's elements-chain test, same expected text) and its capture-side conversion of posthog-js's
 * `$elements` (plugin-server `extractElements` / `getElementsChain`), through normalizeEvent.
 */
import { CaptureError, normalizeEvent } from './capture-payload';
import { chainFromCaptureElements, chainToElements, elementsToString, MAX_ELEMENTS_CHAIN_CHARS, takeElementsChain } from './elements-chain';

describe('elementsToString', () => {
  it("test_elements_to_string: classes sorted, attributes sorted by key, quotes escaped, ';' between elements", () => {
    const chain = elementsToString([
      {
        tag_name: 'a',
        href: '/a-url',
        attr_class: ['small'],
        text: 'bla bla',
        attributes: { prop: 'value', number: '33', 'data-attr': 'something " that; could mess up', style: 'min-height: 100vh;' },
        nth_child: 1,
        nth_of_type: 0,
      },
      { tag_name: 'button', attr_class: ['btn', 'btn-primary'], nth_child: 0, nth_of_type: 0 },
      { tag_name: 'div', nth_child: 0, nth_of_type: 0 },
      { tag_name: 'div', nth_child: 0, nth_of_type: 0, attr_id: 'nested' },
    ]);
    expect(chain).toBe(
      [
        'a.small:data-attr="something \\" that; could mess up"href="/a-url"nth-child="1"nth-of-type="0"number="33"prop="value"style="min-height: 100vh;"text="bla bla"',
        'button.btn.btn-primary:nth-child="0"nth-of-type="0"',
        'div:nth-child="0"nth-of-type="0"',
        'div:attr_id="nested"nth-child="0"nth-of-type="0"',
      ].join(';'),
    );
  });

  it.each<[string, Parameters<typeof elementsToString>[0], string]>([
    ['missing nth values print as 0, no tag name leaves the name empty', [{ attr_class: ['x'] }], '.x:nth-child="0"nth-of-type="0"'],
    ['classes sort by code point and lose their quotes', [{ tag_name: 'p', attr_class: ['b"q', 'B', 'a'] }], 'p.B.a.bq:nth-child="0"nth-of-type="0"'],
    ['empty text and href are left out', [{ tag_name: 'a', text: '', href: '' }], 'a:nth-child="0"nth-of-type="0"'],
    ['attribute keys are escaped too', [{ tag_name: 'i', attributes: { 'k"': 'v' } }], 'i:k\\"="v"nth-child="0"nth-of-type="0"'],
    ['no elements: empty chain', [], ''],
  ])('%s', (_n, elements, expected) => {
    expect(elementsToString(elements)).toBe(expected);
  });
});

describe('chainToElements (PostHog chain_to_elements, as the events API shows elements)', () => {
  it('test_elements_to_string read back: tag, classes, href, nth values, other attributes as stored, order', () => {
    const chain = elementsToString([
      {
        tag_name: 'a',
        href: '/a-url',
        attr_class: ['small'],
        text: 'bla bla',
        attributes: { prop: 'value', number: '33', 'data-attr': 'something " that; could mess up', style: 'min-height: 100vh;' },
        nth_child: 1,
        nth_of_type: 0,
      },
      { tag_name: 'button', attr_class: ['btn', 'btn-primary'], nth_child: 0, nth_of_type: 0 },
      { tag_name: 'div', nth_child: 0, nth_of_type: 0 },
      { tag_name: 'div', nth_child: 0, nth_of_type: 0, attr_id: 'nested' },
    ]);
    const elements = chainToElements(chain);
    expect(elements).toHaveLength(4);
    expect(elements[0]).toEqual({
      text: 'bla bla',
      tag_name: 'a',
      attr_class: ['small'],
      href: '/a-url',
      attr_id: null,
      nth_child: 1,
      nth_of_type: 0,
      attributes: { prop: 'value', number: '33', 'data-attr': 'something \\" that; could mess up', style: 'min-height: 100vh;' },
      order: 0,
    });
    expect(elements[1]).toMatchObject({ tag_name: 'button', attr_class: ['btn', 'btn-primary'], order: 1, attributes: {} });
    expect(elements[2]).toMatchObject({ tag_name: 'div', attr_class: null, nth_child: 0, order: 2 });
    expect(elements[3]).toMatchObject({ tag_name: 'div', attr_id: 'nested', order: 3 });
  });

  it.each([null, undefined, ''])('no chain (%p) → no elements', (c) => {
    expect(chainToElements(c)).toEqual([]);
  });
});

describe("posthog-js $elements → chain (PostHog's capture-side conversion)", () => {
  it('attr__* keys are kept as attributes; $el_text → text, attr__href → href, attr__id → attr_id, attr__class split and sorted', () => {
    expect(
      chainFromCaptureElements([
        { tag_name: 'a', $el_text: 'Insights', attr__href: '/insights', attr__class: 'text-default btn', nth_child: 2, nth_of_type: 1 },
        { tag_name: 'div', nth_child: 1, nth_of_type: 2, $el_text: '💻', attr__id: 'root' },
      ]),
    ).toBe(
      'a.btn.text-default:attr__class="text-default btn"attr__href="/insights"href="/insights"nth-child="2"nth-of-type="1"text="Insights";' +
        'div:attr__id="root"attr_id="root"nth-child="1"nth-of-type="2"text="💻"',
    );
  });

  it('plugin-server process-event: $elements with attr__class "btn btn-sm"', () => {
    expect(
      chainFromCaptureElements([
        { tag_name: 'a', nth_child: 1, nth_of_type: 2, attr__class: 'btn btn-sm' },
        { tag_name: 'div', nth_child: 1, nth_of_type: 2, $el_text: '💻' },
      ]),
    ).toBe('a.btn.btn-sm:attr__class="btn btn-sm"nth-child="1"nth-of-type="2";div:nth-child="1"nth-of-type="2"text="💻"');
  });

  it('text is cut to 400 characters and href to 2048 (the attr__href attribute stays whole)', () => {
    const chain = chainFromCaptureElements([{ tag_name: 'a', $el_text: 't'.repeat(500), attr__href: 'h'.repeat(3000) }])!;
    expect(chain).toContain(`text="${'t'.repeat(400)}"`);
    expect(chain).not.toContain('t'.repeat(401));
    expect(chain).toContain(`href="${'h'.repeat(2048)}"n`);
    expect(chain).toContain(`attr__href="${'h'.repeat(3000)}"`);
  });

  it('an attr__class array is taken as the class list', () => {
    expect(chainFromCaptureElements([{ tag_name: 'b', attr__class: ['z', 'y'] }])).toBe('b.y.z:attr__class="z,y"nth-child="0"nth-of-type="0"');
  });

  it.each<[string, unknown, string | null]>([
    ['not an array', { tag_name: 'a' }, null],
    ['a string', 'a.b:nth-child="1"', null],
    ['an empty array', [], null],
    ['items that are not objects are skipped', [null, 3, 'x', ['y'], { tag_name: 'a' }], 'a:nth-child="0"nth-of-type="0"'],
    ['null attribute values are left out, numbers become text', [{ tag_name: 7, attr__x: null, attr__n: 5, nth_child: {} }], '7:attr__n="5"nth-child="0"nth-of-type="0"'],
  ])('bad shapes are ignored, never a crash: %s', (_n, elements, expected) => {
    expect(chainFromCaptureElements(elements)).toBe(expected);
  });

  it(`a chain is at most ${MAX_ELEMENTS_CHAIN_CHARS} characters: whole elements past the limit are dropped, innermost kept`, () => {
    const many = Array.from({ length: 2000 }, (_, i) => ({ tag_name: 'div', $el_text: `${i}`.padEnd(100, 'x') }));
    const chain = chainFromCaptureElements(many)!;
    expect(chain.length).toBeLessThanOrEqual(MAX_ELEMENTS_CHAIN_CHARS);
    expect(chain.startsWith('div:nth-child="0"nth-of-type="0"text="0x')).toBe(true);
    expect(chain.endsWith('"')).toBe(true);
    const sent = 'a:nth-child="1";'.repeat(MAX_ELEMENTS_CHAIN_CHARS / 8);
    const props: Record<string, unknown> = { $elements_chain: sent };
    const kept = takeElementsChain(props)!;
    expect(kept.length).toBeLessThanOrEqual(MAX_ELEMENTS_CHAIN_CHARS);
    expect(sent.startsWith(kept) && kept.endsWith('"')).toBe(true);
    expect(takeElementsChain({ $elements_chain: 'x'.repeat(MAX_ELEMENTS_CHAIN_CHARS + 1) })).toBeNull();
  });
});

describe('normalizeEvent: the chain column and the stored properties', () => {
  const now = Date.parse('2024-01-08T12:00:00Z');
  const norm = (properties: Record<string, unknown>) => normalizeEvent({ event: '$autocapture', distinct_id: 'd', properties }, { now });

  it('$elements becomes elements_chain and leaves the properties (PostHog deletes $elements and $elements_chain)', () => {
    const properties = { $current_url: 'https://x.test/', $elements: [{ tag_name: 'button', $el_text: 'Go', nth_child: 1, nth_of_type: 1 }] };
    const e = norm(properties);
    expect(e.elements_chain).toBe('button:nth-child="1"nth-of-type="1"text="Go"');
    expect(JSON.parse(e.propertiesJson)).toEqual({ $current_url: 'https://x.test/' });
    expect(e.properties).not.toHaveProperty('$elements');
    // the sender's object is not changed
    expect(properties.$elements).toHaveLength(1);
  });

  it('a string $elements_chain is the chain as sent, and wins over $elements', () => {
    const e = norm({ $elements_chain: 'a:href="/x"nth-child="1"nth-of-type="0"', $elements: [{ tag_name: 'div' }] });
    expect(e.elements_chain).toBe('a:href="/x"nth-child="1"nth-of-type="0"');
    expect(JSON.parse(e.propertiesJson)).toEqual({});
  });

  it.each<[string, Record<string, unknown>]>([
    ['an empty $elements_chain and no $elements', { $elements_chain: '' }],
    ['a non-string $elements_chain', { $elements_chain: 42 }],
    ['a non-array $elements', { $elements: 'div' }],
    ['no elements at all', { a: 1 }],
  ])('no chain (null) for %s; the keys are still removed', (_n, props) => {
    const e = norm(props);
    expect(e.elements_chain).toBeNull();
    expect(Object.keys(JSON.parse(e.propertiesJson))).toEqual(Object.keys(props).filter((k) => !k.startsWith('$elements')));
  });

  it('an empty $elements_chain falls back to $elements, as PostHog (a truthiness test)', () => {
    expect(norm({ $elements_chain: '', $elements: [{ tag_name: 'a' }] }).elements_chain).toBe('a:nth-child="0"nth-of-type="0"');
  });

  it('the chain counts toward the 1 MiB event size (413 past it)', () => {
    const big = Array.from({ length: 600 }, () => ({ tag_name: 'div', attr__data: 'x'.repeat(1000) }));
    expect(() => norm({ $elements: big, pad: 'y'.repeat(1024 * 1024 - 30_000) })).toThrow(CaptureError);
  });
});
