// The shop schema of the realistic-data bench (bench/shop.ts) on both engines: customers → orders →
// order_items, two foreign keys, a secondary index on each child's key and one on the customers'
// e-mails, text-heavy rows with NULLs in the optional columns and a JSON column. The keys are apart
// from the tables so that a reference can load first and add them after, as the service does.

export const SHOP_TABLES = ['customers', 'orders', 'order_items'] as const;
export type ShopTable = (typeof SHOP_TABLES)[number];

/** Rows of each table for `rows` in all: 1 : 3 : 6. */
export function shopSizes(rows: number): Record<ShopTable, number> {
  const customers = Math.max(1, Math.round(rows / 10));
  const orders = customers * 3;
  return { customers, orders, order_items: Math.max(1, rows - customers - orders) };
}

export const ORDER_STATUSES = ['new', 'paid', 'shipped', 'delivered', 'cancelled'] as const;
const statusCheck = `check (status in (${ORDER_STATUSES.map((s) => `'${s}'`).join(', ')}))`;

export const PG_SHOP_TABLES = `
  create table customers (id bigint primary key, first_name varchar(80) not null, last_name varchar(80) not null,
    email varchar(254) not null, phone varchar(40), street varchar(160), city varchar(80), country char(2) not null,
    preferences jsonb, created_at timestamptz not null, updated_at timestamptz);
  create table orders (id bigint primary key, customer_id bigint not null, status varchar(16) not null ${statusCheck},
    total numeric(12,2) not null, currency char(3) not null, placed_at timestamptz not null, shipped_at timestamptz,
    note text);
  create table order_items (id bigint primary key, order_id bigint not null, product_name varchar(200) not null,
    quantity integer not null check (quantity > 0), unit_price numeric(10,2) not null);
`;

export const PG_CUSTOMERS_INDEX = 'create index customers_email_idx on customers (email);';

/** The secondary indexes: a reference that loads fast builds them after its rows, as it adds the keys. */
export const PG_SHOP_INDEXES = `
  ${PG_CUSTOMERS_INDEX}
  create index orders_customer_idx on orders (customer_id);
  create index order_items_order_idx on order_items (order_id);
`;

export const PG_SHOP_DROP_INDEXES = `
  drop index if exists customers_email_idx, orders_customer_idx, order_items_order_idx;
`;

export const PG_SHOP_KEYS = `
  alter table orders add constraint orders_customer_fk foreign key (customer_id) references customers (id);
  alter table order_items add constraint order_items_order_fk foreign key (order_id) references orders (id);
`;

export const PG_SHOP_DROP_KEYS = `
  alter table order_items drop constraint if exists order_items_order_fk;
  alter table orders drop constraint if exists orders_customer_fk;
`;

/** The whole schema as a target or a source has it: tables, secondary indexes, foreign keys. */
export const PG_SHOP_SCHEMA = PG_SHOP_TABLES + PG_SHOP_INDEXES + PG_SHOP_KEYS;

/** The customers table alone, with its index, for a copy of that one table (the anonymized bridge's). */
export const PG_CUSTOMERS_ONLY = `${PG_SHOP_TABLES.split(';')[0]!}; ${PG_CUSTOMERS_INDEX}`;

export const MYSQL_SHOP_TABLES = `
  create table customers (id bigint primary key, first_name varchar(80) not null, last_name varchar(80) not null,
    email varchar(254) not null, phone varchar(40), street varchar(160), city varchar(80), country char(2) not null,
    preferences json, created_at datetime not null, updated_at datetime, key customers_email_idx (email))
    default charset utf8mb4 collate utf8mb4_unicode_ci;
  create table orders (id bigint primary key, customer_id bigint not null, status varchar(16) not null ${statusCheck},
    total decimal(12,2) not null, currency char(3) not null, placed_at datetime not null, shipped_at datetime,
    note text, key orders_customer_idx (customer_id)) default charset utf8mb4 collate utf8mb4_unicode_ci;
  create table order_items (id bigint primary key, order_id bigint not null, product_name varchar(200) not null,
    quantity int not null check (quantity > 0), unit_price decimal(10,2) not null, key order_items_order_idx (order_id))
    default charset utf8mb4 collate utf8mb4_unicode_ci;
`;

export const MYSQL_SHOP_KEYS = PG_SHOP_KEYS;
