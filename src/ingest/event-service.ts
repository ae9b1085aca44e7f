import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { InternalStatements } from '../engines/engine';
import { notFound } from '../errors';
import type { ProjectService } from '../projects/project-service';
import { parseInput } from '../validation';
import type { ImportResult, Ingestor } from './ingestor';

/** Largest import request: rows per call (the CLI streams bigger files in chunks). */
export const MAX_IMPORT_ROWS = 100_000;

export const importInput = z
  .object({
    persons: z.array(z.unknown()).max(MAX_IMPORT_ROWS).default([]),
    events: z.array(z.unknown()).max(MAX_IMPORT_ROWS).default([]),
  })
  .strict();

/** Authenticated event operations: bulk import and deletion of persons (capture is public, by token). */
export class EventService {
  constructor(
    private readonly projects: ProjectService,
    private readonly ingestor: Ingestor,
    private readonly engine: Pick<InternalStatements, 'personExists'>,
  ) {}

  /** Imports persons, then events, through the identity rules (scope `event:write`); no `$ip` with `anonymize_ips`. */
  async import(principal: Principal, projectId: number, input: unknown): Promise<ImportResult> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'event:write' });
    const body = parseInput(importInput, input);
    return this.ingestor.import(project.id, body, { anonymizeIps: project.anonymize_ips === true });
  }

  /** Deletes a person (scope `person:write`, as PostHog's persons API); with `deleteEvents`, their events too. */
  async deletePerson(principal: Principal, projectId: number, personId: string, deleteEvents: boolean): Promise<void> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'person:write' });
    if (!z.guid().safeParse(personId).success) throw notFound();
    if (!(await this.engine.personExists(project.id, personId))) throw notFound();
    await this.ingestor.deletePerson(project.id, personId, deleteEvents);
  }
}
