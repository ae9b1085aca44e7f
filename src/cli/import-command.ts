import { parseArgs } from 'node:util';
import type { Config } from '../config';
import { importNdjsonFile, type ImportFileSummary } from '../ingest/import-file';
import { openEventSink } from './event-sink';

export const IMPORT_USAGE =
  'quarry import --project N --events FILE [--persons FILE] [--key KEY]   (NDJSON, optionally .gz; persons first)';

/** `quarry import`: streams NDJSON files of any size into a project, with a progress bar and a summary. */
export async function importCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      project: { type: 'string' },
      events: { type: 'string' },
      persons: { type: 'string' },
      key: { type: 'string' },
    },
  });
  const projectId = Number(values.project);
  if (!Number.isInteger(projectId) || projectId < 1 || (!values.events && !values.persons)) {
    console.error(`Usage: ${IMPORT_USAGE}`);
    return 1;
  }
  const sink = await openEventSink(config, projectId, values.key ?? process.env.QUARRY_API_KEY);
  let failed = false;
  try {
    for (const file of [values.persons, values.events].filter((f): f is string => !!f)) {
      console.error(`Importing ${file} into project ${projectId} (${sink.target})`);
      const summary = await importNdjsonFile(file, sink.send, { progress: process.stderr.isTTY });
      printSummary(file, summary);
      failed ||= summary.errorCount > 0;
    }
  } finally {
    await sink.close();
  }
  return failed ? 2 : 0;
}

function printSummary(file: string, s: ImportFileSummary): void {
  console.log(
    `${file}: ${s.lines} lines, imported ${s.imported.persons} persons and ${s.imported.events} events` +
      `, ${s.duplicates} duplicates skipped, ${s.errorCount} errors, ${(s.durationMs / 1000).toFixed(1)} s` +
      ` (${Math.round(s.rowsPerSecond)} rows/s)`,
  );
  for (const e of s.errors.slice(0, 20)) console.log(`  line ${e.line} (${e.kind}): ${e.message}`);
  if (s.errorCount > 20) console.log(`  … and ${s.errorCount - 20} more errors`);
}
