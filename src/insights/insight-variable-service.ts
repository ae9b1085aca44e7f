import { In } from 'typeorm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { codeNameOf, VARIABLE_TYPES, type SavedVariable, type SavedVariableSource } from '../endpoints/variables';
import { notFound, parseError, validationError } from '../errors';
import { uuidv7 } from '../ingest/capture-payload';
import type { Page, Paged } from '../pagination';
import type { ProjectService } from '../projects/project-service';
import { InsightVariable } from '../store/entities';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { usersById, type UserBasic } from './activity';
import { drfChar } from './drf-fields';

/** DRF's `required` (a missing field of a create or a PUT); a field left out of a PATCH is never read (`.optional()`). */
const present = () =>
  z.unknown().superRefine((v, ctx) => {
    if (v === undefined) ctx.addIssue({ code: 'custom', message: 'This field is required.', params: { code: 'required' }, abort: true });
  });

/** DRF's ChoiceField for the model's `type` (InsightVariable.Type): anything else is `"<value>" is not a valid choice.` */
const typeField = present().transform((v, ctx) => {
  if (v === null) {
    ctx.addIssue({ code: 'custom', message: 'This field may not be null.', params: { code: 'null' } });
    return z.NEVER;
  }
  const text = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
  if (text === null || !(VARIABLE_TYPES as readonly string[]).includes(text)) {
    ctx.addIssue({ code: 'custom', message: `"${typeof v === 'string' ? v : JSON.stringify(v)}" is not a valid choice.`, params: { code: 'invalid_choice' } });
    return z.NEVER;
  }
  return text;
});

/** The model's `name` (CharField(max_length=400), neither null nor blank) as DRF reads it. */
const nameField = present()
  .superRefine((v, ctx) => {
    if (v === null) ctx.addIssue({ code: 'custom', message: 'This field may not be null.', params: { code: 'null' }, abort: true });
  })
  .pipe(drfChar(400))
  .superRefine((v, ctx) => {
    if (v === '') ctx.addIssue({ code: 'custom', message: 'This field may not be blank.', params: { code: 'blank' } });
  });

/**
 * InsightVariableSerializer's writable fields: `name`, `type`, `default_value` and `values` (JSONFields, any JSON).
 * `id`, `code_name`, `created_by` and `created_at` are read-only: ignored when sent, as any unknown key (DRF).
 */
const bodyFields = {
  name: nameField,
  type: typeField,
  default_value: z.unknown(),
  values: z.unknown(),
};
const createBody = z.object({ name: bodyFields.name, type: bodyFields.type, default_value: bodyFields.default_value.optional(), values: bodyFields.values.optional() });
const updateBody = z.object({
  name: bodyFields.name.optional(),
  type: bodyFields.type.optional(),
  default_value: bodyFields.default_value.optional(),
  values: bodyFields.values.optional(),
});

/** PostHog's InsightVariableSerializer fields. */
export interface InsightVariableView {
  id: string;
  name: string;
  type: string;
  default_value: unknown;
  created_by: UserBasic | null;
  created_at: string;
  code_name: string | null;
  values: unknown;
}

