import { sql, type Kysely } from 'kysely'

// This server's measured speed per tool and variant (the remover's model choice; '' for the other tools) (app/features/tools/run-rates.server.ts): the
// factor on the tool's seed cost (run-time.ts), a moving estimate updated by every delivered run, so
// a restart (or another instance) estimates with what was measured.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tool_rates (
      tool text NOT NULL CHECK (char_length(tool) BETWEEN 1 AND 64),
      variant text NOT NULL CHECK (char_length(variant) <= 64),
      factor double precision NOT NULL CHECK (factor > 0),
      samples integer NOT NULL DEFAULT 0 CHECK (samples >= 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tool, variant)
    )
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE tool_rates`.execute(db)
}
