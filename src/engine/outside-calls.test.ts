import { describe, expect, it } from 'vitest';
import { outsideCallReason, outsideCalls, outsideCallsInBody, sequenceMoves } from './outside-calls.ts';

describe('outsideCalls (postgresql)', () => {
  const calls = (sql: string) => outsideCalls(sql, 'postgresql');

  it('finds file, large-object and other-server routines, bare, qualified or quoted', () => {
    expect(calls("UPDATE t SET a = pg_read_file('/etc/hostname') WHERE id = 1")).toEqual(['pg_read_file']);
    expect(calls(`SELECT pg_catalog."pg_read_file"('/etc/passwd')`)).toEqual(['pg_read_file']);
    expect(calls(`SELECT "PG_READ_BINARY_FILE"('x')`)).toEqual(['pg_read_binary_file']);
    expect(calls(`SELECT U&"pg\\005fread_file"('x')`)).toEqual(['pg_read_file']);
    expect(calls(`SELECT U&"pg!005fread_file" UESCAPE '!'('x')`)).toEqual(['pg_read_file']);
    expect(calls("SELECT * FROM pg_ls_dir('.'), pg_ls_waldir(), pg_stat_file('x')")).toEqual([
      'pg_ls_dir',
      'pg_ls_waldir',
      'pg_stat_file',
    ]);
    expect(calls("SELECT lo_import('/etc/passwd'), lo_export(1, '/tmp/x'), lo_get(1)")).toEqual([
      'lo_import',
      'lo_export',
      'lo_get',
    ]);
    expect(calls("SELECT dblink_connect('host=evil'), public.dblink_exec('x')")).toEqual([
      'dblink_connect',
      'dblink_exec',
    ]);
    expect(calls("UPDATE t SET x = query_to_xml('select 1', true, true, '')::text WHERE id = 1")).toEqual([
      'query_to_xml',
    ]);
  });

  it('finds COPY to or from a program or a server file, not STDIN/STDOUT', () => {
    expect(calls("COPY t TO PROGRAM 'touch /tmp/x'")).toEqual(['copy … program']);
    expect(calls("COPY t FROM '/etc/passwd'")).toEqual(['copy … from file']);
    expect(calls("COPY (SELECT 1) TO '/tmp/out'")).toEqual(['copy … to file']);
    expect(calls('COPY t FROM STDIN')).toEqual([]);
    expect(calls('COPY (SELECT 1) TO STDOUT')).toEqual([]);
  });

  it('finds server-level statements, untrusted languages and outside-reaching extensions', () => {
    expect(calls("ALTER SYSTEM SET work_mem = '1GB'")).toEqual(['alter system']);
    expect(calls("LOAD '/tmp/evil.so'")).toEqual(['load']);
    expect(calls('CREATE EXTENSION IF NOT EXISTS dblink')).toEqual(['create extension dblink', 'dblink']);
    expect(calls("CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'x')")).toEqual([
      'create server',
    ]);
    expect(calls('CREATE FUNCTION f() RETURNS int LANGUAGE plpython3u AS $$import os$$')).toEqual([
      'language plpython3u',
    ]);
    expect(calls("CREATE FUNCTION f(text) RETURNS text LANGUAGE internal AS 'pg_read_file_off_len'")).toEqual(
      ['language internal', 'pg_read_file_off_len'],
    );
  });

  it('reads DO blocks and routine bodies as code, since the server runs them', () => {
    expect(calls("DO $$BEGIN PERFORM pg_read_file('x'); END$$")).toEqual(['pg_read_file']);
    expect(
      calls(
        "CREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $b$ BEGIN RETURN lo_import('/x')::text; END $b$",
      ),
    ).toEqual(['lo_import']);
    expect(calls('CREATE OPERATOR ### (FUNCTION = pg_read_file, LEFTARG = text, RIGHTARG = bigint)')).toEqual(
      ['pg_read_file'],
    );
  });

  it('does not count strings or comments', () => {
    expect(calls("UPDATE notes SET body = 'see pg_read_file(''x'')' WHERE id = 1 -- lo_import\n")).toEqual(
      [],
    );
    expect(calls("/* COPY t TO PROGRAM 'x' */ UPDATE t SET a = 'COPY t TO PROGRAM' WHERE id = 1")).toEqual(
      [],
    );
    expect(calls("UPDATE t SET a = $$dblink('x')$$ WHERE id = 1")).toEqual([]);
    expect(calls("INSERT INTO t (a, b) VALUES ('load', 'program')")).toEqual([]);
  });

  it('judges text the scanner refuses by its words', () => {
    expect(calls("SELECT pg_read_file('unterminated")).toEqual(['pg_read_file']);
  });
});

