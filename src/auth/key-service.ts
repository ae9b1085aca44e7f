import { randomUUID } from 'node:crypto';
import { IsNull } from 'typeorm';
import { z } from 'zod';
import { notFound, permissionDenied, validationError } from '../errors';
import { pageOf, type Page, type Paged } from '../pagination';
import { PersonalApiKey, ProjectSecretApiKey } from '../store/entities';
import type { Store } from '../store/store';
import { drfChar } from '../insights/drf-fields';
import { parseInput } from '../validation';
import { requireScope } from './access';
import { hashKey, maskKey, newPersonalKey, newSecretKey } from './key-material';
import type { ProjectService } from '../projects/project-service';
import type { Principal } from './principal';
import { hasScope, isValidScope, SECRET_KEY_SCOPES, type Scope } from './scopes';

/** PostHog's limit of live personal keys per user (posthog/api/personal_api_key.py MAX_API_KEYS_PER_USER). */
export const MAX_PERSONAL_KEYS_PER_USER = 10;

/** PostHog's limit of secret keys per project. */
export const MAX_SECRET_KEYS_PER_PROJECT = 50;

const scopeList = z
  .array(z.string())
  .min(1, 'At least one scope is required.')
  .max(50)
  .superRefine((scopes, ctx) => {
    // PostHog's PersonalAPIKeySerializer.validate_scopes names the first invalid scope
    const bad = scopes.find((s) => !isValidScope(s));
    if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `Invalid scope: ${bad}` });
  });

/**
 * A personal key's label as sent: PostHog's model field `label = CharField(max_length=40)` through DRF's CharField —
 * null and a blank one are refused first (test_personal_api_keys.py test_create_personal_api_key_label_required), then the
 * value is trimmed and at most 40 characters. Quarry still defaults a missing label to '' (the CLI and GraphQL
 * create keys without one).
 */
const personalLabel = z
  .unknown()
  .superRefine((v, ctx) => {
    if (v === null) ctx.addIssue({ code: 'custom', message: 'This field may not be null.', params: { code: 'null' }, abort: true });
    else if (typeof v === 'string' && v.trim() === '') ctx.addIssue({ code: 'custom', message: 'This field may not be blank.', params: { code: 'blank' }, abort: true });
  })
  .pipe(drfChar(40));

const ORG_MEMBER_ONLY = 'You must be a member of all organizations that you are scoping the key to.';

export const createPersonalKeyInput = z
  .object({
    label: personalLabel.default(''),
    scopes: scopeList,
    scoped_teams: z.array(z.number().int().positive()).max(1000).nullable().default(null),
    // PostHog's clients send `scoped_organizations: []` with every new key. Quarry has one organization, so a key
    // can only be unrestricted there: an empty list or null; a named organization is not one the user is a member of
    // (PersonalAPIKeySerializer.validate_scoped_organizations' words)
    scoped_organizations: z
      .array(z.string())
      .max(0, ORG_MEMBER_ONLY)
      .nullable()
      .optional(),
  })
  .strict();

/** PATCH/PUT of a personal key: its label, scopes and restrictions (PostHog's writable fields). */
export const updatePersonalKeyInput = z
  .object({
    label: personalLabel,
    scopes: scopeList,
    scoped_teams: z.array(z.number().int().positive()).max(1000).nullable(),
    scoped_organizations: z.array(z.string()).max(0, ORG_MEMBER_ONLY).nullable(),
  })
  .partial()
  .strict();

const secretScopeList = scopeList.refine((s) => s.every((x) => SECRET_KEY_SCOPES.includes(x)), {
  message: `Project secret API keys may only hold: ${SECRET_KEY_SCOPES.join(', ')}.`,
});

export const createSecretKeyInput = z
  .object({
    label: z.string().max(100).default(''),
    scopes: secretScopeList,
    /** Endpoint variables the key always runs with (e.g. `{customer_id: "acme"}`); they override the caller's. */
    fixed_variables: z
      .record(z.string().regex(/^[$A-Za-z_][\w$.-]{0,199}$/, 'Not a valid variable name.'), z.unknown())
      .refine((v) => Object.keys(v).length <= 50, { message: 'At most 50 fixed variables.' })
      .nullable()
      .default(null),
  })
  .strict();

