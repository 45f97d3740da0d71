// The operator commands: a name, JSON arguments (checked with zod) and a JSON answer. The same
// table serves `npm run …` scripts whether they run the command themselves (no studio running) or
// hand it to the running studio over the operator channel (channel.server.ts). A new command
// (e.g. `grant-team`) is one more entry here.
import { z } from 'zod'
import { getDb, type DbOrTx } from '~/db/db.server'
import { creditCommands } from '~/features/operator/credits.server'
import { teamCommands } from '~/features/operator/teams.server'
import { OperatorError } from './errors'

export { OperatorError }

export interface OperatorCommand<Args = unknown, Answer = unknown> {
  args: z.ZodType<Args>
  run(args: Args, db: DbOrTx): Promise<Answer>
}

/** Identity helper that keeps each command's argument type tied to its schema. */
export function operatorCommand<Args, Answer>(command: OperatorCommand<Args, Answer>): OperatorCommand<Args, Answer> {
  return command
}

const COMMANDS: Record<string, OperatorCommand<any, unknown>> = {
  ...creditCommands,
  ...teamCommands,
}


export function operatorCommandNames(): string[] {
  return Object.keys(COMMANDS)
}

/** Runs one command on this process's database. Refusals throw OperatorError. */
export async function runOperatorCommand(name: string, rawArgs: unknown, db: DbOrTx = getDb()): Promise<unknown> {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (!command) throw new OperatorError(`Unknown command "${name}".`, 'invalid')
  const parsed = command.args.safeParse(rawArgs)
  if (!parsed.success) {
    throw new OperatorError(parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; '), 'invalid')
  }
  return command.run(parsed.data, db)
}
