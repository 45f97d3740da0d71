import { sql, type Kysely } from 'kysely'

// Guest credits per client address (an IPv4 address or an IPv6 /64) and UTC day: how many visitor
// identities were minted there and how many guest credits were granted there (decision 080). The
// shared visitor of an address takes in every browser past the address's identity budget.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE guest_address_days (
      address text NOT NULL,
      day date NOT NULL,
      identities integer NOT NULL DEFAULT 0 CHECK (identities >= 0),
      credits integer NOT NULL DEFAULT 0 CHECK (credits >= 0),
      PRIMARY KEY (address, day)
    )
  `.execute(db)
  // Past days are deleted as new ones begin (visitor.server.ts): by day, not by address.
  await sql`CREATE INDEX guest_address_days_day ON guest_address_days (day)`.execute(db)
  await sql`ALTER TABLE visitors ADD COLUMN shared_address text UNIQUE`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE visitors DROP COLUMN shared_address`.execute(db)
  await sql`DROP TABLE guest_address_days`.execute(db)
}
