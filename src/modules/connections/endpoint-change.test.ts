// Which edits move a stored password to another endpoint: every endpoint field, hosts compared by
// their letter-case-folded spelling only, ssl_mode by strength, CAs under verify-full only.
import { describe, expect, it } from 'vitest';
import {
  type EndpointSettings,
  hostKey,
  passwordMovingChanges,
  passwordRequiredMessage,
  SSL_MODE_STRENGTH,
} from './endpoint-change.ts';

const stored: EndpointSettings = {
  dialect: 'postgresql',
  host: 'DB.Example.com',
  port: 5432,
  database: 'app',
  username: 'app',
  ssl_mode: 'require',
  ca_cert: null,
};

describe('endpoint changes', () => {
  it('orders ssl modes from no TLS to a checked certificate', () => {
    expect(SSL_MODE_STRENGTH.disable).toBeLessThan(SSL_MODE_STRENGTH.require);
    expect(SSL_MODE_STRENGTH.require).toBeLessThan(SSL_MODE_STRENGTH['verify-full']);
  });

  it('folds ASCII letter case of hosts and nothing else', () => {
    expect(hostKey('DB.Example.COM')).toBe('db.example.com');
    expect(hostKey('FE80::1%ETH0')).toBe('fe80::1%ETH0');
    // Not folded: a trailing dot, other spellings of an address, non-ASCII letters.
    expect(hostKey('db.example.com.')).not.toBe(hostKey('db.example.com'));
    expect(hostKey('127.1')).not.toBe(hostKey('127.0.0.1'));
    expect(hostKey('\u212Aey')).not.toBe(hostKey('key')); // KELVIN SIGN folds to k outside ASCII
  });

  it('names each field that moves the password, and no value equal to the stored one', () => {
    expect(passwordMovingChanges(stored, {})).toEqual([]);
    expect(passwordMovingChanges(stored, { ...stored, host: 'db.example.com' })).toEqual([]);
    expect(passwordMovingChanges(stored, { ssl_mode: 'verify-full', ca_cert: 'x' })).toEqual([]);
    expect(
      passwordMovingChanges(stored, {
        dialect: 'mysql',
        host: 'db.example.com.',
        port: 5433,
        database: 'App',
        username: 'App',
        ssl_mode: 'disable',
      }),
    ).toEqual(['dialect', 'host', 'port', 'database', 'username', 'ssl_mode']);
  });

  it('counts other CAs only while verify-full stays, line endings aside', () => {
    const verified = { ...stored, ssl_mode: 'verify-full' as const, ca_cert: 'A\nB\n' };
    expect(passwordMovingChanges(verified, { ca_cert: 'A\r\nB' })).toEqual([]);
    expect(passwordMovingChanges(verified, { ca_cert: null })).toEqual(['ca_cert']);
    expect(passwordMovingChanges(verified, { ca_cert: 'C' })).toEqual(['ca_cert']);
    expect(passwordMovingChanges(verified, { ssl_mode: 'require', ca_cert: null })).toEqual(['ssl_mode']);
    expect(passwordMovingChanges(stored, { ca_cert: 'C' })).toEqual([]);
  });

  it('says what moved', () => {
    expect(passwordRequiredMessage(stored, ['port', 'ssl_mode'], { port: 1, ssl_mode: 'disable' })).toBe(
      'Field required: changing port and lowering ssl_mode from require to disable needs the password ' +
        'in the same request. A stored password is only sent to the server it was given for.',
    );
  });
});
