/** Who is calling. Never holds a key value: only ids, scopes and restrictions. */
export type Principal =
  | {
      kind: 'personal';
      keyId: string;
      userId: number;
      scopes: string[];
      /** Projects the key is restricted to; null = all the user's projects. */
      projectIds: number[] | null;
    }
  | {
      kind: 'project_secret';
      keyId: string;
      projectId: number;
      scopes: string[];
    };

/** A short id for logs: kind and key id, never the key. */
export function principalLabel(p: Principal | undefined): string | undefined {
  if (!p) return undefined;
  // principals of known keys are shared between requests (see Authenticator): build the label once each
  let label = labels.get(p);
  if (label === undefined) {
    label = p.kind === 'personal' ? `user:${p.userId}/key:${p.keyId}` : `project:${p.projectId}/secret:${p.keyId}`;
    labels.set(p, label);
  }
  return label;
}

const labels = new WeakMap<Principal, string>();
