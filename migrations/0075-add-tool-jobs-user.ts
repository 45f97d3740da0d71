import { sql, type Kysely } from 'kysely'

// The member who sent a job (a team's batch item is charged to the team, on the member's behalf, when it starts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE SET NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs DROP COLUMN user_id`.execute(db)
}
