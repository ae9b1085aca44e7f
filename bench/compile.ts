/**
 * Parse + resolve + print of typical ProductQL queries, in process (no engine): p50 and p99 with the parse
 * cache warm (the same text again) and without it (a new text each time, so the WebAssembly parser runs).
 * Targets: p50 < 2 ms warm, < 15 ms cold.
 */
import { compileProductQL, initParser, shutdownParser } from '../src/productql';

export interface CompileTiming {
  query: string;
  warmP50Ms: number;
  warmP99Ms: number;
  coldP50Ms: number;
  coldP99Ms: number;
}

const QUERIES = [
  "SELECT toStartOfDay(timestamp) AS day, count() FROM events WHERE event = '$pageview' AND timestamp >= now() - INTERVAL 30 DAY GROUP BY day ORDER BY day",
  'SELECT properties.$browser AS browser, count(DISTINCT person_id) AS users FROM events GROUP BY browser ORDER BY users DESC LIMIT 25',
  "SELECT person.properties.plan AS plan, count() FROM events WHERE event = 'purchase' AND properties.amount > 10 GROUP BY plan",
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 1000) / 1000;
};

export async function benchCompile(runs = 200): Promise<CompileTiming[]> {
  await initParser();
  const out: CompileTiming[] = [];
  try {
    for (const q of QUERIES) {
      const compile = (text: string) => compileProductQL({ query: text, projectId: 1, timezone: 'Europe/Berlin', dialect: 'duckdb' });
      for (let i = 0; i < 20; i++) await compile(q); // warm-up
      const warm: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        await compile(q);
        warm.push(performance.now() - t);
      }
      const cold: number[] = [];
      for (let i = 0; i < Math.min(runs, 100); i++) {
        const text = q + ' '.repeat(i + 1); // a new text: misses the cache
        const t = performance.now();
        await compile(text);
        cold.push(performance.now() - t);
      }
      out.push({ query: q.slice(0, 60) + '…', warmP50Ms: pct(warm, 50), warmP99Ms: pct(warm, 99), coldP50Ms: pct(cold, 50), coldP99Ms: pct(cold, 99) });
    }
  } finally {
    await shutdownParser();
  }
  return out;
}