function objectBody(input: unknown): Record<string, unknown> {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) throw parseError('The request body must be a JSON object.');
  return input as Record<string, unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Saved variables of a project (PostHog's `/api/projects/<id>/insight_variables/`, InsightVariableViewSet): a name, a
 * type (`String`, `Number`, `Boolean`, `List`, `Date`), a default value and, for lists, their values. The `code_name`
 * a query uses (`{variables.<code_name>}`) is derived from the name at creation and unique in the project. Scopes
 * `insight_variable:read` / `insight_variable:write`; DELETE destroys (204). Runners read the defaults of the variables
 * a HogQL query names (PostHog's replace_variables) and endpoints their types; a change drops the project's cached
 * results, computed with the old defaults.
 */
export class InsightVariableService implements SavedVariableSource {
  constructor(
    private readonly store: Store,
    private readonly projects: ProjectService,
    /** Called after every change to a variable of the project (the services drop the project's cached results). */
    private readonly onChange: (projectId: number) => void = () => {},
  ) {}

  private get variables() {
    return this.store.db.getRepository(InsightVariable);
  }

  /** `GET …/insight_variables/`: the project's variables, oldest first, paged as DRF's LimitOffsetPagination. */
  async list(principal: Principal, projectId: number, page: Page): Promise<Paged<InsightVariableView>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight_variable:read' });
    const all = await this.variables.find({ where: { project_id: project.id }, order: { created_at: 'ASC', id: 'ASC' } });
    const slice = all.slice(page.offset, page.offset + page.limit);
    const users = await this.users(slice.map((v) => v.created_by_id));
    return { count: all.length, results: slice.map((v) => this.view(v, users)) };
  }

  /** `GET …/insight_variables/<uuid>/`. */
  async get(principal: Principal, projectId: number, ref: string): Promise<InsightVariableView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight_variable:read' });
    const v = await this.find(project.id, ref);
    return this.view(v, await this.users([v.created_by_id]));
  }

  /** `POST …/insight_variables/` (201): the code name is derived from the name; a second variable with it is a 400. */
  async create(principal: Principal, projectId: number, input: unknown): Promise<InsightVariableView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight_variable:write' });
    const body = parseInput(createBody, objectBody(input));
    const code_name = codeNameOf(body.name);
    // PostHog's serializer: `serializers.ValidationError("Variable with name already exists")` (no attr)
    if (await this.variables.existsBy({ project_id: project.id, code_name })) throw validationError('Variable with name already exists');
    const v = this.variables.create({
      id: uuidv7(),
      project_id: project.id,
      name: body.name,
      type: body.type,
      default_value: body.default_value ?? null,
      values: body.values ?? null,
      code_name,
      created_by_id: principal.kind === 'personal' ? principal.userId : null,
      created_at: new Date(),
    });
    const saved = await this.variables.save(v);
    this.onChange(project.id);
    return this.view(saved, await this.users([saved.created_by_id]));
  }

  /**
   * `PATCH` / `PUT …/insight_variables/<uuid>/`: the fields given change (ModelSerializer.update). The code name stays
   * as created (read-only; PostHog derives it in `create` only), so queries using it keep working after a rename.
   */
  async update(principal: Principal, projectId: number, ref: string, input: unknown, partial: boolean): Promise<InsightVariableView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight_variable:write' });
    const v = await this.find(project.id, ref);
    const body = parseInput(partial ? updateBody : createBody, objectBody(input));
    if (body.name !== undefined) v.name = body.name;
    if (body.type !== undefined) v.type = body.type;
    if (body.default_value !== undefined) v.default_value = body.default_value;
    if (body.values !== undefined) v.values = body.values;
    const saved = await this.variables.save(v);
    this.onChange(project.id);
    return this.view(saved, await this.users([saved.created_by_id]));
  }

  /** `DELETE …/insight_variables/<uuid>/` (204): the variable is gone for good. */
  async delete(principal: Principal, projectId: number, ref: string): Promise<void> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight_variable:write' });
    const v = await this.find(project.id, ref);
    await this.variables.delete({ id: v.id, project_id: project.id });
    this.onChange(project.id);
  }

  /** {@link SavedVariableSource}: the project's variables among `ids` (ids that are no UUID match none). */
  async savedVariables(projectId: number, ids: string[]): Promise<SavedVariable[]> {
    const wanted = [...new Set(ids.filter((id) => UUID.test(id)).map((id) => id.toLowerCase()))];
    if (!wanted.length) return [];
    return this.variables.findBy({ project_id: projectId, id: In(wanted) });
  }

  /** {@link SavedVariableSource}: the project's variables with one of these code names. */
  async savedVariablesByCodeName(projectId: number, codeNames: string[]): Promise<SavedVariable[]> {
    if (!codeNames.length) return [];
    return this.variables.find({ where: { project_id: projectId, code_name: In([...new Set(codeNames)]) }, order: { created_at: 'ASC', id: 'ASC' } });
  }

  private async find(projectId: number, ref: string): Promise<InsightVariable> {
    const v = UUID.test(ref) ? await this.variables.findOneBy({ id: ref.toLowerCase(), project_id: projectId }) : null;
    if (!v) throw notFound();
    return v;
  }

  private view(v: InsightVariable, users: Map<number, UserBasic>): InsightVariableView {
    return {
      id: v.id,
      name: v.name,
      type: v.type,
      default_value: v.default_value ?? null,
      created_by: v.created_by_id !== null ? (users.get(v.created_by_id) ?? null) : null,
      created_at: v.created_at.toISOString(),
      code_name: v.code_name,
      values: v.values ?? null,
    };
  }

  private users(ids: (number | null)[]): Promise<Map<number, UserBasic>> {
    return usersById(this.store, ids);
  }
}
