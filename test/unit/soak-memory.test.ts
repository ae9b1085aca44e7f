import { anonBreakdown, cpuSecondsOf, FLAT_MB_PER_MIN, minusEngine, procStatus, rssVerdict } from '../../bench/soak';

const MB = 1024; // kB

/** One /proc/<pid>/smaps entry (only the fields anonBreakdown reads). */
const entry = (start: number, end: number, perms: string, name: string, rssKb: number) =>
  `${start.toString(16)}-${end.toString(16)} ${perms} 00000000 00:00 0          ${name}\nSize:  ${(end - start) / 1024} kB\nRss:  ${rssKb} kB\n`;

describe('soak memory attribution', () => {
  const A = 64 * 2 ** 20;
  it('splits anonymous RSS into glibc main heap, glibc thread arenas and the rest', () => {
    const smaps = [
      entry(0x400000, 0x500000, 'r-xp', '/usr/bin/node', 900), // file-backed: not counted
      entry(0x1000000, 0x3000000, 'rw-p', '[heap]', 20 * MB),
      // a thread arena: 64 MB-aligned, 8 MB usable + 56 MB PROT_NONE reservation right after it
      entry(3 * A, 3 * A + 8 * 2 ** 20, 'rw-p', '', 6 * MB),
      entry(3 * A + 8 * 2 ** 20, 4 * A, '---p', '', 0),
      // a whole 64 MB arena in use
      entry(5 * A, 6 * A, 'rw-p', '', 30 * MB),
      // aligned but bigger than an arena (e.g. a V8 or jemalloc mapping): not an arena
      entry(8 * A, 8 * A + 128 * 2 ** 20, 'rw-p', '', 100 * MB),
      // unaligned anonymous mapping
      entry(9 * A + 4096, 9 * A + 4096 + 2 ** 20, 'rw-p', '', 1 * MB),
      entry(0x7ffd0000, 0x7ffe0000, 'rw-p', '[stack]', 64),
    ].join('');
    expect(anonBreakdown(smaps)).toEqual({ glibcMainHeap: 20, glibcArenas: 36, otherAnon: 101, arenaCount: 2 });
  });

  it('reads RSS, threads and CPU time of a live process from /proc', () => {
    if (process.platform !== 'linux') return;
    const st = procStatus(process.pid)!;
    expect(st.rss).toBeGreaterThan(0);
    expect(st.rssAnon + st.rssFile).toBeLessThanOrEqual(st.rss + 1);
    expect(st.threads).toBeGreaterThanOrEqual(1);
    expect(cpuSecondsOf(process.pid)).toBeGreaterThan(0);
    expect(procStatus(2 ** 30)).toBeNull();
  });
});

describe('soak RSS verdict', () => {
  /** 1 s samples over `seconds` from a function of the second. */
  const samples = (seconds: number, f: (t: number) => number): [number, number][] => Array.from({ length: seconds }, (_, t) => [t, f(t)]);

  it('a straight line is not flat: the last quarter sits above the third by the slope', () => {
    const v = rssVerdict(samples(600, (t) => 300 + (30 * t) / 60), 600);
    expect(v.flat).toBe(false);
    expect(v.lastQuarterMBPerMin).toBeCloseTo(30, 0);
  });

  it('growth that levels off in the second half is flat', () => {
    const v = rssVerdict(samples(600, (t) => 300 + 150 * Math.min(1, t / 240)), 600);
    expect(v.flat).toBe(true);
    expect(v.quarterP95MB[0]).toBeLessThan(v.quarterP95MB[3]!);
    expect(v.lastQuarterMBPerMin).toBe(0);
  });

  it('a sawtooth (memory released at each checkpoint) around a level is flat, whatever its phase', () => {
    for (const phase of [0, 37, 80, 111]) {
      const v = rssVerdict(samples(600, (t) => 400 + (((t + phase) % 150) / 150) * 60), 600);
      expect(v.flat).toBe(true);
    }
  });

  it('a sawtooth whose level rises is not flat', () => {
    const v = rssVerdict(samples(600, (t) => 400 + ((t % 150) / 150) * 60 + (10 * t) / 60), 600);
    expect(v.flat).toBe(false);
  });

  it('one spike in the last quarter does not decide it', () => {
    const v = rssVerdict(samples(600, (t) => (t === 590 ? 900 : 420)), 600);
    expect(v.flat).toBe(true);
  });

  it('judges against the stated threshold, and not at all on short runs', () => {
    const line = (mbPerMin: number) => samples(600, (t) => 300 + (mbPerMin * t) / 60);
    expect(rssVerdict(line(FLAT_MB_PER_MIN * 0.8), 600).flat).toBe(true);
    expect(rssVerdict(line(FLAT_MB_PER_MIN * 1.5), 600).flat).toBe(false);
    expect(rssVerdict(line(5), 600, 6).flat).toBe(true);
    const short = rssVerdict(samples(120, (t) => 300 + t), 120);
    expect(short.flat).toBeNull();
    expect(short.lastQuarterMBPerMin).not.toBeNull();
  });
});

describe('soak RSS minus the engine', () => {
  it('subtracts the engine sample taken at the same moment and skips moments without one', () => {
    expect(
      minusEngine(
        [
          [5, 300],
          [10, 320.5],
          [15, 330],
        ],
        [
          [5, 20],
          [15, 45.2],
        ],
      ),
    ).toEqual([
      [5, 280],
      [15, 284.8],
    ]);
  });

  it('RSS that grows only by what the engine holds is flat once the engine is taken out', () => {
    const engine: [number, number][] = Array.from({ length: 120 }, (_, i) => [i * 5, 20 + i * 0.5]);
    const rss: [number, number][] = engine.map(([t, e]) => [t, 300 + e]);
    expect(rssVerdict(rss, 600).flat).toBe(false);
    expect(rssVerdict(minusEngine(rss, engine), 600).flat).toBe(true);
  });
});
