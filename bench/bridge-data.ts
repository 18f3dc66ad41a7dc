// The bridge bench's data (bench/bridge.ts): three FK-linked tables (customers 1 : orders 3 :
// order_lines 6) of about 150 bytes a row, generated on the servers themselves, the same rows on
// PostgreSQL and on MariaDB.

export const PG_TABLES = `
  create table customers (id integer primary key, name text not null, email text, city text, created_at timestamptz);
  create table orders (id bigint primary key, customer_id integer not null, total numeric(12,2), status text, note text,
    placed_at timestamp);
  create table order_lines (id bigint primary key, order_id bigint not null, sku text, qty integer, price numeric(10,2),
    description text);
`;
export const PG_KEYS = `
  alter table orders add constraint orders_customer_fk foreign key (customer_id) references customers (id);
  alter table order_lines add constraint lines_order_fk foreign key (order_id) references orders (id);
`;
export const PG_DROP_KEYS = `
  alter table order_lines drop constraint lines_order_fk;
  alter table orders drop constraint orders_customer_fk;
`;
export const TABLES = ['customers', 'orders', 'order_lines'] as const;

export function pgData(rows: number): string {
  const c = Math.round(rows / 10);
  const o = c * 3;
  const l = rows - c - o;
  return `
    insert into customers select i, 'Customer number ' || i, 'customer' || i || '@example.com', 'City ' || (i % 1000),
      timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute' from generate_series(1, ${c}) i;
    insert into orders select i, 1 + (i % ${c}), (i % 10000) * 1.37, 'shipped', 'order note ' || md5(i::text),
      timestamp '2024-01-01 00:00:00' + i * interval '10 seconds' from generate_series(1, ${o}) i;
    insert into order_lines select i, 1 + (i % ${o}), 'SKU-' || (i % 50000), 1 + i % 7, (i % 5000) * 0.99,
      'line description ' || md5(i::text) from generate_series(1, ${l}) i;
    analyze;`;
}

export function mysqlData(rows: number): string {
  const c = Math.round(rows / 10);
  const o = c * 3;
  const l = rows - c - o;
  return `
    create table customers (id int primary key, name varchar(200) not null, email varchar(200), city varchar(100), created_at datetime(6));
    create table orders (id bigint primary key, customer_id int not null, total decimal(12,2), status varchar(20),
      note varchar(200), placed_at datetime, constraint orders_customer_fk foreign key (customer_id) references customers (id));
    create table order_lines (id bigint primary key, order_id bigint not null, sku varchar(40), qty int, price decimal(10,2),
      description varchar(200), constraint lines_order_fk foreign key (order_id) references orders (id));
    set foreign_key_checks = 0;
    insert into customers select seq, concat('Customer number ', seq), concat('customer', seq, '@example.com'),
      concat('City ', seq % 1000), timestamp '2024-01-01 00:00:00' + interval seq minute from seq_1_to_${c};
    insert into orders select seq, 1 + (seq % ${c}), (seq % 10000) * 1.37, 'shipped', concat('order note ', md5(seq)),
      timestamp '2024-01-01 00:00:00' + interval (seq * 10) second from seq_1_to_${o};
    insert into order_lines select seq, 1 + (seq % ${o}), concat('SKU-', seq % 50000), 1 + seq % 7, (seq % 5000) * 0.99,
      concat('line description ', md5(seq)) from seq_1_to_${l};
    analyze table customers, orders, order_lines;`;
}
