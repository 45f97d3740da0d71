import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE credit_packages (
      id text PRIMARY KEY,
      credits integer NOT NULL CHECK (credits > 0),
      price_cents integer NOT NULL CHECK (price_cents >= 0),
      label text,
      sort_order integer NOT NULL DEFAULT 0,
      active boolean NOT NULL DEFAULT true
    )
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE credit_packages`.execute(db)
}
