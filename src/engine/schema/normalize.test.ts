import { describe, expect, it } from 'vitest';
import {
  canonicalNumber,
  canonicalType,
  isMariaDbJsonCheck,
  looseDefault,
  normalizeDefault,
} from './normalize.ts';

const pg = (raw: string | null, type: string) => normalizeDefault(raw, { flavor: 'postgresql', type });
const maria = (raw: string | null, type: string) => normalizeDefault(raw, { flavor: 'mariadb', type });
const mysql8 = (raw: string | null, type: string, expression = false) =>
  normalizeDefault(raw, { flavor: 'mysql', type, expression });

describe('PostgreSQL defaults, as the catalog prints them', () => {
  it.each([
    ["'foo'::text", 'text', "'foo'"],
    ["'bar'::character varying", 'character varying(10)', "'bar'"],
    ["'-1'::integer", 'integer', '-1'],
    ["'-1'::integer", 'bigint', '-1'],
    ["'1000'::numeric", 'double precision', '1000'],
    ['false', 'boolean', 'false'],
    ["'f'::boolean", 'boolean', 'false'],
    ['CURRENT_TIMESTAMP', 'timestamp with time zone', 'current_timestamp'],
    ['now()', 'timestamp with time zone', 'current_timestamp'],
    ['transaction_timestamp()', 'timestamp with time zone', 'current_timestamp'],
    ["nextval('public.t_id_seq'::regclass)", 'integer', "nextval('public.t_id_seq')"],
    ["'happy'::public.mood", 'public.mood', "'happy'"],
    ['\'happy\'::"My Schema"."Mood"', '"My Schema"."Mood"', "'happy'"],
    ["'{}'::jsonb", 'jsonb', "'{}'"],
    ["'{}'::text[]", 'text[]', "'{}'"],
    [
      "'2007-01-01 00:00:00'::timestamp without time zone",
      'timestamp without time zone',
      "'2007-01-01 00:00:00'",
    ],
    ["'x'::character varying(10)", 'character varying(10)', "'x'"],
    ['(-1)', 'integer', '-1'],
    ['4.99', 'numeric(4,2)', '4.99'],
    ['4.990', 'numeric(5,3)', '4.99'],
  ])('%s on %s → %s', (raw, type, expected) => {
    expect(pg(raw, type)).toBe(expected);
  });

  it('treats every current-timestamp spelling as one value, keeping the precision', () => {
    const spellings = ['now()', 'CURRENT_TIMESTAMP', 'current_timestamp()', 'transaction_timestamp()'];
    expect(new Set(spellings.map((s) => pg(s, 'timestamp with time zone')))).toEqual(
      new Set(['current_timestamp']),
    );
    expect(pg('CURRENT_TIMESTAMP(3)', 'timestamp(3) with time zone')).toBe('current_timestamp(3)');
    expect(pg('CURRENT_TIMESTAMP(3)', 'timestamp(3) with time zone')).not.toBe(
      pg('now()', 'timestamp with time zone'),
    );
  });

  it('sees the varchar default left behind by ALTER COLUMN TYPE text as the same text default', () => {
    expect(pg("'bar'::character varying", 'text')).toBe(pg("'bar'::text", 'text'));
  });

  it('keeps case, spaces and casts inside string literals', () => {
    expect(pg("'Hello  World'::text", 'text')).toBe("'Hello  World'");
    expect(pg("'a::int'::text", 'text')).toBe("'a::int'");
    expect(pg("'it''s'::text", 'text')).toBe("'it''s'");
  });

  it('lower-cases keywords outside quotes only', () => {
    expect(pg("LOWER('ABC'::text)", 'text')).toBe("lower('ABC')");
    expect(pg('"MyFunc"()', 'text')).toBe('"MyFunc"()');
  });

  it('reads an explicit DEFAULT NULL as no default', () => {
    expect(pg('NULL::character varying', 'character varying')).toBeNull();
    expect(pg(null, 'text')).toBeNull();
  });

  it('tells different values apart', () => {
    expect(pg("'foo'::text", 'text')).not.toBe(pg("'bar'::text", 'text'));
    expect(pg('1', 'integer')).not.toBe(pg('2', 'integer'));
    expect(pg('true', 'boolean')).not.toBe(pg('false', 'boolean'));
    // A quoted number on a text column stays a string.
    expect(pg("'1'::text", 'text')).toBe("'1'");
  });
});

describe('MariaDB defaults', () => {
  it('unquotes nothing but compares quoted strings as the literal they are', () => {
    expect(maria("'foo'", 'varchar(10)')).toBe("'foo'");
    expect(maria("'it''s'", 'varchar(10)')).toBe("'it''s'");
    expect(maria("''", 'varchar(10)')).toBe("''");
  });

  it('writes current_timestamp() and current_timestamp(3) like the others', () => {
    expect(maria('current_timestamp()', 'timestamp')).toBe('current_timestamp');
    expect(maria('current_timestamp(3)', 'datetime(3)')).toBe('current_timestamp(3)');
    expect(maria('current_timestamp()', 'timestamp')).toBe(pg('now()', 'timestamp with time zone'));
  });

  it('reads the string NULL as no default', () => {
    expect(maria('NULL', 'int')).toBeNull();
    expect(maria("'NULL'", 'varchar(4)')).toBe("'NULL'");
  });

  it('compares numbers numerically', () => {
    expect(maria('1000', 'double')).toBe('1000');
    expect(maria('1e3', 'double')).toBe('1000');
    expect(maria('4.99', 'decimal(4,2)')).toBe('4.99');
    expect(maria('1', 'tinyint(1)')).toBe('1');
  });

  it('strips the outer parentheses of an expression default', () => {
    expect(maria('(1 + 2)', 'int')).toBe('1 + 2');
  });
});

