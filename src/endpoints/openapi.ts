/**
 * The per-endpoint OpenAPI 3.0.3 document (PostHog's `openapi.py`, reference §1.7), typed further than
 * PostHog's: `variables` from the declarations, `columns` as an enum of the real names, and a row schema with one
 * typed property per result column for `result_format: "objects"`.
 */
import type { Endpoint, EndpointVersion } from '../store/entities';
import type { EndpointVariable } from '../store/entities/endpoint-version';
import { isRequired } from './variables';

type Schema = Record<string, unknown>;

export interface OpenApiInput {
  projectId: number;
  endpoint: Endpoint;
  version: EndpointVersion;
  variables: EndpointVariable[];
  origin: string;
}

/** SQL kinds: their variables are declarations; an insight's are PostHog's magic ones (dates, the breakdown). */
const SQL_KINDS = new Set(['HogQLQuery', 'ProductQLQuery']);
const DATE_VARIABLES = new Set(['date_from', 'date_to']);

const variableSchema = (v: EndpointVariable, breakdown = false): Schema => {
  let s: Schema;
  switch (v.type) {
    case 'Number':
      s = { type: 'number' };
      break;
    case 'Boolean':
      s = { type: 'boolean' };
      break;
    case 'List':
      s = { type: 'array', items: { type: 'string' } };
      break;
    case 'Date':
      s = { type: 'string', format: 'date' };
      break;
    default:
      s = { type: 'string' };
  }
  s.description = v.description ?? `Variable: ${v.name}`;
  if (v.default !== undefined && v.default !== null) s.example = v.default;
  // PostHog's openapi.py shows a breakdown variable with the example "Chrome"
  else if (breakdown) s.example = 'Chrome';
  s.nullable = true;
  return s;
};

/** A result column type as a JSON schema. Every cell may be null. */
export const columnSchema = (type: string): Schema => {
  switch (type) {
    case 'integer':
      return { type: 'integer', nullable: true };
    case 'float':
      return { type: 'number', nullable: true };
    case 'string':
      return { type: 'string', nullable: true };
    case 'datetime':
      return { type: 'string', format: 'date-time', nullable: true };
    case 'date':
      return { type: 'string', format: 'date', nullable: true };
    case 'boolean':
      return { type: 'boolean', nullable: true };
    case 'array':
      return { type: 'array', items: {}, nullable: true };
    case 'json':
      return { type: 'object', additionalProperties: true, nullable: true };
    default:
      return { nullable: true };
  }
};

const errorBody: Schema = {
  type: 'object',
  properties: {
    type: { type: 'string', example: 'validation_error' },
    code: { type: 'string', example: 'invalid_input' },
    detail: { type: 'string' },
    attr: { type: 'string', nullable: true },
  },
  required: ['type', 'code', 'detail', 'attr'],
};

/** `filters_override` of a run (PostHog's openapi.py `DashboardFilter`). */
const dashboardFilter: Schema = {
  type: 'object',
  properties: {
    date_from: { type: 'string', nullable: true },
    date_to: { type: 'string', nullable: true },
    properties: { type: 'array', items: { $ref: '#/components/schemas/PropertyFilter' }, nullable: true },
  },
};

/** One property filter of a `DashboardFilter` (PostHog's openapi.py `PropertyFilter`). */
const propertyFilter: Schema = {
  type: 'object',
  required: ['key'],
  properties: {
    key: { type: 'string' },
    value: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }] },
    operator: {
      type: 'string',
      enum: ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'lt', 'gte', 'lte', 'is_set', 'is_not_set', 'is_date_exact', 'is_date_before', 'is_date_after', 'in', 'not_in'],
    },
    type: { type: 'string', enum: ['event', 'person', 'session', 'cohort', 'group', 'hogql'] },
  },
};

