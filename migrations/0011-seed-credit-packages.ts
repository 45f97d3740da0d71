import { sql, type Kysely } from 'kysely'

// The packages settled in DESIGN.md. Later price changes are new migrations, not edits here.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    INSERT INTO credit_packages (id, credits, price_cents, label, sort_order) VALUES
      ('starter', 100, 900, NULL, 1),
      ('studio', 500, 3900, 'Most popular', 2),
      ('agency', 2000, 12900, 'Best value', 3)
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM credit_packages WHERE id IN ('starter', 'studio', 'agency')`.execute(db)
}