describe('MySQL 8 defaults', () => {
  it('quotes bare string literals by column type', () => {
    expect(mysql8('foo', 'varchar(10)')).toBe("'foo'");
    expect(mysql8("it's", 'varchar(10)')).toBe("'it''s'");
    expect(mysql8('', 'varchar(10)')).toBe("''");
    expect(mysql8('G', "enum('G','PG')")).toBe("'G'");
    expect(mysql8('2006-01-01 00:00:00', 'datetime')).toBe("'2006-01-01 00:00:00'");
  });

  it('agrees with MariaDB on the same declarations', () => {
    expect(mysql8('foo', 'varchar(10)')).toBe(maria("'foo'", 'varchar(10)'));
    expect(mysql8('CURRENT_TIMESTAMP', 'timestamp', true)).toBe(maria('current_timestamp()', 'timestamp'));
    expect(mysql8('CURRENT_TIMESTAMP(3)', 'datetime(3)', true)).toBe(
      maria('current_timestamp(3)', 'datetime(3)'),
    );
    expect(mysql8('4.99', 'decimal(4,2)')).toBe(maria('4.99', 'decimal(4,2)'));
    expect(mysql8("b'101'", 'bit(3)')).toBe(maria("b'101'", 'bit(3)'));
  });

  it('keeps expression defaults as expressions', () => {
    expect(mysql8('(rand())', 'double', true)).toBe('rand()');
    expect(mysql8('now()', 'datetime', true)).toBe('current_timestamp');
  });
});

describe('canonicalType', () => {
  it.each([
    ['int(11)', 'int'],
    ['int(10) unsigned', 'int unsigned'],
    ['bigint(20)', 'bigint'],
    ['tinyint(1)', 'tinyint(1)'],
    ['tinyint(3) unsigned', 'tinyint unsigned'],
    ['smallint(5) unsigned zerofill', 'smallint(5) unsigned zerofill'],
    ['year(4)', 'year'],
    ['varchar(45)', 'varchar(45)'],
    ["enum('G','PG-13')", "enum('G','PG-13')"],
    ['INT', 'int'],
  ])('MariaDB %s → %s', (raw, expected) => {
    expect(canonicalType(raw, 'mariadb')).toBe(expected);
  });

  it('gives MySQL 8 and MariaDB the same name for the same declaration', () => {
    expect(canonicalType('int unsigned', 'mysql')).toBe(canonicalType('int(10) unsigned', 'mariadb'));
    expect(canonicalType('int', 'mysql')).toBe(canonicalType('int(11)', 'mariadb'));
  });

  it('names MariaDB json (longtext plus a json_valid check) json', () => {
    expect(canonicalType('longtext', 'mariadb', { json: true })).toBe('json');
    expect(canonicalType('longtext', 'mariadb')).toBe('longtext');
  });

  it('keeps enum values as written', () => {
    expect(canonicalType("ENUM('Yes','No')", 'mariadb')).toBe("enum('Yes','No')");
  });

  it('leaves PostgreSQL format_type() output alone', () => {
    expect(canonicalType('character varying(10)', 'postgresql')).toBe('character varying(10)');
  });
});

describe('isMariaDbJsonCheck', () => {
  it('recognises the check MariaDB adds to a json column', () => {
    expect(isMariaDbJsonCheck('doc', 'json_valid(`doc`)')).toBe(true);
    expect(isMariaDbJsonCheck('we`ird', 'json_valid(`we``ird`)')).toBe(true);
  });

  it('does not take other checks or other columns for it', () => {
    expect(isMariaDbJsonCheck('doc', 'json_valid(`other`)')).toBe(false);
    expect(isMariaDbJsonCheck('doc', "json_valid(`doc`) and `doc` <> '{}'")).toBe(false);
    expect(isMariaDbJsonCheck('doc', '`doc` > 0')).toBe(false);
  });
});

describe('canonicalNumber', () => {
  it.each([
    ['1e3', '1000'],
    ['1000.0', '1000'],
    ['-1', '-1'],
    ['+5', '5'],
    ['0.50', '0.5'],
    ['.5', '0.5'],
    ['-0', '0'],
    ['1.5e-2', '0.015'],
    ['00012', '12'],
    ['9223372036854775807', '9223372036854775807'],
  ])('%s → %s', (raw, expected) => {
    expect(canonicalNumber(raw)).toBe(expected);
  });

  it('refuses what is not a number', () => {
    expect(canonicalNumber('abc')).toBeNull();
    expect(canonicalNumber('.')).toBeNull();
    expect(canonicalNumber('')).toBeNull();
  });
});

describe('looseDefault', () => {
  it('equates defaults that differ only in casts, parentheses and spaces', () => {
    expect(looseDefault("lower(('ABC'::text)::character varying)")).toBe(looseDefault("lower('ABC')"));
    expect(looseDefault('(a + b)')).toBe(looseDefault('a+b'));
  });

  it('still tells different values apart', () => {
    expect(looseDefault("'a'")).not.toBe(looseDefault("'b'"));
  });
});