export function openapiDocument(input: OpenApiInput): Record<string, unknown> {
  const { endpoint, version, variables } = input;
  const name = endpoint.name;
  const columns = version.columns;
  const required = variables.filter(isRequired).map((v) => v.name);

  // No `default` keywords on request fields: generators (openapi-typescript) make such fields required.
  const runRequest: Schema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...(variables.length ? { variables: { $ref: '#/components/schemas/Variables' } } : {}),
      client_query_id: { type: 'string', description: 'Tags the query; usable with the query API.' },
      filters_override: {
        $ref: '#/components/schemas/DashboardFilter',
        description: 'Deprecated; insight endpoints only (a SQL endpoint answers 400: use variables).',
      },
      refresh: {
        type: 'string',
        enum: ['cache', 'force', 'direct'],
        description:
          'cache (the default): serve a cached result if fresh; force: always recompute; direct: bypass the materialized table (materialized endpoints only, so a 400 in Quarry).',
      },
      version: {
        type: 'integer',
        minimum: 1,
        description: `Pins a version (1-${endpoint.current_version}). Defaults to the latest.`,
      },
      limit: { type: 'integer', minimum: 1, description: 'Row cap.' },
      offset: { type: 'integer', minimum: 0, description: 'Rows to skip; requires limit.' },
      debug: { type: 'boolean', description: 'Adds cache_key, timings and the printed query. Default false.' },
      result_format: {
        type: 'string',
        enum: ['arrays', 'objects'],
        description: 'arrays (the default): each row is an array in `columns` order; objects: each row is an object (see Row).',
      },
    },
    ...(required.length ? { required: ['variables'] } : {}),
  };

  const envelope: Schema = {
    hasMore: { type: 'boolean' },
    is_cached: { type: 'boolean' },
    last_refresh: { type: 'string', format: 'date-time' },
    next_allowed_client_refresh: { type: 'string', format: 'date-time' },
    cache_target_age: { type: 'string', format: 'date-time' },
    timezone: { type: 'string' },
    name: { type: 'string', enum: [name] },
    execution_id: { type: 'string' },
    endpoint_version: { type: 'integer' },
    endpoint_version_created_at: { type: 'string', format: 'date-time' },
  };
  const columnNames: Schema = columns.length
    ? { type: 'array', items: { type: 'string', enum: columns.map((c) => c.name) } }
    : { type: 'array', items: { type: 'string' } };
  const rowSchema: Schema = {
    type: 'object',
    description: 'One result row as an object (result_format: "objects").',
    properties: Object.fromEntries(columns.map((c) => [c.name, columnSchema(c.type)])),
    required: columns.map((c) => c.name),
    additionalProperties: false,
  };
  if (!columns.length) delete rowSchema.required;

  const schemas: Schema = {
    EndpointRunRequest: runRequest,
    RunResult: {
      type: 'object',
      description: 'result_format "arrays" (the default): each row is an array of cells in `columns` order.',
      properties: {
        results: { type: 'array', items: { type: 'array', items: {} } },
        columns: columnNames,
        types: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
        ...envelope,
      },
      required: ['results', 'hasMore', 'name', 'execution_id', 'endpoint_version'],
    },
    RunResultObjects: {
      type: 'object',
      description: 'result_format "objects": each row is a Row.',
      properties: {
        results: { type: 'array', items: { $ref: '#/components/schemas/Row' } },
        columns: columnNames,
        ...envelope,
      },
      required: ['results', 'hasMore', 'name', 'execution_id', 'endpoint_version'],
    },
    Row: rowSchema,
    DashboardFilter: dashboardFilter,
    PropertyFilter: propertyFilter,
    Error: errorBody,
    BareError: {
      type: 'object',
      description: 'PostHog\'s non-standard body for bad integer parameters and missing versions.',
      properties: { error: { type: 'string' }, current_version: { type: 'integer' } },
      required: ['error'],
    },
  };
  if (variables.length) {
    schemas.Variables = {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(variables.map((v) => [v.name, variableSchema(v, !SQL_KINDS.has(String(version.query.kind)) && !DATE_VARIABLES.has(v.name))])),
      ...(required.length ? { required } : {}),
    };
  }

  const errorResponse = (description: string, bare = false) => ({
    description,
    content: {
      'application/json': {
        schema: bare
          ? { oneOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/BareError' }] }
          : { $ref: '#/components/schemas/Error' },
      },
    },
  });

  return {
    openapi: '3.0.3',
    info: {
      title: name,
      description: version.description || `PostHog Endpoint: ${name}`,
      version: String(version.version),
    },
    servers: [{ url: input.origin }],
    paths: {
      [`/api/projects/${input.projectId}/endpoints/${name}/run`]: {
        post: {
          operationId: 'run_' + name.replace(/-/g, '_'),
          summary: `Execute ${name}`,
          security: [{ PersonalAPIKey: [] }],
          requestBody: {
            required: required.length > 0,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/EndpointRunRequest' } } },
          },
          // 400, 401 and 404 carry PostHog's descriptions (test_endpoint_openapi.py); their bodies are documented too
          responses: {
            '200': {
              description: 'The rows of the query.',
              content: {
                'application/json': {
                  // PostHog's shape ({results (required), columns, hasMore}), narrowed to Quarry's typed results
                  schema: {
                    type: 'object',
                    properties: {
                      results: { type: 'array', items: {} },
                      columns: { type: 'array', items: { type: 'string' } },
                      hasMore: { type: 'boolean' },
                    },
                    required: ['results'],
                    oneOf: [{ $ref: '#/components/schemas/RunResult' }, { $ref: '#/components/schemas/RunResultObjects' }],
                  },
                },
              },
            },
            '400': errorResponse('Invalid request', true),
            '401': errorResponse('Authentication required'),
            '403': errorResponse('The key may not run this endpoint.'),
            '404': errorResponse('Endpoint not found', true),
            '429': errorResponse('Too many requests.'),
          },
        },
      },
    },
    components: {
      securitySchemes: { PersonalAPIKey: { type: 'http', scheme: 'bearer' } },
      schemas,
    },
  };
}
