// Every response a test client receives is checked against the service's own /openapi.json: its
// status must be declared for the operation, its media type must be one the response lists, and
// its body must validate (Ajv, JSON Schema 2020-12, formats included) against the declared schema.
// A test that makes the service answer what the document does not say fails on that request, so no
// route can drift from its description unnoticed. Requests to paths the document does not describe
// (the web app, /docs) are not judged.
import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  $ref?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, ResponseObject> };
}

export interface ObservedResponse {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  text: string;
}

/** What is wrong with a response, or undefined when the document declares it exactly. */
export type ContractCheck = (response: ObservedResponse) => string | undefined;

const checkers = new Map<string, ContractCheck>();

/** The check for a document (compiled once per document text: apps with the same modules share it). */
export function contractCheckOf(documentText: string): ContractCheck {
  let check = checkers.get(documentText);
  if (!check) {
    check = compileContract(JSON.parse(documentText) as Document);
    checkers.set(documentText, check);
  }
  return check;
}

function compileContract(document: Document): ContractCheck {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
  ajv.addSchema({ ...document, $id: 'openapi.json' });
  const routes = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+')}$`),
    literal: !template.includes('{'),
  }));
  // A literal path wins over a template that also matches (`/projects/export` vs `/projects/{id}`).
  routes.sort((a, b) => Number(b.literal) - Number(a.literal));
  const validators = new Map<string, ValidateFunction>();

  const resolve = (response: ResponseObject): { response: ResponseObject; pointer?: string } => {
    const name = response.$ref?.replace('#/components/responses/', '');
    if (name === undefined) return { response };
    const found = document.components?.responses?.[name];
    if (!found) throw new Error(`The document refers to a missing response ${response.$ref}`);
    return { response: found, pointer: `#/components/responses/${pointerSegment(name)}` };
  };

  return ({ method, url, status, contentType, text }) => {
    const path = url.split('?')[0] ?? url;
    const route = routes.find((candidate) => candidate.pattern.test(path));
    if (!route) return undefined;
    const verb = method.toLowerCase();
    const operation = document.paths[route.template]?.[verb];
    if (!operation) return `${method} ${route.template} is not in the document, yet answered ${status}`;
    const where = `${method} ${route.template} → ${status}`;
    const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find(
      (key) => operation.responses?.[key] !== undefined,
    );
    if (statusKey === undefined) return `${where}: the document declares no ${status} (${excerpt(text)})`;
    const { response, pointer } = resolve(operation.responses?.[statusKey] as ResponseObject);
    const declared = Object.keys(response.content ?? {});
    if (declared.length === 0) {
      return text === '' ? undefined : `${where}: a body where the document declares none (${excerpt(text)})`;
    }
    const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!declared.includes(media))
      return `${where}: content type "${media}", the document declares ${declared.join(', ')}`;
    const base =
      pointer ?? `#/paths/${pointerSegment(route.template)}/${verb}/responses/${pointerSegment(statusKey)}`;
    const schemaPointer = `openapi.json${base}/content/${pointerSegment(media)}/schema`;
    let validate = validators.get(schemaPointer);
    if (!validate) {
      validate = ajv.compile({ $ref: schemaPointer });
      validators.set(schemaPointer, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${where}: the body is not JSON (${excerpt(text)})`;
    }
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
    return `${where}: the body does not match the document: ${errors.join('; ')} (${excerpt(text)})`;
  };
}

/**
 * A response the document does not declare fails the test that received it. With
 * CONTRACT_REPORT=<file>, it is written to that file instead (a survey of the whole suite).
 */
export function contractBroken(problem: string): void {
  const report = process.env.CONTRACT_REPORT;
  if (!report) throw new Error(`The response breaks /openapi.json: ${problem}`);
  appendFileSync(report, `${problem}\n`);
}

/** A JSON pointer segment, as written in a URI fragment. */
function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function excerpt(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
