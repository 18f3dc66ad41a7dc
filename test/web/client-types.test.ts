import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../scripts/web-client-types.ts';
import { openTemplateStore } from '../support/store-template.ts';

describe('the web application API types', () => {
  it('are the ones generated from the current OpenAPI description (else: npm run web:client)', async () => {
    const committed = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
    const current = await generateClientTypes(await openTemplateStore('blank'));
    // A toBe on 12k lines prints a useless diff: name the first line that differs instead.
    const [a, b] = [committed.split('\n'), current.split('\n')];
    const first = a.findIndex((line, i) => line !== b[i]);
    const where = first === -1 && a.length === b.length ? 'none' : `line ${first + 1}: ${b[first]}`;
    expect(where, 'web/src/api/schema.d.ts is stale: run `npm run web:client`').toBe('none');
    expect(current).toContain('"/api/v1/auth/login"');
  });
});
