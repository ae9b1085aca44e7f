import { In } from 'typeorm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { checkRegexValue } from '../limits';
import { notFound, parseError, UserError, validationError } from '../errors';
import { selectorToExpr } from '../queries/insights/element-filters';
import type { Page, Paged } from '../pagination';
import type { ProjectService } from '../projects/project-service';
import { usersById, type UserBasic } from '../insights/activity';
import { drfTime } from '../projects/person-reader';
import { anyPropertyFilterSchema } from '../queries/insights/schema';
import { Action } from '../store/entities';
import type { ActionStep } from '../store/entities/action';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { drfBoolean, drfChar } from '../insights/drf-fields';
import type { ActionDef, ActionSource } from './matching';

const MATCHING = ['contains', 'regex', 'exact'] as const;
/** DRF's ChoiceField (PostHog's ActionStepJSONSerializer `*_matching`): anything else is `"<value>" is not a valid choice.` */
const matchingSchema = z.custom<(typeof MATCHING)[number] | null | undefined>().superRefine((v, ctx) => {
  if (v !== null && v !== undefined && !(MATCHING as readonly unknown[]).includes(v))
    ctx.addIssue({ code: 'custom', message: `"${String(v)}" is not a valid choice.`, params: { code: 'invalid_choice' } });
});
/**
 * A step's CharField(required=False, allow_null=True, allow_blank=True) as DRF reads it: text, or a number as its text;
 * a boolean, list or object is "Not a valid string."; trimmed (DRF's trim_whitespace) but for `event`, which PostHog
 * declares with trim_whitespace=False (test_create_action_event_with_space).
 */
const optText = (trim = true) =>
  z.unknown().transform((v, ctx): string | null | undefined => {
    if (v === null || v === undefined) return v;
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return trim ? String(v).trim() : String(v);
    ctx.addIssue({ code: 'custom', message: 'Not a valid string.', params: { code: 'invalid_input' } });
    return z.NEVER;
  });

/**
 * One step (PostHog's ActionStepJSONSerializer): every field optional, unknown keys ignored. Property filters are
 * validated as series filters and stored as sent.
 */
const stepSchema = z
  .object({
    event: optText(false),
    properties: z
      .array(z.record(z.string(), z.unknown()))
      .nullish()
      .superRefine((props, ctx) => {
        for (const [i, p] of (props ?? []).entries()) {
          const r = anyPropertyFilterSchema.safeParse(p);
          if (!r.success) {
            const issue = r.error.issues[0];
            ctx.addIssue({ code: 'custom', message: issue.message, path: [i, ...issue.path.map((x) => x as string | number)] });
          }
        }
      }),
    selector: optText(),
    tag_name: optText(),
    text: optText(),
    text_matching: matchingSchema,
    href: optText(),
    href_matching: matchingSchema,
    url: optText(),
    url_matching: matchingSchema,
  })
  .superRefine((s, ctx) => {
    // a regex the engine could not compile is a 400 now rather than on every query of the action
    if (s.url_matching === 'regex' && s.url) checkRegexValue(s.url, ctx, ['url']);
    if (s.text_matching === 'regex' && s.text) checkRegexValue(s.text, ctx, ['text']);
    if (s.href_matching === 'regex' && s.href) checkRegexValue(s.href, ctx, ['href']);
    // likewise a selector of an $autocapture step (the only steps whose element fields count) Quarry cannot match
    if (s.event === '$autocapture' && s.selector) {
      try {
        selectorToExpr(s.selector, { attr: 'selector' });
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: e instanceof UserError ? e.message : 'Invalid selector.', path: ['selector'] });
      }
    }
  });