describe('outsideCalls (mysql)', () => {
  const calls = (sql: string) => outsideCalls(sql, 'mysql');

  it('finds server files, UDFs and the outside-reaching constructs', () => {
    expect(calls("UPDATE t SET a = LOAD_FILE('/etc/passwd') WHERE id = 1")).toEqual(['load_file']);
    expect(calls("UPDATE t SET a = `load_file`('/etc/passwd') WHERE id = 1")).toEqual(['load_file']);
    expect(calls('UPDATE t SET a = "load_file"(\'/etc/passwd\') WHERE id = 1')).toEqual(['load_file']);
    expect(calls("SELECT sys_exec('touch /tmp/x'), sys_eval('id')")).toEqual(['sys_exec', 'sys_eval']);
    expect(calls("SELECT * FROM t INTO OUTFILE '/tmp/x'")).toEqual(['into outfile']);
    expect(calls("SELECT a FROM t INTO DUMPFILE '/tmp/x'")).toEqual(['into dumpfile']);
    expect(calls("LOAD DATA INFILE '/etc/passwd' INTO TABLE t")).toEqual(['load data']);
    expect(calls("LOAD XML INFILE '/x.xml' INTO TABLE t")).toEqual(['load xml']);
    expect(calls("CREATE FUNCTION sys_exec RETURNS INT SONAME 'lib_mysqludf_sys.so'")).toEqual([
      'sys_exec',
      'soname',
    ]);
    expect(calls("INSTALL SONAME 'ha_connect'")).toEqual(['install soname', 'soname']);
    expect(calls("CREATE TABLE f (a int) ENGINE=CONNECT TABLE_TYPE=CSV FILE_NAME='/etc/passwd'")).toEqual([
      'engine connect',
    ]);
    expect(calls("CREATE TABLE f (a int) ENGINE FEDERATED CONNECTION='mysql://x'")).toEqual([
      'engine federated',
    ]);
    expect(calls("CREATE TABLE f (a int) DATA DIRECTORY = '/tmp'")).toEqual(['data directory']);
    expect(calls('SET PERSIST max_connections = 1')).toEqual(['set persist']);
  });

  it('reads executable comments as the code they are, and PREPARE strings as SQL', () => {
    expect(calls("UPDATE t SET a = /*! LOAD_FILE('/etc/passwd') */ 1 WHERE id = 1")).toEqual(['load_file']);
    expect(calls("UPDATE t SET a = /*M!100100 LOAD_FILE('/x') */ 1 WHERE id = 1")).toEqual(['load_file']);
    expect(calls("PREPARE s FROM 'SELECT LOAD_FILE(\\'/etc/passwd\\')'")).toEqual(['load_file']);
  });

  it('does not count strings or comments', () => {
    expect(calls("UPDATE t SET a = 'LOAD_FILE(x) INTO OUTFILE' WHERE id = 1 # sys_exec(1)\n")).toEqual([]);
    expect(calls("UPDATE t SET a = 1 WHERE id = 1 /* LOAD DATA INFILE 'x' */")).toEqual([]);
    expect(calls('INSERT INTO t (a) VALUES ("load_file")')).toEqual([]);
  });
});

describe('outsideCallsInBody', () => {
  it('reads string literals too, where dynamic SQL hides', () => {
    expect(
      outsideCallsInBody("BEGIN EXECUTE 'SELECT pg_read_file(''/etc/passwd'')'; END", 'postgresql'),
    ).toEqual(['pg_read_file']);
    expect(
      outsideCallsInBody(
        'BEGIN SET @q = \'SELECT sys_exec("id")\'; PREPARE s FROM @q; EXECUTE s; END',
        'mysql',
      ),
    ).toEqual(['sys_exec']);
    expect(outsideCallsInBody("nextval('t_id_seq'::regclass)", 'postgresql')).toEqual([]);
    expect(outsideCallsInBody('(price > 0)', 'mysql')).toEqual([]);
  });

  it('finds a construct split across string pieces by its words', () => {
    expect(
      outsideCallsInBody(
        "BEGIN EXECUTE 'copy (select 1) to program ''touch ' || path || ''''; RETURN 1; END",
        'postgresql',
      ),
    ).toEqual(['copy … program']);
    expect(outsideCallsInBody("SET @q = CONCAT('SELECT 1 INTO OUTFILE ''', @path, '''')", 'mysql')).toEqual([
      'into outfile',
    ]);
  });

  it('reads a body in a language the scanner does not know by its words', () => {
    expect(
      outsideCallsInBody('import os\nplpy.execute("select lo_export(1, \'/x\')")', 'postgresql'),
    ).toEqual(['lo_export']);
  });
});

describe('sequenceMoves', () => {
  it('finds setval and nextval, not currval, strings or comments (postgresql)', () => {
    expect(
      sequenceMoves(
        "UPDATE c SET name = 'x' WHERE id = 1 AND setval('customers_id_seq', 777777) > 0",
        'postgresql',
      ),
    ).toEqual(['setval']);
    expect(sequenceMoves(`INSERT INTO t (id) VALUES (pg_catalog."nextval"('s'))`, 'postgresql')).toEqual([
      'nextval',
    ]);
    expect(sequenceMoves("SELECT currval('s'), 'nextval(x)' -- setval\n", 'postgresql')).toEqual([]);
  });

  it('finds NEXTVAL, SETVAL and NEXT VALUE FOR, not LASTVAL or PREVIOUS VALUE FOR (mysql)', () => {
    expect(sequenceMoves('INSERT INTO t (id) VALUES (NEXT VALUE FOR s)', 'mysql')).toEqual([
      'next value for',
    ]);
    expect(sequenceMoves('UPDATE t SET a = NEXTVAL(s) + SETVAL(s, 5) WHERE id = 1', 'mysql')).toEqual([
      'nextval',
      'setval',
    ]);
    expect(sequenceMoves('UPDATE t SET a = LASTVAL(s) + PREVIOUS VALUE FOR s WHERE id = 1', 'mysql')).toEqual(
      [],
    );
  });
});

describe('outsideCallReason', () => {
  it('says why each kind of name is refused', () => {
    expect(outsideCallReason('pg_read_file')).toBe('reads a server file');
    expect(outsideCallReason('dblink_connect')).toContain('another server');
    expect(outsideCallReason('copy … program')).toContain('program');
    expect(outsideCallReason('load')).toContain('shared library');
  });
});
