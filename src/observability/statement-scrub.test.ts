import { describe, expect, it } from 'vitest';
import { scrubStatement } from './statement-scrub.ts';

describe('scrubStatement', () => {
  it('replaces every PostgreSQL literal by ? and keeps identifiers and placeholders', () => {
    expect(
      scrubStatement(
        `UPDATE "users" SET email = 'a''b@example.com', n = n + 1.5e3 WHERE id = $1 AND t1.code = E'x\\'y' AND s = $$secret$$ AND k = $tag$x$tag$`,
        'postgresql',
      ),
    ).toBe(`UPDATE "users" SET email = ?, n = n + ? WHERE id = $1 AND t1.code = ? AND s = ? AND k = ?`);
  });

  it('drops comments, which may hold anything', () => {
    expect(scrubStatement('select 1 -- password hunter2\nfrom t /* token abc */', 'postgresql')).toBe(
      'select ?  \nfrom t  ',
    );
  });

  it('replaces MySQL strings in either quote, hex and bit literals, and keeps `names`', () => {
    expect(
      scrubStatement("INSERT INTO `t-1` (a, b, c, d) VALUES ('it\\'s', \"x\", 0xFF, .5) # note", 'mysql'),
    ).toBe('INSERT INTO `t-1` (a, b, c, d) VALUES (?, ?, ?, ?)  ');
  });

  it('keeps nothing after an unterminated quote', () => {
    expect(scrubStatement("select * from t where a = 'never closed, secret", 'postgresql')).toBe(
      'select * from t where a = ?',
    );
    expect(scrubStatement('select * from t where a = "secret', 'mysql')).toBe('select * from t where a = ?');
  });

  it('leaves a parameterised statement as it is', () => {
    const text = 'select "id", "name" from "projects" where "org_id" = $1 limit $2';
    expect(scrubStatement(text, 'postgresql')).toBe(text);
    expect(scrubStatement('select id from t where a = ? and b = ?', 'mysql')).toBe(
      'select id from t where a = ? and b = ?',
    );
  });
});
