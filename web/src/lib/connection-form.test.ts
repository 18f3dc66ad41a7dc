// Which edits of a saved connection the form asks the password for again (the API's rule), and the
// API's refusal read back for one field.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../api/types.ts';
import { fieldError, initialForm, movedFields } from './connection-form.ts';

const saved = {
  ...initialForm(),
  id: 'c1',
  name: 'orders',
  host: 'DB.example.com',
  database: 'orders',
  username: 'app',
  ssl_mode: 'require',
} as unknown as Connection;

describe('moving a connection', () => {
  it('names what moves it to another server, and nothing else', () => {
    expect(movedFields(saved, { ...initialForm(saved), name: 'renamed', environment: 'staging' })).toEqual(
      [],
    );
    expect(movedFields(saved, { ...initialForm(saved), host: 'db.EXAMPLE.com' })).toEqual([]);
    expect(movedFields(saved, { ...initialForm(saved), ssl_mode: 'verify-full' })).toEqual([]);
    expect(
      movedFields(saved, {
        ...initialForm(saved),
        host: 'db.example.com.',
        port: 6543,
        database: 'other',
        username: 'root',
        ssl_mode: 'disable',
      }),
    ).toEqual(['host', 'port', 'database', 'user name', 'a weaker TLS mode']);
  });

  it("reads the API's refusal of one field", () => {
    const body = { detail: [{ loc: ['body', 'password'], msg: 'Field required: …', type: 'missing' }] };
    expect(fieldError(body, 'password')).toBe('Field required: …');
    expect(fieldError(body, 'host')).toBeUndefined();
    expect(fieldError({ detail: 'Connection not found' }, 'password')).toBeUndefined();
  });
});