/** PATCH/PUT of a project secret key: its label and scopes. */
export const updateSecretKeyInput = z.object({ label: z.string().max(100), scopes: secretScopeList }).partial().strict();

export interface PersonalKeyView {
  id: string;
  label: string;
  mask_value: string;
  scopes: string[];
  scoped_teams: number[] | null;
  /** Null, or the empty list sent (PostHog's field): Quarry has one organization. */
  scoped_organizations?: string[] | null;
  user_id?: number;
  created_at: string;
  last_used_at: string | null;
  /** When the value was last replaced by a roll; null if never. */
  last_rolled_at?: string | null;
  /** The key itself: present only in the response that created it (REST shows null elsewhere, as PostHog). */
  value?: string;
}

export interface SecretKeyView {
  id: string;
  label: string;
  mask_value: string;
  scopes: string[];
  project_id: number;
  created_by: number | null;
  created_at: string;
  last_used_at: string | null;
  last_rolled_at?: string | null;
  /** Endpoint variables forced on every run through this key; absent when the key has none. */
  fixed_variables?: Record<string, unknown> | null;
  value?: string;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

const personalView = (k: PersonalApiKey, value?: string): PersonalKeyView => ({
  id: k.id,
  label: k.label,
  mask_value: k.mask_value,
  scopes: k.scopes,
  scoped_teams: k.scoped_teams,
  scoped_organizations: k.scoped_organizations ?? null,
  user_id: k.user_id,
  created_at: k.created_at.toISOString(),
  last_used_at: iso(k.last_used_at),
  last_rolled_at: iso(k.last_rolled_at),
  ...(value ? { value } : {}),
});

const secretView = (k: ProjectSecretApiKey, value?: string): SecretKeyView => ({
  id: k.id,
  label: k.label,
  mask_value: k.mask_value,
  scopes: k.scopes,
  project_id: k.project_id,
  created_by: k.created_by_id,
  created_at: k.created_at.toISOString(),
  last_used_at: iso(k.last_used_at),
  last_rolled_at: iso(k.last_rolled_at),
  ...(k.fixed_variables ? { fixed_variables: k.fixed_variables } : {}),
  ...(value ? { value } : {}),
});

/** Personal API keys and project secret API keys. Only hashes are stored; a value is shown once. */
export class KeyService {
  constructor(
    private readonly store: Store,
    private readonly projects: ProjectService,
    /** Live personal keys a user may hold; one more is refused (config `personalApiKeysPerUser`). */
    private readonly maxPersonalKeys: number = MAX_PERSONAL_KEYS_PER_USER,
  ) {}

  /**
   * `GET /api/personal_api_keys/`: the caller's live keys, all of them in one array. PostHog's PersonalAPIKeyViewSet
   * does not page (test_personal_api_keys.py test_list_only_user_personal_api_keys reads `response.json()[0]`; its
   * frontend's `personalApiKeys.list()` is a `PersonalAPIKeyType[]`).
   */
  async listPersonal(principal: Principal): Promise<PersonalKeyView[]> {
    requireScope(principal, { scope: 'personal_api_key:read' });
    const userId = (principal as Extract<Principal, { kind: 'personal' }>).userId;
    // rowid: creation order, even within one second
    const keys = await this.store.personalKeys
      .createQueryBuilder('k')
      .where('k.user_id = :userId AND k.revoked_at IS NULL', { userId })
      .orderBy('k.rowid', 'ASC')
      .getMany();
    return keys.map((k) => personalView(k));
  }

  /** `GET /api/personal_api_keys/<id>/`: one of the caller's own live keys (never its value). */
  async getPersonal(principal: Principal, id: string): Promise<PersonalKeyView> {
    requireScope(principal, { scope: 'personal_api_key:read' });
    return personalView(await this.ownKey(principal, id));
  }

  /** `PATCH`/`PUT /api/personal_api_keys/<id>/`: label, scopes, scoped_teams of one of the caller's own keys. */
  async updatePersonal(principal: Principal, id: string, input: unknown): Promise<PersonalKeyView> {
    requireScope(principal, { scope: 'personal_api_key:write' });
    const key = await this.ownKey(principal, id);
    const body = parseInput(updatePersonalKeyInput, input ?? {});
    if (body.scopes) this.checkGrantable(principal, body.scopes);
    if (body.scoped_teams) await this.checkProjects(body.scoped_teams);
    if (body.label !== undefined) key.label = body.label;
    if (body.scopes !== undefined) key.scopes = body.scopes;
    if (body.scoped_teams !== undefined) key.scoped_teams = body.scoped_teams;
    if (body.scoped_organizations !== undefined) key.scoped_organizations = body.scoped_organizations;
    // a TypeORM write: remembered principals are forgotten before it returns (metadata-watch), so it applies at once
    return personalView(await this.store.personalKeys.save(key));
  }

