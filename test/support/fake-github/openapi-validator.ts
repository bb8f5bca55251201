// Validates a request against GitHub's own OpenAPI description (@octokit/openapi, api.github.com.json):
// the path must match a documented template, the method must exist on it, path and query parameters
// must be documented (and typed), and the JSON body must match the operation's schema with no unknown
// top-level properties. Returns the operation id and the path parameters.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  parameters?: Json[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
}
interface Template {
  path: string;
  regex: RegExp;
  names: string[];
  literals: number;
  methods: Record<string, Operation>;
}

export interface ValidatedRequest {
  operationId: string;
  template: string;
  params: Record<string, string>;
}

export class OpenApiError extends Error {}

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Path of the single api.github.com description inside @octokit/openapi. */
export function openApiPath(): string {
  return join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated', 'api.github.com.json');
}

let shared: OpenApiValidator | undefined;

/** One validator per process (the description is 13 MB). */
export function githubOpenApi(): OpenApiValidator {
  shared ??= new OpenApiValidator(JSON.parse(readFileSync(openApiPath(), 'utf8')) as Json);
  return shared;
}

export class OpenApiValidator {
  private readonly templates: Template[] = [];
  private readonly ajv: Ajv;
  private readonly bodyValidators = new Map<string, ValidateFunction>();
  private readonly parameters: Record<string, Json>;

  constructor(spec: Json) {
    const components = spec.components as { schemas: Json; parameters: Record<string, Json> };
    this.parameters = components.parameters;
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'github', components: { schemas: components.schemas } });
    for (const [path, item] of Object.entries(spec.paths as Record<string, Record<string, Operation>>)) {
      const names: string[] = [];
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'));
      const methods: Record<string, Operation> = {};
      for (const [method, op] of Object.entries(item)) if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) methods[method] = op;
      this.templates.push({ path, regex: new RegExp(`^${source}$`), names, literals: path.split('/').filter((s) => s && !s.startsWith('{')).length, methods });
    }
    // Prefer the most specific template (most literal segments).
    this.templates.sort((a, b) => b.literals - a.literals);
  }

  /** Validate one request; throws OpenApiError with every problem found. */
  validate(method: string, pathname: string, query: URLSearchParams, body: unknown): ValidatedRequest {
    const m = method.toLowerCase();
    const matches = this.templates.filter((t) => t.regex.test(pathname));
    if (matches.length === 0) throw new OpenApiError(`${method} ${pathname}: no documented path matches`);
    const template = matches.find((t) => t.methods[m]);
    if (!template) throw new OpenApiError(`${method} ${pathname}: method not documented for ${matches[0]!.path}`);
    const op = template.methods[m]!;
    const values = template.regex.exec(pathname)!.slice(1).map(decodeURIComponent);
    const params = Object.fromEntries(template.names.map((n, i) => [n, values[i]!]));
    const problems: string[] = [];
    const declared = (op.parameters ?? []).map((p) => this.resolveParameter(p));
    for (const p of declared.filter((d) => d.in === 'path')) {
      const value = params[p.name as string];
      if (value === undefined || !this.scalarOk(p.schema as Json, value))
        problems.push(`path parameter ${String(p.name)}=${value} does not match ${JSON.stringify(p.schema)}`);
    }
    const queryNames = new Set(declared.filter((d) => d.in === 'query').map((d) => d.name as string));
    for (const [name, value] of query) {
      if (!queryNames.has(name)) problems.push(`query parameter ${name} is not documented`);
      else if (!this.scalarOk(declared.find((d) => d.name === name)!.schema as Json, value)) problems.push(`query parameter ${name}=${value} is invalid`);
    }
    const schema = op.requestBody?.content['application/json']?.schema;
    if (body !== undefined && !schema) problems.push('a body was sent but the operation takes none');
    if (body === undefined && schema && op.requestBody?.required) problems.push('the operation requires a body');
    if (body !== undefined && schema) {
      const validate = this.bodyValidator(`${m} ${template.path}`, schema);
      if (!validate(body))
        problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message ?? ''} ${e.params ? JSON.stringify(e.params) : ''}`));
    }
    if (problems.length > 0) throw new OpenApiError(`${method} ${pathname} (${op.operationId}): ${problems.join('; ')}`);
    return { operationId: op.operationId, template: template.path, params };
  }

  private resolveParameter(p: Json): Json {
    const ref = p.$ref as string | undefined;
    return ref ? this.parameters[ref.split('/').at(-1)!]! : p;
  }

  private scalarOk(schema: Json | undefined, value: string): boolean {
    if (!schema) return true;
    if (schema.type === 'integer') return /^-?\d+$/.test(value);
    if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map(String).includes(value);
    if (schema.type === 'boolean') return value === 'true' || value === 'false';
    return true;
  }

  private bodyValidator(key: string, schema: Json): ValidateFunction {
    let validate = this.bodyValidators.get(key);
    if (!validate) {
      const top = rewriteRefs(schema) as Json;
      // Reject unknown top-level properties: GitHub ignores them silently, svc must not rely on that.
      const strictTop = top.type === 'object' && top.properties && top.additionalProperties === undefined ? { ...top, additionalProperties: false } : top;
      validate = this.ajv.compile(strictTop);
      this.bodyValidators.set(key, validate);
    }
    return validate;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `github${v}` : rewriteRefs(v);
    return out;
  }
  return value;
}