/** DRF's DateTimeField (`pinned_at`, nullable): an ISO 8601 datetime; "" is no pin (ActionSerializer.validate). */
const pinnedAt = z.unknown().transform((v, ctx) => {
  if (v === null || v === '') return v;
  if (typeof v === 'string' && z.iso.datetime({ offset: true, local: true }).safeParse(v).success) return v;
  ctx.addIssue({ code: 'custom', message: 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', params: { code: 'invalid_input' } });
  return z.NEVER;
});

/** A model CharField/TextField without `null=True` as DRF reads it: null is DRF's `null`, else {@link drfChar}. */
const nonNullText = (max: number) =>
  z
    .unknown()
    .superRefine((v, ctx) => {
      if (v === null) ctx.addIssue({ code: 'custom', message: 'This field may not be null.', params: { code: 'null' }, abort: true });
    })
    .pipe(drfChar(max));

/**
 * ActionSerializer's writable fields as DRF reads them from the model: `name` CharField(max_length=400, null=True),
 * `description` TextField(blank=True, default="") and `slack_message_format` CharField(max_length=1200, default="")
 * (text, trimmed, never null), `post_to_slack`/`deleted` BooleanFields (DRF's true/false words), `pinned_at`.
 */
const actionBody = z.object({
  name: drfChar(400).nullable().optional(),
  description: nonNullText(Number.MAX_SAFE_INTEGER).optional(),
  tags: z
    .array(z.string().trim().min(1, 'A tag may not be blank.').max(255, 'Ensure this field has no more than 255 characters.'))
    .max(100, 'An action has at most 100 tags.')
    .optional(),
  post_to_slack: drfBoolean().optional(),
  slack_message_format: nonNullText(1200).optional(),
  steps: z.array(stepSchema).max(100, 'An action has at most 100 steps.').nullish(),
  deleted: drfBoolean().optional(),
  pinned_at: pinnedAt.optional(),
});
type ActionBody = z.output<typeof actionBody>;

/** PostHog's ActionSerializer fields; datetimes as DRF renders them (UTC `Z`, microseconds when there are any). */
export interface ActionView {
  id: number;
  name: string | null;
  description: string;
  tags: string[];
  post_to_slack: boolean;
  slack_message_format: string;
  steps: ActionStep[];
  created_at: string;
  created_by: UserBasic | null;
  updated_at: string;
  deleted: boolean;
  is_calculating: false;
  last_calculated_at: string;
  team_id: number;
  is_action: true;
  bytecode_error: null;
  pinned_at: string | null;
  creation_context: null;
  user_access_level: string;
}

/** A step as stored and shown: every field present, absent ones null; `url_matching` defaults to `contains`. */
function normalizeStep(s: z.output<typeof stepSchema>): ActionStep {
  return {
    event: s.event ?? null,
    properties: s.properties ?? [],
    selector: s.selector ?? null,
    tag_name: s.tag_name ?? null,
    text: s.text ?? null,
    text_matching: s.text_matching ?? null,
    href: s.href ?? null,
    href_matching: s.href_matching ?? null,
    url: s.url ?? null,
    url_matching: s.url_matching ?? 'contains',
  };
}

function parseBody(input: unknown): ActionBody {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw parseError('The request body must be a JSON object.');
  }
  return parseInput(actionBody, input);
}

const userOf = (p: Principal): number | null => (p.kind === 'personal' ? p.userId : null);
const normalizeTags = (tags: string[]): string[] => [...new Set(tags.map((t) => t.trim()))];

/**
 * Live actions first by pin (most recent first), then as PostHog's ActionViewSet orders them (`-last_calculated_at`,
 * `name`: the newest first, as nothing recalculates an action any more), then by id.
 */
function compareActions(a: Action, b: Action): number {
  const pa = a.pinned_at?.getTime() ?? null;
  const pb = b.pinned_at?.getTime() ?? null;
  if (pa !== pb) return pa === null ? 1 : pb === null ? -1 : pb - pa;
  const ca = a.created_at.getTime();
  const cb = b.created_at.getTime();
  if (ca !== cb) return cb - ca;
  const na = a.name ?? '';
  const nb = b.name ?? '';
  if (na !== nb) return na < nb ? -1 : 1;
  return a.id - b.id;
}

/**
 * Actions: saved event definitions of a project (PostHog's `/api/projects/<id>/actions/`), each an OR of steps, used
 * by ActionsNode series. Scopes `action:read` / `action:write`; soft delete (`deleted: true`); a name is unique among
 * the live actions of a project. It is also the source the query runners read actions from (RunnerContext.actions); a
 * change to an action drops the project's cached results, which may have been computed with the old definition.
 */
export class ActionService implements ActionSource {
  constructor(
    private readonly store: Store,
    private readonly projects: ProjectService,
    /** Called after every change to an action of the project (the services drop the project's cached results). */
    private readonly onChange: (projectId: number) => void = () => {},
  ) {}

  private get actions() {
    return this.store.db.getRepository(Action);
  }

  /** `GET …/actions/`: the live actions of the project; all of them without `page` (PostHog's list is not paginated). */
  async list(principal: Principal, projectId: number, page?: Page): Promise<Paged<ActionView>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'action:read' });
    const all = (await this.actions.find({ where: { project_id: project.id, deleted: false } })).sort(compareActions);
    const slice = page ? all.slice(page.offset, page.offset + page.limit) : all;
    const users = await this.users(slice.map((a) => a.created_by_id));
    return { count: all.length, results: slice.map((a) => this.view(a, users)) };
  }

  /** `GET …/actions/<id>/` (a deleted action too, as PostHog: it can be restored). */
  async get(principal: Principal, projectId: number, ref: string): Promise<ActionView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'action:read' });
    const action = await this.find(project.id, ref);
    return this.view(action, await this.users([action.created_by_id]));
  }

  /** `POST …/actions/` (201). */
  async create(principal: Principal, projectId: number, input: unknown): Promise<ActionView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'action:write' });
    const body = parseBody(input);
    if (!body.deleted) await this.checkUniqueName(project.id, body.name, null);
    const now = new Date();
    const action = this.actions.create({
      project_id: project.id,
      name: body.name ?? null,
      description: body.description ?? '',
      steps: (body.steps ?? []).map(normalizeStep),
      tags: normalizeTags(body.tags ?? []),
      post_to_slack: body.post_to_slack ?? false,
      slack_message_format: body.slack_message_format ?? '',
      pinned_at: body.pinned_at ? new Date(body.pinned_at) : null,
      deleted: body.deleted ?? false,
      created_at: now,
      created_by_id: userOf(principal),
      updated_at: now,
    });
    const saved = await this.actions.save(action);
    this.onChange(project.id);
    return this.view(saved, await this.users([saved.created_by_id]));
  }

  /** `PATCH` / `PUT …/actions/<id>/`: the fields given change (steps are replaced as a whole); `deleted` soft-deletes or restores. */
  async update(principal: Principal, projectId: number, ref: string, input: unknown): Promise<ActionView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'action:write' });
    const body = parseBody(input);
    const action = await this.find(project.id, ref);
    const name = body.name !== undefined ? body.name : action.name;
    const deleted = body.deleted ?? action.deleted;
    // the name must stay unique among live actions: checked when it changes or the action comes back
    if (!deleted && (body.name !== undefined || (action.deleted && body.deleted === false))) await this.checkUniqueName(project.id, name, action.id);
    if (body.name !== undefined) action.name = body.name;
    if (body.description !== undefined) action.description = body.description ?? '';
    if (body.steps !== undefined) action.steps = (body.steps ?? []).map(normalizeStep);
    if (body.tags !== undefined) action.tags = normalizeTags(body.tags);
    if (body.post_to_slack !== undefined) action.post_to_slack = body.post_to_slack;
    if (body.slack_message_format !== undefined) action.slack_message_format = body.slack_message_format ?? '';
    if (body.pinned_at !== undefined) action.pinned_at = body.pinned_at ? new Date(body.pinned_at) : null;
    action.deleted = deleted;
    action.updated_at = new Date();
    const saved = await this.actions.save(action);
    this.onChange(project.id);
    return this.view(saved, await this.users([saved.created_by_id]));
  }

  /** {@link ActionSource}: the live actions of the project among `ids` (never another project's). */
  async liveActions(projectId: number, ids: number[]): Promise<Map<number, ActionDef>> {
    const wanted = ids.filter((id) => Number.isSafeInteger(id));
    if (!wanted.length) return new Map();
    const rows = await this.actions.findBy({ project_id: projectId, deleted: false, id: In(wanted) });
    return new Map(rows.map((a) => [a.id, { id: a.id, name: a.name, steps: a.steps }]));
  }

  /** {@link ActionSource}: the live actions of the project named one of `names`. */
  async liveActionsByName(projectId: number, names: string[]): Promise<ActionDef[]> {
    if (!names.length) return [];
    const rows = await this.actions.findBy({ project_id: projectId, deleted: false, name: In(names) });
    return rows.map((a) => ({ id: a.id, name: a.name, steps: a.steps }));
  }

  private async find(projectId: number, ref: string): Promise<Action> {
    const id = /^\d{1,15}$/.test(ref) ? Number(ref) : NaN;
    const action = Number.isSafeInteger(id) ? await this.actions.findOneBy({ id, project_id: projectId }) : null;
    if (!action) throw notFound();
    return action;
  }

  private async checkUniqueName(projectId: number, name: string | null | undefined, self: number | null): Promise<void> {
    if (!name) return;
    const other = (await this.actions.findBy({ project_id: projectId, name, deleted: false })).find((a) => a.id !== self);
    if (other) throw validationError(`This project already has an action with this name, ID ${other.id}`, 'name', 'unique');
  }

  private view(a: Action, users: Map<number, UserBasic>): ActionView {
    return {
      id: a.id,
      name: a.name,
      description: a.description,
      tags: a.tags,
      post_to_slack: a.post_to_slack,
      slack_message_format: a.slack_message_format,
      steps: a.steps,
      created_at: drfTime(a.created_at),
      created_by: a.created_by_id !== null ? (users.get(a.created_by_id) ?? null) : null,
      updated_at: drfTime(a.updated_at),
      deleted: a.deleted,
      is_calculating: false,
      // the model's default (timezone.now at creation): PostHog no longer recalculates actions
      last_calculated_at: drfTime(a.created_at),
      team_id: a.project_id,
      is_action: true,
      bytecode_error: null,
      pinned_at: drfTime(a.pinned_at),
      creation_context: null,
      user_access_level: 'editor',
    };
  }

  private users(ids: (number | null)[]): Promise<Map<number, UserBasic>> {
    return usersById(this.store, ids);
  }
}
