import { spawnSync } from 'node:child_process';
import { applyHeapGrowth, applyScavenger } from './runtime-tuning';

/**
 * A child process that applies `flag` at runtime (as `serve` does), holds ~40 MB of live objects and then churns
 * short-lived garbage for a fixed amount of work; prints its largest committed heap (MB) and stderr.
 */
function peakHeapWith(flag: string | null): { peakMB: number; stderr: string } {
  const script = `
    const v8 = require('v8');
    if (${JSON.stringify(flag)}) v8.setFlagsFromString(${JSON.stringify(flag)});
    const live = [];
    for (let i = 0; i < 400000; i++) live.push({ a: 'x' + i, b: i, c: [i, i + 1] });
    const ring = new Array(50000);
    let peak = 0;
    for (let j = 0; j < 6000000; j++) {
      ring[j % ring.length] = { s: 'y' + j, arr: [j, j, j, j, j, j, j, j] };
      if (j % 10000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    console.log(Math.round(peak / 1048576), live.length);
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return { peakMB: Number(r.stdout.trim().split(' ')[0]), stderr: r.stderr };
}

describe('applyHeapGrowth', () => {
  it('sets V8 --heap-growing-percent', () => {
    const flags: string[] = [];
    expect(applyHeapGrowth(100, (f) => flags.push(f))).toBe('--heap-growing-percent=100');
    expect(flags).toEqual(['--heap-growing-percent=100']);
  });

  it('leaves V8 alone at 0', () => {
    const flags: string[] = [];
    expect(applyHeapGrowth(0, (f) => flags.push(f))).toBeNull();
    expect(flags).toEqual([]);
  });

  it.each([-1, 1.5, Number.NaN])('refuses %p', (p) => {
    expect(() => applyHeapGrowth(p, () => undefined)).toThrow(/non-negative integer/);
  });

  it('is a flag this V8 knows, and set at runtime it bounds the heap (10% vs 300% growth)', () => {
    const flag = (p: number) => applyHeapGrowth(p, () => undefined);
    const tight = peakHeapWith(flag(10));
    const loose = peakHeapWith(flag(300));
    // An unknown flag is not an exception: V8 prints "unrecognized flag" and goes on.
    expect(tight.stderr).toBe('');
    expect(loose.stderr).toBe('');
    expect(tight.peakMB).toBeLessThan(loose.peakMB * 0.7);
  });
});

describe('applyScavenger', () => {
  const applied = (mode: 'auto' | 'on' | 'off', cpus: number) => {
    const flags: string[] = [];
    return { flag: applyScavenger(mode, cpus, (f) => flags.push(f)), flags };
  };

  it('auto: off below 4 CPUs, V8 left alone from 4', () => {
    expect(applied('auto', 2)).toEqual({ flag: '--no-parallel-scavenge', flags: ['--no-parallel-scavenge'] });
    expect(applied('auto', 4)).toEqual({ flag: null, flags: [] });
  });

  it('on and off whatever the CPUs', () => {
    expect(applied('on', 2)).toEqual({ flag: null, flags: [] });
    expect(applied('off', 16)).toEqual({ flag: '--no-parallel-scavenge', flags: ['--no-parallel-scavenge'] });
  });

  it('is a flag this V8 knows (set at runtime, no "unrecognized flag" warning)', () => {
    const r = spawnSync(process.execPath, ['-e', "require('v8').setFlagsFromString('--no-parallel-scavenge'); const a = []; for (let i = 0; i < 1e6; i++) a[i % 1000] = { i }; console.log('ok')"], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('ok');
    expect(r.stderr).toBe('');
  });
});
