import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import type { Config } from '../config';
import { demoEvents, demoPersons } from '../ingest/demo-data';
import { openEventSink } from './event-sink';

export const DEMO_USAGE = 'quarry demo [--events N] [--persons N] [--project ID] [--seed N] [--key KEY]';

const CHUNK = 10_000;

/**
 * `quarry demo`: a deterministic, realistic dataset (persons with plans and countries, sessions, pageviews,
 * signups, feature usage, purchases, identify/merge traffic) over the 90 days up to today, so relative date
 * ranges such as "-7d" show data.
 */
export async function demoCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      events: { type: 'string', default: '100000' },
      persons: { type: 'string' },
      project: { type: 'string', default: '1' },
      seed: { type: 'string', default: '42' },
      key: { type: 'string' },
    },
  });
  const events = Number(values.events);
  const projectId = Number(values.project);
  if (!Number.isInteger(events) || events < 1 || !Number.isInteger(projectId) || projectId < 1) {
    console.error(`Usage: ${DEMO_USAGE}`);
    return 1;
  }
  const days = 90;
  const today = new Date();
  const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - days + 1));
  const options = {
    events,
    persons: values.persons ? Number(values.persons) : Math.max(10, Math.min(50_000, Math.round(events / 20))),
    seed: Number(values.seed),
    start,
    days,
  };
  const sink = await openEventSink(config, projectId, values.key ?? process.env.QUARRY_API_KEY);
  const bar = new cliProgress.SingleBar(
    { format: 'demo |{bar}| {value}/{total} events | {speed} ev/s | ETA {eta_formatted}', noTTYOutput: false, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let imported = 0;
  let errors = 0;
  try {
    const persons = [...demoPersons(options)];
    for (let i = 0; i < persons.length; i += CHUNK) {
      const r = await sink.send({ persons: persons.slice(i, i + CHUNK), events: [] });
      errors += r.errors.length;
    }
    bar.start(events, 0, { speed: 0 });
    let chunk: unknown[] = [];
    const flush = async () => {
      const r = await sink.send({ persons: [], events: chunk });
      imported += r.imported.events;
      errors += r.errors.length;
      chunk = [];
      bar.update(imported, { speed: Math.round(imported / Math.max(0.001, (Date.now() - started) / 1000)) });
    };
    for (const e of demoEvents(options)) {
      chunk.push(e);
      if (chunk.length >= CHUNK) await flush();
    }
    if (chunk.length) await flush();
    bar.stop();
  } finally {
    await sink.close();
  }
  console.log(
    `Demo data: ${options.persons} persons and ${imported} events in project ${projectId} ` +
      `(${start.toISOString().slice(0, 10)} to today), ${errors} errors, ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return errors ? 2 : 0;
}
