// SCIM's own error envelope (RFC 7644 §3.12): `{schemas, status: "<code as a string>", detail,
// scimType?}`. Identity providers read `status` as text and `scimType` on 400 and 409.
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType =
  | 'invalidFilter'
  | 'invalidSyntax'
  | 'invalidValue'
  | 'invalidPath'
  | 'uniqueness'
  | 'mutability'
  | 'noTarget';

export class ScimError extends Error {
  readonly status: number;
  readonly scimType: ScimType | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string, scimType?: ScimType, headers: Record<string, string> = {}) {
    super(detail);
    this.status = status;
    this.scimType = scimType;
    this.headers = headers;
  }

  get body() {
    return {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(this.status),
      detail: this.message,
      ...(this.scimType && { scimType: this.scimType }),
    };
  }
}

export const scimNotFound = (what: string) => new ScimError(404, `${what} not found`);
export const scimInvalid = (detail: string, scimType: ScimType = 'invalidValue') =>
  new ScimError(400, detail, scimType);
