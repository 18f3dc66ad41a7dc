// The MySQL/MariaDB object rows → model mapping, on rows as MySQL 8 returns them (captured from
// information_schema and SHOW CREATE; no MySQL 8 server runs here): the database qualifier and
// DEFINER clauses go, view dependencies are read from the definition, options kept.
import { describe, expect, it } from 'vitest';
import { namedDependencies } from './mysql.model-dependencies.ts';
import { buildMysqlObjects, unqualified, withoutDefiner } from './mysql.model-objects.ts';

describe('MySQL objects from catalog rows', () => {
  it('reads views, triggers and routines as MySQL 8 prints them', () => {
    const objects = buildMysqlObjects(
      {
        views: [
          {
            name: 'active_users',
            definition:
              'select `shop`.`users`.`id` AS `id`,`shop`.`users`.`email` AS `email` from `shop`.`users` where (`shop`.`users`.`active` = 1)',
            check_option: 'CASCADED',
            security_type: 'INVOKER',
            current_schema: 'shop',
          },
          {
            name: 'emails',
            definition: 'select `active_users`.`email` AS `email` from `shop`.`active_users`',
            check_option: 'NONE',
            security_type: 'DEFINER',
            current_schema: 'shop',
          },
        ],
        triggers: [
          {
            name: 'users_touch',
            table_name: 'users',
            event: 'UPDATE',
            timing: 'BEFORE',
            statement: 'SET NEW.updated_at = NOW()',
            action_order: 1,
            create:
              'CREATE DEFINER=`admin`@`%` TRIGGER `users_touch` BEFORE UPDATE ON `users` FOR EACH ROW SET NEW.updated_at = NOW()',
          },
        ],
        routines: [
          {
            name: 'tax',
            type: 'FUNCTION',
            result: 'decimal(10,2)',
            comment: '',
            create:
              'CREATE DEFINER=`admin`@`%` FUNCTION `tax`(a decimal(10,2)) RETURNS decimal(10,2)\n    DETERMINISTIC\nRETURN a * 1.2',
          },
        ],
      },
      ['users'],
      new Map([
        [
          'active_users',
          [
            { name: 'id', type: 'int' },
            { name: 'email', type: 'varchar(255)' },
          ],
        ],
      ]),
    );
    expect(objects.views[0]).toMatchObject({
      name: 'active_users',
      definition:
        'select `users`.`id` AS `id`,`users`.`email` AS `email` from `users` where (`users`.`active` = 1)',
      options: ['check_option=cascaded', 'security=invoker'],
      columns: [
        { name: 'id', type: 'int' },
        { name: 'email', type: 'varchar(255)' },
      ],
      depends_on: [
        { kind: 'table', schema: null, name: 'users', column: 'active' },
        { kind: 'table', schema: null, name: 'users', column: 'email' },
        { kind: 'table', schema: null, name: 'users', column: 'id' },
        { kind: 'table', schema: null, name: 'users', column: null },
      ],
    });
    expect(objects.views[1]!.depends_on).toContainEqual({
      kind: 'view',
      schema: null,
      name: 'active_users',
      column: 'email',
    });
    expect(objects.triggers[0]!.definition).toBe(
      'CREATE TRIGGER `users_touch` BEFORE UPDATE ON `users` FOR EACH ROW SET NEW.updated_at = NOW()',
    );
    expect(objects.routines[0]).toMatchObject({
      kind: 'function',
      result: 'decimal(10,2)',
      comment: null,
      definition:
        'CREATE FUNCTION `tax`(a decimal(10,2)) RETURNS decimal(10,2)\n    DETERMINISTIC\nRETURN a * 1.2',
    });
  });

  it('removes only the current database qualifier and only the DEFINER clause', () => {
    expect(unqualified('select `db`.`t`.`a` from `db`.`t` join `other`.`u`', 'db')).toBe(
      'select `t`.`a` from `t` join `other`.`u`',
    );
    expect(withoutDefiner("CREATE DEFINER='root'@'localhost' PROCEDURE `p`() SELECT 'DEFINER=x'")).toBe(
      "CREATE PROCEDURE `p`() SELECT 'DEFINER=x'",
    );
  });

  it('reads what views, routines and trigger bodies name: relations in parenthesised joins, calls', () => {
    const known = {
      database: 'shop',
      relations: new Map<string, 'table' | 'view'>([
        ['product', 'table'],
        ['stock_move', 'table'],
        ['in_stock', 'view'],
        ['priced', 'view'],
      ]),
      routines: new Map([
        ['best_price', 'best_price'],
        ['log_move', 'log_move'],
      ]),
    };
    const names = (text: string, self?: { kind: 'routine'; name: string }, columns = true) =>
      namedDependencies(text, known, { self, columns })
        .map((ref) => `${ref.kind}:${ref.name}${ref.column === null ? '' : `.${ref.column}`}`)
        .sort();
    // As MariaDB stores a view: a join in parentheses, aliases, a call.
    expect(
      names(
        'select `i`.`id` AS `id`,`best_price`() AS `floor` from (`shop`.`in_stock` `i` join `shop`.`priced` `pp` on(`pp`.`id` = `i`.`id`))',
      ),
    ).toEqual(['routine:best_price', 'view:in_stock', 'view:priced']);
    // A body as written: bare names, CALL, another database's table, strings and comments skipped,
    // its own name (a recursive call) left out, an alias named like a table not read.
    expect(
      names(
        `CREATE PROCEDURE best_price() BEGIN
           -- product is not read here
           INSERT INTO stock_move (qty) SELECT 1 FROM archive.product AS product;
           CALL log_move(1, 'in_stock'); CALL best_price(); SELECT product.title FROM product;
         END`,
        { kind: 'routine', name: 'best_price' },
      ),
    ).toEqual(['routine:log_move', 'table:product', 'table:product.title', 'table:stock_move']);
    // A body's `t`.`c` is the relation alone when columns are not wanted.
    expect(names('SELECT product.title FROM archive.other', undefined, false)).toEqual(['table:product']);
    expect(names('SET NEW.qty = coalesce(NEW.qty, 0)')).toEqual([]);
  });
});
