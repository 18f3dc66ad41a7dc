// Where a password is masked in what a server or driver said, and where it is not: pure text in,
// text out. The real servers' own messages are in src/modules/connections/password-masking.test.ts.
import { describe, expect, it } from 'vitest';
import { maskSecret } from './secret-mask.ts';

describe('maskSecret', () => {
  it('leaves a short password inside ordinary words alone', () => {
    expect(maskSecret('type "public.year" does not exist', 'x')).toBe('type "public.year" does not exist');
    expect(maskSecret('database "orders" does not exist', 'e')).toBe('database "orders" does not exist');
    expect(maskSecret('column s_x_t is ambiguous', 'x')).toBe('column s_x_t is ambiguous');
  });

  it('masks the password standing as a whole token', () => {
    expect(maskSecret('password authentication failed (got "x")', 'x')).toBe(
      'password authentication failed (got "***")',
    );
    expect(maskSecret('could not connect with Pw-9f2a', 'Pw-9f2a')).toBe('could not connect with ***');
    // A password of punctuation has no word to be inside of: every occurrence is the secret.
    expect(maskSecret('sent p@ss! twice: p@ss!p@ss!', 'p@ss!')).toBe('sent *** twice: ******');
    expect(maskSecret('got ünï', 'ünï')).toBe('got ***');
    expect(maskSecret('got ünïx', 'ünï')).toBe('got ünïx');
  });

  it('masks the user info of a connection URL, whatever the password is', () => {
    expect(maskSecret('cannot reach postgres://app:s3cr%40t@db:5432/x', 's3cr@t')).toBe(
      'cannot reach postgres://app:***@db:5432/x',
    );
    expect(maskSecret('mysql://root:other@127.0.0.1/test failed', '')).toBe(
      'mysql://root:***@127.0.0.1/test failed',
    );
  });

  it("masks the driver's echo of its options, and keeps MySQL's 'using password: YES'", () => {
    expect(maskSecret("host=db user=app password='a b' dbname=x", 'a b')).toBe(
      'host=db user=app password=*** dbname=x',
    );
    expect(maskSecret('options {"password":"zz","user":"app"}', '')).toBe(
      'options {"password":***,"user":"app"}',
    );
    expect(maskSecret("{ user: 'app', password: 'zz' }", '')).toBe("{ user: 'app', password: *** }");
    expect(maskSecret("Access denied for user 'root'@'localhost' (using password: YES)", 'e')).toBe(
      "Access denied for user 'root'@'localhost' (using password: YES)",
    );
  });

  it('masks the percent-encoded password as a token too', () => {
    expect(maskSecret('dsn app:a%2Fb@db', 'a/b')).toBe('dsn app:***@db');
  });
});