  /**
   * `POST /api/personal_api_keys/<id>/roll/`: one of the caller's own keys gets a new value (shown in this response
   * only, as at creation) and `last_rolled_at`; the old value stops working at once. Label, scopes and restrictions
   * stay (PostHog's PersonalAPIKeyViewSet.roll).
   */
  async rollPersonal(principal: Principal, id: string): Promise<PersonalKeyView> {
    requireScope(principal, { scope: 'personal_api_key:write' });
    const key = await this.ownKey(principal, id);
    const value = newPersonalKey();
    Object.assign(key, { secure_value: hashKey(value), mask_value: maskKey(value), last_rolled_at: new Date() });
    // a TypeORM write: remembered principals are forgotten before it returns (metadata-watch), so the old value is refused
    return personalView(await this.store.personalKeys.save(key), value);
  }

  private async ownKey(principal: Principal, id: string): Promise<PersonalApiKey> {
    const userId = (principal as Extract<Principal, { kind: 'personal' }>).userId;
    const key = await this.store.personalKeys.findOneBy({ id, revoked_at: IsNull() });
    if (!key || key.user_id !== userId) throw notFound();
    return key;
  }

  /** A key cannot grant a scope stronger than its own. */
  private checkGrantable(principal: Principal, scopes: string[]): void {
    const p = principal as Extract<Principal, { kind: 'personal' }>;
    for (const s of scopes) {
      if (s === '*' ? !p.scopes.includes('*') : !hasScope(p.scopes, s as Scope)) {
        throw permissionDenied(`A key cannot grant the scope '${s}', which it does not hold itself.`);
      }
    }
  }

  /**
   * PostHog's PersonalAPIKeySerializer.validate_scoped_teams: every scoped project must be one the user is a member
   * of; one that does not exist is refused with the same words (test_personal_api_keys.py).
   */
  private async checkProjects(ids: number[]): Promise<void> {
    for (const id of ids) {
      if (!(await this.store.projects.existsBy({ id }))) {
        throw validationError('You must be a member of all teams that you are scoping the key to.', 'scoped_teams');
      }
    }
  }

  async createPersonal(principal: Principal, input: unknown): Promise<PersonalKeyView> {
    requireScope(principal, { scope: 'personal_api_key:write' });
    const p = principal as Extract<Principal, { kind: 'personal' }>;
    const body = parseInput(createPersonalKeyInput, input);
    // A key cannot mint a key stronger than itself.
    this.checkGrantable(principal, body.scopes);
    if (body.scoped_teams) await this.checkProjects(body.scoped_teams);
    // PostHog's PersonalAPIKeySerializer.create, after the fields are validated (test_create_too_many_api_keys)
    if ((await this.store.personalKeys.countBy({ user_id: p.userId, revoked_at: IsNull() })) >= this.maxPersonalKeys) {
      throw validationError(`You can only have ${this.maxPersonalKeys} personal API keys. Remove an existing key before creating a new one.`);
    }
    return this.issuePersonal(p.userId, body);
  }

  /** Creates a personal key without a principal: bootstrap and the CLI. `value` defaults to a random key. */
  async issuePersonal(
    userId: number,
    body: z.output<typeof createPersonalKeyInput>,
    value: string = newPersonalKey(),
  ): Promise<PersonalKeyView> {
    const key = this.store.personalKeys.create({
      id: randomUUID(),
      user_id: userId,
      label: body.label,
      secure_value: hashKey(value),
      mask_value: maskKey(value),
      scopes: body.scopes,
      scoped_teams: body.scoped_teams,
      scoped_organizations: body.scoped_organizations ?? null,
      last_used_at: null,
      last_rolled_at: null,
      revoked_at: null,
    });
    return personalView(await this.store.personalKeys.save(key), value);
  }

