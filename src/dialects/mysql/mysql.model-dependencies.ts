// What a MySQL/MariaDB view, routine or trigger reads, from its text: the server keeps no dependency
// records (VIEW_TABLE_USAGE is MySQL 8's alone, and says nothing of routines), so the text is read
// through the lexer (strings and comments skipped) and every name in it that is one of the
// database's relations or routines counts. A view's stored definition names everything quoted and
// qualified (`db`.`t`, `t`.`c`, `f`(…)), also inside parenthesised joins; a routine's or trigger's
// body is as its author wrote it. A name that only looks like one (a local variable called like a
// table) adds an ordering edge and nothing else: it never changes what is compared.
import { lexMysql } from '../../engine/mysql-sql-lexer.ts';
import type { DependencyRef } from '../../engine/schema/objects.ts';

export interface KnownObjects {
  /** The database's own name: `db`.`x` is x. */
  database: string | null;
  /** Tables and views by name (table names are case-sensitive on the servers we run). */
  relations: Map<string, 'table' | 'view'>;
  /** Routines by lower-case name (routine names are not case-sensitive), as the model names them. */
  routines: Map<string, string>;
}

interface Name {
  name: string;
  /** Quoted or bare: a bare keyword is never a relation or a routine. */
  text: string;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The tokens that matter: names (quoted or bare) and symbols, without space and comments. */
function significant(text: string): (Name | { symbol: string } | { other: true })[] {
  return lexMysql(text)
    .filter((lexeme) => lexeme.kind !== 'space' && lexeme.kind !== 'comment')
    .map((lexeme) => {
      if (lexeme.kind === 'quoted_name')
        return {
          name: lexeme.text.slice(1, lexeme.closed ? -1 : undefined).replace(/``/g, '`'),
          text: lexeme.text,
        };
      if (lexeme.kind === 'word') return { name: lexeme.text, text: lexeme.text };
      if (lexeme.kind === 'symbol') return { symbol: lexeme.text };
      return { other: true };
    });
}

/**
 * The relations, columns (`t`.`c` of a relation) and routines `text` names, sorted; `self` (the
 * object whose text it is) left out. `columns: false` reads `t`.`c` as the relation alone: a
 * routine or trigger body is bound when it runs, so a column retyped under it needs nothing of it,
 * and stepping it aside would only leave a moment without it (MySQL's DDL is not transactional).
 */
export function namedDependencies(
  text: string,
  known: KnownObjects,
  options: { self?: { kind: DependencyRef['kind']; name: string }; columns?: boolean } = {},
): DependencyRef[] {
  const { self, columns = true } = options;
  const tokens = significant(text);
  const out = new Map<string, DependencyRef>();
  const add = (ref: DependencyRef) => {
    if (self && ref.kind === self.kind && ref.name === self.name) return;
    const key = JSON.stringify([ref.kind, ref.name, ref.column]);
    if (!out.has(key)) out.set(key, ref);
  };
  const nameAt = (at: number): Name | null => {
    const token = tokens[at];
    return token && 'name' in token ? token : null;
  };
  const symbolAt = (at: number) => {
    const token = tokens[at];
    return token && 'symbol' in token ? token.symbol : null;
  };
  for (let at = 0; at < tokens.length; at += 1) {
    const token = nameAt(at);
    if (token === null) continue;
    // `db`.`x`: the database's own qualifier is skipped, another database's objects are not ours.
    let qualifier: string | null = null;
    if (symbolAt(at - 1) === '.') {
      qualifier = nameAt(at - 2)?.name ?? null;
      if (qualifier !== null && qualifier === known.database && symbolAt(at - 3) !== '.') qualifier = null;
      else if (qualifier !== null && !known.relations.has(qualifier)) continue;
    }
    if (qualifier !== null) {
      // `t`.`c`: a column of a relation (an alias named like a relation reads as that relation).
      add({
        kind: known.relations.get(qualifier)!,
        schema: null,
        name: qualifier,
        column: columns ? token.name : null,
      });
      continue;
    }
    if (symbolAt(at + 1) === '.' && nameAt(at + 2) !== null) {
      // A qualifier: the relation itself is read, its column is added with the next name.
      if (token.name !== known.database) {
        const kind = known.relations.get(token.name);
        if (kind) add({ kind, schema: null, name: token.name, column: null });
      }
      continue;
    }
    const previous = nameAt(at - 1)?.text.toLowerCase();
    const routine = known.routines.get(token.name.toLowerCase());
    if (routine !== undefined && (symbolAt(at + 1) === '(' || previous === 'call')) {
      add({ kind: 'routine', schema: null, name: routine, column: null });
      continue;
    }
    // `x AS name`: an alias, whatever it is called.
    if (previous === 'as') continue;
    const kind = known.relations.get(token.name);
    if (kind) add({ kind, schema: null, name: token.name, column: null });
  }
  return [...out.values()].sort((a, b) => byText(JSON.stringify(a), JSON.stringify(b)));
}
