import { z } from 'zod';
import { canSeeProject, requireProjectAccess, requireScope, type AccessRule } from '../auth/access';
import { newCaptureToken } from '../auth/key-material';
import { checkRegexValue } from '../limits';
import { drfBoolean } from '../insights/drf-fields';
import type { Principal } from '../auth/principal';
import { projectNotFound } from '../errors';
import { pageOf, type Page, type Paged } from '../pagination';
import { Project } from '../store/entities';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { canonicalTimezone } from './timezone';

/** DRF's ChoiceField refusal, which PostHog's team serializer gives for `timezone` and `week_start_day`. */
const invalidChoice = (ctx: z.RefinementCtx, value: unknown) =>
  ctx.addIssue({ code: 'custom', message: `"${String(value)}" is not a valid choice.`, params: { code: 'invalid_choice' } });

const timezone = z
  .string()
  .superRefine((tz, ctx) => {
    if (canonicalTimezone(tz) === undefined) invalidChoice(ctx, tz);
  })
  .transform((tz) => canonicalTimezone(tz)!);

/** 0 (Sunday) or 1 (Monday), also as text as DRF's ChoiceField reads it; anything else is an invalid choice. */
const weekStartDay = z
  .union([z.number(), z.string()])
  .superRefine((v, ctx) => {
    if (String(v) !== '0' && String(v) !== '1') invalidChoice(ctx, v);
  })
  .transform((v) => Number(v) as 0 | 1);

const projectFields = {
  name: z.string().trim().min(1).max(200),
  timezone,
  week_start_day: weekStartDay,
  // stored filters are applied leniently at query time (a malformed one is skipped), so a regex that could never run
  // is refused here, where the user can see why
  test_account_filters: z
    .array(z.record(z.string(), z.unknown()))
    .max(100)
    .superRefine((filters, ctx) =>
      filters.forEach((f, i) => {
        if (f.operator === 'regex' || f.operator === 'not_regex') checkRegexValue(f.value, ctx, [i, 'value']);
      }),
    ),
  path_cleaning_filters: z.array(z.object({ alias: z.string(), regex: z.string() }).strict()).max(100),
  // PostHog's ArrayField(CharField(max_length=400), null=True, blank=True)
  person_display_name_properties: z.array(z.string().max(400)).max(100).nullable(),
  // PostHog's BooleanField(default=False): DRF's true/false words
  anonymize_ips: drfBoolean(),
};

export const createProjectInput = z
  .object({
    name: projectFields.name,
    timezone: projectFields.timezone.default('UTC'),
    week_start_day: projectFields.week_start_day.default(0),
    test_account_filters: projectFields.test_account_filters.default([]),
    path_cleaning_filters: projectFields.path_cleaning_filters.default([]),
    person_display_name_properties: projectFields.person_display_name_properties.optional(),
    anonymize_ips: projectFields.anonymize_ips.optional(),
  })
  .strict();
export type CreateProjectInput = z.input<typeof createProjectInput>;

export const updateProjectInput = z
  .object({
    name: projectFields.name,
    timezone: projectFields.timezone,
    week_start_day: projectFields.week_start_day,
    test_account_filters: projectFields.test_account_filters,
    path_cleaning_filters: projectFields.path_cleaning_filters,
    person_display_name_properties: projectFields.person_display_name_properties,
    anonymize_ips: projectFields.anonymize_ips,
  })
  .partial()
  .strict();
export type UpdateProjectInput = z.input<typeof updateProjectInput>;

/** Removes a project's events and persons from the event engine when the project is deleted. */
export interface ProjectDataEraser {
  deleteProject(projectId: number): Promise<void>;
}

export interface ProjectView {
  id: number;
  name: string;
  timezone: string;
  week_start_day: number;
  api_token: string;
  test_account_filters: unknown[];
  path_cleaning_filters: unknown[];
  person_display_name_properties: string[] | null;
  anonymize_ips: boolean;
  created_at: string;
}

export const projectView = (p: Project): ProjectView => ({
  id: p.id,
  name: p.name,
  timezone: p.timezone,
  week_start_day: p.week_start_day,
  api_token: p.api_token,
  test_account_filters: p.test_account_filters,
  path_cleaning_filters: p.path_cleaning_filters,
  person_display_name_properties: p.person_display_name_properties ?? null,
  anonymize_ips: p.anonymize_ips === true,
  created_at: p.created_at.toISOString(),
});