  async revokePersonal(principal: Principal, id: string): Promise<void> {
    requireScope(principal, { scope: 'personal_api_key:write' });
    await this.revokePersonalUnchecked(id, (principal as Extract<Principal, { kind: 'personal' }>).userId);
  }

  /** Revokes a personal key; `userId` limits it to that user's keys. */
  async revokePersonalUnchecked(id: string, userId?: number): Promise<void> {
    const key = await this.store.personalKeys.findOneBy({ id, revoked_at: IsNull() });
    if (!key || (userId !== undefined && key.user_id !== userId)) throw notFound();
    await this.store.personalKeys.update(key.id, { revoked_at: new Date() });
  }

  async listSecret(principal: Principal, projectId: number, page: Page): Promise<Paged<SecretKeyView>> {
    await this.projects.projectFor(principal, projectId, { scope: 'project:read' });
    const keys = await this.store.secretKeys
      .createQueryBuilder('k')
      .where('k.project_id = :projectId AND k.revoked_at IS NULL', { projectId })
      .orderBy('k.rowid', 'ASC')
      .getMany();
    return pageOf(keys.map((k) => secretView(k)), page);
  }

  async createSecret(principal: Principal, projectId: number, input: unknown): Promise<SecretKeyView> {
    await this.projects.projectFor(principal, projectId, { scope: 'project:write' });
    const body = parseInput(createSecretKeyInput, input);
    const live = await this.store.secretKeys.countBy({ project_id: projectId, revoked_at: IsNull() });
    if (live >= MAX_SECRET_KEYS_PER_PROJECT) {
      throw validationError(`A project may have at most ${MAX_SECRET_KEYS_PER_PROJECT} secret API keys.`);
    }
    const value = newSecretKey();
    const key = this.store.secretKeys.create({
      id: randomUUID(),
      project_id: projectId,
      label: body.label,
      secure_value: hashKey(value),
      mask_value: maskKey(value),
      scopes: body.scopes,
      fixed_variables: body.fixed_variables,
      created_by_id: principal.kind === 'personal' ? principal.userId : null,
      last_used_at: null,
      last_rolled_at: null,
      revoked_at: null,
    });
    return secretView(await this.store.secretKeys.save(key), value);
  }

  /** `GET …/project_secret_api_keys/<id>/`: one live key of the project (never its value). */
  async getSecret(principal: Principal, projectId: number, id: string): Promise<SecretKeyView> {
    await this.projects.projectFor(principal, projectId, { scope: 'project:read' });
    return secretView(await this.liveSecret(projectId, id));
  }

  /** `PATCH`/`PUT …/project_secret_api_keys/<id>/`: its label and scopes. */
  async updateSecret(principal: Principal, projectId: number, id: string, input: unknown): Promise<SecretKeyView> {
    await this.projects.projectFor(principal, projectId, { scope: 'project:write' });
    const key = await this.liveSecret(projectId, id);
    const body = parseInput(updateSecretKeyInput, input ?? {});
    if (body.label !== undefined) key.label = body.label;
    if (body.scopes !== undefined) key.scopes = body.scopes;
    return secretView(await this.store.secretKeys.save(key));
  }

  /** `POST …/project_secret_api_keys/<id>/roll/` (reference §3.3): a new value, shown once; the old one stops working. */
  async rollSecret(principal: Principal, projectId: number, id: string): Promise<SecretKeyView> {
    await this.projects.projectFor(principal, projectId, { scope: 'project:write' });
    const key = await this.liveSecret(projectId, id);
    const value = newSecretKey();
    Object.assign(key, { secure_value: hashKey(value), mask_value: maskKey(value), last_rolled_at: new Date() });
    return secretView(await this.store.secretKeys.save(key), value);
  }

  private async liveSecret(projectId: number, id: string): Promise<ProjectSecretApiKey> {
    const key = await this.store.secretKeys.findOneBy({ id, project_id: projectId, revoked_at: IsNull() });
    if (!key) throw notFound();
    return key;
  }

  async revokeSecret(principal: Principal, projectId: number, id: string): Promise<void> {
    await this.projects.projectFor(principal, projectId, { scope: 'project:write' });
    const key = await this.store.secretKeys.findOneBy({ id, project_id: projectId, revoked_at: IsNull() });
    if (!key) throw notFound();
    await this.store.secretKeys.update(key.id, { revoked_at: new Date() });
  }
}
