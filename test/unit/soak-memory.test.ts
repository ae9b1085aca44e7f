import { anonBreakdown, cpuSecondsOf, procStatus } from '../../bench/soak';

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