/** Projects: the tenants. Every user of this instance sees every project, unless a key is restricted. */
export class ProjectService {
  private erasers: ProjectDataEraser[] = [];
  /** {@link anonymizeIpTokens}, read once and dropped by every write to a project (this service is the only writer). */
  private anonymizing: Promise<ReadonlySet<string>> | null = null;

  constructor(private readonly store: Store) {}

  /** Registers what must also be erased when a project is deleted (the event store). */
  onDelete(eraser: ProjectDataEraser): void {
    this.erasers.push(eraser);
  }

  async list(principal: Principal, page: Page): Promise<Paged<ProjectView>> {
    requireScope(principal, { scope: 'project:read', allowProjectRestrictedKey: true });
    return pageOf(await this.visibleTo(principal), page);
  }

  /** The projects a credential can reach, whatever its scopes (what `viewer` shows). */
  async visibleTo(principal: Principal): Promise<ProjectView[]> {
    const all = await this.store.projects.find({ order: { id: 'ASC' } });
    return all.filter((p) => canSeeProject(principal, p.id)).map(projectView);
  }

  /**
   * The project PostHog's `@current` names: a secret key's own project; for a personal key, the first project (by
   * id) it may reach, as Quarry's users have no "current project" setting. None → 404 Project not found.
   */
  async currentFor(principal: Principal): Promise<number> {
    if (principal.kind === 'project_secret') return principal.projectId;
    const first = (await this.visibleTo(principal))[0];
    if (!first) throw projectNotFound();
    return first.id;
  }

  async get(principal: Principal, id: number): Promise<ProjectView> {
    return projectView(await this.projectFor(principal, id, { scope: 'project:read' }));
  }

  /**
   * The entry check of every project-nested operation: scope, visibility, existence. A project the principal
   * may not see and one that does not exist give the same 404.
   */
  async projectFor(principal: Principal, id: number, rule: AccessRule): Promise<Project> {
    requireProjectAccess(principal, id, rule);
    return this.find(id);
  }

  /** The project record, for services that need its settings (timezone, week start, filters). */
  async find(id: number): Promise<Project> {
    const p = Number.isSafeInteger(id) ? await this.store.projects.findOneBy({ id }) : null;
    if (!p) throw projectNotFound();
    return p;
  }

  async findByToken(token: string): Promise<Project | null> {
    return this.store.projects.findOneBy({ api_token: token });
  }

  /**
   * The capture tokens of the projects with `anonymize_ips` on, whose events capture stores without `$ip`. Kept in
   * memory until a project is created, updated or deleted here, so capture sees a PATCH from its next request.
   */
  anonymizeIpTokens(): Promise<ReadonlySet<string>> {
    const cached = this.anonymizing;
    if (cached) return cached;
    const load: Promise<ReadonlySet<string>> = this.store.projects
      .findBy({ anonymize_ips: true })
      .then((ps) => new Set(ps.map((p) => p.api_token)));
    this.anonymizing = load;
    load.catch(() => {
      if (this.anonymizing === load) this.anonymizing = null;
    });
    return load;
  }

  async create(principal: Principal, input: unknown): Promise<ProjectView> {
    requireScope(principal, { scope: 'project:write' });
    return projectView(await this.createUnchecked(parseInput(createProjectInput, input)));
  }

  /** Creates a project without a principal: bootstrap and the CLI. */
  async createUnchecked(input: z.output<typeof createProjectInput>): Promise<Project> {
    const p = this.store.projects.create({ ...input, api_token: newCaptureToken() });
    const saved = await this.store.projects.save(p);
    this.anonymizing = null;
    return saved;
  }

  async update(principal: Principal, id: number, input: unknown): Promise<ProjectView> {
    const p = await this.projectFor(principal, id, { scope: 'project:write' });
    const changes = parseInput(updateProjectInput, input);
    Object.assign(p, changes);
    const saved = await this.store.projects.save(p);
    this.anonymizing = null;
    return projectView(saved);
  }

  async delete(principal: Principal, id: number): Promise<void> {
    const p = await this.projectFor(principal, id, { scope: 'project:write' });
    // Events first: a failure leaves the project in place, so the delete can be retried.
    for (const e of this.erasers) await e.deleteProject(p.id);
    await this.store.projects.delete({ id: p.id });
    this.anonymizing = null;
  }
}
