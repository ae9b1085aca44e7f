import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { EndpointVersionView, EndpointView } from '../../endpoints/endpoint-service';
import { isRequired } from '../../endpoints/variables';
import type { EndpointVariable } from '../../store/entities/endpoint-version';
import type { GraphQLContext } from '../context';
import {
  CreateEndpointInput,
  EndpointRunResultType,
  EndpointType,
  EndpointVersionType,
  UpdateEndpointInput,
  type EndpointVariableInput,
  type EndpointVariableType,
} from '../types/endpoint-types';
import { dropUndefined } from '../types/project';

const variableOf = (v: EndpointVariable): EndpointVariableType => ({
  name: v.name,
  type: v.type,
  default: v.default ?? null,
  required: isRequired(v),
  description: v.description ?? null,
});

const endpointOf = (projectId: number, e: EndpointView): EndpointType => ({
  projectId,
  id: e.id,
  name: e.name,
  description: e.description,
  query: e.query,
  isActive: e.is_active,
  currentVersion: e.current_version,
  versionsCount: e.versions_count,
  dataFreshnessSeconds: e.data_freshness_seconds,
  endpointPath: e.endpoint_path,
  variables: e.variables.map(variableOf),
  columns: e.columns,
  tags: e.tags,
  createdAt: e.created_at,
  updatedAt: e.updated_at,
  lastExecutedAt: e.last_executed_at,
});

const versionOf = (v: EndpointVersionView): EndpointVersionType => ({
  version: v.version,
  id: v.version_id,
  query: v.query,
  description: v.description,
  dataFreshnessSeconds: v.data_freshness_seconds,
  isActive: v.is_active,
  variables: v.variables.map(variableOf),
  columns: v.columns,
  columnChanges: v.column_changes,
  createdAt: v.version_created_at,
  lastExecutedAt: v.last_executed_at,
});

const variablesIn = (vars: EndpointVariableInput[] | undefined) =>
  vars?.map((v) => dropUndefined({ name: v.name, type: v.type, default: v.default ?? undefined, required: v.required, description: v.description }));

/** Endpoints over GraphQL: the same service (and checks) as the REST routes. */
@Resolver(() => EndpointType)
export class EndpointResolver {
  @Query(() => [EndpointType], { description: "A project's endpoints, newest first (scope endpoint:read)." })
  async endpoints(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<EndpointType[]> {
    const page = { limit: Math.min(Math.max(limit ?? 100, 1), 1000), offset: Math.max(offset ?? 0, 0) };
    const out = await ctx.services.endpoints.list(ctx.principal, projectId, {}, page);
    return out.results.map((e) => endpointOf(projectId, e));
  }

  @Query(() => EndpointType, { description: 'One endpoint by name (scope endpoint:read).' })
  async endpoint(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('name') name: string,
  ): Promise<EndpointType> {
    return endpointOf(projectId, await ctx.services.endpoints.get(ctx.principal, projectId, name, undefined));
  }

  @FieldResolver(() => [EndpointVersionType], { description: 'Versions, newest first.' })
  async versions(@Ctx() ctx: GraphQLContext, @Root() e: EndpointType): Promise<EndpointVersionType[]> {
    const out = await ctx.services.endpoints.listVersions(ctx.principal, e.projectId, e.name, { limit: 1000, offset: 0 });
    return out.results.map(versionOf);
  }

  @FieldResolver(() => GraphQLJSON, { description: 'The OpenAPI 3.0.3 document of a version (default: the current one).' })
  openapi(
    @Ctx() ctx: GraphQLContext,
    @Root() e: EndpointType,
    @Arg('version', () => Int, { nullable: true }) version?: number,
  ): Promise<unknown> {
    return ctx.services.endpoints.openapi(ctx.principal, e.projectId, e.name, version ?? undefined);
  }

  @Mutation(() => EndpointType, { description: 'Publishes a query as an endpoint (scope endpoint:write).' })
  async createEndpoint(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('input', () => CreateEndpointInput) input: CreateEndpointInput,
  ): Promise<EndpointType> {
    const body = dropUndefined({
      name: input.name,
      query: input.query,
      description: input.description,
      variables: variablesIn(input.variables),
      data_freshness_seconds: input.dataFreshnessSeconds,
      is_active: input.isActive,
      tags: input.tags,
    });
    return endpointOf(projectId, await ctx.services.endpoints.create(ctx.principal, projectId, body));
  }

  @Mutation(() => EndpointType, { description: 'Updates an endpoint; a changed query creates a new version (scope endpoint:write).' })
  async updateEndpoint(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('name') name: string,
    @Arg('input', () => UpdateEndpointInput) input: UpdateEndpointInput,
  ): Promise<EndpointType> {
    const body = dropUndefined({
      name: input.name,
      query: input.query,
      description: input.description,
      variables: variablesIn(input.variables),
      data_freshness_seconds: input.dataFreshnessSeconds,
      is_active: input.isActive,
      tags: input.tags,
      version: input.version,
    });
    await ctx.services.endpoints.update(ctx.principal, projectId, name, body);
    return endpointOf(projectId, await ctx.services.endpoints.get(ctx.principal, projectId, input.name ?? name, undefined));
  }

  @Mutation(() => Boolean, { description: 'Soft-deletes an endpoint; its name is free again (scope endpoint:write).' })
  async deleteEndpoint(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('name') name: string,
  ): Promise<boolean> {
    await ctx.services.endpoints.delete(ctx.principal, projectId, name);
    return true;
  }

  @Query(() => EndpointRunResultType, { description: 'Runs an endpoint with variables (scope endpoint:read; project secret keys allowed).' })
  async runEndpoint(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('name') name: string,
    @Arg('variables', () => GraphQLJSON, { nullable: true }) variables?: Record<string, unknown>,
    @Arg('version', () => Int, { nullable: true }) version?: number,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
    @Arg('refresh', () => String, { nullable: true, description: 'cache (default) or force.' }) refresh?: string,
  ): Promise<EndpointRunResultType> {
    const out = await ctx.services.endpoints.run(
      ctx.principal,
      projectId,
      name,
      dropUndefined({ variables: variables ?? undefined, version: version ?? undefined, limit: limit ?? undefined, offset: offset ?? undefined, refresh: refresh ?? undefined }),
    );
    const b = out.body;
    const rows = Array.isArray(b.results) ? (b.results as unknown[]) : [];
    const names = out.columns.map((c) => c.name);
    return {
      columns: out.columns,
      rows,
      objects: rows.map((r) => (Array.isArray(r) ? Object.fromEntries(names.map((n, i) => [n, r[i]])) : r)),
      hasMore: Boolean(b.hasMore),
      endpointVersion: b.endpoint_version as number,
      endpointVersionCreatedAt: b.endpoint_version_created_at as string,
      executionId: b.execution_id as string,
      isCached: Boolean(b.is_cached),
      lastRefresh: String(b.last_refresh),
      cacheTargetAge: String(b.cache_target_age),
      timezone: String(b.timezone),
    };
  }
}
