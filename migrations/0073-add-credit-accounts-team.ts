import { sql, type Kysely } from 'kysely'

// A team's one credit account, in the same ledger: an account belongs to exactly one of a user, a
// visitor or a team.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE credit_accounts ADD COLUMN team_id uuid UNIQUE REFERENCES teams (id)`.execute(db)
  await sql`ALTER TABLE credit_accounts DROP CONSTRAINT credit_accounts_check`.execute(db)
  await sql`
    ALTER TABLE credit_accounts ADD CONSTRAINT credit_accounts_one_owner
      CHECK (num_nonnulls(user_id, visitor_id, team_id) = 1)
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM credit_accounts WHERE team_id IS NOT NULL`.execute(db)
  await sql`ALTER TABLE credit_accounts DROP CONSTRAINT credit_accounts_one_owner`.execute(db)
  await sql`ALTER TABLE credit_accounts DROP COLUMN team_id`.execute(db)
  await sql`ALTER TABLE credit_accounts ADD CONSTRAINT credit_accounts_check CHECK ((user_id IS NULL) <> (visitor_id IS NULL))`.execute(db)
}
